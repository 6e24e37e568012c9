//! The probe cell (probe/probe.py with its texts, probe/texts.toml): its check groups, and the
//! cell composed in each language.

use super::{fail, Message};
use std::collections::BTreeMap;

/// The probe's check groups: the `"id": "ops",` lines of `_GROUPS = {` in probe/probe.py.
pub fn probe_groups(template: &str) -> Vec<(String, String)> {
    let start = template.find("\n_GROUPS = {\n").unwrap_or_else(|| fail("probe/probe.py: no `_GROUPS = {`".into()));
    let body = &template[start + 13..];
    let body = &body[..body.find("\n}").unwrap_or_else(|| fail("probe/probe.py: `_GROUPS` is not closed".into()))];
    let groups: Vec<(String, String)> = body
        .lines()
        .map(|l| {
            let mut q = l.trim().trim_end_matches(',').split('"').filter(|p| !p.trim().is_empty() && p.trim() != ":");
            match (q.next(), q.next(), q.next()) {
                (Some(id), Some(ops), None) => (id.to_string(), ops.to_string()),
                _ => fail(format!("probe/probe.py: `{l}` is not a `\"id\": \"ops\",` line of _GROUPS")),
            }
        })
        .collect();
    if groups.is_empty() {
        fail("probe/probe.py: `_GROUPS` is empty".into());
    }
    groups
}

/// The probe cell in one language: each `#@@key@@` becomes comment lines and each `@@key@@` the
/// text inside its Python string; `{version}` the crate's version. `{probe_suspects}` stays for
/// the engine (`src/probe.rs`).
/// The probe cell's template with the shared code put in: `#<<fd>>` is the Python package's
/// forwarding of fd 2 and fd 1 (python/first_assert/_fd.py), one copy for both.
pub fn probe_template() -> String {
    let template = std::fs::read_to_string("probe/probe.py").unwrap_or_else(|e| fail(format!("probe/probe.py: {e}")));
    let fd = std::fs::read_to_string("python/first_assert/_fd.py")
        .unwrap_or_else(|e| fail(format!("python/first_assert/_fd.py: {e}")));
    if fd.contains("@@") || !template.contains("#<<fd>>") {
        fail("probe/probe.py needs one `#<<fd>>`, and python/first_assert/_fd.py no `@@`".into());
    }
    template.replacen("#<<fd>>", fd.trim_end(), 1)
}

pub fn compose_probe(template: &str, texts: &BTreeMap<String, Message>, lang: &str) -> String {
    let version = std::env::var("CARGO_PKG_VERSION").unwrap_or_default();
    let mut out = String::with_capacity(template.len() * 2);
    let mut rest = template;
    let mut used = Vec::new();
    while let Some(at) = rest.find("@@") {
        let comment = rest[..at].ends_with('#');
        out.push_str(&rest[..if comment { at - 1 } else { at }]);
        let after = &rest[at + 2..];
        let end =
            after.find("@@").unwrap_or_else(|| fail("probe/probe.py: an `@@key` without its closing `@@`".into()));
        let key = &after[..end];
        let m = texts
            .get(key)
            .unwrap_or_else(|| fail(format!("probe/texts.toml: no text `{key}` (probe/probe.py uses it)")));
        let text = if lang == "en" { &m.en } else { &m.zh }.trim_matches('\n');
        if comment {
            let lines: Vec<String> = text.lines().map(|l| format!("# {l}").trim_end().to_string()).collect();
            out.push_str(&lines.join("\n"));
        } else {
            if text.contains(['"', '\\', '\n']) {
                fail(format!(
                    "probe/texts.toml: `{key}` ({lang}) stands in a Python string: no quote, backslash or newline"
                ));
            }
            out.push_str(text);
        }
        used.push(key.to_string());
        rest = &after[end + 2..];
    }
    out.push_str(rest);
    if let Some(k) = texts.keys().find(|k| !used.contains(k)) {
        fail(format!("probe/texts.toml: `{k}` is not used by probe/probe.py"));
    }
    out.replace("{version}", &version)
}
