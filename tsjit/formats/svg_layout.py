"""tsjit's own SVG drawing of a graph picture, for machines without Graphviz.

The layout reads like the graph text: ops top to bottom in program order, each region
a box (a cluster) around its ops, nested as the regions are; an edge from a value's
definition to the next op that uses it is a short arrow down, an edge to a later op
curves out to the right, further the further it goes, so that no edge crosses a box.
The SVG marks its parts as Graphviz does (`<g class="cluster|node|edge">`, each with
a `<title>`), so either drawing is read the same way.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape

from tsjit.formats.graph_picture import Cluster, Node, Picture

FONT_SIZE = 11
CHAR_WIDTH = 6.7  # of the monospace font at FONT_SIZE
LINE_HEIGHT = 14
NODE_PAD_X = 8
NODE_PAD_Y = 5
CLUSTER_PAD = 10
CLUSTER_LABEL = 18
GAP = 14
MARGIN = 12


@dataclass
class _Box:
    x: float
    y: float
    width: float
    height: float


def layout_svg(picture: Picture) -> str:
    nodes: dict[str, tuple[Node, _Box]] = {}
    clusters: list[tuple[Cluster, _Box]] = []
    order: list[str] = []  # node ids top to bottom
    width, height = _place(picture.root, MARGIN, MARGIN, nodes, clusters, order, root=True)
    rank = {node: i for i, node in enumerate(order)}
    edge_paths: list[tuple[str, str, str]] = []
    reach = 0.0
    for source, target in picture.edges:
        a, b = nodes[source][1], nodes[target][1]
        if rank[target] == rank[source] + 1 and b.y >= a.y + a.height:
            x = min(a.x, b.x) + 16
            path = f"M{x:.1f},{a.y + a.height:.1f} L{x:.1f},{b.y - 1:.1f}"
        else:
            sx, sy = a.x + a.width, a.y + a.height / 2
            tx, ty = b.x + b.width, b.y + b.height / 2
            right = max(sx, tx) + min(30 + 0.12 * abs(ty - sy), 260)
            reach = max(reach, right + 10)
            path = f"M{sx:.1f},{sy:.1f} C{right:.1f},{sy:.1f} {right:.1f},{ty:.1f} {tx + 1:.1f},{ty:.1f}"
        edge_paths.append((source, target, path))
    total_width = max(width + 2 * MARGIN, reach + MARGIN)
    total_height = height + 2 * MARGIN
    out = [
        '<?xml version="1.0" encoding="UTF-8" standalone="no"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{total_width:.0f}pt" height="{total_height:.0f}pt" '
        f'viewBox="0 0 {total_width:.0f} {total_height:.0f}">',
        "<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"6\" "
        'markerHeight="6" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#666666"/></marker></defs>',
        '<g id="graph0" class="graph"><title>tsjit</title>',
        f'<rect x="0" y="0" width="{total_width:.0f}" height="{total_height:.0f}" fill="#ffffff"/>',
    ]
    for cluster, box in clusters:
        fill, border = cluster.style
        out.append(f'<g id="{cluster.id}" class="cluster"><title>{escape(cluster.id)}</title>')
        out.append(
            f'<rect x="{box.x:.1f}" y="{box.y:.1f}" width="{box.width:.1f}" height="{box.height:.1f}" '
            f'rx="6" fill="{fill}" stroke="{border}"/>'
        )
        out.append(_text(box.x + CLUSTER_PAD, box.y + 13, cluster.label, "Helvetica,Arial,sans-serif", bold=True))
        out.append("</g>")
    for source, target, path in edge_paths:
        out.append(f'<g class="edge"><title>{source}&#45;&gt;{target}</title>')
        out.append(f'<path d="{path}" fill="none" stroke="#666666" marker-end="url(#arrow)"/></g>')
    for node_id, (node, box) in nodes.items():
        out.append(f'<g id="{node_id}" class="node"><title>{node_id}</title>')
        if node.shape == "ellipse":
            out.append(
                f'<ellipse cx="{box.x + box.width / 2:.1f}" cy="{box.y + box.height / 2:.1f}" '
                f'rx="{box.width / 2:.1f}" ry="{box.height / 2:.1f}" fill="#ffffff" stroke="#555555"/>'
            )
        else:
            dash = ' stroke-dasharray="3,2"' if node.shape == "note" else ""
            out.append(
                f'<rect x="{box.x:.1f}" y="{box.y:.1f}" width="{box.width:.1f}" height="{box.height:.1f}" '
                f'rx="4" fill="#ffffff" stroke="#555555"{dash}/>'
            )
        indent = box.width / 2 - _text_width(node) / 2 if node.shape == "ellipse" else NODE_PAD_X
        for i, line in enumerate(node.lines):
            out.append(_text(box.x + indent, box.y + NODE_PAD_Y + 11 + i * LINE_HEIGHT, line, "monospace"))
        out.append("</g>")
    out += ["</g>", "</svg>"]
    return "\n".join(out) + "\n"


def _text(x: float, y: float, text: str, family: str, bold: bool = False) -> str:
    weight = ' font-weight="bold"' if bold else ""
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" font-family="{family}" font-size="{FONT_SIZE}"{weight} '
        f'xml:space="preserve">{escape(text)}</text>'
    )


def _text_width(node: Node) -> float:
    return max((len(line) for line in node.lines), default=1) * CHAR_WIDTH


def _place(
    item: Node | Cluster,
    x: float,
    y: float,
    nodes: dict[str, tuple[Node, _Box]],
    clusters: list[tuple[Cluster, _Box]],
    order: list[str],
    root: bool = False,
) -> tuple[float, float]:
    """Places `item` with its top left at (x, y); returns its width and height."""
    if isinstance(item, Node):
        width = _text_width(item) + 2 * NODE_PAD_X + (16 if item.shape == "ellipse" else 0)
        height = len(item.lines) * LINE_HEIGHT + 2 * NODE_PAD_Y
        nodes[item.id] = (item, _Box(x, y, width, height))
        order.append(item.id)
        return width, height
    pad, label = (0, 0) if root else (CLUSTER_PAD, CLUSTER_LABEL)
    box = _Box(x, y, 0, 0)
    if not root:
        clusters.append((item, box))
    cursor = y + pad + label
    width = len(item.label) * CHAR_WIDTH + 2 * pad
    for inner in item.items:
        w, h = _place(inner, x + pad, cursor, nodes, clusters, order)
        width = max(width, w + 2 * pad)
        cursor += h + GAP
    height = max(cursor - GAP - y + pad, label + 2 * pad)
    box.width, box.height = width, height
    return width, height
