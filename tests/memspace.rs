//! Memory-space inference end to end: on every sample and on the memspace
//! compile tests, no generic load, store or atomic is left outside the
//! external originals that unknown callers may still call; and the
//! `--dump-ip-msp` transcript and the `-Wgeneric` warnings reach the caller.

mod common;

use kernelc::backend_nvptx::Target;
use kernelc::driver::{compile_source_with_messages, CompileOptions};
use std::path::PathBuf;

fn sources() -> Vec<PathBuf> {
    let mut v = common::sample_paths();
    v.push(common::root().join("tests/filetests/compile/memspace_locals_sm90.cu"));
    v.sort();
    v
}

/// sm_90, or the target a sample names when sm_90 cannot run it (wgmma
/// needs sm_90a, tcgen05 sm_100a).
fn target_of(source: &str) -> String {
    common::target_for(source, "sm_90")
}

/// The options that compile `source` for [`target_of`] it.
fn options_for(source: &str) -> CompileOptions {
    CompileOptions {
        target: Target::parse(&target_of(source)).unwrap(),
        ..CompileOptions::default()
    }
}

/// Generic memory instructions in kernels and internal functions (the
/// bodies of `.visible .func` originals are skipped: they keep generic
/// pointers for callers outside the module).
fn generic_accesses(ptx: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_external = false;
    for line in ptx.lines() {
        if line.starts_with(".visible .func") {
            in_external = true;
        } else if line.starts_with(".visible .entry") || line.starts_with(".func") {
            in_external = false;
        }
        let t = line.trim_start();
        let op = t.split_whitespace().next().unwrap_or("");
        let mut parts = op.split('.');
        let head = parts.next().unwrap_or("");
        if !matches!(head, "ld" | "st" | "atom" | "red") || in_external {
            continue;
        }
        let spaced = op.split('.').any(|p| {
            matches!(
                p,
                "global" | "shared" | "local" | "const" | "param" | "shared::cluster"
            )
        });
        if !spaced {
            out.push(t.to_string());
        }
    }
    out
}

#[test]
fn no_generic_access_is_left_where_the_space_is_provable() {
    for path in sources() {
        let source = std::fs::read_to_string(&path).unwrap();
        let opts = options_for(&source);
        let name = path.display().to_string();
        let out = compile_source_with_messages(&name, &source, &opts)
            .unwrap_or_else(|e| panic!("{name}:\n{e}"));
        let generic = generic_accesses(&out.output);
        assert!(generic.is_empty(), "{name}: generic accesses {generic:?}");
    }
}

#[test]
fn memspace_off_keeps_the_generic_accesses() {
    let path = common::root().join("tests/filetests/compile/memspace_locals_sm90.cu");
    let source = std::fs::read_to_string(&path).unwrap();
    let opts = CompileOptions {
        memspace: Some(false),
        ..CompileOptions::default()
    };
    let out = compile_source_with_messages("locals.cu", &source, &opts).unwrap();
    assert!(!generic_accesses(&out.output).is_empty());
}

#[test]
fn transcript_and_warnings_are_reported() {
    // `extern "C"` and -rdc=true: plain names, and an external helper that
    // is cloned (an internal one would be specialized in place).
    let source = "extern \"C\" __device__ __noinline__ float get(float* p) { return *p; }\n\
                  extern \"C\" __global__ void k(float* a, float** t) {\n\
                      float* p = *t;\n\
                      *p = get(a);\n\
                  }\n";
    let mut opts = CompileOptions {
        relocatable: true,
        ..CompileOptions::default()
    };
    opts.memspace_opts.dump_ip_msp = true;
    opts.memspace_opts.explain = true;
    opts.memspace_opts.warn_generic = true;
    // The pointer read from `t` stays generic only without the closed-world
    // rule (the module stores no pointer, so it would be global).
    opts.memspace_opts.track_indir_load = false;
    let out = compile_source_with_messages("t.cu", source, &opts).unwrap();
    let m = &out.messages;
    assert!(m.contains("ip-msp: Initial work list size : 1"), "{m}");
    assert!(m.contains("ip-msp: get__global is cloned"), "{m}");
    assert!(m.contains("memspace: @k:"), "{m}");
    assert!(m.contains("provenance lost"), "{m}");
    assert!(
        m.contains("warning[W0007]: generic store left in kernel `k`"),
        "{m}"
    );
    assert!(
        m.contains("t.cu:4"),
        "the warning points at the source: {m}"
    );
}

