//! The standard and CUDA headers kernelc knows, and the macros each brings.
//!
//! kernelc's own headers are not files: most are a list of macro
//! definitions here; one whose content is device code (cuRAND's device
//! API, `crate::curand`) is CUDA source that the preprocessor reads as if
//! it were a file at a pseudo path. All are found after every file of the
//! include path (`include.rs`).
//! nvcc force-includes `cuda_runtime.h`, which pulls in the C library's
//! `math.h`, `limits.h`, `stdlib.h` and `stddef.h`; so `INFINITY`, `M_PI`,
//! `INT_MAX` or `NULL` work in a `.cu` file with no `#include` at all, and
//! kernelc predefines them ([`PREDEFINED`]). Others (`FLT_MAX`, `INT32_MAX`,
//! `CUDART_PI_F`) appear in nvcc only after their header, and so here
//! ([`header_macros`]). Each value was compared with the PTX nvcc makes for
//! it (`frontend/tests/preprocessor.rs` holds the bits).
//!
//! Floating values that no decimal literal can spell (infinity, NaN) use the
//! GCC built-ins that the C library itself uses, `__builtin_inff()`,
//! `__builtin_nanf("")` and friends, which the parser understands (and nvcc
//! accepts when a program spells them out).

/// What an `#include` of a name means.
pub(crate) enum Header {
    /// Known; defines these macros (`NAME body`, or `NAME(params) body`).
    Macros(&'static [&'static str]),
    /// Known; CUDA source the preprocessor includes as a file: `path` (a
    /// pseudo path, `<kernelc>/...`) names it in diagnostics and is its
    /// identity for `#pragma once`, `text` gives the source.
    Source {
        path: &'static str,
        text: fn() -> &'static str,
    },
    /// Known, but its declarations (half types, cooperative groups, ...)
    /// are beyond kernelc: the reason for the diagnostic.
    Unsupported(&'static str),
    /// A C++ template library (Thrust, CUB) whose headers kernelc does
    /// not read. Host code may use it: host code is skipped. Device code
    /// that names it is refused where it does (`crate::libraries`), but
    /// for what kernelc's own header of its device part provides. `warns`:
    /// the header declares algorithms whose kernels nvcc's PTX holds when
    /// host code calls them, and kernelc does not compile (W0009).
    Library {
        library: &'static Library,
        warns: bool,
    },
}

/// A template library whose headers kernelc does not read.
pub(crate) struct Library {
    pub name: &'static str,
    /// Its namespace, which device code may not name.
    pub namespace: &'static str,
    /// kernelc's header of the part device code may use, if any.
    pub device: Option<DevicePart>,
}

/// The part of a library that kernelc provides to device code: a header of
/// source, read at the library's first include, and the names it declares
/// in the library's namespace (`cub::BlockReduce`), the only ones device
/// code may name.
pub(crate) struct DevicePart {
    pub path: &'static str,
    pub text: fn() -> &'static str,
    /// What it is, for W0009 ("block and warp collectives").
    pub what: &'static str,
    pub provides: &'static [&'static str],
    /// The classes among them, as a diagnostic names them.
    pub classes: &'static [&'static str],
}

const THRUST: Library = Library {
    name: "Thrust",
    namespace: "thrust",
    device: None,
};

/// CUB: its block and warp reductions and scans, its block loads, stores
/// and exchanges and its block radix sort are kernelc's
/// `frontend/headers/cub.cuh`; the rest serves host code only.
const CUB: Library = Library {
    name: "CUB",
    namespace: "cub",
    device: Some(DevicePart {
        path: "<kernelc>/cub.cuh",
        text: cub,
        what: "block and warp collectives",
        provides: &[
            "BlockReduce",
            "BlockReduceAlgorithm",
            "BLOCK_REDUCE_RAKING_COMMUTATIVE_ONLY",
            "BLOCK_REDUCE_RAKING",
            "BLOCK_REDUCE_WARP_REDUCTIONS",
            "BLOCK_REDUCE_WARP_REDUCTIONS_NONDETERMINISTIC",
            "WarpReduce",
            "WarpScan",
            "BlockScan",
            "BlockScanAlgorithm",
            "BLOCK_SCAN_RAKING",
            "BLOCK_SCAN_RAKING_MEMOIZE",
            "BLOCK_SCAN_WARP_SCANS",
            "BlockLoad",
            "BlockLoadAlgorithm",
            "BLOCK_LOAD_DIRECT",
            "BLOCK_LOAD_STRIPED",
            "BLOCK_LOAD_VECTORIZE",
            "BLOCK_LOAD_TRANSPOSE",
            "BLOCK_LOAD_WARP_TRANSPOSE",
            "BLOCK_LOAD_WARP_TRANSPOSE_TIMESLICED",
            "BlockStore",
            "BlockStoreAlgorithm",
            "BLOCK_STORE_DIRECT",
            "BLOCK_STORE_STRIPED",
            "BLOCK_STORE_VECTORIZE",
            "BLOCK_STORE_TRANSPOSE",
            "BLOCK_STORE_WARP_TRANSPOSE",
            "BLOCK_STORE_WARP_TRANSPOSE_TIMESLICED",
            "LoadDirectBlocked",
            "LoadDirectBlockedVectorized",
            "LoadDirectStriped",
            "LoadDirectWarpStriped",
            "StoreDirectBlocked",
            "StoreDirectBlockedVectorized",
            "StoreDirectStriped",
            "StoreDirectWarpStriped",
            "BlockExchange",
            "BlockRadixSort",
            "NullType",
            "__kernelc",
        ],
        classes: &[
            "`cub::BlockReduce`",
            "`cub::WarpReduce`",
            "`cub::WarpScan`",
            "`cub::BlockScan`",
            "`cub::BlockLoad`",
            "`cub::BlockStore`",
            "`cub::BlockExchange`",
            "`cub::BlockRadixSort`",
        ],
    }),
};

