//! The text format round-trips: parsing what the printer writes gives back
//! the same IR, and printing what the parser read gives back the same text.
//!
//! Hand-written texts pin the exact spelling of every opcode, type, address
//! space and attribute; a generator of random functions checks the structural
//! round trip; garbage and mutated text check that the parser never panics;
//! and a few bad inputs pin the error messages.

mod common;

use midend::builder::{FuncCursor, InstBuilder};
use midend::ir::*;
use midend::text::{
    parse_function, parse_module, write_function, write_module, ParseErrorKind, PrintOptions,
};
use proptest::prelude::*;

const SPANS: PrintOptions = PrintOptions { spans: true };

/// Asserts `print(parse(text)) == text`, printing spans.
fn assert_module_round_trips(text: &str) -> Module {
    let module = parse_module(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let again = write_module(&module, SPANS);
    assert_eq!(again, text, "printed text differs from the input");
    module
}

/// Every opcode, type, address space, memory flag and attribute, in one module.
const EVERYTHING: &str = r#"gv0 = shared @tile, size 1024, align 4
gv1 = const internal @coef, size 8, align 4, init [0x00, 0x01, 0x7f, 0x80, 0xff, 0x10, 0x20, 0x30]
gv2 = shared @dyn, dynamic, align 16
gv3 = global @counter, size 4, align 4, init []
gv4 = shared::cluster internal @dsmem, size 256, align 8
gv5 = tmem @acc, size 128, align 16
gv6 = generic @g, size 1, align 1
gv7 = local @l, size 2, align 2
gv8 = param @p, size 8, align 8
gv9 = shared weak @_ZZ2ilfE1s, size 4, align 4

kernel external @all(ptr<global> restrict noalias, ptr<global> restrict, i64 grid_constant, ptr<param> byval(16, 8), f16, bf16, f64, i1, i8, i16) restrict_processed launch_bounds(256, 2) {
    ss0 = stack 16, align 8
    ss1 = stack 4, align 4
    scope0 = alias_scope "a"
    scope1 = alias_scope "b \"quoted\" \\ ; {}\n\u{301}"

block0(v0: ptr<global>, v1: ptr<global>, v2: i64, v3: ptr<param>, v4: f16, v5: bf16, v6: f64, v7: i1, v8: i8, v9: i16):
    v10 = iconst.i32 -5
    v11 = iconst.i64 9223372036854775807
    v12 = iconst.i64 -9223372036854775808
    v13 = fconst.f32 1.5
    v14 = fconst.f64 inf
    v15 = fconst.f64 -inf
    v16 = fconst.f32 0x7ff8000000000000
    v17 = fconst.f64 1e-7
    v18 = fconst.f64 -0.0
    v19 = fconst.f64 1e300
    v20 = ineg v10 !0..4
    v21 = bnot v10
    v22 = fneg v13
    v23 = fabs v13
    v24 = sqrt v13
    v25 = iadd v10, v10
    v26 = isub v10, v10
    v27 = imul v10, v10
    v28 = sdiv v10, v10
    v29 = udiv v10, v10
    v30 = srem v10, v10
    v31 = urem v10, v10
    v32 = band v10, v10
    v33 = bor v10, v10
    v34 = bxor v10, v10
    v35 = ishl v10, v10
    v36 = ushr v10, v10
    v37 = sshr v10, v10
    v38 = smin v10, v10
    v39 = smax v10, v10
    v40 = umin v10, v10
    v41 = umax v10, v10
    v42 = fadd v13, v13
    v43 = fsub v13, v13
    v44 = fmul v13, v13
    v45 = fdiv v13, v13
    v46 = fmin v13, v13
    v47 = fmax v13, v13
    v48 = fma v13, v13, v13
    v49 = select v7, v13, v13
    v50 = icmp eq v10, v10
    v51 = icmp ne v10, v10
    v52 = icmp slt v10, v10
    v53 = icmp sle v10, v10
    v54 = icmp sgt v10, v10
    v55 = icmp sge v10, v10
    v56 = icmp ult v10, v10
    v57 = icmp ule v10, v10
    v58 = icmp ugt v10, v10
    v59 = icmp uge v10, v10
    v60 = fcmp oeq v13, v13
    v61 = fcmp one v13, v13
    v62 = fcmp olt v13, v13
    v63 = fcmp ole v13, v13
    v64 = fcmp ogt v13, v13
    v65 = fcmp oge v13, v13
    v66 = fcmp ueq v13, v13
    v67 = fcmp une v13, v13
    v68 = fcmp ult v13, v13
    v69 = fcmp ule v13, v13
    v70 = fcmp ugt v13, v13
    v71 = fcmp uge v13, v13
    v72 = fcmp ord v13, v13
    v73 = fcmp uno v13, v13
    v74 = sext.i64 v10
    v75 = zext.i64 v10
    v76 = trunc.i8 v10
    v77 = fpext.f64 v13
    v78 = fptrunc.f16 v13
    v79 = sitofp.bf16 v10
    v80 = uitofp.f32 v10
    v81 = fptosi.i32 v13
    v82 = fptoui.i16 v13
    v83 = bitcast.f32 v10
    v84 = ptrtoint.i64 v0
    v85 = inttoptr.ptr<shared::cluster> v2
    v86 = addrspacecast.ptr<generic> v0
    v87 = addrspacecast.ptr<shared> v86
    v88 = ptroffset v0, v2
    v89 = global_addr.ptr<shared> gv0
    v90 = global_addr.ptr<const> gv1
    v91 = global_addr.ptr<tmem> gv5
    v92 = stack_addr ss0
    v93 = load.f32 v0 volatile invariant scopes(scope0) noalias(scope1) !10..20
    v94 = load.ptr<local> v92 scopes(scope0, scope1)
    v95 = load.i32 v1 noalias(scope0)
    store v93, v1 volatile
    store v10, v0 invariant scopes(scope1)
    store v10, v92
    v96, v97 = call @helper(v10, v13)
    call @sink(v86) !30..31
    v98 = special tid.x
    v99 = special tid.y
    v100 = special tid.z
    v101 = special ntid.x
    v102 = special ntid.y
    v103 = special ntid.z
    v104 = special ctaid.x
    v105 = special ctaid.y
    v106 = special ctaid.z
    v107 = special nctaid.x
    v108 = special nctaid.y
    v109 = special nctaid.z
    v110 = special laneid
    v111 = special warpid
    barrier
    grid_barrier
    brif v50, block1(v10, v13), block2

block1(v112: i32, v113: f32):
    jump block3(v112)

block2:
    trap

block3(v114: i32):
    return
}

device internal @helper(i32, f32) -> i32, f32 noinline launch_bounds(128) {
block0(v0: i32, v1: f32):
    v2 = iadd v0, v0
    return v2, v1
}

device external @sink(ptr<generic> noalias) {
block0(v0: ptr<generic>):
    v1 = call @recurse(v0)
    return
}

device internal @recurse(ptr<generic>) -> i32 {
block0(v0: ptr<generic>):
    v1 = call @recurse(v0)
    return v1
}

device weak @inline_helper(i32) -> i32 {
block0(v0: i32):
    return v0
}
"#;

#[test]
fn everything_round_trips() {
    let m = assert_module_round_trips(EVERYTHING);
    assert_eq!(m.functions.len(), 5);
    assert_eq!(m.globals.len(), 10);
    assert_eq!(m.globals[GlobalVar::from_u32(9)].linkage, Linkage::Weak);
    assert_eq!(
        m.functions[FuncId::from_u32(4)].attrs.linkage,
        Linkage::Weak
    );
    let all = &m.functions[FuncId::from_u32(0)];
    // Inferred result types follow the builder's rules.
    let ty = |n| all.dfg.value_type(Value::from_u32(n));
    assert_eq!(ty(20), Type::I32); // ineg: its operand's type
    assert_eq!(ty(49), Type::F32); // select: its second operand's type
    assert_eq!(ty(50), Type::I1); // compares
    assert_eq!(ty(88), Type::Ptr(AddrSpace::Global)); // ptroffset keeps the space
    assert_eq!(ty(92), Type::Ptr(AddrSpace::Local)); // stack_addr
    assert_eq!(ty(96), Type::I32); // call: the callee's returns
    assert_eq!(ty(97), Type::F32);
    assert_eq!(ty(98), Type::I32); // special registers
                                   // NaN bits survive.
    let nan = all.dfg.insts[Inst::from_u32(6)].clone();
    match nan {
        InstData::Fconst { value, .. } => assert_eq!(value.to_bits(), 0x7ff8000000000000),
        other => panic!("expected fconst, found {other:?}"),
    }
    assert_eq!(
        all.spans[Inst::from_u32(10)],
        SourceSpan::new(0, 4),
        "span of v20"
    );
    assert_eq!(
        all.alias_scopes[AliasScope::from_u32(1)].name,
        "b \"quoted\" \\ ; {}\n\u{301}"
    );
    let gv1 = &m.globals[GlobalVar::from_u32(1)];
    assert_eq!(
        gv1.init.as_deref(),
        Some(&[0, 1, 0x7f, 0x80, 0xff, 0x10, 0x20, 0x30][..])
    );
    assert!(m.globals[GlobalVar::from_u32(2)].dynamic);
    // Forward calls resolve: @sink calls @recurse, defined after it.
    let sink = &m.functions[FuncId::from_u32(2)];
    let first = sink.layout.block_insts(sink.entry_block().unwrap())[0];
    assert!(matches!(
        sink.dfg.insts[first],
        InstData::Call { func, .. } if func == FuncId::from_u32(3)
    ));
}

/// Every ```` ```ir ```` block of the IR reference (marked as checked here,
/// for the docs test) is valid text that prints back unchanged.
#[test]
fn reference_examples_round_trip() {
    let doc = include_str!("../../docs/ir.md");
    let mut blocks = 0;
    // The info string may go on (`file=count.kir`, for the docs harness).
    for part in doc
        .split("```ir checked-by=midend/tests/text_roundtrip.rs")
        .skip(1)
    {
        let body = &part[part.find('\n').expect("a block's first line") + 1..];
        let text = &body[..body.find("```").expect("unclosed code block")];
        assert_module_round_trips(text);
        blocks += 1;
    }
    assert_eq!(blocks, 4);
}

/// The function printed in `ssa_builder.rs`, with its numbering gap (v3).
const SUM_LOOP: &str = common::SUM_LOOP_TEXT;

#[test]
fn single_function_keeps_numbers_and_gaps() {
    let f = parse_function(SUM_LOOP).unwrap();
    assert_eq!(write_function(&f, None, SPANS), SUM_LOOP);
    assert_eq!(f.dfg.value_def(Value::from_u32(3)), ValueDef::Detached);
    assert_eq!(
        f.dfg.value_def(Value::from_u32(5)),
        ValueDef::Param(Block::from_u32(1), 1)
    );
    // The same text is also a one-function module.
    assert_module_round_trips(SUM_LOOP);
}

#[test]
fn whitespace_and_comments_are_forgiven() {
    let messy = "\n\n  ; a leading comment\ndevice   external @sum(i32)->i32{ ; header\n\
                 block0(v0:i32):   ; entry\n\n\n  v1 = iconst.i32 0;c\n\tjump block1( v1 ,v1 )\n\
                 block1(v2: i32, v5: i32):\n v4 = icmp slt v2,v0\n brif v4, block2, block3\n\
                 block2:\n v6 = iadd v5, v2\n v7 = iconst.i32 1\n v8 = iadd v2, v7\n jump block1(v8, v6)\n\
                 block3:\n return v5 }\n\n";
    let f = parse_function(messy).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(write_function(&f, None, SPANS), SUM_LOOP);
}

#[test]
fn single_function_calls_use_fn_numbers() {
    let text = "\
kernel external @k() {
block0:
    call fn3()
    return
}
";
    let f = parse_function(text).unwrap();
    assert_eq!(write_function(&f, None, SPANS), text);
    // With results, the callee's return types would be needed.
    let with_results = text.replace("    call fn3()", "    v0 = call fn3()");
    let e = parse_function(&with_results).unwrap_err();
    assert_eq!((e.line, e.col), (3, 5));
    assert_eq!(e.kind, ParseErrorKind::CallResultsNeedModule, "{e}");
    assert!(e.to_string().contains("without its module"), "{e}");
}

