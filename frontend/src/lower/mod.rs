//! Lowering: the typed program to the midend IR.
//!
//! A plain recursive walk. Each C local (and parameter) becomes an SSA
//! [`Variable`]; the SSA builder turns assignments and reads into values and
//! block parameters, so this module never thinks about phis. Control flow
//! (`if`, loops, `&&`, `||`, `?:`) becomes blocks and branches.
//!
//! Address spaces: a kernel's pointer parameters point into global memory
//! (that is all the host can pass), so they are lowered as `ptr<global>`
//! when the body never assigns to them. Every other pointer is generic; where
//! a global pointer flows into a generic place an `addrspacecast` is made.
//! Proving more is the memory-space passes' job. Addresses the frontend forms
//! itself keep their space: `&x` of a local in memory is the `ptr<local>` of
//! its stack slot, a `__shared__` array decays to a `ptr<shared>`, and so on;
//! `coerce` casts them to generic where they meet a C pointer variable,
//! parameter or return value.
//!
//! Locals in memory (arrays, and scalars whose address is taken, as sema
//! marks them) get one stack slot each; every other local stays an SSA
//! variable. Module variables become IR globals, in `Program::globals` order.

mod aggregate;
mod asm;
mod device_fns;
mod expr;
mod half;
mod intrinsic;
mod math;
mod math_bessel;
mod math_bessel_consts;
mod math_erf;
mod math_erf_f64;
mod math_f32;
mod math_f64;
mod math_f64_consts;
mod math_f64_ext;
mod math_gamma;
mod math_norm;
mod math_sin_f32;
mod memcpy;
mod runtime;
mod simd_video;
mod stmt;
mod tensor;
mod texture;
mod wgmma_tcgen05;

use crate::codes::Code;
use crate::diag::{Diagnostic, Span};
use crate::typed::{self, LocalId, MemSpace, Place};
use crate::types::{CType, HalfFormat};
use midend::builder::InstBuilder;
use midend::ir::{
    AbiParam, AddrSpace, Block, FuncAttrs, FuncId, FuncKind, Function, GlobalVar, GlobalVarData,
    Linkage, MemFlags, Module, ParamAttrs, Reloc, RelocTarget, Signature, SourceSpan, StackSlot,
    StackSlotData, Type, Value,
};
use midend::ssa::{FunctionBuilder, Variable};

/// Lowers a checked program to an IR module: one IR function per definition,
/// in the same order, so `typed::FuncId(n)` is IR `FuncId` n.
pub fn lower(program: &typed::Program) -> Result<Module, Vec<Diagnostic>> {
    let mut module = Module::new();
    let mut globals = Vec::new();
    for g in &program.globals {
        let size = if g.dynamic {
            0
        } else {
            u32::try_from(g.ty.size().unwrap_or(0)).unwrap_or(u32::MAX)
        };
        let linkage = linkage(false, g.is_static, g.is_inline, program.relocatable);
        globals.push(module.push_global(GlobalVarData {
            name: g.name.clone(),
            space: space_of(g.space),
            size,
            align: g.ty.align().max(g.align) as u32,
            init: g.init.clone(),
            relocs: Vec::new(),
            linkage,
            dynamic: g.dynamic,
            managed: g.managed,
        }));
    }
    // Declare every function first, so calls can find their callee's signature.
    for f in &program.functions {
        let sig = signature_of(f);
        let kind = if f.is_kernel {
            FuncKind::Kernel
        } else {
            FuncKind::Device
        };
        let linkage = linkage(f.is_kernel, f.is_static, f.is_inline, program.relocatable);
        let mut attrs = FuncAttrs::new(kind, linkage);
        attrs.noinline = f.noinline;
        attrs.forceinline = f.forceinline;
        attrs.launch_bounds = f.launch_bounds;
        attrs.cluster_dims = f.cluster_dims;
        attrs.ftz = program.ftz;
        module.push_function(Function::new(f.link_name.clone(), sig, attrs));
    }
    let signatures: Vec<Signature> = module
        .functions
        .values()
        .map(|f| f.signature.clone())
        .collect();
    let mut diags = Vec::new();
    let mut helpers = math_f64::MathHelpers::new(program.functions.len(), globals.len());
    for (g, &gv) in program.globals.iter().zip(&globals) {
        module.globals[gv].relocs = relocs(&g.addrs, &globals, &mut helpers);
    }
    for (i, f) in program.functions.iter().enumerate() {
        let func = &mut module.functions[FuncId::from_u32(i as u32)];
        lower_function(
            f,
            func,
            &signatures,
            (&program.globals, &globals),
            (&mut diags, &mut helpers),
        );
    }
    helpers.emit(&mut module, program.ftz);
    if diags.is_empty() {
        Ok(module)
    } else {
        Err(diags)
    }
}

