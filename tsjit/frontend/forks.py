"""`torch.jit.fork` in the script frontend: the forked call as a `prim.fork` subgraph.

`fork(fn, *args, **kwargs)` evaluates `fn` and the arguments where the fork is, then
emits the call inside the fork's region, which yields its value; the fork's result is a
`Future` of it (`torch.jit.wait` is `aten::wait`). Serialized code spells a fork with a
closure (`def __forked_function(): return f(x)`, then `fork(__forked_function)`): the
closure's statements and returned expression are emitted in the region the same way.

While the function is emitted, the region reads values of the enclosing function
freely (variables become values in SSA conversion); `lift_fork_captures` then makes the
values it captures the fork's inputs, so that the subgraph is closed, as PyTorch's
lambda lifting does.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from xdsl.dialects import func
from xdsl.ir import Block, Region, SSAValue
from xdsl.rewriter import InsertPoint

from tsjit.dialects import prim
from tsjit.dialects.types import FutureType
from tsjit.frontend.sugared_values import SimpleValue, SugaredValue

if TYPE_CHECKING:
    from tsjit.frontend.emitter import FunctionEmitter


class ClosureValue(SugaredValue):
    """A nested `def` without parameters that ends in `return` (and returns nowhere
    else): what serialized code forks. It can only be forked."""

    kind = "closure"

    def __init__(self, definition: ast.FunctionDef):
        self.definition = definition

    def call(self, em: FunctionEmitter, node: ast.AST, args: list, kwargs: list, n_binders: int) -> SugaredValue:  # noqa: ANN001
        raise em.error(node, f"closure '{self.definition.name}' can only be forked (torch.jit.fork), not called")

    def body(self, em: FunctionEmitter) -> tuple[list[ast.stmt], ast.expr]:
        """The statements before the final `return`, and the returned expression."""
        arguments = self.definition.args
        *statements, last = self.definition.body
        nested_returns = [
            n for s in statements for n in ast.walk(s) if isinstance(n, (ast.Return, ast.FunctionDef, ast.Lambda))
        ]
        if (
            not isinstance(last, ast.Return)
            or last.value is None
            or nested_returns
            or arguments.args
            or arguments.posonlyargs
            or arguments.kwonlyargs
            or arguments.vararg
            or arguments.kwarg
        ):
            raise em.error(self.definition, "a nested function must take no arguments and end in its only return "
                                            "(the closures TorchScript forks)")  # fmt: skip
        return statements, last.value


def emit_fork(em: FunctionEmitter, node: ast.Call) -> SugaredValue:
    """`fork(fn, *args, **kwargs)`: a `prim.fork` whose region calls `fn`."""
    if not node.args:
        raise em.error(node, "fork expected at least 1 argument, got 0")
    callee = em.emit_sugared(node.args[0], 1)
    if isinstance(callee, ClosureValue):
        if len(node.args) > 1 or node.keywords:
            raise em.error(node, "a forked closure takes no arguments")
        statements, returned = callee.body(em)

        def emit_closure() -> SSAValue:
            loops, em.loops = em.loops, []  # `break` cannot leave the closure
            try:
                em.emit_statements(statements)
                return em.emit_expr(returned)
            finally:
                em.loops = loops

        return _fork_region(em, node, emit_closure)
    call = ast.copy_location(ast.Call(node.args[0], node.args[1:], node.keywords), node)
    args, kwargs = em.emit_call_arguments(call)
    return _fork_region(em, node, lambda: callee.call(em, node, args, kwargs, 1).as_value(em, node))


def _fork_region(em: FunctionEmitter, node: ast.AST, emit_value) -> SugaredValue:  # noqa: ANN001
    body = Block()
    saved = em.point
    em.push_frame(body)
    em.point = InsertPoint.at_end(body)
    try:
        value: SSAValue = emit_value()
        em.insert(prim.YieldOp(value))
    finally:
        em.point = saved
        em.pop_frame()
    fork = em.insert(prim.ForkOp([], [FutureType(value.type)], Region(body)), node)  # pyright: ignore[reportArgumentType]
    return SimpleValue(fork.results[0])


def lift_fork_captures(function: func.FuncOp) -> None:
    """Makes the values each fork's region uses from outside it the fork's inputs
    (inner forks first, so that an outer fork captures what an inner one does)."""
    forks = [op for op in function.walk() if type(op) is prim.ForkOp]
    for fork in reversed(forks):
        block = fork.body.block
        inside: set[SSAValue] = set(block.args)
        captured: list[SSAValue] = list(fork.inputs)
        for op in block.walk():
            for region in op.regions:
                for nested in region.blocks:
                    inside.update(nested.args)
            for operand in op.operands:
                if operand not in inside and operand not in captured:
                    captured.append(operand)
            inside.update(op.results)
        new = captured[len(fork.inputs) :]
        for value in new:
            argument = block.insert_arg(value.type, len(block.args))
            if value.name_hint is not None:
                argument.name_hint = value.name_hint
            value.replace_uses_with_if(argument, lambda use: fork.is_ancestor(use.operation))
        fork.operands = captured
