"""Printed TorchScript source (an archive's `code/`) as the classes and functions of a
compilation unit, read as PyTorch's `SourceImporter` reads it.

Printed code names everything by qualified name, and each qualifier is one source file:
`__torch__.a.b.C` is class (or function) `C` of `code/__torch__/a/b.py`; a mangled
class `__torch__.a.___torch_mangle_3.C` lives in `code/__torch__/a/___torch_mangle_3.py`.
Names resolve as PyTorch resolves them in printed code, never to a Python object of
the file: `torch.<op>` is the aten operator, `ops.<ns>.<op>` another namespace's,
`CONSTANTS.c<i>` the archive's constant table, `annotate`, `unchecked_cast` and
`uninitialized` the special forms, `inf` and `nan` floats, `__torch__.<name>` a class,
function or NamedTuple of the archive. Nothing in the source is executed.

Classes are declared when first named:

    class M(Module):                      a module class: the parameters and buffers
      __parameters__ = ["w", ]            lists, one annotation per attribute (in slot
      __buffers__ = []                    order), `__annotations__["0"] = T` for names
      w : Tensor                          that are not identifiers, `Final` constants,
      sub : __torch__.Sub                 and the methods
      k : Final[int] = 3
      def forward(self: __torch__.M, x: Tensor) -> Tensor: ...
    class C:                              a TorchScript class: attributes and methods
    class P(NamedTuple):                  a NamedTuple: its fields (and defaults)

    class Color(Enum):                    an Enum: its members and their values
    class I(Interface):                   an interface (`ModuleInterface` for modules):
      def forward(self, x: Tensor) -> Tensor: ...   the signatures of its methods

Methods and functions compile on first use, once per class however many objects share
it (`CompilationUnit.compile_method`).
"""

from __future__ import annotations

import ast
import math
import re
import typing
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from xdsl.ir import Attribute, Operation

from tsjit.diagnostics import TsjitError
from tsjit.dialects.types import (
    ClassType,
    DeviceType,
    NumberType,
    TensorType,
    TupleType,
)
from tsjit.frontend.annotations import MISSING
from tsjit.frontend.classes import EnumInfo, InterfaceInfo, enum_members_info
from tsjit.frontend.compilation import CompiledFunction, MethodDefinition
from tsjit.frontend.modules import ModuleInfo
from tsjit.frontend.resolver import Scope
from tsjit.frontend.schema_matching import NO_DEFAULT, Param, Signature
from tsjit.frontend.source import SourceFile
from tsjit.frontend.sugared_values import (
    BuiltinFunction,
    NamedTupleConstructor,
    PythonModuleValue,
    SimpleValue,
    SpecialForm,
    SugaredValue,
    builtin_operator_exists,
    call_compiled,
)

if TYPE_CHECKING:
    from tsjit.frontend.compilation import CompilationUnit
    from tsjit.frontend.emitter import FunctionEmitter
    from tsjit.frontend.schema_matching import CallArg

ROOT = "__torch__"

OVERLOAD_VERSIONS = {
    **{f"aten::div.{o}": 4 for o in ("Tensor", "Scalar", "out", "Tensor_mode", "Scalar_mode", "out_mode")},
    **{f"aten::div_.{o}": 4 for o in ("Tensor", "Scalar", "Tensor_mode", "Scalar_mode")},
    "aten::full": 5, "aten::full.out": 5, "aten::linspace": 8, "aten::linspace.out": 8,
    "aten::logspace": 9, "aten::logspace.out": 9, "aten::gelu": 10, "aten::gelu.out": 10,
}  # fmt: skip
"""Overloads whose meaning changed at an archive format version (PyTorch's operator
version map). PyTorch runs older archives' calls of them through upgraders, which tsjit
does not have: such calls in an older archive are refused, not run with today's meaning."""


