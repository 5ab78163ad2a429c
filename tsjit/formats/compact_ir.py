"""A compact form of a module for caches: fast to write, fast to read back, exact.

    data = dump_module(module)            # bytes
    module = load_module(ctx, data)       # an equal module, its ops built directly
    module = load_module(make_ctx, data)  # a context made only if the data needs one
    dump_module(module, declare={"f"})    # @f without its body: a declaration

MLIR text is what people read, but reading it back costs most of its time in parsing
the same types over and over (a small graph spells its tensor type a hundred times).
Here every distinct attribute (types, properties, attributes) is written once, as its
class and parameters (the attributes it is made of, or its int, float, bool, string or
enum data), or in MLIR syntax when it holds other data; ops refer to attributes and values
by number and are built with `Operation.create`, without parsing or verifying them
again. Locations are attributes like the others. Op classes are found where they are
defined, as attribute classes are (asking a context loads each dialect whole, every op
and attribute of it); by name in a context when not found there (aten's ops, made at
run time), and a reader given a function for the context calls it only then.

`dump_module` raises `NotCompact` for what it cannot represent exactly (successors,
a value used before its definition, an attribute whose text does not read back
equal); callers then do without the compact form.
"""

from __future__ import annotations

import functools
import importlib
import json
import sys
from collections.abc import Callable, Collection
from enum import Enum
from io import StringIO
from typing import Any

from xdsl.context import Context
from xdsl.dialects.builtin import ArrayAttr, StringAttr
from xdsl.ir import Attribute, Block, Data, Operation, ParametrizedAttribute, Region, SSAValue
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import ParseError, UnregisteredConstructException

FORMAT = "tsjit-compact-ir 2"


class NotCompact(Exception):
    """The module holds something the compact form cannot represent exactly."""


def dump_module(op: Operation, ctx: Context | None = None, declare: Collection[str] = ()) -> bytes:
    """The compact form of `op` (a module); given a `ctx`, every attribute
    is read back and compared, so that a module that would not load equal raises
    `NotCompact` instead. The symbols (functions) named in `declare` are written
    without their bodies, as declarations: a reader that may never need a body loads
    it on its own, when it does (`dump_module` of the function)."""
    writer = _Writer(frozenset(declare))
    root = writer.op(op)
    if ctx is not None:
        rebuilt = _attributes(_Context(ctx), writer.encoded)
        for attribute, again, form in zip(writer.attributes, rebuilt, writer.encoded):
            if again != attribute:
                raise NotCompact(f"the attribute {form} does not read back equal")
    document = {"format": FORMAT, "attributes": writer.encoded, "ops": writer.op_paths, "root": root}
    return json.dumps(document, separators=(",", ":")).encode()


def load_module(ctx: Context | Callable[[], Context], data: bytes) -> Operation:
    """The op `dump_module` wrote; ValueError for data it did not write. `ctx` may be
    a function that makes the context, called only when the data needs one."""
    context = _Context(ctx)
    try:
        document = json.loads(data)
        if document.get("format") != FORMAT:
            raise ValueError("not a compact module of this format")
        reader = _Reader(context, _attributes(context, document["attributes"]), document["ops"])
        return reader.op(document["root"])
    except _MALFORMED as e:
        raise ValueError(f"malformed compact module: {e}") from e


_MALFORMED = (KeyError, IndexError, TypeError, AttributeError, ImportError, ParseError, UnregisteredConstructException)
"""What reading data that `dump_module` did not write raises."""


class _Context:
    """The context, made on first use when given as a function."""

    def __init__(self, ctx: Context | Callable[[], Context]):
        self._ctx = ctx

    def __call__(self) -> Context:
        if not isinstance(self._ctx, Context):
            self._ctx = self._ctx()
        return self._ctx


_PLAIN_DATA = (int, float, bool, str)


def _attributes(ctx: Callable[[], Context], encoded: list[Any]) -> list[Attribute]:
    """The attributes of their encoded forms, each made of earlier ones."""
    built: list[Attribute] = []
    for form in encoded:
        kind = form[0]
        if kind == "p":
            built.append(_new(_attribute_class(form[1]), [built[i] for i in form[2]]))
        elif kind == "a":
            built.append(ArrayAttr([built[i] for i in form[1]]))
        elif kind == "d":
            built.append(_new_data(_attribute_class(form[1]), form[2]))
        elif kind == "e":
            built.append(_new_data(_attribute_class(form[1]), _enum_class(form[2])(form[3])))
        else:
            built.append(Parser(ctx(), form[1]).parse_attribute())
    return built


