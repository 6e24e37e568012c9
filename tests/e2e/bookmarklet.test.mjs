// The bookmarklet's code run on fixture pages in Chromium (as a bookmark runs it: code in the
// page, not a <script> the page's CSP could block): it opens our page in a popup, hands the
// cells over, and marks the result; on a page that cuts the opener link (COOP), the cells
// travel in the URL fragment and the popup still shows the report.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { launch, serve, fileReport, artifactsDir } from "./lib.mjs";
import { startHosts } from "./hosts.mjs";
import { build } from "../../scripts/build-bookmarklet.mjs";

let hosts, srv, browser, code;
before(async () => {
  hosts = await startHosts();
  srv = await serve();
  code = build(srv.origin).code;
  browser = await launch(hosts.chromiumArgs);
});
after(async () => {
  await browser?.close();
  srv?.close();
  hosts?.close();
});


/** Opens a notebook page, runs the bookmarklet, returns { page, popup, requests }. */
async function run(url, locale = "en-US") {
  const ctx = await browser.newContext({ locale });
  const requests = [];
  ctx.on("request", (r) => requests.push(r.url()));
  const page = await ctx.newPage();
  page.setDefaultTimeout(15_000);
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(url);
  const popupP = ctx.waitForEvent("page");
  await page.evaluate(code);
  const popup = await popupP;
  popup.setDefaultTimeout(15_000);
  await popup.waitForLoadState();
  return { ctx, page, popup, requests, errors };
}

function onlyOurHosts(requests) {
  for (const u of requests) {
    const o = new URL(u);
    const ok =
      o.origin === srv.origin ||
      o.hostname === "colab.research.google.com" ||
      o.hostname.endsWith("-colab.googleusercontent.com") ||
      o.hostname === "localhost";
    assert.ok(ok || u.startsWith("data:"), `a request left our hosts: ${u}`);
  }
}

test("Colab, notebook model: the popup analyses, the cell of the first assert is marked", { timeout: 90_000 }, async () => {
  const nb = hosts.nbs["echoes.ipynb"];
  const want = await fileReport(nb);
  const { ctx, page, popup, requests, errors } = await run(hosts.colabUrl("echoes.ipynb"));
  assert.equal(new URL(popup.url()).origin, srv.origin);
  await popup.locator("[data-testid=cause]").waitFor();
  assert.equal(await popup.locator("[data-testid=cause]").getAttribute("data-category"), want.cause.category);
  await page.waitForSelector(`#cell-fx${want.first_assert.cell}[data-first-assert]`);
  for (const e of want.echoes.filter((e) => e.cell !== want.first_assert.cell)) {
    assert.equal(await page.locator(`#cell-fx${e.cell}[data-first-assert-echo]`).count(), 1);
  }
  assert.match(await page.locator("[data-first-assert-toast]").textContent(), /output this page cannot read; its cell is marked/);
  // A script of the page cannot fake a result: the bookmarklet only reads its popup's port.
  await page.evaluate(() => {
    for (const type of ["first-assert:result", "first-assert:ready", "first-assert:marks"]) {
      window.postMessage({ type, protocol: 1, id: "bookmarklet", on: false, first: { cell: 0, line: 1, text: "fake" }, echoes: [] }, "*");
    }
  });
  await page.waitForTimeout(400);
  assert.equal(await page.locator(`#cell-fx${want.first_assert.cell}[data-first-assert]`).count(), 1, "the real mark stays");
  assert.equal(await page.locator("#cell-fx0[data-first-assert]").count(), 0, "no fake mark");
  assert.deepEqual(await page.evaluate(() => window.__violations), [], "no CSP violation on the notebook's page");
  assert.deepEqual(errors, []);
  await page.screenshot({ path: path.join(artifactsDir(), "bookmarklet-colab.png") });
  onlyOurHosts(requests);
  await ctx.close();
});

test("Colab, no model: the kernel's line in the top document is marked; the toggle removes and restores it", { timeout: 90_000 }, async () => {
  const { ctx, page, popup, requests } = await run(hosts.colabUrl("labels.ipynb", "?model=0"));
  await page.waitForSelector("[data-first-assert]");
  assert.match(await page.locator("[data-first-assert]").textContent(), /Assertion `t >= 0 && t < n_classes` failed/);
  const toggle = popup.locator("[data-testid=marks-toggle]");
  await toggle.click();
  await page.waitForFunction(() => !document.querySelector("[data-first-assert], [data-first-assert-badge]"));
  await toggle.click();
  await page.waitForSelector("[data-first-assert]");
  onlyOurHosts(requests);
  await ctx.close();
});

