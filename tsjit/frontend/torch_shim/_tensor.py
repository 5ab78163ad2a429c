"""The shim's `torch.Tensor`, dtypes, devices and sizes: numpy arrays with torch's names.

A Tensor holds one numpy array (`.array`, shared, so in-place operators and views
write through) and runs every operator on it eagerly through tsjit's kernels
(`_dispatch`, bound as methods by `_methods`); this module has what is data rather
than operators: construction, dtype/shape/device queries, conversions to Python
values (which a trace records as constants, with PyTorch's TracerWarning), and the
in-place initialisers `torch.nn.init` uses on parameters before any program runs.
"""

from __future__ import annotations

import builtins
from collections.abc import Iterable
from typing import Any

import numpy as np

from tsjit.dialects.types import DTYPES
from tsjit.frontend.torch_shim._state import ACTIVE, warn_constant
from tsjit.runtime.autograd.variable import Variable


class dtype:
    """A tensor element type (`torch.float32`); `code` is TorchScript's ScalarType int."""

    def __init__(self, torch_name: str, code: int, numpy_dtype: np.dtype):
        self.torch_name = torch_name
        self.code = code
        self.numpy = numpy_dtype

    @property
    def is_floating_point(self) -> bool:
        return self.numpy.kind == "f"

    @property
    def is_complex(self) -> bool:
        return self.numpy.kind == "c"

    @property
    def itemsize(self) -> int:
        return self.numpy.itemsize

    def __repr__(self) -> str:
        return f"torch.{self.torch_name}"

    def __reduce__(self) -> str:
        return self.torch_name  # pickled by name: the module attribute `torch.<name>`


_NUMPY_OF = {
    "uint8": np.uint8, "int8": np.int8, "int16": np.int16, "int32": np.int32, "int64": np.int64,
    "float16": np.float16, "float32": np.float32, "float64": np.float64, "complex64": np.complex64,
    "complex128": np.complex128, "bool": np.bool_, "bfloat16": np.float32,
}  # fmt: skip
DTYPES_BY_NAME: dict[str, dtype] = {
    d.torch_name: dtype(d.torch_name, d.code, np.dtype(_NUMPY_OF[d.torch_name])) for d in DTYPES
}
"""Every dtype by its torch name; `ALIASES` adds torch's second names."""
ALIASES = {
    "float": "float32", "double": "float64", "half": "float16", "long": "int64", "int": "int32",
    "short": "int16", "cfloat": "complex64", "cdouble": "complex128",
}  # fmt: skip
DTYPE_BY_CODE = {d.code: d for d in DTYPES_BY_NAME.values()}
DTYPE_OF_NUMPY = {d.numpy: d for d in DTYPES_BY_NAME.values() if d.torch_name != "bfloat16"}

_default_dtype = DTYPES_BY_NAME["float32"]


def to_dtype(value: dtype | None, fallback: dtype | None = None) -> dtype:
    if value is None:
        return fallback or _default_dtype
    if not isinstance(value, dtype):
        raise TypeError(f"expected a torch dtype, got {value!r}")
    return value


class device:
    """`torch.device("cpu")`: tsjit runs on the CPU only."""

    def __init__(self, kind: str = "cpu", index: int | None = None):
        if isinstance(kind, device):
            kind, index = kind.type, kind.index
        self.type, _, number = str(kind).partition(":")
        self.index = int(number) if number else index

    def __repr__(self) -> str:
        return (
            f"device(type='{self.type}')"
            if self.index is None
            else f"device(type='{self.type}', index={self.index})"
        )

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, str):
            other = device(other)
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self) -> int:
        return hash((self.type, self.index))


class EnumValue:
    """`torch.contiguous_format`, `torch.strided`: TorchScript passes them as ints."""

    def __init__(self, name: str, code: int):
        self.name = name
        self.code = code

    def __repr__(self) -> str:
        return f"torch.{self.name}"


MEMORY_FORMATS = {
    name: EnumValue(name, code)
    for code, name in enumerate(("contiguous_format", "preserve_format", "channels_last", "channels_last_3d"))
}
LAYOUTS = {name: EnumValue(name, code) for code, name in enumerate(("strided", "sparse_coo", "sparse_csr"))}


class Size(tuple):
    """`tensor.shape`: a tuple of ints (of 0-dim int tensors while tracing, as in PyTorch)."""

    def numel(self) -> Any:
        total: Any = 1
        for size in self:
            total = total * size
        return total

    def __getitem__(self, index: Any) -> Any:
        item = super().__getitem__(index)
        return Size(item) if isinstance(index, slice) else item

    def __repr__(self) -> str:
        return f"torch.Size({list(self)!r})"


_CPU = device("cpu")


class _TensorClass(type):
    """`torch.Tensor.relu` exists before any tensor called `relu`: methods are bound on
    first use, from the class as from an instance."""

    def __getattr__(cls, name: str) -> Any:
        from tsjit.frontend.torch_shim._methods import install_method

        method = install_method(name)
        if method is None:
            raise AttributeError(f"type object 'Tensor' has no attribute '{name}'")
        return method


