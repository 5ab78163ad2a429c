"""Generated Python compiles once: a process that finds a source's code in the cache
directory runs it without compiling; a damaged entry is discarded with a warning and
compiled again; other sources, file names and Pythons miss; a directory that cannot be
written, or none, only means compiling."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from types import CodeType

import pytest

from tsjit.runtime import code_cache, kernel_cache
from tsjit.runtime.code_cache import code_key, compile_generated

SOURCE = "def f(x):\n    return x * 3 + 1\n"


@pytest.fixture(autouse=True)
def fresh_process(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    """Each test starts as a new process would, over a cache of its own."""
    monkeypatch.setenv("TSJIT_CACHE_DIR", str(tmp_path))
    forget()
    yield
    forget()


def forget() -> None:
    compile_generated.cache_clear()
    kernel_cache._default_at.cache_clear()  # pyright: ignore[reportPrivateUsage]
    kernel_cache._shared_cache.cache_clear()  # pyright: ignore[reportPrivateUsage]


def run(code: CodeType) -> int:
    namespace: dict[str, object] = {}
    exec(code, namespace)  # noqa: S102 -- the test's own source
    return namespace["f"](4)  # pyright: ignore[reportCallIssue]


def no_compiling(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(code_cache, "compile", lambda *a: pytest.fail("compiled a cached source"), raising=False)


def entries(directory: Path) -> list[Path]:
    return sorted((directory / "code").glob("*.code"))


def test_a_later_process_reads_the_code_instead_of_compiling(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert run(compile_generated(SOURCE, "<test>")) == 13
    assert [p.stem for p in entries(tmp_path)] == [code_key(SOURCE, "<test>")]
    forget()
    no_compiling(monkeypatch)
    code = compile_generated(SOURCE, "<test>")
    assert run(code) == 13 and code.co_filename == "<test>"
    assert compile_generated(SOURCE, "<test>") is code  # once per process


def test_other_sources_file_names_and_pythons_miss(monkeypatch: pytest.MonkeyPatch) -> None:
    keys = {code_key(SOURCE, "<test>"), code_key(SOURCE.replace("3", "4"), "<test>"), code_key(SOURCE, "<other>")}
    monkeypatch.setattr(code_cache, "_PYTHON", "another Python")
    keys.add(code_key(SOURCE, "<test>"))
    assert len(keys) == 4


@pytest.mark.parametrize("damage", ["flip", "truncate", "not code"])
def test_a_damaged_entry_is_discarded_with_a_warning_and_compiled_again(
    tmp_path: Path, damage: str, capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    compile_generated(SOURCE, "<test>")
    (entry,) = entries(tmp_path)
    data = entry.read_bytes()
    if damage == "not code":  # a sound entry of something else
        from tsjit.runtime.kernel_cache import _CODE_MAGIC, _seal  # pyright: ignore[reportPrivateUsage]

        data = _seal(_CODE_MAGIC, b"\xe9\x03\x00\x00\x00")  # marshal of the int 3
    else:
        data = data[: len(data) // 2] if damage == "truncate" else data[:-5] + bytes([data[-5] ^ 1]) + data[-4:]
    entry.write_bytes(data)
    forget()
    monkeypatch.setenv("TSJIT_LOG_LEVEL", "kernel_cache")
    capfd.readouterr()
    assert run(compile_generated(SOURCE, "<test>")) == 13
    warnings = capfd.readouterr().err.splitlines()
    assert len(warnings) == 1 and warnings[0].startswith("[WARNING kernel_cache] discarding kernel cache entry")
    forget()
    no_compiling(monkeypatch)
    assert run(compile_generated(SOURCE, "<test>")) == 13  # stored again, whole


def test_concurrent_writers_leave_one_complete_entry(tmp_path: Path) -> None:
    start = threading.Barrier(4)
    results: list[int] = []

    def write() -> None:
        start.wait()
        results.append(run(code_cache.compile_generated.__wrapped__(SOURCE, "<test>")))

    writers = [threading.Thread(target=write) for _ in range(4)]
    for t in writers:
        t.start()
    for t in writers:
        t.join()
    assert results == [13] * 4
    assert len(entries(tmp_path)) == 1 and not list((tmp_path / "code").glob("*.tmp"))


def test_no_cache_directory_or_an_unwritable_one_only_means_compiling(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TSJIT_CACHE_DIR", "")
    assert run(compile_generated(SOURCE, "<test>")) == 13
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("TSJIT_CACHE_DIR", str(blocker / "cache"))
    forget()
    assert run(compile_generated(SOURCE, "<test>")) == 13
    assert not code_cache._disk().writable  # pyright: ignore[reportPrivateUsage,reportOptionalMemberAccess]


def test_a_read_only_directory_is_read_but_not_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, read_only: Callable[[Path], AbstractContextManager[None]]
) -> None:
    compile_generated(SOURCE, "<test>")
    with read_only(tmp_path / "code"):
        forget()
        with monkeypatch.context() as patch:
            patch.setattr(code_cache, "compile", lambda *a: pytest.fail("compiled a cached source"), raising=False)
            assert run(compile_generated(SOURCE, "<test>")) == 13
        assert run(compile_generated(SOURCE.replace("3", "5"), "<test>")) == 21
        assert len(entries(tmp_path)) == 1
