// The page end to end, in headless Chromium: paste, open a notebook, switch language, keep the
// checklist, work offline, never leave the origin. Expected values come from the native CLI
// on the same files, so the page is checked against the engine, not against copied answers.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import path from "node:path";
import { pageSuite, openPage, cliReport, artifactsDir, ROOT, WWW, CLI, assertSameOrigin as sameOrigin } from "./lib.mjs";
import { PAYLOADS } from "./fixtures.mjs";

const VOCAB_LOG = path.join(WWW, "demo/embedding-vocab.log");
const ECHO_NOTEBOOK = path.join(WWW, "demo/echoes-later-cells.ipynb");
const BCE_LOG = path.join(ROOT, "tests/cases/cublas-after-assert.log");

const suite = pageSuite();

const assertSameOrigin = (log) => sameOrigin(log, suite.srv.origin);

const firstLine = (text) => text.split("\n").find((l) => l.trim()) ?? "";

test("paste a log: the first assert and its cause are shown", { timeout: 60_000 }, async () => {
  const ctx = await suite.browser.newContext({ locale: "en-US" });
  const { page, log } = await openPage(ctx, suite.srv.url);
  const want = cliReport(BCE_LOG);
  await page.fill("[data-testid=log-input]", readFileSync(BCE_LOG, "utf8"));
  const first = page.locator("[data-testid=first-assert]");
  await first.waitFor();
  assert.ok((await first.textContent()).includes(firstLine(want.first_assert.text).slice(0, 60)));
  const cause = page.locator("[data-testid=cause]");
  assert.equal(await cause.getAttribute("data-category"), want.cause.category);
  assert.equal(await cause.getAttribute("data-rule"), want.cause.rule);
  assert.equal(await page.locator("[data-testid=answer]").getAttribute("data-headline"), want.headline);
  assert.equal(await page.locator("[data-testid=echo]").count(), want.echoes.length);

  // A short log has no map (its bins would say nothing), but the window is there: an echo's
  // jump (the echoes are one line that opens) shows its lines, focused, with a way back.
  assert.ok(want.input.lines <= 60);
  assert.equal(await page.locator("[data-testid=map] .fa-bin").count(), 0);
  await page.click("[data-testid=echoes] summary");
  await page.locator("[data-testid=echo] [data-action=jump]").first().click();
  await page.waitForSelector(`[data-testid=window][data-line="${want.echoes[0].line}"]`);
  assert.equal(await page.evaluate(() => document.activeElement?.closest("[data-testid=window]") !== null), true);
  await page.click("[data-testid=window] [data-action=back]");
  assert.equal(await page.evaluate(() => document.activeElement?.id), "fa-answer-title");
  // The jump was a step in the history: the browser's Back returns to the answer too.
  assert.equal(new URL(page.url()).hash, `#line-${want.echoes[0].line}`);
  await page.evaluate(() => document.activeElement?.blur());
  await page.goBack();
  await page.waitForFunction(() => document.activeElement?.id === "fa-answer-title");
  assert.equal(new URL(page.url()).hash, "");

  // Copy buttons put the snippet on the clipboard.
  await ctx.grantPermissions(["clipboard-read", "clipboard-write"], { origin: suite.srv.origin });
  const copy = page.locator("[data-testid=checklist] [data-action=copy]").first();
  const code = await copy.locator("xpath=..").locator("pre").textContent();
  await copy.click();
  await page.waitForFunction(async (c) => (await navigator.clipboard.readText()) === c, code);
  assert.ok(code.includes("CUDA_LAUNCH_BLOCKING"), code);
  assert.equal(await copy.textContent(), "Copied");
  // A plain visit does not load the embedded mode's protocol.
  const loaded = await page.evaluate(() => performance.getEntriesByType("resource").map((e) => new URL(e.name).pathname));
  assert.ok(loaded.some((p) => p.endsWith("/pkg/app.js")) && !loaded.some((p) => p.endsWith("/protocol.js")), loaded.join(" "));
  await page.screenshot({ path: path.join(artifactsDir(), "paste-report.png"), fullPage: true });
  assertSameOrigin(log);
  await ctx.close();
});

