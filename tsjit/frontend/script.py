"""`tsjit.script`: TorchScript's `torch.jit.script`, without PyTorch.

    scripted = tsjit.script(fn)          # a function, a module instance, or source text
    scripted(x, 3)                       # runs through the GraphExecutor
    scripted.graph                       # the entry's func.func (scripted.module: all of it)
    scripted.code                        # TorchScript-syntax Python (the Python printer)
    scripted.torchscript                 # PyTorch's graph text

Files are executed with `import torch` bound to tsjit's torch shim (so they import and
their modules can be constructed without PyTorch); functions and module instances from a
live Python session keep whatever `torch` they were written against.
"""

from __future__ import annotations
import __future__

import builtins as python_builtins
import functools
import os
import types
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, TypeVar

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

from tsjit.diagnostics import SourceLocation, TsjitError, remember_source
from tsjit.frontend.compilation import CompilationUnit, CompiledFunction, cleanup
from tsjit.frontend.modules import ModuleInfo, is_module
from tsjit.frontend.schema_matching import NO_DEFAULT
from tsjit.frontend.source import SourceFile
from tsjit.frontend.torch_shim._state import ACTIVE
from tsjit.nesting import retry_deeply
from tsjit.runtime import interop

if TYPE_CHECKING:
    from tsjit.runtime.values import ScriptObject

T = TypeVar("T")


EXECUTOR = "profiling"
"""The executor scripted functions run through (`make_executor`'s `executor`)."""


class ScriptFunction:
    """A compiled function: callable, with its IR and printed forms.

    A call where some tensor argument requires grad (while grad mode is on) records
    gradients, as PyTorch's would: it runs through an executor of its own that
    differentiates the graph, and its tensor results are Tensors whose `backward()`
    reaches the arguments' `.grad`. Other calls compute on plain arrays."""

    def __init__(self, unit: CompilationUnit, entry: CompiledFunction | None):
        self.unit = unit
        self._entry = entry
        self.backend = "interp"
        self._executor: Any = None
        self._grad_executor: Any = None

    def to_backend(self, backend: str) -> ScriptFunction:
        """Runs later calls on `backend` (`interp`, `llvm`, `auto`); returns self."""
        from tsjit.runtime.executor import BACKENDS

        if backend not in BACKENDS:
            raise TsjitError(f"unknown backend '{backend}' (backends: {', '.join(BACKENDS)})")
        self.backend = backend
        self._executor = self._grad_executor = None
        return self

    @property
    def entry(self) -> CompiledFunction:
        if self._entry is None:
            self._entry = self.compile_entry()
        return self._entry

    @entry.setter
    def entry(self, value: CompiledFunction) -> None:
        self._entry = value

    def compile_entry(self) -> CompiledFunction:
        raise TsjitError("this function has no compiled entry")

    @property
    def module(self) -> ModuleOp:
        """Every function the entry needs (callees, methods, library code)."""
        return self.unit.module

    @property
    def name(self) -> str:
        return self.entry.symbol

    @property
    def graph(self) -> func.FuncOp:
        return self.entry.op

    @property
    def code(self) -> str:
        from tsjit.formats.python_code import export_python

        return export_python(self.module, self.name)

    @property
    def torchscript(self) -> str:
        from tsjit.formats.torchscript_export import export_graph_text

        return export_graph_text(self.module, self.name)

    def executor(self) -> Any:
        if self._executor is None:
            from tsjit.runtime.executor import make_executor

            self._executor = make_executor(self.module, self.name, self.backend, executor=EXECUTOR)
        return self._executor

    def grad_executor(self) -> Any:
        """The executor of calls that record gradients."""
        if self._grad_executor is None:
            from tsjit.runtime.executor import make_executor

            self._grad_executor = make_executor(self.module, self.name, self.backend, executor=EXECUTOR,
                                                autograd=True)  # fmt: skip
        return self._grad_executor

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        tracer = ACTIVE.current()
        if tracer is not None:  # called from code being traced: recorded as a call
            return tracer.call_script(self, args)
        bound = bind_arguments(self.entry, args, kwargs)
        if self.records_gradients(bound):
            return self.grad_call(bound)
        return interop.call(self.run, bound)

    def run(self, *args: Any) -> Any:
        """Runs on runtime values (numpy arrays, Python scalars)."""
        return self.executor()(*args)

    def records_gradients(self, args: tuple[Any, ...]) -> bool:
        """Whether a call with `args` records gradients (see the class docstring)."""
        from tsjit.runtime.autograd import is_grad_enabled, wants_grad

        return is_grad_enabled() and wants_grad(args)

    def grad_call(self, args: tuple[Any, ...]) -> Any:
        """A call that records gradients: Variables in, the shim's Tensors out."""
        from tsjit.frontend.torch_shim._tensor import as_tensors

        return as_tensors(self.grad_executor()(*self.grad_arguments(args)))

    def executor_arguments(self, args: tuple[Any, ...]) -> tuple[Any, ...]:
        """What the executor is called with for these arguments."""
        return interop.to_runtime_arguments(args)[0]

    def grad_arguments(self, args: tuple[Any, ...]) -> tuple[Any, ...]:
        """What the gradient-recording executor is called with: tensors that are
        Variables (the shim's Tensors) stay themselves."""
        return tuple(_grad_argument(a) for a in args)

    def graph_for(self, *args: Any) -> func.FuncOp:
        """The graph that runs for these arguments (PyTorch's `graph_for`): specialized
        and optimized by the executor, which a profiling executor first runs them through
        until it has optimized."""
        if self.records_gradients(args):
            module = self.grad_executor().graph_for(*self.grad_arguments(args))
        else:
            module = self.executor().graph_for(*self.executor_arguments(args))
        return next(op for op in module.ops if isinstance(op, func.FuncOp) and op.sym_name.data == self.name)

    def __repr__(self) -> str:
        return f"<tsjit.ScriptFunction {self.name}>"


