"""Activation layers, softmaxes and multi-head attention (`torch.nn.modules.activation`)."""

from __future__ import annotations

from tsjit.frontend import torch_shim as torch
from tsjit.frontend.library import functional as F
from tsjit.frontend.library.layers.linear import NonDynamicallyQuantizableLinear
from tsjit.frontend.torch_shim import Tensor
from tsjit.frontend.torch_shim.nn import init
from tsjit.frontend.torch_shim.nn.module import Module, Parameter


class Threshold(Module):
    __constants__ = ("threshold", "value", "inplace")
    threshold: float
    value: float
    inplace: bool

    def __init__(self, threshold: float, value: float, inplace: bool = False):
        super().__init__()
        self.threshold = threshold
        self.value = value
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.threshold(input, self.threshold, self.value, self.inplace)


class ReLU(Module):
    __constants__ = ("inplace",)
    inplace: bool

    def __init__(self, inplace: bool = False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.relu(input, inplace=self.inplace)


class RReLU(Module):
    __constants__ = ("lower", "upper", "inplace")
    lower: float
    upper: float
    inplace: bool

    def __init__(self, lower: float = 1.0 / 8, upper: float = 1.0 / 3, inplace: bool = False):
        super().__init__()
        self.lower = lower
        self.upper = upper
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)


class Hardtanh(Module):
    __constants__ = ("min_val", "max_val", "inplace")
    min_val: float
    max_val: float
    inplace: bool

    def __init__(self, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False,
                 min_value: float | None = None, max_value: float | None = None):  # fmt: skip
        super().__init__()
        if min_value is not None:
            min_val = min_value
        if max_value is not None:
            max_val = max_value
        self.min_val = min_val
        self.max_val = max_val
        self.inplace = inplace
        if self.max_val <= self.min_val:
            raise AssertionError(f"max_val ({self.max_val}) must be greater than min_val ({self.min_val})")

    def forward(self, input: Tensor) -> Tensor:
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)


class ReLU6(Hardtanh):
    def __init__(self, inplace: bool = False):
        super().__init__(0.0, 6.0, inplace)


class Sigmoid(Module):
    def forward(self, input: Tensor) -> Tensor:
        return torch.sigmoid(input)


