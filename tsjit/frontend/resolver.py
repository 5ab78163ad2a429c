"""Names a function uses that are not its variables: TorchScript's builtins (`len`,
`range`, `float`, `ValueError`), then the Python scope it was defined in — modules such
as `torch`, `math`, `torch.nn.functional`, other script functions, constants, NamedTuple
classes, dtypes. Python objects become sugared values here (TorchScript's
`toSugaredValue`), and namespaces resolve their attributes to operators by name.
"""

from __future__ import annotations

import ast
import builtins as python_builtins
import inspect
import sys
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from tsjit.dialects.types import FloatType, IntType
from tsjit.frontend import builtins
from tsjit.frontend.annotations import MISSING
from tsjit.frontend.sugared_values import (
    BooleanDispatchValue,
    BuiltinFunction,
    CastValue,
    ContextManagerClass,
    ExceptionValue,
    FunctionValue,
    MagicMethod,
    OverloadedFunctionValue,
    PrintValue,
    PythonModuleValue,
    SimpleValue,
    SpecialForm,
    SugaredValue,
    builtin_operator_exists,
)

if TYPE_CHECKING:
    from tsjit.frontend.compilation import CompilationUnit
    from tsjit.frontend.emitter import FunctionEmitter


@dataclass
class Scope:
    """The Python names a function sees: its module's globals and its closure."""

    globals: Mapping[str, object]
    closure: Mapping[str, object] = field(default_factory=dict)

    def lookup(self, name: str) -> object:
        if name in self.closure:
            return self.closure[name]
        if name in self.globals:
            return self.globals[name]
        builtin_names = self.globals.get("__builtins__", python_builtins)
        if isinstance(builtin_names, dict):
            return builtin_names.get(name, MISSING)
        return getattr(builtin_names, name, MISSING)

    def lookup_expr(self, expr: ast.expr) -> object:
        """The object a name or attribute chain (`torch.nn.functional`) denotes."""
        if isinstance(expr, ast.Name):
            return self.lookup(expr.id)
        if isinstance(expr, ast.Attribute):
            base = self.lookup_expr(expr.value)
            if base is MISSING:
                return MISSING
            return getattr(base, expr.attr, MISSING)
        if isinstance(expr, ast.Constant) and expr.value is None:
            return None
        return MISSING

    @staticmethod
    def of_function(function: types.FunctionType) -> Scope:
        closure = {}
        if function.__closure__:
            for name, cell in zip(function.__code__.co_freevars, function.__closure__):
                try:
                    closure[name] = cell.cell_contents
                except ValueError:  # an empty cell: the name is not bound yet
                    continue
        return Scope(function.__globals__, closure)


_EXCEPTIONS = frozenset(
    name
    for name, value in vars(python_builtins).items()
    if isinstance(value, type) and issubclass(value, BaseException)
)


def _shim_module_names() -> dict[int, str]:
    from tsjit.frontend import torch_shim
    from tsjit.frontend.library import functional
    from tsjit.frontend.torch_shim import _builtins, jit, nn

    return {
        id(torch_shim): "torch", id(nn): "torch.nn", id(functional): "torch.nn.functional", id(jit): "torch.jit",
        id(_builtins): "torch._jit_internal", id(nn.init): "torch.nn.init",
    }  # fmt: skip


