// Page adapters, part 5 of 5: what a frame does (Colab's outputframe, run by the extension's
// content script there), and the adapters' public object.
//
// The adapters read a notebook's cells from the page it is shown in and mark what the report
// says. Plain JavaScript with no dependencies, shared by the bookmarklet and the extension's
// content scripts; they analyse nothing (the engine does, in our own origin). DOM is only read
// with textContent and only changed by splitting text nodes, wrapping pieces in our own
// <span>s and setting data-first-assert* attributes: never innerHTML, never Colab's own styles.
//
// The five parts (selectors.js, model.js, collect.js, mark.js, api.js) run in that order as one
// script (scripts/adapters-script.mjs joins them: the bookmarklet, the extension's adapters.js
// and the tests all take that text). Each part is its own closure that hands what later parts
// use to them through FirstAssertAdapterParts; this last one removes it and defines
// globalThis.FirstAssertAdapters = { SELECTORS, SIGNAL, detect, collect, collectAll, fillGaps,
// readPage, pageToData, pageFromData, selftest, mark, unmark, reveal, watch, frame: { collect,
// mark, unmark } }.

(function (global) {
  "use strict";
  if (global.FirstAssertAdapters) return;
  const parts = (global.FirstAssertAdapterParts = global.FirstAssertAdapterParts || {});
  const { SELECTORS, SIGNAL, ATTR, ECHO, UNREAD, OLD, pick, detect, readPage, pageFromData, pageToData, textOf, streamName, unreadableCount, collect, collectAll, fillGaps, selftest, markLine, mark, reveal, watch, outline, unmark } = parts;

  // ----- inside a frame (Colab's outputframe; run by the extension's content script) -----

  const frame = {
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

  global.FirstAssertAdapters = { SELECTORS, SIGNAL, detect, collect, collectAll, fillGaps, unreadableCount, readPage, pageToData, pageFromData, selftest, mark, unmark, reveal, watch, frame, ATTR, ECHO, UNREAD, OLD };
  delete global.FirstAssertAdapterParts;
})(typeof globalThis !== "undefined" ? globalThis : window);
