"""The interpreter: control flow, last-use release, exceptions, calls, objects, fork."""

from __future__ import annotations

import subprocess
import sys
import threading
import weakref
from typing import Any

import numpy as np
import pytest

from tsjit.context import make_context
from tsjit.diagnostics import TsjitError
from tsjit.formats.mlir import parse_mlir, verify
from tsjit.frontend.library_methods import library_classes
from tsjit.frontend.modules import CONTAINERS
from tsjit.runtime import kernels
from tsjit.runtime.errors import TorchScriptError
from tsjit.runtime.interpreter import Code, Program
from tsjit.runtime.modules import builtin_method, module_object
from tsjit.runtime.values import NamedTupleValue, ScriptObject

F = "!ts.tensor"


def program(text: str) -> Program:
    module = parse_mlir(make_context(), text, "test.mlir")
    verify(module)
    return Program(module)


def compile_forward(text: str) -> Code:
    return program(text).function("forward")


def tensor(*values: float) -> np.ndarray:
    return np.array(values, dtype=np.float32)


# --------------------------------------------------------------------------------------
# Straight-line code and control flow
# --------------------------------------------------------------------------------------


def test_straight_line_tensor_arithmetic():
    forward = compile_forward(f"""
func.func @forward(%x : {F}, %y : {F}) -> {F} {{
  %one = prim.Constant 1 : !ts.int
  %s = aten.add %x, %y, %one : ({F}, {F}, !ts.int) -> {F}
  %p = aten.mul %s, %x : ({F}, {F}) -> {F}
  func.return %p : {F}
}}""")
    np.testing.assert_array_equal(forward(tensor(1, 2), tensor(3, 4)), tensor(4, 12))


def test_several_results_are_a_tuple_and_none_for_no_result():
    code = program(f"""
func.func @pair(%x : {F}) -> ({F}, {F}) {{
  %n = aten.neg %x : ({F}) -> {F}
  func.return %x, %n : {F}, {F}
}}
func.func @nothing(%x : {F}) {{
  func.return
}}""")
    a, b = code.function("pair")(tensor(1))
    assert a[0] == 1 and b[0] == -1
    assert code.function("nothing")(tensor(1)) is None


IF_GRAPH = f"""
func.func @forward(%c : !ts.bool, %d : !ts.bool, %x : {F}) -> {F} {{
  %r = prim.If %c -> ({F}) {{
    %inner = prim.If %d -> ({F}) {{
      %n = aten.neg %x : ({F}) -> {F}
      prim.Yield %n : {F}
    }} else {{
      %t = aten.tanh %x : ({F}) -> {F}
      prim.Yield %t : {F}
    }}
    prim.Yield %inner : {F}
  }} else {{
    prim.Yield %x : {F}
  }}
  func.return %r : {F}
}}"""


@pytest.mark.parametrize(
    ("c", "d", "expected"), [(True, True, -0.5), (True, False, np.tanh(np.float32(0.5))), (False, True, 0.5)]
)
def test_nested_if_takes_the_right_branches(c: bool, d: bool, expected: float):
    result = compile_forward(IF_GRAPH)(c, d, tensor(0.5))
    assert result[0] == np.float32(expected)


LOOP_GRAPH = f"""
func.func @forward(%n : !ts.int, %x : {F}, %y : {F}) -> ({F}, {F}) {{
  %true = prim.Constant true : !ts.bool
  %one = prim.Constant 1 : !ts.int
  %a, %b = prim.Loop %n, %true iter(%i) carried(%p = %x : {F}, %q = %y : {F}) -> ({F}, {F}) {{
    %s = aten.add %p, %q, %i : ({F}, {F}, !ts.int) -> {F}
    prim.Yield %true, %q, %s : !ts.bool, {F}, {F}
  }}
  func.return %a, %b : {F}, {F}
}}"""


@pytest.mark.parametrize(("trips", "expected"), [(0, (1, 10)), (1, (10, 1)), (2, (1, 11)), (3, (11, 23))])
def test_loop_carries_values_in_parallel(trips: int, expected: tuple[float, float]):
    """(p, q) <- (q, p + i*q): the yield swaps registers, so its moves must be parallel."""
    a, b = compile_forward(LOOP_GRAPH)(trips, tensor(1), tensor(10))
    assert (a[0], b[0]) == expected


def test_while_loop_stops_on_its_condition():
    """`while v < limit: v = v * 2`, as TorchScript emits it: max trip count INT64_MAX."""
    forward = compile_forward(f"""
func.func @forward(%v0 : {F}, %limit : {F}) -> ({F}, !ts.int) {{
  %max = prim.Constant 9223372036854775807 : !ts.int
  %two = prim.Constant 2 : !ts.int
  %one = prim.Constant 1 : !ts.int
  %zero = prim.Constant 0 : !ts.int
  %t0 = aten.lt %v0, %limit : ({F}, {F}) -> {F}
  %c0 = aten.Bool %t0 : ({F}) -> !ts.bool
  %v, %count = prim.Loop %max, %c0 iter(%i) carried(%w = %v0 : {F}, %k = %zero : !ts.int) -> ({F}, !ts.int) {{
    %w2 = aten.mul %w, %two : ({F}, !ts.int) -> {F}
    %k2 = aten.add %k, %one : (!ts.int, !ts.int) -> !ts.int
    %t = aten.lt %w2, %limit : ({F}, {F}) -> {F}
    %c = aten.Bool %t : ({F}) -> !ts.bool
    prim.Yield %c, %w2, %k2 : !ts.bool, {F}, !ts.int
  }}
  func.return %v, %count : {F}, !ts.int
}}""")
    v, count = forward(np.array(3.0, np.float32), np.array(100.0, np.float32))
    assert (float(v), count) == (192.0, 6)


