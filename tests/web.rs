//! The view in a real browser (headless Chromium through wasm-bindgen-test-runner; `make test`
//! runs it): every part of a report rendered, both languages, jumps, the checklist kept in
//! localStorage, hostile logs rendered inert, bad input refused without a panic.
#![cfg(target_arch = "wasm32")]

use first_assert::wasm::Session;
use js_sys::{Object, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::{Element, HtmlElement, HtmlInputElement};

wasm_bindgen_test_configure!(run_in_browser);

const ECHO_LOG: &str = include_str!("cases/cublas-after-assert.log");
const TRUSTED_LOG: &str = include_str!("cases/launch-blocking-set.log");
const OTHER_LOG: &str = include_str!("cases/illegal-address.log");
const CLEAN_LOG: &str = include_str!("cases/near-miss-docs-and-prints.log");
const NOTEBOOK: &str = include_str!("cases/colab-echoes.ipynb");

fn doc() -> web_sys::Document {
    web_sys::window().unwrap().document().unwrap()
}

/// A fresh element in the page to render into.
fn root() -> Element {
    let el = doc().create_element("div").unwrap();
    doc().body().unwrap().append_child(&el).unwrap();
    el
}

fn opts(lang: &str) -> JsValue {
    let o = Object::new();
    Reflect::set(&o, &"lang".into(), &lang.into()).unwrap();
    o.into()
}

fn get(v: &JsValue, path: &[&str]) -> JsValue {
    path.iter().fold(v.clone(), |v, k| Reflect::get(&v, &(*k).into()).unwrap())
}

fn all(el: &Element, sel: &str) -> Vec<Element> {
    let list = el.query_selector_all(sel).unwrap();
    (0..list.length()).map(|i| list.item(i).unwrap().dyn_into::<Element>().unwrap()).collect()
}

fn one(el: &Element, sel: &str) -> Element {
    el.query_selector(sel).unwrap().unwrap_or_else(|| panic!("no `{sel}` in the view"))
}

fn text(el: &Element) -> String {
    el.text_content().unwrap_or_default()
}

fn rendered(input: &str, lang: &str) -> (Session, Element, JsValue) {
    let mut s = Session::new();
    let report = s.analyze_text(input.to_string(), opts(lang)).unwrap_or_else(|_| panic!("analysis failed"));
    let r = root();
    s.render(r.clone()).unwrap_or_else(|_| panic!("render failed"));
    (s, r, report)
}

#[wasm_bindgen_test]
fn every_part_of_a_device_assert_report() {
    let (_s, r, report) = rendered(ECHO_LOG, "en");
    assert_eq!(r.get_attribute("data-verdict").as_deref(), Some("device_assert"));
    assert_eq!(text(&one(&r, "[data-testid=headline]")), get(&report, &["headline"]).as_string().unwrap());

    // The first assert, highlighted, with its site collapsed.
    let first = one(&r, "[data-testid=first-assert]");
    let line = one(&first, "[data-testid=first-assert-line]");
    assert!(line.class_list().contains("mark-first"));
    assert!(
        text(&line).contains("vectorized_gather_kernel: block: [9,0,0], thread: [0,0,0] Assertion"),
        "{}",
        text(&line)
    );
    let site = one(&first, "details.fa-site");
    assert!(text(&one(&site, "summary")).contains("IndexKernelUtils.cu:16"));
    assert!(!site.has_attribute("open"), "the site details start collapsed");

    // The cause: category, rule, evidence, why and fix.
    let cause = one(&r, "[data-testid=cause]");
    assert_eq!(cause.get_attribute("data-category").as_deref(), Some("index_out_of_bounds"));
    assert_eq!(cause.get_attribute("data-rule"), get(&report, &["cause", "rule"]).as_string());
    assert!(!all(&cause, ".fa-evidence li").is_empty());
    assert!(text(&cause).contains(&get(&report, &["cause", "summary"]).as_string().unwrap()));

    // The stack warning.
    let stack = one(&r, "[data-testid=stack]");
    assert_eq!(stack.get_attribute("data-trustworthy").as_deref(), Some("false"));
    assert!(one(&stack, ".fa-badge").class_list().contains("warn"));

    // Echoes, each jumpable.
    let echoes = all(&r, "[data-testid=echo]");
    assert_eq!(echoes.len() as f64, get(&report, &["echo_count"]).as_f64().unwrap());
    assert!(text(&echoes[0]).contains("CUBLAS_STATUS_EXECUTION_FAILED"));
    assert!(one(&echoes[0], "[data-action=jump]").has_attribute("data-line"));

    // The map marks the first assert and the echo.
    let map = one(&r, "[data-testid=map]");
    assert_eq!(all(&map, ".fa-bin.mark-first").len(), 1);
    assert!(!all(&map, ".fa-bin.mark-echo").is_empty());

    // One checkbox per step, one copy button per snippet.
    let steps = get(&report, &["checklist"]).dyn_into::<js_sys::Array>().unwrap();
    assert_eq!(all(&r, "[data-testid=checklist] input[type=checkbox]").len() as u32, steps.length());
    let snippets = steps.iter().filter(|s| get(s, &["code"]).is_string()).count()
        + usize::from(get(&report, &["cause", "snippet"]).is_string());
    assert_eq!(all(&r, "[data-action=copy]").len(), snippets);
    assert!(snippets >= 2, "the CUDA_LAUNCH_BLOCKING cell and the cause's check");
}

#[wasm_bindgen_test]
fn a_trustworthy_stack_says_so() {
    let (_s, r, _) = rendered(TRUSTED_LOG, "en");
    let stack = one(&r, "[data-testid=stack]");
    assert_eq!(stack.get_attribute("data-trustworthy").as_deref(), Some("true"));
    assert!(one(&stack, ".fa-badge").class_list().contains("ok"));
}

#[wasm_bindgen_test]
fn other_cuda_errors_and_clean_logs() {
    let (_s, r, _) = rendered(OTHER_LOG, "en");
    assert_eq!(r.get_attribute("data-verdict").as_deref(), Some("other_cuda_error"));
    assert!(r.query_selector("[data-testid=first-assert]").unwrap().is_none());
    assert!(!all(&r, "[data-testid=other-errors] li").is_empty());

    let (_s, r, _) = rendered(CLEAN_LOG, "en");
    assert_eq!(r.get_attribute("data-verdict").as_deref(), Some("clean"));
    assert!(r.query_selector("[data-testid=cause]").unwrap().is_none());
    assert!(r.query_selector("[data-testid=map]").unwrap().is_none());
}

#[wasm_bindgen_test]
fn chinese_and_switching_back() {
    let (mut s, r, _) = rendered(ECHO_LOG, "zh");
    assert_eq!(r.get_attribute("lang").as_deref(), Some("zh-Hans"));
    let han = |t: &str| t.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c));
    let zh_title = text(&one(&r, "[data-testid=cause] h2"));
    assert!(han(&zh_title), "{zh_title}");
    assert!(han(&text(&one(&r, "[data-testid=headline]"))));
    assert!(han(&text(&one(&r, "[data-testid=checklist]"))));

    let report = s.set_lang("en").unwrap_or_else(|_| panic!("setLang"));
    assert_eq!(get(&report, &["lang"]).as_string().as_deref(), Some("en"));
    assert_eq!(r.get_attribute("lang").as_deref(), Some("en"));
    assert!(!han(&text(&one(&r, "[data-testid=cause] h2"))));
    assert!(s.set_lang("fr").is_err());
}

