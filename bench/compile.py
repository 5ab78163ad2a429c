"""Compile latency: Python source to a cleaned-up graph, against `torch.jit.script`.

    .venv/bin/python bench/compile.py [SIZE ...]
    PYTHONPATH=. <a python with torch> bench/compile.py      # adds PyTorch's columns

Prints, in one run (compare within it: absolute figures move with the machine's load):
- µs per statement of scripting and of scripting with the cleanup pipeline, for
  generated straight-line code (`x = x * k + y`) and a loop-heavy function (nested
  for/while loops with break and continue), at 100, 1K and 10K statements, with the
  cleanup pipeline's nodes per second; with PyTorch, the time `torch.jit.script` takes
  and its first two calls (the second one optimizes);
- the same for the nn modules of the conformance corpus (cases tagged `nn` and the
  `module_` cases);
- the time `import tsjit` takes in a fresh process;
- the first call of the LSTM demo's cell on the llvm backend in a fresh process, with
  a cold and a warm cache (`TSJIT_CACHE_DIR` in a temporary directory): from calling
  the scripted cell to its first result, which is where a warm cache loads the
  compiled program and its kernels (importing tsjit and scripting come before).
Times are CPU times of this process (the best of a few runs), so that the other
processes of a shared machine count less; the import figure is a wall time, the first
calls are CPU times of their process (with the wall time beside them).

What is measured is what `torch.jit.script` does for a function of an imported module:
*scripting* is parsing the source (with the nesting check) and emitting the function's
graph (the emitter, SSA conversion, the exit transform, loop canonicalization);
running the user's module (Python's compile and exec of it, which PyTorch's figure
leaves to the import before it) is outside the window. `torch.jit.script` also runs
its own cleanup passes, so the ratio column compares it with scripting plus cleanup.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tsjit.frontend.compilation import CompilationUnit, cleanup
from tsjit.frontend.script import run_user_file
from tsjit.frontend.source import SourceFile

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "conformance"
SIZES = (100, 1_000, 10_000)

try:
    import torch
except ImportError:
    torch = None


def straight_line(n: int) -> str:
    body = "".join(f"    x = x * {i % 7 + 1} + y\n" for i in range(n))
    return f"import torch\n\n\ndef f(x: torch.Tensor, y: int) -> torch.Tensor:\n{body}    return x\n"


LOOP_CHUNK = """\
    for i in range(y):
        if i % 3 == 0:
            x = x + i
            continue
        for j in range(i):
            x = x * j
            if j > 3:
                break
        z = z + i
    while z > 10:
        z = z - 3
"""


def loop_heavy(n: int) -> str:
    chunks = max(1, n // _statements(LOOP_CHUNK))
    return ("import torch\n\n\ndef f(x: torch.Tensor, y: int) -> torch.Tensor:\n    z = 0\n"
            + LOOP_CHUNK * chunks + "    return x + z\n")  # fmt: skip


def _statements(text: str) -> int:
    """Statements inside functions (what scripting compiles), of a snippet or a file."""
    tree = ast.parse(text if text.startswith(("import", "def", "class")) else "def f():\n" + text)
    functions = [node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef) and node.name != "__init__"]
    return sum(1 for f in functions for node in ast.walk(f) if isinstance(node, ast.stmt) and node is not f)


def cpu_best(call: Callable[[], Any], repeats: int) -> tuple[float, Any]:
    best, result = float("inf"), None
    for _ in range(repeats):
        start = time.process_time()
        result = call()
        best = min(best, time.process_time() - start)
    return best, result


def repeats_for(statements: int) -> int:
    return 7 if statements <= 200 else 5 if statements <= 2_000 else 2


# -- tsjit ------------------------------------------------------------------------------------


def tsjit_script(text: str, filename: str, entry: str | None) -> tuple[float, float, int]:
    """Seconds of scripting (parsing, then emitting the raw graph; see the module
    docstring), of the cleanup, and the raw graph's nodes."""
    unit = CompilationUnit()
    source = SourceFile(filename, text)
    unit.register_source(source)
    start = time.process_time()
    source.tree  # parsing is part of scripting (the tree is kept for emitting)
    parsing = time.process_time() - start
    namespace = run_user_file(source)  # the import, outside the window
    instance = None
    if entry is None:  # the module object is made outside the window, as for torch.jit.script
        cls = next(v for v in namespace.values() if isinstance(v, type) and v.__module__ == namespace["__name__"])
        instance = cls()
    start = time.process_time() - parsing
    if instance is None:
        unit.compile_function(namespace[entry], entry, None)
    else:
        unit.compile_method(unit.registry.info(instance), "forward", None, entry=True)
    scripted = time.process_time()
    nodes = sum(1 for _ in unit.module.walk()) - 1
    cleanup(unit.module)
    return scripted - start, time.process_time() - scripted, nodes


