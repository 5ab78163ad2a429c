"""TorchScript classes, Enum classes and interfaces, from Python classes.

A user class (`class Pair: def __init__(self, a: int, b: Tensor): ...`) is a class type
named as PyTorch names it (`__torch__.<module>.Pair`). Its attributes are what
`__init__` assigns to `self` (typed by the assigned values, or by `self.x: T = ...`
annotations, or declared at class level as serialized code does: `a : int`; a
class-level `Final` with a value is a constant); once defined an attribute keeps its
type. The whole class is compiled when it is first used, `__init__` first, as PyTorch
compiles a class: methods are `prim.CallMethod`s, properties their
`__<name>_getter`/`__<name>_setter` methods, static methods and class methods functions.
`@torch.jit.unused` methods raise when called; `@torch.jit.ignore`d ones cannot be called.

An `enum.Enum` subclass is an Enum type whose members are constants; its declaration
(`prim.Enum`) carries the members' values. A `@torch.jit.interface` class is an
interface type: a class or module conforms when it has every method of the interface
with the same signature, and calls on an interface-typed value dispatch at run time.
"""

from __future__ import annotations

import ast
import enum
import functools
import inspect
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from xdsl.ir import Attribute, SSAValue

from tsjit.diagnostics import TsjitError
from tsjit.dialects import prim
from tsjit.dialects.constant_values import EnumMember
from tsjit.dialects.types import (
    ClassType,
    DictType,
    EnumType,
    FloatType,
    FutureType,
    InterfaceType,
    IntType,
    ListType,
    OptionalType,
    StrType,
    TensorType,
    TupleType,
    UnionType,
    is_subtype_of,
)
from tsjit.frontend.annotations import type_str
from tsjit.frontend.schema_matching import CallArg
from tsjit.frontend.sugared_values import (
    FunctionValue,
    MethodValue,
    ModuleValue,
    SimpleValue,
    SpecialForm,
    SugaredValue,
    call_compiled,
)

if TYPE_CHECKING:
    from tsjit.frontend.compilation import CompilationUnit
    from tsjit.frontend.emitter import FunctionEmitter


UNUSED_MESSAGE = "This Python function is annotated to be ignored and cannot be run"
"""What calling a `@torch.jit.unused` method raises (PyTorch's message)."""


# --------------------------------------------------------------------------------------
# Which kind of TorchScript class a Python class is
# --------------------------------------------------------------------------------------


def modifier(function: object) -> str | None:
    """`unused`, `ignore` or `export` for a function decorated with tsjit's shim or
    PyTorch's `torch.jit` decorators (`ignore(drop=True)` counts as unused)."""
    if getattr(function, "_tsjit_unused", False):
        return "unused"
    if getattr(function, "_tsjit_ignore", False):
        return "ignore"
    marked = getattr(function, "_torchscript_modifier", None)
    name = getattr(marked, "name", None)
    if name in ("UNUSED", "_DROP"):
        return "unused"
    if name == "IGNORE":
        return "ignore"
    if name == "EXPORT" or getattr(function, "_tsjit_export", False):
        return "export"
    return None


def is_interface(cls: type) -> bool:
    """Decorated with `@torch.jit.interface` (the shim's or PyTorch's), or declared as
    serialized code declares interfaces (`class I(Interface)`, `(ModuleInterface)`)."""
    if getattr(cls, "_tsjit_interface", False) or getattr(cls, "__torch_script_interface__", False):
        return True
    return any(base.__name__ in ("Interface", "ModuleInterface") for base in cls.__bases__)


def is_module_interface(cls: type) -> bool:
    """An interface of modules (`class I(torch.nn.Module)`, serialized as `ModuleInterface`)."""
    return any(
        base.__name__ == "ModuleInterface" or base.__name__ == "Module" and "nn" in base.__module__
        for base in cls.__mro__[1:]
    )


