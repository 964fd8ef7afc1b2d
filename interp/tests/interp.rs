//! The IR interpreter on hand-written IR: every opcode with the PTX
//! semantics it promises (edge cases included), the memory spaces, calls,
//! barriers, and every kind of fault.

use kir_interp::{
    run_kernel, Dims, FaultKind, Given, KernelArg, LaunchConfig, RunError, RunOutput, SetupError,
};
use midend::ir::Type;
use midend::text::parse_module;

/// Parses and verifies `text`, then runs `@k` with `args`.
fn run(text: &str, args: Vec<KernelArg>, config: &LaunchConfig) -> Result<RunOutput, RunError> {
    let module = parse_module(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    if let Err(errors) = midend::verifier::verify_module(&module) {
        let mut msg = String::new();
        for (f, e) in errors {
            msg.push_str(&e.annotate(&module.functions[f], Some(&module)));
        }
        panic!("invalid test IR:\n{msg}");
    }
    run_kernel(&module, "k", &args, config)
}

fn one_thread() -> LaunchConfig {
    LaunchConfig::default()
}

fn fault_kind(r: Result<RunOutput, RunError>) -> FaultKind {
    match r {
        Err(RunError::Fault(f)) => f.kind,
        other => panic!("expected a fault, got {other:?}"),
    }
}

/// Runs `body` (which computes `vR` of type `ty`) in a one-thread kernel that
/// stores `vR` to its buffer, and returns the stored bits.
fn eval(ty: &str, body: &str) -> u64 {
    let text = format!(
        "kernel external @k(ptr<global>) {{\nblock0(v0: ptr<global>):\n{body}\n    store vR, v0\n    return\n}}\n"
    )
    .replace("vR", "v99");
    let bytes = ty.parse::<Type>().unwrap().bytes() as usize;
    let out = run(&text, vec![KernelArg::Buffer(vec![0; 8])], &one_thread())
        .unwrap_or_else(|e| panic!("{e}\n{text}"));
    let buf = out.buffers[0].clone().unwrap();
    let mut raw = [0u8; 8];
    raw[..bytes].copy_from_slice(&buf[..bytes]);
    u64::from_le_bytes(raw)
}

fn int_binary(op: &str, ty: &str, a: i64, b: i64) -> u64 {
    eval(
        ty,
        &format!("    v1 = iconst.{ty} {a}\n    v2 = iconst.{ty} {b}\n    v99 = {op} v1, v2"),
    )
}

fn f32_bits(x: f32) -> u64 {
    u64::from(x.to_bits())
}

#[test]
fn integer_arithmetic_wraps_and_defines_every_edge_case() {
    let m32 = |x: i64| (x as u64) & 0xffff_ffff;
    let cases: &[(&str, i64, i64, i64)] = &[
        ("iadd", 2147483647, 1, -2147483648),
        ("isub", 5, 7, -2),
        ("imul", 65536, 65536, 0),
        ("sdiv", -7, 2, -3),
        ("srem", -7, 2, -1),
        ("udiv", -7, 2, 0x7fff_fffc),
        ("urem", 7, 3, 1),
        // Division by zero: all ones for the quotient, the dividend for the remainder.
        ("sdiv", 7, 0, -1),
        ("udiv", 7, 0, -1),
        ("srem", 7, 0, 7),
        ("urem", 7, 0, 7),
        // INT_MIN / -1 wraps; INT_MIN % -1 is 0.
        ("sdiv", -2147483648, -1, -2147483648),
        ("srem", -2147483648, -1, 0),
        ("band", 12, 10, 8),
        ("bor", 12, 10, 14),
        ("bxor", 12, 10, 6),
        // Shifts clamp at the width.
        ("ishl", 1, 31, -2147483648),
        ("ishl", 1, 32, 0),
        ("ushr", -1, 28, 15),
        ("ushr", -1, 32, 0),
        ("sshr", -16, 2, -4),
        ("sshr", -16, 40, -1),
        ("sshr", 16, 40, 0),
        ("smin", -1, 1, -1),
        ("smax", -1, 1, 1),
        ("umin", -1, 1, 1),
        ("umax", -1, 1, -1),
    ];
    for &(op, a, b, want) in cases {
        assert_eq!(int_binary(op, "i32", a, b), m32(want), "{op} {a}, {b}");
    }
    // Narrow types wrap at their own width.
    assert_eq!(int_binary("iadd", "i8", 127, 1), 0x80);
    assert_eq!(int_binary("imul", "i16", 300, 300), (90000u64) & 0xffff);
    assert_eq!(int_binary("sdiv", "i8", -128, -1), 0x80);
    assert_eq!(int_binary("ushr", "i8", -128, 7), 1);
    assert_eq!(int_binary("ishl", "i64", 1, 63), 1 << 63);
    assert_eq!(int_binary("ishl", "i64", 1, 64), 0);
    let unary = |op: &str, a: i64| {
        eval(
            "i32",
            &format!("    v1 = iconst.i32 {a}\n    v99 = {op} v1"),
        )
    };
    assert_eq!(unary("ineg", -2147483648), 0x8000_0000);
    assert_eq!(unary("ineg", 5), m32(-5));
    assert_eq!(unary("bnot", 0), 0xffff_ffff);
}

#[test]
fn comparisons_and_select() {
    let icmp = |cond: &str, a: i64, b: i64| {
        eval(
            "i32",
            &format!(
                "    v1 = iconst.i32 {a}\n    v2 = iconst.i32 {b}\n    v3 = icmp {cond} v1, v2\n    v4 = iconst.i32 10\n    v5 = iconst.i32 20\n    v99 = select v3, v4, v5"
            ),
        ) == 10
    };
    assert!(icmp("slt", -1, 0));
    assert!(!icmp("ult", -1, 0));
    assert!(icmp("uge", -1, 0));
    assert!(icmp("eq", 3, 3) && icmp("ne", 3, 4) && icmp("sle", 3, 3) && icmp("sgt", 4, 3));
    assert!(icmp("sge", 3, 3) && icmp("ule", 0, 0) && icmp("ugt", -1, 0));
    let nan = "0x7ff8000000000000";
    let fcmp = |cond: &str, a: &str, b: &str| {
        eval(
            "i32",
            &format!(
                "    v1 = fconst.f32 {a}\n    v2 = fconst.f32 {b}\n    v3 = fcmp {cond} v1, v2\n    v99 = zext.i32 v3"
            ),
        ) == 1
    };
    assert!(!fcmp("oeq", nan, nan));
    assert!(fcmp("une", nan, nan));
    assert!(fcmp("ueq", nan, "1.0") && !fcmp("one", nan, "1.0") && fcmp("one", "2.0", "1.0"));
    assert!(fcmp("olt", "1.0", "2.0") && fcmp("ole", "2.0", "2.0") && fcmp("ogt", "3.0", "2.0"));
    assert!(fcmp("oge", "2.0", "2.0") && fcmp("ult", nan, "0.0") && fcmp("ule", "1.0", "1.0"));
    assert!(fcmp("ugt", nan, "0.0") && fcmp("uge", "0.0", "-0.0"));
    assert!(fcmp("ord", "1.0", "2.0") && fcmp("uno", "1.0", nan) && fcmp("oeq", "0.0", "-0.0"));
}

#[test]
fn float_arithmetic_is_ieee_with_ptx_nan_and_min_max_rules() {
    let bin = |op: &str, a: &str, b: &str| {
        eval(
            "f32",
            &format!("    v1 = fconst.f32 {a}\n    v2 = fconst.f32 {b}\n    v99 = {op} v1, v2"),
        )
    };
    assert_eq!(bin("fadd", "1.5", "0.25"), f32_bits(1.75));
    assert_eq!(bin("fsub", "1.5", "0.25"), f32_bits(1.25));
    assert_eq!(bin("fmul", "1.5", "-2.0"), f32_bits(-3.0));
    assert_eq!(bin("fdiv", "1.0", "3.0"), f32_bits(1.0 / 3.0));
    assert_eq!(bin("fdiv", "1.0", "0.0"), f32_bits(f32::INFINITY));
    assert_eq!(bin("fdiv", "0.0", "0.0"), 0x7fff_ffff, "canonical NaN");
    assert_eq!(bin("fmin", "0x7ff8000000000000", "2.0"), f32_bits(2.0));
    assert_eq!(bin("fmax", "-0.0", "0.0"), f32_bits(0.0));
    assert_eq!(bin("fmin", "-0.0", "0.0"), f32_bits(-0.0));
    let un = |op: &str, a: &str| {
        eval(
            "f32",
            &format!("    v1 = fconst.f32 {a}\n    v99 = {op} v1"),
        )
    };
    assert_eq!(un("sqrt", "2.0"), f32_bits(2f32.sqrt()));
    assert_eq!(un("sqrt", "-1.0"), 0x7fff_ffff);
    assert_eq!(un("fneg", "0.0"), f32_bits(-0.0));
    assert_eq!(un("fabs", "-3.5"), f32_bits(3.5));
    // fma rounds once: (1 + 2^-23)^2 - (1 + 2^-22) is the 2^-46 a separate
    // multiply and add would lose.
    let x = 1.0 + f32::EPSILON;
    let c = 1.0 + 2.0 * f32::EPSILON;
    let fma = eval(
        "f32",
        &format!(
            "    v1 = fconst.f32 {}\n    v2 = fconst.f32 {}\n    v99 = fma v1, v1, v2",
            f64::from(x),
            f64::from(-c)
        ),
    );
    assert_eq!(fma, f32_bits(2f32.powi(-46)));
    assert_eq!(x * x - c, 0.0);
    let f64_add = eval(
        "f64",
        "    v1 = fconst.f64 0.1\n    v2 = fconst.f64 0.2\n    v99 = fadd v1, v2",
    );
    assert_eq!(f64_add, (0.1f64 + 0.2).to_bits());
}

#[test]
fn conversions_round_and_saturate_like_cvt() {
    let conv = |from: &str, val: &str, op: &str, to: &str| {
        let c = if from.starts_with('f') {
            "fconst"
        } else {
            "iconst"
        };
        eval(
            to,
            &format!("    v1 = {c}.{from} {val}\n    v99 = {op}.{to} v1"),
        )
    };
    assert_eq!(conv("f32", "-2.5", "fptosi", "i32"), 0xffff_fffe);
    assert_eq!(conv("f32", "30000001024.0", "fptosi", "i32"), 0x7fff_ffff);
    assert_eq!(conv("f32", "-30000001024.0", "fptosi", "i32"), 0x8000_0000);
    assert_eq!(conv("f32", "0x7ff8000000000000", "fptosi", "i32"), 0);
    assert_eq!(conv("f32", "-1.0", "fptoui", "i32"), 0);
    assert_eq!(conv("f64", "1e300", "fptoui", "i64"), u64::MAX);
    assert_eq!(conv("f32", "300.0", "fptosi", "i8"), 0x7f);
    assert_eq!(conv("i32", "-3", "sitofp", "f32"), f32_bits(-3.0));
    assert_eq!(conv("i32", "-1", "uitofp", "f32"), f32_bits(4294967296.0));
    assert_eq!(
        conv("i64", "16777217", "sitofp", "f32"),
        f32_bits(16777216.0)
    );
    assert_eq!(conv("i8", "-1", "sext", "i64"), u64::MAX);
    assert_eq!(conv("i8", "-1", "zext", "i32"), 0xff);
    assert_eq!(conv("i32", "-1", "trunc", "i8"), 0xff);
    assert_eq!(conv("f32", "1.5", "fpext", "f64"), 1.5f64.to_bits());
    assert_eq!(conv("f64", "0.1", "fptrunc", "f32"), f32_bits(0.1));
    assert_eq!(conv("f32", "1.0", "fptrunc", "f16"), 0x3c00);
    assert_eq!(conv("f32", "1e6", "fptrunc", "f16"), 0x7c00);
    assert_eq!(conv("i32", "1065353216", "bitcast", "f32"), f32_bits(1.0));
    let i1 = eval(
        "i32",
        "    v1 = iconst.i32 1\n    v2 = iconst.i32 1\n    v3 = icmp eq v1, v2\n    v99 = sext.i32 v3",
    );
    assert_eq!(i1, 0xffff_ffff, "true sign-extends to -1");
}

#[test]
fn const_globals_stack_slots_calls_and_pointer_round_trips() {
    let text = "\
gv0 = const internal @coef, size 8, align 4, init [0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0x00, 0x40]

device internal @fact(i32) -> i32 {
block0(v0: i32):
    v1 = iconst.i32 1
    v2 = icmp sle v0, v1
    brif v2, block1, block2

block1:
    return v1

block2:
    v3 = isub v0, v1
    v4 = call @fact(v3)
    v5 = imul v0, v4
    return v5
}

device internal @put(ptr<generic>, i32) {
block0(v0: ptr<generic>, v1: i32):
    store v1, v0
    return
}

kernel external @k(ptr<global>) {
    ss0 = stack 8, align 4

block0(v0: ptr<global>):
    v1 = global_addr.ptr<const> gv0
    v2 = iconst.i64 4
    v3 = ptroffset v1, v2
    v4 = load.f32 v3
    store v4, v0
    v5 = iconst.i32 5
    v6 = call @fact(v5)
    v7 = stack_addr ss0
    v8 = addrspacecast.ptr<generic> v7
    call @put(v8, v6)
    v9 = load.i32 v7
    v10 = ptroffset v0, v2
    store v9, v10
    v11 = ptrtoint.i64 v10
    v12 = inttoptr.ptr<global> v11
    v14 = ptroffset v12, v2
    v15 = special ctaid.x
    store v15, v14
    return
}
";
    let config = LaunchConfig {
        grid: [3, 1, 1],
        ..LaunchConfig::default()
    };
    let out = run(text, vec![KernelArg::Buffer(vec![0; 12])], &config).unwrap();
    let buf = out.buffers[0].clone().unwrap();
    assert_eq!(&buf[0..4], &2.0f32.to_le_bytes());
    assert_eq!(&buf[4..8], &120i32.to_le_bytes());
    assert_eq!(
        &buf[8..12],
        &2i32.to_le_bytes(),
        "the last block writes last"
    );
}

/// Each block reverses its slice through shared memory; the barrier is in
/// a device function, so threads stop and resume inside a call.
const REVERSE: &str = "\
gv0 = shared @tile, size 256, align 4

device internal @sync() {
block0:
    barrier
    return
}

kernel external @k(ptr<global>) {
block0(v0: ptr<global>):
    v1 = special tid.x
    v2 = special ntid.x
    v3 = special ctaid.x
    v4 = imul v3, v2
    v5 = iadd v4, v1
    v6 = zext.i64 v5
    v7 = iconst.i64 4
    v8 = imul v6, v7
    v9 = ptroffset v0, v8
    v10 = load.i32 v9
    v11 = global_addr.ptr<shared> gv0
    v12 = iconst.i32 4
    v13 = imul v1, v12
    v14 = ptroffset v11, v13
    store v10, v14
    call @sync()
    v15 = iconst.i32 1
    v16 = isub v2, v15
    v17 = isub v16, v1
    v18 = imul v17, v12
    v19 = ptroffset v11, v18
    v20 = addrspacecast.ptr<generic> v19
    v21 = load.i32 v20
    store v21, v9
    return
}
";

#[test]
fn barriers_order_shared_memory_between_threads() {
    let input: Vec<u8> = (0..128i32).flat_map(|i| i.to_le_bytes()).collect();
    let config = LaunchConfig {
        grid: [2, 1, 1],
        block: [64, 1, 1],
        ..LaunchConfig::default()
    };
    let out = run(REVERSE, vec![KernelArg::Buffer(input)], &config).unwrap();
    let got: Vec<i32> = out.buffers[0]
        .as_ref()
        .unwrap()
        .chunks(4)
        .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let want: Vec<i32> = (0..2)
        .flat_map(|b| (0..64).rev().map(move |i| b * 64 + i))
        .collect();
    assert_eq!(got, want);
}

#[test]
fn dynamic_shared_memory_is_sized_at_launch() {
    let text = "\
gv0 = shared @dyn, dynamic, align 4

kernel external @k(ptr<global>) {
block0(v0: ptr<global>):
    v1 = global_addr.ptr<shared> gv0
    v2 = special tid.x
    v3 = iconst.i32 4
    v4 = imul v2, v3
    v5 = ptroffset v1, v4
    store v2, v5
    barrier
    v6 = iconst.i32 0
    v7 = ptroffset v1, v6
    v8 = load.i32 v7
    store v8, v0
    return
}
";
    let cfg = |bytes| LaunchConfig {
        block: [4, 1, 1],
        dynamic_shared_bytes: bytes,
        ..LaunchConfig::default()
    };
    assert!(run(text, vec![KernelArg::Buffer(vec![0; 4])], &cfg(16)).is_ok());
    assert_eq!(
        fault_kind(run(text, vec![KernelArg::Buffer(vec![0; 4])], &cfg(8))),
        FaultKind::OutOfBounds
    );
}

fn access(ty: &str, offset: i64, buf: usize) -> Result<RunOutput, RunError> {
    let text = format!(
        "kernel external @k(ptr<global>) {{\nblock0(v0: ptr<global>):\n    v1 = iconst.i64 {offset}\n    v2 = ptroffset v0, v1\n    v3 = load.{ty} v2\n    store v3, v0\n    return\n}}\n"
    );
    run(&text, vec![KernelArg::Buffer(vec![0; buf])], &one_thread())
}

#[test]
fn out_of_bounds_and_misaligned_accesses_fault() {
    assert!(access("i32", 12, 16).is_ok());
    assert_eq!(fault_kind(access("i32", 16, 16)), FaultKind::OutOfBounds);
    assert_eq!(fault_kind(access("i32", -4, 16)), FaultKind::OutOfBounds);
    assert_eq!(fault_kind(access("i32", 2, 16)), FaultKind::Misaligned);
    assert_eq!(fault_kind(access("i64", 4, 16)), FaultKind::Misaligned);
}

/// A cast to a space the pointer does not point into is no fault by itself
/// (passes run casts speculatively, as PTX's `cvta` allows); the access
/// through the cast pointer is, as a wrong-space access.
#[test]
fn an_access_through_a_pointer_cast_to_the_wrong_space_faults() {
    let text = "\
kernel external @k(ptr<global>) {
block0(v0: ptr<global>):
    v1 = addrspacecast.ptr<generic> v0
    v2 = addrspacecast.ptr<shared> v1
    v3 = iconst.i32 1
    store v3, v2
    return
}
";
    let err = run(text, vec![KernelArg::Buffer(vec![0; 4])], &one_thread()).unwrap_err();
    let RunError::Fault(f) = err else {
        panic!("{err:?}")
    };
    assert_eq!(f.kind, FaultKind::WrongSpace);
    assert!(
        f.message
            .contains("ptr<shared> to an address in global memory"),
        "{}",
        f.message
    );
    assert_eq!(f.inst.map(|i| i.to_string()).as_deref(), Some("inst3"));

    // The same cast with no access runs to the end.
    let quiet = "\
kernel external @k(ptr<global>) {
block0(v0: ptr<global>):
    v1 = addrspacecast.ptr<generic> v0
    v2 = addrspacecast.ptr<shared> v1
    return
}
";
    run(quiet, vec![KernelArg::Buffer(vec![0; 4])], &one_thread())
        .expect("a cast alone is no fault");
}

