"""PatternDriver: xDSL's worklist walker, same order and same results, offering each op
only the patterns that can match it."""

from __future__ import annotations

import itertools

import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint

from tsjit.context import make_context
from tsjit.dialects.prim import ConstantOp, IfOp
from tsjit.formats.mlir import parse_mlir
from tsjit.transforms.analysis.alias_analysis import AliasDb
from tsjit.transforms.constant_propagation import FoldConstantIf, FoldConstantOp, RemoveUniformIfOutputs
from tsjit.transforms.pass_logging import module_text
from tsjit.transforms.forwarding import erase, forward_results
from tsjit.transforms.pattern_driver import (
    LocalPattern,
    PatternDriver,
    ProducedBy,
    insert_ops_before,
    replace_uses,
)

from .conftest import record_events

NESTED = """
func.func @f(%x : !ts.tensor, %c : !ts.bool) -> !ts.tensor {
  %one = prim.Constant 1 : !ts.int
  %a = aten.mul %x, %x : (!ts.tensor, !ts.tensor) -> !ts.tensor
  %r = prim.If %c -> (!ts.tensor) {
    %b = aten.add %a, %x, %one : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
    %r2 = prim.If %c -> (!ts.tensor) {
      %d = aten.neg %b : (!ts.tensor) -> !ts.tensor
      prim.Yield %d : !ts.tensor
    } else {
      prim.Yield %b : !ts.tensor
    }
    prim.Yield %r2 : !ts.tensor
  } else {
    %e = aten.relu %a : (!ts.tensor) -> !ts.tensor
    prim.Yield %e : !ts.tensor
  }
  %z = aten.tanh %r : (!ts.tensor) -> !ts.tensor
  func.return %z : !ts.tensor
}
"""

FOLDABLE = """
func.func @g(%x : !ts.tensor) -> !ts.int {
  %t = prim.Constant true : !ts.bool
  %two = prim.Constant 2 : !ts.int
  %three = prim.Constant 3 : !ts.int
  %r = prim.If %t -> (!ts.int) {
    %p = aten.mul %two, %three : (!ts.int, !ts.int) -> !ts.int
    %q = aten.add %p, %two : (!ts.int, !ts.int) -> !ts.int
    prim.Yield %q : !ts.int
  } else {
    prim.Yield %two : !ts.int
  }
  %s = aten.sub %r, %three : (!ts.int, !ts.int) -> !ts.int
  %y = aten.relu %x : (!ts.tensor) -> !ts.tensor
  func.return %s : !ts.int
}
"""


def parse(text: str) -> ModuleOp:
    return parse_mlir(make_context(), text, "<test>")


class Record(RewritePattern):
    """Records the ops it is offered, rewrites nothing."""

    def __init__(self, seen: list[str]):
        self.seen = seen

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        self.seen.append(f"{op.name}:{op.results[0].name_hint if op.results else ''}")


@pytest.mark.parametrize(("reverse", "regions_first"), list(itertools.product([False, True], repeat=2)))
def test_visits_ops_in_the_order_of_xdsls_walker(reverse: bool, regions_first: bool):
    ours: list[str] = []
    PatternDriver([Record(ours)], walk_reverse=reverse, walk_regions_first=regions_first).rewrite_region(
        parse(NESTED).body
    )
    theirs: list[str] = []
    PatternRewriteWalker(
        GreedyRewritePatternApplier([Record(theirs)], dce_enabled=False),
        walk_reverse=reverse,
        walk_regions_first=regions_first,
    ).rewrite_module(parse(NESTED))
    assert ours == theirs
    assert len(ours) == 14  # every op below the module, once each


def test_rewrites_as_xdsls_walker_does():
    """Folding follows the rewrites (an inlined branch, then the ops its constants
    feed) to the same fixed point."""
    ours, theirs = parse(FOLDABLE), parse(FOLDABLE)
    for module, run in ((ours, _run_driver), (theirs, _run_xdsl)):
        graph = module.ops.first
        db = AliasDb(graph)  # pyright: ignore[reportArgumentType]
        assert run(module, [FoldConstantIf(db), FoldConstantOp(db)])
    assert module_text(ours) == module_text(theirs)
    assert "prim.Constant 5 : !ts.int" in module_text(ours)
    assert "prim.If" not in module_text(ours)


class CountRelus(RewritePattern):
    """Counts the sweeps: `%y = aten.relu` is offered once in each."""

    roots = frozenset({"aten.relu"})

    def __init__(self) -> None:
        self.offered = 0

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        self.offered += 1


class CountRelusLocally(CountRelus, LocalPattern):
    pass


