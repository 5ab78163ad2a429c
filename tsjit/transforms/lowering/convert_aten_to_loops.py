"""convert-aten-to-loops: what runs natively, as loop nests over memrefs (`scf`, `arith`,
`math`, `memref`), ready for convert-to-llvm.

A `prim.FusionGroup` becomes a kernel: a `func.func` that takes the iteration sizes,
one memref per tensor it reads, its scalar inputs, and one memref per result it
writes, and runs one loop nest computing every result element by element with the
elementwise table (`elementwise_table`):

    func.func @forward.fusion0(%n0: index, %n1: index,
                               %x: memref<?x?xf32, strided<[?, 1]>>, %s: f64,
                               %y: memref<?x?xf32, strided<[?, 1]>>) {
      scf.for %i0 = %c0 to %n0 step %c1 {
        scf.for %i1 = %c0 to %n1 step %c1 {
          %v = memref.load %x[%i0, %i1] ...  ... arith/math ...  memref.store %r, %y[%i0, %i1]

Kernels are shape-generic: sizes and strides are run-time arguments. Every memref has
the iteration space's rank; broadcasting is a zero stride, and a result smaller than
the iteration space is written through zero strides too. A chunked input is read in
place, chunk k at `k·n_d` along its dimension, and a `cat` result written in place.
`KernelLayout` picks the variant: `flat` (one loop over all elements, every memref
contiguous and of the iteration shape: the common case, and what vectorizes best) or
the loop nest with each memref's innermost stride static (0 or 1: contiguous inner
loops, specialized) or dynamic, and optionally inputs chunked along their rows staged
(copied a row at a time to the stack, for large inputs). The innermost loop asks LLVM
to interleave vector iterations (`loop_hints`). `GroupSignature` tells the runtime how
to call it.

A function whose values are all TorchScript ints, floats and bools lowers whole: ints
are i64, floats f64, bools i1, `prim.If` becomes `scf.if` and `prim.Loop` `scf.while`.
What TorchScript would raise (integer division by zero, `int()` of NaN, `raise`) sets a
flag that stops every loop; the function returns it first, before its own results, so
that the caller can rerun the call in the interpreter for TorchScript's exception.

The pass turns a module into what LLVM compiles: each graph with a FusionGroup is
replaced by the kernels of its groups (the interpreter runs the graph itself), each
scalar function by its lowered form; `variant` picks the kernels' layout.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

from xdsl.builder import Builder
from xdsl.context import Context
from xdsl.dialects import arith, func, memref, scf
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ArrayAttr,
    DictionaryAttr,
    IndexType,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    StridedLayoutAttr,
    UnitAttr,
    i1,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from tsjit.diagnostics import SourceLocation, TsjitError
from tsjit.dialects.aten import OperatorOp
from tsjit.dialects.prim import (
    ConstantChunkOp,
    ConstantOp,
    FusionGroupOp,
    IfOp,
    ListConstructOp,
    ListUnpackOp,
    LoopOp,
    RaiseExceptionOp,
    TupleConstructOp,
    UncheckedCastOp,
    UninitializedOp,
    YieldOp,
)
from tsjit.dialects.types import BoolType, FloatType, IntType, TensorType
from tsjit.transforms.lowering.elementwise_table import (
    BOOL,
    I64,
    Element,
    Kind,
    Operand,
    ScalarEmitter,
    convert,
    emit_elementwise,
    kind_of,
    match_elementwise,
)
from tsjit.transforms.lowering.loop_hints import set_interleave
from tsjit.transforms.lowering.memref_ops import PrefetchOp
from tsjit.transforms.pass_logging import TsjitPass

INDEX = IndexType()

# --------------------------------------------------------------------------------------
# What a fused kernel takes
# --------------------------------------------------------------------------------------

Atom = tuple[str, int]
"""A source of shape: `("input", i)` a plainly read tensor input, `("chunk", j)` the
pieces of chunking j. A value's shape is the broadcast of its atoms' shapes."""


@dataclass(frozen=True)
class Chunking:
    """`prim.ConstantChunk` of group inputs (several: broadcast together first):
    `chunks` pieces along iteration dimension `dim`."""

    chunks: int
    dim: int
    inputs: tuple[int, ...]


@dataclass(frozen=True)
class TensorParam:
    """A memref the kernel reads: group input `input`, plainly or through a chunking."""

    input: int
    kind: Kind
    rank: int
    chunking: int | None = None


@dataclass(frozen=True)
class ScalarParam:
    input: int
    kind: Kind


@dataclass(frozen=True)
class OutputParam:
    """A memref the kernel writes: group result `result`, of `rank` dims whose shape
    is the broadcast of `atoms`; a `cat` result (`parts`, `dim`) spans `parts` times
    the iteration space along `dim`."""

    result: int
    kind: Kind
    rank: int
    atoms: frozenset[Atom]
    cat: tuple[int, int] | None = None
    part_atoms: tuple[frozenset[Atom], ...] = ()
    """A cat's parts, each of which must span the iteration space."""


