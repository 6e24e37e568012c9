//! `first-assert triage [--jobs N] [--format table|jsonl|csv] PATH...`: a fleet's logs (files and
//! folders, recursively; gzipped ones read as they are, by their first bytes), read in parallel,
//! each streamed as the command reads one log (bounded memory), and written as one row per file
//! or as the groups of first asserts by where and why. A file that cannot be read or decoded is
//! a row with its error: nothing is lost and nothing stops the run.
//!
//! This file reads files and writes rows; what a row and a group are is `crate::triage`'s.

use super::{io_reason, mapped, read_stream, with_usage};
use crate::pipeline::{self, Options};
use crate::report::Report;
use crate::text::{Lang, Msg};
use crate::triage::{self, Row};
use std::ffi::OsString;
use std::fs::File;
use std::io::{self, BufReader, IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;

#[cfg(test)]
mod tests {
    #[test]
    fn utc_dates() {
        assert_eq!(super::utc(0), "1970-01-01 00:00:00 UTC");
        assert_eq!(super::utc(1_764_749_710), "2025-12-03 08:15:10 UTC");
        assert_eq!(super::utc(951_782_400), "2000-02-29 00:00:00 UTC");
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Format {
    Table,
    Jsonl,
    Csv,
}

struct Args {
    jobs: usize,
    format: Format,
    lang: Lang,
    paths: Vec<PathBuf>,
}

fn parse(l: Lang, args: Vec<OsString>) -> Result<Option<Args>, String> {
    let jobs = std::thread::available_parallelism().map_or(1, |n| n.get());
    let format = if io::stdout().is_terminal() { Format::Table } else { Format::Jsonl };
    let mut a = Args { jobs, format, lang: l, paths: Vec::new() };
    let mut it = args.into_iter();
    let mut only_paths = false;
    while let Some(arg) = it.next() {
        let s = arg.to_string_lossy().into_owned();
        let (flag, inline) = match s.split_once('=') {
            Some((f, v)) if f.starts_with("--") && !only_paths => (f.to_string(), Some(v.to_string())),
            _ => (s.clone(), None),
        };
        let mut value = |name: &str| -> Result<String, String> {
            inline.clone().or_else(|| it.next().map(|v| v.to_string_lossy().into_owned())).ok_or_else(|| {
                with_usage(l, Msg::CliErrNeedsValue.fill(l, &[("option", &name)]))
            })
        };
        match flag.as_str() {
            _ if only_paths => a.paths.push(PathBuf::from(arg)),
            "-h" | "--help" => {
                println!("{}", Msg::CliTriageUsage.text(l).trim_start_matches('\n'));
                return Ok(None);
            }
            "-j" | "--jobs" => {
                let v = value("--jobs")?;
                a.jobs = v.parse().ok().filter(|&n| n > 0).ok_or_else(|| Msg::CliErrBadJobs.fill(l, &[("value", &v)]))?;
            }
            "--format" => {
                let v = value("--format")?;
                a.format = match v.as_str() {
                    "table" => Format::Table,
                    "jsonl" => Format::Jsonl,
                    "csv" => Format::Csv,
                    _ => return Err(Msg::CliErrBadTriageFormat.fill(l, &[("value", &v)])),
                };
            }
            "--lang" => {
                let v = value("--lang")?;
                a.lang = Lang::from_tag(&v).filter(|_| matches!(v.as_str(), "en" | "zh")).ok_or_else(|| Msg::CliErrBadLang.fill(l, &[("value", &v)]))?;
            }
            "--" => only_paths = true,
            f if f.starts_with('-') && f != "-" => {
                return Err(with_usage(l, Msg::CliErrUnknownOption.fill(l, &[("option", &f)])))
            }
            _ => a.paths.push(PathBuf::from(arg)),
        }
    }
    if a.paths.is_empty() {
        return Err(format!("{}\n\n{}", Msg::CliErrTriageNoPaths.text(l), Msg::CliTriageUsage.text(l).trim_start_matches('\n')));
    }
    Ok(Some(a))
}

/// Every file under the paths (folders walked in name order, symbolic links to folders not
/// followed), and the paths that could not be listed, with why.
fn files(paths: &[PathBuf], l: Lang) -> (Vec<PathBuf>, Vec<Row>) {
    let (mut out, mut errors) = (Vec::new(), Vec::new());
    let mut stack: Vec<PathBuf> = paths.iter().rev().cloned().collect();
    while let Some(p) = stack.pop() {
        let meta = match std::fs::metadata(&p) {
            Ok(m) => m,
            Err(e) => {
                errors.push(triage::error_row(&p.to_string_lossy(), &io_reason(&e, l)));
                continue;
            }
        };
        if !meta.is_dir() {
            out.push(p);
            continue;
        }
        let is_link = std::fs::symlink_metadata(&p).is_ok_and(|m| m.file_type().is_symlink());
        if is_link && !paths.contains(&p) {
            continue;
        }
        match std::fs::read_dir(&p) {
            Ok(entries) => {
                let mut children: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
                children.sort();
                stack.extend(children.into_iter().rev());
            }
            Err(e) => errors.push(triage::error_row(&p.to_string_lossy(), &io_reason(&e, l))),
        }
    }
    (out, errors)
}

/// A file's row: read (gzipped or not, streamed or mapped), analysed, made a row.
pub(crate) fn file_row(path: &Path, l: Lang) -> Row {
    let shown = path.to_string_lossy();
    made(&shown, read_file(path, l))
}

/// The row of a file already read (`bytes`, gzipped or not: a batch of Ray Data's, Spark's or
/// DuckDB's), as `file_row` makes it of a file on disk.
#[cfg_attr(not(feature = "python"), allow(dead_code))]
pub(crate) fn bytes_row(path: &str, bytes: &[u8], l: Lang) -> Row {
    made(path, read_bytes(path, bytes, l))
}

fn made(path: &str, found: Result<Found, String>) -> Row {
    match found {
        Ok(Found::Report(r)) => triage::row(path, &r),
        Ok(Found::ErrorFile(r, time)) => triage::error_file_row(path, &r, time),
        Err(e) => triage::error_row(path, &e),
    }
}

/// What a file held: a log's or notebook's report, or a torchrun error file's.
enum Found {
    Report(Report),
    ErrorFile(Report, Option<u64>),
}

/// The most of a torchrun error file read (they are a traceback or two).
const MAX_ERROR_FILE: u64 = 8 << 20;

/// The name the bytes go by (`x.ipynb.gz` holds a notebook), and whether they are gzipped.
fn inner_name<'a>(name: &'a str, head: &[u8]) -> (&'a str, bool) {
    let gz = head.starts_with(&[0x1f, 0x8b]);
    let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
    (if gz { base.strip_suffix(".gz").unwrap_or(base) } else { base }, gz)
}

fn read_file(path: &Path, l: Lang) -> Result<Found, String> {
    let opts = Options::default();
    let cannot = |e: io::Error| io_reason(&e, l);
    let mut f = File::open(path).map_err(cannot)?;
    let len = f.metadata().map_err(cannot)?.len();
    let mut magic = [0u8; 2];
    let n = super::read_full(&mut f, &mut magic).map_err(cannot)?;
    let name = path.to_string_lossy();
    let (inner, gz) = inner_name(&name, &magic[..n]);
    if inner.ends_with(".json") && len <= MAX_ERROR_FILE {
        let mut bytes = Vec::new();
        File::open(path).map_err(cannot)?.take(MAX_ERROR_FILE).read_to_end(&mut bytes).map_err(cannot)?;
        if let Some(found) = error_file(&bytes, gz)? {
            return Ok(found);
        }
    }
    let f = File::open(path).map_err(cannot)?;
    if gz {
        let gz = flate2::read::MultiGzDecoder::new(BufReader::new(f));
        return read_stream(GzErrors(gz), Some(inner), &opts, l, true).map(Found::Report);
    }
    match mapped::read_log(&f, len, Some(inner), &opts, true) {
        Some(r) => Ok(Found::Report(r)),
        None => read_stream(f, Some(inner), &opts, l, true).map(Found::Report),
    }
}

#[cfg_attr(not(feature = "python"), allow(dead_code))]
fn read_bytes(path: &str, bytes: &[u8], l: Lang) -> Result<Found, String> {
    let opts = Options::default();
    let (inner, gz) = inner_name(path, bytes);
    if inner.ends_with(".json") && bytes.len() as u64 <= MAX_ERROR_FILE {
        if let Some(found) = error_file(bytes, gz)? {
            return Ok(found);
        }
    }
    if gz {
        let gz = flate2::read::MultiGzDecoder::new(bytes);
        return read_stream(GzErrors(gz), Some(inner), &opts, l, true).map(Found::Report);
    }
    read_stream(bytes, Some(inner), &opts, l, true).map(Found::Report)
}

/// A torchrun error file's report and time, or `None` for other JSON.
fn error_file(bytes: &[u8], gz: bool) -> Result<Option<Found>, String> {
    let mut text = Vec::new();
    let bytes = if gz {
        flate2::read::MultiGzDecoder::new(bytes).take(MAX_ERROR_FILE).read_to_end(&mut text).map_err(|e| format!("gzip: {e}"))?;
        &text[..]
    } else {
        bytes
    };
    let Some(e) = triage::error_file(&String::from_utf8_lossy(bytes)) else { return Ok(None) };
    Ok(Some(Found::ErrorFile(pipeline::analyze_text(&e.text, &Options::default()), e.time)))
}

/// A gzip stream whose corruption reads as an error that says so.
struct GzErrors<R>(R);

impl<R: Read> Read for GzErrors<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.0.read(buf).map_err(|e| io::Error::new(e.kind(), format!("gzip: {e}")))
    }
}

