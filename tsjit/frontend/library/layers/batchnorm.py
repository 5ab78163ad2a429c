"""Batch normalization (`torch.nn.modules.batchnorm`): running statistics in evaluation
mode, batch statistics (and running-statistics updates) in training mode."""

from __future__ import annotations

from tsjit.frontend import torch_shim as torch
from tsjit.frontend.library import functional as F
from tsjit.frontend.torch_shim import Tensor
from tsjit.frontend.torch_shim.nn import init
from tsjit.frontend.torch_shim.nn.module import Module, Parameter


class _NormBase(Module):
    """Common state of batch and instance normalization."""

    __constants__ = ("track_running_stats", "momentum", "eps", "num_features", "affine")
    num_features: int
    eps: float
    momentum: float | None
    affine: bool
    track_running_stats: bool

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1, affine: bool = True,
                 track_running_stats: bool = True, device=None, dtype=None, *, bias: bool = True):  # fmt: skip
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        if self.affine:
            self.weight = Parameter(torch.empty(num_features, dtype=dtype))
            if bias:
                self.bias = Parameter(torch.empty(num_features, dtype=dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if self.track_running_stats:
            self.register_buffer("running_mean", torch.zeros(num_features, dtype=dtype))
            self.register_buffer("running_var", torch.ones(num_features, dtype=dtype))
            self.register_buffer("num_batches_tracked", torch.tensor(0, dtype=torch.long))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def _check_input_dim(self, input: Tensor) -> None:
        raise NotImplementedError


class _BatchNorm(_NormBase):
    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        # exponential_average_factor is set to self.momentum (when it is available) only so that it gets updated in
        # ONNX graph when this node is exported to ONNX.
        momentum = self.momentum
        if momentum is None:
            exponential_average_factor = 0.0
        else:
            exponential_average_factor = momentum
        if self.training and self.track_running_stats:
            num_batches_tracked = (
                self.num_batches_tracked
            )  # a local: TorchScript refines locals, not attributes
            if num_batches_tracked is not None:
                num_batches_tracked.add_(1)
                if momentum is None:  # use cumulative moving average
                    exponential_average_factor = 1.0 / float(num_batches_tracked)
                else:  # use exponential moving average
                    exponential_average_factor = momentum
        # Mini-batch stats are used in training mode, and in eval mode when buffers are None.
        if self.training:
            bn_training = True
        else:
            bn_training = (self.running_mean is None) and (self.running_var is None)
        # Buffers are only updated if they are to be tracked and we are in training mode.
        return F.batch_norm(
            input,
            self.running_mean if not self.training or self.track_running_stats else None,
            self.running_var if not self.training or self.track_running_stats else None,
            self.weight,
            self.bias,
            bn_training,
            exponential_average_factor,
            self.eps,
        )


class BatchNorm1d(_BatchNorm):
    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() != 2 and input.dim() != 3:
            raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")


class BatchNorm2d(_BatchNorm):
    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() != 4:
            raise ValueError(f"expected 4D input (got {input.dim()}D input)")


class BatchNorm3d(_BatchNorm):
    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() != 5:
            raise ValueError(f"expected 5D input (got {input.dim()}D input)")
