//! backend-nvptx: the kernelc backend, from the midend IR to PTX text.
//!
//! The pipeline has three stages, each in its own module:
//!
//! 1. [`isel`] selects PTX machine instructions ([`minst::MInst`]) for each
//!    IR function, with one virtual register per IR value, and lowers block
//!    arguments to copies on the edges ([`copies`]).
//!    With `--regalloc=regalloc2`, [`regalloc`] then compacts the `.b32`,
//!    `.b64` and `.pred` registers with the regalloc2 crate.
//! 2. [`target`] decides the `.version` from the target and the features used.
//! 3. [`emit`] prints the module.
//!
//! Not selected yet (each is a [`BackendError`] naming the opcode and type):
//! bf16 arithmetic and comparisons (only conversions, loads, stores and
//! selects), f16 division and square root, `i1` arithmetic other than
//! and/or/xor/not/eq/ne, memory and casts through `ptr<tmem>` and
//! `ptr<shared::cluster>`, generic→param casts, by-value aggregate and
//! `__grid_constant__` parameters, and more than one return value.
//!
//! Architecture invariants of this crate:
//! - It accepts only IR the midend verifier accepts (the driver verifies
//!   before calling it). Anything it cannot select is still reported as a
//!   [`BackendError`] naming the function, instruction and type: the backend
//!   never panics on its input.
//! - It knows nothing of the C source: only IR goes in (and, for
//!   `-lineinfo`, where the lines of each file start: [`lineinfo`]).
//! - It does no I/O: it returns the PTX as a string.

pub mod cfg;
pub mod copies;
pub mod emit;
pub mod ftz;
pub mod isel;
pub mod lineinfo;
pub mod mfunc;
pub mod minst;
pub mod mir;
pub mod obj;
pub mod operands;
pub mod regalloc;
pub mod target;

use core::fmt;
use cranelift_entity::SecondaryMap;
use midend::ir::{FuncId, GlobalVar, InstData, Linkage, Module, RelocTarget};
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::BTreeSet;
use stdx::codes::Code;

pub use target::{Features, PtxVersion, Target, TripleError, UnknownTarget};

/// How registers are assigned (`--regalloc`).
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub enum RegallocMode {
    /// One virtual register per value; ptxas allocates (nvcc's way).
    #[default]
    Virtual,
    /// Compact `.b32`/`.b64`/`.pred` registers with regalloc2 ([`regalloc`]).
    Regalloc2,
}

impl fmt::Display for RegallocMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            RegallocMode::Virtual => "virtual",
            RegallocMode::Regalloc2 => "regalloc2",
        })
    }
}

/// What to compile for.
#[derive(Clone, Debug)]
pub struct Options {
    pub target: Target,
    /// Overrides the `.version` the backend would pick (`--ptx-version 8.0`).
    /// It may not be older than what the target and the used features need.
    pub ptx_version: Option<(u32, u32)>,
    pub regalloc: RegallocMode,
    /// Who made the file, for the first comment line (`kernelc 0.1.0
    /// (-arch=sm_90 -O3 ...)`). The driver knows the version and the
    /// options; the backend only prints it. `None` prints `kernelc`.
    pub producer: Option<String>,
    /// How many threads select the functions (`0`: as many as the work is
    /// worth; see `stdx::parallel`). The output is the same for every count.
    pub threads: usize,
    /// Whether ptxas may fuse a float multiply and add into an `fma`
    /// (`--fmad=true`, nvcc's default). ptxas contracts `mul`/`add`/`sub`
    /// written without a rounding modifier; under `--fmad=false` every one
    /// is written `.rn`, as nvcc does, so that the GPU computes the bits
    /// the IR says.
    pub contract: bool,
    /// `-lineinfo`: the files and lines of the source, from which each
    /// instruction gets a `.loc` and the module its `.file` lines
    /// ([`lineinfo`]). `None` prints neither.
    pub line_info: Option<lineinfo::SourceLines>,
}

impl Options {
    pub fn new(target: Target) -> Options {
        Options {
            target,
            ptx_version: None,
            regalloc: RegallocMode::Virtual,
            producer: None,
            threads: 0,
            contract: true,
            line_info: None,
        }
    }
}

/// Why the backend could not compile a module.
#[derive(Clone, Debug)]
pub struct BackendError {
    /// The function being compiled, if the error belongs to one.
    pub function: Option<String>,
    pub kind: BackendErrorKind,
}

