"""Fused pointwise kernels: tsjit's llvm backend against numpy op by op, the memory
bandwidth floor, and PyTorch eager and `torch.compile` when PyTorch is available.

    .venv/bin/python bench/fusion.py
    TORCH_PYTHON=/path/to/python-with-torch .venv/bin/python bench/fusion.py

Workloads, at 64K, 1M and 16M float32 elements, all on one thread:

- GELU-tanh, `0.5*x*(1+tanh(0.79788456*(x+0.044715*x**3)))` on a vector of N;
- the LSTM cell's pointwise tail (everything after the two matrix products of the JIT
  overview's LSTMCellS): gates = mm1 + mm2 + b_ih + b_hh for N gate elements (batch
  N/1024, hidden 256), chunked into four, sigmoid/tanh, then cy and hy.

Contenders: tsjit (the scripted function through `LLVMExecutor`, with the executor's
whole per-call path), numpy op by op as written (`x**3` is numpy's slow power) and with
`x*x*x`, and `np.copyto` of as many bytes as the kernel reads and writes (the floor any
kernel that reads its inputs and writes its results once pays). Results are dropped
after each call, as a program does with temporaries; tsjit then reuses large result
buffers. PyTorch runs in-process when importable, else in `$TORCH_PYTHON` when set.
Times are medians of interleaved samples, each sample repeating one contender for about
`SAMPLE_SECONDS` (timed warm); ratios are measured in the same run.

Then a chain of 200 elementwise ops on 4-element tensors: one kernel, µs per call; and
GELU at 16M split over two threads, for comparison.
The last line sums up what is tracked from run to run:
`fusion: gelu1M_vs_numpy=X lstm1M_vs_numpy=X gelu16M_vs_copy=X lstm16M_vs_copy=X`
(speed-up over the faster numpy, and time relative to the copy floor).
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import json
import subprocess
import sys
import time
from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np

from tsjit.context import make_context
from tsjit.frontend import script_source
from tsjit.runtime.native import LLVMExecutor

SIZES = {"64K": 1 << 16, "1M": 1 << 20, "16M": 1 << 24}
HIDDEN = 256

PROGRAMS = """
import torch


def gelu(x):
    return 0.5 * x * (1 + torch.tanh(0.79788456 * (x + 0.044715 * x ** 3)))


def lstm_tail(mm1, mm2, b_ih, b_hh, cx):
    gates = mm1 + mm2 + b_ih + b_hh
    ingate, forgetgate, cellgate, outgate = gates.chunk(4, 1)
    ingate = torch.sigmoid(ingate)
    forgetgate = torch.sigmoid(forgetgate)
    cellgate = torch.tanh(cellgate)
    outgate = torch.sigmoid(outgate)
    cy = (forgetgate * cx) + (ingate * cellgate)
    hy = outgate * torch.tanh(cy)
    return hy, cy


def chain(x):
    y = x
{chain}
    return y
"""

CHAIN_OPS = ("y * 1.0001", "y + 0.5", "torch.tanh(y)", "y - 0.25", "torch.sigmoid(y)")
CHAIN_LENGTH = 200


def chain_source() -> str:
    return "\n".join(f"    y = {CHAIN_OPS[i % len(CHAIN_OPS)]}" for i in range(CHAIN_LENGTH))


def numpy_gelu(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1 + np.tanh(0.79788456 * (x + 0.044715 * x**3)))


def numpy_gelu_cubed(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1 + np.tanh(0.79788456 * (x + 0.044715 * (x * x * x))))


def sigmoid(x: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-x))


def numpy_lstm_tail(mm1, mm2, b_ih, b_hh, cx):
    gates = mm1 + mm2 + b_ih + b_hh
    ingate, forgetgate, cellgate, outgate = np.split(gates, 4, axis=1)
    cy = sigmoid(forgetgate) * cx + sigmoid(ingate) * np.tanh(cellgate)
    return sigmoid(outgate) * np.tanh(cy), cy


def max_difference(a: Any, b: Any) -> float:
    pairs = zip(a, b, strict=True) if isinstance(a, tuple) else [(a, b)]
    return max(float(np.abs(x - y).max()) for x, y in pairs)


def gelu_inputs(n: int) -> list[np.ndarray]:
    return [np.random.default_rng(0).standard_normal(n, dtype=np.float32)]


def lstm_inputs(n: int) -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    batch = n // (4 * HIDDEN)
    return [
        rng.standard_normal((batch, 4 * HIDDEN), dtype=np.float32),
        rng.standard_normal((batch, 4 * HIDDEN), dtype=np.float32),
        rng.standard_normal(4 * HIDDEN, dtype=np.float32),
        rng.standard_normal(4 * HIDDEN, dtype=np.float32),
        rng.standard_normal((batch, HIDDEN), dtype=np.float32),
    ]


def moved_floats(workload: str, n: int) -> int:
    """Floats the fused kernel reads plus writes: GELU x in, y out; the LSTM tail two
    gate products, the biases and cx in, hy and cy out."""
    return 2 * n if workload == "gelu" else 2 * n + 2 * 4 * HIDDEN + 3 * n // 4


# --------------------------------------------------------------------------------------
# Timing
# --------------------------------------------------------------------------------------


SAMPLE_SECONDS = 0.02
"""Each sample repeats a contender for about this long, so that it is timed warm (its
data in cache, its buffers reused) even right after another contender's sample."""


