"""Against PyTorch itself (optional: `pytest -m interop` with torch installed): PyTorch's
parser reads our export of every corpus graph as it reads the original.

`torch._C.parse_ir` cannot read some of what PyTorch prints: `Function` values,
nodes without outputs (` = prim::Loop(...)`), class types outside
`__torch__.torch.classes`, tensor constants with several elements. For graphs with
those, the test asks that our export meets only such limitations too.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tsjit.context import make_context
from tsjit.formats.torchscript_export import export_graph_text
from tsjit.formats.torchscript_text import import_graph_text

pytestmark = pytest.mark.interop

CORPUS = Path(__file__).resolve().parents[3].parent / "shared" / "conformance"
GRAPHS = sorted(CORPUS.glob("*/graph*.txt"))
PARSER_LIMITATIONS = re.compile(
    r"unknown type specifier"  # `%f : Function = ...`
    r"|expected ident but found '=' here"  # a node without outputs
    r"|Expected classes namespace but got"  # `__torch__.source.Model`
    r"|expected \] but found 'number' here"  # ` 7  7 [ CPUFloatType{2} ]`
)


def parse_ir(text: str) -> tuple[str | None, str | None]:
    """PyTorch's print of its parse of `text`, or the first line of its error."""
    torch = pytest.importorskip("torch")
    try:
        return str(torch._C.parse_ir(text)), None
    except RuntimeError as e:
        return None, str(e).strip().splitlines()[0]


@pytest.mark.parametrize("path", GRAPHS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_pytorch_reads_our_graph_text_as_the_original(path: Path):
    text = path.read_text()
    exported = export_graph_text(import_graph_text(make_context(), text, str(path)))
    expected, limitation = parse_ir(text)
    printed, error = parse_ir(exported)
    if limitation is None:
        assert error is None and printed == expected
    else:
        assert PARSER_LIMITATIONS.search(limitation), limitation
        assert error is None or PARSER_LIMITATIONS.search(error), error
