//! `fold-offsets`: move the constant part of an address offset to the
//! outside, where the memory instruction absorbs it.
//!
//! PTX addresses take a constant displacement for free: `ld.shared.f32 %f1,
//! [%r7+1056]`. The frontend computes each address from its C expression,
//! so `tile[threadIdx.y + 8][threadIdx.x]` arrives as
//!
//! ```text
//! v3 = iadd v1, v2                 ; tid.y + 8
//! v4 = zext.i64 v3
//! v6 = imul v4, v5                 ; * 132 (the row size)
//! v7 = ptroffset v0, v6
//! v10 = ptroffset v7, v9           ; + 4 * tid.x
//! ```
//!
//! and every copy of an unrolled loop computes its own `tid.y + j` row. This
//! pass splits each offset into a variable part and a constant, and moves
//! the constant out of `ptroffset` chains:
//!
//! ```text
//! v11 = zext.i64 v1
//! v12 = imul v11, v5               ; 132 * tid.y
//! v13 = ptroffset v0, v12
//! v14 = ptroffset v13, v9          ; the same in every copy: GVN merges it
//! v10 = ptroffset v14, v15         ; v15 = iconst.i64 1056: [%r+1056]
//! ```
//!
//! The rules, each exact in wrapping arithmetic:
//! - `(x + k)` is `x` plus `k`; `x - k` is `x` plus `-k`; in `x + y` the
//!   constant of either side comes out;
//! - `(x + k) * m` is `x * m` plus `k * m`, `(x + k) << s` is `(x << s)`
//!   plus `k << s`;
//! - `zext(x + k)` is `zext(x) + k` when `x + k` cannot wrap as an unsigned
//!   number, and `sext(x + k)` is `sext(x) + k` when it cannot overflow as
//!   a signed one. C's unsigned arithmetic wraps, so this needs a proof:
//!   the integer ranges of `analysis/ranges.rs` (`%tid.y` is below 1024,
//!   so `tid.y + 8` does not wrap);
//! - `ptroffset(p, x + k)` is `ptroffset(ptroffset(p, x), k)`, and
//!   `ptroffset(ptroffset(p, k), y)` is `ptroffset(ptroffset(p, y), k)`.
//!
//! The new instructions go just before the address they serve; the old
//! ones die (`dce`) unless something else reads them. Each split looks at
//! most [`MAX_DEPTH`] definitions deep.

use super::Changed;
use crate::analysis::ranges::Ranges;
use crate::analysis::Analyses;
use crate::ir::{Function, Inst, InstData, LayoutEdits, Opcode, Type, Value, ValueDef};
use rustc_hash::FxHashMap;
use std::cell::RefCell;

/// How many definitions deep an offset is taken apart.
pub const MAX_DEPTH: u32 = 6;

/// The pass-table entry; returns what changed (never the CFG).
pub fn fold_address_offsets(func: &mut Function, analyses: &mut Analyses) -> Changed {
    let domtree = analyses.domtree(func);
    let mut ranges = Ranges::new();
    let mut peeled: FxHashMap<Value, (Value, i64)> = FxHashMap::default();
    let mut changed = false;
    // Dominators first, so an address is rewritten after the addresses it
    // is built on.
    // The instructions a rewrite makes go in before its `ptroffset`, and
    // the `ptroffset`s that become aliases go, all in one `LayoutEdits`
    // (nothing here reads the layout but each block's list of its own
    // instructions, taken before its rewrites).
    let mut edits = LayoutEdits::default();
    for &block in domtree.reverse_post_order() {
        let insts: Vec<Inst> = func.layout.block_insts(block).to_vec();
        for inst in insts {
            let em = Emitter {
                at: inst,
                made: RefCell::new(Vec::new()),
            };
            match rewrite_ptroffset(func, &mut ranges, &mut peeled, &em) {
                Rewrite::Unchanged => {}
                Rewrite::Changed => changed = true,
                Rewrite::Removed => {
                    changed = true;
                    edits.remove(inst);
                }
            }
            for made in em.made.into_inner() {
                edits.insert_before(made, inst);
            }
        }
    }
    func.layout.apply(edits);
    if changed {
        func.dfg.resolve_all_aliases();
    }
    Changed::insts_if(changed)
}

