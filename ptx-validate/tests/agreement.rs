//! Agreement with real ptxas, measured.
//!
//! The valid corpus (`tests/corpus/valid`: kernelc's and nvcc 13.5's PTX for
//! the samples, and the examples of ptx-facts.md) must be accepted by
//! ptx-validate, and by ptxas when it is installed. Invalid PTX is made by
//! systematic mutation of the valid files (one operator at a time, at the
//! first few sites it applies to); each mutant is judged by both tools and
//! the agreement rate is printed. No valid file may be rejected; agreement
//! on the mutants must be at least 98%.

use ptx_validate::driver;
use std::path::{Path, PathBuf};

/// ptxas, or `None` after a loud SKIPPED line; in CI (`CI=true`) a missing
/// ptxas is a failure.
fn ptxas_or_skip(what: &str) -> Option<PathBuf> {
    match driver::find_ptxas() {
        Some(p) => Some(p),
        None if std::env::var("CI").is_ok_and(|v| v == "true") => {
            panic!("ptxas is required in CI (CI=true) but was not found")
        }
        None => {
            eprintln!("SKIPPED (ptxas not found; run ./scripts/test to install it): {what}");
            None
        }
    }
}

fn corpus() -> Vec<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/valid");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("corpus directory")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "ptx"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&p).unwrap())
        })
        .collect()
}

fn is_inst_line(l: &str) -> bool {
    let t = l.trim();
    t.ends_with(';')
        && (t.starts_with('@') || t.starts_with(|c: char| c.is_ascii_lowercase()))
        && !t.starts_with("//")
}

/// Registers declared with `%x<N>` in the file: (prefix, type).
fn reg_classes(src: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for l in src.lines() {
        let t = l.trim();
        if let Some(rest) = t.strip_prefix(".reg") {
            let parts: Vec<&str> = rest.split_whitespace().collect();
            if parts.len() >= 2 {
                if let Some((pre, _)) = parts[1].split_once('<') {
                    out.push((pre.to_string(), parts[0].to_string()));
                }
            }
        }
    }
    out
}

/// The mutation operators: each returns the mutated line, or `None`.
type LineOp = fn(&str, &[(String, String)]) -> Option<String>;

fn first_reg(l: &str, prefix: &str) -> Option<(usize, usize)> {
    let mut from = 0;
    while let Some(k) = l[from..].find(prefix) {
        let s = from + k;
        let e = s + prefix.len();
        let digits = l[e..].bytes().take_while(u8::is_ascii_digit).count();
        let next_ok = l[e + digits..]
            .chars()
            .next()
            .is_none_or(|c| !c.is_ascii_alphanumeric());
        if digits > 0 && next_ok {
            return Some((s, e + digits));
        }
        from = e;
    }
    None
}

fn undeclared_register(l: &str, _: &[(String, String)]) -> Option<String> {
    let k = l.find('%')?;
    let end = k + 1 + l[k + 1..].find(|c: char| !c.is_ascii_alphanumeric() && c != '_')?;
    if l[k..end].starts_with("%tid")
        || l[k..end].starts_with("%ntid")
        || l[k..end].starts_with("%ctaid")
    {
        return None;
    }
    Some(format!("{}%zz{}", &l[..k], &l[end..]))
}

/// Replaces the first register of one class with one of another class.
fn mistyped_register(l: &str, classes: &[(String, String)]) -> Option<String> {
    for (pre, ty) in classes {
        if let Some((s, e)) = first_reg(l, pre) {
            let other = classes.iter().find(|(_, t)| {
                let sz = |t: &str| {
                    t.trim_start_matches(|c: char| !c.is_ascii_digit())
                        .to_string()
                };
                t != ty
                    && (t == ".pred"
                        || sz(t) != sz(ty)
                        || t.starts_with(".f") != ty.starts_with(".f"))
            })?;
            return Some(format!("{}{}1{}", &l[..s], other.0, &l[e..]));
        }
    }
    None
}

