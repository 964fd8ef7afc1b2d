//! `kernelc run`: every sample gives bitwise identical buffers at -O0 and
//! -O3, three samples agree with a reference written here in Rust, faults
//! are reported with their kernel, thread and source line, and the argument
//! syntax is checked.

mod common;

use common::{i32s, kernelc, scratch, stderr, stdout};

use kernelc::run::{execute, parse_arg, ArgValue, Engine, RunRequest};
use std::path::Path;
use std::process::Command;

/// The request a sample's run spec describes (the same words the CLI would
/// see after `--spec`).
fn spec_request(sample: &str, opt_level: u8) -> RunRequest {
    let root = common::root();
    let l = common::spec_launch(sample);
    RunRequest {
        input: root.join(format!("samples/{sample}.cu")),
        kernel: l.kernel,
        grid: l.grid,
        block: l.block,
        shared_bytes: l.shared_bytes,
        opt_level: Some(opt_level),
        fmad: true,
        sm: common::run_sm(&common::sample_source(sample)),
        arch: l.arch,
        defines: Vec::new(),
        engine: Engine::Interp,
        max_steps: kir_interp::DEFAULT_MAX_STEPS,
        args: l.args,
        ..RunRequest::default()
    }
}

/// The samples with a run spec that the interpreter can run. A spec line
/// `# kernelc-skip: reason` marks one it cannot (a TMA copy, a wgmma); it
/// is left out here, loudly.
fn samples() -> Vec<String> {
    common::runnable_samples()
}

/// The buffers of a run, in argument order.
fn buffers(req: &RunRequest) -> Vec<Vec<u8>> {
    let result = execute(req).unwrap_or_else(|e| panic!("{}:\n{e}", req.input.display()));
    result.args.into_iter().filter_map(|(_, b)| b).collect()
}

fn input(text: &str) -> Vec<u8> {
    match parse_arg(text).unwrap() {
        ArgValue::Buffer { bytes, .. } => bytes,
        ArgValue::Scalar { .. } | ArgValue::TensorMap { .. } | ArgValue::Texture { .. } => {
            panic!("{text} is not a buffer")
        }
    }
}

fn f32s(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn assert_bitwise(got: &[f32], want: &[f32], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert_eq!(g.to_bits(), w.to_bits(), "{what}[{i}]: got {g}, want {w}");
    }
}

#[test]
fn every_sample_has_a_run_spec_and_runs_identically_at_o0_and_o3() {
    let names = samples();
    assert!(names.len() >= 3, "{names:?}");
    for name in names {
        let o0 = buffers(&spec_request(&name, 0));
        let o3 = buffers(&spec_request(&name, 3));
        assert!(!o0.is_empty(), "{name}: the spec passes no buffer");
        assert_eq!(o0, o3, "{name}: -O0 and -O3 disagree");
    }
}

#[test]
fn vadd_matches_a_rust_reference() {
    let req = spec_request("vadd", 3);
    assert_eq!(req.args[3], "i32:1000");
    let a = f32s(&input(&req.args[0]));
    let b = f32s(&input(&req.args[1]));
    let want: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
    let out = buffers(&req);
    assert_bitwise(&f32s(&out[2]), &want, "vadd c");
    assert_eq!(out[0], input(&req.args[0]), "a is unchanged");
}

#[test]
fn saxpy_matches_a_rust_reference() {
    let req = spec_request("saxpy", 3);
    assert_eq!(req.args[..2], ["i32:5000", "f32:2.5"]);
    let x = f32s(&input(&req.args[2]));
    let y = f32s(&input(&req.args[3]));
    // `a * x[i] + y[i]` contracted to one fused multiply-add (`--fmad=true`,
    // nvcc's default): one rounding.
    let want: Vec<f32> = x
        .iter()
        .zip(&y)
        .map(|(x, y)| 2.5f32.mul_add(*x, *y))
        .collect();
    let out = buffers(&req);
    assert_bitwise(&f32s(&out[1]), &want, "saxpy y");
}

/// With `--fmad=false` the multiply and the add round separately, at every
/// `-O` level, and the results differ from the contracted ones.
#[test]
fn saxpy_without_contraction_rounds_twice() {
    let mut req = spec_request("saxpy", 3);
    req.fmad = false;
    let x = f32s(&input(&req.args[2]));
    let y = f32s(&input(&req.args[3]));
    let want: Vec<f32> = x.iter().zip(&y).map(|(x, y)| 2.5 * x + y).collect();
    let fused: Vec<f32> = x
        .iter()
        .zip(&y)
        .map(|(x, y)| 2.5f32.mul_add(*x, *y))
        .collect();
    assert_ne!(want, fused, "the inputs must tell the two apart");
    for level in [0, 3] {
        req.opt_level = Some(level);
        let out = buffers(&req);
        assert_bitwise(
            &f32s(&out[1]),
            &want,
            &format!("saxpy y at -O{level}, --fmad=false"),
        );
    }
}

/// matmul_clamp.cu, transcribed.
fn matmul_clamp_reference(a: &[f32], b: &[f32], n: usize, limit: f32) -> Vec<f32> {
    let mut c = vec![0f32; n * n];
    for row in 0..n {
        for col in 0..n {
            let mut acc = 0f32;
            for k in 0..n {
                // Contracted to an fma, as the kernel's `acc += A * B` is.
                acc = a[row * n + k].mul_add(b[k * n + col], acc);
            }
            let mut halvings = 0;
            while halvings < 4 {
                if acc <= limit && acc >= -limit {
                    break;
                }
                acc *= 0.5;
                halvings += 1;
            }
            for i in 0..halvings {
                for j in 0..2 {
                    if (i + j) % 2 == 0 {
                        acc += 0.25;
                    } else {
                        acc -= 0.25;
                    }
                }
            }
            let clamped = if acc < -limit {
                -limit
            } else if acc > limit {
                limit
            } else {
                acc
            };
            c[row * n + col] = clamped + halvings as f32;
        }
    }
    c
}

#[test]
fn matmul_clamp_matches_a_rust_reference() {
    let req = spec_request("matmul_clamp", 3);
    assert_eq!(req.args[3..], ["i32:20", "f32:4.0"]);
    let a = f32s(&input(&req.args[0]));
    let b = f32s(&input(&req.args[1]));
    let want = matmul_clamp_reference(&a, &b, 20, 4.0);
    assert!(
        want.iter().any(|&v| v > 4.0),
        "the spec exercises the halving loop"
    );
    let out = buffers(&req);
    assert_bitwise(&f32s(&out[2]), &want, "matmul_clamp C");
}

// ---------------------------------------------------------------------------
// The command line.
// ---------------------------------------------------------------------------

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

/// Runs and expects exit code 1; returns stderr.
fn fails(args: &[&str]) -> String {
    let out = kernelc(args);
    assert_eq!(out.status.code(), Some(1), "{args:?}: {}", stderr(&out));
    stderr(&out)
}

