"""Eager programs beyond the corpus, traced by PyTorch (scripts/generate_traced_data.py
records `programs.json`) and by tsjit without PyTorch (test/unit/frontend/test_traced_programs.py):
indexing and assignment, sizes, splitting, reductions, `torch.nn.functional`, Python
numbers and operators, dtypes, factories, views and in-place updates, containers in and
out, modules with submodules called more than once, and scripted helpers."""

import math

import torch
import torch.nn.functional as F
from torch import nn


def index_basic(x):
    return x[0], x[:, 1:3], x[..., None], x[1:, ::2], x[-1], x[:, -2:], x[None, 1]


def index_advanced(x):
    return x[x > 0.5], x[[0, 2]], x[:, [1, 0]], x[1, [0, 3]]


def assign(x):
    y = x.clone()
    y[0] = 1.0
    y[:, 1] = y[:, 0]
    y[y < 0.2] = 0.0
    y[1:3, 2:] = torch.zeros(2, 3)
    return y


def sizes(x):
    a = x.view(x.size(0), -1)
    b = x.reshape(x.shape[0], x.shape[1] * x.shape[2])
    c = x.flatten(1)
    d = x.new_zeros(x.shape)
    e = x.expand(2, *x.shape)
    return a, b, c, d, e


def split_chunk(x):
    a, b = torch.split(x, 2, dim=1)
    c, d = x.chunk(2)
    rows = x.unbind(0)
    p, q = x.split([1, 3], 1)
    return a, b, c, d, rows[0], rows[-1], p, q


def reductions(x):
    return (x.max(dim=1).values, x.min(1)[1], x.mean((0, 1)), x.std(), x.var(1), x.prod(1), x.norm(),
            x.amax(-1), x.logsumexp(1), x.cumsum(0), x.argmax(), x.sum(0, keepdim=True))  # fmt: skip


def sort_topk(x):
    values, indices = torch.topk(x, 2, dim=1)
    s, i = x.sort(1, descending=True)
    return values, indices, s, i, x.argsort(0)


def functional(x, w, b):
    h = F.linear(x, w, b)
    return (F.relu(h), F.gelu(h), F.silu(h), F.softmax(h, dim=-1), F.log_softmax(h, 1), F.leaky_relu(h, 0.2),
            F.elu(h), F.layer_norm(h, (3,)), F.dropout(h, 0.5, training=False), torch.sigmoid(h), torch.tanh(h),
            F.normalize(h, dim=1))  # fmt: skip


def convolution(x, w):
    y = F.conv2d(x, w, padding=1)
    return y, F.max_pool2d(y, 2), F.avg_pool2d(y, 2), F.adaptive_avg_pool2d(y, 1), torch.relu(y)


def python_numbers(x):
    return (x * math.pi, x + 1, 2 - x, 3 / x, x ** 2, x // 0.5, x % 0.3, -x, abs(x), x.clamp(0.2, 0.8),
            1.5 * x + 0.5, x / 4, torch.pow(2.0, x))  # fmt: skip


def logic(x, y):
    m = (x > 0.5) & (y < 0.5)
    return m, ~m, m | (x < 0.1), torch.where(m, x, y), x.masked_fill(m, -1.0), x.eq(y), x.ne(y).any(), m.all()


def dtypes(x, y):
    return (x.to(torch.float64), x.long(), (x * 10).int(), x.bool(), y.type_as(x), torch.zeros_like(x, dtype=torch.int64),
            x.double().float(), (x > 0.5).float().sum())  # fmt: skip


def factories(x):
    return (torch.zeros(2, 3) + x[0, 0], torch.ones(x.shape), torch.arange(x.size(0)) * 2, torch.eye(3),
            torch.full((2, 2), 7.0), torch.linspace(0, 1, 5), torch.ones_like(x) * x, torch.empty(0).numel())  # fmt: skip


def views_inplace(x):
    y = x.clone()
    flat = y.view(-1)
    flat.add_(1)
    y.mul_(2)
    z = y.transpose(0, 1).contiguous()
    z.sub_(0.5)
    w = y.unsqueeze(0).squeeze(0)
    w.clamp_(max=3.0)
    return y, z, w, x.t().t()


def products(a, b, c):
    return (torch.bmm(c, c.transpose(1, 2)), torch.einsum("ij,jk->ik", a, b), a.mm(b), torch.addmm(a[:, :1], a, b),
            torch.outer(a[0], b[:, 0]), a @ b, torch.matmul(c, b))  # fmt: skip


