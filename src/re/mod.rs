//! The regular-expression engine, chosen per build. The CLI uses `regex`, with a `RegexSet`
//! that tests all patterns of a field in one pass over a line. The WebAssembly package uses
//! [`pike`], our own: the same syntax (as far as the patterns use it) and the same linear-time
//! guarantee in a few kilobytes, without the large automata and Unicode tables; it tests a
//! field's patterns one by one (they only run on the few lines a keyword prefilter lets through).
//!
//! Both engines must find the same matches. They differ in one thing the patterns use: the
//! Perl classes `\d`, `\w`, `\s` and the word boundary `\b` are ASCII in [`pike`] and
//! Unicode in `regex`. The CLI therefore compiles [`ascii_perl`]'s translation of each
//! pattern, which spells those classes out in ASCII; `tests/engines.rs` checks that every
//! pattern compiles in both engines and matches the same spans on every fixture line.

pub mod pike;

#[cfg(target_arch = "wasm32")]
pub use pike::{Captures, Regex};
#[cfg(not(target_arch = "wasm32"))]
pub use regex::{Captures, Regex};

/// A pattern compiled when first used: most inputs need few of the formats, and compiling them
/// all (the CLI's engine builds prefilters) cost more than reading a small log.
pub struct LazyRegex {
    src: String,
    compiled: std::sync::OnceLock<Regex>,
}

impl LazyRegex {
    /// `src`, to compile at first use. It must compile (`tests/engines.rs` checks every
    /// pattern in both engines): a pattern that did not would panic there.
    pub fn new(src: &str) -> LazyRegex {
        LazyRegex { src: src.to_string(), compiled: std::sync::OnceLock::new() }
    }
}

impl std::ops::Deref for LazyRegex {
    type Target = Regex;
    fn deref(&self) -> &Regex {
        self.compiled.get_or_init(|| compile(&self.src).unwrap_or_else(|e| panic!("engine {e}")))
    }
}

/// Compiles a pattern; the error names it.
pub fn compile(src: &str) -> Result<Regex, String> {
    #[cfg(not(target_arch = "wasm32"))]
    let r = Regex::new(&ascii_perl(src));
    #[cfg(target_arch = "wasm32")]
    let r = Regex::new(src);
    r.map_err(|e| format!("pattern `{src}` does not compile: {e}"))
}

