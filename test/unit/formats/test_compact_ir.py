"""The compact form of modules (`tsjit.formats.compact_ir`): what it reads back is the
module it wrote, down to name hints, nested regions, constants of every kind and
source locations; data it did not write is refused."""

from __future__ import annotations

import pytest

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp

from tsjit.context import make_context
from tsjit.diagnostics import SourceLocation
from tsjit.formats.compact_ir import FORMAT, dump_module, load_module
from tsjit.formats.mlir import parse_mlir
from tsjit.frontend import script_source

GRAPH = """
func.func @forward(%x : !ts.tensor<f32, [?, 3]>, %flag : !ts.bool, %steps : !ts.int) -> !ts.tuple<!ts.tensor, !ts.int> {
  %one = prim.Constant 1 : !ts.int
  %half = prim.Constant -0.0 : !ts.float
  %name = prim.Constant "a \\"quoted\\" name" : !ts.str
  %none = prim.Constant : !ts.none
  %sizes = prim.Constant [2, 3] : !ts.list<!ts.int>
  %true = prim.Constant true : !ts.bool
  %y = prim.If %flag -> (!ts.tensor) {
    %a = aten.add %x, %x, %one : (!ts.tensor<f32, [?, 3]>, !ts.tensor<f32, [?, 3]>, !ts.int) -> !ts.tensor
    prim.Yield %a : !ts.tensor
  } else {
    %b = aten.mul %x, %half : (!ts.tensor<f32, [?, 3]>, !ts.float) -> !ts.tensor
    prim.Yield %b : !ts.tensor
  }
  %l, %n = prim.Loop %steps, %true iter(%i) carried(%acc = %y : !ts.tensor, %m = %one : !ts.int) -> (!ts.tensor, !ts.int) {
    %c = aten.chunk %acc, %one, %one : (!ts.tensor, !ts.int, !ts.int) -> !ts.list<!ts.tensor>
    %k = aten.add %m, %i : (!ts.int, !ts.int) -> !ts.int
    prim.Yield %true, %acc, %k : !ts.bool, !ts.tensor, !ts.int
  }
  %t = prim.TupleConstruct %l, %n : (!ts.tensor, !ts.int) -> !ts.tuple<!ts.tensor, !ts.int>
  func.return %t : !ts.tuple<!ts.tensor, !ts.int>
}
"""

SCRIPT = """
import torch


def inner(x: torch.Tensor) -> torch.Tensor:
    return x.relu()


def f(x: torch.Tensor, n: int) -> torch.Tensor:
    for i in range(n):
        x = inner(x) + i
    return x
"""


def test_a_graph_reads_back_as_it_was_written() -> None:
    ctx = make_context()
    module = parse_mlir(ctx, GRAPH, "graph.mlir")
    again = load_module(make_context(), dump_module(module, ctx))
    assert str(again) == str(module)
    again.verify()
    original = [SourceLocation.of_op(op) for op in module.walk()]
    assert [SourceLocation.of_op(op) for op in again.walk()] == original
    assert original[2] == SourceLocation("graph.mlir", 3, 3)


def test_inlined_call_sites_are_kept() -> None:
    from tsjit.transforms.inline import InlinePass

    ctx = make_context()
    module = script_source(ctx, SCRIPT, "script.py", "f")
    InlinePass().apply(ctx, module)
    again = load_module(ctx, dump_module(module, ctx))
    assert str(again) == str(module)
    stacks = [SourceLocation.stack_of_op(op) for op in module.walk()]
    assert any(len(stack) == 2 for stack in stacks)  # relu inlined from `inner`
    assert [SourceLocation.stack_of_op(op) for op in again.walk()] == stacks


def test_declared_functions_are_written_without_their_bodies() -> None:
    """What the program cache loads lazily: a module with @inner declared only, and
    @inner on its own, which read back as the module was."""
    ctx = make_context()
    module = script_source(ctx, SCRIPT, "script.py", "f")
    (inner,) = [op for op in module.ops if isinstance(op, FuncOp) and op.sym_name.data == "inner"]
    outer = load_module(ctx, dump_module(module, ctx, declare={"inner"}))
    assert isinstance(outer, ModuleOp)
    declared = {op.sym_name.data: op.is_declaration for op in outer.ops if isinstance(op, FuncOp)}
    assert declared == {"inner": True, "f": False}
    body = load_module(ctx, dump_module(inner, ctx))
    assert str(body) == str(inner)


def test_enum_data_is_written_as_data() -> None:
    """An IntegerType's signedness is an enum: no MLIR text to parse when read back."""
    ctx = make_context()
    module = parse_mlir(ctx, "func.func @f(%x : si32, %y : ui8, %z : i1) {\n  func.return\n}\n", "enum.mlir")
    data = dump_module(module, ctx)
    assert '"t"' not in data.decode()
    assert str(load_module(ctx, data)) == str(module)


def document(attributes: str = "[]", ops: str = "{}", root: str = "[]") -> bytes:
    return f'{{"format": "{FORMAT}", "attributes": {attributes}, "ops": {ops}, "root": {root}}}'.encode()


MODULE_OP = '["builtin.module", [], [], [], {}, {}, 0, [[]]]'
UNKNOWN_LOC = '[["p", "xdsl.dialects.builtin:UnknownLoc", []]]'
UNKNOWN_OP = MODULE_OP.replace("builtin.module", "prim.NoSuchOp")


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"{}",
        f'{{"format": "{FORMAT}"}}'.encode(),
        b'{"format": "other"}',
        document('[["p", "os:path", []]]'),
        document('[["p", "no_such_module:X", []]]'),
        document('[["e", "xdsl.dialects.builtin:SignednessAttr", "os:path", 0]]'),
        document(UNKNOWN_LOC, '{"prim.NoSuchOp": "xdsl.dialects.func:FuncOp"}', UNKNOWN_OP),
    ],
)
def test_data_it_did_not_write_is_refused(data: bytes) -> None:
    with pytest.raises(ValueError):
        load_module(make_context(), data)


def test_a_context_is_made_only_for_ops_found_by_name() -> None:
    """Op classes are found where they are defined; aten's, made at run time, by name
    in the context, which a reader given a function for it makes only then."""
    ctx = make_context()
    module = parse_mlir(ctx, GRAPH, "graph.mlir")
    made: list[Context] = []

    def context() -> Context:
        made.append(make_context())
        return made[-1]

    assert str(load_module(context, dump_module(module, ctx))) == str(module)
    assert len(made) == 1
    misplaced = dump_module(module, ctx).replace(b"xdsl.dialects.func:FuncOp", b"xdsl.dialects.func:ReturnOp")
    assert str(load_module(make_context(), misplaced)) == str(module)  # a wrong place: found by name
    without_aten = parse_mlir(ctx, "func.func @f(%x : !ts.int) -> !ts.int {\n  func.return %x : !ts.int\n}\n", "f.mlir")
    assert str(load_module(context, dump_module(without_aten, ctx))) == str(without_aten)
    assert len(made) == 1
