"""The library's decompositions: each compiles with tsjit's frontend to a graph of its
overload's schema, and runs where no numpy kernel exists."""

from __future__ import annotations

import numpy as np
import pytest

from tsjit.context import make_context
from tsjit.dialects.types import is_subtype_of
from tsjit.formats.torchscript_text import import_graph_text
from tsjit.frontend.library.decompositions import DECOMPOSITIONS
from tsjit.frontend.library_decompositions import called_overloads, decomposition_graph, schema_of_overload
from tsjit.runtime.errors import TorchScriptError
from tsjit.runtime.interpreter import Program
from tsjit.runtime.kernels import lookup


@pytest.mark.parametrize("overload", sorted(DECOMPOSITIONS))
def test_decomposition_compiles_to_its_schema(overload: str):
    graph = decomposition_graph(overload)
    schema = schema_of_overload(overload)
    assert graph is not None
    inputs = graph.function_type.inputs.data
    assert [a.name_hint for a in graph.body.block.args] == [a.name for a in schema.arguments]
    for argument, actual in zip(schema.arguments, inputs):
        assert is_subtype_of(argument.type, actual), (argument.name, actual)
    assert len(graph.function_type.outputs) == len(schema.returns)
    # a decomposition stands in for a missing kernel; a kernel would shadow it
    assert lookup(overload) is None


def test_no_decomposition_reaches_itself_through_others():
    """decompose-ops expands until only operators with kernels are left: the operators
    without kernels that decompositions call must not form a cycle."""
    uses = {
        overload: {o for o in called_overloads(decomposition_graph(overload)) if o in DECOMPOSITIONS and lookup(o) is None}
        for overload in DECOMPOSITIONS
    }
    done: set[str] = set()

    def visit(overload: str, path: tuple[str, ...]) -> None:
        assert overload not in path, " -> ".join((*path, overload))
        if overload not in done:
            for used in uses[overload]:
                visit(used, (*path, overload))
            done.add(overload)

    for overload in uses:
        visit(overload, ())


def test_the_interpreter_runs_a_decomposition_where_no_kernel_exists():
    module = import_graph_text(make_context(), "graph(%x : Tensor, %y : Tensor):\n"
                               "  %r : Tensor = aten::heaviside(%x, %y) # user.py:7:4\n"
                               "  return (%r)\n")  # fmt: skip
    forward = Program(module).function("forward")
    x, y = np.array([-1.0, 0.0, 2.0, 0.0]), np.array([5.0, 0.5, 5.0, np.nan])
    np.testing.assert_array_equal(forward(x, y), [0.0, 0.5, 1.0, np.nan])


def test_an_error_inside_a_decomposition_points_at_the_call():
    module = import_graph_text(make_context(), "graph(%x : Tensor):\n"
                               "  %r : Tensor = aten::fliplr(%x) # user.py:7:4\n"
                               "  return (%r)\n")  # fmt: skip
    with pytest.raises(TorchScriptError, match=r"user.py:7:5: RuntimeError: Input must be >= 2-d."):
        Program(module).function("forward")(np.zeros(3))
