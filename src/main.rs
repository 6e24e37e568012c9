//! The `first-assert` command (`src/cli.rs`, in the library so that the Python package runs the
//! same code). The command line is native only: in a WebAssembly build (the browser tests
//! compile every target) this is an empty program.

#[cfg(not(target_arch = "wasm32"))]
fn main() -> std::process::ExitCode {
    first_assert::cli::main()
}

#[cfg(target_arch = "wasm32")]
fn main() {}
