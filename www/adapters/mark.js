// Page adapters: marking what the report says in the page: the first assert's line
// wrapped in our own <span>, echoes outlined, a badge, scrolling a cell into view (Colab
// virtualises cells), and taking every mark away again. DOM is only changed by splitting text
// nodes, wrapping pieces in our own <span>s and setting data-first-assert* attributes.

import { SELECTORS, ATTR, ECHO, PART, BADGE, UNREAD, OLD, SAVED, pick } from "./selectors.js";
import { domCell } from "./collect.js";
import { langOf, say } from "./texts.js";

// A badge's sign, before its words (the catalogue's `host_badge_…`); a grey badge is a place not
// read.
const SIGNS = { first: "⚑", probe: "⚑", cpu: "⚑", unread: "?", old: "↺" };

function label(doc, what = "first") {
  return say(langOf(doc.defaultView), "badge_" + (SIGNS[what] ? what : "first"));
}

function style(el, props) {
  for (const [k, v] of Object.entries(props)) el.style.setProperty(k, v);
}

function badge(doc, what = "first") {
  const b = doc.createElement("span");
  b.setAttribute(BADGE, "");
  const sign = SIGNS[what] || SIGNS.first;
  const grey = sign !== "⚑";
  b.textContent = sign + " " + label(doc, what);
  style(b, {
    display: "inline-block",
    margin: "0 6px 0 0",
    padding: "0 6px",
    "border-radius": "8px",
    background: grey ? "#5f6368" : "#b3261e",
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
 * Wraps text [start, end) of `el` in one span carrying `attr`, with a badge (`what`) before it.
 * The range is widened over elements it covers from their start or to their end (a
 * coloured `RuntimeError` span at the start of the line); when it still cuts an element in
 * two, each text node it crosses gets a span of its own and the first carries `attr`.
 * Returns the span that carries `attr`.
 */
function wrap(el, start, end, attr, what) {
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
    span.parentNode.insertBefore(badge(doc, what), span);
  }
  return span;
}

/** Marks a line of an output element (its badge says `what`); the span, or null. */
function markLine(el, text, line, what = "first") {
  const at = findLine(el, text, line);
  if (!at) return null;
  const span = wrap(el, at[0], at[1], ATTR, what);
  if (span && span.scrollIntoView) span.scrollIntoView({ block: "center" });
  return span;
}

function markWhole(el, attr, what) {
  el.setAttribute(attr, "");
  if (attr === ATTR) {
    el.insertBefore(badge(el.ownerDocument, what), el.firstChild);
    if (el.scrollIntoView) el.scrollIntoView({ block: "center" });
  }
}

/**
 * Marks what a result says (protocol.js `result`): the first assert's line (or, confirmed,
 * the probe's or the CPU's error: "The probe caught it"), or its cell when the line sits in a
 * frame this document cannot read; each echo's output (or cell); cells not read, and cells
 * whose errors are from before the probed run, outlined in grey with a badge.
 * Returns { first: "line" | "frame" | "cell" | null, echoes, frames: [{ frame, role, line,
 * text }] }: the frames that a script inside them must mark.
 *
 * Output numbers index the collection's places, except when the cells came from the
 * notebook model (its outputs are not the page's elements): then the line is looked for by
 * its text in the cell's readable outputs.
 */
function mark(doc, collected, result) {
  unmark(doc);
  const out = { first: null, echoes: 0, unreadable: 0, superseded: 0, frames: [], pending: [] };
  // Cells whose outputs could not be read, or whose errors are older than the probed run:
  // outlined, with a grey badge.
  for (const [attr, what, list] of [[UNREAD, "unread", result && result.unreadable], [OLD, "old", result && result.superseded]]) {
    for (const i of list || []) {
      const el = cellElement(doc, collected, i);
      if (!el) {
        out.pending.push(i);
        continue;
      }
      el.setAttribute(attr, "");
      el.setAttribute(SAVED, el.hasAttribute("style") ? "s" + el.getAttribute("style") : "");
      style(el, { outline: "2px dotted rgba(95, 99, 104, 0.8)", "outline-offset": "2px" });
      el.insertBefore(badge(doc, what), el.firstChild);
      out[what === "old" ? "superseded" : "unreadable"]++;
    }
  }
  const f = result && result.first;
  const what = f && (f.kind === "probe" || f.kind === "cpu") ? f.kind : "first";
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
      if (p.el && (span = markLine(p.el, f.text, byIndex ? f.line : null, what))) break;
    }
    if (span) out.first = "line";
    else {
      for (const p of tries) if (p.frame) out.frames.push({ frame: p.frame, role: "first", kind: what, line: byIndex ? f.line : null, text: f.text });
      const cellEl = collected.cellEls[f.cell];
      if (cellEl) {
        markWhole(cellEl, ATTR, what);
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
  for (const el of Array.from(doc.querySelectorAll("[" + ATTR + "], [" + ECHO + "], [" + UNREAD + "], [" + OLD + "]"))) {
    for (const a of [ATTR, ECHO, UNREAD, OLD]) el.removeAttribute(a);
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

export { markLine, mark, reveal, watch, outline, unmark };