fn drop_last_operand(l: &str, _: &[(String, String)]) -> Option<String> {
    let body = l.trim_end().strip_suffix(';')?;
    let k = body.rfind(',')?;
    if body[k..].contains(']') && !body[..k].contains('[') {
        return None;
    }
    if body[..k].matches('{').count() != body[..k].matches('}').count() {
        return None;
    }
    Some(format!("{};", &body[..k]))
}

fn wrong_space(l: &str, _: &[(String, String)]) -> Option<String> {
    if l.contains("ld.param") {
        return Some(l.replacen("ld.param", "ld.global", 1));
    }
    if l.contains("atom.shared") || l.contains("atom.global") {
        return Some(l.replacen("atom.shared", "atom.local", 1).replacen(
            "atom.global",
            "atom.const",
            1,
        ));
    }
    if l.contains("st.global") {
        return Some(l.replacen("st.global", "st.const", 1));
    }
    None
}

fn address_32bit(l: &str, _: &[(String, String)]) -> Option<String> {
    let t = l.trim_start();
    if !(t.starts_with("ld.global")
        || t.starts_with("st.global")
        || t.starts_with("ld.f")
        || t.starts_with("st.f"))
    {
        return None;
    }
    let k = l.find("[%rd")?;
    Some(format!("{}[%r{}", &l[..k], &l[k + 4..]))
}

fn unknown_label(l: &str, _: &[(String, String)]) -> Option<String> {
    let k = l.find("bra")?;
    let rest = &l[k..];
    let sp = rest.find(char::is_whitespace)?;
    Some(format!("{}NOWHERE;", &l[..k + sp + 1]))
}

fn unknown_opcode(l: &str, _: &[(String, String)]) -> Option<String> {
    let t = l.trim_start();
    if t.starts_with('@') {
        return None;
    }
    let indent = &l[..l.len() - t.len()];
    Some(format!("{indent}x{t}"))
}

fn drop_rounding(l: &str, _: &[(String, String)]) -> Option<String> {
    for r in [".rn.", ".rzi.", ".rz."] {
        if l.contains("cvt") && l.contains(r) {
            return Some(l.replacen(r, ".", 1));
        }
    }
    None
}

fn negative_offset(l: &str, _: &[(String, String)]) -> Option<String> {
    l.contains("+")
        .then(|| l.replacen("+-", "-", 1).replacen('+', "-", 1))
}

fn guard_not_pred(l: &str, _: &[(String, String)]) -> Option<String> {
    l.contains("@%p").then(|| l.replacen("@%p", "@%r", 1))
}

fn nc_on_store(l: &str, _: &[(String, String)]) -> Option<String> {
    l.contains("st.global.")
        .then(|| l.replacen("st.global.", "st.global.nc.", 1))
}

fn wrong_type_suffix(l: &str, _: &[(String, String)]) -> Option<String> {
    for (a, b) in [
        (".f32 ", ".u32 "),
        (".s32 ", ".f32 "),
        (".u64 ", ".f32 "),
        (".b32 ", ".b64 "),
    ] {
        if l.contains(a) {
            return Some(l.replacen(a, b, 1));
        }
    }
    None
}

const LINE_OPS: &[(&str, LineOp)] = &[
    ("undeclared-register", undeclared_register),
    ("mistyped-register", mistyped_register),
    ("missing-operand", drop_last_operand),
    ("wrong-state-space", wrong_space),
    ("32bit-generic-address", address_32bit),
    ("unknown-label", unknown_label),
    ("unknown-opcode", unknown_opcode),
    ("cvt-without-rounding", drop_rounding),
    ("reg-minus-imm", negative_offset),
    ("guard-not-pred", guard_not_pred),
    ("nc-on-store", nc_on_store),
    ("wrong-type-suffix", wrong_type_suffix),
];

/// How many sites each line operator mutates per file.
const SITES: usize = 3;

