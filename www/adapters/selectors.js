// Page adapters: which front end a page is (Colab, its output frames, JupyterLab,
// the classic Notebook, anything else) and the selectors that read it. Every selector lives in
// SELECTORS, one versioned table per front end, each entry a list of fallbacks tried in order.


const SELECTORS = {
  colab: {
    version: "2026-11-30",
    // The top document. Outputs are either plain text in static renderers (light DOM) or
    // cross-origin outputframe iframes (errors, rich output), which only a script running
    // inside the frame can read.
    notebook: ["div.notebook-cell-list", "div.notebook-content", "colab-notebook-container", "body"],
    cell: ["div.cell.notebook-cell", "div.notebook-cell-list > div.cell", "div.cell[id^='cell-']"],
    codeCell: ["div.cell.code"],
    source: [".inputarea .view-lines", ".monaco-editor .view-lines", ".inputarea"],
    sourceLine: [".view-line"],
    executionCount: [".cell-execution-count", ".execution-count"],
    output: ["colab-static-output-renderer > div > div", "colab-static-output-renderer > div > *", ".output-iframe-sizer .output_text", ".output-content .output_text"],
    frame: [".output-iframe-container iframe", ".output-iframe-sizer iframe", "iframe[src*='outputframe.html']"],
  },
  colabFrame: {
    version: "2026-11-30",
    // Inside https://…-colab.googleusercontent.com/outputframe.html.
    output: ["#output-body > div", ".output_subarea", ".error, .output-error, .traceback, .stream, .output_text"],
  },
  jupyterlab: {
    version: "2026-11-30",
    // JupyterLab and Notebook 7 (and Kaggle's editor, which is JupyterLab in a frame).
    notebook: [".jp-Notebook", ".jp-NotebookPanel-notebook"],
    cell: [".jp-Notebook .jp-Cell", ".jp-Cell"],
    codeCell: [".jp-CodeCell"],
    source: [".jp-InputArea-editor .cm-content", ".jp-InputArea-editor .CodeMirror-code", ".jp-InputArea-editor"],
    sourceLine: [".cm-line", ".CodeMirror-line"],
    executionCount: [".jp-InputPrompt", ".jp-InputArea-prompt"],
    output: [".jp-OutputArea-output", ".jp-OutputArea-child"],
    frame: [],
    // Windowing (JupyterLab 4's WindowedList, Kaggle): off-screen cells are detached; the
    // rendered ones carry their notebook index, and the list scrolls in this element.
    windowIndex: ["data-windowed-list-index"],
    scroller: [".jp-WindowedPanel-outer", ".jp-Notebook"],
  },
  classic: {
    version: "2026-11-30",
    // Classic Notebook (<= 6).
    notebook: ["#notebook-container", "#notebook"],
    cell: ["#notebook-container > .cell", "#notebook .cell"],
    codeCell: [".code_cell"],
    source: [".input_area .CodeMirror-code", ".input_area"],
    sourceLine: [".CodeMirror-line"],
    executionCount: [".input_prompt", ".prompt.input_prompt"],
    output: [".output_area .output_subarea", ".output_subarea"],
    frame: [],
  },
};

/** Whether text may show a device-side assert: the cheap test the extension makes before it
 * hands a page's outputs to the engine (which decides). Every form the engine reads as a
 * device-side assert matches it (tests/e2e/signal.test.mjs holds it to every case the engine
 * calls one); what it lets through that is no assert (a quotation, advice) costs only an
 * analysis. The probe cell's `FirstAssertError` passes too: it is the answer to one. */
const SIGNAL = /FirstAssertError|[Dd]evice-side assert|Assertion (?:failed: )?\**[`']|cudaErrorAssert|hipErrorAssert|CUDA_ERROR_ASSERT|设备端断言|断言失败|AcceleratorError: index -?\d+ is out of bounds/;

const ATTR = "data-first-assert";

const ECHO = "data-first-assert-echo";

const PART = "data-first-assert-part";

const BADGE = "data-first-assert-badge";

const UNREAD = "data-first-assert-unread";

/** A cell whose error is from before the probed run (the report's `superseded_cells`). */
const OLD = "data-first-assert-superseded";

/** The `style` attribute an element of the page had before we outlined it ("" = none). */
const SAVED = "data-first-assert-style";

/** The first selector of `list` that matches under `root`: { selector, nodes }. */
function pick(root, list) {
  for (const selector of list) {
    let nodes;
    try {
      nodes = Array.from(root.querySelectorAll(selector));
    } catch {
      continue; // a selector this browser cannot parse
    }
    if (nodes.length) return { selector, nodes };
  }
  return { selector: null, nodes: [] };
}

function first(root, list) {
  return pick(root, list).nodes[0] || null;
}

/** Which front end `doc` shows. */
function detect(doc) {
  const host = (doc.location && doc.location.hostname) || "";
  if (host === "colab.research.google.com" || doc.querySelector("colab-static-output-renderer, .output-iframe-container")) return "colab";
  if (/-colab\.googleusercontent\.com$/.test(host) && /outputframe\.html/.test(doc.location.pathname)) return "colabFrame";
  if (doc.querySelector(".jp-Notebook, .jp-NotebookPanel")) return "jupyterlab";
  if (doc.querySelector("#notebook-container .cell, #notebook .cell.code_cell")) return "classic";
  return "generic";
}

export { SELECTORS, SIGNAL, ATTR, ECHO, PART, BADGE, UNREAD, OLD, SAVED, pick, first, detect };
