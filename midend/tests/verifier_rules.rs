//! One test per verifier rule: a function breaking it gets the rule's message
//! at the right entity; valid functions (the SSA sum loop, a kernel using
//! every opcode) pass.

mod common;

use midend::builder::{FuncCursor, InstBuilder};
use midend::ir::*;
use midend::text::CommentAt;
use midend::verifier::{module_errors_key, verify_function, verify_module, VerifierErrors};
use std::collections::HashSet;

// ---------------------------------------------------------------- helpers

fn sig(params: &[Type], returns: &[Type]) -> Signature {
    Signature {
        params: params.iter().map(|&t| AbiParam::new(t)).collect(),
        returns: returns.to_vec(),
    }
}

/// A function whose entry block (placed, with the signature's parameters) is returned.
fn func_of(kind: FuncKind, params: &[Type], returns: &[Type]) -> (Function, Block) {
    let mut f = Function::new(
        "f",
        sig(params, returns),
        FuncAttrs::new(kind, Linkage::External),
    );
    let b = f.dfg.make_block();
    for &t in params {
        f.dfg.append_block_param(b, t);
    }
    f.layout.append_block(b);
    (f, b)
}

fn device(params: &[Type], returns: &[Type]) -> (Function, Block) {
    func_of(FuncKind::Device, params, returns)
}

/// A device function `(params) -> ()` whose entry block is what `body` builds
/// followed by `return`; also gives the last instruction `body` built.
fn with_last(params: &[Type], body: impl FnOnce(&mut FuncCursor, &[Value])) -> (Function, Inst) {
    let (mut f, b) = device(params, &[]);
    let ps = f.dfg.block_params(b).to_vec();
    let mut c = FuncCursor::at_end(&mut f, b);
    body(&mut c, &ps);
    let inst = c.func.layout.last_inst(b).expect("body built nothing");
    c.ret(vec![]);
    (f, inst)
}

fn def_inst(f: &Function, v: Value) -> Inst {
    match f.dfg.value_def(v) {
        ValueDef::Result(i, _) => i,
        d => panic!("{v} is {d:?}"),
    }
}

fn errors(f: &Function, m: Option<&Module>) -> VerifierErrors {
    verify_function(f, m).expect_err("expected verifier errors")
}

#[track_caller]
fn assert_error(f: &Function, m: Option<&Module>, at: CommentAt, msg: &str) {
    let e = errors(f, m);
    assert!(e.has(at, msg), "missing `{msg}` at {at:?}; got:\n{e}");
}

#[track_caller]
fn assert_inst_error(f: &Function, inst: Inst, msg: &str) {
    assert_error(f, None, CommentAt::Inst(inst), msg);
}

#[track_caller]
fn assert_block_error(f: &Function, block: Block, msg: &str) {
    assert_error(f, None, CommentAt::Block(block), msg);
}

#[track_caller]
fn assert_func_error(f: &Function, msg: &str) {
    assert_error(f, None, CommentAt::Function, msg);
}

/// An error at `inst` when verified against module `m`.
#[track_caller]
fn assert_module_error(f: &Function, m: &Module, inst: Inst, msg: &str) {
    assert_error(f, Some(m), CommentAt::Inst(inst), msg);
}

#[track_caller]
fn assert_ok(f: &Function, m: Option<&Module>) {
    if let Err(e) = verify_function(f, m) {
        panic!("unexpected errors:\n{e}\n{}", e.annotate(f, m));
    }
}

use common::build_sum_loop;

fn global(name: &str, space: AddrSpace, size: u32) -> GlobalVarData {
    GlobalVarData {
        name: name.into(),
        space,
        size,
        align: 4,
        init: None,
        linkage: Linkage::External,
        dynamic: false,
        managed: false,
        relocs: Vec::new(),
    }
}

/// A module with `gv0` (shared), `gv1` (const), `gv2` (dynamic shared),
/// `fn0` = `device @helper(i32) -> i32` and `fn1` = `kernel @k()`.
fn base_module() -> Module {
    let mut m = Module::new();
    m.push_global(global("tile", AddrSpace::Shared, 256));
    let mut table = global("table", AddrSpace::Const, 8);
    table.init = Some(vec![1, 2, 3, 4]);
    m.push_global(table);
    let mut dynamic = global("dyn", AddrSpace::Shared, 0);
    dynamic.dynamic = true;
    m.push_global(dynamic);
    let (mut helper, b) = device(&[Type::I32], &[Type::I32]);
    helper.name = "helper".into();
    let p = helper.dfg.block_params(b)[0];
    FuncCursor::at_end(&mut helper, b).ret(vec![p]);
    m.push_function(helper);
    let (mut k, b) = func_of(FuncKind::Kernel, &[], &[]);
    k.name = "k".into();
    FuncCursor::at_end(&mut k, b).ret(vec![]);
    m.push_function(k);
    m
}

