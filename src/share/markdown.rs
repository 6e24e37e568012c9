//! The report as GitHub-flavoured Markdown that also reads as plain text: what to paste into
//! an issue, a forum post or a chat when asking for help. Everything from the input is in code
//! spans and fenced blocks (never read as Markdown), made safe by [`sanitize`] first.
//!
//! `www/share.js` writes the same text from the report's JSON (the page's "Copy as Markdown"):
//! a change here is a change there, and `tests/e2e/share.test.mjs` compares them.

use super::redact::{redact, Counts};
use crate::report::*;
use crate::sanitize::sanitize;
use crate::text::{Lang, Msg};

/// A Markdown report, and what its redaction hid (`None` when it was not redacted).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shared {
    pub markdown: String,
    pub hidden: Option<Counts>,
}

/// `s` as an inline code span, with a fence longer than any run of backticks in it.
fn code(s: &str) -> String {
    let s = sanitize(s);
    let fence = "`".repeat(longest_run(&s) + 1);
    if s.starts_with('`') || s.ends_with('`') {
        format!("{fence} {s} {fence}")
    } else {
        format!("{fence}{s}{fence}")
    }
}

/// `s` as a fenced block (each line made safe), indented by `indent`.
fn block(s: &str, info: &str, indent: &str) -> String {
    let lines: Vec<String> = s.trim_end_matches('\n').split('\n').map(|l| sanitize(l.trim_end_matches('\r'))).collect();
    let fence = "`".repeat(lines.iter().map(|l| longest_run(l)).max().unwrap_or(0).max(2) + 1);
    let mut out = format!("{indent}{fence}{info}\n");
    for l in lines {
        out.push_str(indent);
        out.push_str(&l);
        out.push('\n');
    }
    out.push_str(indent);
    out.push_str(&fence);
    out.push('\n');
    out
}

/// The longest run of backticks in `s`.
fn longest_run(s: &str) -> usize {
    s.split(|c| c != '`').map(str::len).max().unwrap_or(0)
}

/// Prose from the catalogue or a rule: one paragraph (its line breaks become spaces).
fn prose(s: &str) -> String {
    sanitize(&s.split('\n').map(str::trim).filter(|l| !l.is_empty()).collect::<Vec<_>>().join(" "))
}

fn label(l: Lang, key: Msg, value: &str) -> String {
    item(l, key.text(l), value)
}

/// `label: value`, with the colon of the language.
fn item(l: Lang, label: &str, value: &str) -> String {
    Msg::ViewLabel.fill(l, &[("label", &label), ("value", &value)])
}

/// `(s)`, with the parentheses of the language.
fn paren(l: Lang, s: &str) -> String {
    match l {
        Lang::Zh => format!("（{s}）"),
        Lang::En => format!("({s})"),
    }
}

fn category(c: Category) -> Msg {
    match c {
        Category::InvalidLabel => Msg::ViewCategoryInvalidLabel,
        Category::IndexOutOfBounds => Msg::ViewCategoryIndexOutOfBounds,
        Category::InvalidValue => Msg::ViewCategoryInvalidValue,
        Category::ShapeMismatch => Msg::ViewCategoryShapeMismatch,
        Category::DtypeMismatch => Msg::ViewCategoryDtypeMismatch,
        Category::StaleContext => Msg::ViewCategoryStaleContext,
        Category::Unknown => Msg::ViewCategoryUnknown,
    }
}

/// The report as Markdown; `seen`, the versions the input shows ([`super::versions::seen`]);
/// with `hide`, personal data replaced ([`redact`]) and the counts told at the end.
pub fn markdown(r: &Report, seen: &[(&str, String)], hide: bool) -> Shared {
    let l = r.lang;
    let body = body(r, seen);
    let (mut md, hidden) = if hide {
        let (text, counts) = redact(&body);
        (text, Some(counts))
    } else {
        (body, None)
    };
    md.push_str("---\n");
    md.push_str(&Msg::ShareFooter.fill(l, &[("version", &r.tool.version)]));
    if let Some(c) = &hidden {
        if l != Lang::Zh {
            md.push(' ');
        }
        md.push_str(&hidden_line(l, c));
    }
    md.push('\n');
    Shared { markdown: md, hidden }
}

