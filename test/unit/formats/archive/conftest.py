"""Archives for the tests: the ones PyTorch saved (test/data/archives), and copies of
them with members replaced, removed or compressed."""

from __future__ import annotations

import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[4] / "test" / "data" / "archives"

Change = Callable[[str, bytes], bytes | None]


def rewrite(source: Path, target: Path, change: Change, compression: int = zipfile.ZIP_STORED) -> Path:
    """A copy of `source` whose members are `change(name, data)` (None drops one); names
    are given without the archive's top-level directory."""
    with zipfile.ZipFile(source) as zin, zipfile.ZipFile(target, "w", compression) as zout:
        for info in zin.infolist():
            name = info.filename.split("/", 1)[1]
            data = change(name, zin.read(info.filename))
            if data is not None:
                zout.writestr(info.filename, data)
    return target


@pytest.fixture
def linear_relu() -> Path:
    """A small module archive: a Linear (weight, bias) and a relu."""
    return DATA / "conformance" / "module_linear_relu.pt"
