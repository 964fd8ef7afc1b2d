//! Decoding of control flow (branches, calls, exits), barriers, the warp
//! collectives and the warp-wide tensor instructions.

use super::{unsupported, AtomOp, BarRed, Op, Parts, Shape, ShflMode, Tensor, VoteMode};
use crate::error::DecodeError;
use crate::program::{Kind, Operand, Sym, Ty};
use Shape::{Addr, Dst, DstPair, Dsts, Src};

/// Decodes `p` if it is one of this module's instructions.
pub(super) fn decode(p: &Parts) -> Result<Option<Op>, DecodeError> {
    let op = match p.opcode {
        "bra" => match p.args.first() {
            Some(Operand::Label(l)) => Op::Bra(*l),
            _ => return Err(unsupported("an indirect branch")),
        },
        "call" => call(p)?,
        "ret" => Op::Ret,
        "exit" => Op::Exit,
        "trap" => Op::Trap,
        "bar" | "barrier" => barrier(p)?,
        "shfl" => {
            p.expect(&[DstPair, Src, Src, Src])?;
            optional_mask(p, 4)?;
            Op::Shfl(
                p.mods
                    .first_of(&[
                        ("up", ShflMode::Up),
                        ("down", ShflMode::Down),
                        ("bfly", ShflMode::Bfly),
                        ("idx", ShflMode::Idx),
                    ])
                    .unwrap_or(ShflMode::Idx),
            )
        }
        "vote" => {
            p.expect(&[Dst, Src])?;
            optional_mask(p, 2)?;
            Op::Vote(
                p.mods
                    .first_of(&[
                        ("ballot", VoteMode::Ballot),
                        ("all", VoteMode::All),
                        ("any", VoteMode::Any),
                    ])
                    .unwrap_or(VoteMode::Uni),
            )
        }
        "activemask" => {
            p.expect(&[Dst])?;
            Op::Activemask
        }
        "redux" => redux(p)?,
        "match" => match_sync(p)?,
        "wmma" | "mma" | "ldmatrix" | "stmatrix" => Op::Tensor(tensor(p)?),
        // The MMA runs when issued, so its fences and groups have nothing
        // left to order or wait for.
        "wgmma" if p.mods.has(".mma_async") => Op::Tensor(wgmma(p)?),
        "wgmma"
            if p.mods.has(".fence") || p.mods.has(".commit_group") || p.mods.has(".wait_group") =>
        {
            Op::Nop
        }
        "tcgen05" => super::tcgen05::decode(p)?,
        "membar" | "fence" | "nanosleep" | "prefetch" | "prefetchu" | "griddepcontrol"
        | "pmevent" | "brkpt" | "setmaxnreg" => Op::Nop,
        _ => return Ok(None),
    };
    Ok(Some(op))
}

/// A warp collective's member mask at operand `k`, where one is written
/// (without it, the lanes present take part).
fn optional_mask(p: &Parts, k: usize) -> Result<(), DecodeError> {
    match p.args.get(k) {
        Some(o) if !Shape::Src.accepts(o) => Err(unsupported(format!(
            "the member mask of `{}` (not a register or a constant)",
            p.name
        ))),
        _ => Ok(()),
    }
}

