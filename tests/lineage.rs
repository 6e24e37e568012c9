//! Evidence from the cells that matter: in a notebook of several experiments, what a cell outside
//! the failing cell's lineage printed or set up cannot decide the cause (`src/notebook/lineage.rs`,
//! `rules::UNRELATED_CELL`). Each notebook of `tests/lineage` (our own) has a label: the story's
//! true cause and what the report must answer (`expect`: the category, the basis, the rule it
//! names or must not name, bounds on the confidence, the cells its evidence may or must come from).
#![cfg(not(target_arch = "wasm32"))]

use first_assert::{analyze_bytes, Options};
use serde_json::Value;
use std::path::Path;

#[test]
fn the_cause_and_its_confidence_follow_the_failing_cells_lineage() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/lineage");
    let mut inputs: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "ipynb"))
        .collect();
    inputs.sort();
    let mut bad = Vec::new();
    for input in &inputs {
        let name = input.file_name().unwrap().to_str().unwrap();
        let label: Value =
            serde_json::from_str(&std::fs::read_to_string(input.with_extension("json")).unwrap()).unwrap();
        let want = &label["expect"];
        let r = analyze_bytes(&std::fs::read(input).unwrap(), Some(name), &Options::default()).unwrap();
        let c = r.cause.as_ref().expect("an assert has a cause");
        let mut check = |ok: bool, what: String| {
            if !ok {
                bad.push(format!(
                    "{name}: {what} (got {} {} {:.2} {})",
                    c.category.id(),
                    c.rule,
                    c.confidence,
                    c.basis.id()
                ));
            }
        };
        check(c.category.id() == want["category"].as_str().unwrap(), format!("category {}", want["category"]));
        if let Some(b) = want["basis"].as_str() {
            check(c.basis.id() == b, format!("basis {b}"));
        }
        if let Some(rule) = want["rule"].as_str() {
            check(c.rule == rule, format!("rule {rule}"));
        }
        // A rule that rests on an unrelated cell is neither the cause nor a candidate above 0.5.
        if let Some(rule) = want["not_rule"].as_str() {
            check(c.rule != rule, format!("not rule {rule}"));
            check(
                !c.candidates.iter().any(|k| k.rule == rule && k.confidence > 0.5),
                format!("{rule} no candidate above 0.5"),
            );
        }
        if let Some(lo) = want["min_confidence"].as_f64() {
            check(c.confidence >= lo, format!("confidence at least {lo}"));
        }
        let cells: Vec<u32> = c.evidence.iter().filter_map(|e| e.at.cell).collect();
        for cell in want["evidence_cells"].as_array().into_iter().flatten() {
            check(
                cells.iter().all(|c| u64::from(*c) == cell.as_u64().unwrap()),
                format!("evidence only from cell {cell}: {cells:?}"),
            );
        }
        for cell in want["no_evidence_cells"].as_array().into_iter().flatten() {
            check(
                !cells.iter().any(|c| u64::from(*c) == cell.as_u64().unwrap()),
                format!("no evidence from cell {cell}: {cells:?}"),
            );
        }
        // Evidence is quoted to what a reader needs: no 3,000-character printout in the card.
        for e in c.evidence.iter().chain(c.candidates.iter().flat_map(|k| k.evidence.iter())) {
            check(e.text.chars().count() <= 162, format!("evidence of {} characters", e.text.chars().count()));
        }
    }
    assert!(bad.is_empty(), "{} problems:\n{}", bad.len(), bad.join("\n"));
    assert!(inputs.len() >= 5, "{} notebooks", inputs.len());
}

#[test]
fn a_printout_in_an_unrelated_cell_cannot_lift_a_rule_above_a_moderate_confidence() {
    // The head warning alone, in a cell that shares no name with the failing one, beside a failing
    // cell whose lineage shows nothing: the warning's rule is stated at most at 0.5.
    let cell = |n: u32, src: &str, outputs: &str| {
        format!(
            r#"{{"cell_type": "code", "execution_count": {n}, "metadata": {{}}, "source": {}, "outputs": [{outputs}]}}"#,
            serde_json::to_string(src).unwrap()
        )
    };
    let warning = r#"{"output_type": "stream", "name": "stderr", "text": "Some weights of BertForSequenceClassification were not initialized from the model checkpoint at bert-base-uncased and are newly initialized: ['classifier.weight']\n"}"#;
    let error = r#"{"output_type": "error", "ename": "RuntimeError", "evalue": "CUDA error: device-side assert triggered", "traceback": ["RuntimeError: CUDA error: device-side assert triggered"]}"#;
    for (related, model) in [(false, "net"), (true, "clf")] {
        let src = format!("for images, targets in loader:\n    loss = criterion({model}(images), targets)");
        let nb = format!(
            r#"{{"nbformat": 4, "nbformat_minor": 5, "metadata": {{}}, "cells": [{}, {}, {}]}}"#,
            cell(1, "clf = BertForSequenceClassification.from_pretrained('bert-base-uncased')", warning),
            cell(2, "net = make_net()\ncriterion = nn.CrossEntropyLoss()\nloader = make_loader()", ""),
            cell(3, &src, error),
        );
        let r = analyze_bytes(nb.as_bytes(), Some("nb.ipynb"), &Options::default()).unwrap();
        let c = r.cause.unwrap();
        let shown = std::iter::once((c.rule.as_str(), c.confidence))
            .chain(c.candidates.iter().map(|k| (k.rule.as_str(), k.confidence)));
        let head = shown.clone().find(|(rule, _)| *rule == "num-labels-mismatch");
        if related {
            // The failing cell uses `clf`: the warning is its own model's, and counts in full.
            assert_eq!(c.rule, "num-labels-mismatch", "{c:?}");
            assert!(c.confidence > 0.7, "{}", c.confidence);
        } else {
            assert!(head.is_none_or(|(_, p)| p <= 0.5), "{:?}", shown.collect::<Vec<_>>());
        }
    }
}
