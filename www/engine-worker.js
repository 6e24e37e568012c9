// The engine in a Web Worker, so that a large input never freezes the page: the package
// (pkg/) and one Session, answering the page's requests (engine.js) one at a time. Each
// request is one call of the package; nothing is decided here. A large log file is read a
// block at a time (`file`): the package's memory stays bounded whatever its size, progress
// goes to the page as the blocks pass, `cancel` stops the reading, and a window's lines are
// read back from the file.

import init, { Session, version, setCatalogue, sniff } from "./pkg/first_assert.js";

const encoder = new TextEncoder();
let session = null;
/** The same input read again with what reads as quoted counted, after a clean verdict. */
let quoted = null;
/** The package's linear memory (its size is the most it ever held: it only grows). */
let memory = null;
/** What the worker has done (a test's hook): analyses begun, and bytes of files read. */
const work = { analyses: 0, fileBytes: 0 };
const ready = init().then((wasm) => {
  memory = wasm.memory;
  session = new Session();
  quoted = new Session();
});

/** The page hears of a file's reading every this many bytes. */
const BLOCK = 4 << 20;
/** The file the session read a block at a time (its windows are read back from it), and its
 * options. */
let streamed = null;
/** Counts readings: a reading whose number is no longer this one was cancelled, or another
 * request took the session, and it stops at its next block. */
let reading = 0;

/** Reads `file` a block at a time (as its stream gives them, each handed to the engine and let
 * go); posts `{ id, progress: { read, total, seen } }` (`seen`: the line of the earliest
 * device-side assert so far) every BLOCK bytes. */
async function stream(id, file, opts) {
  const mine = ++reading;
  streamed = null;
  work.analyses++;
  session.beginStream(opts);
  let seen = null;
  // The file's own stream: the browser reads ahead while the engine reads what came.
  const reader = file.stream().getReader();
  let read = 0;
  let told = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (mine !== reading) {
      reader.cancel().catch(() => {});
      return { cancelled: true };
    }
    if (done) break;
    seen = session.feedStream(value) ?? seen;
    read += value.length;
    work.fileBytes += value.length;
    if (read - told >= BLOCK || read === file.size) {
      told = read;
      self.postMessage({ id, progress: { read, total: file.size, seen } });
    }
  }
  const report = session.finishStream();
  streamed = { file, opts };
  // (The second reading, with what reads as quoted counted, is left out: a file this size is
  // a run's log, not a pasted excerpt.)
  return answer(session, report);
}

/** A window's lines: for a streamed file, its bytes are read back first. */
async function windowOf(s, { cell, line, log }) {
  const span = s === session && streamed ? s.windowSpan(line ?? undefined, log ?? undefined) : null;
  if (span) {
    const [start, end, first] = span;
    s.loadLines(first, new Uint8Array(await streamed.file.slice(start, Math.min(end, streamed.file.size)).arrayBuffer()));
  }
  return s.window(cell ?? undefined, line ?? undefined, log ?? undefined);
}

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
  sniff: ({ head, name }) => sniff(head, name ?? undefined),
  file: ({ file, opts }, id) => stream(id, file, opts),
  cancel: () => {
    reading++;
    return null;
  },
  memory: () => memory.buffer.byteLength,
  work: () => ({ ...work }),
  catalogue: ({ json }) => setCatalogue(json),
  bytes: ({ bytes, name, opts }) => {
    streamed = null;
    reading++;
    work.analyses++;
    return result(session.analyzeBytes(bytes, name ?? undefined, opts), (s) => (work.analyses++, s.analyzeBytes(bytes, name ?? undefined, { ...opts, countQuoted: true })));
  },
  text: ({ text, opts }) => requests.bytes({ bytes: encoder.encode(text), name: null, opts }),
  cells: ({ cells, opts }) => {
    streamed = null;
    reading++;
    work.analyses++;
    return result(session.analyzeCells(cells, opts), (s) => (work.analyses++, s.analyzeCells(cells, { ...opts, countQuoted: true })));
  },
  lang: ({ lang }) => {
    // The session words what it found again: nothing is analysed again, and a streamed file is
    // not read again.
    const report = session.setLang(lang);
    if (!report) return null;
    return streamed ? answer(session, report) : result(report, (s) => s.setLang(lang));
  },
  window: (args) => windowOf(args.alt ? quoted : session, args),
  reset: () => {
    streamed = null;
    reading++;
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
    self.postMessage({ id, value: await requests[op](args ?? {}, id) });
  } catch (err) {
    self.postMessage({ id, error: err?.message ?? String(err) });
  }
});
