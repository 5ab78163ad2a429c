"""Random tensor programs, run by the interpreter and the llvm backend and compared with
each other and with the numpy reference (`reference.py`).

A program is TorchScript-syntax Python over tensor inputs: elementwise arithmetic with
tensors and Python numbers (broadcasting, type promotion), math, comparisons, `where`,
`clamp`, `pow`, reductions, and views (slices, `select`, transposes, permutes, flips,
`expand`). Inputs come in every dtype, with sizes 0 and 1 among the others, contiguous,
strided, transposed, offset or broadcast (zero strides), holding NaN, infinities, -0.0
and the extremes of their integer types. `generate(seed)` builds one from a seed,
checking each statement on the reference as it goes (a statement PyTorch refuses is kept
now and then, as the program's last: then every engine must raise too).
`run_program(spec)` runs one and reports `ok`, `skipped` (behaviour PyTorch leaves
undefined), or a failure: `rejected` (tsjit cannot compile it), `mismatch` (a wrong
dtype, shape or value, an error where there should be a result, or the reverse),
`crash` (an exception other than TorchScript's), `mutated` (an input was written).
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from reference import (  # pyright: ignore[reportMissingImports]
    REFERENCE,
    SIGNS_OPEN,
    TOLERANCE,
    VALUES_OPEN,
    RefError,
    Undefined,
    reference_eval,
    run_reference,
)

DTYPES = ("float32", "float64", "float16", "int64", "int32", "int16", "int8", "uint8", "bool")
LAYOUTS = ("contiguous", "contiguous", "strided", "transposed", "broadcast", "offset")
SIZES = (0, 1, 1, 2, 2, 3, 3, 4, 5, 7)
FLOAT_SPECIALS = (float("nan"), float("inf"), float("-inf"), -0.0, 0.0, 1e30, -1e30, 1e-30, 65504.0, 0.5, -2.5)
"""No subnormals: what kernels make of them (flushed to zero or not) is the platform's."""
SCALARS = (0, 1, 2, -3, 7, 0.0, 1.5, -0.5, 2.0, 100.0, -0.0)
ENGINES = (("interp", "interp", ()), ("llvm", "llvm", None))
"""(name, backend, pipeline): the interpreter runs the graph as scripted, the llvm
backend optimized and fused."""

# --------------------------------------------------------------------------------------
# Programs
# --------------------------------------------------------------------------------------


@dataclass
class Program:
    """A program's source and its inputs (`Recipe`s, so that layouts survive JSON)."""

    source: str
    inputs: list[dict[str, Any]]
    ops: list[str] = field(default_factory=list)

    def arrays(self) -> list[np.ndarray]:
        return [make_array(recipe) for recipe in self.inputs]

    def to_json(self) -> dict[str, Any]:
        return {"source": self.source, "inputs": self.inputs, "ops": self.ops}

    @staticmethod
    def from_json(spec: dict[str, Any]) -> Program:
        return Program(spec["source"], spec["inputs"], spec.get("ops", []))


def make_array(recipe: dict[str, Any]) -> np.ndarray:
    """The input a recipe describes: `data` (the values, row-major) laid out as
    `layout` says."""
    dtype = np.dtype(recipe["dtype"])
    shape = tuple(recipe["shape"])
    layout = recipe["layout"]
    if layout == "broadcast":
        source = np.array(recipe["data"], dtype=np.float64 if dtype.kind == "f" else dtype)
        return np.broadcast_to(source.astype(dtype).reshape(recipe["source_shape"]), shape)
    values = np.array(recipe["data"], dtype=np.float64 if dtype.kind == "f" else dtype).astype(dtype).reshape(shape)
    if layout == "strided" and values.ndim:
        axis = recipe.get("axis", 0) % values.ndim
        wide = list(shape)
        wide[axis] *= 2
        base = np.zeros(wide, dtype)
        index = [slice(None)] * values.ndim
        index[axis] = slice(None, None, 2)
        base[tuple(index)] = values
        return base[tuple(index)]
    if layout == "transposed" and values.ndim >= 2:
        return np.ascontiguousarray(values.T).T
    if layout == "offset" and values.ndim:
        base = np.zeros((shape[0] + 1, *shape[1:]), dtype)
        base[1:] = values
        return base[1:]
    return values


def _data(values: np.ndarray) -> list[Any]:
    return [float(v) if values.dtype.kind == "f" else v for v in values.reshape(-1).tolist()]


# --------------------------------------------------------------------------------------
# Generation
# --------------------------------------------------------------------------------------

