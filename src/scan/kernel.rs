//! Kernel assertion lines: the `Assertion ... failed` records that the GPU prints, one per
//! failing thread, in every dialect PyTorch has printed them.
//!
//! A record is found by its core, ``Assertion `COND` failed`` (or ``Assertion failed: `COND` ``),
//! wherever it sits; its head (`file:line: function: block: [..], thread: [..]`) is read when it
//! is there, and whatever survived of it when a paste, a terminal or another process's output
//! cut it (`…ad: [47,0,0] Assertion …`, a record torn by interleaved writes). A record without
//! its head is still a record: its condition names the rule. Whether it was printed or quoted
//! is decided by [`super::context::judge`].

use super::context::{Context, Judge};
use super::patterns::patterns;
use crate::report::{KernelSite, Offending};

/// A kernel record found in a normalised segment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Parsed {
    /// Byte range of the record in the normalised text.
    pub start: usize,
    pub end: usize,
    pub site: KernelSite,
    pub dialect: &'static str,
    /// The record's head is cut: no file (the record starts mid-head, or was torn).
    pub cut: bool,
    /// A build's verbose form (`[CUDA_KERNEL_ASSERT] …: Assertion failed: `cond`: message`),
    /// printed with `printf` beside the standard record of the same thread.
    pub verbose: bool,
    /// The value and bound its message gives (`Expected 0 <= index < n(50257), but got index = 50260`).
    pub offending: Option<Offending>,
}

/// The dialect of a record read from its core, whose head was cut or torn.
pub const CUT: &str = "cut";

/// Finds every kernel record in `norm` (pasted paragraphs can hold many).
///
/// `translated` tells that the original text was machine-translated (the condition is lost in
/// translation and the dialect says so).
pub fn parse(norm: &str, translated: bool, j: Judge) -> Vec<Parsed> {
    if !norm.contains("ssert") {
        return Vec::new();
    }
    let p = patterns();
    let mut out = Vec::new();
    // (`Assertion`: the whole record's pattern cannot match without it, and an echo's
    // `device-side assert` is on every later cell's error.)
    let records = norm.contains("Assertion").then(|| p.kernel.captures_iter(norm));
    for c in records.into_iter().flatten() {
        let whole = c.get(0).expect("group 0 always matches");
        // A record ends at its condition's closing backtick (the pattern reads on to `failed`
        // to find which backtick closes a condition that holds some).
        let end = c.name("failed").map_or(whole.end(), |f| f.start());
        if j.judge(&norm[..whole.start()], &norm[end..]) == Context::Quoted {
            continue;
        }
        let file = clean_file(&c["file"]);
        let function = c.name("func").map(|m| m.as_str().trim().to_string()).filter(|f| !f.is_empty());
        let condition = c.name("cond").or_else(|| c.name("condo")).map(|m| collapse_ws(m.as_str()));
        let sycl = c.name("gid").is_some();
        let block = c.name("block").or_else(|| c.name("gid")).and_then(|m| triple(m.as_str()));
        let thread = c.name("thread").or_else(|| c.name("lid")).and_then(|m| triple(m.as_str()));
        let dialect = dialect(&file, function.as_deref(), translated, sycl);
        let verbose = whole.as_str().contains("Assertion failed:");
        out.push(Parsed {
            verbose,
            offending: if verbose { offending(&norm[end..]) } else { None },
            start: whole.start(),
            end,
            site: KernelSite {
                line: c["lno"].parse().ok(),
                file,
                name: function.as_deref().and_then(short_function),
                function,
                condition,
                block,
                thread,
            },
            dialect,
            cut: false,
        });
    }
    if norm.contains("Assertion") {
        cores(norm, translated, j, &mut out);
    }
    if out.is_empty() && norm.contains("Device-side assertion") {
        for c in p.kernel_hip.captures_iter(norm) {
            let whole = c.get(0).expect("group 0 always matches");
            let function = Some(c["func"].trim().to_string()).filter(|f| !f.is_empty());
            out.push(Parsed {
                start: whole.start(),
                end: whole.end(),
                site: KernelSite {
                    file: clean_file(&c["file"]),
                    line: c["lno"].parse().ok(),
                    name: function.as_deref().and_then(short_function),
                    function,
                    condition: Some(collapse_ws(&c["cond"])),
                    block: None,
                    thread: None,
                },
                dialect: "rocm",
                cut: false,
                verbose: false,
                offending: None,
            });
        }
    }
    out
}

