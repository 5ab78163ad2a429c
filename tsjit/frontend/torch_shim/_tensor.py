"""The shim's `torch.Tensor`, dtypes and devices: numpy arrays with torch's names.

They exist so that a user's file imports and its modules can be constructed without
PyTorch (parameters get shapes and initial values); programs themselves run through
tsjit, so a Tensor here supports what `__init__` code needs, not torch's whole API.
"""

from __future__ import annotations

import builtins
from collections.abc import Iterable, Sequence

import numpy as np

from tsjit.dialects.types import DTYPES


class dtype:
    """A tensor element type (`torch.float32`); `code` is TorchScript's ScalarType int."""

    def __init__(self, torch_name: str, code: int, numpy_dtype: np.dtype):
        self.torch_name = torch_name
        self.code = code
        self.numpy = numpy_dtype

    @property
    def is_floating_point(self) -> bool:
        return self.numpy.kind == "f"

    def __repr__(self) -> str:
        return f"torch.{self.torch_name}"


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
_DTYPE_OF_NUMPY = {d.numpy: d for d in DTYPES_BY_NAME.values() if d.torch_name != "bfloat16"}

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
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self) -> int:
        return hash((self.type, self.index))


class Size(tuple):
    """`tensor.shape`: a tuple of ints."""

    def numel(self) -> int:
        return int(np.prod(self, dtype=np.int64))


class Tensor:
    """A dense CPU tensor over a numpy array (shared, so in-place methods write through)."""

    def __init__(self, data: object = (), dtype: dtype | None = None, requires_grad: bool = False):
        if isinstance(data, Tensor):
            array = data.array
        elif isinstance(data, np.ndarray):
            array = data
        else:  # Python numbers and lists: floats are torch's default dtype
            array = np.asarray(data)
            if dtype is None and array.dtype.kind == "f":
                array = array.astype(_default_dtype.numpy)
        if dtype is not None:
            array = array.astype(dtype.numpy, copy=False)
        self.array = array
        self.requires_grad = requires_grad

    # -- what modules and user code read -------------------------------------------
    @property
    def dtype(self) -> dtype:
        return _DTYPE_OF_NUMPY[self.array.dtype]

    @property
    def shape(self) -> Size:
        return Size(self.array.shape)

    @property
    def device(self) -> device:
        return device("cpu")

    @property
    def ndim(self) -> int:
        return self.array.ndim

    @property
    def data(self) -> Tensor:
        return Tensor(self.array)

    def size(self, dim: int | None = None) -> Size | int:
        return self.shape if dim is None else self.array.shape[dim]

    def dim(self) -> int:
        return self.array.ndim

    def numel(self) -> int:
        return int(self.array.size)

    def numpy(self) -> np.ndarray:
        return self.array

    def tolist(self) -> object:
        return self.array.tolist()

    def item(self) -> int | float | bool:
        return self.array.item()

    def detach(self) -> Tensor:
        return Tensor(self.array)

    def clone(self) -> Tensor:
        return Tensor(self.array.copy())

    def cpu(self) -> Tensor:
        return self

    def to(self, *args: object, **kwargs: object) -> Tensor:
        wanted = kwargs.get("dtype", next((a for a in args if isinstance(a, dtype)), None))
        return self if wanted is None else Tensor(self.array.astype(wanted.numpy))  # pyright: ignore[reportAttributeAccessIssue]

    def float(self) -> Tensor:
        return Tensor(self.array.astype(np.float32))

    def double(self) -> Tensor:
        return Tensor(self.array.astype(np.float64))

    def long(self) -> Tensor:
        return Tensor(self.array.astype(np.int64))

    def view(self, *shape: int) -> Tensor:
        return Tensor(self.array.reshape(_shape(shape)))

    reshape = view

    def t(self) -> Tensor:
        return Tensor(self.array.T)

    # -- in-place initialisation (torch.nn.init uses these) ------------------------
    def copy_(self, other: object) -> Tensor:
        self.array[...] = other.array if isinstance(other, Tensor) else other
        return self

    def fill_(self, value: builtins.float) -> Tensor:
        self.array.fill(value)
        return self

    def zero_(self) -> Tensor:
        return self.fill_(0)

    def uniform_(self, low: builtins.float = 0.0, high: builtins.float = 1.0) -> Tensor:
        self.array[...] = _rng.uniform(low, high, self.array.shape)
        return self

    def normal_(self, mean: builtins.float = 0.0, std: builtins.float = 1.0) -> Tensor:
        self.array[...] = _rng.normal(mean, std, self.array.shape)
        return self

    def requires_grad_(self, flag: bool = True) -> Tensor:
        self.requires_grad = flag
        return self

    # -- Python protocol ---------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.array)

    def __iter__(self):
        return (Tensor(row) for row in self.array)

    def __getitem__(self, index: object) -> Tensor:
        return Tensor(self.array[_unwrap(index)])

    def __setitem__(self, index: object, value: object) -> None:
        self.array[_unwrap(index)] = _unwrap(value)

    def __repr__(self) -> str:
        return f"tensor({self.array.tolist()!r}, dtype={self.dtype!r})"

    def __bool__(self) -> bool:
        return bool(self.array)

    def __float__(self) -> builtins.float:
        return builtins.float(self.array)

    def __int__(self) -> builtins.int:
        return builtins.int(self.array)


def _binary(op: str, reflected: bool = False):
    ufunc = getattr(np, op)

    def method(self: Tensor, other: object) -> Tensor:
        a, b = self.array, _unwrap(other)
        result = ufunc(b, a) if reflected else ufunc(a, b)
        if not isinstance(other, Tensor) and np.asarray(result).dtype == np.float64 and a.dtype != np.float64:
            result = np.asarray(result, dtype=_default_dtype.numpy)
        return Tensor(np.asarray(result))

    return method


for _name, _ufunc in {
    "add": "add", "sub": "subtract", "mul": "multiply", "truediv": "true_divide", "floordiv": "floor_divide",
    "mod": "remainder", "pow": "power", "matmul": "matmul", "lt": "less", "le": "less_equal", "gt": "greater",
    "ge": "greater_equal", "and": "logical_and", "or": "logical_or",
}.items():  # fmt: skip
    setattr(Tensor, f"__{_name}__", _binary(_ufunc))
    setattr(Tensor, f"__r{_name}__", _binary(_ufunc, reflected=True))
Tensor.__neg__ = lambda self: Tensor(-self.array)  # pyright: ignore[reportAttributeAccessIssue]


def _unwrap(value: object) -> object:
    if isinstance(value, Tensor):
        return value.array
    if isinstance(value, tuple):
        return tuple(_unwrap(v) for v in value)
    return value


def _shape(sizes: Sequence[object]) -> tuple[int, ...]:
    if len(sizes) == 1 and isinstance(sizes[0], Iterable):
        return tuple(sizes[0])  # pyright: ignore[reportArgumentType]
    return tuple(sizes)  # pyright: ignore[reportReturnType]


_rng = np.random.default_rng(0)


def manual_seed(seed: int) -> None:
    global _rng
    _rng = np.random.default_rng(seed)


def generator() -> np.random.Generator:
    return _rng
