//! Rules: which cause the evidence points at.
//!
//! Rules are data (`rules/<id>.toml`, compiled into [`RULES`] by `build.rs`). At first use they
//! are compiled once into a [`RuleSet`]: an exact table of kernel sites, plus one pattern set
//! per evidence field ([`crate::re::Set`]) that answers "which patterns match this line" and
//! where.
//!
//! Choosing a rule: each rule's first evidence block (its *anchor*: which op asserted) gets the
//! strength of its best match; each further block must match too and makes the rule more
//! specific. The rule with the strongest anchor wins; among equals, the more specific one, then
//! the higher priority.

pub mod check_ids;
pub mod def;
#[cfg(test)]
mod needles;
pub mod priors;

pub use def::{
    ClueDef, ClueKind, CpuForm, PatDef, RuleDef, Scope, SiteDef, BASE_RATES, CLUES, CLUE_RULES, CPU_FORMS, PROBE_BOUNDS, PROBE_OPS,
    RULES,
};

use crate::facts::{Loc, MessageHit, TbFrame};
use crate::re;
use crate::report::{self, KernelSite, Location};
use std::sync::OnceLock;

/// The id of the rule used when a device-side assert shows no evidence of its cause.
pub const NO_EVIDENCE_RULE: &str = "no-evidence";

/// Strength of a kernel site found in a rule's site table (condition and file agree).
pub const SITE_EXACT: f32 = 1.0;
/// Strength of a site whose condition is known but whose file differs (a renamed file).
pub const SITE_CONDITION: f32 = 0.95;
/// Strength of a site known by file and function only (the condition was lost).
pub const SITE_FUNCTION: f32 = 0.85;
/// Strength of a site known by file only.
pub const SITE_FILE: f32 = 0.75;
/// Strength of a kernel record matched by a rule's kernel pattern.
pub const KERNEL: f32 = 0.9;
/// Strength of a traceback frame when the traceback can be trusted.
pub const FRAME_TRUSTED: f32 = 0.85;
/// Strength of a traceback frame when the error may have been reported late.
pub const FRAME: f32 = 0.7;
/// Strength of a log line.
pub const MESSAGE: f32 = 0.6;
/// Strength of a source line.
pub const CODE: f32 = 0.55;
/// Strength of the op that raised the error.
pub const RAISED: f32 = 0.5;
/// A check that holds (`src/notebook/checks.rs`): it shows the bad value itself, but not that the op
/// that asserted is the one that reads it, so it stands below a frame and above a source line.
pub const CHECK: f32 = 0.65;

/// Weights of source lines, multiplying [`CODE`]: the line of the frame that ran the op (in
/// PyTorch's own innermost frame it counts as much as the frame itself)...
pub const CODE_OP_LINE: f32 = 1.25;
/// ... the lines of the other frames ...
pub const CODE_FRAME_LINE: f32 = 1.0;
/// ... the lines a traceback shows around a frame's line ...
pub const CODE_AROUND: f32 = 0.8;
/// ... the source of the cell that raised the error ...
pub const CODE_FAILING_CELL: f32 = 0.7;
/// ... and the source of the cells that ran before it.
pub const CODE_EARLIER_CELL: f32 = 0.45;
/// What a notebook cell outside the failing cell's lineage (`notebook::lineage`) shows, its
/// printouts and its code, counts this much of what it would: another experiment's warning is
/// weak evidence of this failure. A rule that rests on such a hit is no stronger than the hit
/// (`explained`): 0.6 × 0.4 for a message, which the calibration states as 0.49 at most.
pub const UNRELATED_CELL: f32 = 0.4;

/// The compiled rules.
pub struct RuleSet {
    /// The rule definitions.
    pub rules: &'static [RuleDef],
    sites_by_condition: SmallMap<String, Vec<(usize, usize)>>,
    sites_by_file: SmallMap<String, Vec<(usize, usize)>>,
    pats: Vec<Pat>,
    kernel_file: LazySet,
    kernel_function: LazySet,
    kernel_condition: LazySet,
    frame_function: LazySet,
    frame_path: LazySet,
    code: LazySet,
    message: LazySet,
    raised: LazySet,
    /// The message patterns' keywords: a line with none of them matches no message pattern.
    message_keywords: crate::find::keywords::Keywords,
}

