// The report as a new user meets it, in headless Chromium at a laptop's 1280×800 and a phone's
// 390×844, in English and Chinese: the answer card comes first and into view, the failed check
// is visible (measured with element geometry), nothing makes the page scroll sideways, a screen
// reader's view has no violations (axe-core), the live region says the verdict, copy buttons say
// what really happened, a GB18030 log is decoded, and a 1 MB paste never blocks the page.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { pageSuite, openPage, cliReport, artifactsDir, assertSameOrigin, ROOT, WWW } from "./lib.mjs";

const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
const SIZES = { laptop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } };

const suite = pageSuite();

/** Every log of our own whose first assert is a kernel record with its condition printed. */
function kernelRecords() {
  const logs = [
    ...readdirSync(path.join(ROOT, "tests/cases")).filter((f) => f.endsWith(".log")).map((f) => path.join(ROOT, "tests/cases", f)),
    ...readdirSync(path.join(WWW, "demo")).filter((f) => f.endsWith(".log")).map((f) => path.join(WWW, "demo", f)),
  ];
  return logs
    .map((file) => ({ file, want: { en: cliReport(file, "en"), zh: cliReport(file, "zh") } }))
    .filter(({ want }) => {
      const f = want.en.first_assert;
      return f?.kind === "kernel_assert" && f.site?.condition && f.text.includes(f.site.condition);
    });
}

async function context(size, lang, extra = {}) {
  const ctx = await suite.browser.newContext({ viewport: SIZES[size], locale: lang === "zh" ? "zh-CN" : "en-US", ...extra });
  const { page, log } = await openPage(ctx, `${suite.srv.url}?lang=${lang}&nosw`);
  return { ctx, page, log };
}

/** Waits until the report shown is the one whose headline is `headline`. */
const showing = (page, headline) =>
  page.waitForFunction((h) => document.querySelector("[data-testid=answer]")?.dataset.headline === h, headline);

/** Where the page's box scrolls sideways, if it does: the widths. */
const sideways = (page) => page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);

test("the failed check is inside the visible record, at both widths and in both languages, and the page never scrolls sideways", { timeout: 240_000 }, async () => {
  const records = kernelRecords();
  assert.ok(records.length >= 20, `only ${records.length} logs with a kernel record`);
  for (const size of Object.keys(SIZES)) {
    for (const lang of ["en", "zh"]) {
      const { ctx, page, log } = await context(size, lang);
      for (const { file, want } of records) {
        // As a file: its bytes exactly (a text area turns carriage returns into line breaks).
        await page.setInputFiles("[data-testid=file-input]", file);
        await showing(page, want[lang].headline);
        const g = await page.evaluate(() => {
          const box = (el) => el?.getBoundingClientRect();
          const mark = box(document.querySelector("[data-testid=failed-check]"));
          const rec = box(document.querySelector(".fa-record"));
          return { mark: mark && { l: mark.left, r: mark.right, t: mark.top, b: mark.bottom, w: mark.width }, rec: { l: rec.left, r: rec.right, t: rec.top, b: rec.bottom }, vw: window.innerWidth };
        });
        const name = `${path.basename(file)} at ${size} in ${lang}`;
        assert.ok(g.mark && g.mark.w > 0, `${name}: the failed check is not marked`);
        assert.ok(g.mark.l >= g.rec.l && g.mark.r <= g.rec.r + 0.5 && g.mark.t >= g.rec.t && g.mark.b <= g.rec.b + 0.5, `${name}: the check ${JSON.stringify(g.mark)} is outside its box ${JSON.stringify(g.rec)}`);
        assert.ok(g.mark.r <= g.vw, `${name}: the check is past the right edge of the viewport`);
        const [scroll, inner] = await sideways(page);
        assert.ok(scroll <= inner, `${name}: the page is ${scroll} px wide in a ${inner} px viewport`);
        assert.equal(await page.locator("[data-testid=failed-check]").textContent(), want[lang].first_assert.site.condition, name);
        // The record's `Loss.cu:242` stays whole: a narrow screen breaks the path between its
        // directories, not inside the file's name and line.
        const site = want[lang].first_assert.site;
        const token = `${site.file.split(/[\\/ ]/).pop()}:${site.line}`;
        const tops = await page.evaluate((token) => {
          const code = document.querySelector("[data-testid=first-assert-line] code");
          const walk = document.createTreeWalker(code, NodeFilter.SHOW_TEXT);
          const nodes = [];
          let all = "";
          for (let n = walk.nextNode(); n; n = walk.nextNode()) {
            if (n.parentElement.closest(".fa-sr, .fa-glued")) continue;
            nodes.push([n, all.length]);
            all += n.data;
          }
          const at = all.indexOf(token);
          if (at < 0) return null;
          const place = (i) => nodes.findLast(([, o]) => o <= i);
          const range = document.createRange();
          const [a, ao] = place(at), [b, bo] = place(at + token.length - 1);
          range.setStart(a, at - ao);
          range.setEnd(b, at + token.length - bo);
          return [...new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)))];
        }, token);
        if (tops) assert.equal(tops.length, 1, `${name}: ${token} is broken over lines ${tops}`);
      }
      assertSameOrigin(log, suite.srv.origin);
      await ctx.close();
    }
  }
});

