//! Quoted or printed: whether an error phrase or a kernel record found in a line is output that
//! a program printed, or a quotation of it.
//!
//! The readers find a record by its core (`CUDA error: device-side assert triggered`,
//! ``Assertion `…` failed``) wherever it sits in a line, behind whatever launchers, loggers,
//! terminals and copy-paste put in front of it. Whether it counts is decided here, from the
//! text around it, by one rule:
//!
//! - **Quoted** when it sits inside a string literal in code (`print("…`, `msg = '…`,
//!   `raise RuntimeError("…`, `assert ok, "…`, `logger.warning('…`, a REPL line), or when the
//!   sentence around it gives advice or asks (``If you see `…` ``, `How do I fix …`,
//!   `Search for `cudaErrorAssert' in …`, `'…' usually means …`).
//! - **Printed** otherwise: at the start of a line, behind any prefix, inside an exception's
//!   repr (`RuntimeError('…`, `<repr-error '…`), as a value of structured logs
//!   (`"error": "…`, `msg="…`), and in a sentence that reports what happened (`I got …`,
//!   `训练时报错：…`). In doubt, printed: the worst answer this tool can give is "clean" when
//!   there is an assert.
//!
//! Sentences are weighed by their words: first-person and reporting words (`I`, `got`,
//! `getting`, `报错`, `遇到`) against second-person, conditional, question and advice words
//! (`you`, `if`, `how`, `usually`, `means`, `如果`, `怎么`, `通常`); a question mark counts for
//! advice. The words that count are only those of the clause the record sits in.

/// What the text around a record says of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Context {
    /// Output: the record counts.
    Printed,
    /// A quotation: in code, advice, a question or documentation.
    Quoted,
}

/// How the readers judge a record: by the text around it ([`judge`]), or every record as
/// printed when the reader asked that what reads as quoted be taken as the error
/// (`Options::count_quoted`). The scanner holds one and hands it to every reader it calls.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Judge {
    pub count_quoted: bool,
}

impl Judge {
    /// [`judge`], unless every record counts.
    pub fn judge(self, before: &str, after: &str) -> Context {
        if self.count_quoted {
            Context::Printed
        } else {
            judge(before, after)
        }
    }
}

/// How much of the text on each side of a record [`judge`] reads: the quote and the clause
/// that decide sit near the record. (A line of 20,000 records glued together took 6 s to
/// read, each judgement reading every record before it.)
const NEAR: usize = 2048;

/// Judges a record from the text of its line before it (`before`) and after it (`after`),
/// of which it reads the [`NEAR`] bytes next to the record.
pub fn judge(before: &str, after: &str) -> Context {
    let mut from = before.len().saturating_sub(NEAR);
    while !before.is_char_boundary(from) {
        from += 1;
    }
    let mut to = after.len().min(NEAR);
    while !after.is_char_boundary(to) {
        to -= 1;
    }
    let (before, after) = (&before[from..], &after[..to]);
    let opens = open_quotes(before);
    if opens.iter().any(|&(at, q)| q != '`' && code_before(&before[..at])) {
        return Context::Quoted;
    }
    if opens.first().is_some_and(|&(at, _)| repr_before(&before[..at])) {
        return Context::Printed;
    }
    if after_is_definition(after) {
        return Context::Quoted;
    }
    let (clause_after, question) = first_clause(after);
    // C++'s `what():` is no question.
    let before = outside_quotes(before).replace("what():", "");
    let mut score = words_score(last_clause(&before), false) + words_score(clause_after, true);
    if question {
        score -= 1;
    }
    if score < 0 {
        Context::Quoted
    } else {
        Context::Printed
    }
}

/// Whether the clause around a record reports what happened (its words weigh up, as
/// [`judge`] weighs them: `… stopped with …`, `训练时报错 …`), and the record is not in quotes
/// (backticks are a post's formatting, not a quotation).
pub fn reports(before: &str, after: &str) -> bool {
    if open_quotes(before).iter().any(|&(_, q)| q != '`') {
        return false;
    }
    let before = outside_quotes(before);
    words_score(last_clause(&before), false) + words_score(first_clause(after).0, true) > 0
}

