"""One SGD step — forward, backward, update — on tsjit's backends against PyTorch eager.

1. An MLP (batch 64: 128 → 256 → 256 → 10, tanh and relu, cross-entropy of
   log_softmax), written against tsjit's torch and scripted.
2. The JIT overview's LSTM cell (`examples/lstm_cell.py`) at batch 64, hidden 256,
   features 256, its loss `hy.sum() + cy.sum()`, the weights and biases trained.

Each step is the call (recording gradients), `backward()` and the SGD update of every
parameter, on one thread; figures are medians of interleaved samples of thread CPU
time, ratios are against PyTorch eager when it is importable. Goal: the llvm backend
within 1.2x of PyTorch eager per step for the LSTM cell.

    .venv/bin/python bench/train.py
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import gc  # noqa: E402
import importlib.util  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402

import tsjit  # noqa: E402
from tsjit import torch as shim  # noqa: E402

LSTM_SOURCE = (Path(__file__).resolve().parent.parent / "examples" / "lstm_cell.py").read_text(encoding="utf-8")
LSTM_LOSS = LSTM_SOURCE + '''

def loss(x, hx, cx, w_ih, w_hh, b_ih, b_hh):
    hy, cy = LSTMCellS(x, hx, cx, w_ih, w_hh, b_ih, b_hh)
    return hy.sum() + cy.sum()
'''
LR = 0.01


def median_times(contenders: dict[str, Callable[[], Any]], samples: int = 40, budget: float = 0.03) -> dict[str, float]:
    """CPU seconds of this thread per call of each contender, the median of interleaved
    samples (each repeating one contender for about `budget` seconds): thread time, not
    wall time, so that other processes on a shared machine count less."""
    counts = {}
    for name, call in contenders.items():
        for _ in range(3):
            call()  # profiled, then optimized and compiled
        start = time.thread_time()
        call()
        counts[name] = max(1, int(budget / max(time.thread_time() - start, 1e-7)))
    taken: dict[str, list[float]] = {name: [] for name in contenders}
    gc.disable()
    try:
        for _ in range(samples):
            for name, call in contenders.items():
                count = counts[name]
                start = time.thread_time()
                for _ in range(count):
                    call()
                taken[name].append((time.thread_time() - start) / count)
    finally:
        gc.enable()
    return {name: statistics.median(times) for name, times in taken.items()}


# --------------------------------------------------------------------------------------
# The MLP
# --------------------------------------------------------------------------------------


def mlp_class(torch: Any) -> type:
    nn = torch.nn

    class MLP(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.fc1 = nn.Linear(128, 256)
            self.fc2 = nn.Linear(256, 256)
            self.out = nn.Linear(256, 10)

        def forward(self, x, y):  # noqa: ANN001, ANN202 - TorchScript: Tensors
            h = torch.tanh(self.fc1(x))
            h = torch.relu(self.fc2(h))
            log_probs = torch.nn.functional.log_softmax(self.out(h), 1)
            return -log_probs.gather(1, y.unsqueeze(1)).mean()

    return MLP


def mlp_data() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    return rng.standard_normal((64, 128), dtype=np.float32), rng.integers(0, 10, 64)


def tsjit_mlp_step(backend: str) -> Callable[[], Any]:
    shim.manual_seed(0)
    model = tsjit.script(mlp_class(shim)()).to_backend(backend)
    parameters = list(model.parameters())
    x, y = (shim.tensor(a) for a in mlp_data())

    def step() -> Any:
        loss = model(x, y)
        loss.backward()
        for p in parameters:
            p.array -= LR * p.grad.array
            p.grad = None
        return loss

    return step


def torch_mlp_step(torch: Any) -> Callable[[], Any]:
    torch.manual_seed(0)
    model = mlp_class(torch)()
    parameters = list(model.parameters())
    x, y = (torch.from_numpy(a) for a in mlp_data())

    def step() -> Any:
        loss = model(x, y)
        loss.backward()
        with torch.no_grad():
            for p in parameters:
                p -= LR * p.grad
                p.grad = None
        return loss

    return step


# --------------------------------------------------------------------------------------
# The LSTM cell
# --------------------------------------------------------------------------------------


def lstm_arrays(batch: int = 64, hidden: int = 256, features: int = 256) -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    shapes = [(batch, features), (batch, hidden), (batch, hidden), (4 * hidden, features), (4 * hidden, hidden),
              (4 * hidden,), (4 * hidden,)]  # fmt: skip
    return [rng.standard_normal(s, dtype=np.float32) * 0.1 for s in shapes]


def tsjit_lstm_step(backend: str) -> Callable[[], Any]:
    function = tsjit.script(LSTM_LOSS, entry="loss").to_backend(backend)
    x, hx, cx, *weights = lstm_arrays()
    weights = [shim.tensor(w, requires_grad=True) for w in weights]

    def step() -> Any:
        loss = function(x, hx, cx, *weights)
        loss.backward()
        for w in weights:
            w.array -= LR * w.grad.array
            w.grad = None
        return loss

    return step


def torch_lstm_step(torch: Any) -> Callable[[], Any]:
    x, hx, cx, *weights = (torch.from_numpy(a) for a in lstm_arrays())
    weights = [w.requires_grad_(True) for w in weights]

    def cell(x: Any, hx: Any, cx: Any, w_ih: Any, w_hh: Any, b_ih: Any, b_hh: Any) -> Any:
        gates = x.mm(w_ih.t()) + hx.mm(w_hh.t()) + b_ih + b_hh
        ingate, forgetgate, cellgate, outgate = gates.chunk(4, 1)
        ingate, forgetgate = torch.sigmoid(ingate), torch.sigmoid(forgetgate)
        cellgate, outgate = torch.tanh(cellgate), torch.sigmoid(outgate)
        cy = (forgetgate * cx) + (ingate * cellgate)
        hy = outgate * torch.tanh(cy)
        return hy.sum() + cy.sum()

    def step() -> Any:
        loss = cell(x, hx, cx, *weights)
        loss.backward()
        with torch.no_grad():
            for w in weights:
                w -= LR * w.grad
                w.grad = None
        return loss

    return step


def report(title: str, times: dict[str, float]) -> None:
    print(f"\n{title}")
    reference = times.get("pytorch eager")
    for name, seconds in times.items():
        ratio = f"  {seconds / reference:5.2f}x PyTorch eager" if reference else ""
        print(f"  {name:<14} {seconds * 1e3:8.3f} ms per step{ratio}")


def main() -> None:
    torch = None
    if importlib.util.find_spec("torch") is not None:
        import torch  # noqa: PLC0415 - optional

        torch.set_num_threads(1)
    mlp = {f"tsjit {b}": tsjit_mlp_step(b) for b in ("interp", "llvm")}
    lstm = {f"tsjit {b}": tsjit_lstm_step(b) for b in ("interp", "llvm")}
    if torch is not None:
        mlp["pytorch eager"] = torch_mlp_step(torch)
        lstm["pytorch eager"] = torch_lstm_step(torch)
    report("MLP (batch 64: 128-256-256-10), one SGD step", median_times(mlp))
    times = median_times(lstm)
    report("LSTM cell (batch 64, hidden 256, features 256), one SGD step", times)
    if "pytorch eager" in times:
        ratio = times["tsjit llvm"] / times["pytorch eager"]
        print(f"\nsummary: LSTM cell step, llvm {ratio:.2f}x PyTorch eager (goal <= 1.2x)")
    else:
        print("\nsummary: PyTorch is not importable: tsjit's figures only")


if __name__ == "__main__":
    main()
