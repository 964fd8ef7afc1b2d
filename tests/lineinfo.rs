//! `-lineinfo`: the `.loc` and `.file` directives kernelc writes, checked
//! against the sources, ptxas, nvcc's own `-lineinfo` PTX and the line
//! table ptxas builds from them (docs/backend.md, "Line information").

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

/// One `.loc`: file number, line, column.
type Loc = (u32, u32, u32);

/// The `.loc` directives of `ptx`, in order.
fn locs(ptx: &str) -> Vec<Loc> {
    ptx.lines()
        .filter_map(|l| l.trim_start().strip_prefix(".loc"))
        .map(|rest| {
            let nums: Vec<u32> = rest
                .split(|c: char| c.is_whitespace() || c == ',')
                .filter(|w| !w.is_empty())
                .take(3)
                .map(|w| {
                    w.parse()
                        .unwrap_or_else(|_| panic!("a .loc number: {rest}"))
                })
                .collect();
            (nums[0], nums[1], nums[2])
        })
        .collect()
}

/// The `.file` directives of `ptx`: number to path.
fn files(ptx: &str) -> BTreeMap<u32, String> {
    ptx.lines()
        .filter_map(|l| l.trim_start().strip_prefix(".file"))
        .map(|rest| {
            let (n, path) = rest.trim().split_once(' ').expect("`.file N \"path\"`");
            (
                n.parse().expect("a file number"),
                path.trim_matches('"').to_string(),
            )
        })
        .collect()
}

/// The lines (of file 1) that `.loc`s of `ptx` name, line 0 left out
/// (nvcc's "no line").
fn main_file_lines(ptx: &str) -> BTreeSet<u32> {
    locs(ptx)
        .into_iter()
        .filter(|&(f, l, _)| f == 1 && l > 0)
        .map(|(_, l, _)| l)
        .collect()
}

/// The PTX of kernelc with `args` (run from the workspace root).
fn kernelc_ptx(args: &[&str]) -> String {
    let out = common::kernelc(args);
    assert!(out.status.success(), "{args:?}: {}", common::stderr(&out));
    common::stdout(&out)
}

/// `ptx` without its line information: the `.loc` and `.file` lines, the
/// blank line before the `.file`s, and `-lineinfo` in the producer line.
fn without_line_info(ptx: &str) -> String {
    let kept: Vec<&str> = ptx
        .lines()
        .filter(|l| !l.trim_start().starts_with(".loc") && !l.trim_start().starts_with(".file"))
        .collect();
    (kept.join("\n").trim_end().to_string() + "\n").replace(" -lineinfo)", ")")
}

#[test]
fn every_sample_assembles_and_each_loc_names_a_line_of_code() {
    let root = common::root();
    for name in common::sample_names() {
        let rel = format!("samples/{name}.cu");
        let source = common::sample_source(&name);
        let arch = common::target_for(&source, "sm_90");
        let lines: Vec<&str> = source.lines().collect();
        for regalloc in ["virtual", "regalloc2"] {
            let what = format!("{name} -lineinfo --regalloc={regalloc}");
            let args = [rel.as_str(), "-arch", &arch, "--regalloc", regalloc];
            let ptx = kernelc_ptx(&[&args[..], &["-lineinfo"]].concat());
            // nvcc's path: the working directory, then the name as given.
            let main = format!("{}/{rel}", root.display());
            assert_eq!(files(&ptx).get(&1), Some(&main), "{what}");
            let found = locs(&ptx);
            assert!(found.len() >= 3, "{what}: too few .loc lines:\n{ptx}");
            for (file, line, column) in found {
                assert_eq!(file, 1, "{what}: a sample includes no file");
                let text = lines
                    .get(line as usize - 1)
                    .unwrap_or_else(|| panic!("{what}: line {line} is past the end"));
                let code = text.trim();
                assert!(
                    !code.is_empty() && !code.starts_with("//"),
                    "{what}: line {line} holds no code: `{text}`"
                );
                assert!(
                    column >= 1 && column as usize <= text.len(),
                    "{what}: column {column} of `{text}`"
                );
            }
            common::assert_ptxas_accepts(&ptx, &arch, &what);
            // The line information is all that changes. (With regalloc2
            // the markers are instructions of the allocator's view, which
            // may then choose other registers: docs/backend.md §2.5.)
            if regalloc == "virtual" {
                let plain = kernelc_ptx(&args);
                assert_eq!(without_line_info(&ptx), plain, "{what}");
            }
        }
    }
}

