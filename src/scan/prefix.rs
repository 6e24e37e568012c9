//! The prefixes launchers, loggers and terminals put in front of every line (`[rank3]: `,
//! `(pid=812) `, `worker-0: `, `trainer-1  | `, `Mar 01 10:00:01 host python3[2211]: `, an
//! ISO-8601 time, a line number), taken off so that the traceback reader sees a bare
//! traceback.
//!
//! Two ways, one after the other:
//! - [`strip_known`]: the forms of `Patterns::prefix` (ranks, timestamps, logger levels), which
//!   stand alone on any line;
//! - [`Learned`]: any other prefix, learned from a line whose structure shows where the prefix
//!   ends (a traceback header or frame line that does not start the line) and then taken off
//!   every following line that starts the same way. "The same way" ignores the digits that
//!   change from line to line (times, pids, ranks, line numbers) and the width of inner runs of
//!   spaces.

use super::context::{Context, Judge};
use super::patterns::{patterns, Patterns};
use super::Scanner;

/// Takes the known prefixes off `s` (up to six, nested).
pub fn strip_known(s: &str) -> &str {
    let p = patterns();
    let mut rest = s;
    for _ in 0..6 {
        if !may_have_known(p, rest) {
            break;
        }
        match p.prefix.find(rest) {
            Some(m) if m.end() > 0 && m.end() < rest.len() => rest = &rest[m.end()..],
            _ => break,
        }
    }
    rest
}

/// False when `line` cannot start with a prefix `Patterns::prefix` strips: each of its forms
/// begins with `[`, `(`, a digit, `rank` (any case the pattern takes) or glog's level letter and a
/// digit, or holds `MODEL_LOG`, a level name or Docker Compose's ` | `. Lets most lines skip the pattern (an error
/// line starting `RuntimeError` used to run it for its `R`).
pub fn may_have_known(p: &Patterns, line: &str) -> bool {
    let b = line.trim_start().as_bytes();
    match b.first() {
        None => false,
        Some(b'[' | b'(' | b'0'..=b'9') => true,
        Some(b'R' | b'r') if b[1..].starts_with(b"ank") || b[1..].starts_with(b"ANK") => true,
        Some(b'I' | b'W' | b'E' | b'F') if b.get(1).is_some_and(u8::is_ascii_digit) => true,
        // One search for all of them (six substring searches cost the package more).
        Some(_) => p.levels.find(line.as_bytes()).is_some(),
    }
}

/// The longest prefix learned.
const MAX_LEARNED: usize = 160;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tok {
    /// One or more ASCII digits.
    Digits,
    /// One or more spaces.
    Spaces,
    Byte(u8),
}

/// A prefix learned from one line, to take off the lines that follow.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Learned {
    toks: Vec<Tok>,
    /// Spaces that end the prefix: up to this many are taken (the rest is indentation).
    trailing: usize,
}

impl Learned {
    /// Learns `prefix`, the text in front of a traceback's structure on a line; `None` when
    /// it is no prefix (empty, long, or words that quote rather than print).
    pub fn new(prefix: &str, j: Judge) -> Option<Learned> {
        let body = prefix.trim_end_matches(' ');
        if body.trim().is_empty() || prefix.len() > MAX_LEARNED || j.judge(prefix, "") == Context::Quoted {
            return None;
        }
        let mut toks = Vec::new();
        for &b in body.as_bytes() {
            let t = match b {
                b'0'..=b'9' => Tok::Digits,
                b' ' => Tok::Spaces,
                b => Tok::Byte(b),
            };
            if !(matches!(t, Tok::Digits | Tok::Spaces) && toks.last() == Some(&t)) {
                toks.push(t);
            }
        }
        Some(Learned { toks, trailing: prefix.len() - body.len() })
    }

    /// `line` without the prefix, when it starts with it.
    pub fn strip<'a>(&self, line: &'a str) -> Option<&'a str> {
        let b = line.as_bytes();
        let mut i = 0;
        let run = |i: &mut usize, f: fn(u8) -> bool| {
            let j = *i;
            while *i < b.len() && f(b[*i]) {
                *i += 1;
            }
            *i > j
        };
        for t in &self.toks {
            let ok = match *t {
                Tok::Digits => run(&mut i, |c| c.is_ascii_digit()),
                Tok::Spaces => run(&mut i, |c| c == b' '),
                Tok::Byte(c) => {
                    let ok = b.get(i) == Some(&c);
                    i += 1;
                    ok
                }
            };
            if !ok {
                return None;
            }
        }
        let mut k = 0;
        while k < self.trailing && b.get(i) == Some(&b' ') {
            i += 1;
            k += 1;
        }
        // The prefix was learned from whole characters, so `i` ends one.
        line.get(i..)
    }
}

