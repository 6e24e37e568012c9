//! Where the next line worth reading starts: the first place where any keyword begins.
//!
//! The CLI uses aho-corasick, whose SIMD prefilter skips a training log at gigabytes a second.
//! The WebAssembly package has no SIMD there and would pay ~20 KB gzipped for it, so it uses
//! [`PairFilter`]: a bitmap of the keywords' first two bytes, checked at every byte, and a
//! comparison only where a pair matches. Both answer the same (a test compares them).

/// A set of keywords to search for.
pub struct Keywords {
    #[cfg(not(target_arch = "wasm32"))]
    ac: aho_corasick::AhoCorasick,
    #[cfg(target_arch = "wasm32")]
    pairs: PairFilter,
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
        };
        #[cfg(target_arch = "wasm32")]
        let k = Keywords { pairs: PairFilter::new(words) };
        k
    }

    /// Where the first keyword in `hay` starts.
    pub fn find(&self, hay: &[u8]) -> Option<usize> {
        #[cfg(not(target_arch = "wasm32"))]
        let at = self.ac.find(hay).map(|m| m.start());
        #[cfg(target_arch = "wasm32")]
        let at = self.pairs.find(hay);
        at
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

    /// Where the first keyword in `hay` starts.
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    pub fn find(&self, hay: &[u8]) -> Option<usize> {
        self.find_scalar(hay)
    }

    /// Where the first keyword in `hay` starts: 16 candidates at a time, then exactly.
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    pub fn find(&self, hay: &[u8]) -> Option<usize> {
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
            let m = v128_and(v128_and(bucket(a, t[0], t[1]), bucket(b, t[2], t[3])), bucket(c, t[4], t[5]));
            if v128_any_true(m) {
                let mut bits = u8x16_bitmask(u8x16_ne(m, u8x16_splat(0)));
                while bits != 0 {
                    let j = i + bits.trailing_zeros() as usize;
                    if self.at(hay, j) {
                        return Some(j);
                    }
                    bits &= bits - 1;
                }
            }
            i += 16;
        }
        (i..n).find(|&j| self.at(hay, j))
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
}
