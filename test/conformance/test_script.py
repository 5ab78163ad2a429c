"""Every case of the conformance corpus scripted from its `source.py` by tsjit's
frontend: the scripted program reproduces every run TorchScript recorded, its graph
after inlining and cleanup has the node kinds of PyTorch's `graph.opt.txt`, and the
Python printer's code for it scripts back to a program with the same results.

Known failures are `case source.py reason` lines of `expected_failures.txt` (the form
`source.py:printed` names the round trip through the printer); known differences of
node kinds are listed below with their reasons. Both lists only shrink.
"""

from __future__ import annotations

import collections
import json
from functools import cache
from pathlib import Path

import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

from tsjit.context import make_context
from tsjit.formats import read_program
from tsjit.formats.mlir import verify
from tsjit.formats.python_code import export_python
from tsjit.formats.torchscript_text import import_graph_text
from tsjit.frontend.script import ScriptFunction, ScriptModule, script_file_text, script_method_source
from tsjit.runtime.executor import GraphExecutor
from tsjit.tools.ts_run import check_runs, module_receiver
from tsjit.transforms import PASSES

KIND_DIFFERENCES: dict[str, str] = {
    "nn_lstm_cell": "tsjit's peephole folds aten.chunk + prim.ListUnpack into prim.ConstantChunk; "
    "PyTorch's cleanup pipeline leaves that to the graph executor",
    "shape_chunk_split": "tsjit's peephole folds aten.chunk + prim.ListUnpack into prim.ConstantChunk; "
    "PyTorch's cleanup pipeline leaves that to the graph executor",
}
"""Cases whose cleaned-up graph differs from graph.opt.txt in node kinds, and why."""

CLEANUP = "torchscript-cleanup"
ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT.parent / "shared" / "conformance"
EXPECTED_FAILURES = Path(__file__).with_name("expected_failures.txt")


def expected_failures() -> dict[tuple[str, str], str]:
    """(case, form) -> reason, from the shared list's `case form reason` lines."""
    failures = {}
    for line in EXPECTED_FAILURES.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            case, form, reason = line.split(maxsplit=2)
            failures[(case, form)] = reason
    return failures


def cases(form: str) -> list[pytest.param]:
    if not CORPUS.is_dir():
        return []
    failures = expected_failures()
    params = []
    for case in sorted(p for p in CORPUS.iterdir() if (p / "source.py").is_file()):
        reason = failures.get((case.name, form))
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        params.append(pytest.param(case, marks=marks, id=case.name))
    return params


@cache
def scripted(case: Path) -> ScriptFunction:
    path = case / "source.py"
    return script_file_text(path.read_text(encoding="utf-8"), str(path))


def run_io(module: ModuleOp, case: Path) -> list[str]:
    """The failed runs of the case's io.json (one line each)."""
    io = json.loads((case / "io.json").read_text(encoding="utf-8"))
    entry = io.get("entry", "forward")
    executor = GraphExecutor(module, entry, pipeline=())  # the graph as written
    receiver = module_receiver(module, entry, None, case / "source.py")
    call = executor if receiver is None else (lambda *inputs: executor(receiver, *inputs))
    return [result.line for result in check_runs(call, io) if not result.ok]


def node_kinds(function: func.FuncOp) -> collections.Counter[str]:
    kinds = collections.Counter(op.name for op in function.walk() if op is not function)
    for structural in ("func.return", "prim.Yield"):
        kinds.pop(structural, None)
    return kinds


def entry_function(module: ModuleOp, name: str = "forward") -> func.FuncOp:
    return next(op for op in module.ops if isinstance(op, func.FuncOp) and op.sym_name.data == name)


def test_the_corpus_is_present():
    assert CORPUS.is_dir(), f"the conformance corpus is missing: expected it at {CORPUS}"
    assert cases("source.py"), f"no case with a source.py in {CORPUS}"


@pytest.mark.parametrize("case", cases("source.py"))
def test_source_runs(case: Path):
    """What `ts-run CASE/source.py --check CASE/io.json` does: read_program scripts
    the `.py` file, the interpreter runs every recorded run."""
    path = case / "source.py"
    module = read_program(make_context(), path.read_text(encoding="utf-8"), str(path))
    verify(module)
    failures = run_io(module, case)
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("case", cases("source.py"))
def test_node_kinds_match_pytorch(case: Path):
    ctx = make_context()
    module = scripted(case).module.clone()
    PASSES[CLEANUP]()().apply(ctx, module)
    ours = node_kinds(entry_function(module))
    reference = import_graph_text(ctx, (case / "graph.opt.txt").read_text(encoding="utf-8"), "graph.opt.txt")
    theirs = node_kinds(entry_function(reference))
    difference = f"extra {dict(ours - theirs)}, missing {dict(theirs - ours)}"
    if case.name in KIND_DIFFERENCES:
        assert ours != theirs, f"{case.name} now matches graph.opt.txt: remove it from KIND_DIFFERENCES"
    else:
        assert ours == theirs, difference


def test_node_kinds_match_for_nine_cases_in_ten():
    names = [p.values[0].name for p in cases("source.py")]
    listed = [n for n in KIND_DIFFERENCES if n in names]
    assert len(listed) == len(KIND_DIFFERENCES), "KIND_DIFFERENCES names cases that do not exist"
    assert len(names) - len(listed) >= 0.9 * len(names)


@pytest.mark.parametrize("case", cases("source.py:printed"))
def test_printed_code_scripts_back(case: Path):
    """The Python printer's code of every function the case defines (its module's
    methods for a module case) compiles again to a program with the same results."""
    original = scripted(case)
    module = original.module
    names = [
        op.sym_name.data
        for op in module.ops
        if isinstance(op, func.FuncOp) and op.sym_name.data.isidentifier()
    ]
    code = "\n".join(export_python(module, name) for name in names)
    if isinstance(original, ScriptModule):
        again = script_method_source(original.info.instance, code, "printed.py").module
    else:
        again = script_file_text(code, "printed.py").module
    verify(again)
    failures = run_io(again, case)
    assert not failures, f"{failures}\nthe printed code:\n{code}"
