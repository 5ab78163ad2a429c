"""`tsjit.save`: what it writes loads back with the same values, methods and shared
storages; a save -> load -> save round trip is byte-stable in code/; writing is
deterministic; scripted, traced and loaded modules and scripted functions all save."""

from __future__ import annotations

import json
import os
import zipfile
from pathlib import Path

import numpy as np
import pytest

import tsjit
from tsjit.frontend import torch_shim as torch
from tsjit.frontend.script import script
from tsjit.runtime.values import ScriptObject, decode_value, match_value
from tsjit.tools.ts_run import check_runs

from .conftest import DATA

FULL = os.environ.get("TSJIT_ARCHIVES") == "full"
ROUND_TRIPS = ("models/composite", "models/small_cnn", "models/traced", "conformance/loop_break_continue",
               "conformance/algo_fib_gcd", "conformance/with_no_grad")  # fmt: skip
"""The archives `make test` round-trips (`make archives`: every one that loads)."""


def round_trip_archives() -> list[str]:
    names = sorted(p.relative_to(DATA).with_suffix("").as_posix() for p in DATA.rglob("*.pt"))
    return [n for n in names if n != "models/classes"] if FULL else list(ROUND_TRIPS)


def code_of(path: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as archive:
        return {n.split("/", 1)[1]: archive.read(n) for n in archive.namelist() if "/code/" in n}


@pytest.mark.parametrize("name", round_trip_archives())
def test_save_load_save_is_byte_stable_in_code(name: str, tmp_path: Path):
    first, second = tmp_path / "first.pt", tmp_path / "second.pt"
    original = tsjit.load(str(DATA / f"{name}.pt"))
    tsjit.save(original, first)
    reloaded = tsjit.load(str(first))
    tsjit.save(reloaded, second)
    assert code_of(first) == code_of(second)
    assert same_objects(original.state, reloaded.state)
    assert list(original.state_dict()) == list(reloaded.state_dict())


def same_objects(a: object, b: object) -> bool:
    """The object trees hold the same classes, attributes and values (tensors: dtype,
    shape and elements)."""
    if isinstance(a, np.ndarray):
        return (
            isinstance(b, np.ndarray) and a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b)
        )
    if isinstance(a, ScriptObject):
        return (isinstance(b, ScriptObject) and a.qualified_name == b.qualified_name
                and list(a.attributes) == list(b.attributes)
                and all(same_objects(v, b.attributes[k]) for k, v in a.attributes.items()))  # fmt: skip
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(same_objects(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return isinstance(b, dict) and list(a) == list(b) and all(same_objects(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def test_a_resaved_archive_runs_as_the_original(tmp_path: Path):
    path = tmp_path / "composite.pt"
    tsjit.save(tsjit.load(str(DATA / "models" / "composite.pt")), path)
    io = json.loads((DATA / "models" / "composite.io.json").read_text(encoding="utf-8"))
    model = tsjit.load(str(path))
    results = check_runs(model, io, model.method)
    assert all(r.ok for r in results), [r.line for r in results]
    state = model.state_dict()
    assert np.shares_memory(state["row"], state["table"]) and np.shares_memory(
        state["table_t"], state["table"]
    )


def test_writing_is_deterministic_and_can_replace_the_file_it_loaded(tmp_path: Path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first, second = tmp_path / "a" / "model.pt", tmp_path / "b" / "model.pt"
    model = tsjit.load(str(DATA / "conformance" / "module_linear_relu.pt"))
    tsjit.save(model, first)
    tsjit.save(model, second)
    assert first.read_bytes() == second.read_bytes()
    reloaded = tsjit.load(str(first))
    tsjit.save(reloaded, first)  # its storages are views of the file being replaced
    x = np.ones((2, 4), np.float32)
    assert match_value(tsjit.load(str(first))(x), model(x), 1e-6, 1e-6) is None


class Head(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(3, 2)
        self.register_buffer("scale", torch.ones(2))
        self.steps = [1, 2]

    def forward(self, x, k: int = 2):
        return torch.relu(self.fc(x)) * self.scale * k + len(self.steps)


def halve(x, n: int):
    return x / n


def test_a_scripted_module_saves_with_its_state(tmp_path: Path):
    scripted = script(Head())
    path = tmp_path / "head.pt"
    tsjit.save(scripted, path)
    loaded = tsjit.load(str(path))
    x = np.array([[0.5, -1.0, 2.0]], np.float32)
    assert match_value(loaded(x), scripted(x), 1e-6, 1e-6) is None
    assert [n for n, _ in loaded.named_parameters()] == ["fc.weight", "fc.bias"]
    assert [n for n, _ in loaded.named_buffers()] == ["scale"]
    (code,) = [text for name, text in code_of(path).items() if b"class Head(Module):" in text]
    assert b'  __parameters__ = []\n  __buffers__ = ["scale", ]\n' in code


def test_a_scripted_function_saves_as_a_module_whose_forward_it_is(tmp_path: Path):
    path = tmp_path / "halve.pt"
    tsjit.save(script(halve), path)
    loaded = tsjit.load(str(path))
    assert loaded.info.qualname == "__torch__.PlaceholderModule"
    np.testing.assert_allclose(loaded(np.array([3.0], np.float32), 2), [1.5])
    assert loaded.archive.version == 4  # aten::div.Scalar: the archive says which meaning it has


def test_a_traced_module_saves(tmp_path: Path):
    model = Head()
    x = np.array([[0.5, -1.0, 2.0]], np.float32)
    traced = tsjit.trace(model, (torch.tensor(x),))
    path = tmp_path / "traced.pt"
    tsjit.save(traced, path)
    assert match_value(tsjit.load(str(path))(x), decode_value({"tensor": {"dtype": "float32", "shape": [1, 2],
                       "data": traced(x).ravel().tolist()}}), 1e-6, 1e-6) is None  # fmt: skip


def test_strings_beyond_printable_ascii_go_to_the_constant_table(tmp_path: Path):
    source = 'def forward(x: str) -> str:\n    return x + "\\u00e9\\x01" + "plain"\n'
    path = tmp_path / "strings.pt"
    tsjit.save(script(source), path)
    (code,) = code_of(path).values()
    assert b'torch.add(torch.add(x, CONSTANTS.c0), "plain")' in code
    assert tsjit.load(str(path))("a") == "a\u00e9\x01plain"
