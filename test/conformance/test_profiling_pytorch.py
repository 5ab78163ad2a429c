"""tsjit's profiling executor specializes each conformance case as PyTorch's does: after
one profiling run with the inputs of the case's first recorded run, every graph input
that PyTorch's optimized graph checks (`prim::TypeCheck`, recorded by
`scripts/generate_profiling_data.py` with its TensorExpr fuser on the CPU) is checked by
tsjit's entry `profile.type_check` as the same type, and every input both profile
(PyTorch only where its fuser could use it) is seen as the same type. With PyTorch
installed, `-m interop` makes the same comparison against a live run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tsjit.dialects.profile import TypeCheckOp
from tsjit.frontend.annotations import type_str
from tsjit.runtime.errors import TorchScriptError
from tsjit.runtime.profiling_executor import ProfilingGraphExecutor
from tsjit.runtime.values import decode_value
from tsjit.tools.ts_run import load_program, module_receiver

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT.parent / "shared" / "conformance"
DATA = ROOT / "test" / "data" / "profiling" / "pytorch_profiles.json"


def recorded() -> dict[str, Any]:
    return json.loads(DATA.read_text(encoding="utf-8"))["cases"]


def tsjit_checked_types(case: Path) -> dict[str, str]:
    """Per graph input position, the type tsjit's optimized graph checks it as, after
    profiling the first recorded run and running it again."""
    io = json.loads((case / "io.json").read_text(encoding="utf-8"))
    path = case / "graph.txt"
    module = load_program(path)
    entry = io.get("entry", "forward")
    executor = ProfilingGraphExecutor(module, entry, runs=1, strategy=[("STATIC", 2), ("DYNAMIC", 10)])
    for _ in range(2):
        receiver = module_receiver(module, entry, None, path)
        inputs = [decode_value(v) for v in io["runs"][0]["inputs"]]
        try:
            executor(*([] if receiver is None else [receiver]), *inputs)
        except TorchScriptError:
            pass  # a run that raises profiles all the same
    assert executor.optimized_module is not None
    graph = executor.current_graph
    assert graph is not None
    checked: dict[str, str] = {}
    for op in graph.body.block.ops:
        if isinstance(op, TypeCheckOp):
            for value, expected in zip(op.checked, op.expected_types.data):
                checked[str(value.index)] = type_str(expected)  # pyright: ignore[reportAttributeAccessIssue]
    return checked


def compare(case: Path, pytorch: dict[str, Any]) -> None:
    checked = tsjit_checked_types(case)
    for position, types in pytorch["optimized"].items():
        assert checked.get(position) in types, f"input {position}: PyTorch checks {types}, tsjit {checked}"
    for position, types in pytorch["profiled"].items():
        executed = [t for t in types if not t.startswith("Tensor(")]  # a use that never ran
        if len(executed) == 1 and position in checked:
            assert checked[position] == executed[0], f"input {position}: PyTorch saw {executed[0]}"


CASES = sorted(recorded()) if DATA.is_file() else []


def test_the_recorded_data_covers_the_corpus():
    cases = {p.name for p in CORPUS.iterdir() if (p / "io.json").is_file()}
    assert cases <= set(CASES), f"cases without PyTorch's profile: {sorted(cases - set(CASES))}"
    assert sum(bool(c["optimized"]) for c in recorded().values()) >= 10


@pytest.mark.parametrize("name", CASES)
def test_specialized_input_types_are_pytorchs(name: str):
    compare(CORPUS / name, recorded()[name])


@pytest.mark.interop
@pytest.mark.parametrize("name", CASES)
def test_specialized_input_types_are_those_of_a_live_pytorch(name: str):
    pytest.importorskip("torch")
    import importlib.util

    spec = importlib.util.spec_from_file_location("generate_profiling_data", ROOT / "scripts" / "generate_profiling_data.py")
    assert spec is not None and spec.loader is not None
    generator = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generator)
    generator.configure()
    compare(CORPUS / name, generator.record(CORPUS / name))