/// What went wrong, with the facts in fields; `Display` is the message.
#[derive(Clone, Debug)]
pub enum BackendErrorKind {
    /// Instruction selection failed: an instruction the target lacks (the
    /// user's error, located at the instruction's source), a form not
    /// selected yet, or malformed IR.
    Isel(isel::IselError),
    /// Register allocation failed (a compiler bug).
    Regalloc(regalloc::RegallocError),
    /// The machine code branches to a label it does not have (a compiler
    /// bug, found when `--emit mir` cuts it into blocks).
    Cfg(cfg::UnknownLabel),
    /// A module variable PTX cannot declare.
    Global(emit::GlobalError),
    /// A function or variable name PTX cannot spell.
    Name(String),
    /// `--ptx-version` asked for a `.version` older than the one the target
    /// and the features used need.
    PtxVersion {
        asked: PtxVersion,
        target: Target,
        needed: PtxVersion,
    },
}

impl BackendError {
    /// The error of the module as a whole, in no function.
    fn module(kind: BackendErrorKind) -> BackendError {
        BackendError {
            function: None,
            kind,
        }
    }

    /// The source span of the instruction the error is at, when it has
    /// one, so the driver can point at the user's code.
    pub fn span(&self) -> Option<midend::ir::SourceSpan> {
        match &self.kind {
            BackendErrorKind::Isel(e) => e.span,
            _ => None,
        }
    }

    /// The stable code of the error (`kernelc --explain`), its kind's.
    pub fn code(&self) -> Code {
        self.kind.code()
    }
}

impl BackendErrorKind {
    /// The stable code of this kind of error: instruction selection's by
    /// its reason ([`isel::IselErrorKind::code`]); the others are compiler
    /// bugs or module-wide limits, at no instruction of the user's, with
    /// the catch-all code. Every kind names its code here, so a new kind
    /// must choose one.
    pub fn code(&self) -> Code {
        match self {
            BackendErrorKind::Isel(e) => e.kind.code(),
            BackendErrorKind::Regalloc(_)
            | BackendErrorKind::Cfg(_)
            | BackendErrorKind::Global(_)
            | BackendErrorKind::Name(_)
            | BackendErrorKind::PtxVersion { .. } => Code::E0099,
        }
    }
}

impl fmt::Display for BackendError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(name) = &self.function {
            write!(f, "in function `{name}`: ")?;
        }
        write!(f, "{}", self.kind)
    }
}

impl fmt::Display for BackendErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BackendErrorKind::Isel(e) => e.fmt(f),
            BackendErrorKind::Regalloc(e) => e.fmt(f),
            BackendErrorKind::Cfg(e) => e.fmt(f),
            BackendErrorKind::Global(e) => e.fmt(f),
            BackendErrorKind::Name(name) => write!(
                f,
                "`{name}` is not a valid PTX name (use letters, digits, `_` and `$`, not starting with a digit)"
            ),
            BackendErrorKind::PtxVersion {
                asked,
                target,
                needed,
            } => write!(
                f,
                "PTX .version {}.{} is too old: {target} with the features used needs {}.{}",
                asked.0, asked.1, needed.0, needed.1
            ),
        }
    }
}

impl std::error::Error for BackendError {}

/// A module after selection (and allocation), ready to print.
pub struct Selected {
    /// Device functions first, then kernels.
    pub functions: Vec<mfunc::MFunction>,
    /// Positions in `functions` that need a forward declaration.
    pub declare: BTreeSet<usize>,
    /// Positions in `functions` of those a module variable's initializer
    /// holds the address of: declared before the variables.
    pub declare_first: BTreeSet<usize>,
    pub version: PtxVersion,
}

/// Compiles a whole module to PTX text.
///
/// Device functions are printed before kernels, each in module order, so a
/// kernel always sees the definitions of what it calls; a device function
/// that calls one printed later gets a forward declaration at the top.
pub fn compile_module(module: &Module, opts: &Options) -> Result<String, BackendError> {
    let sel = select_module(module, opts)?;
    let mut out = String::new();
    emit::write_header(&mut out, opts.producer.as_deref(), sel.version, opts.target);
    let globals = printed_globals(module);
    if !globals.is_empty() {
        out.push('\n');
    }
    // A function a variable's initializer holds is declared before the
    // variables: ptxas wants every name declared before an initializer
    // uses it.
    for &p in &sel.declare_first {
        emit::write_declaration(&mut out, &sel.functions[p]);
    }
    for g in globals {
        emit::write_global(&mut out, g, module)
            .map_err(|e| BackendError::module(BackendErrorKind::Global(e)))?;
    }
    let runtime = runtime_calls(module);
    let declare: Vec<usize> = sel
        .declare
        .difference(&sel.declare_first)
        .copied()
        .collect();
    if !declare.is_empty() || !runtime.is_empty() {
        out.push('\n');
    }
    for op in runtime {
        emit::write_extern_declaration(&mut out, op);
    }
    for p in declare {
        emit::write_declaration(&mut out, &sel.functions[p]);
    }
    let mut locs = opts.line_info.as_ref().map(lineinfo::LocWriter::new);
    for mf in &sel.functions {
        out.push('\n');
        emit::write_function(&mut out, mf, locs.as_mut());
    }
    if let Some(locs) = &locs {
        locs.write_files(&mut out);
    }
    Ok(out)
}

