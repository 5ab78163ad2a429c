"""Exits inside `with` blocks against eager Python: break, continue, return and raise
inside a `with` in a loop, a loop in a `with`, and nested `with`s.

PyTorch's own exit transform fails on these programs (an internal assert), so eager
Python is the reference. The scripted function uses `torch.no_grad()`; to observe when
`__enter__` and `__exit__` run, its class is renamed in the compiled module to a
recorder whose methods print "enter" and "exit", and eager Python runs the same source
with a Python recorder in place of `torch.no_grad`. The printed traces (the bodies print
too), the results and the exceptions must be the same on both backends.
"""

from __future__ import annotations

import functools
import re
import textwrap
import types
from typing import Any

import numpy as np
import pytest

import tsjit
from tsjit.context import make_context
from tsjit.formats.mlir import verify
from tsjit.frontend.script import script_file_text
from tsjit.frontend.torch_shim._tensor import Tensor
from tsjit.runtime.errors import TorchScriptError

NO_GRAD = "__torch__.torch.autograd.grad_mode.no_grad"
RECORDER = "__torch__.Recorder"
RECORDER_TYPE = f'!ts.class<"{RECORDER}">'
RECORDER_METHODS = f"""
func.func @"{RECORDER}.__enter__"(%self : {RECORDER_TYPE}) -> !ts.none {{
  %s = prim.Constant "enter" : !ts.str
  prim.Print(%s) : !ts.str
  %none = prim.Constant : !ts.none
  func.return %none : !ts.none
}}
func.func @"{RECORDER}.__exit__"(%self : {RECORDER_TYPE}, %a : !ts.any, %b : !ts.any, %c : !ts.any) -> !ts.none {{
  %s = prim.Constant "exit" : !ts.str
  prim.Print(%s) : !ts.str
  %none = prim.Constant : !ts.none
  func.return %none : !ts.none
}}
"""


class Recorder:
    """The eager counterpart of the recorder class."""

    def __enter__(self) -> None:
        print("enter")

    def __exit__(self, *exception: Any) -> None:
        print("exit")


WITH_IN_LOOP = """
def forward(x: torch.Tensor, n: int) -> torch.Tensor:
    for i in range(n):
        with torch.no_grad():
            print(i)
            if i % 3 == 1:
                EXIT
            x = x + i
        x = x * 2
    return x - 1
"""

LOOP_IN_WITH = """
def forward(x: torch.Tensor, n: int) -> torch.Tensor:
    with torch.no_grad():
        print(-1)
        for i in range(n):
            if i % 3 == 1:
                EXIT
            print(i)
            x = x + i
        x = x * 2
    return x - 1
"""

NESTED_WITH = """
def forward(x: torch.Tensor, n: int) -> torch.Tensor:
    for i in range(n):
        with torch.no_grad():
            x = x + 1
            with torch.no_grad():
                print(i)
                if i % 3 == 1:
                    EXIT
                x = x * 2
            x = x - 3
        print(-i)
    return x
"""

LOOP_IN_NESTED_WITH = """
def forward(x: torch.Tensor, n: int) -> torch.Tensor:
    with torch.no_grad():
        with torch.no_grad():
            for i in range(n):
                if i == 2:
                    EXIT
                print(i)
                x = x + i
            x = x * 2
        x = x - 1
    return x + 1
"""

WHILE_WITH = """
def forward(x: torch.Tensor, n: int) -> torch.Tensor:
    i = 0
    while i < n:
        i += 1
        with torch.no_grad():
            if i == 3:
                EXIT
            x = x + i
            print(i)
    return x
"""

ISSUE_EXAMPLE = """
def forward(x: torch.Tensor, n: int) -> torch.Tensor:
    for i in range(n):
        with torch.no_grad():
            if i % 2 == 0:
                continue
            x = x + 1
            if i > 5:
                return x
    return x * 2
"""

RETURN_IN_WITH = """
def forward(x: torch.Tensor, n: int) -> torch.Tensor:
    with torch.no_grad():
        y = x + n
        if n > 2:
            with torch.no_grad():
                return y * 2
        print(n)
    return y
"""

LOOP_FREE = """
def forward(x: torch.Tensor, n: int) -> torch.Tensor:
    with torch.no_grad():
        print(n)
        with torch.no_grad():
            if n > 2:
                EXIT
            x = x + 1
        x = x * 2
    return x
"""

EXITS = {
    "break": "break",
    "continue": "continue",
    "return": "return x * 10",
    "raise": 'raise ValueError("stop")',
}
TEMPLATES = {
    "with_in_loop": WITH_IN_LOOP,
    "loop_in_with": LOOP_IN_WITH,
    "nested_with": NESTED_WITH,
    "loop_in_nested_with": LOOP_IN_NESTED_WITH,
    "while_with": WHILE_WITH,
}
CASES = [
    pytest.param(template.replace("EXIT", statement), id=f"{shape}-{exit}")
    for shape, template in TEMPLATES.items()
    for exit, statement in EXITS.items()
] + [
    pytest.param(ISSUE_EXAMPLE, id="issue_example"),
    pytest.param(RETURN_IN_WITH, id="return_in_with"),
    pytest.param(LOOP_FREE.replace("EXIT", EXITS["return"]), id="loop_free-return"),
    pytest.param(LOOP_FREE.replace("EXIT", EXITS["raise"]), id="loop_free-raise"),
]
BACKENDS = [("interp", "argspec"), ("llvm", "argspec")]
"""The interpreter runs the graph as the frontend made it, the llvm backend optimized."""
LOOP_FREE_BACKENDS = [("llvm", "profiling")]
SIZES = (0, 1, 2, 3, 5, 8)


