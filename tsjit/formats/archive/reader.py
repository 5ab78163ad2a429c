"""Reading a TorchScript archive into a module tsjit runs.

    module = load("model.pt")        # a ScriptModule: callable, methods, parameters
    module(x); module.extra(x)       # code/ compiles on first use, once per class

Loading reads the version, unpickles `constants.pkl` and `data.pkl` (restricted, see
`unpickler.py`; storages are views of the file), and declares the class of every object
of the tree from its `code/` source (`tsjit.frontend.source_importer`), checking each
object against its class. Methods compile when first called (or asked for: `.graph`,
`.code`); errors in `code/` name the member and line. Nothing from the file is executed.
"""

from __future__ import annotations

import ast
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from tsjit.diagnostics import TsjitError
from tsjit.formats.archive.layout import ArchiveError, ArchiveReader
from tsjit.formats.archive.unpickler import EnumValue, LoadedObject, unpickle
from tsjit.frontend.source import SourceFile

if TYPE_CHECKING:
    from tsjit.frontend.source_importer import PrintedClass, SourceImporter

MIN_VERSION = 3
"""The oldest archive format read: 3, the oldest PyTorch 1.4 and later (so every 2.x) write."""

MAX_VERSION = 10
"""The newest archive format read: PyTorch 2.x's kMaxSupportedFileFormatVersion."""


@dataclass
class ArchiveInfo:
    """What an archive holds besides its module."""

    path: str
    name: str  # the top-level directory
    version: int
    extra_files: dict[str, bytes] = field(default_factory=dict)
    constants: tuple[Any, ...] = ()
    importer: Any = None  # the SourceImporter of its code/


class ArchiveSource(SourceFile):
    """A `code/` file: errors read `model.pt: error: <member>:<line>:<col>: message`."""

    def __init__(self, path: str, member: str, text: str):
        super().__init__(member, text)
        self.path = path

    @cached_property
    def tree(self) -> ast.Module:
        try:
            return ast.parse(self.text, self.filename, type_comments=True)
        except SyntaxError as error:
            where = f"{self.filename}:{error.lineno or 0}:{error.offset or 0}"
            raise ArchiveError(self.path, f"syntax error: {error.msg}", where) from None

    def error(self, node: Any, message: str, notes: Sequence[str] = ()) -> TsjitError:
        where = self.source_location(node)
        position = f":{where.line}:{where.col}" if where is not None else ""
        error = ArchiveError(self.path, message, f"{self.filename}{position}")
        error.notes = tuple(notes)
        return error


def load(path: str | os.PathLike[str]) -> Any:
    """The archive at `path` as a `ScriptModule` (its `archive` attribute: ArchiveInfo)."""
    from tsjit.frontend.compilation import CompilationUnit
    from tsjit.frontend.script import ScriptModule
    from tsjit.frontend.source_importer import SourceImporter

    reader = ArchiveReader(path)
    version = read_version(reader)
    byteorder = read_byteorder(reader)
    storages: dict[str, Any] = {}
    constants: tuple[Any, ...] = ()
    if reader.has("constants.pkl"):
        constants = unpickle(reader, "constants.pkl", "constants", storages, byteorder)
        if not isinstance(constants, tuple):
            raise ArchiveError(reader.path, "expected a tuple of constants", reader.member("constants.pkl"))
    objects: list[LoadedObject] = []
    root = unpickle(reader, "data.pkl", "data", storages, byteorder, objects.extend)
    unit = CompilationUnit()
    importer = SourceImporter(unit, code_files(reader), constants, version)
    names = sorted({obj.qualified_name for obj in objects})
    classes = {name: declared_class(reader, importer, name) for name in names}
    for obj in objects:
        check_object(reader, classes[obj.qualified_name], obj)
    info = classes.get(root.qualified_name) if isinstance(root, LoadedObject) else None
    if info is None or not info.is_module:
        what = (
            root.qualified_name
            if isinstance(root, LoadedObject)
            else "dict"
            if isinstance(root, dict)
            else type(root).__name__
        )
        raise ArchiveError(reader.path, f"the pickled root is a {what}, not a module: not a TorchScript archive "
                                        "(torch.jit.save)", reader.member("data.pkl"))  # fmt: skip
    module = ScriptModule(unit, None, info, root)
    extra = {name[len("extra/") :]: reader.read(name) for name in reader.names("extra/")}
    archive = ArchiveInfo(reader.path, reader.prefix[:-1], version, extra, constants, importer)
    module.archive = archive  # pyright: ignore[reportAttributeAccessIssue]
    return module


