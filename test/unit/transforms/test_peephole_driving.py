"""How peephole's patterns are driven: in-place forwarding with xDSL's events, local
patterns that let the driver skip its last sweep, and the same results as xDSL's walker,
which always makes that sweep."""

from __future__ import annotations

from pathlib import Path

import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from tsjit.context import make_context
from tsjit.dialects.prim import TupleUnpackOp
from tsjit.formats.mlir import parse_mlir
from tsjit.transforms.analysis.alias_analysis import AliasDb
from tsjit.transforms.forwarding import forward_results
from tsjit.transforms.pass_logging import module_text
from tsjit.transforms.pattern_driver import LocalPattern, PatternDriver
from tsjit.transforms.peephole import peephole_patterns

from .conftest import record_events

FILECHECK = Path(__file__).resolve().parents[2] / "filecheck" / "transforms"

UNPACK = """
func.func @f(%x : !ts.int, %y : !ts.int) -> (!ts.int, !ts.int, !ts.int) {
  %u = aten.add %x, %y : (!ts.int, !ts.int) -> !ts.int
  %t = prim.TupleConstruct %x, %x, %y : (!ts.int, !ts.int, !ts.int) -> !ts.tuple<!ts.int, !ts.int, !ts.int>
  %a, %b, %c = prim.TupleUnpack %t : !ts.tuple<!ts.int, !ts.int, !ts.int> -> !ts.int, !ts.int, !ts.int
  %p = aten.mul %a, %b : (!ts.int, !ts.int) -> !ts.int
  %q = aten.mul %b, %a : (!ts.int, !ts.int) -> !ts.int
  func.return %p, %q, %u : !ts.int, !ts.int, !ts.int
}
"""


def parse(text: str) -> ModuleOp:
    return parse_mlir(make_context(), text, "<test>")


class ForwardUnpack(RewritePattern):
    """Forwards a tuple unpack's elements, in place or through xDSL's `replace`."""

    def __init__(self, in_place: bool):
        self.in_place = in_place

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: TupleUnpackOp, rewriter: PatternRewriter, /) -> None:
        elements = list(op.tuple.owner.operands)  # pyright: ignore[reportAttributeAccessIssue]
        if self.in_place:
            forward_results(op, elements, rewriter)
        else:
            rewriter.replace(op, [], elements)


def _events_of_forwarding(in_place: bool) -> tuple[list[str], dict[str, list[str]], str]:
    module = parse(UNPACK)
    graph = module.ops.first
    assert graph is not None
    unpack = next(op for op in graph.walk() if isinstance(op, TupleUnpackOp))
    events: list[str] = []

    def name(op: Operation) -> str:
        return op.results[0].name_hint if op.results else op.name  # pyright: ignore[reportReturnType]

    rewriter = PatternRewriter(unpack)
    record_events(rewriter, events, name)
    ForwardUnpack(in_place).match_and_rewrite(unpack, rewriter)
    assert rewriter.has_done_action
    arguments = graph.body.block.args  # pyright: ignore[reportAttributeAccessIssue]
    uses = {a.name_hint: [f"{name(u.operation)}#{u.index}" for u in a.uses] for a in arguments}
    return events, uses, module_text(module)


def test_forwarding_in_place_is_xdsls_replace():
    """Same listener events in the same order (which the driver's worklist follows) but
    the users' modifications, which the replacement event reports already; same use
    lists in the same order (which later events and passes iterate), same IR."""
    ours, (events, *rest) = _events_of_forwarding(in_place=True), _events_of_forwarding(in_place=False)
    assert any(e.startswith("modified") for e in events)
    assert ours == ([e for e in events if not e.startswith("modified")], *rest)


def _peephole_cases() -> list[tuple[str, str]]:
    cases = []
    for name in ("peephole.mlir", "lower_tuples.mlir"):
        for index, text in enumerate((FILECHECK / name).read_text(encoding="utf-8").split("// -----")):
            cases.append((f"{name}#{index}", text))
    return cases


