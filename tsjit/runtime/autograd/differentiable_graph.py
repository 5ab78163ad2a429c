"""The GraphFunction of a differentiated `prim.DifferentiableGraph` op.

The op's forward and backward regions compile to interpreter code (one Python function
each where they have no loops; fused kernels where the llvm backend outlined them); the
op's gradient properties say what the backward takes and returns. Two facts come from
the forward graph itself:

- which inputs each output depends on (an output requires grad when one of them does);
- which inputs each yielded value is a view of: a saved view of an input changes when
  the input is written in place, so the backward checks that input's version; an output
  that is a view of an input shares its version counter.
"""

from __future__ import annotations

from typing import Any

from xdsl.ir import Block, Operation, SSAValue

from tsjit.dialects.aten import schema_of
from tsjit.dialects.prim import ConstantChunkOp, DifferentiableGraphOp, UncheckedCastOp
from tsjit.runtime.autograd.graph_function import Capture, GraphFunction


def graph_function_of(op: Operation, program: Any, name: str) -> GraphFunction:
    assert isinstance(op, DifferentiableGraphOp) and op.backward is not None
    forward_block = op.body.block
    backward_block = op.backward.block
    yielded = list(forward_block.last_op.operands)  # pyright: ignore[reportOptionalMemberAccess]
    views = view_sources(forward_block)
    depends = dependencies(forward_block)
    n_outputs = len(op.outs)
    captures = [Capture("input", i) for i in op.indices("captured_inputs")]
    for j in op.indices("captured_outputs"):
        aliases = tuple(sorted(views.get(yielded[j], ()))) if j >= n_outputs else ()
        captures.append(Capture("output", j, aliases))
    view_of = []
    for k in range(n_outputs):
        sources = sorted(views.get(yielded[k], ()))
        view_of.append(sources[0] if sources else None)
    return GraphFunction(
        name=name,
        forward=compile_block(program, forward_block, f"{name}.forward"),
        backward_factory=lambda: compile_block(program, backward_block, f"{name}.backward", called=True),
        n_outputs=n_outputs,
        grad_outputs=op.indices("grad_outputs"),
        grad_inputs=op.indices("grad_inputs"),
        captures=tuple(captures),
        output_inputs=tuple(tuple(sorted(depends.get(yielded[k], ()))) for k in range(n_outputs)),
        view_of=tuple(view_of),
        single_result=len(yielded) == 1,
    )


def compile_block(program: Any, block: Block, name: str, called: bool = False) -> Any:
    """Plain interpreter code for a region (as one function when it has no loops);
    `called` code is entered from outside the interpreter (the backward engine) and sets
    numpy's error state itself."""
    from tsjit.runtime.interpreter import Code, compile_block_code
    from tsjit.runtime.straight_line import straight_line

    code: Code = compile_block_code(program, block, name)
    fast = straight_line(code)
    if fast is not None:
        return fast.call if called else fast.invoke
    return code if called else code.invoke


def view_sources(block: Block) -> dict[SSAValue, frozenset[int]]:
    """For each value of the block, the block arguments (by index) it may be a view of:
    views propagate through the ops whose schema says their result aliases an input."""
    sources: dict[SSAValue, frozenset[int]] = {arg: frozenset({i}) for i, arg in enumerate(block.args)}
    for op in block.ops:
        if isinstance(op, (ConstantChunkOp, UncheckedCastOp)):
            for result in op.results:
                sources[result] = sources.get(op.operands[0], frozenset())
            continue
        schema = schema_of(op)
        if schema is None:
            continue
        for k, result in enumerate(op.results):
            aliased = schema.aliased_arguments(k) if k < len(schema.returns) else ()
            found: frozenset[int] = frozenset()
            for i in aliased:
                if i < len(op.operands):
                    found |= sources.get(op.operands[i], frozenset())
            if found:
                sources[result] = found
    return {v: s for v, s in sources.items() if s}


def dependencies(block: Block) -> dict[SSAValue, frozenset[int]]:
    """For each value of the block, the block arguments (by index) it is computed from."""
    found: dict[SSAValue, frozenset[int]] = {arg: frozenset({i}) for i, arg in enumerate(block.args)}
    for op in block.ops:
        inputs: frozenset[int] = frozenset()
        for nested in op.walk():
            for value in nested.operands:
                inputs |= found.get(value, frozenset())
        for result in op.results:
            found[result] = inputs
    return found
