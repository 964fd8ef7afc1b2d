//! IR text through the parser and the verifier; a module the verifier
//! accepts must print back to parseable text and survive the -O3 pipeline
//! (verified after every pass) and the backend.
#![no_main]

use kernelc::backend_nvptx::{Options, RegallocMode, Target};
use kernelc::midend;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(mut module) = midend::text::parse_module(text) else {
        return;
    };
    if midend::verifier::verify_module(&module).is_err() {
        return;
    }
    let printed = midend::text::write_module(&module, Default::default());
    assert!(midend::text::parse_module(&printed).is_ok(), "{printed}");
    let pipeline = midend::passes::Pipeline::for_level(3, true, Default::default());
    if let Err(e) = kernelc::driver::optimize(&mut module, &pipeline, None) {
        assert!(!e.rendered.contains("internal compiler error"), "{}", e.rendered);
        return;
    }
    let opts = Options {
        target: Target::parse("sm_90").unwrap(),
        ptx_version: None,
        regalloc: RegallocMode::Virtual,
        producer: None,
    };
    if let Ok(ptx) = kernelc::backend_nvptx::compile_module(&module, &opts) {
        let report = ptx_validate::validate(&ptx);
        assert!(report.ok(), "{}", report.rendered("<ptx>", &ptx));
    }
});
