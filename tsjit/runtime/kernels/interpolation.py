"""Resampling: `upsample_*` (nearest, nearest-exact, linear, bilinear, bicubic, trilinear and
the antialiased bilinear, bicubic and lanczos), `grid_sampler` (2-d and 3-d) and
`affine_grid_generator`.

Upsampling is separable: one gather and weighted sum per spatial dimension, last dimension
first, which is the order of PyTorch's CPU kernels' arithmetic. Source coordinates follow
PyTorch's `area_pixel_compute_*` and `nearest_idx` helpers, computed in the input's dtype
(nearest neighbours in float32, as `floorf`), so that borderline indices agree.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from tsjit.runtime.errors import TorchScriptError
from tsjit.runtime.kernels import Kernel, kernel, register_kernel
from tsjit.runtime.kernels.common import shape_str
from tsjit.runtime.values import dtype_name

ndarray = np.ndarray

CUBIC_A = -0.75
"""The bicubic kernel's parameter (PyTorch's, as in TensorFlow's resize)."""


def _check(x: ndarray, n: int, op: str, uint8: bool = False) -> None:
    if x.dtype.kind != "f" and not (uint8 and x.dtype == np.uint8):
        raise TorchScriptError(f"\"{op}\" not implemented for '{dtype_name(x.dtype)}'")
    if x.ndim != n + 2:
        raise TorchScriptError(
            f"Expected {n + 2}D input tensor for {op}, but got input of size: {shape_str(x.shape)}"
        )
    if any(s == 0 for s in x.shape[1:]):
        raise TorchScriptError(
            f"Non-empty {n + 2}D data tensor expected but got a tensor with sizes {shape_str(x.shape)}"
        )


def _output_size(
    x: ndarray, n: int, output_size: Sequence[int] | None, scale_factors: Sequence[float] | None
) -> tuple[list[int], list[float | None]]:
    """The `.vec` overloads' (output size, scales): exactly one of the two is given."""
    if output_size is not None:
        if scale_factors is not None:
            raise TorchScriptError("Must specify exactly one of output_size and scale_factors")
        if len(output_size) != n:
            raise TorchScriptError(
                f"It is expected output_size equals to {n}, but got size {len(output_size)}"
            )
        return list(output_size), [None] * n
    if scale_factors is None:
        raise TorchScriptError("Must specify exactly one of output_size and scale_factors")
    if len(scale_factors) != n:
        raise TorchScriptError(
            f"It is expected scale_factors equals to {n}, but got size {len(scale_factors)}"
        )
    return [math.floor(size * s) for size, s in zip(x.shape[2:], scale_factors)], list(scale_factors)


def _scale(t: type, size: int, out: int, align_corners: bool, scale: float | None) -> np.floating:
    """PyTorch's `area_pixel_compute_scale`: the input distance between output samples."""
    if align_corners:
        return t((size - 1) / (out - 1)) if out > 1 else t(0)
    if scale is not None and scale > 0:
        return t(1.0 / scale)
    return t(size) / t(out)


def _source_index(t: type, scale: np.floating, out: int, align_corners: bool, cubic: bool) -> ndarray:
    """PyTorch's `area_pixel_compute_source_index` for every output position."""
    dst = np.arange(out, dtype=t)
    if align_corners:
        return scale * dst
    src = scale * (dst + t(0.5)) - t(0.5)
    return src if cubic else np.maximum(src, t(0))


def _along(x: ndarray, axis: int, taps: Sequence[tuple[ndarray, ndarray]]) -> ndarray:
    """sum over taps of x.take(index, axis) * weight (weights along `axis`)."""
    shape = [1] * x.ndim
    total = None
    for index, weight in taps:
        shape[axis] = weight.size
        term = np.take(x, index, axis=axis) * weight.reshape(shape)
        total = term if total is None else total + term
    return total


def _nearest_index(size: int, out: int, scale: float | None, exact: bool) -> ndarray:
    """PyTorch's `nearest_idx` / `nearest_exact_idx`, with float32 scales as its C++ computes."""
    if not exact and out == size:
        return np.arange(out)
    if not exact and out == 2 * size:
        return np.arange(out) >> 1
    f32 = np.float32
    factor = f32(1.0 / scale) if scale is not None and scale > 0 else f32(size) / f32(out)
    dst = np.arange(out, dtype=f32)
    src = np.floor((dst + f32(0.5)) * factor if exact else dst * factor).astype(np.int64)
    return np.minimum(src, size - 1)


