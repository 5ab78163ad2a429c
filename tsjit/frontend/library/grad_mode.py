"""`torch.no_grad` and `torch.enable_grad` as TorchScript classes.

`with torch.no_grad():` creates the object, runs its `__init__` (compiled from here,
as PyTorch compiles torch/autograd/grad_mode.py) and wraps the body in `prim.Enter` /
`prim.Exit`, which run `__enter__` and `__exit__`: they save and set the thread's grad
mode (`aten::is_grad_enabled`, `aten::set_grad_enabled`), so the body records no
gradients. The classes are also the shim's Python context managers (and decorators).
"""

from __future__ import annotations

import functools
from typing import Any

from tsjit.frontend import torch_shim as torch

TORCH_QUALNAMES: dict[str, str] = {
    "no_grad": "torch.autograd.grad_mode.no_grad",
    "enable_grad": "torch.autograd.grad_mode.enable_grad",
}


class no_grad:
    """Disables gradient recording inside its block."""

    prev: bool

    def __init__(self) -> None:
        self.prev = False

    def __enter__(self) -> None:
        self.prev = torch.is_grad_enabled()
        torch.set_grad_enabled(False)

    def __exit__(self, exc_type: Any, exc_value: Any, traceback: Any) -> None:  # noqa: PYI036 - `object` is no TorchScript type
        torch.set_grad_enabled(self.prev)

    def __call__(self, function):
        """`@torch.no_grad()` as a decorator."""

        @functools.wraps(function)
        def run(*args, **kwargs):
            with type(self)():
                return function(*args, **kwargs)

        return run


class enable_grad(no_grad):
    """Enables gradient recording inside its block."""

    def __enter__(self) -> None:
        self.prev = torch.is_grad_enabled()
        torch.set_grad_enabled(True)
