"""What Python syntax and names mean in TorchScript, as tables.

Operators of expressions map to schema operators (with the Python magic method a class
could define), tensor methods and properties to operators, Python's builtin functions to
operators or special forms, module namespaces (`torch`, `math`, `torch.nn.functional`)
to operators by name. The emitter reads these tables; one generic mechanism serves each.
"""

from __future__ import annotations

import ast
import math

from tsjit.dialects.types import BoolType, FloatType, IntType, StrType

BINARY_OPERATORS: dict[type[ast.operator], tuple[str, str]] = {
    ast.Add: ("aten::add", "__add__"), ast.Sub: ("aten::sub", "__sub__"), ast.Mult: ("aten::mul", "__mul__"),
    ast.Div: ("aten::div", "__truediv__"), ast.Mod: ("aten::remainder", "__mod__"),
    ast.Pow: ("aten::pow", "__pow__"), ast.MatMult: ("aten::matmul", "__matmul__"),
    ast.FloorDiv: ("aten::floordiv", "__floordiv__"), ast.LShift: ("aten::__lshift__", "__lshift__"),
    ast.RShift: ("aten::__rshift__", "__rshift__"), ast.BitAnd: ("aten::__and__", "__and__"),
    ast.BitOr: ("aten::__or__", "__or__"), ast.BitXor: ("aten::__xor__", "__xor__"),
}  # fmt: skip
"""`a + b` is `aten::add(a, b)` (or `a.__add__(b)` on a class)."""

COMPARISON_OPERATORS: dict[type[ast.cmpop], tuple[str, str]] = {
    ast.Eq: ("aten::eq", "__eq__"), ast.NotEq: ("aten::ne", "__ne__"), ast.Lt: ("aten::lt", "__lt__"),
    ast.LtE: ("aten::le", "__le__"), ast.Gt: ("aten::gt", "__gt__"), ast.GtE: ("aten::ge", "__ge__"),
    ast.In: ("aten::__contains__", "__contains__"), ast.NotIn: ("aten::__contains__", "__contains__"),
    ast.Is: ("aten::__is__", ""), ast.IsNot: ("aten::__isnot__", ""),
}  # fmt: skip

UNARY_OPERATORS: dict[type[ast.unaryop], tuple[str, str]] = {
    ast.USub: ("aten::neg", "__neg__"), ast.Invert: ("aten::bitwise_not", "__invert__"), ast.UAdd: ("", "__pos__"),
}  # fmt: skip

AUGMENTED_OPERATORS: dict[type[ast.operator], tuple[str, str]] = {
    ast.Add: ("aten::add_", "aten::add"), ast.Sub: ("aten::sub_", "aten::sub"), ast.Div: ("aten::div_", "aten::div"),
    ast.Mult: ("aten::mul_", "aten::mul"), ast.Mod: ("aten::fmod_", "aten::fmod"),
    ast.BitOr: ("aten::bitwise_or", "aten::__or__"), ast.BitAnd: ("aten::bitwise_and", "aten::__and__"),
    ast.BitXor: ("aten::bitwise_xor", "aten::__xor__"), ast.LShift: ("aten::__lshift__", "aten::__lshift__"),
    ast.RShift: ("aten::__irshift__", "aten::__rshift__"), ast.Pow: ("aten::pow", "aten::pow"),
    ast.FloorDiv: ("aten::floordiv", "aten::floordiv"), ast.MatMult: ("aten::matmul", "aten::matmul"),
}  # fmt: skip
"""`x op= y`: the in-place operator for tensors and lists, the plain one otherwise
(TorchScript's `getAugOp`)."""

TENSOR_CAST_METHODS: dict[str, str] = {
    "byte": "uint8", "char": "int8", "double": "float64", "float": "float32", "cfloat": "complex64",
    "cdouble": "complex128", "int": "int32", "long": "int64", "short": "int16", "half": "float16",
}  # fmt: skip
"""`x.float()` is `x.to(torch.float32)`."""

TENSOR_PROPERTIES: dict[str, str] = {
    "dtype": "prim::dtype", "device": "prim::device", "grad": "prim::grad", "data": "prim::data",
    "shape": "prim::shape", "is_cuda": "prim::is_cuda", "is_xpu": "prim::is_xpu", "is_sparse": "prim::is_sparse",
    "is_mkldnn": "prim::is_mkldnn", "is_quantized": "prim::is_quantized", "is_vulkan": "prim::is_vulkan",
    "is_meta": "prim::is_meta", "is_leaf": "aten::is_leaf", "requires_grad": "prim::requires_grad",
    "layout": "prim::layout", "T": "prim::T", "H": "prim::H", "ndim": "prim::ndim", "name": "prim::name",
    "mT": "aten::mT", "mH": "aten::mH",
}  # fmt: skip
"""Tensor attributes that are operators (`x.shape` is `prim::shape(x)`)."""

