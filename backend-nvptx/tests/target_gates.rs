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
