//! Diagnostic codes, `--explain` texts, warnings, parser recovery, and
//! snapshots of the rendered output for a representative set of errors and
//! warnings (read them when they change: they are what users see).

use frontend::codes::{explain, CODES};
use frontend::{check_with_warnings, render_diagnostics, Code, Options};

/// Everything `src` reports, rendered (errors and warnings alike).
fn rendered(src: &str) -> String {
    let diags = match check_with_warnings(src, &Options::default()) {
        Ok((_, warnings)) => warnings,
        Err(d) => d,
    };
    render_diagnostics("t.cu", src, &diags)
}

/// The codes `src` reports, in order.
fn codes(src: &str) -> Vec<&'static str> {
    let diags = match check_with_warnings(src, &Options::default()) {
        Ok((_, warnings)) => warnings,
        Err(d) => d,
    };
    diags
        .iter()
        .map(|d| d.code.map_or("none", Code::as_str))
        .collect()
}

#[test]
fn every_code_is_documented_and_explained() {
    let docs = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../docs/diagnostics.md"
    ))
    .unwrap();
    for c in CODES {
        assert!(
            docs.contains(&format!("`{}`", c.code)),
            "{} missing from docs",
            c.code
        );
        let text = explain(c.code.as_str()).unwrap();
        assert!(text.contains("Example:") && text.contains("Fix:"), "{text}");
    }
    assert!(explain("e0001").is_some());
    assert!(explain("E9999").is_none());
}

#[test]
fn errors_get_the_code_of_their_kind() {
    let k = |body: &str| {
        format!("struct P {{ float x; }};\n__global__ void k(float *o, const float *c, P *p, int n) {{ {body} }}")
    };
    assert_eq!(codes(&k("o[0] = nope;")), ["E0001"]);
    assert_eq!(codes(&k("int *q = new int;")), ["E0002"]);
    assert_eq!(codes(&k("o[0] = 1")), ["E0003"]);
    assert_eq!(codes(&k("o[0] = p[0] + 1.0f;")), ["E0004"]);
    assert_eq!(codes(&k("c[0] = 1.0f;")), ["E0005"]);
    assert_eq!(codes(&k("int a; int a;")), ["W0001", "E0006", "W0001"]);
    assert_eq!(codes(&k("o[0] = make_float2(1.0f);")), ["E0007"]);
    assert_eq!(codes(&k("p.x = 1;")), ["E0008"]);
    assert_eq!(codes(&k("float b[n];")), ["E0009"]);
    assert_eq!(codes("#error stop\n"), ["E0010"]);
    assert_eq!(codes(&k("break;")), ["E0011"]);
    assert_eq!(codes("__global__ int k() { return 0; }"), ["E0012"]);
}

#[test]
fn warnings_are_returned_on_success() {
    let src = "__global__ void k(float *o, unsigned n, double d) {
        int i = 3.5; float f = d; char c = 300; int unused = 4;
        int j = threadIdx.x;
        if (j < n) o[j] = f + i + c;
        float ok = 0.1; unsigned char uc = 255; int _skip = 1; int three = 3.0;
        if (j < 4) o[0] = ok + uc + three;
        if (threadIdx.x < 32) o[1] = 0;
    }";
    let (_, w) = check_with_warnings(src, &Options::default()).unwrap();
    let got: Vec<_> = w.iter().map(|d| d.code.unwrap().as_str()).collect();
    assert_eq!(got, ["W0002", "W0002", "W0002", "W0001", "W0003"], "{w:#?}");
}

