"""The Python printer: a graph as TorchScript-syntax Python, as `scripted.code` shows it.

    def forward(x: Tensor,                      graph(%x.1 : Tensor, %n.1 : int):
        n: int) -> Tensor:                        %3 : int = prim::Constant[value=2]()
      if torch.gt(n, 2):                           %4 : bool = aten::gt(%n.1, %3)
        x0 = torch.add(x, n)                       %x : Tensor = prim::If(%4) ...
      else:
        x0 = torch.neg(x)
      return x0

It follows PyTorch's `python_print.cpp`: constants and single-use temporaries are
inlined into their use when evaluation order allows it (a right-to-left scan of each
op's operands against the ops emitted before it), long inlined expressions are split
back into statements, `prim.If` becomes if/else assigning the results, `prim.Loop`
becomes `for i in range(n)` or `while c` with the carried values assigned at the end of
the body, `prim.Enter`/`prim.Exit` become `with`. Schema ops print as `torch.name(...)`
(other namespaces `ops.ns.name(...)`) with trailing default arguments left out and
keyword-only ones named. The output is valid Python (`ast.parse` reads it).

`export_class` and `export_function` print what an archive's `code/` holds: a class with
its attribute declarations (`__parameters__`, `w : Tensor`, `k : Final[int] = 3`) and
methods (`def forward(self: __torch__.M, x: Tensor, n: int=2)`), a function under its
qualified name, in the stable form that scripts back to the same graph.
"""

from __future__ import annotations

import json
import keyword
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypeGuard

from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, FloatAttr, IntegerAttr, ModuleOp, StringAttr, i1
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.traits import IsolatedFromAbove

from tsjit.diagnostics import SourceLocation, TsjitError
from tsjit.dialects import types as ts
from tsjit.dialects.prim import ConstantOp
from tsjit.dialects.schema import has_operator, resolve_overload
from tsjit.formats.torchscript_export import find_function, node_kind, torchscript_float
from tsjit.runtime.values import value_type as runtime_value_type

MAX_INLINE_WIDTH = 40
"""Inlined expressions at least this wide (indentation included) become statements."""

INT64_MAX = 2**63 - 1

