//! The PTX emulator runs what nvcc and kernelc write.
//!
//! 1. Every instruction form (the opcode with its modifiers, as written)
//!    in the PTX that nvcc 13.5 writes for `samples/`, `tests/outside/`,
//!    `tests/probes/` and `tests/programs/`, and that kernelc writes for
//!    them at -O3 and -O0, must decode in the emulator (`ptx_emu`'s
//!    decoder, the one a launch uses); the test lists those it cannot. The
//!    samples whose run spec says `# kernelc-emu-skip` (what the emulator
//!    does not model) are measured and listed, not required.
//! 2. Every launch of `tests/outside/launches.txt` and
//!    `tests/probes/launches.txt` runs nvcc's PTX in the emulator and must
//!    leave kernelc's bytes there, or, where the two compilers' math
//!    libraries round differently, floats within 2^-16 of the buffer's
//!    largest magnitude and integers equal (the samples are compared in
//!    `tests/run.rs`).
//!
//! 3. The samples the interpreter cannot run (`# kernelc-skip`) but the
//!    emulator can (no `# kernelc-emu-skip`) run in the emulator from
//!    kernelc's PTX (-O3, -O0) and nvcc's, and each buffer they write
//!    matches a reference computed here on the host.
//!
//! They need nvcc; without it they print a loud skip line, and fail when
//! `CI=true` (the third runs kernelc's PTX without it).

mod common;

use common::{root, scratch};
use kernelc::run::{execute, Engine, RunRequest};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The `.cu` files of `dir` and its subfolders, sorted; none when the
/// folder does not exist.
fn sources(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut v = Vec::new();
    for path in entries.map(|e| e.expect("a folder entry").path()) {
        if path.is_dir() {
            v.extend(sources(&path));
        } else if path.extension().is_some_and(|e| e == "cu") {
            v.push(path);
        }
    }
    v.sort();
    v
}

/// Each (program, nvcc flags) configuration of tests/programs/MANIFEST.
fn program_configs() -> Vec<(String, String)> {
    let text = std::fs::read_to_string(root().join("tests/programs/MANIFEST")).unwrap();
    let mut configs: Vec<(String, String)> = Vec::new();
    for line in text.lines() {
        if let Some(program) = line.strip_prefix("program ") {
            configs.push((program.to_string(), String::new()));
        } else if let Some(flags) = line.strip_prefix("flags ") {
            configs.last_mut().expect("flags after a program").1 = flags.to_string();
        }
    }
    configs
}

/// The target a source names with `// kernelc-target: sm_XX`, else sm_90.
fn target_of(src: &str) -> String {
    common::declared_target(src).unwrap_or_else(|| "sm_90".into())
}

/// kernelc's PTX of `path` for `arch` at `-O{level}`.
fn kernelc_compile(path: &Path, src: &str, arch: &str, level: u8) -> String {
    let name = common::sample_name(path);
    kernelc::driver::compile_source(
        &name,
        src,
        &kernelc::driver::CompileOptions {
            target: kernelc::backend_nvptx::Target::parse(arch).unwrap(),
            opt_level: level,
            ..Default::default()
        },
    )
    .unwrap_or_else(|e| panic!("{}: {e:?}", path.display()))
}

/// Why the emulator cannot run sample `name`: a `# kernelc-emu-skip:
/// reason` line of its run spec. (`# kernelc-skip` says the interpreter
/// cannot; the emulator runs some of those, such as clusters.)
fn emu_skip_reason(name: &str) -> Option<String> {
    let spec = std::fs::read_to_string(root().join(format!("samples/{name}.run"))).ok()?;
    spec.lines()
        .find_map(|l| l.trim().strip_prefix("# kernelc-emu-skip:"))
        .map(|why| why.trim().to_string())
}

/// Whether the sample at `path` is one the emulator does not model.
fn out_of_scope(path: &Path) -> Option<String> {
    let in_samples = path.parent() == Some(&root().join("samples"));
    in_samples
        .then(|| emu_skip_reason(&common::sample_name(path)))
        .flatten()
}

/// What is known of one instruction form.
#[derive(Default)]
struct Form {
    /// Where it was first seen: `file (compiler) line N`.
    seen: String,
    /// Why it does not decode, if it does not.
    error: Option<String>,
}

