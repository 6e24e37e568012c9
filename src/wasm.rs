//! The WebAssembly API: the only file with `#[wasm_bindgen]`. It converts between JavaScript
//! values and the engine's types; it decides nothing.
//!
//! Exports: `analyze`, `analyzeNotebook`, `analyzeCells` (plain functions returning the report
//! as a plain object), `setCatalogue` and `hasCatalogue` (the texts, one document per
//! language: the page reads its own texts from the same documents), `version`, and `Session`,
//! which analyses and keeps
//! the input so that the page's view can show any part of it (`map`, `window`).

use crate::findings::{Findings, Keys};
use crate::input::{self, Cell};
use crate::pipeline::{self, Options, TextAnalyzer};
use crate::report::{InputFormat, Report};
use crate::text::Lang;
use crate::view::{self, Source, Target};
use crate::words;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &str = r#"
/** Options of the analysis. */
export interface AnalyzeOptions {
  /** The language of the report's texts; default "en". */
  lang?: "en" | "zh";
  /** The kernel's own log, read beside the input: Colab's runtime log (Runtime > View runtime
   * logs, downloaded or copied) or any stderr text. */
  runtimeLog?: string | null;
  /** Where the input comes from, when the caller knows: "colab". */
  host?: string | null;
  /** Count what reads as quoted (in code, advice, a question) as printed: the reader's
   * "treat it as the error" after a clean verdict. */
  countQuoted?: boolean;
  /** The package index the notebook extension installs from ("https://…/simple/"): a
   * notebook's steps then load it (`%pip install first-assert --index-url …`) instead of
   * pasting the probe cell. */
  index?: string | null;
}

/** Where something is: a 1-based line of the input, or of a notebook cell's output text. */
export interface Location {
  line: number;
  cell: number | null;
  output: number | null;
  execution_count: number | null;
  /** Present (true) when the place is in the runtime log read beside the input. */
  runtime_log?: true;
}

/** A place the report names, with where it is in the report's language ("line 12",
 * "cell [3], line 12"): what a view shows beside it. */
export interface Place extends Location {
  where: string;
}

export type Category = "invalid_label" | "index_out_of_bounds" | "invalid_value" | "shape_mismatch" | "dtype_mismatch" | "stale_context" | "unknown";

/** The report (see docs/report.md for every field). Each interface below is one struct of the
 * engine's contract (src/report.rs), with the same name and the same keys (tests/contract.rs). */
export interface Report {
  schema: number;
  tool: Tool;
  lang: "en" | "zh";
  input: InputSummary;
  verdict: "device_assert" | "other_cuda_error" | "clean" | "unreadable" | "confirmed";
  headline: string;
  first_assert: FirstAssert | null;
  confirmation: Confirmation | null;
  kernel_sites: KernelSiteCount[];
  raised_at: RaisedAt | null;
  cause: Cause | null;
  echoes: Echo[];
  echo_count: number;
  stack: Stack | null;
  other_errors: OtherError[];
  checklist: Step[];
  probe: Probe | null;
  notes: Note[];
  /** The rank torchrun names as the first observed failure, when the input holds its summary (absent otherwise). */
  root_cause?: RootCause;
}

export interface Tool { name: string; version: string }

export interface InputSummary {
  format: "text" | "notebook" | "cells" | "runtime_log";
  bytes: number;
  lines: number;
  cells: number | null;
  lossy_utf8: boolean;
  nul_bytes: number;
  long_lines: number;
  runtime_log: RuntimeLogSummary | null;
  unreadable_cells: number[];
  superseded_cells: number[];
  kernel: KernelFacts | null;
  source: "notebook" | "script" | "launch";
}

export interface KernelFacts { torch: string | null; device: string | null; launch_blocking: boolean | null; compiled: boolean; read: "colab" | "history" | "last_error" | "since_load" | null; late_cells: number }

export interface RuntimeLogSummary { form: "csv" | "rows" | "lines"; rows: number; total: number; newest_first: boolean }

