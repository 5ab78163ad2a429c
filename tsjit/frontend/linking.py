"""Compiled programs inside other programs: a scripted or traced function called from
scripted code, a scripted or traced module used as a submodule of a scripted one.

Such an object already holds IR (its `ScriptFunction.unit`), so the compilation unit
of the caller does not compile its Python source again: it links the object's
functions in, as PyTorch's `torch.jit.script` keeps a traced submodule's methods.
The linked class types get names of their own in the caller's unit (mangled when the
caller already has a class of that name), so two `Linear` classes never share methods.

    unit.compile_function(traced_fn, ...)   -> link_function(unit, traced_fn)
    registry.info(traced_module)            -> link_module(unit, traced_module)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from xdsl.dialects import func
from xdsl.dialects.builtin import StringAttr, SymbolRefAttr
from xdsl.ir import Attribute
from xdsl.rewriter import Rewriter

from tsjit.dialects.types import ClassType, DictType, ListType, OptionalType, TupleType

if TYPE_CHECKING:
    from tsjit.frontend.compilation import CompilationUnit, CompiledFunction
    from tsjit.frontend.modules import ModuleInfo
    from tsjit.frontend.script import ScriptFunction, ScriptModule


def link_function(unit: CompilationUnit, function: ScriptFunction) -> CompiledFunction:
    """`function`'s graphs as functions of `unit` (once per unit); its compiled entry."""
    from tsjit.frontend.compilation import CompiledFunction

    known = unit.compiled.get(id(function))
    if known is not None:
        return known
    symbols = _link(unit, function, {})
    entry = function.entry
    linked = CompiledFunction(symbols[entry.symbol], _function(unit, symbols[entry.symbol]), entry.signature,
                              entry.return_type)  # fmt: skip
    unit.compiled[id(function)] = linked
    return linked


def link_module(unit: CompilationUnit, module: ScriptModule) -> ModuleInfo:
    """`module`'s class (and its submodules' classes) in `unit`, with their methods
    compiled already; the class info the caller's module refers to."""
    known = unit.registry.by_instance.get(id(module))
    if known is not None:
        return known
    infos = _class_infos(module.info)
    renames = {info.qualname: _free_name(unit, info.qualname) for info in infos}
    entry_symbol = f"{renames[module.info.qualname]}.{module.entry.symbol}"
    symbols = _link(unit, module, renames, {module.entry.symbol: entry_symbol})
    from tsjit.frontend.compilation import CompiledFunction
    from tsjit.frontend.modules import ModuleInfo

    copies: dict[int, ModuleInfo] = {}
    for info in infos:
        copy = ModuleInfo(unit, info.instance, info.python_class, renames[info.qualname], dict(info.attributes),
                          dict(info.constants))  # fmt: skip
        copies[id(info)] = copy
        unit.registry.by_qualname[copy.qualname] = copy
        unit.registry.signatures[(_base(info.qualname), "linked", copy.qualname)] = copy.qualname
    for info in infos:
        copy = copies[id(info)]
        copy.submodules = {name: copies[id(child)] for name, child in info.submodules.items()}
        copy.children = list(info.children)
    for op in list(unit.module.ops):
        if not isinstance(op, func.FuncOp):
            continue
        symbol = op.sym_name.data
        for info in infos:
            prefix = renames[info.qualname] + "."
            if symbol.startswith(prefix) and symbol in symbols.values():
                method = symbol[len(prefix):]
                signature = module.entry.signature if symbol == entry_symbol else None
                outputs = list(op.function_type.outputs.data)
                compiled = CompiledFunction(symbol, op, signature or _signature_of(op, method), outputs[0])
                unit.compiled[(prefix[:-1], method)] = compiled
    root = copies[id(module.info)]
    unit.registry.by_instance[id(module)] = root
    return root


def _class_infos(info: ModuleInfo) -> list[ModuleInfo]:
    found = [info]
    for child in info.submodules.values():
        found += [c for c in _class_infos(child) if all(c is not f for f in found)]
    return found


def _free_name(unit: CompilationUnit, qualname: str) -> str:
    registry = unit.registry
    base = _base(qualname)
    taken = set(registry.by_qualname) | {s[0] for s in registry.signatures}
    if qualname not in taken and base not in taken:
        return qualname
    package, _, leaf = base.rpartition(".")
    while True:
        candidate = f"{package}.___torch_mangle_{registry.mangle_count}.{leaf}"
        registry.mangle_count += 1
        if candidate not in taken:
            return candidate


