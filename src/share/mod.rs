//! A report to share: Markdown for an issue or a forum post, with the personal data of the
//! input hidden, and the versions the input shows.
//!
//! The table of what is hidden and of which versions are read is data (`share/patterns.toml`,
//! with the examples each row must change and the lines it must leave alone); build.rs turns
//! it into JSON for this module and for the page. The page has its own reader of the same
//! table and its own writer of the same Markdown (`www/share.js`): the WebAssembly package has
//! no bytes to spare for them, and the page's link carries the report, which it renders from
//! JSON anyway. `tests/e2e/share.test.mjs` checks that both write the same Markdown, byte for
//! byte, on every test input.
//!
//! Native builds only (the CLI's `--format markdown`).

pub mod markdown;
pub mod redact;
pub mod versions;

use serde::Deserialize;

/// share/patterns.toml as JSON, as build.rs writes it (the page reads the same text, in its
/// share documents: [`page_document`]).
pub const TABLE_JSON: &str = include_str!(concat!(env!("OUT_DIR"), "/share.json"));

/// What the page's share.js reads for `lang` (`pkg/share.LANG.json`, written by `make web`):
/// the table, and the Markdown report's texts (the page's catalogue leaves them out: they are
/// needed only once a share button is used).
pub fn page_document(lang: crate::lang::Lang) -> &'static str {
    match lang {
        crate::lang::Lang::En => include_str!(concat!(env!("OUT_DIR"), "/share-web.en.json")),
        crate::lang::Lang::Zh => include_str!(concat!(env!("OUT_DIR"), "/share-web.zh.json")),
    }
}

/// The table of share/patterns.toml.
#[derive(Debug, Deserialize)]
pub struct Table {
    /// The kinds of personal data, in the order counts are told.
    pub kinds: Vec<String>,
    pub redact: Vec<RedactRow>,
    pub version: Vec<VersionRow>,
}

/// A row of the redaction table (share/patterns.toml says what each field means).
#[derive(Debug, Deserialize)]
pub struct RedactRow {
    pub kind: String,
    pub pattern: String,
    pub flags: String,
    pub with: Vec<String>,
    pub mixed: bool,
    pub examples: Vec<String>,
    pub keeps: Vec<String>,
}

/// A row of the versions table.
#[derive(Debug, Deserialize)]
pub struct VersionRow {
    pub what: String,
    pub pattern: String,
    pub flags: String,
    pub examples: Vec<String>,
}

/// The table, read once.
pub fn table() -> &'static Table {
    static TABLE: std::sync::OnceLock<Table> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| serde_json::from_str(TABLE_JSON).expect("build.rs writes share.json from a checked table"))
}

/// A row's pattern compiled with its flags (`i`, `m`), as the rest of the engine compiles
/// patterns (ASCII classes). The CLI's `regex` has no Unicode case tables, so `i` is ASCII
/// case folding, as JavaScript's without the `u` flag.
fn compile(pattern: &str, flags: &str) -> crate::re::Regex {
    let mut src = pattern.to_string();
    if flags.contains('i') {
        src = format!("(?i-u:{src})");
    }
    if flags.contains('m') {
        src = format!("(?m){src}");
    }
    crate::re::compile(&src).unwrap_or_else(|e| panic!("share/patterns.toml: {e}"))
}
