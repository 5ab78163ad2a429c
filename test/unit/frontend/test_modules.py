"""Module scripting: class types as PyTorch names them, attributes typed from their
values, constants, mangled names for differing instances, the runtime object."""

from __future__ import annotations

from typing import Final

import numpy as np

from tsjit.dialects.types import BoolType, FloatType, IntType, ListType, NoneType, StrType, TensorType
from tsjit.frontend import torch_shim
from tsjit.frontend.compilation import CompilationUnit
from tsjit.frontend.script import script

torch = torch_shim


class Settings(torch.nn.Module):
    __constants__ = ("mode",)
    limit: Final[int] = 4

    def __init__(self):
        super().__init__()
        self.mode = "fast"
        self.rate = 0.5
        self.sizes = [1, 2]
        self.layer = torch.nn.Linear(2, 2)
        self.extra = None

    def forward(self, x):
        return x


def test_attributes_are_typed_from_their_values():
    info = CompilationUnit().registry.info(Settings())
    assert info.qualname == f"__torch__.{__name__}.Settings"
    assert info.attributes == {
        "training": BoolType(),
        "rate": FloatType(),
        "sizes": ListType(IntType()),
        "extra": NoneType(),
    }
    assert info.constants == {"limit": 4, "mode": "fast"}
    assert list(info.submodules) == ["layer"]
    assert info.submodules["layer"].qualname == "__torch__.torch.nn.modules.linear.Linear"


def test_instances_of_different_concrete_types_get_mangled_names():
    registry = CompilationUnit().registry
    with_bias = registry.info(torch.nn.Linear(2, 2))
    without_bias = registry.info(torch.nn.Linear(2, 2, bias=False))
    again = registry.info(torch.nn.Linear(3, 3))
    assert with_bias.qualname == "__torch__.torch.nn.modules.linear.Linear"
    assert without_bias.qualname == "__torch__.torch.nn.modules.linear.___torch_mangle_0.Linear"
    assert without_bias.attributes["bias"] == NoneType()
    assert again.qualname.endswith("___torch_mangle_1.Linear")  # in_features is a constant: 3 != 2


def test_the_runtime_object_holds_the_state_as_numpy():
    settings = Settings()
    state = CompilationUnit().registry.info(settings).runtime_object()
    assert state.qualified_name.endswith(".Settings")
    assert state.attributes["rate"] == 0.5 and state.attributes["sizes"] == [1, 2]
    layer = state.attributes["layer"]
    np.testing.assert_array_equal(layer.attributes["weight"], settings.layer.weight.array)
    assert layer.attributes["training"] is True


class Counter(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.count = 0
        self.label = "n"

    def forward(self, x):
        self.count += 1
        return x * self.count, self.label


def test_attribute_writes_are_set_attr_and_persist_between_calls():
    scripted = script(Counter())
    assert any(op.name == "prim.SetAttr" for op in scripted.graph.walk())
    first, label = scripted(np.ones(2, np.float32))
    second, _ = scripted(np.ones(2, np.float32))
    np.testing.assert_allclose(first, [1, 1])
    np.testing.assert_allclose(second, [2, 2])
    assert label == "n"


def test_containers_unroll_and_dropout_follows_the_mode():
    model = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Dropout(0.5), torch.nn.ReLU()).eval()
    scripted = script(model)
    x = np.array([[1.0, -1.0]], np.float32)
    linear = model[0]
    expected = np.maximum(x @ linear.weight.array.T + linear.bias.array, 0)
    np.testing.assert_allclose(scripted(x), expected, rtol=1e-6)
    assert StrType() not in [op.results[0].type for op in scripted.graph.walk() if op.results]
    assert all(
        op.results[0].type == TensorType() for op in scripted.graph.walk() if op.name == "prim.CallMethod"
    )


def test_a_module_without_forward_is_still_a_module_and_scripting_says_what_is_missing():
    import pytest

    from tsjit.diagnostics import TsjitError

    class NoForward(torch_shim.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.scale = 2.0

    with pytest.raises(TsjitError, match="module 'NoForward' has no method 'forward' to script"):
        script(NoForward())
    with pytest.raises(AttributeError, match="forward"):
        NoForward()(1)
