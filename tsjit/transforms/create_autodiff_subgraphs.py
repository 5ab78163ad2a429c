"""create-autodiff-subgraphs: differentiable ops grouped into `prim.DifferentiableGraph`s
(PyTorch's `CreateAutodiffSubgraphs`), which `differentiate` then splits into a forward
and a backward graph that run as one autograd node.

    %g = aten.mm %x, %w ...                %h = prim.DifferentiableGraph(%a = %x : T, %b = %w : T) -> (T) {
    %h = aten.tanh %g ...          →         %g = aten.mm %a, %b ...
    ... %h ...                               %h = aten.tanh %g ...
                                             prim.Yield %h ...
                                           }

An op joins a subgraph when the gradient table has its formula (or it is one of the
operators whose results never require grad, which contribute no gradient), it only
reads memory, and some tensor it reads may require grad (its type does not say
`requires_grad = false`): requires_grad, propagated by shape propagation from the
specialized inputs, decides what is differentiated. List literals, unpacks and constant
chunks of tensors join with the ops they feed. Grouping is one forward scan per block
(blocks of If and Loop ops on their own): a subgraph is placed at its last op, so it can
take an op when no op between its ops and the new one uses one of its values, writes
memory it reads, or has side effects (`with torch.no_grad()` among them). A list that
would leave a subgraph stays outside with what computes it (the runtime differentiates
lists op by op). Subgraphs of fewer than `min-size` ops (constants not counted) are not
made: PyTorch's threshold of 2.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute, Block, BlockArgument, Operation, SSAValue

from tsjit.dialects.aten import OperatorOp, schema_of
from tsjit.dialects.prim import (
    ConstantChunkOp,
    ConstantOp,
    DifferentiableGraphOp,
    FusionGroupOp,
    ListConstructOp,
    ListUnpackOp,
)
from tsjit.dialects.types import DTYPE_BY_ELEMENT, ListType, OptionalType, TensorType
from tsjit.transforms.analysis.alias_analysis import AliasDb
from tsjit.transforms.pass_logging import TsjitPass, allow_rewrite, log_update

# --------------------------------------------------------------------------------------
# What may be differentiated
# --------------------------------------------------------------------------------------


def may_require_grad(t: Attribute) -> bool:
    """Whether a value of type `t` may be, or hold, a tensor that requires grad."""
    if isinstance(t, TensorType):
        if t.grad is False:
            return False
        dtype = DTYPE_BY_ELEMENT.get(t.dtype) if t.element_type is not None else None
        return dtype is None or dtype.is_floating or dtype.is_complex
    if isinstance(t, (ListType, OptionalType)):
        return may_require_grad(t.element_type)
    return False


def is_differentiable(op: Operation) -> bool:
    """An op a DifferentiableGraph can hold: an operator with a gradient formula, or one
    whose results never require grad, that writes no memory; or a list literal, list
    unpack or constant chunk of tensors."""
    if isinstance(op, (ListConstructOp, ListUnpackOp)):
        return any(isinstance(v.type, TensorType) for v in (*op.operands, *op.results))
    if isinstance(op, ConstantChunkOp):
        return True
    if not isinstance(op, OperatorOp) or op.regions:
        return False
    schema = schema_of(op)
    if schema is None or schema.is_mutable:
        return False
    from tsjit.frontend.symbolic_gradients import has_formula, is_non_differentiable

    return has_formula(schema) or is_non_differentiable(schema)


def reads_grad(op: Operation) -> bool:
    return any(may_require_grad(v.type) for v in op.operands)


# --------------------------------------------------------------------------------------
# Grouping
# --------------------------------------------------------------------------------------


@dataclass(eq=False)
class _Cluster:
    ops: list[Operation] = field(default_factory=list)
    reads: set[int] = field(default_factory=set)
    defined: set[SSAValue] = field(default_factory=set)


class _Grouping:
    """The forward scan of one block (see the module docstring)."""

    def __init__(self, block: Block, db: AliasDb):
        self.block = block
        self.db = db
        self.clusters: list[_Cluster] = []
        self.open: _Cluster | None = None

    def run(self) -> list[_Cluster]:
        for op in self.block.ops:
            if isinstance(op, ConstantOp) or op is self.block.last_op:
                continue
            if is_differentiable(op) and (reads_grad(op) or self._feeds(op)):
                self.take(op)
            else:
                self.barrier(op)
        return self.clusters

    def _feeds(self, op: Operation) -> bool:
        """A list or chunk op whose tensors come from the open subgraph."""
        cluster = self.open
        return (
            cluster is not None
            and isinstance(op, (ListConstructOp, ListUnpackOp, ConstantChunkOp))
            and any(v in cluster.defined for v in op.operands)
        )

    def take(self, op: Operation) -> None:
        cluster = self.open
        if cluster is None:
            cluster = self.open = _Cluster()
            self.clusters.append(cluster)
        cluster.ops.append(op)
        cluster.reads |= self.db.reads(op)
        cluster.defined.update(op.results)

    def barrier(self, op: Operation) -> None:
        cluster = self.open
        if cluster is None:
            return
        db = self.db
        used = {v for nested in op.walk() for v in nested.operands}
        if db.has_side_effects(op) or not used.isdisjoint(cluster.defined) or not db.writes(op).isdisjoint(cluster.reads):
            self.open = None


def evict_escaping_lists(ops: list[Operation]) -> list[Operation]:
    """The cluster without ops whose list results would leave it, and without what they
    are computed from: gradients do not flow through a subgraph's list outputs."""
    members = set(ops)
    evicted: set[Operation] = set()
    for op in ops:
        for result in op.results:
            if isinstance(result.type, ListType) and any(u.operation not in members for u in result.uses):
                _upstream(op, members, evicted)
    return [op for op in ops if op not in evicted]


