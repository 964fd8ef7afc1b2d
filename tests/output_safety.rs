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

/// `-o LINK` writes the file the link points to, as nvcc (and `open(2)`)
/// do: the link stays a link, a relative link is read from its own folder,
/// and a dangling link's target is created.
#[test]
fn the_output_is_written_through_a_symbolic_link() {
    use std::os::unix::fs::symlink;
    let dir = scratch("symlink");
    std::fs::create_dir_all(dir.join("real")).unwrap();
    std::fs::create_dir_all(dir.join("links")).unwrap();
    std::fs::write(dir.join("k.cu"), GOOD).unwrap();
    std::fs::write(dir.join("real/k.ptx"), "old\n").unwrap();
    symlink("../real/k.ptx", dir.join("links/k.ptx")).unwrap();
    symlink("../real/new.ptx", dir.join("links/dangling.ptx")).unwrap();
    for link in ["links/k.ptx", "links/dangling.ptx"] {
        let out = kernelc(&dir, &["k.cu", "-o", link]);
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        let meta = std::fs::symlink_metadata(dir.join(link)).unwrap();
        assert!(meta.file_type().is_symlink(), "{link} is still a link");
    }
    for target in ["real/k.ptx", "real/new.ptx"] {
        let text = std::fs::read_to_string(dir.join(target)).unwrap();
        assert!(text.contains(".entry k("), "{target}: {text}");
    }
    assert_eq!(
        listing(&dir),
        [
            "k.cu",
            "links",
            "links/dangling.ptx",
            "links/k.ptx",
            "real",
            "real/k.ptx",
            "real/new.ptx"
        ]
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The replaced file keeps its permission bits (a private `600` file does
/// not become world-readable), for `-o`, `kernelc opt -o` and `run --out`.
#[test]
fn the_output_keeps_the_mode_of_the_file_it_replaces() {
    use std::os::unix::fs::PermissionsExt;
    let dir = scratch("mode");
    std::fs::write(dir.join("k.cu"), GOOD).unwrap();
    let mode = |p: &str| std::fs::metadata(dir.join(p)).unwrap().permissions().mode() & 0o7777;
    let set = |p: &str, m: u32| {
        std::fs::write(dir.join(p), "old\n").unwrap();
        std::fs::set_permissions(dir.join(p), std::fs::Permissions::from_mode(m)).unwrap();
    };
    set("k.ptx", 0o600);
    set("k.kir", 0o640);
    set("opt.kir", 0o604);
    std::fs::create_dir_all(dir.join("out")).unwrap();
    set("out/arg0.bin", 0o660);
    let runs: [&[&str]; 4] = [
        &["k.cu", "-o", "k.ptx"],
        &["k.cu", "--emit", "ir", "-o", "k.kir"],
        &["opt", "k.kir", "-o", "opt.kir"],
        &[
            "run",
            "k.cu",
            "--kernel",
            "k",
            "--grid",
            "1",
            "--block",
            "2",
            "i32[]:zeros:2",
            "--out",
            "out",
        ],
    ];
    for args in runs {
        let out = kernelc(&dir, args);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {out:?}");
    }
    assert_eq!(mode("k.ptx"), 0o600);
    assert_eq!(mode("k.kir"), 0o640);
    assert_eq!(mode("opt.kir"), 0o604);
    assert_eq!(mode("out/arg0.bin"), 0o660);
    assert!(std::fs::read_to_string(dir.join("k.ptx"))
        .unwrap()
        .contains(".entry k("));
    assert_eq!(std::fs::read(dir.join("out/arg0.bin")).unwrap().len(), 8);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The effective user id, from `/proc/self/status` (`Uid: real effective ...`).
fn effective_uid() -> u32 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with("Uid:")).unwrap();
    line.split_whitespace().nth(2).unwrap().parse().unwrap()
}

/// A file the user may not write is refused, and stays as it was, though
/// the folder would allow replacing it. The super-user may write any file
/// (and kernelc does, as nvcc), so as root the test runs kernelc as
/// `nobody` through `setpriv` (util-linux).
#[test]
fn a_file_the_user_cannot_write_is_refused() {
    use std::os::unix::fs::PermissionsExt;
    let dir = scratch("readonly");
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o777)).unwrap();
    std::fs::write(dir.join("k.cu"), GOOD).unwrap();
    std::fs::write(dir.join("k.ptx"), "read-only\n").unwrap();
    std::fs::set_permissions(dir.join("k.ptx"), std::fs::Permissions::from_mode(0o444)).unwrap();
    let kernelc = env!("CARGO_BIN_EXE_kernelc");
    let mut cmd = if effective_uid() == 0 {
        let mut c = Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups", kernelc]);
        c
    } else {
        Command::new(kernelc)
    };
    let out = cmd
        .args(["k.cu", "-o", "k.ptx"])
        .current_dir(&dir)
        .output()
        .expect("cannot run kernelc (as root: setpriv, from util-linux, is needed)");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("error: cannot write `k.ptx`: Permission denied"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("k.ptx")).unwrap(),
        "read-only\n"
    );
    assert_eq!(listing(&dir), ["k.cu", "k.ptx"]);
    let _ = std::fs::remove_dir_all(&dir);
}
