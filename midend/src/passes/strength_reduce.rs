//! `strength-reduce`: addresses and indices that are linear in a loop's
//! counter become counters of their own, stepped by an addition.
//!
//! In `for (int r = 0; r < rows; ++r) s += A[(size_t)r * cols + col];`
//! every iteration computes `A + (sext(r)·sext(cols) + col)·4`: a 64-bit
//! multiply, two adds and a shift. The address is `X·r + Y` with `X =
//! 4·cols` and `Y = A + 4·col` the same in every iteration, so it can be
//! carried from one iteration to the next as a pointer `P`, set to `X·a + Y`
//! before the loop (`a` the counter's first value) and stepped by `X` in the
//! latch. This is what nvcc does, and what `unroll-runtime` needs before it
//! copies a body four times (without it each copy recomputes its product).
//!
//! The pass takes innermost loops with one latch and a preheader (`licm`
//! makes them), in the bottom-tested form of `rotate`. A counter is a
//! header parameter whose back-edge value is the parameter plus a constant.
//! The linear values are built up from it:
//!
//! - the counter `i` itself (`1·i + 0`);
//! - `e + k`, `e - k`, `k + e`, `e·k`, `k·e`, `e << c` for a linear `e`, a
//!   loop-invariant `k` and a constant `c`: at the same width, in the
//!   wrap-around arithmetic of the IR, so always exact;
//! - `sext(i)` (`zext(i)`) at 64 bits, only when the counter steps by 1, the
//!   latch's test is `i + 1 < n` signed (unsigned) against an invariant `n`
//!   and the loop's entry is guarded by `a < n`: then the counter never
//!   wraps (every value it takes is below `n`), so widening it commutes
//!   with the step;
//! - `ptroffset p, e` for an invariant pointer `p`.
//!
//! A value is reduced when it is linear, some instruction that is not
//! itself linear in the same counter reads it (a load's address, a `sext`
//! of a wrapping index, a comparison) and it contains a multiply or a
//! shift: replacing `i + k` would only trade one add for another. A 64-bit
//! integer read only by right shifts (the high half of `divconst`'s
//! multiply) is left alone: its one `mul.wide` is cheaper than a 64-bit
//! counter's two additions. Each
//! reduced value becomes a new header parameter, with its first value
//! computed in the preheader and its step (`X·step`) added in the latch; the
//! old instructions are left to `dce`.

use super::unroll_runtime::guard_proves_first_trip;
use super::Changed;
use crate::analysis::{ensure_preheader, Analyses, Cfg, LoopAnalysis};
use crate::builder::{FuncCursor, InstBuilder};
use crate::ir::{Block, Function, Inst, InstData, IntCC, Opcode, Type, Value, ValueDef};
use cranelift_entity::SecondaryMap;
use rustc_hash::{FxHashMap, FxHashSet};

/// A loop-invariant quantity, built in the preheader when it is needed.
#[derive(Clone, Debug, PartialEq)]
enum Sym {
    Const(i64),
    Val(Value),
    Add(Box<Sym>, Box<Sym>),
    Sub(Box<Sym>, Box<Sym>),
    Mul(Box<Sym>, Box<Sym>),
}

impl Sym {
    fn add(a: Sym, b: Sym) -> Sym {
        match (a, b) {
            (Sym::Const(0), b) => b,
            (a, Sym::Const(0)) => a,
            (Sym::Const(x), Sym::Const(y)) => Sym::Const(x.wrapping_add(y)),
            (a, b) => Sym::Add(Box::new(a), Box::new(b)),
        }
    }
    fn sub(a: Sym, b: Sym) -> Sym {
        match (a, b) {
            (a, Sym::Const(0)) => a,
            (Sym::Const(x), Sym::Const(y)) => Sym::Const(x.wrapping_sub(y)),
            (a, b) => Sym::Sub(Box::new(a), Box::new(b)),
        }
    }
    fn mul(a: Sym, b: Sym) -> Sym {
        match (a, b) {
            (Sym::Const(0), _) | (_, Sym::Const(0)) => Sym::Const(0),
            (Sym::Const(1), b) => b,
            (a, Sym::Const(1)) => a,
            (Sym::Const(x), Sym::Const(y)) => Sym::Const(x.wrapping_mul(y)),
            (a, b) => Sym::Mul(Box::new(a), Box::new(b)),
        }
    }
}

