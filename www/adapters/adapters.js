// Page adapters: read a notebook's cells from the page it is shown in, and mark what the
// report says. Plain JavaScript with no dependencies, shared by the bookmarklet and the
// extension's content scripts; it analyses nothing (the engine does, in our own origin).
//
// Every selector lives in SELECTORS, one versioned table per front end, each entry a list of
// fallbacks tried in order; selftest() says which ones matched. DOM is only read with
// textContent and only changed by splitting text nodes, wrapping pieces in our own <span>s
// and setting data-first-assert* attributes: never innerHTML, never Colab's own styles.
//
// Defines globalThis.FirstAssertAdapters = { SELECTORS, SIGNAL, detect, collect, collectAll, fillGaps, readPage,
// pageToData, pageFromData, selftest, mark, unmark, reveal, watch, frame: { collect, mark,
// unmark } }.

(function (global) {
  "use strict";
  if (global.FirstAssertAdapters) return;

  const SELECTORS = {
    colab: {
      version: "2026-11-30",
      // The top document. Outputs are either plain text in static renderers (light DOM) or
      // cross-origin outputframe iframes (errors, rich output), which only a script running
      // inside the frame can read.
      notebook: ["div.notebook-cell-list", "div.notebook-content", "colab-notebook-container", "body"],
      cell: ["div.cell.notebook-cell", "div.notebook-cell-list > div.cell", "div.cell[id^='cell-']"],
      codeCell: ["div.cell.code"],
      source: [".inputarea .view-lines", ".monaco-editor .view-lines", ".inputarea"],
      sourceLine: [".view-line"],
      executionCount: [".cell-execution-count", ".execution-count"],
      output: ["colab-static-output-renderer > div > div", "colab-static-output-renderer > div > *", ".output-iframe-sizer .output_text", ".output-content .output_text"],
      frame: [".output-iframe-container iframe", ".output-iframe-sizer iframe", "iframe[src*='outputframe.html']"],
    },
    colabFrame: {
      version: "2026-11-30",
      // Inside https://…-colab.googleusercontent.com/outputframe.html.
      output: ["#output-body > div", ".output_subarea", ".error, .output-error, .traceback, .stream, .output_text"],
    },
    jupyterlab: {
      version: "2026-11-30",
      // JupyterLab and Notebook 7 (and Kaggle's editor, which is JupyterLab in a frame).
      notebook: [".jp-Notebook", ".jp-NotebookPanel-notebook"],
      cell: [".jp-Notebook .jp-Cell", ".jp-Cell"],
      codeCell: [".jp-CodeCell"],
      source: [".jp-InputArea-editor .cm-content", ".jp-InputArea-editor .CodeMirror-code", ".jp-InputArea-editor"],
      sourceLine: [".cm-line", ".CodeMirror-line"],
      executionCount: [".jp-InputPrompt", ".jp-InputArea-prompt"],
      output: [".jp-OutputArea-output", ".jp-OutputArea-child"],
      frame: [],
      // Windowing (JupyterLab 4's WindowedList, Kaggle): off-screen cells are detached; the
      // rendered ones carry their notebook index, and the list scrolls in this element.
      windowIndex: ["data-windowed-list-index"],
      scroller: [".jp-WindowedPanel-outer", ".jp-Notebook"],
    },
    classic: {
      version: "2026-11-30",
      // Classic Notebook (<= 6).
      notebook: ["#notebook-container", "#notebook"],
      cell: ["#notebook-container > .cell", "#notebook .cell"],
      codeCell: [".code_cell"],
      source: [".input_area .CodeMirror-code", ".input_area"],
      sourceLine: [".CodeMirror-line"],
      executionCount: [".input_prompt", ".prompt.input_prompt"],
      output: [".output_area .output_subarea", ".output_subarea"],
      frame: [],
    },
  };

  /** Whether text may show a device-side assert: the cheap test the extension makes before it
   * hands a page's outputs to the engine (which decides). Every form the engine reads as a
   * device-side assert matches it (tests/e2e/signal.test.mjs holds it to every case the engine
   * calls one); what it lets through that is no assert (a quotation, advice) costs only an
   * analysis. */
  const SIGNAL = /[Dd]evice-side assert|Assertion (?:failed: )?\**[`']|cudaErrorAssert|hipErrorAssert|CUDA_ERROR_ASSERT|设备端断言|断言失败|AcceleratorError: index -?\d+ is out of bounds/;

  const ATTR = "data-first-assert";
  const ECHO = "data-first-assert-echo";
  const PART = "data-first-assert-part";
  const BADGE = "data-first-assert-badge";
  const UNREAD = "data-first-assert-unread";
  /** The `style` attribute an element of the page had before we outlined it ("" = none). */
  const SAVED = "data-first-assert-style";

  /** The first selector of `list` that matches under `root`: { selector, nodes }. */
  function pick(root, list) {
    for (const selector of list) {
      let nodes;
      try {
        nodes = Array.from(root.querySelectorAll(selector));
      } catch {
        continue; // a selector this browser cannot parse
      }
      if (nodes.length) return { selector, nodes };
    }
    return { selector: null, nodes: [] };
  }

  function first(root, list) {
    return pick(root, list).nodes[0] || null;
  }

  /** Which front end `doc` shows. */
  function detect(doc) {
    const host = (doc.location && doc.location.hostname) || "";
    if (host === "colab.research.google.com" || doc.querySelector("colab-static-output-renderer, .output-iframe-container")) return "colab";
    if (/-colab\.googleusercontent\.com$/.test(host) && /outputframe\.html/.test(doc.location.pathname)) return "colabFrame";
    if (doc.querySelector(".jp-Notebook, .jp-NotebookPanel")) return "jupyterlab";
    if (doc.querySelector("#notebook-container .cell, #notebook .cell.code_cell")) return "classic";
    return "generic";
  }

  /**
   * Which selectors of the detected front end match: { adapter, version, entries: [{ name,
   * matched, count, tried }], sources } (`sources` as collect() gives them: which of the page
   * model, the DOM and the frames answered; `page` is the page-world cells, if read).
   */
  function selftest(doc, page) {
    const adapter = detect(doc);
    const table = SELECTORS[adapter];
    if (!table) return { adapter, version: null, entries: [], sources: null };
    const entries = Object.keys(table)
      .filter((k) => k !== "version" && k !== "windowIndex")
      .map((name) => {
        const hit = pick(doc, table[name]);
        return { name, matched: hit.selector, count: hit.nodes.length, tried: table[name] };
      });
    return { adapter, version: table.version, entries, sources: table.cell ? collect(doc, undefined, page).sources : null };
  }

  /** The text of an output element as the user sees it (no ANSI: the page rendered it). */
  function textOf(el) {
    const pre = el.matches && el.matches("pre") ? el : el.querySelector && el.querySelector("pre");
    return ((pre || el).textContent || "").replace(/\u00a0/g, " ");
  }

  function streamName(el) {
    const c = (el.className && String(el.className)) || "";
    const mime = (el.getAttribute && el.getAttribute("data-mime-type")) || "";
    if (/stderr|output_error|output-error|error|traceback/.test(c) || /stderr|error/.test(mime)) return "stderr";
    return "stdout";
  }

  function executionCount(cell, table) {
    const el = first(cell, table.executionCount || []);
    const m = el && /\[\s*(\d+)\s*\]/.exec(el.textContent || "");
    return m ? Number(m[1]) : null;
  }

  function sourceOf(cell, table) {
    const area = first(cell, table.source || []);
    if (!area) return undefined;
    const lines = pick(area, table.sourceLine || []).nodes;
    return lines.length ? lines.map((l) => l.textContent || "").join("\n") : area.textContent || "";
  }

  /** Outputs of a cell in page order: readable elements, and frames this document cannot read. */
  function outputsOf(cell, table) {
    const nodes = new Set([...pick(cell, table.output || []).nodes, ...pick(cell, table.frame || []).nodes]);
    // Outer elements only (a selector list may hit an element and its child).
    const list = Array.from(nodes).filter((n) => !Array.from(nodes).some((o) => o !== n && o.contains(n)));
    list.sort((a, b) => (a.compareDocumentPosition(b) & 4 ? -1 : 1));
    return list;
  }

  // ----- Colab's page-world notebook -----
  //
  // `colab.global.notebook.cells[i]` is Colab's own model of the notebook: every cell, also
  // those virtualised out of the DOM, with its text and its last error (traceback included),
  // which the top document cannot read from the outputframes. Colab documents none of it, so
  // every field is optional and checked for its type, every read is guarded, and only getters
  // are called (`getId`, `getText`): nothing that could change the notebook.

  const LIMIT = { cells: 5000, text: 2000000, lines: 2000 };

  function get(o, k) {
    try {
      return o != null && (typeof o === "object" || typeof o === "function") ? o[k] : undefined;
    } catch {
      return undefined; // a getter that throws
    }
  }

  function call(o, k) {
    const f = get(o, k);
    if (typeof f !== "function") return undefined;
    try {
      return f.call(o);
    } catch {
      return undefined;
    }
  }

  const str = (v, max = 200) => (typeof v === "string" ? v.slice(0, max) : null);
  const int = (v) => (Number.isInteger(v) && v >= 0 ? v : null);

  /** One page cell as plain data (plus its element, which stays in this world). */
  function pageCell(c) {
    const model = get(c, "model");
    const el = get(c, "element_");
    const element = typeof Element !== "undefined" && el instanceof Element ? el : null;
    const type = str(get(c, "type")) || str(get(model, "cell_type")) || str(get(model, "type"));
    const err = get(c, "lastExecutionError");
    let error = null;
    if (err && typeof err === "object") {
      const tb = get(err, "traceback");
      error = {
        ename: str(get(err, "ename")) || "",
        evalue: str(get(err, "evalue"), 4000) || "",
        traceback: Array.isArray(tb) ? tb.slice(0, LIMIT.lines).filter((l) => typeof l === "string").map((l) => l.slice(0, 20000)) : [],
      };
    }
    const failed = get(c, "lastExecutionFailed");
    return {
      id: str(call(c, "getId")) || str(get(c, "cellId")),
      type: type === "code" || type === "text" || type === "markdown" ? type : null,
      source: str(call(c, "getText"), LIMIT.text),
      execution_count: int(get(model, "executionCount")) ?? int(get(c, "executionCount")) ?? int(get(model, "execution_count")),
      failed: typeof failed === "boolean" ? failed : null,
      error,
      elementId: element ? str(element.id) : null,
      element,
    };
  }

  /** The cells of `win.colab.global.notebook`, or null when there is no such model. */
  function readPage(win) {
    const cells = get(get(get(get(win, "colab"), "global"), "notebook"), "cells");
    if (!cells || typeof get(cells, "length") !== "number") return null;
    const out = [];
    for (let i = 0; i < Math.min(cells.length, LIMIT.cells); i++) out.push(pageCell(get(cells, i)));
    return out;
  }

  /**
   * Page cells that came from another world (the extension's MAIN-world script) as JSON:
   * checked field by field, anything else dropped. Returns the cells or null.
   */
  function pageFromData(data) {
    if (!Array.isArray(data)) return null;
    return data.slice(0, LIMIT.cells).map((c) => {
      const e = c && typeof c === "object" ? c : {};
      const err = e.error && typeof e.error === "object" ? e.error : null;
      return {
        id: str(e.id),
        type: ["code", "text", "markdown"].includes(e.type) ? e.type : null,
        source: str(e.source, LIMIT.text),
        execution_count: int(e.execution_count),
        failed: typeof e.failed === "boolean" ? e.failed : null,
        error: err
          ? { ename: str(err.ename) || "", evalue: str(err.evalue, 4000) || "", traceback: Array.isArray(err.traceback) ? err.traceback.slice(0, LIMIT.lines).filter((l) => typeof l === "string").map((l) => l.slice(0, 20000)) : [] }
          : null,
        elementId: str(e.elementId),
        element: null,
      };
    });
  }

  /** The page cells as JSON-safe data (for crossing from the MAIN world). */
  function pageToData(cells) {
    return (cells || []).map(({ element, ...rest }) => rest);
  }

  // ----- reading -----

  /** A page adapter's reading of one cell of the DOM. */
  function domCell(cellEl, table) {
    const code = cellEl.matches(table.codeCell.join(","));
    const outputs = [];
    const where = [];
    for (const o of code ? outputsOf(cellEl, table) : []) {
      if (o.tagName === "IFRAME") {
        where.push({ frame: o });
        outputs.push({ kind: "unreadable", reason: "frame" });
      } else {
        where.push({ el: o });
        outputs.push({ kind: "stream", name: streamName(o), text: textOf(o) });
      }
    }
    const id = (cellEl.getAttribute("data-uuid") || cellEl.id || "").replace(/^cell-/, "") || null;
    return { el: cellEl, code, id, slot: windowSlot(cellEl, table), execution_count: code ? executionCount(cellEl, table) : null, source: code ? sourceOf(cellEl, table) : undefined, outputs, where };
  }

  /** A windowed list's index of a rendered cell (`data-windowed-list-index`), or null. */
  function windowSlot(cellEl, table) {
    for (const a of table.windowIndex || []) {
      const v = cellEl.getAttribute(a);
      if (v !== null && /^\d{1,6}$/.test(v)) return Number(v);
    }
    return null;
  }

  /**
   * DOM cells of a windowed list in their notebook places: the gaps (cells detached because
   * they are off screen) become cells with an `unreadable` output. Returns null when the list
   * is not windowed.
   */
  function slotted(dom, sources) {
    if (!dom.length || dom.some((d) => d.slot === null)) return null;
    const bySlot = new Map(dom.map((d) => [d.slot, d]));
    const last = Math.max(...dom.map((d) => d.slot));
    const out = [];
    for (let i = 0; i <= last; i++) {
      const d = bySlot.get(i);
      if (d) out.push(d);
      else {
        sources.virtualised++;
        out.push({ el: null, code: true, id: null, slot: i, execution_count: null, source: undefined, outputs: [{ kind: "unreadable", reason: "virtualised" }], where: [{}] });
      }
    }
    return out;
  }

  const errorOutput = (e) => ({ kind: "error", ename: e.ename, evalue: e.evalue, traceback: e.traceback.length ? e.traceback : [e.ename + ": " + e.evalue] });

  /**
   * A DOM cell's outputs with what the page model knows: its error stands for the frame it
   * renders in (the last one); frames of a cell that did not fail hold rich output, not an
   * error; frames the model says nothing about stay unreadable.
   */
  function withPageError(d, p) {
    const outputs = d.outputs.slice();
    const where = d.where.slice();
    const frames = where.map((w, i) => (w.frame ? i : -1)).filter((i) => i >= 0);
    const shown = p.error && p.error.evalue && d.outputs.some((o) => typeof o.text === "string" && o.text.includes(p.error.evalue));
    if (p.error && (frames.length || !shown)) {
      const at = frames.length ? frames[frames.length - 1] : outputs.length;
      outputs[at] = errorOutput(p.error);
      if (at === where.length) where.push({});
    }
    const keep = outputs.map((o) => !(o.kind === "unreadable" && p.failed === false && !p.error));
    return { outputs: outputs.filter((_, i) => keep[i]), where: where.filter((_, i) => keep[i]) };
  }

  /** An empty collection, and the function that adds a cell to it (`addDom` a DOM cell). */
  function collection(adapter, version, sources) {
    const out = { adapter, version, cells: [], places: [], cellEls: [], ids: [], sources, fromModel: false };
    const add = (cell, where, el, id) => {
      cell.index = out.cells.length;
      out.cells.push(cell);
      out.places.push(where);
      out.cellEls.push(el);
      out.ids.push(id);
    };
    const addDom = (d) => {
      const cell = { execution_count: d.execution_count, cell_type: d.code ? "code" : "markdown", outputs: d.outputs };
      if (d.source !== undefined) cell.source = d.source;
      add(cell, d.where, d.el, d.id);
    };
    return { out, add, addDom };
  }

  /** How many outputs of `cells` could not be read. */
  function unreadableCount(cells) {
    return cells.reduce((n, c) => n + ((c && c.outputs) || []).filter((o) => o.kind === "unreadable").length, 0);
  }

  /**
   * Reads the notebook: { adapter, version, cells (the engine's cell-list shape), places,
   * cellEls, ids, sources }. `places[i]` lists, for cell i, its outputs as { el } (readable)
   * or { frame } (an iframe whose text a script inside it has to send), and `cellEls[i]` the
   * cell's element (null for a cell virtualised out of the page).
   *
   * Sources, in this order, merged per cell id: `page`, Colab's page-world cells (readPage,
   * or pageFromData from the extension's MAIN world); the DOM (its readable outputs; its
   * frames stay `unreadable` until a frame script sends them); `model`, nbformat JSON from
   * `colab.global.notebookModel.getLastResolvedNotebookJson()` (the last saved outputs), used
   * when there is no page model and its cells line up with the page's.
   * `sources` says which answered: counts of cells and outputs, frames, virtualised cells.
   */
  function collect(doc, model, page) {
    const adapter = detect(doc);
    const table = SELECTORS[adapter];
    if (!table || !table.cell) return collectGeneric(doc);
    const dom = pick(doc, table.cell).nodes.map((el) => domCell(el, table));
    const sources = { adapter, version: table.version, page: page ? page.length : null, json: null, dom: dom.length, frames: 0, unreadable: 0, virtualised: 0 };
    const { out, add, addDom } = collection(adapter, table.version, sources);
    if (page && page.length) {
      const byId = new Map(dom.filter((d) => d.id).map((d) => [d.id, d]));
      const byEl = new Map(dom.map((d) => [d.el, d]));
      const used = new Set();
      for (const p of page) {
        const d = (p.element && byEl.get(p.element)) || (p.id && byId.get(p.id)) || (p.elementId && byId.get(p.elementId.replace(/^cell-/, ""))) || null;
        const code = p.type ? p.type === "code" : d ? d.code : true;
        let outputs = [];
        let where = [];
        if (d) {
          used.add(d);
          ({ outputs, where } = withPageError(d, p));
        } else if (code) {
          // Virtualised: the model is all there is; without its word on the last run the
          // cell's outputs are unknown.
          sources.virtualised++;
          if (p.error) outputs.push(errorOutput(p.error));
          else if (p.failed !== false) outputs.push({ kind: "unreadable", reason: "virtualised" });
          where = outputs.map(() => ({}));
        }
        const source = p.source !== null ? p.source : d ? d.source : undefined;
        const cell = { execution_count: p.execution_count ?? (d ? d.execution_count : null), cell_type: code ? "code" : "markdown", outputs };
        if (source !== undefined) cell.source = source;
        add(cell, where, d ? d.el : p.element, p.id);
      }
      for (const d of dom.filter((d) => !used.has(d))) addDom(d);
    } else {
      for (const d of slotted(dom, sources) || dom) addDom(d);
      const fromJson = modelCells(model, out.cells.length);
      if (fromJson) {
        sources.json = fromJson.length;
        out.cells = fromJson;
        out.fromModel = true;
      }
    }
    sources.unreadable = unreadableCount(out.cells);
    sources.frames = out.places.flat().filter((p) => p.frame).length;
    return out;
  }

  /**
   * Like collect(), but a windowed list (JupyterLab 4, Kaggle) is first scrolled through, a
   * screen at a time, so that every cell renders once and is read; the scroll position is put
   * back. Nothing of the notebook changes. Resolves to the collection, with every cell read
   * while it was rendered (its element may be detached again: marks find it by its index).
   */
  async function collectAll(doc, model, page, { step = 0.8, wait = 60, max = 400 } = {}) {
    const first = collect(doc, model, page);
    const table = SELECTORS[first.adapter];
    if (!table || !table.scroller || !first.sources.virtualised) return first;
    const scroller = pick(doc, table.scroller).nodes.find((el) => el.scrollHeight > el.clientHeight) || null;
    if (!scroller) return first;
    const seen = new Map();
    const read = () => {
      for (const el of pick(doc, table.cell).nodes) {
        const d = domCell(el, table);
        if (d.slot !== null && !seen.has(d.slot)) seen.set(d.slot, d);
      }
    };
    const back = scroller.scrollTop;
    const pause = () => new Promise((r) => setTimeout(r, wait));
    // The list renders on its own schedule (a scroll event, an animation frame): wait until
    // cells new to us show, a few pauses at most.
    const settle = async () => {
      const before = seen.size;
      for (let k = 0; k < 8; k++) {
        await pause();
        read();
        if (seen.size > before) return;
      }
    };
    try {
      scroller.scrollTop = 0;
      await settle();
      for (let n = 0; n < max; n++) {
        if (scroller.scrollTop + scroller.clientHeight >= scroller.scrollHeight - 1) break;
        scroller.scrollTop += Math.max(1, scroller.clientHeight * step);
        await settle();
      }
      read();
    } finally {
      scroller.scrollTop = back;
    }
    const dom = Array.from(seen.values()).sort((a, b) => a.slot - b.slot);
    const sources = { ...first.sources, dom: dom.length, virtualised: 0, swept: dom.length };
    const { out, addDom } = collection(first.adapter, first.version, sources);
    for (const d of slotted(dom, sources) || dom) addDom(d);
    sources.unreadable = unreadableCount(out.cells);
    return out;
  }

  /**
   * `current` with the cells it could not see (virtualised) filled from `earlier`, a sweep of
   * the same windowed list (collectAll); the cells it sees win. Returns a new collection.
   */
  function fillGaps(current, earlier) {
    if (!earlier || earlier.adapter !== current.adapter || !current.sources.virtualised) return current;
    const out = { ...current, cells: current.cells.slice(), places: current.places.slice(), cellEls: current.cellEls.slice(), ids: current.ids.slice(), sources: { ...current.sources } };
    const gap = (c) => c && (c.outputs || []).length === 1 && c.outputs[0].kind === "unreadable" && c.outputs[0].reason === "virtualised";
    for (let i = 0; i < earlier.cells.length; i++) {
      if (i < out.cells.length && !gap(out.cells[i])) continue;
      if (gap(earlier.cells[i])) continue;
      out.cells[i] = { ...earlier.cells[i], index: i };
      out.places[i] = earlier.places[i];
      out.cellEls[i] = earlier.cellEls[i];
      out.ids[i] = earlier.ids[i];
      out.sources.virtualised = Math.max(0, out.sources.virtualised - 1);
    }
    out.sources.unreadable = unreadableCount(out.cells);
    out.sources.dom = out.cells.filter((c) => !gap(c)).length;
    out.sources.swept = earlier.sources.swept;
    return out;
  }

  /** nbformat cells from a notebook model, when they line up with the page's cells. */
  function modelCells(model, count) {
    let nb = model;
    if (typeof nb === "string") {
      try {
        nb = JSON.parse(nb);
      } catch {
        return null;
      }
    }
    if (!nb || !Array.isArray(nb.cells) || (count && nb.cells.length !== count)) return null;
    return nb.cells.map((c, index) => ({
      index,
      execution_count: Number.isInteger(c.execution_count) ? c.execution_count : null,
      cell_type: c.cell_type,
      source: Array.isArray(c.source) ? c.source.join("") : c.source,
      outputs: Array.isArray(c.outputs) ? c.outputs : [],
    }));
  }

  /** Anything else: the selection if there is one, else every <pre> block as a cell. */
  function collectGeneric(doc) {
    const win = doc.defaultView;
    const sel = win && win.getSelection ? String(win.getSelection()) : "";
    const sources = (n) => ({ adapter: "generic", version: null, page: null, json: null, dom: n, frames: 0, unreadable: 0, virtualised: 0 });
    if (sel.trim()) {
      return { adapter: "generic", version: null, cells: [{ index: 0, execution_count: null, outputs: [{ kind: "stream", name: "stdout", text: sel }] }], places: [[]], cellEls: [null], ids: [null], sources: sources(1) };
    }
    const pres = Array.from(doc.querySelectorAll("pre"));
    return {
      adapter: "generic",
      version: null,
      cells: pres.map((p, index) => ({ index, execution_count: null, outputs: [{ kind: "stream", name: "stdout", text: textOf(p) }] })),
      places: pres.map((p) => [{ el: p }]),
      cellEls: pres,
      ids: pres.map(() => null),
      sources: sources(pres.length),
    };
  }

  // ----- marking -----

  function label(doc, what = "first") {
    const lang = ((doc.defaultView && doc.defaultView.navigator.language) || "en").toLowerCase();
    const zh = lang.startsWith("zh");
    if (what === "unread") return zh ? "无法读取" : "could not be read";
    return zh ? "第一个 device-side assert" : "first device-side assert";
  }

  function style(el, props) {
    for (const [k, v] of Object.entries(props)) el.style.setProperty(k, v);
  }

  function badge(doc, what = "first") {
    const b = doc.createElement("span");
    b.setAttribute(BADGE, "");
    b.textContent = (what === "unread" ? "? " : "⚑ ") + label(doc, what);
    style(b, {
      display: "inline-block",
      margin: "0 6px 0 0",
      padding: "0 6px",
      "border-radius": "8px",
      background: what === "unread" ? "#5f6368" : "#b3261e",
      color: "#fff",
      font: "600 11px/16px system-ui, sans-serif",
      "vertical-align": "baseline",
      "pointer-events": "none",
      "user-select": "none",
    });
    return b;
  }

  /** Text nodes under `root` with their start offsets in root.textContent. */
  function textNodes(root) {
    const doc = root.ownerDocument;
    const walker = doc.createTreeWalker(root, 4 /* NodeFilter.SHOW_TEXT */);
    const out = [];
    let pos = 0;
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      out.push({ node: n, start: pos });
      pos += n.data.length;
    }
    return out;
  }

  /** Where the line is in `el`'s text: by its text, else by its number. [start, end] or null. */
  function findLine(el, text, line) {
    const full = (el.textContent || "").replace(/\u00a0/g, " ");
    const needle = (text || "").trim();
    if (needle) {
      const probe = needle.slice(0, 200);
      const at = full.indexOf(probe);
      if (at >= 0) {
        const nl = full.indexOf("\n", at + probe.length);
        return [at, nl < 0 ? full.length : nl];
      }
    }
    if (Number.isInteger(line) && line >= 1) {
      let start = 0;
      for (let i = 1; i < line; i++) {
        const nl = full.indexOf("\n", start);
        if (nl < 0) return null;
        start = nl + 1;
      }
      const nl = full.indexOf("\n", start);
      const end = nl < 0 ? full.length : nl;
      if (end > start) return [start, end];
    }
    return null;
  }

  function partSpan(doc) {
    const span = doc.createElement("span");
    span.setAttribute(PART, "");
    style(span, { background: "rgba(255, 193, 7, 0.35)", "box-shadow": "0 0 0 1px rgba(179, 38, 30, 0.6)", "border-radius": "2px" });
    return span;
  }

  /**
   * Wraps text [start, end) of `el` in one span carrying `attr`, with a badge before it.
   * The range is widened over elements it covers from their start or to their end (a
   * coloured `RuntimeError` span at the start of the line); when it still cuts an element in
   * two, each text node it crosses gets a span of its own and the first carries `attr`.
   * Returns the span that carries `attr`.
   */
  function wrap(el, start, end, attr) {
    const doc = el.ownerDocument;
    const nodes = textNodes(el);
    const at = (pos, isEnd) => nodes.find(({ node, start: s }) => (isEnd ? pos > s && pos <= s + node.data.length : pos >= s && pos < s + node.data.length));
    const a = at(start, false);
    const b = at(end, true);
    if (!a || !b) return null;
    const range = doc.createRange();
    range.setStart(a.node, start - a.start);
    range.setEnd(b.node, end - b.start);
    const size = (n) => (n.nodeType === 3 ? n.data.length : n.childNodes.length);
    while (range.startOffset === 0 && range.startContainer !== range.commonAncestorContainer && range.startContainer !== el) {
      range.setStartBefore(range.startContainer);
    }
    while (range.endOffset === size(range.endContainer) && range.endContainer !== range.commonAncestorContainer && range.endContainer !== el) {
      range.setEndAfter(range.endContainer);
    }
    let span = partSpan(doc);
    try {
      range.surroundContents(span);
    } catch {
      span = null;
      for (const { node, start: s } of textNodes(el)) {
        const e = s + node.data.length;
        if (e <= start || s >= end) continue;
        let piece = node;
        const from = Math.max(start, s) - s;
        const to = Math.min(end, e) - s;
        if (from > 0) piece = piece.splitText(from);
        if (to - from < piece.data.length) piece.splitText(to - from);
        const part = partSpan(doc);
        piece.parentNode.insertBefore(part, piece);
        part.appendChild(piece);
        span = span || part;
      }
    }
    if (span) {
      span.setAttribute(attr, "");
      span.parentNode.insertBefore(badge(doc), span);
    }
    return span;
  }

  /** Marks a line of an output element; true when found. */
  function markLine(el, text, line) {
    const at = findLine(el, text, line);
    if (!at) return null;
    const span = wrap(el, at[0], at[1], ATTR);
    if (span && span.scrollIntoView) span.scrollIntoView({ block: "center" });
    return span;
  }

  function markWhole(el, attr) {
    el.setAttribute(attr, "");
    if (attr === ATTR) {
      el.insertBefore(badge(el.ownerDocument), el.firstChild);
      if (el.scrollIntoView) el.scrollIntoView({ block: "center" });
    }
  }

  /**
   * Marks what a result says (protocol.js `result`): the first assert's line, or its cell
   * when the line sits in a frame this document cannot read; each echo's output (or cell).
   * Returns { first: "line" | "frame" | "cell" | null, echoes, frames: [{ frame, role, line,
   * text }] }: the frames that a script inside them must mark.
   *
   * Output numbers index the collection's places, except when the cells came from the
   * notebook model (its outputs are not the page's elements): then the line is looked for by
   * its text in the cell's readable outputs.
   */
  function mark(doc, collected, result) {
    unmark(doc);
    const out = { first: null, echoes: 0, unreadable: 0, frames: [], pending: [] };
    // Cells whose outputs could not be read: outlined, with a grey badge.
    for (const i of (result && result.unreadable) || []) {
      const el = cellElement(doc, collected, i);
      if (!el) {
        out.pending.push(i);
        continue;
      }
      el.setAttribute(UNREAD, "");
      el.setAttribute(SAVED, el.hasAttribute("style") ? "s" + el.getAttribute("style") : "");
      style(el, { outline: "2px dotted rgba(95, 99, 104, 0.8)", "outline-offset": "2px" });
      el.insertBefore(badge(doc, "unread"), el.firstChild);
      out.unreadable++;
    }
    const f = result && result.first;
    if (f && Number.isInteger(f.cell) && !cellElement(doc, collected, f.cell)) {
      // A cell virtualised out of the page: marked when it renders (watch), found by reveal.
      out.first = "virtualised";
      out.pending.push(f.cell);
    } else if (f && Number.isInteger(f.cell)) {
      const outs = collected.places[f.cell] || [];
      const byIndex = collected.fromModel ? null : outs[f.output];
      const tries = byIndex ? [byIndex] : outs;
      let span = null;
      for (const p of tries) {
        if (p.el && (span = markLine(p.el, f.text, byIndex ? f.line : null))) break;
      }
      if (span) out.first = "line";
      else {
        for (const p of tries) if (p.frame) out.frames.push({ frame: p.frame, role: "first", line: byIndex ? f.line : null, text: f.text });
        const cellEl = collected.cellEls[f.cell];
        if (cellEl) {
          markWhole(cellEl, ATTR);
          out.first = out.frames.length ? "frame" : "cell";
        }
      }
    }
    for (const e of (result && result.echoes) || []) {
      const cellEl = cellElement(doc, collected, e.cell);
      const place = collected.fromModel ? null : (collected.places[e.cell] || [])[e.output];
      if (place && place.frame) out.frames.push({ frame: place.frame, role: "echo", line: e.line });
      const target = place && place.el && place.el.isConnected ? place.el : cellEl;
      if (target && !target.hasAttribute(ECHO)) {
        outline(target);
        out.echoes++;
      } else if (!target && !out.pending.includes(e.cell)) out.pending.push(e.cell);
    }
    return out;
  }

  /** The element of cell `i`: known, or rendered since the collection (Colab's `cell-ID`). */
  function cellElement(doc, collected, i) {
    const known = collected.cellEls[i];
    if (known && known.isConnected) return known;
    const id = collected.ids && collected.ids[i];
    const table = SELECTORS[collected.adapter] || {};
    let el = id ? doc.getElementById("cell-" + id) || doc.getElementById(id) : null;
    for (const a of table.windowIndex || []) {
      if (!el) el = doc.querySelector("[" + a + '="' + i + '"]');
    }
    if (el) {
      // Rendered anew: its outputs' elements are new too (same order as when it was read).
      if (el !== known && table.cell) collected.places[i] = domCell(el, table).where;
      collected.cellEls[i] = el;
    }
    return el;
  }

  /**
   * Brings cell `i` into view: its element, or, for a cell virtualised out of the page, the
   * nearest rendered cell, placed so that the gap where cell `i` belongs is in view (the page
   * then renders it). Returns
   * "cell", "near" or null.
   */
  function reveal(doc, collected, i) {
    const el = cellElement(doc, collected, i);
    if (el) {
      el.scrollIntoView({ block: "center" });
      return "cell";
    }
    // A windowed list: its place, in proportion (the list renders the cells there).
    const table = SELECTORS[collected.adapter] || {};
    const scroller = table.scroller ? pick(doc, table.scroller).nodes.find((s) => s.scrollHeight > s.clientHeight) : null;
    if (scroller && (table.windowIndex || []).length) {
      scroller.scrollTop = Math.max(0, (scroller.scrollHeight * i) / Math.max(1, collected.cells.length) - scroller.clientHeight / 3);
      return "near";
    }
    for (let d = 1; d < collected.cellEls.length; d++) {
      for (const j of [i - d, i + d]) {
        const near = collected.cellEls[j];
        if (near && near.isConnected) {
          near.scrollIntoView({ block: j < i ? "start" : "end" });
          return "near";
        }
      }
    }
    return null;
  }

  /**
   * Watches for the cells a result names that were not in the page (virtualised): when one
   * renders, `onRender()` is called (to mark again). Stops when all have rendered, or after
   * `ms`. Returns a function that stops it.
   */
  function watch(doc, collected, pending, onRender, ms = 10 * 60 * 1000) {
    const table = SELECTORS[collected.adapter] || {};
    const waiting = new Set(pending.filter((i) => (collected.ids && collected.ids[i]) || (table.windowIndex || []).length));
    if (!waiting.size || !doc.body) return () => {};
    let timer = 0;
    const check = () => {
      let found = false;
      for (const i of Array.from(waiting)) {
        if (cellElement(doc, collected, i)) {
          waiting.delete(i);
          found = true;
        }
      }
      if (!waiting.size) stop();
      if (found) onRender();
    };
    const obs = new MutationObserver(() => {
      clearTimeout(timer);
      timer = setTimeout(check, 100);
    });
    const end = setTimeout(() => stop(), ms);
    function stop() {
      obs.disconnect();
      clearTimeout(end);
      clearTimeout(timer);
    }
    obs.observe(doc.body, { childList: true, subtree: true });
    return stop;
  }

  /** Marks an echo's element with an outline, keeping its own style to restore. */
  function outline(el) {
    el.setAttribute(ECHO, "");
    el.setAttribute(SAVED, el.hasAttribute("style") ? "s" + el.getAttribute("style") : "");
    style(el, { outline: "2px dashed rgba(161, 92, 0, 0.7)", "outline-offset": "2px" });
  }

  /** Removes every mark of ours from `doc`, leaving the page as it was. */
  function unmark(doc) {
    for (const b of Array.from(doc.querySelectorAll("[" + BADGE + "]"))) b.remove();
    for (const span of Array.from(doc.querySelectorAll("span[" + PART + "]"))) {
      const parent = span.parentNode;
      while (span.firstChild) parent.insertBefore(span.firstChild, span);
      span.remove();
      parent.normalize();
    }
    for (const el of Array.from(doc.querySelectorAll("[" + ATTR + "], [" + ECHO + "], [" + UNREAD + "]"))) {
      el.removeAttribute(ATTR);
      el.removeAttribute(ECHO);
      el.removeAttribute(UNREAD);
      if (el.hasAttribute(SAVED)) {
        const saved = el.getAttribute(SAVED);
        // Chrome writes CSSOM changes to the attribute lazily: read it first, or a late write
        // would bring back an empty style="" after the removal.
        el.getAttribute("style");
        if (saved) el.setAttribute("style", saved.slice(1));
        else el.removeAttribute("style");
        el.removeAttribute(SAVED);
      }
    }
  }

  // ----- inside a frame (Colab's outputframe; run by the extension's content script) -----

  const frame = {
    /** The outputs this frame shows: [{ kind, name, text }]. */
    collect(doc) {
      const els = outputsIn(doc);
      return els.map((el) => ({ kind: "stream", name: streamName(el), text: textOf(el) }));
    },
    /** Marks a line (role "first") or the frame's outputs (role "echo"). */
    mark(doc, role, line, text) {
      if (role === "first") {
        for (const el of outputsIn(doc)) if (markLine(el, text, line)) return "line";
        return null;
      }
      const els = outputsIn(doc);
      for (const el of els) outline(el);
      return els.length ? "echo" : null;
    },
    unmark,
  };

  function outputsIn(doc) {
    const hit = pick(doc, SELECTORS.colabFrame.output).nodes;
    const outer = hit.filter((n) => !hit.some((o) => o !== n && o.contains(n)));
    return outer.length ? outer : doc.body ? [doc.body] : [];
  }

  global.FirstAssertAdapters = { SELECTORS, SIGNAL, detect, collect, collectAll, fillGaps, unreadableCount, readPage, pageToData, pageFromData, selftest, mark, unmark, reveal, watch, frame, ATTR, ECHO, UNREAD };
})(typeof globalThis !== "undefined" ? globalThis : window);
