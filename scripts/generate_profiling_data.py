"""Records what PyTorch's profiling executor makes of each conformance case: the types
its profiles saw at the graph's inputs and the types its optimized graph checks them
against, plus both graphs' text.

    python scripts/generate_profiling_data.py [CORPUS] [OUTPUT]

Each case is scripted from its source.py and called twice with the inputs of its first
recorded run (one profiling run, then the optimized graph), with PyTorch's defaults
(profiling executor, one profiled run, fusion strategy STATIC 2 / DYNAMIC 10) and its
TensorExpr fuser allowed on the CPU without LLVM, so that fusion groups, and with them
`prim::TypeCheck`, appear as they would with a CPU fuser. Types are keyed by graph
input position (a module's `self` is position 0). The output (default
`test/data/profiling/pytorch_profiles.json`) is what `test_profiling_interop.py`
compares tsjit's profiling executor with, without PyTorch.
"""

from __future__ import annotations

import copy
import json
import re
import runpy
import sys
from pathlib import Path
from typing import Any

import torch

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CORPUS = ROOT.parent / "shared" / "conformance"
DEFAULT_OUTPUT = ROOT / "test" / "data" / "profiling" / "pytorch_profiles.json"

DTYPES = {"float32": torch.float32, "float64": torch.float64, "int64": torch.int64,
          "int32": torch.int32, "bool": torch.bool}  # fmt: skip


def decode(value: dict[str, Any]) -> Any:
    """A value of the corpus's JSON encoding as PyTorch's."""
    (kind, payload), = value.items()
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


SCALAR_TYPE_NAMES = {torch.float32: "Float", torch.float64: "Double", torch.int64: "Long",
                     torch.int32: "Int", torch.bool: "Bool", torch.float16: "Half",
                     torch.int16: "Short", torch.int8: "Char", torch.uint8: "Byte"}  # fmt: skip


def spell(t: Any) -> str:
    """A tensor type as PyTorch's graph printer spells it (`Float(2, 3, strides=[3, 1],
    requires_grad=0, device=cpu)`); Python's `str` of a type gives only `Tensor`."""
    if not isinstance(t, torch.TensorType):
        return str(t)
    dtype = t.dtype()
    parts: list[str] = []
    sizes = t.varyingSizes()
    if sizes is not None:
        parts += ["*" if s is None else str(s) for s in sizes]
        strides = t.strides()
        if strides is not None and None not in strides:
            parts.append(f"strides=[{', '.join(map(str, strides))}]")
    if t.requires_grad() is not None:
        parts.append(f"requires_grad={int(t.requires_grad())}")
    if t.device() is not None:
        parts.append(f"device={t.device()}")
    name = SCALAR_TYPE_NAMES[dtype] if dtype is not None else "Tensor"
    return f"{name}({', '.join(parts)})" if parts or dtype is not None else "Tensor"


def configure() -> None:
    torch._C._jit_set_profiling_executor(True)
    torch._C._get_graph_executor_optimize(True)
    torch._C._jit_set_num_profiled_runs(1)
    torch.jit.set_fusion_strategy([("STATIC", 2), ("DYNAMIC", 10)])
    torch._C._jit_override_can_fuse_on_cpu(True)
    torch._C._jit_set_te_must_use_llvm_cpu(False)
    torch._C._jit_set_texpr_fuser_enabled(True)


def scripted(case: Path) -> Any:
    namespace = runpy.run_path(str(case / "source.py"))
    if "Model" in namespace:
        return torch.jit.script(namespace["Model"]())
    return torch.jit.script(namespace["forward"])


def input_types(graph: Any, kind: str) -> dict[str, list[str]]:
    """Per graph input position, the types `kind` nodes record for it: the profiled
    types of its `prim::profile` uses, or the types a `prim::TypeCheck` checks it as."""
    positions = {value.debugName(): k for k, value in enumerate(graph.inputs())}
    found: dict[str, set[str]] = {}
    for node in graph.findAllNodes(kind, recurse=True):
        for k, value in enumerate(node.inputs()):
            position = positions.get(value.debugName())
            if position is None or value.node().kind() != "prim::Param":
                continue
            seen = spell(node.ty("profiled_type") if kind == "prim::profile" else node.outputsAt(k).type())
            found.setdefault(str(position), set()).add(seen)
    return {position: sorted(types) for position, types in sorted(found.items())}


def without_machine_paths(text: str, case: Path) -> str:
    """Source comments as the corpus writes them: `source.py:8:21` for the case's own
    file, `torch/<path>.py:...` for PyTorch's."""
    text = text.replace(f"{case}/", "")
    return re.sub(r"# \S*?/(torch/\S+)", r"# \1", text)


def record(case: Path) -> dict[str, Any]:
    io = json.loads((case / "io.json").read_text(encoding="utf-8"))
    function = scripted(case)
    inputs = [decode(v) for v in io["runs"][0]["inputs"]]
    results: dict[str, Any] = {}
    for stage in ("profiled", "optimized"):
        try:
            function(*copy.deepcopy(inputs))
        except Exception as error:  # noqa: BLE001 -- a run that raises still profiles
            results.setdefault("raises", type(error).__name__)
        graph = torch.jit.last_executed_optimized_graph()
        results[f"{stage}_graph"] = without_machine_paths(str(graph), case)
        results[stage] = input_types(graph, "prim::profile" if stage == "profiled" else "prim::TypeCheck")
    return results


def main(argv: list[str]) -> int:
    corpus = Path(argv[1]) if len(argv) > 1 else DEFAULT_CORPUS
    output = Path(argv[2]) if len(argv) > 2 else DEFAULT_OUTPUT
    configure()
    cases = sorted(p for p in corpus.iterdir() if (p / "io.json").is_file())
    data = {"torch_version": torch.__version__, "cases": {case.name: record(case) for case in cases}}
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    checked = sum(bool(c["optimized"]) for c in data["cases"].values())
    print(f"wrote {len(cases)} cases ({checked} with a TypeCheck of their inputs) to {output}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
