"""A compilation unit: the functions and methods one `tsjit.script` call compiles.

It compiles the entry and, on demand, everything it calls: script functions
(`func.call`), module methods (`prim.CallMethod`), the TorchScript source of
`torch.nn.functional` and of the `torch.nn` layers tsjit ships, and the TorchScript-source
builtins (inlined). Each function goes through the emitter, then `finish`: SSA
conversion, the exit transform and loop canonicalization.
"""

from __future__ import annotations

import ast
import functools
import inspect
import os
import types
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute, SSAValue
from xdsl.passes import ModulePass

from tsjit.collector import collector_paused
from tsjit.diagnostics import SourceLocation, TsjitError
from tsjit.dialects.types import TensorType, TupleType
from tsjit.frontend.annotations import Annotation, TypeParser, type_str
from tsjit.frontend.direct_calls import DirectCall, Shape
from tsjit.frontend.modules import ModuleInfo, ModuleRegistry
from tsjit.frontend.resolver import Resolver, Scope
from tsjit.frontend.schema_matching import NO_DEFAULT, Choice, Param, Signature, operator_signatures
from tsjit.frontend.source import SourceFile, source_of_file
from tsjit.frontend.sugared_values import NamedTupleConstructor
from tsjit.nesting import check_source_nesting, deeply, needs_deep_stack


@dataclass
class FunctionSignature:
    params: list[Param]
    return_type: Attribute | None  # None: inferred from the returns


@dataclass
class FunctionSpec:
    """A def to compile and how: its symbol, source, scope and receiver."""

    symbol: str
    source: SourceFile
    definition: ast.FunctionDef
    scope: Scope
    signature: FunctionSignature
    param_nodes: list[ast.AST]
    self_info: Any = None  # ModuleInfo or ClassInfo of a method's receiver
    self_name: str = "self"
    is_entry: bool = False
    bindings: dict[str, Any] = field(default_factory=dict)  # names bound to sugared values (`cls`)


@dataclass
class MethodDefinition:
    """Where a method's def is: its source, the def, the scope its names resolve in and
    the Python function it came from (None for printed source)."""

    source: SourceFile
    definition: ast.FunctionDef
    scope: Scope
    function: types.FunctionType | None = None


@dataclass
class CompiledFunction:
    symbol: str
    op: func.FuncOp
    signature: Signature  # what callers match (the receiver excluded)
    return_type: Attribute
    is_entry: bool = False


CLEANUP_PIPELINE = ("lower-tuples", "dead-code-elimination", "constant-pooling")
"""What PyTorch runs on a freshly scripted graph (`runCleanupPasses`: tuple lowering,
then constant propagation limited to immutable values, which ends in dead-code
elimination, then constant pooling). Folding is left to the optimizer: only what
scripting itself leaves behind is cleaned."""


