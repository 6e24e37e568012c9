//! share/patterns.toml, the sharing table (what is hidden, which versions are read), as the JSON
//! the CLI and the page read.

use super::{fail, json};
use serde::Deserialize;
use std::path::Path;

/// A row of share/patterns.toml's `[[redact]]` table (the file says what each field means).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RedactRow {
    kind: String,
    pattern: String,
    #[serde(default)]
    flags: String,
    with: Vec<String>,
    #[serde(default)]
    mixed: bool,
    examples: Vec<String>,
    keeps: Vec<String>,
}

/// A row of share/patterns.toml's `[[version]]` table.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct VersionRow {
    what: String,
    pattern: String,
    #[serde(default)]
    flags: String,
    examples: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ShareTable {
    redact: Vec<RedactRow>,
    version: Vec<VersionRow>,
}

/// The kinds of personal data the redaction hides, in the order its counts are told.
const REDACT_KINDS: [&str; 7] = ["user", "folder", "host", "email", "ip", "token", "secret"];
const VERSION_WHATS: [&str; 4] = ["pytorch", "cuda", "python", "gpu"];

/// share/patterns.toml as JSON (src/share reads it with serde_json, the page's share.js with
/// JSON.parse): checked here for what a reader of it could get wrong.
pub fn share_table(path: &Path) -> String {
    let src = std::fs::read_to_string(path).unwrap_or_else(|e| fail(format!("cannot read {}: {e}", path.display())));
    let t: ShareTable = toml::from_str(&src).unwrap_or_else(|e| fail(format!("{}: {e}", path.display())));
    let p = path.display();
    let flags = |f: &str, what: &str| {
        if !f.chars().all(|c| c == 'i' || c == 'm') {
            fail(format!("{p}: {what}: flags are \"i\" and/or \"m\", not `{f}`"));
        }
    };
    let list = |v: &[String]| v.iter().map(|s| json(s)).collect::<Vec<_>>().join(",");
    let mut rows = Vec::new();
    for r in &t.redact {
        let what = format!("the `{}` row `{}`", r.kind, r.pattern);
        if !REDACT_KINDS.contains(&r.kind.as_str()) {
            fail(format!("{p}: {what}: kind is one of {REDACT_KINDS:?}"));
        }
        flags(&r.flags, &what);
        if r.with.is_empty() || r.examples.is_empty() || r.keeps.is_empty() {
            fail(format!("{p}: {what} needs `with`, `examples` and `keeps`"));
        }
        rows.push(format!(
            "{{\"kind\":{},\"pattern\":{},\"flags\":{},\"with\":[{}],\"mixed\":{},\"examples\":[{}],\"keeps\":[{}]}}",
            json(&r.kind),
            json(&r.pattern),
            json(&r.flags),
            list(&r.with),
            r.mixed,
            list(&r.examples),
            list(&r.keeps)
        ));
    }
    let mut versions = Vec::new();
    for v in &t.version {
        if !VERSION_WHATS.contains(&v.what.as_str()) {
            fail(format!("{p}: the version row `{}`: what is one of {VERSION_WHATS:?}", v.pattern));
        }
        flags(&v.flags, &v.pattern);
        versions.push(format!(
            "{{\"what\":{},\"pattern\":{},\"flags\":{},\"examples\":[{}]}}",
            json(&v.what),
            json(&v.pattern),
            json(&v.flags),
            list(&v.examples)
        ));
    }
    format!(
        "{{\"kinds\":[{}],\"redact\":[\n{}\n],\"version\":[\n{}\n]}}\n",
        list(&REDACT_KINDS.map(String::from)),
        rows.join(",\n"),
        versions.join(",\n")
    )
}
