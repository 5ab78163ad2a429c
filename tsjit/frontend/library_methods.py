"""Methods of tsjit's library classes compiled for a class named in a graph, not for an
instance: `prim::CallMethod[name="forward"](%fc, %x)` on a
`__torch__.torch.nn.modules.linear.Linear` that PyTorch printed, whose object was built
from module.json.

Scripting an instance folds the class's `__constants__` into the code. A class named in
a graph comes with no instance, so its *class view* reads every attribute, constants
included, from the object at run time, typed by the class annotations (PyTorch's own).
What a layer leaves unannotated is a parameter or buffer, which a layer built without
it (`bias=False`) holds as None: the view types it `Optional[Tensor]`.

module.json holds no constants, and no parameter or buffer that is None (it lists
`named_parameters()`): `attribute_defaults` gives what an object lacks, the defaults of
`__init__` for constants and None for the `Optional[Tensor]` attributes `forward` reads.

PyTorch mangles the names of classes whose instances differ in constants
(`linear.___torch_mangle_3.Linear`); the class view serves them all.
"""

from __future__ import annotations

import ast
import functools
import inspect
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute, SSAValue

from tsjit.dialects.types import OptionalType, TensorType, is_subtype_of
from tsjit.frontend.compilation import CompilationUnit
from tsjit.frontend.modules import ModuleInfo, value_type
from tsjit.frontend.resolver import Scope
from tsjit.frontend.source import SourceFile

if TYPE_CHECKING:
    from tsjit.frontend.emitter import FunctionEmitter
    from tsjit.frontend.sugared_values import SugaredValue

_MANGLE = re.compile(r"\.___torch_mangle_\d+(?=\.)")


def unmangled(qualified_name: str) -> str:
    """The class name without PyTorch's `___torch_mangle_N` part."""
    return _MANGLE.sub("", qualified_name)


def library_class(qualified_name: str) -> type | None:
    """The library class PyTorch's (possibly mangled) class name denotes, if any."""
    return library_classes().get(unmangled(qualified_name))


@functools.cache
def library_classes() -> Mapping[str, type]:
    """The library's classes by PyTorch's names (`__torch__.torch.nn.modules.linear.Linear`)."""
    from tsjit.frontend.library import grad_mode, modules

    return MappingProxyType({
        f"__torch__.{qualname}": getattr(library, name)
        for library in (modules, grad_mode)
        for name, qualname in library.TORCH_QUALNAMES.items()
    })  # fmt: skip


@dataclass(frozen=True)
class CompiledMethod:
    """A library method compiled for its class view."""

    module: ModuleOp  # the method and what it calls; shared, not to be modified
    symbol: str  # `<class>.<method>`
    optional_state: frozenset[str]  # the `Optional[Tensor]` attributes it reads


def compile_method(qualified_name: str, method: str) -> CompiledMethod | None:
    """`method` of the class view of a library class (compiled once per class and
    method); None when the library defines no such method. Containers (`Sequential`)
    and the layers holding submodules or functions (`modules.COMPOSITE`) have no class
    view: their code depends on what they hold. Scripting's cleanup passes
    are not run: here they would only pool constants, and importing them costs more
    than the whole compilation."""
    return _compile_method(unmangled(qualified_name), method)


def attribute_defaults(qualified_name: str) -> dict[str, object]:
    """What an object of a library class may lack, with the value it stands for: the
    constants `__init__` gives a default of their declared type (tuples as lists), and
    None for the `Optional[Tensor]` attributes (parameters, buffers) `forward` reads.
    Empty for other classes."""
    qualname = unmangled(qualified_name)
    forward = _compile_method(qualname, "forward")
    defaults: dict[str, object] = dict.fromkeys(forward.optional_state if forward is not None else ())
    for name, value in _constant_defaults(qualname).items():
        defaults[name] = list(value) if isinstance(value, tuple) else value
    return defaults


@dataclass
class _ClassView(ModuleInfo):
    """A library class seen without an instance: state read at run time. Only the bool
    constants are folded, to their `__init__` defaults (objects never carry constants, so
    they read the defaults anyway): code chooses on them at compile time
    (`F.max_pool2d(..., return_indices=self.return_indices)`)."""

    reads: set[str] = field(default_factory=set)  # the attributes its compiled code reads

    def attribute(self, em: FunctionEmitter, node: ast.AST, receiver: SSAValue, name: str) -> SugaredValue:
        folded = _constant_defaults(self.qualname).get(name)
        if isinstance(folded, bool):
            return self.unit.resolver.to_sugared(em, node, folded, name)
        if not self.has_attribute(name):  # unannotated: a parameter or buffer
            self.attributes[name] = OptionalType(TensorType())
        if name in self.attributes:
            self.reads.add(name)
        return super().attribute(em, node, receiver, name)


@functools.cache
def _compile_method(qualname: str, method: str) -> CompiledMethod | None:
    cls = library_class(qualname)
    if cls is None:
        return None
    from tsjit.frontend.library import modules

    if cls.__name__ in modules.COMPOSITE:
        return None
    unit = CompilationUnit()
    view = _ClassView(unit, None, cls, qualname, _declared_types(unit, cls))
    if view.is_container or not view.has_method(method):
        return None
    unit.registry.by_qualname[qualname] = view
    compiled = unit.compile_method(view, method, None)
    optional_state = {name for name in view.reads if view.attributes[name] == OptionalType(TensorType())}
    return CompiledMethod(unit.module, compiled.symbol, frozenset(optional_state))


def _declared_types(unit: CompilationUnit, cls: type) -> dict[str, Attribute]:
    """The attribute annotations of `cls` and its bases, read in their modules' scopes.
    Library annotations are all TorchScript types: one that is not is an error here."""
    declared: dict[str, Attribute] = {}
    for klass in reversed(cls.__mro__):
        annotations = vars(klass).get("__annotations__", {})
        if not annotations:
            continue
        scope = Scope(vars(sys.modules[klass.__module__]))
        parser = unit.type_parser(scope, SourceFile(f"<class {klass.__qualname__}>", ""))
        for name, annotation in annotations.items():
            declared[name] = parser.parse(ast.parse(annotation, mode="eval").body)
    return declared


@functools.cache
def _constant_defaults(qualname: str) -> Mapping[str, object]:
    cls = library_classes().get(qualname)
    if cls is None:
        return MappingProxyType({})
    declared = _declared_types(CompilationUnit(), cls)
    constants = {name for klass in cls.__mro__ for name in vars(klass).get("__constants__", ())}
    defaults: dict[str, object] = {}
    for name, parameter in inspect.signature(cls.__init__).parameters.items():
        value = parameter.default
        if name not in constants or value is inspect.Parameter.empty:
            continue
        t = value_type(list(value) if isinstance(value, tuple) else value)
        if t is not None and is_subtype_of(t, declared[name]):
            defaults[name] = value
    return MappingProxyType(defaults)
