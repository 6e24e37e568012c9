// The extension's script in the notebook page's own world (MV3 "world": "MAIN"), on Colab
// only (bundled with the two adapters it imports by scripts/build-extension.mjs): it reads Colab's page-world notebook (`colab.global.notebook`, with every cell and its
// last error, virtualised cells too) when the isolated content script asks, and answers with
// plain JSON text: no functions, no elements, sizes bounded by the adapters. The content
// script checks every field again (pageFromData): nothing here is trusted beyond text.

import { readPage, pageToData } from "../adapters/model.js";
import { PREFIX } from "../protocol.js";

(function () {
  if (window.__firstAssertPageWorld) return;
  window.__firstAssertPageWorld = true;
  document.addEventListener(PREFIX + "page-request", () => {
    let text = "null";
    try {
      const cells = readPage(window);
      text = JSON.stringify(cells ? pageToData(cells) : null);
    } catch {
      text = "null";
    }
    document.dispatchEvent(new CustomEvent(PREFIX + "page-cells", { detail: text }));
  });
})();