def upsample_nearest(
    x: ndarray, out_sizes: Sequence[int], scales: Sequence[float | None], exact: bool
) -> ndarray:
    n = len(out_sizes)
    for axis in range(n - 1, -1, -1):
        index = _nearest_index(x.shape[2 + axis], out_sizes[axis], scales[axis], exact)
        x = np.take(x, index, axis=2 + axis)
    return x


def _linear_taps(t: type, size: int, out: int, align_corners: bool, scale: float | None):
    src = _source_index(t, _scale(t, size, out, align_corners, scale), out, align_corners, cubic=False)
    index0 = src.astype(np.int64)
    index1 = np.minimum(index0 + 1, size - 1)
    lambda1 = (src - index0.astype(t)).astype(t)
    return [(index0, t(1) - lambda1), (index1, lambda1)]


def _cubic_taps(t: type, size: int, out: int, align_corners: bool, scale: float | None):
    src = _source_index(t, _scale(t, size, out, align_corners, scale), out, align_corners, cubic=True)
    floor = np.floor(src)
    frac = (src - floor).astype(t)
    base = floor.astype(np.int64)
    a = t(CUBIC_A)

    def near(v):  # cubic_convolution1
        return ((a + t(2)) * v - (a + t(3))) * v * v + t(1)

    def far(v):  # cubic_convolution2
        return ((a * v - t(5) * a) * v + t(8) * a) * v - t(4) * a

    weights = (far(frac + t(1)), near(frac), near(t(1) - frac), far(t(2) - frac))
    return [(np.clip(base - 1 + k, 0, size - 1), w) for k, w in enumerate(weights)]


def upsample_interpolated(
    x: ndarray,
    out_sizes: Sequence[int],
    align_corners: bool,
    scales: Sequence[float | None],
    taps: Callable[..., list[tuple[ndarray, ndarray]]],
) -> ndarray:
    t = x.dtype.type
    for axis in range(len(out_sizes) - 1, -1, -1):
        x = _along(x, 2 + axis, taps(t, x.shape[2 + axis], out_sizes[axis], align_corners, scales[axis]))
    return np.ascontiguousarray(x.astype(t, copy=False))


_MODES = {
    "nearest": (1, "upsample_nearest1d"), "nearest2d": (2, "upsample_nearest2d"), "nearest3d": (3, "upsample_nearest3d"),
    "linear1d": (1, "upsample_linear1d"), "bilinear2d": (2, "upsample_bilinear2d"),
    "bicubic2d": (2, "upsample_bicubic2d"), "trilinear3d": (3, "upsample_trilinear3d"),
}  # fmt: skip


def _nearest_kernels(n: int, exact: bool) -> tuple[Kernel, Kernel]:
    op = f"_upsample_nearest_exact{n}d" if exact else f"upsample_nearest{n}d"

    def explicit(self: ndarray, output_size: Sequence[int], *scales: float | None) -> ndarray:
        _check(self, n, op, uint8=True)
        if len(output_size) != n:
            raise TorchScriptError(
                f"It is expected output_size equals to {n}, but got size {len(output_size)}"
            )
        return upsample_nearest(self, output_size, list(scales) + [None] * (n - len(scales)), exact)

    def vec(
        input: ndarray, output_size: Sequence[int] | None, scale_factors: Sequence[float] | None
    ) -> ndarray:
        _check(input, n, op, uint8=True)
        sizes, scales = _output_size(input, n, output_size, scale_factors)
        return upsample_nearest(input, sizes, scales, exact)

    return explicit, vec


def _interpolating_kernels(n: int, op: str, taps) -> tuple[Kernel, Kernel]:
    def explicit(
        self: ndarray, output_size: Sequence[int], align_corners: bool, *scales: float | None
    ) -> ndarray:
        _check(self, n, op)
        if len(output_size) != n:
            raise TorchScriptError(
                f"It is expected output_size equals to {n}, but got size {len(output_size)}"
            )
        return upsample_interpolated(
            self, output_size, align_corners, list(scales) + [None] * (n - len(scales)), taps
        )

    def vec(
        input: ndarray,
        output_size: Sequence[int] | None,
        align_corners: bool,
        scale_factors: Sequence[float] | None,
    ) -> ndarray:
        _check(input, n, op)
        sizes, scales = _output_size(input, n, output_size, scale_factors)
        return upsample_interpolated(input, sizes, align_corners, scales, taps)

    return explicit, vec


for _n in (1, 2, 3):
    for _exact, _name in (
        (False, f"aten::upsample_nearest{_n}d"),
        (True, f"aten::_upsample_nearest_exact{_n}d"),
    ):
        _explicit, _vec = _nearest_kernels(_n, _exact)
        register_kernel(_name, _explicit)
        register_kernel(f"{_name}.vec", _vec)
