"""Strings: TorchScript's printing of values and tensors, format/%-format, str methods.

Expected strings are what TorchScript's `str()` returned in PyTorch 2.13.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from tsjit.runtime.errors import TorchScriptError
from tsjit.runtime.kernels import lookup
from tsjit.runtime.kernels.strings import format_tensor, format_value
from tsjit.runtime.values import CPU

f32, f64, i64 = np.float32, np.float64, np.int64


def op(name):
    kernel = lookup(name)
    assert kernel is not None, name
    return kernel


@pytest.mark.parametrize(
    "value, text",
    [
        (1.0, "1."),
        (-2.0, "-2."),
        (-0.0, "0."),
        (1e17, "100000000000000000."),
        (0.1, "0.10000000000000001"),
        (1e-5, "1.0000000000000001e-05"),
        (1 / 3, "0.33333333333333331"),
        (1.2345678901234567e19, "1.2345678901234567e+19"),
        (1e20, "1e+20"),
        (math.inf, "inf"),
        (math.nan, "nan"),
        (5e-324, "4.9406564584124654e-324"),
        (-1.5, "-1.5"),
        (True, "True"),
        (None, "None"),
        (3, "3"),
        ("s", "s"),
        ([1.0, 0.5, 1e20], "[1., 0.5, 1e+20]"),
        ([], "[]"),
        (["a", "b'"], "[a, b']"),
        ([1, None], "[1, None]"),
        ((1,), "(1,)"),
        ((), "()"),
        ((1, 2.0), "(1, 2.)"),
        ({"a": 1, "b": 2}, "{a: 1, b: 2}"),
        ([(2, "x")], "[(2, x)]"),
        (CPU, "cpu"),
    ],
)
def test_format_value(value, text):
    assert format_value(value) == text


@pytest.mark.parametrize(
    "tensor, text",
    [
        (np.array([1.0, 2.5], f32), " 1.0000\n 2.5000\n[ CPUFloatType{2} ]"),
        (np.array(3, i64), "3\n[ CPULongType{} ]"),
        (np.array(2.5, f32), "2.5\n[ CPUFloatType{} ]"),
        (np.array(1e-7, f32), "1.0000000116860974e-07\n[ CPUFloatType{} ]"),
        (np.array(0.1, f32), "0.10000000149011612\n[ CPUFloatType{} ]"),
        (np.array([[1, 2], [3, 4]], i64), " 1  2\n 3  4\n[ CPULongType{2,2} ]"),
        (np.array([0.1, 123.456], f32), "   0.1000\n 123.4560\n[ CPUFloatType{2} ]"),
        (np.array([1e-5, 1.0], f32), " 1.0000e-05\n 1.0000e+00\n[ CPUFloatType{2} ]"),
        (np.array([1e10, 1.0], f32), " 1.0000e+10\n 1.0000e+00\n[ CPUFloatType{2} ]"),
        (np.array([True, False]), " 1\n 0\n[ CPUBoolType{2} ]"),
        (np.zeros(0, f32), "[ CPUFloatType{0} ]"),
        (np.zeros((2, 0), f32), "[ CPUFloatType{2,0} ]"),
        (np.array([1.0, np.nan, np.inf], f32), " 1\nnan\ninf\n[ CPUFloatType{3} ]"),
        (np.array([-1.0, 2.0], f32), "-1\n 2\n[ CPUFloatType{2} ]"),
        (np.array([1, 2], np.int32), " 1\n 2\n[ CPUIntType{2} ]"),
        (np.array([1.5], f64), " 1.5000\n[ CPUDoubleType{1} ]"),
        (np.array([1.5], np.float16), " 1.5000\n[ CPUHalfType{1} ]"),
        (np.array([123456.5, 1.5], f32), " 1.2346e+05\n 1.5000e+00\n[ CPUFloatType{2} ]"),
        (np.array([0.001234, 0.002], f32), "0.001 *\n 1.2340\n 2.0000\n[ CPUFloatType{2} ]"),
        (np.array([1e-5, 1e-6], f32), "1e-06 *\n10.0000\n 1.0000\n[ CPUFloatType{2} ]"),
        (np.array([1234567.0], f32), "1.23457e+06\n[ CPUFloatType{1} ]"),
        (np.array([np.inf, 1e-100], f32), "inf\n 0\n[ CPUFloatType{2} ]"),
        (np.array([np.inf, 1.5], f32), "    inf\n 1.5000\n[ CPUFloatType{2} ]"),
        (
            np.arange(8).reshape(2, 2, 2),
            "(1,.,.) = \n 0  1\n  2  3\n\n(2,.,.) = \n 4  5\n  6  7\n[ CPULongType{2,2,2} ]",
        ),
        (
            np.broadcast_to(np.array([[1, 2], [3, 4]])[None, :, None, :], (2, 2, 2, 2)).copy(),
            "(1,1,.,.) = \n 1  2\n  1  2\n\n(2,1,.,.) = \n 1  2\n  1  2\n\n(1,2,.,.) = \n 3  4\n  3  4\n\n"
            "(2,2,.,.) = \n 3  4\n  3  4\n[ CPULongType{2,2,2,2} ]",
        ),
        (
            np.arange(30, dtype=f32).reshape(1, 30) + 0.5,
            "Columns 1 to 8  0.5000   1.5000   2.5000   3.5000   4.5000   5.5000   6.5000   7.5000\n\n"
            "Columns 9 to 16  8.5000   9.5000  10.5000  11.5000  12.5000  13.5000  14.5000  15.5000\n\n"
            "Columns 17 to 24 16.5000  17.5000  18.5000  19.5000  20.5000  21.5000  22.5000  23.5000\n\n"
            "Columns 25 to 30 24.5000  25.5000  26.5000  27.5000  28.5000  29.5000\n[ CPUFloatType{1,30} ]",
        ),
        (
            np.arange(30).reshape(2, 15) * 1000,
            "Columns 1 to 11     0   1000   2000   3000   4000   5000   6000   7000   8000   9000  10000\n"
            " 15000  16000  17000  18000  19000  20000  21000  22000  23000  24000  25000\n\n"
            "Columns 12 to 15 11000  12000  13000  14000\n 26000  27000  28000  29000\n[ CPULongType{2,15} ]",
        ),
        (
            np.full((2, 12), 5e6, f64),
            "Columns 1 to 8   5e+06    5e+06    5e+06    5e+06    5e+06    5e+06    5e+06    5e+06\n"
            "   5e+06    5e+06    5e+06    5e+06    5e+06    5e+06    5e+06    5e+06\n\n"
            "Columns 9 to 12   5e+06    5e+06    5e+06    5e+06\n   5e+06    5e+06    5e+06    5e+06\n"
            "[ CPUDoubleType{2,12} ]",
        ),
    ],
)
def test_tensor_printing_matches_pytorch(tensor, text):
    assert format_tensor(tensor) == text


def test_str_and_format():
    assert (
        op("aten::str")(2.0) == "2."
        and op("aten::str")([np.array([1.5], f32)]) == "[ 1.5000\n[ CPUFloatType{1} ]]"
    )
    assert op("aten::format")("{}:{}", "abc", 3) == "abc:3"
    assert op("aten::format")("{} {} {}", None, {"a": 1.0}, [1.0, 2.0]) == "None {a: 1.} [1., 2.]"
    assert op("aten::format")("a{0}b{x}{:.2f}", 1) == "a{0}b{x}{:.2f}"  # only {} is replaced
    assert op("aten::format")("a{}b", 1, 2) == "a1b"
    with pytest.raises(TorchScriptError, match="Too few arguments for format string: a{}b{}"):
        op("aten::format")("a{}b{}", 1)
    assert op("aten::percentFormat")("%d %s %f", (1, "s", 2.5)) == "1 s 2.500000"
    assert op("aten::percentFormat")("%d%%", (5,)) == "5%"


def test_print_and_warn(capsys):
    op("prim::Print")(np.array([1.5], f32), 3, 2.0, "s", [1, 2], (1, 2.5))
    op("aten::warn")("careful", 2)
    captured = capsys.readouterr()
    assert captured.out == " 1.5000\n[ CPUFloatType{1} ] 3 2. s [1, 2] (1, 2.5)\n"
    assert captured.err == "UserWarning: careful\n"


def test_string_methods():
    s = " banana "
    assert op("aten::strip")(s, " \n\t\f\v") == "banana" and op("aten::lstrip")("xxa", "x") == "a"
    assert op("aten::strip")(" \r\tx\r\n ", " \n\t\f\v") == "\r\tx\r"  # '\r' is not in the default set
    assert op("aten::replace")(s, "a", "b", 1) == " bbnana " and op("aten::upper")("abc") == "ABC"
    assert op("aten::split.str")("a b  c\nd", None, -1) == ["a", "b", "c", "d"]
    assert op("aten::split.str")("x,y,z", ",", -1) == ["x", "y", "z"] and op("aten::split.str")(
        "", ",", -1
    ) == [""]
    assert op("aten::rsplit")("a b c", " ", 1) == ["a b", "c"]
    assert op("aten::join")("-", ["a", "b"]) == "a-b" and op("aten::center")("x", 5, "*") == "**x**"
    assert op("aten::partition")("a b", " ") == ("a", " ", "b") and op("aten::zfill")("7", 3) == "007"
    with pytest.raises(
        TorchScriptError, match="TypeError: The fill character must be exactly one character long"
    ):
        op("aten::center")("x", 5, "ab")


def test_find_uses_torchscript_end_convention():
    s = "abcabc"
    assert op("aten::find")(s, "c", 0, -1) == 2 and op("aten::rfind")(s, "c", 0, -1) == 5
    assert op("aten::count")(s, "c", 0, -1) == 2 and op("aten::count")(s, "c", 0, 3) == 1
    assert op("aten::find")(s, "c", -3, -1) == 5 and op("aten::endswith")(s, "c", 0, -1) is True
    with pytest.raises(TorchScriptError, match="ValueError: substring not found"):
        op("aten::index.str")(s, "z", 0, -1)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("aten::find", [1, 4, -1, 4]),
        ("aten::rfind", [4, 4, -1, 4]),
        ("aten::count", [2, 1, 0, 1]),
        ("aten::startswith", [False, False, False, True]),
        ("aten::endswith", [True, True, False, True]),
    ],
)
def test_searches_over_torchscript_ranges(name, expected):
    # "bc" in "abcabc", "abc" (start 3, end -1: to the end), "a" and "bc" (4 to 6)
    ranges = [(0, -1), (3, -1), (0, 1), (4, 6)]
    assert [op(name)("abcabc", "bc", start, end) for start, end in ranges] == expected


def test_index_and_rindex_raise_where_find_gives_minus_one():
    assert op("aten::index.str")("abcabc", "b", 2, -1) == 4 and op("aten::rindex")("abcabc", "b", 0, 3) == 1
    for name in ("aten::index.str", "aten::rindex"):
        with pytest.raises(TorchScriptError, match="ValueError: substring not found"):
            op(name)("abcabc", "b", 5, -1)


def test_strip_and_justify_families():
    assert op("aten::lstrip")(" \tab \n", " \n\t\f\v") == "ab \n"
    assert op("aten::rstrip")(" \tab \n", " \n\t\f\v") == " \tab"
    assert op("aten::rstrip")("abxx", "x") == "ab"
    assert op("aten::ljust")("ab", 4, "*") == "ab**" and op("aten::rjust")("ab", 4, "*") == "**ab"
    assert op("aten::center")("ab", 1, "*") == "ab"
    for name in ("aten::ljust", "aten::rjust"):
        with pytest.raises(TorchScriptError, match="The fill character must be exactly one character long"):
            op(name)("ab", 4, "")
    assert [op(f"aten::{base}")(10) for base in ("hex", "oct", "bin")] == ["0xa", "0o12", "0b1010"]


def test_indexing_and_characters():
    assert (
        op("aten::__getitem__.str")("hello", -1) == "o"
        and op("aten::slice.str")("hello", None, None, -1) == "olleh"
    )
    with pytest.raises(
        TorchScriptError, match="basic_string::at: __n \\(which is 10\\) >= this->size\\(\\) \\(which is 3\\)"
    ):
        op("aten::__getitem__.str")("abc", 10)
    assert op("aten::ord")("a") == 97 and op("aten::chr")(97) == "a" and op("aten::hex")(97) == "0x61"
    with pytest.raises(TorchScriptError, match="String for ord\\(\\) must be 1 character, found 2"):
        op("aten::ord")("ab")
    with pytest.raises(TorchScriptError, match="chr\\(\\) arg not in range\\(0x110000\\), found -1"):
        op("aten::chr")(-1)
    assert op("aten::len.str")("abc") == 3 and op("aten::add.str")("a", "b") == "ab"
    assert op("aten::lt.str")("a", "b") is True and op("aten::list")("ab") == ["a", "b"]
    assert op("aten::isdigit")("123") is True and op("aten::isupper")("Ab") is False
