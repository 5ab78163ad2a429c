"""Shape and view ops: view/reshape, transpose/permute, (un)squeeze, expand, flatten, narrow,
chunk/split/unbind, cat/stack, size queries, clone/contiguous/to, copy_/fill_/zero_.

Ops that PyTorch defines as views return numpy views of the same memory, so writes through
them reach the base tensor. Expanding a size-1 dimension gives a read-only view: in PyTorch
writing into it is an error too (several elements share one memory location).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from tsjit.runtime.errors import TorchScriptError
from tsjit.runtime.kernels import kernel
from tsjit.runtime.kernels.common import (
    as_tensor,
    assign,
    broadcast_error,
    check_device,
    shape_str,
    shapes_error,
    wrap_dim,
    wrap_dims,
    write_error,
)
from tsjit.runtime.kernels.promotion import result_type
from tsjit.runtime.values import Device, numpy_dtype

ndarray = np.ndarray


def infer_size(shape: Sequence[int], numel: int) -> tuple[int, ...]:
    """A view/reshape target with its -1 resolved, checked against the element count."""
    inferred = None
    known = 1
    for i, size in enumerate(shape):
        if size == -1:
            if inferred is not None:
                raise TorchScriptError("only one dimension can be inferred")
            inferred = i
        elif size < 0:
            raise TorchScriptError(f"invalid shape dimension {size} at index {i} of shape {shape_str(shape)}")
        else:
            known *= size
    if inferred is None:
        if known == numel:
            return tuple(shape)
    elif known and numel % known == 0:
        return tuple(shape[:inferred]) + (numel // known,) + tuple(shape[inferred + 1 :])
    raise TorchScriptError(f"shape '{shape_str(shape)}' is invalid for input of size {numel}")


@kernel("aten::view")
def view(self: ndarray, size: Sequence[int]) -> ndarray:
    # numpy resolves a -1 and checks the element count as PyTorch does (but takes any
    # negative size for -1): `infer_size` is for the rest, and for PyTorch's messages
    if size and min(size) < -1:
        result = self.reshape(infer_size(size, self.size))
    else:
        try:
            result = self.reshape(size)
        except ValueError:
            result = self.reshape(infer_size(size, self.size))
    # reshape copies when no view exists; a view's base is self or self's own base.
    base = result.base
    if base is self or (base is not None and base is self.base) or not result.size:
        return result
    raise TorchScriptError(
        "view size is not compatible with input tensor's size and stride (at least one dimension spans "
        "across two contiguous subspaces). Use .reshape(...) instead."
    )


@kernel("aten::view_as")
def view_as(self: ndarray, other: ndarray) -> ndarray:
    return view(self, other.shape)


@kernel("aten::view.dtype")
def view_dtype(self: ndarray, dtype: int) -> ndarray:
    target = numpy_dtype(dtype)
    if target.itemsize != self.dtype.itemsize and self.ndim and self.strides[-1] != self.itemsize:
        raise TorchScriptError("self.stride(-1) must be 1 to view a tensor with a different element size")
    return self.view(target)


@kernel("aten::reshape")
def reshape(self: ndarray, shape: Sequence[int]) -> ndarray:
    return np.reshape(self, infer_size(shape, self.size))


@kernel("aten::reshape_as")
def reshape_as(self: ndarray, other: ndarray) -> ndarray:
    return np.reshape(self, other.shape)


@kernel("aten::ravel")
def ravel(self: ndarray) -> ndarray:
    return np.reshape(self, (-1,))


@kernel("aten::transpose.int", "aten::swapaxes", "aten::swapdims")
def transpose(self: ndarray, dim0: int, dim1: int) -> ndarray:
    if self.ndim == 0:
        wrap_dim(dim0, 0), wrap_dim(dim1, 0)
        return self.view()
    return np.swapaxes(self, wrap_dim(dim0, self.ndim), wrap_dim(dim1, self.ndim))


@kernel("aten::t")
def t(self: ndarray) -> ndarray:
    if self.ndim > 2:
        raise TorchScriptError(f"t() expects a tensor with <= 2 dimensions, but self is {self.ndim}D")
    return self.T


@kernel("aten::numpy_T", "aten::numpy_T.a")
def numpy_t(self: ndarray) -> ndarray:
    """`x.T`: every dimension reversed (a view)."""
    return self.transpose()


@kernel("aten::mT", "aten::mT.a")
def matrix_t(self: ndarray) -> ndarray:
    if self.ndim < 2:
        raise TorchScriptError(f"tensor.mT is only supported on matrices or batches of matrices. Got {self.ndim}-D tensor.")
    return self.swapaxes(-1, -2)


@kernel("aten::permute")
def permute(self: ndarray, dims: Sequence[int]) -> ndarray:
    if len(dims) != self.ndim:
        raise TorchScriptError(
            "permute(sparse_coo): number of dimensions in the tensor input does not match the length of the "
            f"desired ordering of dimensions i.e. input.dim() = {self.ndim} is not equal to len(dims) = "
            f"{len(dims)}"
        )
    wrapped = tuple(wrap_dim(d, self.ndim) for d in dims)
    if len(set(wrapped)) != len(wrapped):
        raise TorchScriptError("permute(): duplicate dims are not allowed.")
    return np.transpose(self, wrapped)


@kernel("aten::movedim.int")
def movedim(self: ndarray, source: int, destination: int) -> ndarray:
    return np.moveaxis(self, wrap_dim(source, self.ndim), wrap_dim(destination, self.ndim))


@kernel("aten::movedim.intlist")
def movedim_list(self: ndarray, source: Sequence[int], destination: Sequence[int]) -> ndarray:
    if len(source) != len(destination):
        raise TorchScriptError(
            f"movedim: Invalid source or destination dims: source ({shape_str(source)} dims) should "
            f"contain the "
            f"same number of dims as destination ({shape_str(destination)} dims)"
        )
    return np.moveaxis(self, wrap_dims(source, self.ndim), wrap_dims(destination, self.ndim))


@kernel("aten::unsqueeze")
def unsqueeze(self: ndarray, dim: int) -> ndarray:
    return np.expand_dims(self, wrap_dim(dim, self.ndim + 1))


@kernel("aten::squeeze")
def squeeze(self: ndarray) -> ndarray:
    return np.squeeze(self)


@kernel("aten::squeeze.dim")
def squeeze_dim(self: ndarray, dim: int) -> ndarray:
    d = wrap_dim(dim, self.ndim)
    return np.squeeze(self, d) if self.ndim and self.shape[d] == 1 else self.view()


@kernel("aten::squeeze.dims")
def squeeze_dims(self: ndarray, dim: Sequence[int]) -> ndarray:
    dims = wrap_dims(dim, self.ndim) if self.ndim else ()
    return np.squeeze(self, tuple(d for d in dims if self.shape[d] == 1))


# --------------------------------------------------------------------------------------
# expand and broadcasting
# --------------------------------------------------------------------------------------


def expand_shape(shape: tuple[int, ...], size: Sequence[int]) -> tuple[int, ...]:
    """The target of `expand(size)`: -1 keeps a size, new dimensions are added in front."""
    lead = len(size) - len(shape)
    if lead < 0:
        raise TorchScriptError(
            f"expand({shape_str(shape)}, size={shape_str(size)}): the number of sizes provided ({len(size)}) "
            f"must be greater or equal to the number of dimensions in the tensor ({len(shape)})"
        )
    target = []
    for i, want in enumerate(size):
        if i < lead:
            if want < 0:
                raise TorchScriptError(
                    f"The expanded size of the tensor ({want}) isn't allowed in a leading, non-existing "
                    f"dimension {i}"
                )
            target.append(want)
            continue
        have = shape[i - lead]
        if want == -1:
            want = have
        elif have != want and have != 1:
            raise TorchScriptError(
                f"The expanded size of the tensor ({want}) must match the existing size ({have}) at "
                f"non-singleton "
                f"dimension {i}.  Target sizes: {shape_str(size)}.  Tensor sizes: {shape_str(shape)}"
            )
        target.append(want)
    return tuple(target)


def expand_to(x: ndarray, shape: tuple[int, ...]) -> ndarray:
    """A view of `x` with the given broadcast shape; writable unless memory is shared."""
    lead = len(shape) - x.ndim
    shares = any(n != 1 for n in shape[:lead]) or any(
        have == 1 and want != 1 for have, want in zip(x.shape, shape[lead:])
    )
    if shares:
        return np.broadcast_to(x, shape)
    return np.reshape(x, shape)


@kernel("aten::expand")
def expand(self: ndarray, size: Sequence[int], implicit: bool = False) -> ndarray:
    return expand_to(self, expand_shape(self.shape, size))


@kernel("aten::broadcast_to")
def broadcast_to(self: ndarray, size: Sequence[int]) -> ndarray:
    return expand(self, size)


@kernel("aten::expand_as")
def expand_as(self: ndarray, other: ndarray) -> ndarray:
    return expand(self, other.shape)


@kernel("aten::broadcast_tensors")
def broadcast_tensors(tensors: Sequence[ndarray]) -> list[ndarray]:
    try:
        shape = np.broadcast_shapes(*(t.shape for t in tensors))
    except ValueError:
        raise broadcast_error(*tensors) from None
    return [expand_to(t, shape) for t in tensors]


@kernel("aten::broadcast_shapes")
def broadcast_shapes(a: Sequence[int], b: Sequence[int]) -> list[int]:
    try:
        return list(np.broadcast_shapes(tuple(a), tuple(b)))
    except ValueError:
        raise shapes_error(a, b) from None


# --------------------------------------------------------------------------------------
# flatten, narrow, split
# --------------------------------------------------------------------------------------


@kernel("aten::flatten.using_ints")
def flatten(self: ndarray, start_dim: int = 0, end_dim: int = -1) -> ndarray:
    if self.ndim == 0:
        wrap_dim(start_dim, 0), wrap_dim(end_dim, 0)
        return self.reshape(1)
    start, end = wrap_dim(start_dim, self.ndim), wrap_dim(end_dim, self.ndim)
    if start > end:
        raise TorchScriptError("flatten() has invalid args: start_dim cannot come after end_dim")
    if start == end:
        return self.view()
    shape = self.shape[:start] + (math.prod(self.shape[start : end + 1]),) + self.shape[end + 1 :]
    return np.reshape(self, shape)


@kernel("aten::unflatten.int")
def unflatten(self: ndarray, dim: int, sizes: Sequence[int]) -> ndarray:
    d = wrap_dim(dim, self.ndim)
    try:
        inner = infer_size(sizes, self.shape[d])
    except TorchScriptError:
        raise TorchScriptError(
            f"unflatten: Provided sizes {shape_str(sizes)} don't multiply up to the size of dim {d} "
            f"({self.shape[d]}) in the input tensor"
        ) from None
    return np.reshape(self, self.shape[:d] + inner + self.shape[d + 1 :])


def _along(dim: int, index: slice | int) -> tuple:
    return (slice(None),) * dim + (index,)


@kernel("aten::narrow")
def narrow(self: ndarray, dim: int, start: int, length: int) -> ndarray:
    if self.ndim == 0:
        raise TorchScriptError("narrow() cannot be applied to a 0-dim tensor.")
    d = wrap_dim(dim, self.ndim)
    size = self.shape[d]
    if not -size <= start <= size:
        raise TorchScriptError(
            f"start out of range (expected to be in range of [{-size}, {size}], but got {start})"
        )
    if start < 0:
        start += size
    if length < 0 or start + length > size:
        raise TorchScriptError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return self[_along(d, slice(start, start + length))]


@kernel("aten::narrow.Tensor")
def narrow_tensor(self: ndarray, dim: int, start: ndarray, length: int) -> ndarray:
    return narrow(self, dim, int(start), length)


def _split_at(x: ndarray, d: int, sizes: Sequence[int]) -> list[ndarray]:
    pieces, offset = [], 0
    for size in sizes:
        pieces.append(x[_along(d, slice(offset, offset + size))])
        offset += size
    return pieces


@kernel("aten::split.Tensor")
def split(self: ndarray, split_size: int, dim: int = 0) -> list[ndarray]:
    if self.ndim == 0:
        raise TorchScriptError("split expects at least a 1-dimensional tensor")
    d = wrap_dim(dim, self.ndim)
    size = self.shape[d]
    if split_size < 0:
        raise TorchScriptError(f"split expects split_size be non-negative, but got split_size={split_size}")
    if split_size == 0:
        if size:
            raise TorchScriptError(
                f"split_size can only be 0 if dimension size is 0, but got dimension size of {size}"
            )
        return [self.view()]
    count = max(-(-size // split_size), 1)
    return _split_at(self, d, [min(split_size, size - i * split_size) for i in range(count)])


@kernel("aten::split.sizes", "aten::split_with_sizes", "aten::split")
def split_with_sizes(self: ndarray, split_sizes: Sequence[int], dim: int = 0) -> list[ndarray]:
    if self.ndim == 0:
        raise TorchScriptError("split expects at least a 1-dimensional tensor")
    d = wrap_dim(dim, self.ndim)
    size = self.shape[d]
    if sum(split_sizes) != size or any(s < 0 for s in split_sizes):
        raise TorchScriptError(
            f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's size at "
            f"dimension "
            f"{d}), but got split_sizes={shape_str(split_sizes)}"
        )
    return _split_at(self, d, split_sizes)


@kernel("aten::chunk")
def chunk(self: ndarray, chunks: int, dim: int = 0) -> list[ndarray]:
    if self.ndim == 0:
        raise TorchScriptError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise TorchScriptError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    d = wrap_dim(dim, self.ndim)
    size = self.shape[d]
    if size == 0:
        return [self.view() for _ in range(chunks)]
    return split(self, -(-size // chunks), d)


@kernel("aten::tensor_split.sections")
def tensor_split(self: ndarray, sections: int, dim: int = 0) -> list[ndarray]:
    if sections <= 0:
        raise TorchScriptError(f"number of sections must be larger than 0, got {sections}")
    d = wrap_dim(dim, self.ndim)
    base, extra = divmod(self.shape[d], sections)
    return _split_at(self, d, [base + (i < extra) for i in range(sections)])


@kernel("aten::tensor_split.indices")
def tensor_split_indices(self: ndarray, indices: Sequence[int], dim: int = 0) -> list[ndarray]:
    d = wrap_dim(dim, self.ndim)
    bounds = [0, *indices, self.shape[d]]
    return [self[_along(d, slice(lo, max(lo, hi)))] for lo, hi in zip(bounds, bounds[1:])]


@kernel("aten::unbind.int")
def unbind(self: ndarray, dim: int = 0) -> list[ndarray]:
    if self.ndim == 0:
        raise TorchScriptError("Dimension specified as 0 but tensor has no dimensions")
    d = wrap_dim(dim, self.ndim)
    return [self[(*_along(d, i), Ellipsis)] for i in range(self.shape[d])]  # 0-dim views, not scalars


# --------------------------------------------------------------------------------------
# cat and stack
# --------------------------------------------------------------------------------------


@kernel("aten::cat", "aten::concat", "aten::concatenate")
def cat(tensors: Sequence[ndarray], dim: int = 0) -> ndarray:
    if tensors:
        dtype = tensors[0].dtype
        for t in tensors:  # a loop, not all(): cat of two small tensors is common and cheap
            if t.dtype is not dtype:
                break
        else:
            try:
                return np.concatenate(tensors, dim)  # the axis by position: numpy parses it faster
            except (ValueError, IndexError):
                pass  # PyTorch's rules and messages below
    return _checked_cat(tensors, dim)


def _checked_cat(tensors: Sequence[ndarray], dim: int) -> ndarray:
    if not tensors:
        raise TorchScriptError("torch.cat(): expected a non-empty list of Tensors")
    for i, t in enumerate(tensors):
        if t.ndim == 0:
            raise TorchScriptError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
    dtype = result_type(*tensors)
    # PyTorch skips legacy empty 1-d tensors of shape [0] whatever the other ranks.
    kept = [(i, t) for i, t in enumerate(tensors) if not (t.ndim == 1 and t.shape[0] == 0)]
    if not kept:
        return np.empty((0,), dtype=dtype)
    reference = kept[0][1]
    d = wrap_dim(dim, reference.ndim)
    for i, t in kept:
        if t.ndim != reference.ndim:
            raise TorchScriptError(
                f"Tensors must have same number of dimensions: got {reference.ndim} and {t.ndim}"
            )
        for axis, (want, have) in enumerate(zip(reference.shape, t.shape)):
            if axis != d and want != have:
                raise TorchScriptError(
                    f"Sizes of tensors must match except in dimension {d}. Expected size {want} but got size "
                    f"{have} for tensor number {i} in the list."
                )
    return np.concatenate([t for _, t in kept], axis=d, dtype=dtype)


@kernel("aten::stack")
def stack(tensors: Sequence[ndarray], dim: int = 0) -> ndarray:
    if not tensors:
        raise TorchScriptError("stack expects a non-empty TensorList")
    first = tensors[0]
    for i, t in enumerate(tensors):
        if t.shape != first.shape:
            raise TorchScriptError(
                f"stack expects each tensor to be equal size, but got {shape_str(first.shape)} at entry "
                f"0 and "
                f"{shape_str(t.shape)} at entry {i}"
            )
    return np.stack(tensors, axis=wrap_dim(dim, first.ndim + 1), dtype=result_type(*tensors))


@kernel("aten::hstack")
def hstack(tensors: Sequence[ndarray]) -> ndarray:
    tensors = [t.reshape(1) if t.ndim == 0 else t for t in tensors]
    return cat(tensors, 0 if tensors and tensors[0].ndim == 1 else 1)


@kernel("aten::vstack")
def vstack(tensors: Sequence[ndarray]) -> ndarray:
    return cat([t.reshape(1, -1) if t.ndim < 2 else t for t in tensors], 0)


# --------------------------------------------------------------------------------------
# Queries
# --------------------------------------------------------------------------------------


@kernel("aten::size")
def size(self: ndarray) -> list[int]:
    return list(self.shape)


@kernel("aten::size.int")
def size_int(self: ndarray, dim: int) -> int:
    if self.ndim == 0:
        raise TorchScriptError(f"Dimension specified as {dim} but tensor has no dimensions")
    return self.shape[wrap_dim(dim, self.ndim)]


@kernel("aten::dim")
def dim(self: ndarray) -> int:
    return self.ndim


@kernel("aten::numel")
def numel(self: ndarray) -> int:
    return self.size


@kernel("aten::is_contiguous", "aten::is_contiguous.memory_format")
def is_contiguous(self: ndarray, memory_format: int = 0) -> bool:
    return bool(self.flags.c_contiguous)


@kernel("aten::is_floating_point")
def is_floating_point(self: ndarray) -> bool:
    return self.dtype.kind == "f"


@kernel("aten::is_complex")
def is_complex(self: ndarray) -> bool:
    return self.dtype.kind == "c"


# --------------------------------------------------------------------------------------
# Copies and conversions
# --------------------------------------------------------------------------------------


@kernel("aten::clone")
def clone(self: ndarray, memory_format: int | None = None) -> ndarray:
    return np.array(self, copy=True, order="C")


@kernel("aten::contiguous")
def contiguous(self: ndarray, memory_format: int = 0) -> ndarray:
    return self if self.flags.c_contiguous else np.ascontiguousarray(self)


@kernel("aten::detach", "aten::alias")
def detach(self: ndarray) -> ndarray:
    return self.view()


@kernel("aten::detach_", "aten::cpu")
def detach_(self: ndarray) -> ndarray:
    return self


@kernel("aten::requires_grad_")
def requires_grad_(self: ndarray, requires_grad: bool = True) -> ndarray:
    if requires_grad:
        raise TorchScriptError("the numpy runtime has no autograd: requires_grad_(True) is not supported")
    return self


def convert(self: ndarray, dtype: np.dtype | None, copy: bool) -> ndarray:
    """`Tensor.to`: self itself when nothing changes and no copy is asked for."""
    if dtype is None or dtype == self.dtype:
        return np.array(self, copy=True) if copy else self
    return self.astype(dtype)


# `to` overloads whose schemas differ only in a trailing memory_format, or in whether dtype
# is optional, share a kernel.


@kernel("aten::to.dtype", "aten::to.prim_dtype")
def to_dtype(
    self: ndarray,
    dtype: int | None = None,
    non_blocking: bool = False,
    copy: bool = False,
    memory_format: int | None = None,
) -> ndarray:
    return convert(self, None if dtype is None else numpy_dtype(dtype), copy)


@kernel("aten::to.device", "aten::to.prim_Device")
def to_device(
    self: ndarray,
    device: Device | None,
    dtype: int | None = None,
    non_blocking: bool = False,
    copy: bool = False,
    memory_format: int | None = None,
) -> ndarray:
    check_device(device)
    return convert(self, None if dtype is None else numpy_dtype(dtype), copy)


@kernel("aten::to.dtype_layout")
def to_dtype_layout(
    self: ndarray,
    dtype: int | None = None,
    layout: int | None = None,
    device: Device | None = None,
    pin_memory: bool | None = None,
    non_blocking: bool = False,
    copy: bool = False,
    memory_format: int | None = None,
) -> ndarray:
    return to_device(self, device, dtype, non_blocking, copy, memory_format)


@kernel("aten::to.other")
def to_other(
    self: ndarray,
    other: ndarray,
    non_blocking: bool = False,
    copy: bool = False,
    memory_format: int | None = None,
) -> ndarray:
    return convert(self, other.dtype, copy)


@kernel("aten::to.prim_other")
def to_prim_other(self: ndarray, non_blocking: bool = False, copy: bool = False) -> ndarray:
    return convert(self, None, copy)


@kernel("aten::type_as")
def type_as(self: ndarray, other: ndarray) -> ndarray:
    return convert(self, other.dtype, False)


@kernel("aten::copy_", "aten::copy_.Tensor", "aten::copy_.int", "aten::copy_.float")
def copy_(self: ndarray, src: object, non_blocking: bool = False) -> ndarray:
    return assign(self, src)


@kernel("aten::copy")
def copy(self: ndarray, src: ndarray, non_blocking: bool = False) -> ndarray:
    """The functional `copy_` (what remove-mutation emits): src in self's shape and dtype."""
    return assign(np.empty_like(self), src)


