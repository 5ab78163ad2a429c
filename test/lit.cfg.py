"""lit configuration: FileCheck tests of tsjit's tools over textual IR."""

import atexit
import os
import shutil
import socket
import subprocess
import sys
import tempfile

import lit.formats

config.name = "tsjit"
config.test_format = lit.formats.ShTest()
config.suffixes = [".mlir", ".txt"]
config.excludes = ["lit.cfg.py", "Inputs", "inputs"]
config.test_source_root = os.path.dirname(__file__)

# Tools come from the environment running lit (the project venv under `make test`).
venv = os.environ.get("VIRTUAL_ENV")
here_venv = os.path.join(os.path.dirname(config.test_source_root), ".venv", "bin")
path = [os.path.join(venv, "bin")] if venv else []
path += [here_venv, os.environ.get("PATH", "")]
config.environment["PATH"] = os.pathsep.join(path)
for var in ("HOME", "TMPDIR", "LANG", "LC_ALL", "TSJIT_LOG_LEVEL", "TSJIT_OPT_LIMIT"):
    if var in os.environ:
        config.environment[var] = os.environ[var]
# The tools share a kernel cache of this run's own, never the user's.
config.environment["TSJIT_CACHE_DIR"] = tempfile.mkdtemp(prefix="tsjit-lit-cache-")
atexit.register(shutil.rmtree, config.environment["TSJIT_CACHE_DIR"], True)

# The tools, and FileCheck, start as children of a fork server that has xDSL, tsjit and
# FileCheck imported (tsjit.tools.launch): same behaviour, a tenth of the start-up. Without
# the server (lit run by an interpreter that cannot import tsjit) they start on their own.
_server_dir = tempfile.mkdtemp(prefix="tsjit-lit-tools-")
atexit.register(shutil.rmtree, _server_dir, True)
_filecheck = os.path.join(_server_dir, "filecheck")
with open(_filecheck, "w") as _script:
    _script.write(f"#!{sys.executable}\nfrom tsjit.tools.launch import launch\nlaunch('filecheck')\n")
os.chmod(_filecheck, 0o755)
config.environment["PATH"] = os.pathsep.join([_server_dir, config.environment["PATH"]])
config.environment["TSJIT_TOOL_SERVER"] = os.path.join(_server_dir, "tools.sock")
with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as _listener:
    _listener.bind(config.environment["TSJIT_TOOL_SERVER"])
    _listener.listen(64)
    _server = subprocess.Popen(
        [sys.executable, "-m", "tsjit.tools.launch", "--serve-fd", str(_listener.fileno())],
        pass_fds=[_listener.fileno()],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        env=config.environment,  # the tests' own, or it declines their requests
    )
atexit.register(_server.terminate)

config.substitutions.append(("%archives", os.path.join(config.test_source_root, "data", "archives")))
config.substitutions.append(("%conformance", os.path.join(os.path.dirname(config.test_source_root), "..", "shared", "conformance")))
# custom syntax -> generic syntax -> custom syntax must reproduce what the test checks
config.substitutions.append(
    (
        "TS_ROUNDTRIP",
        "ts-opt %s --split-input-file --print-op-generic | ts-opt --split-input-file | filecheck %s",
    )
)
config.substitutions.append(
    (
        "TS_GENERIC_ROUNDTRIP",
        "ts-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=CHECK-GENERIC",
    )
)
