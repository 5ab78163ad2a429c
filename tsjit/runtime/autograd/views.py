"""Views and in-place writes in the autograd graph (PyTorch's view tracking).

A view (`x[0]`, `x.t()`, `x.view(2, 3)`) shares its base's memory and version counter
(made when the memory is first written or saved: a view of a tensor without one records
only its base), and remembers `view_fn`: how to take the same view of another array of
the base's shape (the view operators replayed). Two things follow:

- An in-place write through a view changes the base. The base's history is rebased on a
  `CopySlices` node: the gradient of the base after the write is that of the write's
  result where the view is, and passes to the base before it elsewhere.
- A view whose base was written in place since the view's `grad_fn` was made gets a new
  one (`ViewBackward`) that takes its gradient into the base's shape and hands it to the
  base's current history.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tsjit.runtime.autograd.engine import Node, gradient_edge
from tsjit.runtime.autograd.variable import Variable, version_counter
from tsjit.runtime.errors import TorchScriptError

ViewFn = Callable[[np.ndarray], np.ndarray]


def mark_view(view: Variable, source: Variable, view_fn: ViewFn | None) -> None:
    """Records that `view` is a view of `source` (itself perhaps a view: the base is
    the root), taken from it by `view_fn` (None: not replayable)."""
    base = source._base if source._base is not None else source
    if source._base is not None and view_fn is not None and source._view_fn is not None:
        inner, outer = source._view_fn, view_fn
        view_fn = lambda array: outer(inner(array))  # noqa: E731 - a composed replay
    elif source._base is not None:
        view_fn = None
    view._base = base
    view._view_fn = view_fn
    counter = base._version  # made on first use, by the base (a view's is its base's)
    if counter is not None:
        view._view_version = counter[0]


def mark_view_if_shared(view: Variable, source: Variable, view_fn: ViewFn) -> None:
    """`mark_view` for the result of a view op, unless it copied (`reshape` may)."""
    result, array = view.array, source.array
    # numpy points a view at the array owning the memory: the same owner is the common
    # case and costs a fifth of the test of the memory's bounds
    if (result.base if result.base is not None else result) is (array.base if array.base is not None else array) or (
        np.may_share_memory(result, array)
    ):
        mark_view(view, source, view_fn)


class ViewBackward(Node):
    """The gradient of a view, scattered into the base's shape."""

    __slots__ = ("base_meta", "view_fn")

    def __init__(self, base: Variable, view_fn: ViewFn):
        super().__init__([gradient_edge(base)], [(base.array.shape, base.array.dtype)])
        self.view_fn = view_fn
        self.base_meta = (base.array.shape, base.array.dtype)

    def apply(self, grads: list[np.ndarray | None]) -> list[np.ndarray | None]:
        (grad,) = grads
        if grad is None:
            return [None]
        shape, dtype = self.base_meta
        result = np.zeros(shape, dtype)
        self.view_fn(result)[...] = grad
        return [result]


class CopySlices(Node):
    """The history of a base written in place through a view: `node` is the write's
    gradient, whose first gradient is that of the view before the write when
    `through_view` (else the view required no grad before the write: `node` returns
    only the other inputs' gradients)."""

    __slots__ = ("base_meta", "node", "through_view", "view_fn")

    def __init__(self, base: Variable, view_fn: ViewFn, node: Node, through_view: bool):
        others = 1 if through_view else 0
        edges = [gradient_edge(base), *node.next_edges[others:]]
        meta = [(base.array.shape, base.array.dtype), *node.input_meta[others:]]
        super().__init__(edges, meta)
        self.base_meta = (base.array.shape, base.array.dtype)
        self.view_fn = view_fn
        self.node = node
        self.through_view = through_view

    def name(self) -> str:
        return "CopySlices"

    def apply(self, grads: list[np.ndarray | None]) -> list[np.ndarray | None]:
        (grad,) = grads
        shape, dtype = self.base_meta
        result = np.array(grad, dtype=dtype, copy=True) if grad is not None else np.zeros(shape, dtype)
        region = self.view_fn(result)
        inner = list(self.node.apply([np.array(region, copy=True)]))
        before = inner.pop(0) if self.through_view else None
        region[...] = 0 if before is None else before
        return [result, *inner]

    def release(self) -> None:
        self.node.release()


def regenerate_view_grad_fn(view: Variable) -> None:
    """A view's grad_fn made anew through its base (see the module docstring)."""
    base = view._base
    assert base is not None
    view_fn = view._view_fn
    if view_fn is None:
        raise TorchScriptError(
            "tsjit cannot differentiate through this view of a tensor that was modified in place"
        )
    view.grad_fn = ViewBackward(base, view_fn)
    view.output_nr = 0
    view.requires_grad = True
    view._view_version = version_counter(view)[0]


def check_inplace(target: Variable) -> None:
    """PyTorch's errors for an in-place write that would lose a leaf's gradient."""
    if target.requires_grad and target.grad_fn is None and target._base is None:
        raise TorchScriptError("a leaf Variable that requires grad is being used in an in-place operation.")
    base = target._base
    if base is not None and base.requires_grad and base.grad_fn is None:
        raise TorchScriptError("a view of a leaf Variable that requires grad is being used in an in-place operation.")


def rebase_history(target: Variable, node: Node, through_target: bool) -> None:
    """`target` was written in place by the op `node` differentiates (its gradient
    input 0 is the result; its first gradient is the target's before the write when
    `through_target`): its history continues from `node`, through the base's when it
    is a view."""
    base = target._base
    if base is not None:
        if target._view_fn is None:
            raise TorchScriptError("tsjit cannot differentiate an in-place write through this view")
        copy = CopySlices(base, target._view_fn, node, through_target)
        base.grad_fn = copy
        base.output_nr = 0
        base.requires_grad = True
        regenerate_view_grad_fn(target)
        return
    target.grad_fn = node
    target.output_nr = 0
    target.requires_grad = True


def bump_version(value: Any) -> None:
    """Counts an in-place write to a tensor."""
    if isinstance(value, Variable):
        version_counter(value)[0] += 1