test("the probe cell: a step of its own, in a box that scrolls, copied whole, in the report's language", { timeout: 60_000 }, async () => {
  const ctx = await suite.browser.newContext({ locale: "en-US" });
  await ctx.grantPermissions(["clipboard-read", "clipboard-write"], { origin: suite.srv.origin });
  const { page, log } = await openPage(ctx, suite.srv.url);
  // A first visit fetches the texts without the probe's code; the first sign of input (here a
  // focus on the box) fetches it, once per language, before anything is analysed.
  const texts = () => log.requests.map((u) => new URL(u).pathname).filter((p) => /first-assert\.\w+(\.\w+)?\.json$/.test(p));
  assert.deepEqual(texts(), ["/pkg/first-assert.en.page.json"]);
  const probe = page.waitForRequest((r) => r.url().endsWith("/pkg/first-assert.en.probe.json"));
  await page.focus("[data-testid=log-input]");
  await probe;
  assert.equal(await page.evaluate(() => globalThis.firstAssertWork().then((w) => w.analyses)), 0);
  for (const lang of ["en", "zh"]) {
    if (lang === "zh") await page.selectOption("[data-testid=lang-select]", "zh");
    const want = cliReport(VOCAB_LOG, lang);
    assert.ok(want.probe.code.includes("TorchFunctionMode"));
    await page.fill("[data-testid=log-input]", readFileSync(VOCAB_LOG, "utf8") + (lang === "zh" ? "\n" : ""));
    const step = page.locator("[data-testid=checklist] [data-step=probe]");
    await step.locator(".fa-step-title").filter({ hasText: want.checklist.find((s) => s.id === "probe").title }).waitFor();
    const pre = step.locator("pre");
    assert.equal(await pre.textContent(), want.probe.code);
    const box = await pre.evaluate((p) => ({ shown: p.clientHeight, all: p.scrollHeight }));
    assert.ok(box.shown < box.all / 3, `the probe's box shows ${box.shown} of ${box.all} px`);
    await step.locator("[data-action=copy]").click();
    await page.waitForFunction(async (c) => (await navigator.clipboard.readText()) === c, want.probe.code);
    assert.equal(/[\u4e00-\u9fff]/.test(want.probe.code), lang === "zh");
  }
  assert.deepEqual(texts(), ["en.page", "en.probe", "zh.page", "zh.probe"].map((p) => `/pkg/first-assert.${p}.json`));
  await page.screenshot({ path: path.join(artifactsDir(), "probe-step.png"), fullPage: false });
  assertSameOrigin(log);
  await ctx.close();
});

test("the page offers the bookmarklet for dragging, with instructions in both languages", { timeout: 60_000 }, async () => {
  const ctx = await suite.browser.newContext({ locale: "en-US" });
  const { page, log } = await openPage(ctx, suite.srv.url);
  const link = page.locator("[data-testid=bookmarklet]");
  await page.waitForSelector("[data-testid=install]:not([hidden])");
  const href = await link.getAttribute("href");
  assert.ok(href.startsWith("javascript:"), href.slice(0, 40));
  // The adapters and the host in one function, for the page it was built for: the address this
  // page is served from (the server's port is a random one), not one baked in at build time.
  const code = decodeURIComponent(href);
  assert.ok(code.includes("first-assert:") && code.includes("?embed"), code.slice(0, 200));
  assert.ok(code.includes(`"${suite.srv.url.replace(/\/$/, "")}"`) && !code.includes("__FIRST_ASSERT_PAGE__"), "the bookmarklet opens this page");
  assert.equal(await link.getAttribute("draggable"), "true");
  const en = await page.locator("[data-testid=install] h2").textContent();
  await page.selectOption("[data-testid=lang-select]", "zh");
  // The other language's texts are fetched once, then shown.
  await page.waitForFunction((t) => document.querySelector("[data-testid=install] h2").textContent !== t, en);
  await link.click(); // for dragging only: a click does nothing here
  assert.equal(new URL(page.url()).origin, suite.srv.origin);
  assertSameOrigin(log);
  await ctx.close();
});

test("the rules page: every rule, in the reader's language, switchable, linked from the page", { timeout: 60_000 }, async () => {
  const ctx = await suite.browser.newContext({ locale: "zh-CN" });
  const { page, log } = await openPage(ctx, suite.srv.url);
  await page.click("[data-testid=rules-link]");
  await page.waitForSelector("section[data-lang=zh]:not([hidden])");
  assert.equal(await page.locator("section[data-lang=en]").isHidden(), true);
  const zh = await page.locator("section[data-lang=zh] article.rule").count();
  assert.ok(zh >= 36, `${zh} rules`);
  assert.equal(await page.locator("section[data-lang=en] article.rule").count(), zh);
  await page.locator("section[data-lang=zh] [data-testid=rules-lang]").click();
  await page.waitForSelector("section[data-lang=en]:not([hidden])");
  assert.equal(await page.getAttribute("html", "lang"), "en");
  assert.equal(await page.locator("#class-target-out-of-range").getAttribute("data-category"), "invalid_label");
  assert.equal(await page.locator("img, script:not([src])").count(), 0);
  assertSameOrigin(log);
  await ctx.close();
});

