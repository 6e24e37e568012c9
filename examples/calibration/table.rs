//! Reliability of the stated confidence over labelled outputs: the cases a directory holds, the
//! report's cause for each, and the table that says how often a cause stated at p was right.
//!
//! A directory holds either labels in the corpus shape (`NAME.json` with `device_assert`,
//! `category` and `label_confidence`, beside `NAME.log`, `NAME.ipynb` or `NAME.txt`: the
//! project's own `tests/priors`, or any corpus of real logs kept outside it) or the project's
//! case expectations (`NAME.expect.json` with `cause.category` or `cause.rule`, beside the input).
//! Only device-side asserts whose cause is known count (`label_confidence` high or medium).

use first_assert::{analyze_bytes, AssertKind, Options, Report};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// One labelled case, as the report answered it.
pub struct Case {
    pub name: String,
    pub truth: String,
    pub stated: String,
    pub confidence: f64,
    /// No kernel line: the cause had to come from the host side.
    pub host_only: bool,
}

impl Case {
    pub fn right(&self) -> bool {
        self.truth == self.stated
    }
}

/// The labelled cases of `dir`, each analysed.
pub fn cases(dir: &Path) -> Result<Vec<Case>, String> {
    let mut names: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    names.sort();
    let mut out = Vec::new();
    for label_path in names {
        // A `.json` that is no label (a notebook-shaped input, bytes that are no JSON) is input.
        let text = std::fs::read(&label_path).map_err(|e| format!("{}: {e}", label_path.display()))?;
        let Ok(label) = serde_json::from_slice::<Value>(&text) else { continue };
        let file = label_path.file_name().and_then(|f| f.to_str()).unwrap_or_default();
        let (stem, truth) = match file.strip_suffix(".expect.json") {
            Some(stem) => (stem, case_truth(&label)),
            None => (file.trim_end_matches(".json"), corpus_truth(&label)),
        };
        let Some(truth) = truth else { continue };
        let Some(input) = ["log", "ipynb", "txt", "json"]
            .iter()
            .map(|e| dir.join(format!("{stem}.{e}")))
            .find(|p| p.exists() && *p != label_path)
        else {
            continue;
        };
        let bytes = std::fs::read(&input).map_err(|e| format!("{}: {e}", input.display()))?;
        let name = input.file_name().and_then(|f| f.to_str()).map(str::to_string);
        let r = analyze_bytes(&bytes, name.as_deref(), &Options::default())
            .map_err(|e| format!("{}: {e:?}", input.display()))?;
        out.push(case(stem, truth, &r));
    }
    Ok(out)
}

/// The labelled cause of a corpus-shaped label, when it is a known cause of an assert.
fn corpus_truth(l: &Value) -> Option<String> {
    let sure = matches!(l["label_confidence"].as_str(), Some("high" | "medium"));
    let cat = l["category"].as_str().filter(|c| *c != "unknown" && *c != "not_device_assert")?;
    (l["device_assert"] == Value::Bool(true) && sure).then(|| cat.to_string())
}

/// The cause a case expectation names (its category, or its rule's).
fn case_truth(l: &Value) -> Option<String> {
    if l["verdict"].as_str() != Some("device_assert") {
        return None;
    }
    let c = &l["cause"];
    let cat = c["category"].as_str().map(str::to_string).or_else(|| {
        let rule = c["rule"].as_str()?;
        first_assert::rules::RULES.iter().find(|r| r.id == rule).map(|r| r.category.id().to_string())
    })?;
    (cat != "unknown").then_some(cat)
}

fn case(name: &str, truth: String, r: &Report) -> Case {
    let (stated, confidence) = r.cause.as_ref().map_or(("none".into(), 0.0), |c| (c.category.id().to_string(), c.confidence));
    let host_only = r.first_assert.as_ref().is_some_and(|f| f.kind == AssertKind::HostError);
    Case { name: name.to_string(), truth, stated, confidence, host_only }
}

/// A bin of stated confidence: how many, their mean confidence, the share right.
pub struct Bin {
    pub lo: f64,
    pub hi: f64,
    pub count: usize,
    pub mean: f64,
    pub right: f64,
}

/// Ten bins of width 0.1 (the last holds 1.0), the empty ones left out.
pub fn bins(cases: &[Case]) -> Vec<Bin> {
    (0..10)
        .filter_map(|i| {
            let (lo, hi) = (i as f64 / 10.0, (i + 1) as f64 / 10.0);
            let inside: Vec<&Case> =
                cases.iter().filter(|c| c.confidence >= lo && (c.confidence < hi || (i == 9 && c.confidence <= 1.0))).collect();
            let n = inside.len();
            (n > 0).then(|| Bin {
                lo,
                hi,
                count: n,
                mean: inside.iter().map(|c| c.confidence).sum::<f64>() / n as f64,
                right: inside.iter().filter(|c| c.right()).count() as f64 / n as f64,
            })
        })
        .collect()
}

/// The expected calibration error: the bins' gaps between mean confidence and share right,
/// weighted by their counts.
pub fn ece(cases: &[Case]) -> f64 {
    let n = cases.len().max(1) as f64;
    bins(cases).iter().map(|b| b.count as f64 / n * (b.mean - b.right).abs()).sum()
}

/// The table as text.
pub fn table(cases: &[Case]) -> String {
    let mut s = String::from("| stated | cases | mean confidence | right |\n| --- | --- | --- | --- |\n");
    for b in bins(cases) {
        s.push_str(&format!("| {:.1}-{:.1} | {} | {:.2} | {:.2} |\n", b.lo, b.hi, b.count, b.mean, b.right));
    }
    let right = cases.iter().filter(|c| c.right()).count();
    let host: Vec<&Case> = cases.iter().filter(|c| c.host_only).collect();
    s.push_str(&format!(
        "\n{} cases, {} right; expected calibration error {:.3}; host-only (no kernel line): {} of {} right\n",
        cases.len(),
        right,
        ece(cases),
        host.iter().filter(|c| c.right()).count(),
        host.len()
    ));
    s
}
