"""What notebooks show: the IR diff of a pass, the CFG, the annotated
source, the program's summary."""

import os

import kernelc

SOURCE = """\
__global__ void scale(const float *__restrict__ in, float *out, float k, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = k * in[i] + out[i];
}
"""


def program():
    return kernelc.compile(SOURCE, file_name="scale.cu")


def test_a_pass_diff_shows_what_the_pass_changed():
    p = program()
    diff = p.diff("contract")
    assert diff.changed
    text = str(diff)
    assert text.startswith("--- frontend\n+++ after contract (step 0)\n")
    # k * in[i] + out[i] becomes one fused multiply-add.
    assert "-    v25 = fadd v19, v24\n+    v25 = fma v2, v18, v24\n" in text
    html = diff._repr_html_()
    assert "<table" in html and "v25&nbsp;=&nbsp;fa<span class=\"diff_chg\">dd</span>" in html
    # A later step is diffed against the step before it.
    step = p.passes.index("memspace")
    assert str(p.diff(step)).startswith(f"--- after inline (step {step - 1})\n")


def test_an_unchanged_step_says_so():
    p = program()
    quiet = [i for i in range(len(p.passes)) if not p.diff(i).changed]
    assert quiet, "some pass changes nothing on this kernel"
    assert "no change" in p.diff(quiet[0])._repr_html_()


def test_the_cfg_is_dot():
    dot = str(program().cfg())
    assert dot.startswith("digraph kernelc {")
    assert "_Z5scalePKfPffi" in dot and "->" in dot


def test_the_source_carries_the_explanations_beside_its_lines():
    annotated = program().annotated_source()
    text = str(annotated)
    lines = text.splitlines()
    at = lines.index("   3 |     if (i < n) out[i] = k * in[i] + out[i];")
    notes = lines[at + 1 : at + 3]
    assert notes[0].startswith("     = @scale(const float*, float*, float, int) `") and "ld.global.nc" in notes[0]
    assert "not .nc" in notes[1]
    assert "ld.global.nc" in annotated._repr_html_()


def test_a_program_summarizes_itself():
    html = program()._repr_html_()
    assert "scale(const float*, float*, float, int)" in html and "_Z5scalePKfPffi" in html


def test_memspace_explanations_are_located_where_their_values_are_made():
    source = """\
__device__ float first(const float *p) { return p[0]; }
__global__ void k(float *out) {
    __shared__ float tile[32];
    tile[threadIdx.x] = threadIdx.x;
    __syncthreads();
    out[0] = first(tile);
}
"""
    p = kernelc.compile(source, file_name="k.cu", options=["--disable-pass", "inline"])
    notes = p.memspace_notes()
    assert (("k.cu", 6, 14), "k(float*)", "v15: shared ← cast to generic of v14 (shared)") in notes
    assert (("k.cu", 1, 49), "first(const float*)", "v5: shared ← from v0 (shared)") in notes
    # A parameter is made by no instruction: it has no place.
    assert any(at is None and text.startswith("v0: shared ← parameter") for at, _, text in notes)
    text = str(p.annotated_source())
    assert "   6 |     out[0] = first(tile);\n     = memspace: @k(float*) v15: shared" in text


def test_the_ptx_carries_the_source_line_of_each_instruction():
    p = program()
    annotated = p.annotated_ptx()
    # Both loads are made by line 3, `out[i] = k * in[i] + out[i]`, and so
    # is the store; the index is computed on line 2.
    assert annotated.lines_of("ld.global") == [3, 3]
    assert annotated.lines_of("st.global") == [3]
    assert set(annotated.lines_of("mov.u32")) == {2}
    text = str(annotated)
    load = next(line for line in text.splitlines() if "ld.global.nc.f32" in line)
    assert load.endswith("// scale.cu:3: if (i < n) out[i] = k * in[i] + out[i];")
    # The view's PTX is the program's, less the directives; the program's
    # own PTX, asked for without -lineinfo, has none.
    assert ".loc" not in p.ptx and ".loc" not in text
    rows = [row for row, _ in annotated.rows]
    assert rows[1:] == p.ptx.splitlines()[1:]
    html = annotated._repr_html_()
    assert "<table" in html and "scale.cu:3: if (i &lt; n)" in html


def test_lineinfo_is_a_compile_option():
    p = kernelc.compile(SOURCE, file_name="scale.cu", options=["-lineinfo"])
    # A relative name is joined to the working directory, as nvcc writes it.
    assert f'\t.file\t1 "{os.getcwd()}/scale.cu"' in p.ptx
    assert "\t.loc\t1 3 " in p.ptx and " -lineinfo)" in p.ptx.splitlines()[0]
    assert p.annotated_ptx().lines_of("ld.global") == [3, 3]
    assert p.ptx != program().ptx


def test_an_emulator_fault_names_the_source_line_under_lineinfo():
    import numpy as np

    for options, at in (([], (None, None)), (["-lineinfo"], ("<source>.cu", 3))):
        scale = kernelc.Module(SOURCE, options=options).get_function("scale")
        short = np.zeros(4, dtype=np.float32)
        try:
            scale(1, 8, (short, np.zeros(8, dtype=np.float32), 2.0, 8), engine="emu")
        except kernelc.KernelFault as fault:
            assert fault.ptx_line is not None
            assert (fault.file, fault.line) == at, str(fault)
            if at[0]:
                assert f"(source <source>.cu:3:" in str(fault)
        else:
            raise AssertionError("the load past the input faults")
