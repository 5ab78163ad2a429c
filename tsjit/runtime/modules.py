"""Module objects for module graphs, and the builtin methods of `torch.nn` modules.

A module graph takes its module as first input (`%self`) and reaches parameters and
submodules through `prim.GetAttr`. `module_object` builds that object tree from a
conformance case's module.json, whose dotted names (`fc.weight`) name the path from the
root; a submodule's class comes from the graphs' `prim.GetAttr` result types.

Methods of builtin classes (`Linear.forward`, `no_grad.__init__`) are small TorchScript
graphs below, one MLIR module per class with `!Self` standing for the class type,
parsed and compiled on first use: they run through the interpreter like user code.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from xdsl.dialects.builtin import ModuleOp

from tsjit.dialects.types import ClassType
from tsjit.runtime.values import ScriptObject, decode_value

if TYPE_CHECKING:
    from tsjit.runtime.interpreter import Code

GENERIC_MODULE_CLASS = "__torch__.torch.nn.modules.module.Module"
"""The class of a submodule no graph names (only dynamic method calls would see it)."""


def module_object(spec: Mapping[str, Any] | str | Path, program: ModuleOp | None = None) -> ScriptObject:
    """The module object described by module.json (a mapping or a path): parameters,
    buffers and attributes at their dotted paths, submodules created along the way."""
    if not isinstance(spec, Mapping):
        path = Path(spec)
        with path.open(encoding="utf-8") as file:
            spec = json.load(file)
        where = str(path)
    else:
        where = "module"
    submodule_classes = _submodule_classes(program) if program is not None else {}
    root = ScriptObject(spec["type"])
    for section in ("parameters", "buffers", "attributes"):
        for dotted, encoded in spec.get(section, {}).items():
            owner = root
            *path, name = dotted.split(".")
            for step in path:
                child = owner.attributes.get(step)
                if child is None:
                    child_class = submodule_classes.get((owner.qualified_name, step), GENERIC_MODULE_CLASS)
                    child = owner.attributes[step] = ScriptObject(child_class)
                owner = child
            owner.attributes[name] = decode_value(encoded, f"{where}: {section}.{dotted}")
    return root


def _submodule_classes(program: ModuleOp) -> dict[tuple[str, str], str]:
    """(owner class, attribute) -> class, from the `prim.GetAttr` ops of `program`."""
    classes: dict[tuple[str, str], str] = {}
    for op in program.walk():
        if op.name == "prim.GetAttr" and isinstance(result := op.results[0].type, ClassType):
            owner = op.operands[0].type
            assert isinstance(owner, ClassType)
            name = op.properties["name"].data  # pyright: ignore[reportAttributeAccessIssue]
            classes[(owner.qualname.data, name)] = result.qualname.data
    return classes


# --------------------------------------------------------------------------------------
# Builtin methods
# --------------------------------------------------------------------------------------


def builtin_method(class_name: str, method: str) -> Code | None:
    """The compiled builtin `class_name.method`, or None when there is none."""
    program = _builtin_program(class_name)
    if program is None or not program.has_function(method):
        return None
    return program.function(method)


@functools.cache
def _builtin_program(class_name: str):  # -> Program | None
    from tsjit.context import make_context
    from tsjit.formats.mlir import parse_mlir, verify
    from tsjit.runtime.interpreter import Program

    methods = BUILTIN_METHODS.get(class_name)
    if methods is None:
        return None
    text = f'!Self = !ts.class<"{class_name}">\n{_ALIASES}{methods}'
    module = parse_mlir(make_context(), text, f"<builtin methods of {class_name}>")
    verify(module)
    return Program(module)


_NN = "__torch__.torch.nn.modules"
_ALIASES = "!OptionalTensor = !ts.optional<!ts.tensor>\n!Ints = !ts.list<!ts.int>\n"


def _unary(kernel: str) -> str:
    return f"""
func.func @forward(%self : !Self, %input : !ts.tensor) -> !ts.tensor {{
  %r = {kernel} %input : (!ts.tensor) -> !ts.tensor
  func.return %r : !ts.tensor
}}"""


def _softmax(kernel: str) -> str:
    return f"""
func.func @forward(%self : !Self, %input : !ts.tensor) -> !ts.tensor {{
  %dim = prim.GetAttr[name = "dim"] %self : !Self -> !ts.int
  %none = prim.Constant : !ts.none
  %r = {kernel} %input, %dim, %none : (!ts.tensor, !ts.int, !ts.none) -> !ts.tensor
  func.return %r : !ts.tensor
}}"""


BUILTIN_METHODS: dict[str, str] = {
    f"{_NN}.linear.Linear": """
func.func @forward(%self : !Self, %input : !ts.tensor) -> !ts.tensor {
  %weight = prim.GetAttr[name = "weight"] %self : !Self -> !ts.tensor
  %bias = prim.GetAttr[name = "bias"] %self : !Self -> !OptionalTensor
  %r = aten.linear %input, %weight, %bias
      : (!ts.tensor, !ts.tensor, !OptionalTensor) -> !ts.tensor
  func.return %r : !ts.tensor
}""",
    f"{_NN}.linear.Identity": """
func.func @forward(%self : !Self, %input : !ts.tensor) -> !ts.tensor {
  func.return %input : !ts.tensor
}""",
    f"{_NN}.activation.ReLU": _unary("aten.relu"),
    f"{_NN}.activation.Tanh": _unary("aten.tanh"),
    f"{_NN}.activation.Sigmoid": _unary("aten.sigmoid"),
    f"{_NN}.activation.GELU": """
