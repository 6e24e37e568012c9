//! One sort for the whole engine. Every `sort` call on a new element type adds a copy of the
//! standard library's sort routines (~4 KB each) to the WebAssembly package; sorting
//! `(key, index)` pairs instead keeps a single copy however many things the engine orders.

/// Sorts `v` by `key`, stably (equal keys keep their order).
pub fn sort_by_key<T>(v: &mut Vec<T>, key: impl Fn(&T) -> (u64, u64)) {
    let mut keys: Vec<(u64, u64, usize)> = v
        .iter()
        .enumerate()
        .map(|(i, x)| {
            let (a, b) = key(x);
            (a, b, i)
        })
        .collect();
    // The index makes every key distinct, so an unstable sort is stable here.
    keys.sort_unstable();
    let mut slots: Vec<Option<T>> = v.drain(..).map(Some).collect();
    v.extend(keys.into_iter().filter_map(|(_, _, i)| slots[i].take()));
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
}
