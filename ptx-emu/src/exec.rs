//! Threads, calls, barriers, warp collectives, and the dispatch of each
//! instruction.
//!
//! A thread's call stack is data (a list of frames, each with its function,
//! program counter, registers and frame variables), so a thread can stop at
//! a barrier inside a called function and resume there. Threads of a block
//! run in turn (`tid` order, x fastest) until each stops; then warp
//! collectives are resolved per group of lanes of one warp at the same
//! instruction, as if those lanes ran in lockstep, and a block barrier is
//! released once every live thread waits at one. This is the IR
//! interpreter's schedule, so racy kernels get the same order in both.

use crate::memory::{self, Alloc, Loc, Space};
use crate::ops::{self, mask, sext};
use crate::program::{Func, Inst, Kind, Op, Program, Sreg, Sym, Ty};
use crate::rounding;
use crate::{Fault, FaultKind, LaunchConfig, RunError, RunOutput, Setup};
use ptx_validate::lexer::FloatLit;
use std::collections::BTreeMap;

mod bits;
mod tensor;

/// An error inside one instruction, before it is located.
struct E {
    kind: FaultKind,
    msg: String,
}

fn e(kind: FaultKind, msg: impl Into<String>) -> E {
    E {
        kind,
        msg: msg.into(),
    }
}

fn unsupported(what: impl std::fmt::Display) -> E {
    e(
        FaultKind::Unsupported,
        format!("{what} is not supported by the emulator"),
    )
}

impl From<String> for E {
    fn from(msg: String) -> E {
        e(FaultKind::Unsupported, msg)
    }
}

type R<T> = Result<T, E>;

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum State {
    Running,
    /// Waiting at a block barrier (function, pc).
    AtBarrier(usize, usize),
    /// Waiting at a warp collective (function, pc).
    AtWarp(usize, usize),
    Done,
}

struct Frame {
    func: usize,
    pc: usize,
    regs: Vec<u64>,
    /// Where each frame variable lives: (space, index in the thread's list;
    /// for param, counted after the kernel parameters).
    slots: Vec<(Space, usize)>,
    local_base: usize,
    param_base: usize,
}

struct Thread {
    tid: [u32; 3],
    linear: u32,
    frames: Vec<Frame>,
    state: State,
    local: Vec<Alloc>,
    params: Vec<Alloc>,
    steps: u64,
}

/// What an instruction did to control flow.
enum Flow {
    Next,
    Jump(usize),
    /// The frame stack changed (call, return); the pc is already set.
    Stay,
    /// The thread stopped (barrier, collective, exit).
    Stop,
    /// The thread waits for an mbarrier phase: go on to the next
    /// instruction, but let the other threads run first.
    Yield,
}

struct Exec<'a> {
    prog: &'a Program,
    config: &'a LaunchConfig,
    setup: Setup,
    shared: Vec<Alloc>,
    ctaid: [u32; 3],
    total_steps: u64,
}

pub(super) fn run(
    prog: &Program,
    setup: Setup,
    config: &LaunchConfig,
) -> Result<RunOutput, RunError> {
    let mut ex = Exec {
        prog,
        config,
        shared: Vec::new(),
        setup,
        ctaid: [0; 3],
        total_steps: 0,
    };
    let [gx, gy, gz] = config.grid;
    for z in 0..gz {
        for y in 0..gy {
            for x in 0..gx {
                ex.ctaid = [x, y, z];
                ex.run_block()?;
            }
        }
    }
    let buffers = ex
        .setup
        .buffer_slots
        .iter()
        .map(|s| s.map(|i| ex.setup.global[i].bytes.clone()))
        .collect();
    Ok(RunOutput {
        buffers,
        steps: ex.total_steps,
    })
}

