"""Everyday `torch.nn` models on tsjit's interpreter against PyTorch eager and numpy.

    .venv/bin/python bench/ops.py                            # tsjit and numpy
    PYTHONPATH=. ~/venv-with-torch/bin/python bench/ops.py   # and PyTorch eager

A small CNN (conv, batch norm, ReLU, max pool, linear), a transformer encoder layer and
an LSTM layer, in eval mode with float32 inputs. Each runs three ways on one thread:
`tsjit.script` of the model built from tsjit's torch.nn, on the interpreter (after its
profiling and optimizing calls); the same model in PyTorch eager with the same weights,
when PyTorch is importable; and a forward pass written by hand in numpy. Every figure is
the best of many repeats of the thread's CPU time, the contenders interleaved, so a busy
machine slows them alike. The goal is tsjit at most 1.5x PyTorch eager.
"""

from __future__ import annotations

import os

for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import time
from collections.abc import Callable
from typing import Any

import numpy as np

import tsjit
from tsjit.frontend import torch_shim as shim

GOAL = 1.5
REPEATS = 30


def pytorch() -> Any:
    try:
        import torch
    except ImportError:
        return None
    if torch.__version__.endswith("tsjit-shim"):
        return None
    torch.set_num_threads(1)
    return torch


# --------------------------------------------------------------------------------------
# The models, for a torch module `t` (tsjit's shim or PyTorch)
# --------------------------------------------------------------------------------------


def small_cnn(t: Any) -> Any:
    nn = t.nn
    return nn.Sequential(
        nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(32 * 8 * 8, 10),
    )  # fmt: skip


def encoder_layer(t: Any) -> Any:
    return t.nn.TransformerEncoderLayer(
        d_model=64, nhead=4, dim_feedforward=128, dropout=0.0, batch_first=True
    )


def lstm_layer(t: Any) -> Any:
    return t.nn.LSTM(32, 64, batch_first=True)


MODELS: dict[str, tuple[Callable[[Any], Any], tuple[int, ...]]] = {
    "small CNN (8x3x32x32)": (small_cnn, (8, 3, 32, 32)),
    "transformer encoder layer (8x32x64)": (encoder_layer, (8, 32, 64)),
    "LSTM layer (8x32x32 -> 64)": (lstm_layer, (8, 32, 32)),
}


# --------------------------------------------------------------------------------------
# The same forward passes in numpy
# --------------------------------------------------------------------------------------


def numpy_conv2d(x: np.ndarray, w: np.ndarray, b: np.ndarray, padding: int) -> np.ndarray:
    x = np.pad(x, [(0, 0), (0, 0), (padding, padding), (padding, padding)])
    kh, kw = w.shape[2:]
    windows = np.lib.stride_tricks.sliding_window_view(x, (kh, kw), axis=(2, 3))  # N, C, H, W, kh, kw
    n, _, h, wd = windows.shape[:4]
    columns = windows.transpose(1, 4, 5, 0, 2, 3).reshape(-1, n * h * wd)
    out = (w.reshape(w.shape[0], -1) @ columns).reshape(w.shape[0], n, h, wd).transpose(1, 0, 2, 3)
    return out + b.reshape(1, -1, 1, 1)


