//! From facts to conclusions: which assert came first, which errors are its echoes, whether
//! the traceback can be trusted, what caused it, and what to do.

use crate::facts::{CellSource, Facts, HostHit, HostKind, InputContext, KernelHit, Loc, SiteAgg, TbFrame, Traceback};
use crate::findings::{Arg, Findings, Headline, Keys, NoteFinding, Source, StepsContext};
use crate::report::*;
use crate::rules::{ruleset, Decision, Input, NO_EVIDENCE_RULE};
use crate::scan::patterns::patterns;
use crate::scan::traceback::{is_library, library_name};
use crate::text::Msg;

mod cause;
mod confirm;
mod convert;
mod evidence;
mod firsts;
mod mentions;
mod notes;
mod posterior;
mod stack;

use crate::code::innocent_line;
use cause::*;
use convert::*;
use evidence::*;
use firsts::*;
use notes::*;
use stack::*;

/// Reports listing more echoes than this keep only the first ones (and the count).
pub const MAX_ECHOES: usize = 1000;

/// How much of a cause's confidence is kept when the first assert is in a form no reader knows.
const UNPARSED_CONFIDENCE: f64 = 0.7;

/// Draws the findings from what the scan found: every decision, no word (`words::report`
/// words them). `ctx` is what the input says beside its text (a notebook's cells, where it ran).
pub fn diagnose(mut facts: Facts, ctx: &InputContext, format: InputFormat) -> Findings {
    let mentioned = mentions::set_aside(&mut facts);
    let first = Firsts::of(&facts);
    let verdict = first.verdict(&facts, ctx);
    // No assert, and the output ends in the probe's error or the CPU's: the loop closed.
    let confirmed = (verdict == Verdict::Clean).then(|| confirm::read(&facts)).flatten();
    let verdict = if confirmed.is_some() { Verdict::Confirmed } else { verdict };
    let assert = verdict == Verdict::DeviceAssert;
    let mut first_assert = first.first_assert(&facts);
    let (first_kernel, first_host) = (first.kernel.as_ref(), first.host);
    // A person's words about the error (their sentence holds the host error, or quotes the
    // kernel's record): no output, so no traceback to place or judge.
    let described = match first_kernel {
        Some(_) => facts.kernel_described,
        None => first_host.is_some_and(|h| h.described),
    };
    if let Some(f) = first_assert.as_mut().filter(|_| described) {
        f.kind = AssertKind::Described;
    }

    // Where Python raised it, and the traceback above.
    let raised_tb: Option<&Traceback> =
        first.device_hosts.iter().find_map(|h| h.traceback).and_then(|i| facts.tracebacks.get(i));
    let raised_at = first_host.filter(|_| !described).map(|h| raised_at(h, raised_tb));
    let blamed_cell = first_host.filter(|_| !described).and_then(|h| blamed_cell(h, raised_tb, &ctx.cells));

    // Echoes and unrelated errors. The first host line that reports the assert is its report
    // (Python raising it), not an echo, whether or not a kernel line came before it.
    let (echoes, echo_count, other_errors) = echoes(&facts, first_host, first.loc, first.device_order);

    // Can the traceback be trusted? (A kernel line from a runtime log has no cell: the cell
    // that raised stands for it.)
    let stack_loc = match (first_kernel, first_host) {
        (Some(k), Some(h)) if k.loc.at.runtime_log => Some(h.loc),
        _ => first.loc,
    };
    let stack = (assert && !described).then(|| stack(&facts, ctx, stack_loc, raised_at.as_ref()));
    let (cause, cause_site) = match &confirmed {
        Some(c) => (Some(confirmed_cause(c)), None),
        None if assert => {
            let (cause, site) = cause(&facts, ctx, first_kernel, first_host, raised_tb, stack.as_ref());
            (Some(cause), site)
        }
        None => (None, None),
    };
    let (source, source_guessed) = source(&facts, ctx, format, assert);
    let steps = StepsContext {
        source,
        source_guessed,
        // On Colab, or a notebook's error pasted alone (Colab's, most often).
        runtime_log_step: assert
            && first_kernel.is_none()
            && facts.runtime_log.is_none()
            && (source_guessed || on_colab(&facts, ctx)),
        compiled: assert && compiled(ctx),
        index: ctx.index.clone(),
    };
    let echo_cells = distinct_cells(&echoes);
    let mut notes =
        notes((&facts, ctx), verdict, first_kernel, first_host, raised_at.as_ref(), (echo_count, echo_cells));
    notes.extend(mentions::note(&mentioned));
    // torchrun's own word on which rank failed first (whole seconds: ties said as ties).
    let root_cause = crate::scan::elastic::read(&facts.elastic);
    if let Some((rc, rank)) = root_cause.as_ref().and_then(|rc| Some((rc, rc.rank?))) {
        notes.push(NoteFinding {
            id: "torchrun_root_cause",
            msg: Msg::NoteTorchrunRootCause,
            args: vec![("rank", Arg::Num(rank.into())), ("time", Arg::Text(rc.time.clone()))],
        });
        let mut ties = String::new();
        for r in &rc.ties {
            ties += if ties.is_empty() { "" } else { ", " };
            ties += &r.to_string();
        }
        if !ties.is_empty() {
            notes.push(NoteFinding { id: "torchrun_ties", msg: Msg::NoteTorchrunTies, args: vec![("ranks", Arg::Text(ties))] });
        }
    }
    if let Some(o) = other_errors.first().filter(|_| verdict == Verdict::OtherCudaError) {
        if matches!(o.kind.as_str(), "launch_failure" | "illegal_address" | "hsa_exception") {
            notes.push(NoteFinding::plain("assert_without_line", Msg::NoteAssertWithoutLine));
        }
    }
    let headline = match verdict {
        Verdict::DeviceAssert => match (first_kernel, first_host) {
            (Some(k), _) if described => Headline::Described { at: k.loc.at },
            (Some(k), _) => Headline::Kernel { site: site_label(k), at: k.loc.at },
            (None, Some(h)) if described => Headline::Described { at: h.loc.at },
            (None, Some(h)) => Headline::Host { at: h.loc.at, mps: h.dialect == "mps" },
            _ => Headline::Nothing,
        },
        Verdict::OtherCudaError => {
            let o = other_errors.first().expect("an other error");
            Headline::Other { text: o.text.clone(), at: o.at }
        }
        Verdict::Clean | Verdict::Confirmed => Headline::Clean,
        Verdict::Unreadable => Headline::Unreadable(ctx.unreadable.len()),
    };

    let report = Report {
        schema: SCHEMA,
        tool: Tool { name: "first-assert".into(), version: env!("CARGO_PKG_VERSION").into() },
        lang: Default::default(),
        input: input_summary(&facts, ctx, format, steps.source),
        verdict,
        headline: String::new(),
        first_assert,
        confirmation: confirmed.map(|c| c.confirmation),
        kernel_sites: kernel_sites(&facts),
        raised_at,
        cause,
        echoes,
        echo_count,
        stack,
        other_errors,
        checklist: Vec::new(),
        probe: None,
        notes: Vec::new(),
        root_cause,
    };
    Findings { report, keys: Keys { cause_site, headline, steps, notes, blamed_cell } }
}