/// Records the forms of `ptx` into `forms`; `what` names the PTX. A
/// module that does not load at all marks each of its forms with why.
fn collect(forms: &mut BTreeMap<String, Form>, ptx: &str, what: &str) {
    let insts: Vec<(String, u32, Option<String>)> = match ptx_emu::decode_module(ptx) {
        Ok(insts) => insts
            .into_iter()
            .map(|i| (i.name, i.line, i.error.map(|e| e.to_string())))
            .collect(),
        Err(e) => ptx_forms(ptx)
            .into_iter()
            .map(|n| (n, 0, Some(format!("the module does not load: {e}"))))
            .collect(),
    };
    for (name, line, error) in insts {
        let form = forms.entry(name).or_insert_with(|| Form {
            seen: format!("{what} line {line}"),
            error: None,
        });
        if form.error.is_none() && error.is_some() {
            form.error = error;
            form.seen = format!("{what} line {line}");
        }
    }
}

/// What the emulator cannot yet run in nvcc's PTX of the programs
/// (tests/programs): CUDA's device libraries, which their own issues bring.
/// A form of the programs may fail to decode only for one of these reasons;
/// a new reason fails the test, and a fixed one should leave this list.
const PROGRAM_GAPS: &[(&[&str], &str)] = &[(
    &["a call of `malloc`", "a call of `free`"],
    "the device heap (`new`/`delete`, `malloc`/`free` in device code)",
)];

/// Every program form that does not decode fails for a known reason.
fn check_program_gaps(forms: &BTreeMap<String, Form>) {
    let failing: Vec<(&String, &Form)> = forms.iter().filter(|(_, f)| f.error.is_some()).collect();
    let unknown: Vec<String> = failing
        .iter()
        .filter(|(_, f)| {
            let e = f.error.as_deref().unwrap_or("");
            !PROGRAM_GAPS
                .iter()
                .any(|(phrases, _)| phrases.iter().any(|p| e.contains(p)))
        })
        .map(|(n, f)| format!("  {n}: {} ({})", f.error.as_deref().unwrap_or(""), f.seen))
        .collect();
    eprintln!(
        "emulator coverage of the programs: {} of {} forms of nvcc's PTX decode; the rest need: {}",
        forms.len() - failing.len(),
        forms.len(),
        PROGRAM_GAPS
            .iter()
            .map(|g| g.1)
            .collect::<Vec<_>>()
            .join("; ")
    );
    for (phrases, gap) in PROGRAM_GAPS {
        let names: Vec<&str> = failing
            .iter()
            .filter(|(_, f)| {
                let e = f.error.as_deref().unwrap_or("");
                phrases.iter().any(|p| e.contains(p))
            })
            .map(|(n, _)| n.as_str())
            .collect();
        eprintln!("  {gap}: {}", names.join(" "));
    }
    assert!(
        unknown.is_empty(),
        "program forms that do not decode for a new reason:\n{}",
        unknown.join("\n")
    );
}

