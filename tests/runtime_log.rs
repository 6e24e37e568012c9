//! Colab's runtime log joined to a notebook (and read alone): the kernel's lines from the log,
//! the cells and the traceback from the notebook, in every form the log arrives in. Inputs are
//! generated here, modelled on the viewer's download and on rows copied from it.
#![cfg(not(target_arch = "wasm32"))]

use first_assert::{analyze_bytes, analyze_cells, analyze_notebook, analyze_text, Category, Cell, CellType, Options, Output, OutputKind};
use first_assert::{AssertKind, InputFormat, Report};

const KERNEL: &str = "../aten/src/ATen/native/cuda/Indexing.cu:1236: indexSelectSmallIndex: block: [3,0,0], thread: [THREAD,0,0] Assertion `srcIndex < srcSelectDimSize` failed.";
const HOST: &str = "RuntimeError: CUDA error: device-side assert triggered";

/// A Colab notebook: an embedding lookup, an innocent `.item()` that raised, a later cell
/// that echoes.
fn notebook() -> String {
    let tb = |lines: &[&str]| serde_json::Value::from(lines.iter().map(|s| s.to_string()).collect::<Vec<_>>());
    let nb = serde_json::json!({
        "nbformat": 4, "nbformat_minor": 5,
        "metadata": { "colab": { "provenance": [] }, "accelerator": "GPU" },
        "cells": [
            { "cell_type": "code", "execution_count": 1, "metadata": {}, "outputs": [],
              "source": ["import torch\n", "emb = torch.nn.Embedding(100, 16).cuda()\n", "ids = torch.randint(0, 120, (4, 8)).cuda()\n"] },
            { "cell_type": "code", "execution_count": 2, "metadata": {},
              "source": ["out = emb(ids)\n", "print(out.sum().item())\n"],
              "outputs": [{ "output_type": "error", "ename": "RuntimeError", "evalue": "CUDA error: device-side assert triggered",
                "traceback": tb(&[
                    "---------------------------------------------------------------------------",
                    "RuntimeError                              Traceback (most recent call last)",
                    "<ipython-input-2-4a1f9c2e7b30> in <cell line: 2>()\n      1 out = emb(ids)\n----> 2 print(out.sum().item())\n",
                    "RuntimeError: CUDA error: device-side assert triggered\nCUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1\n",
                ]) }] },
            { "cell_type": "code", "execution_count": 3, "metadata": {}, "source": ["torch.cuda.empty_cache()\n"],
              "outputs": [{ "output_type": "error", "ename": "RuntimeError", "evalue": "CUDA error: device-side assert triggered",
                "traceback": tb(&["RuntimeError: CUDA error: device-side assert triggered\n"]) }] }
        ]
    });
    serde_json::to_string_pretty(&nb).unwrap()
}

/// The rows of a log, oldest first: (time, level, message).
fn rows(threads: &[u32]) -> Vec<(String, &'static str, String)> {
    let mut v = vec![
        ("Dec 1, 2026, 9:58:02 AM".to_string(), "INFO", "Kernel started: 0b6c7a52-9f1e-4d1b-a7c3-5a2e8f0d1c44".to_string()),
        ("Dec 1, 2026, 9:58:09 AM".to_string(), "WARNING", "2026-12-01 09:58:09.312: W tensorflow/compiler/tf2tensorrt/utils/py_utils.cc:38] TF-TRT Warning: Could not find TensorRT".to_string()),
    ];
    for t in threads {
        v.push(("Dec 1, 2026, 10:01:17 AM".to_string(), "WARNING", KERNEL.replace("THREAD", &t.to_string())));
    }
    v
}

/// The viewer's download: a header, then the rows newest first, quoted where needed.
fn csv(rows: &[(String, &str, String)]) -> String {
    let q = |s: &str| format!("\"{}\"", s.replace('"', "\"\""));
    let mut s = String::from("Timestamp,Level,Message\n");
    for (t, l, m) in rows.iter().rev() {
        s += &format!("{},{},{}\n", q(t), l, q(m));
    }
    s
}

