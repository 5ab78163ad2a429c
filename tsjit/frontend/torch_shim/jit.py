"""`torch.jit` for programs written for TorchScript: the decorators mark functions, and
`torch.jit.script` hands them to tsjit."""

from __future__ import annotations

from typing import Any, Final, TypeVar

__all__ = [
    "Final", "TracerWarning", "TracingCheckError", "annotate", "export", "ignore", "is_scripting", "is_tracing",
    "script", "trace", "unused",
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


def __getattr__(name: str) -> Any:
    if name in ("TracerWarning", "TracingCheckError"):
        from tsjit.frontend import tracer

        return getattr(tracer, name)
    raise AttributeError(f"module 'torch.jit' has no attribute '{name}'")


def export(fn: T) -> T:
    """Marks a module method to be compiled even if `forward` does not call it."""
    fn._tsjit_export = True  # pyright: ignore[reportAttributeAccessIssue]
    return fn


def ignore(fn: T = None, *, drop: bool = False) -> Any:  # pyright: ignore[reportArgumentType]
    """Leaves a function in Python; TorchScript code cannot call it."""
    if fn is None:
        return lambda f: ignore(f, drop=drop)
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
