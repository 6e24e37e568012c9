//! The WebAssembly API: the only file with `#[wasm_bindgen]`. It converts between JavaScript
//! values and the engine's types, and wires the page's events to the view; it decides nothing.
//!
//! Exports: `analyze`, `analyzeNotebook`, `analyzeCells` (plain functions returning the report
//! as a plain object), `messages` (the catalogue), `version`, and `Session`: the rendering
//! entry point, which analyses, keeps the input so the view can show any part of it, and
//! renders the report into an element.

use crate::i18n::{Lang, Msg};
use crate::input::{self, Cell};
use crate::report::Report;
use crate::view::{self, Source, Target};
use crate::web;
use crate::Options;
use serde_json::Value;
use std::cell::RefCell;
use std::collections::BTreeSet;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Element, Event};

#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &str = r#"
/** Options of the analysis. */
export interface AnalyzeOptions {
  /** The language of the report's texts; default "en". */
  lang?: "en" | "zh";
}

/** Where something is: a 1-based line of the input, or of a notebook cell's output text. */
export interface Location {
  line: number;
  cell: number | null;
  output: number | null;
  execution_count: number | null;
}

export type Category = "invalid_label" | "index_out_of_bounds" | "invalid_value" | "shape_mismatch" | "dtype_mismatch" | "stale_context" | "unknown";

