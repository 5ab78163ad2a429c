"""A differentiated graph as an autograd function: PyTorch's DifferentiableGraphOp.

`differentiate` splits a `prim.DifferentiableGraph` into a forward graph, which returns
the graph's outputs followed by the intermediate values the backward needs, and a
backward graph, which takes the gradients of the outputs and the captured values
(inputs and forward results) and returns the gradients of the inputs that need one.
`GraphFunction` runs the pair: a call runs the forward on plain arrays; when an input
requires grad (and grad mode is on), it records one `GraphNode` holding the captured
values, whose `apply` runs the backward. The same class runs the gradient of a single
operator recorded outside any subgraph (`recording`), whose pair comes from the
operator's formula.

Captured values are checked when the backward runs: a tensor written in place since it
was saved (its version counter moved) raises PyTorch's error rather than giving a wrong
gradient.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tsjit.runtime.autograd.engine import Edge, Node, gradient_edge
from tsjit.runtime.autograd.grad_mode import is_grad_enabled
from tsjit.runtime.autograd.variable import Variable, new_variable, requires_grad, version_counter
from tsjit.runtime.errors import TorchScriptError

ndarray = np.ndarray

SECOND_BACKWARD = (
    "Trying to backward through the graph a second time (or directly access saved tensors after they have "
    "already been freed). Saved intermediate values of the graph are freed when you call .backward() or "
    "autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or if "
    "you need to access saved tensors after calling backward."
)


@dataclass(frozen=True)
class Capture:
    """One value the backward takes after the output gradients: input `index` of the
    forward (`kind` "input") or forward result `index` ("output"; results past the real
    outputs are intermediates). `aliases` are the inputs an intermediate may be a view
    of: a write to them changes it."""

    kind: str
    index: int
    aliases: tuple[int, ...] = ()


@dataclass
class GraphFunction:
    """The forward and backward of one differentiated graph (see the module docstring).

    `grad_outputs` are the real outputs whose gradients the backward takes, in order;
    `grad_inputs` the inputs whose gradients it returns, in order; `output_inputs[k]`
    the inputs real output k depends on (it requires grad when one of them does);
    `view_of[k]` the input real output k is a view of, if any."""

    name: str
    forward: Callable[..., Any]
    backward_factory: Callable[[], Callable[..., Any]]
    n_outputs: int
    grad_outputs: tuple[int, ...]
    grad_inputs: tuple[int, ...]
    captures: tuple[Capture, ...]
    output_inputs: tuple[tuple[int, ...], ...]
    view_of: tuple[int | None, ...]
    single_result: bool = False
    """The forward returns its one value as it is, not in a tuple."""
    _backward: Callable[..., Any] | None = field(default=None, repr=False)

    @property
    def backward(self) -> Callable[..., Any]:
        backward = self._backward
        if backward is None:
            backward = self._backward = self.backward_factory()
        return backward

    def __call__(self, *inputs: Any) -> Any:
        """The callee of the op in grad-mode code: Variables in, Variables out."""
        arrays = list(inputs)
        wanted = False
        for i, value in enumerate(inputs):
            if isinstance(value, Variable):
                arrays[i] = value.array
                wanted = wanted or requires_grad(value)
            elif type(value) is list and value and any(isinstance(v, Variable) for v in value):
                arrays[i] = [v.array if isinstance(v, Variable) else v for v in value]
                wanted = wanted or any(requires_grad(v) for v in value)
        results = self.forward(*arrays)
        if self.single_result:
            results = (results,)
        if wanted and is_grad_enabled():
            outputs = self.record(inputs, arrays, results)
        else:
            outputs = [self.plain_output(inputs, k, results[k]) for k in range(self.n_outputs)]
        return outputs[0] if self.n_outputs == 1 else tuple(outputs)

    def plain_output(self, inputs: Sequence[Any], k: int, value: Any) -> Any:
        """Output k as a Variable that requires no grad (a view keeps its base)."""
        if type(value) is list:
            return [self.plain_output(inputs, k, v) for v in value]
        if type(value) is not ndarray:
            return value
        variable = new_variable(value)
        source = self.view_of[k]
        if source is not None:
            _make_view(variable, inputs[source])
        return variable

    def record(self, inputs: Sequence[Any], arrays: Sequence[Any], results: Sequence[Any]) -> list[Any]:
        """Runs nothing more: makes the node of this call and the outputs that lead to it."""
        edges: list[Edge | None] = []
        meta: list[tuple[tuple[int, ...], np.dtype] | None] = []
        layout: list[int] = []  # per grad input: -1 for a tensor, else the length of its list
        for i in self.grad_inputs:
            value = inputs[i]
            if type(value) is list:
                layout.append(len(value))
                for element in value:
                    edges.append(gradient_edge(element) if requires_grad(element) else None)
                    meta.append(_meta(element))
            else:
                layout.append(-1)
                edges.append(gradient_edge(value) if requires_grad(value) else None)
                meta.append(_meta(value))
        node = GraphNode(self, edges, meta, layout)
        outputs: list[Any] = []
        output_meta: list[tuple[tuple[int, ...], np.dtype]] = []
        output_layout: list[int] = []
        for k in range(self.n_outputs):
            value = results[k]
            wanted = k in self.grad_outputs and any(
                requires_grad(inputs[i]) or _any_list_requires(inputs[i]) for i in self.output_inputs[k]
            )
            if type(value) is list:
                output_layout.append(len(value) if k in self.grad_outputs else -2)
                elements = []
                for element in value:
                    elements.append(self._output(node, element, wanted, len(output_meta), inputs, k))
                    if k in self.grad_outputs:
                        output_meta.append((element.shape, element.dtype))
                outputs.append(elements)
                continue
            if k in self.grad_outputs:
                output_layout.append(-1)
            outputs.append(self._output(node, value, wanted, len(output_meta), inputs, k))
            if k in self.grad_outputs:
                output_meta.append((value.shape, value.dtype))
        node.output_meta = output_meta
        node.output_layout = tuple(n for n in output_layout if n != -2)
        node.save(self, inputs, arrays, results, outputs)
        return outputs

    def _output(self, node: GraphNode, value: Any, wanted: bool, output_nr: int, inputs: Sequence[Any], k: int) -> Any:
        """A forward result as a Variable, requiring grad (through `node`'s gradient
        input `output_nr`) when it is a floating tensor an input that requires grad
        reaches."""
        if type(value) is not ndarray:
            return value
        output = new_variable(value)
        if wanted and value.dtype.kind in "fc":
            output.requires_grad = True
            output.grad_fn = node
            output.output_nr = output_nr
        source = self.view_of[k]
        if source is not None:
            _make_view(output, inputs[source])
        return output


def _any_list_requires(value: Any) -> bool:
    return type(value) is list and any(requires_grad(v) for v in value)


def _meta(value: Any) -> tuple[tuple[int, ...], np.dtype] | None:
    array = value.array if isinstance(value, Variable) else value
    return (array.shape, array.dtype) if type(array) is ndarray else None


def _make_view(output: Variable, source: Any) -> None:
    """Marks `output` a view of the Variable `source` (sharing its version counter)."""
    from tsjit.runtime.autograd.views import mark_view

    if isinstance(source, Variable) and np.may_share_memory(output.array, source.array):
        mark_view(output, source, None)


class GraphNode(Node):
    """The backward of one call of a `GraphFunction`."""

    __slots__ = ("checks", "function", "layout", "output_layout", "output_meta", "saved")

    def __init__(self, function: GraphFunction, edges: Sequence[Edge | None],
                 meta: Sequence[tuple[tuple[int, ...], np.dtype] | None], layout: Sequence[int]):  # fmt: skip
        super().__init__(edges, meta)
        self.function = function
        self.layout = tuple(layout)
        self.output_meta: list[tuple[tuple[int, ...], np.dtype]] = []
        self.output_layout: tuple[int, ...] = ()
        """Per gradient the backward takes: -1 for a tensor, else the length of a list."""
        self.saved: list[Any] | None = []
        self.checks: list[tuple[list[int], int, Variable]] = []

    def name(self) -> str:
        return self.function.name

    @property
    def num_inputs(self) -> int:
        return len(self.output_meta)

    def save(self, function: GraphFunction, inputs: Sequence[Any], arrays: Sequence[Any],
             results: Sequence[Any], outputs: Sequence[Any]) -> None:  # fmt: skip
        """Keeps the captured values, and the version of each tensor whose in-place
        change would change them."""
        saved: list[Any] = []
        watched: dict[int, Variable] = {}
        for capture in function.captures:
            if capture.kind == "input":
                saved.append(arrays[capture.index])
                _watch(watched, inputs[capture.index])
            else:
                saved.append(results[capture.index])
                if capture.index < function.n_outputs:
                    _watch(watched, outputs[capture.index])
                for i in capture.aliases:
                    _watch(watched, inputs[i])
        self.saved = saved
        self.checks = [(version_counter(v), version_counter(v)[0], v) for v in watched.values()]

    def apply(self, grads: list[np.ndarray | None]) -> list[np.ndarray | None]:
        saved = self.saved
        if saved is None:
            raise TorchScriptError(SECOND_BACKWARD)
        for counter, version, variable in self.checks:
            if counter[0] != version:
                raise TorchScriptError(
                    "one of the variables needed for gradient computation has been modified by an inplace "
                    f"operation: {_describe(variable)}, is at version {counter[0]}; expected version {version} instead. "
                    "Hint: enable anomaly detection to find the operation that failed to compute its gradient, "
                    "with torch.autograd.set_detect_anomaly(True)."
                )
        filled = [g if g is not None else np.zeros(shape, dtype) for g, (shape, dtype) in zip(grads, self.output_meta)]
        arguments: list[Any] = []
        position = 0
        for size in self.output_layout:
            if size < 0:
                arguments.append(filled[position])
                position += 1
            else:
                arguments.append(filled[position : position + size])
                position += size
        result = self.function.backward(*arguments, *saved)
        if len(self.layout) == 1:
            result = (result,)
        flat: list[np.ndarray | None] = []
        for value, size in zip(result, self.layout):
            if size < 0:
                flat.append(value.array if isinstance(value, Variable) else value)
            elif value is None:
                flat.extend([None] * size)
            else:
                flat.extend(value)
        return flat

    def release(self) -> None:
        self.saved = None


def _watch(watched: dict[int, Variable], value: Any) -> None:
    if isinstance(value, Variable):
        watched[id(version_counter(value))] = value
    elif type(value) is list:
        for element in value:
            _watch(watched, element)


def _describe(variable: Variable) -> str:
    """A tensor as PyTorch's in-place error names it."""
    from tsjit.runtime.values import DTYPE_BY_NUMPY

    array = variable.array
    record = DTYPE_BY_NUMPY.get(array.dtype)
    kind = f"torch.{record.name}Tensor" if record is not None else "torch.Tensor"
    text = f"[{kind} [{', '.join(str(s) for s in array.shape)}]]"
    if variable.grad_fn is not None:
        text += f", which is output {variable.output_nr} of {variable.grad_fn.name()}"
    return text