@pytest.mark.parametrize(("case", "text"), _peephole_cases(), ids=[c for c, _ in _peephole_cases()])
def test_peephole_rewrites_as_under_xdsls_walker(case: str, text: str):
    """The sweeps the driver skips would have changed nothing: xDSL's walker, which
    makes them, reaches the same IR."""
    ours, theirs = parse(text), parse(text)
    for module in (ours, theirs):
        graph = module.ops.first
        patterns = peephole_patterns(AliasDb(graph, lazy=True))  # pyright: ignore[reportArgumentType]
        if module is ours:
            PatternDriver(patterns).rewrite_region(module.body)
        else:
            PatternRewriteWalker(GreedyRewritePatternApplier(patterns, dce_enabled=False)).rewrite_module(module)
    assert module_text(ours) == module_text(theirs)


class CountRelus(RewritePattern, LocalPattern):
    """Counts the driver's sweeps: each offers the relu once."""

    roots = frozenset({"aten.relu"})

    def __init__(self) -> None:
        self.offered = 0

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        self.offered += 1


LOCAL_DECLINES = """
func.func @f(%x : !ts.tensor, %i : !ts.int) -> (!ts.tensor, !ts.int) {
  %one = prim.Constant 1 : !ts.int
  %t = prim.TupleConstruct %x, %i : (!ts.tensor, !ts.int) -> !ts.tuple<!ts.tensor, !ts.int>
  %a, %b = prim.TupleUnpack %t : !ts.tuple<!ts.tensor, !ts.int> -> !ts.tensor, !ts.int
  %s = aten.add %a, %a, %one : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
  %k = aten.mul %b, %i : (!ts.int, !ts.int) -> !ts.int
  %r = aten.relu %s : (!ts.tensor) -> !ts.tensor
  func.return %r, %k : !ts.tensor, !ts.int
}
"""

GRAPH_DECLINE = """
func.func @f(%x : !ts.tensor<f32, [2]>, %i : !ts.int) -> (!ts.tensor, !ts.int) {
  %one = prim.Constant 1 : !ts.int
  %t = prim.TupleConstruct %x, %i : (!ts.tensor<f32, [2]>, !ts.int) -> !ts.tuple<!ts.tensor<f32, [2]>, !ts.int>
  %a, %b = prim.TupleUnpack %t : !ts.tuple<!ts.tensor<f32, [2]>, !ts.int> -> !ts.tensor<f32, [2]>, !ts.int
  %w = aten.add_ %x, %one, %one : (!ts.tensor<f32, [2]>, !ts.int, !ts.int) -> !ts.tensor<f32, [2]>
  %s = aten.mul %a, %one : (!ts.tensor<f32, [2]>, !ts.int) -> !ts.tensor<f32, [2]>
  %r = aten.relu %s : (!ts.tensor<f32, [2]>) -> !ts.tensor
  func.return %r, %b : !ts.tensor, !ts.int
}
"""


@pytest.mark.parametrize(
    ("text", "sweeps"),
    [(LOCAL_DECLINES, 1), (GRAPH_DECLINE, 2)],
    ids=["local-declines", "an-alias-decline"],
)
def test_the_last_sweep_runs_only_after_a_decline_for_the_graph(text: str, sweeps: int):
    """Both graphs change (a tuple is forwarded). In the first every op left alone was
    left alone for its own sake, so no sweep follows; in the second `x * 1` is refused
    because x is written in place (an alias fact), so the driver sweeps once more."""
    module = parse(text)
    counter = CountRelus()
    graph = module.ops.first
    patterns = [*peephole_patterns(AliasDb(graph, lazy=True)), counter]  # pyright: ignore[reportArgumentType]
    assert PatternDriver(patterns).rewrite_region(module.body)
    assert counter.offered == sweeps
    assert "prim.TupleUnpack" not in module_text(module)
