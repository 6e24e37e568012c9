//! Where the next line worth reading starts: the first place where any keyword begins.
//!
//! The CLI uses aho-corasick, whose SIMD prefilter skips a training log at gigabytes a second,
//! and, on a CPU with AVX-512 VBMI, [`Exact`]: the same search by exact byte tables, 64 bytes
//! at a time, that also counts the newlines it passes and tells whether the bytes were plain
//! ASCII, in the one pass over memory that the scan makes ([`Keywords::survey`]).
//! The WebAssembly package would pay ~20 KB gzipped for aho-corasick, so it uses [`PairFilter`]:
//! a nibble filter on three bytes, 16 positions at a time with WebAssembly SIMD, then a bitmap
//! of the keywords' first two bytes and a comparison only where the filter lets a position
//! through; it counts and checks in the same pass. All answer the same (the tests compare them).

use super::plain::is_plain;

/// A set of keywords to search for.
pub struct Keywords {
    #[cfg(not(target_arch = "wasm32"))]
    ac: aho_corasick::AhoCorasick,
    #[cfg(target_arch = "x86_64")]
    exact: Option<Exact>,
    #[cfg(target_arch = "wasm32")]
    pairs: PairFilter,
}

/// What [`Keywords::survey`] saw of the bytes before the first keyword (all of them when there
/// is none).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Survey {
    /// Where the first keyword starts.
    pub at: Option<usize>,
    /// The newlines before it.
    pub newlines: u64,
    /// Whether every byte before it is plain ASCII (see [`super::plain`]).
    pub plain: bool,
}

impl Survey {
    /// What a survey says of `hay` when its first keyword is at `at`, counted the plain way
    /// (the paths that do not count as they search).
    fn upto(hay: &[u8], at: Option<usize>) -> Survey {
        let before = &hay[..at.unwrap_or(hay.len())];
        Survey { at, newlines: memchr::memchr_iter(b'\n', before).count() as u64, plain: is_plain(before) }
    }
}

impl Keywords {
    /// The set of `words` (none of them empty).
    pub fn new(words: &[&str]) -> Keywords {
        #[cfg(not(target_arch = "wasm32"))]
        let k = Keywords {
            // A contiguous NFA: its SIMD prefilter does the search all the same, and it builds
            // in a fraction of a DFA's time (a DFA of these sets took ~10 ms at every start).
            ac: aho_corasick::AhoCorasick::builder()
                .match_kind(aho_corasick::MatchKind::LeftmostFirst)
                .kind(Some(aho_corasick::AhoCorasickKind::ContiguousNFA))
                .build(words)
                .expect("keywords compile"),
            #[cfg(target_arch = "x86_64")]
            exact: Exact::available().then(|| Exact::new(words)),
        };
        #[cfg(target_arch = "wasm32")]
        let k = Keywords { pairs: PairFilter::new(words) };
        k
    }

    /// Where the first keyword in `hay` starts.
    pub fn find(&self, hay: &[u8]) -> Option<usize> {
        #[cfg(target_arch = "x86_64")]
        if let Some(e) = &self.exact {
            return e.survey(hay).at;
        }
        #[cfg(not(target_arch = "wasm32"))]
        let at = self.ac.find(hay).map(|m| m.start());
        #[cfg(target_arch = "wasm32")]
        let at = self.pairs.find(hay);
        at
    }

    /// Where the first keyword in `hay` starts, with the newlines before it and whether the
    /// bytes before it are plain ASCII: one pass over `hay` where the CPU allows.
    pub fn survey(&self, hay: &[u8]) -> Survey {
        #[cfg(target_arch = "x86_64")]
        if let Some(e) = &self.exact {
            return e.survey(hay);
        }
        #[cfg(target_arch = "wasm32")]
        return self.pairs.survey(hay);
        #[cfg(not(target_arch = "wasm32"))]
        Survey::upto(hay, self.find(hay))
    }
}

/// Finds keywords with AVX-512 VBMI, 64 positions at a time, as Teddy does but with exact
/// tables: each keyword is put in one of 8 buckets, and three 128-entry tables (one `vpermi2b`
/// each) say which buckets may start at a position given its byte and the next two (bytes past
/// 0x7f are looked up by their low seven bits, which only adds candidates). Only candidates are
/// compared. The same pass counts newlines and notes bytes that are not plain, and it asks for
/// the memory 4 KB ahead: the CPU's own prefetcher stops at every page, and this search is
/// otherwise as slow as the memory that feeds it.
#[cfg(target_arch = "x86_64")]
pub struct Exact {
    /// Bucket masks by byte: for the first, second and third byte of a keyword.
    tables: [[u8; 128]; 3],
    /// The keywords in each bucket.
    buckets: [Vec<Box<[u8]>>; 8],
}

