"""The tools on archives: bad input of every kind is one line `model.pt: error: ...`
naming the member, exit status 1, nothing run; `ts-translate --export-archive` writes
an archive from a module's source, an archive or a graph's function."""

from __future__ import annotations

import json
import os
import pickle
from pathlib import Path

import pytest

import tsjit
from tsjit.runtime.values import decode_value, match_value
from tsjit.tools import ts_opt, ts_run, ts_translate

from .conftest import DATA, rewrite

SOURCE = DATA / "conformance" / "module_linear_relu.pt"
INPUTS = '[{"tensor": {"dtype": "float32", "shape": [1, 4], "data": [1, 2, 3, 4]}}]'


def run(main, argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        main(argv)
        code = 0
    except SystemExit as exit:
        code = int(exit.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


class Runs:
    def __reduce__(self):
        return (os.system, ("echo ran",))


def bad_archives(tmp_path: Path) -> dict[str, tuple[Path, str]]:
    """name -> (archive, the error after `model.pt: error: `)."""
    truncated = tmp_path / "truncated.pt"
    truncated.write_bytes(SOURCE.read_bytes()[:700])
    notzip = tmp_path / "notzip.pt"
    notzip.write_text("graph(%x : Tensor):\n  return (%x)\n")

    def damaged(name: str, change) -> Path:
        return rewrite(SOURCE, tmp_path / f"{name}.pt", change)

    evil = pickle.dumps(Runs(), protocol=2)
    return {
        "truncated": (truncated, "not a zip archive (truncated, or not a TorchScript archive)"),
        "not zip": (notzip, "not a zip archive (truncated, or not a TorchScript archive)"),
        "no data.pkl": (damaged("nodata", lambda n, d: None if n == "data.pkl" else d),
                        "module_linear_relu/data.pkl: missing from the archive"),
        "no storage": (damaged("nostorage", lambda n, d: None if n == "data/0" else d),
                       "module_linear_relu/data/0: missing from the archive"),
        "global": (damaged("global", lambda n, d: evil if n == "data.pkl" else d),
                   (f"module_linear_relu/data.pkl: refusing the global '{os.system.__module__}.system': "
                    "TorchScript archives do not use it (nothing was run)")),
        "version": (damaged("version", lambda n, d: b"12\n" if n == "version" else d),
                    "module_linear_relu/version: archive version 12 is newer than tsjit reads (3 to 10)"),
        "code": (damaged("code", lambda n, d: d.replace(b"torch.linear", b"torch.linearx")),
                 ("module_linear_relu/code/__torch__/torch/nn/modules/linear.py:14:12: unknown builtin op: "
                  "aten::linearx")),
    }  # fmt: skip


@pytest.mark.parametrize("tool", ["ts-run", "ts-translate", "ts-opt"])
def test_bad_archives_are_one_line_errors(tool: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    inputs = tmp_path / "inputs.json"
    inputs.write_text(INPUTS)
    for name, (path, message) in bad_archives(tmp_path).items():
        main, argv = {
            "ts-run": (ts_run.main, [str(path), "--inputs", str(inputs)]),
            "ts-translate": (ts_translate.main, ["--import-archive", str(path)]),
            "ts-opt": (ts_opt.main, [str(path), "-p", "inline"]),
        }[tool]
        code, out, err = run(main, argv, capsys)
        assert (code, out, err) == (1, "", f"{path}: error: {message}\n"), name


def test_run_check_and_entry(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    composite = DATA / "models" / "composite.pt"
    io = json.loads(composite.with_suffix(".io.json").read_text(encoding="utf-8"))
    inputs = tmp_path / "score.json"
    inputs.write_text(json.dumps(io["runs"][2]["inputs"]))
    code, out, _ = run(ts_run.main, [str(composite), "--entry", "score", "--inputs", str(inputs)], capsys)
    assert code == 0 and json.loads(out)["dict"][0][0] == {"str": "a"}


def test_run_fills_in_defaults(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    composite = DATA / "models" / "composite.pt"
    io = json.loads(composite.with_suffix(".io.json").read_text(encoding="utf-8"))
    first = io["runs"][0]  # forward(x, k=1)
    inputs = tmp_path / "x.json"
    inputs.write_text(json.dumps(first["inputs"][:1]))
    code, out, _ = run(ts_run.main, [str(composite), "--inputs", str(inputs)], capsys)
    assert code == 0
    assert match_value(decode_value(json.loads(out)), decode_value(first["outputs"]), 1e-4, 1e-5) is None


def test_export_archive_from_source_archive_and_graph(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    corpus = Path(__file__).resolve().parents[5] / "shared" / "conformance"
    for name, source in (("mlp", corpus / "nn_mlp" / "source.py"), ("linear", SOURCE),
                         ("arith", corpus / "arith_basic" / "graph.txt")):  # fmt: skip
        target = tmp_path / f"{name}.pt"
        assert run(ts_translate.main, ["--export-archive", str(source), "-o", str(target)], capsys)[0] == 0
        assert isinstance(tsjit.load(str(target)), tsjit.ScriptModule)


def test_export_archive_needs_an_output_file_and_a_module_object(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    assert run(ts_translate.main, ["--export-archive", str(SOURCE)], capsys)[2] == (
        "ts-translate: error: --export-archive writes a binary file: give it with -o\n"
    )
    graph = (
        Path(__file__).resolve().parents[5] / "shared" / "conformance" / "module_linear_relu" / "graph.txt"
    )
    code, _, err = run(
        ts_translate.main, ["--export-archive", str(graph), "-o", str(tmp_path / "m.pt")], capsys
    )
    assert code == 1 and "takes a module object (__torch__.source.Model), which a graph does not hold" in err