/// Whole-file mutations: header and target/feature changes.
fn file_mutants(name: &str, src: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let version_line = src.lines().find(|l| l.starts_with(".version"));
    if let Some(v) = version_line {
        for old in ["6.0", "7.0", "7.7"] {
            out.push((
                format!("{name}:too-old-version-{old}"),
                src.replacen(v, &format!(".version {old}"), 1),
            ));
        }
        out.push((
            format!("{name}:too-new-version"),
            src.replacen(v, ".version 9.9", 1),
        ));
        out.push((format!("{name}:version-after-target"), {
            let without = src.replacen(v, "", 1);
            without.replacen(".address_size 64", &format!(".address_size 64\n{v}"), 1)
        }));
    }
    if let Some(t) = src.lines().find(|l| l.starts_with(".target")) {
        for new in ["sm_80", "sm_90", "sm_99"] {
            if !t.contains(new) {
                out.push((
                    format!("{name}:target-{new}"),
                    src.replacen(t, &format!(".target {new}"), 1),
                ));
            }
        }
    }
    // Extra statements injected after the first register declarations.
    let injections = [
        (
            "atom-local",
            "\t.local .align 4 .b8 zz_lbuf[16];\n\tatom.local.add.u32 %zzr, [zz_lbuf], 1;",
        ),
        ("duplicate-register", "\t.reg .b32 %zzr;"),
        ("special-reg-in-add", "\tadd.u32 %zzr, %tid.x, 1;"),
        ("vector-special", "\tmov.u32 %zzr, %tid;"),
        ("wide-special", "\tmov.u64 %zzrd, %tid.x;"),
        ("shfl-without-sync", "\tshfl.bfly.b32 %zzr, %zzr, 16, 0x1f;"),
        ("fence-without-scope", "\tfence.acq_rel;"),
        (
            "ld-relaxed-no-scope",
            "\tld.relaxed.global.u32 %zzr, [%zzrd];",
        ),
        ("atom-sub", "\tatom.global.sub.u32 %zzr, [%zzrd], 1;"),
        ("atom-add-s64", "\tatom.global.add.s64 %zzrd, [%zzrd], 1;"),
        ("red-cas", "\tred.global.cas.b32 [%zzrd], 1, 2;"),
        ("immediate-global-address", "\tld.global.u32 %zzr, [16];"),
        ("ld-pred", "\tld.global.pred %zzp, [%zzrd];"),
        ("cluster-rank", "\tmov.u32 %zzr, %cluster_ctarank;"),
        ("wgmma-fence", "\twgmma.fence.sync.aligned;"),
        ("tcgen05", "\ttcgen05.fence::after_thread_sync;"),
        ("b128", "\t.reg .b128 %zzq;"),
        ("cvta-param", "\tcvta.param.u64 %zzrd, %zzrd;"),
        ("cvta-u32", "\tcvta.to.shared.u32 %zzr, %zzrd;"),
        ("mapa", "\tmapa.u64 %zzrd, %zzrd, 1;"),
        ("float-imm-in-int", "\tadd.u32 %zzr, %zzr, 0f3F800000;"),
        ("int-imm-in-float", "\tadd.f32 %zzf, %zzf, 1;"),
        ("bar-no-operand", "\tbar.sync;"),
        ("shl-64-amount", "\tshl.b64 %zzrd, %zzrd, %zzrd;"),
        ("ld-wide-into-narrow", "\tld.global.u64 %zzr, [%zzrd];"),
        ("mul-wide-bad", "\tmul.wide.u32 %zzrd, %zzrd, %zzr;"),
        ("selp-nonpred", "\tselp.f32 %zzf, %zzf, %zzf, %zzr;"),
        ("shared-cluster", "\tld.shared::cluster.u32 %zzr, [%zzr];"),
        (
            "stmatrix",
            "\tstmatrix.sync.aligned.m8n8.x1.shared.b16 [%zzr], {%zzr};",
        ),
        ("elect", "\telect.sync %zzr|%zzp, -1;"),
    ];
    let decls = "\t.reg .b32 %zzr;\n\t.reg .b64 %zzrd;\n\t.reg .f32 %zzf;\n\t.reg .pred %zzp;\n";
    if let Some(k) = src.find("\t.reg") {
        for (what, text) in injections {
            let mut m = String::with_capacity(src.len() + 200);
            m.push_str(&src[..k]);
            m.push_str(decls);
            m.push_str(text);
            m.push('\n');
            m.push_str(&src[k..]);
            out.push((format!("{name}:{what}"), m));
        }
    }
    // Writing a kernel parameter.
    if let Some(l) = src
        .lines()
        .find(|l| l.trim_start().starts_with("ld.param.u64") && l.contains("_param_"))
    {
        let t = l.trim_start().replacen("ld.param.u64", "", 1);
        if let Some((reg, addr)) = t.split_once(',') {
            let store = format!(
                "\tst.param.u64 {}, {};",
                addr.trim().trim_end_matches(';'),
                reg.trim()
            );
            out.push((
                format!("{name}:write-kernel-param"),
                src.replacen(l, &format!("{l}\n{store}"), 1),
            ));
        }
    }
    out
}

