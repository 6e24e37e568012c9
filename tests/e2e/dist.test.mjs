// make dist's artefacts, as a user would use them: the site served from a sub-path by a plain
// static server (Python's http.server, not our serve) in headless Chromium, offline after the
// first visit; its bookmarklet for that origin; the extension's zips, unpacked and linted; the
// npm tarball installed into a scratch project and used under Node; the CLI's tarball; one
// version everywhere (Cargo.toml's).

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, execFileSync } from "node:child_process";
import { mkdtempSync, mkdirSync, cpSync, readFileSync, readdirSync, existsSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { launch, openPage, ROOT, WWW, assertSameOrigin } from "./lib.mjs";

const VERSION = /^version\s*=\s*"([^"]+)"/m.exec(readFileSync(path.join(ROOT, "Cargo.toml"), "utf8"))[1];
const tmp = mkdtempSync(path.join(tmpdir(), "fa-dist-"));
const OUT = path.join(tmp, "out");
const ROOTDIR = path.join(tmp, "host");
let server, origin, page, browser;

before(async () => {
  mkdirSync(ROOTDIR, { recursive: true });
  server = spawn("python3", ["-u", "-m", "http.server", "0", "--bind", "127.0.0.1", "--directory", ROOTDIR], { stdio: ["ignore", "pipe", "pipe"] });
  const port = await new Promise((resolve, reject) => {
    let out = "";
    server.stdout.on("data", (d) => {
      out += d;
      const m = /port (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    server.on("exit", (c) => reject(new Error(`http.server exited with ${c}`)));
  });
  origin = `http://127.0.0.1:${port}`;
  page = `${origin}/first-assert`;
  // make web and the release builds ran before this suite: dist takes them as they are.
  execFileSync("bash", ["scripts/dist.sh", page, OUT], { cwd: ROOT, env: { ...process.env, DIST_PREBUILT: "1" }, stdio: ["ignore", "ignore", "inherit"] });
  cpSync(path.join(OUT, "site"), path.join(ROOTDIR, "first-assert"), { recursive: true });
  browser = await launch();
});
after(async () => {
  await browser?.close();
  server?.kill();
});

const files = (dir, base = dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name), base) : [path.relative(base, path.join(dir, e.name))]));

