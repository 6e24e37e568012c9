// The bookmarklet: runs in the notebook's page (after adapters.js, in one javascript: URL
// built by scripts/build-bookmarklet.mjs). It collects the cells, opens our page in a popup,
// hands the cells over with the protocol of www/protocol.js and marks what comes back.
// Nothing is loaded into the notebook's page: no script element, no eval, no WebAssembly
// (Colab's CSP forbids the last two; the analysis runs in the popup, on our origin).
//
// When the page cuts the link to the windows it opens (Cross-Origin-Opener-Policy), the cells
// still travel, compressed, in the popup's URL fragment (never sent to any server); the popup
// analyses them but cannot mark anything here, and the toast says so.

(async function (A) {
  "use strict";
  // Where the page is served (a sub-path is fine); messages come from its origin.
  const PAGE = "__FIRST_ASSERT_PAGE__";
  const ORIGIN = new URL(PAGE).origin;
  const PREFIX = "first-assert:";
  const FRAGMENT_MAX = 1500000;
  const zh = (navigator.language || "").toLowerCase().startsWith("zh");
  const T = zh
    ? {
        none: "first-assert：这个页面上没有找到笔记本输出。请选中错误文本后再点一次书签。",
        blocked: "first-assert：弹出窗口被拦截。请允许此网站弹出窗口，然后再点一次书签。",
        cut: "first-assert：分析已在新窗口中打开。这个页面切断了与它打开的窗口之间的联系，所以无法在这里标记，请在那个窗口查看结果。",
        line: "first-assert：已标记第一个 device-side assert。",
        cell: "first-assert：第一个 device-side assert 所在的输出本页面无法读取，已标记它所在的单元格。",
        virtualised: "first-assert：第一个 device-side assert 在一个当前不在页面上的单元格里（已滚动出视图）；已滚动到它附近，它一出现就会被标记。",
        unreadable: "first-assert：在能读取的输出中没有 device-side assert，但有 {n} 个单元格的输出无法读取（已用灰色标出）。请使用浏览器扩展，或下载 .ipynb 拖到 first-assert 页面，或复制错误文本粘贴过去。",
        clean: "first-assert：没有发现 device-side assert。",
        probe: "first-assert：探测捕获了它。它的错误（错误的值和允许的范围）已标记。",
        cpu: "first-assert：CPU 上的错误就是同一个 bug，写明了错误的值；已标记。",
        old: " 探测运行之前的错误已用灰色框出（{n} 个单元格）。",
      }
    : {
        none: "first-assert: no notebook output found on this page. Select the error's text and click the bookmark again.",
        blocked: "first-assert: the pop-up was blocked. Allow pop-ups for this site and click the bookmark again.",
        cut: "first-assert: the analysis opened in a new window. This page cuts the link to windows it opens, so nothing can be marked here: read the result there.",
        line: "first-assert: the first device-side assert is marked.",
        cell: "first-assert: the first device-side assert is in an output this page cannot read; its cell is marked.",
        virtualised: "first-assert: the first device-side assert is in a cell that is not on the page now (scrolled out of view); the page is scrolled near it, and it is marked as soon as it shows.",
        unreadable: "first-assert: no device-side assert in the outputs that could be read, but {n} cell(s) could not be read (outlined in grey). Use the browser extension, or download the .ipynb and drop it on the first-assert page, or copy the error's text and paste it there.",
        clean: "first-assert: no device-side assert found.",
        probe: "first-assert: the probe caught it. Its error, with the bad value and the bound, is marked.",
        cpu: "first-assert: the CPU's error shows the same bug and names the bad value; it is marked.",
        old: " Errors from before the probed run are outlined in grey ({n} cell(s)).",
      };

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
  if (!cells.length) return toast(T.none);

  let fragment = "";
  try {
    const packed = await pack(JSON.stringify({ cells: collected.cells }));
    if (packed.length <= FRAGMENT_MAX) fragment = "#cells=" + packed;
  } catch (e) {
    fragment = ""; // no CompressionStream: the handshake alone carries the cells
  }
  const popup = window.open(PAGE + "/?embed" + fragment, "first-assert", "popup,width=780,height=900");
  if (!popup) return toast(T.blocked);

  let answered = false;
  const cut = () => {
    if (!answered) toast(T.cut);
  };
  // A cut link shows as a window that is already closed.
  if (popup.closed) return cut();
  setTimeout(cut, 10000);

  let marksOn = true;
  let last = null;
  let stopWatch = () => {};
  const show = (result, quiet) => {
    const r = A.mark(document, collected, result);
    stopWatch();
    // Cells out of the page are marked when they render.
    stopWatch = A.watch(document, collected, r.pending, () => marksOn && show(result, true));
    if (quiet) return;
    if (r.first === "virtualised") A.reveal(document, collected, result.first.cell);
    if (result.verdict === "unreadable") return toast(T.unreadable.replace("{n}", String(result.unreadable.length)));
    const caught = result.verdict === "confirmed" && r.first && r.first !== "virtualised" && T[result.first.kind];
    const text = caught || (r.first === "line" ? T.line : r.first === "virtualised" ? T.virtualised : r.first ? T.cell : T.clean);
    toast(text + (r.superseded ? T.old.replace("{n}", String(r.superseded)) : ""));
  };

  function onPort(e) {
    const m = e.data || {};
    if (m.type === PREFIX + "result") {
      answered = true;
      last = m;
      marksOn = true;
      show(m);
    } else if (m.type === PREFIX + "reveal") {
      if (Number.isInteger(m.cell)) A.reveal(document, collected, m.cell);
    } else if (m.type === PREFIX + "marks" && last) {
      marksOn = !!m.on;
      if (marksOn) show(last);
      else {
        stopWatch();
        A.unmark(document);
      }
    } else if (m.type === PREFIX + "error") {
      answered = true;
      toast("first-assert: " + String(m.message).slice(0, 300));
    }
  }

  window.addEventListener("message", function onReady(e) {
    if (e.source !== popup || e.origin !== ORIGIN || !e.data || e.data.type !== PREFIX + "ready") return;
    window.removeEventListener("message", onReady);
    const ch = new MessageChannel();
    ch.port1.onmessage = onPort;
    popup.postMessage({ type: PREFIX + "analyze", protocol: 1, id: "bookmarklet", cells: collected.cells, title: document.title.slice(0, 200), sources: collected.sources }, ORIGIN, [ch.port2]);
  });
})(FirstAssertAdapters);
