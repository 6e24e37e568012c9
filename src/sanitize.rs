//! Text from the input made safe to show: in a terminal (the CLI) and in the page's text nodes.

use std::fmt::Write as _;

/// Makes text from the input safe for a terminal: control characters (C0, DEL, C1) and
/// bidirectional overrides become visible `\u{..}` escapes; tabs become spaces.
pub fn sanitize(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\t' => out.push_str("    "),
            c if (c as u32) < 0x20 || c == '\u{7f}' || ('\u{80}'..='\u{9f}').contains(&c) => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{61c}' => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}
