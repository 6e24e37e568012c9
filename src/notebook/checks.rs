//! Evidence the engine works out rather than matches: what a notebook's outputs printed,
//! compared with what its code set. A rule cites a check by its id (`check = [...]` in its
//! file); the check says whether it holds and which line shows it.
//!
//! - `labels_reach_class_count`: a cell printed the labels (`labels.unique()`, a set or list
//!   of class ids, `labels.max()`), and the largest is not below the class count a cell set
//!   (`num_classes = 10`, `num_labels=10`, `n_classes`, `nc`): a class id of 10 with 10
//!   classes is past the last class (labels that start at 1, a head one class short).

use crate::input::{Cell, CellType, OutputKind};
use crate::report::Location;

pub use crate::rules::check_ids::IDS;

pub use crate::facts::CheckFinding as Finding;

/// Names a class count goes by in code.
const COUNT_NAMES: &[&str] =
    &["num_classes", "num_labels", "n_classes", "nb_classes", "number_of_classes", "NUM_CLASSES", "nc"];

/// Words that say a printed value is about labels, in the line or the cell's source.
const LABEL_WORDS: &[&str] = &["label", "target", "class", "unique", "y_train", "y.", "cls"];

/// Every check that holds on these cells, taken in the order they ran.
pub fn run(cells: &[&Cell]) -> Vec<Finding> {
    // Without a class count in the code there is nothing to compare with: the outputs, which
    // are most of a notebook's bytes, are not read.
    if !cells.iter().any(|c| c.source.lines().any(|l| class_count(l).is_some())) {
        return Vec::new();
    }
    let mut count: Option<i64> = None;
    let mut labels: Option<(i64, String, Location)> = None;
    for c in cells {
        if c.cell_type != CellType::Code {
            continue;
        }
        // The last assignment in run order is the one in effect.
        for line in c.source.lines() {
            if let Some(n) = class_count(line) {
                count = Some(n);
            }
        }
        let about_labels = contains_any(&c.source, LABEL_WORDS);
        let mut line_no = 0u64;
        for (oi, o) in c.outputs.iter().enumerate() {
            if o.kind == OutputKind::Error || o.name.as_deref() == Some("stderr") {
                line_no += o.text.lines().count().max(1) as u64;
                continue;
            }
            for l in o.text.lines() {
                line_no += 1;
                // One byte search rules out most lines; the words only for a collection.
                if !l.bytes().any(|c| matches!(c, b'[' | b'{' | b'(')) {
                    continue;
                }
                let Some((_, max)) = printed_ints(l) else { continue };
                if !(about_labels || contains_any(l, LABEL_WORDS)) {
                    continue;
                }
                if labels.as_ref().is_none_or(|(m, _, _)| max > *m) {
                    let at = Location {
                        line: line_no,
                        cell: Some(c.index),
                        output: Some(oi as u32),
                        execution_count: c.execution_count,
                        runtime_log: false,
                    };
                    labels = Some((max, l.trim().to_string(), at));
                }
            }
        }
    }
    match (labels, count) {
        (Some((max, text, at)), Some(n)) if n >= 2 && max >= n => {
            vec![Finding { id: "labels_reach_class_count", text, labels_max: max, class_count: n, at }]
        }
        _ => Vec::new(),
    }
}

fn contains_any(s: &str, words: &[&str]) -> bool {
    words.iter().any(|w| s.contains(w))
}

/// `num_classes = 10` (also `num_labels=10,` in a call, `self.n_classes = 10`): the number.
/// (Read byte by byte: this runs in the package, where every helper costs bytes.)
fn class_count(line: &str) -> Option<i64> {
    let code = line.split('#').next().unwrap_or("").as_bytes();
    // Every form assigns: a line without `=` has none (most lines of code).
    memchr::memchr(b'=', code)?;
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    for name in COUNT_NAMES.iter().map(|n| n.as_bytes()) {
        for i in memchr::memchr_iter(name[0], code) {
            if !code[i..].starts_with(name) || (i > 0 && word(code[i - 1])) {
                continue;
            }
            let mut j = skip_spaces(code, i + name.len());
            if code.get(j) != Some(&b'=') || code.get(j + 1) == Some(&b'=') {
                continue;
            }
            j = skip_spaces(code, j + 1);
            if let Some((n, end)) = int(code, j) {
                if code.get(end).is_none_or(|&c| !word(c) && c != b'.') {
                    return Some(n);
                }
            }
        }
    }
    None
}

fn skip_spaces(b: &[u8], mut i: usize) -> usize {
    while b.get(i).is_some_and(|&c| c == b' ' || c == b'\t') {
        i += 1;
    }
    i
}

/// The integer at `b[i..]` (an optional `-`, digits) and where it ends.
fn int(b: &[u8], i: usize) -> Option<(i64, usize)> {
    let neg = b.get(i) == Some(&b'-');
    let mut j = i + usize::from(neg);
    let start = j;
    let mut n: i64 = 0;
    while let Some(&c) = b.get(j).filter(|c| c.is_ascii_digit()) {
        n = n.saturating_mul(10).saturating_add(i64::from(c - b'0'));
        j += 1;
    }
    (j > start).then_some((if neg { -n } else { n }, j))
}

