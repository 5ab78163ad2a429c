"""Attention: `scaled_dot_product_attention` (and its math and CPU-flash spellings), the
masked softmaxes, and the fused fast paths of `nn.MultiheadAttention` and
`nn.TransformerEncoderLayer` (`_native_multi_head_attention`,
`_transformer_encoder_layer_fwd`) that scripted PyTorch modules call in inference.

Boolean masks follow each op's convention: `attn_mask` of scaled_dot_product_attention keeps
the True positions; `_masked_softmax` and the fused paths drop them. A row whose every
position is masked out gives zeros in scaled_dot_product_attention (PyTorch's safe softmax)
and NaN in `_masked_softmax`, as in PyTorch.
"""

from __future__ import annotations

import math

import numpy as np

from tsjit.runtime.errors import TorchScriptError
from tsjit.runtime.kernels import kernel
from tsjit.runtime.kernels.activation import gelu
from tsjit.runtime.kernels.common import as_tensor, shape_str, wrap_dim
from tsjit.runtime.kernels.linalg import linear
from tsjit.runtime.kernels.nn import layer_norm
from tsjit.runtime.kernels.sampling import bernoulli_mask
from tsjit.runtime.values import numpy_dtype

ndarray = np.ndarray


def _softmax(scores: ndarray, axis: int, safe: bool) -> ndarray:
    """Softmax along `axis`, in place in `scores` (a temporary of the caller's); a row of
    -inf gives zeros when `safe`, NaN otherwise."""
    top = np.max(scores, axis=axis, keepdims=True)
    if safe and np.isneginf(top).any():
        top = np.where(np.isneginf(top), scores.dtype.type(0), top)
    e = np.exp(np.subtract(scores, top, out=scores), out=scores)
    total = np.sum(e, axis=axis, keepdims=True)
    if safe:
        total = np.where(total == 0, scores.dtype.type(1), total)
    return np.divide(e, total, out=e)


def _attention_bias(
    attn_mask: ndarray | None, is_causal: bool, length: int, source: int, dtype: np.dtype
) -> ndarray | None:
    """The additive bias of a boolean (True keeps) or float mask and of causality."""
    bias = None
    if is_causal:
        if attn_mask is not None:
            raise TorchScriptError(
                "_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True"
            )
        bias = np.where(np.tril(np.ones((length, source), dtype=bool)), dtype.type(0), dtype.type(-np.inf))
    if attn_mask is not None:
        if attn_mask.dtype == np.bool_:
            bias = np.where(attn_mask, dtype.type(0), dtype.type(-np.inf))
        elif attn_mask.dtype == dtype:
            bias = attn_mask
        else:
            raise TorchScriptError(
                f"Expected attn_mask dtype to be bool or float or to match query dtype, but got attn_mask.dtype: "
                f"{attn_mask.dtype.name} and  query.dtype: {dtype.name} instead."
            )
    return bias


