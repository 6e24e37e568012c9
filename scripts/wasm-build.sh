#!/usr/bin/env bash
# Builds the WebAssembly library the way the package ships it (scripts/build-web.sh, and
# scripts/bench-boundary.sh for its variant): profile `wasm` (opt-level z, fat LTO), the
# standard library built with the package, and the unstable flags below (RUSTC_BOOTSTRAP=1
# lets the stable compiler take them, for this build only; they change no code's meaning).
#
#   scripts/wasm-build.sh [cargo build arguments...]
#
# - `-Zbuild-std` with `-Cpanic=immediate-abort`: a panic is the WebAssembly trap
#   `unreachable` at once, with no message formatting, no panic hook and no unwinding
#   machinery in the package: 8.6 KB gzipped (zlib -9: 153,505 -> 144,894 bytes, measured
#   2026-12-02). Bad input never reaches a panic (the fuzz targets and the tests check it);
#   if a bug does, JavaScript gets `RuntimeError: unreachable` and the page reports it as the
#   analysis's error. Needs rustup's `rust-src` (scripts/ensure-tools.sh wasm-target).
# - `-Zlocation-detail=none`: no file, line and column kept for panics (4.9 KB when panics
#   still had messages).
# - `-Zfmt-debug=none`: no `Debug` formatting code (0.8 KB): nothing the package shows or
#   returns is formatted with it.
# - `-Zbuild-std-features=optimize_for_size`: the standard library's smaller variants (its
#   sorts, its formatting of numbers): 0.75 KB (zlib -9: 180,517 -> 179,766 bytes, measured
#   2026-12-07). Its unstable sorts may order equal elements otherwise; the engine sorts
#   stably or by full keys where an order shows, and the browser tests compare every report
#   with the command line's, which is built without it.
set -euo pipefail
cd "$(dirname "$0")/.."
RUSTC_BOOTSTRAP=1 cargo build --locked --lib --target wasm32-unknown-unknown --profile wasm \
  -Zbuild-std=std,panic_abort -Zbuild-std-features=optimize_for_size \
  --config 'target.wasm32-unknown-unknown.rustflags=["-Zlocation-detail=none", "-Zfmt-debug=none", "-Zunstable-options", "-Cpanic=immediate-abort"]' \
  "$@"