def lstm_cell(x, h, c, w_ih, w_hh, b):
    gates = x @ w_ih.t() + h @ w_hh.t() + b
    i, f, g, o = gates.chunk(4, 1)
    c2 = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
    h2 = torch.sigmoid(o) * torch.tanh(c2)
    return h2, c2


def containers(xs, pair, table):
    total = xs[0] + xs[1] * xs[2]
    a, (b, c) = pair
    return total, (a + b, c * 2), [table["u"] - table["v"], table["v"]]


def cat_stack(x, y):
    return torch.cat([x, y], 1), torch.stack((x, y)), torch.cat([x, y, x]), torch.stack([x, y], dim=-1), torch.hstack([x, y])


def more_operators(x, y):
    z = x.clone()
    return (x.T, torch.flip(x, [0]), torch.roll(x, 1, 0), x.index_select(1, torch.arange(2)), torch.maximum(x, y),
            torch.max(x, y), torch.tril(x), x.clamp_min(0.3), torch.isnan(x), z.abs_().sigmoid_(), x.new_ones(2),
            torch.numel(x) * x, x.flatten(), x.masked_fill(x > 0.9, 0.0), x.gather(1, x.argsort(1)),
            torch.where(x > y, 1.0, 0.0), x.unsqueeze(-1).expand(-1, -1, 2).sum(-1), x.repeat(2, 1), x.type_as(y))  # fmt: skip


@torch.jit.script
def scripted_scale(x, factor: float):
    return x * factor + 1.0


def calls_scripted(x):
    return scripted_scale(x, 2.0) - x


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.norm = nn.LayerNorm(4)
        self.act = nn.ReLU()

    def forward(self, x):
        return self.norm(self.act(self.fc(x)) + x)


class Stack(nn.Module):
    def __init__(self):
        super().__init__()
        self.first = Block()
        self.second = Block()
        self.act = nn.Tanh()
        self.head = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
        self.register_buffer("offset", torch.tensor([0.5, -0.5]))

    def forward(self, x):
        x = self.act(self.first(x))
        x = self.act(self.second(x))
        return self.head(x) + self.offset


class Embedder(nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(10, 4)
        self.layers = nn.ModuleList([nn.Linear(4, 4), nn.Linear(4, 4)])

    def forward(self, tokens):
        x = self.embedding(tokens)
        for layer in self.layers:
            x = torch.relu(layer(x))
        return x.mean(1)


F32 = "float32"
PROGRAMS = {
    "index_basic": [(F32, (4, 5))],
    "index_advanced": [(F32, (4, 5))],
    "assign": [(F32, (4, 5))],
    "sizes": [(F32, (2, 3, 4))],
    "split_chunk": [(F32, (4, 4))],
    "reductions": [(F32, (3, 4))],
    "sort_topk": [(F32, (3, 4))],
    "functional": [(F32, (2, 4)), (F32, (3, 4)), (F32, (3,))],
    "convolution": [(F32, (1, 2, 6, 6)), (F32, (3, 2, 3, 3))],
    "python_numbers": [(F32, (2, 3))],
    "logic": [(F32, (3, 3)), (F32, (3, 3))],
    "dtypes": [(F32, (2, 3)), ("float64", (2, 3))],
    "factories": [(F32, (3, 3))],
    "views_inplace": [(F32, (2, 3))],
    "products": [(F32, (2, 3)), (F32, (3, 4)), (F32, (2, 4, 3))],
    "lstm_cell": [(F32, (2, 3)), (F32, (2, 4)), (F32, (2, 4)), (F32, (16, 3)), (F32, (16, 4)), (F32, (16,))],
    "containers": [["list", [(F32, (2, 2)), (F32, (2, 2)), (F32, (2, 2))]],
                   ["tuple", [(F32, (3,)), ["tuple", [(F32, (3,)), (F32, (3,))]]]],
                   ["dict", {"u": (F32, (2,)), "v": (F32, (2,))}]],  # fmt: skip
    "cat_stack": [(F32, (2, 3)), (F32, (2, 3))],
    "more_operators": [(F32, (3, 3)), (F32, (3, 3))],
    "calls_scripted": [(F32, (2, 3))],
    "Stack": [(F32, (3, 4))],
    "Embedder": [("int64", (2, 5), 10)],
}
"""Each program's inputs: (dtype, shape[, high for integers]), or ["list" | "tuple" | "dict", specs]."""
