"""loop-unrolling: PyTorch's `UnrollLoops` on `for`-style `prim.Loop`s.

Only loops whose condition is always true (the initial condition and the condition the
body yields are `true` constants: `for i in range(n)`) are unrolled, and only when their
body is small (at most `MAX_BODY_SIZE` ops, nested ones included, constants excluded):

- a constant trip count below `MAX_BODY_REPEATS` unrolls fully: the body is repeated
  that many times in place of the loop, the counter a constant in each copy;
- any other trip count `n` unrolls by `UNROLL_FACTOR`: a loop of
  `__round_to_zero_floordiv(n, 8)` trips whose body is eight copies, then the original
  loop as an epilogue for the `n - 8 * (n // 8)` remaining trips; the counter each copy
  sees is recomputed from the trip counters (`8 * j + k`, and `8 * (n // 8) + e` in the
  epilogue).

    %r = prim.Loop %10, %true iter(%i) carried(%a = %x : !ts.int) -> (!ts.int) {
      %b = aten.add %a, %i ...      →   %b0 = aten.add %x, %c0 ... %b9 = aten.add %b8, %c9
      prim.Yield %true, %b ...
    }

Inner loops are unrolled before the loops holding them, as in PyTorch; a loop is
visited once, so the loops the pass creates are not unrolled again. The pass leaves the
dead ops it exposes to dead-code-elimination.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, i64
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint

from tsjit.dialects.aten import create_op
from tsjit.dialects.prim import ConstantOp, LoopOp, YieldOp
from tsjit.dialects.types import IntType
from tsjit.transforms.pass_logging import TsjitPass

UNROLL_FACTOR = 8
"""Copies of the body per trip of a loop with an unknown trip count (`kUnrollFactor`)."""

MAX_BODY_SIZE = 32
"""Largest body unrolled, in ops other than constants (`kMaxBodySize`)."""

MAX_BODY_REPEATS = 64
"""Constant trip counts below this unroll fully (`kMaxBodyRepeats`)."""


@dataclass
class UnrollForLoop(RewritePattern):
    """A small `for` loop: fully for a small constant trip count, else by 8 plus an
    epilogue loop. With `constant_only`, only loops with a constant trip count (of any
    body size, as PyTorch's `UnrollConstantLoops`)."""

    constant_only: bool = False

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: LoopOp, rewriter: PatternRewriter, /) -> None:
        if not is_for_loop(op):
            return
        trip_count = constant_int(op.max_trip_count)
        if self.constant_only:
            if trip_count is None:
                return
        elif not is_small_block(op.body.block):
            return
        if trip_count is not None and trip_count < MAX_BODY_REPEATS:
            unroll_fully(op, trip_count, rewriter)
        else:
            unroll_by_factor(op, rewriter)


def is_for_loop(op: LoopOp) -> bool:
    """Whether the loop's condition is `true` on entry and after every trip."""
    terminator = op.body.block.last_op
    assert isinstance(terminator, YieldOp)
    return constant_bool(op.initial_condition) is True and constant_bool(terminator.values[0]) is True


def constant_int(value: SSAValue) -> int | None:
    owner = value.owner
    if isinstance(owner, ConstantOp) and isinstance(owner.result.type, IntType):
        return owner.python_value  # pyright: ignore[reportReturnType]
    return None


def constant_bool(value: SSAValue) -> bool | None:
    owner = value.owner
    if isinstance(owner, ConstantOp) and isinstance(owner.value, IntegerAttr) and owner.value.type.width.data == 1:
        return owner.value.value.data != 0
    return None


def is_small_block(block: Block, limit: int = MAX_BODY_SIZE) -> bool:
    """Whether `block` holds at most `limit` ops other than constants and terminators,
    nested ones included; stops counting past the limit."""
    count = 0
    pending: list[Block] = [block]
    while pending:
        for op in pending.pop().ops:
            if not isinstance(op, (ConstantOp, YieldOp)):
                count += 1
                if count > limit:
                    return False
            for region in op.regions:
                pending.extend(region.blocks)
    return True


def unroll_fully(op: LoopOp, trip_count: int, rewriter: PatternRewriter) -> None:
    """The body `trip_count` times before the loop, threading the carried values."""
    block = op.body.block
    counter = block.args[0]
    carried: Sequence[SSAValue] = op.carried
    for iteration in range(max(trip_count, 0)):
        index = _int_constant(iteration, op, rewriter) if counter.uses else counter
        carried = _insert_copy(block, index, carried, rewriter, InsertPoint.before(op))[1:]
    rewriter.replace(op, [], list(carried))


