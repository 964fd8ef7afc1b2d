//! Restrict processing and its consumers, end to end: every sample computes
//! the same bits through the interpreter with the new passes on and off,
//! restrict processing is idempotent on every sample, saxpy reads `x` with
//! `ld.global.nc` and `y` without, vadd (no restrict) never does, the struct
//! diagnostic fires unless allowed, and `--explain-nc` says why.

mod common;

use kernelc::driver::{self, CompileOptions, Emit};
use kernelc::midend::ir::Module;
use kernelc::midend::passes::{self, restrict};
use kir_interp::{KernelArg, LaunchConfig};

/// The passes this work added; "off" is the -O3 pipeline without them.
const NEW_PASSES: [&str; 4] = ["restrict", "mark-invariant", "load-elim", "hoist-loads"];

/// The samples the interpreter can run (the others' run specs say why
/// not), each compiled for the target it names, if any.
fn samples() -> Vec<String> {
    common::runnable_samples()
}

fn source(sample: &str) -> String {
    common::sample_source(sample)
}

/// sm_80, or the sample's own target when it needs a newer one.
fn options(sample: &str) -> CompileOptions {
    CompileOptions {
        target: kernelc::backend_nvptx::Target::parse(&common::target_for(
            &source(sample),
            "sm_80",
        ))
        .unwrap(),
        ..CompileOptions::default()
    }
}

/// The sample's IR straight from the frontend.
fn lowered(sample: &str) -> Module {
    let opts = CompileOptions {
        emit: Emit::Ir,
        ..options(sample)
    };
    let text = driver::compile_source(sample, &source(sample), &opts).unwrap();
    kernelc::midend::text::parse_module(&text).unwrap()
}

fn optimized(sample: &str, with_new: bool) -> Module {
    let mut module = lowered(sample);
    let passes: Vec<&str> = passes::pipeline(3, true)
        .into_iter()
        .filter(|p| with_new || !NEW_PASSES.contains(p))
        .collect();
    common::run_passes(&mut module, &passes).unwrap();
    module
}

#[test]
fn every_sample_computes_the_same_bits_with_the_new_passes_on_and_off() {
    for sample in samples() {
        let on = common::run_spec_in_interp(&sample, &optimized(&sample, true));
        let off = common::run_spec_in_interp(&sample, &optimized(&sample, false));
        assert_eq!(on, off, "{sample}: results differ with the restrict passes");
    }
}

#[test]
fn restrict_processing_is_idempotent_on_every_sample() {
    for sample in samples() {
        let mut once = lowered(&sample);
        common::run_passes(&mut once, &["memspace", "restrict"]).unwrap();
        let mut twice = once.clone();
        common::run_passes(&mut twice, &["restrict"]).unwrap();
        assert_eq!(once, twice, "{sample}: a second run changed the module");
        assert!(once.functions.values().all(|f| f.attrs.restrict_processed));
    }
}

fn ptx(sample: &str) -> String {
    driver::compile_source(sample, &source(sample), &CompileOptions::default()).unwrap()
}

#[test]
fn saxpy_reads_x_non_coherent_and_y_coherent() {
    let text = ptx("saxpy");
    assert_eq!(text.matches("ld.global.nc.f32").count(), 1, "{text}");
    // `y` is read and written: a plain global load and a store.
    assert_eq!(text.matches("ld.global.f32").count(), 1, "{text}");
    assert!(text.contains("st.global.f32"), "{text}");
}

#[test]
fn vadd_without_restrict_never_uses_nc() {
    assert!(!ptx("vadd").contains(".nc"));
}

#[test]
fn process_restrict_0_turns_nc_off() {
    let opts = CompileOptions {
        process_restrict: Some(false),
        ..CompileOptions::default()
    };
    let text = driver::compile_source("saxpy", &source("saxpy"), &opts).unwrap();
    assert!(!text.contains(".nc"), "{text}");
}

#[test]
fn explain_nc_and_dump_restrict_say_what_happened() {
    let opts = CompileOptions {
        explain_nc: true,
        restrict_opts: restrict::Options {
            dump: true,
            ..restrict::Options::default()
        },
        ..CompileOptions::default()
    };
    let out = driver::compile_source_with_messages("saxpy.cu", &source("saxpy"), &opts).unwrap();
    let m = &out.messages;
    assert!(m.contains("restrict:   scope0 = \"arg2\""), "{m}");
    assert!(
        m.contains("before [] after scopes(scope0) noalias(scope1)"),
        "{m}"
    );
    assert!(m.contains("explain-nc: saxpy.cu:12:20: @saxpy"), "{m}");
    assert!(m.contains(": ld.global.nc"), "{m}");
    assert!(m.contains("not .nc: the memory may be written"), "{m}");
    let vadd = CompileOptions {
        explain_nc: true,
        ..CompileOptions::default()
    };
    let out = driver::compile_source_with_messages("vadd.cu", &source("vadd"), &vadd).unwrap();
    assert!(out
        .messages
        .contains("not .nc: the pointer does not come from a __restrict__ parameter"));
}