#[cfg(target_arch = "x86_64")]
impl Exact {
    /// Whether this CPU can run it.
    pub fn available() -> bool {
        std::arch::is_x86_feature_detected!("avx512bw") && std::arch::is_x86_feature_detected!("avx512vbmi")
    }

    pub fn new(words: &[&str]) -> Exact {
        let mut tables = [[0u8; 128]; 3];
        let mut buckets: [Vec<Box<[u8]>>; 8] = Default::default();
        for (k, w) in words.iter().map(|w| w.as_bytes()).filter(|w| !w.is_empty()).enumerate() {
            let bucket = 1u8 << (k % 8);
            for (j, table) in tables.iter_mut().enumerate() {
                match w.get(j) {
                    Some(&b) => table[usize::from(b & 0x7f)] |= bucket,
                    // A shorter keyword lets any byte through there.
                    None => table.iter_mut().for_each(|m| *m |= bucket),
                }
            }
            buckets[k % 8].push(w.into());
        }
        Exact { tables, buckets }
    }

    /// See [`Keywords::survey`]. Only call it where [`Exact::available`] said yes.
    pub fn survey(&self, hay: &[u8]) -> Survey {
        // SAFETY: `Keywords::new` makes an `Exact` only where the CPU has these features.
        unsafe { self.survey_avx512(hay) }
    }

    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
    unsafe fn survey_avx512(&self, hay: &[u8]) -> Survey {
        use std::arch::x86_64::*;
        /// How far ahead memory is asked for, on long haystacks.
        const AHEAD: usize = 4096;
        let n = hay.len();
        let p = hay.as_ptr();
        // SAFETY (all loads below): unaligned loads of 64 bytes inside the tables; on `hay`,
        // whole loads only where 66 bytes are left, masked loads (which touch nothing masked
        // off) otherwise.
        let table = |j: usize| unsafe {
            let t = self.tables[j].as_ptr() as *const __m512i;
            (_mm512_loadu_si512(t), _mm512_loadu_si512(t.add(1)))
        };
        let ((a0, b0), (a1, b1), (a2, b2)) = (table(0), table(1), table(2));
        let newline = _mm512_set1_epi8(b'\n' as i8);
        let zero = _mm512_setzero_si512();
        let far = n > 4 * AHEAD;
        let (mut newlines, mut odd) = (0u64, 0u64);
        let mut i = 0;
        while i < n {
            let left = n - i;
            let (x, y, z, valid) = if left >= 66 {
                if far {
                    // A hint: it neither faults nor reads past the end for the program.
                    _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(i + AHEAD) as *const i8);
                }
                let q = p.add(i);
                (
                    _mm512_loadu_si512(q as *const __m512i),
                    _mm512_loadu_si512(q.add(1) as *const __m512i),
                    _mm512_loadu_si512(q.add(2) as *const __m512i),
                    u64::MAX,
                )
            } else {
                let mask = |k: usize| if k >= 64 { u64::MAX } else { (1u64 << k) - 1 };
                let q = p.add(i);
                (
                    _mm512_maskz_loadu_epi8(mask(left), q as *const i8),
                    _mm512_maskz_loadu_epi8(mask(left - 1), q.wrapping_add(1) as *const i8),
                    _mm512_maskz_loadu_epi8(mask(left.saturating_sub(2)), q.wrapping_add(2) as *const i8),
                    mask(left),
                )
            };
            let lines = _mm512_cmpeq_epi8_mask(x, newline) & valid;
            let not_plain = (_mm512_movepi8_mask(x) | _mm512_cmpeq_epi8_mask(x, zero)) & valid;
            let m = _mm512_and_si512(
                _mm512_and_si512(_mm512_permutex2var_epi8(a0, x, b0), _mm512_permutex2var_epi8(a1, y, b1)),
                _mm512_permutex2var_epi8(a2, z, b2),
            );
            let mut cands = _mm512_test_epi8_mask(m, m) & valid;
            if cands != 0 {
                let mut masks = [0u8; 64];
                _mm512_storeu_si512(masks.as_mut_ptr() as *mut __m512i, m);
                while cands != 0 {
                    let o = cands.trailing_zeros() as usize;
                    if self.starts_at(hay, i + o, masks[o]) {
                        let before = (1u64 << o) - 1;
                        return Survey {
                            at: Some(i + o),
                            newlines: newlines + u64::from((lines & before).count_ones()),
                            plain: odd | (not_plain & before) == 0,
                        };
                    }
                    cands &= cands - 1;
                }
            }
            newlines += u64::from(lines.count_ones());
            odd |= not_plain;
            i += 64;
        }
        Survey { at: None, newlines, plain: odd == 0 }
    }

    /// Whether a keyword of the buckets in `mask` starts at `i`.
    fn starts_at(&self, hay: &[u8], i: usize, mut mask: u8) -> bool {
        while mask != 0 {
            if self.buckets[mask.trailing_zeros() as usize].iter().any(|w| hay[i..].starts_with(w)) {
                return true;
            }
            mask &= mask - 1;
        }
        false
    }
}

