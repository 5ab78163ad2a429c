"""Operators outside differentiable subgraphs, in code that records gradients.

A graph specialized for gradients (its executor's `autograd` mode) runs its
DifferentiableGraphs as `GraphFunction`s; every other operator that touches tensors
runs through `grad_callee`'s wrapper, PyTorch's autograd kernels (VariableType):

- the kernel computes on arrays (Variables unwrapped, lists of them too) and its tensor
  results come back as Variables, so that an in-place write can later give them a
  history (`w = zeros_like(x); w.copy_(z)` makes `w` require grad);
- when an input requires grad and grad mode is on, the operator runs as a
  `GraphFunction` of its own: its formula's forward and backward, made by
  `differentiate` on a one-op DifferentiableGraph, built once per overload and kind of
  arguments (`op_function`);
- an operator without a formula or a kernel that a library decomposition makes of others
  runs that decomposition recording gradients (PyTorch's composite operators);
- an in-place operator bumps the version counter of the tensor it writes and, when
  gradients flow, rebases that tensor's history (through its base for a view); on a leaf
  that requires grad it raises PyTorch's error;
- a view keeps its base (see `views`).

An operator with no formula whose inputs require grad runs, its floating results
leading to a node whose backward is an error naming it and its source location (PyTorch
raises for a missing derivative in the backward pass too); one whose results never
require grad (a comparison, `size`, `zeros_like`: see `NON_DIFFERENTIABLE`) just runs.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from xdsl.ir import Attribute, Operation

from tsjit.dialects.schema import FunctionSchema
from tsjit.dialects.types import ListType, NoneType, OptionalType, TensorType, TupleType
from tsjit.runtime.autograd.engine import Edge, Node, gradient_edge
from tsjit.runtime.autograd.graph_function import GraphFunction, GraphNode
from tsjit.runtime.autograd.grad_mode import is_grad_enabled
from tsjit.runtime.autograd.variable import Variable, new_variable, requires_grad
from tsjit.runtime.autograd.views import bump_version, check_inplace, mark_view, rebase_history
from tsjit.runtime.errors import TorchScriptError

ndarray = np.ndarray


def tensor_positions(schema: FunctionSchema) -> tuple[int, ...]:
    """The arguments that may hold tensors (Tensor, Tensor?, Tensor[], Tensor?[])."""
    return tuple(i for i, a in enumerate(schema.arguments) if _holds_tensor(a.type))


def _holds_tensor(t: Attribute) -> bool:
    if isinstance(t, TensorType):
        return True
    if isinstance(t, (ListType, OptionalType)):
        return _holds_tensor(t.element_type)
    if isinstance(t, TupleType):
        return any(_holds_tensor(e) for e in t.types)
    return False


def returns_tensor(schema: FunctionSchema) -> bool:
    return any(_holds_tensor(r.type) for r in schema.returns)


def unwrap(value: Any) -> Any:
    """Arrays for Variables, in lists and tuples too."""
    if isinstance(value, Variable):
        return value.array
    kind = type(value)
    if kind is list:
        return [unwrap(v) for v in value]
    if kind is tuple:
        return tuple(unwrap(v) for v in value)
    return value


def wrap(value: Any) -> Any:
    """Variables (that require no grad) for the arrays of a kernel's result."""
    kind = type(value)
    if kind is ndarray:
        return new_variable(value)
    if kind is list:
        return [wrap(v) for v in value]
    if kind is tuple:
        return tuple(wrap(v) for v in value)
    return value


def _wants_grad(value: Any) -> bool:
    if isinstance(value, Variable):
        return requires_grad(value)
    kind = type(value)
    if kind is list or kind is tuple:
        return any(_wants_grad(v) for v in value)
    return False


