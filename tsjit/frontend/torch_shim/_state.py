"""What the eager shim asks on every operator: is a trace being recorded?

`ACTIVE.tracer` is the tracing state (`tsjit.frontend.tracer_state.TracingState`) while
`tsjit.trace` runs the user's code, else None; operators check it with one attribute
read, so eager execution outside a trace pays nothing more.
"""

from __future__ import annotations

from typing import Any


class _Active:
    __slots__ = ("tracer",)

    def __init__(self) -> None:
        self.tracer: Any = None


ACTIVE = _Active()


def warn_constant(tensor: object, what: str) -> None:
    """PyTorch's TracerWarning for a tensor read as a Python value while tracing."""
    if ACTIVE.tracer is not None:
        ACTIVE.tracer.warn(
            f"Converting a tensor to {what} might cause the trace to be incorrect. We can't record the data "
            "flow of Python values, so this value will be treated as a constant in the future. This means "
            "that the trace might not generalize to other inputs!"
        )
