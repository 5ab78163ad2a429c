"""Native code in the interpreter: fused groups and scalar functions run as LLVM kernels.

    forward = LLVMExecutor(module, "forward")          # or make_executor(..., backend="llvm")
    y = forward(x, h)

`LLVMExecutor` is the GraphExecutor of the `llvm` backend: after its pipeline
(`executor-default` unless told otherwise: fusion needs the dtypes and ranks that its
shape propagation finds) it fuses pointwise ops, outlines each
`prim.FusionGroup` into a function `<graph>.fusion<k>` called from the graph, and runs
the graph in the interpreter with those functions, and every function of numbers only,
replaced by native code (`NativeProgram`). `AutoExecutor` (`auto`) does the same where
it pays: groups of two or more ops, scalar functions with loops, and each kernel
compiled only when its group runs a second time, so code that runs once never waits
for LLVM.

A group's kernel (`convert_aten_to_loops.fusion_kernel`) is shape-generic; a
`FusedGroup` plans each distinct combination of input shapes, strides and dtypes once
(broadcast shape, result shapes, the strides each memref is given, which layout variant
to call) and then calls with the pointers in hand: about 3 µs per call in all. Results
are new arrays, except that one of `REUSE_BYTES` or more reuses the array of the
previous call when nothing else holds it any more: a fresh page costs more than the
kernel computing it (a page-faulted 1 MB result made the LSTM tail twice as slow; see
also `../shared/notes/performance.md`). Anything a kernel cannot do on the
values it gets (shapes that do not broadcast, a chunk that does not divide, a dtype the
types did not promise) runs the group in the interpreter instead, which raises what
TorchScript would; so does a scalar function whose native code raised.
"""

from __future__ import annotations

import ctypes
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, replace
from functools import cache, cached_property, partial
from typing import Any

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, f16, f32, f64, i1, i8, i16, i32, i64
from xdsl.passes import ModulePass, PassPipeline
from xdsl.rewriter import Rewriter
from xdsl.traits import SymbolTable

from tsjit.diagnostics import TsjitError
from tsjit.dialects.prim import ForkOp, FusionGroupOp, LoopOp, YieldOp
from tsjit.dialects.types import TupleType
from tsjit.runtime.code_cache import compile_generated
from tsjit.runtime.executor import DEFAULT_PIPELINE, GraphExecutor, Pipeline, argument_spec
from tsjit.runtime.interpreter import Code, Program
from tsjit.runtime.llvm_jit import SPLIT_ALIGNMENT, LLVMEngine, SplitCall, array_address
from tsjit.runtime.program_cache import ProgramCache, program_cache
from tsjit.transforms.lowering.convert_aten_to_loops import (
    FLAT,
    GroupSignature,
    KernelLayout,
    UnsupportedGroup,
    fusion_kernel,
    fusion_kernel_name,
    group_signature,
    is_scalar_function,
    scalar_function,
    stageable,
)
from tsjit.transforms.lowering.elementwise_table import Kind

REUSE_BYTES = 1 << 16
"""Results from this size on reuse the previous call's array when it is free again."""

STAGE_BYTES = 1 << 16
"""Kernels stage chunked rows (`KernelLayout.staged`) of up to this many bytes in all:
the row buffers live on the kernel's stack."""

STAGE_FROM_BYTES = 1 << 23
"""... and only when the chunked inputs are this large, beyond the caches closest to the
core: with the next row prefetched, staging made the LSTM tail 1.2x faster at 1M gate
elements (8 MB of chunked inputs), 1.9x at 4M and 1.8x at 16M, and 1.15x slower at 64K,
whose inputs are in cache and only pay for the copy."""


@cache
def default_engine() -> LLVMEngine:
    """The process's kernel cache: identical kernels compile once, whoever asks."""
    return LLVMEngine()


# --------------------------------------------------------------------------------------
# Executors
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class NativePolicy:
    """What runs natively: groups of at least `min_ops` elementwise ops, scalar
    functions (`loops_only`: only those with a loop), kernels compiled on a group's
    `compile_after`-th call; a flat kernel of `split_from` elements or more runs on
    `threads` threads, each on a slice (ctypes releases the GIL during the call)."""

    min_ops: int = 1
    loops_only: bool = False
    compile_after: int = 1
    threads: int = 1
    split_from: int = 1 << 20


