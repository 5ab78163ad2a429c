"""The memory effect of an operator overload, from its schema and what it cannot say.

Alias annotations tell reads from writes (`Tensor(a!)` is written). They do not tell
that `aten::warn` prints, that `aten::manual_seed` resets the generator, or that two
`aten::rand` calls differ: these lists, after PyTorch's `Node::hasSideEffects` and
`SchemaInfo::is_nondeterministic`, do.
"""

from __future__ import annotations

from xdsl.traits import MemoryEffectKind

from tsjit.dialects.schema.model import FunctionSchema

SIDE_EFFECTING_OPERATORS = frozenset({
    "prim::PythonOp", "prim::IgnoredPythonOp", "prim::Print", "prim::RaiseException",
    "aten::warn", "aten::save", "aten::manual_seed", "aten::seed", "aten::wait",
    "prim::AddStatValue", "prim::TimePoint", "prim::CallFunction", "prim::CallMethod",
    "prim::BailoutTemplate", "prim::BailOut", "prim::rpc_async", "prim::rpc_sync",
    "prim::rpc_remote", "prim::Enter", "prim::Exit",
    "cuda::set_stream", "cuda::_set_device", "cuda::_current_device", "cuda::synchronize",
    "aten::set_grad_enabled", "aten::is_grad_enabled", "aten::backward", "aten::grad",
})  # fmt: skip
"""Operators whose effect reaches beyond their operands (I/O, control, global state)."""

NONDETERMINISTIC_OPERATORS = frozenset({
    "aten::dropout", "aten::feature_dropout", "aten::alpha_dropout", "aten::feature_alpha_dropout",
    "aten::native_dropout", "aten::_fused_dropout", "aten::bernoulli", "aten::multinomial",
    "aten::normal", "aten::poisson", "aten::binomial", "aten::rrelu", "aten::rrelu_with_noise",
    "aten::rand", "aten::rand_like", "aten::randint", "aten::randint_like", "aten::randn",
    "aten::randn_like", "aten::randperm", "aten::_standard_gamma", "aten::_sample_dirichlet",
    "aten::uniform", "aten::random", "aten::exponential", "aten::geometric", "aten::cauchy",
    "aten::log_normal",
})  # fmt: skip
"""Operators drawing from the random generator (in-place `_` variants included)."""


def is_nondeterministic(schema: FunctionSchema) -> bool:
    """Whether two calls with equal operands may give different results."""
    return schema.name.removesuffix("_") in NONDETERMINISTIC_OPERATORS or any(
        a.schema_type.spelled().removesuffix("?") == "Generator" for a in schema.arguments
    )


def schema_effect(schema: FunctionSchema) -> MemoryEffectKind | None:
    """WRITE when the overload writes an operand or the generator state, READ when it
    only reads, None when unknown: side-effecting operators and variadic ones, whose
    schema (`prim::Print(...) -> ()`) says nothing about what they do."""
    if schema.name in SIDE_EFFECTING_OPERATORS or schema.is_vararg or schema.is_varret:
        return None
    if schema.is_mutable or is_nondeterministic(schema):
        return MemoryEffectKind.WRITE
    return MemoryEffectKind.READ
