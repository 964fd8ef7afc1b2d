//! Whole kernels, built as IR the way the frontend would, compiled to PTX
//! and checked with ptxas for sm_80 and sm_90.

mod common;

use common::*;
use midend::builder::InstBuilder;
use midend::ir::*;
use midend::ssa::{FunctionBuilder, Variable};

/// `i = blockIdx.x * blockDim.x + threadIdx.x`.
fn global_index(b: &mut FunctionBuilder) -> Value {
    let ctaid = b.special(SpecialReg::CtaidX);
    let ntid = b.special(SpecialReg::NtidX);
    let tid = b.special(SpecialReg::TidX);
    let base = b.imul(ctaid, ntid);
    b.iadd(base, tid)
}

/// `&p[i]` for 4-byte elements: `p + sext(i) * 4`.
fn elem_addr(b: &mut FunctionBuilder, p: Value, i: Value) -> Value {
    let wide = b.convert(Opcode::Sext, Type::I64, i);
    let four = b.iconst(Type::I64, 4);
    let off = b.imul(wide, four);
    b.ptroffset(p, off)
}

/// `__global__ void vadd(const float *a, const float *b, float *c, int n)
///  { int i = ...; if (i < n) c[i] = a[i] + b[i]; }`
fn vadd() -> Module {
    let mut f = kernel("vadd", &[GLOBAL, GLOBAL, GLOBAL, Type::I32]);
    let mut b = FunctionBuilder::new(&mut f);
    let (entry, body, exit) = (b.create_block(), b.create_block(), b.create_block());
    b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    let p = b.func.params().to_vec();
    let i = global_index(&mut b);
    let inb = b.icmp(IntCC::Slt, i, p[3]);
    b.brif(inb, body, vec![], exit, vec![]);
    b.switch_to_block(body);
    let pa = elem_addr(&mut b, p[0], i);
    let pb = elem_addr(&mut b, p[1], i);
    let pc = elem_addr(&mut b, p[2], i);
    let va = b.load(Type::F32, pa, plain());
    let vb = b.load(Type::F32, pb, plain());
    let s = b.fadd(va, vb);
    b.store(s, pc, plain());
    b.jump(exit, vec![]);
    b.switch_to_block(exit);
    b.ret(vec![]);
    b.seal_all_blocks();
    b.finalize();
    let mut m = Module::new();
    m.push_function(f);
    m
}

#[test]
fn vector_add() {
    let ptx = compile_and_check(&vadd());
    assert_contains(
        &ptx,
        &[
            ".version 7.0\n.target sm_80\n.address_size 64\n",
            ".visible .entry vadd(",
            ".param .u64 vadd_param_0",
            ".param .u32 vadd_param_3",
            "ld.param.u64 %rd1, [vadd_param_0];",
            "cvta.to.global.u64 %rd2, %rd1;",
            "mov.u32 %r2, %ctaid.x;",
            "cvta.to.global.u64 %rd2, %rd1;",
            "mul.lo.s32",
            "setp.lt.s32 %p1",
            "@!%p1 bra $L__BB0_2;",
            // `sext` then `* 4` is one widening multiply, as nvcc emits it.
            "mul.wide.s32",
            "ld.global.f32",
            "add.f32",
            "st.global.f32",
            "ret;",
        ],
    );
    // The writer is deterministic.
    assert_eq!(ptx, compile_for(&vadd(), "sm_80"));
}

