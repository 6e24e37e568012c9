//! The pipeline: from an input to a report. It decides how the input is read
//! ([`crate::input::sniff`]), hands a log to the scanner as it arrives or a notebook's cells in
//! the order they ran (with the runtime log where its kernel lines were printed), asks
//! `diagnose` for the findings and `words` for the report. The `diagnose_*` entry points stop at
//! the findings, for a caller that words them again in another language (the page's session).

use crate::facts::{self, InputContext};
use crate::findings::Findings;
use crate::input::{self, Cell, InputError, Notebook, Sniff};
use crate::lang::Lang;
use crate::report::{InputFormat, Report};
use crate::scan::Scanner;
use crate::{diagnose, notebook, runtime_log, words};

/// How to analyse.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// The language of the report's texts.
    pub lang: Lang,
    /// The kernel's own log, read beside the input: Colab's runtime log (Runtime > View
    /// runtime logs, in any form [`runtime_log`] reads) or any stderr text, where the
    /// kernel's `Assertion ... failed` lines are when the cells do not show them.
    pub runtime_log: Option<String>,
    /// Where the input comes from, when the caller knows (`colab`: the page's Colab
    /// adapter); a notebook saved by Colab says so itself.
    pub host: Option<String>,
    /// Count what reads as quoted (a phrase in code, advice, a question or documentation) as
    /// printed output: for a reader who says that line was the error after all.
    pub count_quoted: bool,
    /// What the kernel itself saw (the notebook extension says): the torch version, the
    /// device, whether `CUDA_LAUNCH_BLOCKING=1` was in force when CUDA started.
    pub kernel: Option<crate::report::KernelFacts>,
    /// Where the notebook extension can be installed from: a package index's address
    /// (`https://…/simple/`, the site make dist writes). With it a notebook's steps say
    /// `%pip install first-assert --index-url …` and `%load_ext first_assert`; without it, the
    /// probe cell.
    pub index: Option<String>,
}

impl Options {
    /// Options in a language, nothing else set.
    pub fn lang(lang: Lang) -> Options {
        Options { lang, ..Options::default() }
    }

    fn colab(&self) -> bool {
        self.host.as_deref() == Some("colab")
    }
}

/// The rows of the runtime log in `opts`, oldest first: its last session's when it is in a
/// runtime-log form, else its lines as they are.
fn log_rows(opts: &Options) -> Option<(facts::LogInfo, Vec<runtime_log::Row>)> {
    let text = opts.runtime_log.as_deref()?;
    Some(match runtime_log::parse(text) {
        Some(log) => {
            let rows = log.session().to_vec();
            let info = facts::LogInfo {
                form: log.form,
                rows: rows.len() as u64,
                total: log.rows.len() as u64,
                newest_first: log.newest_first,
            };
            (info, rows)
        }
        None => {
            let text = text.strip_prefix('\u{feff}').unwrap_or(text);
            let rows: Vec<runtime_log::Row> = text
                .lines()
                .enumerate()
                .map(|(i, l)| runtime_log::Row { line: i as u64 + 1, time: 0, level: "", message: l.to_string() })
                .collect();
            let n = rows.len() as u64;
            (facts::LogInfo { form: "lines", rows: n, total: n, newest_first: false }, rows)
        }
    })
}

/// Analyses a log held in memory.
pub fn analyze_text(text: &str, opts: &Options) -> Report {
    words::report(diagnose_text(text, opts), opts.lang)
}

/// The findings of a log held in memory ([`analyze_text`] before the words).
pub fn diagnose_text(text: &str, opts: &Options) -> Findings {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut a = TextAnalyzer::new();
    a.runtime_log(opts);
    a.feed_text(text);
    a.finish_findings(opts)
}

/// Analyses a notebook (nbformat 4) or a cell list given as JSON text.
pub fn analyze_notebook(json: &str, opts: &Options) -> Result<Report, InputError> {
    let nb = input::parse_notebook(json)?;
    Ok(words::report(diagnose_parsed(&nb, opts), opts.lang))
}

/// Analyses cells already in the engine's shape.
pub fn analyze_cells(cells: &[Cell], opts: &Options) -> Report {
    words::report(diagnose_cells(cells, opts), opts.lang)
}

/// The findings of cells already in the engine's shape ([`analyze_cells`] before the words).
pub fn diagnose_cells(cells: &[Cell], opts: &Options) -> Findings {
    diagnose_parsed(&Notebook { format: InputFormat::Cells, cells: cells.to_vec(), host: None }, opts)
}

