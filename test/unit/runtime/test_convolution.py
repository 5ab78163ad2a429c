"""Convolution and pooling against direct loops over the definition (and PyTorch's numbers for
the ceil_mode / count_include_pad divisors)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from tsjit.runtime.errors import TorchScriptError
from tsjit.runtime.kernels import lookup

f32 = np.float32


def op(name):
    kernel = lookup(name)
    assert kernel is not None, name
    return kernel


def direct_conv2d(x, w, b, stride, padding, dilation, groups):
    """out[n, o, i, j] = b[o] + sum over c, ki, kj of x_padded[n, g*C/G + c, i*s + ki*d, j*s + kj*d] *
    w[o, c, ki, kj]."""
    n, channels, height, width = x.shape
    out_channels, group_channels, kh, kw = w.shape
    xp = np.pad(x.astype(np.float64), [(0, 0), (0, 0), (padding[0],) * 2, (padding[1],) * 2])
    oh = (height + 2 * padding[0] - dilation[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (width + 2 * padding[1] - dilation[1] * (kw - 1) - 1) // stride[1] + 1
    out = np.zeros((n, out_channels, oh, ow))
    per_group = out_channels // groups
    for b_, o, i, j in itertools.product(range(n), range(out_channels), range(oh), range(ow)):
        g = o // per_group
        total = 0.0 if b is None else float(b[o])
        for c, ki, kj in itertools.product(range(group_channels), range(kh), range(kw)):
            total += (
                xp[
                    b_,
                    g * group_channels + c,
                    i * stride[0] + ki * dilation[0],
                    j * stride[1] + kj * dilation[1],
                ]
                * w[o, c, ki, kj]
            )
        out[b_, o, i, j] = total
    return out


@pytest.mark.parametrize(
    "stride, padding, dilation, groups",
    [
        ((1, 1), (0, 0), (1, 1), 1),
        ((2, 1), (1, 2), (1, 1), 1),
        ((1, 2), (2, 1), (2, 1), 2),
        ((2, 2), (1, 1), (1, 1), 4),
    ],
)
def test_conv2d_matches_the_definition(stride, padding, dilation, groups):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 4, 7, 6)).astype(f32)
    w = rng.standard_normal((8, 4 // groups, 3, 2)).astype(f32)
    b = rng.standard_normal(8).astype(f32)
    result = op("aten::conv2d")(x, w, b, list(stride), list(padding), list(dilation), groups)
    assert result.dtype == f32 and result.flags.c_contiguous
    np.testing.assert_allclose(
        result, direct_conv2d(x, w, b, stride, padding, dilation, groups), rtol=1e-4, atol=1e-5
    )


def test_conv_unbatched_same_padding_and_conv1d():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((3, 5, 5)).astype(f32)
    w = rng.standard_normal((2, 3, 3, 3)).astype(f32)
    same = op("aten::conv2d.padding")(x, w, None, [1, 1], "same", [1, 1], 1)
    assert same.shape == (2, 5, 5)
    np.testing.assert_allclose(
        same, direct_conv2d(x[None], w, None, (1, 1), (1, 1), (1, 1), 1)[0], rtol=1e-4, atol=1e-5
    )
    signal = rng.standard_normal((1, 2, 9)).astype(f32)
    kernel = rng.standard_normal((3, 2, 4)).astype(f32)
    result = op("aten::conv1d")(signal, kernel, None, [2], [1], [1], 1)
    expected = direct_conv2d(signal[:, :, None], kernel[:, :, None], None, (1, 2), (0, 1), (1, 1), 1)[:, :, 0]
    np.testing.assert_allclose(result, expected, rtol=1e-4, atol=1e-5)


def direct_conv(x, w, stride, padding, dilation):
    """Any number of spatial dimensions, one group: out[n, o, *i] = sum over c and *k of
    x_padded[n, c, *(i * stride + k * dilation)] * w[o, c, *k]."""
    spatial = x.ndim - 2
    xp = np.pad(x.astype(np.float64), [(0, 0), (0, 0)] + [(p, p) for p in padding])
    kernel = w.shape[2:]
    out_sizes = [
        (xp.shape[2 + d] - dilation[d] * (kernel[d] - 1) - 1) // stride[d] + 1 for d in range(spatial)
    ]
    out = np.zeros((x.shape[0], w.shape[0], *out_sizes))
    for n, o, *i in itertools.product(range(x.shape[0]), range(w.shape[0]), *map(range, out_sizes)):
        for c, *k in itertools.product(range(w.shape[1]), *map(range, kernel)):
            at = tuple(i[d] * stride[d] + k[d] * dilation[d] for d in range(spatial))
            out[(n, o, *i)] += xp[(n, c, *at)] * w[(o, c, *k)]
    return out


@pytest.mark.parametrize("spatial", [1, 2, 3])
def test_conv_of_each_rank_matches_the_definition(spatial):
    rng = np.random.default_rng(spatial)
    x = rng.standard_normal((2, 3, *(5,) * spatial)).astype(f32)
    w = rng.standard_normal((2, 3, *(2,) * spatial)).astype(f32)
    stride, padding, dilation = [2] + [1] * (spatial - 1), [1] * spatial, [1] * (spatial - 1) + [2]
    result = op(f"aten::conv{spatial}d")(x, w, None, stride, padding, dilation, 1)
    assert result.dtype == f32
    np.testing.assert_allclose(result, direct_conv(x, w, stride, padding, dilation), rtol=1e-4, atol=1e-5)
    unbatched = op(f"aten::conv{spatial}d.padding")(x[0], w, None, [1] * spatial, "valid", [1] * spatial, 1)
    expected = direct_conv(x[:1], w, [1] * spatial, [0] * spatial, [1] * spatial)[0]
    np.testing.assert_allclose(unbatched, expected, rtol=1e-4, atol=1e-5)


def test_conv_errors():
    with pytest.raises(
        TorchScriptError,
        match=r"Given groups=1, weight of size \[4, 3, 3, 3\], expected "
        r"input\[1, 2, 5, 5\] to have 3 channels, but got 2 channels instead",
    ):
        op("aten::conv2d")(np.zeros((1, 2, 5, 5), f32), np.zeros((4, 3, 3, 3), f32), None, [1], [0], [1], 1)
    with pytest.raises(TorchScriptError, match="Kernel size can't be greater than actual input size"):
        op("aten::conv2d")(np.zeros((1, 1, 2, 2), f32), np.zeros((1, 1, 3, 3), f32), None, [1], [0], [1], 1)


X = np.arange(25, dtype=f32).reshape(1, 1, 5, 5)


def test_max_pool():
    assert op("aten::max_pool2d")(X, [2, 2], [2, 2], [0, 0], [1, 1], True).reshape(-1).tolist() == [
        6,
        8,
        9,
        16,
        18,
        19,
        21,
        23,
        24,
    ]
    dilated = op("aten::max_pool2d")(X, [2], [1], [1], [2], False)
    assert dilated.shape == (1, 1, 5, 5) and dilated[0, 0, 0].tolist() == [6, 7, 8, 9, 8]
    assert op("aten::max_pool1d")(np.array([[[1.0, -2.0, 3.0]]], f32), [2], [], [0], [1], False).tolist() == [
        [[1.0]]
    ]


@pytest.mark.parametrize(
    "args, expected",
    [
        (([2, 2], [2, 2], [0, 0], True, True, None), [3.0, 5.0, 6.5, 13.0, 15.0, 16.5, 20.5, 22.5, 24.0]),
        (([3, 3], [2, 2], [1, 1], False, False, None), [3.0, 4.5, 6.0, 10.5, 12.0, 13.5, 18.0, 19.5, 21.0]),
        (([3, 3], [2, 2], [1, 1], False, True, None), [4 / 3, 3.0, 8 / 3, 7.0, 12.0, 9.0, 8.0, 13.0, 28 / 3]),
        (([3, 3], [2, 2], [1, 1], True, True, None), [4 / 3, 3.0, 8 / 3, 7.0, 12.0, 9.0, 8.0, 13.0, 28 / 3]),
        (([2, 2], [2, 2], [0, 0], False, True, 1), [12.0, 20.0, 52.0, 60.0]),
    ],
)
def test_avg_pool_divisors(args, expected):
    np.testing.assert_allclose(op("aten::avg_pool2d")(X, *args).reshape(-1), expected, rtol=1e-6)


def test_one_dimensional_pooling():
    x = np.array([[[0.0, 5.0, 1.0, 2.0, 7.0, 3.0, 4.0]]], f32)
    assert op("aten::max_pool1d")(x, [3], [2], [0], [1], False).tolist() == [[[5.0, 7.0, 7.0]]]
    assert op("aten::max_pool1d")(x, [2], [], [1], [1], False).tolist() == [[[0.0, 5.0, 7.0, 4.0]]]
    np.testing.assert_allclose(
        op("aten::avg_pool1d")(x, [3], [2], [0], False, True), [[[2.0, 10 / 3, 14 / 3]]]
    )
    np.testing.assert_allclose(
        op("aten::avg_pool1d")(x, [2], [], [1], False, False), [[[0.0, 3.0, 4.5, 3.5]]]
    )
    with pytest.raises(
        TorchScriptError, match=r"Expected 2D \(unbatched\) or 3D \(batched\) input to avg_pool1d"
    ):
        op("aten::avg_pool1d")(X, [2], [], [0], False, True)


def test_adaptive_avg_pool():
    np.testing.assert_allclose(
        op("aten::adaptive_avg_pool2d")(X, [2, 3]).reshape(-1), [5.5, 7.0, 8.5, 15.5, 17.0, 18.5]
    )
    np.testing.assert_allclose(
        op("aten::adaptive_avg_pool1d")(np.arange(5, dtype=f32).reshape(1, 1, 5), [3]).reshape(-1),
        [0.5, 2.0, 3.5],
    )
    assert op("aten::adaptive_avg_pool2d")(X[0], [1, 1]).tolist() == [[[12.0]]]