class LLVMExecutor(GraphExecutor):
    """The GraphExecutor with fused groups and scalar functions as native code;
    `threads` splits large flat kernels (see `NativePolicy`)."""

    policy = NativePolicy()
    threaded = True

    def __init__(
        self,
        module: ModuleOp,
        entry: str = "forward",
        pipeline: Pipeline = DEFAULT_PIPELINE,
        engine: LLVMEngine | None = None,
        threads: int = 1,
        autograd: bool = False,
    ):
        super().__init__(module, entry, pipeline, autograd)
        self.engine = engine or default_engine()
        self.programs: list[NativeProgram] = []
        self._storing = threading.local()
        """The program cache key of the specialization this thread is making."""
        if threads < 1:
            raise TsjitError(f"threads must be 1 or more, not {threads}")
        if threads != self.policy.threads:
            self.policy = replace(self.policy, threads=threads)

    def twin(self, autograd: bool) -> LLVMExecutor:
        return type(self)(self.module, self.entry, self.pipeline, self.engine, self.policy.threads, autograd)

    @cached_property
    def _programs(self) -> ProgramCache | None:
        """Where compiled programs persist (`program_cache`); None for executors whose
        specialization the key would not describe."""
        own = type(self).specialization_passes is LLVMExecutor.specialization_passes
        if self.autograd or not own or type(self).make_program is not LLVMExecutor.make_program:
            return None
        return program_cache(
            self.engine.disk_cache, self.module, self.entry, self._passes, type(self).__qualname__, self.policy
        )

    def _specialize(self, args: Sequence[Any]) -> tuple[ModuleOp, Code]:
        """The GraphExecutor's specialization, loaded from the program cache when an
        earlier process stored it there, else made and stored."""
        programs = self._programs
        if programs is None:
            return super()._specialize(args)
        spec = argument_spec(self.arguments.full(tuple(args)))
        key = programs.key(spec)
        if key is None:
            return super()._specialize(args)
        with self._lock:
            if (entry := self._cache.get(spec)) is not None:
                return entry
            if (loaded := programs.load(key)) is not None:
                program = self._native_program(loaded.module, key, loaded.facts.get("groups"), loaded.bodies)
                entry = self._cache[spec] = (loaded.module, program.function(self.entry))
                return entry
        self._storing.key = key
        try:
            return super()._specialize(args)
        finally:
            self._storing.key = None

    def specialization_passes(self) -> list[ModulePass]:
        from tsjit.transforms.fuse_pointwise import FusePointwisePass
        from tsjit.transforms.inline import InlinePass

        # forked calls inlined first, so that the forked work fuses into native kernels too
        fork_inlining = [InlinePass(forks=True)] if self._has_forks else []
        fuse = FusePointwisePass(min_ops=self.policy.min_ops, autograd=self.autograd)
        return [*fork_inlining, *super().specialization_passes(), fuse]

    @cached_property
    def _has_forks(self) -> bool:
        return any(isinstance(op, ForkOp) for op in self.module.walk())

    def make_program(self, module: ModuleOp) -> NativeProgram:
        """The program of a specialized module; stored in the program cache as it runs,
        its groups outlined (a later process then neither outlines nor reads them)."""
        key, programs = getattr(self._storing, "key", None), self._programs
        program = self._native_program(module, key)  # outlines the groups
        if key is not None and programs is not None:
            groups = program.group_signatures()
            native = [name for name, signature in groups.items() if signature is not None]
            if (stored := programs.dump(key, module, lazy=native)) is not None:
                programs.store(key, stored, {"groups": groups})
        return program

    def _native_program(
        self,
        module: ModuleOp,
        key: str | None,
        groups: dict[str, GroupSignature | None] | None = None,
        bodies: dict[str, Callable[[], func.FuncOp]] | None = None,
    ) -> NativeProgram:
        program = NativeProgram(module, self.engine, self.policy, self.autograd, key, groups, bodies)
        self.programs.append(program)
        return program

    def graph_for(self, *args: Any) -> ModuleOp:
        """The module that runs, whole: with the bodies a program loaded from the cache
        reads only when it needs them."""
        module = super().graph_for(*args)
        for program in self.programs:
            if program.module is module:
                program.load_bodies()
        return module

    def statistics(self) -> dict[str, int]:
        """Native calls, interpreter fallbacks and kernels compiled, over every
        specialization so far."""
        totals = {"kernel_calls": 0, "fallbacks": 0, "kernels": 0, "scalar_calls": 0}
        for program in self.programs:
            for native in program.natives.values():
                for key, count in native.statistics().items():
                    totals[key] += count
        return totals


class AutoExecutor(LLVMExecutor):
    """Native code where it pays off (see the module docstring)."""

    policy = NativePolicy(min_ops=2, loops_only=True, compile_after=2)


