"""The `torch.nn` layers tsjit ships, by the names PyTorch gives them.

The layers live in `tsjit.frontend.library.layers`, one module per family as in PyTorch's
`torch/nn/modules/`; this module gathers them. `TORCH_QUALNAMES` gives each layer the
class name PyTorch's graphs use (`torch.nn.modules.linear.Linear`), which is how scripting
a real PyTorch layer finds the library's methods for it.

Names listed in a class's `__constants__` are compile-time constants of the scripted
module, as in PyTorch. The class annotations are PyTorch's (tuples written as lists):
they type the attributes when a layer's methods are compiled for its class rather than
for an instance (`tsjit.frontend.library_methods`), where constants are read from the
object and the object may lack them; the defaults of `__init__` stand in for missing
constants.
"""

from __future__ import annotations

from types import ModuleType

from tsjit.frontend.library.layers import (
    activation,
    batchnorm,
    channelshuffle,
    container,
    conv,
    distance,
    dropout,
    flatten,
    fold,
    instancenorm,
    linear,
    loss,
    normalization,
    padding,
    pixelshuffle,
    pooling,
    rnn,
    sparse,
    transformer,
    upsampling,
)
from tsjit.frontend.torch_shim.nn.module import Module

FAMILIES: tuple[ModuleType, ...] = (
    activation, batchnorm, channelshuffle, container, conv, distance, dropout, flatten, fold, instancenorm, linear,
    loss, normalization, padding, pixelshuffle, pooling, rnn, sparse, transformer, upsampling,
)  # fmt: skip


def _layers(family: ModuleType) -> list[type[Module]]:
    """The public layer classes a family module defines."""
    return [
        value
        for name, value in vars(family).items()
        if isinstance(value, type)
        and issubclass(value, Module)
        and value.__module__ == family.__name__
        and not name.startswith("_")
    ]


LAYERS: tuple[type[Module], ...] = tuple(cls for family in FAMILIES for cls in _layers(family))
"""Every layer class, in family order."""

TORCH_QUALNAMES: dict[str, str] = {
    cls.__name__: f"torch.nn.modules.{cls.__module__.rsplit('.', 1)[1]}.{cls.__name__}" for cls in LAYERS
}
"""PyTorch's qualified name of each layer (`Linear`: `torch.nn.modules.linear.Linear`)."""

BY_NAME: dict[str, type[Module]] = {cls.__name__: cls for cls in LAYERS}

COMPOSITE = frozenset({
    "Sequential", "ModuleList", "ModuleDict", "MultiheadAttention", "TransformerEncoderLayer",
    "TransformerDecoderLayer", "TransformerEncoder", "TransformerDecoder", "Transformer",
    "TripletMarginWithDistanceLoss",
})  # fmt: skip
"""Layers holding submodules or Python functions: their methods are compiled for an
instance only, never for the class alone (`tsjit.frontend.library_methods`)."""


def __getattr__(name: str) -> type[Module]:
    if name in BY_NAME:
        return BY_NAME[name]
    raise AttributeError(f"module '{__name__}' has no attribute '{name}'")
