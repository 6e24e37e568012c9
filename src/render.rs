//! The human-readable report, in the style of rustc's diagnostics.
//!
//! Rendering is a function from a [`Report`] to a `String`; the CLI prints it. Everything that
//! comes from the input goes through [`sanitize`](crate::sanitize::sanitize) first, so that escape sequences or control
//! characters in a log can never reach a terminal raw.

use crate::report::*;
use crate::text::{Lang, Msg};
use std::fmt::Write as _;

/// How to render.
#[derive(Clone, Debug, Default)]
pub struct TextOptions {
    /// Use ANSI colours.
    pub color: bool,
    /// The input's name, shown in `--> name:line`.
    pub source: Option<String>,
    /// The name of the runtime log read beside the input, for places in it.
    pub log_source: Option<String>,
    /// Show what is for the project's people (the rule that matched).
    pub verbose: bool,
}

pub use crate::sanitize::sanitize;

struct Style {
    on: bool,
}

impl Style {
    fn paint(&self, code: &str, s: &str) -> String {
        if self.on {
            format!("\x1b[{code}m{s}\x1b[0m")
        } else {
            s.to_string()
        }
    }
    fn error(&self, s: &str) -> String {
        self.paint("1;31", s)
    }
    fn warn(&self, s: &str) -> String {
        self.paint("1;33", s)
    }
    fn ok(&self, s: &str) -> String {
        self.paint("1;32", s)
    }
    fn label(&self, s: &str) -> String {
        self.paint("1;34", s)
    }
    fn bold(&self, s: &str) -> String {
        self.paint("1", s)
    }
    fn dim(&self, s: &str) -> String {
        self.paint("2", s)
    }
    fn code(&self, s: &str) -> String {
        self.paint("36", s)
    }
}

/// Clips text for one terminal line.
fn short(s: &str, max_chars: usize) -> String {
    let s = sanitize(s.trim_end());
    if s.chars().count() <= max_chars {
        return s;
    }
    let mut t: String = s.chars().take(max_chars).collect();
    t.push('…');
    t
}

/// Renders the report as text.
pub fn text(r: &Report, o: &TextOptions) -> String {
    let st = Style { on: o.color };
    let l = r.lang;
    let mut out = String::new();
    let source = o.source.clone().unwrap_or_else(|| "<stdin>".into());
    headline(&mut out, &st, r);
    if let Some(fa) = &r.first_assert {
        let log = o.log_source.clone().unwrap_or_else(|| "runtime log".into());
        first_assert(&mut out, &st, l, fa, if fa.at.runtime_log { &log } else { &source });
    }
    if let Some(c) = &r.confirmation {
        confirmation(&mut out, &st, l, c, &source);
    }
    if let Some(k) = r.input.kernel.as_ref().and_then(|k| kernel_facts(k, l)) {
        field(&mut out, &st, l, Msg::KernelFacts.text(l), &sanitize(&k));
    }
    if r.verdict == Verdict::OtherCudaError {
        for e in &r.other_errors {
            let _ = writeln!(out, "  {} {}", st.label("-->"), arrow(l, &source, &e.at));
            let _ = writeln!(out, "   {} {}", st.label("|"), short(&e.text, 200));
            let _ = writeln!(out, "   {} {}", st.label("="), sanitize(&e.explanation));
        }
    }
    if let Some(c) = &r.cause {
        cause(&mut out, &st, l, c, o.verbose);
    }
    if let Some(s) = &r.stack {
        stack(&mut out, &st, l, s, r.raised_at.as_ref());
    }
    if r.echo_count > 0 {
        echoes(&mut out, &st, r);
    }
    if r.verdict == Verdict::DeviceAssert && !r.other_errors.is_empty() {
        other_errors(&mut out, &st, r);
    }
    checklist(&mut out, &st, r, &source);
    if !r.notes.is_empty() {
        notes(&mut out, &st, r);
    }
    out
}

