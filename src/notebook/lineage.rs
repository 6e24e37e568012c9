//! The cells that matter to a failure: the failing cell and, going back in run order, every cell
//! that defines a name a cell already in the lineage uses (`net = resnet18(…)` for a cell that
//! calls `net(images)`). A notebook is often several experiments side by side; what an unrelated
//! cell printed (another model's warning, a list of another tokenizer's ids) says little of
//! why this cell failed, and the diagnosis weighs it down (`diagnose::evidence`).
//!
//! Python is read loosely, a line at a time: what a line defines is the targets of an
//! assignment (`a, b = …`, `x += …`, `x: int = …`), a `def` or `class` name, a `for` target or a
//! `with … as` name, and what it changes in place (`df['label'] = …`, `model.head = …`,
//! `tokenizer.add_tokens(…)` as a statement); what it uses is every other name in it (an
//! attribute after a dot is no name; neither are keywords, builtins, strings or comments).
//! Imports define nothing here: every cell imports `torch`, and a module shared is no lineage.
//!
//! A lineage is only as good as the notebook is whole: when fewer than two of every three names
//! the failing cell uses come from the cells before it (cells deleted, or a notebook pasted in
//! part), what the others hold is unknown, and no cell is set aside.

use crate::facts::CellSource;

/// The cells (their notebook index) in the lineage of cell `failing`, itself first; `None`
/// when `failing` is not among `cells`.
pub fn lineage(cells: &[CellSource], failing: u32) -> Option<Vec<u32>> {
    let fail = cells.iter().find(|c| c.index == failing)?;
    let mut related = vec![failing];
    let own = names(&fail.source);
    let mut wanted: Vec<&str> = own.uses.clone();
    let before: Vec<(&CellSource, Names<'_>)> =
        cells.iter().filter(|c| c.order < fail.order).map(|c| (c, names(&c.source))).collect();
    // Too few of the failing cell's names come from the notebook: every cell may matter.
    let imported = |w: &&str| own.imports.contains(w) || before.iter().any(|(_, n)| n.imports.contains(w));
    let known = wanted.iter().filter(|w| imported(w) || before.iter().any(|(_, n)| n.defines.contains(w))).count();
    if known * 3 < wanted.len() * 2 {
        return Some(cells.iter().map(|c| c.index).collect());
    }
    // Back in run order from the failing cell (`cells` are in run order): a cell joins when it
    // defines a wanted name, and the names it uses are wanted in turn (by the cells before it).
    for (c, n) in before.into_iter().rev() {
        if n.defines.iter().any(|d| wanted.contains(d)) {
            related.push(c.index);
            for u in n.uses {
                if !wanted.contains(&u) {
                    wanted.push(u);
                }
            }
        }
    }
    Some(related)
}

/// What a cell's source does with names, each listed once.
#[derive(Debug, Default, PartialEq)]
pub struct Names<'a> {
    /// Bound or changed in place.
    pub defines: Vec<&'a str>,
    /// Used before (or without) the cell defining them.
    pub uses: Vec<&'a str>,
    /// Bound by its imports (`import numpy as np`: `np`; `from x import a, b as c`: `a`, `c`).
    pub imports: Vec<&'a str>,
}

/// The names a cell's source defines, uses and imports.
pub fn names<'a>(source: &'a str) -> Names<'a> {
    let mut n = Names::default();
    let push = |v: &mut Vec<&'a str>, s: &'a str| {
        if !v.contains(&s) {
            v.push(s);
        }
    };
    for line in source.lines() {
        let toks = tokens(line);
        match toks.first() {
            Some(&(NAME, "import" | "from")) => {
                for s in imported(&toks) {
                    push(&mut n.imports, s);
                }
                continue;
            }
            Some(&(b'%' | b'!', _)) | None => continue,
            _ => {}
        }
        // A name the cell defined on an earlier line (or this line binds) is its own, not a use;
        // one it changes in place is both (the object comes from somewhere).
        let (binds, changes, local) = targets(&toks);
        for (i, &(k, s)) in toks.iter().enumerate() {
            let after_dot = i > 0 && toks[i - 1].0 == b'.';
            // A keyword argument's name (`f(num_labels=2)`) is no name of the notebook's.
            let keyword = toks.get(i + 1).is_some_and(|t| t.0 == b'=') && toks.get(i + 2).is_none_or(|t| t.0 != b'=');
            if k != NAME || after_dot || (keyword && !binds.contains(&s)) || COMMON.contains(&s) {
                continue;
            }
            if !binds.contains(&s) && !local.contains(&s) && !n.defines.contains(&s) {
                push(&mut n.uses, s);
            }
        }
        for s in binds.into_iter().chain(changes) {
            if !COMMON.contains(&s) {
                push(&mut n.defines, s);
            }
        }
    }
    n
}

/// The kind of a token that is a name; any other token is its one byte of punctuation.
const NAME: u8 = b'a';

