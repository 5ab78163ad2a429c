"""The torch shim as an eager tensor library: `torch.*` functions, Tensor methods and
operators, indexing, `torch.nn.functional` and `torch.nn` layers run on numpy through
the kernels the interpreter uses, chosen by the schema table's overload resolution."""

from __future__ import annotations

import numpy as np
import pytest

import tsjit
from tsjit.frontend import torch_shim as torch
from tsjit.frontend.torch_shim._dispatch import Dispatcher, kind_of
from tsjit.runtime import kernels

F = torch.nn.functional


def tensor(*shape: int, seed: int = 0) -> torch.Tensor:
    return torch.from_numpy(np.random.default_rng(seed).random(shape, dtype=np.float32))


def plan_of(function: object, *args: object, **kwargs: object) -> object:
    dispatcher: Dispatcher = function.dispatcher  # pyright: ignore[reportAttributeAccessIssue]
    return dispatcher.entry(args, kwargs)


# --------------------------------------------------------------------------------------
# Dispatch: the schema table's overload, the interpreter's kernel, planned once
# --------------------------------------------------------------------------------------


def test_calls_run_the_kernel_of_the_overload_the_arguments_select():
    x, y = tensor(2, 3), tensor(2, 3, seed=1)
    with_tensor = plan_of(torch.Tensor.add, x, y)
    with_number = plan_of(torch.Tensor.add, x, 2)
    assert with_tensor.schema.overload_name == "Tensor" and with_number.schema.overload_name == "Scalar"
    assert kernels.lookup("aten::add.Tensor") in with_tensor.run.__globals__.values()
    assert kernels.lookup("aten::add.Scalar") in with_number.run.__globals__.values()
    np.testing.assert_array_equal((x + y).array, kernels.lookup("aten::add.Tensor")(x.array, y.array, 1))


def test_a_plan_is_made_once_per_argument_kinds():
    x = tensor(2, 2)
    x.relu()
    dispatcher = torch.Tensor.relu.dispatcher  # pyright: ignore[reportAttributeAccessIssue]
    planned = len(dispatcher.entries)
    for _ in range(3):
        x.relu()
    assert len(dispatcher.entries) == planned
    assert (torch.Tensor,) in dispatcher.fast


def test_every_schema_argument_is_passed_with_defaults_and_conversions():
    x = tensor(2, 3, 4)
    assert x.view(6, 4).shape == (6, 4) == x.view((6, 4)).shape == x.view([6, 4]).shape
    assert x.sum(dim=(0, 2)).shape == (3,)
    assert x.sum(1, keepdim=True).shape == (2, 1, 4)
    assert x.permute(2, 0, 1).shape == (4, 2, 3)
    assert torch.zeros(2, 3, dtype=torch.float64).dtype is torch.float64
    assert x.to(torch.int64).dtype is torch.int64 and x.to("cpu") is not None
    assert torch.cat((x, x), dim=1).shape == (2, 6, 4)
    assert F.dropout(x, 0, False).shape == x.shape  # an int where the schema says float, as Python allows


def test_a_list_argument_of_other_elements_runs_its_own_plan():
    """The first plan for `torch.cat([x, y])` runs behind a guard on the list's length
    and element types; other lists (or keywords) reach their own plans."""
    x, y = tensor(2, 3), tensor(2, 3, seed=1)
    expected = np.concatenate([x.array, y.array, x.array])
    np.testing.assert_array_equal(torch.cat([x, y]).array, expected[:4])
    np.testing.assert_array_equal(torch.cat([x, y, x]).array, expected)
    np.testing.assert_array_equal(torch.cat([x, y.array]).array, expected[:4])  # an array element
    np.testing.assert_array_equal(torch.cat([x, y]).array, expected[:4])
    np.testing.assert_array_equal(torch.cat([x, y], dim=1).array, np.concatenate([x.array, y.array], 1))
    np.testing.assert_array_equal(torch.cat([y, x], 1).array, np.concatenate([y.array, x.array], 1))
    assert x.new_zeros([2, 3]).shape == (2, 3) and x.new_zeros([1, 2, 3]).shape == (1, 2, 3)  # lists of ints
    assert x.new_zeros([2, torch.tensor(3)]).shape == (2, 3)


def test_the_first_argument_types_run_inline_and_others_still_dispatch():
    """The first plan is compiled into the operator's function itself; other argument
    types and traces still take their own paths."""
    sinh = torch.Tensor.sinh
    x = tensor(2, 3)
    np.testing.assert_allclose(sinh(x).array, np.sinh(x.array))
    assert "type(a0) is _K0" in sinh.source  # pyright: ignore[reportAttributeAccessIssue]
    weight = torch.nn.Parameter(tensor(2, 3, seed=1), requires_grad=False)  # another type: the general lookup
    np.testing.assert_allclose(sinh(weight).array, np.sinh(weight.array))
    traced = tsjit.trace(lambda t: t.sinh(), (x,))
    assert "aten::sinh(%t)" in traced.torchscript
    with pytest.raises(TypeError, match="sinh"):
        sinh(x, "a")
    with pytest.raises(TypeError, match="provided self value not used"):  # not sinh(2), a number's overload
        sinh(x, 2)


