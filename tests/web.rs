//! The engine in a real browser (headless Chromium through wasm-bindgen-test-runner; `make
//! test` runs it with the `embedded-texts` feature, so no catalogue needs fetching): bad input
//! refused without a panic, the session's map and windows of its input, the SIMD paths that
//! only the WebAssembly build takes. The view itself (`www/report-view.js`) is tested on the
//! page in `tests/e2e/view.test.mjs`.
#![cfg(target_arch = "wasm32")]

use first_assert::wasm::Session;
use js_sys::{Object, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const ECHO_LOG: &str = include_str!("cases/cublas-after-assert.log");
const TRUSTED_LOG: &str = include_str!("cases/launch-blocking-set.log");
const OTHER_LOG: &str = include_str!("cases/illegal-address.log");
const CLEAN_LOG: &str = include_str!("cases/near-miss-docs-and-prints.log");
const NOTEBOOK: &str = include_str!("cases/colab-echoes.ipynb");

fn opts(lang: &str) -> JsValue {
    let o = Object::new();
    Reflect::set(&o, &"lang".into(), &lang.into()).unwrap();
    o.into()
}

fn set(o: &JsValue, k: &str, v: &JsValue) -> JsValue {
    Reflect::set(o, &k.into(), v).unwrap();
    o.clone()
}

fn get(v: &JsValue, path: &[&str]) -> JsValue {
    path.iter().fold(v.clone(), |v, k| Reflect::get(&v, &(*k).into()).unwrap())
}

#[wasm_bindgen_test]
fn the_session_maps_its_input_and_shows_windows_of_it() {
    let mut s = Session::new();
    let report = s.analyze_notebook(NOTEBOOK.to_string(), opts("en")).unwrap_or_else(|_| panic!("notebook"));
    let map = js_sys::Array::from(&s.map().unwrap_or_else(|_| panic!("map")));
    assert_eq!(map.length() as f64, get(&report, &["input", "cells"]).as_f64().unwrap(), "an entry per cell");
    let first_cell = get(&report, &["first_assert", "cell"]);
    let marked: Vec<JsValue> =
        map.iter().filter(|e| get(e, &["mark"]).as_string().as_deref() == Some("first")).collect();
    assert_eq!(marked.len(), 1);
    assert_eq!(get(&marked[0], &["cell"]).as_f64(), first_cell.as_f64());
    let line = get(&report, &["first_assert", "line"]).as_f64().unwrap();
    let w = s.window(first_cell.as_f64().map(|c| c as u32), Some(line), None).unwrap_or_else(|_| panic!("window"));
    let lines = js_sys::Array::from(&get(&w, &["lines"]));
    assert!(lines.iter().any(|l| get(&l, &["mark"]).as_string().as_deref() == Some("first")));
    assert!(get(&w, &["at"]).as_string().unwrap().contains("cell"));
    // Without a place: the engine's first place, the first assert (what the page opens).
    let first = s.window(None, None, None).unwrap_or_else(|_| panic!("window"));
    assert_eq!(get(&first, &["cell"]).as_f64(), first_cell.as_f64());
    assert_eq!(get(&first, &["line"]).as_f64(), Some(line));
    assert_eq!(get(&first, &["log"]).as_bool(), Some(false));
    assert_eq!(get(&first, &["at"]).as_string(), get(&w, &["at"]).as_string());

    // A log: at most 120 runs of lines, the first assert's run marked.
    let mut s = Session::new();
    s.analyze_text(ECHO_LOG.to_string(), opts("zh")).unwrap_or_else(|_| panic!("log"));
    let map = js_sys::Array::from(&s.map().unwrap_or_else(|_| panic!("map")));
    assert!(map.length() >= 1 && map.length() <= 120);
    assert!(map.iter().any(|e| get(&e, &["mark"]).as_string().as_deref() == Some("first")));
    for log in [TRUSTED_LOG, OTHER_LOG, CLEAN_LOG] {
        s.analyze_text(log.to_string(), opts("en")).unwrap_or_else(|_| panic!("log"));
        assert!(s.window(None, Some(1.0), None).is_ok());
    }
    // A clean log has no place to open first.
    assert!(s.window(None, None, None).unwrap_or_else(|_| panic!("window")).is_null());
    assert!(Session::new().window(None, Some(1.0), None).is_err(), "nothing analysed yet");
}

#[wasm_bindgen_test]
fn bad_input_is_an_error_never_a_panic() {
    let mut s = Session::new();
    for json in
        ["", "{", "[1,2", "{\"cells\": 3}", "{\"cells\": [{\"outputs\": 5}]}", "null", "\"text\"", "[[[[[[[[]]]]]]]]"]
    {
        assert!(s.analyze_notebook(json.to_string(), JsValue::UNDEFINED).is_err(), "{json}");
    }
    // Values JSON cannot hold, and shapes that are not cells.
    let cyclic = Object::new();
    Reflect::set(&cyclic, &"self".into(), &cyclic).unwrap();
    for v in [JsValue::from(3), JsValue::NULL, JsValue::UNDEFINED, cyclic.into(), js_sys::BigInt::from(7u32).into()] {
        assert!(s.analyze_cells(v, JsValue::UNDEFINED).is_err());
    }
    // Options: unknown language, unknown field, not an object.
    let bad = Object::new();
    Reflect::set(&bad, &"colour".into(), &true.into()).unwrap();
    for o in [opts("fr"), bad.into(), JsValue::from(5)] {
        assert!(s.analyze_text("x".into(), o).is_err());
    }
    // Bytes of every kind are read or refused with a message.
    let mut seed = 0x9e37_79b9_u32;
    for n in [0usize, 1, 2, 3, 7, 1024, 65_537] {
        let bytes: Vec<u8> = (0..n)
            .map(|_| {
                seed ^= seed << 13;
                seed ^= seed >> 17;
                seed ^= seed << 5;
                (seed >> 24) as u8
            })
            .collect();
        let _ = s.analyze_bytes(bytes.clone(), None, JsValue::UNDEFINED);
        let _ = s.analyze_bytes(bytes.clone(), Some("x.ipynb".into()), JsValue::UNDEFINED);
    }
    assert!(s
        .analyze_bytes(b"PK\x03\x04\x14\x00\x00\x00\x08\x00".to_vec(), Some("logs.zip".into()), JsValue::UNDEFINED)
        .is_err());
    assert!(s.analyze_bytes(vec![0u8; 64], None, JsValue::UNDEFINED).is_err());
    // The session still works afterwards.
    assert!(s.analyze_text(ECHO_LOG.into(), JsValue::UNDEFINED).is_ok());
}

#[wasm_bindgen_test]
fn the_simd_keyword_filter_agrees_with_the_scalar_one() {
    // What it finds, the newlines before and whether the bytes before are plain (NUL bytes
    // and bytes past 0x7f in the random text).
    use first_assert::find::keywords::PairFilter;
    // The scanner's keywords, as the scanner builds its filter.
    let mut words: Vec<&str> = first_assert::scan::KEYWORDS.to_vec();
    words.extend(first_assert::rules::ruleset().message_keywords());
    // Keywords shorter than the three bytes the SIMD filter looks at, too.
    let short = ["rr", "x", "ss=", "CUDA"];
    let filters = [PairFilter::new(&words), PairFilter::new(&short)];
    let mut seed = 0x2545_f491_u32;
    let mut random: Vec<u8> = (0..20_000)
        .map(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            b"abcdeFirstCUDArrorsserT=x\n\0\xe6"[(seed % 28) as usize]
        })
        .collect();
    random.extend_from_slice("断言".as_bytes());
    let mut checked = 0;
    for text in [
        ECHO_LOG.as_bytes(),
        TRUSTED_LOG.as_bytes(),
        OTHER_LOG.as_bytes(),
        CLEAN_LOG.as_bytes(),
        NOTEBOOK.as_bytes(),
        &random,
    ] {
        for start in (0..text.len()).step_by(3) {
            let hay = &text[start..];
            for f in &filters {
                assert_eq!(f.survey(hay), f.survey_scalar(hay), "at {start}");
                checked += 1;
            }
        }
    }
    assert!(checked > 5000);
}

