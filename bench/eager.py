"""Eager overhead of tsjit's torch shim, per operator on small tensors.

Each operator runs on 4x4 float32 tensors four ways: through the shim (`torch.add(x, y)`,
`x + y`, ...: schema dispatch, then the kernel), as a direct call of the kernel the shim
dispatches to (what the interpreter runs), as the bare numpy expression, and with
PyTorch eager when it is importable. The goal is at most 1.5 µs per op over numpy, the
floor: the shim's time minus numpy's, which is the dispatch (shim minus kernel) plus
what the kernel adds to numpy (PyTorch's checks and dtype rules). Every figure is the
median over rounds of the thread's CPU time per call, each round timing every operator
and contender in turn, so a busy spell of the machine slows all of them alike.

    .venv/bin/python bench/eager.py
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from tsjit.frontend import torch_shim as shim
from tsjit.runtime import kernels

GOAL_US = 1.5


def cases(t: Any, x: Any, y: Any) -> list[tuple[str, Callable[[], Any]]]:
    """The operators, written against a torch module `t` on tensors `x`, `y`."""
    F = t.nn.functional
    w = x.clone()  # in-place writes go to a copy: the other operators' inputs stay as they are
    return [
        ("x + y", lambda: x + y),
        ("torch.add(x, y)", lambda: t.add(x, y)),
        ("x * 2.0", lambda: x * 2.0),
        ("torch.relu(x)", lambda: t.relu(x)),
        ("x.tanh()", lambda: x.tanh()),
        ("x.sum(1)", lambda: x.sum(1)),
        ("x.sum(dim=1)", lambda: x.sum(dim=1)),
        ("x.mean(-1, keepdim=True)", lambda: x.mean(-1, keepdim=True)),
        ("x.view(16)", lambda: x.view(16)),
        ("x.t()", lambda: x.t()),
        ("x @ y", lambda: x @ y),
        ("x[0]", lambda: x[0]),
        ("w.add_(y)", lambda: w.add_(y)),
        ("F.softmax(x, -1)", lambda: F.softmax(x, -1)),
        ("torch.cat([x, y])", lambda: t.cat([x, y])),
    ]


def kernel_cases(x: np.ndarray, y: np.ndarray) -> dict[str, Callable[[], Any]]:
    """The kernel call each shim case makes, with the arguments the dispatcher passes."""
    k = kernels.lookup
    w = x.copy()
    add, mul, relu, tanh = k("aten::add.Tensor"), k("aten::mul.Scalar"), k("aten::relu"), k("aten::tanh")
    total, view, t, matmul = k("aten::sum.dim_IntList"), k("aten::view"), k("aten::t"), k("aten::matmul")
    mean = k("aten::mean.dim")
    select, add_, softmax, cat = k("aten::select.int"), k("aten::add_.Tensor"), k("aten::softmax.int"), k("aten::cat")
    return {
        "x + y": lambda: add(x, y, 1), "torch.add(x, y)": lambda: add(x, y, 1), "x * 2.0": lambda: mul(x, 2.0),
        "torch.relu(x)": lambda: relu(x), "x.tanh()": lambda: tanh(x), "x.sum(1)": lambda: total(x, [1], False, None),
        "x.sum(dim=1)": lambda: total(x, [1], False, None),
        "x.mean(-1, keepdim=True)": lambda: mean(x, [-1], True, None), "x.view(16)": lambda: view(x, [16]),
        "x.t()": lambda: t(x), "x @ y": lambda: matmul(x, y), "x[0]": lambda: select(x, 0, 0),
        "w.add_(y)": lambda: add_(w, y, 1), "F.softmax(x, -1)": lambda: softmax(x, -1, None),
        "torch.cat([x, y])": lambda: cat([x, y], 0),
    }  # fmt: skip


def numpy_cases(x: np.ndarray, y: np.ndarray) -> dict[str, Callable[[], Any]]:
    w = x.copy()

    def softmax() -> np.ndarray:
        e = np.exp(x - x.max(-1, keepdims=True))
        return e / e.sum(-1, keepdims=True)

    return {
        "x + y": lambda: x + y, "torch.add(x, y)": lambda: np.add(x, y), "x * 2.0": lambda: x * np.float32(2.0),
        "torch.relu(x)": lambda: np.maximum(x, 0), "x.tanh()": lambda: np.tanh(x), "x.sum(1)": lambda: x.sum(1),
        "x.sum(dim=1)": lambda: x.sum(axis=1), "x.mean(-1, keepdim=True)": lambda: x.mean(-1, keepdims=True),
        "x.view(16)": lambda: x.reshape(16), "x.t()": lambda: x.T,
        "x @ y": lambda: x @ y, "x[0]": lambda: x[0], "w.add_(y)": lambda: np.add(w, y, out=w),
        "F.softmax(x, -1)": softmax, "torch.cat([x, y])": lambda: np.concatenate([x, y]),
    }  # fmt: skip


def per_call_us(fn: Callable[[], Any], number: int = 500) -> float:
    """CPU time of this thread per call: time spent descheduled on a shared machine does not count."""
    start = time.thread_time()
    for _ in range(number):
        fn()
    return (time.thread_time() - start) / number * 1e6


def measure(contenders: dict[str, dict[str, Callable[[], Any]]], rounds: int = 41) -> dict[str, dict[str, float]]:
    """Median per operator and contender over rounds, each of which times every operator
    and contender in turn: a busy spell of the machine lands on all of them alike."""
    for ways in contenders.values():
        for fn in ways.values():
            fn()
    samples = {op: {name: [] for name in ways} for op, ways in contenders.items()}
    for _ in range(rounds):
        for op, ways in contenders.items():
            for name, fn in ways.items():
                samples[op][name].append(per_call_us(fn))
    return {op: {name: statistics.median(times) for name, times in ways.items()} for op, ways in samples.items()}


def main() -> None:
    rng = np.random.default_rng(0)
    xa, ya = rng.random((4, 4), dtype=np.float32), rng.random((4, 4), dtype=np.float32)
    with np.errstate(all="ignore"):
        x, y = shim.from_numpy(xa.copy()), shim.from_numpy(ya.copy())
        shim_ops = dict(cases(shim, x, y))
        kernel_ops = kernel_cases(xa.copy(), ya.copy())
        numpy_ops = numpy_cases(xa.copy(), ya.copy())
        try:
            import torch

            tx, ty = torch.from_numpy(xa.copy()), torch.from_numpy(ya.copy())
            torch_ops: dict[str, Callable[[], Any]] = dict(cases(torch, tx, ty))
        except ImportError:
            torch_ops = {}
        print(
            f"{'operator':<26} {'shim':>6} {'kernel':>6} {'numpy':>6} {'torch':>6} {'dispatch':>9} {'over np':>8}"
            f" {'/numpy':>7} {'/torch':>7}   (µs per call, median)"
        )
        contenders = {}
        for name in shim_ops:
            contenders[name] = {"shim": shim_ops[name], "kernel": kernel_ops[name], "numpy": numpy_ops[name]}
            if name in torch_ops:
                contenders[name]["torch"] = torch_ops[name]
        dispatch, over_numpy = [], []
        for name, times in measure(contenders).items():
            dispatch.append(times["shim"] - times["kernel"])
            over_numpy.append(times["shim"] - times["numpy"])
            torch_text, torch_ratio = (
                (f"{times['torch']:6.2f}", f"{times['shim'] / times['torch']:6.2f}x")
                if "torch" in times
                else (f"{'-':>6}", f"{'-':>7}")
            )
            print(
                f"{name:<26} {times['shim']:6.2f} {times['kernel']:6.2f} {times['numpy']:6.2f} {torch_text} "
                f"{dispatch[-1]:9.2f} {over_numpy[-1]:8.2f} {times['shim'] / times['numpy']:6.2f}x {torch_ratio}"
            )
    worst = max(over_numpy)
    verdict = "meets" if worst <= GOAL_US else "misses"
    print(
        f"eager overhead per op: dispatch mean {statistics.mean(dispatch):.2f} µs, worst {max(dispatch):.2f} µs; "
        f"over numpy mean {statistics.mean(over_numpy):.2f} µs, worst {worst:.2f} µs ({verdict} the {GOAL_US} µs goal)"
    )
    # a busy machine slows every contender alike (the ratios hold), but the µs figures with it
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores while measuring")


if __name__ == "__main__":
    main()
