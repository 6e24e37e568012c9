//! The languages the interface speaks. Its own module so that the report (which names its
//! language) and the message catalogue (which says where a report's places are) do not import
//! each other.

use serde::{Deserialize, Serialize};

/// A language the interface speaks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    /// English.
    #[default]
    En,
    /// Simplified Chinese.
    Zh,
}

impl Lang {
    /// Every supported language.
    pub const ALL: [Lang; 2] = [Lang::En, Lang::Zh];

    /// Picks a language from a tag such as `zh-CN`, `zh_CN.UTF-8`, `en-US` or `zh`.
    ///
    /// Returns `None` for languages the interface does not speak.
    pub fn from_tag(tag: &str) -> Option<Lang> {
        let t = tag.trim().to_ascii_lowercase();
        let primary = t.split(['-', '_', '.', '@']).next().unwrap_or("");
        match primary {
            "zh" | "cmn" => Some(Lang::Zh),
            "en" => Some(Lang::En),
            _ => None,
        }
    }

    /// The short code used in reports and on the command line.
    pub fn code(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Zh => "zh",
        }
    }

    pub(crate) fn index(self) -> usize {
        match self {
            Lang::En => 0,
            Lang::Zh => 1,
        }
    }
}
