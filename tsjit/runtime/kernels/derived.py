"""Kernels of `out=` and in-place overloads, made from their functional siblings.

PyTorch gives most operators an overload that writes its results into tensors the
caller passes (`aten::linalg_vector_norm.out(..., *, Tensor(a!) out) -> Tensor(a!)`),
which scripted library code such as `torch.functional.norm` calls on some branches, and
an in-place form (`aten::lgamma_(Tensor(a!) self)`). Each is its functional sibling plus
a copy: the `out=` overload is the overload of the same operator taking its other
arguments, the in-place one the operator without the trailing underscore taking the
same arguments. So their kernels are derived, not written. The copy follows PyTorch's
rules: the result's dtype must be castable to the written tensor's (`canCast`); a
result of another shape would need the written tensor resized, which a numpy array
cannot do in place, so that is an error (in place, PyTorch's own error).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from tsjit.dialects.schema import FunctionSchema, schemas_for
from tsjit.runtime.errors import TorchScriptError
from tsjit.runtime.kernels.common import assign, shape_str
from tsjit.runtime.kernels.promotion import check_cast

Kernel = Callable[..., Any]


def derived_kernel(schema: FunctionSchema, functional: Callable[[str], Kernel | None]) -> Kernel | None:
    """The kernel of an `out=` or in-place overload whose functional sibling
    `functional(qualified overload name)` can run; None otherwise."""
    return _out_variant(schema, functional) or _in_place(schema, functional)


def _out_variant(schema: FunctionSchema, functional: Callable[[str], Kernel | None]) -> Kernel | None:
    sibling = _functional_sibling(schema)
    if sibling is None:
        return None
    compute = functional(sibling.qualified_name)
    if compute is None:
        return None
    outs = tuple(i for i, a in enumerate(schema.arguments) if a.kwarg_only and a.is_write)
    ins = tuple(i for i in range(len(schema.arguments)) if i not in outs)
    name = schema.qualified_name

    def run(*args: Any) -> Any:
        results = compute(*(args[i] for i in ins))
        if len(outs) == 1:
            return _store(args[outs[0]], results, name)
        return tuple(_store(args[i], r, name) for i, r in zip(outs, results, strict=True))

    return run


@functools.cache
def _functional_sibling(schema: FunctionSchema) -> FunctionSchema | None:
    """The overload of the same operator taking `schema`'s arguments minus its
    keyword-only written `out` tensors, and writing nothing."""
    outs = [a for a in schema.arguments if a.kwarg_only and a.is_write]
    if not outs or len(outs) != len(schema.returns):
        return None
    wanted = [(a.name, a.type) for a in schema.arguments if not (a.kwarg_only and a.is_write)]
    for candidate in schemas_for(schema.name):
        if candidate.is_mutable or len(candidate.returns) != len(outs):
            continue
        if [(a.name, a.type) for a in candidate.arguments] == wanted:
            return candidate
    return None


def _in_place(schema: FunctionSchema, functional: Callable[[str], Kernel | None]) -> Kernel | None:
    sibling = _out_of_place_sibling(schema)
    if sibling is None:
        return None
    compute = functional(sibling.qualified_name)
    if compute is None:
        return None

    def run(self: Any, *args: Any) -> Any:
        result = compute(self, *args)
        if type(result) is not np.ndarray:
            raise TorchScriptError(f"{schema.qualified_name}: expected a tensor result to write")
        check_cast(result.dtype, self.dtype)
        if result.shape != self.shape:  # never broadcast into self: in place, the shape cannot change
            raise TorchScriptError(
                f"{schema.qualified_name}: output with shape {shape_str(self.shape)} doesn't match the result "
                f"shape {shape_str(result.shape)} (the numpy runtime does not change a tensor's shape in place)"
            )
        return assign(self, result)

    return run


@functools.cache
def _out_of_place_sibling(schema: FunctionSchema) -> FunctionSchema | None:
    """`aten::foo.overload` for `aten::foo_.overload(Tensor(a!) self, ...)`, with the same
    arguments, writing nothing."""
    name = schema.name
    if not name.endswith("_") or name.endswith("__") or not schema.arguments or not schema.arguments[0].is_write:
        return None
    if len(schema.returns) != 1 or any(a.is_write for a in schema.arguments[1:]):
        return None
    wanted = [(a.name, a.type) for a in schema.arguments]
    for candidate in schemas_for(name[:-1]):
        if candidate.overload_name != schema.overload_name or candidate.is_mutable:
            continue
        if [(a.name, a.type) for a in candidate.arguments] == wanted and len(candidate.returns) == 1:
            return candidate
    return None


def _store(out: object, result: object, name: str) -> object:
    if type(out) is not np.ndarray or type(result) is not np.ndarray:
        raise TorchScriptError(f"{name}: expected tensors for out= and the result")
    check_cast(result.dtype, out.dtype)
    if out.shape != result.shape:
        raise TorchScriptError(
            f"{name}: the out= tensor has shape {shape_str(out.shape)} but the result has shape "
            f"{shape_str(result.shape)}; the numpy runtime cannot resize a tensor in place"
        )
    np.copyto(out, result, casting="unsafe")
    return out
