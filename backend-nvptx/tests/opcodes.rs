//! One test per group of opcodes: each builds a kernel that applies the
//! opcodes to its parameters and stores every result to `out`, so nothing
//! is dead, then checks the PTX spelling and that ptxas accepts it.

mod common;

use backend_nvptx::{compile_module, Options, Target};
use common::*;
use midend::builder::InstBuilder;
use midend::ir::*;
use midend::ssa::FunctionBuilder;

/// A kernel `k(out: ptr<global>, params...)` whose single block runs
/// `body` and stores each value it returns to `out + 8*k`.
fn ops_module(
    params: &[Type],
    body: impl FnOnce(&mut FunctionBuilder, &[Value]) -> Vec<Value>,
) -> Module {
    let mut all = vec![GLOBAL];
    all.extend_from_slice(params);
    let mut f = kernel("k", &all);
    let mut b = FunctionBuilder::new(&mut f);
    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    let p = b.func.params().to_vec();
    let results = body(&mut b, &p[1..]);
    for (k, v) in results.into_iter().enumerate() {
        let off = b.iconst(Type::I64, 8 * k as i64);
        let at = b.ptroffset(p[0], off);
        b.store(v, at, plain());
    }
    b.ret(vec![]);
    b.seal_all_blocks();
    b.finalize();
    let mut m = Module::new();
    m.push_function(f);
    m
}

fn check_ops(
    params: &[Type],
    body: impl FnOnce(&mut FunctionBuilder, &[Value]) -> Vec<Value>,
    expect: &[&str],
) -> String {
    let ptx = compile_and_check(&ops_module(params, body));
    assert_contains(&ptx, expect);
    ptx
}

const INT_BINARY: [Opcode; 17] = [
    Opcode::Iadd,
    Opcode::Isub,
    Opcode::Imul,
    Opcode::Sdiv,
    Opcode::Udiv,
    Opcode::Srem,
    Opcode::Urem,
    Opcode::Band,
    Opcode::Bor,
    Opcode::Bxor,
    Opcode::Ishl,
    Opcode::Ushr,
    Opcode::Sshr,
    Opcode::Smin,
    Opcode::Smax,
    Opcode::Umin,
    Opcode::Umax,
];

#[test]
fn integer_arithmetic_i32() {
    check_ops(
        &[Type::I32, Type::I32],
        |b, p| {
            let mut out: Vec<Value> = INT_BINARY
                .iter()
                .map(|&op| b.binary(op, p[0], p[1]))
                .collect();
            let seven = b.iconst(Type::I32, 7);
            out.extend(INT_BINARY.iter().map(|&op| b.binary(op, p[0], seven)));
            out.push(b.unary(Opcode::Ineg, p[0]));
            out.push(b.unary(Opcode::Bnot, p[0]));
            out
        },
        &[
            "add.s32",
            "sub.s32",
            "mul.lo.s32",
            "div.s32",
            "div.u32",
            "rem.s32",
            "rem.u32",
            "and.b32",
            "or.b32",
            "xor.b32",
            "shl.b32",
            "shr.u32",
            "shr.s32",
            "min.s32",
            "max.s32",
            "min.u32",
            "max.u32",
            "neg.s32",
            "not.b32",
            ", 7;",
        ],
    );
}

#[test]
fn integer_arithmetic_i64_i16_i8() {
    check_ops(
        &[
            Type::I64,
            Type::I64,
            Type::I16,
            Type::I16,
            Type::I8,
            Type::I8,
        ],
        |b, p| {
            let mut out = Vec::new();
            for pair in [(p[0], p[1]), (p[2], p[3]), (p[4], p[5])] {
                out.extend(INT_BINARY.iter().map(|&op| b.binary(op, pair.0, pair.1)));
                out.push(b.unary(Opcode::Ineg, pair.0));
                out.push(b.unary(Opcode::Bnot, pair.0));
            }
            out
        },
        &[
            "add.s64",
            "mul.lo.s64",
            "div.u64",
            "shl.b64",
            "shr.s64",
            // A 64-bit shift amount is narrowed: PTX shift amounts are .u32.
            "cvt.u32.u64",
            "add.s16",
            "div.s16",
            "rem.u16",
            "shl.b16",
            "cvt.u32.u16",
            // i8 division widens its operands inside the 16-bit register first.
            "cvt.s16.s8",
            "cvt.u16.u8",
            "cvt.u32.u8",
            "ld.param.u8",
            "st.global.u8",
        ],
    );
}

