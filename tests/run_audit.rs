//! Kernels from outside the samples (`tests/fixtures/audit/`, written for
//! an audit of issues #8 and #9) run the way a reviewer runs them: through
//! the `kernelc run` command line, every input given as a file
//! (`T[]:@file.bin`), every buffer read back from `--out DIR`, and each
//! compared with a reference computed here in Rust. Each kernel runs in the
//! interpreter at -O0 and -O3, in the PTX emulator, and (when nvcc is
//! installed) as nvcc's own PTX in the emulator.

mod common;

use common::{i32s, kernelc, scratch, stderr, stdout, u32s};
use std::path::{Path, PathBuf};
use std::process::Command;

/// One kernel argument: a buffer (element type and bytes) or a scalar.
enum Arg {
    Buf(&'static str, Vec<u8>),
    Scalar(String),
}

fn buf_i32(v: &[i32]) -> Arg {
    Arg::Buf("i32", v.iter().flat_map(|x| x.to_le_bytes()).collect())
}
fn buf_u32(v: &[u32]) -> Arg {
    Arg::Buf("u32", v.iter().flat_map(|x| x.to_le_bytes()).collect())
}
fn buf_i64(v: &[i64]) -> Arg {
    Arg::Buf("i64", v.iter().flat_map(|x| x.to_le_bytes()).collect())
}
fn buf_f32(v: &[f32]) -> Arg {
    Arg::Buf("f32", v.iter().flat_map(|x| x.to_le_bytes()).collect())
}
fn i64s(b: &[u8]) -> Vec<i64> {
    b.chunks_exact(8)
        .map(|c| i64::from_le_bytes(c.try_into().unwrap()))
        .collect()
}
fn f32s(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// A small deterministic generator (the inputs need not be `rand`'s).
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 16
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn int(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo) as u64) as i64
    }
    fn f32(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * (self.below(1 << 24) as f32 / (1 << 24) as f32)
    }
}

struct Launch<'a> {
    file: &'a str,
    kernel: &'a str,
    grid: &'a str,
    block: &'a str,
    shared: u32,
    arch: &'a str,
}

fn fixture(file: &str) -> PathBuf {
    common::root().join("tests/fixtures/audit").join(file)
}

/// Runs `input` (a .cu or .ptx) with `kernelc run`; returns every buffer
/// argument's final bytes, read from `--out DIR`, in argument order.
fn run(l: &Launch, input: &Path, engine: &str, opt: &str, args: &[Arg], tag: &str) -> Vec<Vec<u8>> {
    let dir = scratch(&format!("audit-{}-{tag}", l.kernel));
    let mut argv: Vec<String> = vec![
        "run".into(),
        input.display().to_string(),
        "--kernel".into(),
        l.kernel.into(),
        "--grid".into(),
        l.grid.into(),
        "--block".into(),
        l.block.into(),
        "--engine".into(),
        engine.into(),
        format!("-arch={}", l.arch),
        "--out".into(),
        dir.join("out").display().to_string(),
    ];
    if !opt.is_empty() {
        argv.push(opt.into());
    }
    if l.shared > 0 {
        argv.extend(["--shared-bytes".into(), l.shared.to_string()]);
    }
    for (k, a) in args.iter().enumerate() {
        match a {
            Arg::Buf(t, bytes) => {
                let p = dir.join(format!("in{k}.bin"));
                std::fs::write(&p, bytes).unwrap();
                argv.push(format!("{t}[]:@{}", p.display()));
            }
            Arg::Scalar(s) => argv.push(s.clone()),
        }
    }
    let refs: Vec<&str> = argv.iter().map(String::as_str).collect();
    let out = kernelc(&refs);
    assert!(
        out.status.success(),
        "{} ({engine} {opt} {tag}):\n{}",
        l.file,
        stderr(&out)
    );
    let bufs = args
        .iter()
        .enumerate()
        .filter(|(_, a)| matches!(a, Arg::Buf(..)))
        .map(|(k, _)| {
            std::fs::read(dir.join(format!("out/arg{k}.bin")))
                .unwrap_or_else(|e| panic!("{} ({engine}): arg{k}.bin: {e}", l.file))
        })
        .collect();
    let _ = std::fs::remove_dir_all(&dir);
    bufs
}

