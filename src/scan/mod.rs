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
mod dispatch;
mod dsa;
pub mod elastic;
pub mod flood;
pub mod host;
pub mod kernel;
pub mod mention;
pub mod normalize;
pub mod patterns;
pub mod prefix;
mod record;
pub mod shape;
mod stream;
pub mod time;
pub mod traceback;
mod wrap;

use crate::facts::{self, *};
use crate::find::keywords::Keywords;
use crate::find::plain::{is_plain, plain_blocks, utf8_check_from};
use crate::memo::Recent;
use crate::report::{KernelSite, Location};
use crate::rules::{condition_key, ruleset, RuleSet};
use dsa::Dsa;
use normalize::{clip, normalise, segments, strip_escapes, window};
use patterns::{patterns, Patterns};
use record::{Recorder, Target};
use std::collections::VecDeque;
use std::sync::OnceLock;
use stream::{blocks, Cursor, LineSource};
use traceback::{TbLine, TbReader};
use wrap::Wrap;

/// Lines longer than this are read in pieces of about this size.
pub const MAX_PIECE: usize = 8 << 20;

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
    // torchrun's summary of a failed launch (`scan::elastic`).
    "observed failure",
    "Failures:",
];

fn keywords() -> &'static Keywords {
    static K: OnceLock<Keywords> = OnceLock::new();
    K.get_or_init(|| {
        let mut k: Vec<&str> = KEYWORDS.to_vec();
        k.extend(patterns::SAMPLING_GATE);
        k.extend(ruleset().message_keywords());
        Keywords::new(&k)
    })
}