class ScriptModule(ScriptFunction):
    """A compiled module: calling it runs `forward` on the module's state (`state`, the
    runtime's object tree). Its methods, submodules, parameters and attributes read as
    attributes (`m.extra(x)`, `m.fc.weight`); methods compile on first use.

    `entry` is the compiled `forward` (or the method `tsjit.script` was asked for); a
    submodule (`m.fc`) is a view of the same compilation unit on part of the state."""

    def __init__(self, unit: CompilationUnit, entry: CompiledFunction | None, info: ModuleInfo,
                 state: ScriptObject | None = None, is_root: bool = True) -> None:  # fmt: skip
        super().__init__(unit, entry)
        self.info = info
        self.state = info.runtime_object() if state is None else state
        self.is_root = is_root
        self._methods: dict[str, ScriptMethod] = {}
        from tsjit.runtime.autograd import variables_of

        self.tensors = variables_of(self.state)
        """The module's tensors that are Variables (its parameters among them)."""

    def compile_entry(self) -> CompiledFunction:
        return self.compile_method("forward")

    def compile_method(self, name: str) -> CompiledFunction:
        """Method `name` of the module's class (the root's `forward` is the entry)."""
        if not self.info.has_method(name):
            raise TsjitError(f"module '{self.info.python_name}' has no method '{name}'")
        entry = self.is_root and name == "forward"
        return compile_cleaned(self.unit, lambda: self.unit.compile_method(self.info, name, None, entry=entry))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        tracer = ACTIVE.current()
        if tracer is not None:  # a submodule of a module being traced: recorded as a method call
            return tracer.call_compiled_module(self, args)
        bound = bind_arguments(self.entry, args, kwargs)
        if self.records_gradients(bound):
            return self.grad_call(bound)
        return interop.call(self.run, bound)

    def run(self, *args: Any) -> Any:
        """Runs `forward` on the module's state (whose tensors share the memory of the
        module's own: an in-place update there, as `load_state_dict`, is seen here)."""
        return self.executor()(self.state, *args)

    def records_gradients(self, args: tuple[Any, ...]) -> bool:
        from tsjit.runtime.autograd import is_grad_enabled, requires_grad, wants_grad

        return is_grad_enabled() and (any(requires_grad(t) for t in self.tensors) or wants_grad(args))

    def executor_arguments(self, args: tuple[Any, ...]) -> tuple[Any, ...]:
        return (self.state, *interop.to_runtime_arguments(args)[0])

    # -- methods, submodules and attributes --------------------------------------------------

    def method(self, name: str) -> ScriptMethod:
        known = self._methods.get(name)
        if known is None:
            compiled = self.entry if name == "forward" else self.compile_method(name)
            known = self._methods[name] = ScriptMethod(self, compiled)
        return known

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name in _OWN_ATTRIBUTES:  # not set yet (copying, unpickling)
            raise AttributeError(name)
        if self.info.has_method(name):
            return self.method(name)
        attributes = self.state.attributes
        if name in attributes:
            value = attributes[name]
            child = self._child(name, value)
            return child if child is not None else value
        raise AttributeError(f"'{self.info.python_name}' has no attribute or method '{name}'")

    def _child(self, name: str, value: Any) -> ScriptModule | None:
        from tsjit.runtime.values import ScriptObject

        if not isinstance(value, ScriptObject):
            return None
        info = self.info.submodules.get(name) or self.unit.registry.by_qualname.get(value.qualified_name)
        if info is None:
            return None
        return ScriptModule(self.unit, None, info, value, is_root=False)

    def __getitem__(self, key: int | str) -> Any:
        """A container's submodule by index or name (`m.blocks[0]`)."""
        return self.__getattr__(str(key))

    def train(self, mode: bool = True) -> ScriptModule:
        """Sets `training` on this module and every submodule (as `nn.Module.train`)."""
        for _, module in self.named_modules():
            if "training" in module.state.attributes:
                module.state.attributes["training"] = mode
        return self

    def eval(self) -> ScriptModule:
        return self.train(False)

    def named_children(self) -> Iterator[tuple[str, ScriptModule]]:
        for name, value in self.state.attributes.items():
            if name in self.info.submodules and (child := self._child(name, value)) is not None:
                yield name, child

    def named_modules(self, prefix: str = "") -> Iterator[tuple[str, ScriptModule]]:
        yield prefix, self
        for name, child in self.named_children():
            yield from child.named_modules(f"{prefix}.{name}" if prefix else name)

    def named_parameters(self, prefix: str = "", recurse: bool = True) -> Iterator[tuple[str, Any]]:
        """Parameters (the module's Parameter objects are Variables), dotted names from this module,
        as PyTorch orders them."""
        yield from self._named_tensors("parameters", prefix, recurse)

    def named_buffers(self, prefix: str = "", recurse: bool = True) -> Iterator[tuple[str, Any]]:
        yield from self._named_tensors("buffers", prefix, recurse)

    def parameters(self, recurse: bool = True) -> Iterator[Any]:
        return (value for _, value in self.named_parameters(recurse=recurse))

    def buffers(self, recurse: bool = True) -> Iterator[Any]:
        return (value for _, value in self.named_buffers(recurse=recurse))

    def state_dict(self) -> dict[str, Any]:
        return {**dict(self.named_parameters()), **dict(self.named_buffers())}

    def _named_tensors(self, kind: str, prefix: str, recurse: bool) -> Iterator[tuple[str, Any]]:
        modules = self.named_modules(prefix) if recurse else iter([(prefix, self)])
        for path, module in modules:
            for name in getattr(module.info, kind):
                value = module.state.attributes.get(name)
                if value is not None:
                    yield (f"{path}.{name}" if path else name), value

    def save(self, path: str) -> None:
        """Writes the module as a TorchScript archive (`tsjit.save`)."""
        from tsjit.formats.archive import save

        save(self, path)

    def grad_arguments(self, args: tuple[Any, ...]) -> tuple[Any, ...]:
        return (self.state, *(_grad_argument(a) for a in args))

    def __repr__(self) -> str:
        return f"<tsjit.ScriptModule {self.info.qualname}>"


