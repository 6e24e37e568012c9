//! Shown, described or mentioned: whether a line that holds the device-side assert is output
//! of a run, a person's own report of one in prose, or a mention (advice, an explanation, a
//! heading, documentation, code, a test).
//!
//! The text around the line decides, by its structure, in any language. Every line of a short
//! text gets a [`Kind`] (a traceback frame, a kernel record, a logger's prefix, a progress bar,
//! a sentence, a heading, a list item, a setting, code, …), and each kind a weight
//! ([`WEIGHTS`]): output counts up, prose counts down. An error line counts as output when the
//! lines nearest it weigh up (or when nothing is around it: a paste of the error alone); inside
//! prose, it is a person's report when the sentence that holds it speaks in the first person
//! ([`FIRST_PERSON`]), a paste when the line stands alone under such a sentence, and a mention
//! otherwise. A line whose own kind is prose (a heading, a list item, a setting, code) is a
//! mention whatever is around it, as are the forms of [`super::mention`].
//!
//! Only texts up to [`HEAD`] bytes are judged: a longer text is a log, and every line in it is
//! output.

use super::normalize;
use crate::facts::{Facts, HostHit};
use std::borrow::Cow;

/// Texts longer than this are logs: their error lines are output, not judged.
pub const HEAD: usize = 256 << 10;

/// What a line looks like.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Blank,
    /// A traceback's header, frame or context line (`  File "…", line 3`, `----> 4 …`).
    Frame,
    /// A kernel's `Assertion … failed.` record.
    Kernel,
    /// An exception line at the start of the line (`IndexError: …`).
    Error,
    /// A note PyTorch prints beside the error (`CUDA kernel errors might be asynchronously
    /// reported…`, `For debugging consider passing CUDA_LAUNCH_BLOCKING=1`, `Compile with …`,
    /// the `TORCH_USE_CUDA_DSA` report's `Looking for device-side assertion failure …`).
    Note,
    /// A launcher's, logger's or terminal's prefix, or a clock, in front of the line.
    Prefixed,
    /// A progress bar (`37%|███▋ | 289/782`).
    Progress,
    /// A shell or interpreter prompt (`$ python train.py`, `>>> `, `In [3]:`).
    Prompt,
    /// Mostly numbers: a training step's values (`epoch 0 | step 10 | loss 2.301`).
    Numbers,
    /// A code fence (```` ``` ````): neither, and not a neighbour.
    Fence,
    /// A sentence: words and the punctuation of prose.
    Sentence,
    /// A heading: Markdown's `#`, an underline, a bold line, a reStructuredText directive.
    Heading,
    /// A list item (`- `, `* `, `1. `).
    Item,
    /// A setting of a key=value page (`ERROR=…`).
    Setting,
    /// Code: a definition, an import, an assertion, a comment.
    Code,
    Other,
}

/// Each kind's weight, output up and prose down. The table is the classifier's data:
/// `tests/shape.rs` and the fixtures in `tests/shape/` hold it to the texts.
pub const WEIGHTS: &[(Kind, i32)] = &[
    (Kind::Frame, 3),
    (Kind::Kernel, 3),
    (Kind::Note, 3),
    (Kind::Prefixed, 3),
    (Kind::Progress, 3),
    (Kind::Prompt, 2),
    (Kind::Error, 2),
    (Kind::Numbers, 2),
    (Kind::Other, 0),
    // Code above an error is a traceback's source line as often as a file's: it weighs
    // nothing, and an error line that is itself code is a mention.
    (Kind::Code, 0),
    (Kind::Item, -1),
    (Kind::Setting, -2),
    (Kind::Heading, -2),
    (Kind::Sentence, -2),
];

/// The weight of a kind (a blank line and a fence weigh nothing).
pub fn weight(k: Kind) -> i32 {
    WEIGHTS.iter().find(|w| w.0 == k).map_or(0, |w| w.1)
}

/// How many lines with text on each side of an error line are its neighbours, and how far
/// away (in lines) they may be.
const NEIGHBOURS: usize = 3;
const REACH: usize = 8;

/// How much of each line around a person's report the priors read.
const AROUND_CHARS: usize = 400;

/// An error line of its own is a quotation when its neighbours weigh this or less: two lines of
/// prose at least (a library's one warning sentence above a kernel record is still a log).
const PROSE: i32 = -3;