#[test]
fn the_emulator_decodes_every_form_nvcc_and_kernelc_write() {
    let Some(nvcc) = common::nvcc_or_skip("the emulator's coverage of nvcc's PTX") else {
        return;
    };
    let dir = scratch("emu-coverage");
    let mut forms = BTreeMap::new();
    let mut skipped = BTreeMap::new();
    let mut program_forms = BTreeMap::new();
    let mut files = 0;
    for folder in ["samples", "tests/outside", "tests/probes"] {
        for path in sources(&root().join(folder)) {
            let src = std::fs::read_to_string(&path).unwrap();
            let arch = target_of(&src);
            let name = path.strip_prefix(root()).unwrap().display().to_string();
            let out = dir.join(format!("{}.ptx", name.replace('/', "_")));
            let nvcc_ptx = common::nvcc_ptx_to(&nvcc, &path, &arch, &[], &out);
            let into = match out_of_scope(&path) {
                Some(_) => &mut skipped,
                None => &mut forms,
            };
            collect(into, &nvcc_ptx, &format!("{name} (nvcc)"));
            for level in [3, 0] {
                let ptx = kernelc_compile(&path, &src, &arch, level);
                collect(into, &ptx, &format!("{name} (kernelc -O{level})"));
            }
            files += 1;
        }
    }
    // The programs (tests/programs/MANIFEST) with their own flags, as nvcc
    // compiles them (kernelc's PTX of those it compiles runs in
    // tests/programs.rs).
    if let Some(headers) = common::cuda_headers_or_skip() {
        for (i, (program, flags)) in program_configs().into_iter().enumerate() {
            let out = dir.join(format!("program{i}.ptx"));
            let flags_list: Vec<&str> = flags.split_whitespace().collect();
            if let Err(e) =
                common::program_nvcc_ptx(&nvcc, &headers, &program, &flags_list, &[], &out)
            {
                panic!("nvcc rejected {program} {flags}:\n{e}");
            }
            let nvcc_ptx = std::fs::read_to_string(&out).unwrap();
            collect(
                &mut program_forms,
                &nvcc_ptx,
                &format!("{program} {flags} (nvcc)"),
            );
            files += 1;
        }
    }
    check_program_gaps(&program_forms);
    let failing: Vec<String> = forms
        .iter()
        .filter_map(|(n, f)| f.error.as_ref().map(|e| format!("  {n}: {e} ({})", f.seen)))
        .collect();
    // The forms only the samples the emulator does not model use, and
    // those of them it cannot run.
    let only_skipped: Vec<(&String, &Form)> = skipped
        .iter()
        .filter(|(k, _)| !forms.contains_key(*k))
        .collect();
    let not_run: Vec<&str> = only_skipped
        .iter()
        .filter(|(_, f)| f.error.is_some())
        .map(|(k, _)| k.as_str())
        .collect();
    eprintln!(
        "emulator coverage: {} of {} instruction forms decode ({files} files, nvcc 13.5 and kernelc -O3/-O0); \
         the samples it does not model add {} forms, of which it cannot run {}: {}",
        forms.len() - failing.len(),
        forms.len(),
        only_skipped.len(),
        not_run.len(),
        not_run.join(" ")
    );
    assert!(files >= 50, "{files} files");
    assert!(
        failing.is_empty(),
        "{} instruction forms do not decode in the emulator:\n{}",
        failing.len(),
        failing.join("\n")
    );
}

/// The instruction spellings of `ptx`, read with ptx-validate's parser.
fn ptx_forms(ptx: &str) -> Vec<String> {
    fn walk(body: &[ptx_validate::ast::Stmt], out: &mut Vec<String>) {
        for s in body {
            match s {
                ptx_validate::ast::Stmt::Inst(i) => out.push(i.full_name()),
                ptx_validate::ast::Stmt::Block(inner, _) => walk(inner, out),
                _ => {}
            }
        }
    }
    let module = ptx_validate::parser::parse(ptx).expect("nvcc's PTX parses");
    let mut out = Vec::new();
    for item in &module.items {
        if let ptx_validate::ast::Item::Func(f) = item {
            walk(f.body.as_deref().unwrap_or(&[]), &mut out);
        }
    }
    out
}

/// The `.entry` of nvcc's PTX for `kernel` (declared `extern "C"`, so
/// unmangled; a mangled name starts `_Z<len><kernel>`).
fn entry_name(ptx: &str, kernel: &str) -> String {
    let mangled = format!("_Z{}{kernel}", kernel.len());
    ptx.lines()
        .filter_map(|l| l.split(".entry ").nth(1))
        .map(|l| l.trim_end_matches('(').trim())
        .find(|n| *n == kernel || n.starts_with(&mangled))
        .unwrap_or_else(|| panic!("no entry for {kernel}"))
        .to_string()
}

/// A buffer of `elem`s as `f64`s (`None` for an integer buffer).
fn floats(elem: &str, b: &[u8]) -> Option<Vec<f64>> {
    match elem {
        "f32" => Some(
            b.chunks_exact(4)
                .map(|c| f64::from(f32::from_le_bytes(c.try_into().unwrap())))
                .collect(),
        ),
        "f64" => Some(
            b.chunks_exact(8)
                .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
                .collect(),
        ),
        _ => None,
    }
}

/// Launches whose results are a chaotic function of every rounding: one
/// rounding apart, as when nvcc contracts `zr*zr - zi*zi + cr` into an
/// `fma` the other way round, changes a pixel's escape count. There, 1% of
/// the elements may differ.
const CHAOTIC: &[(&str, &str)] = &[("tests/outside/mandelbrot.cu", "mandelbrot")];

