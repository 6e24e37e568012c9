//! Finding bytes fast, below every reader: the search for the next keyword
//! ([`keywords`]) and the plain-ASCII and UTF-8 checks ([`plain`]) that ride along with it.
//! Nothing here knows what a log means.

pub mod keywords;
pub mod plain;

pub use plain::utf8_check;