def tsjit_best(text: str, filename: str, entry: str | None, repeats: int) -> tuple[float, float, int]:
    runs = [tsjit_script(text, filename, entry) for _ in range(repeats)]
    return min(r[0] for r in runs), min(r[1] for r in runs), runs[0][2]


# -- PyTorch ----------------------------------------------------------------------------------


def torch_script(text: str, entry: str | None, arguments: list[Any] | None, repeats: int) -> tuple[float, float | None]:
    """Seconds of `torch.jit.script` and of the first two calls (None without arguments).
    Each run scripts a freshly imported module: PyTorch caches what it scripted per object."""
    best_script = best_calls = float("inf")
    with tempfile.TemporaryDirectory() as directory:
        for run in range(repeats):
            path = Path(directory) / f"bench_{len(text)}_{run}.py"
            path.write_text(text, encoding="utf-8")
            spec = importlib.util.spec_from_file_location(path.stem, path)
            assert spec is not None and spec.loader is not None
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            if entry is not None:
                target = getattr(module, entry)
            else:
                cls = next(v for v in vars(module).values() if isinstance(v, type) and v.__module__ == module.__name__)
                target = cls()
            start = time.process_time()
            scripted = torch.jit.script(target)  # pyright: ignore[reportOptionalMemberAccess]
            best_script = min(best_script, time.process_time() - start)
            if arguments is not None:
                start = time.process_time()
                scripted(*arguments)
                scripted(*arguments)
                best_calls = min(best_calls, time.process_time() - start)
    return best_script, None if arguments is None else best_calls


def torch_in_child(text: str, entry: str | None) -> tuple[float, float | None] | None:
    """`torch_script` of a large program in a process of its own: `torch.jit.script`
    crashes on some (a segmentation fault at 10K straight-line statements); None then."""
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "program.py"
        path.write_text(text, encoding="utf-8")
        child = subprocess.run([sys.executable, __file__, "--torch-child", str(path), entry or ""],
                               capture_output=True, text=True, cwd=ROOT)  # fmt: skip
    if child.returncode != 0:
        return None
    script_s, calls_s = child.stdout.split()
    return float(script_s), float(calls_s)


def torch_arguments(case: Path) -> list[Any] | None:
    io = json.loads((case / "io.json").read_text(encoding="utf-8"))
    arguments = []
    for value in io["runs"][0]["inputs"]:
        if "tensor" in value:
            t = value["tensor"]
            arguments.append(torch.tensor(t["data"], dtype=getattr(torch, t["dtype"])).reshape(t["shape"]))  # pyright: ignore[reportOptionalMemberAccess]
        elif isinstance(value, (int, float, bool)):
            arguments.append(value)
        else:
            return None
    return arguments


# -- report ----------------------------------------------------------------------------------


HEADER = f"{'program':<28}{'stmts':>7}{'nodes':>8}{'script µs/st':>14}{'cleanup n/s':>13}{'total µs/st':>13}"
TORCH_HEADER = f"{'torch µs/st':>13}{'script/torch':>14}{'total/torch':>13}{'torch 2 calls ms':>18}"


def row(name: str, text: str, filename: str, entry: str | None, arguments: list[Any] | None) -> None:
    statements = _statements(text)
    repeats = repeats_for(statements)
    script_s, cleanup_s, nodes = tsjit_best(text, filename, entry, repeats)
    total = (script_s + cleanup_s) / statements * 1e6
    line = (f"{name:<28}{statements:>7}{nodes:>8}{script_s / statements * 1e6:>14.0f}"
            f"{nodes / max(cleanup_s, 1e-9):>13,.0f}{total:>13.0f}")  # fmt: skip
    if torch is not None:
        measured = torch_script(text, entry, arguments, repeats) if statements <= 2_000 else torch_in_child(text, entry)
        if measured is None:
            print(line + f"{'(crashed)':>13}", flush=True)
            return
        torch_s, calls_s = measured
        theirs = torch_s / statements * 1e6
        calls = "-" if calls_s is None else f"{calls_s * 1e3:.1f}"
        line += f"{theirs:>13.0f}{script_s / statements * 1e6 / theirs:>14.2f}{total / theirs:>13.2f}{calls:>18}"
    print(line, flush=True)


