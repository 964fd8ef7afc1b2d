//! Shared test helpers: building IR functions, compiling, and checking the
//! PTX with NVIDIA's real assembler.

#![allow(dead_code)]

use backend_nvptx::{compile_module, Options, Target};
use midend::ir::*;
use std::process::Command;
use std::sync::atomic::{AtomicU32, Ordering};

/// Assembles `ptx` with `ptxas -arch=<arch>` and panics with ptxas's message
/// if it is rejected. Without ptxas the check is skipped loudly (and fails
/// under `CI=true`, where a missing tool is a broken setup:
/// [`stdx::tools::find_for_test`]).
pub fn assert_ptxas_accepts(ptx: &str, arch: &str) {
    let what = format!("ptxas -arch={arch} on a backend test's PTX");
    let Some(ptxas) = stdx::tools::find_for_test(stdx::tools::Tool::Ptxas, &what) else {
        return;
    };
    static COUNTER: AtomicU32 = AtomicU32::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let path = std::env::temp_dir().join(format!(
        "kernelc-backend-test-{}-{n}.ptx",
        std::process::id()
    ));
    std::fs::write(&path, ptx).expect("write temporary PTX file");
    let out = Command::new(&ptxas)
        .arg(format!("-arch={arch}"))
        .arg(&path)
        .arg("-o")
        .arg("/dev/null")
        .output()
        .expect("run ptxas");
    let _ = std::fs::remove_file(&path);
    assert!(
        out.status.success(),
        "ptxas -arch={arch} rejected the PTX:\n{}\n--- PTX ---\n{}",
        String::from_utf8_lossy(&out.stderr),
        numbered(ptx)
    );
}

fn numbered(text: &str) -> String {
    text.lines()
        .enumerate()
        .map(|(i, l)| format!("{:4} {l}\n", i + 1))
        .collect()
}

/// Compiles for one target.
pub fn compile_for(module: &Module, target: &str) -> String {
    let opts = Options::new(Target::parse(target).unwrap());
    compile_module(module, &opts).unwrap_or_else(|e| panic!("compile failed: {e}"))
}

/// Compiles for sm_80 and sm_90, checks both with ptxas, and returns the
/// sm_80 text for the test's own assertions.
pub fn compile_and_check(module: &Module) -> String {
    let sm80 = compile_for(module, "sm_80");
    // `KERNELC_DUMP_PTX=1 cargo test -- --nocapture` shows what was checked.
    if std::env::var_os("KERNELC_DUMP_PTX").is_some() {
        eprintln!("{sm80}");
    }
    assert_ptxas_accepts(&sm80, "sm_80");
    let sm90 = compile_for(module, "sm_90");
    assert_ptxas_accepts(&sm90, "sm_90");
    sm80
}

/// Asserts that `ptx` contains every one of `needles`.
pub fn assert_contains(ptx: &str, needles: &[&str]) {
    for n in needles {
        assert!(ptx.contains(n), "PTX lacks `{n}`:\n{ptx}");
    }
}

/// A signature from parameter and return types.
pub fn sig(params: &[Type], returns: &[Type]) -> Signature {
    Signature {
        params: params.iter().map(|&t| AbiParam::new(t)).collect(),
        returns: returns.to_vec(),
    }
}

pub fn kernel(name: &str, params: &[Type]) -> Function {
    Function::new(
        name,
        sig(params, &[]),
        FuncAttrs::new(FuncKind::Kernel, Linkage::External),
    )
}

pub fn device(name: &str, params: &[Type], returns: &[Type], linkage: Linkage) -> Function {
    Function::new(
        name,
        sig(params, returns),
        FuncAttrs::new(FuncKind::Device, linkage),
    )
}

pub const GLOBAL: Type = Type::Ptr(AddrSpace::Global);
pub const SHARED: Type = Type::Ptr(AddrSpace::Shared);
pub const GENERIC: Type = Type::Ptr(AddrSpace::Generic);

/// Plain memory flags.
pub fn plain() -> MemFlags {
    MemFlags::default()
}
