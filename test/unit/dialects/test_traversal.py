"""`nested_ops` lists the same ops as xDSL's walk, in the same order."""

from __future__ import annotations

from tsjit.context import make_context
from tsjit.dialects.traversal import nested_ops
from tsjit.formats.mlir import parse_mlir

T = "!ts.tensor"


def test_nested_ops_is_the_walk_without_its_root():
    text = f"""func.func @f(%x : {T}, %c : !ts.bool, %n : !ts.int) -> {T} {{
  %true = prim.Constant true : !ts.bool
  %a = prim.If %c -> ({T}) {{
    %r = prim.Loop %n, %true iter(%i) carried(%u = %x : {T}) -> ({T}) {{
      %u2 = aten.neg %u : ({T}) -> {T}
      prim.Yield %true, %u2 : !ts.bool, {T}
    }}
    prim.Yield %r : {T}
  }} else {{
    %y = aten.relu %x : ({T}) -> {T}
    prim.Yield %y : {T}
  }}
  func.return %a : {T}
}}
func.func @g(%x : {T}) -> {T} {{
  func.return %x : {T}
}}"""
    module = parse_mlir(make_context(), text, "walk.mlir")
    walked = list(module.walk())[1:]
    assert len(walked) == 12
    assert [id(op) for op in nested_ops(module)] == [id(op) for op in walked]
    loop = next(op for op in walked if op.name == "prim.Loop")
    assert [op.name for op in nested_ops(loop)] == ["aten.neg", "prim.Yield"]
