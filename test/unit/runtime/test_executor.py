"""The GraphExecutor: ArgumentSpecs, the specialization cache, pipelines, backends."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, f64, i64
from xdsl.transforms.dead_code_elimination import DeadCodeElimination

from tsjit.context import make_context
from tsjit.diagnostics import TsjitError
from tsjit.dialects.types import TensorType, TupleType
from tsjit.formats.mlir import parse_mlir, verify
from tsjit.runtime import executor as executor_module
from tsjit.runtime.executor import UNDEFINED, GraphExecutor, TensorSpec, argument_spec, make_executor

F = "!ts.tensor"
GRAPH = f"""
func.func @forward(%x : {F}, %pair : !ts.tuple<{F}, !ts.int>, %k : !ts.int) -> {F} {{
  %y, %n = prim.TupleUnpack %pair : !ts.tuple<{F}, !ts.int> -> {F}, !ts.int
  %unused = aten.neg %x : ({F}) -> {F}
  %s = aten.add %x, %y, %k : ({F}, {F}, !ts.int) -> {F}
  func.return %s : {F}
}}"""


def module() -> ModuleOp:
    return parse_mlir(make_context(), GRAPH, "test.mlir")


def forward_of(m: ModuleOp) -> func.FuncOp:
    return next(op for op in m.ops if isinstance(op, func.FuncOp))


def test_argument_spec_covers_tensors_in_tuples_and_undefined_tensors():
    x = np.zeros((2, 3), np.float32)
    spec = argument_spec([x, (np.zeros(4, np.int64), 3), None, 2.5])
    assert spec == (
        TensorSpec(np.dtype(np.float32), 2),
        (TensorSpec(np.dtype(np.int64), 1), None),
        UNDEFINED,
        None,
    )
    assert spec[0].requires_grad is False and spec[0].device == "cpu" and spec[0].defined
    assert not UNDEFINED.defined


def test_one_specialization_per_argument_spec():
    run = GraphExecutor(module())
    one = (np.ones(2, np.float32), (np.ones(2, np.float32), 0), 1)
    assert run(*one)[0] == 2
    run(np.zeros(2, np.float32), (np.zeros(2, np.float32), 5), 3)
    assert run.cache_size == 1
    run(np.ones(2, np.float64), (np.ones(2, np.float32), 0), 1)
    run(np.ones((2, 2), np.float32), (np.ones(2, np.float32), 0), 1)
    assert run.cache_size == 3


def test_specialization_refines_tensor_inputs_and_leaves_the_graph_alone():
    original = module()
    before = str(original)
    run = GraphExecutor(original)
    specialized = run.graph_for(np.ones((2, 3), np.float64), (np.ones(3, np.int64), 1), 2)
    x, pair, _ = forward_of(specialized).body.block.args
    assert x.type == TensorType(f64, [None, None], device="cpu", requires_grad=False)
    refined_element = TensorType(i64, [None], device="cpu", requires_grad=False)
    assert pair.type == TupleType([refined_element, pair.type.types.data[1]])
    assert forward_of(specialized).function_type.inputs.data[0] == x.type
    assert x.name_hint == "x"
    assert str(original) == before


def test_the_pipeline_runs_on_each_specialization():
    args = (np.ones(2, np.float32), (np.ones(2, np.float32), 0), 1)
    for pipeline in ("dce", [DeadCodeElimination()]):
        specialized = GraphExecutor(module(), pipeline=pipeline).graph_for(*args)
        assert "aten.neg" not in str(specialized)
    assert "aten.neg" in str(GraphExecutor(module(), pipeline=()).graph_for(*args))
    assert "aten.neg" not in str(GraphExecutor(module()).graph_for(*args))  # executor-default cleans up


def test_pipelines_accept_mlir_spelling_and_reject_unknown_passes():
    args = (np.ones(2, np.float32), (np.ones(2, np.float32), 0), 1)
    specialized = GraphExecutor(module(), pipeline="builtin.module(func.func(dce))").graph_for(*args)
    assert "aten.neg" not in str(specialized)
    with pytest.raises(Exception, match="no-such-pass"):
        GraphExecutor(module(), pipeline="no-such-pass")


def test_an_unknown_entry_is_an_error():
    with pytest.raises(TsjitError, match="no function named 'main'"):
        GraphExecutor(module(), "main")


def test_backends_plug_in_by_module(monkeypatch: pytest.MonkeyPatch):
    run = make_executor(module(), "forward", "interp")
    assert isinstance(run, GraphExecutor)
    with pytest.raises(TsjitError, match=r"unknown backend 'gpu' \(backends: interp, "):
        make_executor(module(), "forward", "gpu")
    monkeypatch.setitem(executor_module.BACKENDS, "future", "tsjit.runtime.no_such_backend:Executor")
    with pytest.raises(TsjitError, match=r"backend 'future' is not available yet \(tsjit.runtime.no_such_"):
        make_executor(module(), "forward", "future")
    monkeypatch.setitem(executor_module.BACKENDS, "half", "tsjit.runtime.executor:NoSuchExecutor")
    with pytest.raises(TsjitError, match=r"backend 'half' is not available yet \(tsjit.runtime.executor:No"):
        make_executor(module(), "forward", "half")


def test_refined_input_types_drive_overload_resolution():
    """After specialization the graph still verifies and runs: refined tensor types
    are subtypes of the originals."""
    run = GraphExecutor(module())
    args = (np.full(3, 2, np.int64), (np.ones(3, np.int64), 0), 4)
    verify(run.graph_for(*args))
    result = run(*args)
    assert result.dtype == np.int64 and result.tolist() == [6, 6, 6]
