"""memref.prefetch: MLIR's syntax, and what the verifier rejects."""

from __future__ import annotations

import pytest
from xdsl.utils.exceptions import VerifyException

from tsjit.context import make_context
from tsjit.formats.mlir import parse_mlir

PREFETCH = """
func.func @f(%m: memref<?x?xf32>, %i: index) {{
  memref.prefetch {access} : memref<?x?xf32>
  func.return
}}
"""


@pytest.mark.parametrize(
    "access",
    ["%m[%i, %i], read, locality<3>, data", "%m[%i, %i], write, locality<0>, instr"],
)
def test_prints_as_parsed(access):
    module = parse_mlir(make_context(), PREFETCH.format(access=access))
    module.verify()
    assert f"memref.prefetch {access} : memref<?x?xf32>" in str(module)


@pytest.mark.parametrize(
    ("access", "message"),
    [
        ("%m[%i], read, locality<3>, data", "expected 2 indices, got 1"),
        ("%m[%i, %i], read, locality<4>, data", "locality must be 0, 1, 2 or 3"),
    ],
)
def test_verifier(access, message):
    module = parse_mlir(make_context(), PREFETCH.format(access=access))
    with pytest.raises(VerifyException, match=message):
        module.verify()