export interface FirstAssert extends Place {
  text: string;
  text_truncated: boolean;
  end_line: number | null;
  kind: "kernel_assert" | "dsa_report" | "host_error" | "described";
  dialect: string;
  site: KernelSite | null;
  repeats: Repeats | null;
  offending: Offending | null;
  context: ContextLine[];
}

export interface Offending { value: string; allowed: string }

export interface KernelSite {
  file: string;
  line: number | null;
  function: string | null;
  name: string | null;
  condition: string | null;
  block: [number, number, number] | null;
  thread: [number, number, number] | null;
}

export interface Repeats {
  count: number;
  blocks: number;
  threads: number;
  block_range: [[number, number, number], [number, number, number]] | null;
  thread_range: [[number, number, number], [number, number, number]] | null;
  last_line: number;
}

export interface ContextLine { line: number; text: string }

/** The error that confirmed the cause: the probe's or the CPU's. */
export interface Confirmation {
  source: "probe" | "cpu";
  op: string;
  value: string | null;
  allowed: string | null;
  line: string | null;
  /** The probe's look at the values and its usual cause, when printed. */
  values: string | null;
  clue: string | null;
  /** The user's line as a place of the notebook ("cell [5], line 4"), else "". */
  where: string;
  text: string;
  /** Where the error line is. */
  at: Location;
}

export interface KernelSiteCount { site: KernelSite; count: number; first: Location; rule: string | null; category: Category | null }

export interface Frame { file: string; line: number | null; function: string; code: string | null; user: boolean; library: string | null; /** Where the line is when it is a line of a notebook cell's code (`cell [4], code line 9`), else empty. */ where: string }

export interface RaisedAt extends Place { text: string; exception: string | null; user_frame: Frame | null; op_frame: Frame | null; frames: Frame[] }

export interface Evidence extends Place { scope: string; text: string; matched: string | null }

export interface Cause {
  category: Category;
  rule: string;
  confidence: number;
  basis: "confirmed" | "stated" | "evidence" | "prior" | "none";
  title: string;
  summary: string;
  why: string;
  fix: string;
  check: string;
  snippet: string | null;
  ops: string[];
  evidence: Evidence[];
  candidates: Candidate[];
}

export interface Candidate { category: Category; rule: string; confidence: number; title: string; evidence: Evidence[] }

export interface Echo extends Place { text: string; kind: string; exception: string | null }

export interface Stack {
  trustworthy: boolean;
  async_note: boolean;
  launch_blocking: "not_set" | "set" | "set_after_import" | "set_after_cuda" | "ignored";
  launch_blocking_at: Location | null;
  launch_blocking_known: boolean;
  innocent_op: string | null;
  explanation: string;
}

export interface OtherError extends Place { kind: string; text: string; exception: string | null; explanation: string }

export interface Step { id: string; title: string; body: string; code: string | null; done: boolean }

export interface Probe { code: string; ops: string[] }

export interface Note { id: string; text: string }
/** torchrun's root cause: whole seconds, so `ties` lists the ranks that failed in the same one. */
export interface RootCause extends Place { rank: number | null; local_rank: number | null; host: string | null; time: string; exitcode: number | null; pid: number | null; error_file: string | null; ties: number[] }

/** An entry of a session's map of its input. */
export interface MapEntry {
  label: string;
  title: string;
  mark: "none" | "superseded" | "evidence" | "other" | "echo" | "first";
  cell: number | null;
  line: number | null;
  /** The entry is the runtime log read beside the input. */
  log: boolean;
}

/** A cell as the page adapters send it (nbformat's cells are accepted too). */
export interface CellInput {
  index?: number;
  execution_count?: number | null;
  cell_type?: string;
  source?: string | string[];
  outputs?: { kind?: string; output_type?: string; name?: string; text?: string | string[]; ename?: string; evalue?: string; traceback?: string[] }[];
}
"#;

/// The allocator: `talc`, 2.9 KB smaller gzipped than the standard library's `dlmalloc` in
/// this package (measured 2026-12).
#[global_allocator]
static TALC: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

