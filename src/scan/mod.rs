//! The scan: reads text as it streams in and records [`facts::Facts`].
//!
//! Stages, in order, for each line that matters:
//! 1. [`normalize`]: display text (escapes removed) and normalised text (for matchers);
//!    `\r` overwrites and escaped `\n` split a line into segments.
//! 2. `TORCH_USE_CUDA_DSA` report records, then [`kernel`] assertion lines (wrapped ones are
//!    joined back), then [`traceback`] structure, then [`host`] errors.
//! 3. Notes: the "asynchronously reported" hint, `CUDA_LAUNCH_BLOCKING`, rule message patterns.
//!
//! Most lines of a training log matter to none of these. Outside a traceback, the scanner jumps
//! from keyword to keyword (an Aho-Corasick automaton over a few literals) and only counts the
//! newlines in between. Memory stays bounded: long lines are read in pieces, and the facts keep
//! counts instead of copies past fixed limits.

pub mod context;
pub mod host;
pub mod kernel;
pub mod normalize;
pub mod patterns;
pub mod prefix;
pub mod time;
pub mod traceback;

use crate::facts::{self, *};
use crate::find::keywords::Keywords;
use crate::find::plain::{is_plain, plain_blocks, utf8_check_from};
use crate::memo::Recent;
use crate::report::{KernelSite, Location};
use crate::rules::{condition_key, ruleset, RuleSet};
use normalize::{clip, normalise, segments, strip_escapes, window};
use patterns::{patterns, Patterns};
use std::collections::VecDeque;
use std::sync::OnceLock;
use traceback::{TbLine, TbReader};

/// Lines longer than this are read in pieces of about this size.
pub const MAX_PIECE: usize = 8 << 20;

/// Lines longer than this (a minified log, a repr of a whole traceback, megabytes of progress
/// bar without a newline) are read only around their keywords, in windows of [`WINDOW`]
/// bytes: the readers' patterns then run on a few kilobytes instead of the whole line.
const LONG_LINE: usize = 64 << 10;
/// How much input the scanner takes at a time (see [`Scanner::feed`]).
const BLOCK: usize = 1 << 20;
/// The window read around a keyword of a long line (a record or an error fits in it).
const WINDOW: usize = 8 << 10;

/// Lines kept from the end of the previous chunk, for context and joins.
const TAIL_LINES: usize = 8;
/// Bytes kept of each of those lines.
const TAIL_BYTES: usize = 4096;
/// Lines a wrapped kernel record may span.
const MAX_WRAP: u32 = 6;

/// Literals (case-sensitive) of which every line the scanner must read contains one, unless it
/// sits inside a traceback or another multi-line record. They are chosen to be rare in training
/// logs and to cover every form the readers know: `ssert` (kernel lines, `device-side assert`,
/// DSA records), `rror` (every error line), `CUDA`/`cuda` (notes, `CUDA_LAUNCH_BLOCKING`), frame
/// starts, and the few errors that have none of these.
pub const KEYWORDS: &[&str] = &[
    "ssert",
    "rror",
    "CUDA",
    "cuda",
    "Traceback",
    "xception",
    "File ",
    "ipython-input",
    "ipykernel",
    "Cell In",
    "Input In",
    "-packages",
    "HSA_STATUS",
    "Watchdog caught",
    "断言",
];

fn keywords() -> &'static Keywords {
    static K: OnceLock<Keywords> = OnceLock::new();
    K.get_or_init(|| {
        let mut k: Vec<&str> = KEYWORDS.to_vec();
        k.extend(ruleset().message_keywords());
        Keywords::new(&k)
    })
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Target {
    Kernel,
    Host,
}

/// A kernel record being joined back from wrapped lines.
struct Wrap {
    start: Loc,
    norm: String,
    quote: String,
    lines: u32,
    translated: bool,
    before: Vec<(u64, String)>,
}

/// A `TORCH_USE_CUDA_DSA` report record being read.
#[derive(Default)]
struct Dsa {
    loc: Option<Loc>,
    quote: String,
    site: KernelSite,
    kernel: Option<String>,
}

/// Reads text and records facts. Feed it bytes; tell it where cells and outputs start.
pub struct Scanner {
    facts: Facts,
    /// Whether what reads as quoted counts as printed (`Options::count_quoted`).
    count_quoted: bool,
    rs: &'static RuleSet,
    p: &'static Patterns,
    kw: &'static Keywords,
    order: u64,
    line: u64,
    cell: Option<u32>,
    output: Option<u32>,
    exec: Option<i64>,
    tb: TbReader,
    dsa: Option<Dsa>,
    wrap: Option<Wrap>,
    kernel_memo: kernel::Memo,
    raw_memo: kernel::RawMemo,
    after: Vec<(Target, usize)>,
    /// The last lines read before the current buffer: (line number, byte length, first bytes).
    tail: VecDeque<(u64, usize, Vec<u8>)>,
    carry: Vec<u8>,
    first_host_seen: bool,
    /// The run-order number of the last line read in pieces.
    last_long_line: Option<u64>,
    /// The start of a UTF-8 sequence cut by the end of the previous chunk.
    utf8_tail: Vec<u8>,
    /// The prefix learned from the last traceback line that showed one.
    learned: Option<prefix::Learned>,
    /// The time of the last timed finding.
    last_time: Option<u64>,
    /// The last few lines that were read and changed nothing, by content.
    inert: Recent<()>,
    /// The host error of the last few lines read by the host reader, by content.
    host_memo: Recent<Option<host::Parsed>>,
    /// Counts the changes of `learned`.
    learned_generation: u64,
    /// Reading the rows of a runtime log (see [`Scanner::runtime_log`]).
    in_log: bool,
    /// Lines read from a runtime log.
    log_lines: u64,
    /// Whether every byte of the block being read was seen to be plain ASCII.
    block_plain: bool,
}

