//! Finding NVIDIA's command-line tools: the one search that the CLI,
//! ptx-validate, the tests and the scripts share (the scripts ask the
//! `find-tool` binary of this crate, so no second copy of the order exists).
//!
//! The search order, first match wins:
//!
//! 1. the tool's own variable: `$KERNELC_PTXAS`, `$KERNELC_NVCC`,
//!    `$KERNELC_CUOBJDUMP`;
//! 2. the directories of `PATH`, in order;
//! 3. `$CUDA_HOME/bin`;
//! 4. the repository's own install under `.tools/` (where `scripts/test`
//!    puts the pinned CUDA wheels from PyPI: [`Tool::local_dir`]).
//!
//! A candidate counts only when it is an executable file, so a variable
//! that names a missing file falls through to the next step, as a shell's
//! `[ -x ]` and `command -v` do. nvcc counts only with the nvvm beside it
//! (`../nvvm/bin/cicc`), without which it cannot compile anything.
//!
//! Nothing here knows what the tools are for: they are names and places.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// One of NVIDIA's tools that kernelc's tests, CLI and scripts run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tool {
    /// The PTX assembler.
    Ptxas,
    /// NVIDIA's CUDA compiler driver.
    Nvcc,
    /// The cubin reader (`--dump-sass`).
    Cuobjdump,
}

impl Tool {
    /// Every tool, in the order above.
    pub const ALL: [Tool; 3] = [Tool::Ptxas, Tool::Nvcc, Tool::Cuobjdump];

    /// The executable's file name.
    pub fn name(self) -> &'static str {
        match self {
            Tool::Ptxas => "ptxas",
            Tool::Nvcc => "nvcc",
            Tool::Cuobjdump => "cuobjdump",
        }
    }

    /// The tool named by its file name.
    pub fn from_name(name: &str) -> Option<Tool> {
        Tool::ALL.into_iter().find(|t| t.name() == name)
    }

    /// The environment variable that names the tool's path, searched first.
    pub fn env_var(self) -> &'static str {
        match self {
            Tool::Ptxas => "KERNELC_PTXAS",
            Tool::Nvcc => "KERNELC_NVCC",
            Tool::Cuobjdump => "KERNELC_CUOBJDUMP",
        }
    }

    /// Where the repository's install keeps the tool, relative to the
    /// repository's root. pip cannot add packages to a folder that already
    /// holds the `nvidia` namespace, so cuobjdump's wheel has a sibling
    /// folder (`scripts/test` installs both).
    pub fn local_dir(self) -> &'static str {
        match self {
            Tool::Ptxas | Tool::Nvcc => ".tools/cuda-13.5/nvidia/cu13/bin",
            Tool::Cuobjdump => ".tools/cuda-13.5-extra/nvidia/cu13/bin",
        }
    }

    /// Whether `path` is this tool, ready to run.
    fn usable(self, path: &Path) -> bool {
        is_executable(path)
            && (self != Tool::Nvcc
                || path
                    .parent()
                    .is_some_and(|bin| bin.join("../nvvm/bin/cicc").is_file()))
    }
}

/// The repository this crate was built from: where `.tools/` is looked for.
pub fn repository_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("stdx sits in a folder of the repository")
}

/// Finds `tool` in the process's environment and the repository's
/// `.tools/` (the order of the module documentation).
pub fn find(tool: Tool) -> Option<PathBuf> {
    find_with(tool, |name| std::env::var_os(name), repository_root())
}

/// Whether a test must have every tool: under `CI=true`, where
/// `scripts/test` has installed them, a missing one is a broken setup.
pub fn required() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
}

/// `tool` for a test of `what`, found by [`find`]; without it, `None`
/// after a loud skip line, or a panic when tools are [`required`]. Every
/// test suite of the workspace asks this, so a skip reads the same
/// everywhere.
pub fn find_for_test(tool: Tool, what: &str) -> Option<PathBuf> {
    let name = match tool {
        Tool::Nvcc => "nvcc with nvvm",
        _ => tool.name(),
    };
    match find(tool) {
        Some(p) => Some(p),
        None if required() => panic!(
            "{name} is required in CI (CI=true) but was not found (${}, PATH, \
             $CUDA_HOME/bin, .tools/): {what}",
            tool.env_var()
        ),
        None => {
            eprintln!("SKIPPED ({name} not found; run ./scripts/test to install it): {what}");
            None
        }
    }
}