test("after a paste, a file, a drop and a demo the answer card is in view and has the focus (not on each keystroke)", { timeout: 120_000 }, async () => {
  const vocab = path.join(WWW, "demo/embedding-vocab.log");
  const text = readFileSync(vocab, "utf8");
  const want = cliReport(vocab);
  const inView = (page) =>
    page.evaluate(() => {
      const r = document.querySelector("[data-testid=answer-title]").getBoundingClientRect();
      return r.top >= 0 && r.bottom <= window.innerHeight && document.activeElement?.id === "fa-answer-title";
    });
  // The focused headline draws no ring (it is no control; a red ring read as an error of its own).
  const ringless = (page, how) =>
    page.evaluate(() => getComputedStyle(document.activeElement).outlineStyle).then((s) => assert.equal(s, "none", `a ring around the headline after ${how}`));
  const { ctx, page, log } = await context("phone", "en");
  await ctx.grantPermissions(["clipboard-read", "clipboard-write"], { origin: suite.srv.origin });

  // Typing: the report follows, the view stays where the typing is.
  await page.locator("[data-testid=log-input]").pressSequentially("RuntimeError: CUDA error: device-side assert triggered\n", { delay: 5 });
  await page.locator("[data-testid=answer]").waitFor();
  assert.equal(await inView(page), false, "typing moved the view");

  // A paste (the real one: the clipboard, then Ctrl+V in the box).
  await page.fill("[data-testid=log-input]", "");
  await page.evaluate((t) => navigator.clipboard.writeText(t), text);
  await page.focus("[data-testid=log-input]");
  await page.keyboard.press("Control+V");
  await showing(page, want.headline);
  await page.waitForFunction(() => document.activeElement?.id === "fa-answer-title");
  await page.waitForTimeout(400); // the smooth scroll ends
  assert.equal(await inView(page), true, "after a paste");
  await ringless(page, "a paste");

  for (const [how, run] of [
    ["a file", () => page.setInputFiles("[data-testid=file-input]", path.join(WWW, "demo/colab-nll-labels.ipynb"))],
    [
      "a drop",
      () =>
        page.evaluate((t) => {
          const dt = new DataTransfer();
          dt.items.add(new File([t], "dropped.log", { type: "text/plain" }));
          window.dispatchEvent(new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true }));
        }, text + "\n# dropped\n"),
    ],
    ["a demo", () => page.click("[data-testid=demo-bce]")],
  ]) {
    await page.evaluate(() => {
      document.activeElement?.blur();
      window.scrollTo(0, 0);
      document.querySelector("[data-testid=report]").replaceChildren();
    });
    await run();
    await page.locator("[data-testid=answer]").waitFor();
    await page.waitForFunction(() => document.activeElement?.id === "fa-answer-title");
    await page.waitForTimeout(400); // the smooth scroll ends
    assert.equal(await inView(page), true, `after ${how}`);
    await ringless(page, how);
  }
  await page.screenshot({ path: path.join(artifactsDir(), "answer-after-demo-phone.png") });
  assertSameOrigin(log, suite.srv.origin);
  await ctx.close();
});

test("a screen reader's view: axe-core finds nothing on the empty, clean, assert, other-error and notebook states, in both languages and colour schemes", { timeout: 240_000 }, async () => {
  const other = path.join(ROOT, "tests/cases/illegal-address.log");
  const states = [
    ["empty", async () => {}],
    ["clean", (page) => page.click("[data-testid=demo-clean]")],
    ["assert", (page) => page.click("[data-testid=demo-vocab]")],
    ["other-error", (page) => page.setInputFiles("[data-testid=file-input]", other)],
    ["notebook", (page) => page.click("[data-testid=demo-colab]")],
  ];
  const counts = {};
  for (const scheme of ["light", "dark"]) {
    for (const lang of ["en", "zh"]) {
      const { ctx, page, log } = await context("laptop", lang, { colorScheme: scheme });
      for (const [state, run] of states) {
        await run(page);
        if (state !== "empty") await page.locator("[data-testid=answer]").waitFor();
        // Everything folded open, so what a reader can open is checked too.
        await page.evaluate(() => document.querySelectorAll("details").forEach((d) => (d.open = true)));
        // axe's source as an expression the debugger evaluates (the page's CSP allows no eval).
        if (!(await page.evaluate(() => Boolean(window.axe)))) await page.evaluate(AXE);
        const result = await page.evaluate(async () => {
          const r = await window.axe.run(document, { resultTypes: ["violations"] });
          return r.violations.map((v) => `${v.id} (${v.impact}) ×${v.nodes.length}: ${v.nodes[0]?.target.join(" ")}`);
        });
        counts[`${state}/${lang}/${scheme}`] = result.length;
        assert.deepEqual(result, [], `${state} in ${lang}, ${scheme}`);
        await page.screenshot({ path: path.join(artifactsDir(), `answer-${state}-${lang}-${scheme}.png`), fullPage: state === "empty" });
      }
      assertSameOrigin(log, suite.srv.origin);
      await ctx.close();
    }
  }
  console.log(`# axe-core violations: ${JSON.stringify(counts)}`);
});

test("the live region says the verdict after every analysis: a paste, a demo, a language switch", { timeout: 60_000 }, async () => {
  const { ctx, page, log } = await context("laptop", "en");
  const live = page.locator("[data-testid=status][aria-live=polite]");
  const bce = path.join(WWW, "demo/bce-range.log");
  await page.fill("[data-testid=log-input]", readFileSync(bce, "utf8"));
  await showing(page, cliReport(bce).headline);
  assert.equal(await live.textContent(), cliReport(bce).headline);
  await page.click("[data-testid=demo-clean]");
  const clean = cliReport(path.join(WWW, "demo/clean.log"));
  await showing(page, clean.headline);
  assert.equal(await live.textContent(), `clean.log · ${clean.headline}`);
  // A clean verdict says what it read.
  assert.equal(await page.locator("[data-testid=read-summary]").textContent(), `Read ${clean.input.lines} lines · 0 CUDA errors`);
  await page.click("[data-testid=demo-vocab]");
  const vocab = cliReport(path.join(WWW, "demo/embedding-vocab.log"), "zh");
  await page.selectOption("[data-testid=lang-select]", "zh");
  await showing(page, vocab.headline);
  assert.match(await live.textContent(), new RegExp(vocab.headline.slice(0, 20).replace(/[.*+?^${}()|[\]\\]/g, "\\$&")));
  assertSameOrigin(log, suite.srv.origin);
  await ctx.close();
});

