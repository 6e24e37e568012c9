//! The report as DOM, built node by node: every text from the input goes in through
//! `textContent` (text nodes), never through HTML parsing. Styles come from classes only, so
//! the page works under a CSP without `'unsafe-inline'`.
//!
//! What to show is decided in `view.rs` and the report; this module only builds nodes.

use crate::i18n::{location, Lang, Msg};
use crate::report::{Location, Report, Verdict};
use crate::sanitize::sanitize;
use crate::view::{self, Mark, Source, Target};
use std::collections::BTreeSet;
use wasm_bindgen::JsValue;
use web_sys::{Document, Element};

type R<T> = Result<T, JsValue>;

/// What one rendering needs besides the report.
pub struct Context<'a> {
    pub source: Option<&'a Source>,
    pub target: Option<Target>,
    /// Ids of the checklist steps already ticked.
    pub done: &'a BTreeSet<String>,
}

/// Renders the report into `root`, replacing what was there. Returns the code snippets in the
/// order their copy buttons refer to them (`data-copy="<index>"`).
pub fn render(root: &Element, r: &Report, cx: &Context<'_>) -> R<Vec<String>> {
    let d = doc()?;
    let l = r.lang;
    let mut snippets = Vec::new();
    root.set_text_content(None);
    root.set_class_name(&format!("fa-report verdict-{}", r.verdict.id()));
    root.set_attribute("lang", if l == Lang::Zh { "zh-Hans" } else { "en" })?;
    root.set_attribute("data-verdict", r.verdict.id())?;

    let head = text(&d, "p", "fa-headline", &r.headline)?;
    head.set_attribute("data-testid", "headline")?;
    head.set_attribute("role", "status")?;
    root.append_child(&head)?;

    if let Some(f) = &r.first_assert {
        let s = section(&d, root, "first-assert", Msg::ViewFirstTitle.text(l))?;
        add(&s, text(&d, "p", "fa-where", &location(l, &f.at))?)?;
        let ctx = el(&d, "div", "fa-lines")?;
        for c in f.context.iter().filter(|c| c.line < f.at.line) {
            add(&ctx, line_row(&d, c.line, &c.text, Mark::None)?)?;
        }
        let first = line_row(&d, f.at.line, &f.text, Mark::First)?;
        first.set_attribute("data-testid", "first-assert-line")?;
        ctx.append_child(&first)?;
        let last = f.end_line.unwrap_or(f.at.line);
        for c in f.context.iter().filter(|c| c.line > last) {
            add(&ctx, line_row(&d, c.line, &c.text, Mark::None)?)?;
        }
        s.append_child(&ctx)?;
        if let Some(site) = &f.site {
            let det = el(&d, "details", "fa-site")?;
            let mut sum = crate::scan::kernel::basename(&site.file).to_string();
            if let Some(n) = site.line {
                sum.push_str(&format!(":{n}"));
            }
            if let Some(name) = site.name.as_ref().or(site.function.as_ref()) {
                sum.push_str(&format!(" · {name}"));
            }
            if let Some(c) = &site.condition {
                sum.push_str(&format!(" · `{c}`"));
            }
            add(&det, text(&d, "summary", "", &format!("{}: {sum}", Msg::ViewSite.text(l)))?)?;
            if let Some(rep) = &f.repeats {
                let line = Msg::ReportRepeats.fill(
                    l,
                    &[
                        ("count", &rep.count),
                        ("threads", &rep.threads.max(1)),
                        ("blocks", &rep.blocks.max(1)),
                        ("last", &rep.last_line),
                    ],
                );
                add(&det, text(&d, "p", "", &line)?)?;
                if let (Some(b), Some(t)) = (rep.block_range, rep.thread_range) {
                    let ranges = Msg::ViewRanges.fill(l, &[("blocks", &range(b)), ("threads", &range(t))]);
                    add(&det, text(&d, "p", "", &ranges)?)?;
                }
            }
            add(&det, text(&d, "p", "fa-path", &site.file)?)?;
            if let Some(func) = &site.function {
                add(&det, text(&d, "p", "fa-path", func)?)?;
            }
            s.append_child(&det)?;
        }
    }

    if let Some(c) = &r.cause {
        let s = section(&d, root, "cause", Msg::ViewCauseTitle.text(l))?;
        s.set_attribute("data-category", c.category.id())?;
        s.set_attribute("data-rule", &c.rule)?;
        let t = el(&d, "p", "fa-cause-title")?;
        add(&t, text(&d, "span", "fa-category", c.category.id())?)?;
        add(&t, text(&d, "strong", "", &c.title)?)?;
        let pct = (c.confidence * 100.0).round() as u32;
        if pct > 0 {
            let conf = text(&d, "span", "fa-confidence", &Msg::ReportConfidence.fill(l, &[("pct", &pct)]))?;
            conf.set_attribute("data-confidence", &pct.to_string())?;
            t.append_child(&conf)?;
        }
        s.append_child(&t)?;
        add(&s, text(&d, "p", "fa-summary", &c.summary)?)?;
        if !c.evidence.is_empty() {
            add(&s, text(&d, "h3", "", Msg::ViewEvidence.text(l))?)?;
            let ul = el(&d, "ul", "fa-evidence")?;
            for e in &c.evidence {
                let li = el(&d, "li", &format!("scope-{}", e.scope))?;
                add(&li, jump_button(&d, l, &e.at)?)?;
                let code = el(&d, "code", "")?;
                marked_text(&d, &code, &e.text, e.matched.as_deref())?;
                li.append_child(&code)?;
                ul.append_child(&li)?;
            }
            s.append_child(&ul)?;
        }
        add(&s, text(&d, "h3", "", Msg::ViewWhy.text(l))?)?;
        paragraphs(&d, &s, &c.why)?;
        if let Some(code) = &c.snippet {
            add(&s, text(&d, "h3", "", Msg::ViewCheck.text(l))?)?;
            add(&s, text(&d, "p", "", &c.check)?)?;
            add(&s, code_block(&d, l, code, &mut snippets)?)?;
        }
        add(&s, text(&d, "h3", "", Msg::ViewFix.text(l))?)?;
        paragraphs(&d, &s, &c.fix)?;
        if !c.ops.is_empty() {
            add(&s, text(&d, "p", "fa-ops", &format!("{}: {}", Msg::ViewOps.text(l), c.ops.join(", ")))?)?;
        }
        add(&s, text(&d, "p", "fa-rule", &format!("{}: {}", Msg::ViewRule.text(l), c.rule))?)?;
    }

    if let Some(st) = &r.stack {
        let s = section(&d, root, "stack", Msg::ViewStackTitle.text(l))?;
        s.set_attribute("data-trustworthy", if st.trustworthy { "true" } else { "false" })?;
        let badge = if st.trustworthy { Msg::ViewTrusted } else { Msg::ViewUntrusted };
        add(&s, text(&d, "p", if st.trustworthy { "fa-badge ok" } else { "fa-badge warn" }, badge.text(l))?)?;
        add(&s, text(&d, "p", "fa-explanation", &st.explanation)?)?;
        if let Some(ra) = &r.raised_at {
            let p = el(&d, "p", "fa-raised")?;
            add(&p, jump_button(&d, l, &ra.at)?)?;
            add(&p, text(&d, "code", "", &ra.text)?)?;
            s.append_child(&p)?;
            if let Some(f) = &ra.user_frame {
                if let Some(code) = &f.code {
                    let p = el(&d, "p", "fa-blamed")?;
                    add(&p, text(&d, "span", "", &format!("{}: ", Msg::ViewBlamed.text(l)))?)?;
                    add(&p, text(&d, "code", "", code)?)?;
                    s.append_child(&p)?;
                }
            }
        }
    }

    if r.echo_count > 0 {
        let s = section(&d, root, "echoes", Msg::ViewEchoesTitle.text(l))?;
        add(&s, text(&d, "p", "", &Msg::ReportEchoes.fill(l, &[("n", &r.echo_count)]))?)?;
        let ol = el(&d, "ol", "fa-echoes")?;
        for e in &r.echoes {
            let li = el(&d, "li", &format!("kind-{}", e.kind))?;
            li.set_attribute("data-testid", "echo")?;
            add(&li, jump_button(&d, l, &e.at)?)?;
            add(&li, text(&d, "code", "", &e.text)?)?;
            ol.append_child(&li)?;
        }
        s.append_child(&ol)?;
    }

    if !r.other_errors.is_empty() {
        let s = section(&d, root, "other-errors", Msg::ViewOtherTitle.text(l))?;
        let ul = el(&d, "ul", "fa-other")?;
        for e in &r.other_errors {
            let li = el(&d, "li", &format!("kind-{}", e.kind))?;
            add(&li, jump_button(&d, l, &e.at)?)?;
            add(&li, text(&d, "code", "", &e.text)?)?;
            add(&li, text(&d, "p", "", &e.explanation)?)?;
            ul.append_child(&li)?;
        }
        s.append_child(&ul)?;
    }

    if let Some(src) = cx.source {
        if r.verdict != Verdict::Clean {
            let s = section(&d, root, "map", Msg::ViewMapTitle.text(l))?;
            let legend = el(&d, "p", "fa-legend")?;
            for (m, msg) in [
                (Mark::First, Msg::ViewLegendFirst),
                (Mark::Echo, Msg::ViewLegendEcho),
                (Mark::Other, Msg::ViewLegendOther),
                (Mark::Evidence, Msg::ViewLegendEvidence),
            ] {
                add(&legend, text(&d, "span", &format!("fa-key mark-{}", m.class()), msg.text(l))?)?;
            }
            s.append_child(&legend)?;
            let kind = if matches!(src, Source::Cells(_)) { "fa-map cells" } else { "fa-map lines" };
            let map = el(&d, "div", kind)?;
            map.set_attribute("role", "list")?;
            for e in view::map(r, src, l) {
                let node = match e.target {
                    Some(t) => {
                        let b = jump_target_button(&d, &e.label, t)?;
                        b.set_attribute("class", &format!("fa-bin mark-{}", e.mark.class()))?;
                        b
                    }
                    None => text(&d, "span", &format!("fa-bin mark-{}", e.mark.class()), &e.label)?,
                };
                node.set_attribute("title", &e.title)?;
                node.set_attribute("role", "listitem")?;
                map.append_child(&node)?;
            }
            s.append_child(&map)?;
            let w = el(&d, "div", "fa-window")?;
            w.set_attribute("data-testid", "window")?;
            s.append_child(&w)?;
            if let Some(t) = cx.target.or_else(|| view::initial_target(r)) {
                render_window(&w, r, src, t)?;
            }
        }
    }

    if !r.checklist.is_empty() {
        let s = section(&d, root, "checklist", Msg::ViewStepsTitle.text(l))?;
        let ol = el(&d, "ol", "fa-steps")?;
        for step in &r.checklist {
            let li = el(&d, "li", "fa-step")?;
            li.set_attribute("data-step", &step.id)?;
            let label = el(&d, "label", "")?;
            let cb = d.create_element("input")?;
            cb.set_attribute("type", "checkbox")?;
            cb.set_attribute("data-action", "step")?;
            cb.set_attribute("data-step", &step.id)?;
            if step.done || cx.done.contains(&step.id) {
                cb.set_attribute("checked", "")?;
            }
            label.append_child(&cb)?;
            add(&label, text(&d, "span", "fa-step-title", &step.title)?)?;
            li.append_child(&label)?;
            paragraphs(&d, &li, &step.body)?;
            if let Some(code) = &step.code {
                add(&li, code_block(&d, l, code, &mut snippets)?)?;
            }
            ol.append_child(&li)?;
        }
        s.append_child(&ol)?;
    }

    if !r.notes.is_empty() {
        let s = section(&d, root, "notes", Msg::ViewNotesTitle.text(l))?;
        let ul = el(&d, "ul", "fa-notes")?;
        for n in &r.notes {
            let li = text(&d, "li", "", &n.text)?;
            li.set_attribute("data-note", &n.id)?;
            ul.append_child(&li)?;
        }
        s.append_child(&ul)?;
    }
    Ok(snippets)
}