#[test]
fn verifier_comments_are_skipped() {
    let text = "\
device external @f() {
    ; error: something about the function
block0:
; error: something about the block
    v0 = iconst.i32 1
    ; error: something about v0
    return
}
";
    let f = parse_function(text).unwrap();
    assert_eq!(f.dfg.insts.len(), 2);
}

/// Asserts that parsing `text` as a module fails with this `line:col: message`.
fn assert_module_error(text: &str, expected: &str) {
    match parse_module(text) {
        Ok(_) => panic!("parsed, but expected the error {expected}\n{text}"),
        Err(e) => assert_eq!(e.to_string(), expected, "\n{text}"),
    }
}

fn in_function(body: &str) -> String {
    format!("device external @f(i32) {{\nblock0(v0: i32):\n{body}}}\n")
}

#[test]
fn error_messages_name_the_place() {
    assert_module_error(
        &in_function("    v1 = frobnicate v0\n    return\n"),
        "3:10: unknown opcode 'frobnicate'",
    );
    assert_module_error(&in_function("    return v7\n"), "3:12: use of undefined v7");
    assert_module_error(
        &in_function("    v0 = iconst.i32 1\n    return\n"),
        "3:5: v0 is defined twice",
    );
    assert_module_error(
        &in_function("    v1 = iadd v0\n    return\n"),
        "3:15: 'iadd' takes 2 operands, found 1",
    );
    assert_module_error(
        &in_function("    v1 = load.i7 v0\n    return\n"),
        "3:10: unknown type 'i7'",
    );
    assert_module_error(
        &in_function("    v1 = sext v0\n    return\n"),
        "3:10: 'sext' needs a type, as in 'sext.i32'",
    );
    assert_module_error(
        &in_function("    v1 = iadd.i32 v0, v0\n    return\n"),
        "3:10: 'iadd' takes no type suffix",
    );
    assert_module_error(
        &in_function("    jump block9\n"),
        "3:10: use of undefined block9",
    );
    assert_module_error(
        &in_function("    v1 = stack_addr ss0\n    return\n"),
        "3:21: use of undefined ss0",
    );
    assert_module_error(
        &in_function("    v1 = global_addr.ptr<shared> gv0\n    return\n"),
        "3:34: use of undefined gv0",
    );
    assert_module_error(
        &in_function("    v1 = call @nowhere(v0)\n    return\n"),
        "3:15: unknown function '@nowhere'",
    );
    assert_module_error(
        &in_function("    v1, v2 = iadd v0, v0\n    return\n"),
        "3:5: 'iadd' has 1 result, but 2 written",
    );
    assert_module_error(
        &in_function("    store v0, v0 volatile sometimes\n    return\n"),
        "3:27: expected end of line, found 'sometimes'",
    );
    assert_module_error(
        &in_function("    v99999999 = iconst.i32 0\n    return\n"),
        "3:5: 'v99999999': entity numbers stop at 1048576",
    );
    assert_module_error(
        "device external @f() {\nblock0:\n    return\n}\ndevice external @f() {\nblock0:\n    return\n}\n",
        "5:17: duplicate function name '@f'",
    );
    assert_module_error(
        "device external @f() {\nblock0:\n    return\n",
        "4:1: expected '}', found end of input",
    );
    assert_module_error(
        "device external @f(i32 {\n",
        "1:24: expected ')', found '{'",
    );
    assert_module_error(
        "gv0 = shared @a, size 4, align 4\ngv0 = shared @b, size 4, align 4\n",
        "2:1: gv0 is defined twice",
    );
    assert_module_error(
        "v1 = iconst.i32 0\n",
        "1:1: expected a global ('gv0 = ...') or a function ('kernel ...'), found 'v1'",
    );
    assert_module_error(
        "device external @f() {\nblock0:\n    \"str\n}\n",
        "3:5: unterminated string",
    );
    let e = parse_function(&in_function("    call @f(v0)\n    return\n")).unwrap_err();
    assert_eq!(e.line, 3);
    assert!(
        matches!(e.kind, ParseErrorKind::CallByNameNeedsModule { .. }),
        "{e}"
    );
    assert!(e.to_string().contains("needs the module"), "{e}");
}

