//! Every function that CUDA's `cuda_fp16.h` and `cuda_bf16.h` declare for
//! device code, read from the headers themselves.
//!
//! [`COVERED`] names each declaration (name and parameter types, see
//! [`Decl::key`]) that kernelc compiles, and [`UNSUPPORTED`] each one it
//! rejects, with the reason; `the_lists_are_what_cuda_declares` requires
//! the two together to be exactly the headers' declarations, so a function
//! that a new CUDA adds is a failure until it is placed.
//!
//! For each declaration a kernel reads arguments of its parameter types
//! from an input buffer and stores the result. kernelc must compile every
//! covered one, and its PTX and nvcc's PTX of the same kernels must leave
//! the same bits on the emulator (for the pair predicates, whose nvcc PTX
//! uses `set.*.f16x2` forms the emulator lacks, nvcc's PTX of the headers'
//! definitions through the scalar predicates), over inputs that hold NaNs,
//! infinities, subnormals, signed zeros, the largest finite values, halfway
//! cases of the roundings, and random bits. An unsupported one must be a
//! located E0002. ptxas assembles kernelc's PTX of the covered ones for
//! sm_80 and sm_90 (the `bf16` conversions from integers and `double` for
//! sm_90 only).

mod common;

use kernelc::backend_nvptx::{self, Target};
use kernelc::driver;
use kernelc::frontend;
use kernelc::run::SplitMix64;
use ptx_emu as emu;
use std::collections::BTreeSet;

/// The declarations kernelc compiles, as [`Decl::key`] writes them.
const COVERED: &str = include_str!("fixtures/half/covered.txt");

/// The declarations kernelc rejects with E0002: `key: reason` lines.
const UNSUPPORTED: &str = include_str!("fixtures/half/unsupported.txt");

/// One function declaration of the headers.
#[derive(Clone, Debug)]
struct Decl {
    ret: String,
    name: String,
    /// Parameter types as written (without `const` and defaulted ones)
    /// and names.
    params: Vec<(String, String)>,
}

/// A short spelling of a C type for the lists.
fn short(ty: &str) -> String {
    let (base, ptr) = match ty.strip_suffix('*') {
        Some(b) => (b.trim(), "*"),
        None => (ty, ""),
    };
    let s = match base {
        "__half" => "h",
        "__half2" => "h2",
        "__nv_bfloat16" => "b",
        "__nv_bfloat162" => "b2",
        "float" => "f",
        "float2" => "f2",
        "double" => "d",
        "int" => "i",
        "unsigned int" => "u",
        "short int" => "s",
        "unsigned short int" => "us",
        "long long int" => "ll",
        "unsigned long long int" => "ull",
        "signed char" => "sc",
        "unsigned char" => "uc",
        "bool" => "bool",
        "void" => "void",
        other => panic!("a type this test does not know: `{other}`"),
    };
    format!("{s}{ptr}")
}

impl Decl {
    /// `name(h,h)`: the name and the parameters' short types.
    fn key(&self) -> String {
        let ps: Vec<String> = self.params.iter().map(|(t, _)| short(t)).collect();
        format!("{}({})", self.name, ps.join(","))
    }
}

/// Reads one declaration statement (`__CUDA_..._DECL__ ... name(params)`).
fn parse_decl(stmt: &str) -> Option<Decl> {
    let open = stmt.find('(')?;
    let mut head = stmt[..open].to_string();
    // `__CUDA_FP16_DEPRECATED__(...)` prefixes: the deprecated forms.
    let mut rest = &stmt[open..];
    if head.contains("DEPRECATED__") {
        let close = rest.find(')')?;
        let after = &rest[close + 1..];
        let after = after.trim_start_matches(')');
        let open2 = after.find('(')?;
        head = format!("{} {}", head, &after[..open2]);
        head = head
            .split_whitespace()
            .filter(|w| !w.contains("DEPRECATED") && !w.contains("DEPRECATION"))
            .collect::<Vec<_>>()
            .join(" ");
        rest = &after[open2..];
    }
    let words: Vec<&str> = head
        .split_whitespace()
        .filter(|w| !(w.starts_with("__CUDA_") || w.starts_with("__NV_TL")))
        .collect();
    let (name, ret) = words.split_last()?;
    let inner = rest.strip_prefix('(')?.rsplit_once(')')?.0;
    let mut params = Vec::new();
    for p in inner.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        if p.contains('=') || p == "void" {
            continue;
        }
        let p = p.replace("const ", "").replace('*', " * ");
        let mut ws: Vec<&str> = p.split_whitespace().collect();
        let pname = ws.pop()?.to_string();
        let ty = ws.join(" ").replace(" *", "*");
        params.push((ty, pname));
    }
    Some(Decl {
        ret: ret.join(" ").replace("const ", ""),
        name: name.to_string(),
        params,
    })
}

