"""The Python printer: valid Python for every corpus graph, PyTorch's own code where
the IR carries what PyTorch prints, and the statement forms of control flow.

`pytorch_code/<case>.py.txt` is `torch.jit.script(...).code` of the corpus case's
`source.py` under PyTorch 2.13 (`.code` of the scripted module for module cases). The
five cases missing there call functions or methods, which PyTorch prints with the
callee's qualified name (`__torch__.source.fib(n, )`) that graph text does not keep.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tsjit.context import make_context
from tsjit.formats.python_code import export_python
from tsjit.formats.torchscript_text import import_graph_text

CORPUS = Path(__file__).resolve().parents[3].parent / "shared" / "conformance"
GRAPHS = sorted(CORPUS.glob("*/graph*.txt"))
PYTORCH_CODE = sorted(Path(__file__).with_name("pytorch_code").glob("*.py.txt"))
CTX = make_context()


def python(graph_text: str) -> str:
    return export_python(import_graph_text(CTX, graph_text, "g.txt"))


@pytest.mark.parametrize("path", GRAPHS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_corpus_graph_prints_valid_python(path: Path):
    ast.parse(python(path.read_text()))


@pytest.mark.parametrize("expected", PYTORCH_CODE, ids=lambda p: p.name.removesuffix(".py.txt"))
def test_code_is_what_pytorch_prints(expected: Path):
    assert len(PYTORCH_CODE) >= 42
    case = expected.name.removesuffix(".py.txt")
    assert python((CORPUS / case / "graph.txt").read_text()) == expected.read_text()


def test_calls_print_the_callee_symbol():
    code = python((CORPUS / "algo_fib_gcd" / "graph.txt").read_text())
    assert "return (fib(n), gcd(a, b), factorial(n))" in code


def test_a_loop_with_trip_count_and_condition_breaks():
    code = python(
        "graph(%n : int, %c : bool, %x : int):\n"
        "  %y : int = prim::Loop(%n, %c, %x)\n"
        "    block0(%i : int, %a : int):\n"
        "      %b : int = aten::add(%a, %i)\n"
        "      %d : bool = aten::lt(%b, %n)\n"
        "      -> (%d, %b)\n"
        "  return (%y)\n"
    )
    assert code == (
        "def forward(n: int,\n"
        "    c: bool,\n"
        "    x: int) -> int:\n"
        "  y = x\n"
        "  _0 = c\n"
        "  for i in range(n):\n"
        "    if not _0:\n"
        "      break\n"
        "    b = torch.add(y, i)\n"
        "    _0, y = torch.lt(b, n), b\n"
        "  return y\n"
    )


def test_long_inlines_become_statements_in_evaluation_order():
    code = python(
        "graph(%x : Tensor, %longer_name_for_a_tensor : Tensor, %k : int):\n"
        "  %1 : Tensor = aten::add_(%x, %x, %k)\n"
        "  %2 : Tensor = aten::mul(%longer_name_for_a_tensor, %longer_name_for_a_tensor)\n"
        "  %3 : Tensor = aten::sub(%1, %2, %k)\n"
        "  return (%3)\n"
    )
    assert code.splitlines()[3:] == [
        "  _0 = torch.add_(x, x, alpha=k)",
        "  _1 = torch.mul(longer_name_for_a_tensor, longer_name_for_a_tensor)",
        "  return torch.sub(_0, _1, alpha=k)",
    ]


def test_names_avoid_python_keywords_and_printer_names():
    code = python(
        "graph(%if : int, %torch.1 : int):\n  %range : int = aten::add(%if, %torch.1)\n  return (%range)\n"
    )
    assert code.startswith("def forward(if0: int,\n    torch0: int) -> int:\n")
    ast.parse(code)


def test_empty_containers_are_annotated():
    code = python(
        "graph():\n"
        "  %l : Tensor[] = prim::ListConstruct()\n"
        "  %d : Dict(str, int) = prim::DictConstruct()\n"
        "  %t : (Tensor[], Dict(str, int)) = prim::TupleConstruct(%l, %d)\n"
        "  return (%t)\n"
    )
    assert "annotate(List[Tensor], [])" in code and "annotate(Dict[str, int], {})" in code
