// The page's bootstrap: loads the engine, wires the paste box, the file picker, drag and drop,
// the demos, the language switch and embedded mode to it. It decides nothing about logs: the
// engine (Rust, in pkg/) analyses and renders. Every text from the input reaches the DOM
// through the engine's renderer or through textContent here.

import { startEngine } from "./engine.js";
import { ReportView } from "./report-view.js";
import { writeClipboard, selectCode } from "./view/clipboard.js";

/** The largest input the page reads whole: a notebook (parsed whole), a paste, a log of at most
 * STREAM_FROM. A log file larger than that is read a block at a time in the worker, whatever
 * its size. */
const MAX_BYTES = 100 * 1024 * 1024;
/** Log files larger than this are read a block at a time (the worker's memory stays bounded;
 * progress and Cancel shown); smaller ones whole (the GB18030 check needs every byte). */
const STREAM_FROM = 16 * 1024 * 1024;
/** Quiet time after the last keystroke before analysing typed or pasted text. */
const DEBOUNCE_MS = 150;
/** A larger box is analysed after a longer pause (typing in it must not wait on the engine). */
const BIG_BOX = 256 * 1024;
const BIG_BOX_DEBOUNCE_MS = 800;
/** An analysis that takes longer than this says it is working. */
const WORKING_MS = 150;
/** Pastes longer than this are analysed without going into the paste box: a text area holding
 * megabytes makes the browser slow at every keystroke and scroll. */
const SHOW_LIMIT = 256 * 1024;
const LANG_KEY = "first-assert:lang";

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const embedded = params.has("embed");
/** protocol.js, loaded in embedded mode only. */
let protocol = null;

/** The engine, in a Web Worker (engine.js). */
let engine;
let engineVersion = "";
let view;
let lang = "en";
let texts = {};
/** Resolves when the texts of the page's language are loaded and applied (boot()). */
let textsReady = null;
/** The catalogue of each language loaded so far, as data: the page's own texts come from it. */
const catalogues = {};
/** Where embedded-mode answers and reveal requests go: the last accepted host. */
let host = null;
/** Whether an allowed host has talked to us (then the URL fragment is not needed). */
let contacted = false;
/** Whether the host shows our marks (the toggle of embedded mode). */
let marksOn = true;
/** The last analysis shown, to run again when the runtime log beside it changes. */
let last = null;
/** Where the input came from, when the page knows: "colab" for cells sent from Colab. */
let inputHost = null;
/** The runtime log beside the input (the box below the paste box, or a file opened there). */
let runtimeLog = "";

function store() {
  try {
    return window.localStorage;
  } catch {
    return null; // storage blocked (sandboxed frame, privacy settings): nothing is remembered
  }
}

function pickLang() {
  const asked = params.get("lang");
  if (asked === "en" || asked === "zh") return asked;
  const kept = store()?.getItem(LANG_KEY);
  if (kept === "en" || kept === "zh") return kept;
  const langs = navigator.languages?.length ? navigator.languages : [navigator.language || "en"];
  for (const l of langs) {
    const tag = String(l).toLowerCase();
    if (tag.startsWith("zh")) return "zh";
    if (tag.startsWith("en")) return "en";
  }
  return "en";
}

/** The texts of a language: the engine carries none, each language is a document beside the
 * package, fetched once (the service worker keeps it for offline use), in two parts: `page`,
 * all but the probe's code, for the first visit, and `probe`, before the first analysis. */
async function fetchTexts(l, part = "page") {
  const res = await fetch(`pkg/first-assert.${l}.${part}.json`);
  if (!res.ok) throw new Error(`the texts in ${l} could not be loaded (${res.status})`);
  return res.text();
}

/** The probe's code of each language handed to the engine (a promise each, fetched once). */
const probes = {};

/** Waits until the engine has the probe's code of `l`, the part of its texts an answer may
 * hand out that a first visit does not fetch. (Requests reach the worker in order: the
 * analysis sent after it is made with it.) */
function probeTexts(l) {
  probes[l] ??= fetchTexts(l, "probe")
    .then((json) => engine.setCatalogue(json))
    .catch((e) => {
      delete probes[l];
      throw e;
    });
  return probes[l];
}

/** Hands a language's catalogue to the engine and keeps its messages for the page. The worker
 * takes requests in order, so the analyses sent after it are made with it; not waited for. */