/** The report (see the README for every field). */
export interface Report {
  schema: number;
  tool: { name: string; version: string };
  lang: "en" | "zh";
  input: { format: "text" | "notebook" | "cells"; bytes: number; lines: number; cells: number | null; lossy_utf8: boolean; nul_bytes: number; long_lines: number };
  verdict: "device_assert" | "other_cuda_error" | "clean";
  headline: string;
  first_assert: null | (Location & {
    text: string; text_truncated: boolean; end_line: number | null;
    kind: "kernel_assert" | "dsa_report" | "host_error"; dialect: string;
    site: null | { file: string; line: number | null; function: string | null; name: string | null; condition: string | null; block: number[] | null; thread: number[] | null };
    repeats: null | { count: number; blocks: number; threads: number; block_range: number[][] | null; thread_range: number[][] | null; last_line: number };
    context: { line: number; text: string }[];
  });
  kernel_sites: { site: object; count: number; first: Location; rule: string | null; category: Category | null }[];
  raised_at: null | (Location & { text: string; exception: string | null; user_frame: object | null; op_frame: object | null; frames: object[] });
  cause: null | {
    category: Category; rule: string; confidence: number; title: string; summary: string; why: string; fix: string; check: string;
    snippet: string | null; ops: string[]; evidence: (Location & { scope: string; text: string; matched: string | null })[];
  };
  echoes: (Location & { text: string; kind: string; exception: string | null })[];
  echo_count: number;
  stack: null | { trustworthy: boolean; async_note: boolean; launch_blocking: string; launch_blocking_at: Location | null; innocent_op: string | null; explanation: string };
  other_errors: (Location & { kind: string; text: string; exception: string | null; explanation: string })[];
  checklist: { id: string; title: string; body: string; code: string | null; done: boolean }[];
  notes: { id: string; text: string }[];
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

/// Logs a panic to the console. Bad input never reaches one (tests check it); this only makes
/// a bug readable instead of an opaque `unreachable` trap.
#[wasm_bindgen(start)]
pub fn start() {
    std::panic::set_hook(Box::new(|info| {
        web_sys::console::error_1(&JsValue::from_str(&format!("first-assert panicked: {info}")));
    }));
}

fn options(v: &JsValue) -> Result<Options, JsError> {
    if v.is_undefined() || v.is_null() {
        return Ok(Options::default());
    }
    let bad = |m: &str| JsError::new(&format!("bad options: {m}"));
    let Value::Object(fields) = json_of(v, "options")? else { return Err(bad("not an object")) };
    let mut lang = Lang::En;
    for (k, v) in &fields {
        match (k.as_str(), v) {
            ("lang", Value::Null) => {}
            ("lang", Value::String(tag)) => {
                lang = Lang::from_tag(tag)
                    .ok_or_else(|| bad(&format!("unknown language `{tag}` (use \"en\" or \"zh\")")))?
            }
            ("lang", _) => return Err(bad("`lang` is \"en\" or \"zh\"")),
            (k, _) => return Err(bad(&format!("unknown field `{k}`"))),
        }
    }
    Ok(Options { lang })
}

/// A report as a plain JavaScript object, made by the browser's `JSON.parse` from the same JSON
/// the CLI prints: the package's reports equal the CLI's by construction (a value-by-value
/// conversion widened an `f32` 0.95 to 0.949999988), and the package is 3.8 KB gzipped smaller
/// than with serde-wasm-bindgen. The one float, the cause's confidence, is set on the object
/// as the number itself (see [`placeholder`]).
fn to_js(r: &Report) -> Result<JsValue, JsError> {
    let json = serde_json::to_string(r).map_err(|e| JsError::new(&e.to_string()))?;
    let js = js_sys::JSON::parse(&json).map_err(|_| JsError::new("internal error: JSON.parse rejected a report"))?;
    if let Some(c) = &r.cause {
        let cause = js_sys::Reflect::get(&js, &JsValue::from_str("cause"))
            .map_err(|_| JsError::new("internal error: a report without its cause"))?;
        js_sys::Reflect::set(&cause, &JsValue::from_str("confidence"), &JsValue::from_f64(c.confidence))
            .map_err(|_| JsError::new("internal error: a cause that cannot be written"))?;
    }
    Ok(js)
}

/// Writes `0` in the confidence's place, which [`to_js`] then sets to the number (the key keeps
/// its place in the object): formatting the float as JSON text would add serde_json's float
/// formatting and its tables to the package, 1.7 KB gzipped for this one number.
pub(crate) fn placeholder<S: serde::Serializer>(_: &f64, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_u8(0)
}

/// A JavaScript value as JSON data, through the browser's `JSON.stringify`; values JSON
/// cannot hold (cycles, BigInt) are a clear error naming `what`. Values are read from the
/// generic `Value` by hand: typed deserializers would add their error formatting (floats
/// included) to the package.
fn json_of(v: &JsValue, what: &str) -> Result<Value, JsError> {
    serde_json::from_str(&stringify(v, what)?).map_err(|e| JsError::new(&format!("bad {what}: {e}")))
}

/// `JSON.stringify(v)`, or a clear error naming `what`.
fn stringify(v: &JsValue, what: &str) -> Result<String, JsError> {
    js_sys::JSON::stringify(v)
        .ok()
        .and_then(|s| s.as_string())
        .ok_or_else(|| JsError::new(&format!("bad {what}: not representable as JSON")))
}

/// Cells given as a JavaScript value, through `JSON.stringify` and the notebook reader (one
/// cell at a time, see [`input::read_notebook`]).
/// Also returns the cells' JSON (a session keys the checklist by it: the same cells give the
/// same key).
fn cells_from(v: JsValue) -> Result<(Vec<Cell>, &'static str, String), JsError> {
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
    to_js(&crate::analyze_text(text, &options(&opts)?))
}

/// Analyses a notebook (nbformat 4) or a cell list given as JSON text.
#[wasm_bindgen(js_name = analyzeNotebook, unchecked_return_type = "Report")]
pub fn analyze_notebook(
    json: &str,
    #[wasm_bindgen(unchecked_param_type = "AnalyzeOptions")] opts: JsValue,
) -> Result<JsValue, JsError> {
    let o = options(&opts)?;
    let r = crate::analyze_notebook(json, &o).map_err(|e| JsError::new(&e.message(o.lang)))?;
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
    to_js(&crate::analyze_cells(&cells, &o))
}

/// The page's texts (`page_*` in `i18n/messages.toml`) in `lang`, keyed by id.
#[wasm_bindgen(unchecked_return_type = "Record<string, string>")]
pub fn messages(lang: &str) -> Result<JsValue, JsError> {
    let l = Lang::from_tag(lang).unwrap_or_default();
    let map = js_sys::Object::new();
    for (m, key) in Msg::PAGE {
        js_sys::Reflect::set(&map, &JsValue::from_str(key), &JsValue::from_str(m.text(l).trim_start_matches('\n')))
            .map_err(js_err)?;
    }
    Ok(map.into())
}

/// The package version.
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}

fn js_err(e: JsValue) -> JsError {
    JsError::new(&e.as_string().unwrap_or_else(|| format!("{e:?}")))
}