/// The device declarations of `cuda_fp16.h` and `cuda_bf16.h`.
fn declarations(include: &std::path::Path) -> Vec<Decl> {
    let mut out = Vec::new();
    for file in ["cuda_fp16.h", "cuda_bf16.h"] {
        let text = std::fs::read_to_string(include.join(file)).unwrap();
        let mut stmt: Option<String> = None;
        for line in text.lines() {
            let t = line.trim_start();
            if stmt.is_none() {
                let first = t.split_whitespace().next().unwrap_or("");
                if first.starts_with("__CUDA_") && first.ends_with("DECL__") && !t.contains("#") {
                    stmt = Some(String::new());
                } else {
                    continue;
                }
            }
            let s = stmt.as_mut().unwrap();
            s.push(' ');
            s.push_str(t);
            if t.contains(';') || t.contains('{') {
                let s = stmt.take().unwrap();
                if let Some(body) = s.split(['{', ';']).next() {
                    if let Some(d) = parse_decl(body) {
                        out.push(d);
                    }
                }
            }
        }
    }
    out
}

/// The include folder of CUDA's own headers (beside nvcc).
fn cuda_include() -> Option<std::path::PathBuf> {
    let nvcc = common::nvcc_or_skip("reading cuda_fp16.h and cuda_bf16.h")?;
    Some(nvcc.parent()?.parent()?.join("include"))
}

fn listed(text: &str) -> Vec<String> {
    text.lines()
        .map(|l| l.split(": ").next().unwrap().trim().to_string())
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect()
}

/// Bytes per argument slot and per thread in the input buffer.
const SLOT: usize = 8;
const IN_STRIDE: usize = 4 * SLOT;
/// Bytes per thread in the output buffer: the result at 0, the target of
/// a pointer parameter at 8.
const OUT_STRIDE: usize = 16;
const N: usize = 512;
const BLOCK: u32 = 64;

fn kernel_name(k: usize) -> String {
    format!("hk{k}")
}

/// The kernel that calls `d` (number `k`).
fn kernel(d: &Decl, k: usize) -> String {
    kernel_with(d, k, None)
}

/// For a pair predicate whose nvcc PTX the emulator cannot run (the
/// `set.*.f16x2`, `set.nan` forms), the same function as CUDA's headers
/// define it through the scalar predicates (`__hbeq2` is `__heq` on both
/// lanes, `__heq2_mask` a `0xffff` per true lane, `__heq2` a 1.0 or 0.0
/// per lane, `__hisnan(a)` is `__hneu(a, a)`), with `a` and `b` its
/// operands: the reference nvcc compiles instead.
fn scalar_reference(d: &Decl) -> Option<String> {
    let bf16 = d.params.first()?.0.contains("bfloat");
    let (scalar, pair) = if bf16 {
        ("__nv_bfloat16", "__nv_bfloat162")
    } else {
        ("__half", "__half2")
    };
    let lane = |f: &str, l: &str| {
        if f == "__hisnan" {
            format!("__hneu(a.{l}, a.{l})")
        } else {
            format!("{f}(a.{l}, b.{l})")
        }
    };
    let as_lane = |p: String| format!("{scalar}({p} ? 1.0f : 0.0f)");
    let n = d.name.as_str();
    if n == "__hisnan" {
        return Some("__hneu(a, a)".into());
    }
    if let Some(rest) = n.strip_prefix("__hb") {
        let f = format!("__h{}", rest.strip_suffix('2')?);
        return Some(format!("({} && {})", lane(&f, "x"), lane(&f, "y")));
    }
    if let Some(stem) = n.strip_suffix("2_mask") {
        return Some(format!(
            "(({} ? 0xffffu : 0u) | ({} ? 0xffff0000u : 0u))",
            lane(stem, "x"),
            lane(stem, "y")
        ));
    }
    let stem = n.strip_suffix('2')?;
    Some(format!(
        "{pair}{{{}, {}}}",
        as_lane(lane(stem, "x")),
        as_lane(lane(stem, "y"))
    ))
}

