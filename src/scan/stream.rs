//! The stream: input in blocks, the jump from keyword to keyword (counting the newlines and
//! checking the bytes on the way), lines cut into pieces and windows when they are long, and
//! the tail of lines kept from the block before for context and joins.

use super::*;

/// Where the scan is: the run order of the next line (across cells and the runtime log), its
/// line number in the current text, the cell, output and execution count it belongs to, and
/// whether it reads a runtime log's rows (and how many it has read).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Cursor {
    pub(super) order: u64,
    pub(super) line: u64,
    pub(super) cell: Option<u32>,
    pub(super) output: Option<u32>,
    pub(super) exec: Option<i64>,
    /// Reading the rows of a runtime log (see [`Scanner::runtime_log`]).
    pub(super) in_log: bool,
    /// Lines read from a runtime log.
    pub(super) log_lines: u64,
}

/// What the stream keeps from one block to the next.
#[derive(Default)]
pub(super) struct LineSource {
    /// The start of a line the block before ended in.
    pub(super) carry: Vec<u8>,
    /// The last lines read before the current buffer: (line number, byte length, first bytes).
    pub(super) tail: VecDeque<(u64, usize, Vec<u8>)>,
    /// The start of a UTF-8 sequence cut by the end of the previous chunk.
    pub(super) utf8_tail: Vec<u8>,
    /// The run-order number of the last line read in pieces.
    pub(super) last_long_line: Option<u64>,
    /// Whether every byte of the block being read was seen to be plain ASCII.
    pub(super) block_plain: bool,
}

/// Lines longer than this (a minified log, a repr of a whole traceback, megabytes of progress
/// bar without a newline) are read only around their keywords, in windows of [`WINDOW`]
/// bytes: the readers' patterns then run on a few kilobytes instead of the whole line.
pub(super) const LONG_LINE: usize = 64 << 10;

/// How much input the scanner takes at a time (see [`Scanner::feed`]).
const BLOCK: usize = 1 << 20;

/// The window read around a keyword of a long line (a record or an error fits in it).
const WINDOW: usize = 8 << 10;

/// Lines kept from the end of the previous chunk, for context and joins.
const TAIL_LINES: usize = 8;

/// Bytes kept of each of those lines.
const TAIL_BYTES: usize = 4096;

fn clip_bytes(b: &[u8], max: usize) -> &[u8] {
    &b[..b.len().min(max)]
}

/// Where to end a piece of a long line: at the last space before `max`, else at `max` (moved
/// back to a UTF-8 boundary).
fn piece_end(b: &[u8], max: usize) -> usize {
    if b.len() <= max {
        return b.len();
    }
    let floor = max - max / 16;
    if let Some(i) = memchr::memrchr(b' ', &b[floor..max]) {
        return floor + i + 1;
    }
    let mut cut = max;
    while cut > 0 && (b[cut] & 0xC0) == 0x80 {
        cut -= 1;
    }
    cut
}

/// `data` in blocks of about [`BLOCK`] bytes, each ending just after a newline (a line longer
/// than a block is a block of its own, read in pieces without being copied).
pub(super) fn blocks(mut data: &[u8]) -> impl Iterator<Item = &[u8]> {
    std::iter::from_fn(move || {
        if data.is_empty() {
            return None;
        }
        let end = match memchr::memrchr(b'\n', &data[..data.len().min(BLOCK)]) {
            _ if data.len() <= BLOCK => data.len(),
            Some(i) => i + 1,
            None => memchr::memchr(b'\n', &data[BLOCK..]).map_or(data.len(), |i| BLOCK + i + 1),
        };
        let (block, rest) = data.split_at(end);
        data = rest;
        Some(block)
    })
}

impl Scanner {
    /// Tracks whether the input is valid UTF-8, across chunk boundaries that may split a
    /// character. The first `ascii` bytes are ASCII.
    pub(super) fn check_utf8(&mut self, mut data: &[u8], mut ascii: usize) {
        if self.rec.facts.stats.lossy_utf8 {
            return;
        }
        if let Some(&lead) = self.src.utf8_tail.first() {
            let want: usize = match lead {
                0xc0..=0xdf => 2,
                0xe0..=0xef => 3,
                0xf0..=0xf7 => 4,
                _ => 1,
            };
            let take = want.saturating_sub(self.src.utf8_tail.len()).min(data.len());
            self.src.utf8_tail.extend_from_slice(&data[..take]);
            data = &data[take..];
            ascii = ascii.saturating_sub(take);
            if self.src.utf8_tail.len() < want {
                return;
            }
            if std::str::from_utf8(&self.src.utf8_tail).is_err() {
                self.rec.facts.stats.lossy_utf8 = true;
                return;
            }
            self.src.utf8_tail.clear();
        }
        match utf8_check_from(data, ascii) {
            Ok(_) => {}
            // An incomplete sequence at the end is completed by the next chunk.
            Err((valid, true)) => self.src.utf8_tail = data[valid..].to_vec(),
            Err(_) => self.rec.facts.stats.lossy_utf8 = true,
        }
    }

