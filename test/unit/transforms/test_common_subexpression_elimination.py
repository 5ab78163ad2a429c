"""CSE asks the memory DAG only when a merge's answer depends on it."""

from __future__ import annotations

import pytest
from xdsl.dialects.func import FuncOp

from tsjit.context import make_context
from tsjit.formats import read_program
from tsjit.transforms.analysis.alias_analysis import AliasDb
from tsjit.transforms.common_subexpression_elimination import eliminate_common_subexpressions


def graph(text: str) -> FuncOp:
    func = read_program(make_context(), text).ops.first
    assert isinstance(func, FuncOp)
    return func


def count(func: FuncOp, name: str) -> int:
    return sum(op.name == name for op in func.walk())


@pytest.fixture
def builds(monkeypatch: pytest.MonkeyPatch) -> list[AliasDb]:
    """The alias analyses that built their memory DAG."""
    built: list[AliasDb] = []
    build = AliasDb._build  # pyright: ignore[reportPrivateUsage]

    def recording(db: AliasDb) -> None:
        built.append(db)
        build(db)

    monkeypatch.setattr(AliasDb, "_build", recording)
    return built


def test_new_tensors_that_operators_read_merge_without_the_dag(builds: list[AliasDb]):
    func = graph("""graph(%x : Tensor, %c : bool):
  %one : int = prim::Constant[value=1]()
  %a : Tensor = aten::mul(%x, %x)
  %b : Tensor = aten::mul(%x, %x)
  %s : Tensor = aten::add(%a, %b, %one)
  %r : Tensor = prim::If(%c)
    block0():
      %one2 : int = prim::Constant[value=1]()
      %t : Tensor = aten::add(%s, %x, %one2)
      -> (%t)
    block1():
      -> (%s)
  return (%r)""")
    assert eliminate_common_subexpressions(func)
    assert count(func, "aten.mul") == 1 and count(func, "prim.Constant") == 1
    assert builds == []


def test_a_view_needs_the_dag_and_a_write_the_clocks(builds: list[AliasDb]):
    func = graph("""graph(%x : Tensor):
  %zero : int = prim::Constant[value=0]()
  %v1 : Tensor = aten::select(%x, %zero, %zero)
  %v2 : Tensor = aten::select(%x, %zero, %zero)
  %s : Tensor = aten::add(%v1, %v2, %zero)
  return (%s)""")
    assert eliminate_common_subexpressions(func) and count(func, "aten.select") == 1
    assert len(builds) == 1
    func = graph("""graph(%x : Tensor):
  %one : int = prim::Constant[value=1]()
  %a : Tensor = aten::mul(%x, %x)
  %w : Tensor = aten::add_(%x, %one, %one)
  %b : Tensor = aten::mul(%x, %x)
  %s : Tensor = aten::add(%a, %b, %one)
  return (%s)""")
    assert not eliminate_common_subexpressions(func)  # %x was written in between
    assert len(builds) == 2


def test_equal_result_types_that_are_distinct_objects_still_merge():
    """Keys hold result types by the id of the first equal type seen: a type that is
    not the interned object still keys like it."""
    import copy

    func = graph("""graph(%x : Tensor):
  %a : Tensor = aten::neg(%x)
  %b : Tensor = aten::neg(%x)
  %c : Tensor = aten::neg(%x)
  %d : Tensor = aten::mul(%a, %b)
  %e : Tensor = aten::mul(%d, %c)
  return (%e)""")
    negs = [op for op in func.walk() if op.name == "aten.neg"]
    negs[1].results[0]._type = copy.copy(negs[0].results[0].type)  # pyright: ignore[reportPrivateUsage]
    assert negs[1].results[0].type is not negs[0].results[0].type
    assert eliminate_common_subexpressions(func)
    assert count(func, "aten.neg") == 1