/// The module variables that are printed: all of the program's, and
/// those kernelc itself made (its math tables, the tables of its headers:
/// internal, named `__kernelc_...`) only when a printed function uses
/// them, so that a header or a function nothing calls leaves none behind,
/// as with nvcc.
fn printed_globals(module: &Module) -> Vec<&midend::ir::GlobalVarData> {
    let live = live_functions(module);
    let mut used = FxHashSet::default();
    for (id, func) in module.functions.iter() {
        if !live[id] {
            continue;
        }
        for (_, inst) in func.layout.insts() {
            if let InstData::GlobalAddr { gv } = &func.dfg.insts[inst] {
                used.insert(*gv);
            }
        }
    }
    let printed: Vec<GlobalVar> = module
        .globals
        .iter()
        .filter(|(gv, g)| {
            let kernelcs = g.linkage == Linkage::Internal && g.name.starts_with("__kernelc_");
            !kernelcs || used.contains(gv)
        })
        .map(|(gv, _)| gv)
        .collect();
    targets_first(module, printed)
        .into_iter()
        .map(|gv| &module.globals[gv])
        .collect()
}

/// `printed` in module order, except that a variable whose initializer
/// holds another's address comes after it (ptxas reads an initializer
/// only after the names it uses; lowering appends string literals after
/// the program's variables).
fn targets_first(module: &Module, printed: Vec<GlobalVar>) -> Vec<GlobalVar> {
    fn visit(
        module: &Module,
        gv: GlobalVar,
        done: &mut FxHashSet<GlobalVar>,
        out: &mut Vec<GlobalVar>,
    ) {
        if !done.insert(gv) {
            return;
        }
        // A chain of variables (a linked list's nodes) may be long.
        stdx::stack::with_stack(|| {
            for r in &module.globals[gv].relocs {
                if let RelocTarget::Global(t) = r.target {
                    visit(module, t, done, out);
                }
            }
        });
        out.push(gv);
    }
    let mut done = FxHashSet::default();
    let mut out = Vec::with_capacity(printed.len());
    for gv in printed {
        visit(module, gv, &mut done, &mut out);
    }
    out
}

/// The runtime functions (`vprintf`, `__assertfail`) the module calls, in
/// the order of [`isel::runtime::RUNTIME_FUNCTIONS`]; each needs an
/// `.extern` declaration.
fn runtime_calls(module: &Module) -> Vec<midend::ir::AccelOp> {
    let mut used: Vec<midend::ir::AccelOp> = Vec::new();
    for (_, func) in module.functions.iter() {
        for (_, inst) in func.layout.insts() {
            if let InstData::Accel { op, .. } = &func.dfg.insts[inst] {
                if isel::runtime::runtime_function(*op).is_some() && !used.contains(op) {
                    used.push(*op);
                }
            }
        }
    }
    isel::runtime::RUNTIME_FUNCTIONS
        .iter()
        .map(|(op, ..)| *op)
        .filter(|op| used.contains(op))
        .collect()
}

/// The machine IR just before printing (`--emit mir`): per function, its
/// blocks with their edges and the machine instructions, after register
/// allocation when one was asked for.
pub fn compile_module_mir(module: &Module, opts: &Options) -> Result<String, BackendError> {
    let sel = select_module(module, opts)?;
    let mut out = format!(
        "; machine IR, {} (.version {}.{}), --regalloc={}\n",
        opts.target, sel.version.0, sel.version.1, opts.regalloc
    );
    for mf in &sel.functions {
        out.push('\n');
        mir::write_function(&mut out, mf).map_err(|e| BackendError {
            function: Some(mf.name.clone()),
            kind: BackendErrorKind::Cfg(e),
        })?;
    }
    Ok(out)
}

/// Selects every function, allocates registers if asked, and decides the
/// `.version`: everything before printing.
/// Whether `name` can be a PTX identifier: a letter, `_` or `$`, then
/// letters, digits, `_` and `$`. IR names are free-form text; PTX's are not.
fn is_ptx_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}

/// Every function and variable name must be spellable in PTX.
fn check_names(module: &Module) -> Result<(), BackendError> {
    let names = module
        .functions
        .values()
        .map(|f| f.name.as_str())
        .chain(module.globals.values().map(|g| g.name.as_str()));
    for name in names {
        if !is_ptx_identifier(name) {
            return Err(BackendError::module(BackendErrorKind::Name(
                name.to_string(),
            )));
        }
    }
    Ok(())
}