class CompilationUnit:
    """Everything compiled for one `script` call: one `builtin.module`."""

    def __init__(self) -> None:
        self.module = ModuleOp([])
        self.resolver = Resolver(self)
        self.registry = ModuleRegistry(self)
        self.compiled: dict[object, CompiledFunction] = {}
        self.in_progress: set[object] = set()
        self.sources: dict[str, SourceFile] = {}
        self.builtins: dict[int, Any] = {}
        self.builtin_candidates: dict[tuple[str, str | None], tuple[tuple[Signature, ...], list[Any], list[Signature]]] = {}
        self.named_tuples: dict[type, TupleType] = {}
        self.classes: dict[type, Any] = {}  # Python class -> ClassInfo, EnumInfo or InterfaceInfo
        self.enums: dict[str, Any] = {}  # qualified name -> EnumInfo
        self.interfaces: dict[str, Any] = {}  # qualified name -> InterfaceInfo
        self.functions: dict[str, object] = {}  # qualified name -> function of serialized code
        self.implementations: set[tuple[str, str]] = set()  # (interface, class) pairs checked
        self.overload_choices: dict[tuple[object, ...], Choice] = {}  # see match_signatures
        self.direct_calls: dict[Shape, DirectCall] = {}  # see direct_calls
        self.deepest = 0
        """The deepest nesting of the functions compiled (`tsjit.nesting`)."""

    # -- sources ---------------------------------------------------------------------------
    def register_source(self, source: SourceFile) -> None:
        self.sources[source.filename] = source

    def definition_of(
        self, function: types.FunctionType, node: ast.AST | None
    ) -> tuple[SourceFile, ast.FunctionDef]:
        """The def of a Python function: from a file the unit read, else its source file."""
        code = function.__code__
        source = self.sources.get(code.co_filename)
        if source is None:
            path = code.co_filename
            if not os.path.isfile(path):
                raise TsjitError(f"cannot find the source of '{function.__qualname__}': TorchScript needs the source code",
                                 None if node is None else SourceLocation(path, 0))  # fmt: skip
            source = source_of_file(path, _display_name(function, path))
            self.sources[code.co_filename] = source
        candidate = source.function_defs.get((function.__name__, code.co_firstlineno))
        if candidate is not None:
            if isinstance(candidate, ast.AsyncFunctionDef):
                raise source.error(candidate, "async functions are not supported in TorchScript")
            return source, candidate
        raise TsjitError(f"cannot find the definition of '{function.__qualname__}' in {source.filename}")

    def type_parser(self, scope: Scope, source: SourceFile) -> TypeParser:
        return TypeParser(
            lambda expr: self.resolver.lookup_python(scope, expr),
            source.error,
            self.named_tuple_type,
            self.class_type_of,
            self.qualified_type,
        )

    # -- signatures --------------------------------------------------------------------------
    def parse_signature(self, source: SourceFile, definition: ast.FunctionDef, scope: Scope,
                        function: types.FunctionType | None, is_method: bool) -> tuple[FunctionSignature, list[ast.AST]]:  # fmt: skip
        """The signature from the definition's annotations (read on a deep stack when
        they nest deeply: the body's check comes later)."""
        parts = [part for part in (definition.args, definition.returns) if part is not None]
        depth = max(check_source_nesting(part, source.filename, source.line_offset) for part in parts)
        if needs_deep_stack(depth):
            return deeply(self._parse_signature, source, definition, scope, function, is_method)
        return self._parse_signature(source, definition, scope, function, is_method)

    def _parse_signature(self, source: SourceFile, definition: ast.FunctionDef, scope: Scope,
                         function: types.FunctionType | None, is_method: bool) -> tuple[FunctionSignature, list[ast.AST]]:  # fmt: skip
        arguments = definition.args
        if arguments.vararg is not None or arguments.kwarg is not None:
            node = arguments.vararg or arguments.kwarg
            raise source.error(node, "Compiled functions can't take variable number of arguments or use keyword-only "
                                     "arguments with defaults")  # fmt: skip
        nodes: list[ast.arg] = [*arguments.posonlyargs, *arguments.args]
        keyword_only = list(arguments.kwonlyargs)
        if is_method:
            if not nodes:
                raise source.error(definition, "methods must have a self argument")
            nodes = nodes[1:]
        parser = self.type_parser(scope, source)
        comment_types: list[ast.expr] | None = None
        comment_return: ast.expr | None = None
        if definition.type_comment:
            try:
                parsed = ast.parse(definition.type_comment, mode="func_type")
            except SyntaxError:
                raise source.error(definition, f"invalid type comment '{definition.type_comment}'") from None
            comment_types = [ast.copy_location(t, definition) for t in parsed.argtypes]
            comment_return = ast.copy_location(parsed.returns, definition)
            if len(comment_types) != len(nodes):
                raise source.error(definition, f"Number of type annotations for function parameters ({len(comment_types)}) "
                                               f"does not match the number of parameters on the function ({len(nodes)})!")  # fmt: skip
        defaults = _defaults(source, definition, function, is_method)
        params: list[Param] = []
        for i, node in enumerate([*nodes, *keyword_only]):
            annotation_node = node.annotation
            if annotation_node is None and comment_types is not None and i < len(comment_types):
                annotation_node = comment_types[i]
            annotation = (
                parser.parse_annotation(annotation_node)
                if annotation_node is not None
                else Annotation(TensorType())
            )
            default = defaults.get(node.arg, NO_DEFAULT)
            if default is not NO_DEFAULT:
                default = _convert_default(source, node, default, annotation)
            params.append(Param(node.arg, annotation.type, default, i >= len(nodes), annotation.broadcast))
        return_node = definition.returns if definition.returns is not None else comment_return
        return_type = parser.parse(return_node) if return_node is not None else None
        return FunctionSignature(params, return_type), list(nodes) + list(keyword_only)

    # -- compiling ---------------------------------------------------------------------------
    def compile_function(
        self, function: object, name: str, node: ast.AST | None, caller: Any = None
    ) -> CompiledFunction:
        from tsjit.frontend.script import ScriptFunction

        if isinstance(function, ScriptFunction):  # compiled already (scripted or traced): linked in
            from tsjit.frontend.linking import link_function

            return link_function(self, function)
        if not isinstance(function, types.FunctionType):
            raise TsjitError(f"'{name}' is not a Python function")
        key = function
        if key in self.compiled:
            return self.compiled[key]
        source, definition = self.definition_of(function, node)
        scope = Scope.of_function(function)
        signature, nodes = self.parse_signature(source, definition, scope, function, is_method=False)
        spec = FunctionSpec(self.unique_symbol(name), source, definition, scope, signature, nodes)
        return self.compile_spec(key, spec, node, caller)

    def overload_signature(self, declaration: types.FunctionType, node: ast.AST | None) -> Signature:
        """The signature one `_overload` declaration gives its implementation."""
        source, definition = self.definition_of(declaration, node)
        signature, _ = self.parse_signature(
            source, definition, Scope.of_function(declaration), declaration, False
        )
        return Signature(definition.name, tuple(signature.params), ())

    def compile_overload(self, declaration: types.FunctionType, implementation: types.FunctionType, name: str,
                         node: ast.AST | None, caller: Any = None) -> CompiledFunction:  # fmt: skip
        """`implementation`'s body compiled with the signature `declaration` declares."""
        key = (implementation, declaration)
        if key in self.compiled:
            return self.compiled[key]
        declared_source, declared = self.definition_of(declaration, node)
        signature, _ = self.parse_signature(declared_source, declared, Scope.of_function(declaration),
                                            declaration, is_method=False)  # fmt: skip
        source, definition = self.definition_of(implementation, node)
        arguments = definition.args
        nodes: list[ast.AST] = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
        names = [p.name for p in signature.params]
        if [n.arg for n in nodes] != names:  # pyright: ignore[reportAttributeAccessIssue]
            raise source.error(definition, f"the parameters of overloaded function '{definition.name}' differ from "
                                           f"those of its declaration ({', '.join(names)})")  # fmt: skip
        spec = FunctionSpec(self.unique_symbol(name), source, definition, Scope.of_function(implementation),
                            signature, nodes)  # fmt: skip
        return self.compile_spec(key, spec, node, caller)

    def compile_method(self, info: ModuleInfo, name: str, node: ast.AST | None, caller: Any = None,
                       entry: bool = False) -> CompiledFunction:  # fmt: skip
        key = (info.qualname, name)
        if key in self.compiled:
            return self.compiled[key]
        definition = info.method_definition(name)
        if definition is None:
            raise TsjitError(f"module '{info.python_name}' has no method '{name}'")
        return self.compile_method_definition(info, name, definition, node, caller, entry)

    def compile_method_function(self, info: ModuleInfo, name: str, function: types.FunctionType,
                                node: ast.AST | None = None, caller: Any = None, entry: bool = True) -> CompiledFunction:  # fmt: skip
        """Compiles `function` as method `name` of `info`'s class."""
        source, definition = self.definition_of(function, node)
        method = MethodDefinition(source, definition, Scope.of_function(function), function)
        return self.compile_method_definition(info, name, method, node, caller, entry)

    def compile_method_definition(self, info: ModuleInfo, name: str, method: MethodDefinition,
                                  node: ast.AST | None = None, caller: Any = None, entry: bool = True) -> CompiledFunction:  # fmt: skip
        """Compiles a def (of a Python class, or of printed source) as method `name` of
        `info`'s class: the entry's symbol is `name`, other methods' `<class>.<name>`."""
        key = (info.qualname, name)
        source, definition, scope = method.source, method.definition, method.scope
        signature, nodes = self.parse_signature(source, definition, scope, method.function, is_method=True)
        self_name = definition.args.args[0].arg if definition.args.args else "self"
        symbol = name if entry else f"{info.qualname}.{name}"
        spec = FunctionSpec(symbol, source, definition, scope, signature, nodes, info, self_name, entry)
        return self.compile_spec(key, spec, node, caller)

    def compile_class_method(self, info: Any, name: str, node: ast.AST | None = None,
                             caller: Any = None) -> CompiledFunction:  # fmt: skip
        """A `@classmethod` as a function whose first parameter is the class itself."""
        from tsjit.frontend.classes import ClassValue

        key = (info.qualname, name, "classmethod")
        if key in self.compiled:
            return self.compiled[key]
        function = info.member(name).__func__
        source, definition = self.definition_of(function, node)
        scope = Scope.of_function(function)
        signature, nodes = self.parse_signature(source, definition, scope, function, is_method=True)
        cls_name = definition.args.args[0].arg
        spec = FunctionSpec(f"{info.qualname}.{name}", source, definition, scope, signature, nodes,
                            bindings={cls_name: ClassValue(info)})  # fmt: skip
        return self.compile_spec(key, spec, node, caller)

    def method_signature(self, info: Any, name: str) -> FunctionSignature:
        """A method's parameters and declared return type, without compiling it (the
        compiled return type when it declares none)."""
        compiled = self.compiled.get((info.qualname, name))
        found = info.method_definition(name)
        signature, _ = self.parse_signature(found.source, found.definition, found.scope, found.function, is_method=True)
        if signature.return_type is None and compiled is not None:
            return FunctionSignature(signature.params, compiled.return_type)
        if signature.return_type is None:
            return FunctionSignature(signature.params, self.compile_method(info, name).return_type)
        return signature

    def compile_definition(self, key: object, symbol: str, source: SourceFile, definition: ast.FunctionDef,
                           scope: Scope, node: ast.AST | None = None, caller: Any = None) -> CompiledFunction:  # fmt: skip
        """Compiles a function given by its def alone (printed source: no Python function
        object, defaults read from the def's literals) under `symbol`, once per `key`."""
        known = self.compiled.get(key)
        if known is not None:
            return known
        signature, nodes = self.parse_signature(source, definition, scope, None, is_method=False)
        spec = FunctionSpec(symbol, source, definition, scope, signature, nodes)
        return self.compile_spec(key, spec, node, caller)

    def compile_spec(
        self, key: object, spec: FunctionSpec, node: ast.AST | None, caller: Any
    ) -> CompiledFunction:
        from tsjit.frontend.emitter import FunctionEmitter

        if key in self.in_progress:
            message = (
                f"recursive calls are not supported in TorchScript ('{spec.definition.name}' calls itself)"
            )
            if caller is not None:
                raise caller.error(node, message)
            raise spec.source.error(spec.definition, message)
        self.in_progress.add(key)
        try:
            emitter = FunctionEmitter(self, spec)
            depth = spec.source.nesting_depth(spec.definition)
            self.deepest = max(self.deepest, depth)
            with collector_paused():
                function = deeply(_emitted, emitter) if needs_deep_stack(depth) else _emitted(emitter)
        finally:
            self.in_progress.discard(key)
        self.module.body.block.add_op(function)
        text = f"{spec.symbol}({', '.join(f'{type_str(p.type)} {p.name}' for p in spec.signature.params)}) -> {type_str(emitter.return_type)}"
        signature = Signature(
            spec.definition.name, tuple(spec.signature.params), (emitter.return_type,), text=text
        )
        compiled = CompiledFunction(spec.symbol, function, signature, emitter.return_type, spec.is_entry)
        self.compiled[key] = compiled
        if self.interfaces:
            self.compile_implementations(function)
        return compiled

    def compile_implementations(self, function: func.FuncOp) -> None:
        """The methods of every known class that implements an interface `function`
        uses: calls through the interface reach them at run time only, so they are
        compiled now (an object of a class may flow into an interface anywhere)."""
        from tsjit.frontend.classes import interfaces_used

        for interface in interfaces_used(self, function):
            for info in list(self.registry.by_qualname.values()):
                pair = (interface.qualname, info.qualname)
                if pair in self.implementations or not all(info.has_method(m) for m in interface.methods):
                    continue
                self.implementations.add(pair)
                if interface.mismatch(self, info) is None:
                    for name in interface.methods:
                        if (info.qualname, name) not in self.in_progress:
                            self.compile_method(info, name, None)

    def unique_symbol(self, name: str) -> str:
        taken = {c.symbol for c in self.compiled.values()}
        symbol, n = name, 0
        while symbol in taken:
            n += 1
            symbol = f"{name}.{n}"
        return symbol

    # -- TorchScript-source builtins (inlined where called) ------------------------------------
    def builtin_overloads(
        self, operator: str, overload: str | None
    ) -> tuple[tuple[Signature, ...], list[Any], list[Signature]]:
        """A builtin's schema overloads (only `overload` when given), its TorchScript-source
        overloads, and the signatures of both in that order: made once per operator."""
        key = (operator, overload)
        known = self.builtin_candidates.get(key)
        if known is None:
            from tsjit.frontend.library.builtin_functions import builtin_functions_for

            operators = operator_signatures(operator, overload)
            sources = builtin_functions_for(self, operator) if overload is None else []
            known = self.builtin_candidates[key] = (operators, sources, [*operators, *(s.signature for s in sources)])
        return known

    def builtin_source(self, operator: str, index: int, node: ast.FunctionDef) -> Any:
        from tsjit.frontend.library.builtin_functions import SOURCE, BuiltinSource

        cached = self.builtins.get(index)
        if cached is None:
            scope = _builtin_scope()
            signature, nodes = self.parse_signature(SOURCE, node, scope, None, is_method=False)
            cached = BuiltinSource(operator, node, index, Signature(operator, tuple(signature.params), ()))
            cached.spec = FunctionSpec(f"{operator}.{index}", SOURCE, node, scope, signature, nodes)  # pyright: ignore[reportAttributeAccessIssue]
            self.builtins[index] = cached
        return cached

    def inline(self, em: Any, builtin: Any, inputs: Sequence[SSAValue]) -> SSAValue:
        """Inlines a TorchScript-source builtin at the emitter's insertion point."""
        from tsjit.frontend.emitter import FunctionEmitter

        body = getattr(builtin, "body", None)
        if body is None:
            emitter = FunctionEmitter(self, builtin.spec)
            function = emitter.emit()
            finish(function)
            body = builtin.body = function
        block = body.body.block
        mapping: dict[SSAValue, SSAValue] = dict(zip(block.args, inputs))
        result = None
        for op in block.ops:
            if isinstance(op, func.ReturnOp):
                result = mapping.get(op.operands[0], op.operands[0])
                break
            em.insert(op.clone(value_mapper=mapping))
        assert result is not None
        return result

    # -- classes -------------------------------------------------------------------------------
    def named_tuple_type(self, cls: type) -> TupleType:
        known = self.named_tuples.get(cls)
        if known is not None:
            return known
        annotations = getattr(cls, "__annotations__", {})
        scope = Scope(vars(inspect.getmodule(cls)) if inspect.getmodule(cls) else {})
        parser_source = SourceFile(f"<NamedTuple {cls.__qualname__}>", "")
        parser = self.type_parser(scope, parser_source)
        types_: list[Attribute] = []
        for field_name in cls._fields:  # pyright: ignore[reportAttributeAccessIssue]
            annotation = annotations.get(field_name)
            annotation = getattr(annotation, "__forward_arg__", annotation)  # typing.ForwardRef("float")
            if annotation is None:
                types_.append(TensorType())
            elif isinstance(annotation, str):
                types_.append(parser.parse(ast.parse(annotation, mode="eval").body))
            else:
                types_.append(_python_annotation(parser, annotation))
        qualname = f"__torch__.{cls.__module__}.{cls.__qualname__}"
        result = TupleType(types_, list(cls._fields), qualname)  # pyright: ignore[reportAttributeAccessIssue, reportArgumentType]
        self.named_tuples[cls] = result
        return result

    def named_tuple_constructor(self, cls: type) -> NamedTupleConstructor:
        tuple_type = self.named_tuple_type(cls)
        defaults = getattr(cls, "_field_defaults", {})
        params = tuple(
            Param(n.data, t, defaults.get(n.data, NO_DEFAULT))
            for n, t in zip(tuple_type.names, tuple_type.types)
        )
        return NamedTupleConstructor(tuple_type, Signature(cls.__qualname__, params, (tuple_type,)))

    # -- TorchScript classes, enums and interfaces --------------------------------------
    def class_info(self, cls: type, qualname: str | None = None) -> Any:
        """The TorchScript class, enum or interface of a Python class (registered on
        first use, under `qualname` or PyTorch's name for it)."""
        import enum

        from tsjit.frontend import classes

        known = self.classes.get(cls)
        if known is not None:
            return known
        name = qualname or classes.qualified_name(cls)
        if issubclass(cls, enum.Enum):
            try:
                info: Any = classes.enum_info(cls, name)
            except TsjitError as error:
                raise TsjitError(f"enum {cls.__qualname__}: {error.message}") from None
            self.declare_enum(info)
        elif classes.is_interface(cls):
            info = classes.InterfaceInfo(self, cls, name, classes.is_module_interface(cls))
            self.interfaces[name] = info
            self.classes[cls] = info
            info.methods = classes.interface_methods(self, cls, name)
        else:
            info = classes.ClassInfo(self, cls, name)
            for attribute, (t, is_final) in _class_level_annotations(self, cls).items():
                if is_final and attribute in vars(cls):
                    info.constants[attribute] = vars(cls)[attribute]
                else:
                    info.attributes[attribute] = t
            self.registry.by_qualname[name] = info
        self.classes[cls] = info
        return info

    def declare_enum(self, info: Any) -> None:
        """Registers an Enum class under its qualified name and declares it in the
        module (`prim.Enum`), where the runtime finds its members' values."""
        self.enums[info.qualname] = info
        self.module.body.block.add_op(info.declaration())

    def define_class(self, cls: type, qualname: str) -> Any:
        """Registers a class of serialized code (`code/__torch__/m.py` defines `class
        Pair:` as `__torch__.m.Pair`, maybe `__torch__.m.___torch_mangle_3.Pair`), so
        annotations and `__torch__.m.Pair` in code resolve to it; its objects are
        objects of that class at run time too."""
        cls._jit_override_qualname = qualname  # pyright: ignore[reportAttributeAccessIssue]
        return self.class_info(cls, qualname)

    def define_function(self, function: object, qualname: str) -> None:
        """Registers a function of serialized code under its qualified name, which code
        calls it by (`__torch__.m.helper(x)`)."""
        self.functions[qualname] = function

    def class_type_of(self, cls: object) -> Attribute | None:
        """The type a class in an annotation denotes: a user class, an Enum or an
        interface (None for other Python objects)."""
        from tsjit.frontend.classes import is_script_class

        if not isinstance(cls, type) or not is_script_class(cls):
            return None
        info = self.class_info(cls)
        return _type_of_info(info)

    def object_type(self, value: object) -> Attribute | None:
        """The type of a Python object of a TorchScript class or Enum (a module
        attribute holding one), or None."""
        import enum

        cls = type(value)
        if isinstance(value, enum.Enum) or (hasattr(value, "__dict__") and self.class_type_of(cls) is not None):
            return self.class_type_of(cls)
        return None

    def python_annotation_type(self, annotation: object, owner: type) -> Attribute:
        """A typing object (`List[str]`, as `torch.jit.Attribute` takes) as a type,
        names resolved in the module defining `owner`."""
        module = inspect.getmodule(owner)
        scope = Scope(vars(module) if module else {})
        parser = self.type_parser(scope, SourceFile(f"<annotation of {owner.__qualname__}>", ""))
        return _python_annotation(parser, annotation)

    def qualified_type(self, name: str) -> Attribute | None:
        """`__torch__.m.Pair` in an annotation of serialized code."""
        info = self.registry.by_qualname.get(name) or self.enums.get(name) or self.interfaces.get(name)
        return None if info is None else _type_of_info(info)

    def enum_for(self, t: Attribute) -> Any:
        qualname = getattr(getattr(t, "qualname", None), "data", None)
        return self.enums.get(qualname) if qualname else None

    def interface_for(self, t: Attribute) -> Any:
        qualname = getattr(getattr(t, "qualname", None), "data", None)
        return self.interfaces.get(qualname) if qualname else None

    def class_value(self, info: Any) -> Any:
        """What a class denotes in code: an Enum's members, or the class (constructing
        it, its static and class methods, `C.__new__(C)`)."""
        from tsjit.frontend.classes import ClassValue, EnumClassValue, EnumInfo

        return EnumClassValue(info) if isinstance(info, EnumInfo) else ClassValue(info)

    def compile_interface_methods(self, info: Any, interface: Any, node: ast.AST | None = None,
                                  caller: Any = None) -> None:  # fmt: skip
        """The methods of `info`'s class that calls through `interface` may reach."""
        for name in interface.methods:
            self.compile_method(info, name, node, caller)

    def context_manager(self, name: str) -> ModuleInfo:
        """The class of `torch.no_grad` (`name`) and friends, from tsjit's source."""
        from tsjit.dialects.types import BoolType
        from tsjit.frontend.library import grad_mode

        qualname = "__torch__." + grad_mode.TORCH_QUALNAMES[name]
        info = self.registry.by_qualname.get(qualname)
        if info is None:
            info = ModuleInfo(self, None, getattr(grad_mode, name), qualname, {"prev": BoolType()})
            self.registry.by_qualname[qualname] = info
        return info

    def class_reference(self, em: Any, node: ast.AST, qualname: str) -> Any:
        """`__torch__.a.b.C` in printed code: a class or function this unit knows, or a
        namespace on the way to one."""
        from tsjit.frontend.library import grad_mode
        from tsjit.frontend.sugared_values import FunctionValue, PythonModuleValue

        for name, torch_name in grad_mode.TORCH_QUALNAMES.items():
            if qualname == f"__torch__.{torch_name}":
                self.context_manager(name)
        info = self.registry.by_qualname.get(qualname) or self.enums.get(qualname) or self.interfaces.get(qualname)
        if info is not None:
            return self.class_value(info)
        if qualname in self.functions:
            return FunctionValue(self.functions[qualname], qualname)
        known = [*self.registry.by_qualname, *self.enums, *self.interfaces, *self.functions,
                 *(f"__torch__.{n}" for n in grad_mode.TORCH_QUALNAMES.values())]  # fmt: skip
        if any(k.startswith(qualname + ".") for k in known):
            return PythonModuleValue(qualname)
        raise em.error(node, f"unknown class {qualname}")

    def module_info_for(self, t: Attribute) -> Any:
        """The module, class or interface info of an object type."""
        from tsjit.dialects.types import InterfaceType

        qualname = getattr(getattr(t, "qualname", None), "data", None)
        if not qualname:
            return None
        if isinstance(t, InterfaceType):
            return self.interfaces.get(qualname)
        return self.registry.by_qualname.get(qualname)