@dataclass(eq=False)
class PrintedClass(ModuleInfo):
    """A module class or TorchScript class declared in printed source: attributes (and
    submodules) from its annotations, methods from its defs."""

    is_module: bool = True
    source: SourceFile | None = None
    scope: Scope | None = None
    methods: dict[str, ast.FunctionDef | None] = field(default_factory=dict)  # None: not parsed yet
    slots: list[str] = field(default_factory=list)  # every attribute, in declaration order
    importer: SourceImporter | None = None

    @property
    def python_name(self) -> str:
        return self.qualname.rsplit(".", 1)[-1]

    @property
    def is_container(self) -> bool:
        return False  # printed code has unrolled every loop over a module container

    def has_method(self, name: str) -> bool:
        return name in self.methods

    def method_definition(self, name: str) -> MethodDefinition | None:
        if name not in self.methods:
            return None
        definition = self.methods[name]
        if definition is None:
            assert self.importer is not None
            definition = self.methods[name] = self.importer.method_node(self.qualname, name)
        assert self.source is not None and self.scope is not None
        return MethodDefinition(self.source, definition, self.scope)

    def attribute_type(self, name: str) -> Attribute:
        if name in self.submodules:
            return self.submodules[name].class_type
        return self.attributes[name]


class PrintedScope(Scope):
    """The names printed code uses without defining them; types named `__torch__.X`
    are the importer's classes."""

    def __init__(self, importer: SourceImporter):
        super().__init__(
            {
                "torch": AtenNamespace(importer.version),
                "ops": PythonModuleValue("ops"),
                "CONSTANTS": ConstantTable(importer.constants),
                ROOT: QualifiedName(importer, ROOT),
                "annotate": SpecialForm("annotate"),
                "unchecked_cast": SpecialForm("unchecked_cast"),
                "uninitialized": SpecialForm("uninitialized"),
                "fork": SpecialForm("fork"),
                "inf": math.inf,
                "nan": math.nan,
                **TYPE_NAMES,
            }
        )
        self.importer = importer

    def lookup_expr(self, expr: ast.expr) -> object:
        qualname = dotted_name(expr)
        if qualname is not None and qualname.startswith(ROOT + "."):
            return self.importer.type_of(qualname)
        return super().lookup_expr(expr)


class _Future:
    """`Future[T]` in annotations (the type parser knows it by name)."""


_Future.__name__ = "Future"

TYPE_NAMES: dict[str, object] = {
    "Tensor": TensorType(), "NoneType": type(None), "Device": DeviceType(), "number": NumberType(),
    "Final": typing.Final, "Future": _Future,
}  # fmt: skip
"""Type names of printed annotations beyond Python's own (`int`, `List`, `Optional`, ...)."""


