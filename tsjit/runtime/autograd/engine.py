"""The backward pass: nodes of the autograd graph and the engine that runs them.

Recording a differentiable computation builds a graph of `Node`s (PyTorch's autograd
Functions): each node takes the gradients of its forward outputs (its inputs here) and
returns the gradients of its forward inputs, each sent along an edge `(node, input_nr)`
to the node that produced that input, or to the `AccumulateGrad` node of a leaf. The
engine runs a graph from its roots the way PyTorch's does: it counts each node's
dependencies, sums the gradients arriving at a node's inputs, and applies a node once
all have arrived (the most recently created first among those ready). Gradients are
checked against the shape and dtype of the forward input they belong to (summed to
its size when broadcasting made them larger, cast to its dtype).

    backward([loss])                           # accumulates into the leaves' .grad
    dx, dw = grad([loss], [x, w])              # returns them instead
"""

from __future__ import annotations

import heapq
import itertools
import sys
import weakref
from collections.abc import Sequence
from typing import Any

import numpy as np

from tsjit.runtime.autograd.grad_mode import no_grad
from tsjit.runtime.autograd.variable import Variable, new_variable, requires_grad, version_counter
from tsjit.runtime.errors import TorchScriptError

Edge = tuple["Node", int]
"""Where a gradient goes: a node and which of its gradient inputs."""

_sequence = itertools.count()


class Node:
    """A step of the backward pass (see the module docstring). `next_edges[i]` (or None:
    no gradient is wanted there) receives the i-th gradient `apply` returns, checked
    against `input_meta[i]`, the (shape, dtype) of that forward input."""

    __slots__ = ("__weakref__", "_retained", "input_meta", "next_edges", "sequence_nr")

    def __init__(self, next_edges: Sequence[Edge | None], input_meta: Sequence[tuple[tuple[int, ...], np.dtype] | None]):
        self.next_edges = tuple(next_edges)
        self.input_meta = tuple(input_meta)
        self.sequence_nr = next(_sequence)
        self._retained: dict[int, Any] | None = None

    def name(self) -> str:
        return type(self).__name__

    @property
    def num_inputs(self) -> int:
        """How many gradients the node takes (its forward outputs that have one)."""
        return 1

    def apply(self, grads: list[np.ndarray | None]) -> Sequence[np.ndarray | None]:
        raise NotImplementedError

    def release(self) -> None:
        """Frees what the node saved for its backward (after a backward that does not
        retain the graph)."""

    # PyTorch's Node API as user code reads it
    @property
    def next_functions(self) -> tuple[tuple[Node | None, int], ...]:
        return tuple((None, 0) if e is None else e for e in self.next_edges)

    def __repr__(self) -> str:
        return f"<{self.name()} object>"


class AccumulateGrad(Node):
    """The node of a leaf: adds the gradient into its `.grad`."""

    __slots__ = ("variable",)

    def __init__(self, variable: Variable):
        super().__init__((), ())
        self.variable = variable

    def apply(self, grads: list[np.ndarray | None]) -> Sequence[np.ndarray | None]:
        (grad,) = grads
        if grad is None:
            return ()
        grads[0] = None  # the engine's buffer lets go: `grad` may be stolen
        variable = self.variable
        grad = _as_input(grad, variable.array.shape, variable.array.dtype, self, 0)
        accumulate_grad(variable, grad, _STOLEN_REFERENCES)
        return ()


_STOLEN_REFERENCES = 3
"""References to an unshared gradient in `accumulate_grad` called from AccumulateGrad:
its local, the parameter and getrefcount's argument."""


def accumulate_grad(variable: Variable, grad: np.ndarray, references: int = 0) -> None:
    """`variable.grad += grad`, in place when a gradient is there already (as PyTorch
    does, so that `.grad` keeps its identity), else `grad` itself when nothing else
    can see it (an array owning its data with no more than `references` references,
    PyTorch's stealing of an unshared gradient) and it has the variable's layout, else
    a copy of it in that layout (PyTorch's gradient layout contract: `.grad` has the
    strides of its variable, so that an optimizer's update walks both alike)."""
    existing = variable.grad
    if existing is None:
        keep = _same_layout(grad, variable.array) and _unshared(grad, references)
        variable.grad = new_variable(grad if keep else _copy_in_layout(grad, variable.array), variable.grad_class())
    else:
        target = existing.array
        if target.shape == grad.shape and target.flags.writeable:
            np.add(target, grad, out=target, casting="unsafe")
        else:
            existing.array = np.asarray(target + grad, dtype=target.dtype)