/// Analyses bytes of unknown kind: a notebook or cell list when it looks like one (or the
/// file name ends in `.ipynb`), else a log (UTF-16 logs are decoded; invalid UTF-8 is read
/// lossily and the report says so).
pub fn analyze_bytes(bytes: &[u8], file_name: Option<&str>, opts: &Options) -> Result<Report, InputError> {
    analyze_sniffed(bytes, file_name, input::sniff(bytes, file_name), opts)
}

/// [`analyze_bytes`] for a caller that has sniffed the bytes already ([`input::sniff`]): the
/// decision is not made twice.
pub fn analyze_sniffed(bytes: &[u8], file_name: Option<&str>, sniff: Sniff, opts: &Options) -> Result<Report, InputError> {
    // (The runtime log is read with a log only: a notebook places it among its cells itself.)
    let log = |bytes: &[u8]| {
        let mut a = TextAnalyzer::new();
        a.runtime_log(opts);
        a.feed(bytes);
        a.finish(opts)
    };
    Ok(match classify(bytes, file_name, sniff)? {
        Kind::Notebook(nb) => words::report(diagnose_parsed(&nb, opts), opts.lang),
        Kind::Utf16(text) => log(text.as_bytes()),
        Kind::Utf8(bytes) => log(bytes),
    })
}

/// Bytes read the way [`analyze_bytes`] reads them.
pub enum Decoded {
    Notebook(Notebook),
    /// A log, decoded (UTF-16, or UTF-8 with invalid sequences replaced), without a BOM.
    Text(String),
}

/// Like [`analyze_bytes`], and hands back the content as read, for a viewer that shows any
/// line of it (the page).
///
/// It takes the bytes by value: valid UTF-8 becomes the kept text without a copy.
pub fn analyze_bytes_keeping(
    bytes: Vec<u8>,
    file_name: Option<&str>,
    opts: &Options,
) -> Result<(Report, Decoded), InputError> {
    let (findings, decoded) = diagnose_bytes_keeping(bytes, file_name, opts)?;
    Ok((words::report(findings, opts.lang), decoded))
}

/// The findings of [`analyze_bytes_keeping`], before the words.
pub fn diagnose_bytes_keeping(
    bytes: Vec<u8>,
    file_name: Option<&str>,
    opts: &Options,
) -> Result<(Findings, Decoded), InputError> {
    let kind = classify(&bytes, file_name, input::sniff(&bytes, file_name))?;
    if let Kind::Notebook(nb) = kind {
        return Ok((diagnose_parsed(&nb, opts), Decoded::Notebook(nb)));
    }
    // (The runtime log is read only now: a notebook places it among its cells itself.)
    let mut a = TextAnalyzer::new();
    a.runtime_log(opts);
    match kind {
        Kind::Notebook(_) => unreachable!("returned above"),
        Kind::Utf16(text) => {
            a.feed(text.as_bytes());
            return Ok((a.finish_findings(opts), Decoded::Text(text)));
        }
        Kind::Utf8(_) => {}
    }
    let mut bytes = bytes;
    if bytes.starts_with(b"\xef\xbb\xbf") {
        bytes.drain(..3);
    }
    // The scanner checks the bytes as it reads them (where they are not plain ASCII): valid
    // text is kept as it is, else with the invalid sequences replaced.
    a.feed(&bytes);
    let (findings, valid) = a.finish_checked(opts);
    Ok((findings, Decoded::Text(kept_text(bytes, valid))))
}

/// The text of a log's bytes: as they are when `valid` (the scanner found them all UTF-8),
/// else with the invalid sequences replaced.
fn kept_text(bytes: Vec<u8>, valid: bool) -> String {
    if valid {
        // SAFETY: `finish_checked` says the bytes are UTF-8 only when the scanner's check, which
        // accepts exactly what `str::from_utf8` accepts (tested against it), passed them all.
        unsafe { String::from_utf8_unchecked(bytes) }
    } else {
        String::from_utf8_lossy(&bytes).into_owned()
    }
}

enum Kind<'a> {
    Notebook(Notebook),
    Utf16(String),
    Utf8(&'a [u8]),
}

fn classify<'a>(bytes: &'a [u8], file_name: Option<&str>, sniff: Sniff) -> Result<Kind<'a>, InputError> {
    let whole = match sniff {
        Sniff::Binary(e) => return Err(e),
        Sniff::Whole => true,
        Sniff::Stream => false,
    };
    let utf16 = input::utf16_order(bytes).map(|le| input::decode_utf16(bytes, le));
    if whole {
        let content = utf16.as_ref().map_or(bytes, |t| t.as_bytes());
        // Valid text (nearly every notebook) is read as it is, without the lossy copy.
        let text = match crate::find::utf8_check(content) {
            // SAFETY: `utf8_check` accepts exactly what `str::from_utf8` accepts (tested against
            // it), and it skips ASCII 64 bytes at a time (std's check is a byte at a time in
            // the package).
            Ok(()) => std::borrow::Cow::Borrowed(unsafe { std::str::from_utf8_unchecked(content) }),
            Err(_) => String::from_utf8_lossy(content),
        };
        match input::parse_notebook(&text) {
            Ok(nb) => return Ok(Kind::Notebook(nb)),
            Err(e) if input::is_ipynb(file_name) => return Err(e),
            // JSON-looking text that is not a notebook: read it as a log.
            Err(_) => {}
        }
    }
    Ok(match utf16 {
        Some(text) => Kind::Utf16(text),
        None => Kind::Utf8(bytes),
    })
}

