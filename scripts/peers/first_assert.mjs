// A plain JavaScript peer for the benchmarks: the first line that looks like a CUDA
// device-side assert, found with one RegExp over the text, the way a page script would do it
// without our package. Prints `LINE: TEXT` or nothing; with `--time [RUNS]`, the best time of RUNS
// searches in this process, as JSON.
import { readFileSync } from "node:fs";

const PATTERN = /Assertion `.*` failed|device-side assert triggered/;

/** The first match's line number and text, from the file's bytes. */
function firstAssert(bytes) {
  const text = bytes.toString("utf8");
  const m = PATTERN.exec(text);
  if (!m) return null;
  let line = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < m.index; i = text.indexOf("\n", i + 1)) line++;
  const start = text.lastIndexOf("\n", m.index) + 1;
  return `${line}: ${text.slice(start, Math.min(text.indexOf("\n", m.index) >>> 0, start + 200))}`;
}

const bytes = readFileSync(process.argv[2]);
if (process.argv[3] === "--time") {
  // In-process, as scripts/peers/wasm.mjs measures the package: the best of RUNS searches of
  // the bytes already in memory (decoding included), as JSON.
  const runs = Number(process.argv[4] ?? 3);
  let best = Infinity;
  let found = null;
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    found = firstAssert(bytes);
    best = Math.min(best, performance.now() - t0);
  }
  console.log(JSON.stringify({ ms: best, found: found !== null }));
} else {
  const found = firstAssert(bytes);
  if (found) console.log(found);
  else process.exitCode = 1;
}