test("every payload of the corpus pasted into the page stays text", { timeout: 120_000 }, async () => {
  const ctx = await suite.browser.newContext({ locale: "en-US" });
  const { page, log } = await openPage(ctx, suite.srv.url);
  for (const p of PAYLOADS) {
    const text = `/pytorch/aten/src/ATen/native/cuda/Loss.cu:250: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [1,0,0] Assertion \`t >= 0 && ${p}\` failed.
Traceback (most recent call last):
  File "/content/${p}.py", line 3, in <module>
    loss = criterion(out, ${p})
RuntimeError: CUDA error: device-side assert triggered ${p}
RuntimeError: CUDA error: device-side assert triggered ${p}
`;
    await page.fill("[data-testid=log-input]", text);
    await page.waitForFunction(() => document.querySelector("[data-testid=first-assert-line]")?.textContent.includes("Loss.cu:250"));
    const r = page.locator("[data-testid=report]");
    assert.equal(await r.locator("img, script, svg, iframe, style, link, a, object, embed").count(), 0, p);
    assert.equal(await page.title(), "first-assert: find the first CUDA device-side assert", p);
    assert.equal(await page.locator("body").isVisible(), true, p);
    await page.fill("[data-testid=log-input]", "");
  }
  assertSameOrigin(log);
  assert.ok(!log.requests.some((u) => u.includes("evil.example")));
  await ctx.close();
});

test("typing analyses as you go, and Clear empties the view", { timeout: 60_000 }, async () => {
  const ctx = await suite.browser.newContext({ locale: "en-US" });
  const { page, log } = await openPage(ctx, suite.srv.url);
  const input = page.locator("[data-testid=log-input]");
  await input.pressSequentially("RuntimeError: CUDA error: device-side assert triggered\n", { delay: 2 });
  await page.waitForSelector("[data-testid=report][data-verdict=device_assert]");
  await page.click("[data-testid=clear]");
  await page.waitForSelector("[data-testid=report] .empty");
  assert.equal(await input.inputValue(), "");
  assertSameOrigin(log);
  await ctx.close();
});

test("open a notebook: the right cell and its echoes", { timeout: 60_000 }, async () => {
  const ctx = await suite.browser.newContext({ locale: "en-US" });
  const { page, log } = await openPage(ctx, suite.srv.url);
  const want = cliReport(ECHO_NOTEBOOK);
  assert.ok(want.echoes.length >= 2 && want.first_assert.cell !== null, "the demo has echoes in later cells");
  await page.setInputFiles("[data-testid=file-input]", ECHO_NOTEBOOK);
  await page.locator("[data-testid=first-assert]").waitFor();
  // The window opens on the first assert's cell and marks its line.
  const win = page.locator("[data-testid=window]");
  assert.equal(await win.getAttribute("data-cell"), String(want.first_assert.cell));
  assert.equal(await win.getAttribute("data-line"), String(want.first_assert.line));
  // The echoes are listed, each pointing at its cell; clicking one shows that cell.
  await page.click("[data-testid=echoes] summary");
  const echoes = page.locator("[data-testid=echo] [data-action=jump]");
  assert.equal(await echoes.count(), want.echoes.length);
  for (const [i, e] of want.echoes.entries()) {
    assert.equal(await echoes.nth(i).getAttribute("data-cell"), String(e.cell));
  }
  const last = want.echoes.at(-1);
  await echoes.nth(want.echoes.length - 1).click();
  await page.waitForSelector(`[data-testid=window][data-cell="${last.cell}"]`);
  assert.ok((await page.locator("[data-testid=window] .mark-echo").count()) >= 1);
  // One map chip per cell, the first assert's chip marked.
  assert.equal(await page.locator("[data-testid=map] .fa-bin").count(), want.input.cells);
  assert.equal(await page.locator("[data-testid=map] .fa-bin.mark-first").count(), 1);
  await page.screenshot({ path: path.join(artifactsDir(), "notebook-report.png"), fullPage: true });
  assertSameOrigin(log);
  await ctx.close();
});

