//! What the page shows, decided without a browser: the report turned into display items, a map
//! of the input with the first assert and its echoes marked, and windows of the input around a
//! location. `www/report-view.js` only turns this into DOM nodes.

use crate::input::Cell;
use crate::report::Report;
use crate::scan::normalize::strip_escapes;
use crate::text::{location, Lang, Msg};

/// Where a jump lands: a line of the input, or of a cell's output text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Target {
    pub cell: Option<u32>,
    pub line: u64,
    /// A line of the runtime log read beside the input.
    pub log: bool,
}

/// How a line or a map entry is marked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Mark {
    /// Nothing special.
    None,
    /// A cell whose errors are from before the probed run (not read).
    Superseded,
    /// A line quoted as evidence for the cause.
    Evidence,
    /// A CUDA error that is not an assert.
    Other,
    /// A later CUDA error caused by the first assert.
    Echo,
    /// The first device-side assert.
    First,
}

impl Mark {
    /// The CSS class name of the mark.
    pub fn class(self) -> &'static str {
        match self {
            Mark::None => "none",
            Mark::Superseded => "superseded",
            Mark::Evidence => "evidence",
            Mark::Other => "other",
            Mark::Echo => "echo",
            Mark::First => "first",
        }
    }
}

/// The analysed input, kept so the page can show any part of it.
pub enum Source {
    /// A log: its text, and its line index, made when the view first needs it.
    Text {
        text: String,
        index: std::cell::OnceCell<LineIndex>,
    },
    Cells(Vec<Cell>),
    /// A file read a block at a time ([`Lines`] counted as it passed): no text is kept; the
    /// page reads the bytes of a window back from the file ([`Lines::span`]) and hands them
    /// over ([`Source::load`]) before it asks for the window.
    Stream { index: LineIndex, loaded: std::cell::RefCell<(u64, String)> },
}

/// Where the lines of a text start: every [`STEP`]-th line's start (lines 1, 1 + STEP, ...),
/// and how many lines there are.
pub struct LineIndex {
    checkpoints: Vec<u64>,
    lines: u64,
}

impl LineIndex {
    fn of(text: &str) -> LineIndex {
        let mut lines = Lines::default();
        lines.feed(text.as_bytes());
        lines.finish()
    }
}

/// A line index made as the bytes pass, a block at a time.
#[derive(Debug)]
pub struct Lines {
    checkpoints: Vec<u64>,
    newlines: u64,
    bytes: u64,
    last: Option<u8>,
}

impl Default for Lines {
    fn default() -> Self {
        Lines { checkpoints: vec![0], newlines: 0, bytes: 0, last: None }
    }
}

impl Lines {
    /// Counts the lines of the next block.
    pub fn feed(&mut self, block: &[u8]) {
        self.newlines = index_newlines(block, self.newlines, self.bytes, &mut self.checkpoints);
        self.bytes += block.len() as u64;
        self.last = block.last().copied().or(self.last);
    }

    /// The index of what was fed.
    pub fn finish(mut self) -> LineIndex {
        // A final newline ends the last line rather than starting an empty one.
        let lines = self.newlines + 1 - u64::from(self.last == Some(b'\n'));
        if self.checkpoints.last() == Some(&self.bytes) && self.bytes > 0 {
            self.checkpoints.pop();
        }
        LineIndex { checkpoints: self.checkpoints, lines: lines.max(1) }
    }
}

impl LineIndex {
    /// The bytes that hold lines `[from, to]` (at most `cap` of them) and the number of the
    /// first line they start with: what the page reads back from a streamed file.
    pub fn span(&self, from: u64, to: u64, cap: u64) -> (u64, u64, u64) {
        let k = ((from.max(1) - 1) / STEP) as usize;
        let start = self.checkpoints[k.min(self.checkpoints.len() - 1)];
        let end = self.checkpoints.get((to / STEP) as usize + 1).copied().unwrap_or(u64::MAX);
        (start, end.min(start + cap), k.min(self.checkpoints.len() - 1) as u64 * STEP + 1)
    }
}

/// A line of a window.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WindowLine {
    pub no: u64,
    pub text: String,
    pub mark: Mark,
    /// How many of the lines right after this one repeat it with other numbers (a kernel's
    /// record printed thread after thread): the page shows them folded under this one. 0 for
    /// a line that heads no run, and for the lines inside one.
    pub repeats: u32,
    /// The threads the run names, lowest and highest (`thread: [65,0,0]` names 65), when
    /// every line of it names one.
    pub threads: Option<[u32; 2]>,
}

