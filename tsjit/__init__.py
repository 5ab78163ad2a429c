"""tsjit: a TorchScript JIT compiler on xDSL.

    import tsjit
    fn = tsjit.script(my_function)        # TorchScript-syntax Python -> tsjit IR, runnable
    fn(x, y); print(fn.graph); print(fn.code)
    model = tsjit.load("model.pt")        # a TorchScript archive -> a callable module
    model(x); model.named_parameters(); tsjit.save(model, "copy.pt")
    module = tsjit.load("graph.txt")      # PyTorch graph text, MLIR or .py -> a module of IR
    run = tsjit.compile(module, entry="forward", backend="interp")
    run(x, y)
    dx, dy = tsjit.grad(fn, argnums=(0, 1))(x, y)   # gradients of a scalar result

The names are imported on first use, so `import tsjit` costs nothing more than Python's
own start-up; tools that need only one part pay only for it.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp

__version__ = "0.1.0"

__all__ = [
    "script",
    "trace",
    "load",
    "save",
    "compile",
    "install_torch_shim",
    "torch",
    "grad",
    "value_and_grad",
    "set_profiling_runs",
    "set_fusion_strategy",
    "last_executed_optimized_graph",
]


def load(path: str) -> Any:
    """Reads a TorchScript archive (`.pt`, as `torch.jit.save` writes it) into a callable
    module (`ScriptModule`: methods, parameters, `.code`, `.graph`); any other program
    file (MLIR, PyTorch graph text or TorchScript-syntax Python) into a verified module
    of tsjit IR."""
    from tsjit.formats.archive import is_archive

    if is_archive(path):
        from tsjit.formats.archive import load as load_archive

        return load_archive(path)
    from tsjit.context import make_context
    from tsjit.formats import read_program, read_text
    from tsjit.formats.mlir import verify
    from tsjit.nesting import retry_deeply

    text = read_text(path)

    def read() -> ModuleOp:
        module = read_program(make_context(), text, path)
        verify(module)
        return module

    return retry_deeply(read)


def save(module: Any, path: str, extra_files: dict[str, bytes] | None = None) -> None:
    """Writes a scripted, traced or loaded module (a function: as PyTorch saves one) as a
    TorchScript archive that `torch.jit.load` and `tsjit.load` read."""
    from tsjit.formats.archive import save as save_archive

    save_archive(module, path, extra_files)


def compile(  # noqa: A001
    module: ModuleOp,
    entry: str = "forward",
    backend: str = "interp",
    pipeline: Any = None,
    threads: int = 1,
    executor: str = "argspec",
    autograd: bool = False,
) -> Any:
    """A callable running `entry` of `module` through the GraphExecutor of `backend`,
    which specialises on argument types and optimizes with `pipeline` (by default the
    executor's, `executor-default`; `()` for none) on each new argument spec; native
    backends split large kernels over `threads` threads. `executor="profiling"`
    profiles the first calls instead and specializes to what they saw, behind guards.
    With `autograd`, calls record gradients: tensors that require grad (Variables, the
    parameters of `tsjit.runtime.modules.module_object(..., trainable=True)`) give
    results that are Variables, whose `backward()` accumulates into their `.grad`.
    It takes numpy arrays, Python scalars and PyTorch tensors (and then returns
    PyTorch tensors); the executor itself is its `executor`."""
    from tsjit.runtime.executor import DEFAULT_PIPELINE, make_executor
    from tsjit.runtime.interop import Compiled

    pipeline = DEFAULT_PIPELINE if pipeline is None else pipeline
    return Compiled(make_executor(module, entry, backend, pipeline, threads, executor, autograd=autograd))


def __getattr__(name: str) -> Any:
    if name in ("script", "ScriptFunction", "ScriptModule", "ScriptMethod"):
        return getattr(import_module("tsjit.frontend.script"), name)
    if name in ("trace", "TracerWarning", "TracingCheckError"):
        return getattr(import_module("tsjit.frontend.tracer"), name)
    if name in ("grad", "value_and_grad"):
        return getattr(import_module("tsjit.runtime.autograd.functional"), name)
    if name == "torch":  # tsjit's torch shim, whether or not PyTorch is installed
        return import_module("tsjit.frontend.torch_shim")
    if name == "install_torch_shim":
        return import_module("tsjit.frontend.torch_shim.install").install_torch_shim
    if name in ("set_profiling_runs", "set_fusion_strategy", "last_executed_optimized_graph"):
        return getattr(import_module("tsjit.runtime.profiling_executor"), name)
    raise AttributeError(f"module 'tsjit' has no attribute '{name}'")
