//! Module variables whose initializers hold addresses
//! (`tests/fixtures/module_addresses/module_addresses.cu`): of variables,
//! with offsets (`generic(buf)+32`), of device functions (tables of them,
//! in global and constant memory) and of string literals. kernelc's PTX
//! spells them as nvcc does and ptxas takes it; the kernel reads through
//! every one and computes what this test computes, on the PTX emulator
//! and in the IR interpreter at -O0 and -O3, and so does nvcc's PTX on
//! the emulator. What PTX cannot hold is a located error with a code.

mod common;

use common::{i32s, kernelc, launch_buffers, scratch, stderr};
use std::path::{Path, PathBuf};

fn fixture() -> PathBuf {
    common::root().join("tests/fixtures/module_addresses/module_addresses.cu")
}

/// Threads, and the length of each row of the outputs.
const N: usize = 64;
const KERNEL: &str = "_Z1kPKfPfPii";
const ARGS: &[&str] = &[
    "f32[]:iota:64",
    "f32[]:zeros:256",
    "i32[]:zeros:192",
    "i32:64",
];

/// What `k` writes for the input 0, 1, 2, ...: its float rows, then its
/// int rows (see the fixture for what each row reads).
fn expected() -> (Vec<f32>, Vec<i32>) {
    let vals = [10, 20, 30, 40];
    let names: [&[u8]; 2] = [b"alpha", b"beta"];
    let mut out = vec![0.0f32; 4 * N];
    let mut iout = vec![0i32; 3 * N];
    for i in 0..N {
        let x = i as f32;
        out[i] = if i & 1 == 0 { x + 2.0 } else { x * 2.0 };
        out[N + i] = if (i >> 1) & 1 == 0 { x * 3.0 } else { x + 3.0 };
        out[2 * N + i] = x + 1.0;
        out[3 * N + i] = 2.0 * x;
        iout[i] = i32::from(names[i & 1][i % 4]);
        let ref_v = 1;
        iout[N + i] = vals[2 + (i & 1)] + ref_v;
        // `*vp` is `ref.v`, `past - vals` the array's length, `none` null.
        iout[2 * N + i] = ref_v * 100 + vals.len() as i32 + 1;
    }
    (out, iout)
}

/// Runs `k` from `file` on `engine` (with `options`): its two output buffers.
fn run(file: &Path, engine: &str, out: &Path, options: &[&str]) -> (Vec<f32>, Vec<i32>) {
    let mut with_shape = vec!["--grid", "2", "--block", "32", "-fmad=false"];
    with_shape.extend_from_slice(options);
    let buffers = launch_buffers(file, engine, (KERNEL, ARGS), out, &with_shape);
    let bytes = |k: usize| buffers[k].clone().expect("an array argument");
    (common::f32s(&bytes(1)), i32s(&bytes(2)))
}

#[test]
fn reads_through_initialized_addresses_give_what_the_initializers_say() {
    let dir = scratch("module-addresses");
    let (text, theirs) = common::fixture_ptx_and_nvcc(&fixture(), &dir);
    // nvcc's spelling: 64-bit words, `generic(...)` for a variable's
    // address, a function's name (declared before the variables) for its.
    for line in [
        ".global .align 8 .u64 p = generic(buf);",
        ".global .align 8 .u64 q = generic(buf)+32;",
        ".global .align 8 .u64 d_add = _Z3addff;",
        ".global .align 8 .u64 table[2] = {_Z3addff, _Z3mulff};",
        ".const .align 8 .u64 ctable[2] = {_Z3mulff, _Z3addff};",
        ".global .align 8 .u64 ref[2] = {1, generic(vals)+8};",
        ".global .align 8 .u64 names[2] = {generic($str), generic($str$1)};",
        ".global .align 8 .u64 vp = generic(ref);",
        ".global .align 8 .u64 past = generic(vals)+16;",
    ] {
        assert!(text.contains(line), "{line}\n{text}");
    }
    let declared = text
        .find(".func (.param .b32 func_retval0) _Z3addff(")
        .unwrap();
    assert!(declared < text.find(".u64 d_add").unwrap(), "{text}");

    let want = expected();
    let ptx = dir.join("kernelc.ptx");
    assert_eq!(
        run(&ptx, "emu", &dir.join("emu"), &[]),
        want,
        "kernelc's PTX"
    );
    for level in ["-O0", "-O3"] {
        let out = dir.join(format!("interp{level}"));
        assert_eq!(
            run(&fixture(), "interp", &out, &[level]),
            want,
            "interpreter at {level}"
        );
    }
    if let Some(theirs) = theirs {
        assert_eq!(
            run(&theirs, "emu", &dir.join("nvcc"), &[]),
            want,
            "nvcc's PTX"
        );
    }
}

