"""Scripting `torch.nn.Module` instances: their class types, attributes and methods.

A module instance (the shim's or a real PyTorch one) becomes a class type named as
PyTorch names it (`__torch__.source.Model`, `__torch__.torch.nn.modules.linear.Linear`),
whose attributes are its parameters, buffers, submodules and plain Python attributes
typed from their values (or the class's annotations), and whose `__constants__` (or
`Final` attributes) are compile-time constants. Instances whose attributes differ in
type or constant value get distinct, mangled class types, as in PyTorch. Methods are
compiled on first use; layers of `torch.nn` take their TorchScript source from
`tsjit.frontend.library.modules`.
"""

from __future__ import annotations

import ast
import functools
import sys
import types
import typing
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from xdsl.ir import Attribute, SSAValue

from tsjit.dialects import prim
from tsjit.dialects.types import (
    BoolType,
    ClassType,
    DeviceType,
    DictType,
    FloatType,
    InterfaceType,
    IntType,
    ListType,
    NoneType,
    StrType,
    TensorType,
    TupleType,
    is_subtype_of,
    unify,
)
from tsjit.frontend.annotations import MISSING, type_str
from tsjit.frontend.sugared_values import MethodValue, ModuleValue, SimpleValue, SugaredValue

if TYPE_CHECKING:
    from tsjit.frontend.compilation import CompilationUnit, MethodDefinition
    from tsjit.frontend.emitter import FunctionEmitter

CONTAINERS = frozenset({"Sequential", "ModuleList"})
"""Containers whose items scripting unrolls (their classes in PyTorch or the library)."""


def is_module(value: object) -> bool:
    """A shim or PyTorch `nn.Module` instance (both keep the same private tables); one
    without `forward` is still a module, and scripting it says the method is missing."""
    return not isinstance(value, type) and all(hasattr(value, t) for t in ("_parameters", "_buffers", "_modules"))


def is_tensor(value: object) -> bool:
    """A shim tensor, a runtime Variable, or a PyTorch tensor."""
    from tsjit.runtime.autograd import Variable

    return (
        isinstance(value, Variable)
        or type(value).__name__ in ("Tensor", "Parameter")
        and hasattr(value, "detach")
    )


def tensor_array(value: Any) -> Any:
    """A tensor's data as a numpy array sharing its memory (shim tensors hold one;
    PyTorch's lend theirs, see `tsjit.runtime.interop`)."""
    if hasattr(value, "array"):
        return value.array
    from tsjit.runtime.interop import torch_array

    return torch_array(value)


def library_class(cls: type) -> type:
    """The class whose source defines `cls`'s methods: tsjit's layer for a PyTorch
    layer, the class itself otherwise."""
    from tsjit.frontend.library import modules as library

    if cls.__module__.startswith("torch.nn.modules."):
        candidate = library.BY_NAME.get(cls.__name__)
        qualname = f"{cls.__module__}.{cls.__name__}"
        if candidate is not None and library.TORCH_QUALNAMES[cls.__name__] == qualname:
            return candidate
    return cls


def python_class_name(cls: type) -> str:
    """TorchScript's qualified class name, without `__torch__.` (a class defined in a
    function is `f._locals.C`, as PyTorch names it: the name must be a dotted path)."""
    from tsjit.frontend.library import modules as library

    if library.BY_NAME.get(cls.__name__) is cls:
        return library.TORCH_QUALNAMES[cls.__name__]
    return f"{cls.__module__}.{cls.__qualname__}".replace("<locals>", "_locals")


