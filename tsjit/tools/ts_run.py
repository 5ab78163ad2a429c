"""ts-run: run a TorchScript program on JSON-encoded inputs, or check it against the
runs a conformance case recorded.

    ts-run graph.txt --inputs values.json          prints the result, JSON-encoded
    ts-run CASE_DIR                                 checks CASE_DIR/graph.txt against its io.json
    ts-run CASE_DIR/graph.opt.txt --check CASE_DIR/io.json -p canonicalize,cse
    ts-run CASE_DIR --profile-runs 1 --print-optimized   profile, specialize, print the graph
    ts-run model.pt --inputs values.json            a TorchScript archive's forward

FILE is MLIR, PyTorch graph text, Python source, a case directory or a TorchScript
archive (`.pt`: `--entry` names a method of its module, default forward). A graph whose
first input is a module (`%self`) runs against the object built from `--module`
(default: module.json beside FILE). Values use the conformance corpus's JSON encoding.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, ModuleOp, StringAttr
from xdsl.rewriter import Rewriter

from tsjit.diagnostics import SourceLocation, TsjitError, tool_main
from tsjit.dialects.types import ClassType
from tsjit.runtime.errors import TorchScriptError
from tsjit.runtime.values import ScriptObject, decode_value, encode_value, match_value
from tsjit.tools import version_text


def main(argv: Sequence[str] | None = None) -> None:
    tool_main("ts-run", run_tool, None if argv is None else list(argv))


def run_tool(argv: list[str] | None) -> None:
    args = _arguments().parse_args(argv)
    case = Path(args.file)
    graph_path = case / "graph.txt" if case.is_dir() else case
    check = args.check or (str(case / "io.json") if case.is_dir() else None)
    io = _read_io(check) if check else None
    entry = args.entry or (io.get("entry") if io else None) or "forward"

    from tsjit.formats.archive import is_archive
    from tsjit.runtime.executor import DEFAULT_PIPELINE, make_executor

    if is_archive(graph_path):
        program = ArchiveProgram(graph_path)
    else:
        program = GraphProgram(*load_program_and_state(graph_path, args.entry), args.module, graph_path)
    pipeline = DEFAULT_PIPELINE if args.passes is None else args.passes  # -p '' runs the graph as is
    executors: dict[str, Any] = {}
    last_call: list[tuple[Any, ...]] = []

    def executor_of(name: str) -> Any:
        if name not in executors:
            symbol = program.symbol(name)
            if args.profile_runs is None:
                executors[name] = make_executor(program.module, symbol, args.backend, pipeline, args.threads)
            else:
                from tsjit.runtime.profiling_executor import ProfilingGraphExecutor

                executors[name] = ProfilingGraphExecutor(
                    program.module, symbol, pipeline, args.backend, args.threads, runs=args.profile_runs
                )
        return executors[name]

    def method(name: str) -> Callable[..., Any]:
        executor = executor_of(name)
        receiver = program.receiver(name)

        def call(*inputs: Any) -> Any:
            inputs = program.bind(name, inputs)
            arguments = inputs if receiver is None else (receiver, *inputs)
            last_call[:] = [arguments]
            return executor(*arguments)

        return call

    call = method(entry)
    executor = executor_of(entry)
    if io is not None:
        assert check is not None
        try:
            results = check_runs(call, io, method)
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
    value = call(*inputs)  # a TorchScriptError is reported with its TorchScript traceback
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
    parser.add_argument("file", metavar="FILE", help=".mlir, graph text, .py, a case directory, or a .pt archive")
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
    parser.add_argument("--version", action="version", version=version_text("ts-run"))
    parser.add_argument("--debug", action="store_true", help="show the Python traceback of an error")
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


def load_program_and_state(path: Path, entry: str | None) -> tuple[ModuleOp, ScriptObject | None]:
    """The program, and the module object its graph runs on when the file itself makes
    one: Python source defining a `torch.nn.Module` class is scripted from an instance
    of it, whose state needs no module.json."""
    if path.suffix != ".py":
        return load_program(path), None
    from tsjit.formats import read_text
    from tsjit.frontend.script import ScriptModule, script_file_text

    scripted = script_file_text(read_text(str(path)), str(path), entry)
    return scripted.module, scripted.state if isinstance(scripted, ScriptModule) else None


def load_program(path: Path) -> ModuleOp:
    """Reads and verifies a program (MLIR, graph text, Python source). Graph text
    declares the functions it calls without their bodies (PyTorch prints a call as
    `prim::CallFunction` of a named function): those are scripted from the Python
    source the calls point at (`# source.py:17:8`) when it lies beside the graph."""
    from tsjit.context import make_context
    from tsjit.formats import read_program, read_text
    from tsjit.formats.mlir import verify

    module = read_program(make_context(), read_text(str(path)), str(path))
    verify(module)
    link_declared_functions(module, path.parent)
    return module


def link_declared_functions(module: ModuleOp, directory: Path) -> None:
    """Completes a graph with what PyTorch's graph text leaves out, from the Python
    source its nodes point at (`# source.py:17:8`) when it lies beside the graph: the
    bodies of the functions it declares (a call prints the callee by name only, and
    the body of the same-named function, or of a unique `<qualifier>.<name>` such as
    `torch.nn.functional.softmax` for `softmax`, is taken), the methods of the classes
    it uses and the declarations of its Enum classes. The scripted source's other
    functions come along for the bodies to call."""
    from tsjit.context import make_context
    from tsjit.dialects.prim import EnumOp
    from tsjit.formats import read_program
    from tsjit.formats.torchscript_text import cast_call_operands

    functions = {op.sym_name.data: op for op in module.ops if isinstance(op, func.FuncOp)}
    declared = {name for name, op in functions.items() if op.is_declaration}
    enums = {op.qualified_name.data for op in module.ops if isinstance(op, EnumOp)}
    if not declared and not _uses_undefined_classes(module, functions, enums):
        return
    sources = {
        location.file
        for op in module.walk()
        if (location := SourceLocation.of_op(op)) is not None and location.file.endswith(".py")
    }
    for file in sorted(sources):
        path = directory / file
        if not path.is_file():
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
            for call in module.walk():
                if isinstance(call, func.CallOp) and call.callee.string_value() == name:
                    cast_call_operands(call, body.function_type.inputs.data)
        for name, definition in definitions.items():
            if name not in functions:
                functions[name] = definition.clone()
                module.body.block.add_op(functions[name])
        for op in scripted.ops:
            if isinstance(op, EnumOp) and op.qualified_name.data not in enums:
                enums.add(op.qualified_name.data)
                module.body.block.insert_op_before(op.clone(), module.body.block.first_op)  # pyright: ignore[reportArgumentType]


def _uses_undefined_classes(module: ModuleOp, functions: dict[str, func.FuncOp], enums: set[str]) -> bool:
    """Whether the graph calls methods of classes it has no functions for, or uses
    Enum classes it does not declare."""
    from tsjit.dialects.prim import CallMethodOp
    from tsjit.dialects.types import EnumType
    from tsjit.runtime.modules import builtin_method

    for op in module.walk():
        if isinstance(op, CallMethodOp):
            receiver, method = op.obj.type, op.method_name.data
            if not isinstance(receiver, ClassType):
                return True  # an interface: the classes behind it are in the source
            if f"{receiver.qualname.data}.{method}" not in functions and not builtin_method(receiver.qualname.data, method):
                return True
        if (needed := _methods_needed(op)) is not None and needed not in functions:
            return True
        for value in (*op.operands, *op.results):
            if _mentions(value.type, EnumType, enums):
                return True
    return False


def _methods_needed(op: Any) -> str | None:
    """The method of a user class an op calls implicitly: `__enter__` and `__exit__`
    for `prim.Enter`/`prim.Exit`, `__lt__` for sorting a list of objects."""
    from tsjit.dialects.prim import EnterOp, ExitOp
    from tsjit.runtime.modules import builtin_method

    if isinstance(op, (EnterOp, ExitOp)) and isinstance(op.context.type, ClassType):
        name = op.context.type.qualname.data
        method = "__enter__" if isinstance(op, EnterOp) else "__exit__"
    elif op.name in ("aten.sort", "aten.sorted") and isinstance(getattr(op.operands[0].type, "element_type", None), ClassType):
        name, method = op.operands[0].type.element_type.qualname.data, "__lt__"
    else:
        return None
    return None if builtin_method(name, method) is not None else f"{name}.{method}"


def _mentions(t: Any, kind: type, known: set[str]) -> bool:
    if isinstance(t, kind):
        return t.qualname.data not in known
    return any(_mentions(p, kind, known) for p in getattr(t, "parameters", ()) if hasattr(p, "parameters")) or any(
        _mentions(e, kind, known) for p in getattr(t, "parameters", ()) if isinstance(p, ArrayAttr) for e in p
    )


def _read_json(path: str) -> Any:
    try:
        with open(path, encoding="utf-8") as file:  # a missing file: `describe` reports it
            return json.load(file)
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


class GraphProgram:
    """A program file: functions are run by their symbol, a module graph against the
    object its module.json describes, or the one the file made (`state`: a Python
    file's module class, scripted from an instance)."""

    def __init__(self, module: ModuleOp, state: ScriptObject | None, module_json: str | None, path: Path):
        self.module = module
        self.state = state
        self.module_json = module_json
        self.path = path

    def symbol(self, entry: str) -> str:
        return entry

    def receiver(self, entry: str) -> ScriptObject | None:
        return module_receiver(self.module, entry, self.module_json, self.path, self.state)

    def bind(self, entry: str, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return inputs


class ArchiveProgram:
    """A TorchScript archive: methods of its root module, run on its object tree
    (compiled before anything runs, so that bad code/ runs nothing)."""

    def __init__(self, path: Path):
        import tsjit

        self.loaded = tsjit.load(str(path))

    @property
    def module(self) -> ModuleOp:
        return self.loaded.module

    def symbol(self, entry: str) -> str:
        return self.loaded.method(entry).name

    def receiver(self, entry: str) -> ScriptObject:
        return self.loaded.state

    def bind(self, entry: str, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        """Inputs left out take the method's defaults."""
        from tsjit.frontend.script import bind_arguments

        return bind_arguments(self.loaded.method(entry).entry, inputs, {})


def module_receiver(
    module: ModuleOp, entry: str, module_json: str | None, graph_path: Path, state: ScriptObject | None = None
) -> ScriptObject | None:
    """The module object a graph's `%self` input needs, or None for a plain function:
    `--module`'s, else the one the program came with (`state`), else module.json's
    beside the graph. Incomplete, it is an error listing what it lacks."""
    from tsjit.runtime.modules import module_object

    functions = [op for op in module.ops if isinstance(op, func.FuncOp) and op.sym_name.data == entry]
    inputs = functions[0].function_type.inputs.data if functions else ()
    if not inputs or not isinstance(inputs[0], ClassType):
        return None
    if state is not None and module_json is None:
        return state
    path = Path(module_json) if module_json else graph_path.parent / "module.json"
    missing: list[str] = []
    class_name = inputs[0].qualname.data
    base = _scripted_module_state(module, graph_path.parent)
    if path.is_file():
        receiver = module_object(path, module, missing, base)
        problem = f"{path} lacks what it reads"
    else:
        receiver = module_object({"type": class_name}, module, missing, base)
        problem = f"{path} does not exist" + ("" if module_json else " (--module names a module.json)")
        problem += "; the module's state must give"
    if missing:
        raise TsjitError(
            f"'{entry}' runs on a module of class {class_name}, and {problem}:",
            SourceLocation(str(graph_path), 0),
            notes=[f"  {line}" for line in missing],
        )
    return receiver


def _scripted_module_state(module: ModuleOp, directory: Path) -> ScriptObject | None:
    """The module object as scripting the Python source beside the graph builds it,
    when the graph reads submodules through interfaces: their classes are not in the
    graph (nor in module.json), only in the source."""
    from tsjit.dialects.prim import GetAttrOp
    from tsjit.dialects.types import InterfaceType
    from tsjit.frontend.script import ScriptModule, script_file_text

    if not any(isinstance(op, GetAttrOp) and isinstance(op.result.type, InterfaceType) for op in module.walk()):
        return None
    for file in sorted({loc.file for op in module.walk() if (loc := SourceLocation.of_op(op)) and loc.file.endswith(".py")}):
        path = directory / file
        if path.is_file():
            scripted = script_file_text(path.read_text(encoding="utf-8"), str(path))
            if isinstance(scripted, ScriptModule):
                return scripted.state
    return None


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


def check_runs(
    call: Callable[..., Any], io: dict[str, Any], method: Callable[[str], Callable[..., Any]] | None = None
) -> list[RunResult]:
    """Runs every run of an io.json through `call` and compares outputs (under the
    case's tolerances), raised exception classes and arguments mutated in place. A run
    that names its `entry` (an archive's method) runs through `method(entry)`."""
    rtol, atol = io.get("rtol", 1e-5), io.get("atol", 1e-6)
    results = []
    for i, run in enumerate(io["runs"]):
        run_call = method(run["entry"]) if method is not None and "entry" in run else call
        results.append(RunResult(i, _check_run(run_call, run, rtol, atol)))
    return results


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


if __name__ == "__main__":
    main()
