//! Writes the catalogue documents the WebAssembly package reads (`make web`):
//! `DIR/first-assert.en.json` and `DIR/first-assert.zh.json`, and the sharing table the page's
//! share.js reads (`DIR/share.json`, share/patterns.toml as JSON).
//!
//!   cargo run --release --example catalogue -- www/pkg
use first_assert::{catalogue, Lang};

fn main() {
    let dir = std::env::args().nth(1).unwrap_or_else(|| "www/pkg".into());
    for lang in Lang::ALL {
        let path = std::path::Path::new(&dir).join(format!("first-assert.{}.json", lang.code()));
        if let Err(e) = std::fs::write(&path, catalogue::web(lang)) {
            eprintln!("catalogue: cannot write {}: {e}", path.display());
            std::process::exit(2);
        }
    }
    let path = std::path::Path::new(&dir).join("share.json");
    if let Err(e) = std::fs::write(&path, first_assert::share::TABLE_JSON) {
        eprintln!("catalogue: cannot write {}: {e}", path.display());
        std::process::exit(2);
    }
}