test("Chinese: picked from the browser's language, switchable, remembered", { timeout: 60_000 }, async () => {
  const ctx = await suite.browser.newContext({ locale: "zh-CN" });
  const { page, log } = await openPage(ctx, suite.srv.url + "?demo=embedding-vocab.log");
  const wantZh = cliReport(VOCAB_LOG, "zh");
  assert.equal(await page.getAttribute("html", "lang"), "zh-Hans");
  await page.locator("[data-testid=cause]").waitFor();
  assert.equal(await page.locator("[data-testid=answer]").getAttribute("data-headline"), wantZh.headline);

  await page.selectOption("[data-testid=lang-select]", "en");
  const wantEn = cliReport(VOCAB_LOG, "en");
  await page.waitForFunction((h) => document.querySelector("[data-testid=answer]")?.dataset.headline === h, wantEn.headline);
  assert.equal(await page.getAttribute("html", "lang"), "en");
  assert.equal(await page.locator("[data-i18n=page_open]").first().textContent(), "Open a file");

  await page.reload();
  await page.waitForSelector("html[data-ready=true]");
  assert.equal(await page.getAttribute("html", "lang"), "en", "the choice outlives a reload");
  await page.selectOption("[data-testid=lang-select]", "zh");
  await page.screenshot({ path: path.join(artifactsDir(), "report-zh.png"), fullPage: true });
  assertSameOrigin(log);
  await ctx.close();
});

test("checklist ticks survive a reload and follow the error to its rerun, not the bytes", { timeout: 60_000 }, async () => {
  const ctx = await suite.browser.newContext({ locale: "en-US" });
  const { page, log } = await openPage(ctx, suite.srv.url);
  const text = readFileSync(VOCAB_LOG, "utf8");
  await page.fill("[data-testid=log-input]", text);
  const steps = page.locator("[data-testid=checklist] input[type=checkbox]");
  await steps.first().waitFor();
  await steps.nth(0).check();
  await steps.nth(2).check();

  await page.reload();
  await page.waitForSelector("html[data-ready=true]");
  await page.fill("[data-testid=log-input]", text);
  await steps.first().waitFor();
  assert.equal(await steps.nth(0).isChecked(), true);
  assert.equal(await steps.nth(1).isChecked(), false);
  assert.equal(await steps.nth(2).isChecked(), true);
  const total = await steps.count();
  assert.equal(await page.locator("[data-testid=progress]").textContent(), `2 of ${total} done`);

  // The rerun the checklist asks for: other numbers (threads, blocks, lines, timings), the
  // same error: the ticks come along, and the page says so.
  const rerun = text.replace(/thread: \[(\d+),0,0\]/g, (m, t) => `thread: [${Number(t) + 100},0,0]`).replace(/12\/1200/g, "57/1200");
  assert.notEqual(rerun, text);
  await page.fill("[data-testid=log-input]", "step 9\n" + rerun);
  await page.waitForSelector(".fa-continued");
  assert.match(await page.locator(".fa-continued").textContent(), new RegExp(`2 of ${total} done`));
  assert.equal(await steps.nth(0).isChecked(), true);
  assert.equal(await steps.nth(2).isChecked(), true);
  // Start over clears them, for this error.
  await page.click("[data-testid=checklist] [data-action=reset]");
  assert.equal(await page.locator("[data-testid=checklist] input:checked").count(), 0);
  assert.equal(await page.locator("[data-testid=progress]").textContent(), `0 of ${total} done`);
  await steps.nth(1).check();

  // Another error has its own list.
  await page.fill("[data-testid=log-input]", readFileSync(BCE_LOG, "utf8"));
  await page.waitForFunction(() => (document.querySelector("[data-testid=cause]")?.dataset.rule ?? "tokenizer-vocab-mismatch") !== "tokenizer-vocab-mismatch");
  assert.equal(await page.locator("[data-testid=checklist] input:checked").count(), 0);
  assertSameOrigin(log);
  await ctx.close();
});

test("bad files get a clear message, not a broken page", { timeout: 60_000 }, async () => {
  const ctx = await suite.browser.newContext({ locale: "en-US" });
  const { page, log } = await openPage(ctx, suite.srv.url);
  await page.setInputFiles("[data-testid=file-input]", {
    name: "broken.ipynb",
    mimeType: "application/json",
    buffer: Buffer.from('{"cells": [ {"outputs": '),
  });
  await page.waitForSelector("[data-testid=status].error");
  assert.match(await page.locator("[data-testid=status]").textContent(), /Could not read the input: .+/);
  await page.setInputFiles("[data-testid=file-input]", { name: "x.zip", mimeType: "application/zip", buffer: Buffer.from("PK\x03\x04rest") });
  await page.waitForFunction(() => /zip/i.test(document.querySelector("[data-testid=status]").textContent));
  // The page still works.
  await page.click("[data-testid=demo-bce]");
  await page.locator("[data-testid=cause]").waitFor();
  assertSameOrigin(log);
  await ctx.close();
});

