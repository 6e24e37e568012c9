//! The host-side inference table (`tests/frames.toml`): with no kernel line in the output, the
//! traceback's frames must name the op's cause. Each case is printed as Python prints a
//! traceback and as IPython (Colab, Jupyter) does.
#![cfg(not(target_arch = "wasm32"))]

use first_assert::{analyze_text, Options};
use serde::Deserialize;

#[derive(Deserialize)]
struct Table {
    case: Vec<Case>,
}

#[derive(Deserialize)]
struct Case {
    name: String,
    rule: Option<String>,
    category: Option<String>,
    frames: Vec<[String; 3]>,
}

const ERROR: &str = "RuntimeError: CUDA error: device-side assert triggered\n\
CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\n\
For debugging consider passing CUDA_LAUNCH_BLOCKING=1\n";

fn python(frames: &[[String; 3]]) -> String {
    let mut s = String::from("Traceback (most recent call last):\n");
    for (i, [path, func, code]) in frames.iter().enumerate() {
        s.push_str(&format!("  File \"{path}\", line {}, in {func}\n    {code}\n", 40 + i * 37));
    }
    s + ERROR
}

fn ipython(frames: &[[String; 3]]) -> String {
    let mut s = String::from("---------------------------------------------------------------------------\nRuntimeError                              Traceback (most recent call last)\n");
    for (i, [path, func, code]) in frames.iter().enumerate() {
        let n = 12 + i * 31;
        if path.starts_with("/content/") {
            s.push_str(&format!("<ipython-input-7-3f2a9c1d0b5e> in <cell line: {n}>()\n----> {n} {code}\n\n"));
        } else {
            s.push_str(&format!(
                "{path} in {func}(self, *args, **kwargs)\n  {:>4}     # ...\n-> {n:>4}     {code}\n  {:>4} \n\n",
                n - 1,
                n + 1
            ));
        }
    }
    s + ERROR
}

#[test]
fn every_frame_case_names_its_cause() {
    let table: Table = toml::from_str(include_str!("frames.toml")).expect("tests/frames.toml");
    assert!(table.case.len() >= 25, "the table shrank to {}", table.case.len());
    let mut failures = Vec::new();
    for c in &table.case {
        assert!(c.rule.is_some() || c.category.is_some(), "{}: say a rule or a category", c.name);
        for (style, log) in [("python", python(&c.frames)), ("ipython", ipython(&c.frames))] {
            let r = analyze_text(&log, &Options::default());
            let (rule, cat) = r
                .cause
                .as_ref()
                .map_or(("-".to_string(), "-".to_string()), |k| (k.rule.clone(), k.category.id().to_string()));
            let want_cat = c.category.clone().or_else(|| {
                c.rule.as_ref().and_then(|id| {
                    first_assert::rules::RULES.iter().find(|d| d.id == id).map(|d| d.category.id().to_string())
                })
            });
            let ok = c.rule.as_ref().is_none_or(|w| *w == rule) && want_cat.as_ref().is_none_or(|w| *w == cat);
            if !ok {
                failures.push(format!("{} [{style}]: got {rule} ({cat}), want {:?} ({:?})", c.name, c.rule, want_cat));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases misread:\n{}",
        failures.len(),
        table.case.len() * 2,
        failures.join("\n")
    );
}
