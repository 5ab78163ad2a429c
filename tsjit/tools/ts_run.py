"""ts-run: run a TorchScript program on JSON-encoded inputs, or check it against the
runs a conformance case recorded.

    ts-run graph.txt --inputs values.json          prints the result, JSON-encoded
    ts-run CASE_DIR                                 checks CASE_DIR/graph.txt against its io.json
    ts-run CASE_DIR/graph.opt.txt --check CASE_DIR/io.json -p canonicalize,cse
    ts-run CASE_DIR --profile-runs 1 --print-optimized   profile, specialize, print the graph

FILE is MLIR, PyTorch graph text, Python source or a case directory. A graph whose first
input is a module (`%self`) runs against the object built from `--module` (default:
module.json beside FILE). Values use the conformance corpus's JSON encoding.
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.rewriter import Rewriter

from tsjit.diagnostics import SourceLocation, TsjitError, tool_main
from tsjit.dialects.types import ClassType
from tsjit.runtime.errors import TorchScriptError
from tsjit.runtime.values import ScriptObject, decode_value, encode_value, match_value


def main(argv: Sequence[str] | None = None) -> None:
    tool_main("ts-run", run_tool, None if argv is None else list(argv))


def run_tool(argv: list[str] | None) -> None:
    args = _arguments().parse_args(argv)
    case = Path(args.file)
    graph_path = case / "graph.txt" if case.is_dir() else case
    check = args.check or (str(case / "io.json") if case.is_dir() else None)
    io = _read_io(check) if check else None
    entry = args.entry or (io.get("entry") if io else None) or "forward"

    from tsjit.runtime.executor import DEFAULT_PIPELINE, make_executor

    module = load_program(graph_path)
    pipeline = DEFAULT_PIPELINE if args.passes is None else args.passes  # -p '' runs the graph as is
    if args.profile_runs is None:
        executor = make_executor(module, entry, args.backend, pipeline, args.threads)
    else:
        from tsjit.runtime.profiling_executor import ProfilingGraphExecutor

        executor = ProfilingGraphExecutor(
            module, entry, pipeline, args.backend, args.threads, runs=args.profile_runs
        )
    receiver = module_receiver(module, entry, args.module, graph_path)
    last_call: list[tuple[Any, ...]] = []

    def call(*inputs: Any) -> Any:
        arguments = inputs if receiver is None else (receiver, *inputs)
        last_call[:] = [arguments]
        return executor(*arguments)

    if io is not None:
        assert check is not None
        try:
            results = check_runs(call, io)
        except ValueError as error:  # a value the JSON encoding does not allow
            raise TsjitError(str(error), SourceLocation(check, 0)) from error
        for result in results:
            print(result.line)
        failed = sum(not r.ok for r in results)
        print(f"{len(results) - failed} passed, {failed} failed")
        if args.print_optimized:
            print_optimized(executor, last_call)
        if failed:
            raise SystemExit(1)
        return
    inputs = _read_inputs(args.inputs) if args.inputs else []
    try:
        value = call(*inputs)
    except TorchScriptError as error:
        raise _located(error, graph_path.parent) from error
    print(json.dumps(encode_value(value)))
    if args.print_optimized:
        print_optimized(executor, last_call)


def print_optimized(executor: Any, last_call: list[tuple[Any, ...]]) -> None:
    """The module the executor ran last: a profiling executor's current plan (the
    optimized graph once its profiling runs are done), else the specialization of the
    last call's arguments."""
    from tsjit.transforms.pass_logging import module_text

    module = getattr(executor, "current_module", None)
    if module is None and last_call:
        module = executor.graph_for(*last_call[0])
    if module is not None:
        print(module_text(module), end="")


