"""Three everyday `torch.nn` models, scripted by tsjit and run on both backends.

    .venv/bin/python examples/models.py          # tsjit's torch.nn (no PyTorch needed)
    ~/some-venv-with-torch/bin/python examples/models.py   # real PyTorch modules, when installed

A small CNN (conv, batch norm, ReLU, pooling, linear), a transformer encoder layer and an
LSTM model, written against `torch.nn`. With PyTorch installed they are PyTorch's own
modules and tsjit's results are checked against PyTorch eager; without it they are built
from tsjit's torch shim, and the reference is the shim's eager run. Each model is scripted
with `tsjit.script` and run on the interpreter and on the llvm backend (`tsjit.compile`
of the scripted module with `backend="llvm"`).
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import sys
import time
from typing import Any

import numpy as np

import tsjit

try:
    import torch

    PYTORCH = not torch.__version__.endswith("tsjit-shim")
except ImportError:
    from tsjit.frontend import torch_shim as torch

    PYTORCH = False

nn = torch.nn


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1),
            nn.BatchNorm2d(8),
            nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1),
            nn.BatchNorm2d(16),
            nn.ReLU(),
            nn.AdaptiveAvgPool2d(1),
        )
        self.flatten = nn.Flatten()
        self.fc = nn.Linear(16, 10)

    def forward(self, x):
        return self.fc(self.flatten(self.features(x)))


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = nn.TransformerEncoderLayer(
            d_model=16, nhead=4, dim_feedforward=32, dropout=0.0, batch_first=True
        )

    def forward(self, x):
        return self.layer(x)


class Recurrent(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(8, 16, batch_first=True)
        self.head = nn.Linear(16, 4)

    def forward(self, x):
        out, (h, _c) = self.lstm(x)
        return self.head(out[:, -1]), h


MODELS = {"small CNN": (SmallCNN, (2, 3, 16, 16)), "transformer encoder layer": (Encoder, (2, 5, 16)),
          "LSTM model": (Recurrent, (2, 6, 8))}  # fmt: skip
"""Each model's class and the shape of its input."""


def arrays(result: Any) -> list[np.ndarray]:
    """The tensors of a (nested tuple) result as numpy arrays."""
    if isinstance(result, (tuple, list)):
        return [a for item in result for a in arrays(item)]
    if isinstance(result, np.ndarray):
        return [result]
    return [result.detach().numpy() if hasattr(result, "detach") else np.asarray(result.array)]


def run(name: str) -> tuple[float, float, float]:
    """Scripts model `name`, runs it on both backends; (max difference to the eager run,
    interpreter ms, llvm ms)."""
    cls, shape = MODELS[name]
    torch.manual_seed(0)
    model = cls().eval()
    x = torch.randn(*shape)
    with torch.no_grad():
        expected = arrays(model(x))
    scripted = tsjit.script(model)
    native = tsjit.compile(scripted.module, scripted.name, backend="llvm")
    native_args = scripted.executor_arguments((x.numpy() if PYTORCH else x,))
    difference = 0.0
    timings = []
    for call in (lambda: scripted(x), lambda: native(*native_args)):
        got = arrays(call())
        difference = max(difference, *(float(np.abs(g - e).max()) for g, e in zip(got, expected)))
        call()  # the executors profile, then optimize, on their first calls
        start = time.perf_counter()
        for _ in range(10):
            call()
        timings.append((time.perf_counter() - start) / 10 * 1e3)
    return difference, timings[0], timings[1]


def main(names: tuple[str, ...] = tuple(MODELS)) -> int:
    reference = "PyTorch eager" if PYTORCH else "the shim's eager run"
    print(f"torch.nn models scripted by tsjit ({'PyTorch' if PYTORCH else 'tsjit torch shim'} modules), "
          f"checked against {reference}:")  # fmt: skip
    worst = 0.0
    for name in names:
        difference, interpreted, native = run(name)
        worst = max(worst, difference)
        print(
            f"  {name:<26} interp {interpreted:7.2f} ms   llvm {native:7.2f} ms   max |difference| {difference:.1e}"
        )
    ok = worst < 1e-4
    print("  all agree" if ok else "  DISAGREE")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
