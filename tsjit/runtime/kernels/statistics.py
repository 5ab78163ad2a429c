"""Order statistics and counting: quantiles, mode, nanmedian, unique values, histograms,
bincount, bucketize/searchsorted and isin.

Each follows PyTorch's definition where numpy's differs: quantiles interpolate with
PyTorch's lerp and round half to even for 'nearest'; `mode` picks the smallest most
frequent value and the index of its last occurrence; histograms place a value by
linear interpolation between the outer edges (and, for `histogram`, a local search
among the edges), the right edge belonging to the last bin; searchsorted is PyTorch's
binary search itself, run for all values at once, so NaN lands where PyTorch puts it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tsjit.runtime.errors import TorchScriptError
from tsjit.runtime.kernels import kernel
from tsjit.runtime.kernels.common import as_tensor, wrap_dim
from tsjit.runtime.values import dtype_name

ndarray = np.ndarray
LONG = np.dtype(np.int64)

# --------------------------------------------------------------------------------------
# Quantiles, median, mode
# --------------------------------------------------------------------------------------

_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _lerp(start: ndarray, end: ndarray, weight: ndarray) -> ndarray:
    """torch.lerp: exact at both ends."""
    return np.where(weight < 0.5, start + weight * (end - start), end - (end - start) * (1 - weight))


def _quantile(self: ndarray, q: object, dim: int | None, keepdim: bool, interpolation: str, ignore_nan: bool,
              op: str) -> ndarray:  # fmt: skip
    if self.dtype.kind != "f":
        raise TorchScriptError(f"{op}() input tensor must be either float or double dtype")
    if self.size == 0:
        raise TorchScriptError(f"{op}() input tensor must be non-empty")
    scalar = type(q) is not ndarray
    qs = np.asarray([q] if scalar else q)
    if not scalar:
        if qs.ndim > 1:
            raise TorchScriptError(f"{op}() q must be a scalar or 1D tensor")
        if qs.dtype != self.dtype:
            raise TorchScriptError(f"{op}() q tensor must be same dtype as the input tensor")
        qs = qs.reshape(-1)
    if np.any((qs < 0) | (qs > 1)):
        raise TorchScriptError(f"{op}() q values must be in the range [0, 1]")
    if interpolation not in _INTERPOLATIONS:
        raise TorchScriptError(
            f"{op}() interpolation must be one of linear, lower, higher, midpoint or nearest. Got {interpolation}"
        )
    if dim is None:
        x = self.reshape(-1)
        shape = (1,) * self.ndim if keepdim else ()
    else:
        d = wrap_dim(dim, self.ndim)
        x = np.moveaxis(self.reshape(1) if self.ndim == 0 else self, d, -1)
        shape = tuple(1 if i == d else n for i, n in enumerate(self.shape)) if keepdim else x.shape[:-1]
    ordered = np.sort(x, axis=-1)[..., None, :]  # NaN last; (..., 1, n)
    count = ordered.shape[-1]
    nan = np.isnan(ordered)
    qs = qs.astype(self.dtype)
    if ignore_nan:
        ranks = qs * (count - nan.sum(-1) - 1).astype(self.dtype)
        ranks = np.where(ranks < 0, 0, ranks)
    else:
        ranks = np.where(nan.any(-1), count - 1, qs * (count - 1)).astype(self.dtype)
    ranks = np.broadcast_to(ranks, (*ordered.shape[:-2], len(qs)))
    if interpolation == "lower":
        ranks = np.floor(ranks)
    elif interpolation == "higher":
        ranks = np.ceil(ranks)
    elif interpolation == "nearest":
        ranks = np.round(ranks)
    below = ranks.astype(np.int64)
    flat = ordered[..., 0, :]
    values = np.take_along_axis(flat, below, axis=-1)
    if interpolation in ("linear", "midpoint"):
        weights = np.full_like(ranks, 0.5) if interpolation == "midpoint" else ranks - below
        above = np.take_along_axis(flat, np.ceil(ranks).astype(np.int64), axis=-1)
        values = _lerp(values, above, weights).astype(self.dtype)
    values = np.moveaxis(values, -1, 0).reshape(len(qs), *shape)
    return as_tensor(values[0] if scalar else values)


@kernel("aten::quantile", "aten::quantile.scalar")
def quantile(self: ndarray, q: object, dim: int | None = None, keepdim: bool = False,
             interpolation: str = "linear") -> ndarray:  # fmt: skip
    return _quantile(self, q, dim, keepdim, interpolation, False, "quantile")


@kernel("aten::nanquantile", "aten::nanquantile.scalar")
def nanquantile(self: ndarray, q: object, dim: int | None = None, keepdim: bool = False,
                interpolation: str = "linear") -> ndarray:  # fmt: skip
    return _quantile(self, q, dim, keepdim, interpolation, True, "nanquantile")


def _nan_order_statistic(x: ndarray, d: int, keepdim: bool) -> tuple[ndarray, ndarray]:
    """The lower median of the non-NaN values along d (NaN and index 0 for none)."""
    order = np.argsort(x, axis=d, kind="stable")  # NaN last, ties in index order
    ordered = np.take_along_axis(x, order, axis=d)
    valid = (~np.isnan(x)).sum(axis=d, keepdims=True) if x.dtype.kind == "f" else np.full_like(
        np.take(x, [0], axis=d), x.shape[d], dtype=np.int64)  # fmt: skip
    position = np.maximum(valid - 1, 0) // 2
    values = np.take_along_axis(ordered, position, axis=d)
    index = np.take_along_axis(order, position, axis=d)
    if not keepdim:
        values, index = values.squeeze(d), index.squeeze(d)
    return as_tensor(values), as_tensor(index.astype(LONG))


@kernel("aten::nanmedian")
def nanmedian(self: ndarray) -> ndarray:
    if self.size == 0:
        return np.asarray(np.nan, dtype=self.dtype)
    return _nan_order_statistic(self.reshape(-1), 0, False)[0]


@kernel("aten::nanmedian.dim")
def nanmedian_dim(self: ndarray, dim: int, keepdim: bool = False) -> tuple[ndarray, ndarray]:
    d = wrap_dim(dim, self.ndim)
    if self.ndim == 0:
        return self.copy(), np.zeros((), dtype=LONG)
    if self.shape[d] == 0:
        raise TorchScriptError(f"nanmedian(): Expected reduction dim {d} to have non-zero size.")
    return _nan_order_statistic(self, d, keepdim)


@kernel("aten::mode")
def mode(self: ndarray, dim: int = -1, keepdim: bool = False) -> tuple[ndarray, ndarray]:
    d = wrap_dim(dim, self.ndim)
    if self.ndim == 0:
        return self.copy(), np.zeros((), dtype=LONG)
    if self.shape[d] == 0:
        raise TorchScriptError(f"mode(): Expected reduction dim {d} to have non-zero size.")
    x = np.moveaxis(self, d, -1)
    ordered = np.sort(x, axis=-1)
    n = ordered.shape[-1]
    positions = np.arange(n)
    starts = np.ones(ordered.shape, dtype=bool)
    starts[..., 1:] = ordered[..., 1:] != ordered[..., :-1]
    ends = np.ones(ordered.shape, dtype=bool)
    ends[..., :-1] = starts[..., 1:]
    run_start = np.maximum.accumulate(np.where(starts, positions, 0), axis=-1)
    run_end = np.flip(np.minimum.accumulate(np.flip(np.where(ends, positions, n), -1), axis=-1), -1)
    counts = run_end - run_start + 1
    best = np.argmax(counts, axis=-1)[..., None]  # the first longest run: the smallest value
    values = np.take_along_axis(ordered, best, axis=-1)
    index = np.where(x == values, positions, -1).max(axis=-1, keepdims=True)
    values, index = np.moveaxis(values, -1, d), np.moveaxis(index, -1, d)
    if not keepdim:
        values, index = values.squeeze(d), index.squeeze(d)
    return as_tensor(values), as_tensor(index.astype(LONG))


# --------------------------------------------------------------------------------------
# Unique values
# --------------------------------------------------------------------------------------


def _unique_flat(x: ndarray, return_inverse: bool, return_counts: bool) -> tuple[ndarray, ndarray, ndarray]:
    values, inverse, counts = np.unique(x.reshape(-1), return_inverse=True, return_counts=True)
    inverse = inverse.reshape(x.shape).astype(LONG) if return_inverse else np.zeros(0, dtype=LONG)
    counts = counts.astype(LONG) if return_counts else np.zeros(0, dtype=LONG)
    return values, inverse, counts


@kernel("aten::_unique2")
def unique2(self: ndarray, sorted: bool = True, return_inverse: bool = False,
            return_counts: bool = False) -> tuple[ndarray, ndarray, ndarray]:  # fmt: skip
    return _unique_flat(self, return_inverse, return_counts)


@kernel("aten::_unique")
def unique(self: ndarray, sorted: bool = True, return_inverse: bool = False) -> tuple[ndarray, ndarray]:
    values, inverse, _ = _unique_flat(self, return_inverse, False)
    return values, inverse


@kernel("aten::unique_dim")
def unique_dim(self: ndarray, dim: int, sorted: bool = True, return_inverse: bool = False,
               return_counts: bool = False) -> tuple[ndarray, ndarray, ndarray]:  # fmt: skip
    d = wrap_dim(dim, self.ndim)
    if self.ndim == 0:
        raise TorchScriptError("unique_dim: dim out of range for a 0-dim tensor")
    values, inverse, counts = np.unique(self, return_inverse=True, return_counts=True, axis=d)
    return (values, inverse.reshape(-1).astype(LONG) if return_inverse else np.zeros(0, dtype=LONG),
            counts.astype(LONG) if return_counts else np.zeros(0, dtype=LONG))  # fmt: skip


def _consecutive(x: ndarray, axis: int) -> tuple[ndarray, ndarray, ndarray]:
    """Runs of equal slices along `axis`: their first slices, the run of each slice, the run lengths."""
    n = x.shape[axis]
    if n == 0:
        return x.copy(), np.zeros(0, dtype=LONG), np.zeros(0, dtype=LONG)
    moved = np.moveaxis(x, axis, 0).reshape(n, -1)
    changed = np.ones(n, dtype=bool)
    changed[1:] = np.any(moved[1:] != moved[:-1], axis=1)
    starts = np.flatnonzero(changed)
    runs = np.cumsum(changed) - 1
    counts = np.diff(np.append(starts, n))
    return np.take(x, starts, axis=axis), runs.astype(LONG), counts.astype(LONG)


@kernel("aten::unique_consecutive")
def unique_consecutive(self: ndarray, return_inverse: bool = False, return_counts: bool = False,
                       dim: int | None = None) -> tuple[ndarray, ndarray, ndarray]:  # fmt: skip
    if dim is None:
        values, runs, counts = _consecutive(self.reshape(-1), 0)
        runs = runs.reshape(self.shape)
    else:
        values, runs, counts = _consecutive(self, wrap_dim(dim, self.ndim))
    empty = np.zeros(0, dtype=LONG)
    return values, (runs if return_inverse else empty), (counts if return_counts else empty)


@kernel("aten::unique_dim_consecutive")
def unique_dim_consecutive(self: ndarray, dim: int, return_inverse: bool = False,
                           return_counts: bool = False) -> tuple[ndarray, ndarray, ndarray]:  # fmt: skip
    return unique_consecutive(self, return_inverse, return_counts, dim)


# --------------------------------------------------------------------------------------
# Histograms and counting
# --------------------------------------------------------------------------------------


def _bin_positions(x: ndarray, edges: ndarray, search: bool) -> tuple[ndarray, ndarray]:
    """The bin of each value among `edges` (a linspace), and which values fall inside."""
    low, high = float(edges[0]), float(edges[-1])
    bins = len(edges) - 1
    inside = (x >= low) & (x <= high)
    with np.errstate(invalid="ignore"):
        position = ((x.astype(np.float64) - low) * bins / (high - low)).astype(np.int64)
    position = np.clip(position, 0, bins)
    if search:  # PyTorch's local search among the neighbouring edges
        position = np.where(edges[np.clip(position, 0, bins)] > x, position - 1, position)
        following = np.clip(position + 1, 0, bins)
        position = np.where((position + 1 <= bins) & (edges[following] <= x), position + 1, position)
    return np.where(position >= bins, bins - 1, position), inside


def _outer_edges(x: ndarray, low: float | None, high: float | None) -> tuple[float, float]:
    if low is None or high is None:
        if x.size == 0:
            return 0.0, 1.0
        low = float(x.min()) if low is None else low
        high = float(x.max()) if high is None else high
    if not (np.isfinite(low) and np.isfinite(high)):
        raise TorchScriptError(f"torch.histogramdd: dimension 0's range [{low}, {high}] is not finite")
    if low > high:
        raise TorchScriptError(f"torch.histogram: min should not exceed max, but got min {low} max {high}")
    if low == high:
        low, high = low - 0.5, high + 0.5
    return low, high


def _histogram_input(self: ndarray, op: str) -> None:
    if self.dtype.kind != "f":
        raise TorchScriptError(f'"{op}" not implemented for \'{dtype_name(self.dtype)}\'')


@kernel("aten::histc")
def histc(self: ndarray, bins: int = 100, min: object = 0, max: object = 0) -> ndarray:
    _histogram_input(self, "histogram_cpu")
    if bins <= 0:
        raise TorchScriptError(f"torch.histc(): bins must be > 0, but got {bins}")
    low, high = float(min), float(max)
    if low == high and self.size:
        low, high = float(self.min()), float(self.max())
    if low == high:
        low, high = low - 1, high + 1
    if not (np.isfinite(low) and np.isfinite(high)):
        raise TorchScriptError(f"torch.histc: range of [{low}, {high}] is not finite")
    if low > high:
        raise TorchScriptError("torch.histc: max must be larger than min")
    edges = np.linspace(low, high, bins + 1).astype(self.dtype)
    x = self.reshape(-1)
    position, inside = _bin_positions(x, edges, search=False)
    return np.bincount(position[inside], minlength=bins).astype(self.dtype)


def _weighted_counts(position: ndarray, inside: ndarray, weight: ndarray | None, bins: int, dtype: np.dtype) -> ndarray:
    weights = None if weight is None else weight.reshape(-1)[inside].astype(np.float64)
    return np.bincount(position[inside], weights=weights, minlength=bins).astype(dtype)


@kernel("aten::histogram.bin_ct")
def histogram(self: ndarray, bins: int = 100, range: Sequence[float] | None = None, weight: ndarray | None = None,
              density: bool = False) -> tuple[ndarray, ndarray]:  # fmt: skip
    _histogram_input(self, "histogram_cpu")
    if bins <= 0:
        raise TorchScriptError(f"torch.histogram(): bins must be > 0, but got {bins}")
    if range is not None and len(range) != 2:
        raise TorchScriptError(f"torch.histogramdd: for a 1-dimensional histogram range should have 2 elements, "
                               f"but got {len(range)}")  # fmt: skip
    low, high = _outer_edges(self, *(range if range is not None else (None, None)))
    edges = np.linspace(low, high, bins + 1).astype(self.dtype)
    x = self.reshape(-1)
    position, inside = _bin_positions(x, edges, search=True)
    hist = _weighted_counts(position, inside, weight, bins, self.dtype)
    if density:
        hist = (hist / hist.sum() / np.diff(edges)).astype(self.dtype)
    return hist, edges


@kernel("aten::histogram.bins_tensor")
def histogram_edges(self: ndarray, bins: ndarray, weight: ndarray | None = None,
                    density: bool = False) -> tuple[ndarray, ndarray]:  # fmt: skip
    _histogram_input(self, "histogram_cpu")
    x = self.reshape(-1)
    count = len(bins) - 1
    position = np.searchsorted(bins, x, side="right") - 1
    inside = (x >= bins[0]) & (x <= bins[-1])
    position = np.where(position >= count, count - 1, position)
    hist = _weighted_counts(position, inside, weight, count, self.dtype)
    if density:
        hist = (hist / hist.sum() / np.diff(bins)).astype(self.dtype)
    return hist, bins.copy()


def _histogramdd_edges(self: ndarray, bins: Sequence[int], range: Sequence[float] | None) -> list[ndarray]:
    _histogram_input(self, "histogramdd")
    if self.ndim < 2:
        raise TorchScriptError("torch.histogramdd: input tensor should have at least 2 dimensions")
    n = self.shape[-1]
    if len(bins) != n:
        raise TorchScriptError(f"torch.histogramdd: expected {n} sequences of bin edges for each of the {n} "
                               f"dimensions of the histogram but got {len(bins)}")  # fmt: skip
    if range is not None and len(range) != 2 * n:
        raise TorchScriptError(f"torch.histogramdd: for a {n}-dimensional histogram range should have {2 * n} "
                               f"elements, but got {len(range)}")  # fmt: skip
    points = self.reshape(-1, n)
    edges = []
    for d, column in enumerate(points.T):
        given = (range[2 * d], range[2 * d + 1]) if range is not None else (None, None)
        low, high = _outer_edges(column, *given)
        edges.append(np.linspace(low, high, bins[d] + 1).astype(self.dtype))
    return edges



def _histogramdd_counts(self: ndarray, edges: Sequence[ndarray], weight: ndarray | None, density: bool,
                        search: bool) -> ndarray:  # fmt: skip
    n = self.shape[-1]
    points = self.reshape(-1, n)
    inside = np.ones(len(points), dtype=bool)
    positions = []
    for d, e in enumerate(edges):
        if search:
            position, within = _bin_positions(points[:, d], e, search=True)
        else:
            count = len(e) - 1
            position = np.searchsorted(e, points[:, d], side="right") - 1
            within = (points[:, d] >= e[0]) & (points[:, d] <= e[-1])
            position = np.where(position >= count, count - 1, position)
        positions.append(np.clip(position, 0, None))
        inside &= within
    shape = tuple(len(e) - 1 for e in edges)
    flat = np.ravel_multi_index(tuple(p[inside] for p in positions), shape) if shape else np.zeros(0, dtype=int)
    weights = None if weight is None else weight.reshape(-1)[inside].astype(np.float64)
    hist = np.bincount(flat, weights=weights, minlength=int(np.prod(shape))).reshape(shape).astype(self.dtype)
    if density:
        hist = hist / hist.sum()
        for d, e in enumerate(edges):
            view = [1] * len(edges)
            view[d] = len(e) - 1
            hist = hist / np.diff(e).reshape(view)
        hist = hist.astype(self.dtype)
    return hist


@kernel("aten::histogramdd")
def histogramdd(self: ndarray, bins: Sequence[int], range: Sequence[float] | None = None,
                weight: ndarray | None = None, density: bool = False) -> tuple[ndarray, list[ndarray]]:  # fmt: skip
    edges = _histogramdd_edges(self, bins, range)
    return _histogramdd_counts(self, edges, weight, density, search=True), edges


@kernel("aten::histogramdd.int_bins")
def histogramdd_int(self: ndarray, bins: int, range: Sequence[float] | None = None,
                    weight: ndarray | None = None, density: bool = False) -> tuple[ndarray, list[ndarray]]:  # fmt: skip
    return histogramdd(self, [bins] * (self.shape[-1] if self.ndim else 1), range, weight, density)


@kernel("aten::histogramdd.TensorList_bins")
def histogramdd_edges(self: ndarray, bins: Sequence[ndarray], range: Sequence[float] | None = None,
                      weight: ndarray | None = None, density: bool = False) -> tuple[ndarray, list[ndarray]]:  # fmt: skip
    _histogram_input(self, "histogramdd")
    return _histogramdd_counts(self, bins, weight, density, search=False), [b.copy() for b in bins]


@kernel("aten::_histogramdd_bin_edges")
def histogramdd_bin_edges(self: ndarray, bins: Sequence[int], range: Sequence[float] | None = None,
                          weight: ndarray | None = None, density: bool = False) -> list[ndarray]:  # fmt: skip
    return _histogramdd_edges(self, bins, range)


@kernel("aten::_histogramdd_from_bin_cts")
def histogramdd_from_bin_cts(self: ndarray, bins: Sequence[int], range: Sequence[float] | None = None,
                             weight: ndarray | None = None, density: bool = False) -> ndarray:  # fmt: skip
    return histogramdd(self, bins, range, weight, density)[0]


@kernel("aten::_histogramdd_from_bin_tensors")
def histogramdd_from_bin_tensors(self: ndarray, bins: Sequence[ndarray], weight: ndarray | None = None,
                                 density: bool = False) -> ndarray:  # fmt: skip
    return histogramdd_edges(self, bins, None, weight, density)[0]


@kernel("aten::bincount")
def bincount(self: ndarray, weights: ndarray | None = None, minlength: int = 0) -> ndarray:
    if minlength < 0:
        raise TorchScriptError("minlength should be >= 0")
    if self.ndim != 1 or self.dtype.kind not in "iu" or (self.size and self.min() < 0):
        raise TorchScriptError("bincount only supports 1-d non-negative integral inputs.")
    if weights is not None and (weights.ndim != 1 or weights.shape[0] != self.shape[0]):
        raise TorchScriptError("weights should be 1-d and have the same length as input")
    if weights is None:
        return np.bincount(self, minlength=minlength).astype(LONG)
    dtype = np.dtype(np.float32) if weights.dtype == np.float32 else np.dtype(np.float64)
    return np.bincount(self, weights=weights.astype(np.float64), minlength=minlength).astype(dtype)


# --------------------------------------------------------------------------------------
# Searching sorted sequences
# --------------------------------------------------------------------------------------


def _binary_search(sequence: ndarray, values: ndarray, right: bool) -> ndarray:
    """PyTorch's lower/upper bound: while low < high, go right of mid when not
    `mid >= value` (left side) or not `mid > value` (right side). All values at once."""
    n = sequence.shape[-1]
    low = np.zeros(values.shape, dtype=np.int64)
    high = np.full(values.shape, n, dtype=np.int64)
    running = low < high
    while running.any():
        mid = low + ((high - low) >> 1)
        middle = np.take_along_axis(sequence, np.minimum(mid, n - 1), axis=-1)
        with np.errstate(invalid="ignore"):
            further = ~(middle > values) if right else ~(middle >= values)
        low = np.where(running & further, mid + 1, low)
        high = np.where(running & ~further, mid, high)
        running = low < high
    return low


def _searchsorted(sequence: ndarray, values: object, out_int32: bool, right: bool, side: str | None,
                  sorter: ndarray | None) -> ndarray:  # fmt: skip
    if side is not None:
        if side not in ("left", "right"):
            raise TorchScriptError(f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}")
        if right and side == "left":
            raise TorchScriptError("torch.searchsorted(): side and right can't be set to opposites, got side of left "
                                   "while right was True")  # fmt: skip
        right = side == "right"
    scalar = type(values) is not ndarray
    v = np.asarray(values)
    if sequence.ndim == 0:
        raise TorchScriptError("torch.searchsorted(): boundaries tensor should have positive dimension, but got 0 "
                               "dimension")  # fmt: skip
    if sorter is not None:
        if sorter.shape != sequence.shape:
            raise TorchScriptError("torch.searchsorted(): boundary and sorter must have the same size")
        sequence = np.take_along_axis(sequence, sorter, axis=-1)
    if sequence.ndim > 1 and not scalar:
        if sequence.shape[:-1] != v.shape[:-1]:
            raise TorchScriptError(
                "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions of "
                "boundaries tensor and input value tensor must match"
            )
        flat_values = v
        flat_sequence = sequence
    else:
        flat_values = v.reshape(1, -1) if sequence.ndim == 1 else v.reshape(*sequence.shape[:-1], 1)
        flat_sequence = sequence.reshape(1, -1) if sequence.ndim == 1 else sequence
    dtype = np.result_type(sequence.dtype, v.dtype) if v.dtype.kind != "b" else sequence.dtype
    found = _binary_search(flat_sequence.astype(dtype), flat_values.astype(dtype), right)
    result = found.reshape(v.shape)
    return as_tensor(result.astype(np.int32 if out_int32 else LONG))


@kernel("aten::searchsorted.Tensor", "aten::searchsorted.Scalar")
def searchsorted(sorted_sequence: ndarray, self: object, out_int32: bool = False, right: bool = False,
                 side: str | None = None, sorter: ndarray | None = None) -> ndarray:  # fmt: skip
    return _searchsorted(sorted_sequence, self, out_int32, right, side, sorter)


@kernel("aten::bucketize.Tensor", "aten::bucketize.Scalar")
def bucketize(self: object, boundaries: ndarray, out_int32: bool = False, right: bool = False) -> ndarray:
    if boundaries.ndim != 1:
        raise TorchScriptError(f"boundaries tensor must be 1 dimension, but got dim({boundaries.ndim})")
    return _searchsorted(boundaries, self, out_int32, right, None, None)


@kernel("aten::isin.Tensor_Tensor", "aten::isin.Tensor_Scalar", "aten::isin.Scalar_Tensor")
def isin(elements: object, test_elements: object, assume_unique: bool = False, invert: bool = False) -> ndarray:
    return as_tensor(np.isin(np.asarray(elements), np.asarray(test_elements), invert=invert))

