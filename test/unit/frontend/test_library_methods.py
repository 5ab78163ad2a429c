"""Library methods compiled for a class a graph names: PyTorch's class names (mangled
too), the class view (constants read from the object, unannotated state typed
`Optional[Tensor]`), what objects may lack, and the annotations the view relies on."""

from __future__ import annotations

import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute

from tsjit.dialects.prim import GetAttrOp
from tsjit.dialects.types import IntType, OptionalType, TensorType
from tsjit.frontend import torch_shim as torch
from tsjit.frontend.library import grad_mode
from tsjit.frontend.library_methods import (
    attribute_defaults,
    compile_method,
    library_class,
    library_classes,
    unmangled,
)

NN = "__torch__.torch.nn.modules"
LAYERS = [cls for cls in library_classes().values() if issubclass(cls, torch.nn.Module)]

LAYER_ARGUMENTS: dict[str, tuple[object, ...]] = {
    "Identity": (), "Linear": (2, 3), "ReLU": (), "LeakyReLU": (), "ELU": (), "GELU": (), "SiLU": (),
    "Sigmoid": (), "Tanh": (), "Softmax": (1,), "LogSoftmax": (1,), "Dropout": (), "LayerNorm": (4,),
    "Embedding": (3, 2), "Conv1d": (1, 2, 3), "Conv2d": (1, 2, 3), "MaxPool2d": (2,), "AvgPool2d": (2,),
    "AdaptiveAvgPool2d": (1,), "BatchNorm1d": (2,), "BatchNorm2d": (2,), "Flatten": (), "Sequential": (),
    "ModuleList": (),
}  # fmt: skip
"""Constructor arguments of every library layer."""


def annotations(cls: type) -> set[str]:
    return {name for klass in cls.__mro__ for name in vars(klass).get("__annotations__", {})}


def attribute_reads(module: ModuleOp) -> dict[str, Attribute]:
    """The attributes the module's code reads, with the types it reads them as."""
    return {op.attr_name.data: op.result.type for op in module.walk() if isinstance(op, GetAttrOp)}


def test_pytorch_class_names_denote_library_classes():
    assert library_class(f"{NN}.linear.Linear") is torch.nn.Linear
    assert library_class(f"{NN}.linear.___torch_mangle_12.Linear") is torch.nn.Linear
    assert library_class("__torch__.torch.autograd.grad_mode.no_grad") is grad_mode.no_grad
    assert library_class("__torch__.source.Linear") is None
    assert unmangled(f"{NN}.conv.___torch_mangle_0.Conv2d") == f"{NN}.conv.Conv2d"
    assert unmangled("__torch__.source.___torch_mangle_.Model") == "__torch__.source.___torch_mangle_.Model"


def test_every_constant_of_a_library_class_is_annotated():
    """Else the class view would take it for a parameter (`Optional[Tensor]`)."""
    for name, cls in library_classes().items():
        constants = {c for klass in cls.__mro__ for c in vars(klass).get("__constants__", ())}
        assert constants <= annotations(cls), name


@pytest.mark.parametrize("layer", LAYERS, ids=lambda layer: layer.__name__)
def test_what_a_layer_leaves_unannotated_is_a_parameter_or_buffer(layer: type):
    for options in ({}, {"bias": False}) if layer in (torch.nn.Linear, torch.nn.Conv2d) else ({},):
        instance = layer(*LAYER_ARGUMENTS[layer.__name__], **options)
        plain = {name for name in vars(instance) if not name.startswith("_")}
        assert plain <= annotations(layer)
        state = {**instance._parameters, **instance._buffers}
        assert all(value is None or isinstance(value, torch.Tensor) for value in state.values())


def test_every_layer_has_constructor_arguments_here():
    assert set(LAYER_ARGUMENTS) == {layer.__name__ for layer in LAYERS}


def test_the_class_view_reads_constants_from_the_object():
    compiled = compile_method(f"{NN}.activation.___torch_mangle_2.Softmax", "forward")
    assert compiled is not None and compiled.symbol == f"{NN}.activation.Softmax.forward"
    assert attribute_reads(compiled.module) == {"dim": OptionalType(IntType())}
    assert [op.sym_name.data for op in compiled.module.ops if isinstance(op, func.FuncOp)][
        -1
    ] == compiled.symbol
    assert compiled.optional_state == frozenset()
    assert compile_method(f"{NN}.activation.Softmax", "forward") is compiled


def test_the_class_view_types_unannotated_state_optional():
    compiled = compile_method(f"{NN}.linear.Linear", "forward")
    assert compiled is not None and compiled.optional_state == {"bias"}
    assert attribute_reads(compiled.module) == {"weight": TensorType(), "bias": OptionalType(TensorType())}
    batch_norm = compile_method(f"{NN}.batchnorm.BatchNorm2d", "forward")
    assert batch_norm is not None
    assert batch_norm.optional_state == {"weight", "bias", "running_mean", "running_var"}


def test_no_class_view_for_other_classes_missing_methods_and_containers():
    assert compile_method("__torch__.source.Model", "forward") is None
    assert compile_method(f"{NN}.linear.Linear", "backward") is None
    assert compile_method(f"{NN}.container.Sequential", "forward") is None


def test_constants_default_to_init_defaults_of_their_type_and_state_to_none():
    conv2d = {"stride": [1, 1], "padding": [0, 0], "dilation": [1, 1], "groups": 1, "padding_mode": "zeros"}
    assert attribute_defaults(f"{NN}.conv.Conv2d") == {"bias": None, **conv2d}
    assert attribute_defaults(f"{NN}.conv.___torch_mangle_4.Conv2d") == {"bias": None, **conv2d}
    assert attribute_defaults(f"{NN}.conv.Conv1d")["stride"] == [1]
    # stride=None means "the kernel size": no default of type list[int]
    assert attribute_defaults(f"{NN}.pooling.MaxPool2d") == {
        "padding": [0, 0],
        "dilation": [1, 1],
        "ceil_mode": False,
    }
    assert attribute_defaults(f"{NN}.activation.Softmax") == {"dim": None}
    assert attribute_defaults(f"{NN}.linear.Linear") == {"bias": None}  # in_features: no default, never read
    assert attribute_defaults("__torch__.source.Model") == {}
    assert attribute_defaults(f"{NN}.container.Sequential") == {}


def test_default_lists_are_fresh_for_each_object():
    first, second = attribute_defaults(f"{NN}.conv.Conv2d"), attribute_defaults(f"{NN}.conv.Conv2d")
    assert first["stride"] == second["stride"] and first["stride"] is not second["stride"]
