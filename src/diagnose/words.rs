//! The report's sentences: the headline, the notes, what another CUDA error means. The only
//! part of the diagnosis that words things.

use super::*;

/// Writes where each place of the report is, in its language (`where` in the JSON): the page,
/// the Markdown and the text report show these words and never work them out again.
pub(super) fn word_places(r: &mut Report) {
    let lang = r.lang;
    let word = |place: &mut String, at: &Location| *place = location(lang, at);
    if let Some(f) = &mut r.first_assert {
        word(&mut f.place, &f.at);
    }
    if let Some(h) = &mut r.raised_at {
        word(&mut h.place, &h.at);
    }
    if let Some(c) = &mut r.cause {
        let candidates = c.candidates.iter_mut().flat_map(|x| x.evidence.iter_mut());
        for e in c.evidence.iter_mut().chain(candidates) {
            word(&mut e.place, &e.at);
        }
    }
    for e in &mut r.echoes {
        word(&mut e.place, &e.at);
    }
    for e in &mut r.other_errors {
        word(&mut e.place, &e.at);
    }
}

pub(super) fn other_explanation(kind: &str) -> Msg {
    match kind {
        "out_of_memory" => Msg::OtherOutOfMemory,
        "illegal_address" => Msg::OtherIllegalAddress,
        "no_kernel_image" | "invalid_device_function" => Msg::OtherNoKernelImage,
        "misaligned_address" | "illegal_instruction" | "launch_failure" => Msg::OtherLaunchFailure,
        "cublas" | "cusolver" | "cusparse" => Msg::OtherCublas,
        "cudnn" => Msg::OtherCudnn,
        "nccl" => Msg::OtherNccl,
        "invalid_device_ordinal" | "no_device" => Msg::OtherNoDevice,
        "driver_too_old" => Msg::OtherDriver,
        "ecc_error" | "launch_timeout" | "device_busy" => Msg::OtherHardware,
        "cuda_fork" => Msg::OtherFork,
        "no_cuda_build" => Msg::OtherNoCudaBuild,
        "device_mismatch" => Msg::OtherDeviceMismatch,
        _ => Msg::OtherGeneric,
    }
}

