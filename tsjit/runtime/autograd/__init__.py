"""Automatic differentiation for the runtime: Variables, grad mode, the backward engine.

    from tsjit.runtime.autograd import Variable, backward, grad, no_grad
    x = Variable(array, requires_grad=True)
    y = forward_with_gradients(x)         # an executor with autograd=True
    y.backward()                          # x.grad
    (dx,) = grad([y], [x])                # or the gradient as an array

`tsjit.grad(fn, argnums)` differentiates scripted and loaded callables (`functional`).
"""

from __future__ import annotations

from typing import Any

from tsjit.runtime.autograd.engine import backward, grad
from tsjit.runtime.autograd.grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from tsjit.runtime.autograd.variable import Variable, requires_grad


def wants_grad(value: Any) -> bool:
    """Whether a value holds a tensor that requires grad (in tuples, lists and dicts too)."""
    if isinstance(value, Variable):
        return requires_grad(value)
    kind = type(value)
    if kind is list or kind is tuple:
        return any(wants_grad(v) for v in value)
    if kind is dict:
        return any(wants_grad(v) for v in value.values())
    return False


def variables_of(obj: Any) -> list[Variable]:
    """The Variables a module object holds, its submodules' included."""
    from tsjit.runtime.values import ScriptObject

    found: list[Variable] = []
    stack = [obj]
    seen: set[int] = set()
    while stack:
        current = stack.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, Variable):
            found.append(current)
        elif isinstance(current, ScriptObject):
            stack.extend(current.attributes.values())
        elif isinstance(current, (list, tuple)):
            stack.extend(current)
        elif isinstance(current, dict):
            stack.extend(current.values())
    return found


__all__ = [
    "Variable",
    "backward",
    "enable_grad",
    "grad",
    "is_grad_enabled",
    "no_grad",
    "requires_grad",
    "set_grad_enabled",
    "variables_of",
    "wants_grad",
]
