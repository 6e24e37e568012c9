#!/usr/bin/env bash
# Runs the probe cell's tests (tests/probe/test_probe.py) against real PyTorch on the CPU:
# installs the pinned torch into a cached virtual environment first (scripts/ensure-tools.sh
# torch), and uses the release CLI to generate the probes.
set -euo pipefail
cd "$(dirname "$0")/.."

start=$(date +%s)
bash scripts/ensure-tools.sh torch
env=$(bash scripts/ensure-tools.sh torch-env)
ready=$(date +%s)
cargo build --release --locked --quiet --bin first-assert
FIRST_ASSERT_BIN=target/release/first-assert "$env/bin/python" -W ignore tests/probe/test_probe.py 2> >(grep -v '^first-assert probe o' >&2)
end=$(date +%s)
printf 'test-probe: torch environment %ds, tests %ds\n' "$((ready - start))" "$((end - ready))" >&2
