// Sharing: the page's Markdown is the CLI's, byte for byte, on every test input in both
// languages (share.js in Node, on the CLI's own JSON report); in headless Chromium, "Copy as
// Markdown" puts that text on the clipboard, "Copy link" a link that opens, in a fresh
// browser, the same report read-only with no input box, and hostile, truncated, oversized and
// newer links give a clear message and render nothing, with no request leaving the origin.

import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync, readdirSync } from "node:fs";
import { deflateRawSync } from "node:zlib";
import path from "node:path";
import { pageSuite, openPage, cliReport, assertSameOrigin, ROOT, WWW, CLI } from "./lib.mjs";
import { Sharer, inputText, unpack, LINK_BUDGET } from "../../www/share.js";

// What the page hands share.js: the table and the texts of its share document, over the catalogue's.
const read = (f) => JSON.parse(readFileSync(path.join(WWW, "pkg", f), "utf8"));
const TABLE = read("share.en.json").table;
const MESSAGES = Object.fromEntries(["en", "zh"].map((l) => [l, { ...read(`first-assert.${l}.json`).messages, ...read(`share.${l}.json`).messages }]));

/** `first-assert --format markdown` on a file (exit status 1 means an assert was found). */
function cliMarkdown(file, lang, redact = true) {
  const args = ["--format", "markdown", "--lang", lang, ...(redact ? [] : ["--no-redact"]), file];
  try {
    return execFileSync(CLI, args, { maxBuffer: 1 << 28, stdio: ["ignore", "pipe", "ignore"] }).toString("utf8");
  } catch (e) {
    if (e.status !== 1) throw e;
    return e.stdout.toString("utf8");
  }
}

function inputs() {
  const dir = (d) => readdirSync(path.join(ROOT, d)).filter((f) => /\.(log|ipynb)$/.test(f)).map((f) => path.join(ROOT, d, f));
  return [...dir("tests/cases"), ...dir("tests/share"), ...dir("www/demo")];
}

const b64url = (bytes) => Buffer.from(bytes).toString("base64url");
const link = (payload) => `#r1.${b64url(deflateRawSync(Buffer.from(typeof payload === "string" ? payload : JSON.stringify(payload))))}`;

const suite = pageSuite();

test("the page's Markdown is the CLI's, byte for byte, on every test input, in both languages, redacted or not", { timeout: 240_000 }, () => {
  const files = inputs();
  assert.ok(files.length >= 40, `only ${files.length} inputs`);
  let hiddenSomewhere = 0;
  for (const file of files) {
    const bytes = readFileSync(file);
    for (const lang of ["en", "zh"]) {
      const s = new Sharer(TABLE, MESSAGES[lang]);
      const seen = s.seen(inputText({ bytes, name: file }));
      let report;
      try {
        report = cliReport(file, lang);
      } catch (e) {
        if (e.status === 2) continue; // an input the engine refuses (a broken notebook): no report to share
        throw e;
      }
      for (const hide of [true, false]) {
        const ours = s.markdown(report, seen, hide);
        assert.equal(ours.markdown, cliMarkdown(file, lang, hide), `${path.relative(ROOT, file)} in ${lang}${hide ? "" : ", not redacted"}`);
        if (hide && Object.values(ours.hidden).some((n) => n > 0)) hiddenSomewhere++;
      }
    }
  }
  assert.ok(hiddenSomewhere >= 2, "no test input had anything to hide: the comparison does not reach the redaction");
});

test("both readers of the table change every example and keep every near miss", () => {
  const s = new Sharer(TABLE, MESSAGES.en);
  for (const row of TABLE.redact) {
    for (const ex of row.examples) {
      const counts = s.counts();
      const out = s.redact(ex, counts);
      assert.notEqual(out, ex, `${row.pattern} left ${ex}`);
      assert.ok(counts[row.kind] > 0, `${ex} is not counted as ${row.kind}`);
    }
    for (const keep of row.keeps) assert.equal(s.redact(keep), keep, `${row.pattern} changed the near miss ${keep}`);
  }
  for (const row of TABLE.version) for (const ex of row.examples) assert.ok(s.seen(ex).some(([w]) => w === row.what), `${row.pattern} does not read ${ex}`);
});