/// Reads every file on `jobs` threads: the rows in path order. `progress` is told each file's
/// size when it is done.
fn read_all(files: &[PathBuf], jobs: usize, l: Lang, progress: &(dyn Fn(u64) + Sync)) -> Vec<Row> {
    let next = AtomicUsize::new(0);
    let rows: Vec<Mutex<Option<Row>>> = files.iter().map(|_| Mutex::new(None)).collect();
    std::thread::scope(|s| {
        for _ in 0..jobs.min(files.len()).max(1) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(path) = files.get(i) else { break };
                let row = file_row(path, l);
                progress(std::fs::metadata(path).map_or(0, |m| m.len()));
                if let Ok(mut slot) = rows[i].lock() {
                    *slot = Some(row);
                }
            });
        }
    });
    rows.into_iter().filter_map(|m| m.into_inner().ok().flatten()).collect()
}

/// A progress line on stderr, rewritten in place, when stderr is a terminal and the run is long.
struct Progress {
    on: bool,
    total: usize,
    done: AtomicUsize,
    bytes: AtomicU64,
    shown: Mutex<std::time::Instant>,
    lang: Lang,
}

impl Progress {
    fn tick(&self, size: u64) {
        let done = self.done.fetch_add(1, Ordering::Relaxed) + 1;
        let bytes = self.bytes.fetch_add(size, Ordering::Relaxed) + size;
        if !self.on {
            return;
        }
        let Ok(mut last) = self.shown.try_lock() else { return };
        if last.elapsed().as_millis() < 100 && done < self.total {
            return;
        }
        *last = std::time::Instant::now();
        let width = 24;
        let filled = done * width / self.total.max(1);
        let bar: String = "#".repeat(filled) + &"-".repeat(width - filled);
        let mb = bytes as f64 / 1e6;
        let line = Msg::CliTriageProgress.fill(self.lang, &[("done", &done), ("total", &self.total), ("mb", &format!("{mb:.0}"))]);
        let _ = write!(io::stderr(), "\r[{bar}] {line}");
        if done == self.total {
            let _ = writeln!(io::stderr());
        }
    }
}

