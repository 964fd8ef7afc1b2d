//! The `kernelc_*` tensor and async-copy built-ins from C source: the
//! diagnostics a student meets (a target too old, a non-constant group
//! count, a wrong fragment type) point at the call that caused them.

use kernelc::backend_nvptx::Target;
use kernelc::driver::{compile_source, CompileOptions};

fn compile(source: &str, arch: &str) -> Result<String, String> {
    let opts = CompileOptions {
        target: Target::parse(arch).unwrap(),
        ..CompileOptions::default()
    };
    compile_source("k.cu", source, &opts).map_err(|e| e.to_string())
}

const TRY_WAIT: &str = r#"
__global__ void k(int *out) {
  __shared__ unsigned long long bar;
  if (threadIdx.x == 0)
    kernelc_mbarrier_init(&bar, 1);
  __syncthreads();
  kernelc_mbarrier_arrive(&bar);
  out[0] = kernelc_mbarrier_try_wait_parity(&bar, 0);
}
"#;

#[test]
fn an_sm90_form_on_sm80_names_its_target_at_the_call() {
    let err = compile(TRY_WAIT, "sm_80").expect_err("try_wait.parity needs sm_90");
    assert!(err.contains("requires .target sm_90"), "{err}");
    assert!(
        err.contains("k.cu:8"),
        "the error points at the call: {err}"
    );
    let ptx = compile(TRY_WAIT, "sm_90").unwrap();
    assert!(
        ptx.contains("mbarrier.try_wait.parity.shared::cta.b64"),
        "{ptx}"
    );
    assert!(ptx.contains("mbarrier.init.shared.b64"), "{ptx}");
}

#[test]
fn cp_async_is_gated_at_sm80() {
    let src = r#"
__global__ void k(const float *in) {
  __shared__ float s[4];
  kernelc_cp_async_ca_16(s, in);
  kernelc_cp_async_commit();
  kernelc_cp_async_wait(0);
}
"#;
    let err = compile(src, "sm_75").expect_err("cp.async needs sm_80");
    assert!(err.contains("'cp.async' requires .target sm_80"), "{err}");
    let ptx = compile(src, "sm_80").unwrap();
    assert!(ptx.contains("cp.async.ca.shared.global"), "{ptx}");
    assert!(ptx.contains("cp.async.wait_group 0;"), "{ptx}");
}

#[test]
fn the_wait_count_must_be_a_constant() {
    let src = r#"
__global__ void k(int n) {
  kernelc_cp_async_wait(n);
}
"#;
    let err = compile(src, "sm_80").expect_err("not a constant");
    assert!(err.contains("must be a constant from 0 to 255"), "{err}");
}

#[test]
fn a_float_fragment_where_registers_belong_is_a_type_error() {
    let src = r#"
__global__ void k(const unsigned short *a) {
  float frag[8];
  kernelc_wmma_load_a_f16_row(frag, a, 16);
}
"#;
    let err = compile(src, "sm_80").expect_err("float * is not unsigned *");
    assert!(
        err.contains("argument 1 of `kernelc_wmma_load_a_f16_row`"),
        "{err}"
    );
}