def export_llvm(module: ModuleOp, optimized: bool = False) -> str:
    """The LLVM IR of a program's native code (`ts-translate --export-llvm`): the
    kernel of each FusionGroup, fused here when the program has none yet, and each
    function of numbers; `optimized` as LLVM's O3 pipeline leaves it for this CPU."""
    from tsjit.context import make_context
    from tsjit.runtime.llvm_jit import llvm_ir
    from tsjit.transforms.fuse_pointwise import FusePointwisePass
    from tsjit.transforms.lowering.convert_aten_to_loops import ConvertAtenToLoopsPass

    native = module.clone()
    passes: list[ModulePass] = [ConvertAtenToLoopsPass()]
    if not any(isinstance(op, FusionGroupOp) for op in native.walk()):
        passes.insert(0, FusePointwisePass())
    PassPipeline(tuple(passes)).apply(make_context(), native)
    return llvm_ir(native, optimized)


# --------------------------------------------------------------------------------------
# The program: interpreter plus native functions
# --------------------------------------------------------------------------------------


class NativeProgram(Program):
    """A Program whose fusion groups (outlined into functions) and scalar functions
    run natively; every other function is interpreted as usual."""

    def __init__(
        self,
        module: ModuleOp,
        engine: LLVMEngine,
        policy: NativePolicy,
        autograd: bool = False,
        program_key: str | None = None,
        groups: dict[str, GroupSignature | None] | None = None,
        bodies: dict[str, Callable[[], func.FuncOp]] | None = None,
    ):
        """`program_key` names the program in the program cache, whose kernels are then
        found by their place in it. `groups` comes with a module loaded from there, its
        groups outlined already: the signature of each outlined group's kernel by
        function name (None: the group has none); a group itself is rebuilt from its
        function only when its kernel must be built (`regroup`). `bodies` loads the
        body of each function that the module only declares, when it is first needed
        (`ProgramCache.load`)."""
        self.natives: dict[str, FusedGroup | NativeFunction] = {}
        self._bodies = dict(bodies or {})
        if groups is None:
            outlined = outline_fusion_groups(module)
            signatures = dict.fromkeys(outlined)
            made: dict[str, Callable[[], FusionGroupOp]] = {
                name: partial(_same, group) for name, group in outlined.items()
            }
        else:
            signatures = groups
            made = {name: partial(self._regroup, name) for name, signature in groups.items() if signature}
        super().__init__(module, autograd)
        self._groups = tuple(signatures)
        for name, group in made.items():
            with _unless_unsupported():
                self.natives[name] = FusedGroup(
                    group, engine, policy, self.interpreted(name), _known(program_key, name), signatures[name]
                )
        for op in module.ops:
            if isinstance(op, func.FuncOp) and op.sym_name.data not in signatures and is_scalar_function(op):
                if policy.loops_only and not any(isinstance(o, LoopOp) for o in op.walk()):
                    continue
                with _unless_unsupported():
                    self.natives[op.sym_name.data] = NativeFunction(
                        op, engine, self.interpreted(op.sym_name.data), _known(program_key, op.sym_name.data)
                    )

    def group_signatures(self) -> dict[str, GroupSignature | None]:
        """By outlined group's function: the signature of its kernel, None when it has
        none (the `groups` of a program loaded from the cache)."""
        return {
            name: native.signature if isinstance(native := self.natives.get(name), FusedGroup) else None
            for name in self._groups
        }

    def function(self, name: str, autograd: bool | None = None) -> Any:
        """The native function `name` when there is one, else its interpreted code."""
        native = self.natives.get(name)
        return native if native is not None else self._interpreted(name, autograd)

    def interpreted(self, name: str) -> Callable[[], Code]:
        """The interpreted code of `name`, compiled on first use (fallbacks are rare);
        native code computes on arrays, so its fallback records no gradients."""
        return partial(self._interpreted, name, False)

    def _interpreted(self, name: str, autograd: bool | None) -> Code:
        self.load_body(name)
        return Program.function(self, name, autograd)

    def is_declaration(self, name: str) -> bool:
        return name not in self._bodies and super().is_declaration(name)

    def load_body(self, name: str) -> None:
        """Puts the body of function `name` in place of its declaration, when the
        module came without it (see `bodies`)."""
        with self._lock:
            load = self._bodies.pop(name, None)
            if load is None:
                return
            function = load()
            declaration = self._functions[name]
            self.module.body.block.insert_op_before(function, declaration)
            declaration.detach()
            declaration.erase()
            self._functions[name] = function

    def load_bodies(self) -> None:
        """Every function's body in place (the whole module, for someone to read)."""
        for name in list(self._bodies):
            self.load_body(name)

    def _regroup(self, name: str) -> FusionGroupOp:
        with self._lock:  # another thread may be putting a body in place
            self.load_body(name)
            return regroup(self.module, name)


Known = tuple[str, str] | None
"""A kernel's place in a cached program: the program's key and the function's name
(`LLVMEngine.compile_known`); None outside the program cache."""