/// What the kernel saw (the notebook extension): `torch 2.11.0 · Tesla T4 · CUDA_LAUNCH_BLOCKING=1
/// when CUDA started · torch.compile in use`; `None` when it told nothing.
pub fn kernel_facts(k: &KernelFacts, l: Lang) -> Option<String> {
    let mut parts = Vec::new();
    if let Some(v) = &k.torch {
        parts.push(Msg::KernelFactTorch.fill(l, &[("version", v)]));
    }
    match (&k.device, k.launch_blocking) {
        (Some(d), _) => parts.push(d.clone()),
        (None, None) if k.torch.is_some() => parts.push(Msg::KernelFactCpu.text(l).to_string()),
        _ => {}
    }
    match (k.launch_blocking, &k.device) {
        (Some(true), _) => parts.push(Msg::KernelFactLbOn.text(l).to_string()),
        (Some(false), _) => parts.push(Msg::KernelFactLbOff.text(l).to_string()),
        (None, Some(_)) => parts.push(Msg::KernelFactLbUnknown.text(l).to_string()),
        (None, None) => {}
    }
    if k.compiled {
        parts.push(Msg::KernelFactCompiled.text(l).to_string());
    }
    (!parts.is_empty()).then(|| parts.join(" · "))
}

/// The error that confirmed the cause: where it is, the bad value, the bound, the user's line.
fn confirmation(out: &mut String, st: &Style, l: Lang, c: &Confirmation, source: &str) {
    let _ = writeln!(out, "  {} {}", st.label("-->"), arrow(l, source, &c.at));
    let _ = writeln!(out, "   {} {}", st.label("|"), short(&c.text, 200));
    let line = c.line.as_ref().map(|v| your_line(v, &c.place));
    for (label, value) in [(Msg::RenderValue, &c.value), (Msg::RenderAllowed, &c.allowed), (Msg::RenderYourLine, &line)] {
        if let Some(v) = value {
            field(out, st, l, label.text(l), &st.code(&short(v, 200)));
        }
    }
    // The probe's own clue: the values it saw and the usual cause for this bound.
    for (label, value) in [(Msg::ViewConfirmedValues, &c.values), (Msg::ViewConfirmedClue, &c.clue)] {
        if let Some(v) = value {
            field(out, st, l, &label.text(l).to_lowercase(), &indent_more(&short(v, 400), 5));
        }
    }
}

/// The user's line, its kernel file named as the cell it ran in (`cell [5], line 4  loss = …`).
pub fn your_line(line: &str, place: &str) -> String {
    match line.split_once("  ") {
        Some((_, code)) if !place.is_empty() => format!("{place}  {code}"),
        _ if !place.is_empty() => place.to_string(),
        _ => line.to_string(),
    }
}

/// The first line: the verdict's label and the headline.
fn headline(out: &mut String, st: &Style, r: &Report) {
    let text = sanitize(&r.headline);
    let (label, painted) = match r.verdict {
        Verdict::Clean => {
            let _ = writeln!(out, "{} {}", st.ok("ok:"), wrap(&text, WIDTH, 2));
            return;
        }
        Verdict::DeviceAssert => {
            let label = format!("error[{}]:", r.cause.as_ref().map_or("device_assert", |c| c.category.id()));
            let painted = st.error(&label);
            (label, painted)
        }
        Verdict::OtherCudaError => {
            let label = format!("warning[{}]:", r.other_errors.first().map_or("cuda_error", |o| o.kind.as_str()));
            let painted = st.warn(&label);
            (label, painted)
        }
        Verdict::Unreadable => ("warning[unreadable]:".to_string(), st.warn("warning[unreadable]:")),
        Verdict::Confirmed => {
            let label = format!("error[{}]:", r.cause.as_ref().map_or("confirmed", |c| c.category.id()));
            let painted = st.error(&label);
            (label, painted)
        }
    };
    let _ = writeln!(out, "{painted} {}", st.bold(&wrap_from(&text, WIDTH, 2, label.len() + 1)));
}

