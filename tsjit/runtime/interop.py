"""Values from the user's world in and out of the runtime: numpy arrays, Python scalars,
tsjit's torch shim and (when the user has it) PyTorch.

Every tsjit callable (`tsjit.script`, `tsjit.trace`, `tsjit.compile` of a loaded
program) goes through `call`: tensors become the numpy arrays the runtime works on
without a copy (a PyTorch tensor through DLPack, so a transposed or sliced tensor keeps
its strides and an in-place op of the program writes through to it), and when the
caller passed PyTorch tensors, tensors in the result come back as PyTorch tensors
(`torch.from_numpy`: again no copy; a result numpy cannot lend, read-only or with
negative strides, is copied first).

PyTorch is never imported here: a value is a PyTorch tensor only if `torch` is already
in `sys.modules` (whoever made the tensor imported it) and is not tsjit's shim.
This module is the one place conversion happens; autograd state (requires_grad,
.grad) belongs here too when the runtime grows it.
"""

from __future__ import annotations

import enum
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from tsjit.runtime.autograd.variable import Variable
from tsjit.runtime.errors import TorchScriptError

_PLAIN = frozenset({np.ndarray, int, float, bool, str, type(None)})
"""Argument types the runtime takes as they are (the fast path checks only these)."""


def call(function: Callable[..., Any], args: tuple[Any, ...], keep_variables: bool = False) -> Any:
    """`function(*args)` on runtime values, its result in the kind of values given; a
    program's exception carries its TorchScript traceback as a note. With
    `keep_variables`, Variables (the shim's Tensors) stay themselves: `function`
    records gradients."""
    torch = None
    for arg in args:
        if type(arg) not in _PLAIN:
            args, torch = to_runtime_arguments(args, keep_variables)
            break
    try:
        result = function(*args)
    except TorchScriptError as error:
        with_traceback_note(error)
        raise
    return result if torch is None else to_torch(result, torch)


class Compiled:
    """What `tsjit.compile` returns: its executor, called through `call`; the
    executor's other members (`graph_for`, `cache_size`, ...) are the wrapper's."""

    __slots__ = ("executor",)

    def __init__(self, executor: Callable[..., Any]):
        self.executor = executor

    def __call__(self, *args: Any) -> Any:
        return call(self.executor, args, getattr(self.executor, "autograd", False))

    def graph_for(self, *args: Any) -> Any:
        return self.executor.graph_for(*to_runtime_arguments(args)[0])  # pyright: ignore[reportAttributeAccessIssue]

    def __getattr__(self, name: str) -> Any:
        return getattr(self.executor, name)

    def __repr__(self) -> str:
        return f"<tsjit.compile of {self.executor!r}>"


def to_runtime_arguments(args: tuple[Any, ...], keep_variables: bool = False) -> tuple[tuple[Any, ...], Any]:
    """The runtime values of `args`, and the torch module when any of them was a
    PyTorch tensor (results are then given back as PyTorch tensors)."""
    torch = _real_torch()
    state = _Conversion(torch, keep_variables)
    converted = tuple(state.value(a) for a in args)
    return converted, torch if state.saw_torch else None


def to_runtime(value: Any) -> Any:
    """One value (a tensor of any kind, a scalar, a container of them) as the runtime
    takes it."""
    return _Conversion(_real_torch()).value(value)


class _Conversion:
    def __init__(self, torch: Any, keep_variables: bool = False):
        self.torch = torch
        self.keep_variables = keep_variables
        self.saw_torch = False

    def value(self, value: Any) -> Any:
        kind = type(value)
        if kind in _PLAIN:
            return value
        if self.torch is not None and isinstance(value, self.torch.Tensor):
            self.saw_torch = True
            return torch_array(value)
        array = getattr(value, "array", None)
        if isinstance(array, np.ndarray) and _is_shim_tensor(value):
            return value if self.keep_variables and isinstance(value, Variable) else array
        if kind is list:
            return [self.value(v) for v in value]
        if isinstance(value, tuple):
            converted = [self.value(v) for v in value]
            return kind(converted) if kind is tuple else _same_tuple(value, converted)
        if kind is dict:
            return {self.value(k): self.value(v) for k, v in value.items()}
        if hasattr(value, "__dlpack__") and hasattr(value, "__dlpack_device__"):
            return np.from_dlpack(value)  # another array library's tensor
        if isinstance(value, enum.Enum) or hasattr(value, "__dict__"):
            from tsjit.frontend.modules import runtime_value  # Enum members, objects of user classes

            return runtime_value(value)
        return value


def torch_array(tensor: Any) -> np.ndarray:
    """A PyTorch CPU tensor's memory as a numpy array (strides kept), without a copy;
    a tensor on another device is copied to the CPU, whose memory the runtime uses."""
    tensor = tensor.detach()
    if tensor.device.type != "cpu":
        tensor = tensor.cpu()
    if tensor.is_conj():
        tensor = tensor.resolve_conj()
    if tensor.is_neg():
        tensor = tensor.resolve_neg()
    try:
        return np.from_dlpack(tensor)
    except (BufferError, TypeError, RuntimeError) as error:  # bfloat16 and friends
        raise TypeError(f"a PyTorch tensor of dtype {tensor.dtype} has no numpy counterpart: {error}") from None


def to_torch(value: Any, torch: Any) -> Any:
    """Tensors (numpy arrays) in a result as PyTorch tensors sharing their memory."""
    kind = type(value)
    if kind is np.ndarray:
        if not value.flags.writeable or any(s < 0 for s in value.strides):
            value = np.array(value)  # numpy cannot lend it: a copy of its own
        try:
            return torch.from_numpy(value)
        except (TypeError, ValueError):  # strides PyTorch cannot express
            return torch.from_numpy(np.ascontiguousarray(value))
    if kind is list:
        return [to_torch(v, torch) for v in value]
    if isinstance(value, tuple):
        converted = [to_torch(v, torch) for v in value]
        return kind(converted) if kind is tuple else _same_tuple(value, converted)
    if kind is dict:
        return {k: to_torch(v, torch) for k, v in value.items()}
    return value


def with_traceback_note(error: TorchScriptError) -> TorchScriptError:
    """The error, with PyTorch's TorchScript traceback as a note Python prints."""
    if error.frames and not any("TorchScript interpreter" in n for n in getattr(error, "__notes__", ())):
        error.add_note(error.traceback())
    return error


def _real_torch() -> Any:
    torch = sys.modules.get("torch")
    return torch if torch is not None and torch.__name__ == "torch" else None  # not the shim


def _is_shim_tensor(value: Any) -> bool:
    return type(value).__module__.startswith("tsjit.")


def _same_tuple(original: tuple[Any, ...], items: list[Any]) -> tuple[Any, ...]:
    """A tuple subclass (a NamedTuple value) rebuilt with converted items."""
    from tsjit.runtime.values import NamedTupleValue

    if isinstance(original, NamedTupleValue):
        return NamedTupleValue(items, original.qualified_name, original.fields)
    try:
        return type(original)(*items)  # a Python NamedTuple
    except TypeError:
        return tuple(items)