#[test]
fn without_the_flag_there_is_no_line_information() {
    let ptx = kernelc_ptx(&["samples/saxpy.cu", "-arch=sm_90"]);
    assert!(!ptx.contains(".loc") && !ptx.contains(".file"), "{ptx}");
    let long = kernelc_ptx(&["samples/saxpy.cu", "-arch=sm_90", "--generate-line-info"]);
    let short = kernelc_ptx(&["samples/saxpy.cu", "-arch=sm_90", "-lineinfo"]);
    assert_eq!(long, short, "the two spellings are one option");
    assert!(
        short.starts_with("// Generated by kernelc")
            && short.lines().next().unwrap().contains(" -lineinfo)")
    );
}

/// The lines kernelc's `.loc`s name are nvcc's, but for two systematic
/// differences: nvcc also names each function's own line at its top
/// (`.loc 1 7 0`, column 0, kernelc writes none there) and a line 0 (no
/// line); and the implicit return at a function's end is at its closing
/// `}` in nvcc, at its opening `{` in kernelc (the frontend's span for
/// it). With those set aside, the sets are equal.
#[test]
fn lines_agree_with_nvcc() {
    let root = common::root();
    for name in ["saxpy", "vadd", "stencil_shared"] {
        let path = root.join(format!("samples/{name}.cu"));
        let source = common::sample_source(name);
        let text: Vec<&str> = source.lines().collect();
        let is = |line: u32, brace: &str| text[line as usize - 1].trim() == brace;
        let ptx = kernelc_ptx(&[&format!("samples/{name}.cu"), "-arch=sm_90", "-lineinfo"]);
        let ours: BTreeSet<u32> = main_file_lines(&ptx)
            .into_iter()
            .filter(|&l| !is(l, "{"))
            .collect();
        let Some(nvcc) = nvcc_lineinfo_ptx(&path, "sm_90", name) else {
            return;
        };
        let theirs: BTreeSet<u32> = locs(&nvcc)
            .into_iter()
            .filter(|&(f, l, c)| f == 1 && l > 0 && c > 0 && !is(l, "}"))
            .map(|(_, l, _)| l)
            .collect();
        assert!(ours.len() >= 3, "{name}: {ours:?}");
        assert_eq!(ours, theirs, "{name}: kernelc's lines against nvcc's");
    }
}

/// nvcc's `-lineinfo` PTX of `src`, or `None` after a loud skip.
fn nvcc_lineinfo_ptx(src: &Path, arch: &str, what: &str) -> Option<String> {
    let nvcc = common::nvcc_or_skip(&format!("{what} -lineinfo through nvcc"))?;
    let dir = common::scratch(&format!("lineinfo-nvcc-{what}"));
    Some(common::nvcc_ptx_to(
        &nvcc,
        src,
        arch,
        &["-lineinfo".to_string()],
        &dir.join("nvcc.ptx"),
    ))
}

/// An included header gets its own `.file`, with nvcc's path: the
/// includer's folder as given, then the name as written.
#[test]
fn an_included_file_is_named_as_nvcc_names_it() {
    let dir = common::scratch("lineinfo-include");
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    std::fs::create_dir_all(dir.join("inc")).unwrap();
    std::fs::write(
        dir.join("inc/h.h"),
        "__device__ __noinline__ float sq(float x) { return x * x; }\n",
    )
    .unwrap();
    let src = dir.join("sub/k.cu");
    std::fs::write(
        &src,
        "#include \"../inc/h.h\"\n__global__ void k(float *p) {\n  p[threadIdx.x] = sq(p[threadIdx.x]);\n}\n",
    )
    .unwrap();
    let ptx = kernelc_ptx(&[src.to_str().unwrap(), "-arch=sm_90", "-lineinfo"]);
    common::assert_ptxas_accepts(&ptx, "sm_90", "an included device function");
    let ours: BTreeSet<String> = files(&ptx).into_values().collect();
    let header_lines: BTreeSet<u32> = {
        let numbers = files(&ptx);
        let header = numbers
            .iter()
            .find(|(_, p)| p.ends_with("h.h"))
            .map(|(n, _)| *n);
        locs(&ptx)
            .into_iter()
            .filter(|&(f, ..)| Some(f) == header)
            .map(|(_, l, _)| l)
            .collect()
    };
    assert_eq!(header_lines, BTreeSet::from([1]), "{ptx}");
    let Some(nvcc) = nvcc_lineinfo_ptx(&src, "sm_90", "include") else {
        return;
    };
    let theirs: BTreeSet<String> = files(&nvcc).into_values().collect();
    assert_eq!(ours, theirs, "kernelc:\n{ptx}\nnvcc:\n{nvcc}");
}

