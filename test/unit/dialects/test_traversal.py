"""`nested_ops` lists the same ops as xDSL's walk, in the same order, and `nested_ops_of`
those of given kinds; `child_blocks` and `region_block` read the blocks xDSL's accessors
give."""

from __future__ import annotations

from xdsl.dialects.func import FuncOp
from xdsl.ir import Block, Operation, Region

from tsjit.context import make_context
from tsjit.dialects import prim
from tsjit.dialects.ir_surgery import drop_operands, replace_all_uses
from tsjit.dialects.traversal import child_blocks, nested_ops, nested_ops_of, region_block
from tsjit.dialects.types import BoolType
from tsjit.formats.mlir import parse_mlir

T = "!ts.tensor"


def test_nested_ops_is_the_walk_without_its_root_and_nested_ops_of_its_filter():
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
    for kinds in ((prim.YieldOp,), (prim.IfOp, prim.LoopOp), (prim.YieldOp, FuncOp), (Operation,)):
        assert [id(op) for op in nested_ops_of(module, kinds)] == [id(op) for op in walked if isinstance(op, kinds)]
    assert [op.name for op in nested_ops_of(loop, (prim.YieldOp,))] == ["prim.Yield"]


def test_replace_all_uses_moves_every_use_and_keeps_the_use_lists_whole():
    text = f"""func.func @f(%x : {T}, %y : {T}) -> {T} {{
  %a = aten.mul %x, %x : ({T}, {T}) -> {T}
  %b = aten.mul %a, %x : ({T}, {T}) -> {T}
  func.return %b : {T}
}}"""
    module = parse_mlir(make_context(), text, "uses.mlir")
    graph = module.body.block.first_op
    x, y = graph.body.block.args  # pyright: ignore[reportAttributeAccessIssue]
    mul = graph.body.block.first_op  # pyright: ignore[reportAttributeAccessIssue]
    second = mul.next_op
    replace_all_uses(x, y)
    assert list(mul.operands) == [y, y] and list(second.operands) == [mul.results[0], y]
    assert not x.uses
    assert sorted((id(use.operation) == id(mul), use.index) for use in y.uses) == [(False, 1), (True, 0), (True, 1)]
    assert y.uses.get_length() == 3
    module.verify()


def test_drop_operands_unlinks_the_dropped_and_renumbers_the_kept_uses():
    text = f"""func.func @f(%x : {T}, %y : {T}, %z : {T}) -> ({T}, {T}) {{
  func.return %x, %y : {T}, {T}
}}"""
    module = parse_mlir(make_context(), text, "drop.mlir")
    graph = module.body.block.first_op
    x, y, z = graph.body.block.args  # pyright: ignore[reportAttributeAccessIssue]
    ret = graph.body.block.last_op  # pyright: ignore[reportAttributeAccessIssue]
    ret.operands = [x, y, z, y]
    drop_operands(ret, [0, 2])
    assert list(ret.operands) == [y, y] and not x.uses and not z.uses
    assert [use.index for use in ret._operand_uses] == [0, 1]  # pyright: ignore[reportPrivateUsage]
    assert sorted(use.index for use in y.uses) == [0, 1] and y.uses.get_length() == 2


def test_child_blocks_and_region_block_follow_the_regions():
    cond = Block(arg_types=[BoolType()]).args[0]
    then_block, else_block = Block([prim.YieldOp()]), Block([prim.YieldOp()])
    branch = prim.IfOp(cond, [], Region(then_block), Region(else_block))
    assert child_blocks(branch) == [then_block, else_block]
    assert region_block(branch, 0) is then_block and region_block(branch, 1) is else_block
    assert child_blocks(prim.YieldOp()) == []
