//! The JSON contract (the README's "The report (`--json`)"): field names, types and meanings that consumers (the page,
//! the adapters, scripts) rely on. Fields may be added; none may be renamed or retyped without
//! bumping `schema`.
#![cfg(not(target_arch = "wasm32"))]

use first_assert::{analyze_bytes, Options, SCHEMA};
use serde_json::Value;
use std::path::Path;

fn report_json(case: &str) -> Value {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases").join(case);
    let r = analyze_bytes(&std::fs::read(&p).unwrap(), Some(case), &Options::default()).unwrap();
    serde_json::to_value(r).unwrap()
}

fn keys(v: &Value) -> Vec<&str> {
    let mut k: Vec<&str> = v.as_object().expect("an object").keys().map(String::as_str).collect();
    k.sort_unstable();
    k
}

fn has_all(v: &Value, want: &[&str], what: &str) {
    let got = keys(v);
    for w in want {
        assert!(got.contains(w), "{what} lacks `{w}` (has {got:?})");
    }
}

const CATEGORIES: [&str; 7] = [
    "invalid_label",
    "index_out_of_bounds",
    "invalid_value",
    "shape_mismatch",
    "dtype_mismatch",
    "stale_context",
    "unknown",
];

#[test]
fn top_level_fields() {
    let v = report_json("colab-echoes.ipynb");
    assert_eq!(v["schema"], SCHEMA);
    assert_eq!(SCHEMA, 1);
    has_all(
        &v,
        &[
            "schema",
            "verdict",
            "first_assert",
            "cause",
            "echoes",
            "echo_count",
            "stack",
            "checklist",
            "probe",
            "notes",
            "lang",
            "input",
            "headline",
            "kernel_sites",
            "raised_at",
            "other_errors",
            "tool",
        ],
        "report",
    );
    assert!(["device_assert", "other_cuda_error", "clean"].contains(&v["verdict"].as_str().unwrap()));
    assert_eq!(v["tool"]["name"], "first-assert");
}

#[test]
fn first_assert_fields_and_locations() {
    let v = report_json("colab-echoes.ipynb");
    let f = &v["first_assert"];
    has_all(
        f,
        &[
            "text",
            "line",
            "cell",
            "kind",
            "site",
            "repeats",
            "output",
            "execution_count",
            "dialect",
            "context",
            "text_truncated",
            "end_line",
        ],
        "first_assert",
    );
    assert!(f["text"].is_string());
    assert!(f["line"].as_u64().unwrap() >= 1, "line is 1-based");
    // For a notebook: a 0-based index into the notebook's `cells` array (markdown counts).
    assert_eq!(f["cell"], 3);
    assert!(["kernel_assert", "host_error", "dsa_report", "described"].contains(&f["kind"].as_str().unwrap()));
    let site = &f["site"];
    has_all(site, &["file", "line", "function", "condition", "block", "thread", "name"], "site");
    assert_eq!(site["block"], serde_json::json!([0, 0, 0]));
    let rep = &f["repeats"];
    has_all(rep, &["count", "blocks", "threads", "block_range", "thread_range", "last_line"], "repeats");

    // Plain text: cell is null.
    let t = report_json("windows-indexkernel.log");
    assert!(t["first_assert"]["cell"].is_null());
    assert!(t["first_assert"]["site"]["function"].is_null(), "Windows builds print no function");
}

#[test]
fn cause_fields() {
    let v = report_json("colab-echoes.ipynb");
    let c = &v["cause"];
    has_all(
        c,
        &["category", "rule", "confidence", "evidence", "title", "summary", "why", "fix", "check", "snippet", "ops"],
        "cause",
    );
    assert!(CATEGORIES.contains(&c["category"].as_str().unwrap()));
    let conf = c["confidence"].as_f64().unwrap();
    assert!((0.0..=1.0).contains(&conf));
    let ev = &c["evidence"][0];
    has_all(ev, &["scope", "text", "line", "cell", "matched"], "evidence");
    // The rule id names a file in rules/.
    let rule = c["rule"].as_str().unwrap();
    assert!(Path::new(env!("CARGO_MANIFEST_DIR")).join("rules").join(format!("{rule}.toml")).exists());
}

