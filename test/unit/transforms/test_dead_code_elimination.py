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


QUIET = f"""func.func @q(%x : {T}, %c : !ts.bool) -> {T} {{
  %a = aten.neg %x : ({T}) -> {T}
  %b = aten.exp %a : ({T}) -> {T}
  %r = prim.If %c -> ({T}) {{
    %m = aten.mul %x, %x : ({T}, {T}) -> {T}
    %dead = aten.sin %m : ({T}) -> {T}
    prim.Yield %m : {T}
  }} else {{
    prim.Yield %x : {T}
  }}
  func.return %r : {T}
}}"""


def test_unused_ops_of_a_quiet_graph_go_without_marking(monkeypatch):
    """When the ops that go have no regions and the graph only reads, removing them and
    what they leave unused is the whole pass: no marking, no alias analysis."""
    import tsjit.transforms.dead_code_elimination as dce

    def refuse(*args: object) -> None:
        raise AssertionError("marked or analyzed")

    monkeypatch.setattr(dce, "_Liveness", refuse)
    monkeypatch.setattr(dce, "AliasDb", refuse)
    module = parse_mlir(make_context(), QUIET, "dce.mlir")
    DeadCodeEliminationPass().apply(make_context(), module)
    assert [op.name for op in module.walk()] == [
        "builtin.module", "func.func", "prim.If", "aten.mul", "prim.Yield", "prim.Yield", "func.return",
    ]  # fmt: skip
    module.verify()


def test_a_graph_that_writes_gets_the_alias_aware_sweep_only(monkeypatch):
    """An op that is not quiet anywhere in the graph: nothing goes before the alias
    analysis of the whole graph has been built (an unused op may make memory a
    wildcard, which keeps writes to it)."""
    import tsjit.transforms.dead_code_elimination as dce

    def refuse(*args: object) -> None:
        raise AssertionError("erased before the alias analysis")

    monkeypatch.setattr(dce, "_erase_trivially_dead", refuse)
    module = parse_mlir(make_context(), QUIET.replace("aten.exp %a", "aten.exp_ %a"), "dce.mlir")
    DeadCodeEliminationPass().apply(make_context(), module)
    assert "aten.exp_" not in str(module) and "aten.sin" not in str(module) and "aten.mul" in str(module)
