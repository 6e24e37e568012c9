//! Mentioned, not happened: the forms of a line that names the device-side assert without
//! being output of it. A how-to page's heading, a code comment, a diff line whose comment or
//! string holds the phrase, a `KEY=` block of an advice page, a sentence that lists the errors
//! a run hit, a title or an explanation in prose.
//!
//! A form alone decides nothing. The diagnosis sets such lines aside only when the whole text
//! shows no output of the error (no traceback, no kernel record, no note PyTorch prints beside
//! it, no launcher, logger or clock in front of any of them): a lone error line pasted by itself
//! is output, and so is one glued into a sentence that reports what happened (`I got …`,
//! `报错：…`).

use crate::re::Regex;
use std::sync::OnceLock;

/// The error's own class in front of the phrase, which every form allows: `RuntimeError: `.
const LEAD: &str = r"(?:[\w.]*(?:Error|Exception):\s*)?";

/// The forms, in the order they are tried: a name, what the text before the phrase must match
/// (`{lead}` stands for [`LEAD`]) and what the text after it must match (`""`: anything).
/// A rule is data: each row's examples and near misses are the tests below.
pub const FORMS: &[(&str, &str, &str)] = &[
    // A Markdown heading: `### RuntimeError: CUDA error: …`.
    ("heading", r"^ {0,3}#{1,6}\s+{lead}$", ""),
    // A comment in code, at the line's start or after a space: `# …`, `// …`.
    ("comment", r"(?:^|\s)(?:#|//)\s", ""),
    // A diff line (`+`/`-`, not a file header) whose phrase is in a comment or a string of the
    // code (the string is judged as any line's is, without the marker).
    ("diff", r"^[+-][^+-]", ""),
    // An upper-case key of a block of settings or signatures: `SIGNATURE=RuntimeError: …`.
    ("key", r#"^\s*[A-Z][A-Z0-9_]{2,}=["']?{lead}$"#, ""),
    // A sentence that lists the errors a run hit, introduced as such …
    ("list", r#"(?:[Ee]rrors? such as|[Ee]rrors? like|[Ee]rrors including|[Ss]uch as|[Ee]rrors:|[Ee]rrors \(|e\.g\.)\s*["'`]?{lead}$"#, ""),
    // … or naming another error right after this one.
    (
        "list",
        "",
        r#"^["'`”」]?\s*(?:and |or |, |、|和|或|や|/ ).{0,48}?(?:\berrors?\b|Error|illegal memory access|out of memory|\bOOM\b|NCCL|segmentation fault|segfault|timeout|错误|エラー|오류)"#,
    ),
    // An explanation: the phrase quoted, then what it is.
    (
        "definition",
        r#"[`"“「']{lead}$"#,
        r#"^[`"”」']\s*(?:is (?:a|an|the|one|usually|notorious)\b|happens|occurs|means|usually|とは|は|是|通常|란|는|은)"#,
    ),
    // A title or advice in Chinese, Japanese or Korean prose: the phrase in CJK quotes …
    ("title", r"[「『【“][^」』】”]*$", ""),
    // … or beside a title's words.
    ("title", r"(?:対処|解決|原因|方法|対策|について|해결|방법|원인|대처|解决|办法|怎么办|如何)", ""),
    ("title", "", r"(?:対処|解決|原因|方法|対策|について|해결|방법|원인|대처|解决|办法|怎么办|如何)"),
];

/// The row of [`FORMS`] that reads a comment (a diff line's code is read with it too).
const COMMENT: usize = 1;

/// The phrases of the error itself, one of which a mention's line holds.
pub const CORES: &[&str] = &["CUDA error", "device-side assert", "cudaErrorAssert", "CUDA_ERROR_ASSERT", "hipErrorAssert", "设备端断言"];

/// A form's pattern as it is compiled (`{lead}` filled in).
fn source(src: &str) -> String {
    src.replace("{lead}", LEAD)
}

/// Every pattern of the forms, as compiled (`tests/engines.rs` holds both engines to them).
pub fn sources() -> Vec<String> {
    FORMS.iter().flat_map(|&(_, b, a)| [b, a]).filter(|s| !s.is_empty()).map(source).collect()
}

/// A form compiled: its name, and its patterns for the text before and after the phrase.
type Form = (&'static str, Option<Regex>, Option<Regex>);

/// The compiled forms.
fn compiled() -> &'static [Form] {
    static C: OnceLock<Vec<Form>> = OnceLock::new();
    C.get_or_init(|| {
        let re = |src: &str| (!src.is_empty()).then(|| crate::re::compile(&source(src)).unwrap_or_else(|e| panic!("{e}")));
        FORMS.iter().map(|&(name, before, after)| (name, re(before), re(after))).collect()
    })
}

/// Which form the error at byte `start` of `line` (a line with no launcher or logger prefix)
/// takes, when it is one of the mention forms: the form's name.
pub fn form(line: &str, start: usize) -> Option<&'static str> {
    // A reader's match may begin before the phrase (a string's quote, a prefix it took in):
    // the forms read the text around the phrase itself.
    let start = CORES.iter().filter_map(|c| line.get(start..)?.find(c)).min().map_or(start, |i| start + i);
    let (before, after) = (&line[..start], &line[phrase_end(line, start)..]);
    let fits = |r: &Option<Regex>, s: &str| r.as_ref().is_none_or(|r| r.is_match(s));
    compiled().iter().find(|(name, b, a)| fits(b, before) && fits(a, after) && (*name != "diff" || diff(before, after))).map(|f| f.0)
}

/// Where the phrase that starts at `start` ends: after `triggered` (or the `断言` of the
/// Chinese form) when the line has it, else at the end of the line.
pub fn phrase_end(line: &str, start: usize) -> usize {
    ["triggered", "断言"].iter().find_map(|w| line[start..].find(w).map(|i| start + i + w.len())).unwrap_or(line.len())
}

/// A diff line's code (the marker off) holds the phrase in a comment or a string.
fn diff(before: &str, after: &str) -> bool {
    let code = &before[1..];
    compiled()[COMMENT].1.as_ref().is_some_and(|comment| comment.is_match(code))
        || super::context::judge(code, after) == super::context::Context::Quoted
}

#[cfg(test)]
mod tests {
    use super::form;

    const E: &str = "RuntimeError: CUDA error: device-side assert triggered";

    fn at(line: &str) -> Option<&'static str> {
        let phrase = line.find("CUDA error").expect("a phrase");
        let lead = "RuntimeError: ";
        form(line, if line[..phrase].ends_with(lead) { phrase - lead.len() } else { phrase })
    }

    #[test]
    fn the_comment_row_is_where_diff_lines_look_for_it() {
        assert_eq!(super::FORMS[super::COMMENT].0, "comment");
    }

    #[test]
    fn each_form_in_examples() {
        let cases: &[(String, &str)] = &[
            (format!("### {E}"), "heading"),
            (format!("## {E} とは"), "heading"),
            (format!("    # {E} means a label is out of range"), "comment"),
            (format!("x = 1  // {E}"), "comment"),
            (format!("+    # {E} when labels reach num_classes"), "comment"),
            (format!("-        raise RuntimeError(\"{}\")", &E[14..]), "diff"),
            (format!("+    msg = '{}'", &E[14..]), "diff"),
            (format!("SIGNATURE={E}"), "key"),
            (format!("ERROR_TEXT=\"{E}"), "key"),
            (format!("We hit errors such as {}, NCCL timeouts and OOM.", &E[14..]), "list"),
            (format!("Runs died with {} and an illegal memory access.", &E[14..]), "list"),
            (format!("`{}` is a notorious error in PyTorch.", &E[14..]), "definition"),
            (format!("\"{}\" happens when an index is out of range.", &E[14..]), "definition"),
            (format!("`{}` 是一个常见错误", &E[14..]), "definition"),
            (format!("PyTorchで「{E}」が出た時の対処法"), "title"),
            (format!("{E} 해결 방법"), "title"),
            (format!("训练时出现“{}”的解决办法", &E[14..]), "title"),
        ];
        for (line, want) in cases {
            assert_eq!(at(line), Some(*want), "{line}");
        }
    }

    /// Any line, any place in it: an answer, never a panic (lines are untrusted input).
    #[test]
    fn any_line_at_any_char_boundary() {
        let lines = ["PyTorchで「RuntimeError: 」が出た", "# 错误：“x”、和 `y` 是", "+『【“」』】”", "SIGNATURE=é", "ＲuntimeError:"];
        for line in lines {
            for (i, _) in line.char_indices().chain([(line.len(), ' ')]) {
                let _ = form(line, i);
            }
        }
    }

    #[test]
    fn output_and_reports_of_it_are_no_mention() {
        let cases = [
            E.to_string(),
            format!("I got {E}"),
            format!("then it crashed with {E}"),
            format!("训练时报错：{E}"),
            format!("出现了 {E}"),
            format!("{E} during the backward pass"),
            format!("Step #12 {E}"),
            format!("see https://example.org/#{E}"),
            format!("{E}, then the kernel died"),
            format!("{E} and the room went quiet"),
            format!("Error: {E}"),
            format!("KEY: {E}"),
            format!("--- {E}"),
        ];
        for line in cases {
            assert_eq!(at(&line), None, "{line}");
        }
    }
}