test("a clean verdict says what it read, and what it saw but did not count, which one click takes as the error", { timeout: 60_000 }, async () => {
  const { ctx, page, log } = await context("laptop", "en");
  const text = 'step 3 loss 0.71\nprint("RuntimeError: CUDA error: device-side assert triggered")\nstep 4 loss 0.69\n';
  await page.fill("[data-testid=log-input]", text);
  await page.waitForSelector("[data-testid=report][data-verdict=clean]");
  assert.equal(await page.locator("[data-testid=read-summary]").textContent(), "Read 3 lines · 0 CUDA errors");
  const seen = page.locator("[data-testid=quoted]");
  await seen.waitFor();
  assert.match(await seen.textContent(), /Seen but not counted.*read as quoted/);
  assert.equal(await seen.locator("li").count(), 1);
  assert.equal(await seen.locator("li").getAttribute("data-line"), "2");
  assert.match(await seen.locator("li code").textContent(), /^print\("RuntimeError: CUDA error: device-side assert triggered"\)$/);
  // In the other language too, and back.
  await page.selectOption("[data-testid=lang-select]", "zh");
  await page.waitForFunction(() => /看到了，但没有算作报错/.test(document.querySelector("[data-testid=quoted]")?.textContent ?? ""));
  await page.selectOption("[data-testid=lang-select]", "en");
  await page.waitForFunction(() => /Seen but not counted/.test(document.querySelector("[data-testid=quoted]")?.textContent ?? ""));
  await seen.locator("[data-action=treat]").click();
  await page.waitForSelector("[data-testid=report][data-verdict=device_assert]");
  assert.match(await page.locator("[data-testid=answer]").getAttribute("data-headline"), /line 2/);
  assert.match(await page.locator("[data-testid=status]").textContent(), /line 2/);
  // A text that only names the error (a how-to page's heading): clean, the line listed as
  // mentioned, and a note that says why; one click still takes it as the error.
  await page.fill("[data-testid=log-input]", "# Fixing CUDA errors\n\n### RuntimeError: CUDA error: device-side assert triggered\n\nMost often a label is out of range.\n");
  await page.waitForFunction(() => /line 3 names the error.*mentioned, not counted/.test(document.querySelector("[data-testid=quoted]")?.textContent ?? ""));
  assert.equal(await page.locator("[data-testid=report]").getAttribute("data-verdict"), "clean");
  assert.equal(await seen.locator("li").getAttribute("data-line"), "3");
  assert.equal(await page.locator("[data-note=mentioned_only]").count(), 0, "the reason is the note, said once");
  await page.selectOption("[data-testid=lang-select]", "zh");
  await page.waitForFunction(() => /只是提及/.test(document.querySelector("[data-testid=quoted]")?.textContent ?? ""));
  await page.selectOption("[data-testid=lang-select]", "en");
  await page.waitForFunction(() => /mentioned, not counted/.test(document.querySelector("[data-testid=quoted]")?.textContent ?? ""));
  await seen.locator("[data-action=treat]").click();
  await page.waitForSelector("[data-testid=report][data-verdict=device_assert]");
  // A clean log without the words has no such list.
  await page.click("[data-testid=demo-clean]");
  await page.waitForSelector("[data-testid=report][data-verdict=clean]");
  assert.equal(await page.locator("[data-testid=quoted]").count(), 0);
  assertSameOrigin(log, suite.srv.origin);
  await ctx.close();
});

test("a record repeated thread after thread is one line and a count that opens", { timeout: 60_000 }, async () => {
  const { ctx, page, log } = await context("laptop", "en");
  const want = cliReport(path.join(WWW, "demo/embedding-vocab.log"));
  const rep = want.first_assert.repeats;
  await page.click("[data-testid=demo-vocab]");
  const group = page.locator("[data-testid=window] .fa-repeat");
  await group.waitFor();
  // The first record is the window's target, the next one heads the group, the rest are counted.
  const [lo, hi] = [rep.thread_range[0][0] + 1, rep.thread_range[1][0]];
  assert.equal(await group.locator("summary").textContent(), `+${rep.count - 2} lines like it, threads ${lo}–${hi}`);
  assert.equal(await group.locator(".fa-line").first().isVisible(), false);
  await group.locator("summary").click();
  assert.equal(await group.locator(".fa-line").count(), rep.count - 2);
  assert.equal(await group.locator(".fa-line").last().getAttribute("data-line"), String(rep.last_line));
  assertSameOrigin(log, suite.srv.origin);
  await ctx.close();
});

test("copy buttons tell the truth: Copied when the write worked, Press Ctrl+C with the code selected when it did not, and back after 2 s", { timeout: 60_000 }, async () => {
  const { ctx, page, log } = await context("laptop", "en");
  await ctx.grantPermissions(["clipboard-read", "clipboard-write"], { origin: suite.srv.origin });
  await page.click("[data-testid=demo-vocab]");
  const copy = page.locator("[data-testid=checklist] .fa-copy").first();
  const code = await copy.locator("xpath=..").locator("pre").textContent();
  await copy.click();
  await page.waitForFunction(async (c) => (await navigator.clipboard.readText()) === c, code);
  assert.equal(await copy.textContent(), "Copied");
  await page.waitForFunction((b) => b.textContent === "Copy", await copy.elementHandle(), { timeout: 4000 });

  // The card's button copies the probe cell.
  await page.click("[data-testid=next-step] .fa-copy-probe");
  await page.waitForFunction(async () => (await navigator.clipboard.readText()).includes("TorchFunctionMode"));
  assert.equal(await page.locator("[data-testid=next-step] .fa-copy-probe").textContent(), "Copied");

  // Refused by the browser, and no old way either: say so, and leave the code selected.
  await page.evaluate(() => {
    navigator.clipboard.writeText = () => Promise.reject(new DOMException("denied", "NotAllowedError"));
    document.execCommand = () => false;
  });
  await copy.click();
  await page.waitForFunction((b) => b.textContent === "Press Ctrl+C", await copy.elementHandle());
  assert.equal(await page.evaluate(() => window.getSelection().toString()), code);
  await page.waitForFunction((b) => b.textContent === "Copy", await copy.elementHandle(), { timeout: 4000 });

  // No clipboard API at all (a plain-http host): the old way, and it worked.
  await page.evaluate(() => {
    Object.defineProperty(navigator, "clipboard", { value: undefined, configurable: true });
    document.execCommand = (c) => c === "copy";
  });
  await copy.click();
  await page.waitForFunction((b) => b.textContent === "Copied", await copy.elementHandle());
  assertSameOrigin(log, suite.srv.origin);
  await ctx.close();
});

