//! Python tracebacks in the shapes people paste them: the standard one, IPython 5-8 and
//! Colab (numbered context lines, `---->` arrows, folded frames, links), `rich` boxes, logger
//! prefixes, flattened indentation.

use super::patterns::patterns;
use crate::facts::{Loc, TbFrame, Traceback, MAX_FRAMES};

/// What a line is, seen from inside (or at the start of) a traceback.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TbLine {
    /// `Traceback (most recent call last)`.
    Header,
    /// A separator between chained exceptions.
    Chain,
    /// A frame line.
    Frame,
    /// A source line of the current frame.
    Code,
    /// A line that folds frames away, or a caret line.
    Decoration,
    /// The exception line that ends the traceback; the traceback is ready in `done`.
    Exception,
    /// Anything else.
    Other,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Expect {
    #[default]
    Nothing,
    /// A standard frame: one source line follows.
    OneLine,
    /// An IPython frame: numbered context lines follow.
    Numbered,
}

/// Reads tracebacks line by line.
#[derive(Debug, Default)]
pub struct TbReader {
    current: Option<Traceback>,
    expect: Expect,
    idle: u32,
    /// A traceback that has just ended, waiting to be taken.
    pub done: Option<Traceback>,
}

/// Lines without frame structure after which a traceback is given up.
const MAX_IDLE: u32 = 40;

impl TbReader {
    /// True while inside a traceback: every line must then be read.
    pub fn active(&self) -> bool {
        self.current.is_some()
    }

    /// Reads one prefix-stripped, normalised line.
    pub fn feed(&mut self, s: &str, loc: Loc) -> TbLine {
        let p = patterns();
        if s.contains("Traceback (most recent call last)") {
            self.close();
            self.current = Some(Traceback { start: loc, ..Traceback::default() });
            self.set_expect(Expect::Nothing);
            return TbLine::Header;
        }
        if self.current.is_some()
            && (s.starts_with("During handling") || s.starts_with("The above exception"))
            && p.tb_chain.is_match(s)
        {
            self.close();
            return TbLine::Chain;
        }
        if let Some(frame) = parse_frame(s, self.current.is_some(), loc) {
            let numbered = frame.1;
            let tb =
                self.current.get_or_insert_with(|| Traceback { start: loc, partial: true, ..Traceback::default() });
            push_frame(tb, frame.0);
            self.set_expect(if numbered { Expect::Numbered } else { Expect::OneLine });
            return TbLine::Frame;
        }
        let Some(tb) = self.current.as_mut() else {
            return TbLine::Other;
        };
        let trimmed = s.trim();
        if trimmed.chars().all(|c| c == '^' || c == '~' || c == ' ') && !trimmed.is_empty() {
            return TbLine::Decoration;
        }
        if let Some(c) = s.contains("frame").then(|| p.folded.captures(s)).flatten() {
            let n = c.name("n").or_else(|| c.name("n2")).and_then(|m| m.as_str().parse::<u32>().ok()).unwrap_or(0);
            tb.folded += n;
            self.idle = 0;
            return TbLine::Decoration;
        }
        match self.expect {
            Expect::OneLine if !trimmed.is_empty() && !exception_line(trimmed) => {
                if let Some(f) = tb.frames.last_mut() {
                    f.code = Some((trimmed.to_string(), loc));
                }
                self.set_expect(Expect::Nothing);
                return TbLine::Code;
            }
            Expect::Numbered => {
                if let Some((arrow, n, code)) = numbered_code(s) {
                    let code = code.trim();
                    if let Some(f) = tb.frames.last_mut() {
                        if arrow {
                            // IPython 7 names a cell's frame without its line: the arrow's is it.
                            f.line = f.line.or((n > 0).then_some(n));
                            f.code = Some((code.to_string(), loc));
                        } else if !code.is_empty() && f.context.len() < 12 {
                            f.context.push((code.to_string(), loc));
                        }
                    }
                    self.idle = 0;
                    return TbLine::Code;
                }
                if trimmed == "(...)" || trimmed == "..." {
                    return TbLine::Decoration;
                }
                if !trimmed.is_empty() && !exception_line(trimmed) {
                    // A wrapped continuation of the previous source line.
                    if s.starts_with(' ') {
                        return TbLine::Code;
                    }
                }
            }
            _ => {}
        }
        if let Some((name, msg)) = exception_parts(trimmed) {
            let (name, msg) = (name.to_string(), msg.unwrap_or_default().to_string());
            // `Exception` alone is also a word in prose; require a message or a traceback body.
            if !tb.frames.is_empty() || !msg.is_empty() {
                tb.exception = Some((name, msg, loc));
                self.close();
                return TbLine::Exception;
            }
        }
        self.idle += 1;
        if self.idle > MAX_IDLE {
            self.close();
        }
        TbLine::Other
    }

