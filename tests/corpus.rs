//! The outside checker: textbook CUDA kernels written the way a user writes
//! them (`tests/corpus/*.cu`), not shaped around kernelc, and broken ones
//! (`tests/corpus/broken/*.cu`). docs/testing.md describes the corpus.
//!
//! For every accepted kernel file:
//! 1. the `kernelc` binary compiles it for sm_80, sm_90 and sm_100a in both
//!    register modes, ptxas assembles each output, and a second compilation
//!    gives the same bytes;
//! 2. its launches run in the interpreter and the emulator at -O0 and -O3,
//!    and the buffers match a reference computed here in Rust (bitwise
//!    where the operations are the same, else within a stated tolerance);
//! 3. the PTX has no generic load, store or atomic in a kernel or an
//!    internal clone, restricted read-only inputs use `ld.global.nc` and
//!    written ones never do;
//! 4. nvcc compiles it too (a loud skip where nvcc is absent).
//!
//! Every broken file exits with 1, a located `file:line:col` diagnostic and
//! no output file.

mod common;

use common::{i32s, kernelc, scratch, stderr, u32s};
use kernelc::run::{execute, parse_arg, ArgValue, Engine, RunRequest};
use std::path::{Path, PathBuf};
use std::process::Command;

// ---------------------------------------------------------------- files --

/// Every accepted kernel file, with the extra options it needs.
const KERNELS: &[(&str, &[&str])] = &[
    ("byval_helpers.cu", &[]),
    ("clamps.cu", &[]),
    ("const_memory.cu", &[]),
    ("double_math.cu", &[]),
    ("dynamic_shared.cu", &[]),
    ("helpers_spaces.cu", &[]),
    ("histogram.cu", &[]),
    ("local_array.cu", &[]),
    ("matmul_tiled.cu", &[]),
    ("reduce_shuffle.cu", &[]),
    ("restrict_nc.cu", &[]),
    ("restrict_struct.cu", &["--allow-restrict-in-struct"]),
    ("restrict_struct_param.cu", &["--allow-restrict-in-struct"]),
    ("rgba_gray.cu", &[]),
    ("scan_blelloch.cu", &[]),
    ("softmax.cu", &[]),
    ("spmv_csr.cu", &[]),
    ("stencil.cu", &[]),
    ("struct_array_param.cu", &[]),
    ("struct_params.cu", &[]),
    ("struct_select.cu", &[]),
    ("struct_spaces.cu", &[]),
    ("transpose.cu", &[]),
    ("vector_float4.cu", &[]),
];

fn corpus(file: &str) -> PathBuf {
    common::root().join("tests/corpus").join(file)
}

#[test]
fn every_corpus_file_is_listed() {
    let mut on_disk: Vec<String> = std::fs::read_dir(common::root().join("tests/corpus"))
        .unwrap()
        .filter_map(|e| {
            let p = e.unwrap().path();
            (p.extension()? == "cu").then(|| p.file_name().unwrap().to_string_lossy().into())
        })
        .collect();
    on_disk.sort();
    let listed: Vec<String> = KERNELS.iter().map(|(f, _)| f.to_string()).collect();
    assert_eq!(on_disk, listed, "tests/corpus/*.cu and KERNELS differ");
}

// ------------------------------------------------------- 1. compilation --

const ARCHS: &[&str] = &["sm_80", "sm_90", "sm_100a"];
const REGALLOCS: &[&str] = &["virtual", "regalloc2"];

/// Compiles `file` with the binary, as a user does, into `dir`.
fn compile_cli(file: &str, extra: &[&str], arch: &str, regalloc: &str, dir: &Path) -> Vec<u8> {
    let out = dir.join(format!("{file}.{arch}.{regalloc}.ptx"));
    let src = corpus(file);
    let arch_flag = format!("-arch={arch}");
    let ra_flag = format!("--regalloc={regalloc}");
    let mut args = vec![
        src.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        &arch_flag,
        &ra_flag,
    ];
    args.extend_from_slice(extra);
    let o = kernelc(&args);
    assert_eq!(
        o.status.code(),
        Some(0),
        "kernelc {args:?} failed:\n{}",
        stderr(&o)
    );
    std::fs::read(&out).unwrap()
}

/// The sm_90 -O3 PTX of a file, as text.
fn ptx_sm90(file: &str) -> String {
    let extra = KERNELS.iter().find(|(f, _)| *f == file).unwrap().1;
    let dir = scratch(&format!("ptx-{file}"));
    let bytes = compile_cli(file, extra, "sm_90", "virtual", &dir);
    let _ = std::fs::remove_dir_all(&dir);
    String::from_utf8(bytes).unwrap()
}

