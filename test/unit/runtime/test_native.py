"""Native code in the interpreter (`tsjit.runtime.native`): every elementwise rule of the
table against the numpy interpreter on values that probe its edges (NaN, ±inf, ±0,
negative integers), broadcasting, strided inputs, chunks and cats, scalar functions,
and the runtime's own behaviour: call plans, fallbacks, buffer reuse, the auto policy."""

from __future__ import annotations

import math
import re
from dataclasses import replace

import numpy as np
import pytest

from tsjit.context import make_context
from tsjit.diagnostics import TsjitError
from tsjit.formats.mlir import parse_mlir
from tsjit.frontend import script_source
from tsjit.runtime import native as native_module
from tsjit.runtime.errors import TorchScriptError
from tsjit.runtime.executor import GraphExecutor
from tsjit.runtime.llvm_jit import SPLIT_ALIGNMENT
from tsjit.runtime.native import REUSE_BYTES, AutoExecutor, LLVMExecutor, export_llvm
from tsjit.runtime.values import match_value

RNG = np.random.default_rng(7)
FLOAT_EDGES = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, 1e-30, 88.0, -104.0])


def floats(shape: tuple[int, ...], dtype: type = np.float32, low: float = -4, high: float = 4) -> np.ndarray:
    """Random values with the float edge cases at the front."""
    values = RNG.uniform(low, high, size=int(np.prod(shape))).astype(dtype)
    edges = FLOAT_EDGES.astype(dtype)[: values.size]
    values[: edges.size] = edges
    return values.reshape(shape)


def positive(shape: tuple[int, ...]) -> np.ndarray:
    return RNG.uniform(0.05, 4, size=shape).astype(np.float32)


def unit(shape: tuple[int, ...]) -> np.ndarray:
    return RNG.uniform(-0.99, 0.99, size=shape).astype(np.float32)


def ints(shape: tuple[int, ...], dtype: type = np.int64) -> np.ndarray:
    return RNG.integers(-9, 10, size=shape).astype(dtype)


def bools(shape: tuple[int, ...]) -> np.ndarray:
    return RNG.integers(0, 2, size=shape).astype(bool)


def compile_both(source: str) -> tuple[GraphExecutor, LLVMExecutor]:
    module = script_source(
        make_context(), "import torch\nimport torch.nn.functional as F\n" + source, "case.py"
    )
    return GraphExecutor(module, "forward", "executor-default"), LLVMExecutor(module, "forward")


def assert_same(source: str, *inputs: object, rtol: float = 1e-5, atol: float = 1e-6) -> LLVMExecutor:
    """The native run matches the interpreter's on `inputs`, through compiled kernels."""
    interpreted, native = compile_both(source)
    expected = interpreted(*inputs)
    actual = native(*inputs)
    mismatch = match_value(actual, expected, rtol, atol, "result")
    assert mismatch is None, mismatch
    statistics = native.statistics()
    assert statistics["kernel_calls"] + statistics["scalar_calls"] >= 1, statistics
    assert statistics["fallbacks"] == 0, statistics
    return native


UNARY_FLOAT = [
    "torch.abs(x)", "-x", "torch.exp(x)", "torch.exp2(x)", "torch.expm1(x)", "torch.log(x)", "torch.log2(x)",
    "torch.log10(x)", "torch.log1p(x)", "torch.sqrt(x)", "torch.rsqrt(x)", "torch.sin(x)", "torch.cos(x)",
    "torch.tan(x)", "torch.atan(x)", "torch.sinh(x)", "torch.cosh(x)", "torch.tanh(x)", "torch.erf(x)",
    "torch.erfc(x)", "torch.floor(x)", "torch.ceil(x)", "torch.round(x)", "torch.trunc(x)", "torch.frac(x)",
    "torch.sigmoid(x)", "torch.relu(x)", "torch.reciprocal(x)", "torch.square(x)",
    "F.silu(x)", "F.softplus(x)", "F.elu(x)", "F.selu(x)", "F.celu(x, 1.5)", "F.hardsigmoid(x)",
    "F.hardswish(x)", "F.gelu(x)", "F.gelu(x, approximate='tanh')", "F.leaky_relu(x, 0.2)",
    "F.hardtanh(x, -2.0, 2.0)", "F.relu6(x)", "torch.clamp(x, -1.0, 2.0)", "torch.clamp(x, min=0.5)",
    "torch.clamp(x, max=0.5)", "torch.threshold(x, 0.5, -3.0)", "x ** 2", "x ** 3", "x ** -1", "x ** 0.5",
    "x ** 2.5", "torch.isnan(x)", "torch.isinf(x)", "torch.isfinite(x)", "torch.logical_not(x)",
]  # fmt: skip