/// The few JavaScript functions the package calls, declared here rather than through
/// `js-sys`: its bindings left some 40 closure shims in the function table of the package
/// (dead: nothing here passes a closure to JavaScript), 1.7 KB gzipped (zlib -9: 153,843 -> 152,127).
#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = JSON, js_name = parse, catch)]
    fn json_parse(text: &str) -> Result<JsValue, JsValue>;
    /// A string, or `undefined` for what JSON cannot hold.
    #[wasm_bindgen(js_namespace = JSON, js_name = stringify, catch)]
    fn json_stringify(v: &JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(js_namespace = Object, js_name = keys)]
    fn object_keys(o: &JsValue) -> Vec<JsValue>;
    #[wasm_bindgen(js_namespace = Reflect, js_name = get, catch)]
    fn reflect_get(target: &JsValue, key: &JsValue) -> Result<JsValue, JsValue>;
}

fn options(v: &JsValue) -> Result<Options, JsError> {
    let mut o = Options::default();
    if v.is_undefined() || v.is_null() {
        texts_ready(o.lang)?;
        return Ok(o);
    }
    let bad = |m: &str| JsError::new(&format!("bad options: {m}"));
    if !v.is_object() {
        return Err(bad("not an object"));
    }
    // Read field by field from the object itself: no copy of a long runtime log as JSON.
    for key in object_keys(v) {
        let k = key.as_string().unwrap_or_default();
        let value = reflect_get(v, &key).unwrap_or(JsValue::UNDEFINED);
        if value.is_undefined() || value.is_null() {
            continue;
        }
        if k == "countQuoted" {
            o.count_quoted = value.as_bool().ok_or_else(|| bad("`countQuoted` is a boolean"))?;
            continue;
        }
        let text = value.as_string();
        match (k.as_str(), text) {
            ("lang", Some(tag)) => {
                o.lang = Lang::from_tag(&tag)
                    .ok_or_else(|| bad(&format!("unknown language `{tag}` (use \"en\" or \"zh\")")))?
            }
            ("runtimeLog", Some(t)) => o.runtime_log = Some(t),
            ("host", Some(t)) => o.host = Some(t),
            ("index", Some(t)) if t.starts_with("https://") || t.starts_with("http://") => o.index = Some(t),
            ("index", Some(_)) => return Err(bad("`index` is an http(s) address")),
            ("lang" | "runtimeLog" | "host" | "index", None) => return Err(bad(&format!("`{k}` is a string"))),
            _ => return Err(bad(&format!("unknown field `{k}`"))),
        }
    }
    texts_ready(o.lang)?;
    Ok(o)
}

/// An error unless the texts of `lang` were handed over ([`set_catalogue`]).
fn texts_ready(lang: Lang) -> Result<(), JsError> {
    let Some((what, is, part)) = crate::text::catalogue::missing(lang) else { return Ok(()) };
    let code = lang.code();
    Err(JsError::new(&format!(
        "{what} in `{code}` {is} not loaded: pass first-assert.{code}{part}.json (beside the package) to setCatalogue first"
    )))
}

/// Takes the catalogue of a language: the JSON document `first-assert.LANG.json` that `make
/// web` writes beside the package, or the page's two parts of it, `first-assert.LANG.page.json`
/// (all but the probe's code) and `first-assert.LANG.probe.json`, in either order. Returns its
/// language (`"en"`, `"zh"`). Call it before analysing in a language; a language's first
/// catalogue stays.
#[wasm_bindgen(js_name = setCatalogue)]
pub fn set_catalogue(json: &str) -> Result<String, JsError> {
    crate::text::catalogue::load(json).map(|l| l.code().to_string()).map_err(|e| JsError::new(&e))
}

/// Whether the texts of `lang` are loaded.
#[wasm_bindgen(js_name = hasCatalogue)]
pub fn has_catalogue(lang: &str) -> bool {
    Lang::from_tag(lang).is_some_and(crate::text::catalogue::ready)
}

/// A report as a plain JavaScript object, made by the browser's `JSON.parse` from the JSON the
/// CLI prints (written by [`crate::report_json`], checked against serde's on every test input):
/// the package's reports equal the CLI's by construction, with no serde code in the package.
#[cfg(not(feature = "js-objects"))]
fn to_js(r: &Report) -> Result<JsValue, JsError> {
    json_to_js(r)
}

