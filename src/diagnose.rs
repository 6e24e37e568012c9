//! From facts to conclusions: which assert came first, which errors are its echoes, whether
//! the traceback can be trusted, what caused it, and what to do.

use crate::checklist;
use crate::facts::{Facts, HostHit, HostKind, KernelHit, Loc, SiteAgg, TbFrame, Traceback};
use crate::probe;
use crate::report::*;
use crate::rules::{ruleset, Decision, Input};
use crate::scan::patterns::patterns;
use crate::scan::traceback::{is_library, library_name};
use crate::text::{location, Lang, Msg};

/// Reports listing more echoes than this keep only the first ones (and the count).
pub const MAX_ECHOES: usize = 1000;

/// How much of a cause's confidence is kept when the first assert is in a form no reader knows.
const UNPARSED_CONFIDENCE: f64 = 0.7;

/// The id of the rule used when a device-side assert shows no evidence of its cause.
pub const NO_EVIDENCE_RULE: &str = "no-evidence";

/// The first assert as the scan saw it: the first kernel line and the first host line that
/// reports a device-side assert (either may be missing), and what follows from them.
struct Firsts<'a> {
    kernel: Option<KernelHit>,
    /// The kernel line's aggregate over every record of its site.
    kernel_agg: Option<&'a SiteAgg>,
    /// Every host line that reports a device-side assert, in input order.
    device_hosts: Vec<&'a HostHit>,
    host: Option<&'a HostHit>,
    /// Where the first assert is: the kernel line, else the host line.
    loc: Option<Loc>,
    /// The first moment the assert shows anywhere, kernel line or host line.
    device_order: Option<u64>,
}