def _new(cls: Any, parameters: list[Attribute]) -> Attribute:
    """`cls.new(parameters)`, without verifying again what was written from a verified
    attribute (as ops are built), when verifying is all its `__post_init__` does."""
    if cls.__post_init__ is not Attribute.__post_init__:
        return cls.new(parameters)
    names = _parameter_names(cls)
    if len(names) != len(parameters):
        raise ValueError(f"{cls.__name__} takes {len(names)} parameters, not {len(parameters)}")
    attribute = cls.__new__(cls)
    for name, parameter in zip(names, parameters):
        object.__setattr__(attribute, name, parameter)
    return attribute


def _new_data(cls: Any, data: Any) -> Attribute:
    """`cls.new(data)`, unverified as `_new`."""
    if cls.__post_init__ is not Attribute.__post_init__ or Data not in cls.__mro__:
        return cls.new(data)
    attribute = cls.__new__(cls)
    object.__setattr__(attribute, "data", data)
    return attribute


@functools.cache
def _parameter_names(cls: Any) -> tuple[str, ...]:
    return tuple(name for name, _ in cls.get_irdl_definition().parameters)


@functools.cache
def _attribute_class(path: str) -> Any:
    """The attribute class at `module:qualified.name` (attribute names do not find
    every class in a context: builtin types are named `f32`, `index`, ...)."""
    return _class_at(path, Attribute)


@functools.cache
def _enum_class(path: str) -> Any:
    """The Enum class of the data of an attribute (`Signedness`)."""
    return _class_at(path, Enum)


def _class_at(path: str, base: type) -> Any:
    module_name, _, qualified = path.partition(":")
    found: Any = sys.modules.get(module_name) or importlib.import_module(module_name)
    for part in qualified.split("."):
        found = getattr(found, part)
    if not (isinstance(found, type) and base in found.__mro__):  # not issubclass: ABCs check slowly
        raise ValueError(f"{path} is not a subclass of {base.__name__}")
    return found


@functools.cache
def _op_class(path: str, name: str) -> type[Operation] | None:
    """The class of op `name` at `path`, where its writer found it; None when it is not
    there (a class made at run time under another name): then found by name."""
    try:
        found = _class_at(path, Operation)
    except (ImportError, AttributeError, ValueError):
        return None
    return found if getattr(found, "name", None) == name else None


@functools.cache
def _class_path(cls: type) -> str | None:
    """Where `_attribute_class` (or `_enum_class`) finds the class, or None when it
    would not find it (classes made at run time under another name)."""
    path = f"{cls.__module__}:{cls.__qualname__}"
    try:
        return path if _class_at(path, object) is cls else None
    except (ImportError, AttributeError, ValueError):
        return None


@functools.cache
def _kind(attribute_class: type[Attribute]) -> tuple[str, str | None]:
    """How an attribute of this class is written ("a"rray, "p"arametrized, "d"ata, or
    "t"ext) and where its class is found: once per class, by its MRO rather than
    `isinstance`, whose checks against abstract classes cost more than the rest of
    writing a small module."""
    mro = attribute_class.__mro__
    kind = "a" if ArrayAttr in mro else "p" if ParametrizedAttribute in mro else "d" if Data in mro else "t"
    return kind, _class_path(attribute_class)


def _form_key(form: list[Any]) -> tuple[Any, ...]:
    """An encoded attribute as a dictionary key: its parameters' numbers as a tuple,
    plain data with its type (`1`, `1.0` and `True` are equal keys), floats by their
    text (`0.0` and `-0.0` too)."""
    kind = form[0]
    if kind == "p":
        return (kind, form[1], tuple(form[2]))
    if kind == "a":
        return (kind, tuple(form[1]))
    if kind == "t":
        return (kind, form[1])
    data = form[-1]
    return (*form[:-1], type(data), repr(data) if type(data) is float else data)