// ---------------------------------------------------------------------------
// Random functions built through the builder.

/// The crate's splitmix64, so a failing seed reproduces.
struct Rng(stdx::rng::SplitMix64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0.next_u64()
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
}

const INTS: [Type; 5] = [Type::I1, Type::I8, Type::I16, Type::I32, Type::I64];
const FLOATS: [Type; 4] = [Type::F16, Type::BF16, Type::F32, Type::F64];
/// Spaces with a generic form (every space but tmem).
const CASTABLE: [AddrSpace; 6] = [
    AddrSpace::Global,
    AddrSpace::Shared,
    AddrSpace::Const,
    AddrSpace::Local,
    AddrSpace::Param,
    AddrSpace::SharedCluster,
];

fn any_type(r: &mut Rng) -> Type {
    r.pick(&Type::all())
}

/// A constant that fits `ty` (sign-extended to 64 bits, as `iconst` holds it).
fn random_imm(r: &mut Rng, ty: Type) -> i64 {
    (r.next() as i64) >> (64 - ty.bits())
}

/// A float constant; narrower types get values an `f32` can hold.
fn random_float(r: &mut Rng, ty: Type, allow_nan: bool) -> f64 {
    let special = [
        0.0,
        -0.0,
        1.5,
        -2.25,
        1e-7,
        1e300,
        f64::INFINITY,
        f64::NEG_INFINITY,
    ];
    let v = match r.below(4) {
        0 => r.pick(&special),
        1 => f64::from(f32::from_bits(r.next() as u32)),
        _ => f64::from_bits(r.next()),
    };
    let v = if ty == Type::F64 {
        v
    } else {
        f64::from(v as f32)
    };
    if v.is_nan() && !allow_nan {
        0.5
    } else {
        v
    }
}