/// The rendered error of compiling `source` (which must fail).
fn compile_error(name: &str, source: &str) -> String {
    let opts = CompileOptions {
        target: Target::parse("sm_90").unwrap(),
        ..CompileOptions::default()
    };
    match compile_source_with_messages(name, source, &opts) {
        Ok(_) => panic!("{name} compiled, but it must fail"),
        Err(e) => e.rendered,
    }
}

#[test]
fn a_global_pointer_into_an_mbarrier_is_an_error_with_both_spans() {
    let source = "__global__ void k(unsigned long long* bar, float* out) {\n\
                  \x20   unsigned long long* b = bar + 1;\n\
                  \x20   kernelc_mbarrier_init(b, 1);\n\
                  \x20   out[0] = 1.0f;\n\
                  }\n";
    let e = compile_error("bar.cu", source);
    assert!(
        e.contains(
            "error[E0027]: operand 0 of `mbarrier_init` must point to shared memory, but it points to global memory"
        ),
        "{e}"
    );
    assert!(
        e.contains("bar.cu:3:5"),
        "the error is at the mbarrier: {e}"
    );
    assert!(
        e.contains("2 │     unsigned long long* b = bar + 1;")
            && e.contains("the pointer is proved to point to global memory here"),
        "the label is where the space was proved: {e}"
    );
}

#[test]
fn a_cp_async_to_a_global_destination_is_an_error() {
    let source = "__global__ void k(float* dst, const float* src) {\n\
                  \x20   kernelc_cp_async_cg_16(dst, src);\n\
                  }\n";
    let e = compile_error("cp.cu", source);
    assert!(
        e.contains("error[E0027]: operand 0 of `cp_async` must point to shared memory, but it points to global memory"),
        "{e}"
    );
    assert!(e.contains("cp.cu:2:5"), "{e}");
}

#[test]
fn one_pointer_demanded_in_two_spaces_is_an_error_with_both_spans() {
    let source = "__device__ void stage(float* p, unsigned long long* q) {\n\
                  \x20   kernelc_cp_async_cg_16(p, (float*)q);\n\
                  \x20   kernelc_mbarrier_init(q, 1);\n\
                  }\n";
    let e = compile_error("two.cu", source);
    assert!(
        e.contains("error[E0027]: operand 0 of `mbarrier_init` must point to shared memory, but the same pointer must point to global memory for `cp_async`"),
        "{e}"
    );
    assert!(e.contains("two.cu:3:5"), "{e}");
    assert!(
        e.contains("`cp_async` needs global memory here (operand 1)"),
        "the other demand is labelled: {e}"
    );
    // The same pointer as both operands of one cp_async.
    let source = "__device__ void copy_self(float* p) {\n\
                  \x20   kernelc_cp_async_cg_16(p, p);\n\
                  }\n";
    let e = compile_error("self.cu", source);
    assert!(
        e.contains("operand 1 of `cp_async` must point to global memory, but the same pointer must point to shared memory for `cp_async`"),
        "{e}"
    );
}

