"""The `llvm` backend over the whole conformance corpus: every case, in every graph form
and from its source, gives the interpreter's results (values, raised exception kinds,
arguments mutated in place), and wherever the optimized graph has fusible ops or is a
function of numbers, that code really runs natively: kernels are called and nothing
falls back to the interpreter but runs that raise."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from xdsl.dialects import func

from tsjit.runtime.errors import TorchScriptError
from tsjit.runtime.executor import GraphExecutor
from tsjit.runtime.native import LLVMExecutor
from tsjit.runtime.values import decode_value, match_value
from tsjit.tools.ts_run import load_program, module_receiver
from tsjit.transforms.fuse_pointwise import is_fusible_elementwise
from tsjit.transforms.lowering.convert_aten_to_loops import is_scalar_function

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "conformance"
FORMS = ("graph.txt", "graph.inlined.txt", "graph.opt.txt", "source.py")

MUST_RUN_NATIVE = (
    "nn_lstm_cell", "nn_gelu_layernorm_manual", "unary_activations", "unary_exp_log_sqrt",
    "unary_abs_neg_clamp_pow", "arith_basic", "arith_alpha_broadcast", "arith_scalar_mix",
    "cmp_where_masked", "shape_chunk_split", "algo_fib_gcd", "scalar_int_arith", "scalar_float_math",
    "scalar_bool_logic", "loop_nested",
)  # fmt: skip
"""Cases whose native code a regression must not lose silently."""


def corpus_cases() -> list[Any]:
    cases = sorted(p for p in CORPUS.iterdir() if (p / "io.json").is_file()) if CORPUS.is_dir() else []
    return [pytest.param(c, f, id=f"{c.name}/{f}") for c in cases for f in FORMS if (c / f).is_file()]


def test_the_corpus_is_present():
    assert corpus_cases(), f"the conformance corpus is missing: expected it at {CORPUS}"


def run(call: Any, inputs: list[Any]) -> tuple[Any, str | None]:
    """The result of a call, or the kind and message of the TorchScript error it raised."""
    try:
        return call(*inputs), None
    except TorchScriptError as error:
        return None, f"{error.kind}: {error.message}"


def has_native_code(module: Any) -> bool:
    """Whether the optimized module, as the interpreter runs it, has anything the llvm
    backend compiles: a fusible op, or a function of numbers."""
    functions = [op for op in module.ops if isinstance(op, func.FuncOp) and not op.is_declaration]
    return any(is_scalar_function(f) for f in functions) or any(
        is_fusible_elementwise(op) for f in functions for op in f.walk()
    )


@pytest.mark.parametrize(("case", "form"), corpus_cases())
def test_llvm_backend_gives_the_interpreters_results(case: Path, form: str):
    io = json.loads((case / "io.json").read_text(encoding="utf-8"))
    entry = io.get("entry", "forward")
    path = case / form
    module = load_program(path)
    interpreted = GraphExecutor(module, entry, "executor-default")
    native = LLVMExecutor(module, entry)
    receiver = module_receiver(module, entry, None, path)
    raising = 0
    native_code = False
    for index, recorded in enumerate(io["runs"]):
        results = []
        for executor in (interpreted, native):
            receiver_args = [] if receiver is None else [module_receiver(module, entry, None, path)]
            inputs = [decode_value(v, f"input {i}") for i, v in enumerate(recorded["inputs"])]
            results.append((*run(executor, [*receiver_args, *inputs]), inputs))
        (expected, expected_error, expected_inputs), (actual, actual_error, actual_inputs) = results
        assert actual_error == expected_error, f"run {index}"
        raising += expected_error is not None
        if expected_error is None:
            assert (
                match_value(actual, expected, io.get("rtol", 1e-5), io.get("atol", 1e-6), f"run {index}")
                is None
            )
        for i, (after, before) in enumerate(zip(actual_inputs, expected_inputs, strict=True)):
            assert match_value(after, before, 1e-5, 1e-6, f"run {index} input {i} after the call") is None
        specialized = (
            interpreted.graph_for(*[decode_value(v) for v in recorded["inputs"]])
            if receiver is None
            else None
        )
        native_code = native_code or (specialized is not None and has_native_code(specialized))
    statistics = native.statistics()
    if native_code or case.name in MUST_RUN_NATIVE:
        assert statistics["kernel_calls"] + statistics["scalar_calls"] > 0, statistics
    assert statistics["fallbacks"] <= raising, statistics