/// What reading a line changed (see `Scanner::effects`).
#[derive(Clone, Copy, PartialEq, Eq)]
struct Effects {
    counts: [u64; 8],
    learned: u64,
}

impl Default for Scanner {
    fn default() -> Self {
        Scanner::new()
    }
}

impl Scanner {
    /// A scanner with the built-in rules.
    pub fn new() -> Scanner {
        Scanner {
            facts: Facts::default(),
            count_quoted: false,
            rs: ruleset(),
            p: patterns(),
            kw: keywords(),
            order: 0,
            line: 1,
            cell: None,
            output: None,
            exec: None,
            tb: TbReader::default(),
            dsa: None,
            wrap: None,
            kernel_memo: kernel::Memo::default(),
            raw_memo: kernel::RawMemo::default(),
            after: Vec::new(),
            tail: VecDeque::new(),
            carry: Vec::new(),
            first_host_seen: false,
            last_long_line: None,
            utf8_tail: Vec::new(),
            learned: None,
            last_time: None,
            inert: Recent::new(32),
            host_memo: Recent::new(8),
            learned_generation: 0,
            in_log: false,
            log_lines: 0,
            block_plain: false,
        }
    }

    /// Counts what reads as quoted (in code, advice, a question) as printed: the reader's
    /// "treat it as the error". Call it before feeding anything.
    pub fn count_quoted(&mut self, on: bool) {
        self.count_quoted = on;
        self.host_memo.clear();
    }

    /// Starts a notebook cell: line numbers restart at 1.
    pub fn begin_cell(&mut self, index: u32, execution_count: Option<i64>) {
        // The last line of the output before, without its newline, is read now.
        let _quoted = context::counting_quoted(self.count_quoted);
        self.end_block();
        self.forget_block();
        self.cell = Some(index);
        self.exec = execution_count;
        self.output = None;
        self.line = 1;
    }

    /// Starts an output of the current cell: line numbers go on from the previous output.
    pub fn begin_output(&mut self, index: u32) {
        let _quoted = context::counting_quoted(self.count_quoted);
        self.end_block();
        self.output = Some(index);
        self.forget_prefix();
    }

    /// Reads the rows of a runtime log given beside the input (the kernel's own stderr), here,
    /// in run order: each row numbered with its line in the log, its places marked as the
    /// log's. The input's own counts (bytes, lines) leave the log out.
    pub fn runtime_log(&mut self, log: facts::LogInfo, rows: &[crate::runtime_log::Row]) {
        let _quoted = context::counting_quoted(self.count_quoted);
        self.end_block();
        let saved = (self.cell, self.output, self.exec, self.line, self.facts.stats.bytes, self.order);
        self.forget_block();
        // The log's rows are marked as the log's: nothing found inert outside it counts in it.
        self.inert.clear();
        (self.cell, self.output, self.exec, self.in_log) = (None, None, None, true);
        self.read_rows(rows);
        self.forget_block();
        self.inert.clear();
        self.in_log = false;
        let bytes;
        let order;
        (self.cell, self.output, self.exec, self.line, bytes, order) = saved;
        self.facts.stats.bytes = bytes;
        self.log_lines += self.order - order;
        self.facts.runtime_log = Some(log);
    }

    /// Reads a runtime log that is the whole input: its rows oldest first, each at its line.
    pub fn log_as_input(&mut self, log: facts::LogInfo, rows: &[crate::runtime_log::Row], bytes: u64) {
        let _quoted = context::counting_quoted(self.count_quoted);
        self.read_rows(rows);
        self.facts.stats.bytes = bytes;
        // Listed newest first: "first" is the earliest, as for any log read backwards.
        self.facts.time_reversed = log.newest_first;
        self.facts.runtime_log = Some(log);
    }

    fn read_rows(&mut self, rows: &[crate::runtime_log::Row]) {
        for r in rows {
            self.line = r.line;
            self.feed_str(&r.message);
            self.feed_str("\n");
        }
        self.end_block();
    }

