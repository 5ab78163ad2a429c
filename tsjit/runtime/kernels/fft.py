"""`torch.fft`: complex, real-input (rfft, ihfft) and Hermitian-input (irfft, hfft)
discrete Fourier transforms in one, two or n dimensions, fftshift, and the frequency
factories, on numpy's pocketfft.

One n-dimensional transform per kind serves all three spellings: `fft_X(n, dim)` is the
n-dimensional `X` over one dimension, `fft_X2(s, dim=[-2, -1])` over two. numpy has no
n-dimensional Hermitian transforms; they follow from the real ones by conjugation with
the normalization exchanged (hfftn(x) = irfftn(conj(x)) scaled as the forward
transform). Integral and bool inputs transform in the default float dtype; single
precision stays single (complex64), as in PyTorch.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from tsjit.runtime.errors import TorchScriptError
from tsjit.runtime.kernels import kernel, register_kernel
from tsjit.runtime.kernels.common import check_device, wrap_dim, wrap_dims
from tsjit.runtime.kernels.promotion import float_dtype
from tsjit.runtime.values import DEFAULT_DTYPE, Device, dtype_name, numpy_dtype

ndarray = np.ndarray

_NORMS = {None: "backward", "backward": "backward", "forward": "forward", "ortho": "ortho"}
_SWAPPED = {"backward": "forward", "forward": "backward", "ortho": "ortho"}


def _norm(norm: str | None) -> str:
    if norm not in _NORMS:
        raise TorchScriptError(f"Invalid normalization mode: {norm}")
    return _NORMS[norm]


def _real_input(x: ndarray, op: str) -> ndarray:
    if x.dtype.kind == "c":
        raise TorchScriptError(f"{op} expects a real input tensor, but got {dtype_name(x.dtype)}")
    return x.astype(float_dtype(x.dtype), copy=False)


def _any_input(x: ndarray) -> ndarray:
    return x if x.dtype.kind in "fc" else x.astype(DEFAULT_DTYPE)


def _plan(x: ndarray, s: Sequence[int] | None, dim: Sequence[int] | None, op: str) -> tuple[tuple[int, ...] | None, tuple[int, ...]]:
    """The signal sizes and dimensions of an n-dimensional transform, PyTorch's rules:
    without dims, the last len(s) dimensions (all when s is absent too)."""
    if dim is not None:
        dims = wrap_dims(dim, x.ndim) if x.ndim else tuple(wrap_dim(d, 0) for d in dim)
        if s is not None and len(s) != len(dims):
            raise TorchScriptError("When given, dim and shape arguments must have the same length")
    elif s is not None:
        if len(s) > x.ndim:
            raise TorchScriptError(f"Got shape with {len(s)} values but input tensor only has {x.ndim} dimensions.")
        dims = tuple(range(x.ndim - len(s), x.ndim))
    else:
        dims = tuple(range(x.ndim))
    if s is not None:
        for n in s:
            if n != -1 and n < 1:
                raise TorchScriptError(f"Invalid number of data points ({n}) specified")
        s = tuple(x.shape[d] if n == -1 else n for n, d in zip(s, dims))
    return (None if s is None else tuple(s)), dims


def _transform(x: ndarray, kind: str, s: tuple[int, ...] | None, dims: tuple[int, ...], norm: str) -> ndarray:
    if not dims:
        return x.astype(np.result_type(x.dtype, np.complex64) if kind in ("fft", "ifft", "rfft", "ihfft") else x.dtype)
    if kind == "fft":
        return np.fft.fftn(_any_input(x), s, dims, norm)
    if kind == "ifft":
        return np.fft.ifftn(_any_input(x), s, dims, norm)
    if kind == "rfft":
        return np.fft.rfftn(_real_input(x, "rfftn"), s, dims, norm)
    if kind == "irfft":
        return np.fft.irfftn(_any_input(x), s, dims, norm)
    if kind == "hfft":
        return np.fft.irfftn(np.conj(_any_input(x)), s, dims, _SWAPPED[norm])
    return np.conj(np.fft.rfftn(_real_input(x, "ihfftn"), s, dims, _SWAPPED[norm]))


def _one_dim(kind: str) -> Callable[..., ndarray]:
    def run(self: ndarray, n: int | None = None, dim: int = -1, norm: str | None = None) -> ndarray:
        return fft_nd(kind, self, None if n is None else [n], [dim], norm)

    return run


def _two_dim(kind: str) -> Callable[..., ndarray]:
    def run(self: ndarray, s: Sequence[int] | None = None, dim: Sequence[int] = (-2, -1),
            norm: str | None = None) -> ndarray:  # fmt: skip
        return fft_nd(kind, self, s, dim, norm)

    return run


def _n_dim(kind: str) -> Callable[..., ndarray]:
    def run(self: ndarray, s: Sequence[int] | None = None, dim: Sequence[int] | None = None,
            norm: str | None = None) -> ndarray:  # fmt: skip
        return fft_nd(kind, self, s, dim, norm)

    return run


def fft_nd(kind: str, x: ndarray, s: Sequence[int] | None, dim: Sequence[int] | None, norm: str | None) -> ndarray:
    sizes, dims = _plan(x, s, dim, f"fft_{kind}n")
    return np.asarray(_transform(x, kind, sizes, dims, _norm(norm)))


for _kind in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft"):
    register_kernel(f"aten::fft_{_kind}", _one_dim(_kind))
    register_kernel(f"aten::fft_{_kind}2", _two_dim(_kind))
    register_kernel(f"aten::fft_{_kind}n", _n_dim(_kind))


@kernel("aten::fft_fftshift")
def fft_fftshift(self: ndarray, dim: Sequence[int] | None = None) -> ndarray:
    axes = None if dim is None else wrap_dims(dim, self.ndim)
    return np.fft.fftshift(self, axes)


@kernel("aten::fft_ifftshift")
def fft_ifftshift(self: ndarray, dim: Sequence[int] | None = None) -> ndarray:
    axes = None if dim is None else wrap_dims(dim, self.ndim)
    return np.fft.ifftshift(self, axes)


def _frequencies(values: ndarray, dtype: int | None, device: Device | None) -> ndarray:
    check_device(device)
    return values.astype(DEFAULT_DTYPE if dtype is None else numpy_dtype(dtype))


@kernel("aten::fft_fftfreq")
def fft_fftfreq(n: int, d: float = 1.0, dtype: int | None = None, layout: int | None = None,
                device: Device | None = None, pin_memory: bool | None = None) -> ndarray:  # fmt: skip
    return _frequencies(np.fft.fftfreq(n, d), dtype, device)


@kernel("aten::fft_rfftfreq")
def fft_rfftfreq(n: int, d: float = 1.0, dtype: int | None = None, layout: int | None = None,
                 device: Device | None = None, pin_memory: bool | None = None) -> ndarray:  # fmt: skip
    return _frequencies(np.fft.rfftfreq(n, d), dtype, device)


def _stft(self: ndarray, n_fft: int, hop_length: int | None, win_length: int | None, window: ndarray | None,
          normalized: bool, onesided: bool | None, return_complex: bool | None) -> ndarray:  # fmt: skip
    """The short-time Fourier transform of an (already padded) 1-D or batched 2-D signal:
    frames every `hop_length` samples, each windowed (a window shorter than n_fft is
    centered in zeros) and transformed; frequencies, then frames."""
    if self.ndim not in (1, 2):
        raise TorchScriptError(f"stft: expected a 1D or 2D tensor, but got {self.ndim}D")
    complex_input = self.dtype.kind == "c" or (window is not None and window.dtype.kind == "c")
    if return_complex is None:
        if not complex_input:
            raise TorchScriptError(
                "stft requires the return_complex parameter be given for real inputs, and will further require that "
                "return_complex=True in a future PyTorch release."
            )
        return_complex = True
    hop = n_fft // 4 if hop_length is None else hop_length
    width = n_fft if win_length is None else win_length
    signal = self[None] if self.ndim == 1 else self
    length = signal.shape[-1]
    if not 0 < n_fft <= length:
        raise TorchScriptError(f"stft: expected 0 < n_fft < {length}, but got n_fft={n_fft}")
    if hop <= 0:
        raise TorchScriptError(f"stft: expected hop_length > 0, but got hop_length={hop}")
    if not 0 < width <= n_fft:
        raise TorchScriptError(f"stft: expected 0 < win_length <= n_fft, but got win_length={width}")
    if window is not None and (window.ndim != 1 or window.shape[0] != width):
        raise TorchScriptError(
            f"stft: expected a 1D window tensor of size equal to win_length={width}, but got window with size "
            f"{list(window.shape)}"
        )
    signal = _any_input(signal)
    taper = np.ones(width, dtype=signal.dtype if signal.dtype.kind == "f" else np.float32) if window is None else window
    left = (n_fft - width) // 2
    taper = np.pad(taper, (left, n_fft - width - left))
    frames = np.lib.stride_tricks.sliding_window_view(signal, n_fft, axis=-1)[:, ::hop, :] * taper
    one_sided = (not complex_input) if onesided is None else onesided
    if one_sided and complex_input:
        raise TorchScriptError("Cannot have onesided output if window or input is complex")
    spectrum = np.fft.rfft(frames, axis=-1) if one_sided else np.fft.fft(frames, axis=-1)
    if normalized:
        spectrum = spectrum / np.sqrt(n_fft).astype(spectrum.real.dtype)
    spectrum = np.swapaxes(spectrum, -1, -2)
    if self.ndim == 1:
        spectrum = spectrum[0]
    spectrum = spectrum.astype(np.result_type(signal.dtype, np.complex64), copy=False)
    if return_complex:
        return np.ascontiguousarray(spectrum)
    return np.stack([spectrum.real, spectrum.imag], axis=-1)


@kernel("aten::stft")
def stft(self: ndarray, n_fft: int, hop_length: int | None = None, win_length: int | None = None,
         window: ndarray | None = None, normalized: bool = False, onesided: bool | None = None,
         return_complex: bool | None = None, align_to_window: bool | None = None) -> ndarray:  # fmt: skip
    return _stft(self, n_fft, hop_length, win_length, window, normalized, onesided, return_complex)


@kernel("aten::stft.center")
def stft_center(self: ndarray, n_fft: int, hop_length: int | None = None, win_length: int | None = None,
                window: ndarray | None = None, center: bool = True, pad_mode: str = "reflect",
                normalized: bool = False, onesided: bool | None = None, return_complex: bool | None = None,
                align_to_window: bool | None = None) -> ndarray:  # fmt: skip
    if center:
        if pad_mode not in ("reflect", "constant", "replicate", "circular"):
            raise TorchScriptError(f"stft: unsupported pad_mode {pad_mode}")
        mode = {"reflect": "reflect", "constant": "constant", "replicate": "edge", "circular": "wrap"}[pad_mode]
        padding = [(0, 0)] * (self.ndim - 1) + [(n_fft // 2, n_fft // 2)]
        self = np.pad(self, padding, mode=mode)
    return _stft(self, n_fft, hop_length, win_length, window, normalized, onesided, return_complex)