/// `call (rets), f, (args)`: the callee's parameters are the caller's
/// call-scope `.param` variables themselves.
fn call(p: &Parts) -> Result<Op, DecodeError> {
    let mut rets: &[Operand] = &[];
    let mut args: &[Operand] = &[];
    let mut callee = None;
    let mut through = None;
    for (at, o) in p.args.iter().enumerate() {
        match o {
            Operand::List(items) if callee.is_none() && through.is_none() => rets = items,
            Operand::List(items) => args = items,
            Operand::Func(f) => callee = Some(*f),
            Operand::Reg(_) if callee.is_none() && through.is_none() => through = Some(at),
            Operand::Prototype | Operand::Label(_) => break,
            _ => return Err(unsupported(format!("the operands of `{}`", p.name))),
        }
    }
    let frames = || -> Result<Vec<usize>, DecodeError> {
        rets.iter()
            .chain(args)
            .map(|o| match o {
                Operand::Sym(Sym::Frame(i), 0) => Ok(*i),
                _ => Err(unsupported("a call argument that is not a .param variable")),
            })
            .collect()
    };
    if let Some(at) = through {
        return Ok(Op::CallIndirect {
            at,
            n_rets: rets.len(),
            n_params: args.len(),
            frames: frames()?,
        });
    }
    let f = callee.ok_or_else(|| unsupported("a call without a function"))?;
    let Some(func) = p.funcs.get(f) else {
        return Err(unsupported("a call of an unknown function"));
    };
    if !func.has_body && func.name == "__assertfail" && rets.is_empty() && args.len() == 5 {
        return Ok(Op::AssertFail { frames: frames()? });
    }
    if !func.has_body && func.name == "vprintf" && rets.len() == 1 && args.len() == 2 {
        return Ok(Op::Vprintf { frames: frames()? });
    }
    if !func.has_body {
        return Err(unsupported(format!(
            "a call of `{}`, which has no body",
            func.name
        )));
    }
    if rets.len() != func.n_rets || args.len() != func.n_params {
        return Err(unsupported(format!(
            "a call of `{}` with {} results and {} arguments (it has {} and {})",
            func.name,
            rets.len(),
            args.len(),
            func.n_rets,
            func.n_params
        )));
    }
    Ok(Op::Call {
        callee: f,
        frames: frames()?,
    })
}

/// `bar.sync`/`barrier.sync` (block-wide), `bar.red.OP`, `bar.warp.sync`.
fn barrier(p: &Parts) -> Result<Op, DecodeError> {
    // `barrier.cluster.arrive[.release|.relaxed][.aligned]` and
    // `barrier.cluster.wait[.acquire][.aligned]`.
    if p.mods.has(".cluster") {
        return if p.mods.has(".arrive") {
            Ok(Op::ClusterArrive)
        } else if p.mods.has(".wait") {
            Ok(Op::ClusterWait)
        } else {
            Err(p.unsupported())
        };
    }
    if p.mods.has(".warp") {
        p.expect(&[Src])?;
        return Ok(Op::WarpSync);
    }
    if p.mods.has(".arrive") {
        return Err(p.unsupported());
    }
    if !p.mods.has(".red") {
        return Ok(Op::Barrier { red: None });
    }
    // `bar.red.OP.TYPE d, a{, b}, {!}c`: the predicate is the last operand.
    p.expect(&[Dst])?;
    if !p.args.last().is_some_and(|o| Shape::Src.accepts(o)) {
        return Err(p.unsupported());
    }
    let red = if p.mods.has(".popc") {
        BarRed::Popc
    } else if p.mods.has(".and") {
        BarRed::And
    } else {
        BarRed::Or
    };
    Ok(Op::Barrier { red: Some(red) })
}

/// `redux.sync.OP.TYPE d, a, membermask`.
fn redux(p: &Parts) -> Result<Op, DecodeError> {
    let ty = p.mods.last_type().unwrap_or(Ty {
        kind: Kind::B,
        bits: 32,
    });
    let op = match p.mods.0.get(1).map_or("", |m| m.trim_start_matches('.')) {
        "add" => AtomOp::Add,
        "min" => AtomOp::Min,
        "max" => AtomOp::Max,
        "and" => AtomOp::And,
        "or" => AtomOp::Or,
        "xor" => AtomOp::Xor,
        _ => return Err(p.unsupported()),
    };
    if ty.is_float() || ty.bits > 64 {
        return Err(p.unsupported());
    }
    p.expect(&[Dst, Src, Src])?;
    Ok(Op::Redux { op, ty })
}

/// `match.any.sync.TYPE d, a, membermask` and `match.all.sync.TYPE
/// d[|p], a, membermask`, on `.b32` or `.b64` values.
fn match_sync(p: &Parts) -> Result<Op, DecodeError> {
    let all = p
        .mods
        .first_of(&[("any", false), ("all", true)])
        .ok_or_else(|| p.unsupported())?;
    let ty = p
        .mods
        .last_type()
        .filter(|t| t.kind == Kind::B && matches!(t.bits, 32 | 64))
        .ok_or_else(|| p.unsupported())?;
    p.expect(&[if all { DstPair } else { Dst }, Src, Src])?;
    Ok(Op::Match { all, ty })
}

