//! The texts a user reads, one document per language: every message of `i18n/messages.toml`
//! by key and every rule's texts by rule id, as JSON.
//!
//! ```json
//! { "schema": 1, "lang": "zh", "version": "0.1.0",
//!   "messages": { "headline_kernel": "…", … },
//!   "rules": { "class-target-out-of-range": { "title": "…", "summary": "…", "why": "…",
//!              "fix": "…", "check": "…", "snippet": "…" }, … } }
//! ```
//!
//! `build.rs` writes the documents from the data files. Native builds (the command line, the
//! tests) carry both languages compiled in. The WebAssembly package carries none: its host
//! fetches the document of the language it shows (`make web` writes them beside the package)
//! and hands it over once ([`load`], `setCatalogue` in JavaScript) before analysing. A report in
//! a language whose document is not loaded is refused by the package's entry points, so every
//! report still carries its texts.
//!
//! A document may leave the probe's code (a fifth of it) to a second part,
//! `{ "schema": 1, "lang": "zh", "version": "0.1.0", "probe_code": "…" }`, handed over the same
//! way: the page's first visit fetches the first part, and the second at the first sign of
//! input (at the latest before its first analysis). A language is ready once it has both.

use super::msg::Msg;
use crate::json::{self, Value};
use crate::lang::Lang;
use crate::rules::RULES;
use std::sync::OnceLock;

/// The catalogue format this build reads.
pub const SCHEMA: u64 = 1;

/// One language's texts, by message and by rule.
#[derive(Debug)]
struct Catalogue {
    messages: Vec<String>,
    /// Title, summary, why, fix, check, snippet of each rule, in `RULES` order.
    rules: Vec<[String; 6]>,
    /// Each rule's ops and its sites' ops.
    ops: Vec<(Vec<String>, Vec<String>)>,
}

/// A rule's texts in one language .
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TextDef {
    /// A short name for the cause.
    pub title: &'static str,
    /// One sentence: what went wrong.
    pub summary: &'static str,
    /// Why it happens and the usual situations.
    pub why: &'static str,
    /// How to fix it.
    pub fix: &'static str,
    /// What to print to confirm it.
    pub check: &'static str,
    /// Code that prints the suspect values (the same code in every language; only its comments
    /// are translated). Empty when the rule has none.
    pub snippet: &'static str,
    /// The Python ops that reach the assert (the rule's `ops`).
    pub ops: &'static [String],
    /// Each site's op (its `op`, "" when it has none), in the order of the rule's sites.
    pub site_ops: &'static [String],
}

static LOADED: [OnceLock<Catalogue>; 2] = [OnceLock::new(), OnceLock::new()];
/// The probe's code of each language, when its document left it to a second part.
static LATE: [OnceLock<String>; 2] = [OnceLock::new(), OnceLock::new()];

/// The document of `lang` compiled into this build (every message, the command line's too).
#[cfg(any(not(target_arch = "wasm32"), feature = "embedded-texts"))]
pub fn builtin(lang: Lang) -> &'static str {
    match lang {
        Lang::En => include_str!(concat!(env!("OUT_DIR"), "/catalogue.en.json")),
        Lang::Zh => include_str!(concat!(env!("OUT_DIR"), "/catalogue.zh.json")),
    }
}

/// The document of `lang` for the web: without the messages only the command line and the
/// rules page show. `make web` writes these beside the package.
#[cfg(not(target_arch = "wasm32"))]
pub fn web(lang: Lang) -> &'static str {
    match lang {
        Lang::En => include_str!(concat!(env!("OUT_DIR"), "/catalogue-web.en.json")),
        Lang::Zh => include_str!(concat!(env!("OUT_DIR"), "/catalogue-web.zh.json")),
    }
}