/// Adds the records that only their core shows (``Assertion `…` failed`` outside every whole
/// record of `out`), with what is left of their heads.
fn cores(norm: &str, translated: bool, j: Judge, out: &mut Vec<Parsed>) {
    let p = patterns();
    let whole: Vec<(usize, usize)> = out.iter().map(|r| (r.start, r.end)).collect();
    let mut found: Vec<Parsed> = Vec::new();
    for c in p.kernel_core.captures_iter(norm) {
        let m = c.get(0).expect("group 0 always matches");
        if whole.iter().any(|&(s, e)| m.start() < e && m.end() > s) {
            continue;
        }
        // The head is what precedes the core since the record before it.
        let from = whole
            .iter()
            .map(|&(_, e)| e)
            .chain(found.last().map(|r| r.end))
            .filter(|&e| e <= m.start())
            .max()
            .unwrap_or(0);
        let head = head(&norm[from..m.start()]);
        // With nothing of its head left, a record must end as the GPU ends it (`failed.`, the
        // end of the line): ``Assertion `x` failed in my helper`` is someone else's words.
        let rest = &norm[m.end()..];
        let headless = head.start == m.start() - from;
        if headless && c.name("cond").is_some() && !(rest.starts_with('.') || rest.trim().is_empty()) {
            continue;
        }
        let start = from + head.start;
        if j.judge(&norm[..start], &norm[m.end()..]) == Context::Quoted {
            continue;
        }
        let condition = c.name("cond").or_else(|| c.name("cond2")).map(|m| collapse_ws(m.as_str()));
        let (file, line) = match head.file {
            Some(f) => f,
            // A torn record may carry its file anywhere in the line.
            None => (any_file(norm), None),
        };
        let cut = file.is_none();
        let file = file.unwrap_or_default();
        let dialect = if translated {
            "translated"
        } else if cut {
            CUT
        } else {
            dialect(&file, head.function.as_deref(), false, false)
        };
        let verbose = c.name("cond2").is_some();
        found.push(Parsed {
            verbose,
            offending: if verbose { offending(&norm[m.end()..]) } else { None },
            start,
            end: m.end(),
            site: KernelSite {
                file,
                line,
                name: head.function.as_deref().and_then(short_function),
                function: head.function,
                condition,
                block: head.block,
                thread: head.thread,
            },
            dialect,
            cut,
        });
    }
    out.extend(found);
    crate::order::sort_by_key(out, |r| (r.start as u64, 0));
}

/// What is left of a record's head in the text before its core.
struct Head {
    /// Where the head starts in that text (its end when nothing of it is left).
    start: usize,
    file: Option<(Option<String>, Option<u32>)>,
    function: Option<String>,
    block: Option<[u32; 3]>,
    thread: Option<[u32; 3]>,
}

fn head(text: &str) -> Head {
    let p = patterns();
    let mut h = Head { start: text.len(), file: None, function: None, block: None, thread: None };
    // A head ends in its ids; without them, what stands before the core is not a head.
    let Some(c) = p.head_ids.captures(text) else { return h };
    h.start = c.get(0).map_or(h.start, |m| m.start());
    h.block = c.name("block").and_then(|m| triple(m.as_str()));
    h.thread = c.name("thread").and_then(|m| triple(m.as_str()));
    // Only a whole `block: [..], thread: [..]` has its function in front of it; a cut
    // fragment (`ad: [47,0,0]`) has the debris of a word there.
    if h.block.is_none() && c.name("block").is_none() {
        return h;
    }
    let before_ids = &text[..h.start];
    if let Some(c) = p.head_function.captures(before_ids) {
        let f = c["func"].trim();
        if short_function(f).is_some_and(|n| is_name(&n)) {
            h.function = Some(f.to_string());
            h.start = c.get(0).map_or(h.start, |m| m.start());
        }
        if let Some(file) = c.name("file") {
            h.file = Some((Some(clean_file(file.as_str())), c.name("lno").and_then(|m| m.as_str().parse().ok())));
            h.start = file.start();
        }
    }
    h
}