class Resolver:
    """Resolution for one compilation unit (it compiles the functions names refer to)."""

    def __init__(self, unit: CompilationUnit):
        self.unit = unit
        self._module_names: dict[int, str] | None = None

    # -- TorchScript's own builtins, then the Python scope --------------------------------
    def global_value(
        self, em: FunctionEmitter, node: ast.AST, name: str, scope: Scope
    ) -> SugaredValue | None:
        if (builtin := self.builtin(name)) is not None:
            return builtin
        obj = scope.lookup(name)
        if obj is MISSING:
            return self.serialized_code_name(name)
        return self.to_sugared(em, node, obj, name)

    def serialized_code_name(self, name: str) -> SugaredValue | None:
        """Names TorchScript's own printed code uses without importing them (PyTorch's
        `SourceImporter`): `torch.add(...)`, `ops.prim.dtype(...)`, `annotate(T, v)`,
        `uninitialized(T)`, `fork(closure)`, `__torch__.<class>`. A user's definitions
        shadow them."""
        import math

        from tsjit.frontend import torch_shim

        if name == "torch":
            return PythonModuleValue("torch", torch_shim)
        if name == "math":
            return PythonModuleValue("math", math)
        if name == "ops":
            return PythonModuleValue("ops")
        if name == "__torch__":
            return PythonModuleValue("__torch__")
        if name in ("annotate", "uninitialized", "unchecked_cast", "fork", "isinstance"):
            return SpecialForm(name)
        return None

    def builtin(self, name: str) -> SugaredValue | None:
        if name == "print":
            return PrintValue()
        if name in builtins.SPECIAL_FORMS or name == "len":
            return SpecialForm(name)
        if name in builtins.CASTS:
            type_class, operator = builtins.CASTS[name]
            return MagicMethod(f"__{name}__", CastValue(type_class(), operator))
        if name in builtins.BUILTIN_FUNCTIONS:
            operator, magic = builtins.BUILTIN_FUNCTIONS[name]
            function = BuiltinFunction(operator)
            return MagicMethod(magic, function) if magic else function
        if name == "AssertionError":
            return ExceptionValue("AssertionError", "")
        return None

    def module_name(self, module: types.ModuleType) -> str:
        if self._module_names is None:
            self._module_names = _shim_module_names()
        return self._module_names.get(id(module), module.__name__)

    # -- Python objects ---------------------------------------------------------------------
    def to_sugared(self, em: FunctionEmitter, node: ast.AST, obj: object, name: str) -> SugaredValue:
        from tsjit.frontend.torch_shim._builtins import TorchBuiltin
        from tsjit.frontend.torch_shim._tensor import dtype as shim_dtype

        if isinstance(obj, SugaredValue):  # a scope of printed code holds its namespaces as such
            return obj
        if isinstance(obj, types.ModuleType):
            return PythonModuleValue(self.module_name(obj), obj)
        if obj is None or isinstance(obj, (bool, int, float, str)):
            return SimpleValue(em.constant(obj, None, node))
        if isinstance(obj, shim_dtype) or type(obj).__name__ == "dtype" and type(obj).__module__ == "torch":
            return SimpleValue(em.constant(_dtype_code(obj), IntType(), node))
        if (code := _enum_code(obj)) is not None:  # memory formats and layouts are ints
            return SimpleValue(em.constant(code, IntType(), node))
        if isinstance(obj, tuple) and not hasattr(obj, "_fields"):
            values = [self.to_sugared(em, node, item, name).as_value(em, node) for item in obj]
            return SimpleValue(em.tuple_of(values, node))
        if isinstance(obj, TorchBuiltin):
            packet = obj.python_name.startswith("torch.ops.") and obj.overload is None
            return BuiltinFunction(obj.operator, overload=obj.overload, packet=packet)
        if (operators := _operator_registry_value(obj)) is not None:
            return operators
        if _is_compiled_function(obj):  # a scripted or traced function: its graph is called
            return FunctionValue(obj, obj.name)  # pyright: ignore[reportAttributeAccessIssue]
        if isinstance(obj, type):
            return self.class_value(em, node, obj, name)
        if callable(obj):
            return self.callable_value(em, node, obj, name)
        raise em.error(
            node, f"python value of type '{type(obj).__name__}' cannot be used as a value in TorchScript"
        )

    def class_value(self, em: FunctionEmitter, node: ast.AST, cls: type, name: str) -> SugaredValue:
        if issubclass(cls, BaseException):
            if cls.__module__ == "builtins" and cls.__name__ == "AssertionError":
                return ExceptionValue("AssertionError", "")
            prefix = "builtins" if cls.__module__ == "builtins" else cls.__module__
            return ExceptionValue(cls.__name__, f"{prefix}.{cls.__qualname__}")
        if issubclass(cls, tuple) and hasattr(cls, "_fields"):
            return self.unit.named_tuple_constructor(cls)
        if cls.__name__ in ("no_grad", "enable_grad") and cls.__module__.startswith(
            ("torch", "tsjit.frontend")
        ):
            return ContextManagerClass(self.unit.context_manager(cls.__name__))
        if self.unit.class_type_of(cls) is not None:
            return self.unit.class_value(self.unit.class_info(cls))
        raise em.error(node, f"class '{cls.__qualname__}' cannot be used as a value in TorchScript")

    def callable_value(self, em: FunctionEmitter, node: ast.AST, obj: object, name: str) -> SugaredValue:
        module = getattr(obj, "__module__", None) or ""
        qualname = getattr(obj, "__qualname__", getattr(obj, "__name__", name))
        full = f"{module}.{qualname}"
        if full in builtins.RENAMED_FUNCTIONS:
            return BuiltinFunction(builtins.RENAMED_FUNCTIONS[full])
        if (operator := python_builtin(obj)) is not None:
            return BuiltinFunction(operator)
        library = self.library_function(full)
        if library is not None:
            return library
        if module in _JIT_MODULES and qualname in builtins.JIT_FUNCTIONS:
            return _jit_function(qualname)
        if (dispatch := boolean_dispatch_of(obj)) is not None:
            return BooleanDispatchValue(dispatch, full)
        if (declarations := overloads_of(obj)) is not None:
            return OverloadedFunctionValue(declarations, obj, full)
        if isinstance(obj, types.FunctionType):
            from tsjit.frontend.classes import UnusedCallValue, modifier

            if modifier(obj) == "ignore" or getattr(obj, "_torchdynamo_disable", False):
                raise em.error(
                    node,
                    f"function '{name}' is ignored by TorchScript (@torch.jit.ignore) and cannot be called",
                )
            if modifier(obj) == "unused":
                return UnusedCallValue(obj)
            if module.startswith("torch.") and not module.startswith("torch.nn.functional"):
                operator = f"aten::{obj.__name__}"
                if builtin_operator_exists(operator):
                    return BuiltinFunction(operator)
            return FunctionValue(obj, obj.__name__)
        if module in (
            "torch",
            "torch._C._VariableFunctions",
            "torch._C._nn",
            "torch.functional",
        ) or inspect.isbuiltin(obj):
            operator = f"aten::{getattr(obj, '__name__', name)}"
            if builtin_operator_exists(operator):
                return BuiltinFunction(operator)
        raise em.error(
            node, f"python value '{name}' of type '{type(obj).__name__}' cannot be called from TorchScript"
        )

    def library_function(self, full_name: str) -> SugaredValue | None:
        """`torch.nn.functional.softmax`, `torch.stft` (real or shim): tsjit's TorchScript
        source of the functions PyTorch writes in Python."""
        from tsjit.frontend.library import functional, torch_functional

        for prefix in ("torch.nn.functional.", f"{functional.__name__}."):
            if full_name.startswith(prefix):
                name = full_name[len(prefix) :]
                if name in functional.ATEN_FUNCTIONS:
                    return BuiltinFunction(functional.ATEN_FUNCTIONS[name])
                target = getattr(functional, name, None)
                if isinstance(target, types.FunctionType) and target.__module__ == functional.__name__:
                    if (dispatch := boolean_dispatch_of(target)) is not None:
                        return BooleanDispatchValue(dispatch, f"torch.nn.functional.{name}")
                    if (declarations := overloads_of(target)) is not None:
                        return OverloadedFunctionValue(declarations, target, f"torch.nn.functional.{name}")
                    return FunctionValue(target, f"torch.nn.functional.{name}")
        for prefix in ("torch.functional.", "torch.", f"{torch_functional.__name__}."):
            if full_name.startswith(prefix) and "." not in full_name[len(prefix) :]:
                name = full_name[len(prefix) :]
                target = getattr(torch_functional, name, None)
                if isinstance(target, types.FunctionType) and target.__module__ == torch_functional.__name__:
                    return FunctionValue(target, f"torch.functional.{name}")
        return None

    # -- namespaces ---------------------------------------------------------------------------
    def module_attribute(
        self, em: FunctionEmitter, node: ast.AST, module: PythonModuleValue, name: str
    ) -> SugaredValue:
        q = module.qualified_name
        full = f"{q}.{name}"
        if q == "ops" or q == "torch" and name == "ops":
            return PythonModuleValue("ops" if q == "torch" else full)
        if q.startswith("ops."):
            operator = f"{q[4:]}::{name}"
            if builtin_operator_exists(operator):
                return BuiltinFunction(operator, packet=True)
            raise em.error(node, f"unknown builtin op: {operator}")
        if q == "__torch__" or q.startswith("__torch__."):
            return self.unit.class_reference(em, node, full)
        if q == "math" and name in builtins.MATH_CONSTANTS:
            return SimpleValue(em.constant(builtins.MATH_CONSTANTS[name], FloatType(), node))
        if full in builtins.CONTEXT_MANAGERS:
            return ContextManagerClass(self.unit.context_manager(builtins.CONTEXT_MANAGERS[full]))
        if full in builtins.RENAMED_FUNCTIONS:
            return BuiltinFunction(builtins.RENAMED_FUNCTIONS[full])
        if q == "torch.jit" and name in builtins.JIT_FUNCTIONS:
            return _jit_function(name)
        if q in ("torch.jit", "torch.jit._script") and name == "_unwrap_optional":
            return BuiltinFunction("aten::_unwrap_optional")
        if q == "torch" and (code := _torch_dtype_code(name)) is not None:
            return SimpleValue(em.constant(code, IntType(), node))
        library = self.library_function(full) if q in ("torch.nn.functional", "torch", "torch.functional") else None
        if library is not None:
            return library
        if q in builtins.OPERATOR_NAMESPACES:
            operator = f"{builtins.OPERATOR_NAMESPACES[q]}::{builtins.NAMESPACE_PREFIXES.get(q, '')}{name}"
            if builtin_operator_exists(operator):
                return BuiltinFunction(operator)
        if q == "torch" and name in (
            "nn",
            "jit",
            "_C",
            "autograd",
            "functional",
            "linalg",
            "special",
            "fft",
            "_VF",
        ):
            return PythonModuleValue(full)
        if q in ("torch._C", "torch.autograd", "torch.nn") and name in (
            "_nn",
            "_VariableFunctions",
            "grad_mode",
            "functional",
        ):
            return PythonModuleValue(full)
        python_module = module.python_module
        obj = getattr(python_module, name, MISSING) if python_module is not None else MISSING
        if obj is not MISSING and not (q.startswith("torch") and isinstance(obj, type)):
            return self.to_sugared(em, node, obj, name)
        raise em.error(node, f"unknown builtin op: {full}")

    # -- annotations ----------------------------------------------------------------------------
    def lookup_python(self, scope: Scope, expr: ast.expr) -> object:
        """The Python object an annotation name denotes; TorchScript's own type names
        (`Tensor`, `List`, ...) work without an import."""
        found = scope.lookup_expr(expr)
        if found is MISSING and isinstance(expr, ast.Name) and expr.id in _TYPE_NAMES:
            if expr.id == "Tensor":
                from tsjit.frontend.torch_shim import Tensor

                return Tensor
            return _TYPE_NAMES[expr.id]
        return found


