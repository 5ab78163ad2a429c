"""Gradient formulas the OpInfo samples cannot reach (test_opinfo_gradients.py), against
PyTorch and finite differences: recurrent cells, pooling with indices, norms, losses,
einsum, ...

Each case is one scripted function of float64 tensors combining several operators into a
scalar, with the inputs and PyTorch autograd's gradients that
`scripts/generate_formula_gradient_data.py` recorded (`test/data/formula_gradients`).
`tsjit.grad` of it (profiled, then optimized: both calls checked) must match PyTorch's
gradients and, in `make gradients` (`TSJIT_GRADIENTS=full`), central differences
along a random direction; `make gradients` also checks the `SWEEP_ONLY` cases.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

import numpy as np
import pytest

import tsjit


FULL = os.environ.get("TSJIT_GRADIENTS") == "full"
RECORDED = Path(__file__).resolve().parents[3] / "test" / "data" / "formula_gradients" / "gradients.npz"

HEADER = "import torch\nimport torch.nn.functional as F\nfrom typing import List\n\n"

CASES = {
    "recurrent_cells": (
        """
def f(x, h, c, w_ih, w_hh, b_ih, b_hh, w3_ih, w3_hh, b3, w1_ih, w1_hh):
    hy, cy = torch.lstm_cell(x, [h, c], w_ih, w_hh, b_ih, b_hh)
    g = torch.gru_cell(x, h, w3_ih, w3_hh, b3, b3)
    t = torch.rnn_tanh_cell(x, h, w1_ih, w1_hh)
    r = torch.rnn_relu_cell(x, h, w1_ih, w1_hh, b3[:5], None)
    return (hy * cy).sum() + g.sin().sum() + t.sum() + (r * r).sum()
""",
        [(3, 4), (3, 5), (3, 5), (20, 4), (20, 5), (20,), (20,), (15, 4), (15, 5), (15,), (5, 4), (5, 5)],
    ),
    "pooling_and_convolution": (
        """
def f(x, w, v, b):
    a = F.max_pool2d(x, [2], [1], [1])
    p, i = torch.max_pool1d_with_indices(v, [3], [2])
    q = torch.avg_pool1d(v, [2])
    c = F.conv2d(x, w, b, stride=2, padding=1)
    s = F.conv2d(x, w, None, padding='same')
    g = F.conv1d(v, w[:, 0, 0, :].reshape(4, 1, 2), None, groups=2)
    return a.sin().sum() + p.sum() * 2.0 + q.cos().sum() + c.tanh().sum() + s.sin().sum() + g.sum()
""",
        [(2, 2, 5, 5), (4, 2, 2, 2), (2, 2, 7), (4,)],
    ),
    "normalization": (
        """
def f(x, w, b, rm, rv):
    y = F.batch_norm(x, rm.abs(), rv.abs() + 0.5, w, b, True, 0.1, 1e-5)
    z = F.batch_norm(x, rm, rv.abs() + 0.5, w, b, False, 0.1, 1e-5)
    l = F.layer_norm(x, [4, 3], None, None, 1e-5)
    g = F.group_norm(x, 2, w, b, 1e-5)
    v, m = torch.var_mean(x, [0, 2], keepdim=True)
    s, n = torch.std_mean(x, 1)
    return (y * y).sum() + z.sin().sum() + l.tanh().sum() + (g * g).sum() + (v * m).sum() + (s * n).sum()
""",
        [(2, 4, 3), (4,), (4,), (4,), (4,)],
        3,  # the running statistics are buffers: PyTorch does not differentiate them
    ),
    "reductions_and_norms": (
        """
def f(x, y):
    values, indices = torch.topk(x, 2, 1)
    k, _ = torch.kthvalue(x, 2, 0)
    low, high = torch.aminmax(x, dim=1)
    m, _ = torch.median(x, 0)
    return (values.sin().sum() + k.sum() + (low * high).sum() + m.sum() + torch.norm(x, 3, [1]).sum()
            + torch.norm(x, float('inf'), [0]).sum() + torch.norm(y, 1).sum() + torch.nansum(x * y)
            + torch.frobenius_norm(x, [0, 1]) + torch.logsumexp(x, 1).sum() + torch.cumprod(y, 1).sum()
            + torch.prod(y, 0).sum())
""",
        [(4, 5), (4, 5)],
    ),
    "binary_math": (
        """
def f(x, y):
    return (torch.atan2(x, y).sum() + torch.hypot(x, y).sum() + torch.logaddexp(x, y).sum()
            + torch.fmax(x, y).sin().sum() + torch.fmin(x, y).cos().sum() + torch.copysign(x, y).sum()
            + torch.remainder(x, y.abs() + 1.0).sum() + torch.fmod(x, y.abs() + 1.0).sum()
            + torch.clamp(x, y - 0.5, y + 0.5).sum() + torch.div(x, y.abs() + 1.0, rounding_mode=None).sum())
""",
        [(3, 4), (3, 4)],
    ),
    "shapes_and_indexing": (
        """
