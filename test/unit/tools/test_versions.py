"""Every tool has `--version`: the tool, tsjit's version and xDSL's."""

from __future__ import annotations

import re

import pytest

from tsjit.tools import ts_opt, ts_run, ts_translate


@pytest.mark.parametrize(("tool", "main"), [("ts-opt", ts_opt.main), ("ts-run", ts_run.main), ("ts-translate", ts_translate.main)])
def test_version(tool: str, main, capsys: pytest.CaptureFixture[str]):
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code in (0, None)
    assert re.fullmatch(rf"{tool} \(tsjit \S+, xdsl 0\.74\.\S+\)\n", capsys.readouterr().out)
