//! From facts to conclusions: which assert came first, which errors are its echoes, whether
//! the traceback can be trusted, what caused it, and what to do.

use crate::checklist;
use crate::facts::{Facts, HostHit, HostKind, InputContext, KernelHit, Loc, SiteAgg, TbFrame, Traceback};
use crate::probe;
use crate::report::*;
use crate::rules::{ruleset, Decision, Input};
use crate::scan::patterns::patterns;
use crate::scan::traceback::{is_library, library_name};
use crate::text::{location, Lang, Msg};

mod cause;
mod confirm;
mod convert;
mod evidence;
mod firsts;
mod mentions;
mod posterior;
mod stack;
mod words;

use crate::code::innocent_line;
use cause::*;
use convert::*;
use evidence::*;
use firsts::*;
use stack::*;
use words::*;

/// Reports listing more echoes than this keep only the first ones (and the count).
pub const MAX_ECHOES: usize = 1000;

/// How much of a cause's confidence is kept when the first assert is in a form no reader knows.
const UNPARSED_CONFIDENCE: f64 = 0.7;

/// The id of the rule used when a device-side assert shows no evidence of its cause.
pub const NO_EVIDENCE_RULE: &str = "no-evidence";

/// Draws the report from what the scan found.
/// `ctx` is what the input says beside its text (a notebook's cells, where it ran).
pub fn diagnose(mut facts: Facts, ctx: &InputContext, format: &str, lang: Lang) -> Report {
    let mentioned = mentions::set_aside(&mut facts);
    let first = Firsts::of(&facts);
    let verdict = first.verdict(&facts, ctx);
    // No assert, and the output ends in the probe's error or the CPU's: the loop closed.
    let confirmed = (verdict == Verdict::Clean).then(|| confirm::read(&facts)).flatten();
    let verdict = if confirmed.is_some() { Verdict::Confirmed } else { verdict };
    let assert = verdict == Verdict::DeviceAssert;
    let first_assert = first.first_assert(&facts);
    let (first_kernel, first_host) = (first.kernel.as_ref(), first.host);

    // Where Python raised it, and the traceback above.
    let raised_tb: Option<&Traceback> =
        first.device_hosts.iter().find_map(|h| h.traceback).and_then(|i| facts.tracebacks.get(i));
    let raised_at = first_host.map(|h| raised_at(h, raised_tb));

    // Echoes and unrelated errors.
    let first_assert_host = first_host.filter(|_| first_kernel.is_none());
    let (echoes, echo_count, other_errors) = echoes(&facts, first_assert_host, first.loc, first.device_order, lang);

    // Can the traceback be trusted? (A kernel line from a runtime log has no cell: the cell
    // that raised stands for it.)
    let stack_loc = match (first_kernel, first_host) {
        (Some(k), Some(h)) if k.loc.at.runtime_log => Some(h.loc),
        _ => first.loc,
    };
    let stack = assert.then(|| stack(&facts, ctx, stack_loc, raised_at.as_ref(), lang));
    let cause = match &confirmed {
        Some(c) => Some(confirmed_cause(c, lang)),
        None => assert.then(|| cause(&facts, ctx, first_kernel, first_host, raised_tb, stack.as_ref(), lang)),
    };
    let probe = assert.then(|| probe::probe(lang, cause.as_ref()));
    let checklist = checklist::steps(&checklist::Context {
        lang,
        verdict,
        notebook: format != "text",
        cause: cause.as_ref(),
        stack: stack.as_ref(),
        other: other_errors.first().map(|o| o.kind.as_str()),
        echo_count,
        runtime_log_step: assert && first_kernel.is_none() && facts.runtime_log.is_none() && on_colab(&facts, ctx),
        probe: probe.as_ref(),
    });
    let echo_cells = distinct_cells(&echoes);
    let mut notes =
        notes((&facts, ctx), verdict, first_kernel, first_host, raised_at.as_ref(), (echo_count, echo_cells), lang);
    notes.extend(mentions::note(&mentioned, lang));
    if let Some(o) = other_errors.first().filter(|_| verdict == Verdict::OtherCudaError) {
        if matches!(o.kind.as_str(), "launch_failure" | "illegal_address" | "hsa_exception") {
            let text = Msg::NoteAssertWithoutLine.text(lang).to_string();
            notes.push(Note { id: "assert_without_line".into(), text });
        }
    }
    let confirmation = confirmed.map(|c| c.confirmation);
    let headline = match (&confirmation, &cause) {
        (Some(c), Some(cause)) => confirmed_headline(c, cause, lang),
        _ => headline(verdict, first_kernel, first_host, cause.as_ref(), other_errors.first(), ctx.unreadable.len(), lang),
    };

    let mut report = Report {
        schema: SCHEMA,
        tool: Tool { name: "first-assert".into(), version: env!("CARGO_PKG_VERSION").into() },
        lang,
        input: input_summary(&facts, ctx, format),
        verdict,
        headline,
        first_assert,
        confirmation,
        kernel_sites: kernel_sites(&facts),
        raised_at,
        cause,
        echoes,
        echo_count,
        stack,
        other_errors,
        checklist,
        probe,
        notes,
    };
    word_places(&mut report);
    report
}