#[test]
fn backward_refinement_removes_the_generic_accesses_of_a_staging_helper() {
    // `stage` is external (-rdc=true): its signature stays generic, but it
    // always reaches the cp_async, so its body reads `src` with ld.global.
    let source =
        "extern \"C\" __device__ __noinline__ float stage(float* dst, const float* src) {\n\
                  \x20   kernelc_cp_async_cg_16(dst, src);\n\
                  \x20   kernelc_cp_async_wait_all();\n\
                  \x20   return src[1];\n\
                  }\n";
    let opts = CompileOptions {
        target: Target::parse("sm_90").unwrap(),
        relocatable: true,
        ..CompileOptions::default()
    };
    let out = compile_source_with_messages("stage.cu", source, &opts).unwrap();
    assert!(out.output.contains("ld.global.f32"), "{}", out.output);
    let mut ir_opts = opts.clone();
    ir_opts.emit = kernelc::driver::Emit::IrOpt;
    let ir = compile_source_with_messages("stage.cu", source, &ir_opts).unwrap();
    assert!(
        ir.output.contains("arg_spaces(shared, global)"),
        "{}",
        ir.output
    );
}

#[test]
fn wmma_on_constant_or_local_memory_is_an_error() {
    let source = "__constant__ float ctile[256];\n\
                  __global__ void k(float* out) {\n\
                  \x20   float acc[8];\n\
                  \x20   float tile[256];\n\
                  \x20   for (int i = 0; i < 256; i++) tile[i] = out[i];\n\
                  \x20   kernelc_wmma_load_c_f32_row(acc, ctile, 16);\n\
                  \x20   kernelc_wmma_store_d_f32_row(tile, acc, 16);\n\
                  \x20   out[threadIdx.x] = tile[threadIdx.x] + acc[0];\n\
                  }\n";
    let e = compile_error("wmma.cu", source);
    assert!(
        e.contains("error[E0027]: Cannot do WMMA on constant memory"),
        "{e}"
    );
    assert!(e.contains("wmma.cu:6:5"), "{e}");
    assert!(
        e.contains("error[E0027]: Cannot do WMMA on local memory"),
        "{e}"
    );
    assert!(e.contains("wmma.cu:7:5"), "{e}");
    assert!(
        e.contains("the pointer is proved to point to local memory here"),
        "{e}"
    );
}

#[test]
fn the_cli_reports_a_contradiction_with_both_spans() {
    let dir = common::scratch("memspace-contradiction");
    let file = dir.join("bar.cu");
    std::fs::write(
        &file,
        "__global__ void k(unsigned long long* bar) {\n    kernelc_mbarrier_init(bar + 2, 1);\n}\n",
    )
    .unwrap();
    let out = common::kernelc(&[file.to_str().unwrap(), "-arch=sm_90", "-o", "/dev/null"]);
    assert!(!out.status.success());
    let e = common::stderr(&out);
    assert!(
        e.contains("must point to shared memory, but it points to global memory"),
        "{e}"
    );
    assert!(e.contains("bar.cu:2:5"), "{e}");
}

#[test]
fn arg_spaces_round_trip_through_the_text_format() {
    use kernelc::midend::text::{parse_module, write_module, PrintOptions};
    let text = "device external @f(ptr<generic>, i32, ptr<generic>) arg_spaces(shared, none, shared::cluster) {\n\
                block0(v0: ptr<generic>, v1: i32, v2: ptr<generic>):\n\
                \x20   return\n\
                }\n";
    let m = parse_module(text).unwrap();
    let f = m.functions.values().next().unwrap();
    use kernelc::midend::ir::AddrSpace;
    assert_eq!(
        f.attrs.arg_spaces,
        Some(vec![
            Some(AddrSpace::Shared),
            None,
            Some(AddrSpace::SharedCluster)
        ])
    );
    let printed = write_module(&m, PrintOptions::default());
    assert!(
        printed.contains("arg_spaces(shared, none, shared::cluster) {"),
        "{printed}"
    );
    assert_eq!(parse_module(&printed).unwrap(), m);
}

