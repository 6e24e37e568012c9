import { readFileSync } from "node:fs";
// Fixture pages written by us, rendering a notebook the way each front end structures it:
// Colab (a top document with static renderers, and cross-origin outputframe iframes for
// errors, with Colab-like headers), JupyterLab and classic Notebook. Selectors follow what
// public material shows of those pages; what it leaves unverified is listed in ASSUMPTIONS so
// it can be rechecked on a live Colab.
//
// Every text from a notebook is HTML-escaped here: the fixtures carry hostile outputs as text.

export const ASSUMPTIONS = [
  "Colab §7.1: error outputs (tracebacks) render in cross-origin outputframe iframes; short stream outputs in colab-static-output-renderer in the top document; a cell that prints for long and then fails may have its stream in the frame too (?framed=)",
  "Colab 2025-26: the kernel's `Assertion … failed.` lines never reach the cell (no fd capture: sys.stderr.fileno() raises); colab-2026.ipynb has none, older fixtures keep them as stderr streams",
  "Colab: window.colab.global.notebook.cells[i] has getId(), getText(), model.executionCount, lastExecutionFailed, lastExecutionError {ename, evalue, traceback} and element_ (the cell's element while rendered); the DOM cell's id is `cell-` + getId() (?page=full|partial)",
  "Colab: off-screen cells are virtualised out of the DOM and render when scrolled near (?virtual=)",
  "Colab 2025-26: a cell's traceback file is <ipython-input-N-HEX>, /tmp/ipython-input-N-HASH.py, /tmp/ipython-input-HASH.py, /tmp/ipython-input-PID/HASH.py or /tmp/ipykernel_PID/HASH.py",
  "Colab §7.2: the top page sends a nonce + 'strict-dynamic' CSP (no 'wasm-unsafe-eval'); one variant adds Cross-Origin-Opener-Policy: same-origin",
  "Colab §7.3: window.colab.global.notebookModel.getLastResolvedNotebookJson() exists in the page world and holds the error outputs (one variant has no model)",
  "Colab §7.4: a content script matched to https://*.googleusercontent.com/* with all_frames runs inside the outputframe",
  "Colab: the execution count is readable as `[n]` text in the cell (.cell-execution-count); without it cells are ordered as on the page",
];

const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
const joinText = (t) => (Array.isArray(t) ? t.join("") : t ?? "");

const ANSI_CLASS = { 31: "ansi-red-fg", 32: "ansi-green-fg", 33: "ansi-yellow-fg", 34: "ansi-blue-fg", 36: "ansi-cyan-fg" };

