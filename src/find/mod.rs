//! Finding bytes fast, below every reader: the search for the next keyword
//! ([`keywords`]) and the plain-ASCII and UTF-8 checks ([`plain`]) that ride along with it.
//! Nothing here knows what a log means.

pub mod keywords;
pub mod plain;

pub use plain::utf8_check;

/// A literal searched for in many texts: memchr's searcher in the command line; in the
/// WebAssembly package, the standard library's (the package carries it anyway: memchr's would
/// be 3 KB more gzipped, for texts a prefilter has already narrowed to a few lines; the page's
/// benchmarks read a 10 MB log as fast with either).
pub struct Needle {
    #[cfg(not(target_arch = "wasm32"))]
    finder: memchr::memmem::Finder<'static>,
    #[cfg(target_arch = "wasm32")]
    text: &'static str,
}

impl Needle {
    pub fn new(text: &'static str) -> Needle {
        #[cfg(not(target_arch = "wasm32"))]
        return Needle { finder: memchr::memmem::Finder::new(text) };
        #[cfg(target_arch = "wasm32")]
        Needle { text }
    }

    /// Whether `hay` holds it.
    pub fn is_in(&self, hay: &str) -> bool {
        #[cfg(not(target_arch = "wasm32"))]
        return self.finder.find(hay.as_bytes()).is_some();
        #[cfg(target_arch = "wasm32")]
        hay.contains(self.text)
    }
}

/// Whether `hay` holds `needle`, searched as [`Needle`] says.
pub fn has(hay: &str, needle: &str) -> bool {
    #[cfg(not(target_arch = "wasm32"))]
    return memchr::memmem::find(hay.as_bytes(), needle.as_bytes()).is_some();
    #[cfg(target_arch = "wasm32")]
    hay.contains(needle)
}

/// Whether the first bytes of a file (at most a few kilobytes: the package compares at every
/// place) hold `needle`.
pub fn head_has(hay: &[u8], needle: &[u8]) -> bool {
    #[cfg(not(target_arch = "wasm32"))]
    return memchr::memmem::find(hay, needle).is_some();
    #[cfg(target_arch = "wasm32")]
    hay.windows(needle.len()).any(|w| w == needle)
}
