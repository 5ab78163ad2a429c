"""Arguments checked against a graph's signature before anything runs.

Every entry into compiled code from outside (`ts-run`, `tsjit.compile`, scripted
callables: the executors' `__call__`) first checks its arguments against the entry
graph's input types, as PyTorch does when a Python value becomes an IValue, with its
wording: `forward() Expected a value of type 'int' for argument 'n' but instead found
type 'float'.` What PyTorch converts is converted the same way: a bool or a numpy integer
where an int is expected, an int where a float is, a tuple where a list is, a list where
a tuple is, a string where a Device is, a 0-dim tensor where a number is; a numpy scalar
(which carries a dtype) where a Tensor is expected is its 0-dim array. What it rejects
is rejected: a Python int where a Tensor is expected, 2.5 for an int, an int outside 64
bits, a float in a `List[int]`, an array of a dtype TorchScript has no name for.

    arguments = ArgumentCheck(function)   # one per executor
    args = arguments.check(args)          # the same tuple when nothing needed converting

The check is generated per signature as one function whose common case is a single
condition of `type(a) is ...` tests (a few dozen nanoseconds per argument); anything
else takes the full check, which converts or raises.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Sequence
from typing import Any

import numpy as np
from xdsl.dialects import func
from xdsl.ir import Attribute

from tsjit.dialects.types import (
    BoolType,
    DeviceType,
    DictType,
    FloatType,
    IntType,
    ListType,
    NoneType,
    NumberType,
    OptionalType,
    StrType,
    TensorType,
    TupleType,
    UnionType,
)
from tsjit.runtime.autograd.variable import Variable
from tsjit.runtime.errors import TorchScriptError
from tsjit.runtime.values import DTYPE_BY_NUMPY, Device, NamedTupleValue

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
TENSOR_DTYPES = frozenset(DTYPE_BY_NUMPY)
"""The numpy dtypes a tensor may have: those TorchScript names."""

class ArgumentCheck:
    """The check of calls of `function` against its inputs (see the module docstring);
    errors name the function and its arguments as the graph does.

    `check(args)` is the one to call: the arguments, checked and converted (the same
    tuple when nothing needed converting). For speed it takes any numpy array as a
    tensor; `full(args)` also checks their dtypes, and executors call it where a new
    kind of argument is met before it can run (a new ArgumentSpec, a profiling run, an
    unspecialized plan), since every specialized plan's guard or cache key fixes the
    dtypes it admits. `condition(params)` is the fast test as an expression, for
    generated code to inline."""

    def __init__(self, function: func.FuncOp):
        from tsjit.diagnostics import SourceLocation

        types = list(function.function_type.inputs.data)
        location = SourceLocation.of_op(function)
        self.full = _SlowCheck(
            _short_name(function.sym_name.data),
            [_argument_name(function, k) for k in range(len(types))],
            types,
            list(function.function_type.outputs.data),
            None if location is None else str(location),
        )
        self.types = types
        self.check: Callable[[tuple[Any, ...]], tuple[Any, ...]] = _generate(self)

    def condition(self, params: Sequence[str], positions: Container[int] | None = None) -> str | None:
        """An expression over the arguments (variables named `params`) that holds when
        `check` would return them unchanged (of those at `positions` only, if given);
        None when some type has no such test."""
        tests = [
            _fast_test(t, p) for k, (t, p) in enumerate(zip(self.types, params)) if positions is None or k in positions
        ]
        if any(test is None for test in tests):
            return None
        return " and ".join(f"({test})" for test in tests if test != "True") or "True"


def _short_name(symbol: str) -> str:
    """`forward` for `__torch__.Model.forward`, as PyTorch names a method."""
    return symbol.rsplit(".", 1)[-1] if symbol.startswith("__torch__.") else symbol


def _argument_name(function: func.FuncOp, index: int) -> str:
    if not function.is_declaration:
        hint = function.body.block.args[index].name_hint
        if hint:
            base, dot, suffix = hint.rpartition(".")
            return base if dot and suffix.isdigit() and base else hint
    return f"argument{index}"


# --------------------------------------------------------------------------------------
# The generated fast check
# --------------------------------------------------------------------------------------


def _fast_test(t: Attribute, name: str) -> str | None:
    """A condition that holds for the common well-typed values of `t` (no conversion
    needed); None when the type has none worth generating."""
    if isinstance(t, TensorType):
        return f"type({name}) is ndarray"  # its dtype: see `ArgumentCheck`
    if isinstance(t, IntType):
        return f"(type({name}) is int and {INT64_MIN} <= {name} <= {INT64_MAX})"
    if isinstance(t, FloatType):
        return f"type({name}) is float"
    if isinstance(t, BoolType):
        return f"type({name}) is bool"
    if isinstance(t, StrType):
        return f"type({name}) is str"
    if isinstance(t, NoneType):
        return f"{name} is None"
    if isinstance(t, OptionalType):
        inner = _fast_test(t.element_type, name)
        return None if inner is None else f"({name} is None or {inner})"
    if not _checked(t):
        return "True"
    return None


def _generate(arguments: ArgumentCheck) -> Callable[[tuple[Any, ...]], tuple[Any, ...]]:
    slow = arguments.full
    types = arguments.types
    arity = len(types)
    params = [f"a{k}" for k in range(arity)]
    tests = [_fast_test(t, p) for t, p in zip(types, params)]
    fast = " and ".join(f"({test})" for test in tests if test is not None and test != "True") or "True"
    converted = [k for k, test in enumerate(tests) if test is None]
    lines = ["def check(args):", f"    if len(args) != {arity}:", "        return slow(args)"]
    if arity:
        lines.append(f"    {', '.join(params)}{',' if arity == 1 else ''} = args")
    lines += [f"    if not ({fast}):", "        return slow(args)"]
    if converted:
        for k in converted:
            lines.append(f"    c{k} = convert{k}(a{k})")
        changed = " or ".join(f"c{k} is not a{k}" for k in converted)
        rebuilt = [f"c{k}" if k in converted else f"a{k}" for k in range(arity)]
        lines += [f"    if {changed}:", f"        return ({', '.join(rebuilt)},)"]
    lines.append("    return args")
    namespace: dict[str, Any] = {"ndarray": np.ndarray, "slow": slow}
    for k in converted:
        namespace[f"convert{k}"] = slow.converter(k)
    exec(compile("\n".join(lines) + "\n", f"<argument check of {slow.function_name}>", "exec"), namespace)  # noqa: S102 -- generated from the signature
    return namespace["check"]


def _checked(t: Attribute) -> bool:
    """Whether values of `t` are checked at all: classes, futures, enums, Any and the
    like are the program's own objects or anything."""
    return isinstance(
        t,
        TensorType | IntType | FloatType | BoolType | StrType | NoneType | NumberType | DeviceType
        | OptionalType | ListType | TupleType | DictType | UnionType,
    )  # fmt: skip


