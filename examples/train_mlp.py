"""Trains a small MLP with SGD on tsjit alone: no PyTorch.

    .venv/bin/python examples/train_mlp.py [--steps 300] [--backend interp|llvm]

The model is an ordinary `torch.nn.Module` written against tsjit's torch (`tsjit.torch`,
the shim: PyTorch's API on numpy). `tsjit.script` compiles it; its parameters require
grad, so each call records gradients: the graph executor groups the layers into
DifferentiableGraphs, splits each into a forward and a backward graph, and
`loss.backward()` runs the backward graphs, accumulating into the parameters' `.grad`,
which `torch.optim.SGD` applies. The task: which of two interleaved spirals a point of
the plane is on. The loss curve is printed as it goes.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # one thread: BLAS threads spin on a shared machine

import argparse  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

import tsjit  # noqa: E402
from tsjit import torch  # noqa: E402

nn = torch.nn
F = torch.nn.functional


class MLP(nn.Module):
    def __init__(self, hidden: int):
        super().__init__()
        self.fc1 = nn.Linear(2, hidden)
        self.fc2 = nn.Linear(hidden, hidden)
        self.out = nn.Linear(hidden, 2)

    def forward(self, points: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        h = torch.tanh(self.fc1(points))
        h = torch.relu(self.fc2(h))
        log_probs = F.log_softmax(self.out(h), 1)
        return -log_probs.gather(1, labels.unsqueeze(1)).mean()


def spirals(count: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Points on two interleaved spirals, with a little noise, and which spiral."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 2, count)
    angle = rng.uniform(0.25, 3.0, count) * np.pi
    radius = angle / (3 * np.pi)
    points = np.stack([radius * np.cos(angle + np.pi * labels), radius * np.sin(angle + np.pi * labels)], 1)
    points += rng.normal(0, 0.02, points.shape)
    return points.astype(np.float32), labels.astype(np.int64)


def train(steps: int, hidden: int, batch: int, backend: str, report: int) -> list[float]:
    torch.manual_seed(0)
    model = tsjit.script(MLP(hidden)).to_backend(backend)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5, momentum=0.9)
    points, labels = spirals(batch)
    x, y = torch.tensor(points), torch.tensor(labels)
    losses = []
    start = time.perf_counter()
    for step in range(steps):
        loss = model(x, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        if step % report == 0 or step == steps - 1:
            print(f"step {step:4d}  loss {losses[-1]:.4f}")
    elapsed = time.perf_counter() - start
    print(f"{steps} steps in {elapsed:.2f} s ({1e3 * elapsed / steps:.1f} ms per step, {backend})")
    return losses


def main(argv: list[str] | None = None) -> list[float]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--hidden", type=int, default=32)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--backend", default="interp", choices=("interp", "llvm", "auto"))
    parser.add_argument("--report", type=int, default=25, help="print the loss every N steps")
    args = parser.parse_args(argv)
    return train(args.steps, args.hidden, args.batch, args.backend, args.report)


if __name__ == "__main__":
    main()