for _n, _op, _taps in (
    (1, "upsample_linear1d", _linear_taps),
    (2, "upsample_bilinear2d", _linear_taps),
    (3, "upsample_trilinear3d", _linear_taps),
    (2, "upsample_bicubic2d", _cubic_taps),
):
    _explicit, _vec = _interpolating_kernels(_n, _op, _taps)
    register_kernel(f"aten::{_op}", _explicit)
    register_kernel(f"aten::{_op}.vec", _vec)


# --------------------------------------------------------------------------------------
# Antialiased resampling (PIL's separable filters, as `interpolate(..., antialias=True)`)
# --------------------------------------------------------------------------------------


def _triangle(x: ndarray) -> ndarray:
    return np.maximum(1 - np.abs(x), 0)


def _keys_cubic(x: ndarray) -> ndarray:
    """The cubic convolution kernel with a = -0.5 (PIL's, which antialiasing follows)."""
    a = -0.5
    x = np.abs(x)
    near = ((a + 2) * x - (a + 3)) * x * x + 1
    far = ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return np.where(x < 1, near, np.where(x < 2, far, 0))


def _lanczos3(x: ndarray) -> ndarray:
    return np.where(np.abs(x) < 3, np.sinc(x) * np.sinc(x / 3), 0)


_AA_FILTERS = {"bilinear": (_triangle, 2), "bicubic": (_keys_cubic, 4), "lanczos": (_lanczos3, 6)}
"""filter and its support in input samples (PyTorch's `interp_size`) per antialiased mode."""


def _antialias_matrix(
    dtype: np.dtype, size: int, out: int, align_corners: bool, scale: float | None, mode: str
):
    """(out, size) weights of PyTorch's `_compute_indices_min_size_weights_aa`: the filter,
    widened by the downscaling factor, centred on each output sample and normalized."""
    t = dtype.type
    filter_fn, interp_size = _AA_FILTERS[mode]
    factor = _scale(t, size, out, align_corners, scale)
    support = t(interp_size * 0.5) * factor if factor >= 1 else t(interp_size * 0.5)
    invscale = t(1) / factor if factor >= 1 else t(1)
    centers = factor * (np.arange(out, dtype=dtype) + t(0.5))
    lows = np.maximum((centers - support + t(0.5)).astype(np.int64), 0)
    highs = np.minimum((centers + support + t(0.5)).astype(np.int64), size)
    j = np.arange(size)
    inside = (j >= lows[:, None]) & (j < highs[:, None])
    weights = np.where(inside, filter_fn(((j - centers[:, None]) + t(0.5)) * invscale), 0).astype(dtype)
    totals = weights.sum(axis=1, keepdims=True)
    return np.where(totals != 0, weights / np.where(totals != 0, totals, 1), weights).astype(dtype)


def upsample_antialiased(
    x: ndarray, out_sizes: Sequence[int], align_corners: bool, scales: Sequence[float | None], mode: str
) -> ndarray:
    for axis in range(len(out_sizes) - 1, -1, -1):
        matrix = _antialias_matrix(
            x.dtype, x.shape[2 + axis], out_sizes[axis], align_corners, scales[axis], mode
        )
        x = np.moveaxis(np.matmul(np.moveaxis(x, 2 + axis, -1), matrix.T), -1, 2 + axis)
    return np.ascontiguousarray(x)


def _antialiased_kernels(mode: str) -> tuple[Kernel, Kernel]:
    op = f"_upsample_{mode}2d_aa"

    def explicit(self: ndarray, output_size: Sequence[int], align_corners: bool,
                 scales_h: float | None = None, scales_w: float | None = None) -> ndarray:  # fmt: skip
        _check(self, 2, op)
        if len(output_size) != 2:
            raise TorchScriptError(f"It is expected output_size equals to 2, but got size {len(output_size)}")
        return upsample_antialiased(self, output_size, align_corners, [scales_h, scales_w], mode)

    def vec(
        input: ndarray,
        output_size: Sequence[int] | None,
        align_corners: bool,
        scale_factors: Sequence[float] | None,
    ) -> ndarray:
        _check(input, 2, op)
        sizes, scales = _output_size(input, 2, output_size, scale_factors)
        return upsample_antialiased(input, sizes, align_corners, scales, mode)

    return explicit, vec


for _mode in _AA_FILTERS:
    _explicit, _vec = _antialiased_kernels(_mode)
    register_kernel(f"aten::_upsample_{_mode}2d_aa", _explicit)
    register_kernel(f"aten::_upsample_{_mode}2d_aa.vec", _vec)


