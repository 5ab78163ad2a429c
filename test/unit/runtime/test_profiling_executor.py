"""The profiling executor: profiling runs, the guarded specialization, guard failures
(dtype, rank, size under STATIC, requires_grad) giving the interpreter's results,
fallback levels and the bailout depth, the fusion strategy, what it shows (graph_for,
last_executed_optimized_graph, logging) and its errors."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import ArrayAttr, ModuleOp

import tsjit
from tsjit.context import make_context
from tsjit.diagnostics import TsjitError
from tsjit.dialects.prim import IfOp
from tsjit.dialects.profile import BailOutOp, ProfileOp, TypeCheckOp
from tsjit.dialects.types import IntType
from tsjit.formats.mlir import parse_mlir
from tsjit.runtime.autograd import Variable
from tsjit.runtime.errors import TorchScriptError
from tsjit.runtime.executor import GraphExecutor, make_executor
from tsjit.runtime.native import FusedGroup
from tsjit.runtime.profiling_executor import (
    ProfilingGraphExecutor,
    bailout_depth,
    fusion_behavior,
    fusion_strategy,
    last_executed_optimized_graph,
    profiling_runs,
    set_fusion_strategy,
    set_profiling_runs,
)
from tsjit.runtime.straight_line import StraightLineCode
from tsjit.transforms.pass_logging import TsjitPass

GRAPH = """
func.func @forward(%x : !ts.tensor, %y : !ts.tensor, %n : !ts.int) -> !ts.tensor {
  %zero = prim.Constant 0 : !ts.int
  %a = aten.mul %x, %y : (!ts.tensor, !ts.tensor) -> !ts.tensor
  %b = aten.add %a, %x, %n : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
  %s = aten.size %b, %zero : (!ts.tensor, !ts.int) -> !ts.int
  %c = aten.mul %b, %s : (!ts.tensor, !ts.int) -> !ts.tensor
  func.return %c : !ts.tensor
}"""


UNARY = """
func.func @forward(%x : !ts.tensor) -> !ts.tensor {
  %y = aten.tanh %x : (!ts.tensor) -> !ts.tensor
  %z = aten.exp %y : (!ts.tensor) -> !ts.tensor
  func.return %z : !ts.tensor
}"""
"""Ops with gradients, for calls that record them."""


def module(text: str = GRAPH) -> ModuleOp:
    return parse_mlir(make_context(), text, "test.mlir")


def inputs(shape: tuple[int, ...] = (2, 3), dtype: Any = np.float32, n: int = 2) -> tuple[Any, ...]:
    x = np.arange(np.prod(shape), dtype=dtype).reshape(shape)
    return x, x + 1, n


def interpreted(*args: Any, text: str = GRAPH) -> Any:
    arrays = [a.array if isinstance(a, Variable) else a for a in args]
    return GraphExecutor(module(text), "forward", ())(*arrays)


def requiring_grad(x: np.ndarray) -> Variable:
    """A tensor that requires grad, as the runtime holds it where gradients are recorded."""
    return Variable(x, requires_grad=True)


@pytest.fixture(params=["interp", "llvm"])
def backend(request: pytest.FixtureRequest) -> str:
    return request.param


def profiled(backend: str = "interp", **options: Any) -> ProfilingGraphExecutor:
    return ProfilingGraphExecutor(module(), "forward", backend=backend, **options)


def test_profiles_then_runs_the_graph_specialized_behind_a_check(backend: str):
    run = profiled(backend, runs=1)
    args = inputs()
    np.testing.assert_array_equal(run(*args), interpreted(*args))
    assert not run.optimized and run.profiled_runs == 1
    seen = [op.seen_types for op in run.profiled_module.walk() if isinstance(op, ProfileOp)]  # pyright: ignore[reportOptionalMemberAccess]
    assert seen and all(s is not None for s in seen)
    np.testing.assert_array_equal(run(*args), interpreted(*args))
    assert run.optimized
    graph = run.current_graph
    assert graph is not None
    check, guarded = [op for op in graph.body.block.ops if isinstance(op, TypeCheckOp | IfOp)][:2]
    assert isinstance(check, TypeCheckOp) and isinstance(guarded, IfOp)
    assert [str(t) for t in check.expected_types.data] == [
        '!ts.tensor<f32, [2, 3], strides = [3, 1], device = "cpu", requires_grad = false>'
    ] * 2
    assert any(isinstance(op, BailOutOp) for op in guarded.else_region.walk())
    # the size the graph asks for is a constant of the specialization
    assert not any(op.name == "aten.size" for op in guarded.then_region.walk())
    assert run.statistics() == {
        "calls": 2, "profiling_runs": 1, "guard_checks": 1, "guard_failures": 0, "specializations": 1,
    }  # fmt: skip


@pytest.mark.parametrize(
    ("text", "first", "changed", "autograd"),
    [
        pytest.param(GRAPH, inputs, lambda: inputs(dtype=np.float64), False, id="dtype"),
        pytest.param(GRAPH, inputs, lambda: inputs(shape=(6,)), False, id="rank"),
        pytest.param(GRAPH, inputs, lambda: inputs(shape=(4, 3)), False, id="size"),
        pytest.param(UNARY, lambda: inputs()[:1], lambda: (requiring_grad(inputs()[0]),), True, id="requires_grad"),
    ],
)
def test_a_failed_check_falls_back_with_the_interpreters_results(backend: str, text: str, first: Any, changed: Any,
                                                                 autograd: bool):  # fmt: skip
    run = ProfilingGraphExecutor(module(text), "forward", backend=backend, runs=1, strategy=[("STATIC", 2), ("DYNAMIC", 10)],
                                 autograd=autograd)  # fmt: skip
    run(*first())
    run(*first())
    for _ in range(3):  # the fallback profiles, then specializes to the new inputs
        other = changed()
        np.testing.assert_allclose(np.asarray(run(*other)), np.asarray(interpreted(*other, text=text)), rtol=1e-6)
    np.testing.assert_allclose(run(*first()), interpreted(*first(), text=text), rtol=1e-6)
    statistics = run.statistics()
    assert statistics["guard_failures"] == 3
    assert statistics["specializations"] == 2
    assert statistics["guard_checks"] == 5 + 2  # 5 optimized calls at the top, 2 in the fallback
    child = run.fallbacks[0].child
    assert child is not None and child.depth == run.depth - 1


def test_requires_grad_is_profiled_and_checked():
    run = ProfilingGraphExecutor(module(UNARY), "forward", runs=1, autograd=True)
    x = requiring_grad(inputs()[0])
    run(x)
    run(x)
    check = next(op for op in run.current_graph.walk() if isinstance(op, TypeCheckOp))  # pyright: ignore[reportOptionalMemberAccess]
    assert all(t.grad is True for t in check.expected_types.data)  # pyright: ignore[reportAttributeAccessIssue]
    run(inputs()[0])
    assert run.statistics()["guard_failures"] == 1


def test_dynamic_specializations_serve_every_size():
    run = profiled(runs=1, strategy=[("DYNAMIC", 3)])
    assert run.behavior == "DYNAMIC"
    run(*inputs())
    run(*inputs())
    for rows in (1, 4, 7):
        args = inputs(shape=(rows, 5))
        np.testing.assert_array_equal(run(*args), interpreted(*args))
    assert run.statistics()["guard_failures"] == 0
    run(*inputs(shape=(3,)))  # another rank still fails
    assert run.statistics()["guard_failures"] == 1


def test_static_levels_come_first_then_dynamic_then_the_unspecialized_graph():
    run = profiled(runs=1, strategy=[("STATIC", 2), ("DYNAMIC", 1)])
    for shape in ((1, 3), (2, 3), (3, 3), (4, 3), (5,), (6,)):
        args = inputs(shape=shape)
        for _ in range(2):
            np.testing.assert_array_equal(run(*args), interpreted(*args))
    behaviors = []
    executor: ProfilingGraphExecutor | None = run
    while executor is not None:
        behaviors.append(executor.behavior)
        executor = executor.fallbacks[0].child if executor.fallbacks else None
    assert behaviors == ["STATIC", "STATIC", "DYNAMIC", None]  # depth 0: no specialization, no check
    assert run.statistics()["specializations"] == 3


def test_fusion_behavior_counts_from_the_end_of_the_strategy():
    strategy = (("STATIC", 2), ("DYNAMIC", 10))
    assert bailout_depth(strategy) == 12
    assert [fusion_behavior(strategy, d) for d in (12, 11, 10, 1)] == ["STATIC", "STATIC", "DYNAMIC", "DYNAMIC"]


def test_settings_are_pytorchs_and_return_the_previous_ones():
    assert profiling_runs() == 1 and fusion_strategy() == (("STATIC", 2), ("DYNAMIC", 10))
    assert tsjit.set_profiling_runs(3) == 1
    try:
        assert profiled().profiling_runs == 3
    finally:
        assert set_profiling_runs(1) == 3
    previous = tsjit.set_fusion_strategy([("DYNAMIC", 4)])
    try:
        assert previous == [("STATIC", 2), ("DYNAMIC", 10)]
        assert profiled().depth == 4 and profiled().behavior == "DYNAMIC"
    finally:
        set_fusion_strategy(previous)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: set_profiling_runs(-1), "non-negative int"),
        (lambda: set_profiling_runs("2"), "non-negative int"),
        (lambda: set_fusion_strategy("STATIC"), "list of"),
        (lambda: set_fusion_strategy([("FAST", 2)]), "STATIC, DYNAMIC"),
        (lambda: set_fusion_strategy([("STATIC", -1)]), "non-negative int"),
        (lambda: set_fusion_strategy([("STATIC",)]), "pair"),
    ],
)
def test_bad_settings_are_clear_errors(call: Any, message: str):
    with pytest.raises(TsjitError, match=message):
        call()
    assert profiling_runs() == 1 and fusion_strategy() == (("STATIC", 2), ("DYNAMIC", 10))


def test_more_profiling_runs_merge_what_they_saw():
    run = profiled(runs=2)
    run(*inputs(shape=(2, 3)))
    run(*inputs(shape=(4, 3)))
    run(*inputs(shape=(5, 3)))
    check = next(op for op in run.current_graph.walk() if isinstance(op, TypeCheckOp))  # pyright: ignore[reportOptionalMemberAccess]
    assert str(check.expected_types.data[0]) == '!ts.tensor<f32, [?, 3], device = "cpu", requires_grad = false>'
    assert run.statistics()["guard_failures"] == 0


def test_no_profiling_runs_optimize_at_once_without_checks():
    run = profiled(runs=0)
    np.testing.assert_array_equal(run(*inputs()), interpreted(*inputs()))
    assert run.optimized and not run.fallbacks


def test_graph_for_runs_until_optimized_and_follows_failed_checks(backend: str):
    run = profiled(backend, runs=1)
    graph = run.graph_for(*inputs())
    assert run.optimized and graph is run.optimized_module
    other = run.graph_for(*inputs(shape=(5,)))
    assert other is not graph and other is run.fallbacks[0].child.optimized_module  # pyright: ignore[reportOptionalMemberAccess]


def test_last_executed_optimized_graph_is_the_profiled_then_the_optimized_graph():
    run = profiled(runs=1)
    run(*inputs())
    graph = last_executed_optimized_graph()
    assert graph is not None and any(isinstance(op, ProfileOp) for op in graph.walk())
    run(*inputs())
    graph = tsjit.last_executed_optimized_graph()
    assert graph is not None and any(isinstance(op, TypeCheckOp) for op in graph.walk())
    run(*inputs(shape=(7,)))  # a failed check: still the graph called from Python
    assert tsjit.last_executed_optimized_graph() is graph


def test_the_llvm_backend_plans_a_kernel_checked_by_the_guard_once():
    run = profiled("llvm", runs=1)
    for _ in range(4):
        np.testing.assert_array_equal(run(*inputs()), interpreted(*inputs()))
    assert isinstance(run._plan, StraightLineCode)  # pyright: ignore[reportPrivateUsage]
    groups = [n for n in run.program.natives.values() if isinstance(n, FusedGroup)]  # pyright: ignore[reportOptionalMemberAccess,reportAttributeAccessIssue]
    assert groups and any(g.plan_once for g in groups)
    assert run.backend.statistics()["kernel_calls"] >= 3


def strided(x: np.ndarray) -> np.ndarray:
    """`x`'s values in a view of another layout (every other element of a larger array)."""
    wider = np.zeros((*x.shape[:-1], 2 * x.shape[-1]), x.dtype)
    wider[..., ::2] = x
    return wider[..., ::2]


