"""PyTorch's OpInfo samples run through tsjit, against what TorchScript returned.

`scripts/generate_opinfo_data.py` recorded, for every `op_db` entry TorchScript can call
on the CPU, small samples in float32, float64, int64 and bool: a tiny function calling
the operator (its source and PyTorch's inlined graph), the inputs, and TorchScript's
result or error (`test/data/opinfo/`). Each sample runs in three ways:

    graph   PyTorch's graph text, imported, on the interpreter (the kernels as
            TorchScript calls them: the figure of record)
    script  the source compiled by `tsjit.script`, on the interpreter (tsjit's own
            frontend, schema matching and library)
    llvm    the graph on the llvm backend, for elementwise operators (their fused kernel)

A sample passes when the result has the recorded structure (a NamedTuple with its field
names, lists and tuples as such), dtypes and shapes, and values within the entry's
tolerance for float dtypes (exact otherwise); a sample TorchScript raised on passes when
tsjit raises a TorchScriptError too; a random operator's sample (`"random"`) is checked
for structure, dtypes and shapes only. One test per entry, dtype and mode runs its
samples. `make test` runs every sample in the graph mode and the first sample of each
entry and dtype in the others; `make opinfo` (`TSJIT_OPINFO=full`) runs them all.
Known failures are listed with a reason in `opinfo_expected_failures.txt` and
marked strict xfails, so the list only shrinks; a line naming one sample (`entry@N`)
expects that sample alone to fail, where the entry's others pass. The run ends with the pass figures per
mode and dtype.
"""

from __future__ import annotations

import functools
import json
import math
import os
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tsjit.diagnostics import TsjitError
from tsjit.dialects.types import DTYPE_BY_TORCH_NAME
from tsjit.runtime.errors import TorchScriptError
from tsjit.runtime.values import Device, NamedTupleValue

ROOT = Path(__file__).resolve().parents[3]
DATA = ROOT / "test" / "data" / "opinfo"
EXPECTED_FAILURES = Path(__file__).with_name("opinfo_expected_failures.txt")
MODES = ("graph", "script", "llvm")
SOURCE_HEADER = "import torch\nfrom typing import List, Optional, Tuple\n\n"
EXACT = (0.0, 0.0)
DEFAULT_TOLERANCE = {"float32": (1e-5, 1e-5), "float64": (1e-7, 1e-7), "complex64": (1e-5, 1e-5),
                     "complex128": (1e-7, 1e-7), "float16": (1e-3, 1e-3)}  # fmt: skip

FULL = os.environ.get("TSJIT_OPINFO") == "full"
"""Every sample in every mode (`make opinfo`), else every sample in the graph mode only."""

FIGURES = "OpInfo samples passing (" + (
    "every sample" if FULL else "every sample in graph mode, the first of each entry and dtype in the others"
) + ")"
"""The title of the run summary's table of pass figures (see test/conftest.py)."""


# --------------------------------------------------------------------------------------
# The dataset
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Dataset:
    entries: list[dict[str, Any]]
    sources: list[str]
    graphs: list[str]
    arrays: dict[str, np.ndarray]

    def value(self, encoded: dict[str, Any]) -> Any:
        """The run-time value of a recorded value (a fresh array for each tensor)."""
        ((kind, payload),) = encoded.items()
        if kind == "tensor":
            dtype, offset, shape = payload
            return self.arrays[dtype][offset : offset + math.prod(shape)].reshape(shape).copy()
        if kind in ("list", "tuple"):
            items = [self.value(v) for v in payload]
            return items if kind == "list" else tuple(items)
        if kind == "namedtuple":
            return NamedTupleValue([self.value(v) for v in payload["items"]], "", payload["fields"])
        if kind == "float":
            return float(payload)  # float("nan"), float("inf") too
        if kind == "dtype":
            return DTYPE_BY_TORCH_NAME[payload].code
        if kind == "device":
            return Device.parse(payload)
        return payload  # int, bool, str, none


@functools.cache
def dataset() -> Dataset:
    document = json.loads((DATA / "opinfo.json").read_text(encoding="utf-8"))
    with np.load(DATA / "opinfo.npz") as npz:
        arrays = {name: npz[name] for name in npz.files}
    graphs = bytes(arrays.pop("graphs")).decode("utf-8").split("\0")
    return Dataset(document["entries"], document["sources"], graphs, arrays)


def entry_id(entry: dict[str, Any]) -> str:
    return entry["name"] + (f".{entry['variant']}" if entry["variant"] else "")


# --------------------------------------------------------------------------------------
# Expected failures
# --------------------------------------------------------------------------------------