def unroll_by_factor(op: LoopOp, rewriter: PatternRewriter) -> None:
    """A loop of `n // 8` trips (rounded to zero) running eight copies of the body, then
    the original loop, now the epilogue, for the remaining `n - 8 * (n // 8)` trips."""
    block = op.body.block
    counter = block.args[0]
    trip_count = op.max_trip_count
    factor = _int_constant(UNROLL_FACTOR, op, rewriter)
    unrolled_trips = _int_op("aten.__round_to_zero_floordiv", [trip_count, factor], op, rewriter)
    done = _int_op("aten.mul", [unrolled_trips, factor], op, rewriter)
    remaining = _int_op("aten.sub", [trip_count, done], op, rewriter)

    body = Block(arg_types=[IntType(), *(a.type for a in block.args[1:])])
    for new, old in zip(body.args, block.args):
        new.name_hint = old.name_hint
    copies_at = InsertPoint.at_end(body)
    first = _int_op("aten.mul", [body.args[0], factor], op, rewriter, copies_at) if counter.uses else body.args[0]
    yielded: Sequence[SSAValue] = (op.initial_condition, *body.args[1:])
    for copy in range(UNROLL_FACTOR):
        index = first
        if counter.uses and copy:
            offset = _int_constant(copy, op, rewriter, copies_at)
            index = _int_op("aten.add", [first, offset], op, rewriter, copies_at)
        yielded = _insert_copy(block, index, yielded[1:], rewriter, copies_at)
    rewriter.insert(YieldOp(*yielded), copies_at)
    unrolled = LoopOp(unrolled_trips, op.initial_condition, op.carried, op.outs.types, Region(body))
    unrolled.location = op.location
    rewriter.insert(unrolled, InsertPoint.before(op))

    epilogue_body = rewriter.move_region_contents_to_new_regions(op.body)
    epilogue = LoopOp(remaining, op.initial_condition, unrolled.results, op.outs.types, epilogue_body)
    epilogue.location = op.location
    if counter.uses:
        start = InsertPoint.at_start(epilogue_body.block)
        index = _int_op("aten.add", [counter, done], op, rewriter, start)
        rewriter.replace_uses_with_if(counter, index, lambda use: use.operation is not index.owner)
    rewriter.replace(op, epilogue)


def _insert_copy(
    block: Block, index: SSAValue, carried: Sequence[SSAValue], rewriter: PatternRewriter, at: InsertPoint
) -> list[SSAValue]:
    """One trip of the loop body at `at`, with `index` as the counter; returns what it
    yields (the condition, then the carried values)."""
    mapping: dict[SSAValue, SSAValue] = {block.args[0]: index, **dict(zip(block.args[1:], carried, strict=True))}
    terminator = block.last_op
    assert isinstance(terminator, YieldOp)
    rewriter.insert([op.clone(mapping) for op in block.ops if op is not terminator], at)
    return [mapping.get(v, v) for v in terminator.values]


def _int_constant(value: int, loop: Operation, rewriter: PatternRewriter, at: InsertPoint | None = None) -> SSAValue:
    constant = ConstantOp(IntegerAttr(value, i64), IntType())
    constant.location = loop.location
    return rewriter.insert(constant, at or InsertPoint.before(loop)).result


def _int_op(
    name: str, operands: Sequence[SSAValue], loop: Operation, rewriter: PatternRewriter, at: InsertPoint | None = None
) -> SSAValue:
    op = create_op(name, operands, [IntType()], loop.location)
    return rewriter.insert(op, at or InsertPoint.before(loop)).results[0]


@dataclass(frozen=True)
class LoopUnrollingPass(TsjitPass):
    """Unrolls small `for` loops, inner loops first (PyTorch's `UnrollLoops`)."""

    name = "loop-unrolling"

    constant_only: bool = False
    """Only unroll loops with constant trip counts (PyTorch's `UnrollConstantLoops`)."""

    def run(self, ctx: Context, op: ModuleOp) -> None:
        self.rewrite(op, [UnrollForLoop(self.constant_only)], apply_recursively=False, walk_regions_first=True)