/// Fills the window section with the lines around `t`, and marks the map entry in view.
pub fn render_window(w: &Element, r: &Report, src: &Source, t: Target) -> R<()> {
    let d = doc()?;
    let l = r.lang;
    w.set_text_content(None);
    w.set_attribute("data-cell", &t.cell.map(|c| c.to_string()).unwrap_or_default())?;
    w.set_attribute("data-line", &t.line.to_string())?;
    add(w, text(&d, "h3", "", &Msg::ViewWindowAt.fill(l, &[("at", &view::where_(r, src, t))]))?)?;
    let lines = el(&d, "div", "fa-lines")?;
    for wl in view::window(r, src, t) {
        let row = line_row(&d, wl.no, &wl.text, wl.mark)?;
        if wl.no == t.line {
            row.class_list().add_1("target")?;
        }
        lines.append_child(&row)?;
    }
    w.append_child(&lines)?;
    Ok(())
}

/// Appends `child` to `parent` and hands it back.
fn add(parent: &Element, child: Element) -> R<Element> {
    parent.append_child(&child)?;
    Ok(child)
}

fn doc() -> R<Document> {
    web_sys::window().and_then(|w| w.document()).ok_or_else(|| JsValue::from_str("no document"))
}

fn el(d: &Document, tag: &str, class: &str) -> R<Element> {
    let e = d.create_element(tag)?;
    if !class.is_empty() {
        e.set_class_name(class);
    }
    Ok(e)
}

