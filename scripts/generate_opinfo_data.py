"""Writes tsjit's operator conformance dataset from PyTorch's OpInfo database.

    python scripts/generate_opinfo_data.py [OUTPUT_DIR] [--only=NAME,NAME...]

(run with a Python that has torch 2.13, e.g. a side venv; tsjit itself never imports torch.)

Every entry of `torch.testing._internal.common_methods_invocations.op_db` is tried. For
each dtype of float32, float64, int64 and bool that the entry supports on the CPU, its
first few small sample inputs (`SampleInput`: input, args, kwargs; then its reference
inputs) become a tiny TorchScript function calling the operator: `torch.<name>(...)`,
else the method `i0.<name>(...)` or attribute `i0.<name>`, a reflected operator
(`__rsub__`: `2 - i0`), else `torch.ops.aten.<aten_name>(...)`. Tensors are the
function's inputs, every other argument a literal. `torch.jit.script` compiles it; an
entry none of whose samples script is recorded as skipped with the reason. A scripted
sample keeps its source, PyTorch's inlined graph, the aten overloads the graph calls, the
inputs and what TorchScript returned, or the error it raised. Operators whose result
depends on the random seed keep the result's structure, dtypes and shapes instead of
its values (`"random": true`).

Output (the test driver reads it without torch):
    opinfo.json  the entries (name, dtypes, tolerances, skip reason, samples) and the
                 samples' sources; a value is the conformance corpus's JSON encoding,
                 except a tensor: {"tensor": [dtype, offset, shape]} into the npz
    opinfo.npz   one flat array per dtype holding every tensor, and `graphs`: the
                 inlined graph texts (UTF-8, NUL-separated) that samples index
"""

from __future__ import annotations

import itertools
import json
import math
import re
import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch.testing._internal.common_methods_invocations import op_db
from torch.testing import make_tensor
from torch.testing._internal.opinfo.core import BinaryUfuncInfo, SampleInput, UnaryUfuncInfo

DEFAULT_OUTPUT = Path(__file__).resolve().parent.parent / "test" / "data" / "opinfo"

DTYPES = {"float32": torch.float32, "float64": torch.float64, "int64": torch.int64, "bool": torch.bool}
MAX_SAMPLES = 3  # per entry and dtype
MAX_SAMPLES_TRIED = 60  # samples (then reference inputs) looked at to find MAX_SAMPLES small ones
MAX_NUMEL = 160  # elements of all tensors of one sample together
MAX_NUMEL_FALLBACK = 1500  # an entry with no small sample keeps its smallest one up to this
SHRINK_TO = 4  # larger elementwise samples keep their first entries per dimension
TOLERANCE_FLOOR = {"float32": (1e-5, 1e-5), "float64": (1e-7, 1e-7)}
"""The least (rtol, atol): numpy and PyTorch sum and round in different orders;
torch.testing's default for the dtype, or the entry's own override, when larger."""

ABSENT_KWARGS = {"requires_grad": False, "as_tuple": False}
"""Keyword arguments of the Python API that TorchScript's schemas lack, at the value
that means the same as leaving them out."""

REFLECTED = {
    "__radd__": "+", "__rsub__": "-", "__rmul__": "*", "__rdiv__": "/", "__rmod__": "%",
    "__rpow__": "**", "__rand__": "&", "__ror__": "|", "__rxor__": "^", "__rmatmul__": "@",
}  # fmt: skip
"""Reflected dunder entries, spelled as the binary operator with the operands swapped."""

SWAPPED = {"einsum": "torch.einsum", "special.polygamma": "torch.special.polygamma"}
"""Entries whose OpInfo takes the tensor(s) first and the leading argument of the torch
function second (`einsum(tensors, equation)`, `polygamma(x, n)`): spelled with the first
argument first, as `torch.einsum(equation, [a, b])`."""


def _slice_scatter_samples(dtype: torch.dtype) -> list[SampleInput]:
    def make(*shape: int) -> torch.Tensor:
        return make_tensor(shape, dtype=dtype, device="cpu")

    return [
        SampleInput(make(4, 5, 3), args=(make(2, 5, 3), 0, 2, 4, 1)),
        SampleInput(make(4, 6), args=(make(4, 3), 1, 0, 6, 2)),
        SampleInput(make(3, 6), args=(make(3, 2), -1, 1, None, 3)),
    ]


