//! The cause: the rules' decision as the report states it, and the candidates beside it.

use super::*;

/// The cause the evidence points at, with the other causes it leaves open.
pub(super) fn cause(
    facts: &Facts,
    ctx: &InputContext,
    first_kernel: Option<&KernelHit>,
    first_host: Option<&HostHit>,
    raised_tb: Option<&Traceback>,
    stack: Option<&Stack>,
    lang: Lang,
) -> Cause {
    let rs = ruleset();
    let input = rule_input(facts, ctx, first_kernel, raised_tb, first_host, stack);
    let mut ranked = rs.decide(&input).into_iter();
    let decision = ranked.next().unwrap_or_else(|| Decision {
        rule: rs.index(NO_EVIDENCE_RULE).expect("the no-evidence rule exists"),
        confidence: 0.0,
        evidence: Vec::new(),
    });
    let best = decision.confidence;
    let mut cause = cause_from(decision, first_kernel, lang);
    cause.candidates = candidates(ranked, best, &cause, lang);
    if first_kernel.is_none() && first_host.is_some_and(|h| h.dialect == crate::scan::host::UNPARSED) {
        // The first assert's own form is unknown: so is how far the rest can be trusted.
        let scale = |c: f64| (c * UNPARSED_CONFIDENCE * 100.0).round() / 100.0;
        cause.confidence = scale(cause.confidence);
        cause.candidates.iter_mut().for_each(|c| c.confidence = scale(c.confidence));
    }
    cause
}

/// The other causes worth naming beside the best (`best` its confidence): other categories or
/// rules at least [`CANDIDATE_SHARE`] as likely, at most three.
fn candidates(rest: impl Iterator<Item = Decision>, best: f32, cause: &Cause, lang: Lang) -> Vec<Candidate> {
    let rs = ruleset();
    // A rule of the cause's own category says nothing new: the checks are the same.
    let mut seen = vec![cause.category];
    rest.filter(|d| best > 0.0 && d.confidence >= best * CANDIDATE_SHARE)
        .filter(|d| {
            let c = rs.rules[d.rule].category;
            let new = !seen.contains(&c);
            seen.push(c);
            new
        })
        .take(3)
        .map(|d| {
            let r = &rs.rules[d.rule];
            Candidate {
                category: r.category,
                rule: r.id.to_string(),
                confidence: f64::from((d.confidence * 100.0).round()) / 100.0,
                title: r.texts(lang).title.to_string(),
                evidence: d.evidence,
            }
        })
        .collect()
}

/// How likely, against the best cause, another must be to be named beside it.
const CANDIDATE_SHARE: f32 = 0.6;

fn cause_from(d: Decision, kernel: Option<&KernelHit>, lang: Lang) -> Cause {
    let rs = ruleset();
    let r = &rs.rules[d.rule];
    let t = r.texts(lang);
    // The op behind the exact site, when the rule lists one (the site with the same function
    // first: several kernels share a condition); else the rule's ops.
    let mut ops: Vec<String> = Vec::new();
    if let Some(k) = kernel {
        let file = k.site.file_name();
        let cond = k.site.condition.as_deref().map(crate::rules::condition_key);
        let same = |s: &&crate::rules::SiteDef| {
            s.file.eq_ignore_ascii_case(file)
                && s.condition.is_some()
                && s.condition.map(crate::rules::condition_key) == cond
        };
        let func = k.site.name.as_deref().or(k.site.function.as_deref());
        let site = r
            .sites
            .iter()
            .enumerate()
            .filter(|(_, s)| same(s))
            .find(|(_, s)| s.function.is_some() && s.function == func)
            .or_else(|| r.sites.iter().enumerate().find(|(_, s)| same(s)));
        if let Some(op) = site.and_then(|(i, _)| t.site_ops.get(i)).filter(|o| !o.is_empty()) {
            ops.push(op.clone());
        }
    }
    if ops.is_empty() {
        ops = t.ops.to_vec();
    }
    Cause {
        category: r.category,
        rule: r.id.to_string(),
        confidence: f64::from((d.confidence * 100.0).round()) / 100.0,
        title: t.title.to_string(),
        summary: t.summary.to_string(),
        why: t.why.to_string(),
        fix: t.fix.to_string(),
        check: t.check.to_string(),
        snippet: Some(t.snippet).filter(|s| !s.is_empty()).map(str::to_string),
        ops,
        evidence: d.evidence,
        candidates: Vec::new(),
    }
}
