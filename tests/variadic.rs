//! Variadic templates (parameter packs): the instances host code and
//! device code ask for, named as nvcc names them (`J...E` argument packs,
//! `Dp` expansions), accepted by ptxas, computing what nvcc's PTX computes
//! on the emulator; and the located errors of what C++ or kernelc refuses.

mod common;

use common::{kernelc, scratch, stderr, stdout};
use std::collections::BTreeSet;
use std::path::PathBuf;

fn fixture() -> PathBuf {
    common::root().join("tests/fixtures/templates/variadic.cu")
}

fn entries(ptx: &str) -> BTreeSet<String> {
    ptx.lines()
        .filter_map(|l| l.split(".entry ").nth(1))
        .map(|rest| rest.trim_end_matches('(').trim().to_string())
        .collect()
}

/// nvcc 13.5's entries of the fixture: written and deduced packs, empty
/// ones, value packs, class templates over packs, a namespace.
const ENTRIES: [&str; 12] = [
    "_Z10applyChainI5ChainIJ3Inc2Sq3AddILin2EEEEEvPKfPfi",
    "_Z10applyChainI5ChainIJEEEvPKfPfi",
    "_Z12deducedCallsPfi",
    "_Z5foldsIJfffEEvPfiDpPKT_",
    "_Z7weightsIJLi1ELi2ELi3EEEvPKjPji",
    "_Z7weightsIJLi5EEEvPKjPji",
    "_Z9seqTotalsI3SeqIJLi4ELin1ELi7EEEEvPi",
    "_Z9sumInputsIJEEvPfiDpT_",
    "_Z9sumInputsIJPKfS1_S1_EEvPfiDpT_",
    "_Z9sumInputsIJPfS0_EEvS0_iDpT_",
    "_ZN3ops7emptiesIJEEEvPiDpT_",
    "_ZN3ops7emptiesIJijEEEvPiDpT_",
];

