//! C++ access control in device code (issue 26): `public`/`protected`/
//! `private` members and bases, a `class`'s private default and a
//! `struct`'s public one, friends. nvcc is the oracle: every program here
//! that kernelc accepts nvcc accepts too (and ptxas takes kernelc's PTX, and
//! the kernels compute what C++ says on the interpreter and the emulator),
//! and every one kernelc rejects with E0008 at the member nvcc rejects.

mod common;

use std::path::Path;
use std::process::Command;

use common::{assert_ptxas_accepts, kernelc, rejected_with, scratch, stderr};
use kernelc::run::{Engine, RunRequest};

/// Friend class and function, a private constructor behind a static
/// factory and a friend, a `struct`'s public members, a member of a nested
/// class defined outside it reading its enclosing class's private static,
/// `protected` members used by a derived class's member, a lambda in a
/// member reading a private member through `this`. Its `k` writes 59.
const FRIENDS_AND_NESTING: &str = r#"
struct Pt { int x, y; };
class Box {
    int v;
    static constexpr int kScale = 3;
    __device__ Box(int x) : v(x) {}
    friend class Maker;
    friend __device__ int peek(const Box &b);
  public:
    __device__ static Box make(int x) { return Box(x); }
    __device__ int get() const { return v; }
    __device__ int viaLambda() const { auto f = [this](int a) { return a * v; }; return f(2); }
    struct Inner {
        int w;
        __device__ int scaled() const;
    };
};
__device__ int peek(const Box &b) { return b.v; }
__device__ int Box::Inner::scaled() const { return kScale * w; }
struct Maker {
    __device__ static Box build(int x) { return Box(x + 1); }
};
class Base {
  protected:
    int p;
    __device__ int prot() const { return p * 3; }
  public:
    __device__ Base() : p(5) {}
};
class Derived : public Base {
  public:
    __device__ int use() const { return prot() + p; }
};
__global__ void k(int *out) {
    Box b = Box::make(7);
    Pt q; q.x = 1; q.y = 2;
    Derived d;
    Box::Inner in; in.w = 2;
    out[0] = b.get() + peek(b) + in.scaled() + Maker::build(1).get() + q.x + q.y + d.use()
        + b.viaLambda();
}
"#;

/// A class template's private members read by its members (of another
/// object too) and by a friend `operator*` defined in it; a private base
/// used by the derived class's members; a protected base's members used
/// by a class derived from the derived one; a private typedef. Its `k`
/// writes 90.
const TEMPLATES_AND_BASES: &str = r#"
template <typename T> class Vec2 {
    T x, y;
  public:
    __device__ Vec2(T a, T b) : x(a), y(b) {}
    __device__ Vec2 operator+(const Vec2 &o) const { return Vec2(x + o.x, y + o.y); }
    __device__ T sum() const { return this->x + y; }
    friend __device__ Vec2 operator*(T s, const Vec2 &v) { return Vec2(s * v.x, s * v.y); }
};
struct Engine {
    __device__ int power() const { return 6; }
};
class Car : Engine {
  public:
    __device__ int speed() const { return power() * 10; }
};
class Part : protected Engine {};
class Assembly : public Part {
  public:
    __device__ int check() const { return power() + 1; }
};
class Meter {
    typedef int count_t;
    count_t n;
  public:
    __device__ Meter() : n(3) {}
    __device__ count_t read() const { count_t r = n; return r; }
};
__global__ void k(int *out) {
    Vec2<int> a(1, 2), b(3, 4);
    Vec2<int> c = 2 * (a + b);
    Car car;
    Assembly as;
    Meter m;
    out[0] = c.sum() + car.speed() + as.check() + m.read();
}
"#;

/// Code C++ checks with a member's rights though it is written elsewhere:
/// the implicit default constructor of a friend class constructs a member
/// whose constructor is private; a default argument names a private static
/// member at a call from outside. Its `k` writes 5.
const IMPLICIT_RIGHTS: &str = r#"
class A {
    __device__ A() : v(1) {}
    int v;
    friend struct B;
    friend struct B2;
  public:
    __device__ int get() const { return v; }
};
struct B { A a; __device__ B() {} __device__ int get() const { return a.get(); } };
struct B2 { A a; __device__ int get() const { return a.get(); } };
class C {
    static constexpr int k = 3;
  public:
    __device__ static int f(int x = k) { return x; }
};
__global__ void k(int *out) { B b; B2 b2; out[0] = b.get() + b2.get() + C::f(); }
"#;

/// CRTP whose base calls the derived class's private member, which the
/// derived class allows by befriending the base's instance. Its `k`
/// writes 12.
const CRTP_FRIEND: &str = r#"
template <class D> struct Base {
    __device__ int run() const { return static_cast<const D *>(this)->impl() + 1; }
};
class Impl : public Base<Impl> {
    friend struct Base<Impl>;
    __device__ int impl() const { return 11; }
};
__global__ void k(int *out) { Impl i; out[0] = i.run(); }
"#;

