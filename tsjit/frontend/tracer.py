"""`tsjit.trace`: PyTorch's `torch.jit.trace`, with or without PyTorch.

    traced = tsjit.trace(fn_or_module, (x, y))      # numpy arrays, shim or torch tensors
    traced(x, y)                                   # runs through the GraphExecutor
    traced.graph, traced.code, traced.save(path)   # as for `tsjit.script`

Code written against the shim (`tsjit.install_torch_shim()`, or a file tsjit runs)
runs eagerly on tsjit's kernels while `tracer_state` records each operator; real
`torch.nn.Module`s and functions written against PyTorch are traced by PyTorch itself
and its graphs imported (`tracer_torch`). Either way the result is the same kind of
callable as `tsjit.script`'s, whose graph may call scripted functions and be called
from scripted code.

As in PyTorch, the trace is checked by tracing again on `check_inputs` (by default the
example inputs): different graphs raise `TracingCheckError`, outputs that differ from
the Python function's give a TracerWarning. The executor runs the graph with its
tensor types erased, so inputs of other shapes or ranks run the recorded operators
(and fail where PyTorch's would), never a specialization to the example's sizes.
"""

from __future__ import annotations

import copy
import difflib
import inspect
import re
import sys
import types
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute, SSAValue
from xdsl.rewriter import Rewriter

from tsjit.diagnostics import SourceLocation, TsjitError
from tsjit.dialects import prim
from tsjit.dialects.types import DictType, ListType, OptionalType, TensorType, TupleType
from tsjit.dialects.value_names import name_hint
from tsjit.frontend.script import ScriptFunction, ScriptModule
from tsjit.runtime import interop
from tsjit.frontend.torch_shim._state import ACTIVE
from tsjit.frontend.torch_shim._tensor import Tensor, wrap
from tsjit.frontend.tracer_state import TraceError, TracerWarning, TracingState, trace_error, wrap_arrays

__all__ = ["TraceError", "TracedFunction", "TracedModule", "TracerWarning", "TracingCheckError", "trace"]


class TracingCheckError(TsjitError):
    """PyTorch's `torch.jit.TracingCheckError`: tracing again gave another graph."""

    def __init__(self, graph_diff_error: str | None, tensor_compare_error: str | None, extra_msg: str | None = None):
        message = "Tracing failed sanity checks!\n"
        if extra_msg is not None:
            message += extra_msg + "\n"
        if graph_diff_error is not None:
            message += "ERROR: Graphs differed across invocations!\n" + _indent(graph_diff_error) + "\n"
        if tensor_compare_error is not None:
            message += (
                "ERROR: Tensor-valued Constant nodes differed in value across invocations. This often indicates "
                "that the tracer has encountered untraceable code.\n" + _indent(tensor_compare_error) + "\n"
            )
        super().__init__(message)


def trace(
    fn_or_module: Any,
    example_inputs: Any,
    check_inputs: Sequence[Any] | None = None,
    strict: bool = True,
    check_trace: bool = True,
    check_tolerance: float = 1e-5,
) -> ScriptFunction:
    """Runs `fn_or_module` on `example_inputs` and returns the graph of what it did
    (see the module docstring); `strict=False` allows dict and list outputs."""
    if _is_torch_target(fn_or_module, example_inputs):
        from tsjit.frontend.tracer_torch import trace_with_torch

        return trace_with_torch(fn_or_module, example_inputs, check_inputs, strict, check_trace, check_tolerance)
    inputs = _as_tuple(example_inputs)
    target = _target(fn_or_module)
    traced = _trace_once(fn_or_module, target, inputs, strict)
    if check_trace:
        _check_trace(fn_or_module, target, traced, check_inputs or [inputs], strict, check_tolerance)
    return traced


# --------------------------------------------------------------------------------------
# One trace
# --------------------------------------------------------------------------------------


def _target(fn_or_module: Any) -> Callable[..., Any]:
    from tsjit.frontend.modules import is_module

    if is_module(fn_or_module):
        return fn_or_module.forward
    if isinstance(fn_or_module, ScriptFunction):
        return fn_or_module
    if not callable(fn_or_module):
        raise TsjitError(f"tsjit.trace expects a function or a module, got {type(fn_or_module).__name__}")
    return fn_or_module


