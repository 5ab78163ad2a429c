"""Classical orthogonal polynomials of a tensor degree: Chebyshev (T, U, V, W, and
shifted to [0, 1]), Hermite (physicists' H, probabilists' He), Laguerre, Legendre.

PyTorch's definitions (`ATen/native/Math.h`): 0 for negative degrees, closed forms at
the interval's ends, the trigonometric form for high degrees inside the interval, and
the three-term recurrence otherwise. Here each recurrence step runs for every element
at once, masked to the elements whose degree it has not reached, up to the largest
degree present. Values are computed in the dtype of the result, as PyTorch does.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

ndarray = np.ndarray
Step = Callable[[int, ndarray, ndarray, ndarray], ndarray]


def _recurrence(x: ndarray, n: ndarray, first: ndarray, step: Step) -> ndarray:
    """q after running `q, p = step(k, p, q, x), q` for k = 2 .. n from p = 1, q = first,
    each element until its degree or until its value is NaN (PyTorch's loop condition:
    an overflowed element becomes NaN a step later and stops there)."""
    p = np.ones_like(x)
    q = first.copy()
    k = 2
    running = (k <= n) & ~np.isnan(q)
    while running.any():
        r = step(k, p, q, x)
        p = np.where(running, q, p)
        q = np.where(running, r, q)
        k += 1
        running &= (k <= n) & ~np.isnan(q)
    return q


def _select(x: ndarray, n: ndarray, cases: list[tuple[ndarray, ndarray]], otherwise: ndarray) -> ndarray:
    """The first case's value whose condition holds, element by element."""
    return np.select([c for c, _ in cases], [np.broadcast_to(v, x.shape) for _, v in cases], otherwise)


def _even(n: ndarray) -> ndarray:
    return n % 2 == 0


def _chebyshev(kind: str, x: ndarray, n: ndarray, shifted: bool) -> ndarray:
    t = x + x - 1 if shifted else x  # the argument the polynomial sees
    one = np.ones_like(x)
    nf = n.astype(x.dtype)
    first = {"t": t, "u": t + t, "v": t + t - 1, "w": t + t + 1}[kind]
    with np.errstate(all="ignore"):
        theta = np.arccos(np.clip(t, -1, 1))
        threshold = {"t": 6, "u": 6 if shifted else 8, "v": 6 if shifted else 8, "w": 4 if shifted else 8}[kind]
        closed = (n > threshold) & (np.abs(t) < 1)  # the trigonometric form, no recurrence
        if kind == "t":
            trigonometric = np.cos(nf * theta)
        elif kind == "u":
            s = np.sin(theta)
            trigonometric = np.where(s != 0, np.sin((nf + 1) * theta) / s, (nf + 1) * np.cos((nf + 1) * theta) / t)
        elif kind == "v":
            trigonometric = np.where(np.sin(theta / 2) != 1, np.cos((nf + 0.5) * theta) / np.cos(theta / 2),
                                     np.where(_even(n), 2 * nf + 1, -(2 * nf + 1)))  # fmt: skip
        else:
            trigonometric = np.where(np.cos(theta / 2) != 1, np.sin((nf + 0.5) * theta) / np.sin(theta / 2),
                                     np.where(t > 0, 2 * nf + 1, np.where(_even(n), one, -one)))  # fmt: skip
        recurrence = _recurrence(x, np.where(closed, 0, n), first, lambda k, p, q, _: (t + t) * q - p)
    upper_end = (x == 1) if shifted else (np.abs(x) == 1) & (x > 0)
    lower_end = (x == 0) if shifted else (np.abs(x) == 1) & (x < 0)
    end_values = {
        "t": (one, np.where(_even(n), one, -one)),
        "u": (nf + 1, np.where(_even(n), nf + 1, -(nf + 1))),
        "v": (one, np.where(_even(n), 2 * nf + 1, -(2 * nf + 1))),
        "w": (2 * nf + 1, np.where(_even(n), one, -one)),
    }[kind]
    return _select(x, n, [
        (n < 0, np.zeros_like(x)),
        (upper_end, end_values[0]),
        (lower_end, end_values[1]),
        (closed, trigonometric),
        (n == 0, one),
        (n == 1, first),
    ], recurrence)  # fmt: skip


def chebyshev(kind: str, shifted: bool = False) -> Callable[[ndarray, ndarray], ndarray]:
    return lambda x, n: _chebyshev(kind, x, n, shifted)


def hermite_h(x: ndarray, n: ndarray, limit: int) -> ndarray:
    with np.errstate(all="ignore"):
        recurrence = _recurrence(x, np.where(n > limit, 0, n), x + x, lambda k, p, q, v: (v + v) * q - (2 * (k - 1)) * p)
    return _select(x, n, [(n < 0, np.zeros_like(x)), (n == 0, np.ones_like(x)), (n == 1, x + x),
                          (n > limit, np.full_like(x, np.nan))], recurrence)  # fmt: skip


def hermite_he(x: ndarray, n: ndarray, limit: int) -> ndarray:
    with np.errstate(all="ignore"):
        recurrence = _recurrence(x, np.where(n > limit, 0, n), x, lambda k, p, q, v: v * q - (k - 1) * p)
    return _select(x, n, [(n < 0, np.zeros_like(x)), (n == 0, np.ones_like(x)), (n == 1, x),
                          (n > limit, np.full_like(x, np.nan))], recurrence)  # fmt: skip


def laguerre_l(x: ndarray, n: ndarray) -> ndarray:
    with np.errstate(all="ignore"):
        recurrence = _recurrence(x, n, 1 - x, lambda k, p, q, v: (((2 * (k - 1)) + (1 - v)) * q - (k - 1) * p) / k)
    return _select(x, n, [(n < 0, np.zeros_like(x)), (np.abs(x) == 0, np.ones_like(x)), (n == 0, np.ones_like(x)),
                          (n == 1, 1 - x)], recurrence)  # fmt: skip


def legendre_p(x: ndarray, n: ndarray) -> ndarray:
    one = np.ones_like(x)
    with np.errstate(all="ignore"):
        recurrence = _recurrence(x, n, x, lambda k, p, q, v: ((2 * k - 1) * v * q - (k - 1) * p) / k)
    return _select(x, n, [(n < 0, np.zeros_like(x)),
                          ((np.abs(x) == 1) & ((x > 0) | _even(n)), one), (np.abs(x) == 1, -one),
                          (n == 0, one), (n == 1, x)], recurrence)  # fmt: skip
