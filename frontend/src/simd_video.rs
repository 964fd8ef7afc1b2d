//! CUDA's SIMD-within-a-word intrinsics (`crt/device_functions.h`): an
//! `unsigned int` read as two 16-bit or four 8-bit lanes (`__vaddus4`,
//! `__vcmpgts2`, `__vsadu4`, ...), and the newer ones on 32-bit values or
//! two 16-bit lanes (`__vimax3_s16x2`, `__viaddmin_u32`, `__vibmax_s32`,
//! the `_relu` forms).
//!
//! A name is parsed into a [`SimdFn`]: what each lane computes, the lane
//! width and whether lanes are signed. Sema gives it CUDA's signature
//! ([`SimdFn::params`]) and lowering computes each lane in 32-bit integer
//! IR (`lower/simd_video.rs`), so the interpreter, the passes and the
//! backend need nothing new.

use crate::types::CType;

/// An integer comparison of two lanes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LaneCmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

/// What an intrinsic computes from its lanes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SimdOp {
    /// `a + b`, `a - b`, `-a`, wrapping in the lane.
    Add,
    Sub,
    Neg,
    /// `|a|`: the most negative lane value stays itself.
    Abs,
    /// Saturated to the lane's range: `__vaddss4`, `__vsubus2`, `__vnegss4`,
    /// `__vabsss2`.
    AddSat,
    SubSat,
    NegSat,
    AbsSat,
    /// `|a - b|`, exact (the result lane is unsigned).
    AbsDiff,
    /// `(a + b) / 2` rounded: up for unsigned lanes, away from zero for
    /// signed ones.
    Avg,
    /// `(a + b) >> 1`, exact.
    HalfAdd,
    Max,
    Min,
    /// All ones in a lane where the comparison holds (`__vcmp*`), or one
    /// (`__vset*`, `mask: false`).
    Compare {
        cmp: LaneCmp,
        mask: bool,
    },
    /// The sum over the lanes of `|a - b|`, one `unsigned int`.
    Sad,
    /// `max(max(a, b), c)`, `min(min(a, b), c)`.
    Max3,
    Min3,
    /// `max(a + b, c)`, `min(a + b, c)`, the sum wrapping in the lane.
    AddMax,
    AddMin,
    /// `max(a, b)` (`min(a, b)`) and, through a `bool *` per lane, whether
    /// `a >= b` (`a <= b`) there: `__vibmax_s32(a, b, &p)`,
    /// `__vibmin_u16x2(a, b, &hi, &lo)`.
    MaxPred,
    MinPred,
}

/// One SIMD video intrinsic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SimdFn {
    pub op: SimdOp,
    /// 8, 16 or 32.
    pub lane_bits: u32,
    pub signed: bool,
    /// Negative results become 0 (the `_relu` forms).
    pub relu: bool,
}

/// The classic forms' operations by their stem (`__v{stem}{2,4}`), and
/// whether their lanes are signed.
const CLASSIC: &[(&str, SimdOp, bool)] = &[
    ("abs", SimdOp::Abs, true),
    ("absss", SimdOp::AbsSat, true),
    ("absdiffs", SimdOp::AbsDiff, true),
    ("absdiffu", SimdOp::AbsDiff, false),
    ("add", SimdOp::Add, false),
    ("addss", SimdOp::AddSat, true),
    ("addus", SimdOp::AddSat, false),
    ("avgs", SimdOp::Avg, true),
    ("avgu", SimdOp::Avg, false),
    ("haddu", SimdOp::HalfAdd, false),
    ("maxs", SimdOp::Max, true),
    ("maxu", SimdOp::Max, false),
    ("mins", SimdOp::Min, true),
    ("minu", SimdOp::Min, false),
    ("neg", SimdOp::Neg, true),
    ("negss", SimdOp::NegSat, true),
    ("sads", SimdOp::Sad, true),
    ("sadu", SimdOp::Sad, false),
    ("sub", SimdOp::Sub, false),
    ("subss", SimdOp::SubSat, true),
    ("subus", SimdOp::SubSat, false),
];

/// The comparisons of `__vcmp*` and `__vset*` by their suffix, and whether
/// they compare signed lanes (equality is the same either way).
const COMPARISONS: &[(&str, LaneCmp, bool)] = &[
    ("eq", LaneCmp::Eq, false),
    ("ne", LaneCmp::Ne, false),
    ("ges", LaneCmp::Ge, true),
    ("geu", LaneCmp::Ge, false),
    ("gts", LaneCmp::Gt, true),
    ("gtu", LaneCmp::Gt, false),
    ("les", LaneCmp::Le, true),
    ("leu", LaneCmp::Le, false),
    ("lts", LaneCmp::Lt, true),
    ("ltu", LaneCmp::Lt, false),
];

/// The newer forms' operations by their stem (`__vi{stem}_{type}`), and
/// whether the stem exists only with `_relu` (`__vimax_s32_relu`).
const NEWER: &[(&str, SimdOp, bool)] = &[
    ("max", SimdOp::Max, true),
    ("min", SimdOp::Min, true),
    ("max3", SimdOp::Max3, false),
    ("min3", SimdOp::Min3, false),
    ("addmax", SimdOp::AddMax, false),
    ("addmin", SimdOp::AddMin, false),
    ("bmax", SimdOp::MaxPred, false),
    ("bmin", SimdOp::MinPred, false),
];

