//! Mentioned is not happened: a text that names the device-side assert but shows no output of
//! it (a how-to page, an explanation, an issue's description, a diff) is no report of one. The
//! scan marks the lines whose form is a mention (`scan::mention`); here the whole text decides.

use super::*;

/// Takes out of `facts` the host lines that only mention the error, when every error line of
/// the text is such a mention and nothing else in it is output of an error: no traceback (but
/// the lines above a mention pieced together as one), no
/// kernel record, no note PyTorch prints beside the error, no line past the scan's storage.
/// Returns the lines taken out (none when the text shows output).
pub(super) fn set_aside(facts: &mut Facts) -> Vec<HostHit> {
    let shows_output = facts.kernel_records > 0
        || !facts.sites.is_empty()
        // (A traceback pieced together from the lines above a mention is the text's code.)
        || facts.tracebacks.iter().any(|t| !t.partial)
        || !facts.async_notes.is_empty()
        || facts.dsa_report
        || facts.runtime_log.is_some()
        || facts.host_total > facts.host.len() as u64
        || facts.host.iter().any(|h| h.mention.is_none());
    if facts.host.is_empty() {
        return Vec::new();
    }
    if !shows_output {
        return std::mem::take(&mut facts.host);
    }
    // Output beside mentions (a how-to page that pastes a run's traceback under its heading):
    // the error is the output's, and the mentions are no echo of it.
    let printed = |h: &HostHit| h.mention.is_none() && h.kind == HostKind::DeviceAssert;
    if facts.host.iter().any(printed) || facts.kernel_records > 0 {
        facts.host.retain(|h| h.mention.is_none());
    }
    Vec::new()
}

/// The note that says why the text reads clean: where the first mention is.
pub(super) fn note(mentions: &[HostHit]) -> Option<NoteFinding> {
    let first = mentions.first()?;
    Some(NoteFinding { id: "mentioned_only", msg: Msg::NoteMentionedOnly, args: vec![("at", Arg::At(first.loc.at))] })
}
