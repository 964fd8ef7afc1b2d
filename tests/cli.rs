//! The `kernelc` binary as a user runs it: the README's commands, nvcc-style
//! flags, atomic output files, diagnostics and exit codes, and the IR
//! round trip through `kernelc opt`.

mod common;

use common::{kernelc, scratch, stderr, stdout};

use std::path::Path;

#[test]
fn readme_compile_command_prints_ptx() {
    let out = kernelc(&["samples/vadd.cu", "-arch=sm_90"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let ptx = stdout(&out);
    assert!(ptx.contains(".target sm_90"), "{ptx}");
    assert!(ptx.contains(".visible .entry vadd("), "{ptx}");
    common::assert_ptxas_accepts(&ptx, "sm_90", "kernelc samples/vadd.cu -arch=sm_90");
}

#[test]
fn arch_spellings_are_equivalent() {
    let a = stdout(&kernelc(&["samples/saxpy.cu", "-arch=sm_80"]));
    let b = stdout(&kernelc(&["samples/saxpy.cu", "-arch", "sm_80"]));
    let c = stdout(&kernelc(&["samples/saxpy.cu", "--gpu-architecture=sm_80"]));
    let d = stdout(&kernelc(&[
        "samples/saxpy.cu",
        "--gpu-architecture",
        "sm_80",
        "-ptx",
    ]));
    assert!(a.contains(".target sm_80"));
    assert_eq!(a, b);
    assert_eq!(a, c);
    assert_eq!(a, d);
}

#[test]
fn output_file_is_written_and_deterministic() {
    let dir = scratch("out");
    let path = dir.join("vadd.ptx");
    let p = path.to_str().unwrap();
    for _ in 0..2 {
        let out = kernelc(&["samples/vadd.cu", "-o", p, "-arch=sm_80", "-O2"]);
        assert!(out.status.success(), "{}", stderr(&out));
        assert!(stdout(&out).is_empty(), "nothing on stdout with -o");
    }
    let first = std::fs::read_to_string(&path).unwrap();
    let again = stdout(&kernelc(&["samples/vadd.cu", "-arch=sm_80", "-O2"]));
    assert_eq!(first, again);
    // `-o -` is stdout, not a file named `-` (run where one would appear).
    let dash = std::process::Command::new(env!("CARGO_BIN_EXE_kernelc"))
        .args([
            common::root().join("samples/vadd.cu").to_str().unwrap(),
            "-o",
            "-",
            "-arch=sm_80",
            "-O2",
        ])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(dash.status.success(), "{}", stderr(&dash));
    assert_eq!(stdout(&dash), first);
    assert!(!dir.join("-").exists(), "`-o -` wrote a file named `-`");
    common::assert_ptxas_accepts(&first, "sm_80", "vadd -O2 via -o");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn user_error_exits_1_with_snippet_and_leaves_no_file() {
    let dir = scratch("bad");
    let src = dir.join("bad.cu");
    std::fs::write(
        &src,
        "extern \"C\" __global__ void k(float* p) {\n    p[0] = undefined_name;\n}\n",
    )
    .unwrap();
    let out_path = dir.join("bad.ptx");
    let out = kernelc(&[src.to_str().unwrap(), "-o", out_path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("undefined_name"), "{err}");
    assert!(
        err.contains("bad.cu:2:"),
        "diagnostic names file and line: {err}"
    );
    assert!(err.contains('^'), "diagnostic has a caret snippet: {err}");
    assert!(!out_path.exists(), "no output file on error");
    assert!(
        std::fs::read_dir(&dir).unwrap().count() == 1,
        "no temporary file left behind"
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn bad_options_are_user_errors() {
    let out = kernelc(&["samples/vadd.cu", "-arch=sm_99"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("sm_99"), "{}", stderr(&out));
    let out = kernelc(&["does/not/exist.cu"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("cannot read"), "{}", stderr(&out));
    let out = kernelc(&["samples/vadd.cu", "--ptx-version", "eight"]);
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn target_triple_must_be_nvptx64() {
    let out = kernelc(&["samples/vadd.cu", "--target", "nvptx64-nvidia-cuda"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = kernelc(&["samples/vadd.cu", "--target", "x86_64-unknown-linux-gnu"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("only generates code for `nvptx64-nvidia-cuda`"),
        "{}",
        stderr(&out)
    );
    // target-lexicon cannot read 32-bit NVPTX; kernelc still says what it is.
    let out = kernelc(&["samples/vadd.cu", "--target", "nvptx-nvidia-cuda"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        "error: target `nvptx-nvidia-cuda` is 32-bit NVPTX, which ptxas no longer supports; use `nvptx64-nvidia-cuda`\n"
    );
}

/// A feature the target lacks is a located diagnostic naming the target it needs.
#[test]
fn cluster_dims_on_sm80_is_a_located_error() {
    let out = kernelc(&[
        "tests/filetests/compile/cluster_dims_sm90.cu",
        "-arch=sm_80",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("`__cluster_dims__` needs sm_90 or newer (the target is sm_80)"),
        "{err}"
    );
    assert!(err.contains("cluster_dims_sm90.cu:3:28"), "{err}");
}

#[test]
fn ptx_version_override() {
    let out = kernelc(&["samples/vadd.cu", "-arch=sm_90", "--ptx-version", "8.5"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains(".version 8.5"));
}

#[test]
fn defines_reach_the_source() {
    let dir = scratch("define");
    let src = dir.join("d.cu");
    std::fs::write(
        &src,
        "extern \"C\" __global__ void k(int* p) { p[0] = SCALE * 2; }\n",
    )
    .unwrap();
    let s = src.to_str().unwrap();
    let out = kernelc(&[s, "-D", "SCALE=21", "--emit", "ir", "-O0"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("iconst.i32 21"), "{}", stdout(&out));
    let out = kernelc(&[s, "-DSCALE=5", "--emit", "ir-opt"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("iconst.i32 10"), "{}", stdout(&out));
    let out = kernelc(&[s]);
    assert_eq!(out.status.code(), Some(1), "SCALE undefined without -D");
    let _ = std::fs::remove_dir_all(dir);
}

/// `--ir-spans` shows where each instruction came from, and the spans
/// survive a trip through `kernelc opt --ir-spans`.
#[test]
fn ir_spans_point_into_the_source() {
    let out = kernelc(&["samples/vadd.cu", "--emit", "ir", "--ir-spans"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let ir = stdout(&out);
    let source = std::fs::read_to_string(common::root().join("samples/vadd.cu")).unwrap();
    let line = ir.lines().find(|l| l.contains("special tid.x")).unwrap();
    let span = line.rsplit_once('!').unwrap().1;
    let (start, end) = span.split_once("..").unwrap();
    let (start, end): (usize, usize) = (start.parse().unwrap(), end.parse().unwrap());
    assert_eq!(&source[start..end], "threadIdx.x");
    let dir = scratch("spans");
    let kir = dir.join("vadd.kir");
    std::fs::write(&kir, &ir).unwrap();
    let back = kernelc(&["opt", kir.to_str().unwrap(), "--passes", "", "--ir-spans"]);
    assert_eq!(stdout(&back), ir);
    let _ = std::fs::remove_dir_all(dir);
}

/// `--fmad` (nvcc's spelling, default true) decides whether `a * x + y`
/// becomes one `fma.rn`.
#[test]
fn fmad_controls_contraction() {
    let on = stdout(&kernelc(&["samples/saxpy.cu", "-arch=sm_90"]));
    assert!(on.contains("fma.rn.f32"), "{on}");
    for off in [["--fmad=false"].as_slice(), &["--fmad", "false"]] {
        let mut args = vec!["samples/saxpy.cu", "-arch=sm_90"];
        args.extend_from_slice(off);
        let ptx = stdout(&kernelc(&args));
        // `fma.` and not `fma`: the header line names `--fmad=false`. The
        // multiply and the add are written `.rn`, as nvcc writes them, so
        // that ptxas cannot fuse them either.
        assert!(!ptx.contains("fma."), "{ptx}");
        assert!(
            ptx.contains("mul.rn.f32") && ptx.contains("add.rn.f32"),
            "{ptx}"
        );
        common::assert_ptxas_accepts(&ptx, "sm_90", "saxpy --fmad=false");
    }
    let out = kernelc(&["samples/saxpy.cu", "--fmad=maybe"]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "a bad value is a user error (exit 1, as nvcc)"
    );
}

/// `-arch=sm_XY` defines `__CUDA_ARCH__` as `XY0`, as nvcc does; `-D` overrides it.
#[test]
fn cuda_arch_follows_the_target() {
    let dir = scratch("arch");
    let src = dir.join("a.cu");
    std::fs::write(
        &src,
        "extern \"C\" __global__ void k(int* p) {\n#if __CUDA_ARCH__ >= 900\n    p[0] = __CUDA_ARCH__;\n#else\n    p[0] = 7;\n#endif\n}\n",
    )
    .unwrap();
    let s = src.to_str().unwrap();
    let ir = |args: &[&str]| {
        let mut all = vec![s, "--emit", "ir"];
        all.extend_from_slice(args);
        stdout(&kernelc(&all))
    };
    assert!(ir(&["-arch=sm_90"]).contains("iconst.i32 900"));
    assert!(ir(&["-arch=sm_80"]).contains("iconst.i32 7"));
    assert!(ir(&["-arch=sm_80", "-D", "__CUDA_ARCH__=1000"]).contains("iconst.i32 1000"));
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn every_emit_kind_works() {
    for emit in ["tokens", "ast", "ir", "ir-opt", "ptx"] {
        let out = kernelc(&["samples/matmul_clamp.cu", "--emit", emit]);
        assert!(out.status.success(), "--emit {emit}: {}", stderr(&out));
        assert!(!stdout(&out).is_empty(), "--emit {emit} printed nothing");
    }
}

/// `--emit ir` output is valid input for `kernelc opt`, which prints the same
/// module back when asked to run no pass.
#[test]
fn emitted_ir_parses_back_with_opt() {
    let dir = scratch("opt");
    for sample in ["vadd", "saxpy", "matmul_clamp"] {
        let src = format!("samples/{sample}.cu");
        let ir = stdout(&kernelc(&[&src, "--emit", "ir"]));
        let kir = dir.join(format!("{sample}.kir"));
        std::fs::write(&kir, &ir).unwrap();
        let k = kir.to_str().unwrap();
        let out = kernelc(&["opt", k, "--passes", ""]);
        assert!(out.status.success(), "{}", stderr(&out));
        assert_eq!(
            stdout(&out),
            ir,
            "{sample}: IR round trip through kernelc opt"
        );
        // `opt` with no `--passes` runs the -O3 pipeline, like `--emit ir-opt`.
        let optimized = stdout(&kernelc(&["opt", k]));
        let ir_opt = stdout(&kernelc(&[&src, "--emit", "ir-opt"]));
        assert_eq!(optimized, ir_opt, "{sample}: opt = --emit ir-opt");
        let pipeline = kernelc::midend::passes::pipeline(3, true).join(",");
        let spelled_out = stdout(&kernelc(&["opt", k, "--passes", &pipeline]));
        assert_eq!(
            spelled_out, ir_opt,
            "{sample}: the -O3 pipeline spelled out"
        );
    }
    let _ = std::fs::remove_dir_all(dir);
}

/// A `.kir` file compiles like a `.cu` one, minus the frontend: the same
/// passes and backend, and the same PTX as compiling the C source.
#[test]
fn kir_input_compiles_to_the_same_ptx() {
    let dir = scratch("kir");
    let kir = dir.join("saxpy.kir");
    let ir = stdout(&kernelc(&[
        "samples/saxpy.cu",
        "--emit",
        "ir",
        "-arch=sm_90",
    ]));
    std::fs::write(&kir, &ir).unwrap();
    let from_ir = kernelc(&[kir.to_str().unwrap(), "-arch=sm_90"]);
    assert!(from_ir.status.success(), "{}", stderr(&from_ir));
    let from_c = stdout(&kernelc(&["samples/saxpy.cu", "-arch=sm_90"]));
    assert_eq!(stdout(&from_ir), from_c);
    let tokens = kernelc(&[kir.to_str().unwrap(), "--emit", "tokens"]);
    assert_eq!(tokens.status.code(), Some(1));
    assert!(
        stderr(&tokens).contains("need C source"),
        "{}",
        stderr(&tokens)
    );
    let bad = dir.join("bad.kir");
    std::fs::write(
        &bad,
        "kernel external @k() {\nblock0:\n    v1 = iadd v2, v3\n}\n",
    )
    .unwrap();
    let out = kernelc(&[bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn opt_reports_bad_ir_and_unknown_passes() {
    let dir = scratch("optbad");
    let kir = dir.join("bad.kir");
    std::fs::write(
        &kir,
        "device external @f() {\nblock0:\n    v1 = iadd v7, v8\n}\n",
    )
    .unwrap();
    let out = kernelc(&["opt", kir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let good = dir.join("good.kir");
    std::fs::write(&good, "device external @f() {\nblock0:\n    return\n}\n").unwrap();
    let out = kernelc(&["opt", good.to_str().unwrap(), "--passes", "frobnicate"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("unknown pass"), "{}", stderr(&out));
    let _ = std::fs::remove_dir_all(Path::new(&dir));
}

#[test]
fn validate_subcommand_accepts_kernelc_output_and_rejects_bad_ptx() {
    let dir = scratch("validate");
    let good = dir.join("vadd.ptx");
    let out = kernelc(&[
        "samples/vadd.cu",
        "-arch=sm_90",
        "-o",
        good.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = kernelc(&["validate", good.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    // vadd uses nothing newer than sm_75, so that is its oldest target; the
    // version is the lowest its own target (sm_90) accepts.
    assert!(
        stdout(&out).contains("minimum: .version 7.8, .target sm_75"),
        "{}",
        stdout(&out)
    );
    // The cluster sample's cluster registers, mapa and barrier.cluster
    // exist from sm_90 on.
    let cl = dir.join("cluster.ptx");
    let out = kernelc(&[
        "samples/cluster_reduce.cu",
        "-arch=sm_90",
        "-o",
        cl.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = kernelc(&["validate", cl.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains(".target sm_90"), "{}", stdout(&out));

    let ptx = std::fs::read_to_string(&good).unwrap();
    let bad = dir.join("bad.ptx");
    std::fs::write(
        &bad,
        ptx.replacen("ret;", "add.u32 %zz1, %r1, 1;\n\tret;", 1),
    )
    .unwrap();
    let out = kernelc(&["validate", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("error: Unknown symbol '%zz1'"), "{err}");
    assert!(err.contains("add.u32 %zz1, %r1, 1;"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
