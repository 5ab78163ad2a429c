"""Gradients of every conformance case, without PyTorch.

Each case is scripted from its `source.py` and every run of its io.json is called with
its floating-point tensor inputs (inside lists too) and a module's parameters requiring
grad, through the executor that records gradients (profiling, then optimized with
DifferentiableGraphs: both calls are checked). The vector-Jacobian product of the
outputs that require grad, with random cotangents, is then compared with

- PyTorch autograd's, recorded by `scripts/generate_gradient_data.py` for the cases of
  the visible corpus (`test/data/gradients`), to the case's tolerance; a run where
  PyTorch raised (an in-place write to a tensor the backward needs) must raise the same
  error;
- central finite differences of the same product in float64, along a random direction
  (PyTorch's fast gradcheck), for every case without recorded gradients (a held-out
  corpus) and, in `make gradients` (`TSJIT_GRADIENTS=full`), for every case.

Known failures are `case gradients reason` / `case gradcheck reason` lines of
`expected_failures.txt`.
"""

from __future__ import annotations

import hashlib
import json
import os
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tsjit.frontend.script import ScriptFunction, script_file_text
from tsjit.runtime.autograd import Variable, grad
from tsjit.runtime.errors import TorchScriptError
from tsjit.runtime.executor import make_executor
from tsjit.runtime.modules import module_object, parameters
from tsjit.runtime.values import decode_value

from .test_script import CORPUS, expected_failures

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "test" / "data" / "gradients"
FULL = os.environ.get("TSJIT_GRADIENTS") == "full"
"""Finite differences for every case, not only those without recorded gradients."""


@cache
def recorded() -> tuple[dict[str, Any], Any]:
    data = json.loads((DATA / "gradients.json").read_text(encoding="utf-8"))
    return data["cases"], np.load(DATA / "gradients.npz")


def cases(form: str) -> list[Any]:
    """The corpus cases a test form checks: `gradients` those with PyTorch's gradients
    recorded, `gradcheck` the others (every case in make gradients)."""
    if not CORPUS.is_dir():
        return []
    failures = expected_failures()
    params = []
    with_records = set(recorded()[0])
    for case in sorted(p for p in CORPUS.iterdir() if (p / "source.py").is_file()):
        if form == "gradients" and case.name not in with_records:
            continue
        if form == "gradcheck" and case.name in with_records and not FULL:
            continue  # compared with PyTorch's recorded gradients instead
        reason = failures.get((case.name, form))
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        params.append(pytest.param(case, marks=marks, id=case.name))
    return params


@cache
def scripted(case: Path) -> ScriptFunction:
    path = case / "source.py"
    return script_file_text(path.read_text(encoding="utf-8"), str(path))


def runs(case: Path) -> list[tuple[int, list[Any]]]:
    io = json.loads((case / "io.json").read_text(encoding="utf-8"))
    return [(k, [decode_value(v) for v in run["inputs"]]) for k, run in enumerate(io["runs"]) if "raises" not in run]


def tolerances(case: Path) -> tuple[float, float]:
    io = json.loads((case / "io.json").read_text(encoding="utf-8"))
    return io.get("rtol", 1e-5), io.get("atol", 1e-6)


class Differentiated:
    """One case's program called so that it records gradients (a fresh executor)."""

    def __init__(self, case: Path, backend: str = "interp"):
        function = scripted(case)
        self.case = case
        self.executor = make_executor(function.module, function.name, backend=backend, executor="profiling",
                                      autograd=True)  # fmt: skip
        self.module_case = (case / "module.json").is_file()

    def leaves(self, inputs: list[Any], dtype: Any = None) -> tuple[list[Any], list[tuple[str, Variable]]]:
        """The inputs with floating-point tensors as leaves (as `dtype`, when given),
        and the leaves by path, the module's parameters (by name) last."""
        leaves: list[tuple[str, Variable]] = []

        def leaf(value: Any, path: str) -> Any:
            if isinstance(value, np.ndarray) and value.dtype.kind == "f":
                variable = Variable(value.astype(dtype or value.dtype, copy=True), requires_grad=True)
                leaves.append((path, variable))
                return variable
            if isinstance(value, np.ndarray):
                return value.copy()
            if isinstance(value, list):
                return [leaf(v, f"{path}.{i}") for i, v in enumerate(value)]
            if isinstance(value, tuple):
                return tuple(leaf(v, f"{path}.{i}") for i, v in enumerate(value))
            return value

        arguments = [leaf(v, str(i)) for i, v in enumerate(inputs)]
        if self.module_case:
            receiver = module_object(self.case / "module.json", scripted(self.case).module, trainable=True)
            if dtype is not None:
                for variable in parameters(receiver).values():
                    variable.array = variable.array.astype(dtype)
            leaves += [(f"param/{name}", v) for name, v in parameters(receiver).items()]
            arguments.insert(0, receiver)
        return arguments, leaves

    def __call__(self, arguments: list[Any]) -> list[tuple[str, Any]]:
        """The floating-point tensor outputs by path."""
        result = self.executor(*arguments)
        return float_outputs(result if isinstance(result, tuple) else (result,))


def float_outputs(value: Any, path: str = "") -> list[tuple[str, Any]]:
    if isinstance(value, Variable) or isinstance(value, np.ndarray):
        array = value.array if isinstance(value, Variable) else value
        return [(path, value)] if array.dtype.kind == "f" else []
    if isinstance(value, (list, tuple)):
        found = []
        for i, element in enumerate(value):
            found += float_outputs(element, f"{path}.{i}" if path else str(i))
        return found
    return []


