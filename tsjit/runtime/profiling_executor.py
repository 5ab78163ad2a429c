"""The profiling GraphExecutor: profile, specialize behind guards, bail out, respecialize.

TorchScript's ProfilingGraphExecutor (JIT overview, "Graph Executor"; PyTorch's
`profiling_graph_executor_impl.cpp`) on tsjit's passes:

1. The first `profiling_runs` calls (`tsjit.set_profiling_runs`, default 1) run the
   graph, after the profiling-insensitive cleanup, with a `profile.profile` on every
   tensor use (`insert-profiling`); the interpreter records what each use saw.
2. The next call builds the optimized graph: `insert-guards` checks the inputs against
   their profiled types (`profile.type_check`) and runs the graph specialized to them,
   else bails out to the unoptimized graph (`profile.bailout` → `<graph>.fallback0`,
   PyTorch's fallback function); the backend's pipeline then optimizes the specialized
   graph (shape propagation, the peepholes, fusion into llvm kernels).
3. A failed check runs the fallback through a profiling executor of its own, one
   bailout level deeper, made on the first failure: it profiles the inputs that failed,
   then specializes to them. The levels are PyTorch's bailout depth, the sum of the
   fusion strategy's counts (`tsjit.set_fusion_strategy`, default `[("STATIC", 2),
   ("DYNAMIC", 10)]`): the first levels check exact sizes and strides (STATIC), the
   later ones dtype, rank, device and requires_grad only (DYNAMIC: one specialization
   serves every shape). At depth 0 the graph runs unspecialized.

Once optimized, a call is the optimized code's own: `__call__` is the generated
function of the loop-free specialized graph (`straight_line`), which counts the call,
checks the arguments and the guard at once and calls the kernels; code with loops runs
as the interpreter's (or native) code after the check.

    forward = ProfilingGraphExecutor(module, "forward", backend="llvm")
    forward(x, h); forward(x, h)          # profiles, then optimizes
    print(forward.graph_for(x, h))        # the module that runs for these inputs

`TSJIT_LOG_LEVEL=profiling_executor` dumps each profiled graph (with what it saw), each
optimized graph and every guard failure.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from operator import attrgetter
from typing import Any

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass

from tsjit.diagnostics import TsjitError
from tsjit.dialects.profile import fallback_name
from tsjit.nesting import retry_deeply
from tsjit.runtime.arguments import ArgumentCheck
from tsjit.runtime.executor import DEFAULT_PIPELINE, Pipeline, make_executor
from tsjit.runtime.interpreter import Program

# --------------------------------------------------------------------------------------
# Settings (process-wide, as PyTorch's)
# --------------------------------------------------------------------------------------

BEHAVIORS = ("STATIC", "DYNAMIC")
DEFAULT_FUSION_STRATEGY: tuple[tuple[str, int], ...] = (("STATIC", 2), ("DYNAMIC", 10))

_settings: dict[str, Any] = {"profiling_runs": 1, "fusion_strategy": DEFAULT_FUSION_STRATEGY}


def set_profiling_runs(runs: int) -> int:
    """How many calls a new executor profiles before it optimizes (PyTorch's
    `_jit_set_num_profiled_runs`, default 1); returns the previous setting."""
    if isinstance(runs, bool) or not isinstance(runs, int) or runs < 0:
        raise TsjitError(f"set_profiling_runs expects a non-negative int, got {runs!r}")
    previous = _settings["profiling_runs"]
    _settings["profiling_runs"] = runs
    return previous


def profiling_runs() -> int:
    return _settings["profiling_runs"]


def set_fusion_strategy(strategy: Sequence[tuple[str, int]]) -> list[tuple[str, int]]:
    """`torch.jit.set_fusion_strategy`: pairs (`"STATIC"` or `"DYNAMIC"`, count), in
    order: the first `count` specializations of a function behave as the first pair
    says, and so on; their counts summed are the bailout depth. Returns the previous
    strategy."""
    pairs = _checked_strategy(strategy)
    previous = list(_settings["fusion_strategy"])
    _settings["fusion_strategy"] = pairs
    return previous


def fusion_strategy() -> tuple[tuple[str, int], ...]:
    return _settings["fusion_strategy"]


def _checked_strategy(strategy: Any) -> tuple[tuple[str, int], ...]:
    if isinstance(strategy, str | bytes) or not isinstance(strategy, Sequence):
        raise TsjitError(f"a fusion strategy is a list of (behavior, count) pairs, got {strategy!r}")
    pairs: list[tuple[str, int]] = []
    for item in strategy:
        if not isinstance(item, Sequence) or isinstance(item, str) or len(item) != 2:
            raise TsjitError(f"a fusion strategy entry is a (behavior, count) pair, got {item!r}")
        behavior, count = item
        if behavior not in BEHAVIORS:
            raise TsjitError(f"fusion behavior must be one of {', '.join(BEHAVIORS)}, got {behavior!r}")
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise TsjitError(f"the count of a fusion strategy entry must be a non-negative int, got {count!r}")
        pairs.append((behavior, count))
    return tuple(pairs)


def bailout_depth(strategy: Sequence[tuple[str, int]]) -> int:
    """PyTorch's instantiated bailout depth: the strategy's counts summed."""
    return sum(count for _, count in strategy)


def fusion_behavior(strategy: Sequence[tuple[str, int]], remaining_depth: int) -> str:
    """The behavior of a specialization made with `remaining_depth` levels left
    (PyTorch's `getCurrentBehavior`): counted from the end of the strategy."""
    depth = 0
    for behavior, count in reversed(strategy):
        depth += count
        if remaining_depth <= depth:
            return behavior
    return "STATIC"


# --------------------------------------------------------------------------------------
# Logging and the last executed graph
# --------------------------------------------------------------------------------------

LOG_STEM = "profiling_executor"


def _log_level() -> Any:
    from tsjit.transforms.pass_logging import LOG_LEVEL_VARIABLES, _setting, parse_log_levels

    return parse_log_levels(_setting(LOG_LEVEL_VARIABLES)[1]).get(LOG_STEM)


def _log(text: str) -> None:
    from tsjit.transforms.pass_logging import LogLevel, PassLog

    PassLog(LOG_STEM, (LOG_STEM,), LogLevel.DUMP).write(LogLevel.DUMP, text)


_last: list[Any] = [None]
"""The executor called last from Python. PyTorch keeps one per thread; one per process
is the same for code calling from one thread, and costs a list store per call where a
thread-local store costs about 0.08 µs, a tenth of the fast path's overhead."""


def last_executed_optimized_graph() -> func.FuncOp | None:
    """The graph the last call from Python ran (`torch.jit.last_executed_optimized_graph`,
    but of the last call in any thread): the profiled graph while profiling, then the
    optimized one; None before any call of a profiling executor."""
    executor = _last[0]
    return None if executor is None else executor.current_graph


# --------------------------------------------------------------------------------------
# The executor
# --------------------------------------------------------------------------------------


class ProfilingGraphExecutor:
    """Runs the function `entry` of `module` (never modified) through the stages of the
    module docstring, with `backend`'s pipeline and programs (`interp`, `llvm`, `auto`)."""

    def __init__(
        self,
        module: ModuleOp,
        entry: str = "forward",
        pipeline: Pipeline = DEFAULT_PIPELINE,
        backend: str = "interp",
        threads: int = 1,
        *,
        remaining_depth: int | None = None,
        runs: int | None = None,
        strategy: Sequence[tuple[str, int]] | None = None,
        backend_executor: Any = None,
        instrumented: ModuleOp | None = None,
        autograd: bool = False,
    ):
        self.module = module
        self.entry = entry
        self.pipeline = pipeline
        self.backend_name = backend
        self.threads = threads
        self.backend = backend_executor or make_executor(
            module, entry, backend, pipeline, threads, autograd=autograd
        )
        self.arguments = self.backend.arguments
        """The backend's ArgumentSpec executor, whose hooks give the specialization
        passes and the programs (nothing is run through it); fallbacks share it."""
        self._instrumented = instrumented
        """A profiled module of `entry` to start from (its records are cleared), rather
        than instrumenting anew: a fallback starts from its parent's."""
        self.strategy = fusion_strategy() if strategy is None else _checked_strategy(strategy)
        self.depth = bailout_depth(self.strategy) if remaining_depth is None else remaining_depth
        self.profiling_runs = profiling_runs() if runs is None else runs
        self.behavior = fusion_behavior(self.strategy, self.depth) if self.depth > 0 else None
        self.calls = 0
        self.profiled_runs = 0
        self.profiled_module: ModuleOp | None = None
        self.optimized_module: ModuleOp | None = None
        self.fallbacks: list[Fallback] = []
        self.program: Program | None = None
        """The program of the optimized plan, once there is one."""
        self._calls_before_plan = 0
        self._profiled_code: Any = None
        self._plan: Any = None
        self._call: Callable[..., Any] = self._unplanned_call
        """What a call from Python runs (see `__call__`): `_unplanned_call` until there is a
        plan, then the plan's entry, which does `_unplanned_call`'s bookkeeping itself."""
        self._guard: tuple[tuple[int, ...], Any] | None = None
        self._lock = threading.RLock()
        self._logging = _log_level() is not None

    def autograd_executor(self) -> ProfilingGraphExecutor:
        """A profiling executor of this graph that records gradients (`tsjit.grad`)."""
        twin = getattr(self, "_autograd_twin", None)
        if twin is None:
            twin = self._autograd_twin = type(self)(
                self.module, self.entry, self.pipeline, self.backend_name, self.threads, autograd=True
            )
        return twin

    # -- calls -----------------------------------------------------------------------
    __call__ = property(attrgetter("_call"))
    """A call from Python runs `_call` itself: looked up by C code, with no Python frame
    of the executor's own between the caller and the guarded code."""

    def _unplanned_call(self, *args: Any) -> Any:
        _last[0] = self
        self.calls += 1
        return self._first_calls(args, False)

    def invoke(self, *args: Any) -> Any:
        """A call from running code (a bailout): numpy's error state is set."""
        self.calls += 1
        plan = self._plan
        if plan is not None:
            return plan.invoke(*args)
        return self._first_calls(args, True)

    def run(self, args: Sequence[Any]) -> Any:
        return self.invoke(*args)

    def _first_calls(self, args: Sequence[Any], invoked: bool) -> Any:
        args = self.arguments.full(tuple(args))  # what no guard has checked yet
        with self._lock:
            plan = self._plan
            if plan is None:
                if self.depth <= 0:
                    plan = self._set_plan(retry_deeply(self._simple_plan))
                elif self.profiled_runs >= self.profiling_runs:
                    plan = self._set_plan(retry_deeply(self._optimized_plan))
                else:
                    if self._profiled_code is None:
                        self._profiled_code = retry_deeply(self._profiled_plan)
                    self.profiled_runs += 1
                    plan = self._profiled_code
        if invoked:
            return plan.invoke(*args)
        if getattr(plan, "prologue", None) == BOOKKEEPING:
            self.calls -= 1  # the plan's entry counts the call itself
        return plan(*args)

    def _set_plan(self, plan: Any) -> Any:
        self._calls_before_plan = self.calls - 1
        self._plan = plan
        if getattr(plan, "prologue", None) == BOOKKEEPING:
            self._call = plan.call  # checks the arguments, counts and records the call
        else:
            call = getattr(plan, "call", plan)
            if not getattr(plan, "checks_arguments", False) and not isinstance(plan, _FullyChecked):
                call = _checking(call, self.arguments.check)
            self._call = _entered(self, call)
        return plan

    # -- what is shown -----------------------------------------------------------------
    @property
    def current_module(self) -> ModuleOp | None:
        """The module of the plan that runs now: optimized, else profiled."""
        return self.optimized_module if self._plan is not None else self.profiled_module

    @property
    def current_graph(self) -> func.FuncOp | None:
        module = self.current_module
        return None if module is None else _function(module, self.entry)

    @property
    def optimized(self) -> bool:
        return self._plan is not None

    def graph_for(self, *args: Any) -> ModuleOp:
        """The module that runs for these arguments, after running them until this
        executor (and the fallback their check sends them to) is optimized."""
        while self._plan is None:
            self(*args)
        if self._guard is not None:
            positions, matches = self._guard
            if not matches(*(args[p] for p in positions)):
                return self.fallbacks[0].executor().graph_for(*args)
        assert self.optimized_module is not None
        return self.optimized_module

    def statistics(self) -> dict[str, int]:
        """Over this executor and the fallbacks under it: calls, profiling runs, guard
        checks and failures (an entry check per optimized call), specializations made."""
        checks = self.calls - self._calls_before_plan if self._guard is not None and self._plan else 0
        totals = {
            "calls": self.calls,
            "profiling_runs": self.profiled_runs,
            "guard_checks": checks,
            "guard_failures": sum(f.calls for f in self.fallbacks),
            "specializations": int(self.optimized_module is not None and self.depth > 0),
        }
        for fallback in self.fallbacks:
            if fallback.child is not None:
                for key, count in fallback.child.statistics().items():
                    if key != "calls":
                        totals[key] += count
        return totals

    # -- plans -----------------------------------------------------------------------
    def profiling_insensitive_passes(self) -> list[ModulePass]:
        """What runs before profiling (PyTorch's `runProfilingInsensitiveOptimizations`):
        the cleanup, unless the pipeline is empty (the graph runs as written)."""
        if not self.backend.specialization_passes():
            return []
        from tsjit.transforms.pipelines import TorchScriptCleanupPass

        return [TorchScriptCleanupPass()]

    def profiled_passes(self) -> list[ModulePass]:
        """Passes run on the profiled graph before guards are inserted (a hook: e.g.
        differentiable subgraphs from profiled requires_grad)."""
        return []

    def _profiled_plan(self) -> Any:
        from tsjit.dialects.profile import ProfileOp
        from tsjit.transforms.insert_profiling import InsertProfilingPass

        if self._instrumented is not None:
            module = self._instrumented.clone()
            for op in module.walk():
                if isinstance(op, ProfileOp):
                    op.properties.pop("seen_types", None)
        else:
            module = self.module.clone()
            _apply([*self.profiling_insensitive_passes(), InsertProfilingPass(function=self.entry)], module)
        self.profiled_module = module
        return Program(module, self.backend.autograd).function(self.entry)

    def _simple_plan(self) -> Any:
        module = self.module.clone()
        _apply(self.backend.specialization_passes(), module)
        self.optimized_module = module
        if self._logging:
            _log(f"Optimized graph of {self.entry} (bailout depth exhausted, unspecialized):\n{_text(module)}")
        self.program = self.backend.make_program(module)
        return _FullyChecked(_fast(self.program.function(self.entry)), self.arguments.full)

    def _optimized_plan(self) -> Any:
        from tsjit.dialects.profile import ProfileOp, TypeCheckOp
        from tsjit.transforms.insert_guards import InsertGuardsPass

        if self.profiled_module is None:  # no profiling runs: nothing was seen
            self._profiled_plan()
        assert self.profiled_module is not None
        if self._logging:
            runs = self.profiled_runs
            _log(f"Profiled graph of {self.entry} after {runs} run(s):\n{_text(self.profiled_module)}")
        module = self.profiled_module.clone()
        _apply(self.profiled_passes(), module)
        _verify_ops(module, ProfileOp)  # a profile edited into nonsense is an error naming its op
        before = {op.sym_name.data for op in module.ops if isinstance(op, func.FuncOp)}
        _apply([InsertGuardsPass(dynamic=self.behavior == "DYNAMIC", function=self.entry)], module)
        fallbacks: dict[str, Fallback] = {}
        for op in list(module.ops):
            if isinstance(op, func.FuncOp) and op.sym_name.data not in before:
                fallbacks[op.sym_name.data] = Fallback(self, op.clone())
                declaration = func.FuncOp.external(op.sym_name.data, op.function_type.inputs.data,
                                                   op.function_type.outputs.data)  # fmt: skip
                module.body.block.insert_op_before(declaration, op)
                module.body.block.erase_op(op)
        self.fallbacks = list(fallbacks.values())
        self._guard = _entry_guard(_function(module, self.entry))
        _apply(self.backend.specialization_passes(), module)
        _verify_ops(module, TypeCheckOp)  # the checks the fast path trusts are consistent
        self.optimized_module = module
        if self._logging:
            _log(
                f"Optimized graph of {self.entry} ({self.behavior}, bailout depth {self.depth}):\n{_text(module)}"
            )
        static = guarded_static_groups(_function(module, self.entry)) if self.behavior == "STATIC" else []
        program = self.program = self.backend.make_program(module)
        for name, fallback in fallbacks.items():
            program.provide(name, fallback)
        for name in static:
            native = getattr(program, "natives", {}).get(name)
            if hasattr(native, "plan_once"):
                native.plan_once = True  # pyright: ignore[reportOptionalMemberAccess]
        return _fast(program.function(self.entry), self.arguments, self)

    def child(self, function: func.FuncOp) -> ProfilingGraphExecutor:
        """A profiling executor one level deeper for the fallback `function`. The
        fallback of the whole graph is the graph as it was before profiling: the child
        runs this executor's own module and entry; another fallback runs beside this
        module's functions."""
        instrumented = None
        if function.sym_name.data == fallback_name(self.entry, 0):
            module, entry, instrumented = self.module, self.entry, self.profiled_module
        else:
            module = self.module.clone()
            module.body.block.add_op(function.clone())
            entry = function.sym_name.data
        return type(self)(
            module,
            entry,
            self.pipeline,
            self.backend_name,
            self.threads,
            remaining_depth=self.depth - 1,
            runs=self.profiling_runs,
            strategy=self.strategy,
            backend_executor=self.backend,
            instrumented=instrumented,
        )


class Fallback:
    """A fallback of a guarded graph, as the optimized code calls it: the unoptimized
    graph, run by a profiling executor one level deeper, made on the first failure."""

    def __init__(self, owner: ProfilingGraphExecutor, function: func.FuncOp):
        self.owner = owner
        self.function = function
        self.name = function.sym_name.data
        self.child: ProfilingGraphExecutor | None = None
        self.calls = 0
        self._lock = threading.Lock()

    def executor(self) -> ProfilingGraphExecutor:
        child = self.child
        if child is None:
            with self._lock:
                if self.child is None:
                    self.child = self.owner.child(self.function)
                child = self.child
        return child

    def invoke(self, *args: Any) -> Any:
        self.calls += 1
        if self.owner._logging:  # pyright: ignore[reportPrivateUsage]
            _log(f"guard failed in {self.owner.entry}, running {self.name}: {_mismatch(self.owner, args)}")
        return self.executor().invoke(*args)

    def run(self, args: Sequence[Any]) -> Any:
        return self.invoke(*args)


# --------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------


def _apply(passes: Sequence[ModulePass], module: ModuleOp) -> None:
    if not passes:
        return
    from xdsl.passes import PassPipeline

    from tsjit.context import make_context

    PassPipeline(tuple(passes)).apply(make_context(), module)


def _verify_ops(module: ModuleOp, kind: type[Operation]) -> None:
    """Verifies the ops of `kind` (cheaper than the whole module); an error names the
    op and its location."""
    from tsjit.formats.mlir import verify

    for op in module.walk():
        if isinstance(op, kind):
            verify(op)


def _function(module: ModuleOp, name: str) -> func.FuncOp:
    return next(op for op in module.ops if isinstance(op, func.FuncOp) and op.sym_name.data == name)


def _text(module: Operation) -> str:
    from tsjit.transforms.pass_logging import module_text

    return module_text(module)


class _FullyChecked:
    """An unspecialized plan, which no guard protects: its arguments get the full check."""

    def __init__(self, plan: Any, check: Callable[[tuple[Any, ...]], tuple[Any, ...]]):
        self.plan = plan
        self.check = check

    def __call__(self, *args: Any) -> Any:
        return self.plan(*self.check(args))

    def invoke(self, *args: Any) -> Any:
        return self.plan.invoke(*self.check(args))

    def run(self, args: Sequence[Any]) -> Any:
        return self.invoke(*args)


BOOKKEEPING = ("last[0] = executor", "executor.calls += 1")
"""What a call from Python records before it runs (as `_unplanned_call`): the executor
called last, and the number of calls."""


def _fast(code: Any, arguments: ArgumentCheck | None = None, executor: ProfilingGraphExecutor | None = None) -> Any:
    """Interpreted code as one Python function where it has no loops (whose call from
    outside checks `arguments` and does the `BOOKKEEPING` of `executor`)."""
    from tsjit.runtime.interpreter import Code
    from tsjit.runtime.straight_line import straight_line

    if not isinstance(code, Code):
        return code
    if executor is None:
        return straight_line(code, arguments) or code
    return straight_line(code, arguments, BOOKKEEPING, {"last": _last, "executor": executor}) or code


def _checking(call: Callable[..., Any], check: Callable[[tuple[Any, ...]], tuple[Any, ...]]) -> Callable[..., Any]:
    """`call`, after the check of its arguments."""

    def checked_call(*args: Any) -> Any:
        return call(*check(args))

    return checked_call


def _entered(executor: ProfilingGraphExecutor, call: Callable[..., Any]) -> Callable[..., Any]:
    """`call`, after the `BOOKKEEPING` of a call of `executor` from Python."""

    def entered(*args: Any) -> Any:
        _last[0] = executor
        executor.calls += 1
        return call(*args)

    return entered


def guarded_static_groups(graph: func.FuncOp) -> list[str]:
    """The kernel names (as the llvm backend outlines them) of the FusionGroups of
    `graph` whose tensor inputs are all values its entry check refined to fully known
    sizes, strides and dtypes, which nothing but a bailout may write (a write could
    change their shape): their first call plan serves every call."""
    from tsjit.dialects.prim import FusionGroupOp
    from tsjit.dialects.profile import BailOutOp, TypeCheckOp
    from tsjit.dialects.types import TensorType
    from tsjit.transforms.analysis.alias_analysis import AliasDb
    from tsjit.transforms.lowering.convert_aten_to_loops import fusion_kernel_name

    check = next((op for op in graph.body.block.ops if isinstance(op, TypeCheckOp)), None)
    if check is None:
        return []
    static = {
        value
        for value, t in zip(check.refined, check.expected_types.data)
        if isinstance(t, TensorType) and t.element_type is not None and t.stride_values is not None
        and t.shape is not None and None not in t.shape
    }  # fmt: skip
    groups = [op for op in graph.walk() if isinstance(op, FusionGroupOp)]
    names: list[str] = []
    db: AliasDb | None = None
    for index, group in enumerate(groups):
        tensors = [v for v in group.inputs if isinstance(v.type, TensorType)]
        if not tensors or any(v not in static for v in tensors):
            continue
        db = db or AliasDb(graph)
        memory = frozenset().union(*(db.memory_of(v) for v in tensors))
        if not any(
            not op.regions and not isinstance(op, BailOutOp) and not db.writes(op).isdisjoint(memory)
            for op in graph.walk()
        ):
            names.append(fusion_kernel_name(graph.sym_name.data, index))
    return names


def _entry_guard(graph: func.FuncOp) -> tuple[tuple[int, ...], Any] | None:
    """The positions the entry check reads and a function telling whether values there
    match, from the graph's `profile.type_check` of its inputs (None: no check)."""
    from tsjit.dialects.profile import TypeCheckOp
    from tsjit.runtime.profiling import matches

    block = graph.body.block
    for op in block.ops:
        if isinstance(op, TypeCheckOp) and all(getattr(v, "block", None) is block for v in op.checked):
            positions = tuple(v.index for v in op.checked)  # pyright: ignore[reportAttributeAccessIssue]
            return positions, matches(op.expected_types.data)
    return None


def _mismatch(executor: ProfilingGraphExecutor, args: Sequence[Any]) -> str:
    """Which checked inputs differ from what was expected, for the log."""
    from tsjit.dialects.profile import TypeCheckOp
    from tsjit.runtime.profiling import matches, observe, observed_type

    module = executor.optimized_module
    if module is None:
        return "no optimized graph"
    graph = _function(module, executor.entry)
    check = next((op for op in graph.body.block.ops if isinstance(op, TypeCheckOp)), None)
    if check is None:
        return "a check failed"
    parts = []
    for value, want in zip(check.checked, check.expected_types.data):
        index = getattr(value, "index", None)
        if index is None or index >= len(args):
            continue
        if not matches([want])(args[index]):
            name = value.name_hint or f"input {index}"
            parts.append(f"%{name} expected {want}, got {observed_type(observe(args[index]))}")
    return "; ".join(parts) or "a check failed"
