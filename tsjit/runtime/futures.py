"""`fork` and `wait`: forked calls run on a pool of threads (TorchScript's inter-op
thread pool).

`fork(function, args)` queues the call and returns its `Future` at once; a worker
thread runs it. `Future.wait()` returns the value or raises the call's exception in the
waiting thread, as PyTorch's `torch.jit.wait` does. A call nobody has started yet when
it is waited for runs in the waiting thread itself, so forked code may fork and wait in
turn without a bounded pool ever deadlocking (futures form a DAG: a running call only
waits for calls that run, or that it runs). Native kernels and numpy release the GIL,
so forked tensor work overlaps.

    future = fork(code.invoke, (x,))
    y = future.wait()
"""

from __future__ import annotations

import os
import queue
import threading
from collections.abc import Callable, Sequence
from typing import Any

from tsjit.runtime.float_errors import ignore_float_errors, restore_float_errors

_PENDING, _RUNNING, _DONE = 0, 1, 2


class Future:
    """The result of a forked call: pending, running, then done with a value or an
    exception."""

    __slots__ = ("_args", "_done", "_error", "_function", "_lock", "_state", "_value")

    def __init__(self, function: Callable[..., Any], args: Sequence[Any]):
        self._function: Callable[..., Any] | None = function
        self._args: Sequence[Any] = args
        self._state = _PENDING
        self._value: Any = None
        self._error: BaseException | None = None
        self._lock = threading.Lock()
        self._done = threading.Event()

    def run(self) -> None:
        """Runs the call unless some thread already started it."""
        with self._lock:
            if self._state != _PENDING:
                return
            self._state = _RUNNING
        function, args = self._function, self._args
        self._function, self._args = None, ()  # the future keeps only the result alive
        token = ignore_float_errors()  # numpy's error state is per thread
        try:
            assert function is not None
            self._value = function(*args)
        except BaseException as error:  # noqa: BLE001 -- re-raised by wait() in the waiting thread
            self._error = error
        finally:
            restore_float_errors(token)
            self._state = _DONE
            self._done.set()

    def done(self) -> bool:
        return self._state == _DONE

    def wait(self) -> Any:
        self.run()  # not started yet: run it here rather than wait for a worker
        self._done.wait()
        if self._error is not None:
            raise self._error
        return self._value


class ForkPool:
    """Worker threads taking forked calls from a queue; a worker is started when more
    calls wait than workers are idle (up to `threads` workers)."""

    def __init__(self, threads: int):
        self.threads = max(1, threads)
        self._queue: queue.SimpleQueue[Future] = queue.SimpleQueue()
        self._workers: list[threading.Thread] = []
        self._idle = 0  # workers waiting for a call
        self._backlog = 0  # calls queued that no worker took yet
        self._lock = threading.Lock()

    def submit(self, function: Callable[..., Any], args: Sequence[Any]) -> Future:
        future = Future(function, args)
        with self._lock:
            self._backlog += 1
            if self._backlog > self._idle and len(self._workers) < self.threads:
                worker = threading.Thread(target=self._work, name=f"tsjit-fork-{len(self._workers)}", daemon=True)
                self._workers.append(worker)
                worker.start()
        self._queue.put(future)
        return future

    def _work(self) -> None:
        while True:
            with self._lock:
                self._idle += 1
            future = self._queue.get()
            with self._lock:
                self._idle -= 1
                self._backlog -= 1
            future.run()


_POOL = ForkPool(os.cpu_count() or 1)


def fork(function: Callable[..., Any], args: Sequence[Any]) -> Future:
    """Runs `function(*args)` on the fork pool; its Future at once."""
    return _POOL.submit(function, args)


def set_num_interop_threads(threads: int) -> None:
    """How many threads run forked calls (PyTorch's `torch.set_num_interop_threads`);
    calls already queued keep their place."""
    global _POOL
    if threads < 1:
        raise ValueError(f"the number of inter-op threads must be positive, got {threads}")
    _POOL = ForkPool(threads)


def get_num_interop_threads() -> int:
    return _POOL.threads