func.func @forward(%self : !Self, %input : !ts.tensor) -> !ts.tensor {
  %approximate = prim.GetAttr[name = "approximate"] %self : !Self -> !ts.str
  %r = aten.gelu %input, %approximate : (!ts.tensor, !ts.str) -> !ts.tensor
  func.return %r : !ts.tensor
}""",
    f"{_NN}.activation.Softmax": _softmax("aten.softmax"),
    f"{_NN}.activation.LogSoftmax": _softmax("aten.log_softmax"),
    f"{_NN}.dropout.Dropout": """
func.func @forward(%self : !Self, %input : !ts.tensor) -> !ts.tensor {
  %p = prim.GetAttr[name = "p"] %self : !Self -> !ts.float
  %training = prim.GetAttr[name = "training"] %self : !Self -> !ts.bool
  %r = aten.dropout %input, %p, %training : (!ts.tensor, !ts.float, !ts.bool) -> !ts.tensor
  func.return %r : !ts.tensor
}""",
    f"{_NN}.flatten.Flatten": """
func.func @forward(%self : !Self, %input : !ts.tensor) -> !ts.tensor {
  %start = prim.GetAttr[name = "start_dim"] %self : !Self -> !ts.int
  %end = prim.GetAttr[name = "end_dim"] %self : !Self -> !ts.int
  %r = aten.flatten %input, %start, %end : (!ts.tensor, !ts.int, !ts.int) -> !ts.tensor
  func.return %r : !ts.tensor
}""",
    f"{_NN}.normalization.LayerNorm": """
func.func @forward(%self : !Self, %input : !ts.tensor) -> !ts.tensor {
  %shape = prim.GetAttr[name = "normalized_shape"] %self : !Self -> !ts.list<!ts.int>
  %weight = prim.GetAttr[name = "weight"] %self : !Self -> !OptionalTensor
  %bias = prim.GetAttr[name = "bias"] %self : !Self -> !OptionalTensor
  %eps = prim.GetAttr[name = "eps"] %self : !Self -> !ts.float
  %true = prim.Constant true : !ts.bool
  %r = aten.layer_norm %input, %shape, %weight, %bias, %eps, %true
      : (!ts.tensor, !ts.list<!ts.int>, !OptionalTensor, !OptionalTensor, !ts.float, !ts.bool) -> !ts.tensor
  func.return %r : !ts.tensor
}""",
    f"{_NN}.sparse.Embedding": """
func.func @forward(%self : !Self, %input : !ts.tensor) -> !ts.tensor {
  %weight = prim.GetAttr[name = "weight"] %self : !Self -> !ts.tensor
  %padding = prim.Constant -1 : !ts.int
  %false = prim.Constant false : !ts.bool
  %r = aten.embedding %weight, %input, %padding, %false, %false
      : (!ts.tensor, !ts.tensor, !ts.int, !ts.bool, !ts.bool) -> !ts.tensor
  func.return %r : !ts.tensor
}""",
    f"{_NN}.conv.Conv2d": """
func.func @forward(%self : !Self, %input : !ts.tensor) -> !ts.tensor {
  %weight = prim.GetAttr[name = "weight"] %self : !Self -> !ts.tensor
  %bias = prim.GetAttr[name = "bias"] %self : !Self -> !OptionalTensor
  %stride = prim.GetAttr[name = "stride"] %self : !Self -> !ts.list<!ts.int>
  %padding = prim.GetAttr[name = "padding"] %self : !Self -> !ts.list<!ts.int>
  %dilation = prim.GetAttr[name = "dilation"] %self : !Self -> !ts.list<!ts.int>
  %groups = prim.GetAttr[name = "groups"] %self : !Self -> !ts.int
  %r = aten.conv2d %input, %weight, %bias, %stride, %padding, %dilation, %groups
      : (!ts.tensor, !ts.tensor, !OptionalTensor, !Ints, !Ints, !Ints, !ts.int) -> !ts.tensor
  func.return %r : !ts.tensor
}""",
    f"{_NN}.batchnorm.BatchNorm2d": """
func.func @forward(%self : !Self, %input : !ts.tensor) -> !ts.tensor {
  %weight = prim.GetAttr[name = "weight"] %self : !Self -> !OptionalTensor
  %bias = prim.GetAttr[name = "bias"] %self : !Self -> !OptionalTensor
  %mean = prim.GetAttr[name = "running_mean"] %self : !Self -> !OptionalTensor
  %var = prim.GetAttr[name = "running_var"] %self : !Self -> !OptionalTensor
  %training = prim.GetAttr[name = "training"] %self : !Self -> !ts.bool
  %momentum = prim.GetAttr[name = "momentum"] %self : !Self -> !ts.float
  %eps = prim.GetAttr[name = "eps"] %self : !Self -> !ts.float
  %true = prim.Constant true : !ts.bool
  %r = aten.batch_norm %input, %weight, %bias, %mean, %var, %training, %momentum, %eps, %true
      : (!ts.tensor, !OptionalTensor, !OptionalTensor, !OptionalTensor, !OptionalTensor,
         !ts.bool, !ts.float, !ts.float, !ts.bool) -> !ts.tensor
  func.return %r : !ts.tensor
}""",
    "__torch__.torch.autograd.grad_mode.no_grad": """
func.func @__init__(%self : !Self) -> !ts.none {
  %false = prim.Constant false : !ts.bool
  prim.SetAttr[name = "prev"] %self, %false : !Self, !ts.bool
  %none = prim.Constant : !ts.none
  func.return %none : !ts.none
}""",
}
"""Builtin classes and their methods, as TorchScript graphs over `!Self`. A method
reading a configuration attribute (`Softmax.dim`) needs it in module.json."""
