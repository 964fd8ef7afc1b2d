//! The spelling rules and feature gates, one measured case at a time.
//!
//! `tests/forms/cases.txt` holds single PTX lines with the verdict ptxas
//! 13.5 gave them (rounding and `.approx` rules, `setp` comparisons, barrier
//! numbers, `.sync`/`.aligned`, matrix shapes and fragment sizes, type
//! tables, ...); `tests/forms/targets.txt` holds features with the set of
//! targets ptxas accepts them on. ptx-validate must give every verdict.
//! When ptxas is installed the same cases are given to it too, so the data
//! cannot drift from what ptxas really says.

use ptx_validate::{driver, validate};
use std::path::{Path, PathBuf};
use std::process::Command;

const DECL: &str = ".reg .b32 %r<9>; .reg .b64 %rd<9>; .reg .f32 %f<9>; .reg .f64 %fd<9>; \
                    .reg .pred %p<4>; .reg .b16 %h<4>; .shared .align 8 .b8 sm[64];";

/// A kernel holding `body`. `target` may carry a version, `sm_90@7.8`;
/// the default is 9.0.
fn kernel(target: &str, decl: &str, body: &str) -> String {
    let (target, version) = target.split_once('@').unwrap_or((target, "9.0"));
    format!(
        ".version {version}\n.target {target}\n.address_size 64\n.visible .entry k()\n{{\n{decl}\n{body}\nret;\n}}\n"
    )
}

fn data(name: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/forms")
        .join(name);
    std::fs::read_to_string(p).expect("forms data file")
}

fn ptxas() -> Option<PathBuf> {
    let found = driver::find_ptxas();
    if found.is_none() {
        if std::env::var("CI").is_ok_and(|v| v == "true") {
            panic!("ptxas is required in CI (CI=true) but was not found");
        }
        eprintln!("SKIPPED (ptxas not found): the cross-check of tests/forms/*.txt against ptxas");
    }
    found
}

