"""The `xdsl.universe` entry point: tsjit's dialects and passes, for ts-opt and for
xDSL's own tools (`xdsl-opt -p <tsjit pass>` works once tsjit is installed)."""

from xdsl.universe import Universe

from tsjit.context import dialect_factories
from tsjit.transforms import PASSES

_OURS = ("ts", "prim", "profile", "aten")

TSJIT_UNIVERSE = Universe(
    all_dialects={name: f for name, f in dialect_factories().items() if name in _OURS},
    all_passes=dict(PASSES),
)