/// Words that say a sentence speaks of the writer's own run, by language (matched as whole
/// words; in Chinese, Japanese and Korean, as written).
pub const FIRST_PERSON: &[(&str, &[&str])] = &[
    ("en", &["I", "I'm", "I've", "my", "me"]),
    ("de", &["ich", "mein", "meine", "meinen", "meines", "mir", "mich"]),
    ("es", &["yo", "mi", "mis", "me", "tengo", "estoy"]),
    ("pt", &["eu", "meu", "minha", "meus", "minhas", "estou", "tenho"]),
    ("fr", &["je", "j'ai", "mon", "ma", "mes", "moi"]),
    ("ru", &["я", "меня", "мой", "моя", "мою", "моей", "мне", "моего"]),
    ("zh", &["我"]),
    ("ja", &["私", "僕", "自分", "自作", "質問"]),
    ("ko", &["제가", "저는", "내가", "나는", "저의"]),
];

/// What an error line is, read with the text around it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    Shown,
    Described,
    /// A mention, and why: the line's own kind (`heading`, `list`, `setting`, `code`), `quoted`
    /// (a line of its own inside prose) or `prose` (inside a sentence).
    Mentioned(&'static str),
}

/// The kind of a line.
pub fn kind(line: &str) -> Kind {
    let t = line.trim();
    if t.is_empty() {
        return Kind::Blank;
    }
    if t.starts_with("```") || t.starts_with("~~~") {
        return Kind::Fence;
    }
    if is_note(t) {
        return Kind::Note;
    }
    if super::prefix::strip_known(line).len() < line.len() || super::time::parse(line).is_some() || tag(t) {
        return Kind::Prefixed;
    }
    if let Some(k) =
        [comment, frame, kernel, progress, prompt, heading, item, setting, code, error].iter().find_map(|f| f(t))
    {
        return k;
    }
    if numbers(t) {
        Kind::Numbers
    } else if sentence(t) {
        Kind::Sentence
    } else {
        Kind::Other
    }
}

fn is_note(t: &str) -> bool {
    // (And the lines of the `TORCH_USE_CUDA_DSA` report.)
    [
        "might be asynchronously reported",
        "consider passing CUDA_LAUNCH_BLOCKING=1",
        "Compile with `TORCH_USE_CUDA_DSA`",
        "device-side assertion failure",
    ]
    .iter()
    .any(|n| t.contains(n))
}

/// A bracketed tag in front (`[NbConvertApp] …`), not a Markdown link (`[text](…)`).
fn tag(t: &str) -> bool {
    let Some(rest) = t.strip_prefix('[') else { return false };
    rest.find(']').is_some_and(|i| {
        i > 0
            && i <= 40
            && !rest[..i].contains(' ')
            && rest[i + 1..].starts_with([' ', ':'])
            && !rest[i + 1..].starts_with("(")
    })
}

/// A C-family comment: before all else, for a test's `// CHECK:` line that spells a kernel record.
fn comment(t: &str) -> Option<Kind> {
    (t.starts_with("// ") || t.starts_with("/* ")).then_some(Kind::Code)
}

fn frame(t: &str) -> Option<Kind> {
    let lead = [
        "File \"",
        "Traceback (most recent call last)",
        "----> ",
        "--> ",
        "<ipython-input-",
        "Cell In[",
        "Input In [",
        // C++'s side: c10's exception and its frames.
        "terminate called after throwing",
        "what():",
        "Exception raised from ",
        "frame #",
    ];
    let rule = t.len() > 40 && t.bytes().all(|b| b == b'-');
    // IPython's context lines: a line number, then the code (`      3     for x in y:`).
    let numbered = t
        .split_once(char::is_whitespace)
        .is_some_and(|(n, rest)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) && rest.starts_with("    "));
    (lead.iter().any(|l| t.starts_with(l)) || rule || numbered || t.ends_with("Traceback (most recent call last)"))
        .then_some(Kind::Frame)
}

fn kernel(t: &str) -> Option<Kind> {
    (t.contains("Assertion `") || t.contains("Assertion '")).then_some(())?;
    t.contains("failed").then_some(Kind::Kernel)
}

fn progress(t: &str) -> Option<Kind> {
    (t.contains("%|") || t.contains("it/s]") || t.contains("s/it]")).then_some(Kind::Progress)
}

fn prompt(t: &str) -> Option<Kind> {
    let lead = ["$ ", ">>> ", "In [", "!pip ", "%run ", "(base) ", "(venv) "];
    (lead.iter().any(|l| t.starts_with(l)) || t == "$").then_some(Kind::Prompt)
}

fn heading(t: &str) -> Option<Kind> {
    let hashes = t.bytes().take_while(|&b| b == b'#').count();
    let atx = (1..=6).contains(&hashes) && t[hashes..].starts_with(' ');
    let underline = t.len() >= 3 && t.len() <= 40 && (t.bytes().all(|b| b == b'=') || t.bytes().all(|b| b == b'-'));
    let bold = t.len() > 4 && t.starts_with("**") && t.ends_with("**");
    let directive = t.starts_with(".. ") && t.ends_with("::");
    (atx || underline || bold || directive).then_some(Kind::Heading)
}

