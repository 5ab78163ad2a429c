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
    "inline": _lazy("inline", "InlinePass"),
}