/// Checks that operand `k` is a `{...}` vector of `n` registers (written
/// when `dst`, read otherwise).
fn fragment(p: &Parts, k: usize, n: usize, dst: bool) -> Result<(), DecodeError> {
    let shape = if dst { Dst } else { Src };
    match p.args.get(k) {
        Some(Operand::Vector(items))
            if items.len() == n && items.iter().all(|i| shape.accepts(i)) =>
        {
            Ok(())
        }
        _ => Err(unsupported(format!(
            "a fragment operand that is not a vector of {n} registers"
        ))),
    }
}

/// The tensor instructions the emulator runs (`exec/tensor.rs`), with the
/// shapes and types it implements.
fn tensor(p: &Parts) -> Result<Tensor, DecodeError> {
    match p.opcode {
        "wmma" if p.mods.has(".load") => wmma_load(p),
        "wmma" if p.mods.has(".store") => {
            let ty = p.mods.last_type();
            if !p.mods.has(".d") || !ty.is_some_and(|t| t.kind == Kind::F && t.bits == 32) {
                return Err(unsupported(format!("`{}` (an f32 D fragment)", p.name)));
            }
            let row = wmma_layout(p)?;
            p.expect(&[Addr])?;
            fragment(p, 1, 8, false)?;
            ldm(p, 2)?;
            Ok(Tensor::WmmaStore {
                row,
                space: p.mods.space(),
            })
        }
        "wmma" if p.mods.has(".mma") => {
            if !p.mods.has(".m16n16k16") || !p.mods.has(".row") && !p.mods.has(".col") {
                return Err(p.unsupported());
            }
            let bf16 = mma_inputs(p)?;
            let n_in = if bf16 { 4 } else { 8 };
            for (k, n, dst) in [
                (0, 8, true),
                (1, n_in, false),
                (2, n_in, false),
                (3, 8, false),
            ] {
                fragment(p, k, n, dst)?;
            }
            Ok(Tensor::WmmaMma { bf16 })
        }
        "mma" => {
            if !p.mods.has(".m16n8k16") || !p.mods.has(".row") || !p.mods.has(".col") {
                return Err(unsupported(format!(
                    "`{}` (only m16n8k16 .row.col)",
                    p.name
                )));
            }
            let bf16 = mma_inputs(p)?;
            for (k, n, dst) in [(0, 4, true), (1, 4, false), (2, 2, false), (3, 4, false)] {
                fragment(p, k, n, dst)?;
            }
            Ok(Tensor::Mma { bf16 })
        }
        "ldmatrix" | "stmatrix" => matrix(p),
        _ => Err(p.unsupported()),
    }
}

/// Whether a WMMA memory operand is row-major (`.row`) or column-major.
fn wmma_layout(p: &Parts) -> Result<bool, DecodeError> {
    let row = p.mods.has(".row");
    if !row && !p.mods.has(".col") || !p.mods.has(".m16n16k16") {
        return Err(unsupported(format!(
            "`{}` (only m16n16k16 .row/.col)",
            p.name
        )));
    }
    Ok(row)
}

/// A WMMA leading dimension at operand `k`, if written.
fn ldm(p: &Parts, k: usize) -> Result<(), DecodeError> {
    match p.args.get(k) {
        Some(o) if !Shape::Src.accepts(o) => Err(p.unsupported()),
        _ => Ok(()),
    }
}

/// `wmma.load.{a,b,c}`: f16 or bf16 A and B, f32 C.
fn wmma_load(p: &Parts) -> Result<Tensor, DecodeError> {
    let row = wmma_layout(p)?;
    let ty = p.mods.last_type().unwrap_or(Ty {
        kind: Kind::B,
        bits: 32,
    });
    let (esize, regs) = match (p.mods.has(".c"), ty.kind, ty.bits) {
        (true, Kind::F, 32) => (4, 8),
        (false, Kind::F, 16) => (2, 8),
        (false, Kind::BF, 16) => (2, 4),
        _ => {
            return Err(unsupported(format!(
                "`{}` (f16/bf16 A and B, f32 C)",
                p.name
            )))
        }
    };
    fragment(p, 0, regs, true)?;
    if !p.args.get(1).is_some_and(|o| Addr.accepts(o)) {
        return Err(p.unsupported());
    }
    ldm(p, 2)?;
    Ok(Tensor::WmmaLoad {
        row,
        esize,
        regs,
        space: p.mods.space(),
    })
}

