// The bookmarklet: runs in the notebook's page (bundled with the adapters it imports, in one
// javascript: URL built by scripts/build-bookmarklet.mjs). It collects the cells, opens our page in a popup,
// hands the cells over with the protocol of www/protocol.js and marks what comes back.
// Nothing is loaded into the notebook's page: no script element, no eval, no WebAssembly
// (Colab's CSP forbids the last two; the analysis runs in the popup, on our origin).
//
// When the page cuts the link to the windows it opens (Cross-Origin-Opener-Policy), the cells
// still travel, compressed, in the popup's URL fragment (never sent to any server); the popup
// analyses them but cannot mark anything here, and the toast says so.

import { Adapters as A } from "../adapters/api.js";
import { panelHost } from "../adapters/host.js";
import { PREFIX, PROTOCOL } from "../protocol.js";
import { langOf, say } from "../adapters/texts.js";

(async function () {
  // Where the page is served (a sub-path is fine); messages come from its origin.
  const PAGE = "__FIRST_ASSERT_PAGE__";
  const ORIGIN = new URL(PAGE).origin;
  const FRAGMENT_MAX = 1500000;
  const lang = langOf(window);
  const T = (key, n) => say(lang, key, n);

  function toast(text) {
    const old = document.querySelector("[data-first-assert-toast]");
    if (old) old.remove();
    const t = document.createElement("div");
    t.setAttribute("data-first-assert-toast", "");
    t.setAttribute("role", "status");
    t.textContent = text;
    const css = {
      position: "fixed", right: "16px", bottom: "16px", "z-index": "2147483647", "max-width": "420px",
      padding: "10px 14px", "border-radius": "8px", background: "#1d1f23", color: "#fff",
      font: "13px/1.45 system-ui, sans-serif", "box-shadow": "0 4px 16px rgba(0,0,0,.3)", "pointer-events": "none",
    };
    for (const [k, v] of Object.entries(css)) t.style.setProperty(k, v);
    document.body.appendChild(t);
    setTimeout(() => t.remove(), 9000);
  }

  /** deflate-raw + base64url: the cells for the URL fragment. */
  async function pack(text) {
    const stream = new Blob([text]).stream().pipeThrough(new CompressionStream("deflate-raw"));
    const bytes = new Uint8Array(await new Response(stream).arrayBuffer());
    let bin = "";
    for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
    return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }

  // Colab's page-world model first (every cell, its last error), then the DOM, then the last
  // saved notebook: internals that may change or throw, so each is optional.
  const page = A.readPage(window);
  let model;
  try {
    const nb = window.colab && window.colab.global && window.colab.global.notebookModel;
    model = !page && nb && nb.getLastResolvedNotebookJson ? nb.getLastResolvedNotebookJson() : undefined;
  } catch (e) {
    model = undefined;
  }
  // A windowed list (JupyterLab 4, Kaggle) is scrolled through once so every cell is read.
  const collected = await A.collectAll(document, model, page);
  const cells = collected.cells.filter((c) => (c.outputs || []).length);
  if (!cells.length) return toast(T("none"));

  let fragment = "";
  try {
    const packed = await pack(JSON.stringify({ cells: collected.cells }));
    if (packed.length <= FRAGMENT_MAX) fragment = "#cells=" + packed;
  } catch (e) {
    fragment = ""; // no CompressionStream: the handshake alone carries the cells
  }
  const popup = window.open(PAGE + "/?embed" + fragment, "first-assert", "popup,width=780,height=900");
  if (!popup) return toast(T("blocked"));

  let answered = false;
  const cut = () => {
    if (!answered) toast(T("cut"));
  };
  // A cut link shows as a window that is already closed.
  if (popup.closed) return cut();
  setTimeout(cut, 10000);

  let stopWatch = () => {};
  const host = panelHost(document, {
    collected: () => collected,
    marks(result) {
      const r = A.mark(document, collected, result);
      // Cells out of the page are marked when they render.
      stopWatch = A.watch(document, collected, r.pending, () => host.remark());
      return r;
    },
    clear() {
      stopWatch();
      A.unmark(document);
    },
    told(result, r) {
      answered = true;
      if (!r) return;
      if (r.first === "virtualised") A.reveal(document, collected, result.first.cell);
      if (result.verdict === "unreadable") return toast(T("unreadable", result.unreadable.length));
      const caught = result.verdict === "confirmed" && r.first && r.first !== "virtualised" && ["probe", "cpu"].includes(result.first.kind) && T(result.first.kind);
      const text = caught || (r.first === "line" ? T("line") : r.first === "virtualised" ? T("virtualised") : r.first ? T("cell") : T("clean"));
      toast(text + (r.superseded ? T("old", r.superseded) : ""));
    },
    failed(message) {
      answered = true;
      toast("first-assert: " + message.slice(0, 300));
    },
  });

  window.addEventListener("message", function onReady(e) {
    if (e.source !== popup || e.origin !== ORIGIN || !e.data || e.data.type !== PREFIX + "ready") return;
    window.removeEventListener("message", onReady);
    const ch = new MessageChannel();
    ch.port1.onmessage = (e) => host.onMessage(e.data);
    popup.postMessage({ type: PREFIX + "analyze", protocol: PROTOCOL, id: "bookmarklet", cells: collected.cells, title: document.title.slice(0, 200), sources: collected.sources }, ORIGIN, [ch.port2]);
  });
})();