/// The longest line a window shows, in characters.
const MAX_LINE_CHARS: usize = 400;

impl Source {
    /// A source for a text input.
    pub fn text(text: String) -> Source {
        Source::Text { text, index: std::cell::OnceCell::new() }
    }

    /// A source for a file read a block at a time.
    pub fn stream(index: LineIndex) -> Source {
        Source::Stream { index, loaded: Default::default() }
    }

    /// Hands a streamed source the bytes the page read back from the file: lines from
    /// `first` on (the last one may be cut).
    pub fn load(&self, first: u64, bytes: &[u8]) {
        if let Source::Stream { loaded, .. } = self {
            *loaded.borrow_mut() = (first, String::from_utf8_lossy(bytes).into_owned());
        }
    }

    /// Lines `[from, to]` (1-based, inclusive) of the input, or of a cell's output text.
    pub fn lines(&self, cell: Option<u32>, from: u64, to: u64) -> Vec<(u64, String)> {
        let clean = |s: &str| {
            let s = strip_escapes(s.trim_end_matches('\r'));
            let mut t: String = s.chars().take(MAX_LINE_CHARS).collect();
            if s.chars().nth(MAX_LINE_CHARS).is_some() {
                t.push('…');
            }
            t.replace('\r', "⏎")
        };
        match self {
            Source::Text { text, index } => {
                let i = index.get_or_init(|| LineIndex::of(text));
                let (checkpoints, lines) = (&i.checkpoints, &i.lines);
                let (from, to) = (from.max(1), to.min(*lines));
                if from > to {
                    return Vec::new();
                }
                // From the checkpoint before `from`, a line at a time.
                let k = ((from - 1) / STEP) as usize;
                let mut pos = checkpoints[k] as usize;
                let mut out = Vec::new();
                for no in k as u64 * STEP + 1..=to {
                    let end = memchr::memchr(b'\n', &text.as_bytes()[pos..]).map_or(text.len(), |i| pos + i);
                    if no >= from {
                        out.push((no, clean(&text[pos..end])));
                    }
                    pos = (end + 1).min(text.len());
                }
                out
            }
            Source::Stream { index, loaded } => {
                let (first, text) = &*loaded.borrow();
                let to = to.min(index.lines);
                let numbered = text.split('\n').zip(*first..);
                numbered.filter(|(_, no)| (from..=to).contains(no)).map(|(l, no)| (no, clean(l))).collect()
            }
            Source::Cells(cells) => {
                let Some(c) = cells.iter().find(|c| Some(c.index) == cell) else { return Vec::new() };
                let mut out = Vec::new();
                for (no, l) in (1..).zip(cell_lines(c)) {
                    if no >= from && no <= to {
                        out.push((no, clean(l)));
                    }
                }
                out
            }
        }
    }

    /// How many lines the input (or a cell's output) has.
    pub fn line_count(&self, cell: Option<u32>) -> u64 {
        match self {
            Source::Text { text, index } => index.get_or_init(|| LineIndex::of(text)).lines,
            Source::Stream { index, .. } => index.lines,
            Source::Cells(cells) => {
                cells.iter().find(|c| Some(c.index) == cell).map_or(0, |c| cell_lines(c).len() as u64)
            }
        }
    }
}

/// Lines between the checkpoints a text source keeps.
const STEP: u64 = 64;

/// Counts the newlines of `b` on from `n` (those before it), and pushes the offset after every
/// [`STEP`]-th one (`b` starts at offset `base`); returns the count.
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
fn index_newlines(b: &[u8], mut n: u64, base: u64, checkpoints: &mut Vec<u64>) -> u64 {
    for i in memchr::memchr_iter(b'\n', b) {
        n += 1;
        if n.is_multiple_of(STEP) {
            checkpoints.push(base + i as u64 + 1);
        }
    }
    n
}

