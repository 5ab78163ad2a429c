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

NOT_DIFFERENTIABLE_ARGUMENTS: dict[str, tuple[str, ...]] = {}
"""Overload name -> the tensor arguments PyTorch refuses to differentiate (a loss's class
weights, batch norm's running statistics): one that requires grad is an error."""


def gradient(*overloads: str, not_differentiable: tuple[str, ...] = ()) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Registers the decorated formula for each overload."""

    def register(formula: Callable[..., Any]) -> Callable[..., Any]:
        for overload in overloads:
            if overload in FORMULAS:
                raise ValueError(f"two gradient formulas for {overload}")
            FORMULAS[overload] = formula
            if not_differentiable:
                NOT_DIFFERENTIABLE_ARGUMENTS[overload] = not_differentiable
        return formula

    return register


NON_DIFFERENTIABLE: frozenset[str] = frozenset({
    "aten::zeros_like", "aten::ones_like", "aten::empty_like", "aten::full_like", "aten::rand_like",
    "aten::randn_like", "aten::randint_like", "aten::new_zeros", "aten::new_ones", "aten::new_empty",
    "aten::new_full", "aten::detach", "aten::size", "aten::dim", "aten::numel", "aten::argmax", "aten::argmin",
    "aten::eq", "aten::ne", "aten::lt", "aten::le", "aten::gt", "aten::ge", "aten::logical_not",
    "aten::logical_and", "aten::logical_or", "aten::logical_xor", "aten::isnan", "aten::isinf",
    "aten::isfinite", "aten::__and__", "aten::__or__", "aten::__xor__", "aten::bitwise_not",
    "aten::argsort", "aten::nonzero", "aten::bernoulli", "aten::multinomial", "aten::one_hot",
    "prim::dtype", "prim::device", "prim::layout", "aten::is_floating_point", "aten::Int", "aten::Float",
    "aten::Bool", "aten::item", "aten::ScalarImplicit", "aten::IntImplicit", "aten::FloatImplicit",
    "aten::len", "aten::__is__", "aten::__isnot__", "aten::str", "aten::format", "aten::equal",
    "aten::allclose", "aten::any", "aten::all", "aten::count_nonzero", "aten::bucketize", "aten::searchsorted",
    "aten::floor_divide", "aten::is_nonzero", "aten::is_same_size", "aten::stride", "aten::is_contiguous",
    "aten::isclose", "aten::isneginf", "aten::isposinf", "aten::signbit", "aten::greater", "aten::greater_equal",
    "aten::less", "aten::less_equal", "aten::not_equal", "aten::bitwise_and", "aten::bitwise_or",
    "aten::bitwise_xor", "aten::bitwise_left_shift", "aten::bitwise_right_shift", "aten::gcd", "aten::argwhere",
    "aten::broadcast_shapes", "aten::result_type", "aten::can_cast", "aten::promote_types", "aten::is_complex",
    "aten::element_size", "aten::histc",
    # the special functions' polynomials and Bessel functions: PyTorch gives them no derivative
    *(f"aten::special_{name}" for name in (
        "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_i0", "modified_bessel_i1",
        "modified_bessel_k0", "modified_bessel_k1", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1",
        "spherical_bessel_j0", "airy_ai", "chebyshev_polynomial_t", "chebyshev_polynomial_u",
        "chebyshev_polynomial_v", "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t",
        "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v", "shifted_chebyshev_polynomial_w",
        "hermite_polynomial_h", "hermite_polynomial_he", "laguerre_polynomial_l", "legendre_polynomial_p",
    )),
})  # fmt: skip
"""Operators whose results never require grad, whatever their inputs (comparisons,
factories shaped like their input, sizes, indices): they run without recording, and may
sit inside a DifferentiableGraph, contributing no gradient."""

NON_DIFFERENTIABLE_OUTPUTS: dict[str, tuple[int, ...]] = {
    "aten::linalg_lu": (0,),  # the permutation P
    "aten::lu_unpack": (0,),
    "aten::linalg_lstsq": (2, 3),  # the rank and the singular values
}
"""Operators some of whose floating results never require grad (derivatives.yaml's
`output_differentiability`), by result position."""


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


@gradient("aten::clamp", "aten::clip")
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


@gradient("aten::div.Tensor_mode", "aten::divide.Tensor_mode")
def div_mode(self, other, rounding_mode):
    def backward(grad):
        if rounding_mode is None:
            grad_self = (grad / other)._grad_sum_to_size(self_size)
            grad_other = (-grad * self / (other * other))._grad_sum_to_size(other_size)
            return grad_self, grad_other, None
        return torch.zeros(self_size, dtype=grad.dtype), torch.zeros(other_size, dtype=grad.dtype), None

    self_size = self.size()
    other_size = other.size()
    return torch.div(self, other, rounding_mode=rounding_mode), backward


@gradient("aten::div.Scalar_mode", "aten::divide.Scalar_mode")
def div_scalar_mode(self, other, rounding_mode):
    def backward(grad):
        if rounding_mode is None:
            return grad / other, None, None
        return torch.zeros_like(grad), None, None

    return torch.div(self, other, rounding_mode=rounding_mode), backward


@gradient("aten::remainder.Tensor")
def remainder(self, other):
    def backward(grad):
        quotient = torch.div(self, other, rounding_mode="floor")
        return grad._grad_sum_to_size(self_size), (-grad * quotient)._grad_sum_to_size(other_size)

    self_size = self.size()
    other_size = other.size()
    return torch.remainder(self, other), backward


@gradient("aten::fmod.Tensor")
def fmod(self, other):
    def backward(grad):
        quotient = torch.div(self, other, rounding_mode="trunc")
        return grad._grad_sum_to_size(self_size), (-grad * quotient)._grad_sum_to_size(other_size)

    self_size = self.size()
    other_size = other.size()
    return torch.fmod(self, other), backward


@gradient("aten::clamp.Tensor", "aten::clip.Tensor")
def clamp_tensor(self, min, max):
    def backward(grad):
        zeros = torch.zeros_like(grad)
        keep = torch.ones_like(grad, dtype=torch.bool)
        grad_min: Optional[Tensor] = None
        grad_max: Optional[Tensor] = None
        if min is not None:
            keep = keep & (self >= min)
            below = self < min
            if max is not None:
                below = below & (min < max)
            grad_min = torch.where(below, grad, zeros)._grad_sum_to_size(min.size())
        if max is not None:
            keep = keep & (self <= max)
            above = self > max
            if min is not None:
                above = above | (max < min)
            grad_max = torch.where(above, grad, zeros)._grad_sum_to_size(max.size())
        return torch.where(keep, grad, zeros)._grad_sum_to_size(self_size), grad_min, grad_max

    self_size = self.size()
    return torch.clamp(self, min, max), backward


@gradient("aten::clamp_min.Tensor")
def clamp_min_tensor(self, min):
    def backward(grad):
        zeros = torch.zeros_like(grad)
        grad_self = torch.where(self >= min, grad, zeros)._grad_sum_to_size(self_size)
        return grad_self, torch.where(self < min, grad, zeros)._grad_sum_to_size(min_size)

    self_size = self.size()
    min_size = min.size()
    return torch.clamp_min(self, min), backward


@gradient("aten::clamp_max.Tensor")
def clamp_max_tensor(self, max):
    def backward(grad):
        zeros = torch.zeros_like(grad)
        grad_self = torch.where(self <= max, grad, zeros)._grad_sum_to_size(self_size)
        return grad_self, torch.where(self > max, grad, zeros)._grad_sum_to_size(max_size)

    self_size = self.size()
    max_size = max.size()
    return torch.clamp_max(self, max), backward


@gradient("aten::atan2", "aten::arctan2")
def atan2(self, other):
    def backward(grad):
        scale = grad / (self * self + other * other)
        return (scale * other)._grad_sum_to_size(self_size), (-scale * self)._grad_sum_to_size(other_size)

    self_size = self.size()
    other_size = other.size()
    return torch.atan2(self, other), backward


@gradient("aten::hypot")
def hypot(self, other):
    def backward(grad):
        scale = grad / result
        return (scale * self)._grad_sum_to_size(self_size), (scale * other)._grad_sum_to_size(other_size)

    self_size = self.size()
    other_size = other.size()
    result = torch.hypot(self, other)
    return result, backward


@gradient("aten::copysign.Tensor")
def copysign(self, other):
    def backward(grad):
        ratio = (result / self).masked_fill(self == 0, 0.0)
        return (grad * ratio)._grad_sum_to_size(self_size), torch.zeros(other_size, dtype=grad.dtype)

    self_size = self.size()
    other_size = other.size()
    result = torch.copysign(self, other)
    return result, backward


@gradient("aten::copysign.Scalar")
def copysign_scalar(self, other):
    def backward(grad):
        return grad * (result / self).masked_fill(self == 0, 0.0), None

    result = torch.copysign(self, other)
    return result, backward


@gradient("aten::logaddexp")
def logaddexp(self, other):
    def backward(grad):
        grad_self = grad / (1.0 + torch.exp(other - self))
        grad_other = grad / (1.0 + torch.exp(self - other))
        return grad_self._grad_sum_to_size(self_size), grad_other._grad_sum_to_size(other_size)

    self_size = self.size()
    other_size = other.size()
    return torch.logaddexp(self, other), backward


@gradient("aten::fmax")
def fmax(self, other):
    def backward(grad):
        to_self = (self >= other) | torch.isnan(other)
        zeros = torch.zeros_like(grad)
        return (
            torch.where(to_self, grad, zeros)._grad_sum_to_size(self_size),
            torch.where(to_self, zeros, grad)._grad_sum_to_size(other_size),
        )

    self_size = self.size()
    other_size = other.size()
    return torch.fmax(self, other), backward


@gradient("aten::fmin")
def fmin(self, other):
    def backward(grad):
        to_self = (self <= other) | torch.isnan(other)
        zeros = torch.zeros_like(grad)
        return (
            torch.where(to_self, grad, zeros)._grad_sum_to_size(self_size),
            torch.where(to_self, zeros, grad)._grad_sum_to_size(other_size),
        )

    self_size = self.size()
    other_size = other.size()
    return torch.fmin(self, other), backward


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


@gradient("aten::trunc", "aten::fix")
def trunc(self):
    def backward(grad):
        return torch.zeros_like(grad)

    return torch.trunc(self), backward


@gradient("aten::frac")
def frac(self):
    def backward(grad):
        return grad

    return torch.frac(self), backward


@gradient("aten::round.decimals")
def round_decimals(self, decimals):
    def backward(grad):
        return torch.zeros_like(grad), None

    return torch.round(self, decimals=decimals), backward


@gradient("aten::sgn")
def sgn(self):
    def backward(grad):
        return torch.zeros_like(grad)

    return torch.sgn(self), backward


@gradient("aten::positive")
def positive(self):
    def backward(grad):
        return grad

    return torch.positive(self), backward


@gradient("aten::conj_physical")
def conj_physical(self):
    def backward(grad):
        return torch.conj_physical(grad)

    return torch.conj_physical(self), backward


@gradient("aten::lgamma")
def lgamma(self):
    def backward(grad):
        return grad * torch.digamma(self)

    return torch.lgamma(self), backward


@gradient("aten::polygamma")
def polygamma(n: int, self):
    def backward(grad):
        return None, grad * torch.polygamma(n + 1, self)

    return torch.polygamma(n, self), backward


@gradient("aten::exp2")
def exp2(self):
    def backward(grad):
        return grad * result * math.log(2.0)

    result = torch.exp2(self)
    return result, backward


@gradient("aten::erfc")
def erfc(self):
    def backward(grad):
        return grad * (-2.0 / math.sqrt(math.pi)) * torch.exp(-self * self)

    return torch.erfc(self), backward


@gradient("aten::asinh", "aten::arcsinh")
def asinh(self):
    def backward(grad):
        return grad * torch.rsqrt(self * self + 1.0)

    return torch.asinh(self), backward


@gradient("aten::acosh", "aten::arccosh")
def acosh(self):
    def backward(grad):
        return grad * torch.rsqrt(self * self - 1.0)

    return torch.acosh(self), backward


@gradient("aten::atanh", "aten::arctanh")
def atanh(self):
    def backward(grad):
        return grad / (1.0 - self * self)

    return torch.atanh(self), backward


@gradient("aten::rad2deg")
def rad2deg(self):
    def backward(grad):
        return grad * (180.0 / math.pi)

    return torch.rad2deg(self), backward


@gradient("aten::deg2rad")
def deg2rad(self):
    def backward(grad):
        return grad * (math.pi / 180.0)

    return torch.deg2rad(self), backward


@gradient("aten::nan_to_num")
def nan_to_num(self, nan, posinf, neginf):
    def backward(grad):
        return torch.where(torch.isfinite(self), grad, torch.zeros_like(grad)), None, None, None

    return torch.nan_to_num(self, nan, posinf, neginf), backward


@gradient("aten::logit")
def logit(self, eps):
    def backward(grad):
        derivative = grad / (self * (1.0 - self))
        if eps is None:
            outside = (self < 0.0) | (self > 1.0)
            return torch.where(outside, torch.full_like(grad, math.nan), derivative), None
        outside = (self < eps) | (self > 1.0 - eps)
        return torch.where(outside, torch.zeros_like(grad), derivative), None

    return torch.logit(self, eps), backward


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


@gradient("aten::_softmax")
def softmax_(self, dim, half_to_float):
    def backward(grad):
        return torch._softmax_backward_data(grad, result, dim, self_dtype), None, None

    self_dtype = self.dtype
    result = torch._softmax(self, dim, half_to_float)
    return result, backward


@gradient("aten::_log_softmax")
def log_softmax_(self, dim, half_to_float):
    def backward(grad):
        return torch._log_softmax_backward_data(grad, result, dim, self_dtype), None, None

    self_dtype = self.dtype
    result = torch._log_softmax(self, dim, half_to_float)
    return result, backward


@gradient("aten::dropout")
def dropout(input, p, train):
    def backward(grad):
        if train:
            return torch.native_dropout_backward(grad, mask, 1.0 / (1.0 - p)), None, None
        return grad, None, None

    output, mask = torch.native_dropout(input, p, train)
    return output, backward


@gradient("aten::_softmax_backward_data")
def softmax_backward_data(grad_output, output, dim, input_dtype):
    def backward(grad):
        total = (grad_output * output).sum(dim, True)
        grad_grad_output = torch._softmax_backward_data(grad, output, dim, input_dtype)
        grad_output_ = grad * (grad_output - total) - grad_output * (grad * output).sum(dim, True)
        return grad_grad_output, grad_output_, None, None

    return torch._softmax_backward_data(grad_output, output, dim, input_dtype), backward


@gradient("aten::native_dropout_backward")
def native_dropout_backward(grad_output, mask, scale):
    def backward(grad):
        return grad * mask * scale, None, None

    return torch.native_dropout_backward(grad_output, mask, scale), backward


@gradient("aten::softshrink")
def softshrink(self, lambd):
    def backward(grad):
        return torch.where((self > lambd) | (self < -lambd), grad, torch.zeros_like(grad)), None

    return torch.softshrink(self, lambd), backward


@gradient("aten::hardshrink")
def hardshrink(self, lambd):
    def backward(grad):
        return torch.where((self > lambd) | (self < -lambd), grad, torch.zeros_like(grad)), None

    return torch.hardshrink(self, lambd), backward


def _dropout_noise(input: Tensor, p: float, feature: bool) -> Tensor:
    """Bernoulli(1 - p) noise shaped like `input`, or with one value per (batch,
    channel) for feature dropout."""
    shape = input.size()
    if feature:
        shape = [input.size(0), input.size(1)]
        for _ in range(input.dim() - 2):
            shape.append(1)
    return torch.bernoulli(torch.empty(shape, dtype=input.dtype), 1.0 - p)


@gradient("aten::feature_dropout")
def feature_dropout(input, p, train):
    def backward(grad):
        if scale is None:
            return grad, None, None
        return grad * scale, None, None

    scale: Optional[Tensor] = None
    if train and p > 0.0:
        noise = _dropout_noise(input, p, True)
        factor = noise / (1.0 - p) if p < 1.0 else noise
        scale = factor
        result = input * factor
    else:
        result = torch.feature_dropout(input, p, train)
    return result, backward


def _alpha_dropout(input: Tensor, p: float, feature: bool) -> Tuple[Tensor, Tensor]:
    """The output of alpha dropout in training and the factor of its input (PyTorch's
    `_dropout_impl`): kept values scaled by a, dropped ones set to the SELU saturation,
    shifted by b so the mean and variance stay."""
    if p == 1.0:
        factor = torch.zeros_like(input)
        return input * factor, factor
    alpha = 1.7580993408473766
    a = 1.0 / math.sqrt((alpha * alpha * p + 1.0) * (1.0 - p))
    noise = _dropout_noise(input, p, feature)
    b = (noise - 1.0) * (alpha * a) + alpha * a * p
    factor = noise * a
    return input * factor + b, factor


@gradient("aten::alpha_dropout")
def alpha_dropout(input, p, train):
    def backward(grad):
        if scale is None:
            return grad, None, None
        return grad * scale, None, None

    scale: Optional[Tensor] = None
    if train and p > 0.0:
        result, factor = _alpha_dropout(input, p, False)
        scale = factor
    else:
        result = torch.alpha_dropout(input, p, train)
    return result, backward


@gradient("aten::feature_alpha_dropout")
def feature_alpha_dropout(input, p, train):
    def backward(grad):
        if scale is None:
            return grad, None, None
        return grad * scale, None, None

    scale: Optional[Tensor] = None
    if train and p > 0.0:
        result, factor = _alpha_dropout(input, p, True)
        scale = factor
    else:
        result = torch.feature_alpha_dropout(input, p, train)
    return result, backward


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


def _norm_backward(grad: Tensor, self: Tensor, kept: Tensor, p: float, dims: Optional[List[int]]) -> Tensor:
    """The gradient of a p-norm over `dims` (`kept`: the norm with keepdim), as
    PyTorch's `norm_backward`: p = 0, 1, 2, ±inf and other p apart."""
    g = _expanded(grad, kept.size(), self.size())
    if p == 0.0:
        return torch.zeros_like(self)
    if p == 1.0:
        return torch.sign(self) * g
    if p == 2.0:
        return g * (self / kept).masked_fill(kept == 0, 0.0)
    if p == math.inf or p == -math.inf:  # shared by the elements of extreme magnitude
        magnitude = self.abs()
        mask = ((magnitude == kept) | torch.isnan(magnitude)).to(self.dtype)
        return torch.sign(self) * (g / mask.sum(dims, True)) * mask
    if p < 1.0:
        scaled = torch.sign(self) * self.abs().pow(p - 1.0).masked_fill(self == 0, 0.0)
        return scaled * g * kept.pow(1.0 - p)
    if p < 2.0:
        scaled = torch.sign(self) * self.abs().pow(p - 1.0)
    else:
        scaled = self * self.abs().pow(p - 2.0)
    return scaled * (g / kept.pow(p - 1.0)).masked_fill(kept == 0, 0.0)


