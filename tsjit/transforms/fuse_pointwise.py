"""fuse-pointwise: the JIT overview's graph fuser. Adjacent elementwise aten ops become
one `prim.FusionGroup`, which `convert-aten-to-loops` turns into one loop nest.

    %a = aten.mul %x, %y                        %a, %c = prim.FusionGroup(%p = %x : T, %q = %y : T) -> (T, T) {
    %b = aten.tanh %a                      →      %a = aten.mul %p, %q
    %c = aten.add %b, %x, %one                    %b = aten.tanh %a
    ... %a ... %c ...                             %c = aten.add %b, %p, %one
                                                  prim.Yield %a, %c
                                                }

Fusible: every operator of the elementwise table (`lowering/elementwise_table`) whose
result and tensor operands have a known dtype and rank (sizes may be unknown: kernels
are shape-generic) and that the table can compute on its operands (integer division
needs a non-zero literal divisor). Scalar operands stay operands: constants are copied
into the group, other numbers become inputs. Broadcasting is the kernel's business.
As in PyTorch's fuser, `prim.ConstantChunk` joins a group at its inputs (the kernel
reads each chunk in place) and `aten.cat` at its outputs (the kernel writes each part
in place). A chunk of a value that fusible ops compute is first moved to their inputs
(`chunk(f(a, b))` = `f(chunk(a'), chunk(b'))` with `a', b'` = `broadcast_tensors(a, b)`),
so that the LSTM cell's gates never exist as a tensor.

Grouping is one forward scan per block. A group may take an op when no op between
the group's ops and the new one uses a group value or writes memory the group reads
(alias analysis) or has side effects: then all of it can move to its last op. Ops of
a group only read, so no input is written inside a group. Groups with fewer than
`min-ops` elementwise ops are left as they were (PyTorch fuses groups of two or more).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from xdsl.builder import Builder
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from tsjit.dialects.aten import OperatorOp, create_op
from tsjit.dialects.prim import (
    ConstantChunkOp,
    ConstantOp,
    DifferentiableGraphOp,
    FusionGroupOp,
    ListConstructOp,
    ListUnpackOp,
    YieldOp,
)
from tsjit.dialects.types import ListType, TensorType
from tsjit.transforms.analysis.alias_analysis import AliasDb
from tsjit.transforms.lowering.elementwise_table import (
    Element,
    ElementwiseCall,
    ScalarEmitter,
    emit_elementwise,
    kind_of,
    match_elementwise,
)
from tsjit.transforms.pass_logging import TsjitPass, allow_rewrite, log_update

# --------------------------------------------------------------------------------------
# What may be fused
# --------------------------------------------------------------------------------------


def constant_python_value(value: SSAValue) -> Any:
    """The Python value of a `prim.Constant` number, bool, string or None; LookupError
    for anything else (what `match_elementwise` asks of static arguments)."""
    owner = value.owner
    if isinstance(owner, ConstantOp):
        python = owner.python_value
        if python is None or isinstance(python, bool | int | float | str):
            return python
    raise LookupError(value)


def is_fusible_elementwise(op: Operation) -> bool:
    """An op a fused kernel can compute: an elementwise table op on tensors of known
    dtype and rank with a tensor result, not a view (`to` of the same dtype), and
    whose rule emits on these operands."""
    if not isinstance(op, OperatorOp) or len(op.results) != 1 or not _known_tensor(op.results[0].type):
        return False
    call = match_elementwise(op, constant_python_value)
    if call is None:
        return False
    values = [op.operands[i] for i in call.operands]
    if any(isinstance(v.type, TensorType) and not _known_tensor(v.type) for v in values):
        return False
    if call.rule.conversion and kind_of(values[0].type) == call.result:
        return False  # `x.to(x.dtype)` is `x` itself: fusing it would copy an alias
    return _emits(call, values)


def _known_tensor(type: Attribute) -> bool:
    return (
        isinstance(type, TensorType)
        and type.rank is not None
        and kind_of(type) is not None
        and type.device_name in (None, "cpu")
    )


def _emits(call: ElementwiseCall, values: Sequence[SSAValue]) -> bool:
    """Whether the table's rule can compute `op`: emitted once into a scratch block,
    constants as themselves, other operands as block arguments."""
    scratch = Block()
    emitter = ScalarEmitter(Builder(InsertPoint.at_end(scratch)), call.compute, contract=True)
    operands: list[Any] = []
    for value in values:
        try:
            operands.append(constant_python_value(value))
        except LookupError:
            kind = kind_of(value.type)
            if kind is None:
                return False  # None or a container at run time: not an element
            operands.append(Element(scratch.insert_arg(kind.type, len(scratch.args)), kind))
    try:
        emit_elementwise(emitter, call, operands)
    except ValueError:
        return False
    return True


def _is_fusible_chunk(op: Operation) -> bool:
    return (
        isinstance(op, ConstantChunkOp)
        and _known_tensor(op.input.type)
        and all(_known_tensor(r.type) for r in op.outs)
    )


# --------------------------------------------------------------------------------------
# Chunks moved to the inputs of what they chunk
# --------------------------------------------------------------------------------------


def push_chunk(block: Block, db: AliasDb) -> bool:
    """Rewrites the first `chunk(v)` of `block` where `v` is computed by a tree of
    fusible ops used only by the tree and the chunk into the tree applied to chunks of
    its broadcast leaves; False when there is none."""
    position = {op: i for i, op in enumerate(block.ops)}
    for chunk in block.ops:
        if not _is_fusible_chunk(chunk):
            continue
        tree = _single_use_tree(chunk.operands[0], position)
        if not tree or not _leaves_unwritten(tree, chunk, db) or not allow_rewrite():
            continue
        log_update("chunk moved to the inputs of the ops it chunked", chunk)
        _distribute_chunk(chunk, tree)  # pyright: ignore[reportArgumentType]
        return True
    return False


def _single_use_tree(root: SSAValue, position: dict[Operation, int]) -> list[Operation]:
    """The fusible ops of the block (`position` of each op) computing `root` whose
    results have one use, in block order; empty when `root` is not computed that way."""
    tree: list[Operation] = []
    pending = [root]
    while pending:
        value = pending.pop()
        op = value.owner
        if (
            not isinstance(op, Operation)
            or op not in position
            or not value.has_one_use()
            or not is_fusible_elementwise(op)
        ):
            continue
        tree.append(op)
        pending.extend(v for v in op.operands if isinstance(v.type, TensorType))
    return sorted(tree, key=position.__getitem__)


def _leaves(tree: Sequence[Operation]) -> list[SSAValue]:
    inside = {r for op in tree for r in op.results}
    leaves: dict[SSAValue, None] = {}
    for op in tree:
        for value in op.operands:
            if isinstance(value.type, TensorType) and value not in inside:
                leaves[value] = None
    return list(leaves)


def _leaves_unwritten(tree: Sequence[Operation], chunk: Operation, db: AliasDb) -> bool:
    """The tree's reads may move down to the chunk: nothing between writes a leaf."""
    leaves = _leaves(tree)
    op = tree[0].next_op
    while op is not None and op is not chunk:
        if db.has_side_effects(op) or db.writes_to_alias(op, leaves):
            return False
        op = op.next_op
    return True


