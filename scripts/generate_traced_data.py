"""Records what `torch.jit.trace` does with the conformance corpus and the traced models,
as test data for tsjit's tracer (the tests read it without PyTorch).

    ~/torchenv/bin/python scripts/generate_traced_data.py [CORPUS] [OUTPUT_DIR]

For every case of the corpus (`../shared/conformance` by default), `forward` (or
`Model`) is traced on the inputs of its first run that has outputs. Written to
`test/data/traced/conformance.json`, per case: whether it traces (else PyTorch's error),
the TracerWarnings (data-dependent control flow, Python values as constants), the node
kinds of the traced graph (and, for modules, of the inlined graph), and the traced
function's outputs on every recorded run whose inputs have the example's shapes.

The programs of `test/data/traced/programs.py` go to `programs.json`: their inputs (two
sets, seeded), the traced graph's node kinds and warnings, and its outputs on both sets.

For the models of `test/data/traced/models.py` (a small CNN, a transformer encoder
layer, an LSTM model; seeded, in eval mode), `models.json` holds their parameters and
buffers, an example input and a check input, PyTorch's outputs on both, and the node
kinds of the traced graphs.
"""

from __future__ import annotations

import importlib.util
import json
import math
import sys
import warnings
from pathlib import Path
from typing import Any

import torch

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_CORPUS = ROOT.parent / "shared" / "conformance"
DEFAULT_OUTPUT = ROOT / "test" / "data" / "traced"
DTYPES = {torch.float32: "float32", torch.float64: "float64", torch.int64: "int64", torch.int32: "int32",
          torch.bool: "bool"}  # fmt: skip
TORCH_DTYPES = {name: dtype for dtype, name in DTYPES.items()}


# --------------------------------------------------------------------------------------
# The corpus's value encoding (../shared/conformance/README.md)
# --------------------------------------------------------------------------------------


def decode(value: dict[str, Any]) -> Any:
    ((kind, payload),) = value.items()
    if kind == "tensor":
        data = [float(d) if isinstance(d, str) else d for d in payload["data"]]
        return torch.tensor(data, dtype=TORCH_DTYPES[payload["dtype"]]).reshape(payload["shape"])
    if kind == "list":
        return [decode(v) for v in payload]
    if kind == "tuple":
        return tuple(decode(v) for v in payload)
    if kind == "dict":
        return {decode(k): decode(v) for k, v in payload}
    if kind == "none":
        return None
    if kind == "float" and isinstance(payload, str):
        return float(payload)
    return payload


def _number(x: float | int | bool) -> Any:
    if isinstance(x, float) and not math.isfinite(x):
        return "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")
    return x


def encode(value: Any) -> dict[str, Any]:
    if isinstance(value, torch.Tensor):
        t = value.detach().contiguous()
        data = t.flatten().tolist()
        if t.dtype == torch.float32:
            data = [_number(float(repr_float32(x))) for x in data]
        else:
            data = [_number(x) for x in data]
        return {"tensor": {"dtype": DTYPES[t.dtype], "shape": list(t.shape), "data": data}}
    if isinstance(value, tuple):
        return {"tuple": [encode(v) for v in value]}
    if isinstance(value, list):
        return {"list": [encode(v) for v in value]}
    if isinstance(value, dict):
        return {"dict": [[encode(k), encode(v)] for k, v in value.items()]}
    if value is None:
        return {"none": None}
    if isinstance(value, bool):
        return {"bool": value}
    if isinstance(value, int):
        return {"int": value}
    if isinstance(value, float):
        return {"float": _number(value)}
    if isinstance(value, str):
        return {"str": value}
    raise TypeError(f"cannot encode {type(value).__name__}")


def repr_float32(x: float) -> str:
    """The shortest decimal that reads back as the same float32."""
    import numpy as np

    return np.format_float_positional(np.float32(x), unique=True, trim="-") if math.isfinite(x) else str(x)


def shapes(value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        return ("tensor", tuple(value.shape), str(value.dtype))
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(shapes(v) for v in value))
    if isinstance(value, dict):
        return ("dict", tuple((k, shapes(v)) for k, v in value.items()))
    return ("value", type(value).__name__)


def node_kinds(graph: Any) -> list[str]:
    kinds = []

    def walk(nodes: Any) -> None:
        for node in nodes:
            kinds.append(node.kind())
            for block in node.blocks():
                walk(block.nodes())

    walk(graph.nodes())
    return sorted(kinds)


# --------------------------------------------------------------------------------------
# Tracing
# --------------------------------------------------------------------------------------