fn mutants(name: &str, src: &str) -> Vec<(String, String)> {
    let classes = reg_classes(src);
    let lines: Vec<&str> = src.lines().collect();
    let mut out = file_mutants(name, src);
    for (op_name, op) in LINE_OPS {
        let mut sites = 0;
        for (k, l) in lines.iter().enumerate() {
            if sites == SITES {
                break;
            }
            if !is_inst_line(l) {
                continue;
            }
            if let Some(new) = op(l, &classes) {
                if new == *l {
                    continue;
                }
                let mut m = lines.clone();
                m[k] = &new;
                out.push((format!("{name}:{op_name}@{}", k + 1), m.join("\n") + "\n"));
                sites += 1;
            }
        }
    }
    out
}

#[test]
fn every_valid_corpus_file_is_accepted() {
    let files = corpus();
    assert!(files.len() >= 20, "the corpus has {} files", files.len());
    for (name, src) in &files {
        let r = ptx_validate::validate(src);
        assert!(r.ok(), "{name} rejected:\n{}", r.rendered(name, src));
    }
    let Some(ptxas) = ptxas_or_skip("valid corpus against ptxas") else {
        return;
    };
    for (name, src) in &files {
        let o = driver::run_ptxas(&ptxas, src).expect("run ptxas");
        assert!(o.accepted, "ptxas rejected corpus file {name}:\n{}", o.raw);
    }
}

