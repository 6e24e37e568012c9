// Builds the bookmarklet: www/bookmarklet/bookmarklet.js bundled with the adapters it imports
// (esbuild, minified), with the page's origin filled in, written to www/pkg/bookmarklet.js and
// www/pkg/bookmarklet.txt (the javascript: URL the page offers for dragging).
//
//   node scripts/build-bookmarklet.mjs [ORIGIN] [OUTDIR]   (default http://127.0.0.1:8000, www/pkg)
import { writeFileSync, mkdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { bundle } from "./adapters-script.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** The bookmarklet for a page served at `origin` (scheme://host[:port], and a path if the
 * site lives under one): { code, url }. */
export function build(origin) {
  origin = origin.replace(/\/+$/, "");
  if (!/^https?:\/\/[^/\s"'\\?#]+(?:\/[\w.~%!$&()*+,;=:@/-]*)?$/.test(origin)) {
    throw new Error(`"${origin}" is not a page address (scheme://host[:port][/path], no query)`);
  }
  const code = bundle("bookmarklet/bookmarklet.js", { minify: true }).trim().replace("__FIRST_ASSERT_PAGE__", origin);
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