def _attention(
    query: ndarray,
    key: ndarray,
    value: ndarray,
    attn_mask: ndarray | None,
    dropout_p: float,
    is_causal: bool,
    scale: float | None,
    enable_gqa: bool,
    need_weights: bool = True,
) -> tuple[ndarray, ndarray | None]:
    """(output, attention weights or None) of softmax(q k^T * scale + bias) v over the
    last two axes."""
    if query.dtype.kind != "f" or key.dtype != query.dtype or value.dtype != query.dtype:
        raise TorchScriptError(
            f"Expected query, key, and value to have the same dtype, but got query.dtype: {query.dtype.name} "
            f"key.dtype: {key.dtype.name} and value.dtype: {value.dtype.name} instead."
        )
    if query.ndim < 2 or key.ndim < 2 or value.ndim < 2:
        raise TorchScriptError(
            "scaled_dot_product_attention: expected query, key and value of at least 2 dimensions"
        )
    if enable_gqa and query.ndim >= 3 and key.shape[-3] != query.shape[-3]:
        groups = query.shape[-3] // key.shape[-3]
        key = np.repeat(key, groups, axis=-3)
        value = np.repeat(value, groups, axis=-3)
    t = query.dtype.type
    factor = t(1 / math.sqrt(query.shape[-1]) if scale is None else scale)
    # Scores are computed transposed, keys along axis -2: numpy reduces across rows much
    # faster than along a short last axis, and contiguous operands keep matmul on BLAS.
    queries = np.ascontiguousarray(np.swapaxes(query * factor, -1, -2))
    scores = np.matmul(np.ascontiguousarray(key), queries)  # (..., S, L)
    bias = _attention_bias(attn_mask, is_causal, query.shape[-2], key.shape[-2], query.dtype)
    if bias is not None:
        bias = np.swapaxes(bias, -1, -2) if bias.ndim >= 2 else bias[:, None]
        if np.broadcast_shapes(scores.shape, bias.shape) == scores.shape:
            np.add(scores, bias, out=scores)
        else:
            scores = scores + bias
    values = np.swapaxes(value, -1, -2)  # (..., E, S)
    if need_weights or dropout_p > 0:
        weights = _softmax(scores, -2, safe=True).astype(query.dtype, copy=False)
        if dropout_p > 0:
            keep = bernoulli_mask(weights.shape, 1 - dropout_p)
            weights = weights * (keep / t(1 - dropout_p)).astype(query.dtype)
        output = np.matmul(np.ascontiguousarray(values), weights)
        return np.ascontiguousarray(np.swapaxes(output, -1, -2)), np.swapaxes(weights, -1, -2)
    # The softmax's normalization after the product: a row of ones under the values makes
    # the same product give each query's sum of exponentials.
    top = np.max(scores, axis=-2, keepdims=True)
    if np.isneginf(top).any():
        top = np.where(np.isneginf(top), t(0), top)
    exponentials = np.exp(np.subtract(scores, top, out=scores), out=scores)
    extended = np.empty(values.shape[:-2] + (values.shape[-2] + 1, values.shape[-1]), dtype=query.dtype)
    extended[..., :-1, :] = values
    extended[..., -1, :] = 1
    product = np.matmul(extended, exponentials)  # (..., E + 1, L)
    totals = product[..., -1:, :]
    totals = np.where(totals == 0, t(1), totals)  # every key masked: zeros, as PyTorch's safe softmax
    output = np.divide(product[..., :-1, :], totals)
    return np.ascontiguousarray(np.swapaxes(output, -1, -2)), None


@kernel("aten::scaled_dot_product_attention")
def scaled_dot_product_attention(
    query: ndarray,
    key: ndarray,
    value: ndarray,
    attn_mask: ndarray | None = None,
    dropout_p: float = 0.0,
    is_causal: bool = False,
    scale: float | None = None,
    enable_gqa: bool = False,
) -> ndarray:
    return _attention(
        query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa, need_weights=False
    )[0]


@kernel("aten::_scaled_dot_product_attention_math")
def scaled_dot_product_attention_math(
    query: ndarray,
    key: ndarray,
    value: ndarray,
    attn_mask: ndarray | None = None,
    dropout_p: float = 0.0,
    is_causal: bool = False,
    dropout_mask: ndarray | None = None,
    scale: float | None = None,
    enable_gqa: bool = False,
) -> tuple[ndarray, ndarray]:
    if dropout_mask is not None and dropout_p > 0:
        raise TorchScriptError(
            "_scaled_dot_product_attention_math: an explicit dropout_mask is not supported"
        )
    return _attention(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa)


