// The embedded-mode message protocol: how a host (the bookmarklet's popup opener, the
// extension's content script, a page that frames this one) hands cells to the page and learns
// where the first assert is. Pure functions, no DOM: app.js wires them to `message` events,
// tests/e2e/protocol.test.mjs checks them in Node.
//
// Host -> page (window.postMessage to this page, or over a MessagePort sent along with it):
//   { type: "first-assert:analyze", protocol: 1, id, cells }   cells: the cell list (docs/report.md)
//   { type: "first-assert:analyze", protocol: 1, id, text }    a log instead of cells
//   optional: lang ("en" | "zh"), title (shown above the report)
//   { type: "first-assert:hello", protocol: 1 }                asks for a "ready" answer
// Page -> host (to the sender's origin only, never "*", or over the port that came with it):
//   { type: "first-assert:ready", protocol: 1, version }       on load (to parent/opener,
//                                                              carries no data) and on hello
//   { type: "first-assert:result", protocol: 1, id, verdict, headline, category, rule,
//     first, raised_at, echoes, unreadable, superseded }       where things are (see result():
//                                                              `first` is the probe's or the
//                                                              CPU's error when confirmed)
//   { type: "first-assert:error", protocol: 1, id, message }   the request was refused
//   { type: "first-assert:reveal", protocol: 1, cell, line }   the user asked to see a place
//   { type: "first-assert:marks", protocol: 1, on }            the user turned the marks on/off
//
// When the host's page cuts the link to the windows it opens (Cross-Origin-Opener-Policy),
// the bookmarklet also puts the cells in the URL fragment: #cells=<base64url(deflate-raw(
// JSON {cells}))>. unpackCells() reads it, with the same bounds and schema checks.
//
// Every message is checked: its origin against the allowlist, its shape against the schema
// below (unknown types and fields are refused, sizes are bounded). The engine checks the
// cells again in Rust.

export const PROTOCOL = 1;
export const PREFIX = "first-assert:";

/** Bounds on what a host may send. */
export const LIMITS = Object.freeze({
  cells: 10000,
  outputs: 1000,
  bytes: 100 * 1024 * 1024,
  id: 128,
  title: 200,
});

/** Hosts whose pages may send cells: Colab, Kaggle (its editor is JupyterLab in a
 * *.jupyter-proxy.kaggle.net frame), and Jupyter served from this machine. The page's own
 * origin (the extension's pages, a page framing another copy) is allowed too. */
export const ALLOWED_HOSTS = Object.freeze([
  { protocol: "https:", host: "colab.research.google.com" },
  { protocol: "https:", host: "www.kaggle.com" },
  { protocol: "https:", host: "kaggle.com" },
  { protocol: "https:", suffix: ".jupyter-proxy.kaggle.net" },
]);
const LOCAL_HOSTS = ["localhost", "127.0.0.1", "[::1]"];

/** Whether a message from `origin` is accepted by a page at `selfOrigin`. */
export function isAllowedOrigin(origin, selfOrigin) {
  if (typeof origin !== "string" || origin === "null" || origin === "") return false;
  if (origin === selfOrigin) return true;
  let u;
  try {
    u = new URL(origin);
  } catch {
    return false;
  }
  // Only a bare origin: no path, credentials, query or fragment smuggled in.
  if (u.origin !== origin) return false;
  const known = (a) => a.protocol === u.protocol && (a.host ? a.host === u.host : u.hostname.endsWith(a.suffix) && !u.port);
  if (ALLOWED_HOSTS.some(known)) return true;
  return (u.protocol === "http:" || u.protocol === "https:") && LOCAL_HOSTS.includes(u.hostname);
}

const TOP_FIELDS = {
  [PREFIX + "hello"]: ["type", "protocol"],
  [PREFIX + "analyze"]: ["type", "protocol", "id", "cells", "text", "lang", "title", "sources"],
};
const CELL_FIELDS = ["index", "execution_count", "cell_type", "source", "outputs", "metadata", "id", "attachments"];
const OUTPUT_FIELDS = ["kind", "output_type", "name", "text", "ename", "evalue", "traceback", "data", "metadata", "execution_count", "transient", "reason"];
/** What the adapter says it read (adapters.js `collect().sources`): counts and short names. */
const SOURCE_FIELDS = ["adapter", "version", "page", "json", "dom", "frames", "unreadable", "virtualised", "framesRead", "swept"];

