"""Source files read from disk are parsed once per process while unchanged, and a
function's def is found by its name and first line (decorators included)."""

from __future__ import annotations

import os
from pathlib import Path

from tsjit.frontend.source import source_of_file

TEXT = """import torch


def plain(x):
    return x


@torch.jit.script
@staticmethod
def decorated(x):
    def inner(y):
        return y
    return inner(x)
"""


def test_an_unchanged_file_is_read_once_and_a_changed_one_again(tmp_path: Path):
    path = tmp_path / "helpers.py"
    path.write_text(TEXT, encoding="utf-8")
    first = source_of_file(str(path), "helpers.py")
    assert source_of_file(str(path), "helpers.py") is first
    assert source_of_file(str(path), "shown/elsewhere.py") is not first

    path.write_text(TEXT.replace("return x", "return x + 1"), encoding="utf-8")
    status = path.stat()
    os.utime(path, ns=(status.st_atime_ns, status.st_mtime_ns + 1_000_000))
    changed = source_of_file(str(path), "helpers.py")
    assert changed is not first and "x + 1" in changed.text


def test_defs_are_found_by_name_and_any_of_their_first_lines(tmp_path: Path):
    path = tmp_path / "helpers.py"
    path.write_text(TEXT, encoding="utf-8")
    defs = source_of_file(str(path), "helpers.py").function_defs
    assert defs[("plain", 4)].name == "plain"
    assert defs[("decorated", 8)] is defs[("decorated", 9)] is defs[("decorated", 10)]
    assert defs[("inner", 11)].name == "inner"
    assert ("plain", 5) not in defs and ("decorated", 4) not in defs
