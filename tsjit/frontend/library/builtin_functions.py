"""Builtin operators TorchScript defines in TorchScript itself (its
`builtin_functions.cpp`): `2 * x` is `mul(a: int, b: Tensor)` returning `b * a`,
`x.shape` is `shape(a: Tensor)` returning `a.size()`. They are candidates of the
operator of the same name next to its schemas, and a chosen one is inlined at the call.
The text is instantiated per scalar type from templates, as PyTorch does; its locations
are `<string>:LINE:COL`.
"""

from __future__ import annotations

import ast
import functools
from dataclasses import dataclass
from string import Template
from typing import TYPE_CHECKING

from tsjit.frontend.source import SourceFile

if TYPE_CHECKING:
    from tsjit.frontend.compilation import CompilationUnit
    from tsjit.frontend.schema_matching import Signature

SCALAR_OPERATORS = Template("""
def mul(a : ${Scalar}, b : Tensor) -> Tensor:
  return b * a
def add(a : ${Scalar}, b : Tensor) -> Tensor:
  return b + a
def ne(a : ${Scalar}, b : Tensor) -> Tensor:
  return b != a
def eq(a : ${Scalar}, b : Tensor) -> Tensor:
  return b == a
def sub(a : ${Scalar}, b : Tensor) -> Tensor:
  return torch.neg(b) + a
def div(a : ${Scalar}, b : Tensor) -> Tensor:
  return torch.reciprocal(b) * a
""")

SCALAR_COMPARISONS = Template("""
def lt(a : ${Scalar}, b : Tensor) -> Tensor:
  return b > a
def le(a : ${Scalar}, b : Tensor) -> Tensor:
  return b >= a
def gt(a : ${Scalar}, b : Tensor) -> Tensor:
  return b < a
def ge(a : ${Scalar}, b : Tensor) -> Tensor:
  return b <= a
""")

NTUPLE = Template("""
def _${name}(x: BroadcastingList${Length}[${Scalar}]) -> List[${Scalar}]:
  return x
""")

FLOORDIV = Template("""
def floordiv(self : Tensor, other : ${Rhs}) -> Tensor:
  return torch.floor_divide(self, other)
""")

TENSOR_PROPERTIES = """
def ndim(a : Tensor) -> int:
  return a.dim()
def T(a : Tensor):
  return a.numpy_T()
def H(a : Tensor):
  return a.matrix_H()
def shape(a : Tensor) -> List[int]:
  return a.size()
"""

ATEN_OPS = """
def _assert_int_or_pair(vals: List[int], name: str, message: str):
  pass
def list_with_default(out_size: List[int], defaults: List[int]):
  assert len(defaults) > len(out_size)
  return out_size
def _assert(condition : Tensor, message : str):
  assert bool(condition), message
def _assert(condition : bool, message : str):
  assert condition, message
def __contains__(self: str, key: str):
  return self.find(key, 0, len(self)) != -1
"""

_PRIM_PROPERTIES = frozenset({"ndim", "T", "H", "shape"})


def _source() -> str:
    parts = [TENSOR_PROPERTIES]
    for scalar in ("float", "int", "complex"):
        parts.append(SCALAR_OPERATORS.substitute(Scalar=scalar))
    for scalar in ("float", "int"):
        parts.append(SCALAR_COMPARISONS.substitute(Scalar=scalar))
    for name, length in (("single", 1), ("pair", 2), ("triple", 3)):
        for scalar in ("float", "int"):
            parts.append(NTUPLE.substitute(name=name, Length=length, Scalar=scalar))
    for rhs in ("Tensor", "float", "int"):
        parts.append(FLOORDIV.substitute(Rhs=rhs))
    parts.append(ATEN_OPS)
    return "".join(parts)


@dataclass
class BuiltinSource:
    """One TorchScript-source overload of an operator."""

    operator: str  # "aten::mul"
    definition: ast.FunctionDef
    index: int  # position among all builtin definitions (identity for caching)
    signature: Signature | None = None


@functools.cache
def _definitions() -> tuple[tuple[str, ast.FunctionDef], ...]:
    result = []
    for node in SOURCE.tree.body:
        assert isinstance(node, ast.FunctionDef)
        namespace = "prim" if node.name in _PRIM_PROPERTIES else "aten"
        result.append((f"{namespace}::{node.name}", node))
    return tuple(result)


SOURCE = SourceFile("<string>", _source())
"""The whole text (parsed on first use)."""


@functools.cache
def operator_names() -> frozenset[str]:
    return frozenset(_definitions_by_name())


@functools.cache
def _definitions_by_name() -> dict[str, tuple[tuple[int, ast.FunctionDef], ...]]:
    """Each operator's definitions with their index in the text: every call of an
    operator looks here."""
    by_name: dict[str, list[tuple[int, ast.FunctionDef]]] = {}
    for index, (name, node) in enumerate(_definitions()):
        by_name.setdefault(name, []).append((index, node))
    return {name: tuple(found) for name, found in by_name.items()}


def builtin_functions_for(unit: CompilationUnit, operator: str) -> list[BuiltinSource]:
    """The TorchScript-source overloads of `operator`, with their signatures."""
    return [unit.builtin_source(operator, index, node) for index, node in _definitions_by_name().get(operator, ())]