_FOREIGN_PACKAGES = frozenset({"torch", "tsjit", "numpy"})
"""Packages whose classes are never the user's TorchScript classes."""


def is_script_class(cls: type) -> bool:
    """A class TorchScript compiles as a class type (a user class, an Enum or an
    interface): not a builtin, tsjit's or PyTorch's own, a module, a NamedTuple or an
    exception."""
    if issubclass(cls, BaseException) or issubclass(cls, tuple) and hasattr(cls, "_fields"):
        return False
    if issubclass(cls, enum.Enum):
        return cls.__module__ != "enum"
    if is_interface(cls):
        return True
    module = cls.__module__
    if module in ("builtins", "typing", "abc", "collections") or module.partition(".")[0] in _FOREIGN_PACKAGES:
        return False
    return not any(base.__name__ == "Module" and "nn" in base.__module__ for base in cls.__mro__[1:])


def qualified_name(cls: type) -> str:
    """PyTorch's `_qualified_name`: `__torch__.<module>.<name>` (or the name a class
    was declared under in serialized code)."""
    declared = getattr(cls, "_jit_override_qualname", None)
    if isinstance(declared, str):
        return declared if declared.startswith("__torch__.") else f"__torch__.{declared}"
    return f"__torch__.{cls.__module__}.{cls.__name__}"


def _own_members(cls: type) -> dict[str, object]:
    """The class's attributes in definition order, its bases' (but `object`'s) after."""
    members: dict[str, object] = {}
    for klass in cls.__mro__:
        if klass is object or klass.__module__ == "builtins":
            continue
        for name, value in vars(klass).items():
            members.setdefault(name, value)
    return members


# --------------------------------------------------------------------------------------
# User classes
# --------------------------------------------------------------------------------------