class Tensor(Variable, metaclass=_TensorClass):
    """A dense CPU tensor over a numpy array; its operators run tsjit's kernels. It is the
    runtime's `Variable` (autograd metadata in the class until set, so a result tensor
    is one slot write: `wrap`), with torch's methods."""

    __slots__ = ()
    __array_priority__ = 1000  # `ndarray + Tensor` runs Tensor.__radd__, as with PyTorch's tensors

    def __init__(self, data: object = (), dtype: dtype | None = None, requires_grad: bool = False):
        self.array = as_array(data, dtype)
        if requires_grad:
            self.requires_grad_(True)

    @classmethod
    def grad_class(cls) -> type[Variable]:
        return Tensor

    # -- what modules and user code read -------------------------------------------
    @property
    def dtype(self) -> dtype:
        return DTYPE_OF_NUMPY[self.array.dtype]

    @property
    def shape(self) -> Size:
        return self.size()

    @property
    def device(self) -> device:
        return _CPU

    @property
    def ndim(self) -> int:
        return self.array.ndim

    @property
    def is_cuda(self) -> bool:
        return False

    @property
    def layout(self) -> EnumValue:
        return LAYOUTS["strided"]

    @property
    def data(self) -> Tensor:
        return wrap(self.array)

    @data.setter
    def data(self, value: Tensor) -> None:
        self.array = value.array

    def size(self, dim: int | None = None) -> Any:
        """Ints; while tracing, each size is recorded (`aten::size` + `prim::NumToTensor`)
        and is a 0-dim tensor, as in PyTorch."""
        tracer = ACTIVE.current()
        if tracer is not None:
            return tracer.size_of(self, dim)
        if dim is None:
            return Size(self.array.shape)
        return self.array.shape[dim]

    def dim(self) -> int:
        return self.array.ndim

    ndimension = dim

    def numel(self) -> Any:
        tracer = ACTIVE.current()
        if tracer is not None:
            return tracer.numel_of(self)
        return int(self.array.size)

    nelement = numel

    def element_size(self) -> int:
        return self.array.itemsize

    def stride(self, dim: int | None = None) -> Any:
        strides = tuple(s // self.array.itemsize for s in self.array.strides)
        return strides if dim is None else strides[dim]

    def is_floating_point(self) -> bool:
        return self.array.dtype.kind == "f"

    def is_complex(self) -> bool:
        return self.array.dtype.kind == "c"

    def get_device(self) -> int:
        return -1

    # -- conversions to Python values: constants in a trace --------------------------
    def numpy(self) -> np.ndarray:
        warn_constant(self, "a NumPy array")
        return self.array

    def tolist(self) -> object:
        warn_constant(self, "a Python list")
        return self.array.tolist()

    def item(self) -> int | float | bool:
        warn_constant(self, "a Python number")
        if self.array.size != 1:
            raise RuntimeError(
                f"a Tensor with {self.array.size} elements cannot be converted to Scalar"
            )
        return self.array.item()

    def __bool__(self) -> bool:
        warn_constant(self, "a Python boolean")
        if self.array.size != 1:
            raise RuntimeError(
                f"Boolean value of Tensor with {'no values' if self.array.size == 0 else 'more than one value'} "
                "is ambiguous"
            )
        return bool(self.array.item())

    def __float__(self) -> builtins.float:
        warn_constant(self, "a Python float")
        return builtins.float(_single(self, "float"))

    def __int__(self) -> builtins.int:
        warn_constant(self, "a Python integer")
        return builtins.int(_single(self, "int"))

    def __index__(self) -> builtins.int:
        warn_constant(self, "a Python index")
        if self.array.dtype.kind not in "biu" or self.array.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return builtins.int(self.array.item())

    def __complex__(self) -> builtins.complex:
        warn_constant(self, "a Python complex")
        return builtins.complex(_single(self, "complex"))

    def __array__(self, dtype: object = None, copy: object = None) -> np.ndarray:
        warn_constant(self, "a NumPy array")
        return self.array if dtype is None else self.array.astype(dtype)

    def __len__(self) -> int:
        if self.array.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        tracer = ACTIVE.current()
        if tracer is not None:
            tracer.warn(
                "Using len to get tensor shape might cause the trace to be incorrect. Recommended usage would "
                "be tensor.shape[0]. Passing a tensor of different shape might lead to errors or silently give "
                "incorrect results."
            )
        return len(self.array)

    def __iter__(self):
        if self.array.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        tracer = ACTIVE.current()
        if tracer is not None:
            tracer.warn(
                "Iterating over a tensor might cause the trace to be incorrect. Passing a tensor of different "
                "shape won't change the number of iterations executed (and might lead to errors or silently "
                "give incorrect results)."
            )
        return iter(self.unbind(0))  # pyright: ignore[reportAttributeAccessIssue]

    __hash__ = object.__hash__

    def __repr__(self) -> str:
        body = np.array2string(self.array, separator=", ", precision=4, threshold=1000, prefix="tensor(")
        suffix = "" if self.array.dtype in (np.float32, np.int64, np.bool_) else f", dtype={self.dtype!r}"
        return f"tensor({body}{suffix})"

    def __format__(self, spec: str) -> str:
        if self.array.ndim == 0:
            return format(self.array.item(), spec)
        return format(repr(self), spec)

    def __reduce_ex__(self, protocol: builtins.int) -> tuple[Any, ...]:
        return (_rebuild, (type(self), self.array, self.requires_grad))

    def __deepcopy__(self, memo: dict[builtins.int, Any]) -> Tensor:
        copied = type(self).__new__(type(self))
        copied.array = self.array.copy()
        if self.requires_grad:
            copied.requires_grad = True
        memo[id(self)] = copied
        return copied

    # -- Python-side state: parameter initialisation, not recorded -----------------------
    def uniform_(self, low: builtins.float = 0.0, high: builtins.float = 1.0, generator: object = None) -> Tensor:
        self.array[...] = _rng.uniform(low, high, self.array.shape)
        return self

    def normal_(self, mean: builtins.float = 0.0, std: builtins.float = 1.0, generator: object = None) -> Tensor:
        self.array[...] = _rng.normal(mean, std, self.array.shape)
        return self

    def cpu(self) -> Tensor:
        return self

    def cuda(self, *args: object, **kwargs: object) -> Tensor:
        raise RuntimeError("tsjit runs on the CPU only: Tensor.cuda() is not available")

    def __getattr__(self, name: str) -> Any:
        """Methods are bound on first use (an operator of the schema table named after
        the method, taking `self`); `_methods` installs them on the class."""
        from tsjit.frontend.torch_shim._methods import install_method

        method = install_method(name)
        if method is None:
            raise AttributeError(f"'Tensor' object has no attribute '{name}'")
        return method.__get__(self, type(self))


def wrap(array: np.ndarray) -> Tensor:
    """A Tensor over `array` without copying or checking (the dispatcher's results)."""
    tensor = _new(Tensor)
    tensor.array = array
    return tensor


def as_tensors(value: Any) -> Any:
    """Runtime Variables (in tuples and lists too) as the shim's Tensors: the same
    objects, whose class becomes Tensor (arrays stay arrays)."""
    kind = type(value)
    if kind is Variable:
        value.__class__ = Tensor
        return value
    if kind is tuple:
        return tuple(as_tensors(v) for v in value)
    if kind is list:
        return [as_tensors(v) for v in value]
    return value


_new = object.__new__


def as_array(data: object, dtype: dtype | None = None) -> np.ndarray:
    """A numpy array for `data`: Tensors and arrays as they are, Python numbers and
    nested lists as torch infers them (floats in the default dtype)."""
    if isinstance(data, Tensor):
        array = data.array
    elif isinstance(data, np.ndarray):
        array = data
    else:
        if isinstance(data, (list, tuple)) and any(isinstance(e, Tensor) for e in _flat(data)):
            data = _unwrap(data)
        array = np.asarray(data)
        if dtype is None and array.dtype.kind == "f":
            array = array.astype(_default_dtype.numpy)
        elif dtype is None and array.dtype.kind in "iu":
            array = array.astype(np.int64)
    if dtype is not None:
        array = array.astype(dtype.numpy, copy=False)
    return array


def _flat(data: object) -> Iterable[object]:
    if isinstance(data, (list, tuple)):
        for element in data:
            yield from _flat(element)
    else:
        yield data


def _unwrap(value: object) -> object:
    if isinstance(value, Tensor):
        return value.array
    if isinstance(value, (tuple, list)):
        return [_unwrap(v) for v in value]
    return value


def _single(tensor: Tensor, what: str) -> object:
    if tensor.array.size != 1:
        raise TypeError(f"only one element tensors can be converted to Python scalars (Tensor to {what})")
    return tensor.array.item()


def _rebuild(cls: type[Tensor], array: np.ndarray, requires_grad: bool) -> Tensor:
    tensor = cls.__new__(cls)
    tensor.array = array
    if requires_grad:
        tensor.requires_grad = True
    return tensor


_rng = np.random.default_rng(0)


def manual_seed(seed: int) -> None:
    """Seeds the shim's parameter initialisers and the runtime's random kernels."""
    global _rng
    from tsjit.runtime.kernels import lookup

    _rng = np.random.default_rng(seed)
    reseed = lookup("aten::manual_seed")
    if reseed is not None:
        reseed(seed)


def generator() -> np.random.Generator:
    return _rng


class Generator:
    """`torch.Generator`: accepted where operators take one; tsjit's random kernels draw
    from the runtime's one generator (`torch.manual_seed` seeds it)."""

    def __init__(self, device: object = "cpu"):
        self._seed = 0

    def manual_seed(self, seed: int) -> Generator:
        self._seed = seed
        manual_seed(seed)
        return self

    def initial_seed(self) -> int:
        return self._seed

    def seed(self) -> int:
        return self._seed