def _arguments() -> argparse.ArgumentParser:
    from tsjit.runtime.executor import BACKENDS

    parser = argparse.ArgumentParser(prog="ts-run", description=__doc__.splitlines()[0])
    parser.add_argument("file", metavar="FILE", help=".mlir, graph text, .py, or a case directory")
    parser.add_argument("--entry", metavar="NAME", help="function to run (default: io.json's, else forward)")
    parser.add_argument("--inputs", metavar="VALUES.json", help="the arguments: a JSON list of values")
    parser.add_argument("--check", metavar="IO.json", help="run every recorded run and compare")
    parser.add_argument("--module", metavar="MODULE.json", help="module (default: module.json beside FILE)")
    parser.add_argument("--backend", choices=list(BACKENDS), default="interp")
    parser.add_argument(
        "--threads",
        type=int,
        default=1,
        metavar="N",
        help="split large native kernels over N threads (llvm, auto)",
    )
    parser.add_argument(
        "--profile-runs",
        type=_runs,
        metavar="N",
        help="run through the profiling executor, optimizing after N profiled runs",
    )
    parser.add_argument(
        "--print-optimized", action="store_true", help="print the optimized graph after running"
    )
    parser.add_argument(
        "-p",
        "--passes",
        metavar="PIPELINE",
        help="optimization pipeline, as for ts-opt (default: executor-default; '' for none)",
    )
    return parser


def _runs(text: str) -> int:
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"expected a non-negative number of runs, got '{text}'")
    return int(text)


def load_program(path: Path) -> ModuleOp:
    """Reads and verifies a program (MLIR, graph text, Python source). Graph text
    declares the functions it calls without their bodies (PyTorch prints a call as
    `prim::CallFunction` of a named function): those are scripted from the Python
    source the calls point at (`# source.py:17:8`) when it lies beside the graph."""
    from tsjit.context import make_context
    from tsjit.formats import read_program
    from tsjit.formats.mlir import verify

    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise TsjitError(f"cannot read {path}: {error.strerror}") from error
    module = read_program(make_context(), text, str(path))
    verify(module)
    link_declared_functions(module, path.parent)
    return module


def link_declared_functions(module: ModuleOp, directory: Path) -> None:
    """Gives the bodiless functions of `module` the bodies of the same-named functions
    (or of a unique `<qualifier>.<name>`, as `torch.nn.functional.softmax` for a call of
    `softmax`) that scripting the calling source files defines; the scripted module's
    other functions come along for the bodies to call."""
    from tsjit.context import make_context
    from tsjit.formats import read_program

    functions = {op.sym_name.data: op for op in module.ops if isinstance(op, func.FuncOp)}
    declared = {name for name, op in functions.items() if op.is_declaration}
    sources = {
        location.file
        for op in module.walk()
        if isinstance(op, func.CallOp) and op.callee.root_reference.data in declared
        if (location := SourceLocation.of_op(op)) is not None and location.file.endswith(".py")
    }
    for file in sorted(sources):
        path = directory / file
        if not declared or not path.is_file():
            continue
        scripted = read_program(make_context(), path.read_text(encoding="utf-8"), str(path))
        definitions = {op.sym_name.data: op for op in scripted.ops if isinstance(op, func.FuncOp)}
        for name in sorted(declared):
            candidates = [d for d in definitions if d == name]
            candidates = candidates or [d for d in definitions if d.endswith(f".{name}")]
            if len(candidates) != 1 or definitions[candidates[0]].is_declaration:
                continue
            body = definitions[candidates[0]].clone()
            body.sym_name = StringAttr(name)
            Rewriter.replace_op(functions[name], body)
            functions[name] = body
            declared.discard(name)
        for name, definition in definitions.items():
            if name not in functions:
                functions[name] = definition.clone()
                module.body.block.add_op(functions[name])


def _read_json(path: str) -> Any:
    try:
        with open(path, encoding="utf-8") as file:
            return json.load(file)
    except OSError as error:
        raise TsjitError(f"cannot read {path}: {error.strerror}") from error
    except json.JSONDecodeError as error:
        raise TsjitError(error.msg, SourceLocation(path, error.lineno, error.colno)) from error


def _read_io(path: str) -> dict[str, Any]:
    """An io.json: `{"runs": [{"inputs": [...], "outputs": ... | "raises": ...}, ...]}`,
    checked for that structure (its values are checked as they are decoded)."""
    io = _read_json(path)
    runs = io.get("runs") if isinstance(io, dict) else None
    problem = None
    if not isinstance(runs, list):
        problem = 'an io.json is an object whose "runs" is a JSON array'
    else:
        for i, run in enumerate(runs):
            if not isinstance(run, dict) or not isinstance(run.get("inputs"), list):
                problem = f'run {i} is not an object with an "inputs" array'
            elif "outputs" not in run and "raises" not in run:
                problem = f'run {i} has neither "outputs" nor "raises"'
            if problem:
                break
    for key in ("rtol", "atol"):
        if isinstance(io, dict) and key in io and (type(io[key]) not in (int, float) or io[key] < 0):
            problem = f'"{key}" is a non-negative JSON number'
    if isinstance(io, dict) and not isinstance(io.get("entry", ""), str):
        problem = '"entry" is a JSON string'
    if problem:
        raise TsjitError(problem, SourceLocation(path, 0))
    return io


