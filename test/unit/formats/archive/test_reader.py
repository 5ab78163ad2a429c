"""`tsjit.load` of an archive: a callable module with its methods, submodules,
parameters, buffers and attributes, whose code/ compiles on first use; what the archive
holds besides (version, extra files); and what it refuses, in one line naming the member."""

from __future__ import annotations

import collections
import json
import pickle
import zipfile
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects import func

import tsjit
from tsjit.formats.archive import ArchiveError
from tsjit.frontend.script import ScriptModule
from tsjit.runtime.values import decode_value, match_value

from .conftest import DATA, rewrite

COMPOSITE = DATA / "models" / "composite.pt"


def recorded(path: Path) -> list[dict]:
    return json.loads(path.with_suffix(".io.json").read_text(encoding="utf-8"))["runs"]


def test_load_gives_a_callable_module_with_methods():
    model = tsjit.load(str(COMPOSITE))
    assert isinstance(model, ScriptModule)
    forward, score = recorded(COMPOSITE)[0], recorded(COMPOSITE)[2]
    x, k = (decode_value(v) for v in forward["inputs"])
    assert match_value(model(x, k), decode_value(forward["outputs"]), 1e-4, 1e-5) is None
    assert match_value(model(x), model(x, k=1), 0, 0) is None  # k's default is 1
    inputs = [decode_value(v) for v in score["inputs"]]
    assert match_value(model.score(*inputs), decode_value(score["outputs"]), 1e-4, 1e-5) is None


def test_code_compiles_on_first_use():
    model = tsjit.load(str(COMPOSITE))
    assert not list(model.module.ops)
    assert isinstance(model.graph, func.FuncOp) and model.graph.sym_name.data == "forward"
    assert model.code.startswith(
        "def forward(self,\n    x: Tensor,\n    k: int) -> __torch__.archive_models.Stats:"
    )
    assert "__torch__.archive_models.Composite.score" not in {op.sym_name.data for op in model.module.ops}
    assert isinstance(model.score.graph, func.FuncOp)


def test_submodules_parameters_buffers_and_attributes():
    model = tsjit.load(str(COMPOSITE))
    assert [name for name, _ in model.named_children()] == ["blocks", "head"]
    assert model.weights == {"a": 0.25, "b": 1.5} and model.sizes == [2, 3]
    assert model.state.attributes["name"] == "composite"  # `name` is the entry's name, as for functions
    block = model.blocks[0]
    assert isinstance(block, ScriptModule) and block.scale == 0.5
    assert model.train().blocks[1].training and not model.eval().head[0].training
    x = np.ones((2, 6), np.float32)
    np.testing.assert_allclose(block(x), np.maximum(x @ block.fc.weight.T + block.fc.bias, 0) * 0.5 + block.shift,
                               rtol=1e-6)  # fmt: skip
    state = model.state_dict()
    assert list(state)[:3] == ["table", "blocks.0.fc.weight", "blocks.0.fc.bias"]
    np.testing.assert_array_equal(state["row"], state["table"][1])
    assert np.shares_memory(state["row"], state["table"]) and np.shares_memory(
        state["table_t"], state["table"]
    )


def test_the_archive_record():
    model = tsjit.load(str(DATA / "models" / "versioned.pt"))
    assert model.archive.version == 10 and model.archive.name == "versioned"


def test_the_version_may_be_under_dot_data(tmp_path: Path):
    def move(name: str, data: bytes) -> bytes | None:
        return None if name == "version" else data

    path = rewrite(DATA / "conformance" / "arith_basic.pt", tmp_path / "m.pt", move)
    with zipfile.ZipFile(path, "a") as archive:
        archive.writestr("arith_basic/.data/version", b"6\n")
    assert tsjit.load(str(path)).archive.version == 6


