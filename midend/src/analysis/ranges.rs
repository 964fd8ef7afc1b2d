//! Integer ranges: an interval that holds an integer value, found from how
//! the value is computed.
//!
//! The facts come from the hardware (`%tid.x` is below 1024, `%laneid`
//! below 32, `%ctaid.y` below 65535) and from the operations: a mask
//! `x & 255` is at most 255, `x % 32` below 32, `zext` of a byte below 256.
//! Passes ask to prove that an addition cannot wrap around, which lets
//! them move a constant out of a widening: `zext.i64(tid.x + 8)` is
//! `zext.i64(tid.x) + 8` because `tid.x + 8` stays below 2^32.
//!
//! A [`Range`] `[lo, hi]` of a `w`-bit value `v` means: some integer `x`
//! in `[lo, hi]` is congruent to `v` modulo 2^w. That reading makes the
//! rules for `+`, `-` and `*` plain interval arithmetic with no overflow
//! checks (a congruence survives wrapping); a range only has to be
//! narrower than 2^w to say something. When it lies within `[0, 2^w)` it
//! gives the unsigned value exactly, and within `[-2^(w-1), 2^(w-1))` the
//! signed one.
//!
//! The analysis looks back through at most [`MAX_DEPTH`] definitions and
//! remembers what it found, so each query is cheap; block parameters (loop
//! variables, joins) have the full range.

use crate::ir::{Function, InstData, Opcode, SpecialReg, Type, Value, ValueDef};
use rustc_hash::FxHashMap;

/// How many definitions back a query looks.
pub const MAX_DEPTH: u32 = 12;

/// An interval `[lo, hi]` holding a value up to congruence (see the module
/// documentation).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct Range {
    pub lo: i128,
    pub hi: i128,
}

impl Range {
    pub fn new(lo: i128, hi: i128) -> Range {
        Range { lo, hi }
    }

    /// Every value of a `bits`-wide integer (as unsigned numbers).
    pub fn full(bits: u32) -> Range {
        Range::new(0, (1i128 << bits) - 1)
    }

    /// The exact unsigned bounds of a `bits`-wide value, if the range gives them.
    pub fn unsigned(self, bits: u32) -> Option<(i128, i128)> {
        (self.lo >= 0 && self.hi < (1i128 << bits)).then_some((self.lo, self.hi))
    }

    /// The exact signed bounds of a `bits`-wide value, if the range gives them.
    pub fn signed(self, bits: u32) -> Option<(i128, i128)> {
        let half = 1i128 << (bits - 1);
        (self.lo >= -half && self.hi < half).then_some((self.lo, self.hi))
    }
}

/// Range queries over one function, with a memo. The function is passed
/// to each query, so a pass can add instructions between queries: a value
/// never changes its meaning, so what the memo holds stays true.
#[derive(Default)]
pub struct Ranges {
    memo: FxHashMap<Value, Range>,
}

impl Ranges {
    pub fn new() -> Ranges {
        Ranges::default()
    }

    /// The range of an integer value (the full range when nothing is known,
    /// or for a value that is not an integer).
    pub fn of(&mut self, func: &Function, v: Value) -> Range {
        self.query(func, v, 0)
    }

    /// Whether `zext(a + k)` equals `zext(a) + k`: the unsigned value of
    /// `a` plus `k` stays within `a`'s width.
    pub fn add_fits_unsigned(&mut self, func: &Function, a: Value, k: i128) -> bool {
        let bits = func.dfg.value_type(a).bits();
        self.of(func, a)
            .unsigned(bits)
            .is_some_and(|(lo, hi)| lo + k >= 0 && hi + k < (1i128 << bits))
    }

    /// Whether `sext(a + k)` equals `sext(a) + k`: the signed value of `a`
    /// plus `k` stays within `a`'s width.
    pub fn add_fits_signed(&mut self, func: &Function, a: Value, k: i128) -> bool {
        let bits = func.dfg.value_type(a).bits();
        let half = 1i128 << (bits - 1);
        self.of(func, a)
            .signed(bits)
            .is_some_and(|(lo, hi)| lo + k >= -half && hi + k < half)
    }

