"""The gradient table compiled: a forward and a backward graph per operator overload.

A formula of `tsjit/frontend/library/gradients.py` is one function with a nested
`backward` (PyTorch's symbolic_script closures). TorchScript has no closures, so the
function is compiled as two graphs, split on its syntax tree:

- the forward: the body without the nested def, returning the operator's results
  followed by every name `backward` reads from it (the captured values);
- the backward: the nested def's body, taking the result gradients and then the
  captured values as parameters, and returning one gradient per schema argument.

Arguments are typed by the overload's schema, captured values by what the forward
returns for them; helper functions are inlined. Each overload compiles once per process
on first use; callers clone the bodies they inline.

    formula = formula_for(schema_of(op))    # None: the operator has no formula
    formula.forward, formula.backward       # func.func graphs
"""

from __future__ import annotations

import ast
import copy
import functools
from dataclasses import dataclass

from xdsl.dialects import func
from xdsl.ir import Attribute, SSAValue

from tsjit.diagnostics import SourceLocation, TsjitError
from tsjit.dialects.prim import ConstantOp, TupleConstructOp, TupleUnpackOp
from tsjit.dialects.schema import FunctionSchema, schemas_for
from tsjit.dialects.types import NoneType, TupleType

GRADIENT_SOURCE = "tsjit/frontend/library/gradients.py"


@dataclass(frozen=True)
class Formula:
    """The compiled gradient of one overload (see the module docstring).

    `forward` takes the schema's arguments and returns `n_results` results, then the
    captured values; `backward` takes `n_grads` result gradients (of the first
    results; a list result's gradient is a list), then the captured values, and returns
    one gradient per argument (a `prim.Constant` None where there is none)."""

    overload: str
    schema: FunctionSchema
    forward: func.FuncOp
    backward: func.FuncOp
    n_results: int
    n_grads: int
    captures: tuple[str, ...]

    def differentiable_arguments(self) -> tuple[int, ...]:
        """The arguments whose returned gradient is not the constant None."""
        returned = self.backward.body.block.last_op
        assert isinstance(returned, func.ReturnOp)
        return tuple(i for i, v in enumerate(returned.operands) if not _is_none(v))


def overload_name(schema: FunctionSchema) -> str:
    return f"{schema.name}.{schema.overload_name}" if schema.overload_name else schema.name


def has_formula(schema: FunctionSchema) -> bool:
    """Whether the table differentiates this overload (or its out-of-place form)."""
    from tsjit.frontend.library.gradients import FORMULAS

    return _table_key(schema) in FORMULAS


def is_non_differentiable(schema: FunctionSchema) -> bool:
    """Whether the operator's results never require grad (see `NON_DIFFERENTIABLE`)."""
    from tsjit.frontend.library.gradients import NON_DIFFERENTIABLE

    return schema.name in NON_DIFFERENTIABLE


def non_differentiable_outputs(schema: FunctionSchema) -> tuple[int, ...]:
    """The positions of the floating results that never require grad (see
    `NON_DIFFERENTIABLE_OUTPUTS`)."""
    from tsjit.frontend.library.gradients import NON_DIFFERENTIABLE_OUTPUTS

    return NON_DIFFERENTIABLE_OUTPUTS.get(schema.name, ())


def not_differentiable_arguments(schema: FunctionSchema) -> tuple[int, ...]:
    """The positions of the tensor arguments the overload is not differentiable in."""
    from tsjit.frontend.library.gradients import NOT_DIFFERENTIABLE_ARGUMENTS

    names = NOT_DIFFERENTIABLE_ARGUMENTS.get(_table_key(schema), ())
    return tuple(i for i, a in enumerate(schema.arguments) if a.name in names)


def not_differentiable_message(schema: FunctionSchema, position: int) -> str:
    """PyTorch's error for an argument that requires grad but cannot have one."""
    name = schema.name.partition("::")[2]
    return (f"The function '{name}' is not differentiable with respect to argument "
            f"'{schema.arguments[position].name}'. This input cannot have requires_grad True.")  # fmt: skip


def formula_for(schema: FunctionSchema) -> Formula | None:
    """The compiled formula of `schema`'s overload; that of the out-of-place overload
    for an in-place one (`add_.Tensor` differentiates as `add.Tensor`)."""
    if not has_formula(schema):
        return None
    return _compiled(_table_key(schema))


