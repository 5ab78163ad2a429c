"""Library methods compiled for a class a graph names: PyTorch's class names (mangled
too), the class view (constants read from the object, unannotated state typed
`Optional[Tensor]`), what objects may lack, and the annotations the view relies on."""

from __future__ import annotations

import os

import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute

from tsjit.dialects.prim import GetAttrOp
from tsjit.dialects.types import IntType, OptionalType, TensorType
from tsjit.frontend import torch_shim as torch
from tsjit.frontend.library import grad_mode, modules
from tsjit.frontend.library_methods import (
    attribute_defaults,
    compile_method,
    library_class,
    library_classes,
    unmangled,
)

NN = "__torch__.torch.nn.modules"
LAYERS = [cls for cls in library_classes().values() if issubclass(cls, torch.nn.Module)]
LEAVES = [cls for cls in LAYERS if cls.__name__ not in modules.COMPOSITE]

LAYER_ARGUMENTS: dict[str, tuple[object, ...]] = {
    "Threshold": (0.1, 20.0), "Softmax": (1,), "LogSoftmax": (1,), "Softmin": (1,), "PReLU": (),
    "MultiheadAttention": (4, 2), "BatchNorm1d": (2,), "BatchNorm2d": (2,), "BatchNorm3d": (2,), "ChannelShuffle": (2,),
    "Conv1d": (1, 2, 3), "Conv2d": (1, 2, 3), "Conv3d": (1, 2, 3), "ConvTranspose1d": (1, 2, 3),
    "ConvTranspose2d": (1, 2, 3), "ConvTranspose3d": (1, 2, 3), "Unflatten": (1, (2, 2)), "Fold": (4, 2), "Unfold": (2,),
    "InstanceNorm1d": (2,), "InstanceNorm2d": (2,), "InstanceNorm3d": (2,), "Linear": (2, 3),
    "NonDynamicallyQuantizableLinear": (2, 3), "Bilinear": (2, 3, 4), "LocalResponseNorm": (2,), "LayerNorm": (4,),
    "GroupNorm": (2, 4), "RMSNorm": (4,), "CircularPad1d": (1,), "CircularPad2d": (1,), "CircularPad3d": (1,),
    "ConstantPad1d": (1, 0.5), "ConstantPad2d": (1, 0.5), "ConstantPad3d": (1, 0.5), "ReflectionPad1d": (1,),
    "ReflectionPad2d": (1,), "ReflectionPad3d": (1,), "ReplicationPad1d": (1,), "ReplicationPad2d": (1,),
    "ReplicationPad3d": (1,), "ZeroPad1d": (1,), "ZeroPad2d": (1,), "ZeroPad3d": (1,), "PixelShuffle": (2,),
    "PixelUnshuffle": (2,), "MaxPool1d": (2,), "MaxPool2d": (2,), "MaxPool3d": (2,), "MaxUnpool1d": (2,),
    "MaxUnpool2d": (2,), "MaxUnpool3d": (2,), "AvgPool1d": (2,), "AvgPool2d": (2,), "AvgPool3d": (2,),
    "FractionalMaxPool2d": (2, 3), "FractionalMaxPool3d": (2, 3), "LPPool1d": (2, 2), "LPPool2d": (2, 2),
    "LPPool3d": (2, 2), "AdaptiveMaxPool1d": (2,), "AdaptiveMaxPool2d": (2,), "AdaptiveMaxPool3d": (2,),
    "AdaptiveAvgPool1d": (2,), "AdaptiveAvgPool2d": (1,), "AdaptiveAvgPool3d": (2,), "RNNBase": ("LSTM", 2, 3),
    "RNN": (2, 3), "GRU": (2, 3), "LSTM": (2, 3), "RNNCellBase": (2, 3, True, 1), "RNNCell": (2, 3),
    "LSTMCell": (2, 3), "GRUCell": (2, 3), "Embedding": (3, 2), "EmbeddingBag": (3, 2),
    "TransformerEncoderLayer": (4, 2, 8), "TransformerDecoderLayer": (4, 2, 8), "Transformer": (4, 2, 1, 1, 8),
    "Upsample": (), "UpsamplingNearest2d": (), "UpsamplingBilinear2d": (),
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
        if cls.__name__ in modules.COMPOSITE:
            continue
        constants = {c for klass in cls.__mro__ for c in vars(klass).get("__constants__", ())}
        assert constants <= annotations(cls), name


@pytest.mark.parametrize("layer", LEAVES, ids=lambda layer: layer.__name__)
def test_what_a_layer_leaves_unannotated_is_a_parameter_or_buffer(layer: type):
    for options in ({}, {"bias": False}) if layer in (torch.nn.Linear, torch.nn.Conv2d) else ({},):
        instance = layer(*LAYER_ARGUMENTS.get(layer.__name__, ()), **options)
        plain = {name for name in vars(instance) if not name.startswith("_")}
        assert plain <= annotations(layer)
        state = {**instance._parameters, **instance._buffers}
        assert all(value is None or isinstance(value, torch.Tensor) for value in state.values())


def test_the_constructor_arguments_name_real_layers():
    assert set(LAYER_ARGUMENTS) <= {layer.__name__ for layer in LAYERS}


@pytest.mark.parametrize(
    "layer",
    LEAVES if os.environ.get("TSJIT_MODULES") == "full" else LEAVES[::8],
    ids=lambda layer: layer.__name__,
)
def test_a_leaf_layer_has_a_class_view(layer: type):
    """Every leaf layer with a `forward` compiles for its class alone (`make modules`;
    `make test` compiles every eighth)."""
    compiled = compile_method(f"__torch__.{modules.TORCH_QUALNAMES[layer.__name__]}", "forward")
    assert (compiled is None) == ("forward" not in {n for k in layer.__mro__ for n in vars(k)})


def test_composite_layers_have_no_class_view():
    for name in modules.COMPOSITE:
        assert compile_method(f"__torch__.{modules.TORCH_QUALNAMES[name]}", "forward") is None


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
    assert batch_norm.optional_state == {
        "weight",
        "bias",
        "running_mean",
        "running_var",
        "num_batches_tracked",
    }


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
        "return_indices": False,
    }
    assert attribute_defaults(f"{NN}.activation.Softmax") == {"dim": None}
    assert attribute_defaults(f"{NN}.linear.Linear") == {"bias": None}  # in_features: no default, never read
    assert attribute_defaults("__torch__.source.Model") == {}
    assert attribute_defaults(f"{NN}.container.Sequential") == {}


def test_default_lists_are_fresh_for_each_object():
    first, second = attribute_defaults(f"{NN}.conv.Conv2d"), attribute_defaults(f"{NN}.conv.Conv2d")
    assert first["stride"] == second["stride"] and first["stride"] is not second["stride"]
