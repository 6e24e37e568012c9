//! The kernel's card: a report as the notebook extension shows it under the failing cell
//! (`%load_ext first_assert`), once as self-contained HTML and once as its plain-text twin (what a
//! terminal console, a log, `nbconvert --to script` or a screen reader gets). Both are written
//! from one list of blocks, so they say the same things: the cause and how sure, the first
//! assert (its failed condition marked) and the values the kernel printed, the blamed line by its
//! cell and whether to trust it, what the kernel saw and what the extension read, the next step
//! in the kernel.
//!
//! The HTML has inline styles and no script, iframe or request; it inherits the notebook's text
//! colour and tints only with translucent colours, so it reads alike in light and dark themes
//! (Colab's, JupyterLab's). Every text from the input is escaped (a cell's output is untrusted),
//! and long ones are cut.

use crate::report::{Basis, Cause, FirstAssert, KernelFacts, Report, Verdict};
use crate::text::{Lang, Msg};

const BOX: &str = "font:13px/1.5 system-ui,-apple-system,'Segoe UI',sans-serif;color:inherit;background:rgba(217,48,37,.07);\
border:1px solid rgba(217,48,37,.35);border-left:4px solid #d93025;border-radius:6px;padding:10px 14px;margin:6px 0;max-width:960px";
const TITLE: &str = "font-weight:600;font-size:14px;margin:0 0 4px";
const LABEL: &str = "font-weight:600;margin:8px 0 2px;opacity:.85";
const CODE: &str = "font:12px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;color:inherit;background:rgba(127,127,127,.16);\
border-radius:4px;padding:4px 8px;margin:2px 0;white-space:pre-wrap;overflow-wrap:anywhere";
const MARK: &str = "background:rgba(255,112,67,.22);box-shadow:inset 0 -2px 0 #e8590c;color:inherit;font-weight:600;border-radius:2px;padding:0 2px";
const DIM: &str = "opacity:.8";
/// The latch's one line (a later error of the broken context).
const LINE: &str = "font:13px/1.5 system-ui,-apple-system,'Segoe UI',sans-serif;color:inherit;background:rgba(217,48,37,.07);\
border-left:4px solid #d93025;padding:6px 12px;margin:6px 0";

/// One block of the card.
enum Block {
    Title(String),
    Text(String),
    Dim(String),
    Strong(String),
    /// A section's heading.
    Label(String),
    Code(String),
    /// The first assert's line, and the failed condition in it (a byte range).
    Record(String, Option<(usize, usize)>),
}

/// Text cut to at most `max` characters (an ellipsis where it was cut).
fn cut(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

/// `s` as HTML text: `&`, `<`, `>`, `"` and `'` escaped.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

fn sep(l: Lang) -> &'static str {
    if l == Lang::Zh {
        "："
    } else {
        ": "
    }
}

/// The card's title: the cause with its basis, else the headline.
fn title(r: &Report, l: Lang) -> String {
    let named = |m: Msg, c: &Cause| m.fill(l, &[("cause", &c.title)]);
    if let Some(u) = r.cause.as_ref().and_then(|c| crate::render::usually(c, l)) {
        return u;
    }
    match &r.cause {
        Some(c) if c.basis == Basis::Confirmed => named(Msg::KernelTitleConfirmed, c),
        Some(c) if c.basis == Basis::Stated => named(Msg::KernelTitleStated, c),
        Some(c) if c.basis == Basis::Evidence => named(Msg::KernelTitleEvidence, c),
        Some(c) if c.basis == Basis::Prior => named(Msg::KernelTitlePrior, c),
        _ if r.verdict == Verdict::DeviceAssert => Msg::KernelTitleNone.text(l).to_string(),
        _ => r.headline.clone(),
    }
}

/// How sure, and on what: `99% sure: the kernel's own line names the check that failed.`
fn sure(c: &Cause, l: Lang) -> Option<String> {
    let on = match c.basis {
        Basis::Confirmed => Msg::KernelBasisConfirmed,
        Basis::Stated => Msg::KernelBasisStated,
        Basis::Evidence => Msg::KernelBasisEvidence,
        Basis::Prior => Msg::KernelBasisPrior,
        Basis::None => return None,
    };
    let pct = (c.confidence * 100.0).round() as u32;
    Some(Msg::KernelSure.fill(l, &[("pct", &pct), ("basis", &on.text(l))]))
}