def value_type(value: object) -> Attribute | None:
    """The TorchScript type of a Python attribute value (None: not representable)."""
    if value is None:
        return NoneType()
    if isinstance(value, bool):
        return BoolType()
    if isinstance(value, int):
        return IntType()
    if isinstance(value, float):
        return FloatType()
    if isinstance(value, str):
        return StrType()
    if is_tensor(value):
        return TensorType()
    if type(value).__name__ == "device":
        return DeviceType()
    if isinstance(value, tuple):
        elements = [value_type(v) for v in value]
        return None if any(e is None for e in elements) else TupleType(elements)  # pyright: ignore[reportArgumentType]
    if isinstance(value, list):
        return _container_type(value, ListType)
    if isinstance(value, dict):
        keys = [value_type(k) for k in value]
        values = [value_type(v) for v in value.values()]
        key, item = _join(keys), _join(values)
        if not value:
            return DictType(StrType(), TensorType())
        return None if key is None or item is None else DictType(key, item)  # pyright: ignore[reportArgumentType]
    return None


def _join(types: list[Attribute | None]) -> Attribute | None:
    result = types[0] if types else None
    for t in types[1:]:
        if result is None or t is None:
            return None
        result = unify(result, t)
    return result


def _container_type(value: list[object], make: type) -> Attribute | None:
    if not value:
        return make(TensorType())
    element = _join([value_type(v) for v in value])
    return None if element is None else make(element)


@dataclass
class ModuleInfo:
    """What scripting knows of one module instance (see the module doc)."""

    unit: CompilationUnit
    instance: object
    python_class: type  # the class whose methods are compiled
    qualname: str  # "__torch__.source.Model"
    attributes: dict[str, Attribute] = field(default_factory=dict)
    constants: dict[str, object] = field(default_factory=dict)
    submodules: dict[str, ModuleInfo] = field(default_factory=dict)
    children: list[str] = field(default_factory=list)
    interfaces: dict[str, Any] = field(default_factory=dict)  # submodule -> InterfaceInfo it is typed as
    parameters: list[str] = field(default_factory=list)  # which tensor attributes are parameters
    buffers: list[str] = field(default_factory=list)  # ... and buffers

    @property
    def class_type(self) -> ClassType:
        return ClassType(self.qualname)

    @property
    def python_name(self) -> str:
        return self.python_class.__name__

    @property
    def is_container(self) -> bool:
        return self.python_name in CONTAINERS and self.python_class.__module__.endswith("container")

    def sugared(self, value: SSAValue) -> SugaredValue:
        return ModuleValue(value, self)

    # -- attribute access from scripted code -------------------------------------------
    def attribute(self, em: FunctionEmitter, node: ast.AST, receiver: SSAValue, name: str) -> SugaredValue:
        from tsjit.frontend.classes import UnusedCallValue, method_call, modifier

        if name in self.constants:
            return self.unit.resolver.to_sugared(em, node, self.constants[name], name)
        if name in self.submodules:
            child = self.submodules[name]
            interface = self.interfaces.get(name)
            value_type = child.class_type if interface is None else interface.interface_type
            value = em.insert(prim.GetAttrOp(receiver, name, value_type), node).results[0]
            value.name_hint = em.value_name(name)
            if interface is not None:
                self.unit.compile_interface_methods(child, interface, node, em)
                return interface.sugared(value)
            return ModuleValue(value, child)
        if name in self.attributes:
            value = em.insert(prim.GetAttrOp(receiver, name, self.attributes[name]), node).results[0]
            value.name_hint = em.value_name(name)
            return SimpleValue(value)
        member = self.member(name)
        if isinstance(member, property):
            return method_call(em, node, self, receiver, f"__{name}_getter", [], [])
        if member is not None and modifier(member) == "unused":
            return UnusedCallValue(member)
        if self.has_method(name):
            return MethodValue(receiver, self, name)
        raise em.error(node, f"Module '{self.python_name}' has no attribute '{name}'")

    def member(self, name: str) -> Any:
        """What the class body defines as `name` (a function, a property), if anything."""
        for klass in self.python_class.__mro__:
            if klass.__module__ == "builtins" or klass.__name__ == "Module" and "nn" in klass.__module__:
                continue
            if name in vars(klass):
                return vars(klass)[name]
        return None

    def set_attribute(self, em: FunctionEmitter, node: ast.AST, receiver: SSAValue, name: str, value: SSAValue,
                      annotation: Attribute | None = None) -> None:  # fmt: skip
        from tsjit.frontend.classes import assigned_through_property

        if assigned_through_property(em, node, self, receiver, name, value, "module"):
            return
        expected = self.attributes.get(name)
        if expected is None:
            raise em.error(
                node,
                f"Tried to set nonexistent attribute: {name}. Did you forget to initialize it in __init__()?",
            )
        if not is_subtype_of(value.type, expected):
            raise em.error(
                node,
                f"Wrong type for attribute assignment. Expected {type_str(expected)} but got {type_str(value.type)}",
            )
        em.insert(prim.SetAttrOp(receiver, name, value), node)

    def has_attribute(self, name: str) -> bool:
        return (
            name in self.constants
            or name in self.submodules
            or name in self.attributes
            or self.has_method(name)
        )

    def has_method(self, name: str) -> bool:
        from tsjit.frontend.classes import modifier

        function = self.method_function(name)
        return function is not None and modifier(function) not in ("ignore", "unused")

    def method_function(self, name: str) -> Any:
        """A def of the class, or the getter or setter of a property (`__x_getter`)."""
        if name.startswith("__") and name.endswith(("_getter", "_setter")):
            prop = self.member(name[2:].rsplit("_", 1)[0])
            if isinstance(prop, property):
                return prop.fget if name.endswith("_getter") else prop.fset
        return _class_function(self.python_class, name)

    def method_definition(self, name: str) -> MethodDefinition | None:
        """The def of method `name` (None when the class has no such method)."""
        from tsjit.frontend.compilation import MethodDefinition
        from tsjit.frontend.resolver import Scope

        function = self.method_function(name)
        if not isinstance(function, types.FunctionType):
            return None
        source, definition = self.unit.definition_of(function, None)
        return MethodDefinition(source, definition, Scope.of_function(function), function)

    # -- the runtime object -----------------------------------------------------------------
    def runtime_object(self) -> Any:
        """The module as the interpreter's object: tensors as numpy arrays."""
        from tsjit.runtime.values import ScriptObject

        attributes: dict[str, object] = {}
        for name in self.attributes:
            attributes[name] = runtime_value(_read(self.instance, name))
        for name, child in self.submodules.items():
            attributes[name] = child.runtime_object()
        return ScriptObject(self.qualname, attributes)


