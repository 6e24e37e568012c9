//! Writes the catalogue documents the WebAssembly package reads (`make web`):
//! `DIR/first-assert.en.json` and `DIR/first-assert.zh.json` (the npm package's), the same in the
//! two parts the page fetches (`first-assert.LANG.page.json`: all but the probe's code, for its
//! first visit; `first-assert.LANG.probe.json`: the probe's code, at the first sign of input),
//! and what the page's share.js reads
//! (`DIR/share.en.json`, `DIR/share.zh.json`: share/patterns.toml as JSON and the Markdown
//! report's texts), and `DIR/host-texts.json`: the hosts' texts in both languages (the
//! bookmarklet's toasts, the badges in a notebook's page), which scripts/adapters-script.mjs
//! bundles into the bookmarklet and the extension's scripts.
//!
//!   cargo run --release --example catalogue -- www/pkg
use first_assert::{text::catalogue, Lang, Msg};

fn main() {
    let dir = std::env::args().nth(1).unwrap_or_else(|| "www/pkg".into());
    for lang in Lang::ALL {
        let [page, probe] = catalogue::page_parts(lang);
        for (part, doc) in [("", catalogue::web(lang)), (".page", page), (".probe", probe)] {
            let path = std::path::Path::new(&dir).join(format!("first-assert.{}{part}.json", lang.code()));
            if let Err(e) = std::fs::write(&path, doc) {
                eprintln!("catalogue: cannot write {}: {e}", path.display());
                std::process::exit(2);
            }
        }
    }
    let host: Vec<String> = Lang::ALL
        .iter()
        .map(|&lang| {
            let texts: Vec<String> = Msg::ALL
                .iter()
                .filter(|m| m.key().starts_with("host_"))
                .map(|m| format!("{}: {}", json(m.key()), json(m.text(lang))))
                .collect();
            format!("{}: {{{}}}", json(lang.code()), texts.join(", "))
        })
        .collect();
    let path = std::path::Path::new(&dir).join("host-texts.json");
    if let Err(e) = std::fs::write(&path, format!("{{{}}}\n", host.join(", "))) {
        eprintln!("catalogue: cannot write {}: {e}", path.display());
        std::process::exit(2);
    }
    for lang in Lang::ALL {
        let path = std::path::Path::new(&dir).join(format!("share.{}.json", lang.code()));
        if let Err(e) = std::fs::write(&path, first_assert::share::page_document(lang)) {
            eprintln!("catalogue: cannot write {}: {e}", path.display());
            std::process::exit(2);
        }
    }
}

/// A string as JSON.
fn json(s: &str) -> String {
    first_assert::report_json::json(s)
}