/// `value = scale·counter + offset` (for a pointer: `offset` is the base
/// pointer plus the constant part, `scale` the bytes per step of the
/// counter), at the value's own type.
#[derive(Clone, Debug)]
struct Linear {
    /// Index of the counter among the header's parameters.
    counter: usize,
    /// The counter widened to 64 bits (`sext`/`zext`) on the way.
    widened: Option<Opcode>,
    scale: Sym,
    offset: Sym,
    /// Whether a multiply or shift went into it.
    costly: bool,
    /// A pointer (`offset` is a pointer, `scale` a byte count).
    pointer: bool,
}

impl Linear {
    /// The counter with index `k` itself: `1·i + 0`.
    fn counter(k: usize) -> Linear {
        Linear {
            counter: k,
            widened: None,
            scale: Sym::Const(1),
            offset: Sym::Const(0),
            costly: false,
            pointer: false,
        }
    }
}

/// A counter: a header parameter stepping by `step`.
#[derive(Clone, Copy)]
struct Counter {
    step: i64,
    /// `sext`/`zext` of it commute with the step (see the module comment).
    widens: (bool, bool),
}

/// The pass-table entry; returns what changed (the CFG too, when a loop
/// was given a preheader).
pub fn reduce_strength(func: &mut Function, analyses: &mut Analyses) -> Changed {
    if func.layout.entry_block().is_none() {
        return Changed::Nothing;
    }
    let Cfg { loops, preds, .. } = analyses.cfg(func);
    // A copy: making preheaders updates it.
    let mut analysis = loops.clone();
    let inner: FxHashSet<usize> = analysis.loops.iter().filter_map(|l| l.parent).collect();
    // Layout positions (new preheaders join the layout only at the end).
    let position = func.layout.block_positions();
    // Predecessors as they were at the start. The pass changes edges only
    // by giving loops preheaders, which moves the entering edges of a
    // header into a new block; a header also has its latch, so the map
    // still tells a block with one predecessor from one with several.
    let mut made: FxHashMap<Block, Vec<Block>> = FxHashMap::default();
    let mut changed = false;
    for index in 0..analysis.loops.len() {
        if inner.contains(&index) {
            continue;
        }
        changed |= reduce_loop(func, &mut analysis, index, &position, preds, &mut made);
    }
    if changed {
        func.layout.insert_blocks_before(&made);
        func.dfg.resolve_all_aliases();
    }
    if made.is_empty() {
        Changed::insts_if(changed)
    } else {
        Changed::Cfg
    }
}

