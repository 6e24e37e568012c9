# first-assert: the targets the project keeps.
#
#   make serve   builds the engine and shows its reports on the demo inputs
#   make test    every test the project has (installs what they need first)
#   make web     the WebAssembly package and the static page (browser issue)
#   make bench   throughput on generated logs

CARGO ?= cargo
BIN := target/release/first-assert

.PHONY: build test tools serve web bench clean

build:
	$(CARGO) build --release --locked

tools:
	@bash scripts/ensure-tools.sh wasm-target

test: tools
	$(CARGO) test --locked
	$(CARGO) check --locked --lib --target wasm32-unknown-unknown

serve: build
	@for f in www/demo/*; do printf '\n\033[1m=== %s\033[0m\n' "$$f"; $(BIN) --color always "$$f" || true; done

web:
	@echo "make web: the WebAssembly package and the page come with the browser issue" >&2

bench: build
	@bash scripts/bench.sh

clean:
	$(CARGO) clean
	rm -rf bench-data
