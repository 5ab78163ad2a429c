"""Transformer layers (`torch.nn.modules.transformer`): encoder and decoder layers and
stacks, and the full encoder-decoder. `forward` is PyTorch's general path; its inference
fast paths (`_transformer_encoder_layer_fwd`, nested tensors for padded batches) are left
out, as they compute the same values for the positions that are not padding."""

from __future__ import annotations

import copy

from tsjit.frontend import torch_shim as torch
from tsjit.frontend.library import functional as F
from tsjit.frontend.library.layers.activation import MultiheadAttention
from tsjit.frontend.library.layers.container import ModuleList
from tsjit.frontend.library.layers.dropout import Dropout
from tsjit.frontend.library.layers.linear import Linear
from tsjit.frontend.library.layers.normalization import LayerNorm
from tsjit.frontend.torch_shim import Tensor
from tsjit.frontend.torch_shim.nn import init
from tsjit.frontend.torch_shim.nn.module import Module


def _generate_square_subsequent_mask(
    sz: int, device: torch.device | None = None, dtype: int | None = None
) -> Tensor:
    """A square causal mask: -inf above the diagonal, 0 elsewhere."""
    return torch.triu(torch.full((sz, sz), float("-inf"), dtype=dtype, device=device), diagonal=1)


def _get_activation_fn(activation: str):
    if activation == "relu":
        return F.relu
    elif activation == "gelu":
        return F.gelu
    raise RuntimeError(f"activation should be relu/gelu, not {activation}")


def _get_clones(module: Module, n: int) -> ModuleList:
    return ModuleList([copy.deepcopy(module) for _ in range(n)])


def _get_seq_len(src: Tensor, batch_first: bool) -> int | None:
    src_size = src.size()
    if len(src_size) == 2:
        # unbatched: S, E
        return src_size[0]
    else:
        # batched: B, S, E if batch_first else S, B, E
        seq_len_pos = 1 if batch_first else 0
        return src_size[seq_len_pos]


def _detect_is_causal_mask(
    mask: Tensor | None, is_causal: bool | None = None, size: int | None = None
) -> bool:
    """Whether `mask` is causal: the hint `is_causal` when given, else a comparison."""
    # Prevent type refinement
    make_causal = is_causal is True
    if is_causal is None and mask is not None:
        sz = size if size is not None else mask.size(-2)
        causal_comparison = _generate_square_subsequent_mask(sz, device=mask.device, dtype=mask.dtype)
        # Do not use `torch.equal` so we handle batched masks by broadcasting the comparison.
        if mask.size() == causal_comparison.size():
            make_causal = bool((mask == causal_comparison).all())
        else:
            make_causal = False
    return make_causal


class TransformerEncoderLayer(Module):
    __constants__ = ("norm_first",)
    norm_first: bool
    activation_relu_or_gelu: int

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation="relu", layer_norm_eps: float = 1e-5, batch_first: bool = False, norm_first: bool = False,
                 bias: bool = True, device=None, dtype=None):  # fmt: skip
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first,
                                            dtype=dtype)  # fmt: skip
        # Implementation of Feedforward model
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, dtype=dtype)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, dtype=dtype)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        if isinstance(activation, str):
            activation = _get_activation_fn(activation)
        # the fast path's activation code: 1 relu, 2 gelu, 0 anything else
        if activation is F.relu or type(activation).__name__ == "ReLU":
            self.activation_relu_or_gelu = 1
        elif activation is F.gelu or type(activation).__name__ == "GELU":
            self.activation_relu_or_gelu = 2
        else:
            self.activation_relu_or_gelu = 0
        self.activation = activation

    def forward(self, src: Tensor, src_mask: Tensor | None = None, src_key_padding_mask: Tensor | None = None,
                is_causal: bool = False) -> Tensor:  # fmt: skip
        src_key_padding_mask = F._canonical_mask(
            mask=src_key_padding_mask,
            mask_name="src_key_padding_mask",
            other_type=F._none_or_dtype(src_mask),
            other_name="src_mask",
            target_type=src.dtype,
        )
        src_mask = F._canonical_mask(
            mask=src_mask, mask_name="src_mask", other_type=None, other_name="", target_type=src.dtype,
            check_other=False,
        )  # fmt: skip
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal=is_causal)
            x = x + self._ff_block(self.norm2(x))
        else:
            x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal=is_causal))
            x = self.norm2(x + self._ff_block(x))
        return x

    def _sa_block(self, x: Tensor, attn_mask: Tensor | None, key_padding_mask: Tensor | None,
                  is_causal: bool = False) -> Tensor:  # fmt: skip
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, need_weights=False,
                           is_causal=is_causal)[0]  # fmt: skip
        return self.dropout1(x)

    def _ff_block(self, x: Tensor) -> Tensor:
        x = self.linear2(self.dropout(self.activation(self.linear1(x))))
        return self.dropout2(x)