/// Per SASS function (`Function : name`), the generic memory instructions:
/// `LD`, `ST`, `ATOM`, `RED` (a generic address), as opposed to their
/// global (`LDG`, `STG`, `ATOMG`, `REDG`), shared (`LDS`, `STS`, `ATOMS`,
/// `LDSM`) and local (`LDL`, `STL`) forms and constant-bank `LDC`.
fn generic_sass(sass: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut func = String::new();
    for line in sass.lines() {
        if let Some(name) = line.trim().strip_prefix("Function : ") {
            func = name.trim().to_string();
            continue;
        }
        let Some(rest) = line.trim().strip_prefix("/*") else {
            continue;
        };
        let Some((_, inst)) = rest.split_once("*/") else {
            continue;
        };
        let mut words = inst.split_whitespace();
        let mut op = words.next().unwrap_or("");
        if op.starts_with('@') {
            op = words.next().unwrap_or("");
        }
        let base = op.split('.').next().unwrap_or("");
        if matches!(base, "LD" | "ST" | "ATOM" | "RED") {
            out.push((func.clone(), inst.trim().to_string()));
        }
    }
    out
}

/// The SASS of `source` compiled by kernelc (with `opts`) and ptxas for
/// `opts`'s target.
fn sass_of(
    name: &str,
    source: &str,
    opts: &CompileOptions,
    cuobjdump: &PathBuf,
) -> (String, String) {
    let ptxas = common::ptxas_or_skip(name).expect("ptxas is checked before");
    let out =
        compile_source_with_messages(name, source, opts).unwrap_or_else(|e| panic!("{name}:\n{e}"));
    let dir = common::scratch(&format!("sass-{}", name.replace(['/', '.'], "_")));
    let ptx = dir.join("k.ptx");
    let cubin = dir.join("k.cubin");
    std::fs::write(&ptx, &out.output).unwrap();
    let st = std::process::Command::new(&ptxas)
        .arg(format!("-arch={}", opts.target.name()))
        .arg("-o")
        .arg(&cubin)
        .arg(&ptx)
        .output()
        .unwrap();
    assert!(
        st.status.success(),
        "{name}: ptxas: {}",
        String::from_utf8_lossy(&st.stderr)
    );
    let dump = std::process::Command::new(cuobjdump)
        .arg("--dump-sass")
        .arg(&cubin)
        .output()
        .unwrap();
    assert!(dump.status.success(), "{name}: cuobjdump failed");
    (
        out.output,
        String::from_utf8_lossy(&dump.stdout).into_owned(),
    )
}

/// The functions a PTX file declares `.visible .func`: originals kept for
/// callers outside the module, whose pointers stay generic.
fn external_funcs(ptx: &str) -> Vec<String> {
    ptx.lines()
        .filter_map(|l| l.strip_prefix(".visible .func"))
        .filter_map(|rest| {
            let rest = rest.trim_start();
            let rest = if rest.starts_with('(') {
                rest.split_once(')').map(|(_, r)| r.trim_start())?
            } else {
                rest
            };
            rest.split(|c: char| c == '(' || c.is_whitespace())
                .next()
                .map(str::to_string)
        })
        .collect()
}

#[test]
fn sass_has_no_generic_memory_instruction_where_the_spaces_are_provable() {
    let what = "SASS generic-instruction count";
    if common::ptxas_or_skip(what).is_none() {
        return;
    }
    let Some(cuobjdump) = common::cuobjdump_or_skip(what) else {
        return;
    };
    let mut sources = sources();
    sources.push(common::root().join("tests/fixtures/memspace/sass_kernels.cu"));
    for path in sources {
        let name = path.display().to_string();
        let source = std::fs::read_to_string(&path).unwrap();
        // Each sample at sm_90, or at its own target when it needs a newer
        // or an arch-specific one.
        let opts = options_for(&source);
        let (ptx, sass) = sass_of(&name, &source, &opts, &cuobjdump);
        assert!(sass.contains("Function : "), "{name}: no SASS:\n{sass}");
        let external = external_funcs(&ptx);
        let generic: Vec<_> = generic_sass(&sass)
            .into_iter()
            .filter(|(f, _)| !external.contains(f))
            .collect();
        if dsmem_accesses(&ptx) {
            // sm_90 has no SASS opcode of its own for distributed shared
            // memory: ptxas turns `ld/st/atom/red.shared::cluster` into
            // `LD.E`/`ST.E`/`ATOM.E`. Here the PTX itself must be free of
            // generic accesses instead.
            let generic_ptx: Vec<&str> = ptx
                .lines()
                .map(str::trim)
                .filter(|l| {
                    ["ld.", "st.", "atom.", "red."]
                        .iter()
                        .any(|op| l.starts_with(op))
                        && !l.contains(".shared")
                        && !l.contains(".global")
                        && !l.contains(".local")
                        && !l.contains(".const")
                        && !l.contains(".param")
                })
                .collect();
            assert!(
                generic_ptx.is_empty(),
                "{name}: generic PTX {generic_ptx:?}"
            );
            println!("{name}: shared::cluster accesses are generic in SASS; PTX checked instead");
            continue;
        }
        assert!(generic.is_empty(), "{name}: generic SASS {generic:?}");
    }
}