/// The JSON reader's search for the end of a string's plain run (quote, backslash, control
/// byte), 16 bytes at a time, finds what a byte-at-a-time search finds.
#[wasm_bindgen_test]
fn the_simd_string_end_search_agrees_with_the_scalar_one() {
    let mut seed = 0x51ed_2701_u32;
    let mut checked = 0;
    for len in 0..200usize {
        for _ in 0..20 {
            let v: Vec<u8> = (0..len)
                .map(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 17;
                    seed ^= seed << 5;
                    // Mostly plain text; now and then a byte that ends the run, or one past 0x7f.
                    match seed % 64 {
                        0 => b'"',
                        1 => b'\\',
                        2 => (seed >> 8) as u8 % 0x20,
                        3 => 0x80 | (seed >> 8) as u8,
                        _ => b' ' + (seed >> 8) as u8 % 0x5e,
                    }
                })
                .collect();
            let want = v.iter().position(|&c| c == b'"' || c == b'\\' || c < 0x20);
            assert_eq!(first_assert::json::special(&v), want, "{v:?}");
            checked += usize::from(want.is_some());
        }
    }
    assert!(checked > 1000, "{checked}");
}

/// The package's string decoder (plain runs and one-letter escapes, 16 bytes at a time) stops
/// where a byte-at-a-time decoder stops and writes what it writes.
#[wasm_bindgen_test]
fn the_simd_string_decoder_agrees_with_the_scalar_one() {
    fn one_letter(c: u8) -> Option<u8> {
        let i = b"\"\\/bfnrt".iter().position(|&x| x == c)?;
        Some(b"\"\\/\x08\x0c\n\r\t"[i])
    }
    let mut seed = 0xdec0_de01_u32;
    let mut escapes = 0;
    for len in 0..120usize {
        for _ in 0..30 {
            let v: Vec<u8> = (0..len)
                .map(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 17;
                    seed ^= seed << 5;
                    match seed % 32 {
                        0..=3 => b'\\',
                        4 => b"\"\\/bfnrtux"[(seed >> 8) as usize % 10],
                        5 => b'"',
                        6 => (seed >> 8) as u8 % 0x20,
                        7 => 0x80 | (seed >> 8) as u8,
                        _ => b"nt\"ab cd"[(seed >> 8) as usize % 8],
                    }
                })
                .collect();
            let (mut want, mut at) = (Vec::new(), 0);
            while at < v.len() {
                match (v[at], v.get(at + 1).and_then(|&n| one_letter(n))) {
                    (b'"', _) | (0..0x20, _) | (b'\\', None) => break,
                    (b'\\', Some(d)) => {
                        want.push(d);
                        at += 2;
                        escapes += 1;
                    }
                    (c, _) => {
                        want.push(c);
                        at += 1;
                    }
                }
            }
            let mut got = b"held".to_vec();
            assert_eq!(first_assert::json::decode_run(&v, &mut got), at, "{v:?}");
            assert_eq!(&got[4..], &want[..], "{v:?}");
        }
    }
    assert!(escapes > 800, "{escapes}");
}

