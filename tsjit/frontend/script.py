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
from collections.abc import Callable
from typing import Any

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

from tsjit.diagnostics import SourceLocation, TsjitError
from tsjit.frontend.compilation import CompilationUnit, CompiledFunction, cleanup
from tsjit.frontend.modules import ModuleInfo, is_module, tensor_array
from tsjit.frontend.source import SourceFile
from tsjit.frontend.torch_shim._state import ACTIVE
from tsjit.nesting import retry_deeply


EXECUTOR = "profiling"
"""The executor scripted functions run through (`make_executor`'s `executor`)."""


class ScriptFunction:
    """A compiled function: callable, with its IR and printed forms."""

    def __init__(self, unit: CompilationUnit, entry: CompiledFunction):
        self.unit = unit
        self.entry = entry
        self._executor: Any = None

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

            self._executor = make_executor(self.module, self.name, executor=EXECUTOR)
        return self._executor

    def __call__(self, *args: Any) -> Any:
        tracer = ACTIVE.current()
        if tracer is not None:  # called from code being traced: recorded as a call
            return tracer.call_script(self, args)
        return self.executor()(*self.executor_arguments(args))

    def executor_arguments(self, args: tuple[Any, ...]) -> tuple[Any, ...]:
        """What the executor is called with for these arguments."""
        return tuple(_runtime_argument(a) for a in args)

    def graph_for(self, *args: Any) -> func.FuncOp:
        """The graph that runs for these arguments (PyTorch's `graph_for`): specialized
        and optimized by the executor, which a profiling executor first runs them through
        until it has optimized."""
        module = self.executor().graph_for(*self.executor_arguments(args))
        return next(op for op in module.ops if isinstance(op, func.FuncOp) and op.sym_name.data == self.name)

    def __repr__(self) -> str:
        return f"<tsjit.ScriptFunction {self.name}>"


class ScriptModule(ScriptFunction):
    """A compiled module: calling it runs `forward` on the module's state."""

    def __init__(self, unit: CompilationUnit, entry: CompiledFunction, info: ModuleInfo):
        super().__init__(unit, entry)
        self.info = info
        self.state = info.runtime_object()

    def __call__(self, *args: Any) -> Any:
        tracer = ACTIVE.current()
        if tracer is not None:  # a submodule of a module being traced: recorded as a method call
            return tracer.call_compiled_module(self, args)
        return self.executor()(*self.executor_arguments(args))

    def executor_arguments(self, args: tuple[Any, ...]) -> tuple[Any, ...]:
        return (self.state, *(_runtime_argument(a) for a in args))

    def __repr__(self) -> str:
        return f"<tsjit.ScriptModule {self.info.qualname}>"


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
    from tsjit.frontend.torch_shim import _builtins, jit, nn

    return {
        "torch": torch_shim, "torch.nn": nn, "torch.nn.functional": functional, "torch.jit": jit,
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
    stem = os.path.splitext(os.path.basename(source.filename))[0] or "__main__"
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


def _runtime_argument(value: Any) -> Any:
    """Shim or PyTorch tensors become the numpy arrays the runtime works on."""
    from tsjit.frontend.modules import is_tensor

    if is_tensor(value):
        return tensor_array(value)
    if isinstance(value, list):
        return [_runtime_argument(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_runtime_argument(v) for v in value)
    if isinstance(value, dict):
        return {k: _runtime_argument(v) for k, v in value.items()}
    return value
