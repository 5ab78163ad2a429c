"""Dead code elimination shrinks If and Loop ops in place: the surviving results keep
their uses, names and order, and the module still verifies."""

from __future__ import annotations

from tsjit.context import make_context
from tsjit.dialects.prim import IfOp, LoopOp
from tsjit.formats.mlir import parse_mlir
from tsjit.transforms.dead_code_elimination import DeadCodeEliminationPass

T = "!ts.tensor"

PROGRAM = f"""func.func @f(%x : {T}, %c : !ts.bool, %n : !ts.int) -> ({T}, {T}, {T}) {{
  %true = prim.Constant true : !ts.bool
  %a, %dead, %b = prim.If %c -> ({T}, {T}, {T}) {{
    %y = aten.neg %x : ({T}) -> {T}
    prim.Yield %x, %y, %x : {T}, {T}, {T}
  }} else {{
    prim.Yield %x, %x, %x : {T}, {T}, {T}
  }}
  %p, %q, %r = prim.Loop %n, %true iter(%i) carried(%u = %a : {T}, %v = %x : {T}, %w = %b : {T}) -> ({T}, {T}, {T}) {{
    %v2 = aten.neg %v : ({T}) -> {T}
    %u2 = aten.neg %u : ({T}) -> {T}
    prim.Yield %true, %u2, %v2, %w : !ts.bool, {T}, {T}, {T}
  }}
  func.return %p, %r, %b : {T}, {T}, {T}
}}"""


def test_dead_if_outputs_and_carried_values_go_in_place():
    module = parse_mlir(make_context(), PROGRAM, "dce.mlir")
    if_op = next(op for op in module.walk() if isinstance(op, IfOp))
    loop = next(op for op in module.walk() if isinstance(op, LoopOp))
    kept_if = (if_op.results[0], if_op.results[2])
    kept_loop = (loop.results[0], loop.results[2])

    DeadCodeEliminationPass().apply(make_context(), module)
    module.verify()

    assert next(op for op in module.walk() if isinstance(op, IfOp)) is if_op
    assert tuple(if_op.results) == kept_if
    assert [r.index for r in if_op.results] == [0, 1]
    assert [r.name_hint for r in if_op.results] == ["a", "b"]
    assert [len(region.block.last_op.operands) for region in if_op.regions] == [2, 2]  # pyright: ignore[reportOptionalMemberAccess]
    assert not any(op.name == "aten.neg" for op in if_op.walk())

    assert tuple(loop.results) == kept_loop
    assert [r.index for r in loop.results] == [0, 1]
    assert [v.name_hint for v in loop.carried] == ["a", "b"]
    assert [a.name_hint for a in loop.body.block.args] == ["i", "u", "w"]
    ret = module.body.block.first_op.body.block.last_op  # pyright: ignore[reportOptionalMemberAccess,reportAttributeAccessIssue]
    assert list(ret.operands) == [kept_loop[0], kept_loop[1], kept_if[1]]


WRITING = f"""func.func @g(%x : {T}) -> {T} {{
  %one = prim.Constant 1 : !ts.int
  %y = aten.add_ %x, %x, %one : ({T}, {T}, !ts.int) -> {T}
  %z = aten.neg %y : ({T}) -> {T}
  func.return %z : {T}
}}"""


def test_a_graph_with_every_result_used_is_left_without_alias_analysis(monkeypatch):
    """Nothing can go when every op has results and all are used: the pass must not
    build the alias analysis that the write (`aten.add_`) would otherwise need."""
    import tsjit.transforms.dead_code_elimination as dce

    module = parse_mlir(make_context(), WRITING, "dce.mlir")
    before = str(module)
    built = []
    monkeypatch.setattr(dce, "AliasDb", lambda graph: built.append(graph))
    DeadCodeEliminationPass().apply(make_context(), module)
    assert str(module) == before
    assert built == []


def test_an_unused_result_still_gets_the_alias_aware_sweep():
    """With unused results the sweep runs: the unused write to a graph input stays (the
    caller sees it), the unused pure op goes."""
    program = f"""func.func @g(%x : {T}) -> {T} {{
  %one = prim.Constant 1 : !ts.int
  %y = aten.add_ %x, %x, %one : ({T}, {T}, !ts.int) -> {T}
  %dead = aten.neg %x : ({T}) -> {T}
  %z = aten.relu %x : ({T}) -> {T}
  func.return %z : {T}
}}"""
    module = parse_mlir(make_context(), program, "dce.mlir")
    DeadCodeEliminationPass().apply(make_context(), module)
    names = [op.name for op in module.walk()]
    assert "aten.add_" in names
    assert "aten.neg" not in names
    assert "aten.relu" in names
