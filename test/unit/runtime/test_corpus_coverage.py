"""Every operator the conformance corpus uses has a kernel.

Three views of the corpus: node kinds read textually (a new case with a new operator fails
here even if the importer cannot read it), the overloads PyTorch's `Node.schema()` gave
(pinned below), and the overloads tsjit's own importer and overload resolution pick.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tsjit.context import make_context
from tsjit.dialects.aten import schema_of
from tsjit.formats.torchscript_text import import_graph_text
from tsjit.runtime.kernels import KERNELS, lookup

CORPUS = Path(__file__).resolve().parents[3].parent / "shared" / "conformance"
GRAPH_FILES = ("graph.txt", "graph.inlined.txt", "graph.opt.txt")

# Nodes the interpreter executes itself: constants, control flow, calls and objects.
INTERPRETER_KINDS = frozenset(
    {
        "prim::Constant",
        "prim::If",
        "prim::Loop",
        "prim::CallFunction",
        "prim::CallMethod",
        "prim::GetAttr",
        "prim::SetAttr",
        "prim::CreateObject",
        "prim::Enter",
        "prim::Exit",
    }
)

# The overloads the corpus nodes resolve to (PyTorch 2.13's Node.schema()).
CORPUS_OVERLOADS = (
    "aten::Bool.Tensor",
    "aten::Float.Scalar",
    "aten::__and__.Tensor",
    "aten::__and__.bool",
    "aten::__contains__.str",
    "aten::__derive_index",
    "aten::__getitem__.Dict_str",
    "aten::__getitem__.t",
    "aten::__is__",
    "aten::__isnot__",
    "aten::__not__",
    "aten::__range_length",
    "aten::_set_item.str",
    "aten::_set_item.t",
    "aten::abs",
    "aten::add.Scalar",
    "aten::add.Tensor",
    "aten::add.float",
    "aten::add.int",
    "aten::add.str",
    "aten::add_.Scalar",
    "aten::addmm",
    "aten::append.t",
    "aten::arange",
    "aten::argmax",
    "aten::bmm",
    "aten::cat",
    "aten::ceil.float",
    "aten::chunk",
    "aten::clamp",
    "aten::clone",
    "aten::contiguous",
    "aten::copy_",
    "aten::dim",
    "aten::div",
    "aten::div.Scalar",
    "aten::div.Tensor",
    "aten::div.float",
    "aten::div.int",
    "aten::eq.Tensor",
    "aten::eq.int",
    "aten::eq.str",
    "aten::exp",
    "aten::exp.float",
    "aten::fabs.float",
    "aten::floor.float",
    "aten::floordiv.float",
    "aten::floordiv.int",
    "aten::format",
    "aten::full",
    "aten::ge.Scalar",
    "aten::ge.int",
    "aten::get.default_str",
    "aten::gt.Scalar",
    "aten::gt.Tensor",
    "aten::gt.int",
    "aten::items.str",
    "aten::keys.str",
    "aten::le.int",
    "aten::len.Dict_str",
    "aten::len.str",
    "aten::len.t",
    "aten::linear",
    "aten::log",
    "aten::log.float",
    "aten::log_softmax.int",
    "aten::lt.Scalar",
    "aten::lt.int",
    "aten::masked_fill.Scalar",
    "aten::matmul",
    "aten::max",
    "aten::max.dim",
    "aten::mean",
    "aten::mean.dim",
    "aten::mm",
    "aten::mul.Scalar",
    "aten::mul.Tensor",
    "aten::mul.float",
    "aten::mul.float_int",
    "aten::mul.int",
    "aten::mul_.Scalar",
    "aten::mul_.Tensor",
    "aten::ne.Scalar",
    "aten::ne.bool",
    "aten::ne.int",
    "aten::neg",
    "aten::neg.int",
    "aten::ones",
    "aten::ones_like",
    "aten::permute",
    "aten::pow.Scalar",
    "aten::pow.Tensor_Scalar",
    "aten::pow.int",
    "aten::reciprocal",
    "aten::relu",
    "aten::relu_",
    "aten::remainder.float",
    "aten::remainder.int",
    "aten::reshape",
    "aten::rsqrt",
    "aten::select.int",
    "aten::sigmoid",
    "aten::sin.float",
    "aten::size",
    "aten::size.int",
    "aten::slice.Tensor",
    "aten::slice.t",
    "aten::softmax.int",
    "aten::split.Tensor",
    "aten::split.sizes",
    "aten::split.str",
    "aten::sqrt",
    "aten::sqrt.float",
    "aten::squeeze",
    "aten::squeeze.dim",
    "aten::stack",
    "aten::str",
    "aten::sub.Scalar",
    "aten::sub.Tensor",
    "aten::sub.float",
    "aten::sub.int",
    "aten::sub_.Tensor",
    "aten::sum",
    "aten::sum.dim_IntList",
    "aten::t",
    "aten::tanh",
    "aten::tensor.float",
    "aten::to.dtype",
    "aten::transpose.int",
    "aten::unsqueeze",
    "aten::upper",
    "aten::values.str",
    "aten::view",
    "aten::warn",
    "aten::where.self",
    "aten::zeros",
    "aten::zeros_like",
    "prim::RaiseException",
    "prim::TupleUnpack",
    "prim::Uninitialized",
    "prim::abs.float",
    "prim::device",
    "prim::dtype",
    "prim::unchecked_cast",
)

_NODE_KIND = re.compile(r"(?:=|^)\s*([a-z_]+::[A-Za-z0-9_]+)[\[(]", re.MULTILINE)


def corpus_kinds() -> dict[str, str]:
    """Every node kind in the corpus graphs, with one case that uses it."""
    kinds: dict[str, str] = {}
    for path in sorted(CORPUS.glob("*/graph*.txt")):
        if path.name in GRAPH_FILES:
            for kind in _NODE_KIND.findall(path.read_text()):
                kinds.setdefault(kind, path.parent.name)
    return kinds


def test_corpus_is_present():
    assert len(corpus_kinds()) > 50, f"no conformance corpus at {CORPUS}"


def test_every_corpus_node_kind_has_a_kernel():
    overload_bases = {name.split(".")[0] for name in KERNELS}
    missing = {
        kind: case
        for kind, case in corpus_kinds().items()
        if kind not in INTERPRETER_KINDS and kind not in overload_bases
    }
    assert not missing


@pytest.mark.parametrize("overload", CORPUS_OVERLOADS)
def test_every_corpus_overload_has_a_kernel(overload):
    assert lookup(overload) is not None


def test_every_overload_tsjit_resolves_in_the_corpus_has_a_kernel():
    missing = set()
    for path in sorted(CORPUS.glob("*/graph*.txt")):
        module = import_graph_text(make_context(), path.read_text(), str(path))
        for op in module.walk():
            schema = schema_of(op)
            if schema is not None and lookup(schema.qualified_name) is None:
                missing.add((schema.qualified_name, path.parent.name))
    assert not missing


def test_lookup_of_an_unknown_operator_is_none():
    assert lookup("aten::frobnicate") is None and lookup("aten::add.no_such_overload") is None