/// An element whose only content is `s`, as text. Control characters from the input are made
/// visible, never interpreted.
fn text(d: &Document, tag: &str, class: &str, s: &str) -> R<Element> {
    let e = el(d, tag, class)?;
    e.set_text_content(Some(&sanitize(s)));
    Ok(e)
}

/// Like [`text`] for text of several lines (code), which keeps its line breaks.
fn lines_text(d: &Document, tag: &str, class: &str, s: &str) -> R<Element> {
    let e = el(d, tag, class)?;
    e.set_text_content(Some(&s.split('\n').map(sanitize).collect::<Vec<_>>().join("\n")));
    Ok(e)
}

fn section(d: &Document, root: &Element, testid: &str, title: &str) -> R<Element> {
    let s = el(d, "section", &format!("fa-section fa-section-{testid}"))?;
    s.set_attribute("data-testid", testid)?;
    add(&s, text(d, "h2", "", title)?)?;
    root.append_child(&s)?;
    Ok(s)
}

fn paragraphs(d: &Document, parent: &Element, s: &str) -> R<()> {
    for p in s.split("\n\n").map(str::trim).filter(|p| !p.is_empty()) {
        add(parent, text(d, "p", "", &p.replace('\n', " "))?)?;
    }
    Ok(())
}

fn line_row(d: &Document, no: u64, s: &str, mark: Mark) -> R<Element> {
    let row = el(d, "div", &format!("fa-line mark-{}", mark.class()))?;
    row.set_attribute("data-line", &no.to_string())?;
    add(&row, text(d, "span", "fa-no", &no.to_string())?)?;
    add(&row, text(d, "code", "fa-text", s)?)?;
    Ok(row)
}

