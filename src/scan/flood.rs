//! Floods: a failing kernel prints one record per failing thread, thousands of lines that
//! differ only in their block and thread ids. A line that repeats the last record with other ids
//! is counted without being read again: by its normalised text ([`Memo`]), or by its raw bytes
//! compared with the last line in one masked pass ([`RawMemo`], SIMD where there is some).

use super::kernel::{triple, Parsed};
use crate::facts::SiteAgg;
use crate::memo::same;

/// The last line that held exactly one kernel record, to read its repeats cheaply.
///
/// A failing kernel prints one record per failing thread: thousands of lines that differ only
/// in their block and thread ids. When a line is the remembered one with other ids, its
/// record is the remembered record with those ids, so the pattern need not run again. (The
/// ids are digits, commas and spaces, which the pattern reads inside the brackets only: the
/// match is the same up to those ids.) This keeps floods cheap where the regex engine is slow
/// (the WebAssembly build).
#[derive(Default)]
pub struct Memo {
    /// The remembered line with its ids cut out, and the ids' total length.
    template: String,
    ids_len: usize,
    translated: bool,
    parsed: Option<Parsed>,
}

/// A line's `block: [..]` and `thread: [..]` contents, when it has exactly one of each (in
/// that order) and they hold only digits, commas and spaces.
struct Ids<'a> {
    template: String,
    block: &'a str,
    thread: &'a str,
    /// Where the thread bracket closes.
    end: usize,
}

fn ids(norm: &str) -> Option<Ids<'_>> {
    const B: &str = "block: [";
    const T: &str = "thread: [";
    let bracket = |from: usize, key: &str| -> Option<(usize, usize)> {
        let open = from + norm[from..].find(key)? + key.len();
        let close = open + norm[open..].find(']')?;
        Some((open, close))
    };
    let (b0, b1) = bracket(0, B)?;
    let (t0, t1) = bracket(b1, T)?;
    if norm[t1..].contains(B) || norm[t1..].contains(T) {
        return None;
    }
    let (block, thread) = (&norm[b0..b1], &norm[t0..t1]);
    let plain = |s: &str| s.bytes().all(|c| c.is_ascii_digit() || c == b',' || c == b' ');
    if !plain(block) || !plain(thread) {
        return None;
    }
    // Pushed, not `concat`: the package then has no copy of `join` for `&str` (1.2 KB).
    let mut template = String::with_capacity(norm.len());
    for part in [&norm[..b0], &norm[b1..t0], &norm[t1..]] {
        template.push_str(part);
    }
    Some(Ids { template, block, thread, end: t1 })
}

impl Memo {
    /// Whether a record is remembered.
    pub fn is_set(&self) -> bool {
        self.parsed.is_some()
    }

    /// The record of `norm` when it is the remembered line with other ids.
    pub fn repeat(&self, norm: &str, translated: bool) -> Option<Parsed> {
        let last = self.parsed.as_ref()?;
        let ids = ids(norm)?;
        if ids.template != self.template || translated != self.translated {
            return None;
        }
        let mut p = last.clone();
        p.end = p.end - self.ids_len + ids.block.len() + ids.thread.len();
        p.site.block = triple(ids.block);
        p.site.thread = triple(ids.thread);
        Some(p)
    }

    /// Remembers `norm` and what [`super::kernel::parse`] found in it, when that is one record whose ids
    /// [`Memo::repeat`] can replace.
    pub fn remember(&mut self, norm: &str, translated: bool, parsed: &[Parsed]) {
        self.parsed = None;
        if let (Some(ids), [one]) = (ids(norm), parsed) {
            // Only a record that spans both brackets read as ids can be reused.
            let spans = one.start < ids.end && one.end > ids.end;
            if spans && one.site.block == triple(ids.block) && one.site.thread == triple(ids.thread) {
                self.ids_len = ids.block.len() + ids.thread.len();
                self.template = ids.template;
                self.translated = translated;
                self.parsed = Some(one.clone());
            }
        }
    }
}

