"""The torch shim: enough of `torch` for a TorchScript file to import and build its
modules without PyTorch."""

from __future__ import annotations

import numpy as np
import pytest

from tsjit.dialects.types import DTYPE_BY_TORCH_NAME
from tsjit.frontend import torch_shim as torch
from tsjit.frontend.script import run_user_file
from tsjit.frontend.source import SourceFile


def test_dtypes_carry_torchscript_scalar_type_codes():
    assert torch.float32.code == DTYPE_BY_TORCH_NAME["float32"].code == 6
    assert torch.long is torch.int64 and torch.long.code == 4
    assert torch.float is torch.float32 and torch.double is torch.float64
    assert torch.bool.numpy == np.dtype(bool)


def test_factories_follow_torch_default_dtypes():
    assert torch.zeros(2, 3).dtype is torch.float32
    assert torch.zeros((2, 3)).shape == (2, 3)
    assert torch.arange(5).dtype is torch.int64
    assert torch.arange(0.0, 1.0, 0.25).dtype is torch.float32
    assert torch.full((2,), 7).dtype is torch.int64
    assert torch.tensor([1.0, 2.0]).dtype is torch.float32
    assert torch.ones(3, dtype=torch.float64).array.dtype == np.float64


def test_modules_track_parameters_buffers_and_submodules():
    class Block(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = torch.nn.Linear(4, 2)
            self.register_buffer("steps", torch.zeros(1))
            self.gain = 3.0

    block = Block()
    assert [name for name, _ in block.named_parameters()] == ["lin.weight", "lin.bias"]
    assert [name for name, _ in block.named_buffers()] == ["steps"]
    assert [name for name, _ in block.named_modules()] == ["", "lin"]
    assert block.lin.weight.shape == (2, 4)
    assert block.gain == 3.0
    assert not block.eval().lin.training


def test_layer_initialisation_stays_in_torch_bounds():
    layer = torch.nn.Linear(16, 8)
    bound = 1 / np.sqrt(16)
    assert np.all(np.abs(layer.bias.array) <= bound)
    assert np.all(np.abs(layer.weight.array) <= bound)


def test_a_linear_without_bias_has_a_none_parameter():
    layer = torch.nn.Linear(2, 2, bias=False)
    assert layer.bias is None
    assert [name for name, _ in layer.named_parameters()] == ["weight"]


def test_operators_run_eagerly_and_stay_operators_for_the_frontend():
    assert torch.relu.operator == "aten::relu"
    np.testing.assert_array_equal(torch.relu(torch.tensor([-1.0, 2.0])).array, [0.0, 2.0])
    with pytest.raises(AttributeError):
        torch.no_such_function  # noqa: B018 - the attribute access is what fails


def test_files_import_torch_and_its_submodules_from_the_shim():
    source = SourceFile(
        "uses_torch.py",
        "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\nfrom torch import Tensor, cat\n"
        "from torch.nn import Linear\n",
    )
    namespace = run_user_file(source)
    assert namespace["torch"] is torch
    assert namespace["nn"] is torch.nn
    assert namespace["F"] is torch.nn.functional
    assert namespace["Tensor"] is torch.Tensor
    assert namespace["cat"].operator == "aten::cat"
    assert namespace["Linear"] is torch.nn.Linear
    assert namespace["__name__"] == "uses_torch"


def test_no_grad_is_a_context_manager_and_a_decorator():
    with torch.no_grad():
        assert not torch.is_grad_enabled()
    assert torch.is_grad_enabled()
    assert torch.no_grad()(torch.is_grad_enabled)() is False
    assert torch.is_grad_enabled()


def test_plain_attributes_may_be_set_before_module_init_as_in_pytorch():
    class Model(torch.nn.Module):
        def __init__(self) -> None:
            self.scale = 3
            super().__init__()
            self.fc = torch.nn.Linear(2, 2)

    assert Model().scale == 3

    class Early(torch.nn.Module):
        def __init__(self) -> None:
            self.fc = torch.nn.Linear(2, 2)

    with pytest.raises(AttributeError, match="cannot assign module before Module.__init__\\(\\) call"):
        Early()


def test_memory_formats_and_layouts_script_as_pytorchs_ints():
    from tsjit.frontend.script import script_file_text

    scripted = script_file_text(
        "import torch\n"
        "def forward(x: torch.Tensor):\n"
        "    y = x.contiguous(memory_format=torch.channels_last)\n"
        "    return y, torch.contiguous_format, torch.preserve_format, torch.channels_last_3d, torch.strided\n",
        "formats.py",
    )
    x = np.ones((1, 2, 3, 4), np.float32)
    y, *codes = scripted(x)
    assert codes == [0, 1, 3, 0] and np.array_equal(y, x)


def test_the_jit_decorators_and_helpers_of_the_language():
    from typing import Dict, List, Optional

    from tsjit.frontend.classes import is_interface, modifier
    from tsjit.frontend.torch_shim import jit

    @jit.interface
    class Shape:
        def area(self) -> float:
            pass

    class Plain:
        pass

    def helper(x: int) -> int:
        return x

    assert is_interface(Shape) and not is_interface(Plain)
    assert jit.script(Plain) is Plain  # a class compiles where scripted code uses it
    assert modifier(jit.unused(lambda: 1)) == "unused"
    assert modifier(jit.ignore(drop=True)(lambda: 1)) == "unused"
    assert modifier(jit.ignore(helper)) == "ignore"
    attribute = jit.Attribute([], List[str])
    assert attribute.value == [] and attribute.type == List[str]
    assert jit.isinstance({"a": [1, 2]}, Dict[str, List[int]])
    assert not jit.isinstance({"a": [1.5]}, Dict[str, List[int]])
    assert jit.isinstance(None, Optional[int]) and jit.isinstance((1, "a"), tuple)


def test_interop_threads_are_the_fork_pools():
    saved = torch.get_num_interop_threads()
    try:
        torch.set_num_interop_threads(3)
        assert torch.get_num_interop_threads() == 3
    finally:
        torch.set_num_interop_threads(saved)