UNARY = ("torch.neg({x})", "torch.abs({x})", "torch.relu({x})", "torch.exp({x})", "torch.log({x})", "torch.sqrt({x})",
         "torch.sin({x})", "torch.tanh({x})", "torch.sigmoid({x})", "torch.floor({x})", "torch.ceil({x})",
         "torch.round({x})", "torch.reciprocal({x})", "torch.square({x})", "torch.logical_not({x})",
         "torch.isnan({x})", "torch.bitwise_not({x})", "-{x}")  # fmt: skip
BINARY = ("{a} + {b}", "{a} - {b}", "{a} * {b}", "{a} / {b}", "{a} // {b}", "{a} % {b}", "torch.fmod({a}, {b})",
          "{a} & {b}", "{a} | {b}", "{a} ^ {b}", "{a} == {b}", "{a} != {b}", "{a} < {b}", "{a} >= {b}")  # fmt: skip
SCALAR_FIRST = ("{a} + {b}", "{a} - {b}", "{a} * {b}", "{a} / {b}")
"""Operators TorchScript gives a Python number on their left as PyTorch does; with the
others it converts the tensor on the right to a number instead."""
TENSOR_BINARY = ("torch.maximum({a}, {b})", "torch.minimum({a}, {b})", "torch.atan2({a}, {b})")
VIEWS = ("{x}[{i}]", "{x}[{i}:]", "{x}[:{i}]", "{x}[::2]", "{x}[1::3]", "{x}[:, {i}:]", "{x}.transpose(0, 1)",
         "{x}.transpose(-1, 0)", "{x}.permute({perm})", "{x}.unsqueeze({d})", "{x}.flip([{d}])",
         "{x}.reshape([-1])", "{x}.expand({expanded})", "{x}.contiguous()")  # fmt: skip
REDUCTIONS = ("torch.sum({x}, [{d}], {keep})", "torch.mean({x}, [{d}], {keep})", "torch.amax({x}, [{d}], {keep})",
              "torch.amin({x}, [{d}], {keep})", "torch.prod({x}, {d}, {keep})", "torch.sum({x}, [{d}, {d2}], {keep})")  # fmt: skip


def generate(seed: int) -> Program:
    """A random program (see the module docstring); the same seed, the same program."""
    rng = random.Random(seed)
    base = [rng.choice(SIZES) for _ in range(rng.choice((0, 1, 1, 2, 2, 3)))]
    inputs = [_input(rng, base) for _ in range(rng.choice((1, 2, 2, 3)))]
    env: dict[str, Any] = {}
    names: list[str] = []
    for k, recipe in enumerate(inputs):
        env[f"x{k}"] = REFERENCE.Tensor(make_array(recipe))
        names.append(f"x{k}")
    lines: list[str] = []
    ops: list[str] = []
    raises = False
    for _ in range(rng.randint(1, 6)):
        for _attempt in range(20):
            template, expression = _statement(rng, names, env)
            try:
                value = reference_eval(expression, env)
            except Undefined:
                continue
            except RefError:
                if rng.random() < 0.12:
                    raises = True
                    break
                continue
            name = f"v{len(lines)}"
            env[name] = value
            names.append(name)
            lines.append(f"    {name} = {expression}")
            ops.append(template)
            break
        if raises:
            lines.append(f"    {_statement_name(len(lines))} = {expression}")
            ops.append(template)
            break
    # every value no later statement uses is returned: no statement is dead code, which
    # TorchScript may drop (and with it an error the statement raises)
    outputs = [n for n in names if n.startswith("v") and not any(_uses(line, n) for line in lines)]
    params = ", ".join(f"x{k}: torch.Tensor" for k in range(len(inputs)))
    if raises:
        returned = _statement_name(len(lines) - 1)
    else:
        returned = ", ".join(outputs or names[-1:])
    body = "\n".join(lines) if lines else "    pass"
    source = f"import torch\n\n\ndef forward({params}):\n{body}\n    return {returned}\n"
    return Program(source, inputs, ops)


def _uses(line: str, name: str) -> bool:
    """Whether the statement `line` reads the value `name` (not just defines it)."""
    import re

    return re.search(rf"\b{name}\b", line.split(" = ", 1)[1]) is not None


def _statement_name(index: int) -> str:
    return f"v{index}"


def _input(rng: random.Random, base: list[int]) -> dict[str, Any]:
    dtype = rng.choice(DTYPES)
    shape = list(base[rng.randint(0, len(base)) :]) if base else []
    shape = [1 if rng.random() < 0.2 else d for d in shape]
    values = _values(rng, dtype, shape)
    layout = rng.choice(LAYOUTS)
    recipe: dict[str, Any] = {"dtype": dtype, "shape": shape, "layout": layout}
    if layout == "broadcast":
        source_shape = [1 if rng.random() < 0.5 else d for d in shape]
        recipe["source_shape"] = source_shape
        values = _values(rng, dtype, source_shape)
    elif layout == "strided" and shape:
        recipe["axis"] = rng.randrange(len(shape))
    recipe["data"] = _data(values)
    return recipe


