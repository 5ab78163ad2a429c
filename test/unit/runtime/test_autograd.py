"""Autograd's contract: the engine, views and in-place writes, grad mode, the functional
interface, modules' `.grad`, `torch.autograd.grad` in scripted code, optimizers.

Gradients are checked against numpy's own derivative of each function; the gradients
of every conformance case are checked in test/conformance/test_gradients.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import tsjit
from tsjit import torch
from tsjit.diagnostics import TsjitError
from tsjit.runtime.autograd import Variable, backward, grad, no_grad
from tsjit.runtime.errors import TorchScriptError
from tsjit.runtime.modules import module_object, parameters

SOURCE = """
import torch
from typing import List

def tanh_layer(x, w, b):
    return torch.tanh(x.mm(w) + b).sum()

def of_list(xs: List[torch.Tensor]):
    return (xs[0] * xs[1]).sum()

def constant(x, y):
    return (y * 2.0).sum()

def grad_in_script(x, w):
    y = (x * w).sum()
    gx = torch.autograd.grad([y], [x])
    return gx[0]

def doubled_without_grad(x):
    with torch.no_grad():
        y = x * 2
    return y, x * 3

def saves_then_writes(x):
    y = x * 1.0
    z = y.sin()
    y.add_(1.0)
    return z, y

def through_a_view(x):
    y = x.clone()
    y[0] = y[0] * 3.0
    return y.sum()

def mlp(x, w1, w2):
    return torch.relu(x.mm(w1)).mm(w2).sum()

def blocks(a, b):
    result = torch.zeros([3, 4], dtype=a.dtype)
    result.narrow(0, 0, 1).narrow(1, 0, 2).copy_(a)
    result.narrow(0, 1, 2).narrow(1, 2, 2).copy_(b)
    return result

def strided_write(a, b):
    result = a.clone()
    torch.as_strided(result, [2, 2], [1, 2], 0).copy_(b)
    return result

def sorted_values(x):
    return torch.sort(x, 0, True)[0] * torch.msort(x)

def sinc(x):
    return torch.sinc(x)

def legit_batch_norm(x, w, b, mean, var):
    y = torch.ops.aten._native_batch_norm_legit(x, w, b, mean, var, True, 0.5, 1e-5)[0]
    return (y * y.cos()).sum()

def batch_norm(x, w, b, mean, var):
    y = torch.batch_norm(x, w, b, mean, var, True, 0.5, 1e-5, False)
    return (y * y.cos()).sum()