def test_nested_loops_restart_the_inner_counter():
    """sum over i < 3, j < 4 of (i + j) = 30, in tensors."""
    forward = compile_forward(f"""
func.func @forward(%acc0 : {F}) -> {F} {{
  %true = prim.Constant true : !ts.bool
  %three = prim.Constant 3 : !ts.int
  %four = prim.Constant 4 : !ts.int
  %one = prim.Constant 1 : !ts.int
  %outer = prim.Loop %three, %true iter(%i) carried(%acc = %acc0 : {F}) -> ({F}) {{
    %inner = prim.Loop %four, %true iter(%j) carried(%a = %acc : {F}) -> ({F}) {{
      %a1 = aten.add %a, %i, %one : ({F}, !ts.int, !ts.int) -> {F}
      %a2 = aten.add %a1, %j, %one : ({F}, !ts.int, !ts.int) -> {F}
      prim.Yield %true, %a2 : !ts.bool, {F}
    }}
    prim.Yield %true, %inner : !ts.bool, {F}
  }}
  func.return %outer : {F}
}}""")
    assert forward(tensor(0))[0] == 30


def test_code_is_reusable_and_reentrant_across_calls():
    forward = compile_forward(LOOP_GRAPH)
    first = forward(3, tensor(1), tensor(10))
    forward(0, tensor(5), tensor(6))
    again = forward(3, tensor(1), tensor(10))
    assert [a[0] for a in first] == [a[0] for a in again]


def test_code_prints_its_instructions():
    text = str(compile_forward(LOOP_GRAPH))
    assert "loop " in text and "aten::add.Tensor" in text and "prim.Yield" in text


# --------------------------------------------------------------------------------------
# Values are released right after their last use
# --------------------------------------------------------------------------------------


class Probe:
    """Replaces two kernels: `aten::neg` makes tracked arrays, `aten::relu` records
    which tracked arrays are still alive when it runs."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch):
        self.tracked: list[weakref.ref[np.ndarray]] = []
        self.snapshots: list[list[bool]] = []
        monkeypatch.setitem(kernels.KERNELS, "aten::neg", self.make)
        monkeypatch.setitem(kernels.KERNELS, "aten::relu", self.look)

    def make(self, x: np.ndarray) -> np.ndarray:
        array = np.negative(x)
        self.tracked.append(weakref.ref(array))
        return array

    def look(self, x: np.ndarray) -> np.ndarray:
        self.snapshots.append([ref() is not None for ref in self.tracked])
        return x.copy()


def test_straight_line_value_dies_at_its_last_use(monkeypatch: pytest.MonkeyPatch):
    probe = Probe(monkeypatch)
    forward = compile_forward(f"""
func.func @forward(%x : {F}) -> {F} {{
  %a = aten.neg %x : ({F}) -> {F}
  %b = aten.neg %a : ({F}) -> {F}
  %p = aten.relu %b : ({F}) -> {F}
  %c = aten.neg %b : ({F}) -> {F}
  %q = aten.relu %c : ({F}) -> {F}
  func.return %c : {F}
}}""")
    forward(tensor(1))
    # at the first probe %a is gone and %b alive; at the second %b is gone too
    assert probe.snapshots == [[False, True], [False, False, True]]


def test_value_used_in_one_branch_dies_at_the_start_of_the_other(monkeypatch: pytest.MonkeyPatch):
    probe = Probe(monkeypatch)
    forward = compile_forward(f"""
func.func @forward(%c : !ts.bool, %x : {F}) -> {F} {{
  %a = aten.neg %x : ({F}) -> {F}
  %r = prim.If %c -> ({F}) {{
    %q = aten.neg %a : ({F}) -> {F}
    %p = aten.relu %q : ({F}) -> {F}
    prim.Yield %q : {F}
  }} else {{
    %p = aten.relu %x : ({F}) -> {F}
    prim.Yield %x : {F}
  }}
  func.return %r : {F}
}}""")
    forward(True, tensor(1))
    forward(False, tensor(1))
    assert probe.snapshots == [[False, True], [False, False, False]]


def test_value_used_inside_a_loop_lives_until_the_loop_exits(monkeypatch: pytest.MonkeyPatch):
    probe = Probe(monkeypatch)
    forward = compile_forward(f"""
