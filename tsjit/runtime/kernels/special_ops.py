"""The special-function operators (`torch.special`, lgamma, digamma, polygamma, erfinv,
i0, igamma, mvlgamma, ...), as tables over the float64 implementations of `special`,
`bessel` and `orthogonal_polynomials`.

Integral and bool inputs compute in the default float dtype, as PyTorch does; float32
computes in float64 and rounds once (PyTorch's single-precision kernels round at each
step, so results agree within float32's tolerance). Each unary operator also gets its
in-place form where PyTorch has one. Aliases (`special_psi`, `special_gammaln`, ...) are
decompositions in the frontend's library, not kernels.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from tsjit.dialects.schema import schemas_for
from tsjit.runtime.errors import TorchScriptError
from tsjit.runtime.kernels import bessel, kernel, register_kernel
from tsjit.runtime.kernels import orthogonal_polynomials as polynomials
from tsjit.runtime.kernels import special
from tsjit.runtime.kernels.common import as_tensor, assign, broadcast_error
from tsjit.runtime.kernels.promotion import float_dtype, result_type
from tsjit.runtime.kernels.unary import FLOAT, unary, unary_inplace
from tsjit.runtime.values import dtype_name

ndarray = np.ndarray
Unary = Callable[[ndarray], ndarray]


def _entr(x: ndarray) -> ndarray:
    """-x log(x): 0 at 0, -inf below (NaN stays NaN)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(x > 0, -x * np.log(x), np.where(x == 0, 0.0, np.where(x < 0, -np.inf, x)))


UNARY: dict[str, tuple[Unary, bool]] = {
    "lgamma": (special.lgamma, True),
    "digamma": (special.digamma, True),
    "erfinv": (special.erfinv, True),
    "i0": (special.i0, True),
    "special_i0e": (special.i0e, False),
    "special_i1": (special.i1, False),
    "special_i1e": (special.i1e, False),
    "special_ndtr": (special.ndtr, False),
    "special_ndtri": (special.ndtri, False),
    "special_log_ndtr": (special.log_ndtr, False),
    "special_erfcx": (special.erfcx, False),
    "special_entr": (_entr, False),
    "special_airy_ai": (bessel.airy_ai, False),
    "special_bessel_j0": (bessel.j0, False),
    "special_bessel_j1": (bessel.j1, False),
    "special_bessel_y0": (bessel.y0, False),
    "special_bessel_y1": (bessel.y1, False),
    "special_spherical_bessel_j0": (bessel.spherical_j0, False),
    "special_modified_bessel_i0": (special.i0, False),
    "special_modified_bessel_i1": (special.i1, False),
    "special_modified_bessel_k0": (special.k0, False),
    "special_modified_bessel_k1": (special.k1, False),
    "special_scaled_modified_bessel_k0": (special.k0e, False),
    "special_scaled_modified_bessel_k1": (special.k1e, False),
}
"""name -> (float64 implementation, whether PyTorch has the in-place `name_`)."""


def in_float64(fn: Unary) -> Unary:
    """A float64 implementation applied to a float tensor, rounded to its dtype once."""

    def run(x: ndarray) -> ndarray:
        if x.dtype.kind not in "f":
            raise TorchScriptError(f"{dtype_name(x.dtype)} inputs are not supported by this special function")
        with np.errstate(all="ignore"):
            return fn(x.astype(np.float64)).astype(x.dtype, copy=False)

    return run


for _name, (_fn, _inplace) in UNARY.items():
    register_kernel(f"aten::{_name}", unary(in_float64(_fn), FLOAT, _name))
    if _inplace:
        register_kernel(f"aten::{_name}_", unary_inplace(in_float64(_fn), FLOAT, _name))


# --------------------------------------------------------------------------------------
# Two operands: the result dtype of both, floating
# --------------------------------------------------------------------------------------


def _float_operands(a: object, b: object, op: str, integral_ok: bool = True) -> tuple[ndarray, ndarray, np.dtype]:
    dtype = result_type(a, b)
    if dtype.kind not in "f":
        if not integral_ok or dtype.kind == "c":
            raise TorchScriptError(f'"{op}_cpu" not implemented for \'{dtype_name(dtype)}\'')
        dtype = float_dtype(dtype)
    x, y = np.asarray(a), np.asarray(b)
    try:
        np.broadcast_shapes(x.shape, y.shape)
    except ValueError:
        raise broadcast_error(x, y) from None
    return x, y, dtype


def binary_float64(fn: Callable[[ndarray, ndarray], ndarray], op: str, integral_ok: bool = True) -> Callable[..., ndarray]:
    """A kernel computing `fn` in float64 on both operands (tensors or Python scalars)."""

    def run(a: object, b: object) -> ndarray:
        x, y, dtype = _float_operands(a, b, op, integral_ok)
        with np.errstate(all="ignore"):
            return as_tensor(np.asarray(fn(x.astype(np.float64), y.astype(np.float64))).astype(dtype))

    return run


def _xlog1py(x: ndarray, y: ndarray) -> ndarray:
    """x * log1p(y), 0 where x is 0 unless y is NaN."""
    return np.where(np.isnan(y), np.nan, np.where(x == 0, 0.0, x * np.log1p(y)))


