//! Compiles the data files into Rust tables, so that the engine carries its rules and its
//! message catalogue without parsing anything at run time (and without a TOML parser in the
//! WebAssembly build).
//!
//! - `rules/*.toml`: one rule per file; see `rules/README.md` for the format.
//! - `i18n/messages.toml`: every sentence a user reads, in English and Simplified Chinese.
//! - `probe/probe.py` and `probe/texts.toml`: the probe cell, composed once per language into
//!   the catalogue's message `probe_code`.
//!
//! The build checks structure (unknown keys, types, categories, scopes). Whether each rule has
//! its documentation and fixtures is checked by `tests/rules.rs`, so that a missing text is a
//! readable test failure rather than a build error.

use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

// The literals a rule's line pattern cannot match without (see the file).
#[path = "src/rules/needles.rs"]
mod needles;

// The checks a rule may cite.
#[path = "src/rules/check_ids.rs"]
mod check_ids;

// What confirms a rule (`[confirm]`), the probe cell's composition, and the sharing table.
#[path = "build/confirm.rs"]
mod confirm;
#[path = "build/probe.rs"]
mod probe;
#[path = "build/share.rs"]
mod share;

use confirm::{confirm_tables, Confirm};
use probe::{compose_probe, probe_groups};
use share::share_table;

const CATEGORIES: &[(&str, &str)] = &[
    ("invalid_label", "InvalidLabel"),
    ("index_out_of_bounds", "IndexOutOfBounds"),
    ("invalid_value", "InvalidValue"),
    ("shape_mismatch", "ShapeMismatch"),
    ("dtype_mismatch", "DtypeMismatch"),
    ("stale_context", "StaleContext"),
    ("unknown", "Unknown"),
];

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RuleFile {
    id: String,
    category: String,
    #[serde(default = "one")]
    confidence: f64,
    #[serde(default)]
    priority: i64,
    #[serde(default)]
    extends: Option<String>,
    #[serde(default)]
    ops: Vec<String>,
    #[serde(default)]
    probe: Vec<String>,
    #[serde(default)]
    site: Vec<Site>,
    #[serde(default)]
    when: Vec<When>,
    #[serde(default)]
    confirm: Confirm,
    #[serde(default)]
    en: Text,
    #[serde(default)]
    zh: Text,
    #[serde(default)]
    example: Vec<Example>,
    #[serde(default)]
    near_miss: Vec<Example>,
}

