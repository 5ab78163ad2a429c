"""The models of the archive issue, traced by the tests: written against PyTorch's
`torch.nn`, they run on PyTorch (scripts/generate_traced_data.py records them) and on
tsjit's torch shim (the tests trace them without PyTorch)."""

import torch
from torch import nn


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
        self.layer = nn.TransformerEncoderLayer(d_model=16, nhead=4, dim_feedforward=32, dropout=0.0, batch_first=True)

    def forward(self, x):
        return self.layer(x)


class Recurrent(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(8, 16, batch_first=True)
        self.head = nn.Linear(16, 4)

    def forward(self, x):
        out, (h, c) = self.lstm(x)
        return self.head(out[:, -1]), h


MODELS = {
    "SmallCNN": (SmallCNN, [(2, 3, 8, 8), (1, 3, 8, 8)]),
    "Encoder": (Encoder, [(2, 5, 16), (2, 5, 16)]),
    "Recurrent": (Recurrent, [(2, 6, 8), (2, 6, 8)]),
}
"""Each model's class and the shapes of its example input, then of a check input."""