def eager(source: str, x: np.ndarray, n: int) -> Any:
    torch = types.SimpleNamespace(Tensor=Tensor, no_grad=Recorder)
    namespace: dict[str, Any] = {"torch": torch}
    exec(compile(textwrap.dedent(source), "<eager>", "exec"), namespace)  # noqa: S102 -- the test's own program
    try:
        return np.asarray(namespace["forward"](Tensor(x), n))
    except ValueError as error:
        return ("ValueError", str(error))


@functools.cache
def recorded_text(source: str) -> str:
    """The scripted module's text with `torch.no_grad` replaced by the recorder class
    (whose `__enter__` and `__exit__` replace those the module holds)."""
    scripted = script_file_text("import torch\n" + textwrap.dedent(source), "with_exits.py")
    text = str(scripted.module).replace(NO_GRAD, RECORDER)
    kept = re.sub(rf'\n  func\.func @"?{re.escape(RECORDER)}\.__(enter|exit)__.*?\n  }}', "", text, flags=re.S)
    assert kept.rstrip().endswith("}")
    return kept.rstrip()[:-1] + RECORDER_METHODS + "}\n"


def recorded_module(source: str):
    from tsjit.formats import read_program

    module = read_program(make_context(), recorded_text(source), "with_exits.mlir")
    verify(module)
    return module


def compiled_run(run: Any, x: np.ndarray, n: int) -> Any:
    try:
        return run(x, n)
    except TorchScriptError as error:
        return (error.kind, error.message)


@pytest.fixture(autouse=True)
def _shim():
    tsjit.install_torch_shim()


@pytest.mark.parametrize(
    ("source", "backend", "executor"),
    [
        pytest.param(case.values[0], backend, executor, id=f"{case.id}-{backend}-{executor}")
        for case in CASES
        for backend, executor in BACKENDS + (LOOP_FREE_BACKENDS if "loop_free" in str(case.id) else [])
    ],
)
def test_exits_in_with_blocks_run_as_eager_python(
    source: str, backend: str, executor: str, capsys: pytest.CaptureFixture[str]
):
    """The profiling executor's optimized loop-free code runs as one generated function
    (`straight_line`), whose `with` bodies are `try` blocks."""
    module = recorded_module(source)
    pipeline = () if backend == "interp" else None
    run = tsjit.compile(module, "forward", backend=backend, executor=executor, pipeline=pipeline)
    for n in SIZES:
        x = np.arange(3, dtype=np.float32)
        expected = eager(source, x, n)
        expected_trace = capsys.readouterr().out
        got = compiled_run(run, x.copy(), n)
        trace = capsys.readouterr().out
        assert trace == expected_trace, f"n={n}"
        if isinstance(expected, tuple):
            assert got == expected, f"n={n}"
        else:
            assert isinstance(got, np.ndarray) and np.array_equal(got, expected), f"n={n}: {got} != {expected}"


@pytest.mark.parametrize("source", [ISSUE_EXAMPLE, NESTED_WITH.replace("EXIT", "continue")])
def test_scripted_no_grad_programs_run_through_the_profiling_executor(source: str):
    """The same programs as users script them (no recorder), through the profiling
    executor that scripted functions use, including its optimized second call."""
    scripted = script_file_text("import torch\n" + textwrap.dedent(source), "with_exits.py")
    for n in (0, 1, 4, 9, 9, 9):
        x = np.arange(3, dtype=np.float32)
        torch = types.SimpleNamespace(Tensor=Tensor, no_grad=tsjit.frontend.library.grad_mode.no_grad)
        namespace: dict[str, Any] = {"torch": torch, "print": lambda *a: None}
        exec(compile(textwrap.dedent(source), "<eager>", "exec"), namespace)  # noqa: S102
        assert np.array_equal(scripted(x.copy(), n), np.asarray(namespace["forward"](Tensor(x), n)))


def test_exits_leave_enter_and_exit_in_one_block():
    """After the transform every prim.Enter is followed, in its own block, by the
    prim.Exit of its context: every path through the body reaches `__exit__`."""
    from tsjit.dialects import prim

    module = recorded_module(NESTED_WITH.replace("EXIT", "return x"))
    enters = [op for op in module.walk() if isinstance(op, prim.EnterOp)]
    assert len(enters) == 2
    for enter in enters:
        following = []
        op = enter.next_op
        while op is not None:
            following.append(op)
            op = op.next_op
        assert any(isinstance(o, prim.ExitOp) and o.operands[0] is enter.operands[0] for o in following)
