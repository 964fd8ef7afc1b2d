//! Threads, calls and the dispatch of each decoded instruction.
//!
//! A thread's call stack is data (a list of frames, each with its function,
//! program counter, registers and frame variables), so a thread can stop at
//! a barrier inside a called function and resume there. Threads of a block
//! run in turn (`tid` order, x fastest) until each stops; then warp
//! collectives are resolved per group of lanes of one warp at the same
//! instruction, as if those lanes ran in lockstep, and a block barrier is
//! released once every live thread waits at one. This is the IR
//! interpreter's schedule, so racy kernels get the same order in both.
//! The blocks of a cluster run together: each block's threads in turn,
//! rank by rank, then the collectives, then the cluster barrier (whose
//! phase ends once every thread of the cluster has arrived or finished),
//! then the block barriers of the blocks that no cluster wait holds.
//!
//! [`Exec::step`] is the dispatch table: one arm per family of
//! [`Op`], each calling a small function of a submodule ([`arith`],
//! [`bits`], [`access`], [`collective`], [`tensor`]).

use crate::decode::Op;
use crate::memory::{self, Alloc, Loc, Space};
use crate::ops::{mask, sext};
use crate::program::{Func, Inst, Operand, Program, Sreg, Sym, Ty};
use crate::{Fault, FaultKind, LaunchConfig, RunError, RunOutput, Setup};
use ptx_validate::lexer::FloatLit;
use stdx::printf::FormatError;

mod access;
mod arith;
mod bits;
mod collective;
mod tcgen05;
mod tensor;
mod texture;

/// An error inside one instruction, before it is located.
struct E {
    kind: FaultKind,
    msg: String,
}

/// The error of `kind` whose message is `msg`'s text (a typed error's
/// `Display`, or a message made here).
fn e(kind: FaultKind, msg: impl std::fmt::Display) -> E {
    E {
        kind,
        msg: msg.to_string(),
    }
}

fn unsupported(what: impl std::fmt::Display) -> E {
    e(
        FaultKind::Unsupported,
        format!("{what} is not supported by the emulator"),
    )
}

/// Operand `i` of `inst` (decoding checked that it is there).
fn arg(inst: &Inst, i: usize) -> R<&Operand> {
    inst.args
        .get(i)
        .ok_or_else(|| e(FaultKind::Unsupported, "missing operand"))
}

type R<T> = Result<T, E>;

/// A fault at one lane of a warp collective: the thread index and the error.
type LaneErr = (usize, E);

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum State {
    Running,
    /// Waiting at a block barrier (function, pc).
    AtBarrier(usize, usize),
    /// Waiting at a warp collective (function, pc).
    AtWarp(usize, usize),
    /// Waiting at `barrier.cluster.wait` for its cluster's phase to end.
    AtClusterWait,
    /// Polling memory in a cooperative launch: stopped at a strong load
    /// that would read what it read when [`Exec::stores`] stood at this
    /// count, so reading again is worth it only once some thread has
    /// stored since.
    Polling(u64),
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
    /// The condition code's carry flag (`CC.CF`) of `add.cc`, `addc`, ...;
    /// clear when the thread starts.
    carry: bool,
    /// The phase of the cluster barrier the thread arrived in, until its
    /// `barrier.cluster.wait`.
    cluster_arrived: Option<u64>,
    /// The thread's state at the last strong load of a cooperative launch
    /// it executed: reaching the load again in the same state with nothing
    /// stored since means the thread spins.
    last_poll: Option<PollMark>,
}