    /// Reads bytes, counts their NUL bytes, and returns how many at the start are plain ASCII
    /// (see [`plain`]): all of them when the reading saw only plain bytes (it notes them as it
    /// passes, in `block_plain`), else what one more pass finds.
    pub(super) fn feed_bytes(&mut self, block: &[u8]) -> usize {
        self.rec.facts.stats.bytes += block.len() as u64;
        self.src.block_plain = true;
        self.read_block(block);
        let plain = if self.src.block_plain { block.len() } else { plain_blocks(block) };
        let rest = &block[plain..];
        if memchr::memchr(0, rest).is_some() {
            self.rec.facts.stats.nul_bytes += memchr::memchr_iter(0, rest).count() as u64;
        }
        plain
    }

    /// Reads the complete lines of `data` (the first one joined to what was carried), and
    /// carries its last, incomplete line.
    fn read_block(&mut self, mut data: &[u8]) {
        if !self.src.carry.is_empty() {
            match memchr::memchr(b'\n', data) {
                Some(i) => {
                    let mut line = std::mem::take(&mut self.src.carry);
                    line.extend_from_slice(&data[..=i]);
                    self.run(&line);
                    data = &data[i + 1..];
                }
                None => {
                    // Read in pieces, not looked at whole.
                    self.src.block_plain = false;
                    self.src.carry.extend_from_slice(data);
                    self.flush_long_carry();
                    return;
                }
            }
        }
        let used = self.run(data);
        let mut rest = &data[used..];
        self.src.block_plain = self.src.block_plain && is_plain(rest);
        while rest.len() > MAX_PIECE {
            let cut = piece_end(rest, MAX_PIECE);
            self.piece(&rest[..cut]);
            rest = &rest[cut..];
        }
        self.src.carry.extend_from_slice(rest);
    }

    fn flush_long_carry(&mut self) {
        while self.src.carry.len() > MAX_PIECE {
            let cut = piece_end(&self.src.carry, MAX_PIECE);
            let head: Vec<u8> = self.src.carry.drain(..cut).collect();
            self.piece(&head);
        }
    }

    /// Reads a piece of a line longer than [`MAX_PIECE`]; the line number does not move.
    pub(super) fn piece(&mut self, bytes: &[u8]) {
        if self.src.last_long_line != Some(self.cur.order) {
            self.rec.facts.stats.long_lines += 1;
            self.src.last_long_line = Some(self.cur.order);
        }
        self.windows(bytes);
    }

    /// Reads a line (or a piece of one) longer than [`LONG_LINE`] around its keywords: each
    /// window is read as a piece of the line, the rest is not read at all. Inside a
    /// traceback, which reads every line, the line's start is read too.
    pub(super) fn windows(&mut self, line: &[u8]) {
        if line.len() <= LONG_LINE {
            self.process(line, 0, line.len(), &VecDeque::new());
            return;
        }
        let mut spans: Vec<(usize, usize)> = Vec::new();
        if self.needs_every_line() {
            spans.push((0, WINDOW));
        }
        let mut pos = 0;
        while let Some(i) = self.kw.find(&line[pos..]) {
            let hit = pos + i;
            let (s, e) = (hit.saturating_sub(WINDOW / 2), (hit + WINDOW).min(line.len()));
            match spans.last_mut() {
                // Overlapping windows join, up to a size the patterns read quickly.
                Some(last) if s <= last.1 && last.1 - last.0 < LONG_LINE => last.1 = last.1.max(e),
                _ => spans.push((s, e)),
            }
            pos = hit + 1;
        }
        for (s, e) in spans {
            // Whole characters only.
            let mut s = s.min(line.len());
            while s < line.len() && (line[s] & 0xC0) == 0x80 {
                s += 1;
            }
            let mut e = e.min(line.len());
            while e > s && e < line.len() && (line[e] & 0xC0) == 0x80 {
                e -= 1;
            }
            if s < e {
                self.process(&line[s..e], 0, e - s, &VecDeque::new());
            }
        }
    }

    pub(super) fn end_block(&mut self) {
        if !self.src.carry.is_empty() {
            let mut line = std::mem::take(&mut self.src.carry);
            line.push(b'\n');
            self.run(&line);
        }
        self.flush_wrap();
        self.finish_dsa();
        self.tb.close();
        if let Some(tb) = self.tb.done.take() {
            self.store_traceback(tb);
        }
        self.rec.after.clear();
    }

    pub(super) fn needs_every_line(&self) -> bool {
        self.tb.active() || self.dsa.is_some() || self.wrap.is_some() || !self.rec.after.is_empty()
    }

    fn advance(&mut self, n: u64) {
        self.cur.order += n;
        self.cur.line += n;
    }

