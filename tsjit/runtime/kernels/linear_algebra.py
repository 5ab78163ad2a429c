"""`torch.linalg` and its older spellings: determinants, inverses and solves, the
Cholesky, LU, QR, eigen- and singular value factorizations, least squares, rank and
pseudo-inverse, matrix norms and the condition number, the matrix exponential,
Householder products.

Every operator works on batches of matrices (`(..., m, n)`). numpy's LAPACK routines
are the ones PyTorch calls on the CPU (getrf, potrf, geqrf, gesdd, geev, syevd), so
results agree to rounding. What numpy lacks is written here, vectorized over the batch
with one Python step per row or column: the LU factorization with its pivots and info
codes (getrf), triangular solves (trsm, which divide by a zero pivot instead of
refusing), Householder products (orgqr/ormqr), and the matrix exponential.

Inputs must be floating or complex, as in PyTorch; a singular matrix is the error
PyTorch reports unless an `_ex` variant asks for the info code instead.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tsjit.runtime.errors import TorchScriptError
from tsjit.runtime.kernels import kernel
from tsjit.runtime.kernels.common import as_tensor, broadcast_error, wrap_dim, wrap_dims
from tsjit.runtime.kernels.linalg import _scaled_sum, outer
from tsjit.runtime.values import dtype_name

ndarray = np.ndarray
INFO = np.dtype(np.int32)

# --------------------------------------------------------------------------------------
# Checks
# --------------------------------------------------------------------------------------


def _matrices(A: ndarray, op: str, square: bool = True, name: str = "A") -> None:
    """PyTorch's checks of a batch of matrices: floating or complex, at least 2-D, square."""
    if A.ndim < 2:
        raise TorchScriptError(f"{op}: The input tensor {name} must have at least 2 dimensions.")
    if A.dtype.kind not in "fc":
        raise TorchScriptError(f"{op}: Expected a floating point or complex tensor as input. Got {dtype_name(A.dtype)}")
    if square and A.shape[-1] != A.shape[-2]:
        raise TorchScriptError(
            f"{op}: {name} must be batches of square matrices, but they are {A.shape[-2]} by {A.shape[-1]} matrices"
        )


def _same_dtype(A: ndarray, B: ndarray, op: str) -> None:
    if A.dtype != B.dtype:
        raise TorchScriptError(
            f"{op}: Expected A and B to have the same dtype, but found A of type {dtype_name(A.dtype)} and B of type "
            f"{dtype_name(B.dtype)} instead"
        )


def _mT(x: ndarray) -> ndarray:
    return np.swapaxes(x, -1, -2)


def _mH(x: ndarray) -> ndarray:
    return np.conj(_mT(x)) if x.dtype.kind == "c" else _mT(x)


def _batch_shape(*shapes: Sequence[int]) -> tuple[int, ...]:
    try:
        return np.broadcast_shapes(*(tuple(s) for s in shapes))
    except ValueError:
        raise TorchScriptError(f"Incompatible matrix batch shapes {[list(s) for s in shapes]}") from None


def _eps(dtype: np.dtype) -> float:
    return float(np.finfo(dtype).eps)


def _real_dtype(dtype: np.dtype) -> np.dtype:
    return np.empty(0, dtype).real.dtype


# --------------------------------------------------------------------------------------
# LU factorization (getrf) and triangular solves (trsm)
# --------------------------------------------------------------------------------------


def lu_factor(A: ndarray, pivot: bool = True) -> tuple[ndarray, ndarray, ndarray]:
    """LAPACK's getrf on each matrix: L (unit diagonal, below) and U packed in one
    matrix, the 1-based row interchanges, and info (k when U[k-1, k-1] is exactly 0)."""
    m, n = A.shape[-2:]
    k = min(m, n)
    batch = A.shape[:-2]
    lu = A.reshape(-1, m, n).copy()
    count = lu.shape[0]
    pivots = np.tile(np.arange(1, k + 1, dtype=INFO), (count, 1))
    info = np.zeros(count, dtype=INFO)
    every = np.arange(count)
    for j in range(k):
        if pivot:
            column = lu[:, j:, j]
            magnitude = np.abs(column.real) + np.abs(column.imag) if lu.dtype.kind == "c" else np.abs(column)
            rows = j + np.argmax(magnitude, axis=1)
            pivots[:, j] = rows + 1
            swapped = lu[every, rows].copy()
            lu[every, rows] = lu[:, j]
            lu[:, j] = swapped
        diagonal = lu[:, j, j]
        singular = diagonal == 0
        info[(info == 0) & singular] = j + 1
        below = lu[:, j + 1 :, j]
        lu[:, j + 1 :, j] = np.where(singular[:, None], below, below / np.where(singular, 1, diagonal)[:, None])
        lu[:, j + 1 :, j + 1 :] -= lu[:, j + 1 :, j : j + 1] * lu[:, j : j + 1, j + 1 :]
    return lu.reshape(A.shape), pivots.reshape((*batch, k)), info.reshape(batch)


def permutation(pivots: ndarray, m: int) -> ndarray:
    """The row order `pivots` (1-based interchanges, applied in order) makes: P @ A's rows."""
    batch = pivots.shape[:-1]
    flat = pivots.reshape(-1, pivots.shape[-1]).astype(np.int64) - 1
    order = np.tile(np.arange(m), (flat.shape[0], 1))
    every = np.arange(flat.shape[0])
    for j in range(flat.shape[1]):
        target = flat[:, j]
        if np.any((target < 0) | (target >= m)):
            raise TorchScriptError("lu_unpack: pivots must be between 1 and the number of rows")
        current = order[:, j].copy()
        order[:, j] = order[every, target]
        order[every, target] = current
    return order.reshape((*batch, m))


def solve_triangular(T: ndarray, B: ndarray, upper: bool, unit: bool = False) -> ndarray:
    """Solves T X = B by substitution, row by row (trsm: a zero diagonal gives inf/nan)."""
    n = T.shape[-1]
    batch = _batch_shape(T.shape[:-2], B.shape[:-2])
    dtype = np.result_type(T.dtype, B.dtype)
    X = np.zeros((*batch, n, B.shape[-1]), dtype=dtype)
    B = np.broadcast_to(B, (*batch, *B.shape[-2:]))
    order = range(n - 1, -1, -1) if upper else range(n)
    for i in order:
        known = slice(i + 1, n) if upper else slice(0, i)
        row = B[..., i, :] - (T[..., i : i + 1, known] @ X[..., known, :])[..., 0, :]
        X[..., i, :] = row if unit else row / T[..., i, i][..., None]
    return X


def _triangle(A: ndarray, upper: bool, unit: bool) -> ndarray:
    T = np.triu(A) if upper else np.tril(A)
    if unit:
        T = T.copy()
        np.einsum("...ii->...i", T)[...] = 1
    return T