test("big pastes are analysed without filling the box; too big ones get a clear message", { timeout: 60_000 }, async () => {
  const ctx = await suite.browser.newContext({ locale: "en-US" });
  const { page, log } = await openPage(ctx, suite.srv.url);
  const paste = (repeat) =>
    page.evaluate((repeat) => {
      const dt = new DataTransfer();
      const head = "Epoch 1: loss 0.31\n".repeat(repeat);
      dt.setData("text/plain", head + "RuntimeError: CUDA error: device-side assert triggered\n");
      const t = document.querySelector("[data-testid=log-input]");
      t.focus();
      t.dispatchEvent(new ClipboardEvent("paste", { clipboardData: dt, bubbles: true, cancelable: true }));
    }, repeat);
  await paste(300_000); // 5.4 MB
  await page.waitForSelector("[data-testid=report][data-verdict=device_assert]");
  assert.match(await page.locator("[data-testid=status]").textContent(), /Pasted 5\.\d MB: analysed here, not shown in the box/);
  assert.equal(await page.locator("[data-testid=log-input]").inputValue(), "");
  // The box itself says what became of the paste (not its "paste here" placeholder again),
  // until the next input.
  const box = page.locator("[data-testid=log-input]");
  assert.match(await box.getAttribute("placeholder"), /^Pasted 5\.\d MB: analysed here, not shown in the box/);
  await box.pressSequentially("x");
  assert.match(await box.getAttribute("placeholder"), /^Paste the output here/);
  await page.click("[data-testid=clear]");
  await paste(6_000_000); // 109 MB
  await page.waitForFunction(() => /This input is 1\d\d(\.\d)? MB; the page reads notebooks and pasted text up to 100 MB \(log files of any size\)/.test(document.querySelector("[data-testid=status]").textContent));
  // A file of NUL bytes is no log the worker streams (not text): read whole, so refused.
  await page.evaluate(() => {
    const dt = new DataTransfer();
    dt.items.add(new File([new Uint8Array(101 * 1024 * 1024)], "huge.log"));
    window.dispatchEvent(new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true }));
  });
  await page.waitForFunction(() => /This input is 101 MB/.test(document.querySelector("[data-testid=status]").textContent));
  assertSameOrigin(log);
  await ctx.close();
});

test("drag and drop a file onto the page", { timeout: 60_000 }, async () => {
  const ctx = await suite.browser.newContext({ locale: "en-US" });
  const { page, log } = await openPage(ctx, suite.srv.url);
  const bytes = [...readFileSync(VOCAB_LOG)];
  await page.evaluate((bytes) => {
    const dt = new DataTransfer();
    dt.items.add(new File([new Uint8Array(bytes)], "dropped.log", { type: "text/plain" }));
    for (const type of ["dragenter", "dragover", "drop"]) {
      window.dispatchEvent(new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true }));
    }
  }, bytes);
  await page.locator("[data-testid=cause]").waitFor();
  assert.match(await page.locator("[data-testid=status]").textContent(), /dropped\.log/);
  assertSameOrigin(log);
  await ctx.close();
});

test("offline after the first visit", { timeout: 60_000 }, async () => {
  const ctx = await suite.browser.newContext({ locale: "en-US" });
  const { page } = await openPage(ctx, suite.srv.url);
  await page.evaluate(() =>
    Promise.race([navigator.serviceWorker.ready, new Promise((_, no) => setTimeout(() => no(new Error("no service worker")), 5000))]),
  );
  await page.reload(); // now controlled by the service worker, which has cached the shell
  await page.waitForSelector("html[data-ready=true]");
  await ctx.setOffline(true);
  await page.reload();
  await page.waitForSelector("html[data-ready=true]");
  await page.click("[data-testid=demo-colab]");
  await page.locator("[data-testid=cause]").waitFor();
  await ctx.close();
});

