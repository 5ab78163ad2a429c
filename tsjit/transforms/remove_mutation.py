"""remove-mutation: PyTorch's `RemoveMutation`, in-place ops made functional where
alias analysis proves nobody can tell.

    %z = aten.clone %x, %none                 %z = aten.clone %x, %none
    %a = aten.add_ %z, %one, %one       →     %a = aten.add %z, %one, %one
    %b = aten.mul_ %z, %y                     %b = aten.mul %a, %y
    ... %z ...                                ... %b ...

    %l = prim.ListConstruct %p                %l = prim.ListConstruct %p, %q
    %l2 = aten.append %l, %q            →     ... %l ...

An in-place op `name_` whose schema writes only its first argument becomes the
operator `name` with the same arguments (the pairs are read off the schema table;
`zero_` and `fill_` map to `zeros_like` and `full_like`); the mutated value's later uses
take the new result. That is safe when the mutated value is new memory (made in this
graph by an op whose output aliases none of its inputs, or an If whose branches each
make it) and its creation can move right before the mutation: then no other value can
observe the write. The rule is PyTorch's, with one more condition: another tensor
operand must have the mutated tensor's known dtype, since the functional op would
promote where the in-place op keeps the dtype. Like PyTorch's pass, it may turn an
in-place op that would fail (an int tensor plus a float) into one that succeeds.
`append` to a list built by ListConstruct joins the construct likewise.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint

from tsjit.dialects.aten import OperatorOp, create_op, schema_of
from tsjit.dialects.prim import ConstantOp, IfOp, ListConstructOp
from tsjit.dialects.schema import FunctionSchema, schemas_for
from tsjit.dialects.types import TensorType
from tsjit.transforms.analysis.alias_analysis import AliasDb
from tsjit.transforms.pass_logging import TsjitPass
from tsjit.transforms.shape_propagation import EXACT_TYPE_USERS

SPECIAL_FUNCTIONAL_VARIANTS: dict[str, str] = {
    "aten::zero_": "aten::zeros_like",
    "aten::fill_.Scalar": "aten::full_like",
}
"""In-place overloads whose functional form has another name; the functional
operator takes the in-place operands first and its defaults for the rest."""

RESULT_FOLLOWS_SELF = frozenset({"aten::copy", "aten::zeros_like", "aten::full_like"})
"""Functional operators whose result has `self`'s dtype whatever the other tensors."""


@functools.cache
def functional_variant(schema: FunctionSchema) -> FunctionSchema | None:
    """The out-of-place overload computing what in-place `schema` writes into its first
    argument: `add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1)` gives
    `add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1)`."""
    if (special := SPECIAL_FUNCTIONAL_VARIANTS.get(schema.qualified_name)) is not None:
        name, _, overload = special.partition(".")
        return next((s for s in schemas_for(name) if s.overload_name == overload), None)
    if (
        schema.namespace != "aten"
        or not schema.name.endswith("_")
        or schema.name.endswith("__")
        or schema.mutated_arguments() != (0,)
        or len(schema.returns) != 1
        or schema.is_vararg
    ):
        return None
    shape = [(a.schema_type, a.kwarg_only) for a in schema.arguments]
    for candidate in schemas_for(schema.name.removesuffix("_")):
        if (
            candidate.overload_name == schema.overload_name
            and [(a.schema_type, a.kwarg_only) for a in candidate.arguments] == shape
            and not candidate.is_mutable
            and len(candidate.returns) == 1
            and candidate.returns[0].alias_info is None
        ):
            return candidate
    return None


def _result_type(op: Operation) -> TensorType:
    """The type of the functional op's result: the mutated tensor's, except that it
    requires grad when a tensor written into it may (PyTorch makes `w.copy_(z)` require
    grad when `z` does)."""
    mutated = op.operands[0].type
    assert isinstance(mutated, TensorType)
    if mutated.grad is not False:
        return mutated
    others = [v.type.grad for v in op.operands[1:] if isinstance(v.type, TensorType)]
    if all(g is False for g in others):
        return mutated
    return mutated.with_(requires_grad=True if True in others else None)