RESERVED_NAMES = frozenset(
    ["_", "as", "aten", "attribute", "CONSTANTS", "fork", "getattr", "inf", "nan", "infj", "nanj", "ops", "__torch__", "and", "assert", "async", "await", "break", "class", "continue", "def", "del", "elif", "else", "except", "False", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda", "None", "nonlocal", "not", "or", "pass", "raise", "return", "True", "try", "with", "while", "yield", "uninitialized", "unchecked_cast", "torch", "annotate", "range", "print", "str", "int", "float", "bool", "sorted", "isinstance"]
)
"""Names a printed value must not take: Python keywords and the names the code uses."""

_SIMPLE_TYPES: dict[type[Attribute], str] = {
    ts.TensorType: "Tensor", ts.IntType: "int", ts.FloatType: "float", ts.BoolType: "bool",
    ts.StrType: "str", ts.NoneType: "NoneType", ts.DeviceType: "Device", ts.NumberType: "number",
    ts.AnyType: "Any", ts.ComplexScalarType: "complex",
}  # fmt: skip


def export_python(module: ModuleOp | func.FuncOp, entry: str | None = None) -> str:
    """The Python code of function `entry`; by default `forward`, or the module's only
    function."""
    function = module if isinstance(module, func.FuncOp) else find_function(module, entry)
    return PythonPrinter().function(function)


@dataclass
class MethodSource:
    """A method to print: its name in the class, its graph, its signature."""

    name: str
    function: func.FuncOp
    signature: Signature


@dataclass
class ClassSource:
    """A class as printed code declares it (`kind` Module, NamedTuple or class):
    attributes in slot order, which of them are parameters and buffers, `Final`
    constants, methods."""

    qualname: str
    kind: str
    attributes: Sequence[tuple[str, Attribute]]
    parameters: Sequence[str] = ()
    buffers: Sequence[str] = ()
    constants: Sequence[tuple[str, object]] = ()
    methods: Sequence[MethodSource] = ()


def export_class(
    cls: ClassSource,
    callee_names: Mapping[str, str] | None = None,
    constant_name: Callable[[object, Attribute], str | None] | None = None,
) -> str:
    """A class as PyTorch prints it in an archive's code/ (`class M(Module): ...`)."""
    name = cls.qualname.rsplit(".", 1)[-1]
    base = "" if cls.kind == "class" else f"({cls.kind})"
    lines = [f"class {name}{base}:"]
    if cls.kind == "Module":
        for listed, names in (("__parameters__", cls.parameters), ("__buffers__", cls.buffers)):
            lines.append(f"  {listed} = [{''.join(json.dumps(n) + ', ' for n in names)}]")
    for attribute, attribute_type in cls.attributes:
        spelled = python_type(attribute_type)
        if attribute.isidentifier() and not keyword.iskeyword(attribute):
            lines.append(f"  {attribute} : {spelled}")
        else:
            lines.append(f"  __annotations__[{json.dumps(attribute)}] = {spelled}")
    for constant, value in cls.constants:
        value_type = runtime_value_type(value)
        lines.append(f"  {constant} : Final[{python_type(value_type)}] = {python_literal(value, value_type)}")
    text = "\n".join(lines) + "\n"
    for method in cls.methods:
        printer = PythonPrinter(callee_names, constant_name, level=1, stable=True)
        text += printer.method(method)
    if len(lines) == 1 and not cls.methods:
        text += "  pass\n"
    return text


def export_function(
    function: func.FuncOp,
    name: str,
    signature: Signature | None = None,
    callee_names: Mapping[str, str] | None = None,
    constant_name: Callable[[object, Attribute], str | None] | None = None,
) -> str:
    """A function as a top-level def named `name` (its defaults from `signature`)."""
    printer = PythonPrinter(callee_names, constant_name, stable=True)
    printer.define_function(name, function.body.block, function.function_type.outputs.data, signature)
    return "\n".join(printer.lines) + "\n"


_GENERIC_NAMES = {ts.FutureType: "Future", ts.AwaitType: "Await", ts.RRefType: "RRef"}


def python_type(t: Attribute) -> str:
    """A type as a Python annotation: `Tensor`, `List[int]`, `Optional[Tensor]`."""
    if type(t) in _SIMPLE_TYPES:
        return _SIMPLE_TYPES[type(t)]
    if isinstance(t, ts.ListType):
        return f"List[{python_type(t.element_type)}]"
    if isinstance(t, ts.OptionalType):
        return f"Optional[{python_type(t.element_type)}]"
    if isinstance(t, (ts.FutureType, ts.AwaitType, ts.RRefType)):
        return f"{_GENERIC_NAMES[type(t)]}[{python_type(t.element_type)}]"
    if isinstance(t, ts.TupleType):
        if isinstance(t.qualname, StringAttr):
            return t.qualname.data
        return f"Tuple[{', '.join(python_type(e) for e in t.types) or '()'}]"
    if isinstance(t, ts.DictType):
        return f"Dict[{python_type(t.key_type)}, {python_type(t.value_type)}]"
    if isinstance(t, ts.UnionType):
        return f"Union[{', '.join(python_type(e) for e in t.types)}]"
    if isinstance(t, (ts.ClassType, ts.EnumType, ts.InterfaceType, ts.OpaqueType)):
        return t.qualname.data
    raise TsjitError(f"type {t} has no Python spelling")


def python_literal(value: object, value_type: Attribute) -> str:
    """A constant's Python value (as `op.python_value` gives it) as an expression."""
    if isinstance(value_type, ts.OptionalType) and value is not None:
        value_type = value_type.element_type
    if value is None:
        return "None"
    if isinstance(value_type, ts.BoolType):
        return "True" if value else "False"
    if isinstance(value_type, ts.FloatType):
        return torchscript_float(float(value))  # pyright: ignore[reportArgumentType]
    if isinstance(value_type, ts.StrType):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value_type, ts.EnumType):
        return str(value)  # the member's qualified name: `__torch__.m.Color.RED`
    if isinstance(value_type, ts.DeviceType):
        return f"torch.device({json.dumps(value)})"
    if isinstance(value_type, ts.TensorType):
        dtype = ts.DTYPE_BY_TORCH_NAME.get(str(getattr(value, "dtype", "")))
        data = value.tolist()  # pyright: ignore[reportAttributeAccessIssue]
        return f"torch.tensor({data!r}, dtype=torch.{dtype.torch_name if dtype else 'float32'})"
    if isinstance(value_type, ts.ListType) and isinstance(value, list):
        if not value:
            return f"annotate({python_type(value_type)}, [])"
        return "[" + ", ".join(python_literal(v, value_type.element_type) for v in value) + "]"
    if isinstance(value_type, ts.TupleType) and isinstance(value, tuple):
        items = [python_literal(v, t) for v, t in zip(value, value_type.types)]
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    return repr(value)