/// Finds keywords by their first bytes.
///
/// With WebAssembly SIMD it first looks at 16 positions at a time, as Teddy does: each
/// keyword is put in one of 8 buckets, and six 16-entry tables (the low and high nibbles of
/// the first, second and third byte) say which buckets three bytes could start; only
/// positions where a bucket survives all six are checked exactly (by the first two bytes,
/// then the keywords that start with the first).
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
pub struct PairFilter {
    /// Bit `a << 8 | b` is set when a keyword starts with the bytes `a b` (a one-byte keyword
    /// `a` sets every `a _`).
    pairs: Box<[u64; 1024]>,
    /// The keywords by their first byte.
    by_first: Vec<Vec<Box<[u8]>>>,
    /// Bucket masks by nibble: first byte low, first byte high, second byte low and high,
    /// third byte low and high.
    nibbles: [[u8; 16]; 6],
}

#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
impl PairFilter {
    pub fn new(words: &[&str]) -> PairFilter {
        let mut pairs = Box::new([0u64; 1024]);
        let mut by_first = vec![Vec::new(); 256];
        let mut nibbles = [[0u8; 16]; 6];
        for (k, w) in words.iter().map(|w| w.as_bytes()).filter(|w| !w.is_empty()).enumerate() {
            let bucket = 1u8 << (k % 8);
            // Byte `j` of the keyword narrows tables 2j and 2j+1; a shorter keyword lets any
            // byte through there.
            for j in 0..3 {
                match w.get(j) {
                    Some(&b) => {
                        nibbles[2 * j][usize::from(b & 15)] |= bucket;
                        nibbles[2 * j + 1][usize::from(b >> 4)] |= bucket;
                    }
                    None => {
                        for m in nibbles[2 * j..2 * j + 2].iter_mut().flatten() {
                            *m |= bucket;
                        }
                    }
                }
            }
            let seconds: Vec<u8> = match w.get(1) {
                Some(&b) => vec![b],
                None => (0..=255).collect(),
            };
            for b in seconds {
                let p = usize::from(w[0]) << 8 | usize::from(b);
                pairs[p >> 6] |= 1 << (p & 63);
            }
            by_first[usize::from(w[0])].push(w.into());
        }
        PairFilter { pairs, by_first, nibbles }
    }

    /// Whether a keyword starts at `i`.
    fn at(&self, hay: &[u8], i: usize) -> bool {
        let next = hay.get(i + 1).copied().unwrap_or(0);
        let p = usize::from(hay[i]) << 8 | usize::from(next);
        self.pairs[p >> 6] & (1 << (p & 63)) != 0
            && self.by_first[usize::from(hay[i])].iter().any(|w| hay[i..].starts_with(w))
    }

    /// Where the first keyword in `hay` starts, one position at a time.
    pub fn find_scalar(&self, hay: &[u8]) -> Option<usize> {
        (0..hay.len()).find(|&i| self.at(hay, i))
    }

    /// [`Keywords::survey`], one position at a time.
    pub fn survey_scalar(&self, hay: &[u8]) -> Survey {
        Survey::upto(hay, self.find_scalar(hay))
    }

    /// Where the first keyword in `hay` starts.
    pub fn find(&self, hay: &[u8]) -> Option<usize> {
        self.survey(hay).at
    }

    /// See [`Keywords::survey`].
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    pub fn survey(&self, hay: &[u8]) -> Survey {
        self.survey_scalar(hay)
    }