@dataclass(frozen=True)
class GroupSignature:
    """A FusionGroup as a kernel sees it; the kernel's parameters are the iteration
    sizes (`rank` of them, one when flat), the `tensors`, the `scalars`, the `outputs`."""

    rank: int
    tensors: tuple[TensorParam, ...]
    scalars: tuple[ScalarParam, ...]
    chunkings: tuple[Chunking, ...]
    outputs: tuple[OutputParam, ...]

    @property
    def memrefs(self) -> int:
        return len(self.tensors) + len(self.outputs)


@dataclass(frozen=True)
class KernelLayout:
    """Which kernel variant: `flat`, or the loop nest with each memref's (tensors,
    then outputs) innermost stride static (0, 1) or dynamic (None); the tensors in
    `staged` (positions, each `stageable`) are copied a row at a time into a stack
    buffer, and the row is computed from there.

    Why staging: a row chunked along its innermost dimension is read as `chunks`
    interleaved runs (the LSTM tail: four 1 KB runs of each 4 KB row of the gate
    products), and on rows of a few KB the CPU's prefetchers stop at the end of each
    run; from memory this halves the bandwidth (chunks of a 64 MB array summed in place:
    16 ms; the same reads as one stream: 7.8 ms). The copy reads each row as part of one
    sequential stream. The caller bounds the buffers' size (they live on the stack)."""

    flat: bool
    inner_strides: tuple[int | None, ...] = ()
    staged: tuple[int, ...] = ()

    @staticmethod
    def strided(memrefs: int, inner: int | None = None) -> KernelLayout:
        return KernelLayout(False, (inner,) * memrefs)


def stageable(signature: GroupSignature, layout: KernelLayout) -> tuple[int, ...]:
    """The tensors a kernel in `layout` can stage: chunked along the innermost dimension
    of a loop nest, with a unit inner stride."""
    if layout.flat or signature.rank < 2:
        return ()
    return tuple(
        position
        for position, param in enumerate(signature.tensors)
        if param.chunking is not None
        and signature.chunkings[param.chunking].dim == signature.rank - 1
        and layout.inner_strides[position] == 1
    )


FLAT = KernelLayout(True)


class UnsupportedGroup(TsjitError):
    """A FusionGroup no kernel can compute (made by hand, or by another fuser)."""


def group_signature(group: FusionGroupOp) -> GroupSignature:
    """Reads a group's structure: which inputs are read how, what each result is."""
    return _SignatureReader(group).read()