impl<'a> Firsts<'a> {
    fn of(facts: &'a Facts) -> Firsts<'a> {
        let kernel = facts.first_kernel().cloned();
        let kernel_agg =
            kernel.as_ref().and_then(|k| facts.sites.iter().find(|s| s.first.loc == k.loc && s.first.site == k.site));
        let device_hosts: Vec<&HostHit> = facts.host.iter().filter(|h| h.kind == HostKind::DeviceAssert).collect();
        let host = device_hosts.first().copied();
        let loc = kernel.as_ref().map(|k| k.loc).or(host.map(|h| h.loc));
        let device_order =
            [kernel.as_ref().map(|k| k.loc.order), host.map(|h| h.loc.order)].into_iter().flatten().min();
        Firsts { kernel, kernel_agg, device_hosts, host, loc, device_order }
    }

    fn verdict(&self, facts: &Facts) -> Verdict {
        if self.kernel.is_some() || self.host.is_some() {
            Verdict::DeviceAssert
        } else if facts.host.iter().any(|h| matches!(h.kind, HostKind::Other(_))) {
            Verdict::OtherCudaError
        } else if !facts.unreadable.is_empty() {
            Verdict::Unreadable
        } else {
            Verdict::Clean
        }
    }

    /// The report's first assert: the kernel line, else the host line that reports it.
    fn first_assert(&self, facts: &Facts) -> Option<FirstAssert> {
        match (&self.kernel, self.host) {
            (Some(k), _) => Some(kernel_first_assert(k, self.kernel_agg, facts)),
            (None, Some(h)) => Some(FirstAssert {
                text: h.quote.text.clone(),
                text_truncated: h.quote.truncated,
                at: h.loc.at,
                end_line: None,
                kind: AssertKind::HostError,
                dialect: h.dialect.to_string(),
                site: None,
                repeats: None,
                offending: h.offending.clone(),
                context: context_lines(&facts.host_context),
            }),
            (None, None) => None,
        }
    }
}

/// Draws the report from what the scan found.
pub fn diagnose(facts: Facts, format: &str, lang: Lang) -> Report {
    let first = Firsts::of(&facts);
    let verdict = first.verdict(&facts);
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
    let stack = assert.then(|| stack(&facts, stack_loc, raised_at.as_ref(), lang));
    let cause = assert.then(|| cause(&facts, first_kernel, first_host, raised_tb, stack.as_ref(), lang));
    let probe = assert.then(|| probe::probe(lang, cause.as_ref()));
    let checklist = checklist::steps(&checklist::Context {
        lang,
        verdict,
        notebook: format != "text",
        cause: cause.as_ref(),
        stack: stack.as_ref(),
        other: other_errors.first().map(|o| o.kind.as_str()),
        echo_count,
        runtime_log_step: assert && first_kernel.is_none() && facts.runtime_log.is_none() && on_colab(&facts),
        probe: probe.as_ref(),
    });
    let echo_cells = distinct_cells(&echoes);
    let mut notes =
        notes(&facts, verdict, first_kernel, first_host, raised_at.as_ref(), (echo_count, echo_cells), lang);
    if let Some(o) = other_errors.first().filter(|_| verdict == Verdict::OtherCudaError) {
        if matches!(o.kind.as_str(), "launch_failure" | "illegal_address" | "hsa_exception") {
            let text = Msg::NoteAssertWithoutLine.text(lang).to_string();
            notes.push(Note { id: "assert_without_line".into(), text });
        }
    }
    let headline =
        headline(verdict, first_kernel, first_host, cause.as_ref(), other_errors.first(), facts.unreadable.len(), lang);

    Report {
        schema: SCHEMA,
        tool: Tool { name: "first-assert".into(), version: env!("CARGO_PKG_VERSION").into() },
        lang,
        input: input_summary(&facts, format),
        verdict,
        headline,
        first_assert,
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
    }
}

/// The later CUDA errors: echoes of the first assert (at most [`MAX_ECHOES`] listed, all
/// counted) and the errors that are not (each explained). `first` is the host line that is
/// itself the first assert, when no kernel line is.
fn echoes(
    facts: &Facts,
    first: Option<&HostHit>,
    first_loc: Option<Loc>,
    first_device_order: Option<u64>,
    lang: Lang,
) -> (Vec<Echo>, u64, Vec<OtherError>) {
    let mut echoes = Vec::new();
    let mut echo_count = 0u64;
    let mut other_errors = Vec::new();
    for h in &facts.host {
        if first.is_some_and(|f| std::ptr::eq(f, h)) {
            continue;
        }
        let same_cell = first_loc.is_some_and(|f| f.at.cell.is_some() && f.at.cell == h.loc.at.cell);
        let is_echo = match first_device_order {
            Some(o) => h.kind == HostKind::DeviceAssert || h.loc.order > o || same_cell,
            None => false,
        };
        if is_echo {
            echo_count += 1;
            if echoes.len() < MAX_ECHOES {
                echoes.push(Echo {
                    text: h.quote.text.clone(),
                    at: h.loc.at,
                    kind: kind_id(h.kind).to_string(),
                    exception: h.exception.clone(),
                });
            }
        } else if let HostKind::Other(k) = h.kind {
            if other_errors.len() < MAX_ECHOES {
                other_errors.push(OtherError {
                    kind: k.to_string(),
                    text: h.quote.text.clone(),
                    at: h.loc.at,
                    exception: h.exception.clone(),
                    explanation: other_explanation(k).text(lang).to_string(),
                });
            }
        }
    }
    // Echoes the scan only counted (beyond its storage limit) are echoes too.
    if first_device_order.is_some() {
        echo_count += facts.host_total.saturating_sub(facts.host.len() as u64);
    }
    (echoes, echo_count, other_errors)
}

/// How many cells the echoes are in (the first assert's own cell counts only when an echo is
/// there too).
fn distinct_cells(echoes: &[Echo]) -> usize {
    let mut cells: Vec<u32> = Vec::new();
    for c in echoes.iter().filter_map(|e| e.at.cell) {
        if !cells.contains(&c) {
            cells.push(c);
        }
    }
    cells.len()
}

/// The cause the evidence points at, with the other causes it leaves open.
fn cause(
    facts: &Facts,
    first_kernel: Option<&KernelHit>,
    first_host: Option<&HostHit>,
    raised_tb: Option<&Traceback>,
    stack: Option<&Stack>,
    lang: Lang,
) -> Cause {
    let rs = ruleset();
    let input = rule_input(facts, first_kernel, raised_tb, first_host, stack);
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

/// Every distinct assertion site, with the rule that explains it.
fn kernel_sites(facts: &Facts) -> Vec<KernelSiteCount> {
    let rs = ruleset();
    facts
        .sites
        .iter()
        .map(|s| {
            let m = rs.site_rule(&s.first.site, s.first.site.name.as_deref());
            KernelSiteCount {
                site: s.first.site.clone(),
                count: s.records(),
                first: s.first.loc.at,
                rule: m.map(|m| rs.rules[m.rule].id.to_string()),
                category: m.map(|m| rs.rules[m.rule].category),
            }
        })
        .collect()
}

fn input_summary(facts: &Facts, format: &str) -> InputSummary {
    InputSummary {
        format: format.to_string(),
        bytes: facts.stats.bytes,
        lines: facts.stats.lines,
        cells: facts.cell_count,
        lossy_utf8: facts.stats.lossy_utf8,
        nul_bytes: facts.stats.nul_bytes,
        long_lines: facts.stats.long_lines,
        runtime_log: facts.runtime_log.map(|l| RuntimeLogSummary {
            form: l.form.to_string(),
            rows: l.rows,
            total: l.total,
            newest_first: l.newest_first,
        }),
        unreadable_cells: facts.unreadable.clone(),
    }
}

fn kernel_first_assert(k: &KernelHit, agg: Option<&SiteAgg>, facts: &Facts) -> FirstAssert {
    FirstAssert {
        text: k.quote.text.clone(),
        text_truncated: k.quote.truncated,
        at: k.loc.at,
        end_line: k.end_line,
        kind: if k.dialect == "dsa" { AssertKind::DsaReport } else { AssertKind::KernelAssert },
        dialect: k.dialect.to_string(),
        site: Some(k.site.clone()),
        repeats: agg.map(|a| Repeats {
            count: a.records(),
            blocks: a.blocks.len() as u64,
            threads: a.threads.len() as u64,
            block_range: a.block_range,
            thread_range: a.thread_range,
            last_line: a.last_line,
        }),
        offending: agg.and_then(|a| a.offending.clone()),
        context: context_lines(&facts.kernel_context),
    }
}

fn context_lines(v: &[(u64, String)]) -> Vec<ContextLine> {
    v.iter().map(|(line, text)| ContextLine { line: *line, text: text.clone() }).collect()
}

fn kind_id(k: HostKind) -> &'static str {
    match k {
        HostKind::DeviceAssert => "device_assert",
        HostKind::Other(o) => o,
    }
}

fn frame(f: &TbFrame) -> Frame {
    let user = !f.path.is_empty() && !is_library(&f.path);
    Frame {
        file: f.path.clone(),
        line: f.line,
        function: f.func.clone(),
        code: f.code.as_ref().map(|c| c.0.clone()),
        user,
        library: if user { None } else { library_name(&f.path) },
    }
}

fn raised_at(h: &HostHit, tb: Option<&Traceback>) -> RaisedAt {
    let frames: Vec<Frame> = tb
        .map(|t| t.frames.iter().filter(|f| !f.path.is_empty() || f.code.is_some()).map(frame).collect())
        .unwrap_or_default();
    let user_frame = frames.iter().rev().find(|f| f.user).cloned();
    let op_frame = frames.last().cloned();
    let frames = if frames.len() > 64 { frames[frames.len() - 64..].to_vec() } else { frames };
    RaisedAt { text: h.quote.text.clone(), at: h.loc.at, exception: h.exception.clone(), user_frame, op_frame, frames }
}

/// Calls that cannot fire a device-side assert: they read, move, print, reduce or create data,
/// or step an optimizer. A line whose every call is one of these only *reports* an assert that
/// happened earlier (CUDA reports kernel errors at the next synchronising call).
const INNOCENT_CALLS: &[&str] = &[
    "item",
    "cpu",
    "tolist",
    "numpy",
    "to",
    "cuda",
    "print",
    "float",
    "int",
    "len",
    "str",
    "repr",
    "format",
    "sum",
    "mean",
    "std",
    "eq",
    "ne",
    "gt",
    "lt",
    "argmax",
    "argmin",
    "max",
    "min",
    "abs",
    "round",
    "detach",
    "clone",
    "copy_",
    "half",
    "double",
    "long",
    "bool",
    "append",
    "extend",
    "all",
    "any",
    "backward",
    "step",
    "zero_grad",
    "synchronize",
    "empty_cache",
    "_cuda_emptyCache",
    "manual_seed",
    "manual_seed_all",
    "memory_allocated",
    "memory_reserved",
    "tensor",
    "as_tensor",
    "from_numpy",
    "zeros",
    "ones",
    "empty",
    "full",
    "zeros_like",
    "ones_like",
    "rand",
    "randn",
    "randint",
    "arange",
    "stack",
    "cat",
    "view",
    "reshape",
    "squeeze",
    "unsqueeze",
    "permute",
    "transpose",
    "contiguous",
    "expand_as",
    "expand",
    "flatten",
    "relu",
    "sigmoid",
    "softmax",
    "exp",
    "log",
    "sqrt",
    "pow",
    "mul",
    "add",
    "sub",
    "div",
    "mul_",
    "add_",
    "addcmul_",
    "addcdiv_",
    "isnan",
    "isinf",
    "range",
    "enumerate",
    "zip",
    "isinstance",
    "update",
    "manual_seed",
    "set_device",
    "_apply",
    "convert",
    "clip_grad_norm_",
    "apply_",
    "fill_",
    "zero_",
    "requires_grad_",
    "write",
    "save",
    "savez",
    "numel",
    "size",
    "dim",
    "float_",
    "t",
    "is_floating_point",
    "is_complex",
    "type",
    "get",
    "keys",
    "items",
    "values",
];

/// True when every call on a source line is in [`INNOCENT_CALLS`] and nothing on it indexes
/// with a variable (`x[idx]` can assert; slices such as `x[:k]` cannot).
fn innocent_line(code: &str) -> bool {
    let p = patterns();
    let code = code.split(" #").next().unwrap_or(code);
    if ruleset().names_asserting_op(code) {
        return false;
    }
    let mut calls = 0;
    for c in p.call.captures_iter(code) {
        if c.name("sub").is_some() {
            return false;
        }
        let name = c["name"].rsplit('.').next().unwrap_or("");
        if !INNOCENT_CALLS.contains(&name) {
            return false;
        }
        calls += 1;
    }
    let indexes = p.subscript.captures_iter(code).any(|c| {
        let inner = &c["inner"];
        !inner.contains(':') && inner.chars().any(|ch| ch.is_ascii_alphabetic() || ch == '_')
    });
    calls > 0 && !indexes
}

/// The code line the user sees blamed, if it only reads, moves or prints data.
fn innocent_op(r: &RaisedAt) -> Option<String> {
    // The deepest frame decides first: if the op it runs can assert, nothing above is innocent.
    if let Some(code) = r.op_frame.as_ref().and_then(|f| f.code.as_deref()) {
        if ruleset().names_asserting_op(code) {
            return None;
        }
    }
    let f = r.user_frame.as_ref().or(r.op_frame.as_ref())?;
    let code = f.code.as_deref()?;
    innocent_line(code).then(|| code.trim().to_string())
}

fn stack(facts: &Facts, first: Option<Loc>, raised: Option<&RaisedAt>, lang: Lang) -> Stack {
    let async_note = !facts.async_notes.is_empty();
    let (launch_blocking, at) = launch_blocking(facts, first, async_note);
    let innocent = raised.and_then(innocent_op);
    let has_frames = raised.is_some_and(|r| !r.frames.is_empty());
    let trustworthy = launch_blocking == LaunchBlocking::Set && !async_note && innocent.is_none() && has_frames;
    let explanation = if trustworthy {
        Msg::StackTrusted.text(lang).to_string()
    } else {
        let mut parts = Vec::new();
        match launch_blocking {
            LaunchBlocking::SetAfterImport => parts.push(Msg::StackSetAfterImport.text(lang).to_string()),
            LaunchBlocking::SetAfterCuda => parts.push(Msg::StackSetAfterCuda.text(lang).to_string()),
            LaunchBlocking::Ignored => parts.push(Msg::StackIgnored.text(lang).to_string()),
            _ => {}
        }
        if let Some(op) = &innocent {
            parts.push(Msg::StackInnocent.fill(lang, &[("op", op)]));
        } else if async_note {
            parts.push(Msg::StackAsync.text(lang).to_string());
        } else if !has_frames {
            parts.push(Msg::StackNoTraceback.text(lang).to_string());
        } else {
            parts.push(Msg::StackUnsure.text(lang).to_string());
        }
        // Pushed, not `join`: the package then has no copy of `join` for `String` (1.2 KB).
        let mut text = String::new();
        for p in &parts {
            if !text.is_empty() && lang != Lang::Zh {
                text.push(' ');
            }
            text.push_str(p);
        }
        text
    };
    Stack { trustworthy, async_note, launch_blocking, launch_blocking_at: at, innocent_op: innocent, explanation }
}

/// What is known about `CUDA_LAUNCH_BLOCKING` before the first assert.
fn launch_blocking(facts: &Facts, first: Option<Loc>, async_note: bool) -> (LaunchBlocking, Option<Location>) {
    let p = patterns();
    let first_order = first.map_or(u64::MAX, |l| l.order);
    // Notebook cells, in run order: where it was set, where torch was imported, where CUDA
    // was first used.
    let mut cells: Vec<_> = facts.cells.iter().filter(|c| c.execution_count.is_some()).collect();
    crate::order::sort_by_key(&mut cells, |c| (c.order, 0));
    let first_cell_exec = first.and_then(|l| l.at.execution_count);
    let mut set_at: Option<(usize, usize, Location)> = None;
    let mut import_at: Option<(usize, usize)> = None;
    let mut cuda_at: Option<(usize, usize)> = None;
    for (ci, c) in cells.iter().enumerate() {
        if first_cell_exec.is_some_and(|e| c.execution_count.is_some_and(|x| x > e)) {
            break;
        }
        for (li, line) in c.source.lines().enumerate() {
            let code = line.split('#').next().unwrap_or("");
            if set_at.is_none() && p.sets_launch_blocking(line) {
                set_at = Some((
                    ci,
                    li,
                    Location {
                        line: li as u64 + 1,
                        cell: Some(c.index),
                        output: None,
                        execution_count: c.execution_count,
                        runtime_log: false,
                    },
                ));
            }
            if import_at.is_none() && p.imports_torch_in(code) {
                import_at = Some((ci, li));
            }
            if cuda_at.is_none() && p.uses_cuda_in(code) {
                cuda_at = Some((ci, li));
            }
        }
    }
    if let Some((ci, li, at)) = set_at {
        let state = if async_note {
            LaunchBlocking::Ignored
        } else if cuda_at.is_some_and(|c| c < (ci, li)) {
            LaunchBlocking::SetAfterCuda
        } else if import_at.is_some_and(|i| i < (ci, li)) {
            LaunchBlocking::SetAfterImport
        } else {
            LaunchBlocking::Set
        };
        // An async note proves PyTorch did not see it; the cell order says why.
        let state = match (state, async_note) {
            (LaunchBlocking::Ignored, true) if cuda_at.is_some_and(|c| c < (ci, li)) => LaunchBlocking::SetAfterCuda,
            (LaunchBlocking::Ignored, true) if import_at.is_some_and(|i| i < (ci, li)) => {
                LaunchBlocking::SetAfterImport
            }
            (s, _) => s,
        };
        return (state, Some(at));
    }
    if let Some(m) = facts.launch_blocking.iter().find(|m| m.loc.order < first_order) {
        let state = if async_note { LaunchBlocking::Ignored } else { LaunchBlocking::Set };
        return (state, Some(m.loc.at));
    }
    (LaunchBlocking::NotSet, None)
}

fn rule_input<'a>(
    facts: &'a Facts,
    kernel: Option<&'a KernelHit>,
    tb: Option<&'a Traceback>,
    raised: Option<&'a HostHit>,
    stack: Option<&Stack>,
) -> Input<'a> {
    // Without a kernel line, the file an old build's host message names is a site too.
    let host_site = raised.and_then(|h| h.site.as_ref().map(|s| (s, None, h.loc)));
    let mut input = Input {
        site: kernel.map(|k| (&k.site, k.site.name.as_deref(), k.loc)).or(host_site),
        messages: &facts.messages,
        checks: &facts.checks,
        trusted_trace: stack.is_some_and(|s| s.trustworthy),
        ..Input::default()
    };
    if let Some(tb) = tb {
        input.frames = tb.frames.iter().rev().filter(|f| !f.func.is_empty()).collect();
        // In PyTorch's own innermost frame the line shown is the call into the op
        // (`torch._C._nn.nll_loss2d(…)` inside `cross_entropy`): it counts as much as the frame,
        // so a rule that knows the exact op stands level with the one that knows the function.
        let frame = if input.trusted_trace { crate::rules::FRAME_TRUSTED } else { crate::rules::FRAME };
        for (depth, f) in tb.frames.iter().rev().enumerate() {
            // The op's own line speaks loudest; lines shown around it, less.
            if let Some((c, at)) = &f.code {
                let w = match depth {
                    0 if library_name(&f.path).as_deref() == Some("torch") => (frame / crate::rules::CODE).max(1.25),
                    0 => 1.25,
                    _ => 1.0,
                };
                input.code.push((c.as_str(), *at, w));
            }
            for (c, at) in &f.context {
                input.code.push((c.as_str(), *at, 0.8));
            }
        }
        // The op that raised, when it cannot assert by itself (a device move, a read): the
        // evidence of an echo.
        if let Some(op) = tb.frames.last().and_then(|f| f.code.as_ref().map(|(c, at)| (c.as_str(), *at))) {
            if innocent_line(op.0) {
                input.raised = Some(op);
            }
        }
    }
    // The source of the cell that raised the error, and (with less weight) of the cells that
    // ran before it: what the notebook set up (a loss, a tokenizer change) is evidence too.
    if let Some(cell) = raised.and_then(|h| h.loc.at.cell) {
        let raised_order = facts.cells.iter().find(|c| c.index == cell).map(|c| c.order);
        for src in &facts.cells {
            let weight = if src.index == cell {
                0.7
            } else if raised_order.is_some_and(|o| src.order < o) {
                0.45
            } else {
                continue;
            };
            for (i, line) in src.source.lines().enumerate() {
                let t = line.trim();
                if t.is_empty() || t.starts_with('#') {
                    continue;
                }
                let loc = Loc {
                    order: 0,
                    at: Location {
                        line: i as u64 + 1,
                        cell: Some(src.index),
                        output: None,
                        execution_count: src.execution_count,
                        runtime_log: false,
                    },
                    time: None,
                };
                input.code.push((line, loc, weight));
            }
        }
    }
    input
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

