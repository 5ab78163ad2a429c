"""The library's decompositions (`tsjit/frontend/library/decompositions.py`) compiled to
graphs, once per overload: what the `decompose-ops` pass inlines and what the
interpreter calls for an operator that has no numpy kernel.

A compiled decomposition is cleaned up (inlined, folded) and carries no source
locations: inlined, its ops take the location of the op they replace, and an error
raised inside it points at the user's call, not at the library.

    graph = decomposition_graph("aten::kron")   # a func.func, or None
    run = decomposition_callable("aten::kron")  # callable like a kernel
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any

from xdsl.dialects import func
from xdsl.dialects.builtin import UnknownLoc

from tsjit.diagnostics import TsjitError
from tsjit.dialects.schema import schemas_for
from tsjit.dialects.schema.model import FunctionSchema
from tsjit.frontend.source import SourceFile, source_of_file

_PLANNING: set[str] = set()
_LOCK = threading.RLock()


def has_decomposition(overload: str) -> bool:
    from tsjit.frontend.library.decompositions import DECOMPOSITIONS

    return overload in DECOMPOSITIONS


def decomposition_graph(overload: str) -> func.FuncOp | None:
    """The compiled decomposition of `overload` (`aten::kron`), None when the library has
    none; shared, so callers clone what they insert."""
    if not has_decomposition(overload):
        return None
    with _LOCK:
        return _compile(overload)


def decomposition_callable(overload: str, autograd: bool = False) -> Callable[..., Any] | None:
    """A kernel-like callable running the decomposition on the interpreter (arguments in
    schema order, the results as a kernel returns them), None when there is none.
    Planning it plans the overloads it calls, their decompositions included; one that
    reaches itself is an error, as recursion is in TorchScript. With `autograd`, it
    records gradients through the operators it is made of (how an operator without a
    formula of its own is differentiated, as PyTorch's composite operators are)."""
    if not has_decomposition(overload):
        return None
    with _LOCK:
        if overload in _PLANNING:
            raise TsjitError(f"the decomposition of {overload} calls {overload} itself")
        _PLANNING.add(overload)
        try:
            return _interpreted(overload, autograd)
        finally:
            _PLANNING.discard(overload)


@functools.cache
def _interpreted(overload: str, autograd: bool) -> Callable[..., Any]:
    from tsjit.runtime.interpreter import Program

    graph = decomposition_graph(overload)
    assert graph is not None
    module = graph.parent_op()
    assert module is not None
    return Program(module).function(graph.sym_name.data, autograd=autograd).invoke  # pyright: ignore[reportArgumentType]


@functools.cache
def _compile(overload: str) -> func.FuncOp:
    from tsjit.frontend.compilation import CompilationUnit, cleanup
    from tsjit.frontend.library.decompositions import DECOMPOSITIONS

    function = DECOMPOSITIONS[overload]
    schema = schema_of_overload(overload)
    unit = CompilationUnit()
    path = function.__code__.co_filename
    unit.sources[path] = _library_source(path)  # parsed once for every decomposition
    compiled = unit.compile_function(function, function.__name__, None)
    cleanup(unit.module, ("torchscript-cleanup",))
    graph = compiled.op
    arity = len(graph.body.block.args)
    if arity != len(schema.arguments):
        raise TsjitError(
            f"the decomposition {function.__name__} of {overload} takes {arity} arguments, "
            f"the schema {len(schema.arguments)}: {schema}"
        )
    _return_results(graph, overload, schema)
    if overload in called_overloads(graph):
        raise TsjitError(f"the decomposition of {overload} calls {overload} itself")
    for op in graph.walk():
        op.location = UnknownLoc()
    return graph


def _library_source(path: str) -> SourceFile:
    return source_of_file(path, "tsjit/frontend/library/decompositions.py")


def _return_results(graph: func.FuncOp, overload: str, schema: FunctionSchema) -> None:
    """A schema with several results returns them as values, not as one tuple."""
    from tsjit.dialects.prim import TupleConstructOp

    returned = graph.body.block.last_op
    assert isinstance(returned, func.ReturnOp)
    if len(schema.returns) > 1 and len(returned.operands) == 1:
        made = returned.operands[0].owner
        if isinstance(made, TupleConstructOp) and len(made.operands) == len(schema.returns):
            returned.operands = made.operands
            if not made.results[0].uses:
                made.detach()
                made.erase()
            graph.function_type = func.FunctionType.from_lists(graph.function_type.inputs.data, returned.operand_types)
    if len(returned.operands) != len(schema.returns):
        raise TsjitError(f"the decomposition of {overload} does not return the results of {schema}")


def called_overloads(graph: func.FuncOp) -> set[str]:
    """The qualified overloads the ops of `graph` call."""
    from tsjit.dialects.aten import schema_of

    found = set()
    for op in graph.walk():
        schema = schema_of(op)
        if schema is not None:
            found.add(schema.qualified_name)
    return found


def schema_of_overload(overload: str) -> FunctionSchema:
    """The schema of a qualified overload name (`aten::xlogy.Tensor`, `aten::fliplr`)."""
    name, _, overload_name = overload.partition(".")
    for schema in schemas_for(name):
        if schema.overload_name == overload_name:
            return schema
    raise TsjitError(f"the schema table has no overload {overload}")