@dataclass
class InPlaceToFunctional(RewritePattern):
    """`x.add_(y)` on new memory → `x.add(y)`, later uses of `x` renamed."""

    db: AliasDb

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: OperatorOp, rewriter: PatternRewriter, /) -> None:
        schema = schema_of(op)
        if schema is None or len(op.results) != 1 or not op.operands:
            return
        functional = functional_variant(schema)
        if functional is None or not self.keeps_dtype(op, functional):
            return
        mutated, written = op.operands[0], op.results[0]
        if not isinstance(mutated.type, TensorType) or (written.uses and written.type != mutated.type):
            return  # the new value takes the place of both
        result_type = _result_type(op)
        if result_type != mutated.type and any(
            isinstance(use.operation, EXACT_TYPE_USERS) for use in mutated.uses if use.operation is not op
        ):
            return  # a signature needs the old type
        if not _make_atomic(self.db, mutated, op):
            return
        operands = list(op.operands)
        defaults: dict[object, SSAValue] = {}
        for argument in functional.arguments[len(operands) :]:
            if argument.default not in defaults:
                constant = ConstantOp.from_value(argument.default)
                rewriter.insert(constant, InsertPoint.before(op))
                defaults[argument.default] = constant.result
            operands.append(defaults[argument.default])
        new = create_op(functional.name.replace("::", "."), operands, [result_type], op.location)
        rewriter.insert(new, InsertPoint.before(op))
        result = new.results[0]
        result.name_hint = written.name_hint or mutated.name_hint
        rewriter.replace_uses_with_if(mutated, result, lambda use: use.operation not in (op, new))
        self.db.replace_value(mutated, result)
        self.db.forget_op(op)
        rewriter.replace(op, [], [result])

    @staticmethod
    def keeps_dtype(op: Operation, functional: FunctionSchema) -> bool:
        """Whether the functional result has the dtype the in-place op writes: every
        other tensor operand has `self`'s known dtype."""
        if functional.name in RESULT_FOLLOWS_SELF:
            return True
        self_type = op.operands[0].type
        others = [v.type for v in op.operands[1:] if isinstance(v.type, TensorType)]
        if not others:
            return True
        dtype = self_type.element_type if isinstance(self_type, TensorType) else None
        return dtype is not None and all(t.element_type == dtype for t in others)  # pyright: ignore[reportAttributeAccessIssue]


@dataclass
class AppendToListConstruct(RewritePattern):
    """`l = [a]; l.append(b)` → `l = [a, b]` when nothing uses `l` in between."""

    db: AliasDb

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: OperatorOp, rewriter: PatternRewriter, /) -> None:
        if op.name != "aten.append" or len(op.operands) != 2:
            return
        listed, element = op.operands
        construct = listed.owner
        if not isinstance(construct, ListConstructOp) or not self.db.move_before_topologically_valid(
            construct, op
        ):
            return
        grown = ListConstructOp([*construct.elements, element], construct.result.type)
        grown.location = construct.location
        grown.result.name_hint = listed.name_hint
        rewriter.insert(grown, InsertPoint.before(op))
        self.db.replace_value(listed, grown.result)
        self.db.forget_op(op)
        rewriter.replace_all_uses_with(listed, grown.result)
        rewriter.replace(op, [], [grown.result])
        rewriter.erase(construct)


def _make_atomic(db: AliasDb, mutated: SSAValue, mutation: Operation) -> bool:
    """Moves the creation of `mutated` right before `mutation` when `mutated` is new
    memory nobody else can reach (PyTorch's `tryMakeCreationAndMutationAtomic` and
    `tryMakeUnaliasedIfOutputAndMutationAtomic`)."""
    creation = mutated.owner
    if not isinstance(creation, Operation):
        return False  # a graph input or block argument
    if isinstance(creation, IfOp):
        index = mutated.index  # pyright: ignore[reportAttributeAccessIssue]
        branches = [region.block.last_op.operands[index] for region in creation.regions]  # pyright: ignore[reportOptionalMemberAccess]
        if any(value.has_more_than_one_use() or not _is_new_memory(db, value) for value in branches):
            return False
    elif not _is_new_memory(db, mutated):
        return False
    return db.move_before_topologically_valid(creation, mutation)


def _is_new_memory(db: AliasDb, value: SSAValue) -> bool:
    """Made by an op with no regions or side effects whose inputs it cannot alias."""
    creation = value.owner
    return (
        isinstance(creation, Operation)
        and not creation.regions
        and not db.has_side_effects(creation)
        and not db.may_contain_alias(creation.operands, [value])
    )


@dataclass(frozen=True)
class RemoveMutationPass(TsjitPass):
    """In-place tensor ops and list appends made functional (see the module doc)."""

    name = "remove-mutation"

    def run(self, ctx: Context, op: ModuleOp) -> None:
        for graph in self.graphs(op):
            db = AliasDb(graph)
            self.rewrite(graph, [InPlaceToFunctional(db), AppendToListConstruct(db)], apply_recursively=False)
