"""PyTorch's graph text in and out: the whole conformance corpus round-trips, and the
reader's corner cases (numbers, strings, tensors, types, subgraphs, errors)."""

from __future__ import annotations

import io
import re
import math
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.printer import Printer

from tsjit.context import make_context
from tsjit.diagnostics import TsjitError
from tsjit.dialects import types as ts
from tsjit.dialects.prim import ConstantOp
from tsjit.formats import read_program
from tsjit.formats.torchscript_export import export_graph_text, torchscript_float, torchscript_string
from tsjit.formats.torchscript_syntax import Source, TensorLiteral, parse_graph_text
from tsjit.formats.torchscript_text import import_graph_text

CORPUS = Path(__file__).resolve().parents[3].parent / "shared" / "conformance"
GRAPHS = sorted(CORPUS.glob("*/graph*.txt"))
CTX = make_context()


def ir(module: ModuleOp) -> str:
    """The module as MLIR, source locations included: what 'the same IR' means here.
    (A node without a source comment is located at its line of the text, which
    printing the graph anew moves.)"""
    out = io.StringIO()
    Printer(stream=out, print_debuginfo=True).print_op(module)
    return re.sub(r'loc\("[^"]*"\("[^"]*":\d+:\d+\)\)', "loc(graph text)", out.getvalue())


def load(text: str, name: str = "g.txt") -> ModuleOp:
    return import_graph_text(CTX, text, name)


def constants(module: ModuleOp) -> list[object]:
    return [op.python_value for op in module.walk() if isinstance(op, ConstantOp)]


def test_the_corpus_is_there():
    assert len({p.parent for p in GRAPHS}) >= 47 and len(GRAPHS) >= 100


@pytest.mark.parametrize("path", GRAPHS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_corpus_graph_round_trips(path: Path):
    module = load(path.read_text(), str(path))  # verified while imported
    text = export_graph_text(module)
    again = load(text, str(path))
    assert ir(again) == ir(module)
    assert export_graph_text(again) == text


def test_ts_opt_reader_takes_graph_text_after_comments():
    module = read_program(CTX, "# a comment\n\ngraph(%x : int):\n  return (%x)\n", "g.txt")
    assert isinstance(module.body.block.first_op, func.FuncOp)


# -- numbers and strings ------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, value",
    [
        ("1.", 1.0),
        ("-0.", -0.0),
        ("1.0000000000000001e-05", 1e-05),
        ("10000000000000000", 1e16),
        ("1e+100", 1e100),
        ("inf", math.inf),
        ("-inf", -math.inf),
        ("0.10000000000000001", 0.1),
    ],
)
def test_float_constants_read_pytorch_spelling(text: str, value: float):
    (read,) = constants(load(f"graph():\n  %c : float = prim::Constant[value={text}]()\n  return (%c)\n"))
    assert read == value and math.copysign(1, read) == math.copysign(1, value)
    assert torchscript_float(value) == text


def test_nan_constant():
    (read,) = constants(load("graph():\n  %c : float = prim::Constant[value=nan]()\n  return (%c)\n"))
    assert math.isnan(read)


@pytest.mark.parametrize(
    "value",
    [
        "",
        "plain",
        'quote " and \\ backslash',
        "tab\tnewline\n\r\a\b\f\v",
        "\x01\x7f",
        "é and 中文",
        "'single'",
    ],
)
def test_strings_round_trip_through_pytorch_escapes(value: str):
    text = f"graph():\n  %c : str = prim::Constant[value={torchscript_string(value)}]()\n  return (%c)\n"
    assert constants(load(text)) == [value]


def test_octal_escapes_are_utf8_bytes():
    text = 'graph():\n  %c : str = prim::Constant[value="caf\\303\\251"]()\n  return (%c)\n'
    assert constants(load(text)) == ["café"]


def test_bool_and_list_constants_follow_the_type():
    text = (
        "graph():\n"
        "  %b : bool = prim::Constant[value=1]()\n"
        "  %l : bool[] = prim::Constant[value=[True, False]]()\n"
        "  %f : float[] = prim::Constant[value=[1, 2.5]]()\n"
        '  %t : (int, str) = prim::Constant[value=(1, "a")]()\n'
        "  return (%b, %l, %f, %t)\n"
    )
    assert constants(load(text)) == [True, [True, False], [1.0, 2.5], (1, "a")]


# -- tensors --------------------------------------------------------------------------------


def tensor_constant(value_type: str, literal: str) -> np.ndarray:
    (array,) = constants(
        load(f"graph():\n  %t : {value_type} = prim::Constant[value={literal}]()\n  return (%t)\n")
    )
    return array


def test_scalar_tensor_takes_dtype_and_shape_from_the_type():
    array = tensor_constant("Float(1, strides=[1], requires_grad=0, device=cpu)", "{1.5}")
    assert array.dtype == np.float32 and array.shape == (1,) and array[0] == 1.5
    assert tensor_constant("Double(requires_grad=0, device=cpu)", "{1}").dtype == np.float64
    untyped = tensor_constant("Tensor", "{-3}")
    assert untyped.dtype == np.int64 and untyped.shape == ()


