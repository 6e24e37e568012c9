//! The checks a rule may cite (`check = [...]` in a rule file): evidence the engine works out
//! rather than matches, each computed by `src/notebook/checks.rs`. Included by build.rs, which refuses
//! a rule that cites another.

/// `labels_reach_class_count`: the labels a cell printed reach the class count a cell set.
pub const IDS: &[&str] = &["labels_reach_class_count"];
