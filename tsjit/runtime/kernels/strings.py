"""Strings: TorchScript's printing of values (`str`, `format`, `print`), string methods,
indexing and slicing, ord/chr, warnings.

Printing is TorchScript's C++ printing, not Python's: `1.0` prints as `1.`, other floats
with 17 significant digits, strings inside containers without quotes, and tensors in
PyTorch's C++ layout (` 1.5000\\n[ CPUFloatType{1} ]`). `format` replaces only `{}`.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Sequence

import numpy as np

from tsjit.runtime.errors import TorchScriptError
from tsjit.runtime.kernels import Kernel, kernel, register_kernel
from tsjit.runtime.values import DTYPE_BY_NUMPY, Device, ScriptObject

ndarray = np.ndarray

# --------------------------------------------------------------------------------------
# Printing values
# --------------------------------------------------------------------------------------


def format_float(x: float) -> str:
    """A double as TorchScript prints it: integral values as `3.`, others with 17 digits."""
    if x == x and -(2.0**63) <= x < 2.0**63 and x == int(x):
        return f"{int(x)}."
    return "%.17g" % x


def format_value(value: object) -> str:
    """`str(value)` in TorchScript."""
    kind = type(value)
    if kind is str:
        return value
    if kind is bool:
        return "True" if value else "False"
    if kind is int:
        return str(value)
    if kind is float:
        return format_float(value)
    if value is None:
        return "None"
    if kind is ndarray:
        return format_tensor(value)
    if kind is list:
        return "[" + ", ".join(format_value(v) for v in value) + "]"
    if isinstance(value, tuple):
        items = ", ".join(format_value(v) for v in value)
        return f"({items},)" if len(value) == 1 else f"({items})"
    if kind is dict:
        return "{" + ", ".join(f"{format_value(k)}: {format_value(v)}" for k, v in value.items()) + "}"
    if kind is Device:
        return str(value)
    if kind is ScriptObject:
        return f"<{value.qualified_name} object>"
    if kind is complex:
        return f"{format_float(value.real)}{'+' if value.imag >= 0 else '-'}{format_float(abs(value.imag))}j"
    raise TorchScriptError(f"cannot print a value of type {kind.__name__}")


# PyTorch's tensor printer (ATen's Formatting.cpp): a common format per matrix, chosen from
# the magnitudes of its finite elements; wide matrices split into column blocks.

_LINE_SIZE = 80


def _print_format(values: np.ndarray) -> tuple[float, int, str]:
    """(scale, field width, printf format) of a block of float64 values."""
    if values.size == 0:
        return 1.0, 0, "%g"
    finite = values[np.isfinite(values)]
    int_mode = bool(np.all(finite == np.ceil(finite)))
    if finite.size:
        exp_min = float(np.min(np.abs(finite)))
        # ATen compares signed values against the running maximum magnitude.
        exp_max = max(abs(float(finite[0])), float(np.max(finite)))
        exp_min = math.floor(math.log10(exp_min)) + 1 if exp_min != 0 else 1
        exp_max = math.floor(math.log10(exp_max)) + 1 if exp_max != 0 else 1
    else:
        exp_min = exp_max = 1
    if int_mode:
        if exp_max > 9:
            return 1.0, 11, "%.4e"
        return 1.0, exp_max + 1, "%g"
    if exp_max - exp_min > 4:
        return 1.0, 12 if abs(exp_max) > 99 or abs(exp_min) > 99 else 11, "%.4e"
    if exp_max > 5 or exp_max < 0:
        return 10.0 ** (exp_max - 1), 7, "%.4f"
    return 1.0, 7 if exp_max == 0 else exp_max + 6, "%.4f"


def _print_matrix(matrix: np.ndarray, indent: int) -> str:
    scale, width, fmt = _print_format(matrix)
    rows, cols = matrix.shape
    pad = " " * indent
    per_line = max((_LINE_SIZE - indent) // (width + 1), 1)
    out: list[str] = []
    first = 0
    while first < cols:
        last = min(first + per_line, cols) - 1
        if per_line < cols:
            if first:
                out.append("\n")
            out.append(f"Columns {first + 1} to {last + 1}{pad}")
        if scale != 1:
            out.append(f"{scale:g} *\n{pad}")
        for r in range(rows):
            out.append(" ".join((fmt % (v / scale)).rjust(width) for v in matrix[r, first : last + 1]))
            out.append("\n")
            if r != rows - 1:
                out.append(pad + (" " if scale != 1 else ""))
        first = last + 1
    return "".join(out)


def format_tensor(tensor: ndarray) -> str:
    """PyTorch's C++ printing of a tensor (what TorchScript's `str` and `print` show)."""
    record = DTYPE_BY_NUMPY[tensor.dtype]
    # PyTorch's C++ printer shows a complex tensor's real parts only (with its type)
    values = (tensor.real if record.is_complex else tensor).astype(np.float64)
    sizes = ",".join(str(s) for s in tensor.shape)
    footer = f"[ CPU{record.name}Type{{{sizes}}} ]"
    if tensor.ndim == 0:
        return "%.17g\n" % float(values) + footer
    if tensor.size == 0:
        return footer
    if tensor.ndim == 1:
        scale, width, fmt = _print_format(values)
        head = f"{scale:g} *\n" if scale != 1 else ""
        return head + "".join((fmt % (v / scale)).rjust(width) + "\n" for v in values) + footer
    if tensor.ndim == 2:
        return _print_matrix(values, 0) + footer
    # Higher ranks: one matrix per index of the leading dimensions, first index fastest.
    lead = values.shape[:-2]
    blocks = []
    for flat in range(math.prod(lead)):
        index = np.unravel_index(flat, lead, order="F")
        label = "".join(f"{i + 1}," for i in index)
        blocks.append(f"({label}.,.) = \n" + _print_matrix(values[tuple(index)], 1))
    return "\n".join(blocks) + footer


@kernel("aten::str")
def str_(elem: object) -> str:
    return format_value(elem)


@kernel("aten::format")
def format(self: str, *args: object) -> str:
    """`"{}".format(...)`: each `{}` takes the next argument; other braces stay as they are."""
    pieces, begin, used = [], 0, 0
    while True:
        at = self.find("{}", begin)
        if at < 0:
            pieces.append(self[begin:])
            return "".join(pieces)
        if used >= len(args):
            raise TorchScriptError(f"Too few arguments for format string: {self}")
        pieces.append(self[begin:at])
        pieces.append(format_value(args[used]))
        used += 1
        begin = at + 2


_PERCENT_CONVERSIONS = {
    "d": lambda v: str(int(v)),
    "i": lambda v: str(int(v)),
    "s": format_value,
    "f": lambda v: "%f" % v,
    "e": lambda v: "%e" % v,
    "g": lambda v: "%g" % v,
    "c": lambda v: chr(v) if type(v) is int else v,
}


@kernel("aten::percentFormat")
def percent_format(self: str, *args: object) -> str:
    """`"%d %s" % (a, b)`: the conversions TorchScript supports, one argument each."""
    values = args[0] if len(args) == 1 and isinstance(args[0], tuple) else args
    pieces, i, used = [], 0, 0
    while i < len(self):
        at = self.find("%", i)
        if at < 0 or at + 1 >= len(self):
            pieces.append(self[i:])
            break
        pieces.append(self[i:at])
        key = self[at + 1]
        if key == "%":
            pieces.append("%")
        else:
            convert = _PERCENT_CONVERSIONS.get(key)
            if convert is None:
                raise TorchScriptError(f"The specifier %{key} is not supported in TorchScript format strings")
            if used >= len(values):
                raise TorchScriptError("Too few arguments for format string")
            pieces.append(convert(values[used]))
            used += 1
        i = at + 2
    if used < len(values):
        raise TorchScriptError("Too many arguments for format string")
    return "".join(pieces)


@kernel("prim::Print")
def print_(*args: object) -> None:
    sys.stdout.write(" ".join(format_value(a) for a in args) + "\n")


@kernel("aten::warn")
def warn(message: str, stacklevel: int = 2) -> None:
    sys.stderr.write(f"UserWarning: {message}\n")


# --------------------------------------------------------------------------------------
# Operators on str
# --------------------------------------------------------------------------------------


@kernel("aten::add.str")
def add(a: str, b: str) -> str:
    return a + b


@kernel("aten::len.str")
def length(s: str) -> int:
    return len(s)


@kernel("aten::__getitem__.str", "prim::StringIndex")
def getitem(s: str, index: int) -> str:
    size = len(s)
    if not -size <= index < size:
        at = index + size if index < 0 else index
        raise TorchScriptError(f"basic_string::at: __n (which is {at}) >= this->size() (which is {size})")
    return s[index]


@kernel("aten::slice.str")
def slice_str(string: str, start: int | None = None, end: int | None = None, step: int = 1) -> str:
    if step == 0:
        raise TorchScriptError("List slice should have non-zero step")
    return string[start:end:step]


@kernel("aten::list")
def to_list(t: str) -> list[str]:
    return list(t)


@kernel("aten::ord")
def ord_(string: str) -> int:
    if len(string) != 1:
        raise TorchScriptError(f"String for ord() must be 1 character, found {len(string)}")
    return ord(string)


@kernel("aten::chr")
def chr_(i: int) -> str:
    if not 0 <= i < 0x110000:
        raise TorchScriptError(f"chr() arg not in range(0x110000), found {i}")
    return chr(i)


for _name, _builtin in (("aten::hex", hex), ("aten::oct", oct), ("aten::bin", bin)):
    register_kernel(_name, _builtin)


for _name, _op in (
    ("eq", str.__eq__),
    ("ne", str.__ne__),
    ("lt", str.__lt__),
    ("le", str.__le__),
    ("gt", str.__gt__),
    ("ge", str.__ge__),
):
    register_kernel(f"aten::{_name}.str", _op)

# Methods whose TorchScript schema is exactly Python's: (self) -> str or bool.
for _name in (
    "upper",
    "lower",
    "swapcase",
    "title",
    "capitalize",
    "isdigit",
    "isalpha",
    "isalnum",
    "isspace",
    "islower",
    "isupper",
    "istitle",
    "isidentifier",
    "isnumeric",
    "isdecimal",
    "isprintable",
):
    register_kernel(f"aten::{_name}", getattr(str, _name))


def stripping(method: Callable[[str, str], str]) -> Kernel:
    """`strip(self, chars)` & co; TorchScript's default characters leave out the carriage return."""

    def strip(self: str, chars: str = " \n\t\f\v") -> str:
        return method(self, chars)

    return strip


