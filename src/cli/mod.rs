//! The `first-assert` command: reads a log or a notebook, prints the report. The native binary
//! (`main.rs`) and the Python package's `first-assert` (`python.rs`) both run [`main_with`], so
//! the two print the same bytes.
//!
//! This file only parses arguments, reads input and writes output; the analysis is the
//! library's, and every message comes from the catalogue (`i18n/messages.toml`).

use crate::input::{self, Sniff};
use crate::pipeline::{self, Options, TextAnalyzer};
use crate::report::{Report, Verdict};
use crate::text::{Lang, Msg};
use crate::{probe, render, share};
use std::ffi::OsString;
use std::io::{self, IsTerminal, Read, Write};
use std::process::ExitCode;

pub(crate) mod triage;

/// Notebooks are read whole; beyond this size the command refuses with a clear message.
const MAX_NOTEBOOK: u64 = 512 << 20;
/// A runtime log given with `--log` is read whole, up to this size.
const MAX_RUNTIME_LOG: u64 = 64 << 20;
/// The size of each read from a log.
const CHUNK: usize = 1 << 20;

/// What the report is printed as.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Format {
    Text,
    Json,
    /// Markdown to paste into an issue or a forum post, personal data hidden unless
    /// `--no-redact`.
    Markdown,
    /// The kernel's card: self-contained HTML (`src/card.rs`).
    Html,
}

struct Args {
    format: Format,
    /// `--no-redact`: keep personal data in a Markdown report.
    keep_personal: bool,
    /// `--probe`: print the probe cell only.
    probe: bool,
    lang: Lang,
    color: Option<bool>,
    path: Option<String>,
    /// `--log`: the kernel's own log, read beside the input.
    log: Option<String>,
    /// `--verbose`: the rule that matched, too.
    verbose: bool,
}

/// The command with the process's arguments.
pub fn main() -> ExitCode {
    main_with(std::env::args_os().skip(1).collect())
}

/// The command with `args` (the arguments after the program's name).
pub fn main_with(args: Vec<OsString>) -> ExitCode {
    let lang = ui_lang(&args);
    match run(lang, args) {
        Ok(code) => code,
        Err(msg) => {
            // Line by line: the usage's newlines stay newlines, other control characters show.
            let msg = msg.split('\n').map(render::sanitize).collect::<Vec<_>>().join("\n");
            let _ = writeln!(io::stderr(), "{}", Msg::CliErrPrefix.fill(lang, &[("message", &msg)]));
            ExitCode::from(2)
        }
    }
}

/// The language of messages: `--lang` when given and valid, else the environment's.
fn ui_lang(args: &[OsString]) -> Lang {
    let args: Vec<String> = args.iter().map(|a| a.to_string_lossy().into_owned()).collect();
    for (i, a) in args.iter().enumerate() {
        let v = match a.strip_prefix("--lang=") {
            Some(v) => Some(v),
            None if a == "--lang" => args.get(i + 1).map(String::as_str),
            None => None,
        };
        if let Some(l) = v.and_then(Lang::from_tag) {
            return l;
        }
    }
    env_lang()
}

fn env_lang() -> Lang {
    for var in ["LC_ALL", "LC_MESSAGES", "LANG"] {
        if let Ok(v) = std::env::var(var) {
            if !v.is_empty() {
                return Lang::from_tag(&v).unwrap_or(Lang::En);
            }
        }
    }
    Lang::En
}

fn usage(l: Lang) -> &'static str {
    Msg::CliUsage.text(l).trim_start_matches('\n')
}

fn with_usage(l: Lang, msg: String) -> String {
    format!("{msg}\n\n{}", usage(l))
}

