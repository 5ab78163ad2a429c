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


def comparable_signature(functional: object, name: str) -> list[str] | None:
    """PyTorch's parameter names of `F.<name>`; None where there is nothing to compare:
    a library helper PyTorch's module lacks, a builtin without a signature, or a
    `boolean_dispatch` function (its signature is `*args, **kwargs`)."""
    reference = getattr(functional, name, None)
    if reference is None:
        return None
    try:
        expected = list(inspect.signature(reference).parameters)
    except ValueError:
        return None
    return None if expected == ["args", "kwargs"] else expected


@pytest.mark.interop
def test_library_functions_take_pytorchs_parameters():
    functional = pytest.importorskip("torch.nn.functional")
    compared, mismatches = 0, []
    for name in library_functions():
        expected = comparable_signature(functional, name)
        if expected is None:
            continue
        compared += 1
        found = list(inspect.signature(getattr(library, name)).parameters)
        if found != expected:
            mismatches.append(f"{name}: {found} != PyTorch's {expected}")
    assert compared >= 50, f"only {compared} functions compared"
    assert not mismatches, "\n".join(mismatches)
