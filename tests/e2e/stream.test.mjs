// A log of any size, opened or dropped on the page: the worker reads it a block at a time
// (bounded memory), the page shows the reading's progress and the first device-side assert
// once it has passed, Cancel stops it, and the report is the CLI's on the same file; the window
// of lines around the first assert is read back from the file.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pageSuite, openPage, cliReport, artifactsDir } from "./lib.mjs";
import { writeLog } from "./biglog.mjs";

const suite = pageSuite();
const MB = 1 << 20;

let dir, big;
before(() => {
  dir = mkdtempSync(path.join(tmpdir(), "fa-stream-"));
  big = path.join(dir, "train-600mb.log");
  writeLog(big, 600);
});
after(() => rmSync(dir, { recursive: true, force: true }));

async function openApp(lang = "en") {
  const ctx = await suite.browser.newContext({ locale: lang === "zh" ? "zh-CN" : "en-US" });
  const { page, log } = await openPage(ctx, `${suite.srv.url}?lang=${lang}&nosw`);
  page.setDefaultTimeout(120_000);
  return { ctx, page, log };
}

/** The text of the window's first-assert line, once the window has been read back and shown. */
async function firstLine(page) {
  const line = page.locator("[data-testid=window] .fa-line.mark-first .fa-text");
  await line.first().waitFor();
  return line.first().textContent();
}

test("a 600 MB log opened through the file input: progress as it reads, the first assert seen on the way, the CLI's report, the first assert's lines read back, the engine under 64 MB", { timeout: 300_000 }, async () => {
  const want = cliReport(big);
  assert.equal(want.verdict, "device_assert");
  const { ctx, page, log } = await openApp();
  const seen = [];
  await page.exposeFunction("faProgress", (t) => seen.push(t));
  await page.evaluate(() => {
    const el = document.querySelector("[data-testid=read-progress-text]");
    new MutationObserver(() => window.faProgress(el.textContent)).observe(el, { childList: true, characterData: true, subtree: true });
  });
  const started = Date.now();
  await page.setInputFiles("[data-testid=file-input]", big);
  await page.waitForFunction((h) => document.querySelector("[data-testid=answer]")?.dataset.headline === h, want.headline);
  const ms = Date.now() - started;
  assert.equal(await page.locator("[data-verdict]").getAttribute("data-verdict"), "device_assert");
  assert.match(await firstLine(page), /Assertion `t >= 0 && t < n_classes` failed\./);
  assert.ok(seen.some((t) => /^Reading \d+ of 600 MB…$/.test(t)), seen.slice(0, 3).join(" | "));
  const line = want.first_assert.line.toLocaleString("en");
  assert.ok(seen.some((t) => t.includes(`A device-side assert at line ${line} so far`)), seen.slice(-2).join(" | "));
  assert.equal(await page.locator("[data-testid=read-progress]").isHidden(), true, "the progress goes once the report is in");
  // The report is the CLI's, to the echoes.
  assert.ok(want.echo_count >= 1);
  assert.match(await page.locator("[data-testid=echoes] summary").textContent(), new RegExp(`\\b${want.echo_count}\\b`));
  // A jump to the echo, 80% in: its lines are read back from the file too.
  const echo = want.echoes.at(-1);
  await page.locator("[data-testid=echoes] summary").click();
  await page.locator("[data-testid=echo] .fa-jump").last().click();
  await page.locator(`[data-testid=window][data-line="${echo.line}"] .fa-line.target`).waitFor();
  assert.match(await page.locator("[data-testid=window] .fa-line.target").textContent(), /RuntimeError: CUDA error: device-side assert triggered/);
  const memory = await page.evaluate(() => window.firstAssertMemory());
  assert.ok(memory <= 64 * MB, `the engine held ${memory} bytes`);
  console.log(`  600 MB opened: ${ms} ms to the report; the engine's memory ${(memory / MB).toFixed(1)} MB`);
  assert.deepEqual(log.errors, []);
  await page.screenshot({ path: path.join(artifactsDir(), "stream-600mb.png") });
  await ctx.close();
});

test("Cancel stops the reading: no report, the page says so, and the next file reads normally", { timeout: 300_000 }, async () => {
  const { ctx, page, log } = await openApp("zh");
  await page.setInputFiles("[data-testid=file-input]", big);
  await page.locator("[data-testid=read-progress-text]").filter({ hasText: /正在读取 \d+ \/ 600 MB/ }).waitFor();
  await page.locator("[data-testid=cancel]").click();
  await page.locator("[data-testid=status]").filter({ hasText: "已取消读取。" }).waitFor();
  assert.equal(await page.locator("[data-verdict]").count(), 0);
  assert.equal(await page.locator("[data-testid=read-progress]").isHidden(), true);
  const small = path.join(dir, "small.log");
  writeLog(small, 20);
  const want = cliReport(small, "zh");
  await page.setInputFiles("[data-testid=file-input]", small);
  await page.waitForFunction((h) => document.querySelector("[data-testid=answer]")?.dataset.headline === h, want.headline);
  assert.deepEqual(log.errors, []);
  await ctx.close();
});

test("the 600 MB log dropped on the page is read the same way", { timeout: 300_000 }, async () => {
  const want = cliReport(big);
  const { ctx, page, log } = await openApp();
  // The file from disk (as a drop from the desktop gives it), through an input of the test's
  // own, then dropped on the window.
  await page.evaluate(() => {
    const input = document.createElement("input");
    input.type = "file";
    input.id = "test-drop-source";
    input.hidden = true;
    document.body.append(input);
  });
  await page.setInputFiles("#test-drop-source", big);
  await page.evaluate(() => {
    const dt = new DataTransfer();
    dt.items.add(document.getElementById("test-drop-source").files[0]);
    for (const type of ["dragenter", "dragover", "drop"]) window.dispatchEvent(new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true }));
  });
  await page.locator("[data-testid=read-progress-text]").filter({ hasText: /Reading \d+ of 600 MB/ }).waitFor();
  await page.waitForFunction((h) => document.querySelector("[data-testid=answer]")?.dataset.headline === h, want.headline);
  assert.match(await firstLine(page), /Assertion `t >= 0 && t < n_classes` failed\./);
  assert.ok((await page.evaluate(() => window.firstAssertMemory())) <= 64 * MB);
  // Another language: the engine words what it found again; the file is neither analysed nor
  // read again (the window's lines are read back, a few KB).
  const zh = cliReport(big, "zh");
  const before = await page.evaluate(() => window.firstAssertWork());
  await page.selectOption("#lang", "zh");
  await page.waitForFunction((h) => document.querySelector("[data-testid=answer]")?.dataset.headline === h, zh.headline);
  assert.match(await firstLine(page), /Assertion `t >= 0 && t < n_classes` failed\./);
  const after = await page.evaluate(() => window.firstAssertWork());
  assert.equal(after.analyses, before.analyses, "a language switch analyses nothing again");
  assert.equal(after.fileBytes, before.fileBytes, "a language switch reads nothing of the file again");
  assert.equal(await page.locator("[data-testid=read-progress-text]").isVisible(), false);
  assert.deepEqual(log.errors, []);
  await ctx.close();
});