@gradient("aten::norm.ScalarOpt_dim")
def norm_dim(self, p, dim, keepdim):
    def backward(grad):
        order = 2.0 if p is None else float(p)
        return _norm_backward(grad, self, kept, order, dim), None, None, None

    kept = torch.norm(self, p, dim, True)
    return _unkept(kept, dim, keepdim), backward


@gradient("aten::norm.Scalar")
def norm(self, p):
    def backward(grad):
        return _norm_backward(grad, self, result, float(p), None), None

    result = torch.norm(self, p)
    return result, backward


@gradient("aten::linalg_vector_norm")
def vector_norm(self, ord, dim, keepdim, dtype):
    def backward(grad):
        return _norm_backward(grad, self, kept, float(ord), dim), None, None, None, None

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
        return (grad * _exclusive_products(self.reshape(-1), 0)).reshape(self_size), None

    self_size = self.size()
    return torch.prod(self, dtype=dtype), backward


def _var_backward(grad: Tensor, self: Tensor, kept_size: List[int], dims: Optional[List[int]], divisor: float) -> Tensor:
    """The gradient of a variance over `dims` (all when None or empty) of `divisor`."""
    centered = self - self.mean(dims, True)
    return _expanded(grad, kept_size, self.size()) * centered * (2.0 / divisor)


