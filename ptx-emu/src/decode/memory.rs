//! Decoding of the instructions that reach memory: loads and stores,
//! atomics, address conversions, `cp.async` and the mbarriers.

use super::{unsupported, Atom, AtomOp, Mbar, Op, Parts, Shape};
use crate::error::DecodeError;
use crate::memory::Space;
use crate::program::{Operand, Ty};
use Shape::{Addr, Dst, Dsts, Src, Srcs};

/// Decodes `p` if it is one of this module's instructions.
pub(super) fn decode(p: &Parts) -> Result<Option<Op>, DecodeError> {
    let op = match p.opcode {
        "ld" | "ldu" => {
            p.expect(&[Dsts, Addr])?;
            Op::Ld {
                ty: p.ty()?,
                space: p.mods.space(),
                poll: p.opcode == "ld"
                    && [".volatile", ".relaxed", ".acquire"]
                        .iter()
                        .any(|m| p.mods.has(m)),
            }
        }
        "st" => {
            p.expect(&[Addr, Srcs])?;
            Op::St {
                ty: p.ty()?,
                space: p.mods.space(),
            }
        }
        "cvta" => {
            let ty = p.ty()?;
            let space = p
                .mods
                .space()
                .ok_or_else(|| unsupported(format!("`{}` without a state space", p.name)))?;
            p.expect(&[Dst, Src])?;
            Op::Cvta {
                ty,
                space,
                to: p.mods.has(".to"),
            }
        }
        "isspacep" => {
            let space = p.mods.space().ok_or_else(|| p.unsupported())?;
            p.expect(&[Dst, Src])?;
            Op::Isspacep(space)
        }
        "atom" | "red" => atomic(p)?,
        "mbarrier" => mbarrier(p)?,
        "cp" => cp_async(p)?,
        "mapa" => {
            let ty = p.ty()?;
            let space = p.mods.space();
            if !matches!(space, None | Some(Space::Shared)) {
                return Err(p.unsupported());
            }
            p.expect(&[Dst, Src, Src])?;
            Op::Mapa { ty, space }
        }
        _ => return Ok(None),
    };
    Ok(Some(op))
}

/// The operation an atomic's modifiers name.
fn atom_op(p: &Parts) -> Option<AtomOp> {
    p.mods.first_of(&[
        ("add", AtomOp::Add),
        ("exch", AtomOp::Exch),
        ("cas", AtomOp::Cas),
        ("min", AtomOp::Min),
        ("max", AtomOp::Max),
        ("inc", AtomOp::Inc),
        ("dec", AtomOp::Dec),
        ("and", AtomOp::And),
        ("or", AtomOp::Or),
        ("xor", AtomOp::Xor),
    ])
}

/// `atom` (with a destination for the old value) and `red` (without).
fn atomic(p: &Parts) -> Result<Op, DecodeError> {
    let packed = p.mods.packed_half();
    if packed.is_some() && !p.mods.has(".add") {
        return Err(p.unsupported());
    }
    let ty = match packed {
        Some(elem) => elem,
        None => p.ty()?,
    };
    let red = p.opcode == "red";
    let space = p.mods.space();
    // Vector atomics have two or four elements (`.v8` is no atomic).
    let vector = ptx_validate::ast::vector_width(p.mods.0)
        .filter(|&n| n <= 4)
        .map(u64::from);
    if let Some(n) = vector {
        return vector_atomic(p, ty, n, red);
    }
    // 16-bit integers only in a compare-and-swap (`atom.cas.b16`).
    if p.mods.0.iter().any(|m| m.starts_with(".v"))
        || ty.bits > 64
        || ty.bits < 32 && !ty.is_float() && !(ty.bits == 16 && p.mods.has(".cas"))
    {
        return Err(p.unsupported());
    }
    let op = atom_op(p).ok_or_else(|| p.unsupported())?;
    if matches!(space, Some(Space::Local | Space::Const | Space::Param)) {
        return Err(unsupported(format!("`{}` on this state space", p.name)));
    }
    let cas = usize::from(op == AtomOp::Cas);
    let shapes = [Dst, Addr, Src, Src];
    if red {
        p.expect(&shapes[1..3 + cas])?;
    } else {
        p.expect(&shapes[..3 + cas])?;
    }
    Ok(Op::Atom(Atom {
        op,
        ty,
        space,
        red,
        packed: packed.is_some(),
    }))
}

/// `atom.add.v2.f32 {d..}, [a], {b..}` and `red.add.v4.f32 [a], {b..}`.
fn vector_atomic(p: &Parts, ty: Ty, n: u64, red: bool) -> Result<Op, DecodeError> {
    if !(p.mods.has(".add") && ty.is_float() && ty.bits == 32) {
        return Err(p.unsupported());
    }
    let space = p.mods.space();
    if !matches!(space, None | Some(Space::Global)) {
        return Err(unsupported(format!("`{}` on this state space", p.name)));
    }
    let first = usize::from(!red);
    if red {
        p.expect(&[Addr, Srcs])?;
    } else {
        p.expect(&[Dsts, Addr, Srcs])?;
    }
    let len = |o: &Operand| match o {
        Operand::Vector(items) => items.len() as u64,
        _ => 0,
    };
    if len(&p.args[first + 1]) != n || !red && len(&p.args[0]) != n {
        return Err(unsupported(format!(
            "`{}` without vectors of {n} values",
            p.name
        )));
    }
    Ok(Op::VecAtomAdd { ty, n, space, red })
}

