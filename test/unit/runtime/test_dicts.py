"""Dict kernels: insertion order, KeyError messages, views as lists, one kernel for all key types."""

from __future__ import annotations

import pytest

from tsjit.runtime.errors import TorchScriptError
from tsjit.runtime.kernels import lookup


def op(name):
    kernel = lookup(name)
    assert kernel is not None, name
    return kernel


def test_the_corpus_dict_program():
    d = {}
    for key, value in zip(["a", "b", "c"], [1, 2, 3]):
        op("aten::_set_item.str")(d, key, value)
    assert op("aten::get.default_str")(d, "a", -1) == 1 and op("aten::get.default_str")(d, "x", -1) == -1
    assert op("aten::__contains__.str")(d, "b") is True
    op("aten::_set_item.str")(d, "z", 26)
    assert op("aten::keys.str")(d) == ["a", "b", "c", "z"] and op("aten::values.str")(d) == [1, 2, 3, 26]
    assert op("aten::items.str")(d)[-1] == ("z", 26) and op("aten::len.Dict_str")(d) == 4


def test_key_errors():
    with pytest.raises(TorchScriptError, match="KeyError: x"):
        op("aten::__getitem__.Dict_str")({"a": 1}, "x")
    with pytest.raises(TorchScriptError, match="KeyError: 5"):
        op("aten::pop.Dict_int")({1: "a"}, 5)
    with pytest.raises(TorchScriptError, match="KeyError: 1.5"):
        op("aten::Delete.Dict_float")({}, 1.5)
    with pytest.raises(TorchScriptError, match="popitem\\(\\): dictionary is empty"):
        op("aten::popitem.int")({})


def test_mutation_and_copies():
    d = {1: "a"}
    assert op("aten::setdefault.int")(d, 2, "b") == "b" and op("aten::setdefault.int")(d, 1, "z") == "a"
    assert op("aten::pop.Dict_default_int")(d, 9, "none") == "none"
    op("aten::update.int")(d, {3: "c"})
    assert list(d.items()) == [(1, "a"), (2, "b"), (3, "c")]
    copy = op("aten::copy.Dict_int")(d)
    op("aten::Delete.Dict_int")(d, 1)
    assert 1 in copy and 1 not in d
    assert op("aten::popitem.int")(d) == (3, "c")
    op("aten::clear.int")(d)
    assert d == {}
    assert op("aten::dict.str")([("k", 1), ("j", 2)]) == {"k": 1, "j": 2} and op("aten::dict")() == {}


def test_tensor_keyed_dicts_have_no_kernels():
    assert lookup("aten::__getitem__.Dict_Tensor") is None
