//! The keys of the message catalogue (`i18n/messages.toml`): `build.rs` turns each key into a
//! [`Msg`] variant, so a missing or misspelt key is a compile error. This module is data (the
//! keys) and the placeholder filler; the texts are looked up in [`super::catalogue`].

include!(concat!(env!("OUT_DIR"), "/messages.rs"));

use std::fmt::Display;

/// Replaces each `{name}` in `template` with its value from `args`.
pub(crate) fn fill(template: &str, args: &[(&str, &dyn Display)]) -> String {
    let mut out = String::with_capacity(template.len() + 32);
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        match after.find('}') {
            Some(close) if after[..close].chars().all(|c| c.is_ascii_alphanumeric() || c == '_') => {
                let name = &after[..close];
                match args.iter().find(|(n, _)| *n == name) {
                    Some((_, v)) => out.push_str(&v.to_string()),
                    None => {
                        out.push('{');
                        out.push_str(name);
                        out.push('}');
                    }
                }
                rest = &after[close + 1..];
            }
            _ => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}
