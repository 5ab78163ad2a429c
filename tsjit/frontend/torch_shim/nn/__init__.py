"""`torch.nn` for the shim: Module, Parameter, init, functional and the layers tsjit
ships as TorchScript source (`tsjit.frontend.library.modules`)."""

from tsjit.frontend.library import functional
from tsjit.frontend.library.modules import (
    ELU,
    GELU,
    AdaptiveAvgPool2d,
    AvgPool2d,
    BatchNorm1d,
    BatchNorm2d,
    Conv1d,
    Conv2d,
    Dropout,
    Embedding,
    Flatten,
    Identity,
    LayerNorm,
    LeakyReLU,
    Linear,
    LogSoftmax,
    MaxPool2d,
    ModuleList,
    ReLU,
    Sequential,
    Sigmoid,
    SiLU,
    Softmax,
    Tanh,
)  # fmt: skip
from tsjit.frontend.torch_shim.nn import init
from tsjit.frontend.torch_shim.nn.module import Module, Parameter

__all__ = [
    "ELU", "GELU", "AdaptiveAvgPool2d", "AvgPool2d", "BatchNorm1d", "BatchNorm2d", "Conv1d", "Conv2d", "Dropout",
    "Embedding", "Flatten", "Identity", "LayerNorm", "LeakyReLU", "Linear", "LogSoftmax", "MaxPool2d", "Module",
    "ModuleList", "Parameter", "ReLU", "Sequential", "SiLU", "Sigmoid", "Softmax", "Tanh", "functional", "init",
]  # fmt: skip