fn item(t: &str) -> Option<Kind> {
    let bullet = ["- ", "* ", "• ", "+ "].iter().any(|b| t.starts_with(b));
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    let numbered = digits > 0 && digits < 3 && (t[digits..].starts_with(". ") || t[digits..].starts_with(") "));
    (bullet || numbered).then_some(Kind::Item)
}

fn setting(t: &str) -> Option<Kind> {
    let key = t.split_once('=')?.0;
    (key.len() >= 3
        && key.starts_with(|c: char| c.is_ascii_uppercase())
        && key.bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_'))
    .then_some(Kind::Setting)
}

fn code(t: &str) -> Option<Kind> {
    let lead = ["def ", "class ", "import ", "from ", "return", "assert ", "// ", "/* ", "# ", "define ", "@", "}"];
    let ends = [":", "{", ";", "):"];
    let py_block = ends.iter().any(|e| t.ends_with(e))
        && ["def ", "class ", "if ", "for ", "with ", "while "].iter().any(|l| t.starts_with(l));
    let assign = t.split_once(" = ").is_some_and(|(l, _)| {
        !l.is_empty() && l.bytes().all(|b| b.is_ascii_alphanumeric() || b"_.[]'\" ".contains(&b))
    }) && !numbers(t);
    (lead.iter().any(|l| t.starts_with(l)) || py_block || assign || t.ends_with(" {") || t.ends_with(';'))
        .then_some(Kind::Code)
}

fn error(t: &str) -> Option<Kind> {
    let name = t.split_once(':')?.0;
    let is = !name.is_empty()
        && name.chars().all(|c| c.is_alphanumeric() || c == '.' || c == '_')
        && super::context::is_exception_name(name);
    is.then_some(Kind::Error)
}

/// Mostly numbers: at least two tokens with digits, a third of them or more, no prose's end.
fn numbers(t: &str) -> bool {
    let tokens: Vec<&str> =
        t.split(|c: char| c.is_whitespace() || "|,:=/".contains(c)).filter(|s| !s.is_empty()).collect();
    let n = tokens.iter().filter(|s| s.bytes().any(|b| b.is_ascii_digit())).count();
    n >= 2 && 3 * n >= tokens.len() && !t.ends_with(['.', '?', '!', '。', '？'])
}

/// Words and prose's punctuation: six words or more with a sentence's marks or mostly small
/// letters, or eight characters or more of Chinese, Japanese or Korean.
fn sentence(t: &str) -> bool {
    let cjk = t.chars().filter(|&c| is_cjk(c)).count();
    if cjk >= 8 {
        return true;
    }
    // Words of prose: letters only, with a mark after (a path, a name with `_` or a number is not).
    let tokens: Vec<&str> = t.split_whitespace().collect();
    let words: Vec<&str> = tokens
        .iter()
        .map(|w| w.trim_end_matches([',', '.', ';', ':', '!', '?', ')']).trim_start_matches(['(', '"', '\'']))
        .filter(|w| !w.is_empty() && w.chars().all(|c| c.is_alphabetic() || c == '-' || c == '\''))
        .collect();
    let lower = words.iter().filter(|w| w.starts_with(small)).count();
    let marks = t.contains(", ") || t.contains(". ") || t.ends_with(['.', '?', '!', ':']);
    words.len() >= 6 && 10 * words.len() >= 7 * tokens.len() && (marks || 2 * lower >= words.len())
}

/// A small letter, in the scripts whose words [`sentence`] counts by case: Latin and Cyrillic
/// (std's Unicode tables would weigh more in the page's engine than this whole stage).
fn small(c: char) -> bool {
    c.is_ascii_lowercase() || matches!(c as u32, 0xdf..=0xff | 0x430..=0x45f) && c != '\u{f7}'
}

/// `c` in small letters, for Latin and Cyrillic capitals (as [`small`]).
fn fold(c: char) -> char {
    match c as u32 {
        0x41..=0x5a | 0xc0..=0xde | 0x410..=0x42f if c != '\u{d7}' => char::from_u32(c as u32 + 0x20).unwrap_or(c),
        _ => c,
    }
}

fn is_cjk(c: char) -> bool {
    matches!(c as u32, 0x3040..=0x30ff | 0x3400..=0x4dbf | 0x4e00..=0x9fff | 0xac00..=0xd7af | 0xff01..=0xff5e)
}

/// Whether `s` has one of [`FIRST_PERSON`]'s words.
pub fn first_person(s: &str) -> bool {
    let words: Vec<&str> = s.split(|c: char| !(c.is_alphanumeric() || c == '\'')).filter(|w| !w.is_empty()).collect();
    FIRST_PERSON.iter().flat_map(|l| l.1.iter()).any(|&cue| {
        if cue.chars().next().is_some_and(is_cjk) {
            s.contains(cue)
        } else if cue == "I" || cue.starts_with("I'") {
            words.contains(&cue)
        } else {
            words.iter().any(|w| w.len() == cue.len() && w.chars().map(fold).eq(cue.chars()))
        }
    })
}

/// A text's lines and their kinds, for judging its error lines.
pub struct Page<'a> {
    /// The lines as a reader sees them: escape sequences and HTML entities undone.
    lines: Vec<Cow<'a, str>>,
    kinds: Vec<Kind>,
}

