"""shape-propagation: tensor types refined through a graph from its specialized inputs
(PyTorch's `PropagateInputShapes`).

Given graph inputs with refined types (`!ts.tensor<f32, [2, 3]>`, as the executor's
ArgumentSpec specialization makes them), every op's tensor results get the dtype, sizes,
device and requires_grad its rule in `analysis/shape_rules.py` derives; ops without a
rule keep what they declare. Through control flow: an If's outputs are the unification
of what its branches yield; a Loop's carried values are iterated to a fixpoint (the
unification of the entry types with what each trip yields), so a type that changes from
trip to trip (a growing dim) becomes unknown there rather than wrong; a subgraph's
arguments are its inputs (a fork's result a future of what it yields, which `aten.wait`
gives back). Tuples carry their elements' refined types to their unpacks.

    func.func @f(%x : !ts.tensor<f32, [2, 3]>) ...          func.func @f(%x : !ts.tensor<f32, [2, 3]>) ...
      %y = aten.sum %x, %d, %k ... -> !ts.tensor      →       %y = aten.sum %x, %d, %k ... -> !ts.tensor<f32, [2]>

The analysis runs over each graph without touching it, then retypes the values it
refined, all at once (a Loop's result and body argument must agree). A refinement never
widens a type. Graph signatures are contracts with callers: a graph the module calls
keeps its declared types at its boundary (a `prim.unchecked_cast` back to the declared
type where a refined value is returned or passed to a call); a graph nothing calls gets
its refined result types in its signature.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import FunctionType, IntegerAttr, ModuleOp, NoneAttr
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint, Rewriter

from tsjit.dialects.aten import schema_of
from tsjit.dialects.prim import (
    ConstantChunkOp,
    ConstantOp,
    ForkOp,
    IfOp,
    LoopOp,
    SubgraphOp,
    TupleConstructOp,
    TupleIndexOp,
    TupleUnpackOp,
    UncheckedCastOp,
    YieldOp,
)
from tsjit.dialects.types import FutureType, TensorType, TupleType, is_subtype_of, unify
from tsjit.transforms.analysis.shape_rules import Operands, dtype_of, rule_for, tensor_type, wrap
from tsjit.transforms.pass_logging import TsjitPass, allow_rewrite, log_update

MAX_LOOP_ITERATIONS = 8
"""Trips of the loop fixpoint before a loop's carried values fall back to their
declared types (the lattice is shallow: each trip can only forget facts)."""


class ShapeAnalysis:
    """Refined types of one graph's values under its input types; reads the IR only."""

    def __init__(self) -> None:
        self.types: dict[SSAValue, Attribute] = {}

    def type_of(self, value: SSAValue) -> Attribute:
        return self.types.get(value, value.type)

    def refine(self, value: SSAValue, candidate: Attribute | None) -> None:
        """Records `candidate` for `value` if it refines the declared type, and forgets
        what an earlier visit (a previous loop trip) recorded otherwise."""
        if candidate is not None and candidate != value.type and is_subtype_of(candidate, value.type):
            self.types[value] = candidate
        else:
            self.types.pop(value, None)

    def block(self, block: Block) -> None:
        for op in block.ops:
            self.op(op)

    def op(self, op: Operation) -> None:
        match op:
            case IfOp():
                self.if_op(op)
            case LoopOp():
                self.loop(op)
            case TupleConstructOp():
                declared = op.result.type
                elements = [self.type_of(e) for e in op.elements]
                qualname = None if isinstance(declared.qualname, NoneAttr) else declared.qualname.data
                self.refine(op.result, TupleType(elements, [n.data for n in declared.names], qualname))  # pyright: ignore[reportArgumentType]
            case TupleUnpackOp():
                self.tuple_elements(op.outs, self.type_of(op.tuple), range(len(op.outs)))
            case TupleIndexOp():
                index = op.index.owner
                if isinstance(index, ConstantOp) and isinstance(index.value, IntegerAttr):
                    self.tuple_elements([op.result], self.type_of(op.tuple), [index.value.value.data])
            case ConstantChunkOp():
                self.constant_chunk(op)
            case UncheckedCastOp():
                self.refine(op.result, self.type_of(op.input))
            case SubgraphOp():
                self.subgraph(op)
            case _ if op.name == "aten.wait":
                future = self.type_of(op.operands[0])
                if isinstance(future, FutureType):
                    self.refine(op.results[0], future.element_type)
            case _:
                self.schema_op(op)
                for region in op.regions:
                    for block in region.blocks:
                        self.block(block)

    def if_op(self, op: IfOp) -> None:
        self.block(op.then_region.block)
        self.block(op.else_region.block)
        then_yield, else_yield = _yield(op.then_region.block), _yield(op.else_region.block)
        for result, a, b in zip(op.outs, then_yield.values, else_yield.values, strict=True):
            self.refine(result, unify(self.type_of(a), self.type_of(b)))

    def loop(self, op: LoopOp) -> None:
        body = op.body.block
        arguments = body.args[1:]
        current = [self.bounded(self.type_of(v), a.type) for v, a in zip(op.carried, arguments, strict=True)]
        for _ in range(MAX_LOOP_ITERATIONS):
            for argument, t in zip(arguments, current):
                self.refine(argument, t)
            self.block(body)
            yielded = [self.type_of(v) for v in _yield(body).values[1:]]
            following = [self.bounded(unify(c, y), a.type) for c, y, a in zip(current, yielded, arguments)]
            if following == current:
                break
            current = following
        else:
            current = [a.type for a in arguments]
            for argument in arguments:
                self.refine(argument, None)
            self.block(body)
        for result, t in zip(op.outs, current):
            self.refine(result, t)

    def subgraph(self, op: SubgraphOp) -> None:
        """A subgraph's arguments are its inputs; its results what its body yields (a
        fork's result, a future of it)."""
        body = op.body.block
        for argument, value in zip(body.args, op.inputs):
            self.refine(argument, self.type_of(value))
        self.block(body)
        yielded = [self.type_of(v) for v in _yield(body).values]
        if isinstance(op, ForkOp):
            yielded = [FutureType(yielded[0])]  # pyright: ignore[reportArgumentType]
        for result, t in zip(op.outs, yielded):
            self.refine(result, t)

    @staticmethod
    def bounded(candidate: Attribute | None, declared: Attribute) -> Attribute:
        return candidate if candidate is not None and is_subtype_of(candidate, declared) else declared

    def tuple_elements(self, results: Sequence[SSAValue], tuple_type: Attribute, positions: Sequence[int]) -> None:
        if not isinstance(tuple_type, TupleType):
            return
        elements = tuple_type.elements
        for result, position in zip(results, positions):
            if -len(elements) <= position < len(elements):
                self.refine(result, elements[position])

    def constant_chunk(self, op: ConstantChunkOp) -> None:
        """Chunks of `ceil(size / chunks)` along `dim`, the last one what remains."""
        source = self.type_of(op.input)
        if not isinstance(source, TensorType) or source.shape is None:
            return
        shape = source.shape
        dim = wrap(op.dim.value.data, len(shape))
        chunks = op.chunks.value.data
        size = shape[dim] if dim is not None and shape else None
        step = -(-size // chunks) if size else None
        if step is None or -(-size // step) != len(op.outs):  # pyright: ignore[reportOperatorIssue]
            step = None
        for i, result in enumerate(op.outs):
            length = None if step is None else min(step, size - i * step)  # pyright: ignore[reportOperatorIssue]
            sizes = None if dim is None else (*shape[:dim], length, *shape[dim + 1 :])
            self.refine(result, tensor_type(dtype_of(source), sizes, source.device_name, source.grad))

    def schema_op(self, op: Operation) -> None:
        schema = schema_of(op)
        rule = None if schema is None else rule_for(schema)
        if rule is None or schema is None:
            return
        results = rule(Operands(op, schema, self.type_of))
        for result, refined in zip(op.results, results):
            if isinstance(result.type, TensorType):
                self.refine(result, refined)


def _yield(block: Block) -> YieldOp:
    terminator = block.last_op
    assert isinstance(terminator, YieldOp)
    return terminator


def propagate_shapes(function: func.FuncOp, called: bool) -> int:
    """Refines the types in `function`; returns how many values changed type."""
    analysis = ShapeAnalysis()
    analysis.block(function.body.block)
    if not analysis.types or not allow_rewrite():
        return 0
    for value, refined in analysis.types.items():
        Rewriter.replace_value_with_new_type(value, refined)
    _keep_boundaries(function, called)
    log_update(f"refined {len(analysis.types)} value types", function)
    return len(analysis.types)


def _keep_boundaries(function: func.FuncOp, called: bool) -> None:
    """Calls see the callee's declared input types; returns keep the declared result
    types of a graph that is called, and refine the signature of one that is not."""
    for op in function.walk():
        if isinstance(op, func.CallOp):
            callee = op.callee.string_value()
            declared = _function_inputs(function, callee)
            if declared is not None:
                _cast_operands(op, declared)
    terminator = function.body.block.last_op
    assert isinstance(terminator, func.ReturnOp)
    if called:
        _cast_operands(terminator, function.function_type.outputs.data)
    else:
        function.function_type = FunctionType.from_lists(
            function.function_type.inputs.data, [v.type for v in terminator.arguments]
        )


def can_stand_in(value: SSAValue, replaced: SSAValue) -> bool:
    """Whether `value` can replace `replaced` as it is: of the same type, or of a
    narrower one where no user compares types exactly (calls and returns do)."""
    if value.type == replaced.type:
        return True
    return is_subtype_of(value.type, replaced.type) and not any(
        isinstance(use.operation, EXACT_TYPE_USERS) for use in replaced.uses
    )


def stand_in(value: SSAValue, replaced: SSAValue, rewriter: PatternRewriter) -> SSAValue:
    """`value`, ready to replace `replaced` (of a type `value`'s refines): cast back to
    the replaced type, at the rewriter's insertion point, where users need it exact."""
    if can_stand_in(value, replaced):
        return value
    return rewriter.insert(UncheckedCastOp(value, replaced.type)).result


EXACT_TYPE_USERS = (func.CallOp, func.ReturnOp)
"""Ops whose operand types must equal a signature's, not refine it."""


def _function_inputs(inside: func.FuncOp, name: str) -> Sequence[Attribute] | None:
    module = inside.parent_op()
    if not isinstance(module, ModuleOp):
        return None
    for op in module.ops:
        if isinstance(op, func.FuncOp) and op.sym_name.data == name:
            return op.function_type.inputs.data
    return None


def _cast_operands(op: Operation, declared: Sequence[Attribute]) -> None:
    for index, (value, want) in enumerate(zip(op.operands, declared)):
        if value.type != want:
            cast = UncheckedCastOp(value, want)
            Rewriter.insert_op(cast, InsertPoint.before(op))
            op.operands = (*op.operands[:index], cast.result, *op.operands[index + 1 :])


@dataclass(frozen=True)
class ShapePropagationPass(TsjitPass):
    """Refines tensor types (dtype, sizes, device, requires_grad) from graph inputs."""

    name = "shape-propagation"

    def run(self, ctx: Context, op: ModuleOp) -> None:
        called = {
            call.callee.string_value() for call in op.walk() if isinstance(call, func.CallOp)
        }
        for function in self.graphs(op):
            propagate_shapes(function, function.sym_name.data in called)