def out_of_place(schema: FunctionSchema) -> FunctionSchema | None:
    """The functional overload of an in-place one (`aten::add_.Tensor` -> `aten::add.Tensor`)."""
    if not schema.name.endswith("_") or schema.name.endswith("__"):
        return schema
    name = schema.name[:-1]
    for candidate in schemas_for(name):
        if candidate.overload_name == schema.overload_name:
            return candidate
    return None


def _table_key(schema: FunctionSchema) -> str:
    functional = out_of_place(schema)
    return overload_name(functional if functional is not None else schema)


@functools.cache
def _compiled(overload: str) -> Formula:
    from tsjit.frontend.library.gradients import FORMULAS

    name, _, overload_suffix = overload.partition(".")
    schema = next((s for s in schemas_for(name) if s.overload_name == overload_suffix), None)
    if schema is None:
        raise TsjitError(f"{GRADIENT_SOURCE}: the gradient table names {overload}, which the schema table lacks")
    return _FormulaCompiler(overload, schema, FORMULAS[overload]).compile()


class _FormulaCompiler:
    def __init__(self, overload: str, schema: FunctionSchema, function: object):
        from tsjit.frontend.compilation import CompilationUnit

        self.overload = overload
        self.schema = schema
        self.function = function
        self.unit = CompilationUnit()
        filename = function.__code__.co_filename  # pyright: ignore[reportAttributeAccessIssue]
        self.unit.sources[filename] = _table_source(filename)
        self.source, self.definition = self.unit.definition_of(function, None)  # pyright: ignore[reportArgumentType]
        self.symbol = overload.replace("::", "_").replace(".", "_")

    def error(self, node: ast.AST, message: str) -> TsjitError:
        return TsjitError(f"gradient of {self.overload}: {message}", self.source.location(node))

    def compile(self) -> Formula:
        from tsjit.frontend.compilation import cleanup

        forward_def, backward_def, results, captures = self.split()
        forward = self.compile_def("forward", forward_def, self.argument_params(forward_def))
        returned = forward.function_type.outputs.data[0]
        n_results = len(results)
        if not isinstance(returned, TupleType) or len(returned.types) != n_results + len(captures):
            raise self.error(self.definition, "the forward must return the results and the saved values")
        capture_types = list(returned.types)[n_results:]
        grad_args = backward_def.args.args
        if len(grad_args) > len(self.schema.returns):
            raise self.error(backward_def, f"backward takes {len(grad_args)} gradients but {self.overload} has "
                                           f"{len(self.schema.returns)} results")  # fmt: skip
        grad_types = [r.type for r in self.schema.returns[: len(grad_args)]]
        backward_def.args.args = [*grad_args, *(ast.arg(name) for name in captures)]
        for arg in backward_def.args.args:
            ast.copy_location(arg, backward_def)
        backward = self.compile_def("backward", backward_def,
                                    list(zip([a.arg for a in backward_def.args.args], [*grad_types, *capture_types])))  # fmt: skip
        cleanup(self.unit.module, ("inline", "lower-tuples", "dead-code-elimination"))
        _flatten_return(forward)
        _flatten_return(backward)
        returned_grads = backward.body.block.last_op.operands  # pyright: ignore[reportOptionalMemberAccess]
        if len(returned_grads) != len(self.schema.arguments):
            raise self.error(backward_def, f"backward returns {len(returned_grads)} gradients but {self.overload} "
                                           f"takes {len(self.schema.arguments)} arguments")  # fmt: skip
        for op in (forward, backward):
            op.detach()
        return Formula(self.overload, self.schema, forward, backward, n_results, len(grad_args), tuple(captures))

    def argument_params(self, definition: ast.FunctionDef) -> list[tuple[str, Attribute]]:
        names = [a.arg for a in definition.args.args]
        expected = [a.name for a in self.schema.arguments]
        if names != expected:
            raise self.error(definition, f"parameters ({', '.join(names)}) are not the schema's arguments "
                                         f"({', '.join(expected)}) of {self.schema}")  # fmt: skip
        return [(a.name, a.type) for a in self.schema.arguments]

    def compile_def(self, part: str, definition: ast.FunctionDef, params: list[tuple[str, Attribute]]) -> func.FuncOp:
        from tsjit.frontend.compilation import FunctionSignature, FunctionSpec
        from tsjit.frontend.resolver import Scope
        from tsjit.frontend.schema_matching import Param

        signature = FunctionSignature([Param(name, t) for name, t in params], None)
        spec = FunctionSpec(f"{self.symbol}_{part}", self.source, definition, Scope.of_function(self.function),  # pyright: ignore[reportArgumentType]
                            signature, list(definition.args.args))  # fmt: skip
        return self.unit.compile_spec((self.overload, part), spec, None, None).op

    def split(self) -> tuple[ast.FunctionDef, ast.FunctionDef, list[ast.expr], list[str]]:
        """The forward and backward defs, the result expressions, the captured names."""
        definition = copy.deepcopy(self.definition)
        definition.decorator_list = []
        nested = [s for s in definition.body if isinstance(s, ast.FunctionDef) and s.name == "backward"]
        if len(nested) != 1:
            raise self.error(definition, "a formula defines exactly one nested 'def backward'")
        backward_def = nested[0]
        last = definition.body[-1]
        if not (
            isinstance(last, ast.Return)
            and isinstance(last.value, ast.Tuple)
            and len(last.value.elts) == 2
            and isinstance(last.value.elts[1], ast.Name)
            and last.value.elts[1].id == "backward"
        ):
            raise self.error(last, "a formula ends with 'return <results>, backward'")
        result = last.value.elts[0]
        n_results = len(self.schema.returns)
        if n_results > 1:
            if not isinstance(result, ast.Tuple) or len(result.elts) != n_results:
                raise self.error(last, f"{self.overload} has {n_results} results: return them as a tuple")
            results = list(result.elts)
        else:
            results = [result]
        captures = self.captured_names(definition, backward_def)
        forward_def = definition
        forward_def.body = [s for s in definition.body[:-1] if s is not backward_def]
        returned = ast.Tuple([*results, *(ast.Name(n, ast.Load()) for n in captures)], ast.Load())
        forward_def.body.append(ast.copy_location(ast.Return(ast.copy_location(returned, last)), last))
        ast.fix_missing_locations(forward_def)
        backward_def = copy.deepcopy(backward_def)
        backward_def.name = f"{self.definition.name}_backward"
        return forward_def, backward_def, results, captures

    @staticmethod
    def captured_names(outer: ast.FunctionDef, inner: ast.FunctionDef) -> list[str]:
        """Names `inner` reads that the outer function binds (its parameters and
        locals), in order of first reading."""
        bound = {a.arg for a in outer.args.args}
        for statement in outer.body:
            if statement is inner:
                continue
            for node in ast.walk(statement):
                if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                    bound.add(node.id)
        own = {a.arg for a in inner.args.args}
        for node in ast.walk(inner):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                own.add(node.id)
        captured: list[str] = []
        for node in ast.walk(inner):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                if node.id in bound and node.id not in own and node.id not in captured:
                    captured.append(node.id)
        return captured