/// Everything a thread's next steps depend on, at a strong load: if it is
/// the same at the next one and no other thread has stored since, the
/// thread would repeat itself forever, so it spins.
#[derive(PartialEq)]
struct PollMark {
    /// The load (function, pc) and the call depth.
    at: (usize, usize, usize),
    /// [`Exec::stores`] when the thread loaded.
    stores: u64,
    regs: Vec<u64>,
    carry: bool,
    /// The thread's own `.local` and `.param` memory, which
    /// [`Exec::stores`] does not count.
    own: Vec<Vec<u8>>,
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
    /// The shared memory of each block of the running cluster, by rank.
    shared: Vec<Vec<Alloc>>,
    /// The rank in its cluster of the block whose thread runs.
    rank: usize,
    ctaid: [u32; 3],
    /// The cluster barrier's phases completed so far.
    cluster_phase: u64,
    total_steps: u64,
    /// Device `printf`'s output so far.
    printed: Vec<u8>,
    /// The tensor memory of each block of the running cluster, by rank.
    tmem: Vec<tcgen05::Tmem>,
    /// Stores to memory that other threads see (not `.local`, not
    /// `.param`) executed so far: the clock of [`State::Polling`].
    stores: u64,
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
        rank: 0,
        ctaid: [0; 3],
        cluster_phase: 0,
        total_steps: 0,
        printed: Vec::new(),
        tmem: Vec::new(),
        stores: 0,
    };
    if ex.setup.workspace.is_some() {
        // A cooperative launch: every block of the grid is resident.
        ex.run_cluster(&cluster_blocks([0; 3], config.grid))?;
    } else {
        let [cx, cy, cz] = ex.setup.cluster;
        let [gx, gy, gz] = config.grid;
        for z in (0..gz).step_by(cz as usize) {
            for y in (0..gy).step_by(cy as usize) {
                for x in (0..gx).step_by(cx as usize) {
                    ex.run_cluster(&cluster_blocks([x, y, z], ex.setup.cluster))?;
                }
            }
        }
    }
    let buffers = ex
        .setup
        .buffer_slots
        .iter()
        .zip(&ex.setup.texture_slots)
        .map(|(s, tex)| match (s, tex) {
            (Some(i), _) => Some(ex.setup.global[*i].bytes.clone()),
            (None, Some(k)) => Some(ex.setup.textures[*k].data.clone()),
            (None, None) => None,
        })
        .collect();
    Ok(RunOutput {
        buffers,
        steps: ex.total_steps,
        printed: ex.printed,
    })
}