def runtime_value(value: object) -> object:
    """A Python value (a module attribute, an argument) as the runtime's: a Variable (the
    shim's Tensor, whose gradients reach the user's parameter) itself, other shim or
    PyTorch tensors as numpy arrays, Enum members and objects of user classes as the
    runtime's, `torch.jit.Attribute`s as their values."""
    import enum

    from tsjit.runtime.autograd import Variable

    if isinstance(value, Variable):
        return value
    if is_tensor(value):
        return tensor_array(value)
    if isinstance(value, list):
        return [runtime_value(v) for v in value]
    if is_jit_attribute(value):
        return runtime_value(value.value)  # pyright: ignore[reportAttributeAccessIssue]
    if isinstance(value, tuple):
        return tuple(runtime_value(v) for v in value)
    if isinstance(value, dict):
        return {k: runtime_value(v) for k, v in value.items()}
    if isinstance(value, enum.Enum):
        from tsjit.frontend.classes import runtime_enum_member

        return runtime_enum_member(value)
    if hasattr(value, "__dict__") and not isinstance(value, type):
        from tsjit.frontend.classes import is_script_class, qualified_name
        from tsjit.runtime.values import ScriptObject

        if is_script_class(type(value)):
            return ScriptObject(qualified_name(type(value)), {k: runtime_value(v) for k, v in vars(value).items()})
    return value