def _values(rng: random.Random, dtype: str, shape: list[int]) -> np.ndarray:
    count = int(np.prod(shape)) if shape else 1
    kind = np.dtype(dtype)
    if kind == np.bool_:
        flat = [rng.random() < 0.5 for _ in range(count)]
    elif kind.kind == "f":
        scale = rng.choice((1.0, 3.0, 100.0))
        flat = [rng.choice(FLOAT_SPECIALS) if rng.random() < 0.15 else round(rng.gauss(0, scale), 3) for _ in range(count)]
    else:
        info = np.iinfo(kind)
        flat = [rng.choice((info.min, info.max)) if rng.random() < 0.05 else rng.randint(max(info.min, -10), min(info.max, 10)) for _ in range(count)]
    return np.array(flat, dtype=np.float64 if kind.kind == "f" else kind).astype(kind).reshape(shape)


def _statement(rng: random.Random, names: list[str], env: dict[str, Any]) -> tuple[str, str]:
    x = rng.choice(names)
    rank = env[x].a.ndim
    choice = rng.random()
    if choice < 0.22:
        template = rng.choice(UNARY)
        return template, template.format(x=x)
    if choice < 0.55:
        template = rng.choice(BINARY)
        a, b = x, rng.choice(names)
        if rng.random() < 0.45:
            b = repr(rng.choice(SCALARS))
            if template in SCALAR_FIRST and rng.random() < 0.3:
                a, b = b, a
        return template, template.format(a=a, b=b)
    if choice < 0.62:
        template = rng.choice(TENSOR_BINARY)
        return template, template.format(a=x, b=rng.choice(names))
    if choice < 0.70:
        other = rng.choice(names)
        low, high = rng.choice((0, -1, 0.5, -2.0)), rng.choice((1, 3, 2.5, 0.0))
        if rng.random() < 0.5:
            return "torch.where", f"torch.where({x} > {other}, {x}, {rng.choice([other, repr(rng.choice((0, 1, 2.5)))])})"
        return "torch.clamp", f"torch.clamp({x}, {low}, {high})"
    if choice < 0.74:
        return "torch.pow", f"torch.pow({x}, {rng.choice((2, 3, 0.5, -1, 0, 2.0, -2.0))})"
    if choice < 0.85:
        template = rng.choice(REDUCTIONS)
        d = rng.randint(-max(rank, 1), max(rank, 1) - 1)
        d2 = rng.randint(-max(rank, 1), max(rank, 1) - 1)
        return template, template.format(x=x, d=d, d2=d2, keep=rng.choice(("True", "False")))
    template = rng.choice(VIEWS)
    perm = list(range(rank))
    rng.shuffle(perm)
    shape = list(env[x].a.shape)
    expanded = [rng.choice((2, 3))] + [d if d != 1 or rng.random() < 0.5 else rng.choice((0, 2, 4)) for d in shape]
    expression = template.format(
        x=x, i=rng.randint(-2, 3), d=rng.randint(-rank - 1, rank), perm=perm, expanded=expanded
    )
    return template, expression


# --------------------------------------------------------------------------------------
# Running and comparing
# --------------------------------------------------------------------------------------


def run_program(spec: dict[str, Any]) -> dict[str, Any]:
    """Runs one program on the reference and every engine (see the module docstring)."""
    program = generate(spec["seed"]) if "seed" in spec else Program.from_json(spec)
    arrays = program.arrays()
    originals = [a.copy() for a in arrays]
    try:
        expected: Any = run_reference(program.source, arrays)
    except RefError as error:
        expected = error
    except Undefined:
        return {"kind": "skipped", "detail": "", "signature": ""}
    from tsjit.diagnostics import TsjitError
    from tsjit.frontend.script import script_file_text
    from tsjit.runtime.errors import TorchScriptError

    import tsjit

    ops = " ".join(sorted(set(program.ops)))
    floats = [a.dtype for a in arrays if a.dtype.kind == "f"]
    coarsest = str(min(floats, key=lambda d: d.itemsize)) if floats else None
    try:
        scripted = script_file_text(program.source, "program.py")
    except TsjitError as error:
        return _failure("rejected", str(error), f"rejected {_shape_of(str(error))}", program)
    except Exception as error:  # noqa: BLE001 -- reported, never hidden
        return _failure("crash", f"scripting: {type(error).__name__}: {error}", f"crash script {type(error).__name__}", program)
    for engine, backend, pipeline in ENGINES:
        try:
            run = tsjit.compile(scripted.module, "forward", backend=backend, pipeline=pipeline)
            got: Any = run(*arrays)
        except TorchScriptError as error:
            got = error
        except Exception as error:  # noqa: BLE001 -- reported, never hidden
            detail = f"{engine}: {type(error).__name__}: {str(error)[:300]}"
            return _failure("crash", detail, f"crash {engine} {type(error).__name__} {_shape_of(str(error))}", program)
        problem = compare(expected, got, not SIGNS_OPEN[0], not VALUES_OPEN[0], coarsest)
        if problem is not None:
            return _failure("mismatch", f"{engine}: {problem}", f"mismatch {engine} {_shape_of(problem)} [{ops}]", program)
        for before, after in zip(originals, arrays):
            if not np.array_equal(before, after, equal_nan=before.dtype.kind == "f"):
                return _failure("mutated", f"{engine} wrote an input", f"mutated {engine} [{ops}]", program)
    return {"kind": "ok", "detail": "", "signature": ""}