class SourceImporter:
    """The classes and functions of printed source files, declared in `unit` on demand.

    `files` maps each qualifier (`__torch__.a.b`) to its source; `constants` is the
    table `CONSTANTS.c<i>` reads; `version` the archive format version (None: current)."""

    def __init__(
        self,
        unit: CompilationUnit,
        files: Mapping[str, SourceFile],
        constants: Sequence[object] = (),
        version: int | None = None,
    ) -> None:
        self.unit = unit
        self.files = dict(files)
        self.constants = tuple(constants)
        self.version = version
        self.scope = PrintedScope(self)
        self.declared: dict[str, object] = {}
        self._tuple_defaults: dict[str, dict[str, object]] = {}
        self._outlines: dict[str, dict[str, Outline]] = {}
        self._definitions: dict[str, dict[str, ast.stmt]] = {}
        self._namespaces = {q.rsplit(".", i)[0] for q in self.files for i in range(q.count(".") + 1)}

    # -- finding definitions ----------------------------------------------------------------

    def outlines(self, qualifier: str) -> dict[str, Outline] | None:
        """Where each top-level class and function of one file is, without parsing the
        file (loading declares every class of an archive's objects: parsing only their
        declarations, not their methods, keeps that fast)."""
        known = self._outlines.get(qualifier)
        if known is not None:
            return known
        source = self.files.get(qualifier)
        if source is None:
            return None
        found = self._outlines[qualifier] = outline(source)
        return found

    def definitions(self, qualifier: str) -> dict[str, ast.stmt] | None:
        """The top-level classes and functions of one file, by name, parsed."""
        known = self._definitions.get(qualifier)
        if known is not None:
            return known
        source = self.files.get(qualifier)
        if source is None:
            return None
        found: dict[str, ast.stmt] = {}
        for statement in source.tree.body:
            if isinstance(statement, (ast.ClassDef, ast.FunctionDef)):
                if statement.name in found:
                    raise source.error(statement, f"'{statement.name}' is defined twice")
                found[statement.name] = statement
            elif _is_docstring(statement) or _is_version_marker(statement):
                continue
            else:
                raise source.error(
                    statement, "printed TorchScript defines only classes and functions at top level"
                )
        self._definitions[qualifier] = found
        return found

    def find(self, qualname: str) -> tuple[SourceFile, ast.stmt] | None:
        qualifier, _, name = qualname.rpartition(".")
        definitions = self.definitions(qualifier)
        if definitions is None or name not in definitions:
            return None
        return self.files[qualifier], definitions[name]

    def method_node(self, qualname: str, name: str) -> ast.FunctionDef:
        """The parsed def of method `name` of class `qualname`."""
        found = self.find(qualname)
        assert found is not None and isinstance(found[1], ast.ClassDef)
        source, node = found
        for statement in node.body:
            if isinstance(statement, ast.FunctionDef) and statement.name == name:
                _fold_literal_defaults(statement)
                return statement
        raise source.error(node, f"class {qualname} has no method '{name}'")

    def is_namespace(self, qualname: str) -> bool:
        return qualname in self._namespaces

    # -- what a qualified name denotes ----------------------------------------------------------

    def declare(self, qualname: str) -> object | None:
        """The class (PrintedClass), NamedTuple (TupleType) or function (its Outline)
        `qualname` names, declared in the unit on first use; None when undefined."""
        known = self.declared.get(qualname)
        if known is not None:
            return known
        qualifier, _, name = qualname.rpartition(".")
        where = (self.outlines(qualifier) or {}).get(name)
        if where is None:
            return None
        source = self.files[qualifier]
        if where.kind == "def":
            self.declared[qualname] = where
            return where
        node = where.declarations(source)
        kind = class_kind(source, node)
        if kind == "NamedTuple":
            return self.declare_named_tuple(qualname, source, node)
        if kind in ("Module", "class"):
            return self.declare_class(qualname, source, node, kind == "Module", where.methods)
        if kind == "Enum":
            return self.declare_enum(qualname, source, node)
        is_module = any(isinstance(b, ast.Name) and b.id == "ModuleInterface" for b in node.bases)
        return self.declare_interface(qualname, source, node, is_module, where.methods)

    def type_of(self, qualname: str) -> Attribute | object:
        declared = self.declare(qualname)
        if isinstance(declared, PrintedClass):
            return declared.class_type
        if isinstance(declared, TupleType):
            return declared
        if isinstance(declared, EnumInfo):
            return declared.enum_type
        if isinstance(declared, InterfaceInfo):
            return declared.interface_type
        return MISSING

    def value(self, em: FunctionEmitter, node: ast.AST, qualname: str) -> SugaredValue:
        """`__torch__.a.b.X` in an expression."""
        declared = self.declare(qualname)
        if isinstance(declared, (PrintedClass, EnumInfo)):
            return self.unit.class_value(declared)
        if isinstance(declared, TupleType):
            return self.named_tuple_constructor(qualname, declared)
        if isinstance(declared, Outline):
            return PrintedFunction(self, qualname)
        if self.is_namespace(qualname):
            return QualifiedName(self, qualname)
        raise em.error(node, f"unknown name {qualname}: the archive defines no such class or function")

    # -- declarations -----------------------------------------------------------------------------

    def declare_class(self, qualname: str, source: SourceFile, node: ast.ClassDef, is_module: bool,
                      methods: Sequence[str]) -> PrintedClass:  # fmt: skip
        """A class from its declarations (`node`: the class without its methods) and the
        names of its methods, whose defs are parsed when compiled."""
        info = PrintedClass(self.unit, None, object, qualname)
        info.is_module, info.source, info.scope, info.importer = is_module, source, self.scope, self
        info.methods = dict.fromkeys(methods)
        self.declared[qualname] = info  # first, so that attribute types may name the class itself
        self.unit.registry.by_qualname[qualname] = info
        parser = self.unit.type_parser(self.scope, source)
        for statement in node.body:
            if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
                name = statement.target.id
                if statement.value is not None:  # `k : Final[int] = 3`
                    info.constants[name] = printed_literal(source, statement.value)
                else:
                    self.add_attribute(info, name, parser.parse(statement.annotation))
            elif isinstance(statement, ast.Assign) and len(statement.targets) == 1:
                self.class_assignment(info, source, statement, parser)
            elif not (_is_docstring(statement) or isinstance(statement, ast.Pass)):
                raise source.error(statement, f"unexpected statement in the body of class {qualname}")
        for name in info.parameters + info.buffers:
            if name not in info.attributes:
                raise source.error(
                    node, f"{qualname} lists '{name}' as a parameter or buffer but declares no such attribute"
                )
        return info

    def declare_enum(self, qualname: str, source: SourceFile, node: ast.ClassDef) -> EnumInfo:
        """`class Color(Enum): RED = 1 ...`: its members, with values of one type."""
        members: list[tuple[str, object]] = []
        for statement in node.body:
            single = isinstance(statement, ast.Assign) and len(statement.targets) == 1
            if single and isinstance(statement.targets[0], ast.Name):
                members.append((statement.targets[0].id, printed_literal(source, statement.value)))
            elif not (_is_docstring(statement) or isinstance(statement, ast.Pass)):
                raise source.error(statement, f"unexpected statement in the body of enum {qualname}")
        try:
            info = enum_members_info(qualname, members)
        except TsjitError as error:
            raise source.error(node, f"enum {qualname}: {error.message}") from None
        self.declared[qualname] = info
        self.unit.declare_enum(info)
        return info

    def declare_interface(self, qualname: str, source: SourceFile, node: ast.ClassDef, is_module: bool,
                          methods: Sequence[str]) -> InterfaceInfo:  # fmt: skip
        """`class I(Interface)` / `(ModuleInterface)`: the signatures of its methods."""
        info = InterfaceInfo(self.unit, None, qualname, is_module)
        self.declared[qualname] = info  # first: a method may name the interface itself
        self.unit.interfaces[qualname] = info
        for name in methods:
            definition = self.method_node(qualname, name)
            signature, _ = self.unit.parse_signature(source, definition, self.scope, None, is_method=True)
            if signature.return_type is None:
                raise source.error(definition, f"interface method '{name}' of {qualname} needs a return type")
            info.methods[name] = signature
        return info

    def class_assignment(
        self, info: PrintedClass, source: SourceFile, statement: ast.Assign, parser: Any
    ) -> None:
        target = statement.targets[0]
        if isinstance(target, ast.Name) and target.id in ("__parameters__", "__buffers__"):
            names = printed_literal(source, statement.value)
            if not isinstance(names, tuple) or not all(isinstance(n, str) for n in names):
                raise source.error(statement, f"{target.id} must be a list of attribute names")
            (info.parameters if target.id == "__parameters__" else info.buffers).extend(names)
        elif isinstance(target, ast.Name) and target.id in ("__forward_hooks__", "__forward_pre_hooks__"):
            if printed_literal(source, statement.value):
                raise source.error(statement, "modules with forward hooks are not supported")
        elif (
            isinstance(target, ast.Subscript)
            and isinstance(target.value, ast.Name)
            and target.value.id == "__annotations__"
            and isinstance(target.slice, ast.Constant)
            and isinstance(target.slice.value, str)
        ):  # `__annotations__["0"] = T`: an attribute whose name is not an identifier
            self.add_attribute(info, target.slice.value, parser.parse(statement.value))
        else:
            raise source.error(statement, f"unexpected assignment in the body of class {info.qualname}")

    def add_attribute(self, info: PrintedClass, name: str, attribute_type: Attribute) -> None:
        child = (
            self.declared.get(attribute_type.qualname.data) if isinstance(attribute_type, ClassType) else None
        )
        if isinstance(child, PrintedClass) and child.is_module and info.is_module:
            info.submodules[name] = child
            info.children.append(name)
        else:
            info.attributes[name] = attribute_type
        info.slots.append(name)

    def declare_named_tuple(self, qualname: str, source: SourceFile, node: ast.ClassDef) -> TupleType:
        parser = self.unit.type_parser(self.scope, source)
        names: list[str] = []
        types: list[Attribute] = []
        defaults: dict[str, object] = {}
        for statement in node.body:
            if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
                names.append(statement.target.id)
                types.append(parser.parse(statement.annotation))
                if statement.value is not None:
                    defaults[statement.target.id] = printed_literal(source, statement.value)
            elif not (_is_docstring(statement) or isinstance(statement, ast.Pass)):
                raise source.error(statement, f"unexpected statement in NamedTuple {qualname}")
        tuple_type = TupleType(types, names, qualname)  # pyright: ignore[reportArgumentType]
        self.declared[qualname] = tuple_type
        self._tuple_defaults[qualname] = defaults
        return tuple_type

    def named_tuple_constructor(self, qualname: str, tuple_type: TupleType) -> NamedTupleConstructor:
        defaults = self._tuple_defaults.get(qualname, {})
        params = tuple(
            Param(n.data, t, defaults.get(n.data, NO_DEFAULT))
            for n, t in zip(tuple_type.names, tuple_type.types)
        )
        return NamedTupleConstructor(
            tuple_type, Signature(qualname.rsplit(".", 1)[-1], params, (tuple_type,))
        )

    # -- compiling ------------------------------------------------------------------------------

    def compile_function(
        self, qualname: str, node: ast.AST | None = None, caller: Any = None
    ) -> CompiledFunction:
        """The function `qualname`, compiled once under its qualified name."""
        found = self.find(qualname)
        if found is None or not isinstance(found[1], ast.FunctionDef):
            raise TsjitError(f"the archive defines no function {qualname}")
        source, definition = found
        _fold_literal_defaults(definition)
        unit = self.unit
        return unit.compile_definition(qualname, qualname, source, definition, self.scope, node, caller)

    def compile_all(self) -> None:
        """Every method of every declared class and every function of every file: what a
        reader that checks the whole program up front (PyTorch's import) compiles."""
        for qualifier in sorted(self.files):
            for name, statement in (self.definitions(qualifier) or {}).items():
                qualname = f"{qualifier}.{name}"
                if isinstance(statement, ast.FunctionDef):
                    self.compile_function(qualname)
                elif isinstance(statement, ast.ClassDef) and class_kind(self.files[qualifier], statement) in (
                    "Module",
                    "class",
                ):
                    info = self.declare(qualname)
                    assert isinstance(info, PrintedClass)
                    for method in list(info.methods):
                        self.unit.compile_method(info, method, None)