def is_jit_attribute(value: object) -> bool:
    """`torch.jit.Attribute(value, type)` (the shim's or PyTorch's NamedTuple)."""
    return type(value).__name__ == "Attribute" and getattr(type(value), "_fields", None) == ("value", "type")


def _class_function(cls: type, name: str) -> Any:
    for klass in cls.__mro__:
        if (
            klass.__module__ in ("builtins",)
            or klass.__name__ == "Module"
            and klass.__module__.endswith(("nn.module", "modules.module"))
        ):
            continue
        function = klass.__dict__.get(name)
        if function is not None and callable(function):
            return function
    return None


def _read(instance: object, name: str) -> object:
    for table in ("_parameters", "_buffers", "_modules"):
        entries = getattr(instance, table)
        if name in entries:
            return entries[name]
    return getattr(instance, name)


def _state(instance: object) -> Iterator[tuple[str, object]]:
    """The instance's attributes in definition order: parameters, buffers, plain (private
    ones included, as in PyTorch, except the bookkeeping every `nn.Module` has)."""
    seen: set[str] = set()
    for table in ("_parameters", "_buffers"):
        for name, value in getattr(instance, table).items():
            seen.add(name)
            yield name, value
    internal = _module_internals(type(instance))
    for name, value in vars(instance).items():
        if name in internal or name in seen or name in instance._modules or name.startswith("__"):
            continue
        yield name, value


@functools.cache
def _module_internals(cls: type) -> frozenset[str]:
    """The attributes a bare `nn.Module` of `cls`'s framework (PyTorch or the shim) has:
    hooks, tables and flags that are not the module's own state."""
    homes = ("nn.module", "modules.module")
    base = next((k for k in cls.__mro__ if k.__name__ == "Module" and k.__module__.endswith(homes)), None)
    if base is None:
        return frozenset({"training"})
    return frozenset(vars(base()))


def _is_function(value: object) -> bool:
    """A Python function stored on a module (`self.activation = F.relu`): scripted code
    calls it as the function it is, as PyTorch does."""
    if isinstance(value, (types.FunctionType, types.BuiltinFunctionType)):
        return True
    return type(value).__name__ == "TorchBuiltin"


def _constant_names(cls: type) -> set[str]:
    names: set[str] = set()
    for klass in cls.__mro__:
        names.update(getattr(klass, "__constants__", ()) or ())
        for attribute, annotation in getattr(klass, "__annotations__", {}).items():
            text = annotation if isinstance(annotation, str) else repr(annotation)
            if "Final" in text:
                names.add(attribute)
    return names


def _uninitialized(cls: type) -> Exception:
    """PyTorch's error for a module whose constructor never called `Module.__init__`,
    located at that constructor."""
    from tsjit.diagnostics import SourceLocation, TsjitError

    code = getattr(cls.__init__, "__code__", None)
    location = SourceLocation(code.co_filename, code.co_firstlineno) if code is not None else None
    name = f"{cls.__module__}.{cls.__qualname__}"
    return TsjitError(f"'{name}' has not been initialized, did you forget to call 'super()'?", location)