/// The cause section's title, by what the cause stands on: `Cause` (stated), `Likely cause`
/// (evidence, the prior), `Usually` (nothing here: the shares of this error), `Confirmed cause`.
pub fn cause_heading(c: &Cause) -> Msg {
    match c.basis {
        Basis::Stated => Msg::ViewCauseTitleStated,
        Basis::Confirmed => Msg::ViewCauseTitleConfirmed,
        Basis::None => Msg::ViewCauseTitleUsually,
        _ => Msg::ViewCauseTitle,
    }
}

/// With nothing in the output to go on: the cause most often behind this error, said as such
/// (`Cause unknown from this output — most often: A class label is out of range (42% of these
/// errors)`): the headline says what the cause's chip says, unknown, and the likeliest one.
pub fn usually(c: &Cause, l: Lang) -> Option<String> {
    let top = c.candidates.first().filter(|_| c.basis == Basis::None)?;
    let pct = (top.confidence * 100.0).round() as u32;
    Some(Msg::ViewUsually.fill(l, &[("cause", &top.title), ("pct", &pct)]))
}

/// Where a `-->` points: `train.log:13` in a log; in a notebook the place as every other part of
/// the report names it, the cell by the number the user sees (`train.ipynb, cell [3], line 13`).
fn arrow(l: Lang, source: &str, at: &Location) -> String {
    match at.cell {
        Some(_) => format!("{}{}{}", sanitize(source), if l == Lang::Zh { "，" } else { ", " }, crate::text::location(l, at)),
        None => format!("{}:{}", sanitize(source), at.line),
    }
}

/// ` (s)` after a phrase; `（s）` in Chinese.
fn paren(l: Lang, s: &str) -> String {
    match l {
        Lang::Zh => format!("（{s}）"),
        _ => format!(" ({s})"),
    }
}

/// `label: value` (`原因：值` in Chinese, no space after the full-width colon).
fn labelled(l: Lang, label: &str, value: &str) -> String {
    format!("{label}{}{value}", colon(l))
}

/// The cause: its title by what it stands on, summary, why, evidence, ops, the other candidates
/// (with nothing to go on: how often each is behind this error); the rule only when verbose.
fn cause(out: &mut String, st: &Style, l: Lang, c: &Cause, verbose: bool) {
    let _ = writeln!(out);
    // Labels are lower case in the terminal's style (`cause:`, `likely cause:`, `traceback:`).
    let head = cause_heading(c).text(l).to_lowercase();
    let head = head.as_str();
    match usually(c, l) {
        Some(u) => {
            let _ = writeln!(out, "{}", st.warn(&u));
        }
        None => {
            let pct = (c.confidence * 100.0).round() as u32;
            // A cause without evidence has no confidence worth printing.
            let sure = if pct > 0 { paren(l, &Msg::ReportConfidence.fill(l, &[("pct", &pct)])) } else { String::new() };
            let title = format!("{} — {}{sure}", st.bold(c.category.id()), st.bold(&c.title));
            let _ = writeln!(out, "{}", labelled(l, &st.warn(head), &title));
        }
    }
    if c.basis == Basis::Prior {
        let _ = writeln!(out, "   {} {}", st.label("="), indent_more(Msg::RenderBasisPrior.text(l), 5));
    }
    let _ = writeln!(out, "   {} {}", st.label("="), indent_more(&c.summary, 5));
    if !c.why.is_empty() {
        field(out, st, l, Msg::RenderWhy.text(l), &indent_more(&c.why, 6));
    }
    if !c.evidence.is_empty() {
        let head = if c.basis == Basis::Prior { Msg::RenderContext } else { Msg::RenderEvidence };
        let _ = writeln!(out, "   {} {}", st.label("="), heading(l, head.text(l)));
        for e in &c.evidence {
            let _ = writeln!(
                out,
                "       {}{} {}",
                st.dim(&labelled(l, &e.place, "")),
                st.dim(&format!("[{}]", scope_word(l, &e.scope))),
                short(&e.text, 160)
            );
        }
    }
    if !c.ops.is_empty() {
        field(out, st, l, Msg::RenderOps.text(l), &indent_more(&c.ops.join(", "), 5));
    }
    if verbose {
        field(out, st, l, Msg::RenderRule.text(l), &st.dim(&c.rule));
    }
    if c.basis == Basis::None && !c.candidates.is_empty() {
        let _ = writeln!(out, "   {} {}", st.label("="), heading(l, Msg::ViewUsualCauses.text(l)));
    }
    for k in &c.candidates {
        let pct = (k.confidence * 100.0).round() as u32;
        if c.basis == Basis::None {
            let share = paren(l, &Msg::ViewShareOfErrors.fill(l, &[("pct", &pct)]));
            let _ = writeln!(out, "     {} {} — {}{share}", st.label("-"), st.bold(k.category.id()), k.title);
        } else {
            let sure = paren(l, &Msg::ReportConfidence.fill(l, &[("pct", &pct)]));
            field(out, st, l, Msg::RenderCandidate.text(l), &format!("{} — {}{sure}", st.bold(k.category.id()), k.title));
        }
        for e in &k.evidence {
            let _ = writeln!(out, "       {}{}", st.dim(&labelled(l, &e.place, "")), short(&e.text, 160));
        }
    }
}