@kernel("aten::fill.Scalar", "aten::fill.Tensor")
def fill(self: ndarray, value: object) -> ndarray:
    return fill_(np.empty_like(self), value)


@kernel("aten::zero")
def zero(self: ndarray) -> ndarray:
    return np.zeros_like(self)


@kernel("aten::fill_.Scalar", "aten::fill_.Tensor")
def fill_(self: ndarray, value: object) -> ndarray:
    if type(value) is ndarray and value.ndim:
        raise TorchScriptError(
            f"fill_ only supports 0-dimension value tensor but got tensor with {value.ndim} dimensions."
        )
    try:
        self[...] = value
    except ValueError:
        raise write_error(self, value) from None
    return self


@kernel("aten::zero_")
def zero_(self: ndarray) -> ndarray:
    return fill_(self, 0)


# --------------------------------------------------------------------------------------
# Rearrangements that copy
# --------------------------------------------------------------------------------------


@kernel("aten::flip")
def flip(self: ndarray, dims: Sequence[int]) -> ndarray:
    if self.ndim == 0:  # np.flip of a 0-dim array is a scalar
        wrap_dims(dims, self.ndim)
        return self.copy()
    return np.flip(self, wrap_dims(dims, self.ndim)).copy()


@kernel("aten::roll")
def roll(self: ndarray, shifts: Sequence[int], dims: Sequence[int] = ()) -> ndarray:
    if not dims:
        if len(shifts) != 1:
            raise TorchScriptError(
                f"`shifts` required to be of size 1 when `dims` is empty, got {len(shifts)}"
            )
        return np.roll(self.reshape(-1), shifts[0]).reshape(self.shape)
    if len(shifts) != len(dims):
        raise TorchScriptError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
    return np.roll(self, tuple(shifts), tuple(wrap_dim(d, self.ndim) for d in dims))