impl DevicePart {
    /// The classes device code may name, for a diagnostic
    /// (`cub::BlockReduce`, `cub::WarpReduce`, ...).
    pub fn provided_list(&self) -> String {
        self.classes.join(", ")
    }
}

/// `<cub/...>`'s device part (`frontend/headers/cub.cuh`).
fn cub() -> &'static str {
    include_str!("../headers/cub.cuh")
}

/// Whether CUB's header `name` declares the device-wide algorithms
/// (`cub::DeviceReduce`), whose kernels nvcc instantiates for host code
/// that calls them.
fn declares_cub_device_algorithms(name: &str) -> bool {
    name == "cub/cub.cuh"
        || ["cub/device/", "cub/agent/", "cub/grid/", "cub/dispatch/"]
            .iter()
            .any(|dir| name.starts_with(dir))
}

/// The pseudo path of `<type_traits>`'s text in diagnostics.
const TYPE_TRAITS_PATH: &str = "<kernelc>/type_traits";

/// `<type_traits>` and `<cuda/std/type_traits>`: the traits in `std` and
/// in `cuda::std::__4` (`frontend/headers/type_traits_namespaces.h`), whose
/// body, read once in each namespace, is `<__kernelc/type_traits.h>`.
fn type_traits() -> &'static str {
    include_str!("../headers/type_traits_namespaces.h")
}

/// The traits as class templates kernelc compiles
/// (`frontend/headers/type_traits.h`).
fn type_traits_body() -> &'static str {
    include_str!("../headers/type_traits.h")
}

/// `<limits>` and `<cuda/std/limits>`: `numeric_limits` in `std` (host
/// functions, as the host compiler's) and in `cuda::std` (device ones)
/// (`frontend/headers/limits.h`), whose body, read once in each namespace,
/// is `<__kernelc/numeric_limits.h>`.
fn limits() -> &'static str {
    include_str!("../headers/limits.h")
}

/// `<cuComplex.h>`: complex numbers as `float2` and `double2` with the
/// toolkit's functions and arithmetic (`frontend/headers/cuComplex.h`).
fn cu_complex() -> &'static str {
    include_str!("../headers/cuComplex.h")
}

fn numeric_limits_body() -> &'static str {
    include_str!("../headers/numeric_limits.h")
}

const COOPERATIVE_GROUPS_PATH: &str = "<kernelc>/cooperative_groups.h";

/// `<cooperative_groups.h>` (and its `reduce.h`, `scan.h`, `functional.h`
/// and `memcpy_async.h`): blocks, static and dynamic tiles, the tile
/// collectives and the asynchronous copies as classes and templates kernelc
/// compiles (`frontend/headers/cooperative_groups.h`).
fn cooperative_groups() -> &'static str {
    include_str!("../headers/cooperative_groups.h")
}

/// `<mma.h>`: `nvcuda::wmma`'s fragments and warp matrix functions for the
/// 16x16x16 tile of `__half` or `__nv_bfloat16` with a `float`
/// accumulator, as classes and overloads over the tensor-core built-ins
/// (`frontend/headers/mma.h`).
fn mma() -> &'static str {
    include_str!("../headers/mma.h")
}

/// `<cuda_pipeline.h>` and `<cuda_pipeline_primitives.h>`: the pipeline
/// primitives (`__pipeline_memcpy_async`, `__pipeline_commit`,
/// `__pipeline_wait_prior`) over the `cp.async` built-ins
/// (`frontend/headers/cuda_pipeline.h`).
fn cuda_pipeline() -> &'static str {
    include_str!("../headers/cuda_pipeline.h")
}

