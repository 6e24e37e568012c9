//! The cause: the rules' decision as the report states it, and the candidates beside it.

use super::confirm;
use super::posterior::{basis, rank};
use super::*;
use crate::rules::priors::Prior;

/// The likeliest cause: the evidence's and the prior's ranking (`posterior`), with the other
/// categories it leaves open beside it.
pub(super) fn cause(
    facts: &Facts,
    ctx: &InputContext,
    first_kernel: Option<&KernelHit>,
    first_host: Option<&HostHit>,
    raised_tb: Option<&Traceback>,
    stack: Option<&Stack>,
) -> (Cause, Option<usize>) {
    let input = rule_input(facts, ctx, first_kernel, raised_tb, first_host, stack);
    let decisions = ruleset().decide(&input);
    let prior = Prior::of(&input, user_line(raised_tb));
    // No context read at all (a lone host line, code that names nothing known): no cause, the
    // usual ones as candidates.
    let blind = decisions.is_empty() && prior.seen.is_empty();
    let mut ranked = rank(decisions, &prior).into_iter();
    let (mut cause, site) = match if blind { None } else { ranked.next() } {
        Some(top) => {
            let basis = basis(&top);
            let evidence = top.decision.map_or_else(|| prior.evidence_for(top.rule), |d| d.evidence);
            let (c, site) = cause_from(Decision { rule: top.rule, confidence: top.share, evidence }, first_kernel);
            (Cause { basis, ..c }, site)
        }
        None => {
            let rule = ruleset().index(NO_EVIDENCE_RULE).expect("the no-evidence rule exists");
            cause_from(Decision { rule, confidence: 0.0, evidence: Vec::new() }, first_kernel)
        }
    };
    let least = if cause.basis == Basis::Prior { CANDIDATE_SHARE / 2.0 } else { CANDIDATE_SHARE };
    for k in ranked.filter(|k| k.share >= least && k.category != cause.category).take(3) {
        let r = &ruleset().rules[k.rule];
        cause.candidates.push(Candidate {
            category: r.category,
            rule: r.id.to_string(),
            confidence: hundredths(k.share),
            title: String::new(),
            evidence: quoted(k.decision.map_or_else(|| prior.evidence_for(k.rule), |d| d.evidence)),
        });
    }
    if first_kernel.is_none() && first_host.is_some_and(|h| h.dialect == crate::scan::host::UNPARSED) {
        // The first assert's own form is unknown: so is how far the rest can be trusted.
        let scale = |c: f64| (c * UNPARSED_CONFIDENCE * 100.0).round() / 100.0;
        cause.confidence = scale(cause.confidence);
        cause.candidates.iter_mut().for_each(|c| c.confidence = scale(c.confidence));
    }
    (cause, site)
}

/// A confirmed cause: the rule of the op the probe or the CPU caught, at certainty, with the
/// error line as its evidence.
pub(super) fn confirmed_cause(c: &confirm::Confirmed) -> Cause {
    let e = &c.confirmation;
    let evidence = Evidence {
        scope: "confirmation".into(),
        text: e.text.clone(),
        matched: e.value.clone(),
        at: e.at,
        place: String::new(),
    };
    let (cause, _) = cause_from(Decision { rule: c.rule, confidence: 1.0, evidence: vec![evidence] }, None);
    Cause { basis: Basis::Confirmed, confidence: 1.0, ..cause }
}

/// The user's line that raised: the innermost frame of the user's own code.
fn user_line(tb: Option<&Traceback>) -> Option<(&str, Loc)> {
    let f = tb?.frames.iter().rev().find(|f| !is_library(&f.path))?;
    f.code.as_ref().map(|(c, at)| (c.as_str(), *at))
}

/// Evidence lines as the report quotes them (`evidence::clipped`).
fn quoted(mut evidence: Vec<Evidence>) -> Vec<Evidence> {
    for e in &mut evidence {
        e.text = clipped(&e.text, e.matched.as_deref());
    }
    evidence
}

/// The least share a category needs to be named beside a cause the evidence names; beside one
/// the prior names, half of it: the prior is sharpened (`rules::priors`), and its runners-up
/// are the alternatives (a twentieth is about what a sixth was before the squaring), while what
/// evidence leaves to the prior is no lead at a twentieth.
const CANDIDATE_SHARE: f32 = 0.1;

/// A share as the report states it: in hundredths, and never certain (see `posterior`).
fn hundredths(p: f32) -> f64 {
    f64::from((p.min(0.99) * 100.0).round()) / 100.0
}

/// The cause a decision names, its words left to `words`; with a kernel record, the rule's site
/// it matched (the site with the same function first: several kernels share a condition), whose
/// op the report names.
pub(super) fn cause_from(d: Decision, kernel: Option<&KernelHit>) -> (Cause, Option<usize>) {
    let r = &ruleset().rules[d.rule];
    let site = kernel.and_then(|k| {
        let file = k.site.file_name();
        let cond = k.site.condition.as_deref().map(crate::rules::condition_key);
        let same = |s: &&crate::rules::SiteDef| {
            s.file.eq_ignore_ascii_case(file)
                && s.condition.is_some()
                && s.condition.map(crate::rules::condition_key) == cond
        };
        let func = k.site.name.as_deref().or(k.site.function.as_deref());
        r.sites
            .iter()
            .enumerate()
            .filter(|(_, s)| same(s))
            .find(|(_, s)| s.function.is_some() && s.function == func)
            .or_else(|| r.sites.iter().enumerate().find(|(_, s)| same(s)))
            .map(|(i, _)| i)
    });
    let cause = Cause {
        category: r.category,
        rule: r.id.to_string(),
        confidence: hundredths(d.confidence),
        basis: Basis::None,
        title: String::new(),
        summary: String::new(),
        why: String::new(),
        fix: String::new(),
        check: String::new(),
        snippet: None,
        ops: Vec::new(),
        evidence: quoted(d.evidence),
        candidates: Vec::new(),
    };
    (cause, site)
}
