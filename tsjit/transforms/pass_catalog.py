"""What passes there are and what each does: `ts-opt --list-passes`.

A pass describes itself: the first sentence of its class docstring (else of its
module's, which names the pass first: `inline: calls of graphs ...`), and its options
are its dataclass fields, with their types, defaults and the docstring under each field.
Passes come from three places, listed in this order: tsjit's own, plugins (packages
registering an `xdsl.universe` entry point, files given to `--load-pass-plugin`), and
xDSL's, which only `--list-passes --all` shows.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import re
import textwrap
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from xdsl.passes import ModulePass

XDSL_UNIVERSE = "xdsl"
"""The entry point under which xDSL registers its own passes."""


@dataclass(frozen=True)
class PassOption:
    name: str
    type: str
    default: str | None  # None: required
    doc: str


@dataclass(frozen=True)
class PassInfo:
    name: str
    description: str
    options: tuple[PassOption, ...]


def describe_pass(name: str, cls: type[ModulePass]) -> PassInfo:
    """A pass's one-line description and its options."""
    return PassInfo(name, _description(cls), _options(cls))


def pass_sources(plugin_passes: Mapping[str, Callable[[], type[ModulePass]]] = {}) -> dict[str, dict[str, Callable[[], type[ModulePass]]]]:
    """The passes by where they come from: "tsjit", "plugins", "xDSL"."""
    from importlib.metadata import entry_points

    from tsjit.transforms import PASSES

    plugins: dict[str, Callable[[], type[ModulePass]]] = {}
    xdsl: dict[str, Callable[[], type[ModulePass]]] = {}
    for entry in entry_points(group="xdsl.universe"):
        if entry.name == "tsjit":
            continue
        passes = entry.load().all_passes
        (xdsl if entry.name == XDSL_UNIVERSE else plugins).update(passes)
    plugins.update(plugin_passes)
    return {"tsjit": dict(PASSES), "plugins": plugins, "xDSL": xdsl}


def format_catalog(sources: Mapping[str, Mapping[str, Callable[[], type[ModulePass]]]], include_xdsl: bool) -> str:
    """The listing: a section per source, a pass per entry with its options below."""
    out: list[str] = []
    for source, passes in sources.items():
        if not passes or (source == "xDSL" and not include_xdsl):
            continue
        out.append(f"{source} passes:" if source != "plugins" else "plugin passes:")
        infos = [describe_pass(name, factory()) for name, factory in sorted(passes.items())]
        width = max(len(info.name) for info in infos) + 2
        for info in infos:
            out.append(_wrapped(f"  {info.name:<{width}}{info.description}", width + 2))
            for option in info.options:
                default = "required" if option.default is None else f"default {option.default}"
                line = f"      {option.name}: {option.type} ({default})"
                out.append(_wrapped(line + (f"  {option.doc}" if option.doc else ""), 8))
        out.append("")
    if not include_xdsl:
        out.append("`ts-opt --list-passes --all` also lists xDSL's own passes.")
    return "\n".join(out).rstrip() + "\n"


LINE_WIDTH = 100


def _wrapped(line: str, indent: int) -> str:
    if len(line) <= LINE_WIDTH:
        return line
    return textwrap.fill(line, LINE_WIDTH, subsequent_indent=" " * indent, break_on_hyphens=False)


def _description(cls: type[ModulePass]) -> str:
    doc = cls.__doc__ or ""
    if doc.startswith(f"{cls.__name__}("):  # the signature dataclasses fill in
        doc = ""
    text = _first_sentence(doc)
    if not text:
        module = inspect.getmodule(cls)
        text = _first_sentence(module.__doc__ or "" if module is not None else "")
        name = getattr(cls, "name", "")
        text = re.sub(rf"^{re.escape(name)}:\s*", "", text)
    if not text:
        return "(no description)"
    return text[:1].upper() + text[1:]


def _first_sentence(doc: str) -> str:
    """The first sentence of the first paragraph, on one line."""
    paragraph = inspect.cleandoc(doc).split("\n\n")[0]
    line = " ".join(part.strip() for part in paragraph.splitlines())
    m = re.match(r"(.+?[.!?])(?:\s|$)", line)
    sentence = m.group(1) if m else line
    return re.sub(r"\s*\(see the module doc\)", "", sentence).rstrip(".:")


def _options(cls: type[ModulePass]) -> tuple[PassOption, ...]:
    if not dataclasses.is_dataclass(cls):
        return ()
    docs = _field_docs(cls)
    options = []
    for field in dataclasses.fields(cls):
        if field.name.startswith("_") or not field.init:
            continue
        if field.default is not dataclasses.MISSING:
            default: str | None = _spelled(field.default)
        elif field.default_factory is not dataclasses.MISSING:
            default = _spelled(field.default_factory())
        else:
            default = None
        type_name = field.type if isinstance(field.type, str) else getattr(field.type, "__name__", str(field.type))
        options.append(PassOption(field.name, str(type_name), default, docs.get(field.name, "")))
    return tuple(options)


def _spelled(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    if value is None:
        return "none"
    return str(value)


def _field_docs(cls: type) -> dict[str, str]:
    """The string literal under each annotated field of the class body (attribute
    docstrings), first sentence."""
    docs: dict[str, str] = {}
    for klass in reversed(cls.__mro__):
        try:
            source = textwrap.dedent(inspect.getsource(klass))
            tree = ast.parse(source)
        except (OSError, TypeError, SyntaxError):
            continue
        body = tree.body[0].body if tree.body and isinstance(tree.body[0], ast.ClassDef) else []
        for statement, following in zip(body, body[1:]):
            if (
                isinstance(statement, ast.AnnAssign)
                and isinstance(statement.target, ast.Name)
                and isinstance(following, ast.Expr)
                and isinstance(following.value, ast.Constant)
                and isinstance(following.value.value, str)
            ):
                docs[statement.target.id] = _first_sentence(following.value.value)
    return docs
