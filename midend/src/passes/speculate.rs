//! Which instructions a pass may *speculate*: execute on a path where the
//! program did not execute them before (moved above a branch, or merged
//! with a copy on another path and placed where both paths pass).
//!
//! Two conditions. The instruction must be safe to run at any time: no
//! effect, no memory read (a load can fault, and memory can change), not a
//! warp collective (which lanes run it matters), not a special register
//! that changes while the thread runs. Pure arithmetic never faults: the
//! interpreter and PTX both define division by zero and out-of-range
//! shifts. And it must be cheap, because a speculated instruction costs
//! time on the paths that did not need it: one ALU operation, not a
//! division, a square root or a transcendental function (a multi-instruction
//! software sequence on the GPU).

use crate::ir::{InstData, Opcode};

/// Whether `data` may run where it did not before, at the price of one
/// cheap operation.
pub fn is_cheap_speculatable(data: &InstData) -> bool {
    use Opcode::*;
    match data {
        InstData::SpecialReg { reg } => reg.is_invariant(),
        InstData::Iconst { .. } | InstData::Fconst { .. } => true,
        InstData::GlobalAddr { .. } | InstData::StackAddr { .. } => true,
        InstData::Unary { opcode, .. } => {
            matches!(opcode, Ineg | Bnot | Fneg | Fabs | Popcnt | Clz | Bitrev)
        }
        InstData::Binary { opcode, .. } => !matches!(
            opcode,
            Sdiv | Udiv | Srem | Urem | Fdiv | FdivApprox | FdivFull
        ),
        InstData::Ternary { .. } => true,
        InstData::IntCompare { .. } | InstData::FloatCompare { .. } => true,
        InstData::Convert { opcode, .. } => matches!(
            opcode,
            Sext | Zext | Trunc | Bitcast | Ptrtoint | Inttoptr | Fpext | Fptrunc
        ),
        InstData::AddrSpaceCast { .. } => true,
        _ => false,
    }
}

/// Whether `data` is a constant (free: instruction selection folds it into
/// the instructions that use it).
pub fn is_constant(data: &InstData) -> bool {
    matches!(data, InstData::Iconst { .. } | InstData::Fconst { .. })
}