/// What [`rewrite_ptroffset`] did to its instruction.
enum Rewrite {
    Unchanged,
    Changed,
    /// The `ptroffset` is an alias now; the caller takes it out.
    Removed,
}

fn def_of(func: &Function, v: Value) -> Option<InstData> {
    match func.dfg.value_def(func.dfg.resolve_aliases(v)) {
        ValueDef::Result(i, 0) => Some(func.dfg.insts[i].clone()),
        _ => None,
    }
}

/// `x` canonical for a `bits`-wide integer (sign-extended, as `iconst` holds it).
fn canon(x: i64, bits: u32) -> i64 {
    if bits >= 64 {
        x
    } else {
        (x << (64 - bits)) >> (64 - bits)
    }
}

/// Builds instructions that go just before `at`, in the order made; the
/// caller places them (`made`).
struct Emitter {
    at: Inst,
    made: RefCell<Vec<Inst>>,
}

impl Emitter {
    fn inst(&self, func: &mut Function, data: InstData, ty: Type) -> Value {
        let i = func.dfg.make_inst(data, &[ty]);
        self.made.borrow_mut().push(i);
        func.dfg.first_result(i).expect("one result")
    }

    fn iconst(&self, func: &mut Function, ty: Type, imm: i64) -> Value {
        self.inst(func, InstData::Iconst { ty, imm }, ty)
    }

    fn binary(&self, func: &mut Function, opcode: Opcode, a: Value, b: Value) -> Value {
        let ty = func.dfg.value_type(a);
        self.inst(
            func,
            InstData::Binary {
                opcode,
                args: [a, b],
            },
            ty,
        )
    }
}

/// Splits the integer `v` into `rest + k` with `k != 0`, building `rest`
/// before `em.at` when it is not an existing value. `None` when no
/// constant part is found (or `v` is itself a constant).
fn split(
    func: &mut Function,
    ranges: &mut Ranges,
    em: &Emitter,
    v: Value,
    depth: u32,
) -> Option<(Value, i64)> {
    if depth > MAX_DEPTH {
        return None;
    }
    let ty = func.dfg.value_type(v);
    let bits = ty.bits();
    let d = depth + 1;
    match def_of(func, v)? {
        InstData::Binary {
            opcode: Opcode::Iadd,
            args: [a, b],
        } => {
            for (x, y) in [(a, b), (b, a)] {
                if let Some(k) = func.dfg.iconst_value(y) {
                    return Some(match split(func, ranges, em, x, d) {
                        Some((rest, c)) => (rest, canon(c.wrapping_add(k), bits)),
                        None => (x, k),
                    });
                }
            }
            if let Some((rest, c)) = split(func, ranges, em, a, d) {
                return Some((em.binary(func, Opcode::Iadd, rest, b), c));
            }
            let (rest, c) = split(func, ranges, em, b, d)?;
            Some((em.binary(func, Opcode::Iadd, a, rest), c))
        }
        InstData::Binary {
            opcode: Opcode::Isub,
            args: [a, b],
        } => {
            if let Some(k) = func.dfg.iconst_value(b) {
                return Some(match split(func, ranges, em, a, d) {
                    Some((rest, c)) => (rest, canon(c.wrapping_sub(k), bits)),
                    None => (a, canon(k.wrapping_neg(), bits)),
                });
            }
            if let Some((rest, c)) = split(func, ranges, em, a, d) {
                return Some((em.binary(func, Opcode::Isub, rest, b), c));
            }
            let (rest, c) = split(func, ranges, em, b, d)?;
            Some((
                em.binary(func, Opcode::Isub, a, rest),
                canon(c.wrapping_neg(), bits),
            ))
        }
        InstData::Binary {
            opcode: Opcode::Imul,
            args: [a, b],
        } => {
            let (x, m) = match (func.dfg.iconst_value(a), func.dfg.iconst_value(b)) {
                (_, Some(m)) => (a, m),
                (Some(m), None) => (b, m),
                _ => return None,
            };
            let (rest, c) = split(func, ranges, em, x, d)?;
            let mv = em.iconst(func, ty, m);
            Some((
                em.binary(func, Opcode::Imul, rest, mv),
                canon(c.wrapping_mul(m), bits),
            ))
        }
        InstData::Binary {
            opcode: Opcode::Ishl,
            args: [a, b],
        } => {
            let s = func
                .dfg
                .iconst_value(b)
                .filter(|&s| (0..bits as i64).contains(&s))?;
            let (rest, c) = split(func, ranges, em, a, d)?;
            Some((
                em.binary(func, Opcode::Ishl, rest, b),
                canon(c.wrapping_shl(s as u32), bits),
            ))
        }
        InstData::Convert {
            opcode: opcode @ (Opcode::Zext | Opcode::Sext),
            ty: to,
            arg,
        } => {
            let (rest, c) = split(func, ranges, em, arg, d)?;
            let fits = if opcode == Opcode::Zext {
                ranges.add_fits_unsigned(func, rest, c as i128)
            } else {
                ranges.add_fits_signed(func, rest, c as i128)
            };
            if !fits {
                return None;
            }
            let wide = em.inst(
                func,
                InstData::Convert {
                    opcode,
                    ty: to,
                    arg: rest,
                },
                to,
            );
            Some((wide, canon(c, to.bits())))
        }
        _ => None,
    }
}

