//! Stable diagnostic codes (`error[E0001]: ...`) and their explanations
//! (`kernelc --explain E0001`).
//!
//! A code names a *kind* of mistake, so that a user can look it up and a
//! script can match on it while the wording of messages improves. The site
//! that makes a diagnostic names its code, and cannot make one without:
//! `Diagnostic::error(span, Code::E0004, ...)`, and the `error` helpers of
//! the lexer, preprocessor, parser, checker and lowering take a [`Code`]
//! the same way; a midend pass's diagnostic kind and a backend error kind
//! name theirs where the kind is defined (`DiagnosticKind::code`,
//! `IselErrorKind::code`). Each variant is spelled as it is printed, so
//! `grep -rn E0004` finds its entry here and every site that reports it.
//!
//! The codes live in `stdx`, not the frontend, because the midend and the
//! backend report diagnostics too and must not depend on the frontend; the
//! frontend re-exports this module as `frontend::codes`.
//!
//! [`CODES`] holds, for each code, its title and the text `--explain`
//! prints; `frontend/tests/warnings_and_codes.rs` checks that every code is
//! documented in `docs/diagnostics.md` and that every diagnostic the
//! frontend makes carries a code.

use std::fmt;

/// What `kernelc --explain` knows about one code: its title, and a
/// paragraph, an example and the fix.
pub struct CodeInfo {
    pub code: Code,
    pub title: &'static str,
    pub explanation: &'static str,
    pub example: &'static str,
    pub fix: &'static str,
}

/// Declares [`Code`], with one variant per entry (its doc comment is the
/// entry's title), and [`CODES`], the entries in order: one list, so a code
/// cannot exist without its explanation.
macro_rules! codes {
    ($($code:ident {
        title: $title:literal,
        explanation: $explanation:literal,
        example: $example:literal,
        fix: $fix:literal,
    },)*) => {
        /// A diagnostic's stable code. `E` codes are errors, `W` codes
        /// warnings; the title of each is its doc comment, its explanation
        /// in [`CODES`].
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Code {
            $(#[doc = $title] $code,)*
        }

        impl Code {
            /// The code as it is printed: `E0001`.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Code::$code => stringify!($code),)*
                }
            }
        }

        /// Every code with its explanation, warnings first.
        pub const CODES: &[CodeInfo] = &[
            $(CodeInfo {
                code: Code::$code,
                title: $title,
                explanation: $explanation,
                example: $example,
                fix: $fix,
            },)*
        ];
    };
}

