"""The exceptions kernelc raises, and the diagnostics a failed compilation
carries. The extension module builds them from the compiler's own data."""

from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple


@dataclass(frozen=True)
class Diagnostic:
    """One diagnostic of the compiler, located in the source."""

    severity: str
    """``"error"``, ``"warning"`` or ``"note"``."""
    code: Optional[str]
    """The stable code (``E0001``; ``kernelc --explain E0001`` explains it),
    or ``None`` for a diagnostic of a later stage."""
    message: str
    file: Optional[str]
    line: Optional[int]
    column: Optional[int]
    notes: Tuple[str, ...]
    """The labels' and the notes' texts, as the rendering shows them."""

    @classmethod
    def _from_tuple(cls, t: Sequence[object]) -> "Diagnostic":
        severity, code, message, file, line, column, notes = t
        return cls(
            str(severity),
            None if code is None else str(code),
            str(message),
            None if file is None else str(file),
            None if line is None else int(line),  # type: ignore[call-overload]
            None if column is None else int(column),  # type: ignore[call-overload]
            tuple(str(n) for n in notes),  # type: ignore[attr-defined]
        )

    def __str__(self) -> str:
        code = f"[{self.code}]" if self.code else ""
        where = f"{self.file}:{self.line}:{self.column}: " if self.file else ""
        return f"{where}{self.severity}{code}: {self.message}"


class CompileError(Exception):
    """A compilation failed. ``str(e)`` is the diagnostics rendered as the
    command line prints them (with source snippets); ``e.diagnostics`` holds
    them as data."""

    def __init__(self, rendered: str, diagnostics: Sequence[Sequence[object]]) -> None:
        super().__init__(rendered)
        self.rendered = rendered
        self.diagnostics: List[Diagnostic] = [Diagnostic._from_tuple(d) for d in diagnostics]

    def __str__(self) -> str:
        return self.rendered


class KernelFault(Exception):
    """A kernel faulted while running (an access out of bounds, a
    misaligned address, a trap, too many steps). ``str(e)`` shows the
    faulting source line; the fields say where it happened.

    On ``engine="gpu"`` the driver reports the fault without its thread or
    instruction: the same launch then runs on the interpreter, which
    locates it when every array came from the host. ``block`` and ``thread`` are
    ``None`` when the fault could not be located."""

    def __init__(
        self,
        rendered: str,
        engine: str,
        kernel: str,
        block: Optional[Sequence[int]],
        thread: Optional[Sequence[int]],
        file: Optional[str],
        line: Optional[int],
        column: Optional[int],
        ptx_line: Optional[int],
    ) -> None:
        super().__init__(rendered)
        self.rendered = rendered
        self.engine = engine
        self.kernel = kernel
        self.block = None if block is None else tuple(block)
        self.thread = None if thread is None else tuple(thread)
        self.file = file
        self.line = line
        """The source line of the faulting instruction (the interpreter
        knows it; the emulator gives ``ptx_line``, and the source line too
        when the PTX has ``-lineinfo``'s ``.loc`` directives)."""
        self.column = column
        self.ptx_line = ptx_line

    def __str__(self) -> str:
        return self.rendered


class LaunchError(Exception):
    """A launch could not start: an unknown kernel, arguments that do not
    fit the parameters, an engine that is not there (no GPU driver)."""


class ToolError(Exception):
    """An NVIDIA tool that a request needs (ptxas, for ``cubin()`` and
    ``stats()``) could not be found, or failed."""
