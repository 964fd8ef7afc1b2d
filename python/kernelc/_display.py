"""What notebooks show: rich displays (``_repr_html_``, ``_repr_svg_``) of
a program, of the IR before and after a pass, of the control-flow graphs,
of the source with the compiler's explanations beside its lines, and of
the PTX with each instruction's source line. Each
is also plain text (``str``), for terminals and tests."""

from __future__ import annotations

import difflib
import html
import re
import shutil
import subprocess
from typing import Dict, List, Optional, Sequence, Tuple

_STYLE = (
    "<style>.kc-pre{font-family:monospace;font-size:12px;white-space:pre;}"
    ".kc-note{color:#8a5a00;font-family:monospace;font-size:12px;}"
    "table.diff{font-family:monospace;font-size:12px;}"
    ".diff_add{background:#e6ffe6}.diff_chg{background:#fff5cc}.diff_sub{background:#ffe6e6}"
    "</style>"
)


def _pre(text: str) -> str:
    return f'<div class="kc-pre">{html.escape(text)}</div>'


class IRDiff:
    """The IR before and after one step of the pipeline: side by side in a
    notebook, a unified diff as text."""

    def __init__(self, before_name: str, before: str, after_name: str, after: str) -> None:
        self.before_name, self.before = before_name, before
        self.after_name, self.after = after_name, after

    @property
    def changed(self) -> bool:
        return self.before != self.after

    def __repr__(self) -> str:
        changed = sum(1 for line in str(self).splitlines() if line[:1] in "+-") - 2 if self.changed else 0
        return f"<IRDiff {self.after_name}: {changed} lines removed or added>"

    def __str__(self) -> str:
        lines = difflib.unified_diff(
            self.before.splitlines(keepends=True),
            self.after.splitlines(keepends=True),
            fromfile=self.before_name,
            tofile=self.after_name,
        )
        return "".join(lines)

    def _repr_html_(self) -> str:
        if not self.changed:
            return _STYLE + f"<p>{html.escape(self.after_name)}: no change</p>"
        table = difflib.HtmlDiff(wrapcolumn=90).make_table(
            self.before.splitlines(),
            self.after.splitlines(),
            html.escape(self.before_name),
            html.escape(self.after_name),
            context=True,
            numlines=3,
        )
        return _STYLE + table


class Graph:
    """Control-flow graphs in Graphviz's DOT: drawn as SVG when Graphviz's
    ``dot`` program is on ``PATH``, shown as DOT text otherwise."""

    def __init__(self, dot: str) -> None:
        self.dot = dot

    def __str__(self) -> str:
        return self.dot

    def __repr__(self) -> str:
        return f"<Graph: {self.dot.count('->')} edges>"

    def svg(self) -> Optional[str]:
        """The graph drawn by Graphviz, or ``None`` without it."""
        program = shutil.which("dot")
        if program is None:
            return None
        done = subprocess.run(
            [program, "-Tsvg"], input=self.dot, capture_output=True, text=True, check=False
        )
        return done.stdout if done.returncode == 0 else None

    def _repr_svg_(self) -> Optional[str]:
        return self.svg()

    def _repr_html_(self) -> Optional[str]:
        # Shown only where no SVG could be drawn.
        return None if shutil.which("dot") else _STYLE + _pre(self.dot)


_LOCATED = re.compile(r"^(?P<file>.*?):(?P<line>\d+):(?P<col>\d+): (?P<text>.*)$")


class AnnotatedSource:
    """A source file's lines, each followed by what the compiler says of
    it (the ``FILE:LINE:COL: ...`` lines of an explanation)."""

    def __init__(self, file: str, source: str, notes: Sequence[str]) -> None:
        self.file = file
        self.lines = source.splitlines()
        self.notes: Dict[int, List[str]] = {}
        self.unplaced: List[str] = []
        for note in notes:
            found = _LOCATED.match(note)
            if found and found.group("file") == file:
                self.notes.setdefault(int(found.group("line")), []).append(found.group("text"))
            elif note.strip():
                self.unplaced.append(note)

    def __repr__(self) -> str:
        return f"<AnnotatedSource {self.file}: {sum(map(len, self.notes.values()))} notes>"

    def _rows(self) -> List[Tuple[int, str, List[str]]]:
        return [(n, text, self.notes.get(n, [])) for n, text in enumerate(self.lines, 1)]

    def __str__(self) -> str:
        out = []
        for number, text, notes in self._rows():
            out.append(f"{number:4} | {text}")
            out.extend(f"     = {note}" for note in notes)
        out.extend(self.unplaced)
        return "\n".join(out) + "\n"

    def _repr_html_(self) -> str:
        rows = []
        for number, text, notes in self._rows():
            rows.append(_pre(f"{number:4} | {text}"))
            rows.extend(f'<div class="kc-note">     ↳ {html.escape(n)}</div>' for n in notes)
        rows.extend(f'<div class="kc-note">{html.escape(n)}</div>' for n in self.unplaced)
        return _STYLE + "".join(rows)


