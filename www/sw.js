// Keeps the page working offline after the first visit. Network first, so a new version is
// picked up as soon as it is online; the cache answers only when the network does not. Only
// this origin's GET requests are handled (the page makes no others).
const CACHE = "first-assert-v6";
const SHELL = [
  "./",
  "index.html",
  "style.css",
  "rules.html",
  "rules.js",
  "pkg/app.js",
  "pkg/engine-worker.js",
  "pkg/protocol.js",
  "pkg/share.js",
  "pkg/share.en.json",
  "pkg/share.zh.json",
  "pkg/style.css",
  "pkg/first_assert_bg.wasm",
  "pkg/first-assert.en.page.json",
  "pkg/first-assert.zh.page.json",
  "pkg/first-assert.en.probe.json",
  "pkg/first-assert.zh.probe.json",
  "pkg/bookmarklet.txt",
  "demo/colab-nll-labels.ipynb",
  "demo/embedding-vocab.log",
  "demo/bce-range.log",
  "demo/echoes-later-cells.ipynb",
  "demo/clean.log",
];

self.addEventListener("install", (e) => {
  e.waitUntil(caches.open(CACHE).then((c) => c.addAll(SHELL)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (e) => {
  e.waitUntil(
    caches
      .keys()
      .then((keys) => Promise.all(keys.filter((k) => k !== CACHE).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener("fetch", (e) => {
  const req = e.request;
  if (req.method !== "GET" || new URL(req.url).origin !== self.location.origin) return;
  e.respondWith(
    fetch(req)
      .then((res) => {
        if (res.ok) {
          const copy = res.clone();
          caches.open(CACHE).then((c) => c.put(req, copy));
        }
        return res;
      })
      .catch(() => caches.match(req, { ignoreSearch: true }).then((hit) => hit || Response.error())),
  );
});