/// ptxas turns the `.loc`s into the cubin's line table: nvdisasm shows the
/// global loads of saxpy at line 12, where `y[i] = a * x[i] + y[i];` is.
#[test]
fn the_cubin_line_table_puts_the_loads_at_their_line() {
    let Some(ptxas) = common::ptxas_or_skip("the line table of a -lineinfo cubin") else {
        return;
    };
    let Some(cuobjdump) = common::cuobjdump_or_skip("nvdisasm, beside cuobjdump") else {
        return;
    };
    let nvdisasm = cuobjdump.with_file_name("nvdisasm");
    let dir = common::scratch("lineinfo-cubin");
    let ptx = kernelc_ptx(&["samples/saxpy.cu", "-arch=sm_90", "-lineinfo"]);
    std::fs::write(dir.join("k.ptx"), &ptx).unwrap();
    let status = Command::new(&ptxas)
        .args(["-arch=sm_90", "-lineinfo", "k.ptx", "-o", "k.cubin"])
        .current_dir(&dir)
        .status()
        .expect("cannot run ptxas");
    assert!(status.success());
    let out = Command::new(&nvdisasm)
        .args(["--print-line-info", "k.cubin"])
        .current_dir(&dir)
        .output()
        .expect("cannot run nvdisasm");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let mut line = None;
    let mut load_lines = Vec::new();
    for l in text.lines() {
        if let Some(rest) = l.trim().strip_prefix("//## File ") {
            line = rest.rsplit_once("line ").map(|(_, n)| n.trim().to_string());
        } else if l.contains("LDG") {
            load_lines.push(line.clone());
        }
    }
    assert!(!load_lines.is_empty(), "{text}");
    assert!(
        load_lines.iter().all(|l| l.as_deref() == Some("12")),
        "{load_lines:?}\n{text}"
    );
    assert!(text.contains("samples/saxpy.cu"), "{text}");
}

/// A fault on the emulator names the source line of the faulting
/// instruction when the PTX has line information: in kernelc's PTX and in
/// nvcc's, the same line (the load of `in[i]`, line 3).
#[test]
fn an_emulator_fault_names_the_source_line() {
    let dir = common::scratch("lineinfo-fault");
    let src = dir.join("f.cu");
    std::fs::write(
        &src,
        "extern \"C\" __global__ void f(const float *in, float *out) {\n    int i = threadIdx.x;\n    float v = in[i];\n    out[i] = v * 2.0f;\n}\n",
    )
    .unwrap();
    let fault_of = |ptx: &str| {
        let args = [
            ptx_emu::KernelArg::Buffer(vec![0; 16]),
            ptx_emu::KernelArg::Buffer(vec![0; 64]),
        ];
        let config = ptx_emu::LaunchConfig {
            grid: [1, 1, 1],
            block: [16, 1, 1],
            ..ptx_emu::LaunchConfig::default()
        };
        match ptx_emu::run_ptx(ptx, "f", &args, &config) {
            Err(ptx_emu::RunError::Fault(f)) => f,
            other => panic!("a fault at in[4], not {other:?}"),
        }
    };
    let path = src.to_str().unwrap();
    let plain = fault_of(&kernelc_ptx(&[path, "-arch=sm_90"]));
    assert_eq!(plain.source, None);
    let ours = fault_of(&kernelc_ptx(&[path, "-arch=sm_90", "-lineinfo"]));
    let at = ours.source.expect("a source position");
    assert_eq!((at.file.as_str(), at.line), (path, 3));
    let Some(nvcc) = nvcc_lineinfo_ptx(&src, "sm_90", "fault") else {
        return;
    };
    let theirs = fault_of(&nvcc)
        .source
        .expect("a source position in nvcc's PTX");
    assert_eq!((theirs.file.as_str(), theirs.line), (path, 3));
}