#[test]
fn boolean_logic() {
    check_ops(
        &[Type::I32, Type::I32],
        |b, p| {
            let x = b.icmp(IntCC::Slt, p[0], p[1]);
            let y = b.icmp(IntCC::Eq, p[0], p[1]);
            let t = b.iconst(Type::I1, 1);
            vec![
                b.binary(Opcode::Band, x, y),
                b.binary(Opcode::Bor, x, y),
                b.binary(Opcode::Bxor, x, t),
                b.unary(Opcode::Bnot, x),
                b.icmp(IntCC::Eq, x, y),
                b.icmp(IntCC::Ne, x, y),
                b.select(x, y, t),
            ]
        },
        &[
            "and.pred",
            "or.pred",
            "xor.pred",
            "not.pred",
            "mov.pred %p",
            ", 1;",
            "selp.u16",
            "st.global.u8",
        ],
    );
}

#[test]
fn float_arithmetic() {
    check_ops(
        &[Type::F32, Type::F32, Type::F64, Type::F64],
        |b, p| {
            let mut out = Vec::new();
            for (x, y) in [(p[0], p[1]), (p[2], p[3])] {
                for op in [
                    Opcode::Fadd,
                    Opcode::Fsub,
                    Opcode::Fmul,
                    Opcode::Fdiv,
                    Opcode::Fmin,
                    Opcode::Fmax,
                ] {
                    out.push(b.binary(op, x, y));
                }
                for op in [Opcode::Fneg, Opcode::Fabs, Opcode::Sqrt] {
                    out.push(b.unary(op, x));
                }
                out.push(b.fma(x, y, x));
            }
            let one = b.fconst(Type::F32, 1.0);
            out.push(b.fadd(p[0], one));
            let two = b.fconst(Type::F64, 2.0);
            out.push(b.fmul(p[2], two));
            out.push(one);
            out
        },
        &[
            "add.f32",
            "sub.f32",
            "mul.f32",
            "div.rn.f32",
            "min.f32",
            "max.f32",
            "neg.f32",
            "abs.f32",
            "sqrt.rn.f32",
            "fma.rn.f32",
            "div.rn.f64",
            "sqrt.rn.f64",
            "fma.rn.f64",
            "0f3F800000",
            "0d4000000000000000",
            "st.global.f64",
        ],
    );
}

#[test]
fn half_precision() {
    let ptx = check_ops(
        &[Type::F16, Type::F16, Type::BF16, Type::F32],
        |b, p| {
            let one = b.fconst(Type::F16, 1.0);
            let s = b.fadd(p[0], one);
            let m = b.fmul(s, p[1]);
            let f = b.fma(m, p[1], p[0]);
            let n = b.unary(Opcode::Fneg, f);
            let a = b.unary(Opcode::Fabs, n);
            let mn = b.binary(Opcode::Fmin, a, p[0]);
            let wide = b.convert(Opcode::Fpext, Type::F32, mn);
            let bw = b.convert(Opcode::Fpext, Type::F32, p[2]);
            let nb = b.convert(Opcode::Fptrunc, Type::BF16, p[3]);
            let nh = b.convert(Opcode::Fptrunc, Type::F16, p[3]);
            let c = b.fcmp(FloatCC::Olt, p[0], p[1]);
            let sel = b.select(c, p[0], one);
            let bits = b.convert(Opcode::Bitcast, Type::I16, sel);
            let half_bf = b.fconst(Type::BF16, 1.5);
            vec![wide, bw, nb, nh, bits, half_bf]
        },
        &[
            "mov.b16 %rs",
            "add.f16",
            "mul.f16",
            "fma.rn.f16",
            "neg.f16",
            "abs.f16",
            "min.f16",
            "cvt.f32.f16",
            "cvt.f32.bf16",
            "cvt.rn.bf16.f32",
            "cvt.rn.f16.f32",
            "setp.lt.f16",
            "selp.b16",
            "15360",
            "ld.param.b16",
            "st.global.b16",
        ],
    );
    // `cvt.f32.bf16` needs PTX 7.1, above sm_80's floor of 7.0.
    assert!(ptx.contains(".version 7.1\n.target sm_80\n"), "{ptx}");
}

