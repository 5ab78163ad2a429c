"""Shared test-run machinery.

Every test run gets a kernel cache of its own (`TSJIT_CACHE_DIR`), removed at the
end: tests never read or fill the user's cache, and tools they start inherit it.

Pass figures: a test adds its outcomes to a table of figures with the `figures` fixture
(a user property of its report, which pytest-xdist carries from its workers), and the
run's summary prints each table, per row and column, whether the tests ran in this
process or in workers.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest

_directory = tempfile.mkdtemp(prefix="tsjit-test-cache-")
os.environ["TSJIT_CACHE_DIR"] = _directory

FIGURES_PROPERTY = "tsjit-figures"
_figures: dict[str, dict[tuple[str, str], Counter[str]]] = {}
"""Table title -> (row, column) -> outcome counts ("passed", "failed", and notes)."""


@pytest.fixture
def figures(record_property: Callable[[str, object], None]) -> Callable[[str, str, str, dict[str, int]], None]:
    """`figures(table, row, column, counts)` adds `counts` to that cell of the summary."""

    def add(table: str, row: str, column: str, counts: dict[str, int]) -> None:
        record_property(FIGURES_PROPERTY, [table, row, column, dict(counts)])

    return add


def pytest_runtest_logreport(report: Any) -> None:
    if report.when != "call":
        return
    for name, value in report.user_properties:
        if name == FIGURES_PROPERTY:
            table, row, column, counts = value
            _figures.setdefault(table, {}).setdefault((row, column), Counter()).update(counts)


def figure_lines() -> list[str]:
    """Each table: a line per row, `column passed/run (pct)` per column, then the row's
    total with its other counts (`native 12`)."""
    lines: list[str] = []
    for table, cells in _figures.items():
        lines.append(f"{table}:")
        rows = dict.fromkeys(row for row, _ in cells)
        for row in rows:
            parts, total = [], Counter()
            for (r, column), counts in sorted(cells.items()):  # columns in one order, whichever worker ran first
                if r != row:
                    continue
                total.update(counts)
                run = counts["passed"] + counts["failed"]
                if column:
                    parts.append(f"{column} {counts['passed']}/{run} ({100 * counts['passed'] / run:.1f}%)")
            run = total["passed"] + total["failed"]
            notes = "".join(f", {k} {n}" for k, n in total.items() if k not in ("passed", "failed"))
            summary = f"all {total['passed']}/{run} ({100 * total['passed'] / run:.1f}%){notes}"
            lines.append(f"  {row:<8} " + "; ".join([*parts, summary]))
    return lines


def pytest_terminal_summary(terminalreporter: Any) -> None:
    for line in figure_lines():
        terminalreporter.write_line(line)


def pytest_unconfigure(config: object) -> None:
    shutil.rmtree(_directory, ignore_errors=True)