const STRUCT_IR: &str = "\
kernel external @k(ptr<param> restrict byval(16, 8), ptr<global>) {
block0(v0: ptr<param>, v1: ptr<global>):
    v2 = load.ptr<global> v0
    v3 = load.f32 v2
    store v3, v1
    return
}
";

#[test]
fn restrict_in_an_aggregate_is_refused_unless_allowed() {
    let mut module = kernelc::midend::text::parse_module(STRUCT_IR).unwrap();
    let err = common::run_passes(&mut module, &["restrict"]).unwrap_err();
    assert!(
        err.contains("function contains restrict keyword in struct"),
        "{err}"
    );
    let mut module = kernelc::midend::text::parse_module(STRUCT_IR).unwrap();
    common::run_passes(&mut module, &["restrict(allow-in-struct)"]).unwrap();
    let text = kernelc::midend::text::write_module(&module, Default::default());
    assert!(text.contains("alias_scope \"arg0.field\""), "{text}");
    assert!(text.contains("v3 = load.f32 v2 scopes(scope0)"), "{text}");
}

const STRUCT_SOURCE: &str = "\
struct Args { const float* __restrict__ x; float* __restrict__ y; int n; };
__global__ void k(Args a) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < a.n) a.y[i] = a.x[i] * 2.0f;
}
";

#[test]
fn restrict_in_a_struct_from_source_needs_the_knob() {
    let err = driver::compile_source("args.cu", STRUCT_SOURCE, &CompileOptions::default())
        .unwrap_err()
        .rendered;
    assert!(
        err.contains("error[E0028]: function contains restrict keyword in struct"),
        "{err}"
    );
    assert!(
        err.contains("args.cu:4:27"),
        "the first access through a restricted field: {err}"
    );
    let opts = CompileOptions {
        restrict_opts: restrict::Options {
            allow_in_struct: true,
            ..restrict::Options::default()
        },
        ..CompileOptions::default()
    };
    let ptx = driver::compile_source("args.cu", STRUCT_SOURCE, &opts).unwrap();
    // Read in place from param space: no copy to local memory, and the
    // pointer fields keep their global provenance and their restrict.
    assert!(!ptx.contains(".local"), "{ptx}");
    assert!(ptx.contains("ld.param.u64"), "{ptx}");
    assert_eq!(ptx.matches("ld.global.nc.f32").count(), 1, "{ptx}");
    assert!(ptx.contains("st.global.f32"), "{ptx}");
    let ir_opts = CompileOptions {
        emit: Emit::IrOpt,
        ..opts.clone()
    };
    let ir = driver::compile_source("args.cu", STRUCT_SOURCE, &ir_opts).unwrap();
    assert!(
        ir.contains("restrict byval(24, 8) restrict_fields(0, 8)"),
        "{ir}"
    );
    assert!(ir.contains("alias_scope \"arg0.field0\""), "{ir}");
    assert!(ir.contains("alias_scope \"arg0.field8\""), "{ir}");
}

#[test]
fn restrict_in_a_struct_is_idempotent() {
    let opts = CompileOptions {
        emit: Emit::Ir,
        ..CompileOptions::default()
    };
    let text = driver::compile_source("args.cu", STRUCT_SOURCE, &opts).unwrap();
    let mut once = kernelc::midend::text::parse_module(&text).unwrap();
    let options = passes::Options {
        restrict: restrict::Options {
            allow_in_struct: true,
            ..restrict::Options::default()
        },
        ..passes::Options::default()
    };
    let run = |module: &mut Module, names: &[&str]| {
        let pipeline = passes::Pipeline::parse(names, options.clone()).unwrap();
        let report = pipeline.run(module).unwrap();
        assert!(report.diagnostics.is_empty(), "{:?}", report.diagnostics);
    };
    run(&mut once, &["memspace", "restrict"]);
    let mut twice = once.clone();
    run(&mut twice, &["restrict"]);
    assert_eq!(once, twice);
}

