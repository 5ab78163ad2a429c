"""Pass pipelines as text: MLIR's anchors dropped, errors at the column the user wrote."""

from __future__ import annotations

import pytest
from xdsl.universe import Universe

from tsjit.transforms.pipeline_spec import PipelineError, parse_pipeline, strip_pipeline_anchors

PASSES = Universe.get_multiverse().all_passes


def test_anchors_are_dropped():
    assert strip_pipeline_anchors("builtin.module(inline,func.func(cse),any(dce))") == "inline,cse,dce"
    assert strip_pipeline_anchors('rewrite-subgraphs{rules="a(b).rules"}') == 'rewrite-subgraphs{rules="a(b).rules"}'


def test_passes_and_options():
    passes = parse_pipeline("builtin.module(inline,func.func(fuse-pointwise{min-ops=3}))", PASSES)
    assert [p.name for p in passes] == ["inline", "fuse-pointwise"]
    assert passes[1].min_ops == 3  # pyright: ignore[reportAttributeAccessIssue]


@pytest.mark.parametrize(
    ("spec", "column", "message"),
    [
        ("builtin.module(cse,func.func(inlin))", 30, "unknown pass 'inlin'; did you mean 'inline'?"),
        ("cse,dce{x=1", 12, "malformed pass arguments"),
        ("builtin.module(cse,dce{x=1)", 27, "malformed pass arguments"),
        ("cse,,dce", 5, "expected pass name here"),
        ("inline,fuse-pointwise{min=3}", 8, "pass 'fuse-pointwise' has no option 'min' (its options: min_ops)"),
    ],
)
def test_errors_point_into_the_text_as_written(spec: str, column: int, message: str):
    with pytest.raises(PipelineError) as info:
        parse_pipeline(spec, PASSES)
    error = info.value
    assert error.location is not None and (error.location.line, error.location.col) == (1, column)
    assert error.message.startswith(message)
    report = error.format("ts-opt").splitlines()
    assert report[1:] == [spec, " " * (column - 1) + "^"]
