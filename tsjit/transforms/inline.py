"""inline: calls of graphs whose bodies the module holds are replaced by those bodies
(PyTorch's `Inline`), so that later passes see one graph.

    %r = func.call @helper(%x) : (!ts.tensor) -> !ts.tensor     →   %y = aten.relu %x ...
    %r = prim.CallMethod[name = "forward"] %sub, %x ...          →   (body of `<class>.forward`)

A `func.call` is inlined when its callee is a `func.func` with a body (the text
importer declares callees it has no body for: those calls stay); a `prim.CallMethod`
when its receiver's class type names a method function `<class>.<method>` of the module,
the convention the interpreter resolves methods by. Calls a forked subgraph makes stay
calls, as in PyTorch, unless asked (`inline{forks=true}`). Inlined ops are located at
`callsite(<their own location> at <the call's>)`, as MLIR's inliner does, so errors
still point at the callee's source and a run-time error's traceback shows the call
(PyTorch's inlined call stack). Calls into a recursive cycle
stay calls: TorchScript has no recursion, and inlining one would not terminate.

xDSL ships no inliner for `func` (its `inline-snrt` is specific to snitch), hence ours.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import CallSiteLoc, FileLineColLoc, ModuleOp
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from tsjit.diagnostics import SourceLocation, TsjitError
from tsjit.dialects.prim import CallMethodOp, ForkOp, plural
from tsjit.dialects.traversal import nested_ops_of
from tsjit.dialects.types import ClassType
from tsjit.transforms.pass_logging import TsjitPass


@dataclass
class InlineFunctionCall(RewritePattern):
    """`func.call @f(...)` of a function with a body: the body in place of the call."""

    callees: Mapping[str, func.FuncOp]
    forks: bool = False  # also calls a forked subgraph makes

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: func.CallOp, rewriter: PatternRewriter, /) -> None:
        callee = self.callees.get(op.callee.string_value())
        if callee is not None and (self.forks or not in_fork(op)):
            check_call(op, callee, len(op.arguments), len(op.results))
            rewriter.replace(op, [], inline_body(callee.body.block, op.arguments, rewriter, op.location))


@dataclass
class InlineMethodCall(RewritePattern):
    """`prim.CallMethod[name = m] %obj, ...` where the module defines `<class>.m`: that
    function's body, with `%obj` as its first argument."""

    callees: Mapping[str, func.FuncOp]
    forks: bool = False

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: CallMethodOp, rewriter: PatternRewriter, /) -> None:
        receiver = op.obj.type
        if not isinstance(receiver, ClassType) or not self.forks and in_fork(op):
            return
        callee = self.callees.get(f"{receiver.qualname.data}.{op.method_name.data}")
        if callee is not None:
            check_call(op, callee, len(op.operands), len(op.results))
            rewriter.replace(op, [], inline_body(callee.body.block, op.operands, rewriter, op.location))


def check_call(op: Operation, callee: func.FuncOp, arguments: int, results: int) -> None:
    """A call must pass what its callee takes and expect what it returns: a located error
    otherwise (graph text may name a function whose body takes other parameters)."""
    inputs, outputs = callee.function_type.inputs.data, callee.function_type.outputs.data
    name = callee.sym_name.data
    if arguments != len(inputs):
        raise TsjitError(
            f"call of '{name}' passes {plural(arguments, 'argument')} but it takes {len(inputs)}",
            SourceLocation.of_op(op),
        )
    if results != len(outputs):
        raise TsjitError(
            f"call of '{name}' expects {plural(results, 'result')} but it returns {len(outputs)}",
            SourceLocation.of_op(op),
        )


def in_fork(op: Operation) -> bool:
    """Whether `op` is in a forked subgraph (which PyTorch's inliner leaves alone)."""
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, func.FuncOp):
        if isinstance(parent, ForkOp):
            return True
        parent = parent.parent_op()
    return False


def inline_body(
    body: Block, arguments: Sequence[SSAValue], rewriter: PatternRewriter, call_location: Attribute | None = None
) -> list[SSAValue]:
    """Clones `body` before the matched op with its arguments bound to `arguments`;
    returns the values its terminator returns. With the call's location, every cloned
    op is located at its call site."""
    mapping: dict[SSAValue, SSAValue] = dict(zip(body.args, arguments, strict=True))
    terminator = body.last_op
    assert terminator is not None
    clones = [op.clone(mapping) for op in body.ops if op is not terminator]
    if isinstance(call_location, FileLineColLoc | CallSiteLoc):
        for clone in clones:
            for inner in clone.walk():
                inner.location = CallSiteLoc(inner.location, call_location)
    rewriter.insert(clones)
    return [mapping.get(v, v) for v in terminator.operands]


def inlinable_functions(module: ModuleOp) -> dict[str, func.FuncOp]:
    """Functions with bodies that take part in no call cycle, by name; none when the
    module makes no call it could inline."""
    functions = {op.sym_name.data: op for op in module.ops if isinstance(op, func.FuncOp) and not op.is_declaration}
    calls: dict[str, set[str]] = {name: set() for name in functions}
    elsewhere: set[str] = set()
    """Calls made outside those functions (in nested modules)."""
    for top in module.ops:
        called = calls[top.sym_name.data] if isinstance(top, func.FuncOp) and top.sym_name.data in calls else elsewhere
        for op in nested_ops_of(top, (func.CallOp, CallMethodOp)):
            if isinstance(op, func.CallOp):
                called.add(op.callee.string_value())
            elif isinstance(op, CallMethodOp) and isinstance(op.obj.type, ClassType):
                called.add(f"{op.obj.type.qualname.data}.{op.method_name.data}")
    if not any(callee in functions for called in (*calls.values(), elsewhere) for callee in called):
        return {}
    recursive = _in_cycles(calls)
    return {name: f for name, f in functions.items() if name not in recursive}


def _in_cycles(calls: Mapping[str, set[str]]) -> set[str]:
    """The functions that can reach themselves (Tarjan's strongly connected components,
    iterative so deep call chains do not hit Python's recursion limit)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cyclic: set[str] = set()
    for root in calls:
        if root in index:
            continue
        work = [(root, iter(sorted(calls[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, successors = work[-1]
            advanced = False
            for successor in successors:
                if successor not in calls:
                    continue
                if successor not in index:
                    index[successor] = low[successor] = len(index)
                    stack.append(successor)
                    on_stack.add(successor)
                    work.append((successor, iter(sorted(calls[successor]))))
                    advanced = True
                    break
                if successor in on_stack:
                    low[node] = min(low[node], index[successor])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1 or node in calls[node]:
                    cyclic.update(component)
    return cyclic


@dataclass(frozen=True)
class InlinePass(TsjitPass):
    """Inlines every call of a non-recursive function or method the module defines;
    in forked subgraphs only with `forks` (PyTorch leaves them calls; a native backend
    inlines them to fuse the forked work)."""

    name = "inline"

    forks: bool = False
    """Also inline the calls of forked subgraphs."""

    def run(self, ctx: Context, op: ModuleOp) -> None:
        callees = inlinable_functions(op)
        if callees:
            self.rewrite(op, [InlineFunctionCall(callees, self.forks), InlineMethodCall(callees, self.forks)])
