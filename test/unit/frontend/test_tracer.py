"""`tsjit.trace` without PyTorch: what a trace records, PyTorch's TracerWarnings, checks
against `check_inputs`, errors that name the user's line, inputs of other shapes and
ranks, mixing traced and scripted code, saving, the models of the archive issue
(against PyTorch's outputs in test/data/traced/models.json), `install_torch_shim`, and
(with `-m interop`) the PyTorch-installed path."""

from __future__ import annotations

import json
import subprocess
import sys
import warnings
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import tsjit
from tsjit.diagnostics import TsjitError
from tsjit.frontend import torch_shim as torch
from tsjit.frontend.script import run_user_file
from tsjit.frontend.source import SourceFile
from tsjit.frontend.tracer import TracedFunction, TracedModule, TraceError, TracerWarning, TracingCheckError
from tsjit.runtime.values import decode_value, match_value

F = torch.nn.functional
DATA = Path(__file__).resolve().parents[2] / "data" / "traced"


def ops_of(traced: Any) -> list[str]:
    return [op.name for op in traced.graph.walk() if op is not traced.graph and op.name != "func.return"]


def array(*shape: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).random(shape, dtype=np.float32)


# --------------------------------------------------------------------------------------
# What a trace records
# --------------------------------------------------------------------------------------


def test_a_trace_records_each_operator_with_every_schema_argument():
    def f(x, y):
        return torch.relu(x + y).sum(1)

    traced = tsjit.trace(f, (array(2, 3), array(2, 3, seed=1)))
    assert isinstance(traced, TracedFunction)
    assert [n for n in ops_of(traced) if n != "prim.Constant"] == ["aten.add", "aten.relu", "prim.ListConstruct",
                                                                   "aten.sum"]  # fmt: skip
    assert "def f(x: Tensor,\n    y: Tensor) -> Tensor:" in traced.code
    assert "torch.sum(torch.relu(torch.add(x, y)), [1])" in traced.code
    x, y = array(5, 3, seed=2), array(5, 3, seed=3)
    np.testing.assert_allclose(traced(x, y), np.maximum(x + y, 0).sum(1), rtol=1e-6)


def test_the_graph_keeps_the_example_types_and_the_executor_does_not():
    traced = tsjit.trace(lambda x: x * 2, (array(2, 3),))
    assert "Float(2, 3, strides=[3, 1], requires_grad=0, device=cpu)" in traced.torchscript
    np.testing.assert_allclose(traced(array(7)), array(7) * 2)  # another rank: the same operators
    np.testing.assert_array_equal(traced(np.arange(4)), np.arange(4) * 2)  # another dtype


def test_sizes_read_while_tracing_are_recorded_so_other_shapes_work():
    traced = tsjit.trace(lambda x: x.view(x.size(0), -1), (array(2, 3, 4),))
    assert "prim::NumToTensor" in traced.torchscript and "aten::Int" in traced.torchscript
    assert traced(array(5, 2, 2)).shape == (5, 4)


def test_in_place_operators_rebind_their_tensor():
    def f(x):
        y = x.clone()
        y.add_(1)
        y[0] = 0.0
        return y * 2

    traced = tsjit.trace(f, (array(2, 2),))
    x = array(2, 2, seed=4)
    expected = (x + 1) * 2
    expected[0] = 0
    np.testing.assert_allclose(traced(x), expected)
    assert "aten.add_" in ops_of(traced) and "aten.fill_" in ops_of(traced)


def test_list_tuple_and_dict_inputs_are_unpacked_and_outputs_packed():
    def f(xs, pair, table):
        return (xs[0] + xs[1], pair[1]), table["a"] * 2

    inputs = ([array(2), array(2, seed=1)], (array(3), array(3, seed=2)), {"a": array(1)})
    traced = tsjit.trace(f, inputs)
    kinds = ops_of(traced)
    assert {"prim.ListUnpack", "prim.TupleUnpack", "aten.__getitem__", "prim.TupleConstruct"} <= set(kinds)
    (total, second), doubled = traced(*inputs)
    np.testing.assert_allclose(total, inputs[0][0] + inputs[0][1])
    np.testing.assert_allclose(second, inputs[1][1])
    np.testing.assert_allclose(doubled, inputs[2]["a"] * 2)


