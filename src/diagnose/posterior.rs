//! The likeliest cause: the rules' evidence and the prior (`rules::priors`) as one ranking.
//!
//! The evidence's decisions each name a rule with a strength `s` (how often evidence like that
//! is right), the strongest first. Each takes its strength of what the ones before it leave:
//! the first `s1`, the second `(1 - s1) * s2`, and so on; what all leave goes by the prior. A
//! category's share is the sum of its rules'. A kernel record (0.95) leaves the prior a
//! twentieth; a source line in an earlier cell (about 0.25) can be outweighed by what the code
//! shows the task to be.

use crate::report::{Basis, Category};
use crate::rules::priors::Prior;
use crate::rules::{Decision, RULES};

/// A category as ranked: its share, the rule that stands for it, and that rule's decision when
/// the evidence points at it.
pub(super) struct Ranked {
    pub category: Category,
    pub share: f32,
    pub rule: usize,
    pub decision: Option<Decision>,
}

/// The categories by share, the likeliest first (each once; none with no share).
pub(super) fn rank(decisions: Vec<Decision>, prior: &Prior) -> Vec<Ranked> {
    let mut share = vec![0.0f32; RULES.len()];
    let mut left = 1.0f32;
    for d in &decisions {
        let p = calibrated(d.confidence);
        share[d.rule] += left * p;
        left *= 1.0 - p;
    }
    share.iter_mut().zip(&prior.rates).for_each(|(s, p)| *s += left * p);
    let mut out: Vec<Ranked> = Vec::new();
    for (ri, r) in RULES.iter().enumerate().filter(|(i, _)| share[*i] > 0.0) {
        match out.iter_mut().find(|k| k.category == r.category) {
            Some(k) => {
                k.share += share[ri];
                if share[ri] > share[k.rule] {
                    k.rule = ri;
                }
            }
            None => out.push(Ranked { category: r.category, share: share[ri], rule: ri, decision: None }),
        }
    }
    let mut decisions = decisions;
    for k in &mut out {
        if let Some(i) = decisions.iter().position(|d| d.rule == k.rule) {
            k.decision = Some(decisions.swap_remove(i));
        }
    }
    crate::order::sort_by_key(&mut out, |k| (u64::MAX - (k.share * 1e6).round() as u64, k.rule as u64));
    out
}

/// How often evidence of strength `s` is right: `1 - (1 - s)^3`. The rules' strengths order
/// evidence (a kernel site above a frame above a source line) but understate it: over 108 real
/// outputs with a labelled cause, causes at strength 0.45-0.9 were right in 16 of 16 and those at
/// 0.95 in 88 of 89, and the project's own cases say the same (`make calibration`, 2026-12-03).
/// The cube keeps the order and brings each to what it scored: 0.25 -> 0.58, 0.45 -> 0.83,
/// 0.7 -> 0.97.
/// Nothing is stated as certain: a kernel site's own rule is right 99 times in 100.
fn calibrated(s: f32) -> f32 {
    (1.0 - (1.0 - s.clamp(0.0, 1.0)).powi(3)).min(MOST)
}

/// The most a piece of evidence is trusted.
const MOST: f32 = 0.99;

/// What a ranked cause stands on.
pub(super) fn basis(k: &Ranked) -> Basis {
    match &k.decision {
        Some(d) if d.evidence.first().is_some_and(|e| e.scope == "site" || e.scope == "kernel") => Basis::Stated,
        Some(_) => Basis::Evidence,
        None => Basis::Prior,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::Evidence;
    use crate::rules::ruleset;

    fn decision(rule: &str, confidence: f32, scope: &str) -> Decision {
        let e = Evidence { scope: scope.into(), text: "x".into(), matched: None, at: Default::default(), place: String::new() };
        Decision { rule: ruleset().index(rule).expect("a rule"), confidence, evidence: vec![e] }
    }

    #[test]
    fn the_prior_alone_ranks_the_articles_order() {
        let r = rank(Vec::new(), &Prior::of(&Default::default(), None));
        let cats: Vec<Category> = r.iter().map(|k| k.category).collect();
        assert_eq!(&cats[..3], &[Category::InvalidLabel, Category::IndexOutOfBounds, Category::InvalidValue]);
        assert!((r.iter().map(|k| k.share).sum::<f32>() - 1.0).abs() < 1e-4);
        assert_eq!(basis(&r[0]), Basis::Prior);
    }

    #[test]
    fn a_kernel_record_leaves_the_prior_little() {
        let r = rank(vec![decision("multinomial-invalid-probabilities", 0.95, "site")], &Prior::of(&Default::default(), None));
        assert_eq!(r[0].category, Category::InvalidValue);
        assert!(r[0].share >= 0.99 && r[0].share < 1.0, "{}", r[0].share);
        assert_eq!(basis(&r[0]), Basis::Stated);
    }

    #[test]
    fn weak_evidence_can_lose_to_the_prior_and_stays_a_candidate() {
        // A weak line for an embedding against a prior that is nearly all labels.
        let mut prior = Prior::of(&Default::default(), None);
        prior.rates.iter_mut().for_each(|p| *p = 0.0);
        prior.rates[ruleset().index("class-target-out-of-range").unwrap()] = 1.0;
        let r = rank(vec![decision("embedding-index-out-of-range", 0.2, "code")], &prior);
        let p = calibrated(0.2);
        assert_eq!(r[0].category, Category::InvalidLabel);
        assert_eq!(basis(&r[0]), Basis::Prior);
        assert_eq!(r[1].category, Category::IndexOutOfBounds);
        assert!((r[1].share - p).abs() < 1e-4 && (r[0].share - (1.0 - p)).abs() < 1e-4);
        assert_eq!(basis(&r[1]), Basis::Evidence);
    }
}
