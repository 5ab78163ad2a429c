"""Printed TorchScript (an archive's code/) compiled through the script frontend: the
class forms PyTorch prints, names resolved as in printed code (`torch.<op>`,
`ops.<ns>.<op>`, `CONSTANTS.c0`, `__torch__.<qualified name>`, `inf`), methods parsed
and compiled only when used, and located errors for what printed code cannot hold."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tsjit.diagnostics import TsjitError
from tsjit.dialects.types import ClassType, FloatType, IntType, ListType, TensorType
from tsjit.frontend.compilation import CompilationUnit
from tsjit.frontend.script import ScriptModule
from tsjit.frontend.source import SourceFile
from tsjit.frontend.source_importer import PrintedClass, SourceImporter
from tsjit.runtime.values import NamedTupleValue, ScriptObject

MODEL = """\
class Model(Module):
  __parameters__ = ["weight", ]
  __buffers__ = ["steps", ]
  weight : Tensor
  steps : Tensor
  training : bool
  sizes : List[int]
  __annotations__["0"] = __torch__.m.Scale
  k : Final[int] = 3
  def forward(self: __torch__.m.Model,
    x: Tensor,
    lo: float=-inf) -> __torch__.m.Pair:
    _0 = getattr(self, "0")
    y = torch.add(torch.mul(x, self.weight), CONSTANTS.c0)
    y0 = (_0).forward(torch.clamp(y, lo), )
    return __torch__.m.Pair(y0, torch.add(torch.len(self.sizes), 3))
  def count(self: __torch__.m.Model,
    n: int) -> int:
    c = __torch__.m.Counter.__new__(__torch__.m.Counter)
    _1 = (c).__init__(n, )
    _2 = (c).bump(__torch__.m.twice(2), )
    return c.value