/// A kernel using every opcode once or more, valid against `base_module()`.
fn build_every_opcode_kernel() -> Function {
    use AddrSpace::*;
    let params = [Type::Ptr(Global), Type::Ptr(Param), Type::I32];
    let (mut f, entry) = func_of(FuncKind::Kernel, &params, &[]);
    f.name = "every".into();
    f.signature.params[0].attrs.restrict = true;
    f.signature.params[0].attrs.noalias = true;
    f.signature.params[1].attrs.byval = Some((8, 4));
    f.signature.params[2].attrs.grid_constant = true;
    f.attrs.launch_bounds = Some((256, Some(2)));
    let ss = f.stack_slots.push(StackSlotData { size: 16, align: 4 });
    let scope = f.alias_scopes.push(AliasScopeData { name: "p".into() });
    let trap_block = f.dfg.make_block();
    let join = f.dfg.make_block();
    let join_param = f.dfg.append_block_param(join, Type::I32);
    let exit = f.dfg.make_block();
    for b in [trap_block, join, exit] {
        f.layout.append_block(b);
    }
    let p = f.dfg.block_params(entry).to_vec();
    let mut c = FuncCursor::at_end(&mut f, entry);
    let tid = c.special(midend::ir::SpecialReg::TidX);
    let one = c.iconst(Type::I32, 1);
    let mut acc = c.unary(Opcode::Ineg, tid);
    acc = c.unary(Opcode::Bnot, acc);
    use Opcode::*;
    for op in [
        Iadd, Isub, Imul, Sdiv, Udiv, Srem, Urem, Band, Bor, Bxor, Ishl, Ushr, Sshr, Smin, Smax,
        Umin, Umax,
    ] {
        acc = c.binary(op, acc, one);
    }
    let flag = c.icmp(IntCC::Slt, acc, p[2]);
    let t = c.iconst(Type::I1, 1);
    let flag = c.binary(Band, flag, t);
    let x = c.fconst(Type::F32, 1.5);
    let mut fx = c.unary(Fneg, x);
    fx = c.unary(Fabs, fx);
    fx = c.unary(Sqrt, fx);
    for op in [
        Rsqrt, Ex2, Lg2, Ex2Ftz, Lg2Ftz, RsqrtFtz, Sin, Cos, Tanh, Floor, Ceil, Ftrunc, Nearest,
    ] {
        fx = c.unary(op, fx);
    }
    for op in [Fadd, Fsub, Fmul, Fdiv, FdivApprox, FdivFull, Fmin, Fmax] {
        fx = c.binary(op, fx, x);
    }
    for op in [
        FaddRn, FaddRz, FaddRu, FaddRd, FmulRn, FmulRz, FmulRu, FmulRd, FdivRz, FdivRu, FdivRd,
    ] {
        fx = c.binary(op, fx, x);
    }
    for op in [SqrtRz, SqrtRu, SqrtRd] {
        fx = c.unary(op, fx);
    }
    for op in [FmaRz, FmaRu, FmaRd] {
        fx = c.fma_op(op, fx, x, x);
    }
    for op in [Popcnt, Clz, Bitrev] {
        acc = c.unary(op, acc);
    }
    for op in [Dp4aS, Dp4aU] {
        acc = c.fma_op(op, acc, acc, acc);
    }
    fx = c.fma(fx, x, x);
    let fflag = c.fcmp(FloatCC::Olt, fx, x);
    let sel = c.select(fflag, acc, one);
    let wide = c.convert(Sext, Type::I64, sel);
    c.convert(Zext, Type::I64, sel);
    c.convert(Trunc, Type::I16, sel);
    c.convert(Fpext, Type::F64, fx);
    c.convert(Fptrunc, Type::F16, fx);
    c.convert(Sitofp, Type::F32, sel);
    c.convert(Uitofp, Type::F32, sel);
    c.convert(Fptosi, Type::I32, fx);
    c.convert(Fptoui, Type::I32, fx);
    c.convert(Bitcast, Type::I32, fx);
    let addr = c.convert(Ptrtoint, Type::I64, p[0]);
    let back = c.convert(Inttoptr, Type::Ptr(Global), addr);
    let elem = c.ptroffset(back, wide);
    let generic = c.addrspacecast(Generic, elem);
    let elem = c.addrspacecast(Global, generic);
    let tile = c.global_addr(Shared, GlobalVar::from_u32(0));
    let local = c.stack_addr(ss);
    let by = c.load(Type::I32, p[1], MemFlags::default());
    let flags = MemFlags {
        scopes: vec![scope],
        ..MemFlags::default()
    };
    c.store(by, elem, flags.clone());
    c.store(sel, tile, MemFlags::default());
    c.store(sel, local, MemFlags::default());
    let call = c.call(FuncId::from_u32(0), vec![sel], &[Type::I32]);
    let called = c.func.dfg.first_result(call).unwrap();
    let helper_addr = c.func_addr(FuncId::from_u32(0));
    let sig = midend::ir::CallSig {
        params: vec![Type::I32],
        returns: vec![Type::I32],
    };
    c.call_indirect(sig, helper_addr, vec![called]);
    c.barrier();
    c.grid_barrier();
    c.special(midend::ir::SpecialReg::GridWorkspace);
    let old = c.atomic_rmw(AtomicOp::Add, MemScope::Gpu, elem, sel);
    c.atomic_cas(MemScope::Cta, tile, old, sel);
    c.atomic_vec(AtomicOp::Add, MemScope::Sys, elem, &[fx, fx]);
    c.fence(MemScope::Sys);
    let mask = c.iconst(Type::I32, -1);
    let lane_clamp = c.iconst(Type::I32, 31);
    c.shuffle(ShuffleMode::Bfly, fx, one, lane_clamp, mask);
    c.vote(VoteMode::Ballot, flag, mask);
    c.redux(ReduxOp::Smax, sel, mask);
    c.match_lanes(MatchMode::Any, sel, mask);
    c.barrier_red(BarrierRedOp::Popc, flag);
    c.warp_sync(mask);
    c.nanosleep(one);
    c.is_space(Shared, generic);
    accel_ops(&mut c, tile, elem, one);
    c.brif(flag, trap_block, vec![], join, vec![called]);
    let mut c = FuncCursor::at_end(c.func, trap_block);
    c.trap();
    let mut c = FuncCursor::at_end(c.func, join);
    c.store(join_param, elem, flags);
    c.jump(exit, vec![]);
    let mut c = FuncCursor::at_end(c.func, exit);
    c.ret(vec![]);
    f
}

/// One of each `accel` form, fragments flowing from loads to mma to stores.
fn accel_ops(c: &mut FuncCursor, tile: Value, global: Value, one: Value) {
    use midend::ir::{AccelOp as A, CpCache, Frag, MatLayout, MmaType, TcCpShape, TcKind};
    let (row, col) = (MatLayout::Row, MatLayout::Col);
    c.accel(
        A::CpAsync {
            cache: CpCache::Cg,
            size: 16,
        },
        vec![tile, global],
    );
    c.accel(A::CpAsyncCommit, vec![]);
    c.accel(A::CpAsyncWait { n: 0 }, vec![]);
    c.accel(A::CpAsyncWaitAll, vec![]);
    c.accel(A::MbarInit, vec![tile, one]);
    let token = c.accel(A::MbarArrive, vec![tile]);
    c.accel(A::MbarArriveExpectTx, vec![tile, one]);
    c.accel(A::MbarTestWait, vec![tile, token[0]]);
    c.accel(A::MbarTryWaitParity, vec![tile, one]);
    c.accel(A::FenceProxyAsync, vec![]);
    let load = |c: &mut FuncCursor, frag, ty| {
        c.accel(
            A::WmmaLoad {
                frag,
                layout: row,
                ty,
            },
            vec![global, one],
        )
    };
    let mut args = load(c, Frag::A, MmaType::F16);
    args.extend(load(c, Frag::B, MmaType::F16));
    args.extend(load(c, Frag::C, MmaType::F32));
    let d = c.accel(
        A::WmmaMma {
            a: row,
            b: col,
            ty: MmaType::F16,
        },
        args,
    );
    let mut store = vec![global];
    store.extend(d.iter().copied());
    store.push(one);
    c.accel(A::WmmaStore { layout: row }, store);
    let frag = c.accel(
        A::Ldmatrix {
            num: 4,
            trans: false,
        },
        vec![tile],
    );
    let mut mma = frag.clone();
    mma.extend(&frag[..2]);
    mma.extend(&d[..4]);
    c.accel(A::Mma { ty: MmaType::F16 }, mma);
    let mut st = vec![tile];
    st.extend(frag);
    c.accel(
        A::Stmatrix {
            num: 4,
            trans: true,
        },
        st,
    );
    // Hopper: TMA with a tensor map in global memory, bulk groups, mapa,
    // a shared::cluster access and the cluster barrier.
    c.accel(A::TmaLoad { dims: 2 }, vec![tile, global, tile, one, one]);
    c.accel(A::TmaStore { dims: 1 }, vec![global, tile, one]);
    c.accel(A::BulkCommit, vec![]);
    c.accel(A::BulkWait { n: 0, read: true }, vec![]);
    let remote = c.accel(A::Mapa, vec![tile, one]);
    c.load(Type::I32, remote[0], MemFlags::default());
    c.accel(A::ClusterArrive { relaxed: false }, vec![]);
    c.accel(A::ClusterWait, vec![]);
    // wgmma, setmaxnreg and tcgen05 (sm_90a / sm_100a).
    let desc = c.iconst(Type::I64, 0);
    let yes = c.iconst(Type::I1, 1);
    c.accel(A::WgmmaFence, vec![]);
    let mut wg = vec![desc, desc, yes];
    wg.extend(std::iter::repeat_n(d[0], 32));
    c.accel(
        A::WgmmaMma {
            n: 64,
            ty: MmaType::Bf16,
            neg_a: true,
            neg_b: false,
            trans_a: false,
            trans_b: true,
        },
        wg,
    );
    c.accel(A::WgmmaCommit, vec![]);
    c.accel(A::WgmmaWait { n: 0 }, vec![]);
    c.accel(
        A::Setmaxnreg {
            inc: true,
            regs: 232,
        },
        vec![],
    );
    let tm = c.convert(Opcode::Inttoptr, Type::Ptr(AddrSpace::Tmem), one);
    c.accel(A::Tcgen05Alloc, vec![tile, one]);
    c.accel(A::Tcgen05Relinquish, vec![]);
    c.accel(A::Tcgen05Fence { after: true }, vec![]);
    c.accel(
        A::Tcgen05Mma { kind: TcKind::F16 },
        vec![tm, desc, desc, one, yes],
    );
    c.accel(A::Tcgen05Commit, vec![tile]);
    let regs = c.accel(A::Tcgen05Ld { num: 2 }, vec![tm]);
    c.accel(A::Tcgen05Wait { st: false }, vec![]);
    c.accel(A::Tcgen05St { num: 2 }, vec![tm, regs[0], regs[1]]);
    c.accel(
        A::Tcgen05Cp {
            shape: TcCpShape::S128x256b,
        },
        vec![tm, desc],
    );
    c.accel(A::Tcgen05Dealloc, vec![tm, one]);
    // The runtime calls: `printf` and a failed `assert`.
    let text = c.addrspacecast(AddrSpace::Generic, tile);
    c.accel(A::Vprintf, vec![text, text]);
    let wide = c.iconst(Type::I64, 1);
    c.accel(A::AssertFail, vec![text, text, one, text, wide]);
    // A texture fetch and surface accesses through the handle `wide`.
    let half = c.fconst(Type::F32, 0.5);
    let tex = TexOp {
        geom: TexGeom::D1,
        lod: TexLod::Base,
        dty: TexType::F32,
        cty: TexType::F32,
    };
    c.accel(A::Tex(tex), vec![wide, half]);
    let surf = SurfOp {
        geom: TexGeom::D1,
        vec: 1,
        bits: 32,
        mode: SurfMode::Trap,
    };
    let texel = c.accel(A::Suld(surf), vec![wide, one]);
    c.accel(A::Sust(surf), vec![wide, one, texel[0]]);
    // Inline PTX: a `+` output, a register input and an immediate.
    let asm = InlineAsm {
        template: "add.u32 %0, %1, %2;".into(),
        outputs: vec![AsmOutput {
            reg: AsmReg::R,
            tied: true,
        }],
        inputs: vec![AsmInput::Reg(AsmReg::R), AsmInput::Imm(3)],
        volatile: true,
        memory: true,
    };
    c.inline_asm(asm, vec![one, one]);
}