class Refused extends Error {}

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

function onlyFields(obj, allowed, what) {
  for (const k of Object.keys(obj)) {
    if (!allowed.includes(k)) throw new Refused(`${what}: unknown field "${k.slice(0, 40)}"`);
  }
}

/** Adds up the string lengths in a JSON-like value (depth-bounded), refusing other types. */
function textSize(v, what, depth = 0) {
  if (depth > 6) throw new Refused(`${what}: nested too deeply`);
  if (typeof v === "string") return v.length;
  if (typeof v === "number" || typeof v === "boolean" || v === null || v === undefined) return 0;
  if (Array.isArray(v)) return v.reduce((n, x) => n + textSize(x, what, depth + 1), 0);
  if (isObject(v)) return Object.values(v).reduce((n, x) => n + textSize(x, what, depth + 1), 0);
  throw new Refused(`${what}: not JSON data`);
}

function checkCells(cells) {
  if (!Array.isArray(cells)) throw new Refused("cells: not an array");
  if (cells.length > LIMITS.cells) throw new Refused(`cells: more than ${LIMITS.cells}`);
  cells.forEach((c, i) => {
    const what = `cells[${i}]`;
    if (!isObject(c)) throw new Refused(`${what}: not an object`);
    onlyFields(c, CELL_FIELDS, what);
    if (c.index !== undefined && !(Number.isInteger(c.index) && c.index >= 0)) throw new Refused(`${what}.index: not a cell index`);
    if (c.execution_count !== undefined && c.execution_count !== null && !Number.isInteger(c.execution_count)) {
      throw new Refused(`${what}.execution_count: not an integer`);
    }
    if (c.outputs !== undefined) {
      if (!Array.isArray(c.outputs)) throw new Refused(`${what}.outputs: not an array`);
      if (c.outputs.length > LIMITS.outputs) throw new Refused(`${what}.outputs: more than ${LIMITS.outputs}`);
      c.outputs.forEach((o, j) => {
        if (!isObject(o)) throw new Refused(`${what}.outputs[${j}]: not an object`);
        onlyFields(o, OUTPUT_FIELDS, `${what}.outputs[${j}]`);
      });
    }
  });
}

/**
 * Checks a message's data. Returns `{ kind: "hello" }`, `{ kind: "analyze", id, cells | text,
 * lang, title }`, or `null` for data that is not ours (other scripts' messages: ignored), and
 * throws an Error with a short reason for ours that break the schema.
 */
export function parseMessage(data) {
  if (!isObject(data) || typeof data.type !== "string" || !data.type.startsWith(PREFIX)) return null;
  const fields = TOP_FIELDS[data.type];
  if (!fields) throw new Refused(`unknown message type "${data.type.slice(0, 60)}"`);
  onlyFields(data, fields, "message");
  if (data.protocol !== PROTOCOL) throw new Refused(`protocol ${String(data.protocol).slice(0, 20)} is not supported (this page speaks ${PROTOCOL})`);
  if (data.type === PREFIX + "hello") return { kind: "hello" };

  const id = data.id;
  const idOk = (typeof id === "string" && id.length <= LIMITS.id) || (typeof id === "number" && Number.isFinite(id));
  if (!idOk) throw new Refused("id: a string of at most 128 characters or a number is required");
  const hasCells = data.cells !== undefined;
  const hasText = data.text !== undefined;
  if (hasCells === hasText) throw new Refused("exactly one of cells and text is required");
  if (hasText && typeof data.text !== "string") throw new Refused("text: not a string");
  if (hasCells) checkCells(data.cells);
  if (data.lang !== undefined && data.lang !== "en" && data.lang !== "zh") throw new Refused('lang: "en" or "zh"');
  if (data.title !== undefined && (typeof data.title !== "string" || data.title.length > LIMITS.title)) {
    throw new Refused(`title: a string of at most ${LIMITS.title} characters`);
  }
  if (data.sources !== undefined) {
    if (!isObject(data.sources)) throw new Refused("sources: not an object");
    onlyFields(data.sources, SOURCE_FIELDS, "sources");
    for (const [k, v] of Object.entries(data.sources)) {
      const ok = v === null || (Number.isInteger(v) && v >= 0) || (typeof v === "string" && v.length <= 40);
      if (!ok) throw new Refused(`sources.${k}: a count, a short name or null`);
    }
  }
  const size = hasText ? data.text.length : textSize(data.cells, "cells");
  if (size > LIMITS.bytes) throw new Refused(`the input is larger than ${LIMITS.bytes / 1024 / 1024} MB`);
  return {
    kind: "analyze",
    id,
    cells: hasCells ? data.cells : undefined,
    text: hasText ? data.text : undefined,
    lang: data.lang,
    title: data.title,
    sources: data.sources,
  };
}