fn compile_everywhere(file: &str) {
    let extra = KERNELS.iter().find(|(f, _)| *f == file).unwrap().1;
    let dir = scratch(&format!("compile-{file}"));
    for arch in ARCHS {
        for ra in REGALLOCS {
            let first = compile_cli(file, extra, arch, ra, &dir);
            let second = compile_cli(file, extra, arch, ra, &dir);
            assert!(
                first == second,
                "{file} -arch={arch} --regalloc={ra}: two compilations differ"
            );
            let ptx = String::from_utf8(first).unwrap();
            common::assert_ptxas_accepts(&ptx, arch, &format!("{file} ({arch}, {ra})"));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

// Split in a few tests so the two cores share the work.
#[test]
fn kernels_compile_and_assemble_a_to_h() {
    for (file, _) in KERNELS.iter().filter(|(f, _)| f < &"i") {
        compile_everywhere(file);
    }
}

#[test]
fn kernels_compile_and_assemble_i_to_r() {
    for (file, _) in KERNELS.iter().filter(|(f, _)| ("i".."s").contains(f)) {
        compile_everywhere(file);
    }
}

#[test]
fn kernels_compile_and_assemble_s_to_z() {
    for (file, _) in KERNELS.iter().filter(|(f, _)| f >= &"s") {
        compile_everywhere(file);
    }
}

// ----------------------------------------------------- 3. memory spaces --

/// The body of the function or kernel `name` in `ptx` (from its header to
/// the closing brace at the start of a line; prototypes are skipped).
fn function_body<'a>(ptx: &'a str, name: &str) -> &'a str {
    functions(ptx)
        .into_iter()
        .find(|f| f.0 == name)
        .map(|f| f.2)
        .unwrap_or_else(|| panic!("no function `{name}` in the PTX:\n{ptx}"))
}

/// The memory instructions (`ld`, `st`, `atom`, `red`) of a PTX text.
fn memory_ops(body: &str) -> Vec<&str> {
    body.lines()
        .map(str::trim)
        .filter(|l| {
            let head = l.split(['.', ' ', '\t']).next().unwrap_or("");
            matches!(head, "ld" | "st" | "atom" | "red")
        })
        .collect()
}

fn has_space(op: &str) -> bool {
    let opcode = op.split_whitespace().next().unwrap_or("");
    opcode.split('.').any(|p| {
        matches!(
            p,
            "global" | "shared" | "local" | "const" | "param" | "shared::cluster"
        )
    })
}

/// The functions of a PTX text: name, whether it is a kernel, and body.
fn functions(ptx: &str) -> Vec<(String, bool, &str)> {
    let mut out = Vec::new();
    let mut at = 0;
    for line in ptx.split_inclusive('\n') {
        let kernel = line.contains(".entry ");
        if kernel || line.starts_with(".func ") || line.starts_with(".visible .func ") {
            // The name is the identifier before the parameter list's `(`
            // (after the return value's `(...)`, if any).
            let head = line.trim_end();
            let head = head.strip_suffix('(').unwrap_or(head);
            let name = head.rsplit([' ', ')']).next().unwrap_or("").to_string();
            let rest = &ptx[at..];
            // A prototype (`.func ... name(...);`) has no body.
            let brace = rest.find("\n{").unwrap_or(rest.len());
            if rest.find(';').is_some_and(|semi| semi < brace) {
                at += line.len();
                continue;
            }
            let end = rest.find("\n}").map_or(rest.len(), |e| e + 2);
            out.push((name, kernel, &rest[..end]));
        }
        at += line.len();
    }
    out
}

/// Generic accesses in kernels and in every function they reach through
/// calls. An external `.visible .func` that no kernel reaches is the
/// generic original kept for callers kernelc cannot see (the kernels call
/// its clones), so it is left out; one that a kernel does reach counts, as
/// it would in the SASS.
fn generic_accesses(ptx: &str) -> Vec<String> {
    let funcs = functions(ptx);
    let mut reached: Vec<&str> = funcs.iter().filter(|f| f.1).map(|f| f.0.as_str()).collect();
    let mut i = 0;
    while i < reached.len() {
        let body = funcs.iter().find(|f| f.0 == reached[i]).unwrap().2;
        for (callee, _, _) in &funcs {
            let called = body.contains(&format!("call.uni {callee},"))
                || body.contains(&format!("call.uni (retval0), {callee},"));
            if called && !reached.contains(&callee.as_str()) {
                reached.push(callee);
            }
        }
        i += 1;
    }
    let mut out = Vec::new();
    for (name, _, body) in &funcs {
        if !reached.contains(&name.as_str()) {
            continue;
        }
        for op in memory_ops(body) {
            if !has_space(op) {
                out.push(format!("{name}: {op}"));
            }
        }
    }
    out
}

#[test]
fn struct_parameters_only_read_stay_in_param_space() {
    // Array members read by index (constant after unrolling, or a run-time
    // index) do not force a copy of the struct to local memory.
    let ptx = ptx_sm90("struct_array_param.cu");
    assert!(!ptx.contains(".local"), "{ptx}");
    let pick = function_body(&ptx, "pick_coeff");
    assert!(
        pick.lines()
            .any(|l| l.trim().starts_with("ld.param.f32") && l.contains("[%rd")),
        "the run-time index reads param space through a register:\n{pick}"
    );
}

#[test]
fn no_generic_access_where_the_space_is_provable() {
    // Every pointer of the corpus can be proved: none may stay generic. (The
    // pointers that travel inside a by-value struct to a helper, in
    // restrict_struct.cu, are followed through the struct's fields.)
    // byval_helpers.cu hands `&d` to a helper, which makes `d`'s bytes
    // unknown to the caller: its `src` field, passed on by value, is
    // generic there as it is in nvcc's PTX. Its other calls must be proved.
    for (file, _) in KERNELS {
        let ptx = ptx_sm90(file);
        let mut generic = generic_accesses(&ptx);
        if *file == "byval_helpers.cu" {
            assert_eq!(generic, ["_Z4eval5Mixedi: ld.f32 %f2, [%rd3];"], "{file}");
            generic.clear();
        }
        assert!(generic.is_empty(), "{file}: generic accesses {generic:?}");
    }
}

/// The global loads of one kernel, split into `.nc` and plain ones.
fn global_loads<'a>(ptx: &'a str, kernel: &str) -> (Vec<&'a str>, Vec<&'a str>) {
    memory_ops(function_body(ptx, kernel))
        .into_iter()
        .filter(|op| op.starts_with("ld.global"))
        .partition(|op| op.starts_with("ld.global.nc"))
}

#[test]
fn restricted_inputs_are_nc_and_written_pointers_are_not() {
    // saxpy: x (restrict, read only) is .nc; y (restrict, read and written)
    // is a plain load; the kernel without restrict has no .nc at all.
    let ptx = ptx_sm90("restrict_nc.cu");
    let (nc, plain) = global_loads(&ptx, "saxpy_restrict");
    assert_eq!((nc.len(), plain.len()), (1, 1), "{nc:?} {plain:?}");
    let (nc, plain) = global_loads(&ptx, "add_plain");
    assert_eq!((nc.len(), plain.len()), (0, 2), "{nc:?} {plain:?}");

    // jacobi2d: every read of `u` is .nc; stencil1d has no restrict.
    let ptx = ptx_sm90("stencil.cu");
    let (nc, plain) = global_loads(&ptx, "jacobi2d");
    assert!(nc.len() >= 5 && plain.is_empty(), "{nc:?} {plain:?}");
    let (nc, _) = global_loads(&ptx, "stencil1d");
    assert!(nc.is_empty(), "{nc:?}");

    // SpMV: all four inputs are restricted and read only.
    let ptx = ptx_sm90("spmv_csr.cu");
    let (nc, plain) = global_loads(&ptx, "spmv_csr_scalar");
    assert!(nc.len() >= 5 && plain.is_empty(), "{nc:?} {plain:?}");

    // float4: the restricted inputs are one .nc vector load each; the output
    // is one vector store; without restrict the vector load is plain.
    let ptx = ptx_sm90("vector_float4.cu");
    let (nc, plain) = global_loads(&ptx, "scale_add4");
    assert_eq!(nc.len(), 2, "{nc:?} {plain:?}");
    assert!(
        nc.iter().all(|l| l.starts_with("ld.global.nc.v4.f32")),
        "{nc:?}"
    );
    assert!(plain.is_empty(), "{plain:?}");
    let body = function_body(&ptx, "scale_add4");
    assert!(body.contains("st.global.v4.f32"), "{body}");
    let (nc, plain) = global_loads(&ptx, "norms4");
    assert!(nc.is_empty(), "{nc:?}");
    assert!(
        plain.iter().any(|l| l.starts_with("ld.global.v4.f32")),
        "{plain:?}"
    );

    // Restrict inside a struct parameter (with the flag): x is .nc, y is
    // written, so it is not.
    let ptx = ptx_sm90("restrict_struct_param.cu");
    let (nc, plain) = global_loads(&ptx, "axpy_args");
    assert_eq!((nc.len(), plain.len()), (1, 1), "{nc:?} {plain:?}");

    // No kernel of the corpus stores through a pointer it also loads with .nc:
    // every .nc base register must differ from every store's base register
    // is too fine a check for PTX text; instead, no kernel that writes its
    // only buffer uses .nc (transpose writes `out` and reads `in`, no restrict).
    let ptx = ptx_sm90("transpose.cu");
    assert!(!ptx.contains(".nc"), "transpose has no restrict:\n{ptx}");
}

