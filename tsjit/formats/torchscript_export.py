"""tsjit IR out as PyTorch's graph text, the inverse of `torchscript_text`.

    func.func @forward(%x.1 : !ts.tensor) -> ... {   graph(%x.1 : Tensor):
      %0 = prim.Constant 1 : !ts.int                   %0 : int = prim::Constant[value=1]()
      %y = aten.add %x.1, %x.1, %0 loc("s.py":3:5)     %y : Tensor = aten::add(%x.1, %x.1, %0) # s.py:3:4
      %r = func.call @helper(%y) : ...                 %1 : Function = prim::Constant[name="helper"]()
                                                       %r : Tensor = prim::CallFunction(%1, %y)
      func.return %r : !ts.tensor                      return (%r)

Printing follows PyTorch's `Graph::print` (layout, `blockN(...)`, `-> (...)`,
`with prim::FusionGroup_0 = graph(...)` after the graph, float and string spelling) so
that importing the text gives back the same IR and `torch._C.parse_ir` reads what it
can read of PyTorch's own output. Values keep their name hints, made unique per graph
(`%x`, `%x_1`); unnamed values are numbered.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from xdsl.dialects import func
from xdsl.dialects.builtin import (
    ArrayAttr,
    CallSiteLoc,
    DenseIntOrFPElementsAttr,
    FileLineColLoc,
    FloatAttr,
    IntegerAttr,
    ModuleOp,
    NoneAttr,
    StringAttr,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.traits import IsolatedFromAbove, IsTerminator

from tsjit.diagnostics import SourceLocation, TsjitError
from tsjit.dialects import types as ts
from tsjit.formats.torchscript_text import ATTRIBUTE_NAMES, OP_NAMES

KINDS_OF_OPS = {op: kind for kind, op in OP_NAMES.items()}
NODE_ATTRIBUTE_NAMES = {(kind, prop): attr for (kind, attr), prop in ATTRIBUTE_NAMES.items()}
_NAME = re.compile(r"[A-Za-z_]\w*(?:\.\w+)*")
_DEVICE_PREFIX = {"cpu": "CPU", "cuda": "CUDA", "mps": "MPS", "xpu": "XPU", "meta": "Meta"}


def export_graph_text(module: ModuleOp | func.FuncOp, entry: str | None = None) -> str:
    """The graph text of function `entry`; by default `forward`, or the module's only
    function."""
    function = module if isinstance(module, func.FuncOp) else find_function(module, entry)
    return GraphPrinter().graph(function)


def find_function(module: ModuleOp, entry: str | None) -> func.FuncOp:
    defined = [op for op in module.ops if isinstance(op, func.FuncOp) and not op.is_declaration]
    for op in defined:
        if op.sym_name.data == (entry or "forward"):
            return op
    if entry is None and len(defined) == 1:
        return defined[0]
    names = ", ".join(f"@{op.sym_name.data}" for op in defined) or "none"
    raise TsjitError(f"no function @{entry or 'forward'} to export (functions: {names})")


def node_kind(op: Operation) -> str:
    """The node kind of an op: its schema operator (`aten::add`), `prim::X` for the
    prim dialect, `prim::profile` for the profiling ops."""
    operator = getattr(type(op), "OPERATOR", None)
    if operator is not None:
        return operator
    if op.name in KINDS_OF_OPS:
        return KINDS_OF_OPS[op.name]
    if op.name.startswith("prim."):
        return "prim::" + op.name[5:]
    raise TsjitError(
        f"'{op.name}' is not a TorchScript operation and has no graph text", SourceLocation.of_op(op)
    )


def torchscript_float(value: float) -> str:
    """PyTorch's spelling of a double: `1.`, `-0.`, `0.10000000000000001`, `inf`."""
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    if abs(value) < 1e10 and value == int(value):
        return f"-{int(value)}." if value == 0 and math.copysign(1.0, value) < 0 else f"{int(value)}."
    return format(value, ".17g")


