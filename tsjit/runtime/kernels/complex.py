"""Complex tensors: conjugation, real and imaginary parts, angle, construction from
parts or polar form, and the views between a complex tensor and its float pairs.

PyTorch conjugates and negates lazily (a bit on the tensor, `resolve_conj` materializes);
tsjit's tensors carry no such bits, so `conj` of a complex tensor is a copy, `conj` of a
real one is the tensor itself, and `resolve_conj`/`resolve_neg` have nothing to resolve.
"""

from __future__ import annotations

import numpy as np

from tsjit.runtime.errors import TorchScriptError
from tsjit.runtime.kernels import kernel
from tsjit.runtime.kernels.common import as_tensor, broadcast_error
from tsjit.runtime.kernels.promotion import float_dtype
from tsjit.runtime.values import dtype_name

ndarray = np.ndarray

_COMPLEX_OF = {np.dtype(np.float32): np.dtype(np.complex64), np.dtype(np.float64): np.dtype(np.complex128)}
_REAL_OF = {complex_: real for real, complex_ in _COMPLEX_OF.items()}


@kernel("aten::conj", "aten::_conj")
def conj(self: ndarray) -> ndarray:
    return np.conj(self) if self.dtype.kind == "c" else self


@kernel("aten::conj_physical")
def conj_physical(self: ndarray) -> ndarray:
    return np.conj(self) if self.dtype.kind == "c" else self.copy()


@kernel("aten::resolve_conj", "aten::resolve_neg")
def resolve(self: ndarray) -> ndarray:
    return self


@kernel("aten::is_conj", "aten::is_neg")
def is_lazy(self: ndarray) -> bool:
    return False


@kernel("aten::real")
def real(self: ndarray) -> ndarray:
    return self.real if self.dtype.kind == "c" else self


@kernel("aten::imag")
def imag(self: ndarray) -> ndarray:
    if self.dtype.kind != "c":
        raise TorchScriptError("imag is not implemented for tensors with non-complex dtypes.")
    return self.imag


@kernel("aten::isreal")
def isreal(self: ndarray) -> ndarray:
    if self.dtype.kind != "c":
        return np.ones(self.shape, dtype=bool)
    return as_tensor(self.imag == 0)


@kernel("aten::angle")
def angle(self: ndarray) -> ndarray:
    if self.dtype.kind == "c":
        return as_tensor(np.angle(self))
    dtype = float_dtype(self.dtype)
    x = self.astype(dtype, copy=False)
    # pi for negative numbers, 0 otherwise; NaN stays NaN
    return as_tensor(np.where(x < 0, dtype.type(np.pi), np.where(np.isnan(x), x, dtype.type(0))))


def _float_parts(a: ndarray, b: ndarray, op: str) -> np.dtype:
    if a.dtype.kind != "f" or b.dtype.kind != "f" or a.dtype == np.float16:
        raise TorchScriptError(
            f"Expected both inputs to be Half, Float or Double tensors but got {dtype_name(a.dtype)} and "
            f"{dtype_name(b.dtype)}"
        )
    if a.dtype != b.dtype:
        raise TorchScriptError(
            f"Expected object of scalar type {dtype_name(a.dtype)} but got scalar type {dtype_name(b.dtype)} for "
            f"second argument"
        )
    try:
        np.broadcast_shapes(a.shape, b.shape)
    except ValueError:
        raise broadcast_error(a, b) from None
    return _COMPLEX_OF[a.dtype]


@kernel("aten::complex")
def complex_(real: ndarray, imag: ndarray) -> ndarray:
    dtype = _float_parts(real, imag, "complex")
    result = np.empty(np.broadcast_shapes(real.shape, imag.shape), dtype=dtype)
    result.real = real
    result.imag = imag
    return result


@kernel("aten::polar")
def polar(abs: ndarray, angle: ndarray) -> ndarray:
    dtype = _float_parts(abs, angle, "polar")
    result = np.empty(np.broadcast_shapes(abs.shape, angle.shape), dtype=dtype)
    result.real = abs * np.cos(angle)
    result.imag = abs * np.sin(angle)
    return result


@kernel("aten::view_as_complex")
def view_as_complex(self: ndarray) -> ndarray:
    if self.dtype not in _COMPLEX_OF:
        raise TorchScriptError(
            "view_as_complex is only supported for half, float and double tensors, but got a tensor of scalar "
            f"type: {dtype_name(self.dtype)}"
        )
    if self.ndim == 0 or self.shape[-1] != 2:
        raise TorchScriptError("Tensor must have a last dimension of size 2")
    if self.strides[-1] != self.itemsize:
        raise TorchScriptError("Tensor must have a last dimension with stride 1")
    if any(s % (2 * self.itemsize) for s in self.strides[:-1]):
        raise TorchScriptError("Tensor must have a stride divisible by 2 for all but last dimension")
    # a view of the same memory: each (re, im) pair read as one complex number
    return self.view(_COMPLEX_OF[self.dtype])[..., 0]


@kernel("aten::view_as_real")
def view_as_real(self: ndarray) -> ndarray:
    if self.dtype.kind != "c":
        raise TorchScriptError("view_as_real is only supported for complex tensors")
    real_dtype = _REAL_OF[self.dtype]
    shape = (*self.shape, 2)
    strides = (*self.strides, real_dtype.itemsize)
    return np.lib.stride_tricks.as_strided(self.real, shape, strides, writeable=self.flags.writeable)
