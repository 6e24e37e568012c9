//! The notes: what is worth knowing about the input beside the verdict, as message keys with
//! their values (`words` says them), and the facts the headline and the steps name.

use super::*;

/// The kernel record's site as the headline names it: `Loss.cu:250 (nll_loss_forward…)`.
pub(super) fn site_label(k: &KernelHit) -> String {
    let mut s = k.site.file_name().to_string();
    if let Some(l) = k.site.line {
        s.push_str(&format!(":{l}"));
    }
    if let Some(f) = &k.site.name {
        s.push_str(&format!(" ({f})"));
    }
    s
}

/// Whether the input ran on Colab: the notebook or the caller says so, or its traceback shows
/// Colab's paths (`/content/…`, or a cell's frame beside `/usr/local/lib/python3.N/dist-packages`:
/// a cell's file took five forms in 2025-26, from `<ipython-input-N-HEX>` to
/// `/tmp/ipykernel_PID/HASH.py`).
pub(super) fn on_colab(facts: &Facts, ctx: &InputContext) -> bool {
    if ctx.host == Some("colab") {
        return true;
    }
    let frames = || facts.tracebacks.iter().flat_map(|t| t.frames.iter());
    frames().any(|f| f.path.starts_with("/content/"))
        || (frames().any(|f| f.path.starts_with("/usr/local/lib/python3") && f.path.contains("/dist-packages/"))
            && frames().any(|f| crate::facts::is_cell_file(&f.path, false)))
}

pub(super) fn notes(
    (facts, ctx): (&Facts, &InputContext),
    verdict: Verdict,
    kernel: Option<&KernelHit>,
    host: Option<&HostHit>,
    raised: Option<&RaisedAt>,
    (echo_count, echo_cells): (u64, usize),
) -> Vec<NoteFinding> {
    let mut notes = Vec::new();
    let mut add =
        |id: &'static str, msg: Msg, args: Vec<(&'static str, Arg)>| notes.push(NoteFinding { id, msg, args });
    if facts.stats.bytes == 0 {
        add("empty_input", Msg::NoteEmpty, vec![]);
    }
    let mps = host.is_some_and(|h| h.dialect == "mps");
    if verdict == Verdict::DeviceAssert && kernel.is_none() && host.is_some_and(|h| h.described) {
        add("described", Msg::NoteDescribed, vec![]);
    } else if verdict == Verdict::DeviceAssert && kernel.is_none() && mps {
        add("mps_check", Msg::NoteMpsCheck, vec![]);
    } else if verdict == Verdict::DeviceAssert && kernel.is_none() {
        // ROCm's error reads `HIP error: …`, also behind `torch.AcceleratorError:`.
        let hip = host.is_some_and(|h| h.dialect == "hip_error" || h.quote.text.contains("HIP error"));
        if let Some(log) = &facts.runtime_log {
            add("runtime_log_without_kernel", Msg::NoteRuntimeLogWithoutKernel, vec![("rows", Arg::Num(log.rows))]);
        } else if on_colab(facts, ctx) && !hip {
            add("kernel_lines_in_runtime_log", Msg::NoteKernelInRuntimeLog, vec![]);
        } else {
            add("kernel_lines_missing", if hip { Msg::NoteKernelMissingRocm } else { Msg::NoteKernelMissing }, vec![]);
        }
    }
    if let Some(k) = kernel.filter(|k| k.loc.at.runtime_log) {
        add("kernel_from_runtime_log", Msg::NoteKernelFromRuntimeLog, vec![("line", Arg::Num(k.loc.at.line))]);
    }
    if verdict == Verdict::DeviceAssert && facts.dsa_hint && !facts.dsa_report {
        let rocm = kernel.is_some_and(|k| k.dialect == "rocm")
            || host.is_some_and(|h| h.dialect == "hip_error" || h.quote.text.contains("HIP error"));
        add("dsa_needs_source_build", if rocm { Msg::NoteDsaRocm } else { Msg::NoteDsa }, vec![]);
    }
    if kernel.is_some_and(|k| k.dialect == "rocm" && k.site.condition.as_deref().is_some_and(|c| c.trim() == "0")) {
        add("condition_not_printed", Msg::NoteConditionNotPrinted, vec![]);
    }
    if facts.sites.len() > 1 {
        add("several_sites", Msg::NoteSeveralSites, vec![("n", Arg::Num(facts.sites.len() as u64))]);
    }
    if verdict == Verdict::DeviceAssert && echo_count > 1 && echo_cells > 1 {
        add(
            "echo_cells",
            Msg::NoteEchoCells,
            vec![("n", Arg::Num(echo_count)), ("cells", Arg::Num(echo_cells as u64))],
        );
    }
    if facts.time_reversed {
        let line = kernel.map(|k| k.loc.at.line).or(host.map(|h| h.loc.at.line)).unwrap_or(0);
        add("time_reversed", Msg::NoteTimeReversed, vec![("line", Arg::Num(line))]);
    }
    if let Some(h) = host.filter(|h| kernel.is_none() && h.dialect == crate::scan::host::UNPARSED) {
        let text = crate::scan::normalize::clip(h.quote.text.trim(), 200);
        let args = vec![("line", Arg::Num(h.loc.at.line)), ("text", Arg::Text(text.to_string()))];
        add("unparsed_record", Msg::NoteUnparsedRecord, args);
    }
    if let (Some(k), Some(h)) = (kernel, host) {
        if k.loc.order > h.loc.order && raised.is_some_and(|r| !r.frames.is_empty()) {
            add("kernel_after_traceback", Msg::NoteKernelAfterTraceback, vec![]);
        }
    }
    // (A CPU error for a device-side assert's bug is a confirmation: `confirm`.)
    if let Some((name, msg, loc)) = facts.last_exception.as_ref().filter(|_| verdict == Verdict::Clean) {
        let error = format!("{name}: {msg}");
        add("python_error", Msg::NotePythonError, vec![("error", Arg::Text(error)), ("line", Arg::Num(loc.at.line))]);
    }
    if let Some((_, probe)) = ctx.probe_cell.filter(|_| !ctx.superseded.is_empty()) {
        let count = |i: &u32| ctx.cells.iter().find(|c| c.index == *i).and_then(|c| c.execution_count);
        let cells: Vec<String> = ctx.superseded.iter().filter_map(count).map(|n| format!("[{n}]")).collect();
        let args = vec![("probe", Arg::Text(probe.to_string())), ("cells", Arg::Text(cells.join(", ")))];
        add("superseded", Msg::NoteSuperseded, args);
    }
    if facts.stats.lossy_utf8 {
        add("lossy_utf8", Msg::NoteLossyUtf8, vec![]);
    }
    if facts.stats.nul_bytes > 0 {
        add("nul_bytes", Msg::NoteNulBytes, vec![("n", Arg::Num(facts.stats.nul_bytes))]);
    }
    if facts.stats.long_lines > 0 {
        add("long_lines", Msg::NoteLongLines, vec![("n", Arg::Num(facts.stats.long_lines))]);
    }
    notes
}
