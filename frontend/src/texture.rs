//! CUDA's texture and surface objects: the facts the parser and the
//! checker share. A texture object (`cudaTextureObject_t`) and a surface
//! object (`cudaSurfaceObject_t`) are 64-bit handles, `unsigned long long`
//! in CUDA's headers (so `y` in mangled names); the functions that read
//! and write through them are `sema/texture.rs`'s and `lower/texture.rs`'s.

use crate::types::{vector_type, CType};

/// The handle types, known without a header (nvcc includes
/// `cuda_runtime.h` into every file).
pub(crate) fn handle_type(name: &str) -> Option<CType> {
    matches!(name, "cudaTextureObject_t" | "cudaSurfaceObject_t").then_some(CType::Int {
        bits: 64,
        signed: false,
    })
}

/// The texture fetch and surface functions: templates in CUDA's headers,
/// so `tex2D<float>(...)` names one with template arguments.
pub(crate) fn is_function(name: &str) -> bool {
    const NAMES: &[&str] = &[
        "tex1Dfetch",
        "tex1D",
        "tex2D",
        "tex3D",
        "tex1DLayered",
        "tex2DLayered",
        "tex1DLod",
        "tex2DLod",
        "tex3DLod",
        "tex1DGrad",
        "tex2DGrad",
        "tex3DGrad",
        "surf1Dread",
        "surf2Dread",
        "surf3Dread",
        "surf1Dwrite",
        "surf2Dwrite",
        "surf3Dwrite",
        "surf1DLayeredread",
        "surf2DLayeredread",
        "surf1DLayeredwrite",
        "surf2DLayeredwrite",
    ];
    NAMES.contains(&name)
}

/// An element type as its scalar and how many of them (1, 2 or 4): a
/// scalar, or one of CUDA's vector types.
pub(crate) fn components(ty: &CType) -> Option<(CType, u8)> {
    match ty {
        CType::Int { .. } | CType::Float { .. } => Some((ty.clone(), 1)),
        CType::Struct(def) => {
            let is_vector = vector_type(&def.name)
                .and_then(|v| v.struct_def().map(|d| d.id == def.id))
                .unwrap_or(false);
            let n = def.fields.len();
            (is_vector && matches!(n, 1 | 2 | 4)).then(|| (def.fields[0].ty.clone(), n as u8))
        }
        _ => None,
    }
}