def _upstream(op: Operation, members: set[Operation], evicted: set[Operation]) -> None:
    stack = [op]
    while stack:
        current = stack.pop()
        if current in evicted:
            continue
        evicted.add(current)
        for value in current.operands:
            owner = value.owner
            if isinstance(owner, Operation) and owner in members:
                stack.append(owner)


def _counted(ops: Iterable[Operation]) -> int:
    return sum(not isinstance(op, (ListConstructOp, ListUnpackOp)) for op in ops)


def create_subgraphs(graph: FuncOp, min_size: int) -> int:
    """Groups every block of `graph`; the number of subgraphs made."""
    from tsjit.transforms.fuse_pointwise import make_group

    blocks = [b for op in graph.walk() if not _inside_subgraph(op) for r in op.regions for b in r.blocks]
    db = AliasDb(graph)
    clusters = [c for block in blocks for c in _Grouping(block, db).run()]
    made = 0
    for cluster in clusters:
        ops = evict_escaping_lists(cluster.ops)
        if _counted(ops) < min_size or not allow_rewrite():
            continue
        group = make_group(ops, DifferentiableGraphOp)
        assert isinstance(group, DifferentiableGraphOp)
        group = unmerge_view_outputs(group)
        log_update(f"grouped {len(ops)} ops", group)
        made += 1
    return made


# --------------------------------------------------------------------------------------
# Views leave as views
# --------------------------------------------------------------------------------------


def is_view(op: Operation) -> bool:
    """An op whose tensor result is a view of an operand (`select`, `t`, chunks)."""
    if isinstance(op, ConstantChunkOp):
        return True
    schema = schema_of(op) if isinstance(op, OperatorOp) else None
    if schema is None or schema.is_mutable:
        return False
    return any(schema.aliased_arguments(k) for k in range(len(schema.returns)))


