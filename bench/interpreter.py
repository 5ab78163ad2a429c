"""Interpreter overhead and memory, measured against plain numpy.

1. Dispatch: a straight-line graph of 1,000 ops (add, mul, sub, tanh) on 4-element
   float32 tensors, run by the interpreter, against the same chain as bare numpy calls
   and as direct calls of tsjit's kernels. The interpreter's overhead per node is its
   time minus the kernels' own time.
2. Memory: a chain of 200 ops on 4 MB tensors; tracemalloc's peak during a run, in
   tensors of that size. Move-on-last-use keeps it at two (the operand and the result);
   an interpreter holding every value until the graph returns would reach 200.

    .venv/bin/python bench/interpreter.py
"""

from __future__ import annotations

import gc
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

import numpy as np

from tsjit.context import make_context
from tsjit.formats.mlir import parse_mlir
from tsjit.runtime import kernels
from tsjit.runtime.interpreter import Program

# (IR op, its operands after the chain value, kernel overload, bare numpy function)
OPS = (
    ("aten.add", "%x, %one", "(!ts.tensor, !ts.tensor, !ts.int)", "aten::add.Tensor", np.add),
    ("aten.mul", "%x", "(!ts.tensor, !ts.tensor)", "aten::mul.Tensor", np.multiply),
    ("aten.sub", "%x, %one", "(!ts.tensor, !ts.tensor, !ts.int)", "aten::sub.Tensor", np.subtract),
    ("aten.tanh", "", "(!ts.tensor)", "aten::tanh", np.tanh),
)


def chain_graph(length: int) -> str:
    """`forward(%x)`: v = op_k(v, x, ...) for k < length, cycling through OPS."""
    lines = [
        "func.func @forward(%x : !ts.tensor) -> !ts.tensor {",
        "  %one = prim.Constant 1 : !ts.int",
    ]
    previous = "%x"
    for k in range(length):
        name, extra, types, _, _ = OPS[k % len(OPS)]
        operands = f"{previous}, {extra}" if extra else previous
        lines.append(f"  %v{k} = {name} {operands} : {types} -> !ts.tensor")
        previous = f"%v{k}"
    lines += [f"  func.return {previous} : !ts.tensor", "}"]
    return "\n".join(lines)


def compile_chain(length: int) -> Callable[..., Any]:
    module = parse_mlir(make_context(), chain_graph(length), "<bench>")
    return Program(module).function("forward")


def best_time(fn: Callable[[], Any], repeats: int = 30) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def bare_numpy(x: np.ndarray, length: int) -> np.ndarray:
    functions = [OPS[k % len(OPS)][4] for k in range(length)]
    v = x
    for k, f in enumerate(functions):
        v = f(v) if k % len(OPS) == 3 else f(v, x)
    return v


def dispatch_overhead(length: int = 1000) -> None:
    forward = compile_chain(length)
    x = np.full(4, 0.5, dtype=np.float32)
    bound = [(kernels.lookup(OPS[k % 4][3]), k % 4) for k in range(length)]

    def direct_kernels() -> np.ndarray:
        v = x
        for kernel, kind in bound:
            v = kernel(v, x, 1) if kind in (0, 2) else kernel(v, x) if kind == 1 else kernel(v)
        return v

    assert np.allclose(forward(x), bare_numpy(x, length)), "the interpreter disagrees with numpy"
    with np.errstate(all="ignore"):
        interp = best_time(lambda: forward(x)) / length
        bare = best_time(lambda: bare_numpy(x, length)) / length
        direct = best_time(direct_kernels) / length
    overhead = interp - direct
    print(f"dispatch: {length} ops on 4-element float32 tensors (add, mul, sub, tanh), per node")
    print(f"  bare numpy call        {bare * 1e6:7.3f} us")
    print(f"  tsjit kernel, direct   {direct * 1e6:7.3f} us   ({direct / bare:.2f}x numpy)")
    print(f"  interpreter            {interp * 1e6:7.3f} us   ({interp / bare:.2f}x numpy)")
    print(f"  interpreter overhead   {overhead * 1e6:7.3f} us   ({overhead / bare:.2f}x the numpy call)")


def memory_peak(length: int = 200, elements: int = 1 << 20) -> None:
    forward = compile_chain(length)
    x = np.full(elements, 0.5, dtype=np.float32)
    gc.collect()
    tracemalloc.start()
    tracemalloc.reset_peak()
    base, _ = tracemalloc.get_traced_memory()
    result = forward(x)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    del result
    live = (peak - base) / x.nbytes
    print(f"memory: {length} ops on {x.nbytes >> 20} MB tensors")
    print(f"  peak during a run      {live:7.2f} tensors (bound: 3; without release: {length})")
    assert live <= 3, "values are not released after their last use"


if __name__ == "__main__":
    dispatch_overhead()
    memory_peak()