function useTexts(json) {
  const doc = JSON.parse(json);
  engine.setCatalogue(json).catch((e) => status(fill("page_read_error", { error: e?.message ?? String(e) }), "error"));
  catalogues[doc.lang] = doc.messages;
}

async function loadTexts(l) {
  if (!catalogues[l]) await useTexts(await fetchTexts(l));
}

function fill(key, args = {}) {
  return (texts[key] ?? key).replace(/\{(\w+)\}/g, (m, name) => (name in args ? String(args[name]) : m));
}

function applyTexts() {
  texts = catalogues[lang];
  document.documentElement.lang = lang === "zh" ? "zh-Hans" : "en";
  document.title = fill("page_title");
  for (const el of document.querySelectorAll("[data-i18n]")) el.textContent = fill(el.dataset.i18n);
  pastedBig(bigPaste?.mb);
  $("runtime-log").placeholder = fill("page_runtime_log_placeholder");
  $("lang").value = lang;
}

function status(text, kind = "") {
  const s = $("status");
  s.textContent = text;
  s.className = "status" + (kind ? " " + kind : "");
  s.setAttribute("role", kind === "error" ? "alert" : "status");
}

const mb = (n) => Math.round((n / 1024 / 1024) * 10) / 10;

function tooLarge(bytes) {
  status(fill("page_too_large", { mb: mb(bytes), max: mb(MAX_BYTES) }), "error");
}

/** The options of every analysis: the language, the runtime log when one is given, and the
 * package index a notebook's steps install the extension from, when the site serves one. */
function options() {
  return { lang, runtimeLog: runtimeLog.trim() ? runtimeLog : null, host: inputHost, index: siteIndex() };
}

/** A paste too big for the box ({ mb }): the box says what became of it until the next input. */
let bigPaste = null;

function pastedBig(mb) {
  bigPaste = mb == null ? null : { mb };
  $("log").placeholder = bigPaste ? fill("page_pasted_big", bigPaste) : fill("page_placeholder");
  $("log").classList.toggle("pasted-big", bigPaste != null);
}

/** Where the report will be, while a file is read: that it is being read, not "paste to start". */
function reading(bytes) {
  const empty = $("report").querySelector(".empty");
  if (empty) empty.textContent = fill("page_reading", { mb: (bytes / 1048576).toFixed(1) });
}

/** Says the verdict in the live region (after every analysis, not only where the input came
 * from). The card shows the verdict: on screen the line keeps only where the input came from. */
function announce(origin, report) {
  const full = origin ? fill("page_announce", { origin, headline: report.headline }) : report.headline;
  const shown = origin && full.startsWith(origin) ? origin : "";
  const hidden = document.createElement("span");
  hidden.className = "fa-sr";
  hidden.textContent = full.slice(shown.length);
  status("");
  $("status").append(shown, hidden);
}

/** What the shown report was made from ({ text }, { bytes, name } or { cells }): the versions a
 * shared report names are read from it. */
let lastInput = null;
/** The versions an opened shared link carries (its report has no input beside it). */
let sharedSeen = null;
/** share.js, and its documents by language (the table and the Markdown report's texts),
 * loaded at the first share or shared link. */
let shareCode = null;
const shareDocs = {};

function loadShare(l) {
  shareCode ??= import("./share.js").catch((e) => {
    shareCode = null;
    throw e;
  });
  shareDocs[l] ??= fetch(`pkg/share.${l}.json`)
    .then((r) => {
      if (!r.ok) throw new Error(`pkg/share.${l}.json: ${r.status}`);
      return r.json();
    })
    .catch((e) => {
      delete shareDocs[l];
      throw e;
    });
  return Promise.all([shareCode, shareDocs[l]]);
}

/** Where a shared link points: this page, or (in the extension, whose pages others cannot
 * open) the site the build names. */
function shareBase() {
  if (/^https?:$/.test(location.protocol)) return location.origin + location.pathname;
  const site = document.querySelector("meta[name=first-assert-site]")?.content ?? "";
  return site ? site.replace(/\/?$/, "/") : location.origin + location.pathname;
}

