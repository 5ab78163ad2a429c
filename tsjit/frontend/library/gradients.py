"""Symbolic gradients: the derivative of every differentiable operator, in TorchScript.

The table of PyTorch's `symbolic_script.cpp` (and of `derivatives.yaml`, whose formulas
these follow), written as script functions that tsjit's frontend compiles. Each entry is
a function of the operator's arguments, named as in its schema, registered for the
overloads it differentiates:

    @gradient("aten::mul.Tensor")
    def mul(self, other):
        def backward(grad):
            return (grad * other)._grad_sum_to_size(self_size), (grad * self)._grad_sum_to_size(other_size)
        self_size = self.size()
        other_size = other.size()
        return self * other, backward

Its body is the forward: it computes the operator's result (by the operator itself, or
by another one that also returns what the backward needs, as `layer_norm` does with
`native_layer_norm`). The nested `backward` takes the gradient of each differentiable
result (trailing integer results, such as indices, take none; a list result's gradient
is a list) and returns one gradient per schema argument, None where there is none. The
names `backward` reads from the forward are what the forward saves for it: `differentiate`
compiles the two halves apart (`tsjit.frontend.symbolic_gradients`), inlines the first
into a DifferentiableGraph's forward and the second into its backward graph, and keeps
only the saved values the backward still reads once it is optimized. Gradients a formula
never receives are zeros. Argument types come from the schema, so formulas carry no
annotations; helpers (`_expanded`, ...) are ordinary script functions, inlined.

In-place overloads (`add_`) use the formula of their out-of-place operator.
"""

from __future__ import annotations

import math
from typing import Any, Callable, List, Optional, Tuple

from tsjit.frontend import torch_shim as torch
from tsjit.frontend.torch_shim import Tensor

FORMULAS: dict[str, Callable[..., Any]] = {}
"""Overload name (`aten::mul.Tensor`) -> its formula."""


