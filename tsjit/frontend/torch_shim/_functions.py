"""Calls PyTorch answers in Python or in its tracer rather than with the operator of
their name, written as PyTorch does so that a trace records the same nodes:

- `torch.norm` / `Tensor.norm` (torch/functional.py) call `aten::linalg_vector_norm`
  or `aten::linalg_matrix_norm`;
- `Tensor.split` with a list of sizes calls `aten::split_with_sizes`;
- convolutions are never recorded as themselves (PyTorch's tracer skips `conv2d`,
  `convolution`, ...: `DONT_RECORD_TRACE`), but as the `aten::_convolution` they call,
  when the runtime has a kernel for it.

`PYTHON_OPERATORS` maps an operator to its Python function; `_dispatch.function`
returns that function instead of the operator's own for `torch.X`, `Tensor.X` and
`torch.nn.functional.X`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tsjit.frontend.torch_shim._tensor import Tensor


def _operator(name: str) -> Callable[..., Any]:
    """The eager function of the operator itself (made once per name)."""
    found = _OPERATORS.get(name)
    if found is None:
        from tsjit.frontend.torch_shim._dispatch import operator_function

        found = _OPERATORS[name] = operator_function(name, f"torch.{name.partition('::')[2]}")
    return found


_OPERATORS: dict[str, Callable[..., Any]] = {}


def norm(input: Tensor, p: Any = "fro", dim: Any = None, keepdim: bool = False, dtype: Any = None) -> Any:
    dims = [dim] if isinstance(dim, int) else dim
    if isinstance(p, str):
        if p == "fro" and (dim is None or isinstance(dim, int) or len(dim) <= 2):
            return _operator("aten::linalg_vector_norm")(input, 2, dims, keepdim, dtype=dtype)
        if dims is None:
            dims = list(range(input.dim()))
        return _operator("aten::linalg_matrix_norm")(input, p, dims, keepdim, dtype=dtype)
    return _operator("aten::linalg_vector_norm")(input, 2.0 if p is None else p, dims, keepdim, dtype=dtype)


def split(tensor: Tensor, split_size_or_sections: Any, dim: int = 0) -> Any:
    if isinstance(split_size_or_sections, (int, Tensor)):
        return _operator("aten::split")(tensor, split_size_or_sections, dim)
    return _operator("aten::split_with_sizes")(tensor, list(split_size_or_sections), dim)


def _convolution(dims: int, transposed: bool) -> Callable[..., Any]:
    """`conv{dims}d` (or its transposed form) as PyTorch's tracer sees it: the
    `aten::_convolution` it calls, with the parameters expanded to `dims` values."""
    name = f"conv_transpose{dims}d" if transposed else f"conv{dims}d"

    def expand(value: Any) -> list[Any]:
        return list(value) if isinstance(value, (list, tuple)) else [value] * dims

    def convolution(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1, padding: Any = 0,
                    *rest: Any) -> Any:  # fmt: skip
        if transposed:
            output_padding, groups, dilation = (list(rest) + [0, 1, 1][len(rest) :])[:3]
        else:
            dilation, groups = (list(rest) + [1, 1][len(rest) :])[:2]
            output_padding = 0
        if isinstance(padding, str) or input.dim() != dims + 2 or not _has_kernel("aten::_convolution"):
            return _operator(f"aten::{name}")(input, weight, bias, stride, padding, *rest)
        return _operator("aten::_convolution")(
            input, weight, bias, expand(stride), expand(padding), expand(dilation), transposed,
            expand(output_padding), groups, False, False, True, True,
        )  # fmt: skip

    convolution.__name__ = name
    return convolution


def _has_kernel(overload: str) -> bool:
    from tsjit.runtime import kernels

    return kernels.lookup(overload) is not None


PYTHON_OPERATORS: dict[str, Callable[..., Any]] = {
    "aten::norm": norm,
    "aten::split": split,
    **{f"aten::conv{d}d": _convolution(d, False) for d in (1, 2, 3)},
    **{f"aten::conv_transpose{d}d": _convolution(d, True) for d in (1, 2, 3)},
}
"""Operators answered by a Python function (which calls other operators)."""