/// How one launch of nvcc's PTX compared with kernelc's.
#[derive(Debug, PartialEq)]
enum Agreement {
    /// The same bytes.
    Exact,
    /// Floats within 2^-16 of the buffer's largest magnitude (the two
    /// compilers' math libraries round differently), integers equal.
    Close,
    /// A [`CHAOTIC`] launch with at most 1% of the elements apart.
    Chaotic,
}

/// Compares one buffer of nvcc's run (`g`) with kernelc's (`w`); panics
/// beyond the tolerance.
fn compare(what: &str, elem: &str, g: &[u8], w: &[u8], chaotic: bool) -> Agreement {
    if g == w {
        return Agreement::Exact;
    }
    assert_eq!(g.len(), w.len(), "{what}");
    let apart = match (floats(elem, g), floats(elem, w)) {
        (Some(gv), Some(wv)) => {
            let scale = wv.iter().fold(0f64, |m, v| m.max(v.abs()));
            gv.iter()
                .zip(&wv)
                .filter(|(a, b)| !((*a - *b).abs() <= scale / 65536.0 || a.is_nan() && b.is_nan()))
                .count()
        }
        _ => {
            let n = elem_size(elem);
            g.chunks(n).zip(w.chunks(n)).filter(|(a, b)| a != b).count()
        }
    };
    let elems = g.len() / elem_size(elem);
    if apart == 0 {
        return Agreement::Close;
    }
    assert!(
        chaotic && apart * 100 <= elems,
        "{what}: {apart} of {elems} elements of nvcc's run differ from kernelc's beyond the tolerance"
    );
    Agreement::Chaotic
}

fn elem_size(elem: &str) -> usize {
    match elem {
        "u8" | "i8" => 1,
        "u16" | "i16" | "f16" => 2,
        "u64" | "i64" | "f64" => 8,
        _ => 4,
    }
}

/// Every launch of a folder's `launches.txt`: nvcc's PTX and kernelc's
/// (-O3), both in the emulator. Returns how many launches agreed each way.
fn launches_match_nvcc(nvcc: &Path, folder: &str) -> BTreeMap<String, usize> {
    let dir = root().join(folder);
    let scratch = scratch(&format!("emu-nvcc-{}", folder.replace('/', "_")));
    let mut counts = BTreeMap::new();
    // nvcc's PTX of each file, compiled once for all its launches.
    let mut compiled: BTreeMap<String, (String, String)> = BTreeMap::new();
    for (file, launch) in common::read_launches(&dir) {
        let ptx_path = scratch.join(file.replace(".cu", ".ptx"));
        let (arch, ptx) = compiled
            .entry(file.clone())
            .or_insert_with(|| {
                let src = std::fs::read_to_string(dir.join(&file)).unwrap();
                let arch = target_of(&src);
                let ptx = common::nvcc_ptx_to(nvcc, &dir.join(&file), &arch, &[], &ptx_path);
                (arch, ptx)
            })
            .clone();
        let want = common::run_launch(&dir, &file, &launch, Engine::Emu, 3);
        let req = RunRequest {
            input: ptx_path,
            kernel: entry_name(&ptx, &launch.kernel),
            grid: launch.grid,
            block: launch.block,
            shared_bytes: launch.shared_bytes,
            args: launch.args.clone(),
            sm: kernelc::backend_nvptx::Target::parse(&arch).map_or(90, |t| t.sm()),
            engine: Engine::Emu,
            ..RunRequest::default()
        };
        let path = format!("{folder}/{file}");
        let what = format!("{path} {}", launch.kernel);
        let chaotic = CHAOTIC.contains(&(path.as_str(), launch.kernel.as_str()));
        let got = execute(&req).unwrap_or_else(|e| panic!("{what} (nvcc's PTX):\n{e}"));
        let mut worst = Agreement::Exact;
        for ((elem, g), w) in got.args.iter().zip(&want) {
            let (Some(g), Some(w)) = (g, w) else {
                assert_eq!(g.is_some(), w.is_some(), "{what}");
                continue;
            };
            let a = compare(&what, elem.name(), g, w, chaotic);
            if a != Agreement::Exact && worst != Agreement::Chaotic {
                worst = a;
            }
        }
        *counts.entry(format!("{worst:?}")).or_insert(0) += 1;
    }
    counts
}

