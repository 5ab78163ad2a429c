"""`tsjit.install_torch_shim()`: `import torch` gives the shim where PyTorch is absent."""

from __future__ import annotations

import importlib.util
import sys
import types


def install_torch_shim() -> types.ModuleType:
    """Makes `import torch` (and `torch.nn`, `torch.nn.functional`, `torch.jit`, ...) in
    user code import tsjit's torch shim when PyTorch is not installed; does nothing when
    it is. Returns the module `import torch` now gives."""
    present = sys.modules.get("torch")
    if present is not None:
        return present
    if importlib.util.find_spec("torch") is not None:
        import torch  # noqa: PLC0415 - the real PyTorch wins

        return torch
    from tsjit.frontend.script import shim_modules

    modules = shim_modules()
    modules["torch._C"] = modules["torch"]._C  # pyright: ignore[reportAttributeAccessIssue]
    for name, module in modules.items():
        sys.modules[name] = module
    return modules["torch"]