def _is_constant(op: object) -> TypeGuard[ConstantOp]:
    return isinstance(op, ConstantOp)


def _constant_value(value: SSAValue) -> object:
    """The Python value of a `prim.Constant` result; `_NOT_CONSTANT` otherwise."""
    owner = value.owner
    return owner.python_value if _is_constant(owner) else _NOT_CONSTANT


def _string_property(op: Operation, name: str) -> str:
    value = op.properties[name]
    assert isinstance(value, StringAttr)
    return value.data


def _int_property(op: Operation, name: str) -> int:
    value = op.properties[name]
    assert isinstance(value, IntegerAttr)
    return value.value.data


def _callee(op: Operation) -> str:
    assert isinstance(op, func.CallOp)
    return op.callee.string_value()


def _yielded(block: Block) -> Sequence[SSAValue]:
    """The values a block's terminator passes on."""
    assert block.last_op is not None
    return block.last_op.operands


_NOT_CONSTANT = object()

Expression = Callable[["PythonPrinter", Operation, list[str]], str]


def _items(args: list[str]) -> str:
    return ", ".join(args)


def _subscript(printer: PythonPrinter, op: Operation, args: list[str]) -> str:
    base = args[0] if args[0].isidentifier() else f"({args[0]})"
    return f"{base}[{args[1]}]"


def _tuple_display(op: Operation, args: list[str]) -> str:
    """`(a, b)`, or `__torch__.m.P(a, b)` for a NamedTuple."""
    result_type = op.results[0].type
    if isinstance(result_type, ts.TupleType) and isinstance(result_type.qualname, StringAttr):
        return f"{result_type.qualname.data}({_items(args)})"
    return f"({_items(args)}{',' if len(args) == 1 else ''})"


def _list_display(printer: PythonPrinter, op: Operation, args: list[str]) -> str:
    if not args:
        return f"annotate({python_type(op.results[0].type)}, [])"
    return f"[{_items(args)}]"


def _dict_display(printer: PythonPrinter, op: Operation, args: list[str]) -> str:
    if not args:
        return f"annotate({python_type(op.results[0].type)}, {{}})"
    return "{" + ", ".join(f"{k}: {v}" for k, v in zip(args[::2], args[1::2])) + "}"


def _get_attr(printer: PythonPrinter, op: Operation, args: list[str]) -> str:
    field = _string_property(op, "name")
    return f"{args[0]}.{field}" if field.isidentifier() else f"getattr({args[0]}, {json.dumps(field)})"


def _isinstance(printer: PythonPrinter, op: Operation, args: list[str]) -> str:
    types = [python_type(t) for t in op.properties["types"]]  # pyright: ignore[reportGeneralTypeIssues]
    return f"isinstance({args[0]}, {types[0] if len(types) == 1 else '(' + ', '.join(types) + ')'})"


def _call(name: str) -> Expression:
    return lambda printer, op, args: f"{name}({_items(args)})"


def _annotated(printer: PythonPrinter, op: Operation, args: list[str]) -> str:
    return f"annotate({python_type(op.results[0].type)}, {args[0]})"


EXPRESSIONS: dict[str, Expression] = {
    "prim.TupleConstruct": lambda p, op, a: _tuple_display(op, a),
    "prim.TupleIndex": lambda p, op, a: f"({a[0]})[{a[1]}]",
    "prim.TupleSlice": lambda p, op, a: f"({a[0]})[{_int_property(op, 'begin')}:{_int_property(op, 'end')}]",
    "prim.ListConstruct": _list_display,
    "prim.DictConstruct": _dict_display,
    "prim.GetAttr": _get_attr,
    "prim.CreateObject": lambda p, op, a: (
        f"{python_type(op.results[0].type)}.__new__({python_type(op.results[0].type)})"
    ),
    "prim.CallMethod": lambda p, op, a: f"({a[0]}).{_string_property(op, 'name')}({_items(a[1:])})",
    "prim.Uninitialized": lambda p, op, a: f"uninitialized({python_type(op.results[0].type)})",
    "prim.unchecked_cast": lambda p, op, a: f"unchecked_cast({python_type(op.results[0].type)}, {a[0]})",
    "prim.Print": _call("print"),
    "prim.isinstance": _isinstance,
    "prim.EnumName": lambda p, op, a: f"({a[0]}).name",
    "prim.EnumValue": lambda p, op, a: f"({a[0]}).value",
    "aten.__getitem__": _subscript,
    "aten.str": _call("str"),
    "aten.Int": _call("int"),
    "aten.Float": _call("float"),
    "aten.Bool": _call("bool"),
    "aten.sorted": _call("sorted"),
    "aten.IntImplicit": _annotated,
    "aten.FloatImplicit": _annotated,
    "aten.ScalarImplicit": _annotated,
    "func.call": lambda p, op, a: f"{p.callee_names.get(_callee(op), _callee(op))}({_items(a)})",
}
"""Ops with their own Python spelling; other ops are calls of their operator."""

