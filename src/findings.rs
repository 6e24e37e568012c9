//! What the diagnosis decided, without a word of any language: the verdict, the places, the
//! ranked cause with its basis and shares, the stack's facts, what the checklist is tailored to,
//! and the notes as message keys with their arguments.
//!
//! `diagnose` writes these; one pass, `words`, makes every sentence from them. A reader who
//! switches language has the same findings worded again: nothing is scanned or read again (rustc
//! keeps a message with its arguments and translates it in the emitter; this is the same idea).
//!
//! The language-free part is the report itself with its words left empty: the verdict, the
//! places (`at`), the cause's rule, category, share, basis and evidence, the candidates, the
//! stack's facts, the echoes and other errors. What the words are made from beyond those fields
//! is in [`Keys`]. Keeping the report's own types means wording moves nothing and copies nothing:
//! `words::word` fills the empty fields in place, and fills them again in another language.

use crate::report::{Location, Report};
use crate::text::msg::Msg;

/// Everything the report says, before it is said.
#[derive(Clone, Debug, PartialEq)]
pub struct Findings {
    /// The report's language-free fields. Empty (or the default) until worded: `lang`,
    /// `headline`, the cause's and the candidates' texts (`title`, `summary`, `why`, `fix`,
    /// `check`, `snippet`, `ops`), every `where`, the stack's and the other errors'
    /// `explanation`, `checklist`, `probe`, `notes`.
    pub report: Report,
    /// What the words are made from beyond the report's fields.
    pub keys: Keys,
}

/// What the words are made from beyond the report's own fields.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Keys {
    /// The cause's rule's site that matched the kernel record, when one did: its op is named.
    pub cause_site: Option<usize>,
    /// What the headline names.
    pub headline: Headline,
    /// What the checklist is tailored to, beside the verdict, the cause and the stack.
    pub steps: StepsContext,
    pub notes: Vec<NoteFinding>,
    /// Where the blamed line (the user's frame) is, when it is a line of a notebook cell's code.
    pub blamed_cell: Option<Location>,
}

/// What the headline names.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Headline {
    /// The kernel record's site (`Loss.cu:250 (nll_loss_forward…)`) and where it is.
    Kernel { site: String, at: Location },
    /// The host error that reports the assert, and whether it is Apple's (MPS).
    Host { at: Location, mps: bool },
    /// A person's own report of the assert in prose, with no output of it, and where it is.
    Described { at: Location },
    /// Another CUDA error: its line and where it is.
    Other { text: String, at: Location },
    /// Nothing to report (a confirmed cause has its own headline, from the confirmation).
    Clean,
    /// Cells that could not be read, and how many.
    Unreadable(usize),
    /// A device-side assert with neither line (never, but worded as nothing).
    #[default]
    Nothing,
}

/// What the checklist is tailored to, beside the verdict, the cause and the stack.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StepsContext {
    /// Where the output came from: the steps are said for it.
    pub source: Source,
    /// On Colab, with no kernel line in the input and no runtime log beside it: the first step
    /// is to copy them from the runtime log.
    pub runtime_log_step: bool,
    /// `torch.compile` is in use (the kernel saw it compile, or a cell calls it): the probe
    /// cannot see inside a compiled graph, so the isolating run goes uncompiled.
    pub compiled: bool,
    /// The package index the notebook extension installs from, when the caller offers one.
    pub index: Option<String>,
    /// Nothing in the output told the source: the notebook is the likeliest.
    pub source_guessed: bool,
}

pub use crate::report::Source;

/// A note: its stable id, its message and the values it names (at most two).
#[derive(Clone, Debug, PartialEq)]
pub struct NoteFinding {
    pub id: &'static str,
    pub msg: Msg,
    pub args: Vec<(&'static str, Arg)>,
}

impl NoteFinding {
    /// A note with no values.
    pub fn plain(id: &'static str, msg: Msg) -> NoteFinding {
        NoteFinding { id, msg, args: Vec::new() }
    }
}

/// A value a note names.
#[derive(Clone, Debug, PartialEq)]
pub enum Arg {
    Num(u64),
    /// Text as it is shown in every language (a line of the input).
    Text(String),
    /// A place, worded in the report's language.
    At(Location),
    /// A phrase of the catalogue, in the report's language.
    Said(Msg),
}
