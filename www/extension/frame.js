// The extension's content script inside Colab's outputframes
// (https://…-colab.googleusercontent.com/outputframe.html), where errors are rendered and
// where the top document cannot read. It tells the top page when it shows a device-side
// assert, sends its outputs when asked, and marks lines when told. It answers only its
// parent, and only Colab's page.

(function (A) {
  "use strict";
  if (!A || window.__firstAssertFrame) return;
  if (!/-colab\.googleusercontent\.com$/.test(location.hostname) || !/outputframe\.html$/.test(location.pathname)) return;
  window.__firstAssertFrame = true;

  const PREFIX = "first-assert:";
  const PARENT = "https://colab.research.google.com";
  const SIGNAL = /device-side assert|Assertion [`'].*[`'] failed|cudaErrorAssert|device-side assertion/;

  const tell = (msg) => window.parent.postMessage(msg, PARENT);

  let alerted = false;
  function check() {
    if (!alerted && SIGNAL.test(document.body ? document.body.textContent : "")) {
      alerted = true;
      tell({ type: PREFIX + "frame-alert" });
    }
  }

  window.addEventListener("message", (e) => {
    if (e.source !== window.parent || e.origin !== PARENT || !e.data) return;
    const m = e.data;
    if (m.type === PREFIX + "frame-collect") tell({ type: PREFIX + "frame-outputs", outputs: A.frame.collect(document) });
    else if (m.type === PREFIX + "frame-mark") {
      A.frame.mark(document, m.role === "first" ? "first" : "echo", Number.isInteger(m.line) ? m.line : null, String(m.text || ""));
    } else if (m.type === PREFIX + "frame-unmark") A.frame.unmark(document);
  });

  check();
  if (document.body) {
    new MutationObserver(() => check()).observe(document.body, { childList: true, subtree: true, characterData: true });
  }
})(globalThis.FirstAssertAdapters);
