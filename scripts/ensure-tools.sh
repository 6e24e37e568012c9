#!/usr/bin/env bash
# Installs what the tests need, idempotently and quickly when it is already there.
#
#   scripts/ensure-tools.sh [wasm-target] [wasm-bindgen] [chromium] [npm]
#
# wasm-target   the rustup target wasm32-unknown-unknown and the component rust-src
# wasm-bindgen  wasm-bindgen-cli at exactly the version of the wasm-bindgen crate in Cargo.lock
# chromium      Debian's chromium and chromium-driver, and fonts-noto-cjk so the Chinese page's
#               screenshots show characters, not boxes (apt-get, only when running as root)
# npm           the npm packages of tests/e2e and scripts/web, from their lockfiles (npm ci)
# esbuild       the npm packages of scripts/web alone (esbuild, for make web)
# cargo-fuzz    the nightly toolchain and cargo-fuzz (for scripts/fuzz.sh)
# ripgrep       Debian's ripgrep, the peer of make bench (apt-get, only when running as root)
# jupyter       a virtual environment with today's Jupyter (IPython 9, ipykernel 7:
#               tests/python/requirements-jupyter.txt), the notebook extension's second kernel,
#               and fleet triage's engines (ray[data], pyarrow, duckdb).
#               Where: $FIRST_ASSERT_JUPYTER_ENV, default ~/.cache/first-assert/jupyter
# wheel         a virtual environment with maturin, ziglang and auditwheel (python/requirements-build.txt),
#               for make wheel. Where: $FIRST_ASSERT_WHEEL_ENV, default ~/.cache/first-assert/wheel
# torch         a virtual environment with PyPI's torch (tests/probe/requirements.txt), for the
#               probe cell's tests and Colab's kernel: ~2 minutes and ~5 GB once, then nothing
#               while the pins hold. Python 3.13 as Colab runs it ($FIRST_ASSERT_COLAB_PYTHON,
#               else python3.13 on PATH or pyenv's; else python3, said).
#               Where: $FIRST_ASSERT_TORCH_ENV, default ~/.cache/first-assert/torch
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf 'ensure-tools: %s\n' "$*" >&2; }

wasm_target() {
  if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
    say "adding the rustup target wasm32-unknown-unknown"
    rustup target add wasm32-unknown-unknown
  fi
  # The standard library's source: the package builds its own (scripts/wasm-build.sh).
  if ! rustup component list --installed 2>/dev/null | grep -q '^rust-src'; then
    say "adding the rustup component rust-src"
    rustup component add rust-src
  fi
}

locked_version() {
  # The version of a package in Cargo.lock.
  awk -v name="$1" '$1 == "name" && $3 == "\"" name "\"" { getline; gsub(/"/, "", $3); print $3; exit }' Cargo.lock
}

wasm_bindgen() {
  local want have
  want=$(locked_version wasm-bindgen)
  if [ -z "$want" ]; then
    say "Cargo.lock has no wasm-bindgen; nothing to install"
    return
  fi
  have=$(wasm-bindgen --version 2>/dev/null | awk '{print $2}') || true
  if [ "$have" = "$want" ]; then
    return
  fi
  say "installing wasm-bindgen-cli $want (found: ${have:-none}); this takes a few minutes once"
  # Not --locked: its lockfile pins a webpki-roots release the registry mirror here lacks.
  cargo install wasm-bindgen-cli --version "=$want"
}

# apt_install FOR PACKAGE...: Debian's packages, as root only (else a clear message).
apt_install() {
  local for=$1
  shift
  if [ "$(id -u)" != 0 ]; then
    say "missing and this is not root: install Debian's $* (for $for)"
    exit 1
  fi
  say "installing Debian's $*"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "$@" >/dev/null
}

chromium() {
  if command -v chromium >/dev/null && command -v chromedriver >/dev/null && [ -d /usr/share/fonts/opentype/noto ]; then
    return
  fi
  apt_install "the browser tests" chromium chromium-driver fonts-noto-cjk
}