_OWN_ATTRIBUTES = frozenset({"unit", "info", "state", "is_root", "tensors", "backend", "_entry", "_executor",
                             "_grad_executor", "_methods"})  # fmt: skip


class ScriptMethod(ScriptFunction):
    """A method of a compiled module, bound to it: a compiled function whose first
    argument is the module's object (`m.extra(x)`)."""

    def __init__(self, owner: ScriptModule, compiled: CompiledFunction):
        super().__init__(owner.unit, compiled)
        self.owner = owner

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.entry is self.owner._entry:  # forward: the module's own executor
            return self.owner(*args, **kwargs)
        return super().__call__(*args, **kwargs)

    def run(self, *args: Any) -> Any:
        return self.executor()(self.owner.state, *args)

    def executor_arguments(self, args: tuple[Any, ...]) -> tuple[Any, ...]:
        return self.owner.executor_arguments(args)

    def records_gradients(self, args: tuple[Any, ...]) -> bool:
        return self.owner.records_gradients(args)

    def grad_arguments(self, args: tuple[Any, ...]) -> tuple[Any, ...]:
        return self.owner.grad_arguments(args)

    def __repr__(self) -> str:
        return f"<tsjit.ScriptMethod {self.name}>"


def bind_arguments(compiled: CompiledFunction, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, ...]:
    """Python call arguments as the graph's positional inputs: keywords by parameter
    name, missing ones from the parameters' defaults (as TorchScript binds a call)."""
    params = compiled.signature.params
    if len(args) == len(params) and not kwargs:
        return args
    name = compiled.signature.name
    if len(args) > len(params):
        return args  # the graph's argument check says so, with PyTorch's words
    bound = list(args)
    for param in params[len(args) :]:
        if param.name in kwargs:
            bound.append(kwargs.pop(param.name))
        elif param.default is not NO_DEFAULT:
            bound.append(param.default)
        else:
            return tuple(bound)  # missing: as above
    if kwargs:
        raise TsjitError(f"{name}() got an unexpected keyword argument '{next(iter(kwargs))}'")
    return tuple(bound)


