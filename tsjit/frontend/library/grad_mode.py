"""`torch.no_grad` and `torch.enable_grad` as TorchScript classes.

`with torch.no_grad():` creates the object, runs its `__init__` (compiled from here,
as PyTorch compiles torch/autograd/grad_mode.py) and wraps the body in `prim.Enter` /
`prim.Exit`. tsjit has no autograd, so entering changes nothing; the classes are also
the shim's Python context managers.
"""

from __future__ import annotations

from typing import Any

TORCH_QUALNAMES: dict[str, str] = {
    "no_grad": "torch.autograd.grad_mode.no_grad",
    "enable_grad": "torch.autograd.grad_mode.enable_grad",
}


class no_grad:
    """Disables gradient tracking inside its block (a no-op for tsjit)."""

    prev: bool

    def __init__(self) -> None:
        self.prev = False

    def __enter__(self) -> None:
        return None

    def __exit__(self, exc_type: Any, exc_value: Any, traceback: Any) -> None:  # noqa: PYI036 - `object` is no TorchScript type
        return None

    def __call__(self, function):
        """`@torch.no_grad()` as a decorator."""
        return function


class enable_grad(no_grad):
    """Enables gradient tracking inside its block (a no-op for tsjit)."""