def gradient(*overloads: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Registers the decorated formula for each overload."""

    def register(formula: Callable[..., Any]) -> Callable[..., Any]:
        for overload in overloads:
            if overload in FORMULAS:
                raise ValueError(f"two gradient formulas for {overload}")
            FORMULAS[overload] = formula
        return formula

    return register


NON_DIFFERENTIABLE: frozenset[str] = frozenset({
    "aten::zeros_like", "aten::ones_like", "aten::empty_like", "aten::full_like", "aten::rand_like",
    "aten::randn_like", "aten::randint_like", "aten::new_zeros", "aten::new_ones", "aten::new_empty",
    "aten::new_full", "aten::detach", "aten::size", "aten::dim", "aten::numel", "aten::argmax", "aten::argmin",
    "aten::eq", "aten::ne", "aten::lt", "aten::le", "aten::gt", "aten::ge", "aten::logical_not",
    "aten::logical_and", "aten::logical_or", "aten::logical_xor", "aten::isnan", "aten::isinf",
    "aten::isfinite", "aten::__and__", "aten::__or__", "aten::__xor__", "aten::bitwise_not", "aten::sort",
    "aten::argsort", "aten::nonzero", "aten::bernoulli", "aten::multinomial", "aten::one_hot",
    "prim::dtype", "prim::device", "prim::layout", "aten::is_floating_point", "aten::Int", "aten::Float",
    "aten::Bool", "aten::item", "aten::ScalarImplicit", "aten::IntImplicit", "aten::FloatImplicit",
    "aten::len", "aten::__is__", "aten::__isnot__", "aten::str", "aten::format", "aten::equal",
    "aten::allclose", "aten::any", "aten::all", "aten::count_nonzero", "aten::bucketize", "aten::searchsorted",
    "aten::floor_divide", "aten::is_nonzero", "aten::is_same_size", "aten::stride", "aten::is_contiguous",
})  # fmt: skip
"""Operators whose results never require grad, whatever their inputs (comparisons,
factories shaped like their input, sizes, indices): they run without recording, and may
sit inside a DifferentiableGraph, contributing no gradient."""


# --------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------


# A reduction over `dims` (all when None or empty) is computed with keepdim=True, then
# squeezed (`_unkept`): its gradient is the result gradient in the kept shape, expanded
# to the input's (`_expanded`), with no loop over the dims for the optimizer to unroll.


def _unkept(kept: Tensor, dims: Optional[List[int]], keepdim: bool) -> Tensor:
    """The result of a reduction computed with keepdim=True, as `keepdim` asks."""
    if keepdim:
        return kept
    if dims is None or len(dims) == 0:
        return kept.reshape(torch.jit.annotate(List[int], []))
    return kept.squeeze(dims)


def _expanded(grad: Tensor, kept_size: List[int], sizes: List[int]) -> Tensor:
    """A reduction's result gradient, in the kept shape, expanded to the input's `sizes`."""
    return grad.reshape(kept_size).expand(sizes)


def _reduced_count(self: Tensor, kept: Tensor) -> int:
    """How many elements each output of a reduction took in."""
    n = kept.numel()
    return self.numel() // n if n > 0 else 0


def _invert_permutation(dims: List[int]) -> List[int]:
    inverse = [0] * len(dims)
    for i in range(len(dims)):
        d = dims[i]
        inverse[d if d >= 0 else d + len(dims)] = i
    return inverse


def _matmul_backward(grad: Tensor, self: Tensor, other: Tensor) -> Tuple[Tensor, Tensor]:
    """Both gradients of `torch.matmul`, for every rank combination: vectors are made
    matrices, broadcast batch dimensions are summed away."""
    a = self
    b = other
    g = grad
    if self.dim() == 1:
        a = a.unsqueeze(0)
        g = g.unsqueeze(g.dim() - 1)
    if other.dim() == 1:
        b = b.unsqueeze(1)
        g = g.unsqueeze(g.dim())
    grad_a = torch.matmul(g, b.transpose(-1, -2))._grad_sum_to_size(a.size())
    grad_b = torch.matmul(a.transpose(-1, -2), g)._grad_sum_to_size(b.size())
    if self.dim() == 1:
        grad_a = grad_a.squeeze(0)
    if other.dim() == 1:
        grad_b = grad_b.squeeze(1)
    return grad_a, grad_b


def _evenly_distributed(grad: Tensor, self: Tensor, result: Tensor) -> Tensor:
    """The gradient of a full max/min: shared evenly by the elements equal to it."""
    mask = self == result
    return mask.to(grad.dtype) * (grad / mask.sum())


def _selected_evenly(grad: Tensor, self: Tensor, kept: Tensor, dims: List[int]) -> Tensor:
    """The gradient of amax/amin over `dims` (`kept`: the result with keepdim): shared
    evenly by the elements equal to their slice's extremum."""
    mask = (self == kept).to(grad.dtype)
    count = mask.sum(dims, True)
    return mask * _expanded(grad, kept.size(), self.size()) / count


def _conv_backward(grad: Tensor, input: Tensor, weight: Tensor, has_bias: bool, bias_sizes: List[int],
                   stride: List[int], padding: List[int], dilation: List[int], transposed: bool,
                   output_padding: List[int], groups: int) -> Tuple[Tensor, Tensor, Optional[Tensor]]:  # fmt: skip
    sizes: Optional[List[int]] = None
    if has_bias:
        sizes = bias_sizes
    grad_input, grad_weight, grad_bias = torch.convolution_backward(
        grad, input, weight, sizes, stride, padding, dilation, transposed, output_padding, groups,
        [True, True, has_bias],
    )
    if has_bias:
        return grad_input, grad_weight, grad_bias
    return grad_input, grad_weight, None


def _bias_sizes(bias: Optional[Tensor]) -> List[int]:
    if bias is None:
        return [0]
    return bias.size()


# --------------------------------------------------------------------------------------
# Arithmetic
# --------------------------------------------------------------------------------------


def _scaled(grad: Tensor, alpha: float) -> Tensor:
    """`grad * alpha`, without the multiplication for the usual alpha of 1."""
    if alpha == 1.0:
        return grad
    return grad * alpha


@gradient("aten::add.Tensor")
def add(self, other, alpha):
    def backward(grad):
        return grad._grad_sum_to_size(self_size), _scaled(grad, alpha)._grad_sum_to_size(other_size), None

    self_size = self.size()
    other_size = other.size()
    return torch.add(self, other, alpha=alpha), backward


@gradient("aten::add.Scalar")
def add_scalar(self, other, alpha):
    def backward(grad):
        return grad, None, None

    return torch.add(self, other, alpha), backward


@gradient("aten::sub.Tensor", "aten::subtract.Tensor")
def sub(self, other, alpha):
    def backward(grad):
        return grad._grad_sum_to_size(self_size), _scaled(-grad, alpha)._grad_sum_to_size(other_size), None

    self_size = self.size()
    other_size = other.size()
    return torch.sub(self, other, alpha=alpha), backward


@gradient("aten::sub.Scalar", "aten::subtract.Scalar")
def sub_scalar(self, other, alpha):
    def backward(grad):
        return grad, None, None

    return torch.sub(self, other, alpha), backward


@gradient("aten::rsub.Tensor")
def rsub(self, other, alpha):
    def backward(grad):
        return _scaled(-grad, alpha)._grad_sum_to_size(self_size), grad._grad_sum_to_size(other_size), None

    self_size = self.size()
    other_size = other.size()
    return torch.rsub(self, other, alpha=alpha), backward


@gradient("aten::rsub.Scalar")
def rsub_scalar(self, other, alpha):
    def backward(grad):
        return -grad * alpha, None, None

    return torch.rsub(self, other, alpha), backward


@gradient("aten::mul.Tensor", "aten::multiply.Tensor")
def mul(self, other):
    def backward(grad):
        return (grad * other)._grad_sum_to_size(self_size), (grad * self)._grad_sum_to_size(other_size)

    self_size = self.size()
    other_size = other.size()
    return torch.mul(self, other), backward


@gradient("aten::mul.Scalar", "aten::multiply.Scalar")
def mul_scalar(self, other):
    def backward(grad):
        return grad * other, None

    return torch.mul(self, other), backward


@gradient("aten::div.Tensor", "aten::divide.Tensor", "aten::true_divide.Tensor")
def div(self, other):
    def backward(grad):
        grad_self = (grad / other)._grad_sum_to_size(self_size)
        grad_other = (-grad * self / (other * other))._grad_sum_to_size(other_size)
        return grad_self, grad_other

    self_size = self.size()
    other_size = other.size()
    return torch.div(self, other), backward


@gradient("aten::div.Scalar", "aten::divide.Scalar", "aten::true_divide.Scalar")
def div_scalar(self, other):
    def backward(grad):
        return grad / other, None

    return torch.div(self, other), backward


@gradient("aten::neg", "aten::negative")
def neg(self):
    def backward(grad):
        return -grad

    return torch.neg(self), backward


@gradient("aten::pow.Tensor_Scalar")
def pow(self, exponent):
    def backward(grad):
        if exponent == 0.0:
            return torch.zeros_like(grad), None
        return grad * exponent * self.pow(exponent - 1.0), None

    return torch.pow(self, exponent), backward


@gradient("aten::pow.Tensor_Tensor")
def pow_tensor(self, exponent):
    def backward(grad):
        grad_self = (grad * exponent * self.pow(exponent - 1.0))._grad_sum_to_size(self_size)
        log_self = torch.where(self > 0, torch.log(self), torch.zeros_like(self))
        grad_exponent = (grad * result * log_self)._grad_sum_to_size(exponent_size)
        return grad_self, grad_exponent

    self_size = self.size()
    exponent_size = exponent.size()
    result = torch.pow(self, exponent)
    return result, backward


@gradient("aten::pow.Scalar")
def pow_scalar_base(self, exponent):
    def backward(grad):
        return None, grad * result * math.log(float(self))

    result = torch.pow(self, exponent)
    return result, backward


@gradient("aten::reciprocal")
def reciprocal(self):
    def backward(grad):
        return -grad * result * result

    result = torch.reciprocal(self)
    return result, backward


@gradient("aten::square")
def square(self):
    def backward(grad):
        return grad * 2.0 * self

    return torch.square(self), backward


@gradient("aten::addcmul")
def addcmul(self, tensor1, tensor2, value):
    def backward(grad):
        return (
            grad._grad_sum_to_size(self_size),
            (grad * tensor2 * value)._grad_sum_to_size(tensor1_size),
            (grad * tensor1 * value)._grad_sum_to_size(tensor2_size),
            None,
        )

    self_size = self.size()
    tensor1_size = tensor1.size()
    tensor2_size = tensor2.size()
    return torch.addcmul(self, tensor1, tensor2, value=value), backward


@gradient("aten::addcdiv")
def addcdiv(self, tensor1, tensor2, value):
    def backward(grad):
        return (
            grad._grad_sum_to_size(self_size),
            (grad * value / tensor2)._grad_sum_to_size(tensor1_size),
            (-grad * value * tensor1 / (tensor2 * tensor2))._grad_sum_to_size(tensor2_size),
            None,
        )

    self_size = self.size()
    tensor1_size = tensor1.size()
    tensor2_size = tensor2.size()
    return torch.addcdiv(self, tensor1, tensor2, value=value), backward


@gradient("aten::lerp.Scalar")
def lerp(self, end, weight):
    def backward(grad):
        return (grad * (1.0 - weight))._grad_sum_to_size(self_size), (grad * weight)._grad_sum_to_size(end_size), None

    self_size = self.size()
    end_size = end.size()
    return torch.lerp(self, end, weight), backward


@gradient("aten::maximum", "aten::max.other")
def maximum(self, other):
    def backward(grad):
        half = torch.where(self == other, grad / 2.0, grad)
        grad_self = torch.where(self > other, grad, torch.where(self == other, half, torch.zeros_like(grad)))
        grad_other = torch.where(other > self, grad, torch.where(self == other, half, torch.zeros_like(grad)))
        return grad_self._grad_sum_to_size(self_size), grad_other._grad_sum_to_size(other_size)

    self_size = self.size()
    other_size = other.size()
    return torch.maximum(self, other), backward


@gradient("aten::minimum", "aten::min.other")
def minimum(self, other):
    def backward(grad):
        half = torch.where(self == other, grad / 2.0, grad)
        grad_self = torch.where(self < other, grad, torch.where(self == other, half, torch.zeros_like(grad)))
        grad_other = torch.where(other < self, grad, torch.where(self == other, half, torch.zeros_like(grad)))
        return grad_self._grad_sum_to_size(self_size), grad_other._grad_sum_to_size(other_size)

    self_size = self.size()
    other_size = other.size()
    return torch.minimum(self, other), backward


@gradient("aten::fmod.Scalar")
def fmod_scalar(self, other):
    def backward(grad):
        return grad, None

    return torch.fmod(self, other), backward


@gradient("aten::remainder.Scalar")
def remainder_scalar(self, other):
    def backward(grad):
        return grad, None

    return torch.remainder(self, other), backward


@gradient("aten::where.self")
def where(condition, self, other):
    def backward(grad):
        zeros = torch.zeros_like(grad)
        return (
            None,
            torch.where(condition, grad, zeros)._grad_sum_to_size(self_size),
            torch.where(condition, zeros, grad)._grad_sum_to_size(other_size),
        )

    self_size = self.size()
    other_size = other.size()
    return torch.where(condition, self, other), backward


@gradient("aten::where.ScalarOther")
def where_scalar_other(condition, self, other):
    def backward(grad):
        return None, torch.where(condition, grad, torch.zeros_like(grad))._grad_sum_to_size(self_size), None

    self_size = self.size()
    return torch.where(condition, self, other), backward


@gradient("aten::where.ScalarSelf")
def where_scalar_self(condition, self, other):
    def backward(grad):
        return None, None, torch.where(condition, torch.zeros_like(grad), grad)._grad_sum_to_size(other_size)

    other_size = other.size()
    return torch.where(condition, self, other), backward


@gradient("aten::masked_fill.Scalar")
def masked_fill(self, mask, value):
    def backward(grad):
        return grad.masked_fill(mask, 0.0)._grad_sum_to_size(self_size), None, None

    self_size = self.size()
    return torch.masked_fill(self, mask, value), backward


@gradient("aten::masked_fill.Tensor")
def masked_fill_tensor(self, mask, value):
    def backward(grad):
        return grad.masked_fill(mask, 0.0)._grad_sum_to_size(self_size), None, torch.where(
            mask, grad, torch.zeros_like(grad)
        ).sum()

    self_size = self.size()
    return torch.masked_fill(self, mask, value), backward


@gradient("aten::clamp")
def clamp(self, min, max):
    def backward(grad):
        keep = torch.ones_like(self, dtype=torch.bool)
        if min is not None:
            keep = keep & (self >= min)
        if max is not None:
            keep = keep & (self <= max)
        return torch.where(keep, grad, torch.zeros_like(grad)), None, None

    return torch.clamp(self, min, max), backward


@gradient("aten::clamp_min")
def clamp_min(self, min):
    def backward(grad):
        return torch.where(self >= min, grad, torch.zeros_like(grad)), None

    return torch.clamp_min(self, min), backward


@gradient("aten::clamp_max")
def clamp_max(self, max):
    def backward(grad):
        return torch.where(self <= max, grad, torch.zeros_like(grad)), None

    return torch.clamp_max(self, max), backward


# --------------------------------------------------------------------------------------
# Unary math
# --------------------------------------------------------------------------------------


@gradient("aten::abs", "aten::absolute")
def abs(self):
    def backward(grad):
        return grad * torch.sign(self)

    return torch.abs(self), backward


@gradient("aten::exp")
def exp(self):
    def backward(grad):
        return grad * result

    result = torch.exp(self)
    return result, backward


@gradient("aten::expm1")
def expm1(self):
    def backward(grad):
        return grad * (result + 1.0)

    result = torch.expm1(self)
    return result, backward


@gradient("aten::log")
def log(self):
    def backward(grad):
        return grad / self

    return torch.log(self), backward


@gradient("aten::log2")
def log2(self):
    def backward(grad):
        return grad / (self * 0.6931471805599453)

    return torch.log2(self), backward


@gradient("aten::log10")
def log10(self):
    def backward(grad):
        return grad / (self * 2.302585092994046)

    return torch.log10(self), backward


@gradient("aten::log1p")
def log1p(self):
    def backward(grad):
        return grad / (self + 1.0)

    return torch.log1p(self), backward


@gradient("aten::sqrt")
def sqrt(self):
    def backward(grad):
        return grad / (2.0 * result)

    result = torch.sqrt(self)
    return result, backward


@gradient("aten::rsqrt")
def rsqrt(self):
    def backward(grad):
        return -0.5 * grad * result * result * result

    result = torch.rsqrt(self)
    return result, backward


@gradient("aten::sin")
def sin(self):
    def backward(grad):
        return grad * torch.cos(self)

    return torch.sin(self), backward


@gradient("aten::cos")
def cos(self):
    def backward(grad):
        return -grad * torch.sin(self)

    return torch.cos(self), backward


@gradient("aten::tan")
def tan(self):
    def backward(grad):
        return grad * (1.0 + result * result)

    result = torch.tan(self)
    return result, backward


@gradient("aten::asin", "aten::arcsin")
def asin(self):
    def backward(grad):
        return grad * torch.rsqrt(1.0 - self * self)

    return torch.asin(self), backward


@gradient("aten::acos", "aten::arccos")
def acos(self):
    def backward(grad):
        return -grad * torch.rsqrt(1.0 - self * self)

    return torch.acos(self), backward


@gradient("aten::atan", "aten::arctan")
def atan(self):
    def backward(grad):
        return grad / (1.0 + self * self)

    return torch.atan(self), backward


@gradient("aten::sinh")
def sinh(self):
    def backward(grad):
        return grad * torch.cosh(self)

    return torch.sinh(self), backward


@gradient("aten::cosh")
def cosh(self):
    def backward(grad):
        return grad * torch.sinh(self)

    return torch.cosh(self), backward


@gradient("aten::tanh")
def tanh(self):
    def backward(grad):
        return torch.tanh_backward(grad, result)

    result = torch.tanh(self)
    return result, backward


@gradient("aten::sigmoid")
def sigmoid(self):
    def backward(grad):
        return torch.sigmoid_backward(grad, result)

    result = torch.sigmoid(self)
    return result, backward


@gradient("aten::erf")
def erf(self):
    def backward(grad):
        return grad * 1.1283791670955126 * torch.exp(-self * self)

    return torch.erf(self), backward


@gradient("aten::sign")
def sign(self):
    def backward(grad):
        return torch.zeros_like(grad)

    return torch.sign(self), backward


@gradient("aten::floor")
def floor(self):
    def backward(grad):
        return torch.zeros_like(grad)

    return torch.floor(self), backward


@gradient("aten::ceil")
def ceil(self):
    def backward(grad):
        return torch.zeros_like(grad)

    return torch.ceil(self), backward


@gradient("aten::round")
def round(self):
    def backward(grad):
        return torch.zeros_like(grad)

    return torch.round(self), backward


@gradient("aten::trunc")
def trunc(self):
    def backward(grad):
        return torch.zeros_like(grad)

    return torch.trunc(self), backward


@gradient("aten::frac")
def frac(self):
    def backward(grad):
        return grad

    return torch.frac(self), backward


# --------------------------------------------------------------------------------------
# Activations
# --------------------------------------------------------------------------------------


@gradient("aten::relu")
def relu(self):
    def backward(grad):
        return torch.threshold_backward(grad, result, 0)

    result = torch.relu(self)
    return result, backward


@gradient("aten::threshold")
def threshold(self, threshold, value):
    def backward(grad):
        return torch.threshold_backward(grad, self, threshold), None, None

    return torch.threshold(self, threshold, value), backward


@gradient("aten::leaky_relu")
def leaky_relu(self, negative_slope):
    def backward(grad):
        return torch.leaky_relu_backward(grad, self, negative_slope, False), None

    return torch._C._nn.leaky_relu(self, negative_slope), backward


@gradient("aten::hardtanh")
def hardtanh(self, min_val, max_val):
    def backward(grad):
        return torch.hardtanh_backward(grad, self, min_val, max_val), None, None

    return torch._C._nn.hardtanh(self, min_val, max_val), backward


@gradient("aten::relu6")
def relu6(self):
    def backward(grad):
        return torch.hardtanh_backward(grad, self, 0.0, 6.0)

    return torch.relu6(self), backward


@gradient("aten::elu")
def elu(self, alpha, scale, input_scale):
    def backward(grad):
        return torch.elu_backward(grad, alpha, scale, input_scale, False, self), None, None, None

    return torch._C._nn.elu(self, alpha, scale, input_scale), backward


@gradient("aten::selu")
def selu(self):
    def backward(grad):
        return torch.elu_backward(grad, 1.6732632423543772, 1.0507009873554805, 1.0, False, self)

    return torch.selu(self), backward


@gradient("aten::celu")
def celu(self, alpha):
    def backward(grad):
        return torch.elu_backward(grad, alpha, 1.0, 1.0 / alpha, False, self), None

    return torch.celu(self, alpha), backward


@gradient("aten::gelu")
def gelu(self, approximate):
    def backward(grad):
        return torch.gelu_backward(grad, self, approximate=approximate), None

    return torch._C._nn.gelu(self, approximate=approximate), backward


@gradient("aten::silu")
def silu(self):
    def backward(grad):
        return torch.silu_backward(grad, self)

    return torch._C._nn.silu(self), backward


@gradient("aten::mish")
def mish(self):
    def backward(grad):
        return torch.mish_backward(grad, self)

    return torch._C._nn.mish(self), backward


@gradient("aten::softplus")
def softplus(self, beta, threshold):
    def backward(grad):
        return torch.softplus_backward(grad, self, beta, threshold), None, None

    return torch._C._nn.softplus(self, beta, threshold), backward


@gradient("aten::hardswish")
def hardswish(self):
    def backward(grad):
        return torch.hardswish_backward(grad, self)

    return torch._C._nn.hardswish(self), backward


@gradient("aten::hardsigmoid")
def hardsigmoid(self):
    def backward(grad):
        return torch.hardsigmoid_backward(grad, self)

    return torch._C._nn.hardsigmoid(self), backward


@gradient("aten::log_sigmoid")
def log_sigmoid(self):
    def backward(grad):
        return grad * torch.sigmoid(-self)

    return torch._C._nn.log_sigmoid(self), backward


@gradient("aten::glu")
def glu(self, dim):
    def backward(grad):
        return torch.glu_backward(grad, self, dim), None

    return torch._C._nn.glu(self, dim), backward


@gradient("aten::prelu")
def prelu(self, weight):
    def backward(grad):
        grad_self, grad_weight = torch._prelu_kernel_backward(grad, self, weight)
        return grad_self, grad_weight

    return torch.prelu(self, weight), backward


@gradient("aten::softmax.int")
def softmax(self, dim, dtype):
    def backward(grad):
        return torch._softmax_backward_data(grad, result, dim, self_dtype), None, None

    self_dtype = self.dtype
    result = torch.softmax(self, dim, dtype)
    return result, backward


@gradient("aten::log_softmax.int")
def log_softmax(self, dim, dtype):
    def backward(grad):
        return torch._log_softmax_backward_data(grad, result, dim, self_dtype), None, None

    self_dtype = self.dtype
    result = torch.log_softmax(self, dim, dtype)
    return result, backward


@gradient("aten::dropout")
def dropout(input, p, train):
    def backward(grad):
        if train:
            return torch.native_dropout_backward(grad, mask, 1.0 / (1.0 - p)), None, None
        return grad, None, None

    output, mask = torch.native_dropout(input, p, train)
    return output, backward


# --------------------------------------------------------------------------------------
# Reductions
# --------------------------------------------------------------------------------------


@gradient("aten::sum")
def sum(self, dtype):
    def backward(grad):
        return grad.expand(self_size), None

    self_size = self.size()
    return torch.sum(self, dtype=dtype), backward


@gradient("aten::sum.dim_IntList")
def sum_dim(self, dim, keepdim, dtype):
    def backward(grad):
        return _expanded(grad, kept_size, self_size), None, None, None

    self_size = self.size()
    kept = torch.sum(self, dim, True, dtype=dtype)
    kept_size = kept.size()
    return _unkept(kept, dim, keepdim), backward


@gradient("aten::mean")
def mean(self, dtype):
    def backward(grad):
        return grad.expand(self_size) / self_numel, None

    self_size = self.size()
    self_numel = self.numel()
    return torch.mean(self, dtype=dtype), backward


@gradient("aten::mean.dim")
def mean_dim(self, dim, keepdim, dtype):
    def backward(grad):
        return _expanded(grad, kept_size, self_size) / count, None, None, None

    self_size = self.size()
    kept = torch.mean(self, dim, True, dtype=dtype)
    kept_size = kept.size()
    count = _reduced_count(self, kept)
    return _unkept(kept, dim, keepdim), backward


@gradient("aten::max")
def max(self):
    def backward(grad):
        return _evenly_distributed(grad, self, result)

    result = torch.max(self)
    return result, backward


@gradient("aten::min")
def min(self):
    def backward(grad):
        return _evenly_distributed(grad, self, result)

    result = torch.min(self)
    return result, backward


@gradient("aten::amax")
def amax(self, dim, keepdim):
    def backward(grad):
        return _selected_evenly(grad, self, kept, dim), None, None

    kept = torch.amax(self, dim, True)
    return _unkept(kept, dim, keepdim), backward


@gradient("aten::amin")
def amin(self, dim, keepdim):
    def backward(grad):
        return _selected_evenly(grad, self, kept, dim), None, None

    kept = torch.amin(self, dim, True)
    return _unkept(kept, dim, keepdim), backward


@gradient("aten::max.dim")
def max_dim(self, dim, keepdim):
    def backward(grad):
        return torch.value_selecting_reduction_backward(grad, dim, indices, self_size, keepdim), None, None

    self_size = self.size()
    values, indices = torch.max(self, dim, keepdim)
    return (values, indices), backward


@gradient("aten::min.dim")
def min_dim(self, dim, keepdim):
    def backward(grad):
        return torch.value_selecting_reduction_backward(grad, dim, indices, self_size, keepdim), None, None

    self_size = self.size()
    values, indices = torch.min(self, dim, keepdim)
    return (values, indices), backward


@gradient("aten::var.correction")
def var(self, dim, correction, keepdim):
    def backward(grad):
        divisor = count - 1.0
        if correction is not None:
            divisor = count - float(correction)
        centered = self - self.mean(dim, True)
        return _expanded(grad, kept_size, self_size) * centered * (2.0 / divisor), None, None, None

    self_size = self.size()
    kept = torch.var(self, dim, correction=correction, keepdim=True)
    kept_size = kept.size()
    count = _reduced_count(self, kept)
    return _unkept(kept, dim, keepdim), backward


@gradient("aten::var.dim")
def var_dim(self, dim, unbiased, keepdim):
    def backward(grad):
        divisor = count - 1 if unbiased else count
        centered = self - self.mean(dim, True)
        return _expanded(grad, kept_size, self_size) * centered * (2.0 / divisor), None, None, None

    self_size = self.size()
    kept = torch.var(self, dim, unbiased, True)
    kept_size = kept.size()
    count = _reduced_count(self, kept)
    return _unkept(kept, dim, keepdim), backward


@gradient("aten::var")
def var_all(self, unbiased):
    def backward(grad):
        count = self.numel()
        divisor = count - 1 if unbiased else count
        return grad * (self - self.mean()) * (2.0 / divisor), None

    return torch.var(self, unbiased), backward


@gradient("aten::std.dim")
def std_dim(self, dim, unbiased, keepdim):
    def backward(grad):
        divisor = count - 1 if unbiased else count
        centered = self - self.mean(dim, True)
        scale = _expanded(grad, kept_size, self_size) / kept
        return scale * centered / divisor, None, None, None

    self_size = self.size()
    kept = torch.std(self, dim, unbiased, True)
    kept_size = kept.size()
    count = _reduced_count(self, kept)
    return _unkept(kept, dim, keepdim), backward


@gradient("aten::std")
def std_all(self, unbiased):
    def backward(grad):
        count = self.numel()
        divisor = count - 1 if unbiased else count
        return (grad / result) * (self - self.mean()) / divisor, None

    result = torch.std(self, unbiased)
    return result, backward


@gradient("aten::logsumexp")
def logsumexp(self, dim, keepdim):
    def backward(grad):
        return _expanded(grad, kept.size(), self_size) * torch.exp(self - kept), None, None

    self_size = self.size()
    kept = torch.logsumexp(self, dim, True)
    return _unkept(kept, dim, keepdim), backward


@gradient("aten::norm.ScalarOpt_dim")
def norm_dim(self, p, dim, keepdim):
    def backward(grad):
        if p is not None and float(p) != 2.0:
            raise RuntimeError("tsjit differentiates torch.norm for p=2 only")
        scale = _expanded(grad, kept.size(), self_size) / kept
        return torch.where(self_zero, torch.zeros_like(self), self * scale), None, None, None

    self_size = self.size()
    self_zero = self == 0
    kept = torch.norm(self, p, dim, True)
    return _unkept(kept, dim, keepdim), backward


@gradient("aten::linalg_vector_norm")
def vector_norm(self, ord, dim, keepdim, dtype):
    def backward(grad):
        if float(ord) != 2.0:
            raise RuntimeError("tsjit differentiates linalg.vector_norm for ord=2 only")
        scale = _expanded(grad, kept.size(), self_size) / kept
        return torch.where(self == 0, torch.zeros_like(self), self * scale), None, None, None, None

    self_size = self.size()
    kept = torch.linalg_vector_norm(self, ord, dim, True, dtype=dtype)
    return _unkept(kept, dim, keepdim), backward


@gradient("aten::cumsum")
def cumsum(self, dim, dtype):
    def backward(grad):
        return grad.flip([dim]).cumsum(dim).flip([dim]), None, None

    return torch.cumsum(self, dim, dtype=dtype), backward


@gradient("aten::prod")
def prod(self, dtype):
    def backward(grad):
        return (grad * result / self).masked_fill(self == 0, 0.0), None

    result = torch.prod(self, dtype=dtype)
    return result, backward


# --------------------------------------------------------------------------------------
# Matrix products
# --------------------------------------------------------------------------------------


@gradient("aten::mm")
def mm(self, mat2):
    def backward(grad):
        return grad.mm(mat2.t()), self.t().mm(grad)

    return torch.mm(self, mat2), backward


@gradient("aten::bmm")
def bmm(self, mat2):
    def backward(grad):
        return grad.bmm(mat2.transpose(1, 2)), self.transpose(1, 2).bmm(grad)

    return torch.bmm(self, mat2), backward


@gradient("aten::mv")
def mv(self, vec):
    def backward(grad):
        return grad.unsqueeze(1) * vec.unsqueeze(0), self.t().mv(grad)

    return torch.mv(self, vec), backward


@gradient("aten::dot")
def dot(self, tensor):
    def backward(grad):
        return grad * tensor, grad * self

    return torch.dot(self, tensor), backward


@gradient("aten::matmul")
def matmul(self, other):
    def backward(grad):
        grad_self, grad_other = _matmul_backward(grad, self, other)
        return grad_self, grad_other

    return torch.matmul(self, other), backward


@gradient("aten::linear")
def linear(input, weight, bias):
    def backward(grad):
        grad_input = torch.matmul(grad, weight)
        grad_2d = grad.reshape([-1, grad.size(-1)])
        grad_weight = grad_2d.t().mm(input.reshape([-1, input.size(-1)]))
        grad_bias: Optional[Tensor] = None
        if has_bias:
            grad_bias = grad_2d.sum(0)
        return grad_input, grad_weight, grad_bias

    has_bias = bias is not None
    return torch.linear(input, weight, bias), backward


@gradient("aten::addmm")
def addmm(self, mat1, mat2, beta, alpha):
    def backward(grad):
        return (
            (grad * beta)._grad_sum_to_size(self_size),
            grad.mm(mat2.t()) * alpha,
            mat1.t().mm(grad) * alpha,
            None,
            None,
        )

    self_size = self.size()
    return torch.addmm(self, mat1, mat2, beta=beta, alpha=alpha), backward


@gradient("aten::baddbmm")
def baddbmm(self, batch1, batch2, beta, alpha):
    def backward(grad):
        return (
            (grad * beta)._grad_sum_to_size(self_size),
            grad.bmm(batch2.transpose(1, 2)) * alpha,
            batch1.transpose(1, 2).bmm(grad) * alpha,
            None,
            None,
        )

    self_size = self.size()
    return torch.baddbmm(self, batch1, batch2, beta=beta, alpha=alpha), backward


# --------------------------------------------------------------------------------------
# Views and shapes
# --------------------------------------------------------------------------------------


@gradient("aten::t")
def t(self):
    def backward(grad):
        return grad.t()

    return torch.t(self), backward


@gradient("aten::transpose.int")
def transpose(self, dim0, dim1):
    def backward(grad):
        return grad.transpose(dim0, dim1), None, None

    return torch.transpose(self, dim0, dim1), backward


@gradient("aten::permute")
def permute(self, dims):
    def backward(grad):
        return grad.permute(_invert_permutation(dims)), None

    return torch.permute(self, dims), backward


@gradient("aten::view", "aten::_unsafe_view")
def view(self, size):
    def backward(grad):
        return grad.reshape(self_size), None

    self_size = self.size()
    return self.view(size), backward


@gradient("aten::reshape")
def reshape(self, shape):
    def backward(grad):
        return grad.reshape(self_size), None

    self_size = self.size()
    return torch.reshape(self, shape), backward


@gradient("aten::view_as", "aten::reshape_as")
def view_as(self, other):
    def backward(grad):
        return grad.reshape(self_size), None

    self_size = self.size()
    return torch.reshape(self, other.size()), backward


@gradient("aten::flatten.using_ints")
def flatten(self, start_dim, end_dim):
    def backward(grad):
        return grad.reshape(self_size), None, None

    self_size = self.size()
    return torch.flatten(self, start_dim, end_dim), backward


@gradient("aten::unflatten.int")
def unflatten(self, dim, sizes):
    def backward(grad):
        return grad.reshape(self_size), None, None

    self_size = self.size()
    return torch.unflatten(self, dim, sizes), backward


@gradient("aten::unsqueeze")
def unsqueeze(self, dim):
    def backward(grad):
        return grad.reshape(self_size), None

    self_size = self.size()
    return torch.unsqueeze(self, dim), backward


@gradient("aten::squeeze")
def squeeze(self):
    def backward(grad):
        return grad.reshape(self_size)

    self_size = self.size()
    return torch.squeeze(self), backward


@gradient("aten::squeeze.dim")
def squeeze_dim(self, dim):
    def backward(grad):
        return grad.reshape(self_size), None

    self_size = self.size()
    return torch.squeeze(self, dim), backward


@gradient("aten::squeeze.dims")
def squeeze_dims(self, dim):
    def backward(grad):
        return grad.reshape(self_size), None

    self_size = self.size()
    return torch.squeeze(self, dim), backward


@gradient("aten::expand")
def expand(self, size, implicit):
    def backward(grad):
        return grad._grad_sum_to_size(self_size), None, None

    self_size = self.size()
    return self.expand(size, implicit=implicit), backward


@gradient("aten::expand_as")
def expand_as(self, other):
    def backward(grad):
        return grad._grad_sum_to_size(self_size), None

    self_size = self.size()
    return self.expand_as(other), backward


@gradient("aten::broadcast_to")
def broadcast_to(self, size):
    def backward(grad):
        return grad._grad_sum_to_size(self_size), None

    self_size = self.size()
    return torch.broadcast_to(self, size), backward


@gradient("aten::repeat")
def repeat(self, repeats):
    def backward(grad):
        lead = len(repeats) - len(self_size)
        sizes: List[int] = []
        for i in range(lead):
            sizes.append(repeats[i])
        padded: List[int] = []
        for i in range(lead):
            padded.append(1)
        for s in self_size:
            padded.append(s)
        split: List[int] = []
        for i in range(lead, len(repeats)):
            split.append(repeats[i])
            split.append(padded[i])
        summed = grad.reshape(sizes + split)
        dims: List[int] = []
        for i in range(lead):
            dims.append(i)
        for i in range(len(self_size)):
            dims.append(lead + 2 * i)
        return summed.sum(dims).reshape(self_size), None

    self_size = self.size()
    return self.repeat(repeats), backward


@gradient("aten::flip")
def flip(self, dims):
    def backward(grad):
        return grad.flip(dims), None

    return torch.flip(self, dims), backward


@gradient("aten::clone")
def clone(self, memory_format):
    def backward(grad):
        return grad, None

    return torch.clone(self, memory_format=memory_format), backward


@gradient("aten::contiguous")
def contiguous(self, memory_format):
    def backward(grad):
        return grad, None

    return self.contiguous(memory_format=memory_format), backward


@gradient("aten::alias")
def alias(self):
    def backward(grad):
        return grad

    return torch.alias(self), backward


@gradient("aten::copy")
def copy(self, src, non_blocking):
    def backward(grad):
        return torch.zeros_like(grad), grad._grad_sum_to_size(src_size).to(src_dtype), None

    src_size = src.size()
    src_dtype = src.dtype
    return torch.copy(self, src, non_blocking), backward


@gradient("aten::fill.Scalar")
def fill(self, value):
    def backward(grad):
        return torch.zeros_like(grad), None

    return torch.fill(self, value), backward


@gradient("aten::fill.Tensor")
def fill_tensor(self, value):
    def backward(grad):
        return torch.zeros_like(grad), grad.sum()

    return torch.fill(self, value), backward


@gradient("aten::zero")
def zero(self):
    def backward(grad):
        return torch.zeros_like(grad)

    return torch.zero(self), backward


@gradient("aten::to.dtype")
def to_dtype(self, dtype, non_blocking, copy, memory_format):
    def backward(grad):
        return grad.to(self_dtype), None, None, None, None

    self_dtype = self.dtype
    return self.to(dtype, non_blocking, copy, memory_format=memory_format), backward


@gradient("aten::to.prim_dtype")
def to_prim_dtype(self, dtype, non_blocking, copy):
    def backward(grad):
        return grad.to(self_dtype), None, None, None

    self_dtype = self.dtype
    return self.to(dtype, non_blocking, copy), backward


@gradient("aten::to.other")
def to_other(self, other, non_blocking, copy, memory_format):
    def backward(grad):
        return grad.to(self_dtype), None, None, None, None

    self_dtype = self.dtype
    return self.to(other, non_blocking, copy, memory_format=memory_format), backward


@gradient("aten::to.device")
def to_device(self, device, dtype, non_blocking, copy, memory_format):
    def backward(grad):
        return grad.to(self_dtype), None, None, None, None, None

    self_dtype = self.dtype
    return self.to(device, dtype, non_blocking, copy, memory_format=memory_format), backward


@gradient("aten::type_as")
def type_as(self, other):
    def backward(grad):
        return grad.to(self_dtype), None

    self_dtype = self.dtype
    return self.type_as(other), backward


@gradient("aten::select.int")
def select(self, dim, index):
    def backward(grad):
        return torch.select_backward(grad, self_size, dim, index), None, None

    self_size = self.size()
    return torch.select(self, dim, index), backward


@gradient("aten::slice.Tensor")
def slice(self, dim, start, end, step):
    def backward(grad):
        return torch.slice_backward(grad, self_size, dim, begin, stop, step), None, None, None, None

    self_size = self.size()
    begin = 0 if start is None else start
    stop = 9223372036854775807 if end is None else end
    return torch.slice(self, dim, start, end, step), backward


@gradient("aten::narrow")
def narrow(self, dim, start, length):
    def backward(grad):
        return torch.slice_backward(grad, self_size, dim, start, start + length, 1), None, None, None

    self_size = self.size()
    return torch.narrow(self, dim, start, length), backward


@gradient("aten::index_select")
def index_select(self, dim, index):
    def backward(grad):
        return torch.index_select_backward(grad, self_size, dim, index), None, None

    self_size = self.size()
    return torch.index_select(self, dim, index), backward


@gradient("aten::gather")
def gather(self, dim, index, sparse_grad):
    def backward(grad):
        return torch.zeros(self_size, dtype=grad.dtype).scatter_add(dim, index, grad), None, None, None

    self_size = self.size()
    return torch.gather(self, dim, index, sparse_grad=sparse_grad), backward


@gradient("aten::index.Tensor", "aten::index.Tensor_hacked_twin")
def index(self, indices):
    def backward(grad):
        return torch.index_put(torch.zeros(self_size, dtype=grad.dtype), indices, grad, True), None

    self_size = self.size()
    return torch.index(self, indices), backward


@gradient("aten::cat")
def cat(tensors, dim):
    def backward(grad):
        return torch.split_with_sizes(grad, sizes, dim), None

    sizes: List[int] = []
    for t in tensors:
        sizes.append(t.size(dim))
    return torch.cat(tensors, dim), backward


@gradient("aten::stack")
def stack(tensors, dim):
    def backward(grad):
        return torch.unbind(grad, dim), None

    return torch.stack(tensors, dim), backward


@gradient("aten::chunk")
def chunk(self, chunks, dim):
    def backward(grads):
        return torch.cat(grads, dim), None, None

    return torch.chunk(self, chunks, dim), backward


@gradient("aten::split.Tensor")
def split(self, split_size, dim):
    def backward(grads):
        return torch.cat(grads, dim), None, None

    return torch.split(self, split_size, dim), backward


@gradient("aten::split")
def split_sizes(self, split_sizes, dim):
    def backward(grads):
        return torch.cat(grads, dim), None, None

    return torch.split(self, split_sizes, dim), backward


@gradient("aten::split.sizes")
def split_sizes_overload(self, split_size, dim):
    def backward(grads):
        return torch.cat(grads, dim), None, None

    return torch.split(self, split_size, dim), backward


@gradient("aten::split_with_sizes")
def split_with_sizes(self, split_sizes, dim):
    def backward(grads):
        return torch.cat(grads, dim), None, None

    return torch.split_with_sizes(self, split_sizes, dim), backward


@gradient("aten::unbind.int")
def unbind(self, dim):
    def backward(grads):
        return torch.stack(grads, dim), None

    return torch.unbind(self, dim), backward


# --------------------------------------------------------------------------------------
# Neural networks
# --------------------------------------------------------------------------------------


@gradient("aten::layer_norm")
def layer_norm(input, normalized_shape, weight, bias, eps, cudnn_enable):
    def backward(grad):
        grad_input, grad_weight, grad_bias = torch.native_layer_norm_backward(
            grad, input, normalized_shape, mean, rstd, weight, bias, [True, has_weight, has_bias]
        )
        return grad_input, None, grad_weight, grad_bias, None, None

    has_weight = weight is not None
    has_bias = bias is not None
    output, mean, rstd = torch.native_layer_norm(input, normalized_shape, weight, bias, eps)
    return output, backward


@gradient("aten::native_layer_norm")
def native_layer_norm(input, normalized_shape, weight, bias, eps):
    def backward(grad):
        grad_input, grad_weight, grad_bias = torch.native_layer_norm_backward(
            grad, input, normalized_shape, mean, rstd, weight, bias, [True, has_weight, has_bias]
        )
        return grad_input, None, grad_weight, grad_bias, None

    has_weight = weight is not None
    has_bias = bias is not None
    output, mean, rstd = torch.native_layer_norm(input, normalized_shape, weight, bias, eps)
    return (output, mean, rstd), backward


@gradient("aten::batch_norm")
def batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled):
    def backward(grad):
        grad_input, grad_weight, grad_bias = torch.native_batch_norm_backward(
            grad, input, weight, running_mean, running_var, save_mean, save_invstd, training, eps,
            [True, has_weight, has_bias],
        )
        return grad_input, grad_weight, grad_bias, None, None, None, None, None, None

    has_weight = weight is not None
    has_bias = bias is not None
    output, save_mean, save_invstd = torch.native_batch_norm(
        input, weight, bias, running_mean, running_var, training, momentum, eps
    )
    return output, backward


