"""The syntax of PyTorch's graph text: a reader from text to a small tree of graphs,
nodes, blocks and attribute values, with exact positions for every error.

    graph(%x.1 : Tensor,
          %n.1 : int):
      %3 : int = prim::Constant[value=0]() # source.py:5:11
      %4 : bool = aten::gt(%n.1, %3) # source.py:5:7
      %y : Tensor = prim::If(%4) # source.py:5:4
        block0():
          -> (%x.1)
        block1():
          %y.1 : Tensor = aten::neg(%x.1)
          -> (%y.1)
      return (%y)
    with prim::FusionGroup_0 = graph(...)     # subgraph of a `prim::FusionGroup_0(...)` node

The reader knows syntax only; `torchscript_text` gives the tree its meaning as IR.
It scans with compiled regular expressions at the current position instead of a token
list, so a 10,000-node graph is read in one pass without per-node re-scans.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from tsjit.diagnostics import SourceLocation, TsjitError
from tsjit.dialects.types import OpaqueType, TorchType, TypeStringError, parse_torchscript_type

# --------------------------------------------------------------------------------------
# The tree
# --------------------------------------------------------------------------------------


@dataclass(slots=True)
class ValueDef:
    """`%name : Type` where a value is defined (graph input, block parameter, output)."""

    name: str
    type: TorchType
    offset: int


@dataclass(slots=True)
class ValueUse:
    """`%name` where a value is used."""

    name: str
    offset: int


@dataclass(slots=True)
class TensorLiteral:
    """A tensor attribute as PyTorch prints it: `{2.5}` (one element, shape and dtype
    from the value's type) or ` 1  2 [ CPULongType{2} ]` (values in row-major order)."""

    values: list[int | float]
    dtype: str | None  # ScalarType name from `CPUFloatType`, None for `{v}`
    device: str | None  # "cpu", "cuda" from the backend prefix
    sizes: tuple[int, ...] | None  # None for `{v}`


@dataclass(slots=True)
class DictLiteral:
    """`{"a": 1., "b": 2.}`: a dict constant's entries in order (keys as read: the
    constant's type decides what `1` means)."""

    items: list[tuple[object, object]]


@dataclass(slots=True)
class Attribute:
    """`name=value` in a node's `[...]`. Values are int, float, bool, str, None, lists
    and tuples of those, TensorLiteral, or a TorchType (`types=[Float(2), int]`)."""

    name: str
    value: object
    offset: int


@dataclass(slots=True)
class Block:
    """A node's `blockN(params):` ... `-> (returns)`, or a graph's body."""

    params: list[ValueDef]
    nodes: list[Node]
    returns: list[ValueUse]
    offset: int
    return_offset: int = 0


@dataclass(slots=True)
class Node:
    """`%a : T, %b : U = ns::kind[attrs](inputs) # file:line:col` and its blocks."""

    kind: str
    outputs: list[ValueDef]
    inputs: list[ValueUse]
    attributes: list[Attribute]
    blocks: list[Block]
    source: tuple[str, int, int] | None  # the trailing `# file:line:col`
    offset: int
    kind_offset: int
    subgraph: Graph | None = None  # from `with ns::kind = graph(...)`


@dataclass(slots=True)
class Graph:
    """`graph(inputs): nodes return (outputs)` plus its `with` subgraph definitions,
    already attached to the nodes that use them."""

    body: Block
    offset: int


class Source:
    """The text being read, for turning offsets into `file:line:col` diagnostics."""

    def __init__(self, text: str, filename: str, line_offset: int = 0):
        self.text = text
        self.filename = filename
        self.line_offset = line_offset
        self._line_starts: list[int] | None = None

    def location(self, offset: int) -> SourceLocation:
        line, col = self.line_col(offset)
        return SourceLocation(self.filename, line + self.line_offset, col)

    def line_col(self, offset: int) -> tuple[int, int]:
        """1-based line and column of an offset within the text."""
        if self._line_starts is None:
            self._line_starts = [0] + [m.end() for m in re.finditer("\n", self.text)]
        index = bisect.bisect_right(self._line_starts, offset) - 1
        return index + 1, offset - self._line_starts[index] + 1

    def line_text(self, offset: int) -> str:
        start = self.text.rfind("\n", 0, offset) + 1
        end = self.text.find("\n", offset)
        return self.text[start : len(self.text) if end < 0 else end]

    def error(self, message: str, offset: int) -> TsjitError:
        offset = min(offset, len(self.text))
        return TsjitError(message, self.location(offset), self.line_text(offset))


def parse_graph_text(source: Source) -> Graph:
    """Reads one graph and its subgraphs; raises TsjitError at the first problem."""
    return _Reader(source).read()


# --------------------------------------------------------------------------------------
# The reader
# --------------------------------------------------------------------------------------

_SKIP = re.compile(r"(?:\s+|#[^\n]*)*")
_VALUE = re.compile(r"%([A-Za-z0-9_.]+)")
_KIND = re.compile(r"([A-Za-z_]\w*)::([A-Za-z_]\w*)")
_IDENT = re.compile(r"[A-Za-z_]\w*")
_BLOCK = re.compile(r"block\d+\b")
_TRAILING_COMMENT = re.compile(r"[ \t]*#[ \t]*([^\n]*)")
_SOURCE_RANGE = re.compile(r"(.+):(\d+):(\d+)\s*$")
_SIMPLE_TYPE = re.compile(r"[A-Za-z_][\w.]*(?:\[\]|\?)*(?=\s*[,)=\]\n])")
_NUMBER = re.compile(r"[-+]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|inf\b|nan\b)")
_SCALAR_TENSOR = re.compile(r"\{\s*[-+]?(?:[\d.]|inf\b|nan\b)[^:}]*\}")
"""`{2.5}` (a one-element tensor), not `{"a": 1}` or `{1: 2}` (a dict)."""
_TENSOR = re.compile(r"([^\[\]\"'\n]*?)\[ (CPU|CUDA|MPS|XPU|HIP|Meta)?(\w+?)Type\{([\d,]*)\} \]")
_STRING = re.compile(r""""((?:[^"\\\n]|\\.)*)"|'((?:[^'\\\n]|\\.)*)'""")
_ESCAPE = re.compile(r"\\([0-7]{1,3}|x[0-9a-fA-F]{2}|.)")
_SIMPLE_ESCAPES = {
    "\\": "\\",
    "'": "'",
    '"': '"',
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
}
_GRAPH_ONLY_TYPES: dict[str, TorchType] = {"Function": OpaqueType("Function")}
"""Types graph text has and TorchScript's type strings do not (a callee's type)."""
_UNPRINTED = ("<Tensor>", "[<Tensors>]", "<Graph>", "[<Graphs>]")
_CLOSERS = {"(": ")", "[": "]", "{": "}"}
GROUP_KIND = re.compile(r"_\d+$")
"""The `_N` of a node kind that names a subgraph node (`prim::FusionGroup_0`)."""
_WORD = re.compile(r"%?[\w.:]+|\S")


class _Reader:
    """Recursive descent over the text; `pos` is the offset of the next character."""

    def __init__(self, source: Source):
        self.source = source
        self.text = source.text
        self.pos = 0
        self.types: dict[str, TorchType] = {}

    # -- entry --------------------------------------------------------------------------

    def read(self) -> Graph:
        self.skip()
        graph = self.graph()
        self.skip()
        if self.pos < len(self.text):
            raise self.fail(f"unexpected {self.found()} after the graph")
        return graph

    def graph(self) -> Graph:
        start = self.pos
        self.keyword("graph")
        self.expect("(")
        params = self.value_defs(")", "graph input")
        self.expect(":")
        nodes = self.nodes("return")
        return_offset = self.pos
        self.keyword("return")
        self.expect("(")
        returns = self.value_uses()
        self.skip()
        if self.text.startswith(";", self.pos):  # the JIT overview's `return (%30);`
            self.pos += 1
        graph = Graph(Block(params, nodes, returns, start, return_offset), start)
        self.subgraphs(graph)
        return graph

    def subgraphs(self, graph: Graph) -> None:
        """`with ns::Kind_N = graph(...)` clauses that define the subgraph of the
        graph's `ns::Kind_N` nodes, in the order the nodes appear (nested blocks too)."""
        pending = [n for n in _walk(graph.body.nodes) if GROUP_KIND.search(n.kind)]
        while pending:
            self.skip()
            start = self.pos
            if (
                not self.text.startswith("with", self.pos)
                or _IDENT.match(self.text, self.pos).group() != "with"
            ):
                return
            self.pos += 4
            self.skip()
            kind = self.kind()
            owner = next((n for n in pending if n.kind == kind), None)
            if owner is None:
                self.pos = start  # a `with` of an enclosing graph
                return
            self.expect("=")
            self.skip()
            owner.subgraph = self.graph()
            pending.remove(owner)

    # -- nodes and blocks ---------------------------------------------------------------

    def nodes(self, terminator: str) -> list[Node]:
        nodes: list[Node] = []
        text = self.text
        while True:
            self.skip()
            pos = self.pos
            if pos >= len(text):
                raise self.fail(f"unexpected end of input: expected a node or '{terminator}'")
            if text.startswith(terminator, pos):
                return nodes
            char = text[pos]
            if char == "%" or char == "=":
                nodes.append(self.node())
            elif terminator == "->" and text.startswith("return", pos):
                raise self.fail("expected '->' to end the block before 'return'")
            else:
                raise self.fail(f"expected a node or '{terminator}', found {self.found()}")

    def node(self) -> Node:
        start = self.pos
        outputs = self.value_defs("=", "node output") if self.text[start] == "%" else []
        self.expect("=")
        self.skip()
        kind_offset = self.pos
        kind = self.kind()
        attributes = self.attributes() if self.text.startswith("[", self.pos) else []
        self.expect("(")
        inputs = self.value_uses()
        source = self.trailing_source_range()
        blocks: list[Block] = []
        while True:
            self.skip()
            if not _BLOCK.match(self.text, self.pos):
                break
            blocks.append(self.block())
        return Node(kind, outputs, inputs, attributes, blocks, source, start, kind_offset)

    def block(self) -> Block:
        start = self.pos
        self.pos = _BLOCK.match(self.text, self.pos).end()
        self.expect("(")
        params = self.value_defs(")", "block parameter")
        self.expect(":")
        nodes = self.nodes("->")
        return_offset = self.pos
        self.pos += 2
        self.expect("(")
        returns = self.value_uses()
        return Block(params, nodes, returns, start, return_offset)

    def kind(self) -> str:
        match = _KIND.match(self.text, self.pos)
        if match is None:
            raise self.fail(f"expected an operator kind 'namespace::name', found {self.found()}")
        self.pos = match.end()
        return match.group()

    def trailing_source_range(self) -> tuple[str, int, int] | None:
        """A `# file:line:col` comment on the node's own line."""
        match = _TRAILING_COMMENT.match(self.text, self.pos)
        if match is None:
            return None
        self.pos = match.end()
        where = _SOURCE_RANGE.match(match.group(1))
        return None if where is None else (where.group(1), int(where.group(2)), int(where.group(3)))

    # -- values -------------------------------------------------------------------------

    def value_defs(self, end: str, what: str) -> list[ValueDef]:
        """`%a : T, %b : U` up to (and for `)` including) `end`."""
        defs: list[ValueDef] = []
        self.skip()
        if self.text.startswith(end, self.pos):
            if end == ")":
                self.pos += 1
            return defs
        while True:
            self.skip()
            offset = self.pos
            match = _VALUE.match(self.text, offset)
            if match is None:
                raise self.fail(f"expected a {what} '%name', found {self.found()}")
            self.pos = match.end()
            self.skip()
            if self.text.startswith(":", self.pos):
                self.pos += 1
                value_type = self.type()
            else:
                value_type = self.cached_type("Tensor", offset)  # PyTorch's default
            defs.append(ValueDef(match.group(1), value_type, offset))
            self.skip()
            if self.text.startswith(",", self.pos):
                self.pos += 1
                continue
            if self.text.startswith(end, self.pos):
                if end == ")":
                    self.pos += 1
                return defs
            raise self.fail(f"expected ',' or '{end}' after {what} '%{match.group(1)}', found {self.found()}")

    def value_uses(self) -> list[ValueUse]:
        """`%a, %b)` after an opening parenthesis."""
        uses: list[ValueUse] = []
        text = self.text
        self.skip()
        if text.startswith(")", self.pos):
            self.pos += 1
            return uses
        while True:
            self.skip()
            match = _VALUE.match(text, self.pos)
            if match is None:
                raise self.fail(f"expected a value '%name', found {self.found()}")
            uses.append(ValueUse(match.group(1), self.pos))
            self.pos = match.end()
            self.skip()
            char = text[self.pos : self.pos + 1]
            self.pos += 1
            if char == ")":
                return uses
            if char != ",":
                self.pos -= 1
                raise self.fail(f"expected ',' or ')' after '%{match.group(1)}', found {self.found()}")

    # -- types --------------------------------------------------------------------------

    def type(self) -> TorchType:
        self.skip()
        start = self.pos
        match = _SIMPLE_TYPE.match(self.text, start)
        end = match.end() if match is not None else self.type_end(start)
        self.pos = end
        return self.cached_type(self.text[start:end].rstrip(), start)

    def type_end(self, start: int) -> int:
        """End of a type with brackets: the first `,` `)` `=` `]` outside them."""
        text = self.text
        stack: list[tuple[str, int]] = []
        pos = start
        while pos < len(text):
            char = text[pos]
            if char in "([{":
                stack.append((_CLOSERS[char], pos))
            elif char in ")]}":
                if not stack:
                    return pos
                closer, _ = stack.pop()
                if char != closer:
                    raise self.source.error(f"expected '{closer}' in type, found '{char}'", pos)
            elif char == "\n" or (not stack and char in ",="):
                break
            pos += 1
        if stack:
            closer, opened = stack[-1]
            raise self.source.error(f"unbalanced '{text[opened]}' in type: no matching '{closer}'", opened)
        if pos == start:
            raise self.fail(f"expected a type, found {self.found()}")
        return pos

    def cached_type(self, text: str, offset: int) -> TorchType:
        known = self.types.get(text) or _GRAPH_ONLY_TYPES.get(text)
        if known is None:
            try:
                known = parse_torchscript_type(text)
            except TypeStringError as e:
                message = str(e).split(" at column ")[0]
                raise self.source.error(f"bad type '{text}': {message}", offset) from None
            self.types[text] = known
        return known

    # -- attributes ---------------------------------------------------------------------

    def attributes(self) -> list[Attribute]:
        self.pos += 1  # `[`
        attributes: list[Attribute] = []
        while True:
            self.skip()
            offset = self.pos
            name = _IDENT.match(self.text, offset)
            if name is None:
                raise self.fail(f"expected an attribute name, found {self.found()}")
            self.pos = name.end()
            self.expect("=")
            attributes.append(Attribute(name.group(), self.attribute_value(), offset))
            self.skip()
            if self.text.startswith(",", self.pos):
                self.pos += 1
                continue
            self.expect("]")
            return attributes

    def attribute_value(self) -> object:
        """One value: string, number, tensor, list, tuple, dict, bool, None, type, or
        an empty container with its type (`annotate(List[int], [])`)."""
        text = self.text
        tensor = _TENSOR.match(text, self.pos)
        if tensor is not None:
            return self.tensor_literal(tensor)
        self.skip()
        pos = self.pos
        char = text[pos : pos + 1]
        if char in ('"', "'"):
            return self.string()
        if char == "{":
            return self.scalar_tensor() if _SCALAR_TENSOR.match(text, pos) else self.dict_literal()
        if text.startswith(_UNPRINTED, pos):
            printed = next(u for u in _UNPRINTED if text.startswith(u, pos))
            raise self.fail(f"attribute value '{printed}' has no printed contents and cannot be read back")
        if char == "[":
            self.pos += 1
            return self.sequence("]")
        if char == "(":
            self.pos += 1
            return tuple(self.sequence(")"))
        number = _NUMBER.match(text, pos)
        if number is not None:
            self.pos = number.end()
            return _number(number.group())
        word = _IDENT.match(text, pos)
        if word is not None and word.group() in ("True", "False", "None"):
            self.pos = word.end()
            return {"True": True, "False": False, "None": None}[word.group()]
        if word is not None and word.group() == "annotate" and text.startswith("(", word.end()):
            return self.annotated(word.end() + 1)
        if word is None:
            raise self.fail(f"unknown attribute value kind starting with {self.found()}")
        return self.type()

    def annotated(self, start: int) -> object:
        """`annotate(List[int], [])`, PyTorch's spelling of an empty list constant: the
        value (the node's type says the rest)."""
        self.pos = self.type_end(start)
        self.expect(",")
        value = self.attribute_value()
        self.skip()
        self.expect(")")
        return value

    def sequence(self, close: str) -> list[object]:
        items: list[object] = []
        self.skip()
        if self.text.startswith(close, self.pos):
            self.pos += 1
            return items
        while True:
            items.append(self.attribute_value())
            self.skip()
            if self.text.startswith(",", self.pos):
                self.pos += 1
                continue
            self.expect(close)
            return items

    def dict_literal(self) -> DictLiteral:
        """`{key: value, ...}`, keys and values attribute values."""
        self.pos += 1  # `{`
        items: list[tuple[object, object]] = []
        self.skip()
        while not self.text.startswith("}", self.pos):
            if items:
                self.expect(",")
            key = self.attribute_value()
            self.expect(":")
            items.append((key, self.attribute_value()))
            self.skip()
        self.pos += 1
        return DictLiteral(items)

    def string(self) -> str:
        match = _STRING.match(self.text, self.pos)
        if match is None:
            raise self.fail("unterminated string literal")
        body = match.group(1) if match.group(1) is not None else match.group(2)
        offset = self.pos + 1
        self.pos = match.end()
        if "\\" not in body:
            return body
        data = bytearray()
        last = 0
        for escape in _ESCAPE.finditer(body):
            data += body[last : escape.start()].encode()
            code = escape.group(1)
            if code[0] in "01234567":
                data.append(int(code, 8) & 0xFF)
            elif code[0] == "x" and len(code) == 3:
                data.append(int(code[1:], 16))
            elif code in _SIMPLE_ESCAPES:
                data += _SIMPLE_ESCAPES[code].encode()
            else:
                raise self.source.error(
                    f"unknown escape sequence '\\{code}' in string", offset + escape.start()
                )
            last = escape.end()
        data += body[last:].encode()
        return data.decode("utf-8", errors="surrogateescape")

    def scalar_tensor(self) -> TensorLiteral:
        """`{2}`, `{-1.5}`: a one-element tensor."""
        self.pos += 1
        self.skip()
        number = _NUMBER.match(self.text, self.pos)
        if number is None:
            raise self.fail(f"expected a number in tensor literal, found {self.found()}")
        self.pos = number.end()
        self.expect("}")
        return TensorLiteral([_number(number.group())], None, None, None)

    def tensor_literal(self, match: re.Match[str]) -> TensorLiteral:
        """` 1  2  3  4 [ CPULongType{2,2} ]`, with PyTorch's optional common scale
        (`0.001 *  1.0000  2.0000`) and slice headers (`(1,.,.) =`)."""
        body = re.sub(r"\(\d+(?:,(?:\d+|\.))*\)\s*=", " ", match.group(1)).split()
        scale = 1.0
        if len(body) >= 2 and body[1] == "*":
            scale = float(body[0])
            body = body[2:]
        values: list[int | float] = []
        offset = self.pos
        for word in body:
            if _NUMBER.fullmatch(word) is None:
                raise self.source.error(f"bad tensor element '{word}'", offset + match.group(1).find(word))
            value = _number(word)
            values.append(value * scale if scale != 1.0 else value)
        sizes = tuple(int(s) for s in match.group(4).split(",") if s)
        backend = (match.group(2) or "CPU").lower()
        self.pos = match.end()
        return TensorLiteral(values, match.group(3), backend, sizes)

    # -- small helpers ------------------------------------------------------------------

    def skip(self) -> None:
        self.pos = _SKIP.match(self.text, self.pos).end()

    def expect(self, token: str) -> None:
        self.skip()
        if not self.text.startswith(token, self.pos):
            if self.pos >= len(self.text):
                raise self.fail(f"unexpected end of input: expected '{token}'")
            raise self.fail(f"expected '{token}', found {self.found()}")
        self.pos += len(token)

    def keyword(self, word: str) -> None:
        self.skip()
        match = _IDENT.match(self.text, self.pos)
        if match is None or match.group() != word:
            if self.pos >= len(self.text):
                raise self.fail(f"unexpected end of input: expected '{word}'")
            raise self.fail(f"expected '{word}', found {self.found()}")
        self.pos = match.end()

    def found(self) -> str:
        """The text at the current position, for error messages."""
        if self.pos >= len(self.text):
            return "end of input"
        return f"'{_WORD.match(self.text, self.pos).group()}'"

    def fail(self, message: str) -> TsjitError:
        return self.source.error(message, self.pos)


def _number(text: str) -> int | float:
    if text.lstrip("+-") in ("inf", "nan"):
        return float(text)
    if any(c in text for c in ".eE"):
        return float(text)
    return int(text)


def _walk(nodes: list[Node]):
    """Nodes in print order, nested blocks included."""
    for node in nodes:
        yield node
        for block in node.blocks:
            yield from _walk(block.nodes)


__all__ = [
    "GROUP_KIND",
    "Attribute",
    "Block",
    "Graph",
    "Node",
    "Source",
    "TensorLiteral",
    "ValueDef",
    "ValueUse",
    "parse_graph_text",
]
