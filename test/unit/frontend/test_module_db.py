"""PyTorch's ModuleInfo samples: `torch.nn` layers scripted by tsjit, against what the
layers scripted by TorchScript returned.

`scripts/generate_moduleinfo_data.py` recorded, for every `module_db` entry that
`torch.jit.script` accepts in eval mode, a few float32 samples: the constructor's
arguments, the parameters and buffers, the forward arguments and the scripted module's
result (`test/data/modules/`). Here each sample builds the layer from tsjit's own
`torch.nn` (the shim: no PyTorch), loads the recorded state, scripts it with
`tsjit.script` and runs it on the interpreter and on the llvm backend. `make modules`
(`TSJIT_MODULES=full`) runs every sample, on the interpreter through the profiling
executor as users call a scripted module; `make test` runs the first sample of each
entry on the interpreter without the executor's optimizations, and on the llvm backend
the first sample of the entries in `LLVM_IN_MAKE_TEST`. A result
passes with the recorded structure, dtypes, shapes and values (float32: rtol 1e-4,
atol 1e-5); a random result (`"random"`) is checked for structure, dtypes and shapes.
Known failures are listed with a reason in `module_db_expected_failures.txt`, marked
strict xfails. With `-m interop`, the same samples script the real PyTorch layer.
The run ends with the figures: entries passing per mode.
"""

from __future__ import annotations

import functools
import json
import math
import os
from collections.abc import Callable, Iterator
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import tsjit
from tsjit.frontend import torch_shim as torch
from tsjit.frontend.script import bind_arguments
from tsjit.runtime.errors import TorchScriptError

DATA = Path(__file__).resolve().parents[2] / "data" / "modules"
EXPECTED_FAILURES = Path(__file__).with_name("module_db_expected_failures.txt")
MODES = ("interp", "llvm", "interop")
TOLERANCE = {"float32": (1e-4, 1e-5), "float64": (1e-7, 1e-7)}
FULL = os.environ.get("TSJIT_MODULES") == "full"
LLVM_IN_MAKE_TEST = frozenset({"GELU", "CrossEntropyLoss"})
"""The entries `make test` also runs on the llvm backend (all of them: `make modules`);
Conv2d, BatchNorm2d, Linear, LayerNorm, LSTM and TransformerEncoderLayer run there in
test_nn_models.py's everyday models."""



# --------------------------------------------------------------------------------------
# The dataset
# --------------------------------------------------------------------------------------


@functools.cache
def dataset() -> tuple[list[dict[str, Any]], dict[str, np.ndarray]]:
    document = json.loads((DATA / "modules.json").read_text(encoding="utf-8"))
    with np.load(DATA / "modules.npz") as npz:
        arrays = {name: npz[name] for name in npz.files}
    return document["entries"], arrays


def decode(encoded: dict[str, Any], torch_module: Any = torch, as_tensor: Any = None) -> Any:
    """The value of a recorded value, its tensors (fresh arrays) made by `as_tensor` and
    its modules and functions taken from `torch_module` (the shim or PyTorch)."""
    ((kind, payload),) = encoded.items()
    if kind == "tensor":
        dtype, offset, shape = payload
        array = dataset()[1][dtype][offset : offset + math.prod(shape)].reshape(shape).copy()
        return (as_tensor or torch.tensor)(array)
    if kind in ("list", "tuple"):
        items = [decode(v, torch_module, as_tensor) for v in payload]
        return items if kind == "list" else tuple(items)
    if kind == "dict":
        return {k: decode(v, torch_module, as_tensor) for k, v in payload}
    if kind == "float":
        return float(payload)
    if kind == "dtype":
        return getattr(torch_module, payload)
    if kind == "module":
        name, args, kwargs = payload
        cls = getattr(torch_module.nn, name)
        return cls(*(decode(a, torch_module, as_tensor) for a in args),
                   **{k: decode(v, torch_module, as_tensor) for k, v in kwargs.items()})  # fmt: skip
    if kind == "function":
        module, _, name = payload.rpartition(".")
        namespace = torch_module.nn.functional if module == "torch.nn.functional" else torch_module
        return getattr(namespace, name)
    return payload  # none, bool, int, str