fn headline(
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
                Some(c) if c.rule != NO_EVIDENCE_RULE => Msg::HeadlineCause.fill(lang, &[("cause", &c.title)]),
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
        Verdict::Clean => Msg::HeadlineClean.text(lang).to_string(),
        Verdict::Unreadable => Msg::HeadlineUnreadable.fill(lang, &[("n", &unreadable)]),
    }
}

/// Whether the input ran on Colab: the notebook or the caller says so, or its traceback shows
/// Colab's paths (`/content/…`, or a cell's frame beside `/usr/local/lib/python3.N/dist-packages`:
/// a cell's file took five forms in 2025-26, from `<ipython-input-N-HEX>` to
/// `/tmp/ipykernel_PID/HASH.py`).
fn on_colab(facts: &Facts) -> bool {
    if facts.host_env == Some("colab") {
        return true;
    }
    let frames = || facts.tracebacks.iter().flat_map(|t| t.frames.iter());
    let cell = |p: &str| ["<ipython-input-", "/tmp/ipython-input-", "/tmp/ipykernel_"].iter().any(|c| p.starts_with(c));
    frames().any(|f| f.path.starts_with("/content/"))
        || (frames().any(|f| f.path.starts_with("/usr/local/lib/python3") && f.path.contains("/dist-packages/"))
            && frames().any(|f| cell(&f.path)))
}