@pytest.mark.parametrize("expression", UNARY_FLOAT)
def test_unary_float_ops_match_the_interpreter(expression: str):
    assert_same(f"def forward(x):\n    return {expression}\n", floats((4, 5)))


def test_sign_is_pytorchs_zero_for_nan():
    _, native = compile_both("def forward(x):\n    return torch.sign(x)\n")
    x = np.array([np.nan, -np.inf, -2.0, -0.0, 0.0, 3.0, np.inf], np.float32)
    assert native(x).tolist() == [0.0, -1.0, -1.0, 0.0, 0.0, 1.0, 1.0]


@pytest.mark.parametrize("expression", ["torch.asin(x)", "torch.acos(x)", "torch.atanh(x)"])
def test_inverse_trigonometry_in_its_domain(expression: str):
    assert_same(f"def forward(x):\n    return {expression}\n", unit((3, 7)))


@pytest.mark.parametrize("dtype", [np.float64, np.float16])
def test_other_float_widths(dtype: type):
    x = floats((6,), dtype)
    assert_same("def forward(x):\n    return torch.tanh(x) * 2.0 + torch.exp(-x)\n", x, rtol=2e-3, atol=2e-3)


BINARY = [
    "x + y", "x - y", "x * y", "x / y", "torch.add(x, y, alpha=2)", "torch.sub(x, y, alpha=0.5)",
    "torch.rsub(x, y)", "x ** y", "torch.maximum(x, y)", "torch.minimum(x, y)", "torch.fmax(x, y)",
    "torch.atan2(x, y)", "torch.remainder(x, y)", "torch.fmod(x, y)", "torch.floor_divide(x, y)",
    "torch.div(x, y, rounding_mode='trunc')", "torch.div(x, y, rounding_mode='floor')", "x < y", "x <= y",
    "x > y", "x >= y", "x == y", "x != y", "torch.where(x > y, x, y)", "torch.copysign(x, y)",
    "torch.logical_and(x, y)", "torch.logical_or(x, y)", "torch.logical_xor(x, y)",
]  # fmt: skip


@pytest.mark.parametrize("expression", BINARY)
def test_binary_float_ops_match_the_interpreter(expression: str):
    assert_same(f"def forward(x, y):\n    return {expression}\n", floats((3, 4)), floats((3, 4)))


INTEGER = [
    "x + y", "x - y", "x * y", "x * 3", "x + 2 * y", "x // 3", "torch.remainder(x, 4)", "torch.fmod(x, -4)",
    "torch.div(x, 2, rounding_mode='trunc')", "x / y", "x < y", "x == 2", "torch.maximum(x, y)",
    "torch.abs(x)", "-x", "x ** 2", "x ** 3", "x & y", "x | y", "x ^ y", "~x", "torch.clamp(x, -3, 4)",
    "torch.where(x > 0, x, y)", "torch.sign(x)", "x.float() / 3.0", "x * 0.5", "x < 1.5",
]  # fmt: skip


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.int8])
@pytest.mark.parametrize("expression", INTEGER)
def test_integer_ops_match_the_interpreter(expression: str, dtype: type):
    assert_same(f"def forward(x, y):\n    return {expression}\n", ints((2, 6), dtype), ints((2, 6), dtype))


def test_unsigned_bytes_wrap_and_compare_unsigned():
    x = np.array([0, 1, 200, 255, 128, 7], np.uint8)
    assert_same("def forward(x):\n    return x + x, x > 100, x // 3, x.float() * 0.5\n", x)


@pytest.mark.parametrize(
    "expression",
    [
        "x & y",
        "x | y",
        "x ^ y",
        "~x",
        "torch.logical_not(x)",
        "x == y",
        "torch.where(x, y.float(), -1.5)",
        "x.int() + y.int()",
    ],
)
def test_bool_ops_match_the_interpreter(expression: str):
    assert_same(f"def forward(x, y):\n    return {expression}\n", bools((5,)), bools((5,)))