/** The view's share buttons: the Markdown or the link of the report shown, and what to say. */
async function share(kind, hide) {
  const report = view.report;
  const [mod, doc] = await loadShare(report.lang);
  const s = new mod.Sharer(doc.table, { ...(catalogues[report.lang] ?? texts), ...doc.messages });
  const seen = sharedSeen ?? s.seen(mod.inputText(lastInput));
  const hiddenNote = (c) => (c ? s.hiddenLine(c) : fill("view_share_not_hidden"));
  if (kind === "markdown") {
    const { markdown, hidden } = s.markdown(report, seen, hide);
    return { text: markdown, note: hiddenNote(hidden) };
  }
  const { url, cut, hidden } = await s.link(shareBase(), report, seen, hide);
  const size = fill("view_share_link_size", { kb: (url.length / 1024).toFixed(1) });
  return { text: url, note: [size, cut ? fill(`view_share_cut_${cut}`) : "", hiddenNote(hidden)].filter(Boolean).join(" ") };
}

/** A shared link (#r1.…): its report, read-only, with no input box until the reader asks.
 * Anything wrong with the fragment is said plainly; nothing of it is run. */
async function openShared() {
  document.body.classList.add("shared-view");
  $("shared-banner").hidden = false;
  try {
    const mod = await (shareCode ??= import("./share.js"));
    const p = await mod.unpack(location.hash);
    if (!catalogues[p.report.lang]) useTexts(await fetchTexts(p.report.lang));
    sharedSeen = p.seen;
    view.show(p.report, null, catalogues[p.report.lang]);
    $("shared-cut").textContent = p.cut ? fill(`page_shared_cut_${Math.min(p.cut, 3)}`) : "";
    status(p.report.headline);
  } catch (e) {
    clearReport();
    status(fill(`page_shared_error_${["too_long", "unsupported"].includes(e?.code) ? e.code : "damaged"}`), "error");
  }
}

/** Leaves a shared report for the page's own input. */
function leaveShared() {
  document.body.classList.remove("shared-view");
  $("shared-banner").hidden = true;
  history.replaceState(null, "", location.pathname + location.search);
  sharedSeen = null;
  clearReport();
  status("");
  $("log").focus();
}

/** Counts analyses, so an answer that arrives after a newer request is dropped. */
let generation = 0;

/** Runs one analysis (a function of the options, resolving to the engine's answer) and shows
 * it; engine errors (a broken notebook, a binary file) become a clear message instead of a
 * report. The page stays responsive meanwhile; past WORKING_MS it says it is reading. */
async function show(analyse, origin = "", reveal = false, bytes = 0, input = null) {
  await textsReady; // input taken before the texts arrived waits for them (boot())
  last = { analyse, origin, bytes };
  lastInput = input;
  sharedSeen = null;
  const mine = ++generation;
  const working = setTimeout(() => {
    if (mine === generation && $("progress").hidden) status(fill("page_reading", { mb: (bytes / 1048576).toFixed(1) }), "working");
  }, WORKING_MS);
  try {
    const opts = options();
    await probeTexts(opts.lang);
    const answer = await analyse(opts);
    if (mine !== generation) return null;
    if (answer.cancelled) {
      clearReport();
      status(fill("page_cancelled"));
      return null;
    }
    const report = answer.report;
    view.show(report, engine.session(answer), catalogues[lang]);
    announce(origin, report);
    // After a paste, a file, a drop or a demo (not each keystroke) the answer comes into view.
    // After the first frame has laid the report out: the scroll then costs nothing, and the
    // page never does both in one long task.
    if (reveal) requestAnimationFrame(() => setTimeout(() => view.focusAnswer(), 0));
    // On Colab without the kernel's lines: the place to add them opens.
    if (report.notes?.some((n) => n.id === "kernel_lines_in_runtime_log")) $("runtime-log-panel").open = true;
    return report;
  } catch (e) {
    if (mine !== generation) return null;
    clearReport(); // no stale report under the error
    status(fill("page_read_error", { error: e?.message ?? String(e) }), "error");
    return null;
  } finally {
    clearTimeout(working);
    if (mine === generation) $("progress").hidden = true;
  }
}

/** Shows a file's reading as it goes: "Reading 212 of 572 MB…", a bar, and the line of the
 * first device-side assert once one has passed (the verdict settles at the end). */
function progress({ read, total, seen }) {
  $("progress").hidden = false;
  $("progress-bar").max = total;
  $("progress-bar").value = read;
  const text = fill("page_progress", { read: Math.round(read / 1048576), total: Math.round(total / 1048576) });
  $("progress-text").textContent = seen == null ? text : `${text} ${fill("page_progress_seen", { line: seen.toLocaleString(lang === "zh" ? "zh-CN" : "en") })}`;
  status("");
}