def entry_name(entry: dict[str, Any]) -> str:
    return entry["name"].removeprefix("nn.")


# --------------------------------------------------------------------------------------
# Expected failures
# --------------------------------------------------------------------------------------


@functools.cache
def expected_failures() -> list[tuple[str, str, str]]:
    """(entry, mode, reason) from lines `entry mode reason...` (shell patterns allowed)."""
    rules = []
    for number, line in enumerate(EXPECTED_FAILURES.read_text(encoding="utf-8").splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.split(maxsplit=2)
        if len(parts) < 3:
            raise ValueError(f"{EXPECTED_FAILURES.name}:{number}: a line is `entry mode reason`")
        rules.append((parts[0], parts[1], parts[2]))
    return rules


def expected_failure(entry: str, mode: str) -> str | None:
    for pattern, modes, reason in expected_failures():
        if fnmatchcase(entry, pattern) and fnmatchcase(mode, modes):
            return reason
    return None


def cases() -> Iterator[Any]:
    entries, _ = dataset()
    for index, entry in enumerate(entries):
        if not entry.get("samples"):
            continue
        for mode in MODES:
            name = entry_name(entry)
            if mode == "llvm" and not FULL and name not in LLVM_IN_MAKE_TEST:
                continue
            marks = [pytest.mark.interop] if mode == "interop" else []
            if (reason := expected_failure(name, mode)) is not None:
                marks.append(pytest.mark.xfail(strict=True, reason=reason))
            yield pytest.param(index, mode, marks=marks, id=f"{name}-{mode}")


# --------------------------------------------------------------------------------------
# Running a sample
# --------------------------------------------------------------------------------------


def shim_module(sample: dict[str, Any], cls_name: str) -> Any:
    constructor = sample["constructor"]
    module = getattr(torch.nn, cls_name)(*(decode(a) for a in constructor["args"]),
                                         **{k: decode(v) for k, v in constructor["kwargs"].items()})  # fmt: skip
    module.load_state_dict({name: decode(value) for name, value in sample["state"].items()})
    return module.eval()


def pytorch_module(sample: dict[str, Any], cls_name: str) -> Any:
    import torch as real  # the interop mode's PyTorch

    def as_tensor(array: np.ndarray) -> Any:
        return real.from_numpy(array)

    constructor = sample["constructor"]
    real.manual_seed(0)
    module = getattr(real.nn, cls_name)(*(decode(a, real, as_tensor) for a in constructor["args"]),
                                        **{k: decode(v, real, as_tensor) for k, v in constructor["kwargs"].items()})  # fmt: skip
    module.load_state_dict({name: decode(value, real, as_tensor) for name, value in sample["state"].items()})
    return module.eval()


def run_sample(mode: str, entry: dict[str, Any], sample: dict[str, Any]) -> str | None:
    """None when tsjit agrees with TorchScript on the sample, else why not."""
    inputs = sample["inputs"]
    args = [decode(a, as_tensor=np.asarray) for a in inputs["args"]]
    kwargs = {k: decode(v, as_tensor=np.asarray) for k, v in inputs["kwargs"].items()}
    try:
        if mode == "interop":
            scripted = tsjit.script(pytorch_module(sample, entry["class"]))
        else:
            scripted = tsjit.script(shim_module(sample, entry["class"]))
        if mode == "llvm":
            run = tsjit.compile(scripted.module, scripted.name, backend="llvm")
            result = run(*scripted.executor_arguments(bind_arguments(scripted.entry, tuple(args), kwargs)))
        elif FULL or mode == "interop":
            result = scripted(*args, **kwargs)  # the profiling executor, as users call it
        else:  # the interpreter on the scripted graph, without the executor's optimizations
            run = tsjit.compile(scripted.module, scripted.name, pipeline=())
            result = run(*scripted.executor_arguments(bind_arguments(scripted.entry, tuple(args), kwargs)))
    except TorchScriptError as error:
        return f"raised {str(error).splitlines()[0]}"
    except Exception as error:  # noqa: BLE001 -- a compile error or crash fails the sample
        return f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"
    return mismatch(result, sample["outputs"], sample.get("random", False))


def mismatch(actual: Any, expected: dict[str, Any], random: bool, where: str = "result") -> str | None:
    ((kind, payload),) = expected.items()
    if kind in ("tensor", "tensor_spec"):
        dtype, shape = (payload[0], payload[2]) if kind == "tensor" else payload
        if type(actual) is not np.ndarray:
            return f"{where}: {type(actual).__name__} where a tensor was expected"
        if actual.dtype.name != dtype or list(actual.shape) != shape:
            return f"{where}: {actual.dtype.name}{list(actual.shape)} != {dtype}{shape}"
        if kind == "tensor_spec":
            return None
        want = decode(expected, as_tensor=np.asarray)
        rtol, atol = TOLERANCE.get(actual.dtype.name, (0.0, 0.0))
        close = np.isclose(actual, want, rtol=rtol, atol=atol, equal_nan=True)
        if not close.all():
            index = tuple(int(i) for i in np.argwhere(~close)[0])
            return f"{where}: {int((~close).sum())} of {close.size} differ, first at {list(index)}: {actual[index]} != {want[index]}"
        return None
    if kind in ("tuple", "list"):
        if not isinstance(actual, (tuple, list)) or len(actual) != len(payload):
            return f"{where}: {type(actual).__name__} where a {kind} of {len(payload)} was expected"
        for k, (a, e) in enumerate(zip(actual, payload)):
            if (found := mismatch(a, e, random, f"{where}[{k}]")) is not None:
                return found
        return None
    value = decode(expected)
    if random or actual == value or (isinstance(value, float) and math.isnan(value) and math.isnan(actual)):
        return None
    return f"{where}: {actual!r} != {value!r}"


# --------------------------------------------------------------------------------------
# The tests
# --------------------------------------------------------------------------------------


def test_the_dataset_covers_module_db():
    """Every module_db entry is recorded, scripted or skipped with PyTorch's reason."""
    entries, _ = dataset()
    assert len(entries) >= 110
    for entry in entries:
        assert entry.get("samples") or entry.get("skipped"), entry["name"]


def test_the_expected_failures_name_real_entries():
    names = [entry_name(e) for e in dataset()[0] if e.get("samples")]
    for pattern, modes, _ in expected_failures():
        assert any(fnmatchcase(n, pattern) for n in names), pattern
        assert any(fnmatchcase(m, modes) for m in MODES), modes


@functools.cache
def figures_title() -> str:
    """The title of the run summary's table of pass figures (see test/conftest.py)."""
    entries = dataset()[0]
    scripted = sum(1 for e in entries if e.get("samples"))
    scope = "every sample" if FULL else "the first sample of each entry"
    return f"module_db entries passing ({scripted} of {len(entries)} script in PyTorch; {scope})"


@pytest.mark.parametrize(("index", "mode"), list(cases()))
def test_module(index: int, mode: str, figures: Callable[..., None]):
    if mode == "interop":
        pytest.importorskip("torch")
    entry = dataset()[0][index]
    samples = entry["samples"] if FULL or mode == "interop" else entry["samples"][:1]
    failures = []
    for number, sample in enumerate(samples):
        problem = run_sample(mode, entry, sample)
        if problem:
            failures.append(f"sample {number} ({sample['desc'] or 'default'}): {problem}")
    figures(figures_title(), mode, "", {"failed" if failures else "passed": 1})
    assert not failures, "\n".join(failures)
