//! The template forms of modern C++ device code (issue 26): deduced return
//! types, unnamed and dependent template parameters, SFINAE, the `_v`
//! variable templates and CRTP. Each fixture's `.entry` and `.func` names
//! must be nvcc's, and its kernels must compute on the emulator what
//! nvcc's PTX computes.

mod common;

use common::scratch;
use std::collections::BTreeSet;
use std::path::PathBuf;

fn fixture(name: &str) -> PathBuf {
    common::root().join("tests/fixtures/sfinae").join(name)
}

/// The names of the kernels and functions a PTX text defines.
fn symbols(ptx: &str) -> BTreeSet<String> {
    ptx.lines()
        .filter(|l| l.starts_with(".visible .entry") || l.starts_with(".func"))
        .filter_map(|l| l.split_whitespace().last())
        .map(|name| name.trim_end_matches('(').to_string())
        .collect()
}

/// Compiles fixture `name` with kernelc (ptxas must accept it) and, when
/// nvcc is there, with nvcc (with CCCL's headers, which `<type_traits>`
/// needs); the symbols must be `expected` in both, and each of `launches`
/// (a kernel and its `kernelc run` arguments, over 2 blocks of 32
/// threads) must leave the same buffers.
fn assert_same_as_nvcc(name: &str, expected: &[&str], launches: &[(&str, &[&str])]) {
    let dir = scratch(&format!("sfinae-{name}"));
    let src = fixture(name);
    let cccl = common::cuda_headers_or_skip()
        .map(|h| vec![format!("-I{}", h.join("cccl").display())])
        .unwrap_or_default();
    let (ours, theirs) = common::fixture_ptx_and_nvcc_with(&src, &dir, &cccl);
    let expected: BTreeSet<String> = expected.iter().map(|s| s.to_string()).collect();
    assert_eq!(symbols(&ours), expected, "{name}: kernelc's symbols");
    let Some(theirs) = theirs else { return };
    let their_text = std::fs::read_to_string(&theirs).unwrap();
    assert_eq!(symbols(&their_text), expected, "{name}: nvcc's symbols");
    let ours = dir.join("kernelc.ptx");
    for &(kernel, args) in launches {
        let a = common::emu_buffers(&ours, (kernel, args), &dir.join("a"));
        let b = common::emu_buffers(&theirs, (kernel, args), &dir.join("b"));
        assert_eq!(a, b, "{name} {kernel}: kernelc's PTX and nvcc's disagree");
    }
}

/// Input buffers of 64 floats and ints, and the outputs.
const FLOATS_INTS: &[&str] = &[
    "f32[]:zeros:64",
    "i32[]:zeros:64",
    "f32[]:rand:64:7",
    "i32[]:rand:64:8",
];

#[test]
fn deduced_return_types_are_nvccs() {
    assert_same_as_nvcc(
        "auto_returns.cu",
        &[
            "_Z11autoReturnsPfPiPKfPKi",
            "_Z5twicei",
            "_Z6halvedi",
            "_Z6thriceIfEDaT_",
            "_Z6thriceIiEDaT_",
            "_Z5laterIfEDTplfp_Li1EET_",
            "_Z5laterIiEDTplfp_Li1EET_",
            "_Z5mixedIifEDTmlfp_fp0_ET_T0_",
            "_Z5mixedIijEDTmlfp_fp0_ET_T0_",
            "_Z6bumpedIfEDcT_",
            "_Z6bumpedIiEDcT_",
            "_Z4signIfEDaT_",
            "_Z4signIiEDaT_",
            "_Z8positiveIfEDaT_",
            "_ZN3geo7squaredEf",
            "_ZNK5Scale5applyEf",
            "_ZNK3BoxIfE5twiceEv",
            "_ZNK3BoxIfE4plusEf",
            "_ZNK3BoxIiE5twiceEv",
            "_ZNK3BoxIiE4plusEi",
        ],
        &[("_Z11autoReturnsPfPiPKfPKi", FLOATS_INTS)],
    );
}

#[test]
fn unnamed_and_dependent_parameters_and_sfinae_choose_nvccs_overloads() {
    assert_same_as_nvcc(
        "overloads.cu",
        &[
            "_Z9overloadsPfPiPKfPKi",
            "_Z7half_ofIfLi0EET_S0_",
            "_Z7half_ofIdLi0EET_S0_",
            "_Z7half_ofIiLi0EET_S0_",
            "_Z7half_ofIjLi0EET_S0_",
            "_Z5thirdIfvET_S0_",
            "_Z8plus_twoIfLi0EET_S0_",
            "_Z8plus_twoIiLi0EET_S0_",
            "_Z10plus_threeIfvET_S0_",
            "_Z10plus_threeIivET_S0_",
            "_Z6plus_nIiLi5EET_S0_",
            "_Z6plus_nIjLi5EET_S0_",
            "_Z7doubledIfLPv0EET_S1_",
            "_Z7doubledIiLPv0EET_S1_",
        ],
        &[("_Z9overloadsPfPiPKfPKi", FLOATS_INTS)],
    );
}