/// Where Python raised it, the blamed line, and whether to trust the traceback (with no
/// traceback, nothing to judge: said so, neutral).
fn stack(out: &mut String, st: &Style, l: Lang, s: &Stack, raised: Option<&RaisedAt>) {
    let _ = writeln!(out);
    let frames = raised.is_some_and(|r| !r.frames.is_empty());
    let head = match raised {
        Some(ra) if frames => Msg::RenderRaised.fill(l, &[("at", &ra.place)]),
        _ => Msg::ViewNoTraceback.text(l).to_string(),
    };
    let _ = writeln!(out, "{}", labelled(l, &st.warn(Msg::RenderTraceback.text(l)), &head));
    if let Some(ra) = raised {
        let _ = writeln!(out, "   {} {}", st.label("|"), short(&ra.text, 200));
        if let Some(f) = &ra.user_frame {
            let code = f.code.as_deref().map(|c| format!(" `{}`", short(c, 120))).unwrap_or_default();
            let file = match f.line {
                Some(n) => format!("{}:{n}", f.file),
                None => f.file.clone(),
            };
            let frame = if f.place.is_empty() {
                Msg::RenderFrame.fill(l, &[("file", &short(&file, 100)), ("function", &short(&f.function, 60))])
            } else {
                f.place.clone() // a cell's code line: by its cell, not the kernel's file for it
            };
            let value = format!("{frame}{}", st.code(&code));
            field(out, st, l, Msg::RenderBlamed.text(l), &value);
        }
    }
    if !frames {
        let _ = writeln!(out, "   {} {}", st.label("="), indent_more(&s.explanation, 5));
        return;
    }
    let tag = if s.trustworthy { st.ok(Msg::RenderTrusted.text(l)) } else { st.warn(Msg::RenderUntrusted.text(l)) };
    field(out, st, l, &tag, &indent_more(&s.explanation, 6));
}

/// The later CUDA errors that echo the first assert (the first five, and how many more).
fn echoes(out: &mut String, st: &Style, r: &Report) {
    let l = r.lang;
    let _ = writeln!(out);
    let _ = writeln!(out, "{}", st.warn(&Msg::ReportEchoes.fill(l, &[("n", &r.echo_count)])));
    for e in r.echoes.iter().take(5) {
        let _ =
            writeln!(out, "   {} {}{}", st.label("="), st.dim(&labelled(l, &e.place, "")), short(&e.text, 140));
    }
    let rest = r.echo_count.saturating_sub(5);
    if rest > 0 {
        let _ = writeln!(out, "   {} {}", st.label("="), Msg::RenderMore.fill(l, &[("n", &rest)]));
    }
}

