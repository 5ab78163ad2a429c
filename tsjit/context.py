"""The xDSL context every tsjit tool and library entry point parses and builds IR in.

It knows xDSL's core dialects (loaded lazily), our `ts`, `prim`, `profile` and `aten`
dialects, and the open universe of operators: any op name the registered dialects do
not define is looked up in the schema table (`aten.add`, `prim.dtype`, `quantized.*`);
an `aten.*` name the table lacks, or a name in a namespace neither PyTorch nor the
context knows (a user's custom ops, `torchvision.nms`), becomes a generic op with
unknown effects, while an unknown name in a known namespace (a typo such as
`prim.Constnat`, or `quantized.no_such_op`) stays an error.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.context import Context
from xdsl.ir import Dialect, Operation


def dialect_factories() -> dict[str, Callable[[], Dialect]]:
    """Lazy factories: a dialect module is imported when its first op is parsed."""

    def xdsl(module: str, name: str) -> Callable[[], Dialect]:
        def load() -> Dialect:
            import importlib

            return getattr(importlib.import_module(f"xdsl.dialects.{module}"), name)

        return load

    def ours_at(module: str, name: str) -> Callable[[], Dialect]:
        def load() -> Dialect:
            import importlib

            return getattr(importlib.import_module(module), name)

        return load

    def ours(module: str, name: str) -> Callable[[], Dialect]:
        return ours_at(f"tsjit.dialects.{module}", name)

    return {
        "builtin": xdsl("builtin", "Builtin"),
        "func": xdsl("func", "Func"),
        "arith": xdsl("arith", "Arith"),
        "scf": xdsl("scf", "Scf"),
        "cf": xdsl("cf", "Cf"),
        # xDSL's memref dialect plus the prefetch it lacks
        "memref": ours_at("tsjit.transforms.lowering.memref_ops", "MEMREF_EXTENDED"),
        "math": xdsl("math", "Math"),
        # xDSL's llvm dialect plus the casts it lacks (fptosi, fptoui, uitofp)
        "llvm": ours_at("tsjit.transforms.lowering.llvm_ops", "LLVM_EXTENDED"),
        "test": xdsl("test", "Test"),
        "ts": ours("types", "TS"),
        "prim": ours("prim", "PRIM"),
        "profile": ours("profile", "PROFILE"),
        "aten": ours("aten", "ATEN"),
    }


class TSContext(Context):
    """A Context with the open operator universe of TorchScript (see module doc)."""

    def get_optional_op(self, name: str, *, dialect_stack: tuple[str, ...] = ()) -> type[Operation] | None:  # pyright: ignore[reportIncompatibleMethodOverride]
        known = super().get_optional_op(name, dialect_stack=dialect_stack)
        if known is None and "." in name:
            from tsjit.dialects.aten import custom_op_class, op_class_for

            known = op_class_for(name)
            if known is None and name.partition(".")[0] not in self.registered_dialect_names:
                known = custom_op_class(name)
            if known is not None:
                self.load_op(known)
        return known

    def clone(self) -> TSContext:
        copy = super().clone()
        copy.__class__ = TSContext
        return copy


def make_context() -> TSContext:
    """A fresh context with every dialect registered (lazily)."""
    ctx = TSContext()
    for name, factory in dialect_factories().items():
        ctx.register_dialect(name, factory)
    ctx.load_registered_dialect("builtin")
    return ctx