SMALL_SAMPLES = {"slice_scatter": _slice_scatter_samples}
"""Samples of the same calls as op_db's, smaller, for entries whose every op_db sample
exceeds MAX_NUMEL_FALLBACK (slice_scatter's are 20x20x20)."""

ALL_DTYPES = {
    torch.float16, torch.float32, torch.float64, torch.int8, torch.uint8, torch.int16,
    torch.int32, torch.int64, torch.bool, torch.complex64, torch.complex128,
}  # fmt: skip
"""Tensor dtypes numpy holds as they are."""


class Unsupported(Exception):
    """A sample TorchScript source cannot spell (a callable argument) or whose result
    the dataset cannot hold."""


# --------------------------------------------------------------------------------------
# Samples as TorchScript source
# --------------------------------------------------------------------------------------


class Call:
    """The TorchScript source of one sample: tensor leaves become inputs i0, i1, ...;
    everything else is a literal."""

    def __init__(self) -> None:
        self.tensors: list[torch.Tensor] = []

    def literal(self, value: Any) -> str:
        if isinstance(value, torch.Tensor):
            if value.layout != torch.strided or value.is_quantized or value.dtype not in ALL_DTYPES:
                raise Unsupported(f"a {value.layout} {value.dtype} tensor")
            self.tensors.append(value.detach().clone().contiguous())
            return f"i{len(self.tensors) - 1}"
        if value is None or isinstance(value, (bool, int, str)):
            return repr(value)
        if isinstance(value, float):
            if math.isnan(value):
                return "float('nan')"
            if math.isinf(value):
                return "float('inf')" if value > 0 else "-float('inf')"
            return repr(value)
        if isinstance(value, torch.Size):
            return repr(list(value))
        if isinstance(value, list):
            return "[" + ", ".join(self.literal(v) for v in value) + "]"
        if isinstance(value, tuple):
            items = [self.literal(v) for v in value]
            return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
        if isinstance(value, (torch.dtype, torch.memory_format, torch.layout)):
            return str(value)  # torch.float32, torch.contiguous_format, torch.strided
        if isinstance(value, torch.device):
            return f"torch.device('{value}')"
        raise Unsupported(f"a {type(value).__name__} argument")

    def source(self, form: str, callee: str, sample: Any) -> str:
        receiver = self.literal(sample.input)
        if form == "fill":  # float parameters, which TorchScript does not fill from an int literal
            sample = SampleInput(sample.input, args=tuple(float(a) if type(a) is int else a for a in sample.args),
                                 kwargs=sample.kwargs)  # fmt: skip
            form = "method"
        args = [self.literal(a) for a in sample.args]
        kwargs = [
            f"{k}={self.literal(v)}"
            for k, v in sample.kwargs.items()
            if not (k in ABSENT_KWARGS and v is ABSENT_KWARGS[k])
        ]
        if form == "function":
            call = f"{callee}({', '.join([receiver, *args, *kwargs])})"
        elif form == "method":
            call = f"{receiver}.{callee}({', '.join(args + kwargs)})"
        elif form == "attribute" and not args and not kwargs:
            call = f"{receiver}.{callee}"
        elif form == "reflected" and len(args) == 1 and not kwargs:
            call = f"{args[0]} {callee} {receiver}"
        elif form == "swapped" and args:
            call = f"{callee}({', '.join([args[0], receiver, *args[1:], *kwargs])})"
        else:
            raise Unsupported(f"arguments the {form} form cannot take")
        params = ", ".join(f"i{k}" for k in range(len(self.tensors)))
        return f"def forward({params}):\n    return {call}\n"


def spellings(op: Any) -> list[tuple[str, str]]:
    """How TorchScript source can call the entry, as (form, callee), preferred first."""
    name = op.name
    if name in REFLECTED:
        return [("reflected", REFLECTED[name])]
    if name in SWAPPED:
        return [("swapped", SWAPPED[name])]
    result: list[tuple[str, str]] = []
    target: Any = torch
    for part in name.split("."):
        target = getattr(target, part, None)
        if target is None:
            break
    if target is not None and not name.startswith("_"):
        result.append(("function", f"torch.{name}"))
    if "." not in name and hasattr(torch.Tensor, name):
        member = getattr(torch.Tensor, name)
        result.append(("method" if callable(member) else "attribute", name))
    if op.aten_name and hasattr(torch.ops.aten, op.aten_name):
        result.append(("function", f"torch.ops.aten.{op.aten_name}"))
    in_place_only = not any(form == "method" for form, _ in result) or op.variant_test_name == "in_place"
    if "." not in name and in_place_only and hasattr(torch.Tensor, name + "_"):
        result.append(("fill", name + "_"))  # the random fills: x.cauchy_(0., 0.5), x.normal_(0., 5.)
    return result