def _known(program_key: str | None, name: str) -> Known:
    return None if program_key is None else (program_key, name)


@contextmanager
def _unless_unsupported() -> Iterator[None]:
    """Code no kernel computes stays interpreted: a FusionGroup made elsewhere (graph text
    of PyTorch's fuser, a hand-written one) with ops outside the elementwise table, or a
    scalar function with an integer power of a run-time exponent."""
    with suppress(UnsupportedGroup, ValueError):
        yield


def outline_fusion_groups(module: ModuleOp) -> dict[str, FusionGroupOp]:
    """Moves the body of each FusionGroup into a function `<graph>.fusion<k>` that the
    graph calls instead (at the group's location); returns a copy of each group by
    function name."""
    groups: dict[str, FusionGroupOp] = {}
    for graph in [op for op in module.ops if isinstance(op, func.FuncOp) and not op.is_declaration]:
        for index, group in enumerate([op for op in graph.walk() if isinstance(op, FusionGroupOp)]):
            name = fusion_kernel_name(graph.sym_name.data, index)
            groups[name] = group.clone()
            inputs = [v.type for v in group.inputs]
            outputs = [r.type for r in group.outs]
            body = Rewriter.move_region_contents_to_new_regions(group.body)
            terminator = body.block.last_op
            assert isinstance(terminator, YieldOp)
            Rewriter.replace_op(terminator, func.ReturnOp(*terminator.operands))
            module.body.block.add_op(func.FuncOp(name, (inputs, outputs), body))
            call = func.CallOp(name, list(group.inputs), outputs)
            call.location = group.location
            Rewriter.replace_op(group, call)
    return groups


def regroup(module: ModuleOp, name: str) -> FusionGroupOp:
    """The FusionGroup that `outline_fusion_groups` moved into function `name`, rebuilt
    from that function and its call (a copy: `module` is left as it is)."""
    function = SymbolTable.lookup_symbol(module, name)
    calls = (op for op in module.walk() if isinstance(op, func.CallOp) and op.callee.string_value() == name)
    call = next(calls, None)
    if not isinstance(function, func.FuncOp) or function.is_declaration or call is None:
        raise ValueError(f"no outlined fusion group '{name}' in the program")
    body = function.body.clone()
    terminator = body.block.last_op
    assert isinstance(terminator, func.ReturnOp)
    Rewriter.replace_op(terminator, YieldOp(*terminator.operands))
    group = FusionGroupOp(list(call.arguments), list(call.res.types), body)
    group.location = call.location
    return group


def _same(group: FusionGroupOp) -> FusionGroupOp:
    return group


# --------------------------------------------------------------------------------------
# Scalar functions
# --------------------------------------------------------------------------------------


class NativeFunction:
    """A function of numbers compiled whole. Its native code returns whether the
    TorchScript code would have raised; then the interpreter reruns the call to raise
    exactly that (the function has no side effects to repeat)."""

    def __init__(
        self, function: func.FuncOp, engine: LLVMEngine, interpreted: Callable[[], Code], known: Known = None
    ):
        name = function.sym_name.data
        if known is None:
            compiled = engine.compile(ModuleOp([scalar_function(function)]))
        else:
            compiled = engine.compile_known(known[0], (known[1],), lambda: ModuleOp([scalar_function(function)]))
        self._kernel = compiled[name]
        self._interpreted = interpreted
        outputs = function.function_type.outputs.data
        self._returns = (
            "nothing" if not outputs else "tuple" if isinstance(outputs[0], TupleType) else "value"
        )
        self.calls = 0
        self.fallbacks = 0

    def __call__(self, *args: Any) -> Any:
        return self.invoke(*args)

    def invoke(self, *args: Any) -> Any:
        self.calls += 1
        try:
            returned = self._kernel(*args)
        except (TypeError, ctypes.ArgumentError):  # an argument ctypes cannot pass as declared
            returned = (True,)
        if self._returns == "nothing":
            returned = (returned,)  # the raised flag alone
        if returned[0]:
            self.fallbacks += 1
            return self._interpreted().invoke(*args)
        if self._returns == "value":
            return returned[1]
        return tuple(returned[1:]) if self._returns == "tuple" else None

    def run(self, args: Sequence[Any]) -> Any:
        return self.invoke(*args)

    def statistics(self) -> dict[str, int]:
        return {"scalar_calls": self.calls, "fallbacks": self.fallbacks}


# --------------------------------------------------------------------------------------
# Fused groups
# --------------------------------------------------------------------------------------


class Unplannable(Exception):
    """Values a kernel cannot take; the group runs in the interpreter."""