def _trace_once(fn_or_module: Any, target: Callable[..., Any], raw_inputs: tuple[Any, ...], strict: bool) -> ScriptFunction:
    from tsjit.frontend.compilation import CompilationUnit, CompiledFunction, cleanup
    from tsjit.frontend.modules import is_module

    definition = _definition_location(target)
    inputs = tuple(_shim_input(v, definition) for v in raw_inputs)
    unit = CompilationUnit()
    module = fn_or_module if is_module(fn_or_module) else None
    state = TracingState(unit, module)
    symbol = "forward" if module is not None else _symbol(target)
    frame = state.start_frame(symbol, module, [state.structure_type(i) for i in inputs])
    arguments = frame.block.args[1:] if module is not None else frame.block.args
    for arg, name in zip(arguments, _parameter_names(target, len(inputs))):
        arg.name_hint = name_hint(name)
    state.bind_inputs(arguments, inputs)
    returned: dict[str, int] = {}
    previous = ACTIVE.enter(state)
    try:
        result = _run_recording_return_line(target, inputs, returned)
        location = SourceLocation(definition.file, returned.get("line", definition.line)) if definition else None
        output = state.output_value(result, strict, location)
    finally:
        ACTIVE.leave(previous)
    entry = state.finish_frame([output])
    for function in state.functions:
        unit.module.body.block.add_op(function)
    cleanup(unit.module, ("dead-code-elimination",))
    signature = _signature(entry, target, module is not None)
    compiled = CompiledFunction(symbol, entry, signature, output.type, True)
    if module is not None:
        return TracedModule(unit, compiled, state.info_of(module))
    return TracedFunction(unit, compiled)


def _run_recording_return_line(target: Callable[..., Any], inputs: tuple[Any, ...], returned: dict[str, int]) -> Any:
    """Calls the traced code, noting the line its outermost frame returns from (for
    errors about what it returned)."""
    code = getattr(getattr(target, "__func__", target), "__code__", None)
    if code is None:
        return target(*inputs)

    def profiler(frame: types.FrameType, event: str, arg: object) -> None:
        if event == "return" and frame.f_code is code:
            returned["line"] = frame.f_lineno

    previous = sys.getprofile()
    sys.setprofile(profiler)
    try:
        return target(*inputs)
    finally:
        sys.setprofile(previous)


def _definition_location(target: Callable[..., Any]) -> SourceLocation | None:
    code = getattr(getattr(target, "__func__", target), "__code__", None)
    if code is None:
        return None
    return SourceLocation(code.co_filename, code.co_firstlineno)


def _symbol(target: Callable[..., Any]) -> str:
    name = getattr(target, "__name__", "forward")
    return name if name.isidentifier() else "forward"


def _parameter_names(target: Callable[..., Any], count: int) -> list[str | None]:
    try:
        parameters = list(inspect.signature(target).parameters.values())
    except (TypeError, ValueError):
        parameters = []
    names: list[str | None] = [
        p.name for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]
    return (names + [None] * count)[:count]


def _signature(entry: func.FuncOp, target: Callable[..., Any], is_method: bool) -> Any:
    from tsjit.frontend.schema_matching import Param, Signature

    args = entry.body.block.args[1:] if is_method else entry.body.block.args
    names = _parameter_names(target, len(args))
    params = tuple(Param(name or f"input_{i}", _erase(a.type)) for i, (name, a) in enumerate(zip(names, args)))
    returns = tuple(_erase(t) for t in entry.function_type.outputs.data)
    return Signature(getattr(target, "__name__", "forward"), params, returns)


def _as_tuple(example_inputs: Any) -> tuple[Any, ...]:
    if isinstance(example_inputs, tuple):
        return example_inputs
    return (example_inputs,)


def _shim_input(value: Any, definition: SourceLocation | None) -> Any:
    """An example input as the shim's values: arrays and torch tensors become Tensors;
    lists, tuples and string-keyed dicts of them stay containers."""
    if isinstance(value, Tensor):
        return value
    if isinstance(value, np.ndarray):
        return wrap(value)
    if type(value).__name__ in ("Tensor", "Parameter") and hasattr(value, "detach"):
        return wrap(np.ascontiguousarray(value.detach().cpu().numpy()))
    if isinstance(value, tuple):
        return tuple(_shim_input(v, definition) for v in value)
    if isinstance(value, list):
        return [_shim_input(v, definition) for v in value]
    if isinstance(value, dict):
        for key in value:
            if not isinstance(key, str):
                raise trace_error(
                    f"tsjit.trace: dictionary inputs need string keys, got {type(key).__name__} key {key!r}",
                    definition,
                )
        return {k: _shim_input(v, definition) for k, v in value.items()}
    raise trace_error(
        f"Type '{type(value).__name__}' cannot be traced. Only Tensors and (possibly nested) Lists, Dicts, and "
        "Tuples of Tensors can be traced",
        definition,
    )


