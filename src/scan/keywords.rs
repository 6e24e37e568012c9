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
            ac: aho_corasick::AhoCorasick::builder()
                .match_kind(aho_corasick::MatchKind::LeftmostFirst)
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

/// Finds keywords by their first two bytes.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
pub struct PairFilter {
    /// Bit `a << 8 | b` is set when a keyword starts with the bytes `a b` (a one-byte keyword
    /// `a` sets every `a _`).
    pairs: Box<[u64; 1024]>,
    /// The keywords by their first byte.
    by_first: Vec<Vec<Box<[u8]>>>,
}

#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
impl PairFilter {
    pub fn new(words: &[&str]) -> PairFilter {
        let mut pairs = Box::new([0u64; 1024]);
        let mut by_first = vec![Vec::new(); 256];
        for w in words.iter().map(|w| w.as_bytes()).filter(|w| !w.is_empty()) {
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
        PairFilter { pairs, by_first }
    }

    pub fn find(&self, hay: &[u8]) -> Option<usize> {
        let n = hay.len();
        (0..n).find(|&i| {
            let next = if i + 1 < n { hay[i + 1] } else { 0 };
            let p = usize::from(hay[i]) << 8 | usize::from(next);
            self.pairs[p >> 6] & (1 << (p & 63)) != 0
                && self.by_first[usize::from(hay[i])].iter().any(|w| hay[i..].starts_with(w))
        })
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
