//! A line's way through the readers: the DSA report, the kernel records (a flood's repeats
//! counted without reading them again, wrapped records joined), then the traceback and host
//! readers and the notes. A line read before that changed nothing is not read again.

use super::*;

/// What reading a line changed (see `Scanner::effects`).
#[derive(Clone, Copy, PartialEq, Eq)]
struct Effects {
    counts: [u64; 8],
    learned: u64,
}

impl Scanner {
    pub(super) fn process(&mut self, buf: &[u8], ls: usize, le: usize, tail: &VecDeque<(u64, usize, Vec<u8>)>) {
        let raw = &buf[ls..le];
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        // The previous record line again with other thread ids (a flood of per-thread
        // records): counted as `segment` would count it, without decoding it.
        if self.wrap.is_none() && self.rec.after.is_empty() {
            if let Some((block, thread)) = self.raw_memo.repeat(raw) {
                self.rec.facts.kernel_records += 1;
                if let Some(i) = self.raw_memo.site {
                    self.rec.facts.sites[i].add(block, thread, self.cur.line);
                }
                return;
            }
        }
        self.raw_memo.forget();
        // A line read before, in the same idle state, that changed nothing (a warning printed
        // at every step): reading it again would change nothing again.
        let idle = !self.needs_every_line();
        if idle && self.inert.get(raw).is_some() {
            return;
        }
        let before = idle.then(|| self.effects());
        self.read_line(buf, ls, raw, tail);
        if before.is_some_and(|b| !self.needs_every_line() && self.effects() == b) {
            self.inert.keep(raw, ());
        }
    }

    /// What reading a line can change, in short: when it is the same before and after, the
    /// line had no effect (hits, tracebacks, messages and notes are only ever added).
    fn effects(&self) -> Effects {
        let f = &self.rec.facts;
        Effects {
            counts: [
                f.kernel_records,
                f.host_total,
                f.tracebacks.len() as u64,
                f.messages.len() as u64,
                f.async_notes.len() as u64,
                f.launch_blocking.len() as u64,
                u64::from(f.dsa_hint) << 1 | u64::from(f.dsa_report),
                f.last_exception.as_ref().map_or(u64::MAX, |e| e.2.order),
            ],
            learned: self.learned_generation,
        }
    }