/// The input type of an `mma`/`wmma.mma` (true for bf16), checking that D
/// and C are f32.
fn mma_inputs(p: &Parts) -> Result<bool, DecodeError> {
    let tys = p.mods.types();
    let f32 = |t: Option<&Ty>| t.is_some_and(|t| t.kind == Kind::F && t.bits == 32);
    let bf16 = tys.iter().any(|t| t.kind == Kind::BF);
    let f16 = tys.iter().any(|t| t.kind == Kind::F && t.bits == 16);
    if !f32(tys.first()) || !f32(tys.last()) || bf16 == f16 && tys.len() > 2 {
        return Err(unsupported(format!(
            "`{}` (f16/bf16 inputs, f32 C and D)",
            p.name
        )));
    }
    Ok(bf16)
}

/// `ldmatrix` / `stmatrix` `.m8n8` `.x1/.x2/.x4` `[.trans]` `.b16`.
fn matrix(p: &Parts) -> Result<Tensor, DecodeError> {
    let store = p.opcode == "stmatrix";
    let num = p
        .mods
        .first_of(&[("x1", 1), ("x2", 2), ("x4", 4)])
        .unwrap_or(0);
    if num == 0 || !p.mods.has(".m8n8") || !p.mods.has(".b16") {
        return Err(unsupported(format!(
            "`{}` (only .m8n8 .x1/.x2/.x4 .b16)",
            p.name
        )));
    }
    if store {
        p.expect(&[Addr])?;
        fragment(p, 1, num, false)?;
    } else {
        fragment(p, 0, num, true)?;
        if !p.args.get(1).is_some_and(|o| Addr.accepts(o)) {
            return Err(p.unsupported());
        }
    }
    Ok(Tensor::Matrix {
        store,
        num,
        trans: p.mods.has(".trans"),
        space: p.mods.space(),
    })
}

/// `wgmma.mma_async.sync.aligned.m64nNk16.f32.{f16,bf16}.{f16,bf16} {d},
/// a-desc, b-desc, scale-d, imm-scale-a, imm-scale-b, imm-trans-a,
/// imm-trans-b`: A and B from shared memory through matrix descriptors,
/// both K-major (no transpose), f32 accumulators.
fn wgmma(p: &Parts) -> Result<Tensor, DecodeError> {
    let n = p
        .mods
        .0
        .iter()
        .find_map(|m| {
            m.strip_prefix(".m64n")?
                .strip_suffix("k16")?
                .parse::<u32>()
                .ok()
        })
        .filter(|n| (8..=256).contains(n) && n % 8 == 0)
        .ok_or_else(|| unsupported(format!("`{}` (only m64nNk16)", p.name)))?;
    let tys = p.mods.types();
    let f32 = tys
        .first()
        .is_some_and(|t| t.kind == Kind::F && t.bits == 32);
    let bf16 = tys.iter().skip(1).all(|t| t.kind == Kind::BF);
    let f16 = tys
        .iter()
        .skip(1)
        .all(|t| t.kind == Kind::F && t.bits == 16);
    if !f32
        || tys.len() != 3
        || !(bf16 || f16)
        || p.mods.0.iter().any(|m| m.starts_with(".satfinite"))
    {
        return Err(unsupported(format!(
            "`{}` (f16/bf16 inputs, f32 accumulators)",
            p.name
        )));
    }
    fragment(p, 0, (n / 2) as usize, true)?;
    // A from registers (`{a..}`) is a form of its own.
    p.expect(&[Dsts, Src, Src, Src])?;
    let imm = |k: usize| match p.args.get(k) {
        Some(Operand::Imm(v)) => Some(*v),
        _ => None,
    };
    let scale = |k: usize| match imm(k) {
        Some(1) => Ok(false),
        Some(-1) => Ok(true),
        _ => Err(unsupported(format!(
            "operand {} of `{}` (not 1 or -1)",
            k + 1,
            p.name
        ))),
    };
    let (neg_a, neg_b) = (scale(4)?, scale(5)?);
    if imm(6) != Some(0) || imm(7) != Some(0) {
        return Err(unsupported(format!(
            "`{}` with a transposed (MN-major) operand",
            p.name
        )));
    }
    Ok(Tensor::Wgmma {
        n,
        bf16,
        neg_a,
        neg_b,
    })
}