struct Pat {
    rule: usize,
    block: usize,
    scope: Scope,
    weight: f32,
    fields: u8,
    /// Message patterns: a literal every match contains.
    keyword: Option<&'static str>,
}

/// A pattern of a field: the pattern it stands for (index into `RuleSet::pats`), its regex and
/// its needles.
type FieldItem = (usize, &'static str, &'static [&'static str]);

/// One field of one scope: its patterns, tested together, the pattern each stands for, and
/// each one's needles (literals it cannot match without, see `PatDef::needles`).
struct FieldSet {
    set: re::Set,
    owners: Vec<usize>,
    needles: Vec<Vec<crate::find::Needle>>,
}

impl FieldSet {
    fn build(items: Vec<FieldItem>, one_pass: bool) -> Result<FieldSet, String> {
        let srcs: Vec<&str> = items.iter().map(|(_, s, _)| *s).collect();
        let set = if one_pass { re::Set::new(&srcs).map_err(|e| format!("rule {e}"))? } else { re::Set::one_by_one(&srcs) };
        let needles = items.iter().map(|(_, _, n)| n.iter().map(|s| crate::find::Needle::new(s)).collect()).collect();
        Ok(FieldSet { set, owners: items.into_iter().map(|(o, _, _)| o).collect(), needles })
    }

    /// Whether the pattern at place `local` may match `text`: it has no needles, or `text`
    /// holds one. (The WebAssembly engine then runs only those; the CLI's set runs all at
    /// once, and this only filters.)
    fn may_match(&self, local: usize, text: &str) -> bool {
        let n = &self.needles[local];
        n.is_empty() || n.iter().any(|f| f.is_in(text))
    }

    /// The patterns (by index into `RuleSet::pats`) whose regex matches `text`.
    fn matches<'s>(&'s self, text: &'s str) -> impl Iterator<Item = usize> + 's {
        self.matches_local(text).map(move |i| self.owners[i])
    }

    /// Like `matches`, with each pattern's place in this set (for [`FieldSet::span`]).
    fn matches_local<'s>(&'s self, text: &'s str) -> impl Iterator<Item = usize> + 's {
        self.set.matches_where(text, move |i| self.may_match(i, text))
    }

    /// The part of `text` that the pattern at place `local` matches: the set only says
    /// whether it matches, the pattern's own regex says where.
    fn span<'t>(&self, local: usize, text: &'t str) -> Option<&'t str> {
        self.set.find(local, text)
    }
}

/// A field's patterns, compiled when first used: a log without an assert never needs most of
/// them, and compiling all (with the CLI's engine, its prefilters) took a third of the time a
/// clean 20 MB log takes. (`tests/engines.rs` compiles every pattern in both engines.)
struct LazySet {
    items: Vec<FieldItem>,
    /// Tested as one set in the CLI (see [`re::Set`]); else one by one.
    one_pass: bool,
    compiled: OnceLock<FieldSet>,
}

impl LazySet {
    fn new(items: Vec<FieldItem>, one_pass: bool) -> Result<LazySet, String> {
        Ok(LazySet { items, one_pass, compiled: OnceLock::new() })
    }

    fn get(&self) -> &FieldSet {
        self.compiled.get_or_init(|| FieldSet::build(self.items.clone(), self.one_pass).unwrap_or_else(|e| panic!("{e}")))
    }
}

impl std::ops::Deref for LazySet {
    type Target = FieldSet;
    fn deref(&self) -> &FieldSet {
        self.get()
    }
}

/// A map kept as a list: the engine's per-report maps hold a few dozen entries, where a list
/// is as fast as hashing and keeps the WebAssembly package from carrying another HashMap
/// instance per key type.
struct SmallMap<K, V>(Vec<(K, V)>);

impl<K, V> Default for SmallMap<K, V> {
    fn default() -> Self {
        SmallMap(Vec::new())
    }
}

