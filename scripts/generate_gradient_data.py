"""Records PyTorch autograd's gradients for every run of every conformance case.

    python scripts/generate_gradient_data.py [CORPUS] [OUTPUT_DIR]

Each case is scripted from its source.py with `torch.jit.script` (a module case from
its module.json). For each recorded run that does not raise, every floating-point
tensor input (inside lists too) and every parameter requires grad; the scripted
function runs; each floating-point output that requires grad gets a random cotangent
(seeded by case and run), and `torch.autograd.grad` gives the vector-Jacobian product
for every input and parameter (zeros where an input is not used). A run whose forward
or backward raises records PyTorch's message instead.

Written to OUTPUT_DIR (default `test/data/gradients`): `gradients.json` (per case and
run: the input and output paths, which outputs require grad, the message of a run that
raised) and `gradients.npz` (cotangents and gradients, keyed
`case/run/{cotangent,grad,param}/path`). `test/conformance/test_gradients.py`
checks tsjit's gradients against them without PyTorch.
"""

from __future__ import annotations

import hashlib
import json
import runpy
import sys
from pathlib import Path
from typing import Any

import numpy as np
import torch

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CORPUS = ROOT.parent / "shared" / "conformance"
DEFAULT_OUTPUT = ROOT / "test" / "data" / "gradients"

DTYPES = {"float32": torch.float32, "float64": torch.float64, "int64": torch.int64,
          "int32": torch.int32, "bool": torch.bool}  # fmt: skip


def decode(value: dict[str, Any]) -> Any:
    """A value of the corpus's JSON encoding as PyTorch's."""
    ((kind, payload),) = value.items()
    if kind == "tensor":
        data = [float(x) if isinstance(x, str) else x for x in payload["data"]]
        return torch.tensor(data, dtype=DTYPES[payload["dtype"]]).reshape(payload["shape"])
    if kind == "float":
        return float(payload)
    if kind == "list":
        return [decode(v) for v in payload]
    if kind == "tuple":
        return tuple(decode(v) for v in payload)
    if kind == "dict":
        return {decode(k): decode(v) for k, v in payload}
    if kind == "none":
        return None
    return payload


def scripted(case: Path) -> tuple[Any, dict[str, torch.Tensor]]:
    """The scripted entry and its parameters by dotted name (a module case's are set
    from module.json)."""
    namespace = runpy.run_path(str(case / "source.py"))
    if "Model" not in namespace:
        return torch.jit.script(namespace["forward"]), {}
    model = namespace["Model"]()
    spec = json.loads((case / "module.json").read_text(encoding="utf-8"))
    with torch.no_grad():
        for section in ("parameters", "buffers"):
            for name, encoded in spec.get(section, {}).items():
                target = model.get_parameter(name) if section == "parameters" else model.get_buffer(name)
                target.copy_(decode(encoded))
    return torch.jit.script(model), dict(model.named_parameters())


def float_leaves(value: Any, path: str = "") -> list[tuple[str, torch.Tensor]]:
    """(path, tensor) of the floating-point tensors in a value (lists and tuples walked)."""
    if isinstance(value, torch.Tensor):
        return [(path, value)] if value.is_floating_point() else []
    if isinstance(value, (list, tuple)):
        found = []
        for i, element in enumerate(value):
            found += float_leaves(element, f"{path}.{i}" if path else str(i))
        return found
    return []


def with_grad(value: Any) -> Any:
    """Fresh leaves that require grad for the floating-point tensors of a value."""
    if isinstance(value, torch.Tensor):
        return value.detach().clone().requires_grad_(True) if value.is_floating_point() else value.clone()
    if isinstance(value, list):
        return [with_grad(v) for v in value]
    if isinstance(value, tuple):
        return tuple(with_grad(v) for v in value)
    return value