def _distribute_chunk(chunk: ConstantChunkOp, tree: Sequence[Operation]) -> None:
    rewriter = Rewriter()
    point = InsertPoint.before(chunk)
    root_type = chunk.input.type
    assert isinstance(root_type, TensorType)
    leaves = _leaves(tree)
    if len(leaves) > 1:  # every leaf at the shape of the chunked value, then chunked
        list_type = ListType(TensorType())
        elements = ListConstructOp(leaves, list_type)
        broadcast = create_op("aten.broadcast_tensors", [elements.result], [list_type], chunk.location)
        shaped = [_like(root_type, leaf.type) for leaf in leaves]
        unpacked = ListUnpackOp(broadcast.results[0], shaped)
        rewriter.insert_op([elements, broadcast, unpacked], point)
        broadcast_leaves = list(unpacked.outs)
    else:
        broadcast_leaves = leaves
    chunks, dim = chunk.chunks.value.data, chunk.dim.value.data
    pieces: dict[SSAValue, Sequence[SSAValue]] = {}
    for leaf, shaped in zip(leaves, broadcast_leaves, strict=True):
        piece_types = [_like(out.type, leaf.type) for out in chunk.outs]
        leaf_chunk = ConstantChunkOp(shaped, chunks, dim, piece_types)
        rewriter.insert_op(leaf_chunk, point)
        pieces[leaf] = leaf_chunk.outs
    for k, out in enumerate(chunk.outs):
        mapping = {leaf: pieces[leaf][k] for leaf in leaves}
        for op in tree:
            operands = [mapping.get(v, v) for v in op.operands]
            copy = create_op(op.name, operands, [_like(out.type, op.results[0].type)], op.location)
            rewriter.insert_op(copy, point)
            mapping[op.results[0]] = copy.results[0]
        out.replace_all_uses_with(mapping[chunk.input])
    rewriter.erase_op(chunk)
    for op in reversed(tree):
        rewriter.erase_op(op)