const place = (l) =>
  l ? { cell: l.cell ?? null, line: l.line, execution_count: l.execution_count ?? null, output: l.output ?? null } : null;

/** The answer to an analyze request: where the first assert (or the error that confirmed its
 * cause: kind "probe" or "cpu") and its echoes are, the cells that could not be read and those
 * whose errors are from before the probed run. */
export function result(id, report) {
  // A confirmed report's place is its error line (the probe's, or the CPU's), kind its source.
  const c = report.confirmation;
  const f = report.first_assert ?? (c && { ...c.at, text: c.text, kind: c.source });
  return {
    type: PREFIX + "result",
    protocol: PROTOCOL,
    id,
    verdict: report.verdict,
    headline: report.headline,
    category: report.cause ? report.cause.category : null,
    rule: report.cause ? report.cause.rule : null,
    first: f ? { ...place(f), text: f.text, kind: f.kind } : null,
    raised_at: report.raised_at ? { ...place(report.raised_at), text: report.raised_at.text } : null,
    echoes: report.echoes.map(place),
    unreadable: report.input?.unreadable_cells ?? [],
    superseded: report.input?.superseded_cells ?? [],
  };
}

export const ready = (version) => ({ type: PREFIX + "ready", protocol: PROTOCOL, version });
export const refusal = (id, message) => ({ type: PREFIX + "error", protocol: PROTOCOL, id: id ?? null, message });
export const reveal = (cell, line) => ({ type: PREFIX + "reveal", protocol: PROTOCOL, cell, line });
export const marks = (on) => ({ type: PREFIX + "marks", protocol: PROTOCOL, on: !!on });

/**
 * The cells in a `#cells=` fragment: base64url of deflate-raw of JSON `{cells}`. Throws an
 * Error with a reason when it is malformed, inflates past LIMITS.bytes, or breaks the schema.
 */
export async function unpackCells(packed) {
  if (typeof packed !== "string" || !/^[A-Za-z0-9_-]+$/.test(packed)) throw new Refused("the fragment is not base64url");
  const bin = atob(packed.replace(/-/g, "+").replace(/_/g, "/"));
  const bytes = Uint8Array.from(bin, (c) => c.charCodeAt(0));
  const reader = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate-raw")).getReader();
  const parts = [];
  let size = 0;
  for (;;) {
    let chunk;
    try {
      chunk = await reader.read();
    } catch {
      throw new Refused("the fragment is not deflate data");
    }
    if (chunk.done) break;
    size += chunk.value.length;
    if (size > LIMITS.bytes) {
      await reader.cancel();
      throw new Refused(`the fragment inflates past ${LIMITS.bytes / 1024 / 1024} MB`);
    }
    parts.push(chunk.value);
  }
  let data;
  try {
    data = JSON.parse(new TextDecoder().decode(await new Blob(parts).arrayBuffer()));
  } catch {
    throw new Refused("the fragment is not JSON");
  }
  if (!isObject(data)) throw new Refused("the fragment holds no cells");
  return parseMessage({ type: PREFIX + "analyze", protocol: PROTOCOL, id: "fragment", cells: data.cells }).cells;
}
