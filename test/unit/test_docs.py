"""The IR examples in the README and docs/ parse and verify: the docs stay true."""

import pathlib
import re

import pytest

from tsjit.context import make_context
from tsjit.formats.mlir import parse_mlir, verify

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCKS = [
    pytest.param(block, id=f"{doc.name}-{i}")
    for doc in DOCS
    for i, block in enumerate(re.findall(r"```mlir\n(.*?)```", doc.read_text(), re.S))
]


def test_docs_have_ir_examples():
    assert len(BLOCKS) >= 2


@pytest.mark.parametrize("block", BLOCKS)
def test_ir_example_verifies(block):
    module = parse_mlir(make_context(), block, "doc.mlir")
    verify(module)