fn random_name(r: &mut Rng) -> String {
    let chars = [
        'a', 'z', '_', ' ', '"', '\\', '\n', '\t', ';', '{', 'é', '\u{301}', '\0', '\'',
    ];
    (0..r.below(6)).map(|_| r.pick(&chars)).collect()
}

/// Everything a function body may refer to outside itself.
struct Env {
    sigs: Vec<Signature>,
    globals: Vec<AddrSpace>,
    allow_nan: bool,
}

/// Builds one function's body: values are drawn from the entry block and the
/// current block (both dominate the point of use), made on demand when none
/// of the wanted type exists yet.
struct BodyGen<'e> {
    r: Rng,
    env: &'e Env,
    entry_pool: Vec<Value>,
    pool: Vec<Value>,
}

impl BodyGen<'_> {
    fn get(&mut self, f: &mut Function, block: Block, ty: Type) -> Value {
        let found: Vec<Value> = self
            .entry_pool
            .iter()
            .chain(&self.pool)
            .copied()
            .filter(|&v| f.dfg.value_type(v) == ty)
            .collect();
        if !found.is_empty() && self.r.chance(80) {
            return self.r.pick(&found);
        }
        let mut c = FuncCursor::at_end(f, block);
        let v = match ty {
            t if t.is_int() => {
                let imm = random_imm(&mut self.r, t);
                c.iconst(t, imm)
            }
            Type::Ptr(AddrSpace::Local) if !c.func.stack_slots.is_empty() => {
                let n = self.r.below(c.func.stack_slots.len());
                c.stack_addr(StackSlot::from_u32(n as u32))
            }
            Type::Ptr(space) => {
                let bits = c.iconst(Type::I64, (self.r.next() >> 1) as i64);
                c.convert(Opcode::Inttoptr, Type::Ptr(space), bits)
            }
            t => {
                let value = random_float(&mut self.r, t, self.env.allow_nan);
                c.fconst(t, value)
            }
        };
        self.pool.push(v);
        v
    }

    fn flags(&mut self, f: &Function) -> MemFlags {
        let scopes: Vec<AliasScope> = f.alias_scopes.keys().collect();
        let subset = |r: &mut Rng| -> Vec<AliasScope> {
            scopes.iter().copied().filter(|_| r.chance(40)).collect()
        };
        MemFlags {
            volatile: self.r.chance(30),
            invariant: self.r.chance(30),
            scopes: subset(&mut self.r),
            noalias: subset(&mut self.r),
            align: if self.r.chance(20) {
                1u32 << self.r.below(5)
            } else {
                0
            },
            cache: if self.r.chance(20) {
                let all = CacheOp::ALL;
                Some(all[self.r.below(all.len())])
            } else {
                None
            },
        }
    }

    /// Appends one random non-terminator instruction to `block`.
    fn inst(&mut self, f: &mut Function, b: Block) {
        use Opcode::*;
        let results: Vec<Value> = match self.r.below(19) {
            0 => {
                let ty = self.r.pick(&INTS);
                let imm = random_imm(&mut self.r, ty);
                vec![FuncCursor::at_end(f, b).iconst(ty, imm)]
            }
            1 => {
                let ty = self.r.pick(&FLOATS);
                let value = random_float(&mut self.r, ty, self.env.allow_nan);
                vec![FuncCursor::at_end(f, b).fconst(ty, value)]
            }
            2 => {
                let (op, ty) = if self.r.chance(50) {
                    (self.r.pick(&[Ineg, Bnot]), self.r.pick(&INTS))
                } else {
                    (self.r.pick(&[Fneg, Fabs, Sqrt]), self.r.pick(&FLOATS))
                };
                let a = self.get(f, b, ty);
                vec![FuncCursor::at_end(f, b).unary(op, a)]
            }
            3 | 4 => {
                let (op, ty) = if self.r.chance(50) {
                    let ops = [
                        Iadd, Isub, Imul, Sdiv, Udiv, Srem, Urem, Band, Bor, Bxor, Ishl, Ushr,
                        Sshr, Smin, Smax, Umin, Umax,
                    ];
                    (self.r.pick(&ops), self.r.pick(&INTS))
                } else {
                    (
                        self.r.pick(&[Fadd, Fsub, Fmul, Fdiv, Fmin, Fmax]),
                        self.r.pick(&FLOATS),
                    )
                };
                let x = self.get(f, b, ty);
                let y = self.get(f, b, ty);
                vec![FuncCursor::at_end(f, b).binary(op, x, y)]
            }
            5 => {
                let space = self.r.pick(&AddrSpace::ALL);
                let p = self.get(f, b, Type::Ptr(space));
                let off = self.get(f, b, Type::I64);
                vec![FuncCursor::at_end(f, b).ptroffset(p, off)]
            }
            6 => {
                let ty = self.r.pick(&FLOATS);
                let [x, y, z] = [0; 3].map(|_| self.get(f, b, ty));
                vec![FuncCursor::at_end(f, b).fma(x, y, z)]
            }
            7 => {
                let ty = any_type(&mut self.r);
                let c = self.get(f, b, Type::I1);
                let x = self.get(f, b, ty);
                let y = self.get(f, b, ty);
                vec![FuncCursor::at_end(f, b).select(c, x, y)]
            }
            8 => {
                let (cond, ty) = (self.r.pick(IntCC::ALL), self.r.pick(&INTS));
                let x = self.get(f, b, ty);
                let y = self.get(f, b, ty);
                vec![FuncCursor::at_end(f, b).icmp(cond, x, y)]
            }
            9 => {
                let (cond, ty) = (self.r.pick(FloatCC::ALL), self.r.pick(&FLOATS));
                let x = self.get(f, b, ty);
                let y = self.get(f, b, ty);
                vec![FuncCursor::at_end(f, b).fcmp(cond, x, y)]
            }
            10 => {
                let (op, from, to) = match self.r.below(6) {
                    0 => (
                        self.r.pick(&[Sext, Zext]),
                        Type::I8,
                        self.r.pick(&[Type::I32, Type::I64]),
                    ),
                    1 => (Trunc, Type::I64, self.r.pick(&[Type::I1, Type::I16])),
                    2 => (
                        self.r.pick(&[Fpext, Fptrunc]),
                        self.r.pick(&FLOATS),
                        self.r.pick(&FLOATS),
                    ),
                    3 => (
                        self.r.pick(&[Sitofp, Uitofp]),
                        self.r.pick(&INTS),
                        self.r.pick(&FLOATS),
                    ),
                    4 => (
                        self.r.pick(&[Fptosi, Fptoui]),
                        self.r.pick(&FLOATS),
                        self.r.pick(&INTS),
                    ),
                    _ => (Bitcast, Type::I32, Type::F32),
                };
                let a = self.get(f, b, from);
                vec![FuncCursor::at_end(f, b).convert(op, to, a)]
            }
            11 => {
                let space = self.r.pick(&CASTABLE);
                let (from, to) = if self.r.chance(50) {
                    (space, AddrSpace::Generic)
                } else {
                    (AddrSpace::Generic, space)
                };
                let as_int = self.r.chance(30);
                let a = self.get(f, b, Type::Ptr(from));
                if as_int {
                    vec![FuncCursor::at_end(f, b).convert(Ptrtoint, Type::I64, a)]
                } else {
                    vec![FuncCursor::at_end(f, b).addrspacecast(to, a)]
                }
            }
            12 if !self.env.globals.is_empty() => {
                let n = self.r.below(self.env.globals.len());
                let space = self.env.globals[n];
                vec![FuncCursor::at_end(f, b).global_addr(space, GlobalVar::from_u32(n as u32))]
            }
            13 if !f.stack_slots.is_empty() => {
                let n = self.r.below(f.stack_slots.len());
                vec![FuncCursor::at_end(f, b).stack_addr(StackSlot::from_u32(n as u32))]
            }
            14 => {
                let ty = any_type(&mut self.r);
                let space = self.r.pick(&CASTABLE);
                let p = self.get(f, b, Type::Ptr(space));
                let flags = self.flags(f);
                vec![FuncCursor::at_end(f, b).load(ty, p, flags)]
            }
            15 => {
                let ty = any_type(&mut self.r);
                let v = self.get(f, b, ty);
                let space = self.r.pick(&CASTABLE);
                let p = self.get(f, b, Type::Ptr(space));
                let flags = self.flags(f);
                FuncCursor::at_end(f, b).store(v, p, flags);
                vec![]
            }
            16 => {
                let callee = self.r.below(self.env.sigs.len());
                let sig = &self.env.sigs[callee];
                let args = sig
                    .params
                    .iter()
                    .map(|p| self.get(f, b, p.ty))
                    .collect::<Vec<_>>();
                let func = FuncId::from_u32(callee as u32);
                let inst = FuncCursor::at_end(f, b).call(func, args, &sig.returns);
                f.dfg.inst_results(inst).to_vec()
            }
            17 => {
                let reg = self.r.pick(midend::ir::SpecialReg::ALL);
                vec![FuncCursor::at_end(f, b).special(reg)]
            }
            _ => {
                FuncCursor::at_end(f, b).barrier();
                vec![]
            }
        };
        self.pool.extend(results);
    }

    fn block_call(&mut self, f: &mut Function, b: Block, blocks: &[Block]) -> (Block, Vec<Value>) {
        let target = self.r.pick(blocks);
        let types: Vec<Type> = f
            .dfg
            .block_params(target)
            .iter()
            .map(|&p| f.dfg.value_type(p))
            .collect();
        let args = types.into_iter().map(|t| self.get(f, b, t)).collect();
        (target, args)
    }

    fn terminator(&mut self, f: &mut Function, b: Block, blocks: &[Block], last: bool) {
        match if last { 0 } else { self.r.below(8) } {
            0 | 1 => {
                let returns = f.signature.returns.clone();
                let args = returns.into_iter().map(|t| self.get(f, b, t)).collect();
                FuncCursor::at_end(f, b).ret(args);
            }
            2 => {
                FuncCursor::at_end(f, b).trap();
            }
            3..=5 => {
                let cond = self.get(f, b, Type::I1);
                let (t, targs) = self.block_call(f, b, blocks);
                let (e, eargs) = self.block_call(f, b, blocks);
                FuncCursor::at_end(f, b).brif(cond, t, targs, e, eargs);
            }
            _ => {
                let (t, args) = self.block_call(f, b, blocks);
                FuncCursor::at_end(f, b).jump(t, args);
            }
        }
    }
}