# --------------------------------------------------------------------------------------
# grid_sampler
# --------------------------------------------------------------------------------------

BILINEAR, NEAREST, BICUBIC = 0, 1, 2
ZEROS, BORDER, REFLECTION = 0, 1, 2


def _unnormalize(coord: ndarray, size: int, align_corners: bool) -> ndarray:
    t = coord.dtype.type
    if align_corners:
        return (coord + t(1)) / t(2) * t(size - 1)
    return ((coord + t(1)) * t(size) - t(1)) / t(2)


def _reflect(coord: ndarray, twice_low: int, twice_high: int) -> ndarray:
    t = coord.dtype.type
    if twice_low == twice_high:
        return np.zeros_like(coord)
    low = t(twice_low / 2)
    span = t((twice_high - twice_low) / 2)
    coord = np.abs(coord - low)
    extra = np.fmod(coord, span)
    flips = np.floor(coord / span)
    return np.where(flips % 2 == 0, extra + low, span - extra + low)


def _apply_padding(coord: ndarray, size: int, padding_mode: int, align_corners: bool) -> ndarray:
    """PyTorch's `compute_coordinates`: border clips, reflection reflects then clips."""
    t = coord.dtype.type
    if padding_mode == BORDER:
        return np.clip(coord, t(0), t(size - 1))
    if padding_mode == REFLECTION:
        if align_corners:
            coord = _reflect(coord, 0, 2 * (size - 1))
        else:
            coord = _reflect(coord, -1, 2 * size - 1)
        return np.clip(coord, t(0), t(size - 1))
    return coord


def _gather(x: ndarray, points: Sequence[ndarray]) -> ndarray:
    """x (N, C, *spatial) at integer points (each (N, *out)); zero outside. -> (N, C, *out)."""
    inside = np.ones(points[0].shape, dtype=bool)
    clipped = []
    for p, size in zip(points, x.shape[2:]):
        inside &= (p >= 0) & (p < size)
        clipped.append(np.clip(p, 0, size - 1))
    batch = np.arange(x.shape[0]).reshape((-1,) + (1,) * (points[0].ndim - 1))
    values = x[(batch, slice(None)) + tuple(clipped)]  # advanced indices first: (N, *out, C)
    values = np.moveaxis(values, -1, 1)
    return values * np.expand_dims(inside, 1).astype(x.dtype)


def grid_sample(
    input: ndarray, grid: ndarray, interpolation_mode: int, padding_mode: int, align_corners: bool
) -> ndarray:
    n = input.ndim - 2
    if input.dtype.kind != "f" or grid.dtype != input.dtype:
        raise TorchScriptError(
            f"grid_sampler(): expected input and grid to have the same floating dtype, but input has "
            f"{dtype_name(input.dtype)} and grid has {dtype_name(grid.dtype)}"
        )
    if grid.ndim != n + 2 or grid.shape[0] != input.shape[0] or grid.shape[-1] != n:
        raise TorchScriptError(
            f"grid_sampler(): expected grid to have size {n} in last dimension and batch size {input.shape[0]}, "
            f"but got grid with sizes {shape_str(grid.shape)}"
        )
    if interpolation_mode == BICUBIC and n != 2:
        raise TorchScriptError("grid_sampler(): bicubic interpolation only supports 4D input")
    if interpolation_mode not in (BILINEAR, NEAREST, BICUBIC) or padding_mode not in (
        ZEROS,
        BORDER,
        REFLECTION,
    ):
        raise TorchScriptError(
            f"grid_sampler(): unknown interpolation mode {interpolation_mode} or padding mode {padding_mode}"
        )
    sizes = input.shape[2:]
    # grid's last axis is (x, y[, z]): the last spatial dimension first.
    coords = [_unnormalize(grid[..., n - 1 - j], sizes[j], align_corners) for j in range(n)]
    t = input.dtype.type
    if interpolation_mode == BICUBIC:
        return _grid_bicubic(input, coords, padding_mode, align_corners)
    coords = [_apply_padding(c, size, padding_mode, align_corners) for c, size in zip(coords, sizes)]
    if interpolation_mode == NEAREST:
        return np.ascontiguousarray(_gather(input, [np.rint(c).astype(np.int64) for c in coords]))
    lows = [np.floor(c) for c in coords]
    fracs = [(c - low).astype(t) for c, low in zip(coords, lows)]
    lows = [low.astype(np.int64) for low in lows]
    out = None
    for corner in range(2**n):
        points, weight = [], None
        for j in range(n):
            high = (corner >> (n - 1 - j)) & 1
            points.append(lows[j] + high)
            w = fracs[j] if high else t(1) - fracs[j]
            weight = w if weight is None else weight * w
        term = _gather(input, points) * np.expand_dims(weight, 1)
        out = term if out is None else out + term
    return np.ascontiguousarray(out)


