"""Names the shim gives to operators and to TorchScript-only things: operators reached
as `torch.X` (`from torch import cat` works, and the script frontend resolves the object
to `aten::cat`; called in Python it runs eagerly through tsjit's kernels), and the
annotation helpers of `torch._jit_internal`."""

from __future__ import annotations

from typing import Any, ClassVar



class TorchBuiltin:
    """An operator under a torch name (`torch.relu` is `aten::relu`): scripted code
    calls the operator, Python code runs it eagerly (`_dispatch.function`). One object
    per name, so the frontend and the eager caches see the same object."""

    __slots__ = ("operator", "python_name", "_call")
    _known: ClassVar[dict[tuple[str, str], TorchBuiltin]] = {}

    def __new__(cls, operator: str, python_name: str) -> TorchBuiltin:
        known = cls._known.get((operator, python_name))
        if known is None:
            known = cls._known[(operator, python_name)] = super().__new__(cls)
            known.operator = operator  # "aten::cat"
            known.python_name = python_name  # "torch.cat"
            known._call = None
        return known

    def __init__(self, operator: str, python_name: str):
        pass  # made once per name by __new__

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """The first call: from now on the object's class is one whose `__call__` is the
        operator's eager function itself (one call less on every later call)."""
        from tsjit.frontend.torch_shim._dispatch import function

        call = self._call = function(self.operator, self.python_name)

        def bound(_self: TorchBuiltin, *args: Any, **kwargs: Any) -> Any:
            return call(*args, **kwargs)

        runner = call.runner  # pyright: ignore[reportFunctionMemberAccess]
        self.__class__ = type("TorchBuiltin", (TorchBuiltin,), {"__slots__": (), "__call__": runner or bound})
        return call(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<TorchScript operator {self.operator}>"

    def __reduce__(self) -> tuple[Any, ...]:
        return (TorchBuiltin, (self.operator, self.python_name))


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
    """`torch._C._nn`, `torch.linalg`, `torch.ops.aten`: operators by attribute name
    (`torch.linalg.norm` is `aten::linalg_norm`)."""

    def __init__(self, python_name: str, namespace: str = "aten", prefix: str = ""):
        self.__name__ = python_name
        self._namespace = namespace
        self._prefix = prefix

    def __getattr__(self, name: str) -> Any:
        from tsjit.dialects.schema import has_operator

        operator = f"{self._namespace}::{self._prefix}{name}"
        if name.startswith("__") or not has_operator(operator):
            raise AttributeError(f"module '{self.__name__}' has no attribute '{name}'")
        builtin = TorchBuiltin(operator, f"{self.__name__}.{name}")
        setattr(self, name, builtin)
        return builtin

    def __repr__(self) -> str:
        return f"<module '{self.__name__}' (tsjit's torch shim)>"


class OpsNamespace:
    """`torch.ops`: `torch.ops.aten.add` is the operator `aten::add`."""

    __name__ = "torch.ops"

    def __getattr__(self, namespace: str) -> OperatorNamespace:
        from tsjit.dialects.schema import TABLE

        if namespace.startswith("__") or namespace not in TABLE.namespaces:
            raise AttributeError(f"module 'torch.ops' has no attribute '{namespace}'")
        found = OperatorNamespace(f"torch.ops.{namespace}", namespace)
        setattr(self, namespace, found)
        return found


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
