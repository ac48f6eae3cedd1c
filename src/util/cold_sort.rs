//! One stable sort for cold paths, compiled once.
//!
//! `slice::sort_by` (std's driftsort) is generic over the element type and
//! the comparator: every call site with its own closure gets its own copy
//! of the whole algorithm, about 7 KB of code each (35 of them were 250 KB
//! of the installed library, bench/RESULTS.md "Installed size"). Sorts
//! that run once per statement, schema load or virtual-table call go
//! through [`sort_by`] here instead: the sort itself runs once, on indices
//! with a comparator behind `dyn`, and only a small permutation step is
//! generic. Hot sorts (the VM's sorter, the pager's dirty pages) keep
//! std's, which inlines the comparison.

use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};

/// Sorts `v` by `cmp`, stably (equal elements keep their order), as
/// `slice::sort_by` does.
pub fn sort_by<T>(v: &mut [T], mut cmp: impl FnMut(&T, &T) -> Ordering) {
    if v.len() < 2 {
        return;
    }
    let order = sorted_order(v.len(), &mut |a, b| cmp(&v[a], &v[b]));
    permute(v, order);
}

/// Sorts `v` by the key `f` gives, stably, as `slice::sort_by_key` does.
pub fn sort_by_key<T, K: Ord>(v: &mut [T], mut f: impl FnMut(&T) -> K) {
    sort_by(v, |a, b| f(a).cmp(&f(b)));
}

/// Sorts `v` in ascending order, stably, as `slice::sort` does.
pub fn sort<T: Ord>(v: &mut [T]) {
    sort_by(v, T::cmp);
}

/// The map of `pairs` (a later pair's value replacing an earlier one's,
/// as `collect` into a `BTreeMap` does), built by insertion: `collect`
/// sorts the pairs first, one more copy of std's sort per element type.
pub fn map_from<K: Ord, V>(pairs: impl IntoIterator<Item = (K, V)>) -> BTreeMap<K, V> {
    let mut map = BTreeMap::new();
    for (k, v) in pairs {
        map.insert(k, v);
    }
    map
}

/// The set of `items`, built by insertion (`collect` into a `BTreeSet`
/// sorts them first, as [`map_from`] explains).
pub fn set_from<T: Ord>(items: impl IntoIterator<Item = T>) -> BTreeSet<T> {
    let mut set = BTreeSet::new();
    set.extend(items);
    set
}

/// The positions `0..n` in the order `cmp` sorts them, ties by position
/// (the one instance of std's stable sort this module needs).
#[inline(never)]
fn sorted_order(n: usize, cmp: &mut dyn FnMut(usize, usize) -> Ordering) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| cmp(a, b));
    order
}

/// Rearranges `v` so that position `i` holds what was at `order[i]`,
/// following each cycle of the permutation with swaps.
fn permute<T>(v: &mut [T], mut order: Vec<usize>) {
    debug_assert_eq!(v.len(), order.len());
    for start in 0..v.len() {
        let mut at = start;
        // `order[at] == at` marks a position already holding its element.
        while order[at] != start {
            let from = order[at];
            debug_assert_ne!(from, at, "a position is filled once");
            v.swap(at, from);
            order[at] = at;
            at = from;
        }
        order[at] = at;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Against std's stable sort on every permutation-with-ties of small
    /// inputs and on pseudo-random longer ones: the same result, ties in
    /// their original order.
    #[test]
    fn same_as_std_stable_sort() {
        let mut seed = 0x2545_f491_u64;
        for len in 0..200usize {
            for _ in 0..4 {
                let v: Vec<(u8, usize)> = (0..len)
                    .map(|i| {
                        seed ^= seed << 13;
                        seed ^= seed >> 7;
                        seed ^= seed << 17;
                        ((seed % 7) as u8, i)
                    })
                    .collect();
                let mut want = v.clone();
                want.sort_by_key(|e| e.0);
                let mut got = v.clone();
                sort_by_key(&mut got, |e| e.0);
                assert_eq!(got, want);
                let mut got = v;
                sort(&mut got);
                want.sort();
                assert_eq!(got, want);
            }
        }
    }

    #[test]
    fn map_from_keeps_the_last_value_as_collect_does() {
        let pairs = vec![(3, "a"), (1, "b"), (3, "c"), (2, "d")];
        let want: BTreeMap<i32, &str> = pairs.clone().into_iter().collect();
        assert_eq!(map_from(pairs), want);
    }

    #[test]
    fn set_from_is_collect() {
        let items = [5, 1, 5, 3, 1];
        let want: BTreeSet<i32> = items.into_iter().collect();
        assert_eq!(set_from(items), want);
    }

    #[test]
    fn owned_elements_are_moved_not_lost() {
        let mut v: Vec<String> = ["d", "b", "a", "c", "b"].iter().map(|s| s.to_string()).collect();
        sort_by(&mut v, |a, b| b.cmp(a));
        assert_eq!(v, ["d", "c", "b", "b", "a"]);
    }
}