impl<'a> Page<'a> {
    /// The lines of `text`, each line within [`REACH`] lines of an error line (0-based
    /// `errors`) with its kind: no other line is read (a page of 200 KB with one error reads 17).
    pub fn new(text: &'a str, errors: &[usize]) -> Page<'a> {
        let lines: Vec<Cow<str>> = text.split('\n').map(|l| shown(l.strip_suffix('\r').unwrap_or(l))).collect();
        let mut kinds = vec![Kind::Blank; lines.len()];
        let mut read = vec![false; lines.len()];
        for &i in errors {
            for j in i.saturating_sub(REACH)..(i + 1 + REACH).min(lines.len()) {
                if !read[j] {
                    (kinds[j], read[j]) = (kind(&lines[j]), true);
                }
            }
        }
        if let Some(lead) = shared_lead(&lines) {
            for (l, k) in lines.iter().zip(&mut kinds) {
                if first_token(l).is_some_and(|t| t.1 == lead) {
                    *k = Kind::Prefixed;
                }
            }
        }
        Page { lines, kinds }
    }

    /// The 0-based indexes of the lines of `text` that are kernel records.
    pub fn kernel_lines(text: &str) -> Vec<usize> {
        text.split('\n').enumerate().filter(|(_, l)| kernel(l.trim()).is_some()).map(|(i, _)| i).collect()
    }

    /// The lines with text within [`REACH`] lines of line `i` (at most [`AROUND_CHARS`] of
    /// each), numbered from 1.
    fn around(&self, i: usize) -> Vec<(u64, String)> {
        let lines = i.saturating_sub(REACH)..(i + 1 + REACH).min(self.lines.len());
        let text = |j: usize| self.lines[j].chars().take(AROUND_CHARS).collect::<String>();
        lines.filter(|&j| j != i && !self.lines[j].trim().is_empty()).map(|j| (j as u64 + 1, text(j))).collect()
    }

    /// The sentences within [`REACH`] lines of line `i` (prose, not output), numbered from 1.
    fn sentences_around(&self, i: usize) -> Vec<(u64, String)> {
        let mut v = self.around(i);
        v.retain(|(n, _)| self.kinds[*n as usize - 1] == Kind::Sentence);
        v
    }

    /// The neighbours of line `i`: up to [`NEIGHBOURS`] lines with text on each side, within
    /// [`REACH`] lines, fences left out.
    fn neighbours(&self, i: usize) -> Vec<usize> {
        // (Loops, not two chained iterator adapters: 0.9 KB less of the package.)
        let counts = |j: usize| !matches!(self.kinds[j], Kind::Blank | Kind::Fence);
        let mut near = Vec::new();
        // Before, nearest first; then after.
        let mut j = i;
        while j > i.saturating_sub(REACH) && near.len() < NEIGHBOURS {
            j -= 1;
            if counts(j) {
                near.push(j);
            }
        }
        let before = near.len();
        for j in i + 1..(i + 1 + REACH).min(self.lines.len()) {
            if near.len() - before < NEIGHBOURS && counts(j) {
                near.push(j);
            }
        }
        near
    }

    /// The judgement of line `i` (0-based), whose error starts at byte `start` of it (0 for a
    /// kernel record).
    pub fn judge(&self, i: usize, start: usize) -> Shape {
        let line: &str = &self.lines[i];
        let own = self.kinds[i];
        match own {
            Kind::Prefixed => return Shape::Shown,
            Kind::Heading => return Shape::Mentioned("heading"),
            Kind::Item => return Shape::Mentioned("list"),
            Kind::Setting => return Shape::Mentioned("setting"),
            Kind::Code => return Shape::Mentioned("code"),
            _ => {}
        }
        if self.example(i) {
            return Shape::Mentioned("example");
        }
        if self.answered(i) {
            return Shape::Mentioned("quoted");
        }
        let near = self.neighbours(i);
        let score: i32 = near.iter().map(|&j| weight(self.kinds[j])).sum();
        let inline = own != Kind::Kernel && in_sentence(line, start);
        if score > 0 || (near.is_empty() && !(inline && own == Kind::Sentence)) {
            return Shape::Shown;
        }
        if inline {
            let (before, after) = (line.get(..start).unwrap_or(""), line.get(start..).unwrap_or(""));
            // `训练时报错：RuntimeError: …`: the output, pasted after the sentence that
            // introduces it.
            if before.trim_end().ends_with([':', '：']) && !in_sentence(after, 0) {
                return Shape::Shown;
            }
            // The sentence that holds the phrase: its line, and the line before when the
            // sentence began there (it does not end in a sentence's mark).
            return if self.own_words(i, before, after) { Shape::Described } else { Shape::Mentioned("prose") };
        }
        // A line of its own inside prose: the writer's paste when the prose above speaks of
        // their own run, else a quotation.
        let above = near.iter().filter(|&&j| j < i).take(2);
        if above.clone().any(|&j| first_person(&self.lines[j])) {
            return Shape::Shown;
        }
        if score > PROSE {
            return Shape::Shown;
        }
        Shape::Mentioned("quoted")
    }
}

impl Page<'_> {
    /// Whether the sentence around an error inside line `i` (`before` it and `after` it on the
    /// line) speaks of the writer's own run: its line, or the line before when the sentence
    /// began there (it does not end in a sentence's mark).
    fn own_words(&self, i: usize, before: &str, after: &str) -> bool {
        let prev = i
            .checked_sub(1)
            .map(|j| self.lines[j].trim_end())
            .filter(|p| !p.is_empty() && !p.ends_with(['.', '?', '!', '。', '？', '！']));
        first_person(&self.lines[i]) || prev.is_some_and(first_person) || super::context::reports(before, after)
    }

