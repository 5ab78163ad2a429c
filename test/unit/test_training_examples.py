"""The training examples run at a small size and their loss goes down."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _example(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_train_mlp(capsys: pytest.CaptureFixture[str]) -> None:
    losses = _example("train_mlp").main(["--steps", "6", "--hidden", "16", "--batch", "64", "--report", "2"])
    assert len(losses) == 6 and losses[-1] < losses[0]
    assert "step    4  loss" in capsys.readouterr().out


def test_train_lstm(capsys: pytest.CaptureFixture[str]) -> None:
    losses = _example("train_lstm").main(["--steps", "4", "--hidden", "16", "--length", "4", "--batch", "4"])
    assert len(losses) == 4 and losses[-1] < losses[0]
    out = capsys.readouterr().out
    assert "step    3  loss" in out and "sample: 'The " in out
