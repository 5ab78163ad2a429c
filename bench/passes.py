"""How the cleanup pipeline scales: `torchscript-cleanup` on generated graphs of 1,000,
10,000 and 50,000 nodes, in nodes per second, with the growth exponent of its run time
(the slope of log time over log size; 1.0 is linear, the goal is at most 1.1) for the
pipeline and for each of its passes.

The graphs mix what real graphs hold, in segments repeated until the size is reached:
tensor arithmetic chains, int arithmetic on constants (folded), duplicated expressions
(merged), dead values (removed), tuples built and unpacked, constants repeated in nested
blocks (pooled), Ifs on inputs and on constants, and loops carrying tensors and ints.

    .venv/bin/python bench/passes.py [SIZE ...]
"""

from __future__ import annotations

import math
import sys
import time
from collections import defaultdict

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from tsjit.context import make_context
from tsjit.formats.mlir import parse_mlir
from tsjit.transforms import PASSES
from tsjit.transforms.pass_logging import observe_passes

SIZES = (1_000, 10_000, 50_000)
PIPELINE = "torchscript-cleanup"
REPEATS = 3
"""Runs per size; the fastest counts. Times are the process's CPU time: on a shared
machine, wall time would also count the other processes."""

T = "!ts.tensor"
TUPLE = f"!ts.tuple<{T}, !ts.int>"


def segment(k: int, v: str) -> tuple[list[str], str]:
    """One segment of `NODES_PER_SEGMENT` nodes continuing the tensor chain from `v`; returns its
    lines and the chain value it ends with."""
    s = f"s{k}"
    lines = [
        # int arithmetic on constants: folds away
        f"  %{s}c2 = prim.Constant 2 : !ts.int",
        f"  %{s}c3 = prim.Constant 3 : !ts.int",
        f"  %{s}k = aten.mul %{s}c2, %{s}c3 : (!ts.int, !ts.int) -> !ts.int",
        f"  %{s}k1 = aten.add %{s}k, %one : (!ts.int, !ts.int) -> !ts.int",
        # a tensor chain, with a duplicated product and a dead value
        f"  %{s}a = aten.mul {v}, %x : ({T}, {T}) -> {T}",
        f"  %{s}b = aten.mul {v}, %x : ({T}, {T}) -> {T}",
        f"  %{s}d = aten.add %{s}a, %{s}b, %one : ({T}, {T}, !ts.int) -> {T}",
        f"  %{s}dead = aten.tanh %{s}d : ({T}) -> {T}",
        f"  %{s}e = aten.mul %{s}d, %{s}k1 : ({T}, !ts.int) -> {T}",
        f"  %{s}f = aten.sub %{s}e, %x, %one : ({T}, {T}, !ts.int) -> {T}",
        # a tuple built and taken apart
        f"  %{s}t = prim.TupleConstruct %{s}f, %{s}k1 : ({T}, !ts.int) -> {TUPLE}",
        f"  %{s}tf, %{s}tk = prim.TupleUnpack %{s}t : {TUPLE} -> {T}, !ts.int",
        # an If on an input, constants repeated inside
        f"  %{s}g = prim.If %flag -> ({T}) {{",
        f"    %{s}i1 = prim.Constant 1 : !ts.int",
        f"    %{s}g1 = aten.add %{s}tf, %x, %{s}i1 : ({T}, {T}, !ts.int) -> {T}",
        f"    prim.Yield %{s}g1 : {T}",
        "  } else {",
        f"    %{s}g2 = aten.neg %{s}tf : ({T}) -> {T}",
        f"    prim.Yield %{s}g2 : {T}",
        "  }",
        # an If on a constant: inlined
        f"  %{s}h = prim.If %true -> ({T}) {{",
        f"    %{s}h1 = aten.relu %{s}g : ({T}) -> {T}",
        f"    prim.Yield %{s}h1 : {T}",
        "  } else {",
        f"    prim.Yield %{s}g : {T}",
        "  }",
        # a loop carrying a tensor and an int, with an invariant carried value
        f"  %{s}l, %{s}n, %{s}inv = prim.Loop %steps, %true iter(%{s}i) "
        f"carried(%{s}acc = %{s}h : {T}, %{s}m = %{s}tk : !ts.int, %{s}same = %x : {T}) -> ({T}, !ts.int, {T}) {{",
        f"    %{s}l1 = aten.mul %{s}acc, %{s}same : ({T}, {T}) -> {T}",
        f"    %{s}l2 = aten.add %{s}l1, %{s}i, %one : ({T}, !ts.int, !ts.int) -> {T}",
        f"    %{s}l3 = aten.add %{s}m, %{s}i : (!ts.int, !ts.int) -> !ts.int",
        f"    prim.Yield %true, %{s}l2, %{s}l3, %{s}same : !ts.bool, {T}, !ts.int, {T}",
        "  }",
        f"  %{s}z = aten.add %{s}l, %{s}inv, %{s}n : ({T}, {T}, !ts.int) -> {T}",
    ]
    return lines, f"%{s}z"


