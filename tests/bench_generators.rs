//! The benchmarks' kernel generators (`benches/support/gen.rs`) must keep
//! producing programs that kernelc compiles; small instances of each shape
//! are compiled here (and assembled by ptxas when it is available), so a
//! generator cannot rot unnoticed between benchmark runs.

mod common;
#[path = "../benches/support/mod.rs"]
mod support;

use support::gen::{self, Shape};
use support::pipeline as p;

#[test]
fn generated_kernels_compile_and_assemble() {
    let opts = p::options();
    for shape in Shape::ALL {
        let ptx = p::whole(&gen::kernel(shape, 40), &opts);
        common::assert_ptxas_accepts(&ptx, "sm_90", &format!("generated {}", shape.name()));
        if shape == Shape::RuntimeLoops {
            // The loops are the run-time-trip kind that `unroll-runtime`
            // unrolls (its remainder loops carry the pragma).
            assert!(ptx.contains(".pragma \"nounroll\";"), "{ptx}");
        }
    }
    let ptx = p::whole(&gen::rewrites(40), &opts);
    common::assert_ptxas_accepts(&ptx, "sm_90", "generated rewrites");
    // The divisions by constants are expanded (no `div` left).
    assert!(!ptx.contains("div.s32"), "{ptx}");
    let ptx = p::whole(&gen::fan_in(40), &opts);
    common::assert_ptxas_accepts(&ptx, "sm_90", "generated fan-in");
    let ptx = p::whole(&gen::globals(20), &opts);
    common::assert_ptxas_accepts(&ptx, "sm_90", "generated globals");
    assert_eq!(ptx.matches(".const .align").count(), 20, "{ptx}");
    let ptx = p::whole(&gen::host_code(8), &opts);
    assert_eq!(ptx.matches(".entry").count(), 1, "{ptx}");
    let ptx = p::whole(&gen::kernels(6), &opts);
    common::assert_ptxas_accepts(&ptx, "sm_90", "generated kernels");
    assert_eq!(ptx.matches(".entry").count(), 6, "{ptx}");
    let ptx = p::whole(&gen::helpers(5, 12), &opts);
    common::assert_ptxas_accepts(&ptx, "sm_90", "generated helpers");
    // Every call site's space is proved, so helper clones read shared and
    // global memory directly.
    assert!(ptx.contains("ld.shared.f32"), "{ptx}");
    assert!(ptx.contains("ld.global.f32"), "{ptx}");
}

#[test]
fn generated_kernels_have_the_requested_size() {
    for shape in Shape::ALL {
        let small = gen::kernel(shape, 100).lines().count();
        let large = gen::kernel(shape, 1000).lines().count();
        assert!(large > 8 * small / 2, "{} does not grow", shape.name());
    }
    for n in [1, 5, 50] {
        assert_eq!(gen::helpers(n, 1).matches("__noinline__").count(), n);
    }
}