#[wasm_bindgen_test]
fn the_simd_line_index_finds_every_line() {
    use first_assert::view::Source;
    let mut seed = 0x9e37_79b9_u32;
    let mut texts: Vec<String> = ["", "\n", "a", "a\n", "\n\n\n", "abc\ndef", "0123456789abcde\n0123456789abcdef\n"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    for len in [15, 16, 17, 31, 32, 33, 1000, 5000] {
        let t: String = (0..len)
            .map(|_| {
                seed ^= seed << 13;
                seed ^= seed >> 17;
                seed ^= seed << 5;
                if seed.is_multiple_of(5) {
                    '\n'
                } else {
                    'x'
                }
            })
            .collect();
        texts.push(t);
    }
    for t in texts {
        let mut want: Vec<&str> = t.split('\n').collect();
        if t.ends_with('\n') {
            want.pop();
        }
        let s = Source::text(t.clone());
        assert_eq!(s.line_count(None), want.len() as u64, "{t:?}");
        let got: Vec<String> = s.lines(None, 1, want.len() as u64).into_iter().map(|(_, l)| l).collect();
        assert_eq!(got, want, "{t:?}");
        // Windows that start anywhere, around the index's checkpoints too.
        for from in [1u64, 2, 63, 64, 65, 66, 127, 128, 129, 150, 400] {
            let got = s.lines(None, from, from + 3);
            let want: Vec<(u64, String)> = (from..=from + 3)
                .filter(|&no| no as usize <= want.len())
                .map(|no| (no, want[no as usize - 1].to_string()))
                .collect();
            assert_eq!(got, want, "lines {from}.. of {t:?}");
        }
    }
}

#[wasm_bindgen_test]
fn a_runtime_log_in_the_options_joins_the_notebook_and_has_windows() {
    let nb = include_str!("cases/colab-no-kernel-lines.ipynb");
    let kernel = "../aten/src/ATen/native/cuda/Indexing.cu:1237: indexSelectLargeIndex: block: [10,0,0], thread: [64,0,0] Assertion `srcIndex < srcSelectDimSize` failed.";
    let log = format!("Timestamp,Level,Message\n\"Dec 1, 2026, 10:01:17 AM\",WARNING,\"{kernel}\"\n\"Dec 1, 2026, 10:00:02 AM\",INFO,\"Kernel started\"\n");
    let o = set(&opts("en"), "runtimeLog", &log.as_str().into());
    let mut s = Session::new();
    let r = s.analyze_notebook(nb.to_string(), o.clone()).unwrap_or_else(|_| panic!("notebook"));
    assert_eq!(get(&r, &["first_assert", "runtime_log"]).as_bool(), Some(true));
    assert_eq!(get(&r, &["input", "runtime_log", "form"]).as_string().as_deref(), Some("csv"));
    let line = get(&r, &["first_assert", "line"]).as_f64().unwrap();
    let w = s.window(None, Some(line), Some(true)).unwrap_or_else(|_| panic!("window"));
    // The first place is the log's line too.
    let first = s.window(None, None, None).unwrap_or_else(|_| panic!("window"));
    assert_eq!(get(&first, &["log"]).as_bool(), Some(true));
    assert_eq!(get(&first, &["line"]).as_f64(), Some(line));
    assert!(get(&w, &["at"]).as_string().unwrap().contains("runtime log"));
    let lines = js_sys::Array::from(&get(&w, &["lines"]));
    assert!(lines.iter().any(|l| get(&l, &["text"]).as_string().unwrap().contains("srcIndex")));
    let map = js_sys::Array::from(&s.map().unwrap_or_else(|_| panic!("map")));
    assert_eq!(get(&map.get(0), &["log"]).as_bool(), Some(true), "the log comes first in the map");
    // Analysed again in Chinese, the log stays.
    let zh = s.set_lang("zh").unwrap_or_else(|_| panic!("lang"));
    assert_eq!(get(&zh, &["first_assert", "runtime_log"]).as_bool(), Some(true));
    // Bad options are refused with a message, not a panic.
    for bad in [set(&opts("en"), "runtimeLog", &JsValue::from(3)), set(&opts("en"), "logs", &"x".into())] {
        assert!(Session::new().analyze_notebook(nb.to_string(), bad).is_err());
    }
    assert!(Session::new().analyze_text("x".into(), "en".into()).is_err(), "options are an object");
}
