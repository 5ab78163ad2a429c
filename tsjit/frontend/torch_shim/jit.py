"""`torch.jit` for programs written for TorchScript: the decorators mark functions, and
`torch.jit.script` hands them to tsjit."""

from __future__ import annotations

import builtins
import typing
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final, NamedTuple, TypeVar

if TYPE_CHECKING:
    from tsjit.runtime.futures import Future

__all__ = [
    "Attribute", "Final", "Future", "TracerWarning", "TracingCheckError", "annotate", "export", "fork", "ignore",
    "interface", "is_scripting", "is_tracing", "isinstance", "script", "trace", "unused", "wait",
]  # fmt: skip

T = TypeVar("T")


def script(obj: Any, *args: object, **kwargs: object) -> Any:
    from tsjit.frontend.script import script as tsjit_script

    return tsjit_script(obj)


def trace(fn: Any, example_inputs: Any, *args: object, **kwargs: Any) -> Any:
    """`torch.jit.trace` is `tsjit.trace`."""
    from tsjit.frontend.tracer import trace as tsjit_trace

    return tsjit_trace(fn, example_inputs, *args, **kwargs)


def is_tracing() -> bool:
    from tsjit.frontend.torch_shim._state import ACTIVE

    return ACTIVE.current() is not None


def export(fn: T) -> T:
    """Marks a module method to be compiled even if `forward` does not call it."""
    fn._tsjit_export = True  # pyright: ignore[reportAttributeAccessIssue]
    return fn


def ignore(fn: T = None, *, drop: bool = False) -> Any:  # pyright: ignore[reportArgumentType]
    """Leaves a function in Python; TorchScript code cannot call it (`drop=True`: it
    is `unused`, raising when called)."""
    if fn is None:
        return lambda f: ignore(f, drop=drop)
    if drop:
        return unused(fn)
    fn._tsjit_ignore = True  # pyright: ignore[reportAttributeAccessIssue]
    return fn


def unused(fn: T) -> T:
    """A method that compiles to `raise Exception` (TorchScript's `@torch.jit.unused`)."""
    fn._tsjit_unused = True  # pyright: ignore[reportAttributeAccessIssue]
    return fn


def _overload(func: T) -> T:
    """Declares one signature of an overloaded function (`torch.jit._overload`)."""
    from tsjit.frontend.torch_shim._builtins import overload

    return overload(func)


def annotate(the_type: object, value: T) -> T:
    """In Python the value itself; in TorchScript it gives `value` the type `the_type`."""
    return value


def is_scripting() -> bool:
    return False


def interface(cls: type) -> type:
    """Marks a class as a TorchScript interface: classes and modules with its methods
    (same signatures) can be used where it is expected."""
    cls._tsjit_interface = True  # pyright: ignore[reportAttributeAccessIssue]
    return cls


class Attribute(NamedTuple):
    """`self.x = torch.jit.Attribute(value, type)`: an attribute of a scripted module
    with the given type (an empty list or dict, say)."""

    value: Any
    type: Any


def fork(func: Callable[..., T], *args: Any, **kwargs: Any) -> Future:
    """Starts `func(*args, **kwargs)` on the inter-op thread pool; `wait` gives its value."""
    from tsjit.runtime.futures import fork as start

    return start(lambda: func(*args, **kwargs), ())


def wait(future: Future) -> Any:
    """The value of a forked call (raising its exception, if it raised one)."""
    return future.wait()


def __getattr__(name: str) -> Any:
    if name in ("TracerWarning", "TracingCheckError"):
        from tsjit.frontend import tracer

        return getattr(tracer, name)
    if name == "Future":
        from tsjit.runtime.futures import Future

        return Future
    raise AttributeError(f"module 'torch.jit' has no attribute '{name}'")


def isinstance(obj: Any, target_type: Any) -> bool:  # noqa: A001 - torch.jit.isinstance
    """`isinstance` that also checks the element types of containers
    (`torch.jit.isinstance(x, List[int])`)."""
    origin = typing.get_origin(target_type)
    arguments = typing.get_args(target_type)
    if target_type is Any:
        return True
    if origin is None:
        if target_type is None or target_type is type(None):
            return obj is None
        return builtins.isinstance(obj, target_type)
    if origin is typing.Union:
        return any(isinstance(obj, a) for a in arguments)
    if origin is list:
        return builtins.isinstance(obj, list) and all(isinstance(v, arguments[0]) for v in obj)
    if origin is dict:
        return builtins.isinstance(obj, dict) and all(
            isinstance(k, arguments[0]) and isinstance(v, arguments[1]) for k, v in obj.items()
        )
    if origin is tuple:
        return (
            builtins.isinstance(obj, tuple)
            and len(obj) == len(arguments)
            and all(isinstance(v, a) for v, a in zip(obj, arguments))
        )
    return builtins.isinstance(obj, origin)
