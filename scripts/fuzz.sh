#!/usr/bin/env bash
# Runs the fuzz targets (fuzz/, cargo-fuzz on the nightly toolchain), each for SECONDS
# (default 60), seeded with the project's own fixtures. A crash stops the run and leaves its
# input in fuzz/artifacts/<target>/: add it to tests/fuzz-regressions/ once fixed.
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]      targets: text notebook cells analysis
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(text notebook cells analysis)

bash scripts/ensure-tools.sh cargo-fuzz
for t in "${targets[@]}"; do
  corpus=fuzz/corpus/$t
  mkdir -p "$corpus"
  case $t in
    notebook) seeds=(tests/cases/*.ipynb tests/cases/*.json) ;;
    *) seeds=(tests/cases/*.log tests/cases/*.ipynb tests/cases/*.json www/demo/*) ;;
  esac
  cp -n "${seeds[@]}" "$corpus"/ 2>/dev/null || true
  cp -n tests/fuzz-regressions/* "$corpus"/ 2>/dev/null || true
  echo "fuzz: $t for ${secs}s" >&2
  set +e
  (cd fuzz && cargo +nightly fuzz run "$t" "corpus/$t" -- -max_total_time="$secs" -max_len=262144 -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 2>&1) \
    | grep -E "^(stat::number_of_executed_units|stat::new_units_added|#[0-9]+[[:space:]]+(DONE|INITED)|SUMMARY|==[0-9]+==ERROR|thread .* panicked|Done [0-9]+ runs)"
  status=${PIPESTATUS[0]}
  set -e
  if [ "$status" -ne 0 ]; then
    echo "fuzz: $t failed (exit $status); the input is in fuzz/artifacts/$t" >&2
    exit 1
  fi
done
