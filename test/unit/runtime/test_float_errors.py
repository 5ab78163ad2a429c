"""Ignoring numpy's floating-point errors around a graph run, and restoring them."""

from __future__ import annotations

import threading
import warnings

import numpy as np
import pytest

from tsjit.context import make_context
from tsjit.frontend import script_source
from tsjit.runtime.executor import GraphExecutor
from tsjit.runtime.float_errors import ignore_float_errors, restore_float_errors


def test_errors_are_ignored_until_restored():
    before = np.geterr()
    token = ignore_float_errors()
    try:
        assert set(np.geterr().values()) == {"ignore"}
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert np.isinf(np.float32(1) / np.float32(0))
    finally:
        restore_float_errors(token)
    assert np.geterr() == before


def test_nested_uses_restore_in_order():
    with np.errstate(divide="raise"):
        outer = ignore_float_errors()
        inner = ignore_float_errors()
        restore_float_errors(inner)
        assert np.geterr()["divide"] == "ignore"
        restore_float_errors(outer)
        with pytest.raises(FloatingPointError):
            _ = np.float64(1) / np.float64(0)


def test_a_graph_run_computes_inf_silently_and_leaves_the_callers_state():
    module = script_source(make_context(), "import torch\ndef forward(x, y):\n    return x / y\n", "div.py")
    forward = GraphExecutor(module, "forward", "")
    with np.errstate(all="raise"):
        result = forward(np.ones(2, np.float32), np.zeros(2, np.float32))
        assert np.geterr()["divide"] == "raise"
    assert np.isinf(result).all()


def test_each_thread_has_its_own_state():
    """(This directory's conftest ignores errors around each test: the thread must not
    see that, nor this test's own setting.)"""
    seen: list[str] = []
    with np.errstate(divide="raise"):
        token = ignore_float_errors()
        try:
            thread = threading.Thread(target=lambda: seen.append(np.geterr()["divide"]))
            thread.start()
            thread.join()
        finally:
            restore_float_errors(token)
    assert seen == ["warn"]  # numpy's default
