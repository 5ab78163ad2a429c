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
from xdsl.ir import Attribute, Block, Operation, SSAValue

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
        log_update(f"grouped {len(ops)} ops", group)
        made += 1
    return made


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
