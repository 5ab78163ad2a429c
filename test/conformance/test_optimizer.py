"""The optimizer against the conformance corpus: for every case, the cleanup pipeline
keeps the results TorchScript recorded, and leaves no more nodes than PyTorch's own
cleanup (`graph.opt.txt`) in at least 90% of the cases.

Each case starts from its `graph.txt`; a graph that calls functions it has no bodies for
(PyTorch prints callees by name only) starts from `graph.inlined.txt` instead, the same
graph after PyTorch's inlining, which is where PyTorch's pipeline starts too. The node
counts of every case are printed as a table. A second test runs every case through the
graph executor's specializing pipeline (`executor-default`: shape propagation on the
argument types, loop unrolling, peephole on refined types, ...), so those passes are
checked on real programs too.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path

import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

from tsjit.context import make_context
from tsjit.dialects.prim import YieldOp
from tsjit.formats.mlir import verify
from tsjit.runtime.executor import GraphExecutor, Pipeline
from tsjit.tools.ts_run import check_runs, load_program, module_receiver
from tsjit.transforms import PASSES

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT.parent / "shared" / "conformance"
CLEANUP = "torchscript-cleanup"
SPECIALIZING = "executor-default"
REQUIRED_SHARE = 0.9
"""Share of cases whose optimized graph must be no larger than PyTorch's."""


def corpus_cases() -> list[Path]:
    if not CORPUS.is_dir():
        return []
    return sorted(p for p in CORPUS.iterdir() if (p / "io.json").is_file())


def case_id(case: Path) -> str:
    return case.name


@dataclass(frozen=True)
class Optimized:
    """A case after the cleanup pipeline, with the node counts to compare."""

    source: str  # the graph form the case started from
    module: ModuleOp
    entry: str
    before: int
    after: int
    pytorch: int


def node_count(module: ModuleOp, entry: str) -> int:
    """Nodes of the graph `entry` as PyTorch counts them: every op in every block,
    block terminators (`return`, `-> (...)`) excluded."""
    graph = _function(module, entry)
    return sum(1 for op in graph.body.walk() if not isinstance(op, (func.ReturnOp, YieldOp)))


def _function(module: ModuleOp, name: str) -> func.FuncOp:
    return next(op for op in module.ops if isinstance(op, func.FuncOp) and op.sym_name.data == name)


def starting_form(case: Path) -> str:
    """graph.txt, unless it calls functions whose bodies it lacks."""
    text = (case / "graph.txt").read_text(encoding="utf-8")
    if "prim::CallFunction" in text and (case / "graph.inlined.txt").is_file():
        return "graph.inlined.txt"
    return "graph.txt"


def load(case: Path, form: str) -> ModuleOp:
    """A graph form of the case, completed from its source as `ts-run` completes it
    (callees, class methods, enum declarations PyTorch's graph text leaves out)."""
    return load_program(case / form)


def entry_of(case: Path) -> str:
    return json.loads((case / "io.json").read_text(encoding="utf-8")).get("entry", "forward")


@functools.cache
def optimized(case: Path) -> Optimized:
    form = starting_form(case)
    module = load(case, form)
    entry = entry_of(case)
    before = node_count(module, entry)
    PASSES[CLEANUP]()().apply(make_context(), module)
    verify(module)
    pytorch = node_count(load(case, "graph.opt.txt"), entry)
    return Optimized(form, module, entry, before, node_count(module, entry), pytorch)


def run_failures(case: Path, module: ModuleOp, entry: str, source: str, pipeline: Pipeline = ()) -> list[str]:
    io = json.loads((case / "io.json").read_text(encoding="utf-8"))
    run = GraphExecutor(module, entry, pipeline)
    receiver = module_receiver(module, entry, None, case / source)
    call = run if receiver is None else (lambda *inputs: run(receiver, *inputs))
    return [result.line for result in check_runs(call, io) if not result.ok]


def test_the_corpus_is_present():
    assert corpus_cases(), f"the conformance corpus is missing or empty: expected it at {CORPUS}"


@pytest.mark.parametrize("case", corpus_cases(), ids=case_id)
def test_cleanup_preserves_results(case: Path):
    result = optimized(case)
    failures = run_failures(case, result.module, result.entry, result.source)
    assert not failures, f"{case.name} after {CLEANUP}:\n" + "\n".join(failures)


@pytest.mark.parametrize("case", corpus_cases(), ids=case_id)
def test_specializing_pipeline_preserves_results(case: Path):
    form = starting_form(case)
    failures = run_failures(case, load(case, form), entry_of(case), form, SPECIALIZING)
    assert not failures, f"{case.name} under {SPECIALIZING}:\n" + "\n".join(failures)


def node_count_table(results: dict[str, Optimized]) -> str:
    width = max(len(name) for name in results)
    lines = [f"{'case':<{width}}  {'input':<17}  {'before':>6}  {'tsjit':>5}  {'pytorch':>7}  verdict"]
    for name, r in results.items():
        verdict = "ok" if r.after <= r.pytorch else f"+{r.after - r.pytorch}"
        lines.append(f"{name:<{width}}  {r.source:<17}  {r.before:>6}  {r.after:>5}  {r.pytorch:>7}  {verdict}")
    ours, theirs = sum(r.after for r in results.values()), sum(r.pytorch for r in results.values())
    lines.append(f"{'total':<{width}}  {'':<17}  {sum(r.before for r in results.values()):>6}  {ours:>5}  {theirs:>7}")
    return "\n".join(lines)


def test_cleanup_leaves_no_more_nodes_than_pytorch(capsys: pytest.CaptureFixture[str]):
    results = {case.name: optimized(case) for case in corpus_cases()}
    assert results, "no cases"
    table = node_count_table(results)
    with capsys.disabled():
        print(f"\n{CLEANUP} node counts (inputs as imported, tsjit after {CLEANUP}, PyTorch's graph.opt.txt):")
        print(table)
    larger = [name for name, r in results.items() if r.after > r.pytorch]
    share = 1 - len(larger) / len(results)
    assert share >= REQUIRED_SHARE, (
        f"only {share:.0%} of the cases are no larger than PyTorch's (larger: {', '.join(larger)})\n{table}"
    )
