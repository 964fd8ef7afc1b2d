//! `rebase`: inside a loop, address an element of a row from the kernel
//! parameter, not from a row pointer made before the loop.
//!
//! `const float *x = in + row * cols;` followed by a loop over `x[c]`
//! lowers to a row pointer made once and an offset from it in the loop:
//!
//! ```text
//! block0(v0: ptr<global>, ...):                block0(v0: ptr<global>, ...):
//!     v11 = imul v9, v10          ; row*cols*4     ...
//!     v12 = ptroffset v0, v11                  block3(v30: i32):
//!     ...                              ==>         v29 = sext.i64 v30
//! block3(v30: i32):                                v40 = iadd v9, v29   ; row*cols + c
//!     v29 = sext.i64 v30                           v41 = imul v40, v10
//!     v31 = imul v29, v10         ; c*4            v32 = ptroffset v0, v41
//!     v32 = ptroffset v12, v31                     v33 = load.f32 v32
//!     v33 = load.f32 v32
//! ```
//!
//! Both compute the same address (`in + (row*cols + c)*4`, exactly, in
//! wrapping 64-bit arithmetic). The row pointer is a 64-bit value that
//! must live in a pair of registers through the loop (and through
//! everything between the loops that use it), because the `IMAD.WIDE`
//! ptxas makes of `c * 4 + x` takes its addend from vector registers. The
//! parameter `in` needs no register at all: ptxas reads it from the
//! constant bank where the driver put it. So the rewritten form keeps only
//! the 64-bit `row * cols` live, shared by every row pointer made from it
//! (`x` and `y` in a LayerNorm). That is the form nvcc's PTX has, and on
//! the kernels of `tests/outside/` and `tests/corpus/` it is what ptxas
//! needs to allocate as few registers as for nvcc's (softmax_rows 20 to
//! 16, layernorm_row 24 to 20); it costs an add per access.
//!
//! The pass rewrites `ptroffset(ptroffset(P, X * S), Y * S)` where `P` is
//! a parameter of a kernel, `S` the same constant on both sides, `X` not a
//! constant, and the outer `ptroffset` is inside a loop that the inner one
//! is outside of; and only when every read of the row pointer is such an
//! access and either another row pointer shares its `X` or a loop already
//! computes one of its sums `X + Y` (see below). Loops that
//! `strength-reduce` turned into pointer increments no longer have this
//! shape and are left as they are.

use super::Changed;
use crate::analysis::Analyses;
use crate::builder::{FuncCursor, InstBuilder};
use crate::ir::{Function, Inst, InstData, Opcode, Value};
use rustc_hash::{FxHashMap, FxHashSet};

