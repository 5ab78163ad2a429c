"""Pictures of graphs: the demo's SVGs parse and show one cluster per FusionGroup, with
tsjit's own layout and (when installed) Graphviz's; dot text has the clusters of every
region kind and labels values with their names and types."""

from __future__ import annotations

import importlib.util
import shutil
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tsjit.context import make_context
from tsjit.formats.graph_picture import export_dot, picture_of
from tsjit.formats.svg_layout import layout_svg
from tsjit.frontend import script_source

ROOT = Path(__file__).resolve().parents[3]
SVG = "{http://www.w3.org/2000/svg}"


def demo_module():
    examples = str(ROOT / "examples")
    if examples not in sys.path:  # demo.py imports models.py beside it, as `python examples/demo.py` does
        sys.path.insert(0, examples)
    spec = importlib.util.spec_from_file_location("tsjit_demo", ROOT / "examples" / "demo.py")
    assert spec is not None and spec.loader is not None
    demo = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(demo)
    return demo


@pytest.fixture(scope="module")
def demo():
    return demo_module()


@pytest.fixture(scope="module")
def lstm(demo):
    return demo.lstm_stages()


def clusters(svg_text: str) -> list[str]:
    """The titles of the clusters an SVG draws (Graphviz's `<g class="cluster">`)."""
    root = ET.fromstring(svg_text)
    return [g.findtext(f"{SVG}title") or "" for g in root.iter(f"{SVG}g") if g.get("class") == "cluster"]


def fusion_groups(module) -> int:
    return sum(op.name == "prim.FusionGroup" for op in module.walk())


def test_the_demo_writes_svgs_that_parse_with_one_cluster_per_fusion_group(demo, lstm, tmp_path: Path):
    _, optimized, fused = lstm
    report = demo.write_pictures({"optimized": optimized, "fused": fused}, tmp_path)
    assert fusion_groups(fused) == 1 and fusion_groups(optimized) == 0
    for stage, module in (("optimized", optimized), ("fused", fused)):
        path = tmp_path / f"lstm_cell.{stage}.svg"
        assert str(path) in report
        titles = clusters(path.read_text(encoding="utf-8"))
        assert sum("FusionGroup" in t for t in titles) == fusion_groups(module)
        assert any("graph" in t for t in titles)


def test_tsjit_layout_without_graphviz(lstm):
    _, _, fused = lstm
    svg = layout_svg(picture_of(fused, "LSTMCellS"))
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg"
    assert clusters(svg) == ["cluster_graph_0", "cluster_prim_FusionGroup_0"]
    texts = [t.text or "" for t in root.iter(f"{SVG}text")]
    assert "prim::FusionGroup_0" in texts and "%hy : Float(*, *)" in texts
    edges = [g for g in root.iter(f"{SVG}g") if g.get("class") == "edge"]
    assert len(edges) == len(picture_of(fused, "LSTMCellS").edges) > 20


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz is not installed")
def test_graphviz_renders_the_same_clusters(lstm):
    import subprocess

    _, _, fused = lstm
    svg = subprocess.run(["dot", "-Tsvg"], input=export_dot(fused), capture_output=True, text=True, check=True).stdout
    assert sorted(clusters(svg)) == ["cluster_graph_0", "cluster_prim_FusionGroup_0"]


def test_dot_has_a_cluster_per_region_and_typed_named_values():
    source = """
import torch

def forward(x: torch.Tensor, n: int):
    if n > 0:
        y = x * 2
    else:
        y = x - 1
    for i in range(n):
        y = y + i
    return y
"""
    module = script_source(make_context(), source, "regions.py")
    dot = export_dot(module)
    for cluster in ("cluster_graph_0", "cluster_prim_If_0", "cluster_prim_Loop_0"):
        assert f"subgraph {cluster} {{" in dot
    assert 'label="then"' in dot and 'label="else"' in dot
    assert 'label="%x : Tensor\\l"' in dot and 'label="%n : int\\l"' in dot
    assert "aten::gt\\l" in dot
