"""PyTorch's graph text in: a `graph(...)` becomes a `func.func` in a module.

    graph(%x.1 : Tensor):                             func.func @forward(%x.1 : !ts.tensor) -> ... {
      %3 : int = prim::Constant[value=0]() # s.py:5:2   %0 = prim.Constant 0 : !ts.int  loc("s.py":5:3)
      %y : Tensor = prim::If(%4)                        %y = prim.If %4 -> (!ts.tensor) {...} else {...}
      %f : Function = prim::Constant[name="helper"]()   (the callee, `func.func private @helper`)
      %r : Tensor = prim::CallFunction(%f, %y)          %r = func.call @helper(%y) : ...
      return (%r)                                       func.return %r : !ts.tensor

Every node `ns::kind` becomes the op `ns.kind` the context knows (hand-written prim ops,
schema ops, open-universe aten ops); its blocks become regions ending in `prim.Yield`,
the subgraph of a `prim::FusionGroup_0` node becomes the region of a `prim.FusionGroup`,
node attributes become the op's properties of the same name and otherwise discardable
attributes. Value names become name hints (numeric ones are renumbered by the printer),
`# file:line:col` comments become op locations (their 0-based columns 1-based, as
MLIR counts and as tsjit's diagnostics read them; a node without one is located at
its own line of the text). Malformed text, unknown values and
ops that fail verification are reported at their position in the text.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseIntOrFPElementsAttr,
    FileLineColLoc,
    FloatAttr,
    IntAttr,
    IntegerAttr,
    LocationAttr,
    ModuleOp,
    NameLoc,
    NoneAttr,
    StringAttr,
    f64,
    i1,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.utils.exceptions import VerifyException

from tsjit.collector import collector_paused
from tsjit.diagnostics import TsjitError
from tsjit.dialects import types as ts
from tsjit.dialects.prim import ConstantError, ConstantOp, constant_attr
from tsjit.dialects.value_names import name_hint
from tsjit.formats import torchscript_syntax as syntax

FUNCTION_TYPE = ts.OpaqueType("Function")
"""The type of `prim::Constant[name="f"]()`, a callee: it becomes a symbol, not a value."""

OP_NAMES: dict[str, str] = {
    "prim::profile": "profile.profile",
    "prim::TypeCheck": "profile.type_check",
    "prim::Guard": "profile.guard",
    "prim::BailOut": "profile.bailout",
}
"""Node kinds whose op is not spelled `ns.kind` (the profiling ops of `profile`)."""

ATTRIBUTE_NAMES: dict[tuple[str, str], str] = {
    ("prim::TypeCheck", "types"): "expected_types",
    ("prim::TupleSlice", "beg"): "begin",
}
"""Node attributes whose op property has another name."""


def import_graph_text(
    ctx: Context, text: str, filename: str = "<stdin>", line_offset: int = 0, entry: str = "forward"
) -> ModuleOp:
    """Reads one PyTorch graph as the function `entry` of a new, verified module."""
    source = syntax.Source(text, filename, line_offset)
    with collector_paused():  # import allocates objects that stay alive
        graph = syntax.parse_graph_text(source)
        return GraphImporter(ctx, source).module(graph, entry)


def op_name_of_kind(kind: str) -> str:
    """`aten::add` -> `aten.add`, `prim::profile` -> `profile.profile`."""
    return OP_NAMES.get(kind) or kind.replace("::", ".", 1)


class _Scope:
    """The values of one graph: TorchScript names are unique per graph and values are
    visible from their definition to the end of their block."""

    def __init__(self) -> None:
        self.visible: dict[str, SSAValue] = {}
        self.defined: dict[str, int] = {}
        self.callees: dict[str, str] = {}  # Function values -> function symbol
        self.blocks: list[list[str]] = []  # names defined in each open nested block


class GraphImporter:
    """Builds IR from the syntax tree; one importer per text."""

    def __init__(self, ctx: Context, source: syntax.Source):
        self.ctx = ctx
        self.source = source
        self.declarations: dict[str, func.FuncOp] = {}
        self.positions: dict[Operation, int] = {}
        self.locations: dict[tuple[str, int, int], LocationAttr] = {}
        self.filenames: dict[str, StringAttr] = {}
        self.op_classes: dict[str, type[Operation]] = {}
        self.calls: list[func.CallOp] = []

    def module(self, graph: syntax.Graph, entry: str) -> ModuleOp:
        function = self.function(graph, entry)
        for call in self.calls:  # calls of a callee with arguments of several types
            cast_call_operands(call, self.declarations[call.callee.string_value()].function_type.inputs.data)
        module = ModuleOp([function, *self.declarations.values()])
        self.verify(module)
        return module

    def function(self, graph: syntax.Graph, name: str) -> func.FuncOp:
        scope = _Scope()
        body = graph.body
        block = Block(arg_types=[p.type for p in body.params])
        self.define_all(scope, body.params, block.args)
        block.add_ops(self.nodes(scope, body.nodes))
        returns = self.uses(scope, body.returns)
        return_op = func.ReturnOp(*returns)
        self.positions[return_op] = body.return_offset
        block.add_op(return_op)
        function = func.FuncOp(
            name, ([p.type for p in body.params], [v.type for v in returns]), Region(block)
        )
        where = self.source.location(graph.offset)
        function.location = self.location((where.file, where.line, where.col))
        return function

    # -- nodes --------------------------------------------------------------------------

    def nodes(self, scope: _Scope, nodes: Sequence[syntax.Node]) -> list[Operation]:
        ops: list[Operation] = []
        for node in nodes:
            op = self.node(scope, node)
            if op is None:
                continue
            self.positions[op] = node.offset
            if node.source is not None:  # PyTorch's columns are 0-based, MLIR's 1-based
                file, line, col = node.source
                op.location = self.location((file, line, col + 1))
            else:
                op.location = self.graph_location(node.kind, node.kind_offset)
            ops.append(op)
        return ops

    def node(self, scope: _Scope, node: syntax.Node) -> Operation | None:
        kind = node.kind
        if kind == "prim::Constant":
            if len(node.outputs) == 1 and node.outputs[0].type == FUNCTION_TYPE:
                self.function_constant(scope, node)
                return None
            op = self.constant(node)
        elif kind == "prim::CallFunction":
            op = self.call(scope, node)
        else:
            op = self.generic(scope, node)
        self.define_all(scope, node.outputs, op.results)
        return op

    def generic(self, scope: _Scope, node: syntax.Node) -> Operation:
        """Any other node: the op of its kind, attributes as properties or attributes."""
        kind = node.kind
        if node.subgraph is not None:
            kind = kind[: kind.rindex("_")]
        op_class = self.op_class(kind, node.kind_offset)
        properties, attributes = self.attributes(op_class, kind, node.attributes)
        regions = [self.block_region(scope, block) for block in node.blocks]
        if node.subgraph is not None:
            regions.append(self.subgraph_region(node.subgraph))
        return op_class.create(
            operands=self.uses(scope, node.inputs),
            result_types=[o.type for o in node.outputs],
            properties=properties,
            attributes=attributes,
            regions=regions,
        )

    def op_class(self, kind: str, offset: int) -> type[Operation]:
        known = self.op_classes.get(kind)
        if known is None:
            known = self.ctx.get_optional_op(op_name_of_kind(kind))
            if known is None:
                missing_subgraph = syntax.GROUP_KIND.search(kind) is not None
                hint = " (no `with` clause after the graph defines its subgraph)" if missing_subgraph else ""
                raise self.source.error(f"unknown operator '{kind}'{hint}", offset)
            self.op_classes[kind] = known
        return known

    def attributes(
        self, op_class: type[Operation], kind: str, attributes: Sequence[syntax.Attribute]
    ) -> tuple[dict[str, Attribute], dict[str, Attribute]]:
        """Properties the op defines get the attributes of their name; the rest stay
        discardable attributes, so export prints them back."""
        if not attributes:
            return {}, {}
        property_names = _property_names(op_class)
        properties: dict[str, Attribute] = {}
        discardable: dict[str, Attribute] = {}
        for attribute in attributes:
            name = ATTRIBUTE_NAMES.get((kind, attribute.name), attribute.name)
            value = self.attribute_value(attribute.value, attribute.offset)
            (properties if name in property_names else discardable)[name] = value
        return properties, discardable

    def attribute_value(self, value: object, offset: int) -> Attribute:
        """A node attribute as an xDSL attribute, keeping TorchScript's kind: int i64,
        float f64, str, type, tensor, and lists of them."""
        if isinstance(value, bool):
            return IntegerAttr(int(value), i1)
        if isinstance(value, int):
            return IntegerAttr(value, i64)
        if isinstance(value, float):
            return FloatAttr(value, f64)
        if isinstance(value, str):
            return StringAttr(value)
        if value is None:
            return NoneAttr()
        if isinstance(value, (list, tuple)):
            return ArrayAttr(self.attribute_value(v, offset) for v in value)
        if isinstance(value, syntax.TensorLiteral):
            return self.dense(value, None, offset)
        if isinstance(value, syntax.DictLiteral):
            raise self.source.error("a dict literal is only the value of a prim::Constant", offset)
        assert isinstance(value, ts.TorchType)
        return value

    # -- blocks and subgraphs -----------------------------------------------------------

    def block_region(self, scope: _Scope, block: syntax.Block) -> Region:
        body = Block(arg_types=[p.type for p in block.params])
        scope.blocks.append([])
        self.define_all(scope, block.params, body.args)
        body.add_ops(self.nodes(scope, block.nodes))
        body.add_op(self.yield_op(scope, block))
        for name in scope.blocks.pop():
            del scope.visible[name]  # values live until the end of their block
        return Region(body)

    def subgraph_region(self, graph: syntax.Graph) -> Region:
        """A `with` subgraph: its own names, inputs as block arguments."""
        scope = _Scope()
        body = Block(arg_types=[p.type for p in graph.body.params])
        self.define_all(scope, graph.body.params, body.args)
        body.add_ops(self.nodes(scope, graph.body.nodes))
        body.add_op(self.yield_op(scope, graph.body))
        return Region(body)

    def yield_op(self, scope: _Scope, block: syntax.Block) -> Operation:
        op = self.op_class("prim::Yield", block.return_offset).create(
            operands=self.uses(scope, block.returns)
        )
        self.positions[op] = block.return_offset
        return op

    # -- constants and calls ------------------------------------------------------------

    def constant(self, node: syntax.Node) -> Operation:
        if len(node.outputs) != 1:
            raise self.source.error(f"prim::Constant has 1 output, not {len(node.outputs)}", node.offset)
        result_type = node.outputs[0].type
        value = None
        others: dict[str, Attribute] = {}
        for attribute in node.attributes:
            if attribute.name == "value":
                value = self.constant_value(attribute.value, result_type, attribute.offset)
            else:
                others[attribute.name] = self.attribute_value(attribute.value, attribute.offset)
        try:
            op = ConstantOp.from_value(value, result_type)
        except ConstantError as e:
            where = next((a.offset for a in node.attributes if a.name == "value"), node.kind_offset)
            raise self.source.error(str(e), where) from None
        op.attributes.update(others)
        return op

    def constant_value(self, value: object, value_type: Attribute, offset: int) -> object:
        """The Python value `ConstantOp.from_value` takes for a `value=` literal; the
        value's type decides (`1` of type bool is True, `{2}` a Long tensor)."""
        if isinstance(value_type, ts.OptionalType):
            value_type = value_type.element_type
        if isinstance(value, syntax.TensorLiteral):
            if not isinstance(value_type, ts.TensorType):
                spelled = ts.to_torchscript_str(value_type)
                raise self.source.error(f"a tensor literal is not a constant of type {spelled}", offset)
            return self.dense(value, value_type, offset)
        if isinstance(value_type, ts.BoolType) and isinstance(value, int):
            return bool(value)
        if isinstance(value_type, ts.EnumType) and isinstance(value, ts.ClassType):
            return value.qualname.data  # `__torch__.m.Color.RED` reads as a dotted name
        if isinstance(value_type, ts.FloatType) and isinstance(value, int) and not isinstance(value, bool):
            return float(value)
        if isinstance(value_type, (ts.ListType, ts.TupleType)) and isinstance(value, (list, tuple)):
            element_types = (
                [value_type.element_type] * len(value)
                if isinstance(value_type, ts.ListType)
                else list(value_type.types)
            )
            items = [self.constant_value(v, t, offset) for v, t in zip(value, element_types)]
            return items if isinstance(value_type, ts.ListType) else tuple(items)
        if isinstance(value_type, ts.DictType) and isinstance(value, syntax.DictLiteral):
            return {
                self.constant_value(k, value_type.key_type, offset): self.constant_value(
                    v, value_type.value_type, offset
                )
                for k, v in value.items
            }
        if isinstance(value, syntax.DictLiteral):
            spelled = ts.to_torchscript_str(value_type)
            raise self.source.error(f"a dict literal is not a constant of type {spelled}", offset)
        return value

    def dense(
        self, literal: syntax.TensorLiteral, value_type: ts.TensorType | None, offset: int
    ) -> DenseIntOrFPElementsAttr:
        """A tensor literal as a dense attribute of its dtype and shape; `{v}` takes
        both from the value's type when it knows them."""
        import numpy as np

        dtype = ts.DTYPE_BY_NAME.get(literal.dtype) if literal.dtype is not None else None
        if literal.dtype is not None and dtype is None:
            raise self.source.error(f"unknown tensor dtype '{literal.dtype}'", offset)
        if dtype is None and value_type is not None:
            dtype = value_type.dtype_info
        if dtype is None:
            dtype = ts.DTYPE_BY_NAME["Double" if isinstance(literal.values[0], float) else "Long"]
        if dtype.is_complex:
            raise self.source.error(f"{dtype.name} tensor constants are not supported", offset)
        sizes = literal.sizes
        if sizes is None:
            shape = value_type.shape if value_type is not None else None
            known = shape is not None and None not in shape
            sizes = tuple(shape) if known else ()  # pyright: ignore[reportArgumentType]
        count = 1
        for size in sizes:
            count *= size
        if count != len(literal.values):
            raise self.source.error(
                f"tensor literal has {len(literal.values)} values for shape {list(sizes)}", offset
            )
        numpy_dtype = "float32" if dtype.name == "BFloat16" else dtype.torch_name
        array = np.array(literal.values, dtype=numpy_dtype).reshape(sizes)
        attr = constant_attr(array, ts.TensorType(dtype.element, sizes))
        assert isinstance(attr, DenseIntOrFPElementsAttr)
        return attr

    def function_constant(self, scope: _Scope, node: syntax.Node) -> None:
        """`%f : Function = prim::Constant[name="helper"]()`: `%f` names the symbol.
        Other attributes of such a constant (the profiling executor's `fallback=1`)
        describe PyTorch's executor state and are not kept."""
        names = [a for a in node.attributes if a.name == "name"]
        if not names or not isinstance(names[0].value, str):
            raise self.source.error('a Function constant needs a name="..." attribute', node.kind_offset)
        output = node.outputs[0]
        self.define_name(scope, output.name, output.offset)
        scope.callees[output.name] = names[0].value

    def call(self, scope: _Scope, node: syntax.Node) -> Operation:
        """`prim::CallFunction(%f, args)` -> `func.call @f(args)`; the callee is
        declared from the first call's types."""
        if not node.inputs:
            raise self.source.error(
                "prim::CallFunction needs the function as its first input", node.kind_offset
            )
        function, *arguments = node.inputs
        callee = scope.callees.get(function.name)
        if callee is None:
            self.uses(scope, [function])  # unknown or out of scope
            raise self.source.error(f"'%{function.name}' is not a Function constant", function.offset)
        operands = self.uses(scope, arguments)
        signature = ([v.type for v in operands], [o.type for o in node.outputs])
        declared = self.declarations.get(callee)
        if declared is None:
            self.declarations[callee] = func.FuncOp.external(callee, *signature)
        else:
            earlier = (list(declared.function_type.inputs), list(declared.function_type.outputs))
            joined = _join_parameters(earlier[0], signature[0])
            if joined is None or earlier[1] != signature[1]:
                raise self.source.error(
                    f"call of '{callee}' with types {_signature(*signature)} "
                    f"but an earlier call used {_signature(*earlier)}",
                    node.kind_offset,
                )
            declared.function_type = func.FunctionType.from_lists(joined, earlier[1])
        call = func.CallOp(callee, operands, signature[1])
        self.calls.append(call)
        return call

    # -- values -------------------------------------------------------------------------

    def define_all(self, scope: _Scope, defs: Sequence[syntax.ValueDef], values: Sequence[SSAValue]) -> None:
        for definition, value in zip(defs, values, strict=True):
            self.define_name(scope, definition.name, definition.offset)
            scope.visible[definition.name] = value
            if scope.blocks:
                scope.blocks[-1].append(definition.name)
            if (hint := name_hint(definition.name)) is not None:
                value.name_hint = hint

    def define_name(self, scope: _Scope, name: str, offset: int) -> None:
        if name in scope.defined:
            line, col = self.source.line_col(scope.defined[name])
            raise self.source.error(f"redefinition of '%{name}' (first defined at {line}:{col})", offset)
        scope.defined[name] = offset

    def uses(self, scope: _Scope, uses: Sequence[syntax.ValueUse]) -> list[SSAValue]:
        visible = scope.visible
        values: list[SSAValue] = []
        for use in uses:
            value = visible.get(use.name)
            if value is None:
                raise self.source.error(self.why_unknown(scope, use.name), use.offset)
            values.append(value)
        return values

    def why_unknown(self, scope: _Scope, name: str) -> str:
        if name in scope.callees:
            return f"the Function '%{name}' can only be called by prim::CallFunction"
        if name in scope.defined:
            line, col = self.source.line_col(scope.defined[name])
            return (
                f"'%{name}' (defined at {line}:{col}) is not visible here: "
                "values live until the end of their block"
            )
        return f"use of undefined value '%{name}'"

    # -- locations and verification -----------------------------------------------------

    def location(self, source: tuple[str, int, int]) -> LocationAttr:
        known = self.locations.get(source)
        if known is None:
            filename = self.filenames.get(source[0])
            if filename is None:
                filename = self.filenames[source[0]] = StringAttr(source[0])
            known = self.locations[source] = FileLineColLoc(filename, IntAttr(source[1]), IntAttr(source[2]))
        return known

    def graph_location(self, kind: str, offset: int) -> LocationAttr:
        """Where a node without a source comment is: its line in the graph text, named
        after its kind (`loc("aten::frob"("graph.txt":4:17))`), so that errors about it
        point there while the exporter prints no source comment for it."""
        where = self.source.location(offset)
        return NameLoc(StringAttr(kind), self.location((where.file, where.line, where.col)))

    def verify(self, module: ModuleOp) -> None:
        """Verifies every op, reporting a failure at its node in the text."""
        for op in module.walk():
            try:
                op.verify(verify_nested_ops=False)
            except VerifyException as e:
                message = _first_sentence(str(e))
                if not message.startswith("'"):
                    message = f"'{op.name}' op {message}"
                offset = self.positions.get(op)
                if offset is None:
                    raise TsjitError(message) from e
                raise self.source.error(message, offset) from e


