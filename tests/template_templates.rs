//! Template template parameters (`template <typename> class Op`): a class
//! template passed by name to a function template, a kernel template
//! launched from host code, or a class template. Each instance's `.entry`
//! and `.func` names must be nvcc's, ptxas must accept kernelc's PTX, and
//! every kernel must compute on the emulator what nvcc's PTX computes.

mod common;

use common::scratch;
use std::collections::BTreeSet;

/// The names of the kernels and functions a PTX text defines.
fn symbols(ptx: &str) -> BTreeSet<String> {
    ptx.lines()
        .filter(|l| l.starts_with(".visible .entry") || l.starts_with(".func"))
        .filter_map(|l| l.split_whitespace().last())
        .map(|name| name.trim_end_matches('(').to_string())
        .collect()
}

const FLOATS: &[&str] = &["f32[]:rand:64:7", "f32[]:zeros:64"];
const INTS: &[&str] = &["i32[]:rand:64:8", "i32[]:zeros:64"];

#[test]
fn policies_passed_as_class_templates_are_named_and_computed_as_nvcc_does() {
    let dir = scratch("template-templates-policies");
    let src = common::root().join("tests/fixtures/template_templates/policies.cu");
    let (ours, theirs) = common::fixture_ptx_and_nvcc(&src, &dir);
    let expected: BTreeSet<String> = [
        "_Z13warpAllReduceI5MaxOpfLi32EET0_S1_",
        "_Z13warpAllReduceI5SumOpfLi32EET0_S1_",
        "_Z13warpAllReduceIN2ns5MinOpEfLi32EET0_S2_",
        "_Z13warpAllReduceIN2ns5MinOpEiLi8EET0_S2_",
        "_Z14variadicPolicyI5SumOpEvPKfPf",
        "_Z6directPKiPi",
        "_Z7combineI5MaxOpEvPKiPi",
        "_Z7combineIN2ns5MinOpEEvPKiPi",
        "_Z9reduceAllI5MaxOpEvPKfPf",
        "_Z9reduceAllI5SumOpEvPKfPf",
        "_Z9reduceAllIN2ns5MinOpEEvPKfPf",
        "_ZN7ReducerI5MaxOpE2goEii",
        "_ZN7ReducerIN2ns5MinOpEE2goEii",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    assert_eq!(symbols(&ours), expected, "kernelc's symbols");
    let Some(theirs) = theirs else { return };
    let their_text = std::fs::read_to_string(&theirs).unwrap();
    assert_eq!(symbols(&their_text), expected, "nvcc's symbols");
    let ours = dir.join("kernelc.ptx");
    let launches: &[(&str, &[&str])] = &[
        ("_Z9reduceAllI5MaxOpEvPKfPf", FLOATS),
        ("_Z9reduceAllI5SumOpEvPKfPf", FLOATS),
        ("_Z9reduceAllIN2ns5MinOpEEvPKfPf", FLOATS),
        ("_Z14variadicPolicyI5SumOpEvPKfPf", FLOATS),
        ("_Z7combineI5MaxOpEvPKiPi", INTS),
        ("_Z7combineIN2ns5MinOpEEvPKiPi", INTS),
        ("_Z6directPKiPi", INTS),
    ];
    for &(kernel, args) in launches {
        let a = common::emu_buffers(&ours, (kernel, args), &dir.join("a"));
        let b = common::emu_buffers(&theirs, (kernel, args), &dir.join("b"));
        assert_eq!(a, b, "{kernel}: kernelc's PTX and nvcc's disagree");
    }
}

#[test]
fn a_template_arguments_name_is_a_substitution_candidate_as_in_nvccs_names() {
    let dir = scratch("template-templates-substitutions");
    let src = common::root().join("tests/fixtures/template_templates/substitutions.cu");
    let (ours, theirs) = common::fixture_ptx_and_nvcc(&src, &dir);
    let expected: BTreeSet<String> = [
        "_Z3twoI5MaxOpS0_EvPf",
        "_Z3twoIN2ns5MinOpES1_EvPf",
        "_Z5threeI5MaxOpEvPS0_IfEPN2ns5MinOpIiEE",
        "_Z5threeIN2ns5MinOpEEvP5MaxOpIfEPNS1_IiEE",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    assert_eq!(symbols(&ours), expected, "kernelc's symbols");
    if let Some(theirs) = theirs {
        let their_text = std::fs::read_to_string(theirs).unwrap();
        assert_eq!(symbols(&their_text), expected, "nvcc's symbols");
    }
}

const OPS: &str = "template <typename T> struct SumOp { __device__ T operator()(T a, T b) const { return a + b; } };\n\
                   template <typename T, typename U> struct Pair { __device__ T operator()(T a, T b) const { return a; } };\n\
                   struct Plain { };\n";

/// The argument of a template template parameter is a class template of
/// as many type parameters; anything else is E0019 where it is written.
#[test]
fn a_wrong_argument_of_a_template_template_parameter_is_a_located_error() {
    let cases = [
        (
            "k<Plain>",
            "template parameter `Op` takes a class template, not a type",
        ),
        (
            "k<float>",
            "template parameter `Op` takes a class template, not a type",
        ),
        (
            "k<Pair>",
            "template parameter `Op` takes a class template of 1 type parameter(s); `Pair` has 2",
        ),
    ];
    for (i, (use_, message)) in cases.iter().enumerate() {
        let source = format!(
            "{OPS}template <template <typename> class Op> __global__ void k(float *x) {{ x[0] = Op<float>()(x[0], x[1]); }}\n\
             __global__ void user(float *x) {{ }}\n\
             void h(float *d) {{ {use_}<<<1, 1>>>(d); }}\n"
        );
        let err = common::rejected_with(&format!("ttp-wrong-{i}"), &source, "E0019");
        assert!(err.contains(message), "missing `{message}` in:\n{err}");
        assert!(err.contains("6 │"), "not located at the use:\n{err}");
    }
    // In device code too, and a class template where a type goes.
    let source = format!(
        "{OPS}template <template <typename> class Op, typename T> __device__ T red(T a) {{ return Op<T>()(a, a); }}\n\
         template <typename T> __device__ T id(T a) {{ return a; }}\n\
         __global__ void k(float *x) {{ x[0] = red<Pair, float>(x[0]); x[1] = id<SumOp>(x[1]); }}\n"
    );
    let err = common::rejected_with("ttp-wrong-device", &source, "E0019");
    for message in [
        "`Pair` has 2",
        "template parameter `T` takes a type, not the class template `SumOp`",
    ] {
        assert!(err.contains(message), "missing `{message}` in:\n{err}");
    }
}

/// Deducing a template template parameter from a call's argument (`C<T>
/// x`) is not supported: E0002 at the parameter's use in the header.
#[test]
fn a_template_template_parameter_in_a_functions_parameter_types_is_e0002() {
    let err = common::rejected_with(
        "ttp-deduced",
        "template <typename T> struct Box { T v; };\n\
         template <template <class> class C, class T> __device__ T unbox(C<T> b) { return b.v; }\n\
         __global__ void k(float *x) { Box<float> b; b.v = x[0]; x[1] = unbox(b); }\n",
        "E0002",
    );
    assert!(
        err.contains(
            "a template template parameter in a function template's parameter or return types"
        ),
        "{err}"
    );
    assert!(err.contains("2 │"), "{err}");
}
