//! Stage 1 of the scan: turns a line as people paste it into text the matchers can read.
//!
//! Two forms come out of a line:
//! - the *display* text: escape sequences and other control characters removed, nothing else
//!   changed. Reports quote it, so a user finds the line they saw.
//! - the *normalised* text, which only the matchers see: HTML entities decoded, markdown
//!   leftovers and links removed, full-width punctuation made ASCII, machine-translated kernel
//!   lines turned back into English words.
//!
//! A display line may hold several *segments*: `\r` progress-bar overwrites, and literal `\n`
//! escapes inside a repr'd error message (`RuntimeError('CUDA error: ...\nCUDA kernel ...')`).

use std::borrow::Cow;

/// Removes terminal escape sequences (CSI, OSC, two-byte ESC forms) and C0 control
/// characters other than tab and carriage return. NUL bytes go too.
pub fn strip_escapes(s: &str) -> Cow<'_, str> {
    if !s.bytes().any(|b| (b < 0x20 && b != b'\t' && b != b'\r') || b == 0x7f) && !s.contains('\u{9b}') {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\u{1b}' => match chars.peek().copied() {
                // CSI: ESC [ params intermediates final
                Some('[') => {
                    chars.next();
                    skip_csi(&mut chars);
                }
                // OSC: ESC ] ... (BEL | ESC \)
                Some(']') | Some('P') | Some('X') | Some('^') | Some('_') => {
                    chars.next();
                    while let Some(c) = chars.next() {
                        if c == '\u{7}' {
                            break;
                        }
                        if c == '\u{1b}' {
                            if chars.peek() == Some(&'\\') {
                                chars.next();
                            }
                            break;
                        }
                    }
                }
                // Two-byte forms such as ESC 7, ESC M, ESC ( B.
                Some('(') | Some(')') | Some('*') | Some('+') => {
                    chars.next();
                    chars.next();
                }
                Some(n) if ('@'..='~').contains(&n) => {
                    chars.next();
                }
                _ => {}
            },
            '\u{9b}' => skip_csi(&mut chars),
            '\t' | '\r' => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {}
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

fn skip_csi(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    for c in chars.by_ref() {
        if ('@'..='~').contains(&c) {
            break;
        }
    }
}

/// Splits a display line into the segments a terminal or a repr would have shown on separate
/// lines: at `\r`, and at literal `\n` escapes when the line carries an error message (not at
/// one that ends a C string inside a kernel record's condition, `…multiple of 16\n"` failed.`,
/// which the grouped GEMM's asserts print as written).
///
/// Returns the segments with their byte offsets in `line`; empty segments are dropped.
pub fn segments(line: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let split_escaped = line.contains("\\n") && looks_like_message(line);
    let mut start = 0;
    for piece in line.split('\r') {
        if split_escaped {
            let (mut s, mut from) = (0, 0);
            while let Some(p) = piece[from..].find("\\n") {
                let at = from + p;
                from = at + 2;
                if ends_condition_string(&piece[at + 2..]) {
                    continue;
                }
                push_segment(&mut out, start + s, &piece[s..at]);
                s = at + 2;
            }
            push_segment(&mut out, start + s, &piece[s..]);
        } else {
            push_segment(&mut out, start, piece);
        }
        start += piece.len() + 1;
    }
    out
}

fn push_segment<'a>(out: &mut Vec<(usize, &'a str)>, off: usize, seg: &'a str) {
    if !seg.trim().is_empty() {
        out.push((off, seg));
    }
}

/// Whether the text after a `\n` escape closes a C string and then a record's condition
/// (`"` then the backtick).
fn ends_condition_string(after: &str) -> bool {
    after.strip_prefix('"').is_some_and(|r| r.trim_start().starts_with('`'))
}

fn looks_like_message(line: &str) -> bool {
    line.contains("ssertion") || line.contains("rror") || line.contains("CUDA") || line.contains("cuda")
}

