"""Native kernels written by hand in scf/arith/math (scalar ops in loops, as
convert-aten-to-loops emits them), compiled by tsjit's llvm lowering and JIT.

1. Call overhead: a kernel on two 1-element arrays, called with numpy arrays (argument
   checks and pointers read per call), through a prepared `bind()` call, and through
   `raw` with the integers in hand; a scalar function for comparison.
2. The GELU-tanh chain y = 0.5·x·(1 + tanh(0.79788456·(x + 0.044715·x³))) on 1M float32
   elements, in ns per element, against numpy op by op (into preallocated buffers, and
   allocating), plus the same kernel split over two threads.
3. Why inline math: the same loop calling the `llvm.exp.f32` intrinsic (a libm call per
   element) against tsjit's inline exp.

    .venv/bin/python bench/scalar_kernels.py
"""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import partial

import numpy as np

from tsjit.context import make_context
from tsjit.formats.mlir import parse_mlir
from tsjit.runtime.llvm_jit import LLVMEngine

ELEMENTWISE = """
func.func @{name}(%x: memref<?xf32>, %y: memref<?xf32>) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  scf.for %i = %c0 to %n step %c1 {{
    %v = memref.load %x[%i] : memref<?xf32>
{body}
    memref.store %r, %y[%i] : memref<?xf32>
  }}
  func.return
}}
"""

GELU = """
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %k = arith.constant 0.797884583 : f32
    %a = arith.constant 0.044715 : f32
    %v2 = arith.mulf %v, %v : f32
    %v3 = arith.mulf %v2, %v : f32
    %av3 = arith.mulf %a, %v3 : f32
    %inner = arith.addf %v, %av3 : f32
    %scaled = arith.mulf %k, %inner : f32
    %t = math.tanh %scaled : f32
    %onet = arith.addf %one, %t : f32
    %hv = arith.mulf %half, %v : f32
    %r = arith.mulf %hv, %onet : f32"""

INLINE_EXP = "    %r = math.exp %v : f32"
INTRINSIC_EXP = "    %r = llvm.intr.exp(%v) : (f32) -> f32"

SCALAR = (
    "func.func @add(%a: i64, %b: i64) -> i64 {\n  %s = arith.addi %a, %b : i64\n  func.return %s : i64\n}"
)


def best_of(run: Callable[[], object], repeat: int = 7, number: int = 1) -> float:
    """Seconds per call: the fastest of `repeat` timings of `number` calls."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            run()
        best = min(best, (time.perf_counter() - start) / number)
    return best


def gelu_numpy(x: np.ndarray, out: np.ndarray, scratch: np.ndarray) -> None:
    np.multiply(x, x, out=scratch)
    np.multiply(scratch, x, out=scratch)
    np.multiply(scratch, np.float32(0.044715), out=scratch)
    np.add(scratch, x, out=scratch)
    np.multiply(scratch, np.float32(0.797884583), out=scratch)
    np.tanh(scratch, out=scratch)
    np.add(scratch, np.float32(1.0), out=scratch)
    np.multiply(x, np.float32(0.5), out=out)
    np.multiply(out, scratch, out=out)


def main() -> None:
    ctx = make_context()
    engine = LLVMEngine(threads=2)
    text = "\n".join(
        [
            ELEMENTWISE.format(name="gelu", body=GELU),
            ELEMENTWISE.format(name="exp_inline", body=INLINE_EXP),
            ELEMENTWISE.format(name="exp_intrinsic", body=INTRINSIC_EXP),
            SCALAR,
        ]
    )
    start = time.perf_counter()
    compiled = engine.compile(parse_mlir(ctx, text, "scalar_kernels.mlir"))
    print(f"compile (4 functions, O3, host CPU): {1e3 * (time.perf_counter() - start):.0f} ms")

    gelu = compiled["gelu"]
    tiny_x, tiny_y = np.ones(1, np.float32), np.empty(1, np.float32)
    prepared = gelu.bind(tiny_x, tiny_y)
    natives = gelu.native_arguments(tiny_x, tiny_y)
    add = compiled["add"]
    calls = 100_000
    print("\ncall overhead, 1-element arrays (µs per call):")
    print(
        f"  kernel(x, y), numpy arrays      {1e6 * best_of(lambda: gelu(tiny_x, tiny_y), number=calls):.2f}"
    )
    print(f"  kernel.bind(x, y)()             {1e6 * best_of(prepared, number=calls):.2f}")
    print(f"  kernel.raw(*ints)               {1e6 * best_of(lambda: gelu.raw(*natives), number=calls):.2f}")
    print(f"  add(1, 2), scalar i64 function  {1e6 * best_of(lambda: add(1, 2), number=calls):.2f}")

    n = 1 << 20
    x = np.random.default_rng(0).standard_normal(n).astype(np.float32)
    y, out, scratch = np.empty_like(x), np.empty_like(x), np.empty_like(x)
    gelu(x, y)
    gelu_numpy(x, out, scratch)
    error = float(np.max(np.abs(y - out)))
    native = best_of(lambda: gelu(x, y), repeat=15)
    split = best_of(lambda: gelu.split_call(x, y), repeat=15)
    numpy_buffers = best_of(lambda: gelu_numpy(x, out, scratch), repeat=7)
    numpy_fresh = best_of(
        lambda: 0.5 * x * (1 + np.tanh(0.797884583 * (x + 0.044715 * (x * x * x)))), repeat=7
    )
    vectorized = compiled.is_vectorized("gelu")
    print(f"\nGELU-tanh, {n} float32 elements (vectorized: {vectorized}, max |diff| {error:.1e}):")
    rows = [
        ("tsjit kernel, 1 thread", native, ""),
        ("tsjit kernel, 2 threads", split, f"({native / split:.2f}x)"),
        ("numpy op by op, out= buffers", numpy_buffers, f"({numpy_buffers / native:.1f}x slower)"),
        ("numpy op by op, allocating", numpy_fresh, f"({numpy_fresh / native:.1f}x slower)"),
    ]
    for label, seconds, ratio in rows:
        print(f"  {label:32s}{1e9 * seconds / n:.2f} ns/element  {ratio}")

    print("\nexp on 1M float32 elements:")
    for name in ("exp_inline", "exp_intrinsic"):
        seconds = best_of(partial(compiled[name], x, y), repeat=15)
        vectorized = compiled.is_vectorized(name)
        print(f"  {name:15s} vectorized: {vectorized!s:5s}  {1e9 * seconds / n:.2f} ns/element")
    engine.close()


if __name__ == "__main__":
    main()