/// [`kernel`], calling `reference` (an expression of operands `a`, `b`)
/// instead of `d` where given.
fn kernel_with(d: &Decl, k: usize, reference: Option<&str>) -> String {
    let mut pre = String::new();
    let mut args = Vec::new();
    for (j, (ty, pname)) in d.params.iter().enumerate() {
        let slot = format!("(in + {IN_STRIDE} * i + {})", SLOT * j);
        if let Some(base) = ty.strip_suffix('*') {
            let target = format!("(({base}*)(out + {OUT_STRIDE} * i + 8))");
            if d.name.starts_with("__ld") {
                args.push(format!("(const {base}*){slot}"));
            } else {
                // `atomicAdd`, `__st*`: the output's second slot, holding
                // the argument's bits first.
                pre.push_str(&format!("*{target} = *(const {base}*){slot}; "));
                args.push(target);
            }
        } else if pname == "mask" {
            args.push("0xffffffffu".into());
        } else {
            args.push(format!("*(const {ty}*){slot}"));
        }
    }
    let call = match reference {
        Some(expr) => {
            let operands = ["a", "b"].iter().zip(&args);
            let defs: Vec<String> = operands
                .zip(&d.params)
                .map(|((n, v), (t, _))| format!("{t} {n} = {v};"))
                .collect();
            pre.push_str(&defs.join(" "));
            expr.to_string()
        }
        None => format!("{}({})", d.name, args.join(", ")),
    };
    let store = match d.ret.as_str() {
        "void" => format!("{call};"),
        "bool" => format!("out[{OUT_STRIDE} * i] = {call} ? 1 : 0;"),
        r => format!("*({r}*)(out + {OUT_STRIDE} * i) = {call};"),
    };
    format!(
        "extern \"C\" __global__ void {}(const unsigned char* in, unsigned char* out, int n) {{\n\
         \x20   int i = blockIdx.x * blockDim.x + threadIdx.x;\n\
         \x20   if (i >= n) return;\n\
         \x20   {pre}\n\
         \x20   {store}\n}}\n",
        kernel_name(k)
    )
}

const PRELUDE: &str = "#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n";

/// The line of the call in a one-kernel source (`PRELUDE` + `kernel`).
const CALL_LINE: usize = 7;

fn f16_edges() -> Vec<u16> {
    vec![
        0x0000, 0x8000, 0x0001, 0x8001, 0x03ff, 0x0400, 0x3c00, 0xbc00, 0x7bff, 0xfbff, 0x7c00,
        0xfc00, 0x7e00, 0xfe01, 0x4200, 0x3c01, 0x3800, 0x3e00, 0xb800, 0x4900, 0x5bff, 0x7800,
    ]
}

fn bf16_edges() -> Vec<u16> {
    vec![
        0x0000, 0x8000, 0x0001, 0x8001, 0x007f, 0x0080, 0x3f80, 0xbf80, 0x7f7f, 0xff7f, 0x7f80,
        0xff80, 0x7fc0, 0xffc1, 0x4040, 0x3f81, 0x3f00, 0x3fc0, 0xbf00, 0x4120, 0x4b00, 0x4f00,
    ]
}

fn f32_edges() -> Vec<u64> {
    common::half_edges::F32_ROUNDING_EDGES
        .into_iter()
        .chain([2.5, -3.5])
        .map(|f| u64::from(f.to_bits()))
        .collect()
}

fn f64_edges() -> Vec<u64> {
    [
        0.0f64,
        -0.0,
        1.0 + 2f64.powi(-11),
        1.0 + 2f64.powi(-11) + 2f64.powi(-40),
        1.0 + 2f64.powi(-11) - 2f64.powi(-40),
        65504.0,
        65520.0,
        65519.999,
        2f64.powi(-25),
        2f64.powi(-25) + 2f64.powi(-60),
        1.0 + 2f64.powi(-8) + 2f64.powi(-50),
        1e300,
        1e-300,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        -2.5,
    ]
    .iter()
    .map(|f| f.to_bits())
    .collect()
}

