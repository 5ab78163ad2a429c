"""Importing PyTorch's graph text: throughput and how it grows with the graph.

A generated graph mixes what scripted models print: constants, aten ops with one to
four inputs, lists, a prim::If every 25 nodes, value names and `# file:line:col`
comments. For 1,000 and 10,000 nodes it reports nodes per second (and µs per node) for
the whole import and for its parts (read the text, build the IR, verify it), the time
per node at both sizes (import is linear when they agree), and what the same module
costs when parsed from its MLIR text.

    .venv/bin/python bench/import_text.py
"""

from __future__ import annotations

import gc
import io
import time
from collections.abc import Callable

from xdsl.printer import Printer

from tsjit.context import make_context
from tsjit.formats.mlir import parse_mlir
from tsjit.formats.torchscript_syntax import Source, parse_graph_text
from tsjit.formats.torchscript_text import GraphImporter, import_graph_text

SIZES = (1_000, 10_000)
REPEATS = 5


def generated_graph(nodes: int) -> str:
    """A graph of exactly `nodes` nodes (nested ones included)."""
    lines = [
        "graph(%x.1 : Tensor,",
        "      %n.1 : int):",
        "  %one : int = prim::Constant[value=1]()",
        "  %zero : int = prim::Constant[value=0]()",
        "  %half : float = prim::Constant[value=0.5]()",
        "  %false : bool = prim::Constant[value=0]()",
    ]
    count, k, previous = 4, 0, "%x.1"
    while count < nodes:
        loc = f" # model.py:{k + 10}:{k % 40}"
        step = k % 25
        if step == 24 and nodes - count >= 4:
            lines += [
                f"  %c{k} : bool = aten::gt(%n.1, %zero){loc}",
                f"  %v{k} : Tensor = prim::If(%c{k}){loc}",
                "    block0():",
                f"      %t{k} : Tensor = aten::neg({previous}){loc}",
                f"      -> (%t{k})",
                "    block1():",
                f"      %u{k} : Tensor = aten::relu({previous}){loc}",
                f"      -> (%u{k})",
            ]
            count += 4
        elif step % 5 == 3 and nodes - count >= 2:
            lines += [
                f"  %{k}0 : int[] = prim::ListConstruct(%one, %n.1)",
                f"  %v{k} : Tensor = aten::expand({previous}, %{k}0, %false){loc}",
            ]
            count += 2
        else:
            op = (
                "aten::add({p}, %x.1, %one)",
                "aten::mul({p}, %half)",
                "aten::tanh({p})",
                "aten::sub({p}, {p}, %one)",
            )[k % 4]
            lines.append(f"  %v{k} : Tensor = {op.format(p=previous)}{loc}")
            count += 1
        previous = f"%v{k}"
        k += 1
    lines.append(f"  return ({previous})")
    return "\n".join(lines) + "\n"


def best_time(run: Callable[[], object]) -> float:
    """Best wall time of `run`, each run starting from a collected heap with the
    collector paused, as the importer runs."""
    best = float("inf")
    for _ in range(REPEATS):
        gc.collect()
        gc.disable()
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
        gc.enable()
    return best


def measure(nodes: int) -> dict[str, float]:
    ctx = make_context()
    text = generated_graph(nodes)
    module = import_graph_text(ctx, text, "bench.txt")  # loads op classes and schemas
    source = Source(text, "bench.txt")
    graph = parse_graph_text(source)
    importer = GraphImporter(ctx, source)
    mlir = io.StringIO()
    Printer(stream=mlir).print_op(module)
    return {
        "import": best_time(lambda: import_graph_text(ctx, text, "bench.txt")),
        "read": best_time(lambda: parse_graph_text(Source(text, "bench.txt"))),
        "build": best_time(lambda: GraphImporter(ctx, source).function(graph, "forward")),
        "verify": best_time(lambda: importer.verify(module)),
        "mlir": best_time(lambda: parse_mlir(ctx, mlir.getvalue(), "bench.mlir")),
    }


def main() -> None:
    results = {n: measure(n) for n in SIZES}
    print(f"graph text import, best of {REPEATS} (nodes/s; µs per node)")
    print(
        f"{'nodes':>8} {'import':>16} {'read':>16} {'build IR':>16} {'verify':>16} {'same IR from MLIR':>20}"
    )
    for n, r in results.items():
        cells = [per_node(n, r[part], 16) for part in ("import", "read", "build", "verify")]
        print(f"{n:>8} {' '.join(cells)} {per_node(n, r['mlir'], 20)}")
    small, large = (results[n]["import"] / n for n in SIZES)
    mlir_ratio = results[SIZES[1]]["mlir"] / results[SIZES[1]]["import"]
    print(f"time per node at {SIZES[1]:,} / at {SIZES[0]:,} nodes: {large / small:.2f} (1.00 = linear)")
    print(f"MLIR text parse / graph text import at {SIZES[1]:,} nodes: {mlir_ratio:.1f}x")


def per_node(nodes: int, seconds: float, width: int) -> str:
    return f"{nodes / seconds:>9,.0f} {seconds / nodes * 1e6:>5.1f}".rjust(width)


if __name__ == "__main__":
    main()