/// The last record line as raw bytes, for the scanner's fastest path: a line that is the
/// remembered one with other block and thread ids (digits and commas only) is the same record
/// as far as every reader is concerned, so it is only counted, before it is even decoded. The
/// scanner remembers only lines that decoding and normalising leave as they are.
///
/// A flood's next line is most often the last one again with other digits in the same places
/// (thread 5 after thread 4): [`RawMemo::next`] tries that first, with one comparison of the
/// whole line against the last one, the id runs masked out, and reads only the ids that
/// changed.
#[derive(Default)]
pub struct RawMemo {
    /// The line up to the block ids, between them and the thread ids, after the thread ids.
    pre: Vec<u8>,
    mid: Vec<u8>,
    post: Vec<u8>,
    /// The site the record counts into (`None` when it was not kept).
    pub site: Option<usize>,
    /// Whether the remembered line is plain ASCII (and so every repeat of it).
    pub plain: bool,
    active: bool,
    /// The last line counted (without its line end), and 0 where its ids are, 0xff elsewhere.
    last: Vec<u8>,
    mask: Vec<u8>,
    /// Its block ids and thread ids, and where they are in it.
    ids: BlockThread,
    spans: [usize; 4],
}

/// A flood's line counted by [`RawMemo::next`]: its length with its line end, and its ids;
/// `block` is `None` when its block ids are the last line's.
pub struct Repeat {
    pub len: usize,
    pub block: Option<Option<[u32; 3]>>,
    pub thread: Option<[u32; 3]>,
}

impl RawMemo {
    /// Remembers `raw`, a line whose single record was just counted into `site`.
    pub fn remember(&mut self, raw: &[u8], site: Option<usize>) {
        self.active = false;
        let Ok(line) = std::str::from_utf8(raw) else { return };
        let Some(ids) = ids(line) else { return };
        // Offsets of the two id runs in the line.
        let t1 = ids.end;
        let t0 = t1 - ids.thread.len();
        let Some(bpos) = line.find("block: [") else { return };
        let b0 = bpos + "block: [".len();
        let b1 = b0 + ids.block.len();
        if !plain_ids(ids.block.as_bytes())
            || !plain_ids(ids.thread.as_bytes())
            || raw.get(b1).is_none_or(|c| is_id_byte(*c))
        {
            return;
        }
        self.pre = raw[..b0].to_vec();
        self.mid = raw[b1..t0].to_vec();
        self.post = raw[t1..].to_vec();
        self.site = site;
        self.plain = crate::find::plain::is_plain(raw);
        self.active = true;
        self.last_is(
            raw,
            (
                plain_triple(ids.block.as_bytes()).and_then(|t| t.0),
                plain_triple(ids.thread.as_bytes()).and_then(|t| t.0),
            ),
            b1 - b0,
        );
    }

    /// Keeps `raw`, a repeat whose ids are `ids` and whose block ids take `block_len` bytes,
    /// as the line the next one is compared with.
    fn last_is(&mut self, raw: &[u8], ids: BlockThread, block_len: usize) {
        let (b0, t1) = (self.pre.len(), raw.len() - self.post.len());
        let (b1, t0) = (b0 + block_len, b0 + block_len + self.mid.len());
        self.last.clear();
        self.last.extend_from_slice(raw);
        self.mask.clear();
        self.mask.resize(raw.len(), 0xff);
        self.mask[b0..b1].fill(0);
        self.mask[t0..t1].fill(0);
        self.ids = ids;
        self.spans = [b0, b1, t0, t1];
    }

    /// Counts the flood's lines at the start of `buf`, one after another, into `site` (the
    /// first at line `line`): the bytes and the lines they took. (One call for a run of
    /// repeats, not one a line.)
    pub fn count_repeats(&mut self, buf: &[u8], mut site: Option<&mut SiteAgg>, line: u64) -> (usize, u64) {
        let (mut used, mut lines) = (0, 0);
        while let Some(r) = self.next(&buf[used..]) {
            if let Some(s) = site.as_deref_mut() {
                // Block ids that are the last line's are in the set and the range already.
                s.add(r.block.flatten(), r.thread, line + lines);
            }
            used += r.len;
            lines += 1;
        }
        (used, lines)
    }