@kernel("aten::repeat")
def repeat(self: ndarray, repeats: Sequence[int]) -> ndarray:
    if len(repeats) < self.ndim:
        raise TorchScriptError(
            "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor"
        )
    expanded = self.reshape((1,) * (len(repeats) - self.ndim) + self.shape)
    return np.tile(expanded, tuple(repeats))


@kernel("aten::tile")
def tile(self: ndarray, dims: Sequence[int]) -> ndarray:
    return as_tensor(np.tile(self, tuple(dims)))


@kernel("aten::repeat_interleave.self_int", "aten::repeat_interleave.self_Tensor")
def repeat_interleave(
    self: ndarray, repeats: int | ndarray, dim: int | None = None, output_size: int | None = None
) -> ndarray:
    if dim is None:
        return np.repeat(self.reshape(-1), repeats)
    return np.repeat(self, repeats, axis=wrap_dim(dim, self.ndim))


@kernel("aten::repeat_interleave.Tensor")
def repeat_interleave_indices(repeats: ndarray, output_size: int | None = None) -> ndarray:
    return np.repeat(np.arange(repeats.size, dtype=np.int64), repeats.reshape(-1))


@kernel("aten::unfold")
def unfold(self: ndarray, dimension: int, size: int, step: int) -> ndarray:
    d = wrap_dim(dimension, self.ndim)
    length = self.shape[d] if self.ndim else 1
    if size > length:
        raise TorchScriptError(f"maximum size for tensor at dimension {d} is {length} but size is {size}")
    if size < 0:
        raise TorchScriptError(f"size is {size} but must be >= 0")
    if step <= 0:
        raise TorchScriptError(f"step is {step} but must be > 0")
    if self.ndim == 0:
        return self.reshape(1)[:size]  # one window of `size` (0 or 1) elements
    windows = np.lib.stride_tricks.sliding_window_view(self, size, axis=d, writeable=self.flags.writeable)
    return windows[_along(d, slice(None, None, step))]


