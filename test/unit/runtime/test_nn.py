"""nn kernels: softmax, normalizations, dropout, embedding, recurrent cells, losses, padding.

Expected values come from torch.nn.functional (PyTorch 2.13) on the same inputs.
"""

from __future__ import annotations

import numpy as np
import pytest

from tsjit.runtime.errors import TorchScriptError
from tsjit.runtime.kernels import lookup

f32, i64 = np.float32, np.int64
MEAN, SUM, NONE = 1, 2, 0


def op(name):
    kernel = lookup(name)
    assert kernel is not None, name
    return kernel


def a(values, dtype=f32):
    return np.array(values, dtype=dtype)


def close(actual, expected, rtol=1e-5, atol=1e-6):
    np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol)


def sigmoid(v):
    return 1 / (1 + np.exp(-v))


def test_softmax_and_log_softmax():
    result = op("aten::softmax.int")(a([[1.0, 2.0, 3.0]]), 1, None)
    assert result.dtype == f32
    close(result, [[0.09003057, 0.24472848, 0.66524094]])
    close(op("aten::log_softmax.int")(a([1000.0, 0.0]), 0, None), [0.0, -1000.0])
    assert op("aten::softmax.int")(a([1, 2], i64), 0, 7).dtype == np.float64  # dtype=Double casts first
    with pytest.raises(TorchScriptError, match="not implemented for 'Long'"):
        op("aten::softmax.int")(a([1, 2], i64), 0, None)


def test_softmax_of_empty_and_zero_dim_tensors():
    empty = a(np.zeros((0, 3)))
    for name in ("aten::softmax.int", "aten::log_softmax.int"):
        result = op(name)(empty, 0, None)
        assert result.shape == (0, 3) and result is not empty
    assert op("aten::softmax.int")(a(2.5), 0, None).tolist() == 1.0
    assert op("aten::log_softmax.int")(a(2.5), -1, None).tolist() == 0.0
    assert op("aten::log_softmax.int")(a([[1, 1]], i64), 1, 6).dtype == f32


def test_layer_norm():
    x = a([[1.0, 2.0, 4.0], [0.0, 0.0, 3.0]])
    result = op("aten::layer_norm")(x, [3], a([1.0, 2.0, 3.0]), a([0.0, 1.0, 0.0]), 1e-5, True)
    close(result, [[-1.0690414, 0.46547943, 4.0089054], [-0.707105, -0.41420996, 4.24263]])
    with pytest.raises(
        TorchScriptError,
        match=r"Given normalized_shape=\[2\], expected input with shape \[\*, 2\], "
        r"but got input of size\[2, 3\]",
    ):
        op("aten::layer_norm")(x, [2], None, None, 1e-5, True)


def test_batch_norm_eval_and_training():
    x = a([[1.0, 2.0], [3.0, 6.0]])
    result = op("aten::batch_norm")(
        x, a([1.0, 0.0]), a([0.5, 1.0]), a([0.5, 1.0]), a([2.0, 4.0]), False, 0.1, 1e-5, True
    )
    close(result, [[0.85355246, 1.0], [2.2677624, 1.0]])
    running_mean, running_var = a([0.0, 0.0]), a([1.0, 1.0])
    result = op("aten::batch_norm")(x, None, None, running_mean, running_var, True, 0.1, 1e-5, True)
    close(result, [[-0.999995, -0.99999875], [0.999995, 0.99999875]])
    close(running_mean, [0.2, 0.4])
    close(running_var, [1.1, 1.7])


def test_group_norm():
    result = op("aten::group_norm")(np.arange(8, dtype=f32).reshape(1, 4, 2), 2, None, None, 1e-5, True)
    close(result, [[[-1.3416355, -0.4472118], [0.4472118, 1.3416355]] * 2])


def test_dropout():
    x = np.ones((100, 100), f32)
    assert op("aten::dropout")(x, 0.5, False) is x
    kept = op("aten::dropout")(x, 0.25, True)
    assert set(np.unique(kept).tolist()) <= {0.0, np.float32(1 / 0.75)} and 0.2 < (kept == 0).mean() < 0.3
    assert not op("aten::dropout")(x, 1.0, True).any()
    channels = op("aten::feature_dropout")(np.ones((2, 50, 3), f32), 0.5, True)
    assert all(len(np.unique(channels[n, c])) == 1 for n in range(2) for c in range(50))
    with pytest.raises(TorchScriptError, match="dropout probability has to be between 0 and 1, but got 1.5"):
        op("aten::dropout")(x, 1.5, True)


def test_embedding_and_one_hot():
    weight = np.arange(6, dtype=f32).reshape(3, 2)
    assert op("aten::embedding")(weight, a([[2, 0]], i64), -1, False, False).tolist() == [[[4, 5], [0, 1]]]
    with pytest.raises(TorchScriptError, match="index out of range in self"):
        op("aten::embedding")(weight, a([3], i64), -1, False, False)
    assert op("aten::one_hot")(a([0, 2], i64), -1).tolist() == [[1, 0, 0], [0, 0, 1]]


def test_recurrent_cells():
    x, h, c = a([[1.0, -1.0]]), a([[0.5]]), a([[0.25]])
    w_ih = a([[0.1, 0.2], [0.3, -0.4], [0.5, 0.6], [-0.7, 0.8]])
    w_hh = a([[0.1], [0.2], [0.3], [0.4]])
    hy, cy = op("aten::lstm_cell")(x, [h, c], w_ih, w_hh, a([0.0, 0.1, 0.2, 0.3]), a([0.1, 0.0, 0.0, 0.0]))
    close(hy, [[0.07914701]])
    close(cy, [[0.30325755]])
    gru = op("aten::gru_cell")(x, h, w_ih[:3], w_hh[:3], a([0.0, 0.1, 0.2]), a([0.1, 0.0, 0.0]))
    close(gru, [[0.4060739]])
    close(op("aten::rnn_tanh_cell")(x, h, w_ih[:1], w_hh[:1], None, None), [[np.tanh(-0.1 + 0.05)]])


