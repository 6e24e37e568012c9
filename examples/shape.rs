//! Prints each line of a text with the kind `scan::shape` gives it and the kind's weight: what
//! a rule author reads when a text is judged shown, described or mentioned against their
//! expectation. `cargo run --release --example shape -- FILE`
use first_assert::scan::shape::{kind, weight};

fn main() {
    let Some(file) = std::env::args().nth(1) else {
        eprintln!("usage: shape FILE");
        std::process::exit(2);
    };
    let bytes = std::fs::read(&file).unwrap_or_else(|e| {
        eprintln!("{file}: {e}");
        std::process::exit(2);
    });
    for (i, line) in String::from_utf8_lossy(&bytes).split('\n').enumerate() {
        let k = kind(line);
        let shown: String = line.chars().take(120).collect();
        println!("{:5} {:>9} {:+} | {shown}", i + 1, format!("{k:?}"), weight(k));
    }
}