/// The web's document of `lang` in its two parts, as the page fetches them: everything but
/// the probe's code, and the probe's code.
#[cfg(not(target_arch = "wasm32"))]
pub fn page_parts(lang: Lang) -> [&'static str; 2] {
    match lang {
        Lang::En => [
            include_str!(concat!(env!("OUT_DIR"), "/catalogue-page.en.json")),
            include_str!(concat!(env!("OUT_DIR"), "/catalogue-probe.en.json")),
        ],
        Lang::Zh => [
            include_str!(concat!(env!("OUT_DIR"), "/catalogue-page.zh.json")),
            include_str!(concat!(env!("OUT_DIR"), "/catalogue-probe.zh.json")),
        ],
    }
}

fn get(lang: Lang) -> Option<&'static Catalogue> {
    let slot = &LOADED[lang.index()];
    #[cfg(any(not(target_arch = "wasm32"), feature = "embedded-texts"))]
    if slot.get().is_none() {
        // The compiled-in documents are made by build.rs from the same tables as `Msg`.
        if let Ok(c) = parse(builtin(lang)) {
            let _ = slot.set(c.1);
        }
    }
    slot.get()
}

/// True when the texts of `lang` are there, both parts (always in native builds).
pub fn ready(lang: Lang) -> bool {
    missing(lang).is_none()
}

/// What `lang` still lacks (with its verb), and the part of the file name that holds it: its
/// document, or the second part its document left out.
pub fn missing(lang: Lang) -> Option<(&'static str, &'static str, &'static str)> {
    match get(lang) {
        None => Some(("the texts", "are", "")),
        Some(_) if probe_code(lang).is_empty() => Some(("the probe's code", "is", ".probe")),
        Some(_) => None,
    }
}

/// A message's text in `lang` ("" when that language is not loaded: entry points check
/// [`ready`] first; the probe's code is [`probe_code`]'s).
pub fn message(m: Msg, lang: Lang) -> &'static str {
    get(lang).and_then(|c| c.messages.get(m.index())).map_or("", String::as_str)
}

/// The probe's code in `lang`: a message of the compiled-in documents; the package keeps it
/// apart from the messages (a document may hold it or leave it to the second part).
pub fn probe_code(lang: Lang) -> &'static str {
    #[cfg(not(target_arch = "wasm32"))]
    return message(Msg::ProbeCode, lang);
    #[cfg(target_arch = "wasm32")]
    LATE[lang.index()].get().map_or("", String::as_str)
}

/// A rule's texts in `lang`.
pub fn rule(index: usize, lang: Lang) -> TextDef {
    let Some(c) = get(lang) else { return TextDef::default() };
    let (Some(t), Some((ops, site_ops))) = (c.rules.get(index), c.ops.get(index)) else { return TextDef::default() };
    TextDef { title: &t[0], summary: &t[1], why: &t[2], fix: &t[3], check: &t[4], snippet: &t[5], ops, site_ops }
}

/// Takes a catalogue document; returns its language. A language's first document stays: the
/// texts of a build do not change while it runs.
pub fn load(text: &str) -> Result<Lang, String> {
    let v = json::parse(text).map_err(|e| format!("the catalogue is not JSON: {e}"))?;
    if let Some((lang, code)) = late(&v)? {
        let _ = LATE[lang.index()].set(code);
        return Ok(lang);
    }
    let (lang, c) = document(&v)?;
    let _ = LOADED[lang.index()].set(c);
    Ok(lang)
}

/// A second part (the probe's code) and its language; `None` for a document of another kind.
fn late(v: &Value<'_>) -> Result<Option<(Lang, String)>, String> {
    let (None, Some(code)) = (v.get("messages"), v.get(Msg::LATE)) else { return Ok(None) };
    let lang = v.get("lang").and_then(Value::as_str).and_then(Lang::from_tag);
    match (lang, code.as_str()) {
        (Some(lang), Some(code)) if v.get("version").and_then(Value::as_str) == Some(env!("CARGO_PKG_VERSION")) => {
            Ok(Some((lang, code.to_string())))
        }
        _ => Err("the probe's part of the catalogue is not this build's (another version?)".into()),
    }
}