fn random_signature(r: &mut Rng) -> Signature {
    let params = (0..r.below(4))
        .map(|_| AbiParam {
            ty: any_type(r),
            attrs: ParamAttrs {
                restrict: r.chance(30),
                noalias: r.chance(30),
                grid_constant: r.chance(20),
                byval: r.chance(20).then(|| (r.below(64) as u32, 1 << r.below(5))),
                sret: r.chance(10).then(|| (r.below(64) as u32, 1 << r.below(5))),
                restrict_fields: (0..r.below(3)).map(|k| 8 * k as u32).collect(),
            },
        })
        .collect();
    let returns = (0..r.below(3)).map(|_| any_type(r)).collect();
    Signature { params, returns }
}

fn random_function(r: &mut Rng, env: &Env, id: usize) -> Function {
    let kind = if r.chance(50) {
        FuncKind::Kernel
    } else {
        FuncKind::Device
    };
    let linkage = if r.chance(50) {
        Linkage::External
    } else {
        Linkage::Internal
    };
    let mut attrs = FuncAttrs::new(kind, linkage);
    attrs.noinline = r.chance(30);
    attrs.restrict_processed = r.chance(30);
    attrs.ftz = r.chance(30);
    if r.chance(30) {
        let n = r.below(1025) as u32;
        attrs.launch_bounds = Some((n, r.chance(50).then(|| r.below(9) as u32)));
    }
    let name = format!("f{id}{}", ["", "_x", ".clone1", "$2"][r.below(4)]);
    let mut f = Function::new(name, env.sigs[id].clone(), attrs);
    for _ in 0..r.below(3) {
        let data = StackSlotData {
            size: r.below(256) as u32,
            align: 1 << r.below(5),
        };
        f.stack_slots.push(data);
    }
    for _ in 0..r.below(3) {
        f.alias_scopes.push(AliasScopeData {
            name: random_name(r),
        });
    }
    let nblocks = 1 + r.below(4);
    let mut blocks = Vec::new();
    for i in 0..nblocks {
        let b = f.dfg.make_block();
        let types: Vec<Type> = if i == 0 {
            f.signature.params.iter().map(|p| p.ty).collect()
        } else {
            (0..r.below(3)).map(|_| any_type(r)).collect()
        };
        for ty in types {
            f.dfg.append_block_param(b, ty);
        }
        f.layout.append_block(b);
        blocks.push(b);
    }
    let mut g = BodyGen {
        r: Rng(stdx::rng::SplitMix64(r.next())),
        env,
        entry_pool: Vec::new(),
        pool: Vec::new(),
    };
    for (i, &b) in blocks.iter().enumerate() {
        g.pool = f.dfg.block_params(b).to_vec();
        for _ in 0..g.r.below(10) {
            g.inst(&mut f, b);
        }
        g.terminator(&mut f, b, &blocks, i + 1 == nblocks);
        if i == 0 {
            g.entry_pool = std::mem::take(&mut g.pool);
        }
    }
    let insts: Vec<Inst> = f.layout.insts().map(|(_, i)| i).collect();
    for inst in insts {
        if r.chance(30) {
            let start = r.below(10_000) as u32;
            f.spans[inst] = SourceSpan::new(start, start + 1 + r.below(80) as u32);
        }
    }
    f
}

