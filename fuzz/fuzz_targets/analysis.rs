//! The whole analysis from bytes of unknown kind, in both languages, and the text report.
#![no_main]
use first_assert::{analyze_bytes, render, Lang, Options};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for lang in [Lang::En, Lang::Zh] {
        if let Ok(r) = analyze_bytes(data, None, &Options::lang(lang)) {
            let text = render::text(&r, &render::TextOptions::default());
            assert!(!text.contains('\u{1b}'), "an escape sequence reached the text report");
            let json = serde_json::to_string(&r).expect("the report serialises");
            assert!(json.starts_with('{'));
        }
    }
});