def test_one_state_cells_follow_their_formulas():
    rng = np.random.default_rng(0)
    x, h = rng.standard_normal((2, 3)).astype(f32), rng.standard_normal((2, 4)).astype(f32)
    w_ih, w_hh = rng.standard_normal((12, 3)).astype(f32), rng.standard_normal((12, 4)).astype(f32)
    b_ih, b_hh = rng.standard_normal(12).astype(f32), rng.standard_normal(12).astype(f32)
    gi, gh = x @ w_ih.T + b_ih, h @ w_hh.T + b_hh
    close(op("aten::rnn_tanh_cell")(x, h, w_ih[:4], w_hh[:4], b_ih[:4], b_hh[:4]), np.tanh(gi + gh)[:, :4])
    relu = op("aten::rnn_relu_cell")(x, h, w_ih[:4], w_hh[:4], None, None)
    assert relu.dtype == f32
    close(relu, np.maximum(x @ w_ih[:4].T + h @ w_hh[:4].T, 0))
    reset, update = sigmoid(gi[:, :4] + gh[:, :4]), sigmoid(gi[:, 4:8] + gh[:, 4:8])
    new = np.tanh(gi[:, 8:] + reset * gh[:, 8:])
    close(op("aten::gru_cell")(x, h, w_ih, w_hh, b_ih, b_hh), (1 - update) * new + update * h, rtol=1e-4)


def test_losses():
    logits = a([[1.0, 2.0, 3.0], [1.0, 0.0, -1.0]])
    target = a([2, 0], i64)
    close(op("aten::cross_entropy_loss")(logits, target, None, MEAN, -100, 0.0), 0.40760595)
    close(op("aten::cross_entropy_loss")(logits, target, None, MEAN, -100, 0.1), 0.5076059)
    weighted = op("aten::cross_entropy_loss")(logits, a([2, -100], i64), a([1.0, 2.0, 3.0]), MEAN, -100, 0.0)
    close(weighted, 0.40760598)
    close(op("aten::nll_loss")(a([[-1.0, -2.0], [-3.0, -4.0]]), a([1, 0], i64), None, SUM, -100), 5.0)
    close(op("aten::binary_cross_entropy")(a([0.2, 0.9]), a([0.0, 1.0]), None, MEAN), 0.16425206)
    bce = op("aten::binary_cross_entropy_with_logits")(
        a([0.5, -2.0]), a([1.0, 0.0]), None, a([2.0, 2.0]), MEAN
    )
    close(bce, 0.53754103)
    close(op("aten::smooth_l1_loss")(a([0.0, 2.0]), a([0.5, 0.0]), MEAN, 1.0), 0.8125)
    close(op("aten::huber_loss")(a([0.0, 2.0]), a([0.5, 0.0]), MEAN, 0.5), 0.5)
    assert op("aten::mse_loss")(a([1.0, 3.0]), a([0.0, 0.0]), NONE).tolist() == [1.0, 9.0]
    assert op("aten::l1_loss")(a([1.0, -3.0]), a([0.0, 0.0]), SUM).tolist() == 4.0
    with pytest.raises(TorchScriptError, match="Target 5 is out of bounds."):
        op("aten::nll_loss")(logits, a([5, 0], i64), None, MEAN, -100)


def test_cosine_similarity():
    result = op("aten::cosine_similarity")(
        a([[1.0, 0.0], [1.0, 1.0]]), a([[1.0, 1.0], [-1.0, -1.0]]), 1, 1e-8
    )
    close(result, [0.70710677, -0.99999994])


def test_padding():
    row = np.arange(3, dtype=f32).reshape(1, 3)
    assert op("aten::pad")(row, [2, 1], "reflect", None).tolist() == [[2, 1, 0, 1, 2, 1]]
    assert op("aten::pad")(row, [1, 2], "replicate", None).tolist() == [[0, 0, 1, 2, 2, 2]]
    assert op("aten::constant_pad_nd")(np.arange(4, dtype=f32).reshape(1, 4), [-1, 2], 9.0).tolist() == [
        [1, 2, 3, 9, 9]
    ]
    with pytest.raises(TorchScriptError, match="Length of pad must be even"):
        op("aten::constant_pad_nd")(row, [1], 0)


def test_pixel_shuffle():
    result = op("aten::pixel_shuffle")(np.arange(8, dtype=f32).reshape(1, 8, 1, 1), 2)
    assert result.shape == (1, 2, 2, 2) and result.reshape(-1).tolist() == list(range(8))


def test_embedding_renorm_rescales_only_picked_rows_over_the_bound():
    weight = np.array([[3.0, 4.0], [0.3, 0.4], [6.0, 8.0]], dtype=np.float32)
    out = lookup("aten::embedding_renorm_")(weight, np.array([0, 1, 0]), 1.0, 2.0)
    assert out is weight  # in place
    # row 0 has norm 5 > 1: scaled by 1 / (5 + 1e-7); row 1 (norm 0.5) and row 2 (not picked) stay
    np.testing.assert_allclose(weight[0], [0.6, 0.8], rtol=1e-6)
    np.testing.assert_array_equal(weight[1], np.array([0.3, 0.4], dtype=np.float32))
    np.testing.assert_array_equal(weight[2], np.array([6.0, 8.0], dtype=np.float32))