/// A function name as kernels print it (`nll_loss2d_forward_kernel`, `operator()`), not the
/// debris of a torn line.
fn is_name(n: &str) -> bool {
    n == "operator()"
        || (n.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
}

/// The last kernel source file named anywhere in `text`.
fn any_file(text: &str) -> Option<String> {
    patterns().any_file.find_iter(text).last().map(|m| clean_file(m.as_str()))
}

/// True when `norm` holds a kernel record, or the piece of one, that continues on the next
/// line (a terminal that hard-wraps at 80 columns, a paste that breaks lines): a head without
/// its `Assertion`, or a condition whose closing backtick is on the next line.
pub fn needs_next(norm: &str, parsed: &[Parsed]) -> bool {
    if !norm.contains("ssert") && !norm.contains("block:") {
        return false;
    }
    match parsed.last() {
        None => {
            let t = norm.trim();
            // A whole record that `parse` left out is a quotation, not a piece.
            let assertion = norm.contains("Assertion");
            !(assertion && patterns().kernel.is_match(norm))
                && ((assertion && patterns().kernel_partial.is_match(norm))
                    || (norm.contains("block:") && norm.contains("thread:"))
                    || t.ends_with("Assertion `"))
        }
        Some(last) => last.site.condition.is_none() && norm[last.end..].trim_start().starts_with('`'),
    }
}

/// True when `norm` ends in a whole head (`file:line: func: block: [..], thread: [..]`): the
/// record's core is on the next line.
pub fn ends_in_head(norm: &str) -> bool {
    if !(norm.contains("block:") || norm.contains("global id:")) {
        return false;
    }
    let h = head(norm);
    h.block.is_some() && h.file.is_some_and(|(f, _)| f.is_some())
}

/// True when the record `norm` starts with lost its head, which may be on the lines above (a
/// terminal hard-wrapped the record, and this is its last piece).
pub fn head_above(norm: &str, parsed: &[Parsed]) -> bool {
    parsed.first().is_some_and(|p| p.cut && norm[..p.start].trim().is_empty())
}

/// The value and bound in a verbose record's message, which follows its condition:
/// `: Expected 0 <= index < ind_dim_size(50257), but got index = 50260` gives `50260` and
/// `0 <= index < 50257` (a bound printed as `name(n)` or `name (n)` reads as its number).
pub fn offending(msg: &str) -> Option<Offending> {
    let rest = msg.trim_start().strip_prefix(':').unwrap_or(msg).trim_start();
    let rest = rest.strip_prefix("Expected")?;
    let (allowed, got) = rest.split_once(", but got")?;
    let value = got.split_once('=').map_or(got, |(_, v)| v).trim();
    let value: String = value.chars().take_while(|c| c.is_ascii_digit() || *c == '-').collect();
    if value.is_empty() || value == "-" {
        return None;
    }
    Some(Offending { value, allowed: bound_numbers(allowed.trim()) })
}

/// `0 <= index < ind_dim_size(50257)` → `0 <= index < 50257`.
fn bound_numbers(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(open) = rest.find('(') {
        let Some(close) = rest[open..].find(')').map(|c| open + c) else { break };
        let inner = &rest[open + 1..close];
        let head = rest[..open].trim_end();
        // Where the name before `(` starts: after the last character that is no part of one
        // (which may be several bytes long: a fuzzer found `ind_dim_s羫e(32000)`).
        let not_name = |(_, c): &(usize, char)| !(c.is_ascii_alphanumeric() || *c == '_');
        let name_start = head.char_indices().rev().find(not_name).map_or(0, |(i, c)| i + c.len_utf8());
        let named = name_start < head.len();
        if named && !inner.is_empty() && inner.trim().chars().all(|c| c.is_ascii_digit() || c == '-') {
            out.push_str(&rest[..name_start]);
            out.push_str(inner.trim());
        } else {
            out.push_str(&rest[..=close]);
        }
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
    out
}

/// Reads `x,y,z` (or `[x,y,z]`); torn records from interleaved threads (`60,0:115,0`) give
/// `None`.
pub fn triple(s: &str) -> Option<[u32; 3]> {
    let s = s.trim().trim_start_matches('[').trim_end_matches(']');
    let mut it = s.split(',').map(|p| p.trim().parse::<u32>());
    let t = [it.next()?.ok()?, it.next()?.ok()?, it.next()?.ok()?];
    it.next().is_none().then_some(t)
}

fn collapse_ws(s: &str) -> String {
    // Not `join`: its copy for `&str` would be the package's only one (1.2 KB).
    let mut out = String::with_capacity(s.len());
    for w in s.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(w);
    }
    out
}

/// Drops what a progress bar glued in front of the path (`4.65it/s/opt/conda/...`).
fn clean_file(f: &str) -> String {
    for glue in ["it/s]", "s/it]", "it/s", "s/it"] {
        if let Some(i) = f.rfind(glue) {
            let rest = &f[i + glue.len()..];
            if rest.contains(['/', '\\']) {
                return rest.to_string();
            }
        }
    }
    f.to_string()
}

fn dialect(file: &str, function: Option<&str>, translated: bool, sycl: bool) -> &'static str {
    if translated {
        "translated"
    } else if sycl {
        "sycl"
    } else if file.ends_with(".py") || function == Some("unknown") || file == "unknown" || file.starts_with('<') {
        "triton"
    } else if function.is_none() {
        "windows"
    } else if file.contains("/THC") || file.contains("\\THC") || function.is_some_and(|f| f.contains(" [with ")) {
        "thc"
    } else {
        "aten"
    }
}

