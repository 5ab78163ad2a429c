"""Operators called by their qualified name in scripted code: `torch.ops.<namespace>.
<name>` (an operator packet: overload resolution, keywords, defaults) and `.<overload>`
(one schema), `torch._C._nn`, `torch.linalg`, `torch.special`, `torch.fft`, as the
shim and PyTorch spell them."""

from __future__ import annotations

import numpy as np
import pytest

from tsjit.diagnostics import TsjitError
from tsjit.frontend.script import script_file_text


def ops_of(text: str) -> list[str]:
    scripted = script_file_text("import torch\nfrom torch import Tensor\n" + text, "ops.py")
    return [op.name for op in scripted.graph.walk() if op.name.split(".")[0] in ("aten", "prims")]


def test_packets_resolve_overloads_with_keywords_and_defaults():
    scripted = script_file_text(
        "import torch\nfrom torch import Tensor\n\n"
        "def forward(x: Tensor, y: Tensor):\n"
        "    return torch.ops.aten.add(x, y, alpha=2), torch.ops.aten.add(x, 3), torch.ops.aten.clamp(x, min=0.0)\n",
        "ops.py",
    )
    x, y = np.array([1.0, -2.0], np.float32), np.array([0.5, 0.5], np.float32)
    added, scalar, clamped = scripted(x, y)
    np.testing.assert_allclose(added, x + 2 * y)
    np.testing.assert_allclose(scalar, x + 3)
    np.testing.assert_allclose(clamped, [1.0, 0.0])


def test_an_overload_names_one_schema():
    assert ops_of("def forward(x: Tensor, y: Tensor):\n    return torch.ops.aten.add.Tensor(x, y)\n") == [
        "aten.add"
    ]
    with pytest.raises(TsjitError, match=r"ops.py:4:12: .*aten::add\.Tensor"):
        ops_of("def forward(x: Tensor, y: int):\n    return torch.ops.aten.add.Tensor(x, 'a')\n")
    assert "aten.relu" in ops_of("def forward(x: Tensor):\n    return torch.ops.aten.relu.default(x)\n")


def test_other_namespaces_and_spellings():
    names = ops_of(
        "def forward(x: Tensor):\n"
        "    a = torch.ops.prims.collapse(x, 0, 1)\n"
        "    b = torch._C._nn.gelu(x)\n"
        "    c = torch.linalg.vector_norm(x)\n"
        "    d = torch.special.expit(x)\n"
        "    e = torch.fft.fft(x)\n"
        "    return a, b, c, d, e\n"
    )
    assert {"prims.collapse", "aten.gelu", "aten.linalg_vector_norm", "aten.fft_fft"} <= set(names)


def test_unknown_operators_and_overloads_are_located_errors():
    with pytest.raises(TsjitError, match=r"ops.py:4:12: unknown builtin op: aten::no_such_op"):
        ops_of("def forward(x: Tensor):\n    return torch.ops.aten.no_such_op(x)\n")
    with pytest.raises(TsjitError, match=r"ops.py:4:12: operator aten::add has no overload 'Nope'"):
        ops_of("def forward(x: Tensor):\n    return torch.ops.aten.add.Nope(x, x)\n")


@pytest.mark.interop
def test_pytorchs_operator_objects_resolve_too(tmp_path):
    pytest.importorskip("torch")
    import importlib.util

    from tsjit.frontend.script import script

    path = tmp_path / "interop_ops.py"
    path.write_text(
        "import torch\n\n\n"
        "def forward(x: torch.Tensor, y: torch.Tensor):\n"
        "    return torch.ops.aten.mul.Tensor(x, y) + torch.ops.aten.relu(x)\n",
        encoding="utf-8",
    )
    spec = importlib.util.spec_from_file_location("interop_ops", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    compiled = script(module.forward)
    x, y = np.array([1.0, -2.0], np.float32), np.array([3.0, 4.0], np.float32)
    np.testing.assert_allclose(compiled(x, y), x * y + np.maximum(x, 0))
