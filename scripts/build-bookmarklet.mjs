// Builds the bookmarklet: the adapters (www/adapters/, joined) and www/bookmarklet/bookmarklet.js in one
// function, with the page's origin filled in, written to www/pkg/bookmarklet.js (readable)
// and www/pkg/bookmarklet.txt (the javascript: URL the page offers for dragging).
//
//   node scripts/build-bookmarklet.mjs [ORIGIN] [OUTDIR]   (default http://127.0.0.1:8000, www/pkg)
//
// "Minified" only by dropping comment lines, indentation and blank lines: the sources keep
// comments on lines of their own, so nothing else needs to understand JavaScript.
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { adaptersScript } from "./adapters-script.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

const squeeze = (src) =>
  src
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith("//"))
    .join("\n");

/** The bookmarklet for a page served at `origin` (scheme://host[:port], and a path if the
 * site lives under one): { code, url }. */
export function build(origin) {
  origin = origin.replace(/\/+$/, "");
  if (!/^https?:\/\/[^/\s"'\\?#]+(?:\/[\w.~%!$&()*+,;=:@/-]*)?$/.test(origin)) {
    throw new Error(`"${origin}" is not a page address (scheme://host[:port][/path], no query)`);
  }
  const adapters = adaptersScript();
  const main = readFileSync(path.join(root, "www/bookmarklet/bookmarklet.js"), "utf8").replace("__FIRST_ASSERT_PAGE__", origin);
  const code = `(function(){${squeeze(adapters)}\n${squeeze(main)}\n})();`;
  return { code, url: "javascript:" + encodeURIComponent(code).replace(/'/g, "%27") };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const origin = process.argv[2] || process.env.FIRST_ASSERT_ORIGIN || "http://127.0.0.1:8000";
  let b;
  try {
    b = build(origin);
  } catch (e) {
    console.error(`build-bookmarklet: ${e.message}`);
    process.exit(2);
  }
  const out = process.argv[3] ? path.resolve(process.argv[3]) : path.join(root, "www/pkg");
  mkdirSync(out, { recursive: true });
  writeFileSync(path.join(out, "bookmarklet.js"), b.code + "\n");
  writeFileSync(path.join(out, "bookmarklet.txt"), b.url);
  console.error(`make web: bookmarklet for ${origin}: ${b.code.length} bytes of code, ${b.url.length} bytes as a javascript: URL`);
}
