//! The rules page (`first_assert::docs`) is made from the rule data: every rule is on it in
//! both languages, with its texts and an example, and nothing from the data is left unescaped.
#![cfg(not(target_arch = "wasm32"))]

use first_assert::docs::rules_html;
use first_assert::rules::RULES;
use first_assert::Lang;

fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;").replace('\'', "&#39;")
}

#[test]
fn every_rule_in_both_languages() {
    let html = rules_html();
    for r in RULES {
        for (anchor, t) in [(r.id.to_string(), r.texts(Lang::En)), (format!("zh-{}", r.id), r.texts(Lang::Zh))] {
            assert!(html.contains(&format!("id=\"{anchor}\"")), "{anchor} has no entry");
            assert!(html.contains(&format!("href=\"#{anchor}\"")), "{anchor} is not in the contents");
            for text in [t.title, t.summary] {
                assert!(html.contains(&esc(text)), "{anchor}: `{text}` is missing");
            }
        }
        if let Some(ex) = r.examples.first() {
            assert!(html.contains(&esc(ex.trim_matches('\n'))), "{}: the example is missing", r.id);
        }
    }
}

#[test]
fn the_page_is_inert_and_needs_no_inline_code() {
    let html = rules_html();
    // The only script is our own file; examples such as <ipython-input-…> arrive escaped.
    assert_eq!(html.matches("<script").count(), 1);
    assert!(html.contains("<script src=\"rules.js\" defer></script>"));
    assert!(!html.contains("<ipython-input"));
    assert!(html.contains("&lt;ipython-input") || html.contains("&lt;module&gt;"));
    assert!(!html.contains(" style=") && !html.contains(" onclick="));
    assert!(html.contains("Content-Security-Policy"));
}
