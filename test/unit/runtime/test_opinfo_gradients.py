"""Gradients of PyTorch's OpInfo samples, against PyTorch autograd and finite differences.

For every `op_db` entry with float64 samples in `test/data/opinfo` (see test_opinfo.py)
whose graph mode passes there, PyTorch's graph of the sample is compiled by an executor
that records gradients (single operators through the eager recording, several through
a DifferentiableGraph), its float64 tensor inputs made leaves that require grad, but
those the operator refuses to differentiate (it must raise PyTorch's error for them).
The vector-Jacobian product of the float64 outputs that require grad must match

- PyTorch autograd's for the same cotangents, recorded by
  `scripts/generate_opinfo_gradient_data.py` (`test/data/opinfo_gradients`), to the
  entry's float64 tolerance: the same inputs differentiated, the same outputs requiring
  grad, the same gradients;
- central differences in float64 along a random direction (PyTorch's fast gradcheck),
  also where PyTorch has no derivative or a wrong one (`PYTORCH_GRADIENT_WRONG`).

Operators without a gradient formula fail, naming the operator. `make test` checks the
first float64 sample of every SAMPLE_EVERY-th entry, `make gradients`
(`TSJIT_OPINFO=full`) every sample of every entry. Known failures are `entry reason`
lines of `opinfo_gradient_expected_failures.txt`, strict xfails: the list only shrinks.
"""

from __future__ import annotations

import functools
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tsjit.runtime.autograd import Variable, grad
from tsjit.runtime.errors import TorchScriptError

from .test_opinfo import DEFAULT_TOLERANCE, FULL, ROOT, dataset, entry_id, expected_failure

EXPECTED_FAILURES = Path(__file__).with_name("opinfo_gradient_expected_failures.txt")
RECORDED = ROOT / "test" / "data" / "opinfo_gradients"
EPSILON = 1e-6
SAMPLE_EVERY = 4
"""`make test` checks every fourth entry (a fixed sample, all kinds of operators)."""
PYTORCH_GRADIENT_WRONG = {
    "as_strided_scatter": "PyTorch's gradient of self zeroes the complement of the scattered elements "
    "(torch.autograd.gradcheck fails on these samples)",
}
"""Entries whose recorded PyTorch gradients are wrong: checked against finite differences only."""


@functools.cache
def recorded() -> tuple[dict[str, Any], np.ndarray]:
    document = json.loads((RECORDED / "gradients.json").read_text(encoding="utf-8"))
    with np.load(RECORDED / "gradients.npz") as npz:
        return document["entries"], npz["float64"]


def cotangent(shape: tuple[int, ...], k: int) -> np.ndarray:
    """The cotangent of the k-th output that requires grad, as the generator made it."""
    return np.cos(np.arange(math.prod(shape), dtype=np.float64) * 0.37 + k + 1.0).reshape(shape)


@functools.cache
def expected_failures() -> dict[tuple[str, int | None], str]:
    """(entry, sample number or None for every sample) -> reason."""
    rules = {}
    for line in EXPECTED_FAILURES.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            key, reason = line.split(maxsplit=1)
            name, _, number = key.partition(":")
            rules[(name, int(number) if number else None)] = reason
    return rules


def expected_failure_of(name: str, number: int) -> str | None:
    rules = expected_failures()
    return rules.get((name, number)) or rules.get((name, None))


def samples(entry: dict[str, Any]) -> list[tuple[int, dict[str, Any]]]:
    """The entry's float64 samples that return a value and are not random, by number."""
    return [(n, s) for n, s in enumerate(entry.get("samples", ())) if s["dtype"] == "float64"
            and "raises" not in s and not s.get("random")]  # fmt: skip


def cases() -> list[Any]:
    params = []
    for index, entry in enumerate(dataset().entries):
        name = entry_id(entry)
        if not samples(entry) or expected_failure(name, "float64", "graph"):
            continue  # no sample, or its forward is a known failure (test_opinfo)
        if not FULL and index % SAMPLE_EVERY:
            continue
        params.append(pytest.param(index, id=name))
    return params


