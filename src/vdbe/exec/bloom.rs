//! Bloom filters (`FilterAdd`, `Filter`): a bit array in a register that
//! tells for certain that a key is absent, so the probe of an IN
//! subquery's temporary index is skipped for most values not in it.
//!
//! Invariant: values the index would find equal hash alike. The index
//! compares numbers by value (an integer equals a REAL of the same
//! value) and text and blobs under collations, so numbers hash by value
//! and every text (every blob) hashes alike (checked: bloom_equal_hash);
//! a false "maybe" only costs the probe.

use super::{reg, Flow, Vm};
use crate::value::Value;
use crate::vdbe::program::{Insn, Opcode, P4};

/// The filter's size in bytes (SQLite's default Bloom filter size).
const FILTER_BYTES: usize = 10_000;

/// `FilterAdd` (P1 filter, P3 first register, P2 count, P4 the affinity
/// the temporary index's record gives the values, if any) and `Filter`
/// (P1 filter, P2 jump when absent, P3 first register, P4 count).
pub(super) fn exec(vm: &mut Vm, insn: &Insn) -> Flow {
    let add = insn.opcode == Opcode::FilterAdd;
    let n = if add {
        insn.p2.max(0) as usize
    } else if let P4::Int64(n) = insn.p4 {
        n.max(0) as usize
    } else {
        1
    };
    let affs: &[u8] = match (&insn.p4, add) {
        (P4::Affinity(a), true) => a.as_bytes(),
        _ => &[],
    };
    let mut h: u64 = 0;
    for i in 0..n {
        let v = reg(vm, insn.p3 + i as i32);
        let one = match affs.get(i).and_then(|&c| crate::value::affinity::Affinity::from_letter(c as char)) {
            Some(aff) => value_hash(&super::record::record_affinity(v.clone(), aff)),
            None => value_hash(v),
        };
        h = h.rotate_left(17) ^ one;
    }
    let bit = (mix(h) % (FILTER_BYTES as u64 * 8)) as usize;
    let Some(r) = vm.regs.get_mut(insn.p1 as usize) else {
        debug_assert!(!add, "the filter register exists once allocated");
        return Flow::Next;
    };
    if add {
        if !matches!(&r.value, Value::Blob(b) if b.len() == FILTER_BYTES) {
            r.value = Value::Blob(vec![0; FILTER_BYTES]);
        }
        if let Value::Blob(b) = &mut r.value {
            b[bit / 8] |= 1 << (bit % 8);
        }
        return Flow::Next;
    }
    match &r.value {
        // (A filter never filled, as when the set is empty: absent.)
        Value::Blob(b) if b.len() == FILTER_BYTES && b[bit / 8] & (1 << (bit % 8)) == 0 => Flow::Jump(insn.p2 as usize),
        Value::Null => Flow::Jump(insn.p2 as usize),
        _ => Flow::Next,
    }
}

/// One value's hash: numbers by value (a REAL holding an integer as that
/// integer), text and blobs by type only.
fn value_hash(v: &Value) -> u64 {
    match v {
        Value::Null => 1,
        Value::Integer(i) => {
            // invariant: bloom_equal_hash
            debug_assert!(real_twin(*i).is_none_or(|r| value_hash(&Value::Real(r)) == *i as u64), "{i} and its REAL hash apart");
            *i as u64
        }
        Value::Real(r) if r.fract() == 0.0 && *r >= -9.223_372_036_854_776e18 && *r < 9.223_372_036_854_776e18 => *r as i64 as u64,
        Value::Real(r) => r.to_bits(),
        Value::Text(_) => 2,
        _ => 3,
    }
}

/// The REAL equal in value to `i`, if one is.
fn real_twin(i: i64) -> Option<f64> {
    let r = i as f64;
    ((-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&r) && r as i64 == i).then_some(r)
}

/// Spread a hash over the bits (splitmix64's finalizer).
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}