/** The bytes of a file the engine decides how to read it from (the command line's decision:
 * a notebook or not, and the log's encoding, from its first non-ASCII bytes within these). */
const HEAD = 4 * 1024 * 1024;

/** A large log file, read a block at a time in the worker. */
function streamFile(file) {
  $("log").value = "";
  pastedBig(null);
  reading(file.size);
  const origin = `${file.name} · ${Math.round(file.size / 1048576)} MB`;
  return show((o) => engine.analyzeFile(file, o, progress), origin, true, file.size, null);
}

function analyseBytes(bytes, name, origin, reveal = false) {
  if (bytes.length > MAX_BYTES) return tooLarge(bytes.length);
  return show((o) => engine.analyzeBytes(bytes, name, o), origin, reveal, bytes.length, { bytes, name });
}

/** Text (pasted, or sent by a host) as the bytes of a file, so a pasted notebook is read as one
 * and a log's checklist is the same pasted or opened; the worker encodes it, not this thread. */
function analyseText(text, origin, reveal = false) {
  if (text.length > MAX_BYTES) return tooLarge(text.length);
  return show((o) => engine.analyzeText(text, o), origin, reveal, text.length, { text });
}

const decoder = new TextDecoder();
/** A log the engine found to be GB18030 (a Chinese Windows console's, no byte-order mark) as
 * UTF-8, decoded strictly by the browser's own decoder; null where a byte past the engine's look
 * is not GB18030 after all (the engine then reads it as it can and says so). */
function fromGb18030(bytes) {
  try {
    return encoder.encode(new TextDecoder("gb18030", { fatal: true }).decode(bytes));
  } catch {
    return null;
  }
}

const encoder = new TextEncoder();
function analysePasted() {
  const text = $("log").value;
  if (text.trim() === "") return clearReport();
  analyseText(text, "", revealNext);
  revealNext = false;
}
/** Whether the next analysis of the paste box follows a paste (then the answer comes into view). */
let revealNext = false;

function clearReport() {
  last = null;
  inputHost = null;
  generation++;
  $("progress").hidden = true;
  engine.reset().catch(() => {});
  view.show(null);
  const r = $("report");
  r.replaceChildren();
  r.className = "";
  const p = document.createElement("p");
  p.className = "empty";
  p.dataset.i18n = "page_empty";
  p.textContent = fill("page_empty");
  r.append(p);
  status("");
}

async function openFile(file) {
  if (!file) return;
  if (file.type.startsWith("image/")) return status(fill("page_image"), "error");
  try {
    // How to read it is the engine's decision: a UTF-8 log past STREAM_FROM a block at a time
    // (a notebook is parsed whole; UTF-16 and GB18030 are decoded whole first).
    const how = await engine.sniff(new Uint8Array(await file.slice(0, HEAD).arrayBuffer()), file.name);
    if (file.size > STREAM_FROM && how.read === "stream" && how.encoding === "utf8") return await streamFile(file);
    if (file.size > MAX_BYTES) return tooLarge(file.size);
    let bytes = new Uint8Array(await file.arrayBuffer());
    let origin = `${file.name} · ${Math.max(1, Math.round(file.size / 1024))} KB`;
    const gb = how.encoding === "gb18030" ? fromGb18030(bytes) : null;
    if (gb) {
      bytes = gb;
      origin = fill("page_gb18030", { origin });
    }
    $("log").value = "";
    pastedBig(null);
    if (bytes.length > BIG_BOX) reading(bytes.length);
    await analyseBytes(bytes, file.name, origin, true);
  } catch (e) {
    status(fill("page_read_error", { error: e?.message ?? String(e) }), "error");
  }
}

async function openDemo(name) {
  try {
    const res = await fetch(`demo/${encodeURIComponent(name)}`);
    if (!res.ok) throw new Error(`${res.status} ${res.statusText}`);
    const bytes = new Uint8Array(await res.arrayBuffer());
    // A log is shown in the paste box; a notebook's JSON would only be noise there.
    $("log").value = name.endsWith(".ipynb") ? "" : decoder.decode(bytes);
    pastedBig(null);
    await analyseBytes(bytes, name, name, true);
  } catch (e) {
    status(fill("page_read_error", { error: e?.message ?? String(e) }), "error");
  }
}

