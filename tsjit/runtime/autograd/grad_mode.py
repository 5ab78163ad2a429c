"""Whether operators record gradients: PyTorch's GradMode, one flag per thread.

`torch.no_grad()` and `torch.set_grad_enabled(False)` clear it; scripted code reads and
sets it through `aten::is_grad_enabled` / `aten::set_grad_enabled` (the methods of
`torch.no_grad`, compiled from `tsjit/frontend/library/grad_mode.py`). Code that runs
with it cleared computes on plain arrays and records nothing.

    with no_grad():
        ...                                 # is_grad_enabled() is False here
"""

from __future__ import annotations

import threading
from typing import Any

_state = threading.local()


def is_grad_enabled() -> bool:
    """Whether this thread records gradients (True unless a no_grad is active)."""
    return getattr(_state, "enabled", True)


def set_grad_enabled(enabled: bool) -> None:
    _state.enabled = bool(enabled)


class no_grad:
    """Disables gradient recording in its block (as a context manager or decorator)."""

    enabled = False

    def __enter__(self) -> None:
        self.previous = is_grad_enabled()
        set_grad_enabled(self.enabled)

    def __exit__(self, *exc: object) -> None:
        set_grad_enabled(self.previous)

    def __call__(self, function: Any) -> Any:
        import functools

        @functools.wraps(function)
        def run(*args: Any, **kwargs: Any) -> Any:
            with type(self)():
                return function(*args, **kwargs)

        return run


class enable_grad(no_grad):
    """Enables gradient recording in its block."""

    enabled = True