impl<K: PartialEq, V: Default> SmallMap<K, V> {
    fn entry(&mut self, k: K) -> &mut V {
        let i = match self.0.iter().position(|(x, _)| *x == k) {
            Some(i) => i,
            None => {
                self.0.push((k, V::default()));
                self.0.len() - 1
            }
        };
        &mut self.0[i].1
    }

    fn get(&self, k: &K) -> Option<&V> {
        self.0.iter().find(|(x, _)| x == k).map(|(_, v)| v)
    }

    fn remove(&mut self, k: &K) -> Option<V> {
        let i = self.0.iter().position(|(x, _)| x == k)?;
        Some(self.0.swap_remove(i).1)
    }
}

impl<K, V> IntoIterator for SmallMap<K, V> {
    type Item = (K, V);
    type IntoIter = std::vec::IntoIter<(K, V)>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

const F_FILE: u8 = 1;
const F_FUNCTION: u8 = 2;
const F_CONDITION: u8 = 4;
const F_PATH: u8 = 8;
const F_REGEX: u8 = 16;

/// Returns the built-in rules, compiled.
pub fn ruleset() -> &'static RuleSet {
    static SET: OnceLock<RuleSet> = OnceLock::new();
    SET.get_or_init(|| RuleSet::compile(RULES).unwrap_or_else(|e| panic!("{e}")))
}

/// Removes all whitespace: the key under which conditions are compared, so that line
/// wrapping and spacing differences between versions do not matter.
pub fn condition_key(c: &str) -> String {
    c.chars().filter(|c| !c.is_whitespace()).collect()
}

/// A kernel site's best rule and how strongly it matched.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SiteMatch {
    pub rule: usize,
    pub strength: f32,
}