#[test]
fn variadic_instances_are_nvccs() {
    let dir = scratch("variadic-entries");
    let (ours, theirs) = common::fixture_ptx_and_nvcc(&fixture(), &dir);
    let expected: BTreeSet<String> = ENTRIES.iter().map(|e| e.to_string()).collect();
    assert_eq!(entries(&ours), expected, "kernelc's .entry names");
    if let Some(theirs) = theirs {
        let nvcc = std::fs::read_to_string(theirs).unwrap();
        assert_eq!(entries(&nvcc), expected, "nvcc's .entry names");
    }
    // The readable names spell the packs out.
    let o = kernelc(&["--list-kernels", fixture().to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let listed = stdout(&o);
    for line in [
        "_Z9sumInputsIJPfS0_EEvS0_iDpT_\tsumInputs<float*, float*>(float*, int, float*, float*)",
        "_Z9sumInputsIJEEvPfiDpT_\tsumInputs<>(float*, int)",
        "_Z7weightsIJLi1ELi2ELi3EEEvPKjPji\tweights<1, 2, 3>(const unsigned int*, unsigned int*, int)",
    ] {
        assert!(listed.lines().any(|l| l == line), "{line}\n{listed}");
    }
}

#[test]
fn variadic_instances_compute_what_nvccs_ptx_computes() {
    let dir = scratch("variadic-runs");
    let (_, theirs) = common::fixture_ptx_and_nvcc(&fixture(), &dir);
    let ours = dir.join("kernelc.ptx");
    let f32s = |seed: u32| format!("f32[]:rand:1000:{seed}");
    let launches: Vec<(&str, &str, Vec<String>)> = vec![
        (
            "_Z9sumInputsIJPfS0_EEvS0_iDpT_",
            "4",
            vec![
                "f32[]:zeros:1000".into(),
                "i32:1000".into(),
                f32s(1),
                f32s(2),
            ],
        ),
        (
            "_Z9sumInputsIJPKfS1_S1_EEvPfiDpT_",
            "4",
            vec![
                "f32[]:zeros:1000".into(),
                "i32:1000".into(),
                f32s(1),
                f32s(2),
                f32s(3),
            ],
        ),
        (
            "_Z9sumInputsIJEEvPfiDpT_",
            "4",
            vec![f32s(4), "i32:1000".into()],
        ),
        (
            "_Z5foldsIJfffEEvPfiDpPKT_",
            "4",
            vec![
                "f32[]:zeros:1000".into(),
                "i32:1000".into(),
                f32s(5),
                f32s(6),
                f32s(7),
            ],
        ),
        (
            "_Z7weightsIJLi1ELi2ELi3EEEvPKjPji",
            "4",
            vec![
                "u32[]:rand:1000:8".into(),
                "u32[]:zeros:1000".into(),
                "i32:1000".into(),
            ],
        ),
        (
            "_Z7weightsIJLi5EEEvPKjPji",
            "4",
            vec![
                "u32[]:rand:1000:9".into(),
                "u32[]:zeros:1000".into(),
                "i32:1000".into(),
            ],
        ),
        (
            "_Z10applyChainI5ChainIJ3Inc2Sq3AddILin2EEEEEvPKfPfi",
            "4",
            vec![f32s(10), "f32[]:zeros:1000".into(), "i32:1000".into()],
        ),
        (
            "_Z10applyChainI5ChainIJEEEvPKfPfi",
            "4",
            vec![f32s(11), "f32[]:zeros:1000".into(), "i32:1000".into()],
        ),
        (
            "_Z12deducedCallsPfi",
            "4",
            vec![f32s(12), "i32:1000".into()],
        ),
        (
            "_ZN3ops7emptiesIJEEEvPiDpT_",
            "1",
            vec!["i32[]:zeros:1".into()],
        ),
        (
            "_ZN3ops7emptiesIJijEEEvPiDpT_",
            "1",
            vec!["i32[]:zeros:1".into(), "i32:3".into(), "u32:0".into()],
        ),
    ];
    for (kernel, grid, args) in &launches {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let block = if *grid == "1" { "1" } else { "256" };
        let shape = ["--grid", grid, "--block", block];
        let run = |ptx: &PathBuf, name: &str| {
            common::launch_buffers(ptx, "emu", (kernel, &args), &dir.join(name), &shape)
        };
        let mine = run(&ours, "mine");
        assert!(mine.iter().any(Option::is_some), "{kernel}: no buffers");
        let Some(theirs) = &theirs else { continue };
        assert_eq!(
            mine,
            run(theirs, "nv"),
            "{kernel}: kernelc's PTX and nvcc's disagree"
        );
    }
    // What the empty folds give: `true`, `false`, no elements, the
    // initial value; and with (3, 0u): `false`, `true`, 2, 7 + 3.
    let empties = |kernel: &str, args: &[&str]| -> i32 {
        let b = common::launch_buffers(
            &ours,
            "emu",
            (kernel, args),
            &dir.join("empties"),
            &["--grid", "1", "--block", "1"],
        );
        i32::from_le_bytes(b[0].as_deref().unwrap()[..4].try_into().unwrap())
    };
    assert_eq!(
        empties("_ZN3ops7emptiesIJEEEvPiDpT_", &["i32[]:zeros:1"]),
        1 + 7
    );
    assert_eq!(
        empties(
            "_ZN3ops7emptiesIJijEEEvPiDpT_",
            &["i32[]:zeros:1", "i32:3", "u32:0"]
        ),
        2 + 8 + 10
    );
}

/// Compiles `source`; it must fail with `code` and a message containing
/// `message`, exit 1, and leave no output file ([`common::rejected_with`]).
fn rejects(source: &str, code: &str, message: &str) {
    let err = common::rejected_with("variadic-errors", source, code);
    assert!(
        err.contains(message),
        "{source}: expected {code} `{message}`, got:\n{err}"
    );
}

#[test]
fn misuses_of_packs_are_located_errors() {
    // What nvcc rejects too.
    rejects(
        "template <typename... Ts> __global__ void k(float *o, Ts... xs) { o[0] = (xs + ...); }\n\
         int main() { float *o = nullptr; k<<<1, 1>>>(o); }\n",
        "E0019",
        "a fold over `+` of an empty pack has no value",
    );
    rejects(
        "template <typename... Ts> __global__ void k(float *o, Ts... xs) { o[0] = xs; }\n\
         int main() { float *o = nullptr; k<<<1, 1>>>(o, 1.0f); }\n",
        "E0019",
        "parameter pack `xs` is used without `...` expanding it",
    );
    rejects(
        "template <typename... Ts = int> __global__ void k(Ts... xs) {}\n",
        "E0003",
        "a parameter pack cannot have a default argument",
    );
    // A pack deduced from a launch's argument kernelc cannot type.
    rejects(
        "template <typename... Ps> __global__ void k(float *o, Ps... in) { o[0] = (0.0f + ... + in[0]); }\n\
         float *make();\n\
         int main() { float *o = nullptr; k<<<1, 1>>>(o, make()); }\n",
        "E0019",
        "kernelc cannot find the type of this argument in host code",
    );
    // What kernelc does not support yet.
    rejects(
        "template <typename A, typename B> struct Pair {};\n\
         template <typename... Ts> __global__ void k(Pair<Ts...> p) {}\n",
        "E0002",
        "a pack may be expanded there only as the last parameter",
    );
}
