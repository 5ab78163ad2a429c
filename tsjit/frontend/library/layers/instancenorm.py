"""Instance normalization (`torch.nn.modules.instancenorm`): statistics per sample and
channel; running statistics only when tracked and evaluating."""

from __future__ import annotations

import warnings

from tsjit.frontend.library import functional as F
from tsjit.frontend.library.layers.batchnorm import _NormBase
from tsjit.frontend.torch_shim import Tensor


class _InstanceNorm(_NormBase):
    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.1, affine: bool = False,
                 track_running_stats: bool = False, device=None, dtype=None, *, bias: bool = True):  # fmt: skip
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias)

    def _get_no_batch_dim(self) -> int:
        raise NotImplementedError

    def _handle_no_batch_input(self, input: Tensor) -> Tensor:
        return self._apply_instance_norm(input.unsqueeze(0)).squeeze(0)

    def _apply_instance_norm(self, input: Tensor) -> Tensor:
        momentum = self.momentum  # a local: TorchScript refines locals, not attributes
        return F.instance_norm(
            input,
            self.running_mean,
            self.running_var,
            self.weight,
            self.bias,
            self.training or not self.track_running_stats,
            momentum if momentum is not None else 0.0,
            self.eps,
        )

    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        feature_dim = input.dim() - self._get_no_batch_dim()
        if input.size(feature_dim) != self.num_features:
            if self.affine:
                raise ValueError(
                    f"expected input's size at dim={feature_dim} to match num_features"
                    f" ({self.num_features}), but got: {input.size(feature_dim)}."
                )
            else:
                warnings.warn(
                    f"input's size at dim={feature_dim} does not match num_features. "
                    "You can silence this warning by not passing in num_features, "
                    "which is not used because affine=False"
                )
        if input.dim() == self._get_no_batch_dim():
            return self._handle_no_batch_input(input)
        return self._apply_instance_norm(input)


class InstanceNorm1d(_InstanceNorm):
    def _get_no_batch_dim(self) -> int:
        return 2

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() not in (2, 3):
            raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")


class InstanceNorm2d(_InstanceNorm):
    def _get_no_batch_dim(self) -> int:
        return 3

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() not in (3, 4):
            raise ValueError(f"expected 3D or 4D input (got {input.dim()}D input)")


class InstanceNorm3d(_InstanceNorm):
    def _get_no_batch_dim(self) -> int:
        return 4

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() not in (4, 5):
            raise ValueError(f"expected 4D or 5D input (got {input.dim()}D input)")
