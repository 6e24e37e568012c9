//! The engine is layered: a module imports its own layer or a lower one, never a higher one,
//! and the modules' imports form no cycle. This test reads every `crate::` and `super::` path
//! in `src/` (test modules, comments and strings left out) and fails on an upward import, on a
//! cycle, on a root re-export used inside the crate (`crate::Report`: name the module) and on a
//! module the table does not place. A new module is placed in [`LAYERS`] on purpose.
//!
//! Read bottom-up, the table is the order in which a newcomer reads the engine: the data
//! (`report`, `facts`), the rules, the scanner, the diagnosis, the pipeline, the outputs.
#![cfg(not(target_arch = "wasm32"))]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Each module (or module prefix) and its layer. A path belongs to the longest entry it
/// starts with.
const LAYERS: &[(&str, u8)] = &[
    // 0: leaves, knowing nothing of PyTorch's output.
    ("lang", 0),
    ("json", 0),
    ("re", 0),
    ("order", 0),
    ("memo", 0),
    ("sanitize", 0),
    ("runtime_log", 0),
    ("find", 0),
    // 1: the report contract and the message keys.
    ("report", 1),
    ("text::msg", 1),
    // 2: what was observed, and the inputs' shapes.
    ("facts", 2),
    ("input", 2),
    ("findings", 2),
    // 3: the rules (data, and the choice of a cause).
    ("rules", 3),
    // 4: the texts, the scanner, a notebook's run (its order, the probed rerun, the checks on its
    // cells), reading Python source.
    ("text", 4),
    ("scan", 4),
    ("notebook", 4),
    ("code", 4),
    // 5: from facts to findings, and the findings worded as a report.
    ("diagnose", 5),
    ("words", 5),
    ("probe", 5),
    // 6: from an input to a report.
    ("pipeline", 6),
    // 7: what a report becomes.
    ("render", 7),
    ("card", 7),
    ("share", 7),
    ("view", 7),
    ("docs", 7),
    ("report_json", 7),
    ("triage", 7),
    // 8: the bindings and the command line: WebAssembly, Python, the terminal.
    ("wasm", 8),
    ("python", 8),
    ("cli", 8),
];

/// Files that are not modules of the library: its root (only `mod` and `pub use`) and the
/// command line's binary.
const SKIPPED: &[&str] = &["lib.rs", "main.rs"];

/// The table entry a module path belongs to.
fn entry(module: &str) -> Option<(&'static str, u8)> {
    LAYERS
        .iter()
        .filter(|(m, _)| module == *m || module.starts_with(&format!("{m}::")))
        .max_by_key(|(m, _)| m.len())
        .copied()
}

/// `src/scan/kernel.rs` → `scan::kernel`, `src/text/mod.rs` → `text`.
fn module_of(rel: &Path) -> String {
    let parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    let mut names: Vec<String> = parts.iter().map(|p| p.trim_end_matches(".rs").to_string()).collect();
    if names.last().is_some_and(|n| n == "mod") {
        names.pop();
    }
    names.join("::")
}

