// The report view (www/report-view.js) in headless Chromium, on the engine's own reports: every
// part of a report rendered, both languages, jumps in notebooks, checklist ticks kept per
// input, hostile logs and notebooks rendered inert, a report shown without a session.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { ROOT, serve, launch, openPage, assertSameOrigin } from "./lib.mjs";

const CASES = path.join(ROOT, "tests/cases");
const read = (f) => readFileSync(path.join(CASES, f), "utf8");
const ECHO_LOG = read("cublas-after-assert.log");
const TRUSTED_LOG = read("launch-blocking-set.log");
const OTHER_LOG = read("illegal-address.log");
const CLEAN_LOG = read("near-miss-docs-and-prints.log");
const TWO_CAUSES_LOG = read("host-only-two-causes.log");
const NOTEBOOK = read("colab-echoes.ipynb");
const PAYLOADS = JSON.parse(readFileSync(path.join(ROOT, "tests/payloads.json"), "utf8")).payloads;

let srv, browser, page, log;

before(async () => {
  srv = await serve();
  browser = await launch();
  const ctx = await browser.newContext({ locale: "en-US" });
  ({ page, log } = await openPage(ctx, srv.url + "?nosw"));
  // A harness in the page: the engine and the view as the page loads them, both catalogues.
  await page.evaluate(async () => {
    // The package in this thread (the page runs it in a worker), as the view's session.
    const pkg = await import("./pkg/first_assert.js");
    await pkg.default();
    const { ReportView, sanitize } = await import("./report-view.js");
    const messages = {};
    for (const l of ["en", "zh"]) {
      const json = await (await fetch(`pkg/first-assert.${l}.json`)).text();
      if (!pkg.hasCatalogue(l)) pkg.setCatalogue(json);
      messages[l] = JSON.parse(json).messages;
    }
    window.__t = {
      pkg,
      sanitize,
      views: [],
      render(input, lang, kind = "text") {
        const s = new pkg.Session();
        const report = kind === "text" ? s.analyzeText(input, { lang }) : s.analyzeNotebook(input, { lang });
        const root = document.createElement("div");
        root.dataset.harness = String(this.views.length);
        document.body.append(root);
        const v = new ReportView(root, { messages: messages[lang] });
        v.show(report, s);
        this.views.push({ v, s, root, messages });
        return [this.views.length - 1, report];
      },
    };
  });
});

after(async () => {
  assertSameOrigin(log, srv.origin);
  await browser?.close();
  srv?.close();
});

/** Renders in the page; returns the harness index and the report. */
const render = (input, lang = "en", kind = "text") =>
  page.evaluate(([i, l, k]) => window.__t.render(i, l, k), [input, lang, kind]);
const root = (i) => page.locator(`[data-harness="${i}"]`);

test("every part of a device-side assert report", async () => {
  const [i, report] = await render(ECHO_LOG);
  const r = root(i);
  assert.equal(await r.getAttribute("data-verdict"), "device_assert");
  assert.equal(await r.locator("[data-testid=answer]").getAttribute("data-headline"), report.headline);
  const line = r.locator("[data-testid=first-assert] [data-testid=first-assert-line]");
  assert.match(await line.getAttribute("class"), /mark-first/);
  assert.match(await line.textContent(), /vectorized_gather_kernel: block: \[9,0,0\], thread: \[0,0,0\] Assertion/);
  assert.match(await r.locator("[data-testid=first-assert] .fa-where").textContent(), /IndexKernelUtils\.cu:16/);
  const site = r.locator("[data-testid=first-assert] details.fa-site");
  assert.equal(await site.getAttribute("open"), null, "the site details start collapsed");

  const cause = r.locator("[data-testid=cause]");
  assert.equal(await cause.getAttribute("data-category"), "index_out_of_bounds");
  assert.equal(await cause.getAttribute("data-rule"), report.cause.rule);
  assert.ok((await cause.locator(".fa-evidence li").count()) > 0);
  // The cause's title, certainty and summary are the card's, said once.
  const card = r.locator("[data-testid=answer]");
  assert.equal(await card.locator("[data-testid=answer-title] > span").first().textContent(), report.cause.title);
  assert.ok((await card.textContent()).includes(report.cause.summary));
  assert.ok(!(await cause.textContent()).includes(report.cause.summary));

  const stack = r.locator("[data-testid=stack]");
  assert.equal(await stack.getAttribute("data-trustworthy"), "false");
  // This log has no traceback: nothing to judge, said neutrally.
  assert.equal(await stack.locator("[data-testid=stack-verdict]").textContent(), "No traceback");
  assert.doesNotMatch(await stack.locator(".fa-badge").getAttribute("class"), /warn|ok/);

  const echoes = r.locator("[data-testid=echo]");
  assert.equal(await echoes.count(), report.echo_count);
  assert.match(await echoes.first().textContent(), /CUBLAS_STATUS_EXECUTION_FAILED/);
  assert.notEqual(await echoes.first().locator("[data-action=jump]").getAttribute("data-line"), null);

  // A map only for inputs over 60 lines: this one has none, its window is there.
  assert.ok(report.input.lines <= 60);
  const map = r.locator("[data-testid=map]");
  assert.equal(await map.locator(".fa-bin").count(), 0);
  assert.equal(await map.locator("[data-testid=window] .fa-line.mark-first").count(), 1);
  const long = await render(ECHO_LOG + "step\n".repeat(60));
  const longMap = root(long[0]).locator("[data-testid=map]");
  assert.equal(await longMap.locator(".fa-bin.mark-first").count(), 1);
  assert.ok((await longMap.locator(".fa-bin.mark-echo").count()) > 0);

  assert.equal(await r.locator("[data-testid=checklist] input[type=checkbox]").count(), report.checklist.length);
  // The probe step shows the report's one copy of the probe (its own code is null).
  const snippets = report.checklist.filter((s) => s.code != null || (s.id === "probe" && report.probe)).length + (report.cause.snippet != null ? 1 : 0);
  assert.equal(await r.locator("[data-action=copy]").count(), snippets);
  assert.ok(snippets >= 2, "the CUDA_LAUNCH_BLOCKING cell and the cause's check");
});

