// Page adapters: read a notebook's cells from the page it is shown in, and mark what the
// report says. Plain JavaScript with no dependencies, shared by the bookmarklet and the
// extension's content scripts; it analyses nothing (the engine does, in our own origin).
//
// Every selector lives in SELECTORS, one versioned table per front end, each entry a list of
// fallbacks tried in order; selftest() says which ones matched. DOM is only read with
// textContent and only changed by splitting text nodes, wrapping pieces in our own <span>s
// and setting data-first-assert* attributes: never innerHTML, never Colab's own styles.
//
// Defines globalThis.FirstAssertAdapters = { SELECTORS, detect, collect, selftest, mark,
// unmark, frame: { collect, mark, unmark } }.

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

  const ATTR = "data-first-assert";
  const ECHO = "data-first-assert-echo";
  const PART = "data-first-assert-part";
  const BADGE = "data-first-assert-badge";
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

  /** Which selectors of the detected front end match: [{ name, matched, count, tried }]. */
  function selftest(doc) {
    const adapter = detect(doc);
    const table = SELECTORS[adapter];
    if (!table) return { adapter, version: null, entries: [] };
    const entries = Object.keys(table)
      .filter((k) => k !== "version")
      .map((name) => {
        const hit = pick(doc, table[name]);
        return { name, matched: hit.selector, count: hit.nodes.length, tried: table[name] };
      });
    return { adapter, version: table.version, entries };
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

  /**
   * Reads the notebook: { adapter, version, cells (the engine's cell-list shape), places }.
   * `places[i]` lists, for cell i, its outputs as { el } (readable) or { frame } (an iframe
   * whose text a script inside it has to send), and `cellEls[i]` the cell's element.
   * `model`, when given, is nbformat JSON from the page's own notebook model (Colab's, which
   * only page-world code can reach): its outputs include what sits in cross-origin frames.
   */
  function collect(doc, model) {
    const adapter = detect(doc);
    const table = SELECTORS[adapter];
    if (!table || !table.cell) return collectGeneric(doc);
    const cellEls = pick(doc, table.cell).nodes;
    const cells = [];
    const places = [];
    cellEls.forEach((cellEl, index) => {
      const code = cellEl.matches(table.codeCell.join(","));
      const outs = code ? outputsOf(cellEl, table) : [];
      const outputs = [];
      const where = [];
      for (const o of outs) {
        if (o.tagName === "IFRAME") {
          where.push({ frame: o });
          outputs.push({ kind: "stream", name: "stderr", text: "" });
        } else {
          where.push({ el: o });
          outputs.push({ kind: "stream", name: streamName(o), text: textOf(o) });
        }
      }
      const cell = { index, execution_count: code ? executionCount(cellEl, table) : null, cell_type: code ? "code" : "markdown", outputs };
      const source = code ? sourceOf(cellEl, table) : undefined;
      if (source !== undefined) cell.source = source;
      cells.push(cell);
      places.push(where);
    });
    const fromModel = modelCells(model, cells.length);
    return { adapter, version: table.version, cells: fromModel || cells, places, cellEls, fromModel: !!fromModel };
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
    if (sel.trim()) {
      return { adapter: "generic", version: null, cells: [{ index: 0, execution_count: null, outputs: [{ kind: "stream", name: "stdout", text: sel }] }], places: [[]], cellEls: [null] };
    }
    const pres = Array.from(doc.querySelectorAll("pre"));
    return {
      adapter: "generic",
      version: null,
      cells: pres.map((p, index) => ({ index, execution_count: null, outputs: [{ kind: "stream", name: "stdout", text: textOf(p) }] })),
      places: pres.map((p) => [{ el: p }]),
      cellEls: pres,
    };
  }

  // ----- marking -----

  function label(doc) {
    const lang = ((doc.defaultView && doc.defaultView.navigator.language) || "en").toLowerCase();
    return lang.startsWith("zh") ? "第一个 device-side assert" : "first device-side assert";
  }

  function style(el, props) {
    for (const [k, v] of Object.entries(props)) el.style.setProperty(k, v);
  }

  function badge(doc) {
    const b = doc.createElement("span");
    b.setAttribute(BADGE, "");
    b.textContent = "⚑ " + label(doc);
    style(b, {
      display: "inline-block",
      margin: "0 6px 0 0",
      padding: "0 6px",
      "border-radius": "8px",
      background: "#b3261e",
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
    const out = { first: null, echoes: 0, frames: [] };
    const f = result && result.first;
    if (f && Number.isInteger(f.cell)) {
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
      const place = collected.fromModel ? null : (collected.places[e.cell] || [])[e.output];
      if (place && place.frame) out.frames.push({ frame: place.frame, role: "echo", line: e.line });
      const target = place && place.el ? place.el : collected.cellEls[e.cell];
      if (target && !target.hasAttribute(ECHO)) {
        outline(target);
        out.echoes++;
      }
    }
    return out;
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
    for (const el of Array.from(doc.querySelectorAll("[" + ATTR + "], [" + ECHO + "]"))) {
      el.removeAttribute(ATTR);
      el.removeAttribute(ECHO);
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

  global.FirstAssertAdapters = { SELECTORS, detect, collect, selftest, mark, unmark, frame, ATTR, ECHO };
})(typeof globalThis !== "undefined" ? globalThis : window);