@functools.cache
def executors(graph: int) -> tuple[Any, Any]:
    """The sample graph's executor recording gradients, and a plain one."""
    import tsjit
    from tsjit.context import make_context
    from tsjit.formats.torchscript_text import import_graph_text

    module = import_graph_text(make_context(), dataset().graphs[graph], f"<opinfo graph {graph}>")
    return tsjit.compile(module, pipeline=(), autograd=True), tsjit.compile(module, pipeline=())


def _leaves(value: Any, leaves: list[Variable], constant: frozenset[int] = frozenset()) -> Any:
    """`value` with its float64 tensors as leaves requiring grad, but for those whose
    number (in order) is in `constant`."""
    if isinstance(value, np.ndarray) and value.dtype == np.float64:
        leaf = Variable(value.copy(), requires_grad=len(leaves) not in constant)
        leaves.append(leaf)
        return leaf
    if isinstance(value, (list, tuple)):
        items = [_leaves(v, leaves, constant) for v in value]
        return items if isinstance(value, list) else tuple(items)
    return value


NOT_DIFFERENTIABLE = "is not differentiable with respect to argument"


def _recorded(recording: Any, inputs: list[Any]) -> tuple[Any, list[Variable]]:
    """The recording call with the inputs as leaves, but those PyTorch does not
    differentiate (running statistics, class weights): each such error names one, which
    the first leaf whose exclusion changes the error is taken to be. Returns the result
    and every float64 input (those that require grad are the leaves)."""
    constant: frozenset[int] = frozenset()
    while True:
        leaves: list[Variable] = []
        arguments = [_leaves(v, leaves, constant) for v in inputs]
        try:
            return recording(*arguments), leaves
        except TorchScriptError as error:
            if NOT_DIFFERENTIABLE not in error.message:
                raise
            message = error.message
        for k in range(len(leaves)):
            if k in constant:
                continue
            try:
                recording(*[_leaves(v, [], constant | {k}) for v in inputs])
            except TorchScriptError as error:
                if error.message == message:
                    continue
            constant |= {k}
            break
        else:
            raise AssertionError(f"no input is the one the error names: {message}")


def _shifted(value: Any, shifts: list[np.ndarray]) -> Any:
    """`value` with each float64 tensor, in order, replaced by the next of `shifts`."""
    if isinstance(value, np.ndarray) and value.dtype == np.float64:
        return shifts.pop(0)
    if isinstance(value, (list, tuple)):
        items = [_shifted(v, shifts) for v in value]
        return items if isinstance(value, list) else tuple(items)
    return value


def _outputs(value: Any, path: str = "") -> list[tuple[str, Any]]:
    """The float64 tensors of a result by path."""
    array = value.array if isinstance(value, Variable) else value
    if isinstance(array, np.ndarray):
        return [(path, value)] if array.dtype == np.float64 else []
    if isinstance(value, (list, tuple)):
        return [found for k, v in enumerate(value) for found in _outputs(v, f"{path}.{k}")]
    return []