/// `saxpy(int n, float a, const float *__restrict__ x, float *y)` with a
/// grid-stride loop: `for (i = ...; i < n; i += blockDim.x * gridDim.x)
/// y[i] = a * x[i] + y[i];`.
#[test]
fn saxpy_grid_stride_loop() {
    let mut f = kernel("saxpy", &[Type::I32, Type::F32, GLOBAL, GLOBAL]);
    let mut b = FunctionBuilder::new(&mut f);
    let iv = Variable::from_u32(0);
    b.declare_var(iv, Type::I32);
    let (entry, header, body, exit) = (
        b.create_block(),
        b.create_block(),
        b.create_block(),
        b.create_block(),
    );
    b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    b.seal_block(entry);
    let p = b.func.params().to_vec();
    let i0 = global_index(&mut b);
    b.def_var(iv, i0);
    let ntid = b.special(SpecialReg::NtidX);
    let nctaid = b.special(SpecialReg::NctaidX);
    let stride = b.imul(ntid, nctaid);
    b.jump(header, vec![]);

    b.switch_to_block(header);
    let i = b.use_var(iv);
    let c = b.icmp(IntCC::Slt, i, p[0]);
    b.brif(c, body, vec![], exit, vec![]);

    b.switch_to_block(body);
    b.seal_block(body);
    let i = b.use_var(iv);
    let px = elem_addr(&mut b, p[2], i);
    let py = elem_addr(&mut b, p[3], i);
    let invariant = MemFlags {
        invariant: true,
        ..MemFlags::default()
    };
    let x = b.load(Type::F32, px, invariant);
    let y = b.load(Type::F32, py, plain());
    let r = b.fma(p[1], x, y);
    b.store(r, py, plain());
    let next = b.iadd(i, stride);
    b.def_var(iv, next);
    b.jump(header, vec![]);
    b.seal_block(header);

    b.switch_to_block(exit);
    b.seal_block(exit);
    b.ret(vec![]);
    b.finalize();
    // The loop variable became a header parameter.
    assert_eq!(f.dfg.block_params(header).len(), 1);
    let mut m = Module::new();
    m.push_function(f);
    let ptx = compile_and_check(&m);
    assert_contains(
        &ptx,
        &[
            "ld.param.f32 %f1, [saxpy_param_1];",
            "mov.u32 %r8, %nctaid.x;",
            "mov.b32 %r10, %r11;",
            "ld.global.nc.f32",
            "fma.rn.f32",
            "$L__BB0_1:",
            "bra $L__BB0_1;",
        ],
    );
}

