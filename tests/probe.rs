//! The probe cell the report hands out: there whenever there is an assert, the same in every
//! surface, and never carrying anything from the input (a hostile log cannot choose the code).
//! Its behaviour under real PyTorch is tested by tests/probe/test_probe.py.

use first_assert::rules::RULES;
use first_assert::{analyze_bytes, analyze_text, Lang, Options, Verdict};

const LABEL: &str = "/pytorch/aten/src/ATen/native/cuda/Loss.cu:250: nll_loss_forward_reduce_cuda_kernel_2d: \
                     block: [0,0,0], thread: [1,0,0] Assertion `t >= 0 && t < n_classes` failed.\n";

/// The code without its one filled-in line, and that line.
fn split(code: &str) -> (String, String) {
    let line = code.lines().find(|l| l.starts_with("_SUSPECTS = ")).expect("a _SUSPECTS line").to_string();
    (code.replacen(&line, "", 1), line)
}

/// Every `_SUSPECTS` line the rules can give.
fn possible_suspects() -> Vec<String> {
    let mut v = vec!["_SUSPECTS = ()".to_string()];
    for r in RULES {
        let q: Vec<String> = r.probe.iter().map(|g| format!("\"{g}\"")).collect();
        v.push(if q.len() == 1 {
            format!("_SUSPECTS = ({},)", q[0])
        } else {
            format!("_SUSPECTS = ({})", q.join(", "))
        });
    }
    v
}

#[test]
fn a_device_assert_gets_a_probe_in_the_report_and_in_the_checklist() {
    for lang in Lang::ALL {
        let r = analyze_text(
            &format!("{LABEL}RuntimeError: CUDA error: device-side assert triggered\n"),
            &Options::lang(lang),
        );
        assert_eq!(r.verdict, Verdict::DeviceAssert);
        let p = r.probe.as_ref().expect("a probe");
        assert_eq!(p.ops, ["F.cross_entropy", "F.nll_loss"]);
        let step = r.checklist.iter().find(|s| s.id == "probe").expect("a probe step");
        assert_eq!(step.code, None, "its code is the report's probe.code, once");
        // The probe sets the variable itself: it leads, the variable alone is the other way,
        // and one rerun follows both.
        let ids: Vec<&str> = r.checklist.iter().map(|s| s.id.as_str()).collect();
        let at = |id: &str| ids.iter().position(|i| *i == id).unwrap();
        assert!(at("probe") < at("launch_blocking") && at("launch_blocking") < at("rerun"), "{ids:?}");
        assert_eq!(ids.iter().filter(|i| **i == "rerun").count(), 1, "{ids:?}");
    }
    for text in ["epoch 1 loss 0.25\n", "RuntimeError: CUDA error: out of memory\n"] {
        let r = analyze_text(text, &Options::default());
        assert!(r.probe.is_none() && r.checklist.iter().all(|s| s.id != "probe"), "{text}");
    }
}

#[test]
fn a_cause_with_its_own_snippet_keeps_it_and_the_generic_one_is_gone() {
    let r = analyze_text(LABEL, &Options::default());
    assert!(r.checklist.iter().any(|s| s.id == "inspect"));
    // A host error alone, no cause with a snippet: the probe is the way to print the values.
    let r = analyze_text("RuntimeError: CUDA error: device-side assert triggered\n", &Options::default());
    assert_eq!(r.verdict, Verdict::DeviceAssert);
    assert!(r.checklist.iter().any(|s| s.id == "probe"));
    assert!(r.checklist.iter().all(|s| s.id != "inspect" || s.code.is_some()));
}