#[test]
fn nvccs_ptx_of_the_outside_and_probe_launches_runs_in_the_emulator() {
    let Some(nvcc) =
        common::nvcc_or_skip("nvcc's PTX of the outside and probe launches in the emulator")
    else {
        return;
    };
    for (folder, at_least) in [("tests/outside", 39), ("tests/probes", 20)] {
        let counts = launches_match_nvcc(&nvcc, folder);
        eprintln!("{folder}: nvcc's PTX in the emulator against kernelc's: {counts:?}");
        let n: usize = counts.values().sum();
        assert!(n >= at_least, "{folder}: {n} launches");
        assert!(
            counts.get("Exact").copied().unwrap_or(0) * 4 >= n * 3,
            "{counts:?}"
        );
    }
}

/// The launch a sample's run spec describes, on the emulator, from `input`
/// (the sample's `.cu`, compiled at `-O{level}`, or a PTX file).
fn sample_request(name: &str, input: PathBuf, level: u8) -> RunRequest {
    let l = common::spec_launch(name);
    RunRequest {
        input,
        kernel: l.kernel,
        grid: l.grid,
        block: l.block,
        shared_bytes: l.shared_bytes,
        opt_level: Some(level),
        fmad: true,
        sm: common::run_sm(&common::sample_source(name)),
        arch: l.arch,
        engine: Engine::Emu,
        args: l.args,
        ..RunRequest::default()
    }
}