/// The IR relocations of a module variable's addresses; a string literal
/// becomes (or shares) a module constant of its own, as in device code.
fn relocs(
    addrs: &[typed::InitAddr],
    globals: &[GlobalVar],
    helpers: &mut math_f64::MathHelpers,
) -> Vec<Reloc> {
    addrs
        .iter()
        .map(|a| Reloc {
            offset: a.offset as u32,
            target: match &a.target {
                typed::AddrTarget::Global(g) => RelocTarget::Global(globals[g.0 as usize]),
                typed::AddrTarget::Func(f) => RelocTarget::Func(FuncId::from_u32(f.0)),
                typed::AddrTarget::Str(bytes) => RelocTarget::Global(helpers.string(bytes)),
            },
            addend: a.addend,
        })
        .collect()
}

/// The linkage nvcc gives a function or module variable: a kernel is
/// always external (the host launches it by name); without `-rdc` the
/// module is the whole device program, so nothing else is (device
/// variables are still reached from the host, through the runtime's
/// registration, not through PTX linkage); with `-rdc=true` everything not
/// `static` is external, for other modules to link with, and weak where it
/// is inline, since each module that includes its header defines it.
fn linkage(is_kernel: bool, is_static: bool, is_inline: bool, relocatable: bool) -> Linkage {
    match (relocatable && !is_static, is_inline) {
        (true, true) => Linkage::Weak,
        (true, false) => Linkage::External,
        (false, _) if is_kernel => Linkage::External,
        (false, _) => Linkage::Internal,
    }
}

/// The IR type of a C value held in a register. `bool` is an `i1` there;
/// in memory and in signatures it is a byte (see [`abi_type`]).
pub(crate) fn value_type(ty: &CType) -> Type {
    match ty {
        CType::Bool => Type::I1,
        CType::Int { bits: 8, .. } => Type::I8,
        CType::Int { bits: 16, .. } => Type::I16,
        CType::Int { bits: 32, .. } => Type::I32,
        CType::Int { .. } => Type::I64,
        CType::Float { bits: 32 } => Type::F32,
        CType::Float { .. } => Type::F64,
        CType::Half(HalfFormat::F16) => Type::F16,
        CType::Half(HalfFormat::Bf16) => Type::BF16,
        // A function's address is no memory address: memory-space
        // inference and the alias analysis never see it as a pointer.
        CType::Pointer { pointee, .. } if matches!(**pointee, CType::Function(_)) => Type::I64,
        CType::Pointer { .. } => Type::Ptr(AddrSpace::Generic),
        // The value of a struct expression is the address of its memory
        // (see `lower/aggregate.rs`).
        CType::Struct(_) => Type::Ptr(AddrSpace::Generic),
        // `void`, array and function values never reach a register; callers
        // check first.
        CType::Void | CType::Array { .. } | CType::Function(_) | CType::Ref { .. } => Type::I32,
    }
}

/// The IR type of a C value in memory, a parameter or a return value.
pub(crate) fn abi_type(ty: &CType) -> Type {
    match ty {
        CType::Bool => Type::I8,
        other => value_type(other),
    }
}