# --------------------------------------------------------------------------------------
# Values: JSON, tensors in per-dtype arrays
# --------------------------------------------------------------------------------------


class Arrays:
    """Every recorded tensor, appended to the flat array of its dtype."""

    def __init__(self) -> None:
        self.chunks: dict[str, list[np.ndarray]] = {}
        self.sizes: dict[str, int] = {}

    def add(self, tensor: torch.Tensor) -> list[Any]:
        array = tensor.detach().cpu().resolve_conj().resolve_neg().contiguous().numpy()
        name = array.dtype.name
        offset = self.sizes.get(name, 0)
        self.chunks.setdefault(name, []).append(array.ravel().copy())
        self.sizes[name] = offset + array.size
        return [name, offset, list(array.shape)]

    def mark(self) -> dict[str, int]:
        return {name: len(chunks) for name, chunks in self.chunks.items()}

    def rewind(self, mark: dict[str, int]) -> None:
        """Forgets the tensors added since `mark`."""
        for name, chunks in self.chunks.items():
            del chunks[mark.get(name, 0) :]
            self.sizes[name] = sum(c.size for c in chunks)

    def arrays(self) -> dict[str, np.ndarray]:
        return {name: np.concatenate(chunks) for name, chunks in self.chunks.items() if chunks}

    def encode(self, value: Any, shapes_only: bool = False) -> dict[str, Any]:
        """The conformance corpus's JSON encoding; a tensor is a reference into the
        arrays (for random results: its dtype and shape, `tensor_spec`)."""
        if isinstance(value, torch.Tensor):
            if value.layout != torch.strided or value.dtype not in ALL_DTYPES:
                raise Unsupported(f"a {value.layout} {value.dtype} result")
            if shapes_only:
                return {"tensor_spec": [str(value.dtype).removeprefix("torch."), list(value.shape)]}
            return {"tensor": self.add(value)}
        if isinstance(value, bool):
            return {"bool": value}
        if isinstance(value, int):
            return {"int": value}
        if isinstance(value, float):
            if math.isfinite(value):
                return {"float": value}
            return {"float": "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")}
        if isinstance(value, str):
            return {"str": value}
        if value is None:
            return {"none": None}
        if isinstance(value, torch.dtype):
            return {"dtype": str(value).removeprefix("torch.")}
        if isinstance(value, torch.device):
            return {"device": str(value)}
        if isinstance(value, torch.Size):
            return {"list": [self.encode(v) for v in value]}
        if isinstance(value, tuple):
            return {"tuple": [self.encode(v, shapes_only) for v in value]}
        if isinstance(value, list):
            return {"list": [self.encode(v, shapes_only) for v in value]}
        raise Unsupported(f"a {type(value).__name__} result")


def same(a: Any, b: Any) -> bool:
    """Equal structure and values, NaN equal to NaN: whether two runs agree."""
    if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
        if a.shape != b.shape or a.dtype != b.dtype:
            return False
        return bool(torch.equal(a, b) or (a.is_floating_point() and torch.equal(a.nan_to_num(), b.nan_to_num())))
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    return type(a) is type(b) and a == b


# --------------------------------------------------------------------------------------
# Scripting and running one sample
# --------------------------------------------------------------------------------------


def first_line(error: BaseException) -> str:
    text = str(error).strip()
    return (text.splitlines() or [type(error).__name__])[0][:300]


_SCRIPTED: dict[str, Any] = {}


def script(source: str) -> Any:
    """The compiled `forward` of `source` (memoized: dtypes share their source)."""
    if source not in _SCRIPTED:
        try:
            _SCRIPTED[source] = torch.jit.CompilationUnit(source).forward
        except Exception as error:  # noqa: BLE001 -- the reason is recorded
            _SCRIPTED[source] = error
    result = _SCRIPTED[source]
    if isinstance(result, Exception):
        raise result
    return result