/// A module of one to three random functions that may call each other
/// (forward and backward) and a few random globals.
fn random_module(seed: u64, allow_nan: bool) -> Module {
    let mut r = Rng(stdx::rng::SplitMix64(seed));
    let mut m = Module::new();
    for i in 0..r.below(4) {
        let dynamic = r.chance(20);
        let space = r.pick(&AddrSpace::ALL);
        let init: Option<Vec<u8>> =
            (!dynamic && r.chance(40)).then(|| (0..r.below(24)).map(|_| r.next() as u8).collect());
        // An address in the initializer: of this variable or an earlier one.
        let relocs = match &init {
            Some(bytes) if bytes.len() >= 8 && r.chance(50) => vec![Reloc {
                offset: r.below(bytes.len() - 7) as u32,
                target: RelocTarget::Global(GlobalVar::from_u32(r.below(i + 1) as u32)),
                addend: r.below(64) as i64 - 16,
            }],
            _ => Vec::new(),
        };
        m.push_global(GlobalVarData {
            name: format!("g{i}"),
            space,
            size: if dynamic { 0 } else { r.below(4096) as u32 },
            align: 1 << r.below(5),
            init,
            relocs,
            linkage: if r.chance(50) {
                Linkage::External
            } else {
                Linkage::Internal
            },
            dynamic,
            managed: !dynamic && space == AddrSpace::Global && r.chance(30),
        });
    }
    let nfuncs = 1 + r.below(3);
    let env = Env {
        sigs: (0..nfuncs).map(|_| random_signature(&mut r)).collect(),
        globals: m.globals.values().map(|g| g.space).collect(),
        allow_nan,
    };
    for id in 0..nfuncs {
        let f = random_function(&mut r, &env, id);
        m.push_function(f);
    }
    m
}

