//! One field list for the report. Each struct of the contract lists its keys once, in the
//! `fields!` line that also writes its JSON (`first_assert::report_json::Keys`). This test holds
//! the other places that name them to that list:
//! - serde's keys: every object of every report of the project's inputs (tests/cases and the
//!   calibration scenarios, tests/priors) has exactly its struct's keys (`runtime_log` of a
//!   place only when true), and every key is seen somewhere;
//! - the TypeScript interfaces the package ships (src/wasm.rs): one per struct, of the same name,
//!   with the same keys;
//! - the page's reading of a shared report (www/share.js, `validReport`): every field it reads
//!   is one of its struct's keys.
#![cfg(not(target_arch = "wasm32"))]

use first_assert::report_json::Keys;
use first_assert::*;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Each struct of the contract: its name (the TypeScript interface's too) and its keys.
fn structs() -> Vec<(&'static str, &'static [&'static str])> {
    vec![
        ("Report", Report::KEYS),
        ("Tool", Tool::KEYS),
        ("InputSummary", InputSummary::KEYS),
        ("RuntimeLogSummary", RuntimeLogSummary::KEYS),
        ("KernelFacts", KernelFacts::KEYS),
        ("Location", Location::KEYS),
        ("FirstAssert", FirstAssert::KEYS),
        ("Offending", Offending::KEYS),
        ("KernelSite", KernelSite::KEYS),
        ("Repeats", Repeats::KEYS),
        ("ContextLine", ContextLine::KEYS),
        ("Confirmation", Confirmation::KEYS),
        ("KernelSiteCount", KernelSiteCount::KEYS),
        ("Frame", Frame::KEYS),
        ("RaisedAt", RaisedAt::KEYS),
        ("Evidence", Evidence::KEYS),
        ("Cause", Cause::KEYS),
        ("Candidate", Candidate::KEYS),
        ("Echo", Echo::KEYS),
        ("Stack", Stack::KEYS),
        ("OtherError", OtherError::KEYS),
        ("Step", Step::KEYS),
        ("Probe", Probe::KEYS),
        ("Note", Note::KEYS),
        ("RootCause", RootCause::KEYS),
    ]
}

fn keys_of(name: &str) -> BTreeSet<&'static str> {
    let (_, k) = structs().into_iter().find(|(n, _)| *n == name).unwrap_or_else(|| panic!("no struct {name}"));
    k.iter().copied().collect()
}

/// Where each struct sits in a report: a path of keys (`[]` for each element of a list) and
/// the struct.
const PATHS: &[(&str, &str)] = &[
    ("", "Report"),
    ("root_cause", "RootCause"),
    ("tool", "Tool"),
    ("input", "InputSummary"),
    ("input.runtime_log", "RuntimeLogSummary"),
    ("input.kernel", "KernelFacts"),
    ("first_assert", "FirstAssert"),
    ("first_assert.offending", "Offending"),
    ("first_assert.site", "KernelSite"),
    ("first_assert.repeats", "Repeats"),
    ("first_assert.context[]", "ContextLine"),
    ("confirmation", "Confirmation"),
    ("confirmation.at", "Location"),
    ("kernel_sites[]", "KernelSiteCount"),
    ("kernel_sites[].site", "KernelSite"),
    ("kernel_sites[].first", "Location"),
    ("raised_at", "RaisedAt"),
    ("raised_at.user_frame", "Frame"),
    ("raised_at.op_frame", "Frame"),
    ("raised_at.frames[]", "Frame"),
    ("cause", "Cause"),
    ("cause.evidence[]", "Evidence"),
    ("cause.candidates[]", "Candidate"),
    ("cause.candidates[].evidence[]", "Evidence"),
    ("echoes[]", "Echo"),
    ("stack", "Stack"),
    ("stack.launch_blocking_at", "Location"),
    ("other_errors[]", "OtherError"),
    ("checklist[]", "Step"),
    ("probe", "Probe"),
    ("notes[]", "Note"),
];

/// The objects at `path` in `v`.
fn at<'a>(v: &'a Value, path: &str) -> Vec<&'a Value> {
    let mut here = vec![v];
    for part in path.split('.').filter(|p| !p.is_empty()) {
        let (key, each) = match part.strip_suffix("[]") {
            Some(k) => (k, true),
            None => (part, false),
        };
        let next = here.iter().filter_map(|o| o.get(key)).filter(|x| !x.is_null());
        here = if each { next.flat_map(|x| x.as_array().into_iter().flatten()).collect() } else { next.collect() };
    }
    here
}

/// The keys written only when they have something to say.
const OPTIONAL: &[&str] = &["runtime_log", "root_cause"];