// ---------------------------------------------------------------- valid IR

#[test]
fn sum_loop_is_valid() {
    let f = build_sum_loop();
    assert_ok(&f, None);
    // SSA construction left aliases behind (removed trivial params); unused
    // aliases are fine.
    assert!(f
        .dfg
        .values
        .values()
        .any(|d| matches!(d.def, ValueDef::Alias(_))));
}

#[test]
fn kernel_using_every_opcode_is_valid() {
    let f = build_every_opcode_kernel();
    let used: HashSet<Opcode> = f
        .layout
        .insts()
        .map(|(_, i)| f.dfg.insts[i].opcode())
        .collect();
    for op in Opcode::ALL {
        assert!(used.contains(op), "the kernel does not use {op}");
    }
    let mut m = base_module();
    assert_ok(&f, Some(&m));
    assert_ok(&f, None);
    m.push_function(f);
    assert_eq!(verify_module(&m), Ok(()));
}

// ---------------------------------------------------------------- phase 1

#[test]
fn invalid_operand_value() {
    let (f, inst) = with_last(&[Type::I32], |c, p| {
        c.iadd(p[0], Value::from_u32(99));
    });
    assert_inst_error(&f, inst, "invalid value v99");
}

#[test]
fn invalid_branch_target() {
    let (mut f, b) = device(&[], &[]);
    let inst = FuncCursor::at_end(&mut f, b).jump(Block::from_u32(7), vec![]);
    assert_inst_error(&f, inst, "invalid block block7");
}

#[test]
fn invalid_stack_slot() {
    let (f, inst) = with_last(&[], |c, _| {
        c.stack_addr(StackSlot::from_u32(3));
    });
    assert_inst_error(&f, inst, "invalid stack slot ss3");
}

#[test]
fn invalid_alias_scope() {
    let (f, inst) = with_last(&[Type::Ptr(AddrSpace::Global), Type::I32], |c, p| {
        let flags = MemFlags {
            noalias: vec![AliasScope::from_u32(2)],
            ..MemFlags::default()
        };
        c.store(p[1], p[0], flags);
    });
    assert_inst_error(&f, inst, "invalid alias scope scope2");
}

#[test]
fn invalid_global_and_function_need_a_module() {
    let (mut f, b) = device(&[], &[]);
    let mut c = FuncCursor::at_end(&mut f, b);
    let gv = c.global_addr(AddrSpace::Shared, GlobalVar::from_u32(5));
    let call = c.call(FuncId::from_u32(9), vec![], &[]);
    c.ret(vec![]);
    let m = base_module();
    let ga = def_inst(&f, gv);
    assert_module_error(&f, &m, ga, "invalid global variable gv5");
    assert_module_error(&f, &m, call, "invalid function fn9");
    assert_ok(&f, None);
}

#[test]
fn invalid_result_and_parameter_values() {
    let (mut f, b) = device(&[], &[]);
    let one = FuncCursor::at_end(&mut f, b).iconst(Type::I32, 1);
    let inst = def_inst(&f, one);
    FuncCursor::at_end(&mut f, b).ret(vec![]);
    f.dfg.results[inst] = [Value::from_u32(99)].into_iter().collect();
    let b2 = f.dfg.make_block();
    f.dfg.blocks[b2].params.push(Value::from_u32(98));
    f.layout.append_block(b2);
    FuncCursor::at_end(&mut f, b2).ret(vec![]);
    assert_inst_error(&f, inst, "invalid result value v99");
    assert_block_error(&f, b2, "invalid parameter value v98");
}

#[test]
fn layout_holding_invalid_entities() {
    let (mut f, b) = device(&[], &[]);
    FuncCursor::at_end(&mut f, b).ret(vec![]);
    f.layout.append_block(Block::from_u32(50));
    f.layout.append_inst(Inst::from_u32(60), b);
    assert_func_error(&f, "layout holds invalid block block50");
    assert_block_error(&f, b, "layout holds invalid instruction inst60");
    // The annotated listing leaves the invalid entities out instead of panicking.
    let text = errors(&f, None).annotate(&f, None);
    assert!(
        text.contains("; error: layout holds invalid block block50"),
        "{text}"
    );
}

#[test]
fn use_of_detached_value() {
    let (mut f, b) = device(&[], &[]);
    let ghost = f.dfg.values.push(ValueData {
        ty: Type::I32,
        def: ValueDef::Detached,
    });
    let mut c = FuncCursor::at_end(&mut f, b);
    let v = c.iadd(ghost, ghost);
    c.ret(vec![]);
    assert_inst_error(
        &f,
        def_inst(&f, v),
        &format!("use of detached value {ghost}"),
    );
}

#[test]
fn use_of_alias() {
    let (mut f, b) = device(&[], &[]);
    let mut c = FuncCursor::at_end(&mut f, b);
    let a = c.iconst(Type::I32, 1);
    let old = c.iconst(Type::I32, 2);
    // Replacing a result: the old instruction leaves the layout.
    let old_inst = def_inst(c.func, old);
    c.func.layout.remove_inst(old_inst);
    c.func.dfg.change_to_alias(old, a);
    let v = c.iadd(old, a);
    c.ret(vec![]);
    let inst = def_inst(&f, v);
    assert_inst_error(
        &f,
        inst,
        &format!("use of alias {old}; resolve aliases first"),
    );
    f.dfg.resolve_all_aliases();
    assert_ok(&f, None);
}

#[test]
fn value_with_dangling_definition() {
    let (mut f, b) = device(&[], &[]);
    FuncCursor::at_end(&mut f, b).ret(vec![]);
    let v = f.dfg.values.push(ValueData {
        ty: Type::I32,
        def: ValueDef::Result(Inst::from_u32(99), 0),
    });
    let w = f.dfg.values.push(ValueData {
        ty: Type::I32,
        def: ValueDef::Param(Block::from_u32(42), 0),
    });
    let x = f.dfg.values.push(ValueData {
        ty: Type::I32,
        def: ValueDef::Alias(Value::from_u32(77)),
    });
    let e = errors(&f, None);
    assert!(e.has(
        CommentAt::Function,
        &format!("{v} is defined by invalid inst99")
    ));
    assert!(e.has(
        CommentAt::Function,
        &format!("{w} is a parameter of invalid block42")
    ));
    assert!(e.has(
        CommentAt::Function,
        &format!("{x} is an alias of invalid value v77")
    ));
}

// ---------------------------------------------------------------- phase 2