# --------------------------------------------------------------------------------------
# Names of printed code
# --------------------------------------------------------------------------------------


class AtenNamespace(SugaredValue):
    """`torch` in printed code: every attribute is the aten operator of that name."""

    kind = "module 'torch'"

    def __init__(self, version: int | None = None):
        self.version = version

    def attr(self, em: FunctionEmitter, node: ast.AST, name: str) -> SugaredValue:
        operator = f"aten::{name}"
        if not builtin_operator_exists(operator):
            raise em.error(node, f"unknown builtin op: {operator}")
        if self.version is not None and name in _VERSIONED_NAMES:
            return VersionedOperator(operator, self.version)
        return BuiltinFunction(operator)


_VERSIONED_NAMES = frozenset(o.split("::")[1].split(".")[0] for o in OVERLOAD_VERSIONS)


class VersionedOperator(BuiltinFunction):
    """An operator some of whose overloads changed meaning at an archive version: the
    overload the call chose must not be newer than the archive."""

    def __init__(self, operator: str, version: int):
        super().__init__(operator)
        self.version = version

    def call(self, em: FunctionEmitter, node: ast.AST, args: list[CallArg], kwargs: list[CallArg],
             n_binders: int) -> SugaredValue:  # fmt: skip
        from tsjit.dialects.aten import schema_of

        result = super().call(em, node, args, kwargs, n_binders)
        owner = result.as_value(em, node).owner
        schema = schema_of(owner) if isinstance(owner, Operation) else None
        name = schema.qualified_name if schema is not None else ""
        needed = OVERLOAD_VERSIONS.get(name, 0)
        if self.version < needed:
            raise em.error(node, f"{name} changed meaning in archive version {needed}; this archive is version "
                                 f"{self.version} and tsjit has no upgraders for it")  # fmt: skip
        return result