/// The rows of every file under `paths`, in path order, read on `jobs` threads (the Python
/// package's `triage`).
#[cfg_attr(not(feature = "python"), allow(dead_code))]
pub(crate) fn rows_of(paths: &[PathBuf], jobs: usize, l: Lang) -> Vec<Row> {
    let (files, mut rows) = files(paths, l);
    rows.extend(read_all(&files, jobs, l, &|_| {}));
    rows.sort_by(|x, y| x.path.cmp(&y.path));
    rows
}

/// The rows of files already read, in their order, on `jobs` threads.
#[cfg_attr(not(feature = "python"), allow(dead_code))]
pub(crate) fn rows_of_bytes(items: &[(String, Vec<u8>)], jobs: usize, l: Lang) -> Vec<Row> {
    let next = AtomicUsize::new(0);
    let rows: Vec<Mutex<Option<Row>>> = items.iter().map(|_| Mutex::new(None)).collect();
    std::thread::scope(|s| {
        for _ in 0..jobs.min(items.len()).max(1) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some((path, bytes)) = items.get(i) else { break };
                let row = bytes_row(path, bytes, l);
                if let Ok(mut slot) = rows[i].lock() {
                    *slot = Some(row);
                }
            });
        }
    });
    rows.into_iter().filter_map(|m| m.into_inner().ok().flatten()).collect()
}

/// The grouped table of rows, as `triage` prints it (the Python package's `triage_table`).
#[cfg_attr(not(feature = "python"), allow(dead_code))]
pub(crate) fn table_of(rows: &[Row], l: Lang) -> String {
    table(rows, l)
}