/// The part of libcu++ kernelc provides as source
/// (`frontend/headers/cuda_std/`): `<cuda/std/utility>`'s `pair` and
/// `swap` (`move` and `forward` are built in, `sema/expr.rs`), `array`,
/// `algorithm`'s `min`, `max` and `clamp`, `tuple`, `complex`, `span` and
/// `functional`'s function objects, each in libcu++'s inline namespace
/// `cuda::std::__4`, which nvcc's names spell out.
fn libcudacxx(name: &str) -> Header {
    let (path, text): (&'static str, fn() -> &'static str) = match name {
        "cuda/std/utility" => ("<kernelc>/cuda/std/utility", || {
            include_str!("../headers/cuda_std/utility.h")
        }),
        "cuda/std/array" => ("<kernelc>/cuda/std/array", || {
            include_str!("../headers/cuda_std/array.h")
        }),
        "cuda/std/algorithm" => ("<kernelc>/cuda/std/algorithm", || {
            include_str!("../headers/cuda_std/algorithm.h")
        }),
        "cuda/std/tuple" => ("<kernelc>/cuda/std/tuple", || {
            include_str!("../headers/cuda_std/tuple.h")
        }),
        "cuda/std/span" => ("<kernelc>/cuda/std/span", || {
            include_str!("../headers/cuda_std/span.h")
        }),
        "cuda/std/functional" | "cuda/functional" => ("<kernelc>/cuda/std/functional", || {
            include_str!("../headers/cuda_std/functional.h")
        }),
        _ => ("<kernelc>/cuda/std/complex", || {
            include_str!("../headers/cuda_std/complex.h")
        }),
    };
    Header::Source { path, text }
}

/// Macros visible in every CUDA translation unit, as `NAME body` lines.
pub(crate) const PREDEFINED: &[&str] = &[
    // The CUDA toolkit kernelc checks itself against (nvcc 13.5.37); code
    // tests these to pick features (`#if CUDART_VERSION >= 12000`).
    "__CUDACC_VER_MAJOR__ 13",
    "__CUDACC_VER_MINOR__ 5",
    "__CUDACC_VER_BUILD__ 37",
    "CUDART_VERSION 13050",
    "__CUDA_API_VER_MAJOR__ 13",
    "__CUDA_API_VER_MINOR__ 5",
    // The host platform, as nvcc's device pass sees it on x86-64 Linux with
    // the GNU C++17 dialect it uses by default (`tests/predefined.rs` checks
    // each against `nvcc -E -Xcompiler -dM`). Code tests these to pick a
    // platform (`#if defined(__linux__)`, `#ifndef __cplusplus`); the
    // compiler's own version macros (`__GNUC__`) are left out: they name
    // the host compiler, whose extensions kernelc does not have.
    "__cplusplus 201703L",
    "__STDC__ 1",
    "__STDC_HOSTED__ 1",
    "__linux__ 1",
    "__linux 1",
    "linux 1",
    "__gnu_linux__ 1",
    "__unix__ 1",
    "__unix 1",
    "unix 1",
    "__ELF__ 1",
    "__x86_64__ 1",
    "__x86_64 1",
    "__amd64__ 1",
    "__amd64 1",
    "__LP64__ 1",
    "_LP64 1",
    "__CHAR_BIT__ 8",
    "__SIZEOF_SHORT__ 2",
    "__SIZEOF_INT__ 4",
    "__SIZEOF_LONG__ 8",
    "__SIZEOF_LONG_LONG__ 8",
    "__SIZEOF_POINTER__ 8",
    "__SIZEOF_SIZE_T__ 8",
    "__SIZEOF_FLOAT__ 4",
    "__SIZEOF_DOUBLE__ 8",
    "__ORDER_LITTLE_ENDIAN__ 1234",
    "__ORDER_BIG_ENDIAN__ 4321",
    "__BYTE_ORDER__ __ORDER_LITTLE_ENDIAN__",
    // <math.h>
    "INFINITY (__builtin_inff())",
    "NAN (__builtin_nanf(\"\"))",
    "HUGE_VALF (__builtin_huge_valf())",
    "HUGE_VAL (__builtin_huge_val())",
    "MAXFLOAT 3.40282347e+38F",
    "FP_NAN 0",
    "FP_INFINITE 1",
    "FP_ZERO 2",
    "FP_SUBNORMAL 3",
    "FP_NORMAL 4",
    "M_E 2.7182818284590452354",
    "M_LOG2E 1.4426950408889634074",
    "M_LOG10E 0.43429448190325182765",
    "M_LN2 0.69314718055994530942",
    "M_LN10 2.30258509299404568402",
    "M_PI 3.14159265358979323846",
    "M_PI_2 1.57079632679489661923",
    "M_PI_4 0.78539816339744830962",
    "M_1_PI 0.31830988618379067154",
    "M_2_PI 0.63661977236758134308",
    "M_2_SQRTPI 1.12837916709551257390",
    "M_SQRT2 1.41421356237309504880",
    "M_SQRT1_2 0.70710678118654752440",
    "M_Ef 2.7182818284590452354f",
    "M_LOG2Ef 1.4426950408889634074f",
    "M_LOG10Ef 0.43429448190325182765f",
    "M_LN2f 0.69314718055994530942f",
    "M_LN10f 2.30258509299404568402f",
    "M_PIf 3.14159265358979323846f",
    "M_PI_2f 1.57079632679489661923f",
    "M_PI_4f 0.78539816339744830962f",
    "M_1_PIf 0.31830988618379067154f",
    "M_2_PIf 0.63661977236758134308f",
    "M_2_SQRTPIf 1.12837916709551257390f",
    "M_SQRT2f 1.41421356237309504880f",
    "M_SQRT1_2f 0.70710678118654752440f",
    // <limits.h> (LP64, `char` signed)
    "CHAR_BIT 8",
    "SCHAR_MAX 0x7f",
    "SCHAR_MIN (-SCHAR_MAX - 1)",
    "UCHAR_MAX (SCHAR_MAX * 2 + 1)",
    "CHAR_MAX SCHAR_MAX",
    "CHAR_MIN SCHAR_MIN",
    "SHRT_MAX 0x7fff",
    "SHRT_MIN (-SHRT_MAX - 1)",
    "USHRT_MAX (SHRT_MAX * 2 + 1)",
    "INT_MAX 0x7fffffff",
    "INT_MIN (-INT_MAX - 1)",
    "UINT_MAX (INT_MAX * 2U + 1U)",
    "LONG_MAX 0x7fffffffffffffffL",
    "LONG_MIN (-LONG_MAX - 1L)",
    "ULONG_MAX (LONG_MAX * 2UL + 1UL)",
    "LLONG_MAX 0x7fffffffffffffffLL",
    "LLONG_MIN (-LLONG_MAX - 1LL)",
    "ULLONG_MAX (LLONG_MAX * 2ULL + 1ULL)",
    "LONG_LONG_MAX LLONG_MAX",
    "LONG_LONG_MIN LLONG_MIN",
    "ULONG_LONG_MAX ULLONG_MAX",
    "SSIZE_MAX LONG_MAX",
    // <stddef.h>, <stdlib.h>
    "NULL 0L",
    "offsetof(TYPE, MEMBER) __builtin_offsetof(TYPE, MEMBER)",
    "EXIT_SUCCESS 0",
    "EXIT_FAILURE 1",
    "RAND_MAX 2147483647",
    // <assert.h>, which `cuda_runtime.h` includes: `assert(e)` passes the
    // condition, its text, the file, the line and whether `NDEBUG` is
    // defined (its expansion as text, `"NDEBUG"` while it is not) to the
    // builtin `__kernelc_assert` (`sema/runtime.rs`).
    "__kernelc_stringize(x) #x",
    "__kernelc_expanded_text(x) __kernelc_stringize(x)",
    "assert(e) __kernelc_assert((e), #e, __FILE__, __LINE__, __kernelc_expanded_text(NDEBUG))",
];

