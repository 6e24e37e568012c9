//! The Python package's engine, `first_assert._engine` (feature `python`, built by maturin:
//! `make wheel`): the same analysis, the same words and the same command line as the CLI and
//! the WebAssembly package, in the Python process (no subprocess). It converts values; the
//! package's Python (`python/first_assert/`) is the API.

use crate::pipeline::{self, Options};
use crate::report::Report;
use crate::text::Lang;
use crate::{card, cli, render, report_json, share};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

fn lang(tag: &str) -> PyResult<Lang> {
    Lang::from_tag(tag).ok_or_else(|| PyValueError::new_err(format!("unknown language `{tag}` (en or zh)")))
}

/// The report of `data` (a log or a notebook's bytes; `name`, a file name, says only that a
/// `.ipynb` must be a notebook) as the CLI's JSON. `kernel`: what the kernel itself saw, as
/// the JSON of the report's `input.kernel` (the notebook extension's).
#[pyfunction]
#[pyo3(signature = (data, name=None, lang="en", runtime_log=None, host=None, kernel=None))]
fn analyze(
    data: &[u8],
    name: Option<&str>,
    lang: &str,
    runtime_log: Option<String>,
    host: Option<String>,
    kernel: Option<&str>,
) -> PyResult<String> {
    let kernel = match kernel {
        Some(k) => Some(serde_json::from_str(k).map_err(|e| PyValueError::new_err(format!("not kernel facts: {e}")))?),
        None => None,
    };
    let opts = Options { lang: self::lang(lang)?, runtime_log, host, count_quoted: false, kernel, index: None };
    let l = opts.lang;
    let report = pipeline::analyze_bytes(data, name, &opts).map_err(|e| PyValueError::new_err(e.message(l)))?;
    Ok(report_json::to_string(&report))
}

/// A report (its JSON) written as `text` (the CLI's, without colour), `markdown` (the CLI's
/// `--format markdown`, personal data hidden unless `hide` is false), `html` (the kernel's
/// card) or `card` (its plain-text twin).
#[pyfunction]
#[pyo3(name = "render", signature = (report, format="text", source=None, hide=true))]
fn render_report(report: &str, format: &str, source: Option<String>, hide: bool) -> PyResult<String> {
    let r: Report = serde_json::from_str(report).map_err(|e| PyValueError::new_err(format!("not a report: {e}")))?;
    match format {
        "text" => Ok(render::text(&r, &render::TextOptions { color: false, source, log_source: None, verbose: false })),
        "markdown" => Ok(share::markdown::markdown(&r, &[], hide).markdown),
        "html" => Ok(card::html(&r)),
        "card" => Ok(card::text(&r)),
        _ => Err(PyValueError::new_err(format!("unknown format `{format}` (text, markdown, html or card)"))),
    }
}

/// The `first-assert` command with `args` (the arguments after its name): its exit status.
/// It prints to the process's own standard output and error, as the native command does.
#[pyfunction]
fn main(py: Python<'_>, args: Vec<String>) -> u8 {
    let code = py.detach(|| cli::main_with(args.into_iter().map(Into::into).collect()));
    // ExitCode has no accessor: compare with the codes the command returns.
    [0u8, 1, 2].into_iter().find(|&c| std::process::ExitCode::from(c) == code).unwrap_or(2)
}

/// A message of the kernel's (`kernel_…` in i18n/messages.toml) in `lang`, its `{name}`s filled.
#[pyfunction]
#[pyo3(signature = (key, lang="en", **values))]
fn say(key: &str, lang: &str, values: Option<std::collections::HashMap<String, String>>) -> PyResult<String> {
    let l = self::lang(lang)?;
    let m = crate::text::Msg::ALL
        .iter()
        .find(|m| m.key() == format!("kernel_{key}"))
        .ok_or_else(|| PyValueError::new_err(format!("no message kernel_{key}")))?;
    let values = values.unwrap_or_default();
    let args: Vec<(&str, &dyn std::fmt::Display)> = values.iter().map(|(k, v)| (k.as_str(), v as &dyn std::fmt::Display)).collect();
    Ok(m.fill(l, &args))
}

/// One line of the kernel's (the latch's) as the card's HTML writes it: escaped, styled alike.
#[pyfunction]
fn card_line(text: &str) -> String {
    card::line_html(text)
}

/// The probe cell's code in `lang` (what the report hands out to paste; `%first_assert isolate`
/// runs it): one copy of the checks.
#[pyfunction]
#[pyo3(signature = (lang="en"))]
fn probe(lang: &str) -> PyResult<String> {
    Ok(crate::probe::probe(self::lang(lang)?, None).code)
}

/// The rows of every file under `paths` (logs, notebooks, torchrun error files, gzipped or
/// not; folders read recursively), as a JSON array in path order, read on `jobs` threads with
/// the GIL released.
#[pyfunction]
#[pyo3(signature = (paths, jobs=None))]
fn triage(py: Python<'_>, paths: Vec<std::path::PathBuf>, jobs: Option<usize>) -> String {
    let jobs = jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    py.detach(|| serde_json::to_string(&cli::triage::rows_of(&paths, jobs, Lang::En)).unwrap_or_default())
}

/// The rows of files already read (`(path, bytes)`, gzipped or not), as a JSON array in their
/// order, on `jobs` threads with the GIL released.
#[pyfunction]
#[pyo3(signature = (items, jobs=None))]
fn triage_bytes(py: Python<'_>, items: Vec<(String, Vec<u8>)>, jobs: Option<usize>) -> String {
    let jobs = jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    py.detach(|| serde_json::to_string(&cli::triage::rows_of_bytes(&items, jobs, Lang::En)).unwrap_or_default())
}

/// The grouped table of rows (their JSON array), as `first-assert triage` prints it.
#[pyfunction]
#[pyo3(signature = (rows, lang="en"))]
fn triage_table(rows: &str, lang: &str) -> PyResult<String> {
    let l = self::lang(lang)?;
    let rows: Vec<crate::triage::Row> = serde_json::from_str(rows).map_err(|e| PyValueError::new_err(format!("not triage rows: {e}")))?;
    Ok(cli::triage::table_of(&rows, l))
}

/// The package version.
#[pyfunction]
fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

#[pymodule]
fn _engine(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(analyze, m)?)?;
    m.add_function(wrap_pyfunction!(render_report, m)?)?;
    m.add_function(wrap_pyfunction!(main, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(say, m)?)?;
    m.add_function(wrap_pyfunction!(probe, m)?)?;
    m.add_function(wrap_pyfunction!(card_line, m)?)?;
    m.add_function(wrap_pyfunction!(triage, m)?)?;
    m.add_function(wrap_pyfunction!(triage_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(triage_table, m)?)?;
    Ok(())
}
