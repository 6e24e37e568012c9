//! The text layer: every sentence a user reads, in English and Simplified Chinese.
//!
//! The texts live in `i18n/messages.toml`; `build.rs` turns each key into a [`Msg`] variant
//! ([`msg`]), so a missing or misspelt key is a compile error, and puts the texts in the
//! catalogue documents ([`catalogue`]). Rule texts (title, summary, why, fix) live in the rule
//! files instead, next to the patterns they explain. The modules below this one hold keys and
//! values only (a [`Msg`] and its arguments); the wording is looked up here.

pub mod catalogue;
pub(crate) mod msg;

pub use crate::lang::Lang;
pub use catalogue::TextDef;
use msg::fill;
pub use msg::Msg;
use std::fmt::{self, Display};

impl Msg {
    /// Returns the message in `lang`, with its `{placeholders}` left as they are.
    pub fn text(self, lang: Lang) -> &'static str {
        catalogue::message(self, lang)
    }

    /// Returns the message in `lang` with each `{name}` replaced by its value.
    ///
    /// Placeholders without a value stay visible, so a forgotten argument shows up in tests
    /// instead of silently disappearing.
    pub fn fill(self, lang: Lang, args: &[(&str, &dyn Display)]) -> String {
        fill(self.text(lang), args)
    }
}

/// A bound the probe printed (`0 <= target < 10 or target == -100 (ignore_index)`) in `lang`'s
/// word for "or", whichever language the probe spoke.
pub fn bound(lang: Lang, allowed: &str) -> String {
    match lang {
        Lang::Zh => allowed.replace(" or ", " 或 "),
        _ => allowed.replace(" 或 ", " or "),
    }
}

/// Says where something is: `line 12`, or `cell [3], output line 12` in a notebook (`cell #4,
/// output line 12` for a cell that never ran).
pub fn location(lang: Lang, at: &crate::report::Location) -> String {
    place(lang, at, false)
}

/// Where a line of a cell's code is (`cell [3], code line 4`): `at.line` counts the cell's code,
/// not its output. A place with no cell is worded as [`location`] words it.
pub fn code_location(lang: Lang, at: &crate::report::Location) -> String {
    place(lang, at, true)
}

fn place(lang: Lang, at: &crate::report::Location, code: bool) -> String {
    // Users find a cell by the `[n]` beside it, so that comes first; the report's `cell` is
    // the 0-based index, shown counted from 1 when a cell never ran.
    if at.runtime_log {
        return Msg::AtRuntimeLog.fill(lang, &[("line", &at.line)]);
    }
    let (by_count, by_pos) = if code { (Msg::AtCellCode, Msg::AtCellPosCode) } else { (Msg::AtCell, Msg::AtCellPos) };
    match (at.cell, at.execution_count) {
        (Some(_), Some(n)) | (None, Some(n)) if code || at.cell.is_some() => by_count.fill(lang, &[("exec", &n), ("line", &at.line)]),
        (Some(c), None) => by_pos.fill(lang, &[("pos", &(u64::from(c) + 1)), ("line", &at.line)]),
        _ => Msg::AtLine.fill(lang, &[("line", &at.line)]),
    }
}

impl crate::rules::RuleDef {
    /// The rule's texts in `lang` (empty when that language's catalogue is not loaded).
    pub fn texts(&self, lang: Lang) -> TextDef {
        catalogue::rule(self.index, lang)
    }
}

impl crate::input::InputError {
    /// The message in `lang`.
    pub fn message(&self, lang: Lang) -> String {
        let args: Vec<(&str, &dyn Display)> = self.args.iter().map(|(k, v)| (*k, v as &dyn Display)).collect();
        self.msg.fill(lang, &args)
    }
}

impl fmt::Display for crate::input::InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message(Lang::En))
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;

    #[test]
    fn a_bound_says_or_in_the_reports_language() {
        let zh = "0 <= target < 10 或 target == -100 (ignore_index)";
        let en = "0 <= target < 10 or target == -100 (ignore_index)";
        assert_eq!(bound(Lang::En, zh), en);
        assert_eq!(bound(Lang::Zh, en), zh);
        assert_eq!(bound(Lang::En, en), en);
        assert_eq!(bound(Lang::En, "0 <= p <= 1"), "0 <= p <= 1");
    }

    #[test]
    fn tags_pick_languages() {
        assert_eq!(Lang::from_tag("zh-CN"), Some(Lang::Zh));
        assert_eq!(Lang::from_tag("zh_TW.UTF-8"), Some(Lang::Zh));
        assert_eq!(Lang::from_tag("en-GB"), Some(Lang::En));
        assert_eq!(Lang::from_tag("C.UTF-8"), None);
        assert_eq!(Lang::from_tag(""), None);
    }

    #[test]
    fn fill_replaces_named_values_and_keeps_unknown_ones() {
        let n = 3;
        assert_eq!(fill("{n} lines, {m} left", &[("n", &n)]), "3 lines, {m} left");
        assert_eq!(fill("set {a} and {", &[("a", &"x")]), "set x and {");
        assert_eq!(fill("json {\"k\": 1}", &[]), "json {\"k\": 1}");
    }

    #[test]
    fn every_message_has_both_languages_and_the_same_placeholders() {
        for m in Msg::ALL {
            let en = m.text(Lang::En);
            let zh = m.text(Lang::Zh);
            assert!(!en.trim().is_empty() && !zh.trim().is_empty(), "{}", m.key());
            assert_eq!(placeholders(en), placeholders(zh), "placeholders differ in `{}`", m.key());
        }
    }

    fn placeholders(s: &str) -> Vec<String> {
        let mut v: Vec<String> = s
            .split('{')
            .skip(1)
            .filter_map(|p| p.split_once('}').map(|(n, _)| n.to_string()))
            .filter(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    }
}