#[test]
fn maybe_unused_variables_get_no_warning() {
    let k = |body: &str| format!("__global__ void k(float *o) {{ {body} o[0] = 1.0f; }}");
    // Without the attribute, each unused variable is W0001.
    assert_eq!(codes(&k("int a = 1;")), ["W0001"]);
    assert_eq!(codes(&k("int a = 1, b;")), ["W0001", "W0001"]);
    for marked in [
        "[[maybe_unused]] int a = 1;",
        "[[maybe_unused]] int a = 1, b;",
        "int a [[maybe_unused]] = 1;",
        "[[gnu::unused]] const float a = o[1];",
        "__attribute__((unused)) int a;",
        "[[maybe_unused]] auto a = o[2];",
        "for ([[maybe_unused]] int a = 0;;) break;",
    ] {
        assert_eq!(codes(&k(marked)), Vec::<&str>::new(), "{marked}");
    }
    // The attribute covers its own declarators only.
    assert_eq!(codes(&k("int a [[maybe_unused]] = 1, b = 2;")), ["W0001"]);
    assert_eq!(
        codes(&k("[[maybe_unused]] int a = 1; int b = 2;")),
        ["W0001"]
    );
    // The other standard hints change nothing.
    let hints = "__device__ int f(int x) { int r = 0; switch (x) { case 0: r = 1; [[fallthrough]];\n\
        case 1: r += 2; break; [[likely]] default: r = 5; } if (x > 9) [[unlikely]] { r = 7; } return r; }\n\
        [[nodiscard]] __device__ int g(int x) { return f(x) * 2; }\n\
        __global__ void k(int *o) { o[0] = g(o[1]); }";
    assert_eq!(codes(hints), Vec::<&str>::new());
}

#[test]
fn parser_recovers_and_sema_reports_other_functions() {
    let src = "__device__ int f(int x) {\n    int y = x + 1\n    return y;\n}\n\
        __global__ void k(float *out) {\n    out[0] = (out[1] * 2;\n}\n\
        __global__ void g(float *out) {\n    out[0] = out + 1;\n}\n";
    assert_eq!(codes(src), ["E0003", "E0003", "E0004"]);
}

#[test]
fn snapshot_undeclared_with_typo_help() {
    insta::assert_snapshot!(rendered(
        "__global__ void k(float *out, float scale) {\n    out[0] = scael * 2.0f;\n}\n"
    ));
}

#[test]
fn snapshot_missing_semicolon_and_paren() {
    insta::assert_snapshot!(rendered(
        "__global__ void k(int *p) {\n    p[0] = 1\n    p[1] = (p[0] + 2;\n}\n"
    ));
}

#[test]
fn snapshot_member_access_mistakes() {
    insta::assert_snapshot!(rendered(
        "struct P { float x, y; };\n__global__ void k(P *p, P q) {}\n\
         __global__ void m(P *p) {\n    p.x = 1.0f;\n    p->z = 2.0f;\n}\n"
    ));
}

#[test]
fn snapshot_not_supported() {
    insta::assert_snapshot!(rendered(
        "__global__ void k(int *o) {\n    int *q = new int[4];\n    o[0] = q[0];\n}\n"
    ));
}

#[test]
fn snapshot_warnings() {
    insta::assert_snapshot!(rendered(
        "__global__ void k(float *o, unsigned n, double d) {\n    int i = 3.5;\n    float f = d;\n    char c = 300;\n    int unused = 4;\n    int j = threadIdx.x;\n    if (j < n) o[j] = f + i + c;\n}\n"
    ));
}

#[test]
fn snapshot_cxx_misuse() {
    insta::assert_snapshot!(rendered(
        "#pragma GCC unroll 4\n__device__ void inc(int &x) { x++; }\n__global__ void k(const float *p, int *o, int i) {\n    inc(i + 1);\n    int *q = static_cast<int *>(p);\n    float f{i};\n    static_assert(sizeof(float) == 8, \"float is 8 bytes\");\n    for (float x : p) o[0] = x;\n}\n"
    ));
}