def test_extra_files_are_read(tmp_path: Path):
    path = tmp_path / "m.pt"
    tsjit.save(tsjit.load(str(DATA / "conformance" / "arith_basic.pt")), path, {"notes.txt": b"hello"})
    assert tsjit.load(str(path)).archive.extra_files == {"notes.txt": b"hello"}


# --------------------------------------------------------------------------------------
# Bad input
# --------------------------------------------------------------------------------------


def damaged(tmp_path: Path, change) -> Path:
    return rewrite(DATA / "conformance" / "module_linear_relu.pt", tmp_path / "model.pt", change)


def message(path: Path) -> str:
    with pytest.raises(ArchiveError) as error:
        model = tsjit.load(str(path))
        model.entry  # noqa: B018 - compiles forward
    text = error.value.format()
    assert "\n" not in text
    return text.removeprefix(f"{path}: error: ")


def test_a_missing_data_pickle(tmp_path: Path):
    path = damaged(tmp_path, lambda name, data: None if name == "data.pkl" else data)
    assert message(path) == "module_linear_relu/data.pkl: missing from the archive"


def test_a_version_newer_than_supported(tmp_path: Path):
    path = damaged(tmp_path, lambda name, data: b"11\n" if name == "version" else data)
    assert (
        message(path) == "module_linear_relu/version: archive version 11 is newer than tsjit reads (3 to 10)"
    )


def test_a_version_older_than_supported(tmp_path: Path):
    path = damaged(tmp_path, lambda name, data: b"2\n" if name == "version" else data)
    assert "archive version 2 is older than tsjit reads" in message(path)


def test_code_that_does_not_compile_names_the_member_and_line(tmp_path: Path):
    path = damaged(tmp_path, lambda name, data: data.replace(b"torch.relu", b"torch.relux"))
    assert message(path) == (
        "module_linear_relu/code/__torch__/source_module_linear_relu.py:10:12: unknown builtin op: aten::relux"
    )


def test_a_syntax_error_names_the_member_and_line(tmp_path: Path):
    path = damaged(
        tmp_path,
        lambda name, data: data.replace(b"def forward", b"def forward(") if name.endswith(".py") else data,
    )
    assert message(path).startswith("module_linear_relu/code/__torch__/")
    assert ":7:14: syntax error: '(' was never closed" in message(path)


def test_an_object_whose_attributes_differ_from_its_class(tmp_path: Path):
    def change(name: str, data: bytes) -> bytes:
        return (
            data.replace(b"  bias : Tensor\n", b"  bias : Tensor\n  scale : float\n")
            if name.endswith("linear.py")
            else data
        )

    assert message(damaged(tmp_path, change)) == (
        "module_linear_relu/data.pkl: an object of __torch__.torch.nn.modules.linear.Linear lacks ['scale']"
    )


def test_a_class_the_code_does_not_define(tmp_path: Path):
    path = damaged(tmp_path, lambda name, data: None if name.endswith("linear.py") else data)
    assert message(path) == (
        "module_linear_relu/code/__torch__/source_module_linear_relu.py:6:8: unknown type annotation "
        "'__torch__.torch.nn.modules.linear.Linear'"
    )


def test_operators_whose_meaning_changed_after_an_old_archive_are_refused(tmp_path: Path):
    source = DATA / "conformance" / "arith_basic.pt"
    path = rewrite(source, tmp_path / "model.pt", lambda name, data: b"3\n" if name == "version" else data)
    assert tsjit.load(str(source)).archive.version >= 4
    assert message(path).endswith(
        "aten::div.Tensor changed meaning in archive version 4; this archive is version 3 and tsjit has no upgraders for it"
    )


def test_a_torch_save_file_is_not_an_archive(tmp_path: Path):
    state = pickle.dumps(collections.OrderedDict(weight=1), protocol=2)
    path = damaged(tmp_path, lambda name, data: state if name == "data.pkl" else data)
    assert message(path) == (
        "module_linear_relu/data.pkl: the pickled root is a dict, not a module: not a TorchScript archive (torch.jit.save)"
    )