@dataclass(eq=False)
class ClassInfo:
    """A user class: attributes (by definition order), methods compiled on definition.
    It answers the questions `ModuleValue` asks of a module's info."""

    unit: CompilationUnit
    python_class: type
    qualname: str
    attributes: dict[str, Attribute] = field(default_factory=dict)
    state: str = "new"  # new -> defining (__init__ compiles) -> defined
    constants: dict[str, object] = field(default_factory=dict)
    submodules: dict[str, Any] = field(default_factory=dict)
    children: list[str] = field(default_factory=list)

    is_container = False

    @property
    def class_type(self) -> ClassType:
        return ClassType(self.qualname)

    @property
    def python_name(self) -> str:
        return self.python_class.__name__

    def sugared(self, value: SSAValue) -> SugaredValue:
        return ObjectValue(value, self)

    # -- members -----------------------------------------------------------------------
    @functools.cached_property
    def members(self) -> dict[str, object]:
        return _own_members(self.python_class)

    def member(self, name: str) -> object:
        return self.members.get(name)

    def method_function(self, name: str) -> Any:
        """The function compiled as method `name`: a def of the class, or the getter
        or setter of a property (`__x_getter`, `__x_setter`)."""
        if name.startswith("__") and name.endswith(("_getter", "_setter")):
            prop = self.member(name[2:].rsplit("_", 1)[0])
            if isinstance(prop, property):
                return prop.fget if name.endswith("_getter") else prop.fset
        function = self.member(name)
        return function if inspect.isfunction(function) else None

    def has_method(self, name: str) -> bool:
        function = self.method_function(name)
        return function is not None and modifier(function) not in ("ignore",)

    def method_definition(self, name: str) -> Any:
        """The def of method `name`, where `compile_method` finds it (None: no method)."""
        from tsjit.frontend.compilation import MethodDefinition
        from tsjit.frontend.resolver import Scope

        function = self.method_function(name)
        if function is None:
            return None
        source, definition = self.unit.definition_of(function, None)
        return MethodDefinition(source, definition, Scope.of_function(function), function)

    def method_names(self) -> list[str]:
        """Every method PyTorch compiles for the class: `__init__` first, then the
        others in definition order, properties as their accessor methods."""
        names: list[str] = []
        for name, value in self.members.items():
            if inspect.isfunction(value) and modifier(value) not in ("ignore", "unused"):
                names.append(name)
            elif isinstance(value, property):
                names.append(f"__{name}_getter")
                if value.fset is not None:
                    names.append(f"__{name}_setter")
        names.sort(key=lambda n: n != "__init__")
        return names

    # -- definition ----------------------------------------------------------------------
    def define(self, em: FunctionEmitter | None = None, node: ast.AST | None = None) -> None:
        """Compiles the class (once): `__init__`, which defines the attributes, then
        every other method, static and class method."""
        if self.state != "new":
            return
        self.state = "defining"
        unit = self.unit
        try:
            if self.method_function("__init__") is not None:
                unit.compile_method(self, "__init__", node, em)
            self.state = "defined"
            # what is being compiled already (a method that uses the class) is left to finish
            for name in self.method_names():
                if name != "__init__" and (self.qualname, name) not in unit.in_progress:
                    unit.compile_method(self, name, node, em)
            for name, value in self.members.items():
                function = getattr(value, "__func__", None)
                if function in unit.in_progress or (self.qualname, name, "classmethod") in unit.in_progress:
                    continue
                if isinstance(value, staticmethod) and modifier(function) is None:
                    unit.compile_function(function, f"{self.qualname}.{name}", node, em)
                elif isinstance(value, classmethod) and modifier(function) is None:
                    unit.compile_class_method(self, name, node, em)
        except BaseException:
            self.state = "new" if self.state == "defining" else self.state
            raise

    # -- attribute access from scripted code --------------------------------------------
    def attribute(self, em: FunctionEmitter, node: ast.AST, receiver: SSAValue, name: str) -> SugaredValue:
        self.define(em, node)
        if name in self.constants:
            return self.unit.resolver.to_sugared(em, node, self.constants[name], name)
        if name in self.attributes:
            value = em.insert(prim.GetAttrOp(receiver, name, self.attributes[name]), node).results[0]
            value.name_hint = em.value_name(name)
            return SimpleValue(value)
        member = self.member(name)
        if isinstance(member, property):
            return method_call(em, node, self, receiver, f"__{name}_getter", [], [])
        if isinstance(member, staticmethod):
            return FunctionValue(member.__func__, f"{self.qualname}.{name}")
        if isinstance(member, classmethod):
            return ClassMethodValue(self, name)
        if inspect.isfunction(member):
            if modifier(member) == "unused":
                return UnusedCallValue(member)
            if modifier(member) != "ignore":
                return MethodValue(receiver, self, name)
            raise em.error(node, f"method '{name}' of class '{self.python_name}' is ignored by TorchScript "
                                 "(@torch.jit.ignore) and cannot be called from compiled code")  # fmt: skip
        if self.method_function(name) is not None:  # a property's `__x_getter` (printed code calls it)
            return MethodValue(receiver, self, name)
        raise em.error(node, f"'{self.qualname}' object has no attribute or method '{name}'. Did you forget to "
                             "initialize an attribute in __init__()?")  # fmt: skip

    def set_attribute(self, em: FunctionEmitter, node: ast.AST, receiver: SSAValue, name: str, value: SSAValue,
                      annotation: Attribute | None = None) -> None:  # fmt: skip
        if assigned_through_property(em, node, self, receiver, name, value, "class"):
            return
        expected = self.attributes.get(name)
        if expected is None:
            if not self.in_init(em):
                raise em.error(node, f"Tried to set nonexistent attribute: {name}. Did you forget to initialize it "
                                     "in __init__()?")  # fmt: skip
            expected = annotation if annotation is not None else value.type
            if self.qualname in _class_names_in(expected):
                raise em.error(node, f"Assignment to attribute '{name}' cannot be of a type that contains class "
                                     f"'{self.qualname}'. Classes that recursively contain instances of themselves "
                                     "are not yet supported")  # fmt: skip
            self.attributes[name] = expected
        value = em.convert_to_type(node, expected, value)
        if not is_subtype_of(value.type, expected):
            raise em.error(node, f"Wrong type for attribute assignment. Expected {type_str(expected)} but got "
                                 f"{type_str(value.type)}")  # fmt: skip
        em.insert(prim.SetAttrOp(receiver, name, value), node)

    def in_init(self, em: FunctionEmitter) -> bool:
        return em.spec.self_info is self and em.definition.name == "__init__"

    def has_attribute(self, name: str) -> bool:
        self.define()
        return name in self.attributes or self.member(name) is not None and not name.startswith("__")


