//! Personal data out of a text to share: user names in home directories and prompts, Drive
//! folders, host names, e-mail and IP addresses, tokens and keys (share/patterns.toml's
//! `[[redact]]` rows, in order). Paths under `site-packages`, `dist-packages` and PyTorch's
//! source tree stay: they are the evidence.

use super::{compile, table};

/// How many items of each kind a redaction replaced, in the table's order of kinds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Counts(pub Vec<(String, u64)>);

impl Counts {
    /// The count of `kind`.
    pub fn of(&self, kind: &str) -> u64 {
        self.0.iter().find(|(k, _)| k == kind).map_or(0, |(_, n)| *n)
    }

    /// Nothing replaced.
    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|(_, n)| *n == 0)
    }

    fn add(&mut self, kind: &str) {
        match self.0.iter_mut().find(|(k, _)| k == kind) {
            Some((_, n)) => *n += 1,
            None => self.0.push((kind.to_string(), 1)),
        }
    }
}

/// Whether `s` holds both a letter and a digit (a row's `mixed`: secrets, not words or counts).
fn mixed(s: &str) -> bool {
    s.bytes().any(|b| b.is_ascii_alphabetic()) && s.bytes().any(|b| b.is_ascii_digit())
}

/// `text` with every row of the table applied, and what was replaced.
pub fn redact(text: &str) -> (String, Counts) {
    let t = table();
    let mut counts = Counts(t.kinds.iter().map(|k| (k.clone(), 0)).collect());
    let mut text = text.to_string();
    for row in &t.redact {
        let re = compile(&row.pattern, &row.flags);
        let mut out = String::with_capacity(text.len());
        let mut last = 0;
        for caps in re.captures_iter(&text) {
            let whole = caps.get(0).expect("group 0 is the match");
            // The parts replaced: each group that took part, or the whole match.
            let parts: Vec<(usize, regex::Match)> = if caps.len() > 1 {
                (1..caps.len()).filter_map(|i| caps.get(i).map(|m| (i - 1, m))).collect()
            } else {
                vec![(0, whole)]
            };
            if row.mixed && !parts.iter().all(|(_, m)| mixed(m.as_str())) {
                continue;
            }
            for (i, m) in parts {
                out.push_str(&text[last..m.start()]);
                out.push_str(row.with.get(i).or(row.with.last()).map_or("", |s| s.as_str()));
                last = m.end();
            }
            counts.add(&row.kind);
        }
        out.push_str(&text[last..]);
        text = out;
    }
    (text, counts)
}