def test_one_keyword_is_dispatched_like_positional_arguments():
    """The first call with keywords is inlined too (`x.sum(dim=1)`): others of the same
    count but other names or types still dispatch."""
    x = tensor(2, 3, 4)
    for _ in range(2):  # planned, then from the cache
        assert x.sum(dim=1).shape == (2, 4) and x.sum(dim=(0, 2)).shape == (3,)
        assert x.sum(1, keepdim=True).shape == (2, 1, 4) and x.mean(-1, keepdim=True).shape == (2, 3, 1)
        assert x.sum(dim=-1, keepdim=True).shape == (2, 3, 1)
        assert torch.sum(x, dim=0).shape == (3, 4) and torch.sum(input=x).shape == ()
        assert x.sum(dtype=torch.float64).dtype is torch.float64  # one keyword, another name
        with pytest.raises(IndexError, match="Dimension out of range"):  # the kernel's error
            x.sum(dim=3)


def test_inlined_calls_take_their_positional_arguments_as_parameters():
    """The inlined plans' positional arguments are positional-only parameters of the
    operator's function: calls with fewer or more of them, or with keywords of the same
    names, still reach their own plans."""
    x = tensor(2, 3, 4)
    for _ in range(2):
        assert x.view(6, 4).shape == (6, 4) and x.view(-1).shape == (24,) and x.view(2, 3, 2, 2).shape == (2, 3, 2, 2)
        assert x.sum(1).shape == (2, 4) and x.sum().shape == () and x.sum(1, True).shape == (2, 1, 4)
        assert x.sum(dim=1).shape == (2, 4) and x.sum(1, keepdim=True).shape == (2, 1, 4)
        assert x.sum(dim=[0, 1]).shape == (4,)  # the keyword plan's types do not match: the lookup
        assert torch.add(x, x, alpha=2).shape == x.shape and torch.add(input=x, other=x).shape == x.shape
    assert "def call(a0=_absent, " in torch.Tensor.sum.source  # pyright: ignore[reportAttributeAccessIssue]
    with pytest.raises(TypeError, match="sum"):
        x.sum(1, True, None, 4)


def test_kinds_describe_containers_by_their_elements():
    assert kind_of([1, 2]) == (list, (int, int))
    assert kind_of((torch.ones(1), None)) == (tuple, (torch.Tensor, type(None)))
    assert kind_of(torch.Size([2, 3])) == (torch.Size, (int, int))


def test_in_place_operators_return_their_tensor_and_views_share_memory():
    x = tensor(2, 3)
    before = x.array.copy()
    assert x.add_(1) is x
    np.testing.assert_allclose(x.array, before + 1)
    flat = x.view(-1)
    flat.mul_(0)
    assert not x.array.any()
    x += 2
    assert (x.array == 2).all()


def test_several_results_are_named_tuples_as_in_pytorch():
    x = torch.tensor([[1.0, 5.0], [3.0, 2.0]])
    result = x.max(1)
    assert type(result).__name__ == "max"
    np.testing.assert_array_equal(result.values.array, [5.0, 3.0])
    np.testing.assert_array_equal(result.indices.array, [1, 0])
    values, indices = torch.sort(x, 1, descending=True)
    np.testing.assert_array_equal(values.array, [[5.0, 1.0], [3.0, 2.0]])


def test_lists_of_tensors_come_back_as_tensors():
    pieces = tensor(4, 2).chunk(2)
    assert len(pieces) == 2 and all(isinstance(p, torch.Tensor) for p in pieces)
    a, b = torch.split(tensor(5, 2), [2, 3])
    assert (a.shape, b.shape) == ((2, 2), (3, 2))


def test_arguments_no_overload_accepts_are_a_type_error_naming_the_call():
    with pytest.raises(TypeError, match=r"arguments for call to torch\.add are not valid: \(Tensor, str\)"):
        torch.add(tensor(2), "a")


def test_kernel_errors_carry_pytorchs_messages():
    with pytest.raises(RuntimeError, match="mat1 and mat2 shapes cannot be multiplied"):
        torch.mm(tensor(2, 3), tensor(2, 3))
    with pytest.raises(IndexError, match="Dimension out of range"):  # a dim or index check: IndexError
        tensor(2).sum(3)
    with pytest.raises(IndexError, match=r"select\(\): index 7 out of range for tensor of size \[2\] at dimension 0"):
        tensor(2).select(0, 7)
    with pytest.raises(IndexError, match="index out of range in self"):
        F.embedding(torch.tensor([7]), tensor(3, 2))