def _lu_solve(LU: ndarray, pivots: ndarray, B: ndarray, left: bool = True, adjoint: bool = False) -> ndarray:
    """Solves A X = B (or X A = B, or with A's adjoint) from A's LU factorization."""
    n = LU.shape[-1]
    if not left:  # X A = B  <=>  A^H X^H = B^H
        return _mH(_lu_solve(LU, pivots, _mH(B), True, not adjoint))
    L = _triangle(LU, False, True)
    U = np.triu(LU)
    order = permutation(pivots, n)
    if adjoint:  # A = P^T L U, A^H X = B: U^H L^H (P X) = B
        Y = solve_triangular(_mH(U), B, upper=False)
        Z = solve_triangular(_mH(L), Y, upper=True, unit=True)
        inverse = np.argsort(order, axis=-1)
        return np.take_along_axis(Z, _expand_rows(inverse, Z), axis=-2)
    rows = np.take_along_axis(np.broadcast_to(B, (*_batch_shape(order.shape[:-1], B.shape[:-2]), *B.shape[-2:])),
                              _expand_rows(order, B), axis=-2)  # fmt: skip
    return solve_triangular(U, solve_triangular(L, rows, upper=False, unit=True), upper=True)


def _expand_rows(order: ndarray, like: ndarray) -> ndarray:
    batch = _batch_shape(order.shape[:-1], like.shape[:-2])
    return np.broadcast_to(order[..., :, None], (*batch, order.shape[-1], like.shape[-1]))


@kernel("aten::linalg_lu_factor_ex")
def linalg_lu_factor_ex(A: ndarray, pivot: bool = True, check_errors: bool = False) -> tuple[ndarray, ...]:
    _matrices(A, "torch.lu_factor", square=False)
    if not pivot:
        raise TorchScriptError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")
    LU, pivots, info = lu_factor(A)
    if check_errors and np.any(info > 0):
        raise TorchScriptError(f"torch.linalg.lu_factor_ex: U[{info.max()},{info.max()}] is zero and using it on "
                               "lu_solve would result in a division by zero.")  # fmt: skip
    return LU, pivots, as_tensor(info)


@kernel("aten::linalg_lu_factor")
def linalg_lu_factor(A: ndarray, pivot: bool = True) -> tuple[ndarray, ndarray]:
    LU, pivots, _ = linalg_lu_factor_ex(A, pivot)
    return LU, pivots


@kernel("aten::_lu_with_info")
def lu_with_info(self: ndarray, pivot: bool = True, check_errors: bool = True) -> tuple[ndarray, ...]:
    return linalg_lu_factor_ex(self, pivot, check_errors)


@kernel("aten::lu_unpack")
def lu_unpack(LU_data: ndarray, LU_pivots: ndarray, unpack_data: bool = True,
              unpack_pivots: bool = True) -> tuple[ndarray, ndarray, ndarray]:  # fmt: skip
    if LU_pivots.dtype != INFO:
        raise TorchScriptError(
            "torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of torch.int32 dtype. Note: this "
            "function is intended to be used with the output produced by torch.linalg.lu_factor"
        )
    m, n = LU_data.shape[-2:]
    k = min(m, n)
    empty = np.empty(0, dtype=LU_data.dtype)
    if unpack_data:
        L = _triangle(LU_data[..., :, :k], False, True)
        U = np.triu(LU_data[..., :k, :])
    else:
        L = U = empty
    if unpack_pivots:
        order = permutation(LU_pivots, m)
        # P such that A = P L U: column j of P is the unit vector of row order[j]
        P = np.zeros((*order.shape[:-1], m, m), dtype=LU_data.dtype)
        np.put_along_axis(P, order[..., None, :], 1, axis=-2)
    else:
        P = empty
    return P, L, U


@kernel("aten::linalg_lu")
def linalg_lu(A: ndarray, pivot: bool = True) -> tuple[ndarray, ndarray, ndarray]:
    _matrices(A, "linalg.lu", square=False)
    LU, pivots = linalg_lu_factor(A, pivot)
    return lu_unpack(LU, pivots)


@kernel("aten::linalg_lu_solve")
def linalg_lu_solve(LU: ndarray, pivots: ndarray, B: ndarray, left: bool = True, adjoint: bool = False) -> ndarray:
    _matrices(LU, "linalg.lu_solve", name="LU")
    if B.ndim < 2:
        raise TorchScriptError("linalg.lu_solve: The input tensor B must have at least 2 dimensions.")
    _same_dtype(LU, B, "linalg.lu_solve")
    if pivots.dtype != INFO:
        raise TorchScriptError("linalg.lu_solve: pivots should be a Tensor of scalar type torch.int32")
    rows = B.shape[-2] if left else B.shape[-1]
    if rows != LU.shape[-1]:
        raise TorchScriptError(
            f"linalg.lu_solve: Incompatible shapes of A and B for the equation {'AX = B' if left else 'XA = B'} "
            f"({LU.shape[-2]}x{LU.shape[-1]} and {B.shape[-2]}x{B.shape[-1]})"
        )
    return _lu_solve(LU, pivots, B, left, adjoint)


@kernel("aten::lu_solve")
def lu_solve(self: ndarray, LU_data: ndarray, LU_pivots: ndarray) -> ndarray:
    return linalg_lu_solve(LU_data, LU_pivots, self)


@kernel("aten::linalg_solve_triangular")
def linalg_solve_triangular(self: ndarray, B: ndarray, upper: bool, left: bool = True,
                            unitriangular: bool = False) -> ndarray:  # fmt: skip
    _matrices(self, "linalg.solve_triangular", name="A")
    _same_dtype(self, B, "linalg.solve_triangular")
    if left:
        return solve_triangular(_triangle(self, upper, unitriangular), B, upper, unitriangular)
    # X A = B  <=>  A^T X^T = B^T, and A^T's triangle is the other one
    return _mT(solve_triangular(_mT(_triangle(self, upper, unitriangular)), _mT(B), not upper, unitriangular))


@kernel("aten::triangular_solve")
def triangular_solve(self: ndarray, A: ndarray, upper: bool = True, transpose: bool = False,
                     unitriangular: bool = False) -> tuple[ndarray, ndarray]:  # fmt: skip
    _matrices(A, "torch.triangular_solve")
    T = _triangle(A, upper, unitriangular)
    if transpose:
        T, upper = _mT(T), not upper
    solution = solve_triangular(T, self, upper, unitriangular)
    batch = _batch_shape(A.shape[:-2], self.shape[:-2])
    return solution, np.broadcast_to(A, (*batch, *A.shape[-2:])).copy()


# --------------------------------------------------------------------------------------
# Determinants, inverses, solves
# --------------------------------------------------------------------------------------


@kernel("aten::linalg_det", "aten::det")
def linalg_det(A: ndarray) -> ndarray:
    _matrices(A, "linalg.det")
    return as_tensor(np.linalg.det(A))


@kernel("aten::linalg_slogdet", "aten::slogdet")
def linalg_slogdet(A: ndarray) -> tuple[ndarray, ndarray]:
    _matrices(A, "linalg.slogdet")
    sign, logabsdet = np.linalg.slogdet(A)
    return as_tensor(sign), as_tensor(logabsdet)


def _singular_inverse(A: ndarray, op: str) -> tuple[ndarray, ndarray]:
    """The inverse through getrf and trsm, which singular matrices make inf/nan, and info."""
    LU, pivots, info = lu_factor(A)
    identity = np.broadcast_to(np.eye(A.shape[-1], dtype=A.dtype), A.shape)
    return _lu_solve(LU, pivots, identity), info


