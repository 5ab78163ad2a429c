"""The rest of the TorchScript language (classes, context managers, enums, interfaces,
fork/wait, unions, Final/Any/Attribute/unused, operators by qualified name), against
PyTorch and against Python.

Each program of `language/` has a record of what PyTorch 2.13 computed and printed for
it (`language/<name>.json`, written by scripts/generate_language_data.py). tsjit must
compute the same from the program's source, and also when it runs the graph text
PyTorch printed (plain and inlined), completed with the classes, enums and callees
scripted from the source (`link_declared_functions`). Run eagerly in Python with
tsjit's torch shim, the programs must compute what the scripted ones do. Programs
TorchScript rejects get TorchScript's diagnosis at the line PyTorch points at.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tsjit.context import make_context
from tsjit.diagnostics import TsjitError
from tsjit.formats.torchscript_text import import_graph_text
from tsjit.frontend.modules import is_tensor, tensor_array
from tsjit.frontend.script import ScriptFunction, ScriptModule, run_user_file, script, script_file_text
from tsjit.frontend.source import SourceFile
from tsjit.runtime.errors import TorchScriptError
from tsjit.runtime.executor import GraphExecutor
from tsjit.runtime.values import decode_value, match_value
from tsjit.tools.ts_run import link_declared_functions

PROGRAMS = Path(__file__).with_name("language")
NAMES = sorted(p.stem for p in PROGRAMS.glob("*.py"))

EAGER_DIFFERS = {
    "typing_extras": "in Python, torch.jit.Attribute is a NamedTuple and @torch.jit.unused methods run",
}
"""Programs whose eager Python run is not what TorchScript computes, by design."""


def record(name: str) -> dict[str, Any]:
    return json.loads((PROGRAMS / f"{name}.json").read_text(encoding="utf-8"))


def namespace(name: str) -> dict[str, Any]:
    path = PROGRAMS / f"{name}.py"
    return run_user_file(SourceFile(str(path), path.read_text(encoding="utf-8")))


def scripted(name: str) -> ScriptFunction:
    path = PROGRAMS / f"{name}.py"
    text = path.read_text(encoding="utf-8")
    if "class Model(" in text:
        return script(namespace(name)["Model"]())
    return script_file_text(text, str(path))


def outcome(call: Any, inputs: list[Any]) -> tuple[Any, tuple[str, str] | None]:
    try:
        return call(*inputs), None
    except TorchScriptError as error:
        return None, (error.kind, error.message)


def check_runs(call: Any, io: dict[str, Any]) -> list[str]:
    failures = []
    for number, run in enumerate(io["runs"]):
        result, error = outcome(call, [decode_value(v) for v in run["inputs"]])
        expected_error = (run["raises"], run["message"]) if "raises" in run else None
        if error != expected_error:
            failures.append(f"run {number}: raised {error}, expected {expected_error}")
        elif error is None:
            mismatch = match_value(result, decode_value(run["outputs"]), io["rtol"], io["atol"])
            if mismatch is not None:
                failures.append(f"run {number}: {mismatch}")
    return failures


@pytest.mark.parametrize("name", NAMES)
def test_program_computes_what_torchscript_computes(name: str):
    failures = check_runs(scripted(name), record(name))
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("form", ["graph", "inlined"])
@pytest.mark.parametrize("name", NAMES)
def test_pytorchs_graph_text_runs(name: str, form: str):
    """PyTorch's graph, completed from the program's source, runs with PyTorch's
    results (a module program's graph against the state tsjit scripts the module to)."""
    io = record(name)
    path = PROGRAMS / f"{form}_{name}.txt"
    module = import_graph_text(make_context(), io[form], str(path))
    link_declared_functions(module, PROGRAMS)
    run = GraphExecutor(module, "forward", pipeline=())
    compiled = scripted(name)
    call = (lambda *inputs: run(compiled.state, *inputs)) if isinstance(compiled, ScriptModule) else run
    failures = check_runs(call, io)
    assert not failures, "\n".join(failures)


def to_runtime(value: Any) -> Any:
    """An eager result as the runtime's values (shim tensors as numpy arrays)."""
    if is_tensor(value):
        return tensor_array(value)
    if isinstance(value, (list, tuple)):
        return type(value)(to_runtime(v) for v in value)
    if isinstance(value, dict):
        return {k: to_runtime(v) for k, v in value.items()}
    return value


@pytest.mark.parametrize("name", [n for n in NAMES if n not in EAGER_DIFFERS])
def test_eager_python_computes_what_the_script_computes(name: str):
    from tsjit.frontend import torch_shim as torch

    names = namespace(name)
    function = names["Model"]() if "Model" in names else names["forward"]
    compiled = scripted(name)
    for number, run in enumerate(record(name)["runs"]):
        inputs = [decode_value(v) for v in run["inputs"]]
        expected, error = outcome(compiled, inputs)
        eager_inputs = [torch.from_numpy(np.array(v)) if isinstance(v, np.ndarray) else v for v in inputs]
        if error is not None:
            with pytest.raises(Exception, match=re.escape(error[1])):
                function(*eager_inputs)
            continue
        assert match_value(expected, to_runtime(function(*eager_inputs)), 1e-5, 1e-6, f"run {number}") is None


@pytest.mark.parametrize("name", [n for n in NAMES if n not in ("interfaces", "typing_extras")])
def test_printed_code_scripts_back(name: str):
    """The Python printer's code of `forward` (closures and `fork`, `__torch__.` class
    names, enum constants, `isinstance`, `(c).value`) compiles back to a program that
    computes the same: the classes are declared under their qualified names, as a
    reader of serialized code declares them."""
    import __future__

    from tsjit.frontend.classes import is_script_class, qualified_name
    from tsjit.frontend.compilation import CompilationUnit, cleanup

    printed = scripted(name).code
    names = namespace(name)
    source = SourceFile(f"printed_{name}.py", printed)
    unit = CompilationUnit()
    unit.register_source(source)
    code = compile(source.tree, source.filename, "exec", flags=__future__.annotations.compiler_flag, dont_inherit=True)
    exec(code, names)  # noqa: S102 - the printed `forward` replaces the original
    for value in list(names.values()):
        if isinstance(value, type) and value.__module__ == name and is_script_class(value):
            unit.define_class(value, qualified_name(value))
    compiled = unit.compile_function(names["forward"], "forward", None)
    cleanup(unit.module)
    failures = check_runs(ScriptFunction(unit, compiled), record(name))
    assert not failures, printed + "\n".join(failures)


ERRORS = json.loads((PROGRAMS / "errors.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_rejected_programs_get_torchscripts_diagnosis(name: str):
    case = ERRORS[name]
    with pytest.raises(TsjitError) as info:
        script_file_text(case["source"], f"error_{name}.py")
    error = info.value
    assert _normalized(case["message"]) in _normalized(error.message)
    if case["line"] is not None:
        assert error.location is not None and error.location.line == case["line"], str(error)


def _normalized(message: str) -> str:
    """A diagnosis without what PyTorch spells differently: case, a final period, and
    the order in which it lists a set of types (`since element 1 of type ...`)."""
    return message.split(" since element ")[0].rstrip(".").lower()


def test_every_program_has_its_record():
    assert sorted(p.stem for p in PROGRAMS.glob("*.json") if p.stem != "errors") == NAMES