@gradient("aten::embedding")
def embedding(weight, indices, padding_idx, scale_grad_by_freq, sparse):
    def backward(grad):
        return torch.embedding_backward(grad, indices, num_weights, padding_idx, scale_grad_by_freq, sparse), None, None, None, None

    num_weights = weight.size(0)
    return torch.embedding(weight, indices, padding_idx, scale_grad_by_freq, sparse), backward


@gradient("aten::conv1d")
def conv1d(input, weight, bias, stride, padding, dilation, groups):
    def backward(grad):
        grad_input, grad_weight, grad_bias = _conv_backward(
            grad, input, weight, has_bias, bias_sizes, stride, padding, dilation, False, [0], groups
        )
        return grad_input, grad_weight, grad_bias, None, None, None, None

    has_bias = bias is not None
    bias_sizes = _bias_sizes(bias)
    return torch.conv1d(input, weight, bias, stride, padding, dilation, groups), backward


@gradient("aten::conv2d")
def conv2d(input, weight, bias, stride, padding, dilation, groups):
    def backward(grad):
        grad_input, grad_weight, grad_bias = _conv_backward(
            grad, input, weight, has_bias, bias_sizes, stride, padding, dilation, False, [0, 0], groups
        )
        return grad_input, grad_weight, grad_bias, None, None, None, None

    has_bias = bias is not None
    bias_sizes = _bias_sizes(bias)
    return torch.conv2d(input, weight, bias, stride, padding, dilation, groups), backward