test("a log from a Chinese Windows console (GB18030) is decoded, not turned into replacement characters", { timeout: 60_000 }, async () => {
  const { ctx, page, log } = await context("laptop", "zh");
  // The log with its progress bar's block glyphs made ASCII (a GB18030 console writes every
  // character in GB18030; this test writes the Chinese line so and the rest as ASCII).
  const vocab = readFileSync(path.join(WWW, "demo/embedding-vocab.log"), "utf8").replace(/[^\x00-\x7f]/g, "#");
  // "# 训练开始：第 1 轮" in GB18030, then the log (ASCII, the same in both encodings).
  const bytes = Buffer.concat([Buffer.from("2320d1b5c1b7bfaacabca3bab5da203120c2d60a", "hex"), Buffer.from(vocab)]);
  assert.throws(() => new TextDecoder("utf-8", { fatal: true }).decode(bytes), "not UTF-8");
  await page.setInputFiles("[data-testid=file-input]", { name: "train-gbk.log", mimeType: "text/plain", buffer: bytes });
  await page.locator("[data-testid=answer]").waitFor();
  assert.match(await page.locator("[data-testid=status]").textContent(), /GB18030/);
  assert.equal(await page.locator("[data-testid=cause]").getAttribute("data-rule"), cliReport(path.join(WWW, "demo/embedding-vocab.log")).cause.rule);
  await page.locator("[data-testid=window] [data-line='1']").waitFor();
  assert.equal(await page.locator("[data-testid=window] [data-line='1'] .fa-text").textContent(), "# 训练开始：第 1 轮");
  assertSameOrigin(log, suite.srv.origin);
  await ctx.close();
});

test("a 1 MB paste never blocks the page for more than 100 ms, and stays out of the box", { timeout: 120_000 }, async () => {
  const { ctx, page, log } = await context("laptop", "en");
  const vocab = readFileSync(path.join(WWW, "demo/embedding-vocab.log"), "utf8");
  const filler = Array.from({ length: 18_000 }, (_, i) => `{'loss': ${(3 - i / 7000).toFixed(4)}, 'learning_rate': 2e-05, 'epoch': ${(i / 1000).toFixed(2)}}`).join("\n");
  const big = filler + "\n" + vocab;
  assert.ok(big.length > 1_000_000, `${big.length} bytes`);
  const paste = (t) =>
    page.evaluate((t) => {
      const dt = new DataTransfer();
      dt.setData("text/plain", t);
      document.querySelector("[data-testid=log-input]").dispatchEvent(new ClipboardEvent("paste", { clipboardData: dt, bubbles: true, cancelable: true }));
    }, t);
  // The page's own start (the worker compiling the engine) is over; only tasks from the paste on count.
  await page.waitForTimeout(500);
  await page.evaluate(() => {
    window.__long = [];
    window.__t0 = performance.now();
    new PerformanceObserver((l) => window.__long.push(...l.getEntries().filter((e) => e.startTime >= window.__t0).map((e) => e.duration))).observe({ type: "longtask" });
  });
  await paste(big);
  await page.locator("[data-testid=answer]").waitFor();
  await page.waitForTimeout(300);
  const long = await page.evaluate(() => window.__long);
  console.log(`# 1 MB paste: long tasks ${JSON.stringify(long.map(Math.round))} ms`);
  assert.ok(long.every((d) => d <= 100), `the main thread was blocked ${Math.max(...long)} ms`);
  // Kept out of the box (a text area of megabytes makes every keystroke slow).
  assert.equal(await page.locator("[data-testid=log-input]").inputValue(), "");

  assertSameOrigin(log, suite.srv.origin);
  await ctx.close();
});

test("while the engine works on a long read, the page says it is reading, and answers once", { timeout: 60_000 }, async () => {
  // An engine slowed by 600 ms an answer: the page's worker, wrapped (the real one behind it).
  const ctx = await suite.browser.newContext({ viewport: SIZES.laptop });
  await ctx.route("**/pkg/engine-worker.js", (route) =>
    route.fulfill({
      contentType: "text/javascript",
      body: 'import "./engine-worker.js?real"; const post = self.postMessage.bind(self); self.postMessage = (m) => setTimeout(() => post(m), m?.value?.report ? 600 : 0);',
    }),
  );
  const { page, log } = await openPage(ctx, `${suite.srv.url}?lang=en&nosw`);
  await page.evaluate(() => {
    window.__said = [];
    new MutationObserver(() => window.__said.push(document.querySelector("[data-testid=status]").textContent)).observe(document.querySelector("[data-testid=status]"), { childList: true, characterData: true, subtree: true });
  });
  const vocab = readFileSync(path.join(WWW, "demo/embedding-vocab.log"), "utf8");
  await page.evaluate((t) => {
    const box = document.querySelector("[data-testid=log-input]");
    box.value = t;
    box.dispatchEvent(new Event("input", { bubbles: true }));
  }, vocab.repeat(200));
  await page.locator("[data-testid=answer]").waitFor();
  const said = await page.evaluate(() => window.__said);
  assert.equal(said.length, 2, JSON.stringify(said));
  assert.match(said[0], /^Reading 0\.4 MB…$/);
  assert.match(said[1], /^Cause: The tokenizer has more tokens/);
  assertSameOrigin(log, suite.srv.origin);
  await ctx.close();
});

