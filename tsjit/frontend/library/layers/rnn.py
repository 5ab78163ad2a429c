"""Recurrent layers (`torch.nn.modules.rnn`): multi-layer, optionally bidirectional RNN,
LSTM (with projections) and GRU over padded batches, and their single-step cells.

The layers keep PyTorch's parameter names (`weight_ih_l0`, `bias_hh_l1_reverse`, ...) and
its `_flat_weights` list, which `forward` hands to the fused operator (`aten::lstm`, ...).
"""

from __future__ import annotations

import math

from tsjit.frontend import torch_shim as torch
from tsjit.frontend.torch_shim import Tensor
from tsjit.frontend.torch_shim.nn import init
from tsjit.frontend.torch_shim.nn.module import Module, Parameter

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


class RNNBase(Module):
    __constants__ = ("mode", "input_size", "hidden_size", "num_layers", "bias", "batch_first", "dropout",
                     "bidirectional", "proj_size")  # fmt: skip
    mode: str
    input_size: int
    hidden_size: int
    num_layers: int
    bias: bool
    batch_first: bool
    dropout: float
    bidirectional: bool
    proj_size: int
    _flat_weights: list[Tensor]

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False, proj_size: int = 0,
                 device=None, dtype=None):  # fmt: skip
        super().__init__()
        if not 0 <= dropout <= 1 or isinstance(dropout, bool):
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an element "
                             "being zeroed")  # fmt: skip
        if input_size <= 0:
            raise ValueError("input_size must be greater than zero")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if mode not in _GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        num_directions = 2 if bidirectional else 1
        gate_size = _GATES[mode] * hidden_size
        self._flat_weights_names = []
        self._all_weights = []
        for layer in range(num_layers):
            for direction in range(num_directions):
                real_hidden_size = proj_size if proj_size > 0 else hidden_size
                layer_input_size = input_size if layer == 0 else real_hidden_size * num_directions
                params = [("weight_ih_l{}{}", (gate_size, layer_input_size)),
                          ("weight_hh_l{}{}", (gate_size, real_hidden_size))]  # fmt: skip
                if bias:
                    params += [("bias_ih_l{}{}", (gate_size,)), ("bias_hh_l{}{}", (gate_size,))]
                if proj_size > 0:
                    params += [("weight_hr_l{}{}", (proj_size, hidden_size))]
                suffix = "_reverse" if direction == 1 else ""
                names = []
                for pattern, shape in params:
                    name = pattern.format(layer, suffix)
                    setattr(self, name, Parameter(torch.empty(*shape, dtype=dtype)))
                    names.append(name)
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self._flat_weights = [getattr(self, name) for name in self._flat_weights_names]
        self.reset_parameters()

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    @property
    def all_weights(self) -> list:
        return [[getattr(self, weight) for weight in weights] for weights in self._all_weights]

    def check_input(self, input: Tensor, batch_sizes: Tensor | None) -> None:
        expected_input_dim = 2 if batch_sizes is not None else 3
        if input.dim() != expected_input_dim:
            raise RuntimeError(f"input must have {expected_input_dim} dimensions, got {input.dim()}")
        if self.input_size != input.size(-1):
            raise RuntimeError(
                f"input.size(-1) must be equal to input_size. Expected {self.input_size}, got {input.size(-1)}"
            )

    def get_expected_hidden_size(self, input: Tensor, batch_sizes: Tensor | None) -> list[int]:
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0])
        else:
            mini_batch = input.size(0) if self.batch_first else input.size(1)
        num_directions = 2 if self.bidirectional else 1
        if self.proj_size > 0:
            expected_hidden_size = [self.num_layers * num_directions, mini_batch, self.proj_size]
        else:
            expected_hidden_size = [self.num_layers * num_directions, mini_batch, self.hidden_size]
        return expected_hidden_size

    def check_hidden_size(
        self, hx: Tensor, expected_hidden_size: list[int], msg: str = "Expected hidden size {}, got {}"
    ) -> None:
        if list(hx.size()) != expected_hidden_size:
            raise RuntimeError(msg.format(expected_hidden_size, list(hx.size())))