/// The smallest and largest of the integers a line prints as a collection or a scalar tensor:
/// `tensor([1, 2, 3])`, `array([0, 4])`, `[ 1  2 10]`, `{0, 1, 2}`, `tensor(10)`, possibly
/// after a caption (`unique labels: …`) and with a device (`device='cuda:0'`).
fn printed_ints(line: &str) -> Option<(i64, i64)> {
    let b = line.as_bytes();
    let (call, mut i) = match (line.find("tensor("), line.find("array(")) {
        (Some(i), _) => (true, i + 7),
        (None, Some(i)) => (true, i + 6),
        _ => (false, b.iter().position(|&c| c == b'[' || c == b'{')? + 1),
    };
    if b.get(i) == Some(&b'[') {
        i += 1;
    }
    let mut range: Option<(i64, i64)> = None;
    loop {
        while b.get(i).is_some_and(|&c| c == b' ' || c == b',') {
            i += 1;
        }
        match b.get(i) {
            // The values end where the collection closes (a tensor's device and dtype after).
            Some(b']' | b'}' | b')') => return range,
            Some(b'.') if b[i..].starts_with(b"...") => i += 3,
            Some(_) if call && range.is_some() && b[i..].iter().take_while(|&&c| c != b',').any(|&c| c == b'=') => {
                return range; // `tensor(10, device='cuda:0')`
            }
            Some(_) => {
                let (n, end) = int(b, i)?;
                if b.get(end).is_some_and(|&c| !matches!(c, b' ' | b',' | b']' | b'}' | b')')) {
                    return None; // a float or a word: not a set of class ids
                }
                range = Some(range.map_or((n, n), |(lo, hi)| (lo.min(n), hi.max(n))));
                i = end;
            }
            None => return None, // cut: no close
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::Output;

    fn cell(index: u32, source: &str, printed: &str) -> Cell {
        Cell {
            index,
            execution_count: Some(i64::from(index) + 1),
            cell_type: CellType::Code,
            source: source.into(),
            outputs: vec![Output { kind: OutputKind::Stream, name: Some("stdout".into()), text: printed.into() }],
        }
    }

    #[test]
    fn printed_collections_of_ints() {
        assert_eq!(printed_ints("tensor([ 1,  2,  3, 10])"), Some((1, 10)));
        assert_eq!(printed_ints("tensor([0, 1, 2], device='cuda:0')"), Some((0, 2)));
        assert_eq!(printed_ints("unique labels: [ 1  2  3  4  5  6  7  8  9 10]"), Some((1, 10)));
        assert_eq!(printed_ints("array([0, 4, 7])"), Some((0, 7)));
        assert_eq!(printed_ints("{0, 1, 2, 3}"), Some((0, 3)));
        assert_eq!(printed_ints("tensor(10, device='cuda:0')"), Some((10, 10)));
        assert_eq!(printed_ints("tensor([0, 1, ..., 9])"), Some((0, 9)));
        assert_eq!(printed_ints("tensor([0.1000, 0.9000])"), None, "floats are not class ids");
        assert_eq!(printed_ints("Epoch [1/10]"), None, "words");
        assert_eq!(printed_ints("loss 0.25"), None);
        assert_eq!(printed_ints("tensor([1, 2,"), None, "cut: no close");
    }

    #[test]
    fn class_counts_in_code() {
        assert_eq!(class_count("num_classes = 10"), Some(10));
        assert_eq!(class_count("model = Net(num_labels=5, dropout=0.1)"), Some(5));
        assert_eq!(class_count("self.n_classes = 3  # cats"), Some(3));
        assert_eq!(class_count("nc = 80"), Some(80));
        assert_eq!(class_count("if num_classes == 10:"), None, "a comparison");
        assert_eq!(class_count("sync = 4"), None, "nc inside a word");
        assert_eq!(class_count("num_classes = len(classes)"), None, "not a number");
        assert_eq!(class_count("num_classes = 10.5"), None);
        assert_eq!(class_count("# num_classes = 10"), None, "a comment");
    }

    #[test]
    fn labels_at_the_class_count_are_found() {
        let a = cell(0, "num_classes = 10", "");
        let b = cell(1, "print(labels.unique())", "tensor([ 1,  2,  3,  4,  5,  6,  7,  8,  9, 10])\n");
        let f = run(&[&a, &b]);
        assert_eq!(f.len(), 1);
        assert_eq!((f[0].labels_max, f[0].class_count), (10, 10));
        assert_eq!((f[0].at.cell, f[0].at.line), (Some(1), 1));
        assert!(f[0].text.starts_with("tensor([ 1"));
        // Below the count: nothing.
        let ok = cell(1, "print(labels.unique())", "tensor([0, 1, 2, 3, 4, 5, 6, 7, 8, 9])\n");
        assert!(run(&[&a, &ok]).is_empty());
        // Not about labels: a printed list of ints elsewhere does not count.
        let other = cell(1, "print(model.layer_sizes)", "[64, 128, 256]\n");
        assert!(run(&[&a, &other]).is_empty());
        // The count in effect is the last one set.
        let later = cell(2, "num_classes = 11", "");
        assert!(run(&[&a, &b, &later]).is_empty());
        // No count: nothing to compare with.
        assert!(run(&[&b]).is_empty());
    }
}