#[test]
fn pointers_of_the_wrong_space_and_read_only_stores_fault() {
    // A global address forged into a ptr<shared> by inttoptr.
    let forged = "\
kernel external @k(ptr<global>) {
block0(v0: ptr<global>):
    v1 = ptrtoint.i64 v0
    v2 = inttoptr.ptr<shared> v1
    v3 = load.i32 v2
    return
}
";
    assert_eq!(
        fault_kind(run(
            forged,
            vec![KernelArg::Buffer(vec![0; 4])],
            &one_thread()
        )),
        FaultKind::WrongSpace
    );
    // A store through a generic pointer into the constant bank.
    let to_const = "\
gv0 = const @c, size 4, align 4

kernel external @k() {
block0:
    v1 = global_addr.ptr<const> gv0
    v2 = addrspacecast.ptr<generic> v1
    v3 = iconst.i32 1
    store v3, v2
    return
}
";
    assert_eq!(
        fault_kind(run(to_const, vec![], &one_thread())),
        FaultKind::ReadOnly
    );
    let null = "\
kernel external @k() {
block0:
    v1 = iconst.i64 0
    v2 = inttoptr.ptr<generic> v1
    v3 = load.i32 v2
    return
}
";
    assert_eq!(
        fault_kind(run(null, vec![], &one_thread())),
        FaultKind::NullPointer
    );
}

