//! Writes the rules page (`www/rules.html`, by `make web`) to standard output.

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    print!("{}", first_assert::docs::rules_html());
}

#[cfg(target_arch = "wasm32")]
fn main() {}
