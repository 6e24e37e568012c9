#!/usr/bin/env bash
# The package's reports as plain objects two ways (make bench, after scripts/bench.sh made the
# inputs): JSON.parse of the engine's own JSON (what www/pkg ships) against serde-wasm-bindgen
# (the `js-objects` feature, built here into target/boundary-pkg). Prints the bytes of each
# package and the time to analyse and to hand over a report, and checks both give the same.
set -euo pipefail
cd "$(dirname "$0")/.."
SEED=${SEED:-1}
bash scripts/ensure-tools.sh wasm-target wasm-bindgen
[ -f www/pkg/first_assert_bg.wasm ] || bash scripts/build-web.sh
# The same profile and flags as scripts/build-web.sh, in its own target directory so the
# shipped build's artefacts stay as they are.
bash scripts/wasm-build.sh --quiet --features js-objects --target-dir target/boundary
out=target/boundary-pkg
rm -rf "$out"
wasm-bindgen --target web --out-dir "$out" --remove-name-section --remove-producers-section \
  target/boundary/wasm32-unknown-unknown/wasm/first_assert.wasm
node scripts/strip-wasm-custom.mjs "$out/first_assert_bg.wasm" > /dev/null
cd tests/e2e && node bench-boundary.mjs "../../$out" "../../bench-data/seed$SEED"