def _type_of_info(info: Any) -> Attribute:
    from tsjit.frontend.classes import ClassInfo, EnumInfo, InterfaceInfo

    if isinstance(info, EnumInfo):
        return info.enum_type
    if isinstance(info, InterfaceInfo):
        return info.interface_type
    assert isinstance(info, (ClassInfo, ModuleInfo))
    return info.class_type


def _class_level_annotations(unit: CompilationUnit, cls: type) -> dict[str, tuple[Attribute, bool]]:
    """Attribute types a class declares in its body (`a : int`, as serialized code
    declares every attribute), and whether each is `Final`."""
    annotations = vars(cls).get("__annotations__", {})
    if not annotations:
        return {}
    functions = [f for f in vars(cls).values() if inspect.isfunction(f)]
    module = inspect.getmodule(cls)
    scope = Scope(functions[0].__globals__ if functions else (vars(module) if module else {}))
    parser = unit.type_parser(scope, SourceFile(f"<class {cls.__qualname__}>", ""))
    declared: dict[str, tuple[Attribute, bool]] = {}
    for name, annotation in annotations.items():
        text = annotation if isinstance(annotation, str) else getattr(annotation, "__forward_arg__", None)
        if text is None:
            declared[name] = (_python_annotation(parser, annotation), "Final" in repr(annotation))
        else:
            declared[name] = (parser.parse(ast.parse(text, mode="eval").body), "Final" in text)
    return declared