#[test]
fn pointers_to_constant_memory_in_initializers_are_read_generically() {
    // `cp` and `gp` hold addresses in constant memory, which the
    // initializers put there: so neither "only the host writes pointers
    // to constant memory, and they are global" nor "global memory holds
    // only global pointers" holds, and the loads through them are
    // generic. (nvcc reads through `cp` with `ld.global`: on a GPU
    // constant memory is a window of global memory; in the interpreter and
    // the emulator it is a space of its own, so its PTX is not run here.)
    let dir = scratch("module-addresses-const");
    let src = dir.join("c.cu");
    std::fs::write(
        &src,
        "__constant__ float cbuf[4] = {1, 2, 3, 4};\n\
         __constant__ const float *cp = &cbuf[1];\n\
         __device__ const float *gp = cbuf + 2;\n\
         __global__ void k(float *out) {\n\
         \x20   int i = blockIdx.x * blockDim.x + threadIdx.x;\n\
         \x20   out[i] = cp[i & 1] + 10.0f * gp[0];\n\
         }\n",
    )
    .unwrap();
    let text = common::fixture_ptx(&src, &dir);
    assert!(
        text.contains(".const .align 8 .u64 cp = generic(cbuf)+4;"),
        "{text}"
    );
    assert!(
        text.contains(".global .align 8 .u64 gp = generic(cbuf)+8;"),
        "{text}"
    );
    assert_eq!(text.matches("ld.f32").count(), 2, "{text}");
    let want: Vec<f32> = (0..N).map(|i| [2.0, 3.0][i & 1] + 30.0).collect();
    let args: &[&str] = &["f32[]:zeros:64"];
    let shape = ["--grid", "2", "--block", "32"];
    let ptx = dir.join("kernelc.ptx");
    for (file, engine, level) in [
        (&ptx, "emu", "-O0"),
        (&src, "interp", "-O0"),
        (&src, "interp", "-O3"),
    ] {
        let out = dir.join(format!("{engine}{level}"));
        let mut options = shape.to_vec();
        if engine == "interp" {
            options.push(level);
        }
        let got = launch_buffers(file, engine, ("_Z1kPf", args), &out, &options);
        assert_eq!(
            common::f32s(got[0].as_ref().unwrap()),
            want,
            "{engine} {level}"
        );
    }
}

#[test]
fn relocations_print_and_parse_back_in_the_ir() {
    let dir = scratch("module-addresses-ir");
    let kir = dir.join("m.kir");
    let o = kernelc(&[
        fixture().to_str().unwrap(),
        "--emit",
        "ir",
        "-o",
        kir.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&kir).unwrap();
    assert!(text.contains("relocs [0: gv0 + 32]"), "{text}");
    assert!(
        text.contains("relocs [0: @_Z3addff, 8: @_Z3mulff]"),
        "{text}"
    );
    let module = kernelc::midend::text::parse_module(&text).expect("parses back");
    assert_eq!(
        kernelc::midend::text::write_module(&module, Default::default()),
        text
    );
    // The IR runs as the source does.
    let out = dir.join("run");
    assert_eq!(run(&kir, "interp", &out, &[]), expected());
}

/// Compiles `source`: it must fail with `code` at `at` and write nothing;
/// stderr.
fn rejected(source: &str, code: &str, at: &str) -> String {
    let err = common::rejected_with("module-address-errors", source, code);
    assert!(err.contains(at), "{at}: {err}");
    err
}

#[test]
fn addresses_no_loader_can_give_are_located_errors() {
    // Each block has its own shared memory (nvcc: "address of a shared
    // variable cannot be used in an initializer").
    let err = rejected(
        "__shared__ float tile[32];\n__device__ float *t = tile;\n",
        "E0009",
        "2:23",
    );
    assert!(err.contains("`__shared__` variable `tile`"), "{err}");
    // Not a constant: the value of another variable.
    let err = rejected(
        "__device__ float buf[4];\n__device__ int n = 2;\n__device__ float *p = buf + n;\n",
        "E0009",
        "3:29",
    );
    assert!(err.contains("constant address"), "{err}");
    // Before the start of its object: PTX can only add to an address.
    let err = rejected(
        "__device__ float buf[4];\n__device__ float *p = &buf[-1];\n",
        "E0009",
        "2:23",
    );
    assert!(err.contains("before the start"), "{err}");
    // An integer address other than null: memory-space inference would
    // take it, loaded back, for a global pointer.
    rejected(
        "__device__ float *p[2] = {nullptr, (float *)16};\n",
        "E0002",
        "1:36",
    );
    // A function declared but never defined has no address to give.
    rejected(
        "__device__ float never(float);\n__device__ float (*f)(float) = never;\n",
        "E0007",
        "2:32",
    );
    // A kernel's address is no device function's.
    rejected(
        "__global__ void g(float *o) { o[0] = 1; }\ntypedef void (*k_t)(float *);\n__device__ k_t kp = g;\n",
        "E0002",
        "3:21",
    );
}