#[test]
fn no_entry_block() {
    let f = Function::new(
        "f",
        Signature::default(),
        FuncAttrs::new(FuncKind::Device, Linkage::External),
    );
    assert_func_error(&f, "no entry block");
}

#[test]
fn entry_params_must_match_signature() {
    let (mut f, b) = device(&[Type::I64], &[]);
    FuncCursor::at_end(&mut f, b).ret(vec![]);
    f.signature.params = vec![AbiParam::new(Type::I32)];
    assert_block_error(&f, b, "entry parameter v0 has type i64, signature says i32");
    f.signature.params.push(AbiParam::new(Type::I32));
    assert_block_error(&f, b, "entry block has 1 parameters, signature has 2");
}

#[test]
fn empty_block() {
    let (mut f, b) = device(&[], &[]);
    FuncCursor::at_end(&mut f, b).ret(vec![]);
    let b2 = f.dfg.make_block();
    f.layout.append_block(b2);
    assert_block_error(&f, b2, "empty block");
}

#[test]
fn block_must_end_in_terminator() {
    let (mut f, b) = device(&[], &[]);
    FuncCursor::at_end(&mut f, b).iconst(Type::I32, 0);
    assert_block_error(&f, b, "block does not end in a terminator");
}

#[test]
fn terminator_before_end_of_block() {
    let (mut f, b) = device(&[], &[]);
    let first = FuncCursor::at_end(&mut f, b).ret(vec![]);
    FuncCursor::at_end(&mut f, b).ret(vec![]);
    assert_inst_error(&f, first, "terminator return before the end of the block");
}

#[test]
fn instruction_in_two_blocks() {
    let (mut f, b0) = device(&[], &[]);
    let b1 = f.dfg.make_block();
    f.layout.append_block(b1);
    let mut c = FuncCursor::at_end(&mut f, b0);
    let v = c.iconst(Type::I32, 0);
    c.jump(b1, vec![]);
    let ret = FuncCursor::at_end(&mut f, b1).ret(vec![]);
    let shared = def_inst(&f, v);
    // `insert_inst_before` does not check the instruction is unplaced.
    f.layout.insert_inst_before(shared, ret);
    let e = errors(&f, None);
    assert!(
        e.has(
            CommentAt::Inst(shared),
            "instruction is listed in block0 and block1"
        ),
        "{e}"
    );
    assert!(
        e.has(
            CommentAt::Inst(shared),
            "layout places instruction in block1 but lists it in block0"
        ),
        "{e}"
    );
}

#[test]
fn result_definition_must_point_back() {
    let (mut f, b) = device(&[], &[]);
    let v = FuncCursor::at_end(&mut f, b).iconst(Type::I32, 0);
    FuncCursor::at_end(&mut f, b).ret(vec![]);
    let inst = def_inst(&f, v);
    f.dfg.values[v].def = ValueDef::Detached;
    assert_inst_error(&f, inst, "result v0 is recorded as detached");
    f.dfg.values[v].def = ValueDef::Result(inst, 1);
    assert_inst_error(&f, inst, "result v0 is recorded as result 1 of inst0");
}

#[test]
fn block_param_definition_must_point_back() {
    let (mut f, b) = device(&[Type::I32], &[]);
    FuncCursor::at_end(&mut f, b).ret(vec![]);
    let p = f.dfg.block_params(b)[0];
    f.dfg.values[p].def = ValueDef::Param(b, 3);
    assert_block_error(&f, b, "parameter v0 is recorded as parameter 3 of block0");
}

// ---------------------------------------------------------------- phase 3

#[test]
fn branch_to_block_outside_layout() {
    let (mut f, b) = device(&[], &[]);
    let orphan = f.dfg.make_block();
    let inst = FuncCursor::at_end(&mut f, b).jump(orphan, vec![]);
    assert_inst_error(&f, inst, "branch to block1, which is not in the layout");
}

#[test]
fn branch_to_entry_block() {
    let (mut f, b) = device(&[], &[]);
    let inst = FuncCursor::at_end(&mut f, b).jump(b, vec![]);
    assert_inst_error(&f, inst, "branch to the entry block block0");
}

#[test]
fn branch_argument_count() {
    let (mut f, b0) = device(&[], &[]);
    let b1 = f.dfg.make_block();
    f.dfg.append_block_param(b1, Type::I32);
    f.layout.append_block(b1);
    let inst = FuncCursor::at_end(&mut f, b0).jump(b1, vec![]);
    FuncCursor::at_end(&mut f, b1).ret(vec![]);
    assert_inst_error(&f, inst, "block1 takes 1 arguments, got 0");
}

/// `block0: brif p, block1, block2; block1: v = ...; jump block3;
/// block2: jump block3; block3: use v`.
#[test]
fn use_not_dominated_by_definition() {
    let (mut f, b0) = device(&[Type::I1], &[]);
    let [b1, b2, b3] = [0; 3].map(|_| f.dfg.make_block());
    for b in [b1, b2, b3] {
        f.layout.append_block(b);
    }
    let p = f.dfg.block_params(b0)[0];
    FuncCursor::at_end(&mut f, b0).brif(p, b1, vec![], b2, vec![]);
    let mut c = FuncCursor::at_end(&mut f, b1);
    let v = c.iconst(Type::I32, 7);
    c.jump(b3, vec![]);
    FuncCursor::at_end(&mut f, b2).jump(b3, vec![]);
    let mut c = FuncCursor::at_end(&mut f, b3);
    let w = c.iadd(v, v);
    c.ret(vec![]);
    assert_inst_error(
        &f,
        def_inst(&f, w),
        &format!("use of {v} is not dominated by its definition"),
    );
}

#[test]
fn use_before_definition_in_same_block() {
    let (mut f, b) = device(&[], &[]);
    let mut c = FuncCursor::at_end(&mut f, b);
    let v = c.iconst(Type::I32, 7);
    let w = c.iadd(v, v);
    c.ret(vec![]);
    // Move the constant after its use.
    let (vi, wi) = (def_inst(&f, v), def_inst(&f, w));
    f.layout.remove_inst(vi);
    let ret = f.layout.last_inst(b).unwrap();
    f.layout.insert_inst_before(vi, ret);
    assert_inst_error(
        &f,
        wi,
        &format!("use of {v} is not dominated by its definition"),
    );
}

#[test]
fn definition_outside_layout() {
    let (mut f, b) = device(&[], &[]);
    let loose = f.dfg.make_inst(
        InstData::Iconst {
            ty: Type::I32,
            imm: 1,
        },
        &[Type::I32],
    );
    let v = f.dfg.first_result(loose).unwrap();
    let orphan = f.dfg.make_block();
    let p = f.dfg.append_block_param(orphan, Type::I32);
    let mut c = FuncCursor::at_end(&mut f, b);
    let w = c.iadd(v, p);
    c.ret(vec![]);
    let inst = def_inst(&f, w);
    assert_inst_error(
        &f,
        inst,
        "v0 is defined by inst0, which is not in the layout",
    );
    assert_inst_error(
        &f,
        inst,
        "v1 is a parameter of block1, which is not in the layout",
    );
}

#[test]
fn stale_definition_record() {
    let (mut f, b) = device(&[], &[]);
    let v = FuncCursor::at_end(&mut f, b).iconst(Type::I32, 1);
    let i0 = def_inst(&f, v);
    let stale = f.dfg.values.push(ValueData {
        ty: Type::I32,
        def: ValueDef::Result(i0, 1),
    });
    let mut c = FuncCursor::at_end(&mut f, b);
    let w = c.iadd(v, stale);
    c.ret(vec![]);
    assert_inst_error(
        &f,
        def_inst(&f, w),
        "v1 is recorded as result 1 of inst0, which does not define it",
    );
}

