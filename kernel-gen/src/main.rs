//! `kernel-gen`: print generated kernels, or check many of them.
//!
//! ```text
//! kernel-gen SEED                      print the kernel of SEED (and its run line)
//! kernel-gen --seeds N [--start S] --check [--nvcc] [--keep DIR]
//! ```
//!
//! `--check` runs the differential check of `kernel_gen::check` on seeds
//! `S..S+N`, with ptxas when kernelc can find one (`stdx::tools`:
//! `$KERNELC_PTXAS`, PATH, `$CUDA_HOME/bin`, `.tools/`), and nvcc too with
//! `--nvcc`. Each failing kernel is written to DIR (default
//! `target/kernel-gen-failures`) with its run line and the failure, ready
//! to be reduced (`kernelc reduce`) and committed as a regression test. The
//! exit code is 1 when any seed failed, and 1 for a usage error too (as for
//! `kernelc`: every user error exits 1).

use kernel_gen::check::{check_kernel, nvcc_accepts};
use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

fn usage() -> ExitCode {
    eprintln!(
        "usage: kernel-gen SEED | kernel-gen --seeds N [--start S] --check [--nvcc] [--keep DIR]"
    );
    ExitCode::from(1)
}

fn main() -> ExitCode {
    let mut seeds: Option<u64> = None;
    let mut start = 0u64;
    let mut check = false;
    let mut nvcc = false;
    let mut keep = PathBuf::from("target/kernel-gen-failures");
    let mut single: Option<u64> = None;
    let mut it = std::env::args_os().skip(1);
    while let Some(os_arg) = it.next() {
        // Only `--keep`'s folder may be any bytes; the rest is text.
        let Some(a) = os_arg.to_str() else {
            eprintln!("kernel-gen: argument {os_arg:?} is not valid UTF-8");
            return usage();
        };
        let num = |v: Option<OsString>| v.and_then(|s| s.to_str()?.parse::<u64>().ok());
        match a {
            "--seeds" => match num(it.next()) {
                Some(n) => seeds = Some(n),
                None => return usage(),
            },
            "--start" => match num(it.next()) {
                Some(n) => start = n,
                None => return usage(),
            },
            "--check" => check = true,
            "--nvcc" => nvcc = true,
            "--keep" => match it.next() {
                Some(d) => keep = PathBuf::from(d),
                None => return usage(),
            },
            s => match s.parse::<u64>() {
                Ok(n) => single = Some(n),
                Err(_) => return usage(),
            },
        }
    }
    if let Some(seed) = single.filter(|_| !check) {
        let k = kernel_gen::generate(seed);
        print!("{}", k.source);
        println!("// run: kernelc run gen.cu {}", k.run_line());
        return ExitCode::SUCCESS;
    }
    if !check {
        return usage();
    }
    let (start, count) = match single {
        Some(s) => (s, 1),
        None => (start, seeds.unwrap_or(100)),
    };
    let ptxas = kernelc::ptxas::find_ptxas();
    let nvcc_path = if nvcc {
        kernelc::ptxas::find_nvcc()
    } else {
        None
    };
    if ptxas.is_none() {
        eprintln!("kernel-gen: ptxas not found; checking with ptx-validate only");
    }
    if nvcc && nvcc_path.is_none() {
        eprintln!("kernel-gen: nvcc (with nvvm) not found; skipping the nvcc check");
    }
    let scratch = std::env::temp_dir().join(format!("kernel-gen-{}", std::process::id()));
    let t0 = Instant::now();
    let mut failed = 0u64;
    for seed in start..start + count {
        let k = kernel_gen::generate(seed);
        let mut result = check_kernel(&k, &scratch, ptxas.as_deref());
        if let (Ok(()), Some(nvcc)) = (&result, &nvcc_path) {
            result = nvcc_accepts(&k, nvcc, &scratch);
        }
        if let Err(f) = result {
            failed += 1;
            eprintln!("seed {seed}: FAILED at {}", f.stage);
            let _ = std::fs::create_dir_all(&keep);
            let path = keep.join(format!("gen{seed}.cu"));
            let text = format!(
                "{}// run: {}\n/* {}\n*/\n",
                k.source,
                k.run_line(),
                f.to_string().replace("*/", "* /")
            );
            if std::fs::write(&path, text).is_ok() {
                eprintln!("  kept {}", path.display());
            }
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    eprintln!(
        "kernel-gen: {count} seeds from {start}, {failed} failed, {:.1} s",
        t0.elapsed().as_secs_f64()
    );
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
