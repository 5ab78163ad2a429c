"""Variables: tensors that take part in automatic differentiation.

The runtime computes on plain numpy arrays. Where gradients are wanted (a call whose
arguments require grad, while grad mode is on), tensors outside differentiable
subgraphs are `Variable`s: an array plus PyTorch's autograd metadata. A Variable that
`requires_grad` and has no `grad_fn` is a leaf, whose gradients `backward` accumulates
into `.grad`; one computed from such tensors has the `grad_fn` (a `Node`) that computes
the gradients of its inputs, and `output_nr`, which of that node's gradient inputs it
is. Views (`x[0]`, `x.t()`) remember their base and how to take the same view of
another array of the base's shape (`view_fn`), so that an in-place write through the
view updates the base's history (PyTorch's CopySlices). A version counter, shared by a
tensor and its views, counts in-place writes: a node that saved a tensor for its
backward checks that the counter has not moved.

Attributes live in the class until set, so a Variable costs one slot write plus what
its instance sets; the torch shim's `Tensor` is a subclass with the same layout (a
Variable returned to shim code becomes a `Tensor` by changing its class).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

ndarray = np.ndarray


class Variable:
    """A tensor with autograd metadata (see the module docstring)."""

    __slots__ = ("__dict__", "__weakref__", "array")

    array: np.ndarray
    requires_grad = False
    grad_fn: Any = None
    """The `Node` whose gradient input `output_nr` receives this tensor's gradient."""
    output_nr = 0
    grad: Any = None
    """The gradient accumulated into a leaf by `backward` (a tensor of `grad_class`)."""
    _version: list[int] | None = None
    """[count]: in-place writes to this tensor's memory, shared with its views."""
    _base: Variable | None = None
    _view_fn: Callable[[np.ndarray], np.ndarray] | None = None
    _view_version = 0
    """The version at which a view's `grad_fn` was made (an in-place write to the
    memory since makes it stale: `gradient_edge` rebuilds it from the base)."""
    _accumulator: Any = None
    _retains_grad = False

    def __init__(self, array: Any, requires_grad: bool = False):
        self.array = np.asarray(array)
        if requires_grad:
            self.requires_grad_(True)

    # -- what user code reads --------------------------------------------------------
    @property
    def is_leaf(self) -> bool:
        return self.grad_fn is None

    @property
    def shape(self) -> tuple[int, ...]:
        return self.array.shape

    @property
    def dtype(self) -> np.dtype:
        return self.array.dtype

    @property
    def ndim(self) -> int:
        return self.array.ndim

    def numpy(self) -> np.ndarray:
        if self.requires_grad:
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."
            )
        return self.array

    def item(self) -> Any:
        if self.array.size != 1:
            raise RuntimeError(f"a Tensor with {self.array.size} elements cannot be converted to Scalar")
        return self.array.item()

    def __array__(self, dtype: object = None, copy: object = None) -> np.ndarray:
        return self.array if dtype is None else self.array.astype(dtype)

    def __repr__(self) -> str:
        body = np.array2string(self.array, separator=", ", precision=4, prefix="tensor(")
        if self.grad_fn is not None:
            return f"tensor({body}, grad_fn=<{self.grad_fn.name()}>)"
        return f"tensor({body}, requires_grad=True)" if self.requires_grad else f"tensor({body})"

    # -- autograd ----------------------------------------------------------------------
    def requires_grad_(self, requires_grad: bool = True) -> Variable:
        if not requires_grad and self.grad_fn is not None:
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to use a computed "
                "variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach()."
            )
        if requires_grad and self.array.dtype.kind not in "fc":
            raise RuntimeError("only Tensors of floating point and complex dtype can require gradients")
        self.requires_grad = bool(requires_grad)
        return self

    def detach(self) -> Variable:
        """The same memory, out of the graph (sharing the version counter)."""
        detached = new_variable(self.array, self.grad_class())
        detached._version = version_counter(self)
        return detached

    def backward(self, gradient: Any = None, retain_graph: bool | None = None, create_graph: bool = False,
                 inputs: Any = None) -> None:  # fmt: skip
        """Accumulates the gradient of this tensor into the leaves it depends on."""
        from tsjit.runtime.autograd.engine import backward

        backward([self], None if gradient is None else [gradient], retain_graph, create_graph, inputs)

    def retain_grad(self) -> None:
        """Keeps the gradient of a non-leaf in `.grad` after backward."""
        if self.grad_fn is None:
            if not self.requires_grad:
                raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
            return
        self._retains_grad = True

    @classmethod
    def grad_class(cls) -> type[Variable]:
        """The class of the tensors `.grad` holds (a Parameter's gradient is a Tensor)."""
        return cls


def new_variable(array: np.ndarray, cls: type[Variable] = Variable) -> Variable:
    """A Variable of `cls` over `array`, with no autograd metadata."""
    variable = _new(cls)
    variable.array = array
    return variable


_new = object.__new__


def version_counter(variable: Variable) -> list[int]:
    """The version counter of `variable`, made on first use (a view shares its base's)."""
    counter = variable._version
    if counter is None:
        base = variable._base
        counter = variable._version = version_counter(base) if base is not None else [0]
    return counter


def requires_grad(value: Any) -> bool:
    """Whether a run-time value is a tensor that requires grad (a view requires grad
    when its base has come to, by an in-place write through another view)."""
    if not isinstance(value, Variable):
        return False
    if value.requires_grad:
        return True
    base = value._base
    return base is not None and base.requires_grad


def data(value: Any) -> Any:
    """The array of a Variable, anything else as it is."""
    return value.array if isinstance(value, Variable) else value
