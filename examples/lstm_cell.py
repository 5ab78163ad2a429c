"""The LSTM cell of PyTorch's JIT overview (`LSTMCellS`), as TorchScript source.

tsjit scripts this file without PyTorch (`import torch` binds tsjit's shim): the two
matrix products run in numpy, and everything after them (the bias adds, the chunk into
four gates, the sigmoids and tanhs, the new cell and hidden states) becomes one fused
native kernel, the overview's FusionGroup. `examples/demo.py` shows each step.
"""

import torch


def LSTMCellS(x, hx, cx, w_ih, w_hh, b_ih, b_hh):
    gates = x.mm(w_ih.t()) + hx.mm(w_hh.t()) + b_ih + b_hh
    ingate, forgetgate, cellgate, outgate = gates.chunk(4, 1)
    ingate = torch.sigmoid(ingate)
    forgetgate = torch.sigmoid(forgetgate)
    cellgate = torch.tanh(cellgate)
    outgate = torch.sigmoid(outgate)
    cy = (forgetgate * cx) + (ingate * cellgate)
    hy = outgate * torch.tanh(cy)
    return hy, cy
