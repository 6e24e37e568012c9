#!/usr/bin/env bash
# make wheel: the Python package as one wheel for every CPython >= 3.9 (abi3) per architecture,
# x86_64 and aarch64 (GH200, DGX Spark and Jetson run CUDA on aarch64), tagged manylinux_2_17
# (maturin links with zig against glibc 2.17, so they install on Colab's 2.35 and any other glibc
# since; aarch64 is cross-built the same way), in dist/wheels; auditwheel checks each tag. The
# build tools come from python/requirements-build.txt, in a cached virtual environment
# (scripts/ensure-tools.sh wheel), the aarch64 standard library from rustup.
#
#   scripts/wheel.sh [OUTDIR]     (default dist/wheels)
#   WHEEL_TARGETS="x86_64-unknown-linux-gnu" scripts/wheel.sh    (one architecture)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-dist/wheels}
targets=${WHEEL_TARGETS:-x86_64-unknown-linux-gnu aarch64-unknown-linux-gnu}
bash scripts/ensure-tools.sh wheel
env=$(bash scripts/ensure-tools.sh wheel-env)
rm -rf "$out"
for target in $targets; do
  rustup target list --installed | grep -qx "$target" || rustup target add "$target" >&2
  arch=${target%%-*}
  # maturin finds zig on PATH (the ziglang package's launcher is in the environment's bin).
  PATH="$env/bin:$PATH" maturin build --release --locked --zig --compatibility manylinux2014 \
    --target "$target" --out "$out" --quiet >&2
  wheel=$(ls "$out"/*"_$arch.whl")
  shown=$("$env/bin/auditwheel" show "$wheel")
  printf '%s\n' "$shown" >&2
  grep -q "\"manylinux_2_17_$arch\"" <<<"$shown" || { echo "make wheel: $wheel is not manylinux_2_17_$arch" >&2; exit 1; }
  printf 'make wheel: %s, %d bytes\n' "$wheel" "$(stat -c %s "$wheel")" >&2
done