def _failure(kind: str, detail: str, signature: str, program: Program) -> dict[str, Any]:
    return {"kind": kind, "detail": detail, "signature": signature, "program": program.to_json()}


def _shape_of(message: str) -> str:
    import re

    message = re.sub(r"\[[^\]]*\]|'[^']*'|\d+(\.\d+)?(e-?\d+)?", "…", message)
    return message[:100]


def compare(
    expected: Any, got: Any, signed_zeros: bool = True, values: bool = True, coarsest: str | None = None
) -> str | None:
    """Why `got` is not what the reference computed, or None when it is (the signs of
    zeros with `signed_zeros`, finite float values with `values`). Float results are
    compared at the tolerance of their dtype or of `coarsest`, the least precise float
    dtype of the inputs, whichever is looser: a value rounded to half precision on the
    way (a sigmoid of a half input, divided in float64) is one half-precision rounding
    away from the reference where its float32 value falls near a rounding boundary."""
    from tsjit.runtime.errors import TorchScriptError

    if isinstance(expected, RefError):
        return None if isinstance(got, TorchScriptError) else f"returned where PyTorch raises ({expected})"
    if isinstance(got, TorchScriptError):
        return f"raised {got.kind}: {got.message}"
    if isinstance(expected, tuple):
        if not isinstance(got, tuple) or len(got) != len(expected):
            return f"returned {type(got).__name__} instead of a tuple of {len(expected)}"
        for k, (e, g) in enumerate(zip(expected, got)):
            if (problem := compare(e, g, signed_zeros, values, coarsest)) is not None:
                return f"output {k}: {problem}"
        return None
    if not isinstance(got, np.ndarray):
        return f"returned {type(got).__name__} instead of a tensor"
    if got.dtype != expected.dtype:
        return f"dtype {got.dtype} instead of {expected.dtype}"
    if got.shape != expected.shape:
        return f"shape {list(got.shape)} instead of {list(expected.shape)}"
    if expected.dtype.kind != "f":
        if not np.array_equal(got, expected):
            where = np.argwhere(got != expected)[0]
            return f"value {got[tuple(where)]} instead of {expected[tuple(where)]} at {list(where)}"
        return None
    rtol, atol = TOLERANCE[str(expected.dtype)]
    if coarsest is not None:
        rtol, atol = max(rtol, TOLERANCE[coarsest][0]), max(atol, TOLERANCE[coarsest][1])
    e, g = expected.astype(np.float64), got.astype(np.float64)
    nan = np.isnan(e)
    if (np.isnan(g) != nan).any():
        where = np.argwhere(np.isnan(g) != nan)[0]
        return f"value {g[tuple(where)]} instead of {e[tuple(where)]} at {list(where)} (NaN)"
    finite = np.isfinite(e)
    with np.errstate(all="ignore"):
        close = np.where(finite, np.abs(g - e) <= atol + rtol * np.abs(e), g == e)
    if not values:
        close |= finite & np.isfinite(g)
    close |= nan
    if not close.all():
        where = np.argwhere(~close)[0]
        return f"value {g[tuple(where)]} instead of {e[tuple(where)]} at {list(where)}"
    zeros = (e == 0) & (g == 0)
    if signed_zeros and (np.signbit(e[zeros]) != np.signbit(g[zeros])).any():
        where = np.argwhere(zeros & (np.signbit(e) != np.signbit(g)))[0]
        return f"value {g[tuple(where)]} instead of {e[tuple(where)]} at {list(where)} (signed zero)"
    return None


def program_json(program: Program) -> str:
    return json.dumps(program.to_json(), indent=1)
