//! "Never more than nvcc leaves": the memory-space fixtures are compiled by
//! kernelc and by nvcc 13.5 (`-ptx -O3 -arch=sm_90`), both PTX files are
//! assembled by the same ptxas for sm_90, and the generic memory
//! instructions of the SASS (`LD`, `ST`, `ATOM`, `RED`: the forms that take
//! a generic address) are counted per kernel with cuobjdump. kernelc must
//! leave no more than nvcc in any kernel, and strictly fewer in a kernel
//! where nvcc leaves generic accesses and calls helpers it did not inline
//! (kernelc clones those per address space).
//!
//! ptxas lays a kernel's callees out inside the kernel's own SASS function,
//! so a helper's accesses count for the kernels that call it. A function
//! nothing calls is not in the SASS at all (kernelc's external originals).
//!
//! The table is printed (`cargo test --test memspace_nvcc -- --nocapture`)
//! and recorded in `docs/memspace.md`.

mod common;

use kernelc::backend_nvptx::Target;
use kernelc::driver::{compile_source_with_messages, CompileOptions};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

const FIXTURES: &[&str] = &[
    "tests/fixtures/memspace/sass_kernels.cu",
    "tests/fixtures/memspace/nvcc_kernels.cu",
];

struct Tools {
    ptxas: PathBuf,
    nvcc: PathBuf,
    cuobjdump: PathBuf,
}

fn tools() -> Option<Tools> {
    let what = "generic SASS instructions, kernelc against nvcc";
    let ptxas = common::ptxas_or_skip(what)?;
    let nvcc = common::nvcc_or_skip(what)?;
    let cuobjdump = common::cuobjdump_or_skip(what)?;
    Some(Tools {
        ptxas,
        nvcc,
        cuobjdump,
    })
}