def grad_callee(op: Operation, schema: FunctionSchema, overload: str, kernel: Callable[..., Any]) -> Callable[..., Any]:
    """What grad-mode code calls for `op` (see the module docstring)."""
    special = SPECIAL_OPERATORS.get(overload)
    if special is not None:
        return special(kernel)
    positions = tensor_positions(schema)
    if not positions and not returns_tensor(schema):
        if schema.name in FORMATTING:
            return _formatting(kernel)
        return kernel
    from tsjit.frontend.symbolic_gradients import (
        has_formula,
        is_non_differentiable,
        not_differentiable_arguments,
        out_of_place,
    )

    written = schema.mutated_arguments()
    differentiable = has_formula(schema) and not is_non_differentiable(schema)
    views = tuple(bool(schema.aliased_arguments(k)) for k in range(len(schema.returns)))
    if not differentiable and not written and not any(views) and not is_non_differentiable(schema):
        composite = _composite(overload)
        if composite is not None:
            return composite
    if written:
        if schema.name in RESIZES:
            return _resize(kernel, positions)
        if differentiable and set(written) <= set(not_differentiable_arguments(schema)):
            # buffers updated on the side (batch norm's running statistics): a functional op otherwise
            return _side_writes(_functional(kernel, positions, schema, True, False, op), written)
        functional = out_of_place(schema)
        if written != (0,) or functional is None or functional is schema:
            return _out_variant(kernel, positions, schema)
        return _inplace(kernel, positions, functional, differentiable)
    return _functional(kernel, positions, schema, differentiable, any(views) and 0 in positions, op)


def _composite(overload: str) -> Callable[..., Any] | None:
    """An operator without a formula or a kernel, made of others by its library
    decomposition: the decomposition, recording gradients through what it is made of."""
    from tsjit.frontend.library_decompositions import decomposition_callable
    from tsjit.runtime import kernels

    if kernels.lookup(overload) is not None:
        return None
    return decomposition_callable(overload, autograd=True)


def _unwrapped(args: tuple[Any, ...], positions: Sequence[int]) -> tuple[list[Any], bool]:
    plain = list(args)
    wanted = False
    for i in positions:
        value = args[i]
        if isinstance(value, Variable):
            plain[i] = value.array
            wanted = wanted or requires_grad(value)
        elif type(value) is list and value:
            plain[i] = [v.array if isinstance(v, Variable) else v for v in value]
            wanted = wanted or any(requires_grad(v) for v in value if isinstance(v, Variable))
    return plain, wanted


def _functional(kernel: Callable[..., Any], positions: Sequence[int], schema: FunctionSchema,
                differentiable: bool, view: bool, op: Operation | None) -> Callable[..., Any]:  # fmt: skip
    def call(*args: Any) -> Any:
        plain, wanted = _unwrapped(args, positions)
        if wanted and is_grad_enabled():
            if not differentiable:
                result = _nondifferentiable(kernel, plain, schema, args, positions, op)
            else:
                result = op_function(schema, args)(*args)
            if view and isinstance(args[0], Variable):
                _replayable(result, args[0], kernel, plain)
            return result
        result = kernel(*plain)
        if view and isinstance(args[0], Variable):
            return _views_of(result, args[0], kernel, plain)
        return wrap(result)

    return call


def _nondifferentiable(kernel: Callable[..., Any], plain: list[Any], schema: FunctionSchema, args: tuple[Any, ...],
                       positions: Sequence[int], op: Operation | None) -> Any:  # fmt: skip
    """A kernel whose inputs require grad but that the table cannot differentiate. Its
    floating results require grad through a node that raises when a backward pass
    reaches it, as PyTorch's operators without a derivative do: the forward runs, and
    only a gradient through the operator is an error."""
    from tsjit.frontend.symbolic_gradients import is_non_differentiable, non_differentiable_outputs

    result = kernel(*plain)
    if is_non_differentiable(schema) or not _has_floating(result):
        return wrap(result)
    constant = non_differentiable_outputs(schema)
    edges: list[Edge | None] = []
    meta: list[tuple[tuple[int, ...], np.dtype] | None] = []
    for i in positions:
        for value in args[i] if type(args[i]) is list else (args[i],):
            if isinstance(value, Variable) and requires_grad(value):
                edges.append(gradient_edge(value))
                meta.append((value.array.shape, value.array.dtype))
    node = NoFormula(schema.name, op, edges, meta)
    if constant and type(result) is tuple:
        return tuple(wrap(v) if k in constant else _requiring(v, node) for k, v in enumerate(result))
    return _requiring(result, node)


def _requiring(value: Any, node: NoFormula) -> Any:
    """`value` as Variables, its floating tensors outputs of `node`."""
    kind = type(value)
    if kind is ndarray:
        variable = new_variable(value)
        if value.dtype.kind in "fc":
            variable.requires_grad = True
            variable.grad_fn = node
            variable.output_nr = node.outputs
            node.outputs += 1
        return variable
    if kind is list:
        return [_requiring(v, node) for v in value]
    if kind is tuple:
        return tuple(_requiring(v, node) for v in value)
    return value


