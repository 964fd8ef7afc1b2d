//! Source bytes through the whole compiler (check, lower, verify, every
//! -O3 pass, the backend, ptx-validate in debug builds). A rendered error
//! is fine; a panic, a hang or an internal compiler error is a bug.
#![no_main]

use kernelc::driver::{compile_source, CompileOptions};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(src) = std::str::from_utf8(data) else {
        return;
    };
    for opt_level in [0, 3] {
        let opts = CompileOptions {
            opt_level,
            ..CompileOptions::default()
        };
        if let Err(e) = compile_source("fuzz.cu", src, &opts) {
            assert!(!e.rendered.contains("internal compiler error"), "{}", e.rendered);
        }
    }
});