#[test]
fn agreement_with_ptxas_on_mutants() {
    let all: Vec<(String, String)> = corpus().iter().flat_map(|(n, s)| mutants(n, s)).collect();
    assert!(all.len() > 300, "only {} mutants", all.len());
    // Every mutant must at least be judged without a panic.
    for (_, m) in &all {
        let _ = ptx_validate::validate(m);
    }
    let Some(ptxas) = ptxas_or_skip("mutant agreement with ptxas") else {
        return;
    };
    let chunks: Vec<Vec<(String, String)>> = {
        let half = all.len().div_ceil(2);
        all.chunks(half).map(<[_]>::to_vec).collect()
    };
    let results: Vec<(String, bool, bool, String, String)> = std::thread::scope(|s| {
        let handles: Vec<_> = chunks
            .iter()
            .map(|chunk| {
                let ptxas = ptxas.clone();
                s.spawn(move || {
                    chunk
                        .iter()
                        .map(|(name, src)| {
                            let ours = ptx_validate::validate(src);
                            let theirs = driver::run_ptxas(&ptxas, src).expect("run ptxas");
                            (
                                name.clone(),
                                ours.ok(),
                                theirs.accepted,
                                ours.ptxas_text("x.ptx"),
                                theirs.raw,
                            )
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    let total = results.len();
    let rejected_by_ptxas = results.iter().filter(|r| !r.2).count();
    let agree = results.iter().filter(|r| r.1 == r.2).count();
    let agree_invalid = results.iter().filter(|r| !r.2 && !r.1).count();
    for (name, ours, theirs, our_text, their_text) in results.iter().filter(|r| r.1 != r.2) {
        eprintln!(
            "DISAGREE {name}: ptx-validate {}, ptxas {}\n  ours: {}\n  ptxas: {}",
            if *ours { "accepts" } else { "rejects" },
            if *theirs { "accepts" } else { "rejects" },
            our_text.trim(),
            their_text.trim()
        );
    }
    let rate = agree as f64 * 100.0 / total as f64;
    let rate_invalid = agree_invalid as f64 * 100.0 / rejected_by_ptxas.max(1) as f64;
    eprintln!(
        "AGREEMENT: {agree}/{total} mutants ({rate:.2}%); on the {rejected_by_ptxas} that ptxas rejects: {agree_invalid} ({rate_invalid:.2}%)"
    );
    assert!(rate >= 98.0, "agreement {rate:.2}% is below 98%");
    assert!(
        rate_invalid >= 98.0,
        "agreement on invalid files {rate_invalid:.2}% is below 98%"
    );
}

/// PTX ISA versions ptxas 13.5 knows, oldest first.
const VERSIONS: &[&str] = &[
    "6.0", "6.1", "6.2", "6.3", "6.4", "6.5", "7.0", "7.1", "7.2", "7.3", "7.4", "7.5", "7.6",
    "7.7", "7.8", "8.0", "8.1", "8.2", "8.3", "8.4", "8.5", "8.6", "8.7", "8.8", "9.0", "9.1",
    "9.2", "9.3", "9.4", "9.5",
];
/// The generic (non-`a`, non-`f`) targets, oldest first.
const PLAIN_TARGETS: &[&str] = &[
    "sm_75", "sm_80", "sm_86", "sm_87", "sm_89", "sm_90", "sm_100", "sm_103", "sm_110", "sm_120",
    "sm_121",
];

fn set_header(src: &str, directive: &str, value: &str) -> String {
    src.lines()
        .map(|l| {
            if l.starts_with(directive) {
                format!("{directive} {value}")
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// What `minimum: .version V, .target T` promises, checked with ptxas on
/// every valid corpus file: the file assembles at its own target with
/// `.version V` and not with the version before it, and assembles on
/// target T (under a version new enough for T) and not on the plain
/// target before T.
#[test]
fn reported_minimum_is_what_ptxas_accepts() {
    let Some(ptxas) = ptxas_or_skip("minimum .version/.target against ptxas") else {
        return;
    };
    let mut wrong = Vec::new();
    for (name, src) in corpus() {
        let r = ptx_validate::validate(&src);
        let (a, b) = r.min_version;
        let v = format!("{a}.{b}");
        let t = r.min_target.clone().expect("a minimum target");
        let accepts = |s: &str| driver::run_ptxas(&ptxas, s).expect("run ptxas").accepted;
        if !accepts(&set_header(&src, ".version", &v)) {
            wrong.push(format!("{name}: rejected with .version {v}"));
        }
        let k = VERSIONS
            .iter()
            .position(|x| *x == v)
            .expect("a known version");
        if k > 0 && accepts(&set_header(&src, ".version", VERSIONS[k - 1])) {
            wrong.push(format!(
                "{name}: also accepted with .version {}",
                VERSIONS[k - 1]
            ));
        }
        let retarget =
            |target: &str| set_header(&set_header(&src, ".target", target), ".version", "9.0");
        if !accepts(&retarget(&t)) {
            wrong.push(format!("{name}: rejected on .target {t}"));
        }
        let sm: u32 = t[3..].trim_end_matches(['a', 'f']).parse().unwrap();
        if let Some(lower) = PLAIN_TARGETS
            .iter()
            .rev()
            .find(|x| x[3..].parse::<u32>().unwrap() < sm)
        {
            if accepts(&retarget(lower)) {
                wrong.push(format!("{name}: minimum {t}, but {lower} accepts it too"));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