def _std_backward(grad: Tensor, self: Tensor, kept: Tensor, dims: Optional[List[int]], divisor: float) -> Tensor:
    """The gradient of a standard deviation (`kept`, with keepdim) over `dims`."""
    centered = self - self.mean(dims, True)
    return _expanded(grad, kept.size(), self.size()) / kept * centered / divisor


def _mean_backward(grad: Tensor, self: Tensor, kept_size: List[int], count: int) -> Tensor:
    return _expanded(grad, kept_size, self.size()) / count


@gradient("aten::var_mean.correction")
def var_mean(self, dim, correction, keepdim):
    def backward(grad_var, grad_mean):
        divisor = count - 1.0
        if correction is not None:
            divisor = count - float(correction)
        grad_self = _var_backward(grad_var, self, kept_size, dim, divisor) + _mean_backward(grad_mean, self, kept_size, count)
        return grad_self, None, None, None

    var, mean = torch.var_mean(self, dim, correction=correction, keepdim=True)
    kept_size = var.size()
    count = _reduced_count(self, var)
    return (_unkept(var, dim, keepdim), _unkept(mean, dim, keepdim)), backward


@gradient("aten::var_mean.dim")
def var_mean_dim(self, dim, unbiased, keepdim):
    def backward(grad_var, grad_mean):
        divisor = count - 1.0 if unbiased else count * 1.0
        grad_self = _var_backward(grad_var, self, kept_size, dim, divisor) + _mean_backward(grad_mean, self, kept_size, count)
        return grad_self, None, None, None

    var, mean = torch.var_mean(self, dim, unbiased, True)
    kept_size = var.size()
    count = _reduced_count(self, var)
    return (_unkept(var, dim, keepdim), _unkept(mean, dim, keepdim)), backward


@gradient("aten::var_mean")
def var_mean_all(self, unbiased):
    def backward(grad_var, grad_mean):
        divisor = count - 1.0 if unbiased else count * 1.0
        grad_self = _var_backward(grad_var, self, kept_size, None, divisor) + _mean_backward(grad_mean, self, kept_size, count)
        return grad_self, None

    var, mean = torch.var_mean(self, unbiased)
    kept_size = torch.jit.annotate(List[int], [])
    count = self.numel()
    return (var, mean), backward


@gradient("aten::std_mean.correction")
def std_mean(self, dim, correction, keepdim):
    def backward(grad_std, grad_mean):
        divisor = count - 1.0
        if correction is not None:
            divisor = count - float(correction)
        grad_self = _std_backward(grad_std, self, std, dim, divisor) + _mean_backward(grad_mean, self, std.size(), count)
        return grad_self, None, None, None

    std, mean = torch.std_mean(self, dim, correction=correction, keepdim=True)
    count = _reduced_count(self, std)
    return (_unkept(std, dim, keepdim), _unkept(mean, dim, keepdim)), backward


@gradient("aten::std_mean.dim")
def std_mean_dim(self, dim, unbiased, keepdim):
    def backward(grad_std, grad_mean):
        divisor = count - 1.0 if unbiased else count * 1.0
        grad_self = _std_backward(grad_std, self, std, dim, divisor) + _mean_backward(grad_mean, self, std.size(), count)
        return grad_self, None, None, None

    std, mean = torch.std_mean(self, dim, unbiased, True)
    count = _reduced_count(self, std)
    return (_unkept(std, dim, keepdim), _unkept(mean, dim, keepdim)), backward


@gradient("aten::std_mean")
def std_mean_all(self, unbiased):
    def backward(grad_std, grad_mean):
        divisor = count - 1.0 if unbiased else count * 1.0
        grad_self = _std_backward(grad_std, self, std, None, divisor) + _mean_backward(grad_mean, self, std.size(), count)
        return grad_self, None

    std, mean = torch.std_mean(self, unbiased)
    count = self.numel()
    return (std, mean), backward


@gradient("aten::nansum")
def nansum(self, dim, keepdim, dtype):
    def backward(grad):
        expanded = _expanded(grad, kept_size, self_size)
        return torch.where(torch.isnan(self), torch.zeros_like(expanded), expanded), None, None, None

    self_size = self.size()
    kept = torch.nansum(self, dim, True, dtype=dtype)
    kept_size = kept.size()
    return _unkept(kept, dim, keepdim), backward


@gradient("aten::median", "aten::nanmedian")
def median(self):
    def backward(grad):
        return _evenly_distributed(grad, self, result)

    result = torch.median(self)
    return result, backward


@gradient("aten::median.dim")
def median_dim(self, dim, keepdim):
    def backward(grad):
        return torch.value_selecting_reduction_backward(grad, dim, indices, self_size, keepdim), None, None

    self_size = self.size()
    values, indices = torch.median(self, dim, keepdim)
    return (values, indices), backward


def _exclusive_products(x: Tensor, dim: int) -> Tensor:
    """The product of every element of `x` along `dim` but itself (zeros included: no
    division), as the prefix and suffix products around each element."""
    n = x.size(dim)
    if n == 0:
        return x
    ones = torch.ones_like(x.narrow(dim, 0, 1))
    before = torch.cat([ones, x.narrow(dim, 0, n - 1)], dim).cumprod(dim)
    after = torch.cat([x.narrow(dim, 1, n - 1), ones], dim).flip([dim]).cumprod(dim).flip([dim])
    return before * after


@gradient("aten::prod.dim_int")
def prod_dim(self, dim, keepdim, dtype):
    def backward(grad):
        if self.dim() == 0:
            return grad, None, None, None
        kept = grad if keepdim else grad.unsqueeze(dim)
        return kept * _exclusive_products(self, dim), None, None, None

    return torch.prod(self, dim, keepdim, dtype=dtype), backward


