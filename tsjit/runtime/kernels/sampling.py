"""Random tensors: rand/randn/randint (and `*_like`), in-place normal_/uniform_, bernoulli.

One numpy Generator serves every kernel; `aten::manual_seed` reseeds it, so seeded programs
are reproducible run to run (but draw different numbers than PyTorch's Mersenne Twister).
Generator arguments are accepted and ignored. The random factories whose schemas match
zeros' and zeros_like's are rows built with `factory`'s makers over a random constructor.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tsjit.runtime.errors import TorchScriptError
from tsjit.runtime.kernels import kernel, register_kernel
from tsjit.runtime.kernels.common import as_tensor, assign, check_device
from tsjit.runtime.kernels.factory import (
    checked_size,
    dtype_or,
    like_factory,
    like_filled_factory,
    sized_factory,
    sized_factory_ignoring,
)
from tsjit.runtime.values import DEFAULT_DTYPE, Device, dtype_name

ndarray = np.ndarray

_state = {"rng": np.random.default_rng()}


def rng() -> np.random.Generator:
    """The runtime's random generator (replaced by `aten::manual_seed`)."""
    return _state["rng"]


@kernel("aten::manual_seed")
def manual_seed(seed: int) -> None:
    _state["rng"] = np.random.default_rng(seed)


def _floating(dtype: np.dtype, op: str) -> np.dtype:
    if dtype.kind != "f":
        raise TorchScriptError(f"\"{op}\" not implemented for '{dtype_name(dtype)}'")
    return dtype


def _uniform(shape: tuple[int, ...], dtype: np.dtype) -> ndarray:
    return rng().random(shape, dtype=np.float64).astype(_floating(dtype, "check_uniform_bounds"))


def _normal(shape: tuple[int, ...], dtype: np.dtype) -> ndarray:
    return rng().standard_normal(shape).astype(_floating(dtype, "normal_kernel_cpu"))


def _randint(shape: tuple[int, ...], low: int, high: int, dtype: np.dtype) -> ndarray:
    if low >= high:
        raise TorchScriptError(
            f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
        )
    return rng().integers(low, high, shape, dtype=np.int64).astype(dtype)


def _randint_below(shape: tuple[int, ...], high: int, dtype: np.dtype) -> ndarray:
    return _randint(shape, 0, high, dtype)


for _name, _factory in (
    ("aten::rand", sized_factory(_uniform)),
    ("aten::rand.generator", sized_factory_ignoring(_uniform)),
    ("aten::randn", sized_factory(_normal)),
    ("aten::randn.generator", sized_factory_ignoring(_normal)),
    ("aten::rand_like", like_factory(_uniform)),
    ("aten::randn_like", like_factory(_normal)),
    ("aten::randint_like", like_filled_factory(_randint_below)),
):
    register_kernel(_name, _factory)


@kernel("aten::randint.low")
def randint_low(
    low: int,
    high: int,
    size: Sequence[int],
    dtype: int | None = 4,
    layout: int | None = None,
    device: Device | None = None,
    pin_memory: bool | None = None,
) -> ndarray:
    check_device(device)
    return _randint(checked_size(size), low, high, dtype_or(dtype, np.dtype(np.int64)))


@kernel("aten::randint")
def randint(
    high: int,
    size: Sequence[int],
    dtype: int | None = 4,
    layout: int | None = None,
    device: Device | None = None,
    pin_memory: bool | None = None,
) -> ndarray:
    return randint_low(0, high, size, dtype, layout, device, pin_memory)


@kernel("aten::randint_like.low_dtype")
def randint_like_low(
    self: ndarray,
    low: int,
    high: int,
    dtype: int | None = None,
    layout: int | None = None,
    device: Device | None = None,
    pin_memory: bool | None = None,
    memory_format: int | None = None,
) -> ndarray:
    check_device(device)
    return _randint(self.shape, low, high, dtype_or(dtype, self.dtype))


@kernel("aten::uniform_")
def uniform_(self: ndarray, low: float = 0.0, high: float = 1.0, generator: object = None) -> ndarray:
    return assign(self, low + (high - low) * _uniform(self.shape, self.dtype))


@kernel("aten::uniform")
def uniform(self: ndarray, low: float = 0.0, high: float = 1.0, generator: object = None) -> ndarray:
    return uniform_(np.empty_like(self), low, high)


@kernel("aten::normal_")
def normal_(self: ndarray, mean: float = 0.0, std: float = 1.0, generator: object = None) -> ndarray:
    return assign(self, mean + std * _normal(self.shape, self.dtype))


def bernoulli_mask(shape: tuple[int, ...], p: object) -> ndarray:
    """True with probability p per element (p may be a tensor of probabilities)."""
    return rng().random(shape) < p


@kernel("aten::bernoulli")
def bernoulli(self: ndarray, generator: object = None) -> ndarray:
    return as_tensor(bernoulli_mask(self.shape, self).astype(self.dtype))


@kernel("aten::normal.Tensor_float", "aten::normal.float_Tensor", "aten::normal.Tensor_Tensor")
def normal(mean: object, std: object = 1.0, generator: object = None) -> ndarray:
    shape = np.broadcast_shapes(np.shape(mean), np.shape(std))
    dtype = (mean if type(mean) is ndarray else std).dtype
    return as_tensor((mean + std * _normal(shape, np.dtype(np.float64))).astype(dtype))