@gradient("aten::conv3d")
def conv3d(input, weight, bias, stride, padding, dilation, groups):
    def backward(grad):
        grad_input, grad_weight, grad_bias = _conv_backward(
            grad, input, weight, has_bias, bias_sizes, stride, padding, dilation, False, [0, 0, 0], groups
        )
        return grad_input, grad_weight, grad_bias, None, None, None, None

    has_bias = bias is not None
    bias_sizes = _bias_sizes(bias)
    return torch.conv3d(input, weight, bias, stride, padding, dilation, groups), backward


@gradient("aten::convolution")
def convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    def backward(grad):
        grad_input, grad_weight, grad_bias = _conv_backward(
            grad, input, weight, has_bias, bias_sizes, stride, padding, dilation, transposed, output_padding, groups
        )
        return grad_input, grad_weight, grad_bias, None, None, None, None, None, None

    has_bias = bias is not None
    bias_sizes = _bias_sizes(bias)
    return torch.convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups), backward


@gradient("aten::max_pool2d")
def max_pool2d(self, kernel_size, stride, padding, dilation, ceil_mode):
    def backward(grad):
        return torch.max_pool2d_with_indices_backward(
            grad, self, kernel_size, stride, padding, dilation, ceil_mode, indices
        ), None, None, None, None, None

    output, indices = torch.max_pool2d_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode)
    return output, backward