// Long: the steps of the rewrite (find the entry and counters, the linear
// values, the roots, group them, then build each counter) share the
// loop's maps of linear values; each step is a commented paragraph.
fn reduce_loop(
    func: &mut Function,
    analysis: &mut LoopAnalysis,
    index: usize,
    position: &FxHashMap<Block, usize>,
    preds: &SecondaryMap<Block, Vec<Block>>,
    made: &mut FxHashMap<Block, Vec<Block>>,
) -> bool {
    let lp = analysis.loops[index].clone();
    let header = lp.header;
    let [latch] = lp.latches[..] else {
        return false;
    };
    // The one block that enters the loop: a preheader, or a guard.
    let [enter] = lp.entering[..] else {
        return false;
    };
    let Some(back_branch) = func.layout.last_inst(latch) else {
        return false;
    };
    let back_args: Vec<Value> = match &func.dfg.insts[back_branch] {
        InstData::Jump { dest } if dest.block == header => dest.args.clone(),
        InstData::Brif {
            then_dest,
            else_dest,
            ..
        } if (then_dest.block == header) != (else_dest.block == header) => {
            if then_dest.block == header {
                then_dest.args.clone()
            } else {
                else_dest.args.clone()
            }
        }
        _ => return false,
    };
    let invariant =
        |func: &Function, v: Value| -> bool { func.def_block(v).is_some_and(|b| !lp.contains(b)) };
    // The counters.
    let params = func.dfg.block_params(header).to_vec();
    let mut counters: FxHashMap<Value, (usize, Counter)> = FxHashMap::default();
    for (k, &p) in params.iter().enumerate() {
        let Some(&next) = back_args.get(k) else {
            return false;
        };
        let next = func.dfg.resolve_aliases(next);
        let ValueDef::Result(inst, _) = func.dfg.value_def(next) else {
            continue;
        };
        let InstData::Binary {
            opcode: Opcode::Iadd,
            args,
        } = func.dfg.insts[inst]
        else {
            continue;
        };
        let [x, y] = args.map(|v| func.dfg.resolve_aliases(v));
        let step = match (x == p, y == p) {
            (true, false) => func.dfg.iconst_value(y),
            (false, true) => func.dfg.iconst_value(x),
            _ => None,
        };
        let Some(step) = step else {
            continue;
        };
        let widens = if step == 1 && func.dfg.value_type(p) == Type::I32 {
            let test =
                func.layout
                    .block_insts(latch)
                    .iter()
                    .find_map(|&i| match func.dfg.insts[i] {
                        InstData::IntCompare { cond, args } => {
                            let [a, b] = args.map(|v| func.dfg.resolve_aliases(v));
                            if a == next && invariant(func, b) {
                                Some((cond, b, i))
                            } else {
                                None
                            }
                        }
                        _ => None,
                    });
            match test {
                Some((cc @ (IntCC::Slt | IntCC::Ult), bound, cmp))
                    if branch_stays_on(
                        func,
                        back_branch,
                        func.dfg.inst_results(cmp)[0],
                        header,
                    ) && guard_proves_first_trip(func, preds, header, enter, k, (cc, bound))
                        == Some(true) =>
                {
                    (cc == IntCC::Slt, cc == IntCC::Ult)
                }
                _ => (false, false),
            }
        } else {
            (false, false)
        };
        counters.insert(p, (k, Counter { step, widens }));
    }
    if counters.is_empty() {
        return false;
    }
    // Linear values, in layout order (operands before their readers),
    // starting from the counters themselves.
    let mut linear: FxHashMap<Value, Linear> = counters
        .iter()
        .map(|(&p, &(k, _))| (p, Linear::counter(k)))
        .collect();
    let mut order: Vec<Block> = lp.blocks.iter().copied().collect();
    order.sort_by_key(|b| position.get(b).copied().unwrap_or(usize::MAX));
    for &b in &order {
        for &inst in func.layout.block_insts(b) {
            let Some(&r) = func.dfg.inst_results(inst).first() else {
                continue;
            };
            if let Some(l) = linear_form(func, inst, &linear, &counters, &invariant) {
                linear.insert(r, l);
            }
        }
    }
    // The roots: costly linear values read by an instruction that is not
    // linear in the same counter. A 64-bit product read only by right
    // shifts is the high half of a multiply (`divconst`'s `i / 3`): one
    // `mul.hi` or `mul.wide` per iteration is cheaper than a 64-bit
    // counter, so it is left alone.
    let mut candidates: Vec<Value> = Vec::new();
    let mut worth: FxHashSet<Value> = FxHashSet::default();
    for &b in &order {
        for &inst in func.layout.block_insts(b) {
            let reader_linear = func
                .dfg
                .inst_results(inst)
                .first()
                .and_then(|r| linear.get(r))
                .map(|l| l.counter);
            let high_half = matches!(
                &func.dfg.insts[inst],
                InstData::Binary {
                    opcode: Opcode::Ushr | Opcode::Sshr,
                    ..
                }
            );
            let mut found = Vec::new();
            func.dfg.insts[inst].for_each_arg(|v| {
                let v = func.dfg.resolve_aliases(v);
                if let Some(l) = linear.get(&v) {
                    if l.costly && reader_linear != Some(l.counter) {
                        found.push(v);
                    }
                }
            });
            for v in found {
                if !candidates.contains(&v) {
                    candidates.push(v);
                }
                let wide_product = !linear[&v].pointer && func.dfg.value_type(v) == Type::I64;
                if !(high_half && wide_product) {
                    worth.insert(v);
                }
            }
        }
    }
    let mut roots: Vec<(Inst, Value)> = Vec::new();
    for v in candidates {
        if !worth.contains(&v) {
            continue;
        }
        if let ValueDef::Result(def, _) = func.dfg.value_def(v) {
            roots.push((def, v));
        }
    }
    if roots.is_empty() {
        return false;
    }
    let (pre, new) = ensure_preheader(func, analysis, index);
    if new {
        made.insert(header, vec![pre]);
    }
    let pre_jump = func
        .layout
        .last_inst(pre)
        .expect("a preheader ends in a jump");
    let pre_args: Vec<Value> = match &func.dfg.insts[pre_jump] {
        InstData::Jump { dest } => dest.args.clone(),
        _ => return false,
    };
    // Roots that differ only by a constant (`p[i*s + 1]`, `p[i*s + 2]`)
    // share one counter: the first root's, plus the difference.
    let mut groups: Vec<(Linear, Type, i64, Value)> = Vec::new();
    for (def, v) in roots {
        let l = linear[&v].clone();
        let ty = func.dfg.value_type(v);
        let (rest, c) = split_constant(&l.offset, l.pointer);
        let shared = groups.iter().find(|(g, gty, _, _)| {
            *gty == ty
                && g.counter == l.counter
                && g.widened == l.widened
                && g.pointer == l.pointer
                && g.scale == l.scale
                && g.offset == rest
        });
        if let Some(&(_, _, c0, q)) = shared {
            let delta = match ty {
                Type::I32 => i64::from(c.wrapping_sub(c0) as i32),
                _ => c.wrapping_sub(c0),
            };
            let int_ty = if l.pointer { Type::I64 } else { ty };
            let op = if l.pointer {
                Opcode::PtrOffset
            } else {
                Opcode::Iadd
            };
            let mut cur = FuncCursor::before_with_span(func, def);
            let k = cur.iconst(int_ty, delta);
            let same = cur.binary(op, q, k);
            func.layout.remove_inst(def);
            func.dfg.change_to_alias(v, same);
            continue;
        }
        let group_key = Linear {
            offset: rest,
            ..l.clone()
        };
        let counter = counters
            .values()
            .find(|(k, _)| *k == l.counter)
            .map(|&(_, c)| c)
            .expect("a counter");
        // First value: scale·widen(a) + offset, in the preheader.
        let a = func.dfg.resolve_aliases(pre_args[l.counter]);
        let a = match l.widened {
            Some(op) => FuncCursor::before_with_span(func, pre_jump).convert(op, Type::I64, a),
            None => a,
        };
        let int_ty = if l.pointer { Type::I64 } else { ty };
        let scale = build(func, pre_jump, &l.scale, int_ty);
        let scaled = FuncCursor::before_with_span(func, pre_jump).imul(scale, a);
        let first = if l.pointer {
            let base = build_pointer(func, pre_jump, &l.offset);
            FuncCursor::before_with_span(func, pre_jump).ptroffset(base, scaled)
        } else {
            let offset = build(func, pre_jump, &l.offset, int_ty);
            FuncCursor::before_with_span(func, pre_jump).iadd(scaled, offset)
        };
        let step = Sym::mul(l.scale.clone(), Sym::Const(counter.step));
        let step = build(func, pre_jump, &step, int_ty);
        // The new parameter, and its step in the latch.
        let q = func.dfg.append_block_param(header, ty);
        let mut cur = FuncCursor::before_with_span(func, back_branch);
        let next = if l.pointer {
            cur.ptroffset(q, step)
        } else {
            cur.iadd(q, step)
        };
        push_arg(func, pre_jump, header, first);
        push_arg(func, back_branch, header, next);
        // What computed `v` in the loop goes; what it read is left to `dce`.
        func.layout.remove_inst(def);
        func.dfg.change_to_alias(v, q);
        groups.push((group_key, ty, c, q));
    }
    true
}

