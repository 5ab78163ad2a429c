"""lit configuration: FileCheck tests of tsjit's tools over textual IR."""

import atexit
import os
import shutil
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
