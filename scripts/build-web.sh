#!/usr/bin/env bash
# Builds the WebAssembly package into www/pkg (git-ignored):
#   cargo (scripts/wasm-build.sh: profile `wasm`, opt-level z, fat LTO, panics that trap) -> wasm-bindgen --target web
#   (ES module + TypeScript definitions) -> package.json, so `import init, { analyze } from
#   "first-assert"` works from npm-style tooling.
#
# wasm-opt is not run. Measured on this package (2026-11): Debian's binaryen 108 cannot read
# the reference-types code Rust >= 1.82 emits; binaryen 132 (npm) -Oz makes it 7% smaller raw
# and 6% larger gzipped, -O1 0.6% smaller gzipped. Not worth a 100 MB npm download.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/ensure-tools.sh wasm-target wasm-bindgen
# The library, as the package ships it (the flags and why: scripts/wasm-build.sh).
bash scripts/wasm-build.sh

out=www/pkg
rm -rf "$out"
wasm-bindgen --target web --out-dir "$out" --typescript \
  --remove-name-section --remove-producers-section \
  target/wasm32-unknown-unknown/wasm/first_assert.wasm
node scripts/strip-wasm-custom.mjs "$out/first_assert_bg.wasm"

version=$(awk -F'"' '/^version *=/ { print $2; exit }' Cargo.toml)
cat > "$out/package.json" <<JSON
{
  "name": "first-assert",
  "version": "$version",
  "description": "Finds the first CUDA device-side assert in PyTorch output and explains it (WebAssembly).",
  "license": "MIT OR Apache-2.0",
  "type": "module",
  "main": "first_assert.js",
  "module": "first_assert.js",
  "types": "first_assert.d.ts",
  "exports": {
    ".": { "types": "./first_assert.d.ts", "default": "./first_assert.js" },
    "./first_assert_bg.wasm": "./first_assert_bg.wasm"
  },
  "files": ["first_assert_bg.wasm", "first_assert_bg.wasm.d.ts", "first_assert.js", "first_assert.d.ts", "first-assert.en.json", "first-assert.zh.json"],
  "sideEffects": false
}
JSON

# What the browser downloads of the page: its scripts bundled and minified (the page with its
# view and the engine's client; the engine's worker with the package's glue; the embedded
# mode's protocol, loaded only there) and its style minified. The sources in www/ stay as
# written; www/index.html loads these. (esbuild, pinned in scripts/web/package.json.)
bash scripts/ensure-tools.sh esbuild
esbuild=scripts/web/node_modules/.bin/esbuild
"$esbuild" www/app.js --bundle --format=esm --minify --target=es2022 --external:./protocol.js --external:./share.js \
  --outfile="$out/app.js" --log-level=warning
"$esbuild" www/engine-worker.js --bundle --format=esm --minify --target=es2022 --outfile="$out/engine-worker.js" --log-level=warning
"$esbuild" www/share.js --bundle --format=esm --minify --target=es2022 --outfile="$out/share.js" --log-level=warning
"$esbuild" www/protocol.js --format=esm --minify --target=es2022 --outfile="$out/protocol.js" --log-level=warning
"$esbuild" www/style.css --minify --outfile="$out/style.css" --log-level=warning

# The texts, one catalogue per language beside the package (the package carries none).
cargo run --release --locked --quiet --example catalogue -- "$out"

# The rules page, generated from the rule data and the same texts (so it cannot drift).
cargo run --release --locked --quiet --example rules_page > www/rules.html

# The bookmarklet: the page fills in the address it is served from (bookmarklet.js, which the
# tests run, for make serve's 127.0.0.1:8000).
node scripts/build-bookmarklet.mjs "${FIRST_ASSERT_ORIGIN:-http://127.0.0.1:8000}"

# The browser extension, with the page and the package inside (dist/extension).
node scripts/build-extension.mjs

wasm="$out/first_assert_bg.wasm"
raw=$(stat -c %s "$wasm")
gz=$(gzip -9 -c "$wasm" | wc -c)
printf 'make web: %s  %d bytes, %d gzipped (-9)\n' "$wasm" "$raw" "$gz" >&2
for l in en zh; do
  printf 'make web: %s  %d bytes, %d gzipped (-9)\n' "$out/first-assert.$l.json" "$(stat -c %s "$out/first-assert.$l.json")" "$(gzip -9 -c "$out/first-assert.$l.json" | wc -c)" >&2
done