class QualifiedName(SugaredValue):
    """`__torch__` or a package under it: attributes are the archive's classes,
    functions, NamedTuples and deeper packages."""

    def __init__(self, importer: SourceImporter, qualname: str):
        self.importer = importer
        self.qualname = qualname

    @property
    def kind(self) -> str:  # pyright: ignore[reportIncompatibleVariableOverride]
        return f"namespace '{self.qualname}'"

    def attr(self, em: FunctionEmitter, node: ast.AST, name: str) -> SugaredValue:
        return self.importer.value(em, node, f"{self.qualname}.{name}")


class PrintedFunction(SugaredValue):
    """A function of printed source: compiled on first call, called with `func.call`."""

    kind = "function"

    def __init__(self, importer: SourceImporter, qualname: str):
        self.importer = importer
        self.qualname = qualname

    def call(self, em: FunctionEmitter, node: ast.AST, args: list[CallArg], kwargs: list[CallArg],
             n_binders: int) -> SugaredValue:  # fmt: skip
        callee = self.importer.compile_function(self.qualname, node, em)
        inputs = em.match_call(callee.signature, node, args, kwargs, f"{self.qualname}()")
        return SimpleValue(call_compiled(em, callee, node, inputs))


class ConstantTable(SugaredValue):
    """`CONSTANTS`: `CONSTANTS.c<i>` is entry i of the archive's constants.pkl."""

    kind = "constant table"

    def __init__(self, values: Sequence[object]):
        self.values = values

    def attr(self, em: FunctionEmitter, node: ast.AST, name: str) -> SugaredValue:
        index = int(name[1:]) if name[:1] == "c" and name[1:].isdigit() else -1
        if not 0 <= index < len(self.values):
            raise em.error(node, f"CONSTANTS.{name} is not in the archive's constant table "
                                 f"({len(self.values)} constants)")  # fmt: skip
        value = self.values[index]
        if hasattr(value, "dtype") and hasattr(value, "shape"):  # a tensor
            return SimpleValue(em.constant(value, None, node))
        return em.unit.resolver.to_sugared(em, node, value, f"CONSTANTS.{name}")


