"""A tool run through the fork server (tsjit.tools.launch) behaves as one run on its own:
same output, errors, exit status, working directory and standard input."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tsjit.tools.launch import SERVER_VARIABLE

BIN = Path(sys.executable).parent
PROGRAM = """\
func.func @f(%x: !ts.tensor) -> !ts.tensor {
  %0 = aten.neg %x : (!ts.tensor) -> !ts.tensor
  %1 = aten.neg %x : (!ts.tensor) -> !ts.tensor
  func.return %0 : !ts.tensor
}
"""


LINEAGE_PLUGIN = """\
import os
from dataclasses import dataclass
from tsjit.transforms.pass_logging import TsjitPass

with open(os.environ["LINEAGE_FILE"], "w") as out:
    parent = os.getppid()
    with open(f"/proc/{parent}/stat") as stat:
        out.write(f"{os.getpid()} {parent} {stat.read().rpartition(')')[2].split()[1]}")

@dataclass(frozen=True)
class RecordLineage(TsjitPass):
    name = "record-lineage"

    def run(self, ctx, op):
        pass
"""
"""A pass plugin that writes its process, parent and grandparent ids."""


@dataclass
class Server:
    path: str
    pid: int


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    path = str(tmp_path_factory.mktemp("server") / "tools.sock")
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as listener:
        listener.bind(path)
        listener.listen(8)
        process = subprocess.Popen(
            [sys.executable, "-m", "tsjit.tools.launch", "--serve-fd", str(listener.fileno())],
            pass_fds=[listener.fileno()],
            stdin=subprocess.DEVNULL,
        )
    yield Server(path, process.pid)
    process.terminate()
    process.wait()


def run(tool: str, *args: str, server: str | None, cwd: Path | None = None, **env: str) -> subprocess.CompletedProcess[str]:
    environment = {key: value for key, value in os.environ.items() if key != SERVER_VARIABLE}
    if server is not None:
        environment[SERVER_VARIABLE] = server
    environment.update(env)
    return subprocess.run([str(BIN / tool), *args], input=PROGRAM, capture_output=True, text=True, env=environment, cwd=cwd, timeout=120)


def test_runs_in_a_child_of_the_server(server: Server, tmp_path: Path):
    plugin = tmp_path / "lineage.py"
    plugin.write_text(LINEAGE_PLUGIN)
    lineage = tmp_path / "lineage"
    served = run("ts-opt", "-", "--load-pass-plugin", str(plugin), "-p", "record-lineage", server=server.path, LINEAGE_FILE=str(lineage))
    assert served.returncode == 0, served.stderr
    _, _, grandparent = lineage.read_text().split()
    assert int(grandparent) == server.pid
    alone = run("ts-opt", "-", "--load-pass-plugin", str(plugin), "-p", "record-lineage", server=None, LINEAGE_FILE=str(lineage))
    assert alone.returncode == 0, alone.stderr
    _, parent, grandparent = lineage.read_text().split()
    assert server.pid not in (int(parent), int(grandparent))


def test_same_output_and_status_as_alone(server: Server):
    alone = run("ts-opt", "-", "-p", "cse", server=None)
    served = run("ts-opt", "-", "-p", "cse", server=server.path)
    assert alone.returncode == served.returncode == 0
    assert served.stdout == alone.stdout
    assert served.stdout.count("aten.neg") == 1


def test_errors_and_exit_status(server: Server):
    served = run("ts-opt", "-", "-p", "no-such-pass", server=server.path)
    assert served.returncode == 1
    assert served.stdout == ""
    assert served.stderr.startswith("pass-pipeline:1:1: error: unknown pass 'no-such-pass'")
    assert "Traceback" not in served.stderr


def test_working_directory_and_output_file(server: Server, tmp_path: Path):
    served = run("ts-opt", "-", "-o", "out.mlir", server=server.path, cwd=tmp_path)
    assert served.returncode == 0, served.stderr
    assert "aten.neg" in (tmp_path / "out.mlir").read_text()


def test_another_python_path_runs_alone(server: Server):
    # The client's PYTHONPATH brings a pass plugin the server never imported: the server
    # declines, and the tool starts on its own and finds the plugin.
    examples = Path(__file__).parents[3] / "docs" / "examples"
    python_path = os.pathsep.join([str(examples), str(examples / "plugin_site")])
    served = run("ts-opt", "--list-passes", server=server.path, PYTHONPATH=python_path)
    assert served.returncode == 0, served.stderr
    assert "remove-double-negation" in served.stdout


def test_no_server_runs_alone(tmp_path: Path):
    served = run("ts-translate", "--version", server=str(tmp_path / "nobody-listens.sock"))
    assert served.returncode == 0
    assert served.stdout.startswith("ts-translate (tsjit ")