def numpy_dtype(kind: Kind) -> np.dtype:
    """The numpy dtype of a kernel element; Unplannable for kinds numpy lacks (bf16)."""
    dtype = _NUMPY_DTYPES.get((kind.type, kind.unsigned))
    if dtype is None:
        raise Unplannable
    return dtype


_NUMPY_DTYPES = {
    (f16, False): np.dtype(np.float16),
    (f32, False): np.dtype(np.float32),
    (f64, False): np.dtype(np.float64),
    (i1, False): np.dtype(np.bool_),
    (i8, False): np.dtype(np.int8),
    (i8, True): np.dtype(np.uint8),
    (i16, False): np.dtype(np.int16),
    (i32, False): np.dtype(np.int32),
    (i64, False): np.dtype(np.int64),
}


class FusedGroup:
    """One FusionGroup's kernels and its call plans (see the module docstring)."""

    def __init__(
        self,
        group: Callable[[], FusionGroupOp],
        engine: LLVMEngine,
        policy: NativePolicy,
        interpreted: Callable[[], Code],
        known: Known = None,
        signature: GroupSignature | None = None,
    ):
        """`group` makes the group, asked for its signature unless it is given and
        otherwise only when a kernel is built."""
        self._make_group = group
        self.known = known
        self.signature = group_signature(self.group) if signature is None else signature
        self.engine = engine
        self.policy = policy
        self.compile_after = policy.compile_after
        self._interpreted = interpreted
        self._plans: dict[tuple[Any, ...], CallPlan | None] = {}
        self._kernels: dict[KernelLayout, Callable[..., Any]] = {}
        self._lock = threading.Lock()
        self._key = _plan_key(sorted({t.input for t in self.signature.tensors}))
        self._single = len(self.signature.outputs) == 1
        self._fixed: Callable[..., Any] | None = None
        self.plan_once = False
        """Set when a guard before the group checks the shapes, strides and dtypes of its
        tensor inputs: the plan of the first call then serves every call, unkeyed (the
        static-shape kernel of a STATIC specialization)."""
        self.call: Callable[..., Any] = self.invoke
        """The group's entry for code that looks it up at each call (`straight_line`):
        `invoke`, until a plan is fixed; then that plan itself, which takes the
        arguments positionally, counts the call and falls back on its own."""
        self.runs = 0
        self.calls = 0
        self.fallbacks = 0

    @cached_property
    def group(self) -> FusionGroupOp:
        return self._make_group()

    def __call__(self, *args: Any) -> Any:
        return self.invoke(*args)

    def run(self, args: Sequence[Any]) -> Any:
        return self.invoke(*args)

    def invoke(self, *args: Any) -> Any:
        fixed = self._fixed
        if fixed is not None:
            return fixed(*args)
        try:
            key = self._key(args)
        except AttributeError:  # not an array where the types promised a tensor
            key = None
        plan = self._plans.get(key, _MISSING) if key is not None else None
        if plan is _MISSING:
            self.runs += 1
            if self.runs < self.compile_after:
                return self.fallback(args)
            plan = self._plans[key] = self.plan(args)  # pyright: ignore[reportArgumentType]
            if self.plan_once and plan is not None:
                self._fixed = self.call = self.plan(args, fixed=True)
        if plan is None:
            return self.fallback(args)
        try:
            outputs = plan(args)
        except ctypes.ArgumentError:  # a scalar of another type than the IR said
            return self.fallback(args)
        self.calls += 1
        return outputs[0] if self._single else tuple(outputs)

    def fallback(self, args: Sequence[Any]) -> Any:
        """The group in the interpreter, numpy's error state set here: a caller that only
        runs kernels need not set it (`straight_line`)."""
        self.fallbacks += 1
        return self._interpreted()(*args)

    def statistics(self) -> dict[str, int]:
        return {"kernel_calls": self.calls, "fallbacks": self.fallbacks, "kernels": len(self._kernels)}

    def splitter(
        self, length: int, lengths: Sequence[int], pointers: Sequence[tuple[int, int]]
    ) -> SplitCall | None:
        """How a flat call on `length` elements is split over threads, if it is (see
        `SplitCall` for `lengths` and `pointers`)."""
        threads = self.policy.threads
        if threads <= 1 or length < max(self.policy.split_from, 2 * SPLIT_ALIGNMENT):
            return None
        return SplitCall.of(self.engine.pool(threads), length, threads, lengths, pointers)

    @property
    def layouts(self) -> tuple[KernelLayout, ...]:
        """The layouts of the kernels compiled so far."""
        return tuple(self._kernels)

    def kernel(self, layout: KernelLayout) -> Callable[..., Any]:
        """The raw native entry of the kernel in `layout`, compiled on first use."""
        with self._lock:
            raw = self._kernels.get(layout)
            if raw is None:
                name = "fused"
                known = self.known
                if known is None:
                    compiled = self.engine.compile(ModuleOp([fusion_kernel(self.group, name, layout)]))
                else:
                    build = lambda: ModuleOp([fusion_kernel(self.group, name, layout)])  # noqa: E731
                    compiled = self.engine.compile_known(known[0], (known[1], layout), build)
                raw = self._kernels[layout] = compiled[name].raw
            return raw

    def plan(self, args: Sequence[Any], fixed: bool = False) -> CallPlan | None:
        """The call plan for arguments like `args` (None: the kernel cannot take them);
        `fixed`: the group's fixed entry (see `call`) rather than a plan of `args`."""
        try:
            return plan_call(self.signature, args, self.kernel, self.splitter, self if fixed else None)
        except Unplannable:
            return None