def measure(contenders: dict[str, Callable[[], Any]], samples: int) -> dict[str, float]:
    """Median seconds per call of each contender, samples taken in turn (interleaved)."""
    repeats: dict[str, int] = {}
    for name, call in contenders.items():
        call()  # warm up: plans, first buffers
        start = time.perf_counter()
        call()
        repeats[name] = max(1, int(SAMPLE_SECONDS / max(time.perf_counter() - start, 1e-9)))
    times: dict[str, list[float]] = {name: [] for name in contenders}
    for _ in range(samples):
        for name, call in contenders.items():
            start = time.perf_counter()
            for _ in range(repeats[name]):
                call()
            times[name].append((time.perf_counter() - start) / repeats[name])
    return {name: sorted(t)[len(t) // 2] for name, t in times.items()}


def samples_for(n: int) -> int:
    return 9 if n >= (1 << 24) else 15


# --------------------------------------------------------------------------------------
# PyTorch, in-process or in another interpreter
# --------------------------------------------------------------------------------------

TORCH_SCRIPT = r"""
import json, sys, time
import torch
torch.set_num_threads(1)
sizes, hidden, samples_for_16m, sample_seconds = json.loads(sys.argv[1])

def gelu(x):
    return 0.5 * x * (1 + torch.tanh(0.79788456 * (x + 0.044715 * x ** 3)))

def lstm_tail(mm1, mm2, b_ih, b_hh, cx):
    gates = mm1 + mm2 + b_ih + b_hh
    i, f, g, o = gates.chunk(4, 1)
    cy = torch.sigmoid(f) * cx + torch.sigmoid(i) * torch.tanh(g)
    return torch.sigmoid(o) * torch.tanh(cy), cy

def inputs(workload, n):
    gen = torch.Generator().manual_seed(0)
    if workload == "gelu":
        return [torch.randn(n, generator=gen)]
    batch = n // (4 * hidden)
    shapes = [(batch, 4 * hidden), (batch, 4 * hidden), (4 * hidden,), (4 * hidden,), (batch, hidden)]
    return [torch.randn(*s, generator=gen) for s in shapes]

results = {}
with torch.no_grad():
    for workload, fn in (("gelu", gelu), ("lstm", lstm_tail)):
        try:
            compiled = torch.compile(fn, dynamic=False)
        except Exception:
            compiled = None
        for label, n in sizes.items():
            args = inputs(workload, n)
            contenders = {"torch eager": lambda: fn(*args)}
            if compiled is not None:
                try:
                    compiled(*args)
                    contenders["torch.compile"] = lambda: compiled(*args)
                except Exception as error:
                    results[f"{workload} {label} torch.compile"] = f"unavailable: {type(error).__name__}"
            samples = samples_for_16m if n >= (1 << 24) else 15
            repeats = {}
            for name, call in contenders.items():
                call()
                start = time.perf_counter()
                call()
                repeats[name] = max(1, int(sample_seconds / max(time.perf_counter() - start, 1e-9)))
            times = {name: [] for name in contenders}
            for _ in range(samples):
                for name, call in contenders.items():
                    start = time.perf_counter()
                    for _ in range(repeats[name]):
                        call()
                    times[name].append((time.perf_counter() - start) / repeats[name])
            for name, t in times.items():
                results[f"{workload} {label} {name}"] = sorted(t)[len(t) // 2]
print(json.dumps(results))
"""


def torch_times() -> tuple[dict[str, Any], str]:
    """Medians for PyTorch eager and torch.compile, and where they came from."""
    try:
        import torch  # noqa: F401 - only to learn whether PyTorch is here

        python = sys.executable
    except ImportError:
        python = os.environ.get("TORCH_PYTHON", "")
        if not python:
            return {}, "PyTorch not installed (set TORCH_PYTHON to a Python that has it)"
    arguments = json.dumps([SIZES, HIDDEN, samples_for(1 << 24), SAMPLE_SECONDS])
    environment = {**os.environ, "OMP_NUM_THREADS": "1"}
    try:
        done = subprocess.run(
            [python, "-c", TORCH_SCRIPT, arguments],
            check=False,
            capture_output=True,
            text=True,
            timeout=1800,
            env=environment,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return {}, f"PyTorch run failed: {error}"
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return {}, f"PyTorch run failed: {last}"
    version = subprocess.run(
        [python, "-c", "import torch; print(torch.__version__)"], check=False, capture_output=True, text=True
    )
    return json.loads(done.stdout.strip().splitlines()[-1]), f"PyTorch {version.stdout.strip()}, one thread"


# --------------------------------------------------------------------------------------
# The run
# --------------------------------------------------------------------------------------


def show(value: float) -> str:
    return f"{value * 1e6:9.1f} µs" if value < 1e-3 else f"{value * 1e3:9.3f} ms"


def main() -> None:
    source = PROGRAMS.replace("{chain}", chain_source())
    executors = {
        name: LLVMExecutor(script_source(make_context(), source, "fusion.py", name), name)
        for name in ("gelu", "lstm_tail", "chain")
    }
    torch_results, torch_note = torch_times()
    workloads = {
        "gelu": (executors["gelu"], gelu_inputs, {"numpy": numpy_gelu, "numpy x*x*x": numpy_gelu_cubed}),
        "lstm": (executors["lstm_tail"], lstm_inputs, {"numpy": numpy_lstm_tail}),
    }
    summary: dict[str, float] = {}
    print(f"fused pointwise kernels, float32, one thread; {torch_note}")
    for workload, (executor, make_inputs, numpy_versions) in workloads.items():
        print(f"\n{workload}:")
        for label, n in SIZES.items():
            args = make_inputs(n)
            error = max_difference(executor(*args), next(iter(numpy_versions.values()))(*args))
            source_floats = np.ones(moved_floats(workload, n) // 2, np.float32)
            destination = np.empty_like(source_floats)
            contenders: dict[str, Callable[[], Any]] = {"tsjit llvm": partial(executor, *args)}
            for name, fn in numpy_versions.items():
                contenders[name] = partial(fn, *args)
            contenders["copy floor"] = partial(np.copyto, destination, source_floats)
            times = measure(contenders, samples_for(n))
            for name in ("torch eager", "torch.compile"):
                value = torch_results.get(f"{workload} {label} {name}")
                if isinstance(value, float):
                    times[name] = value
            ours = times["tsjit llvm"]
            best_numpy = min(times[name] for name in numpy_versions)
            print(f"  {label:>3} elements (max |tsjit - numpy| {error:.1e}):")
            for name, value in times.items():
                ratio = f"{value / ours:6.2f}x tsjit's time" if name != "tsjit llvm" else ""
                print(f"      {name:<14} {show(value)}   {ratio}")
            summary[f"{workload}{label}_vs_numpy"] = best_numpy / ours
            summary[f"{workload}{label}_vs_copy"] = ours / times["copy floor"]
            print(
                f"      tsjit: {best_numpy / ours:.2f}x faster than numpy, "
                f"{ours / times['copy floor']:.2f}x the copy floor"
            )

    chain = executors["chain"]
    x = np.linspace(-1, 1, 4, dtype=np.float32)
    chain(x)
    statistics = chain.statistics()
    (program,) = chain.programs
    per_call = measure({"chain": partial(chain, x)}, 15)["chain"]
    print(
        f"\nchain of {CHAIN_LENGTH} elementwise ops on 4 elements: {len(program.natives)} kernel(s), "
        f"{per_call * 1e6:.2f} µs per call (executor, interpreter, argument checks and the kernel), "
        f"{statistics['fallbacks']} fallbacks"
    )
    threads = 2
    threaded = LLVMExecutor(executors["gelu"].module, "gelu", threads=threads)
    (x,) = gelu_inputs(SIZES["16M"])
    source_floats, destination = np.ones_like(x), np.empty_like(x)
    split = measure(
        {
            "one": partial(executors["gelu"], x),
            "split": partial(threaded, x),
            "copy": partial(np.copyto, destination, source_floats),
        },
        samples_for(SIZES["16M"]),
    )
    print(
        f"\ngelu 16M split over {threads} threads (`threads=`; the figures above are one thread): "
        f"{show(split['split']).strip()}, {split['one'] / split['split']:.2f}x one thread, "
        f"{split['split'] / split['copy']:.2f}x the copy floor"
    )
    print(
        "\nfusion: "
        f"gelu1M_vs_numpy={summary['gelu1M_vs_numpy']:.2f} lstm1M_vs_numpy={summary['lstm1M_vs_numpy']:.2f} "
        f"gelu16M_vs_copy={summary['gelu16M_vs_copy']:.2f} lstm16M_vs_copy={summary['lstm16M_vs_copy']:.2f}"
    )


if __name__ == "__main__":
    main()
