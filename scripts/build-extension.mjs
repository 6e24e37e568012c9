// Builds the browser extension into dist/extension (load it unpacked, or zip it): the
// sources in www/extension, the adapters, icons drawn here, and the page with the
// WebAssembly package (make web builds www/pkg first). Nothing is fetched at run time.
//
//   node scripts/build-extension.mjs
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { bundle } from "./adapters-script.mjs";
import { deflateSync } from "node:zlib";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const www = path.join(root, "www");
const out = path.join(root, "dist/extension");

const version = /^version\s*=\s*"([^"]+)"/m.exec(readFileSync(path.join(root, "Cargo.toml"), "utf8"))[1];
for (const f of ["first_assert.js", "first_assert_bg.wasm", "first-assert.en.page.json", "first-assert.zh.page.json", "first-assert.en.probe.json", "first-assert.zh.probe.json"]) {
  try {
    statSync(path.join(www, "pkg", f));
  } catch {
    console.error(`build-extension: www/pkg/${f} is missing: run make web`);
    process.exit(2);
  }
}

rmSync(out, { recursive: true, force: true });
mkdirSync(path.join(out, "icons"), { recursive: true });
const manifest = JSON.parse(readFileSync(path.join(www, "extension/manifest.json"), "utf8"));
manifest.version = version;
writeFileSync(path.join(out, "manifest.json"), JSON.stringify(manifest, null, 2) + "\n");
for (const f of ["background.js", "options.html", "options.js", "options.css"]) {
  cpSync(path.join(www, "extension", f), path.join(out, f));
}
// The content scripts, each bundled with the adapters it imports (frame.js and page-world.js
// take only their few parts).
for (const f of ["content.js", "frame.js", "page-world.js"]) {
  writeFileSync(path.join(out, f), bundle(`extension/${f}`));
}
for (const f of ["index.html", "style.css", "rules.html", "rules.js", "pkg/app.js", "pkg/engine-worker.js", "pkg/protocol.js", "pkg/share.js", "pkg/share.en.json", "pkg/share.zh.json", "pkg/style.css", "pkg/first_assert_bg.wasm", "pkg/first-assert.en.page.json", "pkg/first-assert.zh.page.json", "pkg/first-assert.en.probe.json", "pkg/first-assert.zh.probe.json"]) {
  cpSync(path.join(www, f), path.join(out, "page", f));
}
// A link shared from the extension's panel points at the site (others cannot open the
// extension's own pages): the origin the bookmarklet is built for.
const site = process.env.FIRST_ASSERT_ORIGIN || "http://127.0.0.1:8000";
const page = path.join(out, "page", "index.html");
writeFileSync(page, readFileSync(page, "utf8").replace('<meta name="first-assert-site" content="">', `<meta name="first-assert-site" content="${site.replace(/[^\w:/.\-~%]/g, "")}">`));
cpSync(path.join(www, "demo"), path.join(out, "page/demo"), { recursive: true });

// Icons: a red rounded square with a white "!", drawn pixel by pixel into PNGs.
const crcTable = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
const crc32 = (buf) => {
  let c = 0xffffffff;
  for (const b of buf) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
};
function chunk(type, data) {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const td = Buffer.concat([Buffer.from(type, "ascii"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(td));
  return Buffer.concat([len, td, crc]);
}
function icon(n) {
  const rows = [];
  const r = n * 0.22;
  for (let y = 0; y < n; y++) {
    const row = [0];
    for (let x = 0; x < n; x++) {
      const cx = Math.max(r - x, 0, x - (n - 1 - r));
      const cy = Math.max(r - y, 0, y - (n - 1 - r));
      const inside = cx * cx + cy * cy <= r * r;
      const bar = Math.abs(x - (n - 1) / 2) <= n * 0.08 && y >= n * 0.18 && y <= n * 0.6;
      const dot = (x - (n - 1) / 2) ** 2 + (y - n * 0.76) ** 2 <= (n * 0.09) ** 2;
      row.push(...(!inside ? [0, 0, 0, 0] : bar || dot ? [255, 255, 255, 255] : [179, 38, 30, 255]));
    }
    rows.push(Buffer.from(row));
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(n, 0);
  ihdr.writeUInt32BE(n, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 6; // RGBA
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk("IHDR", ihdr), chunk("IDAT", deflateSync(Buffer.concat(rows))), chunk("IEND", Buffer.alloc(0))]);
}
for (const n of [16, 32, 48, 128]) writeFileSync(path.join(out, "icons", `${n}.png`), icon(n));

const size = (dir) => readdirSync(dir).reduce((t, f) => t + (statSync(path.join(dir, f)).isDirectory() ? size(path.join(dir, f)) : statSync(path.join(dir, f)).size), 0);
console.error(`make web: dist/extension (version ${version}): ${size(out)} bytes unpacked`);
