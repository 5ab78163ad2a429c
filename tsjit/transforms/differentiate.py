"""differentiate: each `prim.DifferentiableGraph` split into the forward graph, which also
returns what the backward needs, and the backward graph (PyTorch's `differentiate`, the
symbolic part of its autodiff).

Every op of the subgraph is replaced by the forward half of its gradient formula
(`tsjit/frontend/library/gradients.py`); then the backward is built in reverse: the
gradient of each result is the sum of what its uses sent back, each formula's backward
half turns its results' gradients into its arguments' gradients, and list literals,
unpacks and constant chunks route gradients between lists and their elements. Forward
values the backward reads become its arguments, captured from the subgraph's inputs or
yielded by the forward after its outputs (constants are copied instead). A result whose
gradient never arrives counts as zeros. Only inputs that may require grad get a
gradient.

    %y = prim.DifferentiableGraph(%a = %x : T) -> (T) {      %y = prim.DifferentiableGraph(%a = %x : T) -> (T) {
      %t = aten.tanh %a : (T) -> T                               %t = aten.tanh %a : (T) -> T
      prim.Yield %t : T                             →            prim.Yield %t, %t : T, T
    }                                                          } backward[grad_outputs = [0], grad_inputs = [0],
                                                                          captured_inputs = [], captured_outputs = [1]] {
                                                               ^bb0(%g : T, %s : T):
                                                                 %d = aten.tanh_backward %g, %s : (T, T) -> T
                                                                 prim.Yield %d : T
                                                               }

Then both graphs are optimized for their types (shape propagation, constant
propagation, the peepholes, CSE, DCE), `_grad_sum_to_size` to a size a gradient already
has disappears, a transposed product in the backward becomes the product of the
transposes (a row-major weight gradient), and captured values the optimized backward no
longer reads are dropped.
An op the table cannot differentiate is an error naming it and its source location.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute, Block, BlockArgument, Operation, Region, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint, Rewriter

from tsjit.diagnostics import SourceLocation, TsjitError
from tsjit.dialects.aten import OperatorOp, create_op, schema_of
from tsjit.dialects.prim import (
    ConstantChunkOp,
    ConstantOp,
    DifferentiableGraphOp,
    ListConstructOp,
    ListUnpackOp,
    YieldOp,
)
from tsjit.dialects.types import ListType, NoneType, TensorType
from tsjit.transforms.create_autodiff_subgraphs import may_require_grad
from tsjit.transforms.pass_logging import TsjitPass, allow_rewrite, log_update

# --------------------------------------------------------------------------------------
# The forward: ops replaced by their formulas' forward halves
# --------------------------------------------------------------------------------------


@dataclass
class _Step:
    """One op of the original subgraph, as the backward needs it: its operands and
    results (forward values) and, for a formula, the values its backward reads."""

    op_name: str
    operands: list[SSAValue]
    results: list[SSAValue]
    formula: object = None  # symbolic_gradients.Formula
    captured: list[SSAValue] | None = None
    chunk_dim: int = 0
    location: object = None


def _inline(body: Block, arguments: Sequence[SSAValue], point: InsertPoint, location: object) -> list[SSAValue]:
    """Clones `body` (a formula's graph) at `point` with its arguments bound; returns
    what its `func.return` returns. The clones carry `location`: the user's op."""
    mapping: dict[SSAValue, SSAValue] = dict(zip(body.args, arguments, strict=True))
    returned: list[SSAValue] = []
    for op in body.ops:
        if isinstance(op, func.ReturnOp):
            returned = [mapping.get(v, v) for v in op.operands]
            break
        clone = op.clone(value_mapper=mapping)
        for nested in clone.walk():
            nested.location = location  # pyright: ignore[reportAttributeAccessIssue]
        Rewriter.insert_op(clone, point)
    return returned


def _forward(block: Block) -> list[_Step]:
    """Rewrites the subgraph's ops into their formulas' forward halves."""
    from tsjit.frontend.symbolic_gradients import (
        formula_for,
        is_non_differentiable,
        not_differentiable_arguments,
        not_differentiable_message,
    )

    steps: list[_Step] = []
    for op in list(block.ops):
        if isinstance(op, (ConstantOp, YieldOp)):
            continue
        if isinstance(op, (ListConstructOp, ListUnpackOp, ConstantChunkOp)):
            dim = op.dim.value.data if isinstance(op, ConstantChunkOp) else 0
            steps.append(_Step(op.name, list(op.operands), list(op.results), chunk_dim=dim))
            continue
        schema = schema_of(op) if isinstance(op, OperatorOp) else None
        if schema is not None and is_non_differentiable(schema):
            continue
        formula = formula_for(schema) if schema is not None else None
        if formula is None:
            raise missing_formula(op)
        for position in not_differentiable_arguments(schema):  # pyright: ignore[reportArgumentType]
            operand = op.operands[position].type
            if isinstance(operand, TensorType) and operand.grad is True:  # PyTorch's error, as the call raises it
                from tsjit.runtime.errors import TorchScriptError

                raise TorchScriptError(not_differentiable_message(schema, position), location=SourceLocation.of_op(op))  # pyright: ignore[reportArgumentType]
        operands = list(op.operands)
        returned = _inline(formula.forward.body.block, operands, InsertPoint.before(op), op.location)  # pyright: ignore[reportAttributeAccessIssue]
        n_results = formula.n_results  # pyright: ignore[reportAttributeAccessIssue]
        results: list[SSAValue] = []
        for old, new in zip(op.results, returned[:n_results], strict=True):
            if old.type != new.type and not isinstance(new, BlockArgument) and _refines(old.type, new.type):
                refined = Rewriter.replace_value_with_new_type(new, old.type)
                returned = [refined if v is new else v for v in returned]
                new = refined
            new.name_hint = old.name_hint or new.name_hint
            old.replace_all_uses_with(new)
            results.append(new)
        for k in range(formula.n_grads, n_results):  # pyright: ignore[reportAttributeAccessIssue]
            # a result past the gradients `backward` takes is not differentiable (the
            # mean and rstd of native_layer_norm, as in PyTorch)
            value = results[k]
            if isinstance(value.type, TensorType) and value.type.grad is not False and not isinstance(value, BlockArgument):
                plain = Rewriter.replace_value_with_new_type(value, _recording_nothing(value.type))
                returned = [plain if v is value else v for v in returned]
                results[k] = plain
        Rewriter.erase_op(op)
        steps.append(_Step(op.name, operands, results, formula, returned[n_results:], location=op.location))  # pyright: ignore[reportAttributeAccessIssue]
    return steps


def _refines(refined: Attribute, general: Attribute) -> bool:
    from tsjit.dialects.types import is_subtype_of

    return is_subtype_of(refined, general)


def missing_formula(op: Operation) -> TsjitError:
    schema = schema_of(op)
    name = schema.name if schema is not None else op.name.replace(".", "::", 1)
    return TsjitError(f"cannot differentiate {name}: the gradient table has no formula for it",
                      SourceLocation.of_op(op))  # fmt: skip


# --------------------------------------------------------------------------------------
# The backward
# --------------------------------------------------------------------------------------


class _Backward:
    """Builds the backward block of one subgraph (see the module docstring)."""

    def __init__(self, graph: DifferentiableGraphOp):
        self.graph = graph
        self.forward = graph.body.block
        self.terminator = self.forward.last_op
        assert isinstance(self.terminator, YieldOp)
        self.block = Block()
        self.grads: dict[SSAValue, SSAValue] = {}
        self.captures: dict[SSAValue, BlockArgument] = {}
        self.constants: dict[SSAValue, SSAValue] = {}
        self.none: SSAValue | None = None
        self.grad_args: list[BlockArgument] = []

    # -- values of the backward ---------------------------------------------------------
    def insert(self, op: Operation) -> Operation:
        self.block.add_op(op)
        return op

    def none_value(self) -> SSAValue:
        if self.none is None:
            self.none = self.insert(ConstantOp.from_value(None)).results[0]
        return self.none

    def capture(self, value: SSAValue) -> SSAValue:
        """The backward's view of a forward value: a copy of a constant, else an argument."""
        owner = value.owner
        if isinstance(owner, ConstantOp):
            copy = self.constants.get(value)
            if copy is None:
                clone = owner.clone()
                self.insert(clone)
                copy = self.constants[value] = clone.results[0]
            return copy
        argument = self.captures.get(value)
        if argument is None:
            argument = self.block.insert_arg(_recording_nothing(value.type), len(self.block.args))
            argument.name_hint = value.name_hint
            self.captures[value] = argument
        return argument

    def zeros_like(self, value: SSAValue) -> SSAValue:
        none = self.none_value()
        return self.insert(create_op("aten.zeros_like", [self.capture(value), *[none] * 5], [value.type])).results[0]

    def accumulate(self, value: SSAValue, grad: SSAValue) -> None:
        if not may_require_grad(value.type) or isinstance(value.owner, ConstantOp):
            return
        present = self.grads.get(value)
        if present is None:
            self.grads[value] = grad
            return
        if isinstance(value.type, ListType):
            grad = self._add_lists(present, grad, value)
        else:
            one = self.insert(ConstantOp.from_value(1)).results[0]
            grad = self.insert(create_op("aten.add", [present, grad, one], [value.type])).results[0]
        self.grads[value] = grad

    def _add_lists(self, a: SSAValue, b: SSAValue, value: SSAValue) -> SSAValue:
        owner = value.owner
        if not isinstance(owner, ListConstructOp):
            raise TsjitError("cannot differentiate a list of tensors used twice here", SourceLocation.of_op(owner))
        types = [_recording_nothing(e.type) for e in owner.elements]
        left = self.insert(ListUnpackOp(a, types)).results
        right = self.insert(ListUnpackOp(b, types)).results
        one = self.insert(ConstantOp.from_value(1)).results[0]
        sums = [self.insert(create_op("aten.add", [x, y, one], [t])).results[0] for x, y, t in zip(left, right, types)]
        return self.insert(ListConstructOp(sums, value.type)).results[0]

    def result_grads(self, results: Sequence[SSAValue]) -> list[SSAValue] | None:
        """The gradients of `results` (zeros for those that got none); None when none did."""
        found = [self.grads.get(r) for r in results]
        if all(g is None for g in found):
            return None
        return [g if g is not None else self.zeros_like(r) for g, r in zip(found, results)]

    # -- building -----------------------------------------------------------------------
    def build(self, steps: list[_Step]) -> None:
        outputs = list(self.terminator.values)  # pyright: ignore[reportAttributeAccessIssue]
        grad_outputs = [
            k for k, v in enumerate(outputs)
            if isinstance(v.type, (TensorType, ListType)) and may_require_grad(v.type)
        ]  # fmt: skip
        for k in grad_outputs:
            argument = self.block.insert_arg(_recording_nothing(outputs[k].type), len(self.block.args))
            argument.name_hint = f"grad_{outputs[k].name_hint}" if outputs[k].name_hint else None
            self.grad_args.append(argument)
            self.accumulate(outputs[k], argument)
        for step in reversed(steps):
            self.step(step)
        inputs = list(self.forward.args)
        grad_inputs = [i for i, a in enumerate(inputs) if a in self.grads and may_require_grad(a.type)]
        self.insert(YieldOp(*[self.grads[inputs[i]] for i in grad_inputs]))
        self.finish(grad_outputs, grad_inputs)

    def step(self, step: _Step) -> None:
        if step.formula is not None:
            formula = step.formula
            grads = self.result_grads(step.results[: formula.n_grads])  # pyright: ignore[reportAttributeAccessIssue]
            if grads is None:
                return
            arguments = [*grads, *(self.capture(v) for v in step.captured or ())]
            returned = _inline(formula.backward.body.block, arguments, InsertPoint.at_end(self.block), step.location)  # pyright: ignore[reportAttributeAccessIssue]
            for operand, grad in zip(step.operands, returned, strict=True):
                if not isinstance(grad.type, NoneType):
                    self.accumulate(operand, grad)
        elif step.op_name == ListConstructOp.name:
            grad = self.grads.get(step.results[0])
            if grad is not None:
                unpacked = self.insert(ListUnpackOp(grad, [_recording_nothing(v.type) for v in step.operands])).results
                for element, element_grad in zip(step.operands, unpacked):
                    self.accumulate(element, element_grad)
        elif step.op_name == ListUnpackOp.name:
            grads = self.result_grads(step.results)
            if grads is not None:
                self.accumulate(step.operands[0], self.insert(ListConstructOp(grads, step.operands[0].type)).results[0])
        else:  # ConstantChunk: the chunks' gradients concatenated
            grads = self.result_grads(step.results)
            if grads is not None:
                parts = self.insert(ListConstructOp(grads, ListType(TensorType()))).results[0]
                dim = self.insert(ConstantOp.from_value(step.chunk_dim)).results[0]
                source = step.operands[0]
                self.accumulate(source, self.insert(create_op("aten.cat", [parts, dim], [source.type])).results[0])

    def finish(self, grad_outputs: list[int], grad_inputs: list[int]) -> None:
        """Orders the backward's arguments (output gradients, captured inputs, captured
        forward values), yields the captured forward values, and replaces the op."""
        graph = self.graph
        terminator = self.terminator
        inputs = list(self.forward.args)
        yielded = list(terminator.values)  # pyright: ignore[reportAttributeAccessIssue]
        captured_inputs: list[int] = []
        captured_outputs: list[int] = []
        order: list[BlockArgument] = list(self.grad_args)
        input_captures = [(v, a) for v, a in self.captures.items() if isinstance(v, BlockArgument) and v in inputs]
        other_captures = [(v, a) for v, a in self.captures.items() if (v, a) not in input_captures]
        for value, argument in input_captures:
            captured_inputs.append(inputs.index(value))
            order.append(argument)
        for value, argument in other_captures:
            if value not in yielded:
                yielded.append(value)
            captured_outputs.append(yielded.index(value))
            order.append(argument)
        Rewriter.replace_op(terminator, YieldOp(*yielded))
        backward = _reordered(self.block, order)
        body = Rewriter.move_region_contents_to_new_regions(graph.body)
        gradient = {
            "grad_outputs": grad_outputs,
            "grad_inputs": grad_inputs,
            "captured_inputs": captured_inputs,
            "captured_outputs": captured_outputs,
        }
        new = DifferentiableGraphOp(list(graph.inputs), graph.outs.types, body, Region(backward), gradient)
        new.attributes.update(graph.attributes)
        Rewriter.replace_op(graph, new)


def _recording_nothing(t: Attribute) -> Attribute:
    """A type as the backward sees it: its tensors require no grad (it records nothing)."""
    return t.with_(requires_grad=False) if isinstance(t, TensorType) else t


def _reordered(block: Block, order: Sequence[BlockArgument]) -> Block:
    """`block` with its arguments in `order` (every argument, once)."""
    result = Block(arg_types=[a.type for a in order])
    for old, new in zip(order, result.args):
        new.name_hint = old.name_hint
        old.replace_all_uses_with(new)
    for op in list(block.ops):
        op.detach()
        result.add_op(op)
    return result


def differentiate_graph(graph: DifferentiableGraphOp) -> None:
    """Splits one subgraph into its forward and backward (see the module docstring)."""
    steps = _forward(graph.body.block)
    _Backward(graph).build(steps)


# --------------------------------------------------------------------------------------
# Optimizing the pair
# --------------------------------------------------------------------------------------


class FoldGradSumToSize(RewritePattern):
    """`_grad_sum_to_size(x, size)` is `x` when `size` is None or the size `x` has."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: OperatorOp, rewriter: PatternRewriter, /) -> None:
        if op.name != "aten._grad_sum_to_size" or len(op.operands) != 2:
            return
        value, size = op.operands
        owner = size.owner
        if isinstance(owner, ConstantOp):
            wanted = owner.python_value
        elif isinstance(owner, OperatorOp) and owner.name == "aten.size" and len(owner.operands) == 1:
            source = owner.operands[0].type
            wanted = list(source.shape) if isinstance(source, TensorType) and source.shape is not None and None not in source.shape else -1
            if owner.operands[0] is value:
                wanted = None
        else:
            return
        shape = value.type.shape if isinstance(value.type, TensorType) else None
        if wanted is None or (isinstance(wanted, list) and shape is not None and list(shape) == wanted):
            rewriter.replace(op, [], [value])


class TransposeProductInBackward(RewritePattern):
    """In a backward graph, `t(mm(a, b))` → `mm(t(b), t(a))` when nothing else reads the
    product: the gradient of a transposed weight (`x.mm(w.t())`) then comes out in the
    weight's own row-major layout rather than as a transposed view, so accumulating it
    and updating the weight walk memory in order (BLAS takes the transposes for free;
    the peephole folds `t(t(x))`). PyTorch's `mm_mat2_backward` picks the layout the
    same way. Forward graphs keep their layouts: user code can observe them."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: OperatorOp, rewriter: PatternRewriter, /) -> None:
        if op.name != "aten.t" or not in_backward(op):
            return
        product = op.operands[0]
        mm = product.owner
        if not isinstance(mm, OperatorOp) or mm.name != "aten.mm" or not product.has_one_use():
            return
        a, b = mm.operands
        if not all(isinstance(v.type, TensorType) for v in (a, b)):
            return
        transposed = [create_op("aten.t", [v], [_transposed_type(v.type)], op.location) for v in (b, a)]
        swapped = create_op("aten.mm", [t.results[0] for t in transposed], [op.results[0].type], op.location)
        rewriter.replace(op, [*transposed, swapped])
        rewriter.erase(mm)


def in_backward(op: Operation) -> bool:
    """Whether `op` is in the backward graph of a DifferentiableGraph."""
    region = op.parent_region()
    while region is not None:
        owner = region.parent_op()
        if isinstance(owner, DifferentiableGraphOp):
            return region is owner.backward
        region = owner.parent_region() if owner is not None else None
    return False


def _transposed_type(t: TensorType) -> TensorType:
    """The type of `t(x)` for x of type `t`: its sizes reversed, strides unknown."""
    shape = t.shape
    return t.with_(sizes=None if shape is None else shape[::-1], strides=None)


def prune_captures(graph: DifferentiableGraphOp) -> bool:
    """Drops captured values the backward no longer reads, and forward values yielded
    only for them; True when something went."""
    assert graph.backward is not None
    backward = graph.backward.block
    n_grads = len(graph.indices("grad_outputs"))
    captured_inputs = list(graph.indices("captured_inputs"))
    captured_outputs = list(graph.indices("captured_outputs"))
    arguments = list(backward.args)
    unused = [i for i, a in enumerate(arguments) if i >= n_grads and not a.uses]
    if not unused:
        return _drop_unread_yields(graph, captured_outputs)
    for index in reversed(unused):
        backward.erase_arg(arguments[index])
        position = index - n_grads
        if position < len(captured_inputs):
            captured_inputs.pop(position)
        else:
            captured_outputs.pop(position - len(captured_inputs))
    _set(graph, "captured_inputs", captured_inputs)
    _set(graph, "captured_outputs", captured_outputs)
    _drop_unread_yields(graph, captured_outputs)
    return True


def _drop_unread_yields(graph: DifferentiableGraphOp, captured_outputs: list[int]) -> bool:
    """Yields past the outputs that no capture reads are removed (indices renumbered)."""
    terminator = graph.body.block.last_op
    assert isinstance(terminator, YieldOp)
    yielded = list(terminator.values)
    n = len(graph.outs)
    keep = list(range(n)) + sorted({i for i in captured_outputs if i >= n})
    if len(keep) == len(yielded):
        return False
    renumber = {old: new for new, old in enumerate(keep)}
    Rewriter.replace_op(terminator, YieldOp(*[yielded[i] for i in keep]))
    _set(graph, "captured_outputs", [renumber[i] for i in captured_outputs])
    return True


def _set(graph: DifferentiableGraphOp, name: str, values: Sequence[int]) -> None:
    from xdsl.dialects.builtin import DenseArrayBase, i64

    graph.properties[name] = DenseArrayBase.from_list(i64, list(values))


def fold_constant_captures(graph: DifferentiableGraphOp) -> bool:
    """A captured forward value that optimization made a constant is copied into the
    backward instead."""
    assert graph.backward is not None
    backward = graph.backward.block
    terminator = graph.body.block.last_op
    assert isinstance(terminator, YieldOp)
    n_grads = len(graph.indices("grad_outputs"))
    captured_inputs = graph.indices("captured_inputs")
    sources = [graph.body.block.args[i] for i in captured_inputs] + [
        terminator.values[i] for i in graph.indices("captured_outputs")
    ]
    changed = False
    for argument, source in zip(list(backward.args)[n_grads:], sources):
        owner = source.owner
        if isinstance(owner, ConstantOp) and argument.uses:
            clone = owner.clone()
            backward.insert_op_before(clone, backward.first_op) if backward.first_op else backward.add_op(clone)
            argument.replace_all_uses_with(clone.results[0])
            changed = True
    return changed


def refine_backward_types(graph: DifferentiableGraphOp) -> None:
    """The backward's arguments take the (refined) types of what they receive."""
    assert graph.backward is not None
    terminator = graph.body.block.last_op
    assert isinstance(terminator, YieldOp)
    sources = (
        [graph.outs[i] for i in graph.indices("grad_outputs")]
        + [graph.body.block.args[i] for i in graph.indices("captured_inputs")]
        + [terminator.values[i] for i in graph.indices("captured_outputs")]
    )
    for argument, source in zip(graph.backward.block.args, sources):
        wanted = _recording_nothing(source.type)
        if argument.type != wanted and _refines(wanted, argument.type):
            Rewriter.replace_value_with_new_type(argument, wanted)


CLEANUP: tuple[tuple[str, dict[str, object]], ...] = (
    ("shape-propagation", {}),
    ("constant-propagation", {}),
    ("loop-unrolling", {"constant_only": True}),  # a loop of unknown trip count was unrolled once already
    ("remove-mutation", {}),
    ("peephole", {}),
    ("common-subexpression-elimination", {}),
    ("dead-code-elimination", {}),
)
"""Passes (and options) that optimize the forward and backward graphs once they exist."""


def optimize_graphs(module: ModuleOp, ctx: Context, rounds: int = 6) -> None:
    """Optimizes the differentiated subgraphs of `module` until nothing changes (each
    round can refine types that let the next fold more)."""
    from tsjit.transforms import PASSES
    from tsjit.transforms.pass_logging import run_pass

    before = _fingerprint(module)
    for _ in range(rounds):
        for name, options in CLEANUP:
            run_pass(PASSES[name]()(**options), ctx, module)
        TsjitPass.rewrite(module, [FoldGradSumToSize(), TransposeProductInBackward()])
        for graph in [op for op in module.walk() if isinstance(op, DifferentiableGraphOp) and op.is_differentiated]:
            refine_backward_types(graph)
            fold_constant_captures(graph)
            prune_captures(graph)
        after = _fingerprint(module)
        if after == before:
            break
        before = after


def _fingerprint(module: ModuleOp) -> tuple[object, ...]:
    """What a round of optimization changes: the ops and the types of their results."""
    return tuple((op.name, *(r.type for r in op.results)) for op in module.walk())


@dataclass(frozen=True)
class DifferentiatePass(TsjitPass):
    name: ClassVar[str] = "differentiate"

    optimize: bool = True
    """Optimize the forward and backward graphs after the split."""

    def run(self, ctx: Context, op: ModuleOp) -> None:
        graphs = [g for g in op.walk() if isinstance(g, DifferentiableGraphOp) and not g.is_differentiated]
        for graph in graphs:
            if not allow_rewrite():
                break
            log_update("differentiating", graph)
            differentiate_graph(graph)
        if graphs and self.optimize:
            optimize_graphs(op, ctx)

