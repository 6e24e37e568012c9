//! torchrun's summary of a failed launch: the `Root Cause (first observed failure):` block the
//! elastic agent prints at the end (and the `Failures:` block before it), read from the lines
//! the scanner kept after those headings. torchrun picks the root cause by the smallest
//! timestamp of the ranks' error files, in whole seconds: a rank that failed in the same second
//! may as well have been first, and the block does not say so; the ties are found here from the
//! other failures' times.
//!
//! ```text
//! Root Cause (first observed failure):
//! [0]:
//!   time      : 2026-11-20_10:02:41
//!   host      : node-07
//!   rank      : 1 (local_rank: 1)
//!   exitcode  : 1 (pid: 7720)
//!   error_file: /tmp/torchelastic_3f9/none_ab/attempt_0/1/error.json
//!   traceback : Traceback (most recent call last): ...
//! ```

use crate::facts::Elastic;
use crate::report::RootCause;

/// The heading of the root-cause block, and of the other failures' block.
pub const ROOT: &str = "Root Cause (first observed failure)";
pub const FAILURES: &str = "Failures:";

/// The lines kept after each heading: a block's entry is seven lines; the other failures of a
/// launch of up to 16 ranks.
pub const ROOT_LINES: usize = 8;
pub const FAILURE_LINES: usize = 16 * 7 + 2;

/// The fields of an entry that are read, in the order of `Entry`'s slots.
const KEYS: [&str; 5] = ["time", "host", "rank", "exitcode", "error_file"];

/// One entry of a block: its fields as printed (`""` when absent), in the order of `KEYS`.
type Entry<'a> = [&'a str; 5];

/// The number a value starts with, and the number after the `:` inside its parentheses: `1`
/// and `1` of `1 (local_rank: 1)`, `-6` and `7720` of `-6 (pid: 7720)`. (Read by hand:
/// `str::parse` costs the package more.)
fn numbers(v: &str) -> (Option<i64>, Option<i64>) {
    let (head, paren) = v.split_once('(').unwrap_or((v, ""));
    let number = |s: &str| {
        let s = s.trim().trim_end_matches(')').trim();
        let (sign, digits) = s.strip_prefix('-').map_or((1, s), |d| (-1, d));
        (!digits.is_empty() && digits.len() < 10 && digits.bytes().all(|b| b.is_ascii_digit()))
            .then(|| sign * digits.bytes().fold(0, |n, d| n * 10 + i64::from(d - b'0')))
    };
    (number(head), number(paren.split_once(':').map_or("", |(_, n)| n)))
}

/// The entries listed in `lines` (the lines after a heading), in order, up to the next heading
/// or rule line. (Slices, one pass, no parsing: this runs in the page, where code is weight.)
fn entries(lines: &[String]) -> Vec<Entry<'_>> {
    let mut out: Vec<Entry<'_>> = Vec::new();
    for l in lines {
        let t = l.trim();
        if t.starts_with(ROOT) || t.starts_with("====") || t.starts_with("----") || t == "<NO_OTHER_FAILURES>" {
            break;
        }
        if t.starts_with('[') && t.ends_with("]:") {
            out.push([""; 5]);
        } else if let (Some(e), Some((key, value))) = (out.last_mut(), t.split_once(':')) {
            if let Some(i) = KEYS.iter().position(|k| *k == key.trim()) {
                e[i] = value.trim();
            }
        }
    }
    out
}