/// "Hidden before sharing: 2 user names, 1 token." (or that nothing was found).
pub fn hidden_line(l: Lang, c: &Counts) -> String {
    if c.is_empty() {
        return Msg::ShareHiddenNone.text(l).to_string();
    }
    // One item, or more (the Chinese of both is the same).
    let kind = |k: &str| match k {
        "user" => (Msg::ShareKindUserOne, Msg::ShareKindUser),
        "folder" => (Msg::ShareKindFolderOne, Msg::ShareKindFolder),
        "host" => (Msg::ShareKindHostOne, Msg::ShareKindHost),
        "email" => (Msg::ShareKindEmailOne, Msg::ShareKindEmail),
        "ip" => (Msg::ShareKindIpOne, Msg::ShareKindIp),
        "token" => (Msg::ShareKindTokenOne, Msg::ShareKindToken),
        _ => (Msg::ShareKindSecretOne, Msg::ShareKindSecret),
    };
    let items: Vec<String> =
        c.0.iter()
            .filter(|(_, n)| *n > 0)
            .map(|(k, n)| {
                let (one, many) = kind(k);
                (if *n == 1 { one } else { many }).fill(l, &[("n", n)])
            })
            .collect();
    Msg::ShareHidden.fill(l, &[("items", &items.join(Msg::ShareListSep.text(l)))])
}

fn body(r: &Report, seen: &[(&str, String)]) -> String {
    let l = r.lang;
    let title = match r.verdict {
        Verdict::DeviceAssert => Msg::ShareTitleAssert,
        Verdict::OtherCudaError => Msg::ShareTitleOther,
        Verdict::Confirmed => Msg::ShareTitleConfirmed,
        _ => Msg::ShareTitleClean,
    };
    let mut md = format!("## {}\n\n{}\n\n", title.text(l), prose(&r.headline));
    if let Some(fa) = &r.first_assert {
        first_assert(&mut md, l, fa);
    }
    if let Some(c) = &r.cause {
        cause(&mut md, l, c);
    }
    if let Some(s) = &r.stack {
        stack(&mut md, l, s, r.raised_at.as_ref());
    }
    echoes(&mut md, l, r);
    if !r.other_errors.is_empty() {
        md.push_str(&format!("**{}**\n\n", Msg::ShareOther.text(l)));
        for e in &r.other_errors {
            md.push_str(&format!("- {} {}\n", item(l, &e.place, &code(&e.text)), prose(&e.explanation)));
        }
        md.push('\n');
    }
    if matches!(r.verdict, Verdict::Clean | Verdict::Unreadable) {
        let errors = r.first_assert.is_some() as u64 + r.echo_count + r.other_errors.len() as u64;
        md.push_str(&Msg::ShareRead.fill(l, &[("lines", &r.input.lines), ("errors", &errors)]));
        md.push_str("\n\n");
    }
    if !r.checklist.is_empty() && r.verdict != Verdict::Clean {
        md.push_str(&format!("**{}**\n\n", Msg::ShareChecklist.text(l)));
        for s in &r.checklist {
            md.push_str(&format!("- [{}] {}\n", if s.done { "x" } else { " " }, prose(&s.title)));
            if !s.body.trim().is_empty() {
                md.push_str(&format!("  {}\n", prose(&s.body)));
            }
            // The probe cell is the tool's own code, not the user's: `--probe` prints it.
            let probe = r.probe.as_ref().map(|p| p.code.as_str());
            if let Some(c) = s.code.as_deref().filter(|c| !c.trim().is_empty() && Some(*c) != probe) {
                md.push('\n');
                md.push_str(&block(c, "python", "  "));
            }
        }
        md.push('\n');
    }
    if !seen.is_empty() {
        md.push_str(&format!("**{}**\n\n", label(l, Msg::ShareSeen, &super::versions::line(seen))));
    }
    if let Some(k) = r.input.kernel.as_ref().and_then(|k| crate::render::kernel_facts(k, l)) {
        md.push_str(&format!("**{}**\n\n", label(l, Msg::KernelFacts, &prose(&k))));
    }
    md
}

