"""Loop-free code as one generated Python function: the same results, errors and error
locations as the interpreter's code, on hand-written graphs and on every loop-free
graph of the conformance corpus."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tsjit.context import make_context
from tsjit.formats.mlir import parse_mlir
from tsjit.runtime.errors import TorchScriptError
from tsjit.runtime.interpreter import Code, Program
from tsjit.runtime.straight_line import StraightLineCode, straight_line
from tsjit.runtime.values import decode_value, match_value
from tsjit.tools.ts_run import load_program, module_receiver

CORPUS = Path(__file__).resolve().parents[3].parent / "shared" / "conformance"

BRANCHES = """
func.func @forward(%x : !ts.tensor, %n : !ts.int) -> (!ts.tensor, !ts.int) {
  %zero = prim.Constant 0 : !ts.int
  %two = prim.Constant 2 : !ts.int
  %big = aten.gt %n, %two : (!ts.int, !ts.int) -> !ts.bool
  %r, %m = prim.If %big -> (!ts.tensor, !ts.int) {
    %neg = aten.lt %n, %zero : (!ts.int, !ts.int) -> !ts.bool
    %y = prim.If %neg -> (!ts.tensor) {
      prim.Yield %x : !ts.tensor
    } else {
      %d = aten.div %x, %n : (!ts.tensor, !ts.int) -> !ts.tensor
      prim.Yield %d : !ts.tensor
    }
    prim.Yield %y, %two : !ts.tensor, !ts.int
  } else {
    %msg = prim.Constant "n is too small" : !ts.str
    %cls = prim.Constant "builtins.ValueError" : !ts.str
    %one = prim.Constant 1 : !ts.int
    %small = aten.lt %n, %one : (!ts.int, !ts.int) -> !ts.bool
    prim.If %small {
      prim.RaiseException %msg, %cls : !ts.str
      prim.Yield
    } else {
      prim.Yield
    }
    %e = aten.mul %x, %x : (!ts.tensor, !ts.tensor) -> !ts.tensor
    prim.Yield %e, %n : !ts.tensor, !ts.int
  }
  func.return %r, %m : !ts.tensor, !ts.int
}
"""


def compiled(text: str, name: str = "forward") -> Code:
    return Program(parse_mlir(make_context(), text, "test.mlir")).function(name)


def outcome(call: Any, *args: Any) -> Any:
    try:
        return call(*args)
    except TorchScriptError as error:
        return ("raised", error.kind, error.message, error.location)


@pytest.mark.parametrize("n", [5, 2, 0, -1])
def test_branches_give_the_codes_results_and_errors(n: int):
    code = compiled(BRANCHES)
    fast = straight_line(code)
    assert isinstance(fast, StraightLineCode)
    x = np.arange(4, dtype=np.float32)
    for call in (fast, fast.invoke, lambda *a: fast.run(a)):
        expected, actual = outcome(code, x, n), outcome(call, x, n)
        if isinstance(expected, tuple) and isinstance(expected[0], str):
            assert actual == expected
            assert expected[3] == "test.mlir:21:7"
        else:
            np.testing.assert_array_equal(actual[0], expected[0])
            assert actual[1] == expected[1]


def test_a_wrong_number_of_arguments_is_reported_as_the_interpreter_does():
    code = compiled(BRANCHES)
    fast = straight_line(code)
    assert fast is not None
    assert outcome(fast, np.zeros(2)) == outcome(code, np.zeros(2))
    assert outcome(fast, np.zeros(2))[2] == "forward() expected 2 argument(s) but received 1"


def test_loops_stay_in_the_interpreter():
    text = """
    func.func @forward(%x : !ts.tensor, %n : !ts.int) -> !ts.tensor {
      %true = prim.Constant true : !ts.bool
      %r = prim.Loop %n, %true iter(%i) carried(%a = %x : !ts.tensor) -> (!ts.tensor) {
        %b = aten.neg %a : (!ts.tensor) -> !ts.tensor
        prim.Yield %true, %b : !ts.bool, !ts.tensor
      }
      func.return %r : !ts.tensor
    }"""
    assert straight_line(compiled(text)) is None


def test_a_call_ignores_floating_point_errors_as_graph_runs_do():
    text = """
    func.func @forward(%x : !ts.tensor, %y : !ts.tensor) {
      %d = aten.div %x, %y : (!ts.tensor, !ts.tensor) -> !ts.tensor
      func.return
    }"""
    fast = straight_line(compiled(text))
    assert fast is not None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert fast(np.ones(2), np.zeros(2)) is None


def test_a_type_check_followed_by_its_branch_is_one_condition():
    text = """
    func.func @forward(%x : !ts.tensor) -> !ts.int {
      %xs, %ok = profile.type_check %x : (!ts.tensor) -> (!ts.tensor<f32, [2]>)
      %r = prim.If %ok -> (!ts.int) {
        %one = prim.Constant 1 : !ts.int
        prim.Yield %one : !ts.int
      } else {
        %zero = prim.Constant 0 : !ts.int
        prim.Yield %zero : !ts.int
      }
      func.return %r : !ts.int
    }"""
    fast = straight_line(compiled(text))
    assert fast is not None
    assert "if ((isinstance(r0, ndarray) and " in fast.source and "r0.shape == " in fast.source
    assert fast(np.zeros(2, np.float32)) == 1
    assert fast(np.zeros(3, np.float32)) == 0
    assert fast(np.zeros(2, np.float64)) == 0


def corpus_graphs() -> list[Any]:
    cases = sorted(p for p in CORPUS.iterdir() if (p / "io.json").is_file()) if CORPUS.is_dir() else []
    return [pytest.param(c, id=c.name) for c in cases]


@pytest.mark.parametrize("case", corpus_graphs())
def test_loop_free_corpus_graphs_run_as_the_interpreter_runs_them(case: Path):
    io = json.loads((case / "io.json").read_text(encoding="utf-8"))
    entry = io.get("entry", "forward")
    path = case / "graph.opt.txt"
    module = load_program(path)
    code = Program(module).function(entry)
    fast = straight_line(code)
    if fast is None:
        assert any(ins.opcode == "loop" for ins in code.instructions)
        return
    for index, run in enumerate(io["runs"]):
        results = []
        for call in (code, fast):
            receiver = module_receiver(module, entry, None, path)
            args = [decode_value(v) for v in run["inputs"]]
            results.append(outcome(call, *([] if receiver is None else [receiver]), *args))
        expected, actual = results
        if isinstance(expected, tuple) and expected and isinstance(expected[0], str):
            assert actual == expected, f"run {index}"
        else:
            assert match_value(actual, expected, 0, 0, f"run {index}") is None
