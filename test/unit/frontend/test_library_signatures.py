"""tsjit's `torch.nn.functional` takes the parameters PyTorch's does, so that scripted
code and graph text calling them with every argument (`F.normalize(x, p, dim, eps,
out)`) match their callee."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import tsjit.frontend.library.functional as library
from tsjit.frontend.script import script_file_text

PROGRAM = """
import torch
import torch.nn.functional as F


def forward(x: torch.Tensor, y: torch.Tensor):
    out = torch.zeros(1, 2)
    a = F.normalize(x, 2.0, 1, 1e-12, None)
    b = F.normalize(x, 2.0, 1, 1e-12, out)
    return a, b, out, F.mse_loss(x, y, None, False), F.mse_loss(x, y, weight=y), F.mse_loss(x, y, True, True)
"""


def test_normalize_with_out_and_mse_loss_with_legacy_arguments_run_as_pytorchs():
    """Expected values: PyTorch 2.13 on the same program."""
    a, b, out, none, weighted, mean = script_file_text(PROGRAM, "library.py")(
        np.array([[3.0, 4.0]], np.float32), np.array([[1.0, 2.0]], np.float32)
    )
    for normalized in (a, b, out):
        np.testing.assert_allclose(normalized, [[0.6, 0.8]])
    np.testing.assert_array_equal(none, [[4.0, 4.0]])
    assert float(weighted) == 4.0 and float(mean) == 4.0


def library_functions() -> list[str]:
    return sorted(
        name
        for name, value in vars(library).items()
        if inspect.isfunction(value) and value.__module__ == library.__name__ and not name.startswith("_")
    )


@pytest.mark.interop
@pytest.mark.parametrize("name", library_functions())
def test_library_functions_take_pytorchs_parameters(name: str):
    functional = pytest.importorskip("torch.nn.functional")
    reference = getattr(functional, name, None)
    if reference is None:
        pytest.skip(f"torch.nn.functional has no {name}")
    try:
        expected = list(inspect.signature(reference).parameters)
    except ValueError:
        pytest.skip(f"torch.nn.functional.{name} has no signature")
    if expected == ["args", "kwargs"]:
        pytest.skip(f"torch.nn.functional.{name} dispatches on a flag (boolean_dispatch)")
    assert list(inspect.signature(getattr(library, name)).parameters) == expected
