"""constant-propagation's mechanisms that its lit tests do not show: the scalar values
kept on constants."""

from __future__ import annotations

from tsjit.dialects.prim import ConstantOp, constant_attr
from tsjit.dialects.types import IntType, ListType
from tsjit.transforms.constant_propagation import constant_value


def test_a_constants_scalar_value_is_read_once_and_follows_a_new_value():
    constant = ConstantOp.from_value(2, IntType())
    assert constant_value(constant) == 2
    assert "_tsjit_constant_value" in constant.__dict__
    constant.properties["value"] = constant_attr(5, IntType())
    assert constant_value(constant) == 5


def test_a_lists_value_is_read_anew_each_time():
    """A kernel may change the list it is given: each fold gets a list of its own."""
    constant = ConstantOp.from_value([1, 2], ListType(IntType()))
    first = constant_value(constant)
    assert isinstance(first, list)
    first.append(3)
    assert constant_value(constant) == [1, 2]
    assert "_tsjit_constant_value" not in constant.__dict__