@gradient("aten::max_pool1d")
def max_pool1d(self, kernel_size, stride, padding, dilation, ceil_mode):
    def backward(grad):
        grad_2d = torch.max_pool2d_with_indices_backward(
            grad.unsqueeze(-2), self_2d, [1, kernel_size[0]], [1, stride_[0]], [0, padding[0]], [1, dilation[0]],
            ceil_mode, indices,
        )
        return grad_2d.squeeze(-2), None, None, None, None, None

    stride_ = kernel_size if len(stride) == 0 else stride
    self_2d = self.unsqueeze(-2)
    output, indices = torch.max_pool2d_with_indices(
        self_2d, [1, kernel_size[0]], [1, stride_[0]], [0, padding[0]], [1, dilation[0]], ceil_mode
    )
    return output.squeeze(-2), backward


@gradient("aten::avg_pool2d")
def avg_pool2d(self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override):
    def backward(grad):
        return torch.avg_pool2d_backward(
            grad, self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override
        ), None, None, None, None, None, None

    return torch.avg_pool2d(self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override), backward


@gradient("aten::adaptive_avg_pool2d")
def adaptive_avg_pool2d(self, output_size):
    def backward(grad):
        return torch._adaptive_avg_pool2d_backward(grad, self), None

    return torch.adaptive_avg_pool2d(self, output_size), backward