test("Copy as Markdown and Copy link from the page; the link opens the same report read-only in a fresh browser", { timeout: 120_000 }, async () => {
  const sizes = [];
  for (const [demo, file, lang] of [["demo-colab", "colab-nll-labels.ipynb", "en"], ["demo-vocab", "embedding-vocab.log", "zh"], ["demo-bce", "bce-range.log", "en"], ["demo-echoes", "echoes-later-cells.ipynb", "en"], ["demo-clean", "clean.log", "en"]]) {
    const ctx = await suite.browser.newContext({ locale: lang === "zh" ? "zh-CN" : "en-US" });
    await ctx.grantPermissions(["clipboard-read", "clipboard-write"], { origin: suite.srv.origin });
    const { page, log } = await openPage(ctx, `${suite.srv.url}?lang=${lang}&nosw`);
    await page.click(`[data-testid=${demo}]`);
    const want = cliReport(path.join(WWW, "demo", file), lang);
    await page.waitForFunction((h) => document.querySelector("[data-testid=answer]")?.dataset.headline === h, want.headline);
    assert.equal(await page.locator("[data-testid=share-hide]").isChecked(), true, "personal data is hidden by default");

    await page.click("[data-testid=share-markdown]");
    const md = cliMarkdown(path.join(WWW, "demo", file), lang);
    await page.waitForFunction(async (m) => (await navigator.clipboard.readText()) === m, md);
    assert.match(await page.locator("[data-testid=share-note]").textContent(), /Copied|已复制/);

    await page.click("[data-testid=share-link]");
    await page.waitForFunction(async () => (await navigator.clipboard.readText()).includes("#r1."));
    const url = await page.evaluate(() => navigator.clipboard.readText());
    assert.ok(url.startsWith(suite.srv.url), url.slice(0, 80));
    assert.ok(url.length <= LINK_BUDGET, `${file}: the link is ${url.length} characters`);
    sizes.push(`${file} (${lang}): ${url.length} characters`);
    assertSameOrigin(log, suite.srv.origin);
    await ctx.close();

    // A fresh browser context: no storage, no session, only the link.
    const fresh = await suite.browser.newContext({ locale: "en-US" });
    const { page: p2, log: log2 } = await openPage(fresh, url);
    await p2.waitForSelector("[data-testid=answer]");
    assert.equal(await p2.locator("[data-testid=answer]").getAttribute("data-headline"), want.headline);
    if (want.cause && want.cause.rule !== "no-evidence") assert.ok((await p2.locator("[data-testid=answer-title]").textContent()).includes(want.cause.title));
    assert.equal(await p2.locator("[data-testid=input-panel]").isVisible(), false, "the input box waits until asked for");
    assert.equal(await p2.locator("[data-testid=shared-banner]").isVisible(), true);
    if (want.checklist.length && want.verdict !== "clean") assert.ok((await p2.locator("[data-testid=checklist]").count()) === 1);
    assertSameOrigin(log2, suite.srv.origin);
    assert.deepEqual(log2.errors, []);
    await p2.click("[data-testid=shared-own]");
    assert.equal(await p2.locator("[data-testid=input-panel]").isVisible(), true);
    assert.equal(await p2.evaluate(() => location.hash), "");
    await fresh.close();
  }
  console.log(`link lengths: ${sizes.join("; ")}`);
});

test("a link keeps no personal data unless asked, and a long report is cut to fit and says so", { timeout: 60_000 }, async () => {
  const file = path.join(ROOT, "tests/share/personal.log");
  const report = cliReport(file, "en");
  const s = new Sharer(TABLE, MESSAGES.en);
  const seen = s.seen(inputText({ bytes: readFileSync(file) }));
  const hidden = await s.link("http://x/", report, seen, true);
  const back = await unpack(hidden.url.slice("http://x/".length));
  const json = JSON.stringify(back);
  for (const p of ["mlin", "m.lin@example.org", "10.42.7.19", "clients/acme"]) assert.ok(!json.includes(p), `${p} is in the link`);
  assert.ok(hidden.hidden.user >= 1 && hidden.hidden.email === 1 && hidden.hidden.ip === 1);
  const kept = await unpack((await s.link("http://x/", report, seen, false)).url.slice(9));
  assert.ok(JSON.stringify(kept).includes("m.lin@example.org"), "unticked, the link keeps what it shows");

  // A report with many long context lines and echoes: cut, in the order the page says.
  const big = structuredClone(report);
  big.first_assert.context = Array.from({ length: 40 }, (_, i) => ({ line: i + 1, text: `${i} ${Math.random().toString(36).repeat(8)}` }));
  // (The log's one host error is the assert's report, not an echo: the echoes are made up.)
  const echo = { text: "", line: 0, cell: null, output: null, execution_count: null, where: "", kind: "device_assert", exception: "RuntimeError" };
  big.echoes = Array.from({ length: 200 }, (_, i) => ({ ...echo, line: 100 + i, where: `line ${100 + i}`, text: `echo ${i} ${Math.random().toString(36)}` }));
  const cut = await s.link("http://x/", big, seen, true);
  assert.ok(cut.cut >= 1 && cut.url.length <= LINK_BUDGET, `cut ${cut.cut}, ${cut.url.length} characters`);
  assert.deepEqual((await unpack(cut.url.slice(9))).report.first_assert.context, []);
});

