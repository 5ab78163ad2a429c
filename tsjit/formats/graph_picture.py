"""Pictures of graphs: Graphviz dot, and SVG with or without Graphviz.

    ts-translate --export-dot model.py -o graph.dot
    ts-opt model.py -p fuse-pointwise --view-graph fused.svg

A graph is drawn as its data flow: a box per op (its TorchScript kind, attributes and
the values it defines, `%gates : Float(2, 16)`), an ellipse per graph input, an edge
per use. Regions are clusters: an If's branches, a Loop's body, a FusionGroup's and a
DifferentiableGraph's subgraph (fused groups filled in colour), each function of the
module a cluster of its own. An op with regions is a header box (its inputs) at the
top of its cluster and, when it has results, a box of them at the bottom, which the
region's yields flow into.

SVG comes from Graphviz's `dot` when it is installed, else from tsjit's own layout
(`svg_layout`): ops in program order, top to bottom, clusters as nested boxes, edges
curving beside them; both mark clusters as Graphviz does (`<g class="cluster">` with a
`<title>cluster_...</title>`), so that tools and tests read either the same way.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation, SSAValue
from xdsl.traits import IsolatedFromAbove, IsTerminator

from tsjit.diagnostics import TsjitError
from tsjit.formats.torchscript_export import GraphPrinter, node_kind

CLUSTER_STYLES: dict[str, tuple[str, str]] = {
    # op name: (fill, border)
    "prim.FusionGroup": ("#fde8c8", "#d98a1c"),
    "prim.DifferentiableGraph": ("#dcefd9", "#4a9a3f"),
    "prim.If": ("#eef2fb", "#7b8fc4"),
    "prim.Loop": ("#f3ecfa", "#9477b8"),
    "prim.With": ("#f2f2f2", "#999999"),
}
FUNCTION_STYLE = ("#ffffff", "#555555")
OTHER_REGION_STYLE = ("#f6f6f6", "#aaaaaa")


# --------------------------------------------------------------------------------------
# The picture: nodes, edges and clusters, independent of how they are drawn
# --------------------------------------------------------------------------------------


@dataclass
class Node:
    id: str
    lines: list[str]
    shape: str = "box"  # box, ellipse, note (terminators)


@dataclass
class Cluster:
    id: str  # `cluster_<kind>_<n>`: Graphviz draws only subgraphs named cluster*
    label: str
    style: tuple[str, str]
    items: list[Node | Cluster] = field(default_factory=list)


@dataclass
class Picture:
    root: Cluster
    edges: list[tuple[str, str]] = field(default_factory=list)


def picture_of(module: ModuleOp, entry: str | None = None) -> Picture:
    """The picture of the function `entry`, or of every function of the module."""
    functions = [op for op in module.ops if isinstance(op, func.FuncOp) and not op.is_declaration]
    if entry is not None:
        functions = [f for f in functions if f.sym_name.data == entry]
        if not functions:
            raise TsjitError(f"no function named '{entry}' with a body to draw")
    if not functions:
        raise TsjitError("the module has no function with a body to draw")
    return _Builder().picture(functions)


class _Builder:
    def __init__(self) -> None:
        self.ids: dict[SSAValue, str] = {}  # value -> node that defines it
        self.edges: list[tuple[str, str]] = []
        self.edge_set: set[tuple[str, str]] = set()
        self.printer = GraphPrinter()
        self.counter = 0
        self.kinds: dict[str, int] = {}

    def picture(self, functions: list[func.FuncOp]) -> Picture:
        root = Cluster("root", "", FUNCTION_STYLE)
        for function in functions:
            self.printer = GraphPrinter()  # names unique per function, as graph text has them
            cluster = Cluster(self.cluster_id("graph"), f"graph @{function.sym_name.data}", FUNCTION_STYLE)
            self.block(function.body.block, cluster, None)
            root.items.append(cluster)
        return Picture(root, self.edges)

    def node_id(self) -> str:
        self.counter += 1
        return f"n{self.counter}"

    def cluster_id(self, kind: str) -> str:
        index = self.kinds.get(kind, 0)
        self.kinds[kind] = index + 1
        return f"cluster_{kind}_{index}"

    def block(self, block: Block, into: Cluster, results_node: str | None) -> None:
        """The block's arguments and ops into `into`; its terminator's operands flow
        into `results_node` (the results of the op owning the region), or are returned."""
        for arg in block.args:
            node = Node(self.node_id(), [self.define(arg)], "ellipse")
            self.ids[arg] = node.id
            into.items.append(node)
        for op in block.ops:
            if op.has_trait(IsTerminator):
                self.terminator(op, into, results_node)
            else:
                self.op(op, into)

    def op(self, op: Operation, into: Cluster) -> None:
        kind, attributes = _kind_and_attributes(op, self.printer)
        if not op.regions:
            node = Node(self.node_id(), [f"{kind}{attributes}", *(self.define(r) for r in op.results)])
            self.uses(op, node.id)
            for result in op.results:
                self.ids[result] = node.id
            into.items.append(node)
            return
        style = CLUSTER_STYLES.get(op.name, OTHER_REGION_STYLE)
        cluster_id = self.cluster_id(kind.replace("::", "_"))
        cluster = Cluster(cluster_id, f"{kind}_{cluster_id.rsplit('_', 1)[1]}" if _is_subgraph(op) else kind, style)
        if _is_subgraph(op):  # its block arguments are its operands: they flow in directly
            pending = list(zip(op.operands, op.regions[0].block.args))
        else:
            header = Node(self.node_id(), [f"{kind}{attributes}"])
            self.uses(op, header.id)
            cluster.items.append(header)
            pending = []
        results = Node(self.node_id(), [self.define(r) for r in op.results]) if op.results else None
        for index, region in enumerate(op.regions):
            for block in region.blocks:
                name = _region_name(op, index)
                inner = Cluster(self.cluster_id("block"), name, style) if len(op.regions) > 1 else cluster
                self.block(block, inner, results.id if results else None)
                if inner is not cluster:
                    cluster.items.append(inner)
        for operand, arg in pending:
            if (source := self.ids.get(operand)) is not None:
                self.edge(source, self.ids[arg])
        if results is not None:
            for result in op.results:
                self.ids[result] = results.id
            cluster.items.append(results)
        into.items.append(cluster)

    def terminator(self, op: Operation, into: Cluster, results_node: str | None) -> None:
        if not op.operands:
            return
        label = "return" if results_node is None else op.name.replace(".", "::", 1)
        node = Node(self.node_id(), [label], "note")
        self.uses(op, node.id)
        into.items.append(node)
        if results_node is not None:
            self.edge(node.id, results_node)

    def uses(self, op: Operation, node: str) -> None:
        for operand in op.operands:
            if (source := self.ids.get(operand)) is not None:
                self.edge(source, node)

    def edge(self, source: str, target: str) -> None:
        if (source, target) not in self.edge_set:
            self.edge_set.add((source, target))
            self.edges.append((source, target))

    def define(self, value: SSAValue) -> str:
        """`%name : Type`, without the properties every CPU tensor without grad shares."""
        return _DEFAULT_PROPERTIES.sub("", self.printer.define(value)).replace("()", "")


_DEFAULT_PROPERTIES = re.compile(r"(?:, )?(?:requires_grad=0|device=cpu)(?=[,)])")


def _is_subgraph(op: Operation) -> bool:
    """A FusionGroup or DifferentiableGraph: one region, isolated, one block argument
    per operand."""
    return (
        len(op.regions) == 1
        and op.has_trait(IsolatedFromAbove)
        and len(op.regions[0].blocks) == 1
        and len(op.regions[0].block.args) == len(op.operands)
    )


def _kind_and_attributes(op: Operation, printer: GraphPrinter) -> tuple[str, str]:
    if isinstance(op, func.CallOp):
        return "prim::CallFunction", f"[name={op.callee.string_value()}]"
    try:
        kind = node_kind(op)
    except TsjitError:  # not a TorchScript op (a lowered module): its MLIR name
        return op.name, ""
    try:
        attributes = printer.attributes(op)
    except Exception:  # noqa: BLE001 - an attribute graph text cannot spell: left out of the label
        attributes = ""
    return kind, attributes if len(attributes) <= 60 else attributes[:57] + "...]"


def _region_name(op: Operation, index: int) -> str:
    if op.name == "prim.If":
        return ("then", "else")[index] if index < 2 else f"block{index}"
    if op.name == "prim.With":
        return ("body", "exit")[index] if index < 2 else f"block{index}"
    return f"block{index}"


# --------------------------------------------------------------------------------------
# Graphviz dot
# --------------------------------------------------------------------------------------


def export_dot(module: ModuleOp, entry: str | None = None) -> str:
    """The module's graphs as a Graphviz digraph."""
    picture = picture_of(module, entry)
    lines = [
        "digraph tsjit {",
        '  graph [rankdir=TB, fontname="Helvetica", fontsize=11, compound=true, newrank=true];',
        '  node [fontname="Courier", fontsize=10, style=filled, fillcolor="#ffffff", color="#555555"];',
        '  edge [color="#666666", arrowsize=0.6];',
    ]
    for item in picture.root.items:
        _dot_item(item, lines, 1)
    for source, target in picture.edges:
        lines.append(f"  {source} -> {target};")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _dot_item(item: Node | Cluster, lines: list[str], level: int) -> None:
    indent = "  " * level
    if isinstance(item, Node):
        label = "\\l".join(_dot_escape(line) for line in item.lines) + "\\l"
        shape = {"box": "box, style=\"rounded,filled\"", "ellipse": "ellipse", "note": "note"}[item.shape]
        lines.append(f'{indent}{item.id} [shape={shape}, label="{label}"];')
        return
    fill, border = item.style
    lines.append(f"{indent}subgraph {item.id} {{")
    lines.append(f'{indent}  label="{_dot_escape(item.label)}"; style="rounded,filled"; fillcolor="{fill}"; color="{border}";')
    for inner in item.items:
        _dot_item(inner, lines, level + 1)
    lines.append(f"{indent}}}")


