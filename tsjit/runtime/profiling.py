"""What the `profile` dialect does at run time: recording types, checking them.

`profile.profile` records, per profiled value, what it saw across runs: dtype, sizes,
strides (in elements), device and requires_grad (read as `getattr(t, "requires_grad",
False)`, the runtime's contract), merged as PyTorch's `TensorType::merge` does: a
property that differs between runs becomes unknown (a size that differs becomes `?`, a
rank that differs leaves the rank unknown). The record lives where PyTorch keeps it, on
the op: its `seen_types` property, rewritten only when the merged type changes.

`profile.type_check` runs a check generated once per list of expected types: straight-
line Python comparing each array's class, dtype, shape and strides with constants, so a
guarded fast path allocates nothing but its result tuple.

    record = profile_recorder(op)        # the interpreter's callable for one profile op
    check = type_checker([t0, t1])       # check(x, y) -> (x, y, matched)
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from xdsl.dialects.builtin import ArrayAttr
from xdsl.ir import Attribute

from tsjit.dialects.profile import ProfileOp
from tsjit.dialects.types import DTYPE_BY_ELEMENT, DTYPE_BY_TORCH_NAME, TensorType, is_subtype_of
from tsjit.runtime.autograd.variable import Variable, requires_grad

# --------------------------------------------------------------------------------------
# Observations
# --------------------------------------------------------------------------------------

Observed = tuple[Any, tuple[int | None, ...] | None, tuple[int, ...] | None, str | None, bool | None]
"""What is known of a tensor: (numpy dtype, sizes, element strides, device,
requires_grad); None for what is unknown (sizes may hold None for unknown dims)."""

UNKNOWN: Observed = (None, None, None, None, None)


def observe(value: Any) -> Observed:
    """What a run-time value tells about the tensor type of its use (a Variable: its
    array, and whether it requires grad)."""
    grad = False
    if isinstance(value, Variable):
        grad = requires_grad(value)
        value = value.array
    if not isinstance(value, np.ndarray):
        return UNKNOWN
    itemsize = value.itemsize
    strides = value.strides
    elements = tuple(s // itemsize for s in strides) if itemsize and not any(s % itemsize for s in strides) else None
    return (value.dtype, value.shape, elements, "cpu", grad)


def merge(a: Observed, b: Observed) -> Observed:
    """The most specific description of both (PyTorch's `TensorType::merge`)."""
    if a == b:
        return a
    dtype = a[0] if a[0] == b[0] else None
    sizes_a, sizes_b = a[1], b[1]
    if sizes_a is not None and sizes_b is not None and len(sizes_a) == len(sizes_b):
        sizes: tuple[int | None, ...] | None = tuple(x if x == y else None for x, y in zip(sizes_a, sizes_b))
    else:
        sizes = None
    strides = a[2] if a[2] == b[2] else None
    device = a[3] if a[3] == b[3] else None
    grad = a[4] if a[4] == b[4] else None
    return (dtype, sizes, strides, device, grad)


def observed_type(observed: Observed) -> TensorType:
    """The tensor type of an observation; strides only with fully known sizes."""
    dtype, sizes, strides, device, grad = observed
    dtype_info = DTYPE_BY_TORCH_NAME.get(dtype.name) if dtype is not None else None
    element = dtype_info.element if dtype_info is not None else None
    if sizes is None or None in sizes:
        strides = None
    return TensorType(element, None if sizes is None else list(sizes), device, grad, strides)


def profile_recorder(op: ProfileOp) -> Callable[..., Any]:
    """The interpreter's callable for `op`: passes its values through and merges what
    it sees into `op.seen_types`. A seen type that does not refine the value's declared
    type (a graph whose annotations lie) records the declared type instead."""
    declared = [v.type for v in op.profiled]
    merged: list[Observed | None] = [None] * len(declared)

    def write() -> None:
        types: list[Attribute] = []
        for observed, want in zip(merged, declared):
            seen = observed_type(observed) if observed is not None else TensorType()
            types.append(seen if is_subtype_of(seen, want) else want)
        op.properties["seen_types"] = ArrayAttr(types)

    def record(*values: Any) -> Any:
        changed = False
        for k, value in enumerate(values):
            observed = observe(value)
            previous = merged[k]
            now = observed if previous is None else merge(previous, observed)
            if now != previous:
                merged[k] = now
                changed = True
        if changed:
            write()
        return values[0] if len(values) == 1 else values

    return record


# --------------------------------------------------------------------------------------
# Checks
# --------------------------------------------------------------------------------------


def numpy_dtype(t: TensorType) -> np.dtype | None:
    info = DTYPE_BY_ELEMENT.get(t.dtype)
    if info is None:
        return None
    try:
        return np.dtype(info.torch_name)
    except TypeError:  # bfloat16: no numpy dtype, no array can match
        return None


def type_checker(expected: Sequence[Attribute], variables: bool = True) -> Callable[..., tuple[Any, ...]]:
    """`check(*values) -> (*values, matched)` for `profile.type_check` (see the module
    docstring); cached per list of types, so equal guards share one function. Without
    `variables` (a program that records no gradients, whose code computes on arrays),
    a Variable matches no tensor type; the check's `variables` attribute says which."""
    return _type_checker(tuple(expected), variables)


def matches(expected: Sequence[Attribute]) -> Callable[..., bool]:
    """Only whether values match `expected` (what `graph_for` asks)."""
    return _type_matcher(tuple(expected))


@functools.cache
def _type_checker(expected: tuple[Attribute, ...], variables: bool = True) -> Callable[..., tuple[Any, ...]]:
    names = [f"v{k}" for k in range(len(expected))]
    namespace: dict[str, Any] = {"ndarray": np.ndarray, "getattr": getattr, "isinstance": isinstance}
    tests = [type_test(name, t, f"c{k}", namespace, variables) for k, (name, t) in enumerate(zip(names, expected))]
    condition = " and ".join(f"({t})" for t in tests) or "True"
    source = f"def check({', '.join(names)}):\n    return ({', '.join(names)}, {condition})\n"
    exec(compile(source, "<tsjit type check>", "exec"), namespace)  # noqa: S102 -- generated from the types
    check = namespace["check"]
    check.variables = variables
    return check


@functools.cache
def _type_matcher(expected: tuple[Attribute, ...]) -> Callable[..., bool]:
    check = _type_checker(expected)

    def matched(*values: Any) -> bool:
        return bool(check(*values)[-1])

    return matched


def type_test(name: str, t: Attribute, prefix: str, namespace: dict[str, Any], variables: bool = True) -> str:
    """A Python expression true when the variable `name` holds a value of type `t`; the
    constants it compares with are put in `namespace` under names starting `prefix`.
    A tensor is an array, or a Variable (whose array is tested) where gradients are
    recorded (`variables`): one that requires grad matches `requires_grad = true`, any
    other tensor `requires_grad = false`."""
    namespace["ndarray"] = np.ndarray
    if not isinstance(t, TensorType):
        return "True"
    namespace["Variable"] = Variable
    namespace["requires_grad"] = requires_grad
    grad = t.grad
    condition = " and ".join(_array_tests(name, t, prefix, namespace)) or "True"
    if condition == "False":
        return "False"
    if not variables:
        if grad is True:
            return "False"
        kind = f"{name}.__class__ is ndarray" if grad is False else f"isinstance({name}, ndarray)"
        return f"({kind} and {condition})"
    array = f"{name}.array"
    variable_condition = " and ".join(_array_tests(array, t, prefix, namespace)) or "True"
    if grad is False:
        return (f"(({name}.__class__ is ndarray and {condition}) or (isinstance({name}, Variable) and "
                f"not requires_grad({name}) and {variable_condition}))")  # fmt: skip
    if grad is True:
        return f"(isinstance({name}, Variable) and requires_grad({name}) and {variable_condition})"
    return (f"((isinstance({name}, ndarray) and {condition}) or (isinstance({name}, Variable) and "
            f"{variable_condition}))")  # fmt: skip


def exact_array_test(name: str, t: Attribute, prefix: str, namespace: dict[str, Any]) -> str | None:
    """The part of `type_test` that the usual value passes: an ndarray itself (no
    Variable, no subclass) of `t`'s dtype, sizes and strides; None when no array
    matches (`t` requires grad). Where it holds, so does `type_test`."""
    namespace["ndarray"] = np.ndarray
    if not isinstance(t, TensorType):
        return "True"
    if t.grad is True:
        return None
    return " and ".join([f"type({name}) is ndarray", *_array_tests(name, t, prefix, namespace)])


def _array_tests(name: str, t: TensorType, prefix: str, namespace: dict[str, Any]) -> list[str]:
    """Tests of the array in the variable `name` against `t` (but requires_grad)."""
    parts: list[str] = []
    if t.element_type is not None:
        dtype = numpy_dtype(t)
        if dtype is None:
            return ["False"]
        namespace[f"{prefix}d"] = dtype
        parts.append(f"({name}.dtype is {prefix}d or {name}.dtype == {prefix}d)")
    shape = t.shape
    strides = t.stride_values
    if shape is not None:
        if None not in shape and strides is not None and len(strides) == len(shape) <= 1:
            # the strides test fixes the rank: then the element count fixes the sizes,
            # and costs less to read than the shape
            parts += [f"{name}.size == {size}" for size in shape]
        elif None not in shape:
            namespace[f"{prefix}s"] = tuple(shape)
            parts.append(f"{name}.shape == {prefix}s")
        else:
            parts.append(f"{name}.ndim == {len(shape)}")
            parts += [f"{name}.shape[{d}] == {size}" for d, size in enumerate(shape) if size is not None]
    if strides is not None:
        if t.element_type is not None and (dtype := numpy_dtype(t)) is not None:
            namespace[f"{prefix}t"] = tuple(s * dtype.itemsize for s in strides)
            parts.append(f"{name}.strides == {prefix}t")
        else:
            namespace[f"{prefix}t"] = tuple(strides)
            parts.append(f"tuple(s // {name}.itemsize for s in {name}.strides) == {prefix}t")
    device = t.device_name
    if device is not None and device != "cpu":
        return ["False"]  # the numpy runtime's tensors are on the CPU
    return parts
