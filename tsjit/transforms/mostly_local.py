"""`MostlyLocalPattern`: a `LocalPattern` whose few declines that reach beyond an op's
neighbourhood are named where they happen, so that the pattern driver still skips its
last, unchanging sweep when none of them happened.

    class FoldLenOfListLiteral(RewritePattern, MostlyLocalPattern):
        def match_and_rewrite(self, op, rewriter):
            ...
            if self.aliases.has_writers(value):
                return self.declined_for_the_graph()  # alias facts of the whole graph

A decline for the graph is one that a rewrite elsewhere can undo without touching the
op: alias facts (writers, escapes), the uses of a value (a user needing the exact
type, a second use of a list), the operands of an operand's producer. Everything else
a pattern checks (the op's kind, operands, result types, its operands' producers'
kinds and properties) is local, and a decline for it stays true until the driver
offers the op again.
"""

from __future__ import annotations

from tsjit.transforms.pattern_driver import LocalPattern


class MostlyLocalPattern(LocalPattern):
    """A `LocalPattern` that calls `declined_for_the_graph()` where it leaves an op
    alone for a reason outside the op's neighbourhood."""

    _declined_for_the_graph: bool = False

    def declined_for_the_graph(self) -> None:
        self._declined_for_the_graph = True

    def left_alone_locally(self) -> bool:
        local = not self._declined_for_the_graph
        self._declined_for_the_graph = False
        return local