/// The quotes left open at the end of `s`, outermost first: (byte offset, quote character).
/// An apostrophe inside a word (`don't`, `users'`) opens nothing; a triple backtick is a fence.
fn open_quotes(s: &str) -> Vec<(usize, char)> {
    let mut stack: Vec<(usize, char)> = Vec::new();
    let mut i = 0;
    while i < s.len() {
        let Some(c) = s[i..].chars().next() else { break };
        if stack.last().is_some_and(|&(_, o)| closer(o) == c) {
            stack.pop();
        } else if c == '`' && s[i..].starts_with("```") {
            i += 3;
            continue;
        } else if matches!(c, '"' | '`' | '“' | '‘' | '「' | '『') || (c == '\'' && opens_string(&s[..i])) {
            stack.push((i, c));
        }
        i += c.len_utf8();
    }
    stack
}

fn closer(open: char) -> char {
    match open {
        '“' => '”',
        '‘' => '’',
        '「' => '」',
        '『' => '』',
        o => o,
    }
}

/// Whether an apostrophe after `before` opens a string: not inside a word (`don't`, `users'`),
/// unless the word is a Python string prefix (`f'`, `rb'`).
fn opens_string(before: &str) -> bool {
    !before.ends_with(char::is_alphanumeric) || string_prefix(before)
}

/// True when `s` ends with a Python string prefix (`f`, `r`, `b`, `rb`, ...) that stands alone.
fn string_prefix(s: &str) -> bool {
    let t = s.trim_end_matches(['f', 'F', 'r', 'R', 'b', 'B', 'u', 'U']);
    let n = s.len() - t.len();
    (1..=2).contains(&n) && !t.ends_with(|c: char| c.is_alphanumeric() || c == '_')
}

/// The text of `s` with the quoted parts (closed or open) left out.
fn outside_quotes(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut open: Option<char> = None;
    for (i, c) in s.char_indices() {
        match open {
            Some(q) if closer(q) == c => open = None,
            Some(_) => {}
            None if matches!(c, '"' | '`' | '“' | '‘' | '「' | '『') => open = Some(c),
            None if c == '\'' && opens_string(&s[..i]) => open = Some(c),
            None => out.push(c),
        }
    }
    out
}

/// Words that make a line of code of the string that follows them.
const CODE_KEYWORDS: &[&str] =
    &["raise", "assert", "return", "print", "yield", "echo", "elif", "if", "in", "not", "except"];

/// Statements whose line is code wherever the string stands in it.
const STATEMENTS: &[&str] = &["raise", "assert", "return", "yield", "elif", "while", "except", "def", "lambda"];

/// True when a string opened right after `p` is a string in code: an argument of a call that
/// is not an exception's repr, the right side of an assignment or comparison, or the operand of
/// a keyword (`raise`, `assert`, `print "…"`, `echo`).
fn code_before(p: &str) -> bool {
    let mut t = p.trim_end();
    if string_prefix(t) {
        t = t.trim_end_matches(char::is_alphabetic).trim_end();
    }
    if [" =", "==", "!=", "+=", ">>>"].iter().any(|e| t.ends_with(e)) {
        return true;
    }
    let word_start =
        t.char_indices().rev().find(|&(_, c)| !(c.is_alphanumeric() || c == '_')).map_or(0, |(i, c)| i + c.len_utf8());
    let first_word = t.trim_start().split(|c: char| !(c.is_alphanumeric() || c == '_')).next().unwrap_or("");
    if CODE_KEYWORDS.contains(&&t[word_start..]) || STATEMENTS.contains(&first_word) {
        return true;
    }
    open_calls(t).into_iter().any(|callee| !is_exception_name(callee))
}

