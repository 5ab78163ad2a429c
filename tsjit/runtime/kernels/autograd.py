"""Grad mode as operators (`aten::is_grad_enabled`, `aten::set_grad_enabled`), which
the methods of `torch.no_grad` call; autograd's own operators (`aten::grad`,
`Tensor.backward`, ...) run only where gradients are recorded
(`tsjit.runtime.autograd.recording`)."""

from __future__ import annotations

from tsjit.runtime.autograd import grad_mode
from tsjit.runtime.kernels import kernel


@kernel("aten::is_grad_enabled")
def is_grad_enabled() -> bool:
    return grad_mode.is_grad_enabled()


@kernel("aten::set_grad_enabled")
def set_grad_enabled(val: bool) -> None:
    grad_mode.set_grad_enabled(val)