def compile_cleaned(unit: CompilationUnit, compile: Callable[[], T]) -> T:
    """Compiles on demand (a method first called after scripting, or loading): when that
    adds functions to the unit, the post-scripting cleanup runs again."""
    count = len(unit.module.body.block.ops)
    compiled = compile()
    if len(unit.module.body.block.ops) != count:
        cleanup(unit.module)
    return compiled


def script(obj: Any, entry: str = "forward") -> ScriptFunction:
    """Compiles a Python function, a module instance (tsjit's shim or PyTorch's) or
    the source text of a file (whose `entry` function or module class is compiled)."""
    if isinstance(obj, str):
        return script_file_text(obj, "<string>", None if entry == "forward" else entry)
    unit = CompilationUnit()
    if is_module(obj):
        result = _script_module(unit, obj, entry)
    elif isinstance(obj, types.FunctionType):
        result = ScriptFunction(unit, unit.compile_function(obj, obj.__name__, None))
    elif isinstance(obj, ScriptFunction):
        return obj
    elif isinstance(obj, type):
        return obj  # `@torch.jit.script class C`: the class compiles where scripted code uses it
    else:
        raise TsjitError(
            f"tsjit.script expects a function, a module or source text, got {type(obj).__name__}"
        )
    cleanup(unit.module, depth=unit.deepest)
    return result


def _script_module(
    unit: CompilationUnit, instance: Any, method: str, location: SourceLocation | None = None
) -> ScriptModule:
    info = unit.registry.info(instance)
    if not info.has_method(method):
        raise TsjitError(f"module '{info.python_name}' has no method '{method}' to script", location)
    return ScriptModule(unit, unit.compile_method(info, method, None, entry=True), info)