class _OneStateRNN(RNNBase):
    """RNN and GRU: one hidden state."""

    def check_forward_args(self, input: Tensor, hidden: Tensor, batch_sizes: Tensor | None) -> None:
        self.check_input(input, batch_sizes)
        expected_hidden_size = self.get_expected_hidden_size(input, batch_sizes)
        self.check_hidden_size(hidden, expected_hidden_size)

    def _run(self, input: Tensor, hx: Tensor) -> tuple[Tensor, Tensor]:
        raise NotImplementedError

    def forward(self, input: Tensor, hx: Tensor | None = None) -> tuple[Tensor, Tensor]:
        if input.dim() not in (2, 3):
            raise ValueError(
                f"{self._name()}: Expected input to be 2D or 3D, got {input.dim()}D tensor instead"
            )
        is_batched = input.dim() == 3
        batch_dim = 0 if self.batch_first else 1
        if not is_batched:
            input = input.unsqueeze(batch_dim)
            if hx is not None:
                if hx.dim() != 2:
                    raise RuntimeError(
                        f"For unbatched 2-D input, hx should also be 2-D but got {hx.dim()}-D tensor"
                    )
                hx = hx.unsqueeze(1)
        else:
            if hx is not None and hx.dim() != 3:
                raise RuntimeError(
                    f"For batched 3-D input, hx should also be 3-D but got {hx.dim()}-D tensor"
                )
        max_batch_size = input.size(0) if self.batch_first else input.size(1)
        if hx is None:
            num_directions = 2 if self.bidirectional else 1
            hx = torch.zeros(self.num_layers * num_directions, max_batch_size, self.hidden_size, dtype=input.dtype,
                             device=input.device)  # fmt: skip
        self.check_forward_args(input, hx, None)
        output, hidden = self._run(input, hx)
        if not is_batched:
            output = output.squeeze(batch_dim)
            hidden = hidden.squeeze(1)
        return output, hidden

    def _name(self) -> str:
        return "RNN"


class RNN(_OneStateRNN):
    nonlinearity: str

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self_nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self_nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self_nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif self_nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(f"Unknown nonlinearity '{self_nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__(mode, *args, **kwargs)
        self.nonlinearity = self_nonlinearity

    def _run(self, input: Tensor, hx: Tensor) -> tuple[Tensor, Tensor]:
        if self.mode == "RNN_TANH":
            result = torch.rnn_tanh(input, hx, self._flat_weights, self.bias, self.num_layers, self.dropout,
                                    self.training, self.bidirectional, self.batch_first)  # fmt: skip
        else:
            result = torch.rnn_relu(input, hx, self._flat_weights, self.bias, self.num_layers, self.dropout,
                                    self.training, self.bidirectional, self.batch_first)  # fmt: skip
        return result[0], result[1]


class GRU(_OneStateRNN):
    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)

    def _run(self, input: Tensor, hx: Tensor) -> tuple[Tensor, Tensor]:
        result = torch.gru(input, hx, self._flat_weights, self.bias, self.num_layers, self.dropout, self.training,
                           self.bidirectional, self.batch_first)  # fmt: skip
        return result[0], result[1]

    def _name(self) -> str:
        return "GRU"


class LSTM(RNNBase):
    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)

    def get_expected_cell_size(self, input: Tensor, batch_sizes: Tensor | None) -> list[int]:
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0])
        else:
            mini_batch = input.size(0) if self.batch_first else input.size(1)
        num_directions = 2 if self.bidirectional else 1
        return [self.num_layers * num_directions, mini_batch, self.hidden_size]

    def check_forward_args(
        self, input: Tensor, hidden: tuple[Tensor, Tensor], batch_sizes: Tensor | None
    ) -> None:
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden[0], self.get_expected_hidden_size(input, batch_sizes),
                               "Expected hidden[0] size {}, got {}")  # fmt: skip
        self.check_hidden_size(hidden[1], self.get_expected_cell_size(input, batch_sizes),
                               "Expected hidden[1] size {}, got {}")  # fmt: skip

    def forward(
        self, input: Tensor, hx: tuple[Tensor, Tensor] | None = None
    ) -> tuple[Tensor, tuple[Tensor, Tensor]]:
        num_directions = 2 if self.bidirectional else 1
        real_hidden_size = self.proj_size if self.proj_size > 0 else self.hidden_size
        if input.dim() not in (2, 3):
            raise ValueError(f"LSTM: Expected input to be 2D or 3D, got {input.dim()}D instead")
        is_batched = input.dim() == 3
        batch_dim = 0 if self.batch_first else 1
        if not is_batched:
            input = input.unsqueeze(batch_dim)
        max_batch_size = input.size(0) if self.batch_first else input.size(1)
        if hx is None:
            h_zeros = torch.zeros(self.num_layers * num_directions, max_batch_size, real_hidden_size,
                                  dtype=input.dtype, device=input.device)  # fmt: skip
            c_zeros = torch.zeros(self.num_layers * num_directions, max_batch_size, self.hidden_size,
                                  dtype=input.dtype, device=input.device)  # fmt: skip
            state = (h_zeros, c_zeros)
        else:
            if is_batched:
                if hx[0].dim() != 3 or hx[1].dim() != 3:
                    raise RuntimeError(f"For batched 3-D input, hx and cx should also be 3-D but got "
                                       f"({hx[0].dim()}-D, {hx[1].dim()}-D) tensors")  # fmt: skip
                state = hx
            else:
                if hx[0].dim() != 2 or hx[1].dim() != 2:
                    raise RuntimeError(f"For unbatched 2-D input, hx and cx should also be 2-D but got "
                                       f"({hx[0].dim()}-D, {hx[1].dim()}-D) tensors")  # fmt: skip
                state = (hx[0].unsqueeze(1), hx[1].unsqueeze(1))
        self.check_forward_args(input, state, None)
        result = torch.lstm(input, state, self._flat_weights, self.bias, self.num_layers, self.dropout, self.training,
                            self.bidirectional, self.batch_first)  # fmt: skip
        output = result[0]
        hidden = (result[1], result[2])
        if not is_batched:
            output = output.squeeze(batch_dim)
            hidden = (hidden[0].squeeze(1), hidden[1].squeeze(1))
        return output, hidden


