//! Data-driven tests: every `tests/cases/NAME.expect.json` names an input beside it
//! (`NAME.log`, `NAME.ipynb` or `NAME.json`) and the facts its report must show. Only the
//! fields an expectation lists are checked, so each case states what it is about.
//!
//! All inputs are written by us, modelled on the formats seen in public logs.
#![cfg(not(target_arch = "wasm32"))]

use first_assert::{analyze_bytes, Options, Report};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn cases() -> Vec<(String, PathBuf, Value)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases");
    let mut out = Vec::new();
    for e in std::fs::read_dir(&dir).expect("tests/cases") {
        let p = e.expect("entry").path();
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        let Some(stem) = name.strip_suffix(".expect.json") else { continue };
        let input = ["log", "ipynb", "json"]
            .iter()
            .map(|x| dir.join(format!("{stem}.{x}")))
            .find(|p| p.exists())
            .unwrap_or_else(|| panic!("{name}: no input beside it"));
        let expect: Value =
            serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap_or_else(|e| panic!("{name}: {e}"));
        out.push((stem.to_string(), input, expect));
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    assert!(out.len() >= 40, "the case suite shrank to {}", out.len());
    out
}

fn report(input: &Path) -> Result<Report, first_assert::InputError> {
    let bytes = std::fs::read(input).unwrap();
    analyze_bytes(&bytes, input.file_name().and_then(|n| n.to_str()), &Options::default())
}

/// Checks one expectation against the report; returns the differences.
fn check(r: &Report, want: &Value) -> Vec<String> {
    let got = serde_json::to_value(r).unwrap();
    let mut diffs = Vec::new();
    fn eq(diffs: &mut Vec<String>, what: &str, g: &Value, w: &Value) {
        if g != w {
            diffs.push(format!("{what}: want {w}, got {g}"));
        }
    }
    let o = want.as_object().expect("an object");
    for (k, w) in o {
        match k.as_str() {
            "exit" | "error" => {}
            "format" => eq(&mut diffs, k, &got["input"]["format"], w),
            "cells" => eq(&mut diffs, k, &got["input"]["cells"], w),
            "lines" => eq(&mut diffs, k, &got["input"]["lines"], w),
            "lossy_utf8" => eq(&mut diffs, k, &got["input"]["lossy_utf8"], w),
            "superseded" => eq(&mut diffs, k, &got["input"]["superseded_cells"], w),
            "confirmation" => {
                for (ck, cw) in w.as_object().unwrap() {
                    eq(&mut diffs, &format!("confirmation.{ck}"), &got["confirmation"][ck.as_str()], cw);
                }
            }
            "nul_bytes" => eq(&mut diffs, k, &got["input"]["nul_bytes"], w),
            "verdict" | "echo_count" => eq(&mut diffs, k, &got[k.as_str()], w),
            "sites" => eq(&mut diffs, k, &Value::from(r.kernel_sites.len()), w),
            "first" if w.is_null() => eq(&mut diffs, k, &got["first_assert"], w),
            "first" => {
                let f = &got["first_assert"];
                if f.is_null() {
                    diffs.push("first: want a first assert, got none".into());
                    continue;
                }
                for (fk, fw) in w.as_object().unwrap() {
                    let g = match fk.as_str() {
                        "contains" => {
                            if !f["text"].as_str().unwrap_or("").contains(fw.as_str().unwrap()) {
                                diffs.push(format!("first.text does not contain {fw}: {}", f["text"]));
                            }
                            continue;
                        }
                        "function" | "condition" | "function_short" => {
                            let key = if fk == "function_short" { "name" } else { fk.as_str() };
                            f["site"][key].clone()
                        }
                        "count" | "blocks" | "threads" => f["repeats"][fk.as_str()].clone(),
                        _ => f[fk.as_str()].clone(),
                    };
                    eq(&mut diffs, &format!("first.{fk}"), &g, fw);
                }
            }
            "cause" if w.is_null() => eq(&mut diffs, k, &got["cause"], w),
            "cause" => {
                let c = &got["cause"];
                for (ck, cw) in w.as_object().unwrap() {
                    if ck == "min_confidence" {
                        let conf = c["confidence"].as_f64().unwrap_or(0.0);
                        if conf + 1e-6 < cw.as_f64().unwrap() {
                            diffs.push(format!("cause.confidence {conf} < {cw}"));
                        }
                    } else {
                        eq(&mut diffs, &format!("cause.{ck}"), &c[ck.as_str()], cw);
                    }
                }
            }
            "candidates" => {
                let got: Vec<&str> =
                    r.cause.iter().flat_map(|c| c.candidates.iter().map(|k| k.rule.as_str())).collect();
                eq(&mut diffs, k, &serde_json::to_value(got).unwrap(), w);
            }
            "echo_cells" => {
                let mut cells: Vec<u64> = r.echoes.iter().filter_map(|e| e.at.cell.map(u64::from)).collect();
                cells.sort();
                cells.dedup();
                eq(&mut diffs, k, &serde_json::to_value(cells).unwrap(), w);
            }
            "echo_kinds" => {
                for kind in w.as_array().unwrap() {
                    if !r.echoes.iter().any(|e| e.kind == kind.as_str().unwrap()) {
                        diffs.push(format!("no echo of kind {kind}"));
                    }
                }
            }
            "other_kinds" => {
                let kinds: Vec<&str> = r.other_errors.iter().map(|e| e.kind.as_str()).collect();
                eq(&mut diffs, k, &serde_json::to_value(kinds).unwrap(), w);
            }
            "raised_line" => eq(&mut diffs, k, &got["raised_at"]["line"], w),
            "user_frame" => eq(&mut diffs, k, &got["raised_at"]["user_frame"]["file"], w),
            "op_function" => eq(&mut diffs, k, &got["raised_at"]["op_frame"]["function"], w),
            "innocent_op" | "async_note" | "trustworthy" | "launch_blocking" => {
                eq(&mut diffs, k, &got["stack"][k.as_str()], w)
            }
            "launch_blocking_cell" => eq(&mut diffs, k, &got["stack"]["launch_blocking_at"]["cell"], w),
            "notes" | "no_notes" => {
                let ids: Vec<&str> = r.notes.iter().map(|n| n.id.as_str()).collect();
                let list = w.as_array().unwrap();
                if k == "notes" && list.is_empty() && !ids.is_empty() {
                    diffs.push(format!("notes: want none, got {ids:?}"));
                }
                for n in list {
                    let has = ids.contains(&n.as_str().unwrap());
                    if has != (k == "notes") {
                        diffs.push(format!("{k}: {n} (notes are {ids:?})"));
                    }
                }
            }
            other => diffs.push(format!("unknown expectation `{other}`")),
        }
    }
    diffs
}