# --------------------------------------------------------------------------------------
# Losses
# --------------------------------------------------------------------------------------


@gradient("aten::mse_loss")
def mse_loss(self, target, reduction):
    def backward(grad):
        grad_self = torch.mse_loss_backward(grad, self, target, reduction)
        return grad_self, -grad_self, None

    return torch.mse_loss(self, target, reduction), backward


@gradient("aten::l1_loss")
def l1_loss(self, target, reduction):
    def backward(grad):
        grad_self = _loss_scale(grad, torch.sign(self - target), reduction)
        return grad_self, -grad_self, None

    return torch.l1_loss(self, target, reduction), backward


def _loss_scale(grad: Tensor, pointwise: Tensor, reduction: int) -> Tensor:
    """The gradient of a pointwise loss reduced by `reduction` (0 none, 1 mean, 2 sum)."""
    if reduction == 1:
        return pointwise * grad / pointwise.numel()
    return pointwise * grad


@gradient("aten::smooth_l1_loss")
def smooth_l1_loss(self, target, reduction, beta):
    def backward(grad):
        grad_self = torch.smooth_l1_loss_backward(grad, self, target, reduction, beta)
        return grad_self, -grad_self, None, None

    return torch.smooth_l1_loss(self, target, reduction, beta), backward


@gradient("aten::huber_loss")
def huber_loss(self, target, reduction, delta):
    def backward(grad):
        grad_self = torch.huber_loss_backward(grad, self, target, reduction, delta)
        return grad_self, -grad_self, None, None

    return torch.huber_loss(self, target, reduction, delta), backward


