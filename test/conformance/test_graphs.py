"""Every case of the conformance corpus, in each graph form PyTorch printed for it and
from its Python source (scripted), run through the interpreter against the runs
TorchScript recorded.

The corpus lives beside the repository (`../shared/conformance`); a missing corpus
fails the suite. Known failures are listed, with a reason each, in
`expected_failures.txt` and marked strict xfails, so a fixed case fails until its line
is removed.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tsjit.runtime.executor import GraphExecutor
from tsjit.tools.ts_run import check_runs, load_program, module_receiver

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT.parent / "shared" / "conformance"
FORMS = ("graph.txt", "graph.inlined.txt", "graph.opt.txt", "source.py")
EXPECTED_FAILURES = Path(__file__).with_name("expected_failures.txt")


def expected_failures() -> dict[tuple[str, str], str]:
    """(case, form) -> reason, from lines `case form reason...` (# starts a comment)."""
    failures = {}
    for number, line in enumerate(EXPECTED_FAILURES.read_text(encoding="utf-8").splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        case, form, *reason = line.split(maxsplit=2)
        if not reason:
            raise ValueError(f"{EXPECTED_FAILURES.name}:{number}: a line is `case form reason`")
        failures[(case, form)] = reason[0]
    return failures


def corpus_cases() -> list[pytest.param]:
    if not CORPUS.is_dir():
        return []
    failures = expected_failures()
    params = []
    for case in sorted(p for p in CORPUS.iterdir() if (p / "io.json").is_file()):
        for form in FORMS:
            if not (case / form).is_file():
                continue
            reason = failures.get((case.name, form))
            marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
            params.append(pytest.param(case, form, marks=marks, id=f"{case.name}/{form}"))
    return params


def test_the_corpus_is_present():
    assert CORPUS.is_dir(), f"the conformance corpus is missing: expected it at {CORPUS}"
    assert corpus_cases(), f"no cases found in {CORPUS}"


def test_expected_failures_name_existing_cases():
    known = {(case.name, form) for case, form in (p.values for p in corpus_cases())}
    stale = sorted(set(expected_failures()) - known)
    assert not stale, f"expected_failures.txt names cases that do not exist: {stale}"


@pytest.mark.parametrize(("case", "form"), corpus_cases())
def test_graph(case: Path, form: str):
    io = json.loads((case / "io.json").read_text(encoding="utf-8"))
    entry = io.get("entry", "forward")
    path = case / form
    module = load_program(path)
    run = GraphExecutor(module, entry, pipeline=())  # the graph as written
    receiver = module_receiver(module, entry, None, path)
    call = run if receiver is None else (lambda *inputs: run(receiver, *inputs))
    failures = [result.line for result in check_runs(call, io) if not result.ok]
    assert not failures, "\n".join(failures)