#[test]
fn helpers_get_one_clone_per_space() {
    let ptx = ptx_sm90("helpers_spaces.cu");
    for (clone, space) in [
        // The helpers' PTX names are nvcc's (`window_sum(const float*)`).
        ("_Z10window_sumPKf__shared", "ld.shared.f32"),
        ("_Z10window_sumPKf__global", "ld.global.f32"),
        ("_Z10window_sumPKf__local", "ld.local.f32"),
        ("_Z4bumpPj__shared", "red.cta.shared.add.u32"),
        ("_Z4bumpPj__global", "red.global.add.u32"),
    ] {
        let body = function_body(&ptx, clone);
        let ops = memory_ops(body);
        let mem: Vec<&&str> = ops.iter().filter(|o| !o.contains(".param")).collect();
        assert!(!mem.is_empty(), "{clone}: no memory access\n{body}");
        assert!(
            mem.iter().all(|o| o.starts_with(space)),
            "{clone}: expected only {space}: {mem:?}"
        );
    }
    // The `__isShared` guard is folded in each clone: one atomic each.
    for clone in ["_Z4bumpPj__shared", "_Z4bumpPj__global"] {
        let body = function_body(&ptx, clone);
        let atomics = memory_ops(body)
            .iter()
            .filter(|o| o.starts_with("red") || o.starts_with("atom"))
            .count();
        assert_eq!(atomics, 1, "{clone}:\n{body}");
    }
}