#[test]
fn a_stack_slot_of_a_returned_call_is_gone() {
    let text = "\
device internal @leak() -> ptr<generic> {
    ss0 = stack 4, align 4

block0:
    v0 = stack_addr ss0
    v1 = addrspacecast.ptr<generic> v0
    return v1
}

kernel external @k() {
block0:
    v0 = call @leak()
    v1 = load.i32 v0
    return
}
";
    assert_eq!(
        fault_kind(run(text, vec![], &one_thread())),
        FaultKind::Dangling
    );
}

#[test]
fn barrier_divergence_step_limit_recursion_and_trap_fault() {
    let diverge = "\
kernel external @k() {
block0:
    v0 = special tid.x
    v1 = iconst.i32 2
    v2 = icmp ult v0, v1
    brif v2, block1, block2

block1:
    return

block2:
    barrier
    return
}
";
    let block = LaunchConfig {
        block: [8, 1, 1],
        ..LaunchConfig::default()
    };
    let err = run(diverge, vec![], &block).unwrap_err();
    let RunError::Fault(f) = err else {
        panic!("{err:?}")
    };
    assert_eq!(f.kind, FaultKind::BarrierDivergence);
    assert!(f.message.contains("6 of 8 threads"), "{}", f.message);
    assert_eq!(f.thread, [2, 0, 0]);

    let forever = "\
kernel external @k() {
block0:
    jump block1

