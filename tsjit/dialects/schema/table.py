"""The operator schema table (`schemas.txt`, written by scripts/generate_schema_table.py).

Thousands of schemas must not be parsed when tsjit starts: the file is read and indexed
by operator name on first use, and a name's schemas are parsed when someone asks for
them.
"""

from __future__ import annotations

import functools
from pathlib import Path

from tsjit.dialects.schema.model import FunctionSchema
from tsjit.dialects.schema.parser import parse_schema

TABLE_PATH = Path(__file__).with_name("schemas.txt")


class SchemaTable:
    """Schema strings grouped by operator name (`aten::add`), in file order."""

    def __init__(self, path: Path):
        self.path = path
        self._parsed: dict[str, tuple[FunctionSchema, ...]] = {}

    @functools.cached_property
    def _contents(self) -> tuple[str, dict[str, tuple[str, ...]]]:
        """The header line and the schema lines grouped by operator name."""
        header, *lines = self.path.read_text(encoding="utf-8").splitlines()
        index: dict[str, list[str]] = {}
        for line in lines:
            name = line[: line.index("(")].partition(".")[0]
            index.setdefault(name, []).append(line)
        return header, {name: tuple(group) for name, group in index.items()}

    @property
    def _lines(self) -> dict[str, tuple[str, ...]]:
        return self._contents[1]

    @property
    def torch_version(self) -> str:
        """The PyTorch release the table was taken from."""
        return self._contents[0].split("torch ", 1)[1].split(":", 1)[0]

    def schemas_for(self, name: str) -> tuple[FunctionSchema, ...]:
        """All overloads of `name` (`aten::add`) in table order; empty if unknown."""
        if (schemas := self._parsed.get(name)) is None:
            schemas = tuple(parse_schema(line) for line in self._lines.get(name, ()))
            self._parsed[name] = schemas
        return schemas

    def has_operator(self, name: str) -> bool:
        return name in self._lines

    def operator_names(self) -> tuple[str, ...]:
        return tuple(self._lines)

    @functools.cached_property
    def namespaces(self) -> frozenset[str]:
        return frozenset(name.partition("::")[0] for name in self._lines)

    def schema_strings(self) -> tuple[str, ...]:
        """Every schema line, unparsed, in file order."""
        return tuple(line for group in self._lines.values() for line in group)


TABLE = SchemaTable(TABLE_PATH)


def schemas_for(name: str) -> tuple[FunctionSchema, ...]:
    """All overloads of the operator `name` ("aten::add"), in table order."""
    return TABLE.schemas_for(name)


def has_operator(name: str) -> bool:
    return TABLE.has_operator(name)


def all_operator_names() -> tuple[str, ...]:
    return TABLE.operator_names()