    pub(super) fn loc(&self) -> Loc {
        Loc {
            order: self.cur.order,
            at: Location {
                line: self.cur.line,
                cell: self.cur.cell,
                output: self.cur.output,
                execution_count: self.cur.exec,
                runtime_log: self.cur.in_log,
            },
            time: None,
        }
    }

    /// Reads the complete lines of `buf`; returns the bytes used (up to the last newline).
    pub(super) fn run(&mut self, buf: &[u8]) -> usize {
        let mut pos = 0;
        let tail = std::mem::take(&mut self.src.tail);
        while pos < buf.len() {
            // A flood of per-thread records: the line after a repeated record is most likely
            // the next repeat, which the memo counts without the keyword search.
            if self.raw_memo.is_active() && self.wrap.is_none() && self.rec.after.is_empty() {
                let site = self.raw_memo.site.and_then(|k| self.rec.facts.sites.get_mut(k));
                let (used, lines) = self.raw_memo.count_repeats(&buf[pos..], site, self.cur.line);
                if lines > 0 {
                    // The remembered line's bytes, and digits and commas.
                    self.src.block_plain &= self.raw_memo.plain;
                    self.rec.facts.kernel_records += lines;
                    self.advance(lines);
                    pos += used;
                    continue;
                }
            }
            let ls = if self.needs_every_line() {
                pos
            } else {
                // One pass to the next keyword: the lines it passes are counted, and whether
                // their bytes were plain noted, on the way.
                let s = self.kw.survey(&buf[pos..]);
                self.src.block_plain &= s.plain;
                self.advance(s.newlines);
                match s.at {
                    None => {
                        if s.newlines > 0 {
                            pos += memchr::memrchr(b'\n', &buf[pos..]).map_or(0, |i| i + 1);
                        }
                        break;
                    }
                    Some(start) => {
                        let hit = pos + start;
                        memchr::memrchr(b'\n', &buf[pos..hit]).map_or(pos, |i| pos + i + 1)
                    }
                }
            };
            let Some(i) = memchr::memchr(b'\n', &buf[ls..]) else {
                pos = ls;
                break;
            };
            let le = ls + i;
            self.src.block_plain = self.src.block_plain && is_plain(&buf[ls..le]);
            if le - ls > MAX_PIECE {
                let mut s = ls;
                while s < le {
                    let cut = s + piece_end(&buf[s..le], MAX_PIECE);
                    self.piece(&buf[s..cut]);
                    s = cut;
                }
            } else if le - ls > LONG_LINE {
                self.windows(&buf[ls..le]);
            } else {
                self.process(buf, ls, le, &tail);
            }
            self.advance(1);
            pos = le + 1;
        }
        self.src.tail = tail;
        self.save_tail(&buf[..pos]);
        pos
    }

    fn save_tail(&mut self, done: &[u8]) {
        if done.is_empty() {
            return;
        }
        // The last lines of `done`, oldest first.
        let mut lines = Vec::new();
        let mut end = done.len() - 1; // at the final newline
        let mut no = self.cur.line;
        while lines.len() < TAIL_LINES {
            let start = memchr::memrchr(b'\n', &done[..end]).map_or(0, |i| i + 1);
            no -= 1;
            let l = &done[start..end];
            lines.push((no, l.len(), l[..l.len().min(TAIL_BYTES)].to_vec()));
            if start == 0 {
                break;
            }
            end = start - 1;
        }
        for l in lines.into_iter().rev() {
            if self.src.tail.len() == TAIL_LINES {
                self.src.tail.pop_front();
            }
            self.src.tail.push_back(l);
        }
    }

    /// Up to `k` lines before the line at `ls` of `buf`, most recent first: (number, byte
    /// length, display text).
    pub(super) fn before(
        &self,
        buf: &[u8],
        ls: usize,
        k: usize,
        tail: &VecDeque<(u64, usize, Vec<u8>)>,
    ) -> Vec<(u64, usize, String)> {
        let mut out = Vec::new();
        let mut end = ls;
        let mut no = self.cur.line;
        while out.len() < k && end > 0 {
            let stop = end - 1; // the newline before the current line
            let start = memchr::memrchr(b'\n', &buf[..stop]).map_or(0, |i| i + 1);
            no -= 1;
            let raw = &buf[start..stop];
            let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
            out.push((
                no,
                raw.len(),
                strip_escapes(&String::from_utf8_lossy(clip_bytes(raw, TAIL_BYTES))).into_owned(),
            ));
            end = start;
        }
        if out.len() < k && end == 0 {
            for (n, len, b) in tail.iter().rev() {
                if out.len() == k || *n >= no {
                    if *n >= no {
                        continue;
                    }
                    break;
                }
                let b = b.strip_suffix(b"\r").unwrap_or(b);
                out.push((*n, *len, strip_escapes(&String::from_utf8_lossy(b)).into_owned()));
            }
        }
        out
    }
}