/// Programs nvcc rejects for access, each with what kernelc must say and
/// where (`line:column` of the member's name in the kernel).
const REJECTED: &[(&str, &str, &str, &str)] = &[
    (
        "private member function (the issue's example)",
        "class Counter {\n    int n;\n  public:\n    __device__ Counter() : n(0) {}\n    __device__ void inc() { ++n; }\n  private:\n    __device__ void reset() { n = 0; }\n};\n__global__ void k(int *out) { Counter c; c.inc(); c.reset(); out[0] = 1; }\n",
        "member `Counter::reset` is inaccessible",
        "9:53",
    ),
    (
        "private data member, a class's default",
        "class Counter {\n    int n;\n  public:\n    __device__ Counter() : n(0) {}\n};\n__global__ void k(int *out) { Counter c; out[0] = c.n; }\n",
        "member `Counter::n` is inaccessible",
        "6:53",
    ),
    (
        "private default constructor",
        "class Token {\n    __device__ Token() {}\n  public:\n    int v;\n};\n__global__ void k(int *out) { Token t; out[0] = 1; }\n",
        "member `Token::Token` is inaccessible",
        "6:37",
    ),
    (
        "private constructor of a temporary",
        "class Token {\n    int v;\n    __device__ Token(int x) : v(x) {}\n  public:\n    __device__ int get() const { return v; }\n};\n__global__ void k(int *out) { out[0] = Token(1).get(); }\n",
        "member `Token::Token` is inaccessible",
        "7:40",
    ),
    (
        "protected member outside the class",
        "struct Base {\n  protected:\n    int p;\n  public:\n    __device__ Base() : p(5) {}\n};\nstruct Derived : Base {\n    __device__ int get() const { return p; }\n};\n__global__ void k(int *out) { Derived d; out[0] = d.p; }\n",
        "member `Base::p` is inaccessible",
        "10:53",
    ),
    (
        "public member of a private base",
        "struct Base {\n    __device__ int get() const { return 4; }\n};\nclass Derived : Base {\n  public:\n    __device__ int twice() const { return 2 * get(); }\n};\n__global__ void k(int *out) { Derived d; out[0] = d.get(); }\n",
        "member `Base::get` is inaccessible through `Derived`",
        "8:53",
    ),
    (
        "private static member function",
        "class Box {\n    __device__ static int secret() { return 42; }\n  public:\n    __device__ static int open() { return secret(); }\n};\n__global__ void k(int *out) { out[0] = Box::open() + Box::secret(); }\n",
        "member `Box::secret` is inaccessible",
        "6:54",
    ),
    (
        "private static data member",
        "class Box {\n    static constexpr int kSecret = 42;\n  public:\n    __device__ static int open() { return kSecret; }\n};\n__global__ void k(int *out) { out[0] = Box::kSecret; }\n",
        "member `Box::kSecret` is inaccessible",
        "6:40",
    ),
    (
        "private operator chosen for `+`",
        "class V {\n    float x;\n    __device__ V operator+(const V &o) const { return V(x + o.x); }\n  public:\n    __device__ V(float a) : x(a) {}\n    __device__ float get() const { return x; }\n};\n__global__ void k(float *out) { V a(1.0f), b(2.0f); out[0] = (a + b).get(); }\n",
        "member `V::operator+` is inaccessible",
        "8:62",
    ),
    (
        "private member of a struct after `private:`",
        "struct S {\n    int a;\n  private:\n    int b;\n  public:\n    __device__ S() : a(1), b(2) {}\n};\n__global__ void k(int *out) { S s; out[0] = s.a + s.b; }\n",
        "member `S::b` is inaccessible",
        "8:53",
    ),
    (
        "protected member in an unrelated class's member",
        "struct Base {\n  protected:\n    __device__ int hidden() const { return 3; }\n};\nstruct Other {\n    __device__ int peek(const Base &b) const { return b.hidden(); }\n};\n__global__ void k(int *out) { Base b; Other o; out[0] = o.peek(b); }\n",
        "member `Base::hidden` is inaccessible",
        "6:57",
    ),
    (
        "private member of a class template's instance",
        "template <typename T> class Cell {\n    T v;\n  public:\n    __device__ Cell(T x) : v(x) {}\n};\n__global__ void k(float *out) { Cell<float> c(2.0f); out[0] = c.v; }\n",
        "member `Cell<float>::v` is inaccessible",
        "6:65",
    ),
    (
        "private conversion function",
        "class Wrap {\n    int v;\n    __device__ operator int() const { return v; }\n  public:\n    __device__ Wrap(int x) : v(x) {}\n};\n__global__ void k(int *out) { Wrap w(3); int i = w; out[0] = i; }\n",
        "member `Wrap::operator int` is inaccessible",
        // At the variable the conversion initializes.
        "7:46",
    ),
    (
        "a friend's rights are its own",
        "class Box {\n    int v;\n    friend struct Maker;\n  public:\n    __device__ Box() : v(1) {}\n};\nstruct Maker { __device__ static int read(const Box &b) { return b.v; } };\nstruct Stranger { __device__ static int read(const Box &b) { return b.v; } };\n__global__ void k(int *out) { Box b; out[0] = Maker::read(b) + Stranger::read(b); }\n",
        "member `Box::v` is inaccessible",
        "8:71",
    ),
    (
        "CRTP without the friend",
        "template <class D> struct Base {\n    __device__ int run() const { return static_cast<const D *>(this)->impl() + 1; }\n};\nclass Impl : public Base<Impl> {\n    __device__ int impl() const { return 11; }\n};\n__global__ void k(int *out) { Impl i; out[0] = i.run(); }\n",
        "member `Impl::impl` is inaccessible",
        "2:71",
    ),
];