def script_file_text(text: str, filename: str, entry: str | None = None) -> ScriptFunction:
    """Executes a file's text (with the torch shim) and compiles its entry: the function
    `entry` (default `forward`), else a method `entry` of the file's module class
    (`Model.forward` or just the method name), else its module class's `forward`."""
    unit = CompilationUnit()
    source = SourceFile(filename, text)
    unit.register_source(source)
    if filename.startswith("<"):  # no file: tracebacks of run-time errors show this text
        remember_source(filename, text)
    namespace = run_user_file(source)
    function_name, class_name, method = _entry(namespace, source, entry)
    if function_name is not None:
        result = ScriptFunction(unit, unit.compile_function(namespace[function_name], function_name, None))
    else:
        assert class_name is not None
        cls = namespace[class_name]
        try:
            instance = cls()
        except Exception as error:  # the user's constructor: any failure is theirs
            raise TsjitError(f"cannot construct {class_name}() to script it: {error}",
                             SourceLocation(filename, _line_of(source, class_name))) from error  # fmt: skip
        result = _script_module(unit, instance, method, SourceLocation(filename, _line_of(source, class_name)))
    cleanup(unit.module, depth=unit.deepest)
    return result


def script_method_source(
    instance: Any, text: str, filename: str = "<string>", method: str = "forward"
) -> ScriptModule:
    """Compiles `method` from source text as a method of `instance`'s class — e.g. the
    Python printer's `def forward(self, x: Tensor)` of a scripted module; the other defs
    of the text are functions it may call."""
    unit = CompilationUnit()
    source = SourceFile(filename, text)
    unit.register_source(source)
    namespace = run_user_file(source)
    function = namespace.get(method)
    if not isinstance(function, types.FunctionType):
        raise TsjitError(f"{filename} defines no function '{method}'", SourceLocation(filename, 0))
    info = unit.registry.info(instance)
    compiled = unit.compile_method_function(info, method, function)
    cleanup(unit.module, depth=unit.deepest)
    return ScriptModule(unit, compiled, info)


def function_program(module: ModuleOp, entry: str, filename: str = "<input>") -> ScriptFunction:
    """Function `entry` of a module of IR (read from MLIR or graph text) as a compiled
    function; a graph that takes a module (`%self`) cannot be one without its object."""
    from tsjit.dialects.types import ClassType, NoneType
    from tsjit.formats.torchscript_export import find_function
    from tsjit.frontend.schema_matching import Param, Signature

    unit = CompilationUnit()
    unit.module = module
    function = find_function(module, entry)
    inputs = function.function_type.inputs.data
    if inputs and isinstance(inputs[0], ClassType):
        raise TsjitError(f"@{function.sym_name.data} takes a module object ({inputs[0].qualname.data}), which "
                         "a graph does not hold: export the module's .py source or .pt archive",
                         SourceLocation(filename, 0))  # fmt: skip
    outputs = function.function_type.outputs.data
    names = [a.name_hint or f"input_{i}" for i, a in enumerate(function.body.block.args)]
    signature = Signature(function.sym_name.data, tuple(Param(n, t) for n, t in zip(names, inputs)), tuple(outputs))
    return_type = outputs[0] if len(outputs) == 1 else NoneType()
    compiled = CompiledFunction(function.sym_name.data, function, signature, return_type)
    return ScriptFunction(unit, compiled)


def script_source(ctx: Context, text: str, filename: str = "<string>", entry: str | None = None) -> ModuleOp:
    """The `read_program` door: Python source to a module of tsjit IR."""
    return script_file_text(text, filename, entry).module


def _entry(
    namespace: dict[str, Any], source: SourceFile, entry: str | None
) -> tuple[str | None, str | None, str]:
    module_classes = [
        name for name, value in namespace.items()
        if isinstance(value, type) and value.__module__ == namespace["__name__"] and _is_module_class(value)
    ]  # fmt: skip
    wanted = entry or "forward"
    if "." in wanted:
        class_name, _, method = wanted.partition(".")
        if class_name not in module_classes:
            raise TsjitError(
                f"{source.filename} defines no module class '{class_name}'",
                SourceLocation(source.filename, 0),
            )
        return None, class_name, method
    value = namespace.get(wanted)
    if isinstance(value, types.FunctionType) and value.__module__ == namespace["__name__"]:
        return wanted, None, "forward"
    if wanted in module_classes:
        return None, wanted, "forward"
    if module_classes:
        return None, module_classes[-1], wanted
    raise TsjitError(f"{source.filename} defines no function '{wanted}' and no torch.nn.Module class",
                     SourceLocation(source.filename, 0))  # fmt: skip


