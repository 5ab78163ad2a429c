"""Compiled programs across processes: what the llvm backend made of a graph for one
ArgumentSpec, so that the first call of a later process runs it without running the
pipeline, fusing, building kernels or printing IR.

    TSJIT_CACHE_DIR=/path/to/dir      # the kernel cache's directory (`kernel_cache`)

The persistent kernel cache alone skips LLVM, but the first call of a process still
specialized the graph (the executor's pipeline, fusion), built each kernel's IR and
printed it to find its key: 140 ms for the LSTM cell. A program entry holds the
specialized graph as it runs, its fusion groups outlined into functions, in the compact
form of `tsjit.formats.compact_ir`, keyed by the input graph (in that form), the entry
point, the ArgumentSpec, the executor's class, pipeline and policy, the target, and the
versions and sources of tsjit and xDSL; with it, the signature of each group's kernel.
Its kernels are stored beside it under keys derived from the program's key and their
place in it (`KernelCache.known_key`). The bodies of the groups that run as kernels are
stored apart and read only when the interpreter or a kernel build needs them
(`LoadedProgram`): the LSTM cell's first call then reads 10 ops, not 40. Entries share
the kernel cache's safety: written atomically, checked by checksum (a corrupt one is
discarded with a warning under `TSJIT_LOG_LEVEL=kernel_cache` and rebuilt), and a
directory that cannot be written means no cache.

Only executors whose specialization is determined by those parts take part: the llvm
backend's own classes, with passes of tsjit or xDSL (a plugin pass's code is not in
the key) and no autograd.
"""

from __future__ import annotations

import os
import pickle
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from functools import cache, cached_property, partial
from typing import Any

import xdsl
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp
from xdsl.passes import ModulePass

from tsjit.context import TSContext, dialect_factories, make_context
from tsjit.formats.compact_ir import dump_module, load_module
from tsjit.runtime.kernel_cache import KernelCache, log_detail


class ProgramCache:
    """The compiled programs of one executor's graph, in `cache`."""

    def __init__(self, cache: KernelCache, module: ModuleOp, entry: str, describe: Sequence[Any]):
        self.cache = cache
        self.module = module
        self.entry = entry
        self.describe = tuple(describe)
        """What, besides the graph and the ArgumentSpec, the specialization depends on."""

    @cached_property
    def graph(self) -> bytes | None:
        """The input graph in compact form (the executor never modifies it); None when
        it has none."""
        try:
            return dump_module(self.module)
        except Exception as e:  # noqa: BLE001 -- NotCompact, or any failure: then no program cache
            log_detail(f"no program cache for @{self.entry}: {type(e).__name__}: {e}")
            return None

    def key(self, spec: Any) -> str | None:
        """The key of the program for ArgumentSpec `spec`; None: not cached."""
        graph = self.graph
        return None if graph is None else self.cache.program_key(graph, self.entry, spec, *self.describe)

    def load(self, key: str) -> LoadedProgram | None:
        """The specialized module stored under `key`, or None."""
        data = self.cache.load_program(key)
        if data is None:
            return None
        try:
            stored = pickle.loads(data)  # noqa: S301 -- our own cache, beside the code it runs
            module = load_module(_reading_context, stored["module"])
            facts, bodies = stored["facts"], stored["bodies"]
        except Exception as e:  # noqa: BLE001 -- whatever a damaged entry raises: it is rebuilt
            self.cache.discard(self.cache.program_path(key), f"unreadable program ({type(e).__name__}: {e})")
            return None
        if not isinstance(module, ModuleOp) or not isinstance(facts, dict) or not isinstance(bodies, dict):
            self.cache.discard(self.cache.program_path(key), "not a program")
            return None
        functions = {op.sym_name.data for op in module.ops if isinstance(op, FuncOp)}
        if self.entry not in functions:
            self.cache.discard(self.cache.program_path(key), f"no function '{self.entry}' in the program")
            return None
        if any(name not in functions or not isinstance(body, bytes) for name, body in bodies.items()):
            self.cache.discard(self.cache.program_path(key), "a stored body of no function in the program")
            return None
        loaders = {name: partial(_load_function, body) for name, body in bodies.items()}
        return LoadedProgram(module, facts, loaders)

    def dump(self, key: str, module: ModuleOp, lazy: Collection[str] = ()) -> StoredProgram | None:
        """The module's compact form, with the functions `lazy` names apart (see
        `LoadedProgram.bodies`); None when it has none (logged)."""
        ctx = _context()
        try:
            bodies = {
                op.sym_name.data: dump_module(op, ctx)
                for op in module.ops
                if isinstance(op, FuncOp) and op.sym_name.data in lazy
            }
            return StoredProgram(dump_module(module, ctx, declare=bodies), bodies)
        except Exception as e:  # noqa: BLE001 -- NotCompact, or any failure: the cache is never the caller's failure
            log_detail(f"program {key[:16]} not stored: {type(e).__name__}: {e}")
            return None

    def store(self, key: str, program: StoredProgram, facts: dict[str, Any]) -> None:
        """Stores a specialized module (`dump`) with `facts`, what its program worked
        out about it that costs more to work out again than to read (the signatures of
        its fusion groups' kernels)."""
        try:
            data = pickle.dumps({"module": program.module, "bodies": program.bodies, "facts": facts})
        except Exception as e:  # noqa: BLE001 -- whatever cannot be pickled is not stored
            log_detail(f"program {key[:16]} not stored: {type(e).__name__}: {e}")
            return
        self.cache.store_program(key, data)


