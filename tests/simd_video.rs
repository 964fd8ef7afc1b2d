//! CUDA's SIMD video intrinsics (`frontend/src/simd_video.rs`, lowered in
//! `frontend/src/lower/simd_video.rs`): every one that CUDA 13 declares
//! for device code, the classic two- and four-lane forms (`__vaddus4`,
//! `__vcmpgts2`, `__vsadu4`, ...) and the newer ones (`__vimax3_s16x2`,
//! `__viaddmin_u32`, `__vibmax_s32`, the `_relu` forms).
//!
//! One kernel calls each intrinsic over words whose lanes hit the edges
//! (0, 1, 0x7f, 0x80, 0xff, their 16-bit counterparts, equal and adjacent
//! lanes). kernelc's PTX on the emulator, kernelc's IR on the interpreter
//! (at -O0 and -O3) and nvcc's PTX on the emulator must give the same bits,
//! and those must equal a reference computed here from CUDA's documented
//! definition of each function. ptxas assembles kernelc's PTX for sm_80 and
//! sm_90.

mod common;

use kernelc::backend_nvptx::{self, Target};
use kernelc::driver;
use kernelc::frontend;
use kernelc::midend::ir::{Module, Type};
use kernelc::run::SplitMix64;
use ptx_emu as emu;

/// Every SIMD video intrinsic CUDA 13.5 declares in
/// `crt/device_functions.h` (checked against the header when nvcc is
/// there: `the_list_is_what_cuda_declares`); see [`names`].
const NAMES: &str = "\
    __vabs2 __vabs4 __vabsdiffs2 __vabsdiffs4 __vabsdiffu2 __vabsdiffu4 __vabsss2 \
    __vabsss4 __vadd2 __vadd4 __vaddss2 __vaddss4 __vaddus2 __vaddus4 __vavgs2 __vavgs4 \
    __vavgu2 __vavgu4 __vcmpeq2 __vcmpeq4 __vcmpges2 __vcmpges4 __vcmpgeu2 __vcmpgeu4 \
    __vcmpgts2 __vcmpgts4 __vcmpgtu2 __vcmpgtu4 __vcmples2 __vcmples4 __vcmpleu2 \
    __vcmpleu4 __vcmplts2 __vcmplts4 __vcmpltu2 __vcmpltu4 __vcmpne2 __vcmpne4 __vhaddu2 \
    __vhaddu4 __vmaxs2 __vmaxs4 __vmaxu2 __vmaxu4 __vmins2 __vmins4 __vminu2 __vminu4 \
    __vneg2 __vneg4 __vnegss2 __vnegss4 __vsads2 __vsads4 __vsadu2 __vsadu4 __vseteq2 \
    __vseteq4 __vsetges2 __vsetges4 __vsetgeu2 __vsetgeu4 __vsetgts2 __vsetgts4 \
    __vsetgtu2 __vsetgtu4 __vsetles2 __vsetles4 __vsetleu2 __vsetleu4 __vsetlts2 \
    __vsetlts4 __vsetltu2 __vsetltu4 __vsetne2 __vsetne4 __vsub2 __vsub4 __vsubss2 \
    __vsubss4 __vsubus2 __vsubus4 __vimax_s32_relu __vimax_s16x2_relu __vimin_s32_relu \
    __vimin_s16x2_relu __vimax3_s32 __vimax3_s16x2 __vimax3_u32 __vimax3_u16x2 \
    __vimin3_s32 __vimin3_s16x2 __vimin3_u32 __vimin3_u16x2 __vimax3_s32_relu \
    __vimax3_s16x2_relu __vimin3_s32_relu __vimin3_s16x2_relu __viaddmax_s32 \
    __viaddmax_s16x2 __viaddmax_u32 __viaddmax_u16x2 __viaddmin_s32 __viaddmin_s16x2 \
    __viaddmin_u32 __viaddmin_u16x2 __viaddmax_s32_relu __viaddmax_s16x2_relu \
    __viaddmin_s32_relu __viaddmin_s16x2_relu __vibmax_s32 __vibmax_u32 __vibmin_s32 \
    __vibmin_u32 __vibmax_s16x2 __vibmax_u16x2 __vibmin_s16x2 __vibmin_u16x2";

fn names() -> Vec<&'static str> {
    NAMES.split_whitespace().collect()
}

/// Inputs per intrinsic (threads of the launch).
const N: usize = 768;
const BLOCK: u32 = 128;

