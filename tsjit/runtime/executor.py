"""The GraphExecutor: a graph specialized to the arguments it is called with.

As in TorchScript (JIT overview, "Graph Executor"), each call computes an ArgumentSpec
of its arguments — per tensor, at top level and inside tuples: dtype, rank,
requires_grad, device, defined — and looks it up in a cache of optimized code. On a
miss the executor copies the graph, refines its `!ts.tensor` inputs to the observed
dtype and rank, runs its pass pipeline and compiles the result for the interpreter.

Backends (`BACKENDS`) name the executor class that runs a graph; each lives in its own
module, imported on first use, so a backend plugs in by providing that module.

    forward = GraphExecutor(module, "forward", pipeline="canonicalize,cse")
    y = forward(x, 3)
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import FunctionType, ModuleOp, NoneAttr
from xdsl.ir import Attribute
from xdsl.passes import ModulePass, PassPipeline
from xdsl.rewriter import Rewriter

from tsjit.diagnostics import TsjitError
from tsjit.dialects.types import DTYPE_BY_TORCH_NAME, TensorType, TupleType
from tsjit.nesting import retry_deeply
from tsjit.runtime.arguments import ArgumentCheck
from tsjit.runtime.autograd.variable import Variable, requires_grad
from tsjit.runtime.interpreter import Code, Program

Pipeline = str | Sequence[ModulePass]
"""A ts-opt pipeline spec (`canonicalize,cse`) or the passes themselves."""


@dataclass(frozen=True, slots=True)
class TensorSpec:
    """What specialization knows of one tensor argument (the runtime has only the CPU:
    device takes one value). Its hash is computed once: specs key the executor's cache
    on every call."""

    dtype: np.dtype
    rank: int
    requires_grad: bool = False
    device: str = "cpu"
    defined: bool = True
    _hash: int = field(init=False, repr=False, compare=False)
    _repr: str | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        fields = (self.dtype, self.rank, self.requires_grad, self.device, self.defined)
        object.__setattr__(self, "_hash", hash(fields))

    def __hash__(self) -> int:
        return self._hash

    def __repr__(self) -> str:
        """Made once: reprs of specs key the program cache, and numpy's dtype repr is
        written in Python."""
        if self._repr is None:
            text = (
                f"TensorSpec(dtype={self.dtype!r}, rank={self.rank}, requires_grad={self.requires_grad}, "
                f"device={self.device!r}, defined={self.defined})"
            )
            object.__setattr__(self, "_repr", text)
        return self._repr  # pyright: ignore[reportReturnType]


UNDEFINED = TensorSpec(np.dtype(np.float32), 0, defined=False)
"""The spec of None where a tensor may be (an undefined tensor)."""

ArgumentSpec = tuple[Any, ...]
"""Per argument: a TensorSpec, a tuple of specs for a tuple, None for anything else."""


def argument_spec(args: Sequence[Any]) -> ArgumentSpec:
    """The ArgumentSpec of a call's arguments (the executor's cache key)."""
    return tuple([_spec(a) for a in args])  # a list comprehension: a third faster than a generator here


def _spec(value: Any) -> Any:
    kind = type(value)
    if kind is np.ndarray:
        return _tensor_spec(value.dtype, value.ndim)
    if value is None:
        return UNDEFINED
    if isinstance(value, tuple):
        return tuple(_spec(v) for v in value)
    if isinstance(value, Variable):
        array = value.array
        return _tensor_spec(array.dtype, array.ndim, requires_grad(value))
    return None


_TENSOR_SPECS: dict[tuple[np.dtype, int, bool], TensorSpec] = {}


def _tensor_spec(dtype: np.dtype, rank: int, grad: bool = False) -> TensorSpec:
    """Interned, so that computing a spec allocates nothing after the first call."""
    spec = _TENSOR_SPECS.get((dtype, rank, grad))
    if spec is None:
        spec = _TENSOR_SPECS[(dtype, rank, grad)] = TensorSpec(dtype, rank, grad)
    return spec


DEFAULT_PIPELINE = "executor-default"
"""What a GraphExecutor runs on a specialised graph unless told otherwise: the cleanup
pipeline, shape propagation, unrolling, remove-mutation and a final cleanup
(`tsjit/transforms/pipelines.py`); `()` runs the graph as it is."""


class GraphExecutor:
    """Runs the function `entry` of `module` through the interpreter, with code
    optimized per ArgumentSpec; `module` itself is never modified. An `autograd`
    executor runs calls that record gradients (arguments that require grad, as
    Variables): its graphs get DifferentiableGraphs (`create-autodiff-subgraphs`,
    `differentiate`) and its programs record (`Program.autograd`)."""

    threaded: ClassVar[bool] = False
    """Whether the executor can split work over threads (`threads=`)."""

    def __init__(self, module: ModuleOp, entry: str = "forward", pipeline: Pipeline = DEFAULT_PIPELINE,
                 autograd: bool = False):  # fmt: skip
        self.module = module
        self.entry = entry
        self.pipeline = pipeline
        self.autograd = autograd
        self._passes = _parse_pipeline(pipeline)
        if entry not in {op.sym_name.data for op in module.ops if isinstance(op, func.FuncOp)}:
            raise TsjitError(f"no function named '{entry}' in the program")
        self.arguments = ArgumentCheck(_function(module, entry))
        self.check_arguments = self.arguments.check
        self._cache: dict[ArgumentSpec, tuple[ModuleOp, Code]] = {}
        self._lock = threading.Lock()

    def __call__(self, *args: Any) -> Any:
        args = self.check_arguments(args)
        entry = self._cache.get(argument_spec(args))
        if entry is None:
            entry = retry_deeply(self._specialize, args)
        return entry[1](*args)

    def graph_for(self, *args: Any) -> ModuleOp:
        """The specialized and optimized module the executor runs for these arguments."""
        args = self.check_arguments(args)
        entry = self._cache.get(argument_spec(args)) or retry_deeply(self._specialize, args)
        return entry[0]

    @property
    def cache_size(self) -> int:
        return len(self._cache)

    def autograd_executor(self) -> GraphExecutor:
        """An executor like this one that records gradients (`tsjit.grad` runs it)."""
        twin = getattr(self, "_autograd_twin", None)
        if twin is None:
            twin = self._autograd_twin = self.twin(autograd=True)
        return twin

    def twin(self, autograd: bool) -> GraphExecutor:
        return type(self)(self.module, self.entry, self.pipeline, autograd=autograd)

    def specialization_passes(self) -> list[ModulePass]:
        """The passes run on each specialization: the executor's pipeline, then with
        `autograd` the differentiation passes; a backend adds its own (the llvm backend
        fuses)."""
        if not self.autograd:
            return list(self._passes)
        from tsjit.transforms.create_autodiff_subgraphs import CreateAutodiffSubgraphsPass
        from tsjit.transforms.differentiate import DifferentiatePass

        return [*self._passes, CreateAutodiffSubgraphsPass(), DifferentiatePass()]

    def make_program(self, module: ModuleOp) -> Program:
        """What runs a specialized module; a backend returns its own Program."""
        return Program(module, self.autograd)

    def _specialize(self, args: Sequence[Any]) -> tuple[ModuleOp, Code]:
        args = self.arguments.full(tuple(args))  # a new spec: check its tensors' dtypes
        spec = argument_spec(args)
        with self._lock:
            if (entry := self._cache.get(spec)) is not None:
                return entry
            module = self.module.clone()
            function = _function(module, self.entry)
            if not function.is_declaration and len(spec) == len(function.body.block.args):
                refine_inputs(function, spec)
            if passes := self.specialization_passes():
                from tsjit.context import make_context

                PassPipeline(tuple(passes)).apply(make_context(), module)
            entry = self._cache[spec] = (module, self.make_program(module).function(self.entry))
            return entry


def refine_inputs(function: func.FuncOp, spec: ArgumentSpec) -> None:
    """Refines the tensor inputs of `function` (alone or in tuples) to their specs."""
    block = function.body.block
    for arg, arg_spec in zip(tuple(block.args), spec):
        refined = _refine(arg.type, arg_spec)
        if refined != arg.type:
            Rewriter.replace_value_with_new_type(arg, refined)
    function.function_type = FunctionType.from_lists(
        [arg.type for arg in block.args], function.function_type.outputs.data
    )


def _refine(type: Attribute, spec: Any) -> Attribute:
    if isinstance(type, TensorType) and isinstance(spec, TensorSpec) and spec.defined:
        sizes = type.shape if type.rank == spec.rank else (None,) * spec.rank
        dtype = DTYPE_BY_TORCH_NAME[spec.dtype.name].element
        return type.with_(dtype=dtype, sizes=sizes, device=spec.device, requires_grad=spec.requires_grad)
    if isinstance(type, TupleType) and isinstance(spec, tuple) and len(spec) == len(type.types):
        elements = [_refine(t, s) for t, s in zip(type.types, spec)]
        qualname = None if isinstance(type.qualname, NoneAttr) else type.qualname.data
        names = [n.data for n in type.names]
        return TupleType(elements, names, qualname)  # pyright: ignore[reportArgumentType]
    return type


def _function(module: ModuleOp, name: str) -> func.FuncOp:
    return next(op for op in module.ops if isinstance(op, func.FuncOp) and op.sym_name.data == name)


def _parse_pipeline(pipeline: Pipeline) -> list[ModulePass]:
    if not isinstance(pipeline, str):
        return list(pipeline)
    if not pipeline.strip():
        return []
    return list(_parsed_pipeline(pipeline))


@functools.cache
def _parsed_pipeline(pipeline: str) -> tuple[ModulePass, ...]:
    """Parsed once per spec (passes are frozen values): finding the universe of passes
    costs milliseconds, and every executor parses its pipeline."""
    from tsjit.transforms.pipelines import parse_pipeline

    return parse_pipeline(pipeline)


# --------------------------------------------------------------------------------------
# Backends
# --------------------------------------------------------------------------------------

BACKENDS: dict[str, str] = {
    "interp": "tsjit.runtime.executor:GraphExecutor",
    "llvm": "tsjit.runtime.native:LLVMExecutor",
    "auto": "tsjit.runtime.native:AutoExecutor",
}
"""Backend name -> `module:ExecutorClass`, constructed as `(module, entry, pipeline)`."""


EXECUTORS = ("argspec", "profiling")
"""`argspec`: specialize per ArgumentSpec (this module); `profiling`: profile, then
specialize behind guards (`tsjit.runtime.profiling_executor`)."""


def make_executor(
    module: ModuleOp,
    entry: str = "forward",
    backend: str = "interp",
    pipeline: Pipeline = DEFAULT_PIPELINE,
    threads: int = 1,
    executor: str = "argspec",
    autograd: bool = False,
) -> Callable[..., Any]:
    """The `executor` of `backend` for `entry` (on `threads` threads where it can split
    work), recording gradients with `autograd`; a clear error for an unknown backend or
    one whose module this tsjit does not have yet."""
    if executor != "argspec":
        if executor != "profiling":
            raise TsjitError(f"unknown executor '{executor}' (executors: {', '.join(EXECUTORS)})")
        from tsjit.runtime.profiling_executor import ProfilingGraphExecutor

        return ProfilingGraphExecutor(module, entry, pipeline, backend, threads, autograd=autograd)
    target = BACKENDS.get(backend)
    if target is None:
        raise TsjitError(f"unknown backend '{backend}' (backends: {', '.join(BACKENDS)})")
    executor_class = _backend_class(target)
    if executor_class is None:
        available = ", ".join(name for name, t in BACKENDS.items() if _backend_class(t) is not None)
        raise TsjitError(
            f"backend '{backend}' is not available yet ({target} is missing); available: {available}"
        )
    options: dict[str, Any] = {"autograd": True} if autograd else {}
    if threads == 1:
        return executor_class(module, entry, pipeline, **options)
    if not executor_class.threaded:
        raise TsjitError(
            f"backend '{backend}' runs on one thread; threads need a native backend (llvm, auto)"
        )
    return executor_class(module, entry, pipeline, threads=threads, **options)


def _backend_class(target: str) -> type | None:
    module_name, _, class_name = target.partition(":")
    if importlib.util.find_spec(module_name) is None:
        return None
    return getattr(importlib.import_module(module_name), class_name, None)