/// nvcc's PTX of a fixture, or `None` (with a SKIPPED line) without nvcc;
/// a failure in CI.
fn nvcc_ptx(l: &Launch) -> Option<PathBuf> {
    let nvcc = common::nvcc_or_skip(&format!("nvcc's PTX of {}", l.kernel))?;
    let dir = scratch(&format!("audit-nvcc-{}", l.kernel));
    let ptx = dir.join(format!("{}.ptx", l.kernel));
    let out = Command::new(nvcc)
        .args(["-ptx", &format!("-arch={}", l.arch), "-I"])
        .arg(common::root().join("include"))
        .arg("-o")
        .arg(&ptx)
        .arg(fixture(l.file))
        .output()
        .expect("cannot run nvcc");
    assert!(out.status.success(), "nvcc {}: {}", l.file, stderr(&out));
    Some(ptx)
}

/// Runs the fixture in every engine and checks each run with `check`.
fn every_engine(l: &Launch, args: &[Arg], check: &dyn Fn(&[Vec<u8>], &str)) {
    let src = fixture(l.file);
    for (engine, opt) in [
        ("interp", "-O0"),
        ("interp", "-O3"),
        ("emu", "-O0"),
        ("emu", "-O3"),
    ] {
        let got = run(l, &src, engine, opt, args, &format!("{engine}{opt}"));
        check(&got, &format!("{} {engine} {opt}", l.file));
    }
    // Without nvcc, nvcc_or_skip has said so (and failed in CI).
    if let Some(ptx) = nvcc_ptx(l) {
        let got = run(l, &ptx, "emu", "", args, "nvcc");
        check(&got, &format!("{} (nvcc's PTX) emu", l.file));
    }
}

fn launch<'a>(file: &'a str, kernel: &'a str, grid: &'a str, block: &'a str) -> Launch<'a> {
    Launch {
        file,
        kernel,
        grid,
        block,
        shared: 0,
        arch: "sm_80",
    }
}

#[test]
fn histogram_of_bytes_from_a_file() {
    let mut r = Lcg(1);
    let n = 5000;
    let data: Vec<u8> = (0..n).map(|_| r.below(256) as u8).collect();
    let mut want = vec![0u32; 64];
    for &b in &data {
        want[usize::from(b % 64)] += 1;
    }
    let args = [
        Arg::Buf("u8", data.clone()),
        buf_u32(&[0; 64]),
        Arg::Scalar(format!("i32:{n}")),
    ];
    every_engine(
        &launch("histogram.cu", "histogram", "4", "128"),
        &args,
        &|got, what| {
            assert_eq!(got[0], data, "{what}: the input changed");
            assert_eq!(u32s(&got[1]), want, "{what}: histogram");
        },
    );
}

#[test]
fn block_scan_and_block_sums() {
    let mut r = Lcg(2);
    let n = 1000;
    let a: Vec<i32> = (0..n).map(|_| r.int(-500, 500) as i32).collect();
    let (mut scan, mut sums) = (Vec::new(), Vec::new());
    for chunk in a.chunks(256) {
        let mut s = 0;
        for v in chunk {
            s += v;
            scan.push(s);
        }
        sums.push(s);
    }
    let args = [
        buf_i32(&a),
        buf_i32(&vec![0; n]),
        buf_i32(&[0; 4]),
        Arg::Scalar(format!("i32:{n}")),
    ];
    every_engine(
        &launch("block_scan.cu", "block_scan", "4", "256"),
        &args,
        &|got, what| {
            assert_eq!(i32s(&got[1]), scan, "{what}: scan");
            assert_eq!(i32s(&got[2]), sums, "{what}: block sums");
        },
    );
}

