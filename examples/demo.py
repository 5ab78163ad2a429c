"""`make demo`: the JIT overview's LSTM cell through every stage of tsjit, then run.

    .venv/bin/python examples/demo.py

1. graph: `examples/lstm_cell.py` scripted (TorchScript-syntax Python, no PyTorch);
2. optimized: specialized to float32 matrices and run through `executor-default`;
3. fused: `fuse-pointwise` makes everything after the two matrix products one
   `prim::FusionGroup`, as in the overview; pictures of the graph before and after
   fusion are written to `build/demo/` as SVG (drawn by Graphviz when it is installed,
   else by tsjit's own layout);
4. loops: `convert-aten-to-loops` turns the group into a shape-generic loop nest;
5. llvm: `convert-to-llvm`, then LLVM at O3 for this CPU: the vectorized kernel;
6. both backends run the cell; they must agree, and the llvm one is timed against the
   interpreter and numpy;
7. two everyday torch.nn models of `examples/models.py` (a small CNN, an LSTM model),
   scripted and run on both backends (`examples/models.py` adds a transformer layer).
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # one thread: BLAS threads spin on a shared machine

import re
import sys
import time
from pathlib import Path

import models  # examples/models.py, beside this file
import numpy as np
from xdsl.dialects.builtin import ModuleOp

from tsjit.context import make_context
from tsjit.formats.graph_picture import write_picture
from tsjit.formats.torchscript_export import export_graph_text
from tsjit.frontend import script_source
from tsjit.runtime.executor import GraphExecutor
from tsjit.runtime.llvm_jit import LLVMEngine
from tsjit.runtime.native import LLVMExecutor
from tsjit.transforms.fuse_pointwise import FusePointwisePass
from tsjit.transforms.lowering.convert_aten_to_loops import ConvertAtenToLoopsPass

SOURCE = Path(__file__).with_name("lstm_cell.py")
ENTRY = "LSTMCellS"


def short(graph_text: str) -> str:
    """Graph text without the properties every tensor shares and without source
    comments, so that the structure shows."""
    text = graph_text.replace(", requires_grad=0, device=cpu", "").replace(
        "(requires_grad=0, device=cpu)", ""
    )
    return re.sub(r" # [^\n]*", "", text).rstrip()


def stage(number: int, title: str, body: str) -> None:
    print(f"\n== {number}. {title} " + "=" * max(0, 70 - len(title)))
    print(body)


def lstm_inputs(batch: int, hidden: int, features: int) -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    shapes = [
        (batch, features),
        (batch, hidden),
        (batch, hidden),
        (4 * hidden, features),
        (4 * hidden, hidden),
    ]
    arrays = [rng.standard_normal(s, dtype=np.float32) * 0.1 for s in shapes]
    return arrays + [rng.standard_normal(4 * hidden, dtype=np.float32) * 0.1 for _ in range(2)]


def numpy_cell(x, hx, cx, w_ih, w_hh, b_ih, b_hh):
    gates = x @ w_ih.T + hx @ w_hh.T + b_ih + b_hh
    ingate, forgetgate, cellgate, outgate = np.split(gates, 4, axis=1)
    ingate = 1 / (1 + np.exp(-ingate))
    forgetgate = 1 / (1 + np.exp(-forgetgate))
    cellgate = np.tanh(cellgate)
    outgate = 1 / (1 + np.exp(-outgate))
    cy = forgetgate * cx + ingate * cellgate
    return outgate * np.tanh(cy), cy


def write_pictures(modules: dict[str, ModuleOp], directory: Path = Path("build/demo")) -> str:
    """SVG pictures of the cell's graph at each stage; says where they are."""
    directory.mkdir(parents=True, exist_ok=True)
    lines = []
    for stage_name, module in modules.items():
        path = directory / f"lstm_cell.{stage_name}.svg"
        how = write_picture(module, str(path), ENTRY)
        lines.append(f"picture {stage_name}: {path} ({how})")
    return "\n".join(lines)