fn site_label(k: &KernelHit) -> String {
    let mut s = k.site.file_name().to_string();
    if let Some(l) = k.site.line {
        s.push_str(&format!(":{l}"));
    }
    if let Some(f) = &k.site.name {
        s.push_str(&format!(" ({f})"));
    }
    s
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

pub(super) fn headline(
    verdict: Verdict,
    kernel: Option<&KernelHit>,
    host: Option<&HostHit>,
    cause: Option<&Cause>,
    other: Option<&OtherError>,
    unreadable: usize,
    lang: Lang,
) -> String {
    match verdict {
        Verdict::DeviceAssert => {
            let cause = match cause {
                Some(c) if c.rule != NO_EVIDENCE_RULE => match c.basis {
                    Basis::Stated => Msg::HeadlineCauseStated.fill(lang, &[("cause", &c.title)]),
                    Basis::Prior => {
                        let pct = (c.confidence * 100.0).round() as u32;
                        Msg::HeadlineCausePrior.fill(lang, &[("cause", &c.title), ("pct", &pct)])
                    }
                    _ => Msg::HeadlineCause.fill(lang, &[("cause", &c.title)]),
                },
                _ => String::new(),
            };
            match (kernel, host) {
                (Some(k), _) => Msg::HeadlineKernel
                    .fill(lang, &[("site", &site_label(k)), ("at", &location(lang, &k.loc.at)), ("cause", &cause)]),
                (None, Some(h)) if h.dialect == "mps" => {
                    Msg::HeadlineHostMps.fill(lang, &[("at", &location(lang, &h.loc.at)), ("cause", &cause)])
                }
                (None, Some(h)) => {
                    Msg::HeadlineHost.fill(lang, &[("at", &location(lang, &h.loc.at)), ("cause", &cause)])
                }
                _ => String::new(),
            }
        }
        Verdict::OtherCudaError => {
            let o = other.expect("an other error");
            Msg::HeadlineOther.fill(lang, &[("error", &clip_words(&o.text, 160)), ("at", &location(lang, &o.at))])
        }
        Verdict::Clean | Verdict::Confirmed => Msg::HeadlineClean.text(lang).to_string(),
        Verdict::Unreadable => Msg::HeadlineUnreadable.fill(lang, &[("n", &unreadable)]),
    }
}

/// The headline of a confirmed cause: the op, the bad value and the bound where the output
/// prints them ("Confirmed: F.cross_entropy got 10 where 0 <= target < 10 is allowed, at
/// train.py:41."), else the cause and the error.
pub(super) fn confirmed_headline(c: &Confirmation, cause: &Cause, lang: Lang) -> String {
    let how = if c.source == "probe" { Msg::ConfirmedHowProbe } else { Msg::ConfirmedHowCpu }.text(lang);
    // `path/to/train.py:41  loss = …` -> `train.py:41`
    let at = c.line.as_deref().map(|l| {
        let place = l.split("  ").next().unwrap_or(l).trim();
        let file = place.rsplit(['/', '\\']).next().unwrap_or(place);
        Msg::HeadlineConfirmedAt.fill(lang, &[("line", &file)])
    });
    let at = at.unwrap_or_default();
    match (&c.value, &c.allowed) {
        (Some(v), Some(a)) if !c.op.is_empty() => {
            Msg::HeadlineConfirmed.fill(lang, &[("how", &how), ("op", &c.op), ("value", v), ("allowed", a), ("at", &at)])
        }
        _ => Msg::HeadlineConfirmedPlain.fill(
            lang,
            &[("how", &how), ("cause", &cause.title), ("at", &at), ("error", &clip_words(&c.text, 160))],
        ),
    }
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
    let cell = |p: &str| ["<ipython-input-", "/tmp/ipython-input-", "/tmp/ipykernel_"].iter().any(|c| p.starts_with(c));
    frames().any(|f| f.path.starts_with("/content/"))
        || (frames().any(|f| f.path.starts_with("/usr/local/lib/python3") && f.path.contains("/dist-packages/"))
            && frames().any(|f| cell(&f.path)))
}

pub(super) fn notes(
    (facts, ctx): (&Facts, &InputContext),
    verdict: Verdict,
    kernel: Option<&KernelHit>,
    host: Option<&HostHit>,
    raised: Option<&RaisedAt>,
    (echo_count, echo_cells): (u64, usize),
    lang: Lang,
) -> Vec<Note> {
    let mut notes = Vec::new();
    let mut add = |id: &str, text: String| notes.push(Note { id: id.to_string(), text });
    if facts.stats.bytes == 0 {
        add("empty_input", Msg::NoteEmpty.text(lang).to_string());
    }
    let mps = host.is_some_and(|h| h.dialect == "mps");
    if verdict == Verdict::DeviceAssert && kernel.is_none() && mps {
        add("mps_check", Msg::NoteMpsCheck.text(lang).to_string());
    } else if verdict == Verdict::DeviceAssert && kernel.is_none() {
        // ROCm's error reads `HIP error: …`, also behind `torch.AcceleratorError:`.
        let hip = host.is_some_and(|h| h.dialect == "hip_error" || h.quote.text.contains("HIP error"));
        if let Some(log) = &facts.runtime_log {
            add("runtime_log_without_kernel", Msg::NoteRuntimeLogWithoutKernel.fill(lang, &[("rows", &log.rows)]));
        } else if on_colab(facts, ctx) && !hip {
            add("kernel_lines_in_runtime_log", Msg::NoteKernelInRuntimeLog.text(lang).to_string());
        } else {
            add(
                "kernel_lines_missing",
                if hip { Msg::NoteKernelMissingRocm } else { Msg::NoteKernelMissing }.text(lang).to_string(),
            );
        }
    }
    if let Some(k) = kernel.filter(|k| k.loc.at.runtime_log) {
        add("kernel_from_runtime_log", Msg::NoteKernelFromRuntimeLog.fill(lang, &[("line", &k.loc.at.line)]));
    }
    if verdict == Verdict::DeviceAssert && facts.dsa_hint && !facts.dsa_report {
        let rocm = kernel.is_some_and(|k| k.dialect == "rocm")
            || host.is_some_and(|h| h.dialect == "hip_error" || h.quote.text.contains("HIP error"));
        add("dsa_needs_source_build", if rocm { Msg::NoteDsaRocm } else { Msg::NoteDsa }.text(lang).to_string());
    }
    if facts.sites.len() > 1 {
        add("several_sites", Msg::NoteSeveralSites.fill(lang, &[("n", &facts.sites.len())]));
    }
    if verdict == Verdict::DeviceAssert && echo_count > 1 && echo_cells > 1 {
        add("echo_cells", Msg::NoteEchoCells.fill(lang, &[("n", &echo_count), ("cells", &echo_cells)]));
    }
    if facts.time_reversed {
        let line = kernel.map(|k| k.loc.at.line).or(host.map(|h| h.loc.at.line)).unwrap_or(0);
        add("time_reversed", Msg::NoteTimeReversed.fill(lang, &[("line", &line)]));
    }
    if let Some(h) = host.filter(|h| kernel.is_none() && h.dialect == crate::scan::host::UNPARSED) {
        let text = crate::scan::normalize::clip(h.quote.text.trim(), 200);
        add("unparsed_record", Msg::NoteUnparsedRecord.fill(lang, &[("line", &h.loc.at.line), ("text", &text)]));
    }
    if let (Some(k), Some(h)) = (kernel, host) {
        if k.loc.order > h.loc.order && raised.is_some_and(|r| !r.frames.is_empty()) {
            add("kernel_after_traceback", Msg::NoteKernelAfterTraceback.text(lang).to_string());
        }
    }
    // (A CPU error for a device-side assert's bug is a confirmation: `confirm`.)
    if let Some((name, msg, loc)) = facts.last_exception.as_ref().filter(|_| verdict == Verdict::Clean) {
        let error = format!("{name}: {msg}");
        add("python_error", Msg::NotePythonError.fill(lang, &[("error", &error), ("line", &loc.at.line)]));
    }
    if let Some((_, probe)) = ctx.probe_cell.filter(|_| !ctx.superseded.is_empty()) {
        let count = |i: &u32| ctx.cells.iter().find(|c| c.index == *i).and_then(|c| c.execution_count);
        let cells: Vec<String> = ctx.superseded.iter().filter_map(count).map(|n| format!("[{n}]")).collect();
        add("superseded", Msg::NoteSuperseded.fill(lang, &[("probe", &probe), ("cells", &cells.join(", "))]));
    }
    if facts.stats.lossy_utf8 {
        add("lossy_utf8", Msg::NoteLossyUtf8.text(lang).to_string());
    }
    if facts.stats.nul_bytes > 0 {
        add("nul_bytes", Msg::NoteNulBytes.fill(lang, &[("n", &facts.stats.nul_bytes)]));
    }
    if facts.stats.long_lines > 0 {
        add("long_lines", Msg::NoteLongLines.fill(lang, &[("n", &facts.stats.long_lines)]));
    }
    notes
}