@pytest.mark.parametrize(
    ("shape", "changes"),
    [
        pytest.param((2, 3), [strided, np.asfortranarray, np.copy], id="rank 2"),
        pytest.param((6,), [strided, lambda x: x.reshape(2, 3), lambda x: x.reshape(1, 6), np.copy], id="rank 1"),
    ],
)
def test_the_fast_path_takes_only_what_the_check_accepts(backend: str, shape: tuple[int, ...], changes: list[Any]):
    """The optimized call's first test (the profiled arrays themselves) lets through
    only what the type check accepts: not another layout of the same elements, nor
    (where the element count stands for the sizes, at rank 1) another shape of as
    many elements. Those run the fallback with the interpreter's results; a copy runs
    the fast path. Calls and checks are counted on every path."""
    run = ProfilingGraphExecutor(module(), "forward", backend=backend, runs=1, strategy=[("STATIC", 1)])
    x, y, n = inputs(shape)
    run(x, y, n)
    run(x, y, n)
    for change in changes:
        other = change(x)
        np.testing.assert_array_equal(run(other, other, n), interpreted(other, other, n))
    np.testing.assert_array_equal(run(x, y, n), interpreted(x, y, n))
    statistics = run.statistics()
    assert statistics["calls"] == 2 + len(changes) + 1
    assert statistics["guard_checks"] == 1 + len(changes) + 1
    assert statistics["guard_failures"] == len(changes) - 1  # all but the copy
    with pytest.raises(TorchScriptError, match=r"forward\(\) is missing value for argument 'y'"):
        run(x)