/// `<cuda.h>` (the driver API's version; its declarations are host code).
const CUDA_H: &[&str] = &["CUDA_VERSION 13050"];

/// `<float.h>` / `<cfloat>`.
const FLOAT_H: &[&str] = &[
    "FLT_RADIX 2",
    "FLT_MANT_DIG 24",
    "DBL_MANT_DIG 53",
    "FLT_DIG 6",
    "DBL_DIG 15",
    "FLT_MIN_EXP (-125)",
    "DBL_MIN_EXP (-1021)",
    "FLT_MAX_EXP 128",
    "DBL_MAX_EXP 1024",
    "FLT_MIN_10_EXP (-37)",
    "DBL_MIN_10_EXP (-307)",
    "FLT_MAX_10_EXP 38",
    "DBL_MAX_10_EXP 308",
    "FLT_MAX 0x1.fffffep+127f",
    "FLT_MIN 0x1p-126f",
    "FLT_EPSILON 0x1p-23f",
    "FLT_TRUE_MIN 0x1p-149f",
    "DBL_MAX 0x1.fffffffffffffp+1023",
    "DBL_MIN 0x1p-1022",
    "DBL_EPSILON 0x1p-52",
    "DBL_TRUE_MIN 0x1p-1074",
];

/// `<stdint.h>` / `<cstdint>` (the types themselves are built in).
const STDINT_H: &[&str] = &[
    "INT8_MAX 127",
    "INT8_MIN (-128)",
    "UINT8_MAX 255",
    "INT16_MAX 32767",
    "INT16_MIN (-32767 - 1)",
    "UINT16_MAX 65535",
    "INT32_MAX 2147483647",
    "INT32_MIN (-2147483647 - 1)",
    "UINT32_MAX 4294967295U",
    "INT64_MAX 9223372036854775807L",
    "INT64_MIN (-9223372036854775807L - 1)",
    "UINT64_MAX 18446744073709551615UL",
    "INTPTR_MAX INT64_MAX",
    "INTPTR_MIN INT64_MIN",
    "UINTPTR_MAX UINT64_MAX",
    "PTRDIFF_MAX INT64_MAX",
    "PTRDIFF_MIN INT64_MIN",
    "SIZE_MAX UINT64_MAX",
    "INT8_C(c) c",
    "INT16_C(c) c",
    "INT32_C(c) c",
    "INT64_C(c) c ## L",
    "UINT8_C(c) c",
    "UINT16_C(c) c",
    "UINT32_C(c) c ## U",
    "UINT64_C(c) c ## UL",
];