def _class_names_in(t: Attribute) -> set[str]:
    """The class types a type mentions (`Optional[List[Node]]` mentions Node)."""
    if isinstance(t, ClassType):
        return {t.qualname.data}
    if isinstance(t, (ListType, OptionalType, FutureType)):
        return _class_names_in(t.element_type)
    if isinstance(t, DictType):
        return _class_names_in(t.key_type) | _class_names_in(t.value_type)
    if isinstance(t, (TupleType, UnionType)):
        return set().union(*(_class_names_in(e) for e in t.types))
    return set()


def assigned_through_property(em: FunctionEmitter, node: ast.AST, info: Any, receiver: SSAValue, name: str,
                              value: SSAValue, what: str) -> bool:  # fmt: skip
    """`obj.name = value` of a property: its setter called (True); of a constant: an
    error; of anything else: False."""
    if isinstance(info.member(name), property):
        method_call(em, node, info, receiver, f"__{name}_setter", [CallArg(value, node)], [])
        return True
    if name in info.constants:
        raise em.error(node, f"Cannot assign to constant '{name}' of {what} '{info.python_name}'")
    return False


def method_call(em: FunctionEmitter, node: ast.AST, info: Any, receiver: SSAValue, name: str,
                args: list[CallArg], kwargs: list[CallArg]) -> SugaredValue:  # fmt: skip
    return MethodValue(receiver, info, name).call(em, node, args, kwargs, 1)


class ObjectValue(ModuleValue):
    """An instance of a user class: attributes, methods and the magic methods behind
    `obj(...)`, `len(obj)`, `obj[i]`, `obj[i] = v`; instances are not iterable."""

    @property
    def kind(self) -> str:  # pyright: ignore[reportIncompatibleVariableOverride]
        return f"object of class {self.info.qualname}"

    def magic(self, em: FunctionEmitter, node: ast.AST, name: str, args: list[CallArg]) -> SugaredValue:
        if not self.info.has_method(name):
            raise em.error(node, f"'{self.info.qualname}' object has no method '{name}'")
        return self.attr(em, node, name).call(em, node, args, [], 1)

    def call(self, em: FunctionEmitter, node: ast.AST, args: list[CallArg], kwargs: list[CallArg],
             n_binders: int) -> SugaredValue:  # fmt: skip
        if not self.info.has_method("__call__"):
            raise em.error(node, f"'{self.info.qualname}' object is not callable")
        return self.attr(em, node, "__call__").call(em, node, args, kwargs, n_binders)

    def len(self, em: FunctionEmitter, node: ast.AST) -> SSAValue:
        return self.magic(em, node, "__len__", []).as_value(em, node)

    def getitem(self, em: FunctionEmitter, node: ast.AST, index: SSAValue,
                type_hint: Attribute | None = None) -> SugaredValue:  # fmt: skip
        return self.magic(em, node, "__getitem__", [CallArg(index, node)])

    def iter(self, em: FunctionEmitter, node: ast.AST) -> SugaredValue:
        raise em.error(node, f"'{self.info.qualname}' object is not iterable")

    def static_len(self) -> int | None:
        return None

    def has_attr(self, em: FunctionEmitter, node: ast.AST, name: str) -> bool:
        return self.info.has_attribute(name)


