#!/usr/bin/env bash
# Builds what a user hosts, installs and publishes (make dist):
#
#   scripts/dist.sh [ORIGIN] [OUT]
#
# ORIGIN  where the site will be served from, the bookmarklet's target
#         (default http://127.0.0.1:8000, the origin of make serve); a sub-path is fine
# OUT     the folder to write (default dist), replaced:
#   site/                                         the static site, every path relative: the page,
#                                                 simple/ (a PEP 503 package index: %pip install
#                                                 first-assert --index-url ORIGIN/simple/) and
#                                                 download/ (the extension's zips, the CLI)
#   first-assert-extension-VERSION.zip            Chrome / Edge (MV3)
#   first-assert-extension-VERSION-firefox.zip    Firefox
#   npm/                                          the npm package (npm pack in it)
#   first-assert-VERSION-x86_64-unknown-linux-gnu.tar.gz   the command line
#   wheels/first_assert-VERSION-cp39-abi3-manylinux_2_17_{x86_64,aarch64}.whl   the Python package
#
# The version comes from Cargo.toml, the one place it is written.
set -euo pipefail
cd "$(dirname "$0")/.."

origin=${1:-http://127.0.0.1:8000}
out=${2:-dist}
origin=${origin%/}
case "$origin" in
  http://* | https://*) ;;
  *) echo "dist: ORIGIN must be an http(s) URL, not '$origin'" >&2; exit 2 ;;
esac
version=$(awk -F'"' '/^version *=/ { print $2; exit }' Cargo.toml)
start=$(date +%s)

# The package and the extension (www/pkg, dist/extension; www/pkg's bookmarklet stays the one
# for make serve: the site gets its own below).
# DIST_PREBUILT=1 (the tests, which run after make web) takes them as they are.
if [ "${DIST_PREBUILT:-}" != 1 ]; then
  bash scripts/build-web.sh
  cargo build --release --locked --quiet --bin first-assert --example serve
  bash scripts/wheel.sh dist/wheels
fi

mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -rf "$out/site" "$out/npm" "$out"/first-assert-*.zip "$out"/first-assert-*.tar.gz
# The Python package (make wheel wrote it to dist/wheels).
if [ "$out/wheels" != "$(pwd)/dist/wheels" ]; then
  rm -rf "$out/wheels"
  mkdir -p "$out/wheels"
  cp dist/wheels/*.whl "$out/wheels/"
fi

# The site: exactly what the page needs, nothing of the sources, tests or type definitions.
site=$out/site
mkdir -p "$site/pkg" "$site/demo"
for f in index.html style.css sw.js rules.html rules.js; do
  cp "www/$f" "$site/$f"
done
# The page's scripts and style as make web bundled and minified them, the engine, its texts.
for f in app.js engine-worker.js protocol.js share.js share.en.json share.zh.json style.css first_assert_bg.wasm first-assert.{en,zh}.{page,probe}.json; do
  cp "www/pkg/$f" "$site/pkg/$f"
done
# The bookmarklet, for the origin the site will be served from (only the URL the page offers).
node scripts/build-bookmarklet.mjs "$origin" "$site/pkg"
rm "$site/pkg/bookmarklet.js"
cp www/demo/* "$site/demo/"
# What the page offers a notebook user, where the site has it: the package index, the downloads.
node -e '
  const fs = require("fs"), p = process.argv[1];
  fs.writeFileSync(p, fs.readFileSync(p, "utf8")
    .replace(`<meta name="first-assert-index" content="">`, `<meta name="first-assert-index" content="simple/">`)
    .replace(`<meta name="first-assert-downloads" content="">`, `<meta name="first-assert-downloads" content="download/">`));
' "$site/index.html"
node scripts/simple-index.mjs "$out/wheels" "$site"
# For hosts that read a _headers file (Netlify, Cloudflare Pages): the page's policy as a
# header too, with who may frame it (embedded mode), which a meta tag cannot say.
csp=$(target/release/examples/serve --print-csp)
cat > "$site/_headers" <<EOF
/*
  Content-Security-Policy: $csp
  X-Content-Type-Options: nosniff
  Referrer-Policy: no-referrer
EOF

# The extension: Chrome's zip as built; Firefox's with background scripts only (Firefox runs
# no service worker there, and says so in a warning otherwise).
zip_dir() { (cd "$1" && python3 -m zipfile -c "$2" ./*); }
# A link shared from the extension's panel points at the site (others cannot open the
# extension's own pages): its page names ORIGIN.
ext=$(mktemp -d)
cp -r dist/extension/. "$ext/"
node -e '
  const fs = require("fs"), [p, origin] = process.argv.slice(1);
  const o = origin.replace(/[^\w:/.\-~%]/g, "");
  const html = fs.readFileSync(p, "utf8")
    .replace(/<meta name="first-assert-site" content="[^"]*">/, `<meta name="first-assert-site" content="${o}">`)
    .replace(/<meta name="first-assert-index" content="[^"]*">/, `<meta name="first-assert-index" content="${o}/simple/">`);
  fs.writeFileSync(p, html);
' "$ext/page/index.html" "$origin"
zip_dir "$ext" "$out/first-assert-extension-$version.zip"
ff=$(mktemp -d)
cp -r "$ext/." "$ff/"
rm -rf "$ext"
node -e '
  const fs = require("fs"), p = process.argv[1] + "/manifest.json";
  const m = JSON.parse(fs.readFileSync(p, "utf8"));
  m.background = { scripts: m.background.scripts };
  fs.writeFileSync(p, JSON.stringify(m, null, 2) + "\n");
' "$ff"
zip_dir "$ff" "$out/first-assert-extension-$version-firefox.zip"
rm -rf "$ff"

# The npm package: the module, the engine, the texts and the types.
npm=$out/npm
mkdir -p "$npm"
for f in first_assert.js first_assert_bg.wasm first_assert.d.ts first_assert_bg.wasm.d.ts first-assert.en.json first-assert.zh.json; do
  cp "www/pkg/$f" "$npm/$f"
done
cp npm/README.md "$npm/README.md"
cp LICENSE "$npm/LICENSE"
repository=$(awk -F'"' '/^repository *=/ { print $2; exit }' Cargo.toml)
cat > "$npm/package.json" <<JSON
{
  "name": "first-assert",
  "version": "$version",
  "description": "Finds the first CUDA device-side assert in PyTorch output and explains it (WebAssembly, runs anywhere, sends nothing).",
  "license": "MIT OR Apache-2.0",
  "repository": { "type": "git", "url": "git+$repository.git" },
  "type": "module",
  "main": "./first_assert.js",
  "module": "./first_assert.js",
  "types": "./first_assert.d.ts",
  "exports": {
    ".": { "types": "./first_assert.d.ts", "default": "./first_assert.js" },
    "./first_assert_bg.wasm": "./first_assert_bg.wasm",
    "./first-assert.en.json": "./first-assert.en.json",
    "./first-assert.zh.json": "./first-assert.zh.json",
    "./package.json": "./package.json"
  },
  "files": ["first_assert.js", "first_assert.d.ts", "first_assert_bg.wasm", "first_assert_bg.wasm.d.ts", "first-assert.en.json", "first-assert.zh.json", "README.md", "LICENSE"],
  "sideEffects": false,
  "keywords": ["pytorch", "cuda", "device-side assert", "colab", "debugging", "webassembly"]
}
JSON

# The command line, with its README and licence.
cli=first-assert-$version-x86_64-unknown-linux-gnu
stage=$(mktemp -d)
mkdir -p "$stage/$cli"
cp target/release/first-assert README.md LICENSE "$stage/$cli/"
tar -C "$stage" -czf "$out/$cli.tar.gz" "$cli"
rm -rf "$stage"

# The site's downloads: the extension's zips and the command line, beside the page.
mkdir -p "$site/download"
cp "$out"/first-assert-extension-*.zip "$out/$cli.tar.gz" "$site/download/"

end=$(date +%s)
size() { stat -c %s "$1"; }
gz() { gzip -9 -c "$1" | wc -c; }
# The page's files apart from the index and the downloads (the page never loads those).
page_files() { find "$site" -type f -not -path "$site/simple/*" -not -path "$site/download/*" "$@"; }
site_raw=$(page_files -exec stat -c %s {} + | awk '{ s += $1 } END { print s }')
site_gz=$(page_files -exec sh -c 'gzip -9 -c "$1" | wc -c' _ {} \; | awk '{ s += $1 } END { print s }')
{
  printf 'dist: %s (version %s, origin %s) in %ds\n' "$out" "$version" "$origin" "$((end - start))"
  printf '  site/  the page: %d files, %d bytes, %d gzipped; simple/ %d bytes; download/ %d bytes\n' "$(page_files | wc -l)" "$site_raw" "$site_gz" \
    "$(du -sb "$site/simple" | cut -f1)" "$(du -sb "$site/download" | cut -f1)"
  for f in "$out"/first-assert-*.zip "$out/$cli.tar.gz" "$out"/wheels/*.whl; do
    printf '  %s  %d bytes\n' "$(basename "$f")" "$(size "$f")"
  done
  printf '  npm/  %d bytes (the engine %d gzipped)\n' "$(du -sb "$npm" | cut -f1)" "$(gz "$npm/first_assert_bg.wasm")"
} >&2