for _name, _method in (
    ("aten::strip", str.strip),
    ("aten::lstrip", str.lstrip),
    ("aten::rstrip", str.rstrip),
):
    register_kernel(_name, stripping(_method))


@kernel("aten::split.str")
def split(self: str, separator: str | None = None, max: int = -1) -> list[str]:
    if separator == "":
        raise TorchScriptError("ValueError: empty separator")
    return self.split(separator, max)


@kernel("aten::rsplit")
def rsplit(self: str, separator: str = " ", max: int = -1) -> list[str]:
    if separator == "":
        raise TorchScriptError("ValueError: empty separator")
    return self.rsplit(separator, max)


@kernel("aten::splitlines")
def splitlines(self: str, keepends: bool = False) -> list[str]:
    return self.splitlines(keepends)


@kernel("aten::partition")
def partition(self: str, separator: str) -> tuple[str, str, str]:
    return self.partition(separator)


@kernel("aten::rpartition")
def rpartition(self: str, separator: str) -> tuple[str, str, str]:
    return self.rpartition(separator)


@kernel("aten::join")
def join(self: str, values: Sequence[str]) -> str:
    return self.join(values)


@kernel("aten::replace")
def replace(self: str, old: str, new: str, max: int = -1) -> str:
    return self.replace(old, new, max)


