"""The native-code engine: scalar loops and memref kernels compiled from scf/arith/math
and run through ctypes, checked against Python and numpy; the kernel cache, argument
checking, prepared calls, thread splitting and IR introspection."""

import math

import numpy as np
import pytest

from tsjit.context import make_context
from tsjit.formats.mlir import parse_mlir
from tsjit.runtime.llvm_jit import LLVMEngine, array_address, llvm_ir

SCALAR_LOOPS = """
func.func @gcd(%a: i64, %b: i64) -> i64 {
  %r:2 = scf.while (%x = %a, %y = %b) : (i64, i64) -> (i64, i64) {
    %c0 = arith.constant 0 : i64
    %more = arith.cmpi ne, %y, %c0 : i64
    scf.condition(%more) %x, %y : i64, i64
  } do {
  ^bb0(%x: i64, %y: i64):
    %m = arith.remsi %x, %y : i64
    scf.yield %y, %m : i64, i64
  }
  func.return %r#0 : i64
}

func.func @collatz_steps(%n: i64) -> i64 {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %c2 = arith.constant 2 : i64
  %c3 = arith.constant 3 : i64
  %r:2 = scf.while (%x = %n, %steps = %c0) : (i64, i64) -> (i64, i64) {
    %more = arith.cmpi sgt, %x, %c1 : i64
    scf.condition(%more) %x, %steps : i64, i64
  } do {
  ^bb0(%x: i64, %steps: i64):
    %rem = arith.remsi %x, %c2 : i64
    %odd = arith.cmpi ne, %rem, %c0 : i64
    %next = scf.if %odd -> (i64) {
      %t = arith.muli %x, %c3 : i64
      %u = arith.addi %t, %c1 : i64
      scf.yield %u : i64
    } else {
      %h = arith.divsi %x, %c2 : i64
      scf.yield %h : i64
    }
    %s = arith.addi %steps, %c1 : i64
    scf.yield %next, %s : i64, i64
  }
  func.return %r#1 : i64
}

func.func @sum_of_squares(%n: index) -> (f64, i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f64
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f64) {
    %k = arith.index_cast %i : index to i64
    %f = arith.sitofp %k : i64 to f64
    %sq = arith.mulf %f, %f : f64
    %next = arith.addf %acc, %sq : f64
    scf.yield %next : f64
  }
  %big = arith.cmpf ogt, %s, %zero : f64
  func.return %s, %big : f64, i1
}
"""

ELEMENTWISE = """
func.func @scale_shift(%x: memref<?xf32>, %y: memref<?xf32>, %a: f32, %b: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %x[%i] : memref<?xf32>
    %e = math.exp %v : f32
    %m = arith.mulf %e, %a : f32
    %r = arith.addf %m, %b : f32
    memref.store %r, %y[%i] : memref<?xf32>
  }
  func.return
}

func.func @tanh_2d(%x: memref<?x?xf32, strided<[?, ?]>>, %y: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows = memref.dim %y, %c0 : memref<?x?xf32>
  %cols = memref.dim %y, %c1 : memref<?x?xf32>
  scf.for %i = %c0 to %rows step %c1 {
    scf.for %j = %c0 to %cols step %c1 {
      %v = memref.load %x[%i, %j] : memref<?x?xf32, strided<[?, ?]>>
      %t = math.tanh %v : f32
      memref.store %t, %y[%i, %j] : memref<?x?xf32>
    }
  }
  func.return
}
"""


def parse(text):
    return parse_mlir(make_context(), text, "kernels.mlir")


@pytest.fixture(scope="module")
def engine():
    engine = LLVMEngine(threads=2, split_threshold=1 << 16)
    yield engine
    engine.close()


@pytest.fixture(scope="module")
def scalar_loops(engine):
    return engine.compile(parse(SCALAR_LOOPS))


@pytest.fixture(scope="module")
def elementwise(engine):
    return engine.compile(parse(ELEMENTWISE))


def collatz_steps(n):
    steps = 0
    while n > 1:
        n = 3 * n + 1 if n % 2 else n // 2
        steps += 1
    return steps


def test_scalar_loops_match_python(scalar_loops):
    for a, b in [(48, 18), (17, 5), (0, 9), (9, 0), (2**40, 2**20 * 3)]:
        assert scalar_loops["gcd"](a, b) == math.gcd(a, b)
    assert [scalar_loops["collatz_steps"](n) for n in range(1, 200)] == [
        collatz_steps(n) for n in range(1, 200)
    ]
    assert scalar_loops["collatz_steps"](837799) == 524
    assert scalar_loops["sum_of_squares"](1000) == (float(sum(i * i for i in range(1000))), True)
    assert scalar_loops["sum_of_squares"](0) == (0.0, False)