/// A struct parameter read in place and one that the kernel writes (so it
/// is copied to local memory first) give the same results, with and
/// without optimization.
#[test]
fn struct_parameters_read_in_place_compute_the_same_results() {
    let in_place = "struct P { float a; int n; float s; };\n\
        __global__ void k(P p, float* out) {\n\
            int i = threadIdx.x;\n\
            if (i < p.n) out[i] = p.a * i + p.s;\n\
        }\n";
    let copied = "struct P { float a; int n; float s; };\n\
        __global__ void k(P p, float* out) {\n\
            int i = threadIdx.x;\n\
            p.s = p.s + 0.0f;\n\
            if (i < p.n) out[i] = p.a * i + p.s;\n\
        }\n";
    let mut bytes = Vec::new();
    bytes.extend(1.5f32.to_le_bytes());
    bytes.extend(20i32.to_le_bytes());
    bytes.extend(0.25f32.to_le_bytes());
    let mut results = Vec::new();
    for (src, level) in [(in_place, 0), (in_place, 3), (copied, 0), (copied, 3)] {
        let opts = CompileOptions {
            emit: Emit::Ir,
            opt_level: level,
            ..CompileOptions::default()
        };
        let text = driver::compile_source("p.cu", src, &opts).unwrap();
        let mut module = kernelc::midend::text::parse_module(&text).unwrap();
        if level > 0 {
            common::optimize(&mut module, level).unwrap();
        }
        if src == in_place {
            assert!(!text.contains("stack"), "read in place: {text}");
        }
        let args = [
            KernelArg::Buffer(bytes.clone()),
            KernelArg::Buffer(vec![0; 32 * 4]),
        ];
        let config = LaunchConfig {
            grid: [1, 1, 1],
            block: [32, 1, 1],
            ..LaunchConfig::default()
        };
        let out = kir_interp::run_kernel(&module, "k", &args, &config).unwrap();
        results.push(out.buffers[1].clone().unwrap());
    }
    let expect: Vec<u8> = (0..32)
        .flat_map(|i| {
            let v = if i < 20 {
                1.5f32 * i as f32 + 0.25
            } else {
                0.0
            };
            v.to_le_bytes()
        })
        .collect();
    for r in &results {
        assert_eq!(r, &expect);
    }
}

/// Restricted inputs across calls: a callee that writes through another
/// restricted pointer or into a module variable leaves the input `.nc`; a
/// callee that writes through the input itself does not; a helper that only
/// reads a restricted input reads it with `.nc` when every call passes
/// read-only restricted memory, and without when one call passes memory the
/// kernel writes.
const CALLS_SOURCE: &str = "\
__device__ float counter[4];
extern \"C\" __device__ __noinline__ void poke(float *p) { p[0] = 1.0f; }
extern \"C\" __device__ __noinline__ void tally(int k) { counter[k & 3] += 1.0f; }
extern \"C\" __device__ __noinline__ float get(const float *p, int i) { return p[i]; }
extern \"C\" __device__ __noinline__ float get_w(const float *p, int i) { return p[i]; }
extern \"C\" __global__ void other(const float *__restrict__ r, float *__restrict__ out) {
    int i = threadIdx.x;
    poke(out + i);
    tally(i);
    out[i] += r[i];
}
extern \"C\" __global__ void same(const float *__restrict__ r, float *__restrict__ out) {
    int i = threadIdx.x;
    poke((float *)r + 32 + i);
    out[i] = r[i];
}
extern \"C\" __global__ void helper(const float *__restrict__ r, float *__restrict__ w, float *__restrict__ out) {
    int i = threadIdx.x;
    out[i] = get(r, i) + get_w(w, i);
    w[i] = 0.0f;
}
";

#[test]
fn nc_across_calls() {
    let opts = CompileOptions {
        target: kernelc::backend_nvptx::Target::parse("sm_90").unwrap(),
        explain_nc: true,
        // External helpers (extern "C", plain names) are cloned per space.
        relocatable: true,
        ..CompileOptions::default()
    };
    let out = driver::compile_source_with_messages("calls.cu", CALLS_SOURCE, &opts).unwrap();
    let ptx = &out.output;
    common::assert_ptxas_accepts(ptx, "sm_90", "calls.cu");
    let body = |name: &str| -> String {
        let start = ptx
            .find(&format!(" {name}("))
            .unwrap_or_else(|| panic!("no {name}:\n{ptx}"));
        let rest = &ptx[start..];
        rest[..rest.find("\n}").unwrap()].to_string()
    };
    let nc = |name: &str| body(name).matches("ld.global.nc.f32").count();
    assert_eq!(nc("other"), 1, "{}", body("other"));
    assert_eq!(nc("same"), 0, "{}", body("same"));
    assert_eq!(nc("get__global"), 1, "{}", body("get__global"));
    assert_eq!(nc("get_w__global"), 0, "{}", body("get_w__global"));
    // The explanations, one line per load (value numbers left out: they
    // follow whatever the passes before did).
    let m = &out.messages;
    let line = |func: &str, why: &str| {
        m.lines().any(|l| {
            l.contains(&format!("@{func} `")) && l.contains("= load.f32 ") && l.ends_with(why)
        })
    };
    assert!(
        line(
            "same",
            "not .nc: the kernel calls @poke__global, which may write this memory at calls.cu:14:5"
        ),
        "{m}"
    );
    assert!(
        line(
            "get__global",
            "ld.global.nc (every call passes read-only restricted memory)"
        ),
        "{m}"
    );
}