/// The code of a file with comments, strings and character literals blanked (newlines kept,
/// so line numbers hold).
fn mask(src: &str) -> String {
    let b: Vec<char> = src.chars().collect();
    let mut out = String::with_capacity(src.len());
    let blank = |out: &mut String, c: char| out.push(if c == '\n' { '\n' } else { ' ' });
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let next = b.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < b.len() && b[i] != '\n' {
                blank(&mut out, b[i]);
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < b.len() {
                if b[i] == '/' && b.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if b[i] == '*' && b.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    blank(&mut out, b[i]);
                    i += 1;
                }
            }
        } else if c == 'r' && (next == Some('"') || next == Some('#')) && !prev_is_ident(&b, i) {
            // A raw string: r"…", r#"…"#.
            let mut j = i + 1;
            let mut hashes = 0;
            while b.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if b.get(j) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            j += 1;
            let close: String = std::iter::once('"').chain(std::iter::repeat_n('#', hashes)).collect();
            while j < b.len() && !b[j..].iter().take(close.len()).copied().eq(close.chars()) {
                j += 1;
            }
            j = (j + close.len()).min(b.len());
            for &ch in &b[i..j] {
                blank(&mut out, ch);
            }
            i = j;
        } else if c == '"' {
            let mut j = i + 1;
            while j < b.len() && b[j] != '"' {
                j += if b[j] == '\\' { 2 } else { 1 };
            }
            j = (j + 1).min(b.len());
            for &ch in &b[i..j] {
                blank(&mut out, ch);
            }
            i = j;
        } else if c == '\'' && char_literal_len(&b[i..]).is_some() {
            let n = char_literal_len(&b[i..]).unwrap();
            for &ch in &b[i..i + n] {
                blank(&mut out, ch);
            }
            i += n;
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

fn prev_is_ident(b: &[char], i: usize) -> bool {
    i > 0 && (b[i - 1].is_alphanumeric() || b[i - 1] == '_')
}

/// The length of a character literal at the start of `b` (`'x'`, `'\n'`, `'\u{1F}'`), or
/// `None` for a lifetime.
fn char_literal_len(b: &[char]) -> Option<usize> {
    match b.get(1)? {
        '\\' => b.iter().skip(2).position(|&c| c == '\'').map(|p| p + 3),
        _ if b.get(2) == Some(&'\'') => Some(3),
        _ => None,
    }
}

/// The file's code before its test module (`#[cfg(test)]` or `#[cfg(all(test, …))]` followed by
/// `mod tests {`), which may import anything.
fn without_tests(code: &str) -> &str {
    let lines: Vec<&str> = code.split_inclusive('\n').collect();
    let mut offset = 0;
    for (i, l) in lines.iter().enumerate() {
        let t = l.trim();
        if t.starts_with("#[cfg(test)]") || t.starts_with("#[cfg(all(test") {
            let next = lines[i + 1..].iter().map(|l| l.trim()).find(|l| !l.is_empty()).unwrap_or("");
            if next.starts_with("mod tests {") || next.starts_with("pub(crate) mod tests {") {
                return &code[..offset];
            }
        }
        offset += l.len();
    }
    code
}

/// One import found in a file.
#[derive(Debug)]
struct Import {
    line: usize,
    /// The module path imported from, from the crate's root (`scan::kernel`), or the root
    /// item itself (`Report`).
    path: String,
}

/// Every path a `crate::` or `super::` prefix starts in `code`, groups (`crate::{a, b::c}`)
/// expanded, resolved from the crate's root.
fn imports(module: &str, code: &str) -> Vec<Import> {
    let mut out = Vec::new();
    let bytes = code.as_bytes();
    for (prefix, base) in [("crate::", String::new()), ("super::", parent(module))] {
        let mut from = 0;
        while let Some(p) = code[from..].find(prefix) {
            let at = from + p;
            from = at + prefix.len();
            if at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_' || bytes[at - 1] == b':') {
                continue;
            }
            let line = code[..at].matches('\n').count() + 1;
            let mut paths = Vec::new();
            tree(&code[from..], &base, &mut paths);
            out.extend(paths.into_iter().map(|path| Import { line, path }));
        }
    }
    out
}

/// The module `super` names from `module` ("" for the root): in src/scan/kernel.rs
/// (`scan::kernel`) it is `scan`, in src/text/mod.rs (`text`) the root.
fn parent(module: &str) -> String {
    match module.rsplit_once("::") {
        Some((p, _)) => p.to_string(),
        None => String::new(),
    }
}

/// Reads a use tree (`a::b`, `a::{b, c::d}`, `a::b::*`) at the start of `s`, pushing each
/// path's module part, joined to `base`.
fn tree(s: &str, base: &str, out: &mut Vec<String>) {
    let s = s.trim_start();
    if let Some(rest) = s.strip_prefix('{') {
        let mut depth = 0;
        let mut start = 0;
        let body: Vec<(usize, char)> = rest.char_indices().collect();
        for &(i, c) in &body {
            match c {
                '{' => depth += 1,
                '}' if depth == 0 => {
                    tree(&rest[start..i], base, out);
                    return;
                }
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    tree(&rest[start..i], base, out);
                    start = i + 1;
                }
                _ => {}
            }
        }
        return;
    }
    let ident: String = s.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
    if ident == "super" {
        let rest = s["super".len()..].strip_prefix("::").unwrap_or("");
        return tree(rest, &parent(base), out);
    }
    if ident.is_empty() || ident == "self" {
        if !base.is_empty() {
            out.push(base.to_string());
        }
        return;
    }
    let path = if base.is_empty() { ident.clone() } else { format!("{base}::{ident}") };
    let rest = &s[ident.len()..];
    match rest.strip_prefix("::") {
        Some(r) => tree(r, &path, out),
        None => out.push(path),
    }
}