NODES_PER_SEGMENT = 23
"""Nodes (ops other than block terminators) one segment holds."""


def graph_text(nodes: int) -> str:
    lines = [
        f"func.func @forward(%x : {T}, %flag : !ts.bool, %steps : !ts.int) -> {T} {{",
        "  %one = prim.Constant 1 : !ts.int",
        "  %true = prim.Constant true : !ts.bool",
    ]
    v = "%x"
    for k in range(max(1, nodes // NODES_PER_SEGMENT)):
        body, v = segment(k, v)
        lines += body
    lines += [f"  func.return {v} : {T}", "}"]
    return "\n".join(lines)


def node_count(module: ModuleOp) -> int:
    return sum(1 for op in module.walk() if op.name not in ("builtin.module", "func.func", "func.return", "prim.Yield"))


def run(nodes: int) -> tuple[int, int, float, dict[str, float]]:
    """Nodes before and after the pipeline, its time, and the time of each pass."""
    ctx = make_context()
    module = parse_mlir(ctx, graph_text(nodes), "<bench>")
    before = node_count(module)
    per_pass: dict[str, float] = defaultdict(float)
    last = time.process_time()

    def timed(pass_: ModulePass, _: ModuleOp) -> None:
        nonlocal last
        now = time.process_time()
        per_pass[pass_.name] += now - last
        last = now

    with observe_passes(timed):
        start = last = time.process_time()
        PASSES[PIPELINE]()().apply(ctx, module)
        total = time.process_time() - start
    return before, node_count(module), total, dict(per_pass)


def exponent(sizes: list[int], times: list[float]) -> float:
    """Least-squares slope of log(time) over log(size)."""
    xs, ys = [math.log(s) for s in sizes], [math.log(max(t, 1e-9)) for t in times]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


def main(sizes: tuple[int, ...]) -> None:
    print(f"{PIPELINE} on generated graphs (goal: >= 50,000 nodes/s, growth exponent <= 1.1)")
    print(f"{'nodes':>8}  {'after':>7}  {'cpu s':>8}  {'nodes/s':>9}")
    run(NODES_PER_SEGMENT)  # warm up: imports, generated op classes, kernel tables
    measured = []
    for size in sizes:
        before, after, seconds, per_pass = min((run(size) for _ in range(REPEATS)), key=lambda r: r[2])
        measured.append((before, seconds, per_pass))
        print(f"{before:>8}  {after:>7}  {seconds:>8.3f}  {before / seconds:>9.0f}")
    if len(measured) < 2:
        return
    counts = [m[0] for m in measured]
    print(f"growth exponent of the pipeline: {exponent(counts, [m[1] for m in measured]):.2f} (goal <= 1.1)")
    print("per pass (seconds at each size, growth exponent):")
    for name in measured[-1][2]:
        times = [m[2].get(name, 0.0) for m in measured]
        cells = "  ".join(f"{t:7.2f}" for t in times)
        print(f"  {name:<34} {cells}  {exponent(counts, times):5.2f}")


if __name__ == "__main__":
    main(tuple(int(a) for a in sys.argv[1:]) or SIZES)
