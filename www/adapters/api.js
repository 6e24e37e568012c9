// Page adapters: what a frame does (Colab's outputframe, run by the extension's content script
// there), and the adapters' public object.
//
// The adapters read a notebook's cells from the page it is shown in and mark what the report
// says. Plain JavaScript with no dependencies, shared by the bookmarklet and the extension's
// content scripts; they analyse nothing (the engine does, in our own origin). DOM is only read
// with textContent and only changed by splitting text nodes, wrapping pieces in our own
// <span>s and setting data-first-assert* attributes: never innerHTML, never Colab's own styles.
//
// The parts are ES modules (selectors.js, model.js, collect.js, mark.js, this file, and
// host.js for what a host does with the panel's answers); scripts/adapters-script.mjs bundles
// each host (the bookmarklet, the extension's content, frame and page-world scripts) with only
// what it imports, as one script a page runs.

import { SELECTORS, SIGNAL, ATTR, ECHO, UNREAD, OLD, pick, detect } from "./selectors.js";
import { readPage, pageFromData, pageToData } from "./model.js";
import { textOf, streamName, unreadableCount, collect, collectAll, fillGaps, selftest } from "./collect.js";
import { markLine, mark, reveal, watch, outline, unmark } from "./mark.js";

// ----- inside a frame (Colab's outputframe; run by the extension's content script) -----

export const frame = {
  /** The outputs this frame shows: [{ kind, name, text }]. */
  collect(doc) {
    const els = outputsIn(doc);
    return els.map((el) => ({ kind: "stream", name: streamName(el), text: textOf(el) }));
  },
  /** Marks a line (role "first"; its badge says `kind`: first, probe, cpu) or the frame's
   * outputs (role "echo"). */
  mark(doc, role, line, text, kind) {
    if (role === "first") {
      for (const el of outputsIn(doc)) if (markLine(el, text, line, kind)) return "line";
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

/** Everything, as one object (the tests' `FirstAssertAdapters`, global.js). */
export const Adapters = { SELECTORS, SIGNAL, detect, collect, collectAll, fillGaps, unreadableCount, readPage, pageToData, pageFromData, selftest, mark, unmark, reveal, watch, frame, ATTR, ECHO, UNREAD, OLD };