@pytest.mark.parametrize(
    ("shape", "index", "message"),
    [  # PyTorch 2.13's eager errors, word for word
        ((2, 5), 7, "index 7 is out of bounds for dimension 0 with size 2"),
        ((2, 5), -3, "index -3 is out of bounds for dimension 0 with size 2"),
        ((2, 5), (slice(None), 7), "index 7 is out of bounds for dimension 1 with size 5"),
        ((2, 5), (0, 9), "index 9 is out of bounds for dimension 1 with size 5"),
        ((2, 5), (None, 1, 9), "index 9 is out of bounds for dimension 2 with size 5"),
        ((2, 3, 4), (Ellipsis, 9), "index 9 is out of bounds for dimension 1 with size 4"),
        ((2, 5), (0, 0, 0), "too many indices for tensor of dimension 2"),
        ((), 0, "invalid index of a 0-dim tensor. Use `tensor.item()` in Python"),
    ],
)
def test_indexing_out_of_range_is_pytorchs_index_error(shape: tuple[int, ...], index: object, message: str):
    x = torch.ones(shape)
    for _ in range(2):  # the first `x[i]` installs the int fast path, the second takes it
        with pytest.raises(IndexError) as caught:
            x[index]  # pyright: ignore[reportIndexIssue]
        assert str(caught.value).startswith(message)


# --------------------------------------------------------------------------------------
# Operators, indexing, Python values
# --------------------------------------------------------------------------------------


def test_python_operators_follow_pytorch():
    x = tensor(2, 2) + 0.5
    a = x.array
    checks = {
        "x + 1": ((x + 1), a + 1), "2 - x": ((2 - x), 2 - a), "x * 3": ((x * 3), a * 3), "3 * x": ((3 * x), 3 * a),
        "2 / x": ((2 / x), 2 / a), "x / 2": ((x / 2), a / 2), "x ** 2": ((x**2), a**2), "2 ** x": ((2**x), 2**a),
        "x // 0.3": ((x // 0.3), a // np.float32(0.3)), "-x": ((-x), -a), "abs(-x)": (abs(-x), a), "x @ x": ((x @ x), a @ a),
    }  # fmt: skip
    for text, (ours, expected) in checks.items():
        np.testing.assert_allclose(ours.array, expected, rtol=1e-6, err_msg=text)
    mask = x > 1
    np.testing.assert_array_equal((~mask).array, ~(a > 1))
    np.testing.assert_array_equal((mask & (x < 1.2)).array, (a > 1) & (a < 1.2))
    assert isinstance(np.ones((2, 2), np.float32) + x, torch.Tensor)  # the tensor's operator, as with PyTorch


@pytest.mark.parametrize(
    "index",
    [0, -1, slice(1, 3), (slice(None), 1), (Ellipsis, None), (1, slice(None, None, 2)), [0, 2], (slice(None), [1, 0]),
     (None, 1), (2, [0, 3])],  # fmt: skip
    ids=str,
)
def test_indexing_selects_what_numpy_selects(index: object):
    x = tensor(4, 5)
    expected = x.array[index if not isinstance(index, list) else np.array(index)]
    np.testing.assert_array_equal(x[index].array, expected)


def test_masks_and_assignment():
    x = tensor(4, 5)
    a = x.array.copy()
    np.testing.assert_array_equal(x[x > 0.5].array, a[a > 0.5])
    x[0] = 1.0
    x[:, 1] = x[:, 0]
    x[x < 0.2] = 0.0
    a[0] = 1.0
    a[:, 1] = a[:, 0]
    a[a < 0.2] = 0.0
    np.testing.assert_array_equal(x.array, a)


def test_python_values_and_their_errors():
    assert float(torch.tensor(2.5)) == 2.5 and int(torch.tensor(3)) == 3 and torch.tensor(4.0).item() == 4.0
    assert bool(torch.tensor([1.0]))
    with pytest.raises(RuntimeError, match="Boolean value of Tensor with more than one value is ambiguous"):
        bool(tensor(2))
    assert [r.shape for r in tensor(3, 2)] == [(2,)] * 3
    assert len(tensor(3, 2)) == 3
    assert tensor(2, 3).tolist() == tensor(2, 3).array.tolist()


def test_factories_and_dtypes_follow_pytorch():
    assert torch.arange(4).dtype is torch.int64 and torch.arange(0.0, 1.0, 0.5).dtype is torch.float32
    assert torch.full((2,), 7).dtype is torch.int64 and torch.full((2,), 7.0).dtype is torch.float32
    assert torch.ones(2, dtype=torch.int32).dtype is torch.int32
    assert (torch.ones(2, dtype=torch.int64) + 0.5).dtype is torch.float32
    assert torch.zeros_like(tensor(2), dtype=torch.bool).dtype is torch.bool
    assert tensor(2).float().dtype is torch.float32 and tensor(2).double().dtype is torch.float64
    assert tensor(2).long().dtype is torch.int64 and tensor(2).bool().dtype is torch.bool


def test_operator_namespaces():
    x = tensor(3, 3)
    np.testing.assert_allclose(torch.linalg.vector_norm(x).array, np.linalg.norm(x.array), rtol=1e-6)
    np.testing.assert_allclose(torch._C._nn.gelu(x).array, F.gelu(x).array)
    np.testing.assert_allclose(torch.ops.aten.relu(x - 0.5).array, np.maximum(x.array - 0.5, 0))
    np.testing.assert_allclose(torch.special.expit(x).array, torch.sigmoid(x).array)


# --------------------------------------------------------------------------------------
# torch.nn.functional and torch.nn, eager against scripted
# --------------------------------------------------------------------------------------


def test_functional_runs_eagerly():
    x = tensor(2, 4)
    a = x.array
    np.testing.assert_allclose(F.relu(x - 0.5).array, np.maximum(a - 0.5, 0))
    e = np.exp(a - a.max(-1, keepdims=True))
    np.testing.assert_allclose(F.softmax(x, dim=-1).array, e / e.sum(-1, keepdims=True), rtol=1e-6)
    w, b = tensor(3, 4, seed=1), tensor(3, seed=2)
    np.testing.assert_allclose(F.linear(x, w, b).array, a @ w.array.T + b.array, rtol=1e-6)
    normalized = F.layer_norm(x, (4,)).array
    np.testing.assert_allclose(normalized.mean(-1), 0, atol=1e-6)


@pytest.mark.parametrize(
    "make",
    [
        lambda: torch.nn.Linear(4, 3),
        lambda: torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2), torch.nn.Softmax(-1)),
        lambda: torch.nn.LayerNorm(4),
        lambda: torch.nn.GELU(),
    ],
    ids=["Linear", "Sequential", "LayerNorm", "GELU"],
)
def test_layers_run_eagerly_as_they_run_scripted(make: object):
    layer = make().eval()  # pyright: ignore[reportCallIssue]
    x = tensor(3, 4, seed=7)
    np.testing.assert_allclose(layer(x).array, tsjit.script(layer)(x.array), rtol=1e-6, atol=1e-7)