/// How a test kernel calls `name`: its operand count, its `bool *`
/// outputs, and whether it takes `int` (the signed 32-bit forms).
fn shape(name: &str) -> (usize, usize, bool) {
    let unary = ["__vabs2", "__vabs4", "__vabsss2", "__vabsss4"]
        .iter()
        .chain(&["__vneg2", "__vneg4", "__vnegss2", "__vnegss4"])
        .any(|n| *n == name);
    let ternary = ["max3", "min3", "addmax", "addmin"]
        .iter()
        .any(|s| name.starts_with(&format!("__vi{s}_")));
    let preds = match (name.starts_with("__vib"), name.contains("16x2")) {
        (false, _) => 0,
        (true, false) => 1,
        (true, true) => 2,
    };
    let operands = if unary {
        1
    } else if ternary {
        3
    } else {
        2
    };
    (operands, preds, name.contains("_s32"))
}

/// The CUDA source: `simd(a, b, c, out, pr, n)` stores intrinsic `k` of
/// `NAMES` of thread `i`'s inputs at `out[k * n + i]`, and its predicates
/// (`2 * hi + lo`) at `pr[k * n + i]`.
fn source() -> String {
    let mut s = String::from(
        "extern \"C\" __global__ void simd(const unsigned *a, const unsigned *b,\n\
         \x20                               const unsigned *c, unsigned *out,\n\
         \x20                               unsigned char *pr, int n) {\n\
         \x20 int i = blockIdx.x * blockDim.x + threadIdx.x;\n\
         \x20 if (i >= n) return;\n\
         \x20 unsigned x = a[i], y = b[i], z = c[i];\n",
    );
    for (k, name) in names().into_iter().enumerate() {
        let (operands, preds, int) = shape(name);
        let mut args: Vec<String> = ["x", "y", "z"][..operands]
            .iter()
            .map(|v| {
                if int {
                    format!("(int){v}")
                } else {
                    v.to_string()
                }
            })
            .collect();
        let at = format!("{k} * n + i");
        match preds {
            0 => s += &format!("  out[{at}] = (unsigned){name}({});\n", args.join(", ")),
            1 => {
                args.push("&p".into());
                s += &format!(
                    "  {{ bool p = false; out[{at}] = (unsigned){name}({}); pr[{at}] = p; }}\n",
                    args.join(", ")
                );
            }
            _ => {
                args.extend(["&h".into(), "&l".into()]);
                s += &format!(
                    "  {{ bool h = false, l = false; out[{at}] = {name}({}); \
                     pr[{at}] = 2 * h + l; }}\n",
                    args.join(", ")
                );
            }
        }
    }
    s += "}\n";
    s
}

/// A word of lanes: each lane an edge value of its width or random.
fn edge_word(r: &mut SplitMix64, base: Option<u32>) -> u32 {
    const BYTES: [u32; 8] = [0x00, 0x01, 0x7f, 0x80, 0x81, 0xfe, 0xff, 0x40];
    const HALVES: [u32; 8] = [
        0x0000, 0x0001, 0x7fff, 0x8000, 0x8001, 0xfffe, 0xffff, 0x00ff,
    ];
    let roll = r.next_u64();
    let mut w = match roll % 4 {
        0 => r.next_u64() as u32,
        1 => (0..4).fold(0, |w, k| w | BYTES[(r.next_u64() % 8) as usize] << (8 * k)),
        2 => HALVES[(r.next_u64() % 8) as usize] | HALVES[(r.next_u64() % 8) as usize] << 16,
        _ => {
            [0, 0x7fff_ffff, 0x8000_0000, 0xffff_ffff, 1, 0x8080_8080][(r.next_u64() % 6) as usize]
        }
    };
    if let Some(b) = base {
        // Equal to the other operand, or one lane off by one.
        match (roll >> 8) % 4 {
            0 => w = b,
            1 => w = b ^ (1 << (8 * ((roll >> 16) % 4))),
            2 => w = (b & 0xffff_0000) | (w & 0xffff),
            _ => {}
        }
    }
    w
}

fn inputs() -> [Vec<u32>; 3] {
    let mut r = SplitMix64(25);
    let mut a = Vec::new();
    let mut b = Vec::new();
    let mut c = Vec::new();
    for _ in 0..N {
        let x = edge_word(&mut r, None);
        let y = edge_word(&mut r, Some(x));
        let z = edge_word(&mut r, Some(y));
        a.push(x);
        b.push(y);
        c.push(z);
    }
    [a, b, c]
}

