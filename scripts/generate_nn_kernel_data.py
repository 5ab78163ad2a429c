"""Writes reference results of nn operators that the OpInfo and ModuleInfo datasets reach
only in part: each case is one call of an aten overload with its arguments and PyTorch's
result.

    python scripts/generate_nn_kernel_data.py [OUTPUT_DIR]

(run with a Python that has torch 2.13; tsjit itself never imports torch.) Covers the
antialiased upsampling modes, grid sampling in every mode and padding, affine grids,
transposed convolutions with groups, dilation and output padding, the fused attention
paths of `nn.MultiheadAttention` and `nn.TransformerEncoderLayer`, the masked softmax,
embedding bags, CTC loss, multi-layer (bidirectional, projected) RNNs, `_trilinear`,
`conv_tbc`, `pdist`, pooling indices with NaNs and unpooling.

Output: `nn_kernels.json` (cases: overload, arguments, result, tolerance; a tensor is
{"tensor": [dtype, offset, shape]} into `nn_kernels.npz`, one flat array per dtype).
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np
import torch

DEFAULT_OUTPUT = Path(__file__).resolve().parent.parent / "test" / "data" / "nn_kernels"
aten = torch.ops.aten


class Recorder:
    def __init__(self) -> None:
        self.cases: list[dict[str, Any]] = []
        self.chunks: dict[str, list[np.ndarray]] = {}
        self.sizes: dict[str, int] = {}

    def encode(self, value: Any) -> Any:
        if isinstance(value, torch.Tensor):
            array = value.detach().contiguous().numpy()
            name = array.dtype.name
            offset = self.sizes.get(name, 0)
            self.chunks.setdefault(name, []).append(array.ravel().copy())
            self.sizes[name] = offset + array.size
            return {"tensor": [name, offset, list(array.shape)]}
        if isinstance(value, (list, tuple)):
            return {"list" if isinstance(value, list) else "tuple": [self.encode(v) for v in value]}
        if isinstance(value, float) and not math.isfinite(value):
            return {"float": str(value)}
        return {type(value).__name__.replace("NoneType", "none"): value}

    def case(self, name: str, overload: str, *args: Any, tolerance: float = 1e-5) -> None:
        packet, _, variant = overload.partition(".")
        op = getattr(aten, packet)
        result = getattr(op, variant or "default")(*args)
        self.cases.append({"name": name, "overload": f"aten::{overload}", "args": [self.encode(a) for a in args],
                           "result": self.encode(result), "tolerance": tolerance})  # fmt: skip

    def write(self, output: Path) -> None:
        output.mkdir(parents=True, exist_ok=True)
        (output / "nn_kernels.json").write_text(json.dumps({"torch": torch.__version__, "cases": self.cases},
                                                           separators=(",", ":")) + "\n", encoding="utf-8")  # fmt: skip
        np.savez_compressed(
            output / "nn_kernels.npz", **{k: np.concatenate(v) for k, v in self.chunks.items()}
        )


def record(r: Recorder) -> None:
    g = torch.Generator().manual_seed(0)

    def randn(*shape: int, dtype: torch.dtype = torch.float32) -> torch.Tensor:
        return torch.randn(*shape, generator=g, dtype=dtype)

    x = randn(2, 3, 9, 7)
    for mode in ("bilinear", "bicubic", "lanczos"):
        for size, align in (([4, 3], False), ([13, 11], False), ([5, 5], True)):
            if mode == "lanczos" and align:
                continue
            r.case(f"{mode} aa {size} {align}", f"_upsample_{mode}2d_aa.vec", x, size, align, None)
        r.case(f"{mode} aa scales", f"_upsample_{mode}2d_aa.vec", x, None, False, [0.6, 1.4])
    for dims in (2, 3):
        inp = randn(2, 3, *(5,) * dims)
        grid = randn(2, *(4,) * dims, dims) * 1.3
        for interpolation in (0, 1, 2) if dims == 2 else (0, 1):
            for padding in (0, 1, 2):
                for align in (False, True):
                    r.case(f"grid {dims}d {interpolation} {padding} {align}", f"grid_sampler_{dims}d", inp, grid,
                           interpolation, padding, align)  # fmt: skip
        theta = randn(2, dims, dims + 1)
        for align in (False, True):
            r.case(
                f"affine grid {dims}d {align}",
                "affine_grid_generator",
                theta,
                [2, 3, *(4, 5, 3)[:dims]],
                align,
            )
    for dims in (1, 2, 3):
        inp = randn(2, 4, *(5,) * dims)
        weight = randn(4, 3, *(3,) * dims)
        bias = randn(6)
        r.case(f"conv_transpose{dims}d grouped", "convolution", inp, weight, bias, [2] * dims, [1] * dims, [2] * dims,
               True, [1] * dims, 2)  # fmt: skip
        r.case(f"conv{dims}d dilated", "convolution", inp, randn(6, 2, *(2,) * dims), bias, [1] * dims, [2] * dims,
               [2] * dims, False, [0] * dims, 2)  # fmt: skip
    embed, heads = 8, 2
    q = randn(2, 5, embed)
    qkv_w, qkv_b, proj_w, proj_b = (
        randn(3 * embed, embed),
        randn(3 * embed),
        randn(embed, embed),
        randn(embed),
    )
    padding = torch.tensor([[False, False, False, True, True], [False, False, False, False, False]])
    for need, average in ((False, True), (True, True), (True, False)):
        r.case(f"native mha {need} {average}", "_native_multi_head_attention", q, q, q, embed, heads, qkv_w, qkv_b,
               proj_w, proj_b, None, need, average, None)  # fmt: skip
    r.case("native mha padding mask", "_native_multi_head_attention", q, q, q, embed, heads, qkv_w, qkv_b, proj_w,
           proj_b, padding, True, True, 1)  # fmt: skip
    norms = [randn(embed) for _ in range(4)]
    ffn = [randn(16, embed), randn(16), randn(embed, 16), randn(embed)]
    for gelu, first in ((False, False), (True, True)):
        r.case(f"encoder layer fwd {gelu} {first}", "_transformer_encoder_layer_fwd", q, embed, heads, qkv_w, qkv_b,
               proj_w, proj_b, gelu, first, 1e-5, *norms, *ffn, None, None, tolerance=1e-4)  # fmt: skip
    scores = randn(2, 2, 4, 4)
    r.case("masked softmax", "_masked_softmax", scores, torch.rand(2, 2, 4, 4, generator=g) > 0.6, -1, None)
    r.case(
        "masked softmax padding",
        "_masked_softmax",
        scores,
        torch.tensor([[False, False, True, True]] * 2),
        -1,
        1,
    )
    weight = randn(10, 3)
    indices = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9])
    offsets = torch.tensor([0, 2, 2, 5])
    for mode in (0, 1, 2):
        result = aten._embedding_bag_forward_only(
            weight, indices, offsets, False, mode, False, None, False, -1
        )
        r.cases.append({"name": f"embedding bag {mode}", "overload": "aten::embedding_bag.padding_idx",
                        "args": [r.encode(v) for v in (weight, indices, offsets, False, mode, False, None, False, None)],
                        "result": {"tensor_first": r.encode(result[0])}, "tolerance": 1e-5})  # fmt: skip
    result = aten.embedding_bag.padding_idx(weight, indices, offsets, False, 0, False, randn(8), False, 4)
    r.cases.append({"name": "embedding bag weighted, padding", "overload": "aten::embedding_bag.padding_idx",
                    "args": [r.encode(v) for v in (weight, indices, offsets, False, 0, False, None, False, 4)],
                    "result": {"tensor_first": r.encode(aten.embedding_bag.padding_idx(
                        weight, indices, offsets, False, 0, False, None, False, 4)[0])}, "tolerance": 1e-5})  # fmt: skip
    del result
    log_probs = randn(12, 3, 5).log_softmax(2)
    targets = torch.randint(1, 5, (3, 4), generator=g)
    input_lengths, target_lengths = torch.tensor([12, 10, 8]), torch.tensor([4, 2, 3])
    for reduction in (0, 1, 2):
        r.case(f"ctc {reduction}", "ctc_loss.Tensor", log_probs, targets, input_lengths, target_lengths, 0, reduction,
               False)  # fmt: skip
    concatenated = torch.cat([targets[0, :4], targets[1, :2], targets[2, :3]])
    r.case(
        "ctc concatenated", "ctc_loss.IntList", log_probs, concatenated, [12, 10, 8], [4, 2, 3], 0, 0, False
    )
    r.case("ctc impossible, zero_infinity", "ctc_loss.Tensor", log_probs, targets, torch.tensor([2, 10, 8]),
           target_lengths, 0, 0, True)  # fmt: skip
    for name, overload, gates in (
        ("lstm", "lstm.input", 4),
        ("gru", "gru.input", 3),
        ("rnn", "rnn_tanh.input", 1),
    ):
        for layers, bidirectional, batch_first in ((2, True, True), (1, False, False)):
            directions = 2 if bidirectional else 1
            params = []
            for layer in range(layers):
                for _ in range(directions):
                    size = 3 if layer == 0 else 4 * directions
                    params += [
                        randn(gates * 4, size) * 0.3,
                        randn(gates * 4, 4) * 0.3,
                        randn(gates * 4),
                        randn(gates * 4),
                    ]
            inp = randn(2, 5, 3) if batch_first else randn(5, 2, 3)
            h0 = randn(layers * directions, 2, 4)
            hx = [h0, randn(layers * directions, 2, 4)] if name == "lstm" else h0
            r.case(f"{name} {layers} {bidirectional}", overload, inp, hx, params, True, layers, 0.0, False,
                   bidirectional, batch_first)  # fmt: skip
    r.case("trilinear", "_trilinear", randn(2, 3), randn(5, 3, 4), randn(2, 4), [1, 3], [0], [1, 2], [2, 3])
    r.case("conv_tbc", "conv_tbc", randn(7, 2, 3), randn(3, 3, 4), randn(4), 1)
    for p in (0.0, 1.0, 1.5, 2.0, math.inf):
        r.case(f"pdist {p}", "pdist", randn(5, 3), p)
    pool_input = randn(1, 2, 6, 6)
    pool_input[0, 0, 1, 1] = float("nan")
    r.case(
        "max pool indices nan", "max_pool2d_with_indices", pool_input, [3, 3], [2, 2], [1, 1], [1, 1], True
    )
    r.case("adaptive max indices", "adaptive_max_pool2d", randn(1, 2, 7, 5), [3, 2])
    r.case("fractional samples", "fractional_max_pool2d", randn(2, 3, 9, 9), [2, 2], [4, 5],
           torch.rand(2, 3, 2, generator=g))  # fmt: skip
    values, indices = aten.max_pool2d_with_indices(randn(1, 2, 6, 6), [2, 2], [2, 2], [0, 0], [1, 1], False)
    r.case("max unpool", "max_unpool2d", values, indices, [6, 6])


def main(argv: list[str]) -> int:
    output = Path(argv[1]) if len(argv) > 1 else DEFAULT_OUTPUT
    torch.set_num_threads(1)
    recorder = Recorder()
    record(recorder)
    recorder.write(output)
    print(f"wrote {len(recorder.cases)} cases to {output}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