class TransformerDecoderLayer(Module):
    __constants__ = ("norm_first",)
    norm_first: bool

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation="relu", layer_norm_eps: float = 1e-5, batch_first: bool = False, norm_first: bool = False,
                 bias: bool = True, device=None, dtype=None):  # fmt: skip
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first, bias=bias,
                                            dtype=dtype)  # fmt: skip
        self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first, bias=bias,
                                                 dtype=dtype)  # fmt: skip
        # Implementation of Feedforward model
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, dtype=dtype)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, dtype=dtype)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
        self.norm3 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.dropout3 = Dropout(dropout)
        self.activation = _get_activation_fn(activation) if isinstance(activation, str) else activation

    def forward(self, tgt: Tensor, memory: Tensor, tgt_mask: Tensor | None = None, memory_mask: Tensor | None = None,
                tgt_key_padding_mask: Tensor | None = None, memory_key_padding_mask: Tensor | None = None,
                tgt_is_causal: bool = False, memory_is_causal: bool = False) -> Tensor:  # fmt: skip
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask, tgt_is_causal)
            x = x + self._mha_block(
                self.norm2(x), memory, memory_mask, memory_key_padding_mask, memory_is_causal
            )
            x = x + self._ff_block(self.norm3(x))
        else:
            x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask, tgt_is_causal))
            x = self.norm2(
                x + self._mha_block(x, memory, memory_mask, memory_key_padding_mask, memory_is_causal)
            )
            x = self.norm3(x + self._ff_block(x))
        return x

    def _sa_block(self, x: Tensor, attn_mask: Tensor | None, key_padding_mask: Tensor | None,
                  is_causal: bool = False) -> Tensor:  # fmt: skip
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, is_causal=is_causal,
                           need_weights=False)[0]  # fmt: skip
        return self.dropout1(x)

    def _mha_block(self, x: Tensor, mem: Tensor, attn_mask: Tensor | None, key_padding_mask: Tensor | None,
                   is_causal: bool = False) -> Tensor:  # fmt: skip
        x = self.multihead_attn(x, mem, mem, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                                is_causal=is_causal, need_weights=False)[0]  # fmt: skip
        return self.dropout2(x)

    def _ff_block(self, x: Tensor) -> Tensor:
        x = self.linear2(self.dropout(self.activation(self.linear1(x))))
        return self.dropout3(x)


