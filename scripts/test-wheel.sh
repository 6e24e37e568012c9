#!/usr/bin/env bash
# The Python package's tests (tests/python/test_package.py): make wheel, the wheel installed into
# the probe's test environment (scripts/ensure-tools.sh torch: one cached environment with
# Colab's IPython and ipykernel), and the package's command and API against the native CLI.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
bash scripts/wheel.sh
bash scripts/ensure-tools.sh torch
env=$(bash scripts/ensure-tools.sh torch-env)
"$env/bin/pip" install --quiet --disable-pip-version-check --force-reinstall --no-deps dist/wheels/*.whl
cargo build --release --locked --quiet --bin first-assert
FIRST_ASSERT_BIN=target/release/first-assert "$env/bin/python" -W ignore tests/python/test_package.py
printf 'test-wheel: %ds\n' "$(($(date +%s) - start))" >&2
