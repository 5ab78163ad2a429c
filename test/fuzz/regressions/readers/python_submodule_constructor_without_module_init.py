import torch


class Sub(torch.nn.Module):
    def __init__(self):
        self.k = 2

    def forward(self, x):
        return x


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.sub = Sub()

    def forward(self, x):
        return self.sub(x)