def test_elementwise_1d_dynamic_size(elementwise):
    for n in (0, 1, 7, 1000, 4099):
        x = np.linspace(-3, 3, n, dtype=np.float32)
        y = np.empty_like(x)
        elementwise["scale_shift"](x, y, 2.0, -1.0)
        np.testing.assert_allclose(y, np.exp(x.astype(np.float64)) * 2 - 1, rtol=1e-5, atol=1e-6)
    assert elementwise.is_vectorized("scale_shift")


def test_elementwise_2d_non_contiguous_input(elementwise):
    base = np.random.default_rng(0).standard_normal((64, 90)).astype(np.float32) * 3
    for x in (base, base.T, base[::3, 5::2], base[::-1]):
        y = np.empty(x.shape, np.float32)
        elementwise["tanh_2d"](x, y)
        np.testing.assert_allclose(y, np.tanh(x.astype(np.float64)), rtol=1e-5, atol=1e-6)


def test_cache_hit_on_same_module_text():
    engine = LLVMEngine()
    first = engine.compile(parse(SCALAR_LOOPS))
    second = engine.compile(parse(SCALAR_LOOPS))  # parsed again: equal text, new objects
    assert second is first and (engine.hits, engine.misses) == (1, 1)
    other = engine.compile(parse(SCALAR_LOOPS.replace("%c3 = arith.constant 3", "%c3 = arith.constant 5")))
    assert other is not first and (engine.hits, engine.misses) == (1, 2)
    assert other["collatz_steps"](3) != first["collatz_steps"](3)


def test_split_call_gives_identical_results(engine, elementwise):
    kernel = elementwise["scale_shift"]
    x = np.random.default_rng(1).standard_normal(300_001).astype(np.float32)
    whole, split = np.empty_like(x), np.empty_like(x)
    kernel(x, whole, 0.5, 0.25)
    kernel.split_call(x, split, 0.5, 0.25, threads=3)
    np.testing.assert_array_equal(split, whole)
    strided, out = x[::2], np.empty(x[::2].shape, np.float32)
    with pytest.raises(ValueError, match="C-contiguous"):
        kernel.split_call(strided, out, 0.5, 0.25)


def test_arguments_are_checked(elementwise):
    kernel = elementwise["scale_shift"]
    x = np.zeros(4, np.float32)
    with pytest.raises(TypeError, match=r"argument 0: expected a float32 array, got float64"):
        kernel(x.astype(np.float64), x, 1.0, 0.0)
    with pytest.raises(ValueError, match=r"argument 1: expected shape \[\?\], got \[2, 2\]"):
        kernel(x, x.reshape(2, 2), 1.0, 0.0)
    with pytest.raises(ValueError, match=r"argument 0: expected a C-contiguous array"):
        kernel(np.zeros(8, np.float32)[::2], x, 1.0, 0.0)
    with pytest.raises(TypeError, match=r"@scale_shift\(\) missing 2 required positional arguments"):
        kernel(x, x)


def test_bind_prepares_the_call(elementwise, scalar_loops):
    x = np.arange(5, dtype=np.float32)
    y = np.empty_like(x)
    run = elementwise["scale_shift"].bind(x, y, 1.0, 0.0)
    x[:] = 0
    run()
    np.testing.assert_allclose(y, np.ones(5))
    assert scalar_loops["sum_of_squares"].bind(3)() == (5.0, True)


def test_native_arguments_follow_the_calling_convention(elementwise):
    x = np.zeros((3, 8), np.float32)[:, ::2]
    y = np.zeros((3, 4), np.float32)
    natives = elementwise["tanh_2d"].native_arguments(x, y)
    assert natives == [array_address(x), 3, 4, 8, 2, array_address(y), 3, 4]
    assert array_address(x) == x.ctypes.data


def test_llvm_ir_text_and_vectorization(elementwise):
    module = parse(ELEMENTWISE)
    plain = llvm_ir(module)
    assert 'define void @"scale_shift"(ptr %".1", i64 %".2", ptr %".3", i64 %".4", float' in plain
    assert "getelementptr inbounds float" in plain and "x float>" not in plain
    optimized = llvm_ir(module, optimized=True)
    assert "x float>" in optimized and "expf" not in optimized and "tanhf" not in optimized
    assert elementwise.is_vectorized("scale_shift") and elementwise.is_vectorized("tanh_2d")


def test_large_module_uses_fast_code_generation():
    compiled = LLVMEngine(large_module_ops=10).compile(parse(SCALAR_LOOPS))
    assert compiled.codegen_level == 0 and compiled["collatz_steps"](27) == 111