fn jump_button(d: &Document, l: Lang, at: &Location) -> R<Element> {
    jump_target_button(d, &location(l, at), Target { cell: at.cell, line: at.line })
}

fn jump_target_button(d: &Document, label: &str, t: Target) -> R<Element> {
    let b = text(d, "button", "fa-jump", label)?;
    b.set_attribute("type", "button")?;
    b.set_attribute("data-action", "jump")?;
    b.set_attribute("data-line", &t.line.to_string())?;
    if let Some(c) = t.cell {
        b.set_attribute("data-cell", &c.to_string())?;
    }
    Ok(b)
}

fn code_block(d: &Document, l: Lang, code: &str, snippets: &mut Vec<String>) -> R<Element> {
    let wrap = el(d, "div", "fa-code")?;
    let pre = el(d, "pre", "")?;
    add(&pre, lines_text(d, "code", "", code)?)?;
    wrap.append_child(&pre)?;
    let b = text(d, "button", "fa-copy", Msg::ViewCopy.text(l))?;
    b.set_attribute("type", "button")?;
    b.set_attribute("data-action", "copy")?;
    b.set_attribute("data-copy", &snippets.len().to_string())?;
    wrap.append_child(&b)?;
    snippets.push(code.to_string());
    Ok(wrap)
}

/// Appends `s` to `parent` as text, with the first occurrence of `matched` in a `<mark>`.
fn marked_text(d: &Document, parent: &Element, s: &str, matched: Option<&str>) -> R<()> {
    let s = sanitize(s);
    match matched.map(sanitize).filter(|m| !m.is_empty()).and_then(|m| s.find(&m).map(|i| (i, m.len()))) {
        Some((i, n)) => {
            parent.append_child(&d.create_text_node(&s[..i]))?;
            let m = d.create_element("mark")?;
            m.set_text_content(Some(&s[i..i + n]));
            parent.append_child(&m)?;
            parent.append_child(&d.create_text_node(&s[i + n..]))?;
        }
        None => {
            parent.append_child(&d.create_text_node(&s))?;
        }
    }
    Ok(())
}

fn range(r: [[u32; 3]; 2]) -> String {
    let [lo, hi] = r;
    if lo == hi {
        format!("[{},{},{}]", lo[0], lo[1], lo[2])
    } else {
        format!("[{},{},{}]–[{},{},{}]", lo[0], lo[1], lo[2], hi[0], hi[1], hi[2])
    }
}
