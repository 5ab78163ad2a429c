"""Mutations of program text: what a fuzzer does to valid programs to make inputs nobody
wrote for tsjit.

A mutation is a small edit that keeps most of the program intact (so that the input
gets past the first line of the reader) and aims at what readers get wrong: deleted,
duplicated or swapped spans and lines, tokens of other programs spliced in, numbers
replaced by extreme ones, brackets left open, strings left unterminated, nesting made
deep. `mutate(text, rng, dictionary)` applies one to four of them; the same seed gives
the same input.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence

TOKEN = re.compile(r'"[^"\n]*"|[A-Za-z_][\w.:]*|%[\w.]+|-?\d+(?:\.\d+)?(?:e-?\d+)?|\S')

SYNTAX = list("()[]{}<>,:;=%\"'\\!@#$.-_+*/?^&|~`\n\t ") + ["->", "::", "[]", "()", "...", "%%", "\\n", "\\x"]
EXTREME_NUMBERS = [
    "0", "-1", "1", "-0.0", "0.0", "2", "-2", "255", "256", "65536", "2147483647", "2147483648",
    "9223372036854775807", "9223372036854775808", "-9223372036854775809", "18446744073709551616",
    "1e308", "1e309", "-1e309", "1e-320", "nan", "inf", "-inf", "1.5", "0.5", "3.4028235e38",
    "100000000000000000000000000000", "0x10", "1_000", "00", "-",
]  # fmt: skip
ODD_TEXT = ["\u00e9", "\u2603", "\U0001f600", "\x00", "\x7f", "\u200b", "\ufeff", "\r\n", "\r", "\\", "\\\\"]


def dictionary(seeds: Sequence[str]) -> list[str]:
    """The distinct tokens of the seed programs: spliced into others as mutations."""
    tokens: set[str] = set()
    for text in seeds:
        tokens.update(TOKEN.findall(text))
    return sorted(tokens)


def mutate(text: str, rng: random.Random, tokens: Sequence[str]) -> str:
    """`text` with one to four mutations."""
    for _ in range(rng.choice((1, 1, 1, 2, 2, 3, 4))):
        text = rng.choice(MUTATORS)(text, rng, tokens)
    return text


def _span(text: str, rng: random.Random, longest: int = 20) -> tuple[int, int]:
    start = rng.randrange(len(text) + 1)
    return start, min(len(text), start + rng.randint(1, longest))


def _delete_span(text: str, rng: random.Random, tokens: Sequence[str]) -> str:
    start, end = _span(text, rng)
    return text[:start] + text[end:]


def _duplicate_span(text: str, rng: random.Random, tokens: Sequence[str]) -> str:
    start, end = _span(text, rng, 60)
    return text[:end] + text[start:end] + text[end:]


def _insert_syntax(text: str, rng: random.Random, tokens: Sequence[str]) -> str:
    at = rng.randrange(len(text) + 1)
    return text[:at] + rng.choice(SYNTAX) * rng.choice((1, 1, 1, 2, 3)) + text[at:]


def _insert_token(text: str, rng: random.Random, tokens: Sequence[str]) -> str:
    at = rng.randrange(len(text) + 1)
    return text[:at] + rng.choice(tokens) + rng.choice(("", " ", ", ")) + text[at:]


def _replace_token(text: str, rng: random.Random, tokens: Sequence[str]) -> str:
    found = list(TOKEN.finditer(text))
    if not found:
        return text
    match = rng.choice(found)
    return text[: match.start()] + rng.choice(tokens) + text[match.end() :]


def _replace_number(text: str, rng: random.Random, tokens: Sequence[str]) -> str:
    found = list(re.finditer(r"-?\d+(?:\.\d+)?(?:e-?\d+)?", text))
    if not found:
        return _insert_token(text, rng, EXTREME_NUMBERS)
    match = rng.choice(found)
    return text[: match.start()] + rng.choice(EXTREME_NUMBERS) + text[match.end() :]


def _line_edit(text: str, rng: random.Random, tokens: Sequence[str]) -> str:
    lines = text.split("\n")
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    match rng.randrange(4):
        case 0:
            del lines[i]
        case 1:
            lines.insert(i, lines[j])
        case 2:
            lines[i], lines[j] = lines[j], lines[i]
        case _:
            lines[i] = " " * rng.randint(0, 6) + lines[i].lstrip()
    return "\n".join(lines)


def _truncate(text: str, rng: random.Random, tokens: Sequence[str]) -> str:
    return text[: rng.randrange(len(text) + 1)]


def _unterminated(text: str, rng: random.Random, tokens: Sequence[str]) -> str:
    at = rng.randrange(len(text) + 1)
    quote = rng.choice(('"', "'", '"""', "'''"))
    return text[:at] + quote + "a" * rng.randint(0, 60) + text[at:]


def _nest(text: str, rng: random.Random, tokens: Sequence[str]) -> str:
    """A span wrapped in many brackets, or a type nested many levels."""
    depth = rng.choice((50, 300, 1100, 3000, 6000))
    at = rng.randrange(len(text) + 1)
    opener, closer = rng.choice((("(", ")"), ("[", "]"), ("!ts.list<", ">"), ("List[", "]"), ("-", ""), ("not ", "")))
    middle = rng.choice(tokens) if tokens else "x"
    return text[:at] + opener * depth + middle + closer * depth + text[at:]


def _odd_text(text: str, rng: random.Random, tokens: Sequence[str]) -> str:
    at = rng.randrange(len(text) + 1)
    return text[:at] + rng.choice(ODD_TEXT) + text[at:]


def _flip_bytes(text: str, rng: random.Random, tokens: Sequence[str]) -> str:
    chars = list(text)
    for _ in range(rng.randint(1, 4)):
        if chars:
            i = rng.randrange(len(chars))
            chars[i] = chr(rng.choice((rng.randrange(32, 127), rng.randrange(0, 0x3000))))
    return "".join(chars)


MUTATORS: tuple[Callable[[str, random.Random, Sequence[str]], str], ...] = (
    _delete_span, _duplicate_span, _insert_syntax, _insert_syntax, _insert_token, _replace_token,
    _replace_token, _replace_number, _replace_number, _line_edit, _line_edit, _truncate, _unterminated,
    _nest, _odd_text, _flip_bytes,
)  # fmt: skip
