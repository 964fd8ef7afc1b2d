//! Output safety: `-o` is written atomically, a failed compilation leaves
//! an existing output untouched, and kernelc writes nothing but the paths
//! it was given (no stray temporary files, in the output's folder or in the
//! working directory).

use std::path::{Path, PathBuf};
use std::process::Command;

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("kernelc-outsafe-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Every file under `dir`, relative, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p.clone());
            }
            out.push(p.strip_prefix(dir).unwrap().display().to_string());
        }
    }
    out.sort();
    out
}

fn kernelc(cwd: &Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_kernelc"))
        .current_dir(cwd)
        .args(args)
        .output()
        .expect("cannot run kernelc")
}

const GOOD: &str = "extern \"C\" __global__ void k(int *p) { p[threadIdx.x] = 1; }\n";
const BROKEN: &str = "extern \"C\" __global__ void k(int *p) { p[threadIdx.x] = ; }\n";

#[test]
fn a_failed_compilation_leaves_the_old_output_untouched() {
    let dir = scratch("untouched");
    std::fs::write(dir.join("broken.cu"), BROKEN).unwrap();
    std::fs::write(dir.join("out.ptx"), "known contents\n").unwrap();
    for emit in ["ptx", "ir", "obj"] {
        let out = kernelc(&dir, &["broken.cu", "--emit", emit, "-o", "out.ptx"]);
        assert_eq!(out.status.code(), Some(1), "--emit {emit}");
        assert_eq!(
            std::fs::read_to_string(dir.join("out.ptx")).unwrap(),
            "known contents\n",
            "--emit {emit}"
        );
    }
    // An unreadable input fails the same way.
    let out = kernelc(&dir, &["missing.cu", "-o", "out.ptx"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        std::fs::read_to_string(dir.join("out.ptx")).unwrap(),
        "known contents\n"
    );
    assert_eq!(listing(&dir), ["broken.cu", "out.ptx"]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn kernelc_writes_only_the_paths_it_was_given() {
    let dir = scratch("only");
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::create_dir_all(dir.join("out")).unwrap();
    std::fs::write(dir.join("src/k.cu"), GOOD).unwrap();
    std::fs::write(dir.join("src/bad.cu"), BROKEN).unwrap();
    let ok = kernelc(&dir, &["src/k.cu", "-o", "out/k.ptx"]);
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    let ok = kernelc(&dir, &["src/k.cu", "--emit", "obj", "-o", "out/k.o"]);
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    // To stdout: no file at all.
    let ok = kernelc(&dir, &["src/k.cu", "--emit", "ir"]);
    assert!(ok.status.success());
    let bad = kernelc(&dir, &["src/bad.cu", "-o", "out/bad.ptx"]);
    assert_eq!(bad.status.code(), Some(1));
    // Output to a folder that does not exist fails cleanly, creating nothing.
    let bad = kernelc(&dir, &["src/k.cu", "-o", "nowhere/k.ptx"]);
    assert_eq!(bad.status.code(), Some(1));
    assert_eq!(
        listing(&dir),
        [
            "out",
            "out/k.o",
            "out/k.ptx",
            "src",
            "src/bad.cu",
            "src/k.cu"
        ]
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_output_is_replaced_whole() {
    let dir = scratch("whole");
    std::fs::write(dir.join("k.cu"), GOOD).unwrap();
    std::fs::write(dir.join("k.ptx"), "x".repeat(100_000)).unwrap();
    let ok = kernelc(&dir, &["k.cu", "-o", "k.ptx"]);
    assert!(ok.status.success());
    let text = std::fs::read_to_string(dir.join("k.ptx")).unwrap();
    assert!(
        text.starts_with("//") && text.contains(".entry k"),
        "{text}"
    );
    assert!(!text.contains("xxx"), "old contents left behind");
    assert_eq!(listing(&dir), ["k.cu", "k.ptx"]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A special file given to `-o` stays what it is: a FIFO receives the PTX
/// and is still a FIFO afterwards (a rename of a temporary file onto it
/// would have replaced it with a plain file — the same fate `/dev/null`
/// met before this rule).
#[test]
fn a_special_output_file_is_written_in_place() {
    use std::os::unix::fs::FileTypeExt;
    let dir = scratch("special");
    std::fs::write(dir.join("good.cu"), GOOD).unwrap();
    let fifo = dir.join("pipe");
    let made = Command::new("mkfifo").arg(&fifo).status();
    if !matches!(made, Ok(s) if s.success()) {
        eprintln!("SKIPPED: mkfifo is not available");
        return;
    }
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap())
    };
    let out = kernelc(&dir, &["good.cu", "-o", "pipe"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let text = reader.join().unwrap();
    assert!(
        text.contains(".entry k("),
        "the PTX went through the FIFO: {text}"
    );
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
    assert_eq!(listing(&dir), ["good.cu", "pipe"], "no temporary file left");

    // `/dev/null` stays a character device.
    let out = kernelc(&dir, &["good.cu", "-o", "/dev/null"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let null = std::fs::metadata("/dev/null").unwrap();
    assert!(
        null.file_type().is_char_device(),
        "/dev/null is no longer a device"
    );
}