    fn query(&mut self, func: &Function, v: Value, depth: u32) -> Range {
        let v = func.dfg.resolve_aliases(v);
        if let Some(&r) = self.memo.get(&v) {
            return r;
        }
        let ty = func.dfg.value_type(v);
        let full = Range::full(ty.bits());
        if !ty.is_int() || depth > MAX_DEPTH {
            return full;
        }
        let r = self.compute(func, v, ty, depth).unwrap_or(full);
        // Keep only ranges that say something about a `w`-bit value.
        let r = if r.hi - r.lo >= (1i128 << ty.bits()) || r.lo > r.hi {
            full
        } else {
            r
        };
        self.memo.insert(v, r);
        r
    }

    fn compute(&mut self, func: &Function, v: Value, ty: Type, depth: u32) -> Option<Range> {
        let ValueDef::Result(inst, 0) = func.dfg.value_def(v) else {
            return None;
        };
        let bits = ty.bits();
        let d = depth + 1;
        Some(match func.dfg.insts[inst] {
            InstData::Iconst { imm, .. } => Range::new(imm as i128, imm as i128),
            InstData::SpecialReg { reg } => special_range(reg)?,
            InstData::Binary {
                opcode,
                args: [a, b],
            } => {
                let (ra, rb) = (self.query(func, a, d), self.query(func, b, d));
                let kb = (rb.lo == rb.hi).then_some(rb.lo);
                match opcode {
                    Opcode::Iadd => Range::new(ra.lo + rb.lo, ra.hi + rb.hi),
                    Opcode::Isub => Range::new(ra.lo - rb.hi, ra.hi - rb.lo),
                    Opcode::Imul => {
                        let c = [ra.lo * rb.lo, ra.lo * rb.hi, ra.hi * rb.lo, ra.hi * rb.hi];
                        Range::new(*c.iter().min()?, *c.iter().max()?)
                    }
                    Opcode::Ishl => {
                        let k = kb.filter(|&k| (0..bits as i128).contains(&k))?;
                        Range::new(ra.lo << k, ra.hi << k)
                    }
                    Opcode::Band => {
                        // A mask with a known non-negative side bounds the result.
                        let m = [ra, rb]
                            .iter()
                            .filter_map(|r| r.unsigned(bits))
                            .map(|(_, hi)| hi)
                            .min()?;
                        Range::new(0, m)
                    }
                    Opcode::Ushr => {
                        let k = kb.filter(|&k| (0..bits as i128).contains(&k))?;
                        let (lo, hi) = ra.unsigned(bits).unwrap_or((0, (1i128 << bits) - 1));
                        Range::new(lo >> k, hi >> k)
                    }
                    Opcode::Udiv => {
                        let k = kb.filter(|&k| k > 0)?;
                        let (lo, hi) = ra.unsigned(bits).unwrap_or((0, (1i128 << bits) - 1));
                        Range::new(lo / k, hi / k)
                    }
                    Opcode::Urem => {
                        let (_, khi) = rb.unsigned(bits).filter(|&(lo, _)| lo > 0)?;
                        match ra.unsigned(bits) {
                            Some((lo, hi)) if hi < khi && kb.is_some() => Range::new(lo, hi),
                            _ => Range::new(0, khi - 1),
                        }
                    }
                    Opcode::Umin => {
                        let (ua, ub) = (ra.unsigned(bits), rb.unsigned(bits));
                        match (ua, ub) {
                            (Some(x), Some(y)) => Range::new(x.0.min(y.0), x.1.min(y.1)),
                            (Some((_, h)), None) | (None, Some((_, h))) => Range::new(0, h),
                            _ => return None,
                        }
                    }
                    Opcode::Smin | Opcode::Smax => {
                        let (x, y) = (ra.signed(bits)?, rb.signed(bits)?);
                        if opcode == Opcode::Smin {
                            Range::new(x.0.min(y.0), x.1.min(y.1))
                        } else {
                            Range::new(x.0.max(y.0), x.1.max(y.1))
                        }
                    }
                    _ => return None,
                }
            }
            InstData::Convert { opcode, arg, .. } => {
                let from = func.dfg.value_type(arg).bits();
                let r = self.query(func, arg, d);
                match opcode {
                    Opcode::Zext => {
                        let (lo, hi) = r.unsigned(from).unwrap_or((0, (1i128 << from) - 1));
                        Range::new(lo, hi)
                    }
                    Opcode::Sext => {
                        let half = 1i128 << (from - 1);
                        let (lo, hi) = r.signed(from).unwrap_or((-half, half - 1));
                        Range::new(lo, hi)
                    }
                    // A congruence modulo 2^w holds modulo 2^w' for w' < w.
                    Opcode::Trunc => r,
                    _ => return None,
                }
            }
            InstData::Ternary {
                opcode: Opcode::Select,
                args: [_, a, b],
            } => {
                let (ra, rb) = (self.query(func, a, d), self.query(func, b, d));
                Range::new(ra.lo.min(rb.lo), ra.hi.max(rb.hi))
            }
            _ => return None,
        })
    }
}