/// `<math_constants.h>`: CUDA's `CUDART_*` constants. Where CUDA spells a
/// value as bits (`__int_as_float(0x7f800000U)`), the same value is written
/// as a hexadecimal float or a GCC built-in.
const MATH_CONSTANTS_H: &[&str] = &[
    "CUDART_INF_F __builtin_huge_valf()",
    "CUDART_NAN_F __builtin_nanf(\"0x3fffff\")",
    "CUDART_MIN_DENORM_F 0x1p-149f",
    "CUDART_MAX_NORMAL_F 0x1.fffffep+127f",
    "CUDART_NEG_ZERO_F (-0.0F)",
    "CUDART_ZERO_F 0.0F",
    "CUDART_ONE_F 1.0F",
    "CUDART_SQRT_HALF_F 0.707106781F",
    "CUDART_SQRT_HALF_HI_F 0.707106781F",
    "CUDART_SQRT_HALF_LO_F 1.210161749e-08F",
    "CUDART_SQRT_TWO_F 1.414213562F",
    "CUDART_THIRD_F 0.333333333F",
    "CUDART_PIO4_F 0.785398163F",
    "CUDART_PIO2_F 1.570796327F",
    "CUDART_3PIO4_F 2.356194490F",
    "CUDART_2_OVER_PI_F 0.636619772F",
    "CUDART_SQRT_2_OVER_PI_F 0.797884561F",
    "CUDART_PI_F 3.141592654F",
    "CUDART_L2E_F 1.442695041F",
    "CUDART_L2T_F 3.321928094F",
    "CUDART_LG2_F 0.301029996F",
    "CUDART_LGE_F 0.434294482F",
    "CUDART_LN2_F 0.693147181F",
    "CUDART_LNT_F 2.302585093F",
    "CUDART_LNPI_F 1.144729886F",
    "CUDART_TWO_TO_M126_F 1.175494351e-38F",
    "CUDART_TWO_TO_126_F 8.507059173e37F",
    "CUDART_NORM_HUGE_F 3.402823466e38F",
    "CUDART_TWO_TO_23_F 8388608.0F",
    "CUDART_TWO_TO_24_F 16777216.0F",
    "CUDART_TWO_TO_31_F 2147483648.0F",
    "CUDART_TWO_TO_32_F 4294967296.0F",
    "CUDART_REMQUO_BITS_F 3U",
    "CUDART_REMQUO_MASK_F (~((~0U) << CUDART_REMQUO_BITS_F))",
    "CUDART_TRIG_PLOSS_F 105615.0F",
    "CUDART_INF __builtin_huge_val()",
    "CUDART_NAN (-__builtin_nan(\"\"))",
    "CUDART_NEG_ZERO (-0.0)",
    "CUDART_MIN_DENORM 0x1p-1074",
    "CUDART_ZERO 0.0",
    "CUDART_ONE 1.0",
    "CUDART_SQRT_TWO 1.4142135623730951e+0",
    "CUDART_SQRT_HALF 7.0710678118654757e-1",
    "CUDART_SQRT_HALF_HI 7.0710678118654757e-1",
    "CUDART_SQRT_HALF_LO (-4.8336466567264567e-17)",
    "CUDART_THIRD 3.3333333333333333e-1",
    "CUDART_TWOTHIRD 6.6666666666666667e-1",
    "CUDART_PIO4 7.8539816339744828e-1",
    "CUDART_PIO4_HI 7.8539816339744828e-1",
    "CUDART_PIO4_LO 3.0616169978683830e-17",
    "CUDART_PIO2 1.5707963267948966e+0",
    "CUDART_PIO2_HI 1.5707963267948966e+0",
    "CUDART_PIO2_LO 6.1232339957367660e-17",
    "CUDART_3PIO4 2.3561944901923448e+0",
    "CUDART_2_OVER_PI 6.3661977236758138e-1",
    "CUDART_PI 3.1415926535897931e+0",
    "CUDART_PI_HI 3.1415926535897931e+0",
    "CUDART_PI_LO 1.2246467991473532e-16",
    "CUDART_SQRT_2PI 2.5066282746310007e+0",
    "CUDART_SQRT_2PI_HI 2.5066282746310007e+0",
    "CUDART_SQRT_2PI_LO (-1.8328579980459167e-16)",
    "CUDART_SQRT_PIO2 1.2533141373155003e+0",
    "CUDART_SQRT_PIO2_HI 1.2533141373155003e+0",
    "CUDART_SQRT_PIO2_LO (-9.1642899902295834e-17)",
    "CUDART_SQRT_2OPI 7.9788456080286536e-1",
    "CUDART_L2E 1.4426950408889634e+0",
    "CUDART_L2E_HI 1.4426950408889634e+0",
    "CUDART_L2E_LO 2.0355273740931033e-17",
    "CUDART_L2T 3.3219280948873622e+0",
    "CUDART_LG2 3.0102999566398120e-1",
    "CUDART_LG2_HI 3.0102999566398120e-1",
    "CUDART_LG2_LO (-2.8037281277851704e-18)",
    "CUDART_LGE 4.3429448190325182e-1",
    "CUDART_LGE_HI 4.3429448190325182e-1",
    "CUDART_LGE_LO 1.09831965021676510e-17",
    "CUDART_LN2 6.9314718055994529e-1",
    "CUDART_LN2_HI 6.9314718055994529e-1",
    "CUDART_LN2_LO 2.3190468138462996e-17",
    "CUDART_LNT 2.3025850929940459e+0",
    "CUDART_LNT_HI 2.3025850929940459e+0",
    "CUDART_LNT_LO (-2.1707562233822494e-16)",
    "CUDART_LNPI 1.1447298858494002e+0",
    "CUDART_LN2_X_1024 7.0978271289338397e+2",
    "CUDART_LN2_X_1025 7.1047586007394398e+2",
    "CUDART_LN2_X_1075 7.4513321910194122e+2",
    "CUDART_LG2_X_1024 3.0825471555991675e+2",
    "CUDART_LG2_X_1075 3.2360724533877976e+2",
    "CUDART_TWO_TO_23 8388608.0",
    "CUDART_TWO_TO_52 4503599627370496.0",
    "CUDART_TWO_TO_53 9007199254740992.0",
    "CUDART_TWO_TO_54 18014398509481984.0",
    "CUDART_TWO_TO_M54 5.5511151231257827e-17",
    "CUDART_TWO_TO_M1022 2.22507385850720140e-308",
    "CUDART_TRIG_PLOSS 2147483648.0",
    "CUDART_DBL2INT_CVT 6755399441055744.0",
];

