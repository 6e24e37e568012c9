// The engine in a Web Worker, so that a large input never freezes the page: the package
// (pkg/) and one Session, answering the page's requests (engine.js) one at a time. Each
// request is one call of the package; nothing is decided here.

import init, { Session, version, setCatalogue } from "./pkg/first_assert.js";

let session = null;
const ready = init().then(() => {
  session = new Session();
});

/** A report and what the view needs of the session beside it (the map, the checklist's key). */
const result = (report) => ({ report, key: session.storageKey() ?? null, map: report.verdict === "clean" ? [] : session.map() });

const requests = {
  version: () => version(),
  catalogue: ({ json }) => setCatalogue(json),
  bytes: ({ bytes, name, opts }) => result(session.analyzeBytes(bytes, name ?? undefined, opts)),
  cells: ({ cells, opts }) => result(session.analyzeCells(cells, opts)),
  lang: ({ lang }) => {
    const report = session.setLang(lang);
    return report ? result(report) : null;
  },
  window: ({ cell, line, log }) => session.window(cell ?? undefined, line, log),
  reset: () => {
    session.free();
    session = new Session();
    return null;
  },
};

self.addEventListener("message", async (e) => {
  const { id, op, args } = e.data ?? {};
  try {
    await ready;
    if (!Object.hasOwn(requests, op)) throw new Error(`unknown request ${op}`);
    self.postMessage({ id, value: requests[op](args ?? {}) });
  } catch (err) {
    self.postMessage({ id, error: err?.message ?? String(err) });
  }
});