STATEMENTS = frozenset(
    (
        "prim.If",
        "prim.Loop",
        "prim.With",
        "prim.Enter",
        "prim.Exit",
        "prim.TupleUnpack",
        "prim.ListUnpack",
        "prim.SetAttr",
    )
)
"""Ops printed as statements of their own, never inlined into an expression."""


class PythonPrinter:
    """Prints one function; nested subgraphs share its names.

    `callee_names` renames called functions (an archive's code calls them by qualified
    name); `constant_name` gives the name of a constant the code cannot spell as a
    literal (a tensor: `CONSTANTS.c0`), or None to print the literal.

    `stable` prints code that scripts back to a graph this printer prints identically
    (what an archive's save -> load -> save needs): a value the code copies into a
    variable is named after the first such variable, as the frontend will name it, and
    an `if`'s targets are listed in sorted order, the order the frontend gives an If's
    outputs (unnamed ones numbered so that their numbers sort as their names do)."""

    def __init__(
        self,
        callee_names: Mapping[str, str] | None = None,
        constant_name: Callable[[object, Attribute], str | None] | None = None,
        level: int = 0,
        stable: bool = False,
    ) -> None:
        self.callee_names = callee_names or {}
        self.constant_name = constant_name
        self.stable = stable
        self.copy_hints: dict[SSAValue, str] = {}
        self.lines: list[str] = []
        self.level = level
        self.used: set[str] = set()
        self.next_suffix: dict[str, int] = {}
        self.idents: dict[SSAValue, str] = {}
        self.exprs: dict[SSAValue, str] = {}
        self.inlined: set[Operation] = set()
        self.split_visits: dict[Operation, int] = {}
        self.open_withs: list[int] = []  # line counts when each open `with` began

    # -- functions ------------------------------------------------------------------------

    def method(self, method: MethodSource) -> str:
        """A method in a class body (one level in)."""
        function = method.function
        self.define_function(method.name, function.body.block, function.function_type.outputs.data, method.signature)
        return "\n".join(self.lines) + "\n"

    def function(self, function: func.FuncOp) -> str:
        if function.is_declaration:
            raise TsjitError(
                f"@{function.sym_name.data} has no body to print", SourceLocation.of_op(function)
            )
        self.define_function(function.sym_name.data, function.body.block, function.function_type.outputs.data)
        return "\n".join(self.lines) + "\n"

    def define_function(self, name: str, block: Block, result_types: Sequence[Attribute],
                        signature: Signature | None = None) -> None:  # fmt: skip
        params: list[str] = []
        signature = signature or Signature()
        if self.stable:
            self.copy_hints.update(_copy_hints(block))
        if signature.self_type is not None and not signature.self_is_argument:
            self.used.add("self")
            params.append(f"self: {signature.self_type}")
        for index, arg in enumerate(block.args):
            param = self.assign_name(arg)
            if index == 0 and param == "self" and isinstance(arg.type, ts.ClassType):
                # a method: `self` is the class being defined
                params.append(f"self: {signature.self_type}" if signature.self_type else param)
            else:
                default = signature.defaults.get(index, _NO_DEFAULT)
                value = "" if default is _NO_DEFAULT else "=" + python_literal(default, arg.type)
                params.append(f"{param}: {python_type(arg.type)}{value}")
        indent = "    " if signature.self_type is not None else "    " + "  " * self.level
        separator = ",\n" + indent
        self.line(f"def {name}({separator.join(params)}) -> {_return_annotation(result_types)}:")
        self.level += 1
        self.scan_block(block)
        self.define_long_constants(block)
        terminator = block.last_op
        assert terminator is not None
        self.block(block, bool(terminator.operands))
        if terminator.operands:
            self.line(f"return {self.uses(terminator.operands)}")
        self.level -= 1

    def define_long_constants(self, block: Block) -> None:
        """Constants too wide to inline get a name at the top, as PyTorch does."""
        for op in _ops_of_graph(block):
            if _is_constant(op) and op.results[0].uses:
                literal = self.literal(op)
                if self.is_long(literal):
                    self.definition(op, literal)

    def literal(self, op: ConstantOp) -> str:
        value, value_type = op.python_value, op.result.type
        if self.constant_name is not None and (name := self.constant_name(value, value_type)) is not None:
            return name
        return python_literal(value, value_type)

    # -- inlining: PyTorch's scanBlock / scanNode / scanValue ---------------------------

    def can_inline(self, value: SSAValue) -> bool:
        op = value.owner
        if not isinstance(op, Operation) or len(op.results) != 1 or op.regions or op.name in STATEMENTS:
            return False
        use = value.get_unique_use()
        if use is None:
            return False
        user = use.operation
        if value.name_hint is not None and user.name not in ("func.return", "prim.Yield"):
            return False  # a named value was a variable in the source
        if user.name == "prim.fork":
            return False  # a fork's inputs are evaluated before it, not in the forked code
        return not (user.name == "prim.Loop" and use.index >= 2)

    def scan_block(self, block: Block) -> None:
        terminator = block.last_op
        for op in reversed(list(block.ops)):
            if op is terminator or op not in self.inlined:
                self.scan_op(op)

    def scan_op(self, op: Operation) -> Operation | None:
        if op in self.inlined:
            return op
        for region in op.regions:
            if not op.has_trait(IsolatedFromAbove):
                self.scan_block(region.block)
        point = _previous_non_constant(op)
        for operand in reversed(op.operands):
            point = self.scan_value(point, operand)
        return point

    def scan_value(self, point: Operation | None, value: SSAValue) -> Operation | None:
        owner = value.owner
        if owner is point and point is not None and self.can_inline(value):
            point = self.scan_op(owner)
            self.inlined.add(owner)
        elif _is_constant(owner):
            self.inlined.add(owner)
        return point

    # -- statements -------------------------------------------------------------------------

    def block(self, block: Block, has_other_statements: bool) -> None:
        start = len(self.lines)
        for op in block.ops:
            if op is not block.last_op:
                self.op(op)
        if len(self.lines) == start and not has_other_statements:
            self.line("pass")

    def op(self, op: Operation) -> None:
        name = op.name
        if _is_constant(op):
            return
        if name == "prim.If":
            self.if_statement(op)
        elif name == "prim.Loop":
            self.loop(op)
        elif name == "prim.With":
            self.with_statement(op)
        elif name == "prim.Enter":
            ctx = self.use(op.operands[0])
            if op.results[0].uses:
                self.line(f"with {ctx} as {self.assign_name(op.results[0])}:")
            else:
                self.line(f"with {ctx}:")
            self.level += 1
            self.open_withs.append(len(self.lines))
        elif name == "prim.Exit":
            if self.open_withs:
                if self.open_withs.pop() == len(self.lines):
                    self.line("pass")
                self.level -= 1
        elif name in ("prim.TupleUnpack", "prim.ListUnpack"):
            targets = ", ".join(self.assign_name(r) for r in op.results)
            self.line(f"{targets}, = {self.use(op.operands[0])}")
        elif name == "prim.SetAttr":
            obj, value = (self.use(v) for v in op.operands)
            self.line(f"{obj}.{_string_property(op, 'name')} = {value}")
        elif name == "prim.fork":
            self.fork(op)
        elif len(op.regions) == 1 and op.has_trait(IsolatedFromAbove):
            self.subgraph(op)
        else:
            rhs = self.expression(op)
            if op not in self.inlined:
                self.definition(op, rhs)
            else:
                self.exprs[op.results[0]] = rhs
                if self.is_long(rhs):
                    self.split_long_inlines(op.results[0])

    def if_statement(self, op: Operation) -> None:
        if self.stable:
            self.align_unnamed(sum(self.hint(r) is None for r in op.results))
        outputs = [self.assign_name(r) for r in op.results]
        order = sorted(range(len(outputs)), key=outputs.__getitem__) if self.stable else range(len(outputs))
        self.line(f"if {self.use(op.operands[0])}:")
        for index, region in enumerate(op.regions):
            if index == 1:
                self.line("else:")
            self.level += 1
            self.block(region.block, bool(outputs))
            yielded = _yielded(region.block)
            self.assignment([outputs[i] for i in order], [yielded[i] for i in order])
            self.level -= 1

    def align_unnamed(self, count: int) -> None:
        """The next `count` unnamed values get numbers of one width (`_10`..`_12`, not
        `_9`..`_11`), whose string order is their numeric order."""
        start = self.next_suffix.get("_", 0)
        if count > 1 and len(str(start)) != len(str(start + count - 1)):
            self.next_suffix["_"] = 10 ** len(str(start))

    def loop(self, op: Operation) -> None:
        """`for`, `while`, or (for a loop with both a trip count and a condition, which
        PyTorch refuses to print) `for` with a `break` on the condition."""
        trip_count, condition, *initial = op.operands
        body = op.regions[0].block
        counter, *carried = body.args
        next_condition, *updates = _yielded(body)
        always_true = _constant_value(condition) is True and _constant_value(next_condition) is True
        counted = _constant_value(trip_count) != INT64_MAX or bool(counter.uses)
        outputs = [self.assign_name(r) for r in op.results]
        for arg, name in zip(carried, outputs):
            self.idents[arg] = name
        for output, value in zip(op.results, initial):
            annotation = f": {python_type(output.type)}" if output.type != value.type else ""
            self.line(f"{self.idents[output]}{annotation} = {self.use(value)}")
        if always_true and counted:
            self.line(f"for {self.assign_name(counter)} in range({self.use(trip_count)}):")
            self.level += 1
            targets, values = outputs, list(updates)
        else:
            flag = self.fresh_name("_")
            self.line(f"{flag} = {self.use(condition)}")
            self.line(
                f"for {self.assign_name(counter)} in range({self.use(trip_count)}):"
                if counted
                else f"while {flag}:"
            )
            self.level += 1
            if counted:
                self.line(f"if not {flag}:")
                self.line("  break")
            targets, values = [flag, *outputs], [next_condition, *updates]
        self.block(body, bool(targets))
        self.assignment(targets, values)
        self.level -= 1

    def with_statement(self, op: Operation) -> None:
        """The block form of `with` (during the exit transform) groups the statements
        between `prim.Enter`, which opened the `with`, and the `prim.Exit` of its exit
        region, which closes it."""
        outputs = [self.assign_name(r) for r in op.results]
        for region in op.regions:
            block = region.block
            for nested in block.ops:
                if nested is not block.last_op:
                    self.op(nested)
            if region is op.regions[0]:
                self.assignment(outputs, _yielded(block))

    def subgraph(self, op: Operation) -> None:
        """A fusion group or differentiable graph: a nested function, then its call."""
        name = self.fresh_name(re.sub(r"(?<!^)(?=[A-Z])", "_", op.name.split(".")[-1]).lower())
        block = op.regions[0].block
        self.define_function(name, block, [r.type for r in op.results])
        self.definition(op, f"{name}({self.uses(op.operands)})")

    def fork(self, op: Operation) -> None:
        """`prim.fork` as PyTorch prints it: a closure over the fork's inputs (its
        subgraph's arguments are the enclosing names), then `fork(closure)`."""
        block = op.regions[0].block
        for argument, value in zip(block.args, op.operands):
            self.idents[argument] = self.use(value)
        name = self.fresh_name("__forked_function")
        self.line(f"def {name}():")
        self.level += 1
        self.scan_block(block)
        self.block(block, True)
        self.line(f"return {self.uses(_yielded(block))}")
        self.level -= 1
        self.definition(op, f"fork({name})")

    def definition(self, op: Operation, rhs: str) -> None:
        if not op.results:
            self.line(rhs)
            return
        targets = ", ".join(self.assign_name(r) for r in op.results)
        self.line(f"{targets} = {rhs}")

    def assignment(self, targets: Sequence[str], values: Sequence[SSAValue]) -> None:
        if targets:
            self.line(f"{', '.join(targets)} = {self.uses(values)}")

    # -- expressions ----------------------------------------------------------------------

    def expression(self, op: Operation) -> str:
        special = EXPRESSIONS.get(op.name)
        if special is not None:
            return special(self, op, [self.use(v) for v in op.operands])
        kind = node_kind(op)
        namespace, short = kind.split("::")
        callee = f"torch.{short}" if namespace == "aten" else f"ops.{namespace}.{short}"
        arguments = self.arguments(op, kind)
        attributes = {**op.properties, **op.attributes}
        keywords = [f"{k}={_attribute_literal(v)}" for k, v in attributes.items() if _is_keyword_name(k)]
        if len(keywords) < len(attributes):  # names Python cannot spell as keywords
            pairs = [
                f"{json.dumps(k)}: {_attribute_literal(v)}"
                for k, v in attributes.items()
                if not _is_keyword_name(k)
            ]
            keywords.append("**{" + ", ".join(pairs) + "}")
        return f"{callee}({', '.join(filter(None, [arguments, *keywords]))})"

    def arguments(self, op: Operation, kind: str) -> str:
        """Operands in schema order, trailing defaults left out, keyword-only named."""
        operands = list(op.operands)
        schema = getattr(op, "schema", None)
        if schema is None and has_operator(kind):
            schema = resolve_overload(kind, [v.type for v in operands], [r.type for r in op.results])
        if schema is None or len(operands) > len(schema.arguments):
            return self.uses(operands)
        needed = len(operands)
        while needed > 0:
            argument = schema.arguments[needed - 1]
            if not argument.has_default or not _equal(
                _constant_value(operands[needed - 1]), argument.default
            ):
                break
            needed -= 1
        parts = []
        for operand, argument in zip(operands[:needed], schema.arguments):
            prefix = f"{argument.name}=" if argument.kwarg_only else ""
            parts.append(prefix + self.use(operand))
        return ", ".join(parts)

    def split_long_inlines(self, value: SSAValue) -> None:
        """An inlined expression got too long: it and the inlined operands evaluated
        before it become statements, in order ([reordering of inlines])."""
        use = value.get_unique_use()
        assert use is not None
        to_split: list[SSAValue] = []
        self.scan_long_inlines(use.operation, use.index, to_split)
        for split in reversed(to_split):
            owner = split.owner
            assert isinstance(owner, Operation)
            self.definition(owner, self.exprs[split])

    def scan_long_inlines(self, user: Operation, offset: int, to_split: list[SSAValue]) -> None:
        visited = self.split_visits.get(user)
        stop = visited + 1 if visited is not None else 0
        for index in range(offset, stop - 1, -1):
            operand = user.operands[index]
            owner = operand.owner
            if isinstance(owner, Operation) and not _is_constant(owner) and owner in self.inlined:
                to_split.append(operand)
        self.split_visits[user] = offset
        if visited is None and user in self.inlined:
            use = user.results[0].get_unique_use()
            assert use is not None
            self.scan_long_inlines(use.operation, use.index - 1, to_split)

    # -- values and names -----------------------------------------------------------------

    def use(self, value: SSAValue) -> str:
        name = self.idents.get(value)
        if name is not None:
            return name
        expr = self.exprs.get(value)
        if expr is not None:
            return expr
        owner = value.owner
        if _is_constant(owner):
            return self.literal(owner)
        where = SourceLocation.of_op(owner) if isinstance(owner, Operation) else None
        raise TsjitError("a value is used before the printer defined it", where)

    def uses(self, values: Sequence[SSAValue]) -> str:
        return ", ".join(self.use(v) for v in values)

    def hint(self, value: SSAValue) -> str | None:
        return value.name_hint if value.name_hint is not None else self.copy_hints.get(value)

    def assign_name(self, value: SSAValue) -> str:
        """A fresh variable for `value`, from its name hint (`x.1` -> `x`, `x0`)."""
        hint = self.hint(value)
        base = "_"
        if hint is not None:
            stem, _, suffix = hint.rpartition(".")
            base = stem if stem and suffix.isdigit() else hint
            base = "".join(c if c.isalnum() or c == "_" else "_" for c in base)
            if base[0].isdigit():
                base = "_" + base
        name = self.fresh_name(base)
        self.idents[value] = name
        return name

    def fresh_name(self, base: str) -> str:
        name = base
        while name in self.used or name in RESERVED_NAMES:
            suffix = self.next_suffix.get(base, 0)
            self.next_suffix[base] = suffix + 1
            name = f"{base}{suffix}"
        self.used.add(name)
        return name

    def is_long(self, text: str) -> bool:
        return len(text) + 2 * self.level >= MAX_INLINE_WIDTH

    def line(self, text: str) -> None:
        self.lines.append("  " * self.level + text)