_TYPE_NAMES: dict[str, object] = {
    "int": int, "float": float, "bool": bool, "str": str, "complex": complex, "List": list,
    "Dict": dict, "Tuple": tuple, "Optional": typing.Optional, "Union": typing.Union,
    "Any": typing.Any, "Tensor": MISSING, "list": list, "dict": dict, "tuple": tuple, "NoneType": type(None),
}  # fmt: skip


_JIT_MODULES = frozenset({"torch.jit", "torch.jit._script", "torch._jit_internal", "torch.jit._async",
                          "tsjit.frontend.torch_shim.jit"})  # fmt: skip


def _jit_function(name: str) -> SugaredValue:
    """`torch.jit.isinstance`, `torch.jit.annotate`, `torch.jit.fork` (forms), `torch.jit.wait`."""
    form = builtins.JIT_FUNCTIONS[name]
    return BuiltinFunction(form) if "::" in form else SpecialForm(form)


def _operator_registry_value(obj: object) -> SugaredValue | None:
    """`torch.ops`, a namespace of it or an operator (packet or overload), as the shim
    or PyTorch (`torch._ops`) makes them."""
    from tsjit.frontend.torch_shim._builtins import OperatorNamespace

    if isinstance(obj, OperatorNamespace):
        return PythonModuleValue("ops" if obj.name == "ops" else f"ops.{obj.name}")
    kind = type(obj).__name__
    if type(obj).__module__ != "torch._ops":
        return None
    if kind == "_Ops":
        return PythonModuleValue("ops")
    if kind == "_OpNamespace":
        return PythonModuleValue(f"ops.{obj.name}")  # pyright: ignore[reportAttributeAccessIssue]
    if kind == "OpOverloadPacket":
        return BuiltinFunction(obj._qualified_op_name, packet=True)  # pyright: ignore[reportAttributeAccessIssue]
    if kind == "OpOverload":
        schema = obj._schema  # pyright: ignore[reportAttributeAccessIssue]
        return BuiltinFunction(schema.name, overload=schema.overload_name)
    return None


