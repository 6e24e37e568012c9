//! Shown, described or mentioned (`tests/shape/README.md`): every text of our own in
//! `tests/shape/<class>/` read, the table by class printed, and each class held to at least what
//! the engine reads right today. Shown output must stay a device-side assert whatever the prose
//! around it.
#![cfg(not(target_arch = "wasm32"))]

use first_assert::{analyze_bytes, Options};
use std::path::Path;

/// The least of each class read right: (class, count). Raised as the reading improves.
const AT_LEAST: &[(&str, usize)] = &[("shown", 13), ("described", 12), ("mentioned", 30)];

/// Whether a text of `class` is read right: shown output as a device-side assert; a person's
/// report as a described one, with no echoes, no traceback verdict and a cause from what the
/// prose names; a mention as clean, which "Treat it as the error" (`count_quoted`) turns into
/// the assert.
fn right(class: &str, bytes: &[u8], name: &str) -> bool {
    let read =
        |count_quoted| analyze_bytes(bytes, Some(name), &Options { count_quoted, ..Options::default() }).unwrap();
    let r = read(false);
    let kind = r.first_assert.as_ref().map(|f| f.kind.id());
    match class {
        "shown" => r.verdict.id() == "device_assert" && kind != Some("described"),
        "described" => {
            let named = r.cause.as_ref().is_some_and(|c| c.rule != "no-evidence");
            r.verdict.id() == "device_assert"
                && kind == Some("described")
                && r.echo_count == 0
                && r.stack.is_none()
                && named
        }
        _ => r.verdict.id() == "clean" && read(true).verdict.id() == "device_assert",
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
            if !right(class, &std::fs::read(f).unwrap(), &name) {
                wrong.push(name);
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

/// A person's words about another CUDA error are that error, not clean: only the device-side
/// assert has a described form.
#[test]
fn a_described_other_error_is_that_error() {
    let text = "Hi all, my training loop keeps dying with RuntimeError: CUDA error: an illegal memory access was encountered after a few steps.\nThe model is a small CNN and I use the default settings for everything.\n";
    let r = analyze_bytes(text.as_bytes(), None, &Options::default()).unwrap();
    assert_eq!(r.verdict.id(), "other_cuda_error");
    assert!(r.notes.iter().all(|n| n.id != "mentioned_only"));
}
