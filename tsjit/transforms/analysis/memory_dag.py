"""The memory DAG under alias analysis: which memory locations a value may refer to.

After PyTorch's `MemoryDAG`, with one change of representation that keeps building it
in O(n α(n)). Elements are ints. A *location* (a leaf: a fresh tensor, list or object,
or the wildcard set of a type) is a union-find node; a *join* (an If output that is one
of two branch values) points to several elements and reaches the union of their
locations. A value that aliases exactly one other value shares that value's element,
so chains of views cost nothing. Making a value a wildcard, or tying a loop-carried
value to what the body yields, merges locations (`merge`): from then on they are one
location, as PyTorch's wildcard pointers make them. Containers record the elements
they contain (`add_contained`), which reads and writes of "everything inside" follow.

Location sets are computed on first query and cached until the next merge.
"""

from __future__ import annotations

from collections.abc import Iterable

Element = int
"""A node of the DAG: a location or a join."""

JOIN_LIMIT = 8
"""The most locations a join keeps apart; larger joins merge them."""


class MemoryDAG:
    def __init__(self) -> None:
        self._parent: list[int] = []
        """Union-find parent of each location; joins are their own parent and unused."""
        self._rank: list[int] = []
        self._leaves: list[frozenset[int] | None] = []
        """The locations an element reaches, before any merge (fixed at creation); None
        for a location, which reaches itself (most elements are: no set allocated)."""
        self._contained: dict[int, list[Element]] = {}
        """Root location -> elements stored inside it."""
        self._locations: dict[Element, frozenset[int]] = {}
        self._contents: dict[Element, frozenset[int]] = {}

    def __len__(self) -> int:
        return len(self._parent)

    # ----------------------------------------------------------------------------------
    # Building
    # ----------------------------------------------------------------------------------

    def fresh(self) -> Element:
        """A new location."""
        element = len(self._parent)
        self._parent.append(element)
        self._rank.append(0)
        self._leaves.append(None)
        return element

    def join(self, elements: Iterable[Element]) -> Element:
        """An element reaching every location the given elements reach; a single
        element is returned as it is. Past `JOIN_LIMIT` locations they are merged
        into one instead (k-limiting), so that chains of joins stay linear."""
        distinct = list(dict.fromkeys(elements))
        if len(distinct) == 1:
            return distinct[0]
        leaves = frozenset().union(*(self._leaves_of(e) for e in distinct))
        if len(leaves) > JOIN_LIMIT:
            first = distinct[0]
            for other in distinct[1:]:
                self.merge(first, other)
            leaves = frozenset((self.find(next(iter(leaves))),))
        element = len(self._parent)
        self._parent.append(element)
        self._rank.append(0)
        self._leaves.append(leaves)
        return element

    def merge(self, a: Element, b: Element) -> None:
        """Every location of `a` and of `b` becomes one location."""
        leaves = self._leaves_of(a) | self._leaves_of(b)
        first, *rest = leaves
        for leaf in rest:
            self._union(first, leaf)
        self._locations.clear()
        self._contents.clear()

    def add_contained(self, container: Element, element: Element) -> None:
        """Records that `element` is stored inside every location of `container`."""
        for leaf in self._leaves_of(container):
            self._contained.setdefault(self.find(leaf), []).append(element)
        self._contents.clear()

    # ----------------------------------------------------------------------------------
    # Queries
    # ----------------------------------------------------------------------------------

    def find(self, location: int) -> int:
        """The representative of a location (path halving)."""
        parent = self._parent
        while parent[location] != location:
            parent[location] = parent[parent[location]]
            location = parent[location]
        return location

    def locations(self, element: Element) -> frozenset[int]:
        """The locations `element` may refer to, as representatives."""
        cached = self._locations.get(element)
        if cached is None:
            leaves = self._leaves[element]
            if leaves is None:
                cached = frozenset((self.find(element),))
            else:
                cached = frozenset(self.find(leaf) for leaf in leaves)
            self._locations[element] = cached
        return cached

    def contents(self, element: Element) -> frozenset[int]:
        """The locations of `element` and of everything stored inside them,
        transitively (a list of lists of tensors reaches the tensors)."""
        cached = self._contents.get(element)
        if cached is not None:
            return cached
        found = set(self.locations(element))
        pending = list(found)
        while pending:
            for inner in self._contained.get(pending.pop(), ()):
                for location in self.locations(inner):
                    if location not in found:
                        found.add(location)
                        pending.append(location)
        cached = frozenset(found)
        self._contents[element] = cached
        return cached

    def may_alias(self, a: Element, b: Element) -> bool:
        return a == b or not self.locations(a).isdisjoint(self.locations(b))

    def may_contain_alias(self, a: Element, b: Element) -> bool:
        return a == b or not self.contents(a).isdisjoint(self.contents(b))

    # ----------------------------------------------------------------------------------

    def _leaves_of(self, element: Element) -> frozenset[int]:
        leaves = self._leaves[element]
        return frozenset((element,)) if leaves is None else leaves

    def _union(self, a: int, b: int) -> None:
        a, b = self.find(a), self.find(b)
        if a == b:
            return
        if self._rank[a] < self._rank[b]:
            a, b = b, a
        self._parent[b] = a
        if self._rank[a] == self._rank[b]:
            self._rank[a] += 1
        if (moved := self._contained.pop(b, None)) is not None:
            self._contained.setdefault(a, []).extend(moved)