def _is_compiled_function(obj: object) -> bool:
    from tsjit.frontend.script import ScriptFunction, ScriptModule

    return isinstance(obj, ScriptFunction) and not isinstance(obj, ScriptModule)


def _torch_dtype_code(name: str) -> int | None:
    from tsjit.frontend.torch_shim._tensor import ALIASES, DTYPES_BY_NAME

    dtype = DTYPES_BY_NAME.get(ALIASES.get(name, name))
    return dtype.code if dtype is not None else None


def _enum_code(obj: object) -> int | None:
    """The int TorchScript passes for `torch.channels_last`, `torch.strided` (the shim's,
    or PyTorch's when the user's code holds the real torch); None for anything else."""
    from tsjit.frontend.torch_shim._tensor import LAYOUTS, MEMORY_FORMATS, EnumValue

    if isinstance(obj, EnumValue):
        return obj.code
    kind = type(obj)
    if kind.__module__ == "torch" and kind.__name__ in ("memory_format", "layout"):
        found = {**MEMORY_FORMATS, **LAYOUTS}.get(str(obj).removeprefix("torch."))
        return None if found is None else found.code
    return None


def _dtype_code(obj: object) -> int:
    code = getattr(obj, "code", None)
    if isinstance(code, int):
        return code
    found = _torch_dtype_code(str(obj).removeprefix("torch."))
    assert found is not None, f"unknown dtype {obj}"
    return found