/// Whether the body assigns to `local` (then it cannot keep a narrower
/// address space than generic without an analysis).
fn is_assigned(body: &typed::Block, local: LocalId) -> bool {
    let mut found = false;
    stmt::visit_places(body, &mut |place| {
        if matches!(place, Place::Local(l) if *l == local) {
            found = true;
        }
    });
    found
}

/// The IR type of a parameter's variable inside the body.
fn param_var_type(f: &typed::Function, p: &typed::Param) -> Type {
    if f.is_kernel && p.ty.is_pointer() && !p.ty.is_fn_pointer() && !is_assigned(&f.body, p.local) {
        Type::Ptr(AddrSpace::Global)
    } else {
        value_type(&p.ty)
    }
}

/// The size and alignment of a struct passed or returned by value.
fn aggregate_size_align(ty: &CType) -> (u32, u32) {
    let size = u32::try_from(ty.size().unwrap_or(1).max(1)).unwrap_or(u32::MAX);
    (size, ty.align() as u32)
}

fn signature_of(f: &typed::Function) -> Signature {
    // A struct result is returned through a hidden first parameter, the
    // address of the caller's temporary, marked `sret` so that the backend
    // returns it in `func_retval0` (see `aggregate.rs`).
    let sret = f.ret.is_struct().then(|| AbiParam {
        ty: Type::Ptr(AddrSpace::Generic),
        attrs: ParamAttrs {
            sret: Some(aggregate_size_align(&f.ret)),
            ..ParamAttrs::default()
        },
    });
    let params = sret
        .into_iter()
        .chain(f.params.iter().map(|p| {
            // A kernel's struct parameter is an aggregate in `.param` space;
            // the value the kernel receives is its address there.
            if f.is_kernel && p.ty.is_struct() {
                // `__restrict__` pointer fields: the aggregate is marked
                // `restrict`, with their offsets for restrict processing.
                let mut restrict_fields = Vec::new();
                aggregate::restrict_field_offsets(&p.ty, 0, &mut restrict_fields);
                return AbiParam {
                    ty: Type::Ptr(AddrSpace::Param),
                    attrs: ParamAttrs {
                        byval: Some(aggregate_size_align(&p.ty)),
                        restrict: !restrict_fields.is_empty(),
                        restrict_fields,
                        grid_constant: p.grid_constant,
                        ..ParamAttrs::default()
                    },
                };
            }
            // A device function's struct parameter: the address of the
            // caller's object; the callee gets its own copy (`byval`),
            // marked like a kernel's when it has `__restrict__` fields.
            if p.ty.is_struct() {
                let mut restrict_fields = Vec::new();
                aggregate::restrict_field_offsets(&p.ty, 0, &mut restrict_fields);
                return AbiParam {
                    ty: Type::Ptr(AddrSpace::Generic),
                    attrs: ParamAttrs {
                        byval: Some(aggregate_size_align(&p.ty)),
                        restrict: !restrict_fields.is_empty(),
                        restrict_fields,
                        ..ParamAttrs::default()
                    },
                };
            }
            AbiParam {
                ty: match param_var_type(f, p) {
                    Type::I1 => Type::I8,
                    t => t,
                },
                attrs: ParamAttrs {
                    restrict: p.restrict,
                    ..ParamAttrs::default()
                },
            }
        }))
        .collect();
    let returns = match f.ret {
        CType::Void | CType::Struct(_) => vec![],
        ref t => vec![abi_type(t)],
    };
    Signature { params, returns }
}

/// The IR address space of a module variable's memory.
fn space_of(s: MemSpace) -> AddrSpace {
    match s {
        MemSpace::Shared => AddrSpace::Shared,
        MemSpace::Constant => AddrSpace::Const,
        MemSpace::Device => AddrSpace::Global,
    }
}

