"""Classes, enums and interfaces beyond what PyTorch itself scripts (class methods,
classes that refer to each other), classes declared as serialized TorchScript code
declares them (`__torch__.` names, mangled ones, attributes declared in the class
body), objects and enum members crossing into scripted code, and the diagnoses of
misuse. Results are checked against the same programs run in Python."""

from __future__ import annotations

import __future__

import ast
import enum
from typing import Any

import numpy as np
import pytest

from tsjit.diagnostics import TsjitError
from tsjit.frontend import torch_shim as torch
from tsjit.frontend.compilation import CompilationUnit, cleanup
from tsjit.frontend.script import ScriptFunction, run_user_file, script, script_file_text
from tsjit.frontend.source import SourceFile
from tsjit.runtime.errors import TorchScriptError
from tsjit.runtime.values import ScriptObject


def eager_and_scripted(text: str, entry: str = "forward") -> tuple[Any, ScriptFunction]:
    namespace = run_user_file(SourceFile("program.py", text))
    return namespace[entry], script_file_text(text, "program.py", entry)


CLASS_METHODS = """
import torch


class Counter:
    def __init__(self, start: int):
        self.count = start

    @classmethod
    def from_twice(cls, n: int) -> "Counter":
        return cls(2 * n)

    def bump(self) -> int:
        self.count += 1
        return self.count


def forward(n: int) -> int:
    c = Counter.from_twice(n)
    c.bump()
    return c.bump()
"""


def test_class_methods_get_the_class_as_cls():
    eager, scripted = eager_and_scripted(CLASS_METHODS)
    assert scripted(3) == eager(3) == 8
    assert any(op.sym_name.data == "__torch__.program.Counter.from_twice" for op in scripted.module.ops)


MUTUAL = """
import torch
from typing import List


class Node:
    def __init__(self, v: int):
        self.v = v
        self.leaves: List[Leaf] = []

    def add(self, leaf: "Leaf") -> None:
        self.leaves.append(leaf)

    def total(self) -> int:
        s = self.v
        for leaf in self.leaves:
            s += leaf.weight(self)
        return s


class Leaf:
    def __init__(self, w: int):
        self.w = w

    def weight(self, parent: Node) -> int:
        return self.w * parent.v


def forward(x: int) -> int:
    n = Node(x)
    n.add(Leaf(2))
    n.add(Leaf(3))
    return n.total()
"""


def test_classes_may_refer_to_each_other():
    """PyTorch 2.13 recurses without end on these two classes; tsjit compiles each
    class once, whichever refers to which."""
    eager, scripted = eager_and_scripted(MUTUAL)
    assert scripted(3) == eager(3) == 18


# --------------------------------------------------------------------------------------
# Serialized code: what the `code/` of a saved archive declares
# --------------------------------------------------------------------------------------

SERIALIZED = """
class Pair:
  a : int
  b : Tensor
  def __init__(self: __torch__.m.___torch_mangle_3.Pair,
    a: int,
    b: Tensor) -> NoneType:
    self.a = a
    self.b = b
    return None
  def total(self: __torch__.m.___torch_mangle_3.Pair) -> Tensor:
    b = self.b
    return torch.mul(b, self.a)
class Color(Enum):
  RED = 1
  GREEN = 2
class Scaler(Interface):
  def total(self) -> Tensor:
    pass
def helper(x: Tensor, n: int) -> Tensor:
  return torch.mul(x, n)
def forward(x: Tensor, c: __torch__.m.Color) -> Tensor:
  p = __torch__.m.___torch_mangle_3.Pair.__new__(__torch__.m.___torch_mangle_3.Pair)
  _0 = (p).__init__(2, x, )
  s : __torch__.m.Scaler = p
  def __forked_function():
    return __torch__.m.helper(x, (c).value, )
  fut = fork(__forked_function)
  if torch.eq(c, __torch__.m.Color.GREEN):
    y = torch.add((s).total(), torch.wait(fut))
  else:
    y = torch.wait(fut)
  return y
"""


def serialized_unit(text: str, module: str) -> tuple[CompilationUnit, dict[str, Any]]:
    """What an archive reader does with a file of `code/`: executes it with the names
    serialized code takes for granted, declares its classes under their qualified
    names (the `__torch__.m.` prefix, mangled where the file's name says so)."""
    source = SourceFile(f"code/__torch__/{module}.py", text)
    unit = CompilationUnit()
    unit.register_source(source)
    namespace: dict[str, Any] = {
        "__name__": module, "torch": torch, "Tensor": torch.Tensor, "Enum": enum.Enum,
        "Interface": type("Interface", (), {}), "NoneType": type(None),
    }  # fmt: skip
    flags = __future__.annotations.compiler_flag
    exec(compile(source.tree, source.filename, "exec", flags=flags, dont_inherit=True), namespace)  # noqa: S102
    for node in source.tree.body:
        if isinstance(node, ast.ClassDef):
            mangled = "___torch_mangle_3." if node.name == "Pair" else ""
            unit.define_class(namespace[node.name], f"__torch__.{module}.{mangled}{node.name}")
        elif isinstance(node, ast.FunctionDef):
            unit.define_function(namespace[node.name], f"__torch__.{module}.{node.name}")
    return unit, namespace


