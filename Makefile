# first-assert: the targets the project keeps.
#
#   make serve   builds the engine and the page, and serves the page (demo logs included)
#                on http://127.0.0.1:8000
#   make test    every test the project has (installs what they need first, PyTorch for the
#                probe cell's tests among them: ~2 minutes and ~5 GB once, in ~/.cache)
#   make web     the WebAssembly package and the bookmarklet in www/pkg, the extension in
#                dist/extension (FIRST_ASSERT_ORIGIN: the site its shared links point at)
#   make bench   throughput of the CLI on generated logs, and the page in headless Chromium
#   make bench-fleet  fleet triage on a generated fleet of 4,000 logs against one process per
#                file, ripgrep and Ray Data
#   make report  the CLI's reports on the demo logs, in the terminal
#   make calibration  how often a cause stated at p is right, over the project's labelled
#                fixtures (CALIBRATE=DIR... for other labelled outputs)
#   make dist    what a user hosts, installs and publishes, in dist/: the site (for ORIGIN, where
#                it will be served; default the origin of make serve) with its package index
#                (simple/) and downloads, the extension's zips, the npm package, the CLI's
#                tarball, the Python package's wheels
#   make wheel   the Python package: one abi3 manylinux_2_17 wheel per architecture (x86_64,
#                aarch64) in dist/wheels

CARGO ?= cargo
PORT ?= 8000
# Where make dist's site will be served from (a sub-path is fine), and where it writes.
ORIGIN ?= http://127.0.0.1:$(PORT)
DIST ?= dist
# Seconds per fuzz target in make test (a smoke run; scripts/fuzz.sh 1200 for a long one).
FUZZ_SECONDS ?= 60
BIN := target/release/first-assert
E2E := tests/e2e

.PHONY: build test tools web serve report bench bench-fleet dist clean calibration wheel

build:
	$(CARGO) build --release --locked

tools:
	@bash scripts/ensure-tools.sh wasm-target wasm-bindgen chromium npm cargo-fuzz

web:
	@bash scripts/build-web.sh

serve: web
	$(CARGO) build --release --locked --example serve
	target/release/examples/serve --root www --port $(PORT)

test: tools
	node scripts/lint-workflows.mjs
	$(CARGO) test --locked
	CHROMEDRIVER=$${CHROMEDRIVER:-/usr/bin/chromedriver} $(CARGO) test --locked --target wasm32-unknown-unknown --features embedded-texts --test web
	@bash scripts/build-web.sh
	$(CARGO) build --release --locked --bin first-assert --example serve
	$(CARGO) run --release --locked --example calibration -- tests/cases tests/priors tests/lineage
	@bash scripts/test-wheel.sh
	cd $(E2E) && node --test
	@bash scripts/test-probe.sh
	@bash scripts/fuzz.sh $(FUZZ_SECONDS)

# The project's own labelled outputs by default; the table's test is tests/priors.rs.
CALIBRATE ?= tests/cases tests/priors tests/lineage
calibration:
	$(CARGO) run --release --locked --example calibration -- $(CALIBRATE)

dist:
	@bash scripts/dist.sh $(ORIGIN) $(DIST)

wheel:
	@bash scripts/wheel.sh

report: build
	@for f in www/demo/*; do printf '\n\033[1m=== %s\033[0m\n' "$$f"; $(BIN) --color always "$$f" || true; done

bench: build web
	@bash scripts/ensure-tools.sh chromium npm ripgrep
	@bash scripts/bench.sh
	@bash scripts/bench-boundary.sh
	$(CARGO) bench --locked --bench stages
	$(CARGO) build --release --locked --example serve
	cd $(E2E) && node bench.mjs && node bench-notebook.mjs && node bench-file.mjs
	@bash scripts/ensure-tools.sh torch
	@$$(bash scripts/ensure-tools.sh torch-env)/bin/python -W ignore tests/probe/overhead.py 2>/dev/null
	@bash scripts/bench-fleet.sh

bench-fleet:
	@bash scripts/bench-fleet.sh

clean:
	$(CARGO) clean
	rm -rf bench-data dist www/pkg www/rules.html fuzz/target fuzz/corpus fuzz/artifacts $(E2E)/node_modules $(E2E)/artifacts