block1:
    jump block1
}
";
    let limited = LaunchConfig {
        max_steps_per_thread: 1000,
        ..LaunchConfig::default()
    };
    assert_eq!(
        fault_kind(run(forever, vec![], &limited)),
        FaultKind::StepLimit
    );

    let recurse = "\
device internal @r() {
block0:
    call @r()
    return
}

kernel external @k() {
block0:
    call @r()
    return
}
";
    assert_eq!(
        fault_kind(run(recurse, vec![], &one_thread())),
        FaultKind::CallDepth
    );
    let trap = "kernel external @k() {\nblock0:\n    trap\n}\n";
    assert_eq!(
        fault_kind(run(trap, vec![], &one_thread())),
        FaultKind::Trap
    );
}

#[test]
fn launch_errors_are_reported_before_running() {
    let text = "kernel external @k(ptr<global>, i32) {\nblock0(v0: ptr<global>, v1: i32):\n    return\n}\n";
    let setup = |args: Vec<KernelArg>, cfg: &LaunchConfig| match run(text, args, cfg) {
        Err(RunError::Setup(e)) => e,
        other => panic!("{other:?}"),
    };
    let buf = || KernelArg::Buffer(vec![0; 4]);
    let i32_arg = KernelArg::Scalar {
        ty: Type::I32,
        bits: 1,
    };
    let f32_arg = KernelArg::Scalar {
        ty: Type::F32,
        bits: 0,
    };
    let count = setup(vec![buf()], &one_thread());
    assert!(count.to_string().contains("takes 2 arguments"));
    assert!(matches!(
        count,
        SetupError::ArgumentCount {
            params: 2,
            args: 1,
            ..
        }
    ));
    let scalar = setup(vec![buf(), f32_arg], &one_thread());
    assert!(scalar.to_string().contains("has type i32, but a f32"));
    assert!(matches!(
        scalar,
        SetupError::Mismatch {
            index: 1,
            param: Type::I32,
            given: Given::Scalar(Type::F32),
            ..
        }
    ));
    let pointer = setup(vec![i32_arg.clone(), i32_arg.clone()], &one_thread());
    assert!(pointer.to_string().contains("is a pointer"));
    assert!(matches!(
        pointer,
        SetupError::Mismatch {
            index: 0,
            param: Type::Ptr(_),
            given: Given::Scalar(Type::I32),
            ..
        }
    ));
    let buffer = setup(vec![buf(), buf()], &one_thread());
    assert!(buffer.to_string().contains("is a scalar i32"));
    assert!(matches!(
        buffer,
        SetupError::Mismatch {
            index: 1,
            given: Given::Buffer,
            ..
        }
    ));
    let big = LaunchConfig {
        block: [1024, 2, 1],
        ..LaunchConfig::default()
    };
    let threads = setup(vec![buf(), i32_arg.clone()], &big);
    assert!(threads.to_string().contains("2048 threads"));
    assert_eq!(threads, SetupError::TooManyThreads { threads: 2048 });
    let wide = LaunchConfig {
        grid: [1, 0, 1],
        ..LaunchConfig::default()
    };
    let dims = setup(vec![buf(), i32_arg], &wide);
    assert_eq!(
        dims.to_string(),
        "grid dimension y is 0; it must be between 1 and 65535"
    );
    assert_eq!(
        dims,
        SetupError::Dimension {
            of: Dims::Grid,
            axis: 1,
            value: 0,
            max: 65535
        }
    );
}

