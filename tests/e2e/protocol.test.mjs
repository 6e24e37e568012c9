// www/protocol.js on its own: the origin allowlist and the schema checks.

import { test } from "node:test";
import assert from "node:assert/strict";
import { isAllowedOrigin, parseMessage, result, unpackCells, LIMITS } from "../../www/protocol.js";

const SELF = "https://first-assert.example";

test("origins: Colab, Kaggle, local Jupyter and ourselves only", () => {
  for (const o of [
    SELF,
    "https://colab.research.google.com",
    "https://www.kaggle.com",
    "http://localhost:8888",
    "http://127.0.0.1:8888",
    "https://localhost",
    "http://[::1]:8888",
    "https://kkb-production.jupyter-proxy.kaggle.net",
  ]) {
    assert.ok(isAllowedOrigin(o, SELF), o);
  }
  for (const o of [
    "http://colab.research.google.com", // not https
    "https://colab.research.google.com.evil.test",
    "https://evil-colab.research.google.com",
    "https://colab.research.google.com/path",
    "https://user@colab.research.google.com",
    "https://kaggle.com.evil.test",
    "https://jupyter-proxy.kaggle.net.evil.test",
    "https://evil.test/.jupyter-proxy.kaggle.net",
    "http://kkb-production.jupyter-proxy.kaggle.net",
    "http://localhost.evil.test:8888",
    "file://",
    "null",
    "",
    "chrome-extension://abcdefghijklmnopabcdefghijklmnop",
    "javascript:alert(1)",
    undefined,
  ]) {
    assert.ok(!isAllowedOrigin(o, SELF), String(o));
  }
});

test("messages that are not ours are ignored, ours are checked", () => {
  for (const other of [null, 5, "first-assert:analyze", [], {}, { type: "webpackOk" }, { type: 3 }]) {
    assert.equal(parseMessage(other), null);
  }
  assert.deepEqual(parseMessage({ type: "first-assert:hello", protocol: 1 }), { kind: "hello" });
  const ok = parseMessage({ type: "first-assert:analyze", protocol: 1, id: "a", cells: [{ index: 0, outputs: [{ kind: "stream", text: "x" }] }], lang: "zh" });
  assert.equal(ok.kind, "analyze");
  assert.equal(ok.lang, "zh");
  assert.equal(ok.cells.length, 1);
  assert.equal(parseMessage({ type: "first-assert:analyze", protocol: 1, id: 3, text: "log" }).text, "log");
});

test("schema violations are refused with a reason", () => {
  const base = { type: "first-assert:analyze", protocol: 1, id: "a" };
  const refused = [
    [{ type: "first-assert:nope", protocol: 1 }, /unknown message type/],
    [{ ...base, cells: [], extra: 1 }, /unknown field "extra"/],
    [{ ...base, protocol: "1", cells: [] }, /protocol 1 is not supported/],
    [{ ...base, id: undefined, cells: [] }, /id/],
    [{ ...base, id: "x".repeat(LIMITS.id + 1), cells: [] }, /id/],
    [{ ...base, id: {}, cells: [] }, /id/],
    [{ ...base }, /exactly one of cells and text/],
    [{ ...base, cells: [], text: "" }, /exactly one of cells and text/],
    [{ ...base, text: 5 }, /text: not a string/],
    [{ ...base, cells: {} }, /cells: not an array/],
    [{ ...base, cells: [null] }, /cells\[0\]: not an object/],
    [{ ...base, cells: [{ evil: 1 }] }, /cells\[0\]: unknown field "evil"/],
    [{ ...base, cells: [{ index: -1 }] }, /index/],
    [{ ...base, cells: [{ execution_count: 1.5 }] }, /execution_count/],
    [{ ...base, cells: [{ outputs: [{ kind: "stream", onload: "x" }] }] }, /unknown field "onload"/],
    [{ ...base, cells: [{ outputs: "x" }] }, /outputs: not an array/],
    [{ ...base, cells: Array(LIMITS.cells + 1).fill({}) }, /more than/],
    [{ ...base, cells: [{ source: (() => { let v = "x"; for (let i = 0; i < 10; i++) v = [v]; return v; })() }] }, /nested too deeply/],
    [{ ...base, cells: [], lang: "fr" }, /lang/],
    [{ ...base, cells: [], title: "t".repeat(LIMITS.title + 1) }, /title/],
    [{ ...base, text: "x".repeat(LIMITS.bytes + 1) }, /larger than/],
  ];
  for (const [msg, reason] of refused) {
    assert.throws(() => parseMessage(msg), reason, JSON.stringify(msg).slice(0, 120));
  }
});

