"""Every case of the conformance corpus traced by `tsjit.trace` without PyTorch, against
what `torch.jit.trace` did with it (`test/data/traced/conformance.json`, written by
scripts/generate_traced_data.py): cases PyTorch cannot trace fail with one clear error;
cases whose trace depends on data give PyTorch's TracerWarning; every other case gives a
graph with the node kinds of PyTorch's traced graph (and of its inlined graph, for
modules) whose outputs are PyTorch's on every recorded run of the example's shapes.

A case the data does not cover (a held-out corpus) is checked against its io.json:
either it does not trace (one TraceError), or the traced function reproduces every
recorded run of the example's shapes unless the trace warned about data dependence.
Known differences are listed in KIND_DIFFERENCES with a reason each; the list only shrinks.
"""

from __future__ import annotations

import collections
import json
import warnings
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

import tsjit
from tsjit.context import make_context
from tsjit.diagnostics import TsjitError
from tsjit.frontend.script import run_user_file
from tsjit.frontend.source import SourceFile
from tsjit.frontend.tracer import TracerWarning
from tsjit.runtime.values import decode_value, match_value
from tsjit.transforms import PASSES

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT.parent / "shared" / "conformance"
RECORDED = ROOT / "test" / "data" / "traced" / "conformance.json"

KIND_DIFFERENCES: dict[str, str] = {}
"""Cases whose traced node kinds differ from PyTorch's, and why."""


@cache
def recorded() -> dict[str, Any]:
    return json.loads(RECORDED.read_text(encoding="utf-8"))["cases"]


def case_paths() -> list[Path]:
    if not CORPUS.is_dir():
        return []
    return sorted(p for p in CORPUS.iterdir() if (p / "source.py").is_file())


def target_of(case: Path) -> Any:
    """The case's `forward`, or its `Model` with the parameters of module.json, built
    on tsjit's torch shim."""
    path = case / "source.py"
    namespace = run_user_file(SourceFile(str(path), path.read_text(encoding="utf-8")))
    if "Model" not in namespace:
        return namespace["forward"]
    model = namespace["Model"]()
    state = json.loads((case / "module.json").read_text(encoding="utf-8"))
    tables = {**dict(model.named_parameters()), **dict(model.named_buffers())}
    for name, value in {**state.get("parameters", {}), **state.get("buffers", {})}.items():
        tables[name].array[...] = decode_value(value)
    return model