    /// See [`Keywords::survey`]: 16 candidates at a time, then exactly; the same pass counts
    /// the newlines and keeps the smallest byte (signed: one past 0x7f is below zero, as NUL is
    /// zero) of the bytes it passes.
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    pub fn survey(&self, hay: &[u8]) -> Survey {
        use core::arch::wasm32::*;
        let n = hay.len();
        // SAFETY: each table is 16 bytes; v128_load has no alignment requirement. (One load
        // each: this runs once per call, and a flood calls it once per line.)
        let t = self.nibbles.each_ref().map(|t| unsafe { v128_load(t.as_ptr() as *const v128) });
        // (Inlined by hand: the package is built for size, which keeps a closure a call.)
        #[inline(always)]
        fn bucket(v: v128, l: v128, h: v128) -> v128 {
            v128_and(u8x16_swizzle(l, v128_and(v, u8x16_splat(15))), u8x16_swizzle(h, u8x16_shr(v, 4)))
        }
        let newline = u8x16_splat(b'\n');
        let mut low = i8x16_splat(1);
        let mut newlines = 0u64;
        let mut i = 0;
        // Blocks of 16 positions whose next two bytes are in the input too. Three bytes, not
        // two: `ss` of `loss=`, on every line of a training log, would otherwise be checked.
        while i + 18 <= n {
            // SAFETY: i + 18 <= n, so the three 16-byte loads stay inside `hay`; v128_load has
            // no alignment requirement.
            let (a, b, c) = unsafe {
                let p = hay.as_ptr().add(i);
                (v128_load(p as *const v128), v128_load(p.add(1) as *const v128), v128_load(p.add(2) as *const v128))
            };
            let lines = u8x16_bitmask(i8x16_eq(a, newline));
            let m = v128_and(v128_and(bucket(a, t[0], t[1]), bucket(b, t[2], t[3])), bucket(c, t[4], t[5]));
            if v128_any_true(m) {
                let mut bits = u8x16_bitmask(u8x16_ne(m, u8x16_splat(0)));
                while bits != 0 {
                    let o = bits.trailing_zeros();
                    if self.at(hay, i + o as usize) {
                        let before = (1u16 << o) - 1;
                        let odd = u8x16_bitmask(i8x16_le(a, i8x16_splat(0))) & before;
                        return Survey {
                            at: Some(i + o as usize),
                            newlines: newlines + u64::from((lines & before).count_ones()),
                            plain: odd == 0 && i8x16_all_true(i8x16_gt(low, i8x16_splat(0))),
                        };
                    }
                    bits &= bits - 1;
                }
            }
            newlines += u64::from(lines.count_ones());
            low = i8x16_min(low, a);
            i += 16;
        }
        let rest = self.survey_scalar(&hay[i..]);
        Survey {
            at: rest.at.map(|j| i + j),
            newlines: newlines + rest.newlines,
            plain: rest.plain && i8x16_all_true(i8x16_gt(low, i8x16_splat(0))),
        }
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;

    #[test]
    fn the_pair_filter_finds_what_aho_corasick_finds() {
        let words = ["ssert", "rror", "CUDA", "Cell In", "断言", "x", "dded", "rr"];
        let k = Keywords::new(&words);
        let f = PairFilter::new(&words);
        let mut hays: Vec<Vec<u8>> = [
            "",
            "x",
            "r",
            "rr",
            "no keyword here",
            "loss=0.1 class ssert",
            "a error b",
            "ends with x",
            "断",
            "断言",
            "失败断言",
            "CUD",
            "CUDA",
            "Cell I",
            "Cell In [3]",
            "abcdded",
            "\u{1b}[31mrror",
        ]
        .iter()
        .map(|s| s.as_bytes().to_vec())
        .collect();
        // Every fixture, cut at many places, and with bytes mangled.
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/cases");
        let mut seed = 0x1234_5678_u32;
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let bytes = std::fs::read(e.path()).unwrap();
            for _ in 0..20 {
                seed ^= seed << 13;
                seed ^= seed >> 17;
                seed ^= seed << 5;
                let from = seed as usize % (bytes.len() + 1);
                let mut h = bytes[from..].to_vec();
                if !h.is_empty() {
                    let at = (seed >> 7) as usize % h.len();
                    h[at] = (seed >> 3) as u8;
                }
                hays.push(h);
            }
        }
        let mut found = 0;
        for h in &hays {
            assert_eq!(f.find(h), k.find(h), "{:?}", String::from_utf8_lossy(h));
            found += usize::from(k.find(h).is_some());
        }
        assert!(found > hays.len() / 2, "{found} of {}", hays.len());
    }