def _grid_bicubic(
    input: ndarray, coords: Sequence[ndarray], padding_mode: int, align_corners: bool
) -> ndarray:
    t = input.dtype.type
    a = t(CUBIC_A)

    def near(v):
        return ((a + t(2)) * v - (a + t(3))) * v * v + t(1)

    def far(v):
        return ((a * v - t(5) * a) * v + t(8) * a) * v - t(4) * a

    bases, weights = [], []
    for c in coords:
        floor = np.floor(c)
        frac = (c - floor).astype(t)
        bases.append(floor)
        weights.append((far(frac + t(1)), near(frac), near(t(1) - frac), far(t(2) - frac)))
    out = None
    for i in range(4):
        for j in range(4):
            points = []
            for base, k, size in zip(bases, (i, j), input.shape[2:]):
                p = _apply_padding((base - 1 + k).astype(t), size, padding_mode, align_corners)
                points.append(p.astype(np.int64))  # C++'s truncating cast, as PyTorch
            term = _gather(input, points) * np.expand_dims(weights[0][i] * weights[1][j], 1)
            out = term if out is None else out + term
    return np.ascontiguousarray(out)


@kernel("aten::grid_sampler", "aten::_grid_sampler_2d_cpu_fallback")
def grid_sampler(
    input: ndarray, grid: ndarray, interpolation_mode: int, padding_mode: int, align_corners: bool
) -> ndarray:
    if input.ndim not in (4, 5):
        raise TorchScriptError(
            f"grid_sampler(): expected 4D or 5D input and grid with same number of dimensions, but got input with "
            f"sizes {shape_str(input.shape)} and grid with sizes {shape_str(grid.shape)}"
        )
    return grid_sample(input, grid, interpolation_mode, padding_mode, align_corners)


def _grid_sampler_of_rank(n: int) -> Kernel:
    def grid_sampler_nd(input: ndarray, grid: ndarray, interpolation_mode: int, padding_mode: int,
                        align_corners: bool) -> ndarray:  # fmt: skip
        if input.ndim != n + 2:
            raise TorchScriptError(f"grid_sampler_{n}d(): expected {n + 2}D input, got {input.ndim}D")
        return grid_sample(input, grid, interpolation_mode, padding_mode, align_corners)

    return grid_sampler_nd


register_kernel("aten::grid_sampler_2d", _grid_sampler_of_rank(2))
register_kernel("aten::grid_sampler_3d", _grid_sampler_of_rank(3))


def _base_coordinates(steps: int, align_corners: bool, dtype: np.dtype) -> ndarray:
    """PyTorch's `linspace_from_neg_one`."""
    if steps <= 1:
        return np.zeros(steps, dtype)
    values = np.linspace(-1, 1, steps, dtype=dtype)
    if not align_corners:
        values = values * dtype.type((steps - 1) / steps)
    return values


@kernel("aten::affine_grid_generator")
def affine_grid_generator(theta: ndarray, size: Sequence[int], align_corners: bool) -> ndarray:
    """The sampling grid of `size` (N, C, *spatial) that the affine maps `theta`
    (N, n, n + 1) give: (N, *spatial, n), coordinates in (x, y[, z]) order."""
    n = len(size) - 2
    if n not in (2, 3):
        raise TorchScriptError("AffineGridGenerator needs 4d (spatial) or 5d (volumetric) inputs.")
    if theta.dtype.kind != "f" or theta.shape != (size[0], n, n + 1):
        raise TorchScriptError(
            f"Expected a batch of {n}D affine matrices of shape Nx{n}x{n + 1} for size {shape_str(size)}. "
            f"Got {shape_str(theta.shape)}."
        )
    spatial = list(size[2:])
    axes = [_base_coordinates(s, align_corners, theta.dtype) for s in spatial]
    mesh = np.meshgrid(*axes, indexing="ij")  # per spatial dimension (D, H, W order)
    base = np.stack(
        [*reversed(mesh), np.ones(spatial, theta.dtype)], axis=-1
    )  # (*spatial, n + 1): x, y[, z], 1
    flat = base.reshape(1, -1, n + 1)
    grid = np.matmul(flat, theta.transpose(0, 2, 1))  # (N, prod(spatial), n)
    return np.ascontiguousarray(grid.reshape([size[0], *spatial, n]))