def overloads(graph: Any) -> list[str]:
    """The aten overloads the graph calls (`aten::add.Tensor`), nested blocks included."""
    found: list[str] = []

    def visit(block: Any) -> None:
        for node in block.nodes():
            if node.kind().startswith("aten::"):
                schema = node.schema()
                name = schema.split("(", 1)[0] if schema != "(no schema)" else node.kind()
                if name not in found:
                    found.append(name)
            for inner in node.blocks():
                visit(inner)

    visit(graph)
    return found


def result_type(graph_text: str) -> str:
    """The printed type of the graph's single result (`str(value.type())` prints a
    NamedTuple as a plain Tuple; the graph text keeps its fields)."""
    returned = re.search(r"^  return \((%[\w.]+)\)$", graph_text, re.M)
    if returned is None:
        return ""
    declared = re.search(rf"{re.escape(returned.group(1))} : (.*?) = ", graph_text)
    return declared.group(1) if declared else ""


def namedtuple_fields(type_text: str) -> list[str]:
    """The field names of a printed `NamedTuple(values : Tensor, indices : Tensor)`."""
    if not type_text.startswith("NamedTuple("):
        return []
    fields, depth, start = [], 0, len("NamedTuple(")
    for k, c in enumerate(type_text):
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif c == "," and depth == 1:
            fields.append(type_text[start:k].split(" : ")[0].strip())
            start = k + 1
    fields.append(type_text[start:-1].split(" : ")[0].strip())
    return fields


OTHER_SEEDS = (1, 2, 3, 4)
"""Seeds a sample also runs with, to tell a random result from a deterministic one."""

DRAWING_OPERATORS = frozenset({
    "aten::rand", "aten::rand_like", "aten::randn", "aten::randn_like", "aten::randint", "aten::randint_like",
    "aten::randperm", "aten::bernoulli", "aten::bernoulli_", "aten::uniform_", "aten::normal",
    "aten::normal_", "aten::exponential_", "aten::geometric_", "aten::cauchy_", "aten::log_normal_",
    "aten::multinomial", "aten::poisson",
})  # fmt: skip
"""Operators that always draw random numbers: a graph calling one is random even when its
result happens not to depend on the draw for every seed tried (fractional max pooling whose
windows differ only for some samples)."""


def run(fn: Any, tensors: list[torch.Tensor], seed: int) -> Any:
    torch.manual_seed(seed)
    return fn(*[t.clone() for t in tensors])


def numel(sample: Any) -> int:
    """Elements of all tensors of a sample together."""
    total = 0

    def count(v: Any) -> None:
        nonlocal total
        if isinstance(v, torch.Tensor):
            total += v.numel()
        elif isinstance(v, (list, tuple)):
            for x in v:
                count(x)

    count([sample.input, list(sample.args), list(sample.kwargs.values())])
    return total


def sample_key(sample: Any) -> str:
    """What tells samples apart (the reference inputs repeat the samples)."""
    return repr((sample.input, sample.args, sorted(sample.kwargs.items())))


def shrunk(sample: Any) -> Any:
    """An elementwise sample with every tensor cut to its first SHRINK_TO entries per
    dimension: broadcasting is kept (a size 1 stays 1, equal sizes stay equal)."""

    def cut(v: Any) -> Any:
        if isinstance(v, torch.Tensor):
            return v[tuple(slice(0, SHRINK_TO) for _ in range(v.dim()))]
        if isinstance(v, (list, tuple)):
            return type(v)(cut(x) for x in v)
        return v

    kwargs = {k: cut(v) for k, v in sample.kwargs.items()}
    return SampleInput(cut(sample.input), args=cut(tuple(sample.args)), kwargs=kwargs)


def tolerance(op: Any, dtype_name: str) -> list[float] | None:
    """(rtol, atol) of a float dtype: the floor, torch.testing's default, or the
    entry's largest override for the dtype, whichever is larger."""
    if dtype_name not in TOLERANCE_FLOOR:
        return None
    dtype = DTYPES[dtype_name]
    rtol, atol = TOLERANCE_FLOOR[dtype_name]
    default_rtol, default_atol = torch.testing._comparison.default_tolerances(torch.empty(0, dtype=dtype))
    rtol, atol = max(rtol, default_rtol), max(atol, default_atol)
    for info in op.decorators:
        for decorator in getattr(info, "decorators", [info]):
            overrides = getattr(decorator, "d", None)
            if isinstance(overrides, dict) and dtype in overrides:
                override = overrides[dtype]
                if isinstance(override, float):  # precisionOverride: an atol
                    atol = max(atol, override)
                else:  # toleranceOverride
                    rtol, atol = max(rtol, override.rtol), max(atol, override.atol)
    return [rtol, atol]


