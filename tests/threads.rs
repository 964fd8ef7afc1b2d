//! `--threads`: the optimizer and instruction selection take a module's
//! functions one at a time, on several threads (`stdx::parallel`). The
//! output must not depend on the thread count: every file of several
//! kernels (the probes, the outside kernels, the corpus) is compiled on one
//! thread and on three, to optimized IR and to PTX, and the texts compared
//! byte for byte. Debug builds also verify every function after every pass
//! on the worker threads.

mod common;

use kernelc::driver::{compile_source, CompileOptions, Emit};

fn multi_kernel_files() -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for dir in ["tests/probes", "tests/outside", "tests/corpus"] {
        for entry in std::fs::read_dir(common::root().join(dir)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "cu") {
                let src = std::fs::read_to_string(&path).unwrap();
                if src.matches("__global__").count() >= 2 {
                    files.push(path);
                }
            }
        }
    }
    files.sort();
    files
}

#[test]
fn output_is_the_same_on_one_thread_and_on_three() {
    let files = multi_kernel_files();
    assert!(files.len() >= 15, "{} files", files.len());
    for path in &files {
        let name = common::sample_name(path);
        let src = std::fs::read_to_string(path).unwrap();
        for emit in [Emit::IrOpt, Emit::Ptx] {
            let compile = |threads| {
                let opts = CompileOptions {
                    target: kernelc::backend_nvptx::Target::parse("sm_90").unwrap(),
                    emit,
                    threads,
                    ..Default::default()
                };
                compile_source(&name, &src, &opts).unwrap_or_else(|e| panic!("{name}: {e:?}"))
            };
            let one = compile(1);
            let three = compile(3);
            assert!(
                one == three,
                "{name} ({emit:?}): the output differs between 1 and 3 threads"
            );
        }
    }
}

#[test]
fn the_threads_option_is_accepted_and_changes_nothing() {
    let src = common::root().join("tests/probes/math_int_optim.cu");
    let src = src.to_str().unwrap();
    let outputs: Vec<String> = ["1", "2", "0"]
        .iter()
        .map(|t| {
            let o = common::kernelc(&[src, "-arch=sm_90", "--threads", t, "-o", "-"]);
            assert!(o.status.success(), "--threads {t}: {}", common::stderr(&o));
            common::stdout(&o)
        })
        .collect();
    assert!(outputs[0].contains(".visible .entry"));
    assert_eq!(outputs[0], outputs[1]);
    assert_eq!(outputs[0], outputs[2]);
}
