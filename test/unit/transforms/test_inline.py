"""The inliner refuses a call that does not match its callee with a located error."""

from __future__ import annotations

import pytest

from tsjit.context import make_context
from tsjit.diagnostics import TsjitError
from tsjit.formats.mlir import parse_mlir
from tsjit.transforms.inline import InlinePass

T = "!ts.tensor"


@pytest.mark.parametrize(
    ("callee", "call", "message"),
    [
        (
            f"(%x : {T}, %p : !ts.float) -> {T}",
            f"func.call @normalize(%x) : ({T}) -> {T}",
            "call of 'normalize' passes 1 argument but it takes 2",
        ),
        (
            f"(%x : {T}, %p : !ts.float) -> {T}",
            f"func.call @normalize(%x, %f, %f) : ({T}, !ts.float, !ts.float) -> {T}",
            "call of 'normalize' passes 3 arguments but it takes 2",
        ),
    ],
)
def test_a_call_that_does_not_match_its_callee_is_a_located_error(callee: str, call: str, message: str):
    text = f"""func.func @normalize{callee} {{
  func.return %x : {T}
}}
func.func @forward(%x : {T}) -> {T} {{
  %f = prim.Constant 2.0 : !ts.float
  %r = {call}
  func.return %r : {T}
}}"""
    module = parse_mlir(make_context(), text, "calls.mlir")  # unverified, as linked graph text can be
    with pytest.raises(TsjitError) as caught:
        InlinePass().apply(make_context(), module)
    assert str(caught.value) == f"calls.mlir:6:3: {message}"
