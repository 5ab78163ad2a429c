"""aten's `*_backward` operators (autodiff's graphs call them) against what TorchScript
returned, recorded by `scripts/generate_backward_data.py`: tsjit runs them as the
decompositions of `frontend/library/decompositions.py`."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import tsjit

DATA = Path(__file__).resolve().parents[3] / "test" / "data" / "backward" / "backward_ops.json"
TOLERANCE = {"float32": 1e-5, "float64": 1e-10}


@functools.cache
def cases() -> list[dict[str, Any]]:
    return json.loads(DATA.read_text(encoding="utf-8"))["cases"]


@functools.cache
def compiled(source: str) -> Any:
    return tsjit.script("import torch\n\n" + source)


def case_id(case: dict[str, Any]) -> str:
    operator = case["source"].splitlines()[1].split("(")[0].rsplit(".", 1)[-1]
    return f"{operator}-{case['dtype']}"


@pytest.mark.parametrize("case", cases(), ids=case_id)
def test_backward_operator(case: dict[str, Any]):
    dtype = np.dtype(case["dtype"])
    g, x = np.array(case["g"], dtype), np.array(case["x"], dtype)
    result = compiled(case["source"])(g, x)
    assert result.dtype == dtype
    tolerance = TOLERANCE[case["dtype"]]
    np.testing.assert_allclose(result, np.array(case["result"], dtype), rtol=tolerance, atol=tolerance)