def test_serialized_code_declares_classes_enums_and_interfaces():
    unit, namespace = serialized_unit(SERIALIZED, "m")
    compiled = unit.compile_function(namespace["forward"], "forward", None)
    cleanup(unit.module)
    forward = ScriptFunction(unit, compiled)
    text = str(unit.module)
    assert '!ts.class<"__torch__.m.___torch_mangle_3.Pair">' in text
    assert 'prim.Enum "__torch__.m.Color" : !ts.int [RED = 1, GREEN = 2]' in text
    assert "prim.fork" in text
    x = np.array([1.0, 2.0], dtype=np.float32)
    green, red = namespace["Color"].GREEN, namespace["Color"].RED
    np.testing.assert_allclose(forward(x, green), x * 2 + x * 2)
    np.testing.assert_allclose(forward(x, red), x * 1)


FINAL = """
import torch
from typing import Final, List


class Window:
    size: Final[int] = 3
    weights: List[float]

    def __init__(self, scale: float):
        self.weights = [scale] * self.size
        self.extra = 1.0

    def total(self) -> float:
        return sum(self.weights) + self.extra


def forward(x: float) -> float:
    return Window(x).total()
"""


def test_class_level_annotations_type_attributes_and_finals_are_constants():
    eager, scripted = eager_and_scripted(FINAL)
    assert scripted(2.0) == eager(2.0) == 7.0
    assert "GetAttr[name = \"size\"]" not in str(scripted.module)


# --------------------------------------------------------------------------------------
# Objects and enum members from Python
# --------------------------------------------------------------------------------------

OBJECTS = """
import torch
from enum import Enum


class Mode(Enum):
    ADD = "add"
    MUL = "mul"


class Weights:
    def __init__(self, w: torch.Tensor, k: int):
        self.w = w
        self.k = k


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.weights = Weights(torch.ones(2), 3)
        self.mode = Mode.MUL

    def forward(self, x: torch.Tensor, mode: Mode, extra: Weights) -> torch.Tensor:
        if mode == self.mode:
            return x * self.weights.w * self.weights.k + extra.k
        return x + self.weights.w + extra.w


def make_weights() -> Weights:
    return Weights(torch.full([2], 5.0), 7)
"""


def test_objects_and_enum_members_cross_into_scripted_code(tmp_path):
    path = tmp_path / "objects.py"
    path.write_text(OBJECTS, encoding="utf-8")
    namespace = run_user_file(SourceFile(str(path), OBJECTS))
    model = namespace["Model"]()
    scripted = script(model)
    x = torch.tensor([1.0, 2.0])
    extra = namespace["make_weights"]()
    mode = namespace["Mode"]
    np.testing.assert_allclose(scripted(x, mode.MUL, extra), (model(x, mode.MUL, extra)).array)
    np.testing.assert_allclose(scripted(x, mode.ADD, extra), (model(x, mode.ADD, extra)).array)
    assert isinstance(scripted.state.attributes["weights"], ScriptObject)


# --------------------------------------------------------------------------------------
# Diagnoses
# --------------------------------------------------------------------------------------

INTERFACE_MISMATCH = """
import torch


@torch.jit.interface
class Shape:
    def area(self, scale: float) -> float:
        pass


class Square:
    def __init__(self, side: float):
        self.side = side

    def area(self, scale: int) -> float:
        return self.side * scale


def forward(x: float) -> float:
    s: Shape = Square(x)
    return s.area(2.0)
"""


def test_a_class_that_does_not_implement_an_interface_is_rejected():
    with pytest.raises(TsjitError) as info:
        script_file_text(INTERFACE_MISMATCH, "shapes.py")
    assert "is not compatible with interface '__torch__.shapes.Shape'" in info.value.message
    assert info.value.location is not None and info.value.location.line == 20


IGNORED_AND_UNUSED = """
import torch


@torch.jit.unused
def python_only(x: int) -> int:
    return x


class Thing:
    def __init__(self):
        self.n = 1

    @torch.jit.ignore
    def debug(self) -> None:
        print(self)


def forward(x: int, use: bool) -> int:
    if use:
        return python_only(x)
    return x
"""


def test_unused_functions_raise_when_called_and_ignored_methods_cannot_be_called():
    scripted = script_file_text(IGNORED_AND_UNUSED, "ignored.py")
    assert scripted(3, False) == 3
    with pytest.raises(TorchScriptError, match="This Python function is annotated to be ignored and cannot be run"):
        scripted(3, True)
    calling_ignored = IGNORED_AND_UNUSED.rstrip() + "\n\n\ndef other(x: int) -> int:\n    Thing().debug()\n    return x\n"
    with pytest.raises(TsjitError, match=r"method 'debug' of class 'Thing' is ignored by TorchScript"):
        script_file_text(calling_ignored, "ignored.py", "other")


def test_enum_values_must_share_a_type():
    text = "import torch\nfrom enum import Enum\n\nclass E(Enum):\n    A = 1\n    B = 1.5\n\n\ndef forward(e: E) -> int:\n    return 1\n"
    with pytest.raises(TsjitError, match="Could not unify type list"):
        script_file_text(text, "e.py")
