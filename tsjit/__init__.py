"""tsjit: a TorchScript JIT compiler on xDSL.

    import tsjit
    fn = tsjit.script(my_function)        # TorchScript-syntax Python -> tsjit IR, runnable
    fn(x, y); print(fn.graph); print(fn.code)
    module = tsjit.load("graph.txt")      # PyTorch graph text, MLIR or .py -> a module of IR
    run = tsjit.compile(module, entry="forward", backend="interp")
    run(x, y)

The names are imported on first use, so `import tsjit` costs nothing more than Python's
own start-up; tools that need only one part pay only for it.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp

__all__ = [
    "script",
    "trace",
    "load",
    "compile",
    "install_torch_shim",
    "set_profiling_runs",
    "set_fusion_strategy",
    "last_executed_optimized_graph",
]


def load(path: str) -> ModuleOp:
    """Reads a program file (MLIR, PyTorch graph text or TorchScript-syntax Python) into a
    verified module of tsjit IR."""
    from tsjit.context import make_context
    from tsjit.formats import read_program
    from tsjit.formats.mlir import verify
    from tsjit.nesting import retry_deeply

    with open(path, encoding="utf-8") as f:
        text = f.read()

    def read() -> ModuleOp:
        module = read_program(make_context(), text, path)
        verify(module)
        return module

    return retry_deeply(read)


def compile(  # noqa: A001
    module: ModuleOp,
    entry: str = "forward",
    backend: str = "interp",
    pipeline: Any = None,
    threads: int = 1,
    executor: str = "argspec",
) -> Any:
    """A callable running `entry` of `module` through the GraphExecutor of `backend`,
    which specialises on argument types and optimizes with `pipeline` (by default the
    executor's, `executor-default`; `()` for none) on each new argument spec; native
    backends split large kernels over `threads` threads. `executor="profiling"`
    profiles the first calls instead and specializes to what they saw, behind guards."""
    from tsjit.runtime.executor import DEFAULT_PIPELINE, make_executor

    pipeline = DEFAULT_PIPELINE if pipeline is None else pipeline
    return make_executor(module, entry, backend, pipeline, threads, executor)


def __getattr__(name: str) -> Any:
    if name == "script":
        return import_module("tsjit.frontend.script").script
    if name in ("trace", "TracerWarning", "TracingCheckError"):
        return getattr(import_module("tsjit.frontend.tracer"), name)
    if name == "install_torch_shim":
        return import_module("tsjit.frontend.torch_shim.install").install_torch_shim
    if name in ("set_profiling_runs", "set_fusion_strategy", "last_executed_optimized_graph"):
        return getattr(import_module("tsjit.runtime.profiling_executor"), name)
    raise AttributeError(f"module 'tsjit' has no attribute '{name}'")