_NO_DEFAULT = object()


@dataclass
class Signature:
    """What a printed def says beyond its graph: parameter defaults (by block argument
    index) and, for a method, the class `self` is annotated with; `self_is_argument`
    False prints a `self` the graph does not take (a function as a module's method)."""

    defaults: Mapping[int, object] = field(default_factory=dict)
    self_type: str | None = None
    self_is_argument: bool = True


def _return_annotation(result_types: Sequence[Attribute]) -> str:
    if not result_types:
        return "None"
    if len(result_types) == 1:
        return python_type(result_types[0])
    return f"Tuple[{', '.join(python_type(t) for t in result_types)}]"


def _is_keyword_name(name: str) -> bool:
    return name.isidentifier() and not keyword.iskeyword(name)


def _attribute_literal(value: Attribute) -> str:
    """A node attribute (`chunks=4`, `name="fc"`) as a Python keyword argument value."""
    if isinstance(value, IntegerAttr):
        data = value.value.data
        if value.type == i1:
            return "True" if data else "False"
        return str(data)
    if isinstance(value, FloatAttr):
        return torchscript_float(value.value.data)
    if isinstance(value, StringAttr):
        return json.dumps(value.data, ensure_ascii=False)
    if isinstance(value, ArrayAttr):
        return "[" + ", ".join(_attribute_literal(v) for v in value) + "]"
    if isinstance(value, ts.TorchType):
        return python_type(value)
    return json.dumps(str(value))