/// A call that no overload's header substitutes into is E0019 at the
/// call, each candidate labelled and its substitution failure a note;
/// one template that does not substitute says why.
#[test]
fn a_call_no_candidate_survives_is_a_located_error() {
    let err = common::rejected_with(
        "sfinae-none",
        "#include <type_traits>\n\
         template <typename T, typename std::enable_if<std::is_floating_point<T>::value, int>::type = 0>\n\
         __device__ T half_of(T v) { return v / T(2); }\n\
         template <typename T, typename std::enable_if<std::is_integral<T>::value, int>::type = 0>\n\
         __device__ T half_of(T v) { return v >> 1; }\n\
         __global__ void k(int **o) { half_of(o[0]); }\n",
        "E0019",
    );
    for expected in [
        "no template `half_of` fits this call",
        "candidate 1",
        "candidate 2",
        "= candidate 1: substituting the arguments into `half_of<int *>` fails",
        "no member type `type` in `std::enable_if<false, int>`",
        "6 │",
    ] {
        assert!(err.contains(expected), "missing `{expected}` in:\n{err}");
    }
    let err = common::rejected_with(
        "sfinae-one",
        "#include <type_traits>\n\
         template <typename T, typename = std::enable_if_t<std::is_floating_point<T>::value>>\n\
         __device__ T third(T v) { return v / 3; }\n\
         __global__ void k(int *o) { o[0] = third(o[1]); }\n",
        "E0019",
    );
    assert!(
        err.contains("substituting the arguments into `third<int>` fails"),
        "{err}"
    );
}

#[test]
fn variable_templates_are_their_initializers_as_nvcc_computes_them() {
    assert_same_as_nvcc(
        "variable_templates.cu",
        &[
            "_Z9variablesPiPKfPKi",
            "_Z7quarterIiLb1EET_S0_",
            "_Z7quarterIjLb1EET_S0_",
            "_Z7quarterIlLb1EET_S0_",
            "_Z4kindIfEiT_",
            "_Z4kindIiEiT_",
            "_Z4kindIjEiT_",
            "_Z9traits_ofIfEiT_",
            "_Z9traits_ofIiEiT_",
            "_Z9traits_ofIlEiT_",
        ],
        &[(
            "_Z9variablesPiPKfPKi",
            &["i32[]:zeros:64", "f32[]:rand:64:7", "i32[]:rand:64:8"],
        )],
    );
}

/// Deduction reads what C's type of an argument forgets, as nvcc does: a
/// `long long` variable deduces `long long` and a `long` one `long` (two
/// instances, `x` and `l`) in device code, a comparison deduces `bool`
/// in device code and in a host launch, and an enumeration argument
/// written as an enumerator or a cast names one instance (`L2Op0E`).
#[test]
fn deduction_keeps_the_cxx_type_of_each_argument() {
    assert_same_as_nvcc(
        "deduced_spellings.cu",
        &[
            "_Z9spellingsPfPiPKfPKi",
            "_Z5twiceIxET_S0_",
            "_Z5twiceIlET_S0_",
            "_Z5twiceIyET_S0_",
            "_Z5twiceImET_S0_",
            "_Z6weightIbEiT_",
            "_Z6weightIiEiT_",
            "_Z5applyIL2Op0EEfff",
            "_Z5applyIL2Op1EEfff",
            "_Z4flagIbEvPiT_",
            "_Z4flagIiEvPiT_",
            "_Z7combineIL2Op0EEvPfPKf",
            "_Z7combineIL2Op1EEvPfPKf",
        ],
        &[
            ("_Z9spellingsPfPiPKfPKi", FLOATS_INTS),
            ("_Z4flagIbEvPiT_", &["i32[]:zeros:64", "u8:1"]),
            ("_Z4flagIiEvPiT_", &["i32[]:zeros:64", "i32:-2"]),
            (
                "_Z7combineIL2Op1EEvPfPKf",
                &["f32[]:rand:64:3", "f32[]:rand:64:4"],
            ),
        ],
    );
}

/// Forwarding references as nvcc deduces and names them: `T &&` from an
/// lvalue deduces `T` as an lvalue reference (`IRf`, `IRKf`) and from an
/// rvalue as the type, the parameter spelled `OT_` (`DpOT0_` for a pack
/// of them), `std::forward` and `cuda::std::forward` keeping each
/// argument's category through a second forwarding call (`through<float
/// &>` calls `bump<float &>`, `through<float>` `bump<float>`), and
/// `std::move` making an rvalue; the values are nvcc's.
#[test]
fn forwarding_references_deduce_and_name_as_nvcc() {
    assert_same_as_nvcc(
        "forwarding.cu",
        &[
            "_Z10forwardingPfPiPKfPKi",
            "_Z7consumeOf",
            "_Z12invoke_twiceIR4AxpyJRfRKfEEDaOT_DpOT0_",
            "_Z4bumpIRfEvOT_",
            "_Z4bumpIRiEvOT_",
            "_Z4bumpIfEvOT_",
            "_Z5takenIfET_OS0_",
            "_Z5takenIiET_OS0_",
            "_Z6invokeI4AxpyJRKfRfEEDaOT_DpOT0_",
            "_Z6invokeIR4AxpyJRfRKfEEDaOT_DpOT0_",
            "_Z6invokeIR4AxpyJRffEEDaOT_DpOT0_",
            "_Z7throughIRfEfOT_",
            "_Z7throughIfEfOT_",
        ],
        &[("_Z10forwardingPfPiPKfPKi", FLOATS_INTS)],
    );
}

