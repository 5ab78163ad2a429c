"""Programs beyond the corpus (programs/*.py) against what PyTorch's TorchScript
computed for them (programs/*.json, the corpus's io.json format; module programs also
carry PyTorch's parameters): control flow with break/continue/return, tensors and
indexing, containers, builtins and NamedTuples, exceptions, and a module of nn layers.

`pytest -m interop` (with PyTorch installed) checks the recorded results against
`torch.jit.script` itself.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tsjit.frontend.script import ScriptFunction, run_user_file, script, script_file_text
from tsjit.frontend.source import SourceFile
from tsjit.runtime.errors import TorchScriptError
from tsjit.runtime.values import decode_value, match_value

PROGRAMS = Path(__file__).with_name("programs")
NAMES = sorted(p.stem for p in PROGRAMS.glob("*.json"))


def record(name: str) -> dict[str, Any]:
    return json.loads((PROGRAMS / f"{name}.json").read_text(encoding="utf-8"))


def compiled(name: str) -> ScriptFunction:
    path = PROGRAMS / f"{name}.py"
    text = path.read_text(encoding="utf-8")
    io = record(name)
    if "parameters" not in io:
        return script_file_text(text, str(path))
    instance = run_user_file(SourceFile(str(path), text))["Model"]().eval()
    for table, section in (("_parameters", "parameters"), ("_buffers", "buffers")):
        for dotted, encoded in io[section].items():
            *path_to, leaf = dotted.split(".")
            owner = instance
            for step in path_to:
                owner = getattr(owner, step)
            getattr(owner, table)[leaf].array = decode_value(encoded)
    return script(instance)


@pytest.mark.parametrize("name", NAMES)
def test_program_matches_torchscript(name: str):
    io = record(name)
    scripted = compiled(name)
    failures = []
    for number, run in enumerate(io["runs"]):
        inputs = [decode_value(v) for v in run["inputs"]]
        try:
            result = scripted(*inputs)
        except TorchScriptError as error:
            if (error.kind, error.message) != (run.get("raises"), run.get("message")):
                failures.append(
                    f"run {number}: raised {error.kind}: {error.message}, expected {run.get('raises')}"
                )
            continue
        if "raises" in run:
            failures.append(f"run {number}: expected {run['raises']}: {run['message']}")
            continue
        mismatch = match_value(result, decode_value(run["outputs"]), io["rtol"], io["atol"])
        if mismatch is not None:
            failures.append(f"run {number}: {mismatch}")
    assert not failures, "\n".join(failures)


def test_every_program_has_its_record():
    assert sorted(p.stem for p in PROGRAMS.glob("*.py")) == NAMES


@pytest.mark.interop
@pytest.mark.parametrize("name", NAMES)
def test_records_are_what_pytorch_computes(name: str):
    torch = pytest.importorskip("torch")
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"program_{name}", PROGRAMS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    io = record(name)
    if "parameters" in io:
        instance = module.Model().eval()
        state = {
            k: torch.from_numpy(np.array(decode_value(v)))
            for k, v in {**io["parameters"], **io["buffers"]}.items()
        }
        instance.load_state_dict(state)
        function = torch.jit.script(instance)
    else:
        function = torch.jit.script(module.forward)

    def to_torch(value: Any) -> Any:
        if isinstance(value, np.ndarray):
            return torch.from_numpy(value.copy())
        if isinstance(value, list):
            return [to_torch(v) for v in value]
        if isinstance(value, dict):
            return {k: to_torch(v) for k, v in value.items()}
        return value

    def to_numpy(value: Any) -> Any:
        if isinstance(value, torch.Tensor):
            return value.detach().numpy()
        if isinstance(value, (list, tuple)):
            return type(value)(to_numpy(v) for v in value)
        if isinstance(value, dict):
            return {k: to_numpy(v) for k, v in value.items()}
        return value

    for run in io["runs"]:
        if "raises" in run:
            with pytest.raises(Exception, match=run["message"].replace("(", r"\(").replace(")", r"\)")):
                function(*(to_torch(decode_value(v)) for v in run["inputs"]))
            continue
        result = function(*(to_torch(decode_value(v)) for v in run["inputs"]))
        assert match_value(to_numpy(result), decode_value(run["outputs"]), io["rtol"], io["atol"]) is None
