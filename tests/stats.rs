//! `kernelc --stats`: after compiling, each kernel's resources read from
//! the cubin ptxas makes of the PTX. The figures must be the ones `ptxas -v`
//! prints for the same PTX.

mod common;

use common::{kernelc, stderr, stdout};

/// The table's row for `kernel`, split into cells.
fn row<'a>(table: &'a str, kernel: &str) -> Vec<&'a str> {
    table
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .find(|cells| cells.first() == Some(&kernel))
        .unwrap_or_else(|| panic!("no row for {kernel} in:\n{table}"))
}

#[test]
fn stats_table_matches_ptxas_verbose() {
    let Some(ptxas) = common::ptxas_or_skip("kernelc --stats") else {
        return;
    };
    for (sample, kernel, arch) in [
        ("samples/stencil_shared.cu", "stencil", "sm_90"),
        ("samples/matmul_clamp.cu", "matmul_clamp", "sm_80"),
        ("samples/vadd.cu", "vadd", "sm_80"),
    ] {
        let out = kernelc(&[sample, &format!("-arch={arch}"), "--stats"]);
        assert!(out.status.success(), "{}", stderr(&out));
        let ptx = stdout(&out);
        let table = stderr(&out);
        assert!(
            table
                .lines()
                .any(|l| l.split_whitespace().collect::<Vec<_>>()
                    == ["kernel", "regs", "stack", "shared", "spill-st", "spill-ld", "barriers"]),
            "{table}"
        );
        let cells = row(&table, kernel);
        let truth = kernelc::ptxas::assemble(&ptxas, &ptx, arch, &["-v"]).unwrap();
        assert!(truth.success, "{}", truth.output);
        let v = ptx_validate::cubin::parse_verbose(&truth.output);
        let v = v.iter().find(|f| f.name == kernel).expect("ptxas -v line");
        let want = [
            v.registers.unwrap().to_string(),
            v.stack_frame.unwrap().to_string(),
            v.shared.unwrap_or(0).to_string(),
            v.spill_stores.unwrap().to_string(),
            v.spill_loads.unwrap().to_string(),
            v.barriers.unwrap_or(0).to_string(),
        ];
        assert_eq!(cells[1..], want, "{sample}:\n{table}\n{}", truth.output);
    }
}

#[test]
fn stats_needs_ptx_output() {
    let out = kernelc(&["samples/vadd.cu", "--stats", "--emit", "ir"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("`--stats` needs PTX output"),
        "{}",
        stderr(&out)
    );
}
