//! Priors: what usually causes a device-side assert in code like the code the output shows.
//!
//! `rules/priors/priors.toml` holds a base rate per rule (the ordering an expert gives with
//! nothing else to go on) and *clues*: contexts the output can reveal (the task, the stage that
//! raised, the names the code uses), each with the rates of the rules behind the error in such
//! code. The clues are found by the rules' own machinery (each is a rule of one evidence block,
//! [`CLUE_RULES`]); the prior is the mixture of the base and the clues seen, each counted by how
//! strongly it was seen times its weight.

use super::{ClueDef, Decision, Input, RuleSet, BASE_RATES, CLUES, CLUE_RULES, RULES};
use crate::facts::Loc;
use crate::report::{Category, Evidence};
use std::sync::OnceLock;

/// How much the base ordering counts beside the clues seen (a clue seen on the op's own line
/// counts about 0.7, one in an earlier cell about 0.25).
pub const BASE_WEIGHT: f32 = 0.3;

/// The prior of one incident.
pub struct Prior {
    /// Share of each rule, by index into [`RULES`] (sums to 1).
    pub rates: Vec<f32>,
    /// The clues seen, each with what it counted and where it was seen.
    pub seen: Vec<Seen>,
}

/// A clue seen in the output.
pub struct Seen {
    pub clue: &'static ClueDef,
    /// Its id (`task-classification`, ...).
    pub id: &'static str,
    /// What it counted in the mixture.
    pub weight: f32,
    /// The line it was seen on.
    pub evidence: Vec<Evidence>,
}

/// The mixture of the base and the clues seen, sharpened (the base alone is left as the
/// shares it states): each category's share squared, the squares renormalised, each rule
/// keeping its part of its category. An average of forecasts is less sure than each of them (a
/// linear pool of calibrated forecasts is underconfident; "extremizing" with an exponent is the
/// usual remedy), and ours was: causes stated at 0.5-0.8 were right 18 times in 21. The
/// exponent is the one fitted number here: the Brier score over the project's 112 labelled
/// cases falls 0.060 -> 0.049 at 2 (0.048 at 3, the least), over 108 real outputs kept out of the
/// fit 0.0113 -> 0.0107. The order of the categories is kept, so no named cause changes.
fn sharpen(rates: &mut [f32]) {
    let mut cats = [0.0f32; Category::ALL.len()];
    for (r, p) in RULES.iter().zip(&*rates) {
        cats[r.category as usize] += p;
    }
    let total: f32 = cats.iter().map(|c| c * c).sum();
    for (r, p) in RULES.iter().zip(rates) {
        *p *= cats[r.category as usize] / total;
    }
}

/// The share of category `c` in rates by rule.
fn share(rates: &[f32], c: Category) -> f32 {
    RULES.iter().zip(rates).filter(|(r, _)| r.category == c).map(|(_, p)| p).sum()
}

fn clue_set() -> &'static RuleSet {
    static SET: OnceLock<RuleSet> = OnceLock::new();
    SET.get_or_init(|| RuleSet::compile_as(CLUE_RULES, false).unwrap_or_else(|e| panic!("{e}")))
}

impl Prior {
    /// The prior for the code and frames of `input` and the user's line that raised (its
    /// messages and checks are not read: they are the rules' evidence, not context).
    pub fn of(input: &Input<'_>, raised: Option<(&str, Loc)>) -> Prior {
        let clue_input = Input { raised, ..input.clone_code() };
        let seen: Vec<Seen> = clue_set()
            .decide(&clue_input)
            .into_iter()
            .map(|Decision { rule, confidence, evidence }| Seen {
                clue: &CLUES[rule],
                id: CLUE_RULES[rule].id,
                weight: confidence * CLUES[rule].weight,
                evidence,
            })
            .collect();
        let mut rates = vec![0.0f32; RULES.len()];
        let mut total = BASE_WEIGHT;
        for &(r, p) in BASE_RATES {
            rates[r] += BASE_WEIGHT * p;
        }
        for s in &seen {
            for &(r, p) in s.clue.rates {
                rates[r] += s.weight * p;
            }
            total += s.weight;
        }
        rates.iter_mut().for_each(|p| *p /= total);
        if !seen.is_empty() {
            sharpen(&mut rates);
        }
        Prior { rates, seen }
    }

    /// The share of a category.
    pub fn category(&self, c: Category) -> f32 {
        share(&self.rates, c)
    }

