//! nvcc's outputs, kept between test binaries and runs.
//!
//! Several suites compile the same file with the same nvcc command
//! (`tests/programs.rs` and `tests/emu_coverage.rs` every program of the
//! manifest, for one), and nvcc takes seconds where kernelc takes
//! milliseconds: in one run of the whole suite the second compile of each
//! is a copy. An entry is kept under the target folder by a hash of the
//! command (nvcc's path, its arguments, the folder it runs in) and is used
//! only while every file the compile read (nvcc's `-MD` list: the source,
//! its headers, CUDA's) has the size and modification time it had then, as
//! `make` decides; so an edited program or header is compiled again. A
//! rejected compile is never kept.

use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::UNIX_EPOCH;

/// Runs `nvcc ARGS -o OUT` in `cwd` (`args` without the output), or copies
/// the output of an earlier run of the same command whose inputs have not
/// changed since; `Err` with nvcc's messages when it rejects the file.
pub fn run(nvcc: &Path, args: &[String], cwd: &Path, out: &Path) -> Result<(), String> {
    let entry = cache_dir().join(format!("{:016x}", command_hash(nvcc, args, cwd)));
    if is_fresh(&entry) {
        std::fs::copy(entry.join("output"), out).map_err(|e| e.to_string())?;
        return Ok(());
    }
    let deps = out.with_extension("nvcc-deps");
    let done = Command::new(nvcc)
        .current_dir(cwd)
        .args(args)
        .arg("-o")
        .arg(out)
        .arg("-MD")
        .arg("-MF")
        .arg(&deps)
        .output()
        .expect("cannot run nvcc");
    if !done.status.success() {
        return Err(String::from_utf8_lossy(&done.stderr).into_owned());
    }
    let inputs = std::fs::read_to_string(&deps).map(|d| dependencies(&d, cwd));
    let _ = std::fs::remove_file(&deps);
    if let Ok(inputs) = inputs {
        keep(&entry, out, &inputs);
    }
    Ok(())
}

fn cache_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("nvcc-cache")
}

fn command_hash(nvcc: &Path, args: &[String], cwd: &Path) -> u64 {
    // SipHash with fixed keys: the same number in every process.
    let mut h = std::collections::hash_map::DefaultHasher::new();
    (nvcc, args, cwd).hash(&mut h);
    h.finish()
}

/// The files a `-MD` dependency list names (after the target and `:`),
/// relative ones taken from `cwd`.
fn dependencies(make_rule: &str, cwd: &Path) -> Vec<PathBuf> {
    let joined = make_rule.replace("\\\n", " ");
    let Some((_, inputs)) = joined.split_once(": ") else {
        return Vec::new();
    };
    inputs.split_whitespace().map(|p| cwd.join(p)).collect()
}

/// A file's size and modification time, as one line of an entry's list.
fn stamp(path: &Path) -> Option<String> {
    let meta = std::fs::metadata(path).ok()?;
    let modified = meta.modified().ok()?.duration_since(UNIX_EPOCH).ok()?;
    Some(format!(
        "{} {} {}",
        modified.as_nanos(),
        meta.len(),
        path.display()
    ))
}

/// Whether `entry` holds an output whose inputs are all as they were.
fn is_fresh(entry: &Path) -> bool {
    let Ok(list) = std::fs::read_to_string(entry.join("inputs")) else {
        return false;
    };
    list.lines().all(|line| {
        let path = line.splitn(3, ' ').nth(2).unwrap_or_default();
        stamp(Path::new(path)).as_deref() == Some(line)
    })
}

/// Stores `output` and the stamps of `inputs` as `entry`, whole or not at
/// all: written to a folder of this thread's, then renamed (a concurrent
/// writer of the same entry wins, with the same contents).
fn keep(entry: &Path, output: &Path, inputs: &[PathBuf]) {
    let Some(stamps) = inputs.iter().map(|p| stamp(p)).collect::<Option<Vec<_>>>() else {
        return;
    };
    let thread =
        format!("{:?}", std::thread::current().id()).replace(|c: char| !c.is_alphanumeric(), "");
    let fresh = entry.with_extension(format!("{}-{thread}", std::process::id()));
    let written = std::fs::create_dir_all(&fresh)
        .and_then(|()| std::fs::copy(output, fresh.join("output")))
        .and_then(|_| std::fs::write(fresh.join("inputs"), stamps.join("\n")));
    if written.is_ok() && !is_fresh(entry) {
        // A stale entry (no reader takes it) makes way.
        let _ = std::fs::remove_dir_all(entry);
        let _ = std::fs::rename(&fresh, entry);
    }
    let _ = std::fs::remove_dir_all(&fresh);
}
