//! Remembering by content: what was found for the last few distinct lines, so that a warning
//! printed at every step, the same error echoed in every later cell or the same loop in every
//! cell is read in full once.

/// Values kept for the last `capacity` distinct short lines, the oldest replaced first.
pub struct Recent<T> {
    items: Vec<(Box<[u8]>, T)>,
    next: usize,
    capacity: usize,
}

impl<T> Recent<T> {
    /// The longest line kept: a repeated warning or error line is short, and a long line is
    /// not worth its copy.
    pub const MAX_LEN: usize = 1024;

    pub const fn new(capacity: usize) -> Recent<T> {
        Recent { items: Vec::new(), next: 0, capacity }
    }

    /// The value kept for `line`, if it is one of the lines kept.
    pub fn get(&self, line: &[u8]) -> Option<&T> {
        if line.len() > Self::MAX_LEN {
            return None;
        }
        self.items.iter().find(|(l, _)| l.len() == line.len() && same(l, line)).map(|(_, v)| v)
    }

    /// Keeps `value` for `line` (a line kept already is not looked for: callers ask first).
    pub fn keep(&mut self, line: &[u8], value: T) {
        if line.len() > Self::MAX_LEN || self.capacity == 0 {
            return;
        }
        let item = (Box::from(line), value);
        if self.items.len() < self.capacity {
            self.items.push(item);
        } else {
            self.items[self.next] = item;
            self.next = (self.next + 1) % self.capacity;
        }
    }

    pub fn clear(&mut self) {
        self.items.clear();
        self.next = 0;
    }
}

/// `a == b`; in WebAssembly 16 bytes at a time: its `memcmp` goes a byte at a time, and a
/// flood compares some 100 bytes of every line.
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
pub fn same(a: &[u8], b: &[u8]) -> bool {
    a == b
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
pub fn same(a: &[u8], b: &[u8]) -> bool {
    use core::arch::wasm32::{v128, v128_any_true, v128_load, v128_xor};
    let n = a.len();
    if n != b.len() {
        return false;
    }
    if n < 16 {
        return a.iter().zip(b).all(|(x, y)| x == y);
    }
    // 16 bytes at a time, the last 16 overlapping the ones before.
    let differ = |i: usize| {
        // SAFETY: `i + 16 <= n`, the length of both: the loads are inside them (unaligned).
        unsafe {
            let (x, y) = (a.as_ptr().add(i) as *const v128, b.as_ptr().add(i) as *const v128);
            v128_any_true(v128_xor(v128_load(x), v128_load(y)))
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

#[cfg(test)]
mod tests {
    use super::Recent;

    #[test]
    fn keeps_the_last_distinct_lines_and_replaces_the_oldest() {
        let mut r = Recent::new(3);
        let lines: Vec<Vec<u8>> =
            (0..5).map(|i| format!("line {i} of some length past sixteen bytes").into_bytes()).collect();
        for (i, l) in lines.iter().enumerate() {
            assert_eq!(r.get(l), None);
            r.keep(l, i);
        }
        assert_eq!(r.get(&lines[0]), None, "replaced");
        assert_eq!(r.get(&lines[1]), None, "replaced");
        for (i, l) in lines.iter().enumerate().skip(2) {
            assert_eq!(r.get(l), Some(&i));
        }
        // Same length, one byte apart; a prefix; a line too long to keep.
        let mut near = lines[4].clone();
        near[30] ^= 1;
        assert_eq!(r.get(&near), None);
        assert_eq!(r.get(&lines[4][..20]), None);
        let long = vec![b'x'; Recent::<usize>::MAX_LEN + 1];
        r.keep(&long, 9);
        assert_eq!(r.get(&long), None);
        assert_eq!(r.get(&lines[2]), Some(&2), "the long line took no place");
        r.clear();
        assert_eq!(r.get(&lines[4]), None);
    }
}