# --------------------------------------------------------------------------------------
# The dataset
# --------------------------------------------------------------------------------------


class Dataset:
    def __init__(self) -> None:
        self.arrays = Arrays()
        self.sources: dict[str, int] = {}
        self.graphs: dict[str, int] = {}

    @staticmethod
    def intern(table: dict[str, int], text: str) -> int:
        return table.setdefault(text, len(table))

    def entry(self, op: Any) -> dict[str, Any]:
        record: dict[str, Any] = {
            "name": op.name,
            "variant": op.variant_test_name,
            "aten_name": op.aten_name,
            "elementwise": isinstance(op, (UnaryUfuncInfo, BinaryUfuncInfo)),
            "family": "nn" if op.name.startswith("nn.") else "tensor",
        }
        supported = op.supported_dtypes("cpu")
        dtypes = [name for name, dtype in DTYPES.items() if dtype in supported]
        record["dtypes"] = dtypes
        record["tolerance"] = {d: t for d in dtypes if (t := tolerance(op, d)) is not None}
        if not op.supports_scripting:
            record["skipped"] = "the OpInfo says TorchScript cannot script it (supports_scripting=False)"
            return record
        candidates = spellings(op)
        if not candidates:
            record["skipped"] = "TorchScript source cannot name it (no torch.*, method or aten spelling)"
            return record
        samples: list[dict[str, Any]] = []
        reasons: list[str] = []
        for dtype_name in dtypes:
            try:
                samples += self.samples_of(op, record["elementwise"], candidates, dtype_name, reasons)
            except Exception as error:  # noqa: BLE001 -- the sample generator itself failed
                reasons.append(f"sample_inputs failed: {first_line(error)}")
        if not samples:
            reason = reasons[0] if reasons else f"no sample of at most {MAX_NUMEL_FALLBACK} elements"
            record["skipped"] = f"no sample scripts: {reason}"
            return record
        forms = [s.pop("form") for s in samples]
        record["spelling"] = max(set(forms), key=forms.count)
        record["overloads"] = list(dict.fromkeys(name for s in samples for name in s.pop("overloads")))
        record["samples"] = samples
        return record

    def samples_of(
        self, op: Any, elementwise: bool, candidates: list[tuple[str, str]], dtype_name: str, reasons: list[str]
    ) -> list[dict[str, Any]]:
        """Up to MAX_SAMPLES recorded samples of one dtype: small ones first; else the
        smallest one below MAX_NUMEL_FALLBACK."""
        torch.manual_seed(0)
        dtype = DTYPES[dtype_name]
        generator = itertools.chain(
            SMALL_SAMPLES[op.name](dtype) if op.name in SMALL_SAMPLES else (),
            op.sample_inputs("cpu", dtype, requires_grad=False),
            op.reference_inputs("cpu", dtype, requires_grad=False),
        )
        recorded: list[dict[str, Any]] = []
        seen: set[str] = set()
        large: list[Any] = []
        for sample in itertools.islice(generator, MAX_SAMPLES_TRIED):
            if len(recorded) >= MAX_SAMPLES:
                break
            if numel(sample) > MAX_NUMEL:
                if not elementwise:
                    large.append(sample)
                    continue
                sample = shrunk(sample)
            if (key := sample_key(sample)) in seen:
                continue
            seen.add(key)
            if (result := self.sample(op, candidates, sample, dtype_name, reasons)) is not None:
                recorded.append(result)
        if not recorded:
            for sample in sorted(large, key=numel):
                if numel(sample) > MAX_NUMEL_FALLBACK:
                    break
                if (result := self.sample(op, candidates, sample, dtype_name, reasons)) is not None:
                    return [result]
        return recorded

    def sample(
        self, op: Any, candidates: list[tuple[str, str]], sample: Any, dtype_name: str, reasons: list[str]
    ) -> dict[str, Any] | None:
        """The first spelling that scripts, run and recorded."""
        for form, callee in candidates:
            call = Call()
            try:
                source = call.source(form, callee, sample)
            except Unsupported as error:
                reasons.append(f"arguments TorchScript cannot spell: {error}")
                continue
            try:
                fn = script(source)
            except Exception as error:  # noqa: BLE001
                reasons.append(f"torch.jit.script: {first_line(error)}")
                continue
            result = self.record(op, fn, source, call.tensors, dtype_name, reasons)
            if result is not None:
                result["form"] = f"{form} {callee}"
            return result
        return None

    def record(
        self, op: Any, fn: Any, source: str, tensors: list[torch.Tensor], dtype_name: str, reasons: list[str]
    ) -> dict[str, Any] | None:
        graph = fn.graph.copy()
        torch._C._jit_pass_inline(graph)
        graph_text = str(graph)
        result: dict[str, Any] = {"dtype": dtype_name}
        mark = self.arrays.mark()
        try:
            first = run(fn, tensors, 0)
            again = run(fn, tensors, 0)
            other_seeds = [run(fn, tensors, seed) for seed in OTHER_SEEDS]
        except Exception as error:  # noqa: BLE001 -- TorchScript's own error is the expected result
            result["raises"] = type(error).__name__
            result["message"] = first_line(error)
        else:
            random = (
                not same(first, again)
                or not all(same(first, other) for other in other_seeds)
                or op.has_nondeterministic_output
                or any(name.split(".")[0] in DRAWING_OPERATORS for name in overloads(graph))
            )
            try:
                outputs = self.arrays.encode(first, shapes_only=random)
            except Unsupported as error:
                self.arrays.rewind(mark)
                reasons.append(f"result has no encoding: {error}")
                return None
            if fields := namedtuple_fields(result_type(graph_text)):
                # TorchScript hands a NamedTuple to Python as a plain tuple
                outputs = {"namedtuple": {"fields": fields, "items": outputs["tuple"]}}
            result["outputs"] = outputs
            if random:
                result["random"] = True
        result["inputs"] = [{"tensor": self.arrays.add(t)} for t in tensors]
        result["source"] = self.intern(self.sources, source)
        result["graph"] = self.intern(self.graphs, _strip_paths(graph_text))
        result["overloads"] = overloads(graph)
        return result