@kernel("aten::linalg_inv_ex")
def linalg_inv_ex(A: ndarray, check_errors: bool = False) -> tuple[ndarray, ndarray]:
    _matrices(A, "linalg.inv")
    try:
        return np.linalg.inv(A), np.zeros(A.shape[:-2], dtype=INFO)
    except np.linalg.LinAlgError:
        inverse, info = _singular_inverse(A, "linalg.inv")
    if check_errors:
        raise _singular_error("linalg.inv", info)
    return inverse, as_tensor(info)


def _singular_error(op: str, info: ndarray) -> TorchScriptError:
    failed = np.argwhere(info > 0)
    where = f"(Batch element {int(np.ravel_multi_index(failed[0], info.shape))}): " if info.ndim and len(failed) else ""
    element = int(info[tuple(failed[0])]) if len(failed) else 0
    return TorchScriptError(
        f"{op}: {where}The diagonal element {element} is zero, the inversion could not be completed because the "
        f"input matrix is singular."
    )


@kernel("aten::linalg_inv", "aten::inverse")
def linalg_inv(A: ndarray) -> ndarray:
    return linalg_inv_ex(A, True)[0]


def _vector_rhs(A: ndarray, B: ndarray) -> bool:
    """PyTorch's rule: B is a (batch of) vector(s) when it is 1-D, or when it has one
    dimension fewer than A and A's batch and rows as its shape."""
    return B.ndim == 1 or (B.ndim == A.ndim - 1 and B.shape == A.shape[:-1])


@kernel("aten::linalg_solve_ex")
def linalg_solve_ex(A: ndarray, B: ndarray, left: bool = True, check_errors: bool = False) -> tuple[ndarray, ndarray]:
    _matrices(A, "linalg.solve")
    _same_dtype(A, B, "linalg.solve")
    vector = _vector_rhs(A, B)
    rhs = B[..., None] if vector else B
    if not left:
        if vector:
            raise TorchScriptError("linalg.solve: Vector broadcasting of the left hand side is not supported for "
                                   "left=False. In this case linalg.solve is equivalent to B / A.squeeze(-1)")  # fmt: skip
        A, rhs = _mT(A), _mT(rhs)
    if rhs.shape[-2] != A.shape[-1]:
        raise TorchScriptError(
            f"linalg.solve: Incompatible shapes of A and B for the equation AX = B ({A.shape[-2]}x{A.shape[-1]} and "
            f"{rhs.shape[-2]}x{rhs.shape[-1]})"
        )
    batch = _batch_shape(A.shape[:-2], rhs.shape[:-2])
    try:
        X = np.linalg.solve(np.broadcast_to(A, (*batch, *A.shape[-2:])), np.broadcast_to(rhs, (*batch, *rhs.shape[-2:])))
        info = np.zeros(batch, dtype=INFO)
    except np.linalg.LinAlgError:
        LU, pivots, info = lu_factor(np.broadcast_to(A, (*batch, *A.shape[-2:])))
        if check_errors:
            raise TorchScriptError("linalg.solve: The solver failed because the input matrix is singular.") from None
        X = _lu_solve(LU, pivots, rhs)
    if not left:
        X = _mT(X)
    return (X[..., 0] if vector else X), as_tensor(info)


@kernel("aten::linalg_solve")
def linalg_solve(A: ndarray, B: ndarray, left: bool = True) -> ndarray:
    return linalg_solve_ex(A, B, left, True)[0]


@kernel("aten::_linalg_solve_ex")
def linalg_solve_ex_factors(A: ndarray, B: ndarray, left: bool = True, check_errors: bool = False) -> tuple[ndarray, ...]:
    result, info = linalg_solve_ex(A, B, left, check_errors)
    LU, pivots, _ = lu_factor(A)
    return result, LU, pivots, info


# --------------------------------------------------------------------------------------
# Cholesky
# --------------------------------------------------------------------------------------


def _cholesky(A: ndarray) -> tuple[ndarray, ndarray]:
    """potrf's lower factor column by column, and info (the order of the first leading
    minor that is not positive-definite; the factor is then only partly computed)."""
    n = A.shape[-1]
    batch = A.shape[:-2]
    L = np.tril(A).reshape(-1, n, n).copy()
    info = np.zeros(L.shape[0], dtype=INFO)
    for j in range(n):
        pivot = (L[:, j, j] - np.einsum("bk,bk->b", L[:, j, :j], np.conj(L[:, j, :j]))).real
        failed = (info == 0) & ~(pivot > 0)
        info[failed] = j + 1
        ok = info == 0
        root = np.sqrt(np.where(ok, pivot, 1))
        L[ok, j, j] = root[ok]
        below = L[:, j + 1 :, j] - np.einsum("bik,bk->bi", L[:, j + 1 :, :j], np.conj(L[:, j, :j]))
        L[ok, j + 1 :, j] = (below / root[:, None])[ok]
    return L.reshape(A.shape), info.reshape(batch)


@kernel("aten::linalg_cholesky_ex")
def linalg_cholesky_ex(self: ndarray, upper: bool = False, check_errors: bool = False) -> tuple[ndarray, ndarray]:
    _matrices(self, "linalg.cholesky")
    try:
        L, info = np.linalg.cholesky(self), np.zeros(self.shape[:-2], dtype=INFO)
    except np.linalg.LinAlgError:
        L, info = _cholesky(self)
        if check_errors:
            order = int(info[info > 0].flat[0])
            raise TorchScriptError(
                f"linalg.cholesky: The factorization could not be completed because the input is not "
                f"positive-definite (the leading minor of order {order} is not positive-definite)."
            ) from None
    return (_mH(L).copy() if upper else L), as_tensor(info)


@kernel("aten::linalg_cholesky")
def linalg_cholesky(self: ndarray, upper: bool = False) -> ndarray:
    return linalg_cholesky_ex(self, upper, True)[0]


@kernel("aten::cholesky")
def cholesky(self: ndarray, upper: bool = False) -> ndarray:
    return linalg_cholesky(self, upper)


def _from_cholesky(factor: ndarray, upper: bool) -> ndarray:
    """The lower factor L (A = L L^H) from either triangle's factor."""
    return _mH(np.triu(factor)) if upper else np.tril(factor)


@kernel("aten::cholesky_solve")
def cholesky_solve(self: ndarray, input2: ndarray, upper: bool = False) -> ndarray:
    _matrices(input2, "cholesky_solve", name="A")
    if self.ndim < 2:
        raise TorchScriptError(f"b should have at least 2 dimensions, but has {self.ndim} dimensions instead")
    if self.dtype != input2.dtype:
        raise TorchScriptError(
            f"Expected b and A to have the same dtype, but found b of type {dtype_name(self.dtype)} and A of type "
            f"{dtype_name(input2.dtype)} instead."
        )
    L = _from_cholesky(input2, upper)
    return solve_triangular(_mH(L), solve_triangular(L, self, upper=False), upper=True)


@kernel("aten::cholesky_inverse")
def cholesky_inverse(self: ndarray, upper: bool = False) -> ndarray:
    _matrices(self, "cholesky_inverse", name="input")
    identity = np.broadcast_to(np.eye(self.shape[-1], dtype=self.dtype), self.shape)
    return cholesky_solve(identity, self, upper)