def gradcheck(entry: dict[str, Any], number: int, sample: dict[str, Any], rng: np.random.Generator) -> str | None:
    """None when the sample's vector-Jacobian product matches PyTorch's and finite
    differences."""
    data = dataset()
    recording, plain = executors(sample["graph"])
    inputs = [data.value(v) for v in sample["inputs"]]
    try:
        plain(*[data.value(v) for v in sample["inputs"]])
    except TorchScriptError:
        return None  # the forward raises on this sample: test_opinfo's business
    entries, values = recorded()
    expected = entries.get(entry_id(entry), {}).get(str(number), {})
    try:
        result, tensors = _recorded(recording, inputs)
    except TorchScriptError as error:
        if _underivable(error, expected):
            return None
        raise
    leaves = [t for t in tensors if t.requires_grad]
    outputs = [(p, o) for p, o in _outputs(result) if isinstance(o, Variable) and o.requires_grad]
    if "grads" in expected:
        constant = [k for k, t in enumerate(tensors) if not t.requires_grad]
        if constant != expected["constant"]:
            return f"inputs {constant} do not require grad, PyTorch's {expected['constant']}"
        if [p for p, _ in outputs] != expected["outputs"]:
            return f"outputs {[p for p, _ in outputs]} require grad, PyTorch's {expected['outputs']}"
    if not leaves or not outputs:
        return None
    cotangents = [cotangent(o.array.shape, k) for k, (_, o) in enumerate(outputs)]
    try:
        grads = grad([o for _, o in outputs], leaves, cotangents, allow_unused=True, materialize_grads=True)
    except TorchScriptError as error:
        if _underivable(error, expected):
            return None
        raise
    rtol, atol = entry.get("tolerance", {}).get("float64", DEFAULT_TOLERANCE["float64"])
    recorded_grads = () if entry_id(entry) in PYTORCH_GRADIENT_WRONG else expected.get("grads", ())
    for k, (actual, (offset, shape)) in enumerate(zip(grads, recorded_grads)):
        want = values[offset : offset + math.prod(shape)].reshape(shape)
        actual = np.asarray(actual, np.float64)
        if actual.shape != want.shape or not np.allclose(actual, want, rtol=rtol, atol=atol, equal_nan=True):
            error = np.nanmax(np.abs(actual - want)) if actual.shape == want.shape else f"shape {actual.shape}"
            return f"gradient of leaf {k} differs from PyTorch's (max error {error})"
    if not any(leaf.array.size for leaf in leaves):
        return None  # empty inputs: no direction to differentiate along
    directions = [rng.standard_normal(t.array.shape) if t.requires_grad else np.zeros(t.array.shape) for t in tensors]
    analytic = sum(float(np.sum(g * d)) for g, d in zip(grads, (d for t, d in zip(tensors, directions) if t.requires_grad)))
    values_at = []
    for sign in (1, -1):
        shifts = [np.asarray(t.array + sign * EPSILON * d) for t, d in zip(tensors, directions)]
        found = dict(_outputs(plain(*_shifted(inputs, shifts))))
        values_at.append(sum(float(np.sum(np.asarray(found[p], np.float64) * c)) for (p, _), c in zip(outputs, cotangents)))
    numeric = (values_at[0] - values_at[1]) / (2 * EPSILON)
    if np.isclose(analytic, numeric, rtol=1e-4, atol=1e-5) or (np.isnan(analytic) and np.isnan(numeric)):
        return None
    return f"directional derivative {analytic} != finite difference {numeric}"


def _underivable(error: TorchScriptError, expected: dict) -> bool:
    """No formula, as PyTorch has no derivative (both raise, in the forward or the backward)."""
    return "cannot differentiate" in error.message and "derivative for" in expected.get("raises", "")


@pytest.mark.parametrize("index", cases())
def test_opinfo_gradients(index: int):
    entry = dataset().entries[index]
    chosen = samples(entry) if FULL else samples(entry)[:1]
    failures, expected = [], []
    for number, sample in chosen:
        try:
            problem = gradcheck(entry, number, sample, np.random.default_rng(number))
        except TorchScriptError as error:
            problem = f"raised {error}"
        reason = expected_failure_of(entry_id(entry), number)
        source = dataset().sources[sample["source"]].splitlines()[-1].strip()
        if problem and reason:
            expected.append(f"sample {number}: {reason}")
        elif problem:
            failures.append(f"sample {number} ({source}): {problem}")
        elif reason:
            failures.append(f"sample {number} ({source}) passes: remove it from {EXPECTED_FAILURES.name}")
    assert not failures, "\n".join(failures)
    if expected:  # strict: every expected failure above failed
        pytest.xfail("; ".join(expected))


def test_the_expected_failures_name_real_samples():
    entries = {entry_id(e): e for e in dataset().entries}
    for name, number in expected_failures():
        assert name in entries, name
        assert number is None or number in dict(samples(entries[name])), f"{name}:{number}"
