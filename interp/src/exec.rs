//! Running threads: the per-thread call stack, one instruction at a time,
//! and the block scheduler that makes `barrier` work.

use super::memory::{self, AccessError, Alloc, GridMemory};
use super::{eval, ftz};
use super::{Fault, FaultKind, LaunchConfig, RunError, RunOutput, Setup, MAX_LOCAL_BYTES};
use cranelift_entity::EntityRef;
use midend::ir::{
    AddrSpace, Block, FuncId, Function, Inst, InstData, Module, Opcode, SpecialReg, Type, Value,
    ValueDef,
};

mod accel;
mod collective;
mod fragment;
mod race;
mod runtime;
mod texture;

/// One activation of a function.
struct Frame {
    func: FuncId,
    block: Block,
    /// Index of the next instruction in `block`.
    pos: usize,
    /// The bits of every value of the function, indexed by value number.
    values: Vec<u64>,
    /// Where this frame's stack slots start in the thread's local allocations.
    slot_base: usize,
    /// Bytes of local memory in use below this frame.
    local_bytes_base: u64,
    /// The caller's values that receive this call's results.
    ret_to: Vec<Value>,
}

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum State {
    Running,
    /// Waiting at a block barrier (`barrier` or `barrier_red`) or at the
    /// grid barrier (`grid_barrier`) of this function.
    AtBarrier(FuncId, Inst),
    /// Waiting at a warp collective (`shfl`, `vote`, `warp_sync`, reading
    /// `activemask`) for the other lanes that run it together.
    AtWarp(FuncId, Inst),
    Done,
}

struct Thread {
    tid: [u32; 3],
    linear: u32,
    frames: Vec<Frame>,
    local: Vec<Alloc>,
    local_bytes: u64,
    steps: u64,
    state: State,
}

/// Why a thread stopped running for now.
enum Stop {
    Barrier(FuncId, Inst),
    Warp(FuncId, Inst),
    /// Found an mbarrier phase incomplete: let the other threads run first.
    Yield,
    Returned,
}

/// A fault before the thread and block are attached.
struct Raw {
    kind: FaultKind,
    message: String,
    func: FuncId,
    inst: Option<Inst>,
    /// Another instruction the fault is about, and what happened there.
    related: Option<(FuncId, Inst, String)>,
}

fn raw(kind: FaultKind, message: impl Into<String>, func: FuncId, inst: Option<Inst>) -> Raw {
    Raw {
        kind,
        message: message.into(),
        func,
        inst,
        related: None,
    }
}

fn access_fault(e: &AccessError) -> FaultKind {
    match e {
        AccessError::Null => FaultKind::NullPointer,
        AccessError::Wild(_) | AccessError::WrongSpace { .. } | AccessError::NoLoadStore(_) => {
            FaultKind::WrongSpace
        }
        AccessError::Dangling { .. } => FaultKind::Dangling,
        AccessError::OutOfBounds { .. } => FaultKind::OutOfBounds,
        AccessError::Misaligned { .. } => FaultKind::Misaligned,
        AccessError::ReadOnly { .. } => FaultKind::ReadOnly,
    }
}

/// The shared state of one block's execution.
struct Exec<'m> {
    module: &'m Module,
    config: &'m LaunchConfig,
    grid_mem: GridMemory,
    global_addrs: Vec<u64>,
    shared: Vec<Alloc>,
    ctaid: [u32; 3],
    /// The race checker's state for the running block (`--racecheck`).
    race: Option<race::RaceState>,
    /// The kernel's cluster shape (`[1, 1, 1]` without `__cluster_dims__`).
    cluster: [u32; 3],
    /// The launch is cooperative (the kernel reaches the grid barrier): the
    /// grid workspace's address is not null.
    cooperative: bool,
    /// Instructions executed by every thread of the launch so far.
    launch_steps: u64,
    /// Device `printf`'s output so far (at most `stdx::printf::PRINTF_LIMIT`
    /// bytes).
    printed: Vec<u8>,
    /// The launch's texture and surface objects (`stdx::texture`).
    textures: Vec<stdx::texture::Resource>,
}