/// Finds `tool` with `var` as the environment and `root` as the
/// repository: [`find`] without the process's state, for tests.
pub fn find_with(
    tool: Tool,
    var: impl Fn(&str) -> Option<OsString>,
    root: &Path,
) -> Option<PathBuf> {
    let named = var(tool.env_var()).map(PathBuf::from);
    let on_path = var("PATH")
        .map(|paths| std::env::split_paths(&paths).collect::<Vec<_>>())
        .unwrap_or_default()
        .into_iter()
        .map(|dir| dir.join(tool.name()));
    let cuda_home = var("CUDA_HOME").map(|home| Path::new(&home).join("bin").join(tool.name()));
    let local = root.join(tool.local_dir()).join(tool.name());
    named
        .into_iter()
        .chain(on_path)
        .chain(cuda_home)
        .chain([local])
        .find(|candidate| tool.usable(candidate))
}

#[cfg(unix)]
fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata()
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(path: &Path) -> bool {
    path.is_file()
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::collections::HashMap;
    use std::os::unix::fs::PermissionsExt;

    /// A fresh folder with a fake executable at each of `tools` (paths
    /// relative to it), and the folder.
    fn tree(name: &str, tools: &[&str]) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("stdx-tools-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for tool in tools {
            let path = dir.join(tool);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, "#!/bin/sh\n").unwrap();
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        dir
    }

    fn find_in(tool: Tool, vars: &[(&str, PathBuf)], root: &Path) -> Option<PathBuf> {
        let vars: HashMap<String, OsString> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone().into_os_string()))
            .collect();
        find_with(tool, |k| vars.get(k).cloned(), root)
    }

    #[test]
    fn the_variable_comes_before_path_cuda_home_and_the_local_install() {
        let d = tree(
            "order",
            &[
                "var/ptxas",
                "path1/ptxas",
                "cuda/bin/ptxas",
                ".tools/cuda-13.5/nvidia/cu13/bin/ptxas",
            ],
        );
        let path = std::env::join_paths([d.join("empty"), d.join("path1")]).unwrap();
        let mut vars = vec![
            ("KERNELC_PTXAS", d.join("var/ptxas")),
            ("PATH", PathBuf::from(path)),
            ("CUDA_HOME", d.join("cuda")),
        ];
        let expected = [
            "var/ptxas",
            "path1/ptxas",
            "cuda/bin/ptxas",
            ".tools/cuda-13.5/nvidia/cu13/bin/ptxas",
        ];
        for want in expected {
            assert_eq!(find_in(Tool::Ptxas, &vars, &d), Some(d.join(want)));
            if !vars.is_empty() {
                vars.remove(0);
            }
        }
        assert_eq!(find_in(Tool::Ptxas, &[], &d.join("nowhere")), None);
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn a_variable_naming_no_executable_falls_through() {
        let d = tree("fallthrough", &["bin/ptxas"]);
        std::fs::write(d.join("plain"), "").unwrap();
        for named in [d.join("missing"), d.join("plain"), d.clone()] {
            let vars = [("KERNELC_PTXAS", named), ("PATH", d.join("bin"))];
            assert_eq!(find_in(Tool::Ptxas, &vars, &d), Some(d.join("bin/ptxas")));
        }
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn nvcc_counts_only_with_its_nvvm() {
        let d = tree(
            "nvvm",
            &["bare/bin/nvcc", "full/bin/nvcc", "full/nvvm/bin/cicc"],
        );
        let path = std::env::join_paths([d.join("bare/bin"), d.join("full/bin")]).unwrap();
        let vars = [
            ("KERNELC_NVCC", d.join("bare/bin/nvcc")),
            ("PATH", PathBuf::from(path)),
        ];
        assert_eq!(
            find_in(Tool::Nvcc, &vars, &d),
            Some(d.join("full/bin/nvcc"))
        );
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn cuobjdump_has_its_own_local_folder() {
        let d = tree(
            "local",
            &[".tools/cuda-13.5-extra/nvidia/cu13/bin/cuobjdump"],
        );
        assert_eq!(
            find_in(Tool::Cuobjdump, &[], &d),
            Some(d.join(".tools/cuda-13.5-extra/nvidia/cu13/bin/cuobjdump"))
        );
        assert_eq!(find_in(Tool::Ptxas, &[], &d), None);
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn tools_are_named_by_their_file_names() {
        for tool in Tool::ALL {
            assert_eq!(Tool::from_name(tool.name()), Some(tool));
        }
        assert_eq!(Tool::from_name("nvdisasm"), None);
    }
}
