// Where users are (make bench): time from the action to marks and panel on a 100-cell
// Colab-like notebook, for the extension (toolbar action) and the bookmarklet, and the sizes
// of both. Medians of several runs in headless Chromium on this machine.

import { mkdtempSync, readdirSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { chromium } from "playwright-core";
import { FLAGS, ROOT, launch, serve } from "./lib.mjs";
import { startHosts, COLAB } from "./hosts.mjs";
import { build } from "../../scripts/build-bookmarklet.mjs";

const RUNS = Number(process.env.RUNS ?? 7);
const EXT = path.join(ROOT, "dist/extension");
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (xs) => `median ${median(xs)} ms (min ${Math.min(...xs)}, max ${Math.max(...xs)}, n=${xs.length})`;
const size = (dir) => readdirSync(dir).reduce((t, f) => t + (statSync(path.join(dir, f)).isDirectory() ? size(path.join(dir, f)) : statSync(path.join(dir, f)).size), 0);

const hosts = await startHosts();
const srv = await serve();
const url = hosts.colabUrl("long.ipynb", "?model=0");
try {
  const b = build(srv.origin);
  console.log(`bookmarklet: ${b.code.length} bytes of code, ${b.url.length} bytes as a javascript: URL`);
  console.log(`extension: ${size(EXT)} bytes unpacked (dist/extension)`);
  console.log(`notebook: ${hosts.nbs["long.ipynb"].cells.length} cells (${COLAB} fixture, errors in outputframes)`);

  // The extension: automatic mode off, then the toolbar action.
  const ctx = await chromium.launchPersistentContext(mkdtempSync(path.join(tmpdir(), "fa-bench-")), {
    executablePath: "/usr/bin/chromium",
    headless: false,
    ignoreDefaultArgs: ["--disable-extensions"],
    args: [...FLAGS, `--disable-extensions-except=${EXT}`, `--load-extension=${EXT}`, ...hosts.chromiumArgs],
  });
  const sw = ctx.serviceWorkers()[0] ?? (await ctx.waitForEvent("serviceworker"));
  await sw.evaluate(() => chrome.storage.sync.set({ auto: false }));
  const ext = [];
  for (let i = 0; i < RUNS; i++) {
    const page = await ctx.newPage();
    await page.goto(url);
    await page.waitForTimeout(300); // the content script is in
    const id = await sw.evaluate(async () => Math.max(...(await chrome.tabs.query({})).map((t) => t.id)));
    const t0 = Date.now();
    await sw.evaluate((id) => scanTab({ id }), id);
    await page.waitForSelector("[data-first-assert]");
    const panel = page.frames().find((f) => f.url().startsWith("chrome-extension://"));
    await panel.locator("[data-testid=cause]").waitFor();
    ext.push(Date.now() - t0);
    await page.close();
  }
  await ctx.close();
  console.log(`extension, toolbar action to marks and panel: ${fmt(ext)}`);

  // The bookmarklet: its code run in the page, to the popup's report and the page's marks.
  const browser = await launch(hosts.chromiumArgs);
  const bm = [];
  for (let i = 0; i < RUNS; i++) {
    const c = await browser.newContext();
    const page = await c.newPage();
    await page.goto(url);
    const popupP = c.waitForEvent("page");
    const t0 = Date.now();
    await page.evaluate(b.code);
    const popup = await popupP;
    await popup.locator("[data-testid=cause]").waitFor();
    await page.waitForSelector("[data-first-assert]");
    bm.push(Date.now() - t0);
    await c.close();
  }
  await browser.close();
  console.log(`bookmarklet, click to popup report and marks (popup load included): ${fmt(bm)}`);
} finally {
  srv.close();
  hosts.close();
}
