//! Meta-tests over the rule data in `rules/`: every rule is documented in both languages, has
//! fixtures, is explained by its own examples and not by its near misses.
#![cfg(not(target_arch = "wasm32"))]

use first_assert::rules::{ruleset, Scope, RULES};
use first_assert::{analyze_text, Lang, Options, Verdict};
use std::collections::HashSet;

fn is_kebab(id: &str) -> bool {
    !id.is_empty()
        && id.split('-').all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit()))
}

/// A snippet without its comments (a `#` outside quotes, to the end of the line).
fn code_only(snippet: &str) -> Vec<String> {
    snippet
        .lines()
        .map(|l| {
            let mut quote = None;
            let mut end = l.len();
            for (i, c) in l.char_indices() {
                match (c, quote) {
                    ('"' | '\'', None) => quote = Some(c),
                    (q, Some(open)) if q == open => quote = None,
                    ('#', None) => {
                        end = i;
                        break;
                    }
                    _ => {}
                }
            }
            l[..end].trim_end().to_string()
        })
        .filter(|l| !l.is_empty())
        .collect()
}

#[test]
fn every_rule_is_documented_in_both_languages() {
    let mut missing = Vec::new();
    for r in RULES {
        for (lang, t) in [("en", r.texts(Lang::En)), ("zh", r.texts(Lang::Zh))] {
            for (field, text) in
                [("title", t.title), ("summary", t.summary), ("why", t.why), ("fix", t.fix), ("check", t.check)]
            {
                if text.trim().len() < 8 {
                    missing.push(format!("{}: [{lang}] {field} is missing or too short", r.path));
                }
            }
        }
        if r.texts(Lang::Zh).summary == r.texts(Lang::En).summary {
            missing.push(format!("{}: the Chinese summary is the English one", r.path));
        }
        if r.id != "no-evidence" {
            if r.texts(Lang::En).snippet.is_empty() || r.texts(Lang::Zh).snippet.is_empty() {
                missing.push(format!(
                    "{}: no snippet in both languages (the code that prints the suspect values)",
                    r.path
                ));
            } else if code_only(r.texts(Lang::En).snippet) != code_only(r.texts(Lang::Zh).snippet) {
                missing
                    .push(format!("{}: the English and Chinese snippets differ in code, not only in comments", r.path));
            }
        }
    }
    assert!(missing.is_empty(), "rules lack documentation:\n{}", missing.join("\n"));
}

#[test]
fn every_rule_has_fixtures() {
    let mut missing = Vec::new();
    for r in RULES {
        if r.examples.is_empty() {
            missing.push(format!("{}: no [[example]]", r.path));
        }
        if r.near_misses.is_empty() {
            missing.push(format!("{}: no [[near_miss]]", r.path));
        }
    }
    assert!(missing.is_empty(), "rules lack fixtures:\n{}", missing.join("\n"));
}

#[test]
fn ids_are_unique_kebab_case_and_references_resolve() {
    let mut seen = HashSet::new();
    for r in RULES {
        assert!(is_kebab(r.id), "{}: id `{}` is not kebab-case", r.path, r.id);
        assert!(seen.insert(r.id), "duplicate id {}", r.id);
        assert_eq!(r.path, format!("rules/{}.toml", r.id));
        if let Some(base) = r.extends {
            let b =
                RULES.iter().find(|x| x.id == base).unwrap_or_else(|| panic!("{}: extends unknown `{base}`", r.path));
            assert!(b.extends.is_none(), "{}: extends `{base}`, which itself extends another rule", r.path);
            assert!(!r.when.is_empty(), "{}: extends a rule but adds no evidence block", r.path);
        } else {
            assert!(
                !r.sites.is_empty() || !r.when.is_empty() || r.id == "no-evidence",
                "{}: no sites and no evidence",
                r.path
            );
        }
    }
    // Compiling the set checks every pattern.
    assert_eq!(ruleset().rules.len(), RULES.len());
}

#[test]
fn message_patterns_declare_a_keyword_that_their_matches_contain() {
    for r in RULES {
        for block in r.when {
            for p in block.iter().filter(|p| p.scope == Scope::Message) {
                let kw = p.keyword.expect("build.rs requires it");
                let re = first_assert::re::compile(p.regex.expect("a regex")).expect("compiles");
                let mut found = false;
                for ex in r.examples.iter().chain(r.near_misses.iter()) {
                    for line in ex.lines() {
                        if re.is_match(line) {
                            found = true;
                            assert!(
                                line.contains(kw),
                                "{}: a line matches `{}` without its keyword `{kw}`: {line}",
                                r.path,
                                p.regex.unwrap()
                            );
                        }
                    }
                }
                assert!(found, "{}: no fixture shows a line for the message pattern `{}`", r.path, p.regex.unwrap());
            }
        }
    }
}

