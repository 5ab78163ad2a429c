"""The profiling executor over the whole conformance corpus, with both backends: each
case runs its inputs twice in mixed order (first to last, then last to first), so the
executor profiles the first run, specializes to it, and every later run of another
shape or dtype fails a guard and takes a fallback, which profiles and specializes in
turn. Every result (values, raised exception kinds, arguments mutated in place) is the
plain interpreter's, guards are checked on every optimized call, and a case whose runs
differ in their tensors' types fails at least one guard."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tsjit.runtime.errors import TorchScriptError
from tsjit.runtime.executor import GraphExecutor
from tsjit.runtime.profiling_executor import ProfilingGraphExecutor
from tsjit.runtime.values import decode_value, match_value
from tsjit.tools.ts_run import load_program, module_receiver

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "conformance"
BACKENDS = ("interp", "llvm")


def corpus_cases() -> list[Any]:
    cases = sorted(p for p in CORPUS.iterdir() if (p / "io.json").is_file()) if CORPUS.is_dir() else []
    return [pytest.param(c, b, id=f"{c.name}/{b}") for c in cases for b in BACKENDS]


def test_the_corpus_is_present():
    assert corpus_cases(), f"the conformance corpus is missing: expected it at {CORPUS}"


def run(call: Any, inputs: list[Any]) -> tuple[Any, str | None]:
    try:
        return call(*inputs), None
    except TorchScriptError as error:
        return None, f"{error.kind}: {error.message}"


def tensor_types(encoded: list[Any]) -> tuple[Any, ...]:
    """The dtype and shape of each top-level tensor input of a run."""
    return tuple(
        (v["tensor"]["dtype"], tuple(v["tensor"]["shape"])) if "tensor" in v else None for v in encoded
    )


@pytest.mark.parametrize(("case", "backend"), corpus_cases())
def test_profiling_executor_gives_the_interpreters_results(case: Path, backend: str):
    io = json.loads((case / "io.json").read_text(encoding="utf-8"))
    entry = io.get("entry", "forward")
    path = case / "graph.txt"
    module = load_program(path)
    interpreted = GraphExecutor(module, entry, ())
    profiling = ProfilingGraphExecutor(module, entry, backend=backend, runs=1)
    receiver = module_receiver(module, entry, None, path)
    order = [*range(len(io["runs"])), *reversed(range(len(io["runs"])))]
    for index in order:
        recorded = io["runs"][index]
        results = []
        for executor in (interpreted, profiling):
            receiver_args = [] if receiver is None else [module_receiver(module, entry, None, path)]
            inputs = [decode_value(v, f"input {i}") for i, v in enumerate(recorded["inputs"])]
            results.append((*run(executor, [*receiver_args, *inputs]), inputs))
        (expected, expected_error, expected_inputs), (actual, actual_error, actual_inputs) = results
        assert actual_error == expected_error, f"run {index}"
        if expected_error is None:
            assert match_value(actual, expected, 1e-5, 1e-6, f"run {index}") is None
        for i, (after, before) in enumerate(zip(actual_inputs, expected_inputs, strict=True)):
            assert match_value(after, before, 1e-5, 1e-6, f"run {index} input {i} after the call") is None
    statistics = profiling.statistics()
    assert statistics["calls"] == len(order)
    assert statistics["profiling_runs"] >= 1
    if any(t is not None for r in io["runs"] for t in tensor_types(r["inputs"])):
        assert statistics["guard_checks"] >= len(order) - profiling.profiled_runs, statistics
    if len({tensor_types(r["inputs"]) for r in io["runs"]}) > 1:
        assert statistics["guard_failures"] >= 1, statistics