/// Nested loops with an `i32` accumulator, float math with a division,
/// conversions and a select:
/// ```c
/// int acc = 0; float s = 0;
/// for (int i = 0; i < n; i++)
///   for (int j = 0; j < n; j++) {
///     if ((i + j) % 3 == 0) acc += i * j; else acc -= j;
///     s += (float)acc / (float)(j + 1);
///   }
/// out[tid] = acc > 0 ? s : -s;  iout[tid] = (int)s;  dout[tid] = (double)s;
/// ```
#[test]
fn nested_loops_branches_and_conversions() {
    let f64ptr = GLOBAL;
    let mut f = kernel("nested", &[GLOBAL, GLOBAL, f64ptr, Type::I32]);
    let mut b = FunctionBuilder::new(&mut f);
    let (acc, s, i, j) = (
        Variable::from_u32(0),
        Variable::from_u32(1),
        Variable::from_u32(2),
        Variable::from_u32(3),
    );
    for v in [acc, i, j] {
        b.declare_var(v, Type::I32);
    }
    b.declare_var(s, Type::F32);
    let entry = b.create_block();
    let outer = b.create_block();
    let outer_body = b.create_block();
    let inner = b.create_block();
    let inner_body = b.create_block();
    let then_b = b.create_block();
    let else_b = b.create_block();
    let join = b.create_block();
    let outer_latch = b.create_block();
    let exit = b.create_block();

    b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    b.seal_block(entry);
    let p = b.func.params().to_vec();
    let zero = b.iconst(Type::I32, 0);
    let fzero = b.fconst(Type::F32, 0.0);
    b.def_var(acc, zero);
    b.def_var(s, fzero);
    b.def_var(i, zero);
    b.jump(outer, vec![]);

    b.switch_to_block(outer);
    let iv = b.use_var(i);
    let c = b.icmp(IntCC::Slt, iv, p[3]);
    b.brif(c, outer_body, vec![], exit, vec![]);

    b.switch_to_block(outer_body);
    b.seal_block(outer_body);
    let zero = b.iconst(Type::I32, 0);
    b.def_var(j, zero);
    b.jump(inner, vec![]);

    b.switch_to_block(inner);
    let jv = b.use_var(j);
    let c = b.icmp(IntCC::Slt, jv, p[3]);
    b.brif(c, inner_body, vec![], outer_latch, vec![]);

    b.switch_to_block(inner_body);
    b.seal_block(inner_body);
    let iv = b.use_var(i);
    let jv = b.use_var(j);
    let sum = b.iadd(iv, jv);
    let three = b.iconst(Type::I32, 3);
    let rem = b.binary(Opcode::Srem, sum, three);
    let zero = b.iconst(Type::I32, 0);
    let c = b.icmp(IntCC::Eq, rem, zero);
    b.brif(c, then_b, vec![], else_b, vec![]);

    b.switch_to_block(then_b);
    b.seal_block(then_b);
    let a = b.use_var(acc);
    let iv = b.use_var(i);
    let jv = b.use_var(j);
    let prod = b.imul(iv, jv);
    let a2 = b.iadd(a, prod);
    b.def_var(acc, a2);
    b.jump(join, vec![]);

    b.switch_to_block(else_b);
    b.seal_block(else_b);
    let a = b.use_var(acc);
    let jv = b.use_var(j);
    let a2 = b.isub(a, jv);
    b.def_var(acc, a2);
    b.jump(join, vec![]);

    b.switch_to_block(join);
    b.seal_block(join);
    let a = b.use_var(acc);
    let af = b.convert(Opcode::Sitofp, Type::F32, a);
    let jv = b.use_var(j);
    let one = b.iconst(Type::I32, 1);
    let j1 = b.iadd(jv, one);
    let jf = b.convert(Opcode::Sitofp, Type::F32, j1);
    let q = b.binary(Opcode::Fdiv, af, jf);
    let sv = b.use_var(s);
    let s2 = b.fadd(sv, q);
    b.def_var(s, s2);
    b.def_var(j, j1);
    b.jump(inner, vec![]);
    b.seal_block(inner);

    b.switch_to_block(outer_latch);
    b.seal_block(outer_latch);
    let iv = b.use_var(i);
    let one = b.iconst(Type::I32, 1);
    let i1 = b.iadd(iv, one);
    b.def_var(i, i1);
    b.jump(outer, vec![]);
    b.seal_block(outer);

    b.switch_to_block(exit);
    b.seal_block(exit);
    let a = b.use_var(acc);
    let sv = b.use_var(s);
    let zero = b.iconst(Type::I32, 0);
    let pos = b.icmp(IntCC::Sgt, a, zero);
    let neg = b.unary(Opcode::Fneg, sv);
    let r = b.select(pos, sv, neg);
    let tid = b.special(SpecialReg::TidX);
    let pout = elem_addr(&mut b, p[0], tid);
    b.store(r, pout, plain());
    let si = b.convert(Opcode::Fptosi, Type::I32, sv);
    let piout = elem_addr(&mut b, p[1], tid);
    b.store(si, piout, plain());
    let d = b.convert(Opcode::Fpext, Type::F64, sv);
    let wide = b.convert(Opcode::Zext, Type::I64, tid);
    let eight = b.iconst(Type::I64, 8);
    let off = b.imul(wide, eight);
    let pd = b.ptroffset(p[2], off);
    b.store(d, pd, plain());
    b.ret(vec![]);
    b.finalize();

    let mut m = Module::new();
    m.push_function(f);
    let ptx = compile_and_check(&m);
    assert_contains(
        &ptx,
        &[
            "rem.s32",
            "cvt.rn.f32.s32",
            "div.rn.f32",
            "neg.f32",
            "selp.f32",
            "cvt.rzi.s32.f32",
            "cvt.f64.f32",
            "mul.wide.u32",
            "st.global.f64",
            "setp.gt.s32",
        ],
    );
}