def message(error: Exception) -> str:
    """An error's own message: the TorchScript interpreter wraps it in a traceback
    whose last line is `RuntimeError: <message>`."""
    lines = [line for line in str(error).splitlines() if line.strip()]
    last = lines[-1] if lines else type(error).__name__
    return last.removeprefix("RuntimeError: ") if len(lines) > 1 else lines[0] if lines else last


def seed_of(case: str, run: int) -> int:
    return int.from_bytes(hashlib.sha256(f"{case}/{run}".encode()).digest()[:4], "little")


def record_run(case: str, run: int, function: Any, parameters: dict[str, torch.Tensor], inputs: list[Any],
               arrays: dict[str, np.ndarray]) -> dict[str, Any]:  # fmt: skip
    inputs = [with_grad(v) for v in inputs]
    leaves = float_leaves(inputs)
    entry: dict[str, Any] = {"run": run, "inputs": [p for p, _ in leaves], "parameters": sorted(parameters)}
    for parameter in parameters.values():
        parameter.grad = None
    try:
        outputs = function(*inputs)
    except Exception as error:  # noqa: BLE001 -- recorded: tsjit must raise it too
        entry["raises"] = message(error)
        return entry
    produced = float_leaves(outputs if isinstance(outputs, tuple) else (outputs,))
    entry["outputs"] = [p for p, _ in produced]
    entry["requires_grad"] = [bool(t.requires_grad) for _, t in produced]
    rng = np.random.default_rng(seed_of(case, run))
    differentiated = [(p, t) for p, t in produced if t.requires_grad]
    cotangents = []
    for path, tensor in differentiated:
        cotangent = rng.standard_normal(tuple(tensor.shape)).astype(str(tensor.dtype).removeprefix("torch."))
        arrays[f"{case}/{run}/cotangent/{path}"] = cotangent
        cotangents.append(torch.from_numpy(cotangent))
    wrt = [t for _, t in leaves] + list(parameters.values())
    if differentiated and wrt:
        try:
            grads = torch.autograd.grad(
                [t for _, t in differentiated], wrt, cotangents, allow_unused=True, materialize_grads=True
            )
        except Exception as error:  # noqa: BLE001 -- recorded: tsjit must raise it too
            entry["raises"] = message(error)
            return entry
    else:
        grads = [torch.zeros_like(t) for t in wrt]
    for (path, _), grad in zip(leaves, grads):
        arrays[f"{case}/{run}/grad/{path}"] = grad.detach().numpy()
    for name, grad in zip(parameters, grads[len(leaves) :]):
        arrays[f"{case}/{run}/param/{name}"] = grad.detach().numpy()
    return entry


def record(case: Path, arrays: dict[str, np.ndarray]) -> dict[str, Any]:
    io = json.loads((case / "io.json").read_text(encoding="utf-8"))
    function, parameters = scripted(case)
    runs = []
    for k, run in enumerate(io["runs"]):
        if "raises" in run:
            continue
        inputs = [decode(v) for v in run["inputs"]]
        runs.append(record_run(case.name, k, function, parameters, inputs, arrays))
    return {"rtol": io.get("rtol", 1e-5), "atol": io.get("atol", 1e-6), "runs": runs}


def main(argv: list[str]) -> int:
    corpus = Path(argv[1]) if len(argv) > 1 else DEFAULT_CORPUS
    output = Path(argv[2]) if len(argv) > 2 else DEFAULT_OUTPUT
    torch.manual_seed(0)
    arrays: dict[str, np.ndarray] = {}
    cases = sorted(p for p in corpus.iterdir() if (p / "source.py").is_file())
    data = {"torch_version": torch.__version__, "cases": {case.name: record(case, arrays) for case in cases}}
    output.mkdir(parents=True, exist_ok=True)
    (output / "gradients.json").write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    np.savez_compressed(output / "gradients.npz", **arrays)
    runs = sum(len(c["runs"]) for c in data["cases"].values())
    print(f"wrote {runs} runs of {len(cases)} cases ({len(arrays)} arrays) to {output}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
