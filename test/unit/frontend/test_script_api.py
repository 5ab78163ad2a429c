"""`tsjit.frontend.script`: live functions, module instances and source text compile,
run through the GraphExecutor, and expose their graph, code and graph text."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects import func

from tsjit.diagnostics import TsjitError
from tsjit.frontend import torch_shim
from tsjit.frontend.script import ScriptModule, script, script_file_text

torch = torch_shim
F = torch.nn.functional
OFFSET = 1.5


def affine(x, k: int):
    return x * k + OFFSET


def clipped_sum(xs: list[int], limit: int) -> int:
    total = 0
    for v in xs:
        if v < 0:
            continue
        if total + v > limit:
            break
        total += v
    return total


class Head(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(3, 2)
        self.scale = 2.0

    def forward(self, x):
        return F.relu(self.fc(x)) * self.scale


def test_a_function_runs_with_its_globals():
    scripted = script(affine)
    x = np.array([1.0, -2.0], np.float32)
    np.testing.assert_allclose(scripted(x, 3), [4.5, -4.5])
    assert isinstance(scripted.graph, func.FuncOp)
    assert scripted.graph.sym_name.data == "affine"


def test_control_flow_runs_like_python():
    scripted = script(clipped_sum)
    for xs, limit in (([1, -5, 2, 10, 3], 8), ([], 3), ([4, 4, 4], 100)):
        assert scripted(xs, limit) == clipped_sum(xs, limit)


def stacked_multiples(x, n: int):
    outputs = []
    for i in range(n):
        outputs.append(x * i)
    return torch.stack(outputs)


def test_an_empty_list_variable_keeps_what_a_loop_appends():
    # the variable is not the literal `[]`, whose type adapts to the parameter it is
    # passed to: `stack` must get the list the loop filled
    x = np.array([1.0, 2.0], np.float32)
    np.testing.assert_allclose(script(stacked_multiples)(x, 3), [[0, 0], [1, 2], [2, 4]])


def test_code_and_graph_text_describe_the_function():
    scripted = script(affine)
    assert scripted.code.startswith("def affine(x: Tensor,")
    assert "torch.add(torch.mul(x, k)" in scripted.code
    assert scripted.torchscript.startswith("graph(%x : Tensor,")
    assert "aten::mul(%x, %k)" in scripted.torchscript


def test_a_module_instance_runs_on_its_parameters():
    head = Head()
    scripted = script(head)
    assert isinstance(scripted, ScriptModule)
    x = np.array([[0.5, -1.0, 2.0]], np.float32)
    weight, bias = head.fc.weight.array, head.fc.bias.array
    expected = np.maximum(x @ weight.T + bias, 0) * 2.0
    np.testing.assert_allclose(scripted(torch.tensor(x)), expected, rtol=1e-6)
    symbols = [op.sym_name.data for op in scripted.module.ops]
    assert "forward" in symbols
    assert "__torch__.torch.nn.modules.linear.Linear.forward" in symbols


def test_source_text_compiles_its_forward():
    scripted = script("import torch\ndef forward(x, n: int):\n    return x.sum() * n\n")
    assert scripted(np.ones((2, 2), np.float32), 3) == pytest.approx(12.0)


SOURCE = """
import torch

def helper(x):
    return x + 1

class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.bias = torch.nn.Parameter(torch.ones(2))

    def twice(self, x):
        return helper(x) * 2

    def forward(self, x):
        return self.twice(x) + self.bias
"""


def test_a_file_without_forward_function_compiles_its_module_class():
    scripted = script_file_text(SOURCE, "model.py")
    assert isinstance(scripted, ScriptModule)
    assert scripted.info.qualname == "__torch__.model.Model"
    np.testing.assert_allclose(scripted(np.zeros(2, np.float32)), [3.0, 3.0])


@pytest.mark.parametrize("entry", ["Model.twice", "twice"])
def test_an_entry_names_a_method(entry: str):
    scripted = script_file_text(SOURCE, "model.py", entry)
    assert scripted.name == "twice"
    np.testing.assert_allclose(scripted(np.zeros(2, np.float32)), [2.0, 2.0])


def test_an_entry_names_a_function():
    scripted = script_file_text(SOURCE, "model.py", "helper")
    assert scripted.name == "helper"
    assert isinstance(scripted.graph, func.FuncOp)


def test_errors_point_at_the_source():
    with pytest.raises(TsjitError) as error:
        script_file_text("import torch\n\ndef forward(x):\n    return x + y\n", "bad.py")
    assert str(error.value) == "bad.py:4:16: undefined value y"
    assert error.value.format().splitlines() == [
        "bad.py:4:16: error: undefined value y",
        "    return x + y",
        "               ^",
    ]


def test_a_failing_module_constructor_is_reported():
    source = (
        "import torch\nclass M(torch.nn.Module):\n    def __init__(self, n):\n        super().__init__()\n"
    )
    with pytest.raises(TsjitError, match=r"cannot construct M\(\) to script it"):
        script_file_text(source, "m.py")


def test_module_level_failures_are_located():
    with pytest.raises(TsjitError, match=r"^m.py:3: running m.py failed: ZeroDivisionError"):
        script_file_text("import torch\n\nx = 1 / 0\n", "m.py")


def test_files_see_the_shim_as_torch():
    source = "import torch\nimport torch.nn.functional as F\nfrom torch import nn\ndef forward(x):\n    return F.relu(x)\n"
    scripted = script_file_text(source, "f.py")
    np.testing.assert_allclose(scripted(np.array([-1.0, 2.0], np.float32)), [0.0, 2.0])


def test_unknown_torch_submodules_fail_to_import():
    with pytest.raises(TsjitError, match="tsjit's torch shim has no module 'torch.distributed'"):
        script_file_text("import torch.distributed\n", "d.py")