/// The layer violations and import edges of the files given as (module, code).
fn check(files: &[(String, String, String)]) -> (Vec<String>, BTreeMap<&'static str, BTreeSet<&'static str>>) {
    let mut problems = Vec::new();
    let mut edges: BTreeMap<&'static str, BTreeSet<&'static str>> = BTreeMap::new();
    for (file, module, code) in files {
        let Some((from, from_layer)) = entry(module) else {
            problems.push(format!("{file}: module `{module}` has no layer in tests/layers.rs"));
            continue;
        };
        for imp in imports(module, without_tests(code)) {
            let path = imp.path;
            let head = path.split("::").next().unwrap_or("");
            if head.starts_with(|c: char| c.is_ascii_uppercase()) {
                problems.push(format!(
                    "{file}:{}: `crate::{head}` is a root re-export: name the module that defines it",
                    imp.line
                ));
                continue;
            }
            let Some((to, to_layer)) = entry(&path) else {
                problems.push(format!("{file}:{}: `{path}` is in no layer of tests/layers.rs", imp.line));
                continue;
            };
            if to_layer > from_layer {
                problems.push(format!(
                    "{file}:{}: layer {from_layer} ({from}) imports crate::{to} (layer {to_layer})",
                    imp.line
                ));
            }
            if to != from {
                edges.entry(from).or_default().insert(to);
            }
        }
    }
    (problems, edges)
}

