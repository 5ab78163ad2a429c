"""Writing a compiled module as a TorchScript archive that `torch.jit.load` reads.

    save(module, "model.pt")       # tsjit.script / tsjit.trace / tsjit.load results

`code/` is the Python printer's output for every class of the module's object tree (and
every class and NamedTuple the code names), one file per qualifier, with each method's
graph and the functions they call; tensor constants of the code go to `constants.pkl`.
`data.pkl` is the object tree (`pickler.py`), its tensors' storages `data/<key>`. The
version written is the lowest that gives every operator the code calls its current
meaning (3, or more for the overloads of `OVERLOAD_VERSIONS`), as PyTorch decides it.
Writing is deterministic: the same module gives the same bytes.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import StringAttr
from xdsl.ir import Attribute

from tsjit.dialects import types as ts
from tsjit.formats.archive.layout import ArchiveWriter
from tsjit.formats.archive.pickler import Pickler
from tsjit.formats.archive.storage import StorageTable
from tsjit.formats.python_code import (
    ClassSource,
    MethodSource,
    Signature,
    export_class,
    export_function,
)
from tsjit.runtime.values import ScriptObject

if TYPE_CHECKING:
    from tsjit.frontend.compilation import CompilationUnit, CompiledFunction
    from tsjit.frontend.modules import ModuleInfo
    from tsjit.frontend.script import ScriptFunction

MIN_VERSION = 3
PLACEHOLDER = "__torch__.PlaceholderModule"
"""The class PyTorch saves a scripted function as: its `forward` is the function."""


def save(
    module: ScriptFunction, path: str | os.PathLike[str], extra_files: dict[str, bytes] | None = None
) -> None:
    """Writes `module` (a ScriptModule, or a ScriptFunction saved as a module whose
    forward it is) to `path`; `extra_files` become `extra/<name>` records."""
    from tsjit.frontend.script import ScriptModule, compile_cleaned

    program = Program(module.unit)
    if isinstance(module, ScriptModule):
        root = module.state
        if module.is_root and module._entry is not None and "." not in module._entry.symbol:
            program.root_methods[module._entry.symbol] = module._entry.symbol  # tsjit.script's entry
        compile_cleaned(module.unit, lambda: program.add_object_tree(root, module.info))
    else:
        root = ScriptObject(PLACEHOLDER, {"training": True})
        program.add_function_module(module.entry)
    compile_cleaned(module.unit, program.complete)
    files, constants = program.code()
    contents = Contents(re.sub(r"\W", "_", Path(path).stem) or "archive", program.version(), files)
    contents.data = Pickler(contents.data_storages, program.attribute_types, program.is_parameter).dump(root)
    pickler = Pickler(contents.constant_storages, program.attribute_types, program.is_parameter)
    contents.constants = pickler.dump(tuple(constants))
    contents.extra = dict(getattr(getattr(module, "archive", None), "extra_files", {}) or {})
    contents.extra.update(extra_files or {})
    _write(path, contents)


@dataclass
class Contents:
    """What an archive's records hold: the pickles with their storages, code/ files by
    qualifier, extra files."""

    name: str  # the top-level directory
    version: int
    files: dict[str, str]
    data: bytes = b""
    data_storages: StorageTable = field(default_factory=StorageTable)
    constants: bytes = b""
    constant_storages: StorageTable = field(default_factory=StorageTable)
    extra: dict[str, bytes] = field(default_factory=dict)


def _write(path: str | os.PathLike[str], contents: Contents) -> None:
    """Writes beside `path` first and renames: the module being saved may be one loaded
    from `path`, whose storages are views of that file."""
    target = os.fspath(path)
    handle, temporary = tempfile.mkstemp(
        prefix=".tsjit-", suffix=".pt", dir=os.path.dirname(os.path.abspath(target))
    )
    os.close(handle)
    digest = hashlib.sha1()
    try:
        with ArchiveWriter(temporary, contents.name) as out:
            for key, storage in contents.data_storages.storages.items():
                out.write(f"data/{key}", _bytes(storage))
            out.write("data.pkl", contents.data)
            for qualifier, text in sorted(contents.files.items()):
                encoded = text.encode("utf-8")
                digest.update(encoded)
                out.write("code/" + qualifier.replace(".", "/") + ".py", encoded)
            for key, storage in contents.constant_storages.storages.items():
                out.write(f"constants/{key}", _bytes(storage))
            out.write("constants.pkl", contents.constants)
            out.write("version", f"{contents.version}\n".encode())
            out.write("byteorder", b"little")
            for extra_name, content in sorted(contents.extra.items()):
                out.write(f"extra/{extra_name}", content)
            digest.update(contents.data + contents.constants)
            out.write(".data/serialization_id", digest.hexdigest().encode())
        os.chmod(temporary, 0o666 & ~_umask())  # as a file opened for writing would be
        os.replace(temporary, target)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _bytes(storage: np.ndarray) -> memoryview:
    array = storage if storage.dtype.byteorder in "=|" else storage.astype(storage.dtype.newbyteorder("="))
    return memoryview(np.ascontiguousarray(array)).cast("B")


# --------------------------------------------------------------------------------------
# What the archive holds: classes, methods, functions
# --------------------------------------------------------------------------------------


@dataclass
class Program:
    """The classes of a module's object tree and of its code, the methods and functions
    to print, in a deterministic order."""

    unit: CompilationUnit
    # qualname -> its class (None: the placeholder module of a function)
    classes: dict[str, ModuleInfo | None] = field(default_factory=dict)
    slot_order: dict[str, list[str]] = field(default_factory=dict)
    tuples: dict[str, ts.TupleType] = field(default_factory=dict)
    methods: dict[str, dict[str, str]] = field(default_factory=dict)  # class -> method -> symbol
    root: str | None = None
    root_methods: dict[str, str] = field(default_factory=dict)  # method -> symbol of the root's entry
    placeholder: CompiledFunction | None = None

    # -- collecting ------------------------------------------------------------------------------

    def add_object_tree(self, root: ScriptObject, info: ModuleInfo) -> None:
        self.root = info.qualname
        self.add_class(info)
        seen: set[int] = set()
        pending: list[Any] = [root]
        while pending:
            value = pending.pop()
            if isinstance(value, ScriptObject):
                if id(value) in seen:
                    continue
                seen.add(id(value))
                known = self.unit.registry.by_qualname.get(value.qualified_name)
                if known is None:
                    raise ValueError(f"an object of class {value.qualified_name} has no class in the module")
                self.add_class(known)
                self.slot_order.setdefault(value.qualified_name, list(value.attributes))
                pending.extend(reversed(list(value.attributes.values())))
            elif isinstance(value, (list, tuple)):
                pending.extend(reversed(value))
            elif isinstance(value, dict):
                pending.extend(reversed([*value.keys(), *value.values()]))

    def add_function_module(self, entry: CompiledFunction) -> None:
        self.classes[PLACEHOLDER] = None
        self.slot_order[PLACEHOLDER] = ["training"]
        self.placeholder = entry

    def add_class(self, info: ModuleInfo) -> None:
        if info.qualname in self.classes:
            return
        self.classes[info.qualname] = info
        for name in _methods_to_print(info):
            self.compile_method(info, name)

    def compile_method(self, info: ModuleInfo, name: str) -> None:
        """Compiles a method the archive needs, unless the unit has its graph already
        (compiled, or traced: a traced module's methods are graphs of no source)."""
        symbols = self.symbols()
        if f"{info.qualname}.{name}" in symbols or (info.qualname == self.root and name in self.root_methods):
            return
        if info.has_method(name):
            self.unit.compile_method(info, name, None)

    def symbols(self) -> dict[str, func.FuncOp]:
        return {op.sym_name.data: op for op in self.unit.module.ops if isinstance(op, func.FuncOp)}

    def complete(self) -> None:
        """Adds the classes and NamedTuples the code names, and the methods the code
        calls on them, until nothing new appears."""
        while True:
            before = (len(self.classes), len(self.tuples), sum(len(m) for m in self.methods.values()))
            self.collect_methods()
            for function in self.functions().values():
                for op in function.walk():
                    self.note_op(op)
                for t in _types_of(function):
                    self.note_type(t)
            for qualname, info in list(self.classes.items()):
                if info is not None:
                    for attribute_type in self.attribute_types_of(qualname).values():
                        self.note_type(attribute_type)
            after = (len(self.classes), len(self.tuples), sum(len(m) for m in self.methods.values()))
            if after == before:
                return

    def collect_methods(self) -> None:
        """A class's methods are the functions `<class>.<method>` (the runtime's
        convention for `prim.CallMethod`), and for the root the entry tsjit.script named."""
        for symbol in self.symbols():
            qualname, _, name = symbol.rpartition(".")
            if qualname in self.classes and self.classes[qualname] is not None:
                self.methods.setdefault(qualname, {})[name] = symbol
        if self.root is not None:
            self.methods.setdefault(self.root, {}).update(self.root_methods)

    def note_op(self, op: Any) -> None:
        """A method the code calls (`prim.CallMethod`, and `__enter__`/`__exit__` of a
        `with`) is compiled and printed with its class."""
        if op.name == "prim.CallMethod":
            self.need_method(op.operands[0].type, op.properties["name"].data)
        elif op.name in ("prim.Enter", "prim.Exit"):
            for method in ("__enter__", "__exit__"):
                self.need_method(op.operands[0].type, method)

    def need_method(self, receiver: Attribute, method: str) -> None:
        if not isinstance(receiver, ts.ClassType):
            return
        info = self.unit.registry.by_qualname.get(receiver.qualname.data)
        if info is not None:
            self.add_class(info)
            self.compile_method(info, method)

    def note_type(self, t: Attribute) -> None:
        for leaf in _leaf_types(t):
            if isinstance(leaf, ts.ClassType):
                info = self.unit.registry.by_qualname.get(leaf.qualname.data)
                if info is not None:
                    self.add_class(info)
            elif isinstance(leaf, ts.TupleType) and isinstance(leaf.qualname, StringAttr):  # a NamedTuple
                self.tuples.setdefault(leaf.qualname.data, leaf)

    # -- reading what was collected -----------------------------------------------------------

    def method_functions(self) -> Iterator[tuple[str, str, str]]:
        """(class, method, symbol) of every method to print."""
        for qualname in self.classes:
            for name, symbol in self.methods.get(qualname, {}).items():
                yield qualname, name, symbol
        if self.placeholder is not None:
            yield PLACEHOLDER, "forward", self.placeholder.symbol

    def functions(self) -> dict[str, func.FuncOp]:
        """Methods' graphs and the functions they call (transitively), by symbol."""
        by_symbol = self.symbols()
        found: dict[str, func.FuncOp] = {}
        pending = [symbol for _, _, symbol in self.method_functions()]
        while pending:
            symbol = pending.pop()
            if symbol in found or symbol not in by_symbol:
                continue
            found[symbol] = by_symbol[symbol]
            for op in found[symbol].walk():
                if isinstance(op, func.CallOp):
                    pending.append(op.callee.root_reference.data)
        return found

    def attribute_types_of(self, qualname: str) -> dict[str, Attribute]:
        info = self.classes.get(qualname)
        if info is None:
            return {"training": ts.BoolType()}
        types = {**info.attributes, **{n: c.class_type for n, c in info.submodules.items()}}
        order = getattr(info, "slots", None) or self.slot_order.get(qualname) or list(types)
        return {name: types[name] for name in order if name in types}

    def attribute_types(self, obj: ScriptObject) -> dict[str, Attribute]:
        return self.attribute_types_of(obj.qualified_name)

    def is_parameter(self, obj: ScriptObject, name: str) -> bool:
        info = self.classes.get(obj.qualified_name)
        return info is not None and name in info.parameters

    def version(self) -> int:
        from tsjit.dialects.aten import schema_of
        from tsjit.frontend.source_importer import OVERLOAD_VERSIONS

        version = MIN_VERSION
        for function in self.functions().values():
            for op in function.walk():
                schema = schema_of(op)
                if schema is not None:
                    version = max(version, OVERLOAD_VERSIONS.get(schema.qualified_name, 0))
        return version

    # -- printing ---------------------------------------------------------------------------------

    def code(self) -> tuple[dict[str, str], list[object]]:
        """code/ files by qualifier, and the constant table their code reads."""
        constants: list[object] = []
        indices: dict[object, int] = {}

        def constant_name(value: object, value_type: Attribute) -> str | None:
            """Tensors, and strings of more than printable ASCII, live in the constant
            table (as PyTorch keeps them: its lexer reads no other escapes); each
            distinct value once."""
            if not isinstance(value, np.ndarray) and _printable(value):
                return None
            key = (
                (value.dtype.str, value.shape, value.tobytes())
                if isinstance(value, np.ndarray)
                else repr(value)
            )
            if key not in indices:
                indices[key] = len(constants)
                constants.append(value)
            return f"CONSTANTS.c{indices[key]}"

        functions = self.functions()
        method_symbols = {symbol for _, _, symbol in self.method_functions()}
        names = {symbol: _qualified(symbol) for symbol in functions if symbol not in method_symbols}
        files: dict[str, list[str]] = {}

        def add(qualname: str, text: str) -> None:
            files.setdefault(qualname.rpartition(".")[0], []).append(text)

        for qualname in self.classes:
            add(qualname, export_class(self.class_source(qualname, functions), names, constant_name))
        for qualname, tuple_type in self.tuples.items():
            fields = [(n.data, t) for n, t in zip(tuple_type.names, tuple_type.types)]
            add(qualname, export_class(ClassSource(qualname, "NamedTuple", fields), names, constant_name))
        for symbol, qualname in names.items():
            compiled = _compiled_of(self.unit, symbol)
            signature = Signature(_defaults(compiled)) if compiled is not None else None
            add(qualname, export_function(functions[symbol], qualname.rsplit(".", 1)[-1], signature, names,
                                          constant_name))  # fmt: skip
        return {q: "".join(texts) for q, texts in files.items()}, constants

    def class_source(self, qualname: str, functions: dict[str, func.FuncOp]) -> ClassSource:
        info = self.classes[qualname]
        methods = []
        for method_qualname, name, symbol in self.method_functions():
            if method_qualname != qualname:
                continue
            function = functions[symbol]
            is_method = function.function_type.inputs.data[:1] == (ts.ClassType(qualname),)
            defaults = _defaults(_compiled_of(self.unit, symbol), 1 if is_method else 0)
            methods.append(MethodSource(name, function, Signature(defaults, qualname, is_method)))
        attributes = list(self.attribute_types_of(qualname).items())
        if info is None:
            return ClassSource(qualname, "Module", attributes, methods=methods)
        kind = "Module" if _is_module(info) else "class"
        constants = list(info.constants.items())
        return ClassSource(qualname, kind, attributes, info.parameters, info.buffers, constants, methods)


def _printable(value: object) -> bool:
    """Whether a constant is printed as a literal: strings of printable ASCII only."""
    if isinstance(value, str):
        return all(" " <= c <= "~" for c in value)
    if isinstance(value, (list, tuple)):
        return all(_printable(v) for v in value)
    return True


def _is_module(info: ModuleInfo) -> bool:
    printed = getattr(info, "is_module", None)
    if printed is not None:
        return printed
    return "training" in info.attributes


def _methods_to_print(info: ModuleInfo) -> list[str]:
    """Every method of a class read from an archive; of a Python class, the ones marked
    `@torch.jit.export` (others are printed when compiled or called)."""
    methods = getattr(info, "methods", None)
    if methods is not None:
        return list(methods)
    names = []
    for klass in getattr(info.python_class, "__mro__", ()):
        for name, function in vars(klass).items():
            exported = getattr(function, "_tsjit_export", False) or "EXPORT" in str(
                getattr(function, "_torchscript_modifier", "")
            )
            if exported and name not in names and info.has_method(name):
                names.append(name)
    return names


def _compiled_of(unit: CompilationUnit, symbol: str) -> CompiledFunction | None:
    for compiled in unit.compiled.values():
        if compiled.symbol == symbol:
            return compiled
    return None


def _defaults(compiled: CompiledFunction | None, first: int = 0) -> dict[int, object]:
    """Parameter defaults by block argument index (`first`: 1 when `self` comes first)."""
    from tsjit.frontend.schema_matching import NO_DEFAULT

    if compiled is None:
        return {}
    return {
        first + i: p.default for i, p in enumerate(compiled.signature.params) if p.default is not NO_DEFAULT
    }


def _qualified(symbol: str) -> str:
    """A function symbol as the qualified name printed code calls it by (`fib.1` is
    `__torch__.fib_1`, `torch.nn.functional.relu` `__torch__.torch.nn.functional.relu`)."""
    if symbol.startswith("__torch__."):
        return symbol
    parts: list[str] = []
    for part in symbol.split("."):
        if parts and not part.isidentifier():
            parts[-1] += "_" + re.sub(r"\W", "_", part)
        else:
            parts.append(re.sub(r"\W", "_", part) or "_")
    return "__torch__." + ".".join(parts)


def _leaf_types(t: Attribute) -> Iterator[Attribute]:
    yield t
    if isinstance(t, (ts.ListType, ts.OptionalType, ts.FutureType)):
        yield from _leaf_types(t.element_type)
    elif isinstance(t, ts.TupleType):
        for element in t.types:
            yield from _leaf_types(element)
    elif isinstance(t, ts.DictType):
        yield from _leaf_types(t.key_type)
        yield from _leaf_types(t.value_type)
    elif isinstance(t, ts.UnionType):
        for element in t.types:
            yield from _leaf_types(element)


def _types_of(function: func.FuncOp) -> Iterator[Attribute]:
    yield from function.function_type.inputs.data
    yield from function.function_type.outputs.data
    for op in function.walk():
        for result in op.results:
            yield result.type
        for region in op.regions:
            for block in region.blocks:
                for arg in block.args:
                    yield arg.type