#[test]
fn unreachable_blocks_are_checked_leniently() {
    // block1 is reachable and defines v; block2 is unreachable and uses it:
    // accepted, since block2 never runs.
    let (mut f, b0) = device(&[], &[]);
    let b1 = f.dfg.make_block();
    let b2 = f.dfg.make_block();
    f.layout.append_block(b1);
    f.layout.append_block(b2);
    FuncCursor::at_end(&mut f, b0).jump(b1, vec![]);
    let mut c = FuncCursor::at_end(&mut f, b1);
    let v = c.iconst(Type::I32, 1);
    c.ret(vec![]);
    let mut c = FuncCursor::at_end(&mut f, b2);
    let w = c.iadd(v, v);
    c.ret(vec![]);
    assert_ok(&f, None);
    // But a use before a definition in the same unreachable block is an error.
    let late = f.dfg.make_inst(
        InstData::Unary {
            opcode: Opcode::Ineg,
            arg: w,
        },
        &[Type::I32],
    );
    let wi = def_inst(&f, w);
    f.layout.insert_inst_before(late, wi);
    assert_inst_error(
        &f,
        late,
        &format!("use of {w} is not dominated by its definition"),
    );
}

// ---------------------------------------------------------------- phase 4

#[test]
fn result_count() {
    let (mut f, b) = device(&[Type::I32], &[]);
    let p = f.dfg.block_params(b)[0];
    let inst = f.append_inst(
        b,
        InstData::Binary {
            opcode: Opcode::Iadd,
            args: [p, p],
        },
        &[],
    );
    FuncCursor::at_end(&mut f, b).ret(vec![]);
    assert_inst_error(&f, inst, "expected 1 results, got 0");
    let (mut f, b) = device(&[], &[]);
    let inst = f.append_inst(b, InstData::Return { args: vec![] }, &[Type::I32]);
    assert_inst_error(&f, inst, "expected 0 results, got 1");
}

#[test]
fn opcode_in_wrong_format() {
    let (mut f, b) = device(&[Type::I32], &[]);
    let p = f.dfg.block_params(b)[0];
    let inst = f.append_inst(
        b,
        InstData::Unary {
            opcode: Opcode::Iadd,
            arg: p,
        },
        &[Type::I32],
    );
    FuncCursor::at_end(&mut f, b).ret(vec![]);
    assert_inst_error(&f, inst, "iadd in the wrong instruction format");
}

#[test]
fn integer_ops_take_equal_integer_types() {
    use Type::*;
    let (f, i) = with_last(&[F32, F32], |c, p| {
        c.iadd(p[0], p[1]);
    });
    assert_inst_error(&f, i, "iadd needs integer operands, got f32");
    let (f, i) = with_last(&[I1, I1], |c, p| {
        c.imul(p[0], p[1]);
    });
    assert_inst_error(&f, i, "imul does not take i1");
    let (f, i) = with_last(&[I1], |c, p| {
        c.unary(Opcode::Ineg, p[0]);
    });
    assert_inst_error(&f, i, "ineg does not take i1");
    let (f, i) = with_last(&[I32, I64], |c, p| {
        c.binary(Opcode::Ishl, p[0], p[1]);
    });
    assert_inst_error(&f, i, "ishl operands differ: i32 and i64");
    // Bitwise ops take i1.
    for op in [Opcode::Band, Opcode::Bor, Opcode::Bxor] {
        let (f, _) = with_last(&[I1, I1], |c, p| {
            c.binary(op, p[0], p[1]);
        });
        assert_ok(&f, None);
    }
    let (f, _) = with_last(&[I1], |c, p| {
        c.unary(Opcode::Bnot, p[0]);
    });
    assert_ok(&f, None);
}

#[test]
fn result_type_matches_operands() {
    let (mut f, b) = device(&[Type::I32], &[]);
    let p = f.dfg.block_params(b)[0];
    let inst = f.append_inst(
        b,
        InstData::Binary {
            opcode: Opcode::Iadd,
            args: [p, p],
        },
        &[Type::I64],
    );
    FuncCursor::at_end(&mut f, b).ret(vec![]);
    assert_inst_error(&f, inst, "result type i64 does not match operand type i32");
}

#[test]
fn float_ops_take_equal_float_types() {
    use Type::*;
    let (f, i) = with_last(&[I32, I32], |c, p| {
        c.fadd(p[0], p[1]);
    });
    assert_inst_error(&f, i, "fadd needs float operands, got i32");
    let (f, i) = with_last(&[I32], |c, p| {
        c.unary(Opcode::Sqrt, p[0]);
    });
    assert_inst_error(&f, i, "sqrt needs float operands, got i32");
    let (f, i) = with_last(&[F32, F32, F64], |c, p| {
        c.fma(p[0], p[1], p[2]);
    });
    assert_inst_error(&f, i, "fma operands differ: f32 and f64");
}

#[test]
fn comparisons() {
    use Type::*;
    let (f, i) = with_last(&[I32, I64], |c, p| {
        c.icmp(IntCC::Eq, p[0], p[1]);
    });
    assert_inst_error(&f, i, "icmp operands differ: i32 and i64");
    let (f, i) = with_last(&[F32, F32], |c, p| {
        c.icmp(IntCC::Eq, p[0], p[1]);
    });
    assert_inst_error(&f, i, "icmp needs integer or pointer operands, got f32");
    let (f, i) = with_last(&[I32, I32], |c, p| {
        c.fcmp(FloatCC::Oeq, p[0], p[1]);
    });
    assert_inst_error(&f, i, "fcmp needs float operands, got i32");
    let (mut f, b) = device(&[I32], &[]);
    let p = f.dfg.block_params(b)[0];
    let inst = f.append_inst(
        b,
        InstData::IntCompare {
            cond: IntCC::Eq,
            args: [p, p],
        },
        &[I32],
    );
    FuncCursor::at_end(&mut f, b).ret(vec![]);
    assert_inst_error(&f, inst, "icmp result must be i1, got i32");
    // Pointers compare.
    let g = Ptr(AddrSpace::Global);
    let (f, _) = with_last(&[g, g], |c, p| {
        c.icmp(IntCC::Ult, p[0], p[1]);
    });
    assert_ok(&f, None);
}

#[test]
fn dp4a_needs_i32() {
    use Type::*;
    let (f, i) = with_last(&[I64, I64, I64], |c, p| {
        c.fma_op(Opcode::Dp4aS, p[0], p[1], p[2]);
    });
    assert_inst_error(&f, i, "dp4a_s needs i32 operands, got i64");
}

#[test]
fn select_condition_and_arms() {
    use Type::*;
    let (f, i) = with_last(&[I32, I32, I64], |c, p| {
        c.select(p[0], p[1], p[2]);
    });
    assert_inst_error(&f, i, "select condition must be i1, got i32");
    assert_inst_error(&f, i, "select arms differ: i32 and i64");
}

#[test]
fn brif_condition_is_i1() {
    let (mut f, b0) = device(&[Type::I32], &[]);
    let b1 = f.dfg.make_block();
    f.layout.append_block(b1);
    let p = f.dfg.block_params(b0)[0];
    let inst = FuncCursor::at_end(&mut f, b0).brif(p, b1, vec![], b1, vec![]);
    FuncCursor::at_end(&mut f, b1).ret(vec![]);
    assert_inst_error(&f, inst, "brif condition must be i1, got i32");
}