/// Whether a function can be parsed on its own: no call has results.
fn parses_alone(f: &Function) -> bool {
    f.layout.insts().all(|(_, i)| {
        !matches!(f.dfg.insts[i], InstData::Call { .. }) || f.dfg.inst_results(i).is_empty()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn random_modules_round_trip(seed in any::<u64>()) {
        let m = random_module(seed, false);
        let text = write_module(&m, SPANS);
        let parsed = parse_module(&text).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        prop_assert_eq!(write_module(&parsed, SPANS), text.clone());
        prop_assert!(parsed == m, "structural mismatch for\n{}", text);
        for f in m.functions.values() {
            let alone = write_function(f, None, SPANS);
            match parse_function(&alone) {
                Ok(g) => {
                    prop_assert!(&g == f, "structural mismatch for\n{}", alone);
                    prop_assert_eq!(write_function(&g, None, SPANS), alone);
                }
                Err(e) => prop_assert!(!parses_alone(f), "{}\n{}", e, alone),
            }
        }
    }

    #[test]
    fn random_modules_with_nans_print_back_the_same(seed in any::<u64>()) {
        let text = write_module(&random_module(seed, true), SPANS);
        let parsed = parse_module(&text).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        prop_assert_eq!(write_module(&parsed, SPANS), text);
    }

    #[test]
    fn garbage_never_panics(text in "\\PC{0,200}") {
        let _ = parse_module(&text);
        let _ = parse_function(&text);
    }

    #[test]
    fn format_like_garbage_never_panics(text in "[a-z0-9 .,:=()<>@{}!;\"\\\\\n\\[\\]-]{0,300}") {
        let _ = parse_module(&text);
        let _ = parse_function(&text);
    }

    #[test]
    fn token_soup_never_panics(words in prop::collection::vec(0usize..TOKENS.len(), 0..120)) {
        let text: String = words.iter().map(|&i| TOKENS[i]).collect::<Vec<_>>().join(" ");
        let _ = parse_module(&text);
        let _ = parse_function(&text);
    }

    #[test]
    fn mutated_text_never_panics(
        seed in any::<u64>(),
        edits in prop::collection::vec((any::<usize>(), 0u8..3, prop::char::any()), 1..8),
    ) {
        let text = write_module(&random_module(seed, true), SPANS);
        let mut chars: Vec<char> = text.chars().collect();
        for (pos, kind, c) in edits {
            let at = pos % (chars.len() + 1);
            match kind {
                0 if at < chars.len() => { chars.remove(at); }
                1 => chars.insert(at, c),
                _ if at < chars.len() => chars[at] = c,
                _ => {}
            }
        }
        let mutated: String = chars.into_iter().collect();
        let _ = parse_module(&mutated);
        let _ = parse_function(&mutated);
    }
}

/// Pieces of valid text for the token-soup property, so random sequences
/// get past the lexer and reach the parser's deeper states.
const TOKENS: &[&str] = &[
    "\n",
    "kernel",
    "device",
    "external",
    "internal",
    "@f",
    "@g",
    "(",
    ")",
    "{",
    "}",
    ",",
    "=",
    ":",
    "->",
    "!",
    "..",
    "0",
    "1",
    "-3",
    "1.5",
    "inf",
    "-inf",
    "0x7ff8000000000000",
    "i32",
    "f32",
    "ptr<global>",
    "ptr<shared::cluster>",
    "block0",
    "block1",
    "v0",
    "v1",
    "v2",
    "ss0",
    "scope0",
    "gv0",
    "fn0",
    "fn1",
    "iadd",
    "iconst.i32",
    "fconst.f32",
    "select",
    "icmp",
    "slt",
    "fcmp",
    "olt",
    "sext.i64",
    "addrspacecast.ptr<generic>",
    "global_addr.ptr<shared>",
    "stack_addr",
    "load.f32",
    "store",
    "volatile",
    "scopes",
    "noalias",
    "call",
    "special",
    "tid.x",
    "barrier",
    "grid_barrier",
    "trap",
    "jump",
    "brif",
    "return",
    "stack",
    "align",
    "alias_scope",
    "\"s\"",
    "shared",
    "size",
    "dynamic",
    "init",
    "[",
    "]",
    "0x01",
    "restrict",
    "byval",
    "sret",
    "launch_bounds",
    "noinline",
    "; c",
];
