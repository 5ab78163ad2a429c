"""Arguments are checked against the entry graph's signature before anything runs, at
every entry point (scripted callables, `tsjit.compile` on both executors and backends,
`ts-run`), with PyTorch's wording and PyTorch's conversions."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import tsjit
from tsjit.frontend.script import script_file_text
from tsjit.runtime.errors import TorchScriptError
from tsjit.tools import ts_run

SOURCE = """
import torch
from typing import Dict, List, Optional, Tuple


def forward(x: torch.Tensor, n: int, sizes: List[int], scale: float, limit: Optional[int],
            pair: Tuple[int, float], flag: bool, names: Dict[str, int]) -> torch.Tensor:
    return x * scale + n + sum(sizes) + pair[0] + len(names)
"""
GOOD = (np.ones(2, np.float32), 1, [1, 2], 1.0, None, (1, 2.0), True, {"a": 1})
DECLARATION = (
    "forward(Tensor x, int n, List[int] sizes, float scale, Optional[int] limit, "
    "Tuple[int, float] pair, bool flag, Dict[str, int] names) -> Tensor"
)


def expected(type_name: str, name: str, found: str, detail: str = "") -> str:
    text = f"forward() Expected a value of type '{type_name}' for argument '{name}' but instead found type '{found}'"
    return f"{text} ({detail})." if detail else f"{text}."


REJECTED = [
    pytest.param(0, 1, expected("Tensor", "x", "int"), id="int-for-tensor"),
    pytest.param(0, [1.0], expected("Tensor", "x", "list"), id="list-for-tensor"),
    pytest.param(
        0,
        np.ones(2, np.uint32),
        expected("Tensor", "x", "ndarray", "of dtype uint32, which no TorchScript dtype names"),
        id="uint32-array",
    ),
    pytest.param(1, 2.5, expected("int", "n", "float"), id="float-for-int"),
    pytest.param(
        1, 2**70, expected("int", "n", "int", "1180591620717411303424 is out of the range of a 64-bit int"), id="int-2**70"
    ),
    pytest.param(1, -(2**63) - 1, expected("int", "n", "int", f"{-(2**63) - 1} is out of the range of a 64-bit int"), id="int-below-int64"),
    pytest.param(1, None, expected("int", "n", "NoneType"), id="none-for-int"),
    pytest.param(1, "3", expected("int", "n", "str"), id="str-for-int"),
    pytest.param(2, [1.5], expected("List[int]", "sizes", "list"), id="float-in-list-of-int"),
    pytest.param(2, None, expected("List[int]", "sizes", "NoneType"), id="none-for-list"),
    pytest.param(3, None, expected("float", "scale", "NoneType"), id="none-for-float"),
    pytest.param(4, 2.5, expected("Optional[int]", "limit", "float"), id="float-for-optional-int"),
    pytest.param(5, (1.0, 2), expected("Tuple[int, float]", "pair", "tuple"), id="float-in-tuple"),
    pytest.param(5, (1,), expected("Tuple[int, float]", "pair", "tuple"), id="short-tuple"),
    pytest.param(6, "yes", expected("bool", "flag", "str"), id="str-for-bool"),
    pytest.param(7, {1: 1}, expected("Dict[str, int]", "names", "dict"), id="int-key"),
    pytest.param(7, {"a": 1.5}, expected("Dict[str, int]", "names", "dict"), id="float-value"),
]

ACCEPTED = [
    pytest.param(0, np.ones(2, np.float16), id="float16-tensor"),
    pytest.param(0, np.ones((2, 2), np.float64)[:, 0], id="non-contiguous-tensor"),
    pytest.param(1, True, id="bool-for-int"),
    pytest.param(1, np.int64(3), id="numpy-int"),
    pytest.param(1, 2**63 - 1, id="int64-max"),
    pytest.param(2, (1, 2), id="tuple-for-list"),
    pytest.param(3, 2, id="int-for-float"),
    pytest.param(3, np.float32(0.5), id="numpy-float"),
    pytest.param(4, 7, id="optional-int"),
    pytest.param(5, [1, 2], id="list-for-tuple"),
    pytest.param(6, 0, id="int-for-bool"),
]

ENTRY_POINTS = ["scripted", "compile-interp", "compile-llvm", "compile-profiling"]


@pytest.fixture(scope="module")
def scripted():
    return script_file_text(SOURCE, "arguments.py")


_CALLABLES: dict[str, Any] = {}


def callable_for(scripted: Any, entry_point: str) -> Any:
    """One per entry point for the whole module (their specializations are shared)."""
    if entry_point not in _CALLABLES:
        _CALLABLES[entry_point] = _make_callable(scripted, entry_point)
    return _CALLABLES[entry_point]


def _make_callable(scripted: Any, entry_point: str) -> Any:
    if entry_point == "scripted":
        return scripted
    if entry_point == "compile-profiling":
        return tsjit.compile(scripted.module, "forward", backend="llvm", executor="profiling")
    return tsjit.compile(scripted.module, "forward", backend=entry_point.split("-")[1])


def with_argument(index: int, value: Any) -> list[Any]:
    args = list(GOOD)
    args[index] = value
    return args


@pytest.mark.parametrize("entry_point", ENTRY_POINTS)
@pytest.mark.parametrize(("index", "value", "message"), REJECTED)
def test_bad_arguments_are_rejected_before_running(scripted: Any, entry_point: str, index: int, value: Any, message: str):
    run = callable_for(scripted, entry_point)
    for _ in range(3):  # the profiling executor's first, profiled and optimized calls
        run(*GOOD)
        with pytest.raises(TorchScriptError, match="^") as caught:
            run(*with_argument(index, value))
        assert caught.value.kind == "RuntimeError"
        assert caught.value.message == message


@pytest.mark.parametrize("entry_point", ENTRY_POINTS)
@pytest.mark.parametrize(("index", "value"), ACCEPTED)
def test_what_pytorch_converts_is_accepted(scripted: Any, entry_point: str, index: int, value: Any):
    run = callable_for(scripted, entry_point)
    args = with_argument(index, value)
    reference = callable_for(scripted, "compile-interp")
    converted = list(GOOD)
    converted[index] = _converted(index, value)
    for _ in range(3):
        np.testing.assert_allclose(run(*args), reference(*converted), rtol=1e-3)


def _converted(index: int, value: Any) -> Any:
    """The value the check passes on (PyTorch's conversion)."""
    if index == 0:
        return value
    if index in (1, 4):
        return int(value)
    if index == 2:
        return list(value)
    if index == 3:
        return float(value)
    if index == 5:
        return tuple(value)
    return bool(value)


def test_conversions_reach_the_graph_as_their_types():
    """A bool passed for an int is the int 1 inside (str() shows it), an int passed for a
    float is a float (which TorchScript's str() writes `2.`)."""
    fn = script_file_text("def forward(n: int, f: float) -> str:\n    return str(n) + ' ' + str(f)\n", "c.py")
    assert fn(True, 2) == "1 2."


def test_argument_counts_use_pytorchs_wording(scripted: Any):
    with pytest.raises(TorchScriptError) as caught:
        scripted(*GOOD[:1])
    assert caught.value.message == f"forward() is missing value for argument 'n'. Declaration: {DECLARATION}"
    with pytest.raises(TorchScriptError) as caught:
        scripted(*GOOD, 3)
    assert caught.value.message == (
        f"forward() expected at most 8 argument(s) but received 9 argument(s). Declaration: {DECLARATION}"
    )


def test_ts_run_errors_point_at_the_signature(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    graph = tmp_path / "graph.txt"
    graph.write_text("graph(%x.1 : Tensor, %n : int):\n  return (%x.1)\n")
    inputs = tmp_path / "inputs.json"
    for bad, message in [
        ([{"int": 1}, {"int": 3}], "forward() Expected a value of type 'Tensor' for argument 'x' but instead found type 'int'."),
        (
            [{"tensor": {"dtype": "float32", "shape": [1], "data": [1]}}, {"int": 2**70}],
            "forward() Expected a value of type 'int' for argument 'n' but instead found type 'int' "
            "(1180591620717411303424 is out of the range of a 64-bit int).",
        ),
        (
            [{"tensor": {"dtype": "float32", "shape": [1], "data": [1]}}, {"float": 2.5}],
            "forward() Expected a value of type 'int' for argument 'n' but instead found type 'float'.",
        ),
    ]:
        inputs.write_text(json.dumps({"inputs": bad}))
        with pytest.raises(SystemExit) as exited:
            ts_run.main([str(graph), "--inputs", str(inputs)])
        assert exited.value.code == 1
        first = capsys.readouterr().err.splitlines()[0]
        assert first == f"{graph}:1:1: error: RuntimeError: {message}"


def test_the_fast_check_is_inlined_in_the_profiling_executors_plan():
    fn = tsjit.compile(script_file_text("def forward(a, b):\n    return a * b\n", "k.py").module, "forward",
                       backend="interp", executor="profiling")  # fmt: skip
    x = np.ones(3, np.float32)
    for _ in range(3):
        fn(x, x)
    assert fn._plan.checks_arguments  # pyright: ignore[reportAttributeAccessIssue]
    with pytest.raises(TorchScriptError, match="found type 'int'"):
        fn(x, 1)


@pytest.mark.interop
@pytest.mark.parametrize(("index", "value", "message"), [p for p in REJECTED if "uint32" not in str(p.id)])
def test_pytorch_rejects_the_same_arguments_in_the_same_words(
    index: int, value: Any, message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    torch = pytest.importorskip("torch")
    (tmp_path / "argument_program.py").write_text(SOURCE)  # TorchScript reads the source file
    monkeypatch.syspath_prepend(str(tmp_path))
    import argument_program  # pyright: ignore[reportMissingImports]

    fn = torch.jit.script(argument_program.forward)
    args = [torch.from_numpy(a) if isinstance(a, np.ndarray) else a for a in with_argument(index, value)]
    with pytest.raises(RuntimeError) as caught:
        fn(*args)
    first = str(caught.value).splitlines()[0]
    assert first == message.split(" (")[0].rstrip(".") + "."


@pytest.mark.parametrize(
    ("io", "message"),
    [
        ("3", 'an io.json is an object whose "runs" is a JSON array'),
        ('{"runs": [3]}', 'run 0 is not an object with an "inputs" array'),
        ('{"runs": [{"inputs": []}]}', 'run 0 has neither "outputs" nor "raises"'),
        ('{"runs": [{"inputs": [], "outputs": {"int": 1}}], "rtol": "x"}', '"rtol" is a non-negative JSON number'),
        ('{"runs": [{"inputs": [{"int": "x"}], "outputs": {"int": 1}}]}', "input 0: 'int' expects a JSON int, got 'x'"),
    ],
)
def test_ts_run_checks_io_files(io: str, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    graph = tmp_path / "graph.txt"
    graph.write_text("graph(%n : int):\n  return (%n)\n")
    check = tmp_path / "io.json"
    check.write_text(io)
    with pytest.raises(SystemExit):
        ts_run.main([str(graph), "--check", str(check)])
    assert capsys.readouterr().err.splitlines()[0] == f"{check}: error: {message}"