class ClassValue(SugaredValue):
    """A class itself: calling it creates an object and runs `__init__` (TorchScript's
    `prim.CreateObject` then `prim.CallMethod[name="__init__"]`); its attributes are
    static and class methods, and `C.__new__(C)` of printed code."""

    kind = "class"

    def __init__(self, info: Any):
        self.info = info

    def attr(self, em: FunctionEmitter, node: ast.AST, name: str) -> SugaredValue:
        if name == "__new__":
            return SpecialForm("__new__")
        member = self.info.member(name) if isinstance(self.info, ClassInfo) else None
        if isinstance(member, staticmethod):
            return FunctionValue(member.__func__, f"{self.info.qualname}.{name}")
        if isinstance(member, classmethod):
            return ClassMethodValue(self.info, name)
        raise em.error(node, f"Tried to lookup unknown attribute '{name}' on class {self.info.qualname}")

    def call(self, em: FunctionEmitter, node: ast.AST, args: list[CallArg], kwargs: list[CallArg],
             n_binders: int) -> SugaredValue:  # fmt: skip
        info = self.info
        if not isinstance(info, ClassInfo):
            raise em.error(node, f"class {info.qualname} cannot be instantiated in TorchScript")
        info.define(em, node)
        obj = em.insert(prim.CreateObjectOp(info.class_type), node).results[0]
        if info.method_function("__init__") is None:
            if args or kwargs:
                raise em.error(node, f"{info.python_name}() takes no arguments")
            return SimpleValue(obj)
        method_call(em, node, info, obj, "__init__", args, kwargs)
        return SimpleValue(obj)


class ClassMethodValue(SugaredValue):
    """A `@classmethod`: a function whose `cls` is the class (`cls(...)` constructs)."""

    kind = "class method"

    def __init__(self, info: ClassInfo, name: str):
        self.info = info
        self.name = name

    def call(self, em: FunctionEmitter, node: ast.AST, args: list[CallArg], kwargs: list[CallArg],
             n_binders: int) -> SugaredValue:  # fmt: skip
        callee = em.unit.compile_class_method(self.info, self.name, node, em)
        inputs = em.match_call(callee.signature, node, args, kwargs, f"{self.info.python_name}.{self.name}()")
        return SimpleValue(call_compiled(em, callee, node, inputs))


class UnusedCallValue(SugaredValue):
    """A `@torch.jit.unused` function or method: calling it raises, as PyTorch's stub
    does; its value (never seen) has the declared return type."""

    kind = "unused function"

    def __init__(self, function: Any):
        self.function = function

    def call(self, em: FunctionEmitter, node: ast.AST, args: list[CallArg], kwargs: list[CallArg],
             n_binders: int) -> SugaredValue:  # fmt: skip
        from tsjit.frontend.resolver import Scope

        source, definition = em.unit.definition_of(self.function, node)
        returns = definition.returns
        scope = Scope.of_function(self.function)
        result_type = em.unit.type_parser(scope, source).parse(returns) if returns is not None else TensorType()
        message = em.constant(UNUSED_MESSAGE, StrType(), node)
        em.insert(prim.RaiseExceptionOp(message, em.constant(None, None, node)), node)
        return SimpleValue(em.insert(prim.UninitializedOp(result_type), node).results[0])


# --------------------------------------------------------------------------------------
# Enums
# --------------------------------------------------------------------------------------


@dataclass(eq=False)
class EnumInfo:
    """An Enum class (of Python, or of printed code): its members (name, value) and
    their value type."""

    qualname: str
    python_class: type | None
    value_type: Attribute
    members: list[tuple[str, object]]

    @property
    def enum_type(self) -> EnumType:
        return EnumType(self.qualname)

    @property
    def python_name(self) -> str:
        return self.qualname.rsplit(".", 1)[-1]

    def member(self, name: str) -> EnumMember:
        return EnumMember(f"{self.qualname}.{name}")

    def declaration(self) -> prim.EnumOp:
        return prim.EnumOp(self.qualname, self.value_type, self.members)