def boolean_dispatch_of(obj: object) -> dict[str, object] | None:
    """How a `boolean_dispatch` function (tsjit's library's, or one made with PyTorch's
    `torch._jit_internal.boolean_dispatch`) picks its implementation; None for others."""
    from tsjit.frontend.torch_shim._builtins import BOOLEAN_DISPATCHED

    try:
        if obj in BOOLEAN_DISPATCHED:
            return BOOLEAN_DISPATCHED[obj]
    except TypeError:  # unhashable
        return None
    internal = sys.modules.get("torch._jit_internal")
    registry = getattr(internal, "boolean_dispatched", None)
    if registry is not None:
        try:
            return registry.get(obj)
        except TypeError:
            return None
    return None


def overloads_of(obj: object) -> list[object] | None:
    """The `_overload` declarations of a function (tsjit's shim's or PyTorch's registry),
    or None when it has none."""
    from tsjit.frontend.torch_shim._builtins import OVERLOADS

    if not isinstance(obj, types.FunctionType):
        return None
    declared = OVERLOADS.get((obj.__module__, obj.__qualname__))
    if declared:
        return [d for d in declared if d is not obj] or None
    internal = sys.modules.get("torch._jit_internal")
    registry = getattr(internal, "_overloaded_fns", None)
    if registry:
        try:
            found = registry.get(internal._qualified_name(obj))  # pyright: ignore[reportOptionalMemberAccess]
        except Exception:  # noqa: BLE001 -- a name PyTorch cannot qualify has no overloads
            return None
        return [d for d in found if d is not obj] or None if found else None
    return None


def python_builtin(obj: object) -> str | None:
    """The operator a Python function stands for in scripted code (`_pair` is
    `aten::_pair`), found by identity among `builtins.PYTHON_BUILTINS`."""
    for (module_name, attribute), operator in builtins.PYTHON_BUILTINS.items():
        module = sys.modules.get(module_name)
        if module is not None and getattr(module, attribute, None) is obj:
            return operator
    return None