@pytest.mark.parametrize("local", [True, False])
def test_the_sweep_that_cannot_change_anything_is_skipped_only_when_provably(local: bool):
    """With local patterns only, the sweep after the last rewrites is known to change
    nothing; with a pattern that may look further, it runs, as in xDSL's walker."""
    module = parse(FOLDABLE)
    db = AliasDb(module.ops.first)  # pyright: ignore[reportArgumentType]
    counter = CountRelusLocally() if local else CountRelus()
    assert _run_driver(module, [FoldConstantIf(db), FoldConstantOp(db), counter])
    assert counter.offered == (1 if local else 2)


UNIFORM_AFTER_FOLDING = """
func.func @h(%c : !ts.bool) -> !ts.int {
  %two = prim.Constant 2 : !ts.int
  %three = prim.Constant 3 : !ts.int
  %six = prim.Constant 6 : !ts.int
  %r = prim.If %c -> (!ts.int) {
    %p = aten.mul %two, %three : (!ts.int, !ts.int) -> !ts.int
    prim.Yield %p : !ts.int
  } else {
    prim.Yield %six : !ts.int
  }
  func.return %r : !ts.int
}
"""


def test_an_op_whose_nested_ops_changed_after_its_offer_is_offered_again():
    """The If is offered before the fold inside it makes both branches yield 6: the
    fold touches it, so the next sweep runs and removes the output."""
    ours, theirs = parse(UNIFORM_AFTER_FOLDING), parse(UNIFORM_AFTER_FOLDING)
    for module, run in ((ours, _run_driver), (theirs, _run_xdsl)):
        db = AliasDb(module.ops.first)  # pyright: ignore[reportArgumentType]
        assert run(module, [RemoveUniformIfOutputs(db), FoldConstantOp(db)])
    assert module_text(ours) == module_text(theirs)
    assert "prim.If %c -> (" not in module_text(ours)  # both branches yield a 6: no output


def _run_driver(module: ModuleOp, patterns: list[RewritePattern]) -> bool:
    return PatternDriver(patterns).rewrite_region(module.body)


def _run_xdsl(module: ModuleOp, patterns: list[RewritePattern]) -> bool:
    return PatternRewriteWalker(GreedyRewritePatternApplier(patterns, dce_enabled=False)).rewrite_module(module)


class CountIfs(RewritePattern):
    def __init__(self) -> None:
        self.offered: list[str] = []

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: IfOp, rewriter: PatternRewriter, /) -> None:
        self.offered.append(op.name)


class ConstantsByKind(RewritePattern):
    """Takes constants, known by `matches_kind`; counts how often it is asked."""

    def __init__(self) -> None:
        self.asked: list[str] = []
        self.offered: list[str] = []

    def matches_kind(self, op: Operation) -> bool:
        self.asked.append(op.name)
        return isinstance(op, ConstantOp)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        self.offered.append(op.name)


class NamedRoots(RewritePattern):
    roots = frozenset({"aten.neg", "aten.relu"})

    def __init__(self) -> None:
        self.offered: list[str] = []

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        self.offered.append(op.name)


def test_patterns_are_offered_only_the_ops_they_can_match():
    ifs, constants, named = CountIfs(), ConstantsByKind(), NamedRoots()
    driver = PatternDriver([ifs, constants, named])
    driver.rewrite_region(parse(NESTED).body)
    assert ifs.offered == ["prim.If", "prim.If"]
    assert constants.offered == ["prim.Constant"]
    assert sorted(named.offered) == ["aten.neg", "aten.relu"]
    assert len(constants.asked) == len(set(constants.asked))  # once per op name
    assert driver.table["aten.tanh"] == ()


class Explode(RewritePattern):
    roots = frozenset({"aten.tanh"})

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        raise ValueError("no tanh today")


def test_a_failing_pattern_is_reported_against_its_op_as_by_xdsl():
    with pytest.raises(ValueError, match="Error while applying pattern: no tanh today") as ours:
        PatternDriver([Explode()]).rewrite_region(parse(NESTED).body)
    with pytest.raises(ValueError) as theirs:
        _run_xdsl(parse(NESTED), [Explode()])
    assert str(ours.value) == str(theirs.value)


# --------------------------------------------------------------------------------------
# Rewrites in place: the IR and the events of xDSL's rewriter
# --------------------------------------------------------------------------------------

USES = """
func.func @u(%x : !ts.int, %y : !ts.int) -> !ts.int {
  %two = prim.Constant 2 : !ts.int
  %k = aten.mul %x, %two : (!ts.int, !ts.int) -> !ts.int
  %a = aten.add %k, %y : (!ts.int, !ts.int) -> !ts.int
  %b = aten.add %k, %k : (!ts.int, !ts.int) -> !ts.int
  %c = aten.add %y, %a : (!ts.int, !ts.int) -> !ts.int
  %d = aten.add %b, %c : (!ts.int, !ts.int) -> !ts.int
  func.return %d : !ts.int
}
"""