test("screenshots of the colab and tokenizer demos at both widths, both languages", { timeout: 120_000 }, async () => {
  for (const size of Object.keys(SIZES)) {
    for (const lang of ["en", "zh"]) {
      const { ctx, page } = await context(size, lang);
      for (const demo of ["colab", "vocab"]) {
        await page.click(`[data-testid=demo-${demo}]`);
        await page.locator("[data-testid=answer]").waitFor();
        await page.waitForTimeout(400);
        const top = await page.evaluate(() => document.querySelector("[data-testid=answer-title]").getBoundingClientRect().top);
        assert.ok(top >= 0 && top < SIZES[size].height / 2, `${demo} at ${size} in ${lang}: the answer starts at ${top}`);
        await page.screenshot({ path: path.join(artifactsDir(), `answer-${demo}-${lang}-${SIZES[size].width}.png`) });
      }
      await ctx.close();
    }
  }
});

test("a long log's map fits a phone's strip: every run of lines visible, the first assert's and the last echo's marks in it", { timeout: 60_000 }, async () => {
  const lines = [];
  for (let i = 1; i <= 600; i++) lines.push(`step ${i} loss ${(1 / i).toFixed(4)}`);
  lines[299] = "../aten/src/ATen/native/cuda/Loss.cu:250: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [3,0,0] Assertion `t >= 0 && t < n_classes` failed.";
  // Python raises it (the assert's report), then a later call fails again (its echo).
  lines.push("Traceback (most recent call last):", '  File "train.py", line 9, in <module>', "    loss.item()", "RuntimeError: CUDA error: device-side assert triggered");
  lines.push("saving a checkpoint", "RuntimeError: CUDA error: device-side assert triggered");
  const text = lines.join("\n") + "\n";
  for (const size of ["phone", "laptop"]) {
    const { ctx, page, log } = await context(size, "en");
    await page.setInputFiles("[data-testid=file-input]", { name: "long.log", mimeType: "text/plain", buffer: Buffer.from(text) });
    await page.waitForSelector(".fa-map.lines .fa-bin.mark-first");
    const g = await page.evaluate(() => {
      const map = document.querySelector(".fa-map.lines").getBoundingClientRect();
      const bins = [...document.querySelectorAll(".fa-map.lines li")].map((li) => li.getBoundingClientRect());
      return { right: map.right, bins: bins.length, last: bins.at(-1).right, narrowest: Math.min(...bins.map((b) => b.width)), echo: !!document.querySelector(".fa-map.lines .fa-bin.mark-echo") };
    });
    assert.ok(g.last <= g.right + 0.5, `${size}: the last run ends at ${g.last}, past the strip's ${g.right}`);
    assert.ok(g.narrowest >= 4, `${size}: a run is ${g.narrowest} px wide`);
    assert.ok(g.echo, `${size}: the echo at the end is not on the map`);
    if (size === "phone") assert.ok(g.bins < 120, `${size}: ${g.bins} runs for a ${g.right} px strip`);
    else assert.equal(g.bins, 120);
    assertSameOrigin(log, suite.srv.origin);
    await ctx.close();
  }
});

test("the card says how sure in words: Most likely (the prior alone, with its note and the lines that show the code), Likely (evidence), a stated cause bare, and with only the host error the likeliest cause as what usually causes it, its share of these errors, no rule id and no traceback verdict", { timeout: 120_000 }, async () => {
  const files = {
    prior: path.join(ROOT, "tests/priors/cls-tolist-num-labels.ipynb"),
    evidence: path.join(ROOT, "tests/priors/graph-script-loss.log"),
    stated: path.join(WWW, "demo/embedding-vocab.log"),
    none: path.join(ROOT, "tests/priors/lone-host-line.log"),
  };
  const words = { en: { prior: "Most likely", evidence: "Likely" }, zh: { prior: "最可能", evidence: "可能" } };
  // The cause section's title follows the basis.
  const heads = { en: { prior: "Likely cause", evidence: "Likely cause", stated: "Cause", none: "Usually" }, zh: { prior: "可能的原因", evidence: "可能的原因", stated: "原因", none: "通常的原因" } };
  for (const lang of ["en", "zh"]) {
    const { ctx, page, log } = await context("laptop", lang);
    for (const [basis, file] of Object.entries(files)) {
      const want = cliReport(file, lang);
      assert.equal(want.cause.basis, basis, `${file}: the CLI's basis`);
      await page.setInputFiles("[data-testid=file-input]", file);
      await showing(page, want.headline);
      const got = await page.evaluate(() => {
        const t = document.querySelector("[data-testid=answer-title]");
        const b = t.querySelector(".fa-basis");
        const cands = [...document.querySelectorAll("[data-testid=candidate]")].map((li) => li.dataset.category);
        const head = document.querySelector(".fa-candidates")?.previousElementSibling?.textContent ?? null;
        return {
          basis: b?.dataset.basis ?? null, word: b?.textContent ?? null, title: t.textContent, note: document.querySelector(".fa-basis-note")?.textContent ?? null, cands, head,
          pct: t.querySelector("[data-confidence]")?.dataset.confidence ?? null,
          section: document.querySelector("[data-testid=cause] h2")?.textContent ?? null,
          items: [...document.querySelectorAll("[data-testid=candidate]")].map((li) => li.textContent),
          stack: document.querySelector("[data-testid=stack-verdict]")?.textContent ?? null,
          shown: document.body.innerText,
        };
      });
      assert.ok(!got.shown.includes(want.cause.rule), `${path.basename(file)}: no rule id shown (${want.cause.rule})`);
      assert.equal(got.section, heads[lang][basis], `${path.basename(file)} in ${lang}: the section's title`);
      const name = `${path.basename(file)} in ${lang}`;
      const pct = String(Math.round(want.cause.confidence * 100));
      if (basis === "none") {
        const top = want.cause.candidates[0];
        assert.equal(got.basis, "none", name);
        const pct = Math.round(top.confidence * 100);
        assert.equal(got.title, lang === "en" ? `Cause unknown from this output — most often: ${top.title} (${pct}% of these errors)` : `从这段输出看不出原因——最常见的是：${top.title}（这类错误的 ${pct}%）`, `${name}: unknown, as the cause's chip says, and the likeliest cause with its share`);
        assert.deepEqual(got.cands, ["invalid_label", "index_out_of_bounds", "invalid_value"], `${name}: the usual causes in the article's order`);
        assert.equal(got.head, lang === "en" ? "How often each cause is behind this error" : "各原因在此类错误中的占比", name);
        const share = Math.round(top.confidence * 100);
        assert.ok(got.items[0].includes(lang === "en" ? `${top.title} · ${share}% of these errors` : `${top.title} · 占此类错误的 ${share}%`), `${name}: ${got.items[0]}`);
        assert.ok(!got.items.join().match(/sure|可信度/), `${name}: shares, not certainty: ${got.items}`);
        assert.equal(got.stack, lang === "en" ? "No traceback" : "没有 traceback", `${name}: nothing to judge`);
        continue;
      }
      assert.equal(got.pct, pct, `${name}: the stated share`);
      assert.ok(got.title.includes(want.cause.title), name);
      if (basis === "stated") {
        assert.equal(got.basis, null, `${name}: a stated cause carries no hedge`);
      } else {
        assert.equal(got.basis, basis, name);
        assert.ok(got.word.startsWith(words[lang][basis]), `${name}: ${got.word}`);
      }
      assert.equal(got.note != null, basis === "prior", `${name}: the prior's note`);
      assert.deepEqual(got.cands, want.cause.candidates.map((k) => k.category), `${name}: the candidates as the CLI ranks them`);
    }
    assertSameOrigin(log, suite.srv.origin);
    await ctx.close();
  }
});