/// `cuda_fp16.h`: the typedef names of `__half` and `__half2` (as macros:
/// the types themselves are built in, `crate::half`) and the macros that
/// say the types exist. The functions are built in (`sema/half.rs`).
const CUDA_FP16_H: &[&str] = &[
    "half __half",
    "half2 __half2",
    "__CUDA_FP16_TYPES_EXIST__",
    "__CUDA_FP16_H__",
];

/// `cuda_bf16.h`, as `cuda_fp16.h` for `__nv_bfloat16`.
const CUDA_BF16_H: &[&str] = &[
    "nv_bfloat16 __nv_bfloat16",
    "nv_bfloat162 __nv_bfloat162",
    "__CUDA_BF16_TYPES_EXIST__",
    "__CUDA_BF16_H__",
];

/// What including the header `name` (the name without its `<>` or quotes)
/// means, or `None` for a name kernelc does not know. Searched after the
/// files of the include path (`crate::include`).
pub(crate) fn header(name: &str) -> Option<Header> {
    let none: &[&str] = &[];
    Some(match name {
        "cuda.h" => Header::Macros(CUDA_H),
        "float.h" | "cfloat" => Header::Macros(FLOAT_H),
        "stdint.h" | "cstdint" | "inttypes.h" | "cinttypes" | "cuda/std/cstdint" => {
            Header::Macros(STDINT_H)
        }
        "math_constants.h" => Header::Macros(MATH_CONSTANTS_H),
        "cuda_fp16.h" | "cuda_fp16.hpp" => Header::Macros(CUDA_FP16_H),
        "cuda_bf16.h" | "cuda_bf16.hpp" => Header::Macros(CUDA_BF16_H),
        "cuda_fp8.h" | "cuda_fp8.hpp" | "cuda_fp6.h" | "cuda_fp6.hpp" | "cuda_fp4.h"
        | "cuda_fp4.hpp" | "cuda_tf32.h" => {
            Header::Unsupported("the fp8, fp6, fp4 and tf32 types and their functions")
        }
        "cooperative_groups.h"
        | "cooperative_groups/reduce.h"
        | "cooperative_groups/scan.h"
        | "cooperative_groups/functional.h"
        | "cooperative_groups/memcpy_async.h" => Header::Source {
            // Each is the whole of what kernelc provides.
            path: COOPERATIVE_GROUPS_PATH,
            text: cooperative_groups,
        },
        "cuComplex.h" => Header::Source {
            path: "<kernelc>/cuComplex.h",
            text: cu_complex,
        },
        "limits" | "cuda/std/limits" => Header::Source {
            path: "<kernelc>/limits",
            text: limits,
        },
        "__kernelc/type_traits.h" => Header::Source {
            path: "<kernelc>/type_traits.h",
            text: type_traits_body,
        },
        "__kernelc/numeric_limits.h" => Header::Source {
            path: "<kernelc>/numeric_limits.h",
            text: numeric_limits_body,
        },
        "mma.h" => Header::Source {
            path: "<kernelc>/mma.h",
            text: mma,
        },
        "cuda_pipeline.h" | "cuda_pipeline_primitives.h" => Header::Source {
            path: "<kernelc>/cuda_pipeline.h",
            text: cuda_pipeline,
        },
        "cuda/pipeline" | "cuda/barrier" | "cuda/atomic" | "cuda_pipeline_helpers.h" | "cuda_awbarrier.h"
        | "cuda_awbarrier_primitives.h" | "cuda_awbarrier_helpers.h" => Header::Unsupported(
            "libcu++ and the pipeline primitives; kernelc's async-copy built-ins are in docs/tensor-cores.md",
        ),
        "curand_kernel.h" | "curand_discrete2.h" | "curand_globals.h" | "curand_lognormal.h"
        | "curand_mrg32k3a.h" | "curand_mtgp32.h" | "curand_mtgp32_kernel.h"
        | "curand_normal.h" | "curand_philox4x32_x.h" | "curand_poisson.h"
        | "curand_precalc.h" | "curand_uniform.h" => Header::Source {
            // curand_kernel.h includes the others: each is the whole API.
            path: crate::curand::PATH,
            text: crate::curand::source,
        },
        "cuda/std/cstddef" => Header::Macros(none),
        "cuda/std/utility" | "cuda/std/array" | "cuda/std/algorithm" | "cuda/std/complex"
        | "cuda/std/tuple" | "cuda/std/span" | "cuda/std/functional" | "cuda/functional" => {
            libcudacxx(name)
        }
        "type_traits" | "cuda/std/type_traits" => Header::Source {
            path: TYPE_TRAITS_PATH,
            text: type_traits,
        },
        _ if name.starts_with("thrust/") => Header::Library {
            library: &THRUST,
            warns: true,
        },
        _ if name.starts_with("cub/") => Header::Library {
            library: &CUB,
            warns: declares_cub_device_algorithms(name),
        },
        _ if name.starts_with("cuda/")
            || name.starts_with("cooperative_groups/") =>
        {
            Header::Unsupported("libcu++ (a C++ template library)")
        }
        // Everything the rest declare that kernelc supports is built in or
        // predefined (or is host code, which device code never sees).
        _ if KNOWN_EMPTY.contains(&name) || name.starts_with("crt/") => Header::Macros(none),
        _ => return None,
    })
}