/// `decltype` of a variable, a parameter (an instance's too) or a member
/// of one as a class or variable template's argument (`Vec<decltype(x)>`,
/// `bits_v<decltype(v.y)>`) is the type itself, named as nvcc names it
/// (`_Z4normI3VecIfEEfT_`); the values are nvcc's.
#[test]
fn decltype_template_arguments_are_the_types_nvcc_names() {
    assert_same_as_nvcc(
        "decltype_arguments.cu",
        &[
            "_Z12decltypeArgsPfPiPKfPKi",
            "_Z4normI3VecIfEEfT_",
            "_Z4normI3VecIiEEfT_",
            "_Z5sumsqIiET_S0_",
            "_Z5sumsqIfET_S0_",
        ],
        &[("_Z12decltypeArgsPfPiPKfPKi", FLOATS_INTS)],
    );
}

/// Return types SFINAE writes are named as nvcc names them, with the
/// condition as an expression: `typename std::enable_if<C, T>::type`,
/// `!` of a trait (`Xntsr...E`), a trait of two arguments, the
/// `enable_if_t` alias as the member it names, and a kernel's
/// `enable_if<C>::type` with its defaulted `void`; a host launch of two
/// kernel templates of one name takes the one whose header substitutes.
/// The values are nvcc's.
#[test]
fn sfinae_return_types_are_named_as_nvcc() {
    assert_same_as_nvcc(
        "sfinae_returns.cu",
        &[
            "_Z13sfinaeReturnsPfPiPKfPKi",
            "_Z6halvedIfENSt9enable_ifIXsr3std7is_sameIT_fEE5valueES1_E4typeES1_",
            "_Z6scaledIdENSt9enable_ifIXntsr3std11is_integralIT_EE5valueES1_E4typeES1_",
            "_Z6scaledIfENSt9enable_ifIXntsr3std11is_integralIT_EE5valueES1_E4typeES1_",
            "_Z6scaledIiENSt9enable_ifIXsr3std11is_integralIT_EE5valueES1_E4typeES1_",
            "_Z6scaledIjENSt9enable_ifIXsr3std11is_integralIT_EE5valueES1_E4typeES1_",
            "_Z8scaleAllIfENSt9enable_ifIXsr3std17is_floating_pointIT_EE5valueEvE4typeEPS1_PKS1_",
            "_Z8scaleAllIiENSt9enable_ifIXsr3std11is_integralIT_EE5valueEvE4typeEPS1_PKS1_",
        ],
        &[
            ("_Z13sfinaeReturnsPfPiPKfPKi", FLOATS_INTS),
            (
                "_Z8scaleAllIfENSt9enable_ifIXsr3std17is_floating_pointIT_EE5valueEvE4typeEPS1_PKS1_",
                &["f32[]:zeros:64", "f32[]:rand:64:9"],
            ),
            (
                "_Z8scaleAllIiENSt9enable_ifIXsr3std11is_integralIT_EE5valueEvE4typeEPS1_PKS1_",
                &["i32[]:zeros:64", "i32[]:rand:64:10"],
            ),
        ],
    );
}

/// `cuda::std::enable_if` and `enable_if_t` with conditions that are
/// expressions (`sizeof(T) > 4`, `(N % 4 == 0)`) in the return type, a
/// defaulted template parameter and a non-type one choose nvcc's
/// overloads, named as nvcc names them (`cuda::std::__4`, `gtstT_Li4E`,
/// `eqrmT_Li4ELi0E`); the values are nvcc's.
#[test]
fn cuda_std_enable_if_with_expression_conditions_is_nvccs() {
    assert_same_as_nvcc(
        "cuda_std_conditions.cu",
        &[
            "_Z10conditionsPfPiPKfPKi",
            "_Z4halfIfLi0EET_S0_",
            "_Z6scaledILi8EEN4cuda3std3__49enable_ifIXeqrmT_Li4ELi0EEiE4typeEi",
            "_Z5widenIdEN4cuda3std3__49enable_ifIXgtstT_Li4EES4_E4typeES4_",
            "_Z5widenIiEN4cuda3std3__49enable_ifIXlestT_Li4EES4_E4typeES4_",
        ],
        &[("_Z10conditionsPfPiPKfPKi", FLOATS_INTS)],
    );
}