    fn set_expect(&mut self, e: Expect) {
        self.expect = e;
        self.idle = 0;
    }

    /// Ends the current traceback (at an exception, a chain separator, or the end of a block).
    pub fn close(&mut self) {
        if let Some(tb) = self.current.take() {
            if !tb.frames.is_empty() || tb.exception.is_some() {
                self.done = Some(tb);
            }
        }
        self.expect = Expect::Nothing;
        self.idle = 0;
    }
}

// Literal guards in front of the patterns that run on every line of a traceback: each is a
// condition its pattern cannot match without (a test holds them to it), and most lines fail it
// at the first byte, where the package's regex engine would have run.

/// Whether `t` (trimmed) is an exception line (see [`exception_parts`]).
fn exception_line(t: &str) -> bool {
    exception_parts(t).is_some()
}

/// The exception's name and message when `t` is an exception line, read by hand (the test
/// `the_guards_let_through_every_line_their_patterns_match` holds it to the pattern it
/// replaced, which ran on every error line and was the slowest of them in the package).
///
/// A dotted name whose last part ends in `Error`, `Exception`, `Exit`, `Interrupt`, `Warning`
/// or `Failure` (after at least one more character), or is `Exception`, `StopIteration` or
/// `KeyboardInterrupt`; then the end, or `:` and the message (one space after the colon is
/// not part of it; trailing white space never is).
pub(super) fn exception_parts(t: &str) -> Option<(&str, Option<&str>)> {
    const ENDS: [&str; 6] = ["Error", "Exception", "Exit", "Interrupt", "Warning", "Failure"];
    let b = t.as_bytes();
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut i = 0;
    let mut last;
    loop {
        // An identifier: a letter or `_`, then word bytes.
        if !b.get(i).is_some_and(|&c| c.is_ascii_alphabetic() || c == b'_') {
            return None;
        }
        last = i;
        while b.get(i).is_some_and(|&c| word(c)) {
            i += 1;
        }
        // A dot goes on to another identifier only when one follows it.
        match (b.get(i), b.get(i + 1)) {
            (Some(b'.'), Some(&c)) if c.is_ascii_alphabetic() || c == b'_' => i += 1,
            _ => break,
        }
    }
    let part = &t[last..i];
    let named = ENDS.iter().any(|e| part.len() > e.len() && part.ends_with(e))
        || matches!(part, "Exception" | "StopIteration" | "KeyboardInterrupt");
    if !named {
        return None;
    }
    // (Byte loops, not `trim_matches` with a closure: their generic code cost the package
    // more than the rest of this function.)
    let space = perl_space;
    let name = &t[..i];
    while b.get(i).is_some_and(|&c| space(c)) {
        i += 1;
    }
    match b.get(i) {
        None => return Some((name, None)),
        Some(b':') => i += 1,
        Some(_) => return None,
    }
    if b.get(i).is_some_and(|&c| space(c)) {
        i += 1;
    }
    let mut end = b.len();
    while end > i && space(b[end - 1]) {
        end -= 1;
    }
    // `.` in the pattern stops at a newline.
    (!b[i..end].contains(&b'\n')).then_some((name, Some(&t[i..end])))
}

/// `\s` of the patterns the hand readers stand for: ASCII white space, vertical tab included
/// (which `u8::is_ascii_whitespace` leaves out).
fn perl_space(c: u8) -> bool {
    matches!(c, b'\t' | b'\n' | 0x0b | 0x0c | b'\r' | b' ')
}