    /// Whether a kernel record whose file name starts at byte `file` of line `i` is quoted
    /// inside the writer's own sentence (`… and I see Loss.cu:250: … failed in my terminal`):
    /// words before the record on its line, no logger's prefix, no label or colon that
    /// introduces a paste, and the writer's own run.
    fn quotes_in_report(&self, i: usize, file: usize) -> bool {
        let line: &str = &self.lines[i];
        // The record starts with its path (after a space of any width: `　` is three bytes).
        let start = line.get(..file).and_then(|b| b.char_indices().rev().find(|c| c.1.is_whitespace()));
        let start = start.map_or(0, |(w, c)| w + c.len_utf8());
        let (before, after) = (&line[..start], &line[start..]);
        let words = before.split_whitespace().filter(|w| w.chars().any(char::is_alphabetic)).count();
        words >= 3
            && self.kinds[i] != Kind::Prefixed
            && !before.trim_end().ends_with([':', '：'])
            && self.own_words(i, before, after)
    }

    /// Whether line `i` sits between a question and its answer, as a Q&A write-up (or an FAQ)
    /// quotes the error: a line that opens `Q:` within [`REACH`] lines above, one that opens
    /// `A:` within as many below.
    fn answered(&self, i: usize) -> bool {
        let opens = |j: usize, marks: &[&str]| {
            let t = self.lines[j].trim_start();
            marks.iter().any(|m| t.starts_with(m))
        };
        let q = ["Q:", "Q.", "Question:", "问：", "问:", "问题：", "질문:", "質問："];
        let a = ["A:", "A.", "Answer:", "答：", "答:", "回答：", "답변:", "回答:"];
        let above = i.saturating_sub(REACH)..i;
        let below = i + 1..(i + 1 + REACH).min(self.lines.len());
        above.into_iter().any(|j| opens(j, &q)) && below.into_iter().any(|j| opens(j, &a))
    }

    /// Whether line `i` sits in a block (lines with no blank between) that documentation
    /// introduces as an example: the line above the block ends in reStructuredText's `::`, or
    /// is a sentence of no one's own run that says an example follows (`you may see …:`).
    fn example(&self, i: usize) -> bool {
        let mut j = i;
        while j > 0 && !matches!(self.kinds[j - 1], Kind::Blank | Kind::Fence | Kind::Sentence | Kind::Heading) {
            j -= 1;
        }
        let intro = (0..j).rev().find(|&k| !matches!(self.kinds[k], Kind::Blank | Kind::Fence)).filter(|&k| i - k <= REACH);
        let Some(t) = intro.map(|k| self.lines[k].trim()) else { return false };
        let says = ["for example", "e.g.", "such as", "you may see", "you might see", "you will see", "you'll see", "an example", "例如", "比如"];
        t.ends_with("::") || (t.ends_with([':', '：']) && !first_person(t) && says.iter().any(|w| t.contains(w)))
    }
}