def test_a_module_trace_calls_submodule_methods_forward_then_forward1():
    class Twice(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(3, 3)
            self.act = torch.nn.ReLU()

        def forward(self, x):
            return self.act(self.fc(self.act(x)))

    model = Twice()
    traced = tsjit.trace(model, (array(2, 3),))
    assert isinstance(traced, TracedModule)
    methods = [op.properties["name"].data for op in traced.graph.walk() if op.name == "prim.CallMethod"]
    assert methods == ["forward", "forward", "forward1"]
    x = array(4, 3, seed=5)
    expected = model(torch.from_numpy(x)).array
    np.testing.assert_allclose(traced(x), expected, rtol=1e-6)


def test_two_instances_of_a_class_get_their_own_class_types():
    class Pair(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.a = torch.nn.Linear(2, 2)
            self.b = torch.nn.Linear(2, 2)

        def forward(self, x):
            return self.b(self.a(x))

    traced = tsjit.trace(Pair(), (array(1, 2),))
    assert "___torch_mangle_0.Linear" in str(traced.module)


# --------------------------------------------------------------------------------------
# Warnings, as PyTorch words them
# --------------------------------------------------------------------------------------


def caught_warnings(fn: Any, inputs: tuple[Any, ...], **options: Any) -> tuple[Any, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        traced = tsjit.trace(fn, inputs, **options)
    return traced, [str(w.message) for w in caught if issubclass(w.category, TracerWarning)]


def test_data_dependent_control_flow_warns_and_is_recorded_as_taken():
    def f(x):
        if x.sum() > 0:
            return x * 2
        return x

    traced, messages = caught_warnings(f, (array(3),), check_trace=False)
    assert messages[0].startswith("Converting a tensor to a Python boolean might cause the trace to be incorrect. "
                                  "We can't record the data flow of Python values")  # fmt: skip
    np.testing.assert_allclose(traced(-array(3)), -array(3) * 2)  # the branch of the example, as in PyTorch


@pytest.mark.parametrize(
    ("body", "what"),
    [
        (lambda x: x * int(x.max()), "a Python integer"),
        (lambda x: x * float(x.max()), "a Python float"),
        (lambda x: x * x.sum().item(), "a Python number"),
        (lambda x: x * len(x.tolist()), "a Python list"),
    ],
)
def test_python_values_read_from_tensors_warn(body: Any, what: str):
    _, messages = caught_warnings(body, (array(3),), check_trace=False)
    assert f"Converting a tensor to {what} might cause the trace to be incorrect." in messages[0]


def test_torch_tensor_in_traced_code_is_a_constant_with_a_warning():
    traced, messages = caught_warnings(lambda x: x + torch.tensor([1.0, 2.0]), (array(2),), check_trace=False)
    assert messages == [
        "torch.tensor results are registered as constants in the trace. You can safely ignore this warning if you "
        "use this function to create tensors out of constant variables that would be the same every time you call "
        "this function. In any other case, this might cause the trace to be incorrect."
    ]
    assert "dense<[1.0, 2.0]>" in str(traced.graph)


def test_iterating_and_len_warn_as_pytorch_does():
    _, messages = caught_warnings(lambda x: sum(r for r in x) + len(x), (array(2, 2),), check_trace=False)
    assert any(m.startswith("Iterating over a tensor might cause the trace to be incorrect.") for m in messages)
    assert any(m.startswith("Using len to get tensor shape might cause the trace to be incorrect.") for m in messages)


def test_a_list_output_warns_in_strict_mode_and_a_dict_output_needs_strict_false():
    _, messages = caught_warnings(lambda x: [x, x * 2], (array(2),))
    assert messages and messages[0].startswith("Encountering a list at the output of the tracer")
    with pytest.raises(TraceError, match="Encountering a dict at the output of the tracer"):
        tsjit.trace(lambda x: {"y": x}, (array(2),))
    traced = tsjit.trace(lambda x: {"y": x * 3}, (array(2),), strict=False)
    np.testing.assert_allclose(traced(array(2))["y"], array(2) * 3)


# --------------------------------------------------------------------------------------
# Checking a trace
# --------------------------------------------------------------------------------------


def test_check_inputs_retrace_and_report_other_graphs():
    def f(x):
        if bool(x.sum() > 0):
            return x + 1
        return x - 1

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TracerWarning)
        with pytest.raises(TracingCheckError, match="Graphs differed across invocations!"):
            tsjit.trace(f, (array(3),), check_inputs=[(-array(3),)])
        tsjit.trace(f, (array(3),), check_inputs=[(array(3, seed=1),)])  # the same branch: the same graph


def test_outputs_that_differ_from_the_python_function_warn():
    _, messages = caught_warnings(lambda x: x + torch.rand(3), (array(3),))
    assert any(m.startswith("Output nr 1. of the traced function does not match the corresponding output of the "
                            "Python function. Detailed error:") for m in messages)  # fmt: skip
    assert any(m.startswith("Trace had nondeterministic nodes. Did you forget call .eval() on your model?")
               for m in messages)  # fmt: skip


# --------------------------------------------------------------------------------------
# Bad input: one clear error naming the Python line
# --------------------------------------------------------------------------------------


def returns_an_int(x):
    y = x * 2
    return 3  # the line the error names


def test_returning_a_non_tensor_names_the_return_line():
    with pytest.raises(TraceError) as raised:
        tsjit.trace(returns_an_int, (array(2),))
    error = raised.value
    assert "Only tensors, lists, tuples of tensors, or dictionary of tensors can be output" in error.message
    assert error.location.file == __file__
    assert error.source_line.strip() == "return 3  # the line the error names"


def takes_a_dict(d):
    return d[1]


def test_a_dict_input_with_non_string_keys_names_the_function():
    with pytest.raises(TraceError, match="dictionary inputs need string keys, got int key 1") as raised:
        tsjit.trace(takes_a_dict, ({1: array(2)},))
    assert raised.value.location.line == takes_a_dict.__code__.co_firstlineno


def calls_an_operator_without_kernel(x):
    return torch.int_repr(x)  # no kernel in tsjit's runtime (quantized tensors)


def test_an_operator_without_kernel_names_the_calling_line():
    from tsjit.runtime.kernels import lookup

    assert lookup("aten::int_repr") is None, "pick another operator tsjit has no kernel for"
    with pytest.raises(TraceError, match=r"no kernel for aten::int_repr") as raised:
        tsjit.trace(calls_an_operator_without_kernel, (array(2, 2),))
    assert raised.value.source_line.strip().startswith("return torch.int_repr(x)")
    assert "\n" not in raised.value.message


def test_non_tensor_inputs_are_refused_as_pytorch_refuses_them():
    with pytest.raises(TraceError, match="Type 'int' cannot be traced"):
        tsjit.trace(lambda x, n: x * n, (array(2), 3))


def test_other_ranks_fail_where_pytorch_fails_and_never_give_a_wrong_result():
    transposed = tsjit.trace(lambda x: x.t() * 1, (array(2, 3),))
    with pytest.raises(Exception, match=r"t\(\) expects a tensor with <= 2 dimensions, but self is 3D"):
        transposed(array(2, 3, 4))
    matrix = tsjit.trace(lambda a, b: torch.mm(a, b), (array(2, 3), array(3, 2)))
    with pytest.raises(Exception, match="self must be a matrix"):
        matrix(array(2, 2, 3), array(3, 2))
    summed = tsjit.trace(lambda x: x.sum(1), (array(2, 3),))
    np.testing.assert_allclose(summed(array(2, 3, 4)), array(2, 3, 4).sum(1), rtol=1e-6)
    with pytest.raises(Exception, match="Dimension out of range"):
        summed(array(4))


# --------------------------------------------------------------------------------------
# Mixing traced and scripted code, saving
# --------------------------------------------------------------------------------------


def test_scripted_helpers_called_from_traced_code_become_calls():
    @tsjit.script
    def helper(a, b):
        return a * b + 1

    traced = tsjit.trace(lambda x: helper(x, x) - 1, (array(3),))
    assert "func.call @helper" in str(traced.graph)
    np.testing.assert_allclose(traced(array(3, seed=2)), array(3, seed=2) ** 2, rtol=1e-5, atol=1e-6)


def test_traced_modules_inside_scripted_modules_and_traced_functions_called_from_scripts():
    class Inner(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(3, 3)

        def forward(self, x):
            return torch.relu(self.fc(x))

    class Outer(torch.nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner
            self.scale = torch.nn.Linear(3, 1)

        def forward(self, x):
            return self.scale(self.inner(x) + 1)

    inner = Inner()
    outer = Outer(tsjit.trace(inner, (array(2, 3),)))
    scripted = tsjit.script(outer)
    x = array(4, 3, seed=6)
    expected = outer.scale(inner(torch.from_numpy(x)) + 1).array
    np.testing.assert_allclose(scripted(x), expected, rtol=1e-6)

    doubled = tsjit.trace(lambda x: x.sin() * 2, (array(3),))

    def uses_traced(a):
        return doubled(a) + 1

    np.testing.assert_allclose(tsjit.script(uses_traced)(array(3)), np.sin(array(3)) * 2 + 1, rtol=1e-6)


@pytest.mark.parametrize("compile_inner", ["script", "trace"])
def test_scripted_and_traced_submodules_of_a_traced_module_are_method_calls(compile_inner: str):
    class Inner(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(3, 3)

        def forward(self, x):
            return torch.relu(self.fc(x))

    class Outer(torch.nn.Module):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner
            self.fc = torch.nn.Linear(3, 2)

        def forward(self, x):
            return self.fc(self.inner(x) * 2)

    inner = Inner()
    x = array(4, 3, seed=8)
    compiled = tsjit.script(inner) if compile_inner == "script" else tsjit.trace(inner, (x,))
    outer = Outer(compiled)
    traced = tsjit.trace(outer, (x,))
    assert "(inner).forward(x)" in traced.code
    np.testing.assert_allclose(traced(x), outer.fc(inner(torch.from_numpy(x)) * 2).array, rtol=1e-6)
    with pytest.raises(TraceError, match="called from traced code outside the traced module"):
        tsjit.trace(lambda t: compiled(t) + 1, (x,))


def test_save_writes_the_program_tsjit_loads_back(tmp_path: Path):
    traced = tsjit.trace(lambda x: x * 2 + 1, (array(2),))
    path = tmp_path / "traced.mlir"
    traced.save(str(path))
    module = tsjit.load(str(path))
    np.testing.assert_allclose(tsjit.compile(module, traced.name)(array(2)), array(2) * 2 + 1)


# --------------------------------------------------------------------------------------
# The models of the archive issue
# --------------------------------------------------------------------------------------

@cache
def models_record() -> dict[str, Any]:
    return json.loads((DATA / "models.json").read_text(encoding="utf-8"))["models"]


@cache
def models_namespace() -> dict[str, Any]:
    path = DATA / "models.py"
    return run_user_file(SourceFile(str(path), path.read_text(encoding="utf-8")))


@pytest.mark.parametrize("name", ["SmallCNN", "Encoder", "Recurrent"])
def test_models_trace_and_reproduce_pytorch(name: str):
    record = models_record()[name]
    model = models_namespace()[name]().eval()
    tables = {**dict(model.named_parameters()), **dict(model.named_buffers())}
    for key, encoded in {**record["parameters"], **record["buffers"]}.items():
        tables[key].array[...] = decode_value(encoded)
    example, check = (decode_value(v) for v in record["inputs"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TracerWarning)
        traced = tsjit.trace(model, (example,), check_inputs=[(check,)])
    kinds = sorted(
        op.name.replace(".", "::", 1) for op in traced.graph.walk() if op is not traced.graph and op.name != "func.return"
    )
    assert kinds == record["kinds"]
    for inputs, expected in zip((example, check), record["outputs"]):
        assert match_value(traced(inputs), decode_value(expected), 1e-4, 1e-5) is None


# --------------------------------------------------------------------------------------
# install_torch_shim
# --------------------------------------------------------------------------------------


def test_install_torch_shim_gives_the_shim_to_import_torch_when_pytorch_is_absent():
    program = (
        "import importlib.util, tsjit\n"
        "if importlib.util.find_spec('torch') is not None:\n"
        "    print('pytorch present')\n"
        "else:\n"
        "    tsjit.install_torch_shim()\n"
        "    import torch, torch.nn.functional as F\n"
        "    from torch import nn\n"
        "    x = torch.ones(2, 3)\n"
        "    print(torch.__version__, F.relu(nn.Linear(3, 2)(x)).shape, torch.jit.trace(lambda t: t * 2, (x,)).name)\n"
    )
    result = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True)
    if result.stdout.strip() != "pytorch present":
        assert result.stdout.strip() == "2.13.0+tsjit-shim torch.Size([2, 2]) forward"


# --------------------------------------------------------------------------------------
# With PyTorch installed
# --------------------------------------------------------------------------------------


@pytest.mark.interop
def test_pytorch_modules_are_traced_by_pytorch_and_imported():
    real = pytest.importorskip("torch")
    assert not real.__version__.endswith("tsjit-shim"), "interop tests need the real PyTorch"

    class Model(real.nn.Module):
        def __init__(self):
            super().__init__()
            self.a = real.nn.Linear(4, 4)
            self.b = real.nn.Linear(4, 2)

        def forward(self, x):
            return self.b(real.relu(self.a(x))) * 2

    model = Model().eval()
    x = real.randn(3, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        traced = tsjit.trace(model, (x,))
        reference = real.jit.trace(model, (x,))
    ours = sorted(op.name.replace(".", "::", 1) for op in traced.graph.walk() if op.name not in ("func.func", "func.return"))
    assert ours == sorted(n.kind() for n in reference.graph.nodes())
    with real.no_grad():
        np.testing.assert_allclose(traced(x.numpy()), model(x).numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.interop
def test_conformance_modules_trace_alike_with_and_without_pytorch():
    real = pytest.importorskip("torch")
    assert not real.__version__.endswith("tsjit-shim"), "interop tests need the real PyTorch"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with_torch = tsjit.trace(lambda x, y: real.relu(x * 2 + y).sum(1), (array(2, 3), array(2, 3)))
        without = tsjit.trace(lambda x, y: torch.relu(x * 2 + y).sum(1), (array(2, 3), array(2, 3)))
    names = {op.name for op in with_torch.graph.walk()} - {"prim.Constant"}
    assert names == {op.name for op in without.graph.walk()} - {"prim.Constant"}