/// A pointer as the root of its chain of constant `ptroffset`s plus their
/// sum. Remembered per pointer, so a long chain (`p++` unrolled) is walked
/// once, not once per address built on it.
fn peel(func: &Function, memo: &mut FxHashMap<Value, (Value, i64)>, p: Value) -> (Value, i64) {
    let p = func.dfg.resolve_aliases(p);
    let mut chain = Vec::new();
    let mut at = p;
    let (root, mut k) = loop {
        if let Some(&known) = memo.get(&at) {
            break known;
        }
        match def_of(func, at) {
            Some(InstData::Binary {
                opcode: Opcode::PtrOffset,
                args: [b, o],
            }) => match func.dfg.iconst_value(o) {
                Some(c) => {
                    chain.push((at, c));
                    at = func.dfg.resolve_aliases(b);
                }
                None => break (at, 0),
            },
            _ => break (at, 0),
        }
    };
    // Record the sums from the root outward.
    for &(v, c) in chain.iter().rev() {
        k = k.wrapping_add(c);
        memo.insert(v, (root, k));
    }
    (root, k)
}

/// Rewrites one `ptroffset` (if `inst` is one) so that its constant part
/// is outermost. Returns whether it changed.
fn rewrite_ptroffset(
    func: &mut Function,
    ranges: &mut Ranges,
    peeled: &mut FxHashMap<Value, (Value, i64)>,
    em: &Emitter,
) -> Rewrite {
    let inst = em.at;
    let InstData::Binary {
        opcode: Opcode::PtrOffset,
        args: [base, off],
    } = func.dfg.insts[inst]
    else {
        return Rewrite::Unchanged;
    };
    let oty = func.dfg.value_type(off);
    // An `i32` offset is sign-extended; splitting it would need a proof too.
    if oty != Type::I64 {
        return Rewrite::Unchanged;
    }
    if func.dfg.iconst_value(off).is_some() {
        return Rewrite::Unchanged;
    }
    // Constant links of the base chain come out ...
    let original = func.dfg.resolve_aliases(base);
    let (base, mut k) = peel(func, peeled, original);
    let peeled_any = base != original;
    // ... and so does the offset's.
    let (rest, c) = match split(func, ranges, em, off, 0) {
        Some((rest, c)) => (rest, c),
        None if peeled_any => (off, 0),
        None => return Rewrite::Unchanged,
    };
    k = k.wrapping_add(c);
    let inner = em.inst(
        func,
        InstData::Binary {
            opcode: Opcode::PtrOffset,
            args: [base, rest],
        },
        func.dfg.value_type(base),
    );
    if k == 0 {
        let result = func.dfg.first_result(inst).expect("ptroffset has a result");
        func.dfg.change_to_alias(result, inner);
        return Rewrite::Removed;
    }
    let kv = em.iconst(func, Type::I64, k);
    func.dfg.insts[inst] = InstData::Binary {
        opcode: Opcode::PtrOffset,
        args: [inner, kv],
    };
    Rewrite::Changed
}