/// The blocks of the cluster whose first block is `first`, by rank (`x`
/// fastest, as `%cluster_ctarank` counts them).
fn cluster_blocks(first: [u32; 3], cluster: [u32; 3]) -> Vec<[u32; 3]> {
    let mut blocks = Vec::new();
    for z in 0..cluster[2] {
        for y in 0..cluster[1] {
            for x in 0..cluster[0] {
                blocks.push([first[0] + x, first[1] + y, first[2] + z]);
            }
        }
    }
    blocks
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

    /// The threads of one block, ready to start.
    fn new_threads(&self) -> Vec<Thread> {
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
                        carry: false,
                        cluster_arrived: None,
                        last_poll: None,
                    };
                    let f = self.new_frame(&mut t, self.setup.kernel, Vec::new());
                    t.frames.push(f);
                    threads.push(t);
                }
            }
        }
        threads
    }

    /// Makes the block of rank `rank` (at `ctaid`) the one whose threads run.
    fn enter(&mut self, rank: usize, ctaid: [u32; 3]) {
        self.rank = rank;
        self.ctaid = ctaid;
    }

    /// Runs the blocks of one cluster together (a cluster of one block is
    /// a plain block): each block's threads in turn until each stops, then
    /// the warp collectives, then the cluster barrier, then the block
    /// barriers, as the interpreter schedules one block.
    fn run_cluster(&mut self, ctaids: &[[u32; 3]]) -> Result<(), RunError> {
        self.shared = vec![self.setup.shared_template.clone(); ctaids.len()];
        self.tmem = ctaids.iter().map(|_| tcgen05::Tmem::default()).collect();
        self.cluster_phase = 0;
        let mut blocks: Vec<Vec<Thread>> = ctaids.iter().map(|_| self.new_threads()).collect();
        loop {
            for (rank, threads) in blocks.iter_mut().enumerate() {
                self.enter(rank, ctaids[rank]);
                for t in threads.iter_mut() {
                    if t.state == State::Running {
                        self.run_thread(t)?;
                    }
                }
            }
            if blocks.iter().flatten().all(|t| t.state == State::Done) {
                return self.check_tmem_freed(ctaids);
            }
            let mut resolved = false;
            for (rank, threads) in blocks.iter_mut().enumerate() {
                self.enter(rank, ctaids[rank]);
                resolved |= self.resolve_warp(threads)?;
            }
            // A thread that yielded at an mbarrier wait tries again.
            if resolved || blocks.iter().flatten().any(|t| t.state == State::Running) {
                continue;
            }
            if self.release_cluster_barrier(&mut blocks)
                || self.release_block_barriers(&mut blocks, ctaids)?
                || self.wake_pollers(&mut blocks)
            {
                continue;
            }
            return Err(self.deadlock(&blocks, ctaids));
        }
    }

    /// Lets the threads that poll memory read it again, once a thread has
    /// stored since they read it (they are woken only when no barrier can
    /// be released, so polling never outruns the threads it waits for);
    /// returns whether any woke.
    fn wake_pollers(&mut self, blocks: &mut [Vec<Thread>]) -> bool {
        let mut woke = false;
        for t in blocks.iter_mut().flatten() {
            if matches!(t.state, State::Polling(seen) if seen < self.stores) {
                t.state = State::Running;
                woke = true;
            }
        }
        woke
    }

    /// Faults when a block of the finished cluster still holds tensor
    /// memory.
    fn check_tmem_freed(&mut self, ctaids: &[[u32; 3]]) -> Result<(), RunError> {
        for (rank, &ctaid) in ctaids.iter().enumerate() {
            self.enter(rank, ctaid);
            if let Some(err) = self.tmem_leak(rank) {
                return Err(err);
            }
        }
        Ok(())
    }

    /// Ends the cluster barrier's phase once every thread of the cluster has
    /// arrived in it or finished, and wakes the threads that wait for it;
    /// returns whether the phase ended.
    fn release_cluster_barrier(&mut self, blocks: &mut [Vec<Thread>]) -> bool {
        let phase = self.cluster_phase;
        let all_in = blocks
            .iter()
            .flatten()
            .all(|t| t.state == State::Done || t.cluster_arrived == Some(phase));
        if !all_in {
            return false;
        }
        self.cluster_phase += 1;
        for t in blocks.iter_mut().flatten() {
            if t.state == State::AtClusterWait {
                t.cluster_arrived = None;
                t.frames.last_mut().expect("frame").pc += 1;
                t.state = State::Running;
            }
        }
        true
    }

    /// Releases the barrier of each block none of whose threads waits for
    /// the cluster barrier or polls memory (those threads' block barrier
    /// cannot be reached before the cluster's phase ends or the memory
    /// changes); returns whether any was released.
    fn release_block_barriers(
        &mut self,
        blocks: &mut [Vec<Thread>],
        ctaids: &[[u32; 3]],
    ) -> Result<bool, RunError> {
        let mut released = false;
        for (rank, threads) in blocks.iter_mut().enumerate() {
            let at_barrier = threads
                .iter()
                .any(|t| matches!(t.state, State::AtBarrier(..)));
            let held = threads
                .iter()
                .any(|t| matches!(t.state, State::AtClusterWait | State::Polling(_)));
            if at_barrier && !held {
                self.enter(rank, ctaids[rank]);
                self.release_barrier(threads)?;
                released = true;
            }
        }
        Ok(released)
    }

    /// The error when no thread can go on: every thread waits for another.
    fn deadlock(&mut self, blocks: &[Vec<Thread>], ctaids: &[[u32; 3]]) -> RunError {
        let waiting = |pick: fn(&State) -> bool| {
            blocks.iter().enumerate().find_map(|(r, threads)| {
                let t = threads.iter().find(|t| pick(&t.state))?;
                Some((r, t))
            })
        };
        if let Some((rank, t)) = waiting(|s| *s == State::AtClusterWait) {
            self.enter(rank, ctaids[rank]);
            let msg = "deadlock: this thread waits for the cluster barrier, which threads of the \
                       cluster that wait at a block barrier (or have stopped) never reach";
            return self.fault(t, e(FaultKind::BarrierDivergence, msg), vec![]);
        }
        if let Some((rank, t)) = waiting(|s| matches!(s, State::Polling(_))) {
            self.enter(rank, ctaids[rank]);
            let msg = "deadlock: this thread polls memory that no thread will store to again \
                       (a grid-wide sync that some block never reaches?)";
            let note = "every other thread has finished or waits at a barrier".to_string();
            return self.fault(t, e(FaultKind::BarrierDivergence, msg), vec![note]);
        }
        RunError::Setup(crate::SetupError::NoProgress)
    }

    /// Locates an error at the thread's current instruction.
    fn fault(&self, t: &Thread, err: E, notes: Vec<String>) -> RunError {
        let at = t.frames.last().map(|fr| (fr.func, fr.pc));
        self.fault_at(at, t.tid, err, notes)
    }

    /// Locates an error at instruction `at` (function, pc; `None`: the
    /// kernel's end) of thread `tid` of the running block.
    fn fault_at(
        &self,
        at: Option<(usize, usize)>,
        tid: [u32; 3],
        err: E,
        notes: Vec<String>,
    ) -> RunError {
        let kernel = self.func(self.setup.kernel).name.clone();
        let (function, inst) = match at {
            Some((func, pc)) => {
                let f = self.func(func);
                (f.name.clone(), f.insts.get(pc))
            }
            None => (kernel.clone(), None),
        };
        let (line, col, start, end, name) = match inst {
            Some(i) => (i.pos.line, i.pos.col, i.pos.offset, i.end, i.name.clone()),
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
            thread: tid,
            notes,
            source: None,
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
            if self.total_steps > self.config.max_steps_per_launch {
                let msg = format!(
                    "step limit: the launch executed more than {} instructions (a grid too large to run?)",
                    self.config.max_steps_per_launch
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
                let base = match space {
                    Space::Shared => self.setup.shared_base[idx],
                    _ => 0,
                };
                memory::space_addr(space, idx, base)
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
            Sreg::TotalSmem => self.shared[self.rank]
                .iter()
                .map(|a| a.bytes.len() as u64)
                .sum(),
            Sreg::ClusterCtaRank => self.cluster_rank() as u64,
            Sreg::ClusterNCtaRank => self.setup.cluster.iter().map(|&d| u64::from(d)).product(),
            Sreg::ClusterId(d) => u64::from(self.ctaid[d] / self.setup.cluster[d]),
            Sreg::NClusterId(d) => u64::from(c.grid[d] / self.setup.cluster[d]),
            Sreg::ClusterCtaid(d) => u64::from(self.ctaid[d] % self.setup.cluster[d]),
            Sreg::ClusterNCtaid(d) => u64::from(self.setup.cluster[d]),
            Sreg::EnvReg(n) => {
                let workspace = self.setup.workspace.unwrap_or(0);
                match n {
                    // `load_env_reg64<1, 2>`: the high half, then the low.
                    1 => workspace >> 32,
                    2 => workspace & 0xffff_ffff,
                    _ => 0,
                }
            }
            Sreg::Const(v) => v,
        }
    }

    /// The blocks of a cluster.
    fn cluster_size(&self) -> usize {
        self.setup.cluster.iter().product::<u32>() as usize
    }

    /// The running block's rank in its cluster. The resident blocks are
    /// numbered cluster by cluster, so it is the block's place among them
    /// modulo the cluster's size (a cooperative launch holds the whole
    /// grid).
    fn cluster_rank(&self) -> usize {
        self.rank % self.cluster_size()
    }

    /// The place among the resident blocks of the block of rank `rank` of
    /// the running block's cluster, if the cluster has that rank.
    fn cluster_slot(&self, rank: usize) -> Option<usize> {
        (rank < self.cluster_size()).then(|| self.rank - self.cluster_rank() + rank)
    }

    /// The value of a source operand as a value of `ty`.
    fn get(&self, t: &Thread, op: &Operand, ty: Ty) -> R<u64> {
        let m = mask(ty.bits);
        let fr = t.frames.last().expect("frame");
        Ok(match op {
            Operand::Reg(r) => fr.regs[*r] & m,
            Operand::NotReg(r) => u64::from(fr.regs[*r] & 1 == 0),
            // An integer literal where a float is expected means its value.
            Operand::Imm(v) if ty.is_float() => {
                crate::program::float_bits(FloatLit::Decimal(*v as f64), ty) & m
            }
            Operand::Imm(v) => (*v as u64) & m,
            Operand::FImm(f) => crate::program::float_bits(*f, ty) & m,
            Operand::Special(s) => self.special(t, *s) & m,
            Operand::Sym(s, off) => self.sym_addr(t, *s)?.wrapping_add(*off as u64) & m,
            Operand::Func(f) => memory::code_addr(*f) & m,
            _ => return Err(unsupported("this operand form")),
        })
    }

    /// Writes a result of type `ty` to a destination register: a narrower
    /// signed value sign-extends into a wider register, others zero-extend.
    fn set(&self, t: &mut Thread, op: &Operand, v: u64, ty: Ty) -> R<()> {
        let fr = t.frames.last_mut().expect("frame");
        match op {
            Operand::Reg(r) => {
                let rt = self.func(fr.func).regs[*r].ty;
                let v = if rt.bits > ty.bits && ty.is_signed() {
                    sext(v, ty.bits) as u64
                } else {
                    v & mask(ty.bits)
                };
                fr.regs[*r] = v & mask(rt.bits);
                Ok(())
            }
            Operand::Sink => Ok(()),
            _ => Err(unsupported("this destination form")),
        }
    }

    /// The address an `[..]` operand names.
    fn addr(&self, t: &Thread, op: &Operand) -> R<u64> {
        match op {
            Operand::Addr(base, off) => {
                let b = match base.as_deref() {
                    None => 0,
                    Some(Operand::Reg(r)) => t.frames.last().expect("frame").regs[*r],
                    Some(Operand::Sym(s, o)) => self.sym_addr(t, *s)?.wrapping_add(*o as u64),
                    Some(_) => return Err(unsupported("this address base")),
                };
                Ok(b.wrapping_add(*off as u64))
            }
            _ => Err(unsupported("a non-address operand of a memory instruction")),
        }
    }

    // ---- memory -----------------------------------------------------------

    /// The allocation and byte an address names: a shared address's window
    /// offset becomes the offset in its allocation.
    fn locate(&self, space: Option<Space>, addr: u64) -> R<Loc> {
        let mut loc = self.locate_in_window(space, addr)?;
        if loc.space == Space::Shared {
            let (_, index) = memory::split_cluster_index(loc.index);
            if let Some(&base) = self.setup.shared_base.get(index) {
                loc.offset = loc.offset.checked_sub(base).ok_or_else(|| {
                    e(
                        FaultKind::OutOfBounds,
                        format!(
                            "out-of-bounds access: {addr:#x} is before the start of {}",
                            self.setup.shared_template[index].name
                        ),
                    )
                })?;
            }
        }
        Ok(loc)
    }

    fn locate_in_window(&self, space: Option<Space>, addr: u64) -> R<Loc> {
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
        let blocks = self.cluster_size();
        let kp = self.setup.kparams.len();
        let found = match loc.space {
            Space::Global => self.setup.global.get_mut(loc.index),
            Space::Const => self.setup.constant.get_mut(loc.index),
            Space::Shared => {
                // Another block of the cluster's, through `mapa`'s address.
                let (rank, index) = memory::split_cluster_index(loc.index);
                let slot = rank.map_or(Some(self.rank), |r| self.cluster_slot(r));
                slot.and_then(|s| self.shared.get_mut(s))
                    .and_then(|block| block.get_mut(index))
            }
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
            // A rank a cluster could have, but this one has not.
            let missing = memory::split_cluster_index(loc.index)
                .0
                .filter(|r| (blocks..memory::MAX_CLUSTER_BLOCKS as usize).contains(r));
            if let (Space::Shared, Some(rank)) = (loc.space, missing) {
                return e(
                    FaultKind::OutOfBounds,
                    format!(
                        "the address names shared memory of the block of rank {rank} of the cluster (from `mapa`), but the cluster has {blocks} block{}",
                        if blocks == 1 { "" } else { "s" }
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
        a.check(off, len).map_err(|m| e(m.fault_kind(), m))
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
        if !matches!(loc.space, Space::Local | Space::Param) {
            self.stores += 1;
        }
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

    /// Runs one instruction of thread `t` (at `pc` of function `fidx`).
    fn step(&mut self, t: &mut Thread, fidx: usize, pc: usize, inst: &'a Inst) -> R<Flow> {
        match &inst.op {
            Op::Mov(ty) => self.mov(t, inst, *ty),
            Op::Pack(ty) => self.pack(t, inst, *ty),
            Op::Unpack(ty) => self.unpack(t, inst, *ty),
            Op::Ld { ty, space, poll } if *poll && self.setup.workspace.is_some() => {
                self.poll(t, inst, (fidx, pc), *ty, *space)
            }
            Op::Ld { ty, space, .. } => self.ld(t, inst, *ty, *space),
            Op::St { ty, space } => self.st(t, inst, *ty, *space),
            Op::Int { op, ty, sat } => self.int(t, inst, *op, *ty, *sat),
            Op::MulWide(ty) => self.mul_wide(t, inst, *ty),
            Op::Mad { ty, half, sat } => self.mad(t, inst, *ty, *half, *sat),
            Op::Sad(ty) => self.sad(t, inst, *ty),
            Op::IntLanes { op, lane, relu } => self.int_lanes(t, inst, *op, *lane, *relu),
            Op::Video(v) => self.video(t, inst, v),
            Op::Mul24 {
                hi,
                signed,
                add,
                sat,
            } => self.mul24(t, inst, *hi, *signed, *add, *sat),
            Op::AddCarry {
                sub,
                carry_in,
                carry_out,
                ty,
            } => self.add_carry(t, inst, *sub, *carry_in, *carry_out, *ty),
            Op::MadCarry {
                hi,
                carry_in,
                carry_out,
                ty,
            } => self.mad_carry(t, inst, *hi, *carry_in, *carry_out, *ty),
            Op::Float { op, ty, fl } => self.float(t, inst, *op, *ty, *fl),
            Op::DivApprox { ftz } => self.div_approx(t, inst, *ftz),
            Op::FloatMinMax { max, ty, fl } => self.float_min_max(t, inst, *max, *ty, *fl),
            Op::Fma { ty, fl } => self.fma(t, inst, *ty, *fl),
            Op::Shift { left, ty } => self.shift(t, inst, *left, *ty),
            Op::IntUnary { op, ty } => self.int_unary(t, inst, *op, *ty),
            Op::FloatSign { neg, ty, ftz } => self.float_sign(t, inst, *neg, *ty, *ftz),
            Op::FloatUnary { op, ty, fl } => self.float_unary(t, inst, *op, *ty, *fl),
            Op::Copysign(ty) => self.copysign(t, inst, *ty),
            Op::Setp {
                cmp,
                ty,
                ftz,
                combine,
            } => self.setp(t, inst, *cmp, *ty, *ftz, *combine),
            Op::Half {
                op,
                ty,
                packed,
                fl,
                relu,
            } => self.half(t, inst, *op, *ty, *packed, *fl, *relu),
            Op::SetpPacked {
                cmp,
                ty,
                ftz,
                combine,
            } => self.setp_packed(t, inst, *cmp, *ty, *ftz, *combine),
            Op::Selp(ty) => self.selp(t, inst, *ty),
            Op::Slct { ty, float, ftz } => self.slct(t, inst, *ty, *float, *ftz),
            Op::Cvt(c) => self.cvt(t, inst, c),
            Op::CvtPack {
                elem,
                relu,
                satfinite,
            } => self.cvt_pack(t, inst, *elem, *relu, *satfinite),
            Op::Bfe(_)
            | Op::Bfi(_)
            | Op::Prmt(_)
            | Op::Dp4a { .. }
            | Op::Dp2a { .. }
            | Op::Fns
            | Op::Bmsk { .. }
            | Op::Szext { .. }
            | Op::Shf { .. }
            | Op::Bfind { .. }
            | Op::Testp { .. } => self.bits(t, inst),
            Op::Lop3 { lut, pred } => self.lop3(t, inst, *lut, *pred),
            Op::Cvta { ty, space, to } => self.cvta(t, inst, *ty, *space, *to),
            Op::Isspacep(space) => self.isspacep(t, inst, *space),
            Op::Atom(a) => self.atomic(t, inst, a),
            Op::VecAtomAdd { ty, n, space, red } => {
                self.vector_atomic(t, inst, *ty, *n, *space, *red)
            }
            Op::Mbarrier { op, space } => self.mbarrier(t, inst, *op, *space),
            Op::CpAsync { size, source_size } => self.cp_async(t, inst, *size, *source_size),
            Op::BulkTensor { load } => self.bulk_tensor(t, inst, *load),
            Op::Bulk { dst, src, mbar } => self.bulk(t, inst, *dst, *src, *mbar),
            Op::Tcgen05(op) => self.tcgen05(t, inst, *op),
            Op::Tex(x) => self.tex(t, inst, *x),
            Op::Surf(s) => self.surf(t, inst, *s),
            Op::Bra(target) => Ok(Flow::Jump(*target)),
            Op::Call { callee, frames } => self.call(t, *callee, frames),
            Op::Vprintf { frames } => self.vprintf(t, frames),
            Op::CallIndirect {
                at,
                n_rets,
                n_params,
                frames,
            } => {
                let callee = self.indirect_callee(t, inst, *at, *n_rets, *n_params)?;
                self.call(t, callee, frames)
            }
            Op::Ret => Ok(self.do_ret(t)),
            Op::Exit => {
                t.state = State::Done;
                Ok(Flow::Stop)
            }
            Op::Trap => Err(e(FaultKind::Trap, "the kernel executed `trap`")),
            Op::AssertFail { frames } => Err(self.assert_fail(t, frames)),
            Op::Barrier { .. } => {
                t.state = State::AtBarrier(fidx, pc);
                Ok(Flow::Stop)
            }
            Op::ClusterArrive => self.cluster_arrive(t),
            Op::ClusterWait => self.cluster_wait(t),
            Op::Mapa { ty, space } => self.mapa(t, inst, *ty, *space),
            Op::WarpSync
            | Op::Shfl(_)
            | Op::Vote(_)
            | Op::Activemask
            | Op::Redux { .. }
            | Op::Match { .. }
            | Op::Tensor(_) => {
                t.state = State::AtWarp(fidx, pc);
                Ok(Flow::Stop)
            }
            Op::Nop => Ok(Flow::Next),
            Op::Invalid(err) => Err(e(FaultKind::Unsupported, err.to_string())),
        }
    }

    /// A strong load in a cooperative launch, where a thread polls a flag
    /// other blocks set (a grid-wide sync): it loads, unless it reached the
    /// same load before in the same state and nothing was stored since, so
    /// that it would read the same value and loop; then it stops at the
    /// load until a store lets it read again, and the other threads run.
    fn poll(
        &mut self,
        t: &mut Thread,
        inst: &Inst,
        (func, pc): (usize, usize),
        ty: Ty,
        space: Option<Space>,
    ) -> R<Flow> {
        let own = t.local.iter().chain(&t.params);
        let mark = PollMark {
            at: (func, pc, t.frames.len()),
            stores: self.stores,
            regs: t.frames.last().expect("frame").regs.clone(),
            carry: t.carry,
            own: own.map(|a| a.bytes.clone()).collect(),
        };
        if t.last_poll.as_ref() == Some(&mark) {
            t.state = State::Polling(self.stores);
            return Ok(Flow::Stop);
        }
        t.last_poll = Some(mark);
        self.ld(t, inst, ty, space)
    }

    /// `call`: the callee's return and parameter `.param`s are the caller's
    /// call-scope variables `frames` themselves, so `st.param` before the
    /// call and `ld.param` after it (of the return value) need no copying.
    /// `vprintf(fmt, buf)`: formats the arguments in `buf` as `fmt` says,
    /// appends the text to the launch's output and returns the number of
    /// arguments read (-1 for a null format), as the CUDA runtime does.
    fn vprintf(&mut self, t: &mut Thread, frames: &[usize]) -> R<Flow> {
        let slots = &t.frames.last().expect("frame").slots;
        let [ret, fmt, buf] = [0, 1, 2].map(|k| slots[frames[k]]);
        let param = |(space, idx): (Space, usize)| memory::space_addr(space, idx, 0);
        let fmt = self.load(t, Some(fmt.0), param(fmt), 8)?;
        let buf = self.load(t, Some(buf.0), param(buf), 8)?;
        let count = if fmt == 0 {
            -1
        } else {
            let text = self.c_string(t, fmt, usize::MAX)?;
            let mut args = PrintfArgs { ex: self, t, buf };
            let (out, count) = stdx::printf::format(&text, &mut args).map_err(|err| match err {
                FormatError::Spec(spec) => unsupported(spec),
                FormatError::Read(fault) => fault,
            })?;
            stdx::printf::append_bounded(&mut self.printed, &out);
            count as i32
        };
        self.store(t, Some(ret.0), param(ret), 4, count as u32 as u64)?;
        t.frames.last_mut().expect("frame").pc += 1;
        Ok(Flow::Stay)
    }

    /// A failed `assert`: the fault says what the CUDA runtime prints,
    /// read from the five arguments of `__assertfail`.
    fn assert_fail(&mut self, t: &mut Thread, frames: &[usize]) -> E {
        let slots = t.frames.last().expect("frame").slots.clone();
        let mut read = |k: usize, len: u64| {
            let (space, idx) = slots[frames[k]];
            self.load(t, Some(space), memory::space_addr(space, idx, 0), len)
        };
        let (cond, file, line, function) = match (read(0, 8), read(1, 8), read(2, 4), read(3, 8)) {
            (Ok(c), Ok(f), Ok(l), Ok(func)) => (c, f, l, func),
            _ => {
                return e(
                    FaultKind::Trap,
                    "a device-side `assert` failed (`__assertfail`)",
                )
            }
        };
        const LIMIT: usize = 4096;
        let mut string = |addr: u64| self.c_string(t, addr, LIMIT).unwrap_or_default();
        let (cond, file, function) = (string(cond), string(file), string(function));
        let msg = stdx::printf::assertion_message(
            &cond,
            &file,
            line as u32,
            &function,
            self.ctaid,
            t.tid,
        );
        e(FaultKind::Trap, msg)
    }

    /// The bytes of the NUL-terminated string at generic address `addr`
    /// (at most `limit`).
    fn c_string(&mut self, t: &mut Thread, addr: u64, limit: usize) -> R<Vec<u8>> {
        let mut text = Vec::new();
        while text.len() < limit {
            let byte = self.load(t, None, addr.wrapping_add(text.len() as u64), 1)? as u8;
            if byte == 0 {
                break;
            }
            text.push(byte);
        }
        Ok(text)
    }

    /// The function an indirect call reaches: the one whose address operand
    /// `at` holds, with a body and the call's shape, or a fault.
    fn indirect_callee(
        &self,
        t: &Thread,
        inst: &Inst,
        at: usize,
        n_rets: usize,
        n_params: usize,
    ) -> R<usize> {
        let u64 = Ty {
            kind: crate::program::Kind::U,
            bits: 64,
        };
        let addr = self.get(t, arg(inst, at)?, u64)?;
        let func = memory::code_index(addr).and_then(|f| Some((f, self.prog.funcs.get(f)?)));
        let Some((f, func)) = func else {
            return Err(e(
                FaultKind::WrongSpace,
                format!("an indirect call through {addr:#x}, which is no function's address"),
            ));
        };
        if !func.has_body || func.n_rets != n_rets || func.n_params != n_params {
            return Err(e(
                FaultKind::Unsupported,
                format!(
                    "an indirect call of `{}` with {n_rets} results and {n_params} arguments \
                     (it has {} and {}{})",
                    func.name,
                    func.n_rets,
                    func.n_params,
                    if func.has_body { "" } else { ", and no body" }
                ),
            ));
        }
        Ok(f)
    }

    fn call(&mut self, t: &mut Thread, callee: usize, frames: &[usize]) -> R<Flow> {
        if t.frames.len() >= self.config.max_call_depth {
            return Err(e(
                FaultKind::CallDepth,
                format!("more than {} nested calls", self.config.max_call_depth),
            ));
        }
        let caller = t.frames.last().expect("frame");
        let aliased = frames.iter().map(|&i| caller.slots[i]).collect();
        t.frames.last_mut().expect("frame").pc += 1;
        let fr = self.new_frame(t, callee, aliased);
        t.frames.push(fr);
        Ok(Flow::Stay)
    }
}

/// The arguments of one `vprintf` call: its buffer in the thread's memory.
struct PrintfArgs<'e, 'a, 't> {
    ex: &'e mut Exec<'a>,
    t: &'t mut Thread,
    buf: u64,
}

/// A read of `printf`'s arguments that faulted, as the fault to report:
/// its kind, and its message after what was being read.
fn printf_read(err: E) -> E {
    e(
        err.kind,
        format!("reading the arguments of `printf`: {}", err.msg),
    )
}

impl stdx::printf::Args for PrintfArgs<'_, '_, '_> {
    type Error = E;
    fn arg(&mut self, offset: u64, len: u64) -> R<u64> {
        let addr = self.buf.wrapping_add(offset);
        self.ex.load(self.t, None, addr, len).map_err(printf_read)
    }
    fn string(&mut self, addr: u64, limit: usize) -> R<Vec<u8>> {
        self.ex.c_string(self.t, addr, limit).map_err(printf_read)
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