    /// The flood's line at the start of `buf` (which holds its line end), counted as
    /// [`RawMemo::repeat`] would count it: the last line with other digits in its id runs, or
    /// else any repeat of the remembered one. `None` when it is neither (or its end is not in
    /// `buf`).
    #[inline(always)]
    pub fn next(&mut self, buf: &[u8]) -> Option<Repeat> {
        if !self.active {
            return None;
        }
        let n = self.last.len();
        let end = match (buf.get(n), buf.get(n + 1)) {
            (Some(b'\n'), _) => Some(n + 1),
            (Some(b'\r'), Some(b'\n')) => Some(n + 2),
            _ => None,
        };
        if let Some(len) = end {
            let line = &buf[..n];
            if n > 0 && same_masked(line, &self.last, &self.mask) {
                let [b0, b1, t0, t1] = self.spans;
                let block = match differs(line, &self.last, b0, b1) {
                    false => None,
                    true => Some(span_ids(&line[b0..b1])?),
                };
                let thread = match differs(line, &self.last, t0, t1) {
                    false => self.ids.1,
                    true => span_ids(&line[t0..t1])?,
                };
                if let Some(b) = block {
                    self.ids.0 = b;
                    copy_span(line, &mut self.last, b0, b1);
                }
                self.ids.1 = thread;
                copy_span(line, &mut self.last, t0, t1);
                return Some(Repeat { len, block, thread });
            }
        }
        // Another length: the ids took other widths (thread 10 after thread 9).
        let i = memchr::memchr(b'\n', buf)?;
        let raw = &buf[..i - usize::from(i > 0 && buf[i - 1] == b'\r')];
        let (block, thread) = self.repeat(raw)?;
        let inner = &raw[self.pre.len()..];
        let block_len = inner.iter().position(|c| !is_id_byte(*c)).unwrap_or(inner.len());
        self.last_is(raw, (block, thread), block_len);
        Some(Repeat { len: i + 1, block: Some(block), thread })
    }

    pub fn forget(&mut self) {
        self.active = false;
    }

    /// Whether a line is remembered.
    pub fn is_active(&self) -> bool {
        self.active
    }

    /// The block and thread ids of `raw` when it is the remembered line with other ids.
    pub fn repeat(&self, raw: &[u8]) -> Option<BlockThread> {
        let (pre, mid, post) = (self.pre.len(), self.mid.len(), self.post.len());
        if !self.active || raw.len() < pre + mid + post + 2 {
            return None;
        }
        let inner = &raw[pre..raw.len() - post];
        if !same(&raw[..pre], &self.pre) || !same(&raw[raw.len() - post..], &self.post) {
            return None;
        }
        // The block ids run up to the first byte that is not a digit or a comma; `mid` starts
        // with such a byte (`remember` checks), and the thread ids run to the end.
        let (block, used) = plain_triple(inner)?;
        let rest = &inner[used..];
        if rest.len() <= mid || !same(&rest[..mid], &self.mid) {
            return None;
        }
        let (thread, used) = plain_triple(&rest[mid..])?;
        (used == rest.len() - mid).then_some((block, thread))
    }
}

/// Whether bytes `[from, to)` of `a` and `b` differ. (Plain loops and no calls, for the
/// size-built package: these run twice a line in a flood.)
#[inline(always)]
fn differs(a: &[u8], b: &[u8], from: usize, to: usize) -> bool {
    let mut i = from;
    while i < to {
        if a[i] != b[i] {
            return true;
        }
        i += 1;
    }
    false
}

/// Copies bytes `[from, to)` of `line` to `last`.
#[inline(always)]
fn copy_span(line: &[u8], last: &mut [u8], from: usize, to: usize) {
    let mut i = from;
    while i < to {
        last[i] = line[i];
        i += 1;
    }
}