def _same_layout(grad: np.ndarray, like: np.ndarray) -> bool:
    """Whether `grad` obeys the layout contract for a variable holding `like`: the same
    strides where `like` is dense (no gaps, no overlap), else C-contiguous."""
    if not _dense(like):
        return grad.flags.c_contiguous
    return all(a == b for a, b, n in zip(grad.strides, like.strides, like.shape) if n > 1)


def _dense(array: np.ndarray) -> bool:
    """Whether `array` covers its memory exactly once (contiguous in some order of its
    dimensions)."""
    if array.flags.c_contiguous or array.flags.f_contiguous:
        return True
    dims = sorted((abs(s), n) for s, n in zip(array.strides, array.shape) if n != 1)
    expected = array.itemsize
    for stride, size in dims:
        if stride != expected:
            return False
        expected *= size
    return True


def _copy_in_layout(grad: np.ndarray, like: np.ndarray) -> np.ndarray:
    """A copy of `grad` laid out as the layout contract wants for `like`."""
    if not _dense(like):
        return np.array(grad, order="C", copy=True)
    copy = np.empty_like(like, dtype=grad.dtype)  # order "K": `like`'s own strides
    np.copyto(copy, grad)
    return copy


def _unshared(grad: np.ndarray, references: int) -> bool:
    """Whether nothing but the caller sees `grad` or its memory: an array owning its data
    with no more than `references` references (counting getrefcount's argument), or
    such an array's only view (a transposed matrix product)."""
    if not grad.flags.writeable or sys.getrefcount(grad) > references + 1:  # + this frame's
        return False
    base = grad.base
    # the base's references: the view's and getrefcount's argument (`base` is one more)
    return base is None or (isinstance(base, np.ndarray) and base.base is None and sys.getrefcount(base) <= 3)


class GraphRoot(Node):
    """The engine's starting node: hands the root gradients to the roots' edges."""

    __slots__ = ("grads",)

    def __init__(self, edges: Sequence[Edge], grads: Sequence[np.ndarray]):
        super().__init__(edges, [None] * len(edges))
        self.grads = list(grads)

    def apply(self, grads: list[np.ndarray | None]) -> Sequence[np.ndarray | None]:
        return self.grads


def gradient_edge(variable: Variable) -> Edge | None:
    """Where the gradient of `variable` goes: its grad_fn, its leaf accumulator, or
    nowhere. A view whose base was written in place since its grad_fn was made gets a
    grad_fn through the base (PyTorch regenerates it the same way)."""
    base = variable._base
    if base is not None and variable._view_version != version_counter(variable)[0] and requires_grad(base):
        from tsjit.runtime.autograd.views import regenerate_view_grad_fn

        regenerate_view_grad_fn(variable)
    grad_fn = variable.grad_fn
    if grad_fn is not None:
        return (grad_fn, variable.output_nr)
    if variable.requires_grad:
        accumulator = variable._accumulator
        if accumulator is None:
            accumulator = variable._accumulator = AccumulateGrad(variable)
        return (accumulator, 0)
    return None


# --------------------------------------------------------------------------------------
# The engine
# --------------------------------------------------------------------------------------


def backward(tensors: Sequence[Variable], grad_tensors: Sequence[Any] | None = None,
             retain_graph: bool | None = None, create_graph: bool = False, inputs: Any = None) -> None:  # fmt: skip
    """`torch.autograd.backward`: accumulates d(tensors)/d(leaf) into every leaf's .grad
    (only into `inputs`' when given)."""
    if create_graph:
        raise RuntimeError("tsjit's autograd does not record the backward pass: create_graph=True is not supported")
    roots, grads = _roots(tensors, grad_tensors, "backward")
    targets = None
    if inputs is not None:
        inputs = [inputs] if isinstance(inputs, Variable) else list(inputs)
        targets = [_input_edge(v) for v in inputs]
    run_backward(roots, grads, bool(retain_graph), targets, accumulate=True)