def _like(shape_of: Attribute, dtype_of: Attribute) -> TensorType:
    """A tensor type with the sizes of one type and the other properties of another."""
    assert isinstance(shape_of, TensorType) and isinstance(dtype_of, TensorType)
    return dtype_of.with_(sizes=shape_of.shape, strides=None)


# --------------------------------------------------------------------------------------
# Grouping
# --------------------------------------------------------------------------------------


@dataclass(eq=False)
class _Cluster:
    """Ops that will form one group, in block order, and the memory locations they
    read; `elementwise` counts the ops that compute (not chunks, lists, cats)."""

    ops: list[Operation] = field(default_factory=list)
    reads: set[int] = field(default_factory=set)
    elementwise: int = 0

    def take(self, nodes: Iterable[Operation], db: AliasDb, elementwise: bool) -> None:
        for op in nodes:
            self.ops.append(op)
            self.reads |= db.reads(op)
        self.elementwise += elementwise

    def absorb(self, other: _Cluster) -> None:
        self.ops.extend(other.ops)
        self.reads |= other.reads
        self.elementwise += other.elementwise


class _Grouping:
    """The forward scan of one block: `open` groups may still take ops."""

    def __init__(self, block: Block, db: AliasDb):
        self.block = block
        self.db = db
        self.position = {op: i for i, op in enumerate(block.ops)}
        self.cluster_of: dict[Operation, _Cluster] = {}
        self.open: set[_Cluster] = set()

    def clusters(self) -> list[_Cluster]:
        units = _input_units(self.block, self.position)
        for op in list(self.block.ops):
            unit = units.get(op)
            if unit is not None:
                if op is unit[-1]:
                    self.input_unit(unit)
                continue
            if is_fusible_elementwise(op):
                self.elementwise(op)
            elif (cat := _cat_output(op)) is not None:
                self.cat(cat)
            elif not isinstance(op, ListConstructOp) or not _feeds_fusible_cat(op):
                self.barrier(op)
        found = {id(c): c for c in self.cluster_of.values()}
        return sorted(found.values(), key=lambda c: self.position[c.ops[-1]])

    def producers(self, values: Iterable[SSAValue]) -> list[_Cluster]:
        found: dict[int, _Cluster] = {}
        for value in values:
            owner = value.owner
            if isinstance(owner, Operation) and (cluster := self.cluster_of.get(owner)) is not None:
                found[id(cluster)] = cluster
        return list(found.values())

    def elementwise(self, op: Operation) -> None:
        cluster = self.merge([c for c in self.producers(op.operands) if c in self.open])
        self.add(cluster, [op], elementwise=True)

    def input_unit(self, unit: list[Operation]) -> None:
        """Chunks (and the broadcast before them) read group inputs: values computed
        outside any group this unit joins, so its producers' groups end here."""
        self.close_users_of(unit[0].operands, [])
        self.add(self.merge([]), unit, elementwise=False)

    def cat(self, unit: list[Operation]) -> None:
        """`cat` of group values: the group writes the parts in place, and ends."""
        elements = unit[0].operands
        joined = [c for c in self.producers(elements) if c in self.open]
        self.close_users_of([*elements, *unit[-1].operands[1:]], joined)
        if not joined:
            return
        cluster = self.merge(joined)
        if _cat_fits(cluster, unit[-1]):
            self.add(cluster, unit, elementwise=False)
        self.close([cluster])

    def barrier(self, op: Operation) -> None:
        """An op no group takes: groups whose values it uses, whose reads it may
        overwrite, or all of them when it has side effects, cannot grow past it."""
        db = self.db
        if db.has_side_effects(op):
            self.close(self.open)
            return
        self.close_users_of([v for nested in op.walk() for v in nested.operands], [])
        written = db.writes(op)
        if written:
            self.close([c for c in self.open if not written.isdisjoint(c.reads)])

    def close_users_of(self, values: Iterable[SSAValue], keep: list[_Cluster]) -> None:
        self.close([c for c in self.producers(values) if c in self.open and c not in keep])

    def close(self, clusters: Iterable[_Cluster]) -> None:
        self.open.difference_update(list(clusters))

    def merge(self, clusters: list[_Cluster]) -> _Cluster:
        """One open group of `clusters` (a new one for none), the ops in block order."""
        if not clusters:
            cluster = _Cluster()
            self.open.add(cluster)
            return cluster
        target = max(clusters, key=lambda c: len(c.ops))
        for other in clusters:
            if other is not target:
                target.absorb(other)
                for op in other.ops:
                    self.cluster_of[op] = target
                self.open.discard(other)
        target.ops.sort(key=self.position.__getitem__)
        return target

    def add(self, cluster: _Cluster, ops: list[Operation], elementwise: bool) -> None:
        cluster.take(ops, self.db, elementwise)
        for op in ops:
            self.cluster_of[op] = cluster