/// ptxas's verdict on one source; each call gets its own file.
fn ptxas_accepts(ptxas: &Path, target: &str, src: &str, tag: &str) -> bool {
    let dir = std::env::temp_dir().join(format!("ptxv-forms-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(format!("{tag}.ptx"));
    std::fs::write(&file, src).unwrap();
    let ok = Command::new(ptxas)
        .arg(format!("-arch={target}"))
        .arg(&file)
        .args(["-o", "/dev/null"])
        .output()
        .is_ok_and(|o| o.status.success());
    let _ = std::fs::remove_file(&file);
    ok
}

#[test]
fn every_measured_spelling_gets_ptxas_verdict() {
    let ptxas = ptxas();
    let mut wrong = Vec::new();
    let mut n = 0;
    for (k, line) in data("cases.txt").lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (verdict, rest) = line.split_once(char::is_whitespace).expect("verdict");
        let (target, body) = rest
            .trim_start()
            .split_once(char::is_whitespace)
            .unwrap_or_else(|| panic!("bad line {k}: {line}"));
        let body = body.trim_start();
        let want = verdict == "ok";
        let src = kernel(target, DECL, body);
        let report = validate(&src);
        n += 1;
        if report.ok() != want {
            let first = report.ptxas_text("case.ptx");
            wrong.push(format!(
                "  [{target}] {body}: want {verdict}, got {}",
                first.trim()
            ));
        }
        if let Some(p) = &ptxas {
            let arch = target.split('@').next().unwrap();
            assert_eq!(
                ptxas_accepts(p, arch, &src, &format!("case{k}")),
                want,
                "the recorded ptxas verdict of `{body}` on {target} is stale"
            );
        }
    }
    assert!(n > 300, "only {n} cases read");
    assert!(
        wrong.is_empty(),
        "{} of {n} cases disagree:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

#[test]
fn every_feature_is_accepted_on_exactly_its_targets() {
    let text = data("targets.txt");
    let all: Vec<&str> = text
        .lines()
        .find_map(|l| l.strip_prefix("all "))
        .expect("an `all` line")
        .split_whitespace()
        .collect();
    let ptxas = ptxas();
    let mut wrong = Vec::new();
    let (mut name, mut decl, mut body) = ("", "", "");
    let mut checked = 0;
    for line in text.lines() {
        if let Some(v) = line.strip_prefix("feature ") {
            name = v;
        } else if let Some(v) = line.strip_prefix("decl") {
            decl = v.trim();
        } else if let Some(v) = line.strip_prefix("body ") {
            body = v;
        } else if let Some(v) = line.strip_prefix("targets") {
            let accepted: Vec<&str> = v.split_whitespace().collect();
            for (k, t) in all.iter().enumerate() {
                let want = accepted.contains(t);
                let src = kernel(t, decl, body);
                checked += 1;
                if validate(&src).ok() != want {
                    wrong.push(format!(
                        "  {name} on {t}: want {}",
                        if want { "ok" } else { "err" }
                    ));
                }
                // ptxas on every fifth pair keeps the test short while any
                // stale row still shows up within a few features.
                if let Some(p) = ptxas.as_ref().filter(|_| (checked + k) % 5 == 0) {
                    assert_eq!(
                        ptxas_accepts(p, t, &src, &format!("t{checked}")),
                        want,
                        "the recorded targets of {name} are stale ({t})"
                    );
                }
            }
        }
    }
    assert!(checked > 1000, "only {checked} pairs read");
    assert!(
        wrong.is_empty(),
        "{} of {checked} pairs disagree:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

/// ptxas's messages on `src` (one kernel), by 1-based line, whether it
/// stopped at a fatal error or crashed, and on which line it did.
fn ptxas_lines(ptxas: &Path, target: &str, src: &str) -> (Vec<u32>, Option<u32>) {
    let out = driver::assemble(ptxas, src, target, &[]).expect("run ptxas");
    let lines: Vec<u32> = out.messages.iter().filter_map(|m| m.line).collect();
    let stopped = out
        .messages
        .iter()
        .find(|m| m.severity == "fatal" && m.line.is_some());
    // Exit status 255 is a rejection; anything else but 0 is a crash, after
    // the last line ptxas spoke about.
    let crashed = !out.accepted && !out.raw.contains("Ptx assembly aborted");
    let at = match (stopped, crashed) {
        (Some(m), _) => m.line,
        (None, true) => Some(lines.iter().copied().max().unwrap_or(0)),
        (None, false) => None,
    };
    (lines, at)
}

/// Every modifier `src/modifiers.rs` forbids on a family, written on that
/// family's spelling in `tests/forms/templates.txt`, is refused by
/// ptx-validate and by ptxas: the table can only reject what ptxas rejects.
#[test]
fn every_modifier_the_table_forbids_is_refused_by_ptxas() {
    use ptx_validate::modifiers::{allowed, table};
    let ptxas = ptxas();
    let text = data("templates.txt");
    let templates: Vec<(&str, &str, &str)> = text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let (family, rest) = l.split_once(' ').expect("family");
            let (target, line) = rest.split_once(' ').expect("target");
            (family, target, line)
        })
        .collect();
    for (family, _) in &table().families {
        assert!(
            templates.iter().any(|t| t.0 == *family),
            "{family} has no spelling in tests/forms/templates.txt"
        );
    }
    let mut wrong = Vec::new();
    let mut checked = 0;
    for (family, target, line) in templates {
        let allowed = allowed(family).expect("a family of the table");
        // The modifier goes where the template's `^` is, else right after
        // the family's name (`add`, `cp.async.commit_group`).
        assert!(line.starts_with(family), "{line} is not of {family}");
        let at = line.find('^').unwrap_or(family.len());
        let line = line.replacen('^', "", 1);
        let mut lines: Vec<(String, &str)> = table()
            .judged
            .iter()
            .filter(|m| !allowed.contains(m))
            .map(|m| (format!("{}{m}{}", &line[..at], &line[at..]), *m))
            .collect();
        for (l, m) in &lines {
            if validate(&kernel(target, DECL, &format!("{l}\n$L1:"))).ok() {
                wrong.push(format!("  ptx-validate accepts `{l}` ({family} with {m})"));
            }
        }
        checked += lines.len();
        let Some(p) = &ptxas else { continue };
        // One kernel with every line; a line ptxas stops or crashes at is
        // refused, and the rest go round again without it.
        let first = 7; // the line of the first instruction in `kernel`
        loop {
            let body: Vec<&str> = lines.iter().map(|(l, _)| l.as_str()).collect();
            let src = kernel(target, DECL, &format!("{}\n$L1:", body.join("\n")));
            let arch = target.split('@').next().unwrap();
            let (spoken, stopped) = ptxas_lines(p, arch, &src);
            // A crash before any message (`cp.async.bulk...bulk_group.dec`)
            // names no line: each line is then given to ptxas alone.
            if spoken.is_empty() && stopped.is_some() {
                for (k, (l, m)) in lines.iter().enumerate() {
                    let alone = kernel(target, DECL, &format!("{l}\n$L1:"));
                    if ptxas_accepts(p, arch, &alone, &format!("{family}-{k}")) {
                        wrong.push(format!("  ptxas accepts `{l}` ({family} with {m})"));
                    }
                }
                break;
            }
            match stopped.and_then(|l| l.checked_sub(first)) {
                Some(k) if (k as usize) < lines.len() => {
                    lines.remove(k as usize);
                }
                _ => {
                    for (k, (l, m)) in lines.iter().enumerate() {
                        if !spoken.contains(&(k as u32 + first)) {
                            wrong.push(format!("  ptxas accepts `{l}` ({family} with {m})"));
                        }
                    }
                    break;
                }
            }
        }
    }
    assert!(checked > 5000, "only {checked} forbidden modifiers checked");
    assert!(
        wrong.is_empty(),
        "{} forbidden modifiers are not refused:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

/// `.target` directives as ptxas 13.5 reads them (ptxas given `-arch` of
/// the first one): `compute_90` is `sm_90`, and a later `.target` replaces
/// an earlier one (its features are the ones allowed).
#[test]
fn target_directives_as_ptxas_reads_them() {
    let ptxas = ptxas();
    let cluster = "mov.u32 %r1, %cluster_ctarank;";
    let cases = [
        (true, "sm_90", ".target compute_90", cluster),
        (
            true,
            "compute_80",
            ".target compute_80",
            "mov.u32 %r1, %tid.x;",
        ),
        (false, "compute_80", ".target compute_80", cluster),
        (true, "sm_90", ".target sm_90\n.target sm_90", cluster),
        (true, "sm_90", ".target sm_80\n.target sm_90", cluster),
        (false, "sm_90", ".target sm_90\n.target sm_80", cluster),
        (false, "sm_90", ".target sm_90\n.target foo", cluster),
    ];
    let mut wrong = Vec::new();
    for (k, (want, arch, targets, line)) in cases.into_iter().enumerate() {
        let src = format!(
            ".version 8.0\n{targets}\n.address_size 64\n.visible .entry k()\n{{\n.reg .b32 %r<4>;\n{line}\nret;\n}}\n"
        );
        if validate(&src).ok() != want {
            wrong.push(format!("  {targets:?} with `{line}`: want {want}"));
        }
        if let Some(p) = &ptxas {
            assert_eq!(
                ptxas_accepts(p, arch, &src, &format!("target{k}")),
                want,
                "the recorded ptxas verdict of {targets:?} is stale"
            );
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Module headers and kernel directives as ptxas 13.5 reads them.
#[test]
fn headers_and_directives_as_ptxas_reads_them() {
    let ptxas = ptxas();
    let kernel = |header: &str, directive: &str| {
        format!("{header}\n.visible .entry k()\n{directive}\n{{\nret;\n}}\n")
    };
    let usual = ".version 8.0\n.target sm_90\n.address_size 64";
    let tcgen05 = |v: &str| {
        format!(".version {v}\n.target sm_100a\n.address_size 64\n.visible .func f()\n{{\ntcgen05.fence::after_thread_sync;\nret;\n}}")
    };
    let func_param = |line: &str| {
        format!(".version 8.3\n.target sm_90\n.address_size 64\n.visible .func f(.param .b32 a)\n{{\n.reg .b32 %r<4>; .reg .b64 %rd<4>;\n{line}\nret;\n}}\n")
    };
    let b128 = |decl: &str| {
        format!(".version 7.8\n.target sm_90\n.address_size 64\n{decl}\n.visible .entry k()\n{{\nret;\n}}\n")
    };
    let param = |name: &str, attributes: &str| {
        format!("{usual}\n.visible .entry k(.param {attributes} {name})\n{{\nret;\n}}\n")
    };
    let param_align = |a: &str| {
        format!("{usual}\n.visible .entry k(.param .u64 .ptr .global .align {a} q)\n{{\nret;\n}}\n")
    };
    // A `.param` passed to `f`, stored to in a kernel or a device function.
    let call_param = |formal: &str, actual: &str, store: &str, kind: &str| {
        format!("{usual}\n.func f(.param {formal})\n{{\nret;\n}}\n.visible {kind} k()\n{{\n.reg .b32 %r<4>;\nmov.b32 %r1, 0;\n{{ .param {actual}; {store} call f, (q); }}\nret;\n}}\n")
    };
    let func_then_kernel = |declaration: &str| {
        format!("{usual}\n{declaration}\n.func f(.param .b32 a)\n{{\nret;\n}}\n.visible .entry k()\n{{\nret;\n}}\n")
    };
    // A call of `f` in a kernel, or in a device function `g` that the
    // kernel calls (`reached`) or not: `ptxas` checks call sequences only
    // in the functions it compiles.
    let call_in = |body: &str, reached: bool| {
        let caller = ".func (.param .b32 r) f(.param .b32 a)\n{\n.reg .b32 %r<2>;\nld.param.b32 %r1, [a];\nst.param.b32 [r], %r1;\nret;\n}\n";
        let call_g = if reached {
            "{ .param .b32 x; st.param.b32 [x], 0; call g, (x); }"
        } else {
            ""
        };
        format!("{usual}\n{caller}.func g(.param .b32 x)\n{{\n.reg .b32 %r<2>;\n{body}\nret;\n}}\n.visible .entry k()\n{{\n.reg .b32 %r<2>;\n{call_g}\nret;\n}}\n")
    };
    let call_block = |inner: &str| format!("{{ .param .b32 a0; .param .b32 r0; {inner} }}");
    let args = "st.param.b32 [a0], 1;";
    let call = "call (r0), f, (a0);";
    let read_result = "ld.param.b32 %r1, [r0];";
    let module = |decls: &str, params: &str, version: &str| {
        format!(".version {version}\n.target sm_90\n.address_size 64\n{decls}\n.visible .entry k({params})\n{{\nret;\n}}\n")
    };
    // A kernel naming shared variables `a` and `b`, declared in the module
    // or in its body.
    let shared = |module_decls: &str, body_decls: &str| {
        format!("{usual}\n{module_decls}\n.visible .entry k(.param .u64 p)\n{{\n.reg .b32 %r<4>; .reg .b64 %rd<2>;\n{body_decls}\nld.param.u64 %rd1, [p];\nmov.u32 %r1, a; mov.u32 %r2, b; add.u32 %r3, %r1, %r2;\nst.global.u32 [%rd1], %r3;\nret;\n}}\n")
    };
    let cases = [
        // Static shared memory as ptxas lays it out (seed 804): the body's
        // variables first, then the module's the kernel names, each in the
        // order declared and at a multiple of its alignment.
        (
            true,
            shared(".shared .align 65536 .b8 a[8]; .shared .align 16 .b8 b[4096];", ""),
        ),
        (
            false,
            shared(".shared .align 16 .b8 b[4096]; .shared .align 65536 .b8 a[8];", ""),
        ),
        (
            false,
            shared(".shared .align 16 .b8 b[8]; .shared .align 65536 .b8 a[8];", ""),
        ),
        (
            true,
            shared(
                ".shared .align 16 .b8 b[8]; .shared .align 65536 .b8 c[8]; .shared .align 16 .b8 a[8];",
                "",
            ),
        ),
        (
            true,
            shared(".shared .align 16 .b8 b[8];", ".shared .align 65536 .b8 a[8];"),
        ),
        (
            false,
            shared(".shared .align 65536 .b8 a[8];", ".shared .align 16 .b8 b[8];"),
        ),
        // Random mutants, seeds 201-203: a call's result is read after the
        // call (`Function call sequence invalid`), in the functions ptxas
        // compiles.
        (
            true,
            call_in(&call_block(&format!("{args} {call} {read_result}")), true),
        ),
        (
            false,
            call_in(&call_block(&format!("{args} {read_result} {call}")), true),
        ),
        (
            false,
            call_in(&call_block(&format!("{args} {read_result}")), true),
        ),
        (
            false,
            call_in(
                &call_block(&format!("{args} {call} ld.param.b32 %r1, [a0];")),
                true,
            ),
        ),
        (
            true,
            call_in(&call_block(&format!("{args} {read_result}")), false),
        ),
        // ... and never through `.param::entry`.
        (
            false,
            call_in(
                &call_block(&format!("{args} {call} ld.param::entry.b32 %r1, [r0];")),
                true,
            )
            .replace(".version 8.0", ".version 8.3"),
        ),
        // An immediate stored below a call's argument crashes ptxas (from a
        // register it assembles).
        (
            false,
            call_in(
                &call_block(&format!("st.param.b32 [a0+-4], 1; {call}")),
                true,
            ),
        ),
        (
            true,
            call_in(
                &call_block(&format!("st.param.b32 [a0+-8], %r1; {call}")),
                true,
            ),
        ),
        // 64 KiB of `.const` data at most; a kernel's parameters in 4,352
        // bytes before PTX ISA 8.1, 32,764 from it.
        (true, module(".const .align 4 .b8 c1[65536];", "", "8.0")),
        (false, module(".const .align 1 .b8 c1[65537];", "", "8.0")),
        (
            false,
            module(
                ".const .align 4 .b8 c1[40000];\n.const .align 4 .b8 c2[30000];",
                "",
                "8.0",
            ),
        ),
        (
            true,
            module(
                "",
                ".param .align 4 .b8 p[4000], .param .align 8 .b8 q[352]",
                "8.0",
            ),
        ),
        (true, module("", ".param .align 4 .b8 p[32764]", "9.0")),
        (false, module("", ".param .align 4 .b8 p[32765]", "9.0")),
        (
            false,
            module("", ".param .align 64 .b8 p[4294967296]", "9.0"),
        ),
        // A `.version` below the target's floor is judged at the first
        // directive after the header: an empty module passes (nvcc's PTX
        // of a host-only program), one with a variable does not.
        (
            true,
            ".version 6.3\n.target sm_90\n.address_size 64\n".to_string(),
        ),
        (
            false,
            ".version 6.3\n.target sm_90\n.address_size 64\n.global .u32 g;\n".to_string(),
        ),
        // Directives the checks skip count as that first directive too.
        (
            false,
            ".version 6.3\n.target sm_90\n.address_size 64\n.file 1 \"a.cu\"\n".to_string(),
        ),
        (
            false,
            ".version 6.3\n.target sm_90\n.address_size 64\n.pragma \"nounroll\";\n".to_string(),
        ),
        // `.loc` belongs inside a function.
        (
            false,
            ".version 8.0\n.target sm_90\n.address_size 64\n.loc 1 2 3\n".to_string(),
        ),
        // A module's `.shared` variable counts towards a kernel's 48 KiB
        // only when the kernel names it.
        (true, module(".shared .align 4 .b8 s[49153];", "", "8.0")),
        // Laid out as 32-bit offsets at each parameter's alignment: the
        // padding counts, and the end wraps past 4 GiB.
        (
            false,
            module("", ".param .b8 p[4337], .param .align 16 .b8 q[8]", "8.0"),
        ),
        (
            true,
            module("", ".param .b8 p[4294967295], .param .u32 q", "8.0"),
        ),
        (
            false,
            module(
                "",
                ".param .b8 p[4294967295], .param .align 16 .b8 q[4353]",
                "8.0",
            ),
        ),
        // Seeds 301-305: a linkage twice, a directive without its value.
        (
            false,
            format!("{usual}\n.visible.visible .entry k()\n{{\nret;\n}}\n"),
        ),
        (false, kernel(usual, ".maxnreg.maxnreg 168")),
        (true, kernel(usual, ".maxnreg 168")),
        // `.noreturn` only on a function without results.
        (
            true,
            func_then_kernel(".func h(.param .b32 a) .noreturn\n{\nret;\n}"),
        ),
        (
            false,
            func_then_kernel(".func (.param .b32 r) h(.param .b32 a) .noreturn\n{\nret;\n}"),
        ),
        (true, kernel(usual, ".maxntid 128, 1, 1")),
        (false, kernel(usual, ".maxntid 0")),
        (false, kernel(usual, ".maxntid 128, 0")),
        (false, kernel(usual, ".reqntid 0")),
        (false, kernel(usual, ".maxnreg 0")),
        (false, kernel(usual, ".minnctapersm 0")),
        (true, kernel(usual, ".reqnctapercluster 0")),
        (true, kernel(usual, ".maxclusterrank 0")),
        (
            false,
            kernel(".version 8.0\n.address_size 64\n.target sm_90", ""),
        ),
        (
            false,
            kernel(".version 8\n.target sm_90\n.address_size 64", ""),
        ),
        (true, param_align("16")),
        (false, param_align("65535")),
        (false, param_align("0")),
        (true, param("q", ".u64 .ptr .align 16")),
        (true, param("q", ".align 16 .u64 .ptr .global")),
        (false, param("q", ".u64 .global")),
        (false, param("q", ".u64 .align 16 .ptr .global")),
        (false, param("q", ".u64 .ptr .global .ptr")),
        (false, param("q", ".ptr .u64 .global")),
        (false, kernel(&format!("{usual}\n.address_size 64"), "")),
        // `.version 8.10` is 8.10, above tcgen05's 8.6; 8.1 is below it.
        (true, kernel(&tcgen05("8.10"), "")),
        (false, kernel(&tcgen05("8.1"), "")),
        (true, func_param("ld.param::func.b32 %r1, [a];")),
        (true, func_param("ld.param::func.b32 %r1, [%rd1];")),
        (true, func_param("ld.param::entry.b32 %r1, [a];")),
        // A `.shared` `.b128` variable needs no PTX ISA 8.3; others do.
        (true, b128(".shared .align 16 .b128 x[4];")),
        (false, b128(".global .b128 x;")),
        (false, b128(".const .b128 x;")),
        // A device function's declaration may end without its `;`; a
        // kernel's may not.
        (true, func_then_kernel(".func f(.param .b32 a)")),
        (true, func_then_kernel(".func f(.param .b32 a);")),
        (false, func_then_kernel(".visible .entry k2()")),
        // ptxas 13.5 crashes on a store through a register to `.param` in a
        // kernel from sm_90 on (cases.txt), but not in a device function;
        (true, func_param("st.param.b32 [%rd1], %r1;")),
        // A store to an address in a special register assembles in a
        // device function (in a kernel ptxas crashes: cases.txt).
        (true, func_param("st.u32 [%laneid], %r1;")),
        // A kernel's stores into a call's `.param` far past its end crash
        // ptxas, but where that starts depends on the call (byval_helpers'
        // `st.param.f32 [param0+56]` into a 32-byte `param0` assembles);
        // these assemble:
        (
            true,
            call_param(".b32 x", ".b32 q", "st.param.b8 [q+11], %r1;", ".entry"),
        ),
        (
            true,
            call_param(".b32 x", ".b32 q", "st.param.b8 [q+12], %r1;", ".func"),
        ),
        (
            true,
            call_param(
                ".b32 x",
                ".b32 q",
                "st.param.b8 [q+4294967296], %r1;",
                ".entry",
            ),
        ),
        (true, kernel(usual, ".reqnctapercluster 2, 1, 1")),
        (
            false,
            kernel(usual, ".reqnctapercluster 2, 1, 1\n.maxclusterrank 8"),
        ),
    ];
    let mut wrong = Vec::new();
    for (k, (want, src)) in cases.iter().enumerate() {
        if validate(src).ok() != *want {
            wrong.push(format!("  {src:?}: want {want}"));
        }
        if let Some(p) = &ptxas {
            assert_eq!(
                ptxas_accepts(
                    p,
                    &ptx_validate::driver::arch_of(src),
                    src,
                    &format!("header{k}")
                ),
                *want,
                "the recorded ptxas verdict of {src:?} is stale"
            );
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
