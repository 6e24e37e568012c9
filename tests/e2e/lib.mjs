// Shared by the end-to-end tests and the benchmark: the project's own static server
// (examples/serve.rs, as `make serve` runs it), Debian's Chromium driven by playwright-core,
// and the native CLI's reports to compare the page with.

import { spawn, execFileSync } from "node:child_process";
import { createServer } from "node:http";
import { mkdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import path from "node:path";
import { before, after } from "node:test";
import { chromium } from "playwright-core";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const WWW = path.join(ROOT, "www");
export const ARTIFACTS = path.join(ROOT, "tests/e2e/artifacts");
export const CLI = path.join(ROOT, "target/release/first-assert");
const SERVE = path.join(ROOT, "target/release/examples/serve");

/** The flags that work on these machines (DESIGN.md). */
export const FLAGS = [
  "--headless=new",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-dev-shm-usage",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

/** Every request of a page (its `log` from openPage) went to `origin` (or was inline data),
 * and nothing failed or broke the CSP. */
export function assertSameOrigin(log, origin) {
  if (log.requests.length === 0) throw new Error("no request was logged");
  for (const u of log.requests) {
    if (!(u.startsWith(origin + "/") || u.startsWith("data:"))) throw new Error(`request left the origin: ${u}`);
  }
  if (log.errors.length) throw new Error(`page or console errors: ${log.errors.join("; ")}`);
  if (log.violations.length) throw new Error(`CSP violations: ${log.violations.join("; ")}`);
}

/** Starts examples/serve on a free port; resolves to { url, origin, port, close }. */
export function serve(root = WWW) {
  return new Promise((resolve, reject) => {
    const child = spawn(SERVE, ["--root", root, "--port", "0"], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.on("error", reject);
    child.on("exit", (code) => reject(new Error(`serve exited with ${code}; run \`make web\` and build the serve example first`)));
    child.stdout.on("data", (d) => {
      out += d;
      const m = out.match(/http:\/\/([\d.]+):(\d+)\//);
      if (m) {
        const url = m[0];
        resolve({ url, origin: url.slice(0, -1), port: Number(m[2]), close: () => child.kill() });
      }
    });
  });
}

/** A tiny server for pages that play the host in embedded mode; routes: { "/path": html }. */
export function hostServer(routes) {
  return new Promise((resolve) => {
    const srv = createServer((req, res) => {
      const body = routes[new URL(req.url, "http://x").pathname];
      res.writeHead(body ? 200 : 404, { "Content-Type": "text/html; charset=utf-8" });
      res.end(body ?? "not found");
    });
    srv.listen(0, "127.0.0.1", () => resolve({ port: srv.address().port, close: () => srv.close() }));
  });
}

export async function launch(extraArgs = []) {
  return chromium.launch({ executablePath: "/usr/bin/chromium", args: [...FLAGS, ...extraArgs] });
}

/**
 * A page that records every request, console error, page error and CSP violation, so tests
 * can assert that none left the origin and nothing broke.
 */
export async function openPage(context, url) {
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  const log = { requests: [], errors: [], violations: [] };
  page.on("request", (r) => log.requests.push(r.url()));
  page.on("pageerror", (e) => log.errors.push(String(e)));
  page.on("console", (m) => {
    if (m.type() === "error") log.errors.push(m.text());
    if (/Content.Security.Policy/i.test(m.text())) log.violations.push(m.text());
  });
  await page.goto(url);
  await page.waitForSelector("html[data-ready=true]");
  return { page, log };
}

/** The page's server and one headless Chromium for a test file: started before its tests,
 * closed after them. Read `suite.srv` and `suite.browser` inside the tests. */
export function pageSuite() {
  const suite = { srv: null, browser: null };
  before(async () => {
    suite.srv = await serve();
    suite.browser = await launch();
  });
  after(async () => {
    await suite.browser?.close();
    suite.srv?.close();
  });
  return suite;
}

/** The native CLI's report on a file (exit code 1 means "found something", not failure). */
export function cliReport(file, lang = "en") {
  let out;
  try {
    out = execFileSync(CLI, ["--json", "--lang", lang, file], { maxBuffer: 1 << 28 });
  } catch (e) {
    if (e.status !== 1) throw e;
    out = e.stdout;
  }
  return JSON.parse(out.toString("utf8"));
}

export function artifactsDir() {
  mkdirSync(ARTIFACTS, { recursive: true });
  return ARTIFACTS;
}

/** The WebAssembly package, loaded into Node (the same V8 as Chromium). */
export async function engine() {
  const pkg = await import(path.join(WWW, "pkg/first_assert.js"));
  pkg.initSync({ module: readFileSync(path.join(WWW, "pkg/first_assert_bg.wasm")) });
  for (const l of ["en", "zh"]) pkg.setCatalogue(readFileSync(path.join(WWW, `pkg/first-assert.${l}.json`), "utf8"));
  return pkg;
}

let loaded;
/** The engine's report on a notebook as a file (what the CLI would say about the .ipynb). */
export async function fileReport(nb) {
  const pkg = await (loaded ??= engine());
  const s = new pkg.Session();
  try {
    return s.analyzeBytes(new TextEncoder().encode(JSON.stringify(nb)), "x.ipynb", {});
  } finally {
    s.free();
  }
}
