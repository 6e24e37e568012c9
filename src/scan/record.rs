//! The recorder: what the readers found, kept in [`Facts`] with their places, times and the
//! lines around them, within the facts' bounds.

use super::*;

/// What the scan found, and what is still to be added to it.
#[derive(Default)]
pub(super) struct Recorder {
    pub(super) facts: Facts,
    /// Lines still to be kept after a first kernel record or host error.
    pub(super) after: Vec<(Target, usize)>,
    pub(super) first_host_seen: bool,
    /// The time of the last timed finding.
    pub(super) last_time: Option<u64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Target {
    Kernel,
    Host,
    /// The lines after a `FirstAssertError` (the probe's values, bound and line).
    Exception,
    /// The lines after a heading of torchrun's summary (the block at this index of `elastic`).
    Elastic(usize),
}

/// Quotes `text`, cut to a window around `[from, to)` when it is long.
pub(super) fn quote(text: &str, from: usize, to: usize) -> Quote {
    let t = text.trim_end();
    let (w, truncated) = window(t, from.min(t.len()), to.min(t.len()), MAX_TEXT);
    Quote { text: w.to_string(), truncated }
}

impl Scanner {
    /// The time at the start of a line that holds a finding, counting the step from the last
    /// timed finding (only findings are timed: they are what "first" is about).
    fn read_time(&mut self, line: &str) -> Option<u64> {
        let t = time::parse(line);
        if let (Some(t), Some(last)) = (t, self.rec.last_time) {
            let steps = &mut self.rec.facts.time_steps;
            if t < last {
                steps.0 += 1;
            } else if t > last {
                steps.1 += 1;
            }
        }
        if t.is_some() {
            self.rec.last_time = t;
        }
        t
    }

    pub(super) fn notes(&mut self, s: &str, seg: &str, loc: Loc) {
        if !self.rec.facts.launcher && self.p.launcher_in(seg) {
            self.rec.facts.launcher = true;
        }
        if self.p.notes.find(s.as_bytes()).is_some() {
            if s.contains("asynchronously reported") && self.rec.facts.async_notes.len() < 64 {
                self.rec.facts.async_notes.push(loc);
            }
            if s.contains("TORCH_USE_CUDA_DSA")
                || s.contains("TORCH_USE_HIP_DSA")
                || s.contains("Device-side assertion tracking was not enabled")
            {
                self.rec.facts.dsa_hint = true;
            }
            if self.p.sets_launch_blocking(s) && self.rec.facts.launch_blocking.len() < 16 {
                self.rec.facts.launch_blocking.push(Mention { loc, text: clip(seg.trim(), 300).to_string() });
            }
        }
        // torchrun's summary: the lines after its headings are kept for `elastic::read`.
        let root = s.contains(super::elastic::ROOT);
        if (root || s.trim() == super::elastic::FAILURES) && self.rec.facts.elastic.len() < crate::facts::MAX_ELASTIC {
            let lines = if root { super::elastic::ROOT_LINES } else { super::elastic::FAILURE_LINES };
            self.rec.after.push((Target::Elastic(self.rec.facts.elastic.len()), lines));
            self.rec.facts.elastic.push(crate::facts::Elastic { at: loc, root, lines: Vec::new() });
        }
        if self.rec.facts.sampling.len() < crate::facts::MAX_SAMPLING && self.p.sampling.find(s.as_bytes()).is_some() {
            self.rec.facts.sampling.push(Mention { loc, text: clip(seg.trim(), 300).to_string() });
        }
        if self.rec.facts.messages.len() < MAX_MESSAGES {
            for pattern in self.rs.message_matches(s) {
                self.rec.facts.messages.push(MessageHit { pattern, loc, quote: quote(seg.trim(), 0, 0) });
            }
        }
    }

    /// Counts a record into its site; returns the site's index (`None` past [`MAX_SITES`]).
    pub(super) fn kernel_hit(
        &mut self,
        mut p: kernel::Parsed,
        text: &str,
        loc: Loc,
        end_line: Option<u64>,
    ) -> Option<usize> {
        let (verbose, offending) = (p.verbose, p.offending.take());
        let i = self.site_hit(p, text, loc, end_line)?;
        let s = &mut self.rec.facts.sites[i];
        if verbose {
            s.verbose += 1;
            s.offending = s.offending.take().or(offending);
        }
        Some(i)
    }

