#!/usr/bin/env bash
# The Python package's tests: make wheel, the wheel installed into the probe's test environment
# (scripts/ensure-tools.sh torch: one cached environment with Colab's ipykernel), the package's
# command and API against the native CLI (tests/python/test_package.py), and the notebook
# extension in real kernels (tests/python/test_kernel.py).
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
bash scripts/wheel.sh
bash scripts/ensure-tools.sh torch
env=$(bash scripts/ensure-tools.sh torch-env)
"$env/bin/pip" install --quiet --disable-pip-version-check --force-reinstall --no-deps dist/wheels/*_x86_64.whl
cargo build --release --locked --quiet --bin first-assert --example genfleet
FIRST_ASSERT_BIN=target/release/first-assert "$env/bin/python" -W ignore tests/python/test_package.py
# %load_ext first_assert in real kernels (the kernels' debugger notes filtered out): Colab's
# (Python 3.13, IPython 7.34, ipykernel 6.17.1, with torch) and today's Jupyter's (IPython 9,
# ipykernel 7), loaded before the error (test_kernel.py) and after it (test_late.py).
kernel_tests() {
  local python=$1 t
  for t in test_kernel test_late; do
    (cd tests/python && "$python" -W ignore "$t.py") 2> >(grep -v -e '^0.00s - ' >&2)
  done
}
kernel_tests "$env/bin/python"
bash scripts/ensure-tools.sh jupyter
jenv=$(bash scripts/ensure-tools.sh jupyter-env)
"$jenv/bin/pip" install --quiet --disable-pip-version-check --force-reinstall --no-deps dist/wheels/*_x86_64.whl
kernel_tests "$jenv/bin/python"
# Fleet triage from Python: triage, triage_arrow, Ray Data's example and the DuckDB recipe.
"$jenv/bin/python" -W ignore tests/python/test_fleet.py
printf 'test-wheel: %ds\n' "$(($(date +%s) - start))" >&2
