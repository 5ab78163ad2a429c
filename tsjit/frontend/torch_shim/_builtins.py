"""Names the shim gives to operators and to TorchScript-only things: operators reached
as `torch.X` (`from torch import cat` works, and the script frontend resolves the object
to `aten::cat`; called in Python it runs eagerly through tsjit's kernels), and the
annotation helpers of `torch._jit_internal`."""

from __future__ import annotations

from typing import Any, ClassVar


class TorchBuiltin:
    """An operator under a torch name (`torch.relu` is `aten::relu`): scripted code
    calls the operator, Python code runs it eagerly (`_dispatch.function`). `overload`
    names one overload (`torch.ops.aten.add.Tensor`: "Tensor"; `.default`: ""); None
    means all of them. One object per name, so the frontend and the eager caches see
    the same object."""

    __slots__ = ("_call", "operator", "overload", "python_name")
    _known: ClassVar[dict[tuple[str, str, str | None], TorchBuiltin]] = {}

    def __new__(cls, operator: str, python_name: str, overload: str | None = None) -> TorchBuiltin:
        key = (operator, python_name, overload)
        known = cls._known.get(key)
        if known is None:
            known = cls._known[key] = super().__new__(cls)
            known.operator = operator  # "aten::cat"
            known.python_name = python_name  # "torch.cat"
            known.overload = overload
            known._call = None
        return known

    def __init__(self, operator: str, python_name: str, overload: str | None = None):
        pass  # made once per name by __new__

    def __getattr__(self, name: str) -> TorchBuiltin:
        """`torch.ops.aten.add.Tensor`: one overload of an operator packet."""
        if name.startswith("_") or not self.python_name.startswith("torch.ops.") or self.overload is not None:
            raise AttributeError(name)
        return TorchBuiltin(self.operator, f"{self.python_name}.{name}", "" if name == "default" else name)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """The first call: from now on the object's class is one whose `__call__` is the
        operator's eager function itself (one call less on every later call)."""
        from tsjit.frontend.torch_shim._dispatch import function

        call = self._call = function(self.operator, self.python_name, overload=self.overload)
        self.__class__ = type("TorchBuiltin", (TorchBuiltin,), {"__slots__": (), "__call__": call.runner})  # pyright: ignore[reportFunctionMemberAccess]
        return call(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<TorchScript operator {self.operator}>"

    def __reduce__(self) -> tuple[Any, ...]:
        return (TorchBuiltin, (self.operator, self.python_name, self.overload))


class PythonOperator(TorchBuiltin):
    """A torch function the shim writes in Python (`torch.tensor`, `torch.numel`) that
    is an operator to scripted code: `from torch import tensor` scripts as `aten::tensor`."""

    __slots__ = ("_python",)

    def __new__(cls, operator: str, python_name: str, python: Any = None) -> PythonOperator:
        made = super().__new__(cls, operator, python_name)
        assert isinstance(made, PythonOperator)
        made._python = python
        return made

    def __init__(self, operator: str, python_name: str, python: Any = None):
        pass

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._python(*args, **kwargs)


class OperatorNamespace:
    """`torch.ops` (`name` "ops") and `torch.ops.<namespace>`: operators of the schema
    table by name (`torch.ops.aten.add` is the operator packet `aten::add`)."""

    def __init__(self, name: str = "ops"):
        self.name = name

    def __getattr__(self, name: str) -> Any:
        from tsjit.dialects.schema import TABLE, has_operator

        if name.startswith("__"):
            raise AttributeError(name)
        if self.name == "ops":
            if name not in TABLE.namespaces:
                raise AttributeError(f"'_Ops' object has no attribute '{name}'")
            found: Any = OperatorNamespace(name)
        else:
            operator = f"{self.name}::{name}"
            if not has_operator(operator):
                raise AttributeError(f"'_OpNamespace' '{self.name}' object has no attribute '{name}'")
            found = TorchBuiltin(operator, f"torch.ops.{self.name}.{name}")
        setattr(self, name, found)
        return found

    def __repr__(self) -> str:
        return "torch.ops" if self.name == "ops" else f"torch.ops.{self.name}"


class TorchNamespace:
    """`torch._C._nn`, `torch.linalg`, `torch.special`: operators by attribute name
    (`torch.linalg.norm` is `aten::linalg_norm`)."""

    def __init__(self, python_name: str, prefix: str = ""):
        self.__name__ = python_name
        self._prefix = prefix

    def __getattr__(self, name: str) -> Any:
        from tsjit.dialects.schema import has_operator

        operator = f"aten::{self._prefix}{name}"
        if name.startswith("__") or not has_operator(operator):
            raise AttributeError(f"module '{self.__name__}' has no attribute '{name}'")
        builtin = TorchBuiltin(operator, f"{self.__name__}.{name}")
        setattr(self, name, builtin)
        return builtin

    def __repr__(self) -> str:
        return f"<module '{self.__name__}' (tsjit's torch shim)>"


class BroadcastingList:
    """`BroadcastingList2[int]`: a `List[int]` of fixed length that also accepts a
    single int (TorchScript's `int[2]`); in Python it is just `List[T]`."""

    def __init__(self, size: int):
        self.size = size

    def __getitem__(self, element: Any) -> Any:
        return list[element]

    def __repr__(self) -> str:
        return f"BroadcastingList{self.size}"


BroadcastingList1 = BroadcastingList(1)
BroadcastingList2 = BroadcastingList(2)
BroadcastingList3 = BroadcastingList(3)


BOOLEAN_DISPATCHED: dict[Any, dict[str, Any]] = {}
"""Functions made by `boolean_dispatch`, with how they dispatch (the keys of PyTorch's
`torch._jit_internal.boolean_dispatched`: if_true, if_false, index, default, arg_name)."""


def boolean_dispatch(
    arg_name: str,
    arg_index: int,
    default: bool,
    if_true: Any,
    if_false: Any,
    module_name: str,
    func_name: str,
) -> Any:
    """A function that calls `if_true` or `if_false` depending on one bool argument
    (`F.max_pool2d(..., return_indices=True)`); scripting picks one at compile time, so
    the argument must be a constant there, as in TorchScript."""

    def fn(*args: Any, **kwargs: Any) -> Any:
        if arg_name in kwargs:
            flag = kwargs[arg_name]
        elif len(args) > arg_index:
            flag = args[arg_index]
        else:
            flag = default
        return (if_true if flag else if_false)(*args, **kwargs)

    fn.__module__ = module_name
    fn.__name__ = fn.__qualname__ = func_name
    BOOLEAN_DISPATCHED[fn] = {"if_true": if_true, "if_false": if_false, "index": arg_index, "default": default,
                              "arg_name": arg_name}  # fmt: skip
    return fn


OVERLOADS: dict[tuple[str, str], list[Any]] = {}
"""Declared overloads by the (module, qualified name) of the function they overload."""


def overload(func: Any) -> Any:
    """`torch.jit._overload`: declares one signature of a function whose implementation
    (the undecorated definition of the same name that follows) TorchScript compiles once
    per declaration; calls pick the declaration their arguments match."""
    OVERLOADS.setdefault((func.__module__, func.__qualname__), []).append(func)
    return func