# --------------------------------------------------------------------------------------
# The full check
# --------------------------------------------------------------------------------------


class _Mismatch(Exception):
    """A value that is not of the type; `detail` says more when the type name alone
    would not (an int out of range, an unsupported dtype)."""

    def __init__(self, detail: str = ""):
        super().__init__(detail)
        self.detail = detail


class _SlowCheck:
    """Checks and converts every argument; raises PyTorch's error for the first bad one."""

    def __init__(
        self,
        function_name: str,
        names: Sequence[str],
        types: Sequence[Attribute],
        results: Sequence[Attribute],
        location: str | None,
    ):
        self.function_name = function_name
        self.names = list(names)
        self.types = list(types)
        self.results = list(results)
        self.location = location
        """Where the function is defined: the errors point at its signature."""

    def __call__(self, args: tuple[Any, ...]) -> tuple[Any, ...]:
        if len(args) > len(self.types):
            raise self.error(
                f"{self.function_name}() expected at most {len(self.types)} argument(s) but received "
                f"{len(args)} argument(s). Declaration: {self.declaration()}"
            )
        if len(args) < len(self.types):
            raise self.error(
                f"{self.function_name}() is missing value for argument '{self.names[len(args)]}'. "
                f"Declaration: {self.declaration()}"
            )
        converted = tuple(self.converter(k)(a) for k, a in enumerate(args))
        return args if all(c is a for c, a in zip(converted, args)) else converted

    def converter(self, index: int) -> Callable[[Any], Any]:
        t = self.types[index]

        def convert_argument(value: Any) -> Any:
            try:
                return convert(value, t)
            except _Mismatch as mismatch:
                raise self.error(self.message(index, value, mismatch.detail)) from None

        return convert_argument

    def message(self, index: int, value: Any, detail: str) -> str:
        text = (
            f"{self.function_name}() Expected a value of type '{type_name(self.types[index])}' for argument "
            f"'{self.names[index]}' but instead found type '{value_type_name(value)}'"
        )
        return f"{text} ({detail})." if detail else f"{text}."

    def error(self, message: str) -> TorchScriptError:
        return TorchScriptError(message, "RuntimeError").at(self.location)

    def declaration(self) -> str:
        params = ", ".join(f"{type_name(t)} {n}" for t, n in zip(self.types, self.names))
        results = [type_name(t) for t in self.results]
        returned = results[0] if len(results) == 1 else f"({', '.join(results)})"
        return f"{self.function_name}({params}) -> {returned}"