class Hardsigmoid(Module):
    __constants__ = ("inplace",)
    inplace: bool

    def __init__(self, inplace: bool = False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.hardsigmoid(input, self.inplace)


class Tanh(Module):
    def forward(self, input: Tensor) -> Tensor:
        return torch.tanh(input)


class SiLU(Module):
    __constants__ = ("inplace",)
    inplace: bool

    def __init__(self, inplace: bool = False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.silu(input, inplace=self.inplace)


class Mish(Module):
    __constants__ = ("inplace",)
    inplace: bool

    def __init__(self, inplace: bool = False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.mish(input, inplace=self.inplace)


class Hardswish(Module):
    __constants__ = ("inplace",)
    inplace: bool

    def __init__(self, inplace: bool = False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.hardswish(input, self.inplace)


class ELU(Module):
    __constants__ = ("alpha", "inplace")
    alpha: float
    inplace: bool

    def __init__(self, alpha: float = 1.0, inplace: bool = False):
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.elu(input, self.alpha, self.inplace)


class CELU(Module):
    __constants__ = ("alpha", "inplace")
    alpha: float
    inplace: bool

    def __init__(self, alpha: float = 1.0, inplace: bool = False):
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.celu(input, self.alpha, self.inplace)


class SELU(Module):
    __constants__ = ("inplace",)
    inplace: bool

    def __init__(self, inplace: bool = False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.selu(input, self.inplace)


class GLU(Module):
    __constants__ = ("dim",)
    dim: int

    def __init__(self, dim: int = -1):
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return F.glu(input, self.dim)


class GELU(Module):
    __constants__ = ("approximate",)
    approximate: str

    def __init__(self, approximate: str = "none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, input: Tensor) -> Tensor:
        return F.gelu(input, approximate=self.approximate)


class Hardshrink(Module):
    __constants__ = ("lambd",)
    lambd: float

    def __init__(self, lambd: float = 0.5):
        super().__init__()
        self.lambd = lambd

    def forward(self, input: Tensor) -> Tensor:
        return F.hardshrink(input, self.lambd)


class LeakyReLU(Module):
    __constants__ = ("inplace", "negative_slope")
    inplace: bool
    negative_slope: float

    def __init__(self, negative_slope: float = 1e-2, inplace: bool = False):
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.leaky_relu(input, self.negative_slope, self.inplace)


class LogSigmoid(Module):
    def forward(self, input: Tensor) -> Tensor:
        return F.logsigmoid(input)


class Softplus(Module):
    __constants__ = ("beta", "threshold")
    beta: float
    threshold: float

    def __init__(self, beta: float = 1.0, threshold: float = 20.0):
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, input: Tensor) -> Tensor:
        return F.softplus(input, self.beta, self.threshold)


class Softshrink(Module):
    __constants__ = ("lambd",)
    lambd: float

    def __init__(self, lambd: float = 0.5):
        super().__init__()
        self.lambd = lambd

    def forward(self, input: Tensor) -> Tensor:
        return F.softshrink(input, self.lambd)


class PReLU(Module):
    __constants__ = ("num_parameters",)
    num_parameters: int
    init: float
    weight: Tensor

    def __init__(self, num_parameters: int = 1, init: float = 0.25, device=None, dtype=None):
        self.num_parameters = num_parameters
        super().__init__()
        self.init = init
        self.weight = Parameter(torch.empty(num_parameters, dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.constant_(self.weight, self.init)

    def forward(self, input: Tensor) -> Tensor:
        return F.prelu(input, self.weight)


class Softsign(Module):
    def forward(self, input: Tensor) -> Tensor:
        return F.softsign(input)


class Tanhshrink(Module):
    def forward(self, input: Tensor) -> Tensor:
        return F.tanhshrink(input)


class Softmin(Module):
    __constants__ = ("dim",)
    dim: int | None

    def __init__(self, dim: int | None = None):
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return F.softmin(input, self.dim, _stacklevel=5)


class Softmax(Module):
    __constants__ = ("dim",)
    dim: int | None

    def __init__(self, dim: int | None = None):
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return F.softmax(input, self.dim, _stacklevel=5)


class Softmax2d(Module):
    def forward(self, input: Tensor) -> Tensor:
        if input.dim() not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.dim()}D instead")
        return F.softmax(input, -3, _stacklevel=5)


class LogSoftmax(Module):
    __constants__ = ("dim",)
    dim: int | None

    def __init__(self, dim: int | None = None):
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return F.log_softmax(input, self.dim, _stacklevel=5)


class MultiheadAttention(Module):
    """PyTorch's multi-head attention; `forward` is its general path (the inference fast
    path `_native_multi_head_attention` computes the same values)."""

    __constants__ = ("batch_first",)
    embed_dim: int
    kdim: int
    vdim: int
    _qkv_same_embed_dim: bool
    num_heads: int
    dropout: float
    batch_first: bool
    head_dim: int
    add_zero_attn: bool
    bias_k: Tensor | None
    bias_v: Tensor | None

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False, add_zero_attn=False,
                 kdim=None, vdim=None, batch_first=False, device=None, dtype=None):  # fmt: skip
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(
                f"embed_dim and num_heads must be greater than 0, got embed_dim={embed_dim} and num_heads={num_heads} "
                "instead"
            )
        super().__init__()
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != self.embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        if not self._qkv_same_embed_dim:
            self.q_proj_weight = Parameter(torch.empty(embed_dim, embed_dim, dtype=dtype))
            self.k_proj_weight = Parameter(torch.empty(embed_dim, self.kdim, dtype=dtype))
            self.v_proj_weight = Parameter(torch.empty(embed_dim, self.vdim, dtype=dtype))
            self.register_parameter("in_proj_weight", None)
        else:
            self.in_proj_weight = Parameter(torch.empty(3 * embed_dim, embed_dim, dtype=dtype))
            self.register_parameter("q_proj_weight", None)
            self.register_parameter("k_proj_weight", None)
            self.register_parameter("v_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(torch.empty(3 * embed_dim, dtype=dtype))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias, dtype=dtype)
        if add_bias_kv:
            self.bias_k = Parameter(torch.empty(1, 1, embed_dim, dtype=dtype))
            self.bias_v = Parameter(torch.empty(1, 1, embed_dim, dtype=dtype))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self) -> None:
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            init.xavier_normal_(self.bias_v)

    def forward(
        self,
        query: Tensor,
        key: Tensor,
        value: Tensor,
        key_padding_mask: Tensor | None = None,
        need_weights: bool = True,
        attn_mask: Tensor | None = None,
        average_attn_weights: bool = True,
        is_causal: bool = False,
    ) -> tuple[Tensor, Tensor | None]:
        is_batched = query.dim() == 3
        key_padding_mask = F._canonical_mask(
            mask=key_padding_mask,
            mask_name="key_padding_mask",
            other_type=F._none_or_dtype(attn_mask),
            other_name="attn_mask",
            target_type=query.dtype,
        )
        attn_mask = F._canonical_mask(
            mask=attn_mask,
            mask_name="attn_mask",
            other_type=None,
            other_name="",
            target_type=query.dtype,
            check_other=False,
        )
        if self.batch_first and is_batched:
            # make sure that the transpose op does not affect the "is" property
            if key is value:
                if query is key:
                    query = key = value = query.transpose(1, 0)
                else:
                    query, key = query.transpose(1, 0), key.transpose(1, 0)
                    value = key
            else:
                query, key, value = query.transpose(1, 0), key.transpose(1, 0), value.transpose(1, 0)
        if not self._qkv_same_embed_dim:
            attn_output, attn_output_weights = F.multi_head_attention_forward(
                query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight, self.in_proj_bias,
                self.bias_k, self.bias_v, self.add_zero_attn, self.dropout, self.out_proj.weight, self.out_proj.bias,
                training=self.training, key_padding_mask=key_padding_mask, need_weights=need_weights,
                attn_mask=attn_mask, use_separate_proj_weight=True, q_proj_weight=self.q_proj_weight,
                k_proj_weight=self.k_proj_weight, v_proj_weight=self.v_proj_weight,
                average_attn_weights=average_attn_weights, is_causal=is_causal,
            )  # fmt: skip
        else:
            attn_output, attn_output_weights = F.multi_head_attention_forward(
                query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight, self.in_proj_bias,
                self.bias_k, self.bias_v, self.add_zero_attn, self.dropout, self.out_proj.weight, self.out_proj.bias,
                training=self.training, key_padding_mask=key_padding_mask, need_weights=need_weights,
                attn_mask=attn_mask, average_attn_weights=average_attn_weights, is_causal=is_causal,
            )  # fmt: skip
        if self.batch_first and is_batched:
            return attn_output.transpose(1, 0), attn_output_weights
        else:
            return attn_output, attn_output_weights

    def merge_masks(
        self, attn_mask: Tensor | None, key_padding_mask: Tensor | None, query: Tensor
    ) -> tuple[Tensor | None, int | None]:
        mask_type: int | None = None
        merged_mask: Tensor | None = None
        if key_padding_mask is not None:
            mask_type = 1
            merged_mask = key_padding_mask
        if attn_mask is not None:
            # In this branch query can't be a nested tensor, so it has a shape
            batch_size, seq_len, _ = query.shape
            mask_type = 2
            # Always expands attn_mask to 4D
            if attn_mask.dim() == 3:
                attn_mask_expanded = attn_mask.view(batch_size, -1, seq_len, seq_len)
            else:  # attn_mask.dim() == 2:
                attn_mask_expanded = attn_mask.view(1, 1, seq_len, seq_len).expand(
                    batch_size, self.num_heads, -1, -1
                )
            merged_mask = attn_mask_expanded
            if key_padding_mask is not None:
                key_padding_mask_expanded = key_padding_mask.view(batch_size, 1, 1, seq_len).expand(
                    -1, self.num_heads, -1, -1
                )
                merged_mask = attn_mask_expanded + key_padding_mask_expanded
        return merged_mask, mask_type
