//! The kernel's card: a report as self-contained HTML, shown under the failing cell by the
//! Python package's extension (`%load_ext first_assert`). Inline styles, no script, no iframe,
//! no request; its own background and colours, so it reads alike in a notebook's light and dark
//! themes. Every text from the input is escaped (a cell's output is untrusted), and long ones
//! are cut.

use crate::report::{Basis, Cause, FirstAssert, Report, Verdict};
use crate::text::{Lang, Msg};

const BOX: &str = "font:13px/1.5 system-ui,-apple-system,'Segoe UI',sans-serif;color:#1d1f23;background:#fff8f6;\
border:1px solid #e8c4bc;border-left:4px solid #b3261e;border-radius:6px;padding:10px 14px;margin:6px 0;max-width:960px";
const TITLE: &str = "font-weight:600;font-size:14px;margin:0 0 4px;color:#1d1f23";
const LABEL: &str = "font-weight:600;color:#5f4b47;margin:8px 0 2px";
const CODE: &str = "font:12px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;color:#1d1f23;background:#f3ebe8;\
border-radius:4px;padding:4px 8px;margin:2px 0;white-space:pre-wrap;overflow-wrap:anywhere";
const MARK: &str = "background:#ffd8cc;color:#1d1f23;font-weight:600;border-radius:2px;padding:0 2px";
const DIM: &str = "color:#5f4b47";

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

/// The card's title: the cause with its basis and certainty, else the headline.
fn title(r: &Report, l: Lang) -> String {
    let named = |m: Msg, c: &Cause| m.fill(l, &[("cause", &c.title)]);
    if let Some(u) = r.cause.as_ref().and_then(|c| crate::render::usually(c, l)) {
        return u;
    }
    match &r.cause {
        Some(c) if c.basis == Basis::Confirmed => named(Msg::KernelTitleConfirmed, c),
        Some(c) if c.basis == Basis::Stated => named(Msg::KernelTitleStated, c),
        Some(c) if c.basis == Basis::Evidence => named(Msg::KernelTitleEvidence, c),
        Some(c) if c.basis == Basis::Prior => {
            let pct = (c.confidence * 100.0).round() as u32;
            Msg::KernelTitlePrior.fill(l, &[("cause", &c.title), ("pct", &pct)])
        }
        _ if r.verdict == Verdict::DeviceAssert => Msg::KernelTitleNone.text(l).to_string(),
        _ => r.headline.clone(),
    }
}

/// The first assert's line, its failed condition marked.
fn record(fa: &FirstAssert) -> String {
    let text = cut(fa.text.trim(), 600);
    let cond = fa.site.as_ref().and_then(|s| s.condition.as_deref()).filter(|c| !c.is_empty());
    match cond.and_then(|c| text.find(c).map(|at| (at, c.len()))) {
        Some((at, n)) => format!(
            "{}<span style=\"{MARK}\">{}</span>{}",
            escape(&text[..at]),
            escape(&text[at..at + n]),
            escape(&text[at + n..])
        ),
        None => escape(&text),
    }
}

fn section(out: &mut String, label: &str, body: &str) {
    out.push_str(&format!("<div style=\"{LABEL}\">{}</div>{body}", escape(label)));
}

fn code(s: &str) -> String {
    format!("<div style=\"{CODE}\">{}</div>", escape(&cut(s, 2000)))
}

