"""Saves TorchScript archives with PyTorch, and what `torch.jit.load` computes with them,
as test data for tsjit's archive reader (the tests read it without PyTorch).

    ~/torchenv/bin/python scripts/generate_archive_data.py [CORPUS] [OUTPUT_DIR]

Every case of the corpus (`../shared/conformance` by default) is saved with
`torch.jit.save` as `OUTPUT_DIR/conformance/<case>.pt`: a module case is its `Model`
with the parameters and buffers of its module.json; a function case is its scripted
`forward` (which PyTorch saves as a module whose `forward` is the function). Each
archive is loaded back with `torch.jit.load` and run on the case's recorded inputs;
`<case>.io.json` holds the runs in the corpus's encoding, each naming its method
(`entry`), with the case's tolerances, and the names of the loaded module's parameters
and buffers in PyTorch's order.

The models of `test/data/archives/models.py` (seeded, in eval mode) go to
`OUTPUT_DIR/models/<name>.pt` with their `<name>.io.json`, unless OUTPUT_DIR is given
without the models being asked for (`--models` adds them to another directory).
"""

from __future__ import annotations

import copy
import importlib.util
import json
import sys
import warnings
import zipfile
from pathlib import Path
from typing import Any

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from generate_traced_data import decode, encode

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_CORPUS = ROOT.parent / "shared" / "conformance"
DEFAULT_OUTPUT = ROOT / "test" / "data" / "archives"
MODEL_TOLERANCE = {"rtol": 1e-4, "atol": 1e-5}


def load_source(path: Path, name: str) -> Any:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses and NamedTuples look their module up
    spec.loader.exec_module(module)
    return module


def archive_version(path: Path) -> int:
    with zipfile.ZipFile(path) as archive:
        name = next(n for n in archive.namelist() if n.endswith("/version"))
        return int(archive.read(name))


def run(loaded: Any, method: str, inputs: list[Any]) -> dict[str, Any]:
    """One run of the loaded archive in the corpus's encoding: outputs (and mutated
    inputs), or the exception it raised."""
    before = copy.deepcopy(inputs)
    try:
        with torch.no_grad():
            result = getattr(loaded, method)(*inputs)
    except Exception as error:  # noqa: BLE001 - the exception is the data
        message = str(error).strip().splitlines()[-1] if str(error).strip() else ""
        return {"inputs": [encode(v) for v in before], "raises": "RuntimeError", "message": message}
    record: dict[str, Any] = {"inputs": [encode(v) for v in before], "outputs": encode(result)}
    if any(not _same(a, b) for a, b in zip(before, inputs)):
        record["inputs_after"] = [encode(v) for v in inputs]
    return record


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, torch.Tensor):
        return isinstance(b, torch.Tensor) and a.shape == b.shape and bool(torch.equal(a, b))
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return isinstance(b, dict) and list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    return a == b


def save_case(case: Path, output: Path) -> str | None:
    """Saves one corpus case and records its runs; the error when PyTorch cannot."""
    source = load_source(case / "source.py", f"source_{case.name}")
    io = json.loads((case / "io.json").read_text(encoding="utf-8"))
    try:
        if hasattr(source, "Model"):
            torch.manual_seed(0)
            model = source.Model()
            spec = json.loads((case / "module.json").read_text(encoding="utf-8"))
            state = {**dict(model.named_parameters()), **dict(model.named_buffers())}
            with torch.no_grad():
                for name, value in {**spec.get("parameters", {}), **spec.get("buffers", {})}.items():
                    state[name].copy_(decode(value))
            for name, value in spec.get("attributes", {}).items():
                setattr(model, name, decode(value))
            scripted = torch.jit.script(model)
        else:
            scripted = torch.jit.script(source.forward)
        path = output / f"{case.name}.pt"
        torch.jit.save(scripted, str(path))
    except Exception as error:  # noqa: BLE001 - reported, the case is skipped
        return f"{type(error).__name__}: {str(error).splitlines()[0]}"
    loaded = torch.jit.load(str(path))
    entry = io.get("entry", "forward")
    runs = []
    for recorded in io["runs"]:
        result = run(loaded, entry, [decode(v) for v in recorded["inputs"]])
        if "raises" in result and "raises" in recorded:  # the corpus names the class TorchScript raised
            result.update(raises=recorded["raises"], message=recorded.get("message", ""))
        runs.append({"entry": entry, **result})
    write_io(path, {"rtol": io["rtol"], "atol": io["atol"], "runs": runs})
    return None


def save_models(output: Path) -> list[str]:
    models = load_source(DEFAULT_OUTPUT / "models.py", "archive_models")
    saved = []
    for name, (make, how, calls) in models.MODELS.items():
        torch.manual_seed(0)
        target = make()
        if how == "trace":
            scripted = torch.jit.trace(target, tuple(calls[0][1]))
        else:
            scripted = torch.jit.script(target)
        path = output / f"{name}.pt"
        torch.jit.save(scripted, str(path))
        loaded = torch.jit.load(str(path))
        runs = [{"entry": method, **run(loaded, method, copy.deepcopy(inputs))} for method, inputs in calls]
        failed = [r["message"] for r in runs if "raises" in r]
        assert not failed, f"{name} raised: {failed}"
        write_io(path, {**MODEL_TOLERANCE, "runs": runs})
        saved.append(f"{name} (version {archive_version(path)})")
    return saved


def write_io(path: Path, io: dict[str, Any]) -> None:
    loaded = torch.jit.load(str(path))
    io = {
        "torch_version": torch.__version__,
        "archive_version": archive_version(path),
        "parameters": [name for name, _ in loaded.named_parameters()],
        "buffers": [name for name, _ in loaded.named_buffers()],
        **io,
    }
    path.with_suffix(".io.json").write_text(json.dumps(io, sort_keys=True) + "\n", encoding="utf-8")


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    corpus = Path(args[0]) if args else DEFAULT_CORPUS
    output = Path(args[1]) if len(args) > 1 else DEFAULT_OUTPUT
    with_models = len(args) < 2 or "--models" in sys.argv
    warnings.filterwarnings("ignore")
    (output / "conformance").mkdir(parents=True, exist_ok=True)
    failures = {}
    cases = sorted(p for p in corpus.iterdir() if (p / "source.py").is_file())
    for case in cases:
        error = save_case(case, output / "conformance")
        if error is not None:
            failures[case.name] = error
    print(f"{len(cases) - len(failures)} of {len(cases)} corpus cases saved")
    for name, error in failures.items():
        print(f"  {name}: {error}")
    if with_models:
        (output / "models").mkdir(parents=True, exist_ok=True)
        print("models:", ", ".join(save_models(output / "models")))


if __name__ == "__main__":
    main()