def test_printed_tensor_forms():
    scaled = tensor_constant("Float(2)", "0.001 *  1.0000  2.0000 [ CPUFloatType{2} ]")
    np.testing.assert_allclose(scaled, [0.001, 0.002])
    sliced = tensor_constant("Tensor", "(1,.,.) =   1  2  (2,.,.) =   3  4 [ CPULongType{2,1,2} ]")
    assert sliced.tolist() == [[[1, 2]], [[3, 4]]]
    special = tensor_constant("Tensor", "nan inf -inf [ CPUDoubleType{3} ]")
    assert np.isnan(special[0]) and special[1] == np.inf and special[2] == -np.inf
    assert tensor_constant("Tensor", "[ CPUFloatType{2,0} ]").shape == (2, 0)
    assert tensor_constant("Tensor", " 1  0 [ CPUBoolType{2} ]").tolist() == [True, False]


@pytest.mark.parametrize(
    "dtype, values",
    [
        ("float32", [0.1, -2.5, 1e-30]),
        ("float64", [0.1, 1 / 3, -0.0]),
        ("float16", [0.1, 65504.0]),
        ("int8", [-128, 127]),
        ("uint8", [0, 255]),
        ("int64", [-(2**63), 2**63 - 1]),
        ("bool", [True, False]),
    ],
)
def test_tensor_constants_round_trip_exactly(dtype: str, values: list[object]):
    array = np.array(values, dtype=dtype).reshape(1, len(values))
    function = func.FuncOp("forward", ((), (ts.TensorType(),)))
    constant = ConstantOp.from_value(array, ts.TensorType())
    function.body.block.add_ops([constant, func.ReturnOp(constant.result)])
    back = constants(load(export_graph_text(function)))[0]
    assert back.dtype == array.dtype and back.shape == array.shape
    assert back.tobytes() == array.tobytes()


# -- the reader -----------------------------------------------------------------------------


def test_types_with_brackets_and_defaults():
    graph = parse_graph_text(
        Source("graph(%a : Float(2, 3, strides=[3, 1], device=cuda:0),\n      %b):\n  return (%a)\n", "g")
    )
    a, b = graph.body.params
    assert a.type == ts.TensorType(ts.f32, [2, 3], "cuda:0", None, [3, 1])
    assert b.type == ts.TensorType()  # PyTorch's default for an untyped input


def test_attribute_values_keep_their_kind():
    node = '   = foo::bar[i=1, f=1., s="x", l=[1, 2], t=(1, "a"), ty=int[], n=None, v={2}]()'
    graph = parse_graph_text(Source(f"graph():\n{node}\n  return ()\n", "g"))
    values = {a.name: a.value for a in graph.body.nodes[0].attributes}
    assert values == {
        "i": 1, "f": 1.0, "s": "x", "l": [1, 2], "t": (1, "a"),
        "ty": ts.ListType(ts.IntType()), "n": None, "v": TensorLiteral([2], None, None, None),
    }  # fmt: skip
    assert isinstance(values["f"], float) and isinstance(values["i"], int)


NESTED_GROUPS = """graph(%x : Tensor):
  %y : Tensor = prim::DifferentiableGraph_0(%x)
  %z : Tensor = prim::FusionGroup_1(%y)
  return (%z)
with prim::DifferentiableGraph_0 = graph(%a : Tensor):
  %b : Tensor = prim::FusionGroup_0(%a)
  return (%b)
with prim::FusionGroup_0 = graph(%c : Tensor):
  %d : Tensor = aten::neg(%c)
  return (%d)
with prim::FusionGroup_1 = graph(%e : Tensor):
  %f : Tensor = aten::relu(%e)
  return (%f)
"""


def test_subgraph_numbering_restarts_in_each_graph():
    module = load(NESTED_GROUPS)
    names = [op.name for op in module.walk()]
    assert names.count("prim.FusionGroup") == 2 and names.count("prim.DifferentiableGraph") == 1
    assert "aten.neg" in names and "aten.relu" in names
    assert export_graph_text(module) == NESTED_GROUPS


def test_a_kind_ending_in_a_number_is_an_op_without_its_with_clause():
    module = load("graph(%x : int):\n  %y : int = aten::my_op_0(%x)\n  return (%y)\n")
    assert [op.name for op in module.walk()][2] == "aten.my_op_0"


def test_values_are_block_scoped_and_names_unique():
    text = (
        "graph(%c : bool):\n"
        "  %y : int = prim::If(%c)\n"
        "    block0():\n"
        "      %t : int = prim::Constant[value=1]()\n"
        "      -> (%t)\n"
        "    block1():\n"
        "      %t : int = prim::Constant[value=2]()\n"
        "      -> (%t)\n"
        "  return (%y)\n"
    )
    with pytest.raises(TsjitError, match=r"g.txt:7:7: redefinition of '%t' \(first defined at 4:7\)"):
        load(text)