def _dot_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("{", "\\{").replace("}", "\\}")


# --------------------------------------------------------------------------------------
# SVG
# --------------------------------------------------------------------------------------


def render_svg(module: ModuleOp, entry: str | None = None) -> tuple[str, str]:
    """The module's graphs as SVG, and what drew them: Graphviz `dot` when installed
    (and working), else tsjit's own layout."""
    dot = shutil.which("dot")
    if dot is not None:
        try:
            done = subprocess.run(
                [dot, "-Tsvg"], input=export_dot(module, entry), capture_output=True, text=True, timeout=60
            )
            if done.returncode == 0 and "<svg" in done.stdout:
                return done.stdout, "Graphviz dot"
        except (OSError, subprocess.SubprocessError):
            pass
    from tsjit.formats.svg_layout import layout_svg

    return layout_svg(picture_of(module, entry)), "tsjit's layout; install Graphviz for dot's"


def write_picture(module: ModuleOp, path: str, entry: str | None = None) -> str:
    """Writes the picture `path` names by its suffix (`.svg`, else dot); says how it
    was drawn."""
    if Path(path).suffix.lower() == ".svg":
        svg, how = render_svg(module, entry)
        Path(path).write_text(svg, encoding="utf-8")
        return f"SVG drawn by {how}"
    Path(path).write_text(export_dot(module, entry), encoding="utf-8")
    return "Graphviz dot; `dot -Tsvg` renders it"