_SITE_PACKAGES = re.compile(r"# \S*?site-packages/")


def _strip_paths(graph: str) -> str:
    """Source comments name PyTorch's files relative to site-packages: no machine paths."""
    return _SITE_PACKAGES.sub("# ", graph)


def write(output: Path, entries: list[dict[str, Any]], dataset: Dataset) -> None:
    header = {
        "generator": "scripts/generate_opinfo_data.py",
        "torch_version": torch.__version__,
        "dtypes": list(DTYPES),
        "max_samples": MAX_SAMPLES,
        "max_numel": MAX_NUMEL,
    }
    compact = {"separators": (",", ":")}
    lines = ["{", *(f"{json.dumps(k)}:{json.dumps(v, **compact)}," for k, v in header.items())]
    lines.append('"entries":[')
    lines += [json.dumps(e, **compact) + ("," if k + 1 < len(entries) else "") for k, e in enumerate(entries)]
    lines.append('],"sources":[')
    sources = list(dataset.sources)
    lines += [json.dumps(s) + ("," if k + 1 < len(sources) else "") for k, s in enumerate(sources)]
    lines.append("]}")
    (output / "opinfo.json").write_text("\n".join(lines) + "\n", encoding="utf-8")
    graphs = np.frombuffer("\0".join(dataset.graphs).encode("utf-8"), dtype=np.uint8)
    np.savez_compressed(output / "opinfo.npz", graphs=graphs, **dataset.arrays.arrays())


def main(argv: list[str]) -> int:
    only = {name for arg in argv[1:] if arg.startswith("--only=") for name in arg[7:].split(",")}
    paths = [arg for arg in argv[1:] if not arg.startswith("--")]
    output = Path(paths[0]) if paths else DEFAULT_OUTPUT
    output.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(1)
    warnings.simplefilter("ignore")
    dataset = Dataset()
    entries = []
    for index, op in enumerate(op_db):
        if only and op.name not in only:
            continue
        entry = dataset.entry(op)
        entries.append(entry)
        status = entry.get("skipped") or f"{len(entry['samples'])} samples"
        variant = f".{op.variant_test_name}" if op.variant_test_name else ""
        print(f"[{index + 1}/{len(op_db)}] {op.name}{variant}: {status}", flush=True)
    write(output, entries, dataset)
    scripted = sum("samples" in e for e in entries)
    samples = sum(len(e.get("samples", ())) for e in entries)
    print(f"wrote {len(entries)} entries ({scripted} scripted, {samples} samples) to {output}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