# --------------------------------------------------------------------------------------
# Outlines: printed files read without parsing
# --------------------------------------------------------------------------------------

_TOP_LEVEL = re.compile(r"(class|def)\s+([A-Za-z_]\w*)")
_METHOD = re.compile(r"  def\s+([A-Za-z_]\w*)")


@dataclass
class Outline:
    """One top-level definition of a printed file, found by its lines: a class or a
    def, its name and lines (0-based, end exclusive); for a class the end of its
    declarations (the line of its first method) and its methods' names."""

    kind: str
    name: str
    start: int
    end: int
    declarations_end: int
    methods: tuple[str, ...] = ()

    def declarations(self, source: SourceFile) -> ast.ClassDef:
        """The class parsed without its methods, at its lines in the file."""
        lines = source.lines[self.start : self.declarations_end]
        text = "\n" * self.start + "\n".join(lines) + "\n  pass\n"  # parsed at its own line numbers
        try:
            tree = ast.parse(text, source.filename)
        except SyntaxError as error:
            source.tree  # noqa: B018 - the whole file's parse reports the error where it is
            raise source.error(ast.Pass(lineno=self.start + 1, col_offset=0),
                               f"malformed declaration of class {self.name}: {error.msg}") from None  # fmt: skip
        node = tree.body[0]
        if not isinstance(node, ast.ClassDef) or len(tree.body) != 1:
            raise source.error(node, f"malformed declaration of class {self.name}")
        node.body = [s for s in node.body if not isinstance(s, ast.Pass)]
        return node