/// The title, the summary, how sure (or, with nothing to go on, how often each cause is behind
/// this error).
fn head(r: &Report, l: Lang, out: &mut Vec<Block>) {
    out.push(Block::Title(title(r, l)));
    let Some(c) = &r.cause else {
        if let Some(o) = r.other_errors.first().filter(|_| r.verdict == Verdict::OtherCudaError) {
            out.push(Block::Text(o.explanation.clone()));
        }
        return;
    };
    out.push(Block::Text(c.summary.clone()));
    if crate::render::usually(c, l).is_some() {
        let shares: Vec<String> = c
            .candidates
            .iter()
            .map(|k| format!("{} · {}", k.title, Msg::ViewShareOfErrors.fill(l, &[("pct", &((k.confidence * 100.0).round() as u32))])))
            .collect();
        let list = shares.join(if l == Lang::Zh { "；" } else { "; " });
        out.push(Block::Dim(format!("{}{}{list}", Msg::ViewUsualCauses.text(l), sep(l))));
    } else if let Some(s) = sure(c, l) {
        out.push(Block::Dim(s));
    }
}

/// Where it started: the probe's (or the CPU's) catch, else the first assert and the values the
/// kernel printed with it.
fn started(r: &Report, l: Lang, out: &mut Vec<Block>) {
    if let Some(c) = &r.confirmation {
        out.push(Block::Label(Msg::KernelStarted.text(l).to_string()));
        let line = c.line.as_deref().map_or(c.text.clone(), |v| crate::render::your_line(v, &c.place));
        out.push(Block::Code(line));
        out.push(Block::Dim(cut(&c.text, 400)));
        // The probe's own clue: the values it saw, the usual cause for this bound.
        for (label, value) in [(Msg::ViewConfirmedValues, &c.values), (Msg::ViewConfirmedClue, &c.clue)] {
            if let Some(v) = value {
                out.push(Block::Dim(format!("{}{}{}", label.text(l), sep(l), cut(v, 400))));
            }
        }
    } else if let Some(fa) = &r.first_assert {
        out.push(Block::Label(Msg::KernelStarted.text(l).to_string()));
        out.push(record(fa));
        if let Some(o) = &fa.offending {
            out.push(Block::Text(Msg::ReportOffending.fill(l, &[("value", &o.value), ("allowed", &o.allowed)])));
        }
        out.push(Block::Dim(fa.place.clone()));
    }
}

/// The first assert's line, its failed condition found in it.
fn record(fa: &FirstAssert) -> Block {
    let text = cut(fa.text.trim(), 600);
    let cond = fa.site.as_ref().and_then(|s| s.condition.as_deref()).filter(|c| !c.is_empty());
    let at = cond.and_then(|c| text.find(c).map(|at| (at, at + c.len())));
    Block::Record(text, at)
}

/// The line the traceback blames, by its cell, and whether to trust it.
fn blamed(r: &Report, l: Lang, out: &mut Vec<Block>) {
    let (Some(ra), Some(s)) = (&r.raised_at, &r.stack) else { return };
    let Some(f) = ra.user_frame.as_ref().filter(|f| f.code.is_some()) else { return };
    out.push(Block::Label(Msg::KernelBlamed.text(l).to_string()));
    out.push(Block::Code(f.code.clone().unwrap_or_default()));
    if !f.place.is_empty() {
        out.push(Block::Dim(f.place.clone()));
    }
    // What the kernel saw says why; else the short verdict.
    let trust = if s.trustworthy && !s.launch_blocking_known { Msg::KernelTrusted.text(l) } else { s.explanation.as_str() };
    out.push(Block::Text(trust.to_string()));
}