/// Every message's text, in [`Msg::ALL`] order, by key.
#[cfg(not(target_arch = "wasm32"))]
fn messages(texts: &Value<'_>, _: Lang) -> Result<Vec<String>, String> {
    Msg::ALL
        .iter()
        .map(|m| {
            let text = texts.get(m.key()).and_then(Value::as_str);
            text.map(str::to_string).ok_or_else(|| format!("the catalogue has no message `{}`", m.key()))
        })
        .collect()
}

/// Every message's text, in [`Msg::ALL`] order: the package carries no keys (they cost 2 KB),
/// so it reads the messages in the document's order (build.rs writes them in key order, as
/// `Msg::ALL`), skips the page's, and checks the keys it read against a hash of its own.
#[cfg(target_arch = "wasm32")]
fn messages(texts: &Value<'_>, lang: Lang) -> Result<Vec<String>, String> {
    let Value::Obj(members) = texts else { return Err("the catalogue has no messages".into()) };
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut out = Vec::with_capacity(Msg::ALL.len());
    for (key, text) in members {
        if Msg::NOT_IN_PACKAGE.iter().any(|p| key.starts_with(p)) {
            continue;
        }
        let text = text.as_str().ok_or("a message of the catalogue is not a string")?.to_string();
        if *key == Msg::LATE {
            let _ = LATE[lang.index()].set(text);
            continue;
        }
        for b in key.bytes().chain([b'\n']) {
            hash = (hash ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
        }
        out.push(text);
    }
    if hash != Msg::KEYS_HASH || out.len() != Msg::ALL.len() {
        return Err("the catalogue's messages are not this build's (another version?)".into());
    }
    Ok(out)
}

const RULE_FIELDS: [&str; 6] = ["title", "summary", "why", "fix", "check", "snippet"];

/// Reads a document and checks that it has a text for every message and rule of this build.
#[cfg(any(not(target_arch = "wasm32"), feature = "embedded-texts"))]
fn parse(text: &str) -> Result<(Lang, Catalogue), String> {
    document(&json::parse(text).map_err(|e| format!("the catalogue is not JSON: {e}"))?)
}

/// A document's texts, checked as [`parse`] says.
fn document(v: &Value<'_>) -> Result<(Lang, Catalogue), String> {
    if v.get("schema").and_then(Value::as_u64) != Some(SCHEMA) {
        return Err(format!("the catalogue is not of schema {SCHEMA}"));
    }
    let lang =
        v.get("lang").and_then(Value::as_str).and_then(Lang::from_tag).ok_or("the catalogue names no language")?;
    let texts = v.get("messages").filter(|m| matches!(m, Value::Obj(_))).ok_or("the catalogue has no messages")?;
    let messages = messages(texts, lang)?;
    let by_rule = v.get("rules").filter(|m| matches!(m, Value::Obj(_))).ok_or("the catalogue has no rules")?;
    let mut rules = Vec::with_capacity(RULES.len());
    let mut ops = Vec::with_capacity(RULES.len());
    for r in RULES {
        let t = by_rule.get(r.id).ok_or_else(|| format!("the catalogue has no texts for rule `{}`", r.id))?;
        let mut fields: [String; 6] = Default::default();
        for (slot, name) in fields.iter_mut().zip(RULE_FIELDS) {
            let text = t.get(name).and_then(Value::as_str);
            *slot = text.ok_or_else(|| format!("rule `{}` has no `{name}` in the catalogue", r.id))?.to_string();
        }
        rules.push(fields);
        let list = |name: &str| -> Result<Vec<String>, String> {
            let Some(Value::Arr(items)) = t.get(name) else {
                return Err(format!("rule `{}` has no `{name}` in the catalogue", r.id));
            };
            items
                .iter()
                .map(|i| {
                    i.as_str()
                        .map(str::to_string)
                        .ok_or_else(|| format!("rule `{}`: `{name}` holds a non-string", r.id))
                })
                .collect()
        };
        let (rule_ops, site_ops) = (list("ops")?, list("site_ops")?);
        if site_ops.len() != r.sites.len() {
            return Err(format!(
                "rule `{}` has {} site ops in the catalogue, not {}",
                r.id,
                site_ops.len(),
                r.sites.len()
            ));
        }
        ops.push((rule_ops, site_ops));
    }
    Ok((lang, Catalogue { messages, rules, ops }))
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;

    #[test]
    fn the_documents_hold_every_text_of_the_build() {
        for lang in Lang::ALL {
            let (got, c) = parse(builtin(lang)).unwrap();
            assert_eq!(got, lang);
            assert_eq!(c.messages.len(), Msg::ALL.len());
            assert!(c.messages.iter().all(|m| !m.trim().is_empty()));
            assert_eq!(c.rules.len(), RULES.len());
            // The web document lacks only the native-only messages.
            let web: serde_json::Value = serde_json::from_str(web(lang)).unwrap();
            let n = web["messages"].as_object().unwrap().len();
            assert!(n < Msg::ALL.len() && n > Msg::ALL.len() / 2, "{n}");
            assert!(web["messages"].as_object().unwrap().keys().all(|k| !k.starts_with("cli_")));
        }
        for (i, m) in Msg::ALL.iter().enumerate() {
            assert_eq!(m.index(), i, "{}", m.key());
        }
    }

    #[test]
    fn the_pages_two_parts_are_the_web_document() {
        for lang in Lang::ALL {
            let [page, probe] = page_parts(lang);
            let whole: serde_json::Value = serde_json::from_str(web(lang)).unwrap();
            let mut first: serde_json::Value = serde_json::from_str(page).unwrap();
            let code = whole["messages"][Msg::LATE].as_str().unwrap();
            // The first part is the web's document without the probe's code.
            assert!(first["messages"].get(Msg::LATE).is_none());
            assert!(web(lang).len() - page.len() >= code.len() && code.len() > 15_000);
            first["messages"].as_object_mut().unwrap().insert(Msg::LATE.into(), code.into());
            let mut sorted = first.clone();
            sorted["messages"] = serde_json::to_value(first["messages"].as_object().unwrap().clone()).unwrap();
            assert_eq!(sorted, whole);
            // The second part reads as the code alone (the package reads the first: the
            // browser tests load the page's parts).
            let v = json::parse(probe).unwrap();
            assert_eq!(late(&v).unwrap(), Some((lang, code.to_string())));
            assert_eq!(late(&json::parse(web(lang)).unwrap()).unwrap(), None, "a whole document is not a part");
        }
        let other = page_parts(Lang::En)[1].replace(env!("CARGO_PKG_VERSION"), "0.0.0-other");
        assert!(late(&json::parse(&other).unwrap()).unwrap_err().contains("not this build's"));
    }

    #[test]
    fn broken_documents_are_refused_with_the_reason() {
        assert!(parse("").unwrap_err().contains("not JSON"));
        assert!(parse("{\"schema\": 2}").unwrap_err().contains("schema"));
        assert!(parse("{\"schema\": 1, \"lang\": \"fr\"}").unwrap_err().contains("language"));
        let mut v: serde_json::Value = serde_json::from_str(builtin(Lang::En)).unwrap();
        v["messages"].as_object_mut().unwrap().remove("headline_clean");
        assert!(parse(&v.to_string()).unwrap_err().contains("headline_clean"));
        let mut v: serde_json::Value = serde_json::from_str(builtin(Lang::Zh)).unwrap();
        v["rules"]["stale-context"].as_object_mut().unwrap().remove("fix");
        assert!(parse(&v.to_string()).unwrap_err().contains("stale-context"));
    }
}