/// The pass-table entry; returns what changed (never the CFG).
pub fn rebase_addresses(func: &mut Function, analyses: &mut Analyses) -> Changed {
    if !func.is_kernel() || func.layout.entry_block().is_none() {
        return Changed::Nothing;
    }
    let loops = analyses.cfg(func).loops;
    let innermost = loops.innermost_map();
    // How many times each value is read, to tell whether a row pointer
    // dies once its accesses are rewritten; and the sums `a + b` loops
    // compute (see below), both ways round.
    let mut reads: FxHashMap<Value, usize> = FxHashMap::default();
    let mut sums: FxHashSet<(Value, Value)> = FxHashSet::default();
    for (block, inst) in func.layout.insts() {
        func.dfg.insts[inst].for_each_arg(|v| {
            *reads.entry(func.dfg.resolve_aliases(v)).or_default() += 1;
        });
        if let InstData::Binary {
            opcode: Opcode::Iadd,
            args: [a, b],
        } = func.dfg.insts[inst]
        {
            if innermost.contains_key(&block) {
                let (a, b) = (func.dfg.resolve_aliases(a), func.dfg.resolve_aliases(b));
                sums.insert((a, b));
                sums.insert((b, a));
            }
        }
    }
    // The accesses that may be rewritten, and how many of each row
    // pointer's reads they are.
    let mut candidates: Vec<Access> = Vec::new();
    let mut covered: FxHashMap<Value, usize> = FxHashMap::default();
    for (block, inst) in func.layout.insts() {
        let Some(&index) = innermost.get(&block) else {
            continue;
        };
        let Some(access) = matches(func, inst) else {
            continue;
        };
        // The row pointer must be made outside the loop (else it is no
        // longer live through it).
        if func
            .def_block(access.row)
            .is_none_or(|d| loops.loops[index].contains(d))
        {
            continue;
        }
        *covered.entry(access.row).or_default() += 1;
        candidates.push(access);
    }
    // A row pointer is rewritten away only when every read of it is such
    // an access (so it dies), and only together with another row pointer
    // made from the same row offset (`x` and `y`): then one 64-bit value
    // replaces two through the whole kernel. A lone row pointer would
    // trade two registers for two and pay an add per access
    // (cross_entropy's loops grew from 357 to 409 SASS instructions that
    // way).
    //
    // A lone row pointer is also rewritten when a loop already computes
    // the sum `X + Y` one of its accesses needs (a second array indexed
    // `(size_t)row * cols + c` directly, as `q` in a quantization kernel):
    // `gvn` then shares that sum, and again only `X` stays live.
    let mut by_offset: FxHashMap<Value, Vec<Value>> = FxHashMap::default();
    let mut summed: FxHashSet<Value> = FxHashSet::default();
    for a in &candidates {
        if covered[&a.row] == reads.get(&a.row).copied().unwrap_or(0) {
            let rows = by_offset.entry(a.x).or_default();
            if !rows.contains(&a.row) {
                rows.push(a.row);
            }
            if sums.contains(&(a.x, func.dfg.resolve_aliases(a.y))) {
                summed.insert(a.row);
            }
        }
    }
    candidates.retain(|a| {
        summed.contains(&a.row)
            || by_offset
                .get(&a.x)
                .is_some_and(|rows| rows.len() >= 2 && rows.contains(&a.row))
    });
    for a in &candidates {
        let offset = {
            let mut cur = FuncCursor::before_with_span(func, a.inst);
            let sum = cur.iadd(a.x, a.y);
            // A power-of-two size prints as `shl.b64` (isel), which ptxas
            // allocates better than the multiply.
            cur.imul(sum, a.size)
        };
        func.dfg.insts[a.inst] = InstData::Binary {
            opcode: Opcode::PtrOffset,
            args: [a.param, offset],
        };
    }
    Changed::insts_if(!candidates.is_empty())
}

/// `v` as `x * size` with a constant `size`: `(x, size)`.
fn scaled(func: &Function, v: Value) -> Option<(Value, Value)> {
    match func.dfg.defining_data(v)? {
        InstData::Binary {
            opcode: Opcode::Imul,
            args: [a, b],
        } => {
            let (a, b) = (func.dfg.resolve_aliases(*a), func.dfg.resolve_aliases(*b));
            match (func.dfg.iconst_value(a), func.dfg.iconst_value(b)) {
                (None, Some(_)) => Some((a, b)),
                (Some(_), None) => Some((b, a)),
                _ => None,
            }
        }
        _ => None,
    }
}

/// An address `ptroffset(row, y * size)` whose row pointer is `row =
/// ptroffset(param, x * size)`, with `param` a parameter of the function
/// and `size` a constant.
struct Access {
    inst: Inst,
    row: Value,
    param: Value,
    x: Value,
    y: Value,
    size: Value,
}

/// `inst` as an [`Access`].
fn matches(func: &Function, inst: Inst) -> Option<Access> {
    let InstData::Binary {
        opcode: Opcode::PtrOffset,
        args: [row, outer],
    } = &func.dfg.insts[inst]
    else {
        return None;
    };
    let InstData::Binary {
        opcode: Opcode::PtrOffset,
        args: [param, inner],
    } = func.dfg.defining_data(*row)?
    else {
        return None;
    };
    let param = func.dfg.resolve_aliases(*param);
    if !func.params().contains(&param) {
        return None;
    }
    let (x, s1) = scaled(func, *inner)?;
    let (y, size) = scaled(func, *outer)?;
    let scale = func.dfg.iconst_value(size)?;
    if func.dfg.iconst_value(s1)? != scale {
        return None;
    }
    Some(Access {
        inst,
        row: func.dfg.resolve_aliases(*row),
        param,
        x: func.dfg.resolve_aliases(x),
        y,
        size,
    })
}
