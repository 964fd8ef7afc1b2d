//! Texture and surface objects (`frontend/src/texture.rs`,
//! `midend/src/ir/texture.rs`): kernelc writes the instruction forms nvcc
//! writes for each fetch and surface function, ptxas accepts them, and
//! misuse is an E0030 diagnostic.

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
        let err = rejected_with(&format!("texture-misuse-{k}"), source, "E0030");
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