/// What the kernel saw, and what the extension read to answer.
fn kernel(k: &KernelFacts, cells: Option<u32>, l: Lang, out: &mut Vec<Block>) {
    if let Some(f) = crate::render::kernel_facts(k, l) {
        out.push(Block::Dim(format!("{}{}{}", Msg::KernelFacts.text(l), sep(l), cut(&f, 300))));
    }
    let since = cells.unwrap_or(0).saturating_sub(k.late_cells);
    let read = match k.read.as_deref() {
        Some("colab") => Msg::KernelReadColab,
        Some("history") => Msg::KernelReadHistory,
        Some("last_error") => Msg::KernelReadLastError,
        Some(_) => Msg::KernelReadSinceLoad,
        None => return,
    };
    let said = if read == Msg::KernelReadSinceLoad {
        read.fill(l, &[("n", &since)])
    } else {
        let and = if since > 0 { Msg::KernelReadAndSince.fill(l, &[("n", &since)]) } else { String::new() };
        read.fill(l, &[("late", &k.late_cells), ("since", &and)])
    };
    out.push(Block::Dim(format!("{}{}{said}", Msg::KernelRead.text(l), sep(l))));
}

/// The next step: in the kernel, the checklist's restart, launch blocking and probe are two lines.
fn next(r: &Report, l: Lang, out: &mut Vec<Block>) {
    if r.verdict == Verdict::DeviceAssert {
        out.push(Block::Label(Msg::KernelNext.text(l).to_string()));
        out.push(Block::Strong(Msg::KernelStepTitle.text(l).to_string()));
        out.push(Block::Code("%load_ext first_assert\n%first_assert isolate".into()));
        out.push(Block::Text(Msg::KernelStepBody.text(l).to_string()));
        let compiled = r.input.kernel.as_ref().is_some_and(|k| k.compiled)
            || r.checklist.iter().any(|s| s.code.as_deref().is_some_and(|c| c.contains("TORCH_COMPILE_DISABLE")));
        if compiled {
            out.push(Block::Text(Msg::KernelStepCompiled.text(l).to_string()));
        }
    } else if let Some(step) = r.checklist.iter().find(|s| !s.done) {
        out.push(Block::Label(Msg::KernelNext.text(l).to_string()));
        out.push(Block::Strong(step.title.clone()));
        out.push(Block::Text(step.body.clone()));
        if let Some(c) = step.code.as_deref().filter(|c| c.len() < 4000) {
            out.push(Block::Code(c.to_string()));
        }
    }
}

fn blocks(r: &Report) -> Vec<Block> {
    let l = r.lang;
    let mut out = Vec::new();
    head(r, l, &mut out);
    started(r, l, &mut out);
    blamed(r, l, &mut out);
    if let Some(k) = &r.input.kernel {
        kernel(k, r.input.cells, l, &mut out);
    }
    next(r, l, &mut out);
    out
}

/// The report as the kernel's card, in HTML.
pub fn html(r: &Report) -> String {
    let mut out = format!("<div style=\"{BOX}\" data-first-assert-card=\"{}\">", r.verdict.id());
    for b in blocks(r) {
        let (style, body) = match b {
            Block::Title(t) => (TITLE, escape(&t)),
            Block::Text(t) => ("", escape(&t)),
            Block::Dim(t) => (DIM, escape(&t)),
            Block::Strong(t) => ("font-weight:600;margin-top:2px", escape(&t)),
            Block::Label(t) => (LABEL, escape(&t)),
            Block::Code(t) => (CODE, escape(&cut(&t, 2000))),
            Block::Record(t, None) => (CODE, escape(&t)),
            Block::Record(t, Some((a, b))) => {
                let mark = format!("{}<span style=\"{MARK}\">{}</span>{}", escape(&t[..a]), escape(&t[a..b]), escape(&t[b..]));
                (CODE, mark)
            }
        };
        out.push_str(&format!("<div style=\"{style}\">{body}</div>"));
    }
    out.push_str("</div>");
    out
}

/// The report as the kernel's card, in plain text: the same blocks, code indented; control
/// characters from the input made visible.
pub fn text(r: &Report) -> String {
    use crate::sanitize::sanitize;
    let mut out = String::new();
    for b in blocks(r) {
        match b {
            Block::Title(t) => out.push_str(&format!("first-assert · {}\n", sanitize(&t))),
            Block::Label(t) => out.push_str(&format!("\n{}:\n", sanitize(&t))),
            Block::Text(t) | Block::Dim(t) | Block::Strong(t) => out.push_str(&format!("{}\n", sanitize(&t))),
            Block::Code(t) => out.extend(cut(&t, 2000).lines().map(|c| format!("    {}\n", sanitize(c)))),
            Block::Record(t, _) => out.push_str(&format!("    {}\n", sanitize(&t))),
        }
    }
    out
}

