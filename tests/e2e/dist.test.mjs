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
import { artifactsDir, launch, openPage, ROOT, WWW, assertSameOrigin } from "./lib.mjs";

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

test("the site holds what a host needs and nothing else; its bookmarklet is left for the page to point at itself", () => {
  const list = files(path.join(OUT, "site")).filter((f) => !/^(simple|download)\//.test(f)).sort();
  for (const f of ["index.html", "style.css", "sw.js", "rules.html", "rules.js", "_headers", "pkg/app.js", "pkg/engine-worker.js", "pkg/protocol.js", "pkg/share.js", "pkg/share.en.json", "pkg/share.zh.json", "pkg/style.css", "pkg/first_assert_bg.wasm", "pkg/first-assert.en.page.json", "pkg/first-assert.zh.page.json", "pkg/first-assert.en.probe.json", "pkg/first-assert.zh.probe.json", "pkg/bookmarklet.txt"]) {
    assert.ok(list.includes(f), `the site lacks ${f}`);
  }
  for (const f of list) {
    assert.ok(!/^(adapters|bookmarklet|extension|view)\/|\.d\.ts$|\.map$|package\.json$|^pkg\/bookmarklet\.js$|^pkg\/first-assert\.\w+\.json$|^(app|report-view|engine|engine-worker|protocol)\.js$|^pkg\/first_assert\.js$/.test(f), `the site carries ${f}`);
  }
  assert.deepEqual(list.filter((f) => f.startsWith("demo/")), readdirSync(path.join(WWW, "demo")).map((f) => "demo/" + f).sort());
  const code = decodeURIComponent(readFileSync(path.join(OUT, "site/pkg/bookmarklet.txt"), "utf8").replace(/^javascript:/, ""));
  assert.equal(code.split('"__FIRST_ASSERT_PAGE__"').length, 2, "the page puts in where it is served");
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
    const html = readFileSync(path.join(dir, "page/index.html"), "utf8");
    assert.ok(html.includes(`<meta name="first-assert-site" content="${page.replace(/\/$/, "")}">`), `${zip}: the site for shared links`);
    // The panel's notebook lines install from the site's index.
    assert.ok(html.includes(`<meta name="first-assert-index" content="${page.replace(/\/$/, "")}/simple/">`), `${zip}: the index for the notebook lines`);
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

test("the Python package's wheels: one abi3 manylinux_2_17 wheel of this version per architecture, with the engine and the command", () => {
  const wheels = readdirSync(path.join(OUT, "wheels")).sort();
  assert.deepEqual(wheels, ["aarch64", "x86_64"].map((a) => `first_assert-${VERSION}-cp39-abi3-manylinux2014_${a}.manylinux_2_17_${a}.whl`));
  const names = execFileSync("python3", ["-c", "import sys, zipfile; print('\\n'.join(zipfile.ZipFile(sys.argv[1]).namelist()))", path.join(OUT, "wheels", wheels[0])], { encoding: "utf8" }).trim().split("\n");
  for (const f of ["first_assert/__init__.py", "first_assert/__main__.py", "first_assert/py.typed", "first_assert/_engine.pyi"]) assert.ok(names.includes(f), `the wheel lacks ${f}`);
  assert.ok(names.some((f) => /^first_assert\/_engine\.abi3\.so$/.test(f)), names.join(" "));
  assert.ok(names.some((f) => /entry_points\.txt$/.test(f)), "the first-assert command");
});

/** The %pip line a page shows a Colab user: from the notebook lines the page offers after a
 * Colab notebook's analysis, as its copy button copies them. */
async function pageWords(url) {
  const ctx = await browser.newContext({ locale: "en-US", permissions: ["clipboard-read", "clipboard-write"] });
  const { page: p, log } = await openPage(ctx, url);
  await p.click("[data-testid=demo-colab]");
  await p.locator("[data-testid=load-ext-code]").waitFor();
  await p.click("[data-testid=next-step] .fa-copy-lines");
  const copied = await p.evaluate(() => navigator.clipboard.readText());
  const install = await p.locator("[data-testid=install-notebook-code]").textContent();
  assertSameOrigin(log, origin);
  await ctx.close();
  return { copied, install };
}

test("the site is a package index: pip installs the extension from it exactly as the page words it, and a kernel loads it", { timeout: 300_000 }, async () => {
  const index = `${page}/simple/`;
  // The index: PEP 503 pages, relative links with their sha256, both wheels.
  const root = readFileSync(path.join(OUT, "site/simple/index.html"), "utf8");
  assert.match(root, /<a href="first-assert\/">first-assert<\/a>/);
  const project = readFileSync(path.join(OUT, "site/simple/first-assert/index.html"), "utf8");
  const links = [...project.matchAll(/<a href="([^"]+)" data-requires-python="&gt;=3.9">/g)].map((m) => m[1]);
  assert.equal(links.length, 2, project);
  for (const l of links) {
    const [file, sha] = l.split("#sha256=");
    assert.ok(!file.includes("/"), `${l} is relative to its page`);
    const want = execFileSync("sha256sum", [path.join(OUT, "site/simple/first-assert", file)], { encoding: "utf8" }).split(" ")[0];
    assert.equal(sha, want, file);
  }
  // The page's words: the same two lines in its card and in its install box.
  const { copied, install } = await pageWords(page + "/");
  const pip = `%pip install first-assert --index-url ${index}`;
  assert.equal(copied, `${pip}\n%load_ext first_assert\n%first_assert isolate`);
  assert.equal(install, `${pip}\n%load_ext first_assert`);
  // --index-url, not --extra-index-url: a higher version of the name on another index must not win.
  assert.ok(!copied.includes("--extra-index-url") && !install.includes("--extra-index-url"));
  // As a notebook runs `%pip install …`: the kernel's Python with `-m pip install` and the words.
  const venv = path.join(tmp, "venv");
  execFileSync("python3", ["-m", "venv", venv]);
  const args = pip.replace(/^%pip /, "").split(" ");
  const out = execFileSync(path.join(venv, "bin/python"), ["-m", "pip", ...args, "--disable-pip-version-check"], { encoding: "utf8", env: { ...process.env, PIP_FIND_LINKS: "", PIP_CONFIG_FILE: "/dev/null" } });
  assert.match(out, new RegExp(`Successfully installed first-assert-${VERSION.replace(/\./g, "\\.")}`), out);
  console.log(`# ${pip}\n# ${out.trim().split("\n").join("\n# ")}`);
  // The kernel: today's Jupyter's, with the venv's package first on its path.
  const jupyter = execFileSync("bash", ["scripts/ensure-tools.sh", "jupyter-env"], { cwd: ROOT, encoding: "utf8" }).trim();
  const site = execFileSync(path.join(venv, "bin/python"), ["-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], { encoding: "utf8" }).trim();
  const kernel = `
import json, sys
from jupyter_client.manager import start_new_kernel
km, kc = start_new_kernel(kernel_name="python3", extra_arguments=["--IPKernelApp.capture_fd_output=False"])
def run(code):
    mid = kc.execute(code); out = ""
    while True:
        m = kc.get_iopub_msg(timeout=60)
        if m["parent_header"].get("msg_id") != mid: continue
        if m["msg_type"] == "stream": out += m["content"]["text"]
        if m["msg_type"] == "error": out += "ERROR " + m["content"]["ename"]
        if m["msg_type"] == "status" and m["content"]["execution_state"] == "idle": return out
print(json.dumps({"load": run("%load_ext first_assert"), "file": run("import first_assert; print(first_assert.__file__)")}))
km.shutdown_kernel(now=True)
`;
  const got = JSON.parse(execFileSync(path.join(jupyter, "bin/python"), ["-c", kernel], { encoding: "utf8", env: { ...process.env, PYTHONPATH: site }, stdio: ["ignore", "pipe", "ignore"] }).trim().split("\n").pop());
  assert.match(got.load, /^first-assert is on: /, got.load);
  assert.ok(got.file.trim().startsWith(site), `the kernel loaded ${got.file}, not the one pip installed`);
});

test("the site's downloads: the extension's zips and the command line, linked from its page", { timeout: 60_000 }, async () => {
  const ctx = await browser.newContext({ locale: "en-US" });
  const { page: p, log } = await openPage(ctx, page + "/");
  await p.locator("[data-testid=install-extension]").waitFor();
  for (const [id, file] of [["chrome", `first-assert-extension-${VERSION}.zip`], ["firefox", `first-assert-extension-${VERSION}-firefox.zip`]]) {
    const href = await p.locator(`[data-testid=install-extension-${id}]`).getAttribute("href");
    assert.equal(href, `${page}/download/${file}`);
    const res = await fetch(href);
    assert.equal(res.status, 200, href);
    assert.deepEqual(Buffer.from(await res.arrayBuffer()), readFileSync(path.join(OUT, file)), file);
  }
  assertSameOrigin(log, origin);
  await ctx.close();
});

test("a Colab notebook's answer offers the notebook lines at 1280 and 390 px, readable and copyable (screenshots)", { timeout: 120_000 }, async () => {
  for (const [width, height, touch] of [[1280, 900, false], [390, 844, true]]) {
    for (const locale of ["en-US", "zh-CN"]) {
      const ctx = await browser.newContext({ locale, viewport: { width, height }, isMobile: touch, hasTouch: touch });
      const { page: p, log } = await openPage(ctx, page + "/");
      await p.click("[data-testid=demo-colab]");
      const code = p.locator("[data-testid=load-ext-code]");
      await code.waitFor();
      assert.ok(await code.isVisible(), `${width}: the lines are on screen`);
      assert.ok(await p.locator("[data-testid=next-step] .fa-copy-lines").isVisible(), `${width}: the copy button`);
      // The card does not spill past the screen: the lines scroll inside their own box.
      const spill = await p.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(spill <= 0, `${width}: the page is ${spill} px wider than the screen`);
      await code.scrollIntoViewIfNeeded();
      const lang = locale.slice(0, 2);
      await p.locator("[data-testid=next-step]").screenshot({ path: path.join(artifactsDir(), `notebook-lines-${lang}-${width}.png`) });
      if (lang === "en") await p.screenshot({ path: path.join(artifactsDir(), `notebook-lines-page-${width}.png`) });
      assertSameOrigin(log, origin);
      await ctx.close();
    }
  }
});
