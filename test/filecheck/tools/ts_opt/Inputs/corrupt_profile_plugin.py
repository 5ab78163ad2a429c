"""A careless third-party pass: it records an int as what a tensor use saw."""

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ArrayAttr, ModuleOp
from xdsl.passes import ModulePass

from tsjit.dialects.profile import ProfileOp
from tsjit.dialects.types import IntType


@dataclass(frozen=True)
class CorruptProfilePass(ModulePass):
    name = "corrupt-profile"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for profile in [o for o in op.walk() if isinstance(o, ProfileOp)]:
            profile.properties["seen_types"] = ArrayAttr([IntType()])
