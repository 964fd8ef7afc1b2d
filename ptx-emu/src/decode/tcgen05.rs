//! Decoding of Blackwell's `tcgen05` family (`exec/tcgen05.rs` runs it):
//! tensor-memory allocation, `tcgen05.mma` from shared-memory descriptors,
//! `tcgen05.commit` to an mbarrier, the `32x32b` loads and stores and
//! `tcgen05.cp` (128x256b, 128x128b, 4x256b), all with `.cta_group::1`. The waits and fences have nothing to order here
//! (every tcgen05 operation is done when issued).

use super::{unsupported, Op, Parts, Shape, Tcgen05, Tensor};
use crate::error::DecodeError;
use crate::program::Operand;
use Shape::{Addr, Src};

/// Decodes a `tcgen05` instruction.
pub(super) fn decode(p: &Parts) -> Result<Op, DecodeError> {
    let first = p.mods.0.first().map(String::as_str).unwrap_or("");
    let op = match first {
        ".fence::before_thread_sync" | ".fence::after_thread_sync" | ".wait::ld" | ".wait::st" => {
            return Ok(Op::Nop)
        }
        ".alloc" => {
            only_mods(
                p,
                &[".cta_group::1", ".sync", ".aligned", ".shared::cta", ".b32"],
            )?;
            p.expect(&[Addr, Src])?;
            Tensor::TmemAlloc
        }
        ".dealloc" => {
            only_mods(p, &[".cta_group::1", ".sync", ".aligned", ".b32"])?;
            p.expect(&[Src, Src])?;
            Tensor::TmemDealloc
        }
        ".relinquish_alloc_permit" => {
            only_mods(p, &[".cta_group::1", ".sync", ".aligned"])?;
            Tensor::TmemRelinquish
        }
        ".ld" | ".st" => return Ok(Op::Tensor(load_store(p, first == ".st")?)),
        ".mma" => return mma(p),
        ".cp" => return copy(p),
        ".commit" => {
            only_mods(
                p,
                &[
                    ".cta_group::1",
                    ".mbarrier::arrive::one",
                    ".shared::cluster",
                    ".b64",
                ],
            )?;
            p.expect(&[Addr])?;
            return Ok(Op::Tcgen05(Tcgen05::Commit));
        }
        _ => return Err(unsupported(format!("the instruction `{}`", p.name))),
    };
    Ok(Op::Tensor(op))
}

/// Refuses a modifier after the first that is not among `allowed` (a
/// `.cta_group::2`, a `.multicast::cluster`, ...).
fn only_mods(p: &Parts, allowed: &[&str]) -> Result<(), DecodeError> {
    match p
        .mods
        .0
        .iter()
        .skip(1)
        .find(|m| !allowed.contains(&m.as_str()))
    {
        Some(m) => Err(unsupported(format!("`{m}` of `{}`", p.name))),
        None => Ok(()),
    }
}

/// `tcgen05.ld.sync.aligned.32x32b.xN.b32 {r..}, [taddr]` and
/// `tcgen05.st.sync.aligned.32x32b.xN.b32 [taddr], {r..}`: N registers,
/// each one 32-bit column of the thread's lane.
fn load_store(p: &Parts, store: bool) -> Result<Tensor, DecodeError> {
    let n = p
        .mods
        .0
        .iter()
        .find_map(|m| m.strip_prefix(".x")?.parse::<u32>().ok())
        .filter(|n| n.is_power_of_two() && *n <= 128)
        .ok_or_else(|| unsupported(format!("`{}` without a count .x1 to .x128", p.name)))?;
    let x = format!(".x{n}");
    only_mods(p, &[".sync", ".aligned", ".32x32b", &x, ".b32"]).map_err(|_| {
        unsupported(format!(
            "`{}` (the emulator runs the .32x32b shape without packing)",
            p.name
        ))
    })?;
    let (regs_at, addr_at) = if store { (1, 0) } else { (0, 1) };
    if !p.args.get(addr_at).is_some_and(|o| Addr.accepts(o)) {
        return Err(p.unsupported());
    }
    let shape = if store { Shape::Src } else { Shape::Dst };
    let regs_ok = match p.args.get(regs_at) {
        Some(Operand::Vector(items)) => {
            items.len() == n as usize && items.iter().all(|i| shape.accepts(i))
        }
        _ => false,
    };
    if !regs_ok {
        return Err(unsupported(format!(
            "the registers of `{}` (a vector of {n})",
            p.name
        )));
    }
    Ok(Tensor::TmemLoadStore { store, n })
}

/// `tcgen05.mma.cta_group::1.kind::{f16,tf32} [d], a-desc, b-desc, idesc,
/// enable-input-d`: A and B from shared memory, D in tensor memory.
fn mma(p: &Parts) -> Result<Op, DecodeError> {
    let tf32 = p.mods.has(".kind::tf32");
    let kind = if tf32 { ".kind::tf32" } else { ".kind::f16" };
    only_mods(p, &[".cta_group::1", kind])?;
    if !p.mods.has(kind) {
        return Err(unsupported(format!(
            "`{}` (the emulator runs .kind::f16 and .kind::tf32)",
            p.name
        )));
    }
    if p.args.len() != 5 || matches!(p.args.get(1), Some(Operand::Addr(..))) {
        return Err(unsupported(format!(
            "the operands of `{}` (the emulator runs [d], a-desc, b-desc, idesc, enable-input-d: A in shared memory, no lane mask or scale)",
            p.name
        )));
    }
    p.expect(&[Addr, Src, Src, Src, Src])?;
    Ok(Op::Tcgen05(Tcgen05::Mma { tf32 }))
}

/// `tcgen05.cp.cta_group::1.{128x256b,128x128b,4x256b} [taddr], s-desc`:
/// a matrix of shared memory into tensor memory.
fn copy(p: &Parts) -> Result<Op, DecodeError> {
    let (rows, words) = match p.mods.0.get(2).map(String::as_str) {
        Some(".128x256b") => (128, 8),
        Some(".128x128b") => (128, 4),
        Some(".4x256b") => (4, 8),
        _ => {
            return Err(unsupported(format!(
                "`{}` (the emulator runs the 128x256b, 128x128b and 4x256b shapes)",
                p.name
            )))
        }
    };
    let shape = p.mods.0[2].as_str();
    only_mods(p, &[".cta_group::1", shape])?;
    p.expect(&[Addr, Src])?;
    Ok(Op::Tcgen05(Tcgen05::Copy { rows, words }))
}