/// An event listener the session added: the element, the event, the callback.
type Listener = (Element, &'static str, Closure<dyn FnMut(Event)>);

/// What a listener runs: the page's reaction to one event.
type Handler = fn(&Rc<RefCell<Option<State>>>, &Event) -> Result<(), JsValue>;

/// What a session remembers between calls.
struct State {
    source: Source,
    format: String,
    report: Report,
    target: Option<Target>,
    key: String,
    done: BTreeSet<String>,
    snippets: Vec<String>,
    root: Option<Element>,
}

/// An analysis the page can show and explore: keeps the input so that any line can be shown,
/// the checklist state, and the listeners of the rendered view.
#[wasm_bindgen]
pub struct Session {
    state: Rc<RefCell<Option<State>>>,
    listeners: Vec<Listener>,
}

impl Default for Session {
    fn default() -> Self {
        Session::new()
    }
}

#[wasm_bindgen]
impl Session {
    /// An empty session.
    #[wasm_bindgen(constructor)]
    pub fn new() -> Session {
        Session { state: Rc::new(RefCell::new(None)), listeners: Vec::new() }
    }

    /// Analyses a log and keeps it.
    #[wasm_bindgen(js_name = analyzeText, unchecked_return_type = "Report")]
    pub fn analyze_text(
        &mut self,
        text: String,
        #[wasm_bindgen(unchecked_param_type = "AnalyzeOptions")] opts: JsValue,
    ) -> Result<JsValue, JsError> {
        let o = options(&opts)?;
        let report = crate::analyze_text(&text, &o);
        let key = view::fingerprint(text.as_bytes());
        self.keep(Source::text(text), "text".into(), report, key)
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
        let (report, decoded) = crate::analyze_bytes_keeping(bytes, file_name.as_deref(), &o)
            .map_err(|e| JsError::new(&e.message(o.lang)))?;
        let source = match decoded {
            crate::Decoded::Notebook(nb) => Source::Cells(nb.cells),
            crate::Decoded::Text(text) => Source::text(text),
        };
        let format = report.input.format.clone();
        self.keep(source, format, report, key)
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
        let report = crate::analyze_cells(&cells, &o);
        self.keep(Source::Cells(cells), format.into(), report, view::fingerprint(json.as_bytes()))
    }

    /// The current report (`null` before any analysis).
    #[wasm_bindgen(unchecked_return_type = "Report | null")]
    pub fn report(&self) -> Result<JsValue, JsError> {
        match self.state.borrow().as_ref() {
            Some(s) => to_js(&s.report),
            None => Ok(JsValue::NULL),
        }
    }

    /// Analyses the kept input again in another language and renders it again.
    #[wasm_bindgen(js_name = setLang, unchecked_return_type = "Report | null")]
    pub fn set_lang(&mut self, lang: &str) -> Result<JsValue, JsError> {
        let l = Lang::from_tag(lang).ok_or_else(|| JsError::new(&format!("unknown language `{lang}`")))?;
        {
            let mut st = self.state.borrow_mut();
            let Some(s) = st.as_mut() else { return Ok(JsValue::NULL) };
            let o = Options { lang: l };
            let mut report = match &s.source {
                Source::Text { text, .. } => crate::analyze_text(text, &o),
                Source::Cells(cells) => crate::analyze_cells(cells, &o),
            };
            report.input.format = s.format.clone();
            s.report = report;
        }
        self.rerender()?;
        self.report()
    }

    /// Renders the current report into `target` (replacing its content) and handles clicks in
    /// it: jumps, copy buttons, checklist boxes.
    pub fn render(&mut self, target: Element) -> Result<(), JsError> {
        if !self.listeners.iter().any(|(el, _, _)| el == &target) {
            self.detach();
            self.attach(&target)?;
        }
        if let Some(s) = self.state.borrow_mut().as_mut() {
            s.root = Some(target);
        }
        self.rerender()
    }

    /// Shows the lines around a location in the view's window.
    pub fn jump(&mut self, cell: Option<u32>, line: f64) -> Result<(), JsError> {
        jump_to(&self.state, Target { cell, line: line.max(1.0) as u64 }).map_err(js_err)
    }

    /// The key under which the checklist of this input is remembered.
    #[wasm_bindgen(js_name = storageKey)]
    pub fn storage_key(&self) -> Option<String> {
        self.state.borrow().as_ref().map(|s| s.key.clone())
    }

    fn keep(&mut self, source: Source, format: String, report: Report, key: String) -> Result<JsValue, JsError> {
        let key = format!("first-assert:steps:{key}");
        let done = load_done(&key);
        let root = self.state.borrow_mut().take().and_then(|s| s.root);
        let js = to_js(&report)?;
        *self.state.borrow_mut() =
            Some(State { source, format, report, target: None, key, done, snippets: Vec::new(), root });
        Ok(js)
    }

    fn rerender(&self) -> Result<(), JsError> {
        let mut st = self.state.borrow_mut();
        let Some(s) = st.as_mut() else { return Ok(()) };
        let Some(root) = s.root.clone() else { return Ok(()) };
        let cx = web::Context { source: Some(&s.source), target: s.target, done: &s.done };
        s.snippets = web::render(&root, &s.report, &cx).map_err(js_err)?;
        Ok(())
    }

    fn attach(&mut self, target: &Element) -> Result<(), JsError> {
        self.listen(target, "click", on_click)?;
        self.listen(target, "change", on_change)
    }

    /// Calls `handler` for every `kind` event in `target`; its errors go to the console.
    fn listen(&mut self, target: &Element, kind: &'static str, handler: Handler) -> Result<(), JsError> {
        let state = self.state.clone();
        let cb = Closure::<dyn FnMut(Event)>::new(move |e: Event| {
            if let Err(err) = handler(&state, &e) {
                web_sys::console::warn_1(&err);
            }
        });
        target.add_event_listener_with_callback(kind, cb.as_ref().unchecked_ref()).map_err(js_err)?;
        self.listeners.push((target.clone(), kind, cb));
        Ok(())
    }

    fn detach(&mut self) {
        for (el, kind, cb) in self.listeners.drain(..) {
            let _ = el.remove_event_listener_with_callback(kind, cb.as_ref().unchecked_ref());
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        self.detach();
    }
}

/// The element with `data-action` that an event happened in.
fn action_of(e: &Event) -> Option<Element> {
    e.target()?.dyn_into::<Element>().ok()?.closest("[data-action]").ok()?
}

fn on_click(state: &Rc<RefCell<Option<State>>>, e: &Event) -> Result<(), JsValue> {
    let Some(el) = action_of(e) else { return Ok(()) };
    match el.get_attribute("data-action").as_deref() {
        Some("jump") => {
            let line = el.get_attribute("data-line").and_then(|l| l.parse().ok()).unwrap_or(1);
            let cell = el.get_attribute("data-cell").and_then(|c| c.parse().ok());
            jump_to(state, Target { cell, line })
        }
        Some("copy") => {
            let i: usize = el.get_attribute("data-copy").and_then(|i| i.parse().ok()).unwrap_or(usize::MAX);
            let (code, lang) = match state.borrow().as_ref() {
                Some(s) => (s.snippets.get(i).cloned(), s.report.lang),
                None => (None, Lang::En),
            };
            if let Some(code) = code {
                copy_text(&code)?;
                el.set_text_content(Some(Msg::ViewCopied.text(lang)));
                el.class_list().add_1("copied")?;
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

fn on_change(state: &Rc<RefCell<Option<State>>>, e: &Event) -> Result<(), JsValue> {
    let Some(el) = action_of(e) else { return Ok(()) };
    if el.get_attribute("data-action").as_deref() != Some("step") {
        return Ok(());
    }
    let Some(id) = el.get_attribute("data-step") else { return Ok(()) };
    let checked = el.dyn_ref::<web_sys::HtmlInputElement>().is_some_and(|i| i.checked());
    let mut st = state.borrow_mut();
    let Some(s) = st.as_mut() else { return Ok(()) };
    if checked {
        s.done.insert(id);
    } else {
        s.done.remove(&id);
    }
    save_done(&s.key, &s.done);
    Ok(())
}

fn jump_to(state: &Rc<RefCell<Option<State>>>, t: Target) -> Result<(), JsValue> {
    let mut st = state.borrow_mut();
    let Some(s) = st.as_mut() else { return Ok(()) };
    s.target = Some(t);
    let Some(root) = &s.root else { return Ok(()) };
    if let Some(w) = root.query_selector("[data-testid=window]")? {
        web::render_window(&w, &s.report, &s.source, t)?;
        let opts = web_sys::ScrollIntoViewOptions::new();
        opts.set_block(web_sys::ScrollLogicalPosition::Nearest);
        w.scroll_into_view_with_scroll_into_view_options(&opts);
    }
    Ok(())
}

fn storage() -> Option<web_sys::Storage> {
    // Storage can be missing or throw (sandboxed frames, privacy modes): the checklist then
    // simply is not remembered.
    web_sys::window()?.local_storage().ok().flatten()
}

fn load_done(key: &str) -> BTreeSet<String> {
    storage()
        .and_then(|s| s.get_item(key).ok().flatten())
        .and_then(|v| serde_json::from_str::<Value>(&v).ok())
        .map(|v| {
            let mut done = BTreeSet::new();
            let ids = v.as_array().into_iter().flatten().filter_map(Value::as_str);
            for id in ids.filter(|id| id.len() < 64).take(32) {
                done.insert(id.to_string());
            }
            done
        })
        .unwrap_or_default()
}

fn save_done(key: &str, done: &BTreeSet<String>) {
    if let Some(s) = storage() {
        let _ = s.set_item(key, &serde_json::to_string(done).unwrap_or_default());
    }
}

/// Copies text with the asynchronous clipboard API (a user gesture started it).
fn copy_text(text: &str) -> Result<(), JsValue> {
    let nav = web_sys::window().ok_or("no window")?.navigator();
    let clipboard = js_sys::Reflect::get(&nav, &JsValue::from_str("clipboard"))?;
    if clipboard.is_undefined() {
        return Err("no clipboard".into());
    }
    let write = js_sys::Reflect::get(&clipboard, &JsValue::from_str("writeText"))?.dyn_into::<js_sys::Function>()?;
    let _promise = write.call1(&clipboard, &JsValue::from_str(text))?;
    Ok(())
}
