"""Pausing Python's cyclic garbage collector around work that builds much IR.

Building IR allocates many objects that stay alive (ops, results, uses, attributes):
the collector's passes, triggered every few hundred allocations, rescan them again and
again, which cost a quarter of scripting and grow faster than the program. Inside
`collector_paused` nothing is collected; the garbage the work made (erased ops form
cycles) is collected on the first pass after it ends. Nested and concurrent pauses keep
the collector off until the outermost one that turned it off ends.

    with collector_paused():
        module = build_lots_of_ir()
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
