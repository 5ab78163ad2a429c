"""`tsjit.trace` with PyTorch installed: `torch.jit.trace` records, tsjit imports its graphs.

A real `torch.nn.Module` (or a function written against real `torch`) is traced by
PyTorch itself, so its own warnings, checks and errors apply unchanged; the traced
graphs (the function's, or every method of every traced submodule) are read node by
node into the syntax tree of PyTorch's graph text (`formats.torchscript_syntax`) with
tensor constants at full precision, and imported as for `ts-translate
--import-torchscript`. Submodule calls stay `prim.CallMethod` of the class types
PyTorch gave them; the module's state is the PyTorch module's own tensors.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from xdsl.dialects import func

from tsjit.diagnostics import TsjitError
from tsjit.dialects.types import DTYPE_BY_TORCH_NAME, BoolType, NoneType, TensorType, parse_torchscript_type
from tsjit.formats import torchscript_syntax as syntax


def trace_with_torch(fn_or_module: Any, example_inputs: Any, check_inputs: Sequence[Any] | None, strict: bool,
                     check_trace: bool, check_tolerance: float) -> Any:  # fmt: skip
    import torch

    from tsjit.context import make_context
    from tsjit.formats.torchscript_text import GraphImporter
    from tsjit.frontend.compilation import CompilationUnit, CompiledFunction
    from tsjit.frontend.schema_matching import Param, Signature
    from tsjit.frontend.tracer import TracedFunction, TracedModule

    inputs = _as_torch(example_inputs if isinstance(example_inputs, tuple) else (example_inputs,))
    checks = None if check_inputs is None else [_as_torch(c if isinstance(c, tuple) else (c,)) for c in check_inputs]
    traced = torch.jit.trace(
        fn_or_module, inputs, check_trace=check_trace, check_inputs=checks, strict=strict,
        check_tolerance=check_tolerance,
    )  # fmt: skip
    unit = CompilationUnit()
    ctx = make_context()
    is_module = isinstance(fn_or_module, torch.nn.Module)
    graphs: list[tuple[str, Any]] = []
    infos: dict[str, Any] = {}
    if is_module:
        originals = dict(fn_or_module.named_modules())
        for path, submodule in traced.named_modules():
            qualname = submodule._c._type().qualified_name()
            infos[path] = _module_info(unit, originals[path], qualname)
            for method in submodule._c._method_names():
                symbol = "forward" if path == "" and method == "forward" else f"{qualname}.{method}"
                graphs.append((symbol, submodule._c._get_method(method).graph))
        for path, info in infos.items():
            for name, child in originals[path].named_children():
                child_path = f"{path}.{name}" if path else name
                if child_path in infos:
                    info.submodules[name] = infos[child_path]
                    info.children.append(name)
        entry = "forward"
    else:
        graph = traced.graph.copy()
        torch._C._jit_pass_inline(graph)
        entry = getattr(fn_or_module, "__name__", "forward")
        entry = entry if entry.isidentifier() else "forward"
        graphs.append((entry, graph))
    source = syntax.Source("", "<torch.jit.trace>")
    for symbol, graph in graphs:
        imported = GraphImporter(ctx, source).module(graph_tree(graph), symbol)
        for op in list(imported.ops):
            if isinstance(op, func.FuncOp) and not op.is_declaration:
                op.detach()
                unit.module.body.block.add_op(op)
    function = next(op for op in unit.module.ops if isinstance(op, func.FuncOp) and op.sym_name.data == entry)
    args = function.body.block.args[1:] if is_module else function.body.block.args
    params = tuple(Param(a.name_hint or f"input_{i}", TensorType()) for i, a in enumerate(args))
    outputs = list(function.function_type.outputs.data)
    compiled = CompiledFunction(entry, function, Signature(entry, params, tuple(outputs)), outputs[0], True)
    if is_module:
        return TracedModule(unit, compiled, infos[""])
    return TracedFunction(unit, compiled)


def _as_torch(value: Any) -> Any:
    import torch

    from tsjit.frontend.torch_shim import Tensor

    if isinstance(value, Tensor):
        return torch.from_numpy(np.ascontiguousarray(value.array))
    if isinstance(value, np.ndarray):
        return torch.from_numpy(np.ascontiguousarray(value))
    if isinstance(value, tuple):
        return tuple(_as_torch(v) for v in value)
    if isinstance(value, list):
        return [_as_torch(v) for v in value]
    if isinstance(value, dict):
        return {k: _as_torch(v) for k, v in value.items()}
    return value


def _module_info(unit: Any, module: Any, qualname: str) -> Any:
    from tsjit.frontend.modules import ModuleInfo, library_class

    info = ModuleInfo(unit, module, library_class(type(module)), qualname)
    for name, child in module._modules.items():
        if child is None:
            info.attributes[name] = NoneType()
    info.attributes["training"] = BoolType()
    for table in ("_parameters", "_buffers"):
        for name, value in getattr(module, table).items():
            info.attributes[name] = NoneType() if value is None else TensorType()
            (info.parameters if table == "_parameters" else info.buffers).append(name)
    unit.registry.by_instance[id(module)] = info
    unit.registry.by_qualname[qualname] = info
    return info


# --------------------------------------------------------------------------------------
# torch._C.Graph -> the syntax tree of graph text
# --------------------------------------------------------------------------------------


def graph_tree(graph: Any) -> syntax.Graph:
    """A PyTorch graph as the tree `torchscript_syntax` reads from its text, with tensor
    constants at full precision (the printed text abbreviates them)."""
    body = syntax.Block(
        [_definition(v) for v in graph.inputs()],
        [_node(n) for n in graph.nodes()],
        [_use(v) for v in graph.return_node().inputs()],
        0,
    )
    return syntax.Graph(body, 0)


def _definition(value: Any) -> syntax.ValueDef:
    return syntax.ValueDef(value.debugName(), parse_torchscript_type(value.type().str()), 0)


def _use(value: Any) -> syntax.ValueUse:
    return syntax.ValueUse(value.debugName(), 0)


def _node(node: Any) -> syntax.Node:
    blocks = [
        syntax.Block([_definition(p) for p in b.inputs()], [_node(n) for n in b.nodes()],
                     [_use(v) for v in b.returnNode().inputs()], 0)  # fmt: skip
        for b in node.blocks()
    ]
    attributes = [syntax.Attribute(name, _attribute(node, name), 0) for name in node.attributeNames()]
    return syntax.Node(node.kind(), [_definition(o) for o in node.outputs()], [_use(i) for i in node.inputs()],
                       attributes, blocks, None, 0, 0)  # fmt: skip


def _attribute(node: Any, name: str) -> object:
    kind = node.kindOf(name)
    if kind == "t":
        return _tensor_literal(node.t(name))
    if kind in ("i", "f", "s", "is", "fs", "ss"):
        return getattr(node, kind)(name)
    if kind == "ival":
        return node.ival(name)
    if kind == "ty":
        return parse_torchscript_type(node.ty(name).str())
    raise TsjitError(f"cannot import the attribute '{name}' of kind '{kind}' of a {node.kind()} node")


def _tensor_literal(tensor: Any) -> syntax.TensorLiteral:
    array = tensor.detach().cpu().numpy()
    dtype = DTYPE_BY_TORCH_NAME[str(tensor.dtype).removeprefix("torch.")].name
    return syntax.TensorLiteral(array.flatten().tolist(), dtype, "cpu", tuple(array.shape))
