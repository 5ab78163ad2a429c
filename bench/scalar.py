"""Scalar loop programs (functions of ints only) compiled whole by the llvm backend,
against tsjit's interpreter and CPython running the very same source.

    .venv/bin/python bench/scalar.py

Programs: collatz (total Collatz steps of 1..n: a data-dependent while loop with a
branch), gcd by Euclid's remainders and by Euclid's subtractions (all pairs of 1..n),
and a sum of squares. Per program: medians of interleaved runs, the ratios against
CPython, and whether the results agree. The llvm time includes the call from Python
(executor, argument spec, ctypes); the first call, which compiles, is reported apart.
The remainder form of gcd is bound by the latency of the CPU's integer division (about
20 cycles per step), which no compiler removes; the subtraction form shows the loop
itself. LLVM computes the sum of squares in closed form, so its ratio is unbounded.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import partial
from typing import Any

from tsjit.context import make_context
from tsjit.frontend import script_source
from tsjit.runtime.executor import GraphExecutor
from tsjit.runtime.native import LLVMExecutor

SOURCE = """
def collatz(n: int) -> int:
    total = 0
    for k in range(1, n + 1):
        x = k
        while x != 1:
            if x % 2 == 0:
                x = x // 2
            else:
                x = 3 * x + 1
            total += 1
    return total


def gcd_remainder(n: int) -> int:
    total = 0
    for a in range(1, n + 1):
        for b in range(1, n + 1):
            x = a
            y = b
            while y != 0:
                x, y = y, x % y
            total += x
    return total


def gcd_subtraction(n: int) -> int:
    total = 0
    for a in range(1, n + 1):
        for b in range(1, n + 1):
            x = a
            y = b
            while x != y:
                if x > y:
                    x = x - y
                else:
                    y = y - x
            total += x
    return total


def sum_of_squares(n: int) -> int:
    s = 0
    for i in range(n):
        s += i * i
    return s
"""

PROGRAMS = (
    ("collatz", 20_000, 200),
    ("gcd_remainder", 200, 30),
    ("gcd_subtraction", 120, 20),
    ("sum_of_squares", 300_000, 3_000),
)
"""(function, n for the timing runs, n for the interpreter: it is 100-1000x slower)."""


def median_time(call: Callable[[], Any], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return sorted(times)[len(times) // 2]


def main() -> None:
    python: dict[str, Any] = {}
    exec(compile(SOURCE, "<scalar programs>", "exec"), python)  # noqa: S102 - CPython runs the same source
    module_text = "import torch\n" + SOURCE
    print("scalar programs, one thread; medians of interleaved runs (ms)")
    print(
        f"{'program':<17} {'n':>8} {'llvm':>9} {'CPython':>10} {'vs CPython':>11}   {'interp (n)':>17} {'vs interp':>10}"
    )
    for name, n, interpreter_n in PROGRAMS:
        module = script_source(make_context(), module_text, "scalar.py", name)
        native = LLVMExecutor(module, name)
        interpreted = GraphExecutor(module, name)
        start = time.perf_counter()
        native(n)
        first_call = time.perf_counter() - start
        agree = native(n) == python[name](n) and interpreted(interpreter_n) == python[name](interpreter_n)
        assert native.statistics()["scalar_calls"] > 0 and native.statistics()["fallbacks"] == 0
        contenders = {
            "llvm": (partial(native, n), 3),
            "cpython": (partial(python[name], n), 1),
            "interp": (partial(interpreted, interpreter_n), 1),
            "llvm small": (partial(native, interpreter_n), 3),
        }
        samples: dict[str, list[float]] = {key: [] for key in contenders}
        for _ in range(5):  # interleaved, so that a busy spell hits every contender alike
            for key, (call, repeats) in contenders.items():
                samples[key].append(median_time(call, repeats))
        llvm, cpython, interp, small = (sorted(samples[key])[2] for key in contenders)
        print(
            f"{name:<17} {n:>8} {llvm * 1e3:9.3f} {cpython * 1e3:10.2f} {cpython / llvm:10.1f}x"
            f"   {interp * 1e3:9.2f} ({interpreter_n:>5}) {interp / small:9.0f}x"
            f"   {'agree' if agree else 'DISAGREE'}; first call (compiles) {first_call * 1e3:.0f} ms"
        )


if __name__ == "__main__":
    main()