/// A line's tokens: names (keywords too) and single bytes of punctuation; numbers, strings and
/// the comment dropped.
fn tokens(line: &str) -> Vec<(u8, &str)> {
    let b = line.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let start = i;
        i += 1;
        if c.is_ascii_alphabetic() || c == b'_' || c >= 0x80 {
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] >= 0x80) {
                i += 1;
            }
            out.push((NAME, &line[start..i]));
        } else if c.is_ascii_digit() {
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'.' || b[i] == b'_') {
                i += 1;
            }
        } else if c == b'"' || c == b'\'' {
            while i < b.len() && b[i] != c {
                i += 1 + usize::from(b[i] == b'\\');
            }
            i += 1;
        } else if c == b'#' {
            break;
        } else if !c.is_ascii_whitespace() {
            out.push((c, &line[start..i]));
        }
    }
    out
}

/// The names an import line binds.
fn imported<'a>(toks: &[(u8, &'a str)]) -> Vec<&'a str> {
    // After `import` (the second one of `from x import …`): items split by commas, each bound
    // to its `as` name, else its first name.
    let from = toks.iter().position(|t| *t == (NAME, "import")).map_or(toks.len(), |i| i + 1);
    let mut out = Vec::new();
    for item in toks[from..].split(|t| t.0 == b',') {
        let names: Vec<&str> = item.iter().filter(|t| t.0 == NAME).map(|t| t.1).collect();
        let bound = match names.iter().position(|n| *n == "as") {
            Some(i) => names.get(i + 1),
            None => names.first(),
        };
        out.extend(bound);
    }
    out
}