def _input_units(block: Block, position: dict[Operation, int]) -> dict[Operation, list[Operation]]:
    """Chunks of tensors, each alone or with the `broadcast_tensors` of a list of
    tensors whose unpacked results it chunks: op -> its unit, in block order."""
    units: dict[Operation, list[Operation]] = {}
    for op in block.ops:
        if not _is_fusible_chunk(op) or op in units:
            continue
        unit = _broadcast_unit(op, position) or [op]
        for member in unit:
            units[member] = unit
    return units


def _broadcast_unit(chunk: Operation, position: dict[Operation, int]) -> list[Operation] | None:
    """`ListConstruct → broadcast_tensors → ListUnpack → chunk of each result`, in
    consecutive ops, when the list and the unpacked values have no other use."""
    unpack = chunk.operands[0].owner
    if not isinstance(unpack, ListUnpackOp):
        return None
    broadcast = unpack.list.owner
    if not (isinstance(broadcast, OperatorOp) and broadcast.name == "aten.broadcast_tensors"):
        return None
    elements = broadcast.operands[0].owner
    if not isinstance(elements, ListConstructOp) or not elements.result.has_one_use():
        return None
    chunks = [use.operation for out in unpack.outs for use in out.uses]
    if any(not _is_fusible_chunk(c) for c in chunks) or any(not out.has_one_use() for out in unpack.outs):
        return None
    unit = sorted([elements, broadcast, unpack, *chunks], key=position.__getitem__)
    if position[unit[-1]] - position[unit[0]] != len(unit) - 1:
        return None  # interleaved with other ops: it could not move as one
    return unit


def _cat_output(op: Operation) -> list[Operation] | None:
    """`[ListConstruct, cat]` for a cat right after the list literal only it uses,
    along a constant dim, of known tensors of the result's rank."""
    if not (isinstance(op, OperatorOp) and op.name == "aten.cat" and len(op.operands) == 2):
        return None
    elements = op.operands[0].owner
    if (
        not isinstance(elements, ListConstructOp)
        or elements.next_op is not op
        or not elements.result.has_one_use()
    ):
        return None
    result = op.results[0].type
    if not _known_tensor(result) or not isinstance(constant_dim(op), int):
        return None
    if any(not _known_tensor(v.type) or v.type.rank != result.rank for v in elements.elements):  # pyright: ignore[reportAttributeAccessIssue]
        return None
    return [elements, op]


def constant_dim(cat: Operation) -> int | None:
    try:
        dim = constant_python_value(cat.operands[1])
    except LookupError:
        return None
    return dim if isinstance(dim, int) else None


def _feeds_fusible_cat(elements: ListConstructOp) -> bool:
    uses = list(elements.result.uses)
    return len(uses) == 1 and _cat_output(uses[0].operation) is not None


def _cat_fits(cluster: _Cluster, cat: Operation) -> bool:
    """A cat ends a group whose iteration space it spans: the parts have the group's
    highest rank."""
    rank = cat.results[0].type.rank  # pyright: ignore[reportAttributeAccessIssue]
    return all(
        v.type.rank <= rank
        for op in cluster.ops
        for v in (*op.operands, *op.results)
        if isinstance(v.type, TensorType)  # pyright: ignore[reportAttributeAccessIssue]
    )


