//! The README is a guide (at most 250 lines, its quick start's commands real), and every link in
//! it, in CONTRIBUTING.md and in docs/ resolves: to a file of the project, and to a heading of
//! that file when it names one.
#![cfg(not(target_arch = "wasm32"))]

use std::path::{Path, PathBuf};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn documents() -> Vec<PathBuf> {
    let mut v = vec![root().join("README.md"), root().join("CONTRIBUTING.md")];
    for e in std::fs::read_dir(root().join("docs")).expect("docs/") {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "md") {
            v.push(p);
        }
    }
    v
}

/// A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to hyphens.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

fn anchors(text: &str) -> Vec<String> {
    text.lines().filter(|l| l.starts_with('#')).map(|l| slug(l.trim_start_matches('#'))).collect()
}

/// The targets of `[text](target)` links, outside code blocks.
fn links(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut code = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            code = !code;
            continue;
        }
        if code {
            continue;
        }
        let mut rest = line;
        while let Some(i) = rest.find("](") {
            let after = &rest[i + 2..];
            let Some(end) = after.find(')') else { break };
            out.push(after[..end].to_string());
            rest = &after[end..];
        }
    }
    out
}

#[test]
fn every_link_in_the_readme_contributing_and_docs_resolves() {
    let mut checked = 0;
    for doc in documents() {
        let text = std::fs::read_to_string(&doc).unwrap();
        for target in links(&text) {
            if target.starts_with("http://") || target.starts_with("https://") {
                continue;
            }
            let (file, anchor) = target.split_once('#').unwrap_or((&target, ""));
            let path = if file.is_empty() { doc.clone() } else { doc.parent().unwrap().join(file) };
            assert!(path.exists(), "{}: the link {target} names no file", doc.display());
            if !anchor.is_empty() {
                let there = std::fs::read_to_string(&path).unwrap();
                assert!(anchors(&there).contains(&anchor.to_string()), "{}: {target}: no such heading", doc.display());
            }
            checked += 1;
        }
    }
    assert!(checked >= 15, "only {checked} links");
}

#[test]
fn the_readme_is_a_guide_and_its_quick_start_is_real() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let n = readme.lines().count();
    assert!(n <= 250, "README.md is {n} lines");
    let makefile = std::fs::read_to_string(root().join("Makefile")).unwrap();
    let quick = readme.split("## Quick start").nth(1).unwrap().split("\n## ").next().unwrap();
    let commands: Vec<&str> = quick.lines().filter_map(|l| l.strip_prefix("make ")).map(|l| l.split_whitespace().next().unwrap()).collect();
    assert_eq!(commands, ["serve", "test"], "{quick}");
    for c in commands {
        assert!(makefile.lines().any(|l| l.starts_with(&format!("{c}:"))), "no `{c}` target in the Makefile");
    }
    // CI runs the README's test command.
    assert!(std::fs::read_to_string(root().join(".ci/run")).unwrap().contains("make test"));
    // Every document links from the README.
    for doc in documents().iter().skip(1) {
        let rel = doc.strip_prefix(root()).unwrap().to_string_lossy().replace('\\', "/");
        assert!(readme.contains(&format!("]({rel}")), "the README does not link {rel}");
    }
}