class RNNCellBase(Module):
    __constants__ = ("input_size", "hidden_size", "bias")
    input_size: int
    hidden_size: int
    bias: bool
    weight_ih: Tensor
    weight_hh: Tensor

    def __init__(
        self, input_size: int, hidden_size: int, bias: bool, num_chunks: int, device=None, dtype=None
    ):
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = Parameter(torch.empty(num_chunks * hidden_size, input_size, dtype=dtype))
        self.weight_hh = Parameter(torch.empty(num_chunks * hidden_size, hidden_size, dtype=dtype))
        if bias:
            self.bias_ih = Parameter(torch.empty(num_chunks * hidden_size, dtype=dtype))
            self.bias_hh = Parameter(torch.empty(num_chunks * hidden_size, dtype=dtype))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)


class RNNCell(RNNCellBase):
    __constants__ = ("input_size", "hidden_size", "bias", "nonlinearity")
    nonlinearity: str

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, nonlinearity: str = "tanh", device=None,
                 dtype=None):  # fmt: skip
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device, dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        if input.dim() not in (1, 2):
            raise ValueError(f"RNNCell: Expected input to be 1D or 2D, got {input.dim()}D instead")
        if hx is not None and hx.dim() not in (1, 2):
            raise ValueError(f"RNNCell: Expected hidden to be 1D or 2D, got {hx.dim()}D instead")
        is_batched = input.dim() == 2
        if not is_batched:
            input = input.unsqueeze(0)
        if hx is None:
            hx = torch.zeros(input.size(0), self.hidden_size, dtype=input.dtype, device=input.device)
        else:
            hx = hx.unsqueeze(0) if not is_batched else hx
        if self.nonlinearity == "tanh":
            ret = torch.rnn_tanh_cell(input, hx, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        elif self.nonlinearity == "relu":
            ret = torch.rnn_relu_cell(input, hx, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        else:
            ret = input
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        if not is_batched:
            ret = ret.squeeze(0)
        return ret


class LSTMCell(RNNCellBase):
    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device, dtype=dtype)

    def forward(self, input: Tensor, hx: tuple[Tensor, Tensor] | None = None) -> tuple[Tensor, Tensor]:
        if input.dim() not in (1, 2):
            raise ValueError(f"LSTMCell: Expected input to be 1D or 2D, got {input.dim()}D instead")
        if hx is not None:
            for idx, value in enumerate(hx):
                if value.dim() not in (1, 2):
                    raise ValueError(
                        f"LSTMCell: Expected hx[{idx}] to be 1D or 2D, got {value.dim()}D instead"
                    )
        is_batched = input.dim() == 2
        if not is_batched:
            input = input.unsqueeze(0)
        if hx is None:
            zeros = torch.zeros(input.size(0), self.hidden_size, dtype=input.dtype, device=input.device)
            hx = (zeros, zeros)
        else:
            hx = (hx[0].unsqueeze(0), hx[1].unsqueeze(0)) if not is_batched else hx
        ret = torch.lstm_cell(input, hx, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        if not is_batched:
            ret = (ret[0].squeeze(0), ret[1].squeeze(0))
        return ret


class GRUCell(RNNCellBase):
    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device, dtype=dtype)

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        if input.dim() not in (1, 2):
            raise ValueError(f"GRUCell: Expected input to be 1D or 2D, got {input.dim()}D instead")
        if hx is not None and hx.dim() not in (1, 2):
            raise ValueError(f"GRUCell: Expected hidden to be 1D or 2D, got {hx.dim()}D instead")
        is_batched = input.dim() == 2
        if not is_batched:
            input = input.unsqueeze(0)
        if hx is None:
            hx = torch.zeros(input.size(0), self.hidden_size, dtype=input.dtype, device=input.device)
        else:
            hx = hx.unsqueeze(0) if not is_batched else hx
        ret = torch.gru_cell(input, hx, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        if not is_batched:
            ret = ret.squeeze(0)
        return ret