#[test]
fn echoes_stack_checklist_notes() {
    let v = report_json("colab-echoes.ipynb");
    let e = &v["echoes"][0];
    has_all(e, &["text", "line", "cell", "kind", "exception"], "echo");
    assert_eq!(v["echo_count"].as_u64().unwrap(), v["echoes"].as_array().unwrap().len() as u64);
    let s = &v["stack"];
    has_all(
        s,
        &["trustworthy", "async_note", "launch_blocking", "innocent_op", "explanation", "launch_blocking_at"],
        "stack",
    );
    assert!(["not_set", "set", "set_after_import", "set_after_cuda", "ignored"]
        .contains(&s["launch_blocking"].as_str().unwrap()));
    let ids: Vec<&str> = v["checklist"].as_array().unwrap().iter().map(|s| s["id"].as_str().unwrap()).collect();
    // A script's steps (its process ended with the error: nothing to restart); the rerun is read
    // from its first error, the fix says what follows it.
    for id in ["launch_blocking", "probe", "rerun", "inspect", "fix"] {
        assert!(ids.contains(&id), "checklist lacks {id}: {ids:?}");
    }
    assert!(ids.len() <= 7, "{ids:?}");
    let lb = v["checklist"].as_array().unwrap().iter().find(|s| s["id"] == "launch_blocking").unwrap();
    assert!(lb["code"].as_str().unwrap().contains("CUDA_LAUNCH_BLOCKING"));
    has_all(&v["notes"][0], &["id", "text"], "note");
    has_all(&v["probe"], &["code", "ops"], "probe");
    assert!(v["probe"]["code"].as_str().unwrap().contains("TorchFunctionMode"));
    assert!(v["probe"]["ops"].as_array().unwrap().iter().all(|o| o.is_string()));
}

#[test]
fn no_assert_means_null_first_assert_and_no_cause() {
    for case in ["out-of-memory.log", "near-miss-docs-and-prints.log", "no-kernel-image-dsa-hint.log", "empty.log"] {
        let v = report_json(case);
        assert!(v["first_assert"].is_null(), "{case}");
        assert!(v["cause"].is_null(), "{case}");
        assert_ne!(v["verdict"], "device_assert", "{case}");
        assert_eq!(v["echo_count"], 0, "{case}");
    }
    let oom = report_json("out-of-memory.log");
    assert_eq!(oom["verdict"], "other_cuda_error");
    has_all(&oom["other_errors"][0], &["kind", "text", "line", "explanation"], "other_errors");
}

#[test]
fn the_report_round_trips() {
    let v = report_json("colab-echoes.ipynb");
    let r: first_assert::Report = serde_json::from_value(v.clone()).unwrap();
    assert_eq!(serde_json::to_value(r).unwrap(), v);
}

/// The package writes its reports with `first_assert::report_json` (no serde in the browser):
/// on every test input, in both languages, with and without a runtime log beside it, it must
/// write exactly what serde writes.
#[test]
fn the_packages_json_writer_writes_what_serde_writes() {
    use first_assert::{report_json, Lang};
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases");
    let log = "Timestamp,Level,Message\n\"Dec 1, 2026, 10:01:17 AM\",WARNING,\"../aten/src/ATen/native/cuda/Loss.cu:250: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [5,0,0] Assertion `t >= 0 && t < n_classes` failed.\"\n";
    let mut n = 0;
    for e in std::fs::read_dir(&dir).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().to_string();
        if name.ends_with(".expect.json") {
            continue;
        }
        let bytes = std::fs::read(e.path()).unwrap();
        for lang in Lang::ALL {
            for runtime_log in [None, Some(log.to_string())] {
                let o = Options { lang, runtime_log, ..Options::default() };
                let Ok(r) = analyze_bytes(&bytes, Some(&name), &o) else { continue };
                assert_eq!(report_json::to_string(&r), serde_json::to_string(&r).unwrap(), "{name}");
                n += 1;
            }
        }
    }
    assert!(n > 200, "only {n} reports compared");
}