@kernel("aten::_scaled_dot_product_flash_attention_for_cpu")
def scaled_dot_product_flash_attention_for_cpu(
    query: ndarray,
    key: ndarray,
    value: ndarray,
    dropout_p: float = 0.0,
    is_causal: bool = False,
    attn_mask: ndarray | None = None,
    scale: float | None = None,
) -> tuple[ndarray, ndarray]:
    """(output, logsumexp of the scaled scores per query), inputs (B, H, L, E)."""
    output, _ = _attention(
        query, key, value, attn_mask, dropout_p, is_causal, scale, False, need_weights=False
    )
    t = query.dtype.type
    factor = t(1 / math.sqrt(query.shape[-1]) if scale is None else scale)
    scores = np.matmul(query, np.swapaxes(key, -1, -2)) * factor
    bias = _attention_bias(attn_mask, is_causal, query.shape[-2], key.shape[-2], query.dtype)
    if bias is not None:
        scores = scores + bias
    top = np.max(scores, axis=-1, keepdims=True)
    top = np.where(np.isneginf(top), t(0), top)
    logsumexp = (np.log(np.sum(np.exp(scores - top), axis=-1, keepdims=True)) + top)[..., 0]
    return output, as_tensor(logsumexp.astype(query.dtype, copy=False))


@kernel("aten::_safe_softmax")
def safe_softmax(self: ndarray, dim: int, dtype: int | None = None) -> ndarray:
    x = self.astype(numpy_dtype(dtype), copy=False) if dtype is not None else self
    if x.dtype.kind != "f":
        raise TorchScriptError(f"_safe_softmax: expected a floating tensor, got {x.dtype.name}")
    return as_tensor(_softmax(x.copy(), wrap_dim(dim, x.ndim), safe=True))


def _masked_scores(scores: ndarray, mask: ndarray, mask_type: int | None) -> ndarray:
    """scores with -inf where the boolean mask is True: type 0 is an (L, L) attention mask,
    1 a (B, L) padding mask over the last axis, 2 (or none) anything that broadcasts."""
    if mask.dtype != np.bool_:
        raise TorchScriptError("Mask should be a boolean tensor")
    if mask_type == 1:
        mask = mask.reshape((mask.shape[0],) + (1,) * (scores.ndim - 2) + (mask.shape[-1],))
    try:
        return np.where(mask, scores.dtype.type(-np.inf), scores)
    except ValueError:
        raise TorchScriptError(
            f"_masked_softmax: mask of shape {shape_str(mask.shape)} does not broadcast to input of shape "
            f"{shape_str(scores.shape)}"
        ) from None


@kernel("aten::_masked_softmax")
def masked_softmax(
    self: ndarray, mask: ndarray, dim: int | None = None, mask_type: int | None = None
) -> ndarray:
    if self.dtype.kind != "f":
        raise TorchScriptError(f"_masked_softmax: expected a floating tensor, got {self.dtype.name}")
    axis = wrap_dim(-1 if dim is None else dim, self.ndim)
    return as_tensor(_softmax(_masked_scores(self, mask, mask_type), axis, safe=False).astype(self.dtype))


