//! The loop closed: after the report's next step (restart, the probe cell first, rerun), the
//! output ends in the probe's `FirstAssertError`, or in the CPU's own error for the same bug
//! (`IndexError: Target 10 is out of bounds.`). Either shows the bad value for what it is: the
//! verdict is `confirmed`, and the cause is the op's, at certainty.
//!
//! What confirms which rule is the rules' data (`[confirm]` in `rules/<id>.toml`, compiled into
//! [`PROBE_OPS`], [`PROBE_BOUNDS`] and [`CPU_FORMS`]); this file only reads the output with it.

use super::*;
use crate::facts::PROBE_ERROR;
use crate::probe::LABELS;
use crate::rules::{CpuForm, CPU_FORMS, PROBE_BOUNDS, PROBE_OPS};

/// A confirmation and the rule it confirms.
pub(super) struct Confirmed {
    pub confirmation: Confirmation,
    pub rule: usize,
}

/// The confirmation: the probe's last error wherever it stands (a notebook's later cells may
/// raise other errors), else the CPU's error the output ends in.
pub(super) fn read(facts: &Facts) -> Option<Confirmed> {
    let (name, msg, loc) = facts.probe_error.as_ref().or(facts.last_exception.as_ref())?;
    let text = format!("{name}: {msg}");
    let mut probe_said = (None, None);
    let (source, op, value, allowed, line, rule) = if name.ends_with(PROBE_ERROR) {
        let op = msg.split_once(": ").map_or(msg.as_str(), |(op, _)| op).trim().to_string();
        // As printed (an HTML copy's entities decoded, as the scanner reads every line).
        let lines: Vec<String> =
            facts.exception_context.iter().map(|(_, t)| crate::scan::normalize::decode_entities(t.trim())).collect();
        let field = |key: &str| lines.iter().find_map(|l| after_label(l, key));
        let value = field("label_values").and_then(first_bad);
        probe_said = (field("label_values").map(str::to_string), field("label_cause").map(str::to_string));
        let allowed = field("label_allowed").map(str::to_string);
        let (_, rule) = PROBE_OPS.iter().find(|(o, _)| *o == op)?;
        let refined = PROBE_BOUNDS.iter().find(|(k, _)| allowed.as_deref().is_some_and(|a| a.contains(k)));
        let rule = refined.map_or(*rule, |(_, r)| r);
        ("probe", op, value, allowed, field("label_line").map(str::to_string), rule)
    } else {
        let tb = facts.tracebacks.iter().rev().find(|t| t.exception.as_ref().is_some_and(|e| e.2.order == loc.order));
        let op = tb.and_then(|t| t.frames.last()).map(|f| f.func.clone()).unwrap_or_default();
        let form = CPU_FORMS.iter().find(|f| f.reads(msg, &op))?;
        let value = form.value.and_then(|at| value_at(msg, at)).map(str::to_string);
        let line = tb.and_then(|t| t.frames.iter().rev().find(|f| !is_library(&f.path))).and_then(|f| {
            let code = f.code.as_ref().map_or("", |(c, _)| c.as_str());
            f.line.map(|n| format!("{}:{n}  {}", f.path, code.trim()))
        });
        let allowed = Some(form.bound).filter(|b| !b.is_empty()).map(str::to_string).or_else(|| size_bound(msg));
        ("cpu", op, value, allowed, line, form.rule)
    };
    let rule = ruleset().index(rule)?;
    let (values, clue) = probe_said;
    let confirmation =
        Confirmation { source: source.into(), op, value, allowed, line, values, clue, place: String::new(), text, at: loc.at };
    Some(Confirmed { confirmation, rule })
}

impl CpuForm {
    /// Whether `msg`, raised with `op` the traceback's innermost function (empty: none), is
    /// this form: its literal, its number where its value stands, and its frame.
    fn reads(&self, msg: &str, op: &str) -> bool {
        msg.contains(self.message)
            && self.value.is_none_or(|at| value_at(msg, at).is_some())
            && self.frame.is_none_or(|f| op.is_empty() || op.contains(f))
            && self.frame_not.is_none_or(|f| !op.is_empty() && !op.contains(f))
    }
}

/// The number that stands between `before` and `after` in `msg` (an empty `after`: to the end).
fn value_at<'a>(msg: &'a str, (before, after): (&str, &str)) -> Option<&'a str> {
    let (_, rest) = msg.split_once(before)?;
    let v = if after.is_empty() { Some(rest.trim_end()) } else { rest.split_once(after).map(|(v, _)| v) };
    v.filter(|v| v.parse::<i64>().is_ok())
}