/// With the `js-objects` feature (a build `make bench` measures, not the one the page ships):
/// the report's serde data as plain objects through serde-wasm-bindgen, maps as objects and
/// numbers as `f64` (the JSON-compatible serializer), so it equals `JSON.parse` of the JSON.
#[cfg(feature = "js-objects")]
fn to_js(r: &Report) -> Result<JsValue, JsError> {
    use serde::Serialize;
    r.serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|e| JsError::new(&format!("internal error: the report as objects: {e}")))
}

/// `JSON.stringify(v)`, or a clear error naming `what`.
fn stringify(v: &JsValue, what: &str) -> Result<String, JsError> {
    json_stringify(v)
        .ok()
        .and_then(|s| s.as_string())
        .ok_or_else(|| JsError::new(&format!("bad {what}: not representable as JSON")))
}

/// Cells given as a JavaScript value, through `JSON.stringify` and the notebook reader (one
/// cell at a time, see [`input::read_notebook`]).
/// Also returns the cells' JSON (a session keys the checklist by it: the same cells give the
/// same key).
fn cells_from(v: JsValue) -> Result<(Vec<Cell>, InputFormat, String), JsError> {
    let json = stringify(&v, "cells")?;
    let nb = input::read_notebook(&json)
        .map_err(|e| JsError::new(&format!("bad cells: {e}")))?
        .map_err(|e| JsError::new(&e.to_string()))?;
    Ok((nb.cells, nb.format, json))
}

/// Analyses a log.
#[wasm_bindgen(js_name = analyze, unchecked_return_type = "Report")]
pub fn analyze(
    text: &str,
    #[wasm_bindgen(unchecked_param_type = "AnalyzeOptions")] opts: JsValue,
) -> Result<JsValue, JsError> {
    to_js(&pipeline::analyze_text(text, &options(&opts)?))
}

/// Analyses a notebook (nbformat 4) or a cell list given as JSON text.
#[wasm_bindgen(js_name = analyzeNotebook, unchecked_return_type = "Report")]
pub fn analyze_notebook(
    json: &str,
    #[wasm_bindgen(unchecked_param_type = "AnalyzeOptions")] opts: JsValue,
) -> Result<JsValue, JsError> {
    let o = options(&opts)?;
    let r = pipeline::analyze_notebook(json, &o).map_err(|e| JsError::new(&e.message(o.lang)))?;
    to_js(&r)
}

/// Analyses cells given as JavaScript objects (the cell-list shape, or nbformat cells).
#[wasm_bindgen(js_name = analyzeCells, unchecked_return_type = "Report")]
pub fn analyze_cells(
    #[wasm_bindgen(unchecked_param_type = "CellInput[] | { cells: CellInput[] }")] cells: JsValue,
    #[wasm_bindgen(unchecked_param_type = "AnalyzeOptions")] opts: JsValue,
) -> Result<JsValue, JsError> {
    let o = options(&opts)?;
    let (cells, _, _) = cells_from(cells)?;
    to_js(&pipeline::analyze_cells(&cells, &o))
}

/// The package version.
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}

/// How to read a file whose first bytes are `head` (up to its first 4 MiB), as the command
/// line decides it: `READ ENCODING`, where READ is `binary` (refused), `whole` (a notebook or a
/// cell list) or `stream` (a log), and ENCODING `utf8`, `utf16` or `gb18030` (a Chinese Windows
/// console's log, for the browser's own decoder).
#[wasm_bindgen(unchecked_return_type = "`${\"binary\" | \"whole\" | \"stream\"} ${\"utf8\" | \"utf16\" | \"gb18030\"}`")]
pub fn sniff(head: &[u8], #[wasm_bindgen(js_name = fileName)] file_name: Option<String>) -> String {
    let read = match input::sniff(head, file_name.as_deref()) {
        input::Sniff::Binary(_) => "binary ",
        input::Sniff::Whole => "whole ",
        input::Sniff::Stream => "stream ",
    };
    read.to_string() + input::TextEncoding::of(head).id()
}