@kernel("aten::_chunk_cat")
def chunk_cat(tensors: Sequence[ndarray], dim: int, num_chunks: int) -> ndarray:
    """Each tensor split into `num_chunks` chunks along `dim` (the last ones zero-padded to
    equal size), the chunks of equal index concatenated: leading dims, then
    (num_chunks, the tensors' chunk elements)."""
    if not tensors:
        raise TorchScriptError("_chunk_cat expects a non-empty input tensor list")
    if num_chunks < 1:
        raise TorchScriptError("_chunk_cat expects positive num_chunks")
    d = wrap_dim(dim, tensors[0].ndim)
    leading = tensors[0].shape[:d]
    dtype = tensors[0].dtype
    rows = []
    for t in tensors:
        if t.ndim < d + 1 or t.shape[:d] != leading:
            raise TorchScriptError("_chunk_cat expects same sizes of 0,...,dim-1 dimensions for all tensors")
        if t.dtype != dtype:
            raise TorchScriptError("_chunk_cat expects all input tensors with the same dtype")
        size = t.shape[d]
        chunk = -(-size // num_chunks)
        padding = [(0, 0)] * t.ndim
        padding[d] = (0, chunk * num_chunks - size)
        padded = np.pad(t, padding)
        rows.append(padded.reshape(*leading, num_chunks, -1))
    return np.concatenate(rows, axis=-1)