/// Produces the text the matchers read: see the module docs.
pub fn normalise(seg: &str) -> Cow<'_, str> {
    let mut s: Cow<'_, str> = Cow::Borrowed(seg);
    if s.contains('&') && s.contains(';') {
        s = Cow::Owned(decode_entities(&s));
    }
    if !s.is_ascii() {
        if let Some(w) = widen_to_ascii(&s) {
            s = Cow::Owned(w);
        }
    }
    if s.contains("](") {
        if let Some(u) = unwrap_links(&s) {
            s = Cow::Owned(u);
        }
    }
    if s.contains('`') || s.contains('*') || s.starts_with('>') || s.starts_with('_') {
        if let Some(m) = strip_markdown(&s) {
            s = Cow::Owned(m);
        }
    }
    if s.contains('│') || s.contains('┃') {
        if let Some(b) = strip_box(&s) {
            s = Cow::Owned(b);
        }
    }
    s
}

/// Decodes the HTML entities that web pages put into copied logs.
pub fn decode_entities(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        let tail = &rest[amp..];
        let end = tail[1..].find(';').map(|e| e + 1).filter(|&e| e <= 10);
        let decoded = end.and_then(|e| {
            let name = &tail[1..e];
            let c = match name {
                "lt" => Some('<'),
                "gt" => Some('>'),
                "amp" => Some('&'),
                "quot" => Some('"'),
                "apos" => Some('\''),
                "nbsp" => Some(' '),
                _ if name.starts_with("#x") || name.starts_with("#X") => {
                    u32::from_str_radix(&name[2..], 16).ok().and_then(char::from_u32)
                }
                _ if name.starts_with('#') => name[1..].parse::<u32>().ok().and_then(char::from_u32),
                _ => None,
            };
            c.map(|c| (c, e))
        });
        match decoded {
            Some((c, e)) => {
                out.push(c);
                rest = &tail[e + 1..];
            }
            None => {
                out.push('&');
                rest = &tail[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// Maps full-width punctuation to ASCII, and the words a browser's machine translation puts
/// into kernel assertion lines (块 block, 线程 thread, 断言失败 Assertion failed) back to
/// English. Returns `None` when nothing changed.
fn widen_to_ascii(s: &str) -> Option<String> {
    let mut changed = false;
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        let m = match c {
            '\u{ff01}'..='\u{ff5e}' => char::from_u32(c as u32 - 0xfee0).unwrap_or(c),
            '\u{3000}' => ' ',
            '\u{3002}' => '.',
            '\u{3001}' => ',',
            _ => c,
        };
        changed |= m != c;
        out.push(m);
    }
    if out.contains("断言") {
        out = out
            .replace("断言失败", " Assertion failed")
            .replace("断言", " Assertion")
            .replace("线程", "thread")
            .replace('块', "block");
        changed = true;
    }
    changed.then_some(out)
}

/// Replaces markdown links `[text](http://...)` with their text: Colab, JupyterLab and VS Code
/// turn traceback file names into links, and pastes keep them.
fn unwrap_links(s: &str) -> Option<String> {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    let mut changed = false;
    while let Some(open) = rest.find('[') {
        let after = &rest[open + 1..];
        let Some(close) = after.find("](") else { break };
        let text = &after[..close];
        let target = &after[close + 2..];
        let url_ok = ["http:", "https:", "vscode-notebook-cell:", "file:", "#"].iter().any(|p| target.starts_with(p));
        match (text.contains('['), url_ok, target.find(')')) {
            (false, true, Some(end)) => {
                out.push_str(&rest[..open]);
                out.push_str(text);
                rest = &target[end + 1..];
                changed = true;
            }
            _ => {
                out.push_str(&rest[..open + 1]);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    changed.then_some(out)
}

/// Removes the markdown that survives a copy from an issue page: bold markers around the
/// assertion, a stray backtick or quote marker at the start, a code fence at the end.
fn strip_markdown(s: &str) -> Option<String> {
    // Every change below needs `**`, or a marker at the start or the end: lines with inline
    // code only (Python warnings quote code in backticks, thousands of times in a training
    // log) are left as they are without the copies.
    let b = s.as_bytes();
    let marked = matches!(b.first(), Some(b'>' | b'*' | b'_' | b'`')) || matches!(b.last(), Some(b'`' | b'*' | b'_'));
    if !marked && !b.windows(2).any(|w| w == b"**") {
        return None;
    }
    strip_markdown_marks(s)
}

fn strip_markdown_marks(s: &str) -> Option<String> {
    let mut t = s.replace("**`", "`").replace("`**", "`");
    if let Some(stripped) = t.strip_prefix("> ") {
        t = stripped.to_string();
    }
    let lead = t.len() - t.trim_start_matches(['*', '_']).len();
    if lead > 0 && t[lead..].starts_with(|c: char| !c.is_whitespace()) {
        t = t[lead..].to_string();
    }
    if t.starts_with('`') && !t.starts_with("```") && t.matches('`').count() % 2 == 1 {
        t.remove(0);
    }
    loop {
        let before = t.len();
        for suffix in ["```", "**_", "*_", "**", "__"] {
            if let Some(x) = t.strip_suffix(suffix) {
                t = x.to_string();
            }
        }
        if t.ends_with("**.") {
            t.truncate(t.len() - 3);
            t.push('.');
        }
        if before == t.len() {
            break;
        }
    }
    if t.ends_with('`') && t.matches('`').count() % 2 == 1 {
        t.pop();
    }
    let t = t.replace("failed**", "failed");
    (t != s).then_some(t)
}

/// Removes the box-drawing borders of `rich` tracebacks (`│ ❱ 162 │ code │`); a prefix in front
/// of the box (`[rank0]: │ …`) stays.
fn strip_box(s: &str) -> Option<String> {
    let open = s.find(['│', '┃'])?;
    let (prefix, t) = s.split_at(open);
    let t = t.trim();
    let t = t.strip_prefix('│').or_else(|| t.strip_prefix('┃')).unwrap_or(t);
    let t = t.strip_suffix('│').or_else(|| t.strip_suffix('┃')).unwrap_or(t);
    // The inner separator between the line number and the code.
    let t = t.replacen(" │ ", "  ", 1).replacen(" ┃ ", "  ", 1);
    Some(format!("{prefix}{}", t.trim_end()))
}

/// Cuts `s` to at most `max` bytes on a character boundary.
pub fn clip(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// Returns a window of at most `max` bytes of `s` around `[from, to)`, on character
/// boundaries, and whether it had to cut.
pub fn window(s: &str, from: usize, to: usize, max: usize) -> (&str, bool) {
    if s.len() <= max {
        return (s, false);
    }
    let span = to.saturating_sub(from);
    let pad = max.saturating_sub(span) / 2;
    let mut a = from.saturating_sub(pad);
    let mut b = (a + max).min(s.len());
    if b - a < max {
        a = b.saturating_sub(max);
    }
    while a > 0 && !s.is_char_boundary(a) {
        a -= 1;
    }
    while b < s.len() && !s.is_char_boundary(b) {
        b += 1;
    }
    (&s[a..b], true)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shortcut in `strip_markdown` changes nothing: on strings made of the markers and a
    /// few letters, it answers what the full function answers.
    #[test]
    fn the_markdown_shortcut_is_exact() {
        let alphabet = ['*', '_', '`', '>', ' ', '.', 'a', 'f', 'd'];
        let mut seed = 0x9e37_79b9_u32;
        for _ in 0..200_000 {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            let len = (seed % 9) as usize;
            let s: String = (0..len).map(|k| alphabet[((seed >> (3 * k)) % 9) as usize]).collect();
            assert_eq!(strip_markdown(&s), strip_markdown_marks(&s), "{s:?}");
        }
        assert_eq!(strip_markdown("x `a` y"), None);
        assert_eq!(strip_markdown("**`x` failed**").as_deref(), Some("`x` failed"));
    }

    #[test]
    fn escapes_go_and_text_stays() {
        assert_eq!(strip_escapes("\u{1b}[0;31mRuntimeError\u{1b}[0m: x"), "RuntimeError: x");
        assert_eq!(strip_escapes("a\u{1b}]8;;http://x\u{7}link\u{1b}]8;;\u{7}b"), "alinkb");
        assert_eq!(strip_escapes("nul\0here\u{7}"), "nulhere");
        assert_eq!(strip_escapes("tab\tand\rcr"), "tab\tand\rcr");
        assert!(matches!(strip_escapes("plain"), Cow::Borrowed(_)));
        // A lone escape at the end does not panic.
        assert_eq!(strip_escapes("x\u{1b}"), "x");
        assert_eq!(strip_escapes("x\u{1b}["), "x");
    }

    #[test]
    fn carriage_returns_and_escaped_newlines_make_segments() {
        let segs: Vec<&str> = segments("10%|#  \r20%|## \rdone").into_iter().map(|s| s.1).collect();
        assert_eq!(segs, ["10%|#  ", "20%|## ", "done"]);
        let segs: Vec<&str> = segments("E('CUDA error: x\\nnote')").into_iter().map(|s| s.1).collect();
        assert_eq!(segs, ["E('CUDA error: x", "note')"]);
        // Code with a literal \n and no error words stays whole.
        assert_eq!(segments("print('a\\nb')").len(), 1);
        // The grouped GEMM's conditions end their C string with a `\n` as written: the record
        // stays whole, and a real escape after it still splits.
        let rec = r#"x.cuh:5: f: block: [0,0,0], thread: [1,0,0] Assertion `d >0 && "expected offsets\n"` failed.\nRuntimeError: CUDA error"#;
        let segs: Vec<&str> = segments(rec).into_iter().map(|s| s.1).collect();
        assert_eq!(segs.len(), 2, "{segs:?}");
        assert!(segs[0].ends_with("failed."), "{segs:?}");
    }

    #[test]
    fn entities_decode() {
        assert_eq!(decode_entities("a &lt; b &amp;&amp; c &gt;= 0 &#39;x&#x27;"), "a < b && c >= 0 'x'");
        assert_eq!(decode_entities("AT&T & co;"), "AT&T & co;");
    }

    #[test]
    fn translated_kernel_lines_become_english() {
        let n = normalise("Loss.cu：92：operator（）：块：[566,0,0]，线程：[51,0,0]断言失败。");
        assert_eq!(n, "Loss.cu:92:operator():block:[566,0,0],thread:[51,0,0] Assertion failed.");
    }

    #[test]
    fn links_unwrap() {
        assert_eq!(
            normalise("[/tmp/ipykernel_1/2.py](https://localhost:8080/#) in <cell line: 0>()"),
            "/tmp/ipykernel_1/2.py in <cell line: 0>()"
        );
        assert_eq!(normalise("x[0](y)"), "x[0](y)");
    }

    #[test]
    fn markdown_leftovers_go() {
        assert_eq!(
            normalise("`/a/Loss.cu:1: f: block: [0,0,0], thread: [0,0,0] Assertion **`x >= 0` failed**."),
            "/a/Loss.cu:1: f: block: [0,0,0], thread: [0,0,0] Assertion `x >= 0` failed."
        );
        assert_eq!(normalise("_**RuntimeError: boom**_"), "RuntimeError: boom");
        assert_eq!(normalise("Assertion `t` failed.```"), "Assertion `t` failed.");
        // A balanced pair of backticks is content, not markdown.
        assert_eq!(normalise("Assertion `false`"), "Assertion `false`");
    }

    #[test]
    fn windows_cut_on_char_boundaries() {
        let s = "é".repeat(100);
        let (w, cut) = window(&s, 100, 104, 21);
        assert!(cut && w.len() <= 22 && w.chars().all(|c| c == 'é'));
        assert_eq!(clip("héllo", 2), "h");
    }
}
