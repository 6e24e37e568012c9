//! Words last: the diagnosis decides in no language, and one pass words its findings. Wording
//! the same findings in another language, or a worded report again, gives the report of an
//! analysis in that language, on every input the project has; and no module of the diagnosis
//! makes a sentence.
#![cfg(not(target_arch = "wasm32"))]

use first_assert::{analyze_bytes, diagnose_bytes_keeping, words, Lang, Options};
use std::path::Path;

fn inputs() -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for dir in ["tests/cases", "tests/priors", "www/demo"] {
        for e in std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join(dir)).expect(dir) {
            let p = e.expect("an entry").path();
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if p.is_file() && !name.ends_with(".expect.json") {
                files.push(p);
            }
        }
    }
    files.sort();
    files
}

#[test]
fn findings_worded_in_either_language_are_that_languages_report() {
    let files = inputs();
    assert!(files.len() >= 150, "only {} inputs", files.len());
    let mut worded = 0;
    for file in &files {
        let bytes = std::fs::read(file).expect("readable");
        let name = file.file_name().and_then(|n| n.to_str());
        // Decided once, in English; worded in both.
        let Ok((findings, _)) = diagnose_bytes_keeping(bytes.clone(), name, &Options::lang(Lang::En)) else { continue };
        for lang in Lang::ALL {
            let want = analyze_bytes(&bytes, name, &Options::lang(lang)).expect("the same input reads");
            let got = words::report(findings.clone(), lang);
            assert!(got == want, "{}: the {lang:?} wording differs from the {lang:?} analysis", file.display());
            // A report worded in the other language first, then in this one (the page's switch).
            let other = if lang == Lang::En { Lang::Zh } else { Lang::En };
            let mut again = words::report(findings.clone(), other);
            words::word(&mut again, &findings.keys, lang);
            assert!(again == want, "{}: worded again in {lang:?}, it differs", file.display());
            worded += 1;
        }
    }
    assert!(worded >= 300, "only {worded} reports compared");
}

/// The diagnosis's files, read as text: none names a language or fills a sentence.
#[test]
fn the_diagnosis_makes_no_sentence() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/diagnose");
    let mut read = 0;
    for e in std::fs::read_dir(&dir).expect("src/diagnose") {
        let p = e.expect("an entry").path();
        let src = std::fs::read_to_string(&p).expect("readable");
        // The tests below a module may word things to check them.
        let code = src.split("#[cfg(all(test").next().unwrap_or(&src);
        for banned in ["Lang", "location(", ".text(", ".fill(", "texts("] {
            assert!(!code.contains(banned), "{} uses `{banned}`: words belong in src/words", p.display());
        }
        read += 1;
    }
    assert!(read >= 10, "only {read} files read");
}

#[test]
fn the_chinese_names_the_probe_one_way() {
    // 探针 (the probe) and 探针单元格 (its cell); not 探测, 检查单元格 or 探测单元格.
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    for file in ["i18n/messages.toml", "probe/texts.toml"] {
        let text = std::fs::read_to_string(root.join(file)).unwrap();
        // Every Chinese line, a multi-line text's too.
        let chinese = |l: &str| l.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c));
        for (n, line) in text.lines().enumerate().filter(|(_, l)| chinese(l)) {
            for other in ["探测", "检查单元格"] {
                assert!(!line.contains(other), "{file}:{}: {other} in {line}", n + 1);
            }
        }
    }
}
