"""Every test run gets a kernel cache of its own (`TSJIT_CACHE_DIR`), removed at the
end: tests never read or fill the user's cache, and tools they start inherit it."""

from __future__ import annotations

import os
import shutil
import tempfile

_directory = tempfile.mkdtemp(prefix="tsjit-test-cache-")
os.environ["TSJIT_CACHE_DIR"] = _directory


def pytest_unconfigure(config: object) -> None:
    shutil.rmtree(_directory, ignore_errors=True)