def _copy_hints(block: Block) -> dict[SSAValue, str]:
    """The names the frontend gives unnamed values the printed code copies into
    variables (an If branch's results, a loop's initial and next values): each takes
    the name of the first such variable that has one (a name of its own or, in turn,
    taken from a later copy). Copies are visited last to first, so the first wins."""
    copies: list[tuple[SSAValue, SSAValue]] = []
    _collect_copies(block, copies)
    hints: dict[SSAValue, str] = {}
    for value, target in reversed(copies):
        name = target.name_hint if target.name_hint is not None else hints.get(target)
        if value.name_hint is None and name is not None and not _is_constant(value.owner) and _meaningful(name):
            hints[value] = name
    return hints


def _collect_copies(block: Block, copies: list[tuple[SSAValue, SSAValue]]) -> None:
    """(value, variable) pairs in the order the printed code assigns them."""
    for op in block.ops:
        if op.has_trait(IsolatedFromAbove):
            continue
        if op.name == "prim.If":
            for region in op.regions:
                _collect_copies(region.block, copies)
                copies.extend(zip(_yielded(region.block), op.results))
        elif op.name == "prim.Loop":
            copies.extend(zip(op.operands[2:], op.results))
            body = op.regions[0].block
            _collect_copies(body, copies)
            copies.extend(zip(_yielded(body)[1:], op.results))
        else:
            for region in op.regions:
                for nested in region.blocks:
                    _collect_copies(nested, copies)
                if op.name == "prim.With" and region is op.regions[0]:
                    copies.extend(zip(_yielded(region.block), op.results))