impl<'a> Exec<'a> {
    fn func(&self, f: usize) -> &'a Func {
        &self.prog.funcs[f]
    }

    fn new_frame(&self, t: &mut Thread, f: usize, aliased: Vec<(Space, usize)>) -> Frame {
        let func = self.func(f);
        let kp = self.setup.kparams.len();
        let (local_base, param_base) = (t.local.len(), t.params.len());
        let mut slots = aliased;
        for v in func.frame_vars.iter().skip(slots.len()) {
            let a = Alloc::new(v.name.clone(), v.init.clone());
            if v.space == Space::Local {
                t.local.push(a);
                slots.push((Space::Local, t.local.len() - 1));
            } else {
                t.params.push(a);
                slots.push((Space::Param, kp + t.params.len() - 1));
            }
        }
        Frame {
            func: f,
            pc: 0,
            regs: vec![0; func.regs.len()],
            slots,
            local_base,
            param_base,
        }
    }

    fn run_block(&mut self) -> Result<(), RunError> {
        self.shared = self.setup.shared_template.clone();
        let [bx, by, bz] = self.config.block;
        let mut threads = Vec::new();
        for z in 0..bz {
            for y in 0..by {
                for x in 0..bx {
                    let mut t = Thread {
                        tid: [x, y, z],
                        linear: threads.len() as u32,
                        frames: Vec::new(),
                        state: State::Running,
                        local: Vec::new(),
                        params: Vec::new(),
                        steps: 0,
                    };
                    let f = self.new_frame(&mut t, self.setup.kernel, Vec::new());
                    t.frames.push(f);
                    threads.push(t);
                }
            }
        }
        loop {
            for t in threads.iter_mut() {
                if t.state == State::Running {
                    self.run_thread(t)?;
                }
            }
            if threads.iter().all(|t| t.state == State::Done) {
                return Ok(());
            }
            if self.resolve_warp(&mut threads)? {
                continue;
            }
            // A thread that yielded at an mbarrier wait tries again.
            if threads.iter().any(|t| t.state == State::Running) {
                continue;
            }
            self.release_barrier(&mut threads)?;
        }
    }

    /// Locates an error at the thread's current instruction.
    fn fault(&self, t: &Thread, err: E, notes: Vec<String>) -> RunError {
        let kernel = self.func(self.setup.kernel).name.clone();
        let (function, inst) = match t.frames.last() {
            Some(fr) => {
                let f = self.func(fr.func);
                (f.name.clone(), f.insts.get(fr.pc))
            }
            None => (kernel.clone(), None),
        };
        let (line, col, start, end, name) = match inst {
            Some(i) => (i.pos.line, i.pos.col, i.pos.offset, i.end, i.name()),
            None => (0, 0, 0, 0, "ret".into()),
        };
        RunError::Fault(Box::new(Fault {
            kind: err.kind,
            message: format!("{name}: {}", err.msg),
            kernel,
            function,
            line,
            col,
            start,
            end,
            block: self.ctaid,
            thread: t.tid,
            notes,
        }))
    }

    fn run_thread(&mut self, t: &mut Thread) -> Result<(), RunError> {
        loop {
            let Some(fr) = t.frames.last() else {
                t.state = State::Done;
                return Ok(());
            };
            let fidx = fr.func;
            let func = self.func(fidx);
            let pc = fr.pc;
            let Some(inst) = func.insts.get(pc) else {
                // Falling off the end of a body is a `ret`.
                self.do_ret(t);
                continue;
            };
            t.steps += 1;
            self.total_steps += 1;
            if t.steps > self.config.max_steps_per_thread {
                let msg = format!(
                    "step limit: the thread executed more than {} instructions",
                    self.config.max_steps_per_thread
                );
                return Err(self.fault(t, e(FaultKind::StepLimit, msg), vec![]));
            }
            if let Some((neg, r)) = inst.guard {
                let p = fr.regs.get(r).copied().unwrap_or(0) & 1 == 1;
                if p == neg {
                    t.frames.last_mut().expect("frame").pc += 1;
                    continue;
                }
            }
            match self.step(t, fidx, pc, inst) {
                Ok(Flow::Next) => t.frames.last_mut().expect("frame").pc += 1,
                Ok(Flow::Jump(l)) => t.frames.last_mut().expect("frame").pc = l,
                Ok(Flow::Stay) => {}
                Ok(Flow::Stop) => return Ok(()),
                Ok(Flow::Yield) => {
                    t.frames.last_mut().expect("frame").pc += 1;
                    return Ok(());
                }
                Err(err) => return Err(self.fault(t, err, vec![])),
            }
        }
    }

    fn do_ret(&mut self, t: &mut Thread) -> Flow {
        if let Some(fr) = t.frames.pop() {
            t.local.truncate(fr.local_base);
            t.params.truncate(fr.param_base);
        }
        match t.frames.last_mut() {
            Some(_) => Flow::Stay,
            None => {
                t.state = State::Done;
                Flow::Stop
            }
        }
    }

    // ---- operands ---------------------------------------------------------

    fn sym_addr(&self, t: &Thread, s: Sym) -> R<u64> {
        Ok(match s {
            Sym::Var(i) => {
                let (space, idx) = self.setup.var_loc[i];
                memory::space_addr(space, idx, 0)
            }
            Sym::KParam(i) => memory::space_addr(Space::Param, i, 0),
            Sym::Frame(i) => {
                let fr = t.frames.last().expect("frame");
                let (space, idx) = fr.slots[i];
                memory::space_addr(space, idx, 0)
            }
        })
    }

    fn special(&self, t: &Thread, s: Sreg) -> u64 {
        let c = self.config;
        let lane = t.linear % 32;
        match s {
            Sreg::Tid(d) => u64::from(t.tid[d]),
            Sreg::Ntid(d) => u64::from(c.block[d]),
            Sreg::Ctaid(d) => u64::from(self.ctaid[d]),
            Sreg::Nctaid(d) => u64::from(c.grid[d]),
            Sreg::LaneId => u64::from(lane),
            Sreg::WarpId => u64::from(t.linear / 32),
            Sreg::NWarpId => u64::from(c.block.iter().product::<u32>().div_ceil(32)),
            Sreg::Clock => t.steps & 0xffff_ffff,
            Sreg::Clock64 => t.steps,
            Sreg::LaneMask(which) => {
                let bit = 1u64 << lane;
                let m = match which {
                    "eq" => bit,
                    "lt" => bit - 1,
                    "le" => (bit << 1) - 1,
                    "gt" => !((bit << 1) - 1),
                    _ => !(bit - 1),
                };
                m & 0xffff_ffff
            }
            Sreg::DynSmem => u64::from(c.dynamic_shared_bytes),
            Sreg::TotalSmem => self.shared.iter().map(|a| a.bytes.len() as u64).sum(),
            Sreg::Const(v) => v,
        }
    }

    /// The value of a source operand as a value of `ty`.
    fn get(&self, t: &Thread, op: &Op, ty: Ty) -> R<u64> {
        let m = mask(ty.bits);
        let fr = t.frames.last().expect("frame");
        Ok(match op {
            Op::Reg(r) => fr.regs[*r] & m,
            Op::NotReg(r) => u64::from(fr.regs[*r] & 1 == 0),
            // An integer literal where a float is expected means its value.
            Op::Imm(v) if ty.is_float() => {
                crate::program::float_bits(FloatLit::Decimal(*v as f64), ty) & m
            }
            Op::Imm(v) => (*v as u64) & m,
            Op::FImm(f) => crate::program::float_bits(*f, ty) & m,
            Op::Special(s) => self.special(t, *s) & m,
            Op::Sym(s, off) => self.sym_addr(t, *s)?.wrapping_add(*off as u64) & m,
            _ => return Err(unsupported("this operand form")),
        })
    }

    /// Writes a result of type `ty` to a destination register: a narrower
    /// signed value sign-extends into a wider register, others zero-extend.
    fn set(&self, t: &mut Thread, op: &Op, v: u64, ty: Ty) -> R<()> {
        let fr = t.frames.last_mut().expect("frame");
        match op {
            Op::Reg(r) => {
                let rt = self.func(fr.func).regs[*r].ty;
                let v = if rt.bits > ty.bits && ty.is_signed() {
                    sext(v, ty.bits) as u64
                } else {
                    v & mask(ty.bits)
                };
                fr.regs[*r] = v & mask(rt.bits);
                Ok(())
            }
            Op::Sink => Ok(()),
            _ => Err(unsupported("this destination form")),
        }
    }

    /// The address an `[..]` operand names.
    fn addr(&self, t: &Thread, op: &Op) -> R<u64> {
        match op {
            Op::Addr(base, off) => {
                let b = match base.as_deref() {
                    None => 0,
                    Some(Op::Reg(r)) => t.frames.last().expect("frame").regs[*r],
                    Some(Op::Sym(s, o)) => self.sym_addr(t, *s)?.wrapping_add(*o as u64),
                    Some(_) => return Err(unsupported("this address base")),
                };
                Ok(b.wrapping_add(*off as u64))
            }
            _ => Err(unsupported("a non-address operand of a memory instruction")),
        }
    }

    // ---- memory -----------------------------------------------------------

    fn locate(&self, space: Option<Space>, addr: u64) -> R<Loc> {
        if addr == 0 {
            return Err(e(FaultKind::NullPointer, "access through the null address"));
        }
        match space {
            Some(s) => memory::decode_space(s, addr).map_err(|m| e(FaultKind::WrongSpace, m)),
            None => memory::decode_generic(addr).ok_or_else(|| {
                let hint = if addr >> 32 == 0 {
                    " (it looks like a .shared/.local/.const/.param space address; convert it with cvta first)"
                } else {
                    ""
                };
                e(
                    FaultKind::WrongSpace,
                    format!("{addr:#x} is in no window of the generic address space{hint}"),
                )
            }),
        }
    }

    fn alloc_mut<'b>(&'b mut self, t: &'b mut Thread, loc: Loc) -> R<&'b mut Alloc> {
        let kp = self.setup.kparams.len();
        let found = match loc.space {
            Space::Global => self.setup.global.get_mut(loc.index),
            Space::Const => self.setup.constant.get_mut(loc.index),
            Space::Shared => self.shared.get_mut(loc.index),
            Space::Local => t.local.get_mut(loc.index),
            Space::Param if loc.index < kp => self.setup.kparams.get_mut(loc.index),
            Space::Param => t.params.get_mut(loc.index.wrapping_sub(kp)),
        };
        found.ok_or_else(|| {
            if memory::is_bad_conversion(&loc) {
                return e(
                    FaultKind::WrongSpace,
                    format!(
                        "the address comes from a `cvta` of an address outside the {} window \
                         (a pointer converted to a space it does not point into)",
                        loc.space.name()
                    ),
                );
            }
            let kind = if matches!(loc.space, Space::Local | Space::Param) {
                FaultKind::Dangling
            } else {
                FaultKind::OutOfBounds
            };
            e(
                kind,
                format!(
                    "the address names no live {} allocation (index {})",
                    loc.space.name(),
                    loc.index as isize
                ),
            )
        })
    }

    fn checked(a: &Alloc, off: u64, len: u64) -> R<usize> {
        a.check(off, len).map_err(|m| {
            let kind = if m.starts_with("misaligned") {
                FaultKind::Misaligned
            } else {
                FaultKind::OutOfBounds
            };
            e(kind, m)
        })
    }

    fn load(&mut self, t: &mut Thread, space: Option<Space>, addr: u64, len: u64) -> R<u64> {
        let loc = self.locate(space, addr)?;
        let a = self.alloc_mut(t, loc)?;
        let o = Self::checked(a, loc.offset, len)?;
        Ok(a.read(o, len as usize))
    }

    fn store(
        &mut self,
        t: &mut Thread,
        space: Option<Space>,
        addr: u64,
        len: u64,
        v: u64,
    ) -> R<()> {
        let loc = self.locate(space, addr)?;
        let a = self.alloc_mut(t, loc)?;
        let o = Self::checked(a, loc.offset, len)?;
        if a.read_only {
            return Err(e(
                FaultKind::ReadOnly,
                format!(
                    "store into read-only {} ({} memory)",
                    a.name,
                    loc.space.name()
                ),
            ));
        }
        a.write(o, len as usize, v);
        Ok(())
    }

    // ---- instructions -----------------------------------------------------

    fn step(&mut self, t: &mut Thread, fidx: usize, pc: usize, inst: &'a Inst) -> R<Flow> {
        let tys = inst.types();
        let ty = || {
            tys.last()
                .copied()
                .ok_or_else(|| unsupported(format!("`{}` without a type", inst.name())))
        };
        let ops = &inst.ops;
        let op = |i: usize| {
            ops.get(i)
                .ok_or_else(|| e(FaultKind::Unsupported, "missing operand".to_string()))
        };
        let code = inst.opcode.as_str();
        // `.rz`, `.rm`, `.rp` on float arithmetic (rounding.rs).
        let directed = rounding::dir_of(&inst.mods);
        match code {
            "mov" => {
                let ty = ty()?;
                match (op(0)?, op(1)?) {
                    (Op::Vector(ds), src) => {
                        let v = self.get(t, src, ty)?;
                        let w = ty.bits / ds.len().max(1) as u32;
                        let part = Ty {
                            kind: Kind::B,
                            bits: w,
                        };
                        for (i, d) in ds.iter().enumerate() {
                            self.set(t, d, (v >> (w * i as u32)) & mask(w), part)?;
                        }
                    }
                    (d, Op::Vector(ss)) => {
                        let w = ty.bits / ss.len().max(1) as u32;
                        let part = Ty {
                            kind: Kind::B,
                            bits: w,
                        };
                        let mut v = 0u64;
                        for (i, s) in ss.iter().enumerate() {
                            v |= self.get(t, s, part)? << (w * i as u32);
                        }
                        self.set(t, d, v, ty)?;
                    }
                    (d, s) => {
                        let v = self.get(t, s, ty)?;
                        self.set(t, d, v, ty)?;
                    }
                }
                Ok(Flow::Next)
            }
            "ld" | "ldu" => {
                let ty = ty()?;
                let addr = self.addr(t, op(1)?)?;
                let n = ty.bytes();
                let dsts: Vec<&Op> = match op(0)? {
                    Op::Vector(ds) => ds.iter().collect(),
                    d => vec![d],
                };
                for (i, d) in dsts.iter().enumerate() {
                    let v = self.load(t, inst.space(), addr.wrapping_add(n * i as u64), n)?;
                    self.set(t, d, v, ty)?;
                }
                Ok(Flow::Next)
            }
            "st" => {
                let ty = ty()?;
                let addr = self.addr(t, op(0)?)?;
                let n = ty.bytes();
                let srcs: Vec<&Op> = match op(1)? {
                    Op::Vector(ss) => ss.iter().collect(),
                    s => vec![s],
                };
                for (i, s) in srcs.iter().enumerate() {
                    if matches!(s, Op::Sink) {
                        continue;
                    }
                    let v = self.get(t, s, ty)?;
                    self.store(t, inst.space(), addr.wrapping_add(n * i as u64), n, v)?;
                }
                Ok(Flow::Next)
            }
            "add" | "sub" | "mul" | "div" | "rem" | "and" | "or" | "xor" | "min" | "max" => {
                let ty = ty()?;
                let a = self.get(t, op(1)?, ty)?;
                let b = self.get(t, op(2)?, ty)?;
                let (r, rty) = if ty.is_float() {
                    let ftz = inst.has(".ftz");
                    let (a, b) = if ftz {
                        (ops::ftz(ty, a), ops::ftz(ty, b))
                    } else {
                        (a, b)
                    };
                    let mut r = match (code, directed) {
                        ("min" | "max", _) => ops::float_min_max(code, ty, a, b, inst.has(".NaN")),
                        (_, Some(dir)) => ops::float_binary_directed(code, ty, a, b, dir)?,
                        _ => ops::float_binary(code, ty, a, b)?,
                    };
                    if ftz {
                        r = ops::ftz(ty, r);
                    }
                    if inst.has(".sat") {
                        r = ops::fsat(ty, r);
                    }
                    (r, ty)
                } else if code == "mul" && inst.has(".wide") {
                    let (x, y) = if ty.is_signed() {
                        (sext(a, ty.bits) as i128, sext(b, ty.bits) as i128)
                    } else {
                        (i128::from(a), i128::from(b))
                    };
                    let wide = Ty {
                        kind: ty.kind,
                        bits: ty.bits * 2,
                    };
                    (((x * y) as u64) & mask(wide.bits), wide)
                } else {
                    let name = match code {
                        "mul" if inst.has(".hi") => "mul.hi",
                        "mul" => "mul.lo",
                        c => c,
                    };
                    (ops::int_binary(name, ty, a, b, inst.has(".sat"))?, ty)
                };
                self.set(t, op(0)?, r, rty)?;
                Ok(Flow::Next)
            }
            "mad" | "fma" => {
                let ty = ty()?;
                let a = self.get(t, op(1)?, ty)?;
                let b = self.get(t, op(2)?, ty)?;
                if ty.is_float() {
                    if ty.bits < 32 {
                        return Err(unsupported(format!("`{}`", inst.name())));
                    }
                    let c = self.get(t, op(3)?, ty)?;
                    let ftz = inst.has(".ftz");
                    let f = |x| if ftz { ops::ftz(ty, x) } else { x };
                    let r = match directed {
                        Some(dir) => ops::fma_directed(ty, f(a), f(b), f(c), dir),
                        None => ops::fma(ty, f(a), f(b), f(c)),
                    };
                    let mut r = f(r);
                    if inst.has(".sat") {
                        r = ops::fsat(ty, r);
                    }
                    self.set(t, op(0)?, r, ty)?;
                    return Ok(Flow::Next);
                }
                let (x, y) = if ty.is_signed() {
                    (sext(a, ty.bits) as i128, sext(b, ty.bits) as i128)
                } else {
                    (i128::from(a), i128::from(b))
                };
                let p = x * y;
                if inst.has(".wide") {
                    let wide = Ty {
                        kind: ty.kind,
                        bits: ty.bits * 2,
                    };
                    let c = self.get(t, op(3)?, wide)?;
                    let r = (p as u64).wrapping_add(c) & mask(wide.bits);
                    self.set(t, op(0)?, r, wide)?;
                } else {
                    let c = self.get(t, op(3)?, ty)?;
                    let base = if inst.has(".hi") {
                        (p >> ty.bits) as u64
                    } else {
                        p as u64
                    };
                    self.set(t, op(0)?, base.wrapping_add(c) & mask(ty.bits), ty)?;
                }
                Ok(Flow::Next)
            }
            "shl" | "shr" => {
                let ty = ty()?;
                let a = self.get(t, op(1)?, ty)?;
                let u32t = Ty {
                    kind: Kind::U,
                    bits: 32,
                };
                let b = self.get(t, op(2)?, u32t)?;
                self.set(t, op(0)?, ops::shift(code, ty, a, b), ty)?;
                Ok(Flow::Next)
            }
            "not" | "cnot" | "neg" | "abs" | "popc" | "clz" | "brev" => {
                let ty = ty()?;
                let a = self.get(t, op(1)?, ty)?;
                let (r, rty) = if ty.is_float() {
                    let a = if inst.has(".ftz") { ops::ftz(ty, a) } else { a };
                    (ops::float_unary(code, ty, a)?, ty)
                } else if matches!(code, "popc" | "clz") {
                    (
                        ops::int_unary(code, ty, a)?,
                        Ty {
                            kind: Kind::U,
                            bits: 32,
                        },
                    )
                } else {
                    (ops::int_unary(code, ty, a)?, ty)
                };
                self.set(t, op(0)?, r, rty)?;
                Ok(Flow::Next)
            }
            "sqrt" | "rsqrt" | "rcp" | "ex2" | "lg2" | "sin" | "cos" | "tanh" => {
                let ty = ty()?;
                if !ty.is_float() || ty.bits < 32 {
                    return Err(unsupported(format!("`{}`", inst.name())));
                }
                let ftz = inst.has(".ftz");
                let a = self.get(t, op(1)?, ty)?;
                let a = if ftz { ops::ftz(ty, a) } else { a };
                let mut r = match directed {
                    Some(dir) if matches!(code, "sqrt" | "rcp") => {
                        ops::float_unary_directed(code, ty, a, dir)
                    }
                    Some(_) => {
                        return Err(unsupported(format!(
                            "`{}` (directed rounding)",
                            inst.name()
                        )))
                    }
                    None => ops::float_unary(code, ty, a)?,
                };
                if ftz {
                    r = ops::ftz(ty, r);
                }
                self.set(t, op(0)?, r, ty)?;
                Ok(Flow::Next)
            }
            "copysign" => {
                let ty = ty()?;
                let a = self.get(t, op(1)?, ty)?;
                let b = self.get(t, op(2)?, ty)?;
                let sign = 1u64 << (ty.bits - 1);
                self.set(t, op(0)?, (b & !sign) | (a & sign), ty)?;
                Ok(Flow::Next)
            }
            "bfe" | "bfi" | "prmt" => {
                let ty = ty()?;
                let u32t = Ty {
                    kind: Kind::U,
                    bits: 32,
                };
                let a = self.get(t, op(1)?, ty)?;
                let r = match code {
                    "bfe" => {
                        let p = self.get(t, op(2)?, u32t)?;
                        let l = self.get(t, op(3)?, u32t)?;
                        ops::bfe(ty, a, p, l)
                    }
                    "bfi" => {
                        let b = self.get(t, op(2)?, ty)?;
                        let p = self.get(t, op(3)?, u32t)?;
                        let l = self.get(t, op(4)?, u32t)?;
                        ops::bfi(ty, a, b, p, l)
                    }
                    _ => {
                        if inst.mods.len() > 1 {
                            return Err(unsupported(format!("`{}` (a prmt mode)", inst.name())));
                        }
                        let b = self.get(t, op(2)?, ty)?;
                        let c = self.get(t, op(3)?, ty)?;
                        ops::prmt(a, b, c)
                    }
                };
                self.set(t, op(0)?, r, ty)?;
                Ok(Flow::Next)
            }
            "dp4a" => {
                // `dp4a.atype.btype d, a, b, c`, each type `.u32` or `.s32`.
                let (Some(&aty), Some(&bty), None) = (tys.first(), tys.get(1), tys.get(2)) else {
                    return Err(unsupported(format!("`{}` without two types", inst.name())));
                };
                let int32 = |x: Ty| x.bits == 32 && matches!(x.kind, Kind::U | Kind::S);
                if !int32(aty) || !int32(bty) {
                    return Err(unsupported(format!("`{}`", inst.name())));
                }
                let a = self.get(t, op(1)?, aty)?;
                let b = self.get(t, op(2)?, bty)?;
                let rty = Ty {
                    kind: if aty.is_signed() || bty.is_signed() {
                        Kind::S
                    } else {
                        Kind::U
                    },
                    bits: 32,
                };
                let c = self.get(t, op(3)?, rty)?;
                let r = ops::dp4a(aty.is_signed(), bty.is_signed(), a, b, c);
                self.set(t, op(0)?, r, rty)?;
                Ok(Flow::Next)
            }
            "setp" => {
                let ty = ty()?;
                let cmp = inst
                    .mods
                    .first()
                    .map(|m| m.trim_start_matches('.').to_string())
                    .unwrap_or_default();
                let a = self.get(t, op(1)?, ty)?;
                let b = self.get(t, op(2)?, ty)?;
                let ftz = ty.is_float() && inst.has(".ftz");
                let (a, b) = if ftz {
                    (ops::ftz(ty, a), ops::ftz(ty, b))
                } else {
                    (a, b)
                };
                let mut p = ops::compare(&cmp, ty, a, b)?;
                let pred = Ty {
                    kind: Kind::Pred,
                    bits: 1,
                };
                let bool_op = inst
                    .mods
                    .iter()
                    .find(|m| matches!(m.as_str(), ".and" | ".or" | ".xor"));
                let mut q = !p;
                if let Some(bop) = bool_op {
                    let c = self.get(t, op(3)?, pred)? & 1 == 1;
                    let comb = |x: bool| match bop.as_str() {
                        ".and" => x && c,
                        ".or" => x || c,
                        _ => x ^ c,
                    };
                    (p, q) = (comb(p), comb(!p));
                }
                match op(0)? {
                    Op::Pair(d1, d2) => {
                        self.set(t, d1, u64::from(p), pred)?;
                        self.set(t, d2, u64::from(q), pred)?;
                    }
                    d => self.set(t, d, u64::from(p), pred)?,
                }
                Ok(Flow::Next)
            }
            "selp" => {
                let ty = ty()?;
                let pred = Ty {
                    kind: Kind::Pred,
                    bits: 1,
                };
                let c = self.get(t, op(3)?, pred)? & 1 == 1;
                let v = self.get(t, op(if c { 1 } else { 2 })?, ty)?;
                self.set(t, op(0)?, v, ty)?;
                Ok(Flow::Next)
            }
            "cvt" => {
                let (Some(&dst), Some(&src)) = (tys.first(), tys.get(1)) else {
                    return Err(unsupported(format!("`{}` without two types", inst.name())));
                };
                let rnd = inst
                    .mods
                    .iter()
                    .find(|m| m.starts_with(".r") && m.len() <= 4)
                    .map_or("", String::as_str);
                let mut a = self.get(t, op(1)?, src)?;
                if inst.has(".ftz") && src.is_float() {
                    a = ops::ftz(src, a);
                }
                let mut r = ops::cvt(dst, src, rnd, inst.has(".sat"), a)?;
                if inst.has(".ftz") && dst.is_float() {
                    r = ops::ftz(dst, r);
                }
                self.set(t, op(0)?, r, dst)?;
                Ok(Flow::Next)
            }
            "cvta" => {
                let ty = ty()?;
                let space = inst.space().ok_or_else(|| {
                    unsupported(format!("`{}` without a state space", inst.name()))
                })?;
                let a = self.get(
                    t,
                    op(1)?,
                    Ty {
                        kind: Kind::B,
                        bits: 64,
                    },
                )?;
                // An address outside the window converts to a value no access
                // can use (`memory::BAD_CONVERSION`): the fault, if any, is at
                // the access, as on a GPU.
                let r = if a == 0 {
                    0
                } else if inst.has(".to") {
                    match memory::decode_generic(a) {
                        Some(l) if l.space == space => memory::space_addr(space, l.index, l.offset),
                        _ => memory::BAD_CONVERSION,
                    }
                } else {
                    match memory::decode_space(space, a) {
                        Ok(l) => memory::generic(space, l.index, l.offset),
                        Err(_) => memory::BAD_CONVERSION,
                    }
                };
                self.set(t, op(0)?, r, ty)?;
                Ok(Flow::Next)
            }
            "isspacep" => {
                let space = inst
                    .space()
                    .ok_or_else(|| unsupported(format!("`{}`", inst.name())))?;
                let a = self.get(
                    t,
                    op(1)?,
                    Ty {
                        kind: Kind::B,
                        bits: 64,
                    },
                )?;
                let p = memory::decode_generic(a).is_some_and(|l| l.space == space);
                self.set(
                    t,
                    op(0)?,
                    u64::from(p),
                    Ty {
                        kind: Kind::Pred,
                        bits: 1,
                    },
                )?;
                Ok(Flow::Next)
            }
            "atom" | "red" => self.atomic(t, inst, &tys),
            "bra" => match op(0)? {
                Op::Label(l) => Ok(Flow::Jump(*l)),
                _ => Err(unsupported("an indirect branch")),
            },
            "call" => self.call(t, inst),
            "ret" => Ok(self.do_ret(t)),
            "exit" => {
                t.state = State::Done;
                Ok(Flow::Stop)
            }
            "trap" => Err(e(FaultKind::Trap, "the kernel executed `trap`")),
            "bar" | "barrier" if inst.has(".warp") => {
                t.state = State::AtWarp(fidx, pc);
                Ok(Flow::Stop)
            }
            "bar" | "barrier" if inst.has(".arrive") => {
                Err(unsupported(format!("`{}`", inst.name())))
            }
            "bar" | "barrier" => {
                t.state = State::AtBarrier(fidx, pc);
                Ok(Flow::Stop)
            }
            "shfl" | "vote" | "activemask" | "redux" | "wmma" | "mma" | "ldmatrix" | "stmatrix" => {
                t.state = State::AtWarp(fidx, pc);
                Ok(Flow::Stop)
            }
            "mbarrier" => self.mbarrier(t, inst),
            // Threads run one at a time, so an async copy is done at once and
            // its groups have nothing left to wait for (a missing wait is not
            // caught). The bulk and mbarrier forms are not emulated.
            "cp" if inst.has(".async") && !inst.has(".bulk") && !inst.has(".mbarrier") => {
                if inst.has(".commit_group") || inst.has(".wait_group") || inst.has(".wait_all") {
                    return Ok(Flow::Next);
                }
                let dst = self.addr(t, op(0)?)?;
                let src = self.addr(t, op(1)?)?;
                let size = match op(2)? {
                    Op::Imm(n @ (4 | 8 | 16)) => *n as u64,
                    _ => return Err(unsupported("a cp.async size other than 4, 8 or 16")),
                };
                if inst.mods.iter().any(|m| m.starts_with(".L2")) || inst.ops.len() > 3 {
                    return Err(unsupported(
                        "cp.async with a prefetch hint or a source size",
                    ));
                }
                for off in (0..size).step_by(4) {
                    let v = self.load(t, Some(Space::Global), src.wrapping_add(off), 4)?;
                    self.store(t, Some(Space::Shared), dst.wrapping_add(off), 4, v)?;
                }
                Ok(Flow::Next)
            }
            "membar" | "fence" | "nanosleep" | "prefetch" | "prefetchu" | "griddepcontrol"
            | "pmevent" | "brkpt" | "setmaxnreg" => Ok(Flow::Next),
            _ => self
                .step_bits(t, inst)
                .unwrap_or_else(|| Err(unsupported(format!("the instruction `{}`", inst.name())))),
        }
    }

    /// `mbarrier.init/arrive[.expect_tx]/test_wait/try_wait[.parity]` on a
    /// 64-bit object: bit 63 is the phase, bits 0..20 the arrivals still
    /// expected, 20..40 the count of each phase, 40..63 the transaction
    /// bytes still expected. A wait that finds its phase incomplete yields,
    /// so the threads that will arrive get to run.
    fn mbarrier(&mut self, t: &mut Thread, inst: &Inst) -> R<Flow> {
        const COUNT: u64 = (1 << 20) - 1;
        const TX: u64 = (1 << 23) - 1;
        let op = |i: usize| {
            inst.ops
                .get(i)
                .ok_or_else(|| e(FaultKind::Unsupported, "missing operand".to_string()))
        };
        let b64 = Ty {
            kind: Kind::B,
            bits: 64,
        };
        let space = inst.space();
        let name = inst.name();
        if inst.has(".init") {
            let addr = self.addr(t, op(0)?)?;
            let count = self.get(t, op(1)?, b64)? & 0xffff_ffff;
            if count == 0 || count > COUNT {
                return Err(e(
                    FaultKind::Unsupported,
                    format!("mbarrier count {count} is outside 1..={COUNT}"),
                ));
            }
            self.store(t, space, addr, 8, (count << 20) | count)?;
            return Ok(Flow::Next);
        }
        if inst.has(".arrive") && !inst.has(".noComplete") && !inst.has(".release.cluster") {
            let addr = self.addr(t, op(1)?)?;
            let tx = if inst.has(".expect_tx") {
                self.get(t, op(2)?, b64)? & 0xffff_ffff
            } else {
                0
            };
            let state = self.load(t, space, addr, 8)?;
            let (mut pending, count) = (state & COUNT, (state >> 20) & COUNT);
            let mut bytes = (state >> 40) & TX;
            if pending == 0 || count == 0 {
                return Err(e(
                    FaultKind::Unsupported,
                    format!("{name}: the mbarrier was not initialized"),
                ));
            }
            pending -= 1;
            bytes = (bytes + tx).min(TX);
            let mut phase = state >> 63;
            if pending == 0 && bytes == 0 {
                phase ^= 1;
                pending = count;
            }
            self.store(
                t,
                space,
                addr,
                8,
                (phase << 63) | (bytes << 40) | (count << 20) | pending,
            )?;
            // The token is the phase the arrival belongs to.
            self.set(t, op(0)?, state >> 63, b64)?;
            return Ok(Flow::Next);
        }
        if inst.has(".test_wait") || inst.has(".try_wait") {
            let addr = self.addr(t, op(1)?)?;
            // A parity, or a token from `arrive` (the phase, 0 or 1).
            let want = self.get(t, op(2)?, b64)? & 1;
            let state = self.load(t, space, addr, 8)?;
            // The phase `want` is over once the current phase differs.
            let done = (state >> 63) != want;
            self.set(
                t,
                op(0)?,
                u64::from(done),
                Ty {
                    kind: Kind::Pred,
                    bits: 1,
                },
            )?;
            return Ok(if done { Flow::Next } else { Flow::Yield });
        }
        Err(unsupported(format!("`{name}`")))
    }

    fn atomic(&mut self, t: &mut Thread, inst: &Inst, tys: &[Ty]) -> R<Flow> {
        let ty = *tys
            .last()
            .ok_or_else(|| unsupported(format!("`{}` without a type", inst.name())))?;
        // Vector atomics have two or four elements (`.v8` is no atomic).
        let vector = ptx_validate::ast::vector_width(&inst.mods)
            .filter(|&n| n <= 4)
            .map(u64::from);
        if let Some(n) = vector {
            return self.vector_atomic(t, inst, ty, n);
        }
        // 16-bit integers only in a compare-and-swap (`atom.cas.b16`).
        if inst.mods.iter().any(|m| m.starts_with(".v"))
            || ty.bits > 64
            || ty.bits < 32 && !ty.is_float() && !(ty.bits == 16 && inst.has(".cas"))
        {
            return Err(unsupported(format!("`{}`", inst.name())));
        }
        let opname = inst
            .mods
            .iter()
            .map(|m| m.trim_start_matches('.'))
            .find(|m| {
                matches!(
                    *m,
                    "add" | "exch" | "cas" | "min" | "max" | "inc" | "dec" | "and" | "or" | "xor"
                )
            })
            .ok_or_else(|| unsupported(format!("`{}`", inst.name())))?;
        let is_red = inst.opcode == "red";
        let first = usize::from(!is_red);
        let ops = &inst.ops;
        let get_op = |i: usize| ops.get(i).ok_or_else(|| unsupported("a missing operand"));
        let addr = self.addr(t, get_op(first)?)?;
        let b = self.get(t, get_op(first + 1)?, ty)?;
        let space = inst.space();
        if matches!(space, Some(Space::Local | Space::Const | Space::Param)) {
            return Err(unsupported(format!(
                "`{}` on this state space",
                inst.name()
            )));
        }
        let n = ty.bytes();
        let old = self.load(t, space, addr, n)?;
        let new = if opname == "cas" {
            let c = self.get(t, get_op(first + 2)?, ty)?;
            if old == b {
                c
            } else {
                old
            }
        } else {
            ops::atomic(opname, ty, old, b)?
        };
        self.store(t, space, addr, n, new)?;
        if !is_red {
            self.set(t, get_op(0)?, old, ty)?;
        }
        Ok(Flow::Next)
    }

    /// `atom.add.v2.f32 {d..}, [a], {b..}` and `red.add.v4.f32 [a], {b..}`
    /// (sm_90): each element is added on its own, in global memory only
    /// (a generic address must land there), at an address aligned to the
    /// whole vector.
    fn vector_atomic(&mut self, t: &mut Thread, inst: &Inst, ty: Ty, n: u64) -> R<Flow> {
        let add = inst.has(".add") && ty.is_float() && ty.bits == 32;
        if !add {
            return Err(unsupported(format!("`{}`", inst.name())));
        }
        let is_red = inst.opcode == "red";
        let first = usize::from(!is_red);
        let ops = &inst.ops;
        let get_op = |i: usize| ops.get(i).ok_or_else(|| unsupported("a missing operand"));
        let addr = self.addr(t, get_op(first)?)?;
        let space = inst.space();
        match space {
            Some(Space::Global) => {}
            None => {
                if let Some(loc) = memory::decode_generic(addr).filter(|_| addr != 0) {
                    if loc.space != Space::Global {
                        return Err(e(
                            FaultKind::WrongSpace,
                            format!(
                                "`{}`: vector atomics need global memory, but {addr:#x} is a {} address",
                                inst.name(),
                                loc.space.name()
                            ),
                        ));
                    }
                }
            }
            Some(_) => {
                return Err(unsupported(format!(
                    "`{}` on this state space",
                    inst.name()
                )))
            }
        }
        let size = ty.bytes();
        if addr != 0 && !addr.is_multiple_of(n * size) {
            return Err(e(
                FaultKind::Misaligned,
                format!(
                    "`{}`: address {addr:#x} is not aligned to the {}-byte vector",
                    inst.name(),
                    n * size
                ),
            ));
        }
        let Op::Vector(srcs) = get_op(first + 1)? else {
            return Err(unsupported("a vector atomic without a vector of values"));
        };
        if srcs.len() as u64 != n {
            return Err(unsupported(
                "a vector atomic with the wrong number of values",
            ));
        }
        let mut olds = Vec::with_capacity(srcs.len());
        for (k, src) in srcs.iter().enumerate() {
            let b = self.get(t, src, ty)?;
            let at = addr.wrapping_add(size * k as u64);
            let old = self.load(t, space, at, size)?;
            let new = ops::atomic("add", ty, old, b)?;
            self.store(t, space, at, size, new)?;
            olds.push(old);
        }
        if !is_red {
            let Op::Vector(dsts) = get_op(0)? else {
                return Err(unsupported("a vector atomic without a vector destination"));
            };
            for (d, old) in dsts.iter().zip(olds) {
                self.set(t, d, old, ty)?;
            }
        }
        Ok(Flow::Next)
    }

    /// `call (rets), f, (args)`: the callee's parameters are the caller's
    /// call-scope `.param` variables themselves, so `st.param` before the
    /// call and `ld.param` after it (of the return value) need no copying.
    fn call(&mut self, t: &mut Thread, inst: &Inst) -> R<Flow> {
        let mut rets = Vec::new();
        let mut args = Vec::new();
        let mut callee = None;
        for o in &inst.ops {
            match o {
                Op::List(items) if callee.is_none() => rets = items.clone(),
                Op::List(items) => args = items.clone(),
                Op::Func(f) => callee = Some(*f),
                _ if callee.is_some() => break, // a prototype operand
                _ => return Err(unsupported("an indirect call")),
            }
        }
        let f = callee.ok_or_else(|| unsupported("a call without a function"))?;
        let func = self.func(f);
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
        if t.frames.len() >= self.config.max_call_depth {
            return Err(e(
                FaultKind::CallDepth,
                format!("more than {} nested calls", self.config.max_call_depth),
            ));
        }
        let caller = t.frames.last().expect("frame");
        let mut aliased = Vec::new();
        for o in rets.iter().chain(&args) {
            match o {
                Op::Sym(Sym::Frame(i), 0) => aliased.push(caller.slots[*i]),
                _ => return Err(unsupported("a call argument that is not a .param variable")),
            }
        }
        t.frames.last_mut().expect("frame").pc += 1;
        let fr = self.new_frame(t, f, aliased);
        t.frames.push(fr);
        Ok(Flow::Stay)
    }

    // ---- collectives ------------------------------------------------------

    /// Resolves every group of lanes of one warp waiting at the same warp
    /// collective; returns whether any thread can run again.
    fn resolve_warp(&mut self, threads: &mut [Thread]) -> Result<bool, RunError> {
        let mut groups: BTreeMap<(u32, usize, usize), Vec<usize>> = BTreeMap::new();
        for (i, t) in threads.iter().enumerate() {
            if let State::AtWarp(f, pc) = t.state {
                groups.entry((t.linear / 32, f, pc)).or_default().push(i);
            }
        }
        let progress = !groups.is_empty();
        let b32 = Ty {
            kind: Kind::B,
            bits: 32,
        };
        let pred = Ty {
            kind: Kind::Pred,
            bits: 1,
        };
        for ((warp, f, pc), members) in groups {
            let inst = &self.func(f).insts[pc];
            let lane = |i: usize| threads[i].linear % 32;
            let present: u32 = members.iter().fold(0, |m, &i| m | (1 << lane(i)));
            let mask_op = match inst.opcode.as_str() {
                "shfl" => inst.ops.get(4),
                "vote" | "redux" => inst.ops.get(2),
                "activemask" => None,
                // `.sync.aligned`: the whole warp, checked by `resolve_tensor`.
                op if tensor::is_tensor(op) => None,
                _ => inst.ops.first(),
            };
            let mut masks = Vec::new();
            for &i in &members {
                let m = match mask_op {
                    Some(o) => self
                        .get(&threads[i], o, b32)
                        .map_err(|x| self.fault(&threads[i], x, vec![]))?
                        as u32,
                    None => present,
                };
                for l in 0..32u32 {
                    if m & (1 << l) == 0 || present & (1 << l) != 0 {
                        continue;
                    }
                    let j = (warp * 32 + l) as usize;
                    if j < threads.len() && threads[j].state != State::Done {
                        let msg = format!(
                            "warp divergence: lane {l} is in the member mask {m:#010x} of this `{}` but waits at another instruction",
                            inst.opcode
                        );
                        return Err(self.fault(
                            &threads[i],
                            e(FaultKind::BarrierDivergence, msg),
                            vec![],
                        ));
                    }
                }
                masks.push(m);
            }
            if tensor::is_tensor(&inst.opcode) {
                self.resolve_tensor(threads, &members, f, pc)?;
                for &i in &members {
                    threads[i].frames.last_mut().expect("frame").pc += 1;
                    threads[i].state = State::Running;
                }
                continue;
            }
            // Inputs first (all lanes read before any writes).
            let val = |i: usize, k: usize, ty: Ty| -> Result<u64, RunError> {
                match inst.ops.get(k) {
                    Some(o) => self
                        .get(&threads[i], o, ty)
                        .map_err(|x| self.fault(&threads[i], x, vec![])),
                    None => Err(self.fault(&threads[i], unsupported("a missing operand"), vec![])),
                }
            };
            let mut results: Vec<(u64, Option<u64>)> = Vec::new();
            match inst.opcode.as_str() {
                "activemask" => results = vec![(u64::from(present), None); members.len()],
                "shfl" => {
                    let mode = inst
                        .mods
                        .iter()
                        .find(|m| matches!(m.as_str(), ".up" | ".down" | ".bfly" | ".idx"));
                    let mode = mode.map_or(".idx", String::as_str);
                    let a: Vec<u64> = members
                        .iter()
                        .map(|&i| val(i, 1, b32))
                        .collect::<Result<_, _>>()?;
                    for (k, &i) in members.iter().enumerate() {
                        let b = val(i, 2, b32)? as u32;
                        let c = val(i, 3, b32)? as u32;
                        let (src, ok) = shuffle_source(mode, lane(i), b, c);
                        let from = members.iter().position(|&m| lane(m) == src).unwrap_or(k);
                        results.push((a[from], Some(u64::from(ok))));
                    }
                }
                "vote" => {
                    let ps: Vec<u64> = members
                        .iter()
                        .map(|&i| val(i, 1, pred))
                        .collect::<Result<_, _>>()?;
                    for (k, _) in members.iter().enumerate() {
                        let m = masks[k];
                        let voters: Vec<(u32, u64)> = members
                            .iter()
                            .enumerate()
                            .filter(|(_, &j)| m & (1 << lane(j)) != 0)
                            .map(|(x, &j)| (lane(j), ps[x] & 1))
                            .collect();
                        let ballot: u32 = voters
                            .iter()
                            .filter(|v| v.1 == 1)
                            .fold(0, |acc, v| acc | (1 << v.0));
                        let count = voters.len() as u32;
                        let r = if inst.has(".ballot") {
                            u64::from(ballot)
                        } else if inst.has(".all") {
                            u64::from(ballot.count_ones() == count)
                        } else if inst.has(".any") {
                            u64::from(ballot != 0)
                        } else {
                            u64::from(ballot == 0 || ballot.count_ones() == count)
                        };
                        results.push((r, None));
                    }
                }
                "redux" => {
                    let ty = *inst.types().last().unwrap_or(&b32);
                    let xs: Vec<u64> = members
                        .iter()
                        .map(|&i| val(i, 1, ty))
                        .collect::<Result<_, _>>()?;
                    let opname = inst.mods.get(1).map_or("", |m| m.trim_start_matches('.'));
                    for (k, &i) in members.iter().enumerate() {
                        let m = masks[k];
                        let mut acc: Option<u64> = None;
                        for (x, &j) in members.iter().enumerate() {
                            if m & (1 << lane(j)) == 0 {
                                continue;
                            }
                            acc = Some(match acc {
                                None => xs[x],
                                Some(a) => ops::atomic(opname, ty, a, xs[x])
                                    .map_err(|er| self.fault(&threads[i], er.into(), vec![]))?,
                            });
                        }
                        results.push((acc.unwrap_or(0), None));
                    }
                }
                _ => results = vec![(0, None); members.len()],
            }
            let has_dst = !matches!(inst.opcode.as_str(), "bar" | "barrier");
            for (&i, (v, p)) in members.iter().zip(results) {
                if has_dst {
                    let ty = if inst.opcode == "vote" && !inst.has(".ballot") {
                        pred
                    } else {
                        b32
                    };
                    let r = match (inst.ops.first(), p) {
                        (Some(Op::Pair(d, q)), Some(p)) => self
                            .set(&mut threads[i], d, v, ty)
                            .and_then(|_| self.set(&mut threads[i], q, p, pred)),
                        (Some(d), _) => self.set(&mut threads[i], d, v, ty),
                        (None, _) => Ok(()),
                    };
                    r.map_err(|x| self.fault(&threads[i], x, vec![]))?;
                }
                threads[i].frames.last_mut().expect("frame").pc += 1;
                threads[i].state = State::Running;
            }
        }
        Ok(progress)
    }

    /// Releases a block barrier that every live thread waits at; a barrier
    /// that some threads wait at while others have finished is divergence.
    fn release_barrier(&mut self, threads: &mut [Thread]) -> Result<(), RunError> {
        let waiting: Vec<usize> = (0..threads.len())
            .filter(|&i| matches!(threads[i].state, State::AtBarrier(..)))
            .collect();
        if let Some(done) = threads.iter().find(|t| t.state == State::Done) {
            let [x, y, z] = done.tid;
            let first = &threads[waiting[0]];
            let msg = format!(
                "barrier divergence: {} of {} threads of the block wait at a barrier that the other {} have returned without reaching",
                waiting.len(),
                threads.len(),
                threads.len() - waiting.len()
            );
            return Err(self.fault(
                first,
                e(FaultKind::BarrierDivergence, msg),
                vec![format!("thread ({x},{y},{z}), for one, returned")],
            ));
        }
        // `bar.red`: combine the predicates of every waiting thread.
        let pred = Ty {
            kind: Kind::Pred,
            bits: 1,
        };
        let mut count = 0u64;
        let mut all = true;
        let mut any = false;
        for &i in &waiting {
            let State::AtBarrier(f, pc) = threads[i].state else {
                continue;
            };
            let inst = &self.func(f).insts[pc];
            if inst.has(".red") {
                let last = inst.ops.last().ok_or_else(|| {
                    self.fault(&threads[i], unsupported("bar.red without operands"), vec![])
                })?;
                let p = self
                    .get(&threads[i], last, pred)
                    .map_err(|x| self.fault(&threads[i], x, vec![]))?
                    & 1
                    == 1;
                count += u64::from(p);
                all &= p;
                any |= p;
            }
        }
        for &i in &waiting {
            let State::AtBarrier(f, pc) = threads[i].state else {
                continue;
            };
            let inst = &self.func(f).insts[pc];
            if inst.has(".red") {
                let (v, ty) = if inst.has(".popc") {
                    (
                        count,
                        Ty {
                            kind: Kind::U,
                            bits: 32,
                        },
                    )
                } else if inst.has(".and") {
                    (u64::from(all), pred)
                } else {
                    (u64::from(any), pred)
                };
                if let Some(d) = inst.ops.first() {
                    self.set(&mut threads[i], d, v, ty)
                        .map_err(|x| self.fault(&threads[i], x, vec![]))?;
                }
            }
            threads[i].frames.last_mut().expect("frame").pc += 1;
            threads[i].state = State::Running;
        }
        Ok(())
    }
}