/// The CUDA errors besides the assert and its echoes (the first five).
fn other_errors(out: &mut String, st: &Style, r: &Report) {
    let l = r.lang;
    let _ = writeln!(out);
    let _ = writeln!(out, "{}", st.warn(&heading(l, Msg::RenderOtherErrors.text(l))));
    for e in r.other_errors.iter().take(5) {
        let _ =
            writeln!(out, "   {} {}{}", st.label("="), st.dim(&labelled(l, &e.place, "")), short(&e.text, 140));
    }
}

/// The notes, one item each.
fn notes(out: &mut String, st: &Style, r: &Report) {
    let l = r.lang;
    let _ = writeln!(out);
    let _ = writeln!(out, "{}", st.label(&heading(l, Msg::RenderNotes.text(l))));
    for n in &r.notes {
        let _ = writeln!(out, "  - {}", indent_more(&sanitize(&n.text), 4));
    }
}

/// The steps, each with its code; the probe cell (a page of Python) is named by the command
/// that prints it instead.
fn checklist(out: &mut String, st: &Style, r: &Report, source: &str) {
    if r.checklist.is_empty() {
        return;
    }
    let l = r.lang;
    let _ = writeln!(out);
    let _ = writeln!(out, "{}", st.label(&heading(l, Msg::RenderSteps.text(l))));
    for (i, s) in r.checklist.iter().enumerate() {
        let mark = if s.done { st.ok("[x]") } else { "[ ]".to_string() };
        let _ = writeln!(out, "  {:>2}. {} {}", i + 1, mark, st.bold(&s.title));
        let _ = writeln!(out, "        {}", indent_more(&s.body, 8));
        if s.id == "probe" {
            let command = format!("first-assert --probe {} > probe.py", shell_word(source));
            let _ = writeln!(out, "        {}", Msg::RenderProbe.fill(l, &[("command", &st.code(&command))]));
            continue;
        }
        for line in s.code.iter().flat_map(|c| c.lines()) {
            let _ = writeln!(out, "          {}", st.code(line));
        }
    }
}

/// A path as one word of a POSIX shell command (quoted when it holds anything but the usual).
fn shell_word(s: &str) -> String {
    let s = sanitize(s);
    if s == "<stdin>" {
        return "-".into();
    }
    if !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "-_./+:@%=,".contains(c)) {
        return s;
    }
    format!("'{}'", s.replace('\'', "'\\''"))
}