func.func @forward(%x : {F}) -> {F} {{
  %true = prim.Constant true : !ts.bool
  %two = prim.Constant 2 : !ts.int
  %one = prim.Constant 1 : !ts.int
  %a = aten.neg %x : ({F}) -> {F}
  %r = prim.Loop %two, %true iter(%i) carried(%v = %x : {F}) -> ({F}) {{
    %w = aten.add %v, %a, %one : ({F}, {F}, !ts.int) -> {F}
    %p = aten.relu %w : ({F}) -> {F}
    prim.Yield %true, %w : !ts.bool, {F}
  }}
  %q = aten.relu %r : ({F}) -> {F}
  func.return %r : {F}
}}""")
    np.testing.assert_array_equal(forward(tensor(3)), tensor(-3))
    assert probe.snapshots == [[True], [True], [False]]


def test_initial_carried_value_moves_into_the_loop(monkeypatch: pytest.MonkeyPatch):
    probe = Probe(monkeypatch)
    forward = compile_forward(f"""
func.func @forward(%x : {F}) -> {F} {{
  %true = prim.Constant true : !ts.bool
  %two = prim.Constant 2 : !ts.int
  %a = aten.neg %x : ({F}) -> {F}
  %r = prim.Loop %two, %true iter(%i) carried(%v = %a : {F}) -> ({F}) {{
    %w = aten.tanh %v : ({F}) -> {F}
    %p = aten.relu %w : ({F}) -> {F}
    prim.Yield %true, %w : !ts.bool, {F}
  }}
  func.return %r : {F}
}}""")
    forward(tensor(1))
    assert probe.snapshots == [[False], [False]]


def test_the_compiled_code_drops_registers_where_liveness_says():
    code = compile_forward(f"""
func.func @forward(%c : !ts.bool, %x : {F}, %unused : {F}) -> {F} {{
  %a = aten.tanh %x : ({F}) -> {F}
  %r = prim.If %c -> ({F}) {{
    prim.Yield %a : {F}
  }} else {{
    prim.Yield %x : {F}
  }}
  func.return %r : {F}
}}""")
    unused_drop, tanh, branch, then_drop, then_move, jump, else_drop, else_move = code.instructions
    c, x, unused, a, r = 0, 1, 2, 3, 4
    assert unused_drop.opcode == "drop" and unused_drop.drops == (unused,)
    assert tanh.drops == ()  # %x is still used by the else-branch
    assert branch.targets == (3, 6)
    assert then_drop.drops == (c, x) and then_move.drops == (a,) and then_move.outputs == (r,)
    assert jump.targets == (8,)
    assert else_drop.drops == (c, a) and else_move.drops == (x,)
    assert code.results == (r,)


# --------------------------------------------------------------------------------------
# Exceptions
# --------------------------------------------------------------------------------------

RAISING = f"""
func.func @check(%n : !ts.int) -> !ts.int {{
  %limit = prim.Constant 100 : !ts.int
  %big = aten.gt %n, %limit : (!ts.int, !ts.int) -> !ts.bool
  prim.If %big {{
    %msg = prim.Constant "too large" : !ts.str
    %cls = prim.Constant "builtins.RuntimeError" : !ts.str
    prim.RaiseException %msg, %cls : !ts.str
    prim.Yield
  }} else {{
    prim.Yield
  }}
  func.return %n : !ts.int
}}
func.func @forward(%x : {F}, %n : !ts.int) -> {F} {{
  %zero = prim.Constant 0 : !ts.int
  %none = prim.Constant : !ts.none
  %rank = aten.dim %x : ({F}) -> !ts.int
  %one = prim.Constant 1 : !ts.int
  %vector = aten.eq %rank, %one : (!ts.int, !ts.int) -> !ts.bool
  prim.If %vector {{
    prim.Yield
  }} else {{
    %amsg = prim.Constant "AssertionError: expected a vector" : !ts.str
    prim.RaiseException %amsg, %none : !ts.none
    prim.Yield
  }}
  %negative = aten.lt %n, %zero : (!ts.int, !ts.int) -> !ts.bool
  prim.If %negative {{
    %msg = prim.Constant "n must be non-negative" : !ts.str
    %cls = prim.Constant "builtins.ValueError" : !ts.str
    prim.RaiseException %msg, %cls : !ts.str
    prim.Yield
  }} else {{
    prim.Yield
  }}
  %k = func.call @check(%n) : (!ts.int) -> !ts.int
  %r = aten.mul %x, %k : ({F}, !ts.int) -> {F}
  func.return %r : {F}
}}"""


@pytest.mark.parametrize(
    ("x", "n", "kind", "message", "where"),
    [
        (tensor(1, 2), -1, "ValueError", "n must be non-negative", "test.mlir:32:5"),
        (np.ones((2, 2)), 1, "RuntimeError", "AssertionError: expected a vector", "test.mlir:25:5"),
        (tensor(1, 2), 101, "RuntimeError", "too large", "test.mlir:8:5"),
    ],
)
def test_exceptions_carry_class_message_and_location(x, n, kind, message, where):
    forward = compile_forward(RAISING)
    with pytest.raises(TorchScriptError) as info:
        forward(x, n)
    assert (info.value.kind, info.value.message, info.value.location) == (kind, message, where)


def test_no_exception_when_the_checks_pass():
    np.testing.assert_array_equal(compile_forward(RAISING)(tensor(1, 2), 3), tensor(3, 6))


def test_operator_errors_are_runtime_errors_at_the_node():
    forward = compile_forward(f"""
