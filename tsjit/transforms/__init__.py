"""tsjit's passes, by name. Each factory imports its module on first use, so that
tools start fast; `tsjit.universe` publishes this table to xDSL's tools."""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module

from xdsl.passes import ModulePass


def _lazy(module: str, cls: str) -> Callable[[], type[ModulePass]]:
    def load() -> type[ModulePass]:
        return getattr(import_module(f"tsjit.transforms.{module}"), cls)

    return load


PASSES: dict[str, Callable[[], type[ModulePass]]] = {
    "common-subexpression-elimination": _lazy("common_subexpression_elimination", "CommonSubexpressionEliminationPass"),
    "constant-pooling": _lazy("constant_pooling", "ConstantPoolingPass"),
    "constant-propagation": _lazy("constant_propagation", "ConstantPropagationPass"),
    "convert-arith-to-llvm": _lazy("lowering.convert_arith_to_llvm", "ConvertArithToLLVMPass"),
    "convert-aten-to-loops": _lazy("lowering.convert_aten_to_loops", "ConvertAtenToLoopsPass"),
    "convert-cf-to-llvm": _lazy("lowering.convert_cf_to_llvm", "ConvertCfToLLVMPass"),
    "convert-func-to-llvm": _lazy("lowering.convert_func_to_llvm", "ConvertFuncToLLVMPass"),
    "convert-math-to-llvm": _lazy("lowering.convert_math_to_llvm", "ConvertMathToLLVMPass"),
    "convert-memref-to-llvm": _lazy("lowering.convert_memref_to_llvm", "ConvertMemRefToLLVMPass"),
    "convert-scf-while-to-cf": _lazy("lowering.convert_scf_while_to_cf", "ConvertScfWhileToCfPass"),
    "convert-to-llvm": _lazy("lowering.convert_to_llvm", "ConvertToLLVMPass"),
    "create-autodiff-subgraphs": _lazy("create_autodiff_subgraphs", "CreateAutodiffSubgraphsPass"),
    "dead-code-elimination": _lazy("dead_code_elimination", "DeadCodeEliminationPass"),
    "decompose-ops": _lazy("decompose_ops", "DecomposeOpsPass"),
    "differentiate": _lazy("differentiate", "DifferentiatePass"),
    "executor-default": _lazy("pipelines", "ExecutorDefaultPass"),
    "fuse-pointwise": _lazy("fuse_pointwise", "FusePointwisePass"),
    "inline": _lazy("inline", "InlinePass"),
    "insert-guards": _lazy("insert_guards", "InsertGuardsPass"),
    "insert-profiling": _lazy("insert_profiling", "InsertProfilingPass"),
    "loop-unrolling": _lazy("loop_unrolling", "LoopUnrollingPass"),
    "lower-bailouts": _lazy("lower_bailouts", "LowerBailoutsPass"),
    "lower-tuples": _lazy("lower_tuples", "LowerTuplesPass"),
    "peephole": _lazy("peephole", "PeepholePass"),
    "remove-mutation": _lazy("remove_mutation", "RemoveMutationPass"),
    "rewrite-subgraphs": _lazy("subgraph_rewriter", "RewriteSubgraphsPass"),
    "shape-propagation": _lazy("shape_propagation", "ShapePropagationPass"),
    "torchscript-cleanup": _lazy("pipelines", "TorchScriptCleanupPass"),
}
