#!/usr/bin/env bash
# make bench-fleet: fleet triage against what a team would run instead, on a fleet generated from
# a seed (examples/genfleet.rs: JOBS jobs of RANKS ranks, a log per rank of ~KB kilobytes, every
# tenth log gzipped, torchrun's error files). Every figure is the best of RUNS runs, measured in
# this one run, printed with its ratio to `first-assert triage`'s own time; page cache warm.
#
#   first-assert triage            all cores (this machine's), then --jobs 1
#   one process per file           `first-assert --format json` per file (gzip -dc piped in for
#                                  .gz), as many at once as cores: what a loop over the folder does
#   ripgrep -l -z                  only the names of the files with a match (the assert's words),
#                                  gzip read too: no first line, no cause, no groups. The floor.
#   Ray Data, 1 and 2 workers      examples/fleet/ray_triage.py on a local Ray: its own time to
#                                  read, triage and collect, and its start-up apart (the Jupyter
#                                  test environment with the wheel; skipped with RAY=0), and
#                                  Ray reading the files alone, its floor
#
#   RUNS=3 JOBS=250 RANKS=16 KB=16 SEED=1 RAY=1 scripts/bench-fleet.sh
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-3}
JOBS=${JOBS:-250}
RANKS=${RANKS:-16}
KB=${KB:-16}
SEED=${SEED:-1}
RAY=${RAY:-1}
bash scripts/ensure-tools.sh ripgrep
cargo build --release --locked --quiet --bin first-assert --example genfleet
bin=$PWD/target/release/first-assert
d=bench-data/fleet-$JOBS-$RANKS-$KB-seed$SEED
if [ ! -d "$d" ] || [ target/release/examples/genfleet -nt "$d" ]; then
  rm -rf "$d"; mkdir -p bench-data
  target/release/examples/genfleet "$d" "$JOBS" "$RANKS" --kb "$KB" --seed "$SEED" > "$d.json"
fi
files=$(find "$d" -type f | wc -l)
bytes=$(du -sb "$d" | cut -f1)
mb=$(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1048576 }')
cores=$(nproc)

# best of RUNS: seconds of a command (its output thrown away).
best() {
  local t best_t="" t0 t1
  for _ in $(seq "$RUNS"); do
    t0=$(date +%s%N)
    "$@" > /dev/null 2>&1 || true
    t1=$(date +%s%N)
    t=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", (b - a) / 1e9 }')
    if [ -z "$best_t" ] || awk -v a="$t" -v b="$best_t" 'BEGIN { exit !(a < b) }'; then best_t=$t; fi
  done
  echo "$best_t"
}

per_file() { # one first-assert process per file, $cores at once
  find "$d" -type f -print0 | xargs -0 -n 1 -P "$cores" sh -c '
    case "$1" in
      *.gz) gzip -dc "$1" | "$0" --format json - ;;
      *) "$0" --format json "$1" ;;
    esac' "$bin"
}

cat "$(find "$d" -type f | head -n 1)" > /dev/null
find "$d" -type f -exec cat {} + > /dev/null
ours=$(best "$bin" triage --format jsonl "$d")
line() { # name seconds [note]
  awk -v n="$1" -v t="$2" -v o="$ours" -v f="$files" -v mb="$mb" -v note="${3:-}" \
    'BEGIN { printf "  %-36s %9.2f %9.0f %9.1f %8.2fx  %s\n", n, t, f / t, mb / t, t / o, note }'
}
echo "fleet triage benchmark, $(date -u +%Y-%m-%d), $cores cores: $files files ($(jq -r '"\(.logs) logs, \(.gzipped) gzipped, \(.error_files) error files"' "$d.json" 2>/dev/null || echo "logs and error files")), $mb MB; best of $RUNS; ratio = time / first-assert triage"
printf '  %-36s %9s %9s %9s %9s\n' tool s files/s MB/s ratio
line "first-assert triage (all cores)" "$ours"
line "first-assert triage --jobs 1" "$(best "$bin" triage --jobs 1 --format jsonl "$d")"
line "one process per file ($cores at once)" "$(best per_file)"
line "ripgrep -l -z (names only)" "$(best rg -l -z -e 'Assertion `.*` failed' -e 'device-side assert triggered' "$d")" "finds files, not first asserts"

if [ "$RAY" = 1 ]; then
  bash scripts/ensure-tools.sh jupyter
  jenv=$(bash scripts/ensure-tools.sh jupyter-env)
  if ! "$jenv/bin/python" -c "import first_assert, ray; assert hasattr(first_assert, 'triage_arrow')" 2> /dev/null; then
    WHEEL_TARGETS=x86_64-unknown-linux-gnu bash scripts/wheel.sh
    "$jenv/bin/pip" install --quiet --disable-pip-version-check --force-reinstall --no-deps dist/wheels/*_x86_64.whl
  fi
  out=$(mktemp)
  for w in 1 2; do
    best_t="" start=""
    for _ in $(seq "$RUNS"); do
      # "ray_triage: N files in T s (Ray started in S s)" on stderr.
      said=$("$jenv/bin/python" examples/fleet/ray_triage.py "$d" --out "$out" --workers "$w" 2>&1 > /dev/null | grep '^ray_triage:' || true)
      t=$(echo "$said" | sed -E 's/.* in ([0-9.]+) s \(.*/\1/')
      s=$(echo "$said" | sed -E 's/.*started in ([0-9.]+) s.*/\1/')
      [ -n "$t" ] || { echo "  Ray Data, $w worker(s): failed"; continue 2; }
      if [ -z "$best_t" ] || awk -v a="$t" -v b="$best_t" 'BEGIN { exit !(a < b) }'; then best_t=$t start=$s; fi
    done
    line "Ray Data, $w worker(s)" "$best_t" "plus ${start} s to start Ray"
  done
  rm -f "$out"
  # Ray's own floor: reading the files into its blocks and back, nothing done with them.
  floor=$("$jenv/bin/python" - "$d" "$RUNS" <<'PY' 2> /dev/null
import sys, time, ray
ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
best = min(
    (lambda t: (ray.data.read_binary_files(sys.argv[1], include_paths=True).take_all(), time.perf_counter() - t)[1])(time.perf_counter())
    for _ in range(int(sys.argv[2]))
)
print(f"{best:.4f}")
PY
)
  [ -z "$floor" ] || line "Ray Data reading alone, 2 workers" "$floor" "its floor: the files read, nothing done"
fi