@functools.cache
def _table_source(path: str) -> object:
    """The table's source, read and parsed once for every formula compiled from it."""
    from tsjit.frontend.source import SourceFile

    with open(path, encoding="utf-8") as file:
        return SourceFile(GRADIENT_SOURCE, file.read())


def _flatten_return(function: func.FuncOp) -> None:
    """`func.return %t` of a tuple built right there becomes `func.return` of its
    elements, so that callers map results by position."""
    from xdsl.rewriter import InsertPoint, Rewriter

    returned = function.body.block.last_op
    assert isinstance(returned, func.ReturnOp)
    if len(returned.operands) != 1 or not isinstance(returned.operands[0].type, TupleType):
        return
    value = returned.operands[0]
    owner = value.owner
    if isinstance(owner, TupleConstructOp):
        elements = list(owner.operands)
    else:
        unpack = TupleUnpackOp(value)
        Rewriter.insert_op(unpack, InsertPoint.before(returned))
        elements = list(unpack.results)
    Rewriter.replace_op(returned, func.ReturnOp(*elements))
    if isinstance(owner, TupleConstructOp) and not owner.result.uses:
        Rewriter.erase_op(owner)
    function.function_type = func.FunctionType.from_lists(
        function.function_type.inputs.data, [v.type for v in elements]
    )


def _is_none(value: SSAValue) -> bool:
    owner = value.owner
    return isinstance(value.type, NoneType) and (isinstance(owner, ConstantOp) or not isinstance(owner, func.FuncOp))


def formula_location(formula: Formula) -> SourceLocation | None:
    return SourceLocation.of_op(formula.forward)