#[test]
fn printf_with_an_unreadable_format_faults_at_the_call() {
    let text = "kernel external @k(ptr<generic>) {\nblock0(v0: ptr<generic>):\n    v1 = iconst.i64 64\n    v2 = ptroffset v0, v1\n    v3 = vprintf v2, v2\n    return\n}\n";
    let fault = match run(text, vec![KernelArg::Buffer(vec![0; 4])], &one_thread()) {
        Err(RunError::Fault(f)) => f,
        other => panic!("expected a fault, got {other:?}"),
    };
    assert_eq!(fault.kind, FaultKind::OutOfBounds);
    assert!(
        fault
            .message
            .starts_with("reading the format of `printf`: "),
        "{}",
        fault.message
    );
}

/// Every kernel of every verified `.kir` file in the filetests runs to an
/// outcome (success, a fault or a launch error) without panicking, with
/// zeroed buffers for pointers and zeros for scalars.
#[test]
fn every_filetest_kernel_runs_without_panicking() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/filetests");
    let mut files = Vec::new();
    for dir in std::fs::read_dir(&root).unwrap() {
        for f in std::fs::read_dir(dir.unwrap().path()).unwrap() {
            let p = f.unwrap().path();
            if p.extension().is_some_and(|e| e == "kir") {
                files.push(p);
            }
        }
    }
    files.sort();
    let mut ran = 0;
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let Ok(module) = parse_module(&text) else {
            continue;
        };
        if midend::verifier::verify_module(&module).is_err() {
            continue;
        }
        for f in module.functions.values().filter(|f| f.is_kernel()) {
            let args = f
                .signature
                .params
                .iter()
                .map(|p| match p.ty {
                    Type::Ptr(_) => KernelArg::Buffer(vec![0; 4096]),
                    ty => KernelArg::Scalar { ty, bits: 0 },
                })
                .collect::<Vec<_>>();
            let config = LaunchConfig {
                grid: [2, 1, 1],
                block: [4, 2, 1],
                dynamic_shared_bytes: 64,
                max_steps_per_thread: 10_000,
                ..LaunchConfig::default()
            };
            let _ = run_kernel(&module, &f.name, &args, &config);
            ran += 1;
        }
    }
    assert!(ran >= 3, "only {ran} kernels ran");
}

