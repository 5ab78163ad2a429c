"""Kernels run the way the interpreter runs them: under numpy.errstate(all="ignore").
Cache tests make directories refuse writes with `read_only`."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

import numpy as np
import pytest


@pytest.fixture(autouse=True)
def quiet_floating_point():
    with np.errstate(all="ignore"):
        yield


@pytest.fixture
def read_only(monkeypatch: pytest.MonkeyPatch) -> Callable[[Path], AbstractContextManager[None]]:
    """`with read_only(directory):` the directory refuses writes: its permissions say
    so, and for root, whom permission bits do not stop, creating a file in it fails as
    the system would refuse it (PermissionError)."""

    @contextmanager
    def refusing(directory: Path) -> Iterator[None]:
        if os.name == "posix" and os.geteuid() != 0:
            directory.chmod(0o555)
            try:
                yield
            finally:
                directory.chmod(0o755)
            return
        real = tempfile.mkstemp

        def refuse(*args: object, dir: str | Path | None = None, **kwargs: object) -> tuple[int, str]:  # noqa: A002
            if dir is not None and Path(dir) == directory:
                raise PermissionError(13, "Permission denied", str(dir))
            return real(*args, dir=dir, **kwargs)  # pyright: ignore[reportCallIssue,reportArgumentType]

        with monkeypatch.context() as patch:
            patch.setattr(tempfile, "mkstemp", refuse)
            yield

    return refusing