/// The ids that are all of `r` (see [`plain_triple`]); `None` when they are not ids at all
/// or stop short of its end.
#[inline(always)]
fn span_ids(r: &[u8]) -> Option<Option<[u32; 3]>> {
    match plain_triple(r) {
        Some((ids, used)) if used == r.len() => Some(ids),
        _ => None,
    }
}

/// A record's block and thread ids.
pub type BlockThread = (Option<[u32; 3]>, Option<[u32; 3]>);

/// `a == b` where `mask` is 0xff (`a`, `b` and `mask` have one length); in WebAssembly 16 bytes
/// at a time.
#[cfg(not(any(target_arch = "x86_64", all(target_arch = "wasm32", target_feature = "simd128"))))]
fn same_masked(a: &[u8], b: &[u8], mask: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).zip(mask).all(|((x, y), m)| (x ^ y) & m == 0)
}

/// (SSE2, which every x86-64 CPU has.)
#[cfg(target_arch = "x86_64")]
fn same_masked(a: &[u8], b: &[u8], mask: &[u8]) -> bool {
    use std::arch::x86_64::{
        __m128i, _mm_and_si128, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_setzero_si128, _mm_xor_si128,
    };
    let n = a.len();
    if n < 16 || b.len() != n || mask.len() != n {
        return a.iter().zip(b).zip(mask).all(|((x, y), m)| (x ^ y) & m == 0);
    }
    // 16 bytes at a time, the last 16 overlapping the ones before.
    let differ = |i: usize| {
        // SAFETY: `i + 16 <= n`, the length of all three: the loads are inside them (unaligned).
        unsafe {
            let load = |s: &[u8]| _mm_loadu_si128(s.as_ptr().add(i) as *const __m128i);
            let d = _mm_and_si128(_mm_xor_si128(load(a), load(b)), load(mask));
            _mm_movemask_epi8(_mm_cmpeq_epi8(d, _mm_setzero_si128())) != 0xffff
        }
    };
    let mut i = 0;
    while i + 16 < n {
        if differ(i) {
            return false;
        }
        i += 16;
    }
    !differ(n - 16)
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[inline(always)]
fn same_masked(a: &[u8], b: &[u8], mask: &[u8]) -> bool {
    use core::arch::wasm32::{v128, v128_and, v128_any_true, v128_load, v128_xor};
    let n = a.len();
    if n < 16 || b.len() != n || mask.len() != n {
        return a.iter().zip(b).zip(mask).all(|((x, y), m)| (x ^ y) & m == 0);
    }
    // 16 bytes at a time, the last 16 overlapping the ones before. (A function, not a
    // closure: the size-built package keeps a closure a call.)
    #[inline(always)]
    fn differ(a: &[u8], b: &[u8], mask: &[u8], i: usize) -> bool {
        // SAFETY: the caller keeps `i + 16` within the length of all three: the loads are
        // inside them (unaligned).
        unsafe {
            let (x, y, m) = (
                a.as_ptr().add(i) as *const v128,
                b.as_ptr().add(i) as *const v128,
                mask.as_ptr().add(i) as *const v128,
            );
            v128_any_true(v128_and(v128_xor(v128_load(x), v128_load(y)), v128_load(m)))
        }
    }
    let mut i = 0;
    while i + 16 < n {
        if differ(a, b, mask, i) {
            return false;
        }
        i += 16;
    }
    !differ(a, b, mask, n - 16)
}

fn is_id_byte(c: u8) -> bool {
    c.is_ascii_digit() || c == b','
}

fn plain_ids(b: &[u8]) -> bool {
    !b.is_empty() && b.iter().all(|c| is_id_byte(*c))
}

/// The ids at the start of `b`, read as [`triple`] reads them, up to the first byte that is
/// neither a digit nor a comma: the ids (`None` when they are not three numbers) and how many
/// bytes they took (none: not ids at all). One pass, byte by byte: a flood reads two per line,
/// and going through `str` (trim, split, parse) was half the time of a flood in wasm.
/// (Inlined where it is called: in a flood's loop, the call and its returned value through
/// memory were a tenth of the package's time; 0.6 KB gzipped.)
#[inline(always)]
fn plain_triple(b: &[u8]) -> Option<(Option<[u32; 3]>, usize)> {
    // (Plain comparisons and no calls: the package is built for size, which would make each
    // helper a call, and this runs twice a line in a flood.)
    const HELD: u64 = 1 << 32;
    let (mut t, mut cur) = ([0u64; 3], 0u64);
    let (mut k, mut digits, mut ok) = (0usize, 0u32, true);
    let mut used = 0;
    while used < b.len() {
        let c = b[used];
        if c == b',' {
            ok &= digits > 0 && k < 2;
            if k < 2 {
                t[k] = cur;
                k += 1;
            }
            cur = 0;
            digits = 0;
        } else if c.wrapping_sub(b'0') < 10 {
            // Held at 2^32 once past u32::MAX (leading zeros are fine): no overflow.
            cur = cur * 10 + u64::from(c - b'0');
            if cur > HELD {
                cur = HELD;
            }
            digits += 1;
        } else {
            break;
        }
        used += 1;
    }
    t[2] = cur;
    ok &= k == 2 && digits > 0 && t[0] < HELD && t[1] < HELD && t[2] < HELD;
    (used > 0).then_some((ok.then_some([t[0] as u32, t[1] as u32, t[2] as u32]), used))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(norm: &str, translated: bool) -> Vec<Parsed> {
        crate::scan::kernel::parse(norm, translated, crate::scan::context::Judge::default())
    }

    #[test]
    fn plain_triple_reads_ids_as_triple_does() {
        // Every string of up to 8 bytes over digits and commas, and the edges of u32.
        let mut cases: Vec<String> = vec!["4294967295,0,0".into(), "4294967296,0,0".into(), "0,0,00000000001".into()];
        let alphabet = ['0', '7', '9', ','];
        for len in 1..=8u32 {
            for n in 0..alphabet.len().pow(len) {
                let mut k = n;
                cases.push(
                    (0..len)
                        .map(|_| {
                            let c = alphabet[k % 4];
                            k /= 4;
                            c
                        })
                        .collect(),
                );
            }
        }
        for c in cases {
            assert_eq!(plain_triple(c.as_bytes()), Some((triple(&c), c.len())), "{c:?}");
            let tail = format!("{c}] x");
            assert_eq!(plain_triple(tail.as_bytes()), Some((triple(&c), c.len())), "{c:?}");
        }
        assert_eq!(plain_triple(b"] 1,2,3"), None);
    }

    #[test]
    fn the_memo_reads_every_line_as_parse_does() {
        let rec = |file: &str, b: &str, t: &str, cond: &str| {
            format!("{file}:92: operator(): block: [{b}], thread: [{t}] Assertion `{cond}` failed.")
        };
        let f = "/pytorch/aten/src/ATen/native/cuda/IndexKernel.cu";
        let mut lines = Vec::new();
        for i in 0..40u32 {
            lines.push(rec(f, &format!("{},0,0", i / 7), &format!("{},0,0", i * 13 % 128), "index < size"));
        }
        lines.extend([
            rec(f, "1,0,0", "2,0,0", "other < cond"),
            rec(f, "1,0,0", "2,0,0", "other < cond"),
            rec("/x/Loss.cu", "1,0,0", "2,0,0", "other < cond"),
            rec(f, "100000,0,0", "99999 , 1, 2", "other < cond"),
            rec(f, "60,0:115,0", "2,0,0", "other < cond"),
            rec(f, "1,0,0", "2,0,0", "other < cond") + " " + &rec(f, "3,0,0", "4,0,0", "x"),
            rec(f, "1,0,0", "2,0,0", "other < cond").replace(" Assertion", " thread: [1,1,1] Assertion"),
            rec(f, "1,0,0", "2,0,0", "other < cond").replace("failed.", ""),
            rec(f, "1,0,0", "2,0,0", "other < cond").replace("`other < cond` failed.", "`other "),
            rec(f, "1,0,0", "2,0,0", "other < cond"),
            "block: [1,0,0], thread: [2,0,0]".to_string(),
            "block: [1,0,0], thread: [3,0,0]".to_string(),
            rec(f, "", "", "empty ids"),
            rec(f, "5", "6", "empty ids"),
        ]);
        let mut memo = Memo::default();
        let mut reused = 0;
        for translated in [false, true, false] {
            for l in &lines {
                let got = match memo.repeat(l, translated) {
                    Some(p) => {
                        reused += 1;
                        vec![p]
                    }
                    None => {
                        let v = parse(l, translated);
                        memo.remember(l, translated, &v);
                        v
                    }
                };
                assert_eq!(got, parse(l, translated), "{l}");
            }
        }
        assert!(reused > 100, "the memo was used {reused} times");
        // Other lines in between: nothing is reused across them by the scanner (it forgets),
        // and a changed template is never taken for a repeat.
        memo.remember(&lines[0], false, &parse(&lines[0], false));
        assert!(memo.repeat(&lines[1], true).is_none());
        assert!(memo.repeat(&lines[40], false).is_none());
    }

    /// `next`, which compares a line with the last one and reads only the ids that changed,
    /// counts the lines `repeat` counts, with the same ids: lines of every id width, with
    /// spaces, brackets, letters and newlines put in the id runs and elsewhere, CR line ends,
    /// and lines that are not repeats at all.
    #[test]
    fn the_next_repeat_is_read_as_repeat_reads_it() {
        let rec = |b: &str, t: &str| {
            format!("../aten/src/ATen/native/cuda/Loss.cu:242: nll_fwd: block: [{b}], thread: [{t}] Assertion `t >= 0` failed.")
        };
        let mut seed = 0x1234_5678_u32;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            seed as usize
        };
        let (mut fast, mut counted) = (0, 0);
        for round in 0..400 {
            let mut memo = RawMemo::default();
            let first = rec("0,0,0", "0,0,0");
            memo.remember(first.as_bytes(), Some(0));
            assert!(memo.is_active());
            let mut ids = (Some([0, 0, 0]), Some([0, 0, 0]));
            for _ in 0..60 {
                let id = |n: usize| {
                    [n.to_string(), format!("{n},0,0"), format!("{n},{},0", n % 3), "7,0".into(), "9 ,0,0".into()]
                };
                let (b, t) = (next() % 3000, next() % 3000);
                let pick = |v: [String; 5], k: usize| v[if k % 10 < 8 { 1 } else { k % 5 }].clone();
                let mut line =
                    rec(&pick(id(b / 128), next()), &pick(id(t % 128 + round % 2 * 1000), next())).into_bytes();
                if next() % 12 == 0 {
                    let at = next() % line.len();
                    line[at] = [b' ', b']', b'x', b'\n', b'5', b','][next() % 6];
                }
                let end: &[u8] = if next() % 4 == 0 { b"\r\n" } else { b"\n" };
                let buf = [line.as_slice(), end, b"next line\n"].concat();
                let i = memchr::memchr(b'\n', &buf).unwrap();
                let raw = &buf[..i - usize::from(i > 0 && buf[i - 1] == b'\r')];
                let want = memo.repeat(raw);
                let plain_len = memo.last.len();
                let got = memo.next(&buf);
                fast += usize::from(got.is_some() && raw.len() == plain_len);
                match (want, got) {
                    (Some((wb, wt)), Some(r)) => {
                        counted += 1;
                        assert_eq!(r.len, i + 1, "{:?}", String::from_utf8_lossy(raw));
                        assert_eq!(
                            (r.block.unwrap_or(ids.0), r.thread),
                            (wb, wt),
                            "{:?}",
                            String::from_utf8_lossy(raw)
                        );
                        ids = (wb, wt);
                    }
                    (None, None) => {}
                    (w, g) => panic!(
                        "{:?}: repeat {w:?}, next {:?}",
                        String::from_utf8_lossy(raw),
                        g.map(|r| (r.block, r.thread))
                    ),
                }
            }
        }
        assert!(fast > 5000 && counted > 15000, "{fast} fast of {counted}");
    }
}