def _python_annotation(parser: TypeParser, annotation: object) -> Attribute:
    """A runtime annotation object (not source text) read through its repr."""
    from tsjit.frontend.annotations import python_type

    t = python_type(annotation)
    if t is not None:
        return t
    text = repr(annotation).replace("typing.", "")
    return parser.parse(ast.parse(text, mode="eval").body)


def _display_name(function: types.FunctionType, path: str) -> str:
    """Library sources print as their package path (`tsjit/frontend/library/...py`)."""
    module = function.__module__ or ""
    if module.startswith("tsjit."):
        return module.replace(".", "/") + ".py"
    return path


def _builtin_scope() -> Scope:

    from tsjit.frontend import torch_shim
    from tsjit.frontend.torch_shim import _builtins

    return Scope({
        "torch": torch_shim, "Tensor": torch_shim.Tensor, "List": list,
        "BroadcastingList1": _builtins.BroadcastingList1, "BroadcastingList2": _builtins.BroadcastingList2,
        "BroadcastingList3": _builtins.BroadcastingList3,
    })  # fmt: skip


def _defaults(source: SourceFile, definition: ast.FunctionDef, function: types.FunctionType | None,
              is_method: bool) -> dict[str, object]:  # fmt: skip
    """Parameter defaults: the live function's values, else the literals of the def."""
    arguments = definition.args
    positional = [*arguments.posonlyargs, *arguments.args]
    result: dict[str, object] = {}
    if function is not None:
        values = function.__defaults__ or ()
        for node, value in zip(positional[len(positional) - len(values) :], values):
            result[node.arg] = value
        result.update(function.__kwdefaults__ or {})
        return result
    for node, default in zip(positional[len(positional) - len(arguments.defaults) :], arguments.defaults):
        result[node.arg] = _literal(source, default)
    for node, default in zip(arguments.kwonlyargs, arguments.kw_defaults):
        if default is not None:
            result[node.arg] = _literal(source, default)
    return result