class _Writer:
    def __init__(self, declare: frozenset[str] = frozenset()) -> None:
        self.declare = declare
        self.attributes: list[Attribute] = []
        self.encoded: list[Any] = []
        self.form_ids: dict[tuple[Any, ...], int] = {}
        """Attributes by their encoded form (`_form_key`), whose parameters are numbers
        already: equal attributes have equal forms, and hashing the attribute instead
        would hash every parameter again, in Python."""
        self.identities: dict[int, int] = {}
        """By `id` (the module keeps every attribute alive while it is written): a
        module shares its attribute objects."""
        self.value_ids: dict[int, int] = {}
        """By `id`, as SSA values hash (in Python); the module keeps them alive."""
        self.op_paths: dict[str, str] = {}
        """By op name, where its class is defined (`_op_class` checks it)."""

    def attribute(self, attribute: Attribute) -> int:
        known = self.identities.get(id(attribute))
        if known is not None:
            return known
        form = self._encode(attribute)
        key = _form_key(form)
        known = self.form_ids.get(key)
        if known is None:
            known = self.form_ids[key] = len(self.encoded)
            self.attributes.append(attribute)
            self.encoded.append(form)
        self.identities[id(attribute)] = known
        return known

    def _encode(self, attribute: Attribute) -> list[Any]:
        kind, path = _kind(type(attribute))
        if kind == "a":
            elements = attribute.data  # pyright: ignore[reportAttributeAccessIssue]
            return ["a", [self.attribute(a) for a in elements]]
        if path is not None and kind == "p":  # the parameters by name (xDSL's `parameters` asks the definition)
            names = _parameter_names(type(attribute))
            return ["p", path, [self.attribute(getattr(attribute, name)) for name in names]]
        if path is not None and kind == "d":
            data: Any = attribute.data  # pyright: ignore[reportUnknownMemberType]
            if type(data) in _PLAIN_DATA:
                return ["d", path, data]
            enum = _class_path(type(data)) if isinstance(data, Enum) else None
            if enum is not None and type(data.value) in _PLAIN_DATA:
                return ["e", path, enum, data.value]
        stream = StringIO()
        Printer(stream=stream).print_attribute(attribute)
        return ["t", stream.getvalue()]

    def define(self, value: SSAValue) -> None:
        self.value_ids[id(value)] = len(self.value_ids)

    def use(self, value: SSAValue) -> int:
        known = self.value_ids.get(id(value))
        if known is None:
            raise NotCompact("a value is used before its definition")
        return known

    def op(self, op: Operation) -> list[Any]:
        if op.successors:
            raise NotCompact(f"'{op.name}' has successors")
        name = op.name
        if name not in self.op_paths:
            cls = type(op)
            self.op_paths[name] = f"{cls.__module__}:{cls.__qualname__}"
        operands = [self.use(v) for v in op.operands]
        symbol = op.properties.get("sym_name") if self.declare else None
        if isinstance(symbol, StringAttr) and symbol.data in self.declare:
            regions: list[list[Any]] = [[] for _ in op.regions]
        else:
            regions = [[self.block(block) for block in region.blocks] for region in op.regions]
        for result in op.results:
            self.define(result)
        return [
            name,
            operands,
            [self.attribute(r.type) for r in op.results],
            [r.name_hint for r in op.results],
            {name: self.attribute(a) for name, a in op.properties.items()},
            {name: self.attribute(a) for name, a in op.attributes.items()},
            self.attribute(op.location),
            regions,
        ]

    def block(self, block: Block) -> list[Any]:
        for argument in block.args:
            self.define(argument)
        return [
            [self.attribute(a.type) for a in block.args],
            [a.name_hint for a in block.args],
            [self.op(op) for op in block.ops],
        ]


class _Reader:
    def __init__(self, ctx: Callable[[], Context], attributes: list[Attribute], paths: dict[str, str]):
        self.ctx = ctx
        self.attributes = attributes
        self.paths = paths
        self.values: list[SSAValue] = []
        self.classes: dict[str, type[Operation]] = {}

    def op(self, data: list[Any]) -> Operation:
        name, operands, result_types, hints, properties, attributes, location, regions = data
        op_class = self.classes.get(name)
        if op_class is None:
            path = self.paths.get(name)
            op_class = _op_class(path, name) if path is not None else None
            self.classes[name] = op_class = op_class or self.ctx().get_op(name)
        values, table = self.values, self.attributes
        built = op_class.create(
            operands=[values[i] for i in operands],
            result_types=[table[i] for i in result_types],
            properties={k: table[i] for k, i in properties.items()},
            attributes={k: table[i] for k, i in attributes.items()},
            regions=[Region([self.block(b) for b in blocks]) for blocks in regions],
            location=table[location],  # pyright: ignore[reportArgumentType]
        )
        for result, hint in zip(built.results, hints):
            result.name_hint = hint
            values.append(result)
        return built

    def block(self, data: list[Any]) -> Block:
        types, hints, ops = data
        block = Block(arg_types=[self.attributes[i] for i in types])
        for argument, hint in zip(block.args, hints):
            argument.name_hint = hint
            self.values.append(argument)
        block.add_ops([self.op(op) for op in ops])
        return block