def test_convolutional_layers_run_eagerly_as_they_run_scripted():
    model = torch.nn.Sequential(torch.nn.Conv2d(2, 4, 3, padding=1), torch.nn.BatchNorm2d(4), torch.nn.ReLU(),
                                torch.nn.MaxPool2d(2), torch.nn.Flatten(), torch.nn.Linear(16, 3)).eval()  # fmt: skip
    x = tensor(2, 2, 4, 4, seed=3)
    np.testing.assert_allclose(model(x).array, tsjit.script(model)(x.array), rtol=1e-5, atol=1e-6)


def test_module_conveniences_of_pytorch():
    model = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.ReLU()).double()
    assert model[0].weight.dtype is torch.float64
    assert model.to(torch.float32)[0].weight.dtype is torch.float32 and model.cpu() is model
    copy = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.ReLU())
    copy.load_state_dict(model.state_dict())
    np.testing.assert_array_equal(copy[0].weight.array, model[0].weight.array)
    assert copy.get_parameter("0.bias") is copy[0].bias
    with pytest.raises(RuntimeError, match="missing keys"):
        copy.load_state_dict({})
    with pytest.raises(RuntimeError, match="CPU only"):
        model.to("cuda")


def test_random_operators_take_a_generator():
    generator = torch.Generator().manual_seed(3)
    assert torch.randn(2, 3, generator=generator).shape == (2, 3)


def test_python_functions_of_the_shim_script_as_their_operators():
    source = "import torch\nfrom torch import tensor, numel\ndef forward(x):\n    return x + tensor([1.0, 2.0]) * numel(x)\n"
    assert torch.numel(torch.ones(2, 3)) == 6
    np.testing.assert_array_equal(tsjit.script(source)(np.ones(2, np.float32)), [3.0, 5.0])


def test_torch_ops_packets_and_overloads_run_eagerly():
    x = torch.ones(2, 2)
    np.testing.assert_array_equal(torch.ops.aten.add(x, 1).array, np.full((2, 2), 2.0))
    add_tensor = torch.ops.aten.add.Tensor
    assert (add_tensor.operator, add_tensor.overload) == ("aten::add", "Tensor")
    np.testing.assert_array_equal(add_tensor(x, x).array, np.full((2, 2), 2.0))
    with pytest.raises(TypeError, match="torch.ops.aten.add.Tensor"):
        add_tensor(x, 1)