fn run(cmd: &mut Command, what: &str) -> String {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {what}: {e}"));
    assert!(
        out.status.success(),
        "{what} failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The kernel name behind a SASS or PTX function name: nvcc's C++ names
/// are mangled (`_Z7atomicsPi`), kernelc's are not.
fn plain_name(name: &str) -> String {
    let Some(rest) = name.strip_prefix("_Z") else {
        return name.to_string();
    };
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    match digits.parse::<usize>() {
        Ok(n) => rest[digits.len()..].chars().take(n).collect(),
        Err(_) => name.to_string(),
    }
}

/// Per SASS function, how many generic memory instructions it holds.
fn generic_counts(sass: &str) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    let mut func = None;
    for line in sass.lines() {
        if let Some(name) = line.trim().strip_prefix("Function : ") {
            let name = plain_name(name.trim());
            counts.entry(name.clone()).or_insert(0);
            func = Some(name);
            continue;
        }
        let Some((_, inst)) = line
            .trim()
            .strip_prefix("/*")
            .and_then(|r| r.split_once("*/"))
        else {
            continue;
        };
        let mut words = inst.split_whitespace();
        let mut op = words.next().unwrap_or("");
        if op.starts_with('@') {
            op = words.next().unwrap_or("");
        }
        if matches!(op.split('.').next(), Some("LD" | "ST" | "ATOM" | "RED")) {
            if let Some(f) = &func {
                *counts.get_mut(f).expect("counted") += 1;
            }
        }
    }
    counts
}

/// The kernels of a PTX file that call a function (by plain name).
fn kernels_with_calls(ptx: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current: Option<String> = None;
    for line in ptx.lines() {
        if let Some(rest) = line.strip_prefix(".visible .entry ") {
            let name = rest.split(['(', ' ']).next().unwrap_or("");
            current = Some(plain_name(name));
        } else if line.starts_with('}') {
            current = None;
        } else if let Some(k) = &current {
            if line.trim_start().starts_with("call") && !out.contains(k) {
                out.push(k.clone());
            }
        }
    }
    out
}

/// Assembles `ptx` for sm_90 and returns its SASS.
fn sass(tools: &Tools, dir: &Path, stem: &str, ptx: &str) -> String {
    let ptx_path = dir.join(format!("{stem}.ptx"));
    let cubin = dir.join(format!("{stem}.cubin"));
    std::fs::write(&ptx_path, ptx).unwrap();
    run(
        Command::new(&tools.ptxas)
            .args(["-arch=sm_90", "-o"])
            .arg(&cubin)
            .arg(&ptx_path),
        &format!("ptxas on {stem}"),
    );
    run(
        Command::new(&tools.cuobjdump)
            .arg("--dump-sass")
            .arg(&cubin),
        &format!("cuobjdump on {stem}"),
    )
}

fn kernelc_ptx(name: &str, source: &str, track_indir_load: bool) -> String {
    let mut opts = CompileOptions {
        target: Target::parse("sm_90").unwrap(),
        ..CompileOptions::default()
    };
    opts.memspace_opts.track_indir_load = track_indir_load;
    compile_source_with_messages(name, source, &opts)
        .unwrap_or_else(|e| panic!("kernelc on {name}:\n{}", e.rendered))
        .output
}

/// One row of the table.
struct Row {
    file: String,
    kernel: String,
    nvcc: usize,
    kernelc: usize,
    /// With `--track-indir-load=false` (pointers loaded from memory stay
    /// generic), for the record.
    kernelc_no_indir: usize,
    nvcc_calls: bool,
}

#[test]
fn kernelc_leaves_no_more_generic_sass_than_nvcc() {
    let Some(tools) = tools() else {
        return;
    };
    let dir = common::scratch("memspace-nvcc");
    let mut rows = Vec::new();
    for fixture in FIXTURES {
        let path = common::root().join(fixture);
        let source = std::fs::read_to_string(&path).unwrap();
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        let stem = file.trim_end_matches(".cu").to_string();

        let nvcc_ptx_path = dir.join(format!("{stem}.nvcc.ptx"));
        run(
            Command::new(&tools.nvcc)
                .args(["-ptx", "-O3", "-arch=sm_90", "-I"])
                .arg(common::root().join("include"))
                .arg(&path)
                .arg("-o")
                .arg(&nvcc_ptx_path),
            &format!("nvcc on {fixture}"),
        );
        let nvcc_ptx = std::fs::read_to_string(&nvcc_ptx_path).unwrap();
        let nvcc = generic_counts(&sass(&tools, &dir, &format!("{stem}.nvcc"), &nvcc_ptx));
        let calls = kernels_with_calls(&nvcc_ptx);

        let ours = |track: bool, tag: &str| {
            let ptx = kernelc_ptx(fixture, &source, track);
            generic_counts(&sass(&tools, &dir, &format!("{stem}.{tag}"), &ptx))
        };
        let kc = ours(true, "kernelc");
        let kc_knobs = ours(false, "kernelc-no-indir");
        assert_eq!(
            nvcc.keys().collect::<Vec<_>>(),
            kc.keys().collect::<Vec<_>>(),
            "{fixture}: the two compilers' SASS hold different functions"
        );
        for (kernel, &n) in &nvcc {
            rows.push(Row {
                file: file.clone(),
                kernel: kernel.clone(),
                nvcc: n,
                kernelc: kc[kernel],
                kernelc_no_indir: kc_knobs[kernel],
                nvcc_calls: calls.contains(kernel),
            });
        }
    }

    println!("generic LD/ST/ATOM/RED in the SASS for sm_90 (ptxas 13.5), per kernel:");
    println!(
        "{:<18} {:<22} {:>5} {:>8} {:>25}",
        "file", "kernel", "nvcc", "kernelc", "--track-indir-load=false"
    );
    for r in &rows {
        println!(
            "{:<18} {:<22} {:>5} {:>8} {:>25}",
            r.file, r.kernel, r.nvcc, r.kernelc, r.kernelc_no_indir
        );
    }
    let total = |f: fn(&Row) -> usize| rows.iter().map(f).sum::<usize>();
    println!(
        "{:<18} {:<22} {:>5} {:>8} {:>25}",
        "total",
        "",
        total(|r| r.nvcc),
        total(|r| r.kernelc),
        total(|r| r.kernelc_no_indir)
    );

    for r in &rows {
        let what = format!("{}: kernel `{}`", r.file, r.kernel);
        // With the defaults, never more.
        assert!(
            r.kernelc <= r.nvcc,
            "{what}: kernelc leaves {} generic accesses, nvcc {}",
            r.kernelc,
            r.nvcc
        );
        if r.nvcc > 0 && r.nvcc_calls {
            assert!(
                r.kernelc < r.nvcc,
                "{what}: nvcc leaves {} generic accesses in helpers it did not inline; \
                 kernelc must leave fewer, it leaves {}",
                r.nvcc,
                r.kernelc
            );
        }
    }
    // The fixtures must exercise the strict case, or the test proves little.
    assert!(
        rows.iter().any(|r| r.nvcc > 0 && r.nvcc_calls),
        "no kernel where nvcc leaves generic accesses in helpers"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_sass_counter_reads_cuobjdump_lines() {
    let sass = "\t\tFunction : _Z7atomicsPi\n\
        /*01e0*/  ATOM.E.ADD.STRONG.GPU PT, RZ, desc[UR4][R2.64], R7 ;  /* 0x0 */\n\
        /*01f0*/  @P0 LD.E R3, desc[UR6][R2.64] ;  /* 0x0 */\n\
        /*0200*/  LDG.E R3, desc[UR6][R2.64] ;  /* 0x0 */\n\
        /*0210*/  STS [R1], R3 ;  /* 0x0 */\n\
        \t\tFunction : k\n\
        /*0010*/  RED.E.ADD.STRONG.GPU desc[UR4][R2.64], R7 ;  /* 0x0 */\n\
        /*0020*/  ST.E desc[UR4][R2.64], R7 ;  /* 0x0 */\n\
        /*0030*/  LDL R2, [R1] ;  /* 0x0 */\n";
    let counts = generic_counts(sass);
    assert_eq!(counts["atomics"], 2);
    assert_eq!(counts["k"], 2);
    assert_eq!(
        plain_name("_Z19helpers_both_spacesPKfPf"),
        "helpers_both_spaces"
    );
    assert_eq!(plain_name("plain"), "plain");
}