/// Targets of `break` and `continue` in the innermost loop or `switch`
/// (a `switch` has no `continue` target of its own).
#[derive(Copy, Clone)]
struct LoopTargets {
    break_to: Block,
    continue_to: Option<Block>,
}

/// The state of lowering one function.
pub(crate) struct FunctionLowerer<'a, 'f> {
    b: FunctionBuilder<'f>,
    typed: &'a typed::Function,
    signatures: &'a [Signature],
    loops: Vec<LoopTargets>,
    /// The variables declared in the `init` of the `for` loops being
    /// lowered (their counters, in practice): an index `a + k` with such a
    /// `k` is split into two widened parts (`scaled_offset`).
    counters: Vec<typed::LocalId>,
    /// The IR type of each local's variable, by `LocalId`.
    var_types: Vec<Type>,
    /// The value of `TargetValue` inside the innermost assignment.
    target_values: Vec<Value>,
    /// Right operands of compound assignments computed ahead of the target's
    /// old value (see `assign`), by node identity, with whether the value
    /// was taken.
    ready: Vec<(*const typed::Expr, Value, bool)>,
    /// The spans of the constructs being lowered, innermost last (see
    /// [`FunctionLowerer::with_span`]).
    span_stack: Vec<SourceSpan>,
    /// Instructions below this index have been given their span.
    spans_done: usize,
    /// The stack slot of each local that lives in memory, by `LocalId`.
    slots: Vec<Option<StackSlot>>,
    /// The program's module variables and their IR globals.
    globals: (&'a [typed::GlobalVar], &'a [GlobalVar]),
    /// The label blocks of the innermost `switch`.
    labels: Vec<Vec<Block>>,
    /// The block of each `goto` label, made at its first `goto` or
    /// definition and sealed when the body is done (a later `goto` may
    /// still jump to it).
    goto_blocks: std::collections::BTreeMap<u32, Block>,
    /// The hidden result address of a function that returns a struct.
    sret: Option<Value>,
    diags: &'a mut Vec<Diagnostic>,
    /// The module's helper functions that the math library calls.
    math_helpers: &'a mut math_f64::MathHelpers,
}

