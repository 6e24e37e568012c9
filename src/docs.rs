//! The rules as a browsable page (`www/rules.html`, written by `make web` with
//! `cargo run --example rules_page`): one entry per rule with its summary, why, fix, what to
//! print and an example, in English and Simplified Chinese, made from the rule data itself so
//! the page cannot drift from what the engine does. Pure: it returns the HTML as a string.

use crate::rules::{RuleDef, RULES};
use crate::text::TextDef;
use crate::text::{Lang, Msg};
use std::fmt::Write;

fn esc(s: &str) -> String {
    crate::card::escape(s)
}

fn paragraphs(out: &mut String, s: &str) {
    for p in s.split("\n\n").map(str::trim).filter(|p| !p.is_empty()) {
        let _ = writeln!(out, "<p>{}</p>", esc(&p.replace('\n', " ")));
    }
}

fn texts(r: &RuleDef, l: Lang) -> TextDef {
    r.texts(l)
}

/// The element id of a rule's entry in a language's section (`cid` in English, `zh-cid`).
fn anchor(r: &RuleDef, l: Lang) -> String {
    match l {
        Lang::En => r.id.to_string(),
        Lang::Zh => format!("zh-{}", r.id),
    }
}

fn entry(out: &mut String, r: &RuleDef, l: Lang) {
    let t = texts(r, l);
    let h = |m: Msg| esc(m.text(l));
    let a = anchor(r, l);
    let _ = writeln!(
        out,
        "<article class=\"rule\" id=\"{a}\" data-rule=\"{}\" data-category=\"{}\">",
        esc(r.id),
        r.category.id()
    );
    let _ = writeln!(
        out,
        "<h2><a href=\"#{a}\">{}</a> <span class=\"fa-category\">{}</span></h2>",
        esc(t.title),
        r.category.id()
    );
    let _ = writeln!(out, "<p class=\"fa-summary\">{}</p>", esc(t.summary));
    let _ = writeln!(out, "<h3>{}</h3>", h(Msg::ViewWhy));
    paragraphs(out, t.why);
    let _ = writeln!(out, "<h3>{}</h3>", h(Msg::ViewFix));
    paragraphs(out, t.fix);
    if !t.snippet.is_empty() {
        let _ = writeln!(out, "<h3>{}</h3>", h(Msg::ViewCheck));
        paragraphs(out, t.check);
        let _ = writeln!(out, "<pre class=\"fa-snippet\"><code>{}</code></pre>", esc(t.snippet.trim_matches('\n')));
    }
    if !r.ops.is_empty() {
        let _ = writeln!(out, "<p class=\"fa-ops\">{}: {}</p>", h(Msg::ViewOps), esc(&r.ops.join(", ")));
    }
    if !r.sites.is_empty() {
        let _ = writeln!(
            out,
            "<details class=\"fa-sites\"><summary>{} ({})</summary><ul>",
            h(Msg::DocsSites),
            r.sites.len()
        );
        for s in r.sites {
            let mut site = esc(s.file);
            if let Some(f) = s.function {
                let _ = write!(site, " · {}", esc(f));
            }
            let cond = s.condition.map(|c| format!(" · <code>{}</code>", esc(c))).unwrap_or_default();
            let op = s.op.map(|o| format!(" — {}", esc(o))).unwrap_or_default();
            let _ = writeln!(out, "<li>{site}{cond}{op}</li>");
        }
        let _ = writeln!(out, "</ul></details>");
    }
    if let Some(ex) = r.examples.first() {
        let _ = writeln!(
            out,
            "<details class=\"fa-example\"><summary>{}</summary><pre><code>{}</code></pre></details>",
            h(Msg::DocsExample),
            esc(ex.trim_matches('\n'))
        );
    }
    let _ = writeln!(out, "<p class=\"fa-rule\">{}: <code>rules/{}.toml</code></p>", h(Msg::ViewRule), esc(r.id));
    let _ = writeln!(out, "</article>");
}

/// The page: both languages, one `<section lang>` each; `rules.js` shows the one the reader
/// picked on the main page (both show without it).
pub fn rules_html() -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'none'\">\n\
<title>first-assert: the rules</title>\n<link rel=\"stylesheet\" href=\"style.css\">\n<link rel=\"icon\" href=\"data:,\">\n<script src=\"rules.js\" defer></script>\n</head>\n<body class=\"rules-page\">\n<main>"
    );
    for l in [Lang::En, Lang::Zh] {
        let tag = if l == Lang::Zh { "zh-Hans" } else { "en" };
        let _ = writeln!(out, "<section class=\"fa-rules\" lang=\"{tag}\" data-lang=\"{}\">", l.code());
        let _ = writeln!(out, "<h1>{}</h1>", esc(Msg::DocsTitle.text(l)));
        let _ =
            writeln!(out, "<p>{} <a href=\"./\">{}</a></p>", esc(Msg::DocsIntro.text(l)), esc(Msg::DocsBack.text(l)));
        let _ = writeln!(out, "<nav class=\"fa-toc\"><ul>");
        for r in RULES {
            let _ = writeln!(out, "<li><a href=\"#{}\">{}</a></li>", anchor(r, l), esc(texts(r, l).title));
        }
        let _ = writeln!(out, "</ul></nav>");
        for r in RULES {
            entry(&mut out, r, l);
        }
        let _ = writeln!(out, "</section>");
    }
    let _ = writeln!(out, "</main>\n</body>\n</html>");
    out
}
