// A log of any size, opened or dropped on the page: the worker reads it a block at a time
// (bounded memory), the page shows the reading's progress and the first device-side assert
// once it has passed, Cancel stops it, and the report is the CLI's on the same file; the window
// of lines around the first assert is read back from the file.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, openSync, writeSync, closeSync, readFileSync, writeFileSync, statSync } from "node:fs";
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

test("on a phone, the reading's bar and Cancel stay in view as the page scrolls, the report's place says what is read, and the lines' numbers have separators and room", { timeout: 300_000 }, async () => {
  const ctx = await suite.browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, locale: "en-US" });
  const { page, log } = await openPage(ctx, `${suite.srv.url}?lang=en&nosw`);
  page.setDefaultTimeout(120_000);
  await page.setInputFiles("[data-testid=file-input]", big);
  const bar = page.locator("[data-testid=read-progress]");
  await bar.waitFor();
  const inView = () =>
    page.evaluate(() =>
      ["#progress-bar", "[data-testid=cancel]"].map((q) => {
        const r = document.querySelector(q).getBoundingClientRect();
        return r.height > 0 && r.top >= 0 && r.bottom <= window.innerHeight;
      }),
    );
  assert.deepEqual(await inView(), [true, true], "at the top of the page");
  assert.equal(await page.locator("[data-testid=report] .empty").textContent(), `Reading ${(statSync(big).size / MB).toFixed(1)} MB…`);
  await page.screenshot({ path: path.join(artifactsDir(), "phone-progress-en.png") });
  await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
  assert.deepEqual(await inView(), [true, true], "scrolled to the end");
  const want = cliReport(big);
  await page.waitForFunction((h) => document.querySelector("[data-testid=answer]")?.dataset.headline === h, want.headline, { timeout: 240_000 });
  // The window's numbers, in the millions: with separators, and clear of the text.
  await firstLine(page);
  const rows = await page.locator("[data-testid=window] .fa-line").evaluateAll((els) =>
    els.map((e) => ({ no: e.querySelector(".fa-no").textContent, gap: e.querySelector(".fa-text").getBoundingClientRect().left - e.querySelector(".fa-no").getBoundingClientRect().right })),
  );
  const first = rows.find((r) => r.no === want.first_assert.line.toLocaleString("en"));
  assert.ok(first && /^\d{1,3}(,\d{3})+$/.test(first.no), JSON.stringify(rows.slice(0, 3)));
  for (const r of rows) assert.ok(r.gap >= 8, `line ${r.no}: ${r.gap} px between the number and the text`);
  assert.deepEqual(log.errors, []);
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

/** Writes a log of `lines` lines made by `line(i)` to `file`, in the encoding `encode` gives,
 * with a device-side assert (its kernel record and host error) at 40%. */
function writeLines(file, lines, line, encode = (s) => Buffer.from(s)) {
  const fd = openSync(file, "w");
  let chunk = "";
  for (let i = 0; i < lines; i++) {
    chunk += line(i);
    if (i === Math.floor(lines * 0.4)) {
      chunk += "../aten/src/ATen/native/cuda/Loss.cu:250: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [5,0,0] Assertion `t >= 0 && t < n_classes` failed.\n";
      chunk += "RuntimeError: CUDA error: device-side assert triggered\n";
    }
    if (chunk.length > MB) {
      writeSync(fd, encode(chunk));
      chunk = "";
    }
  }
  writeSync(fd, encode(chunk));
  closeSync(fd);
}

test("how a file is read is the engine's decision: a JSON-lines log past 16 MB is read a block at a time; a GB18030 log past 16 MB is decoded whole, never streamed undecoded", { timeout: 300_000 }, async () => {
  // A JSON-lines log (each line an object, no notebook's cells): the CLI streams it, so does the page.
  const jsonl = path.join(dir, "events.json");
  writeLines(jsonl, 400_000, (i) => `{"step": ${i}, "loss": 0.${(i * 7919) % 10000}, "event": "train"}\n`);
  // A Chinese Windows console's log: GB18030 bytes, past the size the page streams from.
  const gb = path.join(dir, "train-gbk.log");
  const decoder = new TextDecoder("gb18030");
  // (Node has no GB18030 encoder: these two characters' GB18030 bytes, by hand: 训练 = d1b5 c1b7.)
  const gbBytes = Buffer.from([0xd1, 0xb5, 0xc1, 0xb7]);
  assert.equal(decoder.decode(gbBytes), "训练");
  writeLines(gb, 700_000, (i) => `step ${i} loss 0.${(i * 7919) % 10000} \u0001\n`, (s) => Buffer.from(s.replaceAll("\u0001", "\u0000"), "latin1"));
  // (the marker is replaced below by the GB18030 word, byte for byte)
  const raw = readFileSync(gb);
  const parts = [];
  let from = 0;
  for (let at = raw.indexOf(0); at !== -1; at = raw.indexOf(0, from)) {
    parts.push(raw.subarray(from, at), gbBytes);
    from = at + 1;
  }
  parts.push(raw.subarray(from));
  writeFileSync(gb, Buffer.concat(parts));
  assert.ok(statSync(jsonl).size > 16 * MB && statSync(gb).size > 16 * MB);
  for (const [file, streamed, what] of [[jsonl, true, "JSON lines"], [gb, false, "GB18030"]]) {
    const want = cliReport(file);
    assert.equal(want.verdict, "device_assert", what);
    const { ctx, page, log } = await openApp();
    const before = await page.evaluate(() => window.firstAssertWork());
    await page.setInputFiles("[data-testid=file-input]", file);
    await page.waitForFunction((h) => document.querySelector("[data-testid=answer]")?.dataset.headline === h, want.headline);
    const after = await page.evaluate(() => window.firstAssertWork());
    assert.equal(after.fileBytes - before.fileBytes, streamed ? statSync(file).size : 0, `${what}: read a block at a time: ${streamed}`);
    if (!streamed) await page.locator("[data-testid=status]").filter({ hasText: "GB18030" }).waitFor();
    assert.deepEqual(log.errors, []);
    await ctx.close();
  }
});