def requires_grad(value: Any) -> bool:
    return isinstance(value, Variable) and value.requires_grad


def vjp(outputs: list[tuple[str, Any]], cotangents: dict[str, np.ndarray], leaves: list[tuple[str, Variable]]) -> list[np.ndarray]:
    differentiated = [(p, o) for p, o in outputs if requires_grad(o)]
    if not differentiated:
        return [np.zeros_like(v.array) for _, v in leaves]
    grads = grad([o for _, o in differentiated], [v for _, v in leaves],
                 [cotangents[p].astype(o.array.dtype) for p, o in differentiated],
                 allow_unused=True, materialize_grads=True)  # fmt: skip
    return list(grads)


def seed(*parts: object) -> int:
    return int.from_bytes(hashlib.sha256("/".join(map(str, parts)).encode()).digest()[:4], "little")


# --------------------------------------------------------------------------------------
# Against PyTorch autograd
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("case", cases("gradients"))
def test_gradients_match_pytorch(case: Path):
    records, arrays = recorded()
    rtol, atol = tolerances(case)
    inputs_of = dict(runs(case))
    function = Differentiated(case)
    failures: list[str] = []
    for record in records[case.name]["runs"]:
        run = record["run"]
        for call in ("profiled", "optimized"):
            arguments, leaves = function.leaves(inputs_of[run])
            where = f"run {run} ({call})"
            try:
                outputs = function(arguments)
                if "raises" in record:
                    cotangents = {p: np.ones_like(o.array) for p, o in outputs if requires_grad(o)}
                else:
                    assert [p for p, _ in outputs] == record["outputs"], f"{where}: outputs {[p for p, _ in outputs]}"
                    seen = [requires_grad(o) for _, o in outputs]
                    assert seen == record["requires_grad"], f"{where}: requires_grad {seen} != {record['requires_grad']}"
                    cotangents = {p: arrays[f"{case.name}/{run}/cotangent/{p}"] for p, o in outputs if requires_grad(o)}
                grads = vjp(outputs, cotangents, leaves)
            except TorchScriptError as error:
                expected = record.get("raises")
                if expected is None:
                    failures.append(f"{where}: raised {error.message}")
                elif not error.message.startswith(expected.split(":")[0]):
                    failures.append(f"{where}: raised '{error.message}', PyTorch raised '{expected}'")
                continue
            if "raises" in record:
                failures.append(f"{where}: did not raise PyTorch's '{record['raises']}'")
                continue
            for (path, _), value in zip(leaves, grads):
                key = f"{case.name}/{run}/{path if path.startswith('param/') else 'grad/' + path}"
                expected = arrays[key]
                if value.shape != expected.shape or not np.allclose(value, expected, rtol=rtol, atol=atol):
                    error = np.abs(value - expected).max() if value.shape == expected.shape else value.shape
                    failures.append(f"{where}: gradient of {path} differs from PyTorch's (max error {error})")
    assert not failures, "\n".join(failures)


# --------------------------------------------------------------------------------------
# Against finite differences
# --------------------------------------------------------------------------------------

EPSILON = 1e-6


@pytest.mark.parametrize("case", cases("gradcheck"))
def test_gradients_match_finite_differences(case: Path):
    """Central differences in float64 along a random direction: <vjp, v> must equal
    (L(x + εv) − L(x − εv)) / 2ε for L = Σ <cotangent, output>."""
    function = Differentiated(case)
    failures: list[str] = []
    for run, inputs in runs(case):
        rng = np.random.default_rng(seed(case.name, run))
        arguments, leaves = function.leaves(inputs, np.float64)
        if not leaves:
            continue
        for _, leaf in leaves:  # away from the kinks of relu, abs, max (PyTorch's inputs sit on some)
            leaf.array = leaf.array + rng.uniform(1e-3, 2e-3, leaf.array.shape) * rng.choice([-1, 1], leaf.array.shape)
        try:
            outputs = function(arguments)
            # outputs computed in float64 (one cast to float32 is not differentiable numerically)
            cotangents = {p: rng.standard_normal(o.array.shape) for p, o in outputs
                          if requires_grad(o) and o.array.dtype == np.float64}  # fmt: skip
            if not cotangents:
                continue
            grads = vjp([(p, o) for p, o in outputs if p in cotangents], cotangents, leaves)
        except TorchScriptError as error:
            if "in-place operation" not in error.message and "inplace operation" not in error.message:
                failures.append(f"run {run}: raised {error.message}")  # PyTorch raises those (test above)
            continue
        directions = [rng.standard_normal(v.array.shape) for _, v in leaves]
        analytic = sum(float(np.sum(g * d)) for g, d in zip(grads, directions))
        values = []
        for sign in (1, -1):
            shifted, shifted_leaves = function.leaves(inputs, np.float64)
            for (_, leaf), (_, base), direction in zip(shifted_leaves, leaves, directions):
                leaf.array = base.array + sign * EPSILON * direction  # still requiring grad: the same specialization
            result = function(shifted)
            values.append(sum(float(np.sum(np.asarray(_array(o), np.float64) * cotangents[p])) for p, o in result if p in cotangents))
        numeric = (values[0] - values[1]) / (2 * EPSILON)
        if not np.isclose(analytic, numeric, rtol=1e-4, atol=1e-5):
            failures.append(f"run {run}: directional derivative {analytic} != finite difference {numeric}")
    assert not failures, "\n".join(failures)


def _array(value: Any) -> np.ndarray:
    return value.array if isinstance(value, Variable) else value