fn reports() -> Vec<Value> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    for dir in ["tests/cases", "tests/priors"] {
        for e in std::fs::read_dir(root.join(dir)).unwrap() {
            let p = e.unwrap().path();
            let name = p.file_name().unwrap().to_str().unwrap().to_string();
            if name.ends_with(".expect.json") || !p.is_file() {
                continue;
            }
            let bytes = std::fs::read(&p).unwrap();
            let Ok(r) = analyze_bytes(&bytes, Some(&name), &Options::default()) else { continue };
            out.push(serde_json::to_value(r).unwrap());
        }
    }
    // A runtime log read beside the input (Colab's, in its CSV form).
    let log = "Timestamp,Level,Message\n\"Dec 4, 2026, 10:00:01 AM\",WARNING,\"../aten/src/ATen/native/cuda/Loss.cu:250: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [3,0,0] Assertion `t >= 0 && t < n_classes` failed.\"\n";
    let host = "RuntimeError: CUDA error: device-side assert triggered\n";
    let opts = Options { runtime_log: Some(log.into()), ..Options::default() };
    let r = serde_json::to_value(analyze_text(host, &opts)).unwrap();
    assert!(r["input"]["runtime_log"].is_object(), "the runtime log was read: {}", r["input"]);
    out.push(r);
    // What the kernel saw, as the notebook extension tells it.
    let kernel = KernelFacts { torch: Some("2.11.0".into()), device: Some("Tesla T4".into()), launch_blocking: Some(true), compiled: true, read: Some("colab".into()), late_cells: 3 };
    let opts = Options { kernel: Some(kernel), ..Options::default() };
    let r = serde_json::to_value(analyze_text(host, &opts)).unwrap();
    assert!(r["input"]["kernel"].is_object(), "the kernel's facts were kept: {}", r["input"]);
    out.push(r);
    assert!(out.len() >= 150, "only {} reports", out.len());
    out
}

#[test]
fn serde_writes_each_structs_keys_and_no_other() {
    let reports = reports();
    let mut seen: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
    let mut objects = 0;
    for r in &reports {
        for (path, name) in PATHS {
            let want = keys_of(name);
            for o in at(r, path) {
                let got: BTreeSet<&str> = o.as_object().expect("an object").keys().map(String::as_str).collect();
                // The flattened place writes `runtime_log` only when true; `root_cause` is absent
                // unless the input holds torchrun's summary.
                let missing: Vec<_> = want.difference(&got).filter(|k| !OPTIONAL.contains(*k)).collect();
                let extra: Vec<_> = got.difference(&want).collect();
                assert!(missing.is_empty() && extra.is_empty(), "{name} at `{path}`: serde lacks {missing:?}, adds {extra:?}");
                seen.entry(name).or_default().extend(got.iter().map(|k| k.to_string()));
                objects += 1;
            }
        }
    }
    assert!(objects > 3000, "only {objects} objects read");
    // Every key of every struct is written by some report (a list no report fills is no check).
    for (name, keys) in structs() {
        let seen = seen.get(name).unwrap_or_else(|| panic!("no report has a {name}"));
        let place = keys.contains(&"execution_count");
        for k in keys.iter().filter(|k| !(place && **k == "runtime_log")) {
            assert!(seen.contains(*k), "no report writes {name}.{k}");
        }
    }
}

/// `export interface NAME [extends BASE] { members }` of the package's TypeScript: each
/// interface's member names, with its base's.
fn interfaces(ts: &str) -> BTreeMap<String, BTreeSet<String>> {
    let mut raw: BTreeMap<String, (Option<String>, BTreeSet<String>)> = BTreeMap::new();
    let mut rest = ts;
    while let Some(i) = rest.find("export interface ") {
        rest = &rest[i + "export interface ".len()..];
        let open = rest.find('{').expect("a body");
        let mut head = rest[..open].split_whitespace();
        let name = head.next().expect("a name").to_string();
        let base = (head.next() == Some("extends")).then(|| head.next().expect("a base").to_string());
        // The body, to its matching brace; members are the names before `:` at depth 1.
        let (mut depth, mut members, mut word, mut end) = (0, BTreeSet::new(), String::new(), 0);
        let mut comment = false;
        let body = &rest[open..];
        let chars: Vec<char> = body.chars().collect();
        let mut k = 0;
        while k < chars.len() {
            let c = chars[k];
            if comment {
                if c == '*' && chars.get(k + 1) == Some(&'/') {
                    comment = false;
                    k += 1;
                }
            } else if c == '/' && chars.get(k + 1) == Some(&'*') {
                comment = true;
            } else if c == '{' || c == '(' || c == '[' {
                depth += 1;
            } else if c == '}' || c == ')' || c == ']' {
                depth -= 1;
                if depth == 0 {
                    end = k;
                    break;
                }
            } else if depth == 1 && (c.is_alphanumeric() || c == '_') {
                word.push(c);
            } else if depth == 1 && (c == ':' || c == '?') && !word.is_empty() {
                members.insert(std::mem::take(&mut word));
            } else if depth == 1 && c == '"' {
                // A string literal of a type: skip it.
                k += 1;
                while k < chars.len() && chars[k] != '"' {
                    k += 1;
                }
                word.clear();
            } else {
                word.clear();
            }
            k += 1;
        }
        assert!(end > 0, "interface {name} is not closed");
        raw.insert(name, (base, members));
        rest = &rest[open..];
    }
    let mut out = BTreeMap::new();
    for (name, (base, members)) in &raw {
        let mut all = members.clone();
        let mut b = base.clone();
        while let Some(x) = b {
            let (bb, m) = raw.get(&x).unwrap_or_else(|| panic!("{name} extends unknown {x}"));
            all.extend(m.iter().cloned());
            b = bb.clone();
        }
        out.insert(name.clone(), all);
    }
    out
}

