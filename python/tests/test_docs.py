"""docs/python.md cannot drift: its ```python blocks run here, in order, in
one namespace (as a reader would type them), each from the docs/ folder
of the checkout, and the ```text block right after a Python block is what
that block must print. A line `...` in an expected output stands for any
lines. (tests/docs_commands.rs accepts these blocks because their info
string says `checked-by=python/tests/test_docs.py`.)"""

import contextlib
import io
import os
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHAPTER = ROOT / "docs" / "python.md"
FENCE = re.compile(r"^```(.*)$")


def blocks(text):
    """The fenced blocks of `text`: (line, info string, body)."""
    out, info, body, start = [], None, [], 0
    for number, line in enumerate(text.splitlines(), 1):
        fence = FENCE.match(line)
        if fence and info is None:
            info, body, start = fence.group(1).strip(), [], number
        elif line.startswith("```") and info is not None:
            out.append((start, info, "\n".join(body) + "\n"))
            info = None
        elif info is not None:
            body.append(line)
    return out


def matches(expected, actual):
    """Whether `actual` is `expected`, where a `...` line stands for any
    lines."""
    pattern = "".join(
        "(?:.*\n)*?" if line == "..." else re.escape(line) + "\n"
        for line in expected.splitlines()
    )
    return re.fullmatch(pattern, actual) is not None


def test_every_python_block_runs_and_prints_what_the_chapter_shows():
    chapter = blocks(CHAPTER.read_text())
    python = [b for b in chapter if b[1].split()[:1] == ["python"]]
    assert python, "docs/python.md shows no Python"
    namespace = {"__name__": "docs_python"}
    previous = os.getcwd()
    os.chdir(ROOT / "docs")
    try:
        for index, (line, info, body) in enumerate(chapter):
            if info.split()[:1] != ["python"] or "illustrative" in info.split():
                continue
            printed = io.StringIO()
            with contextlib.redirect_stdout(printed):
                exec(compile(body, f"docs/python.md:{line}", "exec"), namespace)
            following = chapter[index + 1] if index + 1 < len(chapter) else None
            if following and following[1].split()[:1] == ["text"]:
                assert matches(following[2], printed.getvalue()), (
                    f"docs/python.md:{line}: printed\n{printed.getvalue()}\n"
                    f"where the chapter shows\n{following[2]}"
                )
    finally:
        os.chdir(previous)