fn int_edges() -> Vec<u64> {
    [
        0i64,
        1,
        -1,
        2049,
        2051,
        -2049,
        4097,
        65504,
        65519,
        65520,
        70000,
        -70000,
        127,
        128,
        -129,
        255,
        32767,
        -32768,
        i64::from(i32::MAX),
        i64::from(i32::MIN),
        i64::MAX,
        i64::MIN,
        0x0020_0000_0000_0801,
    ]
    .iter()
    .map(|&v| v as u64)
    .collect()
}

/// The edge values of a parameter type, as slot bits.
fn edges(ty: &str) -> Vec<u64> {
    let pair = |e: Vec<u16>| -> Vec<u64> {
        let n = e.len();
        (0..n)
            .map(|k| u64::from(e[k]) | u64::from(e[(k * 7 + 3) % n]) << 16)
            .collect()
    };
    match ty.trim_end_matches('*') {
        "__half" => f16_edges().into_iter().map(u64::from).collect(),
        "__nv_bfloat16" => bf16_edges().into_iter().map(u64::from).collect(),
        "__half2" => pair(f16_edges()),
        "__nv_bfloat162" => pair(bf16_edges()),
        "float" => f32_edges(),
        "float2" => {
            let e = f32_edges();
            (0..e.len())
                .map(|k| e[k] | e[(k * 5 + 2) % e.len()] << 32)
                .collect()
        }
        "double" => f64_edges(),
        _ => int_edges(),
    }
}

/// Random slot bits for a parameter type: mostly of a plausible magnitude
/// for floats.
fn random(ty: &str, pname: &str, rng: &mut SplitMix64) -> u64 {
    let r = rng.next_u64();
    if ["delta", "srcLane", "laneMask"].contains(&pname) {
        return r % 40;
    }
    match ty.trim_end_matches('*') {
        "float" => {
            let e = 100 + (r >> 40) % 60;
            (r & 0x807f_ffff) | e << 23
        }
        "float2" => {
            let lane = |b: u64| (b & 0x807f_ffff) | (110 + (b >> 24) % 40) << 23;
            lane(r) | lane(r >> 32) << 32
        }
        "double" => {
            let e = 1000 + (r >> 52) % 48;
            (r & 0x800f_ffff_ffff_ffff) | e << 52
        }
        t if t.starts_with("__") => r,
        _ => ((r as i64) >> (r >> 58)) as u64,
    }
}

/// The input buffer of `d`'s kernel: edge combinations, then random.
fn inputs(d: &Decl, rng: &mut SplitMix64) -> Vec<u8> {
    let mut buf = vec![0u8; IN_STRIDE * N];
    let lists: Vec<Vec<u64>> = d.params.iter().map(|(t, _)| edges(t)).collect();
    for t in 0..N {
        for (j, (ty, pname)) in d.params.iter().enumerate() {
            let e = &lists[j];
            let m = e.len();
            let combos = m.pow(d.params.len().min(2) as u32);
            let bits = if t < combos && pname != "delta" && pname != "srcLane" {
                let idx = match j {
                    0 => t % m,
                    1 => t / m,
                    _ => (t + t / m) % m,
                };
                e[idx]
            } else {
                random(ty, pname, rng)
            };
            let at = IN_STRIDE * t + SLOT * j;
            buf[at..at + SLOT].copy_from_slice(&bits.to_le_bytes());
        }
    }
    buf
}

fn covered_decls() -> Option<Vec<(usize, Decl)>> {
    let include = cuda_include()?;
    let covered: BTreeSet<String> = listed(COVERED).into_iter().collect();
    // `HALF_HEADERS_ONLY=__hfma` narrows a run to the names holding it.
    let only = std::env::var("HALF_HEADERS_ONLY").unwrap_or_default();
    Some(
        declarations(&include)
            .into_iter()
            .filter(|d| covered.contains(&d.key()))
            .enumerate()
            .filter(|(_, d)| d.name.contains(&only))
            .collect(),
    )
}

#[test]
fn the_lists_are_what_cuda_declares() {
    let Some(include) = cuda_include() else {
        return;
    };
    let declared: BTreeSet<String> = declarations(&include).iter().map(Decl::key).collect();
    assert!(declared.len() > 400, "{} declarations read", declared.len());
    let covered = listed(COVERED);
    let unsupported = listed(UNSUPPORTED);
    let mut ours = BTreeSet::new();
    for k in covered.iter().chain(&unsupported) {
        assert!(ours.insert(k.clone()), "{k} is listed twice");
    }
    let new: Vec<&String> = declared.difference(&ours).collect();
    let gone: Vec<&String> = ours.difference(&declared).collect();
    assert!(
        new.is_empty() && gone.is_empty(),
        "declared by CUDA but not listed: {new:?}\nlisted but not declared: {gone:?}"
    );
    for line in UNSUPPORTED.lines().filter(|l| !l.trim().is_empty()) {
        assert!(line.contains(": "), "`{line}` gives no reason");
    }
}