def _xlogy(x: ndarray, y: ndarray) -> ndarray:
    """x * log(y), 0 where x is 0 unless y is NaN."""
    return np.where(np.isnan(y), np.nan, np.where(x == 0, 0.0, x * np.log(y)))


_BINARY = {
    "special_zeta": (special.zeta, "zeta", True),
    "special_xlogy": (_xlogy, "xlogy", True),
    "special_xlog1py": (_xlog1py, "xlog1py", True),
    "igamma": (special.igamma, "igamma", False),
    "igammac": (special.igammac, "igammac", False),
}
def _overloads(name: str) -> list[str]:
    """Every overload of an operator but its `out=` ones (a Tensor/Scalar family)."""
    return [s.qualified_name for s in schemas_for(f"aten::{name}") if "out" not in s.overload_name.lower()]


for _name, (_fn, _op, _integral_ok) in _BINARY.items():
    _kernel = binary_float64(_fn, _op, _integral_ok)
    for _overload in _overloads(_name):
        register_kernel(_overload, _kernel)
for _overload in _overloads("xlogy"):
    register_kernel(_overload, binary_float64(_xlogy, "xlogy"))


def _polynomial(fn: Callable[[ndarray, ndarray], ndarray], name: str) -> Callable[..., ndarray]:
    """A kernel of an orthogonal polynomial P_n(x): computed in the result's dtype, the
    degree truncated to an integer (NaN and infinite degrees count as negative)."""

    def run(x: object, n: object) -> ndarray:
        xs, ns, dtype = _float_operands(x, n, name)
        values = xs.astype(dtype)
        degrees = ns.astype(np.float64)
        finite = np.isfinite(degrees)
        order = np.where(finite, np.trunc(np.where(finite, degrees, 0)), -1).astype(np.int64)
        values, order = np.broadcast_arrays(values, order)
        return as_tensor(fn(values.copy(), order).astype(dtype, copy=False))

    return run


def _hermite(fn: Callable[[ndarray, ndarray, int], ndarray]) -> Callable[[ndarray, ndarray], ndarray]:
    # PyTorch returns NaN beyond a degree where the recurrence would overflow
    return lambda x, n: fn(x, n, 128 if x.dtype == np.float32 else 512)


_POLYNOMIALS: dict[str, Callable[[ndarray, ndarray], ndarray]] = {
    "special_chebyshev_polynomial_t": polynomials.chebyshev("t"),
    "special_chebyshev_polynomial_u": polynomials.chebyshev("u"),
    "special_chebyshev_polynomial_v": polynomials.chebyshev("v"),
    "special_chebyshev_polynomial_w": polynomials.chebyshev("w"),
    "special_shifted_chebyshev_polynomial_t": polynomials.chebyshev("t", shifted=True),
    "special_shifted_chebyshev_polynomial_u": polynomials.chebyshev("u", shifted=True),
    "special_shifted_chebyshev_polynomial_v": polynomials.chebyshev("v", shifted=True),
    "special_shifted_chebyshev_polynomial_w": polynomials.chebyshev("w", shifted=True),
    "special_hermite_polynomial_h": _hermite(polynomials.hermite_h),
    "special_hermite_polynomial_he": _hermite(polynomials.hermite_he),
    "special_laguerre_polynomial_l": polynomials.laguerre_l,
    "special_legendre_polynomial_p": polynomials.legendre_p,
}
for _name, _fn in _POLYNOMIALS.items():
    _kernel = _polynomial(_fn, _name)
    for _overload in _overloads(_name):
        register_kernel(_overload, _kernel)


# --------------------------------------------------------------------------------------
# Integer parameters: polygamma's order, mvlgamma's dimension
# --------------------------------------------------------------------------------------


def _floating_input(self: ndarray) -> ndarray:
    return self.astype(float_dtype(self.dtype), copy=False)


@kernel("aten::polygamma", "aten::special_polygamma")
def polygamma(n: int, self: ndarray) -> ndarray:
    if n < 0:
        raise TorchScriptError("polygamma(n, x) does not support negative n.")
    x = _floating_input(self)
    with np.errstate(all="ignore"):
        if n == 1:  # trigamma rounds as PyTorch's, in x's dtype
            return as_tensor(special.trigamma(x).astype(x.dtype, copy=False))
        return as_tensor(special.polygamma(n, x.astype(np.float64)).astype(x.dtype))


@kernel("aten::polygamma_")
def polygamma_(self: ndarray, n: int) -> ndarray:
    return assign(self, polygamma(n, self))


@kernel("aten::mvlgamma", "aten::special_multigammaln")
def mvlgamma(self: ndarray, p: int) -> ndarray:
    if p < 1:
        raise TorchScriptError("p has to be greater than or equal to 1")
    x = _floating_input(self)
    if np.any(x <= (p - 1) / 2):
        raise TorchScriptError("All elements must be greater than (p-1)/2")
    with np.errstate(all="ignore"):
        return as_tensor(special.multigammaln(x.astype(np.float64), p).astype(x.dtype))


@kernel("aten::mvlgamma_")
def mvlgamma_(self: ndarray, p: int) -> ndarray:
    return assign(self, mvlgamma(self, p))