@gradient("aten::binary_cross_entropy")
def binary_cross_entropy(self, target, weight, reduction):
    def backward(grad):
        grad_self = torch.binary_cross_entropy_backward(grad, self, target, weight, reduction)
        eps = 1e-12
        grad_target = _loss_scale(grad, torch.log((1.0 - self).clamp_min(eps)) - torch.log(self.clamp_min(eps)), reduction)
        if weight is not None:
            grad_target = grad_target * weight
        return grad_self, grad_target, None, None

    return torch.binary_cross_entropy(self, target, weight, reduction), backward


@gradient("aten::binary_cross_entropy_with_logits")
def binary_cross_entropy_with_logits(self, target, weight, pos_weight, reduction):
    def backward(grad):
        sig = torch.sigmoid(self)
        if pos_weight is not None:
            coefficient = pos_weight * target
            pointwise = (coefficient + 1.0 - target) * sig - coefficient
            target_pointwise = torch.log(1.0 - sig) - pos_weight * torch.log(sig)
        else:
            pointwise = sig - target
            target_pointwise = -self
        if weight is not None:
            pointwise = pointwise * weight
            target_pointwise = target_pointwise * weight
        return (
            _loss_scale(grad, pointwise, reduction),
            _loss_scale(grad, target_pointwise, reduction),
            None,
            None,
            None,
        )

    return torch.binary_cross_entropy_with_logits(self, target, weight, pos_weight, reduction), backward