/// An IPython context line (`---> 24     code`, `     22     code`, `❱ 162 code`): whether it
/// has the arrow, its line number, and its code (what follows the number and one space,
/// untrimmed; empty when nothing does). Read by hand, as the pattern in the tests reads it: the pattern engine of the
/// package took a tenth of a notebook's analysis on these lines.
fn numbered_code(s: &str) -> Option<(bool, u32, &str)> {
    let ws = |c: &u8| perl_space(*c);
    let b = s.as_bytes();
    let mut i = b.iter().take_while(|c| ws(c)).count();
    let mut arrow = false;
    if b[i..].starts_with("❱".as_bytes()) {
        (arrow, i) = (true, i + "❱".len());
    } else {
        let dashes = b[i..].iter().take_while(|&&c| c == b'-').count();
        if dashes > 0 && b.get(i + dashes) == Some(&b'>') {
            (arrow, i) = (true, i + dashes + 1);
        }
    }
    i += b[i..].iter().take_while(|c| ws(c)).count();
    let digits = b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
    if digits == 0 {
        return None;
    }
    let n = b[i..i + digits].iter().fold(0u32, |n, d| n.saturating_mul(10).saturating_add(u32::from(d - b'0')));
    i += digits;
    match b.get(i) {
        None => Some((arrow, n, "")),
        // `.` in the pattern stops at a newline.
        Some(c) if ws(c) && !b[i + 1..].contains(&b'\n') => Some((arrow, n, &s[i + 1..])),
        Some(_) => None,
    }
}

fn push_frame(tb: &mut Traceback, f: TbFrame) {
    if tb.frames.len() >= MAX_FRAMES {
        // Keep the outermost frames and the innermost ones; drop from the middle.
        tb.frames.remove(MAX_FRAMES / 4);
        tb.dropped += 1;
    }
    tb.frames.push(f);
}

/// Parses a frame line. Returns the frame and whether numbered context lines follow.
fn parse_frame(s: &str, active: bool, loc: Loc) -> Option<(TbFrame, bool)> {
    let p = patterns();
    let t = s.trim_start();
    if t.starts_with("File") {
        if let Some(c) = p.frame_std.captures(s) {
            return Some((
                frame(&c["path"], c.name("line").map(|m| m.as_str()), c.name("func").map_or("", |m| m.as_str()), loc),
                false,
            ));
        }
        if let Some(c) = p.frame_ipy8.captures(s) {
            return Some((frame(&c["path"], Some(&c["line"]), c.name("func").map_or("", |m| m.as_str()), loc), true));
        }
    }
    if t.starts_with("Cell In") || t.starts_with("Input In") {
        if let Some(c) = p.frame_cell.captures(s) {
            let func = c.name("func").or_else(|| c.name("func2")).map_or("<cell>", |m| m.as_str());
            return Some((frame(&c["path"], c.name("line").map(|m| m.as_str()), func, loc), true));
        }
    }
    if t.contains(" in ") && (t.starts_with('<') || t.contains(".py ")) {
        if let Some(c) = p.frame_ipy5.captures(s) {
            return Some((frame(&c["path"], None, &c["func"], loc), true));
        }
    }
    if active && t.contains(".py:") && t.contains(" in ") {
        if let Some(c) = p.frame_rich.captures(s) {
            return Some((frame(&c["path"], Some(&c["line"]), &c["func"], loc), true));
        }
    }
    None
}

fn frame(path: &str, line: Option<&str>, func: &str, loc: Loc) -> TbFrame {
    TbFrame {
        path: path.trim().to_string(),
        line: line.and_then(|l| l.parse().ok()),
        func: function_name(func),
        code: None,
        context: Vec::new(),
        loc,
    }
}

/// `nll_loss(input, target, ...)` gives `nll_loss`; `<cell line: 0>()` gives `<cell line: 0>`;
/// `Module.cpu.<locals>.<lambda>(t)` gives `Module.cpu.<locals>.<lambda>`.
fn function_name(f: &str) -> String {
    let f = f.trim();
    if f.starts_with('<') {
        if let Some(end) = f.find('>') {
            return f[..=end].to_string();
        }
    }
    let mut depth = 0;
    for (i, c) in f.char_indices() {
        match c {
            '<' => depth += 1,
            '>' => depth -= 1,
            '(' if depth <= 0 => return f[..i].to_string(),
            _ => {}
        }
    }
    f.to_string()
}

/// True when a frame's file belongs to an installed package rather than the user's code.
pub fn is_library(path: &str) -> bool {
    let p = path.replace('\\', "/");
    p.contains("site-packages/")
        || p.contains("dist-packages/")
        || p.contains("/lib/python")
        || p.contains("<frozen")
        || p.contains("/torch/")
        || p.starts_with("torch/")
}