    fn site_hit(&mut self, p: kernel::Parsed, text: &str, mut loc: Loc, end_line: Option<u64>) -> Option<usize> {
        self.rec.facts.kernel_records += 1;
        loc.time = self.read_time(text);
        let key: SiteKey = (
            p.site.file_name().to_ascii_lowercase(),
            p.site.line,
            p.site.name.clone(),
            p.site.condition.as_deref().map(condition_key),
        );
        if let Some(i) = self.rec.facts.site_keys.iter().position(|k| *k == key) {
            let s = &mut self.rec.facts.sites[i];
            s.add(p.site.block, p.site.thread, loc.at.line);
            // In a log whose times may run backwards, the earliest record is kept too.
            let earliest = s.earliest.as_ref().map_or(s.first.loc.time, |e| e.loc.time);
            if loc.time.is_some_and(|t| earliest.is_some_and(|e| t < e)) {
                let at = text.find(p.site.file_name()).unwrap_or(0);
                s.earliest = Some(KernelHit {
                    loc,
                    end_line,
                    quote: quote(text, at, at + 200),
                    dialect: p.dialect,
                    site: p.site,
                });
            }
            return Some(i);
        }
        if self.rec.facts.sites.len() >= MAX_SITES {
            return None;
        }
        let at = text.find(p.site.file_name()).unwrap_or(0);
        let hit = KernelHit { loc, end_line, quote: quote(text, at, at + 200), dialect: p.dialect, site: p.site };
        self.rec.facts.site_keys.push(key);
        self.rec.facts.sites.push(SiteAgg::new(hit));
        Some(self.rec.facts.sites.len() - 1)
    }

    pub(super) fn host_hit(
        &mut self,
        h: host::Parsed,
        text: &str,
        stripped: &str,
        mut loc: Loc,
        traceback: Option<usize>,
    ) {
        self.rec.facts.host_total += 1;
        loc.time = self.read_time(text);
        if self.rec.facts.host.len() >= MAX_HOST {
            return;
        }
        let at = text.find(clip(&stripped[h.start..], 20)).unwrap_or(0);
        // A mention's form counts only on a bare line: a prefix or a clock in front is output.
        let bare = loc.time.is_none() && text.trim() == stripped.trim() && !self.judge.count_quoted;
        let mention = if bare { super::mention::form(stripped, h.start) } else { None };
        self.rec.facts.host.push(HostHit {
            loc,
            quote: quote(text, at, at + 120),
            kind: h.kind,
            dialect: h.dialect,
            exception: h.exception,
            traceback,
            site: h.site,
            offending: h.offending,
            mention,
            described: false,
        });
    }

    pub(super) fn store_traceback(&mut self, tb: Traceback) -> Option<usize> {
        if self.rec.facts.tracebacks.len() >= MAX_TRACEBACKS {
            return None;
        }
        self.rec.facts.tracebacks.push(tb);
        Some(self.rec.facts.tracebacks.len() - 1)
    }

    /// Pieces together the source lines just above an error that has no traceback header (a
    /// paste that starts mid-traceback, or a bare `return F.embedding(...)` line).
    pub(super) fn partial_traceback(
        &mut self,
        buf: &[u8],
        ls: usize,
        loc: Loc,
        tail: &VecDeque<(u64, usize, Vec<u8>)>,
    ) -> Option<usize> {
        let mut code: Vec<(Loc, String)> = Vec::new();
        for (n, _, t) in self.before(buf, ls, 6, tail) {
            let t = t.trim_end();
            if t.trim().is_empty() {
                break;
            }
            let norm = normalise(t);
            let known = prefix::strip_known(&norm);
            let s = self.learned.as_ref().and_then(|l| l.strip(known)).unwrap_or(known);
            let looks_like_code = (s.starts_with(' ') || s.contains('(') || s.contains(" = ") || s.contains("+="))
                && !s.contains("Assertion")
                && !s.contains("rror:")
                && !s.contains("asynchronously");
            if looks_like_code {
                let mut at = loc;
                at.at.line = n;
                at.order = loc.order.saturating_sub(loc.at.line - n);
                code.push((at, s.trim().to_string()));
            } else if !code.is_empty() {
                break;
            }
        }
        if code.is_empty() {
            return None;
        }
        let (at, last) = code.remove(0);
        let frame = TbFrame {
            code: Some((last, at)),
            context: code.into_iter().map(|(l, c)| (c, l)).collect(),
            loc: at,
            ..TbFrame::default()
        };
        self.store_traceback(Traceback { start: at, frames: vec![frame], partial: true, ..Traceback::default() })
    }

    pub(super) fn capture_after(&mut self, line: u64, display: &str) {
        if self.rec.after.is_empty() {
            return;
        }
        for (t, left) in self.rec.after.iter_mut() {
            let ctx = match t {
                Target::Kernel => &mut self.rec.facts.kernel_context,
                Target::Host => &mut self.rec.facts.host_context,
                Target::Exception => &mut self.rec.facts.exception_context,
                Target::Elastic(i) => {
                    self.rec.facts.elastic[*i].lines.push(clip(display, 300).to_string());
                    *left -= 1;
                    continue;
                }
            };
            ctx.push((line, clip(display, 300).to_string()));
            *left -= 1;
        }
        self.rec.after.retain(|(_, left)| *left > 0);
    }
}
