"""docs/python-lab.ipynb, the course lab, runs: its code cells run here in
order, in one namespace, as Jupyter would run them (from docs/), and each
cell prints what the notebook shows it printed. A cell whose last line is
an expression is displayed: its HTML (or SVG) must render. Jupyter is not
needed; the notebook is plain nbformat 4 JSON.

After changing the lab, `KERNELC_BLESS=1 pytest test_notebook.py` writes
the outputs back into the notebook (review the diff, as with snapshots).
"""

import ast
import contextlib
import io
import json
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LAB = ROOT / "docs" / "python-lab.ipynb"


def run_cell(code, namespace):
    """Runs a cell; returns what it printed and its displayed value."""
    tree = ast.parse(code)
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = ast.Expression(tree.body.pop().value)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(tree, "<cell>", "exec"), namespace)
        value = eval(compile(last, "<cell>", "eval"), namespace) if last else None
    return printed.getvalue(), value


def rendered(value):
    """The rich display Jupyter would show for `value`, or its repr."""
    for method, mime in (("_repr_svg_", "image/svg+xml"), ("_repr_html_", "text/html")):
        shown = getattr(value, method, lambda: None)()
        if shown is not None:
            assert isinstance(shown, str) and shown, method
            return {mime: shown, "text/plain": repr(value)}
    return {"text/plain": repr(value)}


def test_the_lab_notebook_runs_and_prints_what_it_shows():
    notebook = json.loads(LAB.read_text())
    assert notebook["nbformat"] == 4
    bless = os.environ.get("KERNELC_BLESS") == "1"
    namespace = {"__name__": "__main__"}
    previous = os.getcwd()
    os.chdir(ROOT / "docs")
    try:
        for number, cell in enumerate(notebook["cells"]):
            if cell["cell_type"] != "code":
                continue
            printed, value = run_cell("".join(cell["source"]), namespace)
            shown = [o for o in cell["outputs"] if o["output_type"] == "stream"]
            if bless:
                cell["outputs"] = outputs(printed, value)
                continue
            assert "".join("".join(o["text"]) for o in shown) == printed, f"cell {number}"
            if value is not None:
                rendered(value)
    finally:
        os.chdir(previous)
    if bless:
        LAB.write_text(json.dumps(notebook, indent=1, ensure_ascii=False) + "\n")


def outputs(printed, value):
    out = []
    if printed:
        out.append({"name": "stdout", "output_type": "stream", "text": printed.splitlines(keepends=True)})
    if value is not None:
        # Only the text form is kept: HTML diffs carry ids that change
        # from run to run.
        out.append({"data": {"text/plain": [repr(value)]}, "execution_count": None,
                    "metadata": {}, "output_type": "execute_result"})
    return out