def grad(outputs: Sequence[Variable] | Variable, inputs: Sequence[Variable] | Variable,
         grad_outputs: Sequence[Any] | None = None, retain_graph: bool | None = None, create_graph: bool = False,
         allow_unused: bool = False, materialize_grads: bool = False) -> tuple[Any, ...]:  # fmt: skip
    """`torch.autograd.grad`: the gradients of `outputs` with respect to `inputs`, as
    arrays (None for an input the outputs do not depend on, with `allow_unused`)."""
    if create_graph:
        raise RuntimeError("tsjit's autograd does not record the backward pass: create_graph=True is not supported")
    outputs = [outputs] if not isinstance(outputs, (list, tuple)) else list(outputs)
    inputs = [inputs] if not isinstance(inputs, (list, tuple)) else list(inputs)
    roots, grads = _roots(outputs, grad_outputs, "grad")
    targets = []
    for variable in inputs:
        if not isinstance(variable, Variable) or not requires_grad(variable):
            raise RuntimeError("One of the differentiated Tensors does not require grad")
        targets.append(_input_edge(variable))
    results = run_backward(roots, grads, bool(retain_graph), targets, accumulate=False)
    assert results is not None
    out: list[Any] = []
    for variable, result in zip(inputs, results):
        if result is None:
            if materialize_grads:
                result = np.zeros_like(variable.array)
            elif not allow_unused:
                raise RuntimeError(
                    "One of the differentiated Tensors appears to not have been used in the graph. "
                    "Set allow_unused=True if this is the desired behavior."
                )
        out.append(result)
    return tuple(out)


def _input_edge(variable: Variable) -> Edge:
    edge = gradient_edge(variable)
    if edge is None:
        raise RuntimeError("One of the differentiated Tensors does not require grad")
    return edge


def _roots(tensors: Sequence[Any], grads: Sequence[Any] | None, caller: str) -> tuple[list[Edge], list[np.ndarray]]:
    if grads is not None and len(grads) != len(tensors):
        raise RuntimeError(f"Mismatch in number of tensors ({len(tensors)}) and gradients ({len(grads)})")
    edges: list[Edge] = []
    arrays: list[np.ndarray] = []
    for i, tensor in enumerate(tensors):
        edge = gradient_edge(tensor) if isinstance(tensor, Variable) else None
        if edge is None:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")
        given = None if grads is None else grads[i]
        array = tensor.array
        if given is None:
            if array.size != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            given = np.ones_like(array)
        given = np.asarray(given.array if isinstance(given, Variable) else given)
        if given.shape != array.shape:
            raise RuntimeError(
                f"Mismatch in shape: grad_output[{i}] has a shape of {_size(given.shape)} and output[{i}] "
                f"has a shape of {_size(array.shape)}."
            )
        edges.append(edge)
        arrays.append(given.astype(array.dtype, copy=False))
    return edges, arrays