DEVICE_PROPERTIES: dict[str, str] = {"type": "prim::type", "index": "prim::index"}

CASTS: dict[str, tuple[type, str]] = {
    "float": (FloatType, "aten::Float"), "int": (IntType, "aten::Int"), "bool": (BoolType, "aten::Bool"),
    "str": (StrType, "aten::str"),
}  # fmt: skip
"""`float(x)`, `int(x)`, ...: nothing when x already has the type, else the operator."""

BUILTIN_FUNCTIONS: dict[str, tuple[str, str | None]] = {
    "len": ("aten::len", "__len__"), "hex": ("aten::hex", "__hex__"), "oct": ("aten::oct", "__oct__"),
    "round": ("aten::round", "__round__"), "hash": ("aten::hash", None), "id": ("prim::id", None),
    "min": ("prim::min", None), "max": ("prim::max", None), "abs": ("prim::abs", None), "all": ("aten::all", None),
    "any": ("aten::any", None), "divmod": ("aten::divmod", None), "sum": ("aten::sum", None),
    "ord": ("aten::ord", None), "chr": ("aten::chr", None), "bin": ("aten::bin", None), "pow": ("aten::pow", None),
    "complex": ("aten::complex", None), "sorted": ("aten::sorted", None), "rangelist": ("prim::rangelist", None),
}  # fmt: skip
"""Python's builtin functions that are operators: (operator, magic method)."""

SPECIAL_FORMS: frozenset[str] = frozenset(
    {"print", "tuple", "getattr", "hasattr", "isinstance", "range", "zip", "enumerate", "list", "dict"}
)
"""Builtins whose arguments are not plain values (types, iterables, ...)."""

MATH_CONSTANTS: dict[str, float] = {
    "pi": math.pi,
    "e": math.e,
    "inf": math.inf,
    "nan": math.nan,
    "tau": math.tau,
}

OPERATOR_NAMESPACES: dict[str, str] = {
    "torch": "aten", "torch.nn.functional": "aten", "torch._C._nn": "aten", "torch.linalg": "aten",
    "torch.special": "aten", "torch.fft": "aten", "torch._C._VariableFunctions": "aten", "torch._VF": "aten",
    "math": "aten", "torch.functional": "aten",
}  # fmt: skip
"""Python namespaces whose functions are schema operators of the same name."""

JIT_FUNCTIONS: dict[str, str] = {
    "isinstance": "isinstance", "annotate": "annotate", "fork": "fork", "wait": "aten::wait",
}  # fmt: skip
"""`torch.jit.<name>`: the special form (or operator) it is in scripted code."""

NAMESPACE_PREFIXES: dict[str, str] = {
    "torch.linalg": "linalg_",
    "torch.special": "special_",
    "torch.fft": "fft_",
}
"""`torch.linalg.norm` is `aten::linalg_norm`."""

RENAMED_FUNCTIONS: dict[str, str] = {
    "torch.nn.functional.logsigmoid": "aten::log_sigmoid", "torch.jit.is_scripting": "aten::is_scripting",
    "torch.jit._unwrap_optional": "aten::_unwrap_optional", "warnings.warn": "aten::warn",
    "torch.jit.is_tracing": "aten::is_tracing", "math.floor": "aten::floor", "math.isnan": "aten::isnan",
    "torch._assert": "aten::_assert", "math.remainder": "aten::mathremainder",
    "torch.autograd.grad": "aten::grad", "torch.autograd.backward": "aten::backward",
}  # fmt: skip
"""Python functions whose operator has another name."""

PYTHON_BUILTINS: dict[tuple[str, str], str] = {
    ("torch.nn.modules.utils", "_single"): "aten::_single", ("torch.nn.modules.utils", "_pair"): "aten::_pair",
    ("torch.nn.modules.utils", "_triple"): "aten::_triple",
    ("torch.nn.modules.utils", "_list_with_default"): "aten::list_with_default",
    ("tsjit.frontend.library.utils", "_single"): "aten::_single", ("tsjit.frontend.library.utils", "_pair"): "aten::_pair",
    ("tsjit.frontend.library.utils", "_triple"): "aten::_triple",
    ("tsjit.frontend.library.utils", "_list_with_default"): "aten::list_with_default",
    ("torch.nn.functional", "_no_grad_embedding_renorm_"): "aten::_no_grad_embedding_renorm_",
    ("torch.nn.functional", "assert_int_or_pair"): "aten::_assert_int_or_pair",
    ("torch.functional", "broadcast_shapes"): "aten::broadcast_shapes", ("torch._C", "_infer_size"): "aten::_infer_size",
    ("torch.nn.init", "_no_grad_fill_"): "aten::_no_grad_fill_", ("torch.nn.init", "_no_grad_zero_"): "aten::_no_grad_zero_",
    ("torch.nn.init", "_no_grad_normal_"): "aten::_no_grad_normal_",
    ("torch.nn.init", "_no_grad_uniform_"): "aten::_no_grad_uniform_",
}  # fmt: skip
"""Python functions (found by identity: several share a name) whose calls are builtin
operators, as PyTorch's `torch.jit._builtins._builtin_ops` lists them."""

