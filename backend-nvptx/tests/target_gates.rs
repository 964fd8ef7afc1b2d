//! An operation the chosen target lacks is an error at the instruction's
//! source span, naming the target it needs, never a panic.

use backend_nvptx::isel::error::TargetLacks;
use backend_nvptx::isel::IselErrorKind;
use backend_nvptx::{compile_module, BackendError, BackendErrorKind, Options, Target};
use midend::ir::{Opcode, SourceSpan, Type};
use midend::text::parse_module;

/// What the target lacks, from a selection error.
fn lacks(err: &BackendError) -> &TargetLacks {
    match &err.kind {
        BackendErrorKind::Isel(e) => match &e.kind {
            IselErrorKind::TargetLacks(lacks) => lacks,
            _ => panic!("not a target's lack: {err}"),
        },
        _ => panic!("not a selection error: {err}"),
    }
}

#[test]
fn f16_min_on_sm75_points_at_its_source() {
    let module = parse_module(
        "kernel external @k(ptr<global>) {
block0(v0: ptr<global>):
    v1 = load.f16 v0 !5..9
    v2 = fmin v1, v1 !40..52
    store v2, v0 !30..60
    return
}
",
    )
    .unwrap();
    let err = compile_module(&module, &Options::new(Target::parse("sm_75").unwrap()))
        .expect_err("sm_75 has no f16 min");
    assert_eq!(err.span(), Some(SourceSpan::new(40, 52)));
    assert_eq!(
        lacks(&err),
        &TargetLacks::Opcode {
            op: Opcode::Fmin,
            ty: Some(Type::F16),
            sm: 80
        }
    );
    assert_eq!(
        err.to_string(),
        "in function `k`: `fmin` (inst1 in block0): `fmin` on `f16` needs sm_80 or newer"
    );
    assert_eq!(err.function.as_deref(), Some("k"));
    // The same module is fine on sm_80.
    let ok = compile_module(&module, &Options::new(Target::parse("sm_80").unwrap()));
    assert!(ok.is_ok(), "{ok:?}");
}

#[test]
fn bf16_conversion_on_sm75_points_at_its_source() {
    let module = parse_module(
        "kernel external @k(ptr<global>) {
block0(v0: ptr<global>):
    v1 = load.f32 v0
    v2 = fptrunc.bf16 v1 !10..20
    store v2, v0
    return
}
",
    )
    .unwrap();
    let err = compile_module(&module, &Options::new(Target::parse("sm_75").unwrap()))
        .expect_err("sm_75 has no bf16 conversions");
    assert_eq!(err.span(), Some(SourceSpan::new(10, 20)));
    assert!(
        matches!(lacks(&err), TargetLacks::Bf16Conversions { .. }),
        "{err}"
    );
    assert!(err.to_string().contains("sm_80"), "{err}");
    assert!(compile_module(&module, &Options::new(Target::parse("sm_80").unwrap())).is_ok());
}

/// Cluster directives exist from sm_90 on; IR that asks for them on an older
/// target is refused by name (the frontend already points at the attribute).
#[test]
fn cluster_dims_need_sm90() {
    let module = parse_module(
        "kernel external @k() cluster_dims(2, 1, 1) {
block0:
    return
}
",
    )
    .unwrap();
    let err = compile_module(&module, &Options::new(Target::parse("sm_80").unwrap()))
        .expect_err("sm_80 has no clusters");
    assert!(matches!(lacks(&err), TargetLacks::Clusters { .. }), "{err}");
    assert_eq!(err.span(), None);
    assert!(err.to_string().contains("sm_90"), "{err}");
    let ptx = compile_module(&module, &Options::new(Target::parse("sm_90").unwrap())).unwrap();
    assert!(
        ptx.contains(".explicitcluster\n.reqnctapercluster 2, 1, 1"),
        "{ptx}"
    );
}

/// Compiles `body` (one kernel over `v0: ptr<global>` and a shared
/// variable `v1`) for `target`, returning the error if any.
fn accel_on(body: &str, target: &str) -> Result<(), backend_nvptx::BackendError> {
    let text = format!(
        "gv0 = shared @bar, size 64, align 16

kernel external @k(ptr<global>) {{
block0(v0: ptr<global>):
    v1 = global_addr.ptr<shared> gv0
    v2 = iconst.i32 1
{body}
    return
}}
"
    );
    let module = parse_module(&text).unwrap();
    compile_module(&module, &Options::new(Target::parse(target).unwrap())).map(|_| ())
}

#[test]
fn async_copies_and_mbarriers_name_their_minimum_target() {
    let cases = [
        ("    cp_async ca 16 v1, v0 !10..20", "sm_75", 80, "cp.async"),
        ("    cp_async_commit !10..20", "sm_75", 80, "cp.async"),
        ("    mbarrier_init v1, v2 !10..20", "sm_75", 80, "mbarrier"),
        (
            "    v3 = mbarrier_try_wait_parity v1, v2 !10..20",
            "sm_80",
            90,
            "mbarrier.try_wait.parity",
        ),
        (
            "    v3 = mbarrier_arrive_expect_tx v1, v2 !10..20",
            "sm_89",
            90,
            "mbarrier.arrive.expect_tx",
        ),
        ("    fence_proxy_async !10..20", "sm_80", 90, "fence.proxy.async"),
        (
            "    v3, v4, v5, v6 = wmma_load a row bf16 v0, v2 !10..20",
            "sm_75",
            80,
            "WMMA with .bf16/.tf32 FP types",
        ),
        (
            "    v3, v4, v5, v6 = ldmatrix x4 v1\n    stmatrix x4 v1, v3, v4, v5, v6 !10..20",
            "sm_89",
            90,
            "stmatrix",
        ),
        (
            "    v3, v4, v5, v6 = ldmatrix x4 v1\n    v7 = fconst.f32 0.0\n    v8, v9, v10, v11 = mma f16 v3, v4, v5, v6, v3, v4, v7, v7, v7, v7 !10..20",
            "sm_75",
            80,
            "mma.sync.m16n8k16",
        ),
    ];
    for (body, low, min, what) in cases {
        let err = accel_on(body, low).expect_err(body);
        assert_eq!(err.span(), Some(SourceSpan::new(10, 20)), "{body}");
        let &TargetLacks::Feature { feature, sm, .. } = lacks(&err) else {
            panic!("{err}");
        };
        assert_eq!((feature, sm), (what, min), "{body}");
        let min = Target::parse(&format!("sm_{min}")).unwrap().name();
        assert!(accel_on(body, min).is_ok(), "{body} on {min}");
    }
}

/// IR names are free text; a name PTX cannot spell is a clear error, not
/// PTX that ptxas would reject.
#[test]
fn names_must_be_ptx_identifiers() {
    let module = parse_module("gv0 = shared @t.le, size 4, align 4\n").unwrap();
    let err = compile_module(&module, &Options::new(Target::parse("sm_80").unwrap()))
        .expect_err("`t.le` is not a PTX name");
    assert!(
        matches!(&err.kind, BackendErrorKind::Name(name) if name == "t.le"),
        "{err}"
    );
    assert!(
        err.to_string().contains("`t.le` is not a valid PTX name"),
        "{err}"
    );
    let ok = parse_module("gv0 = shared @k$tile_2, size 4, align 4\n").unwrap();
    assert!(compile_module(&ok, &Options::new(Target::parse("sm_80").unwrap())).is_ok());
}