def f(x, y, s):
    index = torch.tensor([0, 2, 0])
    a = torch.index_add(x, 0, index, y)
    b = torch.index_copy(x, 1, torch.tensor([3, 1]), x[:, :2] * 2.0)
    c = torch.repeat_interleave(x, 2, 1)
    d = torch.tile(s, [2, 1, 2])
    e = torch.vstack([x, y]) + torch.hstack([y, y, y, y])[:, :4].repeat(2, 1)
    g = torch.broadcast_tensors([s, x])
    h = torch.roll(x, [1, -1], [0, 1]).movedim(0, 1).swapaxes(0, 1)
    t = torch.tensor_split(x, 2, 1)
    u = torch.scatter_add(x, 1, torch.tensor([[0, 1], [2, 3], [1, 1]]), y[:, :2])
    return (a.sin().sum() + b.sum() + c.cos().sum() + d.sum() + e.sin().sum() + (g[0] * g[1]).sum()
            + h.tril().sum() + h.triu(1).sin().sum() + (t[0] * t[1]).sum() + u.cos().sum())
""",
        [(3, 4), (3, 4), (4,)],
    ),
    "products": (
        """
def f(a, b, v, m, t1, t2):
    return (torch.einsum('ij,jk->ik', a, b).sin().sum() + torch.einsum('ij,j->', a, v)
            + torch.einsum('bij,bjk->bik', t1, t2).sum() + torch.einsum('ij->j', a).cos().sum()
            + torch.outer(v, v).sum() + torch.inner(v, v) + torch.vdot(v, v)
            + torch.addmv(v[:3], a, v).sum() + torch.addbmm(m, t1, t2).sin().sum())
""",
        [(3, 4), (4, 2), (4,), (3, 3), (2, 3, 4), (2, 4, 3)],
    ),
    "losses_and_activations": (
        """
def f(x, y, w):
    target = torch.tensor([1, 0, 3])
    nn = torch._C._nn
    return (nn.cross_entropy_loss(x, target) + nn.nll_loss(torch.log_softmax(x, 1), target, w)
            + nn.mse_loss(x, y) + nn.l1_loss(x, y) + nn.smooth_l1_loss(x, y) + nn.huber_loss(x, y, 1, 0.5)
            + nn.binary_cross_entropy(torch.sigmoid(x), torch.sigmoid(y))
            + torch.binary_cross_entropy_with_logits(x, torch.sigmoid(y), None, w)
            + torch.kl_div(torch.log_softmax(x, 1), torch.softmax(y, 1), 2) / 3.0
            + F.gelu(x, approximate='tanh').sum() + F.softplus(x, 2.0).sum() + F.elu(x).sum() + F.selu(x).sum()
            + F.celu(x).sum() + F.hardswish(x).sum() + F.mish(x).sum() + F.glu(x, 1).sum() + F.silu(x).sum()
            + F.prelu(x, w[:1]).sum() + F.softshrink(x).sum() + F.hardtanh(x).sum() + F.logsigmoid(x).sum())
""",
        [(3, 4), (3, 4), (4,)],
        2,  # class weights: PyTorch does not differentiate them
    ),
    "scatter_reduce_and_margin_losses": (
        """
def f(x, y, z):
    index = torch.tensor([[0, 1, 0, 2], [2, 2, 1, 0], [1, 0, 0, 0]])
    a = torch.scatter_reduce(x, 0, index, y, 'mean', include_self=False)
    b = torch.scatter_reduce(x, 0, index, y, 'amax')
    return (a * b).sum() + F.margin_ranking_loss(x, y, z, 0.5) + F.poisson_nll_loss(x, y.abs() + 2.0, True, True)
""",
        [(3, 4), (3, 4), (3, 4)],
    ),
}


@functools.cache
def recorded() -> dict[str, np.ndarray]:
    with np.load(RECORDED) as npz:
        return {key: npz[key] for key in npz.files}


SWEEP_ONLY = frozenset({"scatter_reduce_and_margin_losses"})
"""Cases only `make gradients` checks: compiling them would cost `make test` too much."""


@pytest.mark.parametrize("name", sorted(n for n in CASES if FULL or n not in SWEEP_ONLY))
def test_formulas_match_pytorch_and_finite_differences(name: str):
    source, shapes, *differentiated = CASES[name]
    function = tsjit.script(HEADER + source, entry="f")
    arguments = [recorded()[f"{name}/input/{k}"] for k in range(len(shapes))]
    argnums = tuple(range(differentiated[0] if differentiated else len(arguments)))
    expected = [recorded()[f"{name}/grad/{k}"] for k in argnums]
    rng = np.random.default_rng(len(name))
    for call in ("profiled", "optimized"):
        grads = tsjit.grad(function, argnums)(*arguments)
        for k, (actual, want) in enumerate(zip(grads, expected, strict=True)):
            np.testing.assert_allclose(actual, want, rtol=1e-7, atol=1e-9, err_msg=f"{call}: argument {k}")
        if not FULL:
            continue  # finite differences compile the plain function too: make gradients
        directions = [rng.standard_normal(shapes[k]) if k in argnums else 0.0 for k in range(len(shapes))]
        analytic = sum(float(np.sum(g * d)) for g, d in zip(grads, directions))
        values = [float(function(*[a + sign * 1e-6 * d for a, d in zip(arguments, directions)])) for sign in (1, -1)]
        numeric = (values[0] - values[1]) / 2e-6
        assert np.isclose(analytic, numeric, rtol=1e-4, atol=1e-5), f"{call}: {analytic} != {numeric}"