fn lower_function(
    f: &typed::Function,
    func: &mut Function,
    signatures: &[Signature],
    globals: (&[typed::GlobalVar], &[GlobalVar]),
    (diags, math_helpers): (&mut Vec<Diagnostic>, &mut math_f64::MathHelpers),
) {
    let slots: Vec<Option<StackSlot>> = f
        .locals
        .iter()
        .map(|l| {
            // A struct parameter already lives in the caller's memory.
            let by_pointer = l.is_param && l.ty.is_struct();
            (l.in_memory && !by_pointer).then(|| {
                func.stack_slots.push(StackSlotData {
                    size: u32::try_from(l.ty.size().unwrap_or(1).max(1)).unwrap_or(u32::MAX),
                    align: l.ty.align().max(l.align) as u32,
                })
            })
        })
        .collect();
    let mut b = FunctionBuilder::new(func);
    let mut var_types = Vec::new();
    // A kernel's struct parameter that the body only reads is used where the
    // host put it: its variable is the `ptr<param>` itself, so member reads
    // are `ld.param` and a pointer member keeps the provenance of a kernel
    // argument (global, and its `__restrict__`).
    let in_place = |p: &typed::Param| {
        f.is_kernel && p.ty.is_struct() && aggregate::struct_param_read_only(&f.body, p.local)
    };
    for (i, local) in f.locals.iter().enumerate() {
        let ty = match f.params.get(i) {
            Some(p) if local.is_param && in_place(p) => Type::Ptr(AddrSpace::Param),
            Some(p) if local.is_param => param_var_type(f, p),
            _ => value_type(&local.ty),
        };
        b.declare_var(Variable::from_u32(i as u32), ty);
        var_types.push(ty);
    }
    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    b.seal_block(entry);
    let mut lw = FunctionLowerer {
        b,
        typed: f,
        signatures,
        loops: Vec::new(),
        counters: Vec::new(),
        var_types,
        target_values: Vec::new(),
        ready: Vec::new(),
        span_stack: Vec::new(),
        spans_done: 0,
        slots,
        globals,
        labels: Vec::new(),
        goto_blocks: std::collections::BTreeMap::new(),
        sret: None,
        diags,
        math_helpers,
    };
    let mut params = lw.b.func.params().to_vec();
    if f.ret.is_struct() && !params.is_empty() {
        lw.sret = Some(params.remove(0));
    }
    for (p, v) in f.params.iter().zip(params) {
        if f.is_kernel && p.ty.is_struct() && p.grid_constant {
            // `__grid_constant__` (and `const`): read in place, through
            // its generic address (`cvta.param`), never copied.
            let addr = lw.b.addrspacecast(AddrSpace::Generic, v);
            lw.b.def_var(Variable::from_u32(p.local.0), addr);
            continue;
        }
        if in_place(p) {
            lw.b.def_var(Variable::from_u32(p.local.0), v);
            continue;
        }
        if f.is_kernel && p.ty.is_struct() {
            // Kernel parameters are read-only in PTX but a C function may
            // change its copy, or take its address: then the kernel works on
            // a local copy.
            let copy = lw.temp_struct(&p.ty);
            let src = lw.b.addrspacecast(AddrSpace::Generic, v);
            let dst = lw.b.addrspacecast(AddrSpace::Generic, copy);
            lw.copy_struct(dst, src, &p.ty);
            lw.b.def_var(Variable::from_u32(p.local.0), dst);
            continue;
        }
        if p.ty.is_struct() {
            // A device function's by-value struct: `v` points to the
            // callee's `.param` copy, which is read-only in PTX; the body
            // works on a local copy, read from there member by member.
            let copy = lw.temp_struct(&p.ty);
            let dst = lw.b.addrspacecast(AddrSpace::Generic, copy);
            lw.copy_struct(dst, v, &p.ty);
            lw.b.def_var(Variable::from_u32(p.local.0), dst);
            continue;
        }
        let v = if p.ty == CType::Bool {
            lw.byte_to_bool(v)
        } else {
            v
        };
        match lw.slots[p.local.0 as usize] {
            // A parameter whose address is taken starts as a copy in memory.
            Some(slot) => {
                let addr = lw.b.stack_addr(slot);
                let v = lw.coerce(v, abi_type(&p.ty));
                let v = lw.coerce(v, value_type(&p.ty));
                let stored = lw.coerce(v, abi_type(&p.ty));
                lw.b.store(stored, addr, MemFlags::default());
            }
            None => lw.b.def_var(Variable::from_u32(p.local.0), v),
        }
    }
    lw.with_span(f.body.span, |lw| lw.block(&f.body));
    lw.with_span(f.body.span, |lw| lw.finish_body());
    for block in std::mem::take(&mut lw.goto_blocks).into_values() {
        lw.b.seal_block(block);
    }
    lw.b.finalize();
}

impl FunctionLowerer<'_, '_> {
    /// Runs `build` as the construct at `span`: every instruction made
    /// meanwhile, and not inside a nested `with_span`, gets `span`, so each
    /// instruction carries the span of the innermost construct that made it.
    /// Instructions are stamped when the innermost construct changes (on
    /// entry and exit), each once: a tree as deep as it is long (a sum of
    /// 100,000 terms) costs linear time, not a scan per level.
    pub(crate) fn with_span<R>(&mut self, span: Span, build: impl FnOnce(&mut Self) -> R) -> R {
        self.stamp_spans();
        self.span_stack.push(SourceSpan::new(span.start, span.end));
        let r = build(self);
        self.stamp_spans();
        self.span_stack.pop();
        r
    }