CONVERSIONS = [
    ("x.to(torch.int32)", floats((7,)) * 40),
    ("x.to(torch.uint8)", np.array([0.0, 1.9, 255.0, 300.0, 44.5], np.float32)),
    ("x.to(torch.float64) * 1e-3", floats((7,))),
    ("x.to(torch.bool)", floats((7,))),
    ("x.half() * 2", floats((7,))),
    ("x.long() * 3", np.array([-2.9, -0.5, 0.5, 7.9], np.float32)),
    ("x.type_as(y) + 1", ints((5,))),
]


@pytest.mark.parametrize(("expression", "x"), CONVERSIONS, ids=[c[0] for c in CONVERSIONS])
def test_dtype_conversions(expression: str, x: np.ndarray):
    assert_same(f"def forward(x, y):\n    return {expression}\n", x, floats((2,), np.float64))


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("torch.lerp(x, y, 0.25)", lambda x, y: x + 0.25 * (y - x)),
        ("torch.addcmul(x, x, y, value=0.5)", lambda x, y: x + 0.5 * x * y),
        ("torch.addcdiv(x, x, y, value=2)", lambda x, y: x + 2 * x / y),
    ],
    ids=["lerp", "addcmul", "addcdiv"],
)
def test_ops_the_interpreter_lacks_against_their_formulas(expression: str, expected):
    module = script_source(
        make_context(), f"import torch\ndef forward(x, y):\n    return {expression}\n", "f.py"
    )
    native = LLVMExecutor(module, "forward")
    x, y = floats((3, 4)), positive((3, 4))
    with np.errstate(all="ignore"):
        assert match_value(native(x, y), expected(x, y), 1e-5, 1e-6) is None
    assert native.statistics()["kernel_calls"] == 1


def test_scalar_inputs_and_constants():
    source = "def forward(x, a: float, k: int, flag: bool):\n    return torch.where(x > a, x * k, x - a) + float(flag)\n"
    native = assert_same(source, floats((4, 3)), 0.25, 3, True)
    assert native(floats((4, 3)), -0.5, 2, False).shape == (4, 3)


@pytest.mark.parametrize(
    ("x", "y"),
    [
        (floats((3, 4)), floats((4,))),
        (floats((3, 1)), floats((1, 4))),
        (floats((2, 3, 4)), floats((3, 1))),
        (floats(()), floats((5,))),
        (floats((4,)), np.array(2.0, np.float32)),
    ],
    ids=["row", "outer", "rank3", "zero-dim", "zero-dim-right"],
)
def test_broadcasting(x: np.ndarray, y: np.ndarray):
    assert_same("def forward(x, y):\n    return torch.tanh(x * y) + x\n", x, y)


def test_results_smaller_than_the_iteration_space():
    source = "def forward(x, y):\n    a = torch.exp(x)\n    return a, a * y\n"
    assert_same(source, floats((4,)), floats((3, 4)))


def test_strided_and_transposed_inputs():
    x = floats((6, 5))
    source = "def forward(x, y):\n    return torch.sigmoid(x.t() * 2.0 + y)\n"
    assert_same(source, x, floats((5, 6)))
    interpreted, native = compile_both("def forward(x, y):\n    return x * y + 1.0\n")
    base = floats((8, 12))
    for view in (base[::2, ::3], base[:, 1:], base.T[2:, :]):
        other = floats(view.shape)
        assert match_value(native(view, other), interpreted(view, other), 1e-6, 1e-7) is None


LSTM = """
def forward(x, hx, cx, w_ih, w_hh, b_ih, b_hh):
    gates = torch.mm(x, w_ih.t()) + torch.mm(hx, w_hh.t()) + b_ih + b_hh
    ingate, forgetgate, cellgate, outgate = gates.chunk(4, 1)
    ingate = torch.sigmoid(ingate)
    forgetgate = torch.sigmoid(forgetgate)
    cellgate = torch.tanh(cellgate)
    outgate = torch.sigmoid(outgate)
    cy = (forgetgate * cx) + (ingate * cellgate)
    hy = outgate * torch.tanh(cy)
    return hy, cy
"""


def lstm_inputs(batch: int, hidden: int, features: int) -> list[np.ndarray]:
    shapes = [
        (batch, features),
        (batch, hidden),
        (batch, hidden),
        (4 * hidden, features),
        (4 * hidden, hidden),
    ]
    return [floats(s, low=-1, high=1) for s in shapes] + [
        floats((4 * hidden,), low=-1, high=1) for _ in range(2)
    ]