# --------------------------------------------------------------------------------------
# Groups made
# --------------------------------------------------------------------------------------


def make_group(
    cluster_ops: Sequence[Operation], group_class: type[FusionGroupOp | DifferentiableGraphOp] = FusionGroupOp
) -> FusionGroupOp | DifferentiableGraphOp:
    """Moves `cluster_ops` (block order) into a subgraph op of `group_class` (a
    FusionGroup unless told otherwise) placed at the last of them. Values from outside
    become inputs (constants are copied in), values used outside become results."""
    members = set(cluster_ops)
    last = cluster_ops[-1]
    inputs: dict[SSAValue, None] = {}
    constants: dict[SSAValue, None] = {}
    for op in cluster_ops:
        for value in op.operands:
            if isinstance(value.owner, Operation) and value.owner in members:
                continue
            (constants if _is_scalar_constant(value) else inputs)[value] = None
    outputs = [r for op in cluster_ops for r in op.results if any(u.operation not in members for u in r.uses)]
    body = Block(arg_types=[v.type for v in inputs])
    for arg, value in zip(body.args, inputs, strict=True):
        arg.name_hint = value.name_hint
    group = group_class(list(inputs), [r.type for r in outputs], Region(body))
    Rewriter.insert_op(group, InsertPoint.after(last))
    replacements = dict(zip(inputs, body.args, strict=True))
    for value in constants:
        copy = value.owner.clone()  # pyright: ignore[reportAttributeAccessIssue]
        body.add_op(copy)
        replacements[value] = copy.results[0]
    for op in cluster_ops:
        op.detach()
        body.add_op(op)
        for index, operand in enumerate(op.operands):
            if operand in replacements:
                op.operands[index] = replacements[operand]
    body.add_op(YieldOp(*outputs))
    for output, result in zip(outputs, group.outs, strict=True):
        result.name_hint = output.name_hint
        output.replace_uses_with_if(result, lambda use: use.operation.parent_op() is not group)
    return group


def _is_scalar_constant(value: SSAValue) -> bool:
    try:
        constant_python_value(value)
    except LookupError:
        return False
    return True


def fuse_graph(graph: FuncOp, min_ops: int, autograd: bool = False) -> int:
    """Fuses every block of `graph` (with `autograd`, only the blocks of
    DifferentiableGraphs: elsewhere such code computes on Variables); the number of
    groups made. Chunks move first (the alias analysis is redone after each, as it
    changes the graph); then every block is grouped against one analysis, and the
    groups are made at the end."""
    blocks = [b for op in graph.walk() if not _inside_group(op) for r in op.regions for b in r.blocks]
    if autograd:
        blocks = [b for b in blocks if _in_differentiable_graph(b)]
    db = AliasDb(graph)
    while any(push_chunk(block, db) for block in blocks):
        db = AliasDb(graph)
    clusters = [c for block in blocks for c in _Grouping(block, db).clusters()]
    made = 0
    for cluster in clusters:
        if cluster.elementwise < min_ops or not allow_rewrite():
            continue
        group = make_group(cluster.ops)
        log_update(f"fused {cluster.elementwise} elementwise ops", group)
        made += 1
    return made


def _in_differentiable_graph(block: Block) -> bool:
    current = block.parent_op()
    while current is not None:
        if isinstance(current, DifferentiableGraphOp):
            return True
        current = current.parent_op()
    return False


def _inside_group(op: Operation) -> bool:
    """Whether `op` is or sits in a FusionGroup (already fused: left alone)."""
    current: Operation | None = op
    while current is not None:
        if isinstance(current, FusionGroupOp):
            return True
        current = current.parent_op()
    return False


@dataclass(frozen=True)
class FusePointwisePass(TsjitPass):
    name: ClassVar[str] = "fuse-pointwise"

    min_ops: int = 2
    """Smallest group made, counting elementwise ops (chunks, cats and constants not)."""

    autograd: bool = False
    """Fuse inside DifferentiableGraphs only (code that records gradients)."""

    def run(self, ctx: Context, op: ModuleOp) -> None:
        for graph in self.graphs(op):
            fuse_graph(graph, self.min_ops, self.autograd)