/// What a session remembers between calls.
struct State {
    source: Source,
    /// The runtime log read beside the input, for windows into it.
    log: Option<Source>,
    /// The options of the analysis.
    opts: Options,
    /// The report, and what its words are made from beyond its fields: another language words
    /// it again.
    report: Report,
    keys: Keys,
    key: String,
}

/// An analysis the page can show and explore: keeps the input so that any line of it can be
/// shown. The page's view (`report-view.js`) renders the report and asks the session for the
/// map of the input and the lines around a place.
#[wasm_bindgen]
#[derive(Default)]
pub struct Session {
    state: Option<State>,
    stream: Option<Streaming>,
}

/// A file being read a block at a time.
struct Streaming {
    analyzer: TextAnalyzer,
    lines: view::Lines,
    opts: Options,
    /// The file's first bytes, for its key.
    head: Vec<u8>,
}

/// The bytes a window of a streamed file is read back from, at most.
const SPAN_CAP: u64 = 4 << 20;

#[wasm_bindgen]
impl Session {
    /// An empty session.
    #[wasm_bindgen(constructor)]
    pub fn new() -> Session {
        Session::default()
    }

    /// Begins reading a file a block at a time (`feedStream`, then `finishStream`): memory
    /// stays bounded whatever its size, and the report is the one of the whole text.
    #[wasm_bindgen(js_name = beginStream)]
    pub fn begin_stream(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "AnalyzeOptions")] opts: JsValue,
    ) -> Result<(), JsError> {
        let opts = options(&opts)?;
        let mut analyzer = TextAnalyzer::new();
        analyzer.runtime_log(&opts);
        self.state = None;
        self.stream = Some(Streaming { analyzer, lines: view::Lines::default(), opts, head: Vec::new() });
        Ok(())
    }

    /// Reads the file's next block; returns the line of the earliest device-side assert read
    /// so far (the report decides, at the end).
    #[wasm_bindgen(js_name = feedStream)]
    pub fn feed_stream(&mut self, block: &[u8]) -> Result<Option<f64>, JsError> {
        let s = self.stream.as_mut().ok_or_else(|| JsError::new("no stream begun"))?;
        s.analyzer.feed(block);
        s.lines.feed(block);
        let room = (1usize << 20).saturating_sub(s.head.len()).min(block.len());
        s.head.extend_from_slice(&block[..room]);
        Ok(s.analyzer.assert_seen().map(|l| l as f64))
    }

    /// Ends the file and returns its report; its lines are read back for a window
    /// (`windowSpan`, `loadLines`).
    #[wasm_bindgen(js_name = finishStream, unchecked_return_type = "Report")]
    pub fn finish_stream(&mut self) -> Result<JsValue, JsError> {
        let s = self.stream.take().ok_or_else(|| JsError::new("no stream begun"))?;
        let findings = s.analyzer.finish_findings(&s.opts);
        let key = format!("{}{:x}", view::fingerprint(&s.head), findings.report.input.bytes);
        self.keep(Source::stream(s.lines.finish()), s.opts, findings, key)
    }

    /// For a streamed file: `[start, end, first]`, the bytes to read back for the window
    /// around `line` (the page's first place without one) and the number of the line they
    /// start with; `null` when the input is kept (or the window is of the runtime log).
    #[wasm_bindgen(js_name = windowSpan)]
    pub fn window_span(&self, line: Option<f64>, log: Option<bool>) -> Option<Vec<f64>> {
        let s = self.state.as_ref()?;
        let Source::Stream { index, .. } = &s.source else { return None };
        let t = line.map(|l| (l.max(1.0) as u64, log.unwrap_or(false))).or_else(|| {
            let t = view::initial_target(&s.report)?;
            Some((t.line, t.log))
        });
        let (line, log) = t?;
        if log && s.log.is_some() {
            return None;
        }
        let (start, end, first) = index.span(line.saturating_sub(view::BEFORE), line + view::AFTER, SPAN_CAP);
        Some(vec![start as f64, end as f64, first as f64])
    }

    /// Hands a streamed file's bytes read back for a window: lines from `first` on.
    #[wasm_bindgen(js_name = loadLines)]
    pub fn load_lines(&self, first: f64, bytes: &[u8]) {
        if let Some(s) = &self.state {
            s.source.load(first as u64, bytes);
        }
    }

    /// Analyses a log and keeps it.
    #[wasm_bindgen(js_name = analyzeText, unchecked_return_type = "Report")]
    pub fn analyze_text(
        &mut self,
        text: String,
        #[wasm_bindgen(unchecked_param_type = "AnalyzeOptions")] opts: JsValue,
    ) -> Result<JsValue, JsError> {
        let o = options(&opts)?;
        let findings = pipeline::diagnose_text(&text, &o);
        let key = view::fingerprint(text.as_bytes());
        self.keep(Source::text(text), o, findings, key)
    }

    /// Analyses a notebook or a cell list given as JSON text, and keeps its cells.
    #[wasm_bindgen(js_name = analyzeNotebook, unchecked_return_type = "Report")]
    pub fn analyze_notebook(
        &mut self,
        json: String,
        #[wasm_bindgen(unchecked_param_type = "AnalyzeOptions")] opts: JsValue,
    ) -> Result<JsValue, JsError> {
        // As a file that must be a notebook: the same report as the CLI's on it.
        self.analyze_bytes(json.into_bytes(), Some("input.ipynb".into()), opts)
    }

    /// Analyses the bytes of a file (a log in UTF-8 or UTF-16, a notebook, a cell list) as the
    /// CLI would, and keeps its content. `fileName` decides nothing but that a `.ipynb` must
    /// be a notebook.
    #[wasm_bindgen(js_name = analyzeBytes, unchecked_return_type = "Report")]
    pub fn analyze_bytes(
        &mut self,
        bytes: Vec<u8>,
        #[wasm_bindgen(js_name = fileName)] file_name: Option<String>,
        #[wasm_bindgen(unchecked_param_type = "AnalyzeOptions")] opts: JsValue,
    ) -> Result<JsValue, JsError> {
        let o = options(&opts)?;
        let key = view::fingerprint(&bytes);
        let (findings, decoded) = pipeline::diagnose_bytes_keeping(bytes, file_name.as_deref(), &o)
            .map_err(|e| JsError::new(&e.message(o.lang)))?;
        let source = match decoded {
            pipeline::Decoded::Notebook(nb) => Source::Cells(nb.cells),
            pipeline::Decoded::Text(text) => Source::text(text),
        };
        self.keep(source, o, findings, key)
    }

    /// Analyses cells given as JavaScript objects, and keeps them.
    #[wasm_bindgen(js_name = analyzeCells, unchecked_return_type = "Report")]
    pub fn analyze_cells(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "CellInput[] | { cells: CellInput[] }")] cells: JsValue,
        #[wasm_bindgen(unchecked_param_type = "AnalyzeOptions")] opts: JsValue,
    ) -> Result<JsValue, JsError> {
        let o = options(&opts)?;
        let (cells, format, json) = cells_from(cells)?;
        let mut findings = pipeline::diagnose_cells(&cells, &o);
        findings.report.input.format = format;
        self.keep(Source::Cells(cells), o, findings, view::fingerprint(json.as_bytes()))
    }

    /// The current report (`null` before any analysis).
    #[wasm_bindgen(unchecked_return_type = "Report | null")]
    pub fn report(&self) -> Result<JsValue, JsError> {
        match &self.state {
            Some(s) => to_js(&s.report),
            None => Ok(JsValue::NULL),
        }
    }

    /// The same report in another language: the kept findings worded again (nothing is
    /// analysed again, and a streamed file is not read again).
    #[wasm_bindgen(js_name = setLang, unchecked_return_type = "Report | null")]
    pub fn set_lang(&mut self, lang: &str) -> Result<JsValue, JsError> {
        let l = Lang::from_tag(lang).ok_or_else(|| JsError::new(&format!("unknown language `{lang}`")))?;
        texts_ready(l)?;
        let Some(s) = self.state.as_mut() else { return Ok(JsValue::NULL) };
        s.opts.lang = l;
        words::word(&mut s.report, &s.keys, l);
        self.report()
    }

    /// The map of the kept input: runs of lines of a log, or a notebook's cells in page order,
    /// each with its mark and where a click on it jumps (`cell` and `line` are `null` for
    /// entries that hold nothing).
    #[wasm_bindgen(unchecked_return_type = "MapEntry[]")]
    pub fn map(&self) -> Result<JsValue, JsError> {
        let Some(s) = &self.state else { return json_to_js(&Vec::<MapItem>::new()) };
        let entries: Vec<MapItem> = view::map(&s.report, &s.source, s.report.lang)
            .into_iter()
            .map(|e| MapItem {
                label: e.label,
                title: e.title,
                mark: e.mark.class(),
                cell: e.target.and_then(|t| t.cell),
                line: e.target.map(|t| t.line),
                log: e.target.is_some_and(|t| t.log),
            })
            .collect();
        json_to_js(&entries)
    }

    /// The lines of the kept input around a place (a few before, more after), each with its
    /// mark, how the place reads (`at`) and the place itself; with `log`, of the runtime log
    /// read beside it. Without a `line`: around the place the page opens first (the first
    /// assert, else the first other error), or `null` when there is none.
    #[wasm_bindgen(
        unchecked_return_type = "null | { at: string; cell: number | null; line: number; log: boolean; lines: { no: number; text: string; mark: string; repeats: number; threads: [number, number] | null }[] }"
    )]
    pub fn window(&self, cell: Option<u32>, line: Option<f64>, log: Option<bool>) -> Result<JsValue, JsError> {
        let Some(s) = &self.state else { return Err(JsError::new("nothing analysed yet")) };
        let asked = match line {
            Some(line) => Target { cell, line: line.max(1.0) as u64, log: log.unwrap_or(false) },
            None => match view::initial_target(&s.report) {
                Some(t) => t,
                None => return Ok(JsValue::NULL),
            },
        };
        let log = asked.log && s.log.is_some();
        let t = Target { cell: asked.cell.filter(|_| !log), line: asked.line, log };
        let source = if log { s.log.as_ref().unwrap_or(&s.source) } else { &s.source };
        let lines: Vec<WindowItem> = view::window(&s.report, source, t)
            .into_iter()
            .map(|l| WindowItem {
                no: l.no,
                text: l.text,
                mark: l.mark.class(),
                repeats: l.repeats,
                threads: l.threads,
            })
            .collect();
        json_to_js(&Window { at: view::where_(&s.report, source, t), cell: t.cell, line: t.line, log: t.log, lines })
    }

    /// The key under which the page remembers the checklist of this input.
    #[wasm_bindgen(js_name = storageKey)]
    pub fn storage_key(&self) -> Option<String> {
        self.state.as_ref().map(|s| s.key.clone())
    }

    fn keep(&mut self, source: Source, opts: Options, findings: Findings, key: String) -> Result<JsValue, JsError> {
        let Findings { mut report, keys } = findings;
        words::word(&mut report, &keys, opts.lang);
        let js = to_js(&report)?;
        let log = opts.runtime_log.clone().map(Source::text);
        self.state = Some(State { source, log, opts, report, keys, key: format!("first-assert:steps:{key}") });
        Ok(js)
    }
}

struct MapItem {
    label: String,
    title: String,
    mark: &'static str,
    cell: Option<u32>,
    line: Option<u64>,
    log: bool,
}

struct WindowItem {
    no: u64,
    text: String,
    mark: &'static str,
    repeats: u32,
    threads: Option<[u32; 2]>,
}

struct Window {
    at: String,
    cell: Option<u32>,
    line: u64,
    log: bool,
    lines: Vec<WindowItem>,
}

crate::report_json::fields!(MapItem { label, title, mark, cell, line, log });
crate::report_json::fields!(WindowItem { no, text, mark, repeats, threads });
crate::report_json::fields!(Window { at, cell, line, log, lines });

/// A value as a plain JavaScript object, through its JSON.
fn json_to_js<T: crate::report_json::Json + ?Sized>(v: &T) -> Result<JsValue, JsError> {
    json_parse(&crate::report_json::json(v))
        .map_err(|_| JsError::new("internal error: JSON.parse rejected the engine's JSON"))
}