def _meaningful(name: str) -> bool:
    """Names the frontend names values after (not `_3`, the printer's own)."""
    base = name.rpartition(".")[0] if name.rpartition(".")[2].isdigit() else name
    return bool(base) and not (base.startswith("_") and base[1:].isdigit())


def _ops_of_graph(block: Block):
    """The ops of a graph body, nested blocks included, subgraphs excluded."""
    for op in block.ops:
        yield op
        if not op.has_trait(IsolatedFromAbove):
            for region in op.regions:
                for nested in region.blocks:
                    yield from _ops_of_graph(nested)


def _previous_non_constant(op: Operation) -> Operation | None:
    previous = op.prev_op
    while previous is not None and _is_constant(previous):
        previous = previous.prev_op
    return previous


def _equal(value: object, default: object) -> bool:
    """IValue equality of a constant operand and a schema default (no int/bool/float
    mixing; lists against tuples)."""
    if value is _NOT_CONSTANT:
        return False
    if isinstance(value, list):
        value = tuple(value)
    return type(value) is type(default) and value == default


__all__ = [
    "EXPRESSIONS",
    "ClassSource",
    "MethodSource",
    "PythonPrinter",
    "Signature",
    "export_class",
    "export_function",
    "export_python",
    "python_literal",
    "python_type",
]