#[test]
fn integer_and_pointer_comparisons() {
    check_ops(
        &[Type::I32, Type::I32, GLOBAL, SHARED],
        |b, p| {
            let mut out: Vec<Value> = IntCC::ALL.iter().map(|&c| b.icmp(c, p[0], p[1])).collect();
            let k = b.iconst(Type::I32, 10);
            out.push(b.icmp(IntCC::Ult, p[0], k));
            out.push(b.icmp(IntCC::Eq, p[2], p[2]));
            out.push(b.icmp(IntCC::Ult, p[3], p[3]));
            out
        },
        &[
            "setp.eq.s32",
            "setp.ne.s32",
            "setp.lt.s32",
            "setp.le.s32",
            "setp.gt.s32",
            "setp.ge.s32",
            "setp.lo.u32",
            "setp.ls.u32",
            "setp.hi.u32",
            "setp.hs.u32",
            "setp.eq.u64",
            ", 10;",
        ],
    );
}

#[test]
fn float_comparisons() {
    check_ops(
        &[Type::F32, Type::F32, Type::F64],
        |b, p| {
            let mut out: Vec<Value> = FloatCC::ALL
                .iter()
                .map(|&c| b.fcmp(c, p[0], p[1]))
                .collect();
            let zero = b.fconst(Type::F64, 0.0);
            out.push(b.fcmp(FloatCC::Uno, p[2], zero));
            out
        },
        &[
            "setp.eq.f32",
            "setp.ne.f32",
            "setp.lt.f32",
            "setp.le.f32",
            "setp.gt.f32",
            "setp.ge.f32",
            "setp.equ.f32",
            "setp.neu.f32",
            "setp.ltu.f32",
            "setp.leu.f32",
            "setp.gtu.f32",
            "setp.geu.f32",
            "setp.num.f32",
            "setp.nan.f32",
            "setp.nan.f64",
        ],
    );
}

#[test]
fn selects() {
    check_ops(
        &[Type::I32, Type::I64, Type::F32, Type::F64, Type::I16],
        |b, p| {
            let c = b.icmp(IntCC::Sgt, p[0], p[0]);
            let zero = b.iconst(Type::I32, 0);
            vec![
                b.select(c, p[0], zero),
                b.select(c, p[1], p[1]),
                b.select(c, p[2], p[2]),
                b.select(c, p[3], p[3]),
                b.select(c, p[4], p[4]),
            ]
        },
        &["selp.b32", "selp.b64", "selp.f32", "selp.f64", "selp.b16"],
    );
}

#[test]
fn integer_conversions() {
    check_ops(
        &[Type::I32, Type::I8, Type::I16, Type::I64],
        |b, p| {
            let c = b.icmp(IntCC::Slt, p[0], p[0]);
            vec![
                b.convert(Opcode::Sext, Type::I64, p[0]),
                b.convert(Opcode::Zext, Type::I64, p[0]),
                b.convert(Opcode::Sext, Type::I32, p[1]),
                b.convert(Opcode::Zext, Type::I16, p[1]),
                b.convert(Opcode::Sext, Type::I64, p[2]),
                b.convert(Opcode::Sext, Type::I32, c),
                b.convert(Opcode::Zext, Type::I8, c),
                b.convert(Opcode::Trunc, Type::I32, p[3]),
                b.convert(Opcode::Trunc, Type::I8, p[0]),
                b.convert(Opcode::Trunc, Type::I8, p[2]),
                b.convert(Opcode::Trunc, Type::I16, p[3]),
                b.convert(Opcode::Trunc, Type::I1, p[0]),
            ]
        },
        &[
            "cvt.s64.s32",
            "cvt.u64.u32",
            "cvt.s32.s8",
            "cvt.u16.u8",
            "cvt.s64.s16",
            "selp.s32 %r",
            "selp.u16 %rs",
            "cvt.u32.u64",
            "cvt.u8.u32",
            "cvt.u16.u64",
            "and.b32",
            "setp.ne.b32",
        ],
    );
}

#[test]
fn float_int_conversions_and_bitcasts() {
    check_ops(
        &[Type::I32, Type::I64, Type::F32, Type::F64, Type::I8],
        |b, p| {
            let c = b.icmp(IntCC::Slt, p[0], p[0]);
            vec![
                b.convert(Opcode::Sitofp, Type::F32, p[0]),
                b.convert(Opcode::Uitofp, Type::F64, p[1]),
                b.convert(Opcode::Sitofp, Type::F32, p[4]),
                b.convert(Opcode::Uitofp, Type::F32, c),
                b.convert(Opcode::Fptosi, Type::I32, p[2]),
                b.convert(Opcode::Fptoui, Type::I64, p[3]),
                b.convert(Opcode::Fptosi, Type::I8, p[2]),
                b.convert(Opcode::Fpext, Type::F64, p[2]),
                b.convert(Opcode::Fptrunc, Type::F32, p[3]),
                b.convert(Opcode::Bitcast, Type::I32, p[2]),
                b.convert(Opcode::Bitcast, Type::F64, p[1]),
            ]
        },
        &[
            "cvt.rn.f32.s32",
            "cvt.rn.f64.u64",
            "cvt.rn.f32.s8",
            "cvt.rn.f32.u32",
            "cvt.rzi.s32.f32",
            "cvt.rzi.u64.f64",
            "cvt.rzi.s8.f32",
            "cvt.f64.f32",
            "cvt.rn.f32.f64",
            "mov.b32 %r",
            "mov.b64 %fd",
        ],
    );
}