def _join_parameters(a: Sequence[Attribute], b: Sequence[Attribute]) -> list[Attribute] | None:
    """Parameter types that take the arguments of two calls: PyTorch passes a value of
    a member type to a Union or Optional parameter as it is."""
    if len(a) != len(b):
        return None
    return [x if x == y else (ts.unify(x, y) or ts.union_of([x, y])) for x, y in zip(a, b)]


def cast_call_operands(call: func.CallOp, inputs: Sequence[Attribute]) -> None:
    """Casts each operand of `call` whose type is a subtype of the callee's parameter
    type to it (`func.call` operands have the callee's types exactly)."""
    from tsjit.dialects.prim import UncheckedCastOp

    for index, (operand, wanted) in enumerate(zip(call.operands, inputs)):
        if operand.type != wanted and ts.is_subtype_of(operand.type, wanted):
            cast = UncheckedCastOp(operand, wanted)
            cast.location = call.location
            call.parent_block().insert_op_before(cast, call)  # pyright: ignore[reportOptionalMemberAccess]
            call.operands[index] = cast.result


def _first_sentence(message: str) -> str:
    """One line of a verifier message; a line ending in ':' continues on the next."""
    lines = [line.strip() for line in message.strip().splitlines() if line.strip()] or ["verification failed"]
    return f"{lines[0]} {lines[1]}" if lines[0].endswith(":") and len(lines) > 1 else lines[0]


def _property_names(op_class: type[Operation]) -> frozenset[str]:
    definition = getattr(op_class, "get_irdl_definition", None)
    return frozenset(definition().properties) if definition is not None else frozenset()


def _signature(inputs: Sequence[Attribute], outputs: Sequence[Attribute]) -> str:
    def spelled(types: Sequence[Attribute]) -> str:
        return "(" + ", ".join(ts.to_torchscript_str(t) for t in types) + ")"

    return f"{spelled(inputs)} -> {spelled(outputs)}"


__all__ = [
    "ATTRIBUTE_NAMES",
    "FUNCTION_TYPE",
    "OP_NAMES",
    "GraphImporter",
    "import_graph_text",
    "op_name_of_kind",
]