def _is_module_class(cls: type) -> bool:
    return any(base.__name__ == "Module" and "nn" in base.__module__ for base in cls.__mro__[1:])


def _line_of(source: SourceFile, class_name: str) -> int:
    for node in source.tree.body:
        if getattr(node, "name", None) == class_name:
            return node.lineno
    return 0


# --------------------------------------------------------------------------------------
# Running the user's file
# --------------------------------------------------------------------------------------


def shim_modules() -> dict[str, types.ModuleType]:
    """`torch` and its submodules as the shim provides them."""
    from tsjit.frontend import torch_shim
    from tsjit.frontend.library import functional
    from tsjit.frontend.torch_shim import _builtins, jit, nn, optim

    return {
        "torch": torch_shim, "torch.nn": nn, "torch.nn.functional": functional, "torch.jit": jit, "torch.optim": optim,
        "torch.nn.init": nn.init, "torch._jit_internal": _builtins,
    }  # fmt: skip


def _shim_import(modules: dict[str, types.ModuleType]) -> Callable[..., Any]:
    def importer(
        name: str, globals: Any = None, locals: Any = None, fromlist: Any = (), level: int = 0
    ) -> Any:
        if level == 0 and (name == "torch" or name.startswith("torch.")):
            if name not in modules:
                raise ImportError(
                    f"tsjit's torch shim has no module '{name}' (PyTorch is not used by tsjit's tools)"
                )
            return modules[name] if fromlist else modules["torch"]
        return python_builtins.__import__(name, globals, locals, fromlist, level)

    return importer


def run_user_file(source: SourceFile) -> dict[str, Any]:
    """Executes the file as a module named after it (`source.py` is module `source`,
    so its classes are `__torch__.source.X`)."""
    stem = os.path.splitext(os.path.basename(source.filename))[0]
    stem = stem if stem.isidentifier() else "__main__"  # `<string>` names no module
    file_builtins = dict(vars(python_builtins))
    file_builtins["__import__"] = _shim_import(shim_modules())
    namespace: dict[str, Any] = {"__name__": stem, "__file__": source.filename, "__builtins__": file_builtins}
    # Annotations stay text, as under `from __future__ import annotations`: TorchScript
    # files name types Python cannot evaluate (`Tensor` unimported, `__torch__.m.C`).
    try:
        code = retry_deeply(
            functools.partial(compile, flags=__future__.annotations.compiler_flag, dont_inherit=True),
            source.tree,
            source.filename,
            "exec",
        )
    except SyntaxError as error:
        line = (error.lineno or 0) + source.line_offset
        raise TsjitError(f"syntax error: {error.msg}", SourceLocation(source.filename, line, error.offset or 0),
                         error.text.rstrip("\n") if error.text else None) from None  # fmt: skip
    try:
        exec(code, namespace)  # noqa: S102 - scripting a file runs it, as importing it would
    except TsjitError:
        raise
    except Exception as error:  # the user's module-level code: report where it failed
        line = _failing_line(error, source.filename)
        raise TsjitError(f"running {source.filename} failed: {type(error).__name__}: {error}",
                         SourceLocation(source.filename, line)) from error  # fmt: skip
    return namespace


def _failing_line(error: BaseException, filename: str) -> int:
    tb = error.__traceback__
    line = 0
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == filename:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def _grad_argument(value: Any) -> Any:
    """A call argument of a call that records gradients: Variables (the shim's Tensors)
    stay themselves, anything else becomes the runtime's value."""
    from tsjit.runtime.autograd import Variable

    if isinstance(value, Variable):
        return value
    if isinstance(value, list):
        return [_grad_argument(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_grad_argument(v) for v in value)
    if isinstance(value, dict):
        return {k: _grad_argument(v) for k, v in value.items()}
    return interop.to_runtime(value)