func.func @forward(%x : {F}, %y : {F}) -> {F} {{
  %one = prim.Constant 1 : !ts.int
  %s = aten.add %x, %y, %one : ({F}, {F}, !ts.int) -> {F}
  func.return %s : {F}
}}""")
    with pytest.raises(TorchScriptError) as info:
        forward(tensor(1, 2, 3), tensor(1, 2))
    assert info.value.kind == "RuntimeError" and info.value.location == "test.mlir:4:3"


def test_a_wrong_argument_count_is_an_error():
    with pytest.raises(TorchScriptError, match=r"forward\(\) expected 2 argument\(s\) but received 1"):
        compile_forward(RAISING)(tensor(1))


def test_an_operator_without_kernel_fails_at_compile_time(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delitem(kernels.KERNELS, "aten::tanh")
    with pytest.raises(TsjitError) as info:
        compile_forward(IF_GRAPH)
    assert str(info.value) == "test.mlir:8:7: no kernel for aten::tanh(Tensor self) -> Tensor"


def test_an_operator_outside_the_schema_table_has_no_kernel():
    with pytest.raises(TsjitError, match=r"test.mlir:3:3: no kernel for aten::frobnicate: the schema table"):
        compile_forward(f"""
func.func @forward(%x : {F}) -> {F} {{
  %y = aten.frobnicate %x : ({F}) -> {F}
  func.return %y : {F}
}}""")


# --------------------------------------------------------------------------------------
# Calls, objects, containers
# --------------------------------------------------------------------------------------


def test_func_call_and_recursion():
    """fib(n) = n if n < 2 else fib(n - 1) + fib(n - 2)."""
    fib = program("""
func.func @fib(%n : !ts.int) -> !ts.int {
  %one = prim.Constant 1 : !ts.int
  %two = prim.Constant 2 : !ts.int
  %small = aten.lt %n, %two : (!ts.int, !ts.int) -> !ts.bool
  %r = prim.If %small -> (!ts.int) {
    prim.Yield %n : !ts.int
  } else {
    %n1 = aten.sub %n, %one : (!ts.int, !ts.int) -> !ts.int
    %n2 = aten.sub %n, %two : (!ts.int, !ts.int) -> !ts.int
    %f1 = func.call @fib(%n1) : (!ts.int) -> !ts.int
    %f2 = func.call @fib(%n2) : (!ts.int) -> !ts.int
    %s = aten.add %f1, %f2 : (!ts.int, !ts.int) -> !ts.int
    prim.Yield %s : !ts.int
  }
  func.return %r : !ts.int
}""").function("fib")
    assert [fib(n) for n in range(10)] == [0, 1, 1, 2, 3, 5, 8, 13, 21, 34]


def test_calling_a_declared_function_fails_at_compile_time():
    with pytest.raises(TsjitError, match="^test.mlir:4:3: function 'helper' is only declared"):
        compile_forward(f"""
func.func private @helper({F}) -> {F}
func.func @forward(%x : {F}) -> {F} {{
  %y = func.call @helper(%x) : ({F}) -> {F}
  func.return %y : {F}
}}""")


COUNTER = '!ts.class<"__torch__.Counter">'
OBJECTS = f"""
func.func @"__torch__.Counter.bump"(%self : {COUNTER}, %by : !ts.int) -> !ts.int {{
  %n = prim.GetAttr[name = "n"] %self : {COUNTER} -> !ts.int
  %m = aten.add %n, %by : (!ts.int, !ts.int) -> !ts.int
  prim.SetAttr[name = "n"] %self, %m : {COUNTER}, !ts.int
  func.return %m : !ts.int
}}
func.func @"__torch__.Counter.__enter__"(%self : {COUNTER}) -> !ts.int {{
  %one = prim.Constant 1 : !ts.int
  %n = prim.CallMethod[name = "bump"] %self, %one : ({COUNTER}, !ts.int) -> !ts.int
  func.return %n : !ts.int
}}
func.func @"__torch__.Counter.__exit__"(%self : {COUNTER}, %a : !ts.any, %b : !ts.any, %c : !ts.any)
    -> !ts.none {{
  %ten = prim.Constant 10 : !ts.int
  %n = prim.CallMethod[name = "bump"] %self, %ten : ({COUNTER}, !ts.int) -> !ts.int
  %none = prim.Constant : !ts.none
  func.return %none : !ts.none
}}
func.func @forward(%start : !ts.int) -> (!ts.int, !ts.int) {{
  %c = prim.CreateObject : {COUNTER}
  prim.SetAttr[name = "n"] %c, %start : {COUNTER}, !ts.int
  %entered = prim.Enter %c : {COUNTER} -> !ts.int
  %exited = prim.Exit %c : {COUNTER} -> !ts.none
  %n = prim.GetAttr[name = "n"] %c : {COUNTER} -> !ts.int
  func.return %entered, %n : !ts.int, !ts.int
}}"""


def test_objects_methods_and_context_managers():
    """Enter calls `__enter__`, Exit calls `__exit__(None, None, None)`; both reach
    `bump` through prim.CallMethod and mutate the object through prim.SetAttr."""
    assert compile_forward(OBJECTS)(5) == (6, 16)


def test_builtin_context_managers_do_nothing():
    no_grad = '!ts.class<"__torch__.torch.autograd.grad_mode.no_grad">'
    forward = compile_forward(f"""
