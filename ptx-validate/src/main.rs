//! `ptx-validate FILE.ptx...`: prints each file's diagnostics in ptxas's
//! form (or rendered with `--pretty`) and its minimum `.version`/`.target`.
//! With `--stats`, each file is also assembled by ptxas and each kernel's
//! resources are read from the cubin and printed as a table.
//! Exit code 0 when every file is predicted valid, 1 otherwise, 2 on usage
//! or I/O errors (and when `--stats` finds no ptxas). File names may be any
//! bytes.

use std::ffi::OsString;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    let pretty = args.iter().any(|a| a == "--pretty");
    let stats = args.iter().any(|a| a == "--stats");
    let files: Vec<&OsString> = args
        .iter()
        .filter(|a| !a.as_encoded_bytes().starts_with(b"--"))
        .collect();
    if files.is_empty() || args.iter().any(|a| a == "--help") {
        eprintln!("usage: ptx-validate [--pretty] [--stats] FILE.ptx...");
        return ExitCode::from(2);
    }
    let ptxas = match stats.then(ptx_validate::driver::find_ptxas) {
        Some(None) => {
            eprintln!(
                "ptx-validate: --stats needs NVIDIA's ptxas ($KERNELC_PTXAS, PATH, $CUDA_HOME/bin, .tools/)"
            );
            return ExitCode::from(2);
        }
        found => found.flatten(),
    };
    let mut all_ok = true;
    for file in files {
        let f = &std::path::Path::new(file).display().to_string();
        let src = match std::fs::read(file) {
            Ok(b) => String::from_utf8_lossy(&b).into_owned(),
            Err(e) => {
                eprintln!("ptx-validate: cannot read `{f}`: {e}");
                return ExitCode::from(2);
            }
        };
        let report = ptx_validate::validate(&src);
        if pretty {
            eprint!("{}", report.rendered(f, &src));
        } else {
            eprint!("{}", report.ptxas_text(f));
        }
        println!("{f}: {}", report.minimum_line());
        all_ok &= report.ok();
        if let Some(ptxas) = &ptxas {
            match ptx_validate::driver::stats(ptxas, &src) {
                Ok(table) => print!("{table}"),
                Err(e) => {
                    eprintln!("ptx-validate: {f}: {e}");
                    all_ok = false;
                }
            }
        }
    }
    if all_ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
