// The page adapters (www/adapters/, bundled as the browser runs them) on fixture pages in Chromium: what they
// collect gives the engine the same first assert and cause as the notebook file itself, the
// marks land on the right text, the self-test finds every selector, and unmark leaves the
// page exactly as it was. Hostile outputs stay text.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { launch, engine, fileReport } from "./lib.mjs";
import { startHosts } from "./hosts.mjs";
import { adaptersScript } from "../../scripts/adapters-script.mjs";
import * as protocol from "../../www/protocol.js";

const ADAPTERS = adaptersScript();

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
    // As the bookmarklet reads: the page-world notebook first, the saved JSON without it.
    const pageCells = A.readPage(window);
    const model = pageCells ? undefined : window.colab?.global?.notebookModel?.getLastResolvedNotebookJson?.();
    window.__collected = A.collect(document, model, pageCells);
    const c = window.__collected;
    return { adapter: c.adapter, cells: c.cells, fromModel: !!c.fromModel, sources: c.sources, rendered: c.cellEls.map((e) => !!e) };
  });
  const s = new pkg.Session();
  const report = s.analyzeCells(collected.cells, {});
  s.free();
  return { page, report, collected, errors };
}

async function markOn(page, report) {
  return page.evaluate((result) => {
    const r = window.FirstAssertAdapters.mark(document, window.__collected, result);
    return { first: r.first, echoes: r.echoes, unreadable: r.unreadable, frames: r.frames.length, pending: r.pending };
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
    // It says which sources answered, too.
    assert.ok(st.sources.dom > 0 && st.sources.adapter === adapter, JSON.stringify(st.sources));
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

// Colab as it is in 2026 (fixtures.mjs): no kernel lines, errors and a training loop's stream
// in outputframes, the first failing cell virtualised out of the DOM, the page-world notebook
// present and the saved-notebook JSON absent.
const LIVE = "?model=0&page=full&virtual=0,1,2&framed=2&end=1";

test("colab 2026: the page-world notebook gives the virtualised first failing cell; it is marked once it renders", { timeout: 60_000 }, async () => {
  const nb = hosts.nbs["colab-2026.ipynb"];
  const want = await fileReport(nb);
  assert.equal(want.first_assert.cell, 2);
  assert.equal(want.cause.rule, "class-target-out-of-range", "the cause comes from the code");
  const { page, report, collected, errors } = await collectOn(hosts.colabUrl("colab-2026.ipynb", LIVE));
  assert.deepEqual(collected.rendered, [false, false, false, true, true, true]);
  assert.deepEqual(
    { page: collected.sources.page, dom: collected.sources.dom, virtualised: collected.sources.virtualised, json: collected.sources.json },
    { page: 6, dom: 3, virtualised: 3, json: null },
  );
  assert.equal(report.verdict, "device_assert");
  assert.equal(report.first_assert.cell, want.first_assert.cell);
  assert.equal(report.cause.rule, want.cause.rule);
  assert.deepEqual(report.echoes.map((e) => e.cell), want.echoes.map((e) => e.cell));
  assert.deepEqual(report.input.unreadable_cells, [], "the model's errors stand for the frames");

  const r = await markOn(page, report);
  assert.equal(r.first, "virtualised");
  assert.equal(r.echoes, 2);
  // The jump scrolls near it; the page renders it; the watch marks it.
  await page.evaluate((result) => (window.__result = result), protocol.result("t", report));
  await page.evaluate((cell) => {
    const A = window.FirstAssertAdapters;
    window.__stop?.();
    window.__stop = A.watch(document, window.__collected, [cell], () => A.mark(document, window.__collected, window.__result));
    A.reveal(document, window.__collected, cell);
  }, report.first_assert.cell);
  await page.waitForSelector(`#cell-fx${report.first_assert.cell}[data-first-assert]`);
  assert.equal(await page.locator("[data-first-assert-echo]").count(), 2);
  assert.deepEqual(errors, []);
  assert.deepEqual(await page.evaluate(() => window.__violations), []);
  await page.close();
});

test("colab 2026: a page model with fields missing still gives the cell; what it cannot say stays unreadable", { timeout: 60_000 }, async () => {
  const nb = hosts.nbs["colab-2026.ipynb"];
  const want = await fileReport(nb);
  const { report, collected, page } = await collectOn(hosts.colabUrl("colab-2026.ipynb", "?model=0&page=partial&virtual=2&framed=2"));
  assert.equal(report.first_assert.cell, want.first_assert.cell);
  assert.equal(report.cause.rule, want.cause.rule);
  // Cell 4 says it failed but carries no error, and its frame is not readable here.
  assert.deepEqual(report.input.unreadable_cells, [4]);
  assert.equal(collected.cells[1].source, "num_classes = 10\nmodel = Net(num_classes).cuda()\n", "no getText: the DOM's text");
  assert.equal(collected.cells[5].execution_count, 5, "no count in the model: the DOM's");
  await page.close();
});

test("colab 2026 without any model: never a clean bill; the unreadable cells are counted and marked", { timeout: 60_000 }, async () => {
  const { report, collected, page } = await collectOn(hosts.colabUrl("colab-2026.ipynb", "?model=0&virtual=0,1,2&framed=2&end=1"));
  assert.equal(collected.sources.page, null);
  assert.equal(report.verdict, "unreadable");
  assert.ok(report.input.unreadable_cells.length >= 2, JSON.stringify(report.input));
  const r = await markOn(page, report);
  assert.equal(r.unreadable, report.input.unreadable_cells.length);
  assert.equal(await page.locator("[data-first-assert-unread]").count(), r.unreadable);
  const before = await page.evaluate(() => document.querySelector(".notebook-cell-list").innerHTML);
  await page.evaluate(() => window.FirstAssertAdapters.unmark(document));
  await page.evaluate(() => window.FirstAssertAdapters.mark(document, window.__collected, null));
  assert.equal(await page.locator("[data-first-assert-unread], [data-first-assert-badge]").count(), 0);
  assert.notEqual(before, "");
  await page.close();
});

test("JupyterLab: the kernel's stderr lines after the error are still the first assert", { timeout: 60_000 }, async () => {
  const nb = hosts.nbs["late-stderr.ipynb"];
  const want = await fileReport(nb);
  const { report, page } = await collectOn(hosts.labUrl("late-stderr.ipynb"));
  assert.equal(report.first_assert.kind, "kernel_assert");
  assert.equal(report.first_assert.cell, want.first_assert.cell);
  const r = await markOn(page, report);
  assert.equal(r.first, "line");
  assert.match(await page.locator("[data-first-assert]").textContent(), /Assertion `t >= 0 && t < n_classes` failed/);
  await page.close();
});
