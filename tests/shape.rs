//! Shown, described or mentioned (`tests/shape/README.md`): every text of our own in
//! `tests/shape/<class>/` read, the table by class printed, and each class held to at least what
//! the engine reads right today. Shown output must stay a device-side assert whatever the prose
//! around it.
#![cfg(not(target_arch = "wasm32"))]

use first_assert::{analyze_bytes, Options};
use std::path::Path;

/// The least of each class read right: (class, count). Raised as the reading improves.
const AT_LEAST: &[(&str, usize)] = &[("shown", 10), ("described", 0), ("mentioned", 3)];

/// Whether a report reads a text of `class` right.
fn right(class: &str, r: &first_assert::Report) -> bool {
    let kind = r.first_assert.as_ref().map(|f| f.kind.id());
    match class {
        "shown" => r.verdict.id() == "device_assert" && kind != Some("described"),
        "described" => r.verdict.id() == "device_assert" && kind == Some("described") && r.echo_count == 0,
        _ => r.verdict.id() == "clean",
    }
}

#[test]
fn each_class_is_read_at_least_as_well_as_before() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/shape");
    let mut table = Vec::new();
    for &(class, least) in AT_LEAST {
        let mut files: Vec<_> = std::fs::read_dir(root.join(class)).unwrap().flatten().map(|e| e.path()).collect();
        files.sort();
        let mut wrong = Vec::new();
        for f in &files {
            let name = f.file_name().unwrap().to_str().unwrap().to_string();
            let r = analyze_bytes(&std::fs::read(f).unwrap(), Some(&name), &Options::default()).unwrap();
            if !right(class, &r) {
                wrong.push(format!("{name} ({})", r.verdict.id()));
            }
        }
        let ok = files.len() - wrong.len();
        table.push(format!("| {class} | {} | {ok} |", files.len()));
        assert!(ok >= least, "{class}: {ok} of {} read right, at least {least} were; wrong: {}", files.len(), wrong.join(", "));
        if class == "shown" {
            assert!(wrong.is_empty(), "output read as prose: {}", wrong.join(", "));
        }
    }
    eprintln!("| class | texts | read right |\n| --- | --- | --- |\n{}", table.join("\n"));
}
