"""fork and wait: forked calls run on the pool, overlap, propagate their exceptions at
`wait`, and never deadlock a bounded pool (a call nobody started runs in its waiter);
forked code compiled from TorchScript runs the same way, and so does the eager shim's
`torch.jit.fork`."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from tsjit.frontend import torch_shim as torch
from tsjit.frontend.script import script_file_text
from tsjit.runtime import futures
from tsjit.runtime.errors import TorchScriptError


@pytest.fixture
def pool_of(request: pytest.FixtureRequest):
    """A pool of the requested size for one test, the default one restored after."""
    saved = futures.get_num_interop_threads()
    yield lambda threads: futures.set_num_interop_threads(threads)
    futures.set_num_interop_threads(saved)


def test_two_forked_calls_run_at_the_same_time(pool_of):
    pool_of(2)
    both_running = threading.Barrier(3, timeout=10)

    def meet() -> str:
        both_running.wait()  # only passes when both calls and the caller are here at once
        return threading.current_thread().name

    first, second = futures.fork(meet, ()), futures.fork(meet, ())
    both_running.wait()
    names = {first.wait(), second.wait()}
    assert len(names) == 2 and threading.current_thread().name not in names


def test_an_exception_reaches_the_waiter():
    future = futures.fork(lambda: 1 // 0, ())
    with pytest.raises(ZeroDivisionError):
        future.wait()
    with pytest.raises(ZeroDivisionError):  # and again on every wait
        future.wait()


def test_nested_forks_on_one_thread_do_not_deadlock(pool_of):
    """The only worker runs `outer`, which waits for a call queued behind it: that call
    runs in `outer`'s own thread instead of waiting for a free worker."""
    pool_of(1)

    def leaf(n: int) -> int:
        return n * n

    def outer() -> int:
        inner = [futures.fork(leaf, (n,)) for n in range(4)]
        return sum(f.wait() for f in inner)

    assert futures.fork(outer, ()).wait() == 14


def test_the_pool_size_must_be_positive(pool_of):
    with pytest.raises(ValueError, match="must be positive"):
        pool_of(0)


SOURCE = """
import torch
from torch import Tensor
from typing import List


def square(x: Tensor) -> Tensor:
    return x * x


def checked(x: Tensor) -> Tensor:
    if bool(x.sum() > 10.0):
        raise ValueError("too large")
    return x


def forward(x: Tensor, n: int) -> Tensor:
    futures: List[torch.jit.Future[Tensor]] = []
    for i in range(n):
        futures.append(torch.jit.fork(square, x + i))
    total = torch.jit.wait(torch.jit.fork(checked, x))
    for f in futures:
        total = total + torch.jit.wait(f)
    return total
"""


def test_scripted_forks_compute_what_python_computes_and_raise_at_wait():
    scripted = script_file_text(SOURCE, "forks.py")
    x = np.array([1.0, 2.0], dtype=np.float32)
    expected = x + sum((x + i) ** 2 for i in range(3))
    np.testing.assert_allclose(scripted(x, 3), expected, rtol=1e-6)
    with pytest.raises(TorchScriptError) as info:
        scripted(x * 10, 1)
    assert (info.value.kind, info.value.message) == ("ValueError", "too large")


def test_the_shims_fork_runs_eagerly_on_the_pool():
    x = torch.tensor([1.0, 2.0])
    future = torch.jit.fork(torch.mul, x, other=3.0)
    assert isinstance(future, torch.jit.Future)
    np.testing.assert_allclose(torch.jit.wait(future).array, [3.0, 6.0])
