"""Trains a character-level LSTM language model with SGD on tsjit alone: no PyTorch.

    .venv/bin/python examples/train_lstm.py [--steps 200] [--backend interp|llvm]

The model reads a tiny built-in text one character at a time and learns to predict
the next: an embedding, an LSTM cell (the JIT overview's, `examples/lstm_cell.py`)
unrolled by a TorchScript loop over the sequence, and a linear decoder, with the mean
cross-entropy of the predictions as the loss. `tsjit.script` compiles the module; the
graph executor differentiates the loop body's DifferentiableGraphs, `loss.backward()`
runs their backward graphs in reverse, step by step, accumulating into the parameters'
`.grad`, and `torch.optim.SGD` applies them. The loss curve is printed as it goes,
then a sample of text the model writes.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # one thread: BLAS threads spin on a shared machine

import argparse  # noqa: E402
import time  # noqa: E402
from typing import List  # noqa: E402

import numpy as np  # noqa: E402

import tsjit  # noqa: E402
from tsjit import torch  # noqa: E402

nn = torch.nn
F = torch.nn.functional

TEXT = """\
The quick brown fox jumps over the lazy dog. The lazy dog sleeps in the sun,
and the quick brown fox runs on over the hill. Over the hill the fox finds
the river, and the river runs down to the sea. The dog wakes and runs after
the fox, over the hill and down to the river, but the fox is quick and the
dog is lazy, so the dog sleeps again in the sun by the river.
"""


class CharLSTM(nn.Module):
    def __init__(self, vocab: int, embed: int, hidden: int):
        super().__init__()
        self.hidden = hidden
        self.embedding = nn.Embedding(vocab, embed)
        bound = 1.0 / hidden**0.5
        self.w_ih = nn.Parameter(torch.empty(4 * hidden, embed).uniform_(-bound, bound))
        self.w_hh = nn.Parameter(torch.empty(4 * hidden, hidden).uniform_(-bound, bound))
        self.b_ih = nn.Parameter(torch.empty(4 * hidden).uniform_(-bound, bound))
        self.b_hh = nn.Parameter(torch.empty(4 * hidden).uniform_(-bound, bound))
        self.decoder = nn.Linear(hidden, vocab)

    def forward(self, inputs: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        """Mean cross-entropy of the next character; inputs and targets are [time, batch]."""
        embedded = self.embedding(inputs)
        hx = torch.zeros(inputs.size(1), self.hidden)
        cx = torch.zeros(inputs.size(1), self.hidden)
        outputs: List[torch.Tensor] = []
        for t in range(inputs.size(0)):
            gates = torch.mm(embedded[t], self.w_ih.t()) + torch.mm(hx, self.w_hh.t()) + self.b_ih + self.b_hh
            ingate, forgetgate, cellgate, outgate = gates.chunk(4, 1)
            cx = torch.sigmoid(forgetgate) * cx + torch.sigmoid(ingate) * torch.tanh(cellgate)
            hx = torch.sigmoid(outgate) * torch.tanh(cx)
            outputs.append(hx)
        logits = self.decoder(torch.stack(outputs))
        log_probs = F.log_softmax(logits.reshape(-1, logits.size(2)), 1)
        return F.nll_loss(log_probs, targets.reshape(-1))


def batches(codes: np.ndarray, length: int, batch: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """`batch` random windows of the text: characters [time, batch] and the next ones."""
    starts = rng.integers(0, len(codes) - length - 1, batch)
    windows = np.stack([codes[s : s + length + 1] for s in starts], 1)
    return windows[:-1], windows[1:]


def sample(model: CharLSTM, alphabet: str, prompt: str, count: int) -> str:
    """Greedy continuation of `prompt`, run eagerly on the shim under no_grad."""
    index = {c: i for i, c in enumerate(alphabet)}
    text = prompt
    with torch.no_grad():
        w_ih, w_hh = model.w_ih.array, model.w_hh.array
        bias = model.b_ih.array + model.b_hh.array
        h = np.zeros(model.hidden, np.float32)
        c = np.zeros(model.hidden, np.float32)
        sigmoid = lambda v: 1 / (1 + np.exp(-v))  # noqa: E731
        for i in range(len(prompt) + count - 1):
            code = index[text[i]]
            gates = w_ih @ model.embedding.weight.array[code] + w_hh @ h + bias
            i_g, f_g, c_g, o_g = np.split(gates, 4)
            c = sigmoid(f_g) * c + sigmoid(i_g) * np.tanh(c_g)
            h = sigmoid(o_g) * np.tanh(c)
            if i >= len(prompt) - 1:
                logits = model.decoder.weight.array @ h + model.decoder.bias.array
                text += alphabet[int(np.argmax(logits))]
    return text


def train(steps: int, hidden: int, length: int, batch: int, backend: str, report: int, lr: float) -> list[float]:
    torch.manual_seed(0)
    alphabet = "".join(sorted(set(TEXT)))
    codes = np.array([alphabet.index(c) for c in TEXT], np.int64)
    module = CharLSTM(len(alphabet), 16, hidden)
    model = tsjit.script(module).to_backend(backend)
    optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    rng = np.random.default_rng(0)
    losses = []
    start = time.perf_counter()
    for step in range(steps):
        inputs, targets = batches(codes, length, batch, rng)
        loss = model(torch.tensor(inputs), torch.tensor(targets))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        if step % report == 0 or step == steps - 1:
            print(f"step {step:4d}  loss {losses[-1]:.4f}")
    elapsed = time.perf_counter() - start
    print(f"{steps} steps in {elapsed:.2f} s ({1e3 * elapsed / steps:.1f} ms per step, {backend})")
    print("sample:", repr(sample(module, alphabet, "The ", 60)))
    return losses


def main(argv: list[str] | None = None) -> list[float]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--hidden", type=int, default=64)
    parser.add_argument("--length", type=int, default=24, help="characters per sequence")
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--lr", type=float, default=0.5)
    parser.add_argument("--backend", default="interp", choices=("interp", "llvm", "auto"))
    parser.add_argument("--report", type=int, default=20, help="print the loss every N steps")
    args = parser.parse_args(argv)
    return train(args.steps, args.hidden, args.length, args.batch, args.backend, args.report, args.lr)


if __name__ == "__main__":
    main()
