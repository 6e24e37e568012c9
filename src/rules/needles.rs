//! Needles: literals a regular expression cannot match without. `needles(p)` is a list such
//! that every text `p` matches contains at least one of them (an empty list: no such promise).
//! The WebAssembly package runs a pattern only on lines that hold one of its needles, which
//! spares `regex-lite`'s PikeVM most lines (the CLI's `RegexSet` does not need it).
//!
//! Computed by build.rs from the rule data (this file is included there) and checked in
//! `tests/engines.rs`: on every fixture line a pattern matches, one of its needles is present.
//!
//! It reads the syntax the rules use: literals, escapes, classes, groups (plain, `?:`, named),
//! alternation, quantifiers, anchors. Anything else (flags such as `(?i)`, `\x`, `\p`, ...)
//! gives no needles, which is always sound.

/// The needles of `pattern`, longest-first choice per concatenation; empty when none is sure.
pub fn needles(pattern: &str) -> Vec<String> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut p = Parser { chars: &chars, at: 0 };
    match p.alternation() {
        Some(Some(list)) if p.at == chars.len() => list,
        _ => Vec::new(),
    }
}

/// `Some(list)`: every match holds one of `list`. `None`: no promise.
type Lits = Option<Vec<String>>;

struct Parser<'a> {
    chars: &'a [char],
    at: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    /// `a|b|c`: one of each branch's needles, when every branch has some. The outer `None`
    /// is syntax this reader does not know.
    fn alternation(&mut self) -> Option<Lits> {
        let mut all = Some(Vec::new());
        loop {
            let branch = self.concatenation()?;
            all = match (all, branch) {
                (Some(mut a), Some(b)) => {
                    a.extend(b);
                    Some(a)
                }
                _ => None,
            };
            if self.peek() == Some('|') {
                self.at += 1;
            } else {
                return Some(all);
            }
        }
    }

    /// A sequence: runs of plain characters are needles, and so are the needles of a group
    /// that must occur; the best of them stands for the sequence.
    fn concatenation(&mut self) -> Option<Lits> {
        let mut best: Lits = None;
        let mut run = String::new();
        let keep = |best: &mut Lits, cand: Lits| {
            if let Some(c) = cand {
                if !c.is_empty() && c.iter().all(|s| !s.is_empty()) && better(&c, best.as_deref()) {
                    *best = Some(c);
                }
            }
        };
        while let Some(c) = self.peek() {
            if c == '|' || c == ')' {
                break;
            }
            let atom = self.atom()?;
            let (min, quantified) = self.quantifier()?;
            let flush = |run: &mut String| Some(vec![std::mem::take(run)]).filter(|r| !r[0].is_empty());
            match atom {
                Atom::Char(ch) if !quantified => run.push(ch),
                Atom::Char(ch) if min >= 1 => {
                    run.push(ch);
                    keep(&mut best, flush(&mut run));
                }
                Atom::Group(l) if min >= 1 => {
                    keep(&mut best, flush(&mut run));
                    keep(&mut best, l);
                }
                _ => keep(&mut best, flush(&mut run)),
            }
        }
        keep(&mut best, Some(vec![run]).filter(|r| !r[0].is_empty()));
        Some(best)
    }

    fn atom(&mut self) -> Option<Atom> {
        let c = self.peek()?;
        self.at += 1;
        Some(match c {
            '(' => {
                if self.peek() == Some('?') {
                    let rest: String = self.chars[self.at..].iter().take(3).collect();
                    if rest.starts_with("?:") {
                        self.at += 2;
                    } else if rest.starts_with("?P<") || rest.starts_with("?<") {
                        let close = self.chars[self.at..].iter().position(|&c| c == '>')?;
                        self.at += close + 1;
                    } else {
                        return None; // flags
                    }
                }
                let inner = self.alternation()?;
                if self.peek() != Some(')') {
                    return None;
                }
                self.at += 1;
                Atom::Group(inner)
            }
            '[' => {
                self.class()?;
                Atom::Other
            }
            '\\' => {
                let e = self.peek()?;
                self.at += 1;
                match e {
                    'd' | 'D' | 'w' | 'W' | 's' | 'S' | 'b' | 'B' | 'A' | 'z' => Atom::Other,
                    'n' => Atom::Char('\n'),
                    't' => Atom::Char('\t'),
                    'r' => Atom::Char('\r'),
                    e if e.is_ascii_punctuation() => Atom::Char(e),
                    _ => return None,
                }
            }
            '.' | '^' | '$' => Atom::Other,
            ')' | '|' | '*' | '+' | '?' | '{' => return None,
            c => Atom::Char(c),
        })
    }

    /// Skips a bracket class (nested classes and escapes included).
    fn class(&mut self) -> Option<()> {
        let mut depth = 1;
        let mut first = true;
        if self.peek() == Some('^') {
            self.at += 1;
        }
        while depth > 0 {
            let c = self.peek()?;
            self.at += 1;
            match c {
                '\\' => self.at += 1,
                ']' if !first => depth -= 1,
                '[' => {
                    depth += 1;
                    first = true;
                    if self.peek() == Some('^') {
                        self.at += 1;
                    }
                    continue;
                }
                _ => {}
            }
            first = false;
        }
        (self.at <= self.chars.len()).then_some(())
    }

    /// A quantifier after an atom: its minimum count (1 when there is none) and whether there
    /// was one.
    fn quantifier(&mut self) -> Option<(u32, bool)> {
        let (min, had) = match self.peek() {
            Some('*') | Some('?') => {
                self.at += 1;
                (0, true)
            }
            Some('+') => {
                self.at += 1;
                (1, true)
            }
            Some('{') => {
                let close = self.chars[self.at..].iter().position(|&c| c == '}')?;
                let body: String = self.chars[self.at + 1..self.at + close].iter().collect();
                let min = body.split(',').next()?.trim().parse::<u32>().ok()?;
                self.at += close + 1;
                (min, true)
            }
            _ => (1, false),
        };
        if had && self.peek() == Some('?') {
            self.at += 1; // lazy
        }
        Some((min, had))
    }
}

