"""The profiling executor's costs, against what it runs and against the ArgumentSpec
executor (both with the llvm backend).

1. Guarded fast path: `a * b + c * d` on four 16-element float32 tensors, fused into
   one kernel. The profiling executor's call (entry check, the specialized graph, the
   kernel) against calling the kernel's compiled call plan (the one the guarded code
   calls) directly: the difference is the executor's overhead per call (goal: at most
   1 µs); the ArgumentSpec executor's call for comparison.
2. The JIT overview's LSTM cell (`examples/lstm_cell.py`) at the demo's size (batch
   1024, hidden 128, features 64) and at a small one (batch 2, hidden 4), through the
   profiling executor and through the ArgumentSpec executor (goal: within 5%).
3. A guard failure: the fast path's function called with another shape, whose
   fallback (a profiling executor one level deeper) has specialized to it already,
   against a call of an executor specialized to that shape in the first place; and the
   first failure, which builds the fallback's executor and profiles.

    .venv/bin/python bench/executor.py
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from tsjit.frontend.script import script_file_text
from tsjit.runtime.native import FusedGroup, LLVMExecutor, NativeProgram
from tsjit.runtime.profiling_executor import ProfilingGraphExecutor

KERNEL_SOURCE = """
def forward(a, b, c, d):
    return a * b + c * d
"""
LSTM_SOURCE = Path(__file__).resolve().parent.parent / "examples" / "lstm_cell.py"


def best_times(contenders: dict[str, Callable[[], Any]], samples: int = 200, budget: float = 0.002) -> dict[str, float]:
    """Seconds per call of each contender: the best of `samples` samples of about
    `budget` seconds each, the contenders' samples interleaved, so that all of them see
    the same machine (the best sample is the one least disturbed by other work)."""
    counts = {}
    for name, call in contenders.items():
        call()
        start = time.perf_counter()
        call()
        counts[name] = max(1, int(budget / max(time.perf_counter() - start, 1e-7)))
    best = dict.fromkeys(contenders, float("inf"))
    gc.disable()
    try:
        for _ in range(samples):
            for name, call in contenders.items():
                count = counts[name]
                start = time.perf_counter()
                for _ in range(count):
                    call()
                best[name] = min(best[name], (time.perf_counter() - start) / count)
    finally:
        gc.enable()
    return best


def kernel_plan(executor: ProfilingGraphExecutor, args: tuple[Any, ...]) -> Callable[[], Any]:
    """The compiled call of the fused kernel the optimized graph runs, on `args`: the
    group's fixed entry (its plan for the guarded shapes), called as the guarded code
    calls it."""
    program = executor.program
    assert isinstance(program, NativeProgram)
    (group,) = [n for n in program.natives.values() if isinstance(n, FusedGroup)]
    plan = group.call
    assert plan != group.invoke, "the guarded kernel has a fixed plan"
    a, b, c, d = args
    return lambda: plan(a, b, c, d)


def lstm_inputs(batch: int, hidden: int, features: int) -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    shapes = [(batch, features), (batch, hidden), (batch, hidden), (4 * hidden, features), (4 * hidden, hidden)]
    arrays = [rng.standard_normal(s, dtype=np.float32) * 0.1 for s in shapes]
    return arrays + [rng.standard_normal(4 * hidden, dtype=np.float32) * 0.1 for _ in range(2)]


def us(seconds: float) -> str:
    return f"{seconds * 1e6:.2f} µs"


def fast_path() -> float:
    module = script_file_text(KERNEL_SOURCE, "kernel.py").module
    args = tuple(np.full(16, k + 1, np.float32) for k in range(4))
    profiling = ProfilingGraphExecutor(module, "forward", backend="llvm")
    for _ in range(3):
        profiling(*args)
    assert profiling.optimized
    argspec = LLVMExecutor(module, "forward")
    argspec(*args)
    times = best_times(
        {"direct": kernel_plan(profiling, args), "guarded": lambda: profiling(*args), "argspec": lambda: argspec(*args)}
    )
    direct, guarded = times["direct"], times["guarded"]
    overhead = guarded - direct
    print("1. guarded fast path, a*b + c*d on 4 x 16 float32 (llvm)")
    print(f"   kernel call plan directly        {us(direct)}")
    print(f"   profiling executor call          {us(guarded)}")
    print(f"   overhead per call                {us(overhead)}  (goal <= 1 µs)")
    print(f"   ArgumentSpec executor call       {us(times['argspec'])}")
    return overhead


def lstm() -> dict[str, float]:
    module = script_file_text(LSTM_SOURCE.read_text(encoding="utf-8"), "lstm_cell.py", "LSTMCellS").module
    print("2. LSTM cell, profiling executor against the ArgumentSpec executor (llvm)")
    ratios = {}
    for label, sizes in (("demo 1024x128x64", (1024, 128, 64)), ("small 2x4x3", (2, 4, 3))):
        inputs = lstm_inputs(*sizes)
        argspec = LLVMExecutor(module, "LSTMCellS")
        profiling = ProfilingGraphExecutor(module, "LSTMCellS", backend="llvm")
        for _ in range(3):
            argspec(*inputs)
            profiling(*inputs)
        times = best_times({"argspec": lambda: argspec(*inputs), "profiling": lambda: profiling(*inputs)})
        a, p = times["argspec"], times["profiling"]
        ratios[label] = p / a
        print(f"   {label:<18} argspec {us(a):>12}   profiling {us(p):>12}   ratio {p / a:.3f}  (goal <= 1.05)")
    return ratios


def guard_failure() -> float:
    module = script_file_text(KERNEL_SOURCE, "kernel.py").module
    first = tuple(np.full(16, k + 1, np.float32) for k in range(4))
    other = tuple(np.full(32, k + 1, np.float32) for k in range(4))
    profiling = ProfilingGraphExecutor(module, "forward", backend="llvm")
    for _ in range(2):
        profiling(*first)
    start = time.perf_counter()
    profiling(*other)
    cold = time.perf_counter() - start
    for _ in range(3):
        profiling(*other)
    direct = ProfilingGraphExecutor(module, "forward", backend="llvm")
    for _ in range(3):
        direct(*other)
    times = best_times({"failing": lambda: profiling(*other), "specialized": lambda: direct(*other)})
    failing, specialized = times["failing"], times["specialized"]
    print("3. guard failure (16 -> 32 elements), fallback specialized to the new shape")
    print(f"   executor specialized to it       {us(specialized)}")
    print(f"   failing the check, fallback      {us(failing)}")
    print(f"   one failure + fallback costs     {us(failing - specialized)}")
    print(f"   first failure (fallback executor made, profiling run) {cold * 1e3:.2f} ms")
    return failing - specialized


def main() -> None:
    overhead = fast_path()
    ratios = lstm()
    failure = guard_failure()
    print(
        f"executor: fast_path_overhead_us={overhead * 1e6:.2f} "
        f"lstm_demo_ratio={ratios['demo 1024x128x64']:.3f} lstm_small_ratio={ratios['small 2x4x3']:.3f} "
        f"guard_failure_us={failure * 1e6:.2f}"
    )


if __name__ == "__main__":
    main()