fn parse_args(l: Lang, args: Vec<OsString>) -> Result<Option<Args>, String> {
    let mut a =
        Args { format: Format::Text, keep_personal: false, probe: false, lang: l, color: None, path: None, log: None, verbose: false };
    let mut it = args.into_iter();
    let mut only_paths = false;
    while let Some(arg) = it.next() {
        let arg = arg.into_string().map_err(|a| a.to_string_lossy().into_owned())?;
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") && !only_paths => (f.to_string(), Some(v.to_string())),
            _ => (arg.clone(), None),
        };
        let mut value = |name: &str| -> Result<String, String> {
            match &inline {
                Some(v) => Ok(v.clone()),
                None => it
                    .next()
                    .and_then(|v| v.into_string().ok())
                    .ok_or_else(|| with_usage(l, Msg::CliErrNeedsValue.fill(l, &[("option", &name)]))),
            }
        };
        match flag.as_str() {
            _ if only_paths => set_path(&mut a, arg, l)?,
            "-h" | "--help" => {
                println!("{}", usage(l));
                return Ok(None);
            }
            "-V" | "--version" => {
                println!("first-assert {}", env!("CARGO_PKG_VERSION"));
                return Ok(None);
            }
            "--json" => a.format = Format::Json,
            "--format" => {
                let v = value("--format")?;
                a.format = match v.as_str() {
                    "text" => Format::Text,
                    "json" => Format::Json,
                    "markdown" | "md" => Format::Markdown,
                    "html" => Format::Html,
                    _ => return Err(Msg::CliErrBadFormat.fill(l, &[("value", &v)])),
                };
            }
            "--no-redact" => a.keep_personal = true,
            "-v" | "--verbose" => a.verbose = true,
            "--probe" => a.probe = true,
            "--lang" => {
                let v = value("--lang")?;
                a.lang = match v.as_str() {
                    "en" => Lang::En,
                    "zh" => Lang::Zh,
                    _ => return Err(Msg::CliErrBadLang.fill(l, &[("value", &v)])),
                };
            }
            "--color" | "--colour" => {
                let v = value("--color")?;
                a.color = match v.as_str() {
                    "auto" => None,
                    "always" => Some(true),
                    "never" => Some(false),
                    _ => return Err(Msg::CliErrBadColor.fill(l, &[("value", &v)])),
                };
            }
            "--log" => a.log = Some(value("--log")?),
            "--" => only_paths = true,
            "-" => set_path(&mut a, arg, l)?,
            f if f.starts_with('-') => return Err(with_usage(l, Msg::CliErrUnknownOption.fill(l, &[("option", &f)]))),
            _ => set_path(&mut a, arg, l)?,
        }
    }
    Ok(Some(a))
}

/// The package index a notebook's steps install the extension from: `FIRST_ASSERT_INDEX`
/// (`https://…/simple/`, the site make dist writes), else none (the steps give the probe cell).
fn index(l: Lang) -> Result<Option<String>, String> {
    let Some(v) = std::env::var("FIRST_ASSERT_INDEX").ok().filter(|v| !v.trim().is_empty()) else { return Ok(None) };
    let v = v.trim();
    let ok = (v.starts_with("https://") || v.starts_with("http://")) && !v.contains(char::is_whitespace) && v.len() > 8;
    if !ok {
        return Err(Msg::CliErrBadIndex.fill(l, &[("value", &v)]));
    }
    Ok(Some(if v.ends_with('/') { v.to_string() } else { format!("{v}/") }))
}

fn set_path(a: &mut Args, p: String, l: Lang) -> Result<(), String> {
    if a.path.is_some() {
        return Err(with_usage(l, Msg::CliErrOneFile.text(l).to_string()));
    }
    a.path = Some(p);
    Ok(())
}