/// `atomic_vec add` adds each element and gives the old ones; it needs a
/// global address aligned to the whole vector. `atomic_cas` on `i16`
/// compares and swaps two bytes.
#[test]
fn vector_atomics_and_the_16_bit_cas() {
    let text = "kernel external @k(ptr<global>) {
block0(v0: ptr<global>):
    v1 = fconst.f32 1.5
    v2 = fconst.f32 -2.0
    v3, v4 = atomic_vec add gpu v0, v1, v2
    v5, v6 = atomic_vec add gpu v0, v4, v3
    v7 = iconst.i64 8
    v8 = ptroffset v0, v7
    store v5, v8
    v9 = iconst.i64 12
    v10 = ptroffset v0, v9
    store v6, v10
    return
}
";
    let mut bytes = Vec::new();
    for x in [10.0f32, 20.0, 0.0, 0.0] {
        bytes.extend(x.to_le_bytes());
    }
    let out = run(text, vec![KernelArg::Buffer(bytes)], &one_thread()).unwrap();
    let got: Vec<f32> = out.buffers[0]
        .as_ref()
        .unwrap()
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    // After the first: (11.5, 18); the second adds (old y, old x) = (20, 10).
    assert_eq!(got, vec![31.5, 28.0, 11.5, 18.0]);

    // Misaligned: a float2 at byte 4.
    let bad = "kernel external @k(ptr<global>) {