def test_code_that_records_no_gradients_takes_no_variable_for_a_tensor(backend: str):
    """A Variable reaching an executor that records no gradients fails every check (the
    optimized code computes on arrays: a kernel would read the Variable as one) and
    gets the interpreter's error, as from the ArgumentSpec executor."""
    run = profiled(backend, runs=1)
    x, y, n = inputs()
    run(x, y, n)
    run(x, y, n)
    with pytest.raises(TorchScriptError, match="Variable"):
        run(Variable(x), Variable(y), n)
    assert run.statistics()["guard_failures"] == 1


def test_a_fixed_kernel_plan_is_the_groups_entry_and_falls_back_on_its_own():
    run = profiled("llvm", runs=1)
    x, y, n = inputs()
    run(x, y, n)
    run(x, y, n)
    (group,) = [g for g in run.program.natives.values() if isinstance(g, FusedGroup)]  # pyright: ignore[reportOptionalMemberAccess,reportAttributeAccessIssue]
    assert group.call != group.invoke  # the guarded code calls the plan itself
    calls = group.calls
    np.testing.assert_array_equal(group.call(x, y, n), run(x, y, n))
    assert group.calls == calls + 2
    # a scalar of another type than the IR said: ctypes rejects it, the group runs interpreted
    np.testing.assert_allclose(group.invoke(x, y, 2.5), group._interpreted()(x, y, 2.5))  # pyright: ignore[reportPrivateUsage]
    assert group.statistics()["fallbacks"] == 1