/// Counts the newlines of `b` on from `n`, and pushes the offset after every [`STEP`]-th one
/// (`b` starts at offset `base`), 16 bytes at a time. (memchr's iterator starts a search per
/// newline, which costs more than the search when lines are short: 40 ms for the 2.5 million
/// lines of a 200 MB log.)
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
fn index_newlines(b: &[u8], mut n: u64, base: u64, checkpoints: &mut Vec<u64>) -> u64 {
    use core::arch::wasm32::*;
    let nl = u8x16_splat(b'\n');
    let mut i = 0;
    while i + 16 <= b.len() {
        // SAFETY: i + 16 <= b.len(): the load stays inside `b`; no alignment is required.
        let v = unsafe { v128_load(b.as_ptr().add(i) as *const v128) };
        let mut bits = u8x16_bitmask(u8x16_eq(v, nl));
        let count = u64::from(bits.count_ones());
        if n % STEP + count < STEP {
            n += count;
        } else {
            while bits != 0 {
                n += 1;
                if n.is_multiple_of(STEP) {
                    checkpoints.push(base + (i + bits.trailing_zeros() as usize + 1) as u64);
                }
                bits &= bits - 1;
            }
        }
        i += 16;
    }
    for (j, _) in b[i..].iter().enumerate().filter(|(_, &c)| c == b'\n') {
        n += 1;
        if n.is_multiple_of(STEP) {
            checkpoints.push(base + (i + j + 1) as u64);
        }
    }
    n
}

/// A cell's output text, line by line, numbered as the engine numbers it.
fn cell_lines(c: &Cell) -> Vec<&str> {
    let mut lines = Vec::new();
    for o in &c.outputs {
        lines.extend(o.text.strip_suffix('\n').unwrap_or(&o.text).split('\n'));
    }
    lines
}

/// One entry of the map: a run of lines (text input) or a cell (notebook).
#[derive(Clone, Debug, PartialEq)]
pub struct MapEntry {
    /// Where a click on it jumps, when it holds something.
    pub target: Option<Target>,
    pub mark: Mark,
    /// A short label: `12-40` or `[7]` (execution count).
    pub label: String,
    /// A longer description for the tooltip.
    pub title: String,
}

/// The number of entries the map of a text input has (fewer for short inputs).
pub const MAP_BINS: u64 = 120;

/// Builds the map: for a text, [`MAP_BINS`] runs of lines; for a notebook, one entry per cell
/// in page order (markdown cells included, so the map looks like the notebook).
pub fn map(report: &Report, source: &Source, lang: Lang) -> Vec<MapEntry> {
    let marks = marks(report);
    // The runtime log read beside the input comes first, when the report points into it.
    let log = marks.iter().filter(|(t, _)| t.log).max_by_key(|(_, m)| *m).map(|&(target, mark)| MapEntry {
        target: Some(target),
        mark,
        label: Msg::MapLogLabel.text(lang).to_string(),
        title: Msg::MapLog.text(lang).to_string(),
    });
    let mut entries: Vec<MapEntry> = log.into_iter().collect();
    entries.extend(input_map(&marks, source, &report.input.superseded_cells, lang));
    entries
}

/// The strongest mark on the places `keep` keeps (the last of equals).
fn strongest<'m>(marks: &'m [(Target, Mark)], keep: &dyn Fn(&Target) -> bool) -> Option<&'m (Target, Mark)> {
    let mut best: Option<&(Target, Mark)> = None;
    for m in marks {
        if keep(&m.0) && best.is_none_or(|b| m.1 >= b.1) {
            best = Some(m);
        }
    }
    best
}

fn input_map(marks: &[(Target, Mark)], source: &Source, superseded: &[u32], lang: Lang) -> Vec<MapEntry> {
    match source {
        Source::Text { .. } | Source::Stream { .. } => {
            let total = source.line_count(None).max(1);
            let bins = total.min(MAP_BINS);
            (0..bins)
                .map(|b| {
                    let from = b * total / bins + 1;
                    let to = (b + 1) * total / bins;
                    let best = strongest(marks, &|t| !t.log && t.cell.is_none() && t.line >= from && t.line <= to);
                    MapEntry {
                        target: best.map(|(t, _)| *t),
                        mark: best.map_or(Mark::None, |(_, m)| *m),
                        label: format!("{from}-{to}"),
                        title: Msg::MapLines.fill(lang, &[("from", &from), ("to", &to)]),
                    }
                })
                .collect()
        }
        Source::Cells(cells) => cells
            .iter()
            .map(|c| {
                let best = strongest(marks, &|t| t.cell == Some(c.index));
                let label = match c.execution_count {
                    Some(n) => format!("[{n}]"),
                    None if c.cell_type == crate::input::CellType::Markdown => "md".to_string(),
                    None => "[ ]".to_string(),
                };
                MapEntry {
                    target: best.map(|(t, _)| *t).or_else(|| {
                        (!c.outputs.is_empty()).then_some(Target { cell: Some(c.index), line: 1, log: false })
                    }),
                    mark: best.map_or(if superseded.contains(&c.index) { Mark::Superseded } else { Mark::None }, |(_, m)| *m),
                    title: Msg::MapCell.fill(lang, &[("pos", &(u64::from(c.index) + 1)), ("label", &label)]),
                    label,
                }
            })
            .collect(),
    }
}

