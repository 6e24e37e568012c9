// The site's package index (make dist): the wheels in SITE/simple/first-assert/ and a PEP 503
// "simple" index beside them, so a notebook cell installs the extension from wherever the site
// is served:
//
//   %pip install first-assert --index-url ORIGIN/simple/
//
// Static files only, every link relative (the site works from a sub-path), each with its
// `#sha256=` (pip checks it) and `data-requires-python`; the project's name normalised as pip
// asks for it (PEP 503: lowercase, runs of `-_.` as one `-`).
//
//   node scripts/simple-index.mjs WHEELS_DIR SITE_DIR
import { createHash } from "node:crypto";
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

/** A project's name as PEP 503 normalises it. */
export function normalise(name) {
  return name.toLowerCase().replace(/[-_.]+/g, "-");
}

const escape = (s) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

function page(title, links) {
  const body = links.map(([href, text, attrs = ""]) => `    <a href="${escape(href)}"${attrs}>${escape(text)}</a><br>`).join("\n");
  return `<!DOCTYPE html>\n<html>\n  <head>\n    <meta name="pypi:repository-version" content="1.0">\n    <title>${escape(title)}</title>\n  </head>\n  <body>\n    <h1>${escape(title)}</h1>\n${body}\n  </body>\n</html>\n`;
}

/** Writes the index for the wheels in `wheels` into `site`: the files it wrote. */
export function writeIndex(wheels, site) {
  const files = readdirSync(wheels).filter((f) => f.endsWith(".whl")).sort();
  if (!files.length) throw new Error(`no wheels in ${wheels}`);
  const projects = new Map();
  for (const f of files) {
    // {distribution}-{version}(-{build})?-{python}-{abi}-{platform}.whl (PEP 427)
    const project = normalise(f.split("-")[0]);
    if (!projects.has(project)) projects.set(project, []);
    projects.get(project).push(f);
  }
  const root = path.join(site, "simple");
  mkdirSync(root, { recursive: true });
  writeFileSync(path.join(root, "index.html"), page("Simple index", [...projects.keys()].map((p) => [`${p}/`, p])));
  for (const [project, list] of projects) {
    const dir = path.join(root, project);
    mkdirSync(dir, { recursive: true });
    const links = list.map((f) => {
      copyFileSync(path.join(wheels, f), path.join(dir, f));
      const sha = createHash("sha256").update(readFileSync(path.join(dir, f))).digest("hex");
      return [`${f}#sha256=${sha}`, f, ' data-requires-python="&gt;=3.9"'];
    });
    writeFileSync(path.join(dir, "index.html"), page(`Links for ${project}`, links));
  }
  return files;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  const [wheels, site] = process.argv.slice(2);
  if (!wheels || !site) {
    console.error("usage: node scripts/simple-index.mjs WHEELS_DIR SITE_DIR");
    process.exit(2);
  }
  const files = writeIndex(wheels, site);
  console.error(`simple-index: ${files.length} wheels in ${path.join(site, "simple")}`);
}