def run_backward(roots: Sequence[Edge], grads: Sequence[np.ndarray], keep_graph: bool,
                 targets: Sequence[Edge] | None, accumulate: bool) -> list[Any] | None:  # fmt: skip
    """Runs the graph from `roots` (see the module docstring). With `targets`, returns
    the gradient reaching each target edge; `accumulate` says whether leaves outside
    the targets accumulate (`backward(inputs=...)` accumulates into the targets only)."""
    root = GraphRoot(roots, grads)
    dependencies: dict[Node, int] = {}
    parents: dict[Node, list[Node]] = {}
    seen = {root}
    stack: list[Node] = [root]
    while stack:
        node = stack.pop()
        for edge in node.next_edges:
            if edge is None:
                continue
            child = edge[0]
            dependencies[child] = dependencies.get(child, 0) + 1
            parents.setdefault(child, []).append(node)
            if child not in seen:
                seen.add(child)
                stack.append(child)
    captured: dict[Edge, int] = {}
    needed: set[Node] | None = None
    results: list[Any] = []
    if targets is not None:
        results = [None] * len(targets)
        for k, edge in enumerate(targets):
            captured[edge] = k
        needed = _needed(parents, {edge[0] for edge in targets})
    buffers: dict[Node, list[np.ndarray | None]] = {}
    ready: list[tuple[int, int, Node]] = [(0, 0, root)]
    order = itertools.count()
    with no_grad():
        while ready:
            _, _, node = heapq.heappop(ready)
            inputs = buffers.pop(node, None)
            if inputs is None:
                inputs = [None] * node.num_inputs
            if captured:
                for index in range(len(inputs)):
                    slot = captured.get((node, index))
                    if slot is not None:
                        results[slot] = inputs[index]
            if node._retained:
                _retain(node, inputs)
            if needed is not None and node not in needed:
                continue
            if isinstance(node, AccumulateGrad) and (not accumulate or (targets is not None and (node, 0) not in captured)):
                continue  # `grad` returns rather than accumulates; `backward(inputs=)` only into them
            outputs = node.apply(inputs)
            if not keep_graph:
                node.release()
            for index, edge in enumerate(node.next_edges):
                if edge is None:
                    continue
                child, slot = edge
                grad_value = outputs[index] if index < len(outputs) else None
                if grad_value is not None and node.input_meta[index] is not None:
                    shape, dtype = node.input_meta[index]  # pyright: ignore[reportGeneralTypeIssues]
                    grad_value = _as_input(grad_value, shape, dtype, node, index)
                if grad_value is not None:
                    buffer = buffers.get(child)
                    if buffer is None:
                        buffer = buffers[child] = [None] * child.num_inputs
                    present = buffer[slot]
                    buffer[slot] = grad_value if present is None else _sum(present, grad_value)
                remaining = dependencies[child] - 1
                dependencies[child] = remaining
                if remaining == 0:
                    heapq.heappush(ready, (-child.sequence_nr, next(order), child))
            outputs = inputs = grad_value = present = None  # unshared gradients stay stealable
    return results if targets is not None else None


def _sum(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Two gradients of one input added (numpy makes the sum of 0-d arrays a scalar)."""
    total = a + b
    return total if type(total) is np.ndarray else np.asarray(total)


def _needed(parents: dict[Node, list[Node]], wanted: set[Node]) -> set[Node]:
    """The nodes from which a wanted node can be reached (only they run for `grad`)."""
    needed = set(wanted)
    stack = list(wanted)
    while stack:
        for parent in parents.get(stack.pop(), ()):
            if parent not in needed:
                needed.add(parent)
                stack.append(parent)
    return needed


def _retain(node: Node, inputs: list[np.ndarray | None]) -> None:
    assert node._retained is not None
    for index, reference in node._retained.items():
        variable = reference()
        if variable is not None and index < len(inputs) and inputs[index] is not None:
            accumulate_grad(variable, inputs[index])  # pyright: ignore[reportArgumentType]


def retain_grad_of(variable: Variable) -> None:
    """Makes the engine store the gradient reaching a non-leaf in its `.grad`."""
    node = variable.grad_fn
    if node._retained is None:
        node._retained = {}
    node._retained[variable.output_nr] = weakref.ref(variable)


def _as_input(grad_value: Any, shape: tuple[int, ...], dtype: np.dtype, node: Node, index: int) -> np.ndarray:
    """A gradient as the forward input it belongs to wants it (PyTorch's
    `validate_outputs`): summed down to its shape when broadcasting made it larger,
    cast to its dtype."""
    if type(grad_value) is not np.ndarray:
        grad_value = np.asarray(grad_value.array if isinstance(grad_value, Variable) else grad_value)
    if grad_value.shape != shape:
        from tsjit.runtime.kernels.backward import sum_to_shape

        summed = sum_to_shape(grad_value, shape)
        if summed is None:
            raise TorchScriptError(
                f"Function {node.name()} returned an invalid gradient at index {index} - got "
                f"{_size(grad_value.shape)} but expected shape compatible with {_size(shape)}"
            )
        grad_value = summed
    if grad_value.dtype != dtype:
        grad_value = grad_value.astype(dtype)
    return grad_value


def _size(shape: Sequence[int]) -> str:
    return "[" + ", ".join(str(s) for s in shape) + "]"

