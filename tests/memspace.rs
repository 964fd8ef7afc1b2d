//! Memory-space inference end to end: on every sample and on the memspace
//! compile tests, no generic load, store or atomic is left outside the
//! external originals that unknown callers may still call; and the
//! `--dump-ip-msp` transcript and the `-Wgeneric` warnings reach the caller.

mod common;

use kernelc::backend_nvptx::Target;
use kernelc::driver::{compile_source_with_messages, CompileOptions};
use std::path::PathBuf;

fn sources() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(common::root().join("samples"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "cu"))
        .collect();
    v.push(common::root().join("tests/filetests/compile/memspace_locals_sm90.cu"));
    v.sort();
    v
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
        let opts = CompileOptions {
            target: Target::parse("sm_90").unwrap(),
            ..CompileOptions::default()
        };
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
    let source = "__device__ __noinline__ float get(float* p) { return *p; }\n\
                  __global__ void k(float* a, float** t) {\n\
                      float* p = *t;\n\
                      *p = get(a);\n\
                  }\n";
    let mut opts = CompileOptions::default();
    opts.memspace_opts.dump_ip_msp = true;
    opts.memspace_opts.explain = true;
    opts.memspace_opts.warn_generic = true;
    let out = compile_source_with_messages("t.cu", source, &opts).unwrap();
    let m = &out.messages;
    assert!(m.contains("ip-msp: Initial work list size : 1"), "{m}");
    assert!(m.contains("ip-msp: get__global is cloned"), "{m}");
    assert!(m.contains("memspace: @k:"), "{m}");
    assert!(m.contains("provenance lost"), "{m}");
    assert!(
        m.contains("warning: generic store left in kernel `k`"),
        "{m}"
    );
    assert!(
        m.contains("t.cu:4"),
        "the warning points at the source: {m}"
    );
}
