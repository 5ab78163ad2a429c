"""The llvm lowering, run: each conversion compiled by the JIT and compared with Python
and numpy semantics (division rounding, NaN rules of min/max, casts, control flow,
calls, memref layouts)."""

import io
import math

import numpy as np
import pytest
from xdsl.context import Context

from tsjit.context import make_context
from tsjit.diagnostics import TsjitError
from tsjit.formats.mlir import parse_mlir
from tsjit.runtime.llvm_jit import LLVMEngine, lower
from tsjit.transforms.lowering.llvm_export import LLVMTarget, convert_module


@pytest.fixture(scope="module")
def engine():
    engine = LLVMEngine()
    yield engine
    engine.close()


def parse(text):
    return parse_mlir(make_context(), text, "kernel.mlir")


def compile_text(engine, text):
    return engine.compile(parse(text))


DIVISION = """
func.func @divide(%a: i64, %b: i64) -> (i64, i64, i64, i64, i64) {
  %0 = arith.divsi %a, %b : i64
  %1 = arith.remsi %a, %b : i64
  %2 = arith.floordivsi %a, %b : i64
  %3 = arith.ceildivsi %a, %b : i64
  %4 = arith.ceildivui %a, %b : i64
  func.return %0, %1, %2, %3, %4 : i64, i64, i64, i64, i64
}
"""


