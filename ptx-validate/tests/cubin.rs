//! The cubin reader against its ground truth, `ptxas -v`.
//!
//! Each PTX file of `tests/cubin/` and of the valid corpus is assembled by
//! ptxas to a cubin; every figure the reader takes from the cubin must equal
//! what `ptxas -v` prints for the same kernel. A committed cubin
//! (`tests/cubin/shared_local_barriers.sm_90.cubin`, from ptxas 13.5) checks
//! the reader without ptxas, and its truncated and mutated copies check that
//! a malformed cubin is an error, never a panic.

use ptx_validate::cubin::{self, KernelResources};
use ptx_validate::driver;
use std::path::{Path, PathBuf};

fn here() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

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

fn ptx_files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("test directory")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "ptx"))
        .collect();
    v.sort();
    v
}

fn fixture() -> Vec<u8> {
    std::fs::read(here().join("tests/cubin/shared_local_barriers.sm_90.cubin")).unwrap()
}

#[test]
fn committed_cubin_is_read() {
    let cubin = cubin::read_cubin(&fixture()).expect("the fixture is a valid cubin");
    assert_eq!(cubin.sm, 90);
    let kernels = cubin.kernels;
    let names: Vec<&str> = kernels.iter().map(|k| k.name.as_str()).collect();
    assert_eq!(names, ["small", "withshared"]);
    // ptxas -v: "Used 8 registers, used 0 barriers"
    let small = &kernels[0];
    assert_eq!(
        (
            small.registers,
            small.stack_frame,
            small.shared,
            small.barriers
        ),
        (8, 0, 0, 0)
    );
    // ptxas -v: "64 bytes stack frame"; "Used 10 registers, used 2 barriers,
    // 64 bytes cumulative stack size, 1000 bytes smem"
    let w = &kernels[1];
    assert_eq!(w.registers, 10);
    assert_eq!(w.stack_frame, 64);
    assert_eq!(w.cumulative_stack, Some(64));
    assert_eq!(w.shared, 1000);
    assert_eq!(w.barriers, 2);
    assert_eq!(w.max_threads, Some([128, 1, 1]));
    assert_eq!(w.spill_stores, None, "spills come only from ptxas -v");
}

#[test]
fn malformed_cubins_are_errors_not_panics() {
    let good = fixture();
    // Every truncation.
    for cut in 0..good.len() {
        let _ = cubin::read_cubin(&good[..cut]);
    }
    assert!(cubin::read_cubin(&good[..good.len() / 2]).is_err());
    // Single-byte mutations everywhere, with a few values each.
    for at in 0..good.len() {
        for v in [0x00, 0xff, 0x7f, good[at] ^ 0x01] {
            let mut bad = good.clone();
            bad[at] = v;
            let _ = cubin::read_cubin(&bad);
        }
    }
    // Pseudo-random multi-byte damage.
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    for _ in 0..2000 {
        let mut bad = good.clone();
        for _ in 0..8 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let at = (x as usize) % bad.len();
            bad[at] = (x >> 32) as u8;
        }
        let _ = cubin::read_cubin(&bad);
    }
    // Not a cubin: an ELF of another machine.
    let mut other = good.clone();
    other[18] = 62; // EM_X86_64
    other[19] = 0;
    assert!(cubin::read_cubin(&other).is_err());
}