def test_lstm_cell_runs_as_one_kernel_with_chunked_inputs():
    native = assert_same(LSTM, *lstm_inputs(3, 5, 4))
    (program,) = native.programs
    assert list(program.natives) == ["forward.fusion0"]
    assert native.statistics()["kernels"] == 1


@pytest.mark.parametrize(("batch", "hidden", "staged"), [(3, 5, (0, 1)), (1, 9, (0, 1)), (3, 4096, ())])
def test_large_chunked_inputs_are_staged_a_row_at_a_time(monkeypatch, batch, hidden, staged):
    """Past STAGE_FROM_BYTES, the gate products (chunked along their rows) are copied a
    row at a time to stack buffers first, the broadcast biases are not, nor are rows
    over STAGE_BYTES; the results are the same."""
    monkeypatch.setattr(native_module, "STAGE_FROM_BYTES", 0)
    native = assert_same(LSTM, *lstm_inputs(batch, hidden, 4))
    (group,) = native.programs[0].natives.values()
    assert [layout.staged for layout in group.layouts] == [staged]
    chunked = [p.input for p in group.signature.tensors if p.chunking is not None]
    assert len(chunked) == 4  # the two products and the two biases


@pytest.mark.parametrize("length", [1000, 4099])
def test_threads_split_a_large_flat_kernel_into_slices(length):
    """Each thread gets a slice starting on a whole cache line; results are the same."""
    source = "def forward(x, y):\n    return torch.tanh(x) * y + 1\n"
    interpreted, native = compile_both(source)
    threaded = LLVMExecutor(native.module, "forward", threads=3)
    threaded.policy = replace(threaded.policy, split_from=256)
    x, y = floats((length,)), floats((length,))
    expected = interpreted(x, y)
    assert match_value(threaded(x, y), expected, 1e-5, 1e-6, "result") is None
    assert match_value(native(x, y), expected, 1e-5, 1e-6, "result") is None
    (group,) = threaded.programs[0].natives.values()
    (plan,) = group._plans.values()
    split = plan.__globals__["split"]
    assert [low % SPLIT_ALIGNMENT for low, _ in split.slices] == [0] * len(split.slices)
    assert sum(size for _, size in split.slices) == length and len(split.slices) == 3
    (plan,) = native.programs[0].natives["forward.fusion0"]._plans.values()
    assert plan.__globals__["split"] is None


def test_threads_must_be_positive():
    _, native = compile_both("def forward(x):\n    return x + 1\n")
    with pytest.raises(TsjitError, match="threads must be 1 or more, not 0"):
        LLVMExecutor(native.module, "forward", threads=0)


def test_small_chunked_inputs_are_read_in_place():
    native = assert_same(LSTM, *lstm_inputs(3, 5, 4))
    (group,) = native.programs[0].natives.values()
    assert [layout.staged for layout in group.layouts] == [()]


def test_chunk_of_an_input_and_cat_of_results():
    source = (
        "def forward(x, y):\n    a, b = x.chunk(2, 1)\n    return torch.cat([a * y, torch.tanh(b) + y], 1)\n"
    )
    assert_same(source, floats((3, 8)), floats((3, 4)))


def test_values_a_kernel_cannot_take_fall_back_to_the_interpreter():
    source = "def forward(x, y):\n    a, b = x.chunk(2, 1)\n    return a * y + b\n"
    interpreted, native = compile_both(source)
    x, y = floats((2, 6)), floats((2, 3))
    assert match_value(native(x, y), interpreted(x, y), 1e-5, 1e-6) is None
    odd = floats((2, 5))  # chunks of unequal sizes: the interpreter's business
    with pytest.raises(TorchScriptError) as native_error:
        native(odd, y)
    with pytest.raises(TorchScriptError) as interpreted_error:
        interpreted(odd, y)
    assert native_error.value.kind == interpreted_error.value.kind
    assert native.statistics()["fallbacks"] == 1


def test_shapes_that_do_not_broadcast_raise_as_in_the_interpreter():
    interpreted, native = compile_both("def forward(x, y):\n    return torch.exp(x) + y\n")
    with pytest.raises(TorchScriptError, match="size") as native_error:
        native(floats((3,)), floats((4,)))
    with pytest.raises(TorchScriptError) as interpreted_error:
        interpreted(floats((3,)), floats((4,)))
    assert str(native_error.value) == str(interpreted_error.value)
    assert native.statistics()["fallbacks"] == 1