/// nvcc's verdict on `source` (`-ptx -arch=sm_90`): whether it compiles;
/// `None` after a loud skip notice when nvcc is missing (a failure in CI).
fn nvcc_accepts(source: &str, what: &str) -> Option<bool> {
    let nvcc = common::nvcc_or_skip(&format!("{what} through nvcc"))?;
    let dir = scratch("access-nvcc");
    let src = dir.join("a.cu");
    std::fs::write(&src, source).unwrap();
    let out = Command::new(nvcc)
        .args(["-ptx", "-arch=sm_90"])
        .arg(&src)
        .arg("-o")
        .arg(dir.join("a.ptx"))
        .output()
        .expect("cannot run nvcc");
    Some(out.status.success())
}

/// kernelc's PTX of `source` for sm_90, assembled by ptxas; the source's
/// path, for a run.
fn compiles(name: &str, source: &str) -> std::path::PathBuf {
    let dir = scratch(name);
    let src = dir.join("a.cu");
    std::fs::write(&src, source).unwrap();
    let out = dir.join("a.ptx");
    let o = kernelc(&[
        "-arch=sm_90",
        src.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{name}: {}", stderr(&o));
    let ptx = std::fs::read_to_string(&out).unwrap();
    assert_ptxas_accepts(&ptx, "sm_90", name);
    src
}

/// What `k(int *out)` writes to `out[0]` on one thread, on `engine`.
fn out0(src: &Path, engine: Engine) -> i32 {
    let req = RunRequest {
        input: src.to_path_buf(),
        kernel: "k".into(),
        grid: [1, 1, 1],
        block: [1, 1, 1],
        sm: 90,
        engine,
        args: vec!["i32[]:zeros:1".into()],
        ..RunRequest::default()
    };
    common::i32s(&common::run_buffers(&req)[0])[0]
}

#[test]
fn members_named_where_cxx_allows_compile_and_run() {
    for (name, source, expected) in [
        ("friends-and-nesting", FRIENDS_AND_NESTING, 59),
        ("templates-and-bases", TEMPLATES_AND_BASES, 90),
        ("implicit-rights", IMPLICIT_RIGHTS, 5),
        ("crtp-friend", CRTP_FRIEND, 12),
    ] {
        if let Some(ok) = nvcc_accepts(source, name) {
            assert!(ok, "nvcc rejects {name}, which must be valid C++");
        }
        let src = compiles(name, source);
        for engine in [Engine::Interp, Engine::Emu] {
            assert_eq!(out0(&src, engine), expected, "{name} on {engine:?}");
        }
    }
}

#[test]
fn members_named_where_cxx_forbids_are_located_errors() {
    for (what, source, message, at) in REJECTED {
        if let Some(ok) = nvcc_accepts(source, what) {
            assert!(!ok, "nvcc accepts `{what}`, so kernelc must too");
        }
        let err = rejected_with("access", source, "E0008");
        assert!(err.contains(message), "{what}:\n{err}");
        assert!(
            err.contains(&format!("e.cu:{at}")),
            "{what}: not at {at}:\n{err}"
        );
        assert!(!err.contains("panicked"), "{what}:\n{err}");
    }
}

#[test]
fn an_inaccessible_member_points_at_its_declaration() {
    let (_, source, _, _) = REJECTED[0];
    let err = rejected_with("access-note", source, "E0008");
    // The declaration of `reset`, under `private:`, is labelled.
    assert!(err.contains("7 │     __device__ void reset()"), "{err}");
    assert!(err.contains("declared private here"), "{err}");
    let (_, source, _, _) = REJECTED[5];
    let err = rejected_with("access-base", source, "E0008");
    assert!(
        err.contains("`Base` is a private base of `Derived`"),
        "{err}"
    );
}