async function setLang(l) {
  try {
    await loadTexts(l);
  } catch (e) {
    status(fill("page_read_error", { error: e?.message ?? String(e) }), "error");
    $("lang").value = lang;
    return;
  }
  lang = l;
  store()?.setItem(LANG_KEY, l);
  applyTexts();
  try {
    // The answer worded again may hand out the probe in this language.
    if (last) await probeTexts(l);
    const answer = await engine.setLang(l, progress);
    $("progress").hidden = true;
    if (answer && !answer.cancelled) {
      view.show(answer.report, engine.session(answer), catalogues[l]);
      announce(last?.origin, answer.report);
    }
  } catch (e) {
    status(fill("page_read_error", { error: e?.message ?? String(e) }), "error");
  }
}

function wire() {
  // The probe's code is fetched at the first sign of input (a click, a focus, a file dragged
  // in), so the first answer does not wait for it; a visit that reads nothing never fetches it.
  const early = () => probeTexts(lang).catch(() => {});
  for (const type of ["focusin", "pointerdown", "dragenter"]) document.addEventListener(type, early, { once: true, passive: true });
  let timer = 0;
  $("log").addEventListener("input", () => {
    if (bigPaste) pastedBig(null);
    clearTimeout(timer);
    timer = setTimeout(analysePasted, $("log").value.length > BIG_BOX ? BIG_BOX_DEBOUNCE_MS : DEBOUNCE_MS);
  });
  $("log").addEventListener("paste", (e) => {
    const text = e.clipboardData?.getData("text/plain") ?? "";
    if (text.length <= SHOW_LIMIT) {
      revealNext = true; // the box takes it; "input" follows
      return;
    }
    e.preventDefault();
    clearTimeout(timer);
    $("log").value = "";
    if (text.length > MAX_BYTES) return tooLarge(text.length);
    pastedBig(mb(text.length));
    analyseText(text, fill("page_pasted_big", { mb: mb(text.length) }), true);
  });
  // A jump is a step in the history (the address gets #line-N): Back returns to the answer.
  if (!embedded) {
    $("report").addEventListener("click", (e) => {
      const b = e.target instanceof Element ? e.target.closest("[data-action=jump]") : null;
      if (b) history.pushState({ firstAssertJump: true }, "", `#line-${Number(b.dataset.line) || 1}`);
    });
    window.addEventListener("popstate", (e) => {
      if (!e.state?.firstAssertJump) view.focusAnswer();
    });
  }
  // "Treat it as the error": the report the input makes with what reads as quoted counted.
  $("report").addEventListener("fa-treat", (e) => {
    const quoted = e.detail;
    if (!quoted?.report) return;
    view.show(quoted.report, engine.session(quoted, true), catalogues[lang]);
    announce(last?.origin, quoted.report);
    view.focusAnswer();
  });
  // The card's "add the runtime log" step: the box for it opens, ready for a paste.
  $("report").addEventListener("fa-runtime-log", () => {
    const panel = $("runtime-log-panel");
    panel.open = true;
    panel.scrollIntoView({ block: "center" });
    $("runtime-log").focus({ preventScroll: true });
  });
  $("file").addEventListener("change", (e) => {
    openFile(e.target.files?.[0]);
    e.target.value = ""; // the same file again is a new request
  });
  $("cancel").addEventListener("click", () => engine.cancel().catch(() => {}));
  $("clear").addEventListener("click", () => {
    $("log").value = "";
    pastedBig(null);
    clearReport();
  });
  // The runtime log beside the input: the last analysis runs again with it.
  let logTimer = 0;
  $("runtime-log").addEventListener("input", () => {
    clearTimeout(logTimer);
    logTimer = setTimeout(() => {
      runtimeLog = $("runtime-log").value;
      if (last) show(last.analyse, last.origin, false, last.bytes);
    }, DEBOUNCE_MS);
  });
  $("runtime-log-file").addEventListener("change", (e) => {
    openRuntimeLog(e.target.files?.[0]);
    e.target.value = "";
  });
  for (const b of document.querySelectorAll("[data-demo]")) b.addEventListener("click", () => openDemo(b.dataset.demo));
  $("lang").addEventListener("change", (e) => setLang(e.target.value === "zh" ? "zh" : "en"));

  // Drag and drop anywhere on the page.
  const zone = $("dropzone");
  let depth = 0;
  const hasFiles = (e) => Array.from(e.dataTransfer?.types ?? []).includes("Files");
  window.addEventListener("dragenter", (e) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    depth++;
    zone.classList.add("active");
  });
  window.addEventListener("dragover", (e) => {
    if (hasFiles(e)) e.preventDefault();
  });
  window.addEventListener("dragleave", () => {
    if (--depth <= 0) {
      depth = 0;
      zone.classList.remove("active");
    }
  });
  window.addEventListener("drop", (e) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    depth = 0;
    zone.classList.remove("active");
    openFile(e.dataTransfer.files[0]);
  });
}

