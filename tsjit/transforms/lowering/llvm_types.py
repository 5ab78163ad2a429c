"""Values across the llvm boundary: casts that join converted and unconverted IR.

Each `convert-*-to-llvm` pass rewrites only its own dialect, as MLIR's do. Where a
converted op reads a value whose producer is not converted yet (an `index` from
`arith`, a memref parameter of a `func.func`), or where an unconverted op reads a
converted result, a `builtin.unrealized_conversion_cast` stands in. When all passes have
run, `reconcile-unrealized-casts` removes the casts, which then come in inverse pairs. So
the passes can run in any order, and each one can be tested alone.

A value of type `T` is represented by one value of `native_type(T)`: `index` by an `i64`,
a memref by its descriptor (`calling_convention`), anything else by itself. Casts are
always one value to one value, the only kind xDSL's reconcile-unrealized-casts handles.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import IntegerType, UnrealizedConversionCastOp, VectorType
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint

from tsjit.transforms.lowering.calling_convention import native_type


def value_as(
    rewriter: PatternRewriter, value: SSAValue, type: Attribute, insert_point: InsertPoint | None = None
) -> SSAValue:
    """`value` as a value of `type`: itself, the input of the cast that made it, an
    earlier cast of it in the same block, or the result of a new cast (inserted before
    the matched op unless told otherwise)."""
    if value.type == type:
        return value
    owner = value.owner
    if (
        isinstance(owner, UnrealizedConversionCastOp)
        and len(owner.inputs) == 1
        and owner.inputs[0].type == type
    ):
        return owner.inputs[0]
    point = insert_point or rewriter.insertion_point
    for use in value.uses:
        cast = use.operation
        if (
            isinstance(cast, UnrealizedConversionCastOp)
            and cast.result_types == (type,)
            and cast.parent_block() is point.block
            and (point.insert_before is None or cast.is_before_in_block(point.insert_before))
        ):
            return cast.results[0]
    cast, result = UnrealizedConversionCastOp.cast_one(value, type)
    rewriter.insert(cast, point)
    return result


def native_value(
    rewriter: PatternRewriter, value: SSAValue, insert_point: InsertPoint | None = None
) -> SSAValue:
    """`value` as its llvm-dialect representation (an `index` as `i64`, ...)."""
    return value_as(rewriter, value, native_type(value.type), insert_point)


def native_operands(rewriter: PatternRewriter, op: Operation) -> list[SSAValue]:
    return [native_value(rewriter, v) for v in op.operands]


def replace_op(
    rewriter: PatternRewriter,
    op: Operation,
    new_ops: Sequence[Operation],
    new_values: Sequence[SSAValue] | None = None,
) -> None:
    """Replaces `op` by `new_ops`, whose values (by default the last op's results) may
    have native types: they are cast back to the types `op`'s users expect."""
    values = list(new_ops[-1].results if new_values is None else new_values)
    casts: list[Operation] = []
    for i, (old, new) in enumerate(zip(op.results, values, strict=True)):
        if new.type != old.type:
            cast = UnrealizedConversionCastOp.get([new], [old.type])
            casts.append(cast)
            values[i] = cast.results[0]
    rewriter.replace(op, [*new_ops, *casts], values)


def intrinsic_name(base: str, type: Attribute) -> str:
    """LLVM's overloaded intrinsic name: `llvm.smax` on `i64` is `llvm.smax.i64`, on
    `vector<4xf32>` it is `llvm.smax.v4f32`."""
    if isinstance(type, VectorType):
        return f"{base}.v{type.element_count()}{_scalar_suffix(type.element_type)}"
    return f"{base}.{_scalar_suffix(type)}"


def _scalar_suffix(type: Attribute) -> str:
    if isinstance(type, IntegerType):
        return f"i{type.width.data}"
    if str(type) in ("f16", "bf16", "f32", "f64"):
        return str(type)
    raise ValueError(f"no LLVM intrinsic overload for {type}")