#[test]
fn outputs_a_page_could_not_read_are_never_a_clean_bill() {
    let cells = |outputs: &str| {
        format!(
            r#"{{"host": "colab", "cells": [
                {{"index": 0, "execution_count": 1, "source": "x = 1", "outputs": [{{"kind": "stream", "name": "stdout", "text": "ok\n"}}]}},
                {{"index": 2, "execution_count": 2, "source": "loss = criterion(out, y)", "outputs": [{outputs}]}},
                {{"index": 3, "execution_count": null, "source": "", "outputs": [{{"kind": "unreadable", "reason": "virtualised"}}]}}
            ]}}"#
        )
    };
    let run = |text: String, lang| {
        let r = analyze_bytes(text.as_bytes(), None, &Options::lang(lang)).unwrap();
        serde_json::to_value(r).unwrap()
    };
    let v = run(cells(r#"{"kind": "unreadable", "reason": "frame"}"#), first_assert::Lang::En);
    assert_eq!(v["verdict"], "unreadable");
    assert_eq!(v["input"]["unreadable_cells"], serde_json::json!([2, 3]));
    assert!(v["headline"].as_str().unwrap().contains("2 cell(s) could not be read"), "{}", v["headline"]);
    let ids: Vec<&str> = v["checklist"].as_array().unwrap().iter().map(|s| s["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["extension", "download_notebook", "paste_error"]);
    assert!(v["first_assert"].is_null() && v["cause"].is_null() && v["probe"].is_null());
    let zh = run(cells(r#"{"kind": "unreadable", "reason": "frame"}"#), first_assert::Lang::Zh);
    assert!(zh["headline"].as_str().unwrap().contains("2 个单元格的输出无法读取"));
    // What could be read decides when it shows an assert; with nothing unreadable it is clean.
    let v = run(
        cells(r#"{"kind": "error", "ename": "RuntimeError", "evalue": "CUDA error: device-side assert triggered"}"#),
        first_assert::Lang::En,
    );
    assert_eq!(v["verdict"], "device_assert");
    assert_eq!(v["input"]["unreadable_cells"], serde_json::json!([3]));
    let v = run(
        cells(r#"{"kind": "stream", "name": "stdout", "text": "fine"}"#)
            .replace(r#"{"kind": "unreadable", "reason": "virtualised"}"#, ""),
        first_assert::Lang::En,
    );
    assert_eq!(v["verdict"], "clean");
    assert_eq!(v["input"]["unreadable_cells"], serde_json::json!([]));
}

#[test]
fn the_echo_note_counts_the_cells_the_echoes_are_in() {
    // For every notebook of ours with the note: its count is the echoes' own cells (the first
    // assert's cell counts only when an echo is printed there too).
    let mut seen = 0;
    for entry in std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases")).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        if !name.ends_with(".ipynb") {
            continue;
        }
        let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases").join(&name);
        let Ok(report) = analyze_bytes(&std::fs::read(&p).unwrap(), Some(&name), &Options::default()) else {
            continue; // the broken notebooks of the bad-input tests
        };
        let r = serde_json::to_value(&report).unwrap();
        let Some(note) = r["notes"].as_array().unwrap().iter().find(|n| n["id"] == "echo_cells") else { continue };
        let mut cells: Vec<u64> = r["echoes"].as_array().unwrap().iter().filter_map(|e| e["cell"].as_u64()).collect();
        cells.sort_unstable();
        cells.dedup();
        let text = note["text"].as_str().unwrap();
        assert!(
            text.contains(&format!("spread over {} cells", cells.len())),
            "{name}: {text} (echoes in cells {cells:?})"
        );
        seen += 1;
    }
    assert!(seen >= 1, "no notebook with the note");
}

#[test]
fn a_long_other_error_headline_is_cut_between_words_with_an_ellipsis() {
    let words = "while running the forward pass of the second decoder block on rank zero the allocator reported";
    let log = format!("RuntimeError: CUDA error: an illegal memory access was encountered {words} {words}\n");
    let r = first_assert::analyze_text(&log, &Options::default());
    let h = &r.headline;
    assert!(h.ends_with('…'), "{h}");
    let last = h.trim_end_matches('…').rsplit(' ').next().unwrap();
    assert!(words.split(' ').any(|w| w == last), "cut mid-word: {h}");
}

#[test]
fn count_quoted_takes_what_reads_as_quoted_as_the_error() {
    let log = "step 3 loss 0.7\nprint(\"RuntimeError: CUDA error: device-side assert triggered\")\n";
    let clean = first_assert::analyze_text(log, &Options::default());
    assert_eq!(clean.verdict, first_assert::Verdict::Clean);
    let opts = Options { count_quoted: true, ..Options::default() };
    let counted = first_assert::analyze_text(log, &opts);
    assert_eq!(counted.verdict, first_assert::Verdict::DeviceAssert);
    assert_eq!(counted.raised_at.as_ref().map(|r| r.at.line), Some(2));
    // The judgement is back to normal after it (the flag lives only while that analysis runs).
    assert_eq!(first_assert::analyze_text(log, &Options::default()).verdict, first_assert::Verdict::Clean);
    // In a notebook too.
    let nb = r#"{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [{"cell_type": "code", "execution_count": 1, "metadata": {}, "source": ["x = 1"], "outputs": [{"output_type": "stream", "name": "stdout", "text": ["If you see `device-side assert triggered`, restart the runtime.\n"]}]}]}"#;
    let clean = analyze_bytes(nb.as_bytes(), Some("q.ipynb"), &Options::default()).unwrap();
    assert_eq!(clean.verdict, first_assert::Verdict::Clean);
    let counted = analyze_bytes(nb.as_bytes(), Some("q.ipynb"), &opts).unwrap();
    assert_eq!(counted.verdict, first_assert::Verdict::DeviceAssert);
    // And on an output's last line without a newline, read when the next output or cell
    // starts.
    for next in [r#"{"output_type": "stream", "name": "stdout", "text": "done\n"}"#, ""] {
        let sep = if next.is_empty() { "" } else { ", " };
        let nb = format!(
            r#"{{"cells": [{{"source": "x", "outputs": [{{"output_type": "stream", "name": "stdout", "text": "If you see `device-side assert triggered`, restart the runtime."}}{sep}{next}]}}, {{"source": "y", "outputs": []}}]}}"#
        );
        let clean = analyze_bytes(nb.as_bytes(), Some("q.ipynb"), &Options::default()).unwrap();
        assert_eq!(clean.verdict, first_assert::Verdict::Clean, "{nb}");
        let counted = analyze_bytes(nb.as_bytes(), Some("q.ipynb"), &opts).unwrap();
        assert_eq!(counted.verdict, first_assert::Verdict::DeviceAssert, "{nb}");
    }
}