# --------------------------------------------------------------------------------------
# The traced callables
# --------------------------------------------------------------------------------------


class _Traced:
    """What traced functions and modules add to scripted ones: an executor over the
    graph with its tensor types erased, shim tensors in and out, and `save`."""

    module: ModuleOp
    name: str
    _executor: Any

    def executor(self) -> Any:
        if self._executor is None:
            from tsjit.frontend.script import EXECUTOR
            from tsjit.runtime.executor import make_executor

            self._executor = make_executor(self.executable_module(), self.name, executor=EXECUTOR)
        return self._executor

    def executable_module(self) -> ModuleOp:
        """The module that runs (and that scripted callers link): tensor types erased."""
        erased = self.__dict__.get("_erased")
        if erased is None:
            erased = self.__dict__["_erased"] = erased_module(self.module)
        return erased

    def save(self, path: str) -> None:
        """Writes the program: a TorchScript archive for `.pt` (when tsjit has an
        archive writer), else its IR as MLIR text that `tsjit.load` reads back."""
        if str(path).endswith(".pt"):
            import tsjit

            writer = getattr(tsjit, "save", None)
            if writer is None:
                raise TsjitError(f"{path}: this tsjit cannot write TorchScript archives yet; save as .mlir")
            writer(self, path)
            return
        with open(path, "w", encoding="utf-8") as f:
            f.write(str(self.module))
            f.write("\n")


class TracedFunction(_Traced, ScriptFunction):
    """A traced function: call it like the original, on arrays or tensors."""

    def __call__(self, *args: Any) -> Any:
        tracer = ACTIVE.current()
        if tracer is not None:
            return tracer.call_script(self, args)
        return _as_inputs(interop.call(self.run, args), args)

    def __repr__(self) -> str:
        return f"<tsjit.TracedFunction {self.name}>"


class TracedModule(_Traced, ScriptModule):
    """A traced module: `forward` recorded, its parameters read from the module's state."""

    def __call__(self, *args: Any) -> Any:
        tracer = ACTIVE.current()
        if tracer is not None:  # a submodule of a module being traced: recorded as a method call
            return tracer.call_compiled_module(self, args)
        return _as_inputs(interop.call(self.run, args), args)

    def __repr__(self) -> str:
        return f"<tsjit.TracedModule {self.info.qualname}>"


def _as_inputs(result: Any, args: Sequence[Any]) -> Any:
    """Results as shim tensors when the caller passed shim tensors (eager code goes on
    with them), else numpy arrays as `tsjit.script`'s functions return."""
    if not any(isinstance(a, Tensor) for a in _leaves(args)):
        return result
    return wrap_arrays(result)


def _leaves(value: Any) -> list[Any]:
    if isinstance(value, (list, tuple)):
        return [leaf for v in value for leaf in _leaves(v)]
    if isinstance(value, dict):
        return [leaf for v in value.values() for leaf in _leaves(v)]
    return [value]


def erased_module(module: ModuleOp) -> ModuleOp:
    """A copy whose tensor types carry no dtype, sizes or strides: what a traced graph
    runs as, since its example's shapes say nothing about later inputs."""
    copied = module.clone()
    for function in copied.ops:
        if not isinstance(function, func.FuncOp) or function.is_declaration:
            continue
        for block_arg in list(function.body.block.args):
            _retype(block_arg)
        for op in function.walk():
            for result in list(op.results):
                _retype(result)
            for region in op.regions:
                for block in region.blocks:
                    for block_arg in list(block.args):
                        _retype(block_arg)
        returned = function.body.block.last_op
        outputs = returned.operand_types if returned is not None else ()
        function.function_type = func.FunctionType.from_lists(
            [a.type for a in function.body.block.args], list(outputs)
        )
    return copied


def _retype(value: SSAValue) -> None:
    erased = _erase(value.type)
    if erased != value.type:
        Rewriter.replace_value_with_new_type(value, erased)