class NoFormula(Node):
    """The backward of an operator the gradient table has no formula for: an error
    naming it and where it was called."""

    __slots__ = ("op", "operator", "outputs")

    def __init__(self, operator: str, op: Operation | None, next_edges: Sequence[Edge | None],
                 input_meta: Sequence[tuple[tuple[int, ...], np.dtype] | None]):  # fmt: skip
        super().__init__(next_edges, input_meta)
        self.operator = operator
        self.op = op
        self.outputs = 0

    def name(self) -> str:
        return f"NoFormula[{self.operator}]"

    @property
    def num_inputs(self) -> int:
        return self.outputs

    def apply(self, grads: list[np.ndarray | None]) -> Sequence[np.ndarray | None]:
        from tsjit.diagnostics import SourceLocation

        error = TorchScriptError(f"cannot differentiate {self.operator}: the gradient table has no formula for it")
        raise error.at(SourceLocation.stack_of_op(self.op) if self.op is not None else None)


def _has_floating(value: Any) -> bool:
    kind = type(value)
    if kind is ndarray:
        return value.dtype.kind in "fc"
    if kind is list or kind is tuple:
        return any(_has_floating(v) for v in value)
    return False


def _views_of(result: Any, source: Variable, kernel: Callable[..., Any], plain: list[Any]) -> Any:
    """Results of a view op as views of `source`: replaying `kernel` with the other
    arguments takes the same view of another array."""
    rest = plain[1:]
    if type(result) is ndarray:
        variable = new_variable(result)
        if np.may_share_memory(result, source.array):
            mark_view(variable, source, lambda array: kernel(array, *rest))
        return variable
    if type(result) in (list, tuple):
        out = []
        for index, element in enumerate(result):
            variable = new_variable(element)
            if np.may_share_memory(element, source.array):
                mark_view(variable, source, functools.partial(_element_of, kernel, rest, index))
            out.append(variable)
        return out if type(result) is list else tuple(out)
    return wrap(result)


def _element_of(kernel: Callable[..., Any], rest: list[Any], index: int, array: np.ndarray) -> np.ndarray:
    return kernel(array, *rest)[index]


def _replayable(result: Any, source: Variable, kernel: Callable[..., Any], plain: list[Any]) -> None:
    """Gives the recorded results of a view op that are views of `source` the replay
    of `kernel` as their view_fn (an in-place write through them rebases the base,
    even where the view op itself has no formula)."""
    rest = plain[1:]
    elements = result if type(result) in (list, tuple) else [result]
    for index, element in enumerate(elements):
        if isinstance(element, Variable) and np.may_share_memory(element.array, source.array):
            replay = (functools.partial(_element_of, kernel, rest, index) if type(result) in (list, tuple)
                      else (lambda array: kernel(array, *rest)))  # fmt: skip
            mark_view(element, source, replay)


def _inplace(kernel: Callable[..., Any], positions: Sequence[int], functional: FunctionSchema,
             differentiable: bool) -> Callable[..., Any]:  # fmt: skip
    def call(*args: Any) -> Any:
        target = args[0]
        plain, wanted = _unwrapped(args, positions)
        if not wanted or not is_grad_enabled():
            kernel(*plain)
            bump_version(target)
            return target if isinstance(target, Variable) else plain[0]
        if not isinstance(target, Variable):
            raise TorchScriptError(
                "tsjit cannot record an in-place write of a tensor that requires grad into this tensor: "
                "it was passed to the graph as an array, which carries no autograd history"
            )
        check_inplace(target)
        if not differentiable:
            raise TorchScriptError(f"cannot differentiate {functional.name}: the gradient table has no formula for it")
        function = op_function(functional, args)
        if 0 in {c.index for c in function.captures if c.kind == "input"}:
            plain[0] = plain[0].copy()  # the backward reads the tensor as it was before the write
        results = function.forward(*plain)
        if function.single_result:
            results = (results,)
        _assign(target.array, results[0])
        bump_version(target)
        node = _inplace_node(function, args, plain, results, target)
        rebase_history(target, node, 0 in function.grad_inputs)
        return target

    return call


def _side_writes(call: Callable[..., Any], written: Sequence[int]) -> Callable[..., Any]:
    """`call`, its in-place writes of the arguments `written` counted first: what its
    backward saves of them is what the op left there."""

    def counted(*args: Any) -> Any:
        for i in written:
            bump_version(args[i])
        return call(*args)

    return counted


RESIZES = frozenset({"aten::resize_", "aten::resize_as_"})