/// The scanner's prefix state: the prefix learned from the last traceback line that showed one,
/// taken off the lines that follow it.
impl Scanner {
    /// `s` without its known prefixes and the one learned from the lines before, learning
    /// a new one when the line's structure shows where its prefix ends.
    pub(super) fn strip_prefix<'a>(&mut self, s: &'a str) -> &'a str {
        let known = strip_known(s);
        if self.p.tb_anchors.find(known.as_bytes()).is_some() {
            self.learn_prefix(known);
        }
        self.learned.as_ref().and_then(|l| l.strip(known)).unwrap_or(known)
    }

    fn learn_prefix(&mut self, line: &str) {
        let at = match line.find("Traceback (most recent call last)") {
            Some(k) => k,
            None => match line.find("File \"") {
                Some(k) if self.p.frame_std.is_match(&line[k..]) => k,
                _ => return,
            },
        };
        // A rich box's border is no part of the prefix, nor is the exception's name IPython
        // puts in front of its header.
        let at = line[..at].find(|c: char| ('\u{2500}'..='\u{257f}').contains(&c)).unwrap_or(at);
        let head = line[..at].trim_end();
        let name =
            head.len() - head.trim_end_matches(|c: char| c.is_ascii_alphanumeric() || c == '_' || c == '.').len();
        let at = if name > 0 && super::context::is_exception_name(&head[head.len() - name..]) {
            head.len() - name
        } else {
            at
        };
        if at > 0 {
            if let Some(l) = Learned::new(&line[..at], self.judge) {
                if self.learned.as_ref() != Some(&l) {
                    // Lines inert under one prefix may not be under another.
                    self.learned_generation += 1;
                    self.inert.clear();
                }
                self.learned = Some(l);
            }
        }
    }

    /// Forgets the learned prefix. The lines found inert stay so unless one was learned: what
    /// makes a line change nothing (no reader takes it, or what it adds is at its limit) holds
    /// in every cell and output, so a warning printed in every cell is read once.
    pub(super) fn forget_prefix(&mut self) {
        if self.learned.take().is_some() {
            self.learned_generation += 1;
            self.inert.clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_prefixes_nest() {
        assert_eq!(strip_known("[rank0]: 2024-01-02 10:11:12,345 [ERROR] RuntimeError: x"), "RuntimeError: x");
        assert_eq!(strip_known("RuntimeError: x"), "RuntimeError: x");
    }

    #[test]
    fn a_learned_prefix_ignores_digits_and_keeps_indentation() {
        let l = Learned::new("Mar 01 10:00:01 gpu-box python3[2211]: ", Judge::default()).unwrap();
        assert_eq!(
            l.strip("Mar 01 10:00:02 gpu-box python3[2211]:   File \"x.py\", line 3"),
            Some("  File \"x.py\", line 3")
        );
        assert_eq!(l.strip("Mar 11 10:00:02 gpu-box python3[13]: RuntimeError: y"), Some("RuntimeError: y"));
        assert_eq!(l.strip("Mar 01 10:00:02 other-box python3[2211]: x"), None);
        // Learned from a frame line, the indentation is part of what was seen: up to that much
        // is taken, the rest stays.
        let l = Learned::new("worker-0:   ", Judge::default()).unwrap();
        assert_eq!(l.strip("worker-0: RuntimeError: y"), Some("RuntimeError: y"));
        assert_eq!(l.strip("worker-0:     loss = f(x)"), Some("  loss = f(x)"));
        // Padded columns.
        let l = Learned::new("    99  ", Judge::default()).unwrap();
        assert_eq!(l.strip("   100  Traceback"), Some("Traceback"));
        let l = Learned::new("[default0]:", Judge::default()).unwrap();
        assert_eq!(l.strip("[default1]:  File \"a.py\""), Some("  File \"a.py\""));
        let l = Learned::new("训练日志 ", Judge::default()).unwrap();
        assert_eq!(l.strip("训练日志 x"), Some("x"));
    }

    #[test]
    fn not_every_text_is_a_prefix() {
        assert!(Learned::new("", Judge::default()).is_none());
        assert!(Learned::new("   ", Judge::default()).is_none());
        assert!(Learned::new(&"x".repeat(200), Judge::default()).is_none());
        assert!(Learned::new("print(\"", Judge::default()).is_none());
        assert!(Learned::new("If you see ", Judge::default()).is_none());
    }
}