/// The text after a label of the probe's (`values:`, `取值:`), in either language, wherever the
/// line starts (a launcher's prefix, a Markdown quote).
fn after_label<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let (_, en, zh) = LABELS.iter().find(|(k, ..)| *k == key)?;
    [en, zh].iter().find_map(|l| {
        let at = line.find(&format!("{l}:"))?;
        // A label starts the line's text: after it, the prefix's last character is no letter.
        let before = line[..at].chars().next_back();
        before.is_none_or(|c| !c.is_alphanumeric()).then(|| line[at + l.len() + 1..].trim())
    })
}

/// The first bad value of the probe's values line (`… first bad value 10 at position [2]`).
fn first_bad(values: &str) -> Option<String> {
    let label = |key: &str| LABELS.iter().find(|(k, ..)| *k == key).map(|(_, en, zh)| [*en, *zh]);
    let rest = label("label_first_bad")?.iter().find_map(|l| values.split_once(l).map(|(_, r)| r))?.trim_start();
    let end = label("label_at")?.iter().filter_map(|l| rest.find(&format!(" {l} "))).min().unwrap_or(rest.len());
    Some(rest[..end].trim().to_string()).filter(|v| !v.is_empty())
}

/// The bound a CPU message prints: `… for dimension D with size S` (an index), `… not in the
/// valid range [0, N)` (an embedding bag's id).
fn size_bound(msg: &str) -> Option<String> {
    if let Some((_, range)) = msg.split_once("valid range [") {
        let (lo, hi) = range.split_once(", ")?;
        return Some(format!("{lo} <= id < {}", hi.trim_end_matches(')')));
    }
    let (_, rest) = msg.split_once("for dimension ")?;
    let (dim, size) = rest.split_once(" with size ")?;
    let size = size.trim_end_matches('.');
    Some(format!("-{size} <= index < {size} (dim {dim})"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_probes_labels_are_read_in_both_languages() {
        assert_eq!(after_label("allowed: 0 <= target < 10", "label_allowed"), Some("0 <= target < 10"));
        assert_eq!(after_label("允许: 0 <= target < 10", "label_allowed"), Some("0 <= target < 10"));
        assert_eq!(after_label("allowing: x", "label_allowed"), None);
        assert_eq!(after_label("[rank0]:   allowed: 0 <= p <= 1", "label_allowed"), Some("0 <= p <= 1"));
        assert_eq!(after_label("> 允许: 0 <= p <= 1", "label_allowed"), Some("0 <= p <= 1"));
        assert_eq!(after_label("  disallowed: x", "label_allowed"), None);
        let en = "min 1, max 10; 1 of 4 bad; first bad value 10 at position [2]";
        assert_eq!(first_bad(en).as_deref(), Some("10"));
        let zh = "min 1, max 10; 4 个中有 1 个错误; 第一个错误值 -1 位置 [0, 3]";
        assert_eq!(first_bad(zh).as_deref(), Some("-1"));
        assert_eq!(size_bound("index 9 is out of bounds for dimension 0 with size 5").as_deref(), Some("-5 <= index < 5 (dim 0)"));
    }

    #[test]
    fn index_out_of_range_in_self_is_an_embeddings_only_when_its_frame_says_so() {
        let tb = |frame: &str| {
            format!(
                "Traceback (most recent call last):\n  File \"train.py\", line 9, in <module>\n    y = f(x)\n{frame}IndexError: index out of range in self\n"
            )
        };
        let rule = |text: &str| {
            let r = crate::pipeline::analyze_text(text, &crate::pipeline::Options::default());
            (r.confirmation.and_then(|c| c.allowed), r.cause.map(|c| c.rule))
        };
        let embedding = "  File \"/usr/lib/python3/torch/nn/functional.py\", line 2551, in embedding\n    return torch.embedding(weight, input)\n";
        let want = |bound: &str, rule: &str| (Some(bound.to_string()), Some(rule.to_string()));
        assert_eq!(rule(&tb(embedding)), want("0 <= index < num_embeddings", "embedding-index-out-of-range"));
        assert_eq!(rule(&tb("")), want("0 <= index < size", "index-out-of-bounds"));
        // The message alone: the usual owner, an embedding.
        assert_eq!(rule("IndexError: index out of range in self\n").1.as_deref(), Some("embedding-index-out-of-range"));
    }

    #[test]
    fn every_op_and_rule_named_exists() {
        let rules = PROBE_OPS.iter().chain(PROBE_BOUNDS).map(|(_, r)| *r).chain(CPU_FORMS.iter().map(|f| f.rule));
        for r in rules {
            assert!(ruleset().index(r).is_some(), "{r}");
        }
        // Every op the probe checks has a rule here.
        for (_, ops) in crate::probe::GROUPS {
            for op in ops.split(", ") {
                let printed = if op == "take" { "torch.take" } else { op };
                assert!(PROBE_OPS.iter().any(|(o, _)| *o == printed), "the probe's op {op}");
            }
        }
    }
}
