"""ts-run: plain runs, `--check` against recorded runs, modules, errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tsjit.runtime import executor
from tsjit.tools.ts_run import main

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "conformance"

F = "!ts.tensor"
GRAPH = f"""func.func @forward(%x : {F}, %n : !ts.int) -> {F} {{
  %zero = prim.Constant 0 : !ts.int
  %negative = aten.lt %n, %zero : (!ts.int, !ts.int) -> !ts.bool
  prim.If %negative {{
    %msg = prim.Constant "n must be non-negative" : !ts.str
    %cls = prim.Constant "builtins.ValueError" : !ts.str
    prim.RaiseException %msg, %cls : !ts.str
    prim.Yield
  }} else {{
    prim.Yield
  }}
  %r = aten.mul %x, %n : ({F}, !ts.int) -> {F}
  func.return %r : {F}
}}
"""


def tensor(*data: float) -> dict:
    return {"tensor": {"dtype": "float32", "shape": [len(data)], "data": list(data)}}


def run_tool(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        main(args)
        status = 0
    except SystemExit as exit:
        status = int(exit.code or 0)
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture
def graph(tmp_path: Path) -> Path:
    path = tmp_path / "scale.mlir"
    path.write_text(GRAPH)
    return path


def write_json(path: Path, data: object) -> str:
    path.write_text(json.dumps(data))
    return str(path)


def test_plain_run_prints_the_encoded_result(graph: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    inputs = write_json(tmp_path / "in.json", [tensor(1, 2), {"int": 3}])
    status, out, _ = run_tool([str(graph), "--inputs", inputs], capsys)
    assert status == 0
    assert json.loads(out) == tensor(3, 6)


def test_an_exception_is_one_located_error_line(graph: Path, tmp_path: Path, capsys):
    inputs = write_json(tmp_path / "in.json", {"inputs": [tensor(1), {"int": -1}]})
    status, out, err = run_tool([str(graph), "--inputs", inputs], capsys)
    assert status == 1 and out == ""
    assert err.splitlines()[0] == f"{graph}:7:5: error: ValueError: n must be non-negative"


def test_check_reports_each_run_and_a_summary(graph: Path, tmp_path: Path, capsys):
    io = {
        "entry": "forward",
        "rtol": 1e-5,
        "atol": 1e-6,
        "runs": [
            {"inputs": [tensor(1, 2), {"int": 2}], "outputs": tensor(2, 4)},
            {"inputs": [tensor(1, 2), {"int": 2}], "outputs": tensor(2, 5)},
            {"inputs": [tensor(1), {"int": -1}], "raises": "ValueError", "message": "n must be non-negative"},
            {"inputs": [tensor(1), {"int": -1}], "raises": "KeyError", "message": "n must be non-negative"},
            {"inputs": [tensor(1), {"int": 1}], "raises": "ValueError"},
        ],
    }
    status, out, _ = run_tool([str(graph), "--check", write_json(tmp_path / "io.json", io)], capsys)
    assert status == 1
    assert out.splitlines() == [
        "run 0: ok",
        "run 1: FAIL output: element [1]: 4.0 != 5.0 (rtol=1e-05, atol=1e-06)",
        "run 2: ok",
        "run 3: FAIL raised ValueError instead of KeyError: n must be non-negative",
        "run 4: FAIL returned instead of raising ValueError ()",
        "2 passed, 3 failed",
    ]


def test_a_case_directory_checks_its_graph_against_its_io(capsys: pytest.CaptureFixture[str]):
    status, out, _ = run_tool([str(CORPUS / "arith_basic")], capsys)
    lines = out.splitlines()
    assert status == 0 and lines[-1].endswith(" passed, 0 failed") and lines[0] == "run 0: ok"


def test_a_module_graph_runs_against_its_module_json(capsys: pytest.CaptureFixture[str]):
    case = CORPUS / "module_linear_relu"
    status, out, _ = run_tool([str(case / "graph.txt"), "--check", str(case / "io.json")], capsys)
    assert status == 0, out
    optimized = [str(case / "graph.opt.txt"), "--check", str(case / "io.json"), "-p", "dce"]
    status, out, _ = run_tool(optimized, capsys)
    assert status == 0, out


def test_mutated_arguments_are_checked(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    case = CORPUS / "alias_input_mutation"
    io = json.loads((case / "io.json").read_text())
    run = next(r for r in io["runs"] if "inputs_after" in r)
    after = run["inputs_after"][0]["tensor"]
    after["data"] = [x + 1 for x in after["data"]]
    io["runs"] = [run]
    check = write_json(tmp_path / "io.json", io)
    status, out, _ = run_tool([str(case / "graph.txt"), "--check", check], capsys)
    assert status == 1
    assert out.splitlines()[0].startswith("run 0: FAIL input[0] after the call: element [")


def test_a_module_graph_without_module_json_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    graph = tmp_path / "graph.txt"
    graph.write_text((CORPUS / "module_linear_relu" / "graph.txt").read_text())
    status, _, err = run_tool([str(graph)], capsys)
    assert status == 1
    assert err.strip().splitlines() == [
        f"{graph}: error: 'forward' runs on a module of class __torch__.source.Model, and "
        f"{tmp_path / 'module.json'} does not exist (--module names a module.json); the module's state must give:",
        "  fc.weight : Tensor  (__torch__.torch.nn.modules.linear.Linear.weight)",
        "  fc.bias : Tensor  (__torch__.torch.nn.modules.linear.Linear.bias)",
    ]


def test_an_unavailable_backend_fails_clearly(graph: Path, monkeypatch: pytest.MonkeyPatch, capsys):
    monkeypatch.setitem(executor.BACKENDS, "later", "tsjit.runtime.not_written_yet:Executor")
    status, _, err = run_tool([str(graph), "--backend", "later"], capsys)
    assert status == 1
    assert err.startswith(
        "ts-run: error: backend 'later' is not available yet (tsjit.runtime.not_written_yet:Executor is missing)"
    )


def test_python_source_runs_through_the_script_frontend(tmp_path: Path, capsys):
    source = tmp_path / "f.py"
    source.write_text("def forward(x: int) -> int:\n    return x * 2\n")
    inputs = write_json(tmp_path / "in.json", [{"int": 3}])
    status, out, _ = run_tool([str(source), "--inputs", inputs], capsys)
    assert status == 0 and json.loads(out) == {"int": 6}


def test_declared_callees_come_from_the_source_beside_the_graph(tmp_path: Path, capsys):
    case = CORPUS / "call_helper"
    graph = tmp_path / "graph.txt"
    graph.write_text((case / "graph.txt").read_text())
    check = str(case / "io.json")
    status, _, err = run_tool([str(graph), "--check", check], capsys)
    assert status == 1
    assert err.startswith("source.py:17:9: error: function 'scale_add' is only declared")
    (tmp_path / "source.py").write_text((case / "source.py").read_text())
    status, out, _ = run_tool([str(graph), "--check", check], capsys)
    assert status == 0 and out.splitlines()[-1] == "2 passed, 0 failed"


def test_threads_split_native_kernels_and_need_a_native_backend(capsys):
    case = str(CORPUS / "unary_activations")
    status, out, _ = run_tool([case, "--backend", "llvm", "--threads", "2"], capsys)
    assert status == 0, out
    assert out.splitlines()[-1].endswith("0 failed")
    status, _, err = run_tool([case, "--threads", "2"], capsys)
    assert status == 1
    assert err.startswith(
        "ts-run: error: backend 'interp' runs on one thread; threads need a native backend (llvm, auto)"
    )
