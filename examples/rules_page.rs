//! Writes the rules page (`www/rules.html`, by `make web`) to standard output.
fn main() {
    print!("{}", first_assert::docs::rules_html());
}
