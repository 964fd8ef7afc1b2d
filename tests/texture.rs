//! Texture and surface objects (`frontend/src/texture.rs`,
//! `midend/src/ir/texture.rs`): kernelc writes the instruction forms nvcc
//! writes for each fetch and surface function, ptxas accepts them, and
//! misuse is an E0025 diagnostic.

mod common;

use common::{fixture_ptx_and_nvcc, rejected_with, root, scratch};
use std::collections::BTreeMap;

/// The texture and surface instructions of `ptx`, registers and spacing
/// erased (`tex.2d.v4.f32.f32 {%_, %_, %_, %_}, [%_, {%_, %_}]`), counted.
fn texture_forms(ptx: &str) -> BTreeMap<String, usize> {
    let mut forms = BTreeMap::new();
    for line in ptx.lines() {
        let line = line.trim();
        if !["tex.", "suld.", "sust."]
            .iter()
            .any(|p| line.starts_with(p))
        {
            continue;
        }
        let mut out = String::new();
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            if c == '%' {
                while chars.peek().is_some_and(|c| c.is_ascii_alphanumeric()) {
                    chars.next();
                }
                out.push_str("%_");
            } else if c.is_whitespace() {
                if !out.ends_with(' ') {
                    out.push(' ');
                }
            } else {
                out.push(c);
            }
        }
        *forms.entry(out).or_insert(0) += 1;
    }
    forms
}

#[test]
fn every_fetch_and_surface_form_is_nvccs() {
    let dir = scratch("texture-forms");
    let src = root().join("tests/texture/forms.cu");
    let (ours, theirs) = fixture_ptx_and_nvcc(&src, &dir);
    let ours = texture_forms(&ours);
    assert_eq!(ours.values().sum::<usize>(), 41, "{ours:#?}");
    if let Some(theirs) = theirs {
        let theirs = texture_forms(&std::fs::read_to_string(theirs).unwrap());
        assert_eq!(ours, theirs);
    }
}

#[test]
fn misuse_is_e0030() {
    let cases = [
        (
            "__global__ void k(float *o, cudaTextureObject_t t) { o[0] = tex2D(t, 0.5f, 0.5f); }",
            "needs its element type",
        ),
        (
            "__global__ void k(cudaSurfaceObject_t s) { surf2Dwrite(1.0, s, 0, 0); }",
            "elements of type `double`",
        ),
        (
            "__global__ void k(double *o, cudaTextureObject_t t) { o[0] = tex1Dfetch<double>(t, 0); }",
            "elements of type `double`",
        ),
        (
            "__global__ void k(cudaSurfaceObject_t s, int m) { surf1Dwrite(1, s, 0, m); }",
            "must be a constant",
        ),
        (
            "__global__ void k(float *o, cudaTextureObject_t t) { o[0] = tex2D<float>(t, 0.5f); }",
            "wrong number of arguments",
        ),
        (
            "__global__ void k(cudaSurfaceObject_t s) { surf1Dwrite(make_double2(1, 2), s, 0); }",
            "elements of type `double2`",
        ),
        (
            "__global__ void k(cudaSurfaceObject_t s) { surf2DLayeredwrite(1.0f, s, 0, 0); }",
            "wrong number of arguments",
        ),
        (
            "__global__ void k(cudaSurfaceObject_t s, int m) { surf1DLayeredwrite(1, s, 0, 0, m); }",
            "must be a constant",
        ),
    ];
    for (k, (source, says)) in cases.iter().enumerate() {
        let err = rejected_with(&format!("texture-misuse-{k}"), source, "E0025");
        assert!(err.contains(says), "{source}\n{err}");
    }
}