# --------------------------------------------------------------------------------------
# LDL^T with Bunch-Kaufman pivoting (sytrf/sytrs, lower)
# --------------------------------------------------------------------------------------
#
# The pivot choices depend on each matrix's values and a 2x2 pivot advances two columns,
# so the batch runs matrix by matrix; each column step is vectorized.

_BUNCH_KAUFMAN_ALPHA = (1 + np.sqrt(17.0)) / 8


def _sytf2(A: ndarray) -> tuple[ndarray, ndarray, int]:
    """LAPACK's unblocked sytf2 (lower) on one symmetric matrix: L and D packed in the
    lower triangle, the 1-based pivots (negative for 2x2 blocks), info."""
    a = np.tril(A).copy()
    a = a + np.tril(a, -1).T  # work on the full symmetric matrix; the lower triangle is the result
    n = a.shape[0]
    ipiv = np.zeros(n, dtype=INFO)
    info = 0
    k = 0
    while k < n:
        step = 1
        absakk = abs(a[k, k])
        if k < n - 1:
            imax = k + 1 + int(np.argmax(np.abs(a[k + 1 :, k])))
            colmax = abs(a[imax, k])
        else:
            imax, colmax = k, 0.0
        if max(absakk, colmax) == 0 or np.isnan(absakk):
            info = info or k + 1
            kp = k
        else:
            if absakk >= _BUNCH_KAUFMAN_ALPHA * colmax:
                kp = k
            else:
                rowmax = np.abs(a[imax, k:imax]).max()
                if imax < n - 1:
                    rowmax = max(rowmax, np.abs(a[imax + 1 :, imax]).max())
                if absakk >= _BUNCH_KAUFMAN_ALPHA * colmax * (colmax / rowmax):
                    kp = k
                elif abs(a[imax, imax]) >= _BUNCH_KAUFMAN_ALPHA * rowmax:
                    kp = imax
                else:
                    kp, step = imax, 2
            kk = k + step - 1
            if kp != kk:  # symmetric interchange of kk and kp in the trailing submatrix only
                a[[kk, kp], k:] = a[[kp, kk], k:]
                a[k:, [kk, kp]] = a[k:, [kp, kk]]
            if step == 1:
                if k < n - 1:
                    column = a[k + 1 :, k] / a[k, k]
                    a[k + 1 :, k + 1 :] -= np.outer(column, a[k + 1 :, k])
                    a[k + 1 :, k] = column
                    a[k, k + 1 :] = column
            elif k < n - 2:
                d21 = a[k + 1, k]
                d11 = a[k + 1, k + 1] / d21
                d22 = a[k, k] / d21
                t = 1 / (d11 * d22 - 1)
                d21 = t / d21
                wk = d21 * (d11 * a[k + 2 :, k] - a[k + 2 :, k + 1])
                wkp1 = d21 * (d22 * a[k + 2 :, k + 1] - a[k + 2 :, k])
                a[k + 2 :, k + 2 :] -= np.outer(a[k + 2 :, k], wk) + np.outer(a[k + 2 :, k + 1], wkp1)
                a[k + 2 :, k], a[k + 2 :, k + 1] = wk, wkp1
                a[k, k + 2 :], a[k + 1, k + 2 :] = wk, wkp1
        if step == 1:
            ipiv[k] = kp + 1
        else:
            ipiv[k] = ipiv[k + 1] = -(kp + 1)
        k += step
    return np.tril(a), ipiv, info


def _sytrs(LD: ndarray, ipiv: ndarray, B: ndarray) -> ndarray:
    """LAPACK's sytrs (lower): solves A X = B from sytf2's factors of A."""
    n = LD.shape[0]
    x = B.astype(np.result_type(LD.dtype, B.dtype)).copy()
    k = 0
    while k < n:  # L D Y = P^T B
        if ipiv[k] > 0:
            kp = ipiv[k] - 1
            x[[k, kp]] = x[[kp, k]]
            x[k + 1 :] -= np.outer(LD[k + 1 :, k], x[k])
            x[k] /= LD[k, k]
            k += 1
        else:
            kp = -ipiv[k] - 1
            x[[k + 1, kp]] = x[[kp, k + 1]]
            x[k + 2 :] -= np.outer(LD[k + 2 :, k], x[k]) + np.outer(LD[k + 2 :, k + 1], x[k + 1])
            akm1k = LD[k + 1, k]
            akm1, ak = LD[k, k] / akm1k, LD[k + 1, k + 1] / akm1k
            denom = akm1 * ak - 1
            bkm1, bk = x[k] / akm1k, x[k + 1] / akm1k
            x[k], x[k + 1] = (ak * bkm1 - bk) / denom, (akm1 * bk - bkm1) / denom
            k += 2
    k = n - 1
    while k >= 0:  # L^T P X = Y
        if ipiv[k] > 0:
            x[k] -= LD[k + 1 :, k] @ x[k + 1 :]
            kp = ipiv[k] - 1
            x[[k, kp]] = x[[kp, k]]
            k -= 1
        else:
            x[k] -= LD[k + 1 :, k] @ x[k + 1 :]
            x[k - 1] -= LD[k + 1 :, k - 1] @ x[k + 1 :]
            kp = -ipiv[k] - 1
            x[[k, kp]] = x[[kp, k]]
            k -= 2
    return x


def _real_symmetric(A: ndarray, hermitian: bool, op: str) -> None:
    _matrices(A, op)
    if A.dtype.kind == "c":
        raise TorchScriptError(f"{op}: complex matrices are not supported by the numpy runtime")


@kernel("aten::linalg_ldl_factor_ex")
def linalg_ldl_factor_ex(self: ndarray, hermitian: bool = False, check_errors: bool = False) -> tuple[ndarray, ...]:
    _real_symmetric(self, hermitian, "torch.linalg.ldl_factor_ex")
    n = self.shape[-1]
    matrices = self.reshape(int(np.prod(self.shape[:-2])), n, n)
    factors = [_sytf2(m) for m in matrices]
    LD = np.stack([f[0] for f in factors]).reshape(self.shape) if factors else self.copy()
    pivots = np.stack([f[1] for f in factors]).reshape(*self.shape[:-1]) if factors else np.zeros(self.shape[:-1], INFO)
    info = np.array([f[2] for f in factors], dtype=INFO).reshape(self.shape[:-2])
    if check_errors and np.any(info > 0):
        raise TorchScriptError(f"torch.linalg.ldl_factor_ex: The factorization could not be completed because the "
                               f"input is not invertible (the diagonal element {int(info.max())} is zero)")  # fmt: skip
    return LD, pivots, as_tensor(info)


@kernel("aten::linalg_ldl_factor")
def linalg_ldl_factor(self: ndarray, hermitian: bool = False) -> tuple[ndarray, ndarray]:
    LD, pivots, _ = linalg_ldl_factor_ex(self, hermitian, True)
    return LD, pivots