func.func @forward(%x : {F}) -> {F} {{
  %g = prim.CreateObject : {no_grad}
  %i = prim.CallMethod[name = "__init__"] %g : ({no_grad}) -> !ts.none
  %e = prim.Enter %g : {no_grad} -> !ts.none
  %y = aten.tanh %x : ({F}) -> {F}
  %z = prim.Exit %g : {no_grad} -> {F}
  func.return %y : {F}
}}""")
    assert forward(tensor(0))[0] == 0


def test_a_missing_method_is_a_compile_time_error():
    with pytest.raises(TsjitError, match="class __torch__.Counter has no method 'reset'"):
        compile_forward(f"""
func.func @forward(%c : {COUNTER}) -> !ts.none {{
  %r = prim.CallMethod[name = "reset"] %c : ({COUNTER}) -> !ts.none
  func.return %r : !ts.none
}}""")


MODEL = '!ts.class<"__torch__.Model">'
NN = "__torch__.torch.nn.modules"
LINEAR = f'!ts.class<"{NN}.linear.Linear">'
GRAD_MODES = ("__torch__.torch.autograd.grad_mode.no_grad", "__torch__.torch.autograd.grad_mode.enable_grad")


def test_module_graph_calls_builtin_linear_on_a_module_object():
    text = f"""
func.func @forward(%self : {MODEL}, %x : {F}) -> {F} {{
  %fc = prim.GetAttr[name = "fc"] %self : {MODEL} -> {LINEAR}
  %y = prim.CallMethod[name = "forward"] %fc, %x : ({LINEAR}, {F}) -> {F}
  %r = aten.relu %y : ({F}) -> {F}
  func.return %r : {F}
}}"""
    code = program(text)
    spec = {
        "type": "__torch__.Model",
        "parameters": {
            "fc.weight": {"tensor": {"dtype": "float32", "shape": [2, 2], "data": [1, 2, 3, 4]}},
            "fc.bias": {"tensor": {"dtype": "float32", "shape": [2], "data": [0.5, -100]}},
        },
    }
    model = module_object(spec, code.module)
    assert model.attributes["fc"].qualified_name == f"{NN}.linear.Linear"
    np.testing.assert_array_equal(code.function("forward")(model, tensor(1, 1)), tensor(3.5, 0))


def test_module_object_adds_unlisted_submodules_and_constant_defaults():
    flatten, relu = f'!ts.class<"{NN}.flatten.Flatten">', f'!ts.class<"{NN}.activation.ReLU">'
    code = program(f"""
func.func @forward(%self : {MODEL}, %x : {F}) -> ({F}, {F}) {{
  %flat = prim.GetAttr[name = "flat"] %self : {MODEL} -> {flatten}
  %all = prim.GetAttr[name = "all"] %self : {MODEL} -> {flatten}
  %act = prim.GetAttr[name = "act"] %self : {MODEL} -> {relu}
  %f = prim.CallMethod[name = "forward"] %flat, %x : ({flatten}, {F}) -> {F}
  %a = prim.CallMethod[name = "forward"] %all, %x : ({flatten}, {F}) -> {F}
  %r = prim.CallMethod[name = "forward"] %act, %f : ({relu}, {F}) -> {F}
  func.return %r, %a : {F}, {F}
}}""")
    model = module_object(
        {"type": "__torch__.Model", "attributes": {"all.start_dim": {"int": 0}}}, code.module
    )
    flat, everything = model.attributes["flat"].attributes, model.attributes["all"].attributes
    assert (flat["start_dim"], flat["end_dim"], everything["start_dim"]) == (1, -1, 0)
    x = array([-1, 2, -3, 4]).reshape(2, 1, 2)
    relu_of_rows, flattened = code.function("forward")(model, x)
    np.testing.assert_array_equal(relu_of_rows, array([[0, 2], [0, 4]]))
    np.testing.assert_array_equal(flattened, array([-1, 2, -3, 4]))


def test_parameters_module_json_omits_are_none():
    """PyTorch's `named_parameters()` skips a `bias=False` layer's bias."""
    text = f"""
