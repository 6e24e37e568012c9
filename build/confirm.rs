//! A rule's `[confirm]` table (rules/README.md): what confirms it, compiled into the lists
//! src/diagnose/confirm.rs reads.

use super::{fail, lit, opt};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

/// How the loop closes for a rule: the probe's ops it confirms, the bounds the probe prints that
/// name it, and PyTorch's own CPU errors for its bug (rules/README.md).
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct Confirm {
    #[serde(default)]
    probe_ops: Vec<String>,
    #[serde(default)]
    probe_bounds: Vec<String>,
    #[serde(default)]
    cpu: Vec<CpuForm>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CpuForm {
    message: String,
    #[serde(default)]
    bound: String,
    #[serde(default)]
    value: Option<(String, String)>,
    #[serde(default)]
    frame: Option<String>,
    #[serde(default)]
    frame_not: Option<String>,
    #[serde(default)]
    legacy: bool,
}

/// The rules' `[confirm]` tables as three lists: the probe's ops and the rule each confirms,
/// the bounds that name another rule of the same op, and the CPU's error forms. An op or a
/// bound confirmed by two rules, or a CPU form that says neither its bound nor where its value
/// stands, fails the build.
pub fn confirm_tables(rules: &[(&Path, String, Confirm)]) -> String {
    let (mut ops, mut bounds, mut cpu) = (Vec::new(), Vec::new(), Vec::new());
    let mut taken: BTreeMap<String, &str> = BTreeMap::new();
    for (path, id, c) in rules {
        for (kind, list, out) in [("probe op", &c.probe_ops, &mut ops), ("probe bound", &c.probe_bounds, &mut bounds)] {
            for x in list {
                if let Some(other) = taken.insert(format!("{kind} {x}"), id) {
                    fail(format!("{}: the {kind} `{x}` is confirmed by `{other}` already", path.display()));
                }
                out.push(format!("({}, {})", lit(x), lit(id)));
            }
        }
        for f in &c.cpu {
            if f.message.trim().is_empty() || (f.bound.is_empty() && f.value.is_none()) {
                fail(format!("{}: a [[confirm.cpu]] needs a message and its bound or where its value stands", path.display()));
            }
            let value = f.value.as_ref().map_or("None".to_string(), |(a, b)| format!("Some(({}, {}))", lit(a), lit(b)));
            cpu.push(format!(
                "CpuForm {{ message: {}, rule: {}, bound: {}, value: {value}, frame: {}, frame_not: {}, legacy: {} }}",
                lit(&f.message),
                lit(id),
                lit(&f.bound),
                opt(&f.frame),
                opt(&f.frame_not),
                f.legacy
            ));
        }
    }
    let mut code = String::new();
    let _ = writeln!(code, "/// The probe's ops (as it prints them) and the rule each confirms (`[confirm] probe_ops`).");
    let _ = writeln!(code, "pub static PROBE_OPS: &[(&str, &str)] = &[{}];", ops.join(", "));
    let _ = writeln!(code, "/// A bound the probe prints that names a rule of its own over the op's (`[confirm] probe_bounds`).");
    let _ = writeln!(code, "pub static PROBE_BOUNDS: &[(&str, &str)] = &[{}];", bounds.join(", "));
    let _ = writeln!(code, "/// PyTorch's own CPU errors for the bugs a GPU reports as a device-side assert (`[[confirm.cpu]]`).");
    let _ = writeln!(code, "pub static CPU_FORMS: &[CpuForm] = &[\n  {}\n];", cpu.join(",\n  "));
    code
}