/// Reads text and records facts. Feed it bytes; tell it where cells and outputs start.
pub struct Scanner {
    /// Where the scan is.
    cur: Cursor,
    /// What the stream keeps between blocks.
    src: LineSource,
    /// What was found, and what is still to be added to it.
    rec: Recorder,
    /// How the readers judge a record: by its context, or as printed whatever it reads like
    /// (`Options::count_quoted`).
    judge: context::Judge,
    rs: &'static RuleSet,
    p: &'static Patterns,
    kw: &'static Keywords,
    tb: TbReader,
    dsa: Option<Dsa>,
    wrap: Option<Wrap>,
    kernel_memo: flood::Memo,
    raw_memo: flood::RawMemo,
    /// The prefix learned from the last traceback line that showed one.
    learned: Option<prefix::Learned>,
    /// The last few lines that were read and changed nothing, by content.
    inert: Recent<()>,
    /// The host error of the last few lines read by the host reader, by content.
    host_memo: Recent<Option<host::Parsed>>,
    /// Counts the changes of `learned`.
    learned_generation: u64,
    /// The text read so far, while it is a short text of its own ([`shape::HEAD`] bytes at
    /// most, no notebook cells, no runtime log, quoted lines not counted as printed): its
    /// error lines are judged with the text around them when it ends.
    page: Option<Vec<u8>>,
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
            cur: Cursor { line: 1, ..Cursor::default() },
            src: LineSource::default(),
            rec: Recorder::default(),
            judge: context::Judge::default(),
            rs: ruleset(),
            p: patterns(),
            kw: keywords(),
            tb: TbReader::default(),
            dsa: None,
            wrap: None,
            kernel_memo: flood::Memo::default(),
            raw_memo: flood::RawMemo::default(),
            learned: None,
            inert: Recent::new(32),
            host_memo: Recent::new(8),
            learned_generation: 0,
            page: Some(Vec::new()),
        }
    }

    /// Counts what reads as quoted (in code, advice, a question) as printed: the reader's
    /// "treat it as the error". Call it before feeding anything.
    pub fn count_quoted(&mut self, on: bool) {
        self.judge = context::Judge { count_quoted: on };
        if on {
            self.page = None;
        }
        self.host_memo.clear();
    }

    /// Starts a notebook cell: line numbers restart at 1.
    pub fn begin_cell(&mut self, index: u32, execution_count: Option<i64>) {
        // The last line of the output before, without its newline, is read now.
        self.end_block();
        self.forget_block();
        self.page = None;
        self.cur.cell = Some(index);
        self.cur.exec = execution_count;
        self.cur.output = None;
        self.cur.line = 1;
    }

    /// Starts an output of the current cell: line numbers go on from the previous output.
    pub fn begin_output(&mut self, index: u32) {
        self.end_block();
        self.cur.output = Some(index);
        self.forget_prefix();
    }

    /// Reads the rows of a runtime log given beside the input (the kernel's own stderr), here,
    /// in run order: each row numbered with its line in the log, its places marked as the
    /// log's. The input's own counts (bytes, lines) leave the log out.
    pub fn runtime_log(&mut self, log: facts::LogInfo, rows: &[crate::runtime_log::Row]) {
        self.end_block();
        self.page = None;
        let saved =
            (self.cur.cell, self.cur.output, self.cur.exec, self.cur.line, self.rec.facts.stats.bytes, self.cur.order);
        self.forget_block();
        // The log's rows are marked as the log's: nothing found inert outside it counts in it.
        self.inert.clear();
        (self.cur.cell, self.cur.output, self.cur.exec, self.cur.in_log) = (None, None, None, true);
        self.read_rows(rows);
        self.forget_block();
        self.inert.clear();
        self.cur.in_log = false;
        let bytes;
        let order;
        (self.cur.cell, self.cur.output, self.cur.exec, self.cur.line, bytes, order) = saved;
        self.rec.facts.stats.bytes = bytes;
        self.cur.log_lines += self.cur.order - order;
        self.rec.facts.runtime_log = Some(log);
    }

    /// Reads a runtime log that is the whole input: its rows oldest first, each at its line.
    pub fn log_as_input(&mut self, log: facts::LogInfo, rows: &[crate::runtime_log::Row], bytes: u64) {
        self.page = None;
        self.read_rows(rows);
        self.rec.facts.stats.bytes = bytes;
        // Listed newest first: "first" is the earliest, as for any log read backwards.
        self.rec.facts.time_reversed = log.newest_first;
        self.rec.facts.runtime_log = Some(log);
    }

    fn read_rows(&mut self, rows: &[crate::runtime_log::Row]) {
        for r in rows {
            self.cur.line = r.line;
            self.feed_str(&r.message);
            self.feed_str("\n");
        }
        self.end_block();
    }

    /// Forgets what the lines before said about the lines after (a new block of text starts).
    fn forget_block(&mut self) {
        self.kernel_memo = flood::Memo::default();
        self.raw_memo.forget();
        self.forget_prefix();
        self.src.tail.clear();
    }

    /// Reads bytes that may not be valid UTF-8 (they are read lossily, and the report says so).
    pub fn feed(&mut self, data: &[u8]) {
        // A block at a time, so that what the reading leaves to do (the UTF-8 check where a
        // byte was not plain ASCII) finds it in the cache.
        self.keep_page(data);
        for block in blocks(data) {
            let plain = self.feed_bytes(block);
            self.check_utf8(block, plain);
        }
    }

    /// Reads text.
    pub fn feed_str(&mut self, text: &str) {
        self.keep_page(text.as_bytes());
        for block in blocks(text.as_bytes()) {
            self.feed_bytes(block);
        }
    }

    /// Keeps `data` as part of the page while the text is short enough to be judged.
    fn keep_page(&mut self, data: &[u8]) {
        if let Some(page) = &mut self.page {
            if page.len() + data.len() > shape::HEAD {
                self.page = None;
            } else {
                page.extend_from_slice(data);
            }
        }
    }

    /// The line of the earliest device-side assert read so far (a kernel record, a host
    /// error): what a reader shows while the rest is read. The report decides.
    pub fn assert_seen(&self) -> Option<u64> {
        let f = &self.rec.facts;
        let host = f.host.iter().filter(|h| matches!(h.kind, HostKind::DeviceAssert)).map(|h| &h.loc);
        f.sites.iter().map(|s| &s.first.loc).chain(host).min_by_key(|l| l.order).map(|l| l.at.line)
    }

    /// Ends the input and returns what was found.
    pub fn finish(mut self) -> Facts {
        if !self.src.utf8_tail.is_empty() {
            // The input ended in the middle of a character.
            self.rec.facts.stats.lossy_utf8 = true;
        }
        self.end_block();
        self.rec.facts.stats.lines = self.cur.order - self.cur.log_lines;
        if let Some(page) =
            self.page.take().filter(|_| !self.rec.facts.host.is_empty() || self.rec.facts.kernel_records > 0)
        {
            shape::mark(&String::from_utf8_lossy(&page), &mut self.rec.facts);
        }
        // A log listed newest first (a cloud console's export): the first assert is the
        // earliest in time. Notebooks (a cell was begun) run in their cells' order.
        if self.cur.cell.is_none() && self.rec.facts.runs_backwards() {
            self.rec.facts.reverse_time(self.cur.order);
        }
        self.rec.facts
    }
}

/// Reads a whole text (for callers that hold it in memory).
pub fn scan_text(text: &str) -> Facts {
    let mut s = Scanner::new();
    s.feed_str(text);
    s.finish()
}

#[cfg(test)]
mod tests {
    use super::stream::LONG_LINE;
    use super::Scanner;
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
        s.feed("worker-3 » Traceback (most recent call last):\nworker-3 »   File \"t.py\", line 2, in <module>\nworker-3 » ValueError: bad\n".as_bytes());
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