def _literal(source: SourceFile, node: ast.expr) -> object:
    try:
        return ast.literal_eval(node)
    except ValueError:
        raise source.error(node, "default arguments must be constants in TorchScript") from None


def _convert_default(source: SourceFile, node: ast.arg, value: object, annotation: Annotation) -> object:
    """A default as a constant of its parameter's type (`1` for a float is `1.0`)."""
    from tsjit.dialects.types import FloatType, ListType, OptionalType
    from tsjit.frontend.torch_shim._tensor import dtype as shim_dtype

    t = annotation.type
    if isinstance(t, OptionalType) and value is not None:
        t = t.element_type
    if isinstance(value, shim_dtype):
        return value.code
    if isinstance(t, FloatType) and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if isinstance(t, ListType) and isinstance(value, tuple):
        return list(value)
    if (
        isinstance(t, ListType)
        and annotation.broadcast
        and isinstance(value, (int, float))
        and not isinstance(value, bool)
    ):
        return [value] * annotation.broadcast
    if value is not None and not isinstance(value, (bool, int, float, str, list, tuple)):
        raise source.error(
            node, f"default value of parameter '{node.arg}' must be a constant, got {type(value).__name__}"
        )
    return value


def _emitted(emitter: FunctionEmitter) -> func.FuncOp:
    function = emitter.emit()
    finish(function)
    return function


