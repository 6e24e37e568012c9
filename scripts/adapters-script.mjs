// The page adapters as the one script the browser runs: www/adapters/'s five parts, in order
// (each hands what the later ones use to them; the last defines FirstAssertAdapters). The
// bookmarklet, the extension's adapters.js and page-world.js, and the tests take this text.
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** The parts, in the order they must run. */
export const ADAPTER_PARTS = ["selectors.js", "model.js", "collect.js", "mark.js", "api.js"];

/** The adapters' script: the parts joined. */
export function adaptersScript() {
  return ADAPTER_PARTS.map((f) => readFileSync(path.join(root, "www/adapters", f), "utf8")).join("\n");
}
