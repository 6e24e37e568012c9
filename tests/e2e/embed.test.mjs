// Embedded mode end to end: a host page on another origin frames or opens the page, sends
// notebook cells with the protocol of www/protocol.js and gets back where the first assert
// is. Hosts outside the allowlist get nothing.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { serve, hostServer, launch, cliReport, artifactsDir, WWW } from "./lib.mjs";

const NOTEBOOK = path.join(WWW, "demo/echoes-later-cells.ipynb");

// The host: records every message it gets, and sends what the test asks for.
const HOST_HTML = `<!doctype html><meta charset="utf-8"><title>host</title><body><script>
window.results = [];
window.addEventListener("message", (e) => window.results.push({ via: "window", origin: e.origin, data: e.data }));
window.openFrame = (url) => new Promise((done) => {
  const f = document.createElement("iframe");
  f.width = 900; f.height = 700; f.src = url; f.onload = () => done();
  document.body.append(f); window.target = f.contentWindow;
});
window.openPopup = (url) => { window.target = window.open(url, "first-assert"); };
window.send = (msg, targetOrigin, viaPort) => {
  if (!viaPort) return window.target.postMessage(msg, targetOrigin);
  const ch = new MessageChannel();
  ch.port1.onmessage = (e) => window.results.push({ via: "port", data: e.data });
  window.target.postMessage(msg, targetOrigin, [ch.port2]);
};
</script></body>`;

let srv, host, browser;
before(async () => {
  srv = await serve();
  host = await hostServer({ "/host.html": HOST_HTML });
  // evil.test: a host name outside the allowlist, served by the same local host server.
  browser = await launch(["--host-resolver-rules=MAP evil.test 127.0.0.1"]);
});
after(async () => {
  await browser?.close();
  host?.close();
  srv?.close();
});

const waitResult = (page, pred) => page.waitForFunction(pred, null, { timeout: 15_000 });

test("an allowed host frames the page, sends cells over a MessageChannel, gets the first assert", { timeout: 60_000 }, async () => {
  const ctx = await browser.newContext({ locale: "en-US" });
  const page = await ctx.newPage();
  const requests = [];
  page.on("request", (r) => requests.push(r.url()));
  await page.goto(`http://localhost:${host.port}/host.html`);
  await page.evaluate((u) => window.openFrame(u), `${srv.url}?embed`);
  await waitResult(page, () => window.results.some((r) => r.data?.type === "first-assert:ready"));
  const ready = await page.evaluate(() => window.results.find((r) => r.data?.type === "first-assert:ready"));
  assert.equal(ready.origin, srv.origin);
  assert.equal(ready.data.protocol, 1);

  const cells = JSON.parse(readFileSync(NOTEBOOK, "utf8")).cells;
  const want = cliReport(NOTEBOOK);
  await page.evaluate(
    ([cells, origin]) => window.send({ type: "first-assert:analyze", protocol: 1, id: "nb-1", cells, title: "Untitled0.ipynb" }, origin, true),
    [cells, srv.origin],
  );
  await waitResult(page, () => window.results.some((r) => r.via === "port" && r.data?.type === "first-assert:result"));
  const res = (await page.evaluate(() => window.results.find((r) => r.data?.type === "first-assert:result"))).data;
  assert.equal(res.id, "nb-1");
  assert.equal(res.verdict, want.verdict);
  assert.equal(res.category, want.cause.category);
  assert.equal(res.first.cell, want.first_assert.cell);
  assert.equal(res.first.line, want.first_assert.line);
  assert.deepEqual(res.echoes.map((e) => e.cell), want.echoes.map((e) => e.cell));

  // The framed page shows the report; a jump in it asks the host to reveal the cell.
  const frame = page.frames().find((f) => f.url().startsWith(srv.url));
  assert.equal(await frame.locator("[data-testid=cause]").getAttribute("data-category"), want.cause.category);
  await frame.locator("[data-testid=echoes] summary").click();
  await frame.locator("[data-testid=echo] [data-action=jump]").last().click();
  await waitResult(page, () => window.results.some((r) => r.data?.type === "first-assert:reveal"));
  const reveal = (await page.evaluate(() => window.results.find((r) => r.data?.type === "first-assert:reveal"))).data;
  assert.equal(reveal.cell, want.echoes.at(-1).cell);
  // The panel offers the page's sharing: a link to the page that carries the report.
  await frame.locator("[data-testid=share-link]").click();
  await frame.waitForFunction(() => /KB/.test(document.querySelector("[data-testid=share-note]")?.textContent ?? ""));
  assert.match(await frame.locator("[data-testid=share-note]").textContent(), /The link is [\d.]+ KB/);
  await page.screenshot({ path: path.join(artifactsDir(), "embedded.png") });

  // Messages that break the schema are refused with a reason.
  for (const [bad, reason] of [
    [{ type: "first-assert:analyze", protocol: 1, id: "x1", cells, evil: "<img>" }, /unknown field "evil"/],
    [{ type: "first-assert:analyze", protocol: 2, id: "x2", cells }, /protocol 2/],
    [{ type: "first-assert:analyze", protocol: 1, id: "x3", cells: [{ outputs: "no" }] }, /outputs: not an array/],
    [{ type: "first-assert:analyze", protocol: 1, id: "x4", cells, text: "both" }, /exactly one of cells and text/],
    [{ type: "first-assert:launch", protocol: 1 }, /unknown message type/],
  ]) {
    const n = await page.evaluate(() => window.results.length);
    await page.evaluate(([m, o]) => window.send(m, o, true), [bad, srv.origin]);
    await waitResult(page, (n) => window.results.length > n, n);
    const got = (await page.evaluate(() => window.results.at(-1))).data;
    assert.equal(got.type, "first-assert:error", JSON.stringify(got));
    assert.match(got.message, reason);
  }
  for (const u of requests) assert.ok(!u.startsWith("http") || u.startsWith(srv.origin) || u.startsWith(`http://localhost:${host.port}/`), u);
  await ctx.close();
});