def _read_inputs(path: str) -> list[Any]:
    """`[v1, v2]`, or an io.json-style `{"inputs": [v1, v2]}`."""
    data = _read_json(path)
    encoded = data.get("inputs") if isinstance(data, dict) else data
    if not isinstance(encoded, list):
        raise TsjitError("inputs must be a JSON list of encoded values", SourceLocation(path, 0))
    try:
        return [decode_value(v, f"input {i}") for i, v in enumerate(encoded)]
    except ValueError as error:
        raise TsjitError(str(error), SourceLocation(path, 0)) from error


def module_receiver(
    module: ModuleOp, entry: str, module_json: str | None, graph_path: Path
) -> ScriptObject | None:
    """The module object a graph's `%self` input needs, or None for a plain function."""
    from tsjit.runtime.modules import module_object

    functions = [op for op in module.ops if isinstance(op, func.FuncOp) and op.sym_name.data == entry]
    inputs = functions[0].function_type.inputs.data if functions else ()
    if not inputs or not isinstance(inputs[0], ClassType):
        return None
    path = Path(module_json) if module_json else graph_path.parent / "module.json"
    if not path.is_file():
        raise TsjitError(
            f"'{entry}' takes a module ({inputs[0].qualname.data}): give its module.json with --module",
            SourceLocation(str(graph_path), 0),
        )
    return module_object(path, module)


# --------------------------------------------------------------------------------------
# Checking recorded runs
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RunResult:
    index: int
    failure: str | None  # None when the run matched

    @property
    def ok(self) -> bool:
        return self.failure is None

    @property
    def line(self) -> str:
        return f"run {self.index}: ok" if self.ok else f"run {self.index}: FAIL {self.failure}"


def check_runs(call: Callable[..., Any], io: dict[str, Any]) -> list[RunResult]:
    """Runs every run of an io.json through `call` and compares outputs (under the
    case's tolerances), raised exception classes and arguments mutated in place."""
    rtol, atol = io.get("rtol", 1e-5), io.get("atol", 1e-6)
    return [RunResult(i, _check_run(call, run, rtol, atol)) for i, run in enumerate(io["runs"])]


def _check_run(call: Callable[..., Any], run: dict[str, Any], rtol: float, atol: float) -> str | None:
    inputs = [decode_value(v, f"input {i}") for i, v in enumerate(run["inputs"])]
    try:
        result = call(*inputs)
    except TorchScriptError as error:
        if "raises" not in run:
            return f"raised {error}"
        if error.kind != run["raises"]:
            return f"raised {error.kind} instead of {run['raises']}: {error.message}"
        return None
    if "raises" in run:
        return f"returned instead of raising {run['raises']} ({run.get('message', '')})"
    mismatch = match_value(result, decode_value(run["outputs"], "output"), rtol, atol, "output")
    if mismatch is not None:
        return mismatch
    for i, expected in enumerate(run.get("inputs_after", ())):
        mismatch = match_value(inputs[i], decode_value(expected), rtol, atol, f"input[{i}] after the call")
        if mismatch is not None:
            return mismatch
    return None


def _located(error: TorchScriptError, graph_directory: Path) -> TsjitError:
    """The tool's one-line report of an exception the program raised. Graph comments
    name the source relative to the graph (`source.py:13:8`), so look for it there."""
    location = None
    if error.location and (m := re.fullmatch(r"(.+?):(\d+)(?::(\d+))?", error.location)):
        file = m.group(1)
        if not Path(file).is_absolute() and (graph_directory / file).is_file():
            file = str(graph_directory / file)
        location = SourceLocation(file, int(m.group(2)), int(m.group(3) or 0))
    return TsjitError(f"{error.kind}: {error.message}", location)


if __name__ == "__main__":
    main()