/// The headers whose device-usable part kernelc builds in or predefines,
/// and those only host code needs: including them gives nothing more.
/// docs/language.md names the families.
#[rustfmt::skip]
pub const KNOWN_EMPTY: &[&str] = &[
    // kernelc's own.
    "kernelc.cuh",
    // The C standard library (C17), less <float.h>, <stdint.h> and
    // <inttypes.h> above.
    "assert.h", "complex.h", "ctype.h", "errno.h", "fenv.h", "iso646.h", "limits.h",
    "locale.h", "math.h", "setjmp.h", "signal.h", "stdalign.h", "stdarg.h", "stdatomic.h",
    "stdbool.h", "stddef.h", "stdio.h", "stdlib.h", "stdnoreturn.h", "string.h", "tgmath.h",
    "threads.h", "time.h", "uchar.h", "wchar.h", "wctype.h",
    // The C++ standard library (C++17, and the C++20 headers programs
    // already include), less <cfloat>, <cstdint> and <cinttypes> above.
    "algorithm", "any", "array", "atomic", "barrier", "bit", "bitset", "cassert", "ccomplex",
    "cctype", "cerrno", "cfenv", "charconv", "chrono", "ciso646", "climits", "clocale",
    "cmath", "codecvt", "compare", "complex", "concepts", "condition_variable", "coroutine",
    "csetjmp", "csignal", "cstdalign", "cstdarg", "cstdbool", "cstddef", "cstdio", "cstdlib",
    "cstring", "ctgmath", "ctime", "cuchar", "cwchar", "cwctype", "deque", "exception",
    "execution", "filesystem", "format", "forward_list", "fstream", "functional", "future",
    "initializer_list", "iomanip", "ios", "iosfwd", "iostream", "istream", "iterator",
    "latch", "list", "locale", "map", "memory", "memory_resource", "mutex", "new",
    "numbers", "numeric", "optional", "ostream", "queue", "random", "ranges", "ratio",
    "regex", "scoped_allocator", "semaphore", "set", "shared_mutex", "source_location",
    "span", "sstream", "stack", "stdexcept", "stop_token", "streambuf", "string",
    "string_view", "strstream", "syncstream", "system_error", "thread", "tuple",
    "typeindex", "typeinfo", "unordered_map", "unordered_set", "utility",
    "valarray", "variant", "vector", "version",
    // POSIX and the platform's, as real programs include them.
    "alloca.h", "dirent.h", "dlfcn.h", "fcntl.h", "getopt.h", "libgen.h", "malloc.h",
    "memory.h", "omp.h", "pthread.h", "sched.h", "semaphore.h", "strings.h", "sys/mman.h",
    "sys/resource.h", "sys/stat.h", "sys/time.h", "sys/times.h", "sys/types.h",
    "sys/wait.h", "unistd.h",
    // The CUDA runtime and its parts (`cuda_runtime.h` is what nvcc
    // includes itself; the device functions and types are built in).
    "builtin_types.h", "channel_descriptor.h", "common_functions.h",
    "cudaEGL.h", "cudaEGLTypedefs.h", "cudaGL.h", "cudaGLTypedefs.h", "cudaProfiler.h",
    "cudaProfilerTypedefs.h", "cudaTypedefs.h", "cudaVDPAU.h", "cudaVDPAUTypedefs.h",
    "cuda_device_runtime_api.h", "cuda_egl_interop.h", "cuda_gl_interop.h",
    "cuda_occupancy.h", "cuda_profiler_api.h", "cuda_runtime.h", "cuda_runtime_api.h",
    "cuda_surface_types.h", "cuda_texture_types.h", "cuda_vdpau_interop.h",
    "cudart_platform.h", "device_atomic_functions.h", "device_atomic_functions.hpp",
    "device_double_functions.h", "device_functions.h", "device_launch_parameters.h",
    "device_types.h", "driver_functions.h", "driver_types.h", "host_config.h",
    "host_defines.h", "library_types.h", "math_functions.h", "sm_20_atomic_functions.h",
    "sm_20_atomic_functions.hpp", "sm_20_intrinsics.h", "sm_20_intrinsics.hpp",
    "sm_30_intrinsics.h", "sm_30_intrinsics.hpp", "sm_32_atomic_functions.h",
    "sm_32_atomic_functions.hpp", "sm_32_intrinsics.h", "sm_32_intrinsics.hpp",
    "sm_35_atomic_functions.h", "sm_35_intrinsics.h", "sm_60_atomic_functions.h",
    "sm_60_atomic_functions.hpp", "sm_61_intrinsics.h", "sm_61_intrinsics.hpp",
    "surface_functions.h", "surface_indirect_functions.h", "surface_types.h",
    "texture_fetch_functions.h", "texture_indirect_functions.h", "texture_types.h",
    "vector_functions.h", "vector_functions.hpp", "vector_types.h",
    // The toolkit's host libraries: cuBLAS, cuFFT, cuRAND's host API,
    // cuSPARSE, cuSOLVER, NPP, NVRTC, NVTX, the profiler, NVML, nvJPEG.
    "cublas.h", "cublasLt.h", "cublasXt.h", "cublas_api.h", "cublas_v2.h",
    "cufft.h", "cufftXt.h", "cufftw.h", "cupti.h", "curand.h", "cusolverDn.h",
    "cusolverMg.h", "cusolverRf.h", "cusolverSp.h", "cusolver_common.h", "cusparse.h",
    "cusparse_v2.h", "fatbinary_section.h", "npp.h", "nppcore.h", "nppdefs.h", "nppi.h",
    "npps.h", "nvToolsExt.h", "nvToolsExtCuda.h", "nvToolsExtCudaRt.h", "nvblas.h",
    "nvjpeg.h", "nvml.h", "nvrtc.h", "nvtx3/nvToolsExt.h", "nvtx3/nvToolsExtCuda.h",
    "nvtx3/nvToolsExtCudaRt.h", "nvtx3/nvtx3.hpp", "nvvm.h",
];