codes! {
    W0001 {
        title: "unused variable",
        explanation: "A local variable is declared but never used. Often it is a leftover from an edit, or the result of a computation was stored in the wrong variable.",
        example: "__global__ void k(float *out) {\n    int i = threadIdx.x;\n    int unused = 2 * i;   // W0001\n    out[i] = 1.0f;\n}",
        fix: "Remove the variable, or use it. A name starting with `_` is exempt.",
    },
    W0002 {
        title: "implicit narrowing conversion",
        explanation: "A value is converted implicitly (in an initialization, assignment, argument or `return`) to a type that cannot hold it exactly: a floating value to an integer (the fraction is dropped), a `double` to a `float` (precision is lost), or an integer constant to a type too narrow for it (it wraps).",
        example: "int i = 3.5;       // becomes 3\nfloat f = d;       // d is a double\nchar c = 300;      // becomes 44",
        fix: "Write the conversion as a cast when it is intended (`int i = (int)x;`), or change the variable's type.",
    },
    W0003 {
        title: "comparison of signed and unsigned integers",
        explanation: "A comparison mixes a signed and an unsigned integer. C converts the signed operand to unsigned, so a negative value compares as a huge number: `-1 < 1u` is false.",
        example: "__global__ void k(float *x, unsigned n) {\n    int i = threadIdx.x - 1;\n    if (i < n) x[i] = 0;   // W0003: i == -1 passes as 4294967295\n}",
        fix: "Make both operands the same signedness, e.g. `if (i >= 0 && (unsigned)i < n)` or declare `n` as `int`.",
    },
    W0004 {
        title: "preprocessor warning",
        explanation: "A `#warning` directive: its text is shown, and compilation goes on.",
        example: "#warning this path is slow   // W0004",
        fix: "Nothing to fix: the warning is the file's author speaking. `-w` silences warnings.",
    },
    W0005 {
        title: "narrowing conversion in a brace initializer",
        explanation: "A value in a C++ brace initializer (`int x{f};`, `S s{a, b};`, `float v[2] = {i, j};`) is converted to a type that cannot hold every value of its own type, and it is not a constant that fits. Standard C++ rejects such a narrowing conversion; nvcc warns (#2361-D), and so does kernelc. W0002 reports the cases that lose information in any initializer (a fraction, a constant that does not fit).",
        example: "__global__ void k(float *o, int i) {\n    float f{i};   // W0005: int to float may round\n    o[0] = f;\n}",
        fix: "Convert explicitly (`float f{(float)i};`), or use `=` instead of braces if the conversion is intended.",
    },
    W0006 {
        title: "unknown `#pragma` in device code",
        explanation: "A `#pragma` that kernelc does not act on (it knows `#pragma unroll` and `#pragma once`) stands inside a kernel or device function, and is ignored. nvcc warns the same way (#20199-D). Pragmas outside device code (`#pragma omp` in host code, `#pragma GCC diagnostic` at file scope) belong to the host compiler and are ignored silently, as in nvcc.",
        example: "__global__ void k(float *o) {\n#pragma GCC ivdep      // W0006: ignored\n    o[0] = 1;\n}",
        fix: "Remove the pragma, or use `#pragma unroll`, which kernelc and nvcc act on.",
    },
    E0001 {
        title: "use of an undeclared identifier",
        explanation: "A name is used that no declaration before it introduces: a typo, a variable used outside its scope, a function called before its definition or prototype, or a type that kernelc does not know.",
        example: "__global__ void k(float *out) {\n    out[threadIdx.x] = scale * 2.0f;   // E0001: `scale` is not declared\n}",
        fix: "Declare the name before its use (for functions, add a prototype above the caller), or correct the spelling.",
    },
    E0002 {
        title: "not supported by kernelc",
        explanation: "The construct is valid CUDA, but outside the subset kernelc compiles (see docs/language.md). The message says what is missing; \"yet\" means it is planned.",
        example: "union U { int i; float f; };   // E0002",
        fix: "Rewrite the code with supported constructs (e.g. pointer casts instead of a union), or compile this file with nvcc.",
    },
    E0003 {
        title: "syntax error",
        explanation: "The parser found a token where the grammar does not allow it, most often a missing `;`, `)` or `}`. The parser skips to the next statement and keeps going, so later errors may be consequences of the first one.",
        example: "__global__ void k(int *p) {\n    p[0] = 1     // E0003: expected `;`\n    p[1] = 2;\n}",
        fix: "Insert or remove the token the message names; fix the first error first.",
    },
    E0004 {
        title: "type mismatch",
        explanation: "An operand or value has a type the operation does not accept: a struct where a number is needed, a pointer converted to an unrelated pointer, a `void` value used, an initializer that does not fit the object.",
        example: "struct P { float x; };\n__global__ void k(float *o, P *p) {\n    o[0] = p[0] + 1.0f;   // E0004: `P` is not a number\n}",
        fix: "Use the member or element you meant (`p[0].x + 1.0f`), or convert explicitly with a cast where C allows it.",
    },
    E0005 {
        title: "assignment to a read-only object",
        explanation: "The program writes to something that may not be written: a `const` variable, memory reached through a pointer to `const`, a `__constant__` variable (read-only on the device), a built-in index such as `threadIdx.x`, or a value that is not an object at all.",
        example: "__global__ void k(const float *in) {\n    in[0] = 1.0f;   // E0005\n}",
        fix: "Write to a non-`const` object; drop `const` from the declaration if the write is intended; fill `__constant__` memory from the host.",
    },
    E0006 {
        title: "redefinition or conflicting declaration",
        explanation: "A name, member, `case` value or `default` label is declared twice in the same scope, or two declarations of one function disagree. kernelc does not support overloading.",
        example: "__device__ int f(int x);\n__device__ float f(float x) { return x; }   // E0006",
        fix: "Rename one of them, or make the declarations agree.",
    },
    E0007 {
        title: "invalid function call",
        explanation: "A call does not match the function: the wrong number of arguments, arguments no overload of a built-in accepts, a call to something that is not a function, a kernel called from device code, or a function that is declared but never defined.",
        example: "__device__ int add(int a, int b) { return a + b; }\n__global__ void k(int *o) { o[0] = add(1); }   // E0007",
        fix: "Pass the arguments the declaration lists (the message shows it), define the function, or launch kernels from the host.",
    },
    E0008 {
        title: "invalid struct member access",
        explanation: "A `.` or `->` does not fit its operand: `.` needs a struct and `->` a pointer to one, and the member must exist. Struct definitions must be complete before use.",
        example: "struct P { float x, y; };\n__global__ void k(P *p) {\n    p.x = 0;    // E0008: `p` is a pointer, use `p->x`\n}",
        fix: "Use `->` on pointers and `.` on structs, and check the member's name against the definition.",
    },
    E0009 {
        title: "constant expression required",
        explanation: "Array sizes, `case` values, enumerators, `#pragma unroll` counts, `__launch_bounds__` arguments and the initializers of module variables must be integer (or, for initializers, arithmetic) constants known at compile time. A pointer in a module variable's initializer must be an address the loader can give: of a `__device__` or `__constant__` variable (not of a `__shared__` one, which each block has its own of, nor of a local), a device function or a string literal, plus a constant offset that does not go before the object.",
        example: "__global__ void k(int n) {\n    float buf[n];   // E0009: variable-length arrays are not C++\n}",
        fix: "Use a literal, a `#define`, an enumerator or a `const int` with a constant initializer.",
    },
    E0010 {
        title: "preprocessor or lexical error",
        explanation: "The text could not be turned into tokens: an invalid character or number, an unterminated comment or literal, a malformed `#define`, a conditional without its `#endif`, or an `#error` directive that was reached.",
        example: "#if __CUDA_ARCH__ < 700\n#error this kernel needs sm_70   // E0010 when compiled for sm_60\n#endif",
        fix: "Correct the directive or literal; for `#error`, compile for the configuration it expects.",
    },
    E0011 {
        title: "misplaced statement",
        explanation: "A statement appears where it has no meaning: `break` or `continue` outside a loop, `case` outside a `switch`, `return` without a value in a non-void function, or with one in a `void` function; or a `goto` names a label the function does not define, or jumps into the scope of a variable past its initialization (C++ forbids it, and nvcc rejects it).",
        example: "__device__ int f(int x) {\n    if (x) return;   // E0011: f must return an int\n    return 1;\n}",
        fix: "Move the statement into the construct it belongs to, or make the `return` match the function's type.",
    },
    E0012 {
        title: "invalid kernel or function declaration",
        explanation: "A declaration breaks CUDA's rules for functions and memory spaces: kernels (`__global__`) return `void` and are not `__device__`, device code is marked `__global__` or `__device__`, file-scope variables live in `__device__`, `__constant__` or `__shared__` memory, and `__shared__` variables have no initializer.",
        example: "__global__ int k(int *p) { return 0; }   // E0012: kernels return void",
        fix: "Follow the rule the message names: return results through a pointer parameter, add the memory-space specifier, initialize `__shared__` memory in the kernel.",
    },
    E0013 {
        title: "static assertion failed",
        explanation: "The condition of a `static_assert` evaluated to zero at compile time. The message after the comma, if any, is shown; it usually says what the code assumes (a struct's size, the width of a type).",
        example: "struct P { float x, y, z; };\nstatic_assert(sizeof(P) == 16, \"P must be 16 bytes\");   // E0013: it is 12",
        fix: "Make the assumption true (add padding, `__align__(16)`), or correct the assertion.",
    },
    E0014 {
        title: "nesting is too deep",
        explanation: "The source nests more than 1,048,576 (2^20) levels deep: parentheses, blocks, statement bodies, unary operators, casts, braced initializers and `#if` expressions each open a level. nvcc parses a million nested parentheses, and so does kernelc; nothing written by hand comes near, so the input is most likely generated with a bug (a missing `)`, a runaway template). Flat chains are not nesting: a sum of a million terms, an `else if` chain or a `?:` chain of any length, and a million statements in a row compile. Only the declaration that nests too deeply is skipped: one error is reported, and the rest of the file is still checked. Macro expansion has a limit of its own, 20,000 levels of macros expanding macros (nvcc expands 1,000 at once and runs for minutes on 10,000), and `#include` one of 200 files deep (GCC's), which is what a header that includes itself without `#pragma once` or a guard reaches.",
        example: "x = ((((((((( ... 1 ... )))))))));   // E0014: more than 2^20 `(`",
        fix: "Generate flatter code: give intermediate results names (`float t1 = a + b; float t2 = t1 * c;`), or split the expression into statements.",
    },
    E0015 {
        title: "too many errors",
        explanation: "The file has more errors than the error limit (100 by default, as nvcc's): kernelc stops reporting, and stops reading the file, after that many, so that a file of garbage or in the wrong language ends quickly with a short report instead of millions of lines. The first errors are the useful ones; later ones are often consequences of them.",
        example: "kernelc notes.txt          # E0015 after the first 100 errors\nkernelc --error-limit 5 k.cu   # stop after 5",
        fix: "Fix the first errors and compile again. `--error-limit N` (also `-ferror-limit=N`) changes the limit; `0` removes it.",
    },
    E0016 {
        title: "include file not found",
        explanation: "An `#include` (or `#include_next`, or `-include` on the command line) names a file that is neither on the include path nor one of kernelc's own headers, or one that is there but cannot be read. `#include \"x.h\"` looks in the folder of the file that includes it, then in each `-I` folder in order, then among kernelc's headers (every C and C++ standard header, the CUDA toolkit's, docs/language.md); `#include <x.h>` skips the first folder. The note lists the paths tried; an error inside an included file ends with the chain of includes that led there.",
        example: "#include \"common.h\"   // E0016: not next to this file, and no -I folder holds it",
        fix: "Give the folder that holds the file with `-I DIR` (as the program's build gives it to nvcc), or correct the name.",
    },
    E0017 {
        title: "device code uses a host declaration",
        explanation: "A kernel or `__device__` function calls a host function or reads a host variable. In a `.cu` file a function without `__device__` or `__global__` (or with `__host__` alone) is compiled for the CPU only, and a file-scope variable without `__device__`, `__constant__` or `__shared__` lives in the CPU's memory: the GPU can reach neither. kernelc skips host code, as nvcc's device pass does, and says which declaration device code needed and where it is. A `constexpr` function without `__device__` is host code too: device code may call it only under `--expt-relaxed-constexpr`, as nvcc says, while a file-scope `static_assert` or constant may always use it.",
        example: "float scale(float x) { return 2 * x; }        // host only\nint counter;                                  // host memory\n__global__ void k(float *p) {\n    p[0] = scale(p[0]) + counter;             // E0017 twice\n}",
        fix: "Mark the function `__host__ __device__` (both sides) or `__device__` (GPU only); declare the variable `__device__` or `__constant__` and copy to it with `cudaMemcpyToSymbol`, or pass the value as a kernel argument. A `const` integer or `constexpr` scalar with a constant value may be read directly.",
    },
    E0018 {
        title: "default argument missing",
        explanation: "A parameter with a default argument (`float s = 1.0f`) may only be followed by parameters that have one too, since a call leaves out arguments from the end only; and a call may only leave out the parameters that have a default (then the default is passed, as in C++).",
        example: "__device__ float f(float x, float s = 1.0f, int n);   // E0018: `n` has no default\n__device__ float g(float x, float s = 1.0f);\ng();   // E0018: `x` has no default",
        fix: "Give every parameter after the first defaulted one a default (or move the defaulted ones to the end), and pass every argument that has no default.",
    },
    E0019 {
        title: "template instantiation failed",
        explanation: "A function template is instantiated where it is used: a call in device code (its arguments written, `f<float>(x)`, or deduced from the call's arguments, `f(x)`), an explicit instantiation, or a launch or other use in host code (`k<256><<<g, b>>>(...)`, or `k<<<g, b>>>(d_x, n)` with the arguments deduced from the types of the launch's arguments, which kernelc reads from the host code: host variables' declarations, casts, literals and arithmetic on them). This error says an instantiation could not be made: an argument could not be deduced or evaluated to a constant, the type of a host launch's argument that deduction needs could not be found (a lambda, a host function's result, a host-only type), deduction found two different types for one parameter, there are more arguments than parameters, or instantiations nest deeper than the limit (a template that instantiates itself without end). An error inside an instantiation's body keeps its own code and gets a note naming the instantiation.",
        example: "template <class T> __device__ T twice(T a, T b);\ntwice(1, 2.0f);   // E0019: `T` deduced as both `int` and `float`",
        fix: "Write the template arguments the deduction cannot find (`twice<float>(1, 2.0f)`), make host-code arguments constants kernelc can read (a literal, a `const`/`constexpr` variable, or a parameter of an enclosing host template called with written arguments), write the template arguments of a host launch whose arguments kernelc cannot type (`k<float><<<g, b>>>(f(), n)`), and give a recursive template a base case.",
    },
    E0021 {
        title: "ambiguous name",
        explanation: "An unqualified name finds two different entities at the same level of lookup. Most often two `using namespace` directives each make a namespace's members visible, and both namespaces declare the name; a name declared in the current namespace and one made visible there by a directive clash the same way. C++ does not choose between them, and neither does kernelc: the error lists each declaration.",
        example: "namespace a { __device__ int scale = 2; }\nnamespace b { __device__ int scale = 3; }\nusing namespace a;\nusing namespace b;\n__global__ void k(int *o) { *o = scale; }   // E0021: `a::scale` or `b::scale`",
        fix: "Qualify the name (`a::scale`), or add a `using` declaration (`using a::scale;`) where it is used, or drop one of the directives.",
    },
    E0022 {
        title: "scoped enumeration used as a number",
        explanation: "A scoped enumeration (`enum class`) is a type of its own: its enumerators are named `E::A`, and neither they nor a variable of the type convert implicitly to an integer, a floating type or `bool` (C++ [dcl.enum]), as nvcc says too. An explicit cast converts one, a `switch` may test it against its enumerators, and `==`, `<`, ... compare two values of the same enumeration.",
        example: "enum class Mode : int { Add, Mul };\n__device__ int f(Mode m) { return m + 1; }   // E0022",
        fix: "Convert explicitly (`static_cast<int>(m)`, `(int)m`), or compare with an enumerator of the same type (`m == Mode::Add`).",
    },
    E0023 {
        title: "ambiguous half-precision operation",
        explanation: "`__half` and `__nv_bfloat16` are classes in CUDA's headers: they convert to `float` and from every arithmetic type, and they have their own operators. An operator with a half-precision operand and an operand of another arithmetic type (`h + 1.0f`, `h < 0`) therefore matches both the half operator (converting the number) and the built-in one (converting the half), and nvcc rejects it as ambiguous; kernelc does too. So does a half-precision function called with operands of both formats.",
        example: "__half h = __float2half(x);
float y = h * 2.0f;   // E0023: `__half * float` is ambiguous",
        fix: "Say which arithmetic is meant: `__half2float(h) * 2.0f` for float arithmetic, `h * __float2half(2.0f)` for half arithmetic. A compound assignment (`h *= 2.0f`) is not ambiguous: the right side is converted to the left side's type.",
    },
    E0024 {
        title: "lambda not allowed here",
        explanation: "nvcc restricts lambdas where device code meets host code, and kernelc follows it. A lambda annotated `__device__` or `__host__ __device__` (an *extended* lambda, which host code may pass to a kernel) needs `--extended-lambda` (or `--expt-extended-lambda`); an extended `__device__` lambda cannot capture variables by reference, since the kernel may run after the host function's variables are gone; and the closure type of a lambda written in host code without an annotation cannot be a kernel template's argument (its call operator is host code). A lambda cannot be `__global__`.",
        example: "int main() {\n    float s = 2;\n    k<<<1, 1>>>(d, [&] __device__ (float x) { return s * x; });   // E0024\n}",
        fix: "Compile with `--extended-lambda`; capture by copy (`[=]`, `[s]`); annotate the lambda `__device__` (or `__host__ __device__`) when a launch passes it.",
    },
    E0025 {
        title: "texture or surface function misused",
        explanation: "CUDA's texture fetch functions (`tex1Dfetch`, `tex1D`, `tex2D`, `tex3D`, the layered, level and gradient forms) and surface functions (`surf1Dread` ... `surf3Dwrite`) are templates over the element type they return or move. A fetch needs that type written (`tex2D<float>`) or a pointer to the result as its first argument; a texture's elements are `float`, 8- to 32-bit integers, or their vectors of 1, 2 or 4. A surface's elements are `float`, 8- to 64-bit integers, or their vectors of at most 16 bytes (not `double`). A surface access's boundary mode is written into the PTX instruction, so it must be a constant.",
        example: "float v = tex2D(tex, x, y);                        // E0025: which element type?\nsurf2Dwrite(1.0, surf, x * 8, y);                  // E0025: `double` elements\nsurf2Dwrite(v, surf, x * 4, y, mode);              // E0025: a run-time mode",
        fix: "Write the element type (`tex2D<float>(tex, x, y)`), write a supported element type, and pass `cudaBoundaryModeTrap`, `cudaBoundaryModeClamp` or `cudaBoundaryModeZero` as the mode.",
    },
    E0026 {
        title: "inline PTX (`asm`) misused",
        explanation: "An `asm` statement's operands say which register class each value lives in: `h` (16-bit integer), `r` (32-bit integer), `l` (64-bit integer or pointer), `f` (`float`), `d` (`double`), or `n`, an integer constant written into the template. An output's constraint starts with `=` (written) or `+` (read and written) and its operand is a writable lvalue of the register's size; an input converts to the register's type. The template names operands `%0`, `%1`, ... (outputs first, then inputs) and writes a literal `%` as `%%`.",
        example: "asm(\"mov.u32 %0, %%laneid;\" : \"r\"(lane));        // E0026: an output needs `=r`\nasm(\"add.u32 %0, %1, %2;\" : \"=r\"(r) : \"r\"(x));   // E0026: `%2` names no operand",
        fix: "Write the constraint of the operand's size (`=r` for `unsigned`, `=l` for a pointer or `long long`, `=f` for `float`), number operands from 0 with the outputs first, and double a literal `%`.",
    },
    E0027 {
        title: "memory-space error",
        explanation: "Memory-space inference (docs/memspace.md) proved where a pointer points, and the operation using it cannot work there: an atomic on a local variable (each thread has its own copy, so nothing is shared) or on `__constant__` memory (read-only), `atomicAdd` on `float2`/`float4` outside global memory, a WMMA tile in local or constant memory, an `mbarrier` or `cp.async` operand that is not shared memory, or one pointer that two operations need in two different spaces. The labels show where the space was proved.",
        example: "__global__ void k(int *out) {\n    int count = 0;\n    atomicAdd(&count, 1);   // E0027: Cannot do atomic on local memory\n    out[0] = count;\n}",
        fix: "Point the operation at memory of the space it needs: a `__shared__` or global counter for atomics, a `__shared__` buffer for `mbarrier` and `cp.async`, separate pointers where two operations need two spaces.",
    },
    E0028 {
        title: "`__restrict__` inside a struct parameter",
        explanation: "A kernel or function takes a struct by value that holds a `__restrict__` pointer. nvcc rejects it (\"function contains restrict keyword in struct\"), and so does kernelc: a restrict promise belongs to a parameter, where the compiler can see the whole scope it holds for.",
        example: "struct Args { float *__restrict__ x; };\n__global__ void k(Args a) { a.x[0] = 1; }   // E0028",
        fix: "Pass the pointer as a `__restrict__` parameter of its own, or drop `__restrict__` from the member.",
    },
    E0029 {
        title: "the target GPU lacks the operation",
        explanation: "The code uses an instruction the GPU architecture chosen with `-arch` does not have: `cp.async` and `bf16` arithmetic need sm_80, `atomicAdd` on `float2`/`float4` and clusters sm_90, `wgmma` sm_90a. The message names the operation and the first architecture that has it; the error is at the call.",
        example: "// kernelc -arch=sm_75\n__global__ void k(float2 *p) { atomicAdd(p, make_float2(1, 2)); }   // E0029: needs sm_90",
        fix: "Compile for an architecture that has the operation (`-arch=sm_90`), or guard the code with `#if __CUDA_ARCH__ >= 900`.",
    },
    E0099 {
        title: "other semantic error",
        explanation: "A semantic error without a more specific code. The message says what is wrong.",
        example: "(see the message)",
        fix: "Follow the message and its notes.",
    },
    W0007 {
        title: "generic access left in a kernel",
        explanation: "Asked for with `-Wgeneric`: after memory-space inference a load, store or atomic in a kernel still goes through a generic pointer, because the pointer may point to more than one space (the labels show where the spaces meet). A generic access costs an address translation that a global or shared one does not.",
        example: "__global__ void k(int *o, bool b) {\n    __shared__ int s[4];\n    int *p = b ? s : o;\n    atomicAdd(p, 1);   // W0007 under -Wgeneric\n}",
        fix: "Keep shared and global pointers apart (two code paths, two pointers), or ignore the warning where the generic access is intended.",
    },
    W0008 {
        title: "pointer's space unknown, assumed global",
        explanation: "Under `--memspace-assume-global`, an access whose pointer's space memory-space inference could not prove is compiled as a global access. The warning shows each such access, since the assumption is wrong (and the access faults) if the pointer points to shared or local memory.",
        example: "// kernelc --memspace-assume-global\n__device__ int get(int *p) { return *p; }   // W0008 when a caller's pointer is unknown",
        fix: "Check that every pointer named is global; otherwise drop the flag.",
    },
    W0009 {
        title: "template library used by host code only",
        explanation: "The program includes a header of Thrust or CUB, C++ template libraries whose headers kernelc does not read. Host code may use them, since kernelc skips host code. But when host code calls one of their algorithms (`thrust::transform`, `thrust::reduce`, a `thrust::device_vector`'s constructor, `cub::DeviceReduce::Sum`), nvcc instantiates the library's kernels for it, and its PTX holds them; kernelc's PTX holds the program's own kernels only. Device code that names the library is an error (E0002) where it does.",
        example: "#include <thrust/device_vector.h>   // W0009\n__global__ void scale(float *p, float s) { p[threadIdx.x] *= s; }\nint main() { thrust::device_vector<float> v(256, 1.0f); scale<<<1, 256>>>(thrust::raw_pointer_cast(v.data()), 2.0f); }",
        fix: "Nothing, when only the program's own kernels are needed from kernelc's PTX; compile with nvcc when the library's kernels are needed too. `-w` silences the warning.",
    },
    W0010 {
        title: "kernel instance behind host code kernelc cannot follow",
        explanation: "Host code asks for a kernel template's instance through host function templates whose template arguments a call deduces (`template <class C> void sortWith(T *d, C c) { k<<<g, b>>>(d, c); }` called as `sortWith(d, makeLess())`), and kernelc cannot read or type an argument on the way (here the value a host function returns). nvcc instantiates the kernel; kernelc's PTX lacks it. The warning is at the host code that leads to the launch.",
        example: "template <class T> __global__ void k(T *d) { d[0] = 1; }\nint pick();\ntemplate <class T> void run(T v) { k<<<1, 1>>>((T *)0); }\nint main() { run(pick()); }   // W0010",
        fix: "Write the template arguments out where kernelc stops (`run<int>(pick())`, `k<float><<<g, b>>>(...)`), or instantiate the kernel explicitly (`template __global__ void k<int>(int *);`).",
    },
    W0099 {
        title: "other warning",
        explanation: "A warning without a more specific code, for example a `#pragma unroll` that is not followed by a loop and is therefore ignored.",
        example: "#pragma unroll\nx = 1;   // W0099: not a loop",
        fix: "Follow the message; `-w` silences warnings, `-Werror` makes them errors.",
    },
}

impl Code {
    /// The entry of this code in [`CODES`].
    pub fn info(self) -> &'static CodeInfo {
        CODES
            .iter()
            .find(|c| c.code == self)
            .expect("`codes!` makes an entry for every variant")
    }

    /// Whether this is a warning's code (`W`) rather than an error's (`E`).
    pub fn is_warning(self) -> bool {
        self.as_str().starts_with('W')
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The entry of `code` (`E0001`, case-insensitive), if it exists.
pub fn lookup(code: &str) -> Option<&'static CodeInfo> {
    CODES
        .iter()
        .find(|c| c.code.as_str().eq_ignore_ascii_case(code))
}

/// The text `kernelc --explain CODE` prints.
pub fn explain(code: &str) -> Option<String> {
    let c = lookup(code)?;
    Some(format!(
        "{}: {}\n\n{}\n\nExample:\n\n{}\n\nFix: {}\n",
        c.code,
        c.title,
        c.explanation,
        indent(c.example),
        c.fix
    ))
}

fn indent(text: &str) -> String {
    text.lines()
        .map(|l| format!("    {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}