fn bytes(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn words(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// What a run leaves: the results and the predicate bytes.
type Outcome = (Vec<u32>, Vec<u8>);

/// The module and its PTX for `sm` at `level`.
fn compile(level: u8, sm: u32) -> (Module, String) {
    let src = source();
    let fe = driver::frontend_options(sm, &[]);
    let program = frontend::check(&src, &fe)
        .unwrap_or_else(|d| panic!("{}", frontend::render_diagnostics("simd.cu", &src, &d)));
    let mut module = frontend::lower(&program).expect("the kernel lowers");
    common::optimize(&mut module, level).expect("the pipeline runs");
    let target = Target::parse(&format!("sm_{sm}")).unwrap();
    let ptx = backend_nvptx::compile_module(&module, &backend_nvptx::Options::new(target))
        .expect("the backend selects the kernel");
    (module, ptx)
}

fn emulate(ptx: &str, ins: &[Vec<u32>; 3]) -> Outcome {
    let mut args: Vec<emu::KernelArg> = ins
        .iter()
        .map(|v| emu::KernelArg::Buffer(bytes(v)))
        .collect();
    args.push(emu::KernelArg::Buffer(vec![0; 4 * N * names().len()]));
    args.push(emu::KernelArg::Buffer(vec![0; N * names().len()]));
    args.push(emu::KernelArg::Scalar {
        bits: N as u64,
        bytes: 4,
        float: false,
        name: "int".into(),
    });
    let cfg = emu::LaunchConfig {
        grid: [(N as u32).div_ceil(BLOCK), 1, 1],
        block: [BLOCK, 1, 1],
        ..emu::LaunchConfig::default()
    };
    let out =
        emu::run_ptx(ptx, "simd", &args, &cfg).unwrap_or_else(|e| panic!("the emulator: {e:?}"));
    let b = out.buffers;
    (words(b[3].as_ref().unwrap()), b[4].clone().unwrap())
}

fn interpret(module: &Module, ins: &[Vec<u32>; 3]) -> Outcome {
    use kir_interp::KernelArg;
    let mut args: Vec<KernelArg> = ins.iter().map(|v| KernelArg::Buffer(bytes(v))).collect();
    args.push(KernelArg::Buffer(vec![0; 4 * N * names().len()]));
    args.push(KernelArg::Buffer(vec![0; N * names().len()]));
    args.push(KernelArg::Scalar {
        ty: Type::I32,
        bits: N as u64,
    });
    let cfg = kir_interp::LaunchConfig {
        grid: [(N as u32).div_ceil(BLOCK), 1, 1],
        block: [BLOCK, 1, 1],
        ..kir_interp::LaunchConfig::default()
    };
    let out = kir_interp::run_kernel(module, "simd", &args, &cfg)
        .unwrap_or_else(|e| panic!("the interpreter: {e:?}"));
    let b = out.buffers;
    (words(b[3].as_ref().unwrap()), b[4].clone().unwrap())
}

// ---------------------------------------------------------------------------
// The reference: CUDA's definitions, lane by lane in i64.
// ---------------------------------------------------------------------------

/// The lanes of `x` (lane 0 the low bits), each sign- or zero-extended.
fn lanes(x: u32, bits: u32, signed: bool) -> Vec<i64> {
    (0..32 / bits)
        .map(|k| {
            let raw = (u64::from(x) >> (k * bits)) & ((1u64 << bits) - 1);
            if signed && raw >> (bits - 1) == 1 {
                raw as i64 - (1i64 << bits)
            } else {
                raw as i64
            }
        })
        .collect()
}

/// The lanes `v` packed into a word, each wrapped to its width.
fn pack(v: &[i64], bits: u32) -> u32 {
    v.iter().enumerate().fold(0u64, |w, (k, &x)| {
        w | ((x as u64) & ((1u64 << bits) - 1)) << (k as u32 * bits)
    }) as u32
}

/// `v` limited to the range of a `bits`-wide lane.
fn clamp(v: i64, bits: u32, signed: bool) -> i64 {
    if signed {
        v.clamp(-(1 << (bits - 1)), (1 << (bits - 1)) - 1)
    } else {
        v.clamp(0, (1 << bits) - 1)
    }
}

/// `v` as a `bits`-wide lane holds it.
fn wrap(v: i64, bits: u32, signed: bool) -> i64 {
    lanes(v as u32 & (((1u64 << bits) - 1) as u32), bits, signed)[0]
}

/// Result and predicate bits of the intrinsic `name` on `(a, b, c)`.
fn reference(name: &str, a: u32, b: u32, c: u32) -> (u32, u8) {
    match name.strip_prefix("__vi") {
        Some(rest) => newer(rest, a, b, c),
        None => (classic(&name[3..], a, b), 0),
    }
}

fn classic(stem_and_lanes: &str, a: u32, b: u32) -> u32 {
    let (stem, lanes_in_word) = stem_and_lanes.split_at(stem_and_lanes.len() - 1);
    let bits = if lanes_in_word == "2" { 16 } else { 8 };
    // Signed: the abs and neg families, the saturating `ss` forms and the
    // `s`-suffixed ones (`maxs`, `cmpgts`, ...).
    let comparison = stem.starts_with("cmp") || stem.starts_with("set");
    let signed = matches!(
        stem,
        "abs"
            | "absss"
            | "absdiffs"
            | "addss"
            | "avgs"
            | "maxs"
            | "mins"
            | "neg"
            | "negss"
            | "sads"
            | "subss"
    ) || (comparison && stem.ends_with('s'));
    let (x, y) = (lanes(a, bits, signed), lanes(b, bits, signed));
    let sat = |v: i64| clamp(v, bits, signed);
    let each = |f: &dyn Fn(i64, i64) -> i64| -> u32 {
        let v: Vec<i64> = x.iter().zip(&y).map(|(&p, &q)| f(p, q)).collect();
        pack(&v, bits)
    };
    if let Some(cond) = stem
        .strip_prefix("cmp")
        .or_else(|| stem.strip_prefix("set"))
    {
        let yes = if stem.starts_with("cmp") { -1 } else { 1 };
        let holds = |p: i64, q: i64| match &cond[..2] {
            "eq" => p == q,
            "ne" => p != q,
            "ge" => p >= q,
            "gt" => p > q,
            "le" => p <= q,
            "lt" => p < q,
            other => panic!("comparison {other}"),
        };
        return each(&|p, q| if holds(p, q) { yes } else { 0 });
    }
    match stem {
        "abs" => each(&|p, _| p.abs()),
        "absss" => each(&|p, _| sat(p.abs())),
        "neg" => each(&|p, _| -p),
        "negss" => each(&|p, _| sat(-p)),
        "absdiffs" | "absdiffu" => each(&|p, q| (p - q).abs()),
        "add" => each(&|p, q| p + q),
        "sub" => each(&|p, q| p - q),
        "addss" | "addus" => each(&|p, q| sat(p + q)),
        "subss" | "subus" => each(&|p, q| sat(p - q)),
        // Rounded half away from zero (Rust's `/` truncates toward zero).
        "avgs" => each(&|p, q| {
            if p + q >= 0 {
                (p + q + 1) / 2
            } else {
                (p + q - 1) / 2
            }
        }),
        "avgu" => each(&|p, q| (p + q + 1) / 2),
        "haddu" => each(&|p, q| (p + q) / 2),
        "maxs" | "maxu" => each(&|p, q| p.max(q)),
        "mins" | "minu" => each(&|p, q| p.min(q)),
        "sads" | "sadu" => x
            .iter()
            .zip(&y)
            .map(|(p, q)| (p - q).unsigned_abs() as u32)
            .sum(),
        other => panic!("no reference for __v{stem_and_lanes} ({other})"),
    }
}

fn newer(rest: &str, a: u32, b: u32, c: u32) -> (u32, u8) {
    let (rest, relu) = match rest.strip_suffix("_relu") {
        Some(r) => (r, true),
        None => (rest, false),
    };
    let (stem, ty) = rest.split_once('_').unwrap();
    let signed = ty.starts_with('s');
    let bits = if ty.ends_with("16x2") { 16 } else { 32 };
    let (x, y, z) = (
        lanes(a, bits, signed),
        lanes(b, bits, signed),
        lanes(c, bits, signed),
    );
    let mut preds = 0u8;
    let mut out = Vec::new();
    for k in 0..x.len() {
        let (p, q, r) = (x[k], y[k], z[k]);
        let v = match stem {
            "max" => p.max(q),
            "min" => p.min(q),
            "max3" => p.max(q).max(r),
            "min3" => p.min(q).min(r),
            "addmax" => wrap(p + q, bits, signed).max(r),
            "addmin" => wrap(p + q, bits, signed).min(r),
            "bmax" | "bmin" => {
                let first = if stem == "bmax" { p >= q } else { p <= q };
                preds |= u8::from(first) << k;
                if first {
                    p
                } else {
                    q
                }
            }
            other => panic!("no reference for __vi{other}"),
        };
        out.push(if relu { v.max(0) } else { v });
    }
    (pack(&out, bits), preds)
}

fn reference_outcome(ins: &[Vec<u32>; 3]) -> Outcome {
    let mut out = vec![0; N * names().len()];
    let mut pr = vec![0; N * names().len()];
    for (k, name) in names().into_iter().enumerate() {
        let inputs = ins[0].iter().zip(&ins[1]).zip(&ins[2]);
        for (i, ((&a, &b), &c)) in inputs.enumerate() {
            (out[k * N + i], pr[k * N + i]) = reference(name, a, b, c);
        }
    }
    (out, pr)
}

/// Panics at the first intrinsic whose results differ, with its inputs.
fn assert_same(what: &str, got: &Outcome, want: &Outcome, ins: &[Vec<u32>; 3]) {
    for (k, name) in names().into_iter().enumerate() {
        let inputs = ins[0].iter().zip(&ins[1]).zip(&ins[2]);
        for (i, ((a, b), c)) in inputs.enumerate() {
            let at = k * N + i;
            assert!(
                got.0[at] == want.0[at] && got.1[at] == want.1[at],
                "{name}({a:#010x}, {b:#010x}, {c:#010x}): {what} gives {:#010x} (predicates \
                 {}), expected {:#010x} (predicates {})",
                got.0[at],
                got.1[at],
                want.0[at],
                want.1[at]
            );
        }
    }
}

#[test]
fn every_intrinsic_matches_nvcc_and_the_definition() {
    let ins = inputs();
    let want = reference_outcome(&ins);
    for level in [0, 3] {
        let (module, ptx) = compile(level, 90);
        assert_same(
            &format!("kernelc -O{level} on the interpreter"),
            &interpret(&module, &ins),
            &want,
            &ins,
        );
        assert_same(
            &format!("kernelc's PTX -O{level} on the emulator"),
            &emulate(&ptx, &ins),
            &want,
            &ins,
        );
    }
    let dir = common::scratch("simd-video");
    let src = dir.join("simd.cu");
    std::fs::write(&src, source()).unwrap();
    if let Some(theirs) = common::nvcc_ptx(&src, "sm_90", "the SIMD video intrinsics") {
        common::assert_ptxas_accepts(&theirs, "sm_90", "nvcc's PTX of the SIMD video intrinsics");
        assert_same(
            "nvcc's PTX on the emulator",
            &emulate(&theirs, &ins),
            &want,
            &ins,
        );
    }
}

#[test]
fn ptxas_accepts_the_intrinsics() {
    for level in [0, 3] {
        for sm in [80, 90] {
            let (_, ptx) = compile(level, sm);
            let what = format!("the SIMD video intrinsics (sm_{sm}, -O{level})");
            common::assert_ptxas_accepts(&ptx, &format!("sm_{sm}"), &what);
        }
    }
}

/// The list above is the header's: a name CUDA adds (or drops) fails here.
#[test]
fn the_list_is_what_cuda_declares() {
    let Some(nvcc) = common::nvcc_or_skip("reading CUDA's SIMD video declarations") else {
        return;
    };
    let header = nvcc
        .parent()
        .and_then(|bin| bin.parent())
        .map(|root| root.join("include/crt/device_functions.h"))
        .unwrap();
    let text =
        std::fs::read_to_string(&header).unwrap_or_else(|e| panic!("{}: {e}", header.display()));
    let hpp = std::fs::read_to_string(header.with_extension("hpp")).unwrap_or_default();
    let mut declared: Vec<String> = Vec::new();
    for t in [&text, &hpp] {
        for piece in t.split(|ch: char| !(ch.is_alphanumeric() || ch == '_')) {
            let simd = piece.starts_with("__v")
                && piece.len() > 4
                && !piece.starts_with("__volatile")
                && (piece.ends_with('2')
                    || piece.ends_with('4')
                    || piece.ends_with("_relu")
                    || piece.ends_with("32"));
            if simd && !declared.iter().any(|d| d == piece) {
                declared.push(piece.to_string());
            }
        }
    }
    declared.sort();
    let mut ours: Vec<String> = names().iter().map(|s| s.to_string()).collect();
    ours.sort();
    assert_eq!(declared, ours);
}

/// A name of the family that CUDA does not declare is an undeclared
/// identifier, as with nvcc.
#[test]
fn an_undeclared_name_of_the_family_is_an_error() {
    let err = common::rejected_with(
        "simd-undeclared",
        "__global__ void k(unsigned *p) { p[0] = __vhadd4(p[1], p[2]); }\n",
        "E0001",
    );
    assert!(err.contains("`__vhadd4`"), "{err}");
}
