#!/usr/bin/env bash
# make wheel: the Python package as one wheel for every CPython >= 3.9 (abi3), tagged
# manylinux_2_17 (maturin links with zig against glibc 2.17, so it installs on Colab's 2.35 and
# any other glibc since), in dist/wheels; auditwheel checks the tag. The build tools come from
# python/requirements-build.txt, in a cached virtual environment (scripts/ensure-tools.sh wheel).
#
#   scripts/wheel.sh [OUTDIR]     (default dist/wheels)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-dist/wheels}
bash scripts/ensure-tools.sh wheel
env=$(bash scripts/ensure-tools.sh wheel-env)
rm -rf "$out"
# maturin finds zig on PATH (the ziglang package's launcher is in the environment's bin).
PATH="$env/bin:$PATH" maturin build --release --locked --zig --compatibility manylinux2014 --out "$out" --quiet >&2
wheel=$(ls "$out"/*.whl)
"$env/bin/auditwheel" show "$wheel" >&2
printf 'make wheel: %s, %d bytes\n' "$wheel" "$(stat -c %s "$wheel")" >&2
