"""The inline float32 approximations of `fast_math`, compiled and run: their error over
dense sweeps stays within the bounds the module documents, special values are exact,
and the loops that use them vectorize."""

import math

import numpy as np
import pytest
from xdsl.parser import Parser

from tsjit.context import make_context
from tsjit.runtime.llvm_jit import LLVMEngine

KERNEL = """
func.func @apply(%x: memref<?x{type}>, %y: memref<?x{type}>) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c0 : memref<?x{type}>
  scf.for %i = %c0 to %n step %c1 {{
    %v = memref.load %x[%i] : memref<?x{type}>
    %r = math.{op} %v : {type}
    memref.store %r, %y[%i] : memref<?x{type}>
  }}
  func.return
}}
"""

ERF = np.vectorize(math.erf)

# op: (exact result in float64, sweep, bound on |error| as (relative, absolute)), the
# bounds of the table in fast_math's docstring
CASES = {
    "exp": (np.exp, np.linspace(-87.0, 88.5, 2_000_001), (1e-7, 0.0)),
    "exp2": (np.exp2, np.linspace(-125.0, 127.5, 2_000_001), (1e-7, 0.0)),
    "log": (np.log, np.geomspace(1e-37, 1e38, 2_000_001), (1e-7, 0.0)),
    "log2": (np.log2, np.geomspace(1e-37, 1e38, 2_000_001), (1.5e-7, 0.0)),
    "log10": (np.log10, np.geomspace(1e-37, 1e38, 2_000_001), (1.5e-7, 0.0)),
    "tanh": (np.tanh, np.linspace(-10.0, 10.0, 2_000_001), (0.0, 4.5e-7)),
    "erf": (ERF, np.linspace(-5.0, 5.0, 400_001), (0.0, 4.5e-7)),
}


@pytest.fixture(scope="module")
def engine():
    engine = LLVMEngine()
    yield engine
    engine.close()


def compile_kernel(engine, op, type="f32"):
    module = Parser(make_context(), KERNEL.format(op=op, type=type)).parse_module()
    compiled = engine.compile(module)
    return compiled, compiled["apply"]


def run(kernel, values, dtype=np.float32):
    x = np.asarray(values, dtype=dtype)
    y = np.empty_like(x)
    kernel(x, y)
    return y


@pytest.mark.parametrize("op", CASES)
def test_error_within_documented_bound(engine, op):
    exact, sweep, (relative, absolute) = CASES[op]
    compiled, kernel = compile_kernel(engine, op)
    x = sweep.astype(np.float32)
    reference = exact(x.astype(np.float64))
    error = np.abs(run(kernel, x).astype(np.float64) - reference)
    bound = absolute + relative * np.abs(reference)
    assert np.all(error <= bound), f"max error / bound = {np.max(error / bound):.3g}"
    assert compiled.is_vectorized("apply")


SPECIAL = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45, -1e-45, 1e-40, 100.0, -100.0, 1e30, -1e30]


@pytest.mark.parametrize("op", CASES)
def test_special_values(engine, op):
    exact = CASES[op][0]
    _, kernel = compile_kernel(engine, op)
    x = np.array(SPECIAL, dtype=np.float32)
    with np.errstate(all="ignore"):
        reference = exact(x.astype(np.float64)).astype(np.float32)
        result = run(kernel, x)
    np.testing.assert_allclose(result, reference, rtol=1e-5, atol=1e-6, equal_nan=True)
    np.testing.assert_array_equal(np.isinf(result), np.isinf(reference))


def test_sigmoid_from_exp_saturates(engine):
    _, kernel = compile_kernel(engine, "exp")
    x = np.array([-1e4, -200.0, -89.0, 0.0, 89.0, 200.0, 1e4], dtype=np.float32)
    with np.errstate(over="ignore"):
        sigmoid = 1 / (1 + run(kernel, -x))
    np.testing.assert_allclose(sigmoid, [0, 0, 0, 0.5, 1, 1, 1], atol=1e-30)


def test_f16_computes_in_f32(engine):
    _, kernel = compile_kernel(engine, "tanh", "f16")
    x = np.linspace(-4, 4, 1001).astype(np.float16)
    np.testing.assert_allclose(
        run(kernel, x, np.float16), np.tanh(x.astype(np.float64)), rtol=1e-3, atol=1e-3
    )


def test_f64_keeps_libm_accuracy(engine):
    _, kernel = compile_kernel(engine, "erf", "f64")
    x = np.linspace(-5, 5, 10001)
    np.testing.assert_allclose(run(kernel, x, np.float64), ERF(x), rtol=1e-15, atol=1e-16)


def test_tanh_keeps_relative_accuracy_near_zero(engine):
    """Without a small-|x| special case, tanh must still be x to within rounding there."""
    _, kernel = compile_kernel(engine, "tanh")
    x = np.geomspace(1.2e-38, 1e-3, 100_001).astype(np.float32)
    x = np.concatenate([x, -x])
    np.testing.assert_allclose(run(kernel, x), np.tanh(x.astype(np.float64)), rtol=2.5e-7, atol=0)