def test_one_plan_per_shape_and_layout_variants_compile_once():
    interpreted, native = compile_both("def forward(x, y):\n    return x * y + torch.exp(x)\n")
    for shape in [(4, 5), (4, 5), (7, 2), (4, 5)]:
        x, y = floats(shape), floats(shape)
        assert match_value(native(x, y), interpreted(x, y), 1e-5, 1e-6) is None
    x, y = floats((4, 5)), floats((5,))
    assert match_value(native(x, y), interpreted(x, y), 1e-5, 1e-6) is None
    statistics = native.statistics()
    assert statistics["kernel_calls"] == 5
    assert statistics["kernels"] == 2  # flat, and the loop nest for the broadcast row


def test_plans_of_other_shapes_share_their_generated_code(monkeypatch):
    """A plan's sizes and shapes are values, not source: a group's plans for other
    shapes run the code generated for the first."""
    sources: list[str] = []
    generated = native_module.compile_generated

    def spy(source: str, filename: str):
        sources.append(source)
        return generated(source, filename)

    interpreted, native = compile_both("def forward(x, y):\n    return x * y + torch.exp(x)\n")
    monkeypatch.setattr(native_module, "compile_generated", spy)
    for shape in [(4, 5), (7, 2), (300, 300)]:  # the last large enough to reuse its result buffer
        x, y = floats(shape), floats(shape)
        assert match_value(native(x, y), interpreted(x, y), 1e-5, 1e-5) is None  # exp(4) = 55: ulps of 1e-5
    calls = [source for source in sources if "raw(" in source]
    assert len(calls) == 3 and calls[0] == calls[1] != calls[2]