/// The byte offset of the `open` that matches the `close` ending `s`.
fn matching_open(s: &str, open: char, close: char) -> Option<usize> {
    let mut depth = 0i32;
    for (i, c) in s.char_indices().rev() {
        if c == close {
            depth += 1;
        } else if c == open {
            depth -= 1;
            if depth == 0 {
                return Some(i);
            }
        }
    }
    None
}

/// The short name of a device function as printed: `void f<T>(int *, ...) [with T = float]`
/// gives `f`; `operator()` stays `operator()`.
pub fn short_function(f: &str) -> Option<String> {
    let mut f = f.trim();
    if let Some(i) = f.find(" [with ") {
        f = &f[..i];
    }
    if f.is_empty() {
        return None;
    }
    if f.ends_with("operator()") {
        return Some("operator()".into());
    }
    let mut head = f;
    if f.ends_with(')') {
        // Drop the parameter list.
        if let Some(o) = matching_open(f, '(', ')') {
            head = f[..o].trim_end();
        }
        if head.ends_with("operator") {
            return Some("operator()".into());
        }
    }
    // Drop a trailing template argument list.
    if head.ends_with('>') {
        if let Some(o) = matching_open(head, '<', '>') {
            head = head[..o].trim_end();
        }
    }
    let name = head.rsplit([' ', ':', '*', '&']).next().unwrap_or(head);
    (!name.is_empty()).then(|| name.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Records judged by their context (no "treat it as the error").
    fn parse(norm: &str, translated: bool) -> Vec<Parsed> {
        super::parse(norm, translated, Judge::default())
    }

    #[test]
    fn a_bound_keeps_its_numbers_whatever_stands_before_the_name() {
        assert_eq!(bound_numbers("0 <= index < ind_dim_size(50257)"), "0 <= index < 50257");
        // A name broken by a character of several bytes: no panic, the number still read.
        assert_eq!(bound_numbers("0 <= index < ind_dim_s羫e(32000)"), "0 <= index < ind_dim_s羫32000");
        assert_eq!(bound_numbers("é(7)"), "é(7)");
    }

    #[test]
    fn short_names() {
        assert_eq!(
            short_function("nll_loss_forward_reduce_cuda_kernel_2d").as_deref(),
            Some("nll_loss_forward_reduce_cuda_kernel_2d")
        );
        assert_eq!(
            short_function(
                "void indexSelectLargeIndex(TensorInfo<T, IndexType>, long) [with T = float, IndexType = unsigned int]"
            )
            .as_deref(),
            Some("indexSelectLargeIndex")
        );
        assert_eq!(short_function("operator()").as_deref(), Some("operator()"));
        assert_eq!(
            short_function("void at::native::(anonymous namespace)::nll_loss_forward_reduce_cuda_kernel_2d<float, float, long>(float *, long)").as_deref(),
            Some("nll_loss_forward_reduce_cuda_kernel_2d")
        );
    }

    #[test]
    fn records_in_one_paragraph_are_all_found() {
        let n = "IndexKernel.cu:92:operator():block:[3,0,0],thread:[86,0,0] Assertion failed. ../aten/src/ATen/native/cuda/IndexKernel.cu:92: operator(): block: [3,0,0], thread: [87,0,0] Assertion failed.";
        let v = parse(n, true);
        assert_eq!(v.len(), 2);
        assert_eq!(v[1].site.thread, Some([87, 0, 0]));
        assert!(v.iter().all(|p| p.dialect == "translated" && p.site.condition.is_none()));
    }

    #[test]
    fn progress_bar_glue_is_not_part_of_the_path() {
        let n = " 2%|#  | 2/100 [00:00<01:47,  4.65it/s/opt/conda/work/aten/src/ATen/native/cuda/ScatterGatherKernel.cu:86: operator(): block: [830,0,0], thread: [48,0,0] Assertion `idx_dim >= 0 && idx_dim < index_size && \"index out of bounds\"` failed.";
        let v = parse(n, false);
        assert_eq!(v[0].site.file, "/opt/conda/work/aten/src/ATen/native/cuda/ScatterGatherKernel.cu");
        assert_eq!(v[0].site.file_name(), "ScatterGatherKernel.cu");
    }

    #[test]
    fn wrapped_pieces_are_partial() {
        let a = "ng) [with T = float]: block: [17,0,0], thread: [765,0,0] Assertion `";
        assert!(needs_next(a, &parse(a, false)));
        let b = "/x/Loss.cu:1: f: block: [0,0,0], thread: [0,0,0] Assertion `t >= 0 &&";
        assert!(needs_next(b, &parse(b, false)));
        let tail = "Assertion `t >= 0 && t < n_classes` failed.";
        assert!(!needs_next(tail, &parse(tail, false)));
        assert!(head_above(tail, &parse(tail, false)));
        let c = "/x/Loss.cu:1: f: block: [0,0,0], thread: [0,0,0] Assertion `t >= 0` failed.";
        assert!(!needs_next(c, &parse(c, false)) && !head_above(c, &parse(c, false)));
    }

    /// A record read by its core: whatever is left of its head, the condition always.
    #[test]
    fn records_without_their_heads() {
        let one = |s: &str| {
            let v = parse(s, false);
            assert_eq!(v.len(), 1, "{s}: {v:?}");
            v.into_iter().next().unwrap()
        };
        let r = one("Assertion `t >= 0 && t < n_classes` failed.");
        assert!(r.cut && r.site.condition.as_deref() == Some("t >= 0 && t < n_classes"));
        let r = one("ad: [47,0,0] Assertion `srcIndex < srcSelectDimSize` failed.");
        assert_eq!((r.site.thread, r.dialect), (Some([47, 0, 0]), CUT));
        let r = one(": nll_loss2d_forward_kernel: block: [3,0,0], thread: [674,0,0] Assertion `t >= 0 && t < n_classes` failed.");
        assert_eq!(r.site.name.as_deref(), Some("nll_loss2d_forward_kernel"));
        assert_eq!((r.site.block, r.site.thread), (Some([3, 0, 0]), Some([674, 0, 0])));
        // Torn by another process's output: the file is somewhere in the line.
        let r = one(",0,0/pytorch/aten/src/ATen/native/cuda/ScatterGatherKernel.cu], thread: [60,0:115,0], thread: [16: operator(),0,0: block: [12] Assertion `idx_dim >= 0 && idx_dim < index_size && \"index out of bounds\",0,0` failed.");
        assert_eq!(r.site.file_name(), "ScatterGatherKernel.cu");
        assert!(!r.cut);
        // Triton's and Inductor's heads.
        for (line, file, func) in [
            ("unknown:0: unknown: block: [3,0,0], thread: [9,0,0] Assertion `index out of bounds: 0 <= tmp4 < ks0` failed.", "unknown", "unknown"),
            ("<frozen importlib._bootstrap_external>:843: _call_with_frames_removed: block: [45,2,0], thread: [32,0,0] Assertion `index out of bounds: 0 <= tmp4 < 24` failed.", "<frozen importlib._bootstrap_external>", "_call_with_frames_removed"),
            ("/tmp/torchinductor_u/3f/c3fabcdef0123.py:22: triton_poi_fused_embedding_0: block: [1,0,0], thread: [2,0,0] Assertion `index out of bounds: 0 <= tmp3 < libdevice.trunc(0.12*(ks0.to(tl.float64))).to(tl.int32)` failed.", "/tmp/torchinductor_u/3f/c3fabcdef0123.py", "triton_poi_fused_embedding_0"),
        ] {
            let r = one(line);
            assert_eq!((r.site.file.as_str(), r.site.function.as_deref(), r.dialect), (file, Some(func), "triton"), "{line}");
        }
        // Glued to each other and to what follows.
        let v = parse("/x/Loss.cu:1: f: block: [0,0,0], thread: [1,0,0] Assertion `a` failed./x/Loss.cu:1: f: block: [0,0,0], thread: [2,0,0] Assertion `a` failed.RuntimeError: CUDA error: device-side assert triggered", false);
        assert_eq!(v.len(), 2);
        // The printf form.
        let r = one("[CUDA_KERNEL_ASSERT] block: [1,0,0], thread: [2,0,0]: Assertion failed: `x < n`: value 9");
        assert_eq!(r.site.condition.as_deref(), Some("x < n"));
        // Not device-side: a CPU assert closes its condition with a quote.
        assert!(parse(
            "RuntimeError: Assertion `cur_target >= 0 && cur_target < n_classes' failed.  at /x/ClassNLLCriterion.c:92",
            false
        )
        .is_empty());
        // Quoted.
        assert!(parse("If you see `Assertion `t >= 0 && t < n_classes` failed.`, check the labels.", false).is_empty());
        assert!(parse("    assert ok, \"Assertion `x` failed\"", false).is_empty());
    }

    #[test]
    fn torn_thread_ids_are_dropped_not_misread() {
        assert_eq!(triple("60,0:115,0"), None);
        assert_eq!(triple(" 1, 2 ,3"), Some([1, 2, 3]));
    }

    #[test]
    fn a_verbose_record_gives_its_value_and_bound() {
        let got = |m: &str| offending(m).map(|o| (o.value, o.allowed));
        let s = |a: &str, b: &str| Some((a.to_string(), b.to_string()));
        assert_eq!(
            got(": Expected 0 <= index < ind_dim_size(50257), but got index = 50260"),
            s("50260", "0 <= index < 50257")
        );
        assert_eq!(got(": Expected 0 <= idx_dim < index_size (5), but got idx_dim = -7"), s("-7", "0 <= idx_dim < 5"));
        assert_eq!(
            got(": Expected 0 <= index < self_dim_size(64), but got index = 70 trailing"),
            s("70", "0 <= index < 64")
        );
        // A bound that is an expression, not a name's number, stays as printed.
        assert_eq!(got(": Expected 0 <= i < (n + 1), but got i = 9"), s("9", "0 <= i < (n + 1)"));
        // Messages without a value: none.
        assert_eq!(got(": value cannot be safely converted without overflow: numel"), None);
        assert_eq!(got(": Expected 0 <= i < 4, but got i = ?"), None);
        // The parsed record says it is verbose, and carries them.
        let v = parse("[CUDA_KERNEL_ASSERT] /p/IndexKernelUtils.cu:16: vectorized_gather_kernel: block: [1,0,0], thread: [2,0,0]: Assertion failed: `ind >=0`: Expected 0 <= index < n(9), but got index = 11", false);
        assert_eq!(v.len(), 1);
        assert!(v[0].verbose);
        assert_eq!(v[0].offending.as_ref().map(|o| o.value.as_str()), Some("11"));
        let v = parse("/p/IndexKernelUtils.cu:16: vectorized_gather_kernel: block: [1,0,0], thread: [2,0,0] Assertion `ind >=0` failed.", false);
        assert!(!v[0].verbose && v[0].offending.is_none());
    }
}
