"""Reductions: sum, mean, prod, max/min (all overloads), argmax, std/var, norm, all/any,
cumulative ops, logsumexp, sort/topk/median.

`dim` arguments arrive as int lists (`int[1]? dim`) or ints; None and [] mean every
dimension. A 0-dim tensor accepts dim 0 / -1 and reduces to itself, as in PyTorch.
Integral and bool sums and products accumulate in int64; indices are int64 tensors.
The ufuncs' own `reduce` is called directly: `np.sum` and friends add microseconds of
Python dispatch per call, more than the reduction of a small tensor costs.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from tsjit.runtime.errors import TorchScriptError
from tsjit.runtime.kernels import Kernel, kernel, register_kernel
from tsjit.runtime.kernels.common import as_tensor, assign, wrap_dim, wrap_dims
from tsjit.runtime.kernels.promotion import DEFAULT_DTYPE, LONG_DTYPE, float_dtype
from tsjit.runtime.values import dtype_name, numpy_dtype

ndarray = np.ndarray
Dims = Sequence[int] | int | None
Statistic = Callable[[ndarray, Dims, object, bool], object]


def axes(dim: Dims, ndim: int) -> tuple[int, ...] | None:
    """numpy axes of a PyTorch dim argument; None reduces everything."""
    if dim is None:
        return None
    if type(dim) is not int:
        if len(dim) != 1:
            if not dim:
                return None
            wrapped = wrap_dims(dim, ndim)
            return wrapped if ndim else None
        dim = dim[0]
    if 0 <= dim < ndim:  # `x.sum(1)`, inline: the common case costs a reduction of a small tensor
        return (dim,)
    wrapped_dim = wrap_dim(dim, ndim)  # a 0-dim tensor accepts 0 and -1 and reduces to itself
    return (wrapped_dim,) if ndim else None


def _accumulation_dtype(x: ndarray, dtype: int | None) -> ndarray:
    """Cast for sum/prod/cumsum: an explicit dtype first, else integral inputs widen to int64."""
    if dtype is not None:
        return x.astype(numpy_dtype(dtype), copy=False)
    if x.dtype.kind in "iub":
        return x.astype(LONG_DTYPE, copy=False)
    return x


def mean_of(x: ndarray, axis: tuple[int, ...] | None, keepdims: bool) -> ndarray:
    """The mean of a float tensor over `axis` (half precision accumulates in float32)."""
    if axis is None:
        count = x.size
    else:
        count = x.shape[axis[0]] if len(axis) == 1 else math.prod([x.shape[a] for a in axis])
    accumulate = np.float32 if x.dtype.char == "e" else None  # half precision
    total = np.add.reduce(x, axis=axis, keepdims=keepdims, dtype=accumulate)
    return as_tensor((total / count).astype(x.dtype, copy=False))


def _floating_only(x: ndarray, dtype: int | None, error: str) -> ndarray:
    """x, cast to `dtype` if given; it must then be floating or complex, or `error` (formatted
    with its dtype's name) is raised."""
    if dtype is not None:
        x = x.astype(numpy_dtype(dtype), copy=False)
    if x.dtype.kind not in "fc":
        raise TorchScriptError(error.format(dtype_name(x.dtype)))
    return x


_MEAN_ERROR = (
    "mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. "
    "Got: {}"
)


@kernel("aten::nansum")
def nansum(self: ndarray, dim: Dims = None, keepdim: bool = False, dtype: int | None = None) -> ndarray:
    x = _accumulation_dtype(self, dtype)
    return as_tensor(np.nansum(x, axis=axes(dim, x.ndim), keepdims=keepdim))


@kernel("aten::mean")
def mean_all(self: ndarray, dtype: int | None = None) -> ndarray:
    return mean_of(_floating_only(self, dtype, _MEAN_ERROR), None, False)


@kernel("aten::mean.dim")
def mean(self: ndarray, dim: Dims, keepdim: bool = False, dtype: int | None = None) -> ndarray:
    x = _floating_only(self, dtype, _MEAN_ERROR)
    return mean_of(x, axes(dim, x.ndim), keepdim)


def accumulating_overloads(ufunc: np.ufunc) -> tuple[Kernel, Kernel]:
    """The kernels of `op(self, dtype)` and `op.dim(self, dim, keepdim, dtype)` for sum and prod."""

    def over_all(self: ndarray, dtype: int | None = None) -> ndarray:
        return as_tensor(ufunc.reduce(_accumulation_dtype(self, dtype), axis=None))

    def over_dims(self: ndarray, dim: Dims, keepdim: bool = False, dtype: int | None = None) -> ndarray:
        x = self if dtype is None and self.dtype.kind in "fc" else _accumulation_dtype(self, dtype)
        if type(dim) is list and len(dim) == 1 and 0 <= dim[0] < x.ndim:  # `x.sum(1)`: `axes`, inline
            axis: int | tuple[int, ...] | None = dim[0]
        else:
            axis = axes(dim, x.ndim)
        result = ufunc.reduce(x, axis, None, None, keepdim)  # positional: numpy parses them faster
        return result if type(result) is ndarray else np.asarray(result)  # as_tensor, inline

    return over_all, over_dims


for _names, _ufunc in (
    (("aten::sum", "aten::sum.dim_IntList"), np.add),
    (("aten::prod", "aten::prod.dim_int"), np.multiply),
):
    for _name, _kernel in zip(_names, accumulating_overloads(_ufunc), strict=True):
        register_kernel(_name, _kernel)


# --------------------------------------------------------------------------------------
# max / min / argmax / argmin
# --------------------------------------------------------------------------------------


def _check_nonempty(x: ndarray, op: str, dim: int | None = None) -> None:
    if dim is None and x.size == 0:
        raise TorchScriptError(
            f"{op}(): Expected reduction dim to be specified for input.numel() == 0. "
            "Specify the reduction dim with the 'dim' argument."
        )
    if dim is not None and x.ndim and x.shape[dim] == 0:
        raise TorchScriptError(f"{op}(): Expected reduction dim {dim} to have non-zero size.")


@kernel("aten::max")
def max_all(self: ndarray) -> ndarray:
    _check_nonempty(self, "max")
    return as_tensor(np.maximum.reduce(self, axis=None))


@kernel("aten::min")
def min_all(self: ndarray) -> ndarray:
    _check_nonempty(self, "min")
    return as_tensor(np.minimum.reduce(self, axis=None))


def _reduce_with_index(
    x: ndarray, dim: int, keepdim: bool, op: str, reduce: np.ufunc, arg
) -> tuple[ndarray, ndarray]:
    """(values, int64 indices) along dim; ties and NaN pick the first position, as in PyTorch."""
    d = wrap_dim(dim, x.ndim)
    _check_nonempty(x, op, d)
    if x.ndim == 0:
        return x.copy(), np.zeros((), dtype=np.int64)
    values = as_tensor(reduce.reduce(x, axis=d, keepdims=keepdim))
    return values, np.asarray(arg(x, axis=d, keepdims=keepdim), dtype=np.int64)


@kernel("aten::max.dim")
def max_dim(self: ndarray, dim: int, keepdim: bool = False) -> tuple[ndarray, ndarray]:
    return _reduce_with_index(self, dim, keepdim, "max", np.maximum, np.argmax)


@kernel("aten::min.dim")
def min_dim(self: ndarray, dim: int, keepdim: bool = False) -> tuple[ndarray, ndarray]:
    return _reduce_with_index(self, dim, keepdim, "min", np.minimum, np.argmin)


def _arg_reduce(x: ndarray, dim: int | None, keepdim: bool, op: str, arg) -> ndarray:
    if dim is None:
        _check_nonempty(x, op)
        index = np.asarray(arg(x), dtype=np.int64)
        return index.reshape((1,) * x.ndim) if keepdim else index
    d = wrap_dim(dim, x.ndim)
    _check_nonempty(x, op, d)
    return (
        np.zeros((), dtype=np.int64)
        if x.ndim == 0
        else np.asarray(arg(x, axis=d, keepdims=keepdim), np.int64)
    )


@kernel("aten::argmax")
def argmax(self: ndarray, dim: int | None = None, keepdim: bool = False) -> ndarray:
    return _arg_reduce(self, dim, keepdim, "argmax", np.argmax)


@kernel("aten::argmin")
def argmin(self: ndarray, dim: int | None = None, keepdim: bool = False) -> ndarray:
    return _arg_reduce(self, dim, keepdim, "argmin", np.argmin)


def _check_reduced(x: ndarray, dims: Sequence[int], op: str) -> None:
    """Every reduced dim non-empty (all of them when `dims` is empty)."""
    if not dims or x.ndim == 0:
        _check_nonempty(x, op)
    for d in dims:
        _check_nonempty(x, op, wrap_dim(d, x.ndim))


@kernel("aten::amax")
def amax(self: ndarray, dim: Sequence[int] = (), keepdim: bool = False) -> ndarray:
    _check_reduced(self, dim, "amax")
    return as_tensor(np.maximum.reduce(self, axis=axes(dim, self.ndim), keepdims=keepdim))


@kernel("aten::amin")
def amin(self: ndarray, dim: Sequence[int] = (), keepdim: bool = False) -> ndarray:
    _check_reduced(self, dim, "amin")
    return as_tensor(np.minimum.reduce(self, axis=axes(dim, self.ndim), keepdims=keepdim))


@kernel("aten::aminmax")
def aminmax(self: ndarray, dim: int | None = None, keepdim: bool = False) -> tuple[ndarray, ndarray]:
    return amin(self, [] if dim is None else [dim], keepdim), amax(
        self, [] if dim is None else [dim], keepdim
    )


# --------------------------------------------------------------------------------------
# Statistics and norms
# --------------------------------------------------------------------------------------


def _variance(x: ndarray, dim: Dims, correction: object, keepdim: bool) -> ndarray:
    if x.dtype.kind not in "fc":
        raise TorchScriptError("std and var only support floating point and complex dtypes")
    ddof = 1 if correction is None else correction
    return as_tensor(np.var(x, axis=axes(dim, x.ndim), ddof=ddof, keepdims=keepdim))


def _deviation(x: ndarray, dim: Dims, correction: object, keepdim: bool) -> ndarray:
    return as_tensor(np.sqrt(_variance(x, dim, correction, keepdim)))


def _variance_and_mean(x: ndarray, dim: Dims, correction: object, keepdim: bool) -> tuple[ndarray, ndarray]:
    return _variance(x, dim, correction, keepdim), mean_of(x, axes(dim, x.ndim), keepdim)


def _deviation_and_mean(x: ndarray, dim: Dims, correction: object, keepdim: bool) -> tuple[ndarray, ndarray]:
    return _deviation(x, dim, correction, keepdim), mean_of(x, axes(dim, x.ndim), keepdim)


def statistic_overloads(statistic: Statistic) -> tuple[Kernel, Kernel, Kernel]:
    """The kernels of the three overloads of var & co over `statistic(x, dim, correction,
    keepdim)`: `op(self, unbiased)`, `op.dim(self, dim, unbiased, keepdim)` and
    `op.correction(self, dim, correction, keepdim)`."""

    def over_all(self: ndarray, unbiased: bool = True) -> object:
        return statistic(self, None, int(unbiased), False)

    def over_dims(self: ndarray, dim: Dims, unbiased: bool = True, keepdim: bool = False) -> object:
        return statistic(self, dim, int(unbiased), keepdim)

    def with_correction(
        self: ndarray, dim: Dims = None, correction: object = None, keepdim: bool = False
    ) -> object:
        return statistic(self, dim, correction, keepdim)

    return over_all, over_dims, with_correction


for _names, _statistic in (
    (("aten::var", "aten::var.dim", "aten::var.correction"), _variance),
    (("aten::std", "aten::std.dim", "aten::std.correction"), _deviation),
    (("aten::var_mean", "aten::var_mean.dim", "aten::var_mean.correction"), _variance_and_mean),
    (("aten::std_mean", "aten::std_mean.dim", "aten::std_mean.correction"), _deviation_and_mean),
):
    for _name, _kernel in zip(_names, statistic_overloads(_statistic), strict=True):
        register_kernel(_name, _kernel)


def vector_norm(x: ndarray, p: object, dim: Dims, keepdim: bool, dtype: int | None = None) -> ndarray:
    """linalg.vector_norm: the p-norm of the flattened `dim` slices."""
    x = _floating_only(
        x, dtype, "linalg.vector_norm: Expected a floating point or complex tensor as input. Got {}"
    )
    ax = axes(dim, x.ndim)
    magnitude = np.abs(x)
    if p == 2:
        result = np.sqrt(np.sum(magnitude * magnitude, axis=ax, keepdims=keepdim))
    elif p == 1:
        result = np.sum(magnitude, axis=ax, keepdims=keepdim)
    elif p == float("inf"):
        result = np.max(magnitude, axis=ax, keepdims=keepdim, initial=0)
    elif p == -float("inf"):
        result = np.min(magnitude, axis=ax, keepdims=keepdim)
    elif p == 0:
        result = np.sum(magnitude != 0, axis=ax, keepdims=keepdim).astype(magnitude.dtype)
    else:
        t = magnitude.dtype.type
        result = np.sum(magnitude ** t(p), axis=ax, keepdims=keepdim) ** t(1 / p)
    return as_tensor(result.astype(magnitude.dtype, copy=False))


@kernel("aten::norm.Scalar")
def norm(self: ndarray, p: object = 2) -> ndarray:
    return vector_norm(self, p, None, False)


@kernel("aten::norm.ScalarOpt_dim")
def norm_dim(self: ndarray, p: object, dim: Sequence[int], keepdim: bool = False) -> ndarray:
    return vector_norm(self, 2 if p is None else p, dim, keepdim)


@kernel("aten::norm.ScalarOpt_dim_dtype")
def norm_dim_dtype(self: ndarray, p: object, dim: Sequence[int], keepdim: bool, dtype: int) -> ndarray:
    return vector_norm(self, 2 if p is None else p, dim, keepdim, dtype)


@kernel("aten::norm.ScalarOpt_dtype")
def norm_dtype(self: ndarray, p: object, dtype: int) -> ndarray:
    return vector_norm(self, 2 if p is None else p, None, False, dtype)


@kernel("aten::linalg_vector_norm")
def linalg_vector_norm(
    self: ndarray, ord: object = 2, dim: Dims = None, keepdim: bool = False, dtype: int | None = None
) -> ndarray:
    return vector_norm(self, ord, dim, keepdim, dtype)


@kernel("aten::frobenius_norm.dim")
def frobenius_norm(self: ndarray, dim: Sequence[int], keepdim: bool = False) -> ndarray:
    return vector_norm(self, 2, dim, keepdim)


@kernel("aten::logsumexp")
def logsumexp(self: ndarray, dim: Sequence[int], keepdim: bool = False) -> ndarray:
    x = self.astype(DEFAULT_DTYPE) if self.dtype.kind in "iub" else self
    ax = axes(dim, x.ndim)
    peak = np.max(x, axis=ax, keepdims=True) if x.size else np.zeros((1,) * x.ndim, x.dtype)
    peak = np.where(np.isfinite(peak), peak, 0)
    result = np.log(np.sum(np.exp(x - peak), axis=ax, keepdims=True)) + peak
    if not keepdim:
        result = result.squeeze(ax) if ax is not None else result.reshape(())
    return as_tensor(result)


# --------------------------------------------------------------------------------------
# all / any / count_nonzero
# --------------------------------------------------------------------------------------


def _logical(x: ndarray, dim: Dims, keepdim: bool, fn) -> ndarray:
    result = as_tensor(fn(x, axis=axes(dim, x.ndim), keepdims=keepdim))
    # uint8 inputs give uint8 results, for backward compatibility in PyTorch.
    return result.astype(np.uint8) if x.dtype == np.uint8 else result


@kernel("aten::all", "aten::all.dim", "aten::all.dims")
def all_(self: ndarray, dim: Dims = None, keepdim: bool = False) -> ndarray:
    return _logical(self, dim, keepdim, np.all)


@kernel("aten::any", "aten::any.dim", "aten::any.dims")
def any_(self: ndarray, dim: Dims = None, keepdim: bool = False) -> ndarray:
    return _logical(self, dim, keepdim, np.any)


@kernel("aten::count_nonzero", "aten::count_nonzero.dim_IntList")
def count_nonzero(self: ndarray, dim: Dims = None) -> ndarray:
    return as_tensor(np.count_nonzero(self, axis=axes(dim, self.ndim))).astype(np.int64)


# --------------------------------------------------------------------------------------
# Cumulative ops
# --------------------------------------------------------------------------------------


def _cumulative(x: ndarray, dim: int, dtype: int | None, fn) -> ndarray:
    x = _accumulation_dtype(x, dtype)
    if x.ndim == 0:
        wrap_dim(dim, 0)
        return x.copy()
    return fn(x, axis=wrap_dim(dim, x.ndim))


@kernel("aten::cumsum")
def cumsum(self: ndarray, dim: int, dtype: int | None = None) -> ndarray:
    return _cumulative(self, dim, dtype, np.cumsum)


@kernel("aten::cumprod")
def cumprod(self: ndarray, dim: int, dtype: int | None = None) -> ndarray:
    return _cumulative(self, dim, dtype, np.cumprod)


@kernel("aten::cumsum_")
def cumsum_(self: ndarray, dim: int, dtype: int | None = None) -> ndarray:
    return assign(self, _cumulative(self, dim, dtype, np.cumsum))


@kernel("aten::cumprod_")
def cumprod_(self: ndarray, dim: int, dtype: int | None = None) -> ndarray:
    return assign(self, _cumulative(self, dim, dtype, np.cumprod))


def _running_extremum(self: ndarray, dim: int, larger: bool) -> tuple[ndarray, ndarray]:
    """cummax/cummin: the running extremum and the index where it was last reached (ties
    and NaN take the later index, as in PyTorch, and NaN propagates)."""
    if self.ndim == 0:
        wrap_dim(dim, 0)
        return self.copy(), np.zeros((), dtype=LONG_DTYPE)
    d = wrap_dim(dim, self.ndim)
    values = (np.maximum if larger else np.minimum).accumulate(self, axis=d)
    reached = self == values
    if self.dtype.kind in "fc":
        reached |= np.isnan(self)
    positions = np.arange(self.shape[d]).reshape((-1,) + (1,) * (self.ndim - d - 1))
    indices = np.maximum.accumulate(np.where(reached, positions, 0), axis=d)
    return values, indices.astype(LONG_DTYPE)


@kernel("aten::cummax")
def cummax(self: ndarray, dim: int) -> tuple[ndarray, ndarray]:
    return _running_extremum(self, dim, True)


@kernel("aten::cummin")
def cummin(self: ndarray, dim: int) -> tuple[ndarray, ndarray]:
    return _running_extremum(self, dim, False)


@kernel("aten::logcumsumexp")
def logcumsumexp(self: ndarray, dim: int) -> ndarray:
    if self.dtype.kind not in "f":
        raise TorchScriptError(f"\"logcumsumexp_out_cpu\" not implemented for '{dtype_name(self.dtype)}'")
    if self.ndim == 0:
        wrap_dim(dim, 0)
        return self.copy()
    return np.logaddexp.accumulate(self, axis=wrap_dim(dim, self.ndim))


@kernel("aten::gradient.scalarint", "aten::gradient.scalararray", "aten::gradient.scalarrayint",
        "aten::gradient.scalarrayarray", "aten::gradient.tensorarrayint", "aten::gradient.tensorarray",
        "aten::gradient.array")  # fmt: skip
def gradient(self: ndarray, spacing: object = None, dim: object = None, edge_order: int = 1) -> list[ndarray]:
    """Central differences inside, one-sided ones (of order 1 or 2) at the ends: numpy's
    gradient, which torch.gradient follows; integral inputs give default-float results."""
    dims = tuple(range(self.ndim)) if dim is None else ((dim,) if type(dim) is int else tuple(dim))
    dims = tuple(wrap_dim(d, self.ndim) for d in dims)
    if edge_order not in (1, 2):
        raise TorchScriptError("torch.gradient only supports edge_order=1 and edge_order=2.")
    for d in dims:
        if self.shape[d] < edge_order + 1:
            raise TorchScriptError("torch.gradient expected each dimension size to be at least edge_order+1")
    if spacing is None:
        steps: list[object] = [1.0] * len(dims)
    elif isinstance(spacing, (list, tuple)):
        if len(spacing) != len(dims):
            raise TorchScriptError(
                f"torch.gradient expected spacing to be unspecified, a scalar or it's spacing and dim arguments to "
                f"have the same length, but got a spacing argument of length {len(spacing)} and a dim argument of "
                f"length {len(dims)}."
            )
        steps = list(spacing)
    else:
        steps = [spacing] * len(dims)
    x = self if self.dtype.kind in "fc" else self.astype(float_dtype(self.dtype))
    results = []
    for d, step in zip(dims, steps):
        results.append(as_tensor(np.gradient(x, step, axis=d, edge_order=edge_order).astype(x.dtype, copy=False)))
    return results


_SEGMENT_UFUNCS = {"sum": np.add, "prod": np.multiply, "max": np.maximum, "min": np.minimum, "mean": np.add}
_SEGMENT_EMPTY = {"sum": 0.0, "prod": 1.0, "max": -math.inf, "min": math.inf, "mean": math.nan}


@kernel("aten::segment_reduce")
def segment_reduce(data: ndarray, reduce: str, lengths: ndarray | None = None, indices: ndarray | None = None,
                   offsets: ndarray | None = None, axis: int = 0, unsafe: bool = False,
                   initial: object = None) -> ndarray:  # fmt: skip
    """Reduces consecutive segments of `data` along `axis` (lengths or offsets give
    them, per row of the dimensions before it), `initial` taking part in each."""
    if reduce not in _SEGMENT_UFUNCS:
        raise TorchScriptError(f"segment_reduce(): unsupported reduction {reduce}")
    if indices is not None:
        raise TorchScriptError("segment_reduce(): indices based reduction is not supported yet.")
    if (lengths is None) == (offsets is None):
        raise TorchScriptError("segment_reduce(): Either lengths or offsets must be defined")
    counts = lengths if lengths is not None else np.diff(offsets, axis=-1)
    a = wrap_dim(axis, data.ndim)
    if counts.ndim != a + 1:
        raise TorchScriptError(f"segment_reduce(): Expected axis to be the last dimension of lengths but got {a}.")
    if not unsafe and (np.any(counts < 0) or np.any(counts.sum(-1) != data.shape[a])):
        raise TorchScriptError(
            "segment_reduce(): Expected all rows of lengths along axis to sum to data.size(lengths.dim()-1) when "
            "!unsafe."
        )
    leading = data.shape[:a]
    rows = int(np.prod(leading))
    n, segments = data.shape[a], counts.shape[-1]
    values = data.reshape(rows, n, -1)
    counts = counts.reshape(rows, segments)
    ends = np.cumsum(counts, axis=-1)
    segment = (np.arange(n)[None, :, None] >= ends[:, None, :]).sum(-1)  # (rows, n): each position's segment
    row = np.broadcast_to(np.arange(rows)[:, None], segment.shape)
    inside = segment < segments
    start = _SEGMENT_EMPTY[reduce] if initial is None or reduce == "mean" else initial
    out = np.full((rows, segments, values.shape[-1]), start if reduce != "mean" else 0.0, dtype=np.float64)
    _SEGMENT_UFUNCS[reduce].at(out, (row[inside], segment[inside]), values[inside].astype(np.float64))
    if reduce == "mean":
        total = out + (0.0 if initial is None else float(initial))
        with np.errstate(invalid="ignore", divide="ignore"):
            out = total / counts[..., None]
        empty = counts[..., None] == 0
        out = np.where(empty, math.nan if initial is None else float(initial), out)
    result = out.reshape(*leading, segments, *data.shape[a + 1 :])
    return result.astype(data.dtype if data.dtype.kind == "f" else float_dtype(data.dtype))


# --------------------------------------------------------------------------------------
# Sorting and order statistics
# --------------------------------------------------------------------------------------


def sort_indices(x: ndarray, axis: int, descending: bool) -> ndarray:
    """Stable sort order; NaN sorts as the largest value, like PyTorch."""
    if not descending:
        return np.argsort(x, axis=axis, kind="stable")
    # Sorting the reversed array stably and reversing back keeps ties in index order.
    n = x.shape[axis]
    reversed_order = np.argsort(np.flip(x, axis), axis=axis, kind="stable")
    return np.flip(n - 1 - reversed_order, axis)


def _sorted(x: ndarray, dim: int, descending: bool) -> tuple[ndarray, ndarray]:
    if x.ndim == 0:
        wrap_dim(dim, 0)
        return x.copy(), np.zeros((), dtype=np.int64)
    d = wrap_dim(dim, x.ndim)
    index = sort_indices(x, d, descending)
    return np.take_along_axis(x, index, axis=d), index.astype(np.int64, copy=False)


@kernel("aten::sort")
def sort(self: ndarray, dim: int = -1, descending: bool = False) -> tuple[ndarray, ndarray]:
    return _sorted(self, dim, descending)


@kernel("aten::sort.stable")
def sort_stable(self: ndarray, stable: bool | None, dim: int = -1, descending: bool = False):
    return _sorted(self, dim, descending)


@kernel("aten::argsort")
def argsort(self: ndarray, dim: int = -1, descending: bool = False) -> ndarray:
    return _sorted(self, dim, descending)[1]


@kernel("aten::argsort.stable")
def argsort_stable(self: ndarray, stable: bool, dim: int = -1, descending: bool = False) -> ndarray:
    return _sorted(self, dim, descending)[1]


@kernel("aten::topk")
def topk(self: ndarray, k: int, dim: int = -1, largest: bool = True, sorted: bool = True):
    d = wrap_dim(dim, self.ndim)
    size = self.shape[d] if self.ndim else 1
    if not 0 <= k <= size:
        raise TorchScriptError("selected index k out of range")
    values, index = _sorted(self, d, largest)
    if self.ndim == 0:
        return values, index
    keep = (slice(None),) * d + (slice(0, k),)
    return values[keep].copy(), index[keep].copy()


@kernel("aten::kthvalue")
def kthvalue(self: ndarray, k: int, dim: int = -1, keepdim: bool = False):
    d = wrap_dim(dim, self.ndim)
    size = self.shape[d] if self.ndim else 1
    if not 1 <= k <= size:
        raise TorchScriptError(f"kthvalue(): selected number k out of range for dimension {d}")
    values, index = _order_statistic(self, d, k - 1, True, nan_wins=False)
    if self.ndim:
        index = _break_ties_as_quickselect(self, d, k - 1, values, index)
    if not keepdim and self.ndim:
        values, index = values.squeeze(d), index.squeeze(d)
    return as_tensor(values), as_tensor(index)


def _break_ties_as_quickselect(x: ndarray, d: int, position: int, values: ndarray, index: ndarray) -> ndarray:
    """Among equal values, the index PyTorch's kthvalue returns: its CPU kernel selects
    with a median-of-three quickselect (Sedgewick's, in ATen's SortingUtils.h), whose
    swaps decide which of the tied elements ends at the k-th place. Only rows whose k-th
    value occurs more than once are replayed; `values` and `index` are in keepdim form."""
    rows = np.moveaxis(x, d, -1).reshape(-1, x.shape[d])
    kth = np.moveaxis(values, d, -1).reshape(-1)
    with np.errstate(invalid="ignore"):
        tied = ((rows == kth[:, None]) | ((rows != rows) & (kth != kth)[:, None])).sum(axis=1) > 1
    if not tied.any():
        return index
    chosen = np.moveaxis(index, d, -1).reshape(-1).copy()
    for row in np.flatnonzero(tied):
        chosen[row] = _quickselect_index(rows[row].tolist(), position)
    shape = np.moveaxis(index, d, -1).shape
    return np.moveaxis(chosen.reshape(shape), -1, d)


def _quickselect_index(row: list, k: int) -> int:
    order = list(range(len(row)))

    def swap(i: int, j: int) -> None:
        row[i], row[j] = row[j], row[i]
        order[i], order[j] = order[j], order[i]

    def greater(a: object, b: object) -> bool:  # NaN is the largest
        return (a != a and b == b) or a > b  # noqa: PLR0124

    low, high = 0, len(row) - 1
    while high > low:
        if high == low + 1:
            if greater(row[low], row[high]):
                swap(low, high)
            break
        swap((low + high) >> 1, low + 1)
        if greater(row[low + 1], row[high]):
            swap(low + 1, high)
        if greater(row[low], row[high]):
            swap(low, high)
        if greater(row[low + 1], row[low]):
            swap(low + 1, low)
        i, j, pivot = low + 1, high, row[low]
        while True:
            i += 1
            while greater(pivot, row[i]):
                i += 1
            j -= 1
            while greater(row[j], pivot):
                j -= 1
            if j < i:
                break
            swap(i, j)
        swap(low, j)
        if j <= k:
            low = i
        if j >= k:
            high = j - 1
    return order[k]


def _order_statistic(
    x: ndarray, d: int, position: int, keepdim: bool, nan_wins: bool = True
) -> tuple[ndarray, ndarray]:
    """The `position`-th smallest along d, NaN sorting as the largest; with `nan_wins` (the
    medians) a slice holding NaN gives NaN and its first index, as in PyTorch."""
    if x.ndim == 0:
        return x.copy(), np.zeros((), dtype=np.int64)
    values, index = _sorted(x, d, False)
    nan = np.isnan(values).any(axis=d, keepdims=True) if nan_wins and x.dtype.kind == "f" else None
    values = np.take(values, [position], axis=d)
    index = np.take(index, [position], axis=d)
    if nan is not None and nan.any():
        first_nan = np.argmax(np.isnan(x), axis=d, keepdims=True)
        values = np.where(nan, np.nan, values).astype(x.dtype)
        index = np.where(nan, first_nan, index)
    if not keepdim:
        values, index = values.squeeze(d), index.squeeze(d)
    return as_tensor(values), as_tensor(index)


@kernel("aten::median")
def median(self: ndarray) -> ndarray:
    if self.size == 0:
        return np.asarray(np.nan, dtype=self.dtype)
    flat = self.reshape(-1)
    return _order_statistic(flat, 0, (flat.size - 1) // 2, False)[0]


@kernel("aten::median.dim")
def median_dim(self: ndarray, dim: int, keepdim: bool = False) -> tuple[ndarray, ndarray]:
    d = wrap_dim(dim, self.ndim)
    size = self.shape[d] if self.ndim else 1
    return _order_statistic(self, d, (size - 1) // 2, keepdim)