test("results carry places, not the log", () => {
  const report = {
    verdict: "device_assert",
    headline: "h",
    cause: { category: "invalid_label", rule: "r" },
    first_assert: { text: "Assertion `t >= 0` failed.", kind: "kernel_assert", line: 4, cell: 2, output: 1, execution_count: 7, context: [{ line: 3, text: "secret" }] },
    raised_at: { text: "loss = f(x)", line: 9, cell: 3, output: 0, execution_count: 8, frames: [] },
    echoes: [{ text: "e", line: 1, cell: 5, output: 0, execution_count: 9 }],
  };
  const r = result("id-1", report);
  assert.equal(r.type, "first-assert:result");
  assert.deepEqual(r.first, { cell: 2, line: 4, execution_count: 7, output: 1, text: "Assertion `t >= 0` failed.", kind: "kernel_assert" });
  assert.deepEqual(r.echoes, [{ cell: 5, line: 1, execution_count: 9, output: 0 }]);
  assert.equal(r.category, "invalid_label");
  assert.ok(!JSON.stringify(r).includes("secret"), "context lines stay in the page");
  assert.equal(result("x", { ...report, first_assert: null, cause: null, raised_at: null, echoes: [] }).first, null);
  assert.deepEqual(r.unreadable, []);
  assert.deepEqual(result("x", { ...report, verdict: "unreadable", input: { unreadable_cells: [2, 5] } }).unreadable, [2, 5]);
  // Confirmed: the place is the probe's error line (the confirmation's `at`), the kind its
  // source; the cells whose errors are from before the probed run travel as indices.
  const text = "FirstAssertError: F.cross_entropy: target out of range.";
  const caught = {
    ...report,
    verdict: "confirmed",
    first_assert: null,
    confirmation: { source: "probe", op: "F.cross_entropy", value: "12", text, at: { line: 12, cell: 3, output: 1, execution_count: 3 } },
    cause: { category: "invalid_label", rule: "r", evidence: [{ text: "FirstAssertError: F.cross_entropy: target out of range.", scope: "confirmation", where: "cell [3], line 12", line: 12, cell: 3, output: 1, execution_count: 3 }] },
    input: { unreadable_cells: [], superseded_cells: [4, 5] },
  };
  const c = result("y", caught);
  assert.deepEqual(c.first, { cell: 3, line: 12, execution_count: 3, output: 1, text: "FirstAssertError: F.cross_entropy: target out of range.", kind: "probe" });
  assert.deepEqual(c.superseded, [4, 5]);
  assert.equal(result("y", { ...caught, confirmation: { ...caught.confirmation, source: "cpu" } }).first.kind, "cpu");
  assert.deepEqual(r.superseded, []);
});

test("what the adapter read travels as counts and short names only; unreadable outputs carry a reason", () => {
  const cells = [{ index: 0, outputs: [{ kind: "unreadable", reason: "frame" }] }];
  const ok = parseMessage({ type: "first-assert:analyze", protocol: 1, id: "b", cells, sources: { adapter: "colab", version: "2026-11-30", page: 6, json: null, dom: 3, frames: 2, unreadable: 1, virtualised: 3 } });
  assert.equal(ok.sources.page, 6);
  for (const sources of [{ page: "x".repeat(41) }, { dom: -1 }, { text: "secret" }, { frames: { n: 1 } }, []]) {
    assert.throws(() => parseMessage({ type: "first-assert:analyze", protocol: 1, id: "b", cells, sources }), /sources/);
  }
});

async function pack(bytes) {
  const out = new Uint8Array(await new Response(new Blob([bytes]).stream().pipeThrough(new CompressionStream("deflate-raw"))).arrayBuffer());
  return Buffer.from(out).toString("base64url");
}

test("cells in the URL fragment: read back, bounded, checked", async () => {
  const cells = [{ index: 0, execution_count: 1, outputs: [{ kind: "stream", name: "stderr", text: "RuntimeError: CUDA error: device-side assert triggered\n" }] }];
  assert.deepEqual(await unpackCells(await pack(JSON.stringify({ cells }))), cells);
  // A small fragment that inflates past the limit is refused, not inflated.
  const bomb = await pack(new Uint8Array(LIMITS.bytes + 1024).fill(32));
  assert.ok(bomb.length < 200_000);
  await assert.rejects(unpackCells(bomb), /inflates past/);
  await assert.rejects(unpackCells("not base64!"), /not base64url/);
  await assert.rejects(unpackCells("AAAA"), /not deflate data|not JSON/);
  await assert.rejects(unpackCells(await pack("[1,2]")), /holds no cells/);
  await assert.rejects(unpackCells(await pack(JSON.stringify({ cells: [{ evil: 1 }] }))), /unknown field "evil"/);
});