def median_ms(call, repeats: int = 25) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return sorted(times)[len(times) // 2] * 1e3


def lstm_stages() -> tuple[ModuleOp, ModuleOp, ModuleOp]:
    """The cell scripted, optimized for float32 matrices, and fused."""
    ctx = make_context()
    name = str(SOURCE.relative_to(Path.cwd())) if SOURCE.is_relative_to(Path.cwd()) else str(SOURCE)
    module = script_source(ctx, SOURCE.read_text(encoding="utf-8"), name, ENTRY)
    optimized = GraphExecutor(module, ENTRY).graph_for(*lstm_inputs(2, 4, 3))
    fused = optimized.clone()
    FusePointwisePass().apply(ctx, fused)
    return module, optimized, fused


def main() -> None:
    ctx = make_context()
    module, optimized, fused = lstm_stages()
    stage(1, f"graph: {ENTRY} scripted from {SOURCE.name}", short(export_graph_text(module, ENTRY)))
    stage(2, "optimized: float32 matrices, executor-default", short(export_graph_text(optimized, ENTRY)))
    pictures = write_pictures({"optimized": optimized, "fused": fused})
    stage(3, "fused: fuse-pointwise", short(export_graph_text(fused, ENTRY)) + "\n\n" + pictures)

    loops = fused.clone()
    ConvertAtenToLoopsPass(variant="contiguous").apply(ctx, loops)
    stage(4, "loops: convert-aten-to-loops{variant=contiguous}", str(loops))

    compiled = LLVMEngine().compile(ModuleOp([op.clone() for op in loops.ops]))
    (name,) = compiled.signatures
    ir = compiled.optimized_ir
    vector_lines = [
        line.strip() for line in ir.splitlines() if "<8 x float>" in line or "<4 x float>" in line
    ]
    body = [
        f"@{name}: {len(ir.splitlines())} lines of LLVM IR after O3, vectorized: {compiled.is_vectorized(name)}",
        "a few vector instructions of the loop body:",
        *(f"    {line}" for line in vector_lines[:6]),
    ]
    stage(5, "llvm: convert-to-llvm, LLVM O3 for this CPU", "\n".join(body))

    batch, hidden, features = 1024, 128, 64
    inputs = lstm_inputs(batch, hidden, features)
    interpreted = GraphExecutor(module, ENTRY)
    native = LLVMExecutor(module, ENTRY)
    hy_i, cy_i = interpreted(*inputs)
    hy_n, cy_n = native(*inputs)
    hy_r, cy_r = numpy_cell(*inputs)
    pairs = ((hy_i, hy_n), (cy_i, cy_n), (hy_r, hy_n), (cy_r, cy_n))
    difference = max(float(np.abs(a - b).max()) for a, b in pairs)
    statistics = native.statistics()
    ok = difference < 1e-5 and statistics["kernel_calls"] > 0 and statistics["fallbacks"] == 0
    x, hx, _, w_ih, w_hh, _, _ = inputs
    times = {
        "numpy, op by op": median_ms(lambda: numpy_cell(*inputs)),
        "tsjit interpreter": median_ms(lambda: interpreted(*inputs)),
        "tsjit llvm (fused)": median_ms(lambda: native(*inputs)),
    }
    products = median_ms(lambda: (x @ w_ih.T, hx @ w_hh.T))
    tails = {label: ms - products for label, ms in times.items()}
    lines = [
        f"batch {batch}, hidden {hidden}, features {features}: float32, medians of 25 calls",
        f"interp vs llvm vs numpy: max |difference| = {difference:.2e}  ({'agree' if ok else 'DISAGREE'})",
        f"native kernel calls: {statistics['kernel_calls']}, interpreter fallbacks: {statistics['fallbacks']}",
        f"  {'':<20} {'cell':>9} {'after the products':>20}",
        *(f"  {label:<20} {ms:6.3f} ms {tails[label]:14.3f} ms" for label, ms in times.items()),
        f"  (the two matrix products, one numpy call each in all three: {products:.3f} ms)",
        (
            f"llvm: {times['numpy, op by op'] / times['tsjit llvm (fused)']:.2f}x numpy on the cell, "
            f"{tails['numpy, op by op'] / max(tails['tsjit llvm (fused)'], 1e-3):.1f}x on what follows the products"
        ),
    ]
    stage(6, "run: both backends, against numpy", "\n".join(lines))
    if not ok:
        sys.exit(1)

    stage(7, "torch.nn models: scripted, on both backends", "")
    if models.main(("small CNN", "LSTM model")) != 0:
        sys.exit(1)


if __name__ == "__main__":
    main()