def outline(source: SourceFile) -> dict[str, Outline]:
    """The top-level classes and defs of printed source by name. Printed code puts each
    at column 0 and a class's methods at column 2 (`  def name(`); anything else at
    column 0 is an error, as the parse would report it."""
    lines = source.lines
    found: dict[str, Outline] = {}
    current: Outline | None = None
    for index, line in enumerate(lines):
        if not line or line[0] in " \t#":
            if current is not None and current.kind == "class" and (method := _METHOD.match(line)):
                if current.declarations_end == current.end:
                    current.declarations_end = index
                current.methods += (method.group(1),)
            continue
        if current is not None:
            current.end = index
            current.declarations_end = min(current.declarations_end, index)
            current = None
        match = _TOP_LEVEL.match(line)
        if match is None:
            if line.startswith("op_version_set"):
                continue
            raise source.error(ast.Pass(lineno=index + 1, col_offset=0),
                               "printed TorchScript defines only classes and functions at top level")  # fmt: skip
        kind, name = match.groups()
        if name in found:
            raise source.error(ast.Pass(lineno=index + 1, col_offset=0), f"'{name}' is defined twice")
        current = found[name] = Outline(kind, name, index, len(lines), len(lines))
    return found


# --------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------

CLASS_BASES = {"Module": "Module", "NamedTuple": "NamedTuple", "Enum": "Enum", "Interface": "Interface",
               "ModuleInterface": "Interface"}  # fmt: skip


def class_kind(source: SourceFile, node: ast.ClassDef) -> str:
    """Module, NamedTuple, Enum, Interface, or class (no base)."""
    if not node.bases:
        return "class"
    if len(node.bases) == 1 and isinstance(node.bases[0], ast.Name) and node.bases[0].id in CLASS_BASES:
        return CLASS_BASES[node.bases[0].id]
    raise source.error(node, f"class {node.name} has a base printed TorchScript does not use")


def dotted_name(expr: ast.expr) -> str | None:
    """`a.b.c` as text, or None for other expressions."""
    parts: list[str] = []
    while isinstance(expr, ast.Attribute):
        parts.append(expr.attr)
        expr = expr.value
    if not isinstance(expr, ast.Name):
        return None
    parts.append(expr.id)
    return ".".join(reversed(parts))


_LITERAL_NAMES = {"inf": math.inf, "nan": math.nan, "True": True, "False": False, "None": None}


def printed_literal(source: SourceFile, node: ast.expr) -> object:
    """The value of a constant as PyTorch prints it (lists read as tuples)."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name) and node.id in _LITERAL_NAMES:
        return _LITERAL_NAMES[node.id]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        value = printed_literal(source, node.operand)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return -value
    if isinstance(node, (ast.Tuple, ast.List)):
        return tuple(printed_literal(source, e) for e in node.elts)
    raise source.error(node, f"expected a constant, found '{ast.unparse(node)}'")


def _fold_literal_defaults(definition: ast.FunctionDef) -> None:
    """Defaults spelled `inf`, `-inf`, `nan` become constants (the def's literals are
    what its defaults are read from)."""
    arguments = definition.args
    arguments.defaults = [_folded(d) for d in arguments.defaults]
    arguments.kw_defaults = [None if d is None else _folded(d) for d in arguments.kw_defaults]


def _folded(node: ast.expr) -> ast.expr:
    if isinstance(node, ast.Name) and node.id in ("inf", "nan"):
        return ast.copy_location(ast.Constant(_LITERAL_NAMES[node.id]), node)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        operand = _folded(node.operand)
        if isinstance(operand, ast.Constant) and isinstance(operand.value, float):
            return ast.copy_location(ast.Constant(-operand.value), node)
    if isinstance(node, (ast.Tuple, ast.List)):
        node.elts = [_folded(e) for e in node.elts]
    return node


def _is_docstring(statement: ast.stmt) -> bool:
    return isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant)


def _is_version_marker(statement: ast.stmt) -> bool:
    """`op_version_set = N`, which archives of PyTorch before 1.6 begin with."""
    return (
        isinstance(statement, ast.Assign)
        and len(statement.targets) == 1
        and isinstance(statement.targets[0], ast.Name)
        and statement.targets[0].id == "op_version_set"
    )