def _heads(x: ndarray, num_heads: int) -> ndarray:
    """(B, L, E) -> (B, H, L, E / H)."""
    batch, length, embed = x.shape
    return x.reshape(batch, length, num_heads, embed // num_heads).transpose(0, 2, 1, 3)


def _multi_head_attention(
    query: ndarray,
    key: ndarray,
    value: ndarray,
    embed_dim: int,
    num_heads: int,
    qkv_weight: ndarray,
    qkv_bias: ndarray,
    proj_weight: ndarray,
    proj_bias: ndarray,
    mask: ndarray | None,
    mask_type: int | None,
) -> tuple[ndarray, ndarray]:
    """(output (B, L, E), weights (B, H, L, S)) of batch-first multi-head attention whose
    projections are packed in `qkv_weight` (3E, E)."""
    if query.ndim != 3 or query.shape[-1] != embed_dim or embed_dim % num_heads:
        raise TorchScriptError(
            f"_native_multi_head_attention: expected (batch, length, {embed_dim}) inputs with embed_dim divisible "
            f"by num_heads={num_heads}, got query of size {shape_str(query.shape)}"
        )
    w_q, w_k, w_v = np.split(qkv_weight, 3)
    b_q, b_k, b_v = np.split(qkv_bias, 3)
    if query is key and key is value:
        q, k, v = np.split(linear(query, qkv_weight, qkv_bias), 3, axis=-1)
    else:
        q, k, v = linear(query, w_q, b_q), linear(key, w_k, b_k), linear(value, w_v, b_v)
    q, k, v = _heads(q, num_heads), _heads(k, num_heads), _heads(v, num_heads)
    t = query.dtype.type
    scores = np.matmul(q * t(1 / math.sqrt(embed_dim // num_heads)), np.swapaxes(k, -1, -2))
    if mask is not None:
        scores = _masked_scores(scores, mask, mask_type)
    weights = _softmax(scores, -1, safe=False).astype(query.dtype, copy=False)
    attended = np.matmul(weights, v).transpose(0, 2, 1, 3).reshape(query.shape[0], query.shape[1], embed_dim)
    return linear(np.ascontiguousarray(attended), proj_weight, proj_bias), weights


@kernel("aten::_native_multi_head_attention")
def native_multi_head_attention(
    query: ndarray,
    key: ndarray,
    value: ndarray,
    embed_dim: int,
    num_head: int,
    qkv_weight: ndarray,
    qkv_bias: ndarray,
    proj_weight: ndarray,
    proj_bias: ndarray,
    mask: ndarray | None = None,
    need_weights: bool = True,
    average_attn_weights: bool = True,
    mask_type: int | None = None,
) -> tuple[ndarray, ndarray | None]:
    """The inference fast path of `nn.MultiheadAttention` (batch first); the weights are
    None (an undefined tensor) unless asked for, averaged over the heads by default."""
    output, weights = _multi_head_attention(query, key, value, embed_dim, num_head, qkv_weight, qkv_bias,
                                            proj_weight, proj_bias, mask, mask_type)  # fmt: skip
    if not need_weights:
        return output, None
    return output, as_tensor(weights.mean(axis=1) if average_attn_weights else weights)


@kernel("aten::_transformer_encoder_layer_fwd")
def transformer_encoder_layer_fwd(
    src: ndarray,
    embed_dim: int,
    num_heads: int,
    qkv_weight: ndarray,
    qkv_bias: ndarray,
    proj_weight: ndarray,
    proj_bias: ndarray,
    use_gelu: bool,
    norm_first: bool,
    eps: float,
    norm_weight_1: ndarray,
    norm_bias_1: ndarray,
    norm_weight_2: ndarray,
    norm_bias_2: ndarray,
    ffn_weight_1: ndarray,
    ffn_bias_1: ndarray,
    ffn_weight_2: ndarray,
    ffn_bias_2: ndarray,
    mask: ndarray | None = None,
    mask_type: int | None = None,
) -> ndarray:
    """The inference fast path of `nn.TransformerEncoderLayer` (batch first)."""

    def attend(x: ndarray) -> ndarray:
        return _multi_head_attention(x, x, x, embed_dim, num_heads, qkv_weight, qkv_bias, proj_weight, proj_bias,
                                     mask, mask_type)[0]  # fmt: skip

    def feed_forward(x: ndarray) -> ndarray:
        hidden = linear(x, ffn_weight_1, ffn_bias_1)
        hidden = gelu(hidden) if use_gelu else np.maximum(hidden, hidden.dtype.type(0))
        return linear(hidden, ffn_weight_2, ffn_bias_2)

    shape = [embed_dim]
    if norm_first:
        x = src + attend(layer_norm(src, shape, norm_weight_1, norm_bias_1, eps))
        return as_tensor(x + feed_forward(layer_norm(x, shape, norm_weight_2, norm_bias_2, eps)))
    x = layer_norm(src + attend(src), shape, norm_weight_1, norm_bias_1, eps)
    return layer_norm(x + feed_forward(x), shape, norm_weight_2, norm_bias_2, eps)