def _recording_rewriter(module: ModuleOp, events: list[str]) -> tuple[PatternRewriter, dict[str, Operation]]:
    """A rewriter whose events are written to `events`, and the ops by result name."""
    block = module.ops.first.body.block  # pyright: ignore[reportOptionalMemberAccess, reportAttributeAccessIssue]
    ops = {op.results[0].name_hint or op.name: op for op in block.ops if op.results}

    def name(op: Operation) -> str:
        return f"{op.name}:{op.results[0].name_hint if op.results else ''}"

    rewriter = PatternRewriter(InsertPoint.at_start(block))
    record_events(rewriter, events, name)
    return rewriter, ops


def _users(value: SSAValue) -> list[str]:
    """The users of `value` in use-list order (later rewrites and walks follow it)."""
    return [f"{use.operation.results[0].name_hint}/{use.index}" for use in value.uses]


def test_inserting_in_place_rewrites_as_xdsls_insert():
    """`%k` replaced by a new constant: the same events in the same order (but the
    modification of each user, which the replacement event reports already), the same
    text, and the same use-list order on the replacement."""
    results: list[tuple[list[str], str, list[str]]] = []
    for in_place in (False, True):
        module, events = parse(USES), []
        rewriter, ops = _recording_rewriter(module, events)
        k = ops["k"]
        six = ConstantOp.from_value(6, k.results[0].type)
        if in_place:
            insert_ops_before(rewriter, [six], k)
            forward_results(k, [six.result], rewriter)
        else:
            rewriter.insert(six, InsertPoint.before(k))
            rewriter.replace(k, [], [six.result])
        results.append((events, module_text(module), _users(six.result)))
    xdsl_events = [e for e in results[0][0] if not e.startswith("modified aten.add")]
    assert len(xdsl_events) == len(results[0][0]) - 3  # one per use of %k
    assert (xdsl_events, *results[0][1:]) == results[1]
    events, text, users = results[1]
    assert events[0] == "inserted prim.Constant:None" and events[-1] == "removed aten.mul:k"
    assert "%k = prim.Constant 6" in text and users == ["a/0", "b/0", "b/1"]  # reversed, as the operand setter relinks them


def test_replacing_uses_in_place_rewrites_as_xdsls_replace_all_uses_with():
    """Uses moved onto a value that has uses of its own, then an op erased."""
    results: list[tuple[list[str], str, list[str]]] = []
    for in_place in (False, True):
        module, events = parse(USES), []
        rewriter, ops = _recording_rewriter(module, events)
        y = ops["a"].operands[1]
        if in_place:
            replace_uses(rewriter, ops["k"].results[0], y)
            erase(ops["k"], rewriter)
        else:
            rewriter.replace_all_uses_with(ops["k"].results[0], y)
            rewriter.erase(ops["k"])
        results.append((events, module_text(module), _users(y)))
    assert results[0] == results[1]
    assert results[1][0] == ["modified aten.add:b", "modified aten.add:b", "modified aten.add:a", "removed aten.mul:k"]


class PrefixConstants(RewritePattern):
    """Puts a constant before each relu, at the rewriter's insertion point."""

    roots = frozenset({"aten.relu"})

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if op.name == "aten.relu" and not isinstance(op.prev_op, ConstantOp):  # xDSL's walker offers every op
            rewriter.insert(ConstantOp.from_value(7))


def test_the_insertion_point_is_before_the_op_offered():
    """The driver makes it only when a pattern asks for it."""
    ours, theirs = parse(NESTED), parse(NESTED)
    _run_driver(ours, [PrefixConstants()])
    _run_xdsl(theirs, [PrefixConstants()])
    assert module_text(ours) == module_text(theirs)
    assert "prim.Constant 7 : !ts.int\n      %e = aten.relu" in module_text(ours)


class RecordAdds(RewritePattern):
    """Records the adds it is offered; promises to act only when operand 2 is a constant."""

    roots = frozenset({"aten.add"})
    operands_produced_by = ProducedBy(ConstantOp, (2,))

    def __init__(self) -> None:
        self.offered: list[str] = []

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        self.offered.append(op.results[0].name_hint or "")


def test_ops_failing_a_producer_promise_are_not_offered():
    """`ProducedBy`: the add whose operand 2 is a constant is offered, the one whose
    operand 2 is not (and the relu-free mul, which has no operand 2) is not."""
    text = NESTED.replace("%e = aten.relu %a : (!ts.tensor) -> !ts.tensor", "%e = aten.add %a, %x, %a : (!ts.tensor, !ts.tensor, !ts.tensor) -> !ts.tensor")
    pattern = RecordAdds()
    _run_driver(parse(text), [pattern])
    assert pattern.offered == ["b"]
    every = ProducedBy(ConstantOp)
    adds = [op for op in parse(text).walk() if op.name == "aten.add"]
    assert not any(every.holds(op) for op in adds) and [ProducedBy(ConstantOp, (2,)).holds(op) for op in adds] == [True, False]