_MISSING: Any = object()


def _plan_key(positions: list[int]) -> Callable[[Sequence[Any]], tuple[Any, ...]]:
    """What a call plan depends on: shape, strides and dtype of each tensor input, as
    one flat tuple built by straight-line code (a third of a generic comprehension)."""
    fields = "".join(f"args[{i}].shape, args[{i}].strides, args[{i}].dtype, " for i in positions)
    namespace: dict[str, Any] = {}
    source = f"def key(args):\n    return ({fields})\n"
    exec(compile_generated(source, "<plan key>"), namespace)  # noqa: S102 -- generated from the positions
    return namespace["key"]


CallPlan = Callable[[Sequence[Any]], list[np.ndarray]]
"""A kernel call for one combination of shapes, strides and dtypes, as straight-line
Python: the constant native arguments in place, pointers and scalars read from the
group's arguments, results allocated (or reused) with their shapes known."""


def _generate_call(
    raw: Callable[..., Any],
    template: list[int],
    inputs: list[tuple[int, int]],
    scalars: list[tuple[int, int]],
    outputs: list[tuple[int, tuple[int, ...], np.dtype, int]],
    result_count: int,
    split: SplitCall | None = None,
    entry_of: FusedGroup | None = None,
    arity: int = 0,
) -> CallPlan:
    """The call: `inputs` and `scalars` are (native slot, group input), `outputs` are
    (native slot, shape, dtype, group result); `split` runs it in slices on threads. A
    generated function costs half of a loop over these lists, which matters for
    kernels on small tensors. With `entry_of`, the call is that group's fixed entry
    (`FusedGroup.call`): its `arity` arguments are parameters (no tuple to build, no
    frame to unpack it), it returns the group's value, counts the call on the group
    and runs the group's fallback when ctypes rejects a scalar. The sizes, strides and
    result shapes are values of the closure that a generated `make` returns, not text:
    the source depends on the plan's structure only, so that one compile (and one entry
    of the code cache) serves every shape."""
    namespace: dict[str, Any] = {
        "raw": raw,
        "split": split,
        "empty": np.empty,
        "address": array_address,
        "refcount": sys.getrefcount,
        "reused": [None] * len(outputs),
        "group": entry_of,
        "ArgumentError": ctypes.ArgumentError,
    }
    argument = "a{}" if entry_of is not None else "args[{}]"
    natives = [f"c{i}" for i in range(len(template))]
    for slot, position in inputs:
        natives[slot] = f"address({argument.format(position)})"
    for slot, position in scalars:
        natives[slot] = argument.format(position)
    lines: list[str] = []
    results = ["None"] * result_count
    shapes: dict[str, tuple[int, ...]] = {}
    for k, (slot, shape, dtype, result) in enumerate(outputs):
        namespace[f"d{k}"] = dtype
        shapes[f"s{k}"] = shape
        if int(np.prod(shape)) * dtype.itemsize >= REUSE_BYTES:  # reuse it once only `reused` holds it
            lines += [
                f"o{k} = reused[{k}]",
                f"if o{k} is None or refcount(o{k}) > 3:",
                f"    o{k} = reused[{k}] = empty(s{k}, d{k})",
            ]
        else:
            lines.append(f"o{k} = empty(s{k}, d{k})")
        natives[slot] = f"address(o{k})"
        results[result] = f"o{k}"
    values = {f"c{i}": value for i, value in enumerate(template) if natives[i] == f"c{i}"} | shapes
    call = f"raw({', '.join(natives)})" if split is None else f"split(raw, [{', '.join(natives)}])"
    if entry_of is not None:  # the group's value: its one result, or the tuple of them
        returned = results[0] if result_count == 1 else f"({', '.join(results)},)"
        parameters = [f"a{i}" for i in range(arity)]
        arguments = f"({', '.join(parameters)}{',' if arity == 1 else ''})"
        lines += [
            "try:",
            f"    {call}",
            "except ArgumentError:  # a scalar of another type than the IR said",
            f"    return group.fallback({arguments})",
            "group.calls += 1",
            f"return {returned}",
        ]
        signature = f"def call({', '.join(parameters)}):\n"
    else:
        lines += [call, f"return [{', '.join(results)}]"]
        signature = "def call(args):\n"
    source = f"def make({', '.join(values)}):\n    {signature}"
    source += "".join(f"        {line}\n" for line in lines) + "    return call\n"
    exec(compile_generated(source, "<fused group call>"), namespace)  # noqa: S102 -- generated from the plan
    return namespace["make"](**values)