#[test]
fn pointer_casts_and_offsets() {
    check_ops(
        &[GLOBAL, Type::I64, Type::I32, GENERIC, SHARED],
        |b, p| {
            let as_int = b.convert(Opcode::Ptrtoint, Type::I64, p[0]);
            let as_ptr = b.convert(Opcode::Inttoptr, GLOBAL, p[1]);
            let sh_int = b.convert(Opcode::Ptrtoint, Type::I64, p[4]);
            let sh_ptr = b.convert(Opcode::Inttoptr, SHARED, p[1]);
            let sh32 = b.convert(Opcode::Ptrtoint, Type::I32, sh_ptr);
            let off32 = b.ptroffset(p[0], p[2]);
            let sh_off64 = b.ptroffset(p[4], p[1]);
            let gen = b.addrspacecast(AddrSpace::Generic, off32);
            let back = b.addrspacecast(AddrSpace::Global, p[3]);
            let sgen = b.addrspacecast(AddrSpace::Generic, sh_off64);
            let lo = b.addrspacecast(AddrSpace::Local, p[3]);
            let lgen = b.addrspacecast(AddrSpace::Generic, lo);
            let co = b.addrspacecast(AddrSpace::Const, p[3]);
            let cgen = b.addrspacecast(AddrSpace::Generic, co);
            let shp = b.addrspacecast(AddrSpace::Shared, p[3]);
            let shp_int = b.convert(Opcode::Ptrtoint, Type::I32, shp);
            vec![
                as_int, as_ptr, sh_int, sh32, gen, back, sgen, lgen, cgen, shp_int,
            ]
        },
        &[
            "cvta.to.global.u64",
            "cvt.s64.s32",
            "add.s64",
            "cvt.u32.u64",
            "add.s32",
            "cvta.global.u64",
            "cvta.shared.u64",
            "cvta.to.local.u64",
            "cvta.local.u64",
            "cvta.to.const.u64",
            "cvta.const.u64",
            "cvta.to.shared.u64",
            "ld.param.u64",
        ],
    );
}

#[test]
fn special_registers_barrier_and_trap() {
    let ptx = check_ops(
        &[],
        |b, _| {
            // The cluster registers need sm_90 (`tests/tensor.rs` gates them).
            let mut out: Vec<Value> = SpecialReg::ALL
                .iter()
                .filter(|r| !r.is_cluster())
                .map(|&r| b.special(r))
                .collect();
            b.barrier();
            // Sum the 32-bit registers and, separately, the 64-bit ones.
            let (narrow, wide): (Vec<Value>, Vec<Value>) = out
                .iter()
                .partition(|&&v| b.func.dfg.value_type(v) == Type::I32);
            let s = narrow
                .iter()
                .skip(1)
                .fold(narrow[0], |acc, &v| b.iadd(acc, v));
            let w = wide.iter().skip(1).fold(wide[0], |acc, &v| b.iadd(acc, v));
            out.push(s);
            out.push(w);
            out
        },
        &[
            "mov.u32 %r1, %tid.x;",
            "%tid.z",
            "%ntid.y",
            "%ctaid.z",
            "%nctaid.x",
            "%laneid",
            "%warpid",
            "%lanemask_lt",
            "mov.u64 %rd3, %clock64;",
            "%globaltimer",
            "activemask.b32",
            "%dynamic_smem_size",
            "bar.sync 0;",
        ],
    );
    assert!(ptx.contains("ret;"));

    let mut f = kernel("boom", &[]);
    let mut b = FunctionBuilder::new(&mut f);
    let entry = b.create_block();
    b.switch_to_block(entry);
    b.trap();
    b.seal_all_blocks();
    b.finalize();
    let mut m = Module::new();
    m.push_function(f);
    let ptx = compile_and_check(&m);
    assert_contains(&ptx, &[".visible .entry boom()", "trap;"]);
}

