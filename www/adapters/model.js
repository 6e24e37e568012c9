// Page adapters: Colab's page-world notebook.
//
// `colab.global.notebook.cells[i]` is Colab's own model of the notebook: every cell, also
// those virtualised out of the DOM, with its text and its last error (traceback included),
// which the top document cannot read from the outputframes. Colab documents none of it, so
// every field is optional and checked for its type, every read is guarded, and only getters
// are called (`getId`, `getText`): nothing that could change the notebook.


const LIMIT = { cells: 5000, text: 2000000, lines: 2000 };

function get(o, k) {
  try {
    return o != null && (typeof o === "object" || typeof o === "function") ? o[k] : undefined;
  } catch {
    return undefined; // a getter that throws
  }
}

function call(o, k) {
  const f = get(o, k);
  if (typeof f !== "function") return undefined;
  try {
    return f.call(o);
  } catch {
    return undefined;
  }
}

const str = (v, max = 200) => (typeof v === "string" ? v.slice(0, max) : null);

const int = (v) => (Number.isInteger(v) && v >= 0 ? v : null);

/** One page cell as plain data (plus its element, which stays in this world). */
function pageCell(c) {
  const model = get(c, "model");
  const el = get(c, "element_");
  const element = typeof Element !== "undefined" && el instanceof Element ? el : null;
  const type = str(get(c, "type")) || str(get(model, "cell_type")) || str(get(model, "type"));
  const err = get(c, "lastExecutionError");
  let error = null;
  if (err && typeof err === "object") {
    const tb = get(err, "traceback");
    error = {
      ename: str(get(err, "ename")) || "",
      evalue: str(get(err, "evalue"), 4000) || "",
      traceback: Array.isArray(tb) ? tb.slice(0, LIMIT.lines).filter((l) => typeof l === "string").map((l) => l.slice(0, 20000)) : [],
    };
  }
  const failed = get(c, "lastExecutionFailed");
  return {
    id: str(call(c, "getId")) || str(get(c, "cellId")),
    type: type === "code" || type === "text" || type === "markdown" ? type : null,
    source: str(call(c, "getText"), LIMIT.text),
    execution_count: int(get(model, "executionCount")) ?? int(get(c, "executionCount")) ?? int(get(model, "execution_count")),
    failed: typeof failed === "boolean" ? failed : null,
    error,
    elementId: element ? str(element.id) : null,
    element,
  };
}

/** The cells of `win.colab.global.notebook`, or null when there is no such model. */
function readPage(win) {
  const cells = get(get(get(get(win, "colab"), "global"), "notebook"), "cells");
  if (!cells || typeof get(cells, "length") !== "number") return null;
  const out = [];
  for (let i = 0; i < Math.min(cells.length, LIMIT.cells); i++) out.push(pageCell(get(cells, i)));
  return out;
}

/**
 * Page cells that came from another world (the extension's MAIN-world script) as JSON:
 * checked field by field, anything else dropped. Returns the cells or null.
 */
function pageFromData(data) {
  if (!Array.isArray(data)) return null;
  return data.slice(0, LIMIT.cells).map((c) => {
    const e = c && typeof c === "object" ? c : {};
    const err = e.error && typeof e.error === "object" ? e.error : null;
    return {
      id: str(e.id),
      type: ["code", "text", "markdown"].includes(e.type) ? e.type : null,
      source: str(e.source, LIMIT.text),
      execution_count: int(e.execution_count),
      failed: typeof e.failed === "boolean" ? e.failed : null,
      error: err
        ? { ename: str(err.ename) || "", evalue: str(err.evalue, 4000) || "", traceback: Array.isArray(err.traceback) ? err.traceback.slice(0, LIMIT.lines).filter((l) => typeof l === "string").map((l) => l.slice(0, 20000)) : [] }
        : null,
      elementId: str(e.elementId),
      element: null,
    };
  });
}

/** The page cells as JSON-safe data (for crossing from the MAIN world). */
function pageToData(cells) {
  return (cells || []).map(({ element, ...rest }) => rest);
}

export { readPage, pageFromData, pageToData };
