// The extension's content script for a notebook's page (Colab's top document, Kaggle's
// JupyterLab frame, local Jupyter once allowed). It collects cells with the adapters, asks
// Colab's outputframes (frame.js) for the outputs only they can read, hands everything to the
// panel (our page in embedded mode, an extension page in an iframe: the analysis runs there,
// never here) and marks what the panel answers. In automatic mode it watches the page and
// does all this by itself when a device-side assert shows up.

import { Adapters as A } from "../adapters/api.js";
import { panelHost } from "../adapters/host.js";
import { PREFIX, PROTOCOL } from "../protocol.js";

(function () {
  if (window.__firstAssertContent) return;
  window.__firstAssertContent = true;
  const adapter = A.detect(document);
  // Only pages that show a notebook (Kaggle's top page only frames the editor).
  if (adapter === "generic" || adapter === "colabFrame") return;

  const PANEL_URL = chrome.runtime.getURL("page/index.html?embed");
  const EXT_ORIGIN = new URL(PANEL_URL).origin;

  let panel = null; // { box, frame, ready: Promise, port }
  let collected = null;
  let lastKey = "";
  const frameTexts = new Map(); // iframe element -> outputs, from frame.js

  // ----- the panel -----

  function openPanel(show) {
    if (!panel) {
      const box = document.createElement("div");
      box.setAttribute("data-first-assert-panel", "");
      const css = {
        position: "fixed", top: "0", right: "0", width: "440px", "max-width": "92vw", height: "100vh",
        "z-index": "2147483646", background: "#fbfbfa", "box-shadow": "-4px 0 18px rgba(0,0,0,.25)", display: "none",
      };
      for (const [k, v] of Object.entries(css)) box.style.setProperty(k, v);
      const close = document.createElement("button");
      close.type = "button";
      close.textContent = "×";
      close.setAttribute("aria-label", "Close first-assert");
      close.setAttribute("data-first-assert-close", "");
      const bcss = { position: "absolute", top: "6px", left: "-34px", width: "28px", height: "28px", "border-radius": "14px", border: "0", background: "#1d1f23", color: "#fff", cursor: "pointer", font: "18px/28px system-ui" };
      for (const [k, v] of Object.entries(bcss)) close.style.setProperty(k, v);
      close.addEventListener("click", () => box.style.setProperty("display", "none"));
      const frame = document.createElement("iframe");
      frame.src = PANEL_URL;
      frame.title = "first-assert";
      for (const [k, v] of Object.entries({ width: "100%", height: "100%", border: "0" })) frame.style.setProperty(k, v);
      box.append(close, frame);
      document.documentElement.appendChild(box);
      let resolveReady;
      const ready = new Promise((r) => (resolveReady = r));
      window.addEventListener("message", (e) => {
        if (e.source === frame.contentWindow && e.origin === EXT_ORIGIN && e.data && e.data.type === PREFIX + "ready") resolveReady();
      });
      panel = { box, frame, ready };
    }
    if (show) panel.box.style.setProperty("display", "block");
    return panel;
  }

  // The panel's answers: marks in the page and, through the service worker, in Colab's
  // outputframes (one list, done in order: every frame unmarked, then marked anew).
  let stopWatch = () => {};
  let frameItems = null;
  const host = panelHost(document, {
    collected: () => collected,
    marks(result) {
      const r = A.mark(document, collected, result);
      // Cells virtualised out of the page are marked when they render.
      stopWatch = A.watch(document, collected, r.pending, () => host.remark());
      if (r.first === "virtualised" && panel && panel.box.style.getPropertyValue("display") === "block") A.reveal(document, collected, result.first.cell);
      for (const f of r.frames) frameItems.push({ url: frameUrl(f.frame), msg: { type: "frame-mark", role: f.role, kind: f.kind, line: f.line, text: f.text || "" } });
      return r;
    },
    clear() {
      A.unmark(document);
      stopWatch();
      frameItems = knownFrames().map((f) => ({ url: frameUrl(f), msg: { type: "frame-unmark" } }));
      queueMicrotask(() => {
        if (frameItems) toFrames(frameItems);
        frameItems = null;
      });
    },
    told(m) {
      const caught = m.verdict === "confirmed";
      const asserts = m.first && !caught ? 1 : 0;
      chrome.runtime.sendMessage({ type: "counts", asserts, echoes: m.echoes.length, caught }).catch(() => {});
    },
    failed() {},
  });

  // ----- outputframes -----
  //
  // frame.js in each outputframe sends its outputs to the service worker, which keeps them
  // per tab and frame URL; this script asks it for the outputs of its iframes and sends marks
  // back the same way. All of it goes through the extension's own messaging, which scripts of
  // the page or of a notebook's output cannot reach: they can neither feed us fake outputs nor
  // read what we send.

  function knownFrames() {
    return collected ? collected.places.flat().filter((p) => p.frame).map((p) => p.frame) : [];
  }

  const frameUrl = (iframe) => {
    try {
      return new URL(iframe.src, location.href).href;
    } catch {
      return "";
    }
  };

  function toFrames(items) {
    if (items.length) chrome.runtime.sendMessage({ type: "frames-do", items }).catch(() => {});
  }

  /** The outputs of `frames` (from the service worker); waits a little for late frames. */
  async function readFrames(frames) {
    const urls = frames.map(frameUrl);
    const t0 = Date.now();
    for (;;) {
      let got = {};
      try {
        got = (await chrome.runtime.sendMessage({ type: "frames-get", urls })) || {};
      } catch {
        got = {};
      }
      frames.forEach((f, i) => {
        if (got[urls[i]]) frameTexts.set(f, got[urls[i]]);
      });
      if (frames.every((f) => frameTexts.has(f)) || Date.now() - t0 > 1500) return;
      await new Promise((r) => setTimeout(r, 60));
    }
  }

  chrome.runtime.onMessage.addListener((m) => {
    if (m && m.type === "frame-alert") schedule();
  });

  /** The collection with each frame's outputs in place of the frame. */
  function withFrames(c) {
    const cells = [];
    const places = [];
    c.cells.forEach((cell, i) => {
      const outs = [];
      const where = [];
      (c.places[i] || []).forEach((p, j) => {
        const got = p.frame ? frameTexts.get(p.frame) : null;
        if (got) {
          for (const o of got) {
            outs.push({ kind: "stream", name: o.name === "stdout" ? "stdout" : "stderr", text: String(o.text || "") });
            where.push({ frame: p.frame });
          }
        } else {
          // A frame that sent nothing keeps what stands for it: the page model's error, or
          // `unreadable` (so the answer cannot be a clean bill).
          outs.push(cell.outputs[j]);
          where.push(p);
        }
      });
      cells.push({ ...cell, outputs: outs });
      places.push(where);
    });
    return { ...c, cells, places };
  }

  // ----- scanning -----

  /**
   * Colab's page-world cells, from page-world.js (the MAIN world), as checked plain data; null
   * when it does not answer (another site, or Colab without the model).
   */
  function readPageWorld() {
    if (adapter !== "colab") return Promise.resolve(null);
    return new Promise((resolve) => {
      const done = (cells) => {
        document.removeEventListener(PREFIX + "page-cells", onCells);
        clearTimeout(timer);
        resolve(cells);
      };
      const onCells = (e) => {
        const text = typeof e.detail === "string" && e.detail.length <= 64 * 1024 * 1024 ? e.detail : "null";
        let data = null;
        try {
          data = JSON.parse(text);
        } catch {
          data = null;
        }
        done(A.pageFromData(data));
      };
      const timer = setTimeout(() => done(null), 400);
      document.addEventListener(PREFIX + "page-cells", onCells);
      document.dispatchEvent(new CustomEvent(PREFIX + "page-request"));
    });
  }

  let sweep = null; // the last scroll-through of a windowed list (collectAll)
  let sweeping = false;
  let sweepTries = 0;

  /**
   * The collection: a windowed list's off-screen cells come from a scroll-through, made once
   * (and again when the user asks for a scan), not at every change: it moves the view.
   */
  async function collectNow(force) {
    let c = A.collect(document, undefined, await readPageWorld());
    let partial = null;
    if (c.sources.virtualised && adapter === "jupyterlab" && (force || !sweep)) {
      sweeping = true;
      try {
        const s = await A.collectAll(document, undefined, null);
        // Kept only when it read every cell: a sweep cut short (the list not laid out yet,
        // cells slow to render, a busy machine) still serves this scan, and is tried again a
        // little later.
        sweep = s.sources.swept && !s.sources.virtualised ? s : null;
        if (!sweep) {
          partial = s;
          if (sweepTries++ < 5) setTimeout(schedule, 1000);
        }
      } finally {
        setTimeout(() => (sweeping = false), 200);
      }
    }
    return A.fillGaps(c, sweep ?? partial);
  }

  /** Collects, and when something is worth analysing (or `force`), hands it to the panel. */
  async function scan({ force = false, show = false } = {}) {
    const c = await collectNow(force);
    const frames = c.places.flat().filter((p) => p.frame).map((p) => p.frame);
    await readFrames(frames);
    collected = withFrames(c);
    collected.sources = { ...c.sources, framesRead: frames.filter((f) => frameTexts.has(f)).length };
    collected.sources.unreadable = A.unreadableCount(collected.cells);
    const text = JSON.stringify(collected.cells);
    const signal = A.SIGNAL.test(text);
    if (!signal && !force) {
      chrome.runtime.sendMessage({ type: "counts", asserts: 0, echoes: 0 }).catch(() => {});
      return;
    }
    const p = openPanel(show || signal);
    if (text === lastKey && !force) return;
    lastKey = text;
    await p.ready;
    const ch = new MessageChannel();
    ch.port1.onmessage = (e) => host.onMessage(e.data);
    p.frame.contentWindow.postMessage(
      { type: PREFIX + "analyze", protocol: PROTOCOL, id: "extension", cells: collected.cells, title: document.title.slice(0, 200), sources: collected.sources },
      EXT_ORIGIN,
      [ch.port2],
    );
  }

  // Automatic mode: rescan when the page changes (debounced; nothing runs while it is quiet).
  let timer = 0;
  // Off until the setting is read: an outputframe's alert can arrive before it, and with
  // automatic mode off it must not open anything (when it is on, the read schedules a scan).
  let auto = false;
  function schedule() {
    if (!auto) return;
    clearTimeout(timer);
    timer = setTimeout(() => scan().catch(() => {}), 600);
  }

  chrome.storage.sync.get({ auto: true }).then((s) => {
    auto = s.auto !== false;
    if (!auto) return;
    const root = document.body || document.documentElement;
    new MutationObserver((records) => {
      // Our own marks and panel do not count as changes.
      const ours = records.every((r) => r.target instanceof Element && r.target.closest("[data-first-assert-panel], [data-first-assert-part], [data-first-assert-badge]"));
      if (!ours && !sweeping) schedule();
    }).observe(root, { childList: true, subtree: true, characterData: true });
    schedule();
  });

  chrome.runtime.onMessage.addListener((m, _sender, reply) => {
    if (m && m.type === "scan") {
      // A page of the site without a notebook (Colab's start page): the service worker
      // opens the page itself instead.
      if (!A.collect(document).cells.length) {
        reply({ ok: false, reason: "no notebook" });
        return false;
      }
      if (panel && panel.box.style.getPropertyValue("display") === "block" && !m.keepOpen) {
        panel.box.style.setProperty("display", "none");
        reply({ ok: true, open: false });
        return;
      }
      scan({ force: true, show: true }).then(() => reply({ ok: true, open: true, adapter }));
      return true;
    }
    if (m && m.type === "selftest") {
      reply(A.selftest(document));
    }
    return false;
  });
})();