def torchscript_string(value: str) -> str:
    """A double-quoted literal with PyTorch's escapes; other bytes as `\\ooo`."""
    out = ['"']
    for byte in value.encode("utf-8", errors="surrogateescape"):
        char = chr(byte)
        if char in _STRING_ESCAPES:
            out.append(_STRING_ESCAPES[char])
        elif 0x20 <= byte < 0x7F:
            out.append(char)
        else:
            out.append(f"\\{byte:03o}")
    out.append('"')
    return "".join(out)


_STRING_ESCAPES = {
    "\\": "\\\\", "'": "\\'", '"': '\\"', "\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n",
    "\r": "\\r", "\t": "\\t", "\v": "\\v",
}  # fmt: skip


class GraphPrinter:
    """Prints one graph; subgraphs are printed by fresh printers (own names)."""

    def __init__(self) -> None:
        self.names: dict[SSAValue, str] = {}
        self.taken: set[str] = set()
        self.next_number = 0
        self.lines: list[str] = []
        self.groups: list[Operation] = []

    def graph(self, function: func.FuncOp) -> str:
        if function.is_declaration:
            raise TsjitError(
                f"@{function.sym_name.data} has no body to export", SourceLocation.of_op(function)
            )
        return self.graph_of_block(function.body.block, function)

    def graph_of_block(self, block: Block, owner: Operation) -> str:
        if len(owner.regions[0].blocks) != 1:
            raise TsjitError(
                f"'{owner.name}' has several blocks; graph text has one", SourceLocation.of_op(owner)
            )
        inputs = ",\n      ".join(self.define(arg) for arg in block.args)
        self.lines.append(f"graph({inputs}):")
        terminator = self.ops(block, 1)
        self.lines.append(f"  return ({self.uses(terminator.operands)})")
        text = "\n".join(self.lines) + "\n"
        for index, group in enumerate(self.groups):
            subgraph = GraphPrinter().graph_of_block(group.regions[0].block, group)
            text += f"with {node_kind(group)}_{index} = {subgraph}"
        return text

    def ops(self, block: Block, level: int) -> Operation:
        """Prints the block's ops but its terminator, which it returns."""
        terminator = block.last_op
        if terminator is None or not terminator.has_trait(IsTerminator):
            raise TsjitError(
                "a block without terminator cannot be printed", SourceLocation.of_op(block.parent_op())
            )
        for op in block.ops:
            if op is not terminator:
                self.op(op, level)
        return terminator

    def op(self, op: Operation, level: int) -> None:
        indent = "  " * level
        if isinstance(op, func.CallOp):
            callee, name = self.fresh(), op.callee.string_value()
            self.lines.append(
                f"{indent}{callee} : Function = prim::Constant[name={torchscript_string(name)}]()"
            )
            self.node(op, level, "prim::CallFunction", "", [callee, *map(self.use, op.operands)])
            return
        kind = node_kind(op)
        subgraph = len(op.regions) == 1 and op.has_trait(IsolatedFromAbove)
        if subgraph:
            kind = f"{kind}_{len(self.groups)}"
            self.groups.append(op)
        self.node(op, level, kind, self.attributes(op), [self.use(v) for v in op.operands])
        if subgraph:
            return
        for index, region in enumerate(op.regions):
            if len(region.blocks) != 1:
                raise TsjitError(f"'{op.name}' region {index} must have one block", SourceLocation.of_op(op))
            block = region.block
            params = ", ".join(self.define(arg) for arg in block.args)
            self.lines.append(f"{indent}  block{index}({params}):")
            terminator = self.ops(block, level + 2)
            self.lines.append(f"{indent}    -> ({self.uses(terminator.operands)})")

    def node(self, op: Operation, level: int, kind: str, attributes: str, inputs: Sequence[str]) -> None:
        outputs = ", ".join(self.define(r) for r in op.results)
        line = f"{'  ' * level}{outputs} = {kind}{attributes}({', '.join(inputs)})"
        location = op.location
        while isinstance(location, CallSiteLoc):  # an inlined op: its own position
            location = location.callee
        if isinstance(location, FileLineColLoc):  # not a NameLoc: graph text's own line
            column = max(location.column.data - 1, 0)  # PyTorch prints 0-based columns
            line += f" # {location.filename.data}:{location.line.data}:{column}"
        self.lines.append(line)

    # -- attributes ---------------------------------------------------------------------

    def attributes(self, op: Operation) -> str:
        kind = node_kind(op)
        if kind == "prim::Constant":
            return self.constant(op)
        items = [*op.properties.items(), *op.attributes.items()]
        if not items:
            return ""
        parts = [
            f"{NODE_ATTRIBUTE_NAMES.get((kind, name), name)}={self.attribute(value, op)}"
            for name, value in items
        ]
        return "[" + ", ".join(parts) + "]"

    def constant(self, op: Operation) -> str:
        value = op.properties.get("value")
        extra = [f"{name}={self.attribute(v, op)}" for name, v in op.attributes.items()]
        if value is not None:
            extra.insert(0, f"value={self.constant_value(value, op.results[0].type, op)}")
        return "[" + ", ".join(extra) + "]" if extra else ""

    def constant_value(self, value: Attribute, value_type: Attribute, op: Operation) -> str:
        """A `prim.Constant` value as PyTorch prints it for the constant's type (empty
        containers with their annotation: `annotate(List[int], [])`)."""
        from tsjit.formats.python_code import python_type  # python_code imports this module

        if isinstance(value_type, ts.OptionalType):
            value_type = value_type.element_type
        if isinstance(value_type, ts.BoolType) and isinstance(value, IntegerAttr):
            return "1" if value.value.data else "0"
        if isinstance(value_type, ts.EnumType) and isinstance(value, StringAttr):
            return value.data  # `__torch__.m.Color.RED`, unquoted
        if isinstance(value_type, ts.TensorType) and isinstance(value, DenseIntOrFPElementsAttr):
            return tensor_literal(value, value_type)
        if isinstance(value_type, (ts.ListType, ts.TupleType)) and isinstance(value, ArrayAttr):
            elements = (
                [value_type.element_type] * len(value)
                if isinstance(value_type, ts.ListType)
                else value_type.types
            )
            items = [self.element_value(v, t, op) for v, t in zip(value, elements)]
            if isinstance(value_type, ts.ListType) and not items:  # PyTorch's empty list
                from tsjit.formats.python_code import python_type

                return f"annotate({python_type(value_type)}, [])"
            if isinstance(value_type, ts.ListType):
                return "[" + ", ".join(items) + "]" if items else f"annotate({python_type(value_type)}, [])"
            return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
        if isinstance(value_type, ts.DictType) and isinstance(value, ArrayAttr):
            if not value.data:
                return f"annotate({python_type(value_type)},{{}})"
            entries = (
                f"{self.element_value(k, value_type.key_type, op)}: {self.element_value(v, value_type.value_type, op)}"
                for k, v in (pair.data for pair in value)  # pyright: ignore[reportAttributeAccessIssue]
            )
            return "{" + ", ".join(entries) + "}"
        return self.attribute(value, op)

    def element_value(self, value: Attribute, value_type: Attribute, op: Operation) -> str:
        """Inside list and tuple constants bools are `True`/`False` (IValue printing)."""
        if isinstance(value_type, ts.BoolType) and isinstance(value, IntegerAttr):
            return "True" if value.value.data else "False"
        return self.constant_value(value, value_type, op)

    def attribute(self, value: Attribute, op: Operation) -> str:
        if isinstance(value, IntegerAttr):
            if value.type.width.data == 1:  # pyright: ignore[reportAttributeAccessIssue]
                return "True" if value.value.data else "False"
            return str(value.value.data)
        if isinstance(value, FloatAttr):
            return torchscript_float(value.value.data)
        if isinstance(value, StringAttr):
            return torchscript_string(value.data)
        if isinstance(value, ArrayAttr):
            return "[" + ", ".join(self.attribute(v, op) for v in value) + "]"
        if isinstance(value, NoneAttr):
            return "None"
        if isinstance(value, DenseIntOrFPElementsAttr):
            return tensor_literal(value, None)
        if isinstance(value, ts.TorchType):
            return ts.to_torchscript_str(value)
        raise TsjitError(
            f"attribute {value} of '{op.name}' has no graph text spelling", SourceLocation.of_op(op)
        )

    # -- values -------------------------------------------------------------------------

    def define(self, value: SSAValue) -> str:
        hint = value.name_hint
        if hint is not None and not _NAME.fullmatch(hint):
            hint = re.sub(r"[^\w.]", "_", hint).strip(".") or None
            if hint is not None and not _NAME.fullmatch(hint):
                hint = None
        if hint is None:
            name = self.fresh()
        else:
            name, suffix = hint, 0
            while name in self.taken:
                suffix += 1
                name = f"{hint}_{suffix}"
            self.taken.add(name)
            name = "%" + name
        self.names[value] = name
        try:
            return f"{name} : {ts.to_torchscript_str(value.type)}"
        except ValueError:
            owner = value.owner if isinstance(value.owner, Operation) else value.owner.parent_op()
            where = SourceLocation.of_op(owner) if owner is not None else None
            raise TsjitError(f"{value.type} is not a TorchScript type and has no graph text", where) from None

    def fresh(self) -> str:
        while str(self.next_number) in self.taken:
            self.next_number += 1
        self.taken.add(str(self.next_number))
        self.next_number += 1
        return f"%{self.next_number - 1}"

    def use(self, value: SSAValue) -> str:
        name = self.names.get(value)
        if name is None:
            owner = value.owner
            where = SourceLocation.of_op(owner) if isinstance(owner, Operation) else None
            raise TsjitError("a value is used outside the graph that defines it", where)
        return name

    def uses(self, values: Sequence[SSAValue]) -> str:
        return ", ".join(self.use(v) for v in values)


