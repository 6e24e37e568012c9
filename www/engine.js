// The page's side of the engine: requests to the Web Worker (engine-worker.js), answered as
// promises, so the page stays responsive while a large log is read. (Module workers run in
// every browser the page supports: Chromium, Firefox 114+, Safari 15+.)
//
//   const engine = startEngine();
//   const { report, key, map } = await engine.analyzeBytes(bytes, "train.log", { lang });
//   view.show(report, engine.session({ key, map }), messages);

/** Starts the worker. Requests may be sent at once: the worker answers them in order once its
 * engine is compiled (a worker that cannot start fails each of them with the reason). */
export function startEngine() {
  return new Engine(new Worker(new URL("./engine-worker.js", import.meta.url), { type: "module" }));
}

class Engine {
  constructor(worker) {
    this.worker = worker;
    this.next = 1;
    this.pending = new Map();
    worker.addEventListener("message", (e) => {
      const { id, value, error, progress } = e.data ?? {};
      const p = this.pending.get(id);
      if (!p) return;
      if (progress) return p.onProgress?.(progress);
      this.pending.delete(id);
      if (error !== undefined) p.reject(new Error(error));
      else p.resolve(value);
    });
    worker.addEventListener("error", (e) => {
      // The worker could not load or its engine died: every waiting request fails clearly.
      for (const p of this.pending.values()) p.reject(new Error(e.message || "the engine stopped"));
      this.pending.clear();
      e.preventDefault();
    });
  }

  call(op, args = {}, onProgress = null) {
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, onProgress });
      this.worker.postMessage({ id, op, args });
    });
  }

  version() {
    return this.call("version");
  }

  /** Hands a language's catalogue (its JSON text) to the engine; resolves to its language. */
  setCatalogue(json) {
    return this.call("catalogue", { json });
  }

  /** The bytes are copied to the worker (the page keeps them, to analyse again beside a runtime log). */
  analyzeBytes(bytes, name, opts) {
    return this.call("bytes", { bytes, name, opts });
  }

  /** A log file read a block at a time in the worker (its memory stays bounded whatever the
   * size): `onProgress({ read, total, seen })` after each block (`seen`: the line of the
   * earliest device-side assert so far); resolves to the answer, or `{ cancelled: true }`. */
  analyzeFile(file, opts, onProgress) {
    return this.call("file", { file, opts }, onProgress);
  }

  /** Stops a file's reading (its request resolves to `{ cancelled: true }`). */
  cancel() {
    return this.call("cancel");
  }

  /** The engine's linear memory, in bytes: the most it has held (a test's hook). */
  memory() {
    return this.call("memory");
  }

  /** How the engine reads a file whose first bytes are `head`: `{ read, encoding }` (read:
   * binary, whole or stream; encoding: utf8, utf16 or gb18030). */
  async sniff(head, name) {
    const [read, encoding] = (await this.call("sniff", { head, name })).split(" ");
    return { read, encoding };
  }

  /** What the worker has done: `{ analyses, fileBytes }`, analyses begun and bytes of files
   * read (a test's hook). */
  work() {
    return this.call("work");
  }

  /** Text as the bytes of a file (UTF-8, encoded in the worker). */
  analyzeText(text, opts) {
    return this.call("text", { text, opts });
  }

  analyzeCells(cells, opts) {
    return this.call("cells", { cells, opts });
  }

  /** The last input's report in another language (null before any analysis): what the engine
   * found, worded again; nothing is analysed or read again. */
  setLang(lang, onProgress = null) {
    return this.call("lang", { lang }, onProgress);
  }

  window(cell, line, log = false, alt = false) {
    return this.call("window", { cell, line, log, alt });
  }

  reset() {
    return this.call("reset");
  }

  /** What the report view asks of a session, for the answer `{ key, map, quoted }` it goes
   * with (`alt`: the answer is the quoted one, read with what reads as quoted counted). */
  session({ key, map, quoted }, alt = false) {
    return {
      storageKey: () => key,
      map: () => map,
      window: (cell, line, log) => this.window(cell, line, log, alt),
      quoted: () => quoted ?? null,
    };
  }
}