def read_version(reader: ArchiveReader) -> int:
    name = ".data/version" if reader.has(".data/version") else "version"
    if not reader.has(name):
        raise ArchiveError(
            reader.path, "missing from the archive: not a TorchScript archive", reader.member("version")
        )
    text = reader.read_text(name).strip()
    if not text.isdigit():
        raise ArchiveError(reader.path, f"malformed archive version '{text[:20]}'", reader.member(name))
    version = int(text)
    if version > MAX_VERSION:
        raise ArchiveError(reader.path, f"archive version {version} is newer than tsjit reads "
                                        f"({MIN_VERSION} to {MAX_VERSION})", reader.member(name))  # fmt: skip
    if version < MIN_VERSION:
        raise ArchiveError(reader.path, f"archive version {version} is older than tsjit reads "
                                        f"({MIN_VERSION} to {MAX_VERSION}: PyTorch 1.4 and later)", reader.member(name))  # fmt: skip
    return version


def read_byteorder(reader: ArchiveReader) -> str:
    if not reader.has("byteorder"):
        return "little"
    order = reader.read_text("byteorder").strip()
    if order not in ("little", "big"):
        raise ArchiveError(reader.path, f"unknown byte order '{order[:20]}'", reader.member("byteorder"))
    return order


def code_files(reader: ArchiveReader) -> dict[str, SourceFile]:
    """`code/__torch__/a/b.py` as qualifier `__torch__.a.b`."""
    files: dict[str, SourceFile] = {}
    for name in reader.names("code/"):
        if not name.endswith(".py"):
            continue  # .debug_pkl: source ranges PyTorch keeps for its own messages
        qualifier = name[len("code/") : -len(".py")].replace("/", ".")
        files[qualifier] = ArchiveSource(reader.path, reader.member(name), reader.read_text(name))
    return files


def declared_class(reader: ArchiveReader, importer: SourceImporter, qualname: str) -> PrintedClass:
    """The class of a pickled object, declared from code/."""
    from tsjit.frontend.source_importer import PrintedClass

    declared = importer.declare(qualname)
    if declared is None:
        raise ArchiveError(reader.path, f"the pickled class {qualname} is not defined in code/",
                           reader.member("data.pkl"))  # fmt: skip
    if not isinstance(declared, PrintedClass):
        raise ArchiveError(reader.path, f"{qualname} is pickled as an object but is not a class",
                           reader.member("data.pkl"))  # fmt: skip
    return declared


def check_object(reader: ArchiveReader, info: PrintedClass, obj: LoadedObject) -> None:
    """The pickled attributes are exactly the ones the class declares."""
    if obj.state is not None:
        raise ArchiveError(reader.path, f"an object of {obj.qualified_name} is pickled with custom state "
                                        "(__getstate__/__setstate__), which tsjit does not support",
                           reader.member("data.pkl"))  # fmt: skip
    declared = set(info.slots)
    pickled = set(obj.attributes)
    if declared != pickled:
        missing, extra = sorted(declared - pickled), sorted(pickled - declared)
        detail = f"lacks {missing}" if missing else f"has undeclared attributes {extra}"
        raise ArchiveError(
            reader.path, f"an object of {obj.qualified_name} {detail}", reader.member("data.pkl")
        )
    for name, value in obj.attributes.items():
        if isinstance(value, EnumValue):
            message = (
                f"attribute '{name}' of {obj.qualified_name} holds an enum value; tsjit has no enum types"
            )
            raise ArchiveError(reader.path, message, reader.member("data.pkl"))