fn wasm_ts() -> String {
    let src = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/wasm.rs")).unwrap();
    let start = src.find("const TS_TYPES: &str = r#\"").expect("the TypeScript section");
    let body = &src[start..];
    body[..body.find("\"#;").expect("its end")].to_string()
}

#[test]
fn each_struct_has_a_typescript_interface_with_its_keys() {
    let ts = interfaces(&wasm_ts());
    for (name, keys) in structs() {
        let iface = ts.get(name).unwrap_or_else(|| panic!("the package's TypeScript has no interface {name}"));
        let want: BTreeSet<String> = keys.iter().map(|k| k.to_string()).collect();
        let missing: Vec<_> = want.difference(iface).collect();
        let extra: Vec<_> = iface.difference(&want).collect();
        assert!(missing.is_empty() && extra.is_empty(), "TypeScript {name}: lacks {missing:?}, adds {extra:?}");
    }
}

#[test]
fn the_interface_reader_sees_members_and_bases() {
    let ts = interfaces(
        "export interface A { x: number; /** y: no */ y?: { z: string }; w: \"a: b\" | null }\nexport interface B extends A { v: [number, number] }",
    );
    let names = |i: &str| ts[i].iter().map(String::as_str).collect::<Vec<_>>();
    assert_eq!(names("A"), ["w", "x", "y"]);
    assert_eq!(names("B"), ["v", "w", "x", "y"]);
}

/// The variables `validReport` reads fields of, and the structs they hold.
const SHARE_VARS: &[(&str, &[&str])] = &[
    ("r", &["Report"]),
    ("fa", &["FirstAssert"]),
    ("fa.site", &["KernelSite"]),
    ("fa.repeats", &["Repeats"]),
    ("c", &["Cause", "ContextLine"]),
    ("x", &["Candidate"]),
    ("e", &["Evidence", "Echo", "OtherError"]),
    ("ra", &["RaisedAt"]),
    ("ra.user_frame", &["Frame"]),
    ("f", &["Frame"]),
    ("s", &["Step"]),
    ("n", &["Note"]),
    ("r.stack", &["Stack"]),
    ("r.tool", &["Tool"]),
    ("r.probe", &["Probe"]),
    ("p", &["Location", "Evidence", "Echo", "OtherError", "FirstAssert", "RaisedAt"]),
];

#[test]
fn the_shared_reports_reader_reads_only_fields_of_the_contract() {
    let src = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("www/share.js")).unwrap();
    let start = src.find("const place = ").expect("share.js's `place`");
    let end = start + src[start..].find("\n}\n").expect("the end of validReport");
    let code = &src[start..end];
    let mut read = 0;
    // `var.field` and `var.sub.field`, longest variable first (`fa.site.file` is KernelSite's).
    let mut vars: Vec<_> = SHARE_VARS.to_vec();
    vars.sort_by_key(|(v, _)| std::cmp::Reverse(v.len()));
    let bytes = code.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let boundary = i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_' || bytes[i - 1] == b'.');
        let found = vars.iter().find(|(v, _)| {
            boundary && code[i..].starts_with(v) && code[i + v.len()..].starts_with(|c| c == '.' || c == '?')
        });
        if let Some((v, names)) = found {
            let after = code[i + v.len()..].trim_start_matches('?').trim_start_matches('.');
            let field: String = after.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            let known = names.iter().any(|n| keys_of(n).contains(field.as_str()));
            assert!(known, "www/share.js reads `{v}.{field}`, which no {names:?} has");
            read += 1;
            i += v.len() + 1;
        } else {
            i += 1;
        }
    }
    assert!(read >= 60, "only {read} reads found in validReport");
}