def test_logging_shows_the_profiled_and_optimized_graphs_and_each_guard_failure(monkeypatch, capsys):
    monkeypatch.setenv("TSJIT_LOG_LEVEL", "profiling_executor")
    run = profiled(runs=1)
    run(*inputs())
    run(*inputs())
    run(*inputs(shape=(4,)))
    err = capsys.readouterr().err
    assert "[DUMP profiling_executor] Profiled graph of forward after 1 run(s):" in err
    assert "[DUMP profiling_executor] Optimized graph of forward (STATIC, bailout depth 12):" in err
    assert "profile.profile[seen_types = [" in err
    assert (
        "[DUMP profiling_executor] guard failed in forward, running forward.fallback0: %x expected "
        '!ts.tensor<f32, [2, 3], strides = [3, 1], device = "cpu", requires_grad = false>, got '
        '!ts.tensor<f32, [4], strides = [1], device = "cpu", requires_grad = false>'
    ) in err


@dataclass(frozen=True)
class CorruptProfile(TsjitPass):
    """What a careless plugin might do: record an int as what a tensor use saw."""

    name: ClassVar[str] = "corrupt-profile"

    def run(self, ctx: Context, op: ModuleOp) -> None:
        profile = next(o for o in op.walk() if isinstance(o, ProfileOp))
        profile.properties["seen_types"] = ArrayAttr([IntType()])


class PluginExecutor(ProfilingGraphExecutor):
    def profiled_passes(self) -> list[Any]:
        return [CorruptProfile()]


def test_a_corrupt_profile_is_a_verifier_error_naming_the_op():
    run = PluginExecutor(module(), "forward")
    run(*inputs())
    with pytest.raises(TsjitError, match=r"'profile\.profile' op seen type !ts\.int of value 0 is not a subtype"):
        run(*inputs())


def test_executors_by_name(backend: str):
    run = make_executor(module(), "forward", backend, executor="profiling")
    assert isinstance(run, ProfilingGraphExecutor) and run.backend_name == backend
    assert isinstance(tsjit.compile(module(), executor="profiling").executor, ProfilingGraphExecutor)
    with pytest.raises(TsjitError, match="unknown executor 'jit' \\(executors: argspec, profiling\\)"):
        make_executor(module(), "forward", executor="jit")


def test_scripted_functions_run_through_the_profiling_executor_and_show_the_graph_for_their_inputs():
    def f(x, y):
        return x * y + 1.0

    scripted = tsjit.script(f)
    assert isinstance(scripted.executor(), ProfilingGraphExecutor)
    x = np.ones((2, 2), np.float32)
    graph = scripted.graph_for(x, x)
    assert graph.sym_name.data == scripted.name
    assert '!ts.tensor<f32, [2, 2], strides = [2, 1], device = "cpu", requires_grad = false>' in str(graph)
    np.testing.assert_array_equal(scripted(x, x), x * x + 1.0)
    assert tsjit.last_executed_optimized_graph() is not None
