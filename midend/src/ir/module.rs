//! A module: the functions and variables of one translation unit.

use super::entities::{FuncId, GlobalVar};
use super::function::{Function, Linkage};
use super::types::AddrSpace;
use super::InstData;
use cranelift_entity::PrimaryMap;

/// A module-scope variable.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct GlobalVarData {
    pub name: String,
    /// Where it lives: shared, const, global (`__device__`), ...
    pub space: AddrSpace,
    /// Size in bytes; 0 for dynamic shared memory (`extern __shared__ T buf[]`).
    pub size: u32,
    pub align: u32,
    /// Initial bytes (little-endian), for `__constant__`/`__device__` initializers.
    pub init: Option<Vec<u8>>,
    /// The addresses in `init` (`__device__ float *p = buf;`), in offset
    /// order; the bytes under each are zero.
    pub relocs: Vec<Reloc>,
    pub linkage: Linkage,
    /// `extern __shared__ T buf[]`: sized at launch time.
    pub dynamic: bool,
    /// `__managed__`: global memory the host reaches too (unified memory);
    /// PTX marks it `.attribute(.managed)` so the driver allocates it so.
    pub managed: bool,
}

/// An address in a module variable's initial bytes: the 8 bytes at
/// `offset` hold where `target` is, plus `addend` bytes. Only the loader
/// knows that address, so it is written when the module is loaded (PTX:
/// `generic(buf)+32`, or a function's name).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Reloc {
    pub offset: u32,
    pub target: RelocTarget,
    pub addend: i64,
}

/// What a [`Reloc`] holds the address of.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum RelocTarget {
    /// A module variable's generic address.
    Global(GlobalVar),
    /// A function's address, as `func_addr` makes it (what an indirect
    /// call takes); the addend is 0.
    Func(FuncId),
}

/// The unit the compiler works on: all functions and variables of one source file.
#[derive(Clone, PartialEq, Debug, Default)]
pub struct Module {
    pub functions: PrimaryMap<FuncId, Function>,
    pub globals: PrimaryMap<GlobalVar, GlobalVarData>,
}

impl Module {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn push_function(&mut self, f: Function) -> FuncId {
        self.functions.push(f)
    }

    pub fn push_global(&mut self, g: GlobalVarData) -> GlobalVar {
        self.globals.push(g)
    }

    /// Looks a function up by name.
    pub fn function_by_name(&self, name: &str) -> Option<FuncId> {
        self.functions
            .iter()
            .find(|(_, f)| f.name == name)
            .map(|(id, _)| id)
    }

    /// Whether `kernel` can reach a `grid_barrier`: in its body or in a
    /// function it calls or takes the address of (an indirect call may
    /// reach any of those). Such a kernel needs a cooperative launch.
    pub fn reaches_grid_barrier(&self, kernel: FuncId) -> bool {
        let mut seen = vec![kernel];
        let mut work = vec![kernel];
        while let Some(id) = work.pop() {
            for data in self.functions[id].dfg.insts.values() {
                if data.opcode() == super::Opcode::GridBarrier {
                    return true;
                }
                if let Some(callee) = data.referenced_function() {
                    if !seen.contains(&callee) {
                        seen.push(callee);
                        work.push(callee);
                    }
                }
            }
        }
        false
    }

    /// Looks a variable up by name.
    pub fn global_by_name(&self, name: &str) -> Option<GlobalVar> {
        self.globals
            .iter()
            .find(|(_, g)| g.name == name)
            .map(|(id, _)| id)
    }

    /// The functions whose address some `func_addr` takes, or a module
    /// variable's initializer holds: an indirect call may reach them from
    /// anywhere, so their callers are unknown (like an external
    /// function's) and they must keep a body.
    pub fn address_taken(&self) -> cranelift_entity::SecondaryMap<FuncId, bool> {
        let mut taken = cranelift_entity::SecondaryMap::new();
        for f in self.functions.values() {
            for (_, inst) in f.layout.insts() {
                if let InstData::FuncAddr { func } = f.dfg.insts[inst] {
                    taken[func] = true;
                }
            }
        }
        for r in self.globals.values().flat_map(|g| &g.relocs) {
            if let RelocTarget::Func(func) = r.target {
                taken[func] = true;
            }
        }
        taken
    }

    /// Whether some initializer puts into memory of space `holder` the
    /// address of a variable that is not in global memory (`__device__
    /// const float *p = some_constant_array;`): the memory-space
    /// inference may then not assume pointers loaded from there are global.
    pub fn initializers_hold_non_global(&self, holder: AddrSpace) -> bool {
        self.globals
            .values()
            .filter(|g| g.space == holder)
            .flat_map(|g| &g.relocs)
            .any(|r| match r.target {
                RelocTarget::Global(t) => self.globals[t].space != AddrSpace::Global,
                RelocTarget::Func(_) => false,
            })
    }
}
