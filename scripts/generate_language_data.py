"""Records what PyTorch's TorchScript does with the language programs of
`test/unit/frontend/language/` (classes, enums, interfaces, forks, unions, typing
extras, operators by qualified name), as test data the tests read without PyTorch.

    ~/torchenv/bin/python scripts/generate_language_data.py

For each program `<name>.py` it writes `<name>.json`: the runs (inputs, and the outputs
or the error TorchScript raised) in the conformance corpus's io.json format, and the
graph PyTorch prints for `forward` (`graph`, and `inlined` after `_jit_pass_inline`),
with source locations relative to the program. A program defining `Model` is a module
program: `Model()` is scripted and its runs share the module's state, in order.

`errors.json` records, for each program of `ERRORS` below, the diagnosis PyTorch gives
(its last line before the source excerpt) and the source line it points at.
"""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path
from typing import Any

import torch

sys.path.insert(0, str(Path(__file__).parent))
from generate_traced_data import encode  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
PROGRAMS = ROOT / "test" / "unit" / "frontend" / "language"


def tensor(*shape: int, seed: int = 0, scale: float = 1.0) -> torch.Tensor:
    generator = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=generator) * scale


INPUTS: dict[str, list[tuple[Any, ...]]] = {
    "classes": [(tensor(2, 3), 3), (tensor(4, seed=1), -2)],
    "context_managers": [(tensor(3), 0), (tensor(2, 2, seed=1), 3)],
    "enums": [(tensor(3), True), (tensor(2, seed=1), False)],
    "interfaces": [(tensor(3), 1.5), (tensor(2, 2, seed=1), -2.0)],
    "forks": [(tensor(3), 4), (tensor(2, 2, seed=1), 0), (tensor(3, seed=2, scale=100.0).abs(), 2)],
    "unions": [(tensor(2, 3), 3, "ab", None), (tensor(4, seed=1), -1, "xyz", tensor(2, 5, seed=2))],
    "typing_extras": [(tensor(3), "a", False), (tensor(2, seed=1), "b", False), (tensor(2, seed=1), "c", True)],
    "operators": [(tensor(3, 4), tensor(3, 4, seed=1)), (tensor(5, seed=2), tensor(5, seed=3))],
}
"""The input sets of each program."""

ERRORS: dict[str, str] = {
    "attribute_changes_type": """
class A:
    def __init__(self, x: int):
        self.x = x
        self.x = 1.5

def forward(x: int) -> int:
    return A(x).x
""",
    "undefined_attribute": """
class A:
    def __init__(self, x: int):
        self.x = x

    def get(self) -> int:
        return self.y

def forward(x: int) -> int:
    return A(x).get()
""",
    "attribute_set_outside_init": """
class A:
    def __init__(self, x: int):
        self.x = x

    def set(self):
        self.y = 3

def forward(x: int) -> int:
    a = A(x)
    a.set()
    return a.x
""",
    "empty_container_typed_as_tensors": """
from typing import List

class A:
    def __init__(self, x: int):
        self.items = []
        self.items.append(x)

def forward(x: int) -> int:
    return len(A(x).items)
""",
    "class_contains_itself": """
from typing import Optional

class Node:
    def __init__(self, v: int, next: Optional["Node"]):
        self.v = v
        self.next = next

def forward(x: int) -> int:
    return Node(x, None).v
""",
    "objects_are_not_iterable": """
class A:
    def __init__(self, x: int):
        self.x = x

def forward(x: int) -> int:
    s = 0
    for v in A(x):
        s += v
    return s
""",
    "wrong_argument_type_for_method": """
class A:
    def __init__(self, x: int):
        self.x = x

    def add(self, y: int) -> int:
        return self.x + y

def forward(x: int) -> int:
    return A(x).add("one")
""",
    "enum_values_of_mixed_types": """
from enum import Enum

class E(Enum):
    A = 1
    B = "b"

def forward(x: int) -> int:
    return E.A.value + x
""",
}
"""Programs TorchScript rejects, by name."""


def load(path: Path) -> Any:
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module
    spec.loader.exec_module(module)
    return module


def relative(graph: Any, path: Path) -> str:
    return str(graph).replace(str(path.parent) + "/", "")


def error_of(error: Exception) -> dict[str, str]:
    """`raise ValueError(msg)` in TorchScript reaches Python as a RuntimeError whose
    text ends in `builtins.ValueError: msg`; other errors end in `RuntimeError: msg`
    or are the message itself."""
    text = str(error).strip()
    last = text.splitlines()[-1] if text else ""
    match = re.match(r"^(?:builtins\.)?(\w+(?:Error|Exception)): (.*)$", last)
    if match:
        return {"raises": match.group(1), "message": match.group(2)}
    return {"raises": "RuntimeError", "message": last}


def record(path: Path) -> dict[str, Any]:
    module = load(path)
    target = module.Model() if hasattr(module, "Model") else module.forward
    scripted = torch.jit.script(target)
    graph = scripted.graph if hasattr(module, "Model") else scripted.graph
    inlined = graph.copy()
    torch._C._jit_pass_inline(inlined)
    runs = []
    for inputs in INPUTS[path.stem]:
        run: dict[str, Any] = {"inputs": [encode(v) for v in inputs]}
        try:
            run["outputs"] = encode(scripted(*inputs))
        except Exception as error:  # noqa: BLE001 -- recorded as the run's outcome
            run.update(error_of(error))
        runs.append(run)
    return {"rtol": 1e-5, "atol": 1e-6, "graph": relative(graph, path), "inlined": relative(inlined, path),
            "runs": runs}  # fmt: skip


def record_errors(directory: Path) -> dict[str, Any]:
    records: dict[str, Any] = {}
    for name, text in ERRORS.items():
        path = directory / f"error_{name}.py"
        path.write_text("import torch\n" + text.lstrip("\n"), encoding="utf-8")
        try:
            torch.jit.script(load(path).forward)
        except Exception as error:  # noqa: BLE001 -- the diagnosis is what is recorded
            message = re.sub(r" \(of Python compilation unit at: 0x[0-9a-f]+\)", "", str(error).strip())
            diagnosis = [line for line in message.split('  File "')[0].splitlines() if line.strip(" :")]
            first = diagnosis[-1].rstrip(":")  # the last line before the source excerpt says what is wrong
            lines = [int(n) for n in re.findall(rf'File "{re.escape(str(path))}", line (\d+)', message)]
            records[name] = {"source": path.read_text(encoding="utf-8"), "message": first,
                             "line": lines[0] if lines else None}  # fmt: skip
        else:
            raise AssertionError(f"PyTorch accepts {name}")
        finally:
            path.unlink()
    return records


def main() -> None:
    for path in sorted(PROGRAMS.glob("*.py")):
        data = record(path)
        (path.with_suffix(".json")).write_text(json.dumps(data) + "\n", encoding="utf-8")
        print(f"{path.stem}: {len(data['runs'])} runs")
    errors = record_errors(PROGRAMS)
    (PROGRAMS / "errors.json").write_text(json.dumps(errors, indent=1) + "\n", encoding="utf-8")
    print(f"errors: {len(errors)} programs")


if __name__ == "__main__":
    main()
