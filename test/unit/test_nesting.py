"""Deeply nested programs PyTorch accepts run without hitting Python's recursion limit;
nesting past `NESTING_LIMIT` is a located error (`tsjit.nesting`)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import tsjit
from tsjit.diagnostics import TsjitError
from tsjit.nesting import NESTING_LIMIT, check_text_nesting, deeply
from tsjit.tools import ts_opt, ts_run


def nested_list(value: object) -> int:
    depth = 0
    while isinstance(value, list):
        assert len(value) == 1
        value, depth = value[0], depth + 1
    assert value == 1
    return depth


def test_a_sum_of_250_terms_scripts_and_runs():
    source = "def forward(x: torch.Tensor) -> torch.Tensor:\n    return " + " + ".join(["x"] * 250) + "\n"
    scripted = tsjit.script("import torch\n" + source)
    np.testing.assert_array_equal(scripted(np.ones(2, np.float32)), [250.0, 250.0])


def test_900_unary_minus_signs_script_and_run():
    scripted = tsjit.script("def forward(x: int) -> int:\n    return " + "-" * 901 + "x\n")
    assert scripted(3) == -3


def mlir_constant(depth: int) -> str:
    value, type_ = "1", "!ts.int"
    for _ in range(depth):
        value, type_ = f"[{value}]", f"!ts.list<{type_}>"
    return f"func.func @forward() -> {type_} {{\n  %c = prim.Constant {value} : {type_}\n  func.return %c : {type_}\n}}\n"


def graph_text_constant(depth: int) -> str:
    return f"graph():\n  %c : int{'[]' * depth} = prim::Constant[value={'[' * depth}1{']' * depth}]()\n  return (%c)\n"


def test_400_deep_mlir_types_and_constants_load_and_run(tmp_path: Path):
    path = tmp_path / "deep.mlir"
    path.write_text(mlir_constant(400))
    assert nested_list(tsjit.compile(tsjit.load(str(path)))()) == 400


def test_2000_deep_graph_text_constants_load_and_run(tmp_path: Path):
    path = tmp_path / "deep.txt"
    path.write_text(graph_text_constant(2000))
    assert nested_list(tsjit.compile(tsjit.load(str(path)), pipeline=())()) == 2000


def test_tools_read_print_and_run_deep_programs(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    path = tmp_path / "deep.mlir"
    path.write_text(mlir_constant(400))
    ts_opt.main([str(path)])
    assert capsys.readouterr().out.count("!ts.list<") == 3 * 400  # the signature, constant and return
    ts_run.main([str(path)])
    assert capsys.readouterr().out.count('{"list": [') == 400


def test_text_nested_past_the_limit_is_a_located_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    path = tmp_path / "deep.txt"
    path.write_text(graph_text_constant(NESTING_LIMIT + 1))
    with pytest.raises(SystemExit):
        ts_opt.main([str(path)])
    first = capsys.readouterr().err.splitlines()[0]
    column = len("  %c : int[") + 2 * NESTING_LIMIT  # the suffix one level too deep
    assert first == f"{path}:2:{column}: error: the program is nested more than {NESTING_LIMIT} levels deep, tsjit's limit"


def test_source_too_deep_for_pythons_parser_is_an_error_at_the_file():
    with pytest.raises(TsjitError, match=f"^<string>:1: the program is nested more than {NESTING_LIMIT} levels deep"):
        tsjit.script("def forward(x: int) -> int:\n    return " + "-" * 12000 + "x\n")


@pytest.mark.parametrize(
    ("text", "depth"),
    [
        ("func.func @f(%x : !ts.list<!ts.optional<!ts.int>>) -> !ts.int", 3),
        ("%c : int[][]? = prim::Constant[value=[[1]]]()", 3),
        ('%s = prim.Constant "((((" : !ts.str  // [[[[', 0),
        ("%r = aten.add %a, %b : (!ts.int, !ts.int) -> !ts.int", 1),
    ],
)
def test_text_nesting_counts_brackets_and_type_suffixes(text: str, depth: int):
    assert check_text_nesting(text, "t.mlir") == depth


def test_deep_work_restores_the_recursion_limit():
    limit = sys.getrecursionlimit()

    def recurse(n: int) -> int:
        return 0 if n == 0 else 1 + recurse(n - 1)

    assert deeply(recurse, 20000) == 20000
    assert sys.getrecursionlimit() == limit
    with pytest.raises(ZeroDivisionError):
        deeply(lambda: 1 / 0)
    assert sys.getrecursionlimit() == limit