"""

RNG = np.random.default_rng(0)


def _array(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def _script(name: str) -> tsjit.ScriptFunction:  # pyright: ignore[reportAttributeAccessIssue]
    return tsjit.script(SOURCE, entry=name)


# --------------------------------------------------------------------------------------
# The engine, on the shim's eager tensors
# --------------------------------------------------------------------------------------


def test_backward_accumulates_into_leaves():
    x = torch.tensor(_array(3), requires_grad=True)
    for _ in range(2):
        (x * x).sum().backward()
    np.testing.assert_allclose(x.grad.array, 4 * x.array, rtol=1e-6)
    assert x.grad.requires_grad is False and x.is_leaf


def test_grad_returns_without_accumulating():
    x = torch.tensor(_array(3), requires_grad=True)
    (dx,) = grad([(x.exp()).sum()], [x])
    np.testing.assert_allclose(dx, np.exp(x.array), rtol=1e-6)
    assert x.grad is None


def test_second_backward_needs_retain_graph():
    x = torch.tensor(_array(3), requires_grad=True)
    y = (x.sin() * 2).sum()
    y.backward(retain_graph=True)
    y.backward()
    np.testing.assert_allclose(x.grad.array, 4 * np.cos(x.array), rtol=1e-5)
    with pytest.raises((RuntimeError, TorchScriptError), match="Trying to backward through the graph a second time"):
        y.backward()


def test_unshared_gradients_are_not_copied_but_shared_ones_are():
    a = torch.tensor(_array(3), requires_grad=True)
    b = torch.tensor(_array(3), requires_grad=True)
    (a + b).sum().backward()  # one gradient array reaches both leaves
    a.grad.array[0] = 7.0
    assert b.grad.array[0] == 1.0
    c = torch.tensor(_array(2, 3), requires_grad=True)
    (c * 2.0).t().sum().backward()
    np.testing.assert_array_equal(c.grad.array, np.full((2, 3), 2.0, np.float32))


def test_gradients_take_their_leafs_layout():
    """PyTorch's layout contract: `.grad` has its variable's strides (a transposed
    gradient is copied into them, a column-major leaf gets a column-major gradient)."""
    rows = torch.tensor(_array(4, 3), requires_grad=True)
    columns = torch.tensor(np.asfortranarray(_array(4, 3)), requires_grad=True)
    for leaf in (rows, columns):
        weights = _array(4, 3)
        (leaf.t() * torch.tensor(weights.T)).sum().backward()  # the gradient arrives as a transposed view
        assert leaf.grad.array.strides == leaf.array.strides
        np.testing.assert_array_equal(leaf.grad.array, weights)


def test_eager_writes_through_views_of_a_tensor_that_requires_no_grad():
    """`r[0] = a`, `r[0].copy_(a)`, `r.narrow(...).narrow(...).copy_(a)`: the view knows
    its base although nothing required grad when it was taken, so `r` records the write."""
    writes = [
        lambda r, a: r.__setitem__(0, a),
        lambda r, a: r[1].copy_(a),
        lambda r, a: r.narrow(0, 0, 2).narrow(1, 0, 3).copy_(a.expand(2, 3)),
    ]
    cotangent = _array(2, 3)
    expected = [cotangent[0], cotangent[1], cotangent.sum(0)]
    for write, want in zip(writes, expected):
        a = torch.tensor(_array(3), requires_grad=True)
        r = torch.zeros(2, 3)
        write(r, a)
        assert r.requires_grad
        (r * torch.tensor(cotangent)).sum().backward()
        np.testing.assert_allclose(a.grad.array, want, rtol=1e-6)


@pytest.mark.parametrize("take", [lambda x: x.view(2, 3), lambda x: x[1], lambda x: x.t()], ids=["view", "select", "t"])
def test_a_view_taken_before_its_base_required_grad_joins_its_history(take: object):
    """`v = x.view(...)`, then `x[0] = a`: `v` is part of the graph from then on, as in
    PyTorch (its grad_fn made through its base on its next use)."""
    x = torch.zeros(2, 3)
    v = take(x)  # pyright: ignore[reportCallIssue]
    a = torch.tensor(_array(3), requires_grad=True)
    x[0] = a * 2.0
    weights = _array(*v.shape)
    y = (v * torch.tensor(weights)).sum()
    assert y.requires_grad
    y.backward()
    seen = np.zeros((2, 3), np.float32)
    take(torch.from_numpy(seen)).array[...] = weights  # pyright: ignore[reportCallIssue]
    np.testing.assert_allclose(a.grad.array, 2.0 * seen[0], rtol=1e-6)


def test_eager_write_to_a_saved_tensor_that_requires_no_grad_raises():
    x = torch.tensor(_array(3))
    w = torch.tensor(_array(3), requires_grad=True)
    y = (x * w).sum()
    x.add_(1.0)
    with pytest.raises((RuntimeError, TorchScriptError), match="modified by an inplace operation"):
        y.backward()


@pytest.mark.parametrize("take", [
    lambda x: x.view(6), lambda x: x[1], lambda x: x.t(), lambda x: x.view(6)[2:], lambda x: x.reshape(3, 2),
], ids=["view", "select", "t", "view-of-view", "reshape"])  # fmt: skip
@pytest.mark.parametrize("written", ["view", "base"])
def test_a_view_of_a_tensor_without_a_version_count_shares_its_base_count(take: object, written: str):
    """A view of a tensor never written nor saved records only its base (the count is
    made on first use): a write through the view still moves the count of its base
    saved for backward, and a write to the base the count of the view saved."""
    x = torch.tensor(_array(2, 3))
    view = take(x)  # pyright: ignore[reportCallIssue]
    if written == "view":
        y = (x * torch.tensor(_array(2, 3), requires_grad=True)).sum()
        view.add_(1.0)
    else:
        y = (view * torch.tensor(_array(*view.shape), requires_grad=True)).sum()
        x.add_(1.0)
    with pytest.raises((RuntimeError, TorchScriptError), match="modified by an inplace operation"):
        y.backward()


def test_backward_of_a_non_scalar_needs_a_gradient():
    x = torch.tensor(_array(3), requires_grad=True)
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar outputs"):
        (x * 2).backward()
    (x * 2).backward(torch.ones(3))
    np.testing.assert_array_equal(x.grad.array, np.full(3, 2.0, np.float32))


def test_in_place_write_through_a_view_reaches_the_base():
    x = torch.tensor(_array(2, 3), requires_grad=True)
    y = x * 1.0
    y[0].mul_(3.0)
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.array, np.array([[3, 3, 3], [1, 1, 1]], np.float32))


def test_no_grad_records_nothing():
    x = torch.tensor(_array(3), requires_grad=True)
    with torch.no_grad():
        y = x * 2
    assert not y.requires_grad and y.grad_fn is None
    assert torch.is_grad_enabled()


# --------------------------------------------------------------------------------------
# Scripted code
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("backend", ["interp", "llvm"])
def test_scripted_backward_matches_the_derivative(backend: str):
    function = _script("mlp").to_backend(backend)
    x, w1, w2 = _array(4, 3), _array(3, 5), _array(5, 2)
    for _ in range(3):  # profiled, then optimized with differentiable graphs
        t1, t2 = (torch.tensor(w, requires_grad=True) for w in (w1, w2))
        function(torch.tensor(x), t1, t2).backward()
        hidden = x @ w1
        grad_hidden = np.ones((4, 2), np.float32) @ w2.T * (hidden > 0)
        np.testing.assert_allclose(t2.grad.array, np.maximum(hidden, 0).T @ np.ones((4, 2)), rtol=1e-5)
        np.testing.assert_allclose(t1.grad.array, x.T @ grad_hidden, rtol=1e-5, atol=1e-6)


def test_scripted_no_grad_block():
    function = _script("doubled_without_grad")
    x = torch.tensor(_array(3), requires_grad=True)
    for _ in range(3):
        doubled, tripled = function(x)
        assert not doubled.requires_grad and tripled.requires_grad


def test_autograd_grad_in_scripted_code():
    function = _script("grad_in_script")
    x, w = _array(2, 3), _array(2, 3)
    for _ in range(3):
        gx = function(torch.tensor(x, requires_grad=True), torch.tensor(w))
        np.testing.assert_array_equal(gx.array, w)


def test_in_place_write_to_a_saved_tensor_raises():
    function = _script("saves_then_writes")
    for _ in range(3):
        z, _ = function(torch.tensor(_array(3), requires_grad=True))
        with pytest.raises(TorchScriptError, match="one of the variables needed for gradient computation has been "
                                                   "modified by an inplace operation"):  # fmt: skip
            z.sum().backward()


def test_scripted_write_through_a_view():
    function = _script("through_a_view")
    for _ in range(3):
        x = torch.tensor(_array(2, 3), requires_grad=True)
        function(x).backward()
        np.testing.assert_array_equal(x.grad.array, np.array([[3, 3, 3], [1, 1, 1]], np.float32))


def test_writes_through_views_of_a_tensor_that_requires_no_grad():
    """The first write makes the base require grad; both writes reach their sources."""
    f = _script("blocks")
    a = torch.tensor(_array(1, 2), requires_grad=True)
    b = torch.tensor(_array(2, 2), requires_grad=True)
    cotangent = _array(3, 4)
    for _ in range(2):  # profiled, then optimized
        a.grad = b.grad = None
        f(a, b).backward(torch.tensor(cotangent))
        np.testing.assert_array_equal(a.grad.array, cotangent[:1, :2])
        np.testing.assert_array_equal(b.grad.array, cotangent[1:, 2:])


def test_write_through_a_view_the_table_cannot_differentiate():
    """as_strided has no formula, but a write through it still rebases its base's history."""
    f = _script("strided_write")
    a = torch.tensor(_array(3, 3), requires_grad=True)
    b = torch.tensor(_array(2, 2), requires_grad=True)
    cotangent = _array(3, 3)
    f(a, b).backward(torch.tensor(cotangent))
    written = cotangent.reshape(-1)[:4]  # storage offsets 0, 2, 1, 3 hold b
    np.testing.assert_array_equal(b.grad.array, written[[0, 2, 1, 3]].reshape(2, 2))
    np.testing.assert_array_equal(a.grad.array.reshape(-1), np.concatenate([np.zeros(4, np.float32), cotangent.reshape(-1)[4:]]))