/// Loads and stores of every type in every space with an ordinary `ld`/`st`.
#[test]
fn memory_in_every_space() {
    let mut m = Module::new();
    let cvar = m.push_global(GlobalVarData {
        name: "coeffs".into(),
        space: AddrSpace::Const,
        size: 8,
        align: 4,
        init: Some(vec![0, 0, 0x80, 0x3f]),
        linkage: Linkage::External,
        dynamic: false,
        managed: false,
        relocs: Vec::new(),
    });
    let gvar = m.push_global(GlobalVarData {
        name: "counter".into(),
        space: AddrSpace::Global,
        size: 4,
        align: 4,
        init: None,
        linkage: Linkage::Internal,
        dynamic: false,
        managed: false,
        relocs: Vec::new(),
    });
    let dyn_smem = m.push_global(GlobalVarData {
        name: "dsmem".into(),
        space: AddrSpace::Shared,
        size: 0,
        align: 16,
        init: None,
        linkage: Linkage::External,
        dynamic: true,
        managed: false,
        relocs: Vec::new(),
    });
    let mut f = kernel("mem", &[GLOBAL, GENERIC, Type::I32]);
    let slot = f.stack_slots.push(StackSlotData { size: 16, align: 8 });
    let mut b = FunctionBuilder::new(&mut f);
    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    let p = b.func.params().to_vec();
    let (out, gen) = (p[0], p[1]);
    let volatile = MemFlags {
        volatile: true,
        ..MemFlags::default()
    };
    // Every value type through the generic pointer, stored back to global.
    let types = [
        Type::I8,
        Type::I16,
        Type::I32,
        Type::I64,
        Type::F16,
        Type::BF16,
        Type::F32,
        Type::F64,
        Type::I1,
        GLOBAL,
        SHARED,
    ];
    for (k, &ty) in types.iter().enumerate() {
        let off = b.iconst(Type::I64, 8 * k as i64);
        let src = b.ptroffset(gen, off);
        let v = b.load(ty, src, plain());
        let dst = b.ptroffset(out, off);
        b.store(v, dst, plain());
    }
    // Volatile global, const variable by name, global variable through a
    // generic address, a stack slot, dynamic shared memory.
    let v = b.load(Type::I32, out, volatile.clone());
    b.store(v, out, volatile);
    let c = b.global_addr(AddrSpace::Const, cvar);
    let four = b.iconst(Type::I64, 4);
    let c4 = b.ptroffset(c, four);
    let cv = b.load(Type::F32, c4, plain());
    let g = b.global_addr(AddrSpace::Generic, gvar);
    b.store(cv, g, plain());
    let gg = b.global_addr(AddrSpace::Global, gvar);
    b.store(p[2], gg, plain());
    let local = b.stack_addr(slot);
    b.store(p[2], local, plain());
    let lv = b.load(Type::I32, local, plain());
    let dsm = b.global_addr(AddrSpace::Shared, dyn_smem);
    b.store(lv, dsm, plain());
    let k = b.iconst(Type::I32, 5);
    b.store(k, out, plain());
    let one = b.fconst(Type::F32, 1.0);
    b.store(one, out, plain());
    b.ret(vec![]);
    b.seal_all_blocks();
    b.finalize();
    m.push_function(f);
    let ptx = compile_and_check(&m);
    assert_contains(
        &ptx,
        &[
            ".visible .const .align 4 .b8 coeffs[8] = {0, 0, 128, 63, 0, 0, 0, 0};",
            ".global .align 4 .b8 counter[4];",
            ".extern .shared .align 16 .b8 dsmem[];",
            ".local .align 8 .b8 $local_ss0[16];",
            "ld.u8 %rs",
            "ld.u16",
            "ld.u32",
            "ld.u64",
            "ld.b16",
            "ld.f32",
            "ld.f64",
            "[%rd2+8]",
            "st.global.u8",
            "st.global.b16",
            "st.global.u64",
            "ld.volatile.global.u32",
            "st.volatile.global.u32",
            "ld.const.f32 %f",
            "[coeffs+4]",
            "cvta.global.u64 %rd",
            ", counter;",
            "st.global.u32 [counter],",
            "st.local.u32 [$local_ss0],",
            "ld.local.u32",
            "st.shared.u32 [dsmem],",
            "st.global.u32 [%rd2], 5;",
            "st.global.f32 [%rd2], 0f3F800000;",
        ],
    );
}