def test_errors_name_the_position_with_a_line_offset():
    with pytest.raises(TsjitError) as error:
        import_graph_text(CTX, "graph(%x : int):\n  return (%q)\n", "chunk.txt", line_offset=10)
    assert str(error.value) == "chunk.txt:12:11: use of undefined value '%q'"
    assert error.value.format().splitlines()[1:] == ["  return (%q)", "          ^"]


def test_callee_declaration_takes_the_arguments_of_every_call():
    """A Union parameter takes values of its members as they are in PyTorch's graph:
    the declaration joins the calls' types and casts the arguments to them."""
    text = (
        "graph(%x : Tensor, %n : int):\n"
        '  %f : Function = prim::Constant[name="g"]()\n'
        "  %a : Tensor = prim::CallFunction(%f, %x)\n"
        "  %b : Tensor = prim::CallFunction(%f, %n)\n"
        "  return (%b)\n"
    )
    module = load(text)
    declared = next(op for op in module.ops if isinstance(op, func.FuncOp) and op.sym_name.data == "g")
    assert [str(t) for t in declared.function_type.inputs] == ["!ts.union<!ts.tensor, !ts.int>"]
    casts = [op for op in module.walk() if op.name == "prim.unchecked_cast"]
    assert [str(c.operands[0].type) for c in casts] == ["!ts.tensor", "!ts.int"]


def test_callee_declaration_needs_one_result_type():
    text = (
        "graph(%x : Tensor, %n : int):\n"
        '  %f : Function = prim::Constant[name="g"]()\n'
        "  %a : Tensor = prim::CallFunction(%f, %x)\n"
        "  %b : int = prim::CallFunction(%f, %x)\n"
        "  return (%b)\n"
    )
    earlier = r"but an earlier call used \(Tensor\) -> \(Tensor\)"
    with pytest.raises(TsjitError, match=r"g.txt:4:14: call of 'g' with types \(Tensor\) -> \(int\) " + earlier):
        load(text)


def test_entry_names_the_function():
    module = import_graph_text(CTX, "graph(%x : int):\n  return (%x)\n", "g.txt", entry="main")
    (function,) = module.ops
    assert isinstance(function, func.FuncOp) and function.sym_name.data == "main"
    assert export_graph_text(module, "main") == "graph(%x : int):\n  return (%x)\n"


def test_empty_list_constants_read_and_print_as_pytorch_prints_them():
    text = (
        "graph(%x : Tensor):\n"
        "  %l : int[] = prim::Constant[value=annotate(List[int], [])]()\n"
        "  return (%l)\n"
    )
    module = import_graph_text(make_context(), text, "g.txt")
    (constant,) = [op for op in module.walk() if isinstance(op, ConstantOp)]
    assert constant.python_value == []
    assert "prim::Constant[value=annotate(List[int], [])]()" in export_graph_text(module)


DICT_CONSTANTS = (
    "graph(%x : Tensor):\n"  # as PyTorch 2.13 prints them (Graph.insertConstant of each dict)
    '  %1 : Dict(str, int) = prim::Constant[value={"a": 1, "b": 2}]()\n'
    "  %2 : Dict(int, float) = prim::Constant[value={1: 2.5}]()\n"
    '  %3 : Dict(str, int[]) = prim::Constant[value={"k": [1, 2]}]()\n'
    '  %4 : Dict(str, (int, int)) = prim::Constant[value={"a": (1, 2)}]()\n'
    '  %5 : Dict(str, Tensor) = prim::Constant[value={"a": {1}}]()\n'
    '  %k : str = prim::Constant[value="b"]()\n'
    "  %one : int = prim::Constant[value=1]()\n"
    "  %b : int = aten::__getitem__(%1, %k)\n"
    "  %y : Tensor = aten::add(%x, %b, %one)\n"
    "  %r : (Tensor, Dict(int, float), Dict(str, int[]), Dict(str, (int, int)), Dict(str, Tensor)) = "
    "prim::TupleConstruct(%y, %2, %3, %4, %5)\n"
    "  return (%r)\n"
)


@pytest.mark.parametrize("backend, pipeline", [("interp", ()), ("llvm", None)])
def test_dict_constants_run(backend: str, pipeline: tuple[str, ...] | None):
    import tsjit

    module = load(DICT_CONSTANTS)
    run = tsjit.compile(module, "forward", backend=backend, pipeline=pipeline)
    y, floats, lists, tuples, tensors = run(np.array([1.0, 2.0], np.float32))
    assert y.tolist() == [3.0, 4.0]
    assert floats == {1: 2.5} and lists == {"k": [1, 2]} and tuples == {"a": (1, 2)}
    assert list(tensors) == ["a"] and tensors["a"].tolist() == 1 and tensors["a"].dtype == np.int64