STATIC_TRUE_OPERATORS = frozenset({"aten::is_scripting"})
"""Conditions known at compile time: `if torch.jit.is_scripting():` keeps one branch."""
STATIC_FALSE_OPERATORS = frozenset({"aten::has_torch_function"})

NORMALIZED_OPERATORS: dict[str, str] = {
    "aten::absolute": "aten::abs", "aten::absolute_": "aten::abs_", "aten::clip": "aten::clamp",
    "aten::clip_": "aten::clamp_", "aten::det": "aten::linalg_det", "aten::matrix_power": "aten::linalg_matrix_power",
    "aten::ger": "aten::outer", "aten::arccos": "aten::acos", "aten::arccos_": "aten::acos_",
    "aten::arcsin": "aten::asin", "aten::arcsin_": "aten::asin_", "aten::arctan": "aten::atan",
    "aten::arctan_": "aten::atan_", "aten::arctan2": "aten::atan2", "aten::arctan2_": "aten::atan2_",
    "aten::arccosh": "aten::acosh", "aten::arccosh_": "aten::acosh_", "aten::arcsinh": "aten::asinh",
    "aten::arcsinh_": "aten::asinh_", "aten::arctanh": "aten::atanh", "aten::arctanh_": "aten::atanh_",
    "aten::fix": "aten::trunc", "aten::fix_": "aten::trunc_", "aten::negative": "aten::neg",
    "aten::negative_": "aten::neg_", "aten::subtract": "aten::sub", "aten::subtract_": "aten::sub_",
    "aten::greater_equal": "aten::ge", "aten::greater_equal_": "aten::ge_", "aten::greater": "aten::gt",
    "aten::greater_": "aten::gt_", "aten::less_equal": "aten::le", "aten::less_equal_": "aten::le_",
    "aten::less": "aten::lt", "aten::less_": "aten::lt_", "aten::not_equal": "aten::ne",
    "aten::not_equal_": "aten::ne_", "aten::divide": "aten::div", "aten::divide_": "aten::div_",
    "aten::multiply": "aten::mul", "aten::multiply_": "aten::mul_", "aten::true_divide": "aten::div",
    "aten::true_divide_": "aten::div_", "aten::concatenate": "aten::cat", "aten::concat": "aten::cat",
    "aten::row_stack": "aten::vstack", "aten::swapdims": "aten::transpose", "aten::swapdims_": "aten::transpose_",
    "aten::swapaxes": "aten::transpose", "aten::swapaxes_": "aten::transpose_", "aten::moveaxis": "aten::movedim",
    "aten::special_expit": "aten::sigmoid", "aten::special_log_softmax": "aten::log_softmax",
    "aten::special_softmax": "aten::softmax", "aten::orgqr": "aten::linalg_householder_product",
    "aten::special_gammaln": "aten::lgamma", "aten::special_exp2": "aten::exp2", "aten::special_expm1": "aten::expm1",
    "aten::special_log1p": "aten::log1p", "aten::special_round": "aten::round", "aten::special_sinc": "aten::sinc",
    "aten::special_i0": "aten::i0", "aten::special_digamma": "aten::digamma", "aten::special_psi": "aten::digamma",
    "aten::special_erf": "aten::erf", "aten::special_erfc": "aten::erfc", "aten::special_erfinv": "aten::erfinv",
    "aten::special_xlogy": "aten::xlogy", "aten::special_logit": "aten::logit", "aten::special_logsumexp": "aten::logsumexp",
}  # fmt: skip
"""Operator aliases PyTorch normalizes after scripting (`NormalizeOps`)."""

CONTEXT_MANAGERS: dict[str, str] = {
    "torch.no_grad": "no_grad", "torch.enable_grad": "enable_grad", "torch.autograd.no_grad": "no_grad",
    "torch.autograd.enable_grad": "enable_grad", "torch.autograd.grad_mode.no_grad": "no_grad",
    "torch.autograd.grad_mode.enable_grad": "enable_grad",
}  # fmt: skip
"""Classes usable in `with`, by their classes in `tsjit.frontend.library.grad_mode`."""