/// Everything the rules look at for one incident.
#[derive(Default)]
pub struct Input<'a> {
    /// The first assert's kernel site, its device function's short name, and where it is.
    pub site: Option<(&'a KernelSite, Option<&'a str>, Loc)>,
    /// Frames of the traceback, deepest first.
    pub frames: Vec<&'a TbFrame>,
    /// Source lines with a weight (1 for traceback lines, less for a cell's whole source).
    pub code: Vec<(&'a str, Loc, f32)>,
    /// Log lines that matched message patterns.
    pub messages: &'a [MessageHit],
    /// The source line of the op that raised the error.
    pub raised: Option<(&'a str, Loc)>,
    /// True when the traceback points at the real op (no late reporting).
    pub trusted_trace: bool,
    /// The checks that hold (`src/notebook/checks.rs`).
    pub checks: &'a [crate::facts::CheckFinding],
    /// The notebook cells outside the failing cell's lineage (their index).
    pub unrelated: Vec<u32>,
    /// Lines of the output that are context, not code (printed sampling settings) with their
    /// weight: the priors read them as they read code; the rules do not.
    pub context: Vec<(&'a str, Loc, f32)>,
}

impl<'a> Input<'a> {
    /// Whether a place is in a cell outside the failing cell's lineage.
    pub fn unrelated(&self, at: Location) -> bool {
        at.cell.is_some_and(|c| self.unrelated.contains(&c))
    }

    /// How much a hit at `at` counts of its strength: [`UNRELATED_CELL`] outside the lineage.
    fn weight(&self, at: Location) -> f32 {
        if self.unrelated(at) {
            UNRELATED_CELL
        } else {
            1.0
        }
    }

    /// The code and frames alone (what the priors read), without the evidence only rules weigh.
    pub fn clone_code(&self) -> Input<'a> {
        let code = self.code.iter().chain(&self.context).copied().collect();
        Input { frames: self.frames.clone(), code, ..Input::default() }
    }
}

/// The chosen rule.
#[derive(Clone, Debug, PartialEq)]
pub struct Decision {
    pub rule: usize,
    pub confidence: f32,
    pub evidence: Vec<report::Evidence>,
}

#[derive(Clone, Debug, Default)]
struct Hit {
    strength: f32,
    scope: &'static str,
    text: String,
    matched: Option<String>,
    at: Location,
    /// In a notebook cell outside the failing cell's lineage.
    unrelated: bool,
}

impl RuleSet {
    /// Compiles rule definitions; fails on a pattern that does not compile or a dangling
    /// `extends`.
    pub fn compile(rules: &'static [RuleDef]) -> Result<RuleSet, String> {
        RuleSet::compile_as(rules, true)
    }

    /// Like [`RuleSet::compile`]; `one_pass` false tries each pattern by itself, compiled when
    /// first tried (the priors' clues: read on a report's few source lines, where building
    /// the CLI's sets cost more than reading them).
    pub fn compile_as(rules: &'static [RuleDef], one_pass: bool) -> Result<RuleSet, String> {
        let mut sites_by_condition: SmallMap<String, Vec<(usize, usize)>> = SmallMap::default();
        let mut sites_by_file: SmallMap<String, Vec<(usize, usize)>> = SmallMap::default();
        let mut pats = Vec::new();
        let mut fields: SmallMap<&'static str, Vec<FieldItem>> = SmallMap::default();
        for (ri, r) in rules.iter().enumerate() {
            if let Some(base) = r.extends {
                if !rules.iter().any(|b| b.id == base) {
                    return Err(format!("{}: extends unknown rule `{base}`", r.path));
                }
            }
            for (si, s) in r.sites.iter().enumerate() {
                if let Some(c) = s.condition {
                    sites_by_condition.entry(condition_key(c)).push((ri, si));
                }
                sites_by_file.entry(s.file.to_ascii_lowercase()).push((ri, si));
            }
            for (bi, block) in r.when.iter().enumerate() {
                for p in block.iter() {
                    let pi = pats.len();
                    let mut f = 0;
                    let mut add = |key: &'static str, flag: u8, src: Option<&'static str>| {
                        if let Some(src) = src {
                            let needles = if flag == F_REGEX { p.needles } else { &[] };
                            fields.entry(key).push((pi, src, needles));
                            f |= flag;
                        }
                    };
                    match p.scope {
                        Scope::Kernel => {
                            add("kernel_file", F_FILE, p.file);
                            add("kernel_function", F_FUNCTION, p.function);
                            add("kernel_condition", F_CONDITION, p.condition);
                        }
                        Scope::Frame => {
                            add("frame_function", F_FUNCTION, p.function);
                            add("frame_path", F_PATH, p.path);
                        }
                        Scope::Code => add("code", F_REGEX, p.regex),
                        Scope::Message => add("message", F_REGEX, p.regex),
                        Scope::Raised => add("raised", F_REGEX, p.regex),
                        Scope::Check => {}
                    }
                    pats.push(Pat {
                        rule: ri,
                        block: bi,
                        scope: p.scope,
                        weight: p.weight,
                        fields: f,
                        keyword: p.keyword,
                    });
                }
            }
        }
        let mut take = |k: &'static str| LazySet::new(fields.remove(&k).unwrap_or_default(), one_pass);
        Ok(RuleSet {
            message_keywords: crate::find::keywords::Keywords::new(&message_keywords(rules)),
            rules,
            sites_by_condition,
            sites_by_file,
            kernel_file: take("kernel_file")?,
            kernel_function: take("kernel_function")?,
            kernel_condition: take("kernel_condition")?,
            frame_function: take("frame_function")?,
            frame_path: take("frame_path")?,
            code: take("code")?,
            message: take("message")?,
            raised: take("raised")?,
            pats,
        })
    }

    /// The index of the rule with this id.
    pub fn index(&self, id: &str) -> Option<usize> {
        self.rules.iter().position(|r| r.id == id)
    }

    /// The literals that message patterns need the scanner to read.
    pub fn message_keywords(&self) -> Vec<&'static str> {
        message_keywords(self.rules)
    }

    /// The message patterns (indices) that match a log line.
    pub fn message_matches(&self, line: &str) -> Vec<usize> {
        // A pattern whose keyword the line lacks cannot match: only the others run, and none
        // when the line holds no keyword at all (one search instead of one per pattern).
        if self.message_keywords.find(line.as_bytes()).is_none() {
            return Vec::new();
        }
        let owners = &self.message.owners;
        self.message
            .set
            .matches_where(line, |i| self.pats[owners[i]].keyword.is_none_or(|k| line.contains(k)))
            .map(|i| owners[i])
            .collect()
    }

    /// The rule a kernel site belongs to, from the site table or a kernel pattern.
    pub fn site_rule(&self, site: &KernelSite, short: Option<&str>) -> Option<SiteMatch> {
        let mut best = self.site_table(site, short);
        for (pi, _) in self.kernel_pattern_hits(site, short) {
            let p = &self.pats[pi];
            // Only anchors explain a site; refinements (and rules that extend another) do not.
            if p.block != 0 || self.rules[p.rule].extends.is_some() {
                continue;
            }
            let s = KERNEL * p.weight;
            if best.is_none_or(|b| s > b.strength) {
                best = Some(SiteMatch { rule: p.rule, strength: s });
            }
        }
        best
    }

    /// True when a source line calls an op that can fire a device-side assert (a code pattern
    /// of some rule's anchor).
    pub fn names_asserting_op(&self, line: &str) -> bool {
        self.code.matches(line).any(|pi| {
            let p = &self.pats[pi];
            let r = &self.rules[p.rule];
            p.block == 0
                && r.extends.is_none()
                && p.weight >= 0.5
                && !matches!(r.category, crate::report::Category::StaleContext | crate::report::Category::Unknown)
        })
    }

    fn site_table(&self, site: &KernelSite, short: Option<&str>) -> Option<SiteMatch> {
        let file = file_key(site);
        // A condition that says nothing counts only in its own file's sites; past them, the file
        // and function tell.
        if let Some(c) = site.condition.as_ref().filter(|c| !says_nothing(c) || self.has_condition_in(c, &file)) {
            let key = condition_key(c);
            // A condition torn by another process's output starts with the real one.
            let exact = self.sites_by_condition.get(&key);
            let cands = exact.or_else(|| {
                let torn =
                    self.sites_by_condition.0.iter().filter(|(k, _)| k.len() >= 8 && key.starts_with(k.as_str()));
                torn.max_by_key(|(k, _)| k.len()).map(|(_, v)| v)
            });
            if let Some(cands) = cands {
                let def = |&(r, s): &(usize, usize)| &self.rules[r].sites[s];
                let same_file: Vec<_> = cands.iter().filter(|c| def(c).file.eq_ignore_ascii_case(&file)).collect();
                if let Some(&&(r, _)) =
                    same_file.iter().find(|c| short.is_some() && def(c).function == short).or_else(|| same_file.first())
                {
                    return Some(SiteMatch {
                        rule: r,
                        strength: if exact.is_some() { SITE_EXACT } else { SITE_CONDITION },
                    });
                }
                let first = cands[0].0;
                let one_rule = exact.is_some() && cands.iter().all(|c| c.0 == first);
                let strength = if one_rule { SITE_CONDITION } else { SITE_FUNCTION };
                return Some(SiteMatch { rule: first, strength });
            }
            return None;
        }
        let cands = self.sites_by_file.get(&file)?;
        if let Some(f) = short {
            if let Some(&(r, _)) = cands.iter().find(|(r, s)| self.rules[*r].sites[*s].function == Some(f)) {
                return Some(SiteMatch { rule: r, strength: SITE_FUNCTION });
            }
        }
        self.file_rules(cands).into_iter().next()
    }

    /// True when one of `file`'s sites has the condition `c`.
    fn has_condition_in(&self, c: &str, file: &str) -> bool {
        let cands = self.sites_by_condition.get(&condition_key(c));
        cands.is_some_and(|cs| cs.iter().any(|&(r, s)| self.rules[r].sites[s].file.eq_ignore_ascii_case(file)))
    }

    /// The rules of a file's sites, each as strong as its share of them (a file shared by
    /// rules, when only the file is known: an old build's host message names no condition).
    fn file_rules(&self, cands: &[(usize, usize)]) -> Vec<SiteMatch> {
        let mut out: Vec<SiteMatch> = Vec::new();
        for &(r, _) in cands {
            if out.iter().any(|m| m.rule == r) {
                continue;
            }
            let share = cands.iter().filter(|c| c.0 == r).count() as f32 / cands.len() as f32;
            out.push(SiteMatch { rule: r, strength: SITE_FILE * share });
        }
        crate::order::sort_by_key(&mut out, |m| (u64::MAX - (m.strength * 1e6) as u64, m.rule as u64));
        out
    }

    /// Every rule a site may belong to by the site table, the strongest first.
    fn site_matches(&self, site: &KernelSite, short: Option<&str>) -> Vec<SiteMatch> {
        if site.condition.is_none() && short.is_none() {
            let file = file_key(site);
            if let Some(cands) = self.sites_by_file.get(&file) {
                return self.file_rules(cands);
            }
        }
        self.site_table(site, short).into_iter().collect()
    }

    /// Kernel patterns matching a site: (pattern index, text that matched).
    fn kernel_pattern_hits(&self, site: &KernelSite, short: Option<&str>) -> Vec<(usize, String)> {
        let mut count: SmallMap<usize, u8> = SmallMap::default();
        let file = site.file_name();
        for pi in self.kernel_file.matches(file) {
            *count.entry(pi) |= F_FILE;
        }
        if let Some(f) = short.or(site.function.as_deref()) {
            for pi in self.kernel_function.matches(f) {
                *count.entry(pi) |= F_FUNCTION;
            }
        }
        if let Some(c) = &site.condition {
            for pi in self.kernel_condition.matches(c) {
                *count.entry(pi) |= F_CONDITION;
            }
        }
        let mut v: Vec<(usize, String)> = count
            .into_iter()
            .filter(|(pi, got)| *got == self.pats[*pi].fields)
            .map(|(pi, _)| {
                let text = site.condition.clone().unwrap_or_else(|| format!("{file} {}", short.unwrap_or("")));
                (pi, text)
            })
            .collect();
        crate::order::sort_by_key(&mut v, |(pi, _)| (*pi as u64, 0));
        v
    }

    /// The rules the evidence points at, the most likely first (empty when none).
    pub fn decide(&self, input: &Input<'_>) -> Vec<Decision> {
        let mut hits = Hits::default();
        self.site_hits(input, &mut hits);
        self.frame_hits(input, &mut hits);
        self.message_hits(input, &mut hits);
        self.line_hits(input, &mut hits);
        self.check_hits(input, &mut hits);
        self.ranked(self.explained(&hits))
    }

    /// The kernel site: the site table's rules (anchors), then the kernel patterns.
    fn site_hits(&self, input: &Input<'_>, hits: &mut Hits) {
        let Some((site, short, loc)) = input.site else { return };
        let text = site_text(site, short);
        let hit = |strength: f32, scope: &'static str| Hit {
            strength,
            scope,
            text: text.clone(),
            matched: site.condition.clone(),
            at: loc.at,
            unrelated: false,
        };
        for m in self.site_matches(site, short) {
            hits.put(m.rule, 0, hit(m.strength, "site"));
        }
        for (pi, _) in self.kernel_pattern_hits(site, short) {
            let p = &self.pats[pi];
            hits.put(p.rule, p.block, hit(KERNEL * p.weight, p.scope.id()));
        }
    }

    /// The traceback's frames, the innermost first: each level up counts a little less.
    fn frame_hits(&self, input: &Input<'_>, hits: &mut Hits) {
        let frame_strength = if input.trusted_trace { FRAME_TRUSTED } else { FRAME };
        for (depth, f) in input.frames.iter().enumerate() {
            let decay = 0.97f32.powi(depth.min(20) as i32);
            let mut got: SmallMap<usize, u8> = SmallMap::default();
            for pi in self.frame_function.matches(&f.func) {
                *got.entry(pi) |= F_FUNCTION;
            }
            for pi in self.frame_path.matches(&f.path) {
                *got.entry(pi) |= F_PATH;
            }
            for (pi, g) in got {
                let p = &self.pats[pi];
                if g == p.fields {
                    let text = match f.line {
                        Some(l) => format!("{} ({}:{})", f.func, f.path, l),
                        None => format!("{} ({})", f.func, f.path),
                    };
                    let strength = frame_strength * p.weight * decay;
                    let matched = Some(f.func.clone());
                    let hit = Hit { strength, scope: p.scope.id(), text, matched, at: f.loc.at, unrelated: false };
                    hits.put(p.rule, p.block, hit);
                }
            }
        }
    }

    /// The log lines a message pattern matched (the scanner knows which, on the normalised line).
    fn message_hits(&self, input: &Input<'_>, hits: &mut Hits) {
        for m in input.messages {
            let p = &self.pats[m.pattern];
            let local = self.message.owners.iter().position(|&o| o == m.pattern);
            let matched = local.and_then(|l| self.message.span(l, &m.quote.text)).map(str::to_string);
            let text = m.quote.text.clone();
            hits.put(
                p.rule,
                p.block,
                Hit {
                    strength: MESSAGE * p.weight * input.weight(m.loc.at),
                    scope: p.scope.id(),
                    text,
                    matched,
                    at: m.loc.at,
                    unrelated: input.unrelated(m.loc.at),
                },
            );
        }
    }

    /// Source lines (with their weights) and the op that raised.
    fn line_hits(&self, input: &Input<'_>, hits: &mut Hits) {
        let mut lines = |set: &FieldSet, line: &str, at: Location, strength: f32| {
            for local in set.matches_local(line) {
                let p = &self.pats[set.owners[local]];
                let matched = set.span(local, line).map(str::to_string);
                let text = line.trim().to_string();
                hits.put(
                    p.rule,
                    p.block,
                    // (A line's weight already says whether its cell is in the lineage.)
                    Hit { strength: strength * p.weight, scope: p.scope.id(), text, matched, at, unrelated: input.unrelated(at) },
                );
            }
        };
        // A line met again at the same weight (the same loop in every cell before the one that
        // raised) would tie with its first meeting's hits, and a tie keeps the first: the last
        // few lines read are not read again.
        let mut seen = crate::memo::Recent::new(8);
        for (line, loc, w) in &input.code {
            if seen.get(line.as_bytes()) != Some(&w.to_bits()) {
                lines(&self.code, line, loc.at, CODE * w);
                seen.keep(line.as_bytes(), w.to_bits());
            }
        }
        if let Some((line, loc)) = input.raised {
            lines(&self.raised, line, loc.at, RAISED);
        }
    }

    /// The checks that hold (`src/notebook/checks.rs`) and the rules that cite them.
    fn check_hits(&self, input: &Input<'_>, hits: &mut Hits) {
        for f in input.checks {
            for p in self.pats.iter().filter(|p| p.scope == Scope::Check && p.keyword == Some(f.id)) {
                let text = format!("{}   # max {} >= {} classes", f.text, f.labels_max, f.class_count);
                hits.put(
                    p.rule,
                    p.block,
                    Hit {
                        strength: CHECK * p.weight * input.weight(f.at),
                        scope: "check",
                        text,
                        matched: None,
                        at: f.at,
                        unrelated: input.unrelated(f.at),
                    },
                );
            }
        }
    }

    /// Every rule the evidence explains (its anchor hit and every refining block), strongest
    /// first; among equals, the more specific, then the higher priority, then the first rule (a
    /// fixed order, whatever the evidence's: rules are pushed in their order, and the engine's
    /// one sort, `crate::order`, is stable).
    fn explained(&self, hits: &Hits) -> Vec<Explained> {
        let mut explained: Vec<Explained> = Vec::new();
        for (ri, r) in self.rules.iter().enumerate() {
            // The anchor: the base rule's first block when extending, else the first block.
            let (anchor_rule, refine_from) = match r.extends.and_then(|b| self.index(b)) {
                Some(base) => (base, 0),
                None => (ri, 1),
            };
            let Some(anchor) = hits.get(anchor_rule, 0) else { continue };
            let mut used = vec![anchor.clone()];
            let refined = (refine_from..r.when.len()).map(|b| hits.get(ri, b).cloned()).collect::<Option<Vec<Hit>>>();
            let Some(refined) = refined else { continue };
            used.extend(refined);
            // A rule that rests on a hit outside the failing cell's lineage is no stronger than it.
            let strength = used.iter().filter(|h| h.unrelated).fold(anchor.strength, |s, h| s.min(h.strength));
            let (refined, priority) = (used.len() - 1, r.priority);
            explained.push(Explained { strength, refined, priority, rule: ri, anchor: anchor_rule, used });
        }
        crate::order::sort_by_key(&mut explained, |e| {
            let specific = 0xffff - (e.refined as u64).min(0xffff);
            let priority = 0xffff - (e.priority.clamp(-0x8000, 0x7fff) + 0x8000) as u64;
            (u64::MAX - (e.strength * 1e6).round() as u64, (specific << 16) | priority)
        });
        explained
    }

    /// The decisions, one per anchor: a rule that only refines the same anchor as a stronger
    /// one is no other cause.
    fn ranked(&self, explained: Vec<Explained>) -> Vec<Decision> {
        let mut ranked: Vec<Decision> = Vec::new();
        let mut anchors: Vec<usize> = Vec::new();
        for Explained { strength, rule: ri, anchor, used, .. } in explained {
            if anchors.contains(&anchor) {
                continue;
            }
            anchors.push(anchor);
            let mut evidence: Vec<report::Evidence> = Vec::new();
            for h in used {
                if !evidence.iter().any(|e| e.text == h.text) {
                    evidence.push(report::Evidence {
                        scope: h.scope.to_string(),
                        text: h.text,
                        matched: h.matched,
                        at: h.at,
                        place: String::new(), // worded by diagnose
                    });
                }
            }
            let confidence = (strength * self.rules[ri].confidence).clamp(0.0, 1.0);
            ranked.push(Decision { rule: ri, confidence, evidence });
        }
        ranked
    }
}

