//! The versions an input shows: PyTorch, CUDA, Python, the GPU, when it printed them
//! (`pip list`, `nvidia-smi`, `torch.__version__`, `collect_env`, a traceback's paths).

use super::{compile, table};

/// What the input says it ran on, in the table's order (`pytorch`, `cuda`, `python`, `gpu`):
/// each the first match of the first row of its kind that matches.
pub fn seen(text: &str) -> Vec<(&'static str, String)> {
    let mut out: Vec<(&'static str, String)> = Vec::new();
    for what in ["pytorch", "cuda", "python", "gpu"] {
        for row in table().version.iter().filter(|r| r.what == what) {
            if let Some(v) = compile(&row.pattern, &row.flags).captures(text).and_then(|c| c.get(1)) {
                out.push((what, v.as_str().to_string()));
                break;
            }
        }
    }
    out
}

/// The text the versions are read from in a notebook: each cell's source, then its outputs'
/// texts and tracebacks, one after another, a newline between.
pub fn cells_text(cells: &[crate::input::Cell]) -> String {
    let mut out = String::new();
    for c in cells {
        out.push_str(&c.source);
        out.push('\n');
        for o in &c.outputs {
            out.push_str(&o.text);
            out.push('\n');
        }
    }
    out
}

/// How the versions read in a report: `PyTorch 2.1.0+cu121 · CUDA 12.2 · Python 3.10`.
pub fn line(seen: &[(&str, String)]) -> String {
    let name = |w: &str| match w {
        "pytorch" => "PyTorch",
        "cuda" => "CUDA",
        "python" => "Python",
        _ => "GPU",
    };
    seen.iter().map(|(w, v)| format!("{} {v}", name(w))).collect::<Vec<_>>().join(" · ")
}
