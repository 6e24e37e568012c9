//! Kernel records a terminal or a paste broke over lines, joined back: a head whose
//! `Assertion` is on the next line, a condition whose closing backtick is, or the pieces of a
//! record hard-wrapped at a fixed width (the last piece is the line that shows the core).

use super::*;

/// Lines a wrapped kernel record may span.
const MAX_WRAP: u32 = 6;

/// A kernel record being joined back from wrapped lines.
pub(super) struct Wrap {
    start: Loc,
    norm: String,
    quote: String,
    lines: u32,
    translated: bool,
    before: Vec<(u64, String)>,
}

impl Scanner {
    #[allow(clippy::too_many_arguments)]
    pub(super) fn start_wrap(
        &mut self,
        norm: &str,
        quote: &str,
        raw_len: usize,
        loc: Loc,
        translated: bool,
        no_file: bool,
        before: Vec<(u64, usize, String)>,
    ) {
        let mut w = Wrap {
            start: loc,
            norm: norm.to_string(),
            quote: quote.to_string(),
            lines: 1,
            translated,
            before: Vec::new(),
        };
        let mut rest = before.into_iter().peekable();
        if no_file {
            // A terminal hard-wrapped the record at a fixed width: the pieces above it all have
            // the width of the line just above (this one may be the shorter last piece).
            let width = rest.peek().map(|(_, len, _)| *len).unwrap_or(0);
            // A record broken before its `Assertion`: the line above is its whole head (a line
            // the keyword search passes over when its path holds no keyword, `c10d/NanCheck.cu`),
            // whatever the lengths.
            if let Some((n, _, t)) = rest.next_if(|(_, _, t)| kernel::ends_in_head(&normalise(t))) {
                w.norm.insert_str(0, &normalise(&t));
                w.quote.insert_str(0, &t);
                w.start.order -= w.start.at.line - n;
                w.start.at.line = n;
                w.lines += 1;
            } else if width >= 40 && raw_len <= width {
                while let Some((n, _, t)) = rest.next_if(|(_, len, _)| *len == width) {
                    w.norm.insert_str(0, &normalise(&t));
                    w.quote.insert_str(0, &t);
                    w.start.order -= w.start.at.line - n;
                    w.start.at.line = n;
                    w.lines += 1;
                }
            }
        }
        w.before = rest.take(facts::CONTEXT).map(|(n, _, t)| (n, clip(&t, 300).to_string())).collect();
        w.before.reverse();
        let mut parsed = kernel::parse(&w.norm, w.translated, self.judge);
        if w.lines > 1 && parsed.first().is_none_or(|p| p.cut) {
            // The lines above did not give the record its head: it stands on its own.
            w = Wrap {
                start: loc,
                norm: norm.to_string(),
                quote: quote.to_string(),
                lines: 1,
                translated,
                before: w.before,
            };
            parsed = kernel::parse(&w.norm, w.translated, self.judge);
        }
        if !parsed.is_empty() && !kernel::needs_next(&w.norm, &parsed) {
            self.finish_wrap(w, parsed, Some(loc.at.line));
        } else if w.lines < MAX_WRAP {
            self.wrap = Some(w);
        }
    }

    /// Appends a line to the record being joined; returns true when the line completed it
    /// (and so belongs to it). A line that does not complete it is read normally as well.
    pub(super) fn continue_wrap(&mut self, display: &str, loc: Loc) -> bool {
        let w = self.wrap.as_mut().expect("a wrap");
        let norm = normalise(display);
        if kernel::parse(&norm, w.translated, self.judge).first().is_some_and(|p| p.start == 0 && !p.cut) {
            // The next line is a record of its own: the wrapped one ends here.
            self.flush_wrap();
            return false;
        }
        w.norm.push_str(&norm);
        w.quote.push_str(display);
        w.lines += 1;
        let parsed = kernel::parse(&w.norm, w.translated, self.judge);
        if !parsed.is_empty() && !kernel::needs_next(&w.norm, &parsed) {
            let w = self.wrap.take().expect("a wrap");
            self.finish_wrap(w, parsed, Some(loc.at.line));
            return true;
        }
        if w.lines >= MAX_WRAP {
            self.flush_wrap();
        }
        false
    }

    /// Ends a wrap that did not complete: records what it holds, if anything.
    pub(super) fn flush_wrap(&mut self) {
        if let Some(w) = self.wrap.take() {
            let parsed = kernel::parse(&w.norm, w.translated, self.judge);
            if !parsed.is_empty() {
                let end = w.start.at.line + u64::from(w.lines) - 1;
                self.finish_wrap(w, parsed, Some(end));
            }
        }
    }

    fn finish_wrap(&mut self, w: Wrap, parsed: Vec<kernel::Parsed>, end_line: Option<u64>) {
        let end_line = end_line.filter(|&e| e != w.start.at.line);
        for p in parsed {
            let first = self.rec.facts.sites.is_empty();
            self.kernel_hit(p, &w.quote, w.start, end_line);
            if first && !self.rec.facts.sites.is_empty() {
                self.rec.facts.kernel_context = w.before.clone();
                self.rec.after.push((Target::Kernel, facts::CONTEXT));
            }
        }
    }
}