fn notes(
    facts: &Facts,
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
        } else if on_colab(facts) && !hip {
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
    if verdict == Verdict::Clean {
        if let Some((name, msg, loc)) = &facts.last_exception {
            let cpu = patterns().cpu_twin.is_match(msg) || patterns().cpu_twin.is_match(name);
            let text = if cpu {
                Msg::NoteCpuTwin.fill(lang, &[("error", &format!("{name}: {msg}")), ("line", &loc.at.line)])
            } else {
                Msg::NotePythonError.fill(lang, &[("error", &format!("{name}: {msg}")), ("line", &loc.at.line)])
            };
            add(if cpu { "cpu_twin" } else { "python_error" }, text);
        }
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

#[cfg(test)]
mod tests {
    use super::innocent_line;

    #[test]
    fn lines_that_only_read_or_move_data_are_innocent() {
        for l in [
            "running += loss.item()",
            "total_loss += loss.item() * batch_size",
            "correct = torch.eq(y_true, y_pred).sum().item()",
            "correct_k = correct[:k].view(-1).float().sum(0)",
            "loss.backward()",
            "print(loss.item())",
            "return self._apply(lambda t: t.cpu())",
            "optimizer.step()",
        ] {
            assert!(innocent_line(l), "{l}");
        }
    }

    #[test]
    fn lines_that_run_a_model_a_loss_or_an_index_are_not() {
        for l in [
            "out = emb(ids.cuda())",
            "loss = criterion(logits, y)",
            "logits = model(x.to(device))",
            "x = F.relu(self.conv_layers[i](x))",
            "y = table[idx].sum()",
            "loss = F.cross_entropy(out, y).item()",
            "x = y",
        ] {
            assert!(!innocent_line(l), "{l}");
        }
    }
}
