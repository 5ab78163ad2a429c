"""insert-guards: a profiled graph specialized to what it saw, behind a check of its
inputs, with the unoptimized graph as the fallback (PyTorch's `prim::TypeCheck` with
its `prim::FallbackGraph`).

    func.func @f(%x : !ts.tensor) -> !ts.tensor {          func.func @f(%x : !ts.tensor) -> !ts.tensor {
      %p = profile.profile[seen_types =                      %x.1, %ok = profile.type_check %x : (!ts.tensor) -> (!ts.tensor<f32, [2]...>)
             [!ts.tensor<f32, [2]...>]] %x ...      →        %r = prim.If %ok -> (!ts.tensor) {
      %y = aten.neg %p ...                                     %y = aten.neg %x.1 ...
      func.return %y ...                                       prim.Yield %y ...
    }                                                        } else {
                                                               %f = profile.bailout[index = 0] %x : (!ts.tensor) -> !ts.tensor
                                                               prim.Yield %f ...
                                                             }
                                                             func.return %r ...
                                                           }
                                                           func.func @f.fallback0(%x : !ts.tensor) -> !ts.tensor {
                                                             %y = aten.neg %x ...   (the graph as it was, unprofiled)

The type checked for an input is what its profiles saw, merged over its uses (a use
that never ran saw nothing). With `dynamic`, sizes and strides are left out: the check
is dtype, rank, device and requires_grad, and the graph serves every shape (PyTorch's
DYNAMIC fusion behaviour; STATIC checks exact sizes and strides). Everything after the
check may rely on the checked types: passes that refine types from the inputs
(shape-propagation, the peepholes) run on the specialized graph afterwards. The
fallback takes every input unrefined and returns what the graph returns; an executor
runs it through a profiling executor of its own (one bailout level deeper).

Profiles of values other than the inputs are removed: nothing outside a checked region
may rely on them. A graph whose inputs saw nothing more specific than their declared
types is left unguarded (its profiles removed).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Attribute, Block, BlockArgument, Region
from xdsl.rewriter import InsertPoint, Rewriter

from tsjit.dialects.prim import IfOp, YieldOp
from tsjit.dialects.profile import BailOutOp, ProfileOp, TypeCheckOp, fallback_name
from tsjit.dialects.types import TensorType, is_subtype_of
from tsjit.transforms.pass_logging import TsjitPass, allow_rewrite, log_update

# --------------------------------------------------------------------------------------
# Types from profiles
# --------------------------------------------------------------------------------------


def merge_types(a: TensorType, b: TensorType) -> TensorType:
    """What both types say (PyTorch's `TensorType::merge`): properties that differ
    become unknown."""
    if a == b:
        return a
    shape_a, shape_b = a.shape, b.shape
    sizes = None
    if shape_a is not None and shape_b is not None and len(shape_a) == len(shape_b):
        sizes = [x if x == y else None for x, y in zip(shape_a, shape_b)]
    strides = a.stride_values if a.stride_values == b.stride_values and sizes and None not in sizes else None
    return TensorType(
        a.element_type if a.element_type == b.element_type else None,
        sizes,
        a.device_name if a.device_name == b.device_name else None,
        a.grad if a.grad == b.grad else None,
        strides,
    )


def profiled_input_types(graph: func.FuncOp) -> dict[BlockArgument, TensorType]:
    """Per graph input, the merge of what the profiles of its uses saw. A profile is
    verified before it is read: one a pass edited into nonsense is a verifier error
    naming it."""
    seen: dict[BlockArgument, TensorType] = {}
    for op in graph.walk():
        if not isinstance(op, ProfileOp) or op.seen_types is None:
            continue
        op.verify()
        for value, t in zip(op.profiled, op.seen_types.data):
            if isinstance(value, BlockArgument) and value.block is graph.body.block and isinstance(t, TensorType):
                seen[value] = merge_types(seen[value], t) if value in seen else t
    return seen


def guard_type(declared: Attribute, seen: TensorType, dynamic: bool) -> TensorType | None:
    """The type to check an input of `declared` type against, given what it was seen
    to be; None when that says nothing more than `declared` (or contradicts it)."""
    if not isinstance(declared, TensorType):
        return None
    shape = seen.shape
    strides = seen.stride_values
    if dynamic:
        shape = None if shape is None else (None,) * len(shape)
        strides = None
    known = declared.shape
    if shape is None:
        shape = known
    elif known is not None and len(known) == len(shape):
        shape = tuple(s if s is not None else k for s, k in zip(shape, known))
    if strides is None and declared.stride_values is not None and shape is not None:
        strides = declared.stride_values if len(declared.stride_values) == len(shape) else None
    if shape is None or None in shape:
        strides = None
    checked = TensorType(
        seen.element_type or declared.element_type,
        None if shape is None else list(shape),
        seen.device_name or declared.device_name,
        seen.grad if seen.grad is not None else declared.grad,
        strides,
    )
    if checked == declared or not is_subtype_of(checked, declared):
        return None
    return checked


def strip_profiles(graph: func.FuncOp) -> int:
    """Removes the profiles of `graph` (each value used directly again)."""
    profiles = [op for op in graph.walk() if isinstance(op, ProfileOp)]
    for op in profiles:
        Rewriter.replace_op(op, [], list(op.profiled))
    return len(profiles)


# --------------------------------------------------------------------------------------
# The guarded graph
# --------------------------------------------------------------------------------------


def guard_graph(graph: func.FuncOp, dynamic: bool) -> bool:
    """Specializes `graph` to its inputs' profiled types behind a `profile.type_check`,
    with the unprofiled graph as fallback 0 (a function beside it); False when there is
    nothing to guard (its profiles are removed all the same)."""
    seen = profiled_input_types(graph)
    strip_profiles(graph)
    block = graph.body.block
    guarded: list[tuple[BlockArgument, TensorType]] = []
    for arg in block.args:
        if arg in seen and (checked := guard_type(arg.type, seen[arg], dynamic)) is not None:
            guarded.append((arg, checked))
    if not guarded or not allow_rewrite():
        return False
    module = graph.parent_op()
    taken = {op.sym_name.data for op in module.ops if isinstance(op, func.FuncOp)} if module else set()
    index = 0
    while fallback_name(graph.sym_name.data, index) in taken:
        index += 1
    fallback = graph.clone()
    fallback.sym_name = StringAttr(fallback_name(graph.sym_name.data, index))
    Rewriter.insert_op(fallback, InsertPoint.after(graph))

    check = TypeCheckOp([arg for arg, _ in guarded], [t for _, t in guarded])
    for (arg, _), refined in zip(guarded, check.refined):
        refined.name_hint = arg.name_hint
        arg.replace_uses_with_if(refined, lambda use: use.operation is not check)
    _wrap_body(graph, check, index)
    log_update(f"checks {len(guarded)} input(s), falls back to {fallback.sym_name.data}", check)
    return True


def _wrap_body(graph: func.FuncOp, check: TypeCheckOp, index: int) -> None:
    """`check; If matched {body} else {bailout index}` as the graph's body."""
    block = graph.body.block
    terminator = block.last_op
    assert isinstance(terminator, func.ReturnOp)
    outputs: Sequence[Attribute] = graph.function_type.outputs.data
    then_block = Block()
    for op in list(block.ops)[:-1]:
        op.detach()
        then_block.add_op(op)
    then_block.add_op(YieldOp(*terminator.operands))
    bailout = BailOutOp(index, list(block.args), outputs)
    else_block = Block([bailout, YieldOp(*bailout.outs)])
    guarded = IfOp(check.matched, outputs, Region(then_block), Region(else_block))
    for result, value in zip(guarded.outs, terminator.operands):
        result.name_hint = value.name_hint
    Rewriter.insert_op([check, guarded], InsertPoint.before(terminator))
    Rewriter.replace_op(terminator, func.ReturnOp(*guarded.outs))


@dataclass(frozen=True)
class InsertGuardsPass(TsjitPass):
    name: ClassVar[str] = "insert-guards"

    dynamic: bool = False
    """Check dtype, rank, device and requires_grad only, not sizes and strides."""

    function: str = ""
    """Only the graph of this name (all graphs when empty)."""

    def run(self, ctx: Context, op: ModuleOp) -> None:
        for graph in list(self.graphs(op)):
            if not self.function or graph.sym_name.data == self.function:
                guard_graph(graph, self.dynamic)