test("a trustworthy stack, another CUDA error, a clean log", async () => {
  let [i] = await render(TRUSTED_LOG);
  assert.equal(await root(i).locator("[data-testid=stack]").getAttribute("data-trustworthy"), "true");
  assert.match(await root(i).locator("[data-testid=stack] .fa-badge").getAttribute("class"), /ok/);
  [i] = await render(OTHER_LOG);
  assert.equal(await root(i).getAttribute("data-verdict"), "other_cuda_error");
  assert.equal(await root(i).locator("[data-testid=first-assert]").count(), 0);
  assert.ok((await root(i).locator("[data-testid=other-errors] li").count()) > 0);
  [i] = await render(CLEAN_LOG);
  assert.equal(await root(i).getAttribute("data-verdict"), "clean");
  assert.equal(await root(i).locator("[data-testid=cause]").count(), 0);
  assert.equal(await root(i).locator("[data-testid=map]").count(), 0);
});

test("a cause the evidence does not settle lists the other candidates, ranked", async () => {
  for (const lang of ["en", "zh"]) {
    const [i, report] = await render(TWO_CAUSES_LOG, lang);
    const want = report.cause.candidates;
    assert.ok(want.length >= 1, "the fixture leaves two causes open");
    const items = root(i).locator("[data-testid=cause] [data-testid=candidate]");
    assert.equal(await items.count(), want.length);
    for (const [k, c] of want.entries()) {
      const li = items.nth(k);
      assert.equal(await li.getAttribute("data-category"), c.category);
      assert.notEqual(c.category, report.cause.category, "a candidate is another category");
      assert.equal(await li.getAttribute("data-rule"), c.rule);
      assert.ok((await li.textContent()).includes(c.title));
      assert.ok((await li.textContent()).includes(`${Math.round(c.confidence * 100)}%`));
      assert.equal(await li.locator("code").count(), c.evidence.length);
    }
  }
});

test("Chinese, and switching back", async () => {
  const [i] = await render(ECHO_LOG, "zh");
  const r = root(i);
  const han = (t) => /[\u4e00-\u9fff]/.test(t);
  assert.equal(await r.getAttribute("lang"), "zh-Hans");
  assert.ok(han(await r.locator("[data-testid=cause] h2").textContent()));
  assert.ok(han(await r.locator("[data-testid=answer]").getAttribute("data-headline")));
  assert.ok(han(await r.locator("[data-testid=checklist]").textContent()));
  const lang = await page.evaluate((n) => {
    const { v, s, messages } = window.__t.views[n];
    const report = s.setLang("en");
    v.show(report, s, messages.en);
    try {
      s.setLang("fr");
      return "no error";
    } catch {
      return report.lang;
    }
  }, i);
  assert.equal(lang, "en");
  assert.equal(await r.getAttribute("lang"), "en");
  assert.ok(!han(await r.locator("[data-testid=cause] h2").textContent()));
});

test("a notebook's map has a cell per entry, and a jump moves the window", async () => {
  const [i, report] = await render(NOTEBOOK, "en", "notebook");
  const r = root(i);
  assert.equal(await r.locator("[data-testid=map] .fa-bin").count(), report.input.cells);
  const w = r.locator("[data-testid=window]");
  assert.equal(await w.getAttribute("data-cell"), String(report.first_assert.cell));
  const later = report.echoes.find((e) => e.cell !== report.first_assert.cell);
  assert.ok(later, "an echo in a later cell");
  await r.locator("[data-testid=echoes] summary").click();
  await r.locator(`[data-testid=echo] [data-action=jump][data-cell="${later.cell}"]`).first().click();
  assert.equal(await w.getAttribute("data-cell"), String(later.cell));
  assert.ok((await w.locator(".fa-line.mark-echo").count()) > 0);
  // The window stays where it was when the report is shown again (a language switch).
  await page.evaluate((n) => {
    const { v, s, messages } = window.__t.views[n];
    v.show(s.setLang("zh"), s, messages.zh);
  }, i);
  assert.equal(await w.getAttribute("data-cell"), String(later.cell));
});

