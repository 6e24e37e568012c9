//! The `first-assert` command. The command line is native only: in a WebAssembly build (the
//! browser tests compile every target) this is an empty program.

#[cfg(not(target_arch = "wasm32"))]
mod cli;

#[cfg(not(target_arch = "wasm32"))]
fn main() -> std::process::ExitCode {
    cli::main()
}

#[cfg(target_arch = "wasm32")]
fn main() {}
