// The extension's cheap test for "this page may show a device-side assert" (A.SIGNAL in
// www/adapters/, which content.js and frame.js share) against the engine: every
// input the CLI calls a device-side assert (the case suite, the demos, the fuzz regressions)
// and every probe error it reads as the confirmed cause must pass it, in the file's own text and as the JSON the content script tests. Otherwise the
// extension's automatic mode would stay silent on an assert the engine reads.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import vm from "node:vm";
import { ROOT, cliReport } from "./lib.mjs";
import { adaptersScript } from "../../scripts/adapters-script.mjs";

function adapters() {
  const context = { globalThis: {} };
  context.globalThis = context;
  vm.runInNewContext(adaptersScript(), context);
  return context.FirstAssertAdapters;
}

function inputs() {
  const dirs = ["tests/cases", "www/demo", "tests/fuzz-regressions"];
  return dirs.flatMap((d) =>
    readdirSync(path.join(ROOT, d))
      .filter((f) => !f.endsWith(".expect.json") && !f.endsWith(".md"))
      .map((f) => path.join(ROOT, d, f)),
  );
}

test("every input the engine calls a device-side assert passes the extension's signal", () => {
  const { SIGNAL } = adapters();
  assert.ok(SIGNAL instanceof RegExp || typeof SIGNAL?.test === "function");
  let asserts = 0;
  const missed = [];
  for (const file of inputs()) {
    let report;
    try {
      report = cliReport(file);
    } catch {
      continue; // an input the CLI refuses (binary, malformed): nothing to signal
    }
    if (report.verdict !== "device_assert" && report.confirmation?.source !== "probe") continue;
    asserts++;
    const bytes = readFileSync(file);
    const text = bytes[0] === 0xff && bytes[1] === 0xfe ? new TextDecoder("utf-16le").decode(bytes) : new TextDecoder().decode(bytes);
    if (!SIGNAL.test(text) || !SIGNAL.test(JSON.stringify(text))) missed.push(path.relative(ROOT, file));
  }
  assert.ok(asserts >= 60, `only ${asserts} device-side asserts among the inputs`);
  assert.deepEqual(missed, [], "inputs the engine calls a device-side assert that the signal misses");
});

test("the signal does not fire on a training log without an error", () => {
  const { SIGNAL } = adapters();
  for (const clean of ["epoch 1: loss 0.31", "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB", "assertion passed", "IndexError: index 3 is out of bounds for dimension 0 with size 3"]) {
    assert.equal(SIGNAL.test(clean), false, clean);
  }
});