@kernel("aten::linalg_ldl_solve")
def linalg_ldl_solve(LD: ndarray, pivots: ndarray, B: ndarray, hermitian: bool = False) -> ndarray:
    _real_symmetric(LD, hermitian, "torch.linalg.ldl_solve")
    if B.ndim < 2:
        raise TorchScriptError("torch.linalg.ldl_solve: The input tensor B must have at least 2 dimensions.")
    if pivots.dtype != INFO:
        raise TorchScriptError("torch.linalg.ldl_solve: Expected pivots to be integers. Got Long")
    _same_dtype(LD, B, "torch.linalg.ldl_solve")
    n = LD.shape[-1]
    batch = _batch_shape(LD.shape[:-2], B.shape[:-2])
    count = int(np.prod(batch))
    factors = np.broadcast_to(LD, (*batch, n, n)).reshape(count, n, n)
    order = np.broadcast_to(pivots, (*batch, n)).reshape(count, n)
    rhs = np.broadcast_to(B, (*batch, *B.shape[-2:])).reshape(count, *B.shape[-2:])
    solved = [_sytrs(f, p, b) for f, p, b in zip(factors, order, rhs)]
    return np.stack(solved).reshape(*batch, *B.shape[-2:]) if solved else np.zeros((*batch, *B.shape[-2:]), B.dtype)


# --------------------------------------------------------------------------------------
# QR and Householder products
# --------------------------------------------------------------------------------------


@kernel("aten::linalg_qr")
def linalg_qr(A: ndarray, mode: str = "reduced") -> tuple[ndarray, ndarray]:
    if mode not in ("reduced", "complete", "r"):
        raise TorchScriptError(f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), "
                               "'r', or 'complete'")  # fmt: skip
    _matrices(A, "linalg.qr", square=False)
    if mode == "r":
        return np.empty(0, dtype=A.dtype), np.linalg.qr(A, mode="r")
    Q, R = np.linalg.qr(A, mode=mode)
    return Q, R


@kernel("aten::qr")
def qr(self: ndarray, some: bool = True) -> tuple[ndarray, ndarray]:
    return linalg_qr(self, "reduced" if some else "complete")


@kernel("aten::geqrf")
def geqrf(self: ndarray) -> tuple[ndarray, ndarray]:
    _matrices(self, "geqrf", square=False, name="input")
    if 0 in self.shape:
        return self.copy(), np.zeros((*self.shape[:-2], min(self.shape[-2:])), dtype=self.dtype)
    h, tau = np.linalg.qr(self, mode="raw")  # LAPACK's geqrf output, transposed (Fortran order)
    return _mT(h).copy(), tau


def _reflectors(A: ndarray, tau: ndarray) -> tuple[ndarray, int]:
    """The Householder vectors of A's columns (unit diagonal, zero above) and their count."""
    m = A.shape[-2]
    k = tau.shape[-1]
    V = np.tril(A[..., :, :k], -1)
    V[..., np.arange(k), np.arange(k)] = 1
    return V, k


def _apply_reflectors(V: ndarray, tau: ndarray, C: ndarray, adjoint: bool, from_left: bool) -> ndarray:
    """Q C, Q^H C, C Q or C Q^H for Q = H_1 ... H_k, H_i = I - tau_i v_i v_i^H."""
    k = tau.shape[-1]
    C = C.copy()
    # Q C applies H_k first; Q^H C applies H_1^H first; C Q applies H_1 first.
    order = range(k) if adjoint == from_left else range(k - 1, -1, -1)
    for i in order:
        v = V[..., :, i : i + 1]  # (..., m, 1)
        t = tau[..., i, None, None]
        if adjoint:
            t = np.conj(t)
        if from_left:
            C = C - (t * v) @ (_mH(v) @ C)
        else:
            C = C - (C @ v) @ (t * _mH(v))
    return C


@kernel("aten::linalg_householder_product", "aten::orgqr")
def linalg_householder_product(input: ndarray, tau: ndarray) -> ndarray:
    _matrices(input, "torch.linalg.householder_product", square=False, name="input")
    m, n = input.shape[-2:]
    if m < n:
        raise TorchScriptError("torch.linalg.householder_product: input.shape[-2] must be greater than or equal to "
                               "input.shape[-1]")  # fmt: skip
    if tau.shape[-1] > n:
        raise TorchScriptError("torch.linalg.householder_product: input.shape[-1] must be greater than or equal to "
                               "tau.shape[-1]")  # fmt: skip
    if input.dtype != tau.dtype:
        raise TorchScriptError(f"torch.linalg.householder_product: tau dtype {dtype_name(tau.dtype)} does not match "
                               f"input dtype {dtype_name(input.dtype)}")  # fmt: skip
    V, _ = _reflectors(input, tau)
    identity = np.broadcast_to(np.eye(m, n, dtype=input.dtype), (*_batch_shape(input.shape[:-2], tau.shape[:-1]), m, n))
    return _apply_reflectors(V, tau, identity, adjoint=False, from_left=True)


@kernel("aten::ormqr")
def ormqr(self: ndarray, input2: ndarray, input3: ndarray, left: bool = True, transpose: bool = False) -> ndarray:
    _matrices(self, "torch.ormqr", square=False, name="input")
    if self.dtype != input2.dtype or self.dtype != input3.dtype:
        raise TorchScriptError("torch.ormqr: input, tau and other must have the same dtype")
    V, _ = _reflectors(self, input2)
    return _apply_reflectors(V, input2, input3, adjoint=transpose, from_left=left)


# --------------------------------------------------------------------------------------
# Spectral and singular value decompositions
# --------------------------------------------------------------------------------------

_COMPLEX_OF = {np.dtype(np.float32): np.dtype(np.complex64), np.dtype(np.float64): np.dtype(np.complex128)}


@kernel("aten::linalg_eig")
def linalg_eig(self: ndarray) -> tuple[ndarray, ndarray]:
    _matrices(self, "linalg.eig", name="A")
    values, vectors = np.linalg.eig(self)
    dtype = _COMPLEX_OF.get(self.dtype, self.dtype)
    return values.astype(dtype), vectors.astype(dtype)


@kernel("aten::linalg_eigvals")
def linalg_eigvals(self: ndarray) -> ndarray:
    _matrices(self, "linalg.eigvals", name="A")
    return np.linalg.eigvals(self).astype(_COMPLEX_OF.get(self.dtype, self.dtype))


