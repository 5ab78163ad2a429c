"""Values in and out of tsjit callables: numpy arrays, Python scalars, tsjit's torch
shim and PyTorch tensors (the `interop` tests, run with `pytest -m interop` where
PyTorch is installed)."""

from __future__ import annotations

import sys

import numpy as np
import pytest

import tsjit
from tsjit.context import make_context
from tsjit.frontend import script_source
from tsjit.runtime.errors import TorchScriptError

SOURCE = """
import torch

def forward(x: torch.Tensor, y: torch.Tensor, s: float):
    return torch.tanh(x) * y + s, x.sum()
"""

BACKENDS = ("interp", "llvm")


def program():
    return script_source(make_context(), SOURCE, "interop.py")


def test_numpy_and_scalars_without_importing_torch():
    imported = "torch" in sys.modules
    run = tsjit.compile(program())
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    out, total = run(x, np.float32(2.0), 0.5)  # a numpy scalar stands for a number
    np.testing.assert_allclose(out, np.tanh(x) * 2 + 0.5, rtol=1e-6)
    assert type(out) is np.ndarray and float(total) == 15.0
    assert ("torch" in sys.modules) == imported  # nothing here imports PyTorch


def test_errors_carry_the_torchscript_traceback_as_a_note():
    def pick(x, i: int):
        return x[i]

    scripted = tsjit.script(pick)
    with pytest.raises(TorchScriptError) as info:
        scripted(np.zeros(2, np.float32), 5)
    (note,) = info.value.__notes__
    assert note.startswith("The following operation failed in the TorchScript interpreter.")
    assert "return x[i]\n" in note and "~~~~ <--- HERE" in note


# --------------------------------------------------------------------------------------
# With PyTorch
# --------------------------------------------------------------------------------------


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


def cases(torch):
    base = torch.arange(12, dtype=torch.float32).reshape(3, 4) / 10
    return {
        "contiguous": (base, torch.full((3, 4), 2.0)),
        "transposed": (base.t(), torch.ones(4, 3).t().t() * 3),  # a strided view and a fresh one
        "0-dim": (torch.tensor(0.25), torch.tensor(-1.0)),
    }


@pytest.mark.interop
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", ["contiguous", "transposed", "0-dim"])
def test_torch_tensors_through_both_backends(torch, backend: str, case: str):
    x, y = cases(torch)[case]
    run = tsjit.compile(program(), backend=backend)
    before = x.clone()
    out, total = run(x, y, 0.5)
    assert isinstance(out, torch.Tensor) and isinstance(total, torch.Tensor)
    assert out.shape == x.shape and total.dim() == 0
    torch.testing.assert_close(out, torch.tanh(x) * y + 0.5)
    torch.testing.assert_close(total, x.sum())
    assert torch.equal(x, before)  # inputs untouched
    # No stale memory: a second call does not overwrite the first call's results, and
    # writing to a result changes neither the inputs nor the next call's results.
    first = out.clone()
    again, _ = run(x * 2, y, 0.5)
    torch.testing.assert_close(out, first)
    out.add_(100)
    torch.testing.assert_close(again, torch.tanh(x * 2) * y + 0.5)
    third, _ = run(x, y, 0.5)
    torch.testing.assert_close(third, first)
    assert not any(np.shares_memory(t.numpy(), u.numpy()) for t in (out, again, third) for u in (x, y))


@pytest.mark.interop
def test_large_native_results_are_not_reused_while_torch_holds_them(torch):
    run = tsjit.compile(program(), backend="llvm")
    x = torch.rand(256, 256)
    y = torch.rand(256, 256)
    first, _ = run(x, y, 0.0)  # 256 KiB: the size the native backend reuses arrays from
    expected = first.clone()
    run(x * 0, y, 0.0)
    torch.testing.assert_close(first, expected)


@pytest.mark.interop
def test_scripted_functions_and_traces_return_torch_tensors(torch):
    def f(x, n: int):
        return x * n

    scripted = tsjit.script(f)
    result = scripted(torch.ones(3), 2)
    assert isinstance(result, torch.Tensor) and result.tolist() == [2.0, 2.0, 2.0]
    assert isinstance(scripted(np.ones(3, np.float32), 2), np.ndarray)  # numpy in, numpy out


@pytest.mark.interop
def test_in_place_ops_write_through_to_the_torch_tensor(torch):
    def f(x):
        x.add_(1)
        return x

    x = torch.zeros(2, 3).t()  # a view: written through its strides
    tsjit.script(f)(x)
    assert torch.equal(x, torch.ones(3, 2))


@pytest.mark.interop
def test_a_scripted_torch_module_shares_its_parameters(torch):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.ReLU())
    scripted = tsjit.script(model)
    x = torch.randn(4, 3)
    torch.testing.assert_close(scripted(x), model(x))
    other = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.ReLU())
    model.load_state_dict(other.state_dict())  # in torch, after scripting
    with torch.no_grad():
        torch.testing.assert_close(scripted(x), other(x))
        model[0].bias.fill_(5.0)
        torch.testing.assert_close(scripted(x), model(x))
