"""Eager programs (test/data/traced/programs.py) traced by `tsjit.trace` on tsjit's torch
shim, against what `torch.jit.trace` did with them (programs.json, written by
scripts/generate_traced_data.py): the same TracerWarnings, the node kinds of PyTorch's
traced graph — the same kinds, each as often but constants — and of its inlined graph for
modules, and PyTorch's outputs on two sets of inputs. Known differences of node kinds
are listed with a reason each."""

from __future__ import annotations

import collections
import copy
import json
import warnings
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

import tsjit
from tsjit.context import make_context
from tsjit.frontend.script import run_user_file
from tsjit.frontend.source import SourceFile
from tsjit.frontend.tracer import TracerWarning
from tsjit.runtime.values import decode_value, match_value
from tsjit.transforms import PASSES

DATA = Path(__file__).resolve().parents[2] / "data" / "traced"

KIND_DIFFERENCES: dict[str, str] = {}
"""Programs whose traced node kinds differ from PyTorch's, and why."""


@cache
def records() -> dict[str, Any]:
    return json.loads((DATA / "programs.json").read_text(encoding="utf-8"))["programs"]


@cache
def namespace() -> dict[str, Any]:
    path = DATA / "programs.py"
    return run_user_file(SourceFile(str(path), path.read_text(encoding="utf-8")))


def target(name: str) -> Any:
    value = namespace()[name]
    if not isinstance(value, type):
        return value
    module = value().eval()
    record = records()[name]
    tables = {**dict(module.named_parameters()), **dict(module.named_buffers())}
    for key, encoded in {**record["parameters"], **record["buffers"]}.items():
        tables[key].array[...] = decode_value(encoded)
    return module


def kinds(module: ModuleOp, entry: str) -> collections.Counter[str]:
    function = next(op for op in module.ops if isinstance(op, func.FuncOp) and op.sym_name.data == entry)
    found: collections.Counter[str] = collections.Counter()
    for op in function.walk():
        if op is function or op.name == "func.return":
            continue
        if op.name == "func.call":  # PyTorch's prim::CallFunction of a Function constant
            found.update(["prim::CallFunction", "prim::Constant"])
            continue
        namespace_, _, kind = op.name.partition(".")
        found[f"{namespace_}::{kind}"] += 1
    return found


def without_constants(counts: collections.Counter[str]) -> collections.Counter[str]:
    """Node counts but constants': PyTorch's Python bindings pick overloads by their own
    order (`x.std()` is `std.correction`, with more constant arguments than `std`)."""
    return collections.Counter({k: n for k, n in counts.items() if k != "prim::Constant"})


def inlined(module: ModuleOp) -> ModuleOp:
    copied = module.clone()
    PASSES["inline"]()().apply(make_context(), copied)
    return copied


@pytest.mark.parametrize("name", sorted(records()))
def test_program_traces_as_pytorch_does(name: str):
    record = records()[name]
    input_sets = [tuple(decode_value(v) for v in inputs) for inputs in record["inputs"]]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        traced = tsjit.trace(target(name), copy.deepcopy(input_sets[0]))
    messages = sorted({str(w.message) for w in caught if issubclass(w.category, TracerWarning)})
    assert messages == record["warnings"]
    ours = kinds(traced.module, traced.name)
    theirs = collections.Counter(record["kinds"])
    if name in KIND_DIFFERENCES:
        assert set(ours) != set(theirs), f"{name} now matches PyTorch: remove it from KIND_DIFFERENCES"
    else:
        assert set(ours) == set(theirs), f"extra {set(ours) - set(theirs)}, missing {set(theirs) - set(ours)}"
        assert without_constants(ours) == without_constants(theirs), f"extra {dict(ours - theirs)}, missing {dict(theirs - ours)}"
        if "inlined_kinds" in record:
            flat, expected = set(kinds(inlined(traced.module), traced.name)), set(record["inlined_kinds"])
            assert flat == expected, f"inlined: extra {flat - expected}, missing {expected - flat}"
    for number, (inputs, expected_output) in enumerate(zip(input_sets, record["outputs"])):
        mismatch = match_value(traced(*copy.deepcopy(inputs)), decode_value(expected_output), 1e-5, 1e-6)
        assert mismatch is None, f"input set {number}: {mismatch}"


def test_every_program_is_recorded():
    assert sorted(namespace()["PROGRAMS"]) == sorted(records())
