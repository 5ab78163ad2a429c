"""Records what TorchScript returns for aten's `*_backward` operators, for
`test/unit/runtime/test_backward_ops.py` to compare tsjit with, without PyTorch.

    python scripts/generate_backward_data.py [OUTPUT]

Each case is a one-line function calling the operator through `torch.ops.aten`,
compiled by TorchScript (`torch.jit.CompilationUnit`) and run on inputs that cross the operator's
boundaries (thresholds, ±3 for the hard functions, 0 and 1 for logit); float32 and
float64. The output (default `test/data/backward/backward_ops.json`) holds the sources,
inputs and results.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUTPUT = ROOT / "test" / "data" / "backward" / "backward_ops.json"

POINTS = [-4.0, -3.0, -2.5, -1.0, -0.25, 0.0, 0.25, 0.5, 1.0, 2.0, 3.0, 3.5, 25.0]
UNIT = [-0.5, 0.0, 0.01, 0.2, 0.5, 0.8, 0.99, 1.0, 1.5]

CALLS = [
    # (call with g: the incoming gradient, x: the input or the forward result, inputs of x)
    ("torch.ops.aten.tanh_backward(g, torch.tanh(x))", POINTS),
    ("torch.ops.aten.sigmoid_backward(g, torch.sigmoid(x))", POINTS),
    ("torch.ops.aten.threshold_backward(g, x, 0.25)", POINTS),
    ("torch.ops.aten.hardtanh_backward(g, x, -1.0, 2)", POINTS),
    ("torch.ops.aten.leaky_relu_backward(g, x, 0.2, False)", POINTS),
    ("torch.ops.aten.hardsigmoid_backward(g, x)", POINTS),
    ("torch.ops.aten.hardswish_backward(g, x)", POINTS),
    ("torch.ops.aten.silu_backward(g, x)", POINTS),
    ("torch.ops.aten.softplus_backward(g, x, 2, 20)", POINTS),
    ("torch.ops.aten.mish_backward(g, x)", POINTS),
    ("torch.ops.aten.elu_backward(g, 1.5, 1.0507, 2.0, False, x)", POINTS),
    ("torch.ops.aten.elu_backward(g, 1.5, 1.0507, 2.0, True, torch.nn.functional.elu(x, 1.5))", POINTS),
    ("torch.ops.aten.gelu_backward(g, x)", POINTS),
    ("torch.ops.aten.gelu_backward(g, x, approximate='tanh')", POINTS),
    ("torch.ops.aten.logit_backward(g, x)", UNIT),
    ("torch.ops.aten.logit_backward(g, x, 0.05)", UNIT),
    ("torch.ops.aten._log_softmax_backward_data(g, torch.log_softmax(x, 0), 0, x.dtype)", POINTS),
    ("torch.ops.aten._softmax_backward_data(g, torch.softmax(x, 0), 0, x.dtype)", POINTS),
]


def main() -> None:
    output = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_OUTPUT
    generator = torch.Generator().manual_seed(0)
    cases = []
    for call, points in CALLS:
        source = f"def forward(g: torch.Tensor, x: torch.Tensor) -> torch.Tensor:\n    return {call}\n"
        fn = torch.jit.CompilationUnit(source).forward
        for dtype in (torch.float32, torch.float64):
            x = torch.tensor(points, dtype=dtype)
            g = torch.randn(len(points), generator=generator, dtype=torch.float64).to(dtype)
            result = fn(g, x)
            cases.append({"source": source, "dtype": str(dtype).removeprefix("torch."),
                          "g": g.tolist(), "x": x.tolist(), "result": result.tolist()})  # fmt: skip
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps({"torch": torch.__version__, "cases": cases}) + "\n", encoding="utf-8")
    print(f"{len(cases)} cases -> {output}")


if __name__ == "__main__":
    main()
