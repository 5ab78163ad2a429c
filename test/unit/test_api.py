"""The package's public API: script, load, compile."""

import numpy as np
import pytest

import tsjit

CORPUS = __import__("pathlib").Path(__file__).resolve().parents[2].parent / "shared" / "conformance"


def test_script_a_function_and_run_it():
    def f(x, n: int):
        for _ in range(n):
            x = x * 2.0
        return x

    scripted = tsjit.script(f)
    out = scripted(np.ones(3, dtype=np.float32), 3)
    np.testing.assert_array_equal(out, np.full(3, 8.0, dtype=np.float32))
    assert "prim.Loop" in str(scripted.graph)


def test_load_and_compile_graph_text():
    module = tsjit.load(str(CORPUS / "arith_basic" / "graph.txt"))
    run = tsjit.compile(module)
    x = np.array([1.0, 2.0], dtype=np.float32)
    y = np.array([0.5, -1.0], dtype=np.float32)
    # (x+y)*(x-y) + x*y - x/(y*y+1), closed form
    expected = (x + y) * (x - y) + x * y - x / (y * y + 1)
    np.testing.assert_allclose(run(x, y), expected, rtol=1e-6)


def test_unknown_attribute():
    with pytest.raises(AttributeError, match="no_such_thing"):
        tsjit.no_such_thing  # noqa: B018