    /// Forgets what the lines before said about the lines after (a new block of text starts).
    fn forget_block(&mut self) {
        self.kernel_memo = kernel::Memo::default();
        self.raw_memo.forget();
        self.forget_prefix();
        self.tail.clear();
    }

    /// Forgets the learned prefix. The lines found inert stay so unless one was learned: what
    /// makes a line change nothing (no reader takes it, or what it adds is at its limit) holds
    /// in every cell and output, so a warning printed in every cell is read once.
    fn forget_prefix(&mut self) {
        if self.learned.take().is_some() {
            self.learned_generation += 1;
            self.inert.clear();
        }
    }

    /// Records a cell's source (for `CUDA_LAUNCH_BLOCKING` and import order).
    pub fn cell_source(&mut self, src: CellSource) {
        self.facts.cells.push(src);
    }

    /// Records the checks that hold on the notebook's cells.
    pub fn set_checks(&mut self, checks: Vec<CheckFinding>) {
        self.facts.checks = checks;
    }

    /// Records the cells with outputs the page could not read.
    pub fn set_unreadable(&mut self, cells: Vec<u32>) {
        self.facts.unreadable = cells;
    }

    /// Records where the input comes from (`colab`).
    pub fn set_host(&mut self, host: &'static str) {
        self.facts.host_env = Some(host);
    }

    /// Records how many cells the notebook has.
    pub fn set_cell_count(&mut self, n: u32) {
        self.facts.cell_count = Some(n);
    }

    /// Reads bytes that may not be valid UTF-8 (they are read lossily, and the report says so).
    pub fn feed(&mut self, data: &[u8]) {
        let _quoted = context::counting_quoted(self.count_quoted);
        // A block at a time, so that what the reading leaves to do (the UTF-8 check where a
        // byte was not plain ASCII) finds it in the cache.
        for block in blocks(data) {
            let plain = self.feed_bytes(block);
            self.check_utf8(block, plain);
        }
    }

    /// Tracks whether the input is valid UTF-8, across chunk boundaries that may split a
    /// character. The first `ascii` bytes are ASCII.
    fn check_utf8(&mut self, mut data: &[u8], mut ascii: usize) {
        if self.facts.stats.lossy_utf8 {
            return;
        }
        if let Some(&lead) = self.utf8_tail.first() {
            let want: usize = match lead {
                0xc0..=0xdf => 2,
                0xe0..=0xef => 3,
                0xf0..=0xf7 => 4,
                _ => 1,
            };
            let take = want.saturating_sub(self.utf8_tail.len()).min(data.len());
            self.utf8_tail.extend_from_slice(&data[..take]);
            data = &data[take..];
            ascii = ascii.saturating_sub(take);
            if self.utf8_tail.len() < want {
                return;
            }
            if std::str::from_utf8(&self.utf8_tail).is_err() {
                self.facts.stats.lossy_utf8 = true;
                return;
            }
            self.utf8_tail.clear();
        }
        match utf8_check_from(data, ascii) {
            Ok(_) => {}
            // An incomplete sequence at the end is completed by the next chunk.
            Err((valid, true)) => self.utf8_tail = data[valid..].to_vec(),
            Err(_) => self.facts.stats.lossy_utf8 = true,
        }
    }

    /// Reads text.
    pub fn feed_str(&mut self, text: &str) {
        let _quoted = context::counting_quoted(self.count_quoted);
        for block in blocks(text.as_bytes()) {
            self.feed_bytes(block);
        }
    }

    /// Reads bytes, counts their NUL bytes, and returns how many at the start are plain ASCII
    /// (see [`plain`]): all of them when the reading saw only plain bytes (it notes them as it
    /// passes, in `block_plain`), else what one more pass finds.
    fn feed_bytes(&mut self, block: &[u8]) -> usize {
        self.facts.stats.bytes += block.len() as u64;
        self.block_plain = true;
        self.read_block(block);
        let plain = if self.block_plain { block.len() } else { plain_blocks(block) };
        let rest = &block[plain..];
        if memchr::memchr(0, rest).is_some() {
            self.facts.stats.nul_bytes += memchr::memchr_iter(0, rest).count() as u64;
        }
        plain
    }

    /// Reads the complete lines of `data` (the first one joined to what was carried), and
    /// carries its last, incomplete line.
    fn read_block(&mut self, mut data: &[u8]) {
        if !self.carry.is_empty() {
            match memchr::memchr(b'\n', data) {
                Some(i) => {
                    let mut line = std::mem::take(&mut self.carry);
                    line.extend_from_slice(&data[..=i]);
                    self.run(&line);
                    data = &data[i + 1..];
                }
                None => {
                    // Read in pieces, not looked at whole.
                    self.block_plain = false;
                    self.carry.extend_from_slice(data);
                    self.flush_long_carry();
                    return;
                }
            }
        }
        let used = self.run(data);
        let mut rest = &data[used..];
        self.block_plain = self.block_plain && is_plain(rest);
        while rest.len() > MAX_PIECE {
            let cut = piece_end(rest, MAX_PIECE);
            self.piece(&rest[..cut]);
            rest = &rest[cut..];
        }
        self.carry.extend_from_slice(rest);
    }