/// The callees of the calls left open at the end of `s` (`logger.warning(` gives
/// `logger.warning`); an open parenthesis that follows no name is no call.
fn open_calls(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    for (i, c) in s.char_indices().rev() {
        match c {
            ')' | ']' | '}' => depth += 1,
            '(' | '[' | '{' if depth > 0 => depth -= 1,
            '(' => {
                let name = trailing_name(&s[..i]);
                if !name.is_empty() && !name.starts_with(|c: char| c.is_ascii_digit()) {
                    out.push(name);
                }
            }
            _ => {}
        }
    }
    out
}

/// The dotted name `s` ends with (`logger.warning` of `x = logger.warning`).
fn trailing_name(s: &str) -> &str {
    let start = s.char_indices().rev().find(|&(_, c)| !(c.is_alphanumeric() || c == '_' || c == '.'));
    start.map_or(s, |(j, c)| &s[j + c.len_utf8()..])
}

/// `RuntimeError`, `torch.AcceleratorError` and the like: names an exception's repr starts with.
pub fn is_exception_name(name: &str) -> bool {
    let last = name.rsplit('.').next().unwrap_or(name);
    ["Error", "Exception", "Warning", "Failure", "Interrupt"].iter().any(|s| last.ends_with(s))
}

/// True when a string opened right after `p` is an exception's repr (`RuntimeError('`,
/// `<repr-error '`): output, whatever the words around it.
fn repr_before(p: &str) -> bool {
    let t = p.trim_end();
    t.ends_with("<repr-error") || t.strip_suffix('(').is_some_and(|h| is_exception_name(trailing_name(h)))
}

/// `cudaErrorAssert = 710,` in a header or enum the user pasted.
fn after_is_definition(after: &str) -> bool {
    let t = after.trim_start();
    t.strip_prefix('=').is_some_and(|r| r.trim_start().starts_with(|c: char| c.is_ascii_digit()))
}

/// Whether the character at byte `i` of `s` ends a clause (a sentence end, a comma or a
/// semicolon; an ASCII one only when a space or the end follows, so paths and numbers stay
/// whole), and whether it is a question mark.
fn clause_end(s: &str, i: usize, c: char) -> Option<bool> {
    // Full-width punctuation reaches here made ASCII, with the Chinese text right after it.
    let spaced = || s[i + c.len_utf8()..].chars().next().is_none_or(|n| n.is_whitespace() || !n.is_ascii());
    match c {
        '？' => Some(true),
        '。' | '！' | '；' | '，' => Some(false),
        '?' if spaced() => Some(true),
        '.' | '!' | ';' | ',' if spaced() => Some(false),
        _ => None,
    }
}

/// The clause `s` ends in.
fn last_clause(s: &str) -> &str {
    let mut start = 0;
    for (i, c) in s.char_indices() {
        if clause_end(s, i, c).is_some() && i + c.len_utf8() < s.len() {
            start = i + c.len_utf8();
        }
    }
    &s[start..]
}

/// The clause `s` starts with, and whether a question mark ends it.
fn first_clause(s: &str) -> (&str, bool) {
    for (i, c) in s.char_indices() {
        if let Some(question) = clause_end(s, i, c) {
            return (&s[..i], question);
        }
    }
    (s, false)
}