    /// Gives the instructions made since the last stamp the innermost
    /// construct's span (none outside every construct), unless they have
    /// one already.
    fn stamp_spans(&mut self) {
        let now = self.b.func.dfg.insts.len();
        if let Some(&span) = self.span_stack.last() {
            for i in self.spans_done..now {
                let inst = midend::ir::Inst::from_u32(i as u32);
                if self.b.func.spans[inst].is_none() {
                    self.b.func.spans[inst] = span;
                }
            }
        }
        self.spans_done = now;
    }

    /// Ends the function if control can fall off its end.
    fn finish_body(&mut self) {
        if self.b.is_filled() {
            return;
        }
        if self.is_dead() {
            self.b.trap();
            return;
        }
        match &self.typed.ret {
            CType::Void | CType::Struct(_) => {
                self.b.ret(vec![]);
            }
            // Falling off the end of a non-void function leaves the result
            // undefined in C; return zero rather than garbage.
            t => {
                let ty = abi_type(t);
                let zero = self.zero(ty);
                self.b.ret(vec![zero]);
            }
        }
    }

    /// A zero (or null) of type `ty`.
    pub(crate) fn zero(&mut self, ty: Type) -> Value {
        match ty {
            Type::Ptr(space) => {
                let z = self.b.iconst(Type::I64, 0);
                self.b
                    .convert(midend::ir::Opcode::Inttoptr, Type::Ptr(space), z)
            }
            t if t.is_float() => self.b.fconst(t, 0.0),
            t => self.b.iconst(t, 0),
        }
    }

    /// Whether control cannot reach the current point: the block already
    /// ended (after `return`, `break`, `continue`, `goto`), or nothing
    /// branches to it (the join after an `if` whose arms both returned).
    /// Code after such a point is never run unless a label comes first
    /// (`block` in `stmt.rs` keeps those).
    pub(crate) fn is_dead(&self) -> bool {
        self.b.is_filled()
            || self
                .b
                .current_block()
                .is_some_and(|c| self.b.is_unreachable(c))
    }

    /// Continues in a new block that nothing enters (after a `__trap()`, or
    /// for unreachable code that holds a label).
    pub(crate) fn start_unreachable_block(&mut self) {
        let fresh = self.b.create_block();
        self.b.seal_block(fresh);
        self.b.switch_to_block(fresh);
    }

    /// Jumps to `to` unless control cannot get here. An unreachable block
    /// that was left open is closed with `trap` (cleanup removes it).
    pub(crate) fn jump_if_live(&mut self, to: Block) {
        if self.b.is_filled() {
            return;
        }
        if self.is_dead() {
            self.b.trap();
        } else {
            self.b.jump(to, vec![]);
        }
    }

    /// The stack slot of `local`, if it lives in memory.
    pub(crate) fn slot(&self, local: LocalId) -> Option<StackSlot> {
        self.slots.get(local.0 as usize).copied().flatten()
    }

    /// The address of module variable `g`, in its own space.
    pub(crate) fn global_address(&mut self, g: typed::GlobalId) -> Value {
        let space = space_of(self.globals.0[g.0 as usize].space);
        let gv = self.globals.1[g.0 as usize];
        self.b.global_addr(space, gv)
    }

    /// The generic address of a string constant with these bytes (and a
    /// NUL), as nvcc makes one: a `.global` byte array (`$str`, `$str$1`,
    /// ...), one per distinct string of the module.
    pub(crate) fn string_address(&mut self, bytes: &[u8]) -> Value {
        let gv = self.math_helpers.string(bytes);
        let p = self.b.global_addr(AddrSpace::Global, gv);
        self.b.addrspacecast(AddrSpace::Generic, p)
    }

    pub(crate) fn var_type(&self, local: LocalId) -> Type {
        self.var_types[local.0 as usize]
    }

    pub(crate) fn var(local: LocalId) -> Variable {
        Variable::from_u32(local.0)
    }

    pub(crate) fn error(&mut self, span: Span, code: Code, message: impl Into<String>) {
        self.diags.push(Diagnostic::error(span, code, message));
    }
}
