//! The shape of a rule as `build.rs` compiles it from `rules/<id>.toml`.
//!
//! See `rules/README.md` for the file format and how rules are chosen.

use crate::report::Category;

/// A rule: one cause, the evidence that points at it, and what to tell the user.
#[derive(Debug)]
pub struct RuleDef {
    /// The rule's place in [`RULES`].
    pub index: usize,
    /// Kebab-case id, equal to the file name.
    pub id: &'static str,
    /// The rule's file, relative to the crate root.
    pub path: &'static str,
    /// The cause category.
    pub category: Category,
    /// How sure the rule is when its evidence is a known kernel site (0..1).
    pub confidence: f32,
    /// Breaks ties between rules with equally strong evidence (higher wins).
    pub priority: i64,
    /// A rule whose anchor evidence this rule reuses and refines.
    pub extends: Option<&'static str>,
    /// The Python ops that reach the assert.
    pub ops: &'static [&'static str],
    /// The probe cell's check groups for this cause (`_GROUPS` in `probe/probe.py`), which the
    /// probe names as the suspects.
    pub probe: &'static [&'static str],
    /// Kernel assertion sites the rule explains, as PyTorch prints them.
    pub sites: &'static [SiteDef],
    /// Evidence blocks: the first says which op asserted, each further one refines the cause.
    pub when: &'static [&'static [PatDef]],
    /// Logs that must be explained by this rule.
    pub examples: &'static [&'static str],
    /// Logs that look alike but must not be explained by this rule.
    pub near_misses: &'static [&'static str],
}

/// PyTorch's own CPU error for the bug a GPU reports as a device-side assert: a rule's
/// `[[confirm.cpu]]`.
#[derive(Debug)]
pub struct CpuForm {
    /// A literal of the message.
    pub message: &'static str,
    /// The rule it confirms.
    pub rule: &'static str,
    /// The bound the bug broke (empty: read from the message).
    pub bound: &'static str,
    /// Where the bad value stands in the message, `(before, after)` (an empty `after`: to the
    /// end); the form counts only when a number stands there.
    pub value: Option<(&'static str, &'static str)>,
    /// Counts only when the traceback's innermost frame has this in its function, or no
    /// traceback names one.
    pub frame: Option<&'static str>,
    /// Counts only when the traceback's innermost frame names a function without this.
    pub frame_not: Option<&'static str>,
    /// Printed only by PyTorch versions before 2 (the probe's tests cannot meet it).
    pub legacy: bool,
}

/// A kernel assertion site: file, function and condition as the kernel prints them.
#[derive(Debug)]
pub struct SiteDef {
    /// The file name (no directories).
    pub file: &'static str,
    /// The device function as printed (`operator()` for lambdas).
    pub function: Option<&'static str>,
    /// The condition as printed.
    pub condition: Option<&'static str>,
    /// The Python op(s) that reach this site, when more specific than the rule's `ops`.
    pub op: Option<&'static str>,
}

/// Where a pattern looks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scope {
    /// A kernel assertion record (file, function, condition).
    Kernel,
    /// A traceback frame (function name, file path).
    Frame,
    /// A source line shown in a traceback, or the source of the cell that failed.
    Code,
    /// Any line of the log.
    Message,
    /// The source line of the op that raised the error.
    Raised,
    /// A check the engine works out (`src/notebook/checks.rs`); the pattern's `keyword` is its id.
    Check,
}

impl Scope {
    /// The scope's name in reports.
    pub fn id(self) -> &'static str {
        match self {
            Scope::Kernel => "kernel",
            Scope::Frame => "frame",
            Scope::Code => "code",
            Scope::Message => "message",
            Scope::Raised => "raised",
            Scope::Check => "check",
        }
    }
}

/// One pattern of an evidence block. Every field given must match.
#[derive(Debug)]
pub struct PatDef {
    pub scope: Scope,
    /// Kernel: regex over the file name.
    pub file: Option<&'static str>,
    /// Kernel: regex over the device function's short name; Frame: over the function name.
    pub function: Option<&'static str>,
    /// Kernel: regex over the condition.
    pub condition: Option<&'static str>,
    /// Frame: regex over the frame's file path.
    pub path: Option<&'static str>,
    /// Code, Message, Raised: regex over the line.
    pub regex: Option<&'static str>,
    /// Literals `regex` cannot match without: a line that holds none of them is not tried
    /// (empty: no such promise). Computed by build.rs (`src/rules/needles.rs`).
    pub needles: &'static [&'static str],
    /// Message: a literal (case-sensitive) that every match contains; the scanner only reads
    /// lines that hold a keyword.
    pub keyword: Option<&'static str>,
    /// Multiplies the scope's strength (default 1).
    pub weight: f32,
}

/// What kind of context a clue of `rules/priors/priors.toml` reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClueKind {
    /// What the code as a whole does (classification, segmentation, a language model, ...).
    Task,
    /// What the user's line that raised was doing (the loss, backward, a read, ...).
    Stage,
    /// A name the code uses (an embedding table, labels, gather, ...).
    Name,
}

/// A clue: a context the output can reveal, and the rates of the rules behind the error in
/// code like that. Its patterns are `CLUE_RULES[i]`'s evidence block.
#[derive(Debug)]
pub struct ClueDef {
    pub kind: ClueKind,
    /// How much the clue counts against the others seen with it.
    pub weight: f32,
    /// (index into [`RULES`], share); the shares sum to 1.
    pub rates: &'static [(usize, f32)],
    /// Where its numbers come from (native builds only).
    pub source: &'static str,
}

/// Data only native builds (the rules page, the tests) read; the package has it from the
/// catalogue or not at all.
const fn native(s: &'static str) -> &'static str {
    if cfg!(target_arch = "wasm32") {
        ""
    } else {
        s
    }
}

const fn native_list(v: &'static [&'static str]) -> &'static [&'static str] {
    if cfg!(target_arch = "wasm32") {
        &[]
    } else {
        v
    }
}

const fn native_opt(v: Option<&'static str>) -> Option<&'static str> {
    if cfg!(target_arch = "wasm32") {
        None
    } else {
        v
    }
}

/// A rule's fixtures: kept in native builds (the tests read them), dropped from WebAssembly.
const fn fixtures(f: &'static [&'static str]) -> &'static [&'static str] {
    if cfg!(target_arch = "wasm32") {
        &[]
    } else {
        f
    }
}

include!(concat!(env!("OUT_DIR"), "/rules.rs"));