test("the site holds what a host needs and nothing else; its bookmarklet points at the given origin", () => {
  const list = files(path.join(OUT, "site")).sort();
  for (const f of ["index.html", "style.css", "sw.js", "rules.html", "rules.js", "_headers", "pkg/app.js", "pkg/engine-worker.js", "pkg/protocol.js", "pkg/share.js", "pkg/share.en.json", "pkg/share.zh.json", "pkg/style.css", "pkg/first_assert_bg.wasm", "pkg/first-assert.en.json", "pkg/first-assert.zh.json", "pkg/bookmarklet.txt"]) {
    assert.ok(list.includes(f), `the site lacks ${f}`);
  }
  for (const f of list) {
    assert.ok(!/^(adapters|bookmarklet|extension|view)\/|\.d\.ts$|\.map$|package\.json$|^pkg\/bookmarklet\.js$|^(app|report-view|engine|engine-worker|protocol)\.js$|^pkg\/first_assert\.js$/.test(f), `the site carries ${f}`);
  }
  assert.deepEqual(list.filter((f) => f.startsWith("demo/")), readdirSync(path.join(WWW, "demo")).map((f) => "demo/" + f).sort());
  const code = decodeURIComponent(readFileSync(path.join(OUT, "site/pkg/bookmarklet.txt"), "utf8").replace(/^javascript:/, ""));
  assert.ok(code.includes(`"${page}"`) && !code.includes("__FIRST_ASSERT_PAGE__"), "the bookmarklet opens the site where it is hosted");
  // Every path the page asks for is relative (the site works from a sub-path).
  for (const f of ["index.html", "pkg/app.js", "sw.js", "pkg/engine-worker.js"]) {
    const src = readFileSync(path.join(OUT, "site", f), "utf8");
    assert.ok(!/(?:src|href)="\/[^/]|fetch\("\/|import\("\//.test(src), `${f} asks for an absolute path`);
  }
  assert.match(readFileSync(path.join(OUT, "site/_headers"), "utf8"), /Content-Security-Policy: default-src 'self'.*frame-ancestors 'self' https:\/\/colab\.research\.google\.com/);
});

test("served from a sub-path by a plain static server: a demo's report, offline after the first visit, nothing sent elsewhere", { timeout: 90_000 }, async () => {
  const ctx = await browser.newContext({ locale: "en-US" });
  const { page: p, log } = await openPage(ctx, page + "/");
  assert.equal(await p.locator("[data-testid=version]").textContent(), VERSION);
  await p.click("[data-testid=demo-bce]");
  await p.locator("[data-testid=cause]").waitFor();
  assert.equal(await p.locator("[data-testid=cause]").getAttribute("data-category"), "invalid_value");
  await p.evaluate(() => navigator.serviceWorker.ready);
  await p.waitForFunction(async () => (await caches.keys()).length > 0 && (await (await caches.open((await caches.keys())[0])).keys()).length >= 10);
  await ctx.setOffline(true);
  await p.reload();
  await p.waitForSelector("html[data-ready=true]");
  await p.click("[data-testid=demo-bce]");
  await p.locator("[data-testid=cause]").waitFor();
  assertSameOrigin(log, origin);
  await ctx.close();
});

test("the extension's zips unpack to lint-clean extensions of this version", { timeout: 120_000 }, () => {
  const lint = path.join(ROOT, "tests/e2e/node_modules/.bin/web-ext");
  for (const [zip, warnings] of [
    [`first-assert-extension-${VERSION}.zip`, ["BACKGROUND_SERVICE_WORKER_IGNORED"]],
    [`first-assert-extension-${VERSION}-firefox.zip`, []],
  ]) {
    const dir = path.join(tmp, zip.replace(/\.zip$/, ""));
    execFileSync("python3", ["-m", "zipfile", "-e", path.join(OUT, zip), dir]);
    const manifest = JSON.parse(readFileSync(path.join(dir, "manifest.json"), "utf8"));
    assert.equal(manifest.version, VERSION, zip);
    assert.ok(existsSync(path.join(dir, "page/pkg/first_assert_bg.wasm")), `${zip}: the panel's engine`);
    // Links shared from the panel point at the site the zips were made for.
    assert.ok(readFileSync(path.join(dir, "page/index.html"), "utf8").includes(`<meta name="first-assert-site" content="${page.replace(/\/$/, "")}">`), `${zip}: the site for shared links`);
    const r = JSON.parse(execFileSync(lint, ["lint", "--source-dir", dir, "--output", "json"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }));
    assert.equal(r.summary.errors, 0, `${zip}: ${JSON.stringify(r.errors)}`);
    assert.deepEqual(r.warnings.map((w) => w.code), warnings, zip);
  }
});

test("the npm tarball installs into a project and analyses a log under Node", { timeout: 120_000 }, () => {
  const pkg = JSON.parse(readFileSync(path.join(OUT, "npm/package.json"), "utf8"));
  assert.equal(pkg.version, VERSION);
  assert.equal(pkg.type, "module");
  const tgz = execFileSync("npm", ["pack", "--silent", "--pack-destination", tmp], { cwd: path.join(OUT, "npm"), encoding: "utf8" }).trim().split("\n").pop();
  const project = path.join(tmp, "project");
  mkdirSync(project);
  writeFileSync(path.join(project, "package.json"), JSON.stringify({ name: "scratch", version: "1.0.0", type: "module", private: true }));
  execFileSync("npm", ["install", "--offline", "--no-audit", "--no-fund", "--loglevel=error", path.join(tmp, tgz)], { cwd: project, stdio: ["ignore", "ignore", "inherit"] });
  writeFileSync(
    path.join(project, "main.js"),
    `import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { initSync, setCatalogue, analyze, version } from "first-assert";
const require = createRequire(import.meta.url);
initSync({ module: readFileSync(require.resolve("first-assert/first_assert_bg.wasm")) });
setCatalogue(readFileSync(require.resolve("first-assert/first-assert.zh.json"), "utf8"));
const r = analyze(readFileSync(process.argv[2], "utf8"), { lang: "zh" });
console.log(JSON.stringify({ version: version(), verdict: r.verdict, rule: r.cause && r.cause.rule, lang: r.lang }));
`,
  );
  const got = JSON.parse(execFileSync("node", ["main.js", path.join(WWW, "demo/embedding-vocab.log")], { cwd: project, encoding: "utf8" }));
  assert.deepEqual(got, { version: VERSION, verdict: "device_assert", rule: got.rule, lang: "zh" });
  assert.ok(got.rule, "a cause is named");
});

test("the command line's tarball runs, says its version, and carries the README and the licence", () => {
  const name = `first-assert-${VERSION}-x86_64-unknown-linux-gnu`;
  execFileSync("tar", ["-xzf", path.join(OUT, `${name}.tar.gz`), "-C", tmp]);
  assert.deepEqual(readdirSync(path.join(tmp, name)).sort(), ["LICENSE", "README.md", "first-assert"]);
  assert.equal(execFileSync(path.join(tmp, name, "first-assert"), ["--version"], { encoding: "utf8" }).trim(), `first-assert ${VERSION}`);
});

test("the Python package's wheel: one abi3 manylinux_2_17 wheel of this version, with the engine and the command", () => {
  const wheels = readdirSync(path.join(OUT, "wheels"));
  assert.deepEqual(wheels, [`first_assert-${VERSION}-cp39-abi3-manylinux2014_x86_64.manylinux_2_17_x86_64.whl`]);
  const names = execFileSync("python3", ["-c", "import sys, zipfile; print('\\n'.join(zipfile.ZipFile(sys.argv[1]).namelist()))", path.join(OUT, "wheels", wheels[0])], { encoding: "utf8" }).trim().split("\n");
  for (const f of ["first_assert/__init__.py", "first_assert/__main__.py", "first_assert/py.typed", "first_assert/_engine.pyi"]) assert.ok(names.includes(f), `the wheel lacks ${f}`);
  assert.ok(names.some((f) => /^first_assert\/_engine\.abi3\.so$/.test(f)), names.join(" "));
  assert.ok(names.some((f) => /entry_points\.txt$/.test(f)), "the first-assert command");
});