test("a Colab notebook and its runtime log: the kernel's line is read from the log, beside the cells", { timeout: 60_000 }, async () => {
  const notebook = path.join(ROOT, "tests/cases/colab-no-kernel-lines.ipynb");
  // The viewer's download, newest row first: the first assert is the oldest row, the last line.
  const kernel = (t) =>
    `../aten/src/ATen/native/cuda/Indexing.cu:1237: indexSelectLargeIndex: block: [10,0,0], thread: [${t},0,0] Assertion \`srcIndex < srcSelectDimSize\` failed.`;
  const csv = ["Timestamp,Level,Message", `"Dec 1, 2026, 10:01:17 AM",WARNING,"${kernel(65)}"`, `"Dec 1, 2026, 10:01:17 AM",WARNING,"${kernel(64)}"`, `"Dec 1, 2026, 10:00:02 AM",INFO,"Kernel started"`, ""].join("\n");
  const csvPath = path.join(artifactsDir(), "runtime-logs.csv");
  writeFileSync(csvPath, csv);
  let out;
  try {
    out = execFileSync(CLI, ["--json", notebook, "--log", csvPath]);
  } catch (e) {
    if (e.status !== 1) throw e;
    out = e.stdout;
  }
  const want = JSON.parse(out.toString("utf8"));
  assert.equal(want.first_assert.runtime_log, true);

  const ctx = await suite.browser.newContext({ locale: "en-US" });
  const { page, log } = await openPage(ctx, suite.srv.url);
  await page.setInputFiles("[data-testid=file-input]", notebook);
  await page.locator("[data-testid=cause]").waitFor();
  // Without the log: the card's next step says where the kernel's lines are (said once: not
  // again in the notes), the panel opens for them, and the step's button takes the reader there.
  const step = page.locator("[data-testid=next-step] [data-action=runtime-log]");
  await step.waitFor();
  assert.equal(await page.locator("[data-note=kernel_lines_in_runtime_log]").count(), 0);
  assert.equal(await page.locator("[data-testid=runtime-log-panel]").getAttribute("open"), "");
  await step.click();
  assert.equal(await page.evaluate(() => document.activeElement?.id), "runtime-log");
  assert.ok(!(await page.locator("[data-testid=first-assert] .fa-where").textContent()).includes("runtime log"));

  // With the log: the same report as the CLI's, the first assert pointing into the log.
  await page.setInputFiles("[data-testid=runtime-log-file]", { name: "runtime-logs.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
  const first = page.locator("[data-testid=first-assert-line]");
  await page.waitForSelector("[data-testid=window][data-log=true]");
  assert.equal(await first.getAttribute("data-line"), String(want.first_assert.line));
  assert.ok((await page.locator("[data-testid=first-assert] .fa-where").textContent()).includes("runtime log"));
  assert.equal(await page.locator("[data-testid=cause]").getAttribute("data-rule"), want.cause.rule);
  assert.equal(await page.locator("[data-testid=answer]").getAttribute("data-headline"), want.headline);
  assert.ok((await page.locator("[data-testid=first-assert]").textContent()).includes("srcIndex < srcSelectDimSize"));
  // The window opens on the log's line; the map has an entry for the log before the cells.
  const win = page.locator("[data-testid=window]");
  assert.equal(await win.getAttribute("data-log"), "true");
  assert.equal(await win.getAttribute("data-line"), String(want.first_assert.line));
  assert.ok((await win.locator(".fa-line.target").textContent()).includes("thread: [64,0,0]"));
  const bins = page.locator("[data-testid=map] .fa-bin");
  assert.equal(await bins.first().getAttribute("data-log"), "true");
  assert.equal(await bins.count(), want.input.cells + 1);
  // A jump to the cell and back to the log.
  await page.locator("[data-testid=map] .fa-bin[data-cell]").first().click();
  await page.waitForSelector("[data-testid=window][data-log=false]");
  await bins.first().click();
  await page.waitForSelector("[data-testid=window][data-log=true]");

  // Rows copied from the viewer and pasted (tab-separated) give the same first assert.
  const rows = [`Dec 1, 2026, 10:01:17 AM\tWARNING\t${kernel(65)}`, `Dec 1, 2026, 10:01:17 AM\tWARNING\t${kernel(64)}`].join("\n");
  await page.fill("[data-testid=runtime-log-input]", rows);
  await page.waitForSelector(`[data-testid=first-assert-line][data-line="2"]`);
  assert.equal(await win.getAttribute("data-log"), "true");
  // Emptied, the report is the notebook's alone again.
  await page.fill("[data-testid=runtime-log-input]", "");
  await page.waitForSelector("[data-testid=next-step] [data-action=runtime-log]");
  await page.screenshot({ path: path.join(artifactsDir(), "runtime-log-report.png"), fullPage: true });
  assertSameOrigin(log);
  await ctx.close();
});
