//! The grid barrier (`grid_barrier`, `cooperative_groups::grid_group::sync`)
//! and the address of its workspace (`special grid_workspace`), lowered to
//! the protocol CUDA's runtime and nvcc share, so kernelc's PTX works with
//! the workspace a cooperative launch provides:
//!
//! - the driver passes the workspace's address in `%envreg1` (high 32
//!   bits) and `%envreg2` (low), as CUDA's `driver_abi.h` reads them and
//!   nvcc's PTX joins them; it is null unless the launch is cooperative;
//! - the workspace holds two 32-bit words, its size and the barrier word;
//! - each block arrives once: after `bar.sync 0` its thread of rank 0 adds
//!   to the barrier word with release semantics at the device scope. Block
//!   (0,0,0) adds `0x80000000 - (blocks - 1)` and every other block 1, so
//!   when all have arrived the word's top bit has flipped (and its low bits
//!   are back where they were, ready for the next barrier);
//! - that thread polls the word with acquire loads until the top bit
//!   differs from the one its own add saw, and a second `bar.sync 0`
//!   releases the rest of the block.

use super::{Isel, IselResult};
use crate::minst::{
    AddrBase, Address, BinaryOp, Cmp, Label, MInst, Operand, PtxType, Reg, RegClass,
};

/// Bytes from the workspace's start to the barrier word (after the size).
const BARRIER_WORD_OFFSET: i64 = 4;

/// The top bit of the barrier word, which flips once per completed barrier.
const PHASE_BIT: i64 = 0x8000_0000;

impl Isel<'_> {
    /// Writes the workspace's 64-bit address into `dst`.
    pub(super) fn grid_workspace(&mut self, dst: Reg) {
        let half = |isel: &mut Self, reg: &'static str| {
            let r32 = isel.new_reg(RegClass::B32);
            isel.mov(r32, Operand::Special(reg));
            let r64 = isel.new_reg(RegClass::B64);
            isel.cvt(None, PtxType::U64, PtxType::U32, r64, r32);
            r64
        };
        let hi = half(self, "envreg1");
        let lo = half(self, "envreg2");
        let high = self.new_reg(RegClass::B64);
        self.binary_reg(BinaryOp::Shl, PtxType::B64, high, hi, Operand::Imm(32));
        self.binary_reg(BinaryOp::Or, PtxType::B64, dst, lo, Operand::Reg(high));
    }

    /// `grid_barrier`: the whole protocol of the module comment.
    pub(super) fn grid_barrier(&mut self) -> IselResult<()> {
        self.features.require("atom.release/ld.acquire", (6, 0));
        self.stubs += 1;
        let done = Label(format!("$L__grid{}_{}", self.func_index, self.stubs));
        let spin = Label(format!("$L__grid{}_{}_spin", self.func_index, self.stubs));
        self.emit(MInst::BarSync);

        // Only the block's thread of rank 0 (tid 0,0,0) takes part.
        let not_leader = self.any_nonzero(["tid.x", "tid.y", "tid.z"], Cmp::Ne);
        self.emit(MInst::Bra {
            guard: Some((not_leader, false)),
            target: done.clone(),
        });

        let workspace = self.new_reg(RegClass::B64);
        self.grid_workspace(workspace);
        let word = Address {
            base: AddrBase::Reg(workspace),
            offset: BARRIER_WORD_OFFSET,
        };
        let first_block = self.any_nonzero(["ctaid.x", "ctaid.y", "ctaid.z"], Cmp::Eq);
        let blocks = self.block_count();
        // 0x80000000 - (blocks - 1), in the 32 bits of the word.
        let flip = self.new_reg(RegClass::B32);
        self.emit(MInst::Binary {
            op: BinaryOp::Sub,
            ty: PtxType::U32,
            dst: flip,
            a: Operand::Imm(PHASE_BIT + 1),
            b: Operand::Reg(blocks),
        });
        let add = self.new_reg(RegClass::B32);
        self.emit(MInst::Selp {
            ty: PtxType::B32,
            dst: add,
            a: Operand::Reg(flip),
            b: Operand::Imm(1),
            pred: first_block,
        });
        let old = self.new_reg(RegClass::B32);
        self.emit(MInst::GridArrive {
            dst: old,
            addr: word.clone(),
            b: Operand::Reg(add),
        });

        // Poll until the top bit differs from the old value's: their xor is
        // negative as a signed number.
        self.emit(MInst::Label(spin.clone()));
        let now = self.new_reg(RegClass::B32);
        self.emit(MInst::GridPoll {
            dst: now,
            addr: word,
        });
        let changed = self.new_reg(RegClass::B32);
        self.binary_reg(BinaryOp::Xor, PtxType::B32, changed, now, Operand::Reg(old));
        let same_phase = self.new_reg(RegClass::Pred);
        self.emit(MInst::Setp {
            cmp: Cmp::Ge,
            ty: PtxType::S32,
            dst: same_phase,
            a: Operand::Reg(changed),
            b: Operand::Imm(0),
        });
        self.emit(MInst::Bra {
            guard: Some((same_phase, false)),
            target: spin,
        });

        self.emit(MInst::Label(done));
        self.emit(MInst::BarSync);
        Ok(())
    }

    /// A predicate: whether the `or` of three special registers compares
    /// `cmp` to zero (`Ne`: some is nonzero; `Eq`: all are zero).
    fn any_nonzero(&mut self, regs: [&'static str; 3], cmp: Cmp) -> Reg {
        let mut acc = self.new_reg(RegClass::B32);
        self.mov(acc, Operand::Special(regs[0]));
        for reg in &regs[1..] {
            let r = self.new_reg(RegClass::B32);
            self.mov(r, Operand::Special(reg));
            let next = self.new_reg(RegClass::B32);
            self.binary_reg(BinaryOp::Or, PtxType::B32, next, acc, Operand::Reg(r));
            acc = next;
        }
        let p = self.new_reg(RegClass::Pred);
        self.emit(MInst::Setp {
            cmp,
            ty: PtxType::U32,
            dst: p,
            a: Operand::Reg(acc),
            b: Operand::Imm(0),
        });
        p
    }

    /// The grid's block count, `nctaid.x * nctaid.y * nctaid.z`, in 32 bits
    /// (a cooperative launch has far fewer blocks than that can count).
    fn block_count(&mut self) -> Reg {
        let mut acc = self.new_reg(RegClass::B32);
        self.mov(acc, Operand::Special("nctaid.x"));
        for reg in ["nctaid.y", "nctaid.z"] {
            let r = self.new_reg(RegClass::B32);
            self.mov(r, Operand::Special(reg));
            let next = self.new_reg(RegClass::B32);
            self.binary_reg(BinaryOp::MulLo, PtxType::U32, next, acc, Operand::Reg(r));
            acc = next;
        }
        acc
    }

    fn binary_reg(&mut self, op: BinaryOp, ty: PtxType, dst: Reg, a: Reg, b: Operand) {
        self.emit(MInst::Binary {
            op,
            ty,
            dst,
            a: Operand::Reg(a),
            b,
        });
    }
}
