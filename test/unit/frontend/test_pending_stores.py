"""The emitter holds a block's Stores back until something can observe them: the raw
graph of straight-line code has none, and control flow still finds each variable's
Store before it."""

from __future__ import annotations

import pytest
from xdsl.dialects import func
from xdsl.ir import Block

from tsjit.frontend import compilation
from tsjit.frontend.script import script_file_text


def raw_ops(body: str, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The emitted graph of `forward(x, n)` before SSA conversion, one line per op
    (`prim.Store x`), nested blocks indented."""
    seen: list[str] = []
    finish = compilation.finish

    def record(function: func.FuncOp) -> None:
        if function.sym_name.data == "forward" and not seen:
            describe(function.body.block, seen, "")
        finish(function)

    monkeypatch.setattr(compilation, "finish", record)
    source = "import torch\n\n\ndef forward(x: int, n: int) -> int:\n" + "".join(f"    {line}\n" for line in body.splitlines())
    script_file_text(source, "stores.py")
    return seen


def describe(block: Block, out: list[str], indent: str) -> None:
    for op in block.ops:
        name = op.properties.get("name")
        out.append(indent + op.name + (f" {name.data}" if name is not None else ""))  # pyright: ignore[reportAttributeAccessIssue]
        for region in op.regions:
            for nested in region.blocks:
                describe(nested, out, indent + "  ")


def test_straight_line_code_emits_no_stores(monkeypatch: pytest.MonkeyPatch):
    ops = raw_ops("y = x * 2\nx = y + n\nx = x - 1\nreturn x", monkeypatch)
    assert not [op for op in ops if "prim.Store" in op or "prim.Load" in op]


def test_stores_come_before_the_control_flow_that_merges_them(monkeypatch: pytest.MonkeyPatch):
    ops = raw_ops("y = x + 1\nfor i in range(n):\n    y = y + i\n    if y > 5:\n        continue\n    x = x + y\nreturn x", monkeypatch)
    loop = ops.index("prim.Loop")
    assert {"prim.Store x", "prim.Store y"} <= set(ops[:loop])
    body = ops[loop + 1 :]
    assert body.index("  prim.Store y") < body.index("  prim.If")  # the continue's branch may load it
    assert "  prim.Store x" in body and body.index("  prim.Store x") < body.index("  prim.Yield")
