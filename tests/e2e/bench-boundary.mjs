// The package's boundary, measured (scripts/bench-boundary.sh, in make bench): reports out as
// JSON.parse of the engine's JSON (www/pkg, what ships) or through serde-wasm-bindgen (the
// `js-objects` build). Same inputs, same process, interleaved; best of RUNS.
//
//   node bench-boundary.mjs PKG_DIR BENCH_DATA_DIR

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import path from "node:path";
import { WWW } from "./lib.mjs";

const [other, data] = process.argv.slice(2);
const RUNS = Number(process.env.RUNS ?? 5);

async function load(dir) {
  const pkg = await import(path.resolve(dir, "first_assert.js"));
  const wasm = readFileSync(path.resolve(dir, "first_assert_bg.wasm"));
  pkg.initSync({ module: wasm });
  for (const l of ["en", "zh"]) pkg.setCatalogue(readFileSync(path.join(WWW, `pkg/first-assert.${l}.json`), "utf8"));
  return { pkg, gz: gzipSync(wasm, { level: 9 }).length };
}

const json = await load(path.join(WWW, "pkg"));
const objects = await load(other);
const kib = (n) => (n / 1024).toFixed(1);
console.log(`package, gzipped: JSON.parse ${json.gz} bytes, serde-wasm-bindgen ${objects.gz} bytes (+${kib(objects.gz - json.gz)} KiB)`);

const best = (f) => {
  let t = Infinity;
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    f();
    t = Math.min(t, performance.now() - t0);
  }
  return t;
};

for (const name of ["b-train-200m-assert.log", "c-flood-1m.log", "d-notebook-20m.ipynb"]) {
  const bytes = readFileSync(path.join(data, name));
  const sessions = [json, objects].map(({ pkg }) => new pkg.Session());
  const reports = sessions.map((s) => s.analyzeBytes(bytes, name, { lang: "en" }));
  // The same report either way, numbers included (0.95 stays 0.95).
  assert.deepEqual(reports[1], reports[0], `${name}: the two packages disagree`);
  const size = JSON.stringify(reports[0]).length;
  // The hand-over alone: the kept report out again, 100 times.
  const out = sessions.map((s) => best(() => {
    for (let i = 0; i < 100; i++) s.report();
  }) / 100);
  const all = sessions.map((s) => best(() => s.analyzeBytes(bytes, name, { lang: "en" })));
  const pct = (a, b) => `${b >= a ? "+" : ""}${(((b - a) / a) * 100).toFixed(0)}%`;
  console.log(
    `${name} (report ${kib(size)} KiB of JSON): hand-over ${out[0].toFixed(3)} ms JSON.parse, ${out[1].toFixed(3)} ms serde-wasm-bindgen (${pct(out[0], out[1])}); ` +
      `whole analysis ${all[0].toFixed(0)} ms, ${all[1].toFixed(0)} ms (${pct(all[0], all[1])})`,
  );
  for (const s of sessions) s.free();
}