def _erase(t: Attribute) -> Attribute:
    if isinstance(t, TensorType):
        return TensorType()
    if isinstance(t, TupleType):
        return TupleType([_erase(e) for e in t.types], [n.data for n in t.names], None)  # pyright: ignore[reportArgumentType]
    if isinstance(t, ListType):
        return ListType(_erase(t.element_type))  # pyright: ignore[reportArgumentType]
    if isinstance(t, OptionalType):
        return OptionalType(_erase(t.element_type))  # pyright: ignore[reportArgumentType]
    if isinstance(t, DictType):
        return DictType(_erase(t.key_type), _erase(t.value_type))  # pyright: ignore[reportArgumentType]
    return t


# --------------------------------------------------------------------------------------
# Checking a trace, as torch.jit.trace does
# --------------------------------------------------------------------------------------


def _check_trace(fn_or_module: Any, target: Callable[..., Any], traced: ScriptFunction, check_inputs: Sequence[Any],
                 strict: bool, tolerance: float) -> None:  # fmt: skip
    for raw in check_inputs:
        inputs = _as_tuple(raw)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", TracerWarning)
            check = _trace_once(fn_or_module, target, copy.deepcopy(inputs), strict)
        graph_diff, tensor_diff = _graph_differences(traced.module, check.module)
        shim_inputs = tuple(_shim_input(v, None) for v in inputs)
        traced_outputs = _tensor_outputs(lambda: traced(*copy.deepcopy(shim_inputs)), "trace", graph_diff, tensor_diff)
        python_outputs = _tensor_outputs(lambda: target(*copy.deepcopy(shim_inputs)), "Python function", graph_diff,
                                         tensor_diff)  # fmt: skip
        if _compare_outputs(traced, traced_outputs, python_outputs, "Python function", tolerance):
            check_outputs = _tensor_outputs(lambda: check(*copy.deepcopy(shim_inputs)), "repeated trace", graph_diff,
                                            tensor_diff)  # fmt: skip
            _compare_outputs(traced, traced_outputs, check_outputs, "repeated trace", tolerance)
        if graph_diff is not None or tensor_diff is not None:
            raise TracingCheckError(graph_diff, tensor_diff)


def _tensor_outputs(run: Callable[[], Any], what: str, graph_diff: str | None, tensor_diff: str | None) -> list[np.ndarray]:
    try:
        result = run()
    except Exception as error:
        message = f"encountered an exception while running the {what} with test inputs.\nException:\n{_indent(str(error))}"
        raise TracingCheckError(graph_diff, tensor_diff, message) from error
    outputs = result if isinstance(result, tuple) else (result,)
    return [o.array if isinstance(o, Tensor) else o for o in outputs if isinstance(o, (Tensor, np.ndarray))]


def _compare_outputs(traced: ScriptFunction, original: Sequence[np.ndarray], reference: Sequence[np.ndarray],
                     match_what: str, tolerance: float) -> bool:  # fmt: skip
    all_ok = True
    warned_nondeterministic = False
    for i, (a, b) in enumerate(zip(original, reference)):
        problem = _mismatch(a, b, tolerance)
        if problem is None:
            continue
        if not warned_nondeterministic:
            warned_nondeterministic = True
            _warn_nondeterministic(traced)
        warnings.warn(
            f"Output nr {i + 1}. of the traced function does not match the corresponding output of the {match_what}. "
            f"Detailed error:\n{problem}",
            TracerWarning,
            stacklevel=4,
        )
        all_ok = False
    return all_ok


def _mismatch(a: np.ndarray, b: np.ndarray, rtol: float) -> str | None:
    if a.shape != b.shape:
        return f"The values for attribute 'shape' do not match: {a.shape} != {b.shape}."
    if a.size == 0:
        return None
    x, y = a.astype(np.float64), b.astype(np.float64)
    atol = 1e-5 if a.dtype.kind == "f" else 0.0
    close = np.isclose(x, y, rtol=rtol, atol=atol, equal_nan=True)
    if close.all():
        return None
    bad = int((~close).sum())
    worst = float(np.nanmax(np.abs(x - y)))
    return (
        f"Tensor-likes are not close!\n\nMismatched elements: {bad} / {a.size} ({100.0 * bad / a.size:.1f}%)\n"
        f"Greatest absolute difference: {worst}"
    )