func.func @forward(%self : {MODEL}, %x : {F}) -> {F} {{
  %fc = prim.GetAttr[name = "fc"] %self : {MODEL} -> {LINEAR}
  %y = prim.CallMethod[name = "forward"] %fc, %x : ({LINEAR}, {F}) -> {F}
  func.return %y : {F}
}}"""
    code = program(text)
    weight = {"tensor": {"dtype": "float32", "shape": [1, 2], "data": [1, 2]}}
    model = module_object({"type": "__torch__.Model", "parameters": {"fc.weight": weight}}, code.module)
    assert model.attributes["fc"].attributes["bias"] is None
    np.testing.assert_array_equal(code.function("forward")(model, tensor(1, 1)), tensor(3))


def array(data: list, dtype: str = "float32") -> np.ndarray:
    return np.array(data, dtype=dtype)


def grid(*shape: int) -> np.ndarray:
    return np.arange(np.prod(shape), dtype=np.float32).reshape(shape)


BUILTIN_CASES = {
    f"{NN}.linear.Linear": ({"weight": array([[1, 2], [3, 4]]), "bias": None}, array([1, 1]), array([3, 7])),
    f"{NN}.linear.Identity": ({}, array([1, 2]), array([1, 2])),
    f"{NN}.activation.ReLU": ({}, array([-1, 2]), array([0, 2])),
    f"{NN}.activation.LeakyReLU": ({}, array([-1, 2]), array([-0.01, 2])),
    f"{NN}.activation.ELU": ({"alpha": 2.0}, array([-1, 2]), array([2 * np.expm1(-1), 2])),
    f"{NN}.activation.SiLU": ({}, array([0, 1]), array([0, 1 / (1 + np.exp(-1))])),
    f"{NN}.activation.Tanh": ({}, array([0]), array([0])),
    f"{NN}.activation.Sigmoid": ({}, array([0]), array([0.5])),
    f"{NN}.activation.GELU": ({}, array([0, 10]), array([0, 10])),
    f"{NN}.activation.Softmax": ({"dim": 0}, array([0, 0]), array([0.5, 0.5])),
    f"{NN}.activation.LogSoftmax": ({"dim": 0}, array([0, 0]), np.log(array([0.5, 0.5]))),
    f"{NN}.dropout.Dropout": ({"training": False}, array([1, 2]), array([1, 2])),
    f"{NN}.flatten.Flatten": ({}, np.ones((2, 2, 2)), np.ones((2, 4))),
    f"{NN}.normalization.LayerNorm": (
        {"normalized_shape": [2], "weight": array([1, 1]), "bias": None, "eps": 0.0}, array([1, 3]), array([-1, 1])
    ),
    f"{NN}.sparse.Embedding": (
        {"weight": array([[1, 2], [3, 4], [5, 6]])}, array([2, 0], "int64"), array([[5, 6], [1, 2]])
    ),
    f"{NN}.conv.Conv1d": ({"weight": np.ones((1, 1, 2), np.float32), "bias": None}, grid(1, 1, 4), array([[[1, 3, 5]]])),
    f"{NN}.conv.Conv2d": (
        {"weight": np.ones((1, 1, 2, 2), np.float32), "bias": array([1])}, grid(1, 1, 3, 3), array([[[[9, 13], [21, 25]]]])
    ),
    f"{NN}.pooling.MaxPool2d": ({"kernel_size": [2, 2], "stride": [2, 2]}, grid(1, 1, 4, 4), array([[[[5, 7], [13, 15]]]])),
    f"{NN}.pooling.AvgPool2d": (
        {"kernel_size": [2, 2], "stride": [2, 2]}, grid(1, 1, 4, 4), array([[[[2.5, 4.5], [10.5, 12.5]]]])
    ),
    f"{NN}.pooling.AdaptiveAvgPool2d": ({"output_size": [1, 1]}, grid(1, 1, 4, 4), array([[[[7.5]]]])),
    f"{NN}.batchnorm.BatchNorm2d": (
        {"weight": array([2]), "bias": array([0.5]), "running_mean": array([1]), "running_var": array([4]),
         "training": False, "eps": 0.0},
        array([[[[3, 5]]]]),
        array([[[[2.5, 4.5]]]]),
    ),
    f"{NN}.batchnorm.BatchNorm1d": (  # without running statistics: normalized by the batch's, even when evaluating
        {"weight": None, "bias": None, "running_mean": None, "running_var": None, "training": False, "eps": 1e-12},
        array([[1], [3]]),
        array([[-1], [1]]),
    ),
}  # fmt: skip
"""Layer: (attributes besides the defaults of its constants, input, output)."""


@pytest.mark.parametrize("class_name", sorted(BUILTIN_CASES))
def test_builtin_module_methods(class_name: str):
    attributes, x, expected = BUILTIN_CASES[class_name]
    forward = builtin_method(class_name, "forward")
    assert forward is not None
    obj = module_object({"type": class_name})
    obj.attributes.update(attributes)
    result = forward(obj, x)
    np.testing.assert_allclose(result, expected, rtol=1e-6)


def test_the_cases_name_library_classes():
    """Every class view compiles (test_library_methods); these run a few on known values."""
    classes = {name for name, cls in library_classes().items() if cls.__name__ not in CONTAINERS}
    assert {*BUILTIN_CASES, *GRAD_MODES} <= classes


def test_builtin_methods_are_compiled_once_and_shared_by_mangled_names():
    forward = builtin_method(f"{NN}.linear.Linear", "forward")
    assert builtin_method(f"{NN}.linear.Linear", "forward") is forward
    assert builtin_method(f"{NN}.linear.___torch_mangle_3.Linear", "forward") is forward


def test_classes_and_methods_the_library_lacks_have_no_builtin_method():
    assert builtin_method("__torch__.Model", "forward") is None
    assert builtin_method(f"{NN}.activation.ReLU", "backward") is None
    assert builtin_method(f"{NN}.container.Sequential", "forward") is None  # its code depends on its items


def test_a_missing_constant_without_default_is_a_run_time_error():
    forward = builtin_method(f"{NN}.pooling.MaxPool2d", "forward")
    assert forward is not None
    with pytest.raises(TorchScriptError, match="has no attribute 'kernel_size'"):
        forward(module_object({"type": f"{NN}.pooling.MaxPool2d"}), grid(1, 1, 2, 2))


def test_the_runtime_imports_the_frontend_only_to_compile_a_builtin_method():
    frontend = "sorted(name for name in sys.modules if name.startswith('tsjit.frontend'))"
    script = (
        "import sys, tsjit.runtime.executor, tsjit.runtime.modules as modules\n"
        f"print({frontend})\n"
        "modules.builtin_method('__torch__.source.Model', 'forward')\n"
        f"print({frontend})\n"
    )
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert run.stdout.splitlines() == ["[]", "[]"]


@pytest.mark.parametrize("class_name", GRAD_MODES)
def test_grad_mode_objects_initialize_enter_and_exit(class_name: str):
    obj = ScriptObject(class_name)
    methods = {name: builtin_method(class_name, name) for name in ("__init__", "__enter__", "__exit__")}
    assert all(code is not None for code in methods.values())
    assert methods["__init__"](obj) is None and obj.attributes == {"prev": False}
    assert methods["__enter__"](obj) is None
    assert methods["__exit__"](obj, None, None, None) is None


def test_containers_tuples_lists_dicts():
    forward = compile_forward("""