fn run(l: Lang, args: Vec<OsString>) -> Result<ExitCode, String> {
    // `first-assert triage PATH...`: a fleet's logs (a file named `triage` is `./triage`).
    if args.first().is_some_and(|a| a == "triage") {
        return triage::run(l, args[1..].to_vec());
    }
    let Some(args) = parse_args(l, args)? else { return Ok(ExitCode::SUCCESS) };
    let mut opts = Options::lang(args.lang);
    opts.index = index(l)?;
    if let Some(path) = &args.log {
        opts.runtime_log = Some(read_log(path, l)?);
    }
    if args.format == Format::Markdown && !args.probe {
        return markdown(&args, &opts, l);
    }
    let (report, source) = match args.path.as_deref() {
        None | Some("-") => {
            let stdin = io::stdin();
            if args.path.is_none() && stdin.is_terminal() {
                return Err(with_usage(l, Msg::CliErrNoInput.text(l).to_string()));
            }
            (read_stream(stdin.lock(), None, &opts, l, false)?, "<stdin>".to_string())
        }
        Some(path) => {
            let cannot =
                |e: io::Error| Msg::CliErrCannotRead.fill(l, &[("path", &path), ("reason", &io_reason(&e, l))]);
            let meta = std::fs::metadata(path).map_err(cannot)?;
            if meta.is_dir() {
                return Err(Msg::CliErrIsDir.fill(l, &[("path", &path)]));
            }
            let f = std::fs::File::open(path).map_err(cannot)?;
            let report = match mapped::read_log(&f, meta.len(), Some(path), &opts, false) {
                Some(r) => r,
                None => read_stream(f, Some(path), &opts, l, false)?,
            };
            (report, path.to_string())
        }
    };
    let mut out = io::stdout().lock();
    let written = if args.probe {
        // With no assert in the input there is no suspect: the probe checks every op alike.
        let probe = report.probe.clone().unwrap_or_else(|| probe::probe(report.lang, None));
        if report.verdict != Verdict::DeviceAssert {
            let _ = writeln!(io::stderr(), "{}", Msg::CliProbeNoAssert.text(l));
        }
        write!(out, "{}", probe.code)
    } else if args.format == Format::Json {
        let s = serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?;
        writeln!(out, "{s}")
    } else if args.format == Format::Html {
        writeln!(out, "{}", crate::card::html(&report))
    } else {
        let color = args.color.unwrap_or_else(|| {
            io::stdout().is_terminal()
                && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                && std::env::var("TERM").map_or(true, |t| t != "dumb")
        });
        write!(
            out,
            "{}",
            render::text(&report, &render::TextOptions { color, source: Some(source), log_source: args.log.clone(), verbose: args.verbose })
        )
    };
    if let Err(e) = written.and_then(|_| out.flush()) {
        // A reader that went away (`| head`) is not an error worth reporting.
        if e.kind() != io::ErrorKind::BrokenPipe {
            return Err(Msg::CliErrCannotWrite.fill(l, &[("reason", &e)]));
        }
    }
    Ok(if matches!(report.verdict, Verdict::DeviceAssert | Verdict::Confirmed) { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// `--format markdown`: the input read whole (a report to share is about what a user can
/// paste or attach), analysed, and written as Markdown with the versions it shows.
fn markdown(args: &Args, opts: &Options, l: Lang) -> Result<ExitCode, String> {
    let name = args.path.as_deref().filter(|p| *p != "-");
    let cannot = |e: io::Error| {
        Msg::CliErrCannotRead.fill(l, &[("path", &name.unwrap_or("<stdin>")), ("reason", &io_reason(&e, l))])
    };
    let mut bytes = Vec::new();
    match name {
        Some(path) => {
            if std::fs::metadata(path).map_err(cannot)?.is_dir() {
                return Err(Msg::CliErrIsDir.fill(l, &[("path", &path)]));
            }
            std::fs::File::open(path).and_then(|f| f.take(MAX_NOTEBOOK + 1).read_to_end(&mut bytes)).map_err(cannot)?
        }
        None if args.path.is_none() && io::stdin().is_terminal() => {
            return Err(with_usage(l, Msg::CliErrNoInput.text(l).to_string()))
        }
        None => io::stdin().lock().take(MAX_NOTEBOOK + 1).read_to_end(&mut bytes).map_err(cannot)?,
    };
    if bytes.len() as u64 > MAX_NOTEBOOK {
        return Err(Msg::CliErrShareTooLarge.fill(l, &[("mb", &(MAX_NOTEBOOK >> 20))]));
    }
    let (report, decoded) = pipeline::analyze_bytes_keeping(bytes, name, opts).map_err(|e| e.message(l))?;
    let seen = match &decoded {
        pipeline::Decoded::Text(t) => share::versions::seen(t),
        pipeline::Decoded::Notebook(nb) => share::versions::seen(&share::versions::cells_text(&nb.cells)),
    };
    let shared = share::markdown::markdown(&report, &seen, !args.keep_personal);
    if let Some(c) = shared.hidden.as_ref().filter(|c| !c.is_empty()) {
        let _ = writeln!(
            io::stderr(),
            "{}",
            Msg::CliNoteRedacted.fill(l, &[("hidden", &share::markdown::hidden_line(l, c))])
        );
    }
    let mut out = io::stdout().lock();
    if let Err(e) = out.write_all(shared.markdown.as_bytes()).and_then(|_| out.flush()) {
        if e.kind() != io::ErrorKind::BrokenPipe {
            return Err(Msg::CliErrCannotWrite.fill(l, &[("reason", &e)]));
        }
    }
    Ok(if matches!(report.verdict, Verdict::DeviceAssert | Verdict::Confirmed) { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// A runtime log (small: a viewer's rows), read whole; UTF-16 and invalid UTF-8 as the input is.
fn read_log(path: &str, l: Lang) -> Result<String, String> {
    let cannot = |e: io::Error| Msg::CliErrCannotRead.fill(l, &[("path", &path), ("reason", &io_reason(&e, l))]);
    let f = std::fs::File::open(path).map_err(cannot)?;
    if f.metadata().map_err(cannot)?.is_dir() {
        return Err(Msg::CliErrIsDir.fill(l, &[("path", &path)]));
    }
    let mut bytes = Vec::new();
    f.take(MAX_RUNTIME_LOG + 1).read_to_end(&mut bytes).map_err(cannot)?;
    if bytes.len() as u64 > MAX_RUNTIME_LOG {
        return Err(Msg::CliErrLogTooLarge.fill(l, &[("mb", &(MAX_RUNTIME_LOG >> 20))]));
    }
    Ok(input::decode_text(&bytes))
}

fn io_reason(e: &io::Error, l: Lang) -> String {
    match e.kind() {
        io::ErrorKind::NotFound => Msg::CliErrNotFound.text(l).into(),
        io::ErrorKind::PermissionDenied => Msg::CliErrPermission.text(l).into(),
        _ => e.to_string(),
    }
}

/// Reads an input: notebooks whole, logs as a stream of chunks (bounded memory).
/// (`quiet`: no note on stderr, as when many files are read at once.)
pub(crate) fn read_stream(mut r: impl Read, name: Option<&str>, opts: &Options, l: Lang, quiet: bool) -> Result<Report, String> {
    let read_err = |e: io::Error| {
        Msg::CliErrCannotRead.fill(l, &[("path", &name.unwrap_or("<stdin>")), ("reason", &io_reason(&e, l))])
    };
    let mut head = vec![0u8; 64 << 10];
    let n = read_full(&mut r, &mut head).map_err(read_err)?;
    head.truncate(n);
    let whole = match input::sniff(&head, name) {
        Sniff::Binary(e) => return Err(e.message(l)),
        Sniff::Whole => true,
        Sniff::Stream => false,
    };
    if whole {
        let mut all = head;
        r.take(MAX_NOTEBOOK + 1 - all.len() as u64).read_to_end(&mut all).map_err(read_err)?;
        if all.len() as u64 > MAX_NOTEBOOK {
            return Err(Msg::CliErrNotebookTooLarge.fill(l, &[("mb", &(MAX_NOTEBOOK >> 20))]));
        }
        return pipeline::analyze_sniffed(&all, name, Sniff::Whole, opts).map_err(|e| e.message(l));
    }
    let mut a = TextAnalyzer::new();
    a.runtime_log(opts);
    let mut text = Encoding::new(l, quiet);
    text.feed(&mut a, &head, false);
    let mut buf = vec![0u8; CHUNK];
    loop {
        match r.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => text.feed(&mut a, &buf[..n], false),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(read_err(e)),
        }
    }
    text.feed(&mut a, &[], true);
    Ok(a.finish(opts))
}

/// How a log's bytes reach the analyser: as they are (UTF-8, UTF-16 with its mark), or decoded
/// from GB18030 (a Chinese Windows console's encoding, GBK its subset) when the first non-ASCII
/// bytes are that and not UTF-8. ASCII is the same in both, so the choice is made there, and
/// said once on stderr.
pub(crate) struct Encoding {
    lang: Lang,
    /// No note on stderr.
    quiet: bool,
    decided: bool,
    /// The ASCII bytes read before a choice was made.
    ascii: usize,
    gb: Option<encoding_rs::Decoder>,
}

/// A log whose first 4 MiB are ASCII is read as UTF-8 (a Chinese console's log shows a
/// Chinese line well before that), so a long ASCII log is not looked at twice.
const DECIDE_WITHIN: usize = 4 << 20;

impl Encoding {
    pub(crate) fn new(lang: Lang, quiet: bool) -> Encoding {
        Encoding { lang, quiet, decided: false, ascii: 0, gb: None }
    }

    pub(crate) fn feed(&mut self, a: &mut TextAnalyzer, bytes: &[u8], last: bool) {
        if !self.decided {
            // Only the first DECIDE_WITHIN bytes are looked at; is_ascii reads a word at a time.
            let probe = &bytes[..bytes.len().min(DECIDE_WITHIN - self.ascii)];
            let i = if probe.is_ascii() { None } else { probe.iter().position(|b| !b.is_ascii()) };
            let Some(i) = i else {
                self.ascii += probe.len();
                self.decided = self.ascii >= DECIDE_WITHIN;
                a.feed(bytes);
                return;
            };
            a.feed(&bytes[..i]);
            self.decided = true;
            if input::is_gb18030(&bytes[i..]) {
                self.gb = Some(encoding_rs::GB18030.new_decoder_without_bom_handling());
                if !self.quiet {
                    let _ = writeln!(io::stderr(), "{}", Msg::CliNoteGb18030.text(self.lang));
                }
            }
            return self.feed(a, &bytes[i..], last);
        }
        match self.gb.as_mut() {
            Some(dec) => {
                let mut out = vec![0u8; dec.max_utf8_buffer_length(bytes.len()).unwrap_or(bytes.len() * 3 + 16)];
                let (_, _, written, _) = dec.decode_to_utf8(bytes, &mut out, last);
                a.feed(&out[..written]);
            }
            None => a.feed(bytes),
        }
    }
}

fn read_full(r: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// Log files read through a memory map, a window at a time: the engine reads the file's pages
/// where the page cache holds them, with no copy into a buffer and no read call per chunk, and
/// memory stays bounded by the window. Standard input, small files and anything that is not a
/// regular log (a notebook, a binary file, a map that fails) take the streaming path.
#[cfg(unix)]
pub(crate) mod mapped {
    use crate::input::{self, Sniff};
    use crate::pipeline::{Options, TextAnalyzer};
    use crate::report::Report;
    use std::fs::File;
    use std::os::unix::io::AsRawFd;

    /// Files smaller than this are read, not mapped (mapping costs more than it saves). It is
    /// also the first window of a file larger than [`WINDOW`] (a multiple of every page size).
    const MIN: u64 = 1 << 20;
    /// The window mapped at a time (a multiple of every page size).
    const WINDOW: u64 = 16 << 20;

    /// One mapped window of a file, unmapped when dropped.
    struct Window {
        ptr: *mut libc::c_void,
        len: usize,
    }

    impl Window {
        fn map(f: &File, offset: u64, len: usize, populate: bool) -> Option<Window> {
            let flags = if populate { libc::MAP_PRIVATE | libc::MAP_POPULATE } else { libc::MAP_PRIVATE };
            // SAFETY: a read-only private map of an open file, of a length within the file;
            // the pointer is only read through the slice below, while the map lives.
            let ptr = unsafe {
                libc::mmap(std::ptr::null_mut(), len, libc::PROT_READ, flags, f.as_raw_fd(), offset as libc::off_t)
            };
            if ptr == libc::MAP_FAILED {
                return None;
            }
            // SAFETY: the map just made; advice only.
            unsafe { libc::madvise(ptr, len, libc::MADV_SEQUENTIAL) };
            Some(Window { ptr, len })
        }

        fn bytes(&self) -> &[u8] {
            // SAFETY: `len` bytes are mapped readable at `ptr` until drop. (A file cut short
            // while it is read would fault, as it does for every tool that maps files.)
            unsafe { std::slice::from_raw_parts(self.ptr as *const u8, self.len) }
        }
    }

    // SAFETY: a window is a read-only map, used by one thread at a time (mapped by one, read by
    // another, then unmapped).
    unsafe impl Send for Window {}

    impl Drop for Window {
        fn drop(&mut self) {
            // SAFETY: unmaps exactly what `map` mapped.
            unsafe { libc::munmap(self.ptr, self.len) };
        }
    }

    /// The report on a log file, or `None` when the file is not for this path.
    pub fn read_log(f: &File, len: u64, name: Option<&str>, opts: &Options, quiet: bool) -> Option<Report> {
        if len < MIN || input::is_ipynb(name) {
            return None;
        }
        // The first window of a large file is small: its pages are faulted in as it is read,
        // while the next one is being mapped.
        let first_len = if len <= WINDOW { len } else { MIN };
        let first = Window::map(f, 0, first_len as usize, false)?;
        let head = &first.bytes()[..first.len.min(64 << 10)];
        if !matches!(input::sniff(head, name), Sniff::Stream) {
            return None;
        }
        let mut a = TextAnalyzer::new();
        a.runtime_log(opts);
        let mut text = crate::cli::Encoding::new(opts.lang, quiet);
        // While the engine reads a window, another thread maps the next one with its pages
        // in place (the kernel's work of faulting them in, a third of the time, runs beside
        // the search instead of inside it) and unmaps the one before.
        // Where no thread can be made, the same happens in turn.
        std::thread::scope(|s| {
            let mut cur = first;
            let mut offset = first_len;
            loop {
                let next = (offset < len).then(|| {
                    let n = (len - offset).min(WINDOW) as usize;
                    let map = move || Window::map(f, offset, n, true); // (Copy: tried again here)
                    std::thread::Builder::new().spawn_scoped(s, map).map_err(|_| map)
                });
                text.feed(&mut a, cur.bytes(), next.is_none());
                let next = match next {
                    None => break,
                    Some(Ok(thread)) => thread.join().ok()?,
                    Some(Err(map)) => map(),
                };
                let old = std::mem::replace(&mut cur, next?);
                // (A thread that cannot start drops `old` here.)
                let _ = std::thread::Builder::new().spawn_scoped(s, move || drop(old));
                offset += WINDOW;
            }
            Some(())
        })?;
        Some(a.finish(opts))
    }
}

#[cfg(not(unix))]
pub(crate) mod mapped {
    pub fn read_log(
        _: &std::fs::File,
        _: u64,
        _: Option<&str>,
        _: &crate::pipeline::Options,
        _: bool,
    ) -> Option<crate::report::Report> {
        None
    }
}