#[test]
fn every_case_matches_its_expectation() {
    let mut failures = Vec::new();
    for (name, input, want) in cases() {
        if want.get("error").is_some() {
            continue; // covered by the CLI test below
        }
        match report(&input) {
            Ok(r) => {
                let d = check(&r, &want);
                if !d.is_empty() {
                    failures.push(format!("{name}:\n    {}", d.join("\n    ")));
                }
            }
            Err(e) => failures.push(format!("{name}: could not be read: {e}")),
        }
    }
    assert!(failures.is_empty(), "{} cases differ:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn every_case_gives_the_expected_exit_status_and_message() {
    let bin = env!("CARGO_BIN_EXE_first-assert");
    let mut failures = Vec::new();
    for (name, input, want) in cases() {
        let out = Command::new(bin).arg("--json").arg(&input).output().expect("run");
        let code = out.status.code().unwrap_or(-1);
        let expected =
            want.get("exit").and_then(Value::as_i64).unwrap_or(match want.get("verdict").and_then(Value::as_str) {
                Some("device_assert" | "confirmed") => 1,
                _ => 0,
            });
        if i64::from(code) != expected {
            failures.push(format!(
                "{name}: exit {code}, want {expected}; stderr: {}",
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        if let Some(msg) = want.get("error").and_then(Value::as_str) {
            let err = String::from_utf8_lossy(&out.stderr);
            if !err.contains(msg) {
                failures.push(format!("{name}: stderr lacks `{msg}`: {err}"));
            }
            if !out.stdout.is_empty() {
                failures.push(format!("{name}: printed a report despite the error"));
            }
        } else {
            // The JSON on stdout is the same report the library gives.
            let cli: Report = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{name}: bad JSON: {e}"));
            let lib = report(&input).unwrap();
            if cli != lib {
                failures.push(format!("{name}: the CLI's report differs from the library's"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_checker_itself_notices_a_wrong_expectation() {
    let (_, input, mut want) = cases().into_iter().find(|c| c.0 == "several-sites").unwrap();
    want["cause"]["rule"] = Value::from("segmentation-mask-out-of-range");
    want["first"]["line"] = Value::from(2);
    let d = check(&report(&input).unwrap(), &want);
    assert_eq!(d.len(), 2, "{d:?}");
}
