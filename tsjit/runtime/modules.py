"""Module objects for module graphs, and the builtin methods of `torch.nn` modules.

A module graph takes its module as first input (`%self`) and reaches parameters and
submodules through `prim.GetAttr`. `module_object` builds that object tree from a
conformance case's module.json, whose dotted names (`fc.weight`) name the path from the
root; a submodule's class comes from the graphs' `prim.GetAttr` result types.

Methods of builtin classes (`Linear.forward`, `no_grad.__init__`) are tsjit's library
source (`tsjit.frontend.library`), compiled by the script frontend for the class on
first use (`tsjit.frontend.library_methods`): they run through the interpreter like user
code. The frontend is imported only then, so importing the runtime stays cheap.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from xdsl.dialects.builtin import ModuleOp

from tsjit.dialects.types import ClassType
from tsjit.runtime.values import ScriptObject, decode_value

if TYPE_CHECKING:
    from tsjit.runtime.interpreter import Code

GENERIC_MODULE_CLASS = "__torch__.torch.nn.modules.module.Module"
"""The class of a submodule no graph names (only dynamic method calls would see it)."""

TORCH_NAMESPACE = "__torch__.torch."
"""Where the classes of PyTorch's own sources live, the library's among them."""


def module_object(
    spec: Mapping[str, Any] | str | Path,
    program: ModuleOp | None = None,
    missing: list[str] | None = None,
    base: ScriptObject | None = None,
) -> ScriptObject:
    """The module object described by module.json (a mapping or a path): parameters,
    buffers and attributes at their dotted paths, submodules created along the way and
    wherever the graphs of `program` reach one (see `_complete`). With a `missing`
    list, what the object lacks that `program` reads is added to it (`missing_state`).
    The values are set into `base` (the object scripting the module's source made)
    when there is one."""
    if not isinstance(spec, Mapping):
        path = Path(spec)
        with path.open(encoding="utf-8") as file:
            spec = json.load(file)
        where = str(path)
    else:
        where = "module"
    submodule_classes = _submodule_classes(program) if program is not None else {}
    root = base if base is not None else ScriptObject(spec["type"])
    given: dict[int, set[str]] = {}  # per object: the tensors module.json gives it
    for section in ("parameters", "buffers", "attributes"):
        for dotted, encoded in spec.get(section, {}).items():
            owner = root
            *path, name = dotted.split(".")
            for step in path:
                child = owner.attributes.get(step)
                if child is None:
                    child_class = submodule_classes.get((owner.qualified_name, step), GENERIC_MODULE_CLASS)
                    child = owner.attributes[step] = ScriptObject(child_class)
                owner = child
            owner.attributes[name] = decode_value(encoded, f"{where}: {section}.{dotted}")
            if section != "attributes":
                given.setdefault(id(owner), set()).add(name)
    _complete(root, submodule_classes, frozenset())
    if missing is not None and program is not None:
        missing += missing_state(root, program, given)
    return root


def _complete(
    obj: ScriptObject, submodule_classes: Mapping[tuple[str, str], str], enclosing: frozenset[str]
) -> None:
    """Adds what module.json leaves out: submodules the graphs reach that hold nothing
    listed (`nn.ReLU()`), `training` (True, as `nn.Module` starts), and what objects of
    builtin classes lack: constants (scripting folded them into the methods PyTorch
    compiled) and parameters that are None."""
    obj.attributes.setdefault("training", True)
    if obj.qualified_name.startswith(TORCH_NAMESPACE):  # else no library class: no frontend import
        from tsjit.frontend.library_methods import attribute_defaults

        for name, value in attribute_defaults(obj.qualified_name).items():
            obj.attributes.setdefault(name, value)
    enclosing |= {obj.qualified_name}
    for (owner, name), child_class in submodule_classes.items():
        if owner == obj.qualified_name and name not in obj.attributes and child_class not in enclosing:
            obj.attributes[name] = ScriptObject(child_class)
    for child in obj.attributes.values():
        if isinstance(child, ScriptObject):
            _complete(child, submodule_classes, enclosing)


def missing_state(root: ScriptObject, program: ModuleOp, given: Mapping[int, set[str]]) -> list[str]:
    """What the module object lacks that the program reads, one line each: the dotted
    name of the attribute (as `named_parameters()` names it), its type and its class's
    qualified attribute name. The program's graphs name what each class reads; a
    builtin class's methods, what tsjit's library reads. A builtin layer's parameter
    may be None (`bias=False`), but not all of them: one given none of its tensors
    (`given`, by object) misses them all."""
    from tsjit.dialects.types import to_torchscript_str

    reads: dict[str, dict[str, str]] = {}  # class -> attribute -> type
    for op in _attribute_reads(program):
        owner = op.operands[0].type
        if isinstance(owner, ClassType):
            name = op.properties["name"].data  # pyright: ignore[reportAttributeAccessIssue]
            try:
                spelled = to_torchscript_str(op.results[0].type)
            except ValueError:
                spelled = str(op.results[0].type)
            reads.setdefault(owner.qualname.data, {})[name] = spelled
    missing: list[str] = []

    def visit(obj: ScriptObject, path: str, seen: frozenset[int]) -> None:
        wanted = dict(reads.get(obj.qualified_name, {}))
        if obj.qualified_name.startswith(TORCH_NAMESPACE):
            wanted.update({n: t for n, t in _library_reads(obj.qualified_name).items() if n not in wanted})
        stateless = obj.qualified_name.startswith(TORCH_NAMESPACE) and not given.get(id(obj))
        for name, spelled in wanted.items():
            value = obj.attributes.get(name, missing)
            if value is missing or (value is None and stateless and "Tensor" in spelled):
                missing.append(f"{path}{name} : {spelled.rstrip('?')}  ({obj.qualified_name}.{name})")
        for name, child in obj.attributes.items():
            if isinstance(child, ScriptObject) and id(child) not in seen:
                visit(child, f"{path}{name}.", seen | {id(child)})

    visit(root, "", frozenset({id(root)}))
    return missing


def _attribute_reads(program: ModuleOp) -> list[Any]:
    return [op for op in program.walk() if op.name == "prim.GetAttr"]


@functools.cache
def _library_reads(class_name: str) -> dict[str, str]:
    """The attributes a builtin class's `forward` reads, with their types."""
    from tsjit.dialects.types import to_torchscript_str
    from tsjit.frontend.library_methods import compile_method, unmangled

    compiled = compile_method(unmangled(class_name), "forward")
    if compiled is None:
        return {}
    reads: dict[str, str] = {}
    for op in _attribute_reads(compiled.module):
        owner = op.operands[0].type
        if isinstance(owner, ClassType) and unmangled(owner.qualname.data) == unmangled(class_name):
            reads[op.properties["name"].data] = to_torchscript_str(op.results[0].type)  # pyright: ignore
    return reads


def _submodule_classes(program: ModuleOp) -> dict[tuple[str, str], str]:
    """(owner class, attribute) -> class, from the `prim.GetAttr` ops of `program`."""
    classes: dict[tuple[str, str], str] = {}
    for op in program.walk():
        if op.name == "prim.GetAttr" and isinstance(result := op.results[0].type, ClassType):
            owner = op.operands[0].type
            assert isinstance(owner, ClassType)
            name = op.properties["name"].data  # pyright: ignore[reportAttributeAccessIssue]
            classes[(owner.qualname.data, name)] = result.qualname.data
    return classes


# --------------------------------------------------------------------------------------
# Builtin methods
# --------------------------------------------------------------------------------------


@functools.cache
def builtin_method(class_name: str, method: str) -> Code | None:
    """The builtin `class_name.method` compiled from the library, or None when the
    library has no such class or method. Mangled names share their class's code."""
    if not class_name.startswith(TORCH_NAMESPACE):
        return None
    from tsjit.frontend.library_methods import compile_method, unmangled
    from tsjit.runtime.interpreter import Program

    if (canonical := unmangled(class_name)) != class_name:
        return builtin_method(canonical, method)
    compiled = compile_method(class_name, method)
    return None if compiled is None else Program(compiled.module).function(compiled.symbol)