#[test]
fn cxx_codes() {
    assert_eq!(
        codes("#pragma foo\n__global__ void k() {}"),
        Vec::<&str>::new()
    );
    assert_eq!(codes("__global__ void k() {\n#pragma foo\n}"), ["W0006"]);
    assert_eq!(
        codes("__global__ void k(float *o, int i) { float f{i}; o[0] = f; }"),
        ["W0005"]
    );
    assert_eq!(codes("static_assert(0, \"no\");"), ["E0013"]);
    assert_eq!(
        codes("__global__ void k(int i) { constexpr int c = i; (void)c; }"),
        ["E0009"]
    );
}

/// Every diagnostic of `src` (checked, then lowered if it checks), with
/// the stage's error limit removed so that none is cut.
fn all_diagnostics(src: &str) -> Vec<frontend::Diagnostic> {
    let opts = Options {
        error_limit: 0,
        ..Options::default()
    };
    match check_with_warnings(src, &opts) {
        Err(d) => d,
        Ok((program, mut warnings)) => {
            if let Err(d) = frontend::lower(&program) {
                warnings.extend(d);
            }
            warnings
        }
    }
}

#[test]
fn every_diagnostic_carries_a_code_of_its_severity() {
    // The broken corpus, and every corpus kernel cut short at a few places
    // (each cut leaves an unfinished construct for the lexer, the
    // preprocessor, the parser or the checker to report).
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/corpus");
    let mut sources = Vec::new();
    for dir in [format!("{root}/broken"), root.to_string()] {
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "cu"))
            .collect();
        files.sort();
        for path in files {
            let text = std::fs::read_to_string(&path).unwrap();
            for cut in [
                text.len(),
                text.len() / 3,
                text.len() / 2,
                text.len() * 4 / 5,
            ] {
                let cut = (cut..=text.len())
                    .find(|&i| text.is_char_boundary(i))
                    .unwrap();
                sources.push((path.display().to_string(), text[..cut].to_string()));
            }
        }
    }
    let mut seen = 0;
    for (name, src) in &sources {
        for d in all_diagnostics(src) {
            seen += 1;
            let code = d
                .code
                .unwrap_or_else(|| panic!("{name}: no code on `{}`", d.message));
            assert_eq!(
                code.is_warning(),
                d.severity == frontend::Severity::Warning,
                "{name}: {code} on `{}`",
                d.message
            );
            assert!(frontend::codes::lookup(code.as_str()).is_some(), "{code}");
        }
    }
    assert!(
        seen > 100,
        "only {seen} diagnostics: the inputs lost their mistakes"
    );
}

#[test]
fn only_later_stages_make_diagnostics_without_a_code() {
    // `Diagnostic::without_code` is for memory-space inference, the backend
    // and kernel faults; every constructor the frontend may use takes a
    // `Code`, so a frontend site without one does not compile, and this
    // keeps the one escape out of the frontend.
    let src = concat!(env!("CARGO_MANIFEST_DIR"), "/src");
    let mut stack = vec![std::path::PathBuf::from(src)];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|x| x == "rs") && !path.ends_with("diag.rs") {
                let text = std::fs::read_to_string(&path).unwrap();
                assert!(
                    !text.contains("without_code"),
                    "{} makes a diagnostic without a code",
                    path.display()
                );
            }
        }
    }
}

#[test]
fn every_code_round_trips_and_has_one_entry() {
    for c in CODES {
        assert_eq!(
            frontend::codes::lookup(c.code.as_str()).unwrap().code,
            c.code
        );
        assert_eq!(c.code.info().title, c.title);
        assert_eq!(CODES.iter().filter(|o| o.code == c.code).count(), 1);
    }
}

#[test]
fn a_code_does_not_depend_on_the_names_in_its_message() {
    // When codes came from phrases of the message, a name or text quoted
    // in it could select another code: `123duplicate` was E0006
    // (redefinition), a `static_assert` text saying "must be a constant"
    // E0009. Each site now names its own.
    assert_eq!(
        codes("__global__ void k(int *o) { o[0] = 123duplicate; }"),
        ["E0010"]
    );
    assert_eq!(
        codes("static_assert(0, \"the size must be a constant\");"),
        ["E0013"]
    );
}
