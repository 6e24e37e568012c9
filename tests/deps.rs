//! Dependency hygiene (what `cargo deny check licenses bans` would check, with cargo alone):
//! every crate in the lockfile has a permissive license, none of the banned crates is in, the
//! code that ships has no crate twice in two versions, and CONTRIBUTING.md justifies every direct
//! dependency.
#![cfg(not(target_arch = "wasm32"))]

use std::process::Command;

fn cargo(args: &[&str]) -> String {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo).args(args).current_dir(env!("CARGO_MANIFEST_DIR")).output().expect("cargo runs");
    assert!(out.status.success(), "cargo {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn metadata() -> serde_json::Value {
    serde_json::from_str(&cargo(&["metadata", "--format-version", "1", "--locked"])).unwrap()
}

/// Whether an SPDX-like expression (`MIT OR Apache-2.0`, `MIT/Apache-2.0`, `(A OR B) AND C`,
/// `Apache-2.0 WITH LLVM-exception`) lets us use the crate under permissive terms only.
fn permissive(expr: &str) -> bool {
    const OK: [&str; 9] = [
        "MIT",
        "Apache-2.0",
        "BSD-2-Clause",
        "BSD-3-Clause",
        "ISC",
        "Zlib",
        "Unlicense",
        "Unicode-3.0",
        "Unicode-DFS-2016",
    ];
    let expr = expr.replace('/', " OR ").replace(['(', ')'], " ");
    // Every AND-ed part must offer one permissive choice.
    expr.split(" AND ").all(|part| {
        part.split(" OR ").any(|alt| {
            let lic = alt.split(" WITH ").next().unwrap_or("").trim();
            OK.contains(&lic)
        })
    })
}

#[test]
fn licenses_are_permissive() {
    let m = metadata();
    let mut bad = Vec::new();
    for p in m["packages"].as_array().unwrap() {
        let name = p["name"].as_str().unwrap();
        match p["license"].as_str() {
            Some(l) if permissive(l) => {}
            other => bad.push(format!("{name}: {other:?}")),
        }
    }
    assert!(bad.is_empty(), "non-permissive or missing licenses:\n{}", bad.join("\n"));
    assert!(permissive("(MIT OR Apache-2.0) AND Unicode-3.0"));
    assert!(permissive("MIT OR Apache-2.0 OR LGPL-2.1-or-later"));
    assert!(!permissive("GPL-3.0-only"));
    assert!(!permissive("MIT AND GPL-2.0-only"));
}

#[test]
fn no_banned_crates() {
    // A tool that promises not to send anything has no business with network, TLS or async
    // runtime crates.
    const BANNED: [&str; 10] =
        ["openssl", "openssl-sys", "native-tls", "reqwest", "hyper", "curl", "ureq", "tokio", "rustls", "serde_yaml"];
    // What ships: the normal dependencies, for every target (the test tools may use more).
    let tree = cargo(&["tree", "--edges", "normal", "--target", "all", "--prefix", "none", "--locked"]);
    let names: Vec<&str> = tree.lines().filter_map(|l| l.split_whitespace().next()).collect();
    assert!(names.contains(&"serde_json"), "the tree was not read");
    for b in BANNED {
        assert!(!names.contains(&b), "{b} is in the shipped dependency graph");
    }
}

#[test]
fn shipped_code_has_each_crate_once() {
    let out = cargo(&["tree", "--duplicates", "--edges", "normal", "--target", "all", "--locked"]);
    assert!(out.trim().is_empty(), "crates in two versions:\n{out}");
}

#[test]
fn contributing_justifies_every_direct_dependency() {
    let m = metadata();
    let root = m["packages"].as_array().unwrap().iter().find(|p| p["name"] == "first-assert").unwrap();
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/CONTRIBUTING.md")).unwrap();
    let section =
        readme.split("## Dependencies").nth(1).expect("a Dependencies section").split("\n## ").next().unwrap();
    for d in root["dependencies"].as_array().unwrap() {
        let name = d["name"].as_str().unwrap();
        assert!(section.contains(&format!("`{name}`")), "CONTRIBUTING.md: `{name}` is not justified");
    }
}
