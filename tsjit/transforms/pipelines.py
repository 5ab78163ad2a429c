"""Named pipelines: PyTorch's optimization sequences, each one pass.

    ts-opt graph.txt -p torchscript-cleanup
    GraphExecutor(module, pipeline="executor-default")

A pipeline runs its steps by name through the `PASSES` table, so a step is whatever
pass holds that name (plugins included). Each step gets the logging of a pass of its
own (`TSJIT_LOG_LEVEL=dead_code_elimination` dumps after every DCE step), and
observers registered with `pass_logging.observe_passes` see the module after each.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from tsjit.diagnostics import TsjitError
from tsjit.transforms import pipeline_spec
from tsjit.transforms.pass_logging import TsjitPass, run_pass

PIPELINES: dict[str, tuple[str, ...]] = {
    "torchscript-cleanup": (
        "inline",
        "dead-code-elimination",
        "constant-propagation",
        "dead-code-elimination",
        "common-subexpression-elimination",
        "constant-pooling",
        "peephole",
        "dead-code-elimination",
        "lower-tuples",
    ),
    "executor-default": (
        "decompose-ops",
        "torchscript-cleanup",
        "shape-propagation",
        "loop-unrolling",
        "remove-mutation",
        "constant-propagation",
        "peephole",
        "constant-pooling",
        "common-subexpression-elimination",
        "dead-code-elimination",
    ),
}
"""Pipeline name -> pass names, in order."""


def parse_pipeline(spec: str) -> tuple[ModulePass, ...]:
    """The passes of a pipeline spec (`inline,cse{...}`, MLIR's anchored spelling too):
    from tsjit's own table when it names them all, else from every registered universe
    (plugins, xDSL's passes), whose discovery costs a tenth of a second."""
    from tsjit.transforms import PASSES

    try:
        return pipeline_spec.parse_pipeline(spec, PASSES)
    except pipeline_spec.PipelineError:
        from xdsl.universe import Universe

        return pipeline_spec.parse_pipeline(spec, Universe.get_multiverse().all_passes)


class PipelinePass(TsjitPass):
    """Runs the passes `PIPELINES[name]` names, in order."""

    def run(self, ctx: Context, op: ModuleOp) -> None:
        from tsjit.transforms import PASSES

        for step in PIPELINES[self.name]:
            factory = PASSES.get(step)
            if factory is None:
                raise TsjitError(f"pipeline '{self.name}' names the unknown pass '{step}'")
            run_pass(factory()(), ctx, op)


@dataclass(frozen=True)
class TorchScriptCleanupPass(PipelinePass):
    """PyTorch's profiling-insensitive cleanup (`runProfilingInsensitiveOptimizations`):
    inline, then DCE around constant propagation, CSE, constant pooling and peephole,
    and simple tuples lowered."""

    name: ClassVar[str] = "torchscript-cleanup"


@dataclass(frozen=True)
class ExecutorDefaultPass(PipelinePass):
    """The graph executor's pipeline, run once input types are specialized: operators
    without kernels replaced by their decompositions, the cleanup, then what the types
    enable (shape propagation and the peepholes it feeds,
    loop unrolling followed by removing the list and tensor mutation it exposes, and
    another round of folding, CSE and DCE), after PyTorch's `runOptimization`."""

    name: ClassVar[str] = "executor-default"