/// The report as the kernel's card.
pub fn html(r: &Report) -> String {
    let l = r.lang;
    let mut out = format!("<div style=\"{BOX}\" data-first-assert-card=\"{}\">", r.verdict.id());
    out.push_str(&format!("<div style=\"{TITLE}\">{}</div>", escape(&title(r, l))));
    if let Some(c) = &r.cause {
        out.push_str(&format!("<div>{}</div>", escape(&c.summary)));
        if crate::render::usually(c, l).is_some() {
            // How often each cause is behind this error (not how sure).
            let shares: Vec<String> = c
                .candidates
                .iter()
                .map(|k| format!("{} · {}", k.title, Msg::ViewShareOfErrors.fill(l, &[("pct", &((k.confidence * 100.0).round() as u32))])))
                .collect();
            let sep = if l == Lang::Zh { "：" } else { ": " };
            let line = format!("{}{sep}{}", Msg::ViewUsualCauses.text(l), shares.join(if l == Lang::Zh { "；" } else { "; " }));
            out.push_str(&format!("<div style=\"{DIM}\">{}</div>", escape(&line)));
        }
    }
    if let Some(c) = &r.confirmation {
        let line = c.line.as_deref().map_or(c.text.clone(), |v| crate::render::your_line(v, &c.place));
        section(&mut out, Msg::KernelStarted.text(l), &code(&line));
        out.push_str(&format!("<div style=\"{DIM}\">{}</div>", escape(&cut(&c.text, 400))));
        // The probe's own clue: the values it saw, the usual cause for this bound.
        let sep = if l == Lang::Zh { "：" } else { ": " };
        for (label, value) in [(Msg::ViewConfirmedValues, &c.values), (Msg::ViewConfirmedClue, &c.clue)] {
            if let Some(v) = value {
                out.push_str(&format!("<div style=\"{DIM}\">{}{sep}{}</div>", escape(label.text(l)), escape(&cut(v, 400))));
            }
        }
    } else if let Some(fa) = &r.first_assert {
        let body = format!("<div style=\"{CODE}\">{}</div><div style=\"{DIM}\">{}</div>", record(fa), escape(&fa.place));
        section(&mut out, Msg::KernelStarted.text(l), &body);
    }
    let blamed = r.raised_at.as_ref().and_then(|h| h.user_frame.as_ref()).and_then(|f| f.code.as_deref());
    if let (Some(line), Some(s)) = (blamed, &r.stack) {
        // What the kernel saw says why; else the short verdict.
        let trust = if s.trustworthy && !s.launch_blocking_known { Msg::KernelTrusted.text(l) } else { s.explanation.as_str() };
        let body = format!("{}<div style=\"{DIM}\">{}</div>", code(line), escape(trust));
        section(&mut out, Msg::KernelBlamed.text(l), &body);
    }
    if let Some(k) = r.input.kernel.as_ref().and_then(|k| crate::render::kernel_facts(k, l)) {
        let sep = if l == Lang::Zh { "：" } else { ": " };
        out.push_str(&format!("<div style=\"{DIM};margin-top:6px\">{}{sep}{}</div>", escape(Msg::KernelFacts.text(l)), escape(&cut(&k, 300))));
    }
    if r.verdict == Verdict::DeviceAssert {
        // In the kernel, the checklist's restart, launch blocking and probe are two lines.
        let body = format!(
            "<div><b>{}</b></div>{}<div>{}</div>",
            escape(Msg::KernelStepTitle.text(l)),
            code("%load_ext first_assert\n%first_assert isolate"),
            escape(Msg::KernelStepBody.text(l))
        );
        let compiled = r.input.kernel.as_ref().is_some_and(|k| k.compiled)
            || r.checklist.iter().any(|s| s.code.as_deref().is_some_and(|c| c.contains("TORCH_COMPILE_DISABLE")));
        let body = if compiled {
            format!("{body}<div>{}</div>", escape(Msg::KernelStepCompiled.text(l)))
        } else {
            body
        };
        section(&mut out, Msg::KernelNext.text(l), &body);
    } else if let Some(step) = r.checklist.iter().find(|s| !s.done) {
        let mut body = format!("<div><b>{}</b> {}</div>", escape(&step.title), escape(&step.body));
        if let Some(c) = step.code.as_deref().filter(|c| c.len() < 4000) {
            body.push_str(&code(c));
        }
        section(&mut out, Msg::KernelNext.text(l), &body);
    }
    out.push_str("</div>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::{analyze_text, Options};

    const LOG: &str = "../aten/src/ATen/native/cuda/Loss.cu:250: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [5,0,0] Assertion `t >= 0 && t < n_classes` failed.\nTraceback (most recent call last):\n  File \"train.py\", line 40, in <module>\n    total += loss.item()\nRuntimeError: CUDA error: device-side assert triggered\n";

    #[test]
    fn the_card_names_the_cause_marks_the_condition_and_gives_the_next_step() {
        for lang in Lang::ALL {
            let r = analyze_text(LOG, &Options::lang(lang));
            let h = html(&r);
            assert!(h.contains(&escape(&r.cause.as_ref().unwrap().title)), "{h}");
            assert!(h.contains(&format!("<span style=\"{MARK}\">t &gt;= 0 &amp;&amp; t &lt; n_classes</span>")), "{h}");
            assert!(h.contains("%load_ext first_assert\n%first_assert isolate"), "the kernel's next step: {h}");
            assert!(h.contains("total += loss.item()"));
            assert!(!h.contains("<script") && !h.contains("<iframe") && !h.contains("src="));
        }
    }

    #[test]
    fn hostile_output_is_inert_and_bounded() {
        let evil = "<script>alert(1)</script><img src=x onerror=alert(2)><a href=\"javascript:alert(3)\">x</a>";
        let log = format!("{evil}\nRuntimeError: CUDA error: device-side assert triggered {evil}\n{}\n", "A".repeat(100_000));
        let h = html(&analyze_text(&log, &Options::default()));
        for tag in ["<script", "<img", "<a "] {
            assert!(!h.contains(tag), "{tag} in {h}");
        }
        assert!(h.contains("&lt;script&gt;"));
        assert!(h.len() < 40_000, "{} bytes", h.len());
    }
}
