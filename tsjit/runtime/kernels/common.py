"""What every tensor family needs: dimension wrapping, 0-d results, PyTorch's errors for writes,
broadcasting and float-only kernels, the CPU-only device check."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tsjit.runtime.errors import IndexCheckError, TorchScriptError
from tsjit.runtime.values import Device, dtype_name

ndarray = np.ndarray


def as_tensor(result: object) -> np.ndarray:
    """numpy returns scalars from 0-d computations; tensors are always arrays."""
    return result if type(result) is ndarray else np.asarray(result)


def floating(x: np.ndarray, op: str) -> np.ndarray:
    """x itself when it is floating or complex, else PyTorch's error for the C++ kernel `op`."""
    if x.dtype.kind not in "fc":
        raise TorchScriptError(f"\"{op}\" not implemented for '{dtype_name(x.dtype)}'")
    return x


def wrap_dim(dim: int, ndim: int) -> int:
    """A dimension index in [0, ndim); a 0-dim tensor accepts 0 and -1, as in PyTorch."""
    bound = ndim if ndim else 1
    if -bound <= dim < bound:
        return dim + bound if dim < 0 else dim
    raise IndexCheckError(f"Dimension out of range (expected to be in range of [{-bound}, {bound - 1}], but got {dim})")


def wrap_dims(dims: Sequence[int], ndim: int) -> tuple[int, ...]:
    """Several dimensions, each wrapped and none repeated."""
    if len(dims) == 1:  # `x.sum(1)`: most reductions name one dim
        return (wrap_dim(dims[0], ndim),)
    wrapped = tuple([wrap_dim(d, ndim) for d in dims])
    if len(set(wrapped)) != len(wrapped):
        dup = next(d for d in wrapped if wrapped.count(d) > 1)
        raise TorchScriptError(f"dim {dup} appears multiple times in the list of dims")
    return wrapped


def shape_str(shape: Sequence[int]) -> str:
    return "[" + ", ".join(str(s) for s in shape) + "]"


def broadcast_error(*operands: object) -> TorchScriptError:
    """PyTorch's message for operands whose shapes do not broadcast."""
    return shapes_error(*(np.shape(x) for x in operands))


def shapes_error(*shapes: Sequence[int]) -> TorchScriptError:
    """PyTorch's message for the rightmost pair of sizes that do not broadcast."""
    ndim = max(len(s) for s in shapes)
    padded = [(1,) * (ndim - len(s)) + tuple(s) for s in shapes]
    for i in range(ndim - 1, -1, -1):
        sizes = [s[i] for s in padded]
        for j, a in enumerate(sizes):
            for b in sizes[j + 1 :]:
                if a != b and a != 1 and b != 1:
                    return TorchScriptError(
                        f"The size of tensor a ({a}) must match the size of tensor b ({b}) "
                        f"at non-singleton dimension {i}"
                    )
    return TorchScriptError(f"shapes {[list(s) for s in shapes]} cannot be broadcast together")


def write_error(out: np.ndarray, *operands: object) -> TorchScriptError:
    """Why writing the broadcast of `operands` into `out` failed, in PyTorch's words."""
    if not out.flags.writeable:
        return TorchScriptError(
            "unsupported operation: more than one element of the written-to tensor refers to a "
            "single memory location. Please clone() the tensor before performing the operation."
        )
    shapes = [out.shape, *(np.shape(x) for x in operands)]
    try:
        shape = np.broadcast_shapes(*shapes)
    except ValueError:
        return shapes_error(*shapes)
    return TorchScriptError(
        f"output with shape {shape_str(out.shape)} doesn't match the broadcast shape {shape_str(shape)}"
    )


def assign(out: np.ndarray, value: object) -> np.ndarray:
    """`out[...] = value` with broadcasting and casting into out's dtype (in-place ops)."""
    try:
        np.copyto(out, value, casting="unsafe")
    except ValueError:
        raise write_error(out, value) from None
    return out


def check_device(device: Device | str | None) -> None:
    """Tensors live on the CPU; any other device is an error, as on a CPU-only PyTorch."""
    if device is None:
        return
    kind = device.type if type(device) is Device else str(device).partition(":")[0]
    if kind == "cuda":
        raise TorchScriptError("Torch not compiled with CUDA enabled")
    if kind not in ("cpu", "meta"):
        raise TorchScriptError(f"device {device} is not available to the numpy runtime")


def write_out(result: object, out: np.ndarray) -> np.ndarray:
    """An `out=` overload's result written into `out` (PyTorch's `out=` semantics):
    `out` is resized when its shape differs (where numpy can resize it in place: an
    array owning contiguous memory), and the result must cast to its dtype safely or
    within its kind."""
    value = np.asarray(result)
    if value.dtype != out.dtype and not np.can_cast(value.dtype, out.dtype, "same_kind"):
        raise TorchScriptError(
            f"result type {dtype_name(value.dtype)} can't be cast to the desired output type {dtype_name(out.dtype)}"
        )
    if out.shape != value.shape:
        try:
            out.resize(value.shape, refcheck=False)
        except ValueError:
            raise TorchScriptError(
                f"cannot resize the out= tensor of shape {shape_str(out.shape)} (a view) to {shape_str(value.shape)}"
            ) from None
    return assign(out, value)