def io_runs(case: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    io = json.loads((case / "io.json").read_text(encoding="utf-8"))
    return io, io["runs"]


def shapes(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return ("tensor", value.shape, value.dtype.name)
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(shapes(v) for v in value))
    return ("value", type(value).__name__)


def traced_kinds(module: ModuleOp, entry: str) -> collections.Counter[str]:
    function = next(op for op in module.ops if isinstance(op, func.FuncOp) and op.sym_name.data == entry)
    kinds: collections.Counter[str] = collections.Counter()
    for op in function.walk():
        if op is function or op.name in ("func.return", "prim.Yield"):
            continue
        if op.name == "func.call":  # PyTorch's prim::CallFunction of a Function constant
            kinds.update(["prim::CallFunction", "prim::Constant"])
            continue
        namespace, _, kind = op.name.partition(".")
        kinds[f"{namespace}::{kind}"] += 1
    return kinds


def inlined(module: ModuleOp) -> ModuleOp:
    copied = module.clone()
    PASSES["inline"]()().apply(make_context(), copied)
    return copied


def trace_case(case: Path, example: dict[str, Any]) -> tuple[Any, list[str]]:
    inputs = tuple(decode_value(v) for v in example["inputs"])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        traced = tsjit.trace(target_of(case), inputs)
    messages = sorted({str(w.message) for w in caught if issubclass(w.category, TracerWarning)})
    return traced, messages


def check_outputs(traced: Any, io: dict[str, Any], runs: list[dict[str, Any]], numbers: list[int],
                  expected: dict[str, Any]) -> list[str]:  # fmt: skip
    failures = []
    for number in numbers:
        inputs = [decode_value(v) for v in runs[number]["inputs"]]
        result = traced(*inputs)
        mismatch = match_value(result, decode_value(expected[str(number)]), io["rtol"], io["atol"])
        if mismatch is not None:
            failures.append(f"run {number}: {mismatch}")
    return failures


@pytest.mark.parametrize("case", case_paths(), ids=lambda p: p.name)
def test_trace_matches_pytorch(case: Path):
    io, runs = io_runs(case)
    record = recorded().get(case.name)
    if record is None:
        check_held_out(case, io, runs)
        return
    example = runs[record["example"]] if "example" in record else None
    if not record["traces"]:
        with pytest.raises(TsjitError) as raised:
            trace_case(case, example or runs[0])
        assert "\n" not in raised.value.message
        return
    traced, messages = trace_case(case, example)
    if record["data_dependent"]:
        assert messages, "PyTorch warned that the trace depends on data; tsjit did not"
        return
    assert not messages, messages
    kinds = traced_kinds(traced.module, traced.name)
    expected = collections.Counter(record["kinds"])
    if case.name in KIND_DIFFERENCES:
        assert kinds != expected, f"{case.name} now matches: remove it from KIND_DIFFERENCES"
    else:
        assert kinds == expected, f"extra {dict(kinds - expected)}, missing {dict(expected - kinds)}"
        if record["module"]:
            flat = traced_kinds(inlined(traced.module), traced.name)
            expected_flat = collections.Counter(record["inlined_kinds"])
            assert flat == expected_flat, f"inlined: extra {dict(flat - expected_flat)}, missing {dict(expected_flat - flat)}"
    failures = check_outputs(traced, io, runs, [int(n) for n in record["outputs"]], record["outputs"])
    assert not failures, "\n".join(failures)


def check_held_out(case: Path, io: dict[str, Any], runs: list[dict[str, Any]]) -> None:
    """A case without recorded traces: it fails to trace with one clear error, or its
    trace reproduces io.json on every run shaped like the example."""
    example = next((r for r in runs if "outputs" in r), None)
    if example is None:
        return
    try:
        traced, messages = trace_case(case, example)
    except TsjitError as error:
        assert "\n" not in error.message
        return
    if messages:
        return
    example_shapes = shapes(tuple(decode_value(v) for v in example["inputs"]))
    numbers = [
        i for i, r in enumerate(runs)
        if "outputs" in r and shapes(tuple(decode_value(v) for v in r["inputs"])) == example_shapes
    ]  # fmt: skip
    failures = check_outputs(traced, io, runs, numbers, {str(i): runs[i]["outputs"] for i in numbers})
    assert not failures, "\n".join(failures)


def test_the_recorded_cases_are_the_corpus():
    names = {p.name for p in case_paths()}
    assert names, f"the conformance corpus is missing: expected it at {CORPUS}"
    assert set(recorded()) <= names


@pytest.mark.interop
@pytest.mark.parametrize("case", case_paths(), ids=lambda p: p.name)
def test_pytorch_traces_import_with_their_node_kinds_and_outputs(case: Path):
    """With PyTorch installed, `tsjit.trace` of the case written against real torch
    imports PyTorch's own trace: the recorded kinds, the recorded outputs."""
    import importlib.util

    torch = pytest.importorskip("torch")
    assert not torch.__version__.endswith("tsjit-shim"), "interop tests need the real PyTorch"
    record = recorded().get(case.name)
    if record is None or not record["traces"] or record["data_dependent"]:
        return
    io, runs = io_runs(case)
    spec = importlib.util.spec_from_file_location(f"traced_{case.name}", case / "source.py")
    assert spec is not None and spec.loader is not None
    source = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(source)
    if record["module"]:
        target = source.Model()
        state = json.loads((case / "module.json").read_text(encoding="utf-8"))
        tables = {**dict(target.named_parameters()), **dict(target.named_buffers())}
        with torch.no_grad():
            for name, value in {**state.get("parameters", {}), **state.get("buffers", {})}.items():
                tables[name].copy_(torch.from_numpy(np.array(decode_value(value))))
    else:
        target = source.forward
    inputs = tuple(torch.from_numpy(np.array(decode_value(v))) for v in runs[record["example"]]["inputs"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        traced = tsjit.trace(target, inputs)
    assert traced_kinds(traced.module, traced.name) == collections.Counter(record["kinds"])
    failures = check_outputs(traced, io, runs, [int(n) for n in record["outputs"]], record["outputs"])
    assert not failures, "\n".join(failures)
