//! The headline: one sentence that sums up the report.

use crate::findings::Headline;
use crate::report::{Basis, Cause, Confirmation, Report};
use crate::rules::NO_EVIDENCE_RULE;
use crate::text::{location, Lang, Msg};

/// The headline of `r` (its cause worded already), naming what `h` names.
pub(super) fn headline(r: &Report, h: &Headline, lang: Lang) -> String {
    let cause = r.cause.as_ref();
    if let (Some(c), Some(cause)) = (&r.confirmation, cause) {
        return confirmed(c, cause, lang);
    }
    match h {
        Headline::Kernel { site, at } => Msg::HeadlineKernel
            .fill(lang, &[("site", site), ("at", &location(lang, at)), ("cause", &named(cause, lang))]),
        Headline::Host { at, mps: true } => {
            Msg::HeadlineHostMps.fill(lang, &[("at", &location(lang, at)), ("cause", &named(cause, lang))])
        }
        Headline::Host { at, mps: false } => {
            Msg::HeadlineHost.fill(lang, &[("at", &location(lang, at)), ("cause", &named(cause, lang))])
        }
        Headline::Described { at } => {
            Msg::HeadlineDescribed.fill(lang, &[("at", &location(lang, at)), ("cause", &named(cause, lang))])
        }
        Headline::Other { text, at } => {
            Msg::HeadlineOther.fill(lang, &[("error", &clip_words(text, 160)), ("at", &location(lang, at))])
        }
        Headline::Unreadable(n) => Msg::HeadlineUnreadable.fill(lang, &[("n", n)]),
        Headline::Clean => Msg::HeadlineClean.text(lang).to_string(),
        Headline::Nothing => String::new(),
    }
}

/// The cause as the headline names it, with its certainty where it stands on the prior alone.
fn named(cause: Option<&Cause>, lang: Lang) -> String {
    match cause {
        Some(c) if c.rule != NO_EVIDENCE_RULE => match c.basis {
            Basis::Stated => Msg::HeadlineCauseStated.fill(lang, &[("cause", &c.title)]),
            Basis::Prior => {
                let pct = (c.confidence * 100.0).round() as u32;
                Msg::HeadlineCausePrior.fill(lang, &[("cause", &c.title), ("pct", &pct)])
            }
            _ => Msg::HeadlineCause.fill(lang, &[("cause", &c.title)]),
        },
        _ => String::new(),
    }
}

/// The headline of a confirmed cause: the op, the bad value and the bound where the output
/// prints them ("Confirmed: F.cross_entropy got 10 where 0 <= target < 10 is allowed, at
/// train.py:41."), else the cause and the error.
fn confirmed(c: &Confirmation, cause: &Cause, lang: Lang) -> String {
    let how = if c.source == "probe" { Msg::ConfirmedHowProbe } else { Msg::ConfirmedHowCpu }.text(lang);
    // `path/to/train.py:41  loss = …` -> `train.py:41`
    let at = c.line.as_deref().map(|l| {
        let place = l.split("  ").next().unwrap_or(l).trim();
        let file = place.rsplit(['/', '\\']).next().unwrap_or(place);
        Msg::HeadlineConfirmedAt.fill(lang, &[("line", &file)])
    });
    let at = at.unwrap_or_default();
    match (&c.value, &c.allowed) {
        (Some(v), Some(a)) if !c.op.is_empty() => Msg::HeadlineConfirmed.fill(
            lang,
            &[("how", &how), ("op", &c.op), ("value", v), ("allowed", &crate::text::bound(lang, a)), ("at", &at)],
        ),
        _ => Msg::HeadlineConfirmedPlain
            .fill(lang, &[("how", &how), ("cause", &cause.title), ("at", &at), ("error", &clip_words(&c.text, 160))]),
    }
}

/// `s` cut to at most `max` bytes at a space (not mid-word), with an ellipsis when it was cut.
fn clip_words(s: &str, max: usize) -> String {
    let cut = crate::scan::normalize::clip(s, max);
    if cut.len() == s.len() {
        return s.to_string();
    }
    let end = match cut.rfind(' ') {
        Some(i) if i >= max / 2 => i,
        _ => cut.len(),
    };
    format!("{}…", cut[..end].trim_end())
}
