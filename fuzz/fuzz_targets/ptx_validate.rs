//! Any text through ptx-validate's parser and checker, and the rendering
//! of its report: it judges nvcc's PTX and hand-written PTX, so it must
//! never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let report = ptx_validate::validate(text);
    let _ = report.rendered("fuzz.ptx", text);
    let _ = report.minimum_line();
});
