"""The fuzz harness in `make test`: every failure it ever found (`regressions/`), and a
fast seed set of fresh inputs; `make fuzz` runs the long mode (`run.py`).

Reader regressions (`regressions/readers/*.{mlir,txt,py}`, read by the reader of their
suffix) must read or fail with a one-line located diagnostic; program regressions
(`regressions/programs/*.json`, a program's source and input recipes) must agree with
the reference on both backends. The reference itself is checked against PyTorch when it
is installed (`pytest -m interop`).
"""

from __future__ import annotations

import json
import random
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from mutations import dictionary, mutate  # noqa: E402
from programs import Program, compare, generate, run_program  # noqa: E402
from readers import KINDS, read, seeds  # noqa: E402

REGRESSIONS = HERE / "regressions"
KIND_OF_SUFFIX = {".mlir": "mlir", ".txt": "graph", ".py": "python"}
FAST_READERS = 120
FAST_PROGRAMS = 8
SECONDS_PER_INPUT = 60


@contextmanager
def time_limit(seconds: int) -> Iterator[None]:
    """A hang fails the test instead of stopping the suite."""

    def expire(signum: int, frame: object) -> None:
        raise TimeoutError(f"over {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def reader_regressions() -> list[Path]:
    return sorted(p for p in (REGRESSIONS / "readers").iterdir() if p.suffix in KIND_OF_SUFFIX)


@pytest.mark.parametrize("path", reader_regressions(), ids=lambda p: p.name)
def test_reader_regression(path: Path):
    with time_limit(SECONDS_PER_INPUT):
        outcome = read(KIND_OF_SUFFIX[path.suffix], path.read_text(encoding="utf-8"))
    assert not outcome.failed, f"{outcome.kind}: {outcome.detail}"


@pytest.mark.parametrize("path", sorted((REGRESSIONS / "programs").glob("*.json")), ids=lambda p: p.stem)
def test_program_regression(path: Path):
    with time_limit(SECONDS_PER_INPUT):
        outcome = run_program(json.loads(path.read_text(encoding="utf-8")))
    assert outcome["kind"] in ("ok", "skipped"), outcome["detail"]


def test_fast_seed_set_of_mutated_inputs():
    """What `make fuzz` does at scale, on a fixed handful of inputs."""
    rng = random.Random(2026)
    failures = []
    for k in range(FAST_READERS):
        kind = KINDS[k % len(KINDS)]
        corpus = seeds(kind)
        text = mutate(rng.choice(corpus), rng, dictionary(corpus[:20]))
        with time_limit(SECONDS_PER_INPUT):
            outcome = read(kind, text)
        if outcome.failed:
            failures.append(f"{kind} input {k}: {outcome.kind}: {outcome.detail}")
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("seed", range(FAST_PROGRAMS))
def test_fast_seed_set_of_random_programs(seed: int):
    with time_limit(SECONDS_PER_INPUT):
        outcome = run_program({"seed": 2026_000 + seed})
    assert outcome["kind"] in ("ok", "skipped"), outcome["detail"]


def test_every_reader_has_seeds():
    for kind in KINDS:
        assert len(seeds(kind)) >= 10, kind


@pytest.mark.interop
@pytest.mark.parametrize("block", range(10))
def test_the_reference_computes_what_torchscript_does(block: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Random programs in TorchScript itself against the numpy reference (PyTorch's
    own inconsistencies aside: `PYTORCH_DIFFERS`)."""
    torch = pytest.importorskip("torch")
    import importlib
    import numpy as np
    from reference import SIGNS_OPEN, VALUES_OPEN, RefError, Undefined, run_reference

    monkeypatch.syspath_prepend(str(tmp_path))
    problems = []
    for seed in range(block * 100, block * 100 + 100):
        if seed in PYTORCH_DIFFERS:
            continue
        program = generate(seed)
        arrays = program.arrays()
        try:
            expected = run_reference(program.source, arrays)
        except RefError as error:
            expected = error
        except Undefined:
            continue
        (tmp_path / f"program{seed}.py").write_text(program.source)
        fn = torch.jit.script(importlib.import_module(f"program{seed}").forward)
        try:
            got = fn(*(torch.from_numpy(np.array(a)) for a in arrays))
        except RuntimeError:
            if not isinstance(expected, RefError):
                problems.append(f"seed {seed}: PyTorch raised")
            continue
        got = tuple(g.numpy() for g in got) if isinstance(got, tuple) else got.numpy()
        problem = compare(expected, got, not SIGNS_OPEN[0], not VALUES_OPEN[0])
        if problem is not None:
            problems.append(f"seed {seed}: {problem}")
    assert not problems, "\n".join(problems)


PYTORCH_DIFFERS = {324}
"""Seeds where TorchScript disagrees with eager PyTorch and with itself: 324 multiplies by
-0.0 and gets 0.0 (eager PyTorch and a direct scripted `x * -0.0` give -0.0)."""


def test_programs_round_trip_through_json():
    program = generate(5)
    again = Program.from_json(json.loads(json.dumps(program.to_json())))
    assert again.source == program.source
    for a, b in zip(program.arrays(), again.arrays()):
        assert a.dtype == b.dtype and a.shape == b.shape and a.strides == b.strides
