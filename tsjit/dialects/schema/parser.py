"""Reader for PyTorch's schema language (`aten::add.Tensor(Tensor self, ...) -> Tensor`).

It follows torch/csrc/jit/frontend/function_schema_parser.cpp and schema_type_parser.cpp:
alias annotations attach to a type and move into `contained` when the type becomes a
list element, lowercase names that are not builtin types are type variables, and
defaults are converted with the argument's type in mind (`int[2] stride=1` is `[1, 1]`).
"""

from __future__ import annotations

import math
import re
from typing import NamedTuple, NoReturn

from tsjit.dialects.schema.model import WILDCARD, AliasInfo, Argument, FunctionSchema, SchemaType, TypeKind
from tsjit.dialects.types import DTYPE_BY_NAME, DTYPE_BY_TORCH_NAME, TypeStringError


class SchemaParseError(ValueError):
    """A malformed schema; `column` (1-based) points at the problem."""

    def __init__(self, message: str, text: str, column: int):
        super().__init__(f"{message} at column {column} of schema '{text}'")
        self.text = text
        self.column = column


def parse_schema(text: str) -> FunctionSchema:
    """Parses one schema, e.g. `aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor`."""
    return _SchemaReader(text).schema()


_TOKEN = re.compile(
    r"""\s*(?:
      (?P<arrow>->)
    | (?P<dots>\.\.\.)
    | (?P<string>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')
    | (?P<number>(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?j?)
    | (?P<ident>[A-Za-z_][A-Za-z_0-9]*)
    | (?P<scope>::)
    | (?P<punct>[()\[\],.?!*|=-])
    )""",
    re.VERBOSE,
)

_GENERIC_TYPES = frozenset({"Dict", "Future", "Union", "RRef", "Await"})
_LOWERCASE_TYPES = frozenset({"int", "float", "bool", "str", "complex", "number"})
_STRING_ESCAPES = {"n": "\n", "t": "\t", "f": "\f", "v": "\v", "r": "\r", "a": "\a", "b": "\b", "0": "\0"}
_FLOAT_WORDS = {"inf": math.inf, "nan": math.nan}
_WORD_CONSTANTS: dict[str, object] = {"None": None, "True": True, "False": False}
# Enum spellings `native_functions.yaml` uses as defaults, and the ints they stand for.
_NAMED_DEFAULTS: dict[str, int] = {
    **{name: d.code for name, d in DTYPE_BY_TORCH_NAME.items()},
    **{name: d.code for name, d in DTYPE_BY_NAME.items()},
    "float": DTYPE_BY_NAME["Float"].code,
    "long": DTYPE_BY_NAME["Long"].code,
    "complex": DTYPE_BY_NAME["ComplexFloat"].code,
    "strided": 0,  # Layout
    "contiguous_format": 0,  # MemoryFormat
    "preserve_format": 1,
    "channels_last": 2,
    "channels_last_3d": 3,
    "Mean": 1,  # at::Reduction
}


class _Token(NamedTuple):
    kind: str
    text: str
    start: int
    end: int


