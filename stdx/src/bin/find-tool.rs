//! `find-tool NAME`: prints the path of NVIDIA's `ptxas`, `nvcc` or
//! `cuobjdump` as kernelc's CLI and tests find it ([`stdx::tools`]), and
//! exits 0; exits 1 (printing nothing on stdout) when there is none, and 2
//! on a name it does not know. The scripts ask it (`cargo run -q -p stdx
//! --bin find-tool -- ptxas`) so that they search in the same order.

use std::io::Write;
use std::process::ExitCode;
use stdx::tools::{self, Tool};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [name] = args.as_slice() else {
        eprintln!("usage: find-tool ptxas|nvcc|cuobjdump");
        return ExitCode::from(2);
    };
    let Some(tool) = Tool::from_name(name) else {
        eprintln!("find-tool: no tool `{name}` (ptxas, nvcc or cuobjdump)");
        return ExitCode::from(2);
    };
    match tools::find(tool) {
        Some(path) => {
            // The path's own bytes (any a file name may hold), then a newline.
            let mut line = path.into_os_string().into_encoded_bytes();
            line.push(b'\n');
            match std::io::stdout().write_all(&line) {
                Ok(()) => ExitCode::SUCCESS,
                Err(_) => ExitCode::from(2),
            }
        }
        None => ExitCode::FAILURE,
    }
}
