//! The likeliest cause when the output is thin: the scenarios of `tests/priors` (host-only
//! outputs of our own, over every task and stage the priors know, near misses among them), and
//! the calibration of the stated confidence over every labelled fixture of the project.
//!
//! Each scenario's label (`NAME.json`, the corpus shape `make calibration` reads) holds what
//! really happened in its story (`category`) and what the report must answer from the output
//! alone (`expect`: its top category and basis). The two differ where the output cannot tell
//! (a classifier's loss shown, an embedding at fault): that is what the stated confidence
//! must account for.
#![cfg(not(target_arch = "wasm32"))]

#[path = "../examples/calibration/table.rs"]
mod table;

use first_assert::{analyze_bytes, Options};
use serde_json::Value;
use std::path::Path;

fn dir(d: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(d)
}

#[test]
fn every_scenario_gets_its_likeliest_cause() {
    let mut n = 0;
    let mut bad = Vec::new();
    let mut entries: Vec<_> = std::fs::read_dir(dir("tests/priors")).unwrap().flatten().map(|e| e.path()).collect();
    entries.sort();
    for input in entries.iter().filter(|p| p.extension().is_some_and(|x| x != "json")) {
        let label: Value = serde_json::from_str(&std::fs::read_to_string(input.with_extension("json")).unwrap()).unwrap();
        let name = input.file_name().unwrap().to_str().unwrap();
        let r = analyze_bytes(&std::fs::read(input).unwrap(), Some(name), &Options::default()).unwrap();
        let c = r.cause.as_ref().expect("an assert has a cause");
        let got = (c.category.id(), c.basis.id());
        let want = (label["expect"]["category"].as_str().unwrap(), label["expect"]["basis"].as_str().unwrap());
        if got != want {
            bad.push(format!("{name}: want {want:?}, got {got:?} ({})", r.headline));
        }
        // What really happened is never out of sight: the cause or one of its candidates.
        let truth = label["category"].as_str().unwrap();
        if c.category.id() != truth && !c.candidates.iter().any(|k| k.category.id() == truth) {
            bad.push(format!("{name}: the true cause {truth} is neither the cause nor a candidate"));
        }
        // The prior's words are in the headline, with its share.
        if c.basis.id() == "prior" {
            let pct = format!("{}%", (c.confidence * 100.0).round());
            if !r.headline.starts_with("Most likely (") || !r.headline.contains(&pct) {
                bad.push(format!("{name}: headline {:?} lacks \"Most likely\" or {pct}", r.headline));
            }
            assert!(c.evidence.iter().all(|e| e.scope == "context"), "{name}: a prior's lines are context");
        }
        n += 1;
    }
    assert!(bad.is_empty(), "{} of {n} scenarios:\n{}", bad.len(), bad.join("\n"));
    assert!(n >= 40, "{n} scenarios");
}

#[test]
fn stated_confidence_means_what_it_says_on_our_fixtures() {
    let mut cases = table::cases(&dir("tests/cases")).unwrap();
    cases.extend(table::cases(&dir("tests/priors")).unwrap());
    cases.extend(table::cases(&dir("tests/lineage")).unwrap());
    assert!(cases.len() >= 80, "{} labelled cases", cases.len());
    let ece = table::ece(&cases);
    eprintln!("{}", table::table(&cases));
    let misses: Vec<String> = cases.iter().filter(|c| !c.right()).map(|c| format!("{} ({} for {})", c.name, c.stated, c.truth)).collect();
    assert!(ece <= 0.05, "expected calibration error {ece:.3} > 0.05:\n{}misses: {}", table::table(&cases), misses.join(", "));
    // Not calibrated by saying little: most causes are stated, and most of those are right.
    let right = cases.iter().filter(|c| c.right()).count();
    assert!(right * 10 >= cases.len() * 8, "{right} of {}", cases.len());
}

#[test]
fn the_table_and_its_error_are_computed_right() {
    let case = |confidence: f64, right: bool| table::Case {
        name: String::new(),
        truth: "invalid_label".into(),
        stated: if right { "invalid_label" } else { "unknown" }.into(),
        confidence,
        host_only: false,
    };
    // Two bins: 0.9 stated, right 1 in 2 (gap 0.4); 0.3 stated, right 1 in 2 (gap 0.2).
    let cases = [case(0.9, true), case(0.9, false), case(0.3, true), case(0.3, false)];
    assert!((table::ece(&cases) - 0.3).abs() < 1e-9, "{}", table::ece(&cases));
    assert_eq!(table::bins(&cases).len(), 2);
    let perfect = [case(1.0, true), case(0.0, false)];
    assert!(table::ece(&perfect) < 1e-9);
}