/// A by-value struct kernel parameter takes a buffer holding its bytes; the
/// kernel may modify its own copy. Both engines agree with the reference.
#[test]
fn struct_parameter_by_value() {
    let dir = scratch("struct");
    let src = write(
        &dir,
        "s.cu",
        "struct Params { float scale; int n; double bias; };\n\
         extern \"C\" __global__ void apply(Params p, const float* in, float* out) {\n\
             int i = blockIdx.x * blockDim.x + threadIdx.x;\n\
             if (i < p.n) { p.scale += 1.0f; out[i] = in[i] * p.scale + (float)p.bias; }\n\
         }\n",
    );
    let mut params = Vec::new();
    params.extend(2.0f32.to_le_bytes());
    params.extend(5i32.to_le_bytes());
    params.extend(0.5f64.to_le_bytes());
    let bin = dir.join("params.bin");
    std::fs::write(&bin, &params).unwrap();
    let p = format!("u8[]:@{}", bin.display());
    for engine in ["interp", "emu"] {
        let out_dir = dir.join(engine).display().to_string();
        let out = kernelc(&[
            "run",
            &src,
            "--kernel",
            "apply",
            "--grid",
            "1",
            "--block",
            "8",
            "--engine",
            engine,
            &p,
            "f32[]:iota:8",
            "f32[]:zeros:8",
            "--out",
            &out_dir,
        ]);
        assert!(out.status.success(), "{engine}: {}", stderr(&out));
        let got = f32s(&std::fs::read(dir.join(engine).join("arg2.bin")).unwrap());
        let want: Vec<f32> = (0..8)
            .map(|i| {
                if i < 5 {
                    (i as f32).mul_add(3.0, 0.5)
                } else {
                    0.0
                }
            })
            .collect();
        assert_bitwise(&got, &want, engine);
    }
}