test("Colab after the probe's rerun: the cell of its error says the probe caught it, the errors from before the restart are outlined as such, and the toast says both (en, zh)", { timeout: 90_000 }, async () => {
  const want = await fileReport(hosts.nbs["rerun.ipynb"]);
  assert.equal(want.verdict, "confirmed");
  const caughtCell = want.cause.evidence[0].cell;
  assert.deepEqual(want.input.superseded_cells, [4, 5]);
  const langs = [
    ["en-US", "The probe caught it", "from before the probed run", /^first-assert: the probe caught it\..* outlined in grey \(2 cell/],
    ["zh-CN", "探针捕获了它", "探针运行之前的错误", /^first-assert：探针捕获了它。.*灰色框出（2 个单元格）/],
  ];
  for (const [locale, caught, old, toast] of langs) {
    const { ctx, page, popup, requests, errors } = await run(hosts.colabUrl("rerun.ipynb"), locale);
    await popup.locator("[data-verdict=confirmed]").waitFor();
    // The probe's error sits in an output frame: its cell is marked, with the probe's words.
    await page.waitForSelector(`#cell-fx${caughtCell}[data-first-assert]`);
    assert.match(await page.locator(`#cell-fx${caughtCell} > [data-first-assert-badge]`).textContent(), new RegExp(caught));
    for (const i of want.input.superseded_cells) {
      await page.waitForSelector(`#cell-fx${i}[data-first-assert-superseded]`);
      assert.match(await page.locator(`#cell-fx${i} > [data-first-assert-badge]`).textContent(), new RegExp(old));
    }
    // Nothing else: the old errors are neither the first assert nor its echoes.
    assert.equal(await page.locator("[data-first-assert]").count(), 1);
    assert.equal(await page.locator("[data-first-assert-echo]").count(), 0);
    await page.waitForSelector("[data-first-assert-toast]");
    assert.match(await page.locator("[data-first-assert-toast]").textContent(), toast);
    if (locale === "en-US") await page.screenshot({ path: path.join(artifactsDir(), "bookmarklet-probe-caught.png") });
    // Turned off, every mark goes, the grey ones too.
    await popup.locator("[data-testid=marks-toggle]").click();
    await page.waitForFunction(() => !document.querySelector("[data-first-assert], [data-first-assert-superseded], [data-first-assert-badge]"));
    assert.deepEqual(errors, []);
    onlyOurHosts(requests);
    await ctx.close();
  }
});

test("Colab with COOP: the link is cut, the cells travel in the fragment, the popup still reports", { timeout: 90_000 }, async () => {
  const want = await fileReport(hosts.nbs["labels.ipynb"]);
  const { ctx, page, popup, requests } = await run(hosts.colabUrl("labels.ipynb", "?coop=1"));
  await popup.locator("[data-testid=cause]").waitFor();
  assert.equal(await popup.locator("[data-testid=cause]").getAttribute("data-category"), want.cause.category);
  assert.match(await popup.locator("[data-testid=status]").textContent(), /without a link back to the notebook/);
  assert.equal(new URL(popup.url()).hash, "", "the cells do not stay in the address");
  await page.waitForSelector("[data-first-assert-toast]");
  assert.match(await page.locator("[data-first-assert-toast]").textContent(), /cuts the link/);
  assert.equal(await page.locator("[data-first-assert]").count(), 0);
  onlyOurHosts(requests);
  await ctx.close();
});

test("JupyterLab on localhost: the line is marked", { timeout: 90_000 }, async () => {
  const { ctx, page, popup } = await run(hosts.labUrl("long.ipynb"));
  await popup.locator("[data-testid=cause]").waitFor();
  await page.waitForSelector("[data-first-assert]");
  assert.match(await page.locator("[data-first-assert]").textContent(), /Loss\.cu:250: nll_loss_forward_reduce_cuda_kernel_2d/);
  assert.ok((await page.locator("[data-first-assert-echo]").count()) >= 3);
  await ctx.close();
});

test("hostile outputs stay inert on the notebook's page and in the popup", { timeout: 90_000 }, async () => {
  const { ctx, page, popup } = await run(hosts.colabUrl("hostile.ipynb", "?model=0"));
  await popup.locator("[data-testid=first-assert]").waitFor();
  await page.waitForSelector("[data-first-assert]");
  for (const p of [page, popup]) {
    assert.equal(await p.locator("img").count(), 0);
    assert.notEqual(await p.title(), "pwned");
  }
  await ctx.close();
});

test("Colab 2026: from the page-world notebook, the virtualised first failing cell is found, revealed and marked when it renders", { timeout: 90_000 }, async () => {
  const nb = hosts.nbs["colab-2026.ipynb"];
  const want = await fileReport(nb);
  const { ctx, page, popup, requests, errors } = await run(hosts.colabUrl("colab-2026.ipynb", "?model=0&page=full&virtual=0,1,2&framed=2&end=1"));
  await popup.locator("[data-testid=cause]").waitFor();
  assert.equal(await popup.locator("[data-testid=cause]").getAttribute("data-rule"), want.cause.rule);
  // The bookmarklet scrolls near the cell; the page renders it; the mark follows.
  await page.waitForSelector(`#cell-fx${want.first_assert.cell}[data-first-assert]`);
  for (const e of want.echoes.filter((e) => e.cell !== want.first_assert.cell)) {
    assert.equal(await page.locator(`#cell-fx${e.cell}[data-first-assert-echo]`).count(), 1, `echo cell ${e.cell}`);
  }
  assert.match(await page.locator("[data-first-assert-toast]").textContent(), /not on the page now/);
  // The popup says what was read, and copies diagnostics without any of the notebook's text.
  assert.match(await popup.locator("[data-testid=sources]").textContent(), /6 cells from Colab's own model \(3 of them out of view\), 3 in the page/);
  await ctx.grantPermissions(["clipboard-read", "clipboard-write"], { origin: srv.origin });
  await popup.locator("[data-testid=copy-diagnostics]").click();
  const copied = JSON.parse(await popup.evaluate(() => navigator.clipboard.readText()));
  assert.equal(copied.sources.page, 6);
  assert.equal(copied.sources.virtualised, 3);
  assert.equal(copied.report.cause.rule, want.cause.rule);
  const text = JSON.stringify(copied);
  for (const secret of ["num_classes", "cross_entropy", "loss.item", "ipykernel_412", "device-side assert triggered"]) {
    assert.ok(!text.includes(secret), `the diagnostics carry "${secret}"`);
  }
  assert.deepEqual(await page.evaluate(() => window.__violations), []);
  assert.deepEqual(errors, []);
  onlyOurHosts(requests);
  await ctx.close();
});

test("Colab 2026 with no model at all: the popup says what could not be read, never 'no assert'", { timeout: 90_000 }, async () => {
  const { ctx, page, popup } = await run(hosts.colabUrl("colab-2026.ipynb", "?model=0&virtual=0,1,2&framed=2&end=1"));
  const headline = popup.locator("[data-testid=answer]");
  await headline.waitFor();
  await popup.waitForFunction(() => /could not be read/.test(document.querySelector("[data-testid=answer]")?.dataset.headline || ""));
  assert.doesNotMatch(await headline.textContent(), /No CUDA device-side assert found/);
  await page.waitForSelector("[data-first-assert-unread]");
  assert.match(await page.locator("[data-first-assert-toast]").textContent(), /could not be read/);
  const steps = await popup.locator("[data-testid=checklist] li[data-step]").evaluateAll((ls) => ls.map((l) => l.getAttribute("data-step")));
  assert.deepEqual(steps, ["extension", "download_notebook", "paste_error"]);
  await ctx.close();
});

test("JupyterLab with windowing: the bookmarklet scrolls through once, finds the first failing cell off screen and marks it there", { timeout: 90_000 }, async () => {
  const nb = hosts.nbs["kaggle-long.ipynb"];
  const want = await fileReport(nb);
  const { ctx, page, popup } = await run(hosts.labUrl("kaggle-long.ipynb", "?windowed=1"));
  await popup.locator("[data-testid=cause]").waitFor();
  assert.equal(await popup.locator("[data-testid=cause]").getAttribute("data-category"), want.cause.category);
  assert.ok((await popup.locator("[data-testid=first-assert] .fa-where").textContent()).includes(`[${want.first_assert.execution_count}]`));
  // Revealed: the list scrolls to it, renders it, and the watch marks the line.
  await page.waitForSelector(`[data-windowed-list-index="${want.first_assert.cell}"] [data-first-assert]`);
  assert.match(await page.locator("[data-first-assert-toast]").textContent(), /not on the page now/);
  await ctx.close();
});

test("JupyterLab: the kernel's lines after the error are still the first assert, marked, with its echoes", { timeout: 90_000 }, async () => {
  const nb = hosts.nbs["late-stderr.ipynb"];
  const want = await fileReport(nb);
  assert.equal(want.cause.rule, "class-target-out-of-range");
  const { ctx, page, popup } = await run(hosts.labUrl("late-stderr.ipynb"));
  await popup.locator("[data-testid=cause]").waitFor();
  assert.equal(await popup.locator("[data-testid=cause]").getAttribute("data-rule"), want.cause.rule);
  await page.waitForSelector("[data-first-assert]");
  assert.match(await page.locator("[data-first-assert]").textContent(), /Assertion `t >= 0 && t < n_classes` failed/);
  assert.equal(await page.locator("[data-first-assert-echo]").count(), new Set(want.echoes.map((e) => `${e.cell}:${e.output}`)).size);
  await ctx.close();
});