test("the probe's error pasted back is the confirmed cause: the card says so with the bad value, the bound and the line, and the steps that led here are ticked", { timeout: 60_000 }, async () => {
  for (const [lang, name, word] of [["en", "probe-caught-label.log", "Confirmed"], ["zh", "probe-caught-label-zh.log", "已确认"]]) {
    const file = path.join(ROOT, "tests/cases", name);
    const want = cliReport(file, lang);
    assert.equal(want.verdict, "confirmed", name);
    const { ctx, page, log } = await context("laptop", lang);
    await page.setInputFiles("[data-testid=file-input]", file);
    await showing(page, want.headline);
    const got = await page.evaluate(() => {
      const t = document.querySelector("[data-testid=answer-title]");
      const dl = document.querySelector("[data-testid=confirmation]");
      const ticked = [...document.querySelectorAll("input[data-action=step]")].filter((c) => c.checked).map((c) => c.dataset.step);
      return {
        verdict: document.querySelector("[data-verdict]")?.dataset.verdict,
        word: t.querySelector(".fa-basis")?.textContent ?? null,
        codes: dl ? [...dl.querySelectorAll("code")].map((c) => c.textContent) : null,
        said: dl ? [...dl.querySelectorAll("dd:not(:has(code))")].map((c) => c.textContent) : null,
        source: dl?.dataset.source,
        ticked,
      };
    });
    assert.equal(got.verdict, "confirmed", name);
    assert.ok(got.word?.startsWith(word), `${name}: ${got.word}`);
    const c = want.confirmation;
    assert.deepEqual(got.codes, [c.value, c.allowed, c.line], name);
    // The probe's own clue: the values it saw, the usual cause for this bound.
    assert.ok(c.values && c.clue, `${name}: the CLI keeps the probe's clue`);
    assert.deepEqual(got.said, [c.values, c.clue], name);
    assert.equal(got.source, "probe", name);
    assert.deepEqual(got.ticked, ["restart", "launch_blocking", "probe", "rerun"], name);
    await page.locator("[data-testid=answer]").screenshot({ path: path.join(artifactsDir(), `answer-confirmed-${lang}.png`) });
    assertSameOrigin(log, suite.srv.origin);
    await ctx.close();
  }
});