/// Judges the error lines of a short text (`text`, the whole input) and marks `facts`: a host
/// line read as a mention gets its reason in `mention`, a person's report `described`; when
/// every kernel record of the text reads as a mention, `kernel_quoted`; when each is quoted
/// inside a person's sentence about their own run, `kernel_described`.
pub fn mark(text: &str, facts: &mut Facts) {
    let kernel = if facts.kernel_records > 0 { Page::kernel_lines(text) } else { Vec::new() };
    let mut errors: Vec<usize> =
        facts.host.iter().filter(|h| h.mention.is_none()).map(|h| (h.loc.at.line as usize).saturating_sub(1)).collect();
    errors.extend_from_slice(&kernel);
    let page = Page::new(text, &errors);
    for h in facts.host.iter_mut().filter(|h| h.mention.is_none()) {
        mark_host(&page, h);
    }
    // The traceback of an example is the page's, as the lines above a mention are; so are the
    // notes PyTorch prints under an error that is quoted (the next lines, with no blank between).
    for h in facts.host.iter().filter(|h| matches!(h.mention, Some("example" | "quoted"))) {
        if let Some(tb) = h.traceback.filter(|_| h.mention == Some("example")).and_then(|t| facts.tracebacks.get_mut(t)) {
            tb.partial = true;
        }
        let line = h.loc.at.line;
        let block = (line as usize..page.lines.len()).take_while(|&j| page.kinds[j] != Kind::Blank).count() as u64;
        facts.async_notes.retain(|n| !(n.at.line > line && n.at.line <= line + block));
    }
    if let Some(h) = facts.host.iter().find(|h| h.described) {
        facts.report_context = page.around((h.loc.at.line as usize).saturating_sub(1));
    } else if let Some(h) = facts.host.iter().find(|h| h.mention.is_none()).filter(|_| facts.kernel_records == 0) {
        // A host error pasted alone: the writer's sentences around it say what changed.
        facts.report_context = page.sentences_around((h.loc.at.line as usize).saturating_sub(1));
    }
    if facts.kernel_records > 0 {
        facts.kernel_quoted = kernel.len() as u64 == facts.kernel_records
            && kernel.iter().all(|&i| matches!(page.judge(i, 0), Shape::Mentioned(_)));
        // Each record (one per site), where its file's name starts in its line.
        let at = |s: &crate::facts::SiteAgg| {
            let i = (s.first.loc.at.line as usize).checked_sub(1).filter(|&i| i < page.lines.len())?;
            Some((i, page.lines[i].find(s.first.site.file_name())?))
        };
        facts.kernel_described = facts.kernel_records == facts.sites.len() as u64
            && facts.sites.iter().all(|s| at(s).is_some_and(|(i, start)| page.quotes_in_report(i, start)));
    }
}

fn mark_host(page: &Page, h: &mut HostHit) {
    let Some(i) = (h.loc.at.line as usize).checked_sub(1).filter(|&i| i < page.lines.len()) else { return };
    let start = error_start(&page.lines[i]);
    match page.judge(i, start) {
        Shape::Shown => {}
        Shape::Described => h.described = true,
        Shape::Mentioned(why) => h.mention = Some(why),
    }
}

/// A line as a reader sees it: escape sequences and HTML entities undone, a Markdown quote's
/// marks (`> `, `>> `) taken off.
fn shown(line: &str) -> Cow<'_, str> {
    let mut rest = line;
    while let Some(r) = rest.strip_prefix('>') {
        rest = r.strip_prefix(' ').unwrap_or(r);
    }
    let line = normalize::strip_escapes(rest);
    if line.contains('&') && line.contains(';') {
        Cow::Owned(normalize::decode_entities(&line))
    } else {
        line
    }
}

/// A line's first word, and a key that is the same for words that differ only in their digits
/// (`(pid=54745)`, `worker-3`): read without a copy, as every line of a page is.
fn first_token(line: &str) -> Option<(&str, u64)> {
    let t = line.split_ascii_whitespace().next()?;
    let key = t.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(if b.is_ascii_digit() { b'0' } else { b })).wrapping_mul(0x100_0000_01b3)
    });
    Some((t, key))
}

/// The first word most lines with text share, when one does (three lines or more, half of them
/// or more, and neither a list's bullet nor a heading's or a quotation's mark): a launcher's or
/// a process's prefix that [`kind`] does not know by its form. Its key ([`first_token`]).
fn shared_lead(lines: &[Cow<str>]) -> Option<u64> {
    let mut counts: Vec<(&str, u64, usize)> = Vec::new();
    let mut total = 0;
    for l in lines {
        let t = l.trim();
        if t.is_empty() || t.starts_with("```") || item(t).is_some() || heading(t).is_some() {
            continue;
        }
        total += 1;
        let Some((word, key)) = first_token(l) else { continue };
        if let Some(c) = counts.iter_mut().find(|c| c.1 == key) {
            c.2 += 1;
        } else if counts.len() < 64 {
            counts.push((word, key, 1));
        }
    }
    let (lead, key, n) = counts.into_iter().max_by_key(|c| c.2)?;
    let marks = lead.starts_with(['>', '#', '-', '*', '+', '|']) || lead.chars().all(|c| !c.is_alphanumeric());
    (n >= 3 && 2 * n >= total && !marks && lead.chars().any(|c| !c.is_alphabetic())).then_some(key)
}

