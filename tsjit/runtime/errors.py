"""The exception a running TorchScript program raises.

TorchScript reports every failure with the Python exception class it would have
raised (`raise ValueError(...)` gives "ValueError"; failing asserts and errors inside
operators give "RuntimeError"), so one exception type carries that class name instead of
mirroring Python's hierarchy; callers compare `kind`, not `isinstance`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tsjit.diagnostics import SourceLocation


class TorchScriptError(Exception):
    """An exception raised by TorchScript code or by an operator it called."""

    def __init__(self, message: str, kind: str = "RuntimeError", location: SourceLocation | None = None):
        super().__init__(message)
        self.message = message
        self.kind = kind
        self.location = location

    def at(self, location: SourceLocation | None) -> TorchScriptError:
        """Attach the location of the node that failed, unless a deeper one is known."""
        if self.location is None:
            self.location = location
        return self

    def __str__(self) -> str:
        where = f"{self.location}: " if self.location is not None else ""
        return f"{where}{self.kind}: {self.message}"