@dataclass
class _SignatureReader:
    group: FusionGroupOp
    rank: int = 0
    atoms: dict[SSAValue, frozenset[Atom]] = field(default_factory=dict)
    tensors: list[TensorParam] = field(default_factory=list)
    chunkings: list[Chunking] = field(default_factory=list)

    def fail(self, message: str, op: Operation | None = None) -> UnsupportedGroup:
        return UnsupportedGroup(f"fusion group: {message}", SourceLocation.of_op(op or self.group))

    def read(self) -> GroupSignature:
        body = self.group.body.block
        tensor_results = [
            r.type.rank for op in body.ops for r in op.results if isinstance(r.type, TensorType)
        ]
        self.rank = max(tensor_results, default=0)  # pyright: ignore[reportArgumentType]
        scalars = []
        for position, arg in enumerate(body.args):
            kind = kind_of(arg.type)
            if kind is None or (isinstance(arg.type, TensorType) and arg.type.rank is None):
                raise self.fail(f"input {position} has type {arg.type}, which kernels cannot read")
            if not isinstance(arg.type, TensorType):
                scalars.append(ScalarParam(position, kind))
        outputs: dict[int, OutputParam] = {}
        for op in body.ops:
            self.visit(op, outputs)
        return GroupSignature(
            self.rank,
            tuple(self.tensors),
            tuple(scalars),
            tuple(self.chunkings),
            tuple(outputs[k] for k in sorted(outputs)),
        )

    def atoms_of(self, value: SSAValue) -> frozenset[Atom]:
        """The atoms of a value an op reads; a tensor input read as itself becomes a
        plain kernel parameter on its first read."""
        if value not in self.atoms and isinstance(value.owner, Block) and isinstance(value.type, TensorType):
            self.tensors.append(TensorParam(value.index, kind_of(value.type), value.type.rank))  # pyright: ignore[reportArgumentType, reportAttributeAccessIssue]
            self.atoms[value] = frozenset({("input", value.index)})  # pyright: ignore[reportAttributeAccessIssue]
        return self.atoms.get(value, frozenset())

    def visit(self, op: Operation, outputs: dict[int, OutputParam]) -> None:
        if isinstance(op, ConstantChunkOp):
            self.chunk(op)
        elif isinstance(op, YieldOp):
            for k, value in enumerate(op.operands):
                if k not in outputs:
                    outputs[k] = self.output(k, value, None)
        elif op.name == "aten.cat":
            self.cat(op, outputs)
        elif (
            isinstance(op, ListConstructOp | ListUnpackOp | ConstantOp) or op.name == "aten.broadcast_tensors"
        ):
            return  # parts of chunk and cat structures, and constants
        else:
            call = match_elementwise(op, _constant_value)
            if call is None:
                raise self.fail(f"'{op.name}' cannot run in a fused kernel", op)
            values = [op.operands[i] for i in call.operands]
            self.atoms[op.results[0]] = frozenset().union(*(self.atoms_of(v) for v in values))

    def chunk(self, op: ConstantChunkOp) -> None:
        inputs, _ = chunk_source(op)
        rank = op.input.type.rank  # pyright: ignore[reportAttributeAccessIssue]
        chunking = Chunking(
            op.chunks.value.data, op.dim.value.data % max(rank, 1) + (self.rank - rank), inputs
        )
        if chunking not in self.chunkings:
            self.chunkings.append(chunking)
            for position in inputs:
                arg = self.group.body.block.args[position]
                self.tensors.append(
                    TensorParam(position, kind_of(arg.type), arg.type.rank, len(self.chunkings) - 1)
                )  # pyright: ignore[reportArgumentType, reportAttributeAccessIssue]
        for out in op.outs:
            self.atoms[out] = frozenset({("chunk", self.chunkings.index(chunking))})

    def cat(self, op: Operation, outputs: dict[int, OutputParam]) -> None:
        from tsjit.transforms.fuse_pointwise import constant_dim

        elements = op.operands[0].owner
        yielded = [use.index for use in op.results[0].uses if isinstance(use.operation, YieldOp)]
        dim = constant_dim(op)
        if (
            not isinstance(elements, ListConstructOp)
            or dim is None
            or len(yielded) != len(list(op.results[0].uses))
        ):
            raise self.fail("a cat must join a list literal along a constant dim into group results", op)
        rank = op.results[0].type.rank  # pyright: ignore[reportAttributeAccessIssue]
        if rank != self.rank:
            raise self.fail("a cat must span the group's iteration space", op)
        parts = tuple(self.atoms_of(v) for v in elements.operands)
        kind = kind_of(op.results[0].type)
        assert kind is not None
        for k in yielded:
            outputs[k] = OutputParam(
                k, kind, rank, frozenset().union(*parts), (len(parts), dim % max(rank, 1)), parts
            )

    def output(self, k: int, value: SSAValue, cat: tuple[int, int] | None) -> OutputParam:
        kind = kind_of(value.type)
        if kind is None or not isinstance(value.type, TensorType):
            raise self.fail(f"result {k} has type {value.type}, which kernels cannot write")
        return OutputParam(k, kind, value.type.rank, self.atoms_of(value), cat)  # pyright: ignore[reportArgumentType]


def chunk_source(op: ConstantChunkOp) -> tuple[tuple[int, ...], int]:
    """The group inputs a chunk reads, broadcast together (one for a chunk of an input
    itself, all of `ListConstruct → broadcast_tensors → ListUnpack` otherwise), and
    which of them it chunks."""
    source = op.input
    if isinstance(source.owner, Block):
        return (source.index,), source.index  # pyright: ignore[reportAttributeAccessIssue]
    unpack = source.owner
    broadcast = unpack.list.owner if isinstance(unpack, ListUnpackOp) else None
    elements = broadcast.operands[0].owner if isinstance(broadcast, OperatorOp) else None
    if (
        broadcast is None
        or broadcast.name != "aten.broadcast_tensors"
        or not isinstance(elements, ListConstructOp)
        or any(not isinstance(v.owner, Block) for v in elements.operands)
    ):
        raise UnsupportedGroup(
            "fusion group: a chunk must read group inputs, alone or broadcast together",
            SourceLocation.of_op(op),
        )
    positions = tuple(v.index for v in elements.operands)  # pyright: ignore[reportAttributeAccessIssue]
    return positions, positions[source.index]  # pyright: ignore[reportAttributeAccessIssue]


# --------------------------------------------------------------------------------------
# Fused kernels
# --------------------------------------------------------------------------------------


def kernel_memref_type(kind: Kind, rank: int, layout: KernelLayout, position: int) -> MemRefType:
    if layout.flat:
        return MemRefType(kind.type, [DYNAMIC_INDEX])
    strides: list[int | None] = [None] * rank
    if rank:
        strides[-1] = layout.inner_strides[position]
    return MemRefType(kind.type, [DYNAMIC_INDEX] * rank, StridedLayoutAttr(strides, 0))


def fusion_kernel(group: FusionGroupOp, name: str, layout: KernelLayout) -> func.FuncOp:
    """The kernel computing `group` in `layout`, named `name`."""
    signature = group_signature(group)
    if signature.rank == 0 and not layout.flat:
        layout = FLAT
    return _KernelBuilder(group, signature, layout).build(name)