#[test]
fn conversions() {
    use AddrSpace::*;
    use Opcode::*;
    use Type::*;
    #[rustfmt::skip]
    let cases: &[(Opcode, Type, Type, Option<&str>)] = &[
        (Sext, I32, I64, None),
        (Zext, I1, I32, None),
        (Sext, I64, I32, Some("sext must widen, got i64 to i32")),
        (Zext, I32, I32, Some("zext must widen, got i32 to i32")),
        (Zext, F32, F64, Some("zext needs integer types, got f32 to f64")),
        (Trunc, I64, I1, None),
        (Trunc, I8, I32, Some("trunc must narrow, got i8 to i32")),
        (Fpext, BF16, F32, None),
        (Fpext, F16, BF16, Some("fpext must widen, got f16 to bf16")),
        (Fptrunc, F32, F64, Some("fptrunc must narrow, got f32 to f64")),
        (Fptrunc, I64, I32, Some("fptrunc needs float types, got i64 to i32")),
        (Sitofp, I64, F16, None),
        (Uitofp, I1, F32, Some("uitofp converts a non-i1 integer to a float, got i1 to f32")),
        (Fptoui, F64, I8, None),
        (Fptosi, F32, F32, Some("fptosi converts a float to a non-i1 integer, got f32 to f32")),
        (Bitcast, F32, I32, None),
        (Bitcast, F16, BF16, None),
        (Bitcast, I32, I64, Some("bitcast needs types of one width, got i32 to i64")),
        (Bitcast, Ptr(Global), I64, Some("bitcast cannot convert pointers, got ptr<global> to i64")),
        (Ptrtoint, Ptr(Shared), I64, None),
        (Ptrtoint, Ptr(Tmem), I32, None),
        (Ptrtoint, Ptr(Global), I32, Some("ptrtoint of ptr<global> must give i64, got i32")),
        (Ptrtoint, I64, I64, Some("ptrtoint needs a pointer operand, got i64")),
        (Inttoptr, I64, Ptr(Generic), None),
        (Inttoptr, I32, Ptr(Tmem), None),
        (Inttoptr, I32, Ptr(Global), Some("inttoptr to ptr<global> needs i64, got i32")),
        (Inttoptr, I64, I64, Some("inttoptr must give a pointer, got i64")),
    ];
    for &(op, from, to, msg) in cases {
        let (f, i) = with_last(&[from], |c, p| {
            c.convert(op, to, p[0]);
        });
        match msg {
            None => assert_ok(&f, None),
            Some(msg) => assert_inst_error(&f, i, msg),
        }
    }
}

#[test]
fn result_type_matches_instruction_type() {
    let (mut f, b) = device(&[Type::I32], &[]);
    let p = f.dfg.block_params(b)[0];
    let inst = f.append_inst(
        b,
        InstData::Convert {
            opcode: Opcode::Sext,
            ty: Type::I64,
            arg: p,
        },
        &[Type::I32],
    );
    FuncCursor::at_end(&mut f, b).ret(vec![]);
    assert_inst_error(
        &f,
        inst,
        "result type i32 does not match the instruction type i64",
    );
}

#[test]
fn iconst_fits_its_type() {
    use Type::*;
    #[rustfmt::skip]
    let cases: &[(Type, i64, bool)] = &[
        (I1, 0, true),
        (I1, 1, true),
        (I1, -1, false),
        (I1, 2, false),
        (I8, -128, true),
        (I8, 255, true),
        (I8, 256, false),
        (I8, -129, false),
        (I16, 65535, true),
        (I16, -32769, false),
        (I32, 0xffff_ffff, true),
        (I32, -(1 << 31), true),
        (I32, 1 << 32, false),
        (I64, i64::MIN, true),
    ];
    for &(ty, imm, ok) in cases {
        let (f, i) = with_last(&[], |c, _| {
            c.iconst(ty, imm);
        });
        if ok {
            assert_ok(&f, None);
        } else {
            assert_inst_error(&f, i, &format!("iconst {imm} does not fit in {ty}"));
        }
    }
    let (f, i) = with_last(&[], |c, _| {
        c.iconst(F32, 1);
    });
    assert_inst_error(&f, i, "iconst type must be an integer, got f32");
}

#[test]
fn fconst_type_and_value() {
    use Type::*;
    #[rustfmt::skip]
    let cases: &[(Type, f64, bool)] = &[
        (F64, 0.1, true),
        (F32, 0.1, false),
        (F32, 0.5, true),
        (F32, f64::NAN, true),
        (F32, f64::INFINITY, true),
        (F32, 1e39, false),
        (F16, 65504.0, true),
        (F16, 65536.0, false),
        (F16, 2f64.powi(-24), true),
        (F16, 2f64.powi(-25), false),
        (F16, 1.0 + 2f64.powi(-10), true),
        (F16, 1.0 + 2f64.powi(-11), false),
        (BF16, 1.0 + 2f64.powi(-7), true),
        (BF16, 1.0 + 2f64.powi(-8), false),
        (BF16, 3.0e38, false),
    ];
    for &(ty, value, ok) in cases {
        let (f, i) = with_last(&[], |c, _| {
            c.fconst(ty, value);
        });
        if ok {
            assert_ok(&f, None);
        } else {
            let e = errors(&f, None);
            let msg = e.0.first().map(|e| e.kind.to_string()).unwrap_or_default();
            assert!(
                msg.starts_with("fconst ")
                    && msg.ends_with(&format!("is not exactly representable in {ty}")),
                "{ty} {value}: {e}"
            );
            assert_eq!(e.0[0].location, CommentAt::Inst(i));
        }
    }
    let (f, i) = with_last(&[], |c, _| {
        c.fconst(F32, 0.1);
    });
    assert_inst_error(&f, i, "fconst 0.1 is not exactly representable in f32");
    let (f, i) = with_last(&[], |c, _| {
        c.fconst(I32, 1.0);
    });
    assert_inst_error(&f, i, "fconst type must be a float, got i32");
}

#[test]
fn ptroffset_operands() {
    use Type::*;
    let g = Ptr(AddrSpace::Global);
    let (f, i) = with_last(&[I64, I64], |c, p| {
        c.ptroffset(p[0], p[1]);
    });
    assert_inst_error(&f, i, "ptroffset needs a pointer operand, got i64");
    let (f, i) = with_last(&[g, I16], |c, p| {
        c.ptroffset(p[0], p[1]);
    });
    assert_inst_error(&f, i, "ptroffset offset must be i64 or i32, got i16");
    let (f, _) = with_last(&[g, I32], |c, p| {
        c.ptroffset(p[0], p[1]);
    });
    assert_ok(&f, None);
    let (mut f, b) = device(&[g, I64], &[]);
    let p = f.dfg.block_params(b).to_vec();
    let inst = f.append_inst(
        b,
        InstData::Binary {
            opcode: Opcode::PtrOffset,
            args: [p[0], p[1]],
        },
        &[I64],
    );
    FuncCursor::at_end(&mut f, b).ret(vec![]);
    assert_inst_error(&f, inst, "ptroffset result must be a pointer, got i64");
}

#[test]
fn load_store_addresses_and_i1() {
    use Type::*;
    let g = Ptr(AddrSpace::Global);
    let (f, i) = with_last(&[I64], |c, p| {
        c.load(I32, p[0], MemFlags::default());
    });
    assert_inst_error(&f, i, "load address must be a pointer, got i64");
    let (f, i) = with_last(&[I32, I64], |c, p| {
        c.store(p[0], p[1], MemFlags::default());
    });
    assert_inst_error(&f, i, "store address must be a pointer, got i64");
    let (f, i) = with_last(&[g], |c, p| {
        c.load(I1, p[0], MemFlags::default());
    });
    assert_inst_error(&f, i, "load of i1; PTX has no predicate memory type");
    let (f, i) = with_last(&[I1, g], |c, p| {
        c.store(p[0], p[1], MemFlags::default());
    });
    assert_inst_error(&f, i, "store of i1; PTX has no predicate memory type");
    // Pointers may be loaded and stored.
    let (f, _) = with_last(&[g, g], |c, p| {
        let q = c.load(g, p[0], MemFlags::default());
        c.store(q, p[1], MemFlags::default());
    });
    assert_ok(&f, None);
}

#[test]
fn call_signature() {
    use Type::*;
    let m = base_module();
    let helper = FuncId::from_u32(0);
    let (f, i) = with_last(&[], |c, _| {
        c.call(helper, vec![], &[I32]);
    });
    assert_module_error(&f, &m, i, "call to @helper takes 1 arguments, got 0");
    let (f, i) = with_last(&[I64], |c, p| {
        c.call(helper, vec![p[0]], &[I64]);
    });
    assert_module_error(
        &f,
        &m,
        i,
        "argument 0 of call to @helper has type i64, expected i32",
    );
    assert_module_error(
        &f,
        &m,
        i,
        "result 0 of call to @helper has type i64, expected i32",
    );
    let (f, i) = with_last(&[I32], |c, p| {
        c.call(helper, vec![p[0]], &[]);
    });
    assert_module_error(&f, &m, i, "expected 1 results, got 0");
    // Without a module, calls are not checked.
    assert_ok(&f, None);
}