pub(super) fn run(
    module: &Module,
    setup: Setup,
    config: &LaunchConfig,
) -> Result<RunOutput, RunError> {
    let kernel = setup.kernel;
    let mut exec = Exec {
        module,
        config,
        grid_mem: setup.grid_mem,
        global_addrs: setup.global_addrs,
        shared: Vec::new(),
        ctaid: [0; 3],
        race: None,
        cluster: module.functions[kernel]
            .attrs
            .cluster_dims
            .map_or([1; 3], |d| d.map(|n| n.max(1))),
        cooperative: setup.cooperative,
        launch_steps: 0,
        printed: Vec::new(),
        textures: setup.textures.clone(),
    };
    let kname = &module.functions[kernel].name;
    let steps = exec
        .run_grid(kernel, &setup.param_bits, &setup.shared_template)
        .map_err(|e| match e {
            RunError::Fault(mut f) => {
                f.kernel = kname.clone();
                RunError::Fault(f)
            }
            other => other,
        })?;
    let buffers = setup
        .buffer_slots
        .iter()
        .zip(&setup.texture_slots)
        .map(|(slot, tex)| {
            if let Some(k) = tex {
                return Some(exec.textures[*k].data.clone());
            }
            slot.map(|(space, index)| {
                let list = match space {
                    AddrSpace::Const => &exec.grid_mem.constant,
                    AddrSpace::Param => &exec.grid_mem.param,
                    _ => &exec.grid_mem.global,
                };
                list[index].bytes.clone()
            })
        })
        .collect();
    Ok(RunOutput {
        buffers,
        steps,
        printed: exec.printed,
    })
}

/// How a block's run ended for now.
enum BlockEnd {
    /// Every thread returned.
    Done,
    /// Every thread waits at the grid barrier.
    AtGridBarrier,
}

/// A block of a cooperative launch waiting at the grid barrier, with what
/// it keeps while other blocks run: its shared memory and its threads.
struct Parked {
    ctaid: [u32; 3],
    shared: Vec<Alloc>,
    race: Option<race::RaceState>,
    threads: Vec<Thread>,
}

/// The blocks of a launch between grid barriers.
#[derive(Default)]
struct GridState {
    parked: Vec<Parked>,
    /// The first block that returned (no later grid barrier can complete).
    finished: Option<[u32; 3]>,
    /// Instructions executed by the threads of the finished blocks.
    steps: u64,
}