/// Every marked place of the report.
pub fn marks(report: &Report) -> Vec<(Target, Mark)> {
    let mut v = Vec::new();
    let t = |at: &crate::report::Location| Target { cell: at.cell, line: at.line, log: at.runtime_log };
    if let Some(f) = &report.first_assert {
        v.push((t(&f.at), Mark::First));
        if let Some(end) = f.end_line {
            for line in f.at.line + 1..=end {
                v.push((Target { cell: f.at.cell, line, log: f.at.runtime_log }, Mark::First));
            }
        }
    }
    for e in &report.echoes {
        v.push((t(&e.at), Mark::Echo));
    }
    for e in &report.other_errors {
        v.push((t(&e.at), Mark::Other));
    }
    if let Some(c) = &report.cause {
        for e in &c.evidence {
            // The probe's (or the CPU's) error is where the run stopped: the first.
            v.push((t(&e.at), if e.scope == "confirmation" { Mark::First } else { Mark::Evidence }));
        }
    }
    v
}

/// The lines a window shows before its place, and after.
pub const BEFORE: u64 = 8;
pub const AFTER: u64 = 16;

/// Lines around `target`: a few before, more after, each with its mark.
pub fn window(report: &Report, source: &Source, target: Target) -> Vec<WindowLine> {
    let marks = marks(report);
    let from = target.line.saturating_sub(BEFORE).max(1);
    let to = target.line + AFTER;
    let mut lines: Vec<WindowLine> = source
        .lines(target.cell, from, to)
        .into_iter()
        .map(|(no, text)| {
            let mark = marks
                .iter()
                .filter(|(t, _)| t.cell == target.cell && t.log == target.log && t.line == no)
                .map(|(_, m)| *m)
                .max();
            WindowLine { no, text, mark: mark.unwrap_or(Mark::None), repeats: 0, threads: None }
        })
        .collect();
    fold_repeats(&mut lines, target.line);
    lines
}

/// Marks the runs of three or more consecutive lines that differ only in their numbers and
/// have the same mark (a record repeated per thread): the first line of a run heads it. The
/// line `target` stands on its own.
fn fold_repeats(lines: &mut [WindowLine], target: u64) {
    // A line with each run of digits as one `#` (`12` and `7` are the same number).
    let shape = |s: &str| -> String {
        let mut out = String::with_capacity(s.len());
        let mut digits = false;
        for c in s.chars() {
            if !c.is_ascii_digit() {
                out.push(c);
            } else if !digits {
                out.push('#');
            }
            digits = c.is_ascii_digit();
        }
        out
    };
    let mut i = 0;
    while i < lines.len() {
        let head = shape(&lines[i].text);
        let mut end = i + 1;
        while end < lines.len()
            && lines[i].no != target
            && lines[end].no != target
            && lines[end].mark == lines[i].mark
            && shape(&lines[end].text) == head
        {
            end += 1;
        }
        if end - i >= 3 {
            // The threads' range, when every line names its thread.
            let mut threads = Some([u32::MAX, 0]);
            for l in &lines[i..end] {
                threads = threads.zip(thread_of(&l.text)).map(|([lo, hi], t)| [lo.min(t), hi.max(t)]);
            }
            lines[i].repeats = (end - i - 1) as u32;
            lines[i].threads = threads;
            i = end;
        } else {
            i += 1;
        }
    }
}

/// The thread a kernel record names (`thread: [65,0,0]` gives 65).
fn thread_of(s: &str) -> Option<u32> {
    let rest = &s[s.find("thread: [")? + "thread: [".len()..];
    let digits = &rest[..rest.find(',')?];
    digits.parse().ok()
}

/// Where the page opens its window first: the first assert, else the first other error.
pub fn initial_target(report: &Report) -> Option<Target> {
    let caught = || report.confirmation.as_ref().map(|c| c.at);
    let first = report.first_assert.as_ref().map(|f| f.at);
    let at = first.or_else(|| report.other_errors.first().map(|o| o.at)).or_else(caught)?;
    Some(Target { cell: at.cell, line: at.line, log: at.runtime_log })
}

