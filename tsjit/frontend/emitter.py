"""The IR emitter: one Python function (its `ast`) to a `func.func` of prim/aten ops.

This is TorchScript's `to_ir` on Python's own AST. Statements and expressions are
emitted in order with TorchScript's static typing: variables are `prim.Store`/`prim.Load`
by name (the environment), `if` and loops are `prim.If`/`prim.Loop` without outputs yet,
`return`, `break` and `continue` are `prim.ReturnStmt` and `prim.LoopContinuation`.
`finish` then runs SSA conversion (`ssa.py`), the exit transform (`exit_transform.py`)
and loop canonicalization, so the function leaves as plain structured SSA.

Loops keep their condition as an expression: it is emitted before the loop, again at the
end of the body and at every `continue` (PyTorch clones a condition block to the same
places).
"""

from __future__ import annotations

import ast
import typing
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from xdsl.dialects import func
from xdsl.dialects.builtin import FunctionType
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import IsTerminator

from tsjit.diagnostics import TsjitError
from tsjit.dialects import prim
from tsjit.dialects.aten import operator_class
from tsjit.dialects.op_building import build_op, insert_built_op, new_block, region_of, ssa_values
from tsjit.dialects.types import (
    AnyType,
    BoolType,
    ClassType,
    DictType,
    FloatType,
    IntType,
    ListType,
    NoneType,
    OpaqueType,
    OptionalType,
    StrType,
    TensorType,
    TupleType,
    UnionType,
    is_subtype_of,
    unify,
    union_of,
)
from tsjit.dialects.value_names import name_hint
from tsjit.frontend import builtins
from tsjit.frontend.annotations import type_str
from tsjit.frontend.direct_calls import call_shape, direct_call, emit_direct_call
from tsjit.frontend.environment import Frame, meaningful_name
from tsjit.frontend.schema_matching import (
    CallArg,
    Matcher,
    Signature,
    UseValue,
)
from tsjit.frontend.source import SourceFile
from tsjit.frontend.sugared_values import (
    BuiltinFunction,
    ExceptionMessageValue,
    ExceptionValue,
    IterableTree,
    MagicMethod,
    ModuleValue,
    RangeValue,
    SimpleValue,
    SpecialForm,
    SugaredTupleValue,
    SugaredValue,
    match_or_fail,
)

if TYPE_CHECKING:
    from tsjit.frontend.compilation import CompilationUnit, FunctionSpec

INT64_MAX = 2**63 - 1
_NOT_CONSTANT = object()


@dataclass
class CondValue:
    """A condition: its value, the type refinements it implies when true/false, and
    whether it is known at compile time (then only one branch is emitted)."""

    value: SSAValue
    refinements: Refinements
    static_if: bool | None = None


@dataclass(frozen=True)
class Refinements:
    """Variables whose type a condition refines: `x is not None` makes `x` a `T` when
    true (TorchScript's RefinementSet)."""

    when_true: tuple[tuple[str, Attribute], ...] = ()
    when_false: tuple[tuple[str, Attribute], ...] = ()

    def negate(self) -> Refinements:
        return Refinements(self.when_false, self.when_true)

    def both(self, other: Refinements) -> Refinements:
        return Refinements(
            _union(self.when_true, other.when_true), _intersect(self.when_false, other.when_false)
        )

    def either(self, other: Refinements) -> Refinements:
        return Refinements(
            _intersect(self.when_true, other.when_true), _union(self.when_false, other.when_false)
        )


def _union(
    a: tuple[tuple[str, Attribute], ...], b: tuple[tuple[str, Attribute], ...]
) -> tuple[tuple[str, Attribute], ...]:
    result = dict(a)
    for name, t in b:
        if name not in result:
            result[name] = t
        elif result[name] != t:
            del result[name]
    return tuple(result.items())


def _intersect(
    a: tuple[tuple[str, Attribute], ...], b: tuple[tuple[str, Attribute], ...]
) -> tuple[tuple[str, Attribute], ...]:
    other = dict(b)
    return tuple((n, t) for n, t in a if other.get(n) == t)


@dataclass
class LoopContext:
    condition: ast.expr | None  # None: a for loop, whose condition is `true_value`
    true_value: SSAValue | None
    unrolled: bool = False