/// What a line binds, what it changes in place, and what it binds for itself only (a
/// comprehension's `for k, v in`, a `lambda b:`'s parameters).
fn targets<'a>(toks: &[(u8, &'a str)]) -> (Vec<&'a str>, Vec<&'a str>, Vec<&'a str>) {
    let names = |t: &[(u8, &'a str)]| -> Vec<&'a str> { t.iter().filter(|t| t.0 == NAME).map(|t| t.1).collect() };
    let (mut binds, mut changes, mut local) = (Vec::new(), Vec::new(), Vec::new());
    let word = |i: usize, w: &str| toks.get(i).is_some_and(|t| *t == (NAME, w));
    // `for … in` and `lambda …:` anywhere; at the start, a `for` binds for the cell.
    let mut i = 0;
    while i < toks.len() {
        let end =
            |from: usize, stop: &dyn Fn(usize) -> bool| (from..toks.len()).find(|&j| stop(j)).unwrap_or(toks.len());
        if word(i, "for") {
            let e = end(i + 1, &|j| word(j, "in"));
            let bound = names(&toks[i + 1..e]);
            if i == 0 || (i == 1 && word(0, "async")) {
                binds.extend(bound)
            } else {
                local.extend(bound)
            }
            i = e;
        } else if word(i, "lambda") {
            let e = end(i + 1, &|j| toks[j].0 == b':');
            local.extend(names(&toks[i + 1..e]));
            i = e;
        } else if word(i, "as") && word(0, "with") {
            binds.extend(toks.get(i + 1).filter(|t| t.0 == NAME).map(|t| t.1));
        }
        i += 1;
    }
    if word(0, "def") || word(0, "class") || (word(0, "async") && word(1, "def")) {
        let at = if word(0, "async") { 2 } else { 1 };
        binds.extend(toks.get(at).filter(|t| t.0 == NAME).map(|t| t.1));
        return (binds, changes, local);
    }
    // An assignment: `=` not part of `==`, `<=`, `>=`, `!=`, outside brackets (keyword arguments).
    let mut depth = 0i32;
    for (i, t) in toks.iter().enumerate() {
        match t.0 {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth -= 1,
            b'=' if depth == 0 => {
                let next = toks.get(i + 1).map(|t| t.0);
                let prev = if i > 0 { toks[i - 1].0 } else { b' ' };
                if next == Some(b'=') || matches!(prev, b'=' | b'<' | b'>' | b'!') {
                    return (binds, changes, local);
                }
                // `x: int = 0`: the annotation is no target; `x[i] = …`, `x.a = …` change x.
                let lhs = &toks[..i];
                let lhs = &lhs[..lhs.iter().position(|t| t.0 == b':').unwrap_or(lhs.len())];
                if lhs.iter().any(|t| t.0 == b'[' || t.0 == b'.') {
                    changes.extend(lhs.first().filter(|t| t.0 == NAME).map(|t| t.1));
                } else {
                    binds.extend(names(lhs));
                }
                return (binds, changes, local);
            }
            _ => {}
        }
    }
    // A statement that calls a method of a name (`tokenizer.add_tokens([…])`) may change it.
    if toks.len() > 2 && toks[0].0 == NAME && toks[1].0 == b'.' && toks[toks.len() - 1].0 == b')' {
        changes.push(toks[0].1);
    }
    (binds, changes, local)
}

/// Keywords, builtins and the names every notebook shares: no lineage through them.
const COMMON: &[&str] = &[
    "False",
    "None",
    "True",
    "and",
    "as",
    "assert",
    "async",
    "await",
    "break",
    "class",
    "continue",
    "def",
    "del",
    "elif",
    "else",
    "except",
    "finally",
    "for",
    "from",
    "global",
    "if",
    "import",
    "in",
    "is",
    "lambda",
    "nonlocal",
    "not",
    "or",
    "pass",
    "raise",
    "return",
    "try",
    "while",
    "with",
    "yield",
    "print",
    "len",
    "range",
    "enumerate",
    "zip",
    "list",
    "dict",
    "set",
    "tuple",
    "int",
    "float",
    "str",
    "bool",
    "min",
    "max",
    "sum",
    "abs",
    "round",
    "sorted",
    "isinstance",
    "type",
    "open",
    "super",
    "self",
    "map",
    "filter",
    "any",
    "all",
    "iter",
    "next",
    "getattr",
    "setattr",
    "hasattr",
    "torch",
    "nn",
    "F",
    "np",
    "pd",
    "plt",
    "os",
    "sys",
    "math",
    "random",
    "json",
    "time",
    "tqdm",
    "i",
    "j",
    "k",
    "_",
    "x",
    "y",
];

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(index: u32, order: u64, source: &str) -> CellSource {
        CellSource { index, execution_count: Some(order as i64 + 1), order, source: source.to_string() }
    }

    #[test]
    fn names_defined_and_used() {
        let n = names("import torch\nnet = resnet18(num_classes=10).cuda()  # the model\nfor images, targets in loader:\n    loss = criterion(net(images), targets)\nprint(\"net\", loss.item())");
        assert_eq!(n.defines, ["net", "images", "targets", "loss"]);
        assert_eq!(n.uses, ["resnet18", "loader", "criterion"]);
        assert_eq!(
            names("import torch, numpy as np\nfrom transformers import (AutoModel,\nfrom a.b import c as d, e").imports,
            ["torch", "np", "AutoModel", "d", "e"]
        );
        // Keyword arguments and comparisons are no assignment; a comprehension's and a lambda's names are their own.
        let n = names("f(a=1)\nif a == b: pass\nenc = data.map(lambda b: tok(b['text']), batched=True)\nd = {k: v.cuda() for k, v in batch.items()}");
        assert_eq!((n.defines, n.uses), (vec!["enc", "d"], vec!["f", "a", "b", "data", "tok", "batch"]));
        // Changed in place: defined (its new state) and used (the object came from somewhere).
        let n = names("model.head = h\nd[key] = v\ntokenizer.add_tokens(['<a>'])");
        assert_eq!(
            (n.defines, n.uses),
            (vec!["model", "d", "tokenizer"], vec!["model", "h", "d", "key", "v", "tokenizer"])
        );
        assert_eq!(names("with torch.no_grad() as g, open(p) as fh:\n  pass\ndef train(m):\n  pass\nclass Head(nn.Module): pass\nn: int = 3").defines, ["g", "fh", "train", "Head", "n"]);
    }

    #[test]
    fn the_lineage_follows_names_back_in_run_order() {
        let cells = [
            cell(0, 0, "from transformers import AutoTokenizer\ngpt_tok = AutoTokenizer.from_pretrained('gpt2')\nids = gpt_tok('x')"),
            cell(1, 1, "data = load()\nloader = DataLoader(data)"),
            cell(2, 2, "net = resnet18()\ncriterion = nn.CrossEntropyLoss()"),
            cell(3, 3, "for images, targets in loader:\n    loss = criterion(net(images), targets)"),
            // Ran after the failure: never in its lineage.
            cell(4, 4, "loader = other()"),
        ];
        assert_eq!(lineage(&cells, 3), Some(vec![3, 2, 1]));
        assert_eq!(lineage(&cells, 0), Some(vec![0]));
        assert_eq!(lineage(&cells, 9), None);
    }

    #[test]
    fn a_notebook_in_part_sets_no_cell_aside() {
        // `batch` and `model` come from cells the notebook does not hold.
        let cells = [cell(0, 0, "n = tokenizer.add_tokens(['<a>'])"), cell(1, 1, "out = model(**batch)")];
        assert_eq!(lineage(&cells, 1), Some(vec![0, 1]));
    }

    #[test]
    fn a_name_defined_twice_takes_both_cells() {
        let cells = [
            cell(0, 0, "model = a()"),
            cell(1, 1, "other = 1"),
            cell(2, 2, "model = b(other)"),
            cell(3, 3, "model(x)"),
        ];
        // Both cells that define `model` join (a loose reading: which one ran last is not tracked).
        assert_eq!(lineage(&cells, 3), Some(vec![3, 2, 1, 0]));
    }

    /// Any text: an answer, never a panic (a notebook's source is untrusted input).
    #[test]
    fn any_source() {
        for s in [
            "",
            "=",
            "==",
            "é = ü",
            "for",
            "with as",
            "x = 'unterminated",
            "def",
            "((((= 1",
            "a, = b",
            "lambda",
            "x = '\\",
            "for for in in",
            "import",
            "from x import",
        ] {
            let _ = names(s);
        }
    }
}