/// How a place reads on the page (with the cell's execution count, as the notebook shows it).
pub fn where_(report: &Report, source: &Source, t: Target) -> String {
    let execution_count = match source {
        Source::Cells(cells) => cells.iter().find(|c| Some(c.index) == t.cell).and_then(|c| c.execution_count),
        Source::Text { .. } | Source::Stream { .. } => None,
    };
    let at = crate::report::Location { line: t.line, cell: t.cell, output: None, execution_count, runtime_log: t.log };
    location(report.lang, &at)
}

/// A 64-bit FNV-1a hash: the key under which the page remembers the checklist of an input.
pub fn fingerprint(bytes: &[u8]) -> String {
    // FNV-1a over 8-byte words (and the length): a byte at a time took 1.4 ms per MB in the
    // browser; this is a key for the checklist's ticks, not a defence against collisions.
    // Past 4 MB: the first and last megabyte and 256 bytes of every 64 KB between.
    const ALL: usize = 4 << 20;
    if bytes.len() > ALL {
        let (head, tail) = (&bytes[..1 << 20], &bytes[bytes.len() - (1 << 20)..]);
        let mut sample = Vec::with_capacity(3 << 20);
        sample.extend_from_slice(head);
        for block in bytes[1 << 20..bytes.len() - (1 << 20)].chunks(64 << 10) {
            sample.extend_from_slice(&block[..block.len().min(256)]);
        }
        sample.extend_from_slice(tail);
        sample.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
        return fingerprint(&sample);
    }
    let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ bytes.len() as u64;
    let words = bytes.chunks_exact(8);
    let tail = words.remainder();
    for w in words {
        h ^= u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    for b in tail {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{h:016x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_index_finds_every_line() {
        let text: String = (0..5000u32).map(|i| if i.wrapping_mul(2654435761) % 7 == 0 { '\n' } else { 'x' }).collect();
        let mut want: Vec<&str> = text.split('\n').collect();
        if text.ends_with('\n') {
            want.pop();
        }
        let s = Source::text(text.clone());
        assert_eq!(s.line_count(None), want.len() as u64);
        for from in 1..=want.len() as u64 + 2 {
            let got: Vec<String> = s.lines(None, from, from + 2).into_iter().map(|(_, l)| l).collect();
            let end = (from as usize + 2).min(want.len());
            assert_eq!(got, want.get(from as usize - 1..end).unwrap_or(&[]), "from {from}");
        }
    }
    use crate::{analyze_notebook, analyze_text, Options};

    const LOG: &str = "step 1\nstep 2\n../aten/src/ATen/native/cuda/Loss.cu:242: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [5,0,0] Assertion `t >= 0 && t < n_classes` failed.\nTraceback (most recent call last):\n  File \"t.py\", line 3, in <module>\n    total += loss.item()\nRuntimeError: CUDA error: device-side assert triggered\nafter 1\n";

    #[test]
    fn a_line_index_made_a_block_at_a_time_is_the_whole_texts_and_its_spans_hold_the_lines() {
        let text: String = (1..=1000).map(|i| format!("line {i}\n")).collect::<String>() + "last, no newline";
        let whole = LineIndex::of(&text);
        for size in [1, 7, 100, 4096] {
            let mut lines = Lines::default();
            text.as_bytes().chunks(size).for_each(|c| lines.feed(c));
            let index = lines.finish();
            assert_eq!((&index.checkpoints, index.lines), (&whole.checkpoints, whole.lines), "blocks of {size}");
        }
        assert_eq!(whole.lines, 1001);
        // The window around line 500 from the bytes the span names, as from the kept text.
        let (start, end, first) = whole.span(500 - BEFORE, 500 + AFTER, 1 << 20);
        let streamed = Source::stream(LineIndex::of(&text));
        streamed.load(first, &text.as_bytes()[start as usize..end as usize]);
        let kept = Source::text(text.clone());
        assert_eq!(streamed.lines(None, 492, 516), kept.lines(None, 492, 516));
        assert_eq!(streamed.lines(None, 492, 516).len(), 25);
        // At most `cap` bytes: the lines past it are not there.
        let (start, end, _) = whole.span(1, 30, 50);
        assert_eq!((start, end), (0, 50));
    }

    #[test]
    fn windows_mark_the_first_assert_and_its_echoes() {
        let r = analyze_text(LOG, &Options::default());
        let s = Source::text(LOG.to_string());
        assert_eq!(s.line_count(None), 8);
        let w = window(&r, &s, initial_target(&r).unwrap());
        assert_eq!(w.first().unwrap().no, 1);
        assert_eq!(w.iter().find(|l| l.no == 3).unwrap().mark, Mark::First);
        // The host line raised by the same failure is the assert's report, not its echo.
        assert_ne!(w.iter().find(|l| l.no == 7).unwrap().mark, Mark::Echo);
        assert_eq!(w.last().unwrap().no, 8);
    }

    #[test]
    fn text_maps_bin_lines_and_keep_the_strongest_mark() {
        let mut log = "noise\n".repeat(999);
        log.push_str("RuntimeError: CUDA error: device-side assert triggered\n");
        let r = analyze_text(&log, &Options::default());
        let m = map(&r, &Source::text(log), Lang::En);
        assert_eq!(m.len() as u64, MAP_BINS);
        let last = m.last().unwrap();
        assert_eq!(last.mark, Mark::First);
        assert_eq!(last.target, Some(Target { cell: None, line: 1000, log: false }));
        assert!(m.iter().take(100).all(|e| e.mark == Mark::None && e.target.is_none()));
    }

    #[test]
    fn notebook_maps_have_one_entry_per_cell() {
        let nb =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/cases/colab-echoes.ipynb")).unwrap();
        let r = analyze_notebook(&nb, &Options::default()).unwrap();
        let cells = crate::input::parse_notebook(&nb).unwrap().cells;
        let m = map(&r, &Source::Cells(cells.clone()), Lang::En);
        assert_eq!(m.len(), 6);
        assert_eq!(m[0].label, "md");
        assert_eq!(m[3].mark, Mark::First);
        assert_eq!(m[4].mark, Mark::Echo);
        let w = window(&r, &Source::Cells(cells), initial_target(&r).unwrap());
        let first = w.iter().find(|l| l.mark == Mark::First).unwrap();
        assert!(first.text.contains("Assertion `t >= 0"), "{}", first.text);
        assert!(!w.iter().any(|l| l.text.contains('\u{1b}')), "escape sequences reach the page");
    }

    #[test]
    fn fingerprints_differ_and_are_stable() {
        assert_eq!(fingerprint(b"a"), fingerprint(b"a"));
        assert_ne!(fingerprint(b"a"), fingerprint(b"b"));
        assert_eq!(fingerprint(b"").len(), 16);
    }

    #[test]
    fn fingerprints_of_big_inputs_see_both_ends_the_samples_and_the_length() {
        let big: Vec<u8> = (0..(6u32 << 20)).map(|i| (i % 251) as u8).collect();
        let base = fingerprint(&big);
        for at in [0, big.len() - 1, (1 << 20) + (64 << 10) * 7 + 3] {
            let mut b = big.clone();
            b[at] ^= 1;
            assert_ne!(fingerprint(&b), base, "a change at {at} is not seen");
        }
        let mut longer = big.clone();
        longer.insert(2 << 20, 0);
        assert_ne!(fingerprint(&longer), base);
    }

    #[test]
    fn records_repeated_per_thread_fold_under_their_first_line() {
        let rec = |t: u32| format!("Loss.cu:250: nll: block: [0,0,0], thread: [{t},0,0] Assertion `t >= 0` failed.");
        let line = |no: u64, text: String, mark: Mark| WindowLine { no, text, mark, repeats: 0, threads: None };
        let mut lines: Vec<WindowLine> = vec![line(1, "epoch 1".into(), Mark::None)];
        lines.extend((0..5).map(|k| line(2 + k, rec(40 - k as u32), Mark::None)));
        lines.push(line(7, "epoch 12".into(), Mark::None));
        lines.push(line(8, "epoch 13".into(), Mark::None));
        // The target stands alone: the run after it starts again.
        lines.extend((0..4).map(|k| line(9 + k, rec(7 + k as u32), if k == 0 { Mark::First } else { Mark::None })));
        fold_repeats(&mut lines, 9);
        let folded: Vec<(u64, u32, Option<[u32; 2]>)> =
            lines.iter().filter(|l| l.repeats > 0).map(|l| (l.no, l.repeats, l.threads)).collect();
        // Lines 2-6 (threads 36-40) fold; "epoch 12", "epoch 13" are two, not a run; line 9 is
        // the target; 10-12 (threads 8-10) fold.
        assert_eq!(folded, vec![(2, 4, Some([36, 40])), (10, 2, Some([8, 10]))]);
        // Lines without a thread fold too, without threads.
        let mut plain: Vec<WindowLine> =
            (0..3).map(|k| line(k + 1, format!("step {k} loss 0.{k}"), Mark::None)).collect();
        fold_repeats(&mut plain, 99);
        assert_eq!((plain[0].repeats, plain[0].threads), (2, None));
    }
}