test("hostile, tampered, truncated, oversized and newer links: a clear message, text only, nothing run", { timeout: 90_000 }, async () => {
  const good = cliReport(path.join(WWW, "demo/embedding-vocab.log"), "en");
  const goodLink = link({ v: 1, report: good, seen: [], cut: 0 });
  const evil = structuredClone(good);
  evil.headline = `<img src=x onerror="window.__pwned=1">`;
  evil.cause.title = `<script>window.__pwned=1</script>`;
  evil.checklist[0].code = `"><svg onload="window.__pwned=1">`;
  const bomb = `#r1.${b64url(deflateRawSync(Buffer.from(`{"v":1,"report":"${"A".repeat(4 << 20)}"}`)))}`;
  const cases = [
    ["truncated", goodLink.slice(0, Math.floor(goodLink.length / 2)), "damaged"],
    ["tampered", goodLink.slice(0, 40) + "!!" + goodLink.slice(42), "damaged"],
    ["not base64", "#r1.%%%%", "damaged"],
    ["not JSON", link("{not json"), "damaged"],
    ["wrong types", link({ v: 1, report: { ...good, first_assert: { ...good.first_assert, line: "one" } } }), "damaged"],
    ["no report", link({ v: 1 }), "damaged"],
    // A link made before reports carried their places' words (2026-12-01 to -03, before any
    // release): asked for again, it carries them.
    ["places without words", link({ v: 1, report: JSON.parse(JSON.stringify(good, (k, v) => (k === "where" ? undefined : v))) }), "damaged"],
    ["newer", link({ v: 2, report: good }), "unsupported"],
    ["newer prefix", `#r2.${goodLink.slice(4)}`, "unsupported"],
    ["oversized", `#r1.${"A".repeat(70 << 10)}`, "too_long"],
    ["inflates past 1 MB", bomb, "too_long"],
  ];
  const ctx = await suite.browser.newContext({ locale: "en-US" });
  for (const [name, hash, code] of cases) {
    const { page, log } = await openPage(ctx, `${suite.srv.url}?nosw${hash}`);
    await page.waitForFunction(() => document.querySelector("[data-testid=status]")?.classList.contains("error"));
    const said = await page.locator("[data-testid=status]").textContent();
    const want = MESSAGES.en[`page_shared_error_${code}`];
    assert.equal(said, want, `${name}: ${said}`);
    assert.equal(await page.locator("[data-testid=answer]").count(), 0, `${name}: a report was shown`);
    assertSameOrigin(log, suite.srv.origin);
    await page.close();
  }
  // Markup in a well-formed report is text: shown as written, never parsed or run.
  const { page, log } = await openPage(ctx, `${suite.srv.url}?nosw${link({ v: 1, report: evil, seen: [["gpu", "<b>T4</b>"]], cut: 0 })}`);
  await page.waitForSelector("[data-testid=answer]");
  assert.equal(await page.locator("[data-testid=answer]").getAttribute("data-headline"), evil.headline);
  assert.ok((await page.locator("[data-testid=answer-title]").textContent()).includes("<script>"));
  assert.equal(await page.locator("#report img, #report script, #report svg").count(), 0);
  assert.equal(await page.evaluate(() => window.__pwned), undefined);
  assertSameOrigin(log, suite.srv.origin);
  await ctx.close();
});