class Scale(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  factor : float
  def forward(self: __torch__.m.Scale,
    x: Tensor) -> Tensor:
    return torch.mul(x, self.factor)
class Pair(NamedTuple):
  y : Tensor
  n : int
  tag : str = "pair"
class Counter:
  value : int
  def __init__(self: __torch__.m.Counter,
    start: int) -> NoneType:
    self.value = start
    return None
  def bump(self: __torch__.m.Counter,
    by: int) -> int:
    self.value = torch.add(self.value, by)
    return self.value
def twice(n: int,
    scale: float=inf) -> int:
  return torch.mul(n, 2)
"""


def make_importer(files: dict[str, str], constants: tuple = (), version: int | None = None) -> SourceImporter:
    sources = {q: SourceFile(f"code/{q.replace('.', '/')}.py", text) for q, text in files.items()}
    return SourceImporter(CompilationUnit(), sources, constants, version)


def model() -> ScriptModule:
    importer = make_importer({"__torch__.m": MODEL}, (np.array([0.5, 0.5], np.float32),))
    info = importer.declare("__torch__.m.Model")
    assert isinstance(info, PrintedClass)
    scale = ScriptObject("__torch__.m.Scale", {"training": False, "factor": 2.0})
    state = ScriptObject("__torch__.m.Model", {
        "weight": np.array([1.0, -1.0], np.float32), "steps": np.array([1, 2]), "training": False,
        "sizes": [4, 5], "0": scale,
    })  # fmt: skip
    return ScriptModule(importer.unit, None, info, state)


def test_a_module_class_declares_its_attributes_constants_and_submodules():
    info = model().info
    assert isinstance(info, PrintedClass) and info.is_module
    assert info.parameters == ["weight"] and info.buffers == ["steps"]
    assert info.slots == ["weight", "steps", "training", "sizes", "0"]
    assert info.attributes["sizes"] == ListType(IntType()) and info.attributes["weight"] == TensorType()
    assert info.submodules["0"].class_type == ClassType("__torch__.m.Scale")
    assert info.constants == {"k": 3}
    assert list(info.methods) == ["forward", "count"] and all(d is None for d in info.methods.values())


def test_methods_compile_on_first_use_and_run():
    module = model()
    result = module(np.array([1.0, 2.0], np.float32))
    assert isinstance(result, NamedTupleValue) and result.fields == ("y", "n", "tag")
    np.testing.assert_allclose(result[0], [3.0, -3.0])  # (x * w + 0.5) * 2
    assert result[1:] == (5, "pair")
    np.testing.assert_allclose(module(np.array([1.0, 2.0], np.float32), 0.0)[0], [3.0, 0.0])
    assert module.info.methods["count"] is None  # not compiled: not parsed
    assert module.count(5) == 9  # a TorchScript class, created and called; a function with an `inf` default
    assert {op.sym_name.data for op in module.module.ops} >= {
        "forward",
        "__torch__.m.twice",
        "__torch__.m.Counter.bump",
    }


def test_names_of_the_constant_table_and_literals():
    importer = make_importer({"__torch__.m": MODEL})
    assert importer.declare("__torch__.m.Pair").names.data[2].data == "tag"  # pyright: ignore[reportAttributeAccessIssue]
    assert importer.declare("__torch__.m.nothing") is None
    assert importer.is_namespace("__torch__.m") and not importer.is_namespace("__torch__.x")


@pytest.mark.parametrize(
    ("code", "message"),
    [
        ("def f(x: Tensor) -> Tensor:\n  return torch.no_such_op(x)\n", "code/__torch__/m.py:2:10: unknown builtin op: aten::no_such_op"),
        ("def f(x: Tensor) -> Tensor:\n  return ops.prim.no_such_op(x)\n", "code/__torch__/m.py:2:10: unknown builtin op: prim::no_such_op"),
        ("def f(x: Tensor) -> Tensor:\n  return __torch__.m.g(x)\n", "code/__torch__/m.py:2:10: unknown name __torch__.m.g"),
        ("def f(x: Tensor) -> Tensor:\n  return CONSTANTS.c4\n", "code/__torch__/m.py:2:10: CONSTANTS.c4 is not in the archive's constant table (0 constants)"),
        ("import os\ndef f(x: Tensor) -> Tensor:\n  return x\n", "code/__torch__/m.py:1:1: printed TorchScript defines only classes and functions at top level"),
    ],
)  # fmt: skip
def test_bad_code_is_a_located_error(code: str, message: str):
    importer = make_importer({"__torch__.m": code})
    with pytest.raises(TsjitError) as error:
        importer.compile_function("__torch__.m.f")
    assert str(error.value).startswith(message)


@pytest.mark.parametrize(
    ("code", "message"),
    [
        ("class C(Enum):\n  A = 1\n  B = \"b\"\n", "code/__torch__/m.py:1:1: enum __torch__.m.C: Could not unify type list"),
        ("class C(Interface):\n  def f(self, x: int):\n    pass\n", "interface method 'f' of __torch__.m.C needs a return type"),
        ("class C(Module):\n  __parameters__ = []\n  __buffers__ = []\n  __forward_hooks__ = [\"hook\", ]\n",
         "code/__torch__/m.py:4:3: modules with forward hooks are not supported"),
        ("class C(Module):\n  __parameters__ = [\"w\", ]\n  __buffers__ = []\n",
         "__torch__.m.C lists 'w' as a parameter or buffer but declares no such attribute"),
        ("class C(Other):\n  x : int\n", "class C has a base printed TorchScript does not use"),
    ],
)  # fmt: skip
def test_classes_printed_code_cannot_declare(code: str, message: str):
    with pytest.raises(TsjitError, match=message.replace("[", r"\[").replace("(", r"\(")):
        make_importer({"__torch__.m": code}).declare("__torch__.m.C")


LANGUAGE = """
class Color(Enum):
  RED = 1
  GREEN = 2
class Scaler(Interface):
  def total(self, k: int) -> Tensor:
    pass
class Pair:
  b : Tensor
  def __init__(self: __torch__.m.Pair,
    b: Tensor) -> NoneType:
    self.b = b
    return None
  def total(self: __torch__.m.Pair,
    k: int) -> Tensor:
    return torch.mul(self.b, k)
def use(s: __torch__.m.Scaler, k: int) -> Tensor:
  return (s).total(k, )
def f(x: Tensor, c: __torch__.m.Color) -> Tensor:
  p = __torch__.m.Pair.__new__(__torch__.m.Pair)
  _0 = (p).__init__(x, )
  def __forked_function():
    return __torch__.m.use(p, (c).value, )
  fut = fork(__forked_function)
  if torch.eq(c, __torch__.m.Color.GREEN):
    y = torch.wait(fut)
  else:
    y = torch.neg(torch.wait(fut))
  return y
"""


def test_enums_interfaces_and_forks_of_printed_code():
    from tsjit.dialects.constant_values import EnumMember
    from tsjit.frontend.compilation import cleanup
    from tsjit.frontend.script import ScriptFunction

    importer = make_importer({"__torch__.m": LANGUAGE})
    compiled = importer.compile_function("__torch__.m.f")
    cleanup(importer.unit.module)
    f = ScriptFunction(importer.unit, compiled)
    x = np.array([1.0, 2.0], np.float32)
    np.testing.assert_allclose(f(x, EnumMember("__torch__.m.Color.GREEN", 2)), x * 2)
    np.testing.assert_allclose(f(x, EnumMember("__torch__.m.Color.RED", 1)), -x)


def test_operators_whose_meaning_changed_are_refused_in_older_archives_only():
    code = "def f(x: Tensor, n: int) -> Tensor:\n  return torch.div(x, torch.div(n, 2))\n"
    with pytest.raises(TsjitError, match=r"2:10: aten::div.Scalar changed meaning in archive version 4; this archive "
                                         r"is version 3"):  # fmt: skip
        make_importer({"__torch__.m": code}, version=3).compile_function("__torch__.m.f")
    make_importer({"__torch__.m": code}, version=4).compile_function("__torch__.m.f")
    scalar = "def f(n: int) -> float:\n  return torch.div(n, 2)\n"  # aten::div(int, int): unchanged
    make_importer({"__torch__.m": scalar}, version=3).compile_function("__torch__.m.f")


def test_float_defaults_spelled_as_names():
    importer = make_importer({"__torch__.m": "def f(x: float=-inf, y: float=nan) -> float:\n  return x\n"})
    params = importer.compile_function("__torch__.m.f").signature.params
    assert params[0].default == -math.inf and math.isnan(params[1].default)  # pyright: ignore[reportArgumentType]
    assert params[0].type == FloatType()