test("checklist ticks are kept per error: a rerun with other numbers finds them, another error does not", async () => {
  const input = `${ECHO_LOG}\n# checklist test\n`;
  const [i] = await render(input);
  const key = await page.evaluate((n) => window.__t.views[n].v.ticksKey(), i);
  assert.match(key, /^first-assert:ticks:device_assert\|/);
  await page.evaluate((k) => localStorage.removeItem(k), key);
  const box = root(i).locator("[data-action=step]").nth(1);
  await box.click();
  const id = await box.getAttribute("data-step");
  assert.ok(JSON.parse(await page.evaluate((k) => localStorage.getItem(k), key)).done.includes(id));
  const [j] = await render(input);
  assert.equal(await root(j).locator("[data-action=step]").nth(1).isChecked(), true, "the same input: ticked");
  assert.equal(await root(j).locator(".fa-continued").count(), 0, "the same input is not a continuation");
  // The rerun: other blocks and threads, other line numbers in the traceback, a line more.
  const rerun = "epoch 2\n" + ECHO_LOG.replace(/\[(\d+),(\d+),(\d+)\]/g, (m, a, b, c) => `[${+a + 3},${b},${c}]`).replace(/line (\d+)/g, (m, n) => `line ${+n + 7}`);
  assert.notEqual(rerun, ECHO_LOG);
  const [k] = await render(rerun);
  assert.equal(await root(k).locator("[data-action=step]").nth(1).isChecked(), true, "the rerun, other numbers: ticked");
  assert.equal(await root(k).locator(".fa-continued").count(), 1);
  const [m] = await render(OTHER_LOG);
  assert.equal(await root(m).locator("[data-action=step]:checked").count(), 0, "another error: not ticked");
  await page.evaluate((k) => localStorage.removeItem(k), key);
});

/** Nothing from the input became an element, an attribute or a title. */
async function assertInert(i) {
  const found = await root(i).evaluate((r) => {
    const bad = [];
    for (const tag of ["img", "script", "svg", "iframe", "object", "embed", "a", "style", "link"]) {
      if (r.querySelector(tag)) bad.push(`<${tag}>`);
    }
    for (const el of r.querySelectorAll("*")) {
      for (const n of el.getAttributeNames()) if (n.startsWith("on") || ["href", "src", "style"].includes(n)) bad.push(`${n} on <${el.tagName}>`);
    }
    return bad;
  });
  assert.deepEqual(found, []);
  assert.notEqual(await page.title(), "pwned");
}

test("hostile logs render as text", async () => {
  for (const p of PAYLOADS) {
    const input =
      `Traceback (most recent call last):\n  File "/content/${p}.py", line 3, in <module>\n    loss = criterion(${p}, labels)\n` +
      `/pytorch/aten/src/ATen/native/cuda/Loss.cu:250: ${p}: block: [0,0,0], thread: [1,0,0] Assertion \`t >= 0 && ${p}\` failed.\n` +
      `RuntimeError: CUDA error: device-side assert triggered ${p}\n`;
    const [i] = await render(input);
    await assertInert(i);
    const shown = await root(i).locator("[data-testid=first-assert]").textContent();
    if (!/[\u0000-\u001f\u007f-\u009f\u2066-\u2069\u202a-\u202e\u200f]/.test(p)) {
      // Entities such as &lt; are decoded first, like the rest of a copied web page.
      assert.ok(shown.includes(p.replaceAll("&lt;", "<").replaceAll("&gt;", ">")), `shown as text: ${shown}`);
    }
  }
});

test("hostile notebooks render as text", async () => {
  const p = PAYLOADS[0];
  const cells = JSON.stringify([
    {
      index: 0,
      execution_count: 1,
      source: `x = '${p}'`,
      outputs: [
        { kind: "error", ename: "RuntimeError", evalue: "CUDA error: device-side assert triggered", traceback: [p] },
        { kind: "stream", name: "stderr", text: `Loss.cu:250: f: block: [0,0,0], thread: [0,0,0] Assertion \`${p}\` failed.\n` },
      ],
    },
  ]);
  const [i] = await render(cells, "en", "notebook");
  await assertInert(i);
  assert.ok((await root(i).textContent()).includes(p));
});

test("the view sanitizes as the engine does, and shows a report without a session", async () => {
  const out = await page.evaluate(() => window.__t.sanitize("a\tb\u001b[31m\u202ex\u0085"));
  assert.equal(out, "a    b\\u{1b}[31m\\u{202e}x\\u{85}");
  // A report from elsewhere (no input kept): no map, no window, the rest as usual.
  const [i, report] = await render(ECHO_LOG);
  const bare = await page.evaluate(([n, r]) => {
    const { v, root } = window.__t.views[n];
    v.show(r, null);
    return [root.querySelectorAll("[data-testid=map]").length, root.querySelector("[data-testid=cause]")?.dataset.rule];
  }, [i, report]);
  assert.deepEqual(bare, [0, report.cause.rule]);
});