def test_sorted_values_are_differentiable():
    f = _script("sorted_values")
    x = torch.tensor(_array(5, 2), requires_grad=True)
    descending, ascending = np.sort(x.array, 0)[::-1], np.sort(x.array, 0)
    f(x).sum().backward()
    expected = np.zeros_like(x.array)
    for column in range(2):
        order = np.argsort(x.array[:, column])
        expected[order[::-1], column] += ascending[:, column]
        expected[order, column] += descending[:, column]
    np.testing.assert_allclose(x.grad.array, expected, rtol=1e-6)


def test_sinc_is_flat_at_zero():
    x = torch.tensor(np.array([0.0, 0.5]), requires_grad=True)
    _script("sinc")(x).sum().backward()
    assert x.grad.array[0] == 0.0
    np.testing.assert_allclose(x.grad.array[1], (0.5 * np.pi * np.cos(0.5 * np.pi) - np.sin(0.5 * np.pi)) / (0.5 * 0.5 * np.pi))


def test_results_pytorch_does_not_differentiate_require_no_grad():
    """linalg.lu's permutation and lstsq's singular values never require grad."""
    a = torch.tensor(_array(3, 3), requires_grad=True)
    p, lower, upper = torch.linalg.lu(a)
    assert not p.requires_grad and lower.requires_grad and upper.requires_grad
    solution, _, _, singular_values = torch.linalg.lstsq(a, torch.tensor(_array(3, 2)), driver="gelsd")
    assert solution.requires_grad and not singular_values.requires_grad