def _base(qualname: str) -> str:
    parts = [p for p in qualname.split(".") if not p.startswith("___torch_mangle_")]
    return ".".join(parts)


def _link(unit: CompilationUnit, program: ScriptFunction, classes: dict[str, str],
          symbols: dict[str, str] | None = None) -> dict[str, str]:  # fmt: skip
    """Copies `program`'s functions into `unit`: class types renamed by `classes`,
    function symbols renamed to be free in `unit`; returns old symbol -> new symbol."""
    symbols = dict(symbols or {})
    taken = {op.sym_name.data for op in unit.module.ops if isinstance(op, func.FuncOp)}
    executable = getattr(program, "executable_module", None)  # a traced program runs shape-free
    module = executable() if executable is not None else program.module
    functions = [op for op in module.ops if isinstance(op, func.FuncOp)]
    for op in functions:
        name = op.sym_name.data
        if name in symbols:
            continue
        for old, new in classes.items():
            if name.startswith(old + "."):
                name = new + name[len(old):]
                break
        candidate, n = name, 0
        while candidate in taken:
            n += 1
            candidate = f"{name}.{n}"
        symbols[op.sym_name.data] = candidate
        taken.add(candidate)
    for op in functions:
        copied = op.clone()
        copied.sym_name = StringAttr(symbols[op.sym_name.data])
        _rename(copied, symbols, classes)
        unit.module.body.block.add_op(copied)
    return symbols


def _rename(function: func.FuncOp, symbols: dict[str, str], classes: dict[str, str]) -> None:
    for op in function.walk():
        if isinstance(op, func.CallOp) and op.callee.root_reference.data in symbols:
            op.callee = SymbolRefAttr(symbols[op.callee.root_reference.data])
        for result in list(op.results):
            renamed = _renamed_type(result.type, classes)
            if renamed != result.type:
                Rewriter.replace_value_with_new_type(result, renamed)
        for region in op.regions:
            for block in region.blocks:
                for arg in list(block.args):
                    renamed = _renamed_type(arg.type, classes)
                    if renamed != arg.type:
                        Rewriter.replace_value_with_new_type(arg, renamed)
    function.function_type = func.FunctionType.from_lists(
        [_renamed_type(t, classes) for t in function.function_type.inputs.data],
        [_renamed_type(t, classes) for t in function.function_type.outputs.data],
    )


def _renamed_type(t: Attribute, classes: dict[str, str]) -> Attribute:
    if not classes:
        return t
    if isinstance(t, ClassType):
        return ClassType(classes.get(t.qualname.data, t.qualname.data))
    if isinstance(t, TupleType):
        names = [n.data for n in t.names]
        qualname = t.qualname.data if isinstance(t.qualname, StringAttr) else None
        return TupleType([_renamed_type(e, classes) for e in t.types], names, qualname)  # pyright: ignore[reportArgumentType]
    if isinstance(t, ListType):
        return ListType(_renamed_type(t.element_type, classes))  # pyright: ignore[reportArgumentType]
    if isinstance(t, OptionalType):
        return OptionalType(_renamed_type(t.element_type, classes))  # pyright: ignore[reportArgumentType]
    if isinstance(t, DictType):
        return DictType(_renamed_type(t.key_type, classes), _renamed_type(t.value_type, classes))  # pyright: ignore[reportArgumentType]
    return t


def _function(unit: CompilationUnit, symbol: str) -> func.FuncOp:
    return next(op for op in unit.module.ops if isinstance(op, func.FuncOp) and op.sym_name.data == symbol)


def _signature_of(op: func.FuncOp, name: str) -> Any:
    from tsjit.dialects.types import TensorType
    from tsjit.frontend.schema_matching import Param, Signature

    inputs = op.function_type.inputs.data[1:]
    params = tuple(Param(a.name_hint or f"input_{i}", t) for i, (a, t) in enumerate(zip(op.body.block.args[1:], inputs)))
    outputs = tuple(op.function_type.outputs.data) or (TensorType(),)
    return Signature(name, params, outputs)