/// The best hit of each (rule, block) of the evidence.
#[derive(Default)]
struct Hits(SmallMap<(usize, usize), Hit>);

impl Hits {
    fn put(&mut self, rule: usize, block: usize, h: Hit) {
        let e = self.0.entry((rule, block));
        // On a tie the first kept: frames come before the lines they show.
        if h.strength > e.strength + 1e-6 {
            *e = h;
        }
    }

    /// The hit of a block, when it has one.
    fn get(&self, rule: usize, block: usize) -> Option<&Hit> {
        self.0.get(&(rule, block)).filter(|h| h.strength > 0.0)
    }
}

/// A rule the evidence explains: its anchor's strength, how many refining blocks matched, its
/// priority, and the hits used.
struct Explained {
    strength: f32,
    refined: usize,
    priority: i64,
    rule: usize,
    anchor: usize,
    used: Vec<Hit>,
}

/// The message patterns' keywords, each once.
fn message_keywords(rules: &[RuleDef]) -> Vec<&'static str> {
    let mut v: Vec<&'static str> = Vec::new();
    let pats = rules.iter().flat_map(|r| r.when.iter().flat_map(|b| b.iter()));
    for k in pats.filter(|p| p.scope == Scope::Message).filter_map(|p| p.keyword) {
        if !v.contains(&k) {
            v.push(k);
        }
    }
    v
}

/// A site's file as the site table keys it: its name in small letters, hipify's `.hip` read as
/// the `.cu` it was made from.
fn file_key(site: &KernelSite) -> String {
    let file = site.file_name().to_ascii_lowercase();
    match file.strip_suffix(".hip") {
        Some(stem) => format!("{stem}.cu"),
        None => file,
    }
}

/// A condition that tells nothing of the failure: ROCm builds print `0` for PyTorch's asserts
/// (`Device-side assertion `0' failed.`), and `false` stands in a switch's default. Such a site is
/// known by its file and function, never by the condition alone.
fn says_nothing(c: &str) -> bool {
    matches!(c.trim(), "0" | "false")
}

/// How a kernel site reads in evidence: `Loss.cu:250 nll_loss_...: t >= 0 && t < n_classes`.
fn site_text(site: &KernelSite, short: Option<&str>) -> String {
    let mut s = site.file_name().to_string();
    if let Some(l) = site.line {
        s.push_str(&format!(":{l}"));
    }
    if let Some(f) = short {
        s.push(' ');
        s.push_str(f);
    }
    if let Some(c) = &site.condition {
        s.push_str(": `");
        s.push_str(c);
        s.push('`');
    }
    s
}
