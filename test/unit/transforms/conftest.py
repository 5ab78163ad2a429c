"""Helpers shared by the pass tests."""

from __future__ import annotations

from collections.abc import Callable

from xdsl.ir import Operation
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriterListener


def record_events(rewriter: PatternRewriter, events: list[str], name: Callable[[Operation], str]) -> None:
    """Writes the rewriter's listener events to `events` (`inserted`, `removed`,
    `modified`, `replaced` and the op's `name`): tests of in-place rewrites compare them
    with xDSL's, as the pattern driver's worklist follows them."""
    rewriter.extend_from_listener(
        PatternRewriterListener(
            operation_insertion_handler=[lambda op: events.append(f"inserted {name(op)}")],
            operation_removal_handler=[lambda op: events.append(f"removed {name(op)}")],
            operation_modification_handler=[lambda op: events.append(f"modified {name(op)}")],
            operation_replacement_handler=[lambda op, new: events.append(f"replaced {name(op)}")],
        )
    )