#[wasm_bindgen_test]
fn notebooks_map_cells_and_jumps_show_them() {
    let mut s = Session::new();
    let report = s.analyze_notebook(NOTEBOOK.to_string(), JsValue::UNDEFINED).unwrap_or_else(|_| panic!("notebook"));
    let r = root();
    s.render(r.clone()).unwrap_or_else(|_| panic!("render"));
    let cells = get(&report, &["input", "cells"]).as_f64().unwrap() as usize;
    assert_eq!(all(&r, "[data-testid=map] .fa-bin").len(), cells, "one map entry per cell");

    // The window starts at the first assert; a click on an echo moves it to the echo's cell.
    let w = one(&r, "[data-testid=window]");
    let first_cell = get(&report, &["first_assert", "cell"]).as_f64().unwrap();
    assert_eq!(w.get_attribute("data-cell"), Some(first_cell.to_string()));
    let echo = all(&r, "[data-testid=echo] [data-action=jump]")
        .into_iter()
        .find(|b| b.get_attribute("data-cell") != Some(first_cell.to_string()))
        .expect("an echo in a later cell");
    let echo_cell = echo.get_attribute("data-cell").unwrap();
    echo.dyn_ref::<HtmlElement>().unwrap().click();
    let w = one(&r, "[data-testid=window]");
    assert_eq!(w.get_attribute("data-cell"), Some(echo_cell));
    assert!(!all(&w, ".fa-line.mark-echo").is_empty());
}

