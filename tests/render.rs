//! Snapshots of the human-readable report in English and Chinese. Review changes with
//! `cargo insta review` (or rerun with INSTA_UPDATE=always and read the diff); never edit the
//! `.snap` files by hand.
#![cfg(not(target_arch = "wasm32"))]

use first_assert::render::{text, TextOptions};
use first_assert::{analyze_bytes, Lang, Options};
use std::path::Path;

const CASES: &[&str] = &[
    "colab-echoes.ipynb",
    "windows-indexkernel.log",
    "crlf-ansi-cross-entropy.log",
    "hard-wrapped-80.log",
    "launch-blocking-after-import.ipynb",
    "stale-model-to.log",
    "out-of-memory.log",
    "cpu-index-error.log",
];

fn render(case: &str, lang: Lang) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases").join(case);
    let r = analyze_bytes(&std::fs::read(&p).unwrap(), Some(case), &Options::lang(lang)).unwrap();
    text(&r, &TextOptions { color: false, source: Some(case.to_string()), log_source: None, verbose: false })
}

#[test]
fn english() {
    for case in CASES {
        insta::assert_snapshot!(format!("{}.en", case.replace('.', "_")), render(case, Lang::En));
    }
}

#[test]
fn chinese() {
    for case in CASES {
        insta::assert_snapshot!(format!("{}.zh", case.replace('.', "_")), render(case, Lang::Zh));
    }
}

#[test]
fn colour_codes_only_when_asked() {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases/windows-indexkernel.log");
    let r = analyze_bytes(&std::fs::read(p).unwrap(), None, &Options::default()).unwrap();
    assert!(!text(&r, &TextOptions { color: false, source: None, log_source: None, verbose: false }).contains('\x1b'));
    assert!(text(&r, &TextOptions { color: true, source: None, log_source: None, verbose: false })
        .contains("\x1b[1;31merror[index_out_of_bounds]:"));
}