/// A kernel calling an internal device function that returns `f32`:
/// `static __device__ float scale(float x, const float *p) { return x * p[0]; }`.
#[test]
fn kernel_calls_device_function() {
    let mut m = Module::new();
    let mut g = device(
        "scale",
        &[Type::F32, GLOBAL],
        &[Type::F32],
        Linkage::Internal,
    );
    {
        let mut b = FunctionBuilder::new(&mut g);
        let entry = b.create_block();
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        let p = b.func.params().to_vec();
        let k = b.load(Type::F32, p[1], plain());
        let r = b.fmul(p[0], k);
        b.ret(vec![r]);
        b.seal_all_blocks();
        b.finalize();
    }
    // The kernel comes first in the module; the writer still prints the
    // device function before it.
    let mut k = kernel("use_scale", &[GLOBAL, GLOBAL]);
    let scale_id = FuncId::from_u32(1);
    {
        let mut b = FunctionBuilder::new(&mut k);
        let entry = b.create_block();
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        let p = b.func.params().to_vec();
        let tid = b.special(SpecialReg::TidX);
        let pin = elem_addr(&mut b, p[0], tid);
        let x = b.load(Type::F32, pin, plain());
        let call = b.call(scale_id, vec![x, p[1]], &[Type::F32]);
        let r = b.func.dfg.first_result(call).unwrap();
        b.store(r, pin, plain());
        b.ret(vec![]);
        b.seal_all_blocks();
        b.finalize();
    }
    m.push_function(k);
    assert_eq!(m.push_function(g), scale_id);
    let ptx = compile_and_check(&m);
    assert_contains(
        &ptx,
        &[
            ".func (.param .b32 func_retval0) scale(",
            ".param .b64 scale_param_1",
            "ld.param.f32 %f1, [scale_param_0];",
            "st.param.f32 [func_retval0], %f3;",
            ".param .b32 param0;",
            "st.param.f32 [param0], %f1;",
            ".param .b32 retval0;",
            "call.uni (retval0), scale, (param0, param1);",
            "ld.param.f32 %f2, [retval0];",
        ],
    );
    assert!(!ptx.contains(".visible .func"), "internal linkage:\n{ptx}");
    assert!(ptx.find(".func").unwrap() < ptx.find(".entry").unwrap());
}

/// A device function calling another one printed later gets a declaration.
#[test]
fn forward_declaration_for_later_callee() {
    let mut m = Module::new();
    let callee_id = FuncId::from_u32(1);
    let mut caller = device("caller", &[Type::I32], &[Type::I32], Linkage::External);
    {
        let mut b = FunctionBuilder::new(&mut caller);
        let entry = b.create_block();
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        let x = b.func.params()[0];
        let call = b.call(callee_id, vec![x], &[Type::I32]);
        let r = b.func.dfg.first_result(call).unwrap();
        b.ret(vec![r]);
        b.seal_all_blocks();
        b.finalize();
    }
    let mut callee = device("callee", &[Type::I32], &[Type::I32], Linkage::External);
    {
        let mut b = FunctionBuilder::new(&mut callee);
        let entry = b.create_block();
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        let x = b.func.params()[0];
        let one = b.iconst(Type::I32, 1);
        let r = b.iadd(x, one);
        b.ret(vec![r]);
        b.seal_all_blocks();
        b.finalize();
    }
    m.push_function(caller);
    m.push_function(callee);
    let ptx = compile_and_check(&m);
    assert_contains(
        &ptx,
        &[
            ".visible .func (.param .b32 func_retval0) callee(\n\t.param .b32 callee_param_0\n);",
            "add.s32 %r2, %r1, 1;",
        ],
    );
}

