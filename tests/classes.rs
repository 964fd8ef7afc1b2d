//! Classes in device code (issue 26): member functions, constructors,
//! `this`, static members, operators, references returned, functors.
//! `tests/fixtures/classes/classes.cu` compiled by kernelc and by nvcc
//! gives the same Itanium names to the functions it keeps out of line and
//! the same buffers on the emulator; the errors name what is wrong.

mod common;

// `run`: a launch over 64 threads on the emulator; `both_ptx`: a fixture
// through kernelc and nvcc (both assembled by ptxas).
use common::{
    emu_buffers as run, fixture_ptx_and_nvcc as both_ptx, kernelc, scratch, stderr,
    words_i32 as words,
};
use std::path::{Path, PathBuf};

fn fixture() -> PathBuf {
    common::root().join("tests/fixtures/classes/classes.cu")
}

/// `shade` of classes.cu, and its arguments for 64 threads.
const SHADE: (&str, &[&str]) = (
    "_Z5shadePKfPfPii",
    &[
        "f32[]:rand:192:3",
        "f32[]:zeros:512",
        "i32[]:zeros:128",
        "i32:64",
    ],
);

/// `k` of unions.cu, and its arguments for 64 threads.
const UNIONS: (&str, &[&str]) = (
    "_Z1kPKfPjPfi",
    &[
        "f32[]:rand:64:3",
        "u32[]:zeros:192",
        "f32[]:zeros:64",
        "i32:64",
    ],
);

/// `packSums` of templates.cu for each element type, and its arguments
/// for 32 threads (each reads a pack of 16 bytes; the box is one element
/// and an `int`).
const PACK_SUMS: [(&str, &[&str]); 3] = [
    (
        "_Z8packSumsIfEvPKT_PS0_P3BoxIS0_E",
        &["f32[]:rand:128:3", "f32[]:zeros:32", "f32[]:rand:2:5"],
    ),
    (
        "_Z8packSumsIdEvPKT_PS0_P3BoxIS0_E",
        &["f64[]:rand:64:3", "f64[]:zeros:32", "f64[]:rand:2:5"],
    ),
    (
        "_Z8packSumsIiEvPKT_PS0_P3BoxIS0_E",
        &["i32[]:rand:128:3", "i32[]:zeros:32", "i32[]:rand:2:5"],
    ),
];