test("a notebook after the probe's rerun: the card is confirmed, the map marks where it was caught and the cells from before the probed run, the note says so (en, zh)", { timeout: 60_000 }, async () => {
  const file = path.join(ROOT, "tests/cases/probe-rerun.ipynb");
  for (const [lang, caught, before] of [["en", "caught", "before the probed run"], ["zh", "捕获之处", "探针运行之前"]]) {
    const want = cliReport(file, lang);
    assert.equal(want.verdict, "confirmed");
    const { ctx, page, log } = await context("laptop", lang);
    await page.setInputFiles("[data-testid=file-input]", file);
    await showing(page, want.headline);
    await page.locator(".fa-map.cells .mark-superseded").first().waitFor();
    const got = await page.evaluate(() => {
      const bins = [...document.querySelectorAll(".fa-map.cells .fa-bin")];
      return {
        verdict: document.querySelector("[data-verdict]")?.dataset.verdict,
        marks: bins.map((b) => b.className.replace("fa-bin mark-", "")),
        legend: [...document.querySelectorAll(".fa-legend .fa-key")].map((k) => k.textContent),
        window: document.querySelector("[data-testid=window]")?.dataset.cell,
        sr: document.querySelector("[data-testid=window] .fa-line.mark-first .fa-sr")?.textContent ?? null,
        first: document.querySelector("[data-testid=window] .fa-line.mark-first .fa-text")?.textContent ?? "",
        note: document.querySelector("[data-note=superseded]")?.textContent ?? null,
      };
    });
    assert.equal(got.verdict, "confirmed");
    // Page order: markdown, the probe [1], setup [2], the caught cell [3], the old [15] and [16], [4].
    assert.deepEqual(got.marks, ["none", "none", "none", "first", "superseded", "superseded", "none"]);
    assert.ok(got.legend[0].startsWith(caught), got.legend.join(" | "));
    assert.ok(got.legend.includes(before), got.legend.join(" | "));
    // The window opens on the probe's error, read as where it was caught.
    assert.equal(got.window, String(want.cause.evidence[0].cell));
    assert.match(got.first, /FirstAssertError: F\.cross_entropy: target out of range\./);
    assert.ok(got.sr && !/First assert|第一个断言/.test(got.sr), got.sr);
    assert.equal(got.note, want.notes.find((n) => n.id === "superseded").text);
    assert.match(got.note, /\[15\], \[16\]/);
    await page.locator("[data-testid=map]").screenshot({ path: path.join(artifactsDir(), `map-probe-rerun-${lang}.png`) });
    assertSameOrigin(log, suite.srv.origin);
    await ctx.close();
  }
});

test("a notebook, a terminal script and a server log each get their own steps, and the card's next step says the same as the checklist's probe step", { timeout: 120_000 }, async () => {
  const files = {
    notebook: path.join(ROOT, "tests/cases/colab-echoes.ipynb"),
    script: path.join(ROOT, "tests/cases/windows-indexkernel.log"),
    launch: path.join(ROOT, "tests/cases/server-vllm-workers.log"),
  };
  const next = {
    en: { notebook: "Restart the runtime, then run this cell first", script: "Put this at the top of the script", launch: "Run this in every worker of the launch" },
    zh: { notebook: "重启运行时，然后最先运行这个单元格", script: "把它放在脚本最开头", launch: "让启动的每个 worker 都运行它" },
  };
  for (const [lang, size] of [["en", "laptop"], ["zh", "phone"]]) {
    const { ctx, page, log } = await context(size, lang);
    for (const [source, file] of Object.entries(files)) {
      const want = cliReport(file, lang);
      assert.equal(want.input.source, source, `${file}: the CLI's source`);
      await page.setInputFiles("[data-testid=file-input]", file);
      await showing(page, want.headline);
      const got = await page.evaluate(() => ({
        steps: [...document.querySelectorAll("[data-testid=checklist] li[data-step]")].map((li) => li.dataset.step),
        restart: document.querySelector("[data-testid=checklist] li[data-step=restart]")?.textContent ?? null,
        probe: document.querySelector("[data-testid=checklist] li[data-step=probe] pre, [data-testid=checklist] li[data-step=probe] code")?.textContent ?? "",
        next: document.querySelector("[data-testid=next-step] p")?.textContent ?? "",
      }));
      const name = `${path.basename(file)} in ${lang}`;
      assert.deepEqual(got.steps, want.checklist.map((s) => s.id), `${name}: the CLI's steps`);
      assert.ok(got.steps.length <= 7, `${name}: ${got.steps}`);
      assert.equal(got.restart != null, source !== "script", `${name}: a script's process ended with the error, nothing to restart`);
      assert.ok(got.next.startsWith(next[lang][source]), `${name}: ${got.next}`);
      assert.ok(got.probe.includes("TorchFunctionMode"), `${name}: the probe step shows the report's one copy of the probe`);
      await page.screenshot({ path: path.join(artifactsDir(), `steps-${source}-${lang}-${SIZES[size].width}.png`), fullPage: true });
    }
    assertSameOrigin(log, suite.srv.origin);
    await ctx.close();
  }
});

test("on a phone: no bookmarklet box to drag, the notebook map's chips say what they hold and a finger can take them, the card's line has no second number, the status line does not repeat the headline", { timeout: 120_000 }, async () => {
  const touch = { isMobile: true, hasTouch: true, reducedMotion: "reduce" };
  for (const lang of ["en", "zh"]) {
    const { ctx, page, log } = await context("phone", lang, touch);
    // The box for the bookmarklet is built (make web made one) but not shown: nothing to drag it to.
    await page.waitForSelector("[data-testid=install]:not([hidden])", { state: "attached" });
    assert.equal(await page.locator("[data-testid=install]").isVisible(), false);
    await page.click("[data-testid=demo-echoes]");
    const want = cliReport(path.join(WWW, "demo/echoes-later-cells.ipynb"), lang);
    await showing(page, want.headline);
    const chips = await page.locator("[data-testid=map] .fa-bin").evaluateAll((els) =>
      els.map((e) => ({ text: e.textContent, mark: [...e.classList].find((c) => c.startsWith("mark-")), h: e.getBoundingClientRect().height, button: e.tagName === "BUTTON", visible: e.checkVisibility() })),
    );
    const words = { "mark-first": { en: "first assert", zh: "第一个断言" }, "mark-echo": { en: "echo", zh: "连带报错" } };
    for (const [mark, word] of Object.entries(words)) {
      const marked = chips.filter((c) => c.mark === mark);
      assert.ok(marked.length >= 1, `${lang}: no ${mark} chip in ${JSON.stringify(chips)}`);
      for (const c of marked) {
        assert.ok(c.visible && c.text.includes(word[lang]), `${lang}: ${JSON.stringify(c)} does not say ${word[lang]}`);
        assert.ok(c.h >= 44, `${lang}: a ${mark} chip is ${c.h} px high`);
      }
    }
    for (const c of chips.filter((c) => c.button)) assert.ok(c.h >= 44, `${lang}: ${JSON.stringify(c)}`);
    // The place is named once: the chip above the card's line, not again in a gutter.
    assert.equal(await page.locator("[data-testid=first-assert-line] .fa-no").count(), 0);
    // The status line shows where the input came from; the verdict is read out, not shown twice.
    const status = page.locator("[data-testid=status]");
    assert.equal(await status.textContent(), `echoes-later-cells.ipynb · ${want.headline}`);
    const shown = await status.evaluate((s) => [...s.childNodes].filter((n) => n.nodeType === 3).map((n) => n.textContent).join(""));
    assert.equal(shown, "echoes-later-cells.ipynb");
    const hidden = await status.locator(".fa-sr").boundingBox();
    assert.ok(hidden.width <= 1 && hidden.height <= 1, JSON.stringify(hidden));
    assert.deepEqual(await sideways(page).then(([w, vw]) => w <= vw), true);
    await page.waitForFunction(() => {
      const r = document.querySelector("[data-testid=answer-title]").getBoundingClientRect();
      return r.top >= 0 && r.bottom <= window.innerHeight;
    });
    await page.screenshot({ path: path.join(artifactsDir(), `phone-answer-${lang}.png`) });
    await page.locator("[data-testid=map]").screenshot({ path: path.join(artifactsDir(), `phone-map-${lang}.png`) });
    assertSameOrigin(log, suite.srv.origin);
    await ctx.close();
  }
  // At a laptop's width with a mouse, the box is there to drag.
  const { ctx, page } = await context("laptop", "en");
  await page.waitForSelector("[data-testid=install]:not([hidden])");
  assert.equal(await page.locator("[data-testid=install]").isVisible(), true);
  await ctx.close();
});