class TransformerEncoder(Module):
    __constants__ = ("norm",)
    num_layers: int
    enable_nested_tensor: bool
    use_nested_tensor: bool
    mask_check: bool

    def __init__(self, encoder_layer: TransformerEncoderLayer, num_layers: int, norm: Module | None = None,
                 enable_nested_tensor: bool = True, mask_check: bool = True):  # fmt: skip
        super().__init__()
        self.layers = _get_clones(encoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm
        self.enable_nested_tensor = enable_nested_tensor
        # the nested-tensor fast path is not taken: tsjit has no nested tensors
        self.use_nested_tensor = False
        self.mask_check = mask_check

    def forward(self, src: Tensor, mask: Tensor | None = None, src_key_padding_mask: Tensor | None = None,
                is_causal: bool | None = None) -> Tensor:  # fmt: skip
        src_key_padding_mask = F._canonical_mask(
            mask=src_key_padding_mask,
            mask_name="src_key_padding_mask",
            other_type=F._none_or_dtype(mask),
            other_name="mask",
            target_type=src.dtype,
        )
        mask = F._canonical_mask(
            mask=mask,
            mask_name="mask",
            other_type=None,
            other_name="",
            target_type=src.dtype,
            check_other=False,
        )
        output = src
        first_layer = self.layers[0]
        batch_first = first_layer.self_attn.batch_first
        seq_len = _get_seq_len(src, batch_first)
        is_causal = _detect_is_causal_mask(mask, is_causal, seq_len)
        for mod in self.layers:
            output = mod(
                output, src_mask=mask, is_causal=is_causal, src_key_padding_mask=src_key_padding_mask
            )
        if self.norm is not None:
            output = self.norm(output)
        return output


class TransformerDecoder(Module):
    __constants__ = ("norm",)
    num_layers: int

    def __init__(self, decoder_layer: TransformerDecoderLayer, num_layers: int, norm: Module | None = None):
        super().__init__()
        self.layers = _get_clones(decoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, tgt: Tensor, memory: Tensor, tgt_mask: Tensor | None = None, memory_mask: Tensor | None = None,
                tgt_key_padding_mask: Tensor | None = None, memory_key_padding_mask: Tensor | None = None,
                tgt_is_causal: bool | None = None, memory_is_causal: bool = False) -> Tensor:  # fmt: skip
        output = tgt
        seq_len = _get_seq_len(tgt, self.layers[0].self_attn.batch_first)
        tgt_is_causal = _detect_is_causal_mask(tgt_mask, tgt_is_causal, seq_len)
        for mod in self.layers:
            output = mod(output, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                         tgt_key_padding_mask=tgt_key_padding_mask, memory_key_padding_mask=memory_key_padding_mask,
                         tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)  # fmt: skip
        if self.norm is not None:
            output = self.norm(output)
        return output


class Transformer(Module):
    d_model: int
    nhead: int
    batch_first: bool

    def __init__(self, d_model: int = 512, nhead: int = 8, num_encoder_layers: int = 6, num_decoder_layers: int = 6,
                 dim_feedforward: int = 2048, dropout: float = 0.1, activation="relu", custom_encoder=None,
                 custom_decoder=None, layer_norm_eps: float = 1e-5, batch_first: bool = False,
                 norm_first: bool = False, bias: bool = True, device=None, dtype=None):  # fmt: skip
        super().__init__()
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            encoder_layer = TransformerEncoderLayer(d_model, nhead, dim_feedforward, dropout, activation,
                                                    layer_norm_eps, batch_first, norm_first, bias, dtype=dtype)  # fmt: skip
            encoder_norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
            self.encoder = TransformerEncoder(encoder_layer, num_encoder_layers, encoder_norm)
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            decoder_layer = TransformerDecoderLayer(d_model, nhead, dim_feedforward, dropout, activation,
                                                    layer_norm_eps, batch_first, norm_first, bias, dtype=dtype)  # fmt: skip
            decoder_norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
            self.decoder = TransformerDecoder(decoder_layer, num_decoder_layers, decoder_norm)
        for p in self.parameters():
            if p.dim() > 1:
                init.xavier_uniform_(p)
        self.d_model = d_model
        self.nhead = nhead
        self.batch_first = batch_first

    def forward(self, src: Tensor, tgt: Tensor, src_mask: Tensor | None = None, tgt_mask: Tensor | None = None,
                memory_mask: Tensor | None = None, src_key_padding_mask: Tensor | None = None,
                tgt_key_padding_mask: Tensor | None = None, memory_key_padding_mask: Tensor | None = None,
                src_is_causal: bool | None = None, tgt_is_causal: bool | None = None,
                memory_is_causal: bool = False) -> Tensor:  # fmt: skip
        is_batched = src.dim() == 3
        if not self.batch_first and src.size(1) != tgt.size(1) and is_batched:
            raise RuntimeError("the batch number of src and tgt must be equal")
        elif self.batch_first and src.size(0) != tgt.size(0) and is_batched:
            raise RuntimeError("the batch number of src and tgt must be equal")
        if src.size(-1) != self.d_model or tgt.size(-1) != self.d_model:
            raise RuntimeError("the feature number of src and tgt must be equal to d_model")
        memory = self.encoder(
            src, mask=src_mask, src_key_padding_mask=src_key_padding_mask, is_causal=src_is_causal
        )
        output = self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                              tgt_key_padding_mask=tgt_key_padding_mask,
                              memory_key_padding_mask=memory_key_padding_mask, tgt_is_causal=tgt_is_causal,
                              memory_is_causal=memory_is_causal)  # fmt: skip
        return output

    @staticmethod
    def generate_square_subsequent_mask(sz: int, device=None, dtype=None) -> Tensor:
        return _generate_square_subsequent_mask(sz, dtype=dtype, device=device)
