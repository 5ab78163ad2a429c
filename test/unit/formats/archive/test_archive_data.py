"""Every archive of test/data/archives (saved by PyTorch 2.13 with
scripts/generate_archive_data.py: the conformance corpus as modules, and real torch.nn
models) loads, runs with both backends and gives what `torch.jit.load` computed, and
names its parameters and buffers as PyTorch does.

`make test` runs every archive on the interpreter and a sample on the llvm backend;
`make archives` (`TSJIT_ARCHIVES=full`) runs every archive on both, known failures
included. `TSJIT_ARCHIVE_DATA=DIR` checks the archives the same script wrote to DIR
instead (a larger held-out set: `generate_archive_data.py CORPUS DIR`). Known failures
are listed with their reasons in expected_failures.txt; archives whose code takes
seconds to optimize (a transformer's) run only in the full sweep.
"""

from __future__ import annotations

import json
import os
from functools import cache
from pathlib import Path
from typing import Any

import pytest

import tsjit
from tsjit.runtime.executor import make_executor
from tsjit.tools.ts_run import check_runs

ROOT = Path(__file__).resolve().parents[4]
DATA = Path(os.environ.get("TSJIT_ARCHIVE_DATA", ROOT / "test" / "data" / "archives"))
EXPECTED_FAILURES = Path(__file__).with_name("expected_failures.txt")


FULL = os.environ.get("TSJIT_ARCHIVES") == "full" or "TSJIT_ARCHIVE_DATA" in os.environ
LLVM_SAMPLE = ("models/small_cnn", "models/composite", "models/traced", "models/versioned",
               "conformance/nn_lstm_cell", "conformance/loop_break_continue")  # fmt: skip
"""The archives `make test` also runs on the llvm backend: models, fused kernels, scalar code."""

SLOW = ("models/transformer_encoder",)
"""Archives that run only in the full sweep: optimizing their code/ takes seconds (the
same layer runs in `make test` from test/unit/frontend/test_nn_models.py)."""


def expected_failures(stages: tuple[str, ...]) -> dict[str, str]:
    """archive -> reason, for the failures at one of `stages` (load, run)."""
    failures = {}
    for line in EXPECTED_FAILURES.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, stage, reason = line.split(maxsplit=2)
            if stage in stages:
                failures[name] = reason
    return failures


def archives(backend: str | None = None) -> list[Any]:
    """The archives, as parameters; with a backend, marked with their known failures
    (and, outside the full sweep, only the llvm sample)."""
    failures = expected_failures(("load", "run") if backend else ("load",))
    params = []
    for path in sorted(DATA.rglob("*.pt")):
        name = path.relative_to(DATA).with_suffix("").as_posix()
        if backend == "llvm" and not FULL and name not in LLVM_SAMPLE:
            continue
        if backend and not FULL and name in SLOW:
            continue
        marks = []
        if name in failures:
            marks.append(pytest.mark.xfail(reason=failures[name], strict=True))
        params.append(pytest.param(path, id=f"{name}-{backend}" if backend else name, marks=marks))
    return params


@cache
def loaded(path: Path) -> Any:
    return tsjit.load(str(path))


def io_of(path: Path) -> dict[str, Any]:
    return json.loads(path.with_suffix(".io.json").read_text(encoding="utf-8"))


def test_the_archives_are_present():
    expected = 1 if "TSJIT_ARCHIVE_DATA" in os.environ else 50
    assert len(archives()) >= expected, f"expected the archives at {DATA}"


@pytest.mark.parametrize(
    ("path", "backend"),
    [
        pytest.param(p.values[0], backend, id=p.id, marks=p.marks)
        for backend in ("interp", "llvm")
        for p in archives(backend)
    ],
)
def test_archive_runs_like_pytorch(path: Path, backend: str):
    module = loaded(path)
    io = io_of(path)
    executors: dict[str, Any] = {}

    def method(name: str) -> Any:
        if name not in executors:
            symbol = module.method(name).name
            run = make_executor(module.module, symbol, backend)
            executors[name] = lambda *args: run(module.state, *args)
        return executors[name]

    results = check_runs(method("forward"), io, method)
    failures = [r.line for r in results if not r.ok]
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("path", archives())
def test_parameters_and_buffers_are_named_as_pytorch_names_them(path: Path):
    module = loaded(path)
    io = io_of(path)
    assert [name for name, _ in module.named_parameters()] == io["parameters"]
    assert [name for name, _ in module.named_buffers()] == io["buffers"]
