"""numpy kernels for TorchScript operators, keyed by qualified overload name.

A kernel is a plain function over run-time values (`tsjit.runtime.values`). The interpreter
passes every schema argument positionally in schema order (defaults and keyword-only
arguments included, varargs schemas get the rest) and receives the single result, a tuple
for several results, or None. Kernels raise `TorchScriptError` with PyTorch's messages.

Kernels compute IEEE special values (inf, nan) silently, as PyTorch does; numpy would warn,
so callers run them with numpy's errors ignored (`float_errors`, once per graph run:
per call it would cost more than most kernels).

    from tsjit.runtime.kernels import lookup
    lookup("aten::add.Tensor")(x, y, 1)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Kernel = Callable[..., Any]

KERNELS: dict[str, Kernel] = {}
"""Every registered kernel by qualified overload name (`aten::add.Tensor`, `aten::relu`)."""


def kernel(*names: str) -> Callable[[Kernel], Kernel]:
    """Register the decorated function as the kernel of each named overload."""

    def register(fn: Kernel) -> Kernel:
        for name in names:
            register_kernel(name, fn)
        return fn

    return register


def register_kernel(name: str, fn: Kernel) -> None:
    """Register `fn` for one overload; families that build kernels from tables use this."""
    if name in KERNELS:
        raise ValueError(f"two kernels registered for {name}")
    if "::" not in name:
        raise ValueError(f"kernel name {name!r} is not a qualified overload name (ns::name.overload)")
    KERNELS[name] = fn


def lookup(name: str) -> Kernel | None:
    """The kernel of a qualified overload name, or None when the runtime has none. An
    `out=` overload without a kernel of its own runs its functional overload's
    (`out_variant`)."""
    found = KERNELS.get(name)
    if found is None and (found := out_variant(name)) is not None:
        KERNELS[name] = found
    return found


def out_variant(name: str) -> Kernel | None:
    """The kernel of an `out=` overload (`aten::div.out`: the arguments of
    `aten::div.Tensor`, then `*, Tensor(a!) out`) from its functional overload's: the
    result is written into `out`, as PyTorch's structured kernels do; None when there is
    no such pair."""
    from tsjit.dialects.schema import schemas_for

    operator, _, overload = name.partition(".")
    overloads = schemas_for(operator)
    schema = next((s for s in overloads if s.overload_name == overload), None)
    if schema is None or not schema.arguments or len(schema.returns) != 1:
        return None
    out = schema.arguments[-1]
    if not (out.kwarg_only and out.is_write and out.type_text.startswith("Tensor")) or schema.mutated_arguments() != (
        len(schema.arguments) - 1,
    ):
        return None
    inputs = [(a.name, a.type_text) for a in schema.arguments[:-1]]
    for base in overloads:
        if not base.is_mutable and [(a.name, a.type_text) for a in base.arguments] == inputs:
            functional = KERNELS.get(base.qualified_name)
            if functional is not None:
                return _writing_out(functional)
    return None


def _writing_out(functional: Kernel) -> Kernel:
    def kernel_out(*args: Any) -> Any:
        from tsjit.runtime.kernels.common import write_out

        return write_out(functional(*args[:-1]), args[-1])

    return kernel_out


# The families register themselves on import; keep this list in step with the package.
from tsjit.runtime.kernels import (  # noqa: E402, F401
    activation,
    arith,
    attention,
    autograd,
    backward,
    compare,
    complex,
    convolution,
    dicts,
    factory,
    fft,
    indexing,
    interpolation,
    linalg,
    linear_algebra,
    lists,
    loss,
    nn,
    padding,
    pooling,
    prim,
    reduction,
    sampling,
    scalar,
    shape,
    special_ops,
    statistics,
    strided,
    strings,
    unary,
)
