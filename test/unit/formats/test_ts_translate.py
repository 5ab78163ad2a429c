"""ts-translate: the mode table, files and streams, and one-line errors."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest

from tsjit.tools.ts_translate import MODES, main

GRAPH = "graph(%x.1 : Tensor):\n  %1 : Tensor = aten::neg(%x.1) # m.py:2:4\n  return (%1)\n"


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        main(argv)
        code = 0
    except SystemExit as e:
        code = int(e.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_the_graph_text_modes_are_flags():
    assert {"--import-torchscript", "--export-torchscript", "--export-python"} <= set(MODES)


def test_import_export_and_python(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    graph = tmp_path / "g.txt"
    graph.write_text(GRAPH)
    code, mlir, _ = run(["--import-torchscript", str(graph), "--print-debuginfo"], capsys)
    assert code == 0 and '%0 = aten.neg %x.1 : (!ts.tensor) -> !ts.tensor loc("m.py":2:5)' in mlir
    module = tmp_path / "g.mlir"
    module.write_text(mlir)
    assert run(["--export-torchscript", str(module)], capsys)[1] == GRAPH.replace("%1", "%0")
    assert (
        run(["--export-python", str(graph)], capsys)[1]
        == "def forward(x: Tensor) -> Tensor:\n  return torch.neg(x)\n"
    )


def test_output_file_and_stdin(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(sys, "stdin", io.StringIO(GRAPH))
    out = tmp_path / "out.py"
    assert run(["--export-python", "-", "-o", str(out), "--entry", "f"], capsys) == (0, "", "")
    assert out.read_text().startswith("def f(x: Tensor) -> Tensor:")


def test_errors_are_one_line_with_position_and_exit_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    graph = tmp_path / "bad.txt"
    graph.write_text("graph(%x : Tensor):\n  return (%y)\n")
    code, out, err = run(["--import-torchscript", str(graph)], capsys)
    assert (code, out) == (1, "")
    assert err.splitlines() == [
        f"{graph}:2:11: error: use of undefined value '%y'",
        "  return (%y)",
        "          ^",
    ]


def test_a_mode_is_required(capsys: pytest.CaptureFixture[str]):
    code, _, err = run(["x.txt"], capsys)
    assert code == 2 and "one of the arguments --import-torchscript" in err
