"""The pass runtime: PyTorch's log-level and opt-limit grammars, the TsjitPass scope
(dumps, update lines, rewrite limits, the paused collector), and run_pass for
pipelines, xDSL's passes included."""

from __future__ import annotations

import gc
from dataclasses import dataclass

import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.transforms.dead_code_elimination import DeadCodeElimination

from tsjit.context import make_context
from tsjit.diagnostics import TsjitError
from tsjit.formats import read_program
from tsjit.transforms.pass_logging import (
    LogLevel,
    TsjitPass,
    allow_rewrite,
    dump_after,
    log_debug,
    observe_passes,
    parse_log_levels,
    parse_opt_limits,
    run_pass,
)

GRAPH = """graph(%x : Tensor):
  %a : Tensor = aten::exp(%x)
  %b : Tensor = aten::exp(%a)
  %c : Tensor = aten::exp(%b)
  return (%x)"""


class EraseUnusedExp(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if op.name == "aten.exp" and not any(r.uses for r in op.results):
            rewriter.erase(op)


@dataclass(frozen=True)
class EraseExpPass(TsjitPass):
    name = "erase-exp"

    def run(self, ctx: Context, op: ModuleOp) -> None:
        log_debug("starting")
        self.rewrite(op, [EraseUnusedExp()], walk_reverse=True)


@dataclass(frozen=True)
class FailingPass(TsjitPass):
    name = "failing"

    def run(self, ctx: Context, op: ModuleOp) -> None:
        raise RuntimeError("boom")


def module() -> ModuleOp:
    return read_program(make_context(), GRAPH)


def exps(m: ModuleOp) -> int:
    return sum(op.name == "aten.exp" for op in m.walk())


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for variable in ("TSJIT_LOG_LEVEL", "PYTORCH_JIT_LOG_LEVEL", "TSJIT_OPT_LIMIT", "PYTORCH_JIT_OPT_LIMIT"):
        monkeypatch.delenv(variable, raising=False)


def test_log_level_grammar():
    assert parse_log_levels(">>dead_code_elimination.cpp::peephole:>cse") == {
        "dead_code_elimination": LogLevel.DEBUG,
        "peephole": LogLevel.DUMP,
        "cse": LogLevel.UPDATE,
    }
    assert parse_log_levels(">>>remove-mutation") == {"remove_mutation": LogLevel.DEBUG}
    assert parse_log_levels("") == {}


def test_opt_limit_grammar():
    assert parse_opt_limits("TSJIT_OPT_LIMIT", "peephole=2:dead-code-elimination=0") == {
        "peephole": 2,
        "dead_code_elimination": 0,
    }
    with pytest.raises(TsjitError) as error:
        parse_opt_limits("PYTORCH_JIT_OPT_LIMIT", "peephole=2:inline=x")
    assert str(error.value) == "PYTORCH_JIT_OPT_LIMIT: entry 'inline=x' is not of the form pass=N"


def test_nothing_is_logged_unless_asked(capsys: pytest.CaptureFixture[str]):
    m = module()
    EraseExpPass().apply(Context(), m)
    assert exps(m) == 0
    assert capsys.readouterr().err == ""


def test_levels_by_module_stem_or_pass_name(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
):
    monkeypatch.setenv("TSJIT_LOG_LEVEL", "erase-exp")
    EraseExpPass().apply(Context(), module())
    err = capsys.readouterr().err
    assert err.startswith("[DUMP test_logging] After erase-exp:\n[DUMP test_logging] builtin.module {\n")
    assert "UPDATE" not in err

    monkeypatch.setenv("TSJIT_LOG_LEVEL", ">>test_logging")
    EraseExpPass().apply(Context(), module())
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == "[DEBUG test_logging] starting"
    assert lines[1:4] == [  # each op at its own line of the graph text, the unused last first
        f"[UPDATE test_logging] aten.exp at <stdin>:{line}:17: rewritten by EraseUnusedExp" for line in (4, 3, 2)
    ]
    assert lines[4] == "[DUMP test_logging] After erase-exp:"


def test_tsjit_variables_win_over_pytorch_ones(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
):
    monkeypatch.setenv("PYTORCH_JIT_LOG_LEVEL", "erase_exp")
    EraseExpPass().apply(Context(), module())
    assert "[DUMP test_logging]" in capsys.readouterr().err
    monkeypatch.setenv("TSJIT_LOG_LEVEL", "peephole")
    EraseExpPass().apply(Context(), module())
    assert capsys.readouterr().err == ""


def test_limits_count_rewrites_across_runs_of_a_setting(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("TSJIT_OPT_LIMIT", "erase-exp=2:peephole=7")
    first, second = module(), module()
    EraseExpPass().apply(Context(), first)
    EraseExpPass().apply(Context(), second)
    assert (exps(first), exps(second)) == (1, 3)  # two rewrites in the process, as PyTorch counts
    monkeypatch.setenv("PYTORCH_JIT_OPT_LIMIT", "erase_exp=0")
    monkeypatch.setenv("TSJIT_OPT_LIMIT", "erase_exp=1:peephole=7")
    third = module()
    EraseExpPass().apply(Context(), third)
    assert exps(third) == 2  # a new setting counts afresh


def test_rewrites_outside_a_pass_are_always_allowed():
    assert allow_rewrite()


def test_the_collector_pauses_during_a_pass_only():
    seen: list[bool] = []

    @dataclass(frozen=True)
    class Probe(TsjitPass):
        name = "probe"

        def run(self, ctx: Context, op: ModuleOp) -> None:
            seen.append(gc.isenabled())

    assert gc.isenabled()
    Probe().apply(Context(), module())
    with pytest.raises(RuntimeError):
        FailingPass().apply(Context(), module())
    assert seen == [False] and gc.isenabled()


def test_run_pass_dumps_xdsl_passes_and_tells_observers(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
):
    monkeypatch.setenv("TSJIT_LOG_LEVEL", "dce:erase_exp")
    seen: list[str] = []
    m = module()
    with observe_passes(lambda p, _: seen.append(p.name)):
        run_pass(DeadCodeElimination(), Context(), m)
        run_pass(EraseExpPass(), Context(), m)
    run_pass(EraseExpPass(), Context(), m)
    assert seen == ["dce", "erase-exp"]
    err = capsys.readouterr().err
    assert "[DUMP dead_code_elimination] After dce:" in err
    assert err.count("[DUMP test_logging] After erase-exp:") == 2


def test_drivers_dump_after_xdsl_passes_they_apply(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
):
    monkeypatch.setenv("TSJIT_LOG_LEVEL", "dce:erase-exp")
    m = module()
    dump_after(DeadCodeElimination(), m)
    dump_after(EraseExpPass(), m)  # dumps itself when it runs
    err = capsys.readouterr().err
    assert err.startswith("[DUMP dead_code_elimination] After dce:\n")
    assert "erase-exp" not in err
