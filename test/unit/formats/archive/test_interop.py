"""Against PyTorch itself (optional: `pytest -m interop` with torch installed):
`torch.jit.load` reads what `tsjit.save` writes and computes what the original computed,
for archives PyTorch saved and tsjit re-saved, and for every corpus case scripted by
tsjit; and tsjit reads what PyTorch saves of tsjit's archives."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import tsjit
from tsjit.frontend.script import ScriptModule, script_file_text
from tsjit.runtime.values import decode_value, encode_value, match_value

from .conftest import DATA

pytestmark = pytest.mark.interop

CORPUS = Path(__file__).resolve().parents[5] / "shared" / "conformance"
UNSAVED = ("models/classes",)  # tsjit cannot load it yet (expected_failures.txt)


def torch_module() -> Any:
    torch = pytest.importorskip("torch")
    assert not torch.__version__.endswith("tsjit-shim"), "interop tests need the real PyTorch"
    return torch


def to_torch(torch: Any, value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return torch.from_numpy(value.copy())
    if isinstance(value, list):
        return [to_torch(torch, v) for v in value]
    if isinstance(value, tuple):
        return tuple(to_torch(torch, v) for v in value)
    if isinstance(value, dict):
        return {k: to_torch(torch, v) for k, v in value.items()}
    return value


def from_torch(torch: Any, value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        return value.detach().numpy()
    if isinstance(value, (list, tuple)):
        converted = [from_torch(torch, v) for v in value]
        return converted if isinstance(value, list) else tuple(converted)
    if isinstance(value, dict):
        return {k: from_torch(torch, v) for k, v in value.items()}
    return value


def check_with_torch(path: Path, io: dict[str, Any]) -> list[str]:
    """The runs of `io` through `torch.jit.load(path)`; the mismatches."""
    torch = torch_module()
    loaded = torch.jit.load(str(path))
    failures = []
    for i, run in enumerate(io["runs"]):
        inputs = [to_torch(torch, decode_value(v)) for v in run["inputs"]]
        try:
            with torch.no_grad():
                result = getattr(loaded, run.get("entry", "forward"))(*inputs)
        except Exception as error:  # noqa: BLE001 - the exception is what is compared
            if "raises" not in run:
                failures.append(f"run {i}: raised {str(error).strip().splitlines()[-1]}")
            continue
        if "raises" in run:
            failures.append(f"run {i}: returned instead of raising {run['raises']}")
            continue
        expected = decode_value(run["outputs"])
        mismatch = match_value(
            decode_value(encode_value(from_torch(torch, result))), expected, io["rtol"], io["atol"]
        )
        if mismatch is not None:
            failures.append(f"run {i}: {mismatch}")
    return failures


def archives() -> list[Path]:
    return [
        p for p in sorted(DATA.rglob("*.pt")) if p.relative_to(DATA).with_suffix("").as_posix() not in UNSAVED
    ]


@pytest.mark.parametrize("path", archives(), ids=lambda p: p.relative_to(DATA).with_suffix("").as_posix())
def test_pytorch_reads_what_tsjit_resaves(path: Path, tmp_path: Path):
    saved = tmp_path / path.name
    tsjit.save(tsjit.load(str(path)), saved)
    io = json.loads(path.with_suffix(".io.json").read_text(encoding="utf-8"))
    assert check_with_torch(saved, io) == []
    loaded = torch_module().jit.load(str(saved))
    assert [n for n, _ in loaded.named_parameters()] == io["parameters"]
    assert [n for n, _ in loaded.named_buffers()] == io["buffers"]


def corpus_cases() -> list[Path]:
    return sorted(p for p in CORPUS.iterdir() if (p / "source.py").is_file()) if CORPUS.is_dir() else []


@pytest.mark.parametrize("case", corpus_cases(), ids=lambda p: p.name)
def test_pytorch_runs_the_corpus_as_tsjit_scripts_and_saves_it(case: Path, tmp_path: Path):
    scripted = script_file_text((case / "source.py").read_text(encoding="utf-8"), str(case / "source.py"))
    if isinstance(scripted, ScriptModule):
        spec = json.loads((case / "module.json").read_text(encoding="utf-8"))
        for section in ("parameters", "buffers", "attributes"):
            for dotted, encoded in spec.get(section, {}).items():
                *path, name = dotted.split(".")
                owner = scripted.state
                for step in path:
                    owner = owner.attributes[step]
                owner.attributes[name] = decode_value(encoded)
    saved = tmp_path / f"{case.name}.pt"
    tsjit.save(scripted, saved)
    io = json.loads((case / "io.json").read_text(encoding="utf-8"))
    assert check_with_torch(saved, io) == []


def test_tsjit_reads_what_pytorch_saves_of_a_tsjit_archive(tmp_path: Path):
    torch = torch_module()
    ours, theirs = tmp_path / "ours.pt", tmp_path / "theirs.pt"
    tsjit.save(tsjit.load(str(DATA / "models" / "composite.pt")), ours)
    torch.jit.save(torch.jit.load(str(ours)), str(theirs))
    io = json.loads((DATA / "models" / "composite.io.json").read_text(encoding="utf-8"))
    model = tsjit.load(str(theirs))
    from tsjit.tools.ts_run import check_runs

    assert all(r.ok for r in check_runs(model, io, model.method))
