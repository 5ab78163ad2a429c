"""Names from programs become name hints only when xDSL keeps them (`_1` would become
the empty hint, which xDSL refuses when an op is cloned)."""

from __future__ import annotations

import numpy as np
import pytest

import tsjit
from tsjit.dialects.value_names import name_hint


@pytest.mark.parametrize(
    ("name", "hint"),
    [("x", "x"), ("x.1", "x.1"), ("self.weight", "self.weight"), ("x_1", "x_1"), ("_1", None), ("1x", None),
     ("", None), (None, None), ("a b", None)],  # fmt: skip
)
def test_name_hint(name: str | None, hint: str | None):
    assert name_hint(name) == hint


def test_programs_with_names_xdsl_would_empty_compile_and_run():
    source = """
import torch
class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("_0", torch.ones(2))
    def forward(self, x: torch.Tensor, _2: int) -> torch.Tensor:
        _1 = x + self._0
        return _1 * _2
"""
    scripted = tsjit.script(source)
    for backend in ("interp", "llvm"):
        run = tsjit.compile(scripted.module, "forward", backend=backend)
        np.testing.assert_array_equal(run(scripted.state, np.ones(2, np.float32), 3), [6.0, 6.0])
