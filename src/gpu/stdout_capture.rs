//! What a kernel's `printf` printed on the GPU, as text.
//!
//! The CUDA driver writes device `printf` output to the process's standard
//! output (file descriptor 1) through C's `stdout` when the context
//! synchronizes. A caller that wants that text (the Python package, whose
//! notebooks do not show fd 1) points fd 1 at an unlinked temporary file
//! for the launch and reads it back: [`Capture::start`] before the
//! launch, [`Capture::finish`] after the synchronization. Whatever else
//! the process writes to fd 1 meanwhile is captured too.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::raw::{c_int, c_void};

extern "C" {
    // POSIX, from the C library every Rust program on Unix links.
    fn dup(fd: c_int) -> c_int;
    fn dup2(from: c_int, to: c_int) -> c_int;
    fn fflush(stream: *mut c_void) -> c_int;
}

const STDOUT: c_int = 1;

/// Flushes every C stdio stream, so that text already written through
/// C's `stdout` lands where fd 1 pointed when it was written. A failed
/// flush (a full disk under the capture file) loses text, so it is an
/// error, not silence.
fn flush_c_streams() -> std::io::Result<()> {
    // SAFETY: `fflush(NULL)` flushes all output streams; it takes no
    // pointer from us.
    if unsafe { fflush(std::ptr::null_mut()) } == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// fd 1 redirected into a temporary file until [`Capture::finish`] (or
/// the drop) puts the original back.
pub struct Capture {
    saved: Option<OwnedFd>,
    file: File,
}

impl Capture {
    pub fn start() -> Result<Capture, String> {
        let file = unlinked_temp_file()?;
        // Text buffered before the capture belongs to the old fd 1; if it
        // cannot go there, it is not ours to report.
        let _ = flush_c_streams();
        // SAFETY: `dup` of fd 1 returns a new descriptor or -1; a new one is
        // owned by us alone.
        let saved = unsafe { dup(STDOUT) };
        if saved < 0 {
            return Err(format!(
                "cannot capture printf output: dup(1) failed: {}",
                std::io::Error::last_os_error()
            ));
        }
        // SAFETY: `saved` is a fresh descriptor that nothing else owns.
        let saved = unsafe { OwnedFd::from_raw_fd(saved) };
        // SAFETY: both descriptors are open; fd 1 is replaced atomically.
        if unsafe { dup2(file.as_raw_fd(), STDOUT) } < 0 {
            return Err(format!(
                "cannot capture printf output: dup2 failed: {}",
                std::io::Error::last_os_error()
            ));
        }
        Ok(Capture {
            saved: Some(saved),
            file,
        })
    }

    /// Puts fd 1 back and returns what was written to it meanwhile.
    pub fn finish(mut self) -> Result<String, String> {
        self.restore()
            .map_err(|e| format!("cannot write the captured printf output: {e}"))?;
        let mut text = Vec::new();
        self.file
            .seek(SeekFrom::Start(0))
            .and_then(|_| self.file.read_to_end(&mut text))
            .map_err(|e| format!("cannot read the captured printf output: {e}"))?;
        Ok(String::from_utf8_lossy(&text).into_owned())
    }

    /// Puts the original fd 1 back (always), after flushing what C stdio
    /// holds into the capture file; the flush's failure is returned.
    fn restore(&mut self) -> std::io::Result<()> {
        let Some(saved) = self.saved.take() else {
            return Ok(());
        };
        let flushed = flush_c_streams();
        // SAFETY: `saved` is the original fd 1, still open; dup2 puts
        // it back in place (and `saved` itself is closed on drop).
        unsafe {
            dup2(saved.as_raw_fd(), STDOUT);
        }
        flushed
    }
}

impl Drop for Capture {
    fn drop(&mut self) {
        // Dropped without `finish` (an error path): the text is discarded
        // anyway, so only fd 1's return matters.
        let _ = self.restore();
    }
}

/// A new file in the temporary folder, removed from the folder at once
/// (it lives while open).
fn unlinked_temp_file() -> Result<File, String> {
    static COUNT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = COUNT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let path = std::env::temp_dir().join(format!("kernelc-printf-{}-{n}", std::process::id()));
    let file = File::options()
        .read(true)
        .write(true)
        .create_new(true)
        .open(&path)
        .map_err(|e| format!("cannot capture printf output: {}: {e}", path.display()))?;
    let _ = std::fs::remove_file(&path);
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Where fd 1 leads (Linux).
    fn fd1_target() -> std::path::PathBuf {
        std::fs::read_link("/proc/self/fd/1").unwrap()
    }

    /// Set in the child process that runs the capture alone.
    const CHILD: &str = "KERNELC_STDOUT_CAPTURE_CHILD";

    /// fd 1 belongs to the whole process, and the test harness runs other
    /// tests on other threads that may write to it, spawn children that
    /// inherit it, or print their results through it while the capture
    /// holds it. So the check runs in a child process of its own: this
    /// test binary again, filtered to this one test, on one thread.
    #[test]
    fn text_written_to_fd_1_comes_back_and_fd_1_is_restored() {
        if std::env::var_os(CHILD).is_some() {
            capture_in_this_process();
            return;
        }
        let name =
            "gpu::stdout_capture::tests::text_written_to_fd_1_comes_back_and_fd_1_is_restored";
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args([name, "--exact", "--test-threads=1", "--nocapture"])
            .env(CHILD, "1")
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "the capture failed in its own process:\n{stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        // The filter matched the test: a typo would pass with 0 tests run.
        assert!(stdout.contains("1 passed"), "{stdout}");
    }

    fn capture_in_this_process() {
        let before = fd1_target();
        let capture = Capture::start().unwrap();
        // Through C's stdout, as the driver writes: `puts` is buffered by
        // C stdio when fd 1 is a file, so only the flush in `finish` makes
        // it reach the file.
        extern "C" {
            fn puts(s: *const std::os::raw::c_char) -> c_int;
        }
        // SAFETY: a NUL-terminated string.
        let written = unsafe { puts(c"from C stdio".as_ptr()) };
        assert!(
            written >= 0,
            "puts failed: {}",
            std::io::Error::last_os_error()
        );
        let text = capture.finish().unwrap();
        assert_eq!(text, "from C stdio\n");
        assert_eq!(fd1_target(), before);
    }
}