def type_name(t: Attribute) -> str:
    """A type as PyTorch's argument errors spell it: `List[int]`, `Optional[Tensor]`."""
    from tsjit.formats.python_code import python_type

    try:
        return python_type(t)
    except Exception:  # a type without a Python spelling: its IR form
        return str(t)


def value_type_name(value: Any) -> str:
    if isinstance(value, np.ndarray) and value.dtype in TENSOR_DTYPES:
        return "Tensor"
    return type(value).__name__


def convert(value: Any, t: Attribute) -> Any:
    """`value` as a value of `t`: itself, or converted as PyTorch converts it; raises
    `_Mismatch` otherwise."""
    if isinstance(t, TensorType):
        if isinstance(value, np.ndarray):
            if value.dtype not in TENSOR_DTYPES:
                raise _Mismatch(f"of dtype {value.dtype}, which no TorchScript dtype names")
            return value
        if value is None:  # an undefined tensor
            return None
        if isinstance(value, Variable):  # a tensor that records gradients
            if value.array.dtype not in TENSOR_DTYPES:
                raise _Mismatch(f"of dtype {value.array.dtype}, which no TorchScript dtype names")
            return value
        if isinstance(value, np.generic) and value.dtype in TENSOR_DTYPES:
            return np.asarray(value)  # numpy's scalar is its 0-dim array, dtype and all
        raise _Mismatch()
    if isinstance(t, IntType):
        return _int(value)
    if isinstance(t, FloatType):
        return _float(value)
    if isinstance(t, BoolType):
        if isinstance(value, bool | np.bool_ | int | float | np.integer | np.floating):
            return bool(value)
        raise _Mismatch()
    if isinstance(t, NumberType):
        if isinstance(value, bool | np.bool_):
            return bool(value)
        if isinstance(value, float | np.floating):
            return float(value)
        return _int(value)
    if isinstance(t, StrType):
        if isinstance(value, str):
            return value
        if isinstance(value, bytes):
            try:
                return value.decode()
            except UnicodeDecodeError:
                raise _Mismatch("bytes that are not UTF-8") from None
        raise _Mismatch()
    if isinstance(t, NoneType):
        if value is None:
            return None
        raise _Mismatch()
    if isinstance(t, DeviceType):
        if isinstance(value, Device):
            return value
        if isinstance(value, str):
            try:
                return Device.parse(value)
            except TorchScriptError as error:
                raise _Mismatch(error.message) from None
        raise _Mismatch()
    if isinstance(t, OptionalType):
        return None if value is None else convert(value, t.element_type)
    if isinstance(t, ListType):
        if not isinstance(value, list | tuple):
            raise _Mismatch()
        items = [convert(item, t.element_type) for item in value]
        if isinstance(value, list) and all(a is b for a, b in zip(items, value)):
            return value  # the caller's list itself, as the runtime shares lists
        return items
    if isinstance(t, TupleType):
        if not isinstance(value, tuple | list) or len(value) != len(t.types):
            raise _Mismatch()
        items = tuple(convert(item, e) for item, e in zip(value, t.types))
        if isinstance(value, tuple) and all(a is b for a, b in zip(items, value)):
            return value
        if isinstance(value, NamedTupleValue):
            return NamedTupleValue(items, value.qualified_name, value.fields)
        return items
    if isinstance(t, DictType):
        if not isinstance(value, dict):
            raise _Mismatch()
        entries = [(convert(k, t.key_type), convert(v, t.value_type)) for k, v in value.items()]
        if all(a is k and b is v for (a, b), (k, v) in zip(entries, value.items())):
            return value
        return dict(entries)
    if isinstance(t, UnionType):
        for member in t.types:
            try:
                return convert(value, member)
            except _Mismatch:
                continue
        raise _Mismatch()
    return value  # Any, classes, futures, enums: the program's own objects or anything


def _int(value: Any) -> int:
    if isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind in "iub":
        value = value.item()
    if isinstance(value, bool | np.bool_ | int | np.integer):
        number = int(value)
        if not INT64_MIN <= number <= INT64_MAX:
            raise _Mismatch(f"{number} is out of the range of a 64-bit int")
        return number
    raise _Mismatch()


def _float(value: Any) -> float:
    if isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind in "iubf":
        value = value.item()
    if isinstance(value, bool | np.bool_ | int | float | np.integer | np.floating):
        try:
            return float(value)
        except OverflowError:
            raise _Mismatch(f"{value} is out of the range of a float") from None
    raise _Mismatch()
