"""Records PyTorch autograd's gradients for the float64 OpInfo samples.

    python scripts/generate_opinfo_gradient_data.py [OUTPUT_DIR]

(run with a Python that has torch 2.13, e.g. a side venv; tsjit itself never imports torch.)

Reads the operator dataset of `scripts/generate_opinfo_data.py` (`test/data/opinfo`). For
every float64 sample that returned a value and is not random, the sample's source is
compiled by `torch.jit.script`, its float64 tensor inputs (inside lists too) made leaves
that require grad, but those the operator refuses to differentiate (each such error names
one argument; the first leaf whose exclusion changes the error is taken to be it). Each
float64 output that requires grad gets the cotangent `cotangent(shape, k)` (no random
generator, so that numpy versions agree), and `torch.autograd.grad` gives the
vector-Jacobian product for every leaf (zeros where one is unused). A sample whose
forward or backward raises records PyTorch's message instead.

Written to OUTPUT_DIR (default `test/data/opinfo_gradients`): `gradients.json` (per entry
and sample number in the entry: the inputs that do not require grad, the paths of the
outputs that do, or the message) and `gradients.npz` (one flat float64 array of every
gradient, which the JSON indexes by offset and shape).
`test/unit/runtime/test_opinfo_gradients.py` checks tsjit's gradients against them.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np
import torch

ROOT = Path(__file__).resolve().parent.parent
OPINFO = ROOT / "test" / "data" / "opinfo"
DEFAULT_OUTPUT = ROOT / "test" / "data" / "opinfo_gradients"
NOT_DIFFERENTIABLE = ("not differentiable with respect to argument", "derivative for")
"""What PyTorch says of an input that must not require grad."""


def cotangent(shape: tuple[int, ...], k: int) -> np.ndarray:
    """The cotangent of the k-th output that requires grad (the tests compute the same)."""
    n = math.prod(shape)
    return np.cos(np.arange(n, dtype=np.float64) * 0.37 + k + 1.0).reshape(shape)


class Dataset:
    def __init__(self) -> None:
        self.document = json.loads((OPINFO / "opinfo.json").read_text(encoding="utf-8"))
        with np.load(OPINFO / "opinfo.npz") as npz:
            self.arrays = {name: npz[name] for name in npz.files if name != "graphs"}

    def value(self, encoded: dict[str, Any]) -> Any:
        ((kind, payload),) = encoded.items()
        if kind == "tensor":
            dtype, offset, shape = payload
            array = self.arrays[dtype][offset : offset + math.prod(shape)].reshape(shape)
            return torch.from_numpy(array.copy())
        if kind in ("list", "tuple"):
            items = [self.value(v) for v in payload]
            return items if kind == "list" else tuple(items)
        if kind == "float":
            return float(payload)
        if kind == "dtype":
            return getattr(torch, payload.rpartition(".")[2])
        if kind == "device":
            return torch.device(payload)
        return payload


def leaves(value: Any, found: list[torch.Tensor], constant: frozenset[int]) -> Any:
    """`value` with its float64 tensors as leaves, those numbered in `constant` not
    requiring grad."""
    if isinstance(value, torch.Tensor) and value.dtype == torch.float64:
        leaf = value.clone().requires_grad_(len(found) not in constant)
        found.append(leaf)
        return leaf
    if isinstance(value, (list, tuple)):
        items = [leaves(v, found, constant) for v in value]
        return items if isinstance(value, list) else tuple(items)
    return value


def outputs(value: Any, path: str = "") -> list[tuple[str, torch.Tensor]]:
    if isinstance(value, torch.Tensor):
        return [(path, value)] if value.dtype == torch.float64 and value.requires_grad else []
    if isinstance(value, (list, tuple)):
        return [found for k, v in enumerate(value) for found in outputs(v, f"{path}.{k}")]
    return []


def first_line(error: Exception) -> str:
    return (str(error).strip().splitlines() or [type(error).__name__])[0][:300]


def call(function: Any, inputs: list[Any], constant: frozenset[int]) -> tuple[Any, list[torch.Tensor]]:
    found: list[torch.Tensor] = []
    arguments = [leaves(v, found, constant) for v in inputs]
    return function(*arguments), found


def record(function: Any, inputs: list[Any], flat: list[np.ndarray], offset: list[int]) -> dict[str, Any]:
    constant: frozenset[int] = frozenset()
    while True:
        try:
            result, found = call(function, inputs, constant)
            break
        except RuntimeError as error:
            message = first_line(error)
            if not any(m in message for m in NOT_DIFFERENTIABLE):
                return {"raises": message}
        for k in range(len(call_leaves(inputs))):
            if k in constant:
                continue
            try:
                call(function, inputs, constant | {k})
            except RuntimeError as error:
                if first_line(error) == message:
                    continue
            constant |= {k}
            break
        else:
            return {"raises": message}
    required = [leaf for leaf in found if leaf.requires_grad]
    results = outputs(result)
    if not required or not results:
        return {"constant": sorted(constant), "outputs": [], "grads": []}
    cotangents = [torch.from_numpy(cotangent(tuple(o.shape), k)) for k, (_, o) in enumerate(results)]
    try:
        grads = torch.autograd.grad([o for _, o in results], required, cotangents, allow_unused=True)
    except RuntimeError as error:
        return {"raises": first_line(error)}
    encoded = []
    for leaf, g in zip(required, grads):
        array = np.zeros(tuple(leaf.shape)) if g is None else g.detach().numpy(force=True).astype(np.float64)
        flat.append(array.reshape(-1))
        encoded.append([offset[0], list(array.shape)])
        offset[0] += array.size
    return {"constant": sorted(constant), "outputs": [p for p, _ in results], "grads": encoded}


def call_leaves(inputs: list[Any]) -> list[torch.Tensor]:
    found: list[torch.Tensor] = []
    for v in inputs:
        leaves(v, found, frozenset())
    return found


def main(argv: list[str]) -> None:
    output = Path(argv[0]) if argv else DEFAULT_OUTPUT
    data = Dataset()
    entries: dict[str, dict[str, Any]] = {}
    flat: list[np.ndarray] = []
    offset = [0]
    torch.manual_seed(0)
    for entry in data.document["entries"]:
        name = entry["name"] + (f".{entry['variant']}" if entry["variant"] else "")
        for number, sample in enumerate(entry.get("samples", ())):
            if sample["dtype"] != "float64" or "raises" in sample or sample.get("random"):
                continue
            source = data.document["sources"][sample["source"]]
            try:
                function = torch.jit.CompilationUnit(source).forward
            except Exception as error:  # noqa: BLE001 -- the reason is recorded
                entries.setdefault(name, {})[str(number)] = {"raises": first_line(error)}
                continue
            inputs = [data.value(v) for v in sample["inputs"]]
            entries.setdefault(name, {})[str(number)] = record(function, inputs, flat, offset)
    output.mkdir(parents=True, exist_ok=True)
    document = {"generator": "scripts/generate_opinfo_gradient_data.py", "torch_version": torch.__version__,
                "entries": entries}  # fmt: skip
    (output / "gradients.json").write_text(json.dumps(document, separators=(",", ":")) + "\n", encoding="utf-8")
    np.savez_compressed(output / "gradients.npz", float64=np.concatenate(flat) if flat else np.zeros(0))
    print(f"{sum(len(v) for v in entries.values())} samples of {len(entries)} entries, {offset[0]} gradient values")


if __name__ == "__main__":
    main(sys.argv[1:])