/// Compares every field the cubin gives with ptxas -v's line for it.
fn cross_check(what: &str, ptx: &str, ptxas: &Path) -> usize {
    let report = driver::assemble_cubin(ptxas, ptx).expect("cannot run ptxas");
    assert!(
        report.outcome.accepted,
        "{what}: ptxas rejected it:\n{}",
        report.outcome.raw
    );
    let kernels: Vec<KernelResources> = report
        .kernels
        .expect("a cubin")
        .unwrap_or_else(|e| panic!("{what}: {e}"))
        .kernels;
    let verbose = cubin::parse_verbose(&report.outcome.raw);
    let entries = ptx.matches(".entry").count();
    assert_eq!(
        kernels.len(),
        entries,
        "{what}: one row per .entry\n{kernels:#?}"
    );
    for k in &kernels {
        let v = verbose
            .iter()
            .find(|v| v.name == k.name)
            .unwrap_or_else(|| panic!("{what}: ptxas -v says nothing of {}", k.name));
        let ctx = format!("{what}, kernel {}:\n{}\n{k:#?}", k.name, report.outcome.raw);
        assert_eq!(Some(k.registers), v.registers, "registers: {ctx}");
        assert_eq!(Some(k.stack_frame), v.stack_frame, "stack frame: {ctx}");
        assert_eq!(Some(k.barriers), v.barriers.or(Some(0)), "barriers: {ctx}");
        assert_eq!(k.shared, v.shared.unwrap_or(0), "shared: {ctx}");
        // ptxas prints the cumulative stack only when it is known and non-zero.
        assert_eq!(
            k.cumulative_stack.filter(|&n| n != 0),
            v.cumulative_stack,
            "cumulative stack: {ctx}"
        );
        assert_eq!(k.spill_stores, v.spill_stores, "spill stores: {ctx}");
        assert_eq!(k.spill_loads, v.spill_loads, "spill loads: {ctx}");
        let maxntid = ptx
            .split(&format!("entry {}", k.name))
            .nth(1)
            .and_then(|rest| rest.split('{').next())
            .is_some_and(|head| head.contains(".maxntid"));
        assert_eq!(k.max_threads.is_some(), maxntid, "max threads: {ctx}");
        let reqntid = ptx
            .split(&format!("entry {}", k.name))
            .nth(1)
            .and_then(|rest| rest.split('{').next())
            .is_some_and(|head| head.contains(".reqntid"));
        assert_eq!(k.req_threads.is_some(), reqntid, "required threads: {ctx}");
    }
    kernels.len()
}

#[test]
fn cubin_figures_equal_ptxas_verbose() {
    let Some(ptxas) = ptxas_or_skip("cubin_figures_equal_ptxas_verbose") else {
        return;
    };
    let mut files = ptx_files(&here().join("tests/cubin"));
    files.extend(ptx_files(&here().join("tests/corpus/valid")));
    let mut kernels = 0;
    let mut spilled = 0;
    for f in &files {
        let ptx = std::fs::read_to_string(f).unwrap();
        let what = f.file_name().unwrap().to_string_lossy().into_owned();
        kernels += cross_check(&what, &ptx, &ptxas);
        if what == "spills.ptx" {
            let report = driver::assemble_cubin(&ptxas, &ptx).unwrap();
            let k = report.kernels.unwrap().unwrap().kernels;
            assert!(
                k[0].spill_stores.unwrap_or(0) > 0,
                "the spill kernel spills: {k:#?}"
            );
            spilled += 1;
        }
    }
    assert_eq!(spilled, 1);
    eprintln!(
        "cubin reader: {kernels} kernels in {} files agree with ptxas -v",
        files.len()
    );
}

#[test]
fn standalone_stats_flag_prints_the_table() {
    if ptxas_or_skip("ptx-validate --stats").is_none() {
        return;
    }
    let file = here().join("tests/cubin/shared_local_barriers.ptx");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ptx-validate"))
        .arg("--stats")
        .arg(&file)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows: Vec<Vec<&str>> = text
        .lines()
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert!(rows.contains(&vec![
        "kernel", "regs", "stack", "shared", "spill-st", "spill-ld", "barriers"
    ]));
    // ptxas -v: 10 registers, 64 bytes stack frame, 1000 bytes smem, no
    // spills, 2 barriers.
    assert!(
        rows.contains(&vec!["withshared", "10", "64", "1000", "0", "0", "2"]),
        "{text}"
    );
    assert!(
        rows.contains(&vec!["small", "8", "0", "0", "0", "0", "0"]),
        "{text}"
    );
}
