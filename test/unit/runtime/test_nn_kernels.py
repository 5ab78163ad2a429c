"""nn kernels against PyTorch's results on calls the OpInfo and ModuleInfo datasets reach
only in part (`scripts/generate_nn_kernel_data.py`, `test/data/nn_kernels/`): antialiased
upsampling, grid sampling in every mode, the fused attention paths, embedding bags, CTC
loss, multi-layer RNNs, pooling indices with NaNs, ... Each case calls the kernel of the
recorded overload with the recorded arguments."""

from __future__ import annotations

import functools
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tsjit.runtime.kernels import lookup

DATA = Path(__file__).resolve().parents[2] / "data" / "nn_kernels"


@functools.cache
def dataset() -> tuple[list[dict[str, Any]], dict[str, np.ndarray]]:
    document = json.loads((DATA / "nn_kernels.json").read_text(encoding="utf-8"))
    with np.load(DATA / "nn_kernels.npz") as npz:
        return document["cases"], {name: npz[name] for name in npz.files}


def decode(encoded: dict[str, Any]) -> Any:
    ((kind, payload),) = encoded.items()
    if kind in ("tensor", "tensor_first"):
        if kind == "tensor_first":
            return decode(payload)
        dtype, offset, shape = payload
        return dataset()[1][dtype][offset : offset + math.prod(shape)].reshape(shape).copy()
    if kind in ("list", "tuple"):
        items = [decode(v) for v in payload]
        return items if kind == "list" else tuple(items)
    if kind == "float":
        return float(payload)
    return payload


def assert_matches(actual: Any, expected: Any, tolerance: float, where: str = "result") -> None:
    if isinstance(expected, (list, tuple)):
        assert isinstance(actual, (list, tuple)) and len(actual) == len(expected), where
        for k, (a, e) in enumerate(zip(actual, expected)):
            assert_matches(a, e, tolerance, f"{where}[{k}]")
        return
    if expected is None:  # an undefined tensor (attention weights not asked for)
        assert actual is None, where
        return
    assert isinstance(actual, np.ndarray), f"{where}: {type(actual).__name__}"
    assert actual.dtype == expected.dtype and actual.shape == expected.shape, (
        f"{where}: {actual.dtype}{list(actual.shape)} != {expected.dtype}{list(expected.shape)}"
    )
    np.testing.assert_allclose(
        actual, expected, rtol=tolerance, atol=tolerance, equal_nan=True, err_msg=where
    )


@pytest.mark.parametrize("index", range(len(dataset()[0])), ids=lambda i: dataset()[0][i]["name"])
def test_kernel_matches_pytorch(index: int):
    case = dataset()[0][index]
    kernel = lookup(case["overload"])
    assert kernel is not None, case["overload"]
    result = kernel(*(decode(a) for a in case["args"]))
    if "tensor_first" in case["result"]:  # only the first result is PyTorch's contract (embedding_bag)
        result = result[0]
    assert_matches(result, decode(case["result"]), case["tolerance"])


def test_no_grad_embedding_renorm_rescales_the_looked_up_rows_in_place():
    # the operator TorchScript calls for F.embedding(..., max_norm=...)
    weight = np.array([[3.0, 4.0], [0.3, 0.4], [6.0, 8.0]], np.float32)
    result = lookup("aten::_no_grad_embedding_renorm_")(weight, np.array([0, 0, 1]), 1.0, 2.0)
    assert result is weight
    np.testing.assert_allclose(weight, [[0.6, 0.8], [0.3, 0.4], [6.0, 8.0]], rtol=1e-6)
