"""`torch.nn` for the shim: Module, Parameter, init, functional and the layers tsjit
ships as TorchScript source (`tsjit.frontend.library.modules`).

The layers are looked up on first use (PEP 562): the library's modules import this
package for `Module` and `init`, so importing them here would make the two a cycle."""

from typing import Any

from tsjit.frontend.library import functional
from tsjit.frontend.torch_shim.nn import init
from tsjit.frontend.torch_shim.nn.module import Module, Parameter

__all__ = [
    "ELU", "GELU", "AdaptiveAvgPool2d", "AvgPool2d", "BatchNorm1d", "BatchNorm2d", "Conv1d", "Conv2d", "Dropout",
    "Embedding", "Flatten", "Identity", "LayerNorm", "LeakyReLU", "Linear", "LogSoftmax", "MaxPool2d", "Module",
    "ModuleList", "Parameter", "ReLU", "Sequential", "SiLU", "Sigmoid", "Softmax", "Tanh", "functional", "init",
]  # fmt: skip

_LAYERS = frozenset(__all__) - {"Module", "Parameter", "functional", "init"}


def __getattr__(name: str) -> Any:
    if name in _LAYERS:
        from tsjit.frontend.library import modules

        return getattr(modules, name)
    raise AttributeError(f"module 'torch.nn' has no attribute '{name}'")
