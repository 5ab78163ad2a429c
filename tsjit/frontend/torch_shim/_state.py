"""What the eager shim asks on every operator: is a trace being recorded?

`ACTIVE.current()` is the tracing state (`tsjit.frontend.tracer_state.TracingState`)
while `tsjit.trace` runs the user's code in this thread, else None; operators first read
`ACTIVE.tracer`, None unless some thread traces, so eager execution pays one attribute
read.
"""

from __future__ import annotations

import threading
from typing import Any


class _Active:
    """The tracing states of the threads tracing now. `tracer` is one of them or None:
    a single read tells the hot path that no trace runs anywhere; `current()` is this
    thread's state (PyTorch's tracing state is per thread too)."""

    __slots__ = ("_threads", "tracer")

    def __init__(self) -> None:
        self.tracer: Any = None
        self._threads: dict[int, Any] = {}

    def current(self) -> Any:
        if self.tracer is None:
            return None
        return self._threads.get(threading.get_ident())

    def enter(self, state: Any) -> Any:
        """Makes `state` this thread's tracing state; returns the one it replaces."""
        ident = threading.get_ident()
        previous = self._threads.get(ident)
        self._threads[ident] = state
        self.tracer = state
        return previous

    def leave(self, previous: Any) -> None:
        ident = threading.get_ident()
        if previous is None:
            self._threads.pop(ident, None)
        else:
            self._threads[ident] = previous
        self.tracer = next(iter(self._threads.values()), None)


ACTIVE = _Active()


def warn_constant(tensor: object, what: str) -> None:
    """PyTorch's TracerWarning for a tensor read as a Python value while tracing."""
    tracer = ACTIVE.current()
    if tracer is not None:
        tracer.warn(
            f"Converting a tensor to {what} might cause the trace to be incorrect. We can't record the data "
            "flow of Python values, so this value will be treated as a constant in the future. This means "
            "that the trace might not generalize to other inputs!"
        )