func.func @forward(%x : !ts.int, %y : !ts.str)
    -> (!ts.int, !ts.str, !ts.dict<!ts.str, !ts.int>, !ts.tuple<!ts.str>) {
  %t = prim.TupleConstruct %x, %y : (!ts.int, !ts.str) -> !ts.tuple<!ts.int, !ts.str>
  %a, %b = prim.TupleUnpack %t : !ts.tuple<!ts.int, !ts.str> -> !ts.int, !ts.str
  %one = prim.Constant 1 : !ts.int
  %s = prim.TupleIndex %t[%one] : !ts.tuple<!ts.int, !ts.str> -> !ts.str
  %l = prim.ListConstruct %a, %a : (!ts.int, !ts.int) -> !ts.list<!ts.int>
  %p, %q = prim.ListUnpack %l : !ts.list<!ts.int> -> !ts.int, !ts.int
  %d = prim.DictConstruct %s, %p : (!ts.str, !ts.int) -> !ts.dict<!ts.str, !ts.int>
  %tail = prim.TupleSlice[begin = 1, end = 2] %t : !ts.tuple<!ts.int, !ts.str> -> !ts.tuple<!ts.str>
  func.return %q, %b, %d, %tail : !ts.int, !ts.str, !ts.dict<!ts.str, !ts.int>, !ts.tuple<!ts.str>
}""")
    assert forward(7, "k") == (7, "k", {"k": 7}, ("k",))


def test_named_tuples_and_list_unpack_length():
    point = '!ts.tuple<"__torch__.Point", "x": !ts.int, "y": !ts.int>'
    forward = compile_forward(f"""
func.func @forward(%l : !ts.list<!ts.int>) -> {point} {{
  %a, %b = prim.ListUnpack %l : !ts.list<!ts.int> -> !ts.int, !ts.int
  %p = prim.TupleConstruct %a, %b : (!ts.int, !ts.int) -> {point}
  func.return %p : {point}
}}""")
    p = forward([1, 2])
    assert isinstance(p, NamedTupleValue) and p.fields == ("x", "y") and tuple(p) == (1, 2)
    with pytest.raises(TorchScriptError, match="Expected 2 elements in a list but found 3"):
        forward([1, 2, 3])


def test_unchecked_cast_and_uninitialized():
    forward = compile_forward(f"""
func.func @forward(%x : !ts.optional<{F}>) -> ({F}, !ts.int) {{
  %y = prim.unchecked_cast %x : !ts.optional<{F}> -> {F}
  %u = prim.Uninitialized : !ts.int
  func.return %y, %u : {F}, !ts.int
}}""")
    x = tensor(1)
    y, u = forward(x)
    assert y is x and u is None


def test_fusion_group_runs_its_subgraph():
    forward = compile_forward(f"""