def test_resizing_a_tensor_that_requires_grad_raises():
    x = torch.tensor(_array(2, 3), requires_grad=True)
    with pytest.raises(RuntimeError, match="cannot resize variables that require grad"):
        x.resize_(3, 2)
    y = torch.tensor(_array(2, 3))
    assert y.resize_(3, 2).shape == (3, 2)


def test_batch_norm_updating_its_statistics_in_place_is_differentiable():
    """_native_batch_norm_legit writes the running statistics (which take no gradient)
    and differentiates as batch_norm does."""
    inputs = [_array(4, 3, 2), _array(3), _array(3)]
    grads, means = [], []
    for name in ("legit_batch_norm", "batch_norm"):
        leaves = [torch.tensor(a.copy(), requires_grad=True) for a in inputs]
        mean, var = torch.tensor(np.zeros(3, np.float32)), torch.tensor(np.ones(3, np.float32))
        _script(name)(*leaves, mean, var).backward()
        grads.append([leaf.grad.array for leaf in leaves])
        means.append(mean.array)
    for legit, reference in zip(*grads):
        np.testing.assert_allclose(legit, reference, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(means[0], 0.5 * inputs[0].mean(axis=(0, 2)), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(means[0], means[1])


def test_missing_formula_names_the_op_and_the_line():
    function = tsjit.script("import torch\ndef f(x):\n    y = x * 2.0\n    return torch.normal(y, 1.0).sum()\n", entry="f")
    x = torch.tensor(_array(3), requires_grad=True)
    with pytest.raises((TsjitError, TorchScriptError), match="cannot differentiate aten::normal: the gradient "
                                                             "table has no formula for it") as raised:  # fmt: skip
        for _ in range(3):
            function(x).backward()
    assert ":4" in str(raised.value)


def test_an_op_without_formula_runs_forward_and_fails_backward():
    function = tsjit.script("import torch\ndef f(x):\n    return torch.special.i1(x * 2.0)\n", entry="f")
    x = torch.tensor(_array(3), requires_grad=True)
    result = function(x)
    assert result.requires_grad
    np.testing.assert_allclose(result.array, np.asarray(function(x.detach())))
    with pytest.raises(TorchScriptError, match="cannot differentiate aten::special_i1") as raised:
        result.sum().backward()
    assert ":3" in str(raised.value)


def test_an_op_without_formula_differentiates_through_its_decomposition():
    function = tsjit.script("import torch\ndef f(x, y):\n    return torch.kron(x, y)\n", entry="f")
    x, y = torch.tensor(_array(2), requires_grad=True), torch.tensor(np.array([1.0, -2.0, 3.0], np.float32))
    function(x, y).sum().backward()
    np.testing.assert_allclose(x.grad.array, np.full(2, 2.0, np.float32))  # d/dx_i sum(x_i * y) = sum(y)


def test_an_argument_pytorch_does_not_differentiate_raises():
    function = tsjit.script("import torch\ndef f(x, w):\n    return torch.nll_loss(torch.log_softmax(x * 2.0, 1), "
                            "torch.tensor([1, 0]), w)\n", entry="f")  # fmt: skip
    for _ in range(3):  # the recording, then the differentiated graph
        with pytest.raises(TorchScriptError, match="The function 'nll_loss' is not differentiable with respect to "
                                                   "argument 'weight'. This input cannot have requires_grad True."):  # fmt: skip
            function(torch.tensor(_array(2, 3), requires_grad=True), torch.tensor(_array(3), requires_grad=True))


# --------------------------------------------------------------------------------------
# tsjit.grad and tsjit.value_and_grad (JAX's convention)
# --------------------------------------------------------------------------------------


def test_grad_with_argnums_tuple():
    x, w, b = _array(3, 4), _array(4, 5), _array(5)
    gx, gb = tsjit.grad(_script("tanh_layer"), argnums=(0, 2))(x, w, b)
    d = 1 - np.tanh(x @ w + b) ** 2
    assert isinstance(gx, np.ndarray) and gx.shape == x.shape and gb.shape == b.shape
    np.testing.assert_allclose(gx, d @ w.T, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(gb, d.sum(0), rtol=1e-5, atol=1e-6)


def test_value_and_grad_with_one_argnum():
    x, w, b = _array(3, 4), _array(4, 5), _array(5)
    value, gw = tsjit.value_and_grad(_script("tanh_layer"), 1)(x, w, b)
    np.testing.assert_allclose(value, np.tanh(x @ w + b).sum(), rtol=1e-5)
    np.testing.assert_allclose(gw, x.T @ (1 - np.tanh(x @ w + b) ** 2), rtol=1e-5, atol=1e-6)


def test_grad_of_a_list_and_of_an_unused_argument():
    a, b = _array(3), _array(3)
    (ga, gb) = tsjit.grad(_script("of_list"))([a, b])
    np.testing.assert_array_equal(ga, b)
    np.testing.assert_array_equal(gb, a)
    gx = tsjit.grad(_script("constant"))(a, b)
    np.testing.assert_array_equal(gx, np.zeros(3, np.float32))


def test_grad_rejects_bad_arguments():
    function = _script("tanh_layer")
    with pytest.raises(TsjitError, match="argnums"):
        tsjit.grad(function, argnums=())
    with pytest.raises(TsjitError, match="not a floating-point tensor"):
        tsjit.grad(function)(np.ones((3, 4), np.int64), _array(4, 5), _array(5))
    with pytest.raises(TsjitError, match="scalar"):
        tsjit.grad(_script("doubled_without_grad"))(_array(3))


# --------------------------------------------------------------------------------------
# Modules: scripted and loaded, parameters' .grad, optimizers
# --------------------------------------------------------------------------------------


class _Net(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = torch.nn.Linear(3, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.tanh(self.fc(x)).sum()


def test_scripted_module_accumulates_into_parameters():
    torch.manual_seed(0)
    model = tsjit.script(_Net())
    x = _array(4, 3)
    names = [name for name, _ in model.named_parameters()]
    assert names == ["fc.weight", "fc.bias"]
    weight, bias = model.parameters()
    for calls in (1, 2, 3):
        model(torch.tensor(x)).backward()
        d = 1 - np.tanh(x @ weight.array.T + bias.array) ** 2
        np.testing.assert_allclose(bias.grad.array, calls * d.sum(0), rtol=1e-5)
        np.testing.assert_allclose(weight.grad.array, calls * d.T @ x, rtol=1e-5, atol=1e-6)
    with torch.no_grad():
        assert not isinstance(model(torch.tensor(x)), Variable)  # the executor's own arrays


def test_loaded_module_accumulates_into_parameters(tmp_path: Path):
    program = tsjit.load(_write(tmp_path / "net.py", NET))
    spec = {"type": "__torch__.net.Net", "parameters": {"fc.weight": _encoded(_array(2, 3)), "fc.bias": _encoded(_array(2))}}
    module = module_object(spec, program, trainable=True)
    forward = tsjit.compile(program, autograd=True)
    x = _array(4, 3)
    for _ in range(3):
        forward(module, x).backward()
    weight, bias = parameters(module).values()
    active = (x @ weight.array.T + bias.array > 0).astype(np.float32)
    np.testing.assert_allclose(bias.grad.array, 3 * active.sum(0), rtol=1e-6)
    np.testing.assert_allclose(weight.grad.array, 3 * active.T @ x, rtol=1e-5)


NET = """
import torch
class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(3, 2)

    def forward(self, x):
        return torch.relu(self.fc(x)).sum()
"""


def _write(path: Path, text: str) -> str:
    path.write_text(text, encoding="utf-8")
    return str(path)


def _encoded(array: np.ndarray) -> dict[str, object]:
    from tsjit.runtime.values import encode_value

    return json.loads(json.dumps(encode_value(array)))


def test_sgd_and_adam_follow_pytorchs_update_rules():
    start = _array(3)
    gradient = _array(3)
    p = torch.nn.Parameter(torch.tensor(start.copy()))
    sgd = torch.optim.SGD([p], lr=0.1, momentum=0.9, weight_decay=0.01)
    buffer = None
    expected = start.copy()
    for _ in range(3):
        sgd.zero_grad()
        p.grad = torch.tensor(gradient)
        sgd.step()
        g = gradient + 0.01 * expected
        buffer = g if buffer is None else 0.9 * buffer + g
        expected = expected - 0.1 * buffer
    np.testing.assert_allclose(p.array, expected, rtol=1e-6)
    q = torch.nn.Parameter(torch.tensor(start.copy()))
    adam = torch.optim.Adam([q], lr=0.01)
    q.grad = torch.tensor(gradient)
    adam.step()  # the first step moves each element by lr against its gradient's sign
    np.testing.assert_allclose(q.array, start - 0.01 * np.sign(gradient), rtol=1e-4)


def test_variables_outside_the_shim():
    x = Variable(_array(3), requires_grad=True)
    with no_grad():
        assert Variable(x.array).requires_grad is False
    forward = tsjit.compile(tsjit.load(_write_tmp("def forward(x):\n    return (x * x).sum()\n")), autograd=True)
    y = forward(x)
    backward([y])
    np.testing.assert_allclose(x.grad.array, 2 * x.array, rtol=1e-6)
    with pytest.raises(RuntimeError, match="Can't call numpy"):
        x.numpy()


def _write_tmp(text: str) -> str:
    import tempfile

    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False, encoding="utf-8") as file:
        file.write(text)
    return file.name