/// The source lane of `shfl` for `lane`, by PTX's rules (`c` packs the clamp
/// in bits 0-4 and the segment mask in bits 8-12), and whether it is in
/// range; out of range, a lane reads its own value.
fn shuffle_source(mode: &str, lane: u32, b: u32, c: u32) -> (u32, bool) {
    let (bval, cval, segmask) = (b & 31, c & 31, (c >> 8) & 31);
    let max_lane = (lane & segmask) | (cval & !segmask);
    let min_lane = lane & segmask;
    let (j, ok) = match mode {
        ".up" => {
            let j = lane as i32 - bval as i32;
            (j, j >= max_lane as i32)
        }
        ".down" => {
            let j = (lane + bval) as i32;
            (j, j <= max_lane as i32)
        }
        ".bfly" => {
            let j = (lane ^ bval) as i32;
            (j, j <= max_lane as i32)
        }
        _ => {
            let j = (min_lane | (bval & !segmask)) as i32;
            (j, j <= max_lane as i32)
        }
    };
    if ok {
        (j as u32, true)
    } else {
        (lane, false)
    }
}

#[cfg(test)]
mod tests {
    use crate::{run_ptx, KernelArg, LaunchConfig};

    /// Runs a one-thread kernel `k(.param .u64 out)` with `body` over a
    /// zeroed `out` of `n` u32 words; returns `out`.
    fn run_one(body: &str, n: usize) -> Vec<u32> {
        let src = format!(
            ".version 8.0\n.target sm_90\n.address_size 64\n\
             .visible .entry k(.param .u64 out)\n{{\n\
             .reg .b32 %r<16>; .reg .b64 %rd<4>;\n\
             ld.param.u64 %rd1, [out];\n cvta.to.global.u64 %rd1, %rd1;\n\
             {body}\n ret;\n}}\n"
        );
        let out = run_ptx(
            &src,
            "k",
            &[KernelArg::Buffer(vec![0; n * 4])],
            &LaunchConfig::default(),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let bytes = out.buffers[0].clone().expect("a buffer");
        bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect()
    }

    #[test]
    fn dp4a_runs_in_a_kernel() {
        // Lanes of %r1: 0x7f, 0x80, 0x01, 0xff; of %r2: 0xff, 0x03, 0xfe, 0x02.
        let out = run_one(
            "mov.b32 %r1, 0xff01807f; mov.b32 %r2, 0x02fe03ff; mov.b32 %r3, 1000;\n\
             dp4a.s32.s32 %r4, %r1, %r2, %r3; st.global.u32 [%rd1], %r4;\n\
             dp4a.u32.u32 %r4, %r1, %r2, 0; st.global.u32 [%rd1+4], %r4;\n\
             dp4a.u32.s32 %r4, %r1, %r2, -1; st.global.u32 [%rd1+8], %r4;\n\
             dp4a.s32.u32 %r4, %r1, %r2, %r3; st.global.u32 [%rd1+12], %r4;\n\
             dp4a.s32.s32 %r4, %r1, 0x01010101, 0; st.global.u32 [%rd1+16], %r4;\n\
             dp4a.u32.u32 %r4, 0xffffffff, 0xffffffff, 0xffffffff; st.global.u32 [%rd1+20], %r4;\n\
             mov.b32 %r5, 0x80808080;\n\
             dp4a.s32.s32 %r4, %r5, %r5, 0x7fffffff; st.global.u32 [%rd1+24], %r4;",
            7,
        );
        assert_eq!(
            out,
            vec![
                485,                                  // -515 + 1000
                33_533,                               // 32385 + 384 + 254 + 510
                764,                                  // -127 + 384 - 2 + 510 - 1
                33_253,                               // 32385 - 384 + 254 - 2 + 1000
                u32::MAX,                             // 127 - 128 + 1 - 1
                260_099,                              // 4 * 255^2 - 1
                0x7fff_ffff_u32.wrapping_add(65_536), // wraps past i32::MAX
            ]
        );
    }
}
