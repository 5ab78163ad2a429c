"""Every kernel is registered under an overload of the schema table and accepts that
overload's arguments positionally, as the interpreter passes them."""

from __future__ import annotations

import inspect

import pytest

from tsjit.dialects.schema import schemas_for
from tsjit.runtime.kernels import KERNELS

# Structural prim ops without schemas that follow the kernels' calling convention.
SCHEMALESS = frozenset(
    {"prim::ListConstruct", "prim::TupleConstruct", "prim::DictConstruct", "prim::ListUnpack"}
)


def schema(name: str):
    operator, _, overload = name.partition(".")
    return next((s for s in schemas_for(operator) if s.overload_name == overload), None)


@pytest.mark.parametrize("name", sorted(set(KERNELS) - SCHEMALESS))
def test_kernel_matches_its_schema(name):
    found = schema(name)
    assert found is not None, f"{name} is not an overload in the schema table"
    try:
        signature = inspect.signature(KERNELS[name])
    except ValueError:  # the builtins min, max and dict: no inspectable signature, any positional args
        return
    signature.bind(*range(len(found.arguments)))
    if found.is_vararg:
        assert any(p.kind is p.VAR_POSITIONAL for p in signature.parameters.values())


def test_schemaless_kernels_are_really_schemaless():
    assert all(schema(name) is None for name in SCHEMALESS)