block0(v0: ptr<global>):
    v1 = fconst.f32 1.0
    v2 = iconst.i64 4
    v3 = ptroffset v0, v2
    v4, v5 = atomic_vec add gpu v3, v1, v1
    return
}
";
    assert_eq!(
        fault_kind(run(
            bad,
            vec![KernelArg::Buffer(vec![0; 16])],
            &one_thread()
        )),
        FaultKind::Misaligned
    );

    let cas = "kernel external @k(ptr<global>) {
block0(v0: ptr<global>):
    v1 = iconst.i16 0
    v2 = iconst.i16 -2
    v3 = atomic_cas gpu v0, v1, v2
    v4 = atomic_cas gpu v0, v1, v1
    v5 = iconst.i64 2
    v6 = ptroffset v0, v5
    store v4, v6
    return
}
";
    let out = run(cas, vec![KernelArg::Buffer(vec![0; 4])], &one_thread()).unwrap();
    // The first swaps 0 for 0xfffe; the second finds 0xfffe and leaves it.
    assert_eq!(
        out.buffers[0].as_deref(),
        Some(&[0xfe, 0xff, 0xfe, 0xff][..])
    );
}

/// Each block stores its number, waits at the grid barrier and reads the
/// next block's: only blocks that are all resident and released together
/// see a value another block stored after them in block order.
const GRID_EXCHANGE: &str = "\
kernel external @k(ptr<global>, ptr<global>) {
block0(v0: ptr<global>, v1: ptr<global>):
    v2 = special ctaid.x
    v3 = special nctaid.x
    v4 = zext.i64 v2
    v5 = iconst.i64 4
    v6 = imul v4, v5
    v7 = ptroffset v0, v6
    v8 = iconst.i32 100
    v9 = iadd v2, v8
    store v9, v7
    grid_barrier
    v10 = iconst.i32 1
    v11 = iadd v2, v10
    v12 = urem v11, v3
    v13 = zext.i64 v12
    v14 = imul v13, v5
    v15 = ptroffset v0, v14
    v16 = load.i32 v15
    v17 = ptroffset v1, v6
    store v16, v17
    return
}
";