def generated(sizes: tuple[int, ...]) -> None:
    print(HEADER + (TORCH_HEADER if torch is not None else ""))
    for label, make in (("straight-line", straight_line), ("loop-heavy", loop_heavy)):
        for n in sizes:
            text = make(n)
            arguments = None if torch is None else [torch.ones(2), 3]
            row(f"{label} {n}", text, f"{label.replace('-', '_')}.py", "f", arguments)


def corpus() -> None:
    if not CORPUS.is_dir():
        print(f"(no conformance corpus at {CORPUS})")
        return
    print(f"\nnn modules of the conformance corpus\n{HEADER}" + (TORCH_HEADER if torch is not None else ""))
    for case in sorted(CORPUS.iterdir()):
        meta_path, source = case / "meta.json", case / "source.py"
        if not meta_path.is_file() or not source.is_file():
            continue
        if "nn" not in json.loads(meta_path.read_text(encoding="utf-8")).get("tags", ()) and not case.name.startswith("module_"):
            continue
        text = source.read_text(encoding="utf-8")
        entry = json.loads((case / "io.json").read_text(encoding="utf-8")).get("entry", "forward")
        is_function = any(isinstance(n, ast.FunctionDef) and n.name == entry for n in ast.parse(text).body)
        arguments = torch_arguments(case) if torch is not None else None
        row(case.name, text, "source.py", entry if is_function else None, arguments)


def subprocess_seconds(code: str, env: dict[str, str] | None = None) -> float:
    return subprocess_times(code, env)[0]


def subprocess_times(code: str, env: dict[str, str] | None = None) -> tuple[float, ...]:
    """The figures (seconds) the last line of `code`'s output holds."""
    output = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                            env={**os.environ, **(env or {})}, cwd=ROOT)  # fmt: skip
    return tuple(map(float, output.stdout.strip().splitlines()[-1].split()))


IMPORT = "import time; s = time.perf_counter(); import {0}; print(time.perf_counter() - s)"

LSTM_FIRST_CALL = """
import time
from pathlib import Path
import numpy as np
from tsjit.frontend import script_source
from tsjit.context import make_context
from tsjit.runtime.native import LLVMExecutor
source = Path("examples/lstm_cell.py")
module = script_source(make_context(), source.read_text(), str(source), "LSTMCellS")
rng = np.random.default_rng(0)
b, h, f = 64, 32, 16
shapes = [(b, f), (b, h), (b, h), (4 * h, f), (4 * h, h), (4 * h,), (4 * h,)]
inputs = [rng.standard_normal(s, dtype=np.float32) for s in shapes]
native = LLVMExecutor(module, "LSTMCellS")
start, cpu = time.perf_counter(), time.process_time()
native(*inputs)
print(time.process_time() - cpu, time.perf_counter() - start)
"""


def startup() -> None:
    print("\nfresh processes (best of 3)")
    ours = min(subprocess_seconds(IMPORT.format("tsjit.frontend.script")) for _ in range(3))
    line = f"import tsjit (with its frontend): {ours * 1e3:.0f} ms"
    if torch is not None:
        theirs = min(subprocess_seconds(IMPORT.format("torch")) for _ in range(3))
        line += f"   (import torch: {theirs * 1e3:.0f} ms, ratio {ours / theirs:.2f})"
    print(line)
    cold: list[tuple[float, ...]] = []
    warm: list[tuple[float, ...]] = []
    for _ in range(2):
        with tempfile.TemporaryDirectory() as cache:
            env = {"TSJIT_CACHE_DIR": cache}
            cold.append(subprocess_times(LSTM_FIRST_CALL, env))
            warm += [subprocess_times(LSTM_FIRST_CALL, env) for _ in range(3)]
    (cold_cpu, cold_wall), (warm_cpu, warm_wall) = min(cold), min(warm)
    print(f"LSTM cell, first call on llvm (CPU): cold cache {cold_cpu * 1e3:.1f} ms, "
          f"warm cache {warm_cpu * 1e3:.1f} ms (ratio {cold_cpu / warm_cpu:.0f}; "
          f"wall {cold_wall * 1e3:.1f} and {warm_wall * 1e3:.1f} ms)")  # fmt: skip


def main() -> None:
    if sys.argv[1:2] == ["--torch-child"]:
        script_s, calls_s = torch_script(Path(sys.argv[2]).read_text(encoding="utf-8"), sys.argv[3] or None,
                                         [torch.ones(2), 3], 1)  # pyright: ignore[reportOptionalMemberAccess]
        print(script_s, calls_s)
        return
    sizes = tuple(int(a) for a in sys.argv[1:]) or SIZES
    print(f"compile latency (CPU µs per statement; PyTorch {'%s' % torch.__version__ if torch else 'not importable'})")
    generated(sizes)
    corpus()
    startup()


if __name__ == "__main__":
    main()
