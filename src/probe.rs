//! The probe cell: Python the report hands out, to paste first after the restart.
//!
//! It sets `CUDA_LAUNCH_BLOCKING=1` before `import torch` and installs a
//! `torch.overrides.TorchFunctionMode` that checks the inputs of every op that can fire a
//! device-side assert (class targets, embedding ids and bag offsets, indices, one-hot values,
//! BCE inputs, probabilities, repeat counts) before the op runs, on any device, and raises an
//! error at the user's line that names the op, the bad value and the bound.
//!
//! The code is `probe/probe.py` with its texts (`probe/texts.toml`) put in by `build.rs`, one
//! document per language in the catalogue (message `probe_code`). The engine fills in one thing:
//! the check groups the cause suspects, taken from the rule's `probe` list. Nothing from the
//! input ever reaches the code, so a hostile log cannot choose what the tool hands out.

use crate::report::{Cause, Probe};
use crate::rules::RULES;
use crate::text::{catalogue, Lang};

include!(concat!(env!("OUT_DIR"), "/probe_groups.rs"));

/// The probe for a report whose cause is `cause` (`None`: it suspects no op).
pub fn probe(lang: Lang, cause: Option<&Cause>) -> Probe {
    let groups = cause.map_or(&[][..], suspects);
    let mut tuple = String::from("(");
    for (i, g) in groups.iter().enumerate() {
        tuple.push_str(if i > 0 { ", \"" } else { "\"" });
        tuple.push_str(g);
        tuple.push('"');
    }
    // A one-element tuple keeps its comma.
    tuple.push_str(if groups.len() == 1 { ",)" } else { ")" });
    let ops = groups
        .iter()
        .filter_map(|g| GROUPS.iter().find(|(id, _)| id == g))
        .flat_map(|(_, ops)| ops.split(", "))
        .map(str::to_string)
        .collect();
    let code = crate::text::msg::fill(catalogue::probe_code(lang), &[("probe_suspects", &tuple)]);
    Probe { code, ops }
}

/// The cause's check groups: its rule's, else those of the first candidate whose rule has some.
fn suspects(c: &Cause) -> &'static [&'static str] {
    let of = |id: &str| RULES.iter().find(|r| r.id == id).map_or(&[][..], |r| r.probe);
    std::iter::once(c.rule.as_str())
        .chain(c.candidates.iter().map(|k| k.rule.as_str()))
        .map(of)
        .find(|g| !g.is_empty())
        .unwrap_or(&[])
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use crate::report::{Candidate, Category};

    fn cause(rule: &str, candidates: &[&str]) -> Cause {
        Cause {
            category: Category::Unknown,
            rule: rule.into(),
            confidence: 0.5,
            basis: crate::report::Basis::Evidence,
            title: String::new(),
            summary: String::new(),
            why: String::new(),
            fix: String::new(),
            check: String::new(),
            snippet: None,
            ops: Vec::new(),
            evidence: Vec::new(),
            candidates: candidates
                .iter()
                .map(|r| Candidate {
                    category: Category::Unknown,
                    rule: r.to_string(),
                    confidence: 0.4,
                    title: String::new(),
                    evidence: Vec::new(),
                })
                .collect(),
        }
    }

    fn suspects_line(code: &str) -> &str {
        code.lines().find(|l| l.starts_with("_SUSPECTS = ")).expect("a _SUSPECTS line")
    }

    #[test]
    fn the_rule_names_the_suspects_as_a_python_tuple() {
        let p = probe(Lang::En, Some(&cause("class-target-out-of-range", &[])));
        assert_eq!(suspects_line(&p.code), "_SUSPECTS = (\"loss\",)");
        assert_eq!(p.ops, ["F.cross_entropy", "F.nll_loss"]);
        let p = probe(Lang::Zh, Some(&cause("embedding-index-out-of-range", &[])));
        assert_eq!(suspects_line(&p.code), "_SUSPECTS = (\"embedding\", \"embedding_bag\", \"index\")");
        assert!(p.ops.contains(&"F.embedding_bag".to_string()) && p.ops.contains(&"gather".to_string()));
    }

    #[test]
    fn an_unknown_cause_borrows_a_candidates_suspects_or_suspects_nothing() {
        let p = probe(Lang::En, Some(&cause("no-evidence", &["stale-context", "bce-input-out-of-range"])));
        assert_eq!(suspects_line(&p.code), "_SUSPECTS = (\"bce\",)");
        for c in [None, Some(cause("no-evidence", &[])), Some(cause("not-a-rule", &[]))] {
            let p = probe(Lang::En, c.as_ref());
            assert_eq!(suspects_line(&p.code), "_SUSPECTS = ()");
            assert!(p.ops.is_empty());
        }
    }

    #[test]
    fn the_code_is_whole_in_both_languages() {
        for lang in Lang::ALL {
            let code = probe(lang, None).code;
            // Every text was put in, and only the engine's one field was left to fill.
            assert!(!code.contains("@@") && !code.contains("{probe_suspects}") && !code.contains("{version}"));
            assert!(code.contains(env!("CARGO_PKG_VERSION")));
            let blocking = code.find("os.environ[\"CUDA_LAUNCH_BLOCKING\"] = \"1\"").expect("sets the variable");
            assert!(blocking < code.find("\nimport torch\n").expect("imports torch"), "set before the import");
            assert!(code.contains("TorchFunctionMode") && code.contains("first_assert_probe.off()"));
        }
        assert!(probe(Lang::Zh, None).code.contains("重启运行时"));
        assert!(!probe(Lang::En, None).code.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c)));
    }

    #[test]
    fn every_group_is_some_rules_suspect_and_every_rule_names_known_groups() {
        for (id, ops) in GROUPS {
            assert!(!ops.is_empty());
            assert!(RULES.iter().any(|r| r.probe.contains(id)), "no rule suspects `{id}`");
        }
        for r in RULES {
            assert!(r.probe.iter().all(|g| GROUPS.iter().any(|(id, _)| id == g)), "{}", r.id);
        }
    }
}