test("a person's own report reads as described, an advice article as mentioned: the card says so in both languages", { timeout: 90_000 }, async () => {
  const described = path.join(ROOT, "tests/shape/described/forum-zh.txt");
  const advice = path.join(ROOT, "tests/shape/mentioned/advice-es-own-line.txt");
  for (const lang of ["en", "zh"]) {
    const { ctx, page, log } = await context("laptop", lang);
    // Described: a device-side assert, its sentence marked, no traceback verdict, no echoes,
    // and the note that says what to paste instead.
    const want = cliReport(described, lang);
    assert.equal(want.first_assert.kind, "described");
    await page.setInputFiles("[data-testid=file-input]", described);
    await showing(page, want.headline);
    assert.equal(await page.locator("[data-testid=report]").getAttribute("data-verdict"), "device_assert");
    assert.equal(await page.locator("[data-testid=stack-verdict]").count(), 0, "no traceback to judge");
    assert.equal(await page.locator("[data-testid=echo]").count(), 0);
    assert.equal(await page.locator("[data-note=described]").count(), 1);
    assert.match(await page.locator("[data-testid=described]").textContent(), lang === "en" ? /Described in words, not shown/ : /只是文字描述，没有贴出输出/);
    assert.match(await page.locator("[data-testid=answer]").getAttribute("data-headline"), lang === "en" ? /describes a device-side assert/ : /用文字描述了一次设备端断言/);
    await page.locator("[data-testid=answer]").screenshot({ path: path.join(artifactsDir(), `described-card-${lang}-1280.png`) });
    // Mentioned: clean, the quotation listed under "Seen but not counted" with its reason.
    await page.setInputFiles("[data-testid=file-input]", advice);
    await page.waitForSelector("[data-testid=report][data-verdict=clean]");
    const seen = page.locator("[data-testid=quoted]");
    await seen.waitFor();
    // Its heading names the error first; the quotation under it is listed too.
    assert.match(await seen.textContent(), lang === "en" ? /line 1 names the error in a heading/ : /第 1 行在标题中提到了这个错误/);
    assert.deepEqual(await seen.locator("li").evaluateAll((ls) => ls.map((l) => l.dataset.line)), ["1", "5"]);
    await page.locator("[data-testid=answer]").screenshot({ path: path.join(artifactsDir(), `mentioned-card-${lang}-1280.png`) });
    assertSameOrigin(log, suite.srv.origin);
    await ctx.close();
  }
});

test("a long evidence line is quoted around what matched, and its jump shows the whole line", { timeout: 60_000 }, async () => {
  const file = path.join(ROOT, "tests/lineage/lineage-head-warning-counts.ipynb");
  const want = cliReport(file);
  const long = want.cause.evidence.find((e) => e.text.startsWith("…") || e.text.endsWith("…"));
  assert.ok(long, JSON.stringify(want.cause.evidence));
  const { ctx, page, log } = await context("laptop", "en");
  await page.setInputFiles("[data-testid=file-input]", file);
  await showing(page, want.headline);
  const item = page.locator(".fa-evidence li").filter({ hasText: "newly initialized" });
  assert.equal(await item.locator("code").textContent(), long.text);
  assert.ok([...long.text].length <= 161, long.text);
  await item.locator(".fa-jump").click();
  const line = page.locator(`[data-testid=window][data-line="${long.line}"] .fa-line.target .fa-text`);
  await line.waitFor();
  const whole = await line.textContent();
  assert.ok(whole.length > long.text.length && whole.includes("['classifier.bias', 'classifier.weight']"), whole);
  assertSameOrigin(log, suite.srv.origin);
  await ctx.close();
});

test("the hint to drop a file shows where a file can be dropped (a mouse), not on a touch screen", { timeout: 60_000 }, async () => {
  for (const [name, extra, shown] of [
    ["laptop", {}, true],
    ["phone", { hasTouch: true, isMobile: true }, false],
  ]) {
    const { ctx, page, log } = await context(name, "en", extra);
    assert.equal(await page.locator("[data-testid=drop-hint]").isVisible(), shown, name);
    assert.equal(await page.locator("[data-testid=file-input]").count(), 1, `${name}: the file button is there`);
    assertSameOrigin(log, suite.srv.origin);
    await ctx.close();
  }
});