test("a text request over plain postMessage is answered to the sender's origin", { timeout: 60_000 }, async () => {
  const ctx = await browser.newContext({ locale: "en-US" });
  const page = await ctx.newPage();
  await page.goto(`http://localhost:${host.port}/host.html`);
  await page.evaluate((u) => window.openFrame(u), `${srv.url}?embed`);
  await waitResult(page, () => window.results.some((r) => r.data?.type === "first-assert:ready"));
  const text = readFileSync(path.join(WWW, "demo/bce-range.log"), "utf8");
  await page.evaluate(([t, o]) => window.send({ type: "first-assert:analyze", protocol: 1, id: 7, text: t, lang: "zh" }, o, false), [text, srv.origin]);
  await waitResult(page, () => window.results.some((r) => r.data?.type === "first-assert:result"));
  const r = await page.evaluate(() => window.results.find((r) => r.data?.type === "first-assert:result"));
  assert.equal(r.via, "window");
  assert.equal(r.origin, srv.origin);
  assert.equal(r.data.id, 7);
  assert.equal(r.data.headline, cliReport(path.join(WWW, "demo/bce-range.log"), "zh").headline);
  await ctx.close();
});

test("a host outside the allowlist learns nothing", { timeout: 60_000 }, async () => {
  const ctx = await browser.newContext({ locale: "en-US" });
  const page = await ctx.newPage();
  await page.goto(`http://evil.test:${host.port}/host.html`);
  const popupPromise = ctx.waitForEvent("page");
  await page.evaluate((u) => window.openPopup(u), `${srv.url}?embed`);
  const popup = await popupPromise;
  await popup.waitForSelector("html[data-ready=true]");
  const cells = JSON.parse(readFileSync(NOTEBOOK, "utf8")).cells;
  await page.evaluate(([cells, o]) => window.send({ type: "first-assert:analyze", protocol: 1, id: "steal", cells }, o, false), [cells, srv.origin]);
  await page.evaluate(([o]) => window.send({ type: "first-assert:analyze", protocol: 1, id: "steal2", cells: [], evil: 1 }, o, true), [srv.origin]);
  await popup.waitForFunction(() => /not accepted/.test(document.querySelector("[data-testid=status]").textContent));
  await page.waitForTimeout(500);
  const got = await page.evaluate(() => window.results.map((r) => r.data?.type));
  assert.deepEqual(got.filter((t) => t !== "first-assert:ready"), [], "no answer to a foreign origin");
  assert.equal(await popup.locator("[data-testid=cause]").count(), 0, "nothing was analysed");
  await ctx.close();
});