/// A cycle among the edges, as `a -> b -> a`, if there is one.
fn cycle(edges: &BTreeMap<&'static str, BTreeSet<&'static str>>) -> Option<String> {
    fn visit<'a>(
        n: &'a str,
        edges: &BTreeMap<&'a str, BTreeSet<&'a str>>,
        state: &mut BTreeMap<&'a str, u8>,
        stack: &mut Vec<&'a str>,
    ) -> Option<String> {
        state.insert(n, 1);
        stack.push(n);
        for &m in edges.get(n).into_iter().flatten() {
            match state.get(m) {
                Some(1) => {
                    let start = stack.iter().position(|&s| s == m).unwrap();
                    let mut c: Vec<&str> = stack[start..].to_vec();
                    c.push(m);
                    return Some(c.join(" -> "));
                }
                Some(_) => {}
                None => {
                    if let Some(c) = visit(m, edges, state, stack) {
                        return Some(c);
                    }
                }
            }
        }
        stack.pop();
        state.insert(n, 2);
        None
    }
    let mut state = BTreeMap::new();
    for &n in edges.keys() {
        if !state.contains_key(n) {
            if let Some(c) = visit(n, edges, &mut state, &mut Vec::new()) {
                return Some(c);
            }
        }
    }
    None
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).expect("src/") {
        let p = e.expect("entry").path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

fn source_files() -> Vec<(String, String, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut paths = Vec::new();
    rust_files(&src, &mut paths);
    paths.sort();
    let mut files = Vec::new();
    for p in paths {
        let rel = p.strip_prefix(&src).unwrap();
        if rel.components().count() == 1 && SKIPPED.contains(&rel.to_str().unwrap()) {
            continue;
        }
        // A module's tests in a file of their own (`src/json/tests.rs`) may import anything,
        // as a test module inside a file may.
        if rel.file_name().is_some_and(|n| n == "tests.rs") {
            continue;
        }
        let code = mask(&std::fs::read_to_string(&p).unwrap());
        files.push((format!("src/{}", rel.display()), module_of(rel), code));
    }
    files
}

#[test]
fn no_module_imports_a_higher_layer_and_there_is_no_cycle() {
    let files = source_files();
    assert!(files.len() > 40, "only {} files under src/", files.len());
    let (problems, edges) = check(&files);
    assert!(problems.is_empty(), "{} layer problems:\n{}", problems.len(), problems.join("\n"));
    if let Some(c) = cycle(&edges) {
        panic!("the modules import each other in a cycle: {c}");
    }
    // The reader sees the edges it checked: the pipeline reaches down to the scanner and the
    // diagnosis, the scanner to the rules.
    assert!(edges["pipeline"].contains("scan") && edges["pipeline"].contains("diagnose"), "{edges:?}");
    assert!(edges["scan"].contains("rules"), "{edges:?}");
}

fn one(file: &str, code: &str) -> (Vec<String>, BTreeMap<&'static str, BTreeSet<&'static str>>) {
    let rel = Path::new(file.strip_prefix("src/").unwrap());
    check(&[(file.to_string(), module_of(rel), mask(code))])
}

#[test]
fn the_checker_sees_upward_imports_in_every_form() {
    // Each of these imports a higher layer (rules is 3, scan 4, diagnose 5).
    for code in [
        "use crate::scan::Scanner;",
        "use crate::{json, scan};",
        "use crate::{json::{self, Value}, diagnose::diagnose};",
        "fn f() { crate::scan::kernel::parse(); }",
        "pub(crate) use crate::scan::{self};",
    ] {
        let (p, _) = one("src/rules/mod.rs", code);
        assert_eq!(p.len(), 1, "{code}: {p:?}");
        assert!(p[0].contains("layer 3 (rules) imports"), "{p:?}");
    }
    // `super` in a file of a directory is the directory's module.
    let (p, _) = one("src/facts/idset.rs", "use super::super::scan::Scanner;");
    assert_eq!(p.len(), 1, "{p:?}");
    assert!(p[0].contains("layer 2 (facts) imports crate::scan (layer 4)"), "{p:?}");
    let (p, _) = one("src/text/msg.rs", "use super::catalogue::message;");
    assert_eq!(p.len(), 1, "{p:?}");
    assert!(p[0].contains("layer 1 (text::msg) imports crate::text (layer 4)"), "{p:?}");
}

#[test]
fn the_checker_passes_what_it_should_and_refuses_the_rest() {
    // Downward, sideways, in comments, strings, and in the test module: fine.
    let code = r#"
        use crate::report::Location; // crate::scan in a comment
        /* crate::diagnose in a block comment */
        const S: &str = "crate::pipeline in a string";
        const R: &str = r"crate::wasm";
        const C: char = '"';
        fn f<'a>(x: &'a str) -> &'a str { crate::rules::ruleset(); x }

        #[cfg(test)]
        mod tests {
            use crate::pipeline::analyze_text;
        }
    "#;
    let (p, e) = one("src/scan/host.rs", code);
    assert!(p.is_empty(), "{p:?}");
    assert_eq!(e["scan"].iter().copied().collect::<Vec<_>>(), ["report", "rules"]);
    // A root re-export and a module outside the table are refused.
    let (p, _) = one("src/view.rs", "use crate::Report;");
    assert!(p[0].contains("root re-export"), "{p:?}");
    let (p, _) = one("src/newthing.rs", "use crate::report::Report;");
    assert!(p[0].contains("no layer"), "{p:?}");
    let (p, _) = one("src/view.rs", "use crate::newthing::X;");
    assert!(p[0].contains("in no layer"), "{p:?}");
}

#[test]
fn the_cycle_check_finds_a_cycle_inside_a_layer() {
    let files = vec![
        ("src/diagnose.rs".to_string(), "diagnose".to_string(), mask("use crate::probe::x;")),
        ("src/probe.rs".to_string(), "probe".to_string(), mask("use crate::words::y;")),
        ("src/words/mod.rs".to_string(), "words".to_string(), mask("use crate::diagnose::z;")),
    ];
    let (p, edges) = check(&files);
    assert!(p.is_empty(), "{p:?}");
    let c = cycle(&edges).expect("a cycle");
    assert!(c.contains("diagnose") && c.contains("probe") && c.contains("words"), "{c}");
}