@gradient("aten::nll_loss", "aten::nll_loss_nd", "aten::nll_loss2d")
def nll_loss(self, target, weight, reduction, ignore_index):
    def backward(grad):
        return torch.nll_loss_backward(grad, self, target, weight, reduction, ignore_index, total_weight), None, None, None, None

    output, total_weight = torch.nll_loss_forward(self, target, weight, reduction, ignore_index)
    return output, backward


@gradient("aten::cross_entropy_loss")
def cross_entropy_loss(self, target, weight, reduction, ignore_index, label_smoothing):
    def backward(grad):
        grad_log_probs = torch.nll_loss_backward(grad, log_probs, target, weight, reduction, ignore_index, total_weight)
        return torch._log_softmax_backward_data(grad_log_probs, log_probs, class_dim, self_dtype), None, None, None, None, None

    if label_smoothing != 0.0 or target.is_floating_point():
        raise RuntimeError("tsjit differentiates cross_entropy with class-index targets and no label smoothing")
    self_dtype = self.dtype
    class_dim = 0 if self.dim() == 1 else 1
    log_probs = torch.log_softmax(self, class_dim)
    output, total_weight = torch.nll_loss_forward(log_probs, target, weight, reduction, ignore_index)
    return output, backward


@gradient("aten::kl_div")
def kl_div(self, target, reduction, log_target):
    def backward(grad):
        if log_target:
            pointwise = -torch.exp(target)
        else:
            pointwise = -target
        return _loss_scale(grad, pointwise, reduction), None, None, None

    return torch.kl_div(self, target, reduction, log_target=log_target), backward
