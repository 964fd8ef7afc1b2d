//! Output files as users expect them from a compiler (nvcc, gcc, clang):
//!
//! - never a partial file: the bytes go to a temporary file beside the
//!   target, renamed over it once complete, so a failed or interrupted
//!   write leaves the old file (or none) as it was;
//! - through symbolic links: `-o link` writes the file the link points to
//!   (creating it when the link dangles), and the link stays a link;
//! - the existing file's permission bits are kept (a `600` file stays
//!   `600`); a new file gets the usual `666 & !umask`;
//! - a file the user may not write (no write permission, as `access(2)`
//!   with `W_OK` says; the super-user may write any) is refused with
//!   "Permission denied" and left untouched, although the rename would be
//!   allowed by the folder's permissions;
//! - a device, FIFO or socket (`-o /dev/null`, `-o /dev/stdout`) is written
//!   in place: renaming onto it would replace the special file.
//!
//! Every path is an `OsStr`: a file name may be any bytes.

use std::ffi::OsString;
use std::fs::{File, OpenOptions, Permissions};
use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};

/// How many links [`resolve_links`] follows before it gives up (Linux's
/// own limit, `ELOOP`).
const MAX_LINKS: usize = 40;

/// Writes `bytes` to `path` with the guarantees of the module: the file at
/// `path` (or the one its links lead to) is replaced whole, or, on any
/// error, left as it was. The error is `error: cannot write `PATH`: ...`.
pub fn write_file(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let fail = |e: std::io::Error| format!("error: cannot write `{}`: {e}", path.display());
    let target = resolve_links(path).map_err(fail)?;
    let existing = match std::fs::metadata(&target) {
        Ok(meta) => Some(meta),
        Err(e) if e.kind() == ErrorKind::NotFound => None,
        Err(e) => return Err(fail(e)),
    };
    let Some(meta) = existing else {
        return replace_atomically(&target, bytes, None).map_err(fail);
    };
    if meta.is_dir() {
        return Err(fail(std::io::Error::other("it is a directory")));
    }
    // Opening for writing (without truncating) asks the kernel exactly
    // what `access(W_OK)` would: mode bits, ACLs, a read-only mount, and
    // the super-user's override. A special file is written through it.
    let mut opened = OpenOptions::new().write(true).open(&target).map_err(fail)?;
    if !meta.is_file() {
        return opened
            .write_all(bytes)
            .and_then(|()| opened.flush())
            .map_err(fail);
    }
    drop(opened);
    replace_atomically(&target, bytes, Some(meta.permissions())).map_err(fail)
}

/// The file that writing `path` should replace: `path` itself, or, when it
/// is a symbolic link, the end of its chain of links (a relative link is
/// relative to the folder of the link). A dangling link resolves to the
/// missing file it names, which the write then creates, as `open(2)` does.
pub fn resolve_links(path: &Path) -> std::io::Result<PathBuf> {
    let mut current = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        match std::fs::symlink_metadata(&current) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let link = std::fs::read_link(&current)?;
                current = match current.parent() {
                    Some(dir) if link.is_relative() => dir.join(link),
                    _ => link,
                };
            }
            Ok(_) => return Ok(current),
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(current),
            Err(e) => return Err(e),
        }
    }
    Err(std::io::Error::other("too many levels of symbolic links"))
}

/// Writes `bytes` to a fresh temporary file in `target`'s folder, gives it
/// `permissions` (the replaced file's) and renames it over `target`. On an
/// error the temporary file is removed and `target` is untouched.
fn replace_atomically(
    target: &Path,
    bytes: &[u8],
    permissions: Option<Permissions>,
) -> std::io::Result<()> {
    let tmp = temporary_path(target);
    let written = (|| {
        let mut file = File::create(&tmp)?;
        file.write_all(bytes)?;
        if let Some(p) = permissions {
            file.set_permissions(p)?;
        }
        file.flush()?;
        std::fs::rename(&tmp, target)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

/// `DIR/.NAME.kernelc-tmp-PID` beside `target` (hidden, and the same file
/// system, so the rename is atomic).
fn temporary_path(target: &Path) -> PathBuf {
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let mut name = OsString::from(".");
    name.push(target.file_name().unwrap_or("out".as_ref()));
    name.push(format!(".kernelc-tmp-{}", std::process::id()));
    dir.join(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_links_resolve_from_the_link_folder() {
        let dir = std::env::temp_dir().join(format!("kernelc-links-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("a/b")).unwrap();
        std::os::unix::fs::symlink("b/real.ptx", dir.join("a/link.ptx")).unwrap();
        std::os::unix::fs::symlink("a/link.ptx", dir.join("top.ptx")).unwrap();
        assert_eq!(
            resolve_links(&dir.join("top.ptx")).unwrap(),
            dir.join("a/b/real.ptx")
        );
        std::os::unix::fs::symlink("loop", dir.join("loop")).unwrap();
        assert!(resolve_links(&dir.join("loop")).is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
