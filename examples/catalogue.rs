//! Writes the catalogue documents the WebAssembly package reads (`make web`):
//! `DIR/first-assert.en.json` and `DIR/first-assert.zh.json`, and what the page's share.js reads
//! (`DIR/share.en.json`, `DIR/share.zh.json`: share/patterns.toml as JSON and the Markdown
//! report's texts).
//!
//!   cargo run --release --example catalogue -- www/pkg
use first_assert::{text::catalogue, Lang};

fn main() {
    let dir = std::env::args().nth(1).unwrap_or_else(|| "www/pkg".into());
    for lang in Lang::ALL {
        let path = std::path::Path::new(&dir).join(format!("first-assert.{}.json", lang.code()));
        if let Err(e) = std::fs::write(&path, catalogue::web(lang)) {
            eprintln!("catalogue: cannot write {}: {e}", path.display());
            std::process::exit(2);
        }
    }
    for lang in Lang::ALL {
        let path = std::path::Path::new(&dir).join(format!("share.{}.json", lang.code()));
        if let Err(e) = std::fs::write(&path, first_assert::share::page_document(lang)) {
            eprintln!("catalogue: cannot write {}: {e}", path.display());
            std::process::exit(2);
        }
    }
}