class _SchemaReader:
    """Recursive descent over the tokens of one schema."""

    def __init__(self, text: str):
        self.text = text
        self.tokens = self._tokenize(text)
        self.i = 0

    def _tokenize(self, text: str) -> list[_Token]:
        tokens: list[_Token] = []
        pos = 0
        while (m := _TOKEN.match(text, pos)) is not None:
            kind = m.lastgroup or ""
            tokens.append(_Token(kind, m.group(kind), m.start(kind), m.end()))
            pos = m.end()
        rest = text[pos:].lstrip()
        if rest:
            self._fail(f"unexpected character '{rest[0]}'", len(text) - len(rest))
        tokens.append(_Token("end", "", len(text), len(text)))
        return tokens

    # -- token helpers -----------------------------------------------------------------
    def _fail(self, message: str, offset: int | None = None) -> NoReturn:
        if offset is None:
            offset = self.tokens[self.i].start
        raise SchemaParseError(message, self.text, offset + 1)

    @property
    def _cur(self) -> _Token:
        return self.tokens[self.i]

    def _at(self, text: str) -> bool:
        return self.tokens[self.i].text == text and self.tokens[self.i].kind != "string"

    def _eat(self, text: str) -> bool:
        if self._at(text):
            self.i += 1
            return True
        return False

    def _expect(self, text: str) -> _Token:
        if not self._at(text):
            self._fail(f"expected '{text}', found {self._describe()}")
        self.i += 1
        return self.tokens[self.i - 1]

    def _expect_kind(self, kind: str, what: str) -> _Token:
        if self._cur.kind != kind:
            self._fail(f"expected {what}, found {self._describe()}")
        self.i += 1
        return self.tokens[self.i - 1]

    def _describe(self) -> str:
        return "end of schema" if self._cur.kind == "end" else f"'{self._cur.text}'"

    # -- schema ------------------------------------------------------------------------
    def schema(self) -> FunctionSchema:
        name = self._expect_kind("ident", "an operator name").text
        if self._eat("::"):
            name += "::" + self._expect_kind("ident", "an operator name").text
        overload = self._expect_kind("ident", "an overload name").text if self._eat(".") else ""
        arguments, is_vararg = self._arguments()
        self._expect("->")
        returns, is_varret = self._returns()
        if self._cur.kind != "end":
            self._fail(f"unexpected {self._describe()} after the returns")
        return FunctionSchema(name, overload, tuple(arguments), tuple(returns), is_vararg, is_varret)

    def _arguments(self) -> tuple[list[Argument], bool]:
        arguments: list[Argument] = []
        kwarg_only = is_vararg = False
        self._expect("(")
        if self._eat(")"):
            return arguments, False
        while True:
            if is_vararg:
                self._fail("'...' must be the last argument")
            if self._eat("..."):
                is_vararg = True
            elif self._at("*"):
                if kwarg_only:
                    self._fail("a second '*'")
                self.i += 1
                kwarg_only = True
            else:
                arguments.append(self._argument(kwarg_only, is_return=False))
            if self._eat(")"):
                return arguments, is_vararg
            self._expect(",")

    def _returns(self) -> tuple[list[Argument], bool]:
        if self._eat("..."):
            return [], True
        if not self._eat("("):
            return [self._argument(False, is_return=True)], False
        returns: list[Argument] = []
        is_varret = False
        if self._eat(")"):
            return returns, False
        while True:
            if is_varret:
                self._fail("'...' must be the last return")
            if self._eat("..."):
                is_varret = True
            else:
                returns.append(self._argument(False, is_return=True))
            if self._eat(")"):
                return returns, is_varret
            self._expect(",")

    def _argument(self, kwarg_only: bool, is_return: bool) -> Argument:
        start = self._cur.start
        schema_type, alias = self._type()
        type_text = self.text[start : self.tokens[self.i - 1].end]
        if is_return:
            name = ""
            if self._cur.kind == "ident":
                name = self._cur.text
                self.i += 1
            return Argument(name, schema_type, type_text, alias)
        name = self._expect_kind("ident", "an argument name").text
        if not self._eat("="):
            return Argument(name, schema_type, type_text, alias, kwarg_only)
        default_start = self._cur.start
        default = self._default(schema_type)
        default_text = self.text[default_start : self.tokens[self.i - 1].end]
        return Argument(name, schema_type, type_text, alias, kwarg_only, default_text, default)

    # -- defaults ----------------------------------------------------------------------
    def _default(self, schema_type: SchemaType) -> object:
        target = schema_type.element if schema_type.kind is TypeKind.OPTIONAL else schema_type
        element = target.element if target.kind is TypeKind.LIST else target
        if self._eat("["):
            items: list[object] = []
            while not self._eat("]"):
                if items:
                    self._expect(",")
                items.append(self._constant(element))
            return tuple(items)
        value = self._constant(element)
        if target.kind is TypeKind.LIST and value is not None:
            return (value,) * (target.size or 1)  # `int[2] stride=1` means (1, 1)
        return value

    def _constant(self, schema_type: SchemaType) -> object:
        token = self._cur
        self.i += 1
        if token.kind == "string":
            return _unescape(token.text[1:-1])
        if token.kind == "ident" and token.text in _WORD_CONSTANTS:
            return _WORD_CONSTANTS[token.text]
        if token.kind == "ident" and token.text in _NAMED_DEFAULTS:
            return _NAMED_DEFAULTS[token.text]
        sign = 1
        if token.text == "-":
            sign, token = -1, self._cur
            self.i += 1
        if token.kind == "ident" and token.text in _FLOAT_WORDS:
            return sign * _FLOAT_WORDS[token.text]
        if token.kind == "ident":
            self._fail(f"unknown default value '{token.text}'", token.start)
        if token.kind != "number":
            self._fail("expected a default value", token.start)
        text = token.text
        if text.endswith("j"):
            return sign * complex(0, float(text[:-1]))
        if schema_type.name == "complex":
            return complex(sign * float(text))
        if schema_type.name in ("float", "SymFloat") or any(c in text for c in ".eE"):
            return sign * float(text)
        return sign * int(text)

    # -- types -------------------------------------------------------------------------
    def _type(self) -> tuple[SchemaType, AliasInfo | None]:
        schema_type, alias = self._primary_type()
        while True:
            if self._at("[") and self.tokens[self.i + 1].text == "]":
                self.i += 2
                schema_type, alias = self._list_of(schema_type, alias, None)
            elif self._at("[") and self.tokens[self.i + 1].kind == "number":
                self.i += 1
                size = self._expect_kind("number", "a list size").text
                if not size.isdigit():
                    self._fail(f"bad list size '{size}'", self.tokens[self.i - 1].start)
                self._expect("]")
                schema_type, alias = self._list_of(schema_type, alias, int(size))
            elif self._eat("?"):
                schema_type = SchemaType(TypeKind.OPTIONAL, elements=(schema_type,))
                alias = self._alias_annotation() or alias  # `Tensor?(a!)` spelling
            else:
                return schema_type, alias

    def _list_of(
        self, element: SchemaType, element_alias: AliasInfo | None, size: int | None
    ) -> tuple[SchemaType, AliasInfo | None]:
        container = self._alias_annotation()
        if element_alias is not None:
            if container is None:
                container = AliasInfo(is_write=element_alias.is_write)
            container = AliasInfo(
                container.before_sets,
                container.after_sets,
                container.is_write,
                (*container.contained, element_alias),
            )
        return SchemaType(TypeKind.LIST, elements=(element,), size=size), container

    def _primary_type(self) -> tuple[SchemaType, AliasInfo | None]:
        if self._eat("("):
            elements: list[SchemaType] = []
            aliases: list[AliasInfo | None] = []
            while not self._eat(")"):
                if elements:
                    self._expect(",")
                element, alias = self._type()
                elements.append(element)
                aliases.append(alias)
            alias = None
            if any(a is not None for a in aliases):
                alias = AliasInfo(contained=tuple(a or AliasInfo() for a in aliases))
            return SchemaType(TypeKind.TUPLE, elements=tuple(elements)), alias
        start = self._cur.start
        name = self._expect_kind("ident", "a type").text
        while self._at(".") and self.tokens[self.i + 1].kind == "ident":
            name += "." + self.tokens[self.i + 1].text
            self.i += 2
        if name in _GENERIC_TYPES and self._at("("):
            self.i += 1
            elements = [self._type()[0]]
            while self._eat(","):
                elements.append(self._type()[0])
            self._expect(")")
            return SchemaType(TypeKind.GENERIC, name, tuple(elements)), self._alias_annotation()
        if name[0].islower() and name not in _LOWERCASE_TYPES:
            return SchemaType(TypeKind.VARIABLE, name), self._alias_annotation()
        named = SchemaType(TypeKind.NAMED, name)
        try:
            named.torch_type  # noqa: B018 - checks the name now, where the error has a column
        except TypeStringError:
            self._fail(f"unknown type '{name}'", start)
        return named, self._alias_annotation()

    def _alias_annotation(self) -> AliasInfo | None:
        if not self._eat("("):
            return None
        before = self._alias_sets()
        is_write = self._eat("!")
        after = self._alias_sets() if self._eat("->") else before
        self._expect(")")
        return AliasInfo(before, after, is_write)

    def _alias_sets(self) -> frozenset[str]:
        sets: list[str] = []
        while True:
            if self._eat("*"):
                sets.append(WILDCARD)
            else:
                sets.append(self._expect_kind("ident", "an alias set").text)
            if not self._eat("|"):
                return frozenset(sets)


def _unescape(body: str) -> str:
    """The value of a quoted string's body (`\\n`, `\\"`, ... as in C)."""
    if "\\" not in body:
        return body
    return re.sub(r"\\(.)", lambda m: _STRING_ESCAPES.get(m.group(1), m.group(1)), body, flags=re.DOTALL)