@kernel("aten::normal.float_float")
def normal_sized(
    mean: float,
    std: float,
    size: Sequence[int],
    generator: object = None,
    dtype: int | None = None,
    layout: int | None = None,
    device: Device | None = None,
    pin_memory: bool | None = None,
) -> ndarray:
    check_device(device)
    return (mean + std * _normal(checked_size(size), np.dtype(np.float64))).astype(
        dtype_or(dtype, DEFAULT_DTYPE)
    )


@kernel("aten::bernoulli.Tensor")
def bernoulli_tensor(self: ndarray, p: ndarray, generator: object = None) -> ndarray:
    return bernoulli_mask(self.shape, p).astype(self.dtype)


@kernel("aten::bernoulli.p")
def bernoulli_p(self: ndarray, p: float, generator: object = None) -> ndarray:
    return bernoulli_mask(self.shape, p).astype(self.dtype)


@kernel("aten::exponential")
def exponential(self: ndarray, lambd: float = 1.0, generator: object = None) -> ndarray:
    if self.dtype.kind != "f":
        raise TorchScriptError(f"exponential_ not implemented for '{dtype_name(self.dtype)}'")
    if not lambd > 0.0:
        raise TorchScriptError(f"exponential_ expects lambda > 0.0, but found lambda={lambd}")
    return as_tensor(rng().exponential(1.0 / lambd, self.shape).astype(self.dtype))


@kernel("aten::exponential_")
def exponential_(self: ndarray, lambd: float = 1.0, generator: object = None) -> ndarray:
    return assign(self, exponential(self, lambd))


@kernel("aten::cauchy")
def cauchy(self: ndarray, median: float = 0.0, sigma: float = 1.0, generator: object = None) -> ndarray:
    if self.dtype.kind != "f":
        raise TorchScriptError(
            "Cauchy distribution is a continuous probability distribution. "
            f"dtype must be a floating point but you specified {dtype_name(self.dtype)}"
        )
    if not sigma > 0.0:
        raise TorchScriptError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma}")
    return as_tensor((median + sigma * rng().standard_cauchy(self.shape)).astype(self.dtype))


@kernel("aten::cauchy_")
def cauchy_(self: ndarray, median: float = 0.0, sigma: float = 1.0, generator: object = None) -> ndarray:
    return assign(self, cauchy(self, median, sigma))


@kernel("aten::log_normal")
def log_normal(self: ndarray, mean: float = 1.0, std: float = 2.0, generator: object = None) -> ndarray:
    if self.dtype.kind != "f":
        raise TorchScriptError(f"\"log_normal_cpu\" not implemented for '{dtype_name(self.dtype)}'")
    if not std > 0.0:
        raise TorchScriptError(f"log_normal_ expects std > 0.0, but found std={std}")
    return as_tensor(rng().lognormal(mean, std, self.shape).astype(self.dtype))


@kernel("aten::log_normal_")
def log_normal_(self: ndarray, mean: float = 1.0, std: float = 2.0, generator: object = None) -> ndarray:
    return assign(self, log_normal(self, mean, std))


@kernel("aten::geometric")
def geometric(self: ndarray, p: float, generator: object = None) -> ndarray:
    if not 0.0 < p < 1.0:
        raise TorchScriptError(f"geometric_ expects p to be in (0, 1), but got p={p}")
    return as_tensor(rng().geometric(p, self.shape).astype(self.dtype))


@kernel("aten::geometric_")
def geometric_(self: ndarray, p: float, generator: object = None) -> ndarray:
    return assign(self, geometric(self, p))


@kernel("aten::multinomial")
def multinomial(self: ndarray, num_samples: int, replacement: bool = False, generator: object = None) -> ndarray:
    """Category indices drawn per row with the row's weights; without replacement by
    the Gumbel-top-k trick, which draws the same distribution as drawing one at a time."""
    if self.ndim not in (1, 2):
        raise TorchScriptError("prob_dist must be 1 or 2 dim")
    if self.dtype.kind != "f":
        raise TorchScriptError(f"multinomial only supports floating-point dtypes for input, got: {dtype_name(self.dtype)}")
    if num_samples <= 0:
        raise TorchScriptError("cannot sample n_sample <= 0 samples")
    categories = self.shape[-1]
    if not replacement and num_samples > categories:
        raise TorchScriptError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    weights = self.reshape(-1, categories).astype(np.float64)
    if not np.all(np.isfinite(weights)) or np.any(weights < 0):
        raise TorchScriptError("probability tensor contains either `inf`, `nan` or element < 0")
    totals = weights.sum(-1, keepdims=True)
    if np.any(totals <= 0):
        raise TorchScriptError("invalid multinomial distribution (sum of probabilities <= 0)")
    if replacement:
        cumulative = np.cumsum(weights / totals, axis=-1)
        draws = rng().random((weights.shape[0], num_samples))
        samples = (draws[..., None] >= cumulative[:, None, :]).sum(-1)
        samples = np.minimum(samples, categories - 1)
    else:
        with np.errstate(divide="ignore"):
            keys = np.log(weights) - np.log(-np.log(rng().random(weights.shape)))
        samples = np.argsort(-keys, axis=-1, kind="stable")[:, :num_samples]
    return samples.reshape(*self.shape[:-1], num_samples).astype(np.int64)
