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

test("the hosts' words come from the catalogue: no sentence in the adapters' or hosts' sources, all of them in each host's bundle", async () => {
  const { bundle } = await import("../../scripts/adapters-script.mjs");
  const texts = JSON.parse(readFileSync(path.join(ROOT, "www/pkg/host-texts.json"), "utf8"));
  assert.ok(Object.keys(texts.en).length >= 16 && Object.keys(texts.en).length === Object.keys(texts.zh).length);
  const sources = [
    ...readdirSync(path.join(ROOT, "www/adapters")).map((f) => path.join("www/adapters", f)),
    "www/bookmarklet/bookmarklet.js",
    "www/extension/content.js",
    "www/extension/frame.js",
  ];
  for (const f of sources) {
    // (The signal matches output in Chinese too: a pattern, not a word shown to anyone.)
    const src = readFileSync(path.join(ROOT, f), "utf8").split("\n").filter((l) => !/^\s*const SIGNAL = /.test(l)).join("\n");
    assert.ok(!/[\u4e00-\u9fff]/.test(src), `${f} has Chinese of its own: its words belong in i18n/messages.toml (host_)`);
  }
  for (const entry of ["bookmarklet/bookmarklet.js", "extension/content.js"]) {
    const code = bundle(entry, { minify: true });
    for (const lang of ["en", "zh"]) {
      for (const [key, text] of Object.entries(texts[lang])) {
        const escaped = JSON.stringify(text).slice(1, -1).replace(/[\u0080-\uffff]/g, (c) => "\\u" + c.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0"));
        assert.ok(code.includes(escaped), `${entry} lacks ${lang} ${key}`);
      }
    }
  }
  // The frame script takes only what it uses: no panel, no bookmarklet toasts' code.
  assert.ok(bundle("extension/frame.js").length < bundle("extension/content.js").length / 2);
});
