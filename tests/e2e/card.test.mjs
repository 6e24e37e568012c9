// The kernel's card (what `%load_ext first_assert` shows under a failing cell; the CLI's
// `--format html` writes the same HTML) in the notebook themes people use: a light notebook page
// and a dark one (Colab's dark theme), and JupyterLab's light and dark themes, each by its own
// page and text colours. The card inherits the text colour and tints with translucent colours
// only, so axe-core's colour-contrast rule must find nothing in any of them. Screenshots in
// tests/e2e/artifacts.

import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { CLI, ROOT, artifactsDir, hostServer, launch } from "./lib.mjs";

const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

// Each theme's page and output text colours, as its stylesheet sets them.
const THEMES = {
  "colab-light": { bg: "#ffffff", fg: "#1f1f1f", font: "Roboto, Noto, sans-serif" },
  "colab-dark": { bg: "#383838", fg: "#d5d5d5", font: "Roboto, Noto, sans-serif" },
  // JupyterLab 4: --jp-layout-color0 and --jp-content-font-color1 of its light and dark themes.
  "jupyterlab-light": { bg: "#ffffff", fg: "rgba(0, 0, 0, 0.87)", font: "system-ui, sans-serif" },
  "jupyterlab-dark": { bg: "#111111", fg: "rgba(255, 255, 255, 1)", font: "system-ui, sans-serif" },
};

function card(file, lang) {
  try {
    return execFileSync(CLI, ["--format", "html", "--lang", lang, file]).toString("utf8");
  } catch (e) {
    if (e.status !== 1) throw e;
    return e.stdout.toString("utf8");
  }
}

function page(theme, html) {
  const t = THEMES[theme];
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${theme}</title>
<style>body{margin:0;background:${t.bg};color:${t.fg};font-family:${t.font}}
.output{padding:12px 16px;max-width:1000px}</style></head>
<body><main class="output"><pre style="margin:0 0 6px;color:inherit">RuntimeError: CUDA error: device-side assert triggered</pre>${html}</main></body></html>`;
}

test("the card reads well in light and dark notebook themes: axe-core finds no contrast problem", { timeout: 120_000 }, async () => {
  const inputs = [
    ["colab", path.join(ROOT, "www/demo/colab-nll-labels.ipynb"), "en"],
    ["colab-zh", path.join(ROOT, "www/demo/colab-nll-labels.ipynb"), "zh"],
    ["bce", path.join(ROOT, "www/demo/bce-range.log"), "en"],
  ];
  const routes = {};
  for (const [name, file, lang] of inputs) {
    const html = card(file, lang);
    assert.match(html, /data-first-assert-card="device_assert"/);
    for (const theme of Object.keys(THEMES)) routes[`/${name}/${theme}`] = page(theme, html);
  }
  const srv = await hostServer(routes);
  const browser = await launch();
  const dir = artifactsDir();
  const checked = [];
  try {
    const p = await browser.newPage({ viewport: { width: 1000, height: 900 } });
    for (const route of Object.keys(routes)) {
      await p.goto(`http://127.0.0.1:${srv.port}${route}`);
      await p.evaluate(AXE);
      const r = await p.evaluate(() => window.axe.run("[data-first-assert-card]", { runOnly: ["color-contrast"], resultTypes: ["violations", "passes"] }));
      const bad = r.violations.flatMap((v) => v.nodes.map((n) => `${n.failureSummary} :: ${n.html.slice(0, 120)}`));
      assert.deepEqual(bad, [], `${route}: ${bad.join("\n")}`);
      const passed = r.passes.reduce((n, v) => n + v.nodes.length, 0);
      assert.ok(passed >= 8, `${route}: only ${passed} text nodes checked`);
      checked.push(`${route} ${passed}`);
      const box = await p.$("[data-first-assert-card]");
      await box.screenshot({ path: path.join(dir, `card${route.replaceAll("/", "-")}.png`) });
    }
  } finally {
    await browser.close();
    srv.close();
  }
  console.log(`# card contrast checked (text nodes): ${checked.join(", ")}`);
});
