"""Value names: which TorchScript names can be kept as xDSL name hints.

TorchScript names values after variables and attributes (`%x.1`, `%self.weight`); tsjit
keeps them as name hints. xDSL accepts `[A-Za-z_$.-][\\w$.-]*` and strips a `_<digits>`
ending (`x_1` is kept as `x`), so a name such as `_1` becomes the empty hint, which xDSL
then refuses when an op is cloned ("Invalid OpResult name format"). Every name taken
from a program goes through `name_hint`.
"""

from __future__ import annotations

import functools

from xdsl.ir import SSAValue


@functools.lru_cache(maxsize=4096)
def name_hint(name: str | None) -> str | None:
    """`name` when xDSL keeps it as a non-empty name hint, else None (no hint)."""
    if not name:
        return None
    try:
        kept = SSAValue.extract_valid_name(name)
    except ValueError:
        return None
    return name if kept else None