@dataclass(frozen=True)
class StoredProgram:
    """A module in compact form, and apart from it the bodies of the functions it
    declares only (`dump_module(..., declare=...)`)."""

    module: bytes
    bodies: dict[str, bytes]


@dataclass(frozen=True)
class LoadedProgram:
    """A program read back: the module, the facts stored with it, and by name a loader
    of each function the module only declares. A program's fused groups run as native
    kernels: the bodies of their functions, which the interpreter runs only when a
    kernel cannot take its arguments, are loaded then, not with the program (a quarter
    of loading the LSTM cell's, with the op classes their ops need)."""

    module: ModuleOp
    facts: dict[str, Any]
    bodies: dict[str, Callable[[], FuncOp]]


def _load_function(data: bytes) -> FuncOp:
    function = load_module(_reading_context, data)
    if not isinstance(function, FuncOp):
        raise ValueError("a stored function body is not a function")
    return function


def program_cache(
    cache: KernelCache | None, module: ModuleOp, entry: str, passes: Sequence[ModulePass], *describe: Any
) -> ProgramCache | None:
    """The program cache of an executor running `passes`, or None when the cache is
    off or a pass's code is outside what the key covers (tsjit's and xDSL's)."""
    if cache is None:
        return None
    for pass_ in passes:
        origin = type(pass_).__module__.partition(".")[0]
        if origin not in ("tsjit", "xdsl") or " at 0x" in repr(pass_):
            return None
    return ProgramCache(cache, module, entry, (*map(repr, passes), *describe, _xdsl_identity()))


@cache
def _xdsl_identity() -> str:
    """xDSL's installed copy, by its package file's size and time: `xdsl.__version__`
    reads the package metadata, whose import alone costs more than a cached call."""
    stat = os.stat(xdsl.__file__)
    return f"xdsl {stat.st_size}:{stat.st_mtime_ns}"


@cache
def _context() -> Context:
    """One context for checking what programs are stored as: its dialects load once
    per process."""
    return make_context()


@cache
def _reading_context() -> Context:
    """One context for reading programs, made only for ops found by name (aten's):
    each dialect loads when one of its ops or attributes is first asked for, not the
    builtin dialect up front (`make_context`), whose attributes a program's reader
    finds by class."""
    ctx = TSContext()
    for name, factory in dialect_factories().items():
        ctx.register_dialect(name, factory)
    return ctx
