"""decompose-ops: an operator without a numpy kernel is replaced by its decomposition,
the TorchScript the library writes it in (`tsjit/frontend/library/decompositions.py`),
after PyTorch's `DecomposeOps` and `_jit_pass_run_decompositions`.

    %r = aten.xlogy %x, %y : ...          %0 = aten.log %y ...
                                     →    %1 = aten.mul %x, %0 ...
                                          %r = aten.where ...

The inlined ops take the location of the op they replace, so errors point at the
user's call. Runs first in `executor-default`, so what the decomposition is made of is
folded, shape-propagated and fused like the user's own code. Where no pass runs, the
interpreter calls the same compiled decomposition instead (`runtime/interpreter.py`).
A result whose type the decomposition does not prove is cast back to the op's type
with `prim.unchecked_cast`; a decomposition of an op that has results nothing uses is
still inlined (its errors are the op's).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

from tsjit.dialects.aten import schema_of
from tsjit.dialects.prim import UncheckedCastOp
from tsjit.dialects.types import is_subtype_of
from tsjit.transforms.pass_logging import TsjitPass


def decomposable_overload(op: Operation) -> str | None:
    """The qualified overload `op` calls when it has a decomposition and no kernel."""
    if getattr(type(op), "OPERATOR", None) is None:
        return None
    schema = schema_of(op)
    if schema is None:
        return None
    overload = f"{schema.name}.{schema.overload_name}" if schema.overload_name else schema.name
    from tsjit.frontend.library_decompositions import has_decomposition
    from tsjit.runtime.kernels import lookup

    if lookup(overload) is not None or not has_decomposition(overload):
        return None
    return overload


@dataclass
class DecomposeOperator(RewritePattern):
    """An op with a decomposition and no kernel: the decomposition's body in its place."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        overload = decomposable_overload(op)
        if overload is None:
            return
        from tsjit.frontend.library_decompositions import decomposition_graph

        graph = decomposition_graph(overload)
        assert graph is not None
        body = graph.body.block
        mapping: dict[SSAValue, SSAValue] = dict(zip(body.args, op.operands, strict=True))
        terminator = body.last_op
        assert terminator is not None
        for inner in body.ops:
            if inner is terminator:
                break
            clone = inner.clone(mapping)
            for nested in clone.walk():
                nested.location = op.location
            rewriter.insert(clone)
        results: list[SSAValue] = []
        for value, result in zip(terminator.operands, op.results, strict=True):
            value = mapping.get(value, value)
            if not is_subtype_of(value.type, result.type):
                cast = UncheckedCastOp(value, result.type)
                cast.location = op.location
                rewriter.insert(cast)
                value = cast.result
            results.append(value)
        rewriter.replace(op, [], results)


@dataclass(frozen=True)
class DecomposeOpsPass(TsjitPass):
    """Inlines the decomposition of every operator that has one and no numpy kernel."""

    name = "decompose-ops"

    def run(self, ctx: Context, op: ModuleOp) -> None:
        self.rewrite(op, [DecomposeOperator()])