// Embedded mode: see protocol.js for the messages.
function wireEmbedded() {
  document.body.classList.add("embedded");
  status(fill("page_embedded_waiting"));
  window.addEventListener("message", onMessage);
  $("marks").addEventListener("click", () => {
    if (!host) return;
    marksOn = !marksOn;
    send(host, protocol.marks(marksOn));
    $("marks").dataset.i18n = marksOn ? "page_marks_hide" : "page_marks_show";
    $("marks").textContent = fill($("marks").dataset.i18n);
  });
  fromFragment();
  $("diagnostics").addEventListener("click", () => {
    if (!diagnostics) return;
    navigator.clipboard?.writeText(JSON.stringify(diagnostics, null, 2)).catch(() => {});
    $("diagnostics").textContent = fill("page_diagnostics_copied");
  });
  const hello = protocol.ready(engineVersion);
  // "ready" carries no data, so it may go to whoever framed or opened the page.
  for (const w of new Set([window.parent, window.opener])) {
    if (w && w !== window) w.postMessage(hello, "*");
  }
  // Jumps inside the report also ask the host to show the place in the notebook.
  $("report").addEventListener("click", (e) => {
    const b = e.target instanceof Element ? e.target.closest("[data-action=jump][data-cell]") : null;
    if (!b || !host) return;
    send(host, protocol.reveal(Number(b.dataset.cell), Number(b.dataset.line)));
  });
}

/**
 * Cells in the URL fragment (the bookmarklet puts them there for pages that cut the link to
 * the popup). Read at once when there is no opener to talk to; otherwise only if the opener
 * has not sent them within a few seconds. Removed from the address either way, so they do
 * not stay in the history.
 */
function fromFragment() {
  const packed = new URLSearchParams(location.hash.slice(1)).get("cells");
  if (!packed) return;
  history.replaceState(null, "", location.pathname + location.search);
  const run = async () => {
    if (contacted) return; // the opener talks to us: it sends the cells and gets the marks
    try {
      const cells = await protocol.unpackCells(packed);
      await show((o) => engine.analyzeCells(cells, o), fill("page_embedded_cut"), false, 0, { cells });
    } catch (e) {
      status(fill("page_read_error", { error: e?.message ?? String(e) }), "error");
    }
  };
  if (window.opener) setTimeout(run, 3000);
  else run();
}

/** Whether a message came from Colab (its page, or the frame its outputs render in). */
function isColab(origin) {
  try {
    const h = new URL(origin).hostname;
    return h === "colab.research.google.com" || h.endsWith("-colab.googleusercontent.com");
  } catch {
    return false;
  }
}

/** Reads a runtime log file (UTF-8, or UTF-16 with its byte-order mark) beside the input. */
async function openRuntimeLog(file) {
  if (!file) return;
  if (file.size > MAX_BYTES) return tooLarge(file.size);
  try {
    const bytes = new Uint8Array(await file.arrayBuffer());
    const utf16 = bytes[0] === 0xff && bytes[1] === 0xfe ? "utf-16le" : bytes[0] === 0xfe && bytes[1] === 0xff ? "utf-16be" : "utf-8";
    runtimeLog = new TextDecoder(utf16).decode(bytes);
    $("runtime-log").value = runtimeLog.length <= SHOW_LIMIT ? runtimeLog : "";
    if (last) show(last.analyse, last.origin, false, last.bytes);
  } catch (e) {
    status(fill("page_read_error", { error: e?.message ?? String(e) }), "error");
  }
}

function send(to, msg) {
  if (to.port) to.port.postMessage(msg);
  else to.source?.postMessage(msg, to.origin);
}