def tensor_literal(value: DenseIntOrFPElementsAttr, value_type: ts.TensorType | None) -> str:
    """`{v}` when the type knows dtype and shape and there is one element (as PyTorch
    prints it), else every element and `[ CPUFloatType{2,3} ]`."""
    element = value.get_element_type()
    dtype = ts.DTYPE_BY_ELEMENT[element]
    shape = tuple(value.get_shape())
    values = value.get_values()
    spell = _element_speller(dtype)
    if (
        len(values) == 1
        and value_type is not None
        and value_type.dtype_info == dtype
        and (value_type.shape == shape or (value_type.shape is None and shape == ()))
    ):
        return "{" + spell(values[0]) + "}"  # read back with the type's shape, else 0-dim
    device = value_type.device_name if value_type is not None else None
    backend = _DEVICE_PREFIX.get((device or "cpu").split(":")[0], "CPU")
    body = "".join(" " + spell(v) + " " for v in values)
    return f"{body}[ {backend}{dtype.name}Type{{{','.join(map(str, shape))}}} ]"


def _element_speller(dtype: ts.DType):
    """Shortest text that reads back as the same element of `dtype`."""
    if dtype.name == "Bool":
        return lambda v: "1" if v else "0"
    if not dtype.is_floating:
        return lambda v: str(int(v))
    import numpy as np

    exact = {"Float": np.float32, "BFloat16": np.float32, "Half": np.float16}.get(dtype.name)

    def spell(v: float) -> str:
        if math.isnan(v) or math.isinf(v):
            return torchscript_float(v)
        if v == int(v) and abs(v) < 2**53 and not (v == 0 and math.copysign(1.0, v) < 0):
            return str(int(v))  # PyTorch's ` 7  7`; the dtype makes it a float again
        return str(exact(v)) if exact is not None else repr(float(v))

    return spell


__all__ = [
    "GraphPrinter",
    "export_graph_text",
    "find_function",
    "node_kind",
    "tensor_literal",
    "torchscript_float",
    "torchscript_string",
]