class FunctionEmitter:
    """Emits one function; `finish()` returns the finished `func.func`."""

    def __init__(self, unit: CompilationUnit, spec: FunctionSpec):
        self.unit = unit
        self.spec = spec
        self.source: SourceFile = spec.source
        self.definition: ast.FunctionDef = spec.definition
        self.rewriter = Rewriter()
        self.point: InsertPoint | None = None
        self.frame: Frame | None = None
        self.exit_blocks: set[Block] = set()
        self.loops: list[LoopContext] = []
        self.declared_return: Attribute | None = None
        self.merged_return: Attribute | None = None
        self.empty_list_literals: set[SSAValue] = set()
        self.temp_count = 0
        self.has_renames = False  # whether a frame renames a variable (`Frame.storage_name`)
        self.none_type = NoneType()

    # ==================================================================================
    # Entry
    # ==================================================================================

    def emit(self) -> func.FuncOp:
        """Emits the body; the function's signature is known when this returns."""
        params = self.spec.signature.params
        input_types: list[Attribute] = [p.type for p in params]  # pyright: ignore[reportAssignmentType]
        if self.spec.self_info is not None:
            input_types.insert(0, self.spec.self_info.class_type)
        block = Block(arg_types=input_types)
        self.body = block
        self.point = InsertPoint.at_end(block)
        self.frame = Frame(self, block, None)
        self.declared_return = self.spec.signature.return_type
        arguments = list(block.args)
        if self.spec.self_info is not None:
            receiver = arguments.pop(0)
            receiver.name_hint = "self"
            self.frame.set_sugared_var(None, self.spec.self_name, self.spec.self_info.sugared(receiver), None)
        for name, bound in self.spec.bindings.items():
            self.frame.set_sugared_var(None, name, bound, None)
        for param, argument, node in zip(params, arguments, self.spec.param_nodes):
            if meaningful_name(param.name):
                argument.name_hint = self.value_name(param.name)
            self.frame.set_var(node, param.name, argument)
        self.emit_statements(self.definition.body)
        self.handle_maybe_no_return()
        assert self.merged_return is not None
        placeholder = self.insert(prim.UninitializedOp(self.merged_return))
        self.insert(func.ReturnOp(placeholder.result))
        function = func.FuncOp(
            self.spec.symbol, FunctionType.from_lists(input_types, [self.merged_return]), Region(block)
        )
        function.location = self.source.location(self.definition)  # pyright: ignore[reportAttributeAccessIssue]
        return function

    @property
    def return_type(self) -> Attribute:
        assert self.merged_return is not None
        return self.merged_return

    def handle_maybe_no_return(self) -> None:
        if self.body not in self.exit_blocks:
            if self.declared_return is not None and not isinstance(self.declared_return, NoneType):
                raise self.error(self.definition, "Function was not annotated as having type None, but does not "
                                                  "return along all paths")  # fmt: skip
            self.emit_return(None, self.definition)
        elif self.merged_return is None:
            self.merged_return = self.declared_return if self.declared_return is not None else NoneType()

    # ==================================================================================
    # IR helpers (also the `Builder` protocol of schema matching)
    # ==================================================================================

    def error(self, node: ast.AST | None, message: str, notes: Sequence[str] = ()) -> Exception:
        return self.source.error(node, message, notes)

    def insert(self, op: Operation, node: ast.AST | None = None) -> Operation:
        if node is not None:
            location = self.source.location(node)
            if location is not None:
                op.location = location
        point = self.point
        assert point is not None and self.frame is not None
        if self.frame.pending and (op.regions or type(op) is prim.LoopContinuationOp):
            self.emit_pending_stores(self.frame)  # control flow merges what was stored before it
        insert_built_op(op, point.block, point.insert_before)
        return op

    def value_name(self, name: str) -> str | None:
        """A name hint for a variable; names xDSL rejects (`x_1`-style endings are
        stripped by xDSL, digits first are invalid) stay without one."""
        return name_hint(name)

    def constant(self, value: object, type: Attribute | None = None, node: ast.AST | None = None) -> SSAValue:
        if isinstance(value, tuple) and isinstance(type, ListType):
            value = list(value)
        (result,) = self.insert(prim.ConstantOp.from_value(value, type), node).results
        return result

    def constant_value(self, value: SSAValue) -> object:
        """The Python value of a `prim.Constant` result, else `_NOT_CONSTANT`."""
        owner = value.owner
        if isinstance(owner, prim.ConstantOp):
            return owner.python_value
        return _NOT_CONSTANT

    def load(self, name: str, type: Attribute, node: ast.AST | None) -> SSAValue:
        assert self.frame is not None
        if self.frame.pending:
            self.emit_pending_stores(self.frame)
        op = self.insert(prim.LoadOp(self.frame.storage_name(name), type))
        if meaningful_name(name):
            op.results[0].name_hint = self.value_name(name.split("$", 1)[0])
        return op.results[0]

    def emit_pending_stores(self, frame: Frame) -> None:
        """Emits the `prim.Store`s `frame` holds back (`Frame.pending`), at the insertion
        point when it is in the frame's block, else at the end of the block (before its
        terminator)."""
        block = frame.block
        point = self.point
        if point is not None and point.block is block:
            before = point.insert_before
        else:
            last = block.last_op
            before = last if last is not None and last.has_trait(IsTerminator) else None
        for name, value in frame.pending.items():
            insert_built_op(prim.StoreOp(name, value), block, before)
        frame.pending.clear()

    def list_of(
        self, elements: Sequence[SSAValue], list_type: ListType, node: ast.AST | None = None
    ) -> SSAValue:
        return self.insert(prim.ListConstructOp(list(elements), list_type), node).results[0]

    def tuple_of(self, elements: Sequence[SSAValue], node: ast.AST | None = None,
                 tuple_type: TupleType | None = None) -> SSAValue:  # fmt: skip
        return self.insert(prim.TupleConstructOp(list(elements), tuple_type), node).results[0]

    def tuple_elements(self, value: SSAValue) -> list[SSAValue]:
        """The elements of a tuple: the inputs of its TupleConstruct when it has one."""
        if isinstance(value.owner, prim.TupleConstructOp):
            return list(value.owner.operands)
        return list(self.insert(prim.TupleUnpackOp(value)).results)

    def tuple_index(self, value: SSAValue, index: int, node: ast.AST | None) -> SSAValue:
        element_type = value.type.types.data[index]  # pyright: ignore[reportAttributeAccessIssue]
        position = self.constant(index, IntType(), node)
        return self.insert(prim.TupleIndexOp(value, position, element_type), node).results[0]

    def unchecked_cast(self, value: SSAValue, type: Attribute, node: ast.AST | None = None) -> SSAValue:
        return self.insert(prim.UncheckedCastOp(value, type), node).results[0]

    def is_empty_list_literal(self, value: SSAValue) -> bool:
        return value in self.empty_list_literals

    def operator(self, name: str, operands: Sequence[SSAValue], node: ast.AST | None = None) -> SSAValue:
        return self.builtin_call(name, node, [CallArg(v, node) for v in operands])

    def arg_value(self, arg: CallArg) -> SSAValue:
        if arg.value is not None:
            return arg.value
        return self.constant(arg.constant, None, arg.node)

    def matcher(self, node: ast.AST | None) -> Matcher:
        return Matcher(self, node)

    def new_temp(self, prefix: str) -> str:
        self.temp_count += 1
        return f"${prefix}{self.temp_count}"

    # ==================================================================================
    # Calls of operators and functions
    # ==================================================================================

    def builtin_call(self, operator: str, node: ast.AST | None, args: Sequence[CallArg],
                     kwargs: Sequence[CallArg] = (), self_arg: CallArg | None = None,
                     overload: str | None = None) -> SSAValue:  # fmt: skip
        """TorchScript's `emitBuiltinCall`: the overload the arguments select among the
        operator's schemas and its TorchScript-source builtins (inlined); `overload`
        names the only schema to match (`torch.ops.aten.add.Tensor`)."""
        shape = call_shape(operator, overload, args, kwargs, self_arg, self.empty_list_literals)
        if shape is not None and (direct := self.unit.direct_calls.get(shape)) is not None:
            return emit_direct_call(self, direct, node, args, kwargs, self_arg)
        operators, sources, signatures = self.unit.builtin_overloads(operator, overload)
        if not signatures:
            raise self.error(node, f"unknown builtin op: {operator}")
        index, matched = match_or_fail(self, signatures, node, list(args), list(kwargs), self_arg, operator)
        inputs = matched.inputs(self)
        if index >= len(operators):
            return self.unit.inline(self, sources[index - len(operators)], inputs)
        name = builtins.NORMALIZED_OPERATORS.get(operator, operator)
        op_class = operator_class(name.replace("::", ".", 1))
        op = self.insert(build_op(op_class, ssa_values(inputs), matched.return_types), node)
        if shape is not None and (direct := direct_call(op_class, matched, args, kwargs, self_arg)) is not None:
            self.unit.direct_calls[shape] = direct
        return self.pack_outputs(list(op.results), matched.signature.return_names)

    def pack_outputs(self, values: list[SSAValue], names: tuple[str, ...] | None) -> SSAValue:
        if len(values) == 1:
            return values[0]
        tuple_type = TupleType([v.type for v in values], names or ())  # pyright: ignore[reportArgumentType]
        return self.tuple_of(values, None, tuple_type)

    def match_call(self, signature: Signature, node: ast.AST, args: Sequence[CallArg], kwargs: Sequence[CallArg],
                   what: str) -> list[SSAValue]:  # fmt: skip
        _, matched = match_or_fail(self, [signature], node, list(args), list(kwargs), None, what)
        return matched.inputs(self)

    def convert_to_type(self, node: ast.AST | None, type: Attribute, value: SSAValue) -> SSAValue:
        """TorchScript's `tryConvertToType` with conversions allowed (assignments and
        returns); the caller checks the result's type."""
        from tsjit.frontend.classes import check_interface_conversion

        converted = self.matcher(node).convert(type, UseValue(value.type, 0, value), True).emit(self)
        return check_interface_conversion(self, node, converted, type)

    def sugared_object(self, value: SSAValue, node: ast.AST) -> SugaredValue:
        info = self.unit.module_info_for(value.type)
        if info is None:
            raise self.error(node, f"objects of class {type_str(value.type)} have no methods tsjit can call")
        return info.sugared(value)

    # ==================================================================================
    # Statements
    # ==================================================================================

    @property
    def block(self) -> Block:
        assert self.frame is not None
        return self.frame.block

    def push_frame(self, block: Block) -> Frame:
        if self.frame is not None and self.frame.pending:
            self.emit_pending_stores(self.frame)  # the nested block may load them
        self.frame = Frame(self, block, self.frame)
        return self.frame

    def pop_frame(self) -> Frame:
        assert self.frame is not None and self.frame.parent is not None
        frame, self.frame = self.frame, self.frame.parent
        if frame.pending:
            self.emit_pending_stores(frame)  # SSA conversion merges the block's variables
        return frame

    def emit_statements(self, statements: Sequence[ast.stmt]) -> None:
        for statement in statements:
            self.emit_statement(statement)
            if self.exit_blocks and self.block in self.exit_blocks:
                return

    def emit_statement(self, node: ast.stmt) -> None:
        handler = _STATEMENTS.get(type(node))
        if handler is None:
            raise self.error(node, f"{_statement_name(node)} statements are not supported in TorchScript")
        handler(self, node)

    def emit_expression_statement(self, node: ast.Expr) -> None:
        if isinstance(node.value, ast.Constant):  # docstrings and bare literals
            return
        self.emit_sugared(node.value, 0)

    def emit_pass(self, node: ast.stmt) -> None:
        return

    def emit_function_def(self, node: ast.FunctionDef) -> None:
        """A nested def is a closure, which only `fork` takes (serialized code forks
        `def __forked_function(): return f(x)`)."""
        from tsjit.frontend.forks import ClosureValue

        assert self.frame is not None
        arguments = node.args
        if node.decorator_list or arguments.args or arguments.posonlyargs or arguments.kwonlyargs or arguments.vararg:
            raise self.error(node, "nested function definition statements are not supported in TorchScript "
                                   "(but closures without parameters that fork runs)")  # fmt: skip
        self.frame.set_sugared_var(node, node.name, ClosureValue(node), None)

    # -- return, raise, assert --------------------------------------------------------
    def emit_return(self, value_node: ast.expr | None, node: ast.AST) -> None:
        declared = self.declared_return
        if value_node is None:
            result = self.constant(None, NoneType(), node)
        else:
            result = self.emit_expr(value_node, declared)
        if declared is not None:
            if not (isinstance(declared, TensorType) and isinstance(result.type, NoneType)):
                result = self.convert_to_type(node, declared, result)
            if not is_subtype_of(result.type, declared):
                raise self.error(node, f"Return value was annotated as having type {type_str(declared)} but is "
                                       f"actually of type {type_str(result.type)}")  # fmt: skip
            merged = declared
        else:
            previous = self.merged_return if self.merged_return is not None else result.type
            merged = unify(previous, result.type)
            if merged is None:
                raise self.error(node, f"Previous return statement returned a value of type {type_str(previous)} but "
                                       f"this return statement returns a value of type {type_str(result.type)}")  # fmt: skip
        self.merged_return = merged
        if isinstance(merged, AnyType) and not isinstance(result.type, AnyType):
            result = self.unchecked_cast(result, merged)
        self.insert(prim.ReturnStmtOp(result), node)
        self.exit_blocks.add(self.block)

    def emit_return_statement(self, node: ast.Return) -> None:
        self.emit_return(node.value, node)

    def emit_raise(self, node: ast.Raise) -> None:
        if node.exc is None:
            raise self.error(node, "a bare 'raise' (re-raise) is not supported in TorchScript")
        raised = self.emit_sugared(node.exc, 1)
        if isinstance(raised, ExceptionValue):  # a bare class: an empty message, no class
            message = self.constant("", StrType(), node.exc)
            cls = self.constant(None, NoneType(), node.exc)
        elif isinstance(raised, ExceptionMessageValue):
            message = raised.message
            name = raised.qualified_name
            cls = self.constant(name or None, StrType() if name else NoneType(), node.exc)
        else:
            raise self.error(node, "exceptions must derive from BaseException")
        self.insert(prim.RaiseExceptionOp(message, cls), node)
        self.exit_blocks.add(self.block)

    def emit_assert(self, node: ast.Assert) -> None:
        cond = self.emit_cond_expr(node.test)
        message = node.msg if node.msg is not None else ast.copy_location(ast.Constant(""), node)
        error = ast.copy_location(
            ast.Call(ast.copy_location(ast.Name("AssertionError", ast.Load()), node), [message], []), node
        )
        failure = ast.copy_location(ast.Raise(error, None), node)
        self.emit_if_else_blocks(node, cond, [], [failure])

    # -- break, continue ----------------------------------------------------------------
    def check_in_loop(self, node: ast.stmt, what: str) -> LoopContext:
        if not self.loops:
            raise self.error(node, f"SyntaxError: '{what}' outside loop")
        loop = self.loops[-1]
        if loop.unrolled:
            raise self.error(node, "Because we emit iteration over modulelists or tuples as unrolled loops, we do not "
                                   "support break or continue inside the body of these loops")  # fmt: skip
        return loop

    def emit_break(self, node: ast.Break) -> None:
        self.check_in_loop(node, "break")
        self.insert(prim.LoopContinuationOp(self.constant(False, BoolType(), None)), node)

    def emit_continue(self, node: ast.Continue) -> None:
        loop = self.check_in_loop(node, "continue")
        self.insert(prim.LoopContinuationOp(self.loop_condition(loop)), node)

    def loop_condition(self, loop: LoopContext) -> SSAValue:
        if loop.condition is None:
            assert loop.true_value is not None
            return loop.true_value
        return self.emit_to_bool(loop.condition, self.emit_expr(loop.condition))

    # -- del ------------------------------------------------------------------------------
    def emit_delete(self, node: ast.Delete) -> None:
        assert self.frame is not None
        for target in node.targets:
            if isinstance(target, ast.Subscript):
                if isinstance(target.slice, ast.Slice):
                    raise self.error(
                        target,
                        "del statements only support deletion at a single index, slicing is not supported",
                    )
                container = self.emit_expr(target.value)
                index = self.emit_expr(target.slice)
                self.builtin_call(
                    "aten::Delete", target, [CallArg(container, target), CallArg(index, target)]
                )
            elif isinstance(target, ast.Name):
                self.frame.remove_var(target, target.id)
            else:
                raise self.error(
                    target, "del statements are only supported for deleting list and dict items and variables"
                )

    # -- with -------------------------------------------------------------------------------
    def emit_with(self, node: ast.With) -> None:
        assert self.frame is not None
        entered: list[SSAValue] = []
        for item in node.items:
            context = self.emit_expr(item.context_expr)
            enter_type = self.context_manager_types(item.context_expr, context)
            enter = self.insert(prim.EnterOp(context, enter_type), node)
            entered.append(context)
            if item.optional_vars is not None:
                if not isinstance(item.optional_vars, ast.Name):
                    raise self.error(item.optional_vars, "with ... as only binds a name")
                self.frame.set_var(item.optional_vars, item.optional_vars.id, enter.results[0])
        self.emit_statements(node.body)
        for context in reversed(entered):
            self.insert(prim.ExitOp(context, TensorType()))  # PyTorch leaves Exit's output a Tensor

    def context_manager_types(self, node: ast.expr, context: SSAValue) -> Attribute:
        """Checks a `with` item is an object of a class with `__enter__(self)` and
        `__exit__(self, a, b, c)`, compiles both, and gives `__enter__`'s return type."""
        t = context.type
        info = self.unit.module_info_for(t) if isinstance(t, ClassType) else None
        if info is None:
            raise self.error(node, "With item expression must return an object")
        if not (info.has_method("__enter__") and info.has_method("__exit__")):
            raise self.error(node, f"Object of class {t.qualname.data} does not define __enter__ and __exit__ "  # pyright: ignore[reportAttributeAccessIssue]
                                   "methods")  # fmt: skip
        enter = self.unit.compile_method(info, "__enter__", node, self)
        exit_ = self.unit.compile_method(info, "__exit__", node, self)
        if enter.signature.params:
            raise self.error(node, f"__enter__ of {t.qualname.data} must take no arguments but self")  # pyright: ignore[reportAttributeAccessIssue]
        if len(exit_.signature.params) != 3:
            raise self.error(node, f"__exit__ of {t.qualname.data} must have 4 arguments (self and 3 more), "  # pyright: ignore[reportAttributeAccessIssue]
                                   f"found {len(exit_.signature.params) + 1}")  # fmt: skip
        return enter.return_type

    # -- if --------------------------------------------------------------------------------
    def emit_if(self, node: ast.If) -> None:
        cond = self.emit_cond_expr(node.test)
        self.emit_if_else_blocks(node, cond, node.body, node.orelse)

    def insert_refinements(self, node: ast.AST, refinements: Refinements) -> None:
        assert self.frame is not None
        for name, t in refinements.when_true:
            found = self.frame.find(name, node)
            if not isinstance(found, SimpleValue):
                continue
            self.frame.set_var(node, name, self.unchecked_cast(found.value, t))
            self.frame.refined.add(name)

    def emit_single_if_branch(self, block: Block, statements: Sequence[ast.stmt], node: ast.AST,
                              refinements: Refinements) -> Frame:  # fmt: skip
        frame = self.push_frame(block)
        saved, self.point = self.point, InsertPoint.before(block.last_op)  # before the prim.Yield
        self.insert_refinements(node, refinements)
        self.emit_statements(statements)
        self.point = saved
        self.pop_frame()
        return frame

    def new_if(self, cond: SSAValue, node: ast.AST | None) -> prim.IfOp:
        op = prim.IfOp(
            cond, [], region_of(new_block([prim.YieldOp()])), region_of(new_block([prim.YieldOp()]))
        )
        self.insert(op, node)
        return op

    def emit_if_else_blocks(self, node: ast.AST, cond: CondValue, true_branch: Sequence[ast.stmt],
                            false_branch: Sequence[ast.stmt]) -> None:  # fmt: skip
        assert self.frame is not None
        if cond.static_if is not None:
            if cond.static_if:
                self.insert_refinements(node, cond.refinements)
                self.emit_statements(true_branch)
            else:
                self.insert_refinements(node, cond.refinements.negate())
                self.emit_statements(false_branch)
            return
        op = self.new_if(cond.value, node)
        true_block, false_block = op.then_region.block, op.else_region.block
        save_true = self.emit_single_if_branch(true_block, true_branch, node, cond.refinements)
        save_false = self.emit_single_if_branch(false_block, false_branch, node, cond.refinements.negate())
        true_exits, false_exits = true_block in self.exit_blocks, false_block in self.exit_blocks
        if true_exits and false_exits:
            self.exit_blocks.add(op.parent_block())  # pyright: ignore[reportArgumentType]
        mutated: set[str] = set()
        # a refinement outlives its branch only when the other branch exits
        for name in save_true.defined_variables(keep_refined=false_exits):
            if save_false.lookup_type(name) is not None or false_exits:
                mutated.add(name)
            else:
                self.frame.set_type_error(name, _not_defined(name, "false"))
        for name in save_false.defined_variables(keep_refined=true_exits):
            if save_true.lookup_type(name) is not None or true_exits:
                mutated.add(name)
            else:
                self.frame.set_type_error(name, _not_defined(name, "true"))
        for name in sorted(mutated):
            if true_exits and false_exits:
                continue
            true_type = save_true.lookup_type(name)
            false_type = save_false.lookup_type(name)
            if true_exits:
                assert false_type is not None
                self.insert_uninitialized_store(true_block, name, false_type)
                true_type = false_type
            elif false_exits:
                assert true_type is not None
                self.insert_uninitialized_store(false_block, name, true_type)
                false_type = true_type
            assert true_type is not None and false_type is not None
            unified = unify(true_type, false_type)
            if unified is None:
                message = (f"Type mismatch: {name} is set to type {type_str(true_type)} in the true branch and type "
                           f"{type_str(false_type)} in the false branch")  # fmt: skip
                if save_true.is_defined_in_parents(name) or save_false.is_defined_in_parents(name):
                    raise self.error(node, message)
                self.frame.set_type_error(name, lambda m=message: m)
                continue
            self.frame.merge_var(name, unified)

    def insert_uninitialized_store(self, block: Block, name: str, type: Attribute) -> None:
        assert self.frame is not None
        terminator = block.last_op
        assert terminator is not None
        value = prim.UninitializedOp(type)
        self.rewriter.insert_op(value, InsertPoint.before(terminator))
        self.rewriter.insert_op(
            prim.StoreOp(self.frame.storage_name(name), value.result), InsertPoint.before(terminator)
        )

    # -- loops ----------------------------------------------------------------------------
    def emit_while(self, node: ast.While) -> None:
        if node.orelse:
            raise self.error(node, "else branches of while loops are not supported in TorchScript")
        self.emit_loop_common(node, lambda: self.emit_statements(node.body), None, None, node.test)

    def emit_for(self, node: ast.For) -> None:
        if node.orelse:
            raise self.error(node, "else branches of for loops are not supported in TorchScript")
        if node.type_comment:
            raise self.error(node, "type comments on for loops are not supported")
        self.emit_for_loop(node, node.target, node.iter, lambda: self.emit_statements(node.body))

    def emit_for_loop(
        self, node: ast.AST, target: ast.expr, iterable_node: ast.expr, emit_body: Callable[[], None]
    ) -> None:
        iterable = self.emit_sugared(iterable_node, 1).iter(self, iterable_node)
        if iterable.static_len() is None:
            self.emit_loop_common(node, emit_body, iterable, target, None)
        else:
            self.emit_unrolled_loop(node, emit_body, iterable, target)

    def emit_loop_common(self, node: ast.AST, emit_body: Callable[[], None], iterable: SugaredValue | None,
                         target: ast.expr | None, condition: ast.expr | None) -> None:  # fmt: skip
        if iterable is not None:
            max_trip_count = iterable.len(self, node)
        else:
            max_trip_count = self.constant(INT64_MAX, IntType(), node)
        true_value = None
        if condition is not None:
            initial = self.emit_to_bool(condition, self.emit_expr(condition))
        else:
            initial = true_value = self.constant(True, BoolType(), node)
        body = new_block(arg_types=[IntType()])
        loop = prim.LoopOp(max_trip_count, initial, [], [], region_of(body))
        self.insert(loop, node)
        self.push_frame(body)
        saved = self.point
        self.point = InsertPoint.at_end(body)
        self.loops.append(LoopContext(condition, true_value))
        if iterable is not None and target is not None:
            element = iterable.getitem(self, node, body.args[0])
            self.emit_targets_assign([target], [element], node)
        emit_body()
        next_condition = self.loop_condition(self.loops[-1])
        self.insert(prim.YieldOp(next_condition))
        self.loops.pop()
        self.point = saved
        self.pop_frame()

    def emit_unrolled_loop(self, node: ast.AST, emit_body: Callable[[], None], iterable: SugaredValue,
                           target: ast.expr) -> None:  # fmt: skip
        length = iterable.static_len()
        assert length is not None
        self.loops.append(LoopContext(None, None, unrolled=True))
        for i in range(length):
            index = self.constant(i, IntType(), node)
            self.emit_targets_assign([target], [iterable.getitem(self, node, index)], node)
            emit_body()
        self.loops.pop()

    # -- assignment ---------------------------------------------------------------------------
    def emit_assign(self, node: ast.Assign) -> None:
        annotation = self.parse_type_comment(node) if node.type_comment else None
        if len(node.targets) == 1:
            self.emit_single_assign(node, node.targets[0], node.value, annotation)
            return
        assert self.frame is not None
        temp = self.new_temp("tmp_assign_")
        self.frame.set_sugared_var(node.value, temp, self.emit_sugared(node.value, 1), None)
        for target in node.targets:
            self.emit_single_assign(
                node, target, ast.copy_location(ast.Name(temp, ast.Load()), node.value), None
            )

    def emit_ann_assign(self, node: ast.AnnAssign) -> None:
        if node.value is None:
            raise self.error(node, "For an assignment, expected an expression on the right-hand side")
        annotation = self.unit.type_parser(self.spec.scope, self.source).parse(node.annotation)
        self.emit_single_assign(node, node.target, node.value, annotation)

    def parse_type_comment(self, node: ast.Assign) -> Attribute:
        assert node.type_comment is not None
        try:
            expr = ast.parse(node.type_comment, mode="eval").body
        except SyntaxError:
            raise self.error(node, f"invalid type comment '{node.type_comment}'") from None
        return self.unit.type_parser(self.spec.scope, self.source).parse(ast.copy_location(expr, node))

    def emit_single_assign(
        self, node: ast.stmt, target: ast.expr, value: ast.expr, annotation: Attribute | None
    ) -> None:
        assert self.frame is not None
        if isinstance(target, ast.Name):
            rhs = self.emit_sugared(value, 1, annotation)
            if annotation is not None and isinstance(rhs, SimpleValue):
                from tsjit.frontend.classes import check_interface_conversion

                check_interface_conversion(self, node, rhs.value, annotation)  # the variable keeps the class
            self.frame.set_sugared_var(target, target.id, rhs, annotation)
        elif isinstance(target, (ast.Tuple, ast.List)):
            self.emit_tuple_assign(target, value)
        elif isinstance(target, ast.Attribute):
            obj = self.emit_sugared(target.value, 1)
            rhs = self.emit_expr(value, annotation)
            if annotation is not None:
                rhs = self.convert_to_type(node, annotation, rhs)
                if not is_subtype_of(rhs.type, annotation):
                    raise self.error(node, f"Attribute '{target.attr}' is annotated with type {type_str(annotation)} "
                                           f"but is being assigned to a value of type {type_str(rhs.type)}")  # fmt: skip
            obj.set_attr(self, node, target.attr, rhs, annotation)
        elif isinstance(target, ast.Subscript):
            self.emit_subscript_assign(node, target, self.emit_expr(value))
        else:
            raise self.error(target, "unexpected expression on left-hand side of assignment")

    def validate_assign_targets(self, targets: Sequence[ast.expr], node: ast.AST) -> bool:
        starred = 0
        for target in targets:
            if isinstance(target, ast.Starred):
                starred += 1
            elif not isinstance(target, (ast.Name, ast.Subscript, ast.Tuple, ast.List)):
                raise self.error(
                    target, "lhs of assignment must be a variable, subscript, or starred expression"
                )
        if starred > 1:
            raise self.error(node, "Only one starred expression is allowed on the lhs")
        if starred and starred == len(targets):
            raise self.error(node, "A Starred expression may only appear on the lhs within the presence of another "
                                   "non-starred expression")  # fmt: skip
        return starred > 0

    def emit_tuple_assign(self, target: ast.Tuple | ast.List, value: ast.expr) -> None:
        starred = self.validate_assign_targets(target.elts, target)
        binders = len(target.elts) - int(starred)
        rhs = self.emit_sugared(value, binders)
        self.assign_tuple(target, rhs, value, binders, starred)

    def assign_tuple(
        self, target: ast.Tuple | ast.List, rhs: SugaredValue, rhs_node: ast.AST, binders: int, starred: bool
    ) -> None:
        outputs = rhs.as_tuple(self, rhs_node, None if starred else binders)
        if len(outputs) < binders:
            need = "at least " if starred else ""
            raise self.error(target, f"need {need}{binders} values to unpack but found only {len(outputs)}")
        if len(outputs) > binders and not starred:
            raise self.error(target, f"too many values to unpack: need {binders} but found {len(outputs)}")
        self.emit_targets_assign(target.elts, outputs, rhs_node, binders)

    def emit_targets_assign(self, targets: Sequence[ast.expr], outputs: Sequence[SugaredValue], rhs_node: ast.AST,
                            binders: int | None = None) -> None:  # fmt: skip
        assert self.frame is not None
        if binders is None:
            binders = len(outputs)
        i = 0
        for target in targets:
            if isinstance(target, ast.Subscript):
                self.emit_subscript_assign(rhs_node, target, outputs[i].as_value(self, rhs_node))
                i += 1
            elif isinstance(target, ast.Name):
                self.frame.set_sugared_var(target, target.id, outputs[i], None)
                i += 1
            elif isinstance(target, ast.Starred):
                if not isinstance(target.value, ast.Name):
                    raise self.error(target, "Cannot pack a tuple into a non-variable")
                matched = len(outputs) - binders
                values = [o.as_value(self, target) for o in outputs[i : i + matched]]
                self.frame.set_var(target.value, target.value.id, self.tuple_of(values, target))
                i += matched
            elif isinstance(target, (ast.Tuple, ast.List)):
                starred = self.validate_assign_targets(target.elts, target)
                self.assign_tuple(target, outputs[i], rhs_node, len(target.elts) - int(starred), starred)
                i += 1
            elif isinstance(target, ast.Attribute):
                obj = self.emit_sugared(target.value, 1)
                obj.set_attr(self, target, target.attr, outputs[i].as_value(self, rhs_node))
                i += 1
            else:
                raise self.error(target, "unexpected expression on the left-hand side")

    def emit_subscript_assign(self, node: ast.AST, target: ast.Subscript, rhs: SSAValue) -> None:
        sliceable = self.emit_expr(target.value)
        if isinstance(sliceable.type, TensorType):
            sliced, tensor_indices = self.emit_int_and_slice_indexing(target, sliceable, _subscripts(target))
            value = self.value_to_tensor(rhs, sliced, target)
            if not tensor_indices:
                self.builtin_call("aten::copy_", node, [CallArg(sliced, target), CallArg(value, target)])
            else:
                indices = self.list_of(tensor_indices, ListType(OptionalType(TensorType())))
                self.builtin_call(
                    "aten::index_put_",
                    node,
                    [CallArg(sliced, target), CallArg(indices, target), CallArg(value, target)],
                )
            return
        subscripts = _subscripts(target)
        if isinstance(sliceable.type, ClassType) and len(subscripts) == 1:
            obj = self.sugared_object(sliceable, target)
            index = self.emit_expr(subscripts[0])
            setitem = obj.attr(self, target, "__setitem__")
            setitem.call(self, node, [CallArg(index, subscripts[0]), CallArg(rhs, node)], [], 0)
            return
        if len(subscripts) != 1 or isinstance(subscripts[0], ast.Slice):
            raise self.error(target, "Sliced expression not yet supported for subscripted assignment")
        if isinstance(sliceable.type, TupleType):
            raise self.error(target, f"{type_str(sliceable.type)} does not support subscripted assignment")
        index = self.emit_expr(subscripts[0])
        args = [
            CallArg(sliceable, target.value, "self"),
            CallArg(index, subscripts[0], "idx"),
            CallArg(rhs, node),
        ]
        self.builtin_call("aten::_set_item", node, args)

    def value_to_tensor(self, value: SSAValue, like: SSAValue, node: ast.AST) -> SSAValue:
        """`t[i] = 1.0`: a number becomes a tensor of `t`'s dtype and device."""
        if (
            not isinstance(value.type, (IntType, FloatType, BoolType))
            and type(value.type).__name__ != "NumberType"
        ):
            return value
        dtype = self.builtin_call("prim::dtype", None, [CallArg(like, node)])
        device = self.builtin_call("prim::device", None, [CallArg(like, node)])
        return self.builtin_call("aten::tensor", None, [CallArg(value, node)],
                                 [CallArg(dtype, node, "dtype"), CallArg(device, node, "device")])  # fmt: skip

    def emit_aug_assign(self, node: ast.AugAssign) -> None:
        assert self.frame is not None
        target = node.target
        if isinstance(target, ast.Name):
            lhs = self.emit_expr(target)
            self.frame.set_var(target, target.id, self.aug_assign_value(node, lhs))
        elif isinstance(target, ast.Attribute):
            obj = self.emit_sugared(target.value, 1)
            lhs = obj.attr(self, target, target.attr).as_value(self, target)
            obj.set_attr(self, node, target.attr, self.aug_assign_value(node, lhs))
        elif isinstance(target, ast.Subscript):
            self.emit_aug_assign_subscript(node, target)
        else:
            raise self.error(target, "unexpected expression on left-hand side of augmented assignment")

    def aug_operator(self, node: ast.AugAssign, lhs_type: Attribute) -> str:
        if type(node.op) not in builtins.AUGMENTED_OPERATORS:
            raise self.error(node, f"Unknown augmented assignment: {type(node.op).__name__}")
        in_place, plain = builtins.AUGMENTED_OPERATORS[type(node.op)]
        return in_place if isinstance(lhs_type, (TensorType, ListType)) else plain

    def aug_assign_value(self, node: ast.AugAssign, lhs: SSAValue) -> SSAValue:
        if isinstance(lhs.type, ClassType):
            raise self.error(
                node, f"Cannot emit inplace op on {type_str(lhs.type)}: it defines no __iadd__-style method"
            )
        rhs = self.emit_expr(node.value)
        operator = self.aug_operator(node, lhs.type)
        return self.builtin_call(operator, node, [CallArg(lhs, node.target), CallArg(rhs, node.value)])

    def emit_aug_assign_subscript(self, node: ast.AugAssign, target: ast.Subscript) -> None:
        sliceable = self.emit_expr(target.value)
        if isinstance(sliceable.type, TensorType):
            sliced, tensor_indices = self.emit_int_and_slice_indexing(target, sliceable, _subscripts(target))
            rhs = self.emit_expr(node.value)
            operator = self.aug_operator(node, sliceable.type)
            if not tensor_indices:
                self.builtin_call(
                    operator, node, [CallArg(rhs, node.value)], [], CallArg(sliced, target, "self")
                )
            else:
                indices = self.list_of(tensor_indices, ListType(OptionalType(TensorType())))
                indexed = self.builtin_call(
                    "aten::index", node, [CallArg(sliced, target), CallArg(indices, target)]
                )
                augmented = self.builtin_call(
                    operator, node, [CallArg(rhs, node.value)], [], CallArg(indexed, target, "self")
                )
                self.builtin_call(
                    "aten::index_put_",
                    node,
                    [CallArg(sliced, target), CallArg(indices, target), CallArg(augmented, target)],
                )
            return
        subscripts = _subscripts(target)
        t = sliceable.type
        if len(subscripts) != 1 or isinstance(subscripts[0], ast.Slice):
            raise self.error(
                target, f"Sliced expression not yet supported for {type_str(t)} augmented assignment"
            )
        if isinstance(t, ListType):
            element = t.element_type
        elif isinstance(t, DictType):
            element = t.value_type
        else:
            raise self.error(target, f"{type_str(t)} does not support augmented assignment.")
        index = self.emit_expr(subscripts[0])
        value = self.emit_expr(node.value)
        item = self.builtin_call(
            "aten::__getitem__", node, [CallArg(sliceable, target.value), CallArg(index, subscripts[0])]
        )
        augmented = self.builtin_call(
            self.aug_operator(node, element), node, [CallArg(item, node), CallArg(value, node.value)]
        )
        self.builtin_call(
            "aten::_set_item",
            node,
            [CallArg(sliceable, target.value), CallArg(index, subscripts[0]), CallArg(augmented, node)],
        )

    # ==================================================================================
    # Expressions
    # ==================================================================================

    def emit_expr(self, node: ast.expr, type_hint: Attribute | None = None) -> SSAValue:
        node_type = type(node)
        if node_type is ast.Name:  # a variable with a known value: no sugared value made
            value = self.frame.current.get(node.id)  # pyright: ignore[reportOptionalMemberAccess, reportAttributeAccessIssue]
            if value is None:
                value = self.get_sugared_var(node.id, node).as_value(self, node)  # pyright: ignore[reportAttributeAccessIssue]
        elif node_type in _EXPRESSIONS:
            value = _EXPRESSIONS[node_type](self, node, type_hint)
        else:
            value = self.emit_sugared(node, 1, type_hint).as_value(self, node)
        if type_hint is not None and isinstance(type_hint, AnyType) and not isinstance(value.type, AnyType):
            value = self.unchecked_cast(value, type_hint, node)
        return value

    def emit_sugared(
        self, node: ast.expr, n_binders: int, type_hint: Attribute | None = None
    ) -> SugaredValue:
        handler = _EXPRESSIONS.get(type(node))
        if handler is not None:  # always a first-class value
            return SimpleValue(handler(self, node, type_hint))
        if isinstance(node, ast.Name):
            return self.get_sugared_var(node.id, node)
        if isinstance(node, ast.Attribute):
            return self.emit_sugared(node.value, 1).attr(self, node, node.attr)
        if isinstance(node, ast.Call):
            return self.emit_apply(node, n_binders, type_hint)
        if isinstance(node, ast.Subscript):
            return self.emit_subscript(node, type_hint)
        return SimpleValue(self.emit_simple(node, type_hint))

    def get_sugared_var(self, name: str, node: ast.AST) -> SugaredValue:
        assert self.frame is not None
        found = self.frame.find(name, node)
        if found is None:
            found = self.unit.resolver.global_value(self, node, name, self.spec.scope)
        if found is None:
            if (message := self.frame.type_error(name)) is not None:
                raise self.error(node, f"{message} and was used here")
            raise self.error(node, f"undefined value {name}")
        return found

    def emit_call_arguments(self, node: ast.Call) -> tuple[list[CallArg], list[CallArg]]:
        args: list[CallArg] = []
        for arg in node.args:
            if isinstance(arg, ast.Starred):
                for element in self.emit_sugared(arg.value, 1).as_tuple(self, arg):
                    args.append(CallArg(element.as_value(self, arg), arg))
            else:
                args.append(CallArg(self.emit_expr(arg), arg))
        kwargs: list[CallArg] = []
        for keyword in node.keywords:
            if keyword.arg is None:
                raise self.error(keyword.value, "**kwargs arguments are not supported in TorchScript")
            kwargs.append(CallArg(self.emit_expr(keyword.value), keyword.value, keyword.arg))
        return args, kwargs

    def emit_apply(self, node: ast.Call, n_binders: int, type_hint: Attribute | None) -> SugaredValue:
        callee = self.emit_sugared(node.func, 1)
        if isinstance(callee, SpecialForm):
            return self.emit_special_form(callee.form, node, type_hint)
        args, kwargs = self.emit_call_arguments(node)
        return callee.call(self, node, args, kwargs, n_binders)

    def check_arity(self, node: ast.Call, name: str, count: int) -> None:
        if len(node.args) != count:
            raise self.error(node, f"{name} expected exactly {count} arguments but found {len(node.args)}")
        if node.keywords:
            raise self.error(node, f"{name} takes no keyword arguments")

    def emit_special_form(self, form: str, node: ast.Call, type_hint: Attribute | None) -> SugaredValue:
        handler = _SPECIAL_FORMS.get(form)
        if handler is None:
            raise self.error(node, f"builtin '{form}' is not supported in TorchScript")
        return handler(self, node, type_hint)

    def form_isinstance(self, node: ast.Call, type_hint: Attribute | None) -> SugaredValue:
        self.check_arity(node, "isinstance", 2)
        return SimpleValue(self.emit_isinstance(node.args[0], node.args[1]).value)

    def form_hasattr(self, node: ast.Call, type_hint: Attribute | None) -> SugaredValue:
        self.check_arity(node, "hasattr", 2)
        return SimpleValue(self.emit_hasattr(node.args[0], node.args[1]).value)

    def form_getattr(self, node: ast.Call, type_hint: Attribute | None) -> SugaredValue:
        self.check_arity(node, "getattr", 2)
        selector = node.args[1]
        if not isinstance(selector, ast.Constant) or not isinstance(selector.value, str):
            raise self.error(node, "getattr's second argument must be a string literal")
        return self.emit_sugared(node.args[0], 1).attr(self, node, selector.value)

    def form_annotate(self, node: ast.Call, type_hint: Attribute | None) -> SugaredValue:
        self.check_arity(node, "annotate", 2)
        annotated = self.unit.type_parser(self.spec.scope, self.source).parse(node.args[0])
        value = self.convert_to_type(node, annotated, self.emit_expr(node.args[1], annotated))
        if not is_subtype_of(value.type, annotated):
            raise self.error(node.args[1], f"expected an expression of type {type_str(annotated)} but found "
                                           f"{type_str(value.type)}")  # fmt: skip
        if isinstance(annotated, OptionalType) and isinstance(value.type, NoneType):
            value = self.constant(None, annotated, node)
        return SimpleValue(value)

    def form_unchecked_cast(self, node: ast.Call, type_hint: Attribute | None) -> SugaredValue:
        self.check_arity(node, "unchecked_cast", 2)
        cast_type = self.unit.type_parser(self.spec.scope, self.source).parse(node.args[0])
        return SimpleValue(self.unchecked_cast(self.emit_expr(node.args[1]), cast_type, node))

    def form_uninitialized(self, node: ast.Call, type_hint: Attribute | None) -> SugaredValue:
        self.check_arity(node, "uninitialized", 1)
        value_type = self.unit.type_parser(self.spec.scope, self.source).parse(node.args[0])
        return SimpleValue(self.insert(prim.UninitializedOp(value_type), node).results[0])

    def form_new(self, node: ast.Call, type_hint: Attribute | None) -> SugaredValue:
        """`C.__new__(C)`: an uninitialized object of class C."""
        self.check_arity(node, "__new__", 1)
        from tsjit.frontend.classes import ClassValue

        cls = self.emit_sugared(node.args[0], 1)
        if not isinstance(cls, ClassValue):
            raise self.error(node, f"Expected class value as argument to __new__, got {cls.kind} instead")
        return SimpleValue(self.insert(prim.CreateObjectOp(cls.info.class_type), node).results[0])

    def form_fork(self, node: ast.Call, type_hint: Attribute | None) -> SugaredValue:
        from tsjit.frontend.forks import emit_fork

        return emit_fork(self, node)

    def form_tuple(self, node: ast.Call, type_hint: Attribute | None) -> SugaredValue:
        self.check_arity(node, "tuple", 1)
        items = self.emit_sugared(node.args[0], 1).as_tuple(self, node)
        return SimpleValue(self.tuple_of([i.as_value(self, node) for i in items], node))

    def form_range(self, node: ast.Call, type_hint: Attribute | None) -> SugaredValue:
        args, kwargs = self.emit_call_arguments(node)
        if kwargs:
            raise self.error(node, "range takes no keyword arguments")
        return RangeValue(self, node, [self.arg_value(a) for a in args])

    def form_enumerate(self, node: ast.Call, type_hint: Attribute | None) -> SugaredValue:
        if not node.args:
            raise self.error(node, "enumerate expected at least 1 arguments, got 0")
        if len(node.args) > 2:
            raise self.error(node, f"enumerate expected at most 2 arguments, got {len(node.args)}")
        inputs = []
        if len(node.args) == 2:
            inputs.append(self.emit_expr(node.args[1]))
        inputs.append(self.constant(INT64_MAX, IntType(), node))
        iterable = self.emit_sugared(node.args[0], 1).iter(self, node)
        tree = IterableTree()
        tree.add_child(self, node, RangeValue(self, node, inputs, iterable.static_len()))
        tree.add_child(self, node, iterable)
        return tree

    def form_zip(self, node: ast.Call, type_hint: Attribute | None) -> SugaredValue:
        if not node.args:
            raise self.error(node, "zip expected at least 1 arguments, got 0")
        tree = IterableTree()
        for arg in node.args:
            tree.add_child(self, node, self.emit_sugared(arg, 1).iter(self, node))
        return tree

    def form_len(self, node: ast.Call, type_hint: Attribute | None) -> SugaredValue:
        """`len(x)`: a compile-time constant for module lists and tuples of modules."""
        self.check_arity(node, "len", 1)
        value = self.emit_sugared(node.args[0], 1)
        if isinstance(value, (ModuleValue, SugaredTupleValue)) or not isinstance(value, SimpleValue):
            return SimpleValue(value.len(self, node))
        return MagicMethod("__len__", BuiltinFunction("aten::len")).call(
            self, node, [CallArg(value.value, node.args[0])], [], 1
        )

    def form_list(self, node: ast.Call, type_hint: Attribute | None) -> SugaredValue:
        if not node.args and not node.keywords:
            list_type = type_hint if type_hint is not None else ListType(TensorType())
            if not isinstance(list_type, ListType):
                raise self.error(
                    node, f"Expected list type annotation for list(), found {type_str(list_type)}"
                )
            return SimpleValue(self.list_of([], list_type, node))
        self.check_arity(node, "list", 1)
        iterable = self.emit_sugared(node.args[0], 1)
        if isinstance(iterable, SimpleValue) and isinstance(iterable.value.type, (ListType, StrType)):
            return SimpleValue(self.builtin_call("aten::list", node, [CallArg(iterable.value, node.args[0])]))
        element = ast.copy_location(ast.Name(self.new_temp("elem"), ast.Load()), node)
        return SimpleValue(self.emit_comprehension(node, element, None, element, iterable, [], type_hint))

    def form_dict(self, node: ast.Call, type_hint: Attribute | None) -> SugaredValue:
        if node.args and len(node.args) > 1:
            raise self.error(node, f"dict expected at most 1 arguments, got {len(node.args)}")
        if not node.args:
            dict_type = type_hint if type_hint is not None else DictType(StrType(), TensorType())
            if not isinstance(dict_type, DictType):
                raise self.error(
                    node,
                    f"Expected a type annotation of Dict for dict constructor dict(), got {type_str(dict_type)}",
                )
            result = self.insert(prim.DictConstructOp([], dict_type), node).results[0]
        else:
            source = self.emit_sugared(node.args[0], 1)
            if isinstance(source, SimpleValue) and isinstance(source.value.type, DictType):
                result = self.builtin_call("aten::dict", node, [CallArg(source.value, node.args[0])])
            else:
                key = ast.copy_location(ast.Name(self.new_temp("key"), ast.Load()), node)
                value = ast.copy_location(ast.Name(self.new_temp("value"), ast.Load()), node)
                target = ast.copy_location(
                    ast.Tuple([ast.Name(key.id, ast.Store()), ast.Name(value.id, ast.Store())], ast.Store()),
                    node,
                )
                result = self.emit_comprehension(node, key, value, target, source, [], type_hint)
        for keyword in node.keywords:
            if keyword.arg is None:
                raise self.error(keyword.value, "**kwargs arguments are not supported in TorchScript")
            k = self.constant(keyword.arg, StrType(), keyword.value)
            v = self.emit_expr(keyword.value)
            self.builtin_call(
                "aten::_set_item",
                keyword.value,
                [CallArg(result, node), CallArg(k, keyword.value), CallArg(v, keyword.value)],
            )
        return SimpleValue(result)

    # -- conditions ---------------------------------------------------------------------------
    def emit_to_bool(self, node: ast.AST, value: SSAValue) -> SSAValue:
        if isinstance(value.type, BoolType):
            return value
        try:
            result = self.builtin_call("aten::Bool", node, [CallArg(value, node)])
        except TsjitError:
            raise self.error(node, f"Could not cast value of type {type_str(value.type)} to bool") from None
        if not isinstance(result.type, BoolType):
            raise self.error(
                node, f"expected a bool expression for condition but found {type_str(result.type)}"
            )
        return result

    def emit_cond_expr(self, node: ast.expr) -> CondValue:
        if isinstance(node, ast.BoolOp):
            result = self.emit_cond_expr(node.values[0])
            for right in node.values[1:]:
                result = self.emit_short_circuit(node, result, right, isinstance(node.op, ast.Or))
            return result
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            inner = self.emit_cond_expr(node.operand)
            value = self.builtin_call("aten::__not__", node, [CallArg(inner.value, node.operand)])
            static = None if inner.static_if is None else not inner.static_if
            return CondValue(value, inner.refinements.negate(), static)
        if (
            isinstance(node, ast.Compare)
            and len(node.ops) == 1
            and isinstance(node.ops[0], (ast.Is, ast.IsNot))
        ):
            return self.emit_is(node, node.left, node.comparators[0], isinstance(node.ops[0], ast.Is))
        if isinstance(node, ast.Call):
            callee = self.emit_sugared(node.func, 1) if _is_special_name(node.func) else None
            if isinstance(callee, SpecialForm) and callee.form == "isinstance":
                self.check_arity(node, "isinstance", 2)
                return self.emit_isinstance(node.args[0], node.args[1])
            if isinstance(callee, SpecialForm) and callee.form == "hasattr":
                self.check_arity(node, "hasattr", 2)
                return self.emit_hasattr(node.args[0], node.args[1])
        value = self.emit_to_bool(node, self.emit_expr(node))
        static_if = None
        owner = value.owner
        operator = getattr(type(owner), "OPERATOR", None)
        if operator in builtins.STATIC_TRUE_OPERATORS:
            static_if = True
        elif operator in builtins.STATIC_FALSE_OPERATORS:
            static_if = False
        constant = self.constant_value(value)
        if isinstance(constant, bool):
            static_if = constant
        return CondValue(value, Refinements(), static_if)

    def emit_short_circuit(self, node: ast.AST, lhs: CondValue, right: ast.expr, is_or: bool) -> CondValue:
        rhs: list[CondValue] = []

        def constant() -> SSAValue:
            return self.constant(is_or, BoolType(), node)

        def continue_expr() -> SSAValue:
            rhs.append(self.emit_cond_expr(right))
            return rhs[0].value

        if is_or:
            value = self.emit_if_expr(node, lhs, constant, continue_expr)
            refinements = lhs.refinements.either(rhs[0].refinements)
            static = rhs[0].static_if
            static_if = True if (lhs.static_if or static) else (
                (lhs.static_if or static) if lhs.static_if is not None and static is not None else None)  # fmt: skip
        else:
            value = self.emit_if_expr(node, lhs, continue_expr, constant)
            refinements = lhs.refinements.both(rhs[0].refinements)
            static = rhs[0].static_if
            if lhs.static_if is False or static is False:
                static_if = False
            elif lhs.static_if is not None and static is not None:
                static_if = lhs.static_if and static
            else:
                static_if = None
        return CondValue(value, refinements, static_if)

    def emit_if_expr(self, node: ast.AST, cond: CondValue, true_expr: Callable[[], SSAValue],
                     false_expr: Callable[[], SSAValue]) -> SSAValue:  # fmt: skip
        op = self.new_if(cond.value, node)
        outputs = []
        for block, refinements, emit in (
            (op.then_region.block, cond.refinements, true_expr),
            (op.else_region.block, cond.refinements.negate(), false_expr),
        ):
            self.push_frame(block)
            saved, self.point = self.point, InsertPoint.before(block.last_op)
            self.insert_refinements(node, refinements)
            outputs.append(emit())
            self.point = saved
            self.pop_frame()
        unified = unify(outputs[0].type, outputs[1].type)
        if unified is None:
            raise self.error(node, f"if-expression's true branch has type {type_str(outputs[0].type)} but false branch "
                                   f"has type {type_str(outputs[1].type)}")  # fmt: skip
        for block, value in zip((op.then_region.block, op.else_region.block), outputs):
            block.last_op.operands = [value]  # pyright: ignore[reportOptionalMemberAccess]
        result = self.rebuild_if(op, [unified])
        return result.results[0]

    def rebuild_if(self, op: prim.IfOp, result_types: Sequence[Attribute]) -> prim.IfOp:
        """`op`, made without results, with these (its branches yield them)."""
        from tsjit.frontend.rebuild import with_results

        return with_results(op, result_types)

    def emit_is(self, node: ast.Compare, left: ast.expr, right: ast.expr, is_is: bool) -> CondValue:
        lhs = self.emit_expr(left)
        rhs = self.emit_expr(right)
        lhs_none, rhs_none = _none_status(lhs), _none_status(rhs)
        if lhs_none == "always" and rhs_none == "always":
            return CondValue(self.constant(is_is, BoolType(), node), Refinements(), is_is)
        if {lhs_none, rhs_none} == {"always", "never"}:
            return CondValue(self.constant(not is_is, BoolType(), node), Refinements(), not is_is)
        operator = "aten::__is__" if is_is else "aten::__isnot__"
        value = self.builtin_call(operator, node, [CallArg(lhs, left), CallArg(rhs, right)])
        return CondValue(value, self.is_none_refinements(left, lhs, right, rhs, is_is))

    def is_none_refinements(
        self, left: ast.expr, lhs: SSAValue, right: ast.expr, rhs: SSAValue, is_is: bool
    ) -> Refinements:
        if _is_none_literal(left) and not _is_none_literal(right):
            return self.is_none_refinements(right, rhs, left, lhs, is_is)
        if not _is_none_literal(right) or not isinstance(left, ast.Name):
            return Refinements()
        if isinstance(lhs.type, OptionalType):
            present = ((left.id, lhs.type.element_type),)
            return Refinements((), present) if is_is else Refinements(present, ())
        if isinstance(lhs.type, UnionType) and NoneType() in lhs.type.types:
            others = [t for t in lhs.type.types if not isinstance(t, NoneType)]
            present = ((left.id, union_of(others)),)
            absent = ((left.id, NoneType()),)
            return Refinements(absent, present) if is_is else Refinements(present, absent)
        return Refinements()

    def emit_isinstance(self, obj: ast.expr, classinfo: ast.expr) -> CondValue:
        """`isinstance(x, T)` (and `torch.jit.isinstance`): decided at compile time when
        the static type of `x` decides it, else `prim.isinstance` on a Union, Optional or
        Any; a variable is refined to the matching members when true, to the others when
        false (TorchScript's refinement of unions)."""
        types = self.isinstance_types(classinfo)
        value = self.emit_expr(obj)
        actual = value.type
        members = _members(actual)
        matching = [m for m in members if any(is_subtype_of(m, t) for t in types)]
        others = [m for m in members if m not in matching]
        refinements = Refinements()
        if isinstance(obj, ast.Name):
            when_true = union_of(matching) if matching else (types[0] if len(types) == 1 else None)
            if isinstance(actual, AnyType) and len(types) == 1:
                when_true = types[0]
            when_false = union_of(others) if others and matching else None
            refinements = Refinements(
                () if when_true is None or when_true == actual else ((obj.id, when_true),),
                () if when_false is None or when_false == actual else ((obj.id, when_false),),
            )
        if not others:
            return CondValue(self.constant(True, BoolType(), obj), refinements, True)
        if not matching and all(not _maybe_instance(t, actual) for t in types):
            return CondValue(self.constant(False, BoolType(), obj), refinements, False)
        if isinstance(actual, OptionalType) and others == [NoneType()]:
            none = self.constant(None, NoneType(), obj)
            present = self.builtin_call("aten::__isnot__", obj, [CallArg(value, obj), CallArg(none, obj)])
            return CondValue(present, refinements)  # an Optional[T] is a T exactly when it is not None
        checked = self.insert(prim.IsInstanceOp(value, types), obj).results[0]
        return CondValue(checked, refinements)

    def isinstance_types(self, classinfo: ast.expr) -> list[Attribute]:
        """The types of `isinstance`'s second argument (a type or a tuple of types);
        bare `list` and `tuple` are any list and any tuple."""
        parser = self.unit.type_parser(self.spec.scope, self.source)
        types: list[Attribute] = []

        def gather(expr: ast.expr) -> None:
            if isinstance(expr, ast.Tuple):
                for e in expr.elts:
                    gather(e)
                return
            found = self.unit.resolver.lookup_python(self.spec.scope, expr)
            if found in (list, typing.List):  # noqa: UP006
                types.append(OpaqueType("AnyList"))
            elif found in (tuple, typing.Tuple):  # noqa: UP006
                types.append(OpaqueType("AnyTuple"))
            elif found is dict:
                raise self.error(expr, "Unknown type name 'dict'")
            else:
                types.append(parser.parse(expr))

        gather(classinfo)
        return types

    def emit_hasattr(self, obj: ast.expr, attribute: ast.expr) -> CondValue:
        target = self.emit_sugared(obj, 1)
        if not isinstance(attribute, ast.Constant) or not isinstance(attribute.value, str):
            raise self.error(attribute, "hasattr's second argument must be a string literal")
        present = target.has_attr(self, obj, attribute.value)
        return CondValue(self.constant(present, BoolType(), obj), Refinements(), present)

    # -- simple expressions ------------------------------------------------------------------
    def emit_simple(self, node: ast.expr, type_hint: Attribute | None) -> SSAValue:
        handler = _EXPRESSIONS.get(type(node))
        if handler is None:
            raise self.error(node, f"{_expression_name(node)} expressions are not supported in TorchScript")
        return handler(self, node, type_hint)

    def emit_constant(self, node: ast.Constant, type_hint: Attribute | None) -> SSAValue:
        value = node.value
        if value is None or isinstance(value, (bool, int, float, str)):
            if isinstance(value, int) and not isinstance(value, bool) and not -(2**63) <= value < 2**63:
                raise self.error(node, f"integer literal {value} does not fit in TorchScript's 64-bit int")
            return self.constant(value, None, node)
        raise self.error(node, f"{type(value).__name__} literals are not supported in TorchScript")

    def emit_binary(self, node: ast.BinOp, type_hint: Attribute | None) -> SSAValue:
        lhs = self.emit_expr(node.left)
        if isinstance(node.op, ast.Mod) and isinstance(lhs.type, StrType):
            rhs = self.emit_expr(node.right)
            return self.builtin_call(
                "aten::percentFormat", node, [CallArg(lhs, node.left), CallArg(rhs, node.right)]
            )
        operator, magic = builtins.BINARY_OPERATORS[type(node.op)]
        rhs = self.emit_expr(node.right)
        return self.magic_call(node, operator, magic, [CallArg(lhs, node.left), CallArg(rhs, node.right)])

    def magic_call(self, node: ast.AST, operator: str, magic: str, args: list[CallArg]) -> SSAValue:
        first = args[0].value
        if first is not None and not isinstance(first.type, ClassType):  # no class to override it
            return self.builtin_call(operator, node, args)
        return (
            MagicMethod(magic, BuiltinFunction(operator)).call(self, node, args, [], 1).as_value(self, node)
        )

    def emit_compare(self, node: ast.Compare, type_hint: Attribute | None) -> SSAValue:
        if len(node.ops) == 1 and isinstance(node.ops[0], (ast.Is, ast.IsNot)):
            return self.emit_cond_expr(node).value
        if len(node.ops) > 1:
            return self.emit_cond_expr(_chained_comparison(node)).value
        op, right = node.ops[0], node.comparators[0]
        lhs, rhs = self.emit_expr(node.left), self.emit_expr(right)
        operator, magic = builtins.COMPARISON_OPERATORS[type(op)]
        if isinstance(op, (ast.In, ast.NotIn)):
            result = self.magic_call(node, operator, magic, [CallArg(rhs, right), CallArg(lhs, node.left)])
            if isinstance(op, ast.NotIn):
                result = self.builtin_call("aten::__not__", node, [CallArg(result, node)])
            return result
        return self.magic_call(node, operator, magic, [CallArg(lhs, node.left), CallArg(rhs, right)])

    def emit_bool_op(self, node: ast.BoolOp, type_hint: Attribute | None) -> SSAValue:
        return self.emit_cond_expr(node).value

    def emit_unary(self, node: ast.UnaryOp, type_hint: Attribute | None) -> SSAValue:
        if isinstance(node.op, ast.Not):
            return self.emit_cond_expr(node).value
        operator, magic = builtins.UNARY_OPERATORS[type(node.op)]
        operand = self.emit_expr(node.operand)
        if not operator:  # unary plus
            if not isinstance(operand.type, (IntType, FloatType, TensorType)):
                raise self.error(node, f"unary + is not defined for {type_str(operand.type)}")
            return operand
        folded = self.constant_value(operand)
        if operator == "aten::neg" and isinstance(folded, (int, float)) and not isinstance(folded, bool):
            if folded == -(2**63):
                raise self.error(node, "negating the smallest int overflows")
            return self.constant(-folded, operand.type, node)
        return self.magic_call(node, operator, magic, [CallArg(operand, node.operand)])

    def emit_ternary(self, node: ast.IfExp, type_hint: Attribute | None) -> SSAValue:
        cond = self.emit_cond_expr(node.test)
        if cond.static_if is not None:
            return self.emit_expr(node.body if cond.static_if else node.orelse, type_hint)
        return self.emit_if_expr(node, cond, lambda: self.emit_expr(node.body, type_hint),
                                 lambda: self.emit_expr(node.orelse, type_hint))  # fmt: skip

    def emit_values(self, elements: Sequence[ast.expr]) -> list[SSAValue]:
        values: list[SSAValue] = []
        for element in elements:
            if isinstance(element, ast.Starred):
                values.extend(
                    e.as_value(self, element)
                    for e in self.emit_sugared(element.value, 1).as_tuple(self, element)
                )
            else:
                values.append(self.emit_expr(element))
        return values

    def emit_list_literal(self, node: ast.List, type_hint: Attribute | None) -> SSAValue:
        values = self.emit_values(node.elts)
        if not values and type_hint is None:
            value = self.list_of([], ListType(TensorType()), node)
            self.empty_list_literals.add(value)
            return value
        element: Attribute = TensorType()
        if type_hint is not None:
            if not isinstance(type_hint, ListType):
                raise self.error(node, f"Expected a List type hint but instead got {type_str(type_hint)}")
            element = type_hint.element_type
        elif values:
            unified = values[0].type
            for v in values[1:]:
                joined = unify(unified, v.type)
                if joined is None:
                    raise self.error(node, f"Lists must contain only a single type, expected: {type_str(unified)} but "
                                           f"found {type_str(v.type)} instead")  # fmt: skip
                unified = joined
            element = unified
        for v in values:
            if not is_subtype_of(v.type, element):
                raise self.error(node, f"Lists must contain only a single type, expected: {type_str(element)} but "
                                       f"found {type_str(v.type)} instead")  # fmt: skip
        return self.list_of(values, ListType(element), node)  # pyright: ignore[reportArgumentType]

    def emit_tuple_literal(self, node: ast.Tuple, type_hint: Attribute | None) -> SSAValue:
        return self.tuple_of(self.emit_values(node.elts), node)

    def emit_dict_literal(self, node: ast.Dict, type_hint: Attribute | None) -> SSAValue:
        keys: list[SSAValue] = []
        values: list[SSAValue] = []
        for k, v in zip(node.keys, node.values):
            if k is None:
                raise self.error(v, "dict unpacking (**) is not supported in TorchScript")
            keys.append(self.emit_expr(k))
            values.append(self.emit_expr(v))
        if isinstance(type_hint, DictType):
            key_type, value_type = type_hint.key_type, type_hint.value_type
        elif not keys:
            key_type, value_type = StrType(), TensorType()
        else:
            key_type, value_type = keys[0].type, values[0].type
        for what, expected, items, nodes in (
            ("keys", key_type, keys, node.keys),
            ("values", value_type, values, node.values),
        ):
            for item, item_node in zip(items, nodes):
                if not is_subtype_of(item.type, expected):
                    raise self.error(item_node, f"Dict {what} must contain only a single type, expected: "
                                                f"{type_str(expected)} but found {type_str(item.type)} instead")  # fmt: skip
        operands = [x for pair in zip(keys, values) for x in pair]
        return self.insert(prim.DictConstructOp(operands, DictType(key_type, value_type)), node).results[0]  # pyright: ignore[reportArgumentType]

    def emit_joined_str(self, node: ast.JoinedStr, type_hint: Attribute | None) -> SSAValue:
        """f-strings: `f"n={n}"` is `"n={}".format(n)`."""
        pieces: list[str] = []
        args: list[CallArg] = []
        for part in node.values:
            if isinstance(part, ast.Constant):
                pieces.append(str(part.value).replace("{", "{{").replace("}", "}}"))
            elif isinstance(part, ast.FormattedValue):
                if part.conversion != -1 or part.format_spec is not None:
                    raise self.error(
                        part, "f-string conversions and format specs are not supported in TorchScript"
                    )
                pieces.append("{}")
                args.append(CallArg(self.emit_expr(part.value), part.value))
        template = self.constant("".join(pieces), StrType(), node)
        return self.builtin_call("aten::format", node, [CallArg(template, node), *args])

    def emit_list_comp(self, node: ast.ListComp, type_hint: Attribute | None) -> SSAValue:
        generator = self.single_generator(node)
        return self.emit_comprehension(
            node, node.elt, None, generator.target, generator.iter, generator.ifs, type_hint
        )

    def emit_dict_comp(self, node: ast.DictComp, type_hint: Attribute | None) -> SSAValue:
        generator = self.single_generator(node)
        return self.emit_comprehension(
            node, node.key, node.value, generator.target, generator.iter, generator.ifs, type_hint
        )

    def single_generator(self, node: ast.ListComp | ast.DictComp) -> ast.comprehension:
        if len(node.generators) != 1:
            raise self.error(node, "Only one for loop is supported in a comprehension")
        generator = node.generators[0]
        if generator.is_async:
            raise self.error(node, "async comprehensions are not supported in TorchScript")
        return generator

    def emit_comprehension(self, node: ast.AST, element: ast.expr, value: ast.expr | None, target: ast.expr,
                           iterable: ast.expr | SugaredValue, conditions: Sequence[ast.expr],
                           type_hint: Attribute | None) -> SSAValue:  # fmt: skip
        """A list (`value` None) or dict comprehension: a loop appending to a fresh
        container, in a scope of its own (its target names cannot leak)."""
        is_dict = value is not None
        if is_dict:
            default: Attribute = DictType(StrType(), TensorType())
            if type_hint is not None and not isinstance(type_hint, DictType):
                raise self.error(
                    node, f"Expected Dict type annotation for dict comprehension, found {type_str(type_hint)}"
                )
            container = self.insert(prim.DictConstructOp([], type_hint or default), node)  # pyright: ignore[reportArgumentType]
        else:
            if type_hint is not None and not isinstance(type_hint, ListType):
                raise self.error(
                    node, f"Expected list type annotation for list comprehension, found {type_str(type_hint)}"
                )
            container = self.insert(prim.ListConstructOp([], type_hint or ListType(TensorType())), node)  # pyright: ignore[reportArgumentType]
        typed = type_hint is not None
        holder = [container]
        scope = self.push_frame(self.block)
        for name in _target_names(target):
            scope.renames[name] = f"{name}${self.new_temp('')[1:]}"
            self.has_renames = True

        def emit_body() -> None:
            nonlocal typed
            block = self.block
            saved = self.point
            for condition in conditions:
                cond = self.emit_cond_expr(condition)
                guard = self.new_if(cond.value, condition)
                self.push_frame(guard.then_region.block)
                self.point = InsertPoint.before(guard.then_region.block.last_op)
                self.insert_refinements(condition, cond.refinements)
            out = self.emit_expr(element)
            out_value = self.emit_expr(value) if value is not None else None
            if not typed:
                new_type = DictType(out.type, out_value.type) if out_value is not None else ListType(out.type)  # pyright: ignore[reportArgumentType, reportOptionalMemberAccess]
                holder[0] = self.retype_container(holder[0], new_type)
                typed = True
            result = holder[0].results[0]
            if out_value is not None:
                self.builtin_call(
                    "aten::_set_item",
                    node,
                    [CallArg(result, node, "self"), CallArg(out, node), CallArg(out_value, node)],
                )
            else:
                self.builtin_call(
                    "aten::append", node, [CallArg(out, node)], [], CallArg(result, node, "self")
                )
            while self.block is not block:
                self.pop_frame()
            self.point = saved

        if isinstance(iterable, SugaredValue):
            iterated = iterable.iter(self, node)
            if iterated.static_len() is None:
                self.emit_loop_common(node, emit_body, iterated, target, None)
            else:
                self.emit_unrolled_loop(node, emit_body, iterated, target)
        else:
            self.emit_for_loop(node, target, iterable, emit_body)
        assert self.frame is scope
        self.pop_frame()
        return holder[0].results[0]

    def retype_container(self, op: Operation, new_type: Attribute) -> Operation:
        """The comprehension's container gets the type of its first element."""
        assert not op.results[0].uses
        new = type(op)([], new_type)  # pyright: ignore[reportCallIssue]
        new.location = op.location
        self.rewriter.replace_op(op, new)
        return new

    # -- subscripts ----------------------------------------------------------------------------------
    def emit_subscript(self, node: ast.Subscript, type_hint: Attribute | None) -> SugaredValue:
        container = self.emit_sugared(node.value, 1)
        subscripts = _subscripts(node)
        if len(subscripts) != 1:
            return SimpleValue(
                self.emit_multidim_slicing(node, container.as_value(self, node.value), subscripts)
            )
        index_node = subscripts[0]
        if isinstance(container, (ModuleValue, SugaredTupleValue)) and not isinstance(index_node, ast.Slice):
            return container.getitem(self, node, self.emit_expr(index_node), type_hint)
        sliceable = container.as_value(self, node.value)
        if isinstance(index_node, ast.Slice):
            return SimpleValue(self.emit_basic_slice(node, sliceable, index_node))
        if isinstance(sliceable.type, TupleType):
            return SimpleValue(self.emit_tuple_index(node, sliceable, self.emit_expr(index_node)))
        if isinstance(sliceable.type, TensorType):
            return SimpleValue(self.emit_multidim_slicing(node, sliceable, subscripts))
        return container.getitem(self, node, self.emit_expr(index_node), type_hint)

    def emit_tuple_index(self, node: ast.AST, value: SSAValue, index: SSAValue) -> SSAValue:
        t = value.type
        assert isinstance(t, TupleType)
        if not isinstance(index.type, IntType):
            raise self.error(node, "tuple index must be an integer")
        position = self.constant_value(index)
        elements = t.types.data
        if position is _NOT_CONSTANT:
            if not elements or any(e != elements[0] for e in elements):
                raise self.error(node, f"Cannot index into a {type_str(t)} with a non-integer literal because we "
                                       "cannot resolve the output type")  # fmt: skip
            return self.insert(prim.TupleIndexOp(value, index, elements[0]), node).results[0]
        assert isinstance(position, int)
        adjusted = position + len(elements) if position < 0 else position
        if not 0 <= adjusted < len(elements):
            raise self.error(
                node, f"Tuple index out of range. Tuple is length {len(elements)} and index is {position}"
            )
        if adjusted != position:
            index = self.constant(adjusted, IntType(), node)
        return self.insert(prim.TupleIndexOp(value, index, elements[adjusted]), node).results[0]

    def emit_basic_slice(self, node: ast.Subscript, sliceable: SSAValue, piece: ast.Slice) -> SSAValue:
        dim = self.constant(0, IntType(), node) if isinstance(sliceable.type, TensorType) else None
        return self.emit_slice(node, sliceable, dim, piece)

    def emit_slice(
        self, node: ast.AST, sliceable: SSAValue, dim: SSAValue | None, piece: ast.Slice
    ) -> SSAValue:
        start = self.emit_expr(piece.lower) if piece.lower is not None else None
        end = self.emit_expr(piece.upper) if piece.upper is not None else None
        step = self.emit_expr(piece.step) if piece.step is not None else None
        return self.emit_slice_op(node, sliceable, dim, start, end, step)

    def emit_slice_op(self, node: ast.AST, sliceable: SSAValue, dim: SSAValue | None, start: SSAValue | None,
                      end: SSAValue | None, step: SSAValue | None) -> SSAValue:  # fmt: skip
        if isinstance(sliceable.type, TupleType):
            return self.emit_tuple_slice(node, sliceable, start, end, step)
        args = [CallArg(sliceable, node, "self")]
        if dim is not None:
            args.append(CallArg(dim, node))
        kwargs = []
        if start is not None:
            kwargs.append(CallArg(start, node, "start"))
        if end is not None:
            kwargs.append(CallArg(end, node, "end"))
        if step is not None:
            kwargs.append(CallArg(step, node, "step"))
        return self.builtin_call("aten::slice", node, args, kwargs)

    def emit_tuple_slice(self, node: ast.AST, value: SSAValue, start: SSAValue | None, end: SSAValue | None,
                         step: SSAValue | None) -> SSAValue:  # fmt: skip
        t = value.type
        assert isinstance(t, TupleType)
        length = len(t.types.data)

        def bound(v: SSAValue | None, default: int) -> int:
            if v is None:
                return default
            c = self.constant_value(v)
            if not isinstance(c, int) or isinstance(c, bool):
                raise self.error(node, "tuple slice indices must be integer constants")
            return c

        stride = bound(step, 1)
        if stride != 1:
            raise self.error(node, "tuple slices with a step are not supported by tsjit")
        begin, stop, _ = slice(bound(start, 0), bound(end, length)).indices(length)
        return self.insert(prim.TupleSliceOp(value, begin, max(begin, stop)), node).results[0]

    def emit_multidim_slicing(
        self, node: ast.AST, sliceable: SSAValue, subscripts: Sequence[ast.expr]
    ) -> SSAValue:
        if not isinstance(sliceable.type, TensorType):
            raise self.error(
                node, "Unsupported operation: attempted to use multidimensional indexing on a non-tensor type"
            )
        sliced, tensor_indices = self.emit_int_and_slice_indexing(node, sliceable, subscripts)
        if not tensor_indices:
            return sliced
        indices = self.list_of(tensor_indices, ListType(OptionalType(TensorType())))
        return self.builtin_call("aten::index", node, [CallArg(sliced, node), CallArg(indices, node)])

    def emit_int_and_slice_indexing(self, node: ast.AST, sliceable: SSAValue,
                                    subscripts: Sequence[ast.expr]) -> tuple[SSAValue, list[SSAValue]]:  # fmt: skip
        """Ints select, slices slice, None unsqueezes, `...` skips dims, tensors (and
        lists, made long tensors) index: the int/slice part is applied here, the tensor
        indices returned per dimension of the result."""
        dims: list[int] = [0] * len(subscripts)
        exprs: list[SSAValue | None] = [None] * len(subscripts)

        def handle(position: int, expr: ast.expr, dim: int, reverse: bool) -> int:
            dims[position] = dim
            if isinstance(expr, ast.Slice):
                return dim - 1 if reverse else dim + 1
            hint = NoneType() if _is_none_literal(expr) else None
            index = self.emit_expr(expr, hint)
            if isinstance(index.type, ListType):
                long = CallArg(None, expr, "dtype", 4)
                index = self.builtin_call("aten::tensor", expr, [CallArg(index, expr)], [long])
            exprs[position] = index
            if isinstance(index.type, NoneType):
                return dim if reverse else dim + 1
            if isinstance(index.type, IntType):
                return dim - 1 if reverse else dim
            if is_subtype_of(index.type, OptionalType(TensorType())):
                if reverse:
                    raise self.error(node, "Ellipses followed by tensor indexing is currently not supported")
                return dim + 1
            raise self.error(node, f"Unsupported operation: indexing tensor with unsupported index type "
                                   f"'{type_str(index.type)}'. Only ints, slices, lists and tensors are supported")  # fmt: skip

        position, dim = 0, 0
        while position < len(subscripts):
            if _is_ellipsis(subscripts[position]):
                break
            dim = handle(position, subscripts[position], dim, False)
            position += 1
        rdim = -1
        for reverse_position in range(len(subscripts) - 1, position, -1):
            if _is_ellipsis(subscripts[reverse_position]):
                raise self.error(node, "An index can only have a single ellipsis ('...')")
            rdim = handle(reverse_position, subscripts[reverse_position], rdim, True)
        tensor_indices: list[SSAValue | None] = []
        for i, expr in enumerate(subscripts):
            index = exprs[i]
            if index is None:
                if isinstance(expr, ast.Slice):
                    sliceable = self.emit_slice(
                        node, sliceable, self.constant(dims[i], IntType(), node), expr
                    )
                continue
            if isinstance(index.type, NoneType):
                sliceable = self.builtin_call("aten::unsqueeze", node,
                                              [CallArg(sliceable, node), CallArg(self.constant(dims[i], IntType(), node), node)])  # fmt: skip
            elif isinstance(index.type, IntType):
                dim_value = self.constant(dims[i], IntType(), node)
                sliceable = self.builtin_call(
                    "aten::select",
                    node,
                    [CallArg(sliceable, node), CallArg(dim_value, node), CallArg(index, expr)],
                )
            else:
                while len(tensor_indices) <= dims[i]:
                    tensor_indices.append(None)
                tensor_indices[dims[i]] = index
        filled = [v if v is not None else self.constant(None, NoneType()) for v in tensor_indices]
        return sliceable, filled


