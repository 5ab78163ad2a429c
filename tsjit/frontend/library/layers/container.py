"""Containers (`torch.nn.modules.container`): scripting unrolls loops over their items."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from tsjit.frontend.torch_shim.nn.module import Module


class Sequential(Module):
    """Runs its submodules in order."""

    def __init__(self, *args: Module):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for name, module in args[0].items():
                self.add_module(name, module)
        else:
            for index, module in enumerate(args):
                self.add_module(str(index), module)

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            return Sequential(OrderedDict(list(self._modules.items())[index]))
        return list(self._modules.values())[index]

    def append(self, module: Module) -> Sequential:
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules) -> Sequential:
        for module in modules:
            self.append(module)
        return self

    def forward(self, input):
        for module in self:
            input = module(input)
        return input


class ModuleList(Module):
    """A list of submodules."""

    def __init__(self, modules=None):
        super().__init__()
        for module in modules or ():
            self.append(module)

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            return ModuleList(list(self._modules.values())[index])
        return list(self._modules.values())[index]

    def append(self, module: Module) -> ModuleList:
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules) -> ModuleList:
        for module in modules:
            self.append(module)
        return self


class ModuleDict(Module):
    """Submodules by name."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def __getitem__(self, key: str) -> Module:
        return self._modules[key]

    def __setitem__(self, key: str, module: Module) -> None:
        self.add_module(key, module)

    def __contains__(self, key: str) -> bool:
        return key in self._modules

    def keys(self):
        return self._modules.keys()

    def items(self):
        return self._modules.items()

    def values(self):
        return self._modules.values()

    def update(self, modules) -> None:
        for key, module in modules.items() if hasattr(modules, "items") else modules:
            self.add_module(key, module)
