"""Writes tsjit's module conformance dataset from PyTorch's ModuleInfo database.

    python scripts/generate_moduleinfo_data.py [OUTPUT_DIR] [--only=NAME,NAME...]

(run with a Python that has torch 2.13, e.g. a side venv; tsjit itself never imports torch.)

Every entry of `torch.testing._internal.common_modules.module_db` is tried with its
float32 module inputs on the CPU: the module is built from the input's constructor
arguments (seeded), put in eval mode and handed to `torch.jit.script`; a module that
scripts keeps its constructor arguments, its parameters and buffers (`state_dict`), the
forward arguments and what the scripted module returned. An entry none of whose inputs
script is recorded as skipped with PyTorch's reason. A module passed to a constructor
(`TransformerEncoder(layer, 2)`) is recorded by its own constructor call, which this
script captures while the database builds it; a function (`activation=F.gelu`) by its
qualified name. Results that depend on the random seed keep their structure, dtypes and
shapes only (`"random": true`).

Output (the test driver reads it without torch):
    modules.json  the entries (name, class, skip reason, samples); a value is the
                  conformance corpus's JSON encoding, except a tensor: {"tensor":
                  [dtype, offset, shape]} into the npz, a module {"module": [class,
                  args, kwargs]} and a function {"function": qualified name}
    modules.npz   one flat array per dtype holding every tensor
"""

from __future__ import annotations

import functools
import json
import sys
import warnings
from pathlib import Path
from typing import Any, Optional, Tuple  # noqa: UP035 - annotations torch.jit.script reads

import numpy as np
import torch
from torch.testing._internal.common_modules import module_db

sys.path.insert(0, str(Path(__file__).resolve().parent))
from generate_opinfo_data import Arrays as OpInfoArrays  # the OpInfo corpus's encoding
from generate_opinfo_data import Unsupported, same

HALF_DTYPES = (torch.float16, torch.bfloat16)
DEFAULT_OUTPUT = Path(__file__).resolve().parent.parent / "test" / "data" / "modules"
MAX_SAMPLES = 6  # per entry, spread over its module inputs
MAX_NUMEL = 4000  # elements of a sample's state and inputs together
SEEDS = (0, 1, 2)  # a sample is random when the scripted module's result differs between them


# --------------------------------------------------------------------------------------
# Constructor calls of modules built while the database makes its inputs
# --------------------------------------------------------------------------------------


def record_constructor_calls() -> None:
    """Wraps the `__init__` of every `torch.nn` module class so that an instance knows
    the arguments it was built with (`_recorded_call`)."""
    for name in dir(torch.nn):
        cls = getattr(torch.nn, name)
        if not (isinstance(cls, type) and issubclass(cls, torch.nn.Module)) or "__init__" not in vars(cls):
            continue
        original = cls.__init__

        @functools.wraps(original)
        def init(self: Any, *args: Any, __original: Any = original, __cls: type = cls, **kwargs: Any) -> None:
            if type(self) is __cls and not hasattr(self, "_recorded_call"):
                object.__setattr__(self, "_recorded_call", (__cls.__name__, args, kwargs))
            __original(self, *args, **kwargs)

        cls.__init__ = init


class CallLSTM(torch.nn.Module):
    """A parent whose call picks the tensor overload of an LSTM's `forward` (a scripted
    LSTM alone has no callable `forward`: its forward is overloaded)."""

    def __init__(self, inner: torch.nn.Module):
        super().__init__()
        self.inner = inner

    def forward(
        self,
        input: torch.Tensor,
        hx: Optional[Tuple[torch.Tensor, torch.Tensor]] = None,  # noqa: UP006, UP045
    ):
        return self.inner(input, hx)


class CallRNN(torch.nn.Module):
    """As `CallLSTM`, for RNN and GRU (one hidden state)."""

    def __init__(self, inner: torch.nn.Module):
        super().__init__()
        self.inner = inner

    def forward(self, input: torch.Tensor, hx: Optional[torch.Tensor] = None):  # noqa: UP045
        return self.inner(input, hx)


# --------------------------------------------------------------------------------------
# Values
# --------------------------------------------------------------------------------------


class Arrays(OpInfoArrays):
    """The OpInfo corpus's arrays and encoding, plus what module samples hold: dicts,
    modules built by `torch.nn` constructors (as their recorded calls) and functions."""

    def encode(self, value: Any, shapes_only: bool = False) -> dict[str, Any]:
        if isinstance(value, torch.Tensor) and (value.is_complex() or value.dtype in HALF_DTYPES):
            raise Unsupported(f"a {value.dtype} tensor")  # tsjit's modules are real, 32 or 64 bits
        if isinstance(value, dict):
            return {"dict": [[k, self.encode(v, shapes_only)] for k, v in value.items()]}
        if isinstance(value, torch.nn.Module):
            call = getattr(value, "_recorded_call", None)
            if call is None:
                raise Unsupported(f"a {type(value).__name__} module built outside torch.nn")
            name, args, kwargs = call
            return {
                "module": [
                    name,
                    [self.encode(a) for a in args],
                    {k: self.encode(v) for k, v in kwargs.items()},
                ]
            }
        if callable(value) and getattr(value, "__module__", None) in (
            "torch.nn.functional",
            "torch",
            "torch._C._nn",
        ):
            module = "torch.nn.functional" if hasattr(torch.nn.functional, value.__name__) else "torch"
            return {"function": f"{module}.{value.__name__}"}
        return super().encode(value, shapes_only)


def numel(value: Any) -> int:
    if isinstance(value, torch.Tensor):
        return value.numel()
    if isinstance(value, (list, tuple)):
        return sum(numel(v) for v in value)
    if isinstance(value, dict):
        return sum(numel(v) for v in value.values())
    return 0