class ModuleRegistry:
    """Class types of scripted module instances, one per distinct concrete type."""

    def __init__(self, unit: CompilationUnit):
        self.unit = unit
        self.by_instance: dict[int, ModuleInfo] = {}
        self.by_qualname: dict[str, ModuleInfo] = {}
        self.signatures: dict[tuple, str] = {}
        self.mangle_count = 0

    def info(self, instance: object, where: str = "module") -> ModuleInfo:
        known = self.by_instance.get(id(instance))
        if known is not None:
            return known
        from tsjit.frontend.script import ScriptModule

        if isinstance(instance, ScriptModule):  # scripted or traced already: its class is linked in
            from tsjit.frontend.linking import link_module

            return link_module(self.unit, instance)
        cls = library_class(type(instance))
        base_name = "__torch__." + python_class_name(cls)
        info = ModuleInfo(self.unit, instance, cls, base_name)
        constants = _constant_names(type(instance)) | _constant_names(cls)
        hints = _annotations(self.unit, cls)
        if "_modules" not in vars(instance):
            raise _uninitialized(type(instance))
        for name, child in instance._modules.items():
            if child is None:
                info.attributes[name] = NoneType()
                continue
            info.submodules[name] = self.info(child, f"{where}.{name}")
            info.children.append(name)
            if isinstance(hints.get(name), InterfaceType):
                info.interfaces[name] = self.unit.interface_for(hints[name])
        info.attributes["training"] = BoolType()
        for name in sorted(constants):
            value = getattr(instance, name, MISSING)
            if value is not MISSING and not is_module(value):  # a module named a constant is a submodule
                info.constants[name] = tuple(value) if isinstance(value, list) else value
        for name, value in _state(instance):
            if name == "training" or name in constants:
                continue
            if _is_function(value):
                info.constants[name] = value
                continue
            if name in instance._parameters:
                info.parameters.append(name)
            elif name in instance._buffers:
                info.buffers.append(name)
            declared = hints.get(name)
            if is_jit_attribute(value):
                declared = self.unit.python_annotation_type(value.type, type(instance))  # pyright: ignore[reportAttributeAccessIssue]
            inferred = value_type(value) or self.unit.object_type(value)
            t = declared if declared is not None else inferred
            if t is None:
                continue  # Python-only state (functions, objects): not visible to TorchScript
            info.attributes[name] = t
        info.qualname = self.class_name(base_name, info)
        self.by_instance[id(instance)] = info
        self.by_qualname[info.qualname] = info
        return info

    def class_name(self, base_name: str, info: ModuleInfo) -> str:
        """The base name, or a mangled one when another instance of the class has a
        different concrete type (attribute types, constants, submodule types)."""
        signature = (
            base_name,
            tuple(sorted((n, str(t)) for n, t in info.attributes.items())),
            tuple(sorted((n, repr(v)) for n, v in info.constants.items())),
            tuple((n, c.qualname) for n, c in info.submodules.items()),
        )
        if signature in self.signatures:
            return self.signatures[signature]
        name = base_name
        if any(s[0] == base_name for s in self.signatures):
            package, _, leaf = base_name.rpartition(".")
            name = f"{package}.___torch_mangle_{self.mangle_count}.{leaf}"
            self.mangle_count += 1
        self.signatures[signature] = name
        return name


def _annotations(unit: CompilationUnit, cls: type) -> dict[str, Attribute]:
    """Types the class declares for attributes (`x: int`, `w: Optional[Tensor]`):
    annotation objects, or annotation text read in the class's source scope.
    Annotations TorchScript has no type for describe Python-only state and are left out."""
    import ast

    from tsjit.frontend.annotations import python_type
    from tsjit.frontend.resolver import Scope
    from tsjit.frontend.source import SourceFile

    declared: dict[str, Attribute] = {}
    for klass in reversed(cls.__mro__):
        annotations = vars(klass).get("__annotations__", {})
        if not annotations:
            continue
        functions = [f for f in vars(klass).values() if callable(f) and hasattr(f, "__globals__")]
        scope = Scope(
            functions[0].__globals__ if functions else vars(sys.modules.get(klass.__module__, typing))
        )
        source = SourceFile(f"<class {klass.__qualname__}>", "")
        parser = unit.type_parser(scope, source)
        for name, annotation in annotations.items():
            if not isinstance(annotation, str):
                t = python_type(annotation)
                if t is not None:
                    declared[name] = t
                continue
            try:
                expr = ast.parse(annotation, mode="eval").body
            except SyntaxError:
                continue
            if scope.lookup_expr(expr.value if isinstance(expr, ast.Subscript) else expr) is MISSING:
                continue
            declared[name] = parser.parse(expr)
    return declared