    /// Ends the input and returns what was found.
    pub fn finish(mut self) -> Facts {
        let _quoted = context::counting_quoted(self.count_quoted);
        if !self.utf8_tail.is_empty() {
            // The input ended in the middle of a character.
            self.facts.stats.lossy_utf8 = true;
        }
        self.end_block();
        self.facts.stats.lines = self.order - self.log_lines;
        // A log listed newest first (a cloud console's export): the first assert is the
        // earliest in time. Notebooks run in their cells' order.
        if self.facts.cells.is_empty() && self.cell.is_none() && self.facts.runs_backwards() {
            self.facts.reverse_time(self.order);
        }
        self.facts
    }

    /// The time at the start of a line that holds a finding, counting the step from the last
    /// timed finding (only findings are timed: they are what "first" is about).
    fn read_time(&mut self, line: &str) -> Option<u64> {
        let t = time::parse(line);
        if let (Some(t), Some(last)) = (t, self.last_time) {
            let steps = &mut self.facts.time_steps;
            if t < last {
                steps.0 += 1;
            } else if t > last {
                steps.1 += 1;
            }
        }
        if t.is_some() {
            self.last_time = t;
        }
        t
    }

    fn flush_long_carry(&mut self) {
        while self.carry.len() > MAX_PIECE {
            let cut = piece_end(&self.carry, MAX_PIECE);
            let head: Vec<u8> = self.carry.drain(..cut).collect();
            self.piece(&head);
        }
    }

    /// Reads a piece of a line longer than [`MAX_PIECE`]; the line number does not move.
    fn piece(&mut self, bytes: &[u8]) {
        if self.last_long_line != Some(self.order) {
            self.facts.stats.long_lines += 1;
            self.last_long_line = Some(self.order);
        }
        self.windows(bytes);
    }