    /// The lines that made `rule` likely: the evidence of the (at most two) clues that gave it
    /// the most, each marked as context (`scope` "context"), not as evidence of the error.
    pub fn evidence_for(&self, rule: usize) -> Vec<Evidence> {
        let gave = |s: &Seen| s.weight * s.clue.rates.iter().find(|(r, _)| *r == rule).map_or(0.0, |x| x.1);
        let mut by: Vec<(&Seen, f32)> = self.seen.iter().map(|s| (s, gave(s))).filter(|(_, g)| *g > 0.0).collect();
        crate::order::sort_by_key(&mut by, |(_, g)| (u64::MAX - (g * 1e6) as u64, 0));
        let mut out: Vec<Evidence> = Vec::new();
        for e in by.iter().take(2).flat_map(|(s, _)| s.evidence.iter()) {
            if !out.iter().any(|o| o.text == e.text) {
                out.push(Evidence { scope: "context".into(), ..e.clone() });
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(lines: &[&'static str]) -> Input<'static> {
        let code = lines.iter().map(|l| (*l, Loc::default(), 1.0)).collect();
        Input { code, ..Input::default() }
    }

    fn top(p: &Prior) -> &'static str {
        let (i, _) = p.rates.iter().enumerate().max_by(|a, b| a.1.total_cmp(b.1)).expect("rules");
        RULES[i].id
    }

    #[test]
    fn the_base_alone_is_the_articles_order() {
        let p = Prior::of(&Input::default(), None);
        assert!(p.seen.is_empty());
        let (l, i, v) = (Category::InvalidLabel, Category::IndexOutOfBounds, Category::InvalidValue);
        assert!(p.category(l) > p.category(i) && p.category(i) > p.category(v), "{:?}", p.rates);
        assert!((p.rates.iter().sum::<f32>() - 1.0).abs() < 1e-4);
        assert_eq!(top(&p), "class-target-out-of-range");
    }

    #[test]
    fn a_pool_is_sharpened_in_its_order_and_the_base_is_not() {
        // The base alone states its own shares.
        let base = Prior::of(&Input::default(), None);
        let stated: f32 = BASE_RATES.iter().filter(|(r, _)| RULES[*r].category == Category::InvalidLabel).map(|x| x.1).sum();
        assert!((base.category(Category::InvalidLabel) - stated).abs() < 1e-4);
        // A pool: the categories squared and renormalised, a rule keeping its part of its category.
        let mut rates = vec![0.0f32; RULES.len()];
        let [label, seg, emb] = ["class-target-out-of-range", "segmentation-mask-out-of-range", "embedding-index-out-of-range"]
            .map(|id| RULES.iter().position(|r| r.id == id).expect("a rule"));
        (rates[label], rates[seg], rates[emb]) = (0.4, 0.2, 0.4);
        sharpen(&mut rates);
        // Labels 0.6 and indices 0.4 become 0.36 / 0.52 and 0.16 / 0.52.
        assert!((share(&rates, Category::InvalidLabel) - 0.36 / 0.52).abs() < 1e-5, "{rates:?}");
        assert!((rates[seg] / rates[label] - 0.5).abs() < 1e-5);
        assert!((rates.iter().sum::<f32>() - 1.0).abs() < 1e-5);
    }

    #[test]
    fn clues_move_the_prior() {
        let graph = Prior::of(&code(&["out = conv(x, data.edge_index)"]), None);
        assert_eq!(top(&graph), "graph-index-out-of-range");
        assert_eq!(graph.seen[0].id, "task-graph");
        let lm = Prior::of(&code(&["tokenizer.add_special_tokens({'pad_token': '[PAD]'})"]), None);
        assert_eq!(top(&lm), "tokenizer-vocab-mismatch");
        let ev = lm.evidence_for(lm.seen[0].clue.rates[0].0);
        assert!(ev.iter().all(|e| e.scope == "context"), "context, not evidence of the error");
    }

    #[test]
    fn every_clue_finds_a_line_and_rates_known_rules() {
        assert_eq!(CLUES.len(), CLUE_RULES.len());
        for (c, r) in CLUES.iter().zip(CLUE_RULES) {
            assert!((c.rates.iter().map(|x| x.1).sum::<f32>() - 1.0).abs() < 0.01, "{}", r.id);
            assert!(!c.source.is_empty(), "{}: where its numbers come from", r.id);
        }
        clue_set(); // every pattern compiles
    }
}