/// `mbarrier.init/arrive[.expect_tx]/test_wait/try_wait[.parity]`.
fn mbarrier(p: &Parts) -> Result<Op, DecodeError> {
    let space = p.mods.space();
    let op = if p.mods.has(".init") {
        p.expect(&[Addr, Src])?;
        Mbar::Init
    } else if p.mods.has(".arrive") && !p.mods.has(".noComplete") && !p.mods.has(".release.cluster")
    {
        let expect_tx = p.mods.has(".expect_tx");
        if expect_tx {
            p.expect(&[Dst, Addr, Src])?;
        } else {
            p.expect(&[Dst, Addr])?;
        }
        Mbar::Arrive { expect_tx }
    } else if p.mods.has(".test_wait") || p.mods.has(".try_wait") {
        p.expect(&[Dst, Addr, Src])?;
        Mbar::Wait
    } else if p.mods.has(".expect_tx") || p.mods.has(".complete_tx") {
        p.expect(&[Addr, Src])?;
        Mbar::Tx {
            complete: p.mods.has(".complete_tx"),
        }
    } else {
        return Err(p.unsupported());
    };
    Ok(Op::Mbarrier { op, space })
}

/// `cp.async` of 4, 8 or 16 bytes, the bulk copies, and their group
/// bookkeeping. Threads run one at a time, so a copy is done when issued
/// and the groups have nothing left to wait for.
fn cp_async(p: &Parts) -> Result<Op, DecodeError> {
    if !p.mods.has(".async") || p.mods.has(".mbarrier") && !p.mods.has(".bulk") {
        return Err(unsupported(format!("the instruction `{}`", p.name)));
    }
    if p.mods.has(".commit_group") || p.mods.has(".wait_group") || p.mods.has(".wait_all") {
        return Ok(Op::Nop);
    }
    if p.mods.has(".bulk") {
        return bulk(p);
    }
    p.expect(&[Addr, Addr])?;
    let size = match p.args.get(2) {
        Some(Operand::Imm(n @ (4 | 8 | 16))) => *n as u64,
        _ => {
            return Err(unsupported(
                "a cp.async size other than 4, 8 or 16 (a constant)",
            ))
        }
    };
    if p.mods.0.iter().any(|m| m.starts_with(".L2")) || p.args.len() > 4 {
        return Err(unsupported("cp.async with a prefetch or cache hint"));
    }
    // `[dst], [src], cp-size, src-size`: the bytes past the source size
    // are zeros (what `memcpy_async` and `__pipeline_memcpy_async` write).
    Ok(Op::CpAsync {
        size,
        source_size: p.args.len() == 4,
    })
}

/// The modifiers of a bulk copy that change nothing here: the shape's
/// default mode, the completion mechanisms (done when issued) and the
/// cache hint (whose operand is not read).
const BULK_MODIFIERS: &[&str] = &[
    ".async",
    ".bulk",
    ".tensor",
    ".2d",
    ".tile",
    ".global",
    ".shared::cta",
    ".shared::cluster",
    ".mbarrier::complete_tx::bytes",
    ".bulk_group",
    ".L2::cache_hint",
];

/// `cp.async.bulk.tensor.2d` (tiled, to or from shared memory through a
/// tensor map) and `cp.async.bulk` (a byte count), with the completion the
/// direction has: an mbarrier's transaction count for a copy into shared
/// memory, a bulk group for one out of it.
fn bulk(p: &Parts) -> Result<Op, DecodeError> {
    if let Some(m) = p
        .mods
        .0
        .iter()
        .find(|m| !BULK_MODIFIERS.contains(&m.as_str()))
    {
        return Err(unsupported(format!("`{m}` of `{}`", p.name)));
    }
    let spaces: Vec<Space> = p.mods.0.iter().filter_map(|m| Space::from_mod(m)).collect();
    let [dst, src] = spaces[..] else {
        return Err(unsupported(format!(
            "`{}` without its two state spaces",
            p.name
        )));
    };
    let mbar = p.mods.has(".mbarrier::complete_tx::bytes");
    // Into shared memory completes at an mbarrier, out of it in a group.
    if (dst == Space::Shared) != mbar || mbar == p.mods.has(".bulk_group") {
        return Err(p.unsupported());
    }
    if p.mods.has(".tensor") {
        if !p.mods.has(".2d") {
            return Err(unsupported(format!("`{}` (only 2-D tensor maps)", p.name)));
        }
        // A load: [dst], [map, {x, y}], [mbar]; a store: [map, {x, y}], [src].
        let (map_at, addrs): (usize, &[usize]) = if mbar { (1, &[0, 2]) } else { (0, &[1]) };
        let is_map = matches!(p.args.get(map_at), Some(Operand::Handle(_, c)) if c.len() == 2);
        let addrs_ok = addrs
            .iter()
            .all(|&i| p.args.get(i).is_some_and(|o| Addr.accepts(o)));
        if !is_map || !addrs_ok {
            return Err(unsupported(format!(
                "the operands of `{}` (a tensor map with two coordinates, and addresses)",
                p.name
            )));
        }
        let load = match (dst, src) {
            (Space::Shared, Space::Global) => true,
            (Space::Global, Space::Shared) => false,
            _ => return Err(p.unsupported()),
        };
        return Ok(Op::BulkTensor { load });
    }
    if mbar {
        p.expect(&[Addr, Addr, Src, Addr])?;
    } else {
        p.expect(&[Addr, Addr, Src])?;
    }
    match (dst, src) {
        (Space::Shared, Space::Global | Space::Shared) | (Space::Global, Space::Shared) => {}
        _ => return Err(p.unsupported()),
    }
    Ok(Op::Bulk { dst, src, mbar })
}