/// An offset as its non-constant part and a constant added to it (for a
/// pointer, inside the base: `base + (x + c)`).
fn split_constant(offset: &Sym, pointer: bool) -> (Sym, i64) {
    fn split(s: &Sym) -> (Sym, i64) {
        match s {
            Sym::Const(c) => (Sym::Const(0), *c),
            Sym::Add(a, b) => match **b {
                Sym::Const(c) => {
                    let (r, k) = split(a);
                    (r, k.wrapping_add(c))
                }
                _ => (s.clone(), 0),
            },
            Sym::Sub(a, b) => match **b {
                Sym::Const(c) => {
                    let (r, k) = split(a);
                    (r, k.wrapping_sub(c))
                }
                _ => (s.clone(), 0),
            },
            _ => (s.clone(), 0),
        }
    }
    match (offset, pointer) {
        (Sym::Add(base, inner), true) => {
            let (r, c) = split(inner);
            (Sym::Add(base.clone(), Box::new(r)), c)
        }
        (_, true) => (offset.clone(), 0),
        (s, false) => split(s),
    }
}

/// Whether `branch` goes to `to` exactly when `cond` is true.
fn branch_stays_on(func: &Function, branch: Inst, cond: Value, to: Block) -> bool {
    match &func.dfg.insts[branch] {
        InstData::Brif {
            cond: c,
            then_dest,
            else_dest,
        } => func.dfg.resolve_aliases(*c) == cond && then_dest.block == to && else_dest.block != to,
        _ => false,
    }
}