VECTOR_WIDTH = 8
"""The innermost loop runs over whole vectors of this many elements (float32 lanes of
AVX2), then once more over the last, partial vector with the lanes past the end masked
off: LLVM vectorizes both, so a short row (down to a 4-element tensor) is computed in
vector registers rather than by its scalar remainder loop (2.4x faster on 4 elements),
and long rows keep unmasked loads and stores (masked stores are slow on AMD)."""

INTERLEAVE = 4
"""Vector iterations LLVM is asked to interleave in the whole-vectors loop (`loop_hints`)."""

CACHE_LINE_BYTES = 64
"""The prefetch stride: one prefetch per cache line (64 bytes on x86-64 and most ARM cores)."""

NOALIAS = "llvm.noalias"
"""On every memref of a kernel: its results are arrays the runtime allocates for the
call, never views of its inputs, and inputs are only read. Without it LLVM checks at run
time whether a result starts within a vector's span after an input and if so runs
scalar code, which small arrays hit: numpy places a small result right after its input
(the 200-op chain on 4 elements ran scalar, 2x slower)."""


def _index(builder: Builder) -> ScalarEmitter:
    return ScalarEmitter(builder, Kind(INDEX))


def _loop(
    builder: Builder, start: SSAValue, end: SSAValue, step: SSAValue, name: str, interleave: int | None = None
) -> tuple[Builder, SSAValue]:
    """An `scf.for`: a builder into its body, and its index."""
    body = Block(arg_types=[INDEX])
    body.args[0].name_hint = name
    body.add_op(scf.YieldOp())
    loop = builder.insert(scf.ForOp(start, end, step, [], Region(body)))
    if interleave is not None:
        set_interleave(loop, interleave)
    return Builder(InsertPoint.before(body.last_op)), body.args[0]  # pyright: ignore[reportArgumentType]


