//! An operation the chosen target lacks is an error at the instruction's
//! source span, naming the target it needs, never a panic.

use backend_nvptx::{compile_module, Options, Target};
use midend::ir::SourceSpan;
use midend::text::parse_module;

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
    assert_eq!(err.span, Some(SourceSpan::new(40, 52)));
    assert!(err.message.contains("sm_80"), "{}", err.message);
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
    assert_eq!(err.span, Some(SourceSpan::new(10, 20)));
    assert!(err.message.contains("sm_80"), "{}", err.message);
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
    assert!(err.message.contains("sm_90"), "{}", err.message);
    let ptx = compile_module(&module, &Options::new(Target::parse("sm_90").unwrap())).unwrap();
    assert!(
        ptx.contains(".explicitcluster\n.reqnctapercluster 2, 1, 1"),
        "{ptx}"
    );
}