#[test]
fn examples_are_explained_by_their_rule() {
    let mut wrong = Vec::new();
    for r in RULES {
        for (i, ex) in r.examples.iter().enumerate() {
            let report = analyze_text(ex, &Options::default());
            let got = report.cause.as_ref().map(|c| c.rule.as_str());
            if report.verdict != Verdict::DeviceAssert || got != Some(r.id) {
                wrong.push(format!("{} example {}: verdict {:?}, rule {:?}", r.path, i + 1, report.verdict, got));
            } else if report.cause.as_ref().unwrap().category != r.category {
                wrong.push(format!("{} example {}: category differs", r.path, i + 1));
            }
        }
    }
    assert!(wrong.is_empty(), "examples not explained by their rule:\n{}", wrong.join("\n"));
}

#[test]
fn near_misses_are_not_explained_by_their_rule() {
    let mut wrong = Vec::new();
    for r in RULES {
        for (i, nm) in r.near_misses.iter().enumerate() {
            let report = analyze_text(nm, &Options::default());
            // The CPU form of a rule's bug confirms the rule (`confirmed`); it fires no assert.
            if report.verdict == Verdict::DeviceAssert && report.cause.as_ref().is_some_and(|c| c.rule == r.id) {
                wrong.push(format!("{} near miss {} fired the rule", r.path, i + 1));
            }
        }
    }
    assert!(wrong.is_empty(), "near misses that fired:\n{}", wrong.join("\n"));
}

#[test]
fn rule_texts_follow_the_report_language() {
    let ex = RULES.iter().find(|r| r.id == "class-target-out-of-range").unwrap().examples[0];
    let zh = analyze_text(ex, &Options::lang(Lang::Zh));
    let c = zh.cause.unwrap();
    assert_eq!(c.title, RULES.iter().find(|r| r.id == c.rule).unwrap().texts(Lang::Zh).title);
}

#[test]
fn every_site_is_explained_by_the_rule_that_lists_it() {
    // Print each site the way PyTorch 2.x prints it and check the rule that explains it.
    let rs = ruleset();
    let mut wrong = Vec::new();
    for r in RULES {
        for s in r.sites {
            let function = s.function.unwrap_or("operator()");
            let condition = s.condition.unwrap_or("false");
            let line = format!("/pytorch/aten/src/ATen/native/cuda/{}:120: {function}: block: [0,0,0], thread: [1,0,0] Assertion `{condition}` failed.", s.file);
            let report = analyze_text(&line, &Options::default());
            let got = report.cause.as_ref().map(|c| c.rule.clone());
            if got.as_deref() != Some(r.id) {
                wrong.push(format!("{} {function} `{condition}`: {got:?}, expected {}", s.file, r.id));
            }
            let site = report.first_assert.and_then(|f| f.site).expect("a site");
            assert!(rs.site_rule(&site, Some(function)).is_some());
        }
    }
    assert!(wrong.is_empty(), "sites explained by the wrong rule:\n{}", wrong.join("\n"));
}

/// The rules' `[confirm]` data is whole: every op the probe cell names in its errors (a quoted
/// op in probe/probe.py) confirms exactly one rule, and no rule confirms an op the probe never
/// names; every bound and CPU form names a rule that exists, and a rule the probe confirms
/// suspects one of the probe's groups.
#[test]
fn every_op_the_probe_names_confirms_a_rule_and_only_those() {
    use first_assert::rules::{CPU_FORMS, PROBE_BOUNDS, PROBE_OPS};
    let probe = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/probe/probe.py")).unwrap();
    let is_op = |s: &str| {
        ["F.", "torch."].iter().any(|p| s.starts_with(p) && s[p.len()..].chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
            || s == "tensor[index]"
            || ["index_select", "gather", "scatter", "index_add", "index_copy", "index_fill"].iter().any(|p| s.starts_with(p))
                && s.chars().all(|c| c.is_ascii_lowercase() || c == '_')
    };
    let named: HashSet<&str> = probe.split('"').skip(1).step_by(2).filter(|s| is_op(s)).collect();
    assert!(named.len() >= 15, "only {} ops read from probe.py: {named:?}", named.len());
    let confirmed: HashSet<&str> = PROBE_OPS.iter().map(|(op, _)| *op).collect();
    assert_eq!(confirmed.len(), PROBE_OPS.len(), "an op is confirmed twice");
    for op in &named {
        assert!(confirmed.contains(op), "the probe names `{op}`, but no rule's [confirm] probe_ops lists it");
    }
    for op in &confirmed {
        assert!(named.contains(op), "a rule's [confirm] lists `{op}`, which the probe never names");
    }
    let rs = ruleset();
    for (what, rule) in PROBE_OPS.iter().chain(PROBE_BOUNDS).map(|(x, r)| (*x, *r)).chain(CPU_FORMS.iter().map(|f| (f.message, f.rule))) {
        let i = rs.index(rule).unwrap_or_else(|| panic!("`{what}` confirms `{rule}`, which is no rule"));
        assert!(!RULES[i].probe.is_empty(), "`{rule}` is confirmed by `{what}` but suspects none of the probe's groups");
    }
    assert!(CPU_FORMS.len() >= 15, "only {} CPU forms", CPU_FORMS.len());
}
