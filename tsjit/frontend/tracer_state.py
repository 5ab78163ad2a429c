"""The tracing state: eager operators recorded into graphs while the user's code runs.

As in PyTorch's tracer (JIT overview, "Tracer"), every tensor the traced code computes
is mapped to the graph value that produced it; an operator call looks up its inputs'
values (Python numbers, strings, dtypes and lists become constants and list
constructions; a tensor the trace has not seen becomes a constant, or a `prim.GetAttr`
chain when it is a parameter or buffer of the traced module), runs its kernel, and adds
one node whose results become the values of the tensors it returned. In-place operators
rebind their tensor to the node's result; sizes read from a tensor are recorded
(`aten::size`, `prim::NumToTensor`) and are 0-dim tensors in Python, as in PyTorch.

A module call inside a traced module is recorded as `prim.CallMethod` on the submodule
(`forward`, then `forward1`, ... for each further call, as PyTorch names them) while
its body is recorded into that method's own graph (a `Frame`). Each traced module
instance gets its own class type (`___torch_mangle_N` for the second of a class).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import FileLineColLoc, IntAttr, StringAttr
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from tsjit.diagnostics import SourceLocation, TsjitError
from tsjit.dialects import prim
from tsjit.dialects.aten import create_op
from tsjit.dialects.types import (
    DTYPE_BY_TORCH_NAME,
    BoolType,
    DeviceType,
    DictType,
    FloatType,
    IntType,
    ListType,
    NoneType,
    NumberType,
    OptionalType,
    StrType,
    TensorType,
    TupleType,
    unify,
)
from tsjit.dialects.value_names import name_hint
from tsjit.frontend.torch_shim._dispatch import (
    ArgRef,
    CallRef,
    ConstRef,
    Entry,
    ItemRef,
    ListRef,
    MissingKernel,
    Ref,
    TupleRef,
    eager_error,
    user_frame,
)
from tsjit.frontend.torch_shim._tensor import EnumValue, Tensor, device, dtype, wrap
from tsjit.runtime.errors import TorchScriptError

IMPLICIT_AS_RECORDED = {"aten::IntImplicit": "aten::Int", "aten::FloatImplicit": "aten::Float"}
"""Conversions of 0-dim tensors to numbers, under the names PyTorch's tracer records."""


class TracerWarning(Warning):
    """PyTorch's `torch.jit.TracerWarning`: the trace may not generalize to other inputs."""


class TraceError(TsjitError):
    """Code that cannot be traced, located at the user's line."""


def location_of_caller(library: bool = True) -> SourceLocation | None:
    """Where the operator being recorded was called (see `user_frame`)."""
    frame = user_frame(2, library)
    if frame is None:
        return None
    return SourceLocation(frame.f_code.co_filename, frame.f_lineno)


def source_line(location: SourceLocation | None) -> str | None:
    if location is None:
        return None
    import linecache

    line = linecache.getline(location.file, location.line)
    return line.rstrip("\n") or None


def trace_error(message: str, location: SourceLocation | None) -> TraceError:
    return TraceError(message, location, source_line(location))


# --------------------------------------------------------------------------------------
# Graph values of Python objects
# --------------------------------------------------------------------------------------