    fn read_line(&mut self, buf: &[u8], ls: usize, raw: &[u8], tail: &VecDeque<(u64, usize, Vec<u8>)>) {
        let decoded = String::from_utf8_lossy(raw);
        let display = strip_escapes(&decoded);
        let display: &str = &display;
        let loc = self.loc();
        self.capture_after(loc.at.line, display);
        if self.wrap.is_some() && self.continue_wrap(display, loc) {
            return;
        }
        let segs = segments(display);
        let whole = segs.len() <= 1;
        for (_, seg) in segs {
            let quote = if whole { display } else { seg };
            self.segment(buf, ls, raw.len(), seg, quote, loc, tail);
        }
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn segment(
        &mut self,
        buf: &[u8],
        ls: usize,
        raw_len: usize,
        seg: &str,
        quote: &str,
        loc: Loc,
        tail: &VecDeque<(u64, usize, Vec<u8>)>,
    ) {
        let norm = normalise(seg);
        let translated = seg.contains("断言");
        // The same record as the segment just before, with other block and thread ids (a
        // kernel prints one per failing thread, often thousands): the rest of this function
        // would read it exactly as it read that one, so only the record is counted. Any other
        // segment makes the scanner forget.
        let memo = std::mem::take(&mut self.kernel_memo);
        // A line that decoding and normalising leave as it is can take the raw path next time.
        let plain = || seg.len() == raw_len && norm == seg && buf[ls..ls + raw_len] == *seg.as_bytes();
        if let Some(p) = memo.repeat(&norm, translated) {
            self.kernel_memo = memo;
            // (A verbose record is counted as one: the raw path only counts lines.)
            let verbose = p.verbose;
            let site = self.kernel_hit(p, quote, loc, None);
            if plain() && !verbose {
                self.raw_memo.remember(&buf[ls..ls + raw_len], site);
            }
            return;
        }
        let stripped = self.strip_prefix(&norm);

        if self.dsa_line(stripped, seg, loc) {
            return;
        }

        let parsed = kernel::parse(&norm, translated, self.judge);
        let partial = kernel::needs_next(&norm, &parsed) || kernel::head_above(&norm, &parsed);
        if partial && self.wrap.is_none() {
            // The record continues on the next line (or started on the previous ones).
            let before = self.before(buf, ls, facts::CONTEXT + 4, tail);
            let no_file = parsed.first().is_none_or(|p| p.cut);
            self.start_wrap(&norm, quote, raw_len, loc, translated, no_file, before);
            return;
        }
        if !parsed.is_empty() {
            if !partial {
                let mut memo = memo;
                memo.remember(&norm, translated, &parsed);
                self.kernel_memo = memo;
            }
            let single = parsed.len() == 1 && !parsed[0].verbose && self.kernel_memo.is_set() && plain();
            // What the records leave of the line: a host error or a traceback glued to them.
            let (first, last) = (parsed[0].start, parsed[parsed.len() - 1].end);
            let outside = [&norm[..first], &norm[last..]];
            for p in parsed {
                let first = self.rec.facts.sites.is_empty();
                let site = self.kernel_hit(p, quote, loc, None);
                if single {
                    self.raw_memo.remember(&buf[ls..ls + raw_len], site);
                }
                if first && !self.rec.facts.sites.is_empty() {
                    let before = self.before(buf, ls, facts::CONTEXT, tail);
                    self.rec.facts.kernel_context =
                        before.into_iter().rev().map(|(n, _, t)| (n, clip(&t, 300).to_string())).collect();
                    self.rec.after.push((Target::Kernel, facts::CONTEXT));
                }
            }
            for rest in outside {
                if self.kw.find(rest.as_bytes()).is_some() {
                    self.lines_stage(buf, ls, rest, rest, loc, tail);
                }
            }
            return;
        }
        self.lines_stage(buf, ls, stripped, seg, loc, tail);
    }

    /// The traceback and host-error readers and the notes, on a line (or what kernel records
    /// left of one) with its prefixes stripped.
    fn lines_stage(
        &mut self,
        buf: &[u8],
        ls: usize,
        stripped: &str,
        seg: &str,
        loc: Loc,
        tail: &VecDeque<(u64, usize, Vec<u8>)>,
    ) {
        let quote = seg;
        let tbl = self.tb.feed(stripped, loc);
        let ended = self.tb.done.take();
        match tbl {
            // A code line may hold a device-side assert that was printed into it (the repr of
            // a local variable in a rich traceback): the host reader judges it.
            TbLine::Code if stripped.contains("device-side assert") => {}
            TbLine::Header | TbLine::Chain | TbLine::Frame | TbLine::Code | TbLine::Decoration => {
                if let Some(tb) = ended {
                    self.store_traceback(tb);
                }
                return;
            }
            TbLine::Exception | TbLine::Other => {}
        }

        let host = self.classify_host(stripped);
        let tb_index = ended.map(|tb| self.store_traceback(tb));
        if let Some(h) = host {
            let device = h.kind == HostKind::DeviceAssert;
            let mut tb_index = tb_index.flatten();
            if device && !self.rec.first_host_seen && tb_index.is_none() {
                tb_index = self.partial_traceback(buf, ls, loc, tail);
            }
            self.host_hit(h, quote, stripped, loc, tb_index);
            if device && !self.rec.first_host_seen {
                self.rec.first_host_seen = true;
                let before = self.before(buf, ls, facts::CONTEXT, tail);
                self.rec.facts.host_context =
                    before.into_iter().rev().map(|(n, _, t)| (n, clip(&t, 300).to_string())).collect();
                self.rec.after.push((Target::Host, facts::CONTEXT));
            }
        } else if tbl == TbLine::Exception {
            if let Some(idx) = tb_index.flatten() {
                if let Some(e) = self.rec.facts.tracebacks[idx].exception.clone() {
                    self.exception(e);
                }
            }
        } else if let Some((name, Some(msg))) = traceback::exception_parts(stripped.trim()) {
            if !msg.is_empty() && !stripped.starts_with(' ') {
                self.exception((name.to_string(), msg.to_string(), loc));
            }
        }
        self.notes(stripped, seg, loc);
    }

    /// A Python exception that is not a CUDA error: the last one is kept, and the probe
    /// cell's last `FirstAssertError` with the lines that follow (its values, bound and line).
    fn exception(&mut self, e: (String, String, Loc)) {
        if e.0.ends_with(crate::facts::PROBE_ERROR) {
            self.rec.facts.probe_error = Some(e.clone());
            self.rec.facts.exception_context.clear();
            self.rec.after.retain(|(t, _)| *t != Target::Exception);
            self.rec.after.push((Target::Exception, facts::EXCEPTION_LINES));
        }
        self.rec.facts.last_exception = Some(e);
    }

    /// [`host::classify`], which reads nothing but the line (and the scanner's judge),
    /// remembered for the last few lines: an error echoed in every later cell is read once.
    fn classify_host(&mut self, s: &str) -> Option<host::Parsed> {
        if let Some(h) = self.host_memo.get(s.as_bytes()) {
            return h.clone();
        }
        let h = host::classify(s, self.judge);
        self.host_memo.keep(s.as_bytes(), h.clone());
        h
    }
}
