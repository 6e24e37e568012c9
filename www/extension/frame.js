// The extension's content script inside Colab's outputframes
// (https://…-colab.googleusercontent.com/outputframe.html), where errors are rendered and
// where the top document cannot read. It sends its outputs to the service worker (which
// keeps them for the content script of the top document), says when a device-side assert
// shows up, and marks lines when told. It talks only through the extension's own messaging:
// scripts of the notebook's outputs, which run in this frame, cannot send it commands or
// feed the top page fake outputs.

import { frame } from "../adapters/api.js";
import { SIGNAL } from "../adapters/selectors.js";

(function () {
  if (window.__firstAssertFrame) return;
  if (!/-colab\.googleusercontent\.com$/.test(location.hostname) || !/outputframe\.html$/.test(location.pathname)) return;
  window.__firstAssertFrame = true;

  let last = "";

  /** Sends the frame's outputs when they changed; says so when they show an assert. */
  function report() {
    const outputs = frame.collect(document);
    const key = JSON.stringify(outputs);
    if (key === last) return;
    last = key;
    const alert = SIGNAL.test(key);
    chrome.runtime.sendMessage({ type: "frame-outputs", outputs, alert }).catch(() => {});
  }

  chrome.runtime.onMessage.addListener((m) => {
    if (!m || typeof m.type !== "string") return;
    if (m.type === "frame-mark") {
      const kind = ["probe", "cpu"].includes(m.kind) ? m.kind : "first";
      frame.mark(document, m.role === "first" ? "first" : "echo", Number.isInteger(m.line) ? m.line : null, String(m.text || ""), kind);
    } else if (m.type === "frame-unmark") {
      frame.unmark(document);
    }
  });

  report();
  let timer = 0;
  if (document.body) {
    new MutationObserver((records) => {
      // Our own marks are not new output.
      if (records.every((r) => r.target instanceof Element && r.target.closest("[data-first-assert-part], [data-first-assert-badge], [data-first-assert-echo]"))) return;
      clearTimeout(timer);
      timer = setTimeout(report, 300);
    }).observe(document.body, { childList: true, subtree: true, characterData: true });
  }
})();