/// The `.func` names of a PTX file.
fn functions(ptx: &str) -> Vec<String> {
    let mut names: Vec<String> = ptx
        .lines()
        .filter_map(|l| l.split(".func").nth(1))
        .filter_map(|rest| {
            let at = rest.find("_Z")?;
            let name = rest[at..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            Some(name)
        })
        .collect();
    names.sort();
    names.dedup();
    names
}

#[test]
fn classes_compute_what_nvcc_computes() {
    let dir = scratch("classes");
    let (text, theirs_ptx) = both_ptx(&fixture(), &dir);
    // A const member function (K), a member operator taking a reference
    // to its own class (S_), a function operator (`ml`).
    let ours = functions(&text);
    for name in ["_ZNK4Vec33dotERKS_", "_ZNK7Counter5valueEv", "_ZmlfRK4Vec3"] {
        assert!(ours.iter().any(|n| n == name), "{name} missing: {ours:?}");
    }
    let results = run(&dir.join("kernelc.ptx"), SHADE, &dir.join("ours"));
    let Some(theirs_ptx) = theirs_ptx else {
        return;
    };
    let theirs = std::fs::read_to_string(&theirs_ptx).unwrap();
    assert_eq!(ours, functions(&theirs), "the out-of-line functions' names");
    assert_eq!(results, run(&theirs_ptx, SHADE, &dir.join("theirs")));
}

#[test]
fn class_templates_compute_what_nvcc_computes() {
    let dir = scratch("class-templates");
    let fixture = common::root().join("tests/fixtures/classes/templates.cu");
    let (text, theirs_ptx) = both_ptx(&fixture, &dir);
    // Members of instances (a namespace's template with a value
    // argument, `const`), a conversion function (`cv`), and a function
    // template deduced through an instance (`T0_` as an expression).
    let ours = functions(&text);
    for name in [
        "_ZNK2pk4PackIfLi4EE3sumEv",
        "_ZNK2pk4PackIdLi2EEplERKS1_",
        "_Z5totalIiLi4EET_RKN2pk4PackIS0_XT0_EEEP3BoxIS0_E",
    ] {
        assert!(ours.iter().any(|n| n == name), "{name} missing: {ours:?}");
    }
    let shared = ["--shared-bytes", "256"];
    let mut results = Vec::new();
    for (i, k) in PACK_SUMS.iter().enumerate() {
        let out = dir.join(format!("ours{i}"));
        results.push(common::emu_buffers_with(
            &dir.join("kernelc.ptx"),
            *k,
            &out,
            &shared,
        ));
    }
    // The box's tag is the pack's size, which only the first thread writes.
    let tag = |buf: &[u8], at: usize| i32::from_le_bytes(buf[at..at + 4].try_into().unwrap());
    assert_eq!(tag(&results[0][1], 4), 4, "Pack<float>::size");
    assert_eq!(tag(&results[1][1], 8), 2, "Pack<double>::size");
    let Some(theirs_ptx) = theirs_ptx else {
        return;
    };
    let theirs = std::fs::read_to_string(&theirs_ptx).unwrap();
    assert_eq!(ours, functions(&theirs), "the out-of-line functions' names");
    for (i, k) in PACK_SUMS.iter().enumerate() {
        let out = dir.join(format!("theirs{i}"));
        assert_eq!(
            results[i],
            common::emu_buffers_with(&theirs_ptx, *k, &out, &shared),
            "{}",
            k.0
        );
    }
}

#[test]
fn unions_compute_what_nvcc_computes() {
    let dir = scratch("unions");
    let fixture = common::root().join("tests/fixtures/classes/unions.cu");
    let (_, theirs_ptx) = both_ptx(&fixture, &dir);
    let ours = run(&dir.join("kernelc.ptx"), UNIONS, &dir.join("ours"));
    // The bits of the float, read through the union's other member.
    let bits: Vec<u32> = ours[0]
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_ne!(bits[0], 0, "a union member reads what another wrote");
    let Some(theirs_ptx) = theirs_ptx else {
        return;
    };
    assert_eq!(ours, run(&theirs_ptx, UNIONS, &dir.join("theirs")));
}

/// Anonymous unions and structs among a class's members (GGML's
/// `block_q4_1`: `union { struct { half d, m; }; half2 dm; };`): their
/// members are named as the class's own, at nvcc's offsets, and compute
/// what nvcc's PTX computes.
#[test]
fn anonymous_union_and_struct_members_are_the_classs_own() {
    let dir = scratch("anonymous-members");
    let fixture = common::root().join("tests/fixtures/classes/anonymous_members.cu");
    // cuda_fp16.h includes CCCL's <nv/target>.
    let cccl =
        common::cuda_headers_or_skip().map(|h| vec![format!("-I{}", h.join("cccl").display())]);
    let theirs_ptx = match cccl {
        Some(flags) => common::fixture_ptx_and_nvcc_with(&fixture, &dir, &flags).1,
        None => {
            common::fixture_ptx(&fixture, &dir);
            None
        }
    };
    let kernel: (&str, &[&str]) = (
        "_Z1kPKfPfPi",
        &["f32[]:rand:128:3", "f32[]:zeros:256", "i32[]:zeros:4"],
    );
    let ours = run(&dir.join("kernelc.ptx"), kernel, &dir.join("ours"));
    let sizes: Vec<i32> = ours[1]
        .chunks(4)
        .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(
        sizes,
        [20, 16, 16, 8],
        "sizeof BlockQ41, Vec3, Outer; alignof Outer"
    );
    let Some(theirs_ptx) = theirs_ptx else {
        return;
    };
    assert_eq!(ours, run(&theirs_ptx, kernel, &dir.join("theirs")));
}

/// Static member functions of class template instances called as
/// statements (`Store<N, T>::put(out, v);` in a function template, a
/// partial and an explicit specialization, `Twice<Box<double>>::add`)
/// are expression statements: they compute what nvcc's PTX computes.
#[test]
fn static_member_calls_of_instances_are_statements() {
    let dir = scratch("static-member-calls");
    let fixture = common::root().join("tests/fixtures/classes/static_calls.cu");
    let (_, theirs_ptx) = both_ptx(&fixture, &dir);
    let kernel: (&str, &[&str]) = (
        "_Z10statementsPKfPfPiS2_",
        &[
            "f32[]:rand:128:7",
            "f32[]:zeros:192",
            "i32[]:zeros:64",
            "i32[]:zeros:64",
        ],
    );
    let ours = run(&dir.join("kernelc.ptx"), kernel, &dir.join("ours"));
    // Thread 5 counted 5, then added 2 * 3 and sizeof(Box<double>).
    let count = |at: usize| i32::from_le_bytes(ours[2][4 * at..4 * at + 4].try_into().unwrap());
    assert_eq!(count(5), 5 + 6 + 8);
    let Some(theirs_ptx) = theirs_ptx else {
        return;
    };
    assert_eq!(ours, run(&theirs_ptx, kernel, &dir.join("theirs")));
}

/// Compiles `source`: it must fail with `code`, exit 1 and write nothing;
/// its stderr.
fn rejected(source: &str, code: &str) -> String {
    common::rejected_with("class-errors", source, code)
}

#[test]
fn misuses_of_classes_are_located_errors() {
    let s = "struct S { int v; __device__ void bump() { ++v; } __device__ int get() const { return v; } };\n";
    let err = rejected(
        &format!("{s}__global__ void k(const S *p, int *o) {{ p->bump(); o[0] = p->get(); }}\n"),
        "E0005",
    );
    assert!(err.contains("non-`const` member function"), "{err}");
    let err = rejected(
        &format!("{s}__global__ void k(S s, int *o) {{ o[0] = s.size(); }}\n"),
        "E0008",
    );
    assert!(
        err.contains("no member function named `size` in `S`"),
        "{err}"
    );
    let err = rejected(
        &format!("{s}__global__ void k(S s, int *o) {{ o[0] = s.v(); }}\n"),
        "E0008",
    );
    assert!(err.contains("`v` is a data member"), "{err}");
    // A virtual function, even a host one, gives objects a hidden
    // pointer kernelc does not lay out.
    for v in [
        "__device__ virtual int f() { return 1; }",
        "virtual ~V() {}",
    ] {
        let err = rejected(
            &format!("struct V {{ int a; {v} }};\n__global__ void k(V *p) {{ p->a = 1; }}\n"),
            "E0002",
        );
        assert!(err.contains("virtual functions"), "{err}");
    }
    let err = rejected("__global__ void k(int *o) { o[0] = this == 0; }\n", "E0001");
    assert!(err.contains("`this` is only valid inside"), "{err}");
    // No constructor takes two values: C++'s overload error, with the
    // candidates.
    let err = rejected(
        "struct P { int a; __device__ P(int x) : a(x) {} };\n\
         __global__ void k(int *o) { P p(1, 2); o[0] = p.a; }\n",
        "E0007",
    );
    assert!(err.contains("P::P"), "{err}");
}

#[test]
fn host_member_functions_are_skipped() {
    // A class that device code uses may have host-only members, with any
    // C++ in their bodies: they are host code and never compiled.
    let dir = scratch("class-host");
    let src = dir.join("h.cu");
    std::fs::write(
        &src,
        "#include <vector>\n\
         struct Grid {\n\
           int n;\n\
           std::vector<float> hostCopy() const { return std::vector<float>(n); }\n\
           __device__ int cells() const { return n * n; }\n\
         };\n\
         __global__ void k(Grid g, int *o) { o[0] = g.cells(); }\n",
    )
    .unwrap();
    let ptx = dir.join("h.ptx");
    let o = kernelc(&[src.to_str().unwrap(), "-o", ptx.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn host_member_templates_launch_kernel_templates() {
    // A host class's member function template launching a kernel template
    // of its namespace, unqualified: the instance is nvcc's.
    let dir = scratch("class-host-templates");
    let src = dir.join("m.cu");
    std::fs::write(
        &src,
        "namespace n {\n\
         template <class T> __global__ void k(T *p) { p[0] = T(1); }\n\
         class Runner {\n\
         public:\n\
           template <class S> void run(S *d) { k<S><<<1, 1>>>(d); }\n\
         };\n\
         }\n\
         template <class S> static void drive(n::Runner &r, S *d) { r.run<S>(d); }\n\
         int main() { n::Runner r; double *d = nullptr; drive<double>(r, d); return 0; }\n",
    )
    .unwrap();
    let ptx = dir.join("m.ptx");
    let o = kernelc(&[src.to_str().unwrap(), "-o", ptx.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&ptx).unwrap();
    // nvcc 13.5 names it so (checked with `nvcc -ptx`).
    assert!(text.contains(".entry _ZN1n1kIdEEvPT_("), "{text}");
}

/// Each launch of the members fixture: kernel, grid, block, arguments.
const MEMBER_LAUNCHES: &[(&str, &str, &str, &[&str])] = &[
    (
        "_Z8laneSumsPKiPf",
        "1",
        "32",
        &["i32[]:rand:32:6", "f32[]:zeros:32"],
    ),
    (
        "_Z10scanBlocksIiN3ops3SumEEvPKT_PS2_S5_i",
        "3",
        "128",
        &[
            "i32[]:rand:300:1",
            "i32[]:zeros:300",
            "i32[]:zeros:3",
            "i32:300",
        ],
    ),
    (
        "_Z10scanBlocksIiN3ops3MaxEEvPKT_PS2_S5_i",
        "3",
        "128",
        &[
            "i32[]:rand:300:2",
            "i32[]:zeros:300",
            "i32[]:zeros:3",
            "i32:300",
        ],
    ),
    (
        "_Z10scanBlocksIfN3ops3SumEEvPKT_PS2_S5_i",
        "2",
        "128",
        &[
            "f32[]:rand:256:3",
            "f32[]:zeros:256",
            "f32[]:zeros:2",
            "i32:200",
        ],
    ),
    (
        "_Z10accumulatePKiPf",
        "1",
        "32",
        &["i32[]:rand:32:4", "f32[]:zeros:96"],
    ),
];

/// Member templates (static, deduced, written, `operator()`), a reference
/// member, a class nested in a class template and named with `typename`,
/// functional-cast construction and functor calls: the member templates'
/// instances have nvcc's names, and every launch gives nvcc's buffers on
/// the emulator.
#[test]
fn member_templates_and_reference_members_compute_what_nvcc_computes() {
    let dir = scratch("class-members");
    let fixture = common::root().join("tests/fixtures/classes/members.cu");
    let (text, theirs_ptx) = both_ptx(&fixture, &dir);
    let ours = functions(&text);
    for name in [
        "_ZN3Acc3addIdEEvT_",
        "_ZN3Acc3addIsEEvT_",
        "_ZNK3ops3MaxclIfEET_RKS2_S4_",
    ] {
        assert!(ours.iter().any(|n| n == name), "{name} missing: {ours:?}");
    }
    let run = |ptx: &std::path::Path, launch: &(&str, &str, &str, &[&str]), out: &str| {
        let (kernel, grid, block, args) = *launch;
        let shape = ["--grid", grid, "--block", block];
        common::launch_buffers(ptx, "emu", (kernel, args), &dir.join(out), &shape)
    };
    let results: Vec<_> = MEMBER_LAUNCHES
        .iter()
        .map(|l| run(&dir.join("kernelc.ptx"), l, "ours"))
        .collect();
    let Some(theirs_ptx) = theirs_ptx else {
        return;
    };
    let theirs = functions(&std::fs::read_to_string(&theirs_ptx).unwrap());
    // nvcc inlines `BlockScan::inclusive`, which kernelc keeps as a call.
    for name in &theirs {
        assert!(
            ours.contains(name),
            "nvcc's {name} is not kernelc's: {ours:?}"
        );
    }
    for (launch, ours) in MEMBER_LAUNCHES.iter().zip(&results) {
        assert_eq!(*ours, run(&theirs_ptx, launch, "theirs"), "{}", launch.0);
    }
}

/// `layout` of inheritance.cu: its sizes and offsets (one thread).
const LAYOUT: (&str, &[&str]) = ("_Z6layoutPy", &["u64[]:zeros:40"]);

/// `calls` of inheritance.cu, and its arguments for 64 threads.
const CALLS: (&str, &[&str]) = ("_Z5callsPKiPi", &["i32[]:rand:64:1", "i32[]:zeros:256"]);

#[test]
fn inheritance_lays_out_and_names_as_nvcc_does() {
    let dir = scratch("inheritance");
    let fixture = common::root().join("tests/fixtures/classes/inheritance.cu");
    let (text, theirs_ptx) = both_ptx(&fixture, &dir);
    // Member functions of a derived class, of a CRTP base's instance, of
    // a namespace's template deriving from a class, and a function taking
    // a pointer to a second base.
    let ours = functions(&text);
    for name in [
        "_ZNK7Derived5twiceEv",
        "_ZN4CrtpI4ImplE3runEv",
        "_ZNK2ns3BoxIiE4takeERK4Base",
        "_Z6byBasePK5Extra",
    ] {
        assert!(ours.iter().any(|n| n == name), "{name} missing: {ours:?}");
    }
    let one = ["--grid", "1", "--block", "1"];
    let layout_of = |ptx: &std::path::Path, out: &str| {
        common::launch_buffers(ptx, "emu", LAYOUT, &dir.join(out), &one)
    };
    let layout = layout_of(&dir.join("kernelc.ptx"), "ours-layout");
    let words = layout[0].clone().unwrap_or_default();
    let word = |k: usize| u64::from_le_bytes(words[8 * k..8 * k + 8].try_into().unwrap());
    // `CtorD::d` sits in `Ctor`'s tail padding, `PodD::d` after `Pod`'s.
    assert_eq!((word(1), word(3)), (8, 5), "PodD and CtorD's `d`");
    let calls = run(&dir.join("kernelc.ptx"), CALLS, &dir.join("ours-calls"));
    let Some(theirs_ptx) = theirs_ptx else {
        return;
    };
    let theirs = std::fs::read_to_string(&theirs_ptx).unwrap();
    assert_eq!(ours, functions(&theirs), "the out-of-line functions' names");
    assert_eq!(layout, layout_of(&theirs_ptx, "theirs-layout"));
    assert_eq!(calls, run(&theirs_ptx, CALLS, &dir.join("theirs-calls")));
}

#[test]
fn virtual_bases_and_misused_bases_are_located_errors() {
    let err = rejected(
        "struct B { int x; };\nstruct D : public virtual B { int y; };\n\
         __global__ void k(D *p) { p->y = 1; }\n",
        "E0002",
    );
    assert!(
        err.contains("virtual base classes are not supported"),
        "{err}"
    );
    assert!(err.contains(":2:19"), "{err}");
    // A virtual function in a derived class: one error, at `virtual`.
    let err = rejected(
        "struct B { int x; };\nstruct D : B { __device__ virtual int f() const { return x; } };\n\
         __global__ void k(D *p, int *o) { o[0] = p->x; }\n",
        "E0002",
    );
    assert!(err.contains("virtual functions"), "{err}");
    assert_eq!(err.matches("error[").count(), 1, "{err}");
    let err = rejected(
        "typedef int Int;\nstruct D : Int { int y; };\n__global__ void k(D *p) { p->y = 1; }\n",
        "E0004",
    );
    assert!(err.contains("a base class must be a class"), "{err}");
    // A derived pointer converts to its base, not the other way.
    let err = rejected(
        "struct B { int x; };\nstruct D : B { int y; };\n\
         __global__ void k(B *b, int *o) { D *d = b; o[0] = d->y; }\n",
        "E0004",
    );
    assert!(err.contains("cannot convert `B *` to `D *`"), "{err}");
}

/// Enumerations declared in classes (named or not) are the class's
/// members: array bounds, values in member functions, `Tile::rows` from
/// outside and `T::rows` through a template parameter. (An unnamed one
/// was refused as an anonymous member, and a member function's body took
/// the class's enumerators as its own locals.)
#[test]
fn enumerations_in_classes_are_members() {
    let dir = scratch("member-enums");
    let fixture = common::root().join("tests/fixtures/classes/member_enums.cu");
    let want: Vec<u8> = [4i32, 8, 4, 35, 17, 32, 32, 3]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let (_, theirs) = both_ptx(&fixture, &dir);
    let kernel = ("_Z11memberEnumsPi", &["i32[]:zeros:8"][..]);
    let one = ["--grid", "1", "--block", "1"];
    for (file, engine) in [
        (fixture.clone(), "interp"),
        (dir.join("kernelc.ptx"), "emu"),
    ] {
        let got = common::launch_buffers(&file, engine, kernel, &dir.join(engine), &one);
        assert_eq!(got[0].as_deref(), Some(&want[..]), "{engine}");
    }
    if let Some(theirs) = theirs {
        let got = common::launch_buffers(&theirs, "emu", kernel, &dir.join("nvcc"), &one);
        assert_eq!(got[0].as_deref(), Some(&want[..]), "nvcc");
    }
}

/// `dtors` of destructors.cu over one thread: `out`, the log's length,
/// the log.
const DTORS: (&str, &[&str]) = (
    "_Z5dtorsPiPjS_i",
    &["i32[]:zeros:4", "u32[]:zeros:1", "i32[]:zeros:64", "i32:4"],
);

/// The log C++ prescribes for `dtors` (see destructors.cu): each
/// destructor's number, and the kernel's own markers (negative).
const DTORS_LOG: &[i32] = &[
    // `{ D d(5); Plain p; }`: `p` (its member, then its base), then `d`
    // (its body, members in reverse, bases in reverse).
    107, 22, 5, 102, 101, 22, 11, -1,
    // `early(4)`: `inner`, then `d`, on the way out of `return`.
    109, 3, 102, 101, 22, 11, -2,
    // The loop's local at `continue`, at `break` and at the body's end.
    -3, 140, 141, 142, -4,
    // Two temporaries, the later first, at the end of the statement.
    502, 507, -5,
    // The temporary bound to `r` lives to the end of the kernel, after
    // `b` and `a` (declared later).
    -6, -7, 952, 901, 508,
];

#[test]
fn destructors_of_classes_members_and_bases_run_as_nvccs_do() {
    let dir = scratch("destructors");
    let fixture = common::root().join("tests/fixtures/classes/destructors.cu");
    let (text, theirs_ptx) = both_ptx(&fixture, &dir);
    let ours = functions(&text);
    for name in ["_ZN5NoinlD1Ev", "_ZN6TNoinlIsED1Ev"] {
        assert!(ours.iter().any(|n| n == name), "{name} missing: {ours:?}");
    }
    let one = ["--grid", "1", "--block", "1"];
    let log_of = |file: &std::path::Path, engine: &str, out: &str| {
        let b = common::launch_buffers(file, engine, DTORS, &dir.join(out), &one);
        let words = |k: usize| -> Vec<i32> {
            b[k].as_deref()
                .unwrap_or_default()
                .chunks(4)
                .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
                .collect()
        };
        (words(0), words(1), words(2))
    };
    let (out, n, log) = log_of(&dir.join("kernelc.ptx"), "emu", "ours");
    assert_eq!(out, [12, 7, 9, 8], "the values the objects held");
    assert_eq!(n, [DTORS_LOG.len() as i32]);
    assert_eq!(&log[..DTORS_LOG.len()], DTORS_LOG);
    // The interpreter runs the IR of the same source.
    assert_eq!(
        log_of(&fixture, "interp", "interp"),
        (out.clone(), n.clone(), log.clone())
    );
    let Some(theirs_ptx) = theirs_ptx else {
        return;
    };
    let theirs = std::fs::read_to_string(&theirs_ptx).unwrap();
    assert_eq!(ours, functions(&theirs), "the out-of-line functions' names");
    assert_eq!(log_of(&theirs_ptx, "emu", "theirs"), (out, n, log));
}

#[test]
fn destructors_kernelc_cannot_run_yet_are_located_errors() {
    let s = "struct G { int v; __device__ G(int x) : v(x) {} __device__ ~G() { v = 0; } };\n";
    for (body, what, at) in [
        (
            "__device__ G make() { return G(1); }\n",
            "returning a `G` by value",
            ":2:1",
        ),
        (
            "__device__ int take(G g) { return g.v; }\n",
            "a parameter of type `G`",
            ":2:21",
        ),
        (
            "__global__ void k(int *o) { G a[2] = {G(1), G(2)}; o[0] = a[0].v; }\n",
            "an array `G[2]`",
            ":2:31",
        ),
        (
            "__global__ void k(int *o) { G g(1); if (*o) goto out; o[0] = g.v; out: o[1] = 1; }\n",
            "a `goto`",
            ":2:45",
        ),
        (
            "__global__ void k(int *o) { if (G(*o).v) o[0] = 1; }\n",
            "in a condition",
            ":2:33",
        ),
        (
            "struct H { __device__ ~H(); };\n__device__ H::~H() {}\n\
             __global__ void k(int *o) { H h; o[0] = 1; }\n",
            "outside its class",
            ":2:23",
        ),
    ] {
        let err = rejected(&format!("{s}{body}"), "E0002");
        assert!(err.contains(what), "{body}: {err}");
        assert!(err.contains(at), "{body}: {err}");
    }
}

/// `inherit` of inheriting.cu, and its arguments for 64 threads.
const INHERIT: (&str, &[&str]) = (
    "_Z7inheritPKiPiPf",
    &["i32[]:rand:64:1", "i32[]:zeros:256", "f32[]:zeros:128"],
);

#[test]
fn inheriting_constructors_compute_what_nvcc_computes() {
    let dir = scratch("inheriting");
    let fixture = common::root().join("tests/fixtures/classes/inheriting.cu");
    let (_, theirs_ptx) = both_ptx(&fixture, &dir);
    let shape = ["--grid", "2", "--block", "32"];
    let all = |ptx: &std::path::Path, out: &str| -> Vec<Vec<u8>> {
        common::launch_buffers(ptx, "emu", INHERIT, &dir.join(out), &shape)
            .into_iter()
            .flatten()
            .collect()
    };
    let ours = all(&dir.join("kernelc.ptx"), "ours");
    let interp: Vec<Vec<u8>> =
        common::launch_buffers(&fixture, "interp", INHERIT, &dir.join("interp"), &shape)
            .into_iter()
            .flatten()
            .collect();
    assert_eq!(ours, interp, "the interpreter on the IR");
    let words = |b: &[u8]| -> Vec<i32> {
        b.chunks(4)
            .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
            .collect()
    };
    let ins = words(&ours[0]);
    let outs = words(&ours[1]);
    let floats: Vec<f32> = ours[2]
        .chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    for (i, &x) in ins.iter().enumerate() {
        let x = x & 0xffff;
        // `Derived(x)`'s member `c` ran `Counter()`; `Derived(x + 1, 2.5f)`
        // picked the two-argument constructor.
        assert_eq!(
            outs[4 * i..4 * i + 4],
            [x + 40, x + 1, 2 * x, 40],
            "thread {i}"
        );
        assert_eq!(floats[2 * i..2 * i + 2], [0.5, 5.0], "thread {i}");
    }
    let Some(theirs_ptx) = theirs_ptx else {
        return;
    };
    assert_eq!(ours, all(&theirs_ptx, "theirs"));
}

#[test]
fn a_member_found_in_two_bases_is_ambiguous() {
    let bases = "struct A { int x; __device__ int f() const { return x; } };\n\
                 struct B { int x; __device__ int f() const { return -x; } };\n\
                 struct D : A, B { int y; };\n";
    for (body, at) in [
        (
            "__global__ void k(D *d, int *o) { o[0] = d->x; }\n",
            ":4:45",
        ),
        (
            "__global__ void k(D *d, int *o) { o[0] = d->f(); }\n",
            ":4:45",
        ),
    ] {
        let err = rejected(&format!("{bases}{body}"), "E0021");
        assert!(err.contains("is ambiguous"), "{body}: {err}");
        assert!(err.contains(at), "{body}: {err}");
        assert!(err.contains("candidate: `A::"), "{body}: {err}");
        assert!(err.contains("candidate: `B::"), "{body}: {err}");
    }
    // Declared in the derived class, it is not: that one hides both.
    let fine = "struct A { int x; };\nstruct B { int x; };\n\
                struct D : A, B { int x; };\n\
                __global__ void k(D *d, int *o) { o[0] = d->x; }\n";
    let dir = scratch("unambiguous");
    let src = dir.join("fine.cu");
    std::fs::write(&src, fine).unwrap();
    let o = kernelc(&[
        src.to_str().unwrap(),
        "-o",
        dir.join("fine.ptx").to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
}

/// Launch `launch` of `tests/fixtures/classes/{file}` over 2 blocks of 32
/// threads ([`common::fixture_runs`]): kernelc's PTX text, its buffers, and
/// nvcc's buffers when nvcc is there.
fn fixture_runs(file: &str, launch: (&str, &[&str])) -> FixtureRuns {
    let dir = scratch(file.trim_end_matches(".cu"));
    let fixture = common::root().join("tests/fixtures/classes").join(file);
    let runs = common::fixture_runs(&fixture, &dir, launch);
    (runs.ptx, runs.ours, runs.theirs.map(|(_, buffers)| buffers))
}

/// Kernelc's PTX text, its buffers, and nvcc's buffers when nvcc is there.
type FixtureRuns = (String, Vec<Vec<u8>>, Option<Vec<Vec<u8>>>);

/// `rrefs` of rvalue_refs.cu, and its arguments for 64 threads.
const RREFS: (&str, &[&str]) = ("_Z5rrefsPKiPi", &["i32[]:rand:64:3", "i32[]:zeros:256"]);

#[test]
fn rvalue_reference_locals_bind_temporaries_as_nvcc_does() {
    let dir = scratch("rvalue_refs");
    let fixture = common::root().join("tests/fixtures/classes/rvalue_refs.cu");
    let runs = common::fixture_runs(&fixture, &dir, RREFS);
    let (ours, theirs) = (runs.ours, runs.theirs.map(|(_, buffers)| buffers));
    let (ins, outs) = (words(&ours[0]), words(&ours[1]));
    for (i, &n) in ins.iter().enumerate() {
        let n = n & 0xffff;
        let r = 3 * n + 1;
        assert_eq!(
            outs[4 * i..4 * i + 4],
            [r + 3 * (n + 1), n + 2, r, 2 * r],
            "thread {i}"
        );
    }
    // An rvalue reference does not bind an lvalue.
    let err = rejected(
        "__global__ void k(int *o) { int a = o[0];\n int &&r = a; o[1] = r; }\n",
        "E0004",
    );
    assert!(err.contains("cannot bind to an lvalue"), "{err}");
    assert!(err.contains(":2:12"), "{err}");
    if let Some(theirs) = &theirs {
        assert_eq!(&ours, theirs);
    }
    reference_returns_and_overloads_are_nvccs(&fixture, &dir, theirs.is_some());
}

/// `refOverloads` of rvalue_refs.cu, and its arguments for 64 threads.
const REF_OVERLOADS: (&str, &[&str]) = (
    "_Z12refOverloadsPKiPi",
    &["i32[]:rand:64:3", "i32[]:zeros:256"],
);

/// The second kernel of rvalue_refs.cu (`fixture`), from the PTX files
/// `fixture_runs` left in `dir` (nvcc's too, `with_nvcc`): functions
/// returning `T &&` and overloads on the kind of reference.
fn reference_returns_and_overloads_are_nvccs(fixture: &Path, dir: &Path, with_nvcc: bool) {
    let shape = ["--grid", "2", "--block", "32"];
    let run = |file: &Path, engine: &str, out: &str| -> Vec<Vec<u8>> {
        common::launch_buffers(file, engine, REF_OVERLOADS, &dir.join(out), &shape)
            .into_iter()
            .flatten()
            .collect()
    };
    let ours = run(&dir.join("kernelc.ptx"), "emu", "ref_ours");
    assert_eq!(
        ours,
        run(fixture, "interp", "ref_interp"),
        "the interpreter"
    );
    let (ins, outs) = (words(&ours[0]), words(&ours[1]));
    for (i, &n) in ins.iter().enumerate() {
        let x = n & 0xff;
        // kind: `float &` 1, `const float &` 2, `float &&` 3 (a temporary,
        // `moved(a)`, `take()`), `float *` 4; relay: 1 for the lvalues
        // `a` and `at()`, 3 for `a * 3`; `a` gains 1 + 100 + 2, 1 from
        // `bumpThrough(a)` and 1 from `relay(a)`; the cell's value 100 + 1.
        assert_eq!(
            outs[4 * i..4 * i + 4],
            [343321, 131, x + 105, x + 101],
            "thread {i}"
        );
    }
    if with_nvcc {
        assert_eq!(
            ours,
            run(&dir.join("nvcc.ptx"), "emu", "ref_theirs"),
            "nvcc"
        );
    }
    // A non-`const` lvalue reference does not bind a temporary, so
    // neither overload takes one; each candidate shows its reference.
    let err = rejected(
        "__device__ int g(float &x) { return 1; }\n__device__ int g(double &x) { return 2; }\n\
         __global__ void k(int *o) { o[0] = g(o[1] + 1.0f); }\n",
        "E0007",
    );
    assert!(err.contains("candidate `g(float &)`"), "{err}");
    assert!(
        err.contains("argument 1 is a temporary, which a non-`const` reference cannot bind"),
        "{err}"
    );
}

/// `memberTemplates` of member_templates.cu, and its arguments for 64
/// threads.
const MEMBER_TEMPLATES: (&str, &[&str]) = (
    "_Z15memberTemplatesPKiPi",
    &["i32[]:rand:64:3", "i32[]:zeros:256"],
);

/// Member templates of a class template (a constructor template, member
/// function templates called with written and deduced arguments, a static
/// one through the class, also
/// through `.template` and `->template` in a dependent context, and in an
/// instance that only a function template's instance makes) and friends
/// defined in it, found by argument-dependent lookup (alone, and beside a
/// global function of the same name): the values are the
/// expected ones on the emulator and the interpreter, nvcc's PTX gives the
/// same, and the functions kept out of line have nvcc's names.
#[test]
fn member_templates_and_hidden_friends_of_class_templates_run_as_nvccs() {
    let (text, ours, theirs) = fixture_runs("member_templates.cu", MEMBER_TEMPLATES);
    let names = functions(&text);
    for name in [
        "_ZN3geo4Vec2IfEC1IiEERKNS0_IT_EE",
        "_ZNK3geo4Vec2IiE3getILi0EEEiv",
        "_ZN3geo4Vec2IiE5splatILi5EEEiv",
        "_ZNK3geo4Vec2IfE6scaledIfEEfT_",
        "_ZNK3geo4Vec2IjE3getILi1EEEjv",
        "_ZN3geo3dotERKNS_4Vec2IiEES3_",
        "_Z4pickILi1EN3geo4Vec2IiEEEiRKT0_PS4_",
    ] {
        assert!(names.iter().any(|n| n == name), "{name} in {names:?}");
    }
    let (ins, outs) = (words(&ours[0]), words(&ours[1]));
    for (i, &n) in ins.iter().enumerate() {
        let (x, i32) = (n & 0xff, i as i32);
        let want = [
            x + 2 * i32 + 7,
            3 * x + i32 + x / 2 + i32,
            5 * x * x + 5 * i32 * i32 + 2 * i32,
            2 * x + 4 * i32 + 2 + 2 * i32 + 1,
        ];
        assert_eq!(outs[4 * i..4 * i + 4], want, "thread {i}");
    }
    if let Some(theirs) = theirs {
        assert_eq!(ours, theirs);
    }
}

/// A friend defined in a class is found only by argument-dependent
/// lookup: a call without an argument of its class, inside the namespace
/// or out of it, names nothing (nvcc: `identifier "twice" is undefined`).
#[test]
fn a_hidden_friend_is_found_only_through_its_class() {
    let s = "namespace n {\nstruct S { int v;\n friend __device__ int twice(int k) { return 2 * k; }\n friend __device__ int get(const S &s) { return s.v; } };\n";
    let err = rejected(
        &format!("{s}__global__ void in(int *o) {{ o[0] = twice(1); }}\n}}\n"),
        "E0001",
    );
    assert!(err.contains("undeclared identifier `twice`"), "{err}");
    assert!(err.contains(":5:37"), "{err}");
    let err = rejected(
        &format!(
            "{s}}}\n__global__ void out(int *o) {{ n::S s{{1}}; o[0] = get(s) + twice(1); }}\n"
        ),
        "E0001",
    );
    assert!(err.contains("undeclared identifier `twice`"), "{err}");
    assert!(err.contains(":6:58"), "{err}");
}

/// A member template of a class template called with too many template
/// arguments, or with one that nothing deduces, is E0019 at the member's
/// name with its declaration labelled; one defined outside its class that
/// the class declares twice (overloads kernelc does not match to the
/// definition) is E0002 at its `template`.
#[test]
fn member_templates_of_class_templates_misused_are_located_errors() {
    let s = "template <class T> struct A { T x;\n template <int N> __device__ T get() const { return x * N; } };\n";
    let err = rejected(
        &format!("{s}__global__ void k(int *o) {{ A<int> a{{1}};\n o[0] = a.get<1, 2>(); }}\n"),
        "E0019",
    );
    assert!(err.contains("1 template parameters; 2 arguments"), "{err}");
    assert!(err.contains(":4:11"), "{err}");
    let err = rejected(
        &format!("{s}__global__ void k(int *o) {{ A<int> a{{1}};\n o[0] = a.get(); }}\n"),
        "E0019",
    );
    assert!(
        err.contains("cannot deduce template parameter `N`"),
        "{err}"
    );
    let err = rejected(
        "template <class T> struct B { T x; template <class U> __device__ T add(U u) const; template <class U> __device__ T add(U u, U v) const; };\ntemplate <class T> template <class U> __device__ T B<T>::add(U u) const { return x + T(u); }\n",
        "E0002",
    );
    assert!(err.contains("member templates defined outside"), "{err}");
    assert!(err.contains(":2:1"), "{err}");
}

/// A function template of `const Storage<T, N> &`, `Shape<D> &` or
/// `const Shape<D> *` called with a class derived from an instance:
/// deduction reads the base's arguments, and the reference binds the
/// caller's object by its base subobject (it used to bind a sliced copy,
/// so CRTP's downcast of `this` read past a one-byte temporary). And a
/// constructor's member initializers run in declaration order, a class
/// member's by its constructor (`m(1)` was a conversion of `1`), an
/// unnamed one's by its default constructor, also in a class without
/// constructors of its own (its implicit one).
#[test]
fn templates_deduce_through_bases_and_references_bind_base_subobjects() {
    let dir = scratch("crtp-refs");
    let fixture = common::root().join("tests/fixtures/classes/crtp_refs.cu");
    let input: Vec<f32> = vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 3.0, 0.5];
    let bin = dir.join("in.bin");
    std::fs::write(
        &bin,
        input
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect::<Vec<u8>>(),
    )
    .unwrap();
    let arg = format!("f32[]:@{}", bin.display());
    let want: Vec<u8> = [36.0f32, 72.0, 18.0, 0.75, 5.0, 2.0, 25.0, 24.0]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let (_, theirs) = both_ptx(&fixture, &dir);
    let args = [arg.as_str(), "f32[]:zeros:8"];
    let kernel = ("_Z8crtpRefsPKfPf", &args[..]);
    let one = ["--grid", "1", "--block", "1"];
    let mut files = vec![
        (fixture.clone(), "interp"),
        (dir.join("kernelc.ptx"), "emu"),
    ];
    files.extend(theirs.map(|t| (t, "emu")));
    let inits: Vec<u8> = [30i32, 7, 31, 7]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    for (k, (file, engine)) in files.iter().enumerate() {
        let got = common::launch_buffers(file, engine, kernel, &dir.join(format!("run{k}")), &one);
        assert_eq!(got[1].as_deref(), Some(&want[..]), "{}", file.display());
        let members = ("_Z11memberInitsPi", &["i32[]:zeros:4"][..]);
        let got = common::launch_buffers(file, engine, members, &dir.join(format!("m{k}")), &one);
        assert_eq!(got[0].as_deref(), Some(&inits[..]), "{}", file.display());
    }
}

/// `member_defaults` of member_defaults.cu, and its arguments for 64
/// threads.
const MEMBER_DEFAULTS: (&str, &[&str]) = (
    "_Z14memberDefaultsPKiPi",
    &["i32[]:rand:64:3", "i32[]:zeros:576"],
);

/// Default member initializers run where C++ runs them: the implicit
/// default constructor of a class without constructors (which stays an
/// aggregate), a constructor that leaves the member out, `= default`, a
/// class template's instance, a member of a member. The same buffers as
/// nvcc's PTX on the emulator, the interpreter's, and the values the
/// fixture's arithmetic gives.
#[test]
fn default_member_initializers_run_as_nvccs_do() {
    let (_, ours, theirs) = fixture_runs("member_defaults.cu", MEMBER_DEFAULTS);
    let (ins, outs) = (words(&ours[0]), words(&ours[1]));
    for (i, &x) in ins.iter().enumerate() {
        let n = x & 0xff;
        let added: i32 = (0..n % 5).map(|j| 2 * (j + n)).sum();
        let s = (4.0 * (0.5 + added as f32)) as i32 + 2 + n % 5;
        let b = n as f32 * 0.25;
        assert_eq!(
            outs[8 * i..8 * i + 8],
            [
                s,
                n * 100 + (n + 1) * 10 + 2,
                ((0.5 + b) * 4.0) as i32 + 9,
                60,
                5 + n,
                34,
                14,
                36
            ],
            "thread {i}"
        );
    }
    if let Some(theirs) = theirs {
        assert_eq!(ours, theirs);
    }
}

/// Default initializers kernelc does not run yet are located errors.
#[test]
fn default_member_initializers_kernelc_cannot_run_are_located_errors() {
    let err = rejected(
        "struct S { __device__ int f() {\n  struct L { int v = 3; };\n  L l; return l.v; } };\n__global__ void k(int *o) { S s; o[0] = s.f(); }\n",
        "E0002",
    );
    assert!(err.contains("defined inside a function"), "{err}");
    assert!(err.contains(":2:20"), "{err}");
    let err = rejected(
        "struct A { unsigned v : 4 = 3; };\n__global__ void k(unsigned *o) { A a; o[0] = a.v; }\n",
        "E0002",
    );
    assert!(err.contains("a bit-field"), "{err}");
    assert!(err.contains(":1:27"), "{err}");
}

/// `arrayRefs` of array_refs.cu, and its arguments for 64 threads.
const ARRAY_REFS: (&str, &[&str]) = (
    "_Z9arrayRefsPKiPfPi",
    &["i32[]:rand:64:3", "f32[]:zeros:64", "i32[]:zeros:64"],
);

/// Reference-to-array parameters bind the array an argument names, as
/// nvcc's do: the same buffers from both PTX files on the emulator and
/// the interpreter, the values the fixture computes, nvcc's names for the
/// functions kept out of line; an element's address does not bind.
#[test]
fn array_reference_parameters_bind_arrays_as_nvccs_do() {
    let (text, ours, theirs) = fixture_runs("array_refs.cu", ARRAY_REFS);
    for f in ["_Z4fillRA4_fi", "_Z3sumRA4_Kf", "_Z4markRA2_A3_ii"] {
        assert!(functions(&text).iter().any(|n| n == f), "{f} in {text}");
    }
    let ins = words(&ours[0]);
    for (i, &x) in ins.iter().enumerate() {
        let n = (x & 0xff) as f32;
        let sums = (4.0 * n + 6.0 + 16.0) + (8.0 * n + 6.0 + 16.0) + (4.0 * n + 6.0) * 4.0;
        let got = f32::from_le_bytes(ours[1][4 * i..4 * i + 4].try_into().unwrap());
        assert_eq!(got, sums, "thread {i}");
        let row = i32::from_le_bytes(ours[2][4 * i..4 * i + 4].try_into().unwrap());
        assert_eq!(row, (x & 0xff) + 1 + (x & 0xff) * 1000, "thread {i}");
    }
    let err = rejected(
        "__device__ void f(float (&v)[4]) { v[0] = 1; }\n__global__ void k(float *o) { float a[4];\n f(&a[0]); o[0] = a[0]; }\n",
        "E0004",
    );
    assert!(err.contains(":3:4"), "{err}");
    if let Some(theirs) = theirs {
        assert_eq!(ours, theirs);
    }
}

/// `arrayPointers` of array_pointers.cu, and its arguments for 64 threads.
const ARRAY_POINTERS: (&str, &[&str]) = (
    "_Z13arrayPointersPKiPfS1_",
    &["i32[]:rand:64:3", "f32[]:zeros:64", "f32[]:zeros:512"],
);

/// Pointers to arrays (`float (*rows)[4]`, casts to them) and array
/// typedefs (locals, members, decaying parameters) compute as nvcc's do:
/// the values the fixture computes, the same buffers from both PTX files
/// on the emulator and the interpreter, nvcc's names for the functions
/// kept out of line.
#[test]
fn pointers_to_arrays_and_array_typedefs_are_cs() {
    let (text, ours, theirs) = fixture_runs("array_pointers.cu", ARRAY_POINTERS);
    for f in ["_Z6rowSumPA4_Kfi", "_Z4bumpPA4_fPfi", "_Z6cornerPA2_A3_i"] {
        assert!(functions(&text).iter().any(|n| n == f), "{f} in {text}");
    }
    let floats = |b: &[u8]| -> Vec<f32> {
        b.chunks(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
            .collect()
    };
    let (out, scratch) = (floats(&ours[1]), floats(&ours[2]));
    for (i, &x) in words(&ours[0]).iter().enumerate() {
        let n = (x & 0xff) as f32;
        assert_eq!(out[i], 9.0 * n + 46.0, "thread {i}");
        let row1 = &scratch[8 * i + 4..8 * i + 8];
        assert_eq!(row1, [n, n + 1.0, 3.0 * n + 2.0, n + 3.0], "thread {i}");
    }
    if let Some(theirs) = theirs {
        assert_eq!(ours, theirs);
    }
}

/// `nestedBodies` of nested_bodies.cu, and its arguments for 64 threads.
const NESTED_BODIES: (&str, &[&str]) = (
    "_Z12nestedBodiesPKiPi",
    &["i32[]:rand:64:3", "i32[]:zeros:64"],
);

/// A nested class's member bodies are read once the enclosing class is
/// complete: they name its later members (in a class template too, whose
/// nested class's member kept out of line has nvcc's name). nvcc's PTX on
/// the emulator, the interpreter and the expected values agree.
#[test]
fn nested_class_members_see_the_enclosing_class_complete() {
    let (text, ours, theirs) = fixture_runs("nested_bodies.cu", NESTED_BODIES);
    let name = "_ZNK5TableIiE3Row6scaledEv";
    assert!(
        functions(&text).iter().any(|n| n == name),
        "{name} in {text}"
    );
    let (ins, outs) = (words(&ours[0]), words(&ours[1]));
    for (i, &x) in ins.iter().enumerate() {
        let (base, i32) = (x & 0xff, i as i32);
        assert_eq!(
            outs[i],
            base * 3 + (i32 + 3) + base + 1 + 4 * i32,
            "thread {i}"
        );
    }
    if let Some(theirs) = theirs {
        assert_eq!(ours, theirs);
    }
}

/// `return {...};` of an aggregate (members in order, the rest zero), a
/// class through its constructor, `int2`, a scalar and `{}`: the values the
/// fixture's arithmetic gives, the interpreter's, and nvcc's PTX's.
#[test]
fn returned_braced_lists_initialize_the_return_type() {
    let launch: (&str, &[&str]) = ("_Z5listsPKiPi", &["i32[]:rand:64:5", "i32[]:zeros:512"]);
    let (_, ours, theirs) = fixture_runs("return_lists.cu", launch);
    let (ins, outs) = (words(&ours[0]), words(&ours[1]));
    for (i, &x) in ins.iter().enumerate() {
        let v = x & 0xff;
        let (lo, len) = (v.min(100), (v - 100).abs());
        let expected = [
            3 * v + 6,
            3 * (2 * v + 3),
            0,
            lo,
            len,
            v / 2 * 1000 + (v - v / 2),
            v + 1,
            0,
        ];
        assert_eq!(outs[8 * i..8 * i + 8], expected, "thread {i}");
    }
    if let Some(theirs) = theirs {
        assert_eq!(ours, theirs);
    }
}

/// `c ? a : b` of two lvalues binds a reference to the chosen object:
/// `larger` returns its argument's address (at -O0, where it is a call, a
/// copy in its frame would be read after its return: the interpreter
/// faults on that), and a write through `int &w = c ? x : y` lands in the
/// local. The values the fixture's arithmetic gives, on both engines at
/// -O0 and -O3, and nvcc's PTX's.
#[test]
fn conditionals_of_lvalues_bind_references_to_the_chosen_object() {
    let launch: (&str, &[&str]) = (
        "_Z4pickPKiPiPK4Part",
        &["i32[]:rand:128:3", "i32[]:zeros:128", "i32[]:rand:130:4"],
    );
    let (_, ours, theirs) = fixture_runs("conditional_refs.cu", launch);
    let fixture = common::root().join("tests/fixtures/classes/conditional_refs.cu");
    let dir = scratch("conditional_refs_o0");
    let shape = ["--grid", "2", "--block", "32", "-O0"];
    let unoptimized: Vec<Vec<u8>> =
        common::launch_buffers(&fixture, "interp", launch, &dir, &shape)
            .into_iter()
            .flatten()
            .collect();
    assert_eq!(ours, unoptimized, "the interpreter at -O0");
    let (ins, outs, parts) = (words(&ours[0]), words(&ours[1]), words(&ours[2]));
    let weight = |k: usize| f32::from_bits(parts[2 * k + 1] as u32);
    for i in 0..64 {
        // The references name objects; the write through `w` comes before
        // any is read.
        let mut xy = [ins[i] & 0xffff, ins[i + 64] & 0xffff];
        let larger_one = usize::from(xy[0] < xy[1]);
        let n_one = usize::from(i & 1 == 0);
        xy[usize::from(i & 2 == 0)] += 5;
        let [x, y] = xy;
        let (m, n) = (xy[larger_one], xy[n_one]);
        let heavy = if weight(i) < weight(i + 1) {
            parts[2 * (i + 1)]
        } else {
            parts[2 * i]
        };
        assert_eq!(
            outs[2 * i..2 * i + 2],
            [m + 3 * n + heavy, x - y],
            "thread {i}"
        );
    }
    if let Some(theirs) = theirs {
        assert_eq!(ours, theirs);
    }
}

/// An assignment, `op=` and a prefix `++`/`--` are lvalues: functions
/// returning `T &` return them (`return a = a * s;`, `return ++a;`, a
/// parenthesized conditional), locals bind them, and a write through the
/// reference lands in the object stored to (a `char`, a `short` too);
/// `p[k++] += 10` moves `k` once.
/// The values the fixture's arithmetic gives, on both engines at -O0 and
/// -O3, and nvcc's PTX's.
#[test]
fn assignments_are_lvalues_that_references_bind() {
    let launch: (&str, &[&str]) = (
        "_Z8assignedPKiPiPKfPf",
        &[
            "i32[]:rand:128:3",
            "i32[]:zeros:576",
            "f32[]:rand:64:4",
            "f32[]:zeros:64",
        ],
    );
    let (_, ours, theirs) = fixture_runs("assignment_refs.cu", launch);
    let fixture = common::root().join("tests/fixtures/classes/assignment_refs.cu");
    let dir = scratch("assignment_refs_o0");
    let shape = ["--grid", "2", "--block", "32", "-O0"];
    let unoptimized: Vec<Vec<u8>> =
        common::launch_buffers(&fixture, "interp", launch, &dir, &shape)
            .into_iter()
            .flatten()
            .collect();
    assert_eq!(ours, unoptimized, "the interpreter at -O0");
    let (ins, outs) = (words(&ours[0]), words(&ours[1]));
    let (f_in, f_out) = (common::f32s(&ours[2]), common::f32s(&ours[3]));
    for i in 0..64 {
        let (mut x, mut y) = (((ins[i] & 0xff) + 1) * 2, (ins[i + 64] & 0xff) - 5);
        if i & 1 == 1 {
            x += 7;
        } else {
            y += 7;
        }
        let want = [x, y, y + 100, x, (x + 10) * 3, y + 999, i as i32, 7];
        assert_eq!(outs[8 * i..8 * i + 8], want, "thread {i}");
        // `char` and `short` objects: the reference is to the narrow type.
        let h = i32::from((10 + 70000 + i as i32) as i16 + 1);
        assert_eq!(outs[512 + i], 7 + 1000 * h, "thread {i}'s narrow objects");
        assert_eq!(f_out[i], f_in[i] * 3.0 + 1.0, "thread {i}'s float");
    }
    // A bit-field's assignment is no object a reference binds.
    let err = rejected(
        "struct S { unsigned f : 3; };\n__device__ unsigned &h(S &s) { return s.f = 3; }\n\
         __global__ void k(unsigned *o) { S s{1}; o[0] = h(s); }\n",
        "E0004",
    );
    assert!(err.contains(":2:39"), "{err}");
    if let Some(theirs) = theirs {
        assert_eq!(ours, theirs);
    }
}

/// A struct of reference members built from a braced list (`return {a[i],
/// b[i]};`, `Ref r{a[i], b[i]};`, `Ref t = {...};`, a `Cell{...}`
/// temporary, `{limit}` for a `const int &` member) binds each member to
/// the object its value names: the writes through them land in the
/// arrays. The values the fixture's arithmetic gives, on both engines,
/// and nvcc's PTX's.
#[test]
fn braced_lists_bind_reference_members() {
    let launch: (&str, &[&str]) = (
        "_Z7proxiesPKfPfS1_Pi",
        &[
            "f32[]:rand:128:3",
            "f32[]:zeros:64",
            "f32[]:zeros:64",
            "i32[]:zeros:64",
        ],
    );
    let (_, ours, theirs) = fixture_runs("braced_ref_members.cu", launch);
    let ins = common::f32s(&ours[0]);
    let (a, b, counts) = (
        common::f32s(&ours[1]),
        common::f32s(&ours[2]),
        words(&ours[3]),
    );
    for i in 0..64 {
        let (x, y) = (ins[i] + 1.0, ins[i + 64] * 2.0);
        let y = y + x;
        assert_eq!((a[i], b[i]), (x - y, y), "thread {i}");
        let (limit, mut count) = (3 + (i as i32 & 3), i as i32);
        for tag in [2, 1] {
            if count < limit {
                count += tag;
            }
        }
        assert_eq!(counts[i], count, "thread {i}'s count");
    }
    let err = rejected(
        "struct R { int &x; };\n__global__ void k(int *o) { R r{o[0] + 1}; r.x = 2; }\n",
        "E0004",
    );
    assert!(
        err.contains("a reference member") && err.contains(":2:33"),
        "{err}"
    );
    if let Some(theirs) = theirs {
        assert_eq!(ours, theirs);
    }
}

/// `if (int y = f(); y > 3)`, `else if (int z = ...; z > 2)`, `switch (int
/// m = ...; m)`, `if (int x = ...)` and `if (const int *p = find(...))`:
/// the values the fixture's arithmetic gives, the interpreter's, and
/// nvcc's PTX's.
#[test]
fn if_and_switch_headers_declare_their_names() {
    let launch: (&str, &[&str]) = ("_Z7headersPKiPi", &["i32[]:rand:64:6", "i32[]:zeros:320"]);
    let (_, ours, theirs) = fixture_runs("if_init.cu", launch);
    let (data, outs) = (words(&ours[0]), words(&ours[1]));
    for (t, &raw) in data.iter().enumerate() {
        let d = raw & 0xffff;
        let x = d & 3;
        let (y, z) = (d % 7, d % 7 * 2);
        let second = if y > 3 {
            y
        } else if z > 2 {
            z + 100
        } else {
            y + z + 200
        };
        let m = d & 7;
        let third = match m {
            1 => 1,
            2 => 20,
            _ => -m,
        };
        let found = data
            .iter()
            .position(|&v| v == data[t ^ 1])
            .map_or(999, |i| i as i32);
        let acc = t as i32;
        let expected = [
            if x != 0 { x } else { -1 },
            second,
            third,
            found,
            if acc > 10 { acc } else { 0 },
        ];
        assert_eq!(outs[5 * t..5 * t + 5], expected, "thread {t}");
    }
    if let Some(theirs) = theirs {
        assert_eq!(ours, theirs);
    }
}

/// `bitFieldWrites` and `bitFieldLists` of bit_field_writes.cu, and their
/// arguments for 64 threads (12 words out each).
const BIT_FIELD_WRITES: (&str, &[&str]) = (
    "_Z14bitFieldWritesPKiPi",
    &["i32[]:rand:64:3", "i32[]:zeros:768"],
);
const BIT_FIELD_LISTS: (&str, &[&str]) = (
    "_Z13bitFieldListsPKiPi",
    &["i32[]:rand:64:5", "i32[]:zeros:768"],
);

/// The low `width` bits of `x`, sign-extended.
fn signed_bits(x: i64, width: u32) -> i64 {
    (x << (64 - width)) >> (64 - width)
}

/// The low `width` bits of `x`.
fn unsigned_bits(x: i64, width: u32) -> i64 {
    x & ((1i64 << width) - 1)
}

/// The twelve words `bitFieldWrites` stores for the input `v`.
fn bit_field_writes(v: i32) -> Vec<i32> {
    let v = i64::from(v);
    let (s5, u) = (|x| signed_bits(x, 5), unsigned_bits);
    let post = s5(s5(v) + 3);
    let pre = s5(s5(post + 1) - 1);
    let count = s5(pre + v);
    let rest = u(1000 + v, 10);
    let small = u(u(v, 3) + 1, 3);
    let tiny = signed_bits(signed_bits(-v, 4) - 1, 4);
    let lo = u((v << 33) | 5, 40);
    let hi = signed_bits(-v * 1000, 24);
    let mid = u(u(v, 7) << 1, 7);
    let high = signed_bits(-1 - v, 20);
    let bits = u(v, 12) | (u(high, 20) << 12);
    let (mut a0, mut a1) = (count, count);
    if v & 1 == 0 {
        a0 = 7;
    } else {
        a1 = 7;
    }
    a1 = s5(a1 * 2);
    [
        u(v, 1),
        count,
        rest,
        small,
        i64::from(v & 2 != 0),
        tiny,
        post * 100 + pre,
        rest,
        8,
        (lo >> 30) + hi + mid,
        bits,
        a0 * 64 + a1 + 16 * 1000,
    ]
    .iter()
    .map(|&w| w as i32)
    .collect()
}

/// The twelve words `bitFieldLists` stores for the input `v`.
fn bit_field_lists(v: i32) -> Vec<i32> {
    let v = i64::from(v);
    let (s, u) = (signed_bits, unsigned_bits);
    [
        1007,
        s(v, 5),
        0,
        s(v, 8),
        s(v, 4) * 100 + s(v, 5),
        u(v, 3) + 400,
        1099,
        -3,
        u(v, 3) * 100 + s(-v, 4),
        500 + u(v, 4),
        s(-v, 5),
        s(v, 5),
    ]
    .iter()
    .map(|&w| w as i32)
    .collect()
}

/// Bit-fields written (`=`, compound assignments, `++`/`--`, through
/// pointers, array elements and a union; values that wrap, signed fields
/// read back sign-extended, the values of the assignments) and structs
/// with bit-fields built from braced lists, member-wise and by a
/// constructor: the expected values on the emulator and the interpreter,
/// and nvcc's PTX gives the same.
#[test]
fn bit_fields_are_written_and_initialized_as_nvcc_does() {
    for (launch, expected) in [
        (BIT_FIELD_WRITES, bit_field_writes as fn(i32) -> Vec<i32>),
        (BIT_FIELD_LISTS, bit_field_lists),
    ] {
        let (_, ours, theirs) = fixture_runs("bit_field_writes.cu", launch);
        let (ins, outs) = (words(&ours[0]), words(&ours[1]));
        for (i, &v) in ins.iter().enumerate() {
            assert_eq!(
                outs[12 * i..12 * i + 12],
                expected(v),
                "{} thread {i}",
                launch.0
            );
        }
        if let Some(theirs) = theirs {
            assert_eq!(ours, theirs, "{}", launch.0);
        }
    }
}

/// `localClasses<int>` and `<double>` of local_classes.cu, and their
/// arguments for 64 threads.
const LOCAL_CLASSES: [(&str, &[&str]); 2] = [
    (
        "_Z12localClassesIiEvPKT_Pi",
        &["i32[]:rand:64:3", "i32[]:zeros:256"],
    ),
    (
        "_Z12localClassesIdEvPKT_Pi",
        &["f64[]:iota:64", "i32[]:zeros:256"],
    ),
];

/// Local classes are scoped to their block: two functions define their
/// own `Pair`, an inner block's hides its function's, one hides the
/// file's, and a kernel template's local class is one per instance (its
/// size follows `T`). The values are the expected ones on the emulator and
/// the interpreter and nvcc's PTX gives the same; a second class of one
/// name in one block is E0006, as nvcc says.
#[test]
fn local_classes_are_scoped_to_their_block_as_in_cxx() {
    for ((kernel, args), cell) in LOCAL_CLASSES.into_iter().zip([8, 16]) {
        let (_, ours, theirs) = fixture_runs("local_classes.cu", (kernel, args));
        let outs = words(&ours[1]);
        let ins: Vec<i32> = if kernel.contains("IiE") {
            words(&ours[0])
        } else {
            (0..64).collect()
        };
        for (i, &n) in ins.iter().enumerate() {
            let v = n & 0xffff;
            let product = v * (3 + 2) + 8 * 1000;
            let shifted = (v << 2) + 7 + 16 * 1000;
            assert_eq!(
                outs[4 * i..4 * i + 4],
                [product, shifted, cell, 2 + 8],
                "{kernel} thread {i}"
            );
        }
        if let Some(theirs) = theirs {
            assert_eq!(ours, theirs, "{kernel}");
        }
    }
    let err = rejected(
        "__global__ void k(int *o) { struct P { int a; };\n struct P { int b; }; }\n",
        "E0006",
    );
    assert!(
        err.contains("redefinition of `struct P`") && err.contains(":2:9"),
        "{err}"
    );
    // Their implicit constructors would share the class's name.
    let err = rejected(
        "__device__ int f() { struct S { int n = 4; }; S s; return s.n; }\n\
         __device__ int g() { struct S { int n = 5; }; S s; return s.n; }\n\
         __global__ void k(int *o) { o[0] = f() + g(); }\n",
        "E0002",
    );
    assert!(
        err.contains("second local class `S`") && err.contains(":2:29"),
        "{err}"
    );
}

/// `arrayElementArgs` of array_element_args.cu, and its arguments for 64
/// threads.
const ARRAY_ELEMENT_ARGS: (&str, &[&str]) = (
    "_Z16arrayElementArgsPKiPi",
    &["i32[]:rand:64:3", "i32[]:zeros:256"],
);

/// Elements of `constexpr`/`const` integer arrays are template value
/// arguments (`Table<kBits[2]>`, arithmetic on them, an element the list
/// leaves out, a namespace's array, a function template's argument): the
/// expected values on the emulator and the interpreter, nvcc's PTX the
/// same; one past the end is E0019, as nvcc refuses it.
#[test]
fn constant_array_elements_are_template_arguments() {
    let (_, ours, theirs) = fixture_runs("array_element_args.cu", ARRAY_ELEMENT_ARGS);
    let (ins, outs) = (words(&ours[0]), words(&ours[1]));
    for (i, &n) in ins.iter().enumerate() {
        let v = n & 0xfff;
        assert_eq!(
            outs[4 * i..4 * i + 4],
            [10 + 1000, 20000 + 9, 7 * v, 64 + v],
            "thread {i}"
        );
    }
    if let Some(theirs) = theirs {
        assert_eq!(ours, theirs);
    }
    let err = rejected(
        "constexpr int kBits[] = {1, 3};\ntemplate <int N> struct T { static constexpr int v = N; };\n\
         __global__ void k(int *o) { o[0] = T<kBits[2]>::v; }\n",
        "E0019",
    );
    assert!(err.contains(":3:38"), "{err}");
}

/// `referenceCasts` of reference_casts.cu, and its arguments for 64
/// threads.
const REFERENCE_CASTS: (&str, &[&str]) = (
    "_Z14referenceCastsPKiPi",
    &["i32[]:rand:64:3", "i32[]:zeros:256"],
);

/// `static_cast` to reference types: `static_cast<A &&>(a)...` forwards
/// (an lvalue argument stays an lvalue the callee writes), an `int &&`
/// local binds `static_cast<int &&>(x)` (x itself), a cast to `float &&`
/// makes a temporary, `static_cast<int &>(x)` is `x`, and a move
/// constructor is chosen for `static_cast<Counted &&>(a)`: the expected
/// values on the emulator and the interpreter, nvcc's PTX the same.
#[test]
fn reference_casts_are_nvccs() {
    let (_, ours, theirs) = fixture_runs("reference_casts.cu", REFERENCE_CASTS);
    let (ins, outs) = (words(&ours[0]), words(&ours[1]));
    for (i, &n) in ins.iter().enumerate() {
        let x = n & 0xffff;
        let doubled = 2 * x;
        let bound = doubled + 5;
        let last = (bound + 100) * 2;
        assert_eq!(
            outs[4 * i..4 * i + 4],
            [doubled + 3 * doubled, last, 2 * bound + 1, -100 + 10 + 1000],
            "thread {i}"
        );
    }
    if let Some(theirs) = theirs {
        assert_eq!(ours, theirs);
    }
}

/// How many values `templateNames` of template_names.cu writes per thread.
const TEMPLATE_NAMES_OUTS: usize = 9;

/// `templateNames` of template_names.cu, and its arguments for 64 threads.
const TEMPLATE_NAMES: (&str, &[&str]) = (
    "_Z13templateNamesPKiPi",
    &["i32[]:rand:64:3", "i32[]:zeros:576"],
);

/// What thread `i` of `templateNames` writes from its input `x`.
fn template_names_want(x: i32) -> [i32; TEMPLATE_NAMES_OUTS] {
    let wide = (3 * x + 5) + (-3 * x + 2 * x) + (3 * (x + 1) + 2);
    let overloads = 3 * x + 6 * x + 2 * x + (3 * x + 1);
    // `tens<N>()` and the sizes of the members `Arr<N>` make each `f()`.
    let fixed = 40 + 4 * 4 + 4 * 8;
    let (wide4, wide2) = (50 + 4 * 5 + 4 * 6, 30 + 4 * 3 + 4 * 4);
    let constants = x + fixed + 1000 * wide4 + 1_000_000 * wide2;
    [
        (x + 2) + 10 * (x + 3),
        2 * (x + 5),
        x,
        7 * x,
        wide,
        overloads,
        constants,
        x + (2 * 4 + 1) + (2 * 8 + 1) * 100 + 10000 * ((2 * 2 + 1) * 101),
        (50 + 5 + 2) + 1000 * (90 + 9 + 1),
    ]
}

/// Names in class templates as C++ looks them up and the types templates
/// deduce (each case one kernelc once got wrong): a member's unqualified
/// call finds the class's member, not a typedef of the block or the
/// function template instance that instantiates the class, and a block's
/// typedef ends with the block; `long long` arguments (`5LL`, `-w`, `w <<
/// 1`, `w += 1`) deduce `long long`, not `long`; overloaded member and
/// function templates of different arity each make their own instance; a
/// class's `static constexpr` member is a template argument in its body
/// and a name in its member templates' bodies,
/// and one may be initialized by a call of the class's `constexpr` member.
/// The expected values on the emulator and the interpreter, nvcc's PTX
/// the same, and the instances' names nvcc's.
#[test]
fn names_in_class_templates_are_looked_up_as_nvcc_does() {
    let (text, ours, theirs) = fixture_runs("template_names.cu", TEMPLATE_NAMES);
    let names = functions(&text);
    for name in [
        "_Z4wideIxET_S0_S0_",
        "_ZNK3AccIiE4foldI3MulEEiiT_",
        "_ZNK3AccIiE4foldI3MulEEiiT_i",
        "_Z5applyI3MulEiiT_",
        "_Z5applyI3MulEiiT_i",
    ] {
        assert!(names.iter().any(|n| n == name), "{name} in {names:?}");
    }
    let (ins, outs) = (words(&ours[0]), words(&ours[1]));
    let n = TEMPLATE_NAMES_OUTS;
    for (i, &v) in ins.iter().enumerate() {
        let want = template_names_want(v & 0xff);
        assert_eq!(outs[n * i..n * (i + 1)], want, "thread {i}");
    }
    if let Some(theirs) = theirs {
        assert_eq!(ours, theirs);
    }
}

/// The launches of cuda_std.cu over 64 threads.
const CUDA_STD: [(&str, &[&str]); 6] = [
    ("_Z9sortTilesPf", &["f32[]:rand:512:1"]),
    (
        "_Z7nearestPKfS0_PiPf",
        &[
            "f32[]:rand:64:3",
            "f32[]:rand:5:4",
            "i32[]:zeros:64",
            "f32[]:zeros:64",
        ],
    ),
    (
        "_Z9complexesPKN4cuda3std3__47complexIfEES5_Pf",
        &["f32[]:rand:128:5", "f32[]:rand:128:6", "f32[]:zeros:256"],
    ),
    (
        "_Z15complexesDoublePKN4cuda3std3__47complexIdEES5_Pd",
        &["f64[]:rand:128:5", "f64[]:rand:128:6", "f64[]:zeros:128"],
    ),
    ("_Z5ringsPKiPi", &["i32[]:rand:256:7", "i32[]:zeros:128"]),
    ("_Z6traitsPKsPi", &["i16[]:rand:64:8", "i32[]:zeros:64"]),
];

/// libcu++ in device code through kernelc's own `<cuda/std/array>`,
/// `<cuda/std/utility>`, `<cuda/std/algorithm>` and `<cuda/std/complex>`,
/// and the C++ they lean on (`constexpr` members overloaded on `const`, a
/// range-`for` over a class's `begin()`/`end()` with a pointer and with an
/// iterator class's `!=`, `++` and `*`, an `alignas` explicit
/// specialization, deduction dropping `operator*(complex<T>, complex<T>)`
/// for `2.0f * z`): nvcc's kernel names; the emulator's buffers equal the
/// interpreter's and those of nvcc's PTX (built with NVIDIA's libcu++), but
/// for `abs` plus `arg` of a complex, whose `hypotf` and `atan2f` may
/// differ by an ulp; sorted tiles and the rings' sums as expected.
#[test]
fn libcudacxx_containers_and_complex_are_nvccs() {
    let dir = scratch("cuda_std");
    let src = common::root().join("tests/fixtures/classes/cuda_std.cu");
    let cccl =
        common::cuda_headers_or_skip().map(|h| vec![format!("-I{}", h.join("cccl").display())]);
    let (text, theirs) = match cccl {
        Some(flags) => common::fixture_ptx_and_nvcc_with(&src, &dir, &flags),
        None => (common::fixture_ptx(&src, &dir), None),
    };
    // The source compiled for the interpreter as the PTX was, unfused.
    let shape = ["--grid", "2", "--block", "32", "-fmad=false"];
    let ours_ptx = dir.join("kernelc.ptx");
    for (k, &(kernel, args)) in CUDA_STD.iter().enumerate() {
        let run = |file: &Path, engine: &str, out: &str| -> Vec<Vec<u8>> {
            let out = dir.join(format!("{out}{k}"));
            let shape = if engine == "interp" {
                &shape[..]
            } else {
                &shape[..4]
            };
            common::launch_buffers(file, engine, (kernel, args), &out, shape)
                .into_iter()
                .flatten()
                .collect()
        };
        assert!(text.contains(&format!(".entry {kernel}(")), "{kernel}");
        let ours = run(&ours_ptx, "emu", "ours");
        assert_eq!(
            ours,
            run(&src, "interp", "interp"),
            "{kernel}: the interpreter"
        );
        cuda_std_expected(kernel, &ours);
        let Some(theirs) = &theirs else { continue };
        let theirs = run(theirs, "emu", "theirs");
        if kernel.starts_with("_Z9complexes") {
            complexes_close(&ours[2], &theirs[2]);
        } else {
            assert_eq!(ours, theirs, "{kernel}: nvcc's PTX");
        }
    }
}

/// `std::integral_constant`'s conversion and call operators are constexpr
/// host functions, as the host compiler's: device code calls them only
/// under --expt-relaxed-constexpr, as nvcc says (E0017 without).
#[test]
fn integral_constant_converts_in_device_code_only_when_relaxed() {
    let src = "#include <type_traits>\ntemplate <class T> struct is_small : std::false_type {};\n\
               template <> struct is_small<short> : std::true_type {};\n\
               __global__ void k(int *o) { bool b = is_small<short>(); o[0] = b + std::true_type()(); }\n";
    let err = rejected(src, "E0017");
    assert!(
        err.contains("operator bool") && err.contains(":4:"),
        "{err}"
    );
    let dir = scratch("integral_constant");
    let file = dir.join("relaxed.cu");
    std::fs::write(&file, src).unwrap();
    let ptx = dir.join("relaxed.ptx");
    let args = [
        file.to_str().unwrap(),
        "--expt-relaxed-constexpr",
        "-o",
        ptx.to_str().unwrap(),
    ];
    let o = kernelc(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let launch = ("_Z1kPi", &["i32[]:zeros:1"][..]);
    let shape = ["--grid", "1", "--block", "1"];
    let bufs = common::launch_buffers(&ptx, "emu", launch, &dir.join("out"), &shape);
    assert_eq!(words(bufs[0].as_deref().unwrap_or_default()), [2]);
}

/// What cuda_std.cu's kernels must have computed, checked without nvcc.
fn cuda_std_expected(kernel: &str, bufs: &[Vec<u8>]) {
    let floats = |b: &[u8]| -> Vec<f32> {
        b.chunks(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
            .collect()
    };
    match kernel {
        "_Z9sortTilesPf" => {
            for tile in floats(&bufs[0]).chunks(8) {
                assert!(tile.windows(2).all(|w| w[0] <= w[1]), "{tile:?}");
            }
        }
        "_Z7nearestPKfS0_PiPf" => {
            assert!(words(&bufs[2]).iter().all(|&b| (0..5).contains(&b)));
        }
        "_Z6traitsPKsPi" => {
            // 1 for `short`, 2 + 32 for `float`, 64 bits for `double`, `true`.
            assert!(words(&bufs[1])
                .iter()
                .all(|&v| v == 1 + 100 * 34 + 10000 * 64 + 1));
        }
        "_Z5ringsPKiPi" => {
            let (ins, outs) = (words(&bufs[0]), words(&bufs[1]));
            for (i, ring) in ins.chunks(4).enumerate() {
                let sum = ring
                    .iter()
                    .fold(0i32, |s, &x| s.wrapping_mul(3).wrapping_add(x));
                let step = (ring[1] & 0xff) - (ring[0] & 0xff);
                assert_eq!(outs[2 * i..2 * i + 2], [sum, 8 + 100 * step], "thread {i}");
            }
        }
        _ => {}
    }
}

/// complexes' outputs against nvcc's: the same bits, but for the third
/// of each four (`abs(q) + arg(p)`), within 2 ulp.
fn complexes_close(ours: &[u8], theirs: &[u8]) {
    let bits = |b: &[u8]| -> Vec<i32> { words(b) };
    for (i, (a, b)) in bits(ours).iter().zip(bits(theirs)).enumerate() {
        let allowed = if i % 4 == 2 { 2 } else { 0 };
        assert!(
            (a - b).abs() <= allowed,
            "output {i}: {a:#x} against {b:#x}"
        );
    }
}

/// `inheritedTemplates` of inherited_member_templates.cu, and its
/// arguments for 64 threads.
const INHERITED_TEMPLATES: (&str, &[&str]) = (
    "_Z18inheritedTemplatesPKiPi",
    &["i32[]:rand:64:5", "i32[]:zeros:320"],
);

/// Member function templates of a base class (a CRTP base's, a plain
/// base's) called on the derived object with written and deduced
/// arguments and without `this->` in the derived class's member
/// functions, and reference members bound by braced lists: the expected
/// values on the emulator and the interpreter, nvcc's PTX the same.
#[test]
fn member_templates_of_bases_and_braced_reference_members_run_as_nvccs() {
    let (text, ours, theirs) = fixture_runs("inherited_member_templates.cu", INHERITED_TEMPLATES);
    assert!(
        text.contains(".entry _Z18inheritedTemplatesPKiPi("),
        "{text}"
    );
    let (ins, outs) = (words(&ours[0]), words(&ours[1]));
    for (i, &n) in ins.iter().enumerate() {
        let (x, i) = (n & 0xff, i as i32);
        let want = [
            4 * (x + i),
            3 * x,
            3 * (x + i) + 2 * x,
            x - 1 + 5 * i,
            7 * (1 + x),
        ];
        assert_eq!(outs[5 * i as usize..5 * i as usize + 5], want, "thread {i}");
    }
    if let Some(theirs) = theirs {
        assert_eq!(ours, theirs);
    }
}

/// `ownMemberTypes` of own_member_types.cu, and its arguments for 64
/// threads.
const OWN_MEMBER_TYPES: (&str, &[&str]) = (
    "_Z14ownMemberTypesPKiPi",
    &["i32[]:rand:64:6", "i32[]:zeros:256"],
);

/// A class template's member type named through the class in its own
/// members (`typename B::Tmp` in a member template, `B<T>::Tmp` in a plain
/// member, in a namespace and out of one): the expected values on the
/// emulator and the interpreter, nvcc's PTX the same.
#[test]
fn member_types_named_through_their_own_class_template_run_as_nvccs() {
    let (text, ours, theirs) = fixture_runs("own_member_types.cu", OWN_MEMBER_TYPES);
    assert!(text.contains(".entry _Z14ownMemberTypesPKiPi("), "{text}");
    let (ins, outs) = (words(&ours[0]), words(&ours[1]));
    for (i, &n) in ins.iter().enumerate() {
        let x = n & 0xff;
        let want = [3 * (x + 2), x + 3 + 3 * (x + 1), x % 16, x / 16];
        assert_eq!(outs[4 * i..4 * i + 4], want, "thread {i}");
    }
    if let Some(theirs) = theirs {
        assert_eq!(ours, theirs);
    }
}

/// Class objects as conditions (C++'s contextual conversion to `bool`):
/// `explicit operator bool` (also written after `__device__`), a plain
/// one, one a base declares and `operator int`, in `if`, `while`, `for`,
/// `do`, `?:`, `!`, `&&` and `||`. They were E0004; the values are the
/// expected ones, on the interpreter and the emulator, and nvcc's.
#[test]
fn class_objects_convert_to_bool_in_conditions() {
    let launch = (
        "_Z10conditionsPKiPi",
        &["i32[]:iota:64", "i32[]:zeros:192"][..],
    );
    let (_, ours, theirs) = fixture_runs("contextual_bool.cu", launch);
    let expected = |x: i32| {
        let (odd, big) = (x & 1 == 1, x > 20);
        let bits = [odd, !odd, odd && big, odd || big, big, x % 3 == 0];
        let r = bits
            .iter()
            .enumerate()
            .map(|(b, &on)| i32::from(on) << b)
            .sum::<i32>();
        [r, (4 - x % 4) % 4, x % 5 + 30]
    };
    let want: Vec<i32> = (0..64).flat_map(expected).collect();
    assert_eq!(words(&ours[1]), want);
    if let Some(theirs) = theirs {
        assert_eq!(ours, theirs, "kernelc's PTX and nvcc's disagree");
    }
}

/// Braced values inside braced values in expressions: an aggregate
/// member's own list (`Cell{x, {limit}, 1}`, two levels deep, in a class
/// template's instance), a scalar member's `{}`, a member whose
/// constructor `{3}` calls, in `return {x, {y}, 3};` and as arguments.
/// They were E0003; the values are the expected ones, on the interpreter
/// and the emulator, and nvcc's.
#[test]
fn nested_braced_values_initialize_members_as_nvcc_does() {
    let launch = ("_Z6nestedPKiPi", &["i32[]:iota:64", "i32[]:zeros:384"][..]);
    let (_, ours, theirs) = fixture_runs("nested_braced_values.cu", launch);
    let expected = |x: i32| {
        let limit = x % 7;
        [
            x + 10 * limit + 100,
            x + 10 * (limit + 2) + 200,
            x + 10 * (limit + 1) + 6 + 5,
            x + 100 * limit + 4000,
            x + 350,
            limit,
        ]
    };
    let want: Vec<i32> = (0..64).flat_map(expected).collect();
    assert_eq!(words(&ours[1]), want);
    if let Some(theirs) = theirs {
        assert_eq!(ours, theirs, "kernelc's PTX and nvcc's disagree");
    }
}

/// Member templates overloaded with ordinary members of their name (`void
/// add(int)` beside `template <class T> void add(T *)`, static ones, an
/// in-place `load(U (&)[N])` beside `load(const int *, int *)` in a class
/// template): both are candidates, the better conversion wins, a tie goes
/// to the ordinary member, and written arguments (`a.put<int>(x)`) call
/// the template. The template was not seen (E0004 at the call); the
/// values are the expected ones, on the interpreter and the emulator,
/// and nvcc's.
#[test]
fn member_templates_overload_with_ordinary_members_as_nvcc_does() {
    let launch = (
        "_Z9overloadsPKiPi",
        &["i32[]:iota:64", "i32[]:zeros:256"][..],
    );
    let (_, ours, theirs) = fixture_runs("member_template_overloads.cu", launch);
    let expected = |x: i32| {
        let sum = 12201 + 3 * x;
        [sum, 2 * x + 600, 111 * x + 321, sum + 100 * x]
    };
    let want: Vec<i32> = (0..64).flat_map(expected).collect();
    assert_eq!(words(&ours[1]), want);
    if let Some(theirs) = theirs {
        assert_eq!(ours, theirs, "kernelc's PTX and nvcc's disagree");
    }
}

/// Runs `kernel` of the fixture `file` (`out` takes `per` words a thread)
/// on `in`, the ints 0 to 63: the words of `out` from kernelc's PTX on
/// the emulator (the interpreter's the same, `common::fixture_runs`),
/// with nvcc's PTX's the same and the `.func` names nvcc's when nvcc is
/// there; and kernelc's `.func` names.
fn words_as_nvccs(file: &str, kernel: &str, per: usize) -> (Vec<i32>, Vec<String>) {
    let dir = scratch(file.trim_end_matches(".cu"));
    let src = common::root().join("tests/fixtures/classes").join(file);
    let out = format!("i32[]:zeros:{}", 64 * per);
    let runs = common::fixture_runs(&src, &dir, (kernel, &["i32[]:iota:64", &out]));
    let names = functions(&runs.ptx);
    if let Some((text, theirs)) = runs.theirs {
        assert_eq!(names, functions(&text), "{file}: nvcc's .func names");
        assert_eq!(
            runs.ours, theirs,
            "{file}: kernelc's PTX and nvcc's disagree"
        );
    }
    (words(&runs.ours[1]), names)
}

/// Casts to lvalue references designate the operand's object:
/// `reinterpret_cast<int &>(f)` and `(int &)f` read and write a float's
/// bits, `const_cast<float &>` writes through a `const` reference,
/// `static_cast<Base &>` is the base subobject (at offset 4) and
/// `static_cast<Derived &>`, `(Derived &)b` the object again; `(float
/// &&)g` binds `float &&`. Values computed here, and nvcc's PTX's the same.
#[test]
fn lvalue_reference_casts_are_nvccs() {
    let (outs, _) = words_as_nvccs("lvalue_casts.cu", "_Z11lvalueCastsPKiPi", 4);
    for (x, got) in (0..64).zip(outs.chunks(4)) {
        let bits = (x as f32).to_bits();
        let written = f32::from_bits((bits + 1) ^ 2) * 2.0;
        let (tag, extra) = (x + 7, 3 + 2 * (x + 7));
        let want = [
            bits as i32,
            written.to_bits() as i32,
            tag + 100_000 * 11 + 1000 * (extra & 0xff),
            ((0.5 * x as f32 + 0.25) * 4.0) as i32,
        ];
        assert_eq!(got, want, "thread {x}");
    }
}

/// `decltype` as a type: of a namespace-scope variable, a local, a
/// member, an expression (a `char` sum is `int`, `c * 2.0` a `double`),
/// of a reference, in parentheses (a reference), as the scope of a member
/// type and a static constant, in a device function's parameters and
/// return type, and as template arguments. Values computed here, nvcc's
/// PTX's the same, and the `.func` names nvcc's.
#[test]
fn decltype_names_the_types_nvcc_does() {
    let (outs, names) = words_as_nvccs("decltype_types.cu", "_Z9decltypesPKiPf", 8);
    assert_eq!(
        names,
        ["_Z5twiceIfET_S0_", "_Z5twiceIiET_S0_", "_Z6scaled1Vi"]
    );
    for (n, got) in (0..64).zip(outs.chunks(8)) {
        let nf = n as f32;
        let c = n & 0x7f;
        let (a, b) = (3.0 * nf - 1.0, nf + 11.0);
        let want = [
            nf + 4.0,
            ((c * 300) as f64 / 7.0) as f32,
            b,
            a,
            (2.0 + nf) + (a + b),
            4.0 * nf,
            (8 + 10 + 100 * 16) as f32,
            (2 * n) as f32 + 0.25 * nf * 2.0,
        ];
        let got: Vec<f32> = got.iter().map(|&w| f32::from_bits(w as u32)).collect();
        assert_eq!(got, want, "thread {n}");
    }
}

/// Ref-qualified member functions: `get() const &` for lvalues (a named
/// object, a `const` one, a reference), `get() &&` for rvalues (a
/// temporary, a call's result, `static_cast<W &&>(w)`), `slot() &`
/// returning a reference, and a class template's qualified members
/// defined out of its class; names nvcc's (`_ZNKR1W3getEv`,
/// `_ZNO1W3getEv`). Values computed here, and nvcc's PTX's the same.
#[test]
fn ref_qualified_members_are_chosen_and_named_as_nvcc_does() {
    let (outs, names) = words_as_nvccs("ref_qualifiers.cu", "_Z13refQualifiersPKiPf", 4);
    assert_eq!(
        names,
        [
            "_ZNKR1W3getEv",
            "_ZNO1W3getEv",
            "_ZNO3BoxIfE4takeEv",
            "_ZNR1W4slotEv",
            "_ZNR3BoxIfE4takeEv"
        ]
    );
    for (x, got) in (0..64).zip(outs.chunks(4)) {
        let x = x as f32;
        let want = [
            x + 10.0 * (x + 1.0) + 100.0 * x,
            6.0 + 2.0 * x + 2.0 * x,
            x + 5.0,
            (x + 1.0) + 1000.0 * (x - 1.0),
        ];
        let got: Vec<f32> = got.iter().map(|&w| f32::from_bits(w as u32)).collect();
        assert_eq!(got, want, "thread {x}");
    }
}

/// A derived class names its bases' member types, nested classes and
/// constants unqualified, through two levels, and its own member type
/// hides its base's; `static_assert`s in a class (a template's too) name
/// the class's own constants (`tests/fixtures/classes/inherited_names.cu`):
/// kernelc's PTX and nvcc's on the emulator, the interpreter, and the
/// expected values.
#[test]
fn derived_classes_name_their_bases_members_as_nvcc_does() {
    let launch: (&str, &[&str]) = (
        "_Z14inheritedNamesPKiPf",
        &["i32[]:rand:64:7", "f32[]:zeros:256"],
    );
    let (_, ours, theirs) = fixture_runs("inherited_names.cu", launch);
    let ins = words(&ours[0]);
    let outs: Vec<f32> = ours[1]
        .chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    for (t, &raw) in ins.iter().enumerate() {
        let x = raw & 0xffff;
        // apply: taps 1..4 at x + t, halved; reach: width 3 * kTile plus
        // stride[0] * kTwice.
        let apply = (1..=4).map(|k| k * (x + k - 1)).sum::<i32>() as f32 * 0.5;
        let reach = (3 * 4 + (x & 7) * 8) as f32;
        let expected = [
            apply + reach,
            // sizeof: Narrow's own `short`, Grid's `int`, Grid's `Span`.
            (2 * 100 + 4 + 8) as f32,
            (x + 9) as f32 + x as f32 + (x as i16) as f32,
            // sizeof(Packet) + sizeof(Chunk<float, 3>) + origin.
            (16 + 12 + x) as f32,
        ];
        assert_eq!(outs[4 * t..4 * t + 4], expected, "thread {t}");
    }
    if let Some(theirs) = theirs {
        assert_eq!(ours, theirs, "nvcc's PTX");
    }
}