/// Whether `torch.compile` is in use: the kernel saw it compile a graph, or a cell's code calls
/// it (not in a comment).
fn compiled(ctx: &InputContext) -> bool {
    ctx.kernel.as_ref().is_some_and(|k| k.compiled)
        || ctx.cells.iter().flat_map(|c| c.source.lines()).any(|l| {
            let code = l.split('#').next().unwrap_or("");
            code.contains("torch.compile(") || code.trim_start().starts_with("@torch.compile")
        })
}

/// Where the output came from: a notebook (its cells, or a notebook's frames in a pasted
/// traceback), a multi-process launch or server (its workers' prefixes and frames), else a script;
/// and whether it was guessed: output with nothing of a script in it (no traceback frame, no
/// kernel line, no command setting CUDA_LAUNCH_BLOCKING, no NCCL rank's line) is most often a
/// notebook's error pasted on its own, so an assert (whose steps it decides) gets a notebook's.
fn source(facts: &Facts, ctx: &InputContext, format: InputFormat, assert: bool) -> (Source, bool) {
    let frames = || facts.tracebacks.iter().flat_map(|t| t.frames.iter());
    if format.from_notebook() || ctx.host == Some("colab") || frames().any(|f| crate::facts::is_cell_file(&f.path, true)) {
        (Source::Notebook, false)
    } else if facts.launcher {
        (Source::Launch, false)
    } else if assert
        && frames().next().is_none()
        && facts.kernel_records == 0
        && facts.launch_blocking.is_empty()
        && !facts.host.iter().any(|h| h.dialect.starts_with("nccl"))
    {
        (Source::Notebook, true)
    } else {
        (Source::Script, false)
    }
}