#[test]
fn bitonic_sort_in_shared_memory() {
    let mut r = Lcg(3);
    let d: Vec<i32> = (0..1024)
        .map(|_| r.int(-1_000_000, 1_000_000) as i32)
        .collect();
    let mut want = d.clone();
    want[..512].sort();
    want[512..].sort();
    every_engine(
        &launch("bitonic.cu", "bitonic", "2", "256"),
        &[buf_i32(&d)],
        &|got, what| {
            assert_eq!(i32s(&got[0]), want, "{what}");
        },
    );
}

fn gcd(a: u32, b: u32) -> u32 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

#[test]
fn recursive_device_functions() {
    let mut r = Lcg(4);
    let n = 100;
    let a: Vec<u32> = (0..n).map(|_| 1 + r.below(1_000_000) as u32).collect();
    let b: Vec<u32> = (0..n).map(|_| r.below(1_000_000) as u32).collect();
    let g: Vec<u32> = a.iter().zip(&b).map(|(x, y)| gcd(*x, *y)).collect();
    let t: Vec<i32> = (0..n as i32).map(|i| (i % 20) * (i % 20 + 1) / 2).collect();
    let args = [
        buf_u32(&a),
        buf_u32(&b),
        buf_u32(&vec![0; n]),
        buf_i32(&vec![0; n]),
        Arg::Scalar(format!("i32:{n}")),
    ];
    every_engine(
        &launch("recursion.cu", "recurse", "2", "64"),
        &args,
        &|got, what| {
            assert_eq!(u32s(&got[2]), g, "{what}: gcd");
            assert_eq!(i32s(&got[3]), t, "{what}: triangular numbers");
        },
    );
}

/// The C `switch` of intmix.cu, in Rust (wrapping where C wraps).
fn intmix_reference(x: u8, y: i16, z: i64, i: usize) -> i64 {
    let lut = [3i32, -1, 4, -1, 5];
    match i % 4 {
        0 => (i64::from(x) * i64::from(y)).wrapping_add(z / i64::from(if y == 0 { 1 } else { y })),
        1 => (z >> (x & 63)) ^ ((z as u64) >> 3) as i64,
        2 => {
            let u = (z.count_ones() as i32 + z.leading_zeros() as i32) as u32;
            let s = u
                .wrapping_add(u32::from(x).reverse_bits())
                .wrapping_add(lut[usize::from(x % 5)] as u32);
            i64::from(s)
        }
        _ => {
            let m = (i32::from(y).wrapping_mul(7) as u32) % 13;
            i64::from(m) + i64::from(x as i8) + z % 1000
        }
    }
}

#[test]
fn eight_sixteen_and_sixty_four_bit_integers() {
    let mut r = Lcg(5);
    let n = 200;
    let x: Vec<u8> = (0..n).map(|_| r.below(256) as u8).collect();
    let y: Vec<i16> = (0..n).map(|_| r.int(-32768, 32768) as i16).collect();
    let z: Vec<i64> = (0..n)
        .map(|_| r.next() as i64 ^ ((r.next() as i64) << 40))
        .collect();
    let want: Vec<i64> = (0..n)
        .map(|i| intmix_reference(x[i], y[i], z[i], i))
        .collect();
    let args = [
        Arg::Buf("u8", x.clone()),
        Arg::Buf("u8", y.iter().flat_map(|v| v.to_le_bytes()).collect()),
        buf_i64(&z),
        buf_i64(&vec![0; n]),
        Arg::Scalar(format!("i32:{n}")),
    ];
    every_engine(
        &launch("intmix.cu", "intmix", "1", "256"),
        &args,
        &|got, what| {
            assert_eq!(i64s(&got[3]), want, "{what}");
        },
    );
}