/// Analyses a log that arrives in chunks, with bounded memory.
///
/// Feed chunks in order; they may split lines, and characters, anywhere. UTF-16 input
/// (recognised from its first bytes) is decoded on the fly.
pub struct TextAnalyzer {
    scanner: Scanner,
    /// Where the input comes from, when the caller says (`colab`).
    host: Option<&'static str>,
    /// The first bytes, held until the encoding is known.
    head: Vec<u8>,
    encoding: Option<Encoding>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Encoding {
    Utf8,
    Utf16 {
        little_endian: bool,
    },
    /// A runtime log (its first line says so): held whole, then read oldest row first.
    RuntimeLog,
}

/// A runtime log given as the input is held whole up to this size (the viewer's rows are a
/// few megabytes at most); past it, it is read as the text it is.
const MAX_HELD_LOG: usize = 64 << 20;

/// Bytes looked at before deciding the encoding (fewer when the input is shorter).
const SNIFF: usize = 1024;

impl Default for TextAnalyzer {
    fn default() -> Self {
        TextAnalyzer::new()
    }
}

impl TextAnalyzer {
    /// A new analyzer.
    pub fn new() -> TextAnalyzer {
        TextAnalyzer { scanner: Scanner::new(), host: None, head: Vec::new(), encoding: None }
    }

    /// Reads the runtime log of `opts`, if any, before the log itself (the kernel printed its
    /// lines before Python raised the error). Call it before feeding anything.
    pub fn runtime_log(&mut self, opts: &Options) {
        self.scanner.count_quoted(opts.count_quoted);
        if let Some((info, rows)) = log_rows(opts) {
            self.scanner.runtime_log(info, &rows);
        }
        if opts.colab() {
            self.host = Some("colab");
        }
    }

    /// Reads the next chunk.
    pub fn feed(&mut self, chunk: &[u8]) {
        match self.encoding {
            None => {
                // Hold only what deciding needs; the rest of the chunk goes straight through.
                let take = SNIFF.saturating_sub(self.head.len()).min(chunk.len());
                self.head.extend_from_slice(&chunk[..take]);
                if self.head.len() >= SNIFF {
                    self.decide();
                    self.feed(&chunk[take..]);
                }
            }
            Some(Encoding::Utf8) => self.scanner.feed(chunk),
            Some(Encoding::RuntimeLog) => {
                self.head.extend_from_slice(chunk);
                if self.head.len() > MAX_HELD_LOG {
                    self.encoding = Some(Encoding::Utf8);
                    let held = std::mem::take(&mut self.head);
                    self.scanner.feed(&held);
                }
            }
            Some(Encoding::Utf16 { little_endian }) => {
                self.head.extend_from_slice(chunk);
                self.feed_utf16(little_endian, false);
            }
        }
    }

    /// Reads text already known to be UTF-8 without a byte-order mark (all of it, before
    /// anything else), without checking it again.
    fn feed_text(&mut self, text: &str) {
        debug_assert!(self.encoding.is_none() && self.head.is_empty());
        self.encoding = Some(Encoding::Utf8);
        if runtime_log::looks_like(text.as_bytes()) {
            if let Some(log) = runtime_log::parse(text) {
                return self.read_log_input(log, text.len());
            }
        }
        self.scanner.feed_str(text);
    }

    /// Reads a runtime log given as the input itself: its rows oldest first, each at its line.
    fn read_log_input(&mut self, log: runtime_log::RuntimeLog, bytes: usize) {
        let info = facts::LogInfo {
            form: log.form,
            rows: log.rows.len() as u64,
            total: log.rows.len() as u64,
            newest_first: log.newest_first,
        };
        self.scanner.log_as_input(info, &log.rows, bytes as u64);
    }

