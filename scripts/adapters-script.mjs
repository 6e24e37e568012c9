// The page adapters and their hosts as the scripts a page runs: each entry (the bookmarklet,
// the extension's content, frame and page-world scripts, and adapters/global.js for the tests)
// bundled by esbuild (pinned in scripts/web/package.json) with only the modules it imports, as
// one immediately-invoked function, the hosts' texts from the catalogue put in
// (www/pkg/host-texts.json, which make web writes from i18n/messages.toml's `host_` messages).
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const { buildSync } = createRequire(path.join(root, "scripts/web/package.json"))("esbuild");

/** `entry` (a path under www/) bundled with what it imports, as one script: `minify` for what
 * ships in a javascript: URL. */
export function bundle(entry, { minify = false } = {}) {
  let texts;
  try {
    texts = JSON.parse(readFileSync(path.join(root, "www/pkg/host-texts.json"), "utf8"));
  } catch (e) {
    throw new Error(`the hosts' texts (www/pkg/host-texts.json) are missing: run make web (${e.message})`);
  }
  const out = buildSync({
    define: { __HOST_TEXTS__: JSON.stringify(texts) },
    entryPoints: [path.join(root, "www", entry)],
    bundle: true,
    format: "iife",
    target: "es2020",
    minify,
    write: false,
    legalComments: "none",
    logLevel: "warning",
  });
  return out.outputFiles[0].text;
}

/** The adapters as one script that defines `FirstAssertAdapters` (the tests'). */
export function adaptersScript() {
  return bundle("adapters/global.js");
}