#[test]
fn structs_by_value_and_their_buffers_are_written_back() {
    let mut r = Lcg(6);
    let n = 100usize;
    let (dt, g, damping) = (0.01f32, [0.0f32, -9.8, 0.5], 0.25f64);
    let mut params = Vec::new();
    for v in [dt, g[0], g[1], g[2]] {
        params.extend(v.to_le_bytes());
    }
    params.extend((n as i32).to_le_bytes());
    params.extend([0; 4]);
    params.extend(damping.to_le_bytes());
    let mut particles = Vec::new();
    let mut want = Vec::new();
    for i in 0..n {
        let p: Vec<f32> = (0..6).map(|_| r.f32(-2.0, 2.0)).collect();
        for v in &p {
            particles.extend(v.to_le_bytes());
        }
        particles.extend((i as i32).to_le_bytes());
        let d = damping as f32;
        let v: Vec<f32> = (0..3)
            .map(|k| p[3 + k] + (g[k] - d * p[3 + k]) * dt)
            .collect();
        let mut fields: Vec<f32> = (0..3).map(|k| p[k] + v[k] * dt).collect();
        fields.extend(&v);
        want.push((fields, 2 * i as i32 + 1));
    }
    let args = [Arg::Buf("u8", particles), Arg::Buf("u8", params.clone())];
    every_engine(
        &launch("structs.cu", "integrate", "1", "128"),
        &args,
        &|got, what| {
            // The struct parameter is a buffer too: written back unchanged.
            assert_eq!(got[1], params, "{what}: the by-value struct's buffer");
            for (i, (w, id)) in want.iter().enumerate() {
                let rec = &got[0][28 * i..28 * i + 28];
                let f = f32s(&rec[..24]);
                for (k, (a, b)) in f.iter().zip(w).enumerate() {
                    assert!(
                        (a - b).abs() <= 1e-5 * (1.0 + b.abs()),
                        "{what}: particle {i} field {k}: {a} vs {b}"
                    );
                }
                assert_eq!(i32s(&rec[24..])[0], *id, "{what}: particle {i} id");
            }
        },
    );
}

/// C = sum of (a & 7) * (b & 7), exact in f32 for these sizes.
fn small_gemm(a: &[i32], b: &[i32], m: usize, n: usize, k: usize) -> Vec<Vec<f32>> {
    (0..m)
        .map(|r| {
            (0..n)
                .map(|c| {
                    (0..k)
                        .map(|q| ((a[r * k + q] & 7) * (b[q * n + c] & 7)) as f32)
                        .sum()
                })
                .collect()
        })
        .collect()
}

#[test]
fn wmma_with_bf16_col_major_a_and_a_loaded_accumulator() {
    let mut r = Lcg(7);
    let (m, n, k) = (32, 32, 48);
    let a: Vec<i32> = (0..m * k).map(|_| r.below(1000) as i32).collect();
    let b: Vec<i32> = (0..k * n).map(|_| r.below(1000) as i32).collect();
    let c0: Vec<f32> = (0..m * n).map(|_| r.below(10) as f32).collect();
    let ab = small_gemm(&a, &b, m, n, k);
    // C and C0 are column-major.
    let want: Vec<f32> = (0..n)
        .flat_map(|c| (0..m).map(move |r| (r, c)))
        .map(|(r, c)| ab[r][c] + c0[c * m + r])
        .collect();
    let args = [
        buf_i32(&a),
        buf_i32(&b),
        buf_f32(&c0),
        buf_f32(&vec![0.0; m * n]),
        Arg::Scalar(format!("i32:{m}")),
        Arg::Scalar(format!("i32:{n}")),
        Arg::Scalar(format!("i32:{k}")),
    ];
    every_engine(
        &launch("wmma_bf16.cu", "wmma_bf16", "2,2", "32"),
        &args,
        &|got, what| {
            assert_eq!(f32s(&got[3]), want, "{what}");
        },
    );
}