def test_large_results_reuse_their_buffer_when_nothing_holds_it():
    interpreted, native = compile_both("def forward(x):\n    return torch.tanh(x) * 2.0\n")
    x = floats((REUSE_BYTES // 4,))
    first = native(x)
    kept = id(first)
    del first
    second = native(x)
    assert id(second) == kept
    third = native(x)
    assert id(third) != kept  # `second` still holds the previous result
    assert match_value(third, interpreted(x), 1e-5, 1e-6) is None
    assert match_value(second, third, 0, 0) is None


SCALAR_PROGRAMS = {
    "collatz": (
        (
            "def forward(n: int) -> int:\n"
            "    steps = 0\n"
            "    while n != 1:\n"
            "        if n % 2 == 0:\n"
            "            n = n // 2\n"
            "        else:\n"
            "            n = 3 * n + 1\n"
            "        steps += 1\n"
            "    return steps\n"
        ),
        [(27,), (1,), (97,)],
    ),
    "gcd_and_floats": (
        (
            "def forward(a: int, b: int, x: float):\n"
            "    while b != 0:\n"
            "        a, b = b, a % b\n"
            "    y = x\n"
            "    for i in range(a):\n"
            "        y = y * 0.5 + math.sqrt(abs(y)) - i / 3\n"
            "    return a, y, a > 3, math.floor(y)\n"
        ),
        [(48, 18, 2.5), (-12, 8, -1.0), (7, 0, 0.25)],
    ),
}


@pytest.mark.parametrize("name", SCALAR_PROGRAMS)
def test_scalar_functions_run_natively(name: str):
    source, runs = SCALAR_PROGRAMS[name]
    interpreted, native = compile_both("import math\n" + source)
    for args in runs:
        assert native(*args) == interpreted(*args)
    statistics = native.statistics()
    assert statistics["scalar_calls"] == len(runs) and statistics["fallbacks"] == 0


def test_scalar_functions_raise_through_the_interpreter():
    source = "def forward(a: int, b: int) -> int:\n    if a > 100:\n        raise ValueError('too big')\n    return a // b + a % b\n"
    interpreted, native = compile_both(source)
    assert native(7, 2) == interpreted(7, 2) == 4
    for args in [(7, 0), (101, 1)]:
        with pytest.raises(TorchScriptError) as native_error:
            native(*args)
        with pytest.raises(TorchScriptError) as interpreted_error:
            interpreted(*args)
        assert str(native_error.value) == str(interpreted_error.value)
    assert native.statistics()["fallbacks"] == 2


def test_int_of_a_float_that_cannot_convert_raises():
    interpreted, native = compile_both(
        "import math\ndef forward(x: float) -> int:\n    return math.floor(x) + 1\n"
    )
    assert native(2.5) == interpreted(2.5) == 3
    for bad in (math.nan, math.inf, -1e300):
        with pytest.raises(TorchScriptError, match="Cannot convert float") as error:
            native(bad)
        with pytest.raises(TorchScriptError) as interpreted_error:
            interpreted(bad)
        assert str(error.value) == str(interpreted_error.value)


def test_auto_compiles_a_group_on_its_second_run_and_leaves_single_ops():
    module = script_source(
        make_context(),
        "import torch\ndef forward(x):\n    return torch.exp(torch.tanh(x) * 2.0), torch.relu(x)\n",
        "auto.py",
    )
    auto = AutoExecutor(module, "forward")
    x = floats((5,))
    first = auto(x)
    assert auto.statistics() == {"kernel_calls": 0, "fallbacks": 1, "kernels": 0, "scalar_calls": 0}
    second = auto(x)
    assert auto.statistics() == {"kernel_calls": 1, "fallbacks": 1, "kernels": 1, "scalar_calls": 0}
    assert match_value(second, first, 1e-5, 1e-6) is None
    (program,) = auto.programs
    assert len(program.natives) == 1  # the lone relu stays a numpy call


def test_export_llvm_fuses_and_prints_the_native_code():
    module = script_source(
        make_context(),
        "import torch\ndef forward(x, n: int):\n    return torch.sigmoid(x) * 2.0 + x\n",
        "export.py",
    )
    executor = LLVMExecutor(module, "forward")
    specialized = executor.graph_for(floats((3,)), 2)
    assert "prim.FusionGroup" not in str(specialized)  # the executor outlines its groups
    typed = GraphExecutor(module, "forward").graph_for(floats((3,)), 2)
    text = export_llvm(typed)
    assert 'define void @"forward.fusion0"' in text and "fmul contract float" in text
    assert re.search(r"<\d+ x float>", export_llvm(typed, optimized=True)), "the loop is vectorized"


def test_groups_and_functions_no_kernel_computes_stay_interpreted():
    group = """
func.func @forward(%x: !ts.tensor<f32, [?, ?]>, %n: !ts.int, %k: !ts.int) -> !ts.tuple<!ts.tensor<f32, [?, ?]>, !ts.int> {
  %r = prim.FusionGroup(%p = %x : !ts.tensor<f32, [?, ?]>) -> (!ts.tensor<f32, [?, ?]>) {
    %m = aten.mm %p, %p : (!ts.tensor<f32, [?, ?]>, !ts.tensor<f32, [?, ?]>) -> !ts.tensor<f32, [?, ?]>
    prim.Yield %m : !ts.tensor<f32, [?, ?]>
  }
  %s = func.call @power(%n, %k) : (!ts.int, !ts.int) -> !ts.int
  %t = prim.TupleConstruct %r, %s : (!ts.tensor<f32, [?, ?]>, !ts.int) -> !ts.tuple<!ts.tensor<f32, [?, ?]>, !ts.int>
  func.return %t : !ts.tuple<!ts.tensor<f32, [?, ?]>, !ts.int>
}
func.func @power(%n: !ts.int, %k: !ts.int) -> !ts.int {
  %p = aten.pow %n, %k : (!ts.int, !ts.int) -> !ts.int
  func.return %p : !ts.int
}
"""
    module = parse_mlir(make_context(), group, "group.mlir")
    native = LLVMExecutor(module, "forward", ())
    x = floats((3, 3), low=-1, high=1)
    product, power = native(x, 3, 4)
    assert match_value(product, x @ x, 1e-5, 1e-6) is None and power == 81
    assert native.statistics() == {"kernel_calls": 0, "fallbacks": 0, "kernels": 0, "scalar_calls": 0}


def test_what_pytorch_refuses_stays_with_the_interpreter():
    interpreted, native = compile_both("def forward(x, y):\n    return torch.exp(x.float()) * (x - y)\n")
    x, y = bools((4,)), bools((4,))
    with pytest.raises(TorchScriptError) as native_error:
        native(x, y)
    with pytest.raises(TorchScriptError) as interpreted_error:
        interpreted(x, y)
    assert str(native_error.value) == str(interpreted_error.value)