/** Text with ANSI colour codes as coloured spans (as notebook front ends render them). */
export function ansiHtml(text) {
  let html = "";
  let open = false;
  for (const part of String(text).split(/(\x1b\[[0-9;]*m)/)) {
    const m = /^\x1b\[([0-9;]*)m$/.exec(part);
    if (!m) {
      html += esc(part);
      continue;
    }
    if (open) html += "</span>";
    open = false;
    const code = m[1].split(";").map(Number).find((n) => ANSI_CLASS[n]);
    if (code) {
      html += `<span class="${ANSI_CLASS[code]}">`;
      open = true;
    }
  }
  return html + (open ? "</span>" : "");
}

export const stripAnsi = (s) => String(s).replace(/\x1b\[[0-9;]*m/g, "");

function outputText(o) {
  if (o.output_type === "error") return (o.traceback || []).join("\n");
  if (o.output_type === "stream") return joinText(o.text);
  const data = o.data || {};
  return joinText(data["text/plain"]);
}

const sourceLines = (c) => joinText(c.source).split("\n");

/**
 * The Colab-like top document. Errors go to outputframes at `frameOrigin`.
 *
 * Options drawn to Colab as it is in 2026 (see ASSUMPTIONS): `page` puts Colab's page-world
 * notebook (`colab.global.notebook.cells`) in the page, `"full"` or `"partial"` (fields
 * missing); `virtual` lists cells virtualised out of the DOM (a spacer stands for each, and the
 * cell renders when the spacer scrolls into view); `framedStreams` lists cells whose streams
 * render in their outputframe, not in the top document; `scrollToEnd` opens the page scrolled
 * to its last cell (where the echoes are).
 */
export function colabTop(nb, { name, frameOrigin, nonce, model, evilFrames = false, page = null, virtual = [], framedStreams = [], scrollToEnd = false }) {
  const cells = nb.cells.map((c, i) => {
    const html = colabCell(nb, c, i, { name, frameOrigin, evilFrames, framedStreams });
    if (!virtual.includes(i)) return html;
    return `<div class="fx-spacer" data-cell="${i}" style="height: 1200px"></div><template id="fx-virtual-${i}">${html}</template>`;
  });
  const modelScript = model
    ? `<script nonce="${nonce}">window.colab = { global: { notebookModel: { getLastResolvedNotebookJson() { return ${JSON.stringify(JSON.stringify(nb)).replace(/</g, "\\u003c")}; } } } };</script>`
    : "";
  const pageScript = page ? `<script nonce="${nonce}">${pageModelScript(nb, page)}</script>` : "";
  const virtualScript = virtual.length || scrollToEnd ? `<script nonce="${nonce}">${VIRTUAL_SCRIPT}${scrollToEnd ? "scrollTo(0, document.body.scrollHeight);" : ""}</script>` : "";
  return `<!doctype html><html><head><meta charset="utf-8"><title>${esc(name)} - Colab</title>${modelScript}
<script nonce="${nonce}">window.__violations = []; document.addEventListener("securitypolicyviolation", (e) => window.__violations.push(e.violatedDirective + " " + e.blockedURI));</script>
</head><body><div id="top-toolbar"><colab-connect-button></colab-connect-button></div>
<div class="notebook-content"><div class="notebook-cell-list">${cells.join("\n")}</div></div>${pageScript}${virtualScript}</body></html>`;
}

/** Renders virtualised cells when their spacer scrolls into view (as Colab's list does). */
const VIRTUAL_SCRIPT = `
function fxRender() {
  for (const s of Array.from(document.querySelectorAll(".fx-spacer"))) {
    const r = s.getBoundingClientRect();
    if (r.bottom <= 0 || r.top >= innerHeight) continue;
    const t = document.getElementById("fx-virtual-" + s.dataset.cell);
    s.replaceWith(t.content.cloneNode(true));
    t.remove();
  }
}
addEventListener("scroll", () => setTimeout(fxRender, 50));
`;

/**
 * Colab's page-world notebook for `nb`: cells with getId(), getText(), model.executionCount,
 * lastExecutionFailed, lastExecutionError (ename, evalue, traceback) and element_ (a getter:
 * the cell's element while it is rendered). `partial` leaves fields out: cell 1 has no
 * getText, the second failing cell says it failed but has no error, the last has no count.
 */
function pageModelScript(nb, kind) {
  const failing = nb.cells.map((c, i) => ((c.outputs || []).some((o) => o.output_type === "error") ? i : -1)).filter((i) => i >= 0);
  const cells = nb.cells.map((c, i) => {
    const err = (c.outputs || []).find((o) => o.output_type === "error");
    const partial = kind === "partial";
    return {
      id: `fx${i}`,
      type: c.cell_type === "code" ? "code" : "text",
      text: partial && i === 1 ? null : joinText(c.source),
      count: partial && i === nb.cells.length - 1 ? null : c.execution_count ?? null,
      failed: c.cell_type === "code" ? !!err : undefined,
      error: err && !(partial && i === failing[1]) ? { ename: err.ename, evalue: err.evalue, traceback: err.traceback } : null,
    };
  });
  return `(() => {
  const data = ${JSON.stringify(cells).replace(/</g, "\\u003c")};
  const cells = data.map((d) => {
    const c = { cellId: d.id, type: d.type, getId() { return d.id; }, model: { executionCount: d.count } };
    if (d.text !== null) c.getText = () => d.text;
    if (d.failed !== undefined) c.lastExecutionFailed = d.failed;
    if (d.error) c.lastExecutionError = d.error;
    Object.defineProperty(c, "element_", { get: () => document.getElementById("cell-" + d.id) });
    return c;
  });
  window.colab = Object.assign(window.colab || {}, { global: Object.assign((window.colab || {}).global || {}, { notebook: { cells } }) });
})();`;
}

/** One cell of the Colab-like page. */
function colabCell(nb, c, i, { name, frameOrigin, evilFrames, framedStreams }) {
  {
    const id = `cell-fx${i}`;
    if (c.cell_type !== "code") {
      return `<div class="cell notebook-cell text" id="${id}"><div class="main-content"><div class="markdown">${esc(joinText(c.source))}</div></div></div>`;
    }
    const outs = (c.outputs || []).map((o, j) => {
      if (o.output_type === "error" || framedStreams.includes(i)) {
        return `<div class="output-iframe-container"><div class="output-iframe-sizer"><iframe src="${frameOrigin}/outputframe.html?nb=${encodeURIComponent(name)}&amp;c=${i}&amp;o=${j}${evilFrames ? "&amp;evil=1" : ""}" width="100%" height="320" frameborder="0"></iframe></div></div>`;
      }
      const cls = o.output_type === "stream" ? `stream output-id-${j + 1} output_text` : `execute_result output-id-${j + 1} output_text`;
      return `<div class="output-iframe-container"><div class="output-iframe-sizer"><colab-static-output-renderer tabindex="0" role="group"><div><div class="${cls}"><pre>${ansiHtml(outputText(o))}</pre></div></div></colab-static-output-renderer></div></div>`;
    });
    const count = Number.isInteger(c.execution_count) ? `[${c.execution_count}]` : "[ ]";
    return `<div class="cell notebook-cell code" id="${id}"><div class="main-content"><div class="codecell-input-output">
<div class="inputarea horizontal layout code"><div class="cell-gutter"><span class="cell-execution-count">${count}</span><colab-run-button></colab-run-button></div>
<div class="monaco-editor"><div class="view-lines">${sourceLines(c).map((l) => `<div class="view-line">${esc(l)}</div>`).join("")}</div></div></div>
<div class="output" role="region" aria-label="Cell ${i} output"><div class="output-header"></div><div class="output-content"><div class="output-info"></div>${outs.join("")}</div></div>
</div></div></div>`;
  }
}

/** Colab's CSP for the top page (a nonce and 'strict-dynamic'; no 'wasm-unsafe-eval'). */
export function colabHeaders(nonce, { coop } = {}) {
  const h = {
    "Content-Type": "text/html; charset=utf-8",
    "Content-Security-Policy": `script-src 'nonce-${nonce}' 'strict-dynamic' 'report-sample' https: http: 'unsafe-inline'; object-src 'none'; base-uri 'self'`,
  };
  if (coop) h["Cross-Origin-Opener-Policy"] = "same-origin";
  return h;
}

/** The outputframe document for output `o` of cell `c`. */
export function colabFrame(nb, c, o, { evil = false } = {}) {
  const out = nb.cells[c]?.outputs?.[o];
  if (!out) return "<!doctype html><body>no such output</body>";
  const cls = out.output_type === "error" ? "output_subarea output_error error output-error" : "output_subarea output_text";
  return `<!doctype html><html><head><meta charset="utf-8"><base href="https://localhost:8080/"></head>
<body><div id="output-area"><div id="output-body"><div class="${cls}"><pre>${ansiHtml(outputText(out))}</pre></div></div></div>${evil ? EVIL_OUTPUT : ""}</body></html>`;
}

/**
 * What a hostile notebook output can run inside its outputframe: it records every message it
 * sees (to find out whether it can read the analysis) and posts fakes to the top page, in the
 * shapes of the protocol, claiming a different assert.
 */
const EVIL_OUTPUT = `<script>
  window.__seen = [];
  addEventListener("message", (e) => window.__seen.push(JSON.stringify(e.data)));
  const fake = "/pytorch/aten/src/ATen/native/cuda/Loss.cu:94: operator(): block: [0,0,0], thread: [0,0,0] Assertion \`input_val >= zero && input_val <= one\` failed.";
  for (const type of ["first-assert:frame-outputs", "first-assert:frame-alert", "first-assert:result"]) {
    parent.postMessage({ type, outputs: [{ kind: "stream", name: "stderr", text: fake }], first: { cell: 0, line: 1, text: fake }, echoes: [], verdict: "device_assert" }, "*");
  }
  try { chrome.runtime.sendMessage("x", { type: "frame-outputs", outputs: [{ text: fake }] }); } catch (e) {}
</script>`;

/**
 * A JupyterLab-like page (also Notebook 7, and Kaggle's editor frame). `windowed` draws
 * JupyterLab 4's WindowedList as Kaggle uses it: each cell carries `data-windowed-list-index`
 * and `data-uuid`, sits in a slot of the scrolling `.jp-WindowedPanel-outer`, and is detached
 * while its slot is off screen (reattached, the same node, when it scrolls back), and drawn
 * again when it is resized; the page opens scrolled to the end.
 */
export function jupyterlab(nb, name, { windowed = false } = {}) {
  const cells = nb.cells.map((c, i) => {
    const attrs = windowed ? ` data-windowed-list-index="${i}" data-uuid="fx-uuid-${i}"` : "";
    if (c.cell_type !== "code") return `<div class="jp-Cell jp-MarkdownCell"${attrs}><div class="jp-RenderedMarkdown">${esc(joinText(c.source))}</div></div>`;
    const outs = (c.outputs || []).map((o) => {
      const mime = o.output_type === "error" || (o.output_type === "stream" && o.name === "stderr") ? "application/vnd.jupyter.stderr" : o.output_type === "stream" ? "application/vnd.jupyter.stdout" : "text/plain";
      return `<div class="jp-OutputArea-child"><div class="jp-OutputPrompt"></div><div class="jp-RenderedText jp-OutputArea-output" data-mime-type="${mime}"><pre>${ansiHtml(outputText(o))}</pre></div></div>`;
    });
    const count = Number.isInteger(c.execution_count) ? c.execution_count : " ";
    return `<div class="jp-Cell jp-CodeCell"${attrs}><div class="jp-InputArea"><div class="jp-InputPrompt jp-InputArea-prompt">[${count}]:</div>
<div class="jp-InputArea-editor"><div class="cm-editor"><div class="cm-content">${sourceLines(c).map((l) => `<div class="cm-line">${esc(l)}</div>`).join("")}</div></div></div></div>
<div class="jp-OutputArea">${outs.join("")}</div></div>`;
  });
  if (windowed) {
    const slots = cells.map((html, i) => `<div class="fx-slot" data-slot="${i}" style="height: 240px; overflow: hidden">${html}</div>`);
    return `<!doctype html><html><head><meta charset="utf-8"><title>${esc(name)} - JupyterLab</title></head>
<body style="margin: 0"><div class="jp-NotebookPanel"><div class="jp-Notebook jp-NotebookPanel-notebook">
<div class="jp-WindowedPanel-outer" style="height: 100vh; overflow-y: auto"><div class="jp-WindowedPanel-inner">${slots.join("\n")}</div></div></div></div>
<script>${WINDOWED_SCRIPT}</script></body></html>`;
  }
  return `<!doctype html><html><head><meta charset="utf-8"><title>${esc(name)} - JupyterLab</title></head>
<body><div class="jp-NotebookPanel"><div class="jp-Notebook jp-NotebookPanel-notebook">${cells.join("\n")}</div></div></body></html>`;
}

/** Detaches the cells of off-screen slots and reattaches them when they scroll back. */
const WINDOWED_SCRIPT = `
const outer = document.querySelector(".jp-WindowedPanel-outer");
const nodes = new Map();
for (const s of document.querySelectorAll(".fx-slot")) nodes.set(s, s.firstElementChild);
function fxWindow() {
  const top = outer.scrollTop, bottom = top + outer.clientHeight;
  for (const [slot, cell] of nodes) {
    const inView = slot.offsetTop + slot.offsetHeight > top && slot.offsetTop < bottom;
    if (inView && !cell.isConnected) slot.appendChild(cell);
    if (!inView && cell.isConnected) cell.remove();
  }
}
outer.addEventListener("scroll", fxWindow);
// As JupyterLab's list does, it renders again when its size changes: a frame in another
// process can start with a 0 x 0 viewport (nothing in view) and get its size a moment later.
new ResizeObserver(() => {
  if (!outer.dataset.fxEnd && outer.clientHeight > 0) {
    outer.dataset.fxEnd = "1";
    outer.scrollTop = outer.scrollHeight;
  }
  fxWindow();
}).observe(outer);
`;

/** A classic-Notebook-like page. */
export function classic(nb, name) {
  const cells = nb.cells.map((c) => {
    if (c.cell_type !== "code") return `<div class="cell text_cell rendered"><div class="text_cell_render">${esc(joinText(c.source))}</div></div>`;
    const outs = (c.outputs || []).map((o) => {
      const cls = o.output_type === "error" ? "output_subarea output_text output_error" : o.output_type === "stream" ? `output_subarea output_stream output_${o.name || "stdout"} output_text` : "output_subarea output_text output_result";
      return `<div class="output_area"><div class="prompt"></div><div class="${cls}"><pre>${ansiHtml(outputText(o))}</pre></div></div>`;
    });
    const count = Number.isInteger(c.execution_count) ? c.execution_count : " ";
    return `<div class="cell code_cell rendered"><div class="input"><div class="prompt_container"><div class="prompt input_prompt">In&nbsp;[${count}]:</div></div>
<div class="inner_cell"><div class="input_area"><div class="CodeMirror"><div class="CodeMirror-code">${sourceLines(c).map((l) => `<pre class="CodeMirror-line">${esc(l)}</pre>`).join("")}</div></div></div></div></div>
<div class="output_wrapper"><div class="output">${outs.join("")}</div></div></div>`;
  });
  return `<!doctype html><html><head><meta charset="utf-8"><title>${esc(name)} - Jupyter Notebook</title></head>
<body><div id="notebook"><div id="notebook-container" class="container">${cells.join("\n")}</div></div></body></html>`;
}

/** A long notebook: `n` cells of training output, one device-side assert, echoes after it. */
export function longNotebook(n = 100) {
  const cells = [];
  const assertAt = Math.floor(n * 0.6);
  for (let i = 0; i < n; i++) {
    const exec = i + 1;
    const src = [`for step in range(10):\n`, `    loss = train_step(batch_${i})\n`];
    let outputs = [{ output_type: "stream", name: "stdout", text: [`step ${i}: loss ${(1 / (i + 1)).toFixed(4)}\n`] }];
    if (i === assertAt) {
      outputs = [
        {
          output_type: "stream",
          name: "stderr",
          text: Array.from({ length: 8 }, (_, t) => `/pytorch/aten/src/ATen/native/cuda/Loss.cu:250: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [${t},0,0] Assertion \`t >= 0 && t < n_classes\` failed.\n`),
        },
        error(`<ipython-input-${exec}-0a1b2c3d4e5f>`, "loss = criterion(logits, labels)"),
      ];
      src.splice(1, 1, `    loss = criterion(logits, labels)\n`);
    } else if (i > assertAt && i % 10 === 0) {
      outputs = [error(`<ipython-input-${exec}-9f8e7d6c5b4a>`, "print(acc.item())")];
    }
    cells.push({ cell_type: "code", execution_count: exec, metadata: {}, source: src, outputs });
  }
  return { nbformat: 4, nbformat_minor: 5, metadata: {}, cells };
}

/**
 * Colab as it is in 2026: no kernel line anywhere (they go to the runtime log), the cell file
 * in the `/tmp/ipykernel_PID/HASH.py` form, a training loop that prints and then fails (its
 * stream renders in the outputframe with the error), and two later cells failing with the
 * same error (echoes). The cause must come from the code: a class count set in one cell, the
 * loss in the failing one.
 */
export function colab2026Notebook() {
  const code = (n, source, outputs = []) => ({ cell_type: "code", execution_count: n, metadata: {}, source, outputs });
  return {
    nbformat: 4,
    nbformat_minor: 5,
    metadata: { colab: { provenance: [] }, accelerator: "GPU" },
    cells: [
      code(1, ["import torch\n", "import torch.nn.functional as F\n"]),
      code(2, ["num_classes = 10\n", "model = Net(num_classes).cuda()\n"], [{ output_type: "stream", name: "stdout", text: ["model ready\n"] }]),
      code(3, ["for step, (x, labels) in enumerate(loader):\n", "    logits = model(x.cuda())\n", "    loss = F.cross_entropy(logits, labels.cuda())\n", "    print(step, loss.item())\n"], [
        { output_type: "stream", name: "stdout", text: ["0 2.3026\n", "1 2.2871\n"] },
        error("/tmp/ipykernel_412/2709765677.py", "print(step, loss.item())", "AcceleratorError", "4"),
      ]),
      { cell_type: "markdown", metadata: {}, source: ["## Evaluate"] },
      code(4, ["acc = evaluate(model, val_loader)\n", "print(acc)\n"], [error("/tmp/ipykernel_412/1843302210.py", "acc = evaluate(model, val_loader)", "AcceleratorError")]),
      code(5, ["torch.save(model.state_dict(), 'model.pt')\n"], [error("/tmp/ipykernel_412/3355021187.py", "torch.save(model.state_dict(), 'model.pt')", "AcceleratorError")]),
    ],
  };
}

/** `labels.ipynb`'s failure as JupyterLab shows it in 10-30% of runs: the kernel's stderr lines after the error. */
export function lateStderrNotebook(labels) {
  const nb = structuredClone(labels);
  for (const c of nb.cells) {
    const outs = c.outputs || [];
    const err = outs.findIndex((o) => o.output_type === "error");
    const stderr = outs.findIndex((o) => o.output_type === "stream" && o.name === "stderr" && joinText(o.text).includes("Assertion"));
    if (err >= 0 && stderr >= 0 && stderr < err) {
      const [s] = outs.splice(stderr, 1);
      outs.push(s);
    }
  }
  return nb;
}

function error(where, line, ename = "RuntimeError", lineNo = "1") {
  return {
    output_type: "error",
    ename,
    evalue: "CUDA error: device-side assert triggered",
    traceback: [
      "\x1b[0;31m---------------------------------------------------------------------------\x1b[0m",
      `\x1b[0;31m${ename}\x1b[0m                          Traceback (most recent call last)`,
      `\x1b[0;32m${where}\x1b[0m in \x1b[0;36m<cell line: 0>\x1b[0;34m()\x1b[0m`,
      `\x1b[0;32m----> ${lineNo}\x1b[0;31m ${line}\x1b[0m`,
      "",
      `\x1b[0;31m${ename}\x1b[0m: ` + "CUDA error: device-side assert triggered\nCUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1\nCompile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n",
    ],
  };
}

/** The shared corpus of hostile payloads (tests/payloads.json). */
export const PAYLOADS = JSON.parse(readFileSync(new URL("../payloads.json", import.meta.url), "utf8")).payloads;

/** A notebook whose outputs and sources carry the hostile payloads (as text). */
export function hostileNotebook() {
  const p = `<img src=x onerror="document.title='pwned'"><script>document.title='pwned'</script>`;
  const all = PAYLOADS.join("\n");
  return {
    nbformat: 4,
    nbformat_minor: 5,
    metadata: {},
    cells: [
      { cell_type: "markdown", metadata: {}, source: [p] },
      {
        cell_type: "code",
        execution_count: 1,
        metadata: {},
        source: [`x = "${p}"\n`],
        outputs: [
          { output_type: "stream", name: "stderr", text: [`/pytorch/aten/src/ATen/native/cuda/Loss.cu:250: ${p}: block: [0,0,0], thread: [1,0,0] Assertion \`t >= 0 && ${p}\` failed.\n`] },
          error(`<ipython-input-1-${p}>`, `loss = f(${p})`),
          { output_type: "stream", name: "stdout", text: [all + "\n"] },
        ],
      },
      { cell_type: "code", execution_count: 2, metadata: {}, source: [all], outputs: [{ output_type: "stream", name: "stderr", text: [all] }] },
    ],
  };
}
