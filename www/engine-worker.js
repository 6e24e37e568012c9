// The engine in a Web Worker, so that a large input never freezes the page: the package
// (pkg/) and one Session, answering the page's requests (engine.js) one at a time. Each
// request is one call of the package; nothing is decided here.

import init, { Session, version, setCatalogue } from "./pkg/first_assert.js";

const encoder = new TextEncoder();
let session = null;
/** The same input read again with what reads as quoted counted, after a clean verdict. */
let quoted = null;
const ready = init().then(() => {
  session = new Session();
  quoted = new Session();
});

/** A report and what the view needs of the session beside it (the map, the checklist's key). */
const answer = (s, report) => ({ report, key: s.storageKey() ?? null, map: report.verdict === "clean" ? [] : s.map() });

/** The answer to an analysis; after a clean verdict, also what the input holds that reads as
 * quoted, as the report it would make if it counted ("seen but not counted"). */
function result(report, again) {
  const out = answer(session, report);
  if (report.verdict === "clean") {
    const alt = again(quoted);
    if (alt && alt.verdict !== "clean") out.quoted = answer(quoted, alt);
  }
  return out;
}

const requests = {
  version: () => version(),
  catalogue: ({ json }) => setCatalogue(json),
  bytes: ({ bytes, name, opts }) =>
    result(session.analyzeBytes(bytes, name ?? undefined, opts), (s) => s.analyzeBytes(bytes, name ?? undefined, { ...opts, countQuoted: true })),
  text: ({ text, opts }) => requests.bytes({ bytes: encoder.encode(text), name: null, opts }),
  cells: ({ cells, opts }) => result(session.analyzeCells(cells, opts), (s) => s.analyzeCells(cells, { ...opts, countQuoted: true })),
  lang: ({ lang }) => {
    const report = session.setLang(lang);
    return report ? result(report, (s) => s.setLang(lang)) : null;
  },
  window: ({ cell, line, log, alt }) => (alt ? quoted : session).window(cell ?? undefined, line, log),
  reset: () => {
    session.free();
    quoted.free();
    session = new Session();
    quoted = new Session();
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
