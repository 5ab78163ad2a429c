"""JAX's functional interface to gradients: `grad` and `value_and_grad` of scripted and
loaded callables.

    loss_grad = tsjit.grad(scripted_loss, argnums=(0, 2))
    dw, db = loss_grad(w, x, b)            # arrays shaped like w and b

`fn` is a scripted function or module (`tsjit.script`), an executor of a loaded program
(`tsjit.compile`), or any Python callable built from those; its result must be a scalar
tensor. The arguments named by `argnums` become leaves that require grad (a list of
tensors gives a list of gradients); a result that does not depend on them has zero
gradients, as in JAX.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tsjit.diagnostics import TsjitError
from tsjit.runtime.autograd.engine import grad as engine_grad
from tsjit.runtime.autograd.grad_mode import enable_grad
from tsjit.runtime.autograd.variable import Variable, requires_grad

ArgNums = int | Sequence[int]


def grad(fn: Callable[..., Any], argnums: ArgNums = 0) -> Callable[..., Any]:
    """A function giving the gradient of `fn`'s scalar result with respect to the
    arguments `argnums`: one array for an int, a tuple of them for a sequence."""
    value_and_gradient = value_and_grad(fn, argnums)

    def gradient(*args: Any) -> Any:
        return value_and_gradient(*args)[1]

    gradient.__name__ = f"grad_{getattr(fn, '__name__', 'fn')}"
    return gradient


def value_and_grad(fn: Callable[..., Any], argnums: ArgNums = 0) -> Callable[..., tuple[Any, Any]]:
    """A function giving `(value, gradient)`: `fn`'s scalar result (an array) and
    `grad(fn, argnums)`'s gradients, from one call."""
    single = isinstance(argnums, int)
    numbers = (argnums,) if single else tuple(argnums)  # pyright: ignore[reportArgumentType]
    if not numbers or not all(isinstance(n, int) and not isinstance(n, bool) for n in numbers):
        raise TsjitError(f"argnums must be an int or a non-empty sequence of ints, got {argnums!r}")

    def run(*args: Any) -> tuple[Any, Any]:
        arguments = list(args)
        leaves: dict[int, Any] = {}
        for number in numbers:
            if not -len(arguments) <= number < len(arguments):
                raise TsjitError(f"argnums names argument {number} but the function got {len(arguments)}")
            arguments[number] = leaves[number] = _leaf(arguments[number], number)
        with enable_grad():
            result = call_recording(fn, arguments)
        value = _scalar(result)
        flat = [v for n in numbers for v in _flat(leaves[n])]
        grads = _gradients(result, flat)
        out: list[Any] = []
        position = 0
        for number in numbers:
            leaf = leaves[number]
            if isinstance(leaf, list):
                out.append(grads[position : position + len(leaf)])
                position += len(leaf)
            else:
                out.append(grads[position])
                position += 1
        return value, (out[0] if single else tuple(out))

    run.__name__ = f"value_and_grad_{getattr(fn, '__name__', 'fn')}"
    return run


def call_recording(fn: Callable[..., Any], arguments: Sequence[Any]) -> Any:
    """Calls `fn` so that it records gradients: a scripted callable through its
    gradient executor, an executor through its autograd twin."""
    if hasattr(fn, "grad_call"):
        return fn.grad_call(tuple(arguments))  # pyright: ignore[reportAttributeAccessIssue]
    if hasattr(fn, "autograd_executor"):
        return fn.autograd_executor()(*arguments)  # pyright: ignore[reportAttributeAccessIssue]
    return fn(*arguments)


def _leaf(value: Any, number: int) -> Any:
    """A new leaf that requires grad over the argument's data (a list: one per element)."""
    if isinstance(value, list):
        return [_leaf(v, number) for v in value]
    array = value.array if isinstance(value, Variable) else value
    if not isinstance(array, np.ndarray) and hasattr(array, "detach"):  # a PyTorch tensor
        array = array.detach().cpu().numpy()
    if not isinstance(array, np.ndarray) or array.dtype.kind not in "fc":
        kind = array.dtype if isinstance(array, np.ndarray) else type(value).__name__
        raise TsjitError(f"argument {number} is differentiated but is not a floating-point tensor ({kind})")
    return Variable(array, requires_grad=True)


def _flat(leaf: Any) -> list[Variable]:
    return list(leaf) if isinstance(leaf, list) else [leaf]


def _scalar(result: Any) -> np.ndarray:
    array = result.array if isinstance(result, Variable) else result
    if not isinstance(array, np.ndarray) or array.size != 1:
        shape = list(array.shape) if isinstance(array, np.ndarray) else type(result).__name__
        raise TsjitError(f"the differentiated function must return a scalar tensor, got {shape}")
    return array


def _gradients(result: Any, leaves: list[Variable]) -> list[np.ndarray]:
    if not requires_grad(result):
        return [np.zeros_like(leaf.array) for leaf in leaves]
    grads = engine_grad([result], leaves, allow_unused=True, materialize_grads=True)
    return list(grads)
