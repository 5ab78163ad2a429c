"""`ts-opt --list-passes`: every pass says what it does in one sentence."""

from __future__ import annotations

from tsjit.transforms import PASSES
from tsjit.transforms.pass_catalog import describe_pass, format_catalog, pass_sources


def test_every_tsjit_pass_has_a_description_and_documented_options():
    for name, factory in PASSES.items():
        info = describe_pass(name, factory())
        assert info.description != "(no description)" and not info.description.startswith(factory().__name__)
        assert "\n" not in info.description and len(info.description) > 20, name
        for option in info.options:
            assert option.doc, f"{name}: option {option.name} has no docstring"


def test_sources_keep_xdsl_out_of_the_default_listing():
    sources = pass_sources()
    assert set(sources["tsjit"]) == set(PASSES)
    assert "canonicalize" in sources["xDSL"] and "canonicalize" not in sources["plugins"]
    default = format_catalog({"tsjit": sources["tsjit"], "xDSL": sources["xDSL"]}, include_xdsl=False)
    assert "xDSL passes:" not in default and "canonicalize" not in default
    assert "tsjit passes:" in default and "--list-passes --all" in default
