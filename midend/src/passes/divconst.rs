//! `divconst`: integer division and remainder by a power of two, as shifts
//! and masks.
//!
//! PTX's `div.s32`/`rem.s32` become a full software division in SASS
//! (about 20 instructions with a reciprocal and fix-ups). By a constant
//! power of two, shifts and masks give the same bits:
//!
//! - `udiv x, 2^k` is `ushr x, k`; `urem x, 2^k` is `band x, 2^k - 1`.
//! - `sdiv x, 2^k` must round toward zero, and an arithmetic shift rounds
//!   toward minus infinity. Adding `2^k - 1` to a negative dividend first
//!   fixes that: `bias = ushr (sshr x, w-1), w-k` is `2^k - 1` when `x < 0`
//!   and `0` otherwise, and the quotient is `sshr (x + bias), k`. The sum
//!   cannot overflow: a negative `x` plus less than `2^(w-1)` stays in range.
//! - `srem x, 2^k` is `x - ((x + bias) & -2^k)`: the dividend minus the
//!   quotient times `2^k`, so the remainder has the dividend's sign, as C
//!   requires.
//! - By `-2^k`, the quotient is the negated quotient by `2^k`, and the
//!   remainder is the same as by `2^k`. (`INT_MIN / -2` is `2^30`: the
//!   quotient by 2 is `-2^30`, negated.)
//!
//! Division by `0`, `1` and `-1`, and by the most negative value, are left
//! alone (`fold` handles `/ 1`; the others are undefined or rare in C).
//! Other constants would take a multiply-high by a "magic" reciprocal;
//! that is not implemented yet.

use crate::ir::{Function, Inst, InstData, Opcode, Type, Value, ValueDef};

/// The pass-table entry; returns whether anything was rewritten.
pub fn expand_const_division(func: &mut Function) -> bool {
    let mut changed = false;
    let insts: Vec<Inst> = func.layout.insts().map(|(_, i)| i).collect();
    for inst in insts {
        let InstData::Binary { opcode, args } = func.dfg.insts[inst] else {
            continue;
        };
        if !matches!(
            opcode,
            Opcode::Sdiv | Opcode::Udiv | Opcode::Srem | Opcode::Urem
        ) {
            continue;
        }
        let x = func.dfg.resolve_aliases(args[0]);
        let ty = func.dfg.value_type(x);
        let Some(d) = constant(func, args[1]) else {
            continue;
        };
        let w = ty.bits();
        if !ty.is_int() || w < 8 {
            continue;
        }
        let mask: u64 = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
        let unsigned = (d as u64) & mask;
        // The divisor as a signed number of width `w`.
        let signed = ((unsigned << (64 - w)) as i64) >> (64 - w);
        let result = func.dfg.inst_results(inst)[0];
        let mut b = Emitter { func, before: inst };
        let new = match opcode {
            Opcode::Udiv | Opcode::Urem => {
                if !unsigned.is_power_of_two() || unsigned == 1 {
                    continue;
                }
                let k = unsigned.trailing_zeros() as i64;
                if opcode == Opcode::Udiv {
                    let kv = b.iconst(ty, k);
                    b.binary(Opcode::Ushr, x, kv, ty)
                } else {
                    let m = b.iconst(ty, (unsigned - 1) as i64);
                    b.binary(Opcode::Band, x, m, ty)
                }
            }
            _ => {
                let magnitude = signed.unsigned_abs();
                if signed == 0 || magnitude == 1 || !magnitude.is_power_of_two() {
                    continue;
                }
                let k = magnitude.trailing_zeros();
                // |d| = 2^(w-1) is the most negative value: left alone.
                if k >= w - 1 {
                    continue;
                }
                let sign = b.iconst(ty, i64::from(w - 1));
                let bias = if k == 1 {
                    // The bias is the sign bit itself: one shift.
                    b.binary(Opcode::Ushr, x, sign, ty)
                } else {
                    let t = b.binary(Opcode::Sshr, x, sign, ty);
                    let wk = b.iconst(ty, i64::from(w - k));
                    b.binary(Opcode::Ushr, t, wk, ty)
                };
                let sum = b.binary(Opcode::Iadd, x, bias, ty);
                if opcode == Opcode::Sdiv {
                    let kv = b.iconst(ty, i64::from(k));
                    let q = b.binary(Opcode::Sshr, sum, kv, ty);
                    if signed < 0 {
                        b.unary(Opcode::Ineg, q, ty)
                    } else {
                        q
                    }
                } else {
                    let low = b.iconst(ty, -(1i64 << k));
                    let multiple = b.binary(Opcode::Band, sum, low, ty);
                    b.binary(Opcode::Isub, x, multiple, ty)
                }
            }
        };
        func.dfg.change_to_alias(result, new);
        func.layout.remove_inst(inst);
        changed = true;
    }
    if changed {
        func.dfg.resolve_all_aliases();
    }
    changed
}

fn constant(func: &Function, v: Value) -> Option<i64> {
    match func.dfg.value_def(func.dfg.resolve_aliases(v)) {
        ValueDef::Result(inst, _) => match func.dfg.insts[inst] {
            InstData::Iconst { imm, .. } => Some(imm),
            _ => None,
        },
        _ => None,
    }
}

/// Places new instructions before the division, with its source span.
struct Emitter<'f> {
    func: &'f mut Function,
    before: Inst,
}

impl Emitter<'_> {
    fn place(&mut self, data: InstData, ty: Type) -> Value {
        let inst = self.func.dfg.make_inst(data, &[ty]);
        self.func.layout.insert_inst_before(inst, self.before);
        self.func.spans[inst] = self.func.spans[self.before];
        self.func.dfg.inst_results(inst)[0]
    }

    fn iconst(&mut self, ty: Type, imm: i64) -> Value {
        // Constants are stored sign-extended from their width.
        let w = ty.bits();
        let imm = if w == 64 {
            imm
        } else {
            (imm << (64 - w)) >> (64 - w)
        };
        self.place(InstData::Iconst { ty, imm }, ty)
    }

    fn binary(&mut self, opcode: Opcode, a: Value, b: Value, ty: Type) -> Value {
        self.place(
            InstData::Binary {
                opcode,
                args: [a, b],
            },
            ty,
        )
    }

    fn unary(&mut self, opcode: Opcode, arg: Value, ty: Type) -> Value {
        self.place(InstData::Unary { opcode, arg }, ty)
    }
}