class _KernelBuilder:
    def __init__(self, group: FusionGroupOp, signature: GroupSignature, layout: KernelLayout):
        self.group = group
        self.signature = signature
        self.layout = layout
        self.rank = 1 if layout.flat else signature.rank

    def build(self, name: str) -> func.FuncOp:
        sig, layout = self.signature, self.layout
        args = list(self.group.body.block.args)
        types: list[Attribute] = [INDEX] * self.rank
        types += [kernel_memref_type(t.kind, self.rank, layout, i) for i, t in enumerate(sig.tensors)]
        types += [s.kind.type for s in sig.scalars]
        types += [
            kernel_memref_type(o.kind, self.rank, layout, len(sig.tensors) + i)
            for i, o in enumerate(sig.outputs)
        ]
        entry = Block(arg_types=types)
        sizes = list(entry.args[: self.rank])
        tensor_args = entry.args[self.rank : self.rank + len(sig.tensors)]
        scalar_args = entry.args[
            self.rank + len(sig.tensors) : self.rank + len(sig.tensors) + len(sig.scalars)
        ]
        output_args = entry.args[self.rank + len(sig.tensors) + len(sig.scalars) :]
        for i, size in enumerate(sizes):
            size.name_hint = f"n{i}"
        for param, arg in zip(sig.tensors, tensor_args, strict=True):
            arg.name_hint = args[param.input].name_hint
        for param, arg in zip(sig.scalars, scalar_args, strict=True):
            arg.name_hint = args[param.input].name_hint
        for param, arg in zip(sig.outputs, output_args, strict=True):
            arg.name_hint = f"out{param.result}"

        builder = Builder(InsertPoint.at_end(entry))
        staging = self.staging_buffers(builder, sizes[-1], tensor_args)
        outer: list[SSAValue] = []
        for depth, size in enumerate(sizes[:-1]):
            index = _index(builder)
            builder, value = _loop(builder, index.zero(), size, index.one(), f"i{depth}")
            outer.append(value)
        for source, (buffer, length) in staging.items():
            index = _index(builder)
            copy, j = _loop(builder, index.zero(), length, index.one(), "j")
            element = copy.insert(memref.LoadOp.get(source, [*outer, j])).res
            copy.insert(memref.StoreOp.get(element, buffer, [j]))
        if staging:  # the next row is on its way while this one is computed
            self.prefetch_next_rows(builder, sizes, outer, staging)
        size, index = sizes[-1], _index(builder)
        whole_vectors = index.and_(size, -VECTOR_WIDTH)
        rounded_up = index.and_(index.add(size, VECTOR_WIDTH - 1), -VECTOR_WIDTH)
        loops = ((index.zero(), whole_vectors, False), (whole_vectors, rounded_up, True))
        for start, end, guarded in loops:
            interleave = None if guarded else INTERLEAVE
            body, value = _loop(builder, start, end, index.one(), f"i{len(sizes) - 1}", interleave)
            if guarded:  # the last vector: lanes past the end are masked off
                block = Block()
                block.add_op(scf.YieldOp())
                body.insert(scf.IfOp(_index(body).cmp("lt", value, size), [], Region(block)))
                body = Builder(InsertPoint.before(block.last_op))  # pyright: ignore[reportArgumentType]
            emitter = ScalarEmitter(body, I64, contract=True)
            rows = {source: buffer for source, (buffer, _) in staging.items()}
            indices = [*outer, value]
            _LoopBody(self, emitter, indices, sizes, tensor_args, scalar_args, output_args, rows).emit()
        entry.add_op(func.ReturnOp())
        noalias = DictionaryAttr({NOALIAS: UnitAttr()})
        arg_attrs = ArrayAttr([noalias if isinstance(t, MemRefType) else DictionaryAttr({}) for t in types])
        return func.FuncOp(name, (types, []), Region(entry), arg_attrs=arg_attrs)

    def prefetch_next_rows(
        self,
        builder: Builder,
        sizes: Sequence[SSAValue],
        outer: list[SSAValue],
        staging: dict[SSAValue, tuple[SSAValue, SSAValue]],
    ) -> None:
        """Prefetches, a cache line at a time, the next row of each staged input (the
        last row again at the end, so that every address is in the array): staging
        alone copies each row from memory before computing it, and the copy then waits
        for memory while the arithmetic units idle."""
        index = _index(builder)
        next_row = index.minimum(index.add(outer[-1], 1), index.sub(sizes[-2], 1))
        for source, (_, length) in staging.items():
            memref_type = source.type
            assert isinstance(memref_type, MemRefType)
            line = max(1, CACHE_LINE_BYTES * 8 // Kind(memref_type.element_type).width)
            fetch, j = _loop(builder, index.zero(), length, index.constant(line), "k")
            fetch.insert(PrefetchOp(source, [*outer[:-1], next_row, j]))

    def staging_buffers(
        self, builder: Builder, inner_size: SSAValue, tensor_args: Sequence[SSAValue]
    ) -> dict[SSAValue, tuple[SSAValue, SSAValue]]:
        """A stack buffer of one whole row (all its chunks) for each staged input, made
        in the entry block: source memref -> (buffer, row length)."""
        buffers: dict[SSAValue, tuple[SSAValue, SSAValue]] = {}
        if not set(self.layout.staged) <= set(stageable(self.signature, self.layout)):
            raise UnsupportedGroup(
                "fusion group: only inputs chunked along a contiguous innermost dimension are staged"
            )
        for position in self.layout.staged:
            param, arg = self.signature.tensors[position], tensor_args[position]
            chunks = self.signature.chunkings[param.chunking].chunks  # pyright: ignore[reportArgumentType]
            length = _index(builder).mul(inner_size, chunks)
            buffer = builder.insert(
                memref.AllocaOp.get(param.kind.type, shape=[DYNAMIC_INDEX], dynamic_sizes=[length])
            ).memref
            buffer.name_hint = f"{arg.name_hint}.row"
            buffers[arg] = (buffer, length)
        return buffers


class _LoopBody:
    """Emits the group's ops as scalar code in the innermost loop."""

    def __init__(
        self,
        kernel: _KernelBuilder,
        emitter: ScalarEmitter,
        indices: list[SSAValue],
        sizes: list[SSAValue],
        tensor_args: Sequence[SSAValue],
        scalar_args: Sequence[SSAValue],
        output_args: Sequence[SSAValue],
        staged: dict[SSAValue, SSAValue],
    ):
        self.kernel = kernel
        self.e = emitter
        self.indices = indices
        self.sizes = sizes
        sig = kernel.signature
        block = kernel.group.body.block
        self.values: dict[SSAValue, Operand] = {}
        self.pending: dict[SSAValue, tuple[SSAValue, Kind, int, int]] = {}
        """Loads not emitted yet: value -> (memref, kind, chunk piece, chunk dim)."""
        for param, arg in zip(sig.tensors, tensor_args, strict=True):
            if param.chunking is None:
                self.pending[block.args[param.input]] = (arg, param.kind, 0, 0)
        self.chunk_sources: dict[tuple[Chunking, int], SSAValue] = {
            (sig.chunkings[param.chunking], param.input): arg
            for param, arg in zip(sig.tensors, tensor_args, strict=True)
            if param.chunking is not None
        }
        """(chunking, group input) -> the memref presenting that input."""
        for param, arg in zip(sig.scalars, scalar_args, strict=True):
            self.values[block.args[param.input]] = Element(arg, param.kind)
        self.outputs = {o.result: (o, arg) for o, arg in zip(sig.outputs, output_args, strict=True)}
        self.offsets: dict[tuple[int, int], SSAValue] = {}
        self.staged = staged
        """Staged chunked inputs: source memref -> the buffer holding the current row."""

    def emit(self) -> None:
        for op in self.kernel.group.body.block.ops:
            self.op(op)

    def operand(self, value: SSAValue) -> Operand:
        if value in self.pending:
            source, kind, piece, dim = self.pending.pop(value)
            indices = self.offset_indices(piece, dim)
            if (buffer := self.staged.get(source)) is not None:  # the row's copy, by its last index
                loaded = self.e.emit(memref.LoadOp.get(buffer, indices[-1:]))
            else:
                loaded = self.e.emit(memref.LoadOp.get(source, indices))
            self.values[value] = Element(loaded, kind)
        return self.values[value]

    def offset_indices(self, piece: int, dim: int) -> list[SSAValue]:
        """The iteration indices, moved to piece `piece` along `dim` (chunk, cat)."""
        indices = list(self.indices)
        if piece:
            if (piece, dim) not in self.offsets:
                index = self.e.at(Kind(INDEX))
                step = self.sizes[dim] if piece == 1 else index.mul(self.sizes[dim], piece)
                self.offsets[(piece, dim)] = index.add(indices[dim], step)
            indices[dim] = self.offsets[(piece, dim)]
        return indices

    def op(self, op: Operation) -> None:
        if isinstance(op, ConstantOp):
            self.values[op.result] = op.python_value  # pyright: ignore[reportArgumentType]
        elif isinstance(op, ConstantChunkOp):
            self.chunk(op)
        elif isinstance(op, ListConstructOp | ListUnpackOp) or op.name in (
            "aten.broadcast_tensors",
            "aten.cat",
        ):
            return  # chunk and cat structures: their loads and stores are placed by chunk and yield
        elif isinstance(op, YieldOp):
            self.yield_(op)
        else:
            call = match_elementwise(op, _constant_value)
            if call is None:
                raise UnsupportedGroup(f"'{op.name}' cannot run in a fused kernel", SourceLocation.of_op(op))
            operands = [self.operand(op.operands[i]) for i in call.operands]
            self.values[op.results[0]] = Element(emit_elementwise(self.e, call, operands), call.result)

    def chunk(self, op: ConstantChunkOp) -> None:
        if self.kernel.layout.flat:
            raise UnsupportedGroup("fusion group: chunks need the loop-nest layout", SourceLocation.of_op(op))
        inputs, position = chunk_source(op)
        rank, signature = op.input.type.rank, self.kernel.signature  # pyright: ignore[reportAttributeAccessIssue]
        chunking = Chunking(
            op.chunks.value.data, op.dim.value.data % max(rank, 1) + (signature.rank - rank), inputs
        )
        source = self.chunk_sources[(chunking, position)]
        kind = kind_of(op.input.type)
        for piece, out in enumerate(op.outs):
            self.pending[out] = (source, kind, piece, chunking.dim)  # pyright: ignore[reportArgumentType]

    def yield_(self, op: YieldOp) -> None:
        for k, value in enumerate(op.operands):
            param, target = self.outputs[k]
            if param.cat is not None:
                _, dim = param.cat
                elements = value.owner.operands[0].owner  # pyright: ignore[reportAttributeAccessIssue]
                for piece, part in enumerate(elements.operands):  # pyright: ignore[reportAttributeAccessIssue]
                    self.store(part, param.kind, target, self.offset_indices(piece, dim))
            else:
                self.store(value, param.kind, target, list(self.indices))

    def store(self, value: SSAValue, kind: Kind, target: SSAValue, indices: list[SSAValue]) -> None:
        operand = self.operand(value)
        if isinstance(operand, Element):
            element = convert(self.e, operand.value, operand.kind, kind)
        else:
            element = self.e.constant(operand, kind)  # pyright: ignore[reportArgumentType]
        self.e.builder.insert(memref.StoreOp.get(element, target, indices))


def _constant_value(value: SSAValue) -> Any:
    from tsjit.transforms.fuse_pointwise import constant_python_value

    return constant_python_value(value)


# --------------------------------------------------------------------------------------
# Scalar functions
# --------------------------------------------------------------------------------------

_SCALAR_TYPES = (IntType, FloatType, BoolType)
_STRUCTURE = (ConstantOp, IfOp, LoopOp, YieldOp, RaiseExceptionOp, UninitializedOp, UncheckedCastOp)


def is_scalar_function(function: func.FuncOp) -> bool:
    """Whether `function` computes on TorchScript ints, floats and bools only (strings
    and None just for `raise`), with ops the lowering knows, and returns such values
    (several as a tuple)."""
    if function.is_declaration or not all(
        isinstance(t, _SCALAR_TYPES) for t in function.function_type.inputs
    ):
        return False
    for op in function.walk():
        if op is function:
            continue
        if isinstance(op, func.ReturnOp):
            continue
        if isinstance(op, TupleConstructOp):
            if not all(isinstance(u.operation, func.ReturnOp) for u in op.result.uses):
                return False
        elif isinstance(op, ConstantOp) and not isinstance(op.result.type, _SCALAR_TYPES):
            if not all(isinstance(u.operation, RaiseExceptionOp) for u in op.result.uses):
                return False
            continue
        elif not isinstance(op, _STRUCTURE) and match_elementwise(op, _constant_value) is None:
            return False
        values = [*op.results, *(a for r in op.regions for b in r.blocks for a in b.args)]
        if not all(isinstance(v.type, _SCALAR_TYPES) for v in values if not isinstance(op, TupleConstructOp)):
            return False
    return True


def scalar_function(function: func.FuncOp, name: str | None = None) -> func.FuncOp:
    """`function` lowered whole (see the module docstring): same parameters as i64,
    f64 and i1; results the raised flag, then the function's results."""
    if not is_scalar_function(function):
        raise TsjitError(
            f"@{function.sym_name.data} is not a function of ints, floats and bools only",
            SourceLocation.of_op(function),
        )
    return _ScalarLowering(function).build(name or function.sym_name.data)


class _ScalarLowering:
    def __init__(self, function: func.FuncOp):
        self.function = function
        self.values: dict[SSAValue, Operand] = {}

    def build(self, name: str) -> func.FuncOp:
        source = self.function.body.block
        kinds = [kind_of(t) for t in self.function.function_type.inputs]
        entry = Block(arg_types=[k.type for k in kinds])  # pyright: ignore[reportOptionalMemberAccess]
        for arg, new, kind in zip(source.args, entry.args, kinds, strict=True):
            new.name_hint = arg.name_hint
            self.values[arg] = Element(new, kind)  # pyright: ignore[reportArgumentType]
        builder = Builder(InsertPoint.at_end(entry))
        self.raised = builder.insert(memref.AllocaOp.get(i1, shape=[])).memref
        self.raised.name_hint = "raised"
        builder.insert(
            memref.StoreOp.get(builder.insert(arith.ConstantOp(IntegerAttr(0, i1))).result, self.raised, [])
        )
        results = self.block(source, builder)
        types = [r.type for r in results]
        return func.FuncOp(name, ([k.type for k in kinds], types), Region(entry))  # pyright: ignore[reportOptionalMemberAccess]

    def emitter(self, builder: Builder) -> ScalarEmitter:
        """A fresh emitter per block: constants made in one branch do not dominate the other."""
        return ScalarEmitter(builder, I64, on_failure=lambda condition: self.fail_if(builder, condition))

    def fail_if(self, builder: Builder, condition: SSAValue) -> None:
        before = builder.insert(memref.LoadOp.get(self.raised, [])).res
        builder.insert(
            memref.StoreOp.get(builder.insert(arith.OrIOp(before, condition)).result, self.raised, [])
        )

    def block(self, block: Block, builder: Builder) -> list[SSAValue]:
        """Emits `block`'s ops; returns what its terminator passes on (for `func.return`,
        the raised flag first)."""
        e = self.emitter(builder)
        for op in block.ops:
            if isinstance(op, YieldOp):
                return [self.materialize(e, v) for v in op.operands]
            if isinstance(op, func.ReturnOp):
                values = list(op.operands)
                if len(values) == 1 and isinstance(values[0].owner, TupleConstructOp):
                    values = list(values[0].owner.operands)
                returned = [builder.insert(memref.LoadOp.get(self.raised, [])).res]
                returned += [self.materialize(e, v) for v in values]
                builder.insert(func.ReturnOp(*returned))
                return returned
            self.op(op, e, builder)
        raise AssertionError("a block without terminator")

    def materialize(self, e: ScalarEmitter, value: SSAValue) -> SSAValue:
        operand = self.values[value]
        if isinstance(operand, Element):
            return operand.value
        return e.constant(operand, kind_of(value.type))  # pyright: ignore[reportArgumentType]

    def op(self, op: Operation, e: ScalarEmitter, builder: Builder) -> None:
        if isinstance(op, ConstantOp):
            self.values[op.result] = op.python_value  # pyright: ignore[reportArgumentType]
        elif isinstance(op, UninitializedOp):
            self.values[op.result] = 0
        elif isinstance(op, UncheckedCastOp | TupleConstructOp):
            if isinstance(op, UncheckedCastOp):
                self.values[op.result] = self.values[op.input]
        elif isinstance(op, RaiseExceptionOp):
            self.fail_if(builder, e.constant(True, BOOL))
        elif isinstance(op, IfOp):
            self.if_(op, e, builder)
        elif isinstance(op, LoopOp):
            self.loop(op, e, builder)
        else:
            call = match_elementwise(op, _constant_value)
            assert call is not None
            operands = [self.values[op.operands[i]] for i in call.operands]
            self.values[op.results[0]] = Element(emit_elementwise(e, call, operands), call.result)

    def if_(self, op: IfOp, e: ScalarEmitter, builder: Builder) -> None:
        kinds = [kind_of(r.type) for r in op.outs]
        regions = []
        for source in (op.then_region, op.else_region):
            block = Block()
            values = self.block(source.block, Builder(InsertPoint.at_end(block)))
            block.add_op(scf.YieldOp(*values))
            regions.append(Region(block))
        new = builder.insert(scf.IfOp(self.materialize(e, op.cond), [k.type for k in kinds], *regions))  # pyright: ignore[reportOptionalMemberAccess]
        for old, result, kind in zip(op.outs, new.results, kinds, strict=True):
            result.name_hint = old.name_hint
            self.values[old] = Element(result, kind)  # pyright: ignore[reportArgumentType]

    def loop(self, op: LoopOp, e: ScalarEmitter, builder: Builder) -> None:
        """`prim.Loop` → `scf.while` over (trip count, condition, carried values), which
        runs while `i < max_trip_count and condition and not raised`."""
        kinds = [I64, BOOL, *(kind_of(v.type) for v in op.carried)]
        types = [k.type for k in kinds]  # pyright: ignore[reportOptionalMemberAccess]
        initial = [
            e.constant(0),
            self.materialize(e, op.initial_condition),
            *(self.materialize(e, v) for v in op.carried),
        ]
        limit = self.materialize(e, op.max_trip_count)
        before = Block(arg_types=types)
        b = Builder(InsertPoint.at_end(before))
        check = self.emitter(b).at(BOOL)
        counted = self.emitter(b).cmp("lt", before.args[0], limit)
        raised = b.insert(memref.LoadOp.get(self.raised, [])).res
        go = check.and_(check.and_(counted, before.args[1]), check.not_(raised))
        b.insert(scf.ConditionOp(go, *before.args))
        after = Block(arg_types=types)
        body = op.body.block
        index, *carried = body.args
        after.args[0].name_hint = index.name_hint
        self.values[index] = Element(after.args[0], I64)
        for arg, new, kind in zip(carried, after.args[2:], kinds[2:], strict=True):
            new.name_hint = arg.name_hint
            self.values[arg] = Element(new, kind)  # pyright: ignore[reportArgumentType]
        a = Builder(InsertPoint.at_end(after))
        condition, *next_values = self.block(body, a)
        following = self.emitter(a).add(after.args[0], 1)
        a.insert(scf.YieldOp(following, condition, *next_values))
        loop = builder.insert(scf.WhileOp(initial, types, Region(before), Region(after)))
        for old, result, kind in zip(op.outs, loop.results[2:], kinds[2:], strict=True):
            result.name_hint = old.name_hint
            self.values[old] = Element(result, kind)  # pyright: ignore[reportArgumentType]


# --------------------------------------------------------------------------------------
# The pass
# --------------------------------------------------------------------------------------

VARIANTS = ("flat", "contiguous", "staged", "strided")


def kernel_layout(variant: str, signature: GroupSignature) -> KernelLayout:
    """`flat`, `contiguous` (every innermost stride 1), `staged` (contiguous, every
    stageable input staged), else `strided` (all dynamic)."""
    if variant == "flat":
        return FLAT
    if variant == "strided":
        return KernelLayout.strided(signature.memrefs)
    contiguous = KernelLayout.strided(signature.memrefs, 1)
    if variant == "staged":
        return replace(contiguous, staged=stageable(signature, contiguous))
    return contiguous


def fusion_kernel_name(graph: str, index: int) -> str:
    return f"{graph}.fusion{index}"


@dataclass(frozen=True)
class ConvertAtenToLoopsPass(TsjitPass):
    """Replaces each graph by its native code: the kernel of each FusionGroup in it
    (`@<graph>.fusion<k>`, group k in walk order), or itself lowered when it computes
    on numbers only. Graphs without either have no native code and go."""

    name: ClassVar[str] = "convert-aten-to-loops"

    variant: str = "strided"
    """The kernels' layout: flat, contiguous (innermost strides 1), staged or strided."""

    def run(self, ctx: Context, op: ModuleOp) -> None:
        if self.variant not in VARIANTS:
            raise TsjitError(
                f"convert-aten-to-loops: unknown variant '{self.variant}' (variants: {', '.join(VARIANTS)})"
            )
        for graph in list(self.graphs(op)):
            if is_scalar_function(graph):
                Rewriter.replace_op(graph, scalar_function(graph))
                continue
            groups = [g for g in graph.walk() if isinstance(g, FusionGroupOp)]
            kernels = []
            for index, group in enumerate(groups):
                signature = group_signature(group)
                layout = kernel_layout(self.variant, signature)
                if layout.flat and signature.chunkings:
                    raise UnsupportedGroup(
                        "fusion group: chunks need the contiguous or strided variant",
                        SourceLocation.of_op(group),
                    )
                kernels.append(fusion_kernel(group, fusion_kernel_name(graph.sym_name.data, index), layout))
            Rewriter.replace_op(graph, kernels, new_results=[])