#[test]
fn spec_run_prints_summaries_and_writes_buffers() {
    let dir = scratch("spec");
    let d = dir.display().to_string();
    let out = kernelc(&[
        "run",
        "samples/vadd.cu",
        "--spec",
        "samples/vadd.run",
        "--out",
        &d,
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert_eq!(text.lines().count(), 3, "{text}");
    assert!(
        text.starts_with("arg0 f32[1000]: first 0, 1, 2, ... sum 499500\n"),
        "{text}"
    );
    assert!(text.contains("arg2 f32[1000]: first "), "{text}");
    let c = std::fs::read(dir.join("arg2.bin")).unwrap();
    assert_eq!(c.len(), 4000);
    assert!(!dir.join("arg3.bin").exists(), "scalars are not written");
    // The same run typed out in full, with nvcc's -arch spelling.
    let typed = kernelc(&[
        "run",
        "samples/vadd.cu",
        "-arch=sm_90",
        "-O0",
        "--kernel",
        "vadd",
        "--grid",
        "4",
        "--block",
        "256",
        "f32[]:iota:1000",
        "f32[]:rand:1000:7",
        "f32[]:zeros:1000",
        "i32:1000",
    ]);
    assert_eq!(stdout(&typed), text);
}

#[test]
fn buffers_from_files_round_trip() {
    let dir = scratch("file");
    let data: Vec<u8> = (0..64i32).flat_map(|i| (i * 3).to_le_bytes()).collect();
    let path = dir.join("a.bin");
    std::fs::write(&path, &data).unwrap();
    let a = format!("f32[]:@{}", path.display());
    let out_dir = dir.join("out").display().to_string();
    let out = kernelc(&[
        "run",
        "samples/vadd.cu",
        "--kernel",
        "vadd",
        "--grid",
        "1",
        "--block",
        "64",
        &a,
        "f32[]:zeros:64",
        "f32[]:zeros:64",
        "i32:64",
        "--out",
        &out_dir,
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    // c = a + 0 reproduces a's bits (they are small non-NaN floats).
    assert_eq!(std::fs::read(dir.join("out/arg2.bin")).unwrap(), data);
    assert_eq!(std::fs::read(dir.join("out/arg0.bin")).unwrap(), data);
}

#[test]
fn out_of_bounds_fault_names_the_thread_and_the_source_line() {
    let err = fails(&[
        "run",
        "samples/vadd.cu",
        "--kernel",
        "vadd",
        "--grid",
        "4",
        "--block",
        "256",
        "f32[]:zeros:1000",
        "f32[]:zeros:1000",
        "f32[]:zeros:1000",
        "i32:1024",
    ]);
    assert!(
        err.contains("kernel fault: load.f32: out-of-bounds access"),
        "{err}"
    );
    assert!(
        err.contains("offset 4000 of global buffer arg0 (4000 bytes)"),
        "{err}"
    );
    assert!(
        err.contains("in kernel `vadd`, block (3,0,0), thread (232,0,0)"),
        "{err}"
    );
    assert!(err.contains("samples/vadd.cu:11:"), "{err}");
    assert!(err.contains("c[i] = a[i] + b[i];"), "{err}");
}

/// The cast itself is no fault (passes run casts speculatively, as PTX's
/// `cvta` allows): the store through the cast pointer is.
#[test]
fn an_access_through_a_wrong_space_cast_faults_in_ir_input() {
    let dir = scratch("cast");
    let kir = write(
        &dir,
        "cast.kir",
        "\
gv0 = shared @tile, size 64, align 4

kernel external @k(ptr<global>) {
block0(v0: ptr<global>):
    v1 = addrspacecast.ptr<generic> v0
    v2 = addrspacecast.ptr<shared> v1 !40..52
    v3 = iconst.i32 1
    store v3, v2 !60..70
    return
}
",
    );
    let err = fails(&[
        "run",
        &kir,
        "--kernel",
        "k",
        "--grid",
        "1",
        "--block",
        "2",
        "i32[]:zeros:4",
    ]);
    assert!(
        err.contains(
            "kernel fault: store.i32: access through a ptr<shared> to an address in global memory"
        ),
        "{err}"
    );
    assert!(
        err.contains("block (0,0,0), thread (0,0,0), at IR inst3"),
        "{err}"
    );
    assert!(err.contains("source bytes 60..70"), "{err}");
}

#[test]
fn barrier_divergence_and_infinite_loops_are_reported() {
    let dir = scratch("diverge");
    let cu = write(
        &dir,
        "diverge.cu",
        "\
extern \"C\" __global__ void early(float* out)
{
    if (threadIdx.x >= 4)
        return;
    __syncthreads();
    out[threadIdx.x] = 1.0f;
}

extern \"C\" __global__ void spin(int* flag)
{
    while (flag[0] == 0) {
    }
}
",
    );
    let err = fails(&[
        "run",
        &cu,
        "--kernel",
        "early",
        "--grid",
        "1",
        "--block",
        "32",
        "f32[]:zeros:32",
    ]);
    assert!(
        err.contains("barrier divergence: 4 of 32 threads of the block wait at a barrier"),
        "{err}"
    );
    assert!(err.contains("__syncthreads();"), "{err}");
    assert!(err.contains("thread (4,0,0), for one, returned"), "{err}");
    // With fewer threads than the guard, everyone reaches the barrier.
    let ok = kernelc(&[
        "run",
        &cu,
        "--kernel",
        "early",
        "--grid",
        "1",
        "--block",
        "4",
        "f32[]:zeros:4",
    ]);
    assert!(ok.status.success(), "{}", stderr(&ok));
    assert_eq!(stdout(&ok), "arg0 f32[4]: first 1, 1, 1, ... sum 4\n");

    let err = fails(&[
        "run",
        &cu,
        "--kernel",
        "spin",
        "--grid",
        "1",
        "--block",
        "1",
        "--max-steps",
        "5000",
        "i32[]:zeros:1",
    ]);
    assert!(
        err.contains("step limit of 5000 instructions exceeded"),
        "{err}"
    );
    assert!(err.contains("in kernel `spin`"), "{err}");
}

#[test]
fn argument_errors_exit_with_1() {
    let base = [
        "run",
        "samples/vadd.cu",
        "--kernel",
        "vadd",
        "--grid",
        "1",
        "--block",
        "4",
    ];
    let with = |extra: &[&str]| {
        let mut v: Vec<&str> = base.to_vec();
        v.extend_from_slice(extra);
        fails(&v)
    };
    let bufs = ["f32[]:zeros:4", "f32[]:zeros:4", "f32[]:zeros:4"];
    let e = with(&[bufs[0], bufs[1], bufs[2]]);
    assert!(
        e.contains("kernel `vadd` takes 4 arguments, but 3 were given"),
        "{e}"
    );
    let e = with(&[bufs[0], bufs[1], bufs[2], "f32:4"]);
    assert!(
        e.contains("parameter 3 of `vadd` has type i32, but a f32 was given"),
        "{e}"
    );
    let e = with(&[bufs[0], "i32:1", bufs[2], "i32:4"]);
    assert!(e.contains("parameter 1 of `vadd` is a pointer"), "{e}");
    let e = with(&[bufs[0], bufs[1], bufs[2], "i32[]:zeros:1"]);
    assert!(e.contains("is a scalar i32, but a buffer was given"), "{e}");
    for (bad, msg) in [
        ("f32[]:rand:10", "`rand:N:SEED`"),
        ("q32:1", "unknown scalar type `q32`"),
        ("f8[]:zeros:4", "unknown element type `f8`"),
        ("i32:12x", "`12x` is not a valid i32"),
        ("u32:-1", "`-1` is not a valid u32"),
        ("f32[]:@/nonexistent/x.bin", "cannot read buffer file"),
        ("7", "expected TYPE:VALUE"),
    ] {
        let e = with(&[bad]);
        assert!(e.contains(msg), "{bad}: {e}");
    }
    let e = fails(&[
        "run",
        "samples/vadd.cu",
        "--kernel",
        "nope",
        "--grid",
        "1",
        "--block",
        "1",
    ]);
    assert!(
        e.contains("no kernel named `nope` in the module (kernels: vadd)"),
        "{e}"
    );
    let e = fails(&[
        "run",
        "samples/vadd.cu",
        "--kernel",
        "vadd",
        "--grid",
        "0",
        "--block",
        "1",
    ]);
    assert!(e.contains("`0` is not a positive integer"), "{e}");
    let e = fails(&[
        "run",
        "samples/vadd.cu",
        "--kernel",
        "vadd",
        "--grid",
        "1",
        "--block",
        "2048",
    ]);
    assert!(e.contains("block dimension x is 2048"), "{e}");
    let e = fails(&[
        "run",
        "samples/vadd.cu",
        "-arch=sm_1",
        "--kernel",
        "vadd",
        "--grid",
        "1",
        "--block",
        "1",
    ]);
    assert!(e.contains("sm_1"), "{e}");
}

// ---------------------------------------------------------------------------
// The float options and warning flags reach `kernelc run`.
// ---------------------------------------------------------------------------

/// saxpy's `y` after a command-line run with `extra` options.
fn saxpy_cli(extra: &[&str], tag: &str) -> Vec<f32> {
    let dir = scratch(&format!("saxpy-{tag}"));
    let d = dir.display().to_string();
    let mut args = vec![
        "run",
        "samples/saxpy.cu",
        "--spec",
        "samples/saxpy.run",
        "--out",
        &d,
    ];
    args.extend_from_slice(extra);
    let out = kernelc(&args);
    assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    f32s(&std::fs::read(dir.join("arg3.bin")).unwrap())
}

/// `--fmad` on the command line decides contraction in both engines, in
/// nvcc's spellings; `--use_fast_math` implies `--fmad=true` unless it is
/// given false (as in nvcc), and the other float options keep saxpy's
/// results.
#[test]
fn float_options_reach_the_run_as_they_reach_compilation() {
    let req = spec_request("saxpy", 3);
    let x = f32s(&input(&req.args[2]));
    let y = f32s(&input(&req.args[3]));
    let fused: Vec<f32> = x
        .iter()
        .zip(&y)
        .map(|(x, y)| 2.5f32.mul_add(*x, *y))
        .collect();
    let split: Vec<f32> = x.iter().zip(&y).map(|(x, y)| 2.5 * x + y).collect();
    assert_ne!(fused, split, "the inputs must tell the two apart");
    for engine in ["interp", "emu"] {
        let e = ["--engine", engine];
        let run = |opts: &[&str], tag: &str| {
            saxpy_cli(&[&e[..], opts].concat(), &format!("{engine}-{tag}"))
        };
        assert_bitwise(&run(&[], "default"), &fused, "default (--fmad=true)");
        assert_bitwise(&run(&["--fmad=true"], "t"), &fused, "--fmad=true");
        assert_bitwise(&run(&["--fmad=false"], "f"), &split, "--fmad=false");
        assert_bitwise(&run(&["-fmad=false"], "f1"), &split, "-fmad=false");
        assert_bitwise(
            &run(&["--use_fast_math"], "fast"),
            &fused,
            "--use_fast_math",
        );
        assert_bitwise(
            &run(&["--fmad=false", "--use_fast_math"], "fast-split"),
            &split,
            "--fmad=false --use_fast_math",
        );
        assert_bitwise(
            &run(
                &["-ftz=true", "-prec-div=false", "-prec-sqrt=false"],
                "other",
            ),
            &fused,
            "-ftz -prec-div -prec-sqrt",
        );
    }
}

/// `-w` silences the frontend's warnings in a run, `-Werror` makes them
/// errors (exit 1, nothing run), and by default they go to stderr.
#[test]
fn warning_flags_reach_the_run() {
    let dir = scratch("warn");
    let src = write(
        &dir,
        "unused.cu",
        "extern \"C\" __global__ void k(int *p) { int unused = 3; p[0] = 1; }\n",
    );
    let base = [
        "run",
        &src,
        "--kernel",
        "k",
        "--grid",
        "1",
        "--block",
        "1",
        "i32[]:zeros:1",
    ];
    let shown = kernelc(&base);
    assert!(shown.status.success(), "{}", stderr(&shown));
    assert!(
        stderr(&shown).contains("unused variable `unused`"),
        "{}",
        stderr(&shown)
    );
    assert!(
        stdout(&shown).contains("arg0 i32[1]: 1 sum 1"),
        "{}",
        stdout(&shown)
    );
    let quiet = kernelc(&[&base[..], &["-w"]].concat());
    assert!(quiet.status.success());
    assert_eq!(stderr(&quiet), "");
    let err = fails(&[&base[..], &["-Werror"]].concat());
    assert!(err.contains("error"), "{err}");
    assert!(
        err.contains("treated as an error because of `-Werror`"),
        "{err}"
    );
    let err = fails(&[&base[..], &["-Werror", "--engine", "emu"]].concat());
    assert!(err.contains("unused variable"), "{err}");
}

// ---------------------------------------------------------------------------
// The GPU engine (`--engine gpu`). This machine may have no CUDA driver: the
// tests that need one print a `SKIPPED: no CUDA driver` line and return.
// ---------------------------------------------------------------------------

fn gpu_or_skip(what: &str) -> bool {
    if kernelc::gpu::driver_available() {
        true
    } else {
        eprintln!("SKIPPED: no CUDA driver (libcuda.so not found): {what}");
        false
    }
}

/// Without a driver, the gpu engine says so and points at the emulator:
/// exit 1, no panic, nothing compiled.
#[test]
fn without_a_cuda_driver_the_gpu_engine_says_so() {
    if kernelc::gpu::driver_available() {
        eprintln!("SKIPPED: a CUDA driver is present: the no-driver message");
        return;
    }
    for input in ["samples/vadd.cu", "samples/vadd.ptx-does-not-exist.ptx"] {
        let e = fails(&[
            "run",
            input,
            "--spec",
            "samples/vadd.run",
            "--engine",
            "gpu",
            "--time",
            "5",
        ]);
        assert!(e.contains("no CUDA driver found"), "{e}");
        assert!(e.contains("--engine emu"), "{e}");
        assert!(
            !e.contains("panic") && !e.contains("internal compiler error"),
            "{e}"
        );
    }
    let req = with_engine(spec_request("vadd", 3), Engine::Gpu);
    let e = execute(&req).expect_err("no driver");
    assert!(e.contains("no CUDA driver found"), "{e}");
}

/// `--time` and `--racecheck` belong to one engine each.
#[test]
fn time_needs_the_gpu_and_racecheck_the_interpreter() {
    let e = fails(&[
        "run",
        "samples/vadd.cu",
        "--spec",
        "samples/vadd.run",
        "--time",
        "3",
    ]);
    assert!(e.contains("`--time`") && e.contains("--engine gpu"), "{e}");
    let e = fails(&[
        "run",
        "samples/vadd.cu",
        "--spec",
        "samples/vadd.run",
        "--racecheck",
        "--engine",
        "emu",
    ]);
    assert!(
        e.contains("`--racecheck`") && e.contains("--engine interp"),
        "{e}"
    );
}

/// Every sample on the GPU leaves the emulator's bytes (the same PTX: the
/// samples use no `.approx` instruction and no order-dependent float atomic).
#[test]
fn every_sample_on_the_gpu_matches_the_emulator() {
    if !gpu_or_skip("every sample on the GPU against the emulator") {
        return;
    }
    let device = kernelc::gpu::device_sm().expect("the device's compute capability");
    for name in samples() {
        let req = spec_request(&name, 3);
        if req.sm > device {
            eprintln!(
                "SKIPPED samples/{name}.cu on the GPU: built for sm_{}, the device is sm_{device}",
                req.sm
            );
            continue;
        }
        let emu = buffers(&with_engine(req.clone(), Engine::Emu));
        let gpu = buffers(&with_engine(req, Engine::Gpu));
        assert_eq!(emu, gpu, "{name}: the GPU disagrees with the emulator");
    }
}

/// f16 bits of a small integer (exact: |v| <= 2048), by the conversion
/// the interpreter uses.
fn f16_of_int(v: i32) -> u16 {
    let bits = kir_interp::eval::f64_to_float(f64::from(v), kernelc::midend::ir::Type::F16);
    bits as u16
}

/// Without a GPU, a tensor-map argument is refused by the interpreter,
/// which cannot read one, runs in the emulator (its own tensor maps:
/// `tests/emu_coverage.rs` checks the results), and a malformed one is an
/// argument error.
#[test]
fn tensor_map_arguments_need_the_gpu_engine_or_the_emulator() {
    let e = fails(&[
        "run",
        "samples/tma_tile_copy.cu",
        "--spec",
        "samples/tma_tile_copy.run",
    ]);
    assert!(
        e.contains("is a tensor map, which only `--engine gpu` and `--engine emu` can run"),
        "{e}"
    );
    let out = kernelc(&[
        "run",
        "samples/tma_tile_copy.cu",
        "--spec",
        "samples/tma_tile_copy.run",
        "--engine",
        "emu",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("arg1 f32[4096]: first 0, 2, 4, ... sum 16773120"),
        "{}",
        stdout(&out)
    );
    for (arg, why) in [
        (
            "tmap:i8:4x4:4x4:zeros:16",
            "cannot be a tensor map's element",
        ),
        ("tmap:f32:4x4:4x4:zeros:15", "needs 16 elements"),
        ("tmap:f32:4x0:4x4:zeros:16", "not a valid matrix size"),
        ("tmap:f32:4x4", "a tensor map is `tmap:"),
    ] {
        let err = parse_arg(arg).expect_err(arg);
        assert!(err.contains(why), "{arg}: {err}");
    }
    let ArgValue::TensorMap { bytes, map, .. } = parse_arg("tmap:f16:2x8:2x8:iota:16").unwrap()
    else {
        panic!("not a tensor map")
    };
    assert_eq!(
        (map.rows, map.cols, map.box_rows, map.box_cols),
        (2, 8, 2, 8)
    );
    assert_eq!(&bytes[..6], &[0, 0, 0, 0x3c, 0, 0x40], "f16 0, 1, 2");
    assert_eq!(f16_of_int(3), 0x4200);
    assert_eq!(f16_of_int(-2), 0xc000);
    // The GPU engine binds arguments with the emulator's binder, which must
    // read the parameters of PTX whose body the emulator cannot build (a
    // TMA copy's tensor address): each map is a 128-byte aggregate.
    let ptx = kernelc(&["samples/tma_tile_copy.cu", "-arch=sm_90"]);
    assert!(ptx.status.success(), "{}", stderr(&ptx));
    let map_bytes = kernelc::gpu::TENSOR_MAP_BYTES;
    let maps = [
        ptx_emu::KernelArg::Buffer(vec![0; map_bytes]),
        ptx_emu::KernelArg::Buffer(vec![0; map_bytes]),
    ];
    let bound = ptx_emu::bind_params(&stdout(&ptx), "tma_tile_copy", &maps)
        .unwrap_or_else(|e| panic!("{e:?}"));
    assert!(bound
        .iter()
        .all(|b| matches!(b, ptx_emu::Bound::Bytes(v) if v.len() == map_bytes)));
}

/// The Hopper samples, which only a GPU can run: the TMA copy leaves
/// exactly 2 * its input, the cluster reduction its clusters' sums, and
/// wgmma on small integers (exact in f16
/// and in every order of f32 accumulation) leaves exactly A * B.
#[test]
fn hopper_samples_on_the_gpu_tma_clusters_wgmma() {
    if !gpu_or_skip("the TMA, cluster and wgmma samples on the GPU") {
        return;
    }
    let device = kernelc::gpu::device_sm().expect("the device's compute capability");
    if device < 90 {
        eprintln!("SKIPPED: TMA needs sm_90 or newer; the device is sm_{device}");
        return;
    }
    let dir = scratch("gpu-tensor");
    let out = dir.join("tma").display().to_string();
    let run = kernelc(&[
        "run",
        "samples/tma_tile_copy.cu",
        "--spec",
        "samples/tma_tile_copy.run",
        "--engine",
        "gpu",
        "--out",
        &out,
    ]);
    assert!(run.status.success(), "{}", stderr(&run));
    let got = std::fs::read(dir.join("tma/arg1.bin")).unwrap();
    let want: Vec<u8> = (0..4096)
        .flat_map(|i| (2.0 * i as f32).to_le_bytes())
        .collect();
    assert!(got == want, "the TMA copy did not leave 2 * in");

    // A cluster of two blocks: each block leaves the sum of its cluster's
    // 512 inputs, read through distributed shared memory.
    let out = dir.join("cluster").display().to_string();
    let run = kernelc(&[
        "run",
        "samples/cluster_reduce.cu",
        "--spec",
        "samples/cluster_reduce.run",
        "--engine",
        "gpu",
        "--out",
        &out,
    ]);
    assert!(run.status.success(), "{}", stderr(&run));
    let x = f32s(&std::fs::read(dir.join("cluster/arg0.bin")).unwrap());
    let y = f32s(&std::fs::read(dir.join("cluster/arg1.bin")).unwrap());
    for (b, got) in y.iter().enumerate() {
        let c = b / 2;
        let want: f64 = x[512 * c..512 * (c + 1)]
            .iter()
            .map(|&v| f64::from(v))
            .sum();
        assert!(
            (f64::from(*got) - want).abs() <= 1e-5 * want.abs(),
            "block {b} of cluster_reduce left {got}, want {want}"
        );
    }

    // wgmma_gemm targets sm_90a, whose PTX runs on sm_90 devices only.
    if device != 90 {
        eprintln!("SKIPPED: wgmma_gemm is built for sm_90a; the device is sm_{device}");
        return;
    }
    let (a, bt): (Vec<i32>, Vec<i32>) = (0..4096)
        .map(|i| ((i * 7 + i / 64) % 9 - 4, (i * 5 + 3 * (i / 64)) % 7 - 3))
        .unzip();
    let file = |name: &str, v: &[i32]| {
        let bytes: Vec<u8> = v
            .iter()
            .flat_map(|&x| f16_of_int(x).to_le_bytes())
            .collect();
        let p = dir.join(name);
        std::fs::write(&p, bytes).unwrap();
        p.display().to_string()
    };
    let (fa, fb) = (file("a.bin", &a), file("bt.bin", &bt));
    let out = dir.join("wgmma").display().to_string();
    let run = kernelc(&[
        "run",
        "samples/wgmma_gemm.cu",
        "--kernel",
        "wgmma_gemm",
        "--grid",
        "1",
        "--block",
        "128",
        "-arch=sm_90a",
        "--engine",
        "gpu",
        "--out",
        &out,
        &format!("tmap:f16:64x64:64x8:@{fa}"),
        &format!("tmap:f16:64x64:64x8:@{fb}"),
        "f32[]:zeros:4096",
    ]);
    assert!(run.status.success(), "{}", stderr(&run));
    let got = std::fs::read(dir.join("wgmma/arg2.bin")).unwrap();
    let mut bad = 0;
    for i in 0..64 {
        for j in 0..64 {
            let want: i32 = (0..64).map(|k| a[i * 64 + k] * bt[j * 64 + k]).sum();
            let at = 4 * (i * 64 + j);
            let have = f32::from_le_bytes(got[at..at + 4].try_into().unwrap());
            if have != want as f32 {
                if bad < 8 {
                    eprintln!("C[{i}][{j}] = {have}, want {want}");
                }
                bad += 1;
            }
        }
    }
    assert_eq!(bad, 0, "wgmma_gemm left {bad} wrong elements of C");
    // The spec's own random inputs run too.
    let run = kernelc(&[
        "run",
        "samples/wgmma_gemm.cu",
        "--spec",
        "samples/wgmma_gemm.run",
        "--engine",
        "gpu",
    ]);
    assert!(run.status.success(), "{}", stderr(&run));
}

/// A `.ptx` file runs on the GPU as written, `--time` prints the median,
/// and PTX the driver's JIT rejects comes back with the JIT's log.
#[test]
fn gpu_runs_ptx_files_times_launches_and_shows_jit_logs() {
    if !gpu_or_skip("PTX files, --time and JIT logs on the GPU") {
        return;
    }
    let dir = scratch("gpu-ptx");
    let ptx = kernelc(&["samples/vadd.cu", "-arch=sm_80"]);
    assert!(ptx.status.success(), "{}", stderr(&ptx));
    let file = write(&dir, "vadd.ptx", &stdout(&ptx));
    let out = kernelc(&[
        "run",
        &file,
        "--spec",
        "samples/vadd.run",
        "--engine",
        "gpu",
        "--time",
        "5",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let want = kernelc(&["run", "samples/vadd.cu", "--spec", "samples/vadd.run"]);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[..3].join("\n") + "\n", stdout(&want), "{text}");
    assert!(lines[3].starts_with("time: median "), "{text}");
    assert!(lines[3].contains("over 5 launches"), "{text}");
    // A PTX ISA version no driver knows: the emulator's parser reads it, the
    // JIT refuses it and says why.
    let bad = stdout(&ptx).replacen(".version ", ".version 99.0\n// was ", 1);
    let file = write(&dir, "bad.ptx", &bad);
    let e = fails(&[
        "run",
        &file,
        "--spec",
        "samples/vadd.run",
        "--engine",
        "gpu",
    ]);
    assert!(e.contains("the driver's JIT rejected the PTX"), "{e}");
    assert!(e.contains("JIT error log"), "{e}");
}

// ---------------------------------------------------------------------------
// The PTX emulator (`--engine emu`) against the interpreter.
// ---------------------------------------------------------------------------

fn with_engine(mut req: RunRequest, engine: Engine) -> RunRequest {
    req.engine = engine;
    req
}

/// The backend is checked end to end: the PTX of every sample at -O3, run
/// in the emulator, leaves exactly the bytes the interpreter leaves at -O0
/// and at -O3.
#[test]
fn every_sample_agrees_bitwise_in_the_interpreter_and_the_emulator() {
    for name in samples() {
        let o0 = buffers(&spec_request(&name, 0));
        let o3 = buffers(&spec_request(&name, 3));
        let emu = buffers(&with_engine(spec_request(&name, 3), Engine::Emu));
        assert_eq!(o0, o3, "{name}: interpreter -O0 and -O3 disagree");
        assert_eq!(o3, emu, "{name}: the emulator on the -O3 PTX disagrees");
        let emu0 = buffers(&with_engine(spec_request(&name, 0), Engine::Emu));
        assert_eq!(o0, emu0, "{name}: the emulator on the -O0 PTX disagrees");
    }
}

/// The tensor instructions need the whole warp: a block of 16 threads is
/// a clean fault in the emulator, not a panic or a wrong result.
#[test]
fn the_emulators_tensor_instructions_need_a_full_warp() {
    let mut req = with_engine(spec_request("wmma_gemm", 3), Engine::Emu);
    req.block = [16, 1, 1];
    let err = execute(&req).expect_err("a partial warp").to_string();
    assert!(err.contains("needs all 32 lanes of the warp"), "{err}");
    assert!(err.contains("wmma.load.a.sync.aligned"), "{err}");
}

/// Units in the last place between two floats of the same sign.
fn ulps(a: f32, b: f32) -> u32 {
    (a.to_bits() as i64 - b.to_bits() as i64).unsigned_abs() as u32
}

/// nvcc's PTX of each sample and filetest kernel, run in the emulator,
/// against the interpreter at -O3. nvcc contracts `a * b + c` to `fma.rn` as kernelc's default
/// `--fmad=true` does and keeps the order of the additions, so the samples
/// agree bitwise; the comparison would accept at most 2 ulp per `f32`
/// element (the bound for a kernel where nvcc picks other operations, such
/// as `.approx` math), but every current sample is required to be exact.
#[test]
fn the_emulator_runs_nvccs_ptx_of_every_sample() {
    let Some(nvcc) = common::nvcc_or_skip("emu on nvcc's PTX") else {
        return;
    };
    let dir = scratch("nvcc-emu");
    for name in samples() {
        let ptx = dir.join(format!("{name}.ptx"));
        let arch = common::target_for(&common::sample_source(&name), "sm_90");
        let out = Command::new(&nvcc)
            .args(["-ptx", &format!("-arch={arch}"), "-I"])
            .arg(common::root().join("include"))
            .arg("-o")
            .arg(&ptx)
            .arg(common::root().join(format!("samples/{name}.cu")))
            .output()
            .expect("cannot run nvcc");
        assert!(out.status.success(), "nvcc {name}: {}", stderr(&out));
        let want = buffers(&spec_request(&name, 3));
        let mut req = with_engine(spec_request(&name, 3), Engine::Emu);
        req.input = ptx;
        let got = execute(&req).unwrap_or_else(|e| panic!("{name} (nvcc's PTX):\n{e}"));
        let mut inexact = 0;
        let pairs = got
            .args
            .iter()
            .filter_map(|(elem, b)| b.as_ref().map(|b| (*elem, b)));
        for (k, ((elem, g), w)) in pairs.zip(&want).enumerate() {
            if elem.name() != "f32" {
                assert_eq!(g, w, "{name}: buffer {k} differs");
                continue;
            }
            for (i, (x, y)) in f32s(g).iter().zip(f32s(w)).enumerate() {
                if x.to_bits() != y.to_bits() {
                    inexact += 1;
                    assert!(ulps(*x, y) <= 2, "{name}: buffer {k}[{i}]: {x} vs {y}");
                }
            }
        }
        assert_eq!(
            inexact, 0,
            "{name}: nvcc's PTX differs in {inexact} elements"
        );
    }
    // The filetest kernels too (integer and double work, locals, shared
    // memory, calls); nvcc mangles a kernel without `extern "C"`.
    for (file, kernel, grid, shared, args) in FILETEST_CASES {
        let ptx = dir.join(format!("{file}.ptx"));
        let src = common::root().join("tests/filetests/compile").join(file);
        let out = Command::new(&nvcc)
            .args(["-ptx", "-arch=sm_90", "-o"])
            .arg(&ptx)
            .arg(&src)
            .output()
            .expect("cannot run nvcc");
        assert!(out.status.success(), "nvcc {file}: {}", stderr(&out));
        let text = std::fs::read_to_string(&ptx).unwrap();
        let mangled = format!("_Z{}{kernel}", kernel.len());
        let entry = text
            .lines()
            .filter_map(|l| l.split(".entry ").nth(1))
            .map(|l| l.trim_end_matches('(').trim())
            .find(|n| *n == *kernel || n.starts_with(&mangled))
            .unwrap_or_else(|| panic!("{file}: no entry for {kernel}"))
            .to_string();
        let mut req = filetest_request(file, kernel, *grid, *shared, args, 3);
        let want = buffers(&req);
        req.engine = Engine::Emu;
        req.input = ptx;
        req.kernel = entry;
        assert_eq!(want, buffers(&req), "{file}: nvcc's PTX in the emulator");
    }
}

fn filetest_request(
    file: &str,
    kernel: &str,
    grid: [u32; 3],
    shared: u32,
    args: &[&str],
    level: u8,
) -> RunRequest {
    RunRequest {
        input: common::root().join("tests/filetests/compile").join(file),
        kernel: kernel.to_string(),
        grid,
        block: [64, 1, 1],
        shared_bytes: shared,
        opt_level: Some(level),
        fmad: true,
        sm: 90,
        defines: Vec::new(),
        engine: Engine::Interp,
        max_steps: kir_interp::DEFAULT_MAX_STEPS,
        args: args.iter().map(|a| a.to_string()).collect(),
        ..RunRequest::default()
    }
}

/// A filetest kernel's launch: file, kernel, grid, dynamic shared bytes,
/// arguments.
type FiletestCase = (
    &'static str,
    &'static str,
    [u32; 3],
    u32,
    &'static [&'static str],
);

const FILETEST_CASES: &[FiletestCase] = &[
    (
        "control_flow_sm90.cu",
        "flow",
        [2, 1, 1],
        0,
        &["i32[]:zeros:128", "i32:100"],
    ),
    (
        "storage_switch_sm90.cu",
        "k",
        [2, 1, 1],
        260,
        &["f32[]:zeros:128", "f32[]:rand:128:3", "i32:100"],
    ),
    (
        "floats_pointers_sm80.cu",
        "floats",
        [2, 1, 1],
        0,
        &[
            "f64[]:rand:128:1",
            "f32[]:rand:128:2",
            "f32[]:rand:128:3",
            "i32:100",
        ],
    ),
    (
        "edge_cases_sm90.cu",
        "edge",
        [1, 1, 1],
        0,
        &[
            "f32[]:zeros:200",
            "i32:20",
            "u32:7",
            "f64:1.5",
            "f64[]:rand:8:1",
            "i32[]:zeros:128",
        ],
    ),
];

/// The compile filetests' kernels (locals, constants with initializers,
/// shared and dynamic shared memory, switch, calls, doubles, volatile),
/// compiled at -O0 and -O3 and run in both engines.
#[test]
fn filetest_kernels_agree_in_the_interpreter_and_the_emulator() {
    for (file, kernel, grid, shared, args) in FILETEST_CASES {
        for level in [0, 3] {
            let req = filetest_request(file, kernel, *grid, *shared, args, level);
            let want = buffers(&req);
            let got = buffers(&with_engine(req, Engine::Emu));
            assert_eq!(want, got, "{file} at -O{level}");
        }
    }
}

/// Atomics of every kind, shuffles, votes, block reductions, `isspacep`,
/// the bit and math operations: the collectives filetest as written, in
/// both engines. Only the clock differs (each engine counts its own
/// instructions), so the buffer that stores it is left out.
#[test]
fn collectives_agree_in_the_interpreter_and_the_emulator() {
    let req = RunRequest {
        input: common::root().join("tests/filetests/compile/collectives_sm80.kir"),
        kernel: "collectives".into(),
        grid: [2, 1, 1],
        block: [64, 1, 1],
        shared_bytes: 0,
        opt_level: None,
        fmad: true,
        sm: 80,
        defines: Vec::new(),
        engine: Engine::Interp,
        max_steps: kir_interp::DEFAULT_MAX_STEPS,
        args: [
            "i32[]:iota:256",
            "f32[]:zeros:256",
            "i32[]:iota:256",
            "i32[]:zeros:256",
        ]
        .map(String::from)
        .to_vec(),
        ..RunRequest::default()
    };
    let want = buffers(&req);
    let got = buffers(&with_engine(req, Engine::Emu));
    assert_eq!(want[..3], got[..3]);
}

#[test]
fn emu_prints_the_interpreters_summary_lines() {
    let base = ["run", "samples/saxpy.cu", "--spec", "samples/saxpy.run"];
    let interp = kernelc(&base);
    let emu = kernelc(&[&base[..], &["--engine", "emu"]].concat());
    assert!(emu.status.success(), "{}", stderr(&emu));
    assert_eq!(stdout(&interp), stdout(&emu));
}

/// A hand-written PTX file that reads shared memory through a global
/// address: the fault names the instruction and its PTX line.
#[test]
fn emu_reports_a_wrong_space_access_at_its_ptx_line() {
    let dir = scratch("emu-wrong-space");
    let ptx = write(
        &dir,
        "wrong.ptx",
        ".version 8.0
.target sm_90
.address_size 64

.visible .entry wrong(.param .u64 p)
{
\t.reg .b32 %r<2>;
\t.reg .b64 %rd<3>;
\tld.param.u64 %rd1, [p];
\tcvta.to.global.u64 %rd2, %rd1;
\tld.shared.u32 %r1, [%rd2];
\tst.global.u32 [%rd2], %r1;
\tret;
}
",
    );
    let launch = [
        "--kernel",
        "wrong",
        "--grid",
        "1",
        "--block",
        "4",
        "u32[]:zeros:4",
    ];
    let err = fails(&[&["run", ptx.as_str(), "--engine", "emu"][..], &launch].concat());
    assert!(
        err.contains("kernel fault: ld.shared.u32: wrong state space:"),
        "{err}"
    );
    assert!(err.contains("not a shared address"), "{err}");
    assert!(err.contains("wrong.ptx:11:"), "{err}");
    assert!(err.contains("ld.shared.u32 %r1, [%rd2];"), "{err}");
    assert!(
        err.contains("block (0,0,0), thread (0,0,0), at PTX line 11"),
        "{err}"
    );
    // Without `--engine`, a `.ptx` file runs on the emulator (the same
    // fault); the interpreter, asked for, refuses it.
    let by_default = fails(&[&["run", ptx.as_str()][..], &launch].concat());
    assert_eq!(by_default, err);
    let interp = fails(&[&["run", ptx.as_str(), "--engine", "interp"][..], &launch].concat());
    assert!(
        interp.contains("is PTX, which the IR interpreter cannot run"),
        "{interp}"
    );
}

/// The f16 value of a small integer, through its bits (as the samples
/// build them) and back, exactly: the CPU reference sees the numbers the
/// tensor cores see.
fn f16_exact(v: i32) -> f32 {
    let bits = if v == 0 {
        0u32
    } else {
        let e = 31 - v.leading_zeros() as i32;
        (((e + 15) << 10) as u32) | ((v << (10 - e)) as u32 & 0x3ff)
    };
    let (exp, frac) = ((bits >> 10) & 0x1f, bits & 0x3ff);
    if exp == 0 {
        frac as f32 * 2f32.powi(-24)
    } else {
        (1.0 + frac as f32 / 1024.0) * 2f32.powi(exp as i32 - 15)
    }
}

/// `C = A * B` for row-major `m x k` and `k x n` matrices of the f16
/// values of `A & 7` and `B & 7` (the values the tensor-core samples
/// stage), summed in f64, with each element's error bound for an f32
/// accumulation of `k` products: `k * 2^-24 * sum |a| |b|`.
fn f16_gemm(a: &[i32], b: &[i32], m: usize, n: usize, k: usize) -> Vec<(f64, f64)> {
    let mut c = Vec::with_capacity(m * n);
    for i in 0..m {
        for j in 0..n {
            let (mut s, mut mag) = (0f64, 0f64);
            for p in 0..k {
                let x =
                    f64::from(f16_exact(a[i * k + p] & 7)) * f64::from(f16_exact(b[p * n + j] & 7));
                s += x;
                mag += x.abs();
            }
            c.push((s, k as f64 * 2f64.powi(-24) * mag));
        }
    }
    c
}

/// The tolerance check of a GEMM result. For the samples' inputs every sum
/// is a small integer, which f32 holds exactly in any order, so the bound
/// is met with equality: the test also requires exact results.
fn assert_gemm(got: &[f32], want: &[(f64, f64)], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (i, (&g, &(w, tol))) in got.iter().zip(want).enumerate() {
        assert!(
            (f64::from(g) - w).abs() <= tol,
            "{what}[{i}]: got {g}, want {w} +- {tol}"
        );
        assert_eq!(f64::from(g), w, "{what}[{i}]: small-integer sums are exact");
    }
}

/// Every engine and level: the interpreter at -O0 and -O3, the emulator
/// on the -O0 and -O3 PTX.
fn every_engine(sample: &str) -> Vec<(String, Vec<Vec<u8>>)> {
    let mut out = Vec::new();
    for engine in [Engine::Interp, Engine::Emu] {
        for level in [0, 3] {
            let req = with_engine(spec_request(sample, level), engine);
            out.push((format!("{sample} {engine:?} -O{level}"), buffers(&req)));
        }
    }
    out
}

#[test]
fn wmma_gemm_matches_a_cpu_reference_in_every_engine() {
    let req = spec_request("wmma_gemm", 3);
    assert_eq!(req.args[3..], ["i32:32", "i32:32", "i32:48"]);
    let a = i32s(&input(&req.args[0]));
    let b = i32s(&input(&req.args[1]));
    let want = f16_gemm(&a, &b, 32, 32, 48);
    for (what, out) in every_engine("wmma_gemm") {
        assert_gemm(&f32s(&out[2]), &want, &what);
    }
}

#[test]
fn mma_ldmatrix_gemm_matches_a_cpu_reference_in_every_engine() {
    let req = spec_request("mma_ldmatrix_gemm", 3);
    assert_eq!(req.args[3..], ["i32:16", "i32:32"]);
    let a = i32s(&input(&req.args[0]));
    let b = i32s(&input(&req.args[1]));
    let want = f16_gemm(&a, &b, 32, 16, 32);
    for (what, out) in every_engine("mma_ldmatrix_gemm") {
        assert_gemm(&f32s(&out[2]), &want, &what);
    }
}

#[test]
fn cp_async_copy_matches_a_rust_reference() {
    let req = spec_request("cp_async_copy", 3);
    let x = f32s(&input(&req.args[0]));
    let want: Vec<f32> = x.iter().map(|v| 2.0 * v).collect();
    for (what, out) in every_engine("cp_async_copy") {
        assert_bitwise(&f32s(&out[1]), &want, &what);
    }
}

// ---------------------------------------------------------------------------
// `--racecheck`: shared-memory races between barriers (interpreter).
// ---------------------------------------------------------------------------

/// A kernel that reads its neighbour's shared element with the barrier
/// left out is reported with both accesses; with the barrier, or with the
/// race confined to one warp and a `__syncwarp` between, it is not.
#[test]
fn racecheck_reports_a_missing_barrier_with_both_accesses() {
    let dir = scratch("race");
    let racy = "extern \"C\" __global__ void k(float *out) {\n\
                \x20 __shared__ float tile[64];\n\
                \x20 int t = threadIdx.x;\n\
                \x20 tile[t] = out[t];\n\
                \x20 SYNC\n\
                \x20 out[t] = tile[(t + 1) % 64];\n\
                }\n";
    let run = |sync: &str, block: &str, tag: &str, extra: &[&str]| {
        let src = write(&dir, &format!("{tag}.cu"), &racy.replace("SYNC", sync));
        let mut args = vec![
            "run",
            &src,
            "--kernel",
            "k",
            "--grid",
            "2",
            "--block",
            block,
            "f32[]:iota:128",
        ];
        args.extend_from_slice(extra);
        kernelc(&[&args[..], &["--racecheck"]].concat())
    };
    for level in ["-O0", "-O3"] {
        let out = run("", "64", "none", &[level]);
        assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
        let e = stderr(&out);
        assert!(e.contains("kernel fault: shared-memory race"), "{e}");
        assert!(e.contains("of `"), "{e}");
        // This access (the write of thread 1) and the earlier read of thread 0.
        assert!(e.contains("tile[t] = out[t];"), "{e}");
        assert!(e.contains("out[t] = tile[(t + 1) % 64];"), "{e}");
        assert!(e.contains("thread (0,0,0) read here"), "{e}");
        assert!(e.contains("block (0,0,0), thread (1,0,0)"), "{e}");
        assert!(stdout(&out).is_empty(), "nothing is printed after a fault");
    }
    let ok = run("__syncthreads();", "64", "barrier", &[]);
    assert!(ok.status.success(), "{}", stderr(&ok));
    // One warp: `__syncwarp` orders its lanes. Without the flag, the racy
    // kernel runs (in the interpreter's order) and exits 0.
    let racy32 = racy.replace("64", "32");
    let src = write(&dir, "warp.cu", &racy32.replace("SYNC", "__syncwarp();"));
    let args = [
        "run",
        &src,
        "--kernel",
        "k",
        "--grid",
        "1",
        "--block",
        "32",
        "f32[]:iota:32",
    ];
    let ok = kernelc(&[&args[..], &["--racecheck"]].concat());
    assert!(ok.status.success(), "{}", stderr(&ok));
    let src = write(&dir, "warp-racy.cu", &racy32.replace("SYNC", ""));
    let args = [
        "run",
        &src,
        "--kernel",
        "k",
        "--grid",
        "1",
        "--block",
        "32",
        "f32[]:iota:32",
    ];
    assert!(kernelc(&args).status.success());
    let e = fails(&[&args[..], &["--racecheck"]].concat());
    assert!(e.contains("shared-memory race"), "{e}");
    // A write after another thread's write: write-write.
    let src = write(
        &dir,
        "ww.cu",
        "extern \"C\" __global__ void k(int *out) {\n  __shared__ int x;\n  x = threadIdx.x;\n  out[0] = 1;\n}\n",
    );
    let e = fails(&[
        "run",
        &src,
        "--kernel",
        "k",
        "--grid",
        "1",
        "--block",
        "2",
        "i32[]:zeros:1",
        "--racecheck",
    ]);
    assert!(
        e.contains("this write of 4 bytes") && e.contains("a write of the same bytes"),
        "{e}"
    );
}

/// Every sample that uses shared memory is race-free at -O0 and -O3.
#[test]
fn racecheck_passes_the_samples() {
    for name in samples() {
        for level in [0, 3] {
            let mut req = spec_request(&name, level);
            req.racecheck = true;
            if let Err(e) = execute(&req) {
                panic!("{name} -O{level} --racecheck:\n{e}");
            }
        }
    }
}

/// An mbarrier used as a block barrier: thread 0 initializes it for the
/// whole block, every thread writes its slot, arrives, and spins on
/// `test_wait` until the phase completes, then reads its neighbour's slot.
/// The spinning threads yield in both engines, so the others get to
/// arrive; both engines give the same bytes at -O0 and -O3.
#[test]
fn mbarrier_phases_agree_in_the_interpreter_and_the_emulator() {
    let dir = scratch("mbarrier");
    let src = write(
        &dir,
        "mbar.cu",
        "#include \"kernelc.cuh\"\n\
         extern \"C\" __global__ void k(int *out) {\n\
         \x20 __shared__ unsigned long long bar;\n\
         \x20 __shared__ int slot[64];\n\
         \x20 int t = threadIdx.x;\n\
         \x20 if (t == 0) kernelc_mbarrier_init(&bar, 64);\n\
         \x20 __syncthreads();\n\
         \x20 slot[t] = 10 * t + 1;\n\
         \x20 unsigned long long token = kernelc_mbarrier_arrive(&bar);\n\
         \x20 while (!kernelc_mbarrier_test_wait(&bar, token)) {}\n\
         \x20 out[t] = slot[(t + 1) % 64];\n\
         }\n",
    );
    let want: Vec<u8> = (0..64i32)
        .flat_map(|t| (10 * ((t + 1) % 64) + 1).to_le_bytes())
        .collect();
    for engine in [Engine::Interp, Engine::Emu] {
        for level in [0, 3] {
            let req = RunRequest {
                input: src.clone().into(),
                kernel: "k".into(),
                block: [64, 1, 1],
                opt_level: Some(level),
                engine,
                args: vec!["i32[]:zeros:64".into()],
                defines: Vec::new(),
                ..RunRequest::default()
            };
            let out = buffers(&req);
            assert_eq!(out[0], want, "{engine:?} -O{level}");
        }
    }
}

/// Issue #8: every midend pass can be switched off (`--disable-pass`) and
/// the samples still compute the same bits. `contract` is the exception by
/// design: fusing a multiply and an add changes the rounding, which is what
/// `--fmad=false` asks for (checked by the float-option tests above).
#[test]
fn every_sample_computes_the_same_bits_with_each_midend_pass_switched_off() {
    let mut passes = kernelc::midend::passes::pipeline(3, true);
    passes.dedup();
    passes.retain(|p| *p != "contract");
    let mut seen = Vec::new();
    passes.retain(|p| {
        let new = !seen.contains(p);
        seen.push(*p);
        new
    });
    assert!(passes.len() >= 10, "{passes:?}");
    for sample in samples() {
        let all = buffers(&spec_request(&sample, 3));
        for pass in &passes {
            let mut req = spec_request(&sample, 3);
            req.disable_passes = vec![pass.to_string()];
            assert_eq!(
                all,
                buffers(&req),
                "{sample}: results differ without `{pass}`"
            );
        }
    }
}

#[test]
fn disable_pass_is_checked_and_leaves_the_pass_out() {
    let src = common::root().join("samples/saxpy.cu");
    let src = src.to_str().unwrap();
    let o = kernelc(&[src, "--disable-pass", "no-such-pass", "-o", "-"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("no such pass"), "{}", stderr(&o));
    // The first line records it; without `licm` the grid stride is
    // computed inside the loop again.
    let dir = scratch("disable-pass");
    let compile = |extra: &[&str], name: &str| {
        let out = dir.join(name);
        let mut args = vec![src];
        args.extend_from_slice(extra);
        args.extend(["-o", out.to_str().unwrap()]);
        let o = kernelc(&args);
        assert!(o.status.success(), "{}", stderr(&o));
        std::fs::read_to_string(&out).unwrap()
    };
    let with = compile(&[], "with.ptx");
    let without = compile(&["--disable-pass", "licm"], "without.ptx");
    assert!(without.starts_with("// Generated by kernelc"), "{without}");
    assert!(
        without
            .lines()
            .next()
            .unwrap()
            .contains("--disable-pass licm)"),
        "{without}"
    );
    assert_ne!(
        with.lines().skip(1).collect::<Vec<_>>(),
        without.lines().skip(1).collect::<Vec<_>>()
    );
}

/// nvcc's shape of `printf("%s %d %.1f\n", "tid", tid, tid * 0.5)`.
const PRINTF_PTX: &str = "\
.version 8.0\n.target sm_90\n.address_size 64\n\
.extern .func (.param .b32 func_retval0) vprintf(.param .b64 f, .param .b64 a);\n\
.global .align 1 .b8 fmt[12] = {37, 115, 32, 37, 100, 32, 37, 46, 49, 102, 10, 0};\n\
.global .align 1 .b8 word[4] = {116, 105, 100, 0};\n\
.visible .entry k()\n{\n\
.local .align 8 .b8 depot[24];\n\
.reg .b32 %r<4>; .reg .b64 %rd<8>; .reg .f64 %fd<2>;\n\
mov.u32 %r1, %tid.x;\n\
mov.u64 %rd1, depot; cvta.local.u64 %rd2, %rd1;\n\
mov.u64 %rd3, word; cvta.global.u64 %rd3, %rd3; st.local.u64 [%rd1], %rd3;\n\
st.local.u32 [%rd1+8], %r1;\n\
cvt.rn.f64.u32 %fd1, %r1; mul.f64 %fd1, %fd1, 0d3FE0000000000000; st.local.f64 [%rd1+16], %fd1;\n\
mov.u64 %rd4, fmt; cvta.global.u64 %rd4, %rd4;\n\
{ .param .b64 p0; st.param.b64 [p0], %rd4; .param .b64 p1; st.param.b64 [p1], %rd2;\n\
  .param .b32 r0; call.uni (r0), vprintf, (p0, p1); }\n\
ret;\n}\n";

#[test]
fn device_printf_reaches_stdout_in_the_emulator() {
    let dir = scratch("printf");
    let ptx = write(&dir, "p.ptx", PRINTF_PTX);
    let out = kernelc(&[
        "run", &ptx, "--engine", "emu", "--kernel", "k", "--grid", "2", "--block", "2",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "tid 0 0.0\ntid 1 0.5\ntid 0 0.0\ntid 1 0.5\n",
        "each thread of each block, in the order they ran"
    );
}