@gradient("aten::cumprod")
def cumprod(self, dim, dtype):
    def backward(grad):
        if self.dim() == 0:
            return grad, None, None
        # d out_j / d x_i = prod(x_k for k <= j, k != i) for j >= i: every row i of the
        # products with x_i replaced by 1, cumulated, summed against the gradient
        x = self.movedim(dim, -1)
        g = grad.movedim(dim, -1).to(x.dtype)
        n = x.size(-1)
        diagonal = torch.eye(n, dtype=torch.bool)
        rows = torch.where(diagonal, torch.ones_like(x).unsqueeze(-2), x.unsqueeze(-2)).cumprod(-1)
        later = torch.ones(n, n, dtype=torch.bool).triu()
        terms = torch.where(later, rows * g.unsqueeze(-2), torch.zeros_like(rows))
        return terms.sum(-1).movedim(-1, dim), None, None

    return torch.cumprod(self, dim, dtype=dtype), backward


@gradient("aten::aminmax")
def aminmax(self, dim, keepdim):
    def backward(grad_min, grad_max):
        if dim is None:
            return _evenly_distributed(grad_min, self, low) + _evenly_distributed(grad_max, self, high), None, None
        dims = [dim]
        return _selected_evenly(grad_min, self, low, dims) + _selected_evenly(grad_max, self, high, dims), None, None

    if dim is None:
        low = torch.amin(self)
        high = torch.amax(self)
        result_low = low
        result_high = high
    else:
        low = torch.amin(self, [dim], True)
        high = torch.amax(self, [dim], True)
        result_low = _unkept(low, [dim], keepdim)
        result_high = _unkept(high, [dim], keepdim)
    return (result_low, result_high), backward


@gradient("aten::topk")
def topk(self, k, dim, largest, sorted):
    def backward(grad):
        return torch.value_selecting_reduction_backward(grad, dim, indices, self_size, True), None, None, None, None

    self_size = self.size()
    values, indices = torch.topk(self, k, dim, largest, sorted)
    return (values, indices), backward


@gradient("aten::sort")
def sort(self, dim, descending):
    def backward(grad):
        return torch.value_selecting_reduction_backward(grad, dim, indices, self_size, True), None, None

    self_size = self.size()
    values, indices = torch.sort(self, dim, descending)
    return (values, indices), backward


@gradient("aten::sort.stable")
def sort_stable(self, stable, dim, descending):
    def backward(grad):
        return torch.value_selecting_reduction_backward(grad, dim, indices, self_size, True), None, None, None

    self_size = self.size()
    values, indices = torch.sort(self, stable=stable, dim=dim, descending=descending)
    return (values, indices), backward


@gradient("aten::kthvalue")
def kthvalue(self, k, dim, keepdim):
    def backward(grad):
        return torch.value_selecting_reduction_backward(grad, dim, indices, self_size, keepdim), None, None, None

    self_size = self.size()
    values, indices = torch.kthvalue(self, k, dim, keepdim)
    return (values, indices), backward


@gradient("aten::frobenius_norm.dim")
def frobenius_norm(self, dim, keepdim):
    def backward(grad):
        return _norm_backward(grad, self, kept, 2.0, dim), None, None

    kept = torch.frobenius_norm(self, dim, True)
    return _unkept(kept, dim, keepdim), backward


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


@gradient("aten::outer", "aten::ger")
def outer(self, vec2):
    def backward(grad):
        return grad.mv(vec2), grad.t().mv(self)

    return torch.outer(self, vec2), backward


@gradient("aten::vdot")
def vdot(self, other):
    def backward(grad):
        return grad * other, grad * self

    return torch.vdot(self, other), backward


@gradient("aten::inner")
def inner(self, other):
    def backward(grad):
        if self.dim() == 0 or other.dim() == 0:
            return (grad * other)._grad_sum_to_size(self_size), (grad * self)._grad_sum_to_size(other_size)
        k = self.size(-1)
        a = self.reshape([-1, k])
        b = other.reshape([-1, k])
        g = grad.reshape([a.size(0), b.size(0)])
        return g.mm(b).reshape(self_size), g.t().mm(a).reshape(other_size)

    self_size = self.size()
    other_size = other.size()
    return torch.inner(self, other), backward


@gradient("aten::addmv")
def addmv(self, mat, vec, beta, alpha):
    def backward(grad):
        return (
            (grad * beta)._grad_sum_to_size(self_size),
            torch.outer(grad, vec) * alpha,
            mat.t().mv(grad) * alpha,
            None,
            None,
        )

    self_size = self.size()
    return torch.addmv(self, mat, vec, beta=beta, alpha=alpha), backward


@gradient("aten::addbmm")
def addbmm(self, batch1, batch2, beta, alpha):
    def backward(grad):
        batched = grad.unsqueeze(0).expand([batch1.size(0), grad.size(0), grad.size(1)])
        return (
            (grad * beta)._grad_sum_to_size(self_size),
            batched.bmm(batch2.transpose(1, 2)) * alpha,
            batch1.transpose(1, 2).bmm(batched) * alpha,
            None,
            None,
        )

    self_size = self.size()
    return torch.addbmm(self, batch1, batch2, beta=beta, alpha=alpha), backward


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


def _repeat_backward(grad: Tensor, self_size: List[int], repeats: List[int]) -> Tensor:
    """The gradient of `repeat`: each copy's gradient summed back onto the input."""
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
    return summed.sum(dims).reshape(self_size)


@gradient("aten::repeat")
def repeat(self, repeats):
    def backward(grad):
        return _repeat_backward(grad, self_size, repeats), None

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
        begin = start if start >= 0 else start + self_size[dim]
        return torch.slice_backward(grad, self_size, dim, begin, begin + length, 1), None, None, None

    self_size = self.size()
    return torch.narrow(self, dim, start, length), backward


@gradient("aten::narrow.Tensor")
def narrow_tensor(self, dim, start, length):
    def backward(grad):
        begin = int(start)
        begin = begin if begin >= 0 else begin + self_size[dim]
        return torch.slice_backward(grad, self_size, dim, begin, begin + length, 1), None, None, None

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


@gradient("aten::cat", "aten::concat", "aten::concatenate")
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


@gradient("aten::tile")
def tile(self, dims):
    def backward(grad):
        return _repeat_backward(grad, self_size, repeats), None

    self_size = self.size()
    repeats: List[int] = []
    for _ in range(self.dim() - len(dims)):
        repeats.append(1)
    for d in dims:
        repeats.append(d)
    return torch.tile(self, dims), backward


@gradient("aten::repeat_interleave.self_int")
def repeat_interleave(self, repeats, dim, output_size):
    def backward(grad):
        if dim is None:
            return grad.reshape([-1, repeats]).sum(1).reshape(self_size), None, None, None
        d = dim if dim >= 0 else dim + len(self_size)
        sizes = self_size[:d] + [self_size[d], repeats] + self_size[d + 1 :]
        return grad.reshape(sizes).sum(d + 1), None, None, None

    self_size = self.size()
    return torch.repeat_interleave(self, repeats, dim, output_size=output_size), backward


@gradient("aten::repeat_interleave.self_Tensor")
def repeat_interleave_tensor(self, repeats, dim, output_size):
    def backward(grad):
        if dim is None:
            flat = torch.zeros([self.numel()], dtype=grad.dtype).index_add(0, sources, grad.reshape(-1))
            return flat.reshape(self_size), None, None, None
        return torch.zeros(self_size, dtype=grad.dtype).index_add(dim, sources, grad), None, None, None

    self_size = self.size()
    length = self.numel() if dim is None else self.size(dim)
    sources = torch.repeat_interleave(torch.arange(length), repeats)
    return torch.repeat_interleave(self, repeats, dim, output_size=output_size), backward


@gradient("aten::ravel")
def ravel(self):
    def backward(grad):
        return grad.reshape(self_size)

    self_size = self.size()
    return torch.ravel(self), backward


@gradient("aten::movedim.int", "aten::moveaxis.int")
def movedim(self, source, destination):
    def backward(grad):
        return grad.movedim(destination, source), None, None

    return torch.movedim(self, source, destination), backward


@gradient("aten::movedim.intlist", "aten::moveaxis.intlist")
def movedim_list(self, source, destination):
    def backward(grad):
        return grad.movedim(destination, source), None, None

    return torch.movedim(self, source, destination), backward


@gradient("aten::mT", "aten::mT.a")
def mT(self):
    def backward(grad):
        return grad.mT

    return self.mT, backward


@gradient("aten::numpy_T", "aten::numpy_T.a")
def numpy_T(self):
    def backward(grad):
        return grad.T

    return self.T, backward


@gradient("aten::unfold")
def unfold(self, dimension, size, step):
    def backward(grad):
        return torch.unfold_backward(grad, self_size, dimension, size, step), None, None, None

    self_size = self.size()
    return self.unfold(dimension, size, step), backward


