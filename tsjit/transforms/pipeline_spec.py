"""Pass pipelines as text, in MLIR's spelling or xDSL's, with errors that point into it.

    builtin.module(inline,func.func(cse),rewrite-subgraphs{rules="r.rules"})
    inline,cse,rewrite-subgraphs{rules="r.rules"}

Every tsjit pass runs on the whole module and visits each function itself, so MLIR's
anchors (`builtin.module(...)`, `func.func(...)`, `any(...)`) only group: they are
dropped, and xDSL's parser reads the rest. A mistake is reported as a located error on
the pipeline text (`pass-pipeline:1:20: error: ...`, the text, a caret), at the column
of the text as the user wrote it, anchors included; an unknown pass name suggests the
nearest known one.
"""

from __future__ import annotations

import dataclasses
import difflib
import re
from collections.abc import Callable, Mapping

from xdsl.passes import ModulePass
from xdsl.utils.arg_spec import parse_pipeline as parse_arg_specs

from tsjit.diagnostics import SourceLocation, TsjitError

PassFactories = Mapping[str, Callable[[], type[ModulePass]]]

SOURCE_NAME = "pass-pipeline"
"""The name pipeline errors are located in (as xDSL names it)."""

_ANCHOR = re.compile(r"(?:^|(?<=[,(\s]))(?:builtin\.module|func\.func|any)\s*\(")


class PipelineError(TsjitError):
    """A mistake in a pass pipeline, located in its text."""


def strip_pipeline_anchors(spec: str) -> str:
    """MLIR's `builtin.module(a,func.func(b))` spelling → xDSL's flat `a,b`."""
    return _strip(spec)[0]


def parse_pipeline(spec: str, available: PassFactories) -> tuple[ModulePass, ...]:
    """The passes `spec` names, configured with its options; a `PipelineError` at the
    mistake's column otherwise."""
    from xdsl.utils.exceptions import ArgSpecParseError

    flat, origin = _strip(spec)
    try:
        specs = list(parse_arg_specs(flat))
    except ArgSpecParseError as error:
        column, message = _parse_error_position(str(error))
        raise _error(spec, origin, column - 1, message[:1].lower() + message[1:]) from None
    names = _pass_names(flat)
    passes = []
    for index, arg_spec in enumerate(specs):
        position = names[index] if index < len(names) else 0
        factory = available.get(arg_spec.name)
        if factory is None:
            raise _error(spec, origin, position, _unknown_pass(arg_spec.name, available)) from None
        cls = factory()
        if dataclasses.is_dataclass(cls) and (
            unknown := sorted(set(arg_spec.normalize_parameter_names().parameters) - {f.name for f in dataclasses.fields(cls)})
        ):
            options = ", ".join(f.name for f in dataclasses.fields(cls)) or "none"
            message = f"pass '{arg_spec.name}' has no option '{unknown[0]}' (its options: {options})"
            raise _error(spec, origin, position, message)
        try:
            passes.append(cls.from_pass_spec(arg_spec))
        except (ValueError, TypeError) as error:
            raise _error(spec, origin, position, f"pass '{arg_spec.name}': {error}") from None
    return tuple(passes)


def _unknown_pass(name: str, available: PassFactories) -> str:
    close = difflib.get_close_matches(name, list(available), n=1)
    hint = f"; did you mean '{close[0]}'?" if close else ""
    return f"unknown pass '{name}'{hint} (ts-opt --list-passes lists them)"


def _error(spec: str, origin: list[int], flat_index: int, message: str) -> PipelineError:
    position = origin[min(max(flat_index, 0), len(origin) - 1)]
    line = spec.count("\n", 0, position) + 1
    start = spec.rfind("\n", 0, position) + 1
    end = spec.find("\n", position)
    text = spec[start : end if end != -1 else len(spec)]
    return PipelineError(message, SourceLocation(SOURCE_NAME, line, position - start + 1), text)


def _parse_error_position(text: str) -> tuple[int, str]:
    """xDSL's parse error carries its column only in its text: `pass-pipeline:1:5`,
    the spec, a caret, the message."""
    lines = [line for line in text.splitlines() if line.strip()]
    column = 1
    for line in lines:
        if m := re.fullmatch(r".*:\d+:(\d+)", line.strip()):
            column = int(m.group(1))
            break
    return column, lines[-1].strip() if lines else "malformed pass pipeline"


def _strip(spec: str) -> tuple[str, list[int]]:
    """The spec without anchors, and for each of its characters (and its end) the
    index in `spec` it came from."""
    removed: set[int] = set()
    for m in _ANCHOR.finditer(spec):
        if m.start() in removed:
            continue
        close = _matching_paren(spec, m.end() - 1, braces=True)
        if close is None:  # an unclosed `{` inside: its `)` may still close the anchor
            close = _matching_paren(spec, m.end() - 1, braces=False)
        if close is None:
            continue  # unbalanced: left for the parser to report
        removed.update(range(m.start(), m.end()))
        removed.add(close)
    kept = [i for i in range(len(spec)) if i not in removed]
    end = kept[-1] + 1 if kept else 0  # the end of the flat text: just after its last character
    return "".join(spec[i] for i in kept), kept + [end]


def _matching_paren(text: str, open_index: int, braces: bool) -> int | None:
    """The `)` closing the `(` at `open_index`, outside quotes (and, with `braces`,
    outside pass options)."""
    depth = 0
    quote: str | None = None
    level = 0  # of `{`
    for i in range(open_index, len(text)):
        c = text[i]
        if quote is not None:
            if c == quote and text[i - 1] != "\\":
                quote = None
        elif c in "\"'":
            quote = c
        elif braces and c == "{":
            level += 1
        elif braces and c == "}":
            level -= 1
        elif level == 0 and c == "(":
            depth += 1
        elif level == 0 and c == ")":
            depth -= 1
            if depth == 0:
                return i
    return None


def _pass_names(flat: str) -> list[int]:
    """The index of each pass name in a flat spec, in order."""
    blanked = re.sub(r"\{[^{}]*\}|\"(?:[^\"\\]|\\.)*\"", lambda m: " " * len(m.group(0)), flat)
    return [m.start(1) for m in re.finditer(r"(?:^|,)\s*([A-Za-z_][\w.\-]*)", blanked)]