fn first_assert(out: &mut String, st: &Style, l: Lang, fa: &FirstAssert, source: &str) {
    // In the input's order (a log listed newest first was read the other way round).
    let mut context = fa.context.clone();
    context.sort_by_key(|c| c.line);
    let width = fa
        .context
        .iter()
        .map(|c| c.line)
        .chain([fa.at.line, fa.end_line.unwrap_or(0)])
        .max()
        .unwrap_or(1)
        .to_string()
        .len();
    let _ = writeln!(out, "{:w$}{} {}", "", st.label("-->"), arrow(l, source, &fa.at), w = width);
    let _ = writeln!(out, "{:w$} {}", "", st.label("|"), w = width);
    for c in context.iter().filter(|c| c.line < fa.at.line) {
        let _ = writeln!(
            out,
            "{} {} {}",
            st.label(&format!("{:>w$}", c.line, w = width)),
            st.label("|"),
            st.dim(&short(&c.text, 160))
        );
    }
    let _ = writeln!(
        out,
        "{} {} {}",
        st.label(&format!("{:>w$}", fa.at.line, w = width)),
        st.label("|"),
        st.bold(&short(&fa.text, 400))
    );
    let mark = match (&fa.repeats, fa.kind) {
        (Some(r), _) if r.count > 1 => Msg::ReportRepeats.fill(
            l,
            &[
                ("count", &r.count),
                ("threads", &r.threads.max(1)),
                ("blocks", &r.blocks.max(1)),
                ("last", &r.last_line),
            ],
        ),
        (_, AssertKind::HostError) => Msg::RenderHostMark.text(l).to_string(),
        (_, AssertKind::Described) => Msg::RenderDescribedMark.text(l).to_string(),
        _ => Msg::RenderOnce.text(l).to_string(),
    };
    let _ = writeln!(out, "{:w$} {} {}", "", st.label("|"), st.error(&format!("^ {mark}")), w = width);
    let last = fa.end_line.unwrap_or(fa.at.line);
    for c in context.iter().filter(|c| c.line > last) {
        let _ = writeln!(
            out,
            "{} {} {}",
            st.label(&format!("{:>w$}", c.line, w = width)),
            st.label("|"),
            st.dim(&short(&c.text, 160))
        );
    }
    if let Some(site) = &fa.site {
        let mut s = site.file_name().to_string();
        if let Some(n) = site.line {
            let _ = write!(s, ":{n}");
        }
        if let Some(f) = &site.function {
            let _ = write!(s, " · {}", short(f, 80));
        }
        if let Some(c) = &site.condition {
            let _ = write!(s, " · `{}`", short(c, 160));
        }
        let _ = writeln!(
            out,
            "{:w$} {} {}{}{}",
            "",
            st.label("="),
            Msg::RenderSite.text(l),
            colon(l),
            sanitize(&s),
            w = width
        );
    }
    if let Some(o) = &fa.offending {
        let text =
            Msg::ReportOffending.fill(l, &[("value", &short(&o.value, 40)), ("allowed", &short(&o.allowed, 120))]);
        let _ = writeln!(out, "{:w$} {} {}", "", st.label("="), sanitize(&text), w = width);
    }
}

/// Prose is wrapped at this many terminal columns.
const WIDTH: usize = 100;

/// Wraps and indents a multi-line text: continuation lines start after `n` spaces.
fn indent_more(s: &str, n: usize) -> String {
    wrap(s, WIDTH, n)
}

/// True for characters that take two terminal columns (CJK and full-width forms).
fn wide(c: char) -> bool {
    matches!(c as u32, 0x1100..=0x115f | 0x2e80..=0xa4cf | 0xac00..=0xd7a3 | 0xf900..=0xfaff | 0xfe30..=0xfe4f | 0xff00..=0xff60 | 0xffe0..=0xffe6)
}

fn width(s: &str) -> usize {
    s.chars().map(|c| if wide(c) { 2 } else { 1 }).sum()
}

/// Wraps text at `max` columns (breaking at spaces, or between wide characters), indenting
/// continuation lines by `indent` spaces. Existing line breaks are kept.
fn wrap(text: &str, max: usize, indent: usize) -> String {
    wrap_from(text, max, indent, indent)
}

