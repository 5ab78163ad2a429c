"""`torch.nn.init`: the initialisers the shim's layers use (torch's default schemes)."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import TypeVar

from tsjit.frontend.torch_shim._tensor import Tensor

_Init = TypeVar("_Init", bound=Callable[..., Tensor])


def _without_grad(initialiser: _Init) -> _Init:
    """Runs an initialiser with gradient recording off, as torch does: parameters are
    leaves that require grad, which an in-place write would otherwise refuse."""

    @functools.wraps(initialiser)
    def run(*args, **kwargs):
        from tsjit.frontend.library.grad_mode import no_grad

        with no_grad():
            return initialiser(*args, **kwargs)

    return run  # pyright: ignore[reportReturnType]


def _fan_in_and_fan_out(tensor: Tensor) -> tuple[int, int]:
    if tensor.dim() < 2:
        raise ValueError("fan in and fan out need a tensor with at least 2 dimensions")
    receptive = tensor.numel() // (tensor.size(0) * tensor.size(1))  # pyright: ignore[reportOperatorIssue]
    return tensor.size(1) * receptive, tensor.size(0) * receptive  # pyright: ignore[reportReturnType]


_calculate_fan_in_and_fan_out = _fan_in_and_fan_out


@_without_grad
def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0) -> Tensor:
    return tensor.uniform_(a, b)


@_without_grad
def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0) -> Tensor:
    return tensor.normal_(mean, std)


@_without_grad
def zeros_(tensor: Tensor) -> Tensor:
    return tensor.zero_()


@_without_grad
def ones_(tensor: Tensor) -> Tensor:
    return tensor.fill_(1.0)


@_without_grad
def constant_(tensor: Tensor, value: float) -> Tensor:
    return tensor.fill_(value)


@_without_grad
def kaiming_uniform_(
    tensor: Tensor, a: float = 0.0, mode: str = "fan_in", nonlinearity: str = "leaky_relu"
) -> Tensor:
    fan_in, fan_out = _fan_in_and_fan_out(tensor)
    gain = math.sqrt(2.0 / (1 + a * a))
    bound = math.sqrt(3.0) * gain / math.sqrt(fan_in if mode == "fan_in" else fan_out)
    return tensor.uniform_(-bound, bound)


@_without_grad
def kaiming_normal_(
    tensor: Tensor, a: float = 0.0, mode: str = "fan_in", nonlinearity: str = "leaky_relu"
) -> Tensor:
    fan_in, fan_out = _fan_in_and_fan_out(tensor)
    gain = math.sqrt(2.0 / (1 + a * a))
    return tensor.normal_(0.0, gain / math.sqrt(fan_in if mode == "fan_in" else fan_out))


@_without_grad
def xavier_normal_(tensor: Tensor, gain: float = 1.0) -> Tensor:
    fan_in, fan_out = _fan_in_and_fan_out(tensor)
    return tensor.normal_(0.0, gain * math.sqrt(2.0 / (fan_in + fan_out)))


@_without_grad
def xavier_uniform_(tensor: Tensor, gain: float = 1.0) -> Tensor:
    fan_in, fan_out = _fan_in_and_fan_out(tensor)
    bound = gain * math.sqrt(6.0 / (fan_in + fan_out))
    return tensor.uniform_(-bound, bound)


def fan_in_bound(tensor: Tensor) -> float:
    """torch's default bias bound for a layer with `tensor` as its weight: 1/sqrt(fan_in)."""
    fan_in, _ = _fan_in_and_fan_out(tensor)
    return 1.0 / math.sqrt(fan_in) if fan_in > 0 else 0.0
