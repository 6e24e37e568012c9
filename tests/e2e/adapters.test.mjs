// The page adapters (www/adapters/adapters.js) on fixture pages in Chromium: what they
// collect gives the engine the same first assert and cause as the notebook file itself, the
// marks land on the right text, the self-test finds every selector, and unmark leaves the
// page exactly as it was. Hostile outputs stay text.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { launch, engine, fileReport, WWW } from "./lib.mjs";
import { startHosts } from "./hosts.mjs";
import * as protocol from "../../www/protocol.js";

const ADAPTERS = readFileSync(path.join(WWW, "adapters/adapters.js"), "utf8");

let hosts, browser, pkg;
before(async () => {
  pkg = await engine();
  hosts = await startHosts();
  browser = await launch(hosts.chromiumArgs);
});
after(async () => {
  await browser?.close();
  hosts?.close();
});


/** Opens `url`, runs the adapters, analyses what they collected; returns { page, report, collected }. */
async function collectOn(url) {
  const page = await browser.newPage();
  page.setDefaultTimeout(15_000);
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(url);
  // As a bookmarklet would: code run in the page, not a <script> element the CSP would block.
  await page.evaluate(ADAPTERS);
  const collected = await page.evaluate(() => {
    const A = window.FirstAssertAdapters;
    const model = window.colab?.global?.notebookModel?.getLastResolvedNotebookJson?.();
    window.__collected = A.collect(document, model);
    return { adapter: window.__collected.adapter, cells: window.__collected.cells, fromModel: !!window.__collected.fromModel };
  });
  const s = new pkg.Session();
  const report = s.analyzeCells(collected.cells, {});
  s.free();
  return { page, report, collected, errors };
}

async function markOn(page, report) {
  return page.evaluate((result) => {
    const r = window.FirstAssertAdapters.mark(document, window.__collected, result);
    return { first: r.first, echoes: r.echoes, frames: r.frames.length };
  }, protocol.result("t", report));
}

const firstLine = (t) => t.split("\n")[0].trim();

for (const front of ["lab", "classic"]) {
  test(`${front}: every cell readable, same diagnosis as the file, the line marked`, { timeout: 60_000 }, async () => {
    for (const name of ["labels.ipynb", "echoes.ipynb", "long.ipynb"]) {
      const nb = hosts.nbs[name];
      const want = await fileReport(nb);
      const { page, report, collected, errors } = await collectOn(front === "lab" ? hosts.labUrl(name) : hosts.classicUrl(name));
      assert.equal(collected.adapter, front === "lab" ? "jupyterlab" : "classic");
      assert.equal(collected.cells.length, nb.cells.length);
      assert.equal(report.verdict, want.verdict, name);
      assert.equal(report.cause?.category, want.cause?.category, name);
      assert.equal(report.first_assert.cell, want.first_assert.cell, name);
      assert.deepEqual(report.echoes.map((e) => e.cell), want.echoes.map((e) => e.cell), name);
      assert.deepEqual(
        collected.cells.map((c) => c.execution_count),
        nb.cells.map((c) => (c.cell_type === "code" ? c.execution_count : null)),
      );

      const before = await page.evaluate(() => document.body.innerHTML);
      const r = await markOn(page, report);
      assert.equal(r.first, "line", name);
      const marked = await page.locator("[data-first-assert]").textContent();
      assert.ok(firstLine(report.first_assert.text).startsWith(marked.trim().slice(0, 40)), `${name}: ${marked}`);
      assert.equal(await page.locator("[data-first-assert-badge]").count(), 1);
      assert.equal(await page.locator("[data-first-assert-echo]").count(), new Set(report.echoes.map((e) => `${e.cell}:${e.output}`)).size);
      await page.evaluate(() => window.FirstAssertAdapters.unmark(document));
      assert.equal(await page.evaluate(() => document.body.innerHTML), before, "unmark restores the page");
      assert.deepEqual(errors, []);
      await page.close();
    }
  });
}

test("colab: stream outputs in the top document are read and marked; errors sit in frames", { timeout: 60_000 }, async () => {
  // labels.ipynb prints the kernel's assertion lines to stderr: a static renderer.
  const { page, report, collected } = await collectOn(hosts.colabUrl("labels.ipynb", "?model=0"));
  assert.equal(collected.adapter, "colab");
  assert.equal(collected.fromModel, false);
  const want = await fileReport(hosts.nbs["labels.ipynb"]);
  assert.equal(report.first_assert.cell, want.first_assert.cell);
  assert.equal(report.first_assert.kind, "kernel_assert");
  const r = await markOn(page, report);
  assert.equal(r.first, "line");
  assert.match(await page.locator("[data-first-assert]").textContent(), /Assertion `t >= 0 && t < n_classes` failed/);
  const violations = await page.evaluate(() => window.__violations);
  assert.deepEqual(violations, [], "the adapters trip no CSP rule");
  await page.close();
});

test("colab: with the page's notebook model the frames' errors are known and the cell is marked", { timeout: 60_000 }, async () => {
  const nb = hosts.nbs["echoes.ipynb"];
  const want = await fileReport(nb);
  const { page, report, collected } = await collectOn(hosts.colabUrl("echoes.ipynb"));
  assert.equal(collected.fromModel, true);
  assert.equal(report.first_assert.cell, want.first_assert.cell);
  assert.deepEqual(report.echoes.map((e) => e.cell), want.echoes.map((e) => e.cell));
  const r = await markOn(page, report);
  assert.equal(r.first, "frame", "the line is in an outputframe: the cell carries the mark");
  assert.ok(r.frames >= 1);
  assert.equal(await page.locator(`#cell-fx${want.first_assert.cell}[data-first-assert]`).count(), 1);
  for (const e of want.echoes.filter((e) => e.cell !== want.first_assert.cell)) {
    assert.equal(await page.locator(`#cell-fx${e.cell}[data-first-assert-echo]`).count(), 1, `echo cell ${e.cell}`);
  }
  await page.close();
});

test("self-test: every selector of each front end matches on its fixture", { timeout: 60_000 }, async () => {
  for (const [url, adapter] of [
    [hosts.colabUrl("long.ipynb"), "colab"],
    [hosts.labUrl("long.ipynb"), "jupyterlab"],
    [hosts.classicUrl("long.ipynb"), "classic"],
  ]) {
    const page = await browser.newPage();
    await page.goto(url);
    await page.evaluate(ADAPTERS);
    const st = await page.evaluate(() => window.FirstAssertAdapters.selftest(document));
    assert.equal(st.adapter, adapter);
    assert.match(st.version, /^\d{4}-\d{2}-\d{2}/);
    for (const e of st.entries.filter((e) => e.tried.length)) {
      assert.ok(e.matched, `${adapter}: no selector for "${e.name}" matched (${e.tried.join(" | ")})`);
    }
    await page.close();
  }
});

test("hostile outputs stay text everywhere", { timeout: 60_000 }, async () => {
  for (const url of [hosts.colabUrl("hostile.ipynb", "?model=0"), hosts.labUrl("hostile.ipynb"), hosts.classicUrl("hostile.ipynb")]) {
    const { page, report, errors } = await collectOn(url);
    const imgs = await page.locator("img, script:not([nonce])").count();
    await markOn(page, report);
    assert.equal(await page.locator("img, script:not([nonce])").count(), imgs);
    assert.equal(await page.locator("img, svg, style, link, object, embed").count(), 0);
    assert.notEqual(await page.title(), "pwned");
    assert.ok((await page.locator("[data-first-assert]").textContent()).includes("<img src=x"), url);
    assert.deepEqual(errors, []);
    await page.close();
  }
});
