"""rewrite-subgraphs: user rules written as pairs of TorchScript graphs, as PyTorch's
`SubgraphRewriter` takes them: every occurrence of the `pattern` graph is replaced by the
`replacement` graph.

    pattern:
    graph(%a, %b, %c):
      %one : int = prim::Constant[value=1]()
      %ab = aten::mul(%a, %b)
      %r = aten::add(%ab, %c, %one)
      return (%r)
    replacement:
    graph(%a, %b, %c):
      %one : int = prim::Constant[value=1]()
      %r = aten::addcmul(%c, %a, %b, %one)
      return (%r)

A rules file (`ts-opt -p 'rewrite-subgraphs{rules=fusions.rules}'`) holds any number of
such pairs; `#` starts a comment line between them. Pattern inputs match any value of
their type (untyped ones: any tensor), the same input always the same value; pattern
ops match ops of the same name whose operands match in turn, constants match constants
of equal type and value. A match is replaced when its intermediate values are used
nowhere else (constants excepted: they are shared), it lies in one block, and nothing
between its first op and its last writes what it reads, since the replacement computes
everything where the last op was. Matching starts at the op producing the pattern's
first output and walks operands backwards, so each candidate costs about the pattern's
size. Like PyTorch's, the rewriter makes one pass: what a replacement produces is not
matched again, so a rule may produce its own pattern's ops.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, BlockArgument, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

from tsjit.context import make_context
from tsjit.diagnostics import SourceLocation, TsjitError
from tsjit.dialects.prim import ConstantOp
from tsjit.dialects.types import is_subtype_of
from tsjit.transforms.analysis.alias_analysis import AliasDb
from tsjit.transforms.pass_logging import TsjitPass

SECTIONS = ("pattern:", "replacement:")


@dataclass(frozen=True)
class SubgraphRule:
    """A pattern graph and the graph that replaces it (same inputs and outputs)."""

    pattern: func.FuncOp
    replacement: func.FuncOp

    @staticmethod
    def from_text(pattern: str, replacement: str, filename: str = "<rule>") -> SubgraphRule:
        """A rule from the texts of its two graphs."""
        return SubgraphRule.from_sections(_Section("pattern:", 0, pattern), _Section("replacement:", 0, replacement), filename)

    @staticmethod
    def from_sections(pattern: _Section, replacement: _Section, filename: str) -> SubgraphRule:
        from tsjit.formats.torchscript_text import import_graph_text

        ctx = make_context()
        graphs = [
            _only_function(import_graph_text(ctx, section.text, filename, section.line, name))
            for section, name in ((pattern, "pattern"), (replacement, "replacement"))
        ]
        where = SourceLocation(filename, pattern.line)
        rule = SubgraphRule(graphs[0], graphs[1])
        rule.check(where)
        return rule

    def check(self, where: SourceLocation) -> None:
        p, r = self.pattern.function_type, self.replacement.function_type
        if len(p.inputs) != len(r.inputs) or len(p.outputs) != len(r.outputs):
            raise TsjitError(
                f"the replacement takes {len(r.inputs)} inputs and returns {len(r.outputs)} values, "
                f"the pattern {len(p.inputs)} and {len(p.outputs)}",
                where,
            )
        if not p.outputs:
            raise TsjitError("a pattern must return the values its replacement replaces", where)
        body = self.pattern.body.block
        if any(op.regions for op in body.ops):
            raise TsjitError("patterns with blocks (If, Loop) are not supported", where)
        if any(isinstance(v, BlockArgument) for v in _terminator(body).operands):
            raise TsjitError("a pattern may not return one of its inputs", where)
        reached = _reaching_outputs(body)
        for op in body.ops:
            if op is not body.last_op and op not in reached:
                raise TsjitError(f"pattern op '{op.name}' does not contribute to the pattern's outputs", where)

    @property
    def anchor(self) -> Operation:
        """The pattern op producing the first output: matching starts there."""
        owner = _terminator(self.pattern.body.block).operands[0].owner
        assert isinstance(owner, Operation)
        return owner


def _only_function(module: ModuleOp) -> func.FuncOp:
    return next(op for op in module.ops if isinstance(op, func.FuncOp))


def _terminator(block: Block) -> Operation:
    terminator = block.last_op
    assert terminator is not None
    return terminator


def _reaching_outputs(body: Block) -> set[Operation]:
    reached: set[Operation] = set()
    pending = [v.owner for v in _terminator(body).operands if isinstance(v.owner, Operation)]
    while pending:
        op = pending.pop()
        if op in reached:
            continue
        reached.add(op)
        pending.extend(v.owner for v in op.operands if isinstance(v.owner, Operation))
    return reached


@dataclass
class _Section:
    """A `pattern:` or `replacement:` section: its header line (1-based) and text."""

    header: str
    line: int
    text: str = ""


def parse_rules(text: str, filename: str) -> list[SubgraphRule]:
    """The rules of a rules file: `pattern:` and `replacement:` sections in pairs;
    lines starting with `#` are comments."""
    sections: list[_Section] = []
    for number, line in enumerate(text.splitlines(), 1):
        if line.rstrip() in SECTIONS:
            sections.append(_Section(line.rstrip(), number))
        elif sections:
            sections[-1].text += ("" if line.startswith("#") else line) + "\n"
        elif line.strip() and not line.startswith("#"):
            raise TsjitError("expected 'pattern:' before the first graph", SourceLocation(filename, number, 1))
    if not sections:
        raise TsjitError("the rules file holds no 'pattern:'/'replacement:' pair", SourceLocation(filename, 1))
    rules: list[SubgraphRule] = []
    for pattern, replacement in zip(sections[::2], sections[1::2] + [None]):  # pyright: ignore[reportOperatorIssue]
        if pattern.header != "pattern:" or replacement is None or replacement.header != "replacement:":
            raise TsjitError(
                "a 'pattern:' section must be followed by a 'replacement:' section", SourceLocation(filename, pattern.line)
            )
        rules.append(SubgraphRule.from_sections(pattern, replacement, filename))
    return rules


def load_rules(path: str) -> list[SubgraphRule]:
    if not Path(path).is_file():
        raise TsjitError(f"rules file '{path}' does not exist")
    return parse_rules(Path(path).read_text(encoding="utf-8"), path)


# --------------------------------------------------------------------------------------
# Matching
# --------------------------------------------------------------------------------------


@dataclass
class Match:
    """Pattern values bound to graph values, pattern ops to graph ops (one to one).
    Two pattern inputs may bind one value: the pattern computes the same with both."""

    values: dict[SSAValue, SSAValue] = field(default_factory=dict)
    ops: dict[Operation, Operation] = field(default_factory=dict)

    def value(self, pattern: SSAValue, graph: SSAValue) -> bool:
        bound = self.values.get(pattern)
        if bound is not None:
            return bound is graph
        if isinstance(pattern, BlockArgument):
            if not is_subtype_of(graph.type, pattern.type):
                return False
            self.values[pattern] = graph
            return True
        producer, owner = pattern.owner, graph.owner
        if not isinstance(producer, Operation) or not isinstance(owner, Operation):
            return False
        if pattern.index != graph.index or not self.op(producer, owner):  # pyright: ignore[reportAttributeAccessIssue]
            return False
        self.values[pattern] = graph
        return True

    def op(self, pattern: Operation, graph: Operation) -> bool:
        bound = self.ops.get(pattern)
        if bound is not None:
            return bound is graph
        if graph in self.ops.values() or not _same_op(pattern, graph):
            return False
        self.ops[pattern] = graph
        return all(self.value(p, g) for p, g in zip(pattern.operands, graph.operands))


def _same_op(pattern: Operation, graph: Operation) -> bool:
    if pattern.name != graph.name or len(pattern.operands) != len(graph.operands) or graph.regions:
        return False
    if len(pattern.results) != len(graph.results) or pattern.properties != graph.properties:
        return False
    if isinstance(pattern, ConstantOp):
        return pattern.result.type == graph.results[0].type
    return all(is_subtype_of(g.type, p.type) for p, g in zip(pattern.results, graph.results))


@dataclass
class ReplaceSubgraph(RewritePattern):
    """Every match of `rule.pattern` (anchored at the matched op) → `rule.replacement`."""

    rule: SubgraphRule
    aliases: AliasDb

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        anchor = self.rule.anchor
        if op.name != anchor.name:
            return
        match = Match()
        outputs = _terminator(self.rule.pattern.body.block).operands
        if not match.op(anchor, op) or not self.bind_outputs(match, outputs):
            return
        pattern_ops = [p for p in self.rule.pattern.body.block.ops if p in match.ops]
        matched = [match.ops[p] for p in pattern_ops]
        if not self.is_replaceable(op, matched, [match.values[o] for o in outputs]):
            return
        mapping: dict[SSAValue, SSAValue] = {
            r: match.values[p]
            for p, r in zip(self.rule.pattern.body.block.args, self.rule.replacement.body.block.args, strict=True)
        }
        replacement = self.rule.replacement.body.block
        new_ops = [o.clone(mapping) for o in replacement.ops if o is not replacement.last_op]
        for new in new_ops:
            new.location = op.location
        rewriter.insert(new_ops)
        results = [mapping.get(v, v) for v in _terminator(replacement).operands]
        for output, result in zip(outputs, results, strict=True):
            replaced = match.values[output]
            if result.owner in new_ops:
                result.name_hint = replaced.name_hint
            rewriter.replace_all_uses_with(replaced, result)
        for graph_op in reversed(matched):  # users before producers: the pattern is in order
            if not any(r.uses for r in graph_op.results):
                self.aliases.forget_op(graph_op)
                rewriter.erase(graph_op)

    @staticmethod
    def bind_outputs(match: Match, outputs: Sequence[SSAValue]) -> bool:
        """Binds the pattern's outputs to the results of the ops they matched; False if
        an output's op was not reached from the anchor."""
        for output in outputs:
            if output in match.values:
                continue
            graph_op = match.ops.get(output.owner) if isinstance(output.owner, Operation) else None
            if graph_op is None:
                return False
            match.values[output] = graph_op.results[output.index]  # pyright: ignore[reportAttributeAccessIssue]
        return True

    def is_replaceable(self, anchor: Operation, matched: list[Operation], outputs: list[SSAValue]) -> bool:
        """One block; intermediate values unused outside the match; no op in between
        writing what the match reads or having effects the match could be moved over."""
        block = anchor.parent
        if any(m.parent is not block for m in matched):
            return False
        inside = set(matched)
        kept = set(outputs)
        for m in matched:
            if isinstance(m, ConstantOp):
                continue
            for result in m.results:
                if result not in kept and any(u.operation not in inside for u in result.uses):
                    return False
        reads = frozenset().union(*(self.aliases.reads(m) for m in matched))
        effects = any(self.aliases.has_side_effects(m) for m in matched)
        pending = {m for m in matched if not isinstance(m, ConstantOp)} - {anchor}
        current = anchor.prev_op
        while pending and current is not None:
            if current in pending:
                pending.discard(current)
            elif not self.aliases.writes(current).isdisjoint(reads) or (
                effects and self.aliases.has_side_effects(current)
            ):
                return False
            current = current.prev_op
        return not pending


@dataclass(frozen=True)
class RewriteSubgraphsPass(TsjitPass):
    """Replaces every match of each rule's pattern graph by its replacement graph."""

    name = "rewrite-subgraphs"

    rules: str = ""
    """The rules file: `pattern:`/`replacement:` pairs of TorchScript graphs."""

    def run(self, ctx: Context, op: ModuleOp) -> None:
        if not self.rules:
            raise TsjitError("rewrite-subgraphs needs a rules file: rewrite-subgraphs{rules=FILE}")
        rules = load_rules(self.rules)
        for graph in self.graphs(op):
            aliases = AliasDb(graph)
            self.rewrite(graph, [ReplaceSubgraph(rule, aliases) for rule in rules], apply_recursively=False)