/// Like [`wrap`], for text whose first line starts at column `first` (after a label).
fn wrap_from(text: &str, max: usize, indent: usize, first: usize) -> String {
    let pad = " ".repeat(indent);
    let avail = max.saturating_sub(indent).max(20);
    let mut out = String::new();
    for (i, para) in text.lines().enumerate() {
        if i > 0 {
            out.push('\n');
            out.push_str(&pad);
        }
        // Tokens: words (split at spaces) and single wide characters.
        let mut tokens: Vec<(String, bool)> = Vec::new();
        let mut cur = String::new();
        let mut space_before = false;
        for c in para.chars() {
            if c == ' ' {
                if !cur.is_empty() {
                    tokens.push((std::mem::take(&mut cur), space_before));
                }
                space_before = true;
            } else if wide(c) {
                if !cur.is_empty() {
                    tokens.push((std::mem::take(&mut cur), space_before));
                    space_before = false;
                }
                tokens.push((c.to_string(), space_before));
                space_before = false;
            } else {
                cur.push(c);
            }
        }
        if !cur.is_empty() {
            tokens.push((cur, space_before));
        }
        // Keep CJK punctuation with its neighbour: no line starts with a closing mark or
        // ends with an opening one.
        let mut merged: Vec<(String, bool)> = Vec::with_capacity(tokens.len());
        for (t, space) in tokens {
            let closing = t.chars().all(|c| "，。、；：！？）」』”》】".contains(c));
            let after_opening = merged.last().is_some_and(|(p, _)| p.ends_with(|c: char| "（「『“《【".contains(c)));
            match merged.last_mut() {
                Some((prev, _)) if !space && (closing || after_opening) => prev.push_str(&t),
                _ => merged.push((t, space)),
            }
        }
        let tokens = merged;
        // Columns used on the current line beyond the indent (the first line starts later).
        let mut col = if i == 0 { first.saturating_sub(indent) } else { 0 };
        let mut line_empty = true;
        for (t, space) in tokens {
            let w = width(&t);
            let sep = usize::from(space && !line_empty);
            if !line_empty && col + sep + w > avail {
                out.push('\n');
                out.push_str(&pad);
                col = 0;
            } else if sep == 1 {
                out.push(' ');
                col += 1;
            }
            out.push_str(&t);
            col += w;
            line_empty = false;
        }
    }
    out
}

/// A `   = label: value` line of the report.
fn field(out: &mut String, st: &Style, l: Lang, label: &str, value: &str) {
    let _ = writeln!(out, "   {} {label}{}{value}", st.label("="), colon(l));
}

/// A label that ends its line or heads what follows (`Cause:`, `原因：`).
fn heading(l: Lang, label: &str) -> String {
    format!("{label}{}", colon(l).trim_end())
}

/// The colon after a label: `: ` in English, the full-width `：` in Chinese.
fn colon(l: Lang) -> &'static str {
    match l {
        Lang::Zh => "：",
        _ => ": ",
    }
}

/// An evidence's scope as a reader of `l` says it (the report's ids are English words).
fn scope_word<'a>(l: Lang, scope: &'a str) -> &'a str {
    if l != Lang::Zh {
        return scope;
    }
    match scope {
        "site" => "内核位置",
        "kernel" => "内核行",
        "frame" => "调用栈",
        "code" => "代码",
        "message" => "日志行",
        "raised" => "报错行",
        "check" => "检查",
        "confirmation" => "探针确认",
        "context" => "上下文",
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prose_wraps_at_spaces_and_between_wide_characters() {
        let w = wrap("aaaa bbbb cccc dddd eeee ffff gggg hhhh iiii jjjj kkkk", 24, 2);
        assert!(w.lines().all(|l| width(l) <= 24), "{w}");
        assert!(w.lines().skip(1).all(|l| l.starts_with("  ")), "{w}");
        let z = wrap("损失函数的内核会把每个目标标签和类别数比较合法的标签必须在之间", 24, 0);
        assert!(z.lines().count() > 1 && z.lines().all(|l| width(l) <= 24), "{z}");
        assert_eq!(wrap("short", 24, 0), "short");
        // After a 20-column label, the first line has room for fewer words.
        let h = wrap_from("one two three four five six", 30, 2, 20);
        assert!(h.lines().next().unwrap().len() <= 10, "{h}");
    }

    #[test]
    fn control_characters_are_made_visible() {
        assert_eq!(sanitize("a\u{1b}[2Jb"), "a\\u{1b}[2Jb");
        assert_eq!(sanitize("x\u{202e}y"), "x\\u{202e}y");
        assert_eq!(sanitize("tab\there"), "tab    here");
        assert_eq!(sanitize("中文 ok"), "中文 ok");
    }
}
