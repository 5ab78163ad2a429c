"""The three readers under fuzzing: MLIR, PyTorch's graph text and Python source.

`seeds(kind)` are the valid programs the mutations start from (the conformance corpus,
the lit tests, the test programs). `read(kind, text)` runs one input through tsjit as
`ts-opt` reads it (read, verify, print) and classifies what happened: `ok`, a
`diagnostic` (a TsjitError, or an xDSL parse error the tools turn into one, with a
location and a one-line message), or a failure: `crash` (any other exception),
`unlocated` (a diagnostic without a location), `multi-line` (a message of several lines).
The harness adds `hang` and `died` (the worker timed out or died).
"""

from __future__ import annotations

import re
import traceback
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CONFORMANCE = ROOT.parent / "shared" / "conformance"
KINDS = ("mlir", "graph", "python")
FILENAMES = {"mlir": "input.mlir", "graph": "input.txt", "python": "input.py"}
FAILURES = ("crash", "unlocated", "multi-line", "hang", "died")

MAX_SEED_LINES = 80
"""Longer programs read slowly and their mutations rarely reach anything new."""


@dataclass(frozen=True)
class Outcome:
    kind: str  # ok, diagnostic, or one of FAILURES
    detail: str = ""  # the message; for crashes the exception and where it was raised
    signature: str = ""  # what makes two failures the same failure

    @property
    def failed(self) -> bool:
        return self.kind in FAILURES


def seeds(kind: str) -> list[str]:
    """The valid programs of one kind in the repository and the conformance corpus."""
    if kind == "graph":
        paths = sorted(CONFORMANCE.glob("*/graph*.txt")) + sorted((ROOT / "test" / "filecheck").rglob("*.txt"))
    elif kind == "mlir":
        paths = sorted((ROOT / "test" / "filecheck").rglob("*.mlir"))
    else:
        paths = sorted(CONFORMANCE.glob("*/source.py")) + sorted((ROOT / "test" / "unit" / "frontend" / "programs").glob("*.py"))
    texts: list[str] = []
    for path in paths:
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:  # a test of input that is not text
            continue
        chunks = text.split("// -----") if kind == "mlir" else [text]
        for chunk in chunks:
            if kind == "graph" and "graph(" not in chunk:
                continue
            if chunk.strip() and chunk.count("\n") <= MAX_SEED_LINES and "expected-error" not in chunk:
                texts.append(chunk)
    return texts


def read(kind: str, text: str) -> Outcome:
    """One input through the reader of its kind, verified and printed."""
    from tsjit.context import make_context
    from tsjit.formats import read_program
    from tsjit.formats.mlir import verify

    try:
        module = read_program(make_context(), text, FILENAMES[kind])
        verify(module)
        str(module)
    except BaseException as error:  # everything is classified; nothing may escape
        if isinstance(error, KeyboardInterrupt):
            raise
        return classify(error)
    return Outcome("ok")


def classify(error: BaseException) -> Outcome:
    """A diagnostic the tools would print as `file:line:col: error: message`, or which
    failure this is."""
    from tsjit.diagnostics import TsjitError, from_xdsl_error

    diagnostic = error if isinstance(error, TsjitError) else from_xdsl_error(error, "input")
    if diagnostic is None:
        where = _raised_at(error)
        detail = f"{type(error).__name__}: {_first_line(error)} (at {where})"
        return Outcome("crash", detail, f"crash {type(error).__name__} {where}")
    message = diagnostic.message
    if diagnostic.location is None:
        return Outcome("unlocated", message, "unlocated " + _shape(message))
    if "\n" in message.strip():
        return Outcome("multi-line", message, "multi-line " + _shape(message.splitlines()[0]))
    return Outcome("diagnostic", f"{diagnostic.location}: {message}")


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0][:200] if text else ""


def _raised_at(error: BaseException) -> str:
    """The innermost frame in tsjit (else in xDSL, else the last one)."""
    frames = traceback.extract_tb(error.__traceback__)
    for marker in ("/tsjit/", "/xdsl/"):
        ours = [f for f in frames if marker in f.filename]
        if ours:
            frame = ours[-1]
            return f"{frame.filename.split(marker)[-1]}:{frame.name}"
    return f"{frames[-1].name}" if frames else "?"


def _shape(message: str) -> str:
    """A message with its particulars (names, numbers, quoted text) abstracted away."""
    message = re.sub(r"'[^']*'|\"[^\"]*\"|`[^`]*`", "'…'", message)
    return re.sub(r"\d+", "N", message)[:120]