def _resize(kernel: Callable[..., Any], positions: Sequence[int]) -> Callable[..., Any]:
    """An in-place resize: PyTorch's error for a tensor that requires grad (in grad mode
    or not), else the kernel on the tensor's own array."""

    def call(*args: Any) -> Any:
        target = args[0]
        if isinstance(target, Variable) and requires_grad(target):
            raise TorchScriptError("cannot resize variables that require grad")
        plain, _ = _unwrapped(args, positions)
        kernel(*plain)
        bump_version(target)
        return target if isinstance(target, Variable) else plain[0]

    return call


def _assign(out: np.ndarray, value: np.ndarray) -> None:
    from tsjit.runtime.kernels.common import assign
    from tsjit.runtime.kernels.promotion import check_cast

    check_cast(np.asarray(value).dtype, out.dtype)
    assign(out, value)


def _inplace_node(function: GraphFunction, args: tuple[Any, ...], plain: list[Any], results: Sequence[Any],
                  target: Variable) -> GraphNode:  # fmt: skip
    """The node of an in-place write: the functional op's, its output the target."""
    from tsjit.runtime.autograd.engine import gradient_edge

    edges = []
    meta = []
    layout = []
    for i in function.grad_inputs:
        value = args[i]
        layout.append(-1)
        edges.append(gradient_edge(value) if requires_grad(value) else None)
        array = value.array if isinstance(value, Variable) else value
        meta.append((array.shape, array.dtype) if type(array) is ndarray else None)
    node = GraphNode(function, edges, meta, layout)
    node.output_meta = [(target.array.shape, target.array.dtype)]
    node.output_layout = (-1,)
    outputs = [target, *results[1 : function.n_outputs]]
    node.save(function, args, plain, results, outputs)
    return node


def _out_variant(kernel: Callable[..., Any], positions: Sequence[int], schema: FunctionSchema) -> Callable[..., Any]:
    """An `out=` overload (or one writing several arguments): no gradient through it."""

    def call(*args: Any) -> Any:
        plain, wanted = _unwrapped(args, positions)
        if wanted and is_grad_enabled():
            raise TorchScriptError(
                f"{schema.name}(): functions with out=... arguments don't support automatic differentiation, "
                "but one of the arguments requires grad."
            )
        result = kernel(*plain)
        for i in schema.mutated_arguments():
            bump_version(args[i])
        return wrap(result)

    return call


def _formatting(kernel: Callable[..., Any]) -> Callable[..., Any]:
    def call(*args: Any) -> Any:
        return kernel(*[unwrap(a) for a in args])

    return call


FORMATTING = frozenset({"aten::str", "aten::format", "aten::__repr__", "aten::list"})
"""Operators of any value that look into tensors (printing them)."""


# --------------------------------------------------------------------------------------
# Autograd's own operators
# --------------------------------------------------------------------------------------


def _requires_grad(kernel: Callable[..., Any]) -> Callable[..., Any]:
    def call(tensor: Any) -> bool:
        return requires_grad(tensor)

    return call


def _detach(kernel: Callable[..., Any]) -> Callable[..., Any]:
    def call(tensor: Any) -> Any:
        if isinstance(tensor, Variable):
            return tensor.detach()
        return new_variable(tensor)

    return call


def _requires_grad_(kernel: Callable[..., Any]) -> Callable[..., Any]:
    def call(tensor: Any, flag: bool = True) -> Any:
        variable = tensor if isinstance(tensor, Variable) else new_variable(tensor)
        variable.requires_grad_(flag)
        return variable

    return call


def _autograd_grad(kernel: Callable[..., Any]) -> Callable[..., Any]:
    """`torch.autograd.grad` in scripted code."""

    def call(outputs: list[Any], inputs: list[Any], grad_outputs: list[Any] | None = None,
             retain_graph: bool | None = None, create_graph: bool = False, allow_unused: bool = False) -> list[Any]:  # fmt: skip
        from tsjit.runtime.autograd.engine import grad

        results = grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused)
        return [None if r is None else new_variable(r) for r in results]

    return call


def _autograd_backward(kernel: Callable[..., Any]) -> Callable[..., Any]:
    """`tensor.backward()` (and `torch.autograd.backward(tensors)`) in scripted code."""

    def call(tensors: Any, gradients: Any = None, retain_graph: bool | None = None, create_graph: bool = False) -> None:
        from tsjit.runtime.autograd.engine import backward

        if type(tensors) is not list:
            tensors, gradients = [tensors], None if gradients is None else [gradients]
        backward(tensors, gradients, retain_graph, create_graph)

    return call


