// A review of every script we ship into a browser, as a test: no code from strings, no HTML
// from strings, no remote code or addresses but the allowlisted hosts, data never posted to
// "*", and the extension's manifest and the page's CSP as tight as the README says.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync, existsSync } from "node:fs";
import path from "node:path";
import { ROOT, WWW } from "./lib.mjs";

/** Every script under www/ but the built ones (pkg/, made from these by make web). */
function scripts(dir = "www") {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const f = `${dir}/${e.name}`;
    if (e.isDirectory()) return e.name === "pkg" || e.name === "node_modules" ? [] : scripts(f);
    return f.endsWith(".js") ? [f] : [];
  });
}

const SCRIPTS = scripts().map((f) => [f, readFileSync(path.join(ROOT, f), "utf8")]);

/** The code without comments (line comments at the start of a line or after code). */
const code = (src) =>
  src
    .split("\n")
    .filter((l) => !l.trim().startsWith("//") && !l.trim().startsWith("*") && !l.trim().startsWith("/*"))
    .join("\n");

const ALLOWED_HOSTS = new Set([
  "colab.research.google.com",
  "www.kaggle.com",
  "kaggle.com",
  "localhost",
  "127.0.0.1",
  "pytorch.org",
]);

test("no code or HTML from strings, no dynamic loading", () => {
  const banned = [
    [/\beval\s*\(/, "eval"],
    [/\bnew\s+Function\b/, "new Function"],
    [/\bset(?:Timeout|Interval)\s*\(\s*["'`]/, "timer with a string"],
    [/\.innerHTML\b|\.outerHTML\s*=|insertAdjacentHTML|document\.write/, "HTML from a string"],
    // A module of the page's own, named by a literal (app.js loads protocol.js in embedded mode
    // only) is fine; nothing computed, nothing from elsewhere.
    [/\bimport\s*\((?!"\.\/[\w-]+\.js"\))/, "dynamic import"],
    [/\bimportScripts\b/, "importScripts"],
    [/createElement\(\s*["']script/, "a script element"],
    [/\.src\s*=\s*["'`]https?:/, "a remote source"],
    [/WebAssembly\.(?:instantiate|compile)/, "WebAssembly outside the package"],
  ];
  for (const [file, src] of SCRIPTS) {
    for (const [re, what] of banned) {
      assert.ok(!re.test(code(src)), `${file}: ${what}`);
    }
  }
  // The built files too: the bookmarklet (what users drag to their bookmarks) and the page's
  // bundles (what the browser runs of app.js and the engine's worker).
  for (const f of ["bookmarklet.js", "app.js", "engine-worker.js", "protocol.js"]) {
    const built = path.join(WWW, "pkg", f);
    if (!existsSync(built)) continue;
    const src = readFileSync(built, "utf8");
    for (const [re, what] of banned) {
      // The package's glue compiles the engine (the one WebAssembly call there is).
      if (f === "engine-worker.js" && what === "WebAssembly outside the package") continue;
      assert.ok(!re.test(src), `pkg/${f}: ${what}`);
    }
  }
});

test("addresses in the code are only the allowlisted hosts", () => {
  for (const [file, src] of SCRIPTS) {
    for (const m of code(src).matchAll(/["'`]https?:\/\/([^/"'`:\s]+)/g)) {
      assert.ok(ALLOWED_HOSTS.has(m[1]), `${file}: ${m[0]}`);
    }
  }
});

test("nothing that carries data is posted to any origin", () => {
  for (const [file, src] of SCRIPTS) {
    for (const m of code(src).matchAll(/postMessage\(([^;]*?),\s*["']\*["']/g)) {
      // The only message for anyone is "ready", which carries the version and nothing else.
      assert.equal(m[1].trim(), "hello", `${file}: posts ${m[1].trim()} to "*"`);
    }
  }
  assert.match(readFileSync(path.join(WWW, "protocol.js"), "utf8"), /export const ready = \(version\) => \(\{ type: PREFIX \+ "ready", protocol: PROTOCOL, version \}\)/);
});

test("the extension asks for little and loads nothing from elsewhere", () => {
  const m = JSON.parse(readFileSync(path.join(WWW, "extension/manifest.json"), "utf8"));
  assert.equal(m.manifest_version, 3);
  assert.deepEqual(m.permissions, ["storage"]);
  assert.deepEqual(m.optional_permissions, ["scripting"]);
  assert.deepEqual(m.optional_host_permissions, ["http://localhost/*", "http://127.0.0.1/*"]);
  assert.equal(m.host_permissions, undefined);
  assert.equal(m.externally_connectable, undefined);
  const matches = m.content_scripts.flatMap((c) => c.matches);
  assert.ok(!matches.some((u) => u.includes("<all_urls>") || u === "*://*/*" || u === "https://*/*"), matches.join(" "));
  const csp = m.content_security_policy.extension_pages;
  assert.match(csp, /script-src 'self' 'wasm-unsafe-eval';/);
  assert.ok(!/unsafe-inline|unsafe-eval'|https?:|\*/.test(csp.replace("'wasm-unsafe-eval'", "")), csp);
  for (const w of m.web_accessible_resources) assert.equal(w.use_dynamic_url, false);
});

test("the page's policy allows nothing from elsewhere", () => {
  const html = readFileSync(path.join(WWW, "index.html"), "utf8");
  const csp = /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(html)[1];
  assert.match(csp, /default-src 'self'/);
  assert.match(csp, /script-src 'self' 'wasm-unsafe-eval';/);
  assert.ok(!/unsafe-inline|'unsafe-eval'|https?:|\*/.test(csp), csp);
  assert.ok(!/<script(?![^>]*\bsrc=)/.test(html), "an inline script");
  assert.ok(!/\sstyle=|\son[a-z]+=/.test(html), "inline style or handler");
});