@functools.cache
def expected_failures() -> list[tuple[str, str, str, str]]:
    """(entry, dtype, mode, reason) from lines `entry dtype mode reason...`; entry,
    dtype and mode may be shell patterns (`special.*`, `*`), and `entry@N` names the
    entry's sample N (counted per dtype). # starts a comment."""
    rules = []
    for number, line in enumerate(EXPECTED_FAILURES.read_text(encoding="utf-8").splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.split(maxsplit=3)
        if len(parts) < 4:
            raise ValueError(f"{EXPECTED_FAILURES.name}:{number}: a line is `entry dtype mode reason`")
        rules.append((parts[0], parts[1], parts[2], parts[3]))
    return rules


def expected_failure(entry: str, dtype: str, mode: str) -> str | None:
    """Why the case (`entry`) or one of its samples (`entry@N`) fails, if it does."""
    for pattern, dtypes, modes, reason in expected_failures():
        if ("@" in pattern) != ("@" in entry):
            continue
        if fnmatchcase(entry, pattern) and fnmatchcase(dtype, dtypes) and fnmatchcase(mode, modes):
            return reason
    return None


def cases() -> Iterator[Any]:
    for index, entry in enumerate(dataset().entries):
        dtypes = list(dict.fromkeys(s["dtype"] for s in entry.get("samples", ())))
        for mode in MODES:
            if mode == "llvm" and not entry["elementwise"]:
                continue
            for dtype in dtypes:
                name = entry_id(entry)
                reason = expected_failure(name, dtype, mode)
                marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
                yield pytest.param(index, dtype, mode, marks=marks, id=f"{name}-{dtype}-{mode}")


# --------------------------------------------------------------------------------------
# Running a sample
# --------------------------------------------------------------------------------------


@functools.cache
def compiled(mode: str, key: int) -> Callable[..., Any]:
    """The callable of a recorded graph (graph, llvm) or source (script), compiled once."""
    import tsjit

    data = dataset()
    if mode == "script":
        return tsjit.script(SOURCE_HEADER + data.sources[key])
    from tsjit.context import make_context
    from tsjit.formats.torchscript_text import import_graph_text

    module = import_graph_text(make_context(), data.graphs[key], f"<opinfo graph {key}>")
    if mode == "graph":
        return tsjit.compile(module, pipeline=())
    return tsjit.compile(module, backend="llvm")


def run_sample(mode: str, entry: dict[str, Any], sample: dict[str, Any]) -> str | None:
    """None when tsjit agrees with TorchScript on the sample, else why not."""
    data = dataset()
    try:
        fn = compiled(mode, sample["source" if mode == "script" else "graph"])
        result = fn(*[data.value(v) for v in sample["inputs"]])
    except TorchScriptError as error:
        if "raises" in sample:
            return None
        return f"raised {error}"
    except TsjitError as error:
        return f"compile error: {str(error).splitlines()[0]}"
    except Exception as error:  # noqa: BLE001 -- a crash is a failing sample, reported as such
        return f"crashed: {type(error).__name__}: {error}"
    if "raises" in sample:
        return f"returned a value where TorchScript raised {sample['raises']}: {sample['message']}"
    tolerance = entry.get("tolerance", {})
    return mismatch(result, sample["outputs"], tolerance, data, random=sample.get("random", False))


def mismatch(actual: Any, expected: dict[str, Any], tolerance: dict[str, list[float]], data: Dataset,
             random: bool, where: str = "result") -> str | None:  # fmt: skip
    """Where `actual` differs from the recorded value, or None."""
    ((kind, payload),) = expected.items()
    if kind in ("tensor", "tensor_spec"):
        if type(actual) is not np.ndarray:
            return f"{where}: {type(actual).__name__} where a tensor was expected"
        dtype, shape = (payload[0], payload[2]) if kind == "tensor" else payload
        if actual.dtype.name != dtype:
            return f"{where}: dtype {actual.dtype.name} != {dtype}"
        if list(actual.shape) != shape:
            return f"{where}: shape {list(actual.shape)} != {shape}"
        if kind == "tensor_spec":
            return None
        rtol, atol = tolerance.get(dtype) or DEFAULT_TOLERANCE.get(dtype, EXACT)
        return tensor_mismatch(actual, data.value(expected), rtol, atol, where)
    if kind in ("list", "tuple", "namedtuple"):
        items = payload["items"] if kind == "namedtuple" else payload
        if kind == "namedtuple":
            if not isinstance(actual, NamedTupleValue):
                return f"{where}: {type(actual).__name__} where a NamedTuple{tuple(payload['fields'])} was expected"
            if list(actual.fields) != payload["fields"]:
                return f"{where}: NamedTuple fields {list(actual.fields)} != {payload['fields']}"
        elif type(actual) is not (list if kind == "list" else tuple) and not (
            kind == "tuple" and isinstance(actual, tuple)
        ):
            return f"{where}: {type(actual).__name__} where a {kind} was expected"
        if len(actual) != len(items):
            return f"{where}: {len(actual)} items != {len(items)}"
        for k, (a, e) in enumerate(zip(actual, items)):
            if (found := mismatch(a, e, tolerance, data, random, f"{where}[{k}]")) is not None:
                return found
        return None
    value = data.value(expected)
    if type(actual) is not type(value):
        return f"{where}: {type(actual).__name__} {actual!r} != {type(value).__name__} {value!r}"
    if random:
        return None
    if kind == "float":
        rtol, atol = tolerance.get("float64") or DEFAULT_TOLERANCE["float64"]
        if actual == value or (math.isnan(actual) and math.isnan(value)):
            return None
        if math.isfinite(value) and abs(actual - value) <= atol + rtol * abs(value):
            return None
    elif actual == value:
        return None
    return f"{where}: {actual!r} != {value!r}"


def tensor_mismatch(a: np.ndarray, e: np.ndarray, rtol: float, atol: float, where: str) -> str | None:
    if a.dtype.kind in "fc":
        with np.errstate(all="ignore"):
            ok = (a == e) | (np.isnan(a) & np.isnan(e))
            if rtol or atol:
                ok |= np.isfinite(e) & (np.abs(a.astype(np.complex128) - e) <= atol + rtol * np.abs(e))
    else:
        ok = a == e
    if ok.all():
        return None
    index = tuple(int(i) for i in np.argwhere(~ok)[0])
    count = int((~ok).sum())
    return f"{where}: {count} of {ok.size} elements differ, first at {list(index)}: {a[index]!r} != {e[index]!r}"


# --------------------------------------------------------------------------------------
# The tests
# --------------------------------------------------------------------------------------


def test_the_dataset_covers_op_db():
    """Every op_db entry is in the dataset, scripted or skipped with a reason."""
    entries = dataset().entries
    assert len(entries) >= 700
    for entry in entries:
        assert entry.get("samples") or entry.get("skipped"), entry_id(entry)


def test_the_expected_failures_name_real_cases():
    """Each line of the expected-failure list matches some case (a fixed entry's line
    goes; a misspelled one would hide nothing)."""
    names = []
    for e in dataset().entries:
        numbers: Counter[str] = Counter()
        for s in e.get("samples", ()):
            names += [(entry_id(e), s["dtype"]), (f"{entry_id(e)}@{numbers[s['dtype']]}", s["dtype"])]
            numbers[s["dtype"]] += 1
    for pattern, dtypes, modes, _ in expected_failures():
        assert any(fnmatchcase(n, pattern) and fnmatchcase(d, dtypes) for n, d in names), pattern
        assert any(fnmatchcase(m, modes) for m in MODES), modes


@pytest.mark.parametrize(("index", "dtype", "mode"), list(cases()))
def test_opinfo(index: int, dtype: str, mode: str, figures: Callable[..., None]):
    entry = dataset().entries[index]
    failures = []
    counts: Counter[str] = Counter()
    samples = [s for s in entry["samples"] if s["dtype"] == dtype]
    if mode != "graph" and not FULL:
        samples = samples[:1]
    for number, sample in enumerate(samples):
        native_before = native_calls(mode, sample)
        problem = run_sample(mode, entry, sample)
        counts["failed" if problem else "passed"] += 1
        if problem is None and native_calls(mode, sample) > native_before:
            counts["native"] += 1
        expected = expected_failure(f"{entry_id(entry)}@{number}", dtype, mode)
        if expected and not problem:
            problem = f"passes now, but is listed as an expected failure ({expected}): its line goes"
        elif expected:
            continue
        if problem:
            source = dataset().sources[sample["source"]].splitlines()[-1].strip()
            failures.append(f"sample {number} ({source}): {problem}")
    figures(FIGURES, mode, dtype, counts)
    assert not failures, "\n".join(failures)


def native_calls(mode: str, sample: dict[str, Any]) -> int:
    """Kernel calls the llvm executor of the sample's graph has made so far."""
    if mode != "llvm":
        return 0
    try:
        return compiled(mode, sample["graph"]).statistics()["kernel_calls"]
    except Exception:  # noqa: BLE001 -- the sample's own run reports why it does not compile
        return 0