/// Every header name kernelc provides (the ones it declines left out):
/// what `#include <name>` accepts with no file of that name on the path.
pub fn provided_headers() -> Vec<&'static str> {
    let mut names = vec![
        "cuda.h",
        "float.h",
        "cfloat",
        "stdint.h",
        "cstdint",
        "inttypes.h",
        "cinttypes",
        "math_constants.h",
    ];
    names.extend(KNOWN_EMPTY);
    names
}

/// A C++ standard named with nvcc's `-std=c++NN`. Without one, nvcc's
/// device pass sees GNU C++17 ([`PREDEFINED`]); with one, it sees the
/// strict dialect: `__cplusplus` of that standard, `__STRICT_ANSI__`, and
/// no `linux` or `unix` (the names outside the reserved space), as
/// `nvcc -E -Xcompiler -dM -std=c++NN` shows (`tests/predefined.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CxxStd {
    Cxx03,
    Cxx11,
    Cxx14,
    Cxx17,
    Cxx20,
}

impl CxxStd {
    /// The standard `-std=` names (`c++17`), as nvcc spells them; `None`
    /// for one nvcc does not accept.
    pub fn parse(name: &str) -> Option<CxxStd> {
        Some(match name {
            "c++03" => CxxStd::Cxx03,
            "c++11" => CxxStd::Cxx11,
            "c++14" => CxxStd::Cxx14,
            "c++17" => CxxStd::Cxx17,
            "c++20" => CxxStd::Cxx20,
            _ => return None,
        })
    }

    /// The value of `__cplusplus`.
    pub fn cplusplus(self) -> &'static str {
        match self {
            CxxStd::Cxx03 => "199711L",
            CxxStd::Cxx11 => "201103L",
            CxxStd::Cxx14 => "201402L",
            CxxStd::Cxx17 => "201703L",
            CxxStd::Cxx20 => "202002L",
        }
    }

    /// The predefined macros the strict dialect leaves out.
    pub(crate) fn leaves_out(name: &str) -> bool {
        name == "linux" || name == "unix"
    }
}