def _uplo(UPLO: str, op: str) -> str:
    if UPLO not in ("L", "U"):
        raise TorchScriptError(f"{op}: Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    return UPLO


@kernel("aten::linalg_eigh")
def linalg_eigh(self: ndarray, UPLO: str = "L") -> tuple[ndarray, ndarray]:
    _matrices(self, "linalg.eigh", name="A")
    values, vectors = np.linalg.eigh(self, UPLO=_uplo(UPLO, "linalg.eigh"))
    return values, vectors


@kernel("aten::linalg_eigvalsh")
def linalg_eigvalsh(self: ndarray, UPLO: str = "L") -> ndarray:
    _matrices(self, "linalg.eigvalsh", name="A")
    return np.linalg.eigvalsh(self, UPLO=_uplo(UPLO, "linalg.eigvalsh"))


def _driver(driver: str | None) -> None:
    if driver is not None:
        raise TorchScriptError("torch.linalg.svd: keyword argument `driver=` is only supported on CUDA inputs with "
                               "cuSOLVER backend.")  # fmt: skip


@kernel("aten::linalg_svd")
def linalg_svd(A: ndarray, full_matrices: bool = True, driver: str | None = None) -> tuple[ndarray, ndarray, ndarray]:
    _matrices(A, "linalg.svd", square=False)
    _driver(driver)
    m, n = A.shape[-2:]
    if 0 in (m, n):  # numpy refuses empty matrices
        k = min(m, n)
        rows, cols = (m, n) if full_matrices else (k, k)
        U = np.broadcast_to(np.eye(m, rows, dtype=A.dtype), (*A.shape[:-2], m, rows)).copy()
        Vh = np.broadcast_to(np.eye(cols, n, dtype=A.dtype), (*A.shape[:-2], cols, n)).copy()
        return U, np.zeros((*A.shape[:-2], k), dtype=_real_dtype(A.dtype)), Vh
    U, S, Vh = np.linalg.svd(A, full_matrices=full_matrices)
    return U, S, Vh


@kernel("aten::linalg_svdvals")
def linalg_svdvals(A: ndarray, driver: str | None = None) -> ndarray:
    _matrices(A, "linalg.svdvals", square=False)
    _driver(driver)
    if 0 in A.shape[-2:]:
        return np.zeros((*A.shape[:-2], 0), dtype=_real_dtype(A.dtype))
    return np.linalg.svd(A, compute_uv=False)


@kernel("aten::svd")
def svd(self: ndarray, some: bool = True, compute_uv: bool = True) -> tuple[ndarray, ndarray, ndarray]:
    _matrices(self, "svd", square=False, name="input")
    U, S, Vh = linalg_svd(self, full_matrices=not some)
    if not compute_uv:  # PyTorch returns zero-filled U and V then
        return np.zeros_like(U), S, np.zeros_like(_mT(Vh))
    return U, S, _mH(Vh).copy()


# --------------------------------------------------------------------------------------
# Least squares, rank, pseudo-inverse
# --------------------------------------------------------------------------------------


@kernel("aten::linalg_lstsq")
def linalg_lstsq(self: ndarray, b: ndarray, rcond: float | None = None,
                 driver: str | None = None) -> tuple[ndarray, ndarray, ndarray, ndarray]:  # fmt: skip
    _matrices(self, "torch.linalg.lstsq", square=False, name="input")
    if driver not in (None, "gels", "gelsy", "gelsd", "gelss"):
        raise TorchScriptError("torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
    driver = driver or "gelsy"
    if self.dtype != b.dtype:
        raise TorchScriptError(
            f"torch.linalg.lstsq: Expected input and other to have the same dtype, but got input's dtype "
            f"{dtype_name(self.dtype)} and other's dtype {dtype_name(b.dtype)}"
        )
    vector = b.ndim == self.ndim - 1
    rhs = b[..., None] if vector else b
    m, n = self.shape[-2:]
    if rhs.shape[-2] != m:
        raise TorchScriptError(
            f"torch.linalg.lstsq: input.size(-2) should match other.size(-{1 if vector else 2})"
        )
    batch = _batch_shape(self.shape[:-2], rhs.shape[:-2])
    A = np.broadcast_to(self, (*batch, m, n))
    B = np.broadcast_to(rhs, (*batch, *rhs.shape[-2:]))
    cutoff = _eps(self.dtype) * max(m, n) if rcond is None else rcond
    real = _real_dtype(self.dtype)
    if 0 in (m, n):
        solution = np.zeros((*batch, n, B.shape[-1]), dtype=self.dtype)
        S = np.zeros((*batch, 0), dtype=real)
        rank = np.zeros(batch, dtype=np.int64)
    else:
        U, S, Vh = np.linalg.svd(A, full_matrices=False)
        keep = S > cutoff * S[..., :1]
        inverse = np.where(keep, 1 / np.where(keep, S, 1), 0)
        solution = _mH(Vh) @ (inverse[..., :, None] * (_mH(U) @ B))
        rank = keep.sum(axis=-1).astype(np.int64)
    full_rank = m > n and rank.size > 0 and bool(np.all(rank == n)) and driver != "gelsy"
    if full_rank:
        residuals = (np.abs(A @ solution - B) ** 2).sum(axis=-2).astype(real)
    else:
        residuals = np.zeros(0, dtype=real)
    if driver == "gels":
        rank = np.zeros(0, dtype=np.int64)
    singular = S if driver in ("gelsd", "gelss") else np.zeros(0, dtype=real)
    if vector:
        solution = solution[..., 0]
        residuals = residuals[..., 0] if residuals.size else residuals
    return solution, residuals, as_tensor(rank), singular


def _tolerances(S: ndarray, atol: object, rtol: object, shape: tuple[int, int], dtype: np.dtype) -> ndarray:
    """max(atol, rtol * largest singular value), with PyTorch's defaults."""
    if rtol is None:
        rtol = 0.0 if atol is not None and (type(atol) is not ndarray or atol.size) and _positive(atol) else \
            _eps(dtype) * max(shape)  # fmt: skip
    atol = 0.0 if atol is None else atol
    largest = S.max(axis=-1, keepdims=True) if S.shape[-1] else np.zeros((*S.shape[:-1], 1), dtype=S.dtype)
    return np.maximum(_column(atol), _column(rtol) * largest)


def _positive(atol: object) -> bool:
    return bool(np.all(np.asarray(atol) > 0))


def _column(x: object) -> object:
    return x[..., None] if type(x) is ndarray else x


def _singular_values(A: ndarray, hermitian: bool) -> ndarray:
    if 0 in A.shape[-2:]:
        return np.zeros((*A.shape[:-2], 0), dtype=_real_dtype(A.dtype))
    return np.abs(np.linalg.eigvalsh(A)) if hermitian else np.linalg.svd(A, compute_uv=False)


@kernel("aten::linalg_matrix_rank.atol_rtol_float", "aten::linalg_matrix_rank.atol_rtol_tensor")
def linalg_matrix_rank(self: ndarray, atol: object = None, rtol: object = None, hermitian: bool = False) -> ndarray:
    _matrices(self, "torch.linalg.matrix_rank", square=hermitian, name="input")
    S = _singular_values(self, hermitian)
    tolerance = _tolerances(S, atol, rtol, self.shape[-2:], self.dtype)
    return as_tensor((S > tolerance).sum(axis=-1).astype(np.int64))


@kernel("aten::linalg_matrix_rank", "aten::linalg_matrix_rank.tol_tensor")
def linalg_matrix_rank_tol(self: ndarray, tol: object, hermitian: bool = False) -> ndarray:
    return linalg_matrix_rank(self, tol, 0.0, hermitian)


@kernel("aten::linalg_pinv.atol_rtol_float", "aten::linalg_pinv.atol_rtol_tensor")
def linalg_pinv(self: ndarray, atol: object = None, rtol: object = None, hermitian: bool = False) -> ndarray:
    _matrices(self, "linalg.pinv", square=hermitian, name="input")
    m, n = self.shape[-2:]
    if 0 in (m, n):
        return np.zeros((*self.shape[:-2], n, m), dtype=self.dtype)
    if hermitian:
        values, vectors = np.linalg.eigh(self)
        S = np.abs(values)
        keep = S > _tolerances(S, atol, rtol, (m, n), self.dtype)
        inverse = np.where(keep, 1 / np.where(keep, values, 1), 0)
        return (vectors * inverse[..., None, :]) @ _mH(vectors)
    U, S, Vh = np.linalg.svd(self, full_matrices=False)
    keep = S > _tolerances(S, atol, rtol, (m, n), self.dtype)
    inverse = np.where(keep, 1 / np.where(keep, S, 1), 0)
    return (_mH(Vh) * inverse[..., None, :].astype(self.dtype)) @ _mH(U)


@kernel("aten::linalg_pinv", "aten::linalg_pinv.rcond_tensor")
def linalg_pinv_rcond(self: ndarray, rcond: object, hermitian: bool = False) -> ndarray:
    return linalg_pinv(self, 0.0, rcond, hermitian)


# --------------------------------------------------------------------------------------
# Norms and the condition number
# --------------------------------------------------------------------------------------


def _norm_input(self: ndarray, dtype: int | None, op: str) -> ndarray:
    from tsjit.runtime.values import numpy_dtype

    if dtype is not None:
        self = self.astype(numpy_dtype(dtype))
    if self.dtype.kind not in "fc":
        raise TorchScriptError(f"{op}: Expected a floating point or complex tensor as input. Got {dtype_name(self.dtype)}")
    return self


def matrix_norm(A: ndarray, ord: object, dims: Sequence[int], keepdim: bool) -> ndarray:
    """A matrix norm over the two dimensions `dims`: 'fro', 'nuc', 2/-2 (singular values),
    1/-1 (column sums), inf/-inf (row sums)."""
    if A.ndim < 2:
        raise TorchScriptError("linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    if len(dims) != 2:
        raise TorchScriptError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {', '.join(map(str, dims))}")
    row, col = wrap_dims(dims, A.ndim)
    if ord not in ("fro", "nuc", 2, -2, 1, -1, np.inf, -np.inf, 2.0, -2.0, 1.0, -1.0):
        raise TorchScriptError(f"linalg.matrix_norm: Order {ord} not supported.")
    real = _real_dtype(A.dtype)
    if ord == "fro":
        result = np.sqrt((np.abs(A) ** 2).sum(axis=(row, col))).astype(real)
    elif ord in ("nuc", 2, -2):
        moved = np.moveaxis(A, (row, col), (-2, -1))
        if 0 in moved.shape[-2:] and ord != "nuc":
            raise TorchScriptError("linalg.matrix_norm: The input tensor must be non-empty for order 2 and -2")
        S = _singular_values(moved, False)
        result = S.sum(axis=-1) if ord == "nuc" else (S.max(axis=-1) if ord == 2 else S.min(axis=-1))
    else:
        summed, reduced = (row, col) if abs(ord) == 1 else (col, row)
        sums = np.abs(A).sum(axis=summed, keepdims=True)
        result = (sums.max if ord > 0 else sums.min)(axis=reduced, keepdims=True)
        result = np.squeeze(result, axis=(row, col))
    if keepdim:
        result = np.expand_dims(result, tuple(sorted((row, col))))
    return as_tensor(result.astype(real, copy=False))


@kernel("aten::linalg_matrix_norm", "aten::linalg_matrix_norm.str_ord")
def linalg_matrix_norm(self: ndarray, ord: object = "fro", dim: Sequence[int] = (-2, -1), keepdim: bool = False,
                       dtype: int | None = None) -> ndarray:  # fmt: skip
    return matrix_norm(_norm_input(self, dtype, "linalg.matrix_norm"), ord, dim, keepdim)


@kernel("aten::linalg_norm", "aten::linalg_norm.ord_str")
def linalg_norm(self: ndarray, ord: object = None, dim: Sequence[int] | None = None, keepdim: bool = False,
                dtype: int | None = None) -> ndarray:  # fmt: skip
    from tsjit.runtime.kernels.reduction import linalg_vector_norm

    if dim is not None and len(dim) not in (1, 2):
        raise TorchScriptError(f"linalg.norm: If dim is specified, it must be of length 1 or 2. Got {list(dim)}")
    if ord is not None:
        if dim is None and self.ndim not in (1, 2):
            raise TorchScriptError(f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. "
                                   f"Got {self.ndim}D.")  # fmt: skip
        matrix = (dim is not None and len(dim) == 2) or (dim is None and self.ndim == 2)
        if type(ord) is str or matrix:
            return linalg_matrix_norm(self, ord, dim if dim is not None else (-2, -1), keepdim, dtype)
    return linalg_vector_norm(self, 2 if ord is None else ord, dim, keepdim, dtype)


@kernel("aten::linalg_cond", "aten::linalg_cond.p_str")
def linalg_cond(self: ndarray, p: object = None) -> ndarray:
    _matrices(self, "linalg.cond", square=p not in (None, 2, -2, 2.0, -2.0))
    if p in (None, 2, -2, 2.0, -2.0):
        S = _singular_values(self, False)
        if not S.shape[-1]:
            return np.zeros(self.shape[:-2], dtype=_real_dtype(self.dtype))
        ratio = S[..., 0] / S[..., -1] if p in (None, 2, 2.0) else S[..., -1] / S[..., 0]
        return as_tensor(ratio)
    inverse, info = linalg_inv_ex(self)
    result = matrix_norm(self, p, (-2, -1), False) * matrix_norm(inverse, p, (-2, -1), False)
    return as_tensor(np.where(info > 0, np.inf, result).astype(result.dtype))


# --------------------------------------------------------------------------------------
# Matrix exponential
# --------------------------------------------------------------------------------------
#
# PyTorch's algorithm (Bader, Blanes and Casas, "Computing the Matrix Exponential with an
# Optimized Taylor Polynomial Approximation", 2019), in the input's precision: a Taylor
# polynomial of degree 1, 2, 4, 8 or 12 by the matrix's 1-norm, else degree 18 after
# scaling by a power of two that is squared away afterwards.

_THETAS = {
    np.dtype(np.float32): (1.192092800768788e-07, 5.978858893805233e-04, 5.116619363445086e-02,
                           5.800524627688768e-01, 1.461661507209034e+00, 3.010066362817634e+00),
    np.dtype(np.float64): (2.220446049250313e-16, 2.580956802971767e-08, 3.397168839976962e-04,
                           4.991228871115323e-02, 2.996158913811580e-01, 1.090863719290036e+00),
}  # fmt: skip
_T12 = ((9.0198e-16, 0.46932117595418237389, -0.20099424927047284052, -0.04623946134063071740),
        (5.31597895759871264183, 1.19926790417132231573, 0.01179296240992997031, 0.01108844528519167989),
        (0.18188869982170434744, 0.05502798439925399070, 0.09351590770535414968, 0.00610700528898058230),
        (-2.0861320e-13, -0.13181061013830184015, -0.02027855540589259079, -0.00675951846863086359))  # fmt: skip
_T18 = ((0.0, -1.00365581030144618291e-01, -8.02924648241156932449e-03, -8.92138498045729985177e-04, 0.0),
        (0.0, 3.97849749499645077844e-01, 1.36783778460411720168e00, 4.98289622525382669416e-01,
         -6.37898194594723280150e-04),
        (-1.09676396052962061844e01, 1.68015813878906206114e00, 5.71779846478865511061e-02,
         -6.98210122488052056106e-03, 3.34975017086070470649e-05),
        (-9.04316832390810593223e-02, -6.76404519071381882256e-02, 6.75961301770459654925e-02,
         2.95552570429315521194e-02, -1.39180257516060693404e-05),
        (0.0, 0.0, -9.23364619367118555360e-02, -1.69364939002081722752e-02, -1.40086798182036094347e-05))  # fmt: skip


def _powers(A: ndarray, count: int) -> list[ndarray]:
    """I, A, A^2, A^3, A^6: the first `count`."""
    powers = [np.broadcast_to(np.eye(A.shape[-1], dtype=A.dtype), A.shape), A]
    if count > 2:
        powers.append(A @ A)
    if count > 3:
        powers.append(A @ powers[2])
    if count > 4:
        powers.append(powers[3] @ powers[3])
    return powers[:count]


def _combine(terms: Sequence[ndarray], coefficients: Sequence[float], dtype: np.dtype) -> ndarray:
    result = np.zeros_like(terms[0])
    for term, c in zip(terms, coefficients):
        result = result + dtype.type(c) * term
    return result


def _taylor(A: ndarray, degree: int) -> ndarray:
    real = _real_dtype(A.dtype)
    if degree == 1:
        identity, a = _powers(A, 2)
        return identity + a
    if degree == 2:
        identity, a, a2 = _powers(A, 3)
        return identity + a + a2 / real.type(2)
    if degree == 4:
        identity, a, a2 = _powers(A, 3)
        inner = a2 @ _combine((identity, a, a2), (1 / 2.0, 1 / 6.0, 1 / 24.0), real)
        return _combine((identity, a, a2, inner), (1.0, 1.0, 0.0, 1.0), real)
    if degree == 8:
        f = real.type
        sqrt_177 = f(0.1330413469565007072504e2)
        x3 = f(2.0 / 3.0)
        x1 = f(float(x3) * ((1.0 + float(sqrt_177)) / 88.0))
        x2 = f(float(x3) * ((1.0 + float(sqrt_177)) / 352.0))
        x4 = f((-271.0 + 29.0 * float(sqrt_177)) / (315.0 * float(x3)))
        x5 = f((-11.0 + 11.0 * float(sqrt_177)) / (1260.0 * float(x3)))
        x6 = f((-99.0 + 11.0 * float(sqrt_177)) / (5040.0 * float(x3)))
        x7 = f((89.0 - float(sqrt_177)) / (5040.0 * float(x3)))
        y2 = f((857.0 - 58.0 * float(sqrt_177)) / 630.0)
        identity, a, a2 = _powers(A, 3)
        a4 = a2 @ _combine((a, a2), (x1, x2), real)
        a8 = _combine((a2, a4), (x3, 1.0), real) @ _combine((identity, a, a2, a4), (x4, x5, x6, x7), real)
        return _combine((identity, a, a2, a4, a8), (1.0, 1.0, y2, 0.0, 1.0), real)
    if degree == 12:
        powers = _powers(A, 4)
        B = [_combine(powers, row, real) for row in _T12]
        B[2] = B[2] + B[3] @ B[3]
        return B[0] + (B[1] + B[2]) @ B[2]
    powers = _powers(A, 5)
    B = [_combine(powers, row, real) for row in _T18]
    B[3] = B[3] + B[0] @ B[4]
    return B[1] + (B[2] + B[3]) @ B[3]


@kernel("aten::linalg_matrix_exp", "aten::matrix_exp")
def linalg_matrix_exp(self: ndarray) -> ndarray:
    _matrices(self, "linalg.matrix_exp", name="input")
    n = self.shape[-1]
    if n == 1:
        return np.exp(self)
    if self.size == 0:
        return self.copy()
    real = _real_dtype(self.dtype)
    if real not in _THETAS:
        raise TorchScriptError(f"linalg.matrix_exp: {dtype_name(self.dtype)} is not supported by the numpy runtime")
    thetas = _THETAS[real]
    A = self.reshape(-1, n, n)
    norms = np.abs(A).sum(axis=-2).max(axis=-1)
    result = np.empty_like(A)
    lower = -1.0
    for degree, upper in zip((1, 2, 4, 8, 12), thetas):
        chosen = (norms > lower) & (norms <= upper)
        if chosen.any():
            result[chosen] = _taylor(A[chosen], degree)
        lower = upper
    large = norms >= thetas[4]
    if large.any():
        squarings = np.maximum(0, np.ceil(np.log2(norms[large] / real.type(thetas[5])))).astype(np.int64)
        scaled = _taylor(A[large] / (2.0 ** squarings).astype(real)[:, None, None], 18)
        for step in range(int(squarings.max())):
            scaled = np.where((squarings > step)[:, None, None], scaled @ scaled, scaled)
        result[large] = scaled
    return result.reshape(self.shape)


# --------------------------------------------------------------------------------------
# Products: cross, addr
# --------------------------------------------------------------------------------------


@kernel("aten::linalg_cross")
def linalg_cross(self: ndarray, other: ndarray, dim: int = -1) -> ndarray:
    if self.ndim != other.ndim:
        raise TorchScriptError("linalg.cross: inputs must have the same number of dimensions.")
    d = wrap_dim(dim, self.ndim)
    if self.shape[d] != 3 or other.shape[d] != 3:
        raise TorchScriptError(
            f"linalg.cross: inputs dimension {dim} must have length 3. Got {self.shape[d]} and {other.shape[d]}"
        )
    try:
        np.broadcast_shapes(self.shape, other.shape)
    except ValueError:
        raise broadcast_error(self, other) from None
    return as_tensor(np.cross(self, other, axis=d))


@kernel("aten::cross")
def cross(self: ndarray, other: ndarray, dim: int | None = None) -> ndarray:
    if dim is None:  # the deprecated default: the first dimension of size 3
        shape = np.broadcast_shapes(self.shape, other.shape) if self.ndim == other.ndim else self.shape
        dim = next((i for i, n in enumerate(shape) if n == 3), None)
        if dim is None:
            raise TorchScriptError("no dimension of size 3 in input")
    return linalg_cross(self, other, dim)


@kernel("aten::addr")
def addr(self: ndarray, vec1: ndarray, vec2: ndarray, beta: object = 1, alpha: object = 1) -> ndarray:
    if vec1.ndim != 1:
        raise TorchScriptError(f"addr: Expected 1-D argument vec1, but got {vec1.ndim}-D")
    if vec2.ndim != 1:
        raise TorchScriptError(f"addr: Expected 1-D argument vec2, but got {vec2.ndim}-D")
    product = outer(vec1, vec2)
    dtype = np.result_type(self.dtype, product.dtype)
    if dtype.kind == "b":
        try:
            shape = np.broadcast_shapes(self.shape, product.shape)
        except ValueError:
            raise broadcast_error(self, product) from None
        return np.broadcast_to((bool(beta) & self) | (bool(alpha) & product), shape).copy()
    for name, value in (("beta", beta), ("alpha", alpha)):
        if type(value) is bool:
            raise TorchScriptError(f"Boolean {name} only supported for Boolean results.")
    if dtype.kind in "iu" and (type(beta) is float or type(alpha) is float):
        name = "beta" if type(beta) is float else "alpha"
        raise TorchScriptError(f"For integral input tensors, argument {name} must not be a floating point number.")
    try:
        np.broadcast_shapes(self.shape, product.shape)
    except ValueError:
        raise broadcast_error(self, product) from None
    return _scaled_sum(self.astype(dtype, copy=False), product.astype(dtype, copy=False), beta, alpha)

