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
    assert_eq!(ours.values().sum::<usize>(), 31, "{ours:#?}");
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