    /// Every haystack the tests have, long ones among them: whole, cut at many places, with
    /// bytes mangled, and with a keyword put at every offset of a 64-byte block and past it.
    fn haystacks(words: &[&str]) -> Vec<Vec<u8>> {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/cases");
        let mut hays: Vec<Vec<u8>> = Vec::new();
        let mut seed = 0x2468_ace0_u32;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            seed as usize
        };
        let files: Vec<Vec<u8>> =
            std::fs::read_dir(dir).unwrap().flatten().map(|e| std::fs::read(e.path()).unwrap()).collect();
        for bytes in &files {
            hays.push(bytes.clone());
            for _ in 0..20 {
                let from = next() % (bytes.len() + 1);
                let to = from + next() % (bytes.len() - from + 1);
                let mut h = bytes[from..to].to_vec();
                for _ in 0..next() % 4 {
                    if !h.is_empty() {
                        let at = next() % h.len();
                        h[at] = [0, b'\n', 0x80, 0xe6, b's', next() as u8][next() % 6];
                    }
                }
                hays.push(h);
            }
        }
        // Keywords at each offset of a block, and cut short at the end.
        let filler: Vec<u8> = b"epoch 3: loss=0.1234 acc 0.98\n".iter().copied().cycle().take(300).collect();
        for w in words {
            for at in 0..200 {
                let mut h = filler[..at].to_vec();
                h.extend_from_slice(w.as_bytes());
                h.extend_from_slice(&filler[..next() % 100]);
                hays.push(h.clone());
                h.truncate(at + w.len() - 1);
                hays.push(h);
            }
        }
        // Long: every file joined, with the ASCII of the first megabyte kept plain.
        hays.push(files.concat().repeat(4));
        hays
    }

    /// `survey` finds what aho-corasick finds, and its counts are those of the bytes before:
    /// with the AVX-512 search where this CPU has it, and without.
    #[test]
    fn the_survey_finds_what_aho_corasick_finds_and_counts_what_it_passed() {
        let words = crate::scan::KEYWORDS;
        let mut portable = Keywords::new(words);
        #[cfg(target_arch = "x86_64")]
        {
            portable.exact = None;
        }
        for k in [Keywords::new(words), portable] {
            survey_agrees(&k, words);
        }
    }

    fn survey_agrees(k: &Keywords, words: &[&str]) {
        let ac = aho_corasick::AhoCorasick::builder()
            .match_kind(aho_corasick::MatchKind::LeftmostFirst)
            .build(words)
            .unwrap();
        let mut found = 0;
        let hays = haystacks(words);
        for h in &hays {
            let at = ac.find(h).map(|m| m.start());
            let before = &h[..at.unwrap_or(h.len())];
            let want = Survey {
                at,
                newlines: before.iter().filter(|&&b| b == b'\n').count() as u64,
                plain: before.iter().all(|&b| b != 0 && b < 0x80),
            };
            assert_eq!(k.survey(h), want, "{:?}", String::from_utf8_lossy(&h[..h.len().min(300)]));
            assert_eq!(k.find(h), at);
            found += usize::from(at.is_some());
        }
        // Half of the keyword haystacks are cut short of their keyword.
        assert!(found > hays.len() / 3, "{found} of {}", hays.len());
    }

    /// The AVX-512 search, where this CPU has it, against the same answers (the test above
    /// runs it too, through `Keywords`, when it is there; this says whether it ran).
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn the_exact_tables_find_what_aho_corasick_finds() {
        if !Exact::available() {
            eprintln!("this CPU has no AVX-512 VBMI: the exact tables are not tested here");
            return;
        }
        let words = ["ssert", "rror", "CUDA", "Cell In", "断言", "x", "dded", "rr", "-packages", "dim"];
        let e = Exact::new(&words);
        let ac = aho_corasick::AhoCorasick::builder()
            .match_kind(aho_corasick::MatchKind::LeftmostFirst)
            .build(words)
            .unwrap();
        for h in haystacks(&words) {
            assert_eq!(
                e.survey(&h).at,
                ac.find(&h).map(|m| m.start()),
                "{:?}",
                String::from_utf8_lossy(&h[..h.len().min(300)])
            );
        }
    }
}
