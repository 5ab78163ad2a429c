"""A small torch-compatible surface, imported as `torch` by programs tsjit scripts when
PyTorch is absent (see `tsjit.frontend.resolver.run_user_file`).

It has what a TorchScript file needs at Python level: `torch.Tensor` and the dtypes for
annotations, `torch.nn.Module` and the common layers so that modules can be built,
factory functions for parameters and buffers, `torch.no_grad`, and `torch.jit`'s
decorators. Operators (`torch.add`, `torch.relu`, ...) are not here: the script frontend
resolves them by name through the schema table.
"""

from __future__ import annotations

import builtins
import math
from collections.abc import Sequence

import numpy as np

from tsjit.frontend.library.grad_mode import enable_grad, no_grad
from tsjit.frontend.torch_shim._builtins import TorchBuiltin
from tsjit.frontend.torch_shim._tensor import (
    ALIASES,
    DTYPES_BY_NAME,
    Size,
    Tensor,
    device,
    dtype,
    generator,
    manual_seed,
    to_dtype,
)

__version__ = "2.13.0+tsjit-shim"

# torch's dtype names shadow `int`, `float` and `bool` in this module: code below says
# `builtins.int` where it means the Python type.
for _name, _dtype in DTYPES_BY_NAME.items():
    globals()[_name] = _dtype
for _alias, _name in ALIASES.items():
    globals()[_alias] = DTYPES_BY_NAME[_name]

_float32 = DTYPES_BY_NAME["float32"]
_int64 = DTYPES_BY_NAME["int64"]


def _sizes(size: Sequence[object]) -> tuple[int, ...]:
    if len(size) == 1 and isinstance(size[0], (tuple, list, Size)):
        return tuple(size[0])  # pyright: ignore[reportArgumentType]
    return tuple(size)  # pyright: ignore[reportReturnType]


def tensor(
    data: object, dtype: dtype | None = None, device: object = None, requires_grad: bool = False
) -> Tensor:
    if dtype is None:
        array = np.asarray(data.array if isinstance(data, Tensor) else data)
        if array.dtype.kind == "f":
            dtype = _float32
        elif array.dtype.kind in "iu":
            dtype = _int64
    return Tensor(data, dtype, requires_grad)


def as_tensor(data: object, dtype: dtype | None = None, device: object = None) -> Tensor:
    return tensor(data, dtype)


def from_numpy(array: np.ndarray) -> Tensor:
    return Tensor(array)


def zeros(*size: object, dtype: dtype | None = None, **_: object) -> Tensor:
    return Tensor(np.zeros(_sizes(size), to_dtype(dtype).numpy))


def ones(*size: object, dtype: dtype | None = None, **_: object) -> Tensor:
    return Tensor(np.ones(_sizes(size), to_dtype(dtype).numpy))


def empty(*size: object, dtype: dtype | None = None, **_: object) -> Tensor:
    return zeros(*size, dtype=dtype)


def full(size: Sequence[int], fill_value: float, dtype: dtype | None = None, **_: object) -> Tensor:
    if dtype is None:
        dtype = (
            _int64
            if isinstance(fill_value, builtins.int) and not isinstance(fill_value, builtins.bool)
            else _float32
        )
    return Tensor(np.full(tuple(size), fill_value, dtype.numpy))


def eye(n: int, m: int | None = None, dtype: dtype | None = None, **_: object) -> Tensor:
    return Tensor(np.eye(n, m, dtype=to_dtype(dtype).numpy))


def arange(
    start: float, end: float | None = None, step: float = 1, dtype: dtype | None = None, **_: object
) -> Tensor:
    if end is None:
        start, end = 0, start
    integral = all(isinstance(v, builtins.int) for v in (start, end, step))
    return Tensor(np.arange(start, end, step, dtype=to_dtype(dtype, _int64 if integral else _float32).numpy))


def linspace(start: float, end: float, steps: int, dtype: dtype | None = None, **_: object) -> Tensor:
    return Tensor(np.linspace(start, end, steps, dtype=to_dtype(dtype).numpy))


def rand(*size: object, dtype: dtype | None = None, **_: object) -> Tensor:
    return Tensor(generator().random(_sizes(size)).astype(to_dtype(dtype).numpy))


def randn(*size: object, dtype: dtype | None = None, **_: object) -> Tensor:
    return Tensor(generator().standard_normal(_sizes(size)).astype(to_dtype(dtype).numpy))


def randint(
    low: int, high: int | None = None, size: Sequence[int] = (), dtype: dtype | None = None, **_: object
) -> Tensor:
    if high is None:
        low, high = 0, low
    return Tensor(generator().integers(low, high, tuple(size)).astype(to_dtype(dtype, _int64).numpy))


def zeros_like(t: Tensor, dtype: dtype | None = None, **_: object) -> Tensor:
    return zeros(*t.shape, dtype=dtype or t.dtype)


def ones_like(t: Tensor, dtype: dtype | None = None, **_: object) -> Tensor:
    return ones(*t.shape, dtype=dtype or t.dtype)


def full_like(t: Tensor, fill_value: float, dtype: dtype | None = None, **_: object) -> Tensor:
    return full(t.shape, fill_value, dtype=dtype or t.dtype)


def is_tensor(value: object) -> bool:
    return isinstance(value, Tensor)


def get_default_dtype() -> dtype:
    return _float32


def is_grad_enabled() -> bool:
    return False


pi = math.pi
e = math.e
inf = math.inf
nan = math.nan


def __getattr__(name: str) -> TorchBuiltin:
    """`torch.cat` and every other operator: resolved by the frontend, not run here."""
    from tsjit.dialects.schema import has_operator

    if has_operator(f"aten::{name}"):
        return TorchBuiltin(f"aten::{name}", f"torch.{name}")
    raise AttributeError(f"module 'torch' has no attribute '{name}'")


from tsjit.frontend.torch_shim import _builtins as _jit_internal  # noqa: F401
from tsjit.frontend.torch_shim import jit, nn
from tsjit.frontend.torch_shim.nn import functional  # noqa: F401

__all__ = [
    "Size", "Tensor", "arange", "as_tensor", "device", "dtype", "empty", "enable_grad", "eye", "from_numpy",
    "full", "full_like", "get_default_dtype", "is_grad_enabled", "is_tensor", "jit", "linspace",
    "manual_seed", "nn", "no_grad", "ones", "ones_like", "rand", "randint", "randn", "tensor", "zeros",
    "zeros_like",
]  # fmt: skip