#[test]
fn nothing_from_the_input_reaches_the_code() {
    let corpus: serde_json::Value = serde_json::from_str(include_str!("payloads.json")).unwrap();
    let mut payloads: Vec<String> =
        corpus["payloads"].as_array().unwrap().iter().map(|p| p.as_str().unwrap().to_string()).collect();
    // Python of the attacker's choosing, shaped to fit the probe's own lines.
    payloads.extend(
        [
            "\"); __import__('os').system('id'); (\"",
            "_SUSPECTS = (\"__import__('os').system('id')\",)",
            "{probe_suspects}",
            "\"\"\"\nimport os; os.system('id')\n\"\"\"",
            "index\", \"loss",
            "'''; exec(input()); '''",
        ]
        .map(str::to_string),
    );
    let reference = split(&analyze_text(LABEL, &Options::default()).probe.unwrap().code).0;
    let possible = possible_suspects();
    for p in &payloads {
        let log = format!(
            "/pytorch/aten/src/ATen/native/cuda/{p}.cu:250: {p}: block: [0,0,0], thread: [1,0,0] Assertion `t >= 0 && {p}` failed.\n\
             {LABEL}Traceback (most recent call last):\n  File \"/content/{p}.py\", line 3, in {p}\n    loss = F.cross_entropy(out, {p})\n\
             RuntimeError: CUDA error: device-side assert triggered {p}\n{p}\n"
        );
        let cells = serde_json::json!({
            "nbformat": 4, "nbformat_minor": 5, "metadata": {},
            "cells": [{ "cell_type": "code", "execution_count": 1, "metadata": {}, "source": format!("{p}\nx = {p}\n"),
                        "outputs": [{ "output_type": "error", "ename": "RuntimeError", "evalue": format!("CUDA error: device-side assert triggered {p}"),
                                      "traceback": [p, format!("{LABEL}{p}")] }] }]
        })
        .to_string();
        for (bytes, name) in [(log.as_bytes(), "x.log"), (cells.as_bytes(), "x.ipynb")] {
            let r = analyze_bytes(bytes, Some(name), &Options::default()).unwrap();
            let code = &r.probe.as_ref().unwrap_or_else(|| panic!("no probe for {p:?} in {name}")).code;
            let (rest, line) = split(code);
            assert_eq!(rest, reference, "{p:?} in {name} changed the code");
            assert!(possible.contains(&line), "{p:?} in {name}: {line}");
        }
    }
}

#[test]
fn the_confirmation_carries_the_probes_clue_and_the_cell_of_the_users_line() {
    let case = |name: &str, lang: Lang| {
        let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases").join(name);
        first_assert::analyze_bytes(&std::fs::read(p).unwrap(), Some(name), &Options::lang(lang)).unwrap()
    };
    let r = case("probe-rerun.ipynb", Lang::En);
    let c = r.confirmation.as_ref().expect("confirmed");
    assert_eq!(c.values.as_deref(), Some("min 0, max 12; 3 of 64 bad; first bad value 12 at position [17]"));
    assert!(c.clue.as_deref().is_some_and(|t| !t.is_empty()), "{c:?}");
    // The kernel's temporary file is the cell the user sees.
    assert_eq!(c.place, "cell [3], code line 4");
    let text = first_assert::render::text(&r, &first_assert::render::TextOptions::default());
    assert!(text.contains("your line: cell [3], code line 4  loss = F.cross_entropy(logits, y)"), "{text}");
    assert!(text.contains("values: min 0, max 12"), "{text}");
    let card = first_assert::card::html(&r);
    assert!(card.contains("cell [3], code line 4  loss = F.cross_entropy(logits, y)") && !card.contains("ipykernel_2207"), "{card}");
    assert!(card.contains("Usual cause: "), "{card}");
    // In Chinese, and in a log (a script's own file stays as printed).
    assert_eq!(case("probe-rerun.ipynb", Lang::Zh).confirmation.unwrap().place, "单元格 [3] 代码第 4 行");
    let log = case("probe-caught-label.log", Lang::En).confirmation.unwrap();
    assert_eq!((log.place.as_str(), log.line.as_deref()), ("", Some("/content/train.py:312  loss = F.cross_entropy(logits, labels)")));
}