impl<'m> Exec<'m> {
    fn func(&self, id: FuncId) -> &'m Function {
        &self.module.functions[id]
    }

    fn fault(&self, t: &Thread, r: Raw) -> RunError {
        let func = self.module.functions.get(r.func);
        let span = r
            .inst
            .zip(func)
            .map(|(i, f)| f.spans[i])
            .filter(|s| !s.is_none());
        let related = r.related.map(|(fid, inst, message)| {
            let f = self.module.functions.get(fid);
            super::RelatedSite {
                span: f.map(|f| f.spans[inst]).filter(|s| !s.is_none()),
                function: f.map_or_else(String::new, |f| f.name.clone()),
                inst,
                message,
            }
        });
        RunError::Fault(Box::new(Fault {
            kind: r.kind,
            message: r.message,
            kernel: String::new(),
            function: func.map_or_else(String::new, |f| f.name.clone()),
            inst: r.inst,
            span,
            block: self.ctaid,
            thread: t.tid,
            notes: Vec::new(),
            related,
        }))
    }

    /// Runs the grid's blocks one after another (x fastest, then y, then
    /// z). A block whose threads all wait at the grid barrier parks; when
    /// every block has parked, all are released, in the same order, until
    /// each has returned. Returns the instructions executed.
    fn run_grid(
        &mut self,
        kernel: FuncId,
        params: &[u64],
        shared_template: &[Alloc],
    ) -> Result<u64, RunError> {
        let mut grid = GridState::default();
        let [gx, gy, gz] = self.config.grid;
        for bz in 0..gz {
            for by in 0..gy {
                for bx in 0..gx {
                    self.ctaid = [bx, by, bz];
                    self.shared = shared_template.to_vec();
                    if self.config.racecheck {
                        let threads: u32 = self.config.block.iter().product();
                        self.race = Some(race::RaceState::new(
                            self.shared.iter().map(|a| a.bytes.len()),
                            threads.div_ceil(32) as usize,
                        ));
                    }
                    let threads = self.start_block(kernel, params)?;
                    self.finish_or_park(threads, &mut grid)?;
                }
            }
        }
        while !grid.parked.is_empty() {
            if let Some(done) = grid.finished {
                return Err(self.grid_divergence(&grid.parked, done));
            }
            for p in std::mem::take(&mut grid.parked) {
                self.ctaid = p.ctaid;
                self.shared = p.shared;
                self.race = p.race;
                let mut threads = p.threads;
                self.release_barrier(&mut threads)?;
                if let Some(race) = self.race.as_mut() {
                    race.barrier();
                }
                self.finish_or_park(threads, &mut grid)?;
            }
        }
        Ok(grid.steps)
    }

    /// Runs the current block's threads until they return or park at the
    /// grid barrier, and files the block accordingly.
    fn finish_or_park(
        &mut self,
        mut threads: Vec<Thread>,
        grid: &mut GridState,
    ) -> Result<(), RunError> {
        match self.drive_block(&mut threads)? {
            BlockEnd::Done => {
                grid.steps += threads.iter().map(|t| t.steps).sum::<u64>();
                grid.finished.get_or_insert(self.ctaid);
            }
            BlockEnd::AtGridBarrier => grid.parked.push(Parked {
                ctaid: self.ctaid,
                shared: std::mem::take(&mut self.shared),
                race: self.race.take(),
                threads,
            }),
        }
        Ok(())
    }

    /// The fault of blocks waiting at the grid barrier that block `done`
    /// has returned without reaching: on a GPU they would wait forever.
    fn grid_divergence(&mut self, parked: &[Parked], done: [u32; 3]) -> RunError {
        let first = &parked[0];
        self.ctaid = first.ctaid;
        let waiting = &first.threads[0];
        let State::AtBarrier(func, inst) = waiting.state else {
            unreachable!("a parked block's threads wait at the grid barrier")
        };
        let blocks: u32 = self.config.grid.iter().product();
        let mut err = self.fault(
            waiting,
            raw(
                FaultKind::BarrierDivergence,
                format!(
                    "grid barrier divergence: {} of {blocks} blocks wait at a grid barrier that the others have returned without reaching",
                    parked.len()
                ),
                func,
                Some(inst),
            ),
        );
        if let RunError::Fault(f) = &mut err {
            let [x, y, z] = done;
            f.notes
                .push(format!("block ({x},{y},{z}), for one, returned"));
        }
        err
    }

    /// The threads of the current block, each at the kernel's entry.
    fn start_block(&mut self, kernel: FuncId, params: &[u64]) -> Result<Vec<Thread>, RunError> {
        let [nx, ny, nz] = self.config.block;
        let mut threads = Vec::new();
        for z in 0..nz {
            for y in 0..ny {
                for x in 0..nx {
                    let linear = x + nx * (y + ny * z);
                    let mut t = Thread {
                        tid: [x, y, z],
                        linear,
                        frames: Vec::new(),
                        local: Vec::new(),
                        local_bytes: 0,
                        steps: 0,
                        state: State::Running,
                    };
                    self.push_frame(&mut t, kernel, params, Vec::new())
                        .map_err(|r| self.fault(&t, r))?;
                    threads.push(t);
                }
            }
        }
        Ok(threads)
    }

    /// Runs the current block's threads until every one has returned or
    /// every one waits at the grid barrier.
    fn drive_block(&mut self, threads: &mut [Thread]) -> Result<BlockEnd, RunError> {
        loop {
            for t in threads.iter_mut().filter(|t| t.state == State::Running) {
                let stop = self.run_thread(t).map_err(|r| self.fault(t, r));
                t.state = match stop? {
                    Stop::Barrier(f, i) => State::AtBarrier(f, i),
                    Stop::Warp(f, i) => State::AtWarp(f, i),
                    Stop::Yield => State::Running,
                    Stop::Returned => State::Done,
                };
            }
            let done = threads.iter().filter(|t| t.state == State::Done).count();
            if done == threads.len() {
                return Ok(BlockEnd::Done);
            }
            // Warp collectives first: they release lanes that may then go
            // on to a block barrier.
            if self.resolve_warp_collectives(threads)? {
                continue;
            }
            // A thread that yielded at an mbarrier wait tries again.
            if threads.iter().any(|t| t.state == State::Running) {
                continue;
            }
            if done > 0 {
                return Err(self.block_divergence(threads, done));
            }
            // The grid barrier waits for the other blocks (a mix of it and
            // a block barrier is divergence, which `release_barrier` reports).
            if threads.iter().all(|t| self.at_grid_barrier(t)) {
                return Ok(BlockEnd::AtGridBarrier);
            }
            self.release_barrier(threads)?;
            if let Some(race) = self.race.as_mut() {
                race.barrier();
            }
        }
    }

    /// The fault of threads waiting at a barrier that `done` others of the
    /// block have returned without reaching.
    fn block_divergence(&self, threads: &[Thread], done: usize) -> RunError {
        let waiting = threads
            .iter()
            .find(|t| t.state != State::Done)
            .expect("not every thread is done");
        let returned = threads
            .iter()
            .find(|t| t.state == State::Done)
            .expect("some thread is done");
        let State::AtBarrier(func, inst) = waiting.state else {
            unreachable!("threads stop only at barriers or returns")
        };
        let mut err = self.fault(
            waiting,
            raw(
                FaultKind::BarrierDivergence,
                format!(
                    "barrier divergence: {} of {} threads of the block wait at a barrier that the other {done} have returned without reaching",
                    threads.len() - done,
                    threads.len()
                ),
                func,
                Some(inst),
            ),
        );
        if let RunError::Fault(f) = &mut err {
            let [x, y, z] = returned.tid;
            f.notes
                .push(format!("thread ({x},{y},{z}), for one, returned"));
        }
        err
    }

    /// Whether `t` waits at the grid barrier.
    fn at_grid_barrier(&self, t: &Thread) -> bool {
        match t.state {
            State::AtBarrier(f, inst) => {
                self.func(f).dfg.insts[inst].opcode() == Opcode::GridBarrier
            }
            _ => false,
        }
    }

    /// The function an indirect call through `addr` reaches: one whose
    /// address `func_addr` made, with the parameter and result types of the
    /// call's signature (else the call is the program's error, as calling
    /// through a wrong function type is undefined in C).
    fn indirect_callee(
        &self,
        addr: u64,
        sig: &midend::ir::CallSig,
        fid: FuncId,
        inst: Inst,
    ) -> Result<FuncId, Raw> {
        let fail = |kind, msg: String| raw(kind, msg, fid, Some(inst));
        if addr == 0 {
            return Err(fail(
                FaultKind::NullPointer,
                "call_indirect through a null function pointer".into(),
            ));
        }
        let Some(callee) = memory::function_of(addr)
            .map(FuncId::new)
            .filter(|&g| self.module.functions.is_valid(g))
        else {
            return Err(fail(
                FaultKind::WrongSpace,
                format!("call_indirect through {addr:#x}, which is no function's address"),
            ));
        };
        let g = &self.module.functions[callee];
        let params: Vec<_> = g.signature.params.iter().map(|p| p.ty).collect();
        if params != sig.params || g.signature.returns != sig.returns {
            return Err(fail(
                FaultKind::WrongSpace,
                format!(
                    "call_indirect of `{}` through a pointer of another function type",
                    g.name
                ),
            ));
        }
        Ok(callee)
    }

    /// Pushes a frame for `func` with its parameters bound to `args`.
    fn push_frame(
        &self,
        t: &mut Thread,
        func_id: FuncId,
        args: &[u64],
        ret_to: Vec<Value>,
    ) -> Result<(), Raw> {
        let caller = t.frames.last().map_or(func_id, |f| f.func);
        let Some(func) = self.module.functions.get(func_id) else {
            return Err(raw(
                FaultKind::Internal,
                format!("call of unknown {func_id}"),
                caller,
                None,
            ));
        };
        let Some(entry) = func.entry_block() else {
            return Err(raw(
                FaultKind::Internal,
                format!("`{}` has no body", func.name),
                caller,
                None,
            ));
        };
        if t.frames.len() >= self.config.max_call_depth {
            return Err(raw(
                FaultKind::CallDepth,
                format!(
                    "call depth limit of {} exceeded calling `{}` (unbounded recursion?)",
                    self.config.max_call_depth, func.name
                ),
                caller,
                None,
            ));
        }
        let mut values = vec![0u64; func.dfg.values.len()];
        for (&p, &a) in func.dfg.block_params(entry).iter().zip(args) {
            if let Some(slot) = values.get_mut(p.index()) {
                *slot = a;
            }
        }
        let slot_base = t.local.len();
        let local_bytes_base = t.local_bytes;
        for (ss, data) in func.stack_slots.iter() {
            t.local_bytes += u64::from(data.size);
            if t.local_bytes > MAX_LOCAL_BYTES || t.local.len() >= memory::MAX_ALLOCS {
                return Err(raw(
                    FaultKind::OutOfMemory,
                    format!(
                        "local memory exhausted: the thread needs more than {MAX_LOCAL_BYTES} bytes of stack"
                    ),
                    caller,
                    None,
                ));
            }
            t.local.push(Alloc::new(
                format!("{ss} of @{}", func.name),
                vec![0; data.size as usize],
            ));
        }
        // A device function's by-value aggregate parameter points to the
        // callee's own copy of the bytes (PTX's `.param` array), made here.
        if func.attrs.kind == midend::ir::FuncKind::Device {
            for ((abi, &p), &a) in func
                .signature
                .params
                .iter()
                .zip(func.dfg.block_params(entry))
                .zip(args)
            {
                let Some((size, _)) = abi.attrs.byval else {
                    continue;
                };
                let mut bytes = Vec::with_capacity(size as usize);
                for i in 0..u64::from(size) {
                    let b = self
                        .load(t, AddrSpace::Generic, a.wrapping_add(i), 1)
                        .map_err(|e| {
                            raw(
                                access_fault(&e),
                                format!("by-value argument of `{}`: {e}", func.name),
                                caller,
                                None,
                            )
                        })?;
                    bytes.push(b as u8);
                }
                t.local_bytes += u64::from(size);
                if t.local_bytes > MAX_LOCAL_BYTES || t.local.len() >= memory::MAX_ALLOCS {
                    return Err(raw(
                        FaultKind::OutOfMemory,
                        format!(
                            "local memory exhausted: the thread needs more than {MAX_LOCAL_BYTES} bytes of stack"
                        ),
                        caller,
                        None,
                    ));
                }
                t.local
                    .push(Alloc::new(format!("{p} of @{}", func.name), bytes));
                if let Some(slot) = values.get_mut(p.index()) {
                    *slot = memory::make_addr(AddrSpace::Local, t.local.len() - 1, 0);
                }
            }
        }
        t.frames.push(Frame {
            func: func_id,
            block: entry,
            pos: 0,
            values,
            slot_base,
            local_bytes_base,
            ret_to,
        });
        Ok(())
    }

    fn load(&self, t: &Thread, space: AddrSpace, addr: u64, len: u32) -> Result<u64, AccessError> {
        let d = memory::check_access(addr, len, space)?;
        let allocs: &[Alloc] = match d.space {
            AddrSpace::Global => &self.grid_mem.global,
            AddrSpace::Const => &self.grid_mem.constant,
            AddrSpace::Param => &self.grid_mem.param,
            AddrSpace::Shared => &self.shared,
            AddrSpace::Local => &t.local,
            _ => return Err(AccessError::Wild(addr)),
        };
        let (i, off) = memory::bounds(allocs, d, len)?;
        Ok(allocs[i].read(off, len as usize))
    }

    fn store(
        &mut self,
        t: &mut Thread,
        space: AddrSpace,
        addr: u64,
        len: u32,
        value: u64,
    ) -> Result<(), AccessError> {
        let d = memory::check_access(addr, len, space)?;
        let allocs: &mut Vec<Alloc> = match d.space {
            AddrSpace::Global => &mut self.grid_mem.global,
            AddrSpace::Shared => &mut self.shared,
            AddrSpace::Local => &mut t.local,
            AddrSpace::Const | AddrSpace::Param => {
                let allocs = if d.space == AddrSpace::Const {
                    &self.grid_mem.constant
                } else {
                    &self.grid_mem.param
                };
                let (i, _) = memory::bounds(allocs, d, len)?;
                return Err(AccessError::ReadOnly {
                    space: d.space,
                    name: allocs[i].name.clone(),
                });
            }
            _ => return Err(AccessError::Wild(addr)),
        };
        let (i, off) = memory::bounds(allocs, d, len)?;
        allocs[i].write(off, len as usize, value);
        Ok(())
    }

    fn special(&self, t: &Thread, reg: SpecialReg) -> u64 {
        let [bx, by, bz] = self.config.block;
        let [gx, gy, gz] = self.config.grid;
        let [cx, cy, cz] = self.ctaid;
        let [tx, ty, tz] = t.tid;
        u64::from(match reg {
            SpecialReg::TidX => tx,
            SpecialReg::TidY => ty,
            SpecialReg::TidZ => tz,
            SpecialReg::NtidX => bx,
            SpecialReg::NtidY => by,
            SpecialReg::NtidZ => bz,
            SpecialReg::CtaidX => cx,
            SpecialReg::CtaidY => cy,
            SpecialReg::CtaidZ => cz,
            SpecialReg::NctaidX => gx,
            SpecialReg::NctaidY => gy,
            SpecialReg::NctaidZ => gz,
            SpecialReg::LaneId => t.linear % 32,
            SpecialReg::WarpId => t.linear / 32,
            SpecialReg::LanemaskLt => (1u32 << (t.linear % 32)) - 1,
            // Clocks count the thread's executed instructions: deterministic,
            // and they only ever grow, which is all a kernel may rely on.
            SpecialReg::Clock => t.steps as u32,
            SpecialReg::Clock64 | SpecialReg::GlobalTimer => return t.steps,
            SpecialReg::DynamicSmemSize => self.config.dynamic_shared_bytes,
            // Not null in a cooperative launch; no memory is behind it.
            SpecialReg::GridWorkspace => {
                return if self.cooperative {
                    memory::GRID_WORKSPACE
                } else {
                    0
                }
            }
            // Read as a warp collective (see `collective.rs`); never here.
            SpecialReg::ActiveMask => 0,
            // Clusters tile the grid in the kernel's `__cluster_dims__`
            // (one block each without it).
            SpecialReg::ClusterCtaidX => cx % self.cluster[0],
            SpecialReg::ClusterCtaidY => cy % self.cluster[1],
            SpecialReg::ClusterCtaidZ => cz % self.cluster[2],
            SpecialReg::ClusterNctaidX => self.cluster[0],
            SpecialReg::ClusterNctaidY => self.cluster[1],
            SpecialReg::ClusterNctaidZ => self.cluster[2],
            SpecialReg::ClusteridX => cx / self.cluster[0],
            SpecialReg::ClusteridY => cy / self.cluster[1],
            SpecialReg::ClusteridZ => cz / self.cluster[2],
            SpecialReg::NclusteridX => gx.div_ceil(self.cluster[0]),
            SpecialReg::NclusteridY => gy.div_ceil(self.cluster[1]),
            SpecialReg::NclusteridZ => gz.div_ceil(self.cluster[2]),
            SpecialReg::ClusterCtarank => {
                let [kx, ky, _] = self.cluster;
                (cx % kx) + kx * ((cy % ky) + ky * (cz % self.cluster[2]))
            }
            SpecialReg::ClusterNctarank => self.cluster.iter().product(),
        })
    }

    /// Runs `t` until it reaches a barrier or its kernel returns.
    fn run_thread(&mut self, t: &mut Thread) -> Result<Stop, Raw> {
        loop {
            let Some(frame) = t.frames.last_mut() else {
                return Ok(Stop::Returned);
            };
            let fid = frame.func;
            let func = self.func(fid);
            let Some(&inst) = func.layout.block_insts(frame.block).get(frame.pos) else {
                return Err(raw(
                    FaultKind::Internal,
                    format!("fell off the end of {} (it has no terminator)", frame.block),
                    fid,
                    None,
                ));
            };
            frame.pos += 1;
            t.steps += 1;
            if t.steps > self.config.max_steps_per_thread {
                return Err(raw(
                    FaultKind::StepLimit,
                    format!(
                        "step limit of {} instructions exceeded (an infinite loop?)",
                        self.config.max_steps_per_thread
                    ),
                    fid,
                    Some(inst),
                ));
            }
            self.launch_steps += 1;
            if self.launch_steps > self.config.max_steps_per_launch {
                return Err(raw(
                    FaultKind::StepLimit,
                    format!(
                        "step limit of {} instructions for the whole launch exceeded (a grid too large to run?)",
                        self.config.max_steps_per_launch
                    ),
                    fid,
                    Some(inst),
                ));
            }
            if let Some(stop) = self.step(t, fid, func, inst)? {
                return Ok(stop);
            }
        }
    }

    /// Executes one instruction of the top frame.
    // Long: the dispatch table of the interpreter, one arm per instruction
    // format; each arm calls into `eval.rs` or a family's module.
    fn step(
        &mut self,
        t: &mut Thread,
        fid: FuncId,
        func: &'m Function,
        inst: Inst,
    ) -> Result<Option<Stop>, Raw> {
        let fail = |kind, msg: String| raw(kind, msg, fid, Some(inst));
        let frame = t.frames.last().expect("a running thread has a frame");
        let val = |v: Value| -> u64 {
            let v = match func.dfg.values.get(v).map(|d| d.def) {
                Some(ValueDef::Alias(_)) => func.dfg.resolve_aliases(v),
                _ => v,
            };
            frame.values.get(v.index()).copied().unwrap_or(0)
        };
        let ty = |v: Value| func.dfg.values.get(v).map_or(Type::I64, |d| d.ty);
        let data = &func.dfg.insts[inst];
        let result_ty = func
            .dfg
            .results
            .get(inst)
            .and_then(|r| r.first())
            .map_or(Type::I64, |&r| ty(r));
        let result: u64 = match data {
            InstData::Iconst { ty, imm } => (*imm as u64) & eval::mask(ty.bits()),
            InstData::Fconst { ty, value } => eval::const_float_bits(*value, *ty),
            InstData::Unary { opcode, arg } => {
                let a = val(*arg);
                if result_ty.is_float() && func.attrs.ftz {
                    ftz::float_unary(*opcode, result_ty, a)
                } else if result_ty.is_float() {
                    eval::float_unary(*opcode, result_ty, a)
                } else {
                    eval::int_unary(*opcode, result_ty.bits(), a)
                }
            }
            InstData::Binary { opcode, args } => {
                let (a, b) = (val(args[0]), val(args[1]));
                if *opcode == Opcode::PtrOffset {
                    let off = eval::sext(b, ty(args[1]).bits());
                    a.wrapping_add(off as u64)
                } else if result_ty.is_float() && func.attrs.ftz {
                    ftz::float_binary(*opcode, result_ty, a, b)
                } else if result_ty.is_float() {
                    eval::float_binary(*opcode, result_ty, a, b)
                } else {
                    eval::int_binary(*opcode, result_ty.bits(), a, b)
                }
            }
            InstData::Ternary { opcode, args } => {
                let (a, b, c) = (val(args[0]), val(args[1]), val(args[2]));
                if *opcode == Opcode::Select {
                    if a & 1 != 0 {
                        b
                    } else {
                        c
                    }
                } else if matches!(opcode, Opcode::Dp4aS | Opcode::Dp4aU) {
                    eval::dp4a(*opcode == Opcode::Dp4aS, a, b, c)
                } else if func.attrs.ftz {
                    ftz::ternary(*opcode, result_ty, a, b, c)
                } else {
                    eval::ternary(*opcode, result_ty, a, b, c)
                }
            }
            InstData::IntCompare { cond, args } => u64::from(eval::icmp(
                *cond,
                ty(args[0]).bits(),
                val(args[0]),
                val(args[1]),
            )),
            InstData::FloatCompare { cond, args } => {
                let compare = if func.attrs.ftz {
                    ftz::fcmp
                } else {
                    eval::fcmp
                };
                u64::from(compare(*cond, ty(args[0]), val(args[0]), val(args[1])))
            }
            InstData::Convert {
                opcode,
                ty: to,
                arg,
            } => {
                let convert = if func.attrs.ftz {
                    ftz::convert
                } else {
                    eval::convert
                };
                convert(*opcode, ty(*arg), *to, val(*arg))
            }
            // A cast never faults: passes move casts to where they run
            // speculatively (above the `__isShared` test that guards them),
            // as PTX's `cvta` allows. The address keeps the space it really
            // is in, so an access through a pointer cast to the wrong space
            // is the fault ("wrong space"), where the program reads it.
            InstData::AddrSpaceCast { arg, .. } => val(*arg),
            InstData::GlobalAddr { gv } => self.global_addrs.get(gv.index()).copied().unwrap_or(0),
            InstData::StackAddr { slot } => {
                memory::make_addr(AddrSpace::Local, frame.slot_base + slot.index(), 0)
            }
            InstData::Load { ty: lty, ptr, .. } => {
                let space = ty(*ptr).addr_space().unwrap_or(AddrSpace::Generic);
                let v = self
                    .load(t, space, val(*ptr), lty.bytes())
                    .map_err(|e| fail(access_fault(&e), format!("load.{lty}: {e}")))?;
                self.race_check(t, fid, inst, val(*ptr), lty.bytes(), false)?;
                v
            }
            InstData::Store { value, ptr, .. } => {
                let space = ty(*ptr).addr_space().unwrap_or(AddrSpace::Generic);
                let vty = ty(*value);
                let (v, p) = (val(*value), val(*ptr));
                self.store(t, space, p, vty.bytes(), v)
                    .map_err(|e| fail(access_fault(&e), format!("store.{vty}: {e}")))?;
                self.race_check(t, fid, inst, p, vty.bytes(), true)?;
                return Ok(None);
            }
            InstData::Call { func: callee, args } => {
                let argv: Vec<u64> = args.iter().map(|&a| val(a)).collect();
                let ret_to = func.dfg.inst_results(inst).to_vec();
                self.push_frame(t, *callee, &argv, ret_to)
                    .map_err(|mut r| {
                        r.inst = Some(inst);
                        r
                    })?;
                return Ok(None);
            }
            InstData::CallIndirect { sig, args } => {
                let callee = self.indirect_callee(val(args[0]), sig, fid, inst)?;
                let argv: Vec<u64> = args[1..].iter().map(|&a| val(a)).collect();
                let ret_to = func.dfg.inst_results(inst).to_vec();
                self.push_frame(t, callee, &argv, ret_to).map_err(|mut r| {
                    r.inst = Some(inst);
                    r
                })?;
                return Ok(None);
            }
            InstData::FuncAddr { func: f } => memory::function_addr(f.index()),
            InstData::SpecialReg {
                reg: SpecialReg::ActiveMask,
            }
            | InstData::Shuffle { .. }
            | InstData::Vote { .. }
            | InstData::Redux { .. }
            | InstData::Match { .. }
            | InstData::Effect {
                opcode: Opcode::WarpSync,
                ..
            } => return Ok(Some(Stop::Warp(fid, inst))),
            InstData::BarrierRed { .. } => return Ok(Some(Stop::Barrier(fid, inst))),
            InstData::SpecialReg { reg } => self.special(t, *reg),
            // PTX text has no meaning here; the emulator runs the PTX.
            InstData::InlineAsm { asm, .. } => {
                let line = asm.template.lines().next().unwrap_or("").trim();
                let msg = format!(
                    "inline PTX `{line}` cannot run in the IR interpreter; \
                     inline PTX runs on the emulator: --engine emu"
                );
                return Err(fail(FaultKind::Unsupported, msg));
            }
            InstData::Nullary { opcode } => {
                if matches!(opcode, Opcode::Barrier | Opcode::GridBarrier) {
                    return Ok(Some(Stop::Barrier(fid, inst)));
                }
                return Err(fail(FaultKind::Trap, "trap: the kernel aborted".into()));
            }
            // Threads run one at a time, so every atomic is atomic; fences
            // and sleeps have nothing to order or wait for.
            InstData::Fence { .. } | InstData::Effect { .. } => return Ok(None),
            InstData::AtomicRmw { op, args, .. } => {
                let space = ty(args[0]).addr_space().unwrap_or(AddrSpace::Generic);
                let vty = ty(args[1]);
                let (p, v) = (val(args[0]), val(args[1]));
                let old = self
                    .load(t, space, p, vty.bytes())
                    .map_err(|e| fail(access_fault(&e), format!("atomic_rmw {op}: {e}")))?;
                let new = eval::atomic(*op, vty, old, v);
                self.store(t, space, p, vty.bytes(), new)
                    .map_err(|e| fail(access_fault(&e), format!("atomic_rmw {op}: {e}")))?;
                old
            }
            InstData::AtomicCas { args, .. } => {
                let space = ty(args[0]).addr_space().unwrap_or(AddrSpace::Generic);
                let vty = ty(args[1]);
                let (p, expected, new) = (val(args[0]), val(args[1]), val(args[2]));
                let old = self
                    .load(t, space, p, vty.bytes())
                    .map_err(|e| fail(access_fault(&e), format!("atomic_cas: {e}")))?;
                if old == expected {
                    self.store(t, space, p, vty.bytes(), new)
                        .map_err(|e| fail(access_fault(&e), format!("atomic_cas: {e}")))?;
                }
                old
            }
            InstData::AtomicVec { op, args, .. } => {
                let space = ty(args[0]).addr_space().unwrap_or(AddrSpace::Generic);
                let p = val(args[0]);
                let elems: Vec<(u64, Type)> = args[1..].iter().map(|&a| (val(a), ty(a))).collect();
                let width: u32 = elems.iter().map(|&(_, et)| et.bytes()).sum();
                // PTX's vector atomics on `f32` reach global memory only (a
                // generic address must land there); a packed pair of 16-bit
                // floats is one atomic of its word, in any atomic space.
                // Both are aligned to the whole vector.
                let global_only = func.dfg.is_global_only_atomic(inst);
                if let Some(d) = memory::decode(p).filter(|_| p != 0 && global_only) {
                    if d.space != AddrSpace::Global {
                        let msg = format!(
                            "atomic_vec {op}: vector atomics need global memory, but the address points to {} memory",
                            d.space
                        );
                        return Err(fail(FaultKind::WrongSpace, msg));
                    }
                }
                if p != 0 && !p.is_multiple_of(u64::from(width)) {
                    let msg = format!(
                        "atomic_vec {op}: address {p:#x} is not aligned to the {width}-byte vector"
                    );
                    return Err(fail(FaultKind::Misaligned, msg));
                }
                let mut olds = Vec::with_capacity(elems.len());
                let mut at = p;
                for (v, et) in elems {
                    let n = et.bytes();
                    let old = self
                        .load(t, space, at, n)
                        .map_err(|e| fail(access_fault(&e), format!("atomic_vec {op}: {e}")))?;
                    let new = eval::atomic(*op, et, old, v);
                    self.store(t, space, at, n, new)
                        .map_err(|e| fail(access_fault(&e), format!("atomic_vec {op}: {e}")))?;
                    olds.push(old);
                    at = at.wrapping_add(u64::from(n));
                }
                self.set_results(t, func, inst, &olds);
                return Ok(None);
            }
            InstData::Accel { op, args } => return self.accel(t, fid, func, inst, *op, args),
            InstData::IsSpace { space, arg } => {
                let a = val(*arg);
                let actual = memory::decode(a).map(|d| d.space);
                u64::from(a != 0 && actual.is_some_and(|s| memory::space_matches(*space, s)))
            }
            InstData::Jump { dest } => {
                let argv: Vec<u64> = dest.args.iter().map(|&a| val(a)).collect();
                self.enter(t, func, dest.block, &argv);
                return Ok(None);
            }
            InstData::Brif {
                cond,
                then_dest,
                else_dest,
            } => {
                let dest = if val(*cond) & 1 != 0 {
                    then_dest
                } else {
                    else_dest
                };
                let argv: Vec<u64> = dest.args.iter().map(|&a| val(a)).collect();
                self.enter(t, func, dest.block, &argv);
                return Ok(None);
            }
            InstData::Return { args } => {
                let argv: Vec<u64> = args.iter().map(|&a| val(a)).collect();
                let done = t.frames.pop().expect("a running thread has a frame");
                t.local.truncate(done.slot_base);
                t.local_bytes = done.local_bytes_base;
                let Some(caller) = t.frames.last_mut() else {
                    return Ok(Some(Stop::Returned));
                };
                for (&r, &a) in done.ret_to.iter().zip(&argv) {
                    if let Some(slot) = caller.values.get_mut(r.index()) {
                        *slot = a;
                    }
                }
                return Ok(None);
            }
        };
        let frame = t.frames.last_mut().expect("a running thread has a frame");
        if let Some(&r) = func.dfg.inst_results(inst).first() {
            if let Some(slot) = frame.values.get_mut(r.index()) {
                *slot = result;
            }
        }
        Ok(None)
    }

    /// Moves the top frame to `block`, assigning its parameters all at once
    /// (the arguments were read before any parameter changes).
    fn enter(&self, t: &mut Thread, func: &Function, block: Block, args: &[u64]) {
        let frame = t.frames.last_mut().expect("a running thread has a frame");
        for (&p, &a) in func.dfg.block_params(block).iter().zip(args) {
            if let Some(slot) = frame.values.get_mut(p.index()) {
                *slot = a;
            }
        }
        frame.block = block;
        frame.pos = 0;
    }
}