/// `__shared__ float tile[256];` `tile[t] = in[t]; __syncthreads();
/// out[t] = tile[255 - t] + *(float *)generic_alias_of(&tile[0]);`
#[test]
fn shared_memory_tile() {
    let mut m = Module::new();
    let tile = m.push_global(GlobalVarData {
        name: "tile".into(),
        space: AddrSpace::Shared,
        size: 1024,
        align: 4,
        init: None,
        linkage: Linkage::Internal,
        dynamic: false,
        managed: false,
        relocs: Vec::new(),
    });
    let mut f = kernel("reverse", &[GLOBAL, GLOBAL]);
    let mut b = FunctionBuilder::new(&mut f);
    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    let p = b.func.params().to_vec();
    let t = b.special(SpecialReg::TidX);
    let pin = elem_addr(&mut b, p[0], t);
    let v = b.load(Type::F32, pin, plain());
    let base = b.global_addr(AddrSpace::Shared, tile);
    let four = b.iconst(Type::I32, 4);
    let off = b.imul(t, four);
    let slot = b.ptroffset(base, off);
    b.store(v, slot, plain());
    b.barrier();
    let k255 = b.iconst(Type::I32, 255);
    let rt = b.isub(k255, t);
    let roff = b.imul(rt, four);
    let rslot = b.ptroffset(base, roff);
    let w = b.load(Type::F32, rslot, plain());
    // The first element through a generic pointer, and a constant offset
    // folded into a `[tile+8]` address.
    let gen = b.addrspacecast(AddrSpace::Generic, base);
    let first = b.load(Type::F32, gen, plain());
    let eight = b.iconst(Type::I32, 8);
    let third = b.ptroffset(base, eight);
    let z = b.load(Type::F32, third, plain());
    let back = b.addrspacecast(AddrSpace::Shared, gen);
    b.store(z, back, plain());
    let s = b.fadd(w, first);
    let pout = elem_addr(&mut b, p[1], t);
    b.store(s, pout, plain());
    b.ret(vec![]);
    b.seal_all_blocks();
    b.finalize();
    m.push_function(f);
    let ptx = compile_and_check(&m);
    assert_contains(
        &ptx,
        &[
            ".shared .align 4 .b8 tile[1024];",
            "mov.u32 %r2, tile;",
            "st.shared.f32 [%r",
            "bar.sync 0;",
            "ld.shared.f32 %f",
            "ld.shared.f32 %f4, [tile+8];",
            "cvta.shared.u64",
            "cvta.to.shared.u64",
            "cvt.u32.u64",
            "ld.f32 %f3, [%rd",
        ],
    );
}

/// `for (..) { swap(a, b); }`: the back edge passes the header's
/// parameters crosswise, which needs a temporary.
#[test]
fn loop_with_swapped_block_arguments() {
    let mut f = kernel("swap", &[GLOBAL, Type::I32]);
    let mut b = FunctionBuilder::new(&mut f);
    let entry = b.create_block();
    let header = b.create_block();
    let exit = b.create_block();
    b.append_block_params_for_function_params(entry);
    let x = b.append_block_param(header, Type::I32);
    let y = b.append_block_param(header, Type::I32);
    let n = b.append_block_param(header, Type::I32);
    b.switch_to_block(entry);
    let p = b.func.params().to_vec();
    let one = b.iconst(Type::I32, 1);
    let two = b.iconst(Type::I32, 2);
    b.jump(header, vec![one, two, p[1]]);
    b.switch_to_block(header);
    let zero = b.iconst(Type::I32, 0);
    let more = b.icmp(IntCC::Sgt, n, zero);
    let n1 = b.isub(n, one);
    b.brif(more, header, vec![y, x, n1], exit, vec![]);
    b.switch_to_block(exit);
    let d = b.isub(x, y);
    b.store(d, p[0], plain());
    b.ret(vec![]);
    b.seal_all_blocks();
    b.finalize();
    let mut m = Module::new();
    m.push_function(f);
    let ptx = compile_and_check(&m);
    // Only the back edge has copies: the branch leaves the loop when the
    // test fails, and the copies follow it, before the jump back.
    assert_contains(&ptx, &["@!%p1 bra $L__BB0_2;", "bra $L__BB0_1;"]);
    assert!(!ptx.contains("$L__edge"), "no stub is needed:\n{ptx}");
    let body = &ptx[ptx.find("@!%p1 bra $L__BB0_2;").unwrap()..];
    let movs = body.lines().filter(|l| l.contains("mov.b32")).count();
    assert_eq!(movs, 4, "swap needs one temporary:\n{ptx}");
}