/// Rows copied from the viewer's table: newest first, tab-separated.
fn copied(rows: &[(String, &str, String)]) -> String {
    let mut s = String::from("Timestamp\tLevel\tMessage\n");
    for (t, l, m) in rows.iter().rev() {
        s += &format!("{t}\t{l}\t{m}\n");
    }
    s
}

/// The same rows, each field on a line of its own.
fn stacked(rows: &[(String, &str, String)]) -> String {
    rows.iter().rev().map(|(t, l, m)| format!("{t}\n{l}\n{m}\n")).collect()
}

/// The same rows run together on one line (a Markdown paste).
fn flat(rows: &[(String, &str, String)]) -> String {
    let body: Vec<String> = rows.iter().rev().map(|(t, l, m)| format!("{t} {l} {m}")).collect();
    format!("Timestamp Level Message {}", body.join(" "))
}

/// As a browser in Chinese writes the times.
fn zh_times(rows: &[(String, &'static str, String)]) -> Vec<(String, &'static str, String)> {
    rows.iter()
        .map(|(t, l, m)| {
            let (h, rest) = t.split_once(", 2026, ").unwrap().1.split_once(':').unwrap();
            let (clock, ampm) = rest.split_once(' ').unwrap();
            let h: u32 = h.parse().unwrap();
            let h = h % 12 + if ampm == "PM" { 12 } else { 0 };
            (format!("2026年12月1日 {h:02}:{clock}"), *l, m.clone())
        })
        .collect()
}

fn with_log(log: &str) -> Options {
    Options { runtime_log: Some(log.to_string()), ..Options::default() }
}

/// What every joined report must say: the first kernel line of the log, its cause, the
/// notebook's traceback and echoes.
fn joined(r: &Report, log: &str, what: &str) {
    let fa = r.first_assert.as_ref().unwrap_or_else(|| panic!("{what}: no first assert"));
    assert_eq!(fa.kind, AssertKind::KernelAssert, "{what}");
    assert!(fa.at.runtime_log, "{what}: the first assert is the log's");
    assert!(fa.text.contains("thread: [5,0,0]"), "{what}: the oldest record first: {}", fa.text);
    let line = log.lines().nth(fa.at.line as usize - 1).unwrap_or_else(|| panic!("{what}: line {}", fa.at.line));
    assert!(line.contains("thread: [5,0,0]"), "{what}: line {} of the log is {line:?}", fa.at.line);
    let cause = r.cause.as_ref().unwrap();
    assert_eq!(
        (cause.category, cause.rule.as_str()),
        (Category::IndexOutOfBounds, "embedding-index-out-of-range"),
        "{what}"
    );
    assert!(cause.confidence >= 0.9, "{what}: a known site: {}", cause.confidence);
    assert!(cause.evidence.iter().any(|e| e.at.runtime_log), "{what}: the evidence points into the log");
    assert_eq!(r.echo_count, 1, "{what}: the notebook's first host error is the assert's report, the second its echo");
    assert_eq!(r.raised_at.as_ref().and_then(|a| a.at.cell), Some(1), "{what}: raised in the second cell");
    assert_eq!(r.stack.as_ref().and_then(|s| s.innocent_op.as_deref()), Some("print(out.sum().item())"), "{what}");
    let notes: Vec<&str> = r.notes.iter().map(|n| n.id.as_str()).collect();
    assert!(notes.contains(&"kernel_from_runtime_log"), "{what}: {notes:?}");
    assert!(!notes.iter().any(|n| n.starts_with("kernel_lines")), "{what}: {notes:?}");
    assert!(!r.checklist.iter().any(|s| s.id == "runtime_log"), "{what}: the log is already here");
    let info = r.input.runtime_log.as_ref().unwrap();
    assert_eq!(info.rows, 4, "{what}: the rows after the kernel started");
}

#[test]
fn a_notebook_with_its_runtime_log_in_every_form() {
    let nb = notebook();
    let base = rows(&[5, 6, 7]);
    let zh = zh_times(&base);
    for (what, log, form) in [
        ("csv", csv(&base), "csv"),
        ("copied", copied(&base), "rows"),
        ("stacked", stacked(&base), "rows"),
        ("flat", flat(&base), "rows"),
        ("zh", copied(&zh), "rows"),
        ("zh csv", csv(&zh), "csv"),
    ] {
        let r = analyze_notebook(&nb, &with_log(&log)).unwrap();
        joined(&r, &log, what);
        let info = r.input.runtime_log.as_ref().unwrap();
        assert_eq!((info.form.as_str(), info.newest_first), (form, true), "{what}");
        // The same through the bytes entry point (the CLI's and the page's).
        let b = analyze_bytes(nb.as_bytes(), Some("x.ipynb"), &with_log(&log)).unwrap();
        assert_eq!(b.first_assert, r.first_assert, "{what}");
    }
}

#[test]
fn the_cell_list_of_the_colab_adapter_with_a_log() {
    let nb = first_assert::input::parse_notebook(&notebook()).unwrap();
    let log = csv(&rows(&[5, 6]));
    let mut o = with_log(&log);
    o.host = Some("colab".into());
    let r = analyze_cells(&nb.cells, &o);
    let fa = r.first_assert.as_ref().unwrap();
    assert!(fa.at.runtime_log && fa.text.contains("thread: [5,0,0]"));
    assert_eq!(r.cause.as_ref().unwrap().category, Category::IndexOutOfBounds);
    // Without the log, on Colab: the kernel lines are in the runtime log, and the first step
    // says to copy them.
    let bare = Options { host: Some("colab".into()), ..Options::default() };
    let r = analyze_cells(&nb.cells, &bare);
    assert!(r.notes.iter().any(|n| n.id == "kernel_lines_in_runtime_log"), "{:?}", r.notes);
    assert_eq!(r.checklist.first().map(|s| s.id.as_str()), Some("runtime_log"));
    // Off Colab (no host, a cell list), the generic note.
    let cells: Vec<Cell> = vec![Cell {
        index: 0,
        execution_count: Some(1),
        cell_type: CellType::Code,
        source: "y = model(x)\n".into(),
        outputs: vec![Output { kind: OutputKind::Error, name: None, text: format!("{HOST}\n") }],
    }];
    let r = analyze_cells(&cells, &Options::default());
    assert!(r.notes.iter().any(|n| n.id == "kernel_lines_missing"), "{:?}", r.notes);
    assert!(!r.checklist.iter().any(|s| s.id == "runtime_log"));
}

#[test]
fn the_session_that_matters_is_the_last_with_an_assert() {
    // An earlier session failed at another site; the kernel restarted; the notebook shows the
    // run after it.
    let mut all = vec![
        ("Dec 1, 2026, 9:40:00 AM".to_string(), "INFO", "Kernel started: 11".to_string()),
        (
            "Dec 1, 2026, 9:41:00 AM".to_string(),
            "WARNING",
            "../aten/src/ATen/native/cuda/Loss.cu:250: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [1,0,0] Assertion `t >= 0 && t < n_classes` failed.".to_string(),
        ),
        ("Dec 1, 2026, 9:50:00 AM".to_string(), "INFO", "KernelRestarter: restarting kernel (1/5), keep random ports".to_string()),
    ];
    all.extend(rows(&[5, 6, 7]));
    let log = csv(&all);
    let r = analyze_notebook(&notebook(), &with_log(&log)).unwrap();
    joined(&r, &log, "two sessions");
    assert_eq!(r.input.runtime_log.as_ref().map(|l| l.total), Some(8));
    assert_eq!(r.kernel_sites.len(), 1, "the older session's site is left out");
}

#[test]
fn a_log_without_kernel_lines_says_so_and_the_notebook_still_speaks() {
    let log = csv(&rows(&[]));
    let r = analyze_notebook(&notebook(), &with_log(&log)).unwrap();
    let fa = r.first_assert.as_ref().unwrap();
    assert_eq!(fa.kind, AssertKind::HostError);
    assert!(!fa.at.runtime_log);
    let notes: Vec<&str> = r.notes.iter().map(|n| n.id.as_str()).collect();
    assert!(notes.contains(&"runtime_log_without_kernel"), "{notes:?}");
    assert!(!notes.contains(&"kernel_lines_in_runtime_log"), "{notes:?}");
    // The notebook's own evidence (nn.Embedding in a cell) still names the cause.
    assert_eq!(r.cause.as_ref().unwrap().category, Category::IndexOutOfBounds);
}

#[test]
fn any_stderr_text_is_a_log_too_and_a_text_joins_as_a_notebook_does() {
    // A terminal's stderr, forward, no times: read line by line.
    let stderr = format!(
        "[I 10:00:00 ServerApp] Kernel started\n{}\n{}\n",
        KERNEL.replace("THREAD", "5"),
        KERNEL.replace("THREAD", "6")
    );
    let r = analyze_notebook(&notebook(), &with_log(&stderr)).unwrap();
    let fa = r.first_assert.as_ref().unwrap();
    assert!(fa.at.runtime_log && fa.at.line == 2, "{:?}", fa.at);
    assert_eq!(r.input.runtime_log.as_ref().map(|l| l.form.as_str()), Some("lines"));
    // A pasted traceback with the log beside it.
    let text = format!("Traceback (most recent call last):\n  File \"train.py\", line 9, in <module>\n    print(out.sum().item())\n{HOST}\n");
    let log = copied(&rows(&[5, 6]));
    let r = analyze_text(&text, &with_log(&log));
    let fa = r.first_assert.as_ref().unwrap();
    assert!(fa.at.runtime_log && fa.text.contains("thread: [5,0,0]"));
    assert_eq!(r.input.lines, 4, "the input's own lines");
    assert_eq!(r.echo_count, 0, "the pasted host line is where Python raised it");
    assert!(!r.notes.iter().any(|n| n.id == "kernel_after_traceback"), "{:?}", r.notes);
}

#[test]
fn a_runtime_log_given_alone_is_read_oldest_first() {
    let base = rows(&[5, 6, 7]);
    for (what, log) in [("csv", csv(&base)), ("copied", copied(&base)), ("stacked", stacked(&base))] {
        for r in
            [analyze_text(&log, &Options::default()), analyze_bytes(log.as_bytes(), None, &Options::default()).unwrap()]
        {
            assert_eq!(r.input.format, InputFormat::RuntimeLog, "{what}");
            let fa = r.first_assert.as_ref().unwrap();
            assert!(!fa.at.runtime_log, "{what}: the log is the input here");
            assert!(fa.text.contains("thread: [5,0,0]"), "{what}: {}", fa.text);
            assert!(log.lines().nth(fa.at.line as usize - 1).unwrap().contains("thread: [5,0,0]"), "{what}");
            assert_eq!(r.cause.as_ref().unwrap().rule, "embedding-index-out-of-range", "{what}");
            assert!(r.notes.iter().any(|n| n.id == "time_reversed"), "{what}: {:?}", r.notes);
        }
    }
    // Streamed in small chunks, as the CLI reads standard input.
    let log = csv(&base);
    let mut a = first_assert::TextAnalyzer::new();
    for chunk in log.as_bytes().chunks(7) {
        a.feed(chunk);
    }
    let r = a.finish(&Options::default());
    assert_eq!(r.input.format, InputFormat::RuntimeLog);
    assert!(r.first_assert.unwrap().text.contains("thread: [5,0,0]"));
}