async function onMessage(e) {
  let req;
  try {
    req = protocol.parseMessage(e.data);
  } catch (err) {
    if (protocol.isAllowedOrigin(e.origin, location.origin)) {
      contacted = true;
      send({ source: e.source, origin: e.origin, port: e.ports?.[0] }, protocol.refusal(e.data?.id, err.message));
    }
    return;
  }
  if (!req) return; // not ours
  if (!protocol.isAllowedOrigin(e.origin, location.origin)) {
    // Refused without an answer: a page we do not know learns nothing from us.
    status(fill("page_read_error", { error: `messages from ${e.origin} are not accepted` }), "error");
    return;
  }
  const to = { source: e.source, origin: e.origin, port: e.ports?.[0] };
  contacted = true;
  if (req.kind === "hello") return send(to, protocol.ready(engineVersion));
  host = to;
  if (req.lang && req.lang !== lang) {
    try {
      await loadTexts(req.lang);
      lang = req.lang;
      applyTexts();
    } catch {
      // the host's language could not be loaded: answer in the one we have
    }
  }
  inputHost = isColab(e.origin) ? "colab" : null;
  readFrom = req.sources ?? null;
  const report = await show(
    (o) => (req.cells ? engine.analyzeCells(req.cells, o) : engine.analyzeText(req.text, o)),
    req.title ?? "",
    false,
    0,
    req.cells ? { cells: req.cells } : { text: req.text },
  );
  send(to, report ? protocol.result(req.id, report) : protocol.refusal(req.id, $("status").textContent));
  showSources(report);
  marksOn = true;
  // Marks to toggle: the first assert, or the error that confirmed the cause.
  $("marks").hidden = !report?.first_assert && !report?.confirmation;
  $("marks").dataset.i18n = "page_marks_hide";
  $("marks").textContent = fill("page_marks_hide");
}

/** What the notebook's page let the adapter read, when it said (embedded mode). */
let readFrom = null;
/** The diagnostics of the last embedded analysis (no text of the notebook in it). */
let diagnostics = null;

/** Says which sources answered, and keeps the diagnostics a bug report can carry. */
function showSources(report) {
  const s = readFrom;
  $("sources").hidden = !s;
  $("diagnostics").hidden = !s;
  if (!s) return;
  const n = (v) => (Number.isInteger(v) ? v : 0);
  $("sources").textContent = fill(s.page !== null && s.page !== undefined ? "page_sources_model" : "page_sources", {
    cells: report ? report.input.cells ?? 0 : 0,
    model: n(s.page),
    dom: n(s.dom),
    frames: n(s.frames),
    read: n(s.framesRead),
    unreadable: n(s.unreadable),
    virtualised: n(s.virtualised),
  });
  diagnostics = {
    tool: "first-assert",
    version: engineVersion,
    protocol: protocol.PROTOCOL,
    browser: navigator.userAgent,
    language: lang,
    sources: s,
    report: report
      ? {
          verdict: report.verdict,
          input: { format: report.input.format, cells: report.input.cells, lines: report.input.lines, bytes: report.input.bytes, unreadable_cells: report.input.unreadable_cells.length },
          first_assert: report.first_assert ? { kind: report.first_assert.kind, dialect: report.first_assert.dialect } : null,
          cause: report.cause ? { category: report.cause.category, rule: report.cause.rule } : null,
          echo_count: report.echo_count,
          notes: report.notes.map((x) => x.id),
        }
      : null,
  };
}

/** Where the page is served from, as the bookmarklet opens it (scheme://host[:port][/path], no
 * trailing slash), or null when it is not served over http(s). */
