"""numpy's `errstate(all="ignore")` around a graph run, at a tenth of its cost.

Kernels compute inf and nan silently, as PyTorch does, so every graph run sets numpy's
floating-point error state to "ignore" (see `kernels`). On numpy 2, entering and leaving
`np.errstate` costs 2.2 µs, because it builds numpy's state object each time: a quarter
of a whole call of a small fused graph. numpy 2 keeps that state in a context variable
holding an immutable object, so this module makes the "ignore" object once and only sets
and resets the variable (0.2 µs). Older numpy gets `np.seterr`.

    token = ignore_float_errors()
    try:
        ...
    finally:
        restore_float_errors(token)

Generated code calls the state's own setter and resetter, one call each:
`set, ignore, reset = FLOAT_STATE; token = set(ignore); ...; reset(token)`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

try:  # numpy >= 2
    from numpy._core.umath import _extobj_contextvar, _make_extobj  # pyright: ignore
except ImportError:  # pragma: no cover - numpy 1.x
    _extobj_contextvar = None

if _extobj_contextvar is not None:
    _IGNORE = _make_extobj(all="ignore")

    def ignore_float_errors() -> Any:
        """Ignores floating-point errors in this thread or task until restored."""
        return _extobj_contextvar.set(_IGNORE)

    def restore_float_errors(token: Any) -> None:
        _extobj_contextvar.reset(token)

    FLOAT_STATE: tuple[Any, Any, Any] = (_extobj_contextvar.set, _IGNORE, _extobj_contextvar.reset)

else:  # pragma: no cover - numpy 1.x

    def ignore_float_errors() -> Any:
        """Ignores floating-point errors in this thread or task until restored."""
        return np.seterr(all="ignore")

    def restore_float_errors(token: Any) -> None:
        np.seterr(**token)

    FLOAT_STATE = (lambda ignored: ignore_float_errors(), None, restore_float_errors)