/// Whether the PTX reads or writes distributed shared memory.
fn dsmem_accesses(ptx: &str) -> bool {
    ptx.lines().map(str::trim).any(|l| {
        ["ld.", "st.", "atom.", "red."]
            .iter()
            .any(|op| l.starts_with(op))
            && l.contains(".shared::cluster")
    })
}

#[test]
fn the_sass_count_sees_generic_instructions_when_memspace_is_off() {
    let what = "SASS generic-instruction count (memspace off)";
    if common::ptxas_or_skip(what).is_none() {
        return;
    }
    let Some(cuobjdump) = common::cuobjdump_or_skip(what) else {
        return;
    };
    let path = common::root().join("tests/fixtures/memspace/sass_kernels.cu");
    let source = std::fs::read_to_string(&path).unwrap();
    let opts = CompileOptions {
        target: Target::parse("sm_90").unwrap(),
        memspace: Some(false),
        ..CompileOptions::default()
    };
    let (_, sass) = sass_of("sass_kernels_off.cu", &source, &opts, &cuobjdump);
    assert!(!generic_sass(&sass).is_empty(), "{sass}");
}

#[test]
fn pointers_in_struct_fields_reach_the_sass_concrete() {
    // tests/corpus/struct_spaces.cu passes pointers to __noinline__ helpers
    // inside structs passed by value (global and shared fields, a nested
    // struct copied whole). With memory-space inference, the clones and the
    // specialized static helper hold no generic memory instruction; without
    // it, the helpers access memory generically.
    let what = "SASS of pointers in struct fields";
    if common::ptxas_or_skip(what).is_none() {
        return;
    }
    let Some(cuobjdump) = common::cuobjdump_or_skip(what) else {
        return;
    };
    let path = common::root().join("tests/corpus/struct_spaces.cu");
    let source = std::fs::read_to_string(&path).unwrap();
    // -rdc=true: the helpers are external, kept generic beside their clones.
    let on = CompileOptions {
        target: Target::parse("sm_90").unwrap(),
        relocatable: true,
        ..CompileOptions::default()
    };
    let (ptx, sass) = sass_of("struct_spaces.cu", &source, &on, &cuobjdump);
    for clone in [
        "_Z11copy_scaled4Spanfi__global_shared",
        "_Z11copy_scaled4Spanfi__shared_global",
    ] {
        assert!(ptx.contains(&format!(".func {clone}(")), "{clone}:\n{ptx}");
    }
    let external = external_funcs(&ptx);
    assert_eq!(external, ["_Z11copy_scaled4Spanfi"], "{ptx}");
    let generic: Vec<_> = generic_sass(&sass)
        .into_iter()
        .filter(|(f, _)| !external.contains(f))
        .collect();
    assert!(generic.is_empty(), "generic SASS {generic:?}");
    let off = CompileOptions {
        memspace: Some(false),
        ..on
    };
    let (_, sass) = sass_of("struct_spaces_off.cu", &source, &off, &cuobjdump);
    let generic = generic_sass(&sass);
    assert!(
        generic.iter().any(|(f, _)| f == "struct_spaces"),
        "without inference the kernel's helpers are generic: {generic:?}"
    );
}