#[test]
fn restrict_processing_is_idempotent_on_the_corpus() {
    // The -O3 IR has been through `restrict` once; running it again on that
    // IR must print the same module.
    let dir = scratch("restrict-idem");
    for (file, extra) in KERNELS {
        let ir = dir.join(format!("{file}.kir"));
        let again = dir.join(format!("{file}.again.kir"));
        let src = corpus(file);
        let mut args = vec![
            src.to_str().unwrap(),
            "--emit",
            "ir-opt",
            "-o",
            ir.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        let o = kernelc(&args);
        assert!(o.status.success(), "{file}: {}", stderr(&o));
        let mut args = vec![
            "opt",
            ir.to_str().unwrap(),
            "--passes",
            "restrict",
            "-o",
            again.to_str().unwrap(),
        ];
        if extra.contains(&"--allow-restrict-in-struct") {
            args[3] = "restrict(allow-in-struct)";
        }
        let o = kernelc(&args);
        assert!(o.status.success(), "{file}: {}", stderr(&o));
        let (a, b) = (
            std::fs::read_to_string(&ir).unwrap(),
            std::fs::read_to_string(&again).unwrap(),
        );
        assert!(a == b, "{file}: a second restrict pass changed the IR");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

// ---------------------------------------------------------------- 4. nvcc --

#[test]
fn nvcc_compiles_every_accepted_kernel() {
    let Some(nvcc) = common::nvcc_or_skip("corpus through nvcc") else {
        return;
    };
    let dir = scratch("nvcc");
    for (file, _) in KERNELS {
        let out = Command::new(&nvcc)
            .args(["-ptx", "-arch=sm_90", "-I"])
            .arg(common::root().join("include"))
            .arg(corpus(file))
            .arg("-o")
            .arg(dir.join(format!("{file}.ptx")))
            .output()
            .expect("cannot run nvcc");
        assert!(
            out.status.success(),
            "nvcc rejected tests/corpus/{file}:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

// ------------------------------------------------------------- 5. broken --

#[test]
fn broken_kernels_fail_with_a_located_diagnostic() {
    let dir = common::root().join("tests/corpus/broken");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "cu"))
        .collect();
    files.sort();
    assert!(files.len() >= 10, "{files:?}");
    let out_dir = scratch("broken");
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        // `// expect: LINE:COL: message` and optionally `// args: ...`.
        let expect = text
            .lines()
            .find_map(|l| l.strip_prefix("// expect: "))
            .unwrap_or_else(|| panic!("{}: no `// expect:` line", path.display()));
        let (place, message) = {
            let mut parts = expect.splitn(3, ':');
            let line = parts.next().unwrap();
            let col = parts.next().unwrap();
            (format!("{line}:{col}"), parts.next().unwrap().trim())
        };
        let extra: Vec<&str> = text
            .lines()
            .find_map(|l| l.strip_prefix("// args: "))
            .map(|a| a.split_whitespace().collect())
            .unwrap_or_default();
        let rel = format!(
            "tests/corpus/broken/{}",
            path.file_name().unwrap().to_string_lossy()
        );
        let out = out_dir.join("out.ptx");
        let mut args = vec![rel.as_str(), "-o", out.to_str().unwrap()];
        args.extend(extra);
        let o = kernelc(&args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{rel}: exit status\n{err}");
        assert!(
            err.contains(&format!("{rel}:{place}")),
            "{rel}: expected a diagnostic at {place}:\n{err}"
        );
        assert!(err.contains(message), "{rel}: expected `{message}`:\n{err}");
        assert!(
            !err.contains("internal compiler error") && !err.contains("panicked"),
            "{rel}:\n{err}"
        );
        assert!(!out.exists(), "{rel}: an output file was written");
    }
    // Restrict inside a struct parameter, of a kernel or of a helper, needs
    // the flag; the error points at the first access through a restricted
    // field, once (not again for the helper's clone).
    for (rel, at) in [
        ("tests/corpus/restrict_struct_param.cu", "13:25"),
        ("tests/corpus/restrict_struct.cu", "10:20"),
    ] {
        let out = out_dir.join("out.ptx");
        let o = kernelc(&[rel, "-o", out.to_str().unwrap()]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{err}");
        assert!(err.contains(&format!("{rel}:{at}")), "{err}");
        assert_eq!(
            err.matches("function contains restrict keyword in struct")
                .count(),
            1,
            "{err}"
        );
        assert!(!out.exists());
    }
    let _ = std::fs::remove_dir_all(&out_dir);
}

// --------------------------------------------------------------- 2. runs --

/// One launch of a corpus kernel and how to check what it leaves.
struct Launch {
    file: &'static str,
    kernel: &'static str,
    grid: [u32; 3],
    block: [u32; 3],
    shared_bytes: u32,
    args: Vec<String>,
    /// Whether the four runs (interp/emu at -O0/-O3) must agree bitwise.
    /// Only kernels whose results depend on approximate instructions
    /// (`ex2`) that the two engines evaluate differently may say no.
    engines_bitwise: bool,
}

impl Launch {
    fn new(file: &'static str, kernel: &'static str, grid: [u32; 3], block: [u32; 3]) -> Self {
        Launch {
            file,
            kernel,
            grid,
            block,
            shared_bytes: 0,
            args: Vec::new(),
            engines_bitwise: true,
        }
    }

    fn arg(mut self, a: impl Into<String>) -> Self {
        self.args.push(a.into());
        self
    }

    /// The initial contents of argument `k` (a buffer).
    fn input(&self, k: usize) -> Vec<u8> {
        match parse_arg(&self.args[k]).unwrap() {
            ArgValue::Buffer { bytes, .. } => bytes,
            ArgValue::Scalar { .. } | ArgValue::TensorMap { .. } | ArgValue::Texture { .. } => {
                panic!("argument {k} is not a buffer")
            }
        }
    }

    /// Runs the launch four ways and returns the buffers of each run (after
    /// checking that the four agree, when they must). Buffers are indexed by
    /// argument position; scalars, and by-value struct arguments (which the
    /// emulator does not report back), give an empty vector.
    fn run(&self) -> Vec<Vec<Vec<u8>>> {
        let mut all = Vec::new();
        for engine in [Engine::Interp, Engine::Emu] {
            for level in [0u8, 3] {
                let req = RunRequest {
                    input: corpus(self.file),
                    kernel: self.kernel.to_string(),
                    grid: self.grid,
                    block: self.block,
                    shared_bytes: self.shared_bytes,
                    opt_level: Some(level),
                    sm: 90,
                    engine,
                    args: self.args.clone(),
                    allow_restrict_in_struct: KERNELS
                        .iter()
                        .any(|(f, x)| *f == self.file && x.contains(&"--allow-restrict-in-struct")),
                    ..RunRequest::default()
                };
                let what = format!("{} {engine:?} -O{level}", self.kernel);
                let result = execute(&req).unwrap_or_else(|e| panic!("{what}:\n{e}"));
                let buffers: Vec<Vec<u8>> = result
                    .args
                    .into_iter()
                    .enumerate()
                    .map(|(k, (_, b))| {
                        let by_value = self.args[k].starts_with("u8[]:@")
                            && ["struct_params.cu", "struct_array_param.cu"].contains(&self.file)
                            && k == 0;
                        if by_value {
                            Vec::new()
                        } else {
                            b.unwrap_or_default()
                        }
                    })
                    .collect();
                all.push((what, buffers));
            }
        }
        if self.engines_bitwise {
            for (what, b) in &all[1..] {
                assert!(
                    *b == all[0].1,
                    "{what} and {} leave different buffers",
                    all[0].0
                );
            }
        }
        all.into_iter().map(|(_, b)| b).collect()
    }
}

fn f32s(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}
fn f64s(b: &[u8]) -> Vec<f64> {
    b.chunks_exact(8)
        .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
        .collect()
}
fn assert_f32_bitwise(got: &[u8], want: &[f32], what: &str) {
    let got = f32s(got);
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert_eq!(g.to_bits(), w.to_bits(), "{what}[{i}]: got {g}, want {w}");
    }
}

/// Writes `bytes` to a file in `dir` and returns the `T[]:@file` argument.
fn file_arg(dir: &Path, name: &str, elem: &str, bytes: &[u8]) -> String {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    format!("{elem}[]:@{}", path.display())
}

fn le_bytes<T: Copy, const N: usize>(v: &[T], f: fn(T) -> [u8; N]) -> Vec<u8> {
    v.iter().flat_map(|&x| f(x)).collect()
}

#[test]
fn matmul_tiled_matches_reference() {
    let (m, n, k) = (20usize, 24usize, 36usize);
    let l = Launch::new("matmul_tiled.cu", "matmul_tiled", [2, 2, 1], [16, 16, 1])
        .arg(format!("f32[]:rand:{}:1", m * k))
        .arg(format!("f32[]:rand:{}:2", k * n))
        .arg(format!("f32[]:zeros:{}", m * n))
        .arg(format!("i32:{m}"))
        .arg(format!("i32:{n}"))
        .arg(format!("i32:{k}"));
    let (a, b) = (f32s(&l.input(0)), f32s(&l.input(1)));
    // Accumulated in k order with one fused multiply-add per step
    // (--fmad=true); the zero padding of the last tile adds exact zeros.
    let mut want = vec![0f32; m * n];
    for r in 0..m {
        for c in 0..n {
            let mut acc = 0f32;
            for kk in 0..k {
                acc = a[r * k + kk].mul_add(b[kk * n + c], acc);
            }
            want[r * n + c] = acc;
        }
    }
    assert_f32_bitwise(&l.run()[0][2], &want, "C");
}

#[test]
fn transposes_match_reference() {
    let (rows, cols) = (37usize, 45usize);
    let naive = Launch::new("transpose.cu", "transpose_naive", [3, 3, 1], [16, 16, 1])
        .arg(format!("f32[]:zeros:{}", rows * cols))
        .arg(format!("f32[]:rand:{}:3", rows * cols))
        .arg(format!("i32:{rows}"))
        .arg(format!("i32:{cols}"));
    let tiled = Launch::new("transpose.cu", "transpose_tiled", [2, 2, 1], [32, 8, 1])
        .arg(format!("f32[]:zeros:{}", rows * cols))
        .arg(format!("f32[]:rand:{}:3", rows * cols))
        .arg(format!("i32:{rows}"))
        .arg(format!("i32:{cols}"));
    let input = f32s(&naive.input(1));
    let mut want = vec![0f32; rows * cols];
    for y in 0..rows {
        for x in 0..cols {
            want[x * rows + y] = input[y * cols + x];
        }
    }
    assert_f32_bitwise(&naive.run()[0][0], &want, "naive");
    assert_f32_bitwise(&tiled.run()[0][0], &want, "tiled");
}

#[test]
fn histogram_matches_reference() {
    let dir = scratch("histogram");
    let n = 3000usize;
    // A skewed byte stream, given as a file.
    let data: Vec<u8> = (0..n).map(|i| (((i * i) % 251) ^ (i % 7)) as u8).collect();
    let l = Launch::new("histogram.cu", "histogram256", [3, 1, 1], [128, 1, 1])
        .arg(file_arg(&dir, "data.bin", "u8", &data))
        .arg(format!("i32:{n}"))
        .arg("u32[]:zeros:256");
    let mut want = vec![0u32; 256];
    for &d in &data {
        want[d as usize] += 1;
    }
    assert_eq!(u32s(&l.run()[0][2]), want);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn scans_match_reference() {
    let n = 1000usize;
    let blelloch = Launch::new("scan_blelloch.cu", "scan_blelloch", [2, 1, 1], [256, 1, 1])
        .arg(format!("i32[]:rand:{n}:4"))
        .arg(format!("i32[]:zeros:{n}"))
        .arg("i32[]:zeros:2")
        .arg(format!("i32:{n}"));
    let input = i32s(&blelloch.input(0));
    let mut want = vec![0i32; n];
    let mut sums = vec![0i32; 2];
    for (seg, chunk) in input.chunks(512).enumerate() {
        let mut acc = 0i32;
        for (j, &v) in chunk.iter().enumerate() {
            want[seg * 512 + j] = acc;
            acc = acc.wrapping_add(v);
        }
        sums[seg] = acc;
    }
    let out = &blelloch.run()[0];
    assert_eq!(i32s(&out[1]), want, "exclusive scan");
    assert_eq!(i32s(&out[2]), sums, "block sums");

    let hs = Launch::new(
        "scan_blelloch.cu",
        "scan_hillis_steele",
        [4, 1, 1],
        [256, 1, 1],
    )
    .arg(format!("u32[]:rand:{n}:5"))
    .arg(format!("u32[]:zeros:{n}"))
    .arg(format!("i32:{n}"));
    let input = u32s(&hs.input(0));
    let mut want = vec![0u32; n];
    for (seg, chunk) in input.chunks(256).enumerate() {
        let mut acc = 0u32;
        for (j, &v) in chunk.iter().enumerate() {
            acc = acc.wrapping_add(v);
            want[seg * 256 + j] = acc;
        }
    }
    assert_eq!(u32s(&hs.run()[0][1]), want, "inclusive scan");
}

/// `__shfl_down_sync` over one warp's values, as the kernel's loop does it:
/// a lane whose source is past the warp keeps its own value.
fn warp_reduce_down(vals: &mut [f32; 32]) {
    let mut offset = 16;
    while offset > 0 {
        let prev = *vals;
        for l in 0..32 {
            let src = if l + offset < 32 {
                prev[l + offset]
            } else {
                prev[l]
            };
            vals[l] = prev[l] + src;
        }
        offset /= 2;
    }
}

#[test]
fn shuffle_reductions_match_reference() {
    let (n, blocks, threads) = (3000usize, 4usize, 256usize);
    let l = Launch::new(
        "reduce_shuffle.cu",
        "reduce_sum",
        [blocks as u32, 1, 1],
        [threads as u32, 1, 1],
    )
    .arg(format!("f32[]:rand:{n}:6"))
    .arg(format!("f32[]:zeros:{blocks}"))
    .arg(format!("i32:{n}"));
    let input = f32s(&l.input(0));
    // The same tree of float additions as the kernel: bitwise.
    let mut want = vec![0f32; blocks];
    for (b, w) in want.iter_mut().enumerate() {
        let mut per_thread = vec![0f32; threads];
        for (t, s) in per_thread.iter_mut().enumerate() {
            let mut i = b * threads * 2 + t;
            while i < n {
                *s += input[i];
                if i + threads < n {
                    *s += input[i + threads];
                }
                i += threads * blocks * 2;
            }
        }
        let mut warp_sums = [0f32; 32];
        for (warp, chunk) in per_thread.chunks(32).enumerate() {
            let mut v: [f32; 32] = chunk.try_into().unwrap();
            warp_reduce_down(&mut v);
            warp_sums[warp] = v[0];
        }
        let mut first = [0f32; 32];
        first[..threads / 32].copy_from_slice(&warp_sums[..threads / 32]);
        warp_reduce_down(&mut first);
        *w = first[0];
    }
    assert_f32_bitwise(&l.run()[0][1], &want, "block sums");

    let n = 1000usize;
    let l = Launch::new(
        "reduce_shuffle.cu",
        "reduce_count_atomic",
        [8, 1, 1],
        [128, 1, 1],
    )
    .arg(format!("i32[]:rand:{n}:7"))
    .arg(format!("i32:{n}"))
    .arg("u64[]:zeros:1");
    let input = i32s(&l.input(0));
    let mut want = 0u64;
    for warp in 0..(8 * 128 / 32) {
        let mut s = 0i32;
        for lane in 0..32 {
            let i = warp * 32 + lane;
            s = s.wrapping_add(if i < n { input[i] } else { 0 });
        }
        want = want.wrapping_add(s as i64 as u64);
    }
    let got = u64::from_le_bytes(l.run()[0][2][..8].try_into().unwrap());
    assert_eq!(got, want);
}

#[test]
fn stencils_match_reference() {
    let n = 1000usize;
    let l = Launch::new("stencil.cu", "stencil1d", [8, 1, 1], [128, 1, 1])
        .arg(format!("f32[]:rand:{n}:8"))
        .arg(format!("f32[]:zeros:{n}"))
        .arg(format!("i32:{n}"));
    let input = f32s(&l.input(0));
    let w = [0.05f32, 0.1, 0.2, 0.3, 0.2, 0.1, 0.05];
    let want: Vec<f32> = (0..n as i64)
        .map(|g| {
            let mut r = 0f32;
            for j in -3i64..=3 {
                let at = g + j;
                let v = if (0..n as i64).contains(&at) {
                    input[at as usize]
                } else {
                    0.0
                };
                r = w[(j + 3) as usize].mul_add(v, r);
            }
            r
        })
        .collect();
    assert_f32_bitwise(&l.run()[0][1], &want, "stencil1d");

    let (width, height) = (50usize, 30usize);
    let l = Launch::new("stencil.cu", "jacobi2d", [4, 4, 1], [16, 8, 1])
        .arg(format!("f32[]:rand:{}:9", width * height))
        .arg(format!("f32[]:zeros:{}", width * height))
        .arg(format!("i32:{width}"))
        .arg(format!("i32:{height}"));
    let u = f32s(&l.input(0));
    let mut want = vec![0f32; width * height];
    for y in 0..height {
        for x in 0..width {
            let i = y * width + x;
            want[i] = if x == 0 || y == 0 || x == width - 1 || y == height - 1 {
                u[i]
            } else {
                0.25f32 * (u[i - 1] + u[i + 1] + u[i - width] + u[i + width])
            };
        }
    }
    assert_f32_bitwise(&l.run()[0][1], &want, "jacobi2d");
}

#[test]
fn spmv_csr_matches_reference() {
    let dir = scratch("spmv");
    let (rows, cols) = (300usize, 256usize);
    // A deterministic sparsity pattern: row r has (r * 7) % 9 entries.
    let mut row_ptr = vec![0i32];
    let mut col_idx = Vec::new();
    let mut values = Vec::new();
    for r in 0..rows {
        for k in 0..(r * 7) % 9 {
            col_idx.push(((r * 13 + k * 31) % cols) as i32);
            values.push(((r + 3 * k) % 17) as f32 * 0.125 - 1.0);
        }
        row_ptr.push(col_idx.len() as i32);
    }
    let x: Vec<f32> = (0..cols).map(|i| (i as f32).sin()).collect();
    let l = Launch::new("spmv_csr.cu", "spmv_csr_scalar", [5, 1, 1], [64, 1, 1])
        .arg(format!("i32:{rows}"))
        .arg(file_arg(
            &dir,
            "row_ptr.bin",
            "i32",
            &le_bytes(&row_ptr, i32::to_le_bytes),
        ))
        .arg(file_arg(
            &dir,
            "col_idx.bin",
            "i32",
            &le_bytes(&col_idx, i32::to_le_bytes),
        ))
        .arg(file_arg(
            &dir,
            "values.bin",
            "f32",
            &le_bytes(&values, f32::to_le_bytes),
        ))
        .arg(file_arg(
            &dir,
            "x.bin",
            "f32",
            &le_bytes(&x, f32::to_le_bytes),
        ))
        .arg(format!("f32[]:zeros:{rows}"));
    let want: Vec<f32> = (0..rows)
        .map(|r| {
            let mut dot = 0f32;
            for j in row_ptr[r] as usize..row_ptr[r + 1] as usize {
                dot = values[j].mul_add(x[col_idx[j] as usize], dot);
            }
            dot
        })
        .collect();
    assert_f32_bitwise(&l.run()[0][5], &want, "y");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn softmax_matches_reference() {
    let (rows, cols) = (6usize, 100usize);
    let dir = scratch("softmax");
    let input: Vec<f32> = (0..rows * cols)
        .map(|i| ((i * 37 % 101) as f32 - 50.0) * 0.17)
        .collect();
    let mut l = Launch::new(
        "softmax.cu",
        "softmax_rows",
        [rows as u32, 1, 1],
        [64, 1, 1],
    )
    .arg(file_arg(
        &dir,
        "in.bin",
        "f32",
        &le_bytes(&input, f32::to_le_bytes),
    ))
    .arg(format!("f32[]:zeros:{}", rows * cols))
    .arg(format!("i32:{rows}"))
    .arg(format!("i32:{cols}"));
    l.engines_bitwise = true;
    for (run, out) in l.run().iter().enumerate() {
        let got = f32s(&out[1]);
        for r in 0..rows {
            let row = &input[r * cols..(r + 1) * cols];
            let max = row.iter().cloned().fold(f32::MIN, f32::max) as f64;
            let sum: f64 = row.iter().map(|&v| (v as f64 - max).exp()).sum();
            for c in 0..cols {
                let want = (row[c] as f64 - max).exp() / sum;
                let g = got[r * cols + c] as f64;
                // expf is within about 3 ulp; the sum of 100 terms and the
                // reciprocal add a few more: 1e-5 relative is generous but
                // still catches any real error.
                assert!(
                    (g - want).abs() <= 1e-5 * want.max(1e-30) + 1e-12,
                    "run {run}: softmax[{r}][{c}] = {g}, want {want}"
                );
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn struct_by_value_matches_reference() {
    let dir = scratch("struct");
    let (scale, bias, n, stride) = (1.5f32, -0.25f32, 100i32, 2i32);
    let mut params = Vec::new();
    params.extend(scale.to_le_bytes());
    params.extend(bias.to_le_bytes());
    params.extend(n.to_le_bytes());
    params.extend(stride.to_le_bytes());
    let l = Launch::new("struct_params.cu", "affine_clamp", [2, 1, 1], [64, 1, 1])
        .arg(file_arg(&dir, "params.bin", "u8", &params))
        .arg("f32[]:rand:200:10")
        .arg("f32[]:zeros:100");
    let input = f32s(&l.input(1));
    let (lo, hi) = (-scale, scale + bias);
    let want: Vec<f32> = (0..n as usize)
        .map(|i| {
            scale
                .mul_add(input[i * stride as usize], bias)
                .max(lo)
                .min(hi)
        })
        .collect();
    assert_f32_bitwise(&l.run()[0][2], &want, "affine_clamp");

    // A struct with an array member, read in place by constant and by
    // run-time indices.
    let coeffs = [0.5f32, -1.25, 2.0, 0.75, -0.5, 0.125, 1.5, -2.0];
    let (n, pick) = (300usize, 3i32);
    let mut poly = le_bytes(&coeffs, f32::to_le_bytes);
    poly.extend((n as i32).to_le_bytes());
    poly.extend(pick.to_le_bytes());
    let l = Launch::new("struct_array_param.cu", "horner", [2, 1, 1], [256, 1, 1])
        .arg(file_arg(&dir, "poly.bin", "u8", &poly))
        .arg(format!("f32[]:rand:{n}:15"))
        .arg(format!("f32[]:zeros:{n}"));
    let want: Vec<f32> = f32s(&l.input(1))
        .iter()
        .map(|&v| coeffs.iter().rev().fold(0f32, |acc, &c| acc.mul_add(v, c)))
        .collect();
    assert_f32_bitwise(&l.run()[0][2], &want, "horner");
    let l = Launch::new(
        "struct_array_param.cu",
        "pick_coeff",
        [2, 1, 1],
        [256, 1, 1],
    )
    .arg(file_arg(&dir, "poly.bin", "u8", &poly))
    .arg(format!("i32[]:rand:{n}:16"))
    .arg(format!("f32[]:zeros:{n}"));
    let want: Vec<f32> = i32s(&l.input(1))
        .iter()
        .map(|&s| coeffs[(s.wrapping_add(pick) & 7) as usize])
        .collect();
    assert_f32_bitwise(&l.run()[0][2], &want, "pick_coeff");

    // A struct of restricted pointers built in the kernel and passed by
    // value to a helper.
    let l = Launch::new("restrict_struct.cu", "axpy_view", [2, 1, 1], [256, 1, 1])
        .arg("f32[]:rand:500:11")
        .arg("f32[]:rand:500:12")
        .arg("f32:2")
        .arg("i32:500");
    let (x, y) = (f32s(&l.input(0)), f32s(&l.input(1)));
    let want: Vec<f32> = x
        .iter()
        .zip(&y)
        .map(|(x, y)| 2f32.mul_add(*x, *y))
        .collect();
    assert_f32_bitwise(&l.run()[0][1], &want, "axpy_view");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn helpers_across_spaces_match_reference() {
    let n = 300usize;
    let l = Launch::new("helpers_spaces.cu", "helpers", [5, 1, 1], [64, 1, 1])
        .arg(format!("f32[]:rand:{n}:13"))
        .arg(format!("f32[]:zeros:{}", 4 * n))
        .arg("u32[]:zeros:2")
        .arg(format!("i32:{n}"));
    let input = f32s(&l.input(0));
    let window = |p: &[f32]| p[..4].iter().fold(0f32, |s, v| s + v);
    let mut want = vec![0f32; 4 * n];
    for g in 0..=n - 4 {
        let a = window(&input[g..]);
        let half: Vec<f32> = input[g..g + 4].iter().map(|v| v * 0.5).collect();
        let c = window(&half);
        let d = if g % 2 == 1 {
            window(&input[g..g + 4].iter().map(|v| -v).collect::<Vec<_>>())
        } else {
            a
        };
        want[4 * g] = 1.0 * (2.0 * a);
        want[4 * g + 1] = a - a;
        want[4 * g + 2] = c + d;
        want[4 * g + 3] = a;
    }
    let out = &l.run()[0];
    assert_f32_bitwise(&out[1], &want, "out");
    // hits[0]: thread 0 of each of the 5 blocks; hits[1]: the threads with a
    // whole window.
    assert_eq!(u32s(&out[2]), [5, (n - 3) as u32]);
}

#[test]
fn pointers_in_structs_by_value_match_reference() {
    // Three blocks of 256 threads, the last one partial: each block copies
    // its slice to shared memory (x2) and back out (x0.5) through one
    // helper cloned per field space, then adds the shared copy to `acc`
    // through a helper that gets the pointers inside a nested struct.
    let n = 600usize;
    let l = Launch::new("struct_spaces.cu", "struct_spaces", [3, 1, 1], [256, 1, 1])
        .arg(format!("f32[]:rand:{n}:21"))
        .arg(format!("f32[]:zeros:{n}"))
        .arg(format!("f32[]:rand:{n}:22"))
        .arg(format!("i32:{n}"));
    let (input, acc) = (f32s(&l.input(0)), f32s(&l.input(2)));
    let out_want: Vec<f32> = input.iter().map(|v| 0.5 * (2.0 * v)).collect();
    let acc_want: Vec<f32> = input.iter().zip(&acc).map(|(v, a)| 2.0 * v + a).collect();
    let out = &l.run()[0];
    assert_f32_bitwise(&out[1], &out_want, "out");
    assert_f32_bitwise(&out[2], &acc_want, "acc");
}

#[test]
fn structs_built_for_by_value_calls_match_reference() {
    // Each call's struct is stored straight into its `.param` array where
    // the fields' values at the call are known, and copied from the stack
    // slot where they are not (a field set on one path only, a struct whose
    // address a helper gets); both must leave the same results.
    let n = 300usize;
    let l = Launch::new("byval_helpers.cu", "byval_helpers", [3, 1, 1], [128, 1, 1])
        .arg(format!("f32[]:rand:{n}:31"))
        .arg(format!("f32[]:zeros:{}", 5 * n))
        .arg(format!("i32:{n}"));
    let input = f32s(&l.input(0));
    let eval = |i: usize, tag: i32, base: i32, scale: f32| {
        let step = (i as i32 - 3) as i16 as i32;
        let v = input[i] * scale + 0.25f32 + (base + step * tag) as f32;
        if i % 2 == 1 {
            -v
        } else {
            v
        }
    };
    let mut want = Vec::new();
    for i in 0..n {
        let (tag, ii) = ((i & 7) as i32, i as i32);
        let r3 = (0..(i & 3) as i32).fold(0.0f32, |acc, k| acc + eval(i, tag + k, ii, 2.0));
        want.extend([
            eval(i, tag, ii, 0.5),
            eval(i, tag, ii, 2.0),
            eval(i, tag, if i % 3 == 0 { -ii } else { ii }, 2.0),
            r3,
            eval(i, tag, ii + 100, 2.0) + (ii + 100) as f32,
        ]);
    }
    let out = &l.run()[0];
    assert_f32_bitwise(&out[1], &want, "out");
}

#[test]
fn clamps_match_reference() {
    // `fold` turns these selects into `min`/`max` at -O3; -O0 keeps them.
    let l = Launch::new("clamps.cu", "clamps", [8, 1, 1], [128, 1, 1])
        .arg("i32[]:rand:1024:5")
        .arg("i32[]:rand:1024:6")
        .arg("i32[]:zeros:8192")
        .arg("u32[]:zeros:4096");
    let (a, b) = (i32s(&l.input(0)), i32s(&l.input(1)));
    let (mut o, mut u) = (Vec::new(), Vec::new());
    for i in 0..1024usize {
        let x = a[i] >> (i & 31);
        let y = b[i] >> ((i * 7) & 31);
        let (ux, uy) = (a[i] as u32, (b[i] as u32) >> (i & 15));
        o.extend([
            x.min(y),
            x.max(y),
            x.clamp(-127, 127),
            x.clamp(-5, 1000),
            x.min(3),
            if x > 10 { 10 } else { x.max(20) },
            x.min(y),
            x.max(y),
        ]);
        u.extend([
            ux.min(uy),
            ux.clamp(16, 255),
            ux.max(uy),
            uy.clamp(3, 0x8000_0000),
        ]);
    }
    let out = &l.run()[0];
    assert_eq!(i32s(&out[2]), o, "signed");
    assert_eq!(u32s(&out[3]), u, "unsigned");
    let ptx = ptx_sm90("clamps.cu");
    let body = function_body(&ptx, "clamps");
    assert!(
        body.matches("min.").count() + body.matches("max.").count() >= 12,
        "{body}"
    );
}

#[test]
fn struct_conditionals_match_reference() {
    let (n, total) = (100usize, 128usize);
    let l = Launch::new("struct_select.cu", "struct_select", [2, 1, 1], [64, 1, 1])
        .arg(format!("f32[]:rand:{}:41", 4 * total))
        .arg(format!("i32[]:rand:{}:42", 3 * total))
        .arg(format!("f32[]:zeros:{}", 4 * total))
        .arg(format!("i32[]:zeros:{}", 3 * total))
        .arg(format!("i32:{n}"));
    let (pos, pts) = (f32s(&l.input(0)), i32s(&l.input(1)));
    let mut v = Vec::new();
    let mut p: Vec<i32> = Vec::new();
    for i in 0..total {
        if i < n {
            v.extend_from_slice(&pos[4 * i..4 * i + 4]);
        } else {
            v.extend([-1.0, -2.0, -3.0, -4.0]);
        }
        let t = i % 64;
        if t & 1 == 1 {
            let j = i - t + (63 - t);
            p.extend_from_slice(&pts[3 * j..3 * j + 3]);
        } else {
            p.extend([
                (i as f32).to_bits() as i32,
                0.5f32.to_bits() as i32,
                -(i as i32),
            ]);
        }
    }
    let out = &l.run()[0];
    assert_f32_bitwise(&out[2], &v, "out");
    assert_eq!(i32s(&out[3]), p, "outp");
}

#[test]
fn rgba_to_grey_matches_reference() {
    let n = 500usize;
    let l = Launch::new("rgba_gray.cu", "rgba_gray", [4, 1, 1], [128, 1, 1])
        .arg(format!("u8[]:rand:{}:51", 4 * n))
        .arg(format!("f32[]:zeros:{n}"))
        .arg(format!("i32:{n}"));
    let px = l.input(0);
    let out = &l.run()[0];
    let got = f32s(&out[1]);
    for i in 0..n {
        let (x, y, z) = (px[4 * i] as f32, px[4 * i + 1] as f32, px[4 * i + 2] as f32);
        let want = (0.299f32 * x + 0.587 * y + 0.114 * z) / 255.0;
        assert!(
            (got[i] - want).abs() <= 1e-6,
            "pixel {i}: {} against {want}",
            got[i]
        );
    }
    let ptx = ptx_sm90("rgba_gray.cu");
    assert!(ptx.contains("ld.global.nc.v4.u8"), "{ptx}");
}

#[test]
fn local_arrays_match_reference() {
    let n = 200usize;
    let l = Launch::new("local_array.cu", "median_window", [4, 1, 1], [64, 1, 1])
        .arg(format!("i32[]:rand:{n}:14"))
        .arg(format!("i32[]:zeros:{n}"))
        .arg(format!("i32[]:zeros:{n}"))
        .arg(format!("i32:{n}"));
    let input = i32s(&l.input(0));
    let mut median = vec![0i32; n];
    let mut low = vec![0i32; n];
    for i in 0..=n - 8 {
        let mut w = input[i..i + 8].to_vec();
        let mut counts = [0i32; 8];
        for v in &w {
            counts[(v & 7) as usize] += 1;
        }
        w.sort();
        median[i] = w[4];
        low[i] = (0..8).fold(0, |p, k| p | (counts[k] << (4 * k)));
    }
    let out = &l.run()[0];
    assert_eq!(i32s(&out[1]), median, "median");
    assert_eq!(i32s(&out[2]), low, "low bits");
}

#[test]
fn dynamic_shared_matches_reference() {
    let (n, block) = (250usize, 96usize);
    let mut l = Launch::new(
        "dynamic_shared.cu",
        "reverse_segments",
        [3, 1, 1],
        [block as u32, 1, 1],
    )
    .arg(format!("i32[]:rand:{n}:15"))
    .arg(format!("i32[]:zeros:{n}"))
    .arg(format!("i32[]:zeros:{n}"))
    .arg(format!("i32:{n}"));
    l.shared_bytes = (block * 4) as u32;
    let input = i32s(&l.input(0));
    let s = |b: usize, t: usize| input.get(b * block + t).copied().unwrap_or(0);
    let mut rev = vec![0i32; n];
    let mut diff = vec![0i32; n];
    for g in 0..n {
        let (b, t) = (g / block, g % block);
        rev[g] = s(b, block - 1 - t);
        diff[g] = if t + 1 < block {
            s(b, t + 1).wrapping_sub(s(b, t))
        } else {
            0
        };
    }
    let out = &l.run()[0];
    assert_eq!(i32s(&out[1]), rev, "reversed");
    assert_eq!(i32s(&out[2]), diff, "differences");
}

#[test]
fn constant_memory_matches_reference() {
    let n = 300usize;
    let l = Launch::new("const_memory.cu", "poly_and_table", [3, 1, 1], [128, 1, 1])
        .arg(format!("f32[]:rand:{n}:16"))
        .arg(format!("f32[]:zeros:{n}"))
        .arg(format!("u32[]:rand:{n}:17"))
        .arg(format!("u32[]:zeros:{n}"))
        .arg(format!("i32:{n}"));
    let (x, bytes) = (f32s(&l.input(0)), u32s(&l.input(2)));
    let c = [1.0f32, -0.5, 0.25, -0.125, 0.0625];
    let px: Vec<f32> = x
        .iter()
        .map(|&v| (0..4).rev().fold(c[4], |p, k| p.mul_add(v, c[k])))
        .collect();
    let nib = |v: u32| (0..4).fold(0, |r, b| r | (((v >> b) & 1) << (3 - b)));
    let rev: Vec<u32> = bytes
        .iter()
        .map(|&v| {
            let b = v & 0xff;
            ((nib(b & 0xf) << 4) | nib(b >> 4)) + 7
        })
        .collect();
    let out = &l.run()[0];
    assert_f32_bitwise(&out[1], &px, "polynomial");
    assert_eq!(u32s(&out[3]), rev, "table");
}

#[test]
fn restrict_kernels_match_reference() {
    let n = 1000usize;
    let l = Launch::new("restrict_nc.cu", "saxpy_restrict", [4, 1, 1], [256, 1, 1])
        .arg(format!("i32:{n}"))
        .arg("f32:2.5")
        .arg(format!("f32[]:rand:{n}:18"))
        .arg(format!("f32[]:rand:{n}:19"));
    let (x, y) = (f32s(&l.input(2)), f32s(&l.input(3)));
    let want: Vec<f32> = x
        .iter()
        .zip(&y)
        .map(|(x, y)| 2.5f32.mul_add(*x, *y))
        .collect();
    assert_f32_bitwise(&l.run()[0][3], &want, "saxpy");

    let l = Launch::new("restrict_nc.cu", "add_plain", [4, 1, 1], [256, 1, 1])
        .arg(format!("i32:{n}"))
        .arg(format!("f32[]:rand:{n}:18"))
        .arg(format!("f32[]:iota:{n}"));
    let (x, z) = (f32s(&l.input(1)), f32s(&l.input(2)));
    let want: Vec<f32> = x.iter().zip(&z).map(|(x, z)| x + z).collect();
    assert_f32_bitwise(&l.run()[0][2], &want, "add");
}

#[test]
fn double_precision_matches_reference() {
    let dir = scratch("double");
    let n = 200usize;
    let t: Vec<f64> = (0..n).map(|i| i as f64 * 0.05).collect();
    let l = Launch::new("double_math.cu", "damped", [2, 1, 1], [128, 1, 1])
        .arg(file_arg(
            &dir,
            "t.bin",
            "f64",
            &le_bytes(&t, f64::to_le_bytes),
        ))
        .arg(format!("f64[]:zeros:{n}"))
        .arg(format!("i32:{n}"));
    let got = f64s(&l.run()[0][1]);
    for (i, &x) in t.iter().enumerate() {
        let want = (-0.5 * x).exp() * (3.0 * x).cos() + (x + 1.0).sqrt() - (1.0 + x * x).ln();
        // exp, cos and log are each within 1-2 ulp (docs/math.md); the
        // terms are at most about 10 in size.
        assert!(
            (got[i] - want).abs() <= 1e-14,
            "damped[{i}] = {}, want {want}",
            got[i]
        );
    }

    let n = 500usize;
    let l = Launch::new("double_math.cu", "sum_squares", [4, 1, 1], [128, 1, 1])
        .arg(format!("f64[]:rand:{n}:20"))
        .arg("f64[]:zeros:4")
        .arg(format!("i32:{n}"));
    let v = f64s(&l.input(0));
    let mut want = vec![0f64; 4];
    for (b, w) in want.iter_mut().enumerate() {
        let mut s: Vec<f64> = (0..128)
            .map(|t| v.get(b * 128 + t).map_or(0.0, |a| a * a))
            .collect();
        let mut stride = 64;
        while stride > 0 {
            for t in 0..stride {
                s[t] += s[t + stride];
            }
            stride /= 2;
        }
        *w = s[0];
    }
    let got = f64s(&l.run()[0][1]);
    for (g, w) in got.iter().zip(&want) {
        assert_eq!(g.to_bits(), w.to_bits(), "sum of squares: {g} vs {w}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn float4_kernels_match_reference() {
    let n4 = 128usize;
    let l = Launch::new("vector_float4.cu", "scale_add4", [2, 1, 1], [64, 1, 1])
        .arg(format!("f32[]:rand:{}:21", 4 * n4))
        .arg(format!("f32[]:rand:{}:22", 4 * n4))
        .arg(format!("f32[]:zeros:{}", 4 * n4))
        .arg("f32:0.75")
        .arg(format!("i32:{n4}"));
    let (a, b) = (f32s(&l.input(0)), f32s(&l.input(1)));
    let want: Vec<f32> = a
        .iter()
        .zip(&b)
        .map(|(a, b)| 0.75f32.mul_add(*a, *b))
        .collect();
    assert_f32_bitwise(&l.run()[0][2], &want, "scale_add4");

    let l = Launch::new("vector_float4.cu", "norms4", [2, 1, 1], [64, 1, 1])
        .arg(format!("f32[]:rand:{}:23", 4 * n4))
        .arg(format!("f32[]:zeros:{}", 2 * n4))
        .arg(format!("i32:{n4}"));
    let v = f32s(&l.input(0));
    let got = f32s(&l.run()[0][1]);
    for i in 0..n4 {
        let q = &v[4 * i..4 * i + 4];
        let sum: f64 = q.iter().map(|&x| x as f64 * x as f64).sum();
        let max = q.iter().fold(0f32, |m, x| m.max(x.abs()));
        // The sum of squares is contracted into fused multiply-adds: a few
        // roundings of at most half an ulp each.
        assert!(
            (got[2 * i] as f64 - sum).abs() <= 4.0 * f32::EPSILON as f64 * sum,
            "norms4[{i}].x = {}, want {sum}",
            got[2 * i]
        );
        assert_eq!(got[2 * i + 1].to_bits(), max.to_bits(), "norms4[{i}].y");
    }
}
