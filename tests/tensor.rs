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
extern "C" __global__ void k(const __grid_constant__ CUtensorMap map, int x) {
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
        ptx.contains(".shared .align 128 .b8 _ZZ1kE4tile[1024];"),
        "{ptx}"
    );
    assert!(ptx.contains("cvta.param.u64"), "{ptx}");
    assert!(
        ptx.contains("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [_ZZ1kE4tile], [%rd"),
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

// ---- wgmma, setmaxnreg and tcgen05 (issue #9, part B) ----------------------

const WGMMA: &str = r#"
__global__ void k(float *out, unsigned long long da, unsigned long long db) {
  float acc[32];
  for (int i = 0; i < 32; i++)
    acc[i] = 0.0f;
  kernelc_wgmma_fence();
  kernelc_wgmma_m64n64k16_f32_f16(acc, da, db, 1, 1, 1, 0, 0);
  kernelc_wgmma_commit();
  kernelc_wgmma_wait(0);
  out[threadIdx.x] = acc[0];
}
"#;

#[test]
fn wgmma_needs_sm90a_and_says_so_at_the_call() {
    for arch in ["sm_90", "sm_100a", "sm_80"] {
        let err = compile(WGMMA, arch).expect_err("wgmma is sm_90a only");
        assert!(
            err.contains("'wgmma' requires .target sm_90a"),
            "{arch}: {err}"
        );
        assert!(err.contains(&format!("the target is {arch}")), "{err}");
        assert!(
            err.contains("k.cu:6"),
            "the error points at the call: {err}"
        );
    }
    let ptx = compile(WGMMA, "sm_90a").unwrap();
    assert!(ptx.contains(".version 8.0"), "{ptx}");
    assert!(
        ptx.contains("wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16"),
        "{ptx}"
    );
    assert!(ptx.contains("wgmma.wait_group.sync.aligned 0;"), "{ptx}");
    common::assert_ptxas_accepts(&ptx, "sm_90a", "the wgmma kernel");
}

const TCGEN05: &str = r#"
__global__ void k(unsigned *out, unsigned long long da, unsigned long long db) {
  __shared__ unsigned slot;
  __shared__ unsigned long long bar;
  kernelc_tcgen05_alloc(&slot, 32);
  kernelc_tcgen05_relinquish_alloc_permit();
  __syncthreads();
  unsigned t = slot;
  kernelc_tcgen05_mma_tf32(t, da, db, kernelc_tcgen05_idesc_tf32(128, 32, 0, 0), 0);
  kernelc_tcgen05_commit(&bar);
  unsigned r[2];
  kernelc_tcgen05_ld_32x32b_x2(r, t);
  kernelc_tcgen05_wait_ld();
  out[threadIdx.x] = r[0] + r[1];
  kernelc_tcgen05_dealloc(t, 32);
}
"#;

#[test]
fn tcgen05_needs_sm100a_or_sm103a_and_says_so_at_the_call() {
    for arch in ["sm_90a", "sm_100", "sm_120a"] {
        let err = compile(TCGEN05, arch).expect_err("tcgen05 is sm_100a/sm_103a only");
        assert!(
            err.contains("'tcgen05' requires .target sm_100a or sm_103a"),
            "{arch}: {err}"
        );
        assert!(
            err.contains("k.cu:5"),
            "the error points at the call: {err}"
        );
    }
    for (arch, version) in [("sm_100a", ".version 8.6"), ("sm_103a", ".version 8.8")] {
        let ptx = compile(TCGEN05, arch).unwrap();
        assert!(ptx.contains(version), "{ptx}");
        assert!(ptx.contains("tcgen05.mma.cta_group::1.kind::tf32"), "{ptx}");
        // M = 128 (8 at bit 24), N = 32 (4 at bit 17), tf32 A and B (2 at
        // bits 7 and 10), f32 D (1 at bit 4): 0x08080910.
        assert!(ptx.contains("134744336"), "the folded idesc: {ptx}");
        common::assert_ptxas_accepts(&ptx, arch, "the tcgen05 kernel");
    }
}

#[test]
fn setmaxnreg_checks_its_count_and_target() {
    let src = |n: &str| {
        format!("__global__ void k() {{\n  kernelc_setmaxnreg_inc({n});\n  kernelc_setmaxnreg_dec(40);\n}}\n")
    };
    for bad in ["230", "16", "264"] {
        let err = compile(&src(bad), "sm_90a").expect_err("not a valid count");
        assert!(
            err.contains("must be a multiple of 8 from 24 to 256"),
            "{bad}: {err}"
        );
        assert!(err.contains("k.cu:2"), "{err}");
    }
    let err = compile(&src("232"), "sm_90").expect_err("sm_90a only");
    assert!(
        err.contains("'setmaxnreg' requires .target sm_90a"),
        "{err}"
    );
    // Every architecture-specific target has it, consumer Blackwell too;
    // plain targets do not.
    let err = compile(&src("232"), "sm_120").expect_err("not on plain sm_120");
    assert!(err.contains("'setmaxnreg' requires .target"), "{err}");
    for arch in ["sm_90a", "sm_100a", "sm_103a", "sm_120a"] {
        let ptx = compile(&src("232"), arch).unwrap();
        assert!(
            ptx.contains("setmaxnreg.inc.sync.aligned.u32 232;"),
            "{ptx}"
        );
        assert!(ptx.contains("setmaxnreg.dec.sync.aligned.u32 40;"), "{ptx}");
        common::assert_ptxas_accepts(&ptx, arch, "setmaxnreg");
    }
}

#[test]
fn constant_operands_get_located_diagnostics() {
    let cases = [
        (
            "kernelc_wgmma_m64n64k16_f32_f16(acc, d, d, 1, 2, 1, 0, 0);",
            "the scale of A must be a constant 1 or -1",
        ),
        (
            "kernelc_wgmma_m64n64k16_f32_f16(acc, d, d, 1, 1, 1, n, 0);",
            "the transpose flag of A must be a constant 0 or 1",
        ),
        (
            "kernelc_wgmma_wait(n);",
            "the group count must be a constant",
        ),
        (
            "d = kernelc_wgmma_desc(acc, 16, 16, 48);",
            "must be a constant 0, 32, 64 or 128",
        ),
        (
            "n = kernelc_tcgen05_idesc_f16(128, 24, 0, 0);",
            "N must be a multiple of 16 when M is 128",
        ),
        (
            "n = kernelc_tcgen05_idesc_bf16(96, 64, 0, 0);",
            "M must be a constant 64 or 128",
        ),
        (
            "kernelc_tcgen05_alloc(&slot, 100);",
            "must be a power of 2 from 32 to 512, not 100",
        ),
        (
            "kernelc_tcgen05_mma_f16(n, d, d, n);",
            "`kernelc_tcgen05_mma_f16` takes 5 arguments, have 4",
        ),
    ];
    for (stmt, want) in cases {
        let src = format!(
            "__global__ void k(int n, unsigned long long d) {{\n  __shared__ unsigned slot;\n  float acc[32];\n  {stmt}\n}}\n"
        );
        let err = compile(&src, "sm_90a").expect_err(stmt);
        assert!(err.contains(want), "{stmt}: {err}");
        assert!(err.contains("k.cu:4"), "{stmt}: {err}");
    }
}

#[test]
fn descriptors_pack_their_fields() {
    // A shared tile at a known offset: the descriptor's fields are
    // constants but the address, so check the arithmetic's constants.
    let src = r#"
__global__ void k(unsigned long long *out) {
  __shared__ uint4 tile[64];
  out[0] = kernelc_wgmma_desc(tile, 1024, 128, 128);
  out[1] = kernelc_tcgen05_smem_desc(tile, 2048, 128, 64);
}
"#;
    let ptx = compile(src, "sm_90a").unwrap();
    // wgmma: layout 1 (128B) at bit 62; tcgen05: version bit 46 | layout 4 (64B) at bit 61.
    assert!(ptx.contains(&(1u64 << 62).to_string()), "{ptx}");
    let tc = ((1u64 << 46) | (4u64 << 61)) as i64;
    assert!(ptx.contains(&tc.to_string()), "{ptx}");
    // The byte offsets in 16-byte units: 1024 -> 64 << 16, 128 -> 8 << 32.
    assert!(ptx.contains(&(64u64 << 16).to_string()), "{ptx}");
    assert!(ptx.contains(&(8u64 << 32).to_string()), "{ptx}");
    common::assert_ptxas_accepts(&ptx, "sm_90a", "descriptor builders");
}

#[test]
fn ptx_validate_rejects_wgmma_and_tcgen05_on_other_targets() {
    let module = |target: &str, version: &str, body: &str| {
        format!(
            ".version {version}\n.target {target}\n.address_size 64\n.visible .entry k()\n{{\n{body}\n\tret;\n}}\n"
        )
    };
    let wgmma = "\twgmma.fence.sync.aligned;";
    let tcgen05 = "\ttcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;";
    assert!(ptx_validate::validate(&module("sm_90a", "8.0", wgmma)).ok());
    assert!(!ptx_validate::validate(&module("sm_90", "8.0", wgmma)).ok());
    assert!(!ptx_validate::validate(&module("sm_100a", "8.6", wgmma)).ok());
    assert!(ptx_validate::validate(&module("sm_100a", "8.6", tcgen05)).ok());
    assert!(ptx_validate::validate(&module("sm_103a", "8.8", tcgen05)).ok());
    assert!(!ptx_validate::validate(&module("sm_90a", "8.0", tcgen05)).ok());
    assert!(!ptx_validate::validate(&module("sm_100", "8.6", tcgen05)).ok());
}

/// Compiles a sample at its target with kernelc (ptxas must accept it,
/// with the accumulators in registers) and with nvcc and the header.
/// Returns kernelc's PTX and what `ptxas -v` said about it (empty without
/// ptxas).
fn check_sample(file: &str, needle: &str) -> (String, String) {
    let path = common::root().join("samples").join(file);
    let src = std::fs::read_to_string(&path).unwrap();
    let arch = common::declared_target(&src).expect("the sample names its target");
    let arch = arch.as_str();
    let ptx = compile_source(
        &format!("samples/{file}"),
        &src,
        &CompileOptions {
            target: Target::parse(arch).unwrap(),
            ..CompileOptions::default()
        },
    )
    .unwrap_or_else(|e| panic!("{file}: {e}"));
    assert!(ptx.contains(needle), "{file} has no {needle}:\n{ptx}");
    assert!(
        !ptx.contains(".local"),
        "{file}: the fragments should be SSA values, not local memory:\n{ptx}"
    );
    common::assert_ptxas_accepts(&ptx, arch, file);
    let mut info = String::new();
    if let Some(ptxas) = kernelc::ptxas::find_ptxas() {
        let out = kernelc::ptxas::assemble(&ptxas, &ptx, arch, &["-v"]).unwrap();
        assert!(
            out.output.contains(" 0 bytes stack frame"),
            "{file}: the fragments should live in registers:\n{}",
            out.output
        );
        info = out.output;
    }
    if let Some(nv) = common::nvcc_ptx(&path, arch, file) {
        assert!(nv.contains(needle), "nvcc's {file} has no {needle}");
        common::assert_ptxas_accepts(&nv, arch, &format!("nvcc's {file}"));
    }
    (ptx, info)
}

/// The wgmma sample loads its tiles with TMA and chains its four MMAs in
/// registers: nothing reads or stores an accumulator between them (such
/// a read would make ptxas wait for the asynchronous MMA, info C7517).
#[test]
fn wgmma_gemm_sample_builds_with_kernelc_and_nvcc() {
    let (ptx, info) = check_sample("wgmma_gemm.cu", "wgmma.mma_async");
    assert!(ptx.contains("cp.async.bulk.tensor.2d"), "{ptx}");
    assert!(ptx.contains("mbarrier.try_wait.parity"), "{ptx}");
    assert!(
        ptx.contains(".param .align 64 .b8 wgmma_gemm_param_0[128]"),
        "{ptx}"
    );
    assert_eq!(ptx.matches("wgmma.mma_async").count(), 4, "{ptx}");
    let body: Vec<&str> = ptx
        .lines()
        .map(str::trim)
        .skip_while(|l| !l.starts_with("wgmma.mma_async"))
        .take_while(|l| !l.starts_with("wgmma.commit_group"))
        .collect();
    for line in body.iter().filter(|l| !l.starts_with("wgmma.mma_async")) {
        assert!(
            !line.starts_with("st.") && !line.contains(".f32"),
            "an accumulator is touched between the MMAs: `{line}`\n{ptx}"
        );
    }
    assert!(
        !info.contains("C7517"),
        "ptxas serializes the MMAs:\n{info}"
    );
}

#[test]
fn tcgen05_gemm_sample_builds_with_kernelc_and_nvcc() {
    let (ptx, _) = check_sample("tcgen05_gemm.cu", "tcgen05.mma");
    assert!(
        ptx.contains("tcgen05.ld.sync.aligned.32x32b.x16.b32"),
        "{ptx}"
    );
}
