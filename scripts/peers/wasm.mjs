// Our WebAssembly package under Node, for the benchmarks: analyses a file the way the page
// does (Session.analyzeBytes, which also keeps the input for the view) and prints, as JSON,
// the best time of RUNS runs and the package's peak memory.
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const pkgDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../www/pkg");
const pkg = await import(path.join(pkgDir, "first_assert.js"));
const exports = pkg.initSync({ module: readFileSync(path.join(pkgDir, "first_assert_bg.wasm")) });
if (pkg.setCatalogue) pkg.setCatalogue(readFileSync(path.join(pkgDir, "first-assert.en.json"), "utf8"));
const file = process.argv[2];
const runs = Number(process.argv[3] ?? 3);
const bytes = readFileSync(file);
let best = Infinity;
let verdict = "";
for (let i = 0; i < runs; i++) {
  const s = new pkg.Session();
  const t0 = performance.now();
  const r = s.analyzeBytes(bytes, path.basename(file), {});
  best = Math.min(best, performance.now() - t0);
  verdict = r.verdict;
  s.free();
}
console.log(JSON.stringify({ ms: best, bytes: bytes.length, memory: exports.memory.buffer.byteLength, verdict }));