def first_line(error: BaseException) -> str:
    lines = [line for line in str(error).splitlines() if line.strip()]
    return f"{type(error).__name__}: {lines[0] if lines else ''}"[:300]


def cloned(value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        return value.detach().clone()
    if isinstance(value, list):
        return [cloned(v) for v in value]
    if isinstance(value, tuple):
        return tuple(cloned(v) for v in value)
    if isinstance(value, dict):
        return {k: cloned(v) for k, v in value.items()}
    return value


# --------------------------------------------------------------------------------------
# Entries
# --------------------------------------------------------------------------------------


def spread(items: list[Any], count: int) -> list[Any]:
    """At most `count` items, evenly spaced, the first included."""
    if len(items) <= count:
        return items
    step = len(items) / count
    return [items[int(i * step)] for i in range(count)]


def record_entry(info: Any, arrays: Arrays) -> dict[str, Any]:
    cls = info.module_cls
    entry: dict[str, Any] = {"name": info.name, "class": cls.__name__, "module": cls.__module__}
    if torch.float32 not in info.dtypes:
        entry["skipped"] = "no float32 inputs"
        return entry
    torch.manual_seed(0)
    try:
        inputs = info.module_inputs_func(
            info, device="cpu", dtype=torch.float32, requires_grad=False, training=False
        )
    except Exception as error:  # noqa: BLE001
        entry["skipped"] = f"module_inputs_func: {first_line(error)}"
        return entry
    reasons: list[str] = []
    candidates = [m for m in inputs if m.forward_input is not None]
    ordered = spread(candidates, MAX_SAMPLES)
    ordered += [m for m in candidates if m not in ordered]
    samples = []
    for module_input in ordered:
        sample = record_sample(cls, module_input, arrays, reasons)
        if sample is not None:
            samples.append(sample)
            if len(samples) == MAX_SAMPLES:
                break
    if samples:
        entry["samples"] = samples
    else:
        entry["skipped"] = reasons[0] if reasons else "no module input"
    return entry


def record_sample(cls: type, module_input: Any, arrays: Arrays, reasons: list[str]) -> dict[str, Any] | None:
    constructor, forward = module_input.constructor_input, module_input.forward_input
    torch.manual_seed(0)
    try:
        module = cls(*constructor.args, **constructor.kwargs).to(torch.float32).eval()
    except Exception as error:  # noqa: BLE001
        reasons.append(f"constructor: {first_line(error)}")
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            scripted = torch.jit.script(module)
            if not hasattr(scripted, "forward"):  # an overloaded forward: called through a parent
                scripted = torch.jit.script((CallLSTM if cls is torch.nn.LSTM else CallRNN)(module))
    except Exception as error:  # noqa: BLE001
        reasons.append(f"torch.jit.script: {first_line(error)}")
        return None
    state = module.state_dict()
    if numel(list(state.values())) + numel(list(forward.args)) + numel(forward.kwargs) > MAX_NUMEL:
        reasons.append(f"no input of at most {MAX_NUMEL} elements")
        return None
    results = []
    try:
        for seed in (SEEDS[0], *SEEDS):
            torch.manual_seed(seed)
            with torch.no_grad():
                results.append(scripted(*cloned(forward.args), **cloned(forward.kwargs)))
    except Exception as error:  # noqa: BLE001
        reasons.append(f"scripted forward: {first_line(error)}")
        return None
    random = not all(same(results[0], r) for r in results[1:])
    mark = arrays.mark()
    try:
        sample = {
            "desc": module_input.desc,
            "constructor": {"args": [arrays.encode(a) for a in constructor.args],
                            "kwargs": {k: arrays.encode(v) for k, v in constructor.kwargs.items()}},
            "state": {name: arrays.encode(value) for name, value in state.items()},
            "inputs": {"args": [arrays.encode(a) for a in forward.args],
                       "kwargs": {k: arrays.encode(v) for k, v in forward.kwargs.items()}},
            "outputs": arrays.encode(results[0], shapes_only=random),
        }  # fmt: skip
    except Unsupported as error:
        arrays.rewind(mark)
        reasons.append(f"unsupported value: {error}")
        return None
    if random:
        sample["random"] = True
    return sample


def write(output: Path, entries: list[dict[str, Any]], arrays: Arrays) -> None:
    document = {"torch": torch.__version__, "entries": entries}
    (output / "modules.json").write_text(json.dumps(document, separators=(",", ":")) + "\n", encoding="utf-8")
    np.savez_compressed(output / "modules.npz", **arrays.arrays())


def main(argv: list[str]) -> int:
    only = {name for arg in argv[1:] if arg.startswith("--only=") for name in arg[7:].split(",")}
    paths = [arg for arg in argv[1:] if not arg.startswith("--")]
    output = Path(paths[0]) if paths else DEFAULT_OUTPUT
    output.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(1)
    warnings.simplefilter("ignore")
    record_constructor_calls()
    arrays = Arrays()
    entries = []
    for index, info in enumerate(module_db):
        if only and info.name not in only and info.module_cls.__name__ not in only:
            continue
        entry = record_entry(info, arrays)
        entries.append(entry)
        status = entry.get("skipped") or f"{len(entry['samples'])} samples"
        print(f"[{index + 1}/{len(module_db)}] {info.name}: {status}", flush=True)
    write(output, entries, arrays)
    scripted = sum("samples" in e for e in entries)
    print(f"wrote {len(entries)} entries ({scripted} scripted, {sum(len(e.get('samples', ())) for e in entries)} "
          f"samples) to {output}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