#[test]
fn handles_mangle_as_unsigned_long_long() {
    let dir = scratch("texture-mangle");
    let src = dir.join("m.cu");
    std::fs::write(
        &src,
        "__global__ void k(float *o, cudaTextureObject_t t, cudaSurfaceObject_t s) {\n\
         o[0] = tex1Dfetch<float>(t, 0) + surf1Dread<float>(s, 0); }\n",
    )
    .unwrap();
    let o = common::kernelc(&[src.to_str().unwrap(), "-arch=sm_90"]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    assert!(common::stdout(&o).contains(".entry _Z1kPfyy("));
}

/// The arguments of `fetches` (tests/texture/fetch.cu): a 4x2 float
/// texture and an 8-element int texture of 0, 1, 2, ..., a 4x2 surface of
/// `uchar4` holding the bytes 0 to 31.
const FETCH_ARGS: &[&str] = &[
    "--kernel",
    "fetches",
    "--grid",
    "1",
    "--block",
    "8",
    "f32[]:zeros:16",
    "i32[]:zeros:16",
    "tex:f32:4x2:iota",
    "tex:i32:8:iota",
    "surf:u8x4:4x2:iota",
];

/// Runs `fetches` from `input` on `engine`; each argument's final bytes.
fn fetch_run(input: &str, engine: &str, dir: &std::path::Path) -> Vec<Vec<u8>> {
    let mut args = vec![
        "run",
        input,
        "--engine",
        engine,
        "--out",
        dir.to_str().unwrap(),
    ];
    args.extend_from_slice(FETCH_ARGS);
    let o = common::kernelc(&args);
    assert!(o.status.success(), "{}", common::stderr(&o));
    (0..5)
        .map(|k| std::fs::read(dir.join(format!("arg{k}.bin"))).unwrap())
        .collect()
}

#[test]
fn fetches_and_surface_accesses_give_the_hand_computed_values_on_every_engine() {
    let dir = scratch("texture-fetch");
    let src = root().join("tests/texture/fetch.cu");
    let f32s = |b: &[u8]| -> Vec<f32> {
        b.chunks(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
            .collect()
    };
    let ours = fetch_run(src.to_str().unwrap(), "interp", &dir.join("interp"));
    // Point sampling takes floor(x) (clamped); y = 7 clamps to row 1.
    let want: Vec<f32> = [
        0., 0., 1., 1., 2., 2., 3., 3., 4., 4., 4., 4., 5., 5., 6., 6.,
    ]
    .to_vec();
    assert_eq!(f32s(&ours[0]), want);
    // tex1Dfetch outside the array reads 0; the zero-mode surface read
    // too, and inside it reads the little-endian word of bytes 4k..4k+3.
    let word = |k: i32| i32::from_le_bytes([0, 1, 2, 3].map(|b| (4 * k + b) as u8));
    let mut ints = vec![0, 0, 0, 1, 2, 3, 4, 5];
    ints.extend([0, 0, word(0), word(1), word(2), word(3), 0, 0]);
    assert_eq!(common::i32s(&ours[1]), ints);
    // Each uchar4 of the surface written back reversed.
    let surf: Vec<u8> = (0..32u8).map(|b| b - b % 4 + 3 - b % 4).collect();
    assert_eq!(ours[4], surf);
    // The textures read, unchanged.
    assert_eq!(f32s(&ours[2]), (0..8).map(|v| v as f32).collect::<Vec<_>>());
    let emu = fetch_run(src.to_str().unwrap(), "emu", &dir.join("emu"));
    assert_eq!(emu, ours);
    if let Some(nvcc) = common::nvcc_ptx(&src, "sm_90", "texture fetches") {
        let ptx = dir.join("nvcc.ptx");
        std::fs::write(&ptx, nvcc).unwrap();
        let theirs = fetch_run(ptx.to_str().unwrap(), "emu", &dir.join("nvcc"));
        assert_eq!(theirs, ours);
    }
}

/// Runs `layers` (tests/texture/layered.cu) from `input` on `engine`: a
/// 4x2 int surface of 3 layers and a 4-element `uchar2` one of 3 layers,
/// both holding 0, 1, 2, ...; each argument's final bytes.
fn layered_run(input: &str, engine: &str, dir: &std::path::Path) -> Vec<Vec<u8>> {
    let out = dir.to_str().unwrap();
    let o = common::kernelc(&[
        "run",
        input,
        "--engine",
        engine,
        "--out",
        out,
        "--kernel",
        "layers",
        "--grid",
        "3",
        "--block",
        "4,2",
        "i32[]:zeros:72",
        "surf:i32:4x2:layers=3:iota",
        "surf:u8x2:4:layers=3:iota",
    ]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    (0..3)
        .map(|k| std::fs::read(dir.join(format!("arg{k}.bin"))).unwrap())
        .collect()
}

#[test]
fn layered_surface_accesses_give_the_hand_computed_values_on_every_engine() {
    let dir = scratch("texture-layered");
    let src = root().join("tests/texture/layered.cu");
    let ours = layered_run(src.to_str().unwrap(), "interp", &dir.join("interp"));
    // Element (x, y) of layer l holds 8l + 4y + x: the read, its right
    // neighbour (0 past the row), the one two to the right (clamped).
    let (mut read, mut right, mut clamped) = (Vec::new(), Vec::new(), Vec::new());
    for l in 0..3 {
        for y in 0..2 {
            for x in 0..4 {
                let at = |x: i32| 8 * l + 4 * y + x.min(3);
                read.push(at(x));
                right.push(if x < 3 { at(x + 1) } else { 0 });
                clamped.push(at(x + 2));
            }
        }
    }
    let want: Vec<i32> = [read.clone(), right, clamped].concat();
    assert_eq!(common::i32s(&ours[0]), want);
    // Each element became 10 v + l; the writes past the row were dropped.
    let written: Vec<i32> = read.iter().map(|v| v * 10 + v / 8).collect();
    assert_eq!(common::i32s(&ours[1]), written);
    // Each uchar2 (bytes 8l + 2x, + 1) swapped, the layer added.
    let pairs: Vec<u8> = (0..3u8)
        .flat_map(|l| (0..4u8).flat_map(move |x| [8 * l + 2 * x + 1, 8 * l + 2 * x + l]))
        .collect();
    assert_eq!(ours[2], pairs);
    let emu = layered_run(src.to_str().unwrap(), "emu", &dir.join("emu"));
    assert_eq!(emu, ours);
    if let Some(nvcc) = common::nvcc_ptx(&src, "sm_90", "layered surfaces") {
        let ptx = dir.join("nvcc.ptx");
        std::fs::write(&ptx, nvcc).unwrap();
        let theirs = layered_run(ptx.to_str().unwrap(), "emu", &dir.join("nvcc"));
        assert_eq!(theirs, ours);
    }
}

#[test]
fn linear_filtering_and_normalized_reads_agree_with_nvccs_ptx() {
    let dir = scratch("texture-linear");
    let src = dir.join("l.cu");
    std::fs::write(
        &src,
        "__global__ void k(float4 *o, cudaTextureObject_t t) {\n\
         float x = threadIdx.x * 0.37f - 2.0f, y = blockIdx.x * 0.61f - 1.0f;\n\
         o[blockIdx.x * blockDim.x + threadIdx.x] = tex2D<float4>(t, x, y); }\n",
    )
    .unwrap();
    let launch = |input: &str, engine: &str, opts: &str, out: &str| {
        let tex = format!("tex:u8x4:5x3:{opts}:rand:9");
        let o = common::kernelc(&[
            "run",
            input,
            "--engine",
            engine,
            "--out",
            out,
            "--kernel",
            "k",
            "--grid",
            "9",
            "--block",
            "20",
            "f32[]:zeros:720",
            &tex,
        ]);
        assert!(o.status.success(), "{}", common::stderr(&o));
        std::fs::read(std::path::Path::new(out).join("arg0.bin")).unwrap()
    };
    let nvcc = common::nvcc_ptx(&src, "sm_90", "linear filtering").map(|p| {
        let path = dir.join("nvcc.ptx");
        std::fs::write(&path, p).unwrap();
        path
    });
    for opts in [
        "linear,normalized-float",
        "linear,border,normalized-float",
        "wrap,normalized-float,normalized,linear",
        "mirror,normalized,normalized-float",
    ] {
        let out = |e: &str| {
            dir.join(format!("{e}-{}", opts.replace(',', "_")))
                .to_str()
                .unwrap()
                .to_string()
        };
        let ours = launch(src.to_str().unwrap(), "interp", opts, &out("interp"));
        assert_eq!(
            launch(src.to_str().unwrap(), "emu", opts, &out("emu")),
            ours,
            "{opts}"
        );
        if let Some(p) = &nvcc {
            assert_eq!(
                launch(p.to_str().unwrap(), "emu", opts, &out("nvcc")),
                ours,
                "{opts}"
            );
        }
    }
}

/// The launches of tests/texture/gpu.cu: kernel, grid, block, arguments.
/// Wrap and mirror addressing appear only with normalized coordinates, the
/// only ones CUDA applies them to.
const GPU_LAUNCHES: &[(&str, &str, &str, &str)] = &[
    ("sample2d", "9", "20", "f32[]:zeros:720 tex:u8x4:5x3:linear,normalized-float:rand:9 f32:1 f32:1"),
    ("sample2d", "9", "20", "f32[]:zeros:720 tex:u8x4:5x3:linear,border,normalized-float:rand:9 f32:1 f32:1"),
    ("sample2d", "9", "20", "f32[]:zeros:720 tex:u8x4:5x3:wrap,normalized,normalized-float,linear:rand:9 f32:0.2 f32:0.33333334"),
    ("sample2d", "9", "20", "f32[]:zeros:720 tex:u8x4:5x3:mirror,normalized,normalized-float:rand:9 f32:0.2 f32:0.33333334"),
    ("sample2d", "9", "20", "f32[]:zeros:720 tex:f32x4:6x4:linear:rand:2 f32:1 f32:1"),
    ("sample2d", "9", "20", "f32[]:zeros:720 tex:f32x4:6x4:border:rand:2 f32:1 f32:1"),
    ("sample2d", "9", "20", "f32[]:zeros:720 tex:i16x4:6x4:linear,normalized-float:rand:4 f32:1 f32:1"),
    ("sample2d", "9", "20", "f32[]:zeros:720 tex:u16x4:6x4:mirror,normalized,linear,normalized-float:rand:4 f32:0.16666667 f32:0.25"),
    ("sample2d_int", "9", "20", "i32[]:zeros:720 tex:i32x4:6x4:border:rand:5 f32:1 f32:1"),
    ("sample2d_int", "9", "20", "i32[]:zeros:720 tex:i16x4:6x4:wrap,normalized:rand:5 f32:0.16666667 f32:0.25"),
    ("sample2d_int", "9", "20", "i32[]:zeros:720 tex:i8x4:6x4:clamp:rand:5 f32:1 f32:1"),
    ("sample1d", "2", "32", "f32[]:zeros:256 tex:u8x4:16:linear,mirror,normalized,normalized-float:rand:6 f32:0.0625"),
    ("sample1d", "2", "32", "f32[]:zeros:256 tex:f32x4:12:border,linear:rand:6 f32:1"),
    ("sample3d", "4", "10,8", "f32[]:zeros:1280 tex:f32x4:4x3x2:linear,border:rand:7 f32:1"),
    ("sample3d", "4", "10,8", "f32[]:zeros:1280 tex:u8x4:4x4x4:wrap,normalized,normalized-float:rand:7 f32:0.25"),
    ("layered1d", "4", "24", "f32[]:zeros:384 tex:u8x4:8:linear,normalized-float,layers=4:rand:8"),
    ("layered2d", "3", "8,6", "f32[]:zeros:576 tex:f32x4:4x3:linear,layers=3:rand:8"),
    ("fetch", "1", "16", "f32[]:zeros:64 tex:u8x4:10:normalized-float:rand:10"),
    ("fetch", "1", "16", "f32[]:zeros:64 tex:f32x4:10:rand:10"),
    ("fetch_int", "1", "16", "i32[]:zeros:64 tex:i32x4:10:rand:10"),
    ("fetch_int", "1", "16", "i32[]:zeros:64 tex:i16x4:10:rand:10"),
    ("surface2d", "8", "16", "f32[]:zeros:128 surf:f32:16x8:rand:3 i32:16"),
    ("surface1d", "2", "16", "surf:u8x4:32:rand:11"),
    ("surface3d", "2", "4,3", "surf:f32x4:4x3x2:rand:12"),
    ("surface_layered2d", "3", "4,3", "surf:f32x2:4x3:layers=3:rand:13"),
    ("surface_layered1d", "4", "8", "surf:u16x2:8:layers=4:rand:14"),
];

/// Runs launch `l` of tests/texture/gpu.cu on `engine`; the final bytes of
/// each argument that has a buffer (`None` for scalars), or what kernelc
/// said when the run failed.
fn gpu_cu_run(
    l: &(&str, &str, &str, &str),
    engine: &str,
    extra: &[&str],
    out: &std::path::Path,
) -> Result<Vec<Option<Vec<u8>>>, String> {
    let src = root().join("tests/texture/gpu.cu");
    let (kernel, grid, block, words) = l;
    let out_s = out.to_str().unwrap();
    let mut args = vec![
        "run",
        src.to_str().unwrap(),
        "--engine",
        engine,
        "--out",
        out_s,
    ];
    args.extend(["--kernel", kernel, "--grid", grid, "--block", block]);
    args.extend(words.split(' '));
    args.extend(extra);
    let o = common::kernelc(&args);
    if !o.status.success() {
        return Err(format!("{engine} fails: {}", common::stderr(&o)));
    }
    Ok((0..words.split(' ').count())
        .map(|k| std::fs::read(out.join(format!("arg{k}.bin"))).ok())
        .collect())
}

/// Where two runs' buffers differ: for each argument that does, its first
/// differing 4-byte word and how many words differ.
fn differences(a: &[Option<Vec<u8>>], b: &[Option<Vec<u8>>]) -> Vec<String> {
    let mut out = Vec::new();
    for (k, (x, y)) in a.iter().zip(b).enumerate() {
        let (Some(x), Some(y)) = (x, y) else {
            if x.is_some() != y.is_some() {
                out.push(format!("arg{k}: only one run has a buffer"));
            }
            continue;
        };
        let words = |v: &[u8]| -> Vec<u32> {
            v.chunks(4)
                .map(|c| {
                    let mut w = [0u8; 4];
                    w[..c.len()].copy_from_slice(c);
                    u32::from_le_bytes(w)
                })
                .collect()
        };
        let (wx, wy) = (words(x), words(y));
        let differing: Vec<usize> = (0..wx.len().max(wy.len()))
            .filter(|&i| wx.get(i) != wy.get(i))
            .collect();
        if let Some(&i) = differing.first() {
            let show = |w: Option<&u32>| {
                w.map_or("none".into(), |&w| {
                    format!("{w:#010x} (f32 {:e})", f32::from_bits(w))
                })
            };
            // Read as floats, whether the words differ in the last bits
            // or in value (a float buffer's; meaningless for integers).
            let largest = differing
                .iter()
                .filter_map(|&i| Some((f32::from_bits(*wx.get(i)?), f32::from_bits(*wy.get(i)?))))
                .map(|(a, b)| (a - b).abs())
                .fold(0f32, f32::max);
            out.push(format!(
                "arg{k}: {} of {} words differ (largest difference as f32 {largest:e}), \
                 first word {i}: {} against {}",
                differing.len(),
                wx.len(),
                show(wx.get(i)),
                show(wy.get(i))
            ));
        }
    }
    out
}

/// Every launch of tests/texture/gpu.cu gives the same bytes on the
/// interpreter and the emulator, and, where there is a CUDA driver, on the
/// GPU: textures and surfaces made by the driver (`src/gpu_texture.rs`)
/// fetch and store what the texture model does. Linear filtering is
/// compared exactly too: the model rounds the weights to the hardware's 8
/// fractional bits. All differences are collected before failing, so one
/// GPU run shows every launch that disagrees.
#[test]
fn gpu_textures_and_surfaces_match_the_emulator() {
    let dir = scratch("texture-gpu");
    let gpu = kernelc::gpu::driver_available();
    let mut failures = Vec::new();
    for (n, l) in GPU_LAUNCHES.iter().enumerate() {
        let run = |engine: &str| gpu_cu_run(l, engine, &[], &dir.join(format!("{n}-{engine}")));
        let interp = run("interp").unwrap_or_else(|e| panic!("{l:?}: {e}"));
        let emu = run("emu").unwrap_or_else(|e| panic!("{l:?}: {e}"));
        assert!(
            emu.iter().flatten().any(|b| b.iter().any(|&x| x != 0)),
            "{l:?}: nothing written"
        );
        assert_eq!(differences(&interp, &emu), Vec::<String>::new(), "{l:?}");
        if gpu {
            let mut found = match run("gpu") {
                Ok(on_gpu) => differences(&emu, &on_gpu),
                Err(e) => vec![e],
            };
            // `--time` uploads each surface again before every timed
            // launch; the buffers reported are still the first launch's.
            if l.3.contains("surf:") {
                let timed = dir.join(format!("{n}-gpu-timed"));
                found.extend(match gpu_cu_run(l, "gpu", &["--time", "3"], &timed) {
                    Ok(on_gpu) => differences(&emu, &on_gpu),
                    Err(e) => vec![format!("with --time 3: {e}")],
                });
            }
            for d in found {
                failures.push(format!("{} `{}`: emulator against GPU: {d}", l.0, l.3));
            }
        }
    }
    if !gpu {
        eprintln!("SKIPPED: no CUDA driver (libcuda.so not found): texture launches on the GPU");
        return;
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    eprintln!(
        "texture launches on the GPU: {} bit for bit",
        GPU_LAUNCHES.len()
    );
}

/// tests/texture/fetch.cu on the GPU (the fixture the hand-computed test
/// checks on the other engines): the same bytes as the emulator.
#[test]
fn fetches_and_surface_accesses_on_the_gpu_match_the_emulator() {
    if !kernelc::gpu::driver_available() {
        eprintln!("SKIPPED: no CUDA driver (libcuda.so not found): texture fetches on the GPU");
        return;
    }
    let dir = scratch("texture-fetch-gpu");
    let src = root().join("tests/texture/fetch.cu");
    let emu = fetch_run(src.to_str().unwrap(), "emu", &dir.join("emu"));
    let gpu = fetch_run(src.to_str().unwrap(), "gpu", &dir.join("gpu"));
    let some = |v: Vec<Vec<u8>>| v.into_iter().map(Some).collect::<Vec<_>>();
    assert_eq!(differences(&some(emu), &some(gpu)), Vec::<String>::new());
}