#[test]
fn mma_bf16_fed_by_transposing_ldmatrix() {
    let mut r = Lcg(8);
    let (m, n, k) = (32, 16, 32);
    let a: Vec<i32> = (0..m * k).map(|_| r.below(1000) as i32).collect();
    let b: Vec<i32> = (0..k * n).map(|_| r.below(1000) as i32).collect();
    let want: Vec<f32> = small_gemm(&a, &b, m, n, k).concat();
    let args = [
        buf_i32(&a),
        buf_i32(&b),
        buf_f32(&vec![0.0; m * n]),
        Arg::Scalar(format!("i32:{n}")),
        Arg::Scalar(format!("i32:{k}")),
    ];
    every_engine(
        &launch("mma_bf16_trans.cu", "mma_bf16", "2,2", "32"),
        &args,
        &|got, what| {
            assert_eq!(f32s(&got[2]), want, "{what}");
        },
    );
}

#[test]
fn cp_async_of_four_eight_and_sixteen_bytes() {
    let mut r = Lcg(9);
    let a: Vec<i32> = (0..896 * 2)
        .map(|_| r.int(-1_000_000, 1_000_000) as i32)
        .collect();
    let mut want = Vec::new();
    for g in a.chunks(896) {
        let (s4, s8, s16) = (&g[..128], &g[128..384], &g[384..]);
        want.extend((0..128).map(|t| s4[(t + 1) % 128] + 1));
        want.extend((0..256).map(|e| s8[(e + 2) % 256] + 1));
        want.extend((0..512).map(|e| s16[(e + 4) % 512] + 1));
    }
    let args = [buf_i32(&a), buf_i32(&vec![0; 896 * 2])];
    every_engine(
        &launch("cp_async_sizes.cu", "cp_sizes", "2", "128"),
        &args,
        &|got, what| {
            assert_eq!(i32s(&got[1]), want, "{what}");
        },
    );
}

fn ulps(a: f32, b: f32) -> u32 {
    (a.to_bits() as i64 - b.to_bits() as i64).unsigned_abs() as u32
}

/// nvcc's PTX (committed, so this runs without nvcc) uses `fma.rm.f32`
/// for expf, `shf.l.wrap.b32` for `~(1u << n)` and `bfind.shiftamt.u32`
/// for `__ffs`; the emulator runs all three.
#[test]
fn nvccs_expf_funnel_shift_and_bfind_run_in_the_emulator() {
    let mut r = Lcg(10);
    let n = 500;
    let x: Vec<f32> = (0..n).map(|_| r.f32(-80.0, 80.0)).collect();
    let m: Vec<u32> = (0..n)
        .map(|i| if i % 50 == 0 { 0 } else { r.next() as u32 })
        .collect();
    let args = [
        buf_f32(&x),
        buf_f32(&vec![0.0; n]),
        buf_u32(&m),
        buf_u32(&vec![0; n]),
        buf_i32(&vec![0; n]),
        Arg::Scalar(format!("i32:{n}")),
    ];
    let l = launch("nvcc_math_bits.cu", "math_bits", "4", "128");
    let got = run(&l, &fixture("nvcc_math_bits.ptx"), "emu", "", &args, "emu");
    for (i, (e, v)) in f32s(&got[1]).iter().zip(&x).enumerate() {
        let want = f64::from(*v).exp() as f32;
        assert!(ulps(*e, want) <= 2, "expf({v}) = {e}, want {want} ({i})");
    }
    for (i, (c, v)) in u32s(&got[3]).iter().zip(&m).enumerate() {
        assert_eq!(*c, v & !(1 << (v & 31)), "cleared[{i}]");
    }
    for (i, (f, v)) in i32s(&got[4]).iter().zip(&m).enumerate() {
        let want = if *v == 0 {
            0
        } else {
            v.trailing_zeros() as i32 + 1
        };
        assert_eq!(*f, want, "__ffs[{i}]");
    }
    // kernelc's own PTX and the interpreter agree on the integer parts.
    for engine in ["interp", "emu"] {
        let mine = run(
            &l,
            &fixture("nvcc_math_bits.cu"),
            engine,
            "-O3",
            &args,
            engine,
        );
        assert_eq!(mine[3], got[3], "{engine}: cleared");
        assert_eq!(mine[4], got[4], "{engine}: __ffs");
    }
}

