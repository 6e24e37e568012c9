// examples/serve.rs, the server of `make serve`: MIME types, the CSP header, and no way out of
// its root.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { request } from "node:http";
import { serve } from "./lib.mjs";

let srv;
before(async () => (srv = await serve()));
after(() => srv?.close());

/** A raw request (no URL normalisation by the client). */
function raw(method, target) {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port: srv.port, method, path: target }, (res) => {
      let body = "";
      res.on("data", (d) => (body += d));
      res.on("end", () => resolve({ status: res.statusCode, headers: res.headers, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

test("files come with the right type and the page's policy", async () => {
  for (const [path, type] of [
    ["/", "text/html; charset=utf-8"],
    ["/app.js", "text/javascript; charset=utf-8"],
    ["/style.css", "text/css; charset=utf-8"],
    ["/pkg/first_assert_bg.wasm", "application/wasm"],
    ["/demo/clean.log", "text/plain; charset=utf-8"],
    ["/demo/colab-nll-labels.ipynb", "application/x-ipynb+json"],
  ]) {
    const r = await raw("GET", path);
    assert.equal(r.status, 200, path);
    assert.equal(r.headers["content-type"], type, path);
    assert.match(r.headers["content-security-policy"], /default-src 'self'; script-src 'self' 'wasm-unsafe-eval'/);
    assert.equal(r.headers["x-content-type-options"], "nosniff");
  }
  const head = await raw("HEAD", "/index.html?x=1");
  assert.equal(head.status, 200);
  assert.equal(head.body, "");
});

test("nothing outside the root, nothing but GET and HEAD", async () => {
  for (const path of ["/../Cargo.toml", "/%2e%2e/Cargo.toml", "/demo/..%2f..%2fCargo.toml", "/demo\\..\\..\\Cargo.toml", "/%00", "/%zz"]) {
    const r = await raw("GET", path);
    assert.ok(r.status === 400 || r.status === 404, `${path}: ${r.status}`);
    assert.ok(!r.body.includes("[package]"), path);
  }
  assert.equal((await raw("GET", "/no-such-file.js")).status, 404);
  assert.equal((await raw("POST", "/")).status, 405);
});