#[wasm_bindgen_test]
fn checklist_ticks_are_kept_per_input() {
    let storage = web_sys::window().unwrap().local_storage().unwrap().unwrap();
    let log = format!("{ECHO_LOG}\n# checklist test\n");
    let (s, r, _) = rendered(&log, "en");
    let key = s.storage_key().unwrap();
    storage.remove_item(&key).unwrap();
    let boxes = all(&r, "[data-action=step]");
    let cb = boxes[1].clone().dyn_into::<HtmlInputElement>().unwrap();
    cb.click(); // ticks it and fires `change`
    let kept = storage.get_item(&key).unwrap().unwrap_or_default();
    let id = cb.get_attribute("data-step").unwrap();
    assert!(kept.contains(&id), "{kept}");

    // The same input again, in a new session: the tick is back. Another input: it is not.
    let (_s2, r2, _) = rendered(&log, "en");
    let again = all(&r2, "[data-action=step]")[1].clone().dyn_into::<HtmlInputElement>().unwrap();
    assert!(again.checked());
    let (_s3, r3, _) = rendered(ECHO_LOG, "en");
    assert!(!all(&r3, "[data-action=step]")[1].clone().dyn_into::<HtmlInputElement>().unwrap().checked());
    storage.remove_item(&key).unwrap();
}

/// The shared corpus of hostile payloads (tests/payloads.json).
fn payloads() -> Vec<String> {
    let v: serde_json::Value = serde_json::from_str(include_str!("payloads.json")).unwrap();
    v["payloads"].as_array().unwrap().iter().map(|p| p.as_str().unwrap().to_string()).collect()
}

fn assert_inert(r: &Element) {
    for tag in ["img", "script", "svg", "iframe", "object", "embed", "a", "style", "link"] {
        assert!(all(r, tag).is_empty(), "a <{tag}> element came from the log");
    }
    for el in all(r, "*") {
        let names = el.get_attribute_names();
        for n in names.iter() {
            let n = n.as_string().unwrap();
            assert!(
                !n.starts_with("on") && n != "href" && n != "src" && n != "style",
                "attribute {n} on <{}>",
                el.tag_name()
            );
        }
    }
    assert_ne!(doc().title(), "pwned");
}

#[wasm_bindgen_test]
fn hostile_logs_render_as_text() {
    for p in payloads() {
        let p = p.as_str();
        let log = format!(
            "Traceback (most recent call last):\n  File \"/content/{p}.py\", line 3, in <module>\n    loss = criterion({p}, labels)\n\
             /pytorch/aten/src/ATen/native/cuda/Loss.cu:250: {p}: block: [0,0,0], thread: [1,0,0] Assertion `t >= 0 && {p}` failed.\n\
             RuntimeError: CUDA error: device-side assert triggered {p}\n"
        );
        let (_s, r, _) = rendered(&log, "en");
        assert_inert(&r);
        let shown = text(&one(&r, "[data-testid=first-assert]"));
        if !p.chars().any(|c| {
            c.is_control()
                || ('\u{2066}'..='\u{2069}').contains(&c)
                || ('\u{202a}'..='\u{202e}').contains(&c)
                || c == '\u{200f}'
        }) {
            // Entities such as &lt; are decoded first, like the rest of a copied web page.
            let decoded = p.replace("&lt;", "<").replace("&gt;", ">");
            assert!(shown.contains(&decoded), "the payload is shown as text: {shown}");
        }
    }
}

#[wasm_bindgen_test]
fn hostile_notebooks_render_as_text() {
    let all = payloads();
    let p = all[0].as_str();
    let cells = format!(
        r#"[{{"index":0,"execution_count":1,"source":"x = '{p}'","outputs":[
            {{"kind":"error","ename":"RuntimeError","evalue":"CUDA error: device-side assert triggered","traceback":["{p}"]}},
            {{"kind":"stream","name":"stderr","text":"Loss.cu:250: f: block: [0,0,0], thread: [0,0,0] Assertion `{p}` failed.\n"}}]}}]"#,
        p = p.replace('"', "\\\"")
    );
    let mut s = Session::new();
    s.analyze_notebook(cells, JsValue::UNDEFINED).unwrap_or_else(|_| panic!("cells"));
    let r = root();
    s.render(r.clone()).unwrap_or_else(|_| panic!("render"));
    assert_inert(&r);
    assert!(text(&r).contains(p));
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
    use first_assert::scan::keywords::PairFilter;
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
            b"abcdeFirstCUDArrorsserT=x\n"[(seed % 26) as usize]
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
                assert_eq!(f.find(hay), f.find_scalar(hay), "at {start}");
                checked += 1;
            }
        }
    }
    assert!(checked > 5000);
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
                if seed % 5 == 0 {
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