/// The root cause torchrun names (its last root-cause block), with the ranks listed before it
/// as failed in the same second.
pub fn read(kept: &[Elastic]) -> Option<RootCause> {
    let block = kept.iter().rev().find(|k| k.root)?;
    let root = *entries(&block.lines).first().filter(|e| !e[0].is_empty())?;
    // (Each once, in the order listed: torchrun lists the failures by rank.)
    let mut ties: Vec<u32> = Vec::new();
    for k in kept.iter().filter(|k| !k.root && k.at.order < block.at.order) {
        for e in entries(&k.lines).into_iter().filter(|e| e[0] == root[0] && e[2] != root[2]) {
            match numbers(e[2]).0.and_then(|n| u32::try_from(n).ok()) {
                Some(rank) if !ties.contains(&rank) => ties.push(rank),
                _ => {}
            }
        }
    }
    let (rank, local_rank) = numbers(root[2]);
    let (exitcode, pid) = numbers(root[3]);
    let small = |n: Option<i64>| n.and_then(|n| u32::try_from(n).ok());
    let text = |s: &str| Some(s.to_string()).filter(|s| !s.is_empty() && s != "<N/A>");
    Some(RootCause {
        rank: small(rank),
        local_rank: small(local_rank),
        host: text(root[1]),
        time: root[0].to_string(),
        exitcode,
        pid: small(pid),
        error_file: text(root[4]),
        ties,
        at: block.at.at,
        place: String::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::facts::Loc;

    fn block(order: u64, root: bool, lines: &[&str]) -> Elastic {
        let at = Loc { order, ..Loc::default() };
        Elastic { at, root, lines: lines.iter().map(|l| l.to_string()).collect() }
    }

    fn entry(rank: &str, time: &str) -> Vec<String> {
        let mut v = vec!["[1]:".to_string(), format!("  time      : {time}")];
        v.push("  host      : node-3".into());
        v.push(format!("  rank      : {rank}"));
        v.push("  exitcode  : -6 (pid: 4410)".into());
        v.push("  error_file: <N/A>".into());
        v
    }

    #[test]
    fn reads_the_root_cause_and_the_ranks_of_the_same_second() {
        let mut failures: Vec<String> = Vec::new();
        for (rank, time) in [("9 (local_rank: 1)", "2026-12-01_10:00:05"), ("3 (local_rank: 3)", "2026-12-01_10:00:04")] {
            failures.extend(entry(rank, time));
        }
        failures.extend(entry("12 (local_rank: 4)", "2026-12-01_10:00:05"));
        failures.push("-----".into());
        failures.extend(entry("1 (local_rank: 1)", "2026-12-01_10:00:05"));
        let failures: Vec<&str> = failures.iter().map(String::as_str).collect();
        let root = entry("5 (local_rank: 5)", "2026-12-01_10:00:05");
        let root: Vec<&str> = root.iter().map(String::as_str).collect();
        let kept = [block(1, false, &failures), block(2, true, &root)];
        let rc = read(&kept).expect("a root cause");
        assert_eq!((rc.rank, rc.local_rank, rc.pid, rc.exitcode), (Some(5), Some(5), Some(4410), Some(-6)));
        assert_eq!(rc.host.as_deref(), Some("node-3"));
        assert_eq!(rc.error_file, None, "<N/A> is no file");
        // Rank 3 failed a second earlier; rank 1 is past the rule line that ends the block.
        assert_eq!(rc.ties, vec![9, 12]);
    }

    #[test]
    fn a_block_after_the_root_cause_or_without_a_time_names_nothing() {
        let root = entry("0 (local_rank: 0)", "2026-12-01_10:00:05");
        let root: Vec<&str> = root.iter().map(String::as_str).collect();
        let later = entry("7 (local_rank: 7)", "2026-12-01_10:00:05");
        let later: Vec<&str> = later.iter().map(String::as_str).collect();
        let rc = read(&[block(1, true, &root), block(2, false, &later)]).unwrap();
        assert!(rc.ties.is_empty(), "{:?}", rc.ties);
        assert!(read(&[block(1, true, &["[0]:", "  rank : 2"])]).is_none());
        assert!(read(&[block(1, false, &root)]).is_none());
    }

    #[test]
    fn numbers_take_signs_and_the_parenthesised_value() {
        assert_eq!(numbers("1 (local_rank: 1)"), (Some(1), Some(1)));
        assert_eq!(numbers("-9 (pid: 77)"), (Some(-9), Some(77)));
        assert_eq!(numbers("<N/A>"), (None, None));
        assert_eq!(numbers("99999999999"), (None, None));
    }
}