@gradient("aten::diagonal")
def diagonal(self, offset, dim1, dim2):
    def backward(grad):
        return torch.diagonal_backward(grad, self_size, offset, dim1, dim2), None, None, None

    self_size = self.size()
    return torch.diagonal(self, offset, dim1, dim2), backward


@gradient("aten::diag_embed")
def diag_embed(self, offset: int, dim1: int, dim2: int):
    def backward(grad):
        return torch.diagonal(grad, offset, dim1, dim2), None, None, None

    return torch.diag_embed(self, offset, dim1, dim2), backward


@gradient("aten::diag")
def diag(self, diagonal):
    def backward(grad):
        if len(self_size) == 1:
            return grad.diagonal(diagonal), None
        return torch.diagonal_backward(grad, self_size, diagonal, 0, 1), None

    self_size = self.size()
    return torch.diag(self, diagonal), backward


@gradient("aten::trace")
def trace(self):
    def backward(grad):
        return torch.eye(self_size[0], self_size[1], dtype=grad.dtype) * grad

    self_size = self.size()
    return torch.trace(self), backward


@gradient("aten::tril")
def tril(self, diagonal):
    def backward(grad):
        return grad.tril(diagonal), None

    return torch.tril(self, diagonal), backward


@gradient("aten::triu")
def triu(self, diagonal):
    def backward(grad):
        return grad.triu(diagonal), None

    return torch.triu(self, diagonal), backward


@gradient("aten::roll")
def roll(self, shifts, dims):
    def backward(grad):
        back: List[int] = []
        for s in shifts:
            back.append(-s)
        return grad.roll(back, dims), None, None

    return torch.roll(self, shifts, dims), backward


@gradient("aten::sum_to_size")
def sum_to_size(self, size):
    def backward(grad):
        return grad.expand(self_size), None

    self_size = self.size()
    return self.sum_to_size(size), backward


@gradient("aten::constant_pad_nd")
def constant_pad_nd(self, pad, value):
    def backward(grad):
        return torch.constant_pad_nd(grad, _negated(pad)), None, None

    return torch.constant_pad_nd(self, pad, value), backward


def _negated(values: List[int]) -> List[int]:
    negated: List[int] = []
    for v in values:
        negated.append(-v)
    return negated


def _pad_sources(n: int, before: int, after: int, mode: str) -> Tensor:
    """For each position of a dimension of `n` padded by `before` and `after` in
    `mode`, the position of the input it copies."""
    positions = torch.arange(-before, n + after)
    if mode == "reflect":
        positions = positions.abs()
        return torch.where(positions >= n, 2 * (n - 1) - positions, positions)
    if mode == "replicate":
        return positions.clamp(0, n - 1)
    return positions.remainder(n)  # circular


@gradient("aten::pad")
def pad(self, pad, mode, value):
    def backward(grad):
        if mode == "constant":
            return torch.constant_pad_nd(grad, _negated(pad)), None, None, None
        # every padded position adds its gradient into the input position it copied
        result = grad
        for k in range(len(pad) // 2):
            dim = len(self_size) - 1 - k
            sizes = result.size()
            sizes[dim] = self_size[dim]
            sources = _pad_sources(self_size[dim], pad[2 * k], pad[2 * k + 1], mode)
            result = torch.zeros(sizes, dtype=grad.dtype).index_add(dim, sources, result)
        return result, None, None, None

    self_size = self.size()
    return torch.pad(self, pad, mode, value), backward


@gradient("aten::broadcast_tensors")
def broadcast_tensors(tensors):
    def backward(grads):
        result: List[Tensor] = []
        for i in range(len(grads)):
            result.append(grads[i]._grad_sum_to_size(sizes[i]))
        return result

    sizes: List[List[int]] = []
    for t in tensors:
        sizes.append(t.size())
    return torch.broadcast_tensors(tensors), backward


def _split_back(grad: Tensor, sizes: List[List[int]], widths: List[int], dim: int) -> List[Tensor]:
    """The parts of a concatenation's gradient, each shaped like its input."""
    parts = torch.split_with_sizes(grad, widths, dim)
    result: List[Tensor] = []
    for i in range(len(parts)):
        result.append(parts[i].reshape(sizes[i]))
    return result


@gradient("aten::vstack", "aten::row_stack")
def vstack(tensors):
    def backward(grad):
        return _split_back(grad, sizes, widths, 0)

    sizes: List[List[int]] = []
    widths: List[int] = []
    for t in tensors:
        sizes.append(t.size())
        widths.append(t.size(0) if t.dim() >= 2 else 1)
    return torch.vstack(tensors), backward


@gradient("aten::hstack")
def hstack(tensors):
    def backward(grad):
        return _split_back(grad, sizes, widths, dim)

    dim = 0 if tensors[0].dim() <= 1 else 1
    sizes: List[List[int]] = []
    widths: List[int] = []
    for t in tensors:
        sizes.append(t.size())
        widths.append(t.size(dim) if t.dim() > 0 else 1)
    return torch.hstack(tensors), backward


@gradient("aten::take")
def take(self, index):
    def backward(grad):
        count = self.numel()
        flat = torch.zeros([count], dtype=grad.dtype).index_add(0, index.reshape(-1).remainder(count), grad.reshape(-1))
        return flat.reshape(self_size), None

    self_size = self.size()
    return torch.take(self, index), backward


@gradient("aten::index_add")
def index_add(self, dim, index, source, alpha):
    def backward(grad):
        grad_source = grad.index_select(dim, index) if source.dim() > 0 else grad.index_select(dim, index).reshape(source_size)
        return grad, None, None, _scaled(grad_source, alpha), None

    source_size = source.size()
    return torch.index_add(self, dim, index, source, alpha=alpha), backward


@gradient("aten::index_copy")
def index_copy(self, dim, index, source):
    def backward(grad):
        return grad.index_fill(dim, index, 0.0), None, None, grad.index_select(dim, index).reshape(source_size)

    source_size = source.size()
    return torch.index_copy(self, dim, index, source), backward


@gradient("aten::scatter_add")
def scatter_add(self, dim, index, src):
    def backward(grad):
        return grad, None, None, grad.gather(dim, index)

    return torch.scatter_add(self, dim, index, src), backward


@gradient("aten::scatter_reduce.two")
def scatter_reduce(self, dim, index, src, reduce, include_self):
    def backward(grad):
        # PyTorch's scatter_reduce_backward
        if reduce == "sum":
            grad_self = grad
            grad_src = grad.gather(dim, index)
        elif reduce == "mean":
            counts = torch.ones_like(grad) if include_self else torch.zeros_like(grad)
            counts = counts.scatter_add(dim, index, torch.ones_like(src))
            counts = counts.masked_fill(counts == 0, 1)
            grad_self = grad / counts
            grad_src = grad.gather(dim, index) / counts.gather(dim, index)
        elif reduce == "amax" or reduce == "amin":
            value = result.gather(dim, index)
            self_is_result = self == result
            src_is_result = src == value
            shares = self_is_result.to(grad.dtype).scatter_add(dim, index, src_is_result.to(grad.dtype))
            distributed = grad / shares
            grad_self = self_is_result * distributed
            grad_src = src_is_result * distributed.gather(dim, index)
        else:
            raise RuntimeError("tsjit differentiates scatter_reduce with reduce='sum', 'mean', 'amax' or 'amin' only")
        if not include_self:
            grad_self = grad_self.scatter(dim, index, 0.0)
        return grad_self, None, None, grad_src, None, None

    result = torch.scatter_reduce(self, dim, index, src, reduce, include_self=include_self)
    return result, backward


@gradient("aten::scatter.src")
def scatter_src(self, dim, index, src):
    def backward(grad):
        return grad.scatter(dim, index, 0.0), None, None, grad.gather(dim, index)

    return torch.scatter(self, dim, index, src), backward


@gradient("aten::scatter.value")
def scatter_value(self, dim, index, value):
    def backward(grad):
        return grad.scatter(dim, index, 0.0), None, None, None

    return torch.scatter(self, dim, index, value), backward


@gradient("aten::masked_select")
def masked_select(self, mask):
    def backward(grad):
        filled = torch.index_put(torch.zeros(expanded_size, dtype=grad.dtype), [expanded_mask], grad)
        return filled._grad_sum_to_size(self_size), None

    self_size = self.size()
    expanded, expanded_mask = torch.broadcast_tensors([self, mask])
    expanded_size = expanded.size()
    return torch.masked_select(self, mask), backward


@gradient("aten::index_put", "aten::index_put.hacked_twin")
def index_put(self, indices, values, accumulate):
    def backward(grad):
        grad_self = grad
        if not accumulate:
            grad_self = torch.index_put(grad, indices, torch.zeros_like(values), False)
        return grad_self, None, torch.index(grad, indices)._grad_sum_to_size(values_size), None

    values_size = values.size()
    return torch.index_put(self, indices, values, accumulate), backward


@gradient("aten::index_fill.int_Scalar")
def index_fill(self, dim, index, value):
    def backward(grad):
        return grad.index_fill(dim, index, 0.0), None, None, None

    return torch.index_fill(self, dim, index, value), backward


@gradient("aten::index_fill.int_Tensor")
def index_fill_tensor(self, dim, index, value):
    def backward(grad):
        return grad.index_fill(dim, index, 0.0), None, None, grad.index_select(dim, index).sum()

    return torch.index_fill(self, dim, index, value), backward


@gradient("aten::pixel_shuffle")
def pixel_shuffle(self, upscale_factor):
    def backward(grad):
        r = upscale_factor
        n = len(self_size)
        channels = self_size[n - 3] // (r * r)
        height = self_size[n - 2]
        width = self_size[n - 1]
        batch = 1  # not -1: an empty batch leaves -1 undetermined
        for size in self_size[: n - 3]:
            batch *= size
        blocks = grad.reshape([batch, channels, height, r, width, r]).permute([0, 1, 3, 5, 2, 4])
        return blocks.reshape(self_size), None

    self_size = self.size()
    return torch.pixel_shuffle(self, upscale_factor), backward


@gradient("aten::swapaxes")
def swapaxes(self, axis0, axis1):
    def backward(grad):
        return grad.transpose(axis0, axis1), None, None

    return torch.transpose(self, axis0, axis1), backward


@gradient("aten::swapdims")
def swapdims(self, dim0, dim1):
    def backward(grad):
        return grad.transpose(dim0, dim1), None, None

    return torch.transpose(self, dim0, dim1), backward


@gradient("aten::tensor_split.indices")
def tensor_split(self, indices, dim):
    def backward(grads):
        return torch.cat(grads, dim), None, None

    return torch.tensor_split(self, indices, dim), backward


@gradient("aten::tensor_split.sections")
def tensor_split_sections(self, sections, dim):
    def backward(grads):
        return torch.cat(grads, dim), None, None

    return torch.tensor_split(self, sections, dim), backward


@gradient("aten::tensor_split.tensor_indices_or_sections")
def tensor_split_tensor(self, tensor_indices_or_sections, dim):
    def backward(grads):
        return torch.cat(grads, dim), None, None

    return torch.tensor_split(self, tensor_indices_or_sections, dim), backward


def _einsum_parts(equation: str) -> Tuple[List[str], str]:
    """The operands' subscripts and the output's of an explicit einsum equation."""
    text = equation.replace(" ", "")
    arrow = text.find("->")
    if arrow < 0 or text.find(".") >= 0:
        raise RuntimeError("tsjit differentiates einsum equations with an explicit '->' and no '...' only")
    return text[:arrow].split(","), text[arrow + 2 :]


@gradient("aten::einsum")
def einsum(equation, tensors, path):
    def backward(grad):
        inputs, output = _einsum_parts(equation)
        grads: List[Tensor] = []
        for i in range(len(tensors)):
            target = inputs[i]
            operands = [grad]
            subscripts = [output]
            for j in range(len(tensors)):
                if j != i:
                    operands.append(tensors[j])
                    subscripts.append(inputs[j])
            seen = ",".join(subscripts)
            kept = ""
            for c in target:
                if seen.find(c) >= 0 and kept.find(c) < 0:
                    kept = kept + c
            if len(kept) != len(target):
                for c in target:
                    if target.count(c) > 1:
                        raise RuntimeError("tsjit differentiates einsum without repeated subscripts in an operand only")
            partial = torch.einsum(seen + "->" + kept, operands)
            # subscripts only this operand has: its gradient is the same along them
            position = 0
            for c in target:
                if kept.find(c) < 0:
                    partial = partial.unsqueeze(position)
                position += 1
            grads.append(partial.expand(tensors[i].size()))
        return None, grads, None

    return torch.einsum(equation, tensors, path=path), backward


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


@gradient("aten::batch_norm", not_differentiable=("running_mean", "running_var"))
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


@gradient("aten::native_batch_norm", "aten::_native_batch_norm_legit", not_differentiable=("running_mean", "running_var"))
def native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps):
    def backward(grad):
        grad_input, grad_weight, grad_bias = torch.native_batch_norm_backward(
            grad, input, weight, running_mean, running_var, save_mean, save_invstd, training, eps,
            [True, has_weight, has_bias],
        )
        return grad_input, grad_weight, grad_bias, None, None, None, None, None

    has_weight = weight is not None
    has_bias = bias is not None
    output, save_mean, save_invstd = torch.native_batch_norm(
        input, weight, bias, running_mean, running_var, training, momentum, eps
    )
    return (output, save_mean, save_invstd), backward


