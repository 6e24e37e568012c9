//! Mentioned is not happened: a text that names the device-side assert but shows no output of
//! it (a how-to page, an explanation, an issue's description, a diff) is no report of one. The
//! scan marks the lines whose form is a mention (`scan::mention`); here the whole text decides.

use super::*;

/// Takes out of `facts` the host lines that only mention the error, when every error line of
/// the text is such a mention (or a person's report of it, `described`) and nothing else in it
/// is output of an error: no traceback (but the lines above a mention pieced together as one),
/// no kernel record but quoted ones, no note PyTorch prints beside the error, no line past the
/// scan's storage. A text of reports keeps its first report alone; a text of mentions keeps no
/// error line, and its quoted kernel records are dropped. Returns the lines taken out as
/// mentions (none when the text shows output), and where the first quoted kernel record was.
pub(super) fn set_aside(facts: &mut Facts) -> Set {
    let counted = |h: &HostHit| h.mention.is_none() && !h.described;
    let kernel = facts.kernel_records > 0 && !facts.kernel_quoted && !facts.kernel_described;
    let shows_output = kernel
        // (A traceback pieced together from the lines above a mention is the text's code.)
        || facts.tracebacks.iter().any(|t| !t.partial)
        || !facts.async_notes.is_empty()
        || facts.dsa_report
        || facts.runtime_log.is_some()
        || facts.host_total > facts.host.len() as u64
        || facts.host.iter().any(counted);
    if !shows_output {
        let kernel = facts.kernel_quoted.then(|| drop_kernel(facts)).flatten();
        if let Some(first) = facts.host.iter().position(|h| h.described && h.kind == HostKind::DeviceAssert) {
            let report = facts.host.swap_remove(first);
            facts.host = vec![report];
            return Set::default();
        }
        // A person's report of another CUDA error (`I get … an illegal memory access`): that
        // error, as before.
        if facts.host.iter().any(|h| h.described) {
            facts.host.retain(|h| h.described);
            return Set { hosts: Vec::new(), kernel };
        }
        return Set { hosts: std::mem::take(&mut facts.host), kernel };
    }
    for h in &mut facts.host {
        // Beside output, a person's words are no report of their own: the output is.
        h.described = false;
    }
    facts.kernel_described = false;
    // Output beside mentions (a how-to page that pastes a run's traceback under its heading):
    // the error is the output's, and the mentions are no echo of it.
    let printed = |h: &HostHit| h.mention.is_none() && h.kind == HostKind::DeviceAssert;
    if facts.host.iter().any(printed) || kernel {
        facts.host.retain(|h| h.mention.is_none());
    }
    Set::default()
}

/// What [`set_aside`] took out: the host lines that mention the error, and where the first
/// kernel record was when every one of them is quoted.
#[derive(Default)]
pub(super) struct Set {
    hosts: Vec<HostHit>,
    kernel: Option<Location>,
}

/// Forgets the kernel records of a text that only quotes them; returns where the first was.
fn drop_kernel(facts: &mut Facts) -> Option<Location> {
    let first = facts.sites.iter().map(|s| s.first.loc).min_by_key(|l| l.order).map(|l| l.at);
    facts.kernel_records = 0;
    facts.sites.clear();
    facts.site_keys.clear();
    facts.kernel_context.clear();
    first
}

/// The note that says why the text reads clean: where the first mention is, and how it names
/// the error.
pub(super) fn note(set: &Set) -> Option<NoteFinding> {
    let host = set.hosts.first().map(|h| (h.loc, h.mention));
    let kernel = set.kernel.map(|at| (Loc { order: 0, at, time: None }, Some("quoted")));
    let (loc, mention) = match (host, kernel) {
        (Some(h), Some(k)) if k.0.at.line < h.0.at.line => k,
        (Some(h), _) => h,
        (None, k) => k?,
    };
    let how = match mention {
        Some("heading" | "title") => Msg::MentionHeading,
        Some("comment" | "diff" | "code") => Msg::MentionCode,
        Some("key" | "setting") => Msg::MentionSetting,
        Some("list") => Msg::MentionList,
        Some("quoted" | "example") => Msg::MentionQuoted,
        _ => Msg::MentionProse,
    };
    let args = vec![("at", Arg::At(loc.at)), ("how", Arg::Said(how))];
    Some(NoteFinding { id: "mentioned_only", msg: Msg::NoteMentionedOnly, args })
}