/// The linear form of `inst`'s result, if it has one.
fn linear_form(
    func: &Function,
    inst: Inst,
    linear: &FxHashMap<Value, Linear>,
    counters: &FxHashMap<Value, (usize, Counter)>,
    invariant: &dyn Fn(&Function, Value) -> bool,
) -> Option<Linear> {
    let of = |v: Value| -> Option<Linear> { linear.get(&func.dfg.resolve_aliases(v)).cloned() };
    let inv = |v: Value| -> Option<Sym> {
        let v = func.dfg.resolve_aliases(v);
        if let Some(c) = func.dfg.iconst_value(v) {
            return Some(Sym::Const(c));
        }
        invariant(func, v).then_some(Sym::Val(v))
    };
    match &func.dfg.insts[inst] {
        InstData::Binary { opcode, args } => {
            let [x, y] = *args;
            match opcode {
                Opcode::Iadd | Opcode::Isub | Opcode::Imul => {
                    let (e, k) = match (of(x), inv(y)) {
                        (Some(e), Some(k)) => (e, k),
                        _ => match (inv(x), of(y)) {
                            (Some(k), Some(e)) if *opcode != Opcode::Isub => (e, k),
                            _ => return None,
                        },
                    };
                    if e.pointer {
                        return None;
                    }
                    Some(match opcode {
                        Opcode::Iadd => Linear {
                            offset: Sym::add(e.offset, k),
                            ..e
                        },
                        Opcode::Isub => Linear {
                            offset: Sym::sub(e.offset, k),
                            ..e
                        },
                        _ => Linear {
                            scale: Sym::mul(e.scale, k.clone()),
                            offset: Sym::mul(e.offset, k),
                            costly: true,
                            ..e
                        },
                    })
                }
                Opcode::Ishl => {
                    let e = of(x)?;
                    let c = func.dfg.iconst_value(func.dfg.resolve_aliases(y))?;
                    let bits = func.dfg.value_type(x).bits();
                    if e.pointer || !(0..i64::from(bits)).contains(&c) || c >= 63 {
                        return None;
                    }
                    let k = Sym::Const(1i64 << c);
                    Some(Linear {
                        scale: Sym::mul(e.scale, k.clone()),
                        offset: Sym::mul(e.offset, k),
                        costly: true,
                        ..e
                    })
                }
                Opcode::PtrOffset => {
                    let base = func.dfg.resolve_aliases(x);
                    if !invariant(func, base) {
                        return None;
                    }
                    let e = of(y)?;
                    if e.pointer || func.dfg.value_type(y) != Type::I64 {
                        return None;
                    }
                    Some(Linear {
                        offset: Sym::Add(Box::new(Sym::Val(base)), Box::new(e.offset)),
                        pointer: true,
                        ..e
                    })
                }
                _ => None,
            }
        }
        InstData::Convert {
            opcode: op @ (Opcode::Sext | Opcode::Zext),
            ty: Type::I64,
            arg,
        } => {
            let arg = func.dfg.resolve_aliases(*arg);
            let &(k, c) = counters.get(&arg)?;
            let ok = match op {
                Opcode::Sext => c.widens.0,
                _ => c.widens.1,
            };
            ok.then_some(Linear {
                widened: Some(*op),
                ..Linear::counter(k)
            })
        }
        _ => None,
    }
}

/// Materializes an integer `Sym` of type `ty` before `before`.
fn build(func: &mut Function, before: Inst, s: &Sym, ty: Type) -> Value {
    match s {
        Sym::Const(c) => {
            // At the type's width, sign-extended as `iconst` holds it.
            let imm = match ty {
                Type::I32 => i64::from(*c as i32),
                _ => *c,
            };
            FuncCursor::before_with_span(func, before).iconst(ty, imm)
        }
        Sym::Val(v) => *v,
        Sym::Add(a, b) | Sym::Sub(a, b) | Sym::Mul(a, b) => {
            let x = build(func, before, a, ty);
            let y = build(func, before, b, ty);
            let op = match s {
                Sym::Add(..) => Opcode::Iadd,
                Sym::Sub(..) => Opcode::Isub,
                _ => Opcode::Imul,
            };
            FuncCursor::before_with_span(func, before).binary(op, x, y)
        }
    }
}

/// Materializes a pointer `Sym` (`base + integer part`).
fn build_pointer(func: &mut Function, before: Inst, s: &Sym) -> Value {
    match s {
        Sym::Add(a, b) => {
            let Sym::Val(base) = **a else {
                unreachable!("a pointer offset starts with its base")
            };
            if **b == Sym::Const(0) {
                return base;
            }
            let off = build(func, before, b, Type::I64);
            FuncCursor::before_with_span(func, before).ptroffset(base, off)
        }
        _ => unreachable!("a pointer offset is `base + offset`"),
    }
}

/// Adds `arg` to the arguments `branch` passes to `to`.
fn push_arg(func: &mut Function, branch: Inst, to: Block, arg: Value) {
    for d in func.dfg.insts[branch].branch_destinations_mut() {
        if d.block == to {
            d.args.push(arg);
        }
    }
}