@gradient("aten::_batch_norm_with_update", not_differentiable=("running_mean", "running_var"))
def _batch_norm_with_update(input, weight, bias, running_mean, running_var, momentum, eps):
    def backward(grad):
        grad_input, grad_weight, grad_bias = torch.native_batch_norm_backward(
            grad, input, weight, running_mean, running_var, save_mean, save_invstd, True, eps,
            [True, has_weight, has_bias],
        )
        return grad_input, grad_weight, grad_bias, None, None, None, None

    has_weight = weight is not None
    has_bias = bias is not None
    output, save_mean, save_invstd, reserve = torch._batch_norm_with_update(
        input, weight, bias, running_mean, running_var, momentum, eps
    )
    return (output, save_mean, save_invstd, reserve), backward


def _channel_shape(input: Tensor) -> List[int]:
    """[C, 1, ...]: a per-channel parameter broadcast against `input` (N, C, *)."""
    shape = [input.size(1)]
    for _ in range(input.dim() - 2):
        shape.append(1)
    return shape


def _all_but_channels(input: Tensor) -> List[int]:
    dims = [0]
    for d in range(2, input.dim()):
        dims.append(d)
    return dims


def _grouped_norm_backward(grad: Tensor, groups: Tensor, normalized: Tensor, mean: Tensor, rstd: Tensor,
                           weight: Optional[Tensor], has_bias: bool) -> Tuple[Tensor, Optional[Tensor], Optional[Tensor]]:  # fmt: skip
    """The gradients of a normalization over the last dimension of `groups` (the input
    reshaped to [N, groups, -1]) followed by a per-channel affine map."""
    grad_normalized = grad
    grad_weight: Optional[Tensor] = None
    grad_bias: Optional[Tensor] = None
    if weight is not None:
        grad_normalized = grad * weight.reshape(_channel_shape(grad))
        grad_weight = (grad * normalized).sum(_all_but_channels(grad))
    if has_bias:
        grad_bias = grad.sum(_all_but_channels(grad))
    grad_groups, _, _ = torch.native_layer_norm_backward(
        grad_normalized.reshape(groups.size()), groups, [groups.size(2)], mean, rstd, None, None, [True, False, False]
    )
    return grad_groups.reshape(grad.size()), grad_weight, grad_bias


def _affine(normalized: Tensor, weight: Optional[Tensor], bias: Optional[Tensor]) -> Tensor:
    result = normalized
    if weight is not None:
        result = result * weight.reshape(_channel_shape(normalized))
    if bias is not None:
        result = result + bias.reshape(_channel_shape(normalized))
    return result


@gradient("aten::group_norm")
def group_norm(input, num_groups, weight, bias, eps, cudnn_enabled):
    def backward(grad):
        grad_input, grad_weight, grad_bias = _grouped_norm_backward(grad, groups, normalized, mean, rstd, weight, has_bias)
        return grad_input, None, grad_weight, grad_bias, None, None

    has_bias = bias is not None
    groups = input.reshape([input.size(0), num_groups, -1])
    normalized_groups, mean, rstd = torch.native_layer_norm(groups, [groups.size(2)], None, None, eps)
    normalized = normalized_groups.reshape(input.size())
    return _affine(normalized, weight, bias), backward


@gradient("aten::instance_norm", not_differentiable=("running_mean", "running_var"))
def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps, cudnn_enabled):
    def backward(grad):
        if use_input_stats:
            grad_input, grad_weight, grad_bias = _grouped_norm_backward(grad, groups, normalized, mean, rstd, weight, has_bias)
            return grad_input, grad_weight, grad_bias, None, None, None, None, None, None
        # normalized by the running statistics: an affine map of the input
        assert running_var is not None
        scale = torch.rsqrt(running_var + eps).reshape(_channel_shape(grad))
        grad_normalized = grad
        grad_weight: Optional[Tensor] = None
        grad_bias: Optional[Tensor] = None
        if weight is not None:
            grad_normalized = grad * weight.reshape(_channel_shape(grad))
            grad_weight = (grad * normalized).sum(_all_but_channels(grad))
        if has_bias:
            grad_bias = grad.sum(_all_but_channels(grad))
        return grad_normalized * scale, grad_weight, grad_bias, None, None, None, None, None, None

    has_bias = bias is not None
    # the operator itself (it updates the running statistics), and the statistics again
    output = torch.instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps,
                                 cudnn_enabled)  # fmt: skip
    groups = input.reshape([input.size(0), input.size(1), -1])
    if use_input_stats:
        normalized_groups, mean, rstd = torch.native_layer_norm(groups, [groups.size(2)], None, None, eps)
        normalized = normalized_groups.reshape(input.size())
    else:
        assert running_mean is not None and running_var is not None
        mean = running_mean
        rstd = torch.rsqrt(running_var + eps)
        normalized = (input - running_mean.reshape(_channel_shape(input))) * rstd.reshape(_channel_shape(input))
    return output, backward


