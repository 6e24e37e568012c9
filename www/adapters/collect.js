// Page adapters: reading the cells a page shows (their source, execution count and
// outputs as text), joined with the page model's where the DOM lacks them, and the self-test of
// the selectors.

import { SELECTORS, pick, first, detect } from "./selectors.js";

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

export { textOf, streamName, domCell, unreadableCount, collect, collectAll, fillGaps, selftest };