/// What the hardware guarantees about a special register (CUDA's launch
/// limits: at most 1024 threads per block, 64 in z; grid x below 2^31,
/// y and z below 65536).
fn special_range(reg: SpecialReg) -> Option<Range> {
    use SpecialReg::*;
    Some(match reg {
        TidX | TidY => Range::new(0, 1023),
        TidZ => Range::new(0, 63),
        NtidX | NtidY => Range::new(1, 1024),
        NtidZ => Range::new(1, 64),
        CtaidX => Range::new(0, (1 << 31) - 2),
        CtaidY | CtaidZ => Range::new(0, 65534),
        NctaidX => Range::new(1, (1 << 31) - 1),
        NctaidY | NctaidZ => Range::new(1, 65535),
        LaneId => Range::new(0, 31),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::parse_module;

    fn ranges_of(src: &str, names: &[u32]) -> Vec<Range> {
        let module = parse_module(src).expect("parses");
        let func = module.functions.values().next().expect("one function");
        let mut r = Ranges::new();
        names
            .iter()
            .map(|&n| r.of(func, Value::from_u32(n)))
            .collect()
    }

    #[test]
    fn thread_indices_masks_and_arithmetic() {
        let src = "kernel external @k(i32) {
block0(v0: i32):
    v1 = special tid.x
    v2 = iconst.i32 8
    v3 = iadd v1, v2
    v4 = zext.i64 v3
    v5 = iconst.i32 255
    v6 = band v0, v5
    v7 = iconst.i32 32
    v8 = urem v0, v7
    v9 = imul v1, v7
    v10 = isub v1, v2
    v11 = sext.i64 v0
    return
}
";
        let r = ranges_of(src, &[1, 3, 4, 6, 8, 9, 10, 11, 0]);
        assert_eq!(r[0], Range::new(0, 1023));
        assert_eq!(r[1], Range::new(8, 1031));
        assert_eq!(r[2], Range::new(8, 1031));
        assert_eq!(r[3], Range::new(0, 255));
        assert_eq!(r[4], Range::new(0, 31));
        assert_eq!(r[5], Range::new(0, 1023 * 32));
        // tid.x - 8 may be negative: its unsigned value may wrap.
        assert_eq!(r[6], Range::new(-8, 1015));
        assert_eq!(r[6].unsigned(32), None);
        assert_eq!(r[6].signed(32), Some((-8, 1015)));
        assert_eq!(r[7], Range::new(-(1 << 31), (1 << 31) - 1));
        assert_eq!(r[8], Range::full(32));
    }

    #[test]
    fn wrap_checks() {
        let src = "kernel external @k(i32) {
block0(v0: i32):
    v1 = special tid.y
    v2 = special ctaid.x
    v3 = special ntid.x
    v4 = imul v2, v3
    return
}
";
        let module = parse_module(src).expect("parses");
        let func = module.functions.values().next().expect("one function");
        let mut r = Ranges::new();
        let (tid, prod, param) = (Value::from_u32(1), Value::from_u32(4), Value::from_u32(0));
        assert!(r.add_fits_unsigned(func, tid, 8));
        assert!(r.add_fits_signed(func, tid, -3));
        assert!(!r.add_fits_unsigned(func, tid, -1));
        // ctaid.x * ntid.x can exceed 2^32: no proof.
        assert!(!r.add_fits_unsigned(func, prod, 1));
        assert!(!r.add_fits_signed(func, param, 1));
    }
}