def enum_info(cls: type[enum.Enum], qualname: str) -> EnumInfo:
    """The Enum class of a Python `enum.Enum` subclass."""
    info = enum_members_info(qualname, [(m.name, m.value) for m in cls])
    info.python_class = cls
    return info


def enum_members_info(qualname: str, members: list[tuple[str, object]]) -> EnumInfo:
    """An Enum class from its members, once their values are checked to be all ints,
    all floats or all strs (TorchScript's rule)."""
    kinds = {bool: None, int: IntType, float: FloatType, str: StrType}
    types: list[Attribute] = []
    for i, (_, value) in enumerate(members):
        kind = kinds.get(type(value))
        if kind is None:
            raise TsjitError(f"Cannot create Enum with value type '{type(value).__name__}', only int, float and str "
                             "are supported")  # fmt: skip
        t = kind()
        if types and t != types[0]:
            raise TsjitError(f"Could not unify type list since element {i} of type {type_str(t)} did not match the "
                             f"types before it ({type_str(types[0])})")  # fmt: skip
        types.append(t)
    return EnumInfo(qualname, None, types[0] if types else IntType(), members)


class EnumClassValue(SugaredValue):
    """An Enum class: `Color.RED` is a constant, `for c in Color` iterates the members
    (a constant list of them)."""

    kind = "enum class"

    def __init__(self, info: EnumInfo):
        self.info = info

    def attr(self, em: FunctionEmitter, node: ast.AST, name: str) -> SugaredValue:
        if name not in dict(self.info.members):
            raise em.error(node, f"'{self.info.python_name}' has no member '{name}'")
        return SimpleValue(em.constant(self.info.member(name), self.info.enum_type, node))

    def members_value(self, em: FunctionEmitter, node: ast.AST) -> SSAValue:
        members = [self.info.member(name) for name, _ in self.info.members]
        return em.constant(members, ListType(self.info.enum_type), node)

    def iter(self, em: FunctionEmitter, node: ast.AST) -> SugaredValue:
        return SimpleValue(self.members_value(em, node))

    def len(self, em: FunctionEmitter, node: ast.AST) -> SSAValue:
        return em.constant(len(self.info.members), IntType(), node)


def runtime_enum_member(member: enum.Enum) -> EnumMember:
    """A Python Enum member as the runtime's value of it."""
    return EnumMember(f"{qualified_name(type(member))}.{member.name}", member.value)


ENUM_PROPERTIES = {"name": "prim::EnumName", "value": "prim::EnumValue"}
"""`member.name`, `member.value`: the operators that read them."""


def enum_attribute(em: FunctionEmitter, node: ast.AST, value: SSAValue, name: str) -> SugaredValue:
    """`c.name`, `c.value` of an enum value: constants for a constant member (PyTorch
    resolves `Color.RED.value` at compile time)."""
    operator = ENUM_PROPERTIES.get(name)
    if operator is None:
        raise em.error(node, f"'{type_str(value.type)}' object has no attribute '{name}'")
    member = em.constant_value(value)
    info = em.unit.enum_for(value.type)
    if isinstance(member, EnumMember) and info is not None and member.name in dict(info.members):
        if name == "name":
            return SimpleValue(em.constant(member.name, StrType(), node))
        return SimpleValue(em.constant(dict(info.members)[member.name], info.value_type, node))
    return SimpleValue(em.builtin_call(operator, node, [CallArg(value, node)], [], None,
                                       _enum_value_overload(em, value, node) if name == "value" else None))  # fmt: skip


