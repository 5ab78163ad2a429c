"""Fuzz inputs run in worker processes, so that a hang is a timeout and a crash of the
interpreter (native code that faults) is a result rather than the end of the fuzzer.

    with Workers(jobs=2, timeout=20) as workers:
        for job, outcome in workers.run(jobs):    # jobs: ("read", kind, text) or ("program", spec)
            ...

A worker says `ready` once its imports are done (start-up is no job's time), then reads
one JSON job per line on stdin and writes one JSON outcome per line on a private copy of
stdout (what the program under test prints goes to /dev/null). A job
that runs past `timeout` seconds is reported as `hang` (with the worker's Python stack
at the time) and its worker replaced; a worker that dies is reported as `died`.
"""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import sys
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


class Worker:
    def __init__(self, timeout: float):
        self.timeout = timeout
        self.process = subprocess.Popen(
            [sys.executable, str(HERE / "workers.py"), str(timeout)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        self.job: Any = None
        self.started = 0.0
        assert self.process.stdout is not None
        self.process.stdout.readline()  # "ready": start-up is not part of the first job's time

    def send(self, job: Any) -> None:
        self.job, self.started = job, time.monotonic()
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(job) + "\n")
        self.process.stdin.flush()

    def stop(self) -> str:
        """Kills the worker; returns what it wrote on stderr (a hang's stack dump)."""
        self.process.kill()
        try:
            _, err = self.process.communicate(timeout=10)
        except (subprocess.TimeoutExpired, ValueError):
            err = ""
        return err or ""


RECYCLE_AFTER = 2000
"""Jobs a worker runs before a fresh one replaces it: a process keeps the native kernels
it compiled (about 1.6 MB per random program), and a worker of the full run grew to
20 GB before the kernel killed it."""


class Workers:
    """`jobs` worker processes, each job limited to `timeout` seconds."""

    def __init__(self, jobs: int = 1, timeout: float = 20.0):
        self.count = max(1, jobs)
        self.timeout = timeout
        self.workers: list[Worker] = []
        self.runs: dict[int, int] = {}

    def __enter__(self) -> Workers:
        self.workers = [Worker(self.timeout) for _ in range(self.count)]
        return self

    def __exit__(self, *exc: object) -> None:
        for worker in self.workers:
            worker.stop()

    def run(self, jobs: Iterable[Any]) -> Iterator[tuple[Any, dict[str, Any]]]:
        """(job, outcome) for every job, in the order they finish."""
        pending = iter(jobs)
        selector = selectors.DefaultSelector()
        busy: dict[int, Worker] = {}

        def start(worker: Worker) -> bool:
            job = next(pending, None)
            if job is None:
                return False
            worker.send(job)
            assert worker.process.stdout is not None
            selector.register(worker.process.stdout, selectors.EVENT_READ, worker)
            busy[id(worker)] = worker
            return True

        for worker in self.workers:
            start(worker)
        while busy:
            now = time.monotonic()
            wait = min(w.started + w.timeout for w in busy.values()) - now
            events = selector.select(timeout=max(0.0, wait))
            done: list[tuple[Worker, dict[str, Any]]] = []
            for key, _ in events:
                worker = key.data
                line = worker.process.stdout.readline()  # pyright: ignore[reportOptionalMemberAccess]
                if line:
                    done.append((worker, json.loads(line)))
                else:
                    done.append((worker, {"kind": "died", "detail": f"exit status {worker.process.poll()}"}))
            now = time.monotonic()
            for worker in list(busy.values()):
                if worker not in [w for w, _ in done] and now - worker.started > worker.timeout:
                    done.append((worker, {"kind": "hang", "detail": f"over {worker.timeout:.0f} s"}))
            for worker, outcome in done:
                selector.unregister(worker.process.stdout)  # pyright: ignore[reportArgumentType]
                del busy[id(worker)]
                job = worker.job
                if outcome["kind"] in ("hang", "died"):
                    stack = worker.stop()
                    outcome["detail"] += "\n" + stack[-3000:]
                    outcome["signature"] = f"{outcome['kind']} {_last_frame(stack)}"
                    worker = self._replace(worker)
                elif (runs := self.runs.get(id(worker), 0) + 1) >= RECYCLE_AFTER:
                    worker.stop()
                    worker = self._replace(worker)
                else:
                    self.runs[id(worker)] = runs
                yield job, outcome
                start(worker)

    def _replace(self, worker: Worker) -> Worker:
        replacement = Worker(self.timeout)
        self.workers[self.workers.index(worker)] = replacement
        self.runs.pop(id(worker), None)
        return replacement


def _last_frame(stack: str) -> str:
    """The innermost `File ... line ...` of a faulthandler dump (its first frame)."""
    for line in stack.splitlines():
        line = line.strip()
        if line.startswith("File "):
            return line.split("/")[-1]
    return "?"


# --------------------------------------------------------------------------------------
# The worker process
# --------------------------------------------------------------------------------------


def _serve(timeout: float) -> None:
    import faulthandler

    protocol = os.fdopen(os.dup(1), "w", buffering=1)
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)  # the program's own output goes nowhere
    sys.stdout = open(os.devnull, "w")  # noqa: SIM115 -- for the life of the worker
    sys.path.insert(0, str(HERE))
    from programs import run_program  # pyright: ignore[reportMissingImports]
    from readers import read  # pyright: ignore[reportMissingImports]

    import tsjit.frontend.script  # noqa: F401 -- what every program job imports, loaded once
    import tsjit.runtime.llvm_jit  # noqa: F401

    protocol.write("ready\n")
    for line in sys.stdin:
        job = json.loads(line)
        faulthandler.dump_traceback_later(timeout * 0.9, exit=False)  # a hang's stack, for the report
        if job[0] == "read":
            outcome = read(job[1], job[2])
            result = {"kind": outcome.kind, "detail": outcome.detail, "signature": outcome.signature}
        else:
            result = run_program(job[1])
        faulthandler.cancel_dump_traceback_later()
        protocol.write(json.dumps(result) + "\n")


if __name__ == "__main__":
    _serve(float(sys.argv[1]))