/// The installed package a library frame belongs to (`torch`, `transformers`, ...).
pub fn library_name(path: &str) -> Option<String> {
    let p = path.replace('\\', "/");
    for marker in ["site-packages/", "dist-packages/"] {
        if let Some(i) = p.find(marker) {
            let rest = &p[i + marker.len()..];
            let name = rest.split('/').next().unwrap_or("");
            let name = name.strip_suffix(".py").unwrap_or(name);
            if !name.is_empty() {
                return Some(name.to_string());
            }
        }
    }
    if p.contains("/torch/") || p.starts_with("torch/") {
        return Some("torch".into());
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(lines: &[&str]) -> Traceback {
        let mut r = TbReader::default();
        for (i, l) in lines.iter().enumerate() {
            let loc = Loc { order: i as u64, ..Loc::default() };
            r.feed(l, loc);
        }
        r.close();
        r.done.expect("a traceback")
    }

    /// Every line the patterns match passes its guard, and the exception lines read by hand
    /// read as their pattern reads them: on every line of every test input (and the same
    /// lines trimmed) and on lines made to sit at the edges.
    #[test]
    fn the_guards_let_through_every_line_their_patterns_match() {
        let p = patterns();
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/cases");
        let mut lines: Vec<String> = [
            "KeyboardInterrupt",
            "StopIteration",
            "_Foo.BarError: x",
            "SystemExit: 2",
            "Error: x",
            "Exception",
            "Exception:",
            "a.Exception: y ",
            "x.FooError y",
            "FooError.",
            "FooError.bar: x",
            "FooError.BarWarning :  two spaces\t ",
            "FooErrorBar: x",
            "Foo.1Error: x",
            "Foo..BarError: x",
            "_: x",
            "__Error",
            "9Error: x",
            "RuntimeError:\t\tx",
            "ValueError: a\nb",
            "ValueError:\n",
            "KeyError: 'é'",
            "  -> 12 x = 1",
            "❱ 3 y",
            "   7",
            "  12 frames",
            "[... skipping hidden 3 frame]",
            "\u{a0}3 x",
            "  ---> 24     loss = f(x)",
            "-->3 a",
            "--> ",
            "--x 3",
            "- > 3",
            "> 3 x",
            "❱162 y",
            "❱ ❱ 3",
            "12",
            "12 ",
            "12x",
            "12\ty",
            "3\u{a0}x",
            "3 a\nb",
            "3\nb",
            "3\n",
            "\t\x0b 7 \r",
            "-",
            "",
        ]
        .map(String::from)
        .to_vec();
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let text = String::from_utf8_lossy(&std::fs::read(e.path()).unwrap()).into_owned();
            lines.extend(text.lines().flat_map(|l| l.split("\\n")).map(String::from));
        }
        // What `exception_parts` reads by hand, as a pattern.
        let exception_re = crate::re::compile(
            r"^(?P<name>(?:[A-Za-z_]\w*\.)*(?:[A-Za-z_]\w*(?:Error|Exception|Exit|Interrupt|Warning|Failure)|StopIteration|KeyboardInterrupt|Exception))(?:\s*:\s?(?P<msg>.*?))?\s*$",
        )
        .unwrap();
        // What `numbered_code` reads by hand, as a pattern.
        let numbered_re = crate::re::compile(r"^\s*(?P<arrow>-+>|❱)?\s*(?P<num>\d+)(?:\s(?P<code>.*))?$").unwrap();
        let (mut exceptions, mut numbered, mut folded) = (0, 0, 0);
        for l in &lines {
            let t = l.trim();
            let want =
                exception_re.captures(t).map(|c| (c.name("name").unwrap().as_str(), c.name("msg").map(|m| m.as_str())));
            assert_eq!(exception_parts(t), want, "{t:?}");
            exceptions += usize::from(want.is_some());
            let want = numbered_re.captures(l).map(|c| {
                let n = c.name("num").unwrap().as_str().parse().unwrap_or(0);
                (c.name("arrow").is_some(), n, c.name("code").map_or("", |m| m.as_str()))
            });
            assert_eq!(numbered_code(l), want, "{l:?}");
            numbered += usize::from(want.is_some());
            if p.folded.is_match(l) {
                assert!(l.contains("frame"), "{l:?}");
                folded += 1;
            }
        }
        assert!(exceptions > 20 && numbered > 15 && folded > 2, "{exceptions} {numbered} {folded}");
    }

    #[test]
    fn standard_traceback() {
        let tb = read(&[
            "Traceback (most recent call last):",
            r#"  File "train.py", line 10, in <module>"#,
            "    main()",
            r#"  File "/usr/lib/python3.10/site-packages/torch/nn/functional.py", line 3029, in cross_entropy"#,
            "    return torch._C._nn.cross_entropy_loss(input, target)",
            "           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
            "RuntimeError: CUDA error: device-side assert triggered",
        ]);
        assert_eq!(tb.frames.len(), 2);
        assert_eq!(tb.frames[1].func, "cross_entropy");
        assert_eq!(
            tb.frames[1].code.as_ref().map(|c| c.0.as_str()),
            Some("return torch._C._nn.cross_entropy_loss(input, target)")
        );
        assert_eq!(tb.exception.as_ref().map(|e| e.0.as_str()), Some("RuntimeError"));
    }

    #[test]
    fn ipython_traceback_with_context_and_folds() {
        let tb = read(&[
            "RuntimeError                              Traceback (most recent call last)",
            "<ipython-input-7-0a1b2c3d4e5f> in <module>()",
            "      1 model.train()",
            "----> 2 loss = fit(model, loader)",
            "",
            "3 frames",
            "/usr/local/lib/python3.10/dist-packages/torch/nn/functional.py in embedding(input, weight, padding_idx)",
            "   2231     _no_grad_embedding_renorm_(weight, input, max_norm, norm_type)",
            "-> 2233 return torch.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)",
            "",
            "RuntimeError: CUDA error: device-side assert triggered",
        ]);
        assert_eq!(tb.frames.len(), 2);
        assert_eq!(tb.folded, 3);
        assert_eq!(tb.frames[0].code.as_ref().map(|c| c.0.as_str()), Some("loss = fit(model, loader)"));
        assert_eq!(tb.frames[0].context.iter().map(|c| c.0.as_str()).collect::<Vec<_>>(), ["model.train()"]);
        assert_eq!(tb.frames[1].func, "embedding");
        assert!(tb.frames[1].code.as_ref().unwrap().0.starts_with("return torch.embedding"));
    }

    #[test]
    fn every_form_colab_and_jupyter_gave_a_cell_is_the_users_cell() {
        // Colab 2025-26: five file names in turn; Jupyter (IPython 8): `Cell In[N], line K`.
        for (head, path) in [
            ("<ipython-input-12-3f2a9c0d1b7e> in <cell line: 0>()", "<ipython-input-12-3f2a9c0d1b7e>"),
            ("/tmp/ipython-input-12-2709765677.py in <cell line: 0>()", "/tmp/ipython-input-12-2709765677.py"),
            ("/tmp/ipython-input-2709765677.py in <cell line: 0>()", "/tmp/ipython-input-2709765677.py"),
            ("/tmp/ipython-input-412/2709765677.py in <cell line: 0>()", "/tmp/ipython-input-412/2709765677.py"),
            ("/tmp/ipykernel_412/2709765677.py in <cell line: 0>()", "/tmp/ipykernel_412/2709765677.py"),
            ("Cell In[12], line 3", "Cell In[12]"),
        ] {
            let tb = read(&[
                "RuntimeError                              Traceback (most recent call last)",
                head,
                "----> 3 loss = criterion(out, y)",
                "/usr/local/lib/python3.12/dist-packages/torch/nn/modules/module.py in _call_impl(self, *args, **kwargs)",
                "-> 1762 return forward_call(*args, **kwargs)",
                "RuntimeError: CUDA error: device-side assert triggered",
            ]);
            assert_eq!(tb.frames.len(), 2, "{head}");
            assert_eq!(tb.frames[0].path, path, "{head}");
            assert!(!is_library(&tb.frames[0].path) && is_library(&tb.frames[1].path), "{head}");
            assert_eq!(tb.frames[0].code.as_ref().map(|c| c.0.as_str()), Some("loss = criterion(out, y)"), "{head}");
        }
    }

    #[test]
    fn libraries() {
        assert!(is_library("/usr/local/lib/python3.10/dist-packages/transformers/models/x.py"));
        assert_eq!(library_name("C:\\Py\\lib\\site-packages\\torch\\nn\\functional.py").as_deref(), Some("torch"));
        assert_eq!(library_name("/x/site-packages/ultralytics/engine/trainer.py").as_deref(), Some("ultralytics"));
        assert!(!is_library("<ipython-input-4-abc>"));
        assert!(!is_library("/content/train.py"));
    }

    #[test]
    fn function_names() {
        assert_eq!(function_name("nll_loss(input, target, weight)"), "nll_loss");
        assert_eq!(function_name("<cell line: 0>()"), "<cell line: 0>");
        assert_eq!(function_name("Module.cpu.<locals>.<lambda>(t)"), "Module.cpu.<locals>.<lambda>");
    }
}