#[test]
fn kernelc_compiles_every_covered_function() {
    let Some(decls) = covered_decls() else {
        return;
    };
    let fe = driver::frontend_options(90, &[]);
    let mut failed = Vec::new();
    for (k, d) in &decls {
        let src = format!("{PRELUDE}{}", kernel(d, *k));
        if let Err(diags) = frontend::check(&src, &fe) {
            let text = frontend::render_diagnostics("h.cu", &src, &diags);
            failed.push(format!("{}:\n{text}", d.key()));
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

#[test]
fn every_unsupported_function_is_a_located_e0002() {
    let Some(include) = cuda_include() else {
        return;
    };
    let unsupported: BTreeSet<String> = listed(UNSUPPORTED).into_iter().collect();
    let fe = driver::frontend_options(90, &[]);
    let mut wrong = Vec::new();
    for (k, d) in declarations(&include).iter().enumerate() {
        if !unsupported.contains(&d.key()) {
            continue;
        }
        let src = format!("{PRELUDE}{}", kernel(d, k));
        let text = match frontend::check(&src, &fe) {
            Ok(_) => "compiled".to_string(),
            Err(diags) => frontend::render_diagnostics("h.cu", &src, &diags),
        };
        if !(text.contains("error[E0002]") && text.contains(&format!("h.cu:{CALL_LINE}:"))) {
            wrong.push(format!("{}:\n{text}", d.key()));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// All covered kernels in one source.
fn whole_source(decls: &[(usize, Decl)]) -> String {
    let mut s = PRELUDE.to_string();
    for (k, d) in decls {
        s.push_str(&kernel(d, *k));
    }
    s
}

fn kernelc_ptx(src: &str, arch: &str, level: u8) -> String {
    let fe = driver::frontend_options(arch[3..].parse().unwrap(), &[]);
    let program = frontend::check(src, &fe)
        .unwrap_or_else(|d| panic!("{}", frontend::render_diagnostics("h.cu", src, &d)));
    let mut module = frontend::lower(&program).expect("the kernels lower");
    common::optimize(&mut module, level).expect("the pipeline runs");
    let target = Target::parse(arch).unwrap();
    backend_nvptx::compile_module(&module, &backend_nvptx::Options::new(target))
        .expect("the backend selects the kernels")
}

/// The output buffer `kernel` leaves on the emulator, or why the emulator
/// could not run it.
fn emulate(ptx: &str, kernel: &str, input: &[u8]) -> Result<Vec<u8>, String> {
    let args = vec![
        emu::KernelArg::Buffer(input.to_vec()),
        emu::KernelArg::Buffer(vec![0; OUT_STRIDE * N]),
        emu::KernelArg::Scalar {
            bits: N as u64,
            bytes: 4,
            float: false,
            name: "int".into(),
        },
    ];
    let cfg = emu::LaunchConfig {
        grid: [(N as u32).div_ceil(BLOCK), 1, 1],
        block: [BLOCK, 1, 1],
        ..emu::LaunchConfig::default()
    };
    let out = emu::run_ptx(ptx, kernel, &args, &cfg).map_err(|e| format!("{e:?}"))?;
    Ok(out.buffers[1].clone().unwrap_or_default())
}

#[test]
fn every_covered_function_gives_nvccs_bits_on_the_emulator() {
    let Some(decls) = covered_decls() else {
        return;
    };
    let Some(nvcc) = common::nvcc_or_skip("the half functions through nvcc") else {
        return;
    };
    let src = whole_source(&decls);
    let dir = common::scratch("half-headers");
    let file = dir.join("half.cu");
    std::fs::write(&file, &src).unwrap();
    // nvcc writes bf16 comparisons for sm_80 with `set.f32`, which the
    // emulator does not run; for sm_90 they are `setp.bf16`.
    let Some(headers) = common::cuda_headers_or_skip() else {
        return;
    };
    let flags = vec!["-I".to_string(), headers.display().to_string()];
    let theirs = common::nvcc_ptx_to(&nvcc, &file, "sm_90", &flags, &dir.join("nvcc.ptx"));
    let ours: Vec<(String, String)> = [3]
        .iter()
        .map(|&l| (format!("-O{l}"), kernelc_ptx(&src, "sm_80", l)))
        .collect();
    let mut rng = SplitMix64(0x5eed_f16b);
    let inputs: Vec<Vec<u8>> = decls.iter().map(|(_, d)| inputs(d, &mut rng)).collect();
    // nvcc's PTX of each kernel on the emulator; where it uses an
    // instruction the emulator lacks (`set.eq.f16x2`), nvcc's PTX of the
    // header's definition through scalar predicates instead, all in one
    // more source.
    let mut wants: Vec<Option<Vec<u8>>> = Vec::new();
    let mut references = PRELUDE.to_string();
    for ((k, d), input) in decls.iter().zip(&inputs) {
        match emulate(&theirs, &kernel_name(*k), input) {
            Ok(w) => wants.push(Some(w)),
            Err(e) => {
                let reference = scalar_reference(d).unwrap_or_else(|| {
                    panic!("{}: nvcc's PTX does not run on the emulator: {e}", d.key())
                });
                references.push_str(&kernel_with(d, *k, Some(&reference)));
                wants.push(None);
            }
        }
    }
    let file = dir.join("references.cu");
    std::fs::write(&file, references).unwrap();
    let by_reference = common::nvcc_ptx_to(&nvcc, &file, "sm_90", &flags, &dir.join("ref.ptx"));
    let mut wrong = Vec::new();
    for (((k, d), input), want) in decls.iter().zip(&inputs).zip(wants) {
        let name = kernel_name(*k);
        let want = want.unwrap_or_else(|| {
            emulate(&by_reference, &name, input)
                .unwrap_or_else(|e| panic!("{}'s reference on the emulator: {e}", d.key()))
        });
        let input = input.as_slice();
        for (level, ptx) in &ours {
            let got = emulate(ptx, &name, input)
                .unwrap_or_else(|e| panic!("{} {level} on the emulator: {e}", d.key()));
            if let Some(t) = (0..N).find(|t| {
                want[OUT_STRIDE * t..OUT_STRIDE * (t + 1)]
                    != got[OUT_STRIDE * t..OUT_STRIDE * (t + 1)]
            }) {
                let r = OUT_STRIDE * t..OUT_STRIDE * (t + 1);
                wrong.push(format!(
                    "{} {level}, thread {t}: nvcc {:02x?}, kernelc {:02x?}, inputs {:02x?}",
                    d.key(),
                    &want[r.clone()],
                    &got[r],
                    &input[IN_STRIDE * t..IN_STRIDE * (t + 1)],
                ));
                break;
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "{} differ:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

/// Whether `d` converts an integer or a `double` to `__nv_bfloat16`:
/// kernelc writes PTX's `cvt.bf16.s32`/`.f64` for these, which ptxas
/// accepts from sm_90 only (docs/language.md, "Half precision").
fn bf16_from_int_or_double(d: &Decl) -> bool {
    let from = d.params.first().map_or("", |(t, _)| t.as_str());
    d.ret == "__nv_bfloat16" && !from.starts_with("__") && from != "float"
}

#[test]
fn ptxas_accepts_the_covered_functions() {
    let Some(decls) = covered_decls() else {
        return;
    };
    for arch in ["sm_80", "sm_90"] {
        let decls: Vec<(usize, Decl)> = decls
            .iter()
            .filter(|(_, d)| arch == "sm_90" || !bf16_from_int_or_double(d))
            .cloned()
            .collect();
        let ptx = kernelc_ptx(&whole_source(&decls), arch, 3);
        common::assert_ptxas_accepts(&ptx, arch, &format!("the half functions for {arch}"));
    }
}

/// Prints which declarations compile (a maintenance aid: `-- --ignored`).
#[test]
#[ignore]
fn classify() {
    let include = cuda_include().unwrap();
    let fe = driver::frontend_options(90, &[]);
    for (k, d) in declarations(&include).iter().enumerate() {
        let src = format!("{PRELUDE}{}", kernel(d, k));
        match frontend::check(&src, &fe) {
            Ok(_) => println!("OK {}", d.key()),
            Err(diags) => {
                let t = frontend::render_diagnostics("h.cu", &src, &diags);
                let first = t.lines().next().unwrap_or("").to_string();
                println!("NO {}: {first}", d.key());
            }
        }
    }
}

/// The operators CUDA's headers define on `__half2` and `__nv_bfloat162`
/// (`cuda_fp16.hpp`, `cuda_bf16.hpp`): `+ - * /` lane by lane, the
/// compound assignments, `++`/`--` (adding 1 to each lane), unary `-` and
/// `+`, and the comparisons, each a `bool` that holds on both lanes
/// (`!=` is `__hbneu2`).
#[test]
fn pair_operators_give_nvccs_bits_on_the_emulator() {
    // kernelc compiles the operators; nvcc, whose PTX for the pair
    // comparisons (`set.eq.u32.f16x2`) the emulator does not run, the
    // lane-by-lane scalar comparisons CUDA's header defines them as.
    let operators = "(a == b) | (a != b) << 1 | (a < b) << 2 | (a <= b) << 3 | (a > b) << 4 \
                     | (a >= b) << 5";
    let both = |f: &str| format!("(__h{f}(a.x, b.x) && __h{f}(a.y, b.y))");
    let lanes = ["eq", "neu", "lt", "le", "gt", "ge"]
        .iter()
        .enumerate()
        .map(|(k, f)| format!("{} << {k}", both(f)))
        .collect::<Vec<_>>()
        .join(" | ");
    let body = |t: &str, k: &str, cmp: &str| {
        format!(
            "extern \"C\" __global__ void {k}(const unsigned char* in, unsigned char* out, int n) {{\n\
             \x20   int i = blockIdx.x * blockDim.x + threadIdx.x;\n\
             \x20   if (i >= n) return;\n\
             \x20   {t} a = *(const {t}*)(in + 32 * i), b = *(const {t}*)(in + 32 * i + 8);\n\
             \x20   {t} c = *(const {t}*)(in + 32 * i + 16);\n\
             \x20   {t} r = a * b + c;\n\
             \x20   r += a; r -= b; r *= c; r /= a; r = -r; ++r; r--;\n\
             \x20   *({t}*)(out + 16 * i) = r;\n\
             \x20   *({t}*)(out + 16 * i + 4) = +a - b / c;\n\
             \x20   *(unsigned*)(out + 16 * i + 8) = {cmp};\n}}\n"
        )
    };
    let source = |cmp: &str| {
        format!(
            "{PRELUDE}{}{}",
            body("__half2", "pair_ops_f16", cmp),
            body("__nv_bfloat162", "pair_ops_bf16", cmp)
        )
    };
    let ours = kernelc_ptx(&source(operators), "sm_80", 3);
    common::assert_ptxas_accepts(&ours, "sm_80", "the pair operators");
    let Some(nvcc) = common::nvcc_or_skip("the pair operators through nvcc") else {
        return;
    };
    let Some(headers) = common::cuda_headers_or_skip() else {
        return;
    };
    let dir = common::scratch("half-pair-operators");
    let file = dir.join("pairs.cu");
    std::fs::write(&file, source(&lanes)).unwrap();
    let flags = vec!["-I".to_string(), headers.display().to_string()];
    let theirs = common::nvcc_ptx_to(&nvcc, &file, "sm_90", &flags, &dir.join("nvcc.ptx"));
    let mut rng = SplitMix64(0x5eed_0002);
    for (kernel, ty) in [
        ("pair_ops_f16", "__half2"),
        ("pair_ops_bf16", "__nv_bfloat162"),
    ] {
        let d = Decl {
            ret: ty.into(),
            name: kernel.into(),
            params: (0..3).map(|k| (ty.to_string(), format!("p{k}"))).collect(),
        };
        let input = inputs(&d, &mut rng);
        let want = emulate(&theirs, kernel, &input).unwrap();
        let got = emulate(&ours, kernel, &input).unwrap();
        if let Some(t) = (0..N).find(|t| {
            want[OUT_STRIDE * t..OUT_STRIDE * (t + 1)] != got[OUT_STRIDE * t..OUT_STRIDE * (t + 1)]
        }) {
            let r = OUT_STRIDE * t..OUT_STRIDE * (t + 1);
            panic!(
                "{kernel}, thread {t}: nvcc {:02x?}, kernelc {:02x?}, inputs {:02x?}",
                &want[r.clone()],
                &got[r],
                &input[IN_STRIDE * t..IN_STRIDE * (t + 1)]
            );
        }
    }
}