def _enum_value_overload(em: FunctionEmitter, value: SSAValue, node: ast.AST) -> str:
    """`prim::EnumValue.int`, `.float` or `.str`: the overload of the enum's value type."""
    info = em.unit.enum_for(value.type)
    if info is None:
        raise em.error(node, f"the Enum class {type_str(value.type)} is not known to this program")
    return {IntType: "int", FloatType: "float", StrType: "str"}[type(info.value_type)]  # pyright: ignore[reportArgumentType]


# --------------------------------------------------------------------------------------
# Interfaces
# --------------------------------------------------------------------------------------


@dataclass(eq=False)
class InterfaceInfo:
    """An interface: the signatures of its methods (bodies are ignored)."""

    unit: CompilationUnit
    python_class: type | None  # None: declared by printed code
    qualname: str
    is_module: bool
    methods: dict[str, Any] = field(default_factory=dict)  # name -> FunctionSignature

    constants: dict[str, object] = field(default_factory=dict)
    submodules: dict[str, Any] = field(default_factory=dict)
    children: list[str] = field(default_factory=list)
    attributes: dict[str, Attribute] = field(default_factory=dict)
    is_container = False

    @property
    def interface_type(self) -> InterfaceType:
        return InterfaceType(self.qualname)

    @property
    def python_name(self) -> str:
        return self.qualname.rsplit(".", 1)[-1]

    def sugared(self, value: SSAValue) -> SugaredValue:
        return InterfaceObjectValue(value, self)

    def has_method(self, name: str) -> bool:
        return name in self.methods

    def has_attribute(self, name: str) -> bool:
        return name in self.methods

    def attribute(self, em: FunctionEmitter, node: ast.AST, receiver: SSAValue, name: str) -> SugaredValue:
        if name not in self.methods:
            raise em.error(node, f"Tried to access nonexistent attribute or method '{name}' of type "
                                 f"'{type_str(receiver.type)}'")  # fmt: skip
        return InterfaceMethodValue(receiver, self, name)

    def set_attribute(self, em: FunctionEmitter, node: ast.AST, receiver: SSAValue, name: str, value: SSAValue,
                      annotation: Attribute | None = None) -> None:  # fmt: skip
        raise em.error(node, f"Tried to set an attribute: {name} on an interface type {type_str(receiver.type)}")

    def mismatch(self, unit: CompilationUnit, info: Any) -> str | None:
        """Why a class or module (`info`) does not implement the interface, or None."""
        for name, expected in self.methods.items():
            if not info.has_method(name):
                return f"{info.qualname} does not have method '{name}' but it is required by interface {self.qualname}"
            actual = unit.method_signature(info, name)
            if not _same_signature(actual, expected):
                return (f"Method on class '{info.qualname}' ({_spelled(name, actual)}) is not compatible with "
                        f"interface '{self.qualname}' ({_spelled(name, expected)})")  # fmt: skip
        return None


def _same_signature(actual: Any, expected: Any) -> bool:
    if len(actual.params) != len(expected.params):
        return False
    for a, e in zip(actual.params, expected.params):
        if a.name != e.name or not is_subtype_of(e.type, a.type):
            return False
    if expected.return_type is None or actual.return_type is None:
        return expected.return_type == actual.return_type
    return is_subtype_of(actual.return_type, expected.return_type)


def _spelled(name: str, signature: Any) -> str:
    params = ", ".join(f"{p.name}: {type_str(p.type)}" for p in signature.params)
    returns = type_str(signature.return_type) if signature.return_type is not None else "?"
    return f"{name}(self, {params}) -> {returns}"