/// Words of a report of what happened (`+1` each, on either side).
const REPORT: &[&str] = &[
    "i",
    "i'm",
    "im",
    "i've",
    "ive",
    "we",
    "we're",
    "my",
    "our",
    "me",
    "us",
    "got",
    "get",
    "gets",
    "getting",
    "encountered",
    "encounter",
    "encountering",
    "hit",
    "hitting",
    "received",
    "receiving",
    "throws",
    "threw",
    "thrown",
    "throwing",
    "raised",
    "occurred",
    "occurs",
    "occurring",
    "appeared",
    "appears",
    "crashed",
    "crashes",
    "stopped",
    "died",
    "aborted",
    "failed",
    "fails",
    "failing",
];
const REPORT_ZH: &[&str] = &["我", "报错", "遇到", "出现", "发生", "抛出", "出错", "崩溃", "收到", "得到"];
/// Conditions and questions (`-2` each, before the record only; `how`, `why`, `what` after it too).
const ASKING: &[&str] = &["if", "unless", "whether", "how", "why", "what"];
const ASKING_ZH: &[&str] = &["如果", "若是", "怎么", "怎样", "如何", "为什么", "为何"];
/// Advice (`-1` each; the meaning words after the record too).
const ADVICE: &[&str] = &[
    "you",
    "your",
    "you're",
    "you'll",
    "you've",
    "you'd",
    "when",
    "whenever",
    "search",
    "google",
    "avoid",
    "prevent",
    "fix",
    "fixing",
    "solve",
    "solving",
    "resolve",
    "tip",
    "tips",
    "hint",
    "example",
    "e.g",
    "troubleshooting",
    "faq",
];
const MEANING: &[&str] = &[
    "means",
    "mean",
    "meaning",
    "usually",
    "typically",
    "often",
    "generally",
    "commonly",
    "indicates",
    "indicate",
    "suggests",
];
const ADVICE_ZH: &[&str] = &["通常", "一般", "意味", "解决", "避免", "例如", "比如", "你", "您"];

/// Report words minus advice words in a clause; `after` for the clause after the record, where
/// only what it means and questions count against it.
fn words_score(s: &str, after: bool) -> i32 {
    let mut score = 0;
    for w in s.split(|c: char| !(c.is_ascii_alphanumeric() || c == '\'' || c == '.')) {
        let w = w.trim_matches(['\'', '.']).to_ascii_lowercase();
        let w = w.as_str();
        if w.is_empty() {
        } else if REPORT.contains(&w) {
            score += 1;
        } else if ASKING.contains(&w) && (!after || matches!(w, "how" | "why" | "what")) {
            score -= 2;
        } else if MEANING.contains(&w) || (!after && ADVICE.contains(&w)) {
            score -= 1;
        }
    }
    if !s.is_ascii() {
        let count = |words: &[&str]| words.iter().filter(|w| s.contains(*w)).count() as i32;
        score += count(REPORT_ZH) - 2 * count(ASKING_ZH) - count(ADVICE_ZH);
    }
    score
}

#[cfg(test)]
mod tests {
    use super::*;
    use Context::*;

    const E: &str = "CUDA error: device-side assert triggered";

