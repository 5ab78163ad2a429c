"""The exception a running TorchScript program raises.

TorchScript reports every failure with the Python exception class it would have
raised (`raise ValueError(...)` gives "ValueError"; failing asserts and errors inside
operators give "RuntimeError"), so one exception type carries that class name instead of
mirroring Python's hierarchy; callers compare `kind`, not `isinstance`.

An error also records where it happened as the interpreter unwinds: `frames` is the
TorchScript call stack, outermost call first (an inlined call is a frame too, from its
op's `callsite` location), and `location` the innermost frame as text.
`tsjit.diagnostics.torchscript_traceback` prints them as PyTorch does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

if TYPE_CHECKING:
    from tsjit.diagnostics import SourceLocation


class TorchScriptError(Exception):
    """An exception raised by TorchScript code or by an operator it called."""

    eager_kind: ClassVar[str | None] = None
    """The class PyTorch raises instead when the operator is called eagerly (outside
    TorchScript, operator errors keep the class their C++ check gives them)."""

    def __init__(self, message: str, kind: str = "RuntimeError", location: str | None = None):
        super().__init__(message)
        self.message = message
        self.kind = kind
        self.location = location
        self.frames: list[SourceLocation] = []

    def at(self, location: str | SourceLocation | Sequence[SourceLocation] | None) -> TorchScriptError:
        """Adds the frames of the op that failed, or of the call it failed in: the
        outer frames, as the error unwinds; `location` is the innermost."""
        from tsjit.diagnostics import SourceLocation

        if location is None:
            return self
        if isinstance(location, str):
            parsed = SourceLocation.parse(location)
            frames = [parsed] if parsed is not None else []
        elif isinstance(location, SourceLocation):
            frames = [location]
        else:
            frames = list(location)
        self.frames[:0] = frames
        if self.location is None and frames:
            self.location = str(frames[-1])
        return self

    def traceback(self) -> str:
        """PyTorch's "The following operation failed in the TorchScript interpreter"
        text: every frame with its source range, then the exception."""
        from tsjit.diagnostics import torchscript_traceback

        return torchscript_traceback(self)

    def __str__(self) -> str:
        where = f"{self.location}: " if self.location is not None else ""
        return f"{where}{self.kind}: {self.message}"


class IndexCheckError(TorchScriptError):
    """An operator's dim or index out of range (PyTorch's `TORCH_CHECK_INDEX`): a
    RuntimeError inside TorchScript like every operator error, an IndexError when the
    operator is called eagerly."""

    eager_kind = "IndexError"