class InterfaceObjectValue(ModuleValue):
    """A value of an interface type: only the interface's methods can be called."""

    @property
    def kind(self) -> str:  # pyright: ignore[reportIncompatibleVariableOverride]
        return f"interface {self.info.qualname}"

    def call(self, em: FunctionEmitter, node: ast.AST, args: list[CallArg], kwargs: list[CallArg],
             n_binders: int) -> SugaredValue:  # fmt: skip
        name = "forward" if self.info.is_module else "__call__"
        return self.attr(em, node, name).call(em, node, args, kwargs, n_binders)

    def iter(self, em: FunctionEmitter, node: ast.AST) -> SugaredValue:
        raise em.error(node, f"'{self.info.qualname}' object is not iterable")

    def static_len(self) -> int | None:
        return None


class InterfaceMethodValue(MethodValue):
    """A method of an interface-typed value: `prim.CallMethod` with the interface's
    signature, dispatched at run time."""

    def call(self, em: FunctionEmitter, node: ast.AST, args: list[CallArg], kwargs: list[CallArg],
             n_binders: int) -> SugaredValue:  # fmt: skip
        from tsjit.frontend.schema_matching import Signature

        signature = self.info.methods[self.name]
        return_type = signature.return_type if signature.return_type is not None else TensorType()
        matched = Signature(self.name, tuple(signature.params), (return_type,))
        inputs = em.match_call(matched, node, args, kwargs, f"{self.info.python_name}.{self.name}()")
        call = em.insert(prim.CallMethodOp(self.receiver, self.name, inputs, [return_type]), node)
        return SimpleValue(call.outs[0])


# --------------------------------------------------------------------------------------
# Converting classes to interfaces
# --------------------------------------------------------------------------------------


def check_interface_conversion(
    em: FunctionEmitter, node: ast.AST | None, value: SSAValue, target: Attribute
) -> SSAValue:
    """A class (or module) value given where an interface is expected: checked to
    implement it, then cast to the interface type. Other values are returned as is."""
    interface = target.element_type if isinstance(target, OptionalType) else target
    if not isinstance(interface, InterfaceType) or not isinstance(value.type, ClassType):
        return value
    info = em.unit.interface_for(interface)
    implementation = em.unit.module_info_for(value.type)
    if info is None or implementation is None:
        return value
    reason = info.mismatch(em.unit, implementation)
    if reason is not None:
        raise em.error(node, reason)
    em.unit.compile_interface_methods(implementation, info, node, em)
    return em.unchecked_cast(value, interface, node)


def interfaces_used(unit: CompilationUnit, function: Any) -> list[InterfaceInfo]:
    """The interfaces whose types the values of `function` have (inside containers too)."""
    names: set[str] = set()
    for op in function.walk():
        for value in op.results:
            names |= _interface_names_in(value.type)
    names |= {n for a in function.body.block.args for n in _interface_names_in(a.type)}
    return [unit.interfaces[n] for n in sorted(names) if n in unit.interfaces]


def _interface_names_in(t: Attribute) -> set[str]:
    if isinstance(t, InterfaceType):
        return {t.qualname.data}
    if isinstance(t, (ListType, OptionalType, FutureType)):
        return _interface_names_in(t.element_type)
    if isinstance(t, DictType):
        return _interface_names_in(t.key_type) | _interface_names_in(t.value_type)
    if isinstance(t, (TupleType, UnionType)):
        return set().union(*(_interface_names_in(e) for e in t.types))
    return set()


def interface_methods(unit: CompilationUnit, cls: type, qualname: str) -> dict[str, Any]:
    """The signatures of an interface's methods (`def forward(self, x: Tensor) -> Tensor`)."""
    from tsjit.frontend.resolver import Scope

    methods: dict[str, Any] = {}
    for name, function in vars(cls).items():
        if not inspect.isfunction(function) or name.startswith("__") and name != "__call__":
            continue
        source, definition = unit.definition_of(function, None)
        signature, _ = unit.parse_signature(source, definition, Scope.of_function(function), function, is_method=True)
        if signature.return_type is None:
            raise source.error(definition, f"interface method '{name}' of {qualname} needs a return type annotation")
        methods[name] = signature
    return methods
