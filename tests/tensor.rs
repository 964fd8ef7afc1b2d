//! The `kernelc_*` tensor and async-copy built-ins from C source: the
//! diagnostics a student meets (a target too old, a non-constant group
//! count, a wrong fragment type) point at the call that caused them.

mod common;

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

const TMA: &str = r#"
__global__ void k(const __grid_constant__ CUtensorMap map, int x) {
  __shared__ __align__(128) float tile[256];
  __shared__ unsigned long long bar;
  kernelc_mbarrier_init(&bar, 1);
  kernelc_mbarrier_arrive_expect_tx(&bar, 1024);
  kernelc_tma_load_2d(tile, &map, &bar, x, 0);
  while (!kernelc_mbarrier_try_wait_parity(&bar, 0)) {
  }
  kernelc_tma_store_3d(&map, tile, x, 0, 1);
  kernelc_cp_async_bulk_commit();
  kernelc_cp_async_bulk_wait_read(0);
  kernelc_cp_async_bulk_wait(1);
}
"#;

#[test]
fn a_grid_constant_tensor_map_is_read_in_place_through_cvta_param() {
    let ptx = compile(TMA, "sm_90").unwrap();
    assert!(ptx.contains(".param .align 64 .b8 k_param_0[128]"), "{ptx}");
    assert!(
        ptx.contains(".shared .align 128 .b8 k$tile[1024];"),
        "{ptx}"
    );
    assert!(ptx.contains("cvta.param.u64"), "{ptx}");
    assert!(
        ptx.contains("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [k$tile], [%rd"),
        "{ptx}"
    );
    assert!(
        ptx.contains("cp.async.bulk.tensor.3d.global.shared::cta.bulk_group [%rd"),
        "{ptx}"
    );
    assert!(ptx.contains("cp.async.bulk.wait_group.read 0;"), "{ptx}");
    assert!(ptx.contains("cp.async.bulk.wait_group 1;"), "{ptx}");
    // The map is never copied out of param space.
    assert!(!ptx.contains("ld.param.u64 %rd2, [k_param_0"), "{ptx}");
}

#[test]
fn a_grid_constant_parameter_must_be_const() {
    let src = "__global__ void k(__grid_constant__ CUtensorMap map) { }";
    let err = compile(src, "sm_90").expect_err("not const");
    assert!(err.contains("must be `const`-qualified"), "{err}");
    assert!(err.contains("k.cu:1:19"), "{err}");
}

/// Each Hopper built-in on sm_80: an error at its call naming sm_90.
#[test]
fn every_hopper_builtin_is_gated_at_sm90_at_its_call() {
    let cases = [
        (
            "kernelc_tma_load_1d(s, &map, &bar, 0);",
            "cp.async.bulk.tensor",
        ),
        (
            "kernelc_tma_store_2d(&map, s, 0, 0);",
            "cp.async.bulk.tensor",
        ),
        ("kernelc_cp_async_bulk_commit();", "cp.async.bulk"),
        ("kernelc_cp_async_bulk_wait(0);", "cp.async.bulk"),
        ("kernelc_cp_async_bulk_wait_read(0);", "cp.async.bulk"),
        ("out[0] = *(float *)kernelc_mapa(s, 1);", "mapa"),
        ("kernelc_cluster_arrive();", "barrier.cluster.arrive"),
        (
            "kernelc_cluster_arrive_relaxed();",
            "barrier.cluster.arrive",
        ),
        ("kernelc_cluster_wait();", "barrier.cluster.wait"),
        ("out[0] = kernelc_cluster_ctarank();", "%cluster_ctarank"),
        ("out[0] = kernelc_cluster_nctarank();", "%cluster_nctarank"),
        ("out[0] = kernelc_clusterid_y();", "%clusterid"),
        ("out[0] = kernelc_nclusterid_z();", "%nclusterid"),
        ("out[0] = kernelc_cluster_ctaid_x();", "%cluster_ctaid"),
        ("out[0] = kernelc_cluster_nctaid_x();", "%cluster_nctaid"),
    ];
    for (call, feature) in cases {
        let src = format!(
            "__global__ void k(const __grid_constant__ CUtensorMap map, float *out) {{\n  __shared__ float s[64];\n  __shared__ unsigned long long bar;\n  {call}\n}}\n"
        );
        let err = compile(&src, "sm_80").expect_err(call);
        let want = format!("Feature '{feature}' requires .target sm_90 or higher");
        assert!(err.contains(&want), "{call}: {err}");
        assert!(
            err.contains("k.cu:4:"),
            "{call}: the error points at the call: {err}"
        );
        let ptx = compile(&src, "sm_90").unwrap_or_else(|e| panic!("{call}: {e}"));
        common::assert_ptxas_accepts(&ptx, "sm_90", call);
    }
}

#[test]
fn a_mapped_pointer_is_shared_cluster_after_inference() {
    let src = r#"
__global__ void __cluster_dims__(2, 1, 1) k(int *out) {
  __shared__ int s[32];
  s[threadIdx.x] = threadIdx.x;
  kernelc_cluster_arrive();
  kernelc_cluster_wait();
  int *r = (int *)kernelc_mapa(s, kernelc_cluster_ctarank() ^ 1);
  out[threadIdx.x] = r[threadIdx.x];
  atomicAdd(&r[0], 1);
  kernelc_cluster_arrive_relaxed();
  kernelc_cluster_wait();
}
"#;
    let ptx = compile(src, "sm_90").unwrap();
    assert!(ptx.contains("mapa.shared::cluster.u64"), "{ptx}");
    assert!(ptx.contains("ld.shared::cluster.u32"), "{ptx}");
    assert!(ptx.contains("red.shared::cluster.add.u32"), "{ptx}");
    assert!(ptx.contains("barrier.cluster.arrive.relaxed;"), "{ptx}");
    common::assert_ptxas_accepts(&ptx, "sm_90", "mapa");
    // Without inference (-O0) the pointer stays generic, which is also valid.
    let opts = CompileOptions {
        target: Target::parse("sm_90").unwrap(),
        opt_level: 0,
        ..CompileOptions::default()
    };
    let ptx0 = compile_source("k.cu", src, &opts).unwrap();
    assert!(ptx0.contains("cvta.shared::cluster.u64"), "{ptx0}");
    common::assert_ptxas_accepts(&ptx0, "sm_90", "mapa -O0");
}
