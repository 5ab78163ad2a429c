"""A torch-compatible eager tensor library over tsjit's kernels, imported as `torch`
by programs tsjit scripts when PyTorch is absent (see `tsjit.frontend.script.run_user_file`)
and by user code after `tsjit.install_torch_shim()`.

`torch.X` is the operator `aten::X` (a `TorchBuiltin`): scripted code calls the
operator, Python code runs it eagerly, matched against the schema table and run by the
kernel the interpreter uses (`_dispatch`). Tensor methods and operators are operators
too (`_methods`, `_indexing`); `torch.nn.functional` and the `torch.nn` layers are
tsjit's TorchScript-source library run as Python. What is data rather than an operator
is plain Python here: dtypes, devices, `torch.tensor(data)`, `from_numpy`.
"""

from __future__ import annotations

import builtins
import math
import types

import numpy as np

from tsjit.frontend.library.grad_mode import enable_grad, no_grad
from tsjit.frontend.torch_shim import _methods  # noqa: F401 - binds Tensor's operators
from tsjit.frontend.torch_shim._builtins import OperatorNamespace, PythonOperator, TorchBuiltin, TorchNamespace
from tsjit.frontend.torch_shim._state import ACTIVE
from tsjit.frontend.torch_shim._tensor import (
    ALIASES,
    DTYPES_BY_NAME,
    Generator,
    LAYOUTS,
    MEMORY_FORMATS,
    Size,
    Tensor,
    as_array,
    device,
    dtype,
    generator,
    manual_seed,
    to_dtype,
    wrap,
)

__version__ = "2.13.0+tsjit-shim"

# torch's dtype names shadow `int`, `float` and `bool` in this module: code below says
# `builtins.int` where it means the Python type.
for _name, _dtype in DTYPES_BY_NAME.items():
    globals()[_name] = _dtype
for _alias, _name in ALIASES.items():
    globals()[_alias] = DTYPES_BY_NAME[_name]
globals().update(MEMORY_FORMATS)
globals().update(LAYOUTS)

_float32 = DTYPES_BY_NAME["float32"]
_int64 = DTYPES_BY_NAME["int64"]


def tensor(
    data: object, dtype: dtype | None = None, device: object = None, requires_grad: bool = False
) -> Tensor:
    """A new tensor holding a copy of `data`; while tracing, a constant of the graph
    (PyTorch's warning says so)."""
    tracer = ACTIVE.current()
    if tracer is not None:
        tracer.warn(
            "torch.tensor results are registered as constants in the trace. You can safely ignore this warning "
            "if you use this function to create tensors out of constant variables that would be the same every "
            "time you call this function. In any other case, this might cause the trace to be incorrect."
        )
    array = np.array(as_array(data, dtype), copy=True)
    result = wrap(array)
    result.requires_grad = requires_grad
    return result


def as_tensor(data: object, dtype: dtype | None = None, device: object = None) -> Tensor:
    if isinstance(data, Tensor) and (dtype is None or data.dtype is dtype):
        return data
    return wrap(as_array(data, dtype))


def from_numpy(array: np.ndarray) -> Tensor:
    return wrap(array)


def is_tensor(value: object) -> bool:
    return isinstance(value, Tensor)


def is_floating_point(value: Tensor) -> bool:
    return value.is_floating_point()


def numel(value: Tensor) -> builtins.int:
    """A Python int (unlike `Tensor.numel`, which a trace records): PyTorch's `torch.numel`."""
    return builtins.int(value.array.size)


def get_default_dtype() -> dtype:
    return _float32


def is_grad_enabled() -> bool:
    return False


def set_grad_enabled(mode: bool) -> no_grad:
    return no_grad()


def set_num_interop_threads(threads: int) -> None:
    """How many threads run `torch.jit.fork`ed calls (scripted and eager)."""
    from tsjit.runtime.futures import set_num_interop_threads as set_threads

    set_threads(threads)


def get_num_interop_threads() -> int:
    from tsjit.runtime.futures import get_num_interop_threads as get_threads

    return get_threads()


pi = math.pi
e = math.e
inf = math.inf
nan = math.nan

_C = types.ModuleType("torch._C", "The shim's view of PyTorch's C extension: operator namespaces.")
_C._nn = TorchNamespace("torch._C._nn")  # pyright: ignore[reportAttributeAccessIssue]
_C._VariableFunctions = TorchNamespace("torch._C._VariableFunctions")  # pyright: ignore[reportAttributeAccessIssue]
_C._get_tracing_state = ACTIVE.current  # pyright: ignore[reportAttributeAccessIssue]
_VF = TorchNamespace("torch._VF")
linalg = TorchNamespace("torch.linalg", prefix="linalg_")
special = TorchNamespace("torch.special", prefix="special_")
fft = TorchNamespace("torch.fft", prefix="fft_")
ops = OperatorNamespace()


def _as_operators(names: tuple[str, ...]) -> None:
    """The Python functions above that scripted code calls as operators."""
    for name in names:
        globals()[name] = PythonOperator(f"aten::{name}", f"torch.{name}", globals()[name])


_as_operators(("tensor", "as_tensor", "numel", "is_floating_point", "is_grad_enabled", "set_grad_enabled",
               "manual_seed"))  # fmt: skip


def __getattr__(name: str) -> TorchBuiltin:
    """`torch.cat` and every other operator: `aten::<name>`, eager in Python."""
    from tsjit.dialects.schema import has_operator

    if not name.startswith("__") and has_operator(f"aten::{name}"):
        builtin = globals()[name] = TorchBuiltin(f"aten::{name}", f"torch.{name}")
        return builtin
    raise AttributeError(f"module 'torch' has no attribute '{name}'")


from tsjit.frontend.torch_shim import _builtins as _jit_internal  # noqa: E402, F401
from tsjit.frontend.torch_shim import jit, nn  # noqa: E402
from tsjit.frontend.torch_shim.nn import functional  # noqa: E402, F401

__all__ = [
    "Generator", "Size", "Tensor", "as_tensor", "device", "dtype", "enable_grad", "fft", "from_numpy", "generator",
    "get_default_dtype", "get_num_interop_threads", "set_num_interop_threads", "is_floating_point", "is_grad_enabled", "is_tensor", "jit", "linalg", "manual_seed",
    "nn", "no_grad", "numel", "ops", "set_grad_enabled", "special", "tensor", "to_dtype",
]  # fmt: skip