#[test]
fn return_matches_signature() {
    use Type::*;
    let (mut f, b) = device(&[I64], &[I32]);
    let p = f.dfg.block_params(b)[0];
    let inst = FuncCursor::at_end(&mut f, b).ret(vec![p]);
    assert_inst_error(&f, inst, "return value 0 has type i64, signature says i32");
    let (mut f, b) = device(&[], &[I32]);
    let inst = FuncCursor::at_end(&mut f, b).ret(vec![]);
    assert_inst_error(&f, inst, "return gives 0 values, signature returns 1");
}

#[test]
fn branch_argument_types() {
    let (mut f, b0) = device(&[Type::I64], &[]);
    let b1 = f.dfg.make_block();
    let q = f.dfg.append_block_param(b1, Type::I32);
    f.layout.append_block(b1);
    let p = f.dfg.block_params(b0)[0];
    let inst = FuncCursor::at_end(&mut f, b0).jump(b1, vec![p]);
    FuncCursor::at_end(&mut f, b1).ret(vec![]);
    assert_inst_error(
        &f,
        inst,
        &format!("argument 0 to block1 has type i64, parameter {q} is i32"),
    );
}

#[test]
fn special_register_is_i32() {
    let (mut f, b) = device(&[], &[]);
    let inst = f.append_inst(
        b,
        InstData::SpecialReg {
            reg: SpecialReg::TidX,
        },
        &[Type::I64],
    );
    FuncCursor::at_end(&mut f, b).ret(vec![]);
    assert_inst_error(&f, inst, "special result must be i32, got i64");
}

#[test]
fn global_addr_type() {
    let m = base_module();
    let (f, i) = with_last(&[], |c, _| {
        c.global_addr(AddrSpace::Global, GlobalVar::from_u32(0));
    });
    assert_module_error(
        &f,
        &m,
        i,
        "global_addr of gv0 must give ptr<shared>, got ptr<global>",
    );
    assert_ok(&f, None);
    let (mut f, b) = device(&[], &[]);
    let inst = f.append_inst(
        b,
        InstData::GlobalAddr {
            gv: GlobalVar::from_u32(0),
        },
        &[Type::I64],
    );
    FuncCursor::at_end(&mut f, b).ret(vec![]);
    assert_inst_error(&f, inst, "global_addr result must be a pointer, got i64");
}

#[test]
fn stack_addr_is_local() {
    let (mut f, b) = device(&[], &[]);
    let ss = f.stack_slots.push(StackSlotData { size: 4, align: 4 });
    let inst = f.append_inst(
        b,
        InstData::StackAddr { slot: ss },
        &[Type::Ptr(AddrSpace::Generic)],
    );
    FuncCursor::at_end(&mut f, b).ret(vec![]);
    assert_inst_error(
        &f,
        inst,
        "stack_addr result must be ptr<local>, got ptr<generic>",
    );
}

#[test]
fn addrspacecast_operand_is_pointer() {
    let (f, i) = with_last(&[Type::I64], |c, p| {
        c.addrspacecast(AddrSpace::Generic, p[0]);
    });
    assert_inst_error(&f, i, "addrspacecast needs a pointer operand, got i64");
}

// ---------------------------------------------------------------- phase 5

#[test]
fn ptroffset_keeps_address_space() {
    use AddrSpace::*;
    let (mut f, b) = device(&[Type::Ptr(Global), Type::I64], &[]);
    let p = f.dfg.block_params(b).to_vec();
    let inst = f.append_inst(
        b,
        InstData::Binary {
            opcode: Opcode::PtrOffset,
            args: [p[0], p[1]],
        },
        &[Type::Ptr(Shared)],
    );
    FuncCursor::at_end(&mut f, b).ret(vec![]);
    assert_inst_error(
        &f,
        inst,
        "ptroffset changes the address space from global to shared",
    );
}

#[test]
fn addrspacecast_has_one_generic_side() {
    use AddrSpace::*;
    #[rustfmt::skip]
    let cases: &[(AddrSpace, AddrSpace, Option<&str>)] = &[
        (Global, Generic, None),
        (Generic, Shared, None),
        (Local, Generic, None),
        (Generic, SharedCluster, None),
        (Global, Shared, Some("addrspacecast from global to shared: one side must be generic")),
        (Shared, Shared, Some("addrspacecast from shared to itself")),
        (Generic, Generic, Some("addrspacecast from generic to itself")),
        (Tmem, Generic, Some("addrspacecast from tmem to generic: tmem has no generic form")),
        (Generic, Tmem, Some("addrspacecast from generic to tmem: tmem has no generic form")),
    ];
    for &(from, to, msg) in cases {
        let (f, i) = with_last(&[Type::Ptr(from)], |c, p| {
            c.addrspacecast(to, p[0]);
        });
        match msg {
            None => assert_ok(&f, None),
            Some(msg) => assert_inst_error(&f, i, msg),
        }
    }
}

#[test]
fn memory_access_by_space() {
    use AddrSpace::*;
    let tmem = Type::Ptr(Tmem);
    let (f, i) = with_last(&[tmem], |c, p| {
        c.load(Type::I32, p[0], MemFlags::default());
    });
    assert_inst_error(
        &f,
        i,
        "load through ptr<tmem>; tmem has no ordinary loads and stores",
    );
    let (f, i) = with_last(&[Type::I32, tmem], |c, p| {
        c.store(p[0], p[1], MemFlags::default());
    });
    assert_inst_error(
        &f,
        i,
        "store through ptr<tmem>; tmem has no ordinary loads and stores",
    );
    for space in [Const, Param] {
        let (f, i) = with_last(&[Type::I32, Type::Ptr(space)], |c, p| {
            c.store(p[0], p[1], MemFlags::default());
        });
        assert_inst_error(
            &f,
            i,
            &format!("store through ptr<{space}>; {space} memory is read-only"),
        );
        let (f, _) = with_last(&[Type::Ptr(space)], |c, p| {
            c.load(Type::I32, p[0], MemFlags::default());
        });
        assert_ok(&f, None);
    }
}

#[test]
fn kernels_cannot_be_called() {
    let m = base_module();
    let (f, i) = with_last(&[], |c, _| {
        c.call(FuncId::from_u32(1), vec![], &[]);
    });
    assert_module_error(&f, &m, i, "call to kernel @k");
}

#[test]
fn kernel_signature_rules() {
    use AddrSpace::*;
    let kernel = |params: &[Type], returns: &[Type]| {
        let (mut f, b) = func_of(FuncKind::Kernel, params, returns);
        FuncCursor::at_end(&mut f, b).trap();
        f
    };
    let f = kernel(&[], &[Type::I32]);
    assert_func_error(&f, "kernel must not return values");

    let mut f = kernel(&[Type::Ptr(Generic)], &[]);
    f.signature.params[0].attrs.byval = Some((16, 8));
    assert_func_error(
        &f,
        "byval parameter 0 of a kernel must be ptr<param>, got ptr<generic>",
    );
    f.signature.params[0].attrs.byval = Some((16, 3));
    assert_func_error(&f, "byval parameter 0 alignment 3 is not a power of two");

    let mut f = kernel(&[Type::I32], &[]);
    f.signature.params[0].attrs.restrict = true;
    f.signature.params[0].attrs.noalias = true;
    assert_func_error(&f, "restrict parameter 0 is not a pointer");
    assert_func_error(&f, "noalias parameter 0 is not a pointer");

    let mut f = kernel(&[], &[]);
    f.attrs.launch_bounds = Some((0, None));
    assert_func_error(&f, "launch_bounds max threads must be positive");

    let (mut f, b) = device(&[Type::I32], &[]);
    FuncCursor::at_end(&mut f, b).trap();
    f.signature.params[0].attrs.grid_constant = true;
    f.signature.params[0].attrs.byval = Some((4, 4));
    f.attrs.launch_bounds = Some((128, None));
    assert_func_error(&f, "grid_constant parameter 0 in a device function");
    assert_func_error(&f, "byval parameter 0 must be a pointer, got i32");
    assert_func_error(&f, "launch_bounds on a device function");
}

