//! `.ipynb` ingest: any text read as a notebook is a report or a clear error, never a panic.
#![no_main]
use first_assert::{analyze_notebook, InputFormat, Lang, Options};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    match analyze_notebook(&text, &Options::default()) {
        Ok(r) => assert!(matches!(r.input.format, InputFormat::Cells | InputFormat::Notebook), "{:?}", r.input.format),
        Err(e) => assert!(!e.message(Lang::Zh).is_empty()),
    }
});