npm_packages() {
  local dir
  for dir in "$@"; do
    [ -f "$dir/package-lock.json" ] || continue
    if [ -d "$dir/node_modules" ] && [ "$dir/node_modules/.package-lock.json" -nt "$dir/package-lock.json" ]; then
      continue
    fi
    say "installing the npm packages of $dir from its lockfile"
    (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
  done
}

ripgrep() {
  command -v rg >/dev/null && return
  apt_install "make bench" ripgrep
}

cargo_fuzz() {
  if ! rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
    say "adding the nightly toolchain (cargo fuzz needs it)"
    rustup toolchain install nightly --profile minimal
  fi
  if ! command -v cargo-fuzz >/dev/null; then
    say "installing cargo-fuzz; this takes a couple of minutes once"
    cargo install cargo-fuzz --locked
  fi
}

# The environment of the probe's tests; its python is $(torch_env)/bin/python.
torch_env() {
  printf '%s\n' "${FIRST_ASSERT_TORCH_ENV:-${XDG_CACHE_HOME:-$HOME/.cache}/first-assert/torch}"
}

# The Python Colab runs (3.13): the kernel tests run Colab's pins under it.
colab_python() {
  local p
  for p in "${FIRST_ASSERT_COLAB_PYTHON:-}" "$(command -v python3.13 || true)" "$HOME"/.pyenv/versions/3.13*/bin/python3; do
    # (A pyenv shim is on PATH whether or not it runs: ask it.)
    if [ -n "$p" ] && [ -x "$p" ] && "$p" -c 'import sys; assert sys.version_info[:2] == (3, 13)' 2>/dev/null; then
      printf '%s\n' "$p"
      return
    fi
  done
  say "no Python 3.13 here (Colab's): the torch environment uses $(command -v python3)"
  command -v python3
}

torch() {
  venv "$(torch_env)" tests/probe/requirements.txt "~2 minutes, ~5 GB" "$(colab_python)"
}

# venv ENV REQUIREMENTS HOW-LONG [PYTHON]: a virtual environment at ENV with REQUIREMENTS
# installed by PYTHON (default python3), made anew only when they or the Python changed (a copy
# of them and the Python's version in ENV say what it holds).
venv() {
  local env=$1 req=$2 python=${4:-python3} stamp="$1/.first-assert-requirements" want
  want=$(cat "$req"; "$python" -c 'import sys; print("# python", sys.version.split()[0])')
  if [ -x "$env/bin/python" ] && [ "$want" = "$(cat "$stamp" 2>/dev/null)" ]; then
    return
  fi
  say "installing $(grep -v '^#' "$req" | tr '\n' ' ')into $env with $python (once: $3)"
  rm -rf "$env"
  "$python" -m venv "$env"
  "$env/bin/pip" install --quiet --disable-pip-version-check -r "$req"
  printf '%s\n' "$want" > "$stamp"
}

# The environment make wheel builds in; its maturin is $(wheel_env)/bin/maturin.
wheel_env() {
  printf '%s\n' "${FIRST_ASSERT_WHEEL_ENV:-${XDG_CACHE_HOME:-$HOME/.cache}/first-assert/wheel}"
}

wheel() {
  venv "$(wheel_env)" python/requirements-build.txt "~1 minute"
}

jupyter_env() {
  printf '%s\n' "${FIRST_ASSERT_JUPYTER_ENV:-${XDG_CACHE_HOME:-$HOME/.cache}/first-assert/jupyter}"
}

jupyter() {
  venv "$(jupyter_env)" tests/python/requirements-jupyter.txt "~1 minute, ~700 MB"
}

for what in "$@"; do
  case "$what" in
    wasm-target) wasm_target ;;
    wasm-bindgen) wasm_bindgen ;;
    chromium) chromium ;;
    npm) npm_packages tests/e2e scripts/web ;;
    esbuild) npm_packages scripts/web ;;
    cargo-fuzz) cargo_fuzz ;;
    ripgrep) ripgrep ;;
    torch) torch ;;
    torch-env) torch_env ;;
    wheel) wheel ;;
    wheel-env) wheel_env ;;
    jupyter) jupyter ;;
    jupyter-env) jupyter_env ;;
    *) say "unknown tool: $what"; exit 2 ;;
  esac
done
