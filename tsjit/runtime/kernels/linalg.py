"""Matrix products and triangular/diagonal helpers: mm, bmm, matmul, linear, addmm, addmv,
baddbmm, dot, inner, mv, outer, tensordot, einsum, cdist, tril/triu, diag, diagonal,
diag_embed, diagflat, trace.

Products require equal dtypes, as PyTorch does (no promotion), and report shape errors
with PyTorch's wording. numpy's matmul already has PyTorch's broadcasting rules.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from tsjit.runtime.errors import TorchScriptError
from tsjit.runtime.kernels import kernel
from tsjit.runtime.kernels.common import as_tensor, assign, shape_str, shapes_error, wrap_dim
from tsjit.runtime.kernels.promotion import LONG_DTYPE
from tsjit.runtime.values import dtype_name

ndarray = np.ndarray

_CPP_TYPE_NAMES = {
    "float32": "float",
    "float64": "double",
    "float16": "c10::Half",
    "int64": "long int",
    "int32": "int",
    "int16": "short int",
    "int8": "signed char",
    "uint8": "unsigned char",
    "bool": "bool",
    "complex64": "c10::complex<float>",
    "complex128": "c10::complex<double>",
}


def _same_dtype(a: ndarray, b: ndarray) -> None:
    if a.dtype != b.dtype:
        raise TorchScriptError(
            f"expected m1 and m2 to have the same dtype, but got: {_CPP_TYPE_NAMES[a.dtype.name]} != "
            f"{_CPP_TYPE_NAMES[b.dtype.name]}"
        )


def _matrix(x: ndarray, name: str) -> None:
    if x.ndim != 2:
        raise TorchScriptError(f"{name} must be a matrix")


@kernel("aten::mm")
def mm(self: ndarray, mat2: ndarray) -> ndarray:
    _matrix(self, "self")
    _matrix(mat2, "mat2")
    if self.shape[1] != mat2.shape[0]:
        raise TorchScriptError(
            f"mat1 and mat2 shapes cannot be multiplied ({self.shape[0]}x{self.shape[1]} and "
            f"{mat2.shape[0]}x{mat2.shape[1]})"
        )
    _same_dtype(self, mat2)
    return np.matmul(self, mat2)


@kernel("aten::bmm")
def bmm(self: ndarray, mat2: ndarray) -> ndarray:
    if self.ndim != 3:
        raise TorchScriptError("batch1 must be a 3D tensor")
    if mat2.ndim != 3:
        raise TorchScriptError("batch2 must be a 3D tensor")
    expected = [self.shape[0], self.shape[2]]
    if list(mat2.shape[:2]) != expected:
        raise TorchScriptError(
            f"Expected size for first two dimensions of batch2 tensor to be: {shape_str(expected)} but got: "
            f"{shape_str(mat2.shape[:2])}."
        )
    _same_dtype(self, mat2)
    return np.matmul(self, mat2)


def _inconsistent(a: ndarray, b: ndarray) -> TorchScriptError:
    return TorchScriptError(
        f"inconsistent tensor size, expected tensor [{a.size}] and src [{b.size}] to have the same number of "
        f"elements, but got {a.size} and {b.size} elements respectively"
    )


@kernel("aten::matmul")
def matmul(self: ndarray, other: ndarray) -> ndarray:
    if self.ndim == 2 == other.ndim:  # the common case first
        if self.dtype is other.dtype and self.shape[1] == other.shape[0]:  # what mm checks, inline
            return np.matmul(self, other)
        return mm(self, other)
    if self.ndim == 0 or other.ndim == 0:
        raise TorchScriptError(
            f"both arguments to matmul need to be at least 1D, but they are {self.ndim}D and {other.ndim}D"
        )
    if self.ndim == 1 and other.ndim == 1:
        return dot(self, other)
    _same_dtype(self, other)
    try:
        return as_tensor(np.matmul(self, other))
    except ValueError:
        inner_a, inner_b = self.shape[-1], other.shape[-2] if other.ndim > 1 else other.shape[0]
        if inner_a != inner_b:
            rows = self.size // inner_a if inner_a else 0
            cols = other.shape[-1] if other.ndim > 1 else 1
            raise TorchScriptError(
                f"mat1 and mat2 shapes cannot be multiplied ({rows}x{inner_a} and {inner_b}x{cols})"
            ) from None
        raise shapes_error(self.shape[:-2], other.shape[:-2]) from None


@kernel("aten::dot", "aten::vdot")
def dot(self: ndarray, tensor: ndarray) -> ndarray:
    if self.ndim != 1 or tensor.ndim != 1:
        raise TorchScriptError(f"1D tensors expected, but got {self.ndim}D and {tensor.ndim}D tensors")
    if self.size != tensor.size:
        raise _inconsistent(self, tensor)
    if self.dtype != tensor.dtype:
        raise TorchScriptError(
            f"dot : expected both vectors to have same dtype, but found {dtype_name(self.dtype)} and "
            f"{dtype_name(tensor.dtype)}"
        )
    return as_tensor(np.dot(self, tensor))


@kernel("aten::inner")
def inner(self: ndarray, other: ndarray) -> ndarray:
    """The sum over the last dimensions of both; a 0-dim operand multiplies."""
    if self.ndim == 0 or other.ndim == 0:
        return as_tensor(self * other)
    if self.shape[-1] != other.shape[-1]:
        raise TorchScriptError(
            f"inner() the last dimension must match on both input tensors but got shapes {shape_str(self.shape)} and "
            f"{shape_str(other.shape)}"
        )
    if self.dtype != other.dtype:
        raise TorchScriptError("both inputs should have same dtype")
    return as_tensor(np.inner(self, other))


@kernel("aten::tensordot")
def tensordot(self: ndarray, other: ndarray, dims_self: Sequence[int], dims_other: Sequence[int]) -> ndarray:
    if len(dims_self) != len(dims_other):
        raise TorchScriptError("both dimension lists should have same length")
    if self.dtype != other.dtype:
        raise TorchScriptError("both inputs should have same dtype")
    a_dims = [wrap_dim(d, self.ndim) for d in dims_self]
    b_dims = [wrap_dim(d, other.ndim) for d in dims_other]
    for a, b in zip(a_dims, b_dims):
        # PyTorch contracts a size-1 dimension with any size: the other side is summed
        if self.shape[a] != other.shape[b]:
            if other.shape[b] == 1:
                self = self.sum(axis=a, keepdims=True)
            elif self.shape[a] == 1:
                other = other.sum(axis=b, keepdims=True)
            else:
                raise TorchScriptError(
                    f"contracted dimensions need to match, but first has size {self.shape[a]} in dim {a} and second "
                    f"has size {other.shape[b]} in dim {b}"
                )
    return as_tensor(np.tensordot(self, other, axes=(a_dims, b_dims)))


@kernel("aten::cdist", "aten::_cdist_forward")
def cdist(x1: ndarray, x2: ndarray, p: float = 2.0, compute_mode: int | None = None) -> ndarray:
    """p-norm distances between the rows of two batches of matrices. For p = 2 PyTorch
    computes through a matrix product when asked to (compute_mode 1) or when either
    has more than 25 rows (no mode given): |a|^2 + |b|^2 - 2 a.b, clamped at 0."""
    for name, x in (("X1", x1), ("X2", x2)):
        if x.dtype.kind != "f":
            raise TorchScriptError(f"cdist only supports floating-point dtypes, {name} got: {dtype_name(x.dtype)}")
        if x.ndim < 2:
            raise TorchScriptError(f"cdist only supports at least 2D tensors, {name} got: {x.ndim}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise TorchScriptError(f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: {x2.shape[-1]}")
    if p < 0:
        raise TorchScriptError("cdist only supports non-negative p values")
    if x1.dtype != x2.dtype:
        raise TorchScriptError(f"X1 and X2 must have the same dtype. X1: {dtype_name(x1.dtype)} X2: {dtype_name(x2.dtype)}")
    r1, r2 = x1.shape[-2], x2.shape[-2]
    by_product = p == 2 and (compute_mode == 1 or (compute_mode is None and (r1 > 25 or r2 > 25)))
    if by_product:
        norm1 = (x1 * x1).sum(-1, keepdims=True)
        norm2 = (x2 * x2).sum(-1, keepdims=True)
        left = np.concatenate([x1 * -2, norm1, np.ones_like(norm1)], axis=-1)
        right = np.concatenate([x2, np.ones_like(norm2), norm2], axis=-1)
        return np.sqrt(np.maximum(np.matmul(left, np.swapaxes(right, -1, -2)), 0)).astype(x1.dtype)
    differences = np.abs(x1[..., :, None, :] - x2[..., None, :, :])
    if p == 0:
        return (differences != 0).sum(-1).astype(x1.dtype)
    if p == math.inf:
        return differences.max(-1, initial=0).astype(x1.dtype)
    if p == 1:
        return differences.sum(-1)
    if p == 2:
        return np.sqrt((differences * differences).sum(-1))
    return as_tensor((differences**p).sum(-1) ** (1 / p)).astype(x1.dtype)


@kernel("aten::mv")
def mv(self: ndarray, vec: ndarray) -> ndarray:
    if self.ndim != 2 or vec.ndim != 1:
        raise TorchScriptError(f"vector + matrix @ vector expected, got 1, {self.ndim}, {vec.ndim}")
    if self.shape[1] != vec.shape[0]:
        raise TorchScriptError(
            f"size mismatch, got input ({self.shape[0]}), mat ({self.shape[0]}x{self.shape[1]}), vec "
            f"({vec.shape[0]})"
        )
    _same_dtype(self, vec)
    return np.matmul(self, vec)


@kernel("aten::outer", "aten::ger")
def outer(self: ndarray, vec2: ndarray) -> ndarray:
    if self.ndim != 1 or vec2.ndim != 1:
        raise TorchScriptError(f"outer: Expected 1-D argument self, but got {self.ndim}-D")
    return np.multiply.outer(self, vec2)


@kernel("aten::linear")
def linear(input: ndarray, weight: ndarray, bias: ndarray | None = None) -> ndarray:
    if (
        weight.ndim == 2
        and input.ndim
        and input.dtype is weight.dtype
        and (bias is None or bias.dtype is weight.dtype)
    ):
        try:
            if input.ndim > 2 and input.shape[-1] == weight.shape[1]:
                # one GEMM over all leading dimensions, not one per batch entry
                rows = input.reshape(-1, input.shape[-1])
                out = np.matmul(rows, weight.T).reshape(input.shape[:-1] + (weight.shape[0],))
            else:
                out = np.matmul(input, weight.T)
            return out if bias is None else np.add(out, bias, out=out)
        except ValueError:
            pass  # shape errors: reported by matmul below
    if weight.ndim == 1:
        result = matmul(input, weight)
    else:
        result = matmul(input, weight.T) if weight.ndim == 2 else matmul(input, np.swapaxes(weight, -1, -2))
    if bias is not None:
        result = as_tensor(result + bias.astype(result.dtype, copy=False))
    return result


def _scaled_sum(self: ndarray, product: ndarray, beta: object, alpha: object) -> ndarray:
    """beta * self + alpha * product; beta == 0 ignores self entirely (nan and inf included)."""
    if alpha != 1:
        product = product * product.dtype.type(alpha)
    if beta == 0:
        return as_tensor(np.broadcast_to(product, np.broadcast_shapes(self.shape, product.shape)).copy())
    scaled = self if beta == 1 else self * self.dtype.type(beta)
    return as_tensor(scaled + product)


@kernel("aten::addmm")
def addmm(self: ndarray, mat1: ndarray, mat2: ndarray, beta: object = 1, alpha: object = 1) -> ndarray:
    return _scaled_sum(self, mm(mat1, mat2), beta, alpha)


@kernel("aten::addmm_")
def addmm_(self: ndarray, mat1: ndarray, mat2: ndarray, beta: object = 1, alpha: object = 1) -> ndarray:
    return assign(self, addmm(self, mat1, mat2, beta, alpha))


@kernel("aten::addmv")
def addmv(self: ndarray, mat: ndarray, vec: ndarray, beta: object = 1, alpha: object = 1) -> ndarray:
    return _scaled_sum(self, mv(mat, vec), beta, alpha)


@kernel("aten::baddbmm")
def baddbmm(self: ndarray, batch1: ndarray, batch2: ndarray, beta: object = 1, alpha: object = 1) -> ndarray:
    return _scaled_sum(self, bmm(batch1, batch2), beta, alpha)


@kernel("aten::addbmm")
def addbmm(self: ndarray, batch1: ndarray, batch2: ndarray, beta: object = 1, alpha: object = 1) -> ndarray:
    return _scaled_sum(self, bmm(batch1, batch2).sum(axis=0), beta, alpha)


@kernel("aten::einsum")
def einsum(equation: str, tensors: Sequence[ndarray], path: Sequence[int] | None = None) -> ndarray:
    try:
        return as_tensor(np.einsum(equation, *tensors, optimize=len(tensors) > 2))
    except ValueError as exc:
        raise TorchScriptError(f"einsum(): {exc}") from None


# --------------------------------------------------------------------------------------
# Triangles and diagonals
# --------------------------------------------------------------------------------------


def _at_least_2d(x: ndarray, op: str) -> None:
    if x.ndim < 2:
        raise TorchScriptError(f"{op}: input tensor must have at least 2 dimensions")


@kernel("aten::tril")
def tril(self: ndarray, diagonal: int = 0) -> ndarray:
    _at_least_2d(self, "tril")
    return np.tril(self, diagonal)


@kernel("aten::triu")
def triu(self: ndarray, diagonal: int = 0) -> ndarray:
    _at_least_2d(self, "triu")
    return np.triu(self, diagonal)


@kernel("aten::tril_")
def tril_(self: ndarray, diagonal: int = 0) -> ndarray:
    return assign(self, tril(self, diagonal))


@kernel("aten::triu_")
def triu_(self: ndarray, diagonal: int = 0) -> ndarray:
    return assign(self, triu(self, diagonal))


@kernel("aten::diag")
def diag(self: ndarray, diagonal: int = 0) -> ndarray:
    if self.ndim not in (1, 2):
        raise TorchScriptError(f"diag(): Supports 1D or 2D tensors. Got {self.ndim}D")
    return np.diag(self, diagonal).copy()


@kernel("aten::diagonal")
def diagonal(self: ndarray, offset: int = 0, dim1: int = 0, dim2: int = 1) -> ndarray:
    """A writable view of the diagonal (numpy's own diagonal view is read-only)."""
    d1, d2 = wrap_dim(dim1, self.ndim), wrap_dim(dim2, self.ndim)
    if d1 == d2:
        raise TorchScriptError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    # Slice so that the diagonal starts at the view's first element, then stride along both dims.
    along, skip = (d2, offset) if offset >= 0 else (d1, -offset)
    start = self[(slice(None),) * along + (slice(skip, None),)]
    rest = [i for i in range(self.ndim) if i not in (d1, d2)]
    shape = tuple(self.shape[i] for i in rest) + (min(start.shape[d1], start.shape[d2]),)
    strides = tuple(self.strides[i] for i in rest) + (self.strides[d1] + self.strides[d2],)
    return np.lib.stride_tricks.as_strided(start, shape, strides, writeable=self.flags.writeable)


@kernel("aten::diag_embed")
def diag_embed(self: ndarray, offset: int = 0, dim1: int = -2, dim2: int = -1) -> ndarray:
    rank = self.ndim + 1
    d1, d2 = wrap_dim(dim1, rank), wrap_dim(dim2, rank)
    if d1 == d2:
        raise TorchScriptError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    n = (self.shape[-1] if self.ndim else 1) + abs(offset)
    rest = iter(self.shape[:-1])
    shape = tuple(n if axis in (d1, d2) else next(rest) for axis in range(rank))
    out = np.zeros(shape, dtype=self.dtype)
    diagonal(out, offset, d1, d2)[...] = self
    return out


@kernel("aten::diagflat")
def diagflat(self: ndarray, offset: int = 0) -> ndarray:
    return np.diag(self.reshape(-1), offset)


@kernel("aten::trace")
def trace(self: ndarray) -> ndarray:
    if self.ndim != 2:
        raise TorchScriptError("trace: expected a matrix, but got tensor with dim " + str(self.ndim))
    result = np.trace(self)
    return as_tensor(result.astype(LONG_DTYPE) if self.dtype.kind in "iub" else result)