    /// (text before the record, text after it, the judgement).
    #[test]
    fn the_rule_in_examples() {
        let cases: &[(&str, &str, Context)] = &[
            // Printed: bare, behind prefixes, in reprs and structured logs, in reports.
            ("", "", Printed),
            ("RuntimeError: ", "", Printed),
            ("[rank3]: torch.AcceleratorError: ", "", Printed),
            (
                "(VllmWorker rank=0 pid=812) ERROR 05-06 10:11:12 [multiproc_executor.py:527] RuntimeError: ",
                "",
                Printed,
            ),
            ("2026-03-01T10:00:01.123456Z stderr F ", "", Printed),
            ("Mar 01 10:00:01 gpu-box python3[2211]: ", "", Printed),
            ("trainer-1  | ", "", Printed),
            ("  what():  ", " (insert_events at /x/CUDACachingAllocator.cpp:569)", Printed),
            ("RuntimeError('", "\\nCUDA kernel errors might be asynchronously reported')", Printed),
            ("[rank0]: │ │   <repr-error '", "            │ │", Printed),
            ("{\"error\": \"RuntimeError: ", "\"}", Printed),
            ("{'err': 'AcceleratorError: ", "'}", Printed),
            ("level=error msg=\"", "\"", Printed),
            ("ERROR - Exception in worker: '", "'", Printed),
            ("When I run train.py on Colab I get ", "", Printed),
            ("I think the ", " comes from my labels", Printed),
            ("运行到第三个 epoch 的时候报错：RuntimeError: ", "", Printed),
            ("Getting `RuntimeError: ", "` when training, any idea?", Printed),
            ("> `", "`", Printed),
            ("**", "**", Printed),
            ("Epoch 3: 100%|██████████| 50/50 [00:10<00:00, 4.65it/s]", "", Printed),
            ("don't know why, but ", "", Printed),
            ("I got ", ", how do I fix it?", Printed),
            ("我在训练时遇到了", "，怎么解决？", Printed),
            ("Training failed: ", "", Printed),
            ("ValueError: Caught exception in worker (original: \"", "\")", Printed),
            // Quoted: strings in code.
            ("print(\"", "\")", Quoted),
            (">>> print('", "')", Quoted),
            ("    msg = '", "'", Quoted),
            ("logger.warning('retrying after \"", "\"')", Quoted),
            ("raise RuntimeError(\"", "\")", Quoted),
            ("assert ok, \"", "\"", Quoted),
            ("if str(e) == \"", "\":", Quoted),
            ("    if \"", "\" in str(err):", Quoted),
            ("print(f\"", " at step {i}\")", Quoted),
            ("echo '", "'", Quoted),
            ("print(RuntimeError('", "'))", Quoted),
            (">>> '", "'", Quoted),
            // Quoted: advice, questions, documentation.
            ("If you see `RuntimeError: ", "`, restart the runtime.", Quoted),
            (
                "If a cell fails with `RuntimeError: ",
                "`, restart the runtime and set `CUDA_LAUNCH_BLOCKING=1`.",
                Quoted,
            ),
            ("Tip: 'RuntimeError: ", "' usually means a label is out of range.", Quoted),
            ("Search for `", "' in https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES.html", Quoted),
            ("How do I fix ", "?", Quoted),
            ("Why does ", " happen only on the GPU", Quoted),
            ("", " usually means that a label is out of range.", Quoted),
            ("如果出现 ", "，请重启运行时。", Quoted),
            ("", " 怎么解决？", Quoted),
            ("Search for ", " in the docs", Quoted),
            ("    ", " = 710,", Quoted),
        ];
        let mut wrong = Vec::new();
        for &(before, after, want) in cases {
            let got = judge(before, after);
            if got != want {
                wrong.push(format!("{want:?} expected, {got:?} for {before:?} {E} {after:?}"));
            }
        }
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }

    /// What decides sits near the record: text further than [`NEAR`] bytes away is not read
    /// (a line of glued records would otherwise be read again for each of them), and a cut
    /// never falls inside a character.
    #[test]
    fn only_the_text_near_a_record_is_read() {
        let far = "x".repeat(NEAR);
        assert_eq!(judge("print(\"", "\")"), Context::Quoted);
        assert_eq!(judge(&format!("print(\"{far}"), "\")"), Context::Printed);
        assert_eq!(judge(&format!("print(\"{}", &far[..NEAR - 8]), "\")"), Context::Quoted);
        assert_eq!(judge("", &format!("{far} usually means that a label is out of range.")), Context::Printed);
        let wide = "断".repeat(NEAR);
        assert_eq!(judge(&wide, &wide), Context::Printed);
    }

    #[test]
    fn open_quotes_know_apostrophes_and_fences() {
        assert!(open_quotes("don't ").is_empty());
        assert!(open_quotes("the users' ").is_empty());
        assert_eq!(open_quotes("print(f'").len(), 1);
        assert_eq!(open_quotes("```").len(), 0);
        assert_eq!(open_quotes("a \"b\" c '").len(), 1);
        assert_eq!(open_quotes("print(\"x 'y").len(), 2);
        assert_eq!(open_quotes("“报错").len(), 1);
    }

    #[test]
    fn calls_and_reprs() {
        assert_eq!(open_calls("logger.warning("), ["logger.warning"]);
        assert_eq!(open_calls("f(a, b) + g(x, "), ["g"]);
        assert_eq!(open_calls("print(RuntimeError("), ["RuntimeError", "print"]);
        assert!(open_calls("[00:00<01:47,  4.65it/s").is_empty());
        assert!(repr_before("RuntimeError("));
        assert!(repr_before("torch.AcceleratorError("));
        assert!(!repr_before("print("));
    }
}
