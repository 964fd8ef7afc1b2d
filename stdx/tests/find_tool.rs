//! The `find-tool` binary, which the scripts ask: it prints what
//! `stdx::tools::find` finds, as raw bytes and a newline, and says by its
//! exit code when it cannot.

#![cfg(unix)]

use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::process::{Command, Output};

fn find_tool(args: &[&str], vars: &[(&str, &PathBuf)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_find-tool"));
    cmd.args(args).env_clear();
    for (k, v) in vars {
        cmd.env(k, v);
    }
    cmd.output().expect("cannot run find-tool")
}

#[test]
fn prints_the_tool_the_search_finds() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("find-tool-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let ptxas = dir.join("my ptxas");
    std::fs::write(&ptxas, "#!/bin/sh\n").unwrap();
    std::fs::set_permissions(&ptxas, std::fs::Permissions::from_mode(0o755)).unwrap();

    let out = find_tool(&["ptxas"], &[("KERNELC_PTXAS", &ptxas)]);
    assert!(out.status.success(), "{out:?}");
    let mut line = ptxas.clone().into_os_string().into_encoded_bytes();
    line.push(b'\n');
    assert_eq!(out.stdout, line);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_unknown_tool_or_no_name_is_a_usage_error() {
    for args in [&["nvdisasm"][..], &[], &["ptxas", "nvcc"]] {
        let out = find_tool(args, &[]);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {out:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}
