"""`torch.optim` for the shim: SGD (with momentum, Nesterov and weight decay) and Adam,
PyTorch's update rules on the parameters' arrays in place, outside autograd.

    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    opt.zero_grad(); loss.backward(); opt.step()
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import numpy as np

from tsjit.frontend.torch_shim._tensor import Tensor
from tsjit.runtime.autograd.variable import version_counter


class Optimizer:
    """Parameters (one group) and per-parameter state, PyTorch's interface."""

    def __init__(self, params: Iterable[Tensor], defaults: dict[str, Any]):
        self.params = [p for p in params]
        if not self.params:
            raise ValueError("optimizer got an empty parameter list")
        self.defaults = defaults
        self.param_groups = [{"params": self.params, **defaults}]
        self.state: dict[int, dict[str, Any]] = {}

    def zero_grad(self, set_to_none: bool = True) -> None:
        for p in self.params:
            if set_to_none:
                p.grad = None
            elif p.grad is not None:
                p.grad.array[...] = 0

    def step(self) -> None:
        group = self.param_groups[0]
        for p in self.params:
            if p.grad is not None:
                self.update(p.array, np.asarray(p.grad.array, p.array.dtype), self.state.setdefault(id(p), {}), group)
        # the parameters changed in place: tensors saved from them are stale
        for p in self.params:
            counter = p._version if p._base is None else version_counter(p)  # a view counts in its base's
            if counter is not None:
                counter[0] += 1

    def update(self, value: np.ndarray, grad: np.ndarray, state: dict[str, Any], group: dict[str, Any]) -> None:
        raise NotImplementedError


class SGD(Optimizer):
    """`torch.optim.SGD`."""

    def __init__(self, params: Iterable[Tensor], lr: float = 1e-3, momentum: float = 0.0, dampening: float = 0.0,
                 weight_decay: float = 0.0, nesterov: bool = False):  # fmt: skip
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, {"lr": lr, "momentum": momentum, "dampening": dampening,
                                  "weight_decay": weight_decay, "nesterov": nesterov})  # fmt: skip

    def update(self, value: np.ndarray, grad: np.ndarray, state: dict[str, Any], group: dict[str, Any]) -> None:
        if group["weight_decay"]:
            grad = grad + group["weight_decay"] * value
        momentum = group["momentum"]
        if momentum:
            buffer = state.get("momentum_buffer")
            if buffer is None:
                buffer = state["momentum_buffer"] = np.array(grad, copy=True)
            else:
                buffer *= momentum
                buffer += (1 - group["dampening"]) * grad
            grad = grad + momentum * buffer if group["nesterov"] else buffer
        value -= value.dtype.type(group["lr"]) * grad


class Adam(Optimizer):
    """`torch.optim.Adam` (without amsgrad)."""

    def __init__(self, params: Iterable[Tensor], lr: float = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8, weight_decay: float = 0.0):  # fmt: skip
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay})

    def update(self, value: np.ndarray, grad: np.ndarray, state: dict[str, Any], group: dict[str, Any]) -> None:
        if group["weight_decay"]:
            grad = grad + group["weight_decay"] * value
        beta1, beta2 = group["betas"]
        if not state:
            state.update(step=0, exp_avg=np.zeros_like(value), exp_avg_sq=np.zeros_like(value))
        state["step"] += 1
        step = state["step"]
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        exp_avg *= beta1
        exp_avg += (1 - beta1) * grad
        exp_avg_sq *= beta2
        exp_avg_sq += (1 - beta2) * grad * grad
        correction = math.sqrt(1 - beta2**step) / (1 - beta1**step)
        value -= (group["lr"] * correction) * exp_avg / (np.sqrt(exp_avg_sq) + group["eps"])