    fn decide(&mut self) {
        let head = std::mem::take(&mut self.head);
        match input::utf16_order(&head) {
            Some(le) => {
                self.encoding = Some(Encoding::Utf16 { little_endian: le });
                let bom: &[u8] = if le { b"\xff\xfe" } else { b"\xfe\xff" };
                self.head = head.strip_prefix(bom).unwrap_or(&head).to_vec();
                self.feed_utf16(le, false);
            }
            None if runtime_log::looks_like(&head) => {
                self.encoding = Some(Encoding::RuntimeLog);
                self.head = head.strip_prefix(b"\xef\xbb\xbf").unwrap_or(&head).to_vec();
            }
            None => {
                self.encoding = Some(Encoding::Utf8);
                self.scanner.feed(head.strip_prefix(b"\xef\xbb\xbf").unwrap_or(&head));
            }
        }
    }

    /// Decodes the whole code units held in `head`, keeping an odd byte or a lone high
    /// surrogate for the next chunk unless `last`.
    fn feed_utf16(&mut self, le: bool, last: bool) {
        let mut n = self.head.len() & !1;
        let unit = |b: &[u8]| if le { u16::from_le_bytes([b[0], b[1]]) } else { u16::from_be_bytes([b[0], b[1]]) };
        if !last && n >= 2 && (0xd800..0xdc00).contains(&unit(&self.head[n - 2..n])) {
            n -= 2;
        }
        let units = self.head[..n].chunks_exact(2).map(unit);
        let text: String = char::decode_utf16(units).map(|r| r.unwrap_or('\u{fffd}')).collect();
        self.head.drain(..n);
        if last && !self.head.is_empty() {
            self.head.clear();
        }
        self.scanner.feed_str(&text);
    }

    /// The line of the earliest device-side assert read so far ([`Scanner::assert_seen`]).
    pub fn assert_seen(&self) -> Option<u64> {
        self.scanner.assert_seen()
    }

    /// Ends the input and returns the report.
    pub fn finish(self, opts: &Options) -> Report {
        words::report(self.finish_findings(opts), opts.lang)
    }

    /// Ends the input and returns the findings ([`TextAnalyzer::finish`] before the words).
    pub fn finish_findings(self, opts: &Options) -> Findings {
        self.finish_checked(opts).0
    }

    /// Ends the input and returns the findings, and whether every byte fed was UTF-8 (UTF-16
    /// input never is).
    fn finish_checked(mut self, opts: &Options) -> (Findings, bool) {
        if self.encoding.is_none() {
            self.decide();
        }
        if let Some(Encoding::Utf16 { little_endian }) = self.encoding {
            self.feed_utf16(little_endian, true);
        }
        let mut held_valid = None;
        if self.encoding == Some(Encoding::RuntimeLog) {
            let held = std::mem::take(&mut self.head);
            let text = String::from_utf8_lossy(&held);
            held_valid = Some(matches!(text, std::borrow::Cow::Borrowed(_)));
            match runtime_log::parse(&text) {
                Some(log) => self.read_log_input(log, held.len()),
                None => self.scanner.feed(&held),
            }
        }
        let facts = self.scanner.finish();
        let valid = match self.encoding {
            Some(Encoding::Utf16 { .. }) => false,
            _ => held_valid.unwrap_or(!facts.stats.lossy_utf8),
        };
        // A runtime log given as the input, rather than beside it.
        let format =
            if facts.runtime_log.is_some() && opts.runtime_log.is_none() { InputFormat::RuntimeLog } else { InputFormat::Text };
        let ctx = InputContext { host: self.host, kernel: opts.kernel.clone(), index: opts.index.clone(), ..InputContext::default() };
        (diagnose::diagnose(facts, &ctx, format), valid)
    }
}

fn diagnose_parsed(nb: &Notebook, opts: &Options) -> Findings {
    let run = notebook::Run::of(nb, opts.colab());
    let mut s = Scanner::new();
    s.count_quoted(opts.count_quoted);
    // A runtime log goes where its kernel lines were printed: while the first cell that
    // reports a device-side assert ran (else after the last cell).
    let mut log = log_rows(opts);
    let failing = log.as_ref().and_then(|_| run.first_assert_run());
    for (at, c) in run.order.iter().enumerate() {
        if failing == Some(at) {
            if let Some((info, rows)) = log.take() {
                s.runtime_log(info, &rows);
            }
        }
        if !run.reads(c) {
            continue;
        }
        s.begin_cell(c.index, c.execution_count);
        for (oi, o) in c.outputs.iter().enumerate() {
            s.begin_output(oi as u32);
            s.feed_str(&o.text);
        }
    }
    if let Some((info, rows)) = log {
        s.runtime_log(info, &rows);
    }
    let ctx = InputContext { kernel: opts.kernel.clone(), index: opts.index.clone(), ..run.ctx };
    diagnose::diagnose(s.finish(), &ctx, nb.format)
}