function pageBase() {
  if (!/^https?:$/.test(location.protocol)) return null;
  const base = new URL(".", location.href).href.replace(/\/+$/, "");
  return /^https?:\/\/[^/\s"'\\?#]+(?:\/[\w.~%!$&()*+,;=:@/-]*)?$/.test(base) ? base : null;
}

/** A meta tag's address (make dist writes them), resolved against the site, or null. */
function siteUrl(name) {
  const v = document.querySelector(`meta[name=${name}]`)?.content ?? "";
  if (!v) return null;
  try {
    const u = new URL(v, shareBase());
    return /^https?:$/.test(u.protocol) ? u.href : null;
  } catch {
    return null;
  }
}

/** The package index the site serves the notebook extension from, when it does. */
function siteIndex() {
  return siteUrl("first-assert-index");
}

/** The ways to use it on a notebook the page offers: the notebook extension's lines (when the
 * site serves its index), the bookmarklet (built for wherever this page is served), the
 * browser extension's zips (when the site carries them). */
async function offerInstall() {
  const index = siteIndex();
  if (index) {
    const code = `%pip install first-assert --index-url ${index}\n%load_ext first_assert`;
    $("install-notebook-code").textContent = code;
    const copy = $("install-notebook-copy");
    copy.addEventListener("click", async () => {
      const ok = await writeClipboard(code);
      copy.textContent = fill(ok ? "page_install_copied" : "page_install_copy");
      if (!ok) selectCode(copy);
    });
    $("install-notebook").hidden = false;
    $("install").hidden = false;
  }
  const downloads = siteUrl("first-assert-downloads");
  if (downloads) {
    const v = await engine.version();
    $("install-extension-chrome").href = new URL(`first-assert-extension-${v}.zip`, downloads).href;
    $("install-extension-firefox").href = new URL(`first-assert-extension-${v}-firefox.zip`, downloads).href;
    $("install-extension").hidden = false;
    $("install").hidden = false;
  }
  const base = pageBase();
  const item = $("install-bookmarklet");
  if (!base) {
    // Opened from a file: no address a bookmark could open. Say how to get one.
    item.querySelector("span").textContent = fill("page_install_file");
    $("bookmarklet").hidden = true;
    item.hidden = false;
    $("install").hidden = false;
    return;
  }
  try {
    const res = await fetch("pkg/bookmarklet.txt");
    if (!res.ok) return;
    const template = await res.text();
    if (!template.startsWith("javascript:") || !template.includes("__FIRST_ASSERT_PAGE__")) return;
    const a = $("bookmarklet");
    a.setAttribute("href", template.replace("__FIRST_ASSERT_PAGE__", encodeURIComponent(base)));
    // Clicking it here would only run it on this page (our CSP blocks it anyway): it is for dragging.
    a.addEventListener("click", (e) => e.preventDefault());
    item.hidden = false;
    $("install").hidden = false;
  } catch {
    // no bookmarklet built: its item stays hidden
  }
}

async function boot() {
  lang = pickLang();
  // The engine and its texts load side by side (the texts' request first: it is the smaller).
  // The worker compiles the engine while the page fetches its texts and wires itself: the page
  // is interactive before the engine answers (requests wait in the worker's queue).
  engine = startEngine();
  // A test's hook: the engine's linear memory in bytes (the most it has held).
  globalThis.firstAssertMemory = () => engine.memory();
  // Another: what the worker has done (analyses begun, bytes of files read).
  globalThis.firstAssertWork = () => engine.work();
  const texts = fetchTexts(lang);
  const versioned = engine.version().then((v) => {
    engineVersion = v;
    $("version").textContent = v;
  });
  // The page takes input as soon as it is wired; an analysis waits for the texts (show()), as
  // it waits for the engine in the worker's queue. The page's own words are English in the
  // HTML until then.
  view = new ReportView($("report"), { messages: {}, share });
  wire();
  $("shared-own").addEventListener("click", leaveShared);
  textsReady = texts.then((json) => {
    useTexts(json);
    applyTexts();
  });
  if (!embedded) performance.mark("first-assert:interactive");
  await textsReady;
  if (!embedded && /^#r\d+\./.test(location.hash)) await openShared();
  if (embedded) {
    // Only embedded mode speaks the protocol: a plain visit does not wait for its code.
    protocol = await import("./protocol.js");
    await versioned; // "ready" carries the engine's version
    wireEmbedded();
    // Embedded mode is opened to answer: its probe's code comes at once.
    probeTexts(lang).catch(() => {});
  } else offerInstall();
  const demo = params.get("demo");
  if (demo && /^[\w.-]+$/.test(demo)) await openDemo(demo);
  // Embedded mode takes requests once its protocol is wired (above).
  if (embedded) performance.mark("first-assert:interactive");
  // The test hook means what docs/page.md says: the engine is loaded (it answered its version).
  await versioned;
  document.documentElement.dataset.ready = "true";
  if ("serviceWorker" in navigator && /^https?:$/.test(location.protocol) && !params.has("nosw")) {
    // Offline after the first visit; a failure only means no offline copy.
    navigator.serviceWorker.register("sw.js").catch(() => {});
  }
}

boot().catch((e) => {
  const s = $("status");
  s.textContent = `first-assert could not start: ${e?.message ?? e}`;
  s.className = "status error";
});