def _machine_epsilon(dtype: int) -> float:
    """`torch.finfo(dtype).eps` of a floating dtype."""
    if dtype == torch.float64:
        return 2.220446049250313e-16
    if dtype == torch.float16:
        return 0.0009765625
    if dtype == torch.bfloat16:
        return 0.0078125
    return 1.1920928955078125e-07


@gradient("aten::rms_norm")
def rms_norm(input, normalized_shape, weight, eps):
    def backward(grad):
        grad_normalized = grad
        grad_weight: Optional[Tensor] = None
        if weight is not None:
            grad_normalized = grad * weight
            grad_weight = (grad * normalized)._grad_sum_to_size(weight.size())
        projection = (grad_normalized * normalized).mean(dims, True)
        return rstd * (grad_normalized - normalized * projection), None, grad_weight, None

    dims: List[int] = []
    for i in range(len(normalized_shape)):
        dims.append(-1 - i)
    epsilon = _machine_epsilon(input.dtype) if eps is None else eps
    rstd = torch.rsqrt((input * input).mean(dims, True) + epsilon)
    normalized = input * rstd
    result = normalized
    if weight is not None:
        result = normalized * weight
    return result, backward


@gradient("aten::max_pool2d_with_indices")
def max_pool2d_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode):
    def backward(grad):
        return torch.max_pool2d_with_indices_backward(
            grad, self, kernel_size, stride, padding, dilation, ceil_mode, indices
        ), None, None, None, None, None

    output, indices = torch.max_pool2d_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode)
    return (output, indices), backward


@gradient("aten::max_pool1d_with_indices")
def max_pool1d_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode):
    def backward(grad):
        grad_2d = torch.max_pool2d_with_indices_backward(
            grad.unsqueeze(-2), self_2d, [1, kernel_size[0]], [1, stride_[0]], [0, padding[0]], [1, dilation[0]],
            ceil_mode, indices_2d,
        )
        return grad_2d.squeeze(-2), None, None, None, None, None

    stride_ = kernel_size if len(stride) == 0 else stride
    self_2d = self.unsqueeze(-2)
    output, indices_2d = torch.max_pool2d_with_indices(
        self_2d, [1, kernel_size[0]], [1, stride_[0]], [0, padding[0]], [1, dilation[0]], ceil_mode
    )
    return (output.squeeze(-2), indices_2d.squeeze(-2)), backward


@gradient("aten::adaptive_avg_pool1d")
def adaptive_avg_pool1d(self, output_size):
    def backward(grad):
        return torch._adaptive_avg_pool2d_backward(grad.unsqueeze(-2), self_2d).squeeze(-2), None

    self_2d = self.unsqueeze(-2)
    return torch.adaptive_avg_pool2d(self_2d, [1, output_size[0]]).squeeze(-2), backward