def numpy_cnn(state: dict[str, np.ndarray], x: np.ndarray) -> np.ndarray:
    for conv, bn in (("0", "1"), ("4", "5")):
        x = numpy_conv2d(x, state[f"{conv}.weight"], state[f"{conv}.bias"], 1)
        scale = state[f"{bn}.weight"] / np.sqrt(state[f"{bn}.running_var"] + np.float32(1e-5))
        shift = state[f"{bn}.bias"] - state[f"{bn}.running_mean"] * scale
        x = np.maximum(x * scale.reshape(1, -1, 1, 1) + shift.reshape(1, -1, 1, 1), 0)
        n, c, h, w = x.shape
        x = x.reshape(n, c, h // 2, 2, w // 2, 2).max(axis=(3, 5))
    return x.reshape(x.shape[0], -1) @ state["9.weight"].T + state["9.bias"]


def numpy_layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    centered = x - mean
    return (
        centered / np.sqrt((centered * centered).mean(-1, keepdims=True) + np.float32(1e-5)) * weight + bias
    )


def numpy_encoder(state: dict[str, np.ndarray], x: np.ndarray) -> np.ndarray:
    batch, length, embed = x.shape
    heads = 4
    q, k, v = np.split(x @ state["self_attn.in_proj_weight"].T + state["self_attn.in_proj_bias"], 3, axis=-1)
    q, k, v = (a.reshape(batch, length, heads, -1).transpose(0, 2, 1, 3) for a in (q, k, v))
    scores = q @ k.transpose(0, 1, 3, 2) * np.float32(1 / np.sqrt(embed // heads))
    scores = np.exp(scores - scores.max(-1, keepdims=True))
    attended = (scores / scores.sum(-1, keepdims=True)) @ v
    attended = attended.transpose(0, 2, 1, 3).reshape(batch, length, embed)
    x = numpy_layer_norm(x + attended @ state["self_attn.out_proj.weight"].T + state["self_attn.out_proj.bias"],
                         state["norm1.weight"], state["norm1.bias"])  # fmt: skip
    hidden = np.maximum(x @ state["linear1.weight"].T + state["linear1.bias"], 0)
    return numpy_layer_norm(x + hidden @ state["linear2.weight"].T + state["linear2.bias"], state["norm2.weight"],
                            state["norm2.bias"])  # fmt: skip


def numpy_lstm(state: dict[str, np.ndarray], x: np.ndarray) -> np.ndarray:
    batch, steps, _ = x.shape
    w_hh = state["weight_hh_l0"].T
    gates_in = x @ state["weight_ih_l0"].T + state["bias_ih_l0"] + state["bias_hh_l0"]
    hidden = w_hh.shape[0]
    h = np.zeros((batch, hidden), np.float32)
    c = np.zeros((batch, hidden), np.float32)
    out = np.empty((batch, steps, hidden), np.float32)
    for t in range(steps):
        gates = gates_in[:, t] + h @ w_hh
        i, f, g, o = np.split(gates, 4, axis=1)
        c = 1 / (1 + np.exp(-f)) * c + 1 / (1 + np.exp(-i)) * np.tanh(g)
        h = 1 / (1 + np.exp(-o)) * np.tanh(c)
        out[:, t] = h
    return out


NUMPY = {"small CNN": numpy_cnn, "transformer": numpy_encoder, "LSTM": numpy_lstm}


# --------------------------------------------------------------------------------------
# Timing
# --------------------------------------------------------------------------------------


def best_times(calls: dict[str, Callable[[], Any]]) -> dict[str, float]:
    """The best of REPEATS thread-CPU-time runs of each call, interleaved (ms)."""
    best = dict.fromkeys(calls, float("inf"))
    for _ in range(REPEATS):
        for name, call in calls.items():
            start = time.thread_time()
            call()
            best[name] = min(best[name], time.thread_time() - start)
    return {name: seconds * 1e3 for name, seconds in best.items()}


def first_array(result: Any) -> np.ndarray:
    while isinstance(result, (tuple, list)):
        result = result[0]
    if hasattr(result, "detach"):
        return result.detach().numpy()
    return np.asarray(result.array if hasattr(result, "array") else result)


def bench(name: str, build: Callable[[Any], Any], shape: tuple[int, ...], torch: Any) -> dict[str, float]:
    shim.manual_seed(0)
    model = build(shim).eval()
    state = {key: value.array for key, value in model.state_dict().items()}
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    scripted = tsjit.script(model)
    for _ in range(3):  # profiling run, optimization, then the optimized graph
        ours = scripted(x)
    hand = next(fn for key, fn in NUMPY.items() if name.startswith(key))
    expected = hand(state, x)
    assert np.allclose(first_array(ours), expected, rtol=1e-3, atol=1e-4), f"{name}: tsjit and numpy disagree"
    calls: dict[str, Callable[[], Any]] = {"tsjit": lambda: scripted(x), "numpy": lambda: hand(state, x)}
    if torch is not None:
        reference = build(torch).eval()
        reference.load_state_dict({key: torch.from_numpy(value.copy()) for key, value in state.items()})
        tx = torch.from_numpy(x)

        def eager() -> Any:
            with torch.no_grad():
                return reference(tx)

        assert np.allclose(first_array(eager()), expected, rtol=1e-3, atol=1e-4), (
            f"{name}: PyTorch and numpy disagree"
        )
        calls["torch"] = eager
    return best_times(calls)


def main() -> None:
    torch = pytorch()
    print(f"torch.nn models on one thread, best of {REPEATS} runs (thread CPU time, ms); goal: tsjit <= {GOAL}x "
          f"PyTorch eager" + ("" if torch is not None else " (PyTorch not importable: numpy only)"))  # fmt: skip
    header = f"  {'model':<38} {'tsjit':>8} {'numpy':>8}" + (
        f" {'torch':>8} {'tsjit/torch':>12}" if torch else ""
    )
    print(header + f" {'tsjit/numpy':>12}")
    for name, (build, shape) in MODELS.items():
        times = bench(name, build, shape, torch)
        row = f"  {name:<38} {times['tsjit']:8.3f} {times['numpy']:8.3f}"
        if torch is not None:
            ratio = times["tsjit"] / times["torch"]
            row += f" {times['torch']:8.3f} {ratio:11.2f}x" + ("" if ratio <= GOAL else " (over goal)")
        print(row + f" {times['tsjit'] / times['numpy']:11.2f}x")


if __name__ == "__main__":
    main()