fn f32_values(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn input_bytes(arg: &str) -> Vec<u8> {
    match kernelc::run::parse_arg(arg).unwrap() {
        kernelc::run::ArgValue::Buffer { bytes, .. }
        | kernelc::run::ArgValue::TensorMap { bytes, .. } => bytes,
        _ => panic!("{arg} is not a buffer"),
    }
}

/// `cluster_reduce`: each block sums its 256 inputs with the sample's tree
/// (`buf[t] += buf[t + s]` for s = 128, 64, ..., 1), and rank 0's `total`
/// gets rank 0's sum, then rank 1's (the emulator runs the ranks' thread
/// 0s in rank order); both blocks read it. Bitwise, as the order is fixed.
fn cluster_reduce_reference(args: &[String]) -> Vec<Option<Vec<u8>>> {
    let input = f32_values(&input_bytes(&args[0]));
    let block_sum = |b: usize| {
        let mut buf = input[256 * b..256 * (b + 1)].to_vec();
        let mut s = 128;
        while s > 0 {
            for t in 0..s {
                buf[t] += buf[t + s];
            }
            s /= 2;
        }
        buf[0]
    };
    let mut out = Vec::new();
    for cluster in 0..2 {
        let total = 0.0f32 + block_sum(2 * cluster) + block_sum(2 * cluster + 1);
        out.extend([total, total]);
    }
    vec![
        None,
        Some(out.iter().flat_map(|v| v.to_le_bytes()).collect()),
    ]
}

/// `tma_tile_copy`: each block loads its tile of `in` with TMA, doubles it
/// in shared memory and stores it to the same tile of `out` with TMA; the
/// tiles cover the matrix, so `out` is `2 * in` (exact: a doubling).
fn tma_tile_copy_reference(args: &[String]) -> Vec<Option<Vec<u8>>> {
    let input = f32_values(&input_bytes(&args[0]));
    let out: Vec<u8> = input.iter().flat_map(|v| (2.0 * v).to_le_bytes()).collect();
    vec![None, Some(out)]
}

/// An IEEE half's value (sign, 5 exponent bits, 10 fraction bits).
fn f16_value(bits: u16) -> f32 {
    let sign = if bits & 0x8000 != 0 { -1.0 } else { 1.0 };
    let (exp, frac) = (i32::from((bits >> 10) & 0x1f), f32::from(bits & 0x3ff));
    sign * match exp {
        0 => frac * 2f32.powi(-24),
        31 if frac == 0.0 => f32::INFINITY,
        31 => f32::NAN,
        _ => (1.0 + frac / 1024.0) * 2f32.powi(exp - 15),
    }
}

/// `wgmma_gemm`: C (64 x 64, row-major) = A (64 x 64, M x K) times B,
/// given transposed (N x K): `C[m][n] = sum_k A[m][k] * Bt[n][k]`. The
/// products of halves are exact in f32, and the sum is taken in `k` order
/// with one rounding per term: the order the emulator's MMAs document (a
/// GPU's is unspecified and may differ in the last bits).
fn wgmma_gemm_reference(args: &[String]) -> Vec<Option<Vec<u8>>> {
    let halves = |arg: &String| -> Vec<f32> {
        input_bytes(arg)
            .chunks_exact(2)
            .map(|c| f16_value(u16::from_le_bytes([c[0], c[1]])))
            .collect()
    };
    let (a, bt) = (halves(&args[0]), halves(&args[1]));
    let mut c = Vec::new();
    for m in 0..64 {
        for n in 0..64 {
            let acc = (0..64).fold(0f32, |acc, k| a[64 * m + k].mul_add(bt[64 * n + k], acc));
            c.extend(acc.to_le_bytes());
        }
    }
    vec![None, None, Some(c)]
}

/// `tcgen05_gemm`: C (128 x 64) = A (128 x 64) times B (64 x 64), both
/// row-major, of the inputs' low 3 bits (the sample's `& 7`), as f32 bits.
/// The products and sums are small integers, exact in any order, so the
/// `k`-order sum with one rounding per term is the exact product.
fn tcgen05_gemm_reference(args: &[String]) -> Vec<Option<Vec<u8>>> {
    let small = |arg: &String| -> Vec<f32> {
        input_bytes(arg)
            .chunks_exact(4)
            .map(|c| (i32::from_le_bytes(c.try_into().unwrap()) & 7) as f32)
            .collect()
    };
    let (a, b) = (small(&args[0]), small(&args[1]));
    let mut c = Vec::new();
    for m in 0..128 {
        for n in 0..64 {
            let acc = (0..64).fold(0f32, |acc, k| a[64 * m + k].mul_add(b[64 * k + n], acc));
            c.extend(acc.to_bits().to_le_bytes());
        }
    }
    vec![None, None, Some(c)]
}

/// A sample's final buffers, computed on the host from its run spec's
/// arguments (`None`: a buffer it leaves as it was).
type Reference = fn(&[String]) -> Vec<Option<Vec<u8>>>;

/// The host reference of each sample the emulator runs and the interpreter
/// does not.
const REFERENCES: &[(&str, Reference)] = &[
    ("cluster_reduce", cluster_reduce_reference),
    ("tcgen05_gemm", tcgen05_gemm_reference),
    ("tma_tile_copy", tma_tile_copy_reference),
    ("wgmma_gemm", wgmma_gemm_reference),
];

/// Checks one run of a sample against its reference: each buffer as the
/// reference says, or as it was passed in.
fn check_against_reference(
    what: &str,
    got: &kernelc::run::RunResult,
    want: &[Option<Vec<u8>>],
    args: &[String],
) {
    for (k, ((_, got), want)) in got.args.iter().zip(want).enumerate() {
        let want = want.clone().unwrap_or_else(|| input_bytes(&args[k]));
        assert!(
            got.as_ref() == Some(&want),
            "{what}: argument {k} differs from the host reference"
        );
    }
}

#[test]
fn samples_only_the_emulator_runs_match_a_host_reference() {
    let names: Vec<String> = common::sample_names()
        .into_iter()
        .filter(|n| common::run_skip_reason(n).is_some() && emu_skip_reason(n).is_none())
        .collect();
    let covered: Vec<&str> = REFERENCES.iter().map(|(n, _)| *n).collect();
    assert_eq!(
        names, covered,
        "each sample the emulator alone runs needs a host reference here"
    );
    let nvcc = common::nvcc_or_skip("nvcc's PTX of the samples only the emulator runs");
    let dir = scratch("emu-only-samples");
    for (name, reference) in REFERENCES {
        let path = root().join(format!("samples/{name}.cu"));
        let mut runs = Vec::new();
        for level in [3, 0] {
            runs.push((
                format!("{name} (kernelc -O{level})"),
                sample_request(name, path.clone(), level),
            ));
        }
        if let Some(nvcc) = &nvcc {
            let src = common::sample_source(name);
            let out = dir.join(format!("{name}.ptx"));
            let ptx = common::nvcc_ptx_to(nvcc, &path, &target_of(&src), &[], &out);
            let mut req = sample_request(name, out, 3);
            req.kernel = entry_name(&ptx, &req.kernel);
            runs.push((format!("{name} (nvcc)"), req));
        }
        for (what, req) in runs {
            let want = reference(&req.args);
            let got = execute(&req).unwrap_or_else(|e| panic!("{what}:\n{e}"));
            check_against_reference(&what, &got, &want, &req.args);
            eprintln!("{what}: matches the host reference in the emulator");
        }
    }
}