_LOC = re.compile(r"^\s*\.loc\s+(?P<file>\d+)\s+(?P<line>\d+)\s+(?P<col>\d+)")
_FILE = re.compile(r'^\s*\.file\s+(?P<file>\d+)\s+"(?P<path>(?:[^"\\]|\\.)*)"')


class AnnotatedPTX:
    """PTX with the source line of each instruction beside it, read from
    the ``.loc`` and ``.file`` directives of ``-lineinfo``. ``rows`` holds
    each PTX line (the directives left out) with its ``(file, line)``, or
    ``None`` where the PTX names no source (declarations, and instructions
    no source line made)."""

    def __init__(self, ptx: str, files: Sequence[Tuple[str, str]]) -> None:
        lines = ptx.splitlines()
        paths: Dict[str, str] = {}
        for text in lines:
            found = _FILE.match(text)
            if found:
                paths[found.group("file")] = re.sub(r"\\(.)", r"\1", found.group("path"))
        self.sources: Dict[str, List[str]] = {path: text.splitlines() for path, text in files}
        self.rows: List[Tuple[str, Optional[Tuple[str, int]]]] = []
        at: Optional[Tuple[str, int]] = None
        for text in lines:
            loc = _LOC.match(text)
            if loc:
                at = (paths.get(loc.group("file"), "?"), int(loc.group("line")))
            elif _FILE.match(text):
                continue
            else:
                # A function's end forgets the position, as a new one starts afresh.
                self.rows.append((text, at if text.startswith("\t") else None))
                if text == "}":
                    at = None
        while self.rows and not self.rows[-1][0]:
            self.rows.pop()

    def source_line(self, at: Tuple[str, int]) -> str:
        """The text of a source line (empty when the file is not known)."""
        lines = self.sources.get(at[0], [])
        return lines[at[1] - 1].strip() if 0 < at[1] <= len(lines) else ""

    def lines_of(self, opcode: str) -> List[int]:
        """The source lines of the instructions that start with ``opcode``
        (``"ld.global"``), in PTX order."""
        return [at[1] for text, at in self.rows if at and text.strip().startswith(opcode)]

    def __repr__(self) -> str:
        placed = sum(1 for _, at in self.rows if at)
        return f"<AnnotatedPTX: {len(self.rows)} lines, {placed} with a source line>"

    def _located(self) -> List[Tuple[str, str]]:
        out = []
        for text, at in self.rows:
            note = f"{at[0].rsplit('/', 1)[-1]}:{at[1]}: {self.source_line(at)}" if at else ""
            out.append((text.expandtabs(4), note))
        return out

    def __str__(self) -> str:
        rows = self._located()
        width = max((len(t) for t, n in rows if n), default=0)
        return "".join(f"{t:<{width}}  // {n}\n" if n else f"{t}\n" for t, n in rows)

    def _repr_html_(self) -> str:
        rows = []
        for text, note in self._located():
            cell = f'<span class="kc-note">{html.escape(note)}</span>' if note else ""
            rows.append(f'<tr><td class="kc-pre">{html.escape(text)}</td><td>{cell}</td></tr>')
        return _STYLE + "<table>" + "".join(rows) + "</table>"


def program_html(kernels: Sequence[Tuple[str, str, str]], passes: int, ptx_lines: int, warnings: int) -> str:
    """A program's summary: its kernels (readable and mangled names, where
    defined) and the size of what the compiler made."""
    rows = "".join(
        f"<tr><td><code>{html.escape(r)}</code></td><td><code>{html.escape(m)}</code></td>"
        f"<td>{html.escape(at)}</td></tr>"
        for r, m, at in kernels
    )
    return (
        _STYLE
        + "<table><tr><th>kernel</th><th>PTX name</th><th>defined at</th></tr>"
        + rows
        + f"</table><p>{passes} pass runs, {ptx_lines} lines of PTX, {warnings} warning(s)</p>"
    )
