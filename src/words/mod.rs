//! The one pass that words a diagnosis: [`word`] fills every empty word of the findings' report
//! in one language, and fills them again in another. Every sentence of a report is made here or
//! below: the headline, the cause's texts (from its rule's file), the stack's explanation, what
//! another CUDA error means, the notes, the places (`where`), the checklist and the probe cell.
//! Nothing here decides anything.

use crate::findings::{Arg, Findings, Keys, NoteFinding};
use crate::probe;
use crate::report::*;
use crate::rules::ruleset;
use crate::text::{code_location, location, Lang, Msg};

pub mod checklist;
mod headline;

/// The report of `findings` in `lang`.
pub fn report(findings: Findings, lang: Lang) -> Report {
    let Findings { mut report, keys } = findings;
    word(&mut report, &keys, lang);
    report
}

/// Words `r` (the findings' report, or one already worded) in `lang`, from its own
/// language-free fields and `keys`.
pub fn word(r: &mut Report, keys: &Keys, lang: Lang) {
    r.lang = lang;
    if let Some(c) = &mut r.cause {
        cause(c, keys.cause_site, lang);
    }
    let has_frames = r.raised_at.as_ref().is_some_and(|h| !h.frames.is_empty());
    if let Some(s) = &mut r.stack {
        s.explanation = explain_stack(s, has_frames, lang);
    }
    for o in &mut r.other_errors {
        o.explanation = other_explanation(&o.kind).text(lang).to_string();
    }
    r.probe = (r.verdict == Verdict::DeviceAssert).then(|| probe::probe(lang, r.cause.as_ref()));
    r.checklist = checklist::steps(&checklist::Context {
        lang,
        verdict: r.verdict,
        source: keys.steps.source,
        cause: r.cause.as_ref(),
        confirmation: r.confirmation.as_ref(),
        stack: r.stack.as_ref(),
        other: r.other_errors.first().map(|o| o.kind.as_str()),
        echo_count: r.echo_count,
        runtime_log_step: keys.steps.runtime_log_step,
        compiled: keys.steps.compiled,
        index: keys.steps.index.as_deref(),
        probe: r.probe.as_ref(),
        source_guessed: keys.steps.source_guessed,
    });
    r.headline = headline::headline(r, &keys.headline, lang);
    r.notes = keys.notes.iter().map(|n| note(n, lang)).collect();
    word_places(r, keys.blamed_cell.as_ref());
}

/// The cause's texts in `lang` (its rule's), the op of the site that matched (else the rule's
/// ops), and the candidates' titles.
fn cause(c: &mut Cause, site: Option<usize>, lang: Lang) {
    let rs = ruleset();
    let Some(r) = rs.index(&c.rule).map(|i| &rs.rules[i]) else { return };
    let t = r.texts(lang);
    c.title = t.title.to_string();
    c.summary = t.summary.to_string();
    c.why = t.why.to_string();
    c.fix = t.fix.to_string();
    c.check = t.check.to_string();
    c.snippet = Some(t.snippet).filter(|s| !s.is_empty()).map(str::to_string);
    c.ops = match site.and_then(|i| t.site_ops.get(i)).filter(|o| !o.is_empty()) {
        Some(op) => vec![op.clone()],
        None => t.ops.to_vec(),
    };
    for k in &mut c.candidates {
        if let Some(i) = rs.index(&k.rule) {
            k.title = rs.rules[i].texts(lang).title.to_string();
        }
    }
}

/// Whether the traceback can be trusted, explained in `lang`.
fn explain_stack(s: &Stack, has_frames: bool, lang: Lang) -> String {
    if s.trustworthy {
        let m = if s.launch_blocking_known { Msg::StackKernelSet } else { Msg::StackTrusted };
        return m.text(lang).to_string();
    }
    let late = match s.launch_blocking {
        // What the kernel saw: no need to guess from the output.
        LaunchBlocking::NotSet if s.launch_blocking_known && has_frames => {
            let sep = if lang == Lang::Zh { "" } else { " " };
            return match &s.innocent_op {
                Some(op) => format!("{}{sep}{}", Msg::StackKernelNotSet.text(lang), Msg::StackInnocent.fill(lang, &[("op", op)])),
                None => Msg::StackKernelNotSet.text(lang).to_string(),
            };
        }
        LaunchBlocking::SetAfterImport => Some(Msg::StackSetAfterImport),
        LaunchBlocking::SetAfterCuda => Some(Msg::StackSetAfterCuda),
        LaunchBlocking::Ignored => Some(Msg::StackIgnored),
        _ => None,
    };
    let why = match &s.innocent_op {
        Some(op) => Msg::StackInnocent.fill(lang, &[("op", op)]),
        // No traceback: nothing to distrust (PyTorch's hint lines speak of a traceback not here).
        None if !has_frames => Msg::StackNoTraceback.text(lang).to_string(),
        None if s.async_note => Msg::StackAsync.text(lang).to_string(),
        None => Msg::StackUnsure.text(lang).to_string(),
    };
    match late {
        // Chinese sentences follow one another without a space.
        Some(m) => format!("{}{}{why}", m.text(lang), if lang == Lang::Zh { "" } else { " " }),
        None => why,
    }
}

/// A note in `lang` (a note names at most two values).
fn note(n: &NoteFinding, lang: Lang) -> Note {
    let mut words = [("", String::new()), ("", String::new())];
    for (w, (key, arg)) in words.iter_mut().zip(&n.args) {
        *w = (
            key,
            match arg {
                Arg::Num(n) => n.to_string(),
                Arg::Text(t) => t.clone(),
                Arg::At(at) => location(lang, at),
                Arg::Said(m) => m.text(lang).to_string(),
            },
        );
    }
    let [(k0, w0), (k1, w1)] = &words;
    let args: [(&str, &dyn std::fmt::Display); 2] = [(k0, w0), (k1, w1)];
    Note { id: n.id.to_string(), text: n.msg.fill(lang, &args[..n.args.len().min(2)]) }
}

/// What another kind of CUDA error usually means.
fn other_explanation(kind: &str) -> Msg {
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

/// Writes where each place of the report is, in its language (`where` in the JSON): the page,
/// the Markdown and the text report show these words and never work them out again.
fn word_places(r: &mut Report, blamed: Option<&Location>) {
    let lang = r.lang;
    let word = |place: &mut String, at: &Location| *place = location(lang, at);
    if let Some(f) = &mut r.first_assert {
        word(&mut f.place, &f.at);
    }
    if let Some(h) = &mut r.raised_at {
        word(&mut h.place, &h.at);
        if let (Some(f), Some(at)) = (&mut h.user_frame, blamed) {
            f.place = code_location(lang, at);
        }
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
    if let Some(rc) = &mut r.root_cause {
        word(&mut rc.place, &rc.at);
    }
    for e in &mut r.other_errors {
        word(&mut e.place, &e.at);
    }
    if let Some(c) = &mut r.confirmation {
        c.place = c.line.as_deref().and_then(|l| kernel_line(l, &c.at)).map_or(String::new(), |at| code_location(lang, &at));
    }
}

/// The user's line (`/tmp/ipykernel_77/2214561066.py:4  loss = …`) as a line of the cell the
/// error is in, when it ran in a kernel cell.
fn kernel_line(line: &str, at: &Location) -> Option<Location> {
    at.cell?;
    let (path, _) = line.split_once("  ").unwrap_or((line, ""));
    let (file, n) = path.rsplit_once(':')?;
    crate::facts::is_cell_file(file, false).then(|| n.trim().parse().ok()).flatten().map(|n| Location { line: n, ..*at })
}