/// Whether the error that starts at byte `start` of `line` sits inside a sentence: words
/// before it, or words of prose after it (`… triggered after a few hundred tokens.`; a path or
/// a place after it is the error's own).
fn in_sentence(line: &str, start: usize) -> bool {
    // (A label in front is output's own: `what():  CUDA error: …`, `ERROR: …`.)
    let before = line.get(..start).unwrap_or("").trim_end();
    let before = match before.rsplit_once(char::is_whitespace) {
        Some((rest, last)) if last.ends_with(':') => rest,
        None if before.ends_with(':') => "",
        _ => before,
    };
    if before.chars().any(char::is_alphanumeric) {
        return true;
    }
    let after = line.get(start..).map_or("", |_| &line[super::mention::phrase_end(line, start)..]);
    let words = after
        .split_whitespace()
        .filter(|w| {
            w.chars().filter(|c| !c.is_ascii_punctuation()).count() > 0
                && w.trim_matches(|c: char| c.is_ascii_punctuation()).chars().all(char::is_alphabetic)
        })
        .count();
    words >= 2 || after.chars().filter(|&c| is_cjk(c)).count() >= 2
}

/// Where the error starts in `line`: at its class (`RuntimeError: `) when one is in front of
/// the phrase, else at the phrase.
fn error_start(line: &str) -> usize {
    let start = super::mention::CORES.iter().filter_map(|c| line.find(c)).min().unwrap_or(0);
    let Some(named) = line[..start].trim_end().strip_suffix(':') else { return start };
    let from = named
        .char_indices()
        .rev()
        .find(|&(_, c)| !(c.is_alphanumeric() || c == '.' || c == '_'))
        .map_or(0, |(k, c)| k + c.len_utf8());
    if super::context::is_exception_name(&named[from..]) {
        from
    } else {
        start
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const E: &str = "RuntimeError: CUDA error: device-side assert triggered";

    #[test]
    fn every_kind_but_blank_and_fence_has_a_weight() {
        use Kind::*;
        for k in [
            Frame, Kernel, Error, Note, Prefixed, Progress, Prompt, Numbers, Sentence, Heading, Item, Setting, Code,
            Other,
        ] {
            assert!(WEIGHTS.iter().any(|w| w.0 == k), "{k:?}");
        }
    }

    #[test]
    fn kinds_in_examples() {
        use Kind::*;
        let cases = [
            ("  File \"train.py\", line 3, in <module>", Frame),
            ("----> 4         loss = loss_fn(out, y)", Frame),
            ("frame #3: c10::TensorImpl::release_resources() + 0x54", Frame),
            ("Loss.cu:250: nll_loss: block: [0,0,0], thread: [3,0,0] Assertion `t >= 0` failed.", Kernel),
            ("// CHECK-DAG: Assertion `index < size` failed.", Code),
            ("IndexError: Target 5 is out of bounds.", Error),
            ("For debugging consider passing CUDA_LAUNCH_BLOCKING=1", Note),
            ("[rank0]: RuntimeError: boom", Prefixed),
            ("2026-11-30 10:14:02,511 INFO trainer: step", Prefixed),
            ("[NbConvertApp] Executing notebook", Prefixed),
            (" 37%|███▋      | 289/782 [00:26<00:45, 10.9it/s]", Progress),
            ("$ python train.py --epochs 3", Prompt),
            ("epoch 0 | step 10 | loss 2.301", Numbers),
            ("Epoch 1: train_loss=0.8123 val_acc=0.641", Numbers),
            ("This usually means your dataset has more classes than the config says.", Sentence),
            ("一般来说，这是因为标签超出了类别数的范围。", Sentence),
            ("Features loaded from cache at cache_dir/cached_train_xlm_128", Other),
            ("## Troubleshooting", Heading),
            ("**RuntimeError: CUDA error**", Heading),
            ("=============", Heading),
            (".. note::", Heading),
            ("- `CUDA out of memory`: lower the batch size.", Item),
            ("2. Call trainer.predict(test_dataset)", Item),
            ("ERROR_ID=PT-CUDA-017", Setting),
            ("def test_reports_first_assert():", Code),
            ("import pytest", Code),
            ("[see the docs](https://example.org) for more", Other),
            ("", Blank),
            ("```", Fence),
        ];
        for (line, want) in cases {
            assert_eq!(kind(line), want, "{line}");
        }
    }

    #[test]
    fn first_person_words_as_words() {
        assert!(first_person("When I call generate I get"));
        assert!(first_person("我在用 Colab 微调模型"));
        assert!(first_person("у меня вылетает ошибка"));
        assert!(!first_person("If a label is out of range you may see"));
        assert!(!first_person("In a mixed batch, the items"), "`I` only as a word, any case of the rest");
        assert!(!first_person("Ошибка появляется, когда индекс выходит за границы"));
    }

    fn judged(text: &str) -> Shape {
        let i = text.lines().position(|l| l.contains("CUDA error")).expect("an error line");
        let page = Page::new(text, &[i]);
        page.judge(i, error_start(&page.lines[i]))
    }

    #[test]
    fn the_text_around_decides() {
        let shown = [
            E.to_string(),
            format!("Epoch 1: loss=0.81 acc=0.64\nEpoch 2: loss=0.74 acc=0.66\n{E}"),
            format!("Traceback (most recent call last):\n  File \"t.py\", line 2, in <module>\n    f()\n{E}"),
            format!(
                "I get this when the validation starts, any idea?\n\n{E}\n\nThanks in advance for any help at all."
            ),
            format!("2026-11-30 10:14:06 ERROR trainer: {E}"),
        ];
        for t in shown {
            assert_eq!(judged(&t), Shape::Shown, "{t}");
        }
        let prose = "This error means that a kernel on the GPU failed one of its checks.\nMost of the time a label is outside the valid range of the classes.";
        assert_eq!(
            judged(&format!("When you see the following message:\n\n{E}\n\n{prose}")),
            Shape::Mentioned("quoted")
        );
        assert_eq!(judged(&format!("The message `{E}` means a check failed.\n{prose}")), Shape::Mentioned("prose"));
        assert_eq!(
            judged(&format!("Hi all, my classifier keeps failing with {E} at the first batch.\n{prose}")),
            Shape::Described
        );
        assert_eq!(
            judged(&format!("When I call generate with sampling on I get\n{E} after a few tokens.\n{prose}")),
            Shape::Described
        );
        assert_eq!(
            judged(&format!("## Errors\n\n- `{E}`: a label is out of range.\n{prose}")),
            Shape::Mentioned("list")
        );
        assert_eq!(judged(&format!("ERROR={E}\nADVICE=Restart the runtime.")), Shape::Mentioned("setting"));
    }

    /// A traceback that documentation introduces as an example is the page's, not a run's; one
    /// a person introduces as theirs is shown.
    #[test]
    fn an_example_block_is_a_mention() {
        let tb = format!("    Traceback (most recent call last):\n      File \"t.py\", line 2, in <module>\n        f()\n    {E}");
        for intro in ["A mismatched class count looks like::", "For example, you may see:", "例如："] {
            assert_eq!(judged(&format!("Common errors\n-------------\n\n{intro}\n\n{tb}\n\nSet num_classes.")), Shape::Mentioned("example"), "{intro}");
        }
        for intro in ["I get this when training starts:", "For example, my run prints:", "The error:"] {
            assert_eq!(judged(&format!("{intro}\n\n{tb}\n")), Shape::Shown, "{intro}");
        }
    }

    /// An error between a question and its answer is the write-up's quotation, even where the
    /// question speaks in the first person; a question with no answer below is the asker's paste.
    #[test]
    fn an_error_between_a_question_and_its_answer_is_quoted() {
        let q = "Q: Why does my model crash only on the GPU?";
        let a = "A: The message means a kernel failed one of its checks; print the label range.";
        assert_eq!(judged(&format!("{q}\n\n> {E}\n\n{a}\n")), Shape::Mentioned("quoted"));
        assert_eq!(judged(&format!("问：为什么只在 GPU 上报错？\n{E}\n答：标签越界了。\n")), Shape::Mentioned("quoted"));
        assert_eq!(judged(&format!("{q}\n\n{E}\n\nThanks for any help.\n")), Shape::Shown);
    }

    /// A kernel record after a wide space (U+3000) inside a sentence: judged, never a panic
    /// (the fuzzer's find: the record's start was taken one byte after the space).
    #[test]
    fn a_record_after_a_wide_space_is_judged() {
        let text = "When I train my model I see\u{3000}/pytorch/aten/src/ATen/native/cuda/Loss.cu:250: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [3,0,0] Assertion `t >= 0 && t < n_classes` failed. in my run";
        let r = crate::analyze_bytes(text.as_bytes(), None, &Default::default()).unwrap();
        assert_eq!(r.first_assert.map(|f| f.kind.id()), Some("described"));
    }

    /// Any line, any place in it: an answer, never a panic (texts are untrusted input).
    #[test]
    fn any_line_at_any_char_boundary() {
        for line in
            ["what():  CUDA error: 断言", "「CUDA error」とは", "é CUDA error: x triggered ü", ":", "CUDA error"]
        {
            let page = Page::new(line, &[0]);
            for (i, _) in line.char_indices().chain([(line.len(), ' ')]) {
                let _ = page.judge(0, i);
                let _ = in_sentence(line, i);
            }
            let _ = error_start(line);
        }
    }
}