def trace(target: Any, inputs: tuple[Any, ...]) -> tuple[Any, list[str], str | None]:
    """PyTorch's trace of `target`, its TracerWarnings, or its error."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            traced = torch.jit.trace(target, inputs, check_trace=False)
        except Exception as error:  # noqa: BLE001 - the error is the data
            return None, [], str(error).splitlines()[0]
    messages = sorted({str(w.message) for w in caught if issubclass(w.category, torch.jit.TracerWarning)})
    return traced, messages, None


def load_source(path: Path) -> Any:
    spec = importlib.util.spec_from_file_location(f"source_{path.parent.name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def record_case(case: Path) -> dict[str, Any]:
    source = load_source(case / "source.py")
    io = json.loads((case / "io.json").read_text(encoding="utf-8"))
    runs = io["runs"]
    example = next((i for i, r in enumerate(runs) if "outputs" in r), None)
    if example is None:
        return {"traces": False, "error": "no run has outputs"}
    is_module = hasattr(source, "Model")
    if is_module:
        torch.manual_seed(0)
        target = source.Model()
        module = json.loads((case / "module.json").read_text(encoding="utf-8"))
        state = {**dict(target.named_parameters()), **dict(target.named_buffers())}
        with torch.no_grad():
            for name, value in {**module.get("parameters", {}), **module.get("buffers", {})}.items():
                state[name].copy_(decode(value))
    else:
        target = source.forward
    inputs = tuple(decode(v) for v in runs[example]["inputs"])
    traced, messages, error = trace(target, inputs)
    entry: dict[str, Any] = {"example": example, "module": is_module}
    if traced is None:
        entry.update(traces=False, error=error)
        return entry
    data_dependent = any("might cause the trace to be incorrect" in m for m in messages)
    entry.update(traces=True, warnings=messages, data_dependent=data_dependent, kinds=node_kinds(traced.graph))
    if is_module:
        entry["inlined_kinds"] = node_kinds(traced.inlined_graph)
    example_shapes = shapes(inputs)
    outputs = {}
    for number, run in enumerate(runs):
        if "outputs" not in run:
            continue
        run_inputs = tuple(decode(v) for v in run["inputs"])
        if shapes(run_inputs) != example_shapes:
            continue
        with torch.no_grad():
            outputs[str(number)] = encode(traced(*run_inputs))
    entry["outputs"] = outputs
    return entry


def record_models() -> dict[str, Any]:
    sys.path.insert(0, str(DEFAULT_OUTPUT))
    models_source = load_source(DEFAULT_OUTPUT / "models.py")
    records: dict[str, Any] = {}
    for name, (cls, input_shapes) in models_source.MODELS.items():
        torch.manual_seed(0)
        model = cls().eval()
        example, check = (torch.randn(*shape) for shape in input_shapes)
        traced, messages, error = trace(model, (example,))
        assert traced is not None, f"{name} does not trace: {error}"
        with torch.no_grad():
            outputs = [encode(model(x)) for x in (example, check)]
        records[name] = {
            "parameters": {k: encode(v) for k, v in model.named_parameters()},
            "buffers": {k: encode(v) for k, v in model.named_buffers()},
            "inputs": [encode(example), encode(check)],
            "outputs": outputs,
            "warnings": messages,
            "kinds": node_kinds(traced.graph),
            "inlined_kinds": node_kinds(traced.inlined_graph),
        }
    return records


def make_input(spec: Any, generator: torch.Generator) -> Any:
    """An input of `programs.PROGRAMS`' spec: (dtype, shape[, high]) or a container of specs."""
    if isinstance(spec, list):
        kind, inner = spec
        if kind == "dict":
            return {k: make_input(v, generator) for k, v in inner.items()}
        made = [make_input(v, generator) for v in inner]
        return made if kind == "list" else tuple(made)
    dtype, shape, *high = spec
    if dtype.startswith("float"):
        return torch.rand(shape, generator=generator, dtype=TORCH_DTYPES[dtype])
    return torch.randint(0, high[0], shape, generator=generator, dtype=TORCH_DTYPES[dtype])


def record_programs() -> dict[str, Any]:
    source = load_source(DEFAULT_OUTPUT / "programs.py")
    records: dict[str, Any] = {}
    for name, specs in source.PROGRAMS.items():
        generator = torch.Generator().manual_seed(sum(map(ord, name)))
        input_sets = [tuple(make_input(s, generator) for s in specs) for _ in range(2)]
        target = getattr(source, name)
        record: dict[str, Any] = {"inputs": [[encode(v) for v in inputs] for inputs in input_sets]}
        if isinstance(target, type):
            torch.manual_seed(0)
            target = target().eval()
            record["parameters"] = {k: encode(v) for k, v in target.named_parameters()}
            record["buffers"] = {k: encode(v) for k, v in target.named_buffers()}
        import copy

        traced, messages, error = trace(target, copy.deepcopy(input_sets[0]))
        if traced is None:
            record.update(traces=False, error=error)
        else:
            record.update(traces=True, warnings=messages, kinds=node_kinds(traced.graph))
            if isinstance(target, torch.nn.Module):
                record["inlined_kinds"] = node_kinds(traced.inlined_graph)
            with torch.no_grad():
                record["outputs"] = [encode(traced(*copy.deepcopy(inputs))) for inputs in input_sets]
        records[name] = record
    return records


def main() -> None:
    corpus = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_CORPUS
    output = Path(sys.argv[2]) if len(sys.argv) > 2 else DEFAULT_OUTPUT
    output.mkdir(parents=True, exist_ok=True)
    warnings.filterwarnings("ignore", message=".*is deprecated.*")
    cases = {}
    for case in sorted(p for p in corpus.iterdir() if (p / "source.py").is_file()):
        cases[case.name] = record_case(case)
    header = {"torch_version": torch.__version__, "cases": cases}
    (output / "conformance.json").write_text(json.dumps(header, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    models = {"torch_version": torch.__version__, "models": record_models()}
    (output / "models.json").write_text(json.dumps(models, sort_keys=True) + "\n", encoding="utf-8")
    programs = {"torch_version": torch.__version__, "programs": record_programs()}
    (output / "programs.json").write_text(json.dumps(programs, sort_keys=True) + "\n", encoding="utf-8")
    traced = sum(c["traces"] for c in cases.values())
    clean = sum(c["traces"] and not c["data_dependent"] for c in cases.values())
    print(f"{len(cases)} cases: {traced} trace, {clean} without data-dependent control flow; "
          f"{len(models['models'])} models, {len(programs['programs'])} programs")


if __name__ == "__main__":
    main()
