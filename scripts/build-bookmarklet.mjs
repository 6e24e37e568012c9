// Builds the bookmarklet: www/bookmarklet/bookmarklet.js bundled with the adapters it imports
// (esbuild, minified), written to www/pkg/bookmarklet.js with the page's origin filled in (the
// tests run it), and to www/pkg/bookmarklet.txt as the javascript: URL the page offers for
// dragging, with `__FIRST_ASSERT_PAGE__` left in: the page puts in the address it is served
// from, so a page on any host, port or path offers a bookmarklet that opens it.
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

/** The bookmarklet's javascript: URL with its page address left as `__FIRST_ASSERT_PAGE__`, for
 * the page to fill in with its own. */
export function template() {
  const code = bundle("bookmarklet/bookmarklet.js", { minify: true }).trim();
  if (code.split("__FIRST_ASSERT_PAGE__").length !== 2) throw new Error("the bookmarklet names its page once");
  return "javascript:" + encodeURIComponent(code).replace(/'/g, "%27");
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
  writeFileSync(path.join(out, "bookmarklet.txt"), template());
  console.error(`make web: bookmarklet: ${b.code.length} bytes of code, ${b.url.length} bytes as a javascript: URL (bookmarklet.js for ${origin}; the page fills in its own address)`);
}