def _not_defined(name: str, branch: str) -> Callable[[], str]:
    return lambda: f"{name} is not defined in the {branch} branch"


def _none_status(value: SSAValue) -> str:
    t = value.type
    if isinstance(t, NoneType):
        return "always"
    if isinstance(t, (OptionalType, AnyType)) or isinstance(t, UnionType) and NoneType() in t.types:
        return "maybe"
    return "never"


def _is_none_literal(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _is_ellipsis(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is Ellipsis


def _is_special_name(node: ast.expr) -> bool:
    """`isinstance`, `hasattr`, `torch.jit.isinstance`: calls that may refine types."""
    if isinstance(node, ast.Attribute):
        return node.attr == "isinstance"
    return isinstance(node, ast.Name) and node.id in ("isinstance", "hasattr")


def _members(t: Attribute) -> list[Attribute]:
    """What a value of type `t` may be at run time: a union's members, an Optional's
    element or None, else `t` itself."""
    if isinstance(t, UnionType):
        return list(t.types)
    if isinstance(t, OptionalType):
        return [t.element_type, NoneType()]
    return [t]


def _maybe_instance(candidate: Attribute, actual: Attribute) -> bool:
    """Whether a value of static type `actual` may be a `candidate` at run time."""
    if is_subtype_of(candidate, actual):
        return True
    if isinstance(actual, AnyType):
        return True
    if isinstance(actual, OptionalType):
        return _maybe_instance(candidate, actual.element_type)
    if isinstance(actual, UnionType):
        return any(_maybe_instance(candidate, m) for m in actual.types)
    return False


def _subscripts(node: ast.Subscript) -> list[ast.expr]:
    return list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]


def _target_names(target: ast.expr) -> list[str]:
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [n for e in target.elts for n in _target_names(e)]
    if isinstance(target, ast.Starred):
        return _target_names(target.value)
    return []


def _chained_comparison(node: ast.Compare) -> ast.expr:
    """`a < b < c` is `a < b and b < c` (b emitted in both, as TorchScript does)."""
    parts: list[ast.expr] = []
    left = node.left
    for op, right in zip(node.ops, node.comparators):
        parts.append(ast.copy_location(ast.Compare(left, [op], [right]), node))
        left = right
    return ast.copy_location(ast.BoolOp(ast.And(), parts), node)


def _statement_name(node: ast.AST) -> str:
    return {ast.Try: "try", ast.ClassDef: "class definition", ast.FunctionDef: "nested function definition",
            ast.Global: "global", ast.Nonlocal: "nonlocal", ast.Import: "import", ast.ImportFrom: "import",
            ast.AsyncFunctionDef: "async function", ast.AsyncFor: "async for", ast.AsyncWith: "async with",
            ast.Match: "match"}.get(type(node), type(node).__name__)  # fmt: skip


def _expression_name(node: ast.AST) -> str:
    return {ast.Lambda: "lambda", ast.GeneratorExp: "generator", ast.SetComp: "set comprehension", ast.Set: "set",
            ast.Await: "await", ast.Yield: "yield", ast.YieldFrom: "yield from", ast.NamedExpr: "assignment (:=)",
            ast.Starred: "starred"}.get(type(node), type(node).__name__)  # fmt: skip


_STATEMENTS: dict[type[ast.stmt], Callable[[FunctionEmitter, Any], None]] = {
    ast.If: FunctionEmitter.emit_if, ast.While: FunctionEmitter.emit_while, ast.For: FunctionEmitter.emit_for,
    ast.Assign: FunctionEmitter.emit_assign, ast.AnnAssign: FunctionEmitter.emit_ann_assign,
    ast.AugAssign: FunctionEmitter.emit_aug_assign, ast.Expr: FunctionEmitter.emit_expression_statement,
    ast.Raise: FunctionEmitter.emit_raise, ast.Assert: FunctionEmitter.emit_assert,
    ast.Return: FunctionEmitter.emit_return_statement, ast.Continue: FunctionEmitter.emit_continue,
    ast.Break: FunctionEmitter.emit_break, ast.Pass: FunctionEmitter.emit_pass, ast.Delete: FunctionEmitter.emit_delete,
    ast.With: FunctionEmitter.emit_with, ast.FunctionDef: FunctionEmitter.emit_function_def,
}  # fmt: skip

_EXPRESSIONS: dict[type[ast.expr], Callable[[FunctionEmitter, Any, Attribute | None], SSAValue]] = {
    ast.Constant: FunctionEmitter.emit_constant, ast.BinOp: FunctionEmitter.emit_binary,
    ast.Compare: FunctionEmitter.emit_compare, ast.BoolOp: FunctionEmitter.emit_bool_op,
    ast.UnaryOp: FunctionEmitter.emit_unary, ast.IfExp: FunctionEmitter.emit_ternary,
    ast.List: FunctionEmitter.emit_list_literal, ast.Tuple: FunctionEmitter.emit_tuple_literal,
    ast.Dict: FunctionEmitter.emit_dict_literal, ast.ListComp: FunctionEmitter.emit_list_comp,
    ast.DictComp: FunctionEmitter.emit_dict_comp, ast.JoinedStr: FunctionEmitter.emit_joined_str,
}  # fmt: skip

_SPECIAL_FORMS: dict[str, Callable[[FunctionEmitter, ast.Call, Attribute | None], SugaredValue]] = {
    "isinstance": FunctionEmitter.form_isinstance, "hasattr": FunctionEmitter.form_hasattr,
    "getattr": FunctionEmitter.form_getattr, "annotate": FunctionEmitter.form_annotate,
    "unchecked_cast": FunctionEmitter.form_unchecked_cast, "tuple": FunctionEmitter.form_tuple,
    "range": FunctionEmitter.form_range, "enumerate": FunctionEmitter.form_enumerate, "zip": FunctionEmitter.form_zip,
    "len": FunctionEmitter.form_len, "list": FunctionEmitter.form_list, "dict": FunctionEmitter.form_dict,
    "uninitialized": FunctionEmitter.form_uninitialized, "__new__": FunctionEmitter.form_new,
    "fork": FunctionEmitter.form_fork,
}  # fmt: skip
