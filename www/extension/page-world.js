// The extension's script in the notebook page's own world (MV3 "world": "MAIN"), on Colab
// only (scripts/build-extension.mjs puts adapters.js in front of it, in the same file): it reads Colab's page-world notebook (`colab.global.notebook`, with every cell and its
// last error, virtualised cells too) when the isolated content script asks, and answers with
// plain JSON text: no functions, no elements, sizes bounded by the adapters. The content
// script checks every field again (pageFromData): nothing here is trusted beyond text.

(function (A) {
  "use strict";
  if (!A || window.__firstAssertPageWorld) return;
  window.__firstAssertPageWorld = true;
  const PREFIX = "first-assert:";
  document.addEventListener(PREFIX + "page-request", () => {
    let text = "null";
    try {
      const cells = A.readPage(window);
      text = JSON.stringify(cells ? A.pageToData(cells) : null);
    } catch {
      text = "null";
    }
    document.dispatchEvent(new CustomEvent(PREFIX + "page-cells", { detail: text }));
  });
})(globalThis.FirstAssertAdapters);