/// One line of the kernel's (the latch: a later error of the broken context), in HTML.
pub fn line_html(text: &str) -> String {
    format!("<div style=\"{LINE}\" data-first-assert-line=\"latch\">{}</div>", escape(text))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::{analyze_text, Options};

    const LOG: &str = "../aten/src/ATen/native/cuda/Loss.cu:250: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [5,0,0] Assertion `t >= 0 && t < n_classes` failed.\nTraceback (most recent call last):\n  File \"train.py\", line 40, in <module>\n    total += loss.item()\nRuntimeError: CUDA error: device-side assert triggered\n";

    #[test]
    fn the_card_names_the_cause_how_sure_marks_the_condition_and_gives_the_next_step() {
        for lang in Lang::ALL {
            let r = analyze_text(LOG, &Options::lang(lang));
            let h = html(&r);
            assert!(h.contains(&escape(&r.cause.as_ref().unwrap().title)), "{h}");
            assert!(h.contains(&format!("<span style=\"{MARK}\">t &gt;= 0 &amp;&amp; t &lt; n_classes</span>")), "{h}");
            assert!(h.contains("%load_ext first_assert\n%first_assert isolate"), "the kernel's next step: {h}");
            assert!(h.contains("total += loss.item()"));
            let pct = (r.cause.as_ref().unwrap().confidence * 100.0).round() as u32;
            assert!(h.contains(&format!("{pct}%")), "how sure: {h}");
            assert!(!h.contains("<script") && !h.contains("<iframe") && !h.contains("src="));
        }
    }

    #[test]
    fn the_text_twin_says_what_the_html_says_and_gives_the_kernels_step() {
        for lang in Lang::ALL {
            let r = analyze_text(LOG, &Options::lang(lang));
            let (h, t) = (html(&r), text(&r));
            for b in blocks(&r) {
                let marked = matches!(b, Block::Record(_, Some(_)));
                let (Block::Title(s) | Block::Text(s) | Block::Dim(s) | Block::Strong(s) | Block::Label(s) | Block::Code(s) | Block::Record(s, _)) = b;
                let first = s.lines().next().unwrap_or("");
                assert!(t.contains(first), "the text lacks {first:?}:\n{t}");
                // (The marked record is split by its mark in the HTML, whole in the text.)
                assert!(marked || h.contains(&escape(first)), "the HTML lacks {first:?}");
            }
            assert!(t.contains("    %load_ext first_assert\n    %first_assert isolate\n"), "{t}");
            for cli in ["<stdin>", "--probe", "first-assert train.log"] {
                assert!(!t.contains(cli), "the command line's advice in the kernel: {cli}\n{t}");
            }
        }
    }

    #[test]
    fn the_card_inherits_the_themes_colours() {
        let h = html(&analyze_text(LOG, &Options::default()));
        // No fixed text colour and no opaque light background: Colab's and JupyterLab's dark
        // themes keep their light text on their dark page.
        assert!(!h.contains("color:#"), "{h}");
        assert!(!h.contains("background:#"), "{h}");
        assert!(line_html("x").contains("color:inherit"));
    }

    #[test]
    fn hostile_output_is_inert_and_bounded() {
        let evil = "<script>alert(1)</script><img src=x onerror=alert(2)><a href=\"javascript:alert(3)\">x</a>";
        let log = format!("{evil}\nRuntimeError: CUDA error: device-side assert triggered {evil}\u{1b}[31m\n{}\n", "A".repeat(100_000));
        let r = analyze_text(&log, &Options::default());
        let h = html(&r);
        for tag in ["<script", "<img", "<a "] {
            assert!(!h.contains(tag), "{tag} in {h}");
        }
        assert!(h.contains("&lt;script&gt;"));
        assert!(h.len() < 40_000, "{} bytes", h.len());
        let t = text(&r);
        assert!(!t.contains('\u{1b}'), "control characters are made visible in the text");
        assert!(t.len() < 40_000);
        assert!(line_html(evil).contains("&lt;script&gt;") && !line_html(evil).contains("<script"));
    }
}
