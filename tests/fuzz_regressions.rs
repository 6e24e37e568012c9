//! Inputs the fuzz targets (fuzz/) found a failure with, kept once fixed, and run through the
//! same entry points on every `cargo test`, without the fuzzing toolchain.
#![cfg(not(target_arch = "wasm32"))]

use first_assert::{analyze_bytes, analyze_notebook, render, Lang, Options};

#[test]
fn every_kept_input_is_read_without_a_panic() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fuzz-regressions");
    let mut n = 0;
    for e in std::fs::read_dir(dir).expect("tests/fuzz-regressions").flatten() {
        let bytes = std::fs::read(e.path()).unwrap();
        if e.file_name() == "README.md" {
            continue;
        }
        for lang in [Lang::En, Lang::Zh] {
            let o = Options::lang(lang);
            if let Ok(r) = analyze_bytes(&bytes, None, &o) {
                let text = render::text(&r, &render::TextOptions::default());
                assert!(!text.contains('\u{1b}'), "{:?}: an escape reached the text report", e.path());
            }
            let _ = analyze_bytes(&bytes, Some("x.ipynb"), &o);
            let _ = analyze_notebook(&String::from_utf8_lossy(&bytes), &o);
        }
        n += 1;
    }
    assert!(n >= 1, "no regression inputs: keep at least the seed");
}