pub(crate) fn run(l: Lang, args: Vec<OsString>) -> Result<ExitCode, String> {
    let Some(a) = parse(l, args)? else { return Ok(ExitCode::SUCCESS) };
    let (files, mut rows) = files(&a.paths, a.lang);
    let progress = Progress {
        on: io::stderr().is_terminal() && files.len() >= 20,
        total: files.len(),
        done: AtomicUsize::new(0),
        bytes: AtomicU64::new(0),
        shown: Mutex::new(std::time::Instant::now()),
        lang: a.lang,
    };
    rows.extend(read_all(&files, a.jobs, a.lang, &|n| progress.tick(n)));
    rows.sort_by(|x, y| x.path.cmp(&y.path));
    let found = rows.iter().any(|r| r.verdict == "device_assert" || r.verdict == "confirmed");
    let out = match a.format {
        Format::Jsonl => rows.iter().map(|r| serde_json::to_string(r).unwrap_or_default() + "\n").collect(),
        Format::Csv => csv(&rows),
        Format::Table => table(&rows, a.lang),
    };
    let mut stdout = io::stdout().lock();
    if let Err(e) = stdout.write_all(out.as_bytes()).and_then(|_| stdout.flush()) {
        if e.kind() != io::ErrorKind::BrokenPipe {
            return Err(Msg::CliErrCannotWrite.fill(l, &[("reason", &e)]));
        }
    }
    Ok(if found { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// A CSV field: quoted when it holds a comma, a quote or a line break.
fn field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// The rows as CSV (RFC 4180), flat.
fn csv(rows: &[Row]) -> String {
    let mut out = String::from("path,verdict,line,first_assert,site,category,cause,confidence,rank,group,error\n");
    for r in rows {
        let fa = r.first_assert.as_ref();
        let cells = [
            r.path.clone(),
            r.verdict.clone(),
            fa.map_or(String::new(), |f| f.line.to_string()),
            fa.map_or(String::new(), |f| f.text.clone()),
            r.site.clone().unwrap_or_default(),
            r.cause.as_ref().map_or(String::new(), |c| c.category.clone()),
            r.cause.as_ref().map_or(String::new(), |c| c.id.clone()),
            r.cause.as_ref().map_or(String::new(), |c| format!("{:.2}", c.confidence)),
            r.rank.map_or(String::new(), |n| n.to_string()),
            r.group.clone(),
            r.error.clone().unwrap_or_default(),
        ];
        out.push_str(&cells.iter().map(|c| field(c)).collect::<Vec<_>>().join(","));
        out.push('\n');
    }
    out
}

/// The groups, largest first: count, ranks, cause, site, an example path; then torchrun's
/// first failures by job; then a summary line.
fn table(rows: &[Row], l: Lang) -> String {
    // torchrun's error files say which rank failed first (below); the groups are the logs'.
    let logs: Vec<Row> = rows.iter().filter(|r| !r.elastic.as_ref().is_some_and(|e| e.error_time.is_some())).cloned().collect();
    let groups = triage::groups(&logs);
    let mut out = String::new();
    let _ = writeln!(out, "{:>6}  {:>5}  {:<28}  {}", Msg::CliTriageCount.text(l), Msg::CliTriageRanks.text(l), Msg::CliTriageCause.text(l), Msg::CliTriageSite.text(l));
    for g in &groups {
        let cause = g.cause.clone().unwrap_or_else(|| g.verdict.clone());
        let site = g.site.clone().unwrap_or_else(|| "-".into());
        let ranks = if g.ranks > 0 { g.ranks.to_string() } else { "-".into() };
        let _ = writeln!(out, "{:>6}  {:>5}  {:<28}  {}", g.count, ranks, cut(&cause, 28), cut(&site, 100));
        let _ = writeln!(out, "{:>6}  {:>5}  {:<28}  {} {}", "", "", "", Msg::CliTriageExample.text(l), g.example);
    }
    let firsts = triage::first_failures(rows);
    if !firsts.is_empty() {
        let _ = writeln!(out, "\n{}", Msg::CliTriageFirsts.text(l));
        for j in firsts {
            let ranks = j.ranks.iter().map(u32::to_string).collect::<Vec<_>>().join(", ");
            let msg = if j.ranks.len() > 1 { Msg::CliTriageTie } else { Msg::CliTriageFirst };
            let _ = writeln!(out, "  {}: {}", j.job, msg.fill(l, &[("ranks", &ranks), ("time", &utc(j.time))]));
        }
    }
    let asserts = logs.iter().filter(|r| r.verdict == "device_assert").count();
    let errors = logs.iter().filter(|r| r.error.is_some()).count();
    let summary = [("files", &logs.len() as &dyn std::fmt::Display), ("asserts", &asserts), ("groups", &groups.len()), ("errors", &errors)];
    let _ = writeln!(out, "\n{}", Msg::CliTriageSummary.fill(l, &summary));
    if logs.len() < rows.len() {
        let _ = writeln!(out, "{}", Msg::CliTriageErrorFiles.fill(l, &[("n", &(rows.len() - logs.len()))]));
    }
    out
}

/// Unix seconds as a UTC date and time (`2026-12-03 08:15:10 UTC`).
fn utc(secs: u64) -> String {
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02} UTC", rem / 3600, rem / 60 % 60, rem % 60)
}

fn cut(s: &str, n: usize) -> String {
    let s = crate::sanitize::sanitize(s);
    match s.char_indices().nth(n) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s,
    }
}

use std::fmt::Write as _;