#[test]
fn an_sm_90a_kernel_runs_at_sm_90a_in_the_emulator() {
    let mut l = launch("setmaxnreg.cu", "maxnreg", "2", "128");
    l.arch = "sm_90a";
    let want: Vec<i32> = (0..2)
        .flat_map(|b| (0..128).map(move |t| t * 3 + b))
        .collect();
    every_engine(&l, &[buf_i32(&[0; 256])], &|got, what| {
        assert_eq!(i32s(&got[0]), want, "{what}");
    });
}

#[test]
fn cluster_registers_of_single_block_clusters_agree() {
    let mut l = launch("cluster_regs.cu", "cluster_regs", "3", "4");
    l.arch = "sm_90";
    let want: Vec<u32> = (0..3u32)
        .flat_map(|b| (0..4).flat_map(move |_| [0, 1, b, 3]))
        .collect();
    every_engine(&l, &[buf_u32(&[0; 48])], &|got, what| {
        assert_eq!(u32s(&got[0]), want, "{what}");
    });
}

/// A kernel with clusters of four blocks: the interpreter, which runs one
/// block at a time, says it cannot model it instead of computing something
/// else; the emulator runs the cluster's blocks together and leaves each
/// block's sum, read by rank 0 through `mapa`, and their maximum.
#[test]
fn clusters_of_several_blocks_are_refused_by_the_interpreter_and_run_by_the_emulator() {
    let run = |engine: &str| {
        kernelc(&[
            "run",
            "tests/fixtures/audit/cluster4.cu",
            "-arch=sm_90",
            "--kernel",
            "cluster4",
            "--grid",
            "2,2",
            "--block",
            "32",
            "--engine",
            engine,
            "i32[]:iota:128",
            "i32[]:zeros:5",
        ])
    };
    let out = run("interp");
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("clusters of more than one block are not"),
        "{err}"
    );
    let out = run("emu");
    assert!(out.status.success(), "{}", stderr(&out));
    // Block b (rank b) sums 32b .. 32b + 31; the maximum is block 3's.
    let sums: Vec<i32> = (0..4).map(|b| (32 * b..32 * b + 32).sum()).collect();
    let total: i32 = sums.iter().sum::<i32>() + sums[3];
    assert!(
        stdout(&out).contains(&format!(
            "arg1 i32[5]: first {}, {}, {}, ... sum {total}",
            sums[0], sums[1], sums[2]
        )),
        "{}",
        stdout(&out)
    );
}

/// A memory-space error found while preparing a run (an atomic on a local
/// variable) points at the source line, as when compiling, at every level.
#[test]
fn run_errors_from_memory_space_inference_are_located() {
    let dir = scratch("run-located");
    let src = dir.join("atomic_local.cu");
    std::fs::write(
        &src,
        "extern \"C\" __global__ void k(int *o) {\n    int c = 0;\n    atomicAdd(&c, 1);\n    o[0] = c;\n}\n",
    )
    .unwrap();
    let path = src.to_str().unwrap();
    for level in ["-O0", "-O3"] {
        let out = kernelc(&[
            "run",
            path,
            level,
            "--kernel",
            "k",
            "--grid",
            "1",
            "--block",
            "1",
            "i32[]:zeros:1",
        ]);
        assert_eq!(out.status.code(), Some(1), "{level}");
        let err = stderr(&out);
        assert!(
            err.contains("Cannot do atomic on local memory"),
            "{level}: {err}"
        );
        assert!(
            err.contains("atomic_local.cu:3:5"),
            "{level}: located: {err}"
        );
        assert!(err.contains("atomicAdd(&c, 1);"), "{level}: snippet: {err}");
    }
}
