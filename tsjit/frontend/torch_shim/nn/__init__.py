"""`torch.nn` for the shim: Module, Parameter, init, functional and the layers tsjit
ships as TorchScript source (`tsjit.frontend.library.modules`).

The layers are looked up on first use (PEP 562): the library's modules import this
package for `Module` and `init`, so importing them here would make the two a cycle."""

from typing import Any

from tsjit.frontend.library import functional
from tsjit.frontend.torch_shim.nn import init
from tsjit.frontend.torch_shim.nn.module import Module, Parameter

__all__ = ["Module", "Parameter", "functional", "init"]


def __getattr__(name: str) -> Any:
    from tsjit.frontend.library import modules

    if name in modules.BY_NAME:
        return modules.BY_NAME[name]
    raise AttributeError(f"module 'torch.nn' has no attribute '{name}'")


def __dir__() -> list[str]:
    from tsjit.frontend.library import modules

    return sorted([*__all__, *modules.BY_NAME])