def plan_call(
    signature: GroupSignature,
    args: Sequence[Any],
    kernel: Callable[[KernelLayout], Callable[..., Any]],
    splitter: Callable[[int, Sequence[int], Sequence[tuple[int, int]]], SplitCall | None] | None = None,
    entry_of: FusedGroup | None = None,
) -> CallPlan:
    """Works out a call of `signature`'s kernel on `args` (see `FusedGroup`); raises
    Unplannable for values the kernel cannot take. A flat call on arrays long enough
    for `splitter` runs in slices on several threads. With `entry_of`, the call is that
    group's fixed entry (see `_generate_call`)."""
    rank = signature.rank
    arrays: dict[int, np.ndarray] = {}
    for param in signature.tensors:
        array = args[param.input]
        if (
            type(array) is not np.ndarray
            or array.dtype != numpy_dtype(param.kind)
            or array.ndim != param.rank
        ):
            raise Unplannable
        if any(s % array.itemsize for s in array.strides):
            raise Unplannable
        arrays[param.input] = array
    for param in signature.scalars:
        if not isinstance(args[param.input], int | float | bool):
            raise Unplannable

    atom_shapes: dict[Any, tuple[int, ...]] = {}
    chunked_shapes: list[tuple[int, ...]] = []
    for param in signature.tensors:
        if param.chunking is None:
            atom_shapes[("input", param.input)] = _aligned(arrays[param.input].shape, rank)
    for j, chunking in enumerate(signature.chunkings):
        whole = _broadcast([_aligned(arrays[i].shape, rank) for i in chunking.inputs])
        if whole[chunking.dim] % chunking.chunks:
            raise Unplannable
        chunked_shapes.append(whole)
        atom_shapes[("chunk", j)] = _replace(whole, chunking.dim, whole[chunking.dim] // chunking.chunks)
    iteration = _broadcast(list(atom_shapes.values()), rank)
    for j, chunking in enumerate(signature.chunkings):
        if atom_shapes[("chunk", j)][chunking.dim] != iteration[chunking.dim]:
            raise Unplannable  # pieces broadcast along the chunked dim: not an in-place read

    memrefs: list[tuple[tuple[int, ...], tuple[int, ...]]] = []  # (sizes, strides) per memref
    for param in signature.tensors:
        if param.chunking is None:
            target = iteration
        else:
            chunking = signature.chunkings[param.chunking]
            target = _replace(iteration, chunking.dim, iteration[chunking.dim] * chunking.chunks)
        memrefs.append((target, _broadcast_strides(arrays[param.input], target)))
    outputs: list[tuple[tuple[int, ...], np.dtype, tuple[int, ...]]] = []  # (shape, dtype, strides)
    full_outputs = True
    for output in signature.outputs:
        dtype = numpy_dtype(output.kind)
        if output.cat is not None:
            parts, dim = output.cat
            if any(
                _broadcast([atom_shapes[a] for a in atoms], rank) != iteration for atoms in output.part_atoms
            ):
                raise Unplannable  # parts of unequal shapes: the interpreter reports it
            shape = _replace(iteration, dim, iteration[dim] * parts)
            full_outputs = False
            memrefs.append((shape, _contiguous_strides(shape)))
        else:
            full = _broadcast([atom_shapes[a] for a in output.atoms], rank)
            full_outputs = full_outputs and full == iteration
            shape = full[rank - output.rank :]
            if 0 in iteration and 0 not in shape:
                raise Unplannable  # the loop runs no iteration, yet this output has elements
            strides = tuple(0 if f != n else s for f, n, s in zip(full, iteration, _contiguous_strides(full)))
            memrefs.append((iteration, strides))
        outputs.append((shape, dtype, memrefs[-1][1]))

    flat = (
        full_outputs
        and not signature.chunkings
        and all(
            arrays[p.input].shape == iteration and arrays[p.input].flags.c_contiguous
            for p in signature.tensors
        )
    )
    if flat or rank == 0:
        layout = FLAT
        iteration_sizes = [int(np.prod(iteration))]
        memref_natives = [[int(np.prod(iteration))] for _ in memrefs]
    else:
        layout = KernelLayout(False, tuple(_inner_class(strides[-1]) for _, strides in memrefs))
        layout = _staged_if_it_pays(signature, layout, iteration, memrefs)
        iteration_sizes = list(iteration)
        memref_natives = [
            [*sizes, *(s for s, static in zip(strides, _static_strides(layout, k, rank)) if static is None)]
            for k, (sizes, strides) in enumerate(memrefs)
        ]
    raw = kernel(layout)

    template: list[Any] = list(iteration_sizes)
    input_slots, scalar_slots, output_slots = [], [], []
    for param, natives in zip(signature.tensors, memref_natives, strict=False):
        input_slots.append((len(template), param.input))
        template += [0, *natives]
    for param in signature.scalars:
        scalar_slots.append((len(template), param.input))
        template.append(0)
    for output, natives, (shape, dtype, _) in zip(
        signature.outputs, memref_natives[len(signature.tensors) :], outputs, strict=True
    ):
        output_slots.append((len(template), shape, dtype, output.result))
        template += [0, *natives]
    split = None
    if layout.flat and splitter is not None:  # each memref is (pointer, length), after the length itself
        itemsizes = [arrays[param.input].itemsize for param in signature.tensors]
        itemsizes += [dtype.itemsize for _, dtype, _ in outputs]
        slots = [slot for slot, _ in input_slots] + [slot for slot, *_ in output_slots]
        lengths = (0, *(slot + 1 for slot in slots))
        split = splitter(iteration_sizes[0], lengths, list(zip(slots, itemsizes, strict=True)))
    return _generate_call(
        raw, template, input_slots, scalar_slots, output_slots, len(signature.outputs), split, entry_of, len(args)
    )


def _staged_if_it_pays(
    signature: GroupSignature,
    layout: KernelLayout,
    iteration: tuple[int, ...],
    memrefs: list[tuple[tuple[int, ...], tuple[int, ...]]],
) -> KernelLayout:
    """`layout` staging the stageable inputs whose rows move from one row of the
    iteration to the next (not broadcast rows such as biases, read from cache anyway),
    when their row buffers fit in `STAGE_BYTES` and they are `STAGE_FROM_BYTES` or more."""
    positions, row_bytes = [], 0
    for position in stageable(signature, layout):
        if any(memrefs[position][1][:-1]):
            param = signature.tensors[position]
            chunks = signature.chunkings[param.chunking].chunks  # pyright: ignore[reportArgumentType]
            positions.append(position)
            row_bytes += chunks * iteration[-1] * numpy_dtype(param.kind).itemsize
    rows = int(np.prod(iteration[:-1]))
    if 0 < row_bytes <= STAGE_BYTES and rows * row_bytes >= STAGE_FROM_BYTES:
        return replace(layout, staged=tuple(positions))
    return layout


def _static_strides(layout: KernelLayout, position: int, rank: int) -> list[int | None]:
    strides: list[int | None] = [None] * rank
    strides[-1] = layout.inner_strides[position]
    return strides


def _inner_class(stride: int) -> int | None:
    return stride if stride in (0, 1) else None


def _aligned(shape: tuple[int, ...], rank: int) -> tuple[int, ...]:
    return (1,) * (rank - len(shape)) + tuple(shape)


def _replace(shape: tuple[int, ...], dim: int, size: int) -> tuple[int, ...]:
    return (*shape[:dim], size, *shape[dim + 1 :])


def _broadcast(shapes: list[tuple[int, ...]], rank: int | None = None) -> tuple[int, ...]:
    try:
        result = np.broadcast_shapes(*shapes) if shapes else ()
    except ValueError:
        raise Unplannable from None
    return _aligned(result, rank) if rank is not None else result


def _broadcast_strides(array: np.ndarray, target: tuple[int, ...]) -> tuple[int, ...]:
    """Element strides presenting `array` at shape `target` (zero where it broadcasts)."""
    shape = _aligned(array.shape, len(target))
    strides = (0,) * (len(target) - array.ndim) + tuple(s // array.itemsize for s in array.strides)
    return tuple(0 if n != t else s for n, t, s in zip(shape, target, strides, strict=True))


def _contiguous_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    strides, running = [], 1
    for size in reversed(shape):
        strides.insert(0, running if size != 1 else 0)
        running *= size
    return tuple(strides)


__all__ = [
    "AutoExecutor",
    "FusedGroup",
    "LLVMExecutor",
    "NativeFunction",
    "NativePolicy",
    "NativeProgram",
    "default_engine",
    "export_llvm",
    "outline_fusion_groups",
    "regroup",
]