/// `src` with the Perl classes and word boundaries written as their ASCII definitions (the
/// ones `regex-lite` uses), for the `regex` engine: `\d` → `[0-9]`, `\w` → `[0-9A-Za-z_]`,
/// `\s` → `[\t\n\x0B\x0C\r ]`, their negations, `\b` → `(?-u:\b)`, `\B` → `(?-u:\B)`.
/// Inside a bracket class the classes become nested classes, which `regex` supports.
#[cfg(not(target_arch = "wasm32"))]
pub fn ascii_perl(src: &str) -> String {
    const DIGIT: &str = "0-9";
    const WORD: &str = "0-9A-Za-z_";
    const SPACE: &str = "\\t\\n\\x0B\\x0C\\r ";
    let mut out = String::with_capacity(src.len() + 16);
    let mut depth = 0usize; // nesting of bracket classes
    let mut chars = src.chars().peekable();
    // True right after a class opened (and after its `^`): a `]` there is a literal.
    let mut class_start = false;
    while let Some(c) = chars.next() {
        let at_start = std::mem::take(&mut class_start);
        match c {
            '\\' => {
                let Some(e) = chars.next() else {
                    out.push(c);
                    break;
                };
                let class = match e {
                    'd' | 'D' => Some(DIGIT),
                    'w' | 'W' => Some(WORD),
                    's' | 'S' => Some(SPACE),
                    _ => None,
                };
                match (class, depth) {
                    (Some(set), _) => {
                        let neg = if e.is_ascii_uppercase() { "^" } else { "" };
                        out.push_str(&format!("[{neg}{set}]"));
                    }
                    (None, 0) if e == 'b' || e == 'B' => out.push_str(&format!("(?-u:\\{e})")),
                    _ => {
                        out.push(c);
                        out.push(e);
                    }
                }
            }
            '[' => {
                out.push(c);
                // `[:alpha:]` inside a class is a POSIX class, not a nested class.
                if depth > 0 && chars.peek() == Some(&':') {
                    for p in chars.by_ref() {
                        out.push(p);
                        if p == ']' {
                            break;
                        }
                    }
                    continue;
                }
                depth += 1;
                if chars.peek() == Some(&'^') {
                    out.push(chars.next().unwrap_or('^'));
                }
                class_start = true;
            }
            ']' if depth > 0 && !at_start => {
                depth -= 1;
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}

/// A list of patterns tested together: which of them match a text, and where one matches.
/// Each pattern's own regex is compiled when first needed.
pub struct Set {
    /// All patterns in one automaton (the CLI's, for patterns tried on many lines); `None`:
    /// each pattern is tried by itself, as the package always does.
    #[cfg(not(target_arch = "wasm32"))]
    set: Option<regex::RegexSet>,
    regexes: Vec<LazyRegex>,
}

impl Set {
    /// Compiles `srcs` (in the CLI, as one set); the error names the pattern that does not.
    pub fn new(srcs: &[&str]) -> Result<Set, String> {
        #[cfg(not(target_arch = "wasm32"))]
        let set = regex::RegexSetBuilder::new(srcs.iter().map(|s| ascii_perl(s)))
            .size_limit(64 << 20)
            .build()
            .map_err(|e| format!("patterns do not compile as a set: {e}"))?;
        #[cfg(not(target_arch = "wasm32"))]
        let set = Some(set);
        Ok(Set {
            #[cfg(not(target_arch = "wasm32"))]
            set,
            regexes: srcs.iter().map(|s| LazyRegex::new(s)).collect(),
        })
    }

    /// `srcs` tried one by one, each compiled when first tried: for patterns that meet few
    /// lines, where building the CLI's set would cost more than the lines (`tests/engines.rs`
    /// checks that every pattern compiles).
    pub fn one_by_one(srcs: &[&str]) -> Set {
        Set {
            #[cfg(not(target_arch = "wasm32"))]
            set: None,
            regexes: srcs.iter().map(|s| LazyRegex::new(s)).collect(),
        }
    }

    /// The indexes of the patterns that match `text`, in increasing order.
    pub fn matches<'a>(&'a self, text: &'a str) -> impl Iterator<Item = usize> + 'a {
        self.matches_where(text, |_| true)
    }

    /// Like [`Set::matches`], for the patterns `keep` accepts only (by index): a cheap test,
    /// such as a literal the pattern needs, that spares running the others.
    pub fn matches_where<'a>(
        &'a self,
        text: &'a str,
        keep: impl Fn(usize) -> bool + 'a,
    ) -> impl Iterator<Item = usize> + 'a {
        // The CLI's set: one pass over the line for all patterns (filtering afterwards is as
        // cheap); else each pattern that `keep` accepts, by itself.
        #[cfg(not(target_arch = "wasm32"))]
        let (by_set, alone) = match (&self.set, self.regexes.is_empty()) {
            (Some(set), false) => (Some(set.matches(text)), 0),
            _ => (None, self.regexes.len()),
        };
        #[cfg(target_arch = "wasm32")]
        let (by_set, alone) = (None::<std::iter::Empty<usize>>, self.regexes.len());
        let mut by_set = by_set.into_iter().flat_map(|m| m.into_iter());
        let mut by_one = 0..alone;
        // For a pattern tried alone `keep` comes first: it is what spares running it.
        std::iter::from_fn(move || {
            by_set.find(|&i| keep(i)).or_else(|| by_one.find(|&i| keep(i) && self.regexes[i].is_match(text)))
        })
    }

    /// The part of `text` that pattern `i` matches first.
    pub fn find<'t>(&self, i: usize, text: &'t str) -> Option<&'t str> {
        self.regexes[i].find(text).map(|m| m.as_str())
    }
}
