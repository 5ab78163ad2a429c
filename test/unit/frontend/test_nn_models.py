"""The three everyday `torch.nn` models of examples/models.py (a small CNN with
MaxPool2d, a TransformerEncoderLayer, an LSTM model), scripted by `tsjit.script` on
tsjit's torch shim and run on both backends, give the outputs PyTorch 2.13 recorded for
them (test/data/traced: the models' source, their weights, inputs and outputs, written by
scripts/generate_traced_data.py). `make modules` runs them too."""

from __future__ import annotations

import json
import os
from functools import cache
from pathlib import Path
from typing import Any

import pytest

import tsjit
from tsjit.frontend.script import run_user_file
from tsjit.frontend.source import SourceFile
from tsjit.runtime.values import decode_value, match_value

DATA = Path(__file__).resolve().parents[2] / "data" / "traced"
FULL = os.environ.get("TSJIT_MODULES") == "full"
UNOPTIMIZED_IN_MAKE_TEST = ("Encoder",)
"""Models `make test` interprets without the profiling executor's optimizations: they take
seconds on the encoder's graph (~1,100 operations, multi-head attention inlined), which
`make modules` (and `make archives`, as PyTorch's archive) runs through them."""


@cache
def records() -> dict[str, Any]:
    return json.loads((DATA / "models.json").read_text(encoding="utf-8"))["models"]


@cache
def scripted_model(name: str) -> Any:
    """Model `name` with PyTorch's weights, scripted (once per test run)."""
    path = DATA / "models.py"
    model = run_user_file(SourceFile(str(path), path.read_text(encoding="utf-8")))[name]().eval()
    record = records()[name]
    tables = {**dict(model.named_parameters()), **dict(model.named_buffers())}
    for key, encoded in {**record["parameters"], **record["buffers"]}.items():
        tables[key].array[...] = decode_value(encoded)
    return tsjit.script(model)


@pytest.mark.parametrize("backend", ["interp", "llvm"])
@pytest.mark.parametrize("name", ["SmallCNN", "Encoder", "Recurrent"])
def test_everyday_model_scripts_and_runs_like_pytorch(name: str, backend: str):
    record = records()[name]
    scripted = scripted_model(name)
    if backend == "interp" and (FULL or name not in UNOPTIMIZED_IN_MAKE_TEST):
        run = scripted  # the profiling executor, as users call it
    elif backend == "interp":  # the interpreter on the scripted graph, without the executor's optimizations
        unoptimized = tsjit.compile(scripted.module, scripted.name, pipeline=())

        def run(x: Any) -> Any:
            return unoptimized(*scripted.executor_arguments((x,)))

    else:
        native = tsjit.compile(scripted.module, scripted.name, backend="llvm")

        def run(x: Any) -> Any:
            return native(*scripted.executor_arguments((x,)))

    for encoded_input, encoded_output in zip(record["inputs"], record["outputs"]):
        x = decode_value(encoded_input)
        expected = decode_value(encoded_output)
        for _ in range(2):  # the executor profiles on its first call, then runs optimized code
            problem = match_value(run(x), expected, 1e-4, 1e-5)
            assert problem is None, f"{name} on {backend}: {problem}"