enum Atom {
    Char(char),
    Group(Lits),
    Other,
}

/// Whether `a` filters better than `b`: its shortest needle is longer, then it has fewer.
fn better(a: &[String], b: Option<&[String]>) -> bool {
    let Some(b) = b else { return true };
    let short = |l: &[String]| l.iter().map(|s| s.chars().count()).min().unwrap_or(0);
    (short(a), std::cmp::Reverse(a.len())) > (short(b), std::cmp::Reverse(b.len()))
}

#[cfg(test)]
mod tests {
    use super::needles;

    #[test]
    fn what_a_match_must_hold() {
        let n = |p: &str| needles(p);
        assert_eq!(n(r"binary_cross_entropy\(|BCELoss\("), ["binary_cross_entropy(", "BCELoss("]);
        assert_eq!(n(r"bernoulli_?\(|Bernoulli\("), ["bernoulli", "Bernoulli("]);
        assert_eq!(n(r"cross_entropy(?:_loss)?\(|nll_loss\("), ["cross_entropy", "nll_loss("]);
        assert_eq!(n(r"\b(?:criterion|loss_f(?:n|unc))\s*\("), ["criterion", "loss_f"]);
        assert_eq!(n(r"\bembed(?:ding)?(?:s|_\w+)?\b"), ["embed"]);
        assert_eq!(n(r"\.scatter(?:_add|_reduce)?_?\(|take_along_dim\("), [".scatter", "take_along_dim("]);
        assert_eq!(n(r"ignore_index\s*="), ["ignore_index"]);
        assert_eq!(n(r"(?P<n>\d+) frames?"), [" frame"]);
        assert_eq!(n(r"ab+c"), ["ab"]);
        assert_eq!(n(r"x{2,}yz"), ["yz"]);
        assert_eq!(n(r"[\]a-z]+_id"), ["_id"]);
    }

    #[test]
    fn no_promise_where_none_is_sure() {
        for p in [r"a|", r"(?i)loss\(", r"\d+", r"a?b*", r"\x41bc", r"\p{Greek}", r"(ab", r"[ab", r"a|\d", r"(?:ab)?"] {
            assert!(needles(p).is_empty(), "{p}: {:?}", needles(p));
        }
    }
}
