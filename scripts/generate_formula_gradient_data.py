"""Records PyTorch autograd's gradients for the cases of test_gradient_formulas.py.

    python scripts/generate_formula_gradient_data.py [OUTPUT_DIR]

(run with a Python that has torch 2.13, e.g. a side venv; tsjit itself never imports torch.)

The cases (`CASES` of `test/unit/runtime/test_gradient_formulas.py`, read as a literal:
the test module is not imported) are scalar functions of float64 tensors. Each is
compiled by `torch.jit.CompilationUnit` (which resolves `torch`, `F` and `List` here, as
the test's header imports them), called on random inputs
of the case's shapes (seeded by the case's name), and `torch.autograd.grad` gives the
gradient of the scalar with respect to the inputs the case differentiates.

Written to OUTPUT_DIR (default `test/data/formula_gradients`): `gradients.npz`, keyed
`<case>/input/<k>` and `<case>/grad/<k>`.
"""

from __future__ import annotations

import ast
import sys
import zlib
from pathlib import Path
from typing import Any, List  # noqa: F401 -- names the cases' sources use

import numpy as np
import torch
import torch.nn.functional as F  # noqa: F401, N812 -- names the cases' sources use

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "test" / "unit" / "runtime" / "test_gradient_formulas.py"
DEFAULT_OUTPUT = ROOT / "test" / "data" / "formula_gradients"


def module_constant(name: str) -> Any:
    """The literal value of the test module's top-level assignment to `name`."""
    tree = ast.parse(TESTS.read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            return ast.literal_eval(node.value)
    raise LookupError(f"{TESTS.name} assigns no {name}")


def main(argv: list[str]) -> None:
    output = Path(argv[0]) if argv else DEFAULT_OUTPUT
    cases = module_constant("CASES")
    arrays: dict[str, np.ndarray] = {}
    for name, (source, shapes, *differentiated) in sorted(cases.items()):
        function = torch.jit.CompilationUnit(source).f
        rng = np.random.default_rng(zlib.crc32(name.encode()))
        inputs = [rng.standard_normal(shape) for shape in shapes]
        count = differentiated[0] if differentiated else len(inputs)
        tensors = [torch.from_numpy(a.copy()).requires_grad_(k < count) for k, a in enumerate(inputs)]
        grads = torch.autograd.grad(function(*tensors), tensors[:count])
        for k, array in enumerate(inputs):
            arrays[f"{name}/input/{k}"] = array
        for k, g in enumerate(grads):
            arrays[f"{name}/grad/{k}"] = g.numpy()
    output.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(output / "gradients.npz", **arrays)
    print(f"{len(cases)} cases, {sum(a.size for a in arrays.values())} values")


if __name__ == "__main__":
    main(sys.argv[1:])