#[test]
fn launch_bounds_and_ptx_version_override() {
    let mut m = vadd();
    let id = m.function_by_name("vadd").unwrap();
    m.functions[id].attrs.launch_bounds = Some((256, Some(2)));
    let ptx = compile_and_check(&m);
    assert_contains(&ptx, &[")\n.maxntid 256, 1, 1\n.minnctapersm 2\n{"]);

    let mut opts = backend_nvptx::Options::new(backend_nvptx::Target::parse("sm_90").unwrap());
    opts.ptx_version = Some((8, 0));
    let ptx = backend_nvptx::compile_module(&m, &opts).unwrap();
    assert!(ptx.contains(".version 8.0\n.target sm_90\n"));
    assert_ptxas_accepts(&ptx, "sm_90");
    opts.ptx_version = Some((7, 5));
    let err = backend_nvptx::compile_module(&m, &opts).unwrap_err();
    assert!(err.to_string().contains("too old"), "{err}");
}

#[test]
fn every_target_gets_its_floor_version() {
    let m = vadd();
    for (name, version) in [
        ("sm_75", "6.3"),
        ("sm_89", "7.8"),
        ("sm_90a", "8.0"),
        ("sm_100a", "8.6"),
        ("sm_103a", "8.8"),
        ("sm_120", "8.7"),
    ] {
        let ptx = compile_for(&m, name);
        assert!(
            ptx.contains(&format!(".version {version}\n.target {name}\n")),
            "{ptx}"
        );
        assert_ptxas_accepts(&ptx, name);
    }
}

/// The high half of a 32 x 32 -> 64-bit product (`__umulhi`'s shape, and
/// `divconst`'s) is one `mul.hi`; when the full product is used too, it
/// stays a `mul.wide` and a shift.
#[test]
fn high_half_of_a_wide_product_is_mul_hi() {
    let text = "kernel external @k(i32, i32, ptr<global>, ptr<global>, ptr<global>) {
block0(v0: i32, v1: i32, v2: ptr<global>, v3: ptr<global>, v4: ptr<global>):
    v5 = zext.i64 v0
    v6 = zext.i64 v1
    v7 = imul v5, v6
    v8 = iconst.i64 32
    v9 = ushr v7, v8
    v10 = trunc.i32 v9
    store v10, v2
    v11 = sext.i64 v0
    v12 = iconst.i64 -1840700269
    v13 = imul v11, v12
    v14 = ushr v13, v8
    v15 = trunc.i32 v14
    store v15, v3
    v16 = iconst.i64 1717986919
    v17 = imul v11, v16
    v18 = ushr v17, v8
    v19 = trunc.i32 v18
    v20 = trunc.i32 v17
    v21 = iadd v19, v20
    store v21, v4
    return
}
";
    let module = midend::text::parse_module(text).unwrap();
    let ptx = compile_and_check(&module);
    assert_contains(
        &ptx,
        &[
            "mul.hi.u32",
            "mul.hi.s32",
            ", -1840700269;",
            "mul.wide.s32 %rd",
            ", 1717986919;",
        ],
    );
    // The extensions feed only multiplies: none is emitted.
    assert!(
        !ptx.contains("cvt.u64.u32") && !ptx.contains("cvt.s64.s32"),
        "{ptx}"
    );
    assert_eq!(ptx.matches("mul.hi").count(), 2, "{ptx}");
}
