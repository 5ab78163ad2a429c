"""Loop hints: what a lowering knows about a loop, carried down to LLVM's `!llvm.loop`
metadata.

Why: LLVM's loop vectorizer chooses how many vector iterations to interleave from its
register-pressure estimate, and on fused kernels with inline transcendentals (dozens of
splat constants) it chooses 1. One vector iteration of such a kernel is a dependency chain
of 60-150 cycles (polynomials, a division), longer than out-of-order execution can
overlap, so the loop runs at the chain's latency. Interleaving four vector iterations
gives the core independent chains: the LSTM tail ran 2x faster at 1M elements.

The hint is the attribute `tsjit.interleave = N` on an `scf.for`
(convert-aten-to-loops puts it on a kernel's elementwise loop). `ForLoweringWithHints`
moves it to the loop's back edge, `cf.br`; convert-cf-to-llvm keeps it on `llvm.br`;
`llvm_export` writes `!llvm.loop !{<self>, !{"llvm.loop.interleave.count", i32 N}}` on the
branch. An LLVM that cannot vectorize the loop ignores the hint.
"""

from __future__ import annotations

from llvmlite import ir
from xdsl.dialects.builtin import IntegerAttr, i64
from xdsl.dialects.scf import ForOp
from xdsl.ir import Operation
from xdsl.pattern_rewriter import PatternRewriter, op_type_rewrite_pattern
from xdsl.transforms.convert_scf_to_cf import ForLowering

INTERLEAVE = "tsjit.interleave"


def set_interleave(op: Operation, count: int) -> None:
    op.attributes[INTERLEAVE] = IntegerAttr(count, i64)


def interleave_of(op: Operation) -> int | None:
    hint = op.attributes.get(INTERLEAVE)
    return hint.value.data if isinstance(hint, IntegerAttr) else None


def copy_hints(source: Operation, target: Operation) -> None:
    if INTERLEAVE in source.attributes:
        target.attributes[INTERLEAVE] = source.attributes[INTERLEAVE]


class ForLoweringWithHints(ForLowering):
    """xDSL's `scf.for` lowering, keeping the loop's hints on its back edge."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, for_op: ForOp, rewriter: PatternRewriter):
        header, entry = for_op.body.first_block, for_op.parent_block()
        hinted = INTERLEAVE in for_op.attributes
        super().match_and_rewrite(for_op, rewriter)
        if not hinted or header is None:
            return
        # the header is the lowered loop's condition block: branched to from the entry
        # once, and from the back edge
        for use in tuple(header.uses):
            if use.operation.parent_block() is not entry:
                copy_hints(for_op, use.operation)


def loop_metadata(module: ir.Module, interleave: int) -> ir.MDValue:
    """A loop ID asking for `interleave` vector iterations per loop iteration. LLVM
    recognises a loop ID by its first operand being itself."""
    count = module.add_metadata(
        [ir.MetaDataString(module, "llvm.loop.interleave.count"), ir.Constant(ir.IntType(32), interleave)]
    )
    # a new node for each loop (add_metadata returns an equal node if there is one);
    # its placeholder first operand then becomes the node itself
    placeholder = ir.MetaDataString(module, f"tsjit.loop.{len(module.metadata)}")
    loop = module.add_metadata([placeholder, count])
    loop.operands = (loop, count)
    return loop
