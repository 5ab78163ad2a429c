"""Overload choice and argument conversion: what the frontend emits for a call."""

from __future__ import annotations

import pytest
from xdsl.dialects import func
from xdsl.ir import Operation

from tsjit.diagnostics import TsjitError
from tsjit.dialects import aten
from tsjit.dialects.types import BoolType, FloatType, IntType, ListType, NumberType, TensorType
from tsjit.frontend.script import script_file_text


def operators(body: str, params: str = "x, n: int, f: float") -> list[Operation]:
    """The operator ops of `def forward(params): body` in order."""
    source = f"import torch\nimport math\n\n\ndef forward({params}):\n" + "".join(
        f"    {line}\n" for line in body.splitlines()
    )
    function = next(
        op for op in script_file_text(source, "calls.py").module.ops if isinstance(op, func.FuncOp)
    )
    return [op for op in function.walk() if isinstance(op, aten.OperatorOp)]


def single(body: str, name: str, params: str = "x, n: int, f: float") -> Operation:
    found = [op for op in operators(body, params) if op.name == name]
    assert len(found) == 1, [op.name for op in operators(body, params)]
    return found[0]


def schema_name(op: Operation) -> str:
    schema = aten.schema_of(op)
    assert schema is not None
    return schema.qualified_name


@pytest.mark.parametrize(
    ("expression", "overload", "result"),
    [
        ("n + n", "aten::add.int", IntType()),
        ("f + f", "aten::add.float", FloatType()),
        ("n + f", "aten::add.int_float", FloatType()),
        ("x + x", "aten::add.Tensor", TensorType()),
        ("x + n", "aten::add.Scalar", TensorType()),
        ("n / n", "aten::div.int", FloatType()),
        ("n ** 2", "aten::pow.int", FloatType()),
        ("n < f", "aten::lt.int_float", BoolType()),
    ],
)
def test_the_most_specific_overload_is_chosen(expression: str, overload: str, result: object):
    op = operators(f"return {expression}")[-1]
    assert schema_name(op) == overload
    assert op.results[0].type == result


def test_a_dtype_argument_selects_to_dtype_not_to_prim_dtype():
    op = single("return x.to(torch.float64)", "aten.to")
    assert schema_name(op) == "aten::to.dtype"
    assert len(op.operands) == 5  # self, dtype, non_blocking, copy, memory_format


def test_view_of_one_int_is_a_size_not_a_dtype():
    op = single("return x.view(3)", "aten.view")
    assert schema_name(op) == "aten::view"
    assert op.operands[1].type == ListType(IntType())


def test_a_single_int_fills_int_n():
    op = single("return x.sum(1)", "aten.sum")
    assert schema_name(op) == "aten::sum.dim_IntList"
    assert op.operands[1].type == ListType(IntType())


def test_trailing_ints_pack_into_a_list():
    op = single("return torch.zeros(2, n)", "aten.zeros")
    size = op.operands[0].owner
    assert size.name == "prim.ListConstruct" and len(size.operands) == 2


def test_keyword_only_arguments_are_bound_by_name():
    op = single("return torch.add(x, x, alpha=n)", "aten.add")
    assert op.operands[2] is op.parent_block().parent_op().body.block.args[1]


def test_defaults_become_constants_of_their_types():
    op = single("return torch.softmax(x, 1)", "aten.softmax")
    dtype = op.operands[2].owner
    assert dtype.name == "prim.Constant" and dtype.python_value is None


def test_a_tensor_is_implicitly_a_number_where_only_numbers_fit():
    source = "import torch\ndef half(a: float) -> float:\n    return a / 2\ndef forward(x):\n    return half(x.sum())\n"
    module = script_file_text(source, "calls.py").module
    forward = next(op for op in module.ops if isinstance(op, func.FuncOp) and op.sym_name.data == "forward")
    implicit = [op for op in forward.walk() if op.name == "aten.FloatImplicit"]
    assert len(implicit) == 1 and implicit[0].results[0].type == FloatType()


def test_number_typed_values_reach_scalar_parameters():
    op = single("return torch.add(x, n, alpha=f)", "aten.add")
    assert schema_name(op) == "aten::add.Scalar"
    assert NumberType() not in op.operand_types


def test_input_names_self_of_aten_operators():
    op = single("return torch.relu(input=x)", "aten.relu")
    assert op.operands[0].type == TensorType()


def test_no_overload_lists_the_candidates():
    with pytest.raises(TsjitError) as error:
        operators('return torch.add(x, "a")')
    assert str(error.value.location) == "calls.py:6:12"
    assert error.value.message == "arguments for call to aten::add are not valid: (Tensor, str) match no overload"
    notes = error.value.notes  # one candidate a line, then why it refused, as PyTorch lists them
    assert notes[0] == "The following variants are available:"
    tensor = notes.index("  aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor:")
    assert notes[tensor + 1] == "    expected a value of type 'Tensor' for argument 'other' but instead found type 'str'"
    assert notes[-2].startswith("  aten::add.out(")  # out= overloads last


def test_a_script_function_reports_its_own_schema():
    source = "import torch\ndef f(a: int) -> int:\n    return a\ndef forward(x):\n    return f(x, x)\n"
    with pytest.raises(
        TsjitError, match=r"f\(\): expected at most 1 arguments but found 2 .*\(schema: f\(int a\) -> int\)"
    ):
        script_file_text(source, "calls.py")
