//! Bit-fields in device code: `tests/fixtures/bit_fields/bit_fields.cu`
//! reads every field of random structs, and their sizes and alignments;
//! kernelc's PTX and nvcc's give the same values on the emulator (so the
//! layout is nvcc's), and the IR interpreter agrees. What kernelc does not
//! support yet is a located error.

mod common;

use common::{kernelc, scratch, stderr};
use std::path::Path;

const KERNEL: &str = "_Z1kPK9RowHeaderPK5MixedPxi";
/// 64 structs of each kind (4 and 24 bytes) of random bytes.
const ARGS: &[&str] = &[
    "u8[]:rand:256:1",
    "u8[]:rand:1536:2",
    "i64[]:zeros:1024",
    "i32:64",
];

/// The values `k` writes, run from `input` with `engine`.
fn run(input: &Path, engine: &[&str], out: &Path) -> Vec<i64> {
    let mut argv = vec!["run", input.to_str().unwrap()];
    argv.extend_from_slice(engine);
    argv.extend_from_slice(&["--kernel", KERNEL, "--grid", "2", "--block", "32"]);
    argv.extend_from_slice(&["--out", out.to_str().unwrap()]);
    argv.extend_from_slice(ARGS);
    let o = kernelc(&argv);
    assert!(o.status.success(), "{}", stderr(&o));
    std::fs::read(out.join("arg2.bin"))
        .unwrap()
        .chunks(8)
        .map(|c| i64::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

#[test]
fn bit_fields_are_laid_out_and_read_as_nvcc_does() {
    let dir = scratch("bit-fields");
    let src = common::root().join("tests/fixtures/bit_fields/bit_fields.cu");
    let ptx = dir.join("kernelc.ptx");
    let o = kernelc(&[
        src.to_str().unwrap(),
        "-arch=sm_90",
        "-o",
        ptx.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&ptx).unwrap();
    common::assert_ptxas_accepts(&text, "sm_90", "bit_fields.cu");
    let ours = run(&ptx, &["--engine", "emu"], &dir.join("ours"));
    // sizeof * 100 + alignof, as nvcc 13.5 has them (static_asserts).
    assert_eq!((ours[13], ours[14]), (404, 2408));
    // A 3-bit signed field holds -4..3; an unsigned one 0..7.
    assert!(ours
        .chunks(16)
        .all(|t| (-4..=3).contains(&t[5]) && (0..=7).contains(&t[10])));
    assert!(
        ours.chunks(16).any(|t| t[5] < 0),
        "signed fields are sign-extended"
    );
    assert_eq!(
        ours,
        run(&src, &[], &dir.join("interp")),
        "the IR interpreter"
    );
    if let Some(theirs) = common::nvcc_ptx(&src, "sm_90", "the bit-field fixture") {
        let theirs_ptx = dir.join("nvcc.ptx");
        std::fs::write(&theirs_ptx, theirs).unwrap();
        assert_eq!(
            ours,
            run(&theirs_ptx, &["--engine", "emu"], &dir.join("theirs"))
        );
    }
}

#[test]
fn misuses_of_bit_fields_are_located_errors() {
    let s = "struct B { unsigned a : 3; unsigned b : 5; };\n";
    // C++ forbids these as nvcc does ("taking the address of a bit field").
    let err = common::rejected_with(
        "bit-field-errors",
        &format!("{s}__global__ void k(B *p, unsigned **q) {{ *q = &p->a; }}\n"),
        "E0005",
    );
    assert!(
        err.contains("address of a bit-field") && err.contains("2:46"),
        "{err}"
    );
    let err = common::rejected_with(
        "bit-field-errors",
        &format!("{s}__global__ void k(const B *p) {{ p->b += 1; }}\n"),
        "E0005",
    );
    assert!(err.contains("`const`") && err.contains("2:33"), "{err}");
    let err = common::rejected_with(
        "bit-field-errors",
        "struct B { unsigned a : 33; };\n__global__ void k(B *p) {}\n",
        "E0009",
    );
    assert!(err.contains("invalid width 33"), "{err}");
    let err = common::rejected_with(
        "bit-field-errors",
        "struct B { float a : 3; };\n__global__ void k(B *p) {}\n",
        "E0004",
    );
    assert!(err.contains("not an integer type"), "{err}");
}