def _warn_nondeterministic(traced: ScriptFunction) -> None:
    from tsjit.dialects.aten import schema_of
    from tsjit.dialects.schema.effects import is_nondeterministic

    nodes = []
    for op in traced.module.walk():
        schema = schema_of(op) if hasattr(op, "OPERATOR") else None
        if schema is not None and is_nondeterministic(schema):
            nodes.append(str(op))
    if nodes:
        warnings.warn(
            "Trace had nondeterministic nodes. Did you forget call .eval() on your model? Nodes:\n"
            + "\n".join(_indent(n) for n in nodes[:20])
            + "\nThis may cause errors in trace checking. To disable trace checking, pass check_trace=False to "
            "torch.jit.trace()",
            TracerWarning,
            stacklevel=5,
        )


def _graph_differences(first: ModuleOp, second: ModuleOp) -> tuple[str | None, str | None]:
    a, a_tensors = canonical_text(first)
    b, b_tensors = canonical_text(second)
    graph_diff = None
    if a != b:
        diff = difflib.ndiff(a.splitlines(True), b.splitlines(True))
        graph_diff = "Graph diff:\n" + _indent("".join(diff)) + "\n"
    tensor_diff = None
    if graph_diff is None:
        for (where, x), (_, y) in zip(a_tensors, b_tensors):
            if x.shape != y.shape or not np.allclose(x, y, equal_nan=True):
                tensor_diff = f"Node:\n{_indent(where)}\nComparison exception: tensor constants differ"
                break
    return graph_diff, tensor_diff


def canonical_text(module: ModuleOp) -> tuple[str, list[tuple[str, np.ndarray]]]:
    """The graphs as text with tensor types erased, locations and value names dropped,
    and tensor constants set apart: what two traces of the same code share."""
    lines: list[str] = []
    tensors: list[tuple[str, np.ndarray]] = []
    names: dict[SSAValue, str] = {}

    def name(value: SSAValue) -> str:
        if value not in names:
            names[value] = f"%{len(names)}"
        return names[value]

    for function in module.ops:
        if not isinstance(function, func.FuncOp):
            continue
        symbol = re.sub(r"___torch_mangle_[0-9]+\.", "", function.sym_name.data)
        lines.append(f"func {symbol}({', '.join(name(a) for a in function.body.block.args)})")
        for op in function.walk():
            if op is function:
                continue
            text = f"  {', '.join(name(r) for r in op.results)} = {op.name}({', '.join(name(o) for o in op.operands)})"
            if isinstance(op, prim.ConstantOp):
                value = op.python_value
                if isinstance(value, np.ndarray):
                    tensors.append((str(op), value))
                    value = "<tensor>"
                text += f" [{value!r}]"
            else:
                properties = {k: v for k, v in op.properties.items()}
                if properties:
                    text += f" {properties}"
            lines.append(text)
    return "\n".join(lines) + "\n", tensors


def _indent(text: str) -> str:
    return "\n".join("\t" + line for line in text.splitlines())


# --------------------------------------------------------------------------------------
# PyTorch present
# --------------------------------------------------------------------------------------


def _is_torch_target(fn_or_module: Any, example_inputs: Any) -> bool:
    """Whether PyTorch itself should trace: a real `torch.nn.Module`, a function that
    names the real `torch`, or one naming neither torch given torch tensors."""
    torch = sys.modules.get("torch")
    if torch is None or getattr(torch, "__version__", "").endswith("tsjit-shim"):
        return False
    from tsjit.frontend import torch_shim

    if isinstance(fn_or_module, (torch_shim.nn.Module, ScriptFunction)):
        return False
    if isinstance(fn_or_module, torch.nn.Module):
        return True
    function = getattr(fn_or_module, "__func__", fn_or_module)
    names = getattr(getattr(function, "__code__", None), "co_names", ())
    namespace = getattr(function, "__globals__", {})
    cells = [c.cell_contents for c in getattr(function, "__closure__", None) or () if _filled(c)]
    referenced = [namespace.get(n) for n in names] + cells
    if any(v is torch for v in referenced):
        return True
    if any(v is torch_shim for v in referenced):
        return False
    return any(isinstance(v, torch.Tensor) for v in _leaves(example_inputs))


def _filled(cell: Any) -> bool:
    try:
        cell.cell_contents  # noqa: B018 - an empty cell raises
    except ValueError:
        return False
    return True