def test_integer_division_rounding(engine):
    divide = compile_text(engine, DIVISION)["divide"]
    for a in (-7, -6, -1, 0, 1, 6, 7, 2**40 + 3):
        for b in (-3, -2, -1, 1, 2, 3):
            trunc = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)
            assert divide(a, b)[:4] == (trunc, a - trunc * b, a // b, -(-a // b)), (a, b)
            if a >= 0 and b > 0:
                assert divide(a, b)[4] == -(-a // b)


MIN_MAX = """
func.func @min_max(%x: f32, %y: f32) -> (f32, f32, f32, f32) {
  %0 = arith.minimumf %x, %y : f32
  %1 = arith.maximumf %x, %y : f32
  %2 = arith.minnumf %x, %y : f32
  %3 = arith.maxnumf %x, %y : f32
  func.return %0, %1, %2, %3 : f32, f32, f32, f32
}
func.func @int_min_max(%a: i32, %b: i32) -> (i32, i32, i32, i32) {
  %0 = arith.minsi %a, %b : i32
  %1 = arith.maxsi %a, %b : i32
  %2 = arith.minui %a, %b : i32
  %3 = arith.maxui %a, %b : i32
  func.return %0, %1, %2, %3 : i32, i32, i32, i32
}
"""


def test_min_max_nan_rules(engine):
    compiled = compile_text(engine, MIN_MAX)
    minimum, maximum, minnum, maxnum = compiled["min_max"](math.nan, 2.0)
    assert math.isnan(minimum) and math.isnan(maximum)  # torch.minimum / torch.maximum
    assert (minnum, maxnum) == (2.0, 2.0)  # torch.fmin / torch.fmax
    assert compiled["min_max"](-1.0, 2.0) == (-1.0, 2.0, -1.0, 2.0)
    assert compiled["int_min_max"](-1, 2) == (-1, 2, 2, -1)  # -1 is the largest unsigned


CASTS = """
func.func @casts(%x: f32, %i: i32, %u: i64) -> (i32, i32, f32, f64, f64, i16, i64, f32) {
  %0 = arith.fptosi %x : f32 to i32
  %1 = arith.fptoui %x : f32 to i32
  %2 = arith.uitofp %u : i64 to f32
  %3 = arith.sitofp %i : i32 to f64
  %4 = arith.extf %x : f32 to f64
  %5 = arith.trunci %i : i32 to i16
  %6 = arith.extui %i : i32 to i64
  %7 = arith.bitcast %i : i32 to f32
  func.return %0, %1, %2, %3, %4, %5, %6, %7 : i32, i32, f32, f64, f64, i16, i64, f32
}
"""


def test_casts(engine):
    casts = compile_text(engine, CASTS)["casts"]
    result = casts(7.75, 0x3F800000 + 65536 * 3, 2**63 + 2**40)
    assert result[:3] == (7, 7, float(np.float32(2**63 + 2**40)))
    assert result[3] == float(0x3F800000 + 65536 * 3) and result[4] == 7.75
    assert result[5] == 0 and result[6] == 0x3F800000 + 65536 * 3
    assert result[7] == np.array([0x3F800000 + 65536 * 3], np.int32).view(np.float32)[0]
    assert casts(-2.5, -1, 0)[0] == -2 and casts(-2.5, -1, 0)[6] == 2**32 - 1


SWITCH_AND_CALLS = """
func.func @select_case(%k: index) -> i64 {
  %r = scf.index_switch %k -> i64
  case 2 {
    %c = arith.constant 20 : i64
    scf.yield %c : i64
  }
  case 5 {
    %c = arith.constant 50 : i64
    scf.yield %c : i64
  }
  default {
    %c = arith.constant -1 : i64
    scf.yield %c : i64
  }
  func.return %r : i64
}
func.func @sum_and_count(%x: memref<?xf64>) -> (f64, index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f64
  %n = memref.dim %x, %c0 : memref<?xf64>
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f64) {
    %v = memref.load %x[%i] : memref<?xf64>
    %next = arith.addf %acc, %v : f64
    scf.yield %next : f64
  }
  func.return %s, %n : f64, index
}
func.func @mean(%x: memref<?xf64>) -> f64 {
  %s, %n = func.call @sum_and_count(%x) : (memref<?xf64>) -> (f64, index)
  %i = arith.index_cast %n : index to i64
  %f = arith.sitofp %i : i64 to f64
  %m = arith.divf %s, %f : f64
  func.return %m : f64
}
"""


def test_switch_calls_and_struct_results(engine):
    compiled = compile_text(engine, SWITCH_AND_CALLS)
    assert [compiled["select_case"](k) for k in range(7)] == [-1, -1, 20, -1, -1, 50, -1]
    x = np.array([1.0, 2.0, 4.5])
    assert compiled["sum_and_count"](x) == (7.5, 3)
    assert compiled["mean"](x) == 2.5


LAYOUTS = """
func.func @gather(%x: memref<?x3xf32, strided<[?, 2], offset: 1>>, %y: memref<?x3xf32>, %d: index) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %n = memref.dim %x, %c0 : memref<?x3xf32, strided<[?, 2], offset: 1>>
  %scratch = memref.alloca() : memref<3xf32>
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %c3 step %c1 {
      %v = memref.load %x[%i, %j] : memref<?x3xf32, strided<[?, 2], offset: 1>>
      memref.store %v, %scratch[%j] : memref<3xf32>
    }
    scf.for %j = %c0 to %c3 step %c1 {
      %v = memref.load %scratch[%j] : memref<3xf32>
      memref.store %v, %y[%i, %j] : memref<?x3xf32>
    }
  }
  %size = memref.dim %y, %d : memref<?x3xf32>
  func.return %size : index
}
"""


def test_strided_layout_offset_alloca_and_dim(engine):
    gather = compile_text(engine, LAYOUTS)["gather"]
    base = np.arange(40, dtype=np.float32).reshape(4, 10)
    view = base[:, 1:7:2]  # strides (10, 2) in elements; the array is the memref it views
    y = np.zeros((4, 3), np.float32)
    assert gather(view, y, 1) == 3
    np.testing.assert_array_equal(y, view)
    assert gather(view, y, 0) == 4


def test_libm_call_resolves_in_process(engine):
    kernel = compile_text(
        engine,
        """
        func.func @expm1(%x: f32, %y: f64) -> (f32, f64) {
          %0 = math.expm1 %x : f32
          %1 = math.log1p %y : f64
          func.return %0, %1 : f32, f64
        }
        """,
    )["expm1"]
    small, log = kernel(1e-6, 1e-12)
    assert small == pytest.approx(math.expm1(1e-6), rel=1e-6) and log == pytest.approx(1e-12, rel=1e-12)


def test_llvm_target_translates_the_extra_ops():
    lowered, _ = lower(
        parse("func.func @f(%x: f32) -> i32 {\n %0 = arith.fptoui %x : f32 to i32\n func.return %0 : i32\n}")
    )
    out = io.StringIO()
    LLVMTarget().emit(Context(), lowered, out)
    assert "fptoui float %" in out.getvalue()


def test_untranslatable_op_is_named_with_its_location():
    module = parse("func.func @f() {\n  func.return\n}")
    with pytest.raises(
        TsjitError, match=r"^kernel.mlir:1:1: 'func.func' is not in the llvm dialect: lower it first"
    ):
        convert_module(module)
