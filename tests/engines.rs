//! The CLI matches with `regex`, the WebAssembly package with its own Pike VM (`src/re/pike.rs`,
//! in place of `regex-lite`, which is kept here as a third opinion). Every pattern the engine
//! has must compile in both (a pattern that does not would stop the package at its first use)
//! and find the same spans and groups, and the same run of matches, on every line we have.
#![cfg(not(target_arch = "wasm32"))]

use first_assert::re;
use first_assert::rules::{CLUE_RULES, RULES};
use first_assert::scan::patterns;
use std::fs;
use std::path::Path;

fn all_patterns() -> Vec<String> {
    let mut v = patterns::sources();
    v.extend(first_assert::scan::mention::sources());
    for r in RULES.iter().chain(CLUE_RULES) {
        for block in r.when {
            for p in *block {
                v.extend([p.file, p.function, p.condition, p.path, p.regex].into_iter().flatten().map(str::to_string));
            }
        }
    }
    v
}

/// Lines to match against: every fixture, every demo, every rule example, and lines made to
/// tell ASCII from Unicode classes apart.
fn haystacks() -> Vec<String> {
    let mut lines = Vec::new();
    for dir in ["tests/cases", "tests/fixtures", "tests/priors", "www/demo"] {
        let Ok(entries) = fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join(dir)) else { continue };
        for e in entries.flatten() {
            if let Ok(text) = fs::read_to_string(e.path()) {
                lines.extend(text.lines().map(str::to_string));
                // Notebook outputs as the engine sees them: JSON strings unescaped.
                lines.extend(text.lines().map(|l| l.replace("\\n", "").replace("\\\"", "\"")));
            }
        }
    }
    for r in RULES {
        for ex in r.examples.iter().chain(r.near_misses) {
            lines.extend(ex.lines().map(str::to_string));
        }
    }
    for odd in [
        "RuntimeError:\u{2003}CUDA error: device-side assert triggered",
        "x = labels\u{00a0}[idx]",
        "索引δ_ok = embedding(ids)  # ١٢٣",
        "Loss.cu:٢٥٠: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [٥,0,0] Assertion `t >= 0 && t < n_classes` failed.",
        "File \"/content/ü.py\", line 3, in δfn",
        "CUDA\u{3000}error: device-side assert triggered",
        "HSA_STATUS_ERROR_ÉXCEPTION",
        "label_δ[i] > 0",
    ] {
        lines.push(odd.to_string());
    }
    lines.sort();
    lines.dedup();
    lines.retain(|l| l.len() < 4000);
    lines
}

#[test]
fn every_pattern_compiles_in_both_engines_and_they_agree() {
    let lines = haystacks();
    assert!(lines.len() > 500, "too few lines to compare on: {}", lines.len());
    let mut compared = 0usize;
    for src in all_patterns() {
        // The test build's `regex` has Unicode case tables (a dev-dependency turns them on);
        // the CLI's has not, and `(?i)` fails to compile there.
        assert!(!src.contains("(?i)") && !src.contains("(?i:"), "`{src}`: write the cases out, or `(?i-u:…)`");
        let native = re::compile(&src).unwrap_or_else(|e| panic!("regex: {e}"));
        let pike = re::pike::Regex::new(&src).unwrap_or_else(|e| panic!("the package's engine rejects `{src}`: {e}"));
        let lite = regex_lite::Regex::new(&src).unwrap_or_else(|e| panic!("regex-lite rejects `{src}`: {e}"));
        assert_eq!(native.captures_len(), pike.captures_len(), "group count of `{src}`");
        for line in &lines {
            let a = native.captures(line).map(|c| c.iter().map(|m| m.map(|m| m.range())).collect::<Vec<_>>());
            let b = pike.captures(line).map(|c| c.iter().map(|m| m.map(|m| m.range())).collect::<Vec<_>>());
            assert_eq!(a, b, "the engines disagree on `{src}`\nline: {line:?}\nregex: {}", re::ascii_perl(&src));
            let c = lite.captures(line).map(|c| c.iter().map(|m| m.map(|m| m.range())).collect::<Vec<_>>());
            assert_eq!(b, c, "regex-lite disagrees on `{src}`\nline: {line:?}");
            // Every match, as the scanner iterates them.
            let all = |it: Vec<std::ops::Range<usize>>| it;
            assert_eq!(
                all(native.find_iter(line).map(|m| m.range()).collect()),
                all(pike.find_iter(line).map(|m| m.range()).collect()),
                "every match of `{src}` in {line:?}"
            );
            compared += 1;
        }
    }
    assert!(compared > 10_000);
    eprintln!("{compared} pattern × line comparisons");
}

#[test]
fn ascii_translation() {
    let cases = [
        (r"\d+", "[0-9]+"),
        (r"\w\s\W\S\D", r"[0-9A-Za-z_][\t\n\x0B\x0C\r ][^0-9A-Za-z_][^\t\n\x0B\x0C\r ][^0-9]"),
        (r"[\w.\-]", r"[[0-9A-Za-z_].\-]"),
        (r"[^\]\s]", r"[^\][\t\n\x0B\x0C\r ]]"),
        (r"[]\d]", r"[][0-9]]"),
        (r"[[:alpha:]\d]", r"[[:alpha:][0-9]]"),
        (r"\bx\B", r"(?-u:\b)x(?-u:\B)"),
        (r"\\d", r"\\d"),
        (r"a\.b", r"a\.b"),
    ];
    for (src, want) in cases {
        assert_eq!(re::ascii_perl(src), want, "{src}");
        // Both are valid and mean the same in ASCII.
        re::compile(src).unwrap();
    }
    // Unicode digits, letters and spaces are not classes any more.
    let r = re::compile(r"^\d\w\s$").unwrap();
    assert!(r.is_match("1a "));
    assert!(!r.is_match("١δ\u{2003}"));
    // δ is no word character in ASCII terms: no boundary before it, as in regex-lite.
    assert!(!re::compile(r"\bδ").unwrap().is_match("δ"));
    assert!(!regex_lite::Regex::new(r"\bδ").unwrap().is_match("δ"));
    assert!(!re::pike::Regex::new(r"\bδ").unwrap().is_match("δ"));
    assert!(re::pike::Regex::new(r"^\d\w\s$").unwrap().is_match("1a ") && !re::pike::Regex::new(r"^\d\w\s$").unwrap().is_match("١δ\u{2003}"));
}

/// The needles build.rs computed for each line pattern (`src/rules/needles.rs`) are sound:
/// wherever a pattern matches, the line holds one of them. And they are there to be used:
/// most line patterns have some.
#[test]
fn every_match_holds_one_of_its_needles() {
    let lines = haystacks();
    let (mut patterns, mut with_needles, mut matches) = (0, 0, 0);
    for r in RULES.iter().chain(CLUE_RULES) {
        for p in r.when.iter().flat_map(|b| b.iter()) {
            let Some(src) = p.regex else { continue };
            patterns += 1;
            if p.needles.is_empty() {
                continue;
            }
            with_needles += 1;
            let regex = re::compile(src).unwrap();
            for line in lines.iter().filter(|l| regex.is_match(l)) {
                matches += 1;
                assert!(
                    p.needles.iter().any(|n| line.contains(n)),
                    "`{src}` matches a line without any of {:?}:\n{line}",
                    p.needles
                );
            }
        }
    }
    eprintln!("{with_needles} of {patterns} line patterns have needles; {matches} matches checked");
    assert!(with_needles * 10 >= patterns * 8, "{with_needles} of {patterns}");
    assert!(matches > 100, "{matches}");
}