def finish(function: func.FuncOp) -> None:
    """The passes PyTorch runs on every freshly emitted graph: SSA conversion, the exit
    transform, loop canonicalization, and removal of the frontend's dead scaffolding.
    Each runs only when the graph holds the ops it rewrites (one walk finds them)."""
    from tsjit.dialects import prim
    from tsjit.frontend.exit_transform import transform_exits
    from tsjit.frontend.forks import lift_fork_captures
    from tsjit.frontend.loops import canonicalize_modified_loops
    from tsjit.frontend.ssa import convert_to_ssa, erase_dead_scaffolding, op_kinds

    kinds = op_kinds(function.body.block)
    convert_to_ssa(function, kinds)
    if prim.ForkOp in kinds:
        lift_fork_captures(function)
    transform_exits(function, kinds)
    if prim.LoopOp in kinds:
        canonicalize_modified_loops(function)
    erase_dead_scaffolding(function)
    returned = function.body.block.last_op
    assert isinstance(returned, func.ReturnOp)
    function.function_type = func.FunctionType.from_lists(
        function.function_type.inputs.data, returned.operand_types
    )  # pyright: ignore[reportAttributeAccessIssue]


@functools.cache
def _passes_context() -> Context:
    """One context for every cleanup: the passes only look dialects up in it, and
    building one (every dialect registered) cost a quarter of cleaning a small graph."""
    from tsjit.context import make_context

    return make_context()


def cleanup(module: ModuleOp, pipeline: Sequence[str] = CLEANUP_PIPELINE, depth: int = 0) -> None:
    """Runs the post-scripting cleanup passes (by name, from the pass table), on a deep
    stack for a program nested `depth` levels deep."""
    from tsjit.transforms import PASSES

    def run() -> None:
        ctx = _passes_context()
        for name in pipeline:
            pass_class: type[ModulePass] = PASSES[name]()
            pass_class().apply(ctx, module)

    with collector_paused():
        deeply(run) if needs_deep_stack(depth) else run()