#[test]
fn the_grid_barrier_releases_every_block_together() {
    let grid = LaunchConfig {
        grid: [4, 1, 1],
        block: [3, 1, 1],
        ..LaunchConfig::default()
    };
    let args = vec![
        KernelArg::Buffer(vec![0; 16]),
        KernelArg::Buffer(vec![0; 16]),
    ];
    let out = run(GRID_EXCHANGE, args, &grid).unwrap_or_else(|e| panic!("{e}"));
    let seen: Vec<u32> = out.buffers[1]
        .as_ref()
        .unwrap()
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(seen, [101, 102, 103, 100]);
}

#[test]
fn a_cooperative_launch_has_a_block_limit() {
    let too_many = LaunchConfig {
        grid: [512, 3, 1],
        ..LaunchConfig::default()
    };
    let args = vec![KernelArg::Buffer(vec![0; 4]), KernelArg::Buffer(vec![0; 4])];
    let err = run(GRID_EXCHANGE, args, &too_many).unwrap_err();
    assert_eq!(
        err,
        RunError::Setup(SetupError::CooperativeGrid { blocks: 1536 })
    );
}

/// The workspace's address is not null in a cooperative launch (a kernel
/// that reaches the grid barrier, here through a call) and null otherwise.
#[test]
fn the_grid_workspace_is_set_only_for_a_cooperative_launch() {
    let text = |sync: &str| {
        format!(
            "\
device internal @wait() {{
block0:
    {sync}
    return
}}

kernel external @k(ptr<global>) {{
block0(v0: ptr<global>):
    v1 = special grid_workspace
    v2 = iconst.i64 0
    v3 = icmp ne v1, v2
    v4 = zext.i32 v3
    store v4, v0
    call fn0()
    return
}}
"
        )
    };
    for (sync, valid) in [("grid_barrier", 1), ("barrier", 0)] {
        let out = run(
            &text(sync),
            vec![KernelArg::Buffer(vec![9; 4])],
            &one_thread(),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            out.buffers[0].as_ref().unwrap(),
            &[valid, 0, 0, 0],
            "{sync}"
        );
    }
}

/// Threads of one block at the grid barrier and at a block barrier wait
/// for different things: barrier divergence.
#[test]
fn a_block_split_between_grid_and_block_barriers_diverges() {
    let text = "\
kernel external @k() {
block0:
    v0 = special tid.x
    v1 = iconst.i32 0
    v2 = icmp eq v0, v1
    brif v2, block1, block2

block1:
    grid_barrier
    return

block2:
    barrier
    return
}
";
    let block = LaunchConfig {
        block: [2, 1, 1],
        ..LaunchConfig::default()
    };
    let err = run(text, vec![], &block).unwrap_err();
    let RunError::Fault(f) = err else {
        panic!("{err:?}")
    };
    assert_eq!(f.kind, FaultKind::BarrierDivergence);
    assert!(
        f.message.contains("different kinds of barrier"),
        "{}",
        f.message
    );
}
