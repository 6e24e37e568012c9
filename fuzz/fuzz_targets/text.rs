//! Text ingest: any bytes, fed in chunks cut where the input says, must give the same report
//! as fed whole, and never panic.
#![no_main]
use first_assert::{analyze_bytes, InputFormat, Options, TextAnalyzer};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (cut, bytes) = match data.split_first() {
        Some((c, rest)) => (*c as usize + 1, rest),
        None => (1, data),
    };
    let mut a = TextAnalyzer::new();
    for chunk in bytes.chunks(cut) {
        a.feed(chunk);
    }
    let streamed = a.finish(&Options::default());
    if let Ok(whole) = analyze_bytes(bytes, Some("x.log"), &Options::default()) {
        if whole.input.format == InputFormat::Text {
            assert_eq!(streamed.first_assert.map(|f| (f.text, f.at.line)), whole.first_assert.map(|f| (f.text, f.at.line)));
        }
    }
});