/// Both edges of a conditional branch carry arguments, one of them constant,
/// and a device function without a return value takes `i1` and `i8`.
#[test]
fn branches_with_arguments_and_void_call() {
    let mut m = Module::new();
    let mut sink = device(
        "sink",
        &[Type::I1, Type::I8, GLOBAL],
        &[],
        Linkage::External,
    );
    {
        let mut b = FunctionBuilder::new(&mut sink);
        let entry = b.create_block();
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        let p = b.func.params().to_vec();
        let w = b.convert(Opcode::Zext, Type::I32, p[0]);
        let x = b.convert(Opcode::Sext, Type::I32, p[1]);
        let s = b.iadd(w, x);
        b.store(s, p[2], plain());
        b.ret(vec![]);
        b.seal_all_blocks();
        b.finalize();
    }
    let sink_id = m.push_function(sink);
    let mut f = kernel("k", &[GLOBAL, Type::I32]);
    let mut b = FunctionBuilder::new(&mut f);
    let entry = b.create_block();
    let join = b.create_block();
    b.append_block_params_for_function_params(entry);
    let a = b.append_block_param(join, Type::I32);
    let c = b.append_block_param(join, Type::I1);
    b.switch_to_block(entry);
    let p = b.func.params().to_vec();
    let zero = b.iconst(Type::I32, 0);
    let neg = b.icmp(IntCC::Slt, p[1], zero);
    let t = b.iconst(Type::I1, 1);
    b.brif(neg, join, vec![zero, t], join, vec![p[1], neg]);
    b.switch_to_block(join);
    let small = b.convert(Opcode::Trunc, Type::I8, a);
    b.call(sink_id, vec![c, small, p[0]], &[]);
    b.ret(vec![]);
    b.seal_all_blocks();
    b.finalize();
    m.push_function(f);
    let ptx = compile_and_check(&m);
    assert_contains(
        &ptx,
        &[
            ".visible .func sink(",
            ".param .b8 sink_param_0",
            "ld.param.u8",
            "setp.ne.b16",
            "@%p1 bra $L__edge1_1;",
            "mov.b32 %r",
            "mov.pred %p",
            "call.uni sink, (param0, param1, param2);",
            "st.param.u8 [param0],",
        ],
    );
}

fn compile_err(m: &Module) -> String {
    let opts = Options::new(Target::parse("sm_80").unwrap());
    compile_module(m, &opts).unwrap_err().to_string()
}

#[test]
fn unsupported_input_is_an_error_not_a_panic() {
    // bf16 arithmetic.
    let m = ops_module(&[Type::BF16], |b, p| vec![b.fadd(p[0], p[0])]);
    let e = compile_err(&m);
    assert!(
        e.contains("in function `k`") && e.contains("fadd") && e.contains("bf16"),
        "{e}"
    );

    // A tensor-memory load.
    let m = ops_module(&[Type::Ptr(AddrSpace::Tmem)], |b, p| {
        vec![b.load(Type::I32, p[0], plain())]
    });
    let e = compile_err(&m);
    assert!(e.contains("ptr<tmem>"), "{e}");

    // A by-value aggregate parameter.
    let mut m = ops_module(&[Type::I64], |_, _| vec![]);
    let id = m.function_by_name("k").unwrap();
    m.functions[id].signature.params[1].attrs.byval = Some((16, 8));
    let e = compile_err(&m);
    assert!(e.contains("by-value"), "{e}");

    // A module variable in the local space.
    let mut m = ops_module(&[], |_, _| vec![]);
    m.push_global(GlobalVarData {
        name: "bad".into(),
        space: AddrSpace::Local,
        size: 4,
        align: 4,
        init: None,
        linkage: Linkage::Internal,
        dynamic: false,
        managed: false,
        relocs: Vec::new(),
    });
    let e = compile_err(&m);
    assert!(e.contains("`bad`") && e.contains("local"), "{e}");

    // Calling a kernel.
    let mut m = ops_module(&[], |_, _| vec![]);
    let callee = m.function_by_name("k").unwrap();
    let mut f = kernel("caller", &[]);
    let mut b = FunctionBuilder::new(&mut f);
    let entry = b.create_block();
    b.switch_to_block(entry);
    b.call(callee, vec![], &[]);
    b.ret(vec![]);
    b.seal_all_blocks();
    b.finalize();
    m.push_function(f);
    let e = compile_err(&m);
    assert!(
        e.contains("in function `caller`") && e.contains("call to kernel"),
        "{e}"
    );
}
