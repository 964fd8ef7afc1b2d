//! `kernelc reduce`: a failing kernel shrinks to the few tokens that make
//! it fail, while the shell test keeps succeeding.

use std::path::PathBuf;
use std::process::Command;

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("kernelc-reduce-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

const KERNEL: &str = r#"// A kernel with one bad line among many good ones.
__device__ int helper(const int *p, int i)
{
    int s = 0;
    for (int j = 0; j < 4; j++)
        s += p[(i + j) & 15];
    return s;
}

extern "C" __global__ void k(int *out, const int *in)
{
    unsigned t = threadIdx.x;
    int a = helper(in, (int)t);
    int b = a * 3 + (int)blockIdx.x;
    if (b > 10) {
        out[t] = b - undeclared_thing;
    } else {
        out[t] = a;
    }
}
"#;

#[test]
fn reduces_a_kernel_to_its_error() {
    let dir = scratch("error");
    std::fs::write(dir.join("k.cu"), KERNEL).unwrap();
    // Interesting: kernelc still reports the undeclared name.
    let test = format!(
        "'{}' \"$1\" -o /dev/null 2>&1 | grep -q 'undeclared_thing'",
        env!("CARGO_BIN_EXE_kernelc")
    );
    let out = Command::new(env!("CARGO_BIN_EXE_kernelc"))
        .current_dir(&dir)
        .args(["reduce", "k.cu", "--until", &test])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let reduced = std::fs::read_to_string(dir.join("k.reduced.cu")).unwrap();
    assert!(reduced.contains("undeclared_thing"), "{reduced}");
    assert!(
        reduced.len() * 5 < KERNEL.len(),
        "not much smaller ({} bytes):\n{reduced}",
        reduced.len()
    );
    // Only the input and the result exist: no stray candidates.
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["k.cu", "k.reduced.cu"]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_test_that_fails_on_the_original_is_an_error() {
    let dir = scratch("uninteresting");
    std::fs::write(dir.join("k.cu"), KERNEL).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_kernelc"))
        .current_dir(&dir)
        .args([
            "reduce",
            "k.cu",
            "--until",
            "grep -q no-such-text {}",
            "-o",
            "small.cu",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("does not succeed on the original"));
}