fn one() -> f64 {
    1.0
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Site {
    file: String,
    #[serde(default)]
    function: Option<String>,
    #[serde(default)]
    condition: Option<String>,
    #[serde(default)]
    op: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct When {
    #[serde(default)]
    kernel: Vec<KernelPat>,
    #[serde(default)]
    frame: Vec<FramePat>,
    #[serde(default)]
    code: Vec<TextPat>,
    #[serde(default)]
    message: Vec<MessagePat>,
    #[serde(default)]
    raised: Vec<TextPat>,
    #[serde(default)]
    check: Vec<CheckPat>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum CheckPat {
    Id(String),
    Full(CheckFull),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CheckFull {
    id: String,
    #[serde(default)]
    weight: Option<f64>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum KernelPat {
    Condition(String),
    Full(KernelFull),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct KernelFull {
    #[serde(default)]
    file: Option<String>,
    #[serde(default)]
    function: Option<String>,
    #[serde(default)]
    condition: Option<String>,
    #[serde(default)]
    weight: Option<f64>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum FramePat {
    Function(String),
    Full(FrameFull),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FrameFull {
    #[serde(default)]
    function: Option<String>,
    #[serde(default)]
    path: Option<String>,
    #[serde(default)]
    weight: Option<f64>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum TextPat {
    Regex(String),
    Full(TextFull),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TextFull {
    regex: String,
    #[serde(default)]
    weight: Option<f64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MessagePat {
    keyword: String,
    regex: String,
    #[serde(default)]
    weight: Option<f64>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct Text {
    #[serde(default)]
    title: String,
    #[serde(default)]
    summary: String,
    #[serde(default)]
    why: String,
    #[serde(default)]
    fix: String,
    #[serde(default)]
    check: String,
    #[serde(default)]
    snippet: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Example {
    text: String,
    #[serde(default)]
    #[allow(dead_code)]
    note: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Message {
    en: String,
    zh: String,
}

fn main() {
    println!("cargo:rerun-if-changed=rules");
    println!("cargo:rerun-if-changed=i18n/messages.toml");
    println!("cargo:rerun-if-changed=src/rules/needles.rs");
    println!("cargo:rerun-if-changed=probe/probe.py");
    println!("cargo:rerun-if-changed=probe/texts.toml");
    println!("cargo:rerun-if-changed=python/first_assert/_fd.py");
    println!("cargo:rerun-if-changed=i18n/ops.zh.toml");
    println!("cargo:rerun-if-changed=share/patterns.toml");
    let out = std::env::var("OUT_DIR").expect("OUT_DIR is set by cargo");
    let out = Path::new(&out);
    let template = probe::probe_template();
    let groups = probe_groups(&template);
    let mut texts = Vec::new();
    let mut rules = compile_rules(Path::new("rules"), &groups, &mut texts);
    let ids: Vec<&str> = texts.iter().map(|t| t.0.as_str()).collect();
    rules.push_str(&compile_priors(Path::new("rules/priors/priors.toml"), &ids));
    std::fs::write(out.join("rules.rs"), rules).expect("write rules.rs");
    let mut table = read_messages(Path::new("i18n/messages.toml"));
    let probe_texts = read_messages(Path::new("probe/texts.toml"));
    let probe =
        Message { en: compose_probe(&template, &probe_texts, "en"), zh: compose_probe(&template, &probe_texts, "zh") };
    if table.insert("probe_code".into(), probe).is_some() {
        fail("i18n/messages.toml: `probe_code` is made from probe/probe.py; the key is taken".into());
    }
    let list = groups.iter().map(|(id, ops)| format!("({}, {})", lit(id), lit(ops))).collect::<Vec<_>>();
    let groups_rs = format!("/// The probe's check groups (`_GROUPS` in probe/probe.py): id, the ops it checks.\npub const GROUPS: &[(&str, &str)] = &[{}];\n", list.join(", "));
    // The labels of the probe's error, which the engine reads back (src/diagnose/confirm.rs).
    let mut labels = String::from("/// The labels of the probe's error lines (probe/texts.toml): key, English, Chinese.\npub const LABELS: &[(&str, &str, &str)] = &[");
    for (k, m) in probe_texts.iter().filter(|(k, _)| k.starts_with("label_")) {
        labels.push_str(&format!("({}, {}, {}), ", lit(k), lit(m.en.trim()), lit(m.zh.trim())));
    }
    labels.push_str("];\n");
    // The banner the probe prints when it turns on, up to its colon: it marks a probed run.
    let on = probe_texts.get("on").unwrap_or_else(|| fail("probe/texts.toml: no `on` text".into()));
    let head = |t: &str| t.trim().split([':', '：']).next().unwrap_or("").to_string();
    let banner = format!(
        "/// The probe's banner when it turns on, up to its colon: English, Chinese.\npub const BANNER: [&str; 2] = [{}, {}];\n",
        lit(&head(&on.en)),
        lit(&head(&on.zh))
    );
    // The probe's exception (`class NAME(RuntimeError)` in probe/probe.py): its name marks the
    // probe's error wherever the engine reads output (src/facts.rs).
    let error = template
        .lines()
        .find_map(|l| l.strip_prefix("class ")?.strip_suffix("(RuntimeError):"))
        .unwrap_or_else(|| fail("probe/probe.py: no `class NAME(RuntimeError):`".into()));
    std::fs::write(
        out.join("probe_error.rs"),
        format!("/// The probe's exception, as probe/probe.py names it.\npub const PROBE_ERROR: &str = {};\n{banner}", lit(error)),
    )
    .expect("write probe_error.rs");
    let groups_rs = groups_rs + &labels;
    std::fs::write(out.join("probe_groups.rs"), groups_rs).expect("write probe_groups.rs");
    std::fs::write(out.join("messages.rs"), compile_messages(Path::new("i18n/messages.toml"), &table))
        .expect("write messages.rs");
    let share = share_table(Path::new("share/patterns.toml"));
    for lang in ["en", "zh"] {
        // What the page's share.js reads: the table and the Markdown report's texts.
        let texts: Vec<String> = table
            .iter()
            .filter(|(k, _)| k.starts_with("share_"))
            .map(|(k, m)| format!("{}: {}", json(k), json(if lang == "en" { &m.en } else { &m.zh })))
            .collect();
        let doc = format!(
            "{{\"lang\": {},\n\"table\": {},\"messages\": {{\n{}\n}}\n}}\n",
            json(lang),
            share.trim_end(),
            texts.join(",\n")
        );
        std::fs::write(out.join(format!("share-web.{lang}.json")), doc).expect("write a share document");
    }
    std::fs::write(out.join("share.json"), share).expect("write share.json");
    let zh_texts = translate_ops(&texts, Path::new("i18n/ops.zh.toml"));
    for (lang, texts) in [("en", &texts), ("zh", &zh_texts)] {
        // The whole document (native builds), the web's (the npm package's: no native-only
        // texts), and the web's in two parts for the page: its first visit without the probe's
        // code, which it fetches at the first sign of input.
        let parts: [(&str, fn(&str) -> bool); 3] = [
            ("catalogue", |_| true),
            ("catalogue-web", |k| !native_only(k)),
            ("catalogue-page", |k| !native_only(k) && k != LATE),
        ];
        for (name, keep) in parts {
            let doc = catalogue(lang, &table, texts, keep);
            std::fs::write(out.join(format!("{name}.{lang}.json")), doc).expect("write a catalogue");
        }
        let probe = &table[LATE];
        let version = std::env::var("CARGO_PKG_VERSION").unwrap_or_default();
        let doc = format!(
            "{{\n\"schema\": 1,\n\"lang\": {},\n\"version\": {},\n\"{LATE}\": {}\n}}\n",
            json(lang),
            json(&version),
            json(if lang == "en" { &probe.en } else { &probe.zh }.trim_end_matches('\n'))
        );
        std::fs::write(out.join(format!("catalogue-probe.{lang}.json")), doc).expect("write a catalogue");
    }
}

/// The rules' ops with the Chinese of `path` (i18n/ops.zh.toml) where an op has English words
/// in it: a build that would show an English phrase in the Chinese report fails, and so does a
/// line of the file no rule uses.
fn translate_ops(
    texts: &[(String, RuleTexts, RuleTexts, RuleOps)],
    path: &Path,
) -> Vec<(String, RuleTexts, RuleTexts, RuleOps)> {
    let src = std::fs::read_to_string(path).unwrap_or_else(|e| fail(format!("cannot read {}: {e}", path.display())));
    let table: BTreeMap<String, String> =
        toml::from_str(&src).unwrap_or_else(|e| fail(format!("{}: {e}", path.display())));
    let mut used = std::collections::BTreeSet::new();
    // English words: two letters or more, a space, two lowercase letters or more ("with offsets"),
    // or a bracket opening on a word of small letters ("(not BCEWithLogitsLoss)", "(on CUDA)").
    let prose = |o: &str| {
        let b = o.as_bytes();
        let bracketed = |j: usize| {
            let n = b[j..].iter().take_while(|c| c.is_ascii_lowercase()).count();
            n >= 2 && b.get(j + n) == Some(&b' ')
        };
        (0..b.len()).any(|i| {
            b[i] == b' '
                && i >= 2
                && ((b[i - 2..i].iter().all(u8::is_ascii_alphabetic)
                    && b.get(i + 1..i + 3).is_some_and(|w| w.iter().all(u8::is_ascii_lowercase)))
                    || (b.get(i + 1) == Some(&b'(') && bracketed(i + 2)))
        })
    };
    let mut tr = |o: &String| match table.get(o) {
        Some(t) => {
            used.insert(o.clone());
            t.clone()
        }
        None if prose(o) => fail(format!("{}: no Chinese for the op `{o}`", path.display())),
        None => o.clone(),
    };
    let out = texts
        .iter()
        .map(|(id, en, zh, (ops, site_ops))| {
            (
                id.clone(),
                en.clone(),
                zh.clone(),
                (ops.iter().map(&mut tr).collect(), site_ops.iter().map(&mut tr).collect()),
            )
        })
        .collect();
    if let Some(k) = table.keys().find(|k| !used.contains(*k)) {
        fail(format!("{}: `{k}` is no rule's op", path.display()));
    }
    out
}

fn fail(msg: String) -> ! {
    // A panic in a build script prints the message and stops the build: the right outcome for
    // a malformed data file.
    panic!("\n\nfirst-assert data error: {msg}\n\n");
}

/// A rule's texts in one language, in the catalogue's field order.
type RuleTexts = [String; 6];

/// A rule's ops and its sites' ops (the same in every language; the catalogue carries them so
/// that the WebAssembly package need not).
type RuleOps = (Vec<String>, Vec<String>);
/// The catalogue's field names for a rule's texts, in that order.
const RULE_FIELDS: [&str; 6] = ["title", "summary", "why", "fix", "check", "snippet"];

fn rule_texts(t: &Text) -> RuleTexts {
    [
        t.title.trim().to_string(),
        t.summary.trim().to_string(),
        t.why.trim().to_string(),
        t.fix.trim().to_string(),
        t.check.trim().to_string(),
        t.snippet.trim_matches('\n').to_string(),
    ]
}

/// Compiles the rules into Rust tables; their texts go to the catalogue: (id, en, zh) each.
fn compile_rules(
    dir: &Path,
    groups: &[(String, String)],
    texts: &mut Vec<(String, RuleTexts, RuleTexts, RuleOps)>,
) -> String {
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| fail(format!("cannot read {}: {e}", dir.display())))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    paths.sort();
    let mut code = String::from("// Generated by build.rs from rules/*.toml. Do not edit.\n");
    code.push_str("pub static RULES: &[RuleDef] = &[\n");
    let mut ids = BTreeMap::new();
    let mut confirms = Vec::new();
    for path in &paths {
        println!("cargo:rerun-if-changed={}", path.display());
        let src =
            std::fs::read_to_string(path).unwrap_or_else(|e| fail(format!("cannot read {}: {e}", path.display())));
        let rule: RuleFile = toml::from_str(&src).unwrap_or_else(|e| fail(format!("{}: {e}", path.display())));
        let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or_default();
        if rule.id != stem {
            fail(format!("{}: id `{}` must equal the file name `{stem}`", path.display(), rule.id));
        }
        if ids.insert(rule.id.clone(), ()).is_some() {
            fail(format!("duplicate rule id `{}`", rule.id));
        }
        if let Some(g) = rule.probe.iter().find(|g| !groups.iter().any(|(id, _)| id == *g)) {
            fail(format!("{}: probe group `{g}` is not in probe/probe.py's _GROUPS", path.display()));
        }
        emit_rule(&mut code, path, texts.len(), &rule);
        let site_ops = rule.site.iter().map(|s| s.op.clone().unwrap_or_default()).collect();
        texts.push((rule.id.clone(), rule_texts(&rule.en), rule_texts(&rule.zh), (rule.ops.clone(), site_ops)));
        confirms.push((path.as_path(), rule.id, rule.confirm));
    }
    code.push_str("];\n");
    code.push_str(&confirm_tables(&confirms));
    code
}

/// rules/priors/priors.toml: what usually causes the error, per context (README.md beside it).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PriorsFile {
    base: PriorRow,
    clue: Vec<PriorRow>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PriorRow {
    #[serde(default)]
    id: String,
    #[serde(default)]
    kind: String,
    source: String,
    #[serde(default)]
    weight: Option<f64>,
    #[serde(default)]
    when: When,
    rates: BTreeMap<String, f64>,
}

/// The clues as rules of their own (one evidence block each, no texts: the rule set that finds
/// them is the rules' own machinery), and their rates by the index of the rule they name.
fn compile_priors(path: &Path, rule_ids: &[&str]) -> String {
    println!("cargo:rerun-if-changed={}", path.display());
    let src = std::fs::read_to_string(path).unwrap_or_else(|e| fail(format!("cannot read {}: {e}", path.display())));
    let file: PriorsFile = toml::from_str(&src).unwrap_or_else(|e| fail(format!("{}: {e}", path.display())));
    let rates = |row: &PriorRow| -> String {
        let sum: f64 = row.rates.values().sum();
        if (sum - 1.0).abs() > 0.005 || row.source.trim().is_empty() {
            fail(format!("{}: `{}`: rates sum to {sum:.3} (not 1) or no source", path.display(), row.id));
        }
        let mut v: Vec<(usize, f64)> = row
            .rates
            .iter()
            .map(|(id, r)| match rule_ids.iter().position(|x| x == id) {
                Some(i) => (i, *r),
                None => fail(format!("{}: `{}` rates an unknown rule `{id}`", path.display(), row.id)),
            })
            .collect();
        v.sort_by_key(|p| p.0);
        let items: Vec<String> = v.iter().map(|(i, r)| format!("({i}, {:?})", *r as f32)).collect();
        format!("&[{}]", items.join(", "))
    };
    let mut code = String::from("/// What usually causes the error with nothing else to go on (rule index, share).\n");
    let _ = writeln!(code, "pub static BASE_RATES: &[(usize, f32)] = {};", rates(&file.base));
    code.push_str("/// The clues of rules/priors/priors.toml, as rules the rule set can look for.\n");
    code.push_str("pub static CLUE_RULES: &[RuleDef] = &[\n");
    let mut defs = String::from("/// The clues' kinds, weights and rates, in CLUE_RULES' order.\npub static CLUES: &[ClueDef] = &[\n");
    for (i, row) in file.clue.into_iter().enumerate() {
        let kind = match row.kind.as_str() {
            "task" => "Task",
            "stage" => "Stage",
            "name" => "Name",
            k => fail(format!("{}: `{}`: kind `{k}` is not task, stage or name", path.display(), row.id)),
        };
        let w = &row.when;
        if !w.kernel.is_empty() || !w.message.is_empty() || !w.check.is_empty() {
            fail(format!("{}: `{}`: a clue reads code, raised and frame only", path.display(), row.id));
        }
        let _ = writeln!(
            defs,
            "  ClueDef {{ kind: ClueKind::{kind}, weight: {:?}, rates: {}, source: native({}) }},",
            row.weight.unwrap_or(1.0) as f32,
            rates(&row),
            lit(row.source.trim())
        );
        let rule = RuleFile {
            id: row.id.clone(),
            category: "unknown".into(),
            confidence: 1.0,
            priority: 0,
            extends: None,
            ops: Vec::new(),
            probe: Vec::new(),
            site: Vec::new(),
            when: vec![row.when],
            confirm: Confirm::default(),
            en: Text::default(),
            zh: Text::default(),
            example: Vec::new(),
            near_miss: Vec::new(),
        };
        emit_rule(&mut code, path, i, &rule);
    }
    code.push_str("];\n");
    defs.push_str("];\n");
    code + &defs
}

fn category_variant(path: &Path, c: &str) -> &'static str {
    CATEGORIES
        .iter()
        .find(|(id, _)| *id == c)
        .map(|(_, v)| *v)
        .unwrap_or_else(|| fail(format!("{}: unknown category `{c}`", path.display())))
}

fn lit(s: &str) -> String {
    format!("{s:?}")
}

fn opt(s: &Option<String>) -> String {
    match s {
        Some(s) => format!("Some({s:?})"),
        None => "None".into(),
    }
}

fn emit_rule(code: &mut String, path: &Path, index: usize, r: &RuleFile) {
    let cat = category_variant(path, &r.category);
    if !(0.0..=1.0).contains(&r.confidence) {
        fail(format!("{}: confidence must be within 0..1", path.display()));
    }
    let _ = writeln!(code, "  RuleDef {{");
    let _ = writeln!(code, "    index: {index},");
    let _ = writeln!(code, "    id: {},", lit(&r.id));
    let _ = writeln!(code, "    path: native({}),", lit(&path.display().to_string()));
    let _ = writeln!(code, "    category: Category::{cat},");
    let _ = writeln!(code, "    confidence: {:?},", r.confidence as f32);
    let _ = writeln!(code, "    priority: {},", r.priority);
    let _ = writeln!(code, "    extends: {},", opt(&r.extends));
    let ops: Vec<String> = r.ops.iter().map(|o| lit(o)).collect();
    let _ = writeln!(code, "    ops: native_list(&[{}]),", ops.join(", "));
    let probe: Vec<String> = r.probe.iter().map(|o| lit(o)).collect();
    let _ = writeln!(code, "    probe: &[{}],", probe.join(", "));
    let _ = writeln!(code, "    sites: &[");
    for s in &r.site {
        if s.condition.is_none() && s.function.is_none() {
            fail(format!("{}: a [[site]] needs a condition or a function", path.display()));
        }
        let _ = writeln!(
            code,
            "      SiteDef {{ file: {}, function: {}, condition: {}, op: native_opt({}) }},",
            lit(&s.file),
            opt(&s.function),
            opt(&s.condition),
            opt(&s.op)
        );
    }
    let _ = writeln!(code, "    ],");
    let _ = writeln!(code, "    when: &[");
    for w in &r.when {
        let mut pats = Vec::new();
        for k in &w.kernel {
            let (file, function, condition, weight) = match k {
                KernelPat::Condition(c) => (None, None, Some(c.clone()), None),
                KernelPat::Full(f) => (f.file.clone(), f.function.clone(), f.condition.clone(), f.weight),
            };
            if file.is_none() && function.is_none() && condition.is_none() {
                fail(format!("{}: an empty kernel pattern", path.display()));
            }
            pats.push(pat("Kernel", file, function, condition, None, None, None, weight));
        }
        for f in &w.frame {
            let (function, p, weight) = match f {
                FramePat::Function(s) => (Some(s.clone()), None, None),
                FramePat::Full(f) => (f.function.clone(), f.path.clone(), f.weight),
            };
            if function.is_none() && p.is_none() {
                fail(format!("{}: an empty frame pattern", path.display()));
            }
            pats.push(pat("Frame", None, function, None, p, None, None, weight));
        }
        for (scope, list) in [("Code", &w.code), ("Raised", &w.raised)] {
            for t in list {
                let (re, weight) = match t {
                    TextPat::Regex(s) => (s.clone(), None),
                    TextPat::Full(f) => (f.regex.clone(), f.weight),
                };
                pats.push(pat(scope, None, None, None, None, Some(re), None, weight));
            }
        }
        for c in &w.check {
            let (id, weight) = match c {
                CheckPat::Id(id) => (id.clone(), None),
                CheckPat::Full(f) => (f.id.clone(), f.weight),
            };
            if !check_ids::IDS.contains(&id.as_str()) {
                fail(format!("{}: unknown check `{id}` (known: {:?})", path.display(), check_ids::IDS));
            }
            // The check's id rides in the keyword field (a check has no text to match).
            pats.push(pat("Check", None, None, None, None, None, Some(id), weight));
        }
        for m in &w.message {
            if m.keyword.trim().is_empty() {
                fail(format!("{}: a message pattern needs a keyword", path.display()));
            }
            pats.push(pat("Message", None, None, None, None, Some(m.regex.clone()), Some(m.keyword.clone()), m.weight));
        }
        if pats.is_empty() {
            fail(format!("{}: an empty [[when]] block", path.display()));
        }
        let _ = writeln!(code, "      &[\n{}      ],", pats.join(""));
    }
    let _ = writeln!(code, "    ],");
    // Fixtures are for the native tests; the WebAssembly build leaves them out.
    let ex: Vec<String> = r.example.iter().map(|e| lit(&e.text)).collect();
    let _ = writeln!(code, "    examples: fixtures(&[{}]),", ex.join(", "));
    let nm: Vec<String> = r.near_miss.iter().map(|e| lit(&e.text)).collect();
    let _ = writeln!(code, "    near_misses: fixtures(&[{}]),", nm.join(", "));
    let _ = writeln!(code, "  }},");
}

#[allow(clippy::too_many_arguments)]
fn pat(
    scope: &str,
    file: Option<String>,
    function: Option<String>,
    condition: Option<String>,
    path: Option<String>,
    regex: Option<String>,
    keyword: Option<String>,
    weight: Option<f64>,
) -> String {
    format!(
        "        PatDef {{ scope: Scope::{scope}, file: {}, function: {}, condition: {}, path: {}, regex: {}, needles: &{:?}, keyword: {}, weight: {:?} }},\n",
        opt(&file),
        opt(&function),
        opt(&condition),
        opt(&path),
        opt(&regex),
        regex.as_deref().map(needles::needles).unwrap_or_default(),
        opt(&keyword),
        weight.unwrap_or(1.0) as f32
    )
}

fn camel(key: &str) -> String {
    key.split('_')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let mut c = p.chars();
            match c.next() {
                Some(f) => f.to_ascii_uppercase().to_string() + c.as_str(),
                None => String::new(),
            }
        })
        .collect()
}

/// The command line's (its text report's too) and the rules page's sentences: the WebAssembly
/// package has no `Msg` for them, and the web catalogue leaves them out. The Markdown report's
/// (`share_`) go to the page in its share documents instead, fetched with share.js.
fn native_only(key: &str) -> bool {
    ["cli_", "docs_", "render_", "share_", "host_", "kernel_"].iter().any(|p| key.starts_with(p))
}

/// The message the page's catalogue leaves to a second part, fetched at the first sign of
/// input: the probe's code, a fifth of the catalogue.
const LATE: &str = "probe_code";

/// Key prefixes the WebAssembly package has no `Msg` for: the native-only ones, and the page's
/// and its view's texts and the sharing texts (the Markdown report, the link), which the page
/// reads from the web catalogue itself, and the hosts' (bundled into their scripts).
const NOT_IN_PACKAGE: [&str; 8] = ["cli_", "docs_", "render_", "page_", "view_", "share_", "host_", "kernel_"];

/// The package has no `Msg` for these either, and no `Msg` for the probe's code, which it keeps
/// apart (a document may leave it to its second part).
fn not_in_package(key: &str) -> bool {
    NOT_IN_PACKAGE.iter().any(|p| key.starts_with(p)) || key == LATE
}

/// FNV-1a, 64 bits (`src/catalogue.rs` computes the same).
fn fnv(bytes: impl Iterator<Item = u8>) -> u64 {
    bytes.fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3))
}

fn read_messages(path: &Path) -> BTreeMap<String, Message> {
    let src = std::fs::read_to_string(path).unwrap_or_else(|e| fail(format!("cannot read {}: {e}", path.display())));
    toml::from_str(&src).unwrap_or_else(|e| fail(format!("{}: {e}", path.display())))
}

fn compile_messages(path: &Path, table: &BTreeMap<String, Message>) -> String {
    let gate = |key: &str| if not_in_package(key) { "#[cfg(not(target_arch = \"wasm32\"))] " } else { "" };
    let mut code = String::from("// Generated by build.rs from i18n/messages.toml. Do not edit.\n");
    code.push_str("/// A sentence of the user interface; its text comes from `i18n/messages.toml`.\n");
    code.push_str("#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]\npub enum Msg {\n");
    for key in table.keys() {
        if !key.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_') {
            fail(format!("{}: message key `{key}` must be snake_case", path.display()));
        }
        let _ = writeln!(code, "    {}{},", gate(key), camel(key));
    }
    code.push_str("}\n\nimpl Msg {\n");
    for (cfg, keep) in [("not(target_arch = \"wasm32\")", true), ("target_arch = \"wasm32\"", false)] {
        let _ = write!(
            code,
            "    /// Every message, in key order.\n    #[cfg({cfg})]\n    pub const ALL: &'static [Msg] = &["
        );
        for key in table.keys().filter(|k| keep || !not_in_package(k)) {
            let _ = write!(code, "Msg::{}, ", camel(key));
        }
        code.push_str("];\n");
    }
    code.push_str("\n    /// The message's place in [`Msg::ALL`].\n    pub fn index(self) -> usize {\n        self as usize\n    }\n");
    // The package has no keys: it reads its messages in document order (skipping the page's
    // and the command line's) and checks them against a hash of its keys.
    let package_keys: Vec<&String> = table.keys().filter(|k| !not_in_package(k)).collect();
    let _ = write!(
        code,
        "\n    /// FNV-1a of the package's keys, each followed by a newline, in [`Msg::ALL`] order.\n    #[cfg(target_arch = \"wasm32\")]\n    pub(crate) const KEYS_HASH: u64 = {};\n",
        fnv(package_keys.iter().flat_map(|k| k.bytes().chain(std::iter::once(b'\n'))))
    );
    let _ = write!(
        code,
        "\n    /// The key prefixes of the messages the package has no `Msg` for.\n    #[cfg(target_arch = \"wasm32\")]\n    pub(crate) const NOT_IN_PACKAGE: &'static [&'static str] = &{NOT_IN_PACKAGE:?};\n"
    );
    let _ = write!(
        code,
        "\n    /// The key of the message a document may leave to its second part (the probe's code).\n    pub(crate) const LATE: &'static str = {};\n",
        lit(LATE)
    );
    code.push_str("\n    /// The key of the message in `i18n/messages.toml`.\n    #[cfg(not(target_arch = \"wasm32\"))]\n    pub fn key(self) -> &'static str {\n        match self {\n");
    for key in table.keys() {
        let _ = writeln!(code, "            {}Msg::{} => {},", gate(key), camel(key), lit(key));
    }
    code.push_str("        }\n    }\n}\n");
    for (key, m) in table {
        if m.en.trim().is_empty() || m.zh.trim().is_empty() {
            fail(format!("{}: message `{key}` needs both en and zh", path.display()));
        }
    }
    code
}

/// A JSON string literal.
fn json(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The catalogue of one language (`src/catalogue.rs` reads it): the messages `keep` keeps by
/// key and every rule's texts by rule id.
fn catalogue(
    lang: &str,
    messages: &BTreeMap<String, Message>,
    rules: &[(String, RuleTexts, RuleTexts, RuleOps)],
    keep: fn(&str) -> bool,
) -> String {
    let version = std::env::var("CARGO_PKG_VERSION").unwrap_or_default();
    let mut out =
        format!("{{\n\"schema\": 1,\n\"lang\": {},\n\"version\": {},\n\"messages\": {{", json(lang), json(&version));
    let keys = messages.iter().filter(|(k, _)| keep(k));
    for (i, (key, m)) in keys.enumerate() {
        let text = if lang == "en" { &m.en } else { &m.zh };
        let _ = write!(out, "{}\n{}: {}", if i == 0 { "" } else { "," }, json(key), json(text.trim_end_matches('\n')));
    }
    out.push_str("\n},\n\"rules\": {");
    for (i, (id, en, zh, (ops, site_ops))) in rules.iter().enumerate() {
        let t = if lang == "en" { en } else { zh };
        let mut fields: Vec<String> =
            RULE_FIELDS.iter().zip(t).map(|(f, v)| format!("{}: {}", json(f), json(v))).collect();
        let list = |v: &[String]| v.iter().map(|s| json(s)).collect::<Vec<_>>().join(", ");
        fields.push(format!("\"ops\": [{}], \"site_ops\": [{}]", list(ops), list(site_ops)));
        let _ = write!(out, "{}\n{}: {{{}}}", if i == 0 { "" } else { "," }, json(id), fields.join(", "));
    }
    out.push_str("\n}\n}\n");
    out
}