fn first_assert(md: &mut String, l: Lang, fa: &FirstAssert) {
    let mut head = vec![format!("**{}**", Msg::ShareFirst.text(l)), fa.place.clone()];
    if let Some(s) = &fa.site {
        let file = s.file_name();
        let at = s.line.map_or(file.to_string(), |n| format!("{file}:{n}"));
        head.push(code(&at));
        if let Some(f) = &s.function {
            head.push(code(f));
        }
    }
    if let Some(rp) = fa.repeats.as_ref().filter(|rp| rp.count > 1) {
        head.push(Msg::SharePrinted.fill(l, &[("count", &rp.count), ("threads", &rp.threads), ("blocks", &rp.blocks)]));
    }
    md.push_str(&head.join(" · "));
    md.push_str("\n\n");
    // The record with the lines printed around it, as they read in the input.
    let before = fa.context.iter().filter(|c| c.line < fa.at.line).map(|c| c.text.as_str());
    let after = fa.context.iter().filter(|c| c.line > fa.at.line).map(|c| c.text.as_str());
    let lines: Vec<&str> = before.chain(std::iter::once(fa.text.as_str())).chain(after).collect();
    md.push_str(&block(&lines.join("\n"), "text", ""));
    md.push('\n');
}

fn cause(md: &mut String, l: Lang, c: &Cause) {
    if let Some(u) = crate::render::usually(c, l) {
        // Nothing here to go on: the cause most often behind this error, and the shares.
        md.push_str(&format!("**{}**\n\n{}\n\n", prose(&u), prose(&c.summary)));
        md.push_str(&format!("{}\n\n", label(l, Msg::ViewUsualCauses, "").trim_end()));
        for k in &c.candidates {
            let pct = (k.confidence * 100.0).round() as u64;
            md.push_str(&format!("- {} · {}\n", prose(&k.title), Msg::ViewShareOfErrors.fill(l, &[("pct", &pct)])));
        }
        md.push('\n');
        return;
    }
    let pct = (c.confidence * 100.0).round() as u64;
    let lines = if c.basis == Basis::Prior { Msg::ShareContext } else { Msg::ShareEvidence };
    md.push_str(&format!(
        "**{}** · {} · {}\n\n{}\n\n",
        crate::render::cause_heading(c).text(l),
        category(c.category).text(l),
        Msg::ViewSure.fill(l, &[("pct", &pct)]),
        prose(&c.summary)
    ));
    if !c.evidence.is_empty() {
        md.push_str(&format!("{}\n\n", label(l, lines, "").trim_end()));
        for e in &c.evidence {
            md.push_str(&format!("- {}\n", item(l, &e.place, &code(&e.text))));
        }
        md.push('\n');
    }
}

fn stack(md: &mut String, l: Lang, s: &Stack, raised: Option<&RaisedAt>) {
    let frames = raised.is_some_and(|r| !r.frames.is_empty());
    let verdict = match (frames, s.trustworthy) {
        (false, _) => Msg::ViewNoTraceback,
        (true, true) => Msg::ViewTrusted,
        (true, false) => Msg::ViewUntrusted,
    };
    md.push_str(&format!("**{}** · {}\n\n{}\n\n", Msg::ShareTraceback.text(l), verdict.text(l), prose(&s.explanation)));
    let Some(r) = raised else { return };
    if let Some((f, c)) = r.user_frame.as_ref().and_then(|f| f.code.as_deref().map(|c| (f, c))) {
        let file = f.line.map_or(f.file.clone(), |n| format!("{}:{n}", f.file));
        let at = if f.place.is_empty() { format!("{} · {}", r.place, code(&file)) } else { f.place.clone() };
        md.push_str(&format!("- {} {}\n\n", label(l, Msg::ViewBlamed, &code(c)), paren(l, &at)));
    }
}

fn echoes(md: &mut String, l: Lang, r: &Report) {
    let (Some(first), Some(last)) = (r.echoes.first(), r.echoes.last()) else { return };
    let line = if r.echo_count == 1 {
        Msg::ShareEchoOne.fill(l, &[("at", &first.place)])
    } else {
        Msg::ShareEchoes
            .fill(l, &[("n", &r.echo_count), ("from", &first.place), ("to", &last.place)])
    };
    md.push_str(&line);
    md.push_str("\n\n");
}
