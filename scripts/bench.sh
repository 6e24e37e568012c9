#!/usr/bin/env bash
# Throughput of the release CLI on generated training logs (page cache warm, best of 5 runs).
# A first figure; the full comparison with ripgrep, grep, Python and JavaScript peers belongs
# to the benchmarks issue.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --locked --quiet --example genlog
mkdir -p bench-data
bin=target/release/first-assert
row() { # name file
  local f=$2 times=() s e
  cat "$f" > /dev/null
  for _ in 1 2 3 4 5; do
    s=$(date +%s%N); "$bin" "$f" > /dev/null || true; e=$(date +%s%N)
    times+=("$((e - s))")
  done
  printf '%s\n' "${times[@]}" | awk -v name="$1" -v bytes="$(stat -c %s "$f")" '
    NR == 1 || $1 < best { best = $1 }
    END { mb = bytes / 1048576; s = best / 1e9; printf "%-34s %8.1f MB %9.3f s %9.0f MB/s\n", name, mb, s, mb / s }'
}
[ -f bench-data/train-100m.log ] || target/release/examples/genlog 100 > bench-data/train-100m.log
[ -f bench-data/train-100m-assert.log ] || target/release/examples/genlog 100 --assert > bench-data/train-100m-assert.log
printf '%-34s %11s %11s %14s\n' input size time throughput
row "training log, no error" bench-data/train-100m.log
row "training log, assert near the end" bench-data/train-100m-assert.log