    /// Reads a line (or a piece of one) longer than [`LONG_LINE`] around its keywords: each
    /// window is read as a piece of the line, the rest is not read at all. Inside a
    /// traceback, which reads every line, the line's start is read too.
    fn windows(&mut self, line: &[u8]) {
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

    fn end_block(&mut self) {
        if !self.carry.is_empty() {
            let mut line = std::mem::take(&mut self.carry);
            line.push(b'\n');
            self.run(&line);
        }
        self.flush_wrap();
        self.finish_dsa();
        self.tb.close();
        if let Some(tb) = self.tb.done.take() {
            self.store_traceback(tb);
        }
        self.after.clear();
    }

    fn needs_every_line(&self) -> bool {
        self.tb.active() || self.dsa.is_some() || self.wrap.is_some() || !self.after.is_empty()
    }

    fn advance(&mut self, n: u64) {
        self.order += n;
        self.line += n;
    }

    fn loc(&self) -> Loc {
        Loc {
            order: self.order,
            at: Location {
                line: self.line,
                cell: self.cell,
                output: self.output,
                execution_count: self.exec,
                runtime_log: self.in_log,
            },
            time: None,
        }
    }

    /// Reads the complete lines of `buf`; returns the bytes used (up to the last newline).
    fn run(&mut self, buf: &[u8]) -> usize {
        let mut pos = 0;
        let tail = std::mem::take(&mut self.tail);
        while pos < buf.len() {
            // A flood of per-thread records: the line after a repeated record is most likely
            // the next repeat, which the memo counts without the keyword search.
            if self.raw_memo.is_active() && self.wrap.is_none() && self.after.is_empty() {
                let site = self.raw_memo.site.and_then(|k| self.facts.sites.get_mut(k));
                let (used, lines) = self.raw_memo.count_repeats(&buf[pos..], site, self.line);
                if lines > 0 {
                    // The remembered line's bytes, and digits and commas.
                    self.block_plain &= self.raw_memo.plain;
                    self.facts.kernel_records += lines;
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
                self.block_plain &= s.plain;
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
            self.block_plain = self.block_plain && is_plain(&buf[ls..le]);
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
        self.tail = tail;
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
        let mut no = self.line;
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
            if self.tail.len() == TAIL_LINES {
                self.tail.pop_front();
            }
            self.tail.push_back(l);
        }
    }

    /// Up to `k` lines before the line at `ls` of `buf`, most recent first: (number, byte
    /// length, display text).
    fn before(
        &self,
        buf: &[u8],
        ls: usize,
        k: usize,
        tail: &VecDeque<(u64, usize, Vec<u8>)>,
    ) -> Vec<(u64, usize, String)> {
        let mut out = Vec::new();
        let mut end = ls;
        let mut no = self.line;
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

    fn process(&mut self, buf: &[u8], ls: usize, le: usize, tail: &VecDeque<(u64, usize, Vec<u8>)>) {
        let raw = &buf[ls..le];
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        // The previous record line again with other thread ids (a flood of per-thread
        // records): counted as `segment` would count it, without decoding it.
        if self.wrap.is_none() && self.after.is_empty() {
            if let Some((block, thread)) = self.raw_memo.repeat(raw) {
                self.facts.kernel_records += 1;
                if let Some(i) = self.raw_memo.site {
                    self.facts.sites[i].add(block, thread, self.line);
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
        let f = &self.facts;
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
    fn segment(
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

        let parsed = kernel::parse(&norm, translated);
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
                let first = self.facts.sites.is_empty();
                let site = self.kernel_hit(p, quote, loc, None);
                if single {
                    self.raw_memo.remember(&buf[ls..ls + raw_len], site);
                }
                if first && !self.facts.sites.is_empty() {
                    let before = self.before(buf, ls, facts::CONTEXT, tail);
                    self.facts.kernel_context =
                        before.into_iter().rev().map(|(n, _, t)| (n, clip(&t, 300).to_string())).collect();
                    self.after.push((Target::Kernel, facts::CONTEXT));
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
            if device && !self.first_host_seen && tb_index.is_none() {
                tb_index = self.partial_traceback(buf, ls, loc, tail);
            }
            self.host_hit(h, quote, stripped, loc, tb_index);
            if device && !self.first_host_seen {
                self.first_host_seen = true;
                let before = self.before(buf, ls, facts::CONTEXT, tail);
                self.facts.host_context =
                    before.into_iter().rev().map(|(n, _, t)| (n, clip(&t, 300).to_string())).collect();
                self.after.push((Target::Host, facts::CONTEXT));
            }
        } else if tbl == TbLine::Exception {
            if let Some(idx) = tb_index.flatten() {
                if let Some(e) = self.facts.tracebacks[idx].exception.clone() {
                    self.facts.last_exception = Some(e);
                }
            }
        } else if let Some((name, Some(msg))) = traceback::exception_parts(stripped.trim()) {
            if !msg.is_empty() && !stripped.starts_with(' ') {
                self.facts.last_exception = Some((name.to_string(), msg.to_string(), loc));
            }
        }
        self.notes(stripped, seg, loc);
    }

    /// [`host::classify`], which reads nothing but the line (and the scan's `count_quoted`),
    /// remembered for the last few lines: an error echoed in every later cell is read once.
    fn classify_host(&mut self, s: &str) -> Option<host::Parsed> {
        if let Some(h) = self.host_memo.get(s.as_bytes()) {
            return h.clone();
        }
        let h = host::classify(s);
        self.host_memo.keep(s.as_bytes(), h.clone());
        h
    }

    /// `s` without its known prefixes and the one learned from the lines before, learning
    /// a new one when the line's structure shows where its prefix ends.
    fn strip_prefix<'a>(&mut self, s: &'a str) -> &'a str {
        let known = prefix::strip_known(s);
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
        let at =
            if name > 0 && context::is_exception_name(&head[head.len() - name..]) { head.len() - name } else { at };
        if at > 0 {
            if let Some(l) = prefix::Learned::new(&line[..at]) {
                if self.learned.as_ref() != Some(&l) {
                    // Lines inert under one prefix may not be under another.
                    self.learned_generation += 1;
                    self.inert.clear();
                }
                self.learned = Some(l);
            }
        }
    }

    fn notes(&mut self, s: &str, seg: &str, loc: Loc) {
        if self.p.notes.find(s.as_bytes()).is_some() {
            if s.contains("asynchronously reported") && self.facts.async_notes.len() < 64 {
                self.facts.async_notes.push(loc);
            }
            if s.contains("TORCH_USE_CUDA_DSA")
                || s.contains("TORCH_USE_HIP_DSA")
                || s.contains("Device-side assertion tracking was not enabled")
            {
                self.facts.dsa_hint = true;
            }
            if self.p.sets_launch_blocking(s) && self.facts.launch_blocking.len() < 16 {
                self.facts.launch_blocking.push(Mention { loc, text: clip(seg.trim(), 300).to_string() });
            }
        }
        if self.facts.messages.len() < MAX_MESSAGES {
            for pattern in self.rs.message_matches(s) {
                self.facts.messages.push(MessageHit { pattern, loc, quote: quote(seg.trim(), 0, 0) });
            }
        }
    }

    /// Counts a record into its site; returns the site's index (`None` past [`MAX_SITES`]).
    fn kernel_hit(&mut self, mut p: kernel::Parsed, text: &str, loc: Loc, end_line: Option<u64>) -> Option<usize> {
        let (verbose, offending) = (p.verbose, p.offending.take());
        let i = self.site_hit(p, text, loc, end_line)?;
        let s = &mut self.facts.sites[i];
        if verbose {
            s.verbose += 1;
            s.offending = s.offending.take().or(offending);
        }
        Some(i)
    }

    fn site_hit(&mut self, p: kernel::Parsed, text: &str, mut loc: Loc, end_line: Option<u64>) -> Option<usize> {
        self.facts.kernel_records += 1;
        loc.time = self.read_time(text);
        let key: SiteKey = (
            p.site.file_name().to_ascii_lowercase(),
            p.site.line,
            p.site.name.clone(),
            p.site.condition.as_deref().map(condition_key),
        );
        if let Some(i) = self.facts.site_keys.iter().position(|k| *k == key) {
            let s = &mut self.facts.sites[i];
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
        if self.facts.sites.len() >= MAX_SITES {
            return None;
        }
        let at = text.find(p.site.file_name()).unwrap_or(0);
        let hit = KernelHit { loc, end_line, quote: quote(text, at, at + 200), dialect: p.dialect, site: p.site };
        self.facts.site_keys.push(key);
        self.facts.sites.push(SiteAgg::new(hit));
        Some(self.facts.sites.len() - 1)
    }

    fn host_hit(&mut self, h: host::Parsed, text: &str, stripped: &str, mut loc: Loc, traceback: Option<usize>) {
        self.facts.host_total += 1;
        loc.time = self.read_time(text);
        if self.facts.host.len() >= MAX_HOST {
            return;
        }
        let at = text.find(clip(&stripped[h.start..], 20)).unwrap_or(0);
        self.facts.host.push(HostHit {
            loc,
            quote: quote(text, at, at + 120),
            kind: h.kind,
            dialect: h.dialect,
            exception: h.exception,
            traceback,
            site: h.site,
            offending: h.offending,
        });
    }

    fn store_traceback(&mut self, tb: Traceback) -> Option<usize> {
        if self.facts.tracebacks.len() >= MAX_TRACEBACKS {
            return None;
        }
        self.facts.tracebacks.push(tb);
        Some(self.facts.tracebacks.len() - 1)
    }

    /// Pieces together the source lines just above an error that has no traceback header (a
    /// paste that starts mid-traceback, or a bare `return F.embedding(...)` line).
    fn partial_traceback(
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

    fn capture_after(&mut self, line: u64, display: &str) {
        if self.after.is_empty() {
            return;
        }
        for (t, left) in self.after.iter_mut() {
            let ctx = match t {
                Target::Kernel => &mut self.facts.kernel_context,
                Target::Host => &mut self.facts.host_context,
            };
            ctx.push((line, clip(display, 300).to_string()));
            *left -= 1;
        }
        self.after.retain(|(_, left)| *left > 0);
    }

    #[allow(clippy::too_many_arguments)]
    fn start_wrap(
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
        let mut parsed = kernel::parse(&w.norm, w.translated);
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
            parsed = kernel::parse(&w.norm, w.translated);
        }
        if !parsed.is_empty() && !kernel::needs_next(&w.norm, &parsed) {
            self.finish_wrap(w, parsed, Some(loc.at.line));
        } else if w.lines < MAX_WRAP {
            self.wrap = Some(w);
        }
    }

    /// Appends a line to the record being joined; returns true when the line completed it
    /// (and so belongs to it). A line that does not complete it is read normally as well.
    fn continue_wrap(&mut self, display: &str, loc: Loc) -> bool {
        let w = self.wrap.as_mut().expect("a wrap");
        let norm = normalise(display);
        if kernel::parse(&norm, w.translated).first().is_some_and(|p| p.start == 0 && !p.cut) {
            // The next line is a record of its own: the wrapped one ends here.
            self.flush_wrap();
            return false;
        }
        w.norm.push_str(&norm);
        w.quote.push_str(display);
        w.lines += 1;
        let parsed = kernel::parse(&w.norm, w.translated);
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
    fn flush_wrap(&mut self) {
        if let Some(w) = self.wrap.take() {
            let parsed = kernel::parse(&w.norm, w.translated);
            if !parsed.is_empty() {
                let end = w.start.at.line + u64::from(w.lines) - 1;
                self.finish_wrap(w, parsed, Some(end));
            }
        }
    }

    fn finish_wrap(&mut self, w: Wrap, parsed: Vec<kernel::Parsed>, end_line: Option<u64>) {
        let end_line = end_line.filter(|&e| e != w.start.at.line);
        for p in parsed {
            let first = self.facts.sites.is_empty();
            self.kernel_hit(p, &w.quote, w.start, end_line);
            if first && !self.facts.sites.is_empty() {
                self.facts.kernel_context = w.before.clone();
                self.after.push((Target::Kernel, facts::CONTEXT));
            }
        }
    }

    /// Reads a line of a `TORCH_USE_CUDA_DSA` report; returns true when it was one.
    fn dsa_line(&mut self, s: &str, seg: &str, loc: Loc) -> bool {
        let t = s.trim();
        // Every line of a report holds `ssertion` until a record has started.
        if self.dsa.is_none() && memchr::memmem::find(t.as_bytes(), b"ssertion").is_none() {
            return false;
        }
        if t.contains("Looking for device-side assertion failure information")
            || (t.contains("device-side assertion failure") && self.p.dsa_found.is_match(t))
        {
            self.facts.dsa_report = true;
            return true;
        }
        if let Some(n) = t.find("Assertion failure ").map(|i| &t[i + "Assertion failure ".len()..]) {
            if n.trim().parse::<u32>().is_ok() {
                self.finish_dsa();
                self.dsa = Some(Dsa::default());
                return true;
            }
        }
        if t.contains(" = ") && (t.contains("assertion") || t.contains("kernel") || t.contains("Stream")) {
            if let Some(c) = self.p.dsa_field.captures(s) {
                let d = self.dsa.get_or_insert_with(Dsa::default);
                let v = c["value"].to_string();
                match &c["key"] {
                    "GPU assertion failure message" => {
                        d.loc = Some(loc);
                        d.quote = seg.trim().to_string();
                        d.site.condition = Some(v);
                    }
                    "File containing assertion" => match v.rsplit_once(':') {
                        Some((f, l)) if l.parse::<u32>().is_ok() => {
                            d.site.file = f.to_string();
                            d.site.line = l.parse().ok();
                        }
                        _ => d.site.file = v,
                    },
                    "Device function containing assertion" => d.site.function = Some(v),
                    "Thread ID that failed assertion" => d.site.thread = kernel::triple(&v),
                    "Block ID that failed assertion" => d.site.block = kernel::triple(&v),
                    "Name of kernel launched that led to failure" => d.kernel = Some(v),
                    _ => {}
                }
                return true;
            }
        }
        if self.dsa.is_some() {
            if t.contains("CPU launch site info")
                || t.contains("[But at least")
                || t.contains("Adjust `C10_CUDA_DSA")
                || t.contains("Launch stacktracing")
            {
                return true;
            }
            self.finish_dsa();
        }
        false
    }

    fn finish_dsa(&mut self) {
        let Some(d) = self.dsa.take() else { return };
        let Some(loc) = d.loc else { return };
        self.facts.dsa_report = true;
        let mut site = d.site;
        site.name = site
            .function
            .as_deref()
            .and_then(kernel::short_function)
            .or(d.kernel.as_deref().and_then(kernel::short_function));
        let p = kernel::Parsed { start: 0, end: 0, site, dialect: "dsa", cut: false, verbose: false, offending: None };
        let first = self.facts.sites.is_empty();
        self.kernel_hit(p, &d.quote, loc, None);
        if first && !self.facts.sites.is_empty() {
            self.after.push((Target::Kernel, facts::CONTEXT));
        }
    }
}

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

/// Quotes `text`, cut to a window around `[from, to)` when it is long.
fn quote(text: &str, from: usize, to: usize) -> Quote {
    let t = text.trim_end();
    let (w, truncated) = window(t, from.min(t.len()), to.min(t.len()), MAX_TEXT);
    Quote { text: w.to_string(), truncated }
}

/// `data` in blocks of about [`BLOCK`] bytes, each ending just after a newline (a line longer
/// than a block is a block of its own, read in pieces without being copied).
fn blocks(mut data: &[u8]) -> impl Iterator<Item = &[u8]> {
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

/// Reads a whole text (for callers that hold it in memory).
pub fn scan_text(text: &str) -> Facts {
    let mut s = Scanner::new();
    s.feed_str(text);
    s.finish()
}

#[cfg(test)]
mod tests {
    use super::{Scanner, LONG_LINE};
    use crate::find::plain::tests::texts;

    /// A line that changed nothing (a warning printed in every cell) is not read again in the
    /// next cell or output; a learned prefix, which can change what a line says, takes them
    /// all back when it is forgotten.
    #[test]
    fn inert_lines_outlive_cells_but_not_a_learned_prefix() {
        let warning = b"/usr/lib/python3/dist-packages/torch/x.py:9: UserWarning: step order";
        let mut s = Scanner::new();
        s.begin_cell(0, Some(1));
        s.begin_output(0);
        s.feed(&[&warning[..], b"\n"].concat());
        s.end_block();
        assert!(s.inert.get(warning).is_some(), "read once, found inert");
        s.begin_cell(1, Some(2));
        s.begin_output(0);
        assert!(s.inert.get(warning).is_some(), "still inert in the next cell");
        s.feed(b"worker-3 | Traceback (most recent call last):\nworker-3 |   File \"t.py\", line 2, in <module>\nworker-3 | ValueError: bad\n");
        s.feed(&[&warning[..], b"\n"].concat());
        s.end_block();
        assert!(s.learned.is_some(), "the traceback taught its prefix");
        s.begin_output(1);
        assert!(s.inert.get(warning).is_none(), "forgotten with the prefix");
        let facts = s.finish();
        assert_eq!(facts.tracebacks.len(), 1);
    }

    /// Lines of every kind the scanner reads differently (skipped between keywords, read for a
    /// keyword, read inside a traceback, counted as a flood's repeat, read in pieces), with NUL
    /// bytes, bytes past 0x7f and cut characters put inside them, and no newline at the end:
    /// what the reading notes of the bytes as it passes must be exact.
    #[test]
    fn the_byte_counts_are_exact_whatever_way_each_line_was_read() {
        let lines: [&[u8]; 11] = [
            b"  5%|#         | 12/230 [00:02<00:45, 9.12it/s, loss=0.1234]",
            b"RuntimeError: CUDA error: device-side assert triggered",
            b"Traceback (most recent call last):",
            b"  File \"train.py\", line 88, in <module>",
            b"Loss.cu:250: nll_loss_forward: block: [0,0,0], thread: [1,0,0] Assertion `t >= 0 && t < n_classes` failed.",
            b"Loss.cu:250: nll_loss_forward: block: [0,0,0], thread: [2,0,0] Assertion `t >= 0 && t < n_classes` failed.",
            "Loss.cu:250: nll_loss_forward: block: [0,0,0], thread: [3,0,0] 断言 `t >= 0 && t < n_classes` 失败。".as_bytes(),
            "Loss.cu:250: nll_loss_forward: block: [0,0,0], thread: [4,0,0] 断言 `t >= 0 && t < n_classes` 失败。".as_bytes(),
            "Lös.cu:9: k: block: [0,0,0], thread: [5,0,0] Assertion `x` failed.".as_bytes(),
            "Lös.cu:9: k: block: [0,0,0], thread: [6,0,0] Assertion `x` failed.".as_bytes(),
            b"epoch 3 done",
        ];
        let bad: [&[u8]; 4] = [b"\0", b"\xff", b"\xe6\x96", "é".as_bytes()];
        let mut seed = 0x0bad_f00d_u32;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            seed as usize
        };
        for round in 0..300 {
            let mut all = Vec::new();
            let long = round % 10 == 0;
            for _ in 0..(next() % 40) {
                let mut l = lines[next() % lines.len()].to_vec();
                // One line past the length read around keywords only (`LONG_LINE`): a progress
                // bar that never printed a newline, and this line.
                if long && all.is_empty() {
                    l = [lines[0].repeat(LONG_LINE / lines[0].len() + 1), l].concat();
                }
                // Runs of one line: a flood.
                for _ in 0..(1 + next() % 3) {
                    let mut l = l.clone();
                    if next() % 4 == 0 {
                        let at = next() % (l.len() + 1);
                        l.splice(at..at, bad[next() % bad.len()].iter().copied());
                    }
                    all.extend_from_slice(&l);
                    all.extend_from_slice(if next() % 5 == 0 { b"\r\n" } else { b"\n" });
                }
            }
            all.truncate(all.len() - next() % 20.min(all.len() + 1));
            // (A byte at a time only where lines are short: pieces of a long line are joined.)
            for cut in [if long { 999 } else { 1 }, 17, 64, 100, 4096, all.len().max(1)] {
                let mut s = Scanner::new();
                for chunk in all.chunks(cut) {
                    s.feed(chunk);
                }
                let stats = s.finish().stats;
                assert_eq!(
                    stats.nul_bytes,
                    all.iter().filter(|&&b| b == 0).count() as u64,
                    "cut {cut}: {:?}",
                    String::from_utf8_lossy(&all)
                );
                assert_eq!(
                    stats.lossy_utf8,
                    std::str::from_utf8(&all).is_err(),
                    "cut {cut}: {:?}",
                    String::from_utf8_lossy(&all)
                );
            }
        }
    }

    /// Records with a NUL byte, fed a line at a time: each is counted, and so is its NUL byte
    /// (a line the reading changes, as it drops the NUL, is never taken for a flood's repeat).
    #[test]
    fn a_floods_repeats_count_their_nul_bytes() {
        let mut s = Scanner::new();
        for t in 0..5 {
            s.feed(format!("Loss.cu:9: k\0: block: [0,0,0], thread: [{t},0,0] Assertion `x` failed.\n").as_bytes());
        }
        let f = s.finish();
        assert_eq!(f.kernel_records, 5);
        assert_eq!(f.stats.nul_bytes, 5);
    }

    /// What the scanner counts of the bytes (NUL bytes, lines, whether it is UTF-8) does not
    /// depend on the fast paths or on where the input is cut.
    #[test]
    fn the_scanners_byte_counts_are_exact_in_any_chunks() {
        let mixed: Vec<u8> = texts(3_000).flatten().collect();
        let valid: Vec<u8> = texts(3_000).filter(|v| std::str::from_utf8(v).is_ok()).flatten().collect();
        for (all, cut) in [&mixed, &valid].into_iter().flat_map(|a| [1, 7, 63, 64, 65, 1000, a.len()].map(|c| (a, c))) {
            let mut s = Scanner::new();
            for chunk in all.chunks(cut) {
                s.feed(chunk);
            }
            let stats = s.finish().stats;
            assert_eq!(stats.nul_bytes, all.iter().filter(|&&b| b == 0).count() as u64, "cut {cut}");
            assert_eq!(stats.lossy_utf8, std::str::from_utf8(all).is_err(), "cut {cut}");
            assert_eq!(stats.bytes, all.len() as u64);
        }
    }
}