impl SimdFn {
    /// The intrinsic `name` names, if it is one that CUDA 13 declares.
    pub fn parse(name: &str) -> Option<SimdFn> {
        let rest = name.strip_prefix("__v")?;
        // No classic stem starts with `i`, so `__vi` is a newer form.
        match rest.strip_prefix('i') {
            Some(newer) => Self::parse_newer(newer),
            None => Self::parse_classic(rest),
        }
    }

    /// `__vaddus4`, `__vcmpgts2`, `__vsetne4`, ...
    fn parse_classic(rest: &str) -> Option<SimdFn> {
        let (stem, lanes) = if let Some(s) = rest.strip_suffix('2') {
            (s, 16)
        } else {
            (rest.strip_suffix('4')?, 8)
        };
        let (op, signed) = if let Some(&(_, op, signed)) = CLASSIC.iter().find(|c| c.0 == stem) {
            (op, signed)
        } else {
            let (mask, cond) = match (stem.strip_prefix("cmp"), stem.strip_prefix("set")) {
                (Some(cond), _) => (true, cond),
                (_, Some(cond)) => (false, cond),
                _ => return None,
            };
            let &(_, cmp, signed) = COMPARISONS.iter().find(|c| c.0 == cond)?;
            (SimdOp::Compare { cmp, mask }, signed)
        };
        Some(SimdFn {
            op,
            lane_bits: lanes,
            signed,
            relu: false,
        })
    }

    /// `__vimax3_s16x2`, `__viaddmin_u32`, `__vibmax_s32`, `__vimin_s32_relu`, ...
    fn parse_newer(rest: &str) -> Option<SimdFn> {
        let (rest, relu) = match rest.strip_suffix("_relu") {
            Some(r) => (r, true),
            None => (rest, false),
        };
        let (stem, ty) = rest.split_once('_')?;
        let (signed, lane_bits) = match ty {
            "s32" => (true, 32),
            "u32" => (false, 32),
            "s16x2" => (true, 16),
            "u16x2" => (false, 16),
            _ => return None,
        };
        let &(_, op, relu_only) = NEWER.iter().find(|n| n.0 == stem)?;
        let relu_allowed = signed && !matches!(op, SimdOp::MaxPred | SimdOp::MinPred);
        if (relu && !relu_allowed) || (relu_only && !relu) {
            return None;
        }
        Some(SimdFn {
            op,
            lane_bits,
            signed,
            relu,
        })
    }

    /// How many `unsigned int` (or `int`) operands it takes.
    pub fn operands(&self) -> usize {
        match self.op {
            SimdOp::Neg | SimdOp::NegSat | SimdOp::Abs | SimdOp::AbsSat => 1,
            SimdOp::Max3 | SimdOp::Min3 | SimdOp::AddMax | SimdOp::AddMin => 3,
            _ => 2,
        }
    }

    /// How many `bool *` outputs follow the operands (one per lane).
    pub fn predicates(&self) -> usize {
        match self.op {
            SimdOp::MaxPred | SimdOp::MinPred => (32 / self.lane_bits) as usize,
            _ => 0,
        }
    }

    /// The type of the operands and of the result: `int` for the signed
    /// 32-bit forms (`__vimax3_s32`), `unsigned int` for every other.
    pub fn value_type(&self) -> CType {
        if self.signed && self.lane_bits == 32 {
            CType::INT
        } else {
            CType::UINT
        }
    }

    /// CUDA's parameter types.
    pub fn params(&self) -> Vec<CType> {
        let mut params = vec![self.value_type(); self.operands()];
        params.extend(vec![CType::ptr_to(CType::Bool); self.predicates()]);
        params
    }

    /// The lanes in a 32-bit word.
    pub fn lanes(&self) -> u32 {
        32 / self.lane_bits
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_to_what_they_compute() {
        let f = SimdFn::parse("__vaddus4").unwrap();
        assert_eq!((f.op, f.lane_bits, f.signed), (SimdOp::AddSat, 8, false));
        let f = SimdFn::parse("__vcmpgts2").unwrap();
        let gt = SimdOp::Compare {
            cmp: LaneCmp::Gt,
            mask: true,
        };
        assert_eq!((f.op, f.lane_bits, f.signed), (gt, 16, true));
        let f = SimdFn::parse("__vimax3_s16x2_relu").unwrap();
        assert_eq!((f.op, f.lane_bits, f.relu), (SimdOp::Max3, 16, true));
        assert_eq!(SimdFn::parse("__vibmin_u32").unwrap().params().len(), 3);
        assert_eq!(SimdFn::parse("__vibmin_u16x2").unwrap().params().len(), 4);
    }

    #[test]
    fn names_cuda_does_not_declare_are_not_intrinsics() {
        for name in [
            "__vhadd2",
            "__vabss4",
            "__vadd8",
            "__vimax_s32",
            "__vimax3_u32_relu",
            "__vibmax_s32_relu",
            "__viaddmax_s8x4",
            "__vset2",
            "__vcmpgt4",
        ] {
            assert_eq!(SimdFn::parse(name), None, "{name}");
        }
    }
}