def _same_padding(input: Tensor, weight: Tensor, dilation: List[int], padding: str) -> Tuple[List[int], List[int]]:
    """A string padding as a symmetric padding per spatial dimension, and what
    `constant_pad_nd` must add first (the odd element of `same` goes after)."""
    n = weight.dim() - 2
    symmetric: List[int] = []
    extra: List[int] = []
    for i in range(n):
        if padding == "valid":
            symmetric.append(0)
        else:
            total = dilation[i] * (weight.size(2 + i) - 1)
            symmetric.append(total // 2)
            extra = [0, total - 2 * (total // 2)] + extra
    return symmetric, extra


def _any_nonzero(values: List[int]) -> bool:
    for v in values:
        if v != 0:
            return True
    return False


@gradient("aten::conv1d.padding", "aten::conv2d.padding", "aten::conv3d.padding")
def conv_padding(input, weight, bias, stride, padding, dilation, groups):
    def backward(grad):
        grad_padded, grad_weight, grad_bias = _conv_backward(grad, padded, weight, bias is not None,
                                                             _bias_sizes(bias), stride, symmetric, dilation,
                                                             False, output_padding, groups)  # fmt: skip
        grad_input = grad_padded
        if asymmetric:
            grad_input = torch.constant_pad_nd(grad_padded, _negated(extra))
        return grad_input, grad_weight, grad_bias, None, None, None, None

    symmetric, extra = _same_padding(input, weight, dilation, padding)
    asymmetric = _any_nonzero(extra)
    padded = torch.constant_pad_nd(input, extra) if asymmetric else input
    output_padding = [0] * len(symmetric)
    if len(symmetric) == 1:
        output = torch.conv1d(padded, weight, bias, stride, symmetric, dilation, groups)
    elif len(symmetric) == 2:
        output = torch.conv2d(padded, weight, bias, stride, symmetric, dilation, groups)
    else:
        output = torch.conv3d(padded, weight, bias, stride, symmetric, dilation, groups)
    return output, backward


@gradient("aten::pairwise_distance")
def pairwise_distance(x1, x2, p, eps, keepdim):
    def backward(grad):
        g = grad if keepdim else grad.unsqueeze(-1)
        if p == 0.0:
            direction = torch.zeros_like(difference)
        elif p == 2.0:
            direction = difference / kept
        else:
            direction = torch.sign(difference) * torch.abs(difference).pow(p - 1.0) / kept.pow(p - 1.0)
        grad_x1 = g * direction
        return grad_x1._grad_sum_to_size(x1_size), (-grad_x1)._grad_sum_to_size(x2_size), None, None, None

    x1_size = x1.size()
    x2_size = x2.size()
    difference = x1 - x2 + eps
    kept = torch.norm(difference, p, [-1], True)
    return torch.pairwise_distance(x1, x2, p, eps, keepdim), backward


@gradient("aten::cosine_similarity")
def cosine_similarity(x1, x2, dim, eps):
    def backward(grad):
        g = grad.unsqueeze(dim) / (norm1 * norm2)
        cosine = result.unsqueeze(dim)
        grad_x1 = g * x2 - grad.unsqueeze(dim) * cosine * x1 / (norm1 * norm1)
        grad_x2 = g * x1 - grad.unsqueeze(dim) * cosine * x2 / (norm2 * norm2)
        return grad_x1._grad_sum_to_size(x1_size), grad_x2._grad_sum_to_size(x2_size), None, None

    x1_size = x1.size()
    x2_size = x2.size()
    norm1 = torch.linalg_vector_norm(x1, 2.0, [dim], True).clamp_min(eps)
    norm2 = torch.linalg_vector_norm(x2, 2.0, [dim], True).clamp_min(eps)
    result = torch.cosine_similarity(x1, x2, dim, eps)
    return result, backward


@gradient("aten::native_dropout")
def native_dropout(input, p, train):
    def backward(grad):
        if train is None or train:
            return torch.native_dropout_backward(grad, mask, 0.0 if p == 1.0 else 1.0 / (1.0 - p)), None, None
        return grad, None, None

    output, mask = torch.native_dropout(input, p, train)
    return (output, mask), backward


@gradient("aten::rrelu")
def rrelu(self, lower, upper, training, generator):
    def backward(grad):
        if training:
            raise RuntimeError("tsjit differentiates rrelu with training=False only")
        slope = (float(lower) + float(upper)) / 2.0
        return torch.where(self > 0, grad, grad * slope), None, None, None, None

    return torch.rrelu(self, lower, upper, training, generator), backward


@gradient("aten::avg_pool1d")
def avg_pool1d(self, kernel_size, stride, padding, ceil_mode, count_include_pad):
    def backward(grad):
        grad_2d = torch.avg_pool2d_backward(grad.unsqueeze(-2), self_2d, kernel_2d, stride_2d, padding_2d, ceil_mode,
                                            count_include_pad, None)  # fmt: skip
        return grad_2d.squeeze(-2), None, None, None, None, None

    self_2d = self.unsqueeze(-2)
    kernel_2d = [1, kernel_size[0]]
    stride_2d = [1, kernel_size[0] if len(stride) == 0 else stride[0]]
    padding_2d = [0, padding[0]]
    output = torch.avg_pool2d(self_2d, kernel_2d, stride_2d, padding_2d, ceil_mode, count_include_pad)
    return output.squeeze(-2), backward


def _gate_sums(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor, b_ih: Optional[Tensor],
               b_hh: Optional[Tensor]) -> Tuple[Tensor, Tensor]:  # fmt: skip
    """The input's and the hidden state's contributions to a recurrent cell's gates."""
    from_input = torch.mm(input, w_ih.t())
    if b_ih is not None:
        from_input = from_input + b_ih
    from_hidden = torch.mm(hx, w_hh.t())
    if b_hh is not None:
        from_hidden = from_hidden + b_hh
    return from_input, from_hidden


def _bias_grad(grad_gates: Tensor, bias: Optional[Tensor]) -> Optional[Tensor]:
    if bias is None:
        return None
    return grad_gates.sum(0)


@gradient("aten::lstm_cell")
def lstm_cell(input, hx, w_ih, w_hh, b_ih, b_hh):
    def backward(grad_hy, grad_cy):
        grad_o = grad_hy * tanh_cy
        grad_c = grad_cy + grad_hy * o * (1.0 - tanh_cy * tanh_cy)
        grad_gates = torch.cat([
            grad_c * g * i * (1.0 - i),
            grad_c * cx * f * (1.0 - f),
            grad_c * i * (1.0 - g * g),
            grad_o * o * (1.0 - o),
        ], 1)
        grad_hx = [grad_gates.mm(w_hh), grad_c * f]
        return (grad_gates.mm(w_ih), grad_hx, grad_gates.t().mm(input), grad_gates.t().mm(h),
                _bias_grad(grad_gates, b_ih), _bias_grad(grad_gates, b_hh))  # fmt: skip

    h = hx[0]
    cx = hx[1]
    from_input, from_hidden = _gate_sums(input, h, w_ih, w_hh, b_ih, b_hh)
    ingate, forgetgate, cellgate, outgate = (from_input + from_hidden).chunk(4, 1)
    i = torch.sigmoid(ingate)
    f = torch.sigmoid(forgetgate)
    g = torch.tanh(cellgate)
    o = torch.sigmoid(outgate)
    cy = f * cx + i * g
    tanh_cy = torch.tanh(cy)
    return (o * tanh_cy, cy), backward


@gradient("aten::gru_cell")
def gru_cell(input, hx, w_ih, w_hh, b_ih, b_hh):
    def backward(grad):
        grad_n = grad * (1.0 - z) * (1.0 - n * n)
        grad_r = grad_n * hidden_n * r * (1.0 - r)
        grad_z = grad * (hx - n) * z * (1.0 - z)
        grad_input_gates = torch.cat([grad_r, grad_z, grad_n], 1)
        grad_hidden_gates = torch.cat([grad_r, grad_z, grad_n * r], 1)
        return (grad_input_gates.mm(w_ih), grad * z + grad_hidden_gates.mm(w_hh),
                grad_input_gates.t().mm(input), grad_hidden_gates.t().mm(hx),
                _bias_grad(grad_input_gates, b_ih), _bias_grad(grad_hidden_gates, b_hh))  # fmt: skip

    from_input, from_hidden = _gate_sums(input, hx, w_ih, w_hh, b_ih, b_hh)
    input_r, input_z, input_n = from_input.chunk(3, 1)
    hidden_r, hidden_z, hidden_n = from_hidden.chunk(3, 1)
    r = torch.sigmoid(input_r + hidden_r)
    z = torch.sigmoid(input_z + hidden_z)
    n = torch.tanh(input_n + r * hidden_n)
    return n + z * (hx - n), backward


@gradient("aten::rnn_tanh_cell")
def rnn_tanh_cell(input, hx, w_ih, w_hh, b_ih, b_hh):
    def backward(grad):
        grad_gates = grad * (1.0 - result * result)
        return (grad_gates.mm(w_ih), grad_gates.mm(w_hh), grad_gates.t().mm(input), grad_gates.t().mm(hx),
                _bias_grad(grad_gates, b_ih), _bias_grad(grad_gates, b_hh))  # fmt: skip

    from_input, from_hidden = _gate_sums(input, hx, w_ih, w_hh, b_ih, b_hh)
    result = torch.tanh(from_input + from_hidden)
    return result, backward


@gradient("aten::rnn_relu_cell")
def rnn_relu_cell(input, hx, w_ih, w_hh, b_ih, b_hh):
    def backward(grad):
        grad_gates = torch.where(result > 0, grad, torch.zeros_like(grad))
        return (grad_gates.mm(w_ih), grad_gates.mm(w_hh), grad_gates.t().mm(input), grad_gates.t().mm(hx),
                _bias_grad(grad_gates, b_ih), _bias_grad(grad_gates, b_hh))  # fmt: skip

    from_input, from_hidden = _gate_sums(input, hx, w_ih, w_hh, b_ih, b_hh)
    result = torch.relu(from_input + from_hidden)
    return result, backward


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


@gradient("aten::soft_margin_loss", not_differentiable=("target",))
def soft_margin_loss(self, target, reduction):
    def backward(grad):
        return _loss_scale(grad, -target * torch.sigmoid(-target * self), reduction), None, None

    return torch.soft_margin_loss(self, target, reduction), backward


@gradient("aten::hinge_embedding_loss")
def hinge_embedding_loss(self, target, margin, reduction):
    def backward(grad):
        # PyTorch's composite: where(target != 1, (margin - self).clamp_min(0), 0) + where(target != -1, self, 0)
        pointwise = (target != -1).to(self.dtype) - ((target != 1) & (self <= margin)).to(self.dtype)
        return _loss_scale(grad, pointwise, reduction), None, None, None

    return torch.hinge_embedding_loss(self, target, margin, reduction), backward


@gradient("aten::margin_ranking_loss")
def margin_ranking_loss(input1, input2, target, margin, reduction):
    def backward(grad):
        # PyTorch's composite: (-target * (input1 - input2) + margin).clamp_min(0)
        active = ((input2 - input1) * target + margin >= 0).to(grad.dtype)
        grad_input1 = _loss_scale(grad, -target * active, reduction)
        grad_target = _loss_scale(grad, (input2 - input1) * active, reduction)
        return (
            grad_input1._grad_sum_to_size(input1_size),
            (-grad_input1)._grad_sum_to_size(input2_size),
            grad_target._grad_sum_to_size(target_size),
            None,
            None,
        )

    input1_size = input1.size()
    input2_size = input2.size()
    target_size = target.size()
    return torch.margin_ranking_loss(input1, input2, target, margin, reduction), backward


@gradient("aten::poisson_nll_loss")
def poisson_nll_loss(input, target, log_input, full, eps, reduction):
    def backward(grad):
        if log_input:
            grad_input = torch.exp(input) - target
            grad_target = -input
        else:
            grad_input = 1.0 - target / (input + eps)
            grad_target = -torch.log(input + eps)
        if full:  # the Stirling term, masked where target <= 1 (as PyTorch's chain rule: nan where target <= 0)
            kept = (target > 1).to(grad_target.dtype)
            grad_target = grad_target + kept * torch.log(target) + kept * target / target - kept + 0.5 * kept / target
        return _loss_scale(grad, grad_input, reduction), _loss_scale(grad, grad_target, reduction), None, None, None, None

    return torch.poisson_nll_loss(input, target, log_input, full, eps, reduction), backward


@gradient("aten::binary_cross_entropy", not_differentiable=("weight",))
def binary_cross_entropy(self, target, weight, reduction):
    def backward(grad):
        grad_self = torch.binary_cross_entropy_backward(grad, self, target, weight, reduction)
        eps = 1e-12
        grad_target = _loss_scale(grad, torch.log((1.0 - self).clamp_min(eps)) - torch.log(self.clamp_min(eps)), reduction)
        if weight is not None:
            grad_target = grad_target * weight
        return grad_self, grad_target, None, None

    return torch.binary_cross_entropy(self, target, weight, reduction), backward


@gradient("aten::binary_cross_entropy_with_logits", not_differentiable=("weight", "pos_weight"))
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


@gradient("aten::nll_loss", "aten::nll_loss_nd", "aten::nll_loss2d", not_differentiable=("weight",))
def nll_loss(self, target, weight, reduction, ignore_index):
    def backward(grad):
        return torch.nll_loss_backward(grad, self, target, weight, reduction, ignore_index, total_weight), None, None, None, None

    output, total_weight = torch.nll_loss_forward(self, target, weight, reduction, ignore_index)
    return output, backward


@gradient("aten::cross_entropy_loss", not_differentiable=("weight",))
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
            pointwise_target = torch.exp(target) * (target - self + 1.0)
        else:
            pointwise = -target
            pointwise_target = torch.where(target > 0, torch.log(target) - self + 1.0, torch.zeros_like(target))
        return _loss_scale(grad, pointwise, reduction), _loss_scale(grad, pointwise_target, reduction), None, None

    return torch.kl_div(self, target, reduction, log_target=log_target), backward