def _prim_grad(kernel: Callable[..., Any]) -> Callable[..., Any]:
    def call(tensor: Any) -> Any:
        return tensor.grad if isinstance(tensor, Variable) else None

    return call


SPECIAL_OPERATORS: dict[str, Callable[[Callable[..., Any]], Callable[..., Any]]] = {
    "prim::requires_grad": _requires_grad,
    "aten::detach": _detach,
    "aten::requires_grad_": _requires_grad_,
    "aten::grad": _autograd_grad,
    "aten::backward": _autograd_backward,
    "aten::backward.TensorList": _autograd_backward,
    "prim::grad": _prim_grad,
}
"""Overloads whose grad-mode callee is autograd itself rather than a wrapped kernel."""


# --------------------------------------------------------------------------------------
# One operator differentiated
# --------------------------------------------------------------------------------------


def op_function(schema: FunctionSchema, args: Sequence[Any]) -> GraphFunction:
    """The GraphFunction of one call of `schema` with arguments like `args`."""
    kinds = tuple(_kind(a, arg.type) for a, arg in zip(args, schema.arguments))
    for position in _not_differentiable(schema):
        if kinds[position] == ("tensor", True):
            from tsjit.frontend.symbolic_gradients import not_differentiable_message

            raise TorchScriptError(not_differentiable_message(schema, position))
    return _op_function(schema, kinds)


@functools.cache
def _not_differentiable(schema: FunctionSchema) -> tuple[int, ...]:
    from tsjit.frontend.symbolic_gradients import not_differentiable_arguments

    return not_differentiable_arguments(schema)


def _kind(value: Any, declared: Attribute) -> Any:
    """What the one-op graph's input type depends on: None, a tensor that requires
    grad or not, a list of tensors (requiring grad or not), anything else by its
    schema type."""
    if not _holds_tensor(declared):
        return "schema"
    if value is None:
        return "none"
    if type(value) is list:
        return ("list", _wants_grad(value))
    return ("tensor", requires_grad(value))


@functools.cache
def _op_function(schema: FunctionSchema, kinds: tuple[Any, ...]) -> GraphFunction:
    from xdsl.dialects import func
    from xdsl.dialects.builtin import ModuleOp
    from xdsl.ir import Block, Region

    from tsjit.context import make_context
    from tsjit.dialects.aten import create_op
    from tsjit.dialects.prim import DifferentiableGraphOp, YieldOp
    from tsjit.runtime.interpreter import Program
    from tsjit.transforms.differentiate import differentiate_graph, optimize_graphs

    types = [_input_type(kind, argument.type) for kind, argument in zip(kinds, schema.arguments)]
    result_types = [r.type for r in schema.returns]
    outer = Block(arg_types=types)
    body = Block(arg_types=types)
    op_name = schema.name.replace("::", ".", 1)
    op = create_op(op_name, list(body.args), result_types)
    body.add_op(op)
    body.add_op(YieldOp(*op.results))
    graph = DifferentiableGraphOp(list(outer.args), result_types, Region(body))
    outer.add_op(graph)
    outer.add_op(func.ReturnOp(*graph.results))
    function = func.FuncOp("op", (types, result_types), Region(outer))
    module = ModuleOp([function])
    differentiate_graph(graph)
    optimize_graphs(module, make_context())
    differentiated = next(o for o in module.walk() if isinstance(o, DifferentiableGraphOp))
    program = Program(module)
    return graph_function(differentiated, program, name=_node_name(schema))


def _input_type(kind: Any, declared: Attribute) -> Attribute:
    if kind == "schema":
        return declared
    if kind == "none":
        return NoneType()
    if kind[0] == "list":
        return ListType(TensorType(requires_grad=None if kind[1] else False))
    return TensorType(requires_grad=None if kind[1] else False)


def _node_name(schema: FunctionSchema) -> str:
    """PyTorch's name of an operator's autograd node: `MulBackward0`."""
    base = schema.name.partition("::")[2].strip("_")
    return "".join(part.title() for part in base.split("_")) + "Backward0"


def graph_function(op: Operation, program: Any, name: str = "DifferentiableGraphBackward") -> GraphFunction:
    """The GraphFunction of a differentiated DifferentiableGraph op of `program`."""
    from tsjit.runtime.autograd.differentiable_graph import graph_function_of

    return graph_function_of(op, program, name)