func.func @forward(%x : {F}, %y : {F}) -> {F} {{
  %r = prim.FusionGroup(%a = %x : {F}, %b = %y : {F}) -> ({F}) {{
    %m = aten.mul %a, %b : ({F}, {F}) -> {F}
    %t = aten.tanh %m : ({F}) -> {F}
    prim.Yield %t : {F}
  }}
  func.return %r : {F}
}}""")
    assert forward(tensor(0), tensor(5))[0] == 0


def test_fork_runs_in_another_thread_and_wait_returns_its_value(monkeypatch: pytest.MonkeyPatch):
    threads: list[int] = []
    forked_ran = threading.Event()

    def sigmoid_recording_thread(x: Any) -> Any:
        threads.append(threading.get_ident())
        forked_ran.set()
        return 1 / (1 + np.exp(-x))

    def add_waiting_for_the_fork(a: Any, b: Any, alpha: Any) -> Any:
        forked_ran.wait(10)  # the caller is busy while the forked call runs elsewhere
        return a + alpha * b

    monkeypatch.setitem(kernels.KERNELS, "aten::sigmoid", sigmoid_recording_thread)
    monkeypatch.setitem(kernels.KERNELS, "aten::add.Tensor", add_waiting_for_the_fork)
    forward = compile_forward(f"""
func.func @helper(%x : {F}, %k : !ts.int) -> {F} {{
  %s = aten.sigmoid %x : ({F}) -> {F}
  %r = aten.mul %s, %k : ({F}, !ts.int) -> {F}
  func.return %r : {F}
}}
func.func @forward(%x : {F}) -> {F} {{
  %two = prim.Constant 2 : !ts.int
  %one = prim.Constant 1 : !ts.int
  %fut = prim.fork(%a = %x : {F}, %k = %two : !ts.int) -> (!ts.future<{F}>) {{
    %h = func.call @helper(%a, %k) : ({F}, !ts.int) -> {F}
    prim.Yield %h : {F}
  }}
  %y = aten.add %x, %x, %one : ({F}, {F}, !ts.int) -> {F}
  %w = aten.wait %fut : (!ts.future<{F}>) -> {F}
  %r = aten.add %w, %y, %one : ({F}, {F}, !ts.int) -> {F}
  func.return %r : {F}
}}""")
    assert forward(tensor(0))[0] == 1
    assert threads and threads[0] != threading.get_ident()


def test_an_exception_in_a_forked_call_surfaces_at_wait():
    forward = compile_forward(f"""
func.func @fail(%x : {F}) -> {F} {{
  %msg = prim.Constant "bad input" : !ts.str
  %cls = prim.Constant "builtins.ValueError" : !ts.str
  prim.RaiseException %msg, %cls : !ts.str
  func.return %x : {F}
}}
func.func @forward(%x : {F}) -> {F} {{
  %fut = prim.fork(%a = %x : {F}) -> (!ts.future<{F}>) {{
    %h = func.call @fail(%a) : ({F}) -> {F}
    prim.Yield %h : {F}
  }}
  %w = aten.wait %fut : (!ts.future<{F}>) -> {F}
  func.return %w : {F}
}}""")
    with pytest.raises(TorchScriptError) as info:
        forward(tensor(1))
    error = info.value
    assert (error.kind, error.message, error.location) == ("ValueError", "bad input", "test.mlir:5:3")


def test_module_object_from_dotted_names():
    obj = module_object(
        {
            "type": "__torch__.M",
            "parameters": {"a.b.w": {"tensor": {"dtype": "float32", "shape": [1], "data": [2.0]}}},
            "attributes": {"scale": {"float": 0.5}, "a.k": {"int": 3}},
        }
    )
    assert isinstance(obj, ScriptObject) and obj.attributes["scale"] == 0.5
    a = obj.attributes["a"]
    assert a.attributes["k"] == 3 and a.attributes["b"].attributes["w"][0] == 2.0


def test_print_formats_its_values(capsys: pytest.CaptureFixture[str]):
    compile_forward("""
func.func @forward(%n : !ts.int, %f : !ts.float) -> !ts.none {
  %s = prim.Constant "values:" : !ts.str
  prim.Print(%s, %n, %f) : !ts.str, !ts.int, !ts.float
  %none = prim.Constant : !ts.none
  func.return %none : !ts.none
}""")(3, 0.5)
    assert capsys.readouterr().out == "values: 3 0.5\n"


def test_with_runs_its_body_then_its_exit_region():
    forward = compile_forward(f"""
{OBJECTS.split("func.func @forward")[0]}
func.func @forward(%start : !ts.int) -> (!ts.int, !ts.int) {{
  %c = prim.CreateObject : {COUNTER}
  prim.SetAttr[name = "n"] %c, %start : {COUNTER}, !ts.int
  %entered = prim.With %c : {COUNTER} -> (!ts.int) {{
    %e = prim.Enter %c : {COUNTER} -> !ts.int
    prim.Yield %e : !ts.int
  }} exit {{
    %x = prim.Exit %c : {COUNTER} -> !ts.none
    prim.Yield
  }}
  %n = prim.GetAttr[name = "n"] %c : {COUNTER} -> !ts.int
  func.return %entered, %n : !ts.int, !ts.int
}}""")
    assert forward(0) == (1, 11)