def tensor_type(array: np.ndarray) -> TensorType:
    """The complete type PyTorch's tracer gives a tensor: dtype, sizes, strides."""
    element = DTYPE_BY_TORCH_NAME[array.dtype.name].element if array.dtype.name in DTYPE_BY_TORCH_NAME else None
    itemsize = array.itemsize or 1
    strides = [s // itemsize for s in array.strides]
    return TensorType(element, array.shape, device="cpu", requires_grad=False, strides=strides)


def is_tensor_like(value: object) -> bool:
    return isinstance(value, (Tensor, np.ndarray))


def array_of(value: object) -> np.ndarray:
    return value.array if isinstance(value, Tensor) else value  # pyright: ignore[reportReturnType]


@dataclass
class Frame:
    """One graph being recorded: the entry function or a submodule's method."""

    symbol: str
    block: Block
    module: object | None = None  # the module whose method this is
    self_value: SSAValue | None = None
    values: dict[int, tuple[object, SSAValue]] = field(default_factory=dict)
    submodules: dict[int, SSAValue] = field(default_factory=dict)

    def bind(self, obj: object, value: SSAValue) -> None:
        self.values[id(obj)] = (obj, value)

    def lookup(self, obj: object) -> SSAValue | None:
        found = self.values.get(id(obj))
        return None if found is None else found[1]


@dataclass
class ModuleRecord:
    """A module of the traced tree: its class, its parent and name there, its calls."""

    info: Any  # frontend.modules.ModuleInfo
    parent: object | None
    name: str
    calls: int = 0


class TracingState:
    """Records eager operators into frames; `ACTIVE.tracer` while a trace runs."""

    def __init__(self, unit: Any, root: object | None = None):
        self.unit = unit
        self.frames: list[Frame] = []
        self.modules: dict[int, ModuleRecord] = {}
        self.owners: dict[int, tuple[object, str]] = {}  # parameter or buffer -> (module, name)
        self.functions: list[func.FuncOp] = []
        self._mangle = 0
        self._bases: set[str] = set()
        self._scripted: dict[int, str] = {}
        if root is not None:
            self._register_tree(root, None, "")

    # -- the module tree ---------------------------------------------------------------
    def _register_tree(self, module: object, parent: object | None, name: str) -> Any:
        from tsjit.frontend.modules import ModuleInfo, library_class, python_class_name

        from tsjit.frontend.script import ScriptModule

        if isinstance(module, ScriptModule):  # scripted (or traced) already: its class is linked in
            from tsjit.frontend.linking import link_module

            linked = link_module(self.unit, module)
            self.modules[id(module)] = ModuleRecord(linked, parent, name)
            return linked
        cls = library_class(type(module))
        base = "__torch__." + python_class_name(cls)
        qualname = base
        taken = self.unit.registry.by_qualname
        if base in self._bases or base in taken:
            package, _, leaf = base.rpartition(".")
            while qualname in taken or qualname == base:
                qualname = f"{package}.___torch_mangle_{self._mangle}.{leaf}"
                self._mangle += 1
        self._bases.add(base)
        info = ModuleInfo(self.unit, module, cls, qualname)
        record = ModuleRecord(info, parent, name)
        self.modules[id(module)] = record
        for child_name, child in module._modules.items():  # pyright: ignore[reportAttributeAccessIssue]
            if child is None:
                info.attributes[child_name] = NoneType()
                continue
            child_info = self._register_tree(child, module, child_name)
            info.submodules[child_name] = child_info
            info.children.append(child_name)
        info.attributes["training"] = BoolType()
        for table in ("_parameters", "_buffers"):
            for attr, value in getattr(module, table).items():
                info.attributes[attr] = NoneType() if value is None else TensorType()
                (info.parameters if table == "_parameters" else info.buffers).append(attr)
                if value is not None:
                    self.owners.setdefault(id(value), (module, attr))
        self.unit.registry.by_instance[id(module)] = info
        self.unit.registry.by_qualname[qualname] = info
        return info

    def info_of(self, module: object) -> Any:
        return self.modules[id(module)].info

    # -- frames ---------------------------------------------------------------------------
    @property
    def frame(self) -> Frame:
        return self.frames[-1]

    def insert(self, op: Operation, location: SourceLocation | None = None) -> Operation:
        if location is not None:
            op.location = FileLineColLoc(StringAttr(location.file), IntAttr(location.line), IntAttr(0))
        self.frame.block.add_op(op)
        return op

    def constant(self, value: object, type: Attribute | None = None) -> SSAValue:
        return self.insert(prim.ConstantOp.from_value(value, type)).results[0]

    def start_frame(self, symbol: str, module: object | None, input_types: Sequence[Attribute]) -> Frame:
        types = list(input_types)
        if module is not None:
            types = [self.info_of(module).class_type, *types]
        block = Block(arg_types=types)
        frame = Frame(symbol, block, module)
        if module is not None:
            frame.self_value = block.args[0]
            block.args[0].name_hint = "self"
        self.frames.append(frame)
        return frame

    def finish_frame(self, outputs: Sequence[SSAValue]) -> func.FuncOp:
        frame = self.frames.pop()
        frame.block.add_op(func.ReturnOp(*outputs))
        function = func.FuncOp(
            frame.symbol,
            func.FunctionType.from_lists([a.type for a in frame.block.args], [o.type for o in outputs]),
            Region(frame.block),
        )
        self.functions.append(function)
        return function

    def bind_inputs(self, values: Sequence[SSAValue], objects: Sequence[object]) -> None:
        """Maps the objects passed to a frame to its block arguments, unpacking lists,
        tuples and dicts of tensors at the start as PyTorch's tracer does."""
        for value, obj in zip(values, objects):
            self.bind_structure(obj, value)

    def bind_structure(self, obj: object, value: SSAValue) -> None:
        if is_tensor_like(obj):
            self.frame.bind(obj, value)
        elif isinstance(obj, tuple):
            unpacked = self.insert(prim.TupleUnpackOp(value)).results
            for element, element_value in zip(obj, unpacked):
                self.bind_structure(element, element_value)
        elif isinstance(obj, list) and obj:
            types = [self.structure_type(e) for e in obj]
            unpacked = self.insert(prim.ListUnpackOp(value, types)).results
            for element, element_value in zip(obj, unpacked):
                self.bind_structure(element, element_value)
        elif isinstance(obj, dict):
            for key, element in obj.items():
                key_value = self.constant(key, StrType())
                element_type = self.structure_type(element)
                got = self.insert(create_op("aten.__getitem__", [value, key_value], [element_type])).results[0]
                self.bind_structure(element, got)

    def structure_type(self, obj: object) -> Attribute:
        """The graph type of a traced input or output (tensors with complete types)."""
        if is_tensor_like(obj):
            return tensor_type(array_of(obj))
        if isinstance(obj, tuple):
            return TupleType([self.structure_type(e) for e in obj])  # pyright: ignore[reportArgumentType]
        if isinstance(obj, list):
            return ListType(TensorType())
        if isinstance(obj, dict):
            return DictType(StrType(), TensorType())
        return _python_type(obj)

    # -- values of Python objects --------------------------------------------------------
    def value_of(self, obj: object, target: Attribute | None = None) -> SSAValue:
        """The graph value of an argument: its traced value, a parameter read, or a constant."""
        if is_tensor_like(obj):
            value = self.tensor_value(obj)
            if isinstance(target, (IntType, FloatType, NumberType)):
                operator = "aten.Float" if isinstance(target, FloatType) else "aten.Int"
                result_type = FloatType() if isinstance(target, FloatType) else IntType()
                return self.insert(create_op(operator, [value], [result_type])).results[0]
            return value
        if isinstance(obj, (list, tuple)):
            if isinstance(target, TupleType) or (target is None and isinstance(obj, tuple)):
                targets = list(target.types.data) if isinstance(target, TupleType) else [None] * len(obj)
                elements = [self.value_of(e, t) for e, t in zip(obj, targets)]
                return self.insert(prim.TupleConstructOp(elements)).results[0]
            element = target.element_type if isinstance(target, ListType) else None
            elements = [self.value_of(e, element) for e in obj]
            list_type = target if isinstance(target, ListType) else ListType(_join([e.type for e in elements]))
            return self.insert(prim.ListConstructOp(elements, list_type)).results[0]  # pyright: ignore[reportArgumentType]
        if isinstance(obj, (dtype, EnumValue)):
            return self.constant(obj.code, IntType())
        if isinstance(obj, device):
            return self.constant(str(obj), DeviceType())
        if isinstance(obj, (np.generic,)):
            obj = obj.item()
        t = target if target is not None and _constant_fits(obj, target) else None
        return self.constant(obj, t)

    def tensor_value(self, obj: object) -> SSAValue:
        frame = self.frame
        found = frame.lookup(obj)
        if found is not None:
            return found
        value = self.attribute_value(obj)
        if value is None:  # a tensor from outside the trace: a constant, as in PyTorch
            value = self.insert(prim.ConstantOp.from_value(np.array(array_of(obj)))).results[0]
        frame.bind(obj, value)
        return value

    def attribute_value(self, obj: object) -> SSAValue | None:
        """`self.<...>.weight` when `obj` is a parameter or buffer the frame's module reaches."""
        owner = self.owners.get(id(obj))
        frame = self.frame
        if owner is None or frame.module is None:
            return None
        module, name = owner
        receiver = self.module_value(module)
        if receiver is None:
            return None
        op = self.insert(prim.GetAttrOp(receiver, name, TensorType()))
        op.results[0].name_hint = _hint(name)
        return op.results[0]

    def module_value(self, module: object) -> SSAValue | None:
        """The value of `module` in the current frame (GetAttr from `self`), or None when
        the frame's module does not contain it."""
        frame = self.frame
        if frame.module is None:
            return None
        if module is frame.module:
            return frame.self_value
        known = frame.submodules.get(id(module))
        if known is not None:
            return known
        path: list[ModuleRecord] = []
        current: object | None = module
        while current is not frame.module:
            record = self.modules.get(id(current))
            if record is None or record.parent is None:
                return None
            path.append(record)
            current = record.parent
        value = frame.self_value
        assert value is not None
        for record in reversed(path):  # each module read gets its own chain, as in PyTorch's traces
            op = self.insert(prim.GetAttrOp(value, record.name, record.info.class_type))
            op.results[0].name_hint = _hint(record.name)
            value = op.results[0]
        frame.submodules[id(module)] = value
        return value

    # -- operators ------------------------------------------------------------------------
    def record(self, entry: Entry, args: Sequence[object], kwargs: dict[str, object], python_name: str) -> Any:
        """Runs one planned call and adds its node to the current frame."""
        flat = [*args, *kwargs.values()]
        location = location_of_caller()
        operands = [self.emit(ref, flat) for ref in entry.inputs]
        try:
            result = entry.run(*flat)
        except MissingKernel as error:
            where = location_of_caller(library=False)
            raise trace_error(f"{python_name}: no kernel for {error.schema} in tsjit's runtime", where) from None
        except TorchScriptError as error:
            raise eager_error(error) from None
        results = result if len(entry.returns) > 1 else (result,)
        types = [self.result_type(r, t) for r, t in zip(results, entry.returns)]
        op = self.insert(create_op(entry.operator.replace("::", ".", 1), operands, types), location)
        for obj, value, t in zip(results, op.results, entry.returns):
            self.bind_result(obj, value)
        if entry.operator in _SIZE_OPERATORS and isinstance(result, int) and not isinstance(result, bool):
            return self.number_tensor(result, op.results[0])
        return result

    def bind_result(self, obj: object, value: SSAValue) -> None:
        if is_tensor_like(obj):
            self.frame.bind(obj, value)
        elif isinstance(obj, list) and obj and all(is_tensor_like(e) for e in obj):
            unpacked = self.insert(prim.ListUnpackOp(value, [tensor_type(array_of(e)) for e in obj])).results
            for element, element_value in zip(obj, unpacked):
                self.frame.bind(element, element_value)

    def result_type(self, obj: object, declared: Attribute) -> Attribute:
        if is_tensor_like(obj) and isinstance(declared, (TensorType, OptionalType)):
            return tensor_type(array_of(obj))
        return declared

    def emit(self, ref: Ref, flat: Sequence[object]) -> SSAValue:
        if isinstance(ref, ArgRef):
            obj = flat[ref.root]
            for index in ref.path:
                obj = obj[index]  # pyright: ignore[reportIndexIssue]
            return self.value_of(obj, ref.type)
        if isinstance(ref, ConstRef):
            if isinstance(ref.type, ListType) and isinstance(ref.value, (list, tuple)) and all(
                type(v) in (int, float) for v in ref.value
            ):  # number lists, defaults included, are recorded element by element, as PyTorch's tracer does
                elements = [self.constant(v, ref.type.element_type) for v in ref.value]
                return self.insert(prim.ListConstructOp(elements, ref.type)).results[0]
            return self.constant(ref.value, ref.type)
        if isinstance(ref, CallRef):
            operands = [self.emit(o, flat) for o in ref.operands]
            if all(isinstance(o.owner, prim.ConstantOp) for o in operands):  # a Python number converted
                value = ref.kernel(*(o.owner.python_value for o in operands))  # pyright: ignore[reportAttributeAccessIssue]
                return self.constant(value, ref.type)
            name = IMPLICIT_AS_RECORDED.get(ref.operator, ref.operator)
            return self.insert(create_op(name.replace("::", ".", 1), operands, [ref.type])).results[0]
        if isinstance(ref, ListRef):
            elements = [self.emit(e, flat) for e in ref.elements]
            return self.insert(prim.ListConstructOp(elements, ref.type)).results[0]  # pyright: ignore[reportArgumentType]
        if isinstance(ref, TupleRef):
            elements = [self.emit(e, flat) for e in ref.elements]
            return self.insert(prim.TupleConstructOp(elements)).results[0]
        assert isinstance(ref, ItemRef)
        whole = self.emit(ref.of, flat)
        return self.insert(prim.TupleUnpackOp(whole)).results[ref.index]

    # -- sizes -----------------------------------------------------------------------------
    def size_of(self, tensor: Tensor, dim: int | None) -> Any:
        from tsjit.frontend.torch_shim._tensor import Size

        size = _size_operator()
        if dim is None:
            return Size(size(tensor, d) for d in range(tensor.array.ndim))
        return size(tensor, dim)

    def numel_of(self, tensor: Tensor) -> Any:
        return _numel_operator()(tensor)

    def number_tensor(self, number: int, value: SSAValue) -> Tensor:
        """An int the trace computed, as PyTorch gives it to Python: a 0-dim tensor
        recorded by `prim::NumToTensor`."""
        result = wrap(np.array(number, dtype=np.int64))
        op = self.insert(create_op("prim.NumToTensor", [value], [TensorType(DTYPE_BY_TORCH_NAME["int64"].element, [],
                                                                            device="cpu")]))  # fmt: skip
        self.frame.bind(result, op.results[0])
        return result

    # -- warnings --------------------------------------------------------------------------
    def warn(self, message: str) -> None:
        frame = user_frame(2)
        if frame is None:
            warnings.warn(message, TracerWarning, stacklevel=3)
            return
        warnings.warn_explicit(
            message, TracerWarning, frame.f_code.co_filename, frame.f_lineno,
            module=frame.f_globals.get("__name__"), module_globals=frame.f_globals,
        )  # fmt: skip

    # -- calls of modules and scripted functions --------------------------------------------
    def call_module(self, module: Any, args: tuple[object, ...], kwargs: dict[str, object]) -> Any:
        """A submodule call: `prim.CallMethod` here, its body in the method's own graph;
        modules outside the traced tree run inline."""
        record = self.modules.get(id(module))
        if record is None or self.module_value(module) is None or module is self.frame.module:
            return module.forward(*args, **kwargs)
        method = "forward" if record.calls == 0 else f"forward{record.calls}"
        record.calls += 1
        passed = [a for a in (*args, *kwargs.values()) if _has_tensors(a)]
        callee = self.start_frame(f"{record.info.qualname}.{method}", module, [self.structure_type(a) for a in passed])
        for arg, name in zip(callee.block.args[1:], _argument_names(module.forward, len(passed))):
            arg.name_hint = _hint(name)
        self.bind_inputs(callee.block.args[1:], passed)
        try:
            result = module.forward(*args, **kwargs)
            flat = _flat_tensor_tuple(result)  # nested tuples of tensors return flat, as in PyTorch's traces
            if flat is not None:
                output = self.insert(prim.TupleConstructOp([self.tensor_value(t) for t in flat])).results[0]
            else:
                output = self.output_value(result, strict=False)
        except BaseException:
            self.frames.pop()
            raise
        self.finish_frame([output])
        receiver = self.module_value(module)
        assert receiver is not None
        operands = [self.value_of(a) for a in passed]
        call = self.insert(prim.CallMethodOp(receiver, method, operands, [output.type]), location_of_caller())
        if flat is not None:
            for tensor, value in zip(flat, self.insert(prim.TupleUnpackOp(call.results[0])).results):
                self.frame.bind(tensor, value)
        else:
            self.bind_structure(result, call.results[0])
        return result

    def call_compiled_module(self, module: Any, args: tuple[object, ...]) -> Any:
        """A scripted (or traced) submodule called from traced code: `prim.CallMethod` of
        its compiled `forward`, run eagerly for the values."""
        receiver = self.module_value(module) if id(module) in self.modules else None
        if receiver is None:
            raise trace_error(
                f"a compiled module ({module!r}) is called from traced code outside the traced module: trace a "
                "module that holds it as a submodule",
                location_of_caller(library=False),
            )
        operands = [self.value_of(a) for a in args]
        result = wrap_arrays(module.executor()(*module.executor_arguments(args)))
        outputs = list(module.graph.function_type.outputs.data)
        call = self.insert(prim.CallMethodOp(receiver, "forward", operands, outputs), location_of_caller())
        self.bind_structure(result, call.results[0])
        return result

    def call_script(self, function: Any, args: tuple[object, ...]) -> Any:
        """A `tsjit.script` function called from traced code: a `func.call` of its graph
        (copied into the trace's module), run eagerly for the values."""
        symbol = self._import_scripted(function)
        result = function.executor()(*function.executor_arguments(args))
        wrapped = wrap_arrays(result)
        operands = [self.value_of(a) for a in args]
        callee = function.graph
        result_types = list(callee.function_type.outputs.data)
        call = self.insert(func.CallOp(symbol, operands, result_types), location_of_caller())
        if len(call.results) == 1:
            self.bind_structure(wrapped, call.results[0])
        return wrapped

    def _import_scripted(self, function: Any) -> str:
        known = self._scripted.get(id(function))
        if known is not None:
            return known
        taken = {f.sym_name.data for f in self.functions} | set(self._scripted.values())
        renames: dict[str, str] = {}
        for op in function.module.ops:
            if isinstance(op, func.FuncOp):
                name = op.sym_name.data
                new = name if name not in taken and name != "forward" else f"{name}.scripted{len(self._scripted)}"
                renames[name] = new
        for op in function.module.ops:
            if isinstance(op, func.FuncOp):
                copied = op.clone()
                copied.sym_name = StringAttr(renames[op.sym_name.data])
                _rename_calls(copied, renames)
                self.functions.append(copied)
        symbol = renames[function.name]
        self._scripted[id(function)] = symbol
        return symbol

    # -- outputs -------------------------------------------------------------------------
    def output_value(self, result: object, strict: bool, location: SourceLocation | None = None) -> SSAValue:
        """The graph value of what the traced code returned: tensors and (nested)
        tuples, lists and dicts of them, as PyTorch allows."""
        if is_tensor_like(result):
            return self.tensor_value(result)
        if isinstance(result, tuple):
            elements = [self.output_value(e, strict, location) for e in result]
            return self.insert(prim.TupleConstructOp(elements)).results[0]
        if isinstance(result, list):
            if strict:
                self.warn(_container_message("list"))
            elements = [self.output_value(e, strict, location) for e in result]
            element_type = _join([e.type for e in elements]) if elements else TensorType()
            return self.insert(prim.ListConstructOp(elements, ListType(_erased(element_type)))).results[0]
        if isinstance(result, dict):
            if strict:
                raise trace_error(_container_message("dict"), location)
            operands: list[SSAValue] = []
            for key, element in result.items():
                if not isinstance(key, str):
                    raise trace_error(f"dictionaries output by traced code need string keys, got {key!r}", location)
                operands += [self.constant(key, StrType()), self.output_value(element, strict, location)]
            value_type = _join([v.type for v in operands[1::2]]) if result else TensorType()
            dict_type = DictType(StrType(), _erased(value_type))
            return self.insert(prim.DictConstructOp(operands, dict_type)).results[0]
        raise trace_error(
            "Only tensors, lists, tuples of tensors, or dictionary of tensors can be output from traced functions "
            f"(this one returns {type(result).__name__})",
            location,
        )


_SIZE_OPERATORS = frozenset({"aten::size", "aten::numel"})
"""Operators whose int result PyTorch's tracer hands to Python as a 0-dim tensor."""


def _size_operator() -> Callable[..., Any]:
    from tsjit.frontend.torch_shim._dispatch import function

    global _SIZE
    if _SIZE is None:
        _SIZE = function("aten::size", "Tensor.size", method=True)
    return _SIZE


def _numel_operator() -> Callable[..., Any]:
    from tsjit.frontend.torch_shim._dispatch import function

    global _NUMEL
    if _NUMEL is None:
        _NUMEL = function("aten::numel", "Tensor.numel", method=True)
    return _NUMEL


_SIZE: Callable[..., Any] | None = None
_NUMEL: Callable[..., Any] | None = None


def _container_message(kind: str) -> str:
    return (
        f"Encountering a {kind} at the output of the tracer might cause the trace to be incorrect, this is only "
        "valid if the container structure does not change based on the module's inputs. Consider using a "
        "constant container instead (e.g. for `list`, use a `tuple` instead. for `dict`, use a `NamedTuple` "
        "instead). If you absolutely need this and know the side effects, pass strict=False to trace() to allow "
        "this behavior."
    )


def _python_type(value: object) -> Attribute:
    from tsjit.frontend.modules import value_type

    found = value_type(value)
    return found if found is not None else NoneType()


def _constant_fits(value: object, target: Attribute) -> bool:
    if value is None:
        return isinstance(target, NoneType)
    if isinstance(value, bool):
        return isinstance(target, BoolType)
    if isinstance(value, int):
        return isinstance(target, IntType)
    if isinstance(value, float):
        return isinstance(target, FloatType)
    if isinstance(value, str):
        return isinstance(target, StrType)
    return False


def _join(types: Sequence[Attribute]) -> Attribute:
    result = types[0] if types else TensorType()
    for t in types[1:]:
        joined = unify(_erased(result), _erased(t))
        result = joined if joined is not None else result
    return _erased(result)


def _erased(t: Attribute) -> Attribute:
    return TensorType() if isinstance(t, TensorType) else t


def _has_tensors(value: object) -> bool:
    if is_tensor_like(value):
        return True
    if isinstance(value, (list, tuple)):
        return any(_has_tensors(v) for v in value)
    if isinstance(value, dict):
        return any(_has_tensors(v) for v in value.values())
    return False


def _argument_names(function: Callable[..., Any], count: int) -> list[str]:
    import inspect

    try:
        names = [p.name for p in inspect.signature(function).parameters.values()]
    except (TypeError, ValueError):
        names = []
    return (names + [f"argument_{i + 1}" for i in range(len(names), count)])[:count]


def _hint(name: str) -> str | None:
    return name_hint(name)


def wrap_arrays(value: Any) -> Any:
    """Run-time values as the shim's: arrays (alone or in containers) as Tensors."""
    if isinstance(value, np.ndarray):
        return wrap(value)
    if isinstance(value, tuple):
        return tuple(wrap_arrays(v) for v in value)
    if isinstance(value, list):
        return [wrap_arrays(v) for v in value]
    if isinstance(value, dict):
        return {k: wrap_arrays(v) for k, v in value.items()}
    return value


def _rename_calls(function: func.FuncOp, renames: dict[str, str]) -> None:
    from xdsl.dialects.builtin import SymbolRefAttr

    for op in function.walk():
        if isinstance(op, func.CallOp) and op.callee.root_reference.data in renames:
            op.callee = SymbolRefAttr(renames[op.callee.root_reference.data])


def _flat_tensor_tuple(obj: object) -> list[object] | None:
    """The tensors of a tuple nesting tuples of tensors and Nones (`(out, (h, c))`,
    `(out, None)`), in order; None for anything else (a flat tuple of tensors included).
    A submodule's such result returns flattened, its Nones staying Python values, as in
    PyTorch's traces."""
    if not isinstance(obj, tuple) or not any(isinstance(e, tuple) or e is None for e in obj):
        return None
    flat: list[object] = []

    def gather(value: object) -> bool:
        if is_tensor_like(value):
            flat.append(value)
            return True
        if value is None:
            return True
        return isinstance(value, tuple) and all(gather(e) for e in value)

    return flat if gather(obj) else None