def unmerge_view_outputs(group: DifferentiableGraphOp) -> DifferentiableGraphOp:
    """A subgraph output that is a view (made by a view op inside) is made again after
    the subgraph, from what it is a view of: an autograd function's outputs are new
    tensors, and a view must stay a view of its base so that writes through it reach
    the base's history (PyTorch's `unmergeAliasedOutputs`)."""
    from xdsl.rewriter import InsertPoint, Rewriter

    while True:
        body = group.body.block
        terminator = body.last_op
        assert terminator is not None
        found = next(
            ((k, v.owner) for k, v in enumerate(terminator.operands)
             if isinstance(v.owner, Operation) and v.owner.parent_block() is body and is_view(v.owner)),
            None,
        )  # fmt: skip
        if found is None:
            return group
        index, view = found
        assert isinstance(view, Operation)
        outside: list[SSAValue] = []
        for operand in view.operands:
            owner = operand.owner
            if isinstance(operand, BlockArgument) and operand.block is body:
                outside.append(group.inputs[operand.index])
            elif isinstance(owner, ConstantOp):
                constant = owner.clone()
                Rewriter.insert_op(constant, InsertPoint.before(group))
                outside.append(constant.results[0])
            else:
                group, result = _with_output(group, operand)
                outside.append(result)
        clone = view.clone()
        for i, value in enumerate(outside):
            clone.operands[i] = value  # pyright: ignore[reportIndexIssue]
        Rewriter.insert_op(clone, InsertPoint.after(group))
        produced = group.outs[index]
        position = list(view.results).index(terminator.operands[index])
        produced.replace_all_uses_with(clone.results[position])
        group = _without_output(group, index)
        if not any(r.uses for r in view.results):
            Rewriter.erase_op(view)


def _with_output(group: DifferentiableGraphOp, value: SSAValue) -> tuple[DifferentiableGraphOp, SSAValue]:
    """The subgraph with `value` (of its body) among its results."""
    from xdsl.rewriter import Rewriter

    from tsjit.dialects.prim import YieldOp

    terminator = group.body.block.last_op
    assert terminator is not None
    yielded = list(terminator.operands)
    if value in yielded:
        return group, group.outs[yielded.index(value)]
    Rewriter.replace_op(terminator, YieldOp(*yielded, value))
    body = Rewriter.move_region_contents_to_new_regions(group.body)
    new = DifferentiableGraphOp(list(group.inputs), [*group.outs.types, value.type], body)
    Rewriter.insert_op(new, _before(group))
    for old, result in zip(group.outs, new.outs):
        old.replace_all_uses_with(result)
        result.name_hint = old.name_hint
    Rewriter.erase_op(group)
    return new, new.outs[-1]


def _without_output(group: DifferentiableGraphOp, index: int) -> DifferentiableGraphOp:
    """The subgraph without its (unused) result `index`."""
    from xdsl.rewriter import Rewriter

    from tsjit.dialects.prim import YieldOp

    terminator = group.body.block.last_op
    assert terminator is not None and not group.outs[index].uses
    yielded = [v for k, v in enumerate(terminator.operands) if k != index]
    Rewriter.replace_op(terminator, YieldOp(*yielded))
    body = Rewriter.move_region_contents_to_new_regions(group.body)
    types = [t for k, t in enumerate(group.outs.types) if k != index]
    new = DifferentiableGraphOp(list(group.inputs), types, body)
    Rewriter.insert_op(new, _before(group))
    kept = [r for k, r in enumerate(group.outs) if k != index]
    for old, result in zip(kept, new.outs):
        old.replace_all_uses_with(result)
        result.name_hint = old.name_hint
    Rewriter.erase_op(group)
    return new


def _before(op: Operation):  # noqa: ANN202 - xDSL's InsertPoint
    from xdsl.rewriter import InsertPoint

    return InsertPoint.before(op)


def _inside_subgraph(op: Operation) -> bool:
    current: Operation | None = op
    while current is not None:
        if isinstance(current, (FusionGroupOp, DifferentiableGraphOp)):
            return True
        current = current.parent_op()
    return False


@dataclass(frozen=True)
class CreateAutodiffSubgraphsPass(TsjitPass):
    name: ClassVar[str] = "create-autodiff-subgraphs"

    min_size: int = 2
    """Smallest subgraph made, in ops (constants, list literals and unpacks not counted)."""

    def run(self, ctx: Context, op: ModuleOp) -> None:
        for graph in self.graphs(op):
            create_subgraphs(graph, self.min_size)
