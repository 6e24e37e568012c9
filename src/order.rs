//! One sort for the whole engine. Every `sort` call on a new element type adds a copy of the
//! standard library's sort routines (~4 KB each) to the WebAssembly package; sorting
//! `(key, index)` pairs instead keeps a single copy however many things the engine orders, and
//! that copy is a merge sort of a dozen lines (the standard library's is 3.6 KB of WebAssembly
//! even for one type; the engine sorts hundreds of things, not millions).

/// Sorts `v` by `key`, stably (equal keys keep their order).
pub fn sort_by_key<T>(v: &mut [T], key: impl Fn(&T) -> (u64, u64)) {
    // Most lists the engine sorts per line hold one element: nothing to allocate.
    if v.len() < 2 {
        return;
    }
    // (Plain loops, and the element type only in the swaps: this is compiled once per element
    // type.)
    let mut keys: Vec<(u64, u64, usize)> = Vec::with_capacity(v.len());
    for (i, x) in v.iter().enumerate() {
        let (a, b) = key(x);
        keys.push((a, b, i));
    }
    merge_sort(&mut keys);
    for (a, b) in swaps(&keys) {
        v.swap(a, b);
    }
}

/// The swaps that put each element where the sorted `keys` (each with its element's place)
/// say, in order.
fn swaps(keys: &[(u64, u64, usize)]) -> Vec<(usize, usize)> {
    if keys.iter().enumerate().all(|(k, &(_, _, e))| k == e) {
        return Vec::new();
    }
    // `at[p]`: the element now at place p; `place[e]`: the place of element e.
    let mut at: Vec<usize> = (0..keys.len()).collect();
    let mut place = at.clone();
    let mut out = Vec::new();
    for (k, &(_, _, e)) in keys.iter().enumerate() {
        let from = place[e];
        if from != k {
            out.push((k, from));
            let other = at[k];
            (at[from], place[other]) = (other, from);
            (at[k], place[e]) = (e, k);
        }
    }
    out
}

/// Sorts `keys` ascending: bottom-up merge sort, O(n log n) with one scratch copy.
fn merge_sort(keys: &mut Vec<(u64, u64, usize)>) {
    let n = keys.len();
    let mut out = keys.clone();
    let mut width = 1;
    while width < n {
        for start in (0..n).step_by(2 * width) {
            let (mid, end) = ((start + width).min(n), (start + 2 * width).min(n));
            let (mut a, mut b) = (start, mid);
            for slot in &mut out[start..end] {
                let take_a = b == end || (a < mid && keys[a] <= keys[b]);
                *slot = if take_a { keys[a] } else { keys[b] };
                (a, b) = if take_a { (a + 1, b) } else { (a, b + 1) };
            }
        }
        std::mem::swap(keys, &mut out);
        width *= 2;
    }
}

/// An `i64` as a `u64` of the same order, for keys.
pub fn ordered(x: i64) -> u64 {
    (x as u64) ^ (1 << 63)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_stably_by_key() {
        let mut v = vec![(3, 'a'), (1, 'b'), (3, 'c'), (-5, 'd'), (1, 'e'), (i64::MAX, 'f'), (i64::MIN, 'g')];
        let mut want = v.clone();
        want.sort_by_key(|x| x.0);
        sort_by_key(&mut v, |x| (ordered(x.0), 0));
        assert_eq!(v, want);
        let mut w = vec![(2u64, 9u64), (1, 5), (2, 1), (1, 5)];
        sort_by_key(&mut w, |x| (x.0, x.1));
        assert_eq!(w, vec![(1, 5), (1, 5), (2, 1), (2, 9)]);
    }

    #[test]
    fn the_swaps_put_every_element_in_its_place() {
        // Elements that differ beyond their key (the key is `.0 % 4`), so a wrong place shows.
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for n in 0..90 {
            let mut v: Vec<(u64, usize)> = (0..n)
                .map(|i| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    (seed % 1000, i)
                })
                .collect();
            let mut want = v.clone();
            want.sort_by_key(|x| x.0 % 4);
            sort_by_key(&mut v, |x| (x.0 % 4, 0));
            assert_eq!(v, want, "n = {n}");
        }
    }

    #[test]
    fn merge_sort_agrees_with_the_standard_sort() {
        // Every length up to 70 (odd widths, a last run shorter than the others), keys from a
        // small range so that many are equal.
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for n in 0..70 {
            let mut v: Vec<(u64, u64, usize)> = (0..n)
                .map(|i| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    (seed % 5, (seed >> 8) % 3, i)
                })
                .collect();
            let mut want = v.clone();
            want.sort_unstable();
            merge_sort(&mut v);
            assert_eq!(v, want, "n = {n}");
        }
    }
}
