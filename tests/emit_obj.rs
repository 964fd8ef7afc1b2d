//! `--emit obj` and the CLI spellings of this slice's options, through the
//! real binary. The object is linked into a C program with the system `cc`,
//! which prints the embedded PTX back: it must be byte-for-byte what
//! `--emit ptx` prints.

mod common;

use common::{kernelc, scratch};
use std::process::Command;

const PRINTER: &str = r#"
#include <stdio.h>
#include <string.h>
extern const char vadd_ptx[];
extern const unsigned long long vadd_ptx_len;
int main(void) {
    if (strlen(vadd_ptx) != vadd_ptx_len) return 2;
    fwrite(vadd_ptx, 1, vadd_ptx_len, stdout);
    return 0;
}
"#;

#[test]
fn object_links_into_a_c_program_and_holds_the_ptx() {
    let dir = scratch("emit_obj");
    for mode in ["virtual", "regalloc2"] {
        let obj = dir.join(format!("vadd_{mode}.o"));
        let flags = ["-arch=sm_90", "--regalloc", mode];
        let out = kernelc(
            &[
                &[
                    "samples/vadd.cu",
                    "--emit",
                    "obj",
                    "-o",
                    obj.to_str().unwrap(),
                ],
                &flags[..],
            ]
            .concat(),
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let ptx = kernelc(&[&["samples/vadd.cu"], &flags[..]].concat());
        assert!(ptx.status.success());

        let c = dir.join("main.c");
        std::fs::write(&c, PRINTER).unwrap();
        let exe = dir.join(format!("print_{mode}"));
        // --fatal-warnings: an object without `.note.GNU-stack` makes GNU ld
        // warn that it implies an executable stack.
        let cc = Command::new("cc")
            .arg("-Wl,--fatal-warnings")
            .arg(&c)
            .arg(&obj)
            .arg("-o")
            .arg(&exe)
            .output();
        let Ok(cc) = cc else {
            eprintln!("SKIPPED (no `cc` on PATH): linking the object");
            return;
        };
        assert!(
            cc.status.success(),
            "{}",
            String::from_utf8_lossy(&cc.stderr)
        );
        let run = Command::new(&exe).output().unwrap();
        assert!(run.status.success());
        assert_eq!(
            String::from_utf8(run.stdout).unwrap(),
            String::from_utf8(ptx.stdout).unwrap(),
            "{mode}: the embedded PTX differs from --emit ptx"
        );
    }
}

#[test]
fn emit_obj_needs_an_output_file() {
    let out = kernelc(&["samples/vadd.cu", "--emit", "obj"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("needs an output file"));
}

#[test]
fn symbol_names_are_c_identifiers() {
    use kernelc::backend_nvptx::obj::c_identifier;
    assert_eq!(c_identifier("vadd"), "vadd");
    assert_eq!(c_identifier("my-kernel.v2"), "my_kernel_v2");
    assert_eq!(c_identifier("3d"), "_3d");
}

#[test]
fn cli_regalloc_and_mir() {
    let out = kernelc(&[
        "samples/saxpy.cu",
        "--regalloc=regalloc2",
        "--emit",
        "mir",
        "-arch=sm_80",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("; machine IR, sm_80"), "{text}");
    assert!(text.contains("--regalloc=regalloc2"), "{text}");
    assert!(text.contains("function saxpy (.entry visible) {"), "{text}");
    let bad = kernelc(&["samples/saxpy.cu", "--regalloc=graph"]);
    assert_eq!(bad.status.code(), Some(1));
}