def _range(s: str, start: int, end: int) -> tuple[int, int]:
    """TorchScript's [start, end) for find & co: end=-1 (the default) means the whole string."""
    size = len(s)
    return (start + size if start < 0 else start), (end + size + 1 if end < 0 else end)


def in_range(method: Callable[[str, str, int, int], object]) -> Kernel:
    """`find(self, substr, start, end)` & co: the str method over `_range`; where Python's
    `index` and `rindex` raise ValueError, TorchScript's error."""

    def search(self: str, substr: str, start: int = 0, end: int = -1) -> object:
        try:
            return method(self, substr, *_range(self, start, end))
        except ValueError:
            raise TorchScriptError("ValueError: substring not found") from None

    return search


for _name, _method in (
    ("aten::find", str.find),
    ("aten::rfind", str.rfind),
    ("aten::index.str", str.index),
    ("aten::rindex", str.rindex),
    ("aten::count", str.count),
    ("aten::startswith", str.startswith),
    ("aten::endswith", str.endswith),
):
    register_kernel(_name, in_range(_method))


def _fill(fillchar: str) -> str:
    if len(fillchar) != 1:
        raise TorchScriptError("TypeError: The fill character must be exactly one character long")
    return fillchar


def justifying(method: Callable[[str, int, str], str]) -> Kernel:
    """`center(self, width, fillchar)` & co: one fill character, as Python's."""

    def justify(self: str, width: int, fillchar: str = " ") -> str:
        return method(self, width, _fill(fillchar))

    return justify


for _name, _method in (("aten::center", str.center), ("aten::ljust", str.ljust), ("aten::rjust", str.rjust)):
    register_kernel(_name, justifying(_method))


@kernel("aten::zfill")
def zfill(self: str, width: int) -> str:
    return self.zfill(width)


@kernel("aten::expandtabs")
def expandtabs(self: str, tabsize: int = 8) -> str:
    return self.expandtabs(tabsize)