/// The functions that are printed: every external or weak one (the
/// kernels, and the device functions other modules may call), and the
/// internal ones
/// they call, directly or not. An internal function nothing printed calls
/// is left out, as nvcc leaves out an unused device function when it
/// compiles the whole program (no `-rdc`).
fn live_functions(module: &Module) -> SecondaryMap<FuncId, bool> {
    let mut live = SecondaryMap::new();
    let mut work: Vec<FuncId> = module
        .functions
        .iter()
        .filter(|(_, f)| f.attrs.linkage != Linkage::Internal || f.is_kernel())
        .map(|(id, _)| id)
        .collect();
    // So is a function whose address a module variable holds.
    for r in module.globals.values().flat_map(|g| &g.relocs) {
        if let RelocTarget::Func(f) = r.target {
            work.push(f);
        }
    }
    while let Some(id) = work.pop() {
        if std::mem::replace(&mut live[id], true) {
            continue;
        }
        let func = &module.functions[id];
        // A function whose address is taken is live: an indirect call may
        // reach it.
        for (_, inst) in func.layout.insts() {
            if let Some(callee) = func.dfg.insts[inst].referenced_function() {
                if !live[callee] {
                    work.push(callee);
                }
            }
        }
    }
    live
}

pub fn select_module(module: &Module, opts: &Options) -> Result<Selected, BackendError> {
    check_names(module)?;
    let live = live_functions(module);
    // Printing order: device functions, then kernels.
    let mut order: Vec<FuncId> = module
        .functions
        .iter()
        .filter(|(id, f)| !f.is_kernel() && live[*id])
        .map(|(id, _)| id)
        .collect();
    order.extend(
        module
            .functions
            .iter()
            .filter(|(_, f)| f.is_kernel())
            .map(|(id, _)| id),
    );
    let position: FxHashMap<FuncId, usize> =
        order.iter().enumerate().map(|(i, &id)| (id, i)).collect();

    // Each function is selected (and allocated) on its own: the module is
    // only read. The results come back in printing order.
    let jobs: Vec<(usize, FuncId)> = order.iter().copied().enumerate().collect();
    // Selection costs about what four passes do.
    let outcomes = stdx::parallel::map_in_order(
        jobs,
        opts.threads,
        |&(_, id)| 4 * module.functions[id].dfg.insts.len(),
        |(index, id)| select_one(module, id, index, opts),
    );
    let mut selected = Vec::new();
    let mut features = Features::default();
    for outcome in outcomes {
        let mf = outcome?;
        features.extend(&mf.features);
        selected.push(mf);
    }

    // Callees printed at or after their first caller (or the first
    // function that takes their address) need a declaration.
    let mut declare = BTreeSet::new();
    for (index, &id) in order.iter().enumerate() {
        let func = &module.functions[id];
        for (_, inst) in func.layout.insts() {
            if let Some(callee) = func.dfg.insts[inst].referenced_function() {
                match position.get(&callee) {
                    Some(&p) if p > index => {
                        declare.insert(p);
                    }
                    _ => {}
                }
            }
        }
    }

    let needed = opts.target.ptx_version(&features);
    let version = match opts.ptx_version {
        Some(asked) if asked < needed => {
            return Err(BackendError::module(BackendErrorKind::PtxVersion {
                asked,
                target: opts.target,
                needed,
            }))
        }
        Some(v) => v,
        None => needed,
    };

    let declare_first = module
        .globals
        .values()
        .flat_map(|g| &g.relocs)
        .filter_map(|r| match r.target {
            RelocTarget::Func(f) => position.get(&f).copied(),
            RelocTarget::Global(_) => None,
        })
        .collect();
    Ok(Selected {
        functions: selected,
        declare,
        declare_first,
        version,
    })
}

/// Instruction selection, register allocation (when asked) and the `.ftz`
/// forms for one function, printed `index`-th.
fn select_one(
    module: &Module,
    id: FuncId,
    index: usize,
    opts: &Options,
) -> Result<mfunc::MFunction, BackendError> {
    let func = &module.functions[id];
    let fail = |kind| BackendError {
        function: Some(func.name.clone()),
        kind,
    };
    let locations = opts.line_info.is_some();
    let mut mf = isel::select_function(module, func, index, opts.target, opts.contract, locations)
        .map_err(|e| fail(BackendErrorKind::Isel(e)))?;
    if opts.regalloc == RegallocMode::Regalloc2 {
        // Debug builds (every test) also run regalloc2's checker, which
        // proves the allocation against the view symbolically.
        regalloc::allocate(&mut mf, cfg!(debug_assertions))
            .map_err(|e| fail(BackendErrorKind::Regalloc(e)))?;
    }
    if func.attrs.ftz {
        ftz::use_ftz_forms(&mut mf);
    }
    Ok(mf)
}