#[test]
fn stack_slot_alignment() {
    let (mut f, b) = device(&[], &[]);
    FuncCursor::at_end(&mut f, b).ret(vec![]);
    f.stack_slots.push(StackSlotData { size: 4, align: 6 });
    assert_func_error(&f, "ss0 alignment 6 is not a power of two");
}

// ---------------------------------------------------------------- module

#[test]
fn module_rules() {
    assert_eq!(verify_module(&base_module()), Ok(()));

    let mut m = base_module();
    let mut dup = m.functions[FuncId::from_u32(0)].clone();
    dup.name = "k".into();
    let dup_id = m.push_function(dup);
    let errs = verify_module(&m).unwrap_err();
    assert_eq!(errs.len(), 1);
    assert_eq!(errs[0].0, dup_id);
    assert!(errs[0]
        .1
        .has(CommentAt::Function, "duplicate function name @k (also fn1)"));

    let mut m = base_module();
    m.push_global(global("tile", AddrSpace::Global, 4));
    let mut bad_dyn = global("dyn2", AddrSpace::Global, 16);
    bad_dyn.dynamic = true;
    m.push_global(bad_dyn);
    m.push_global(global("loc", AddrSpace::Local, 4));
    let mut init_shared = global("s", AddrSpace::Shared, 4);
    init_shared.init = Some(vec![0; 4]);
    m.push_global(init_shared);
    let mut big_init = global("c", AddrSpace::Const, 2);
    big_init.init = Some(vec![0; 4]);
    big_init.align = 12;
    m.push_global(big_init);
    let mut managed_shared = global("ms", AddrSpace::Shared, 4);
    managed_shared.managed = true;
    m.push_global(managed_shared);
    let errs = verify_module(&m).unwrap_err();
    assert_eq!(errs.len(), 1);
    assert_eq!(errs[0].0, module_errors_key());
    let msgs: Vec<String> = errs[0].1 .0.iter().map(|e| e.kind.to_string()).collect();
    assert_eq!(
        msgs,
        [
            "duplicate variable name @tile (gv3 and gv0)",
            "dynamic gv4 must be in shared space",
            "dynamic gv4 must have size 0",
            "gv5 cannot live in local space",
            "gv6 is shared and cannot have an initializer",
            "gv7 alignment 12 is not a power of two",
            "gv7 initializer has 4 bytes, size is 2",
            "managed gv8 must be a sized global",
        ]
    );
}

#[test]
fn module_checks_relocations() {
    // base_module: gv0 shared, gv1 const, fn0 device, fn1 kernel.
    let reloc = |offset, target, addend| Reloc {
        offset,
        target,
        addend,
    };
    let mut ok = global("ok", AddrSpace::Global, 24);
    ok.align = 8;
    ok.init = Some(vec![0; 24]);
    ok.relocs = vec![
        reloc(0, RelocTarget::Global(GlobalVar::from_u32(1)), 4),
        reloc(8, RelocTarget::Func(FuncId::from_u32(0)), 0),
        reloc(16, RelocTarget::Global(GlobalVar::from_u32(3)), 0),
    ];
    let mut m = base_module();
    m.push_global(ok.clone());
    assert_eq!(verify_module(&m), Ok(()));
    let mut bad = ok;
    bad.name = "bad".into();
    bad.relocs = vec![
        reloc(0, RelocTarget::Global(GlobalVar::from_u32(0)), 0),
        reloc(4, RelocTarget::Func(FuncId::from_u32(1)), 0),
        reloc(12, RelocTarget::Func(FuncId::from_u32(0)), 8),
        reloc(20, RelocTarget::Global(GlobalVar::from_u32(9)), 0),
    ];
    m.push_global(bad);
    let errs = verify_module(&m).unwrap_err();
    let msgs: Vec<String> = errs[0].1 .0.iter().map(|e| e.kind.to_string()).collect();
    assert_eq!(
        msgs,
        [
            "relocation at offset 0 of gv4: the target is not in global or constant memory",
            "relocation at offset 4 of gv4 is outside its initializer or overlaps another",
            "relocation at offset 4 of gv4: the target is a kernel",
            "relocation at offset 12 of gv4: a function's address takes no addend",
            "relocation at offset 20 of gv4 is outside its initializer or overlaps another",
            "relocation at offset 20 of gv4: no such variable",
        ]
    );
}

#[test]
fn module_checks_call_targets() {
    let mut m = base_module();
    let (f, i) = with_last(&[], |c, _| {
        c.call(FuncId::from_u32(17), vec![], &[]);
    });
    let id = m.push_function(f);
    let errs = verify_module(&m).unwrap_err();
    assert_eq!(errs[0].0, id);
    assert!(errs[0].1.has(CommentAt::Inst(i), "invalid function fn17"));
}

// ---------------------------------------------------------------- reporting

#[test]
fn several_errors_are_collected_in_order() {
    let (mut f, b0) = device(&[Type::I32], &[]);
    let b1 = f.dfg.make_block();
    f.layout.append_block(b1);
    let p = f.dfg.block_params(b0)[0];
    let mut c = FuncCursor::at_end(&mut f, b0);
    let x = c.fconst(Type::F32, 2.0);
    let bad_add = c.iadd(x, x);
    let bad_ptr = c.load(Type::I32, p, MemFlags::default());
    let jump = c.jump(b0, vec![]);
    let (ai, li) = (def_inst(&f, bad_add), def_inst(&f, bad_ptr));
    let e = errors(&f, None);
    let expected = vec![
        (CommentAt::Block(b1), "empty block".to_string()),
        (
            CommentAt::Inst(jump),
            "branch to the entry block block0".to_string(),
        ),
        (
            CommentAt::Inst(jump),
            "block0 takes 1 arguments, got 0".to_string(),
        ),
        (
            CommentAt::Inst(ai),
            "iadd needs integer operands, got f32".to_string(),
        ),
        (
            CommentAt::Inst(li),
            "load address must be a pointer, got i32".to_string(),
        ),
    ];
    let got: Vec<(CommentAt, String)> =
        e.0.iter()
            .map(|e| (e.location, e.kind.to_string()))
            .collect();
    assert_eq!(got, expected);
    assert_eq!(
        e.to_string(),
        "block1: empty block\n\
         inst3: branch to the entry block block0\n\
         inst3: block0 takes 1 arguments, got 0\n\
         inst1: iadd needs integer operands, got f32\n\
         inst2: load address must be a pointer, got i32\n"
    );
}

#[test]
fn annotate_prints_errors_under_entities() {
    let (mut f, b) = device(&[Type::I64], &[Type::I32]);
    let p = f.dfg.block_params(b)[0];
    let mut c = FuncCursor::at_end(&mut f, b);
    c.iconst(Type::I8, 300);
    c.ret(vec![p]);
    f.signature.params[0].attrs.grid_constant = true;
    let e = errors(&f, None);
    let expected = "\
device external @f(i64 grid_constant) -> i32 {
    ; error: grid_constant parameter 0 in a device function
block0(v0: i64):
    v1 = iconst.i8 300
    ; error: iconst 300 does not fit in i8
    return v0
    ; error: return value 0 has type i64, signature says i32
}
";
    assert_eq!(e.annotate(&f, None), expected);
}

#[test]
fn errors_on_unprinted_entities_go_under_the_function() {
    let (mut f, b) = device(&[], &[]);
    FuncCursor::at_end(&mut f, b).ret(vec![]);
    f.layout.append_inst(Inst::from_u32(40), b);
    let e = errors(&f, None);
    let text = e.annotate(&f, None);
    assert_eq!(
        text,
        "\
device external @f() {
block0:
; error: layout holds invalid instruction inst40
    return
}
"
    );
}
